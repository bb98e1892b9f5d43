//! Export formats for JavaScript: pages as JSON Lines, CSV and WARC 1.1, and the Scrapy project
//! as a zip, from the pages a crawl job handed out (its `target` events, as the extension stores
//! them). The formats themselves are [`crate::export`].
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::error;
use crate::export::{self, PageRecord, ScrapySpec};
use crate::pattern::Pattern;

/// The fields of a stored target page (a crawl job's `target` event) that exports use.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageJs {
    url: String,
    #[serde(default)]
    final_url: String,
    #[serde(default)]
    status: u16,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    heading: Option<String>,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    canonical: Option<String>,
    #[serde(default)]
    similarity: Option<f64>,
    #[serde(default)]
    found_on_level: Option<usize>,
    #[serde(default)]
    by_heading: bool,
    #[serde(default)]
    fetched_at_ms: f64,
    #[serde(default)]
    text_digest: Option<String>,
    #[serde(default)]
    change: Option<export::Change>,
    #[serde(default)]
    fields: Vec<(String, exemplar_core::fields::Value)>,
}

/// `pages` (an array of `{url, finalUrl, status, headers, title, heading, lang, canonical, similarity, foundOnLevel,
/// byHeading, fetchedAtMs, textDigest, change ('new' | 'changed' | 'same'), fields: [[name,
/// value]], body: Uint8Array}`) as
/// export records.
fn records(pages: &JsValue) -> Result<Vec<PageRecord>, js_sys::Error> {
    if !js_sys::Array::is_array(pages) {
        return Err(error("pages must be an array of stored target pages"));
    }
    let array = js_sys::Array::from(pages);
    let mut out = Vec::with_capacity(array.length() as usize);
    for (i, item) in array.iter().enumerate() {
        let body = js_sys::Reflect::get(&item, &"body".into()).ok();
        let body = body.and_then(|b| {
            b.dyn_into::<js_sys::Uint8Array>()
                .ok()
                .map(|bytes| bytes.to_vec())
        });
        // The body is read above; the rest goes through serde without it.
        let meta = js_sys::Object::assign(&js_sys::Object::new(), &js_sys::Object::from(item));
        let _ = js_sys::Reflect::delete_property(&meta, &"body".into());
        let page: PageJs = serde_wasm_bindgen::from_value(meta.into())
            .map_err(|e| error(format!("page {i}: {e}")))?;
        let content_type = page
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone());
        out.push(PageRecord {
            final_url: if page.final_url.is_empty() {
                page.url.clone()
            } else {
                page.final_url
            },
            url: page.url,
            status: page.status,
            content_type,
            headers: page.headers,
            fetched_at_ms: if page.fetched_at_ms.is_finite() && page.fetched_at_ms > 0.0 {
                page.fetched_at_ms as u64
            } else {
                0
            },
            title: page.title,
            heading: page.heading,
            lang: page.lang,
            canonical: page.canonical,
            similarity: page.similarity,
            level: page.found_on_level,
            by_heading: page.by_heading,
            text_digest: page.text_digest,
            change: page.change,
            fields: page.fields,
            body,
        });
    }
    Ok(out)
}

fn text(bytes: Vec<u8>) -> Result<String, js_sys::Error> {
    String::from_utf8(bytes).map_err(|e| error(format!("export is not UTF-8: {e}")))
}

/// JSON Lines: one object per page (`url`, `finalUrl`, `status`, `title`, `heading`, `fetchedAt`,
/// `similarity`, `level`, `byHeading: true` for a page taken below θ for its heading,
/// `textDigest`, `change` when the page has one, and `html` when `includeHtml`).
#[wasm_bindgen(js_name = exportJsonl)]
pub fn export_jsonl(
    pages: JsValue,
    #[wasm_bindgen(js_name = includeHtml)] include_html: bool,
) -> Result<String, js_sys::Error> {
    let mut out = Vec::new();
    export::write_jsonl(&mut out, &records(&pages)?, include_html).map_err(error)?;
    text(out)
}

/// CSV (RFC 4180) with a header row: `url,final_url,status,title,heading,similarity,level,fetched_at`,
/// then a column per data field named in `fieldNames` (the pattern's, in its order).
#[wasm_bindgen(js_name = exportCsv)]
pub fn export_csv(
    pages: JsValue,
    #[wasm_bindgen(js_name = fieldNames)] field_names: Option<Vec<String>>,
) -> Result<String, js_sys::Error> {
    let names = field_names.unwrap_or_default();
    let mut out = Vec::new();
    export::write_csv_header_fields(&mut out, &names).map_err(error)?;
    export::write_csv_rows_fields(&mut out, &records(&pages)?, &names).map_err(error)?;
    text(out)
}

/// WARC 1.1: a `warcinfo` record, then one `response` record per page (status line, headers,
/// body).
#[wasm_bindgen(js_name = exportWarc)]
pub fn export_warc(
    pages: JsValue,
    description: &str,
    #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
) -> Result<Vec<u8>, js_sys::Error> {
    let mut w = WarcExport::new(description, now_ms)?;
    let mut out = w.push(pages)?;
    out.extend(w.finish()?);
    Ok(out)
}

/// A WARC 1.1 file written a batch of pages at a time, so a large crawl is exported without
/// holding every body at once: `push` returns the bytes of the batch's `response` records (the
/// first call also the `warcinfo` record); concatenated, the pieces are one WARC file with
/// record ids unique across batches.
#[wasm_bindgen]
pub struct WarcExport {
    writer: Option<export::WarcWriter<Vec<u8>>>,
}

#[wasm_bindgen]
impl WarcExport {
    /// Starts a file described by `description`, dated `nowMs` (unix ms).
    #[wasm_bindgen(constructor)]
    pub fn new(
        description: &str,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<WarcExport, js_sys::Error> {
        let now = if now_ms.is_finite() && now_ms > 0.0 {
            now_ms as u64
        } else {
            0
        };
        let writer = export::WarcWriter::new(Vec::new(), description, now).map_err(error)?;
        Ok(WarcExport {
            writer: Some(writer),
        })
    }

    /// The records of one batch of stored pages (as [`export_warc`] takes them).
    pub fn push(&mut self, pages: JsValue) -> Result<Vec<u8>, js_sys::Error> {
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| error("the WARC export is finished"))?;
        for page in records(&pages)? {
            w.write_response(&page).map_err(error)?;
        }
        Ok(std::mem::take(w.get_mut()))
    }

    /// Ends the file: the bytes not yet returned (none with the current writer).
    pub fn finish(&mut self) -> Result<Vec<u8>, js_sys::Error> {
        match self.writer.take() {
            Some(w) => w.finish().map_err(error),
            None => Ok(Vec::new()),
        }
    }
}

/// The Scrapy project generated from a pattern (JSON text), as a zip archive whose files sit in
/// one folder `<site>-scrapy/`.
#[wasm_bindgen(js_name = exportScrapyZip)]
pub fn export_scrapy_zip(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
) -> Result<Vec<u8>, js_sys::Error> {
    let pattern = Pattern::from_json(pattern_json).map_err(error)?;
    Ok(export::scrapy_zip(&ScrapySpec::from_pattern(&pattern)))
}
