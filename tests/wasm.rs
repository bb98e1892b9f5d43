//! The JavaScript API (`src/wasm.rs`) in a real browser: headless Chromium through
//! wasm-bindgen-test-runner and chromedriver (`./build.sh test`, or by hand:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --test wasm`).
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used)]

use exemplar::dom::ParseOptions;
use exemplar::similarity;
use exemplar::wasm::{PreparedExample, TS_TYPES, classify_page, parse_page, similarity_js};
use serde::Serialize;
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const LISTING: &str = include_str!("fixtures/demo-site/imoveis/apartamentos.html");
const ENTITY: &str = include_str!("fixtures/demo-site/imovel/101-apartamento-2-quartos-lapa.html");
const ENTITY_2: &str = include_str!("fixtures/demo-site/imovel/115-casa-5-quartos-tatuape.html");
const BASE: &str = "http://127.0.0.1:8000/";

fn url(path: &str) -> String {
    format!("{BASE}{path}")
}

/// A JS result as JSON (what JS code and chrome.storage see).
fn json_of(value: Result<JsValue, js_sys::Error>) -> Value {
    match value {
        Ok(v) => serde_wasm_bindgen::from_value(v).unwrap_or_else(|e| panic!("not JSON-like: {e}")),
        Err(e) => panic!("unexpected error: {}", String::from(e.message())),
    }
}

/// The message of the JS `Error` a call must have thrown.
fn error_message<T>(result: Result<T, js_sys::Error>) -> String {
    match result {
        Ok(_) => panic!("expected a JS Error"),
        Err(e) => {
            let value: &JsValue = e.as_ref();
            assert!(
                value.is_instance_of::<js_sys::Error>(),
                "not an Error object"
            );
            String::from(e.message())
        }
    }
}

fn options(value: Value) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[wasm_bindgen_test]
fn classify_page_tells_a_listing_from_a_property_page() {
    let listing = json_of(classify_page(LISTING, &url("imoveis/apartamentos.html")));
    assert_eq!(listing["kind"], "index", "{listing}");
    let entity = json_of(classify_page(
        ENTITY,
        &url("imovel/101-apartamento-2-quartos-lapa.html"),
    ));
    assert_eq!(entity["kind"], "entity", "{entity}");
    for c in [&listing, &entity] {
        let confidence = c["confidence"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&confidence), "{c}");
        assert!(c["evidence"].is_array(), "{c}");
    }
}

#[wasm_bindgen_test]
fn similarity_of_a_page_with_itself_is_one_and_with_another_below() {
    let same = json_of(similarity_js(ENTITY, ENTITY, JsValue::UNDEFINED));
    assert_eq!(same["similarity"], 1.0, "{same}");
    assert_eq!(same["distance"], 0, "{same}");
    assert_eq!(same["similar"], true, "{same}");
    assert_eq!(same["sizeA"], same["sizeB"]);

    let other = json_of(similarity_js(ENTITY, LISTING, JsValue::UNDEFINED));
    let s = other["similarity"].as_f64().unwrap_or(-1.0);
    assert!((0.0..1.0).contains(&s), "{other}");
    assert!(other["distance"].as_u64().unwrap_or(0) > 0, "{other}");
    let keys: Vec<&str> = other
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in [
        "similarity",
        "distance",
        "sizeA",
        "sizeB",
        "similar",
        "threshold",
    ] {
        assert!(keys.contains(&key), "missing {key}: {other}");
    }
}

#[wasm_bindgen_test]
fn threshold_option_decides_similar() {
    let lenient = json_of(similarity_js(
        ENTITY,
        LISTING,
        options(json!({"threshold": 0.0})),
    ));
    assert_eq!(lenient["similar"], true);
    assert_eq!(lenient["threshold"], 0.0);
    let strict = json_of(similarity_js(
        ENTITY,
        ENTITY_2,
        options(json!({"threshold": 1.0})),
    ));
    assert_eq!(strict["threshold"], 1.0);
    assert_eq!(strict["similar"], strict["similarity"] == 1.0);
    let full = json_of(similarity_js(
        ENTITY,
        ENTITY_2,
        options(json!({"view": {"collapse": "none"}})),
    ));
    assert!(
        full["sizeA"].as_u64() > lenient["sizeA"].as_u64(),
        "{full} {lenient}"
    );
}

#[wasm_bindgen_test]
fn prepared_example_agrees_with_similarity() {
    let mut example = PreparedExample::new(ENTITY, &url("imovel/101.html"), JsValue::UNDEFINED)
        .unwrap_or_else(|e| panic!("{}", String::from(e.message())));
    assert!(example.size() > 10);
    for (html, path) in [
        (ENTITY, "a.html"),
        (ENTITY_2, "b.html"),
        (LISTING, "c.html"),
    ] {
        let prepared = json_of(example.compare(html, &url(path)));
        let direct = json_of(similarity_js(ENTITY, html, JsValue::UNDEFINED));
        assert_eq!(prepared, direct);
        let similar = example
            .is_similar(html, &url(path))
            .unwrap_or_else(|e| panic!("{}", String::from(e.message())));
        assert_eq!(Value::Bool(similar), direct["similar"], "{direct}");
        assert_eq!(prepared["sizeA"].as_u64(), Some(u64::from(example.size())));
    }
}

#[wasm_bindgen_test]
fn parse_page_summarizes() {
    let summary = json_of(parse_page(ENTITY, &url("imovel/101.html")));
    assert_eq!(
        summary["title"],
        "Apartamento com 2 quartos em Lapa · R$ 1.170.000 | Casa Nova Imóveis"
    );
    assert!(summary["nodes"].as_u64().unwrap_or(0) > 100, "{summary}");
    assert!(summary["links"].as_u64().unwrap_or(0) >= 10, "{summary}");
    assert_eq!(summary["forms"], 1, "{summary}");
    assert!(summary["images"].as_u64().unwrap_or(0) >= 4, "{summary}");
    assert!(summary["prices"].as_u64().unwrap_or(0) >= 1, "{summary}");
    assert!(summary["height"].as_u64().unwrap_or(0) > 5, "{summary}");
}

#[wasm_bindgen_test]
fn malformed_options_are_js_errors() {
    let cases = [
        (json!({"threshold": "high"}), "invalid options"),
        (json!({"threshold": 2}), "threshold"),
        (json!({"treshold": 0.5}), "unknown option treshold"),
        (
            json!({"view": {"colapse": "all"}}),
            "unknown option view.colapse",
        ),
        (json!({"view": {"collapse": "sideways"}}), "invalid options"),
        (json!({"parse": {"maxBytes": -1}}), "invalid options"),
        (json!([1, 2]), "must be an object"),
        (json!(0.8), "must be an object"),
    ];
    for (given, expected) in cases {
        let message = error_message(similarity_js(ENTITY, ENTITY, options(given.clone())));
        assert!(message.contains(expected), "{given}: {message}");
        let message = error_message(PreparedExample::new(ENTITY, "", options(given.clone())));
        assert!(message.contains(expected), "{given}: {message}");
    }
    // The module is still usable afterwards (an error is not an abort).
    assert_eq!(
        json_of(similarity_js(LISTING, LISTING, JsValue::NULL))["similarity"],
        1.0
    );
}

#[wasm_bindgen_test]
fn too_large_input_and_bad_urls_are_js_errors() {
    let small_limit = options(json!({"parse": {"maxBytes": 1000}}));
    let message = error_message(similarity_js(ENTITY, "<p>x</p>", small_limit));
    assert!(message.contains("page too large"), "{message}");

    // Over the default limit (16 MiB).
    let huge = "<p>imóvel</p>".repeat((16 << 20) / 12);
    assert!(huge.len() > 16 << 20);
    let message = error_message(classify_page(&huge, &url("huge.html")));
    assert!(message.contains("page too large"), "{message}");
    drop(huge);

    let message = error_message(classify_page(ENTITY, "not a url"));
    assert!(message.contains("invalid page URL"), "{message}");
    assert_eq!(json_of(parse_page("<title>ok</title>", ""))["title"], "ok");
}

/// Every key of a serialized default, recursively (`view.collapse`, …).
fn keys(value: &Value, out: &mut Vec<String>) {
    if let Value::Object(map) = value {
        for (key, inner) in map {
            out.push(key.clone());
            keys(inner, out);
        }
    }
}

#[wasm_bindgen_test]
fn typescript_types_name_every_option() {
    let mut all = Vec::new();
    keys(
        &serde_json::to_value(similarity::Options::default()).unwrap_or_default(),
        &mut all,
    );
    keys(
        &serde_json::to_value(ParseOptions::default()).unwrap_or_default(),
        &mut all,
    );
    assert!(all.len() > 4, "{all:?}");
    for key in all {
        assert!(
            TS_TYPES.contains(&format!("{key}?:")),
            "TS_TYPES in src/wasm.rs lacks the option {key}"
        );
    }
}
