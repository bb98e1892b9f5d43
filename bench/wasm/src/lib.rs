//! Benchmark-only JavaScript exports (compiled for `wasm32` only), driven by `bench/wasm-bench.mjs`
//! in headless Chromium. Not part of the product API (the crate `exemplar-wasm` is): a build of its own.
//!
//! Every export does its setup (string transfer, parsing, preparing) outside the timed loop and
//! returns the time of the loop alone, in milliseconds, measured with `performance.now()` (falling
//! back to `Date.now()` where there is no `performance`). Never panics: errors become JS `Error`s.
//!
//! | export | returns |
//! |---|---|
//! | `benchParse(html, url, iterations)` | ms for `iterations` parses of `html` |
//! | `benchClassify(html, url, iterations)` | ms for `iterations` classifications of `html` as the extension's `classifyPage` does them: parse, kind, evidence in words |
//! | `new RtdmBench(htmlA, htmlB, tree, urlA, urlB)` | `.run(iterations, mode, theta)` (ms), `.info()` (JSON) |
//!
//! `mode` is `"compare"` (exact RTDM), `"similar"` (decision mode at `theta`) or `"compare-warm"`
//! (see `RtdmBench::run`); `tree` is `"raw"` (the full tree, as published RTDM) or `"view"`
//! (the product's default view).
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use exemplar_html::{Page, ParseOptions, Tree};
use exemplar_similarity::Options;
use exemplar_similarity::rtdm::{Prepared, Rtdm};

fn error(message: impl std::fmt::Display) -> js_sys::Error {
    js_sys::Error::new(&message.to_string())
}

/// A millisecond clock: `performance.now()` when the global has one, else `Date.now()`.
struct Clock {
    now: Option<(JsValue, js_sys::Function)>,
}

impl Clock {
    fn new() -> Clock {
        let global = js_sys::global();
        let now = js_sys::Reflect::get(&global, &JsValue::from_str("performance"))
            .ok()
            .filter(|p| p.is_object())
            .and_then(|perf| {
                let f = js_sys::Reflect::get(&perf, &JsValue::from_str("now")).ok()?;
                let f = f.dyn_into::<js_sys::Function>().ok()?;
                Some((perf, f))
            });
        Clock { now }
    }

    fn ms(&self) -> f64 {
        self.now
            .as_ref()
            .and_then(|(perf, f)| f.call0(perf).ok())
            .and_then(|v| v.as_f64())
            .unwrap_or_else(js_sys::Date::now)
    }
}

fn parse(html: &str, url: &str) -> Result<Page, js_sys::Error> {
    Page::from_html_with(html, url, &ParseOptions::default()).map_err(error)
}

/// The page's URL matters: the default view labels ids by the page's own name (id kinds), so the
/// pages are parsed under their real URLs, as natively.
fn tree_of(html: &str, url: &str, tree: &str) -> Result<Tree, js_sys::Error> {
    let page = parse(html, url)?;
    match tree {
        "raw" => Ok(page.tree),
        "view" => Ok(Options::default().view.apply(&page.tree)),
        other => Err(error(format!(
            "tree must be \"raw\" or \"view\", not {other:?}"
        ))),
    }
}

/// Milliseconds taken by `iterations` parses of `html` (the string is copied into wasm memory once,
/// before the loop).
#[wasm_bindgen(js_name = benchParse)]
pub fn bench_parse(html: &str, url: &str, iterations: u32) -> Result<f64, js_sys::Error> {
    // Fail before timing on a bad page or URL.
    parse(html, url)?;
    let opts = ParseOptions::default();
    let clock = Clock::new();
    let start = clock.ms();
    for _ in 0..iterations {
        black_box(Page::from_html_with(black_box(html), url, &opts).ok());
    }
    Ok(clock.ms() - start)
}

/// Milliseconds taken by `iterations` classifications of `html` as the extension's
/// `classifyPage` makes them (parse, features, the mixture, the evidence in words).
#[wasm_bindgen(js_name = benchClassify)]
pub fn bench_classify(html: &str, url: &str, iterations: u32) -> Result<f64, js_sys::Error> {
    parse(html, url)?;
    exemplar_classify::shipped_model().map_err(error)?;
    let opts = ParseOptions::default();
    let clock = Clock::new();
    let start = clock.ms();
    for _ in 0..iterations {
        if let Ok(page) = Page::from_html_with(black_box(html), url, &opts) {
            let c = black_box(exemplar_classify::classify(&page));
            black_box(exemplar_classify::summary(&page, &c));
        }
    }
    Ok(clock.ms() - start)
}

/// Two pages parsed and prepared once, compared many times.
#[wasm_bindgen(js_name = RtdmBench)]
pub struct RtdmBench {
    a: Prepared,
    b: Prepared,
}

#[wasm_bindgen(js_class = RtdmBench)]
impl RtdmBench {
    /// Parses both pages (at their URLs) and prepares their `tree` (`"raw"` or `"view"`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = htmlA)] html_a: &str,
        #[wasm_bindgen(js_name = htmlB)] html_b: &str,
        tree: &str,
        #[wasm_bindgen(js_name = urlA)] url_a: &str,
        #[wasm_bindgen(js_name = urlB)] url_b: &str,
    ) -> Result<RtdmBench, js_sys::Error> {
        Ok(RtdmBench {
            a: Prepared::new(tree_of(html_a, url_a, tree)?),
            b: Prepared::new(tree_of(html_b, url_b, tree)?),
        })
    }

    /// Milliseconds taken by `iterations` comparisons. `mode`: `"compare"` (exact) or
    /// `"similar"` (decision mode at `theta`), each on a fresh workspace as a first comparison
    /// runs (a reused workspace's memo would answer a repeated pair from cache); `"compare-warm"`:
    /// exact on one reused workspace (the same pair again: memo hits), for reference.
    pub fn run(&self, iterations: u32, mode: &str, theta: f64) -> Result<f64, js_sys::Error> {
        let (a, b) = (&self.a, &self.b);
        let clock = Clock::new();
        let start;
        match mode {
            "compare" => {
                start = clock.ms();
                for _ in 0..iterations {
                    black_box(Rtdm::new().compare(black_box(a), black_box(b)));
                }
            }
            "similar" => {
                start = clock.ms();
                for _ in 0..iterations {
                    black_box(Rtdm::new().is_similar(black_box(a), black_box(b), theta));
                }
            }
            "compare-warm" => {
                let mut ws = Rtdm::new();
                black_box(ws.compare(a, b));
                start = clock.ms();
                for _ in 0..iterations {
                    black_box(ws.compare(black_box(a), black_box(b)));
                }
            }
            other => {
                return Err(error(format!(
                    "mode must be \"compare\", \"similar\" or \"compare-warm\", not {other:?}"
                )));
            }
        }
        Ok(clock.ms() - start)
    }

    /// Sizes, distance and similarity, as JSON `{nodesA, nodesB, distance, similarity}` (to check
    /// that wasm computes what the native build does).
    pub fn info(&self) -> String {
        let c = Rtdm::new().compare(&self.a, &self.b);
        format!(
            "{{\"nodesA\":{},\"nodesB\":{},\"distance\":{},\"similarity\":{}}}",
            c.size_a, c.size_b, c.distance, c.similarity
        )
    }
}
