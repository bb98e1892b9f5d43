//! "Find more sites like this" for JavaScript drivers: [`DiscoverJob`] wraps the sans-IO
//! [`Discoverer`] so the extension's background pumps it with the browser's `fetch`, as it pumps
//! a [`crate::jobs::Job`] (`poll`, `handleResponse`, `handleFailure`, `drainEvents`, `cancel`).
//! A discovery is not saved: a stopped worker leaves the answer it had so far.
//!
//! Contract: the options are checked (unknown keys, templates without their placeholder,
//! budgets out of range are clear errors); `result()` may be read at any time and is final once
//! `poll` says done.
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::{error, to_js};
use crate::fetch::{FetchResult, Machine, Politeness};
use crate::jobs::{ms, plain_poll, response_of};
use exemplar_core::discover::{DiscoverConfig, Discoverer, MAX_SEEDS, seeds_of_pattern};

/// Page fetches a discovery may be given at most from the extension: a browser's run is
/// watched by its user, and a larger budget belongs to the command line.
const MAX_FETCHES: usize = 20_000;

/// What the extension sets; every field but the seeds is optional.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    search: Option<String>,
    related: Option<String>,
    backlinks: Option<String>,
    max_fetches: Option<usize>,
    max_queries: Option<usize>,
    delay_ms: Option<u64>,
    concurrency: Option<usize>,
    obey_robots: Option<bool>,
    max_bytes: Option<usize>,
}

/// A search for more sites with pages like the seeds.
#[wasm_bindgen]
pub struct DiscoverJob {
    inner: Discoverer,
}

/// The seed pages a saved crawler's pattern gives (its example, known targets and samples).
#[wasm_bindgen(js_name = seedsOfPattern)]
pub fn seeds_of_pattern_js(
    #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
) -> Result<Vec<String>, js_sys::Error> {
    let pattern = exemplar_core::pattern::Pattern::from_json(pattern_json).map_err(error)?;
    Ok(seeds_of_pattern(&pattern))
}

#[wasm_bindgen]
impl DiscoverJob {
    /// A discovery from `seeds` (page URLs, at most 20 are read) with `options`: `{search?,
    /// related?, backlinks?, maxFetches?, maxQueries?, delayMs?, concurrency?, obeyRobots?,
    /// maxBytes?}`, templates with `{q}` (search) or `{url}` (related, backlinks).
    #[wasm_bindgen(constructor)]
    pub fn new(
        seeds: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "DiscoverOptions")] options: JsValue,
    ) -> Result<DiscoverJob, js_sys::Error> {
        // Through JSON: serde_wasm_bindgen reads a struct's own keys only, and a typo must be
        // an error, not a default.
        let value: serde_json::Value = if options.is_undefined() || options.is_null() {
            serde_json::json!({})
        } else {
            serde_wasm_bindgen::from_value(options).map_err(|e| error(format!("options: {e}")))?
        };
        let o: Options =
            serde_json::from_value(value).map_err(|e| error(format!("options: {e}")))?;
        let mut config = DiscoverConfig::default();
        let blank = |t: Option<String>| t.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        config.search = blank(o.search);
        config.related = blank(o.related);
        config.backlinks = blank(o.backlinks);
        if let Some(n) = o.max_fetches {
            if !(1..=MAX_FETCHES).contains(&n) {
                return Err(error(format!(
                    "maxFetches must be between 1 and {MAX_FETCHES}"
                )));
            }
            config.max_fetches = n;
        }
        if let Some(n) = o.max_queries {
            config.max_queries = n;
        }
        if let Some(n) = o.max_bytes {
            config.max_bytes = n;
        }
        let per_host = o.concurrency.unwrap_or(2).clamp(1, 16);
        config.politeness = Politeness {
            delay_ms: o.delay_ms.unwrap_or(config.politeness.delay_ms),
            max_in_flight: per_host * 4,
            max_in_flight_per_host: per_host,
            obey_robots: o.obey_robots.unwrap_or(true),
            ..Politeness::default()
        };
        config.detect.politeness = config.politeness.clone();
        let seeds: Vec<String> = seeds.into_iter().take(MAX_SEEDS).collect();
        Ok(DiscoverJob {
            inner: Discoverer::new(&seeds, config).map_err(error)?,
        })
    }

    /// What to do now, as `Job.poll`.
    pub fn poll(&mut self, now_ms: f64) -> Result<JsValue, js_sys::Error> {
        plain_poll(self.inner.poll(ms(now_ms)))
    }

    /// The response to request `id`, as `Job.handleResponse`.
    #[wasm_bindgen(js_name = handleResponse)]
    #[allow(clippy::too_many_arguments)]
    pub fn handle_response(
        &mut self,
        id: f64,
        status: u16,
        #[wasm_bindgen(js_name = finalUrl)] final_url: String,
        headers: JsValue,
        body: Vec<u8>,
        truncated: bool,
        now_ms: f64,
    ) -> Result<(), js_sys::Error> {
        let response = response_of(status, final_url, headers, body, truncated)?;
        self.inner.handle(ms(id), response, ms(now_ms));
        Ok(())
    }

    /// Request `id` failed: `message` says why.
    #[wasm_bindgen(js_name = handleFailure)]
    pub fn handle_failure(&mut self, id: f64, message: String, now_ms: f64) {
        self.inner
            .handle(ms(id), FetchResult::Failed(message), ms(now_ms));
    }

    /// No events: the answer is [`DiscoverJob::result`]. (The pump asks after every step.)
    #[wasm_bindgen(js_name = drainEvents)]
    pub fn drain_events(&mut self) -> js_sys::Array {
        js_sys::Array::new()
    }

    /// Stops handing out requests.
    pub fn cancel(&mut self) {
        self.inner.cancel();
    }

    /// The answer so far: `{sites: [{site, score, entry, examples, pages, foundBy, foundAt}],
    /// refused, seedSites, replicas: [{site, of}], fetches, queries, rounds, problems}`
    /// (`rounds`: how many); the
    /// ranked pages and the harvest curve are left out (the extension shows sites).
    #[wasm_bindgen(unchecked_return_type = "Discovery")]
    pub fn result(&self) -> Result<JsValue, js_sys::Error> {
        let d = self.inner.discovery();
        let v = serde_json::json!({
            "sites": d.sites,
            "refused": d.refused,
            "seedSites": d.seed_sites,
            "replicas": d.replicas,
            "fetches": d.fetches,
            "queries": d.queries,
            "rounds": d.rounds.len(),
            "problems": d.problems,
        });
        to_js(&v)
    }
}
