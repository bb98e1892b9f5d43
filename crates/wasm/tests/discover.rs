//! "Find more sites like this" at the JavaScript boundary (`crates/wasm/src/discover.rs`), in a
//! real browser as the other wasm tests: options checked with clear errors, a pattern's seeds,
//! and a run pumped to its end when nothing answers.
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used)]

use exemplar_wasm::discover::{DiscoverJob, seeds_of_pattern_js};
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{error_message, json_of, options};

const SEED: &str = "http://shop.test/product/1";

fn job(o: serde_json::Value) -> Result<DiscoverJob, js_sys::Error> {
    DiscoverJob::new(vec![SEED.to_string()], options(o))
}

#[wasm_bindgen_test]
fn bad_options_are_clear_errors() {
    for (o, says) in [
        (json!({"serach": "http://s.test/?q={q}"}), "serach"),
        (json!({"maxFetches": "ten"}), "invalid type: string \"ten\""),
    ] {
        let r = job(o.clone());
        assert!(r.is_err(), "{o} accepted");
        assert!(error_message(r).contains(says), "{o}");
    }
    assert!(
        error_message(job(json!({"search": "http://s.test/?q=lamp"}))).contains(
            "search template \"http://s.test/?q=lamp\": an http(s) URL with {q} is needed"
        )
    );
    let r = job(json!({"backlinks": "ftp://b.test/{url}"}));
    assert!(r.is_err(), "an ftp template accepted");
    assert!(error_message(r).contains("backlinks template"));
    assert!(error_message(job(json!({"maxFetches": 0}))).contains("maxFetches must be between 1"));
    assert!(
        error_message(DiscoverJob::new(Vec::new(), JsValue::UNDEFINED)).contains("no seed page")
    );
    assert!(
        error_message(DiscoverJob::new(vec!["mailto:a@b".into()], JsValue::NULL))
            .contains("is no http(s) URL")
    );
    // Blank templates are no service.
    assert!(job(json!({"search": "  ", "backlinks": ""})).is_ok());
}

#[wasm_bindgen_test]
fn a_run_where_nothing_answers_ends_and_says_why() {
    let mut j = job(json!({"search": "http://s.test/?q={q}", "maxFetches": 10, "delayMs": 0}))
        .unwrap_or_else(|e| panic!("{}", String::from(e.message())));
    let mut asked = 0;
    for step in 0..1000 {
        let p = json_of(j.poll(f64::from(step)));
        match p["type"].as_str() {
            Some("fetch") => {
                let id = p["id"].as_f64().unwrap_or(-1.0);
                if p["kind"] == "robots" {
                    // No robots.txt: everything allowed.
                    let r = j.handle_response(
                        id,
                        404,
                        p["url"].as_str().unwrap_or("").into(),
                        JsValue::NULL,
                        Vec::new(),
                        false,
                        f64::from(step),
                    );
                    assert!(r.is_ok());
                } else {
                    asked += 1;
                    j.handle_failure(id, "connection refused".into(), f64::from(step));
                }
            }
            Some("done") => break,
            _ => {}
        }
    }
    assert_eq!(json_of(j.poll(1000.0))["type"], "done");
    let r = json_of(j.result());
    assert!((1..=10).contains(&asked), "{asked} requests");
    assert_eq!(r["sites"], json!([]));
    let problems = r["problems"].as_array().map_or(0, Vec::len);
    assert!(problems >= 1, "{r}");
    assert!(
        r["problems"][0]
            .as_str()
            .unwrap_or("")
            .contains("connection refused"),
        "{r}"
    );
}

#[wasm_bindgen_test]
fn a_patterns_seeds_or_a_clear_error() {
    assert!(!error_message(seeds_of_pattern_js("{not json")).is_empty());
    let pattern = json!({
        "version": 2, "site": "shop.test", "entry": "http://shop.test/", "example": SEED,
        "scope": {"site": "shop.test"},
        "levels": [{"regexes": ["^http://shop\\.test/product/[0-9]+$"], "samples": ["http://shop.test/product/2"]}],
        "knownTargets": [SEED, "http://shop.test/product/3"],
    });
    let seeds = seeds_of_pattern_js(&pattern.to_string())
        .unwrap_or_else(|e| panic!("{pattern}: {}", String::from(e.message())));
    assert_eq!(
        seeds,
        [
            SEED,
            "http://shop.test/product/3",
            "http://shop.test/product/2"
        ]
    );
}
