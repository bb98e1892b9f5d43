//! The JavaScript API: the only `#[wasm_bindgen]` code of the product (compiled for `wasm32`
//! only; natively the crate is empty).
//!
//! Owns the boundary: argument checking, options from JS objects, results as plain JSON-compatible
//! objects with camelCase fields (so they go straight into `chrome.storage`), and errors as JS
//! `Error`s with a clear message. Never panics on any input: a panic would abort the module. Owns no
//! logic of its own: parsing is `exemplar_html`, similarity `exemplar_similarity`, page kinds
//! `exemplar_classify`.
//!
//! | export | returns |
//! |---|---|
//! | `classifyPage(html, url)` | `{kind: "index" \| "entity" \| "other", confidence, evidence}` |
//! | `similarity(htmlA, htmlB, options?)` | `{similarity, distance, sizeA, sizeB, similar, threshold}` |
//! | `new PreparedExample(html, url, options?)` | `.compare(html, url)`, `.isSimilar(html, url)`, `.size` |
//! | `parsePage(html, url)` | `{title, nodes, links, forms, images, prices, height}` |
//! | `Job.learn(…)`, `Job.crawl(…)`, `Job.restore(snapshot)` | a mapping or crawling run to pump (`jobs`) |
//! | `validatePattern(json)`, `renderPattern(json)` | the pattern object / readable text, or a clear `Error` |
//! | `exportJsonl`, `exportCsv`, `exportWarc`, `new WarcExport(description, nowMs)` (`.push(pages)`, `.finish()`), `exportScrapyZip` | export files (`exports`) |
//! | `fieldSampleUrls(patternJson)`, `induceFields(patternJson, pages)`, `editFields(patternJson, edit, exampleUrl, exampleBody, contentType)`, `fieldValues(patternJson, url, body, contentType)` | the pattern's data fields: learned, edited, read (`fields`) |
//! | `mayBeDrawn(body)`, `drawnCompare(url, fetched, contentType, rendered)`, `new DrawnLedger()` (`.wants`, `.record`, `.fetchedOnly`), `loadMoreWords()` | pages drawn by scripts: whether to render them (`drawn`) |
//! | `new DetectJob(start, …)`, `new DiscoverJob(seeds, options)`, `seedsOfPattern(json)` | a site's sections of item pages (`detect`); more sites like the seeds (`discover`) |
//! | `defaultSettings()` | the core's defaults of a learning run (`{maxPages, maxDepth, delayMs, concurrency, threshold, maxBytes, obeyRobots}`) |
//! | `compareTrees`, `testPattern`, `generaliseUrls` | the playground's views (`playground`, with the feature `playground` only: the extension's module leaves them out) |
//!
//! `options` is `{threshold?, view?: {collapse?, maxDepth?, text?, classes?}, parse?: {maxBytes?,
//! maxNodes?, maxDepth?}}`: `similarity::Options` plus `ParseOptions` under `parse`, defaults
//! for what is absent. Unknown keys are an error (a typo must not silently mean "default").
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

pub mod detect;
pub mod discover;
pub mod drawn;
pub mod exports;
pub mod fields;
pub mod jobs;
#[cfg(feature = "playground")]
pub mod playground;

// The crates below, by their short module names.
use crate::dom::{Page, ParseOptions};
use exemplar_classify as classify;
use exemplar_core::review::{directory, heading, language, listing};
use exemplar_core::{crawler, fetch, mapper, pattern};
use exemplar_export as export;
use exemplar_html as dom;
#[cfg(feature = "playground")]
use exemplar_similarity::rtdm;
use exemplar_similarity::{self as similarity, Example};
#[cfg(feature = "playground")]
use exemplar_url::url_pattern;

/// Page URL used by `similarity()`, whose pages have none: only the structure is compared.
const NO_URL: &str = "about:blank";

/// The TypeScript types of the options and results (in `pkg/exemplar.d.ts`). Hand-written: the
/// wasm tests check that it names every option of [`similarity::Options`] and [`ParseOptions`].
pub const TS_TYPES: &str = r#"
/** Options of similarity() and PreparedExample; every field is optional. */
export interface SimilarityOptions {
  /** θ in [0, 1]: pages whose score (similarity × kind agreement × place agreement) is ≥ θ are "similar". */
  threshold?: number;
  /** The compared view of the trees (exemplar_similarity::View). */
  view?: {
    collapse?: "none" | "consecutive" | "all" | "merge";
    maxDepth?: number | null;
    text?: boolean;
    classes?: boolean;
    ids?: boolean;
    /** Nodes above branching depth `topDepth` count `1 + topWeight × (topDepth − depth)` times. */
    topWeight?: number;
    topDepth?: number;
    /** With collapse "all": siblings above this branching depth that share a label are merged, not dropped (missing: 0). */
    mergeAbove?: number;
  };
  /** In [0, 1]: how much a page loses for lacking the kinds the example declares in its ids. */
  kindWeight?: number;
  /** In [0, 1]: how much a page loses for living outside the example's directory. */
  placeWeight?: number;
  parse?: { maxBytes?: number; maxNodes?: number; maxDepth?: number };
}
export interface Verdict {
  similarity: number; distance: number; sizeA: number; sizeB: number; kindAgreement: number; placeAgreement: number; score: number;
  similar: boolean; threshold: number;
}
export interface Classification {
  kind: "index" | "entity" | "other"; confidence: number; evidence: unknown[];
  /** The evidence in words: "links to 48 pages under /imoveis/", "3 prices", … */
  summary: string[];
}
/** How a page as the browser drew it differs from its fetched HTML (drawnCompare). */
export interface DrawnComparison {
  /** The rendered page shows content the fetched one lacks (text outside links, or twice the text), enough for a crawl to miss items. */
  matters: boolean;
  /** The difference in words. */
  summary: string;
  linksAdded: number;
  textFetched: number;
  textRendered: number;
}
export interface PageSummary {
  title: string; nodes: number; links: number; forms: number; images: number; prices: number; height: number;
}
/** A site's section of item pages, as DetectJob finds it. */
export interface DetectedSection {
  /** The listing page(s). */
  index: string[];
  /** A few items, in the listing's order. */
  examples: string[];
  estimatedItems: number;
  /** The items' URL shape (/product/{n}). */
  shape: string;
}
/** What DetectJob.result() returns. */
export interface Detection {
  site: string; entitySite: boolean; sections: DetectedSection[]; fetches: number;
  visited: { url: string; depth: number; kind: string; group: number }[];
}
/** Options of new DiscoverJob(seeds, options): templates hold {q} (search) or {url}. */
export interface DiscoverOptions {
  search?: string; related?: string; backlinks?: string;
  maxFetches?: number; maxQueries?: number; delayMs?: number; concurrency?: number;
  obeyRobots?: boolean; maxBytes?: number;
}
/** A site DiscoverJob found: its section's listing (entry) and sample item pages. */
export interface FoundSite {
  site: string; score: number; entry: string; examples: string[]; pages: number;
  foundBy: "keyword" | "related" | "forward" | "backward"; foundAt: number;
}
/** What DiscoverJob.result() returns (rounds: how many). */
export interface Discovery {
  sites: FoundSite[]; refused: string[]; seedSites: string[];
  /** Sites serving a seed site's or a site found's pages under another name: never listed. */
  replicas: { site: string; of: string }[];
  fetches: number; queries: number;
  rounds: number; problems: string[];
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_SECTION: &str = TS_TYPES;

pub(crate) fn error(message: impl std::fmt::Display) -> js_sys::Error {
    js_sys::Error::new(&message.to_string())
}

pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, js_sys::Error> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| error(format!("could not convert the result: {e}")))
}

/// Every key of `given` must exist in `template` (the defaults), recursively: catches typos.
fn check_keys(given: &Value, template: &Value, path: &str) -> Result<(), String> {
    let (Value::Object(given), Value::Object(template)) = (given, template) else {
        return Ok(());
    };
    for (key, value) in given {
        let Some(default) = template.get(key) else {
            let known: Vec<&str> = template.keys().map(String::as_str).collect();
            return Err(format!(
                "unknown option {path}{key} (known: {})",
                known.join(", ")
            ));
        };
        check_keys(value, default, &format!("{path}{key}."))?;
    }
    Ok(())
}

/// `value` (possibly absent) over `T::default()`, with unknown keys rejected.
pub(crate) fn merge_defaults<T: Serialize + DeserializeOwned + Default>(
    value: Option<Value>,
    what: &str,
) -> Result<T, js_sys::Error> {
    let Some(value) = value else {
        return Ok(T::default());
    };
    let template = serde_json::to_value(T::default()).map_err(error)?;
    check_keys(&value, &template, what).map_err(error)?;
    serde_json::from_value(value).map_err(|e| error(format!("invalid options: {what}{e}")))
}

/// Options as the JS API takes them: similarity options plus `parse` limits.
struct JsOptions {
    similarity: similarity::Options,
    parse: ParseOptions,
}

impl JsOptions {
    fn from_js(options: &JsValue) -> Result<JsOptions, js_sys::Error> {
        if options.is_undefined() || options.is_null() {
            return Ok(JsOptions {
                similarity: similarity::Options::default(),
                parse: ParseOptions::default(),
            });
        }
        if !options.is_object() || js_sys::Array::is_array(options) {
            return Err(error("options must be an object like {threshold: 0.8}"));
        }
        let value: Value = serde_wasm_bindgen::from_value(options.clone())
            .map_err(|e| error(format!("invalid options: {e}")))?;
        let Value::Object(mut map) = value else {
            return Err(error("options must be an object like {threshold: 0.8}"));
        };
        let parse = merge_defaults::<ParseOptions>(map.remove("parse"), "parse.")?;
        let similarity = merge_defaults::<similarity::Options>(Some(Value::Object(map)), "")?;
        similarity
            .validate()
            .map_err(|e| error(format!("invalid options: {e}")))?;
        Ok(JsOptions { similarity, parse })
    }
}

fn parse(html: &str, url: &str, options: &ParseOptions) -> Result<Page, js_sys::Error> {
    Page::from_html_with(html, url, options).map_err(error)
}

/// A URL argument: empty means "no URL" (structure-only uses).
fn page_url(url: &str) -> &str {
    if url.is_empty() { NO_URL } else { url }
}

/// Classifies a page as `index` (a list of items), `entity` (one item) or `other`.
///
/// Returns `{kind, confidence, evidence, summary}` (`summary`: the evidence in words). Throws an `Error` when the page is too large or the URL
/// is not absolute.
#[wasm_bindgen(js_name = classifyPage, unchecked_return_type = "Classification")]
pub fn classify_page(html: &str, url: &str) -> Result<JsValue, js_sys::Error> {
    let page = parse(html, page_url(url), &ParseOptions::default())?;
    let c = classify::classify(&page);
    let result = to_js(&c)?;
    let summary = to_js(&classify::summary(&page, &c))?;
    js_sys::Reflect::set(&result, &"summary".into(), &summary)
        .map_err(|_| error("could not set the summary"))?;
    Ok(result)
}

/// Structural similarity of two pages (RTDM on the template view).
///
/// Returns `{similarity, distance, sizeA, sizeB, similar, threshold}`. Throws an `Error` on invalid
/// options or a page over the size limits.
#[wasm_bindgen(js_name = similarity, unchecked_return_type = "Verdict")]
pub fn similarity_js(
    #[wasm_bindgen(js_name = htmlA)] html_a: &str,
    #[wasm_bindgen(js_name = htmlB)] html_b: &str,
    #[wasm_bindgen(unchecked_param_type = "SimilarityOptions")] options: JsValue,
) -> Result<JsValue, js_sys::Error> {
    let options = JsOptions::from_js(&options)?;
    let a = parse(html_a, NO_URL, &options.parse)?;
    let b = parse(html_b, NO_URL, &options.parse)?;
    to_js(&similarity::compare_pages(&a, &b, &options.similarity))
}

/// An example page parsed and prepared once, for comparisons with many pages.
#[wasm_bindgen]
pub struct PreparedExample {
    example: Example,
    parse: ParseOptions,
}

#[wasm_bindgen]
impl PreparedExample {
    /// Parses and prepares the example. Throws an `Error` on invalid options or a page over the
    /// size limits.
    #[wasm_bindgen(constructor)]
    pub fn new(
        html: &str,
        url: &str,
        #[wasm_bindgen(unchecked_param_type = "SimilarityOptions")] options: JsValue,
    ) -> Result<PreparedExample, js_sys::Error> {
        let options = JsOptions::from_js(&options)?;
        let page = parse(html, page_url(url), &options.parse)?;
        Ok(PreparedExample {
            example: Example::new(&page, options.similarity),
            parse: options.parse,
        })
    }

    /// Compares a page with the example: the same object as `similarity()`.
    #[wasm_bindgen(unchecked_return_type = "Verdict")]
    pub fn compare(&mut self, html: &str, url: &str) -> Result<JsValue, js_sys::Error> {
        let page = parse(html, page_url(url), &self.parse)?;
        to_js(&self.example.compare(&page))
    }

    /// Whether a page is similar to the example (stops computing as soon as the answer is known).
    #[wasm_bindgen(js_name = isSimilar)]
    pub fn is_similar(&mut self, html: &str, url: &str) -> Result<bool, js_sys::Error> {
        let page = parse(html, page_url(url), &self.parse)?;
        Ok(self.example.is_similar(&page))
    }

    /// Number of nodes of the example's compared view.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        self.example.size()
    }

    /// The θ in force.
    #[wasm_bindgen(getter)]
    pub fn threshold(&self) -> f64 {
        self.example.options().threshold
    }
}

/// What `parsePage` returns: counts for the UI and tests.
#[derive(Serialize)]
struct PageSummary<'a> {
    title: &'a str,
    nodes: usize,
    links: usize,
    forms: usize,
    images: usize,
    prices: usize,
    height: u32,
}

/// Parses a page and returns a summary: `{title, nodes, links, forms, images, prices, height}`.
#[wasm_bindgen(js_name = parsePage, unchecked_return_type = "PageSummary")]
pub fn parse_page(html: &str, url: &str) -> Result<JsValue, js_sys::Error> {
    let page = parse(html, page_url(url), &ParseOptions::default())?;
    to_js(&PageSummary {
        title: &page.title,
        nodes: page.tree.len(),
        links: page.links.len(),
        forms: page.forms.len(),
        images: page.image_count,
        prices: page.price_count(),
        height: page.tree.height(),
    })
}
