//! The data fields' JavaScript API (`crates/wasm/src/fields.rs`) in headless Chromium, on the
//! demo site's property pages: induced into a version 1 pattern, edited as the extension's
//! panel edits them, and read from another page.
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used)]

use exemplar_wasm::fields::{edit_fields, field_values, induce_fields};
use serde_json::{Value, json};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{error_message, json_of, options as js};

const PATTERN_V1: &str = include_str!("../../../www/examples/demo-pattern.json");
const BASE: &str = "https://demo.exemplar.dev/imovel/";
const PAGES: [(&str, &str); 4] = [
    (
        "101-apartamento-2-quartos-lapa.html",
        include_str!(
            "../../../tests/fixtures/demo-site/imovel/101-apartamento-2-quartos-lapa.html"
        ),
    ),
    (
        "104-apartamento-4-quartos-vila-madalena.html",
        include_str!(
            "../../../tests/fixtures/demo-site/imovel/104-apartamento-4-quartos-vila-madalena.html"
        ),
    ),
    (
        "115-casa-5-quartos-tatuape.html",
        include_str!("../../../tests/fixtures/demo-site/imovel/115-casa-5-quartos-tatuape.html"),
    ),
    (
        "119-casa-3-quartos-brooklin.html",
        include_str!("../../../tests/fixtures/demo-site/imovel/119-casa-3-quartos-brooklin.html"),
    ),
];
const OTHER: &str = include_str!(
    "../../../tests/fixtures/demo-site/imovel/110-apartamento-2-quartos-jardim-paulista.html"
);

fn pages() -> JsValue {
    let out = js_sys::Array::new();
    for (name, html) in PAGES {
        let page = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            js_sys::Reflect::set(&page, &k.into(), v).unwrap_or_else(|_| panic!("set {k}"));
        };
        set("url", &format!("{BASE}{name}").into());
        set("contentType", &"text/html; charset=utf-8".into());
        set("body", &js_sys::Uint8Array::from(html.as_bytes()).into());
        out.push(&page);
    }
    out.into()
}

/// The example's value of field `name`.
fn value_of<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["values"]
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v[0] == name))
        .map(|v| &v[1])
        .unwrap_or_else(|| panic!("no value of {name}: {result}"))
}

#[wasm_bindgen_test]
fn fields_are_induced_edited_and_read() {
    let induced = json_of(induce_fields(PATTERN_V1, pages()));
    assert_eq!(value_of(&induced, "price").as_f64(), Some(1_170_000.0));
    assert_eq!(value_of(&induced, "quartos").as_f64(), Some(2.0));
    let pattern = induced["patternJson"].as_str().expect("json").to_string();
    assert!(pattern.contains("\"version\": 2"), "written as version 2");

    let edit = |pattern: &str, e: Value| {
        edit_fields(
            pattern,
            js(e),
            &format!("{BASE}{}", PAGES[0].0),
            PAGES[0].1.as_bytes(),
            Some("text/html".into()),
        )
    };
    let renamed = json_of(edit(
        &pattern,
        json!({"op": "rename", "name": "price", "to": "Preço"}),
    ));
    assert_eq!(value_of(&renamed, "preço").as_f64(), Some(1_170_000.0));
    let pattern = renamed["patternJson"].as_str().expect("json").to_string();
    let removed = json_of(edit(&pattern, json!({"op": "remove", "name": "agent"})));
    assert!(
        removed["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .all(|f| f["name"] != "agent")
    );
    let pattern = removed["patternJson"].as_str().expect("json").to_string();
    // A field placed by a selector, as the page picker gives one: typed by its value.
    let placed = json_of(edit(
        &pattern,
        json!({"op": "place", "name": "Bairro", "css": "main > article.property > p.address"}),
    ));
    assert!(
        value_of(&placed, "bairro")
            .as_str()
            .is_some_and(|v| v.contains("Lapa")),
        "{placed}"
    );
    let pattern = placed["patternJson"].as_str().expect("json").to_string();

    // Refused edits say why.
    assert!(
        error_message(edit(&pattern, json!({"op": "remove", "name": "nope"})))
            .contains("no field \"nope\"")
    );
    assert!(
        error_message(edit(&pattern, json!({"op": "place", "css": "a[href]"})))
            .contains("not understood")
    );
    assert!(error_message(edit(&pattern, json!({"op": "explode"}))).contains("edit"));

    // Read from a page the sample did not hold.
    let other = json_of(field_values(
        &pattern,
        &format!("{BASE}110.html"),
        OTHER.as_bytes(),
        None,
    ));
    assert!(other.get("patternJson").is_none());
    assert!(value_of(&other, "preço").is_number(), "{other}");
    assert!(
        value_of(&other, "bairro")
            .as_str()
            .is_some_and(|v| v.contains("Jardim Paulista")),
        "{other}"
    );
    assert!(error_message(field_values("{", "x", b"", None)).contains("not JSON"));
}
