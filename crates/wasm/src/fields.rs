//! The data fields of a pattern for JavaScript ([`exemplar_core::fields`]): induced from the
//! pages a learning run reads again, edited by the user, and read from a page.
//!
//! Every function takes and returns the pattern as JSON text, so the stored crawler's pattern
//! stays the one source of its fields; results are `{patternJson?, fields, values}` where
//! `fields` are the pattern's fields (`{name, css, xpath, kind, repeated, optional, namedBy,
//! …}`) and `values` the example's values as `[[name, value], …]` in the fields' order.
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{error, to_js};
use crate::dom::dom::Document;
use crate::pattern::Pattern;
use exemplar_core::fields::{self, Edit, Field, Value};

/// What the functions return.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FieldsJs<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern_json: Option<String>,
    fields: &'a [Field],
    values: Vec<(String, Value)>,
}

/// `body` parsed as its content type says (`None`: no body, a page that is not HTML, or too
/// large).
pub(crate) fn document(body: &[u8], content_type: Option<&str>) -> Option<Document> {
    if body.is_empty() {
        return None;
    }
    let (html, _) = crate::dom::text::decode(body, content_type);
    Document::parse(&html).ok()
}

/// `[{url, body: Uint8Array, contentType?}]` as (URL, document) pairs; pages that are not
/// HTML are left out.
fn pages(value: &JsValue) -> Result<Vec<(String, Document)>, js_sys::Error> {
    let shape = || error("pages must be [{url, body: Uint8Array, contentType}]");
    if !js_sys::Array::is_array(value) {
        return Err(shape());
    }
    let mut out = Vec::new();
    for item in js_sys::Array::from(value).iter() {
        let get = |k: &str| js_sys::Reflect::get(&item, &k.into()).ok();
        let url = get("url").and_then(|u| u.as_string()).ok_or_else(shape)?;
        let body = get("body")
            .and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok())
            .ok_or_else(shape)?
            .to_vec();
        let content_type = get("contentType").and_then(|c| c.as_string());
        if let Some(doc) = document(&body, content_type.as_deref()) {
            out.push((url, doc));
        }
    }
    Ok(out)
}

fn pattern(json: &str) -> Result<Pattern, js_sys::Error> {
    Pattern::from_json(json).map_err(error)
}

fn result(
    p: &Pattern,
    example: Option<(&Document, &str)>,
    with_json: bool,
) -> Result<JsValue, js_sys::Error> {
    let values = example
        .map(|(doc, url)| fields::extract(&p.fields, doc, url))
        .unwrap_or_default();
    to_js(&FieldsJs {
        pattern_json: with_json.then(|| p.to_json()),
        fields: &p.fields,
        values,
    })
}

/// The known targets of a pattern (JSON text) to read again for its fields, besides its
/// example ([`fields::sample_of`]).
#[wasm_bindgen(js_name = fieldSampleUrls)]
pub fn field_sample_urls(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
) -> Result<Vec<String>, js_sys::Error> {
    let p = pattern(pattern_json)?;
    Ok(fields::sample_of(&p.known_targets, &p.example)
        .into_iter()
        .map(str::to_string)
        .collect())
}

/// The pattern (JSON text) with the fields induced from `pages` (`[{url, body, contentType}]`,
/// the example first; pages that are not HTML are left out): `{patternJson, fields, values}`,
/// `values` the example's. Fewer than two readable pages give no fields.
#[wasm_bindgen(js_name = induceFields)]
pub fn induce_fields(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
    pages_js: JsValue,
) -> Result<JsValue, js_sys::Error> {
    let mut p = pattern(pattern_json)?;
    let (urls, docs): (Vec<String>, Vec<Document>) = pages(&pages_js)?.into_iter().unzip();
    p.fields = fields::induce(&docs);
    result(
        &p,
        docs.first().zip(urls.first()).map(|(d, u)| (d, u.as_str())),
        true,
    )
}

/// The pattern (JSON text) with one edit of its fields (`{op: "remove", name}`, `{op:
/// "rename", name, to}` or `{op: "place", name?, css}`), a placed field fitted to the example
/// page (`exampleUrl`, `exampleBody`, `contentType`; an empty body: none, the field is text):
/// `{patternJson, fields, values}`. Throws
/// with the reason when the edit is refused (the pattern is then unchanged).
#[wasm_bindgen(js_name = editFields)]
pub fn edit_fields(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
    edit: JsValue,
    #[wasm_bindgen(js_name = exampleUrl)] example_url: &str,
    #[wasm_bindgen(js_name = exampleBody)] example_body: &[u8],
    #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
) -> Result<JsValue, js_sys::Error> {
    let mut p = pattern(pattern_json)?;
    let edit: Edit =
        serde_wasm_bindgen::from_value(edit).map_err(|e| error(format!("edit: {e}")))?;
    let example = document(example_body, content_type.as_deref());
    let sample: Vec<Document> = example.into_iter().collect();
    fields::edit::apply(&mut p.fields, &edit, &sample).map_err(error)?;
    p.validate().map_err(error)?;
    result(&p, sample.first().map(|d| (d, example_url)), true)
}

/// The pattern's fields (JSON text) with their values on a page (`url`, `body`, `contentType`):
/// `{fields, values}`.
#[wasm_bindgen(js_name = fieldValues)]
pub fn field_values(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
    url: &str,
    body: &[u8],
    #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
) -> Result<JsValue, js_sys::Error> {
    let p = pattern(pattern_json)?;
    let doc = document(body, content_type.as_deref());
    result(&p, doc.as_ref().map(|d| (d, url)), false)
}
