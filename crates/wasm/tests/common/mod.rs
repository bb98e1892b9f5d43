//! What the browser tests of the JavaScript API share: results read as JSON, the messages of
//! thrown errors, options made JS objects.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// A JS result as JSON (what JS code and chrome.storage see).
pub fn json_of(value: Result<JsValue, js_sys::Error>) -> Value {
    match value {
        Ok(v) => serde_wasm_bindgen::from_value(v).unwrap_or_else(|e| panic!("not JSON-like: {e}")),
        Err(e) => panic!("unexpected error: {}", String::from(e.message())),
    }
}

/// The message of the JS `Error` a call must have thrown.
pub fn error_message<T>(result: Result<T, js_sys::Error>) -> String {
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

pub fn options(value: Value) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or_else(|e| panic!("{e}"))
}
