//! "Find the item pages" for JavaScript drivers: [`DetectJob`] wraps the sans-IO
//! [`Detector`] so the extension's background pumps it with the browser's `fetch`, as it pumps
//! a [`crate::jobs::Job`] (`poll`, `handleResponse`, `handleFailure`, `drainEvents`, `cancel`).
//! A detection is a few fetches: it is not saved, and a stopped worker starts it again.
use wasm_bindgen::prelude::*;

use super::{error, to_js};
use crate::fetch::{FetchResult, Machine, Politeness};
use crate::jobs::{ms, plain_poll, response_of};
use exemplar_core::detect::{DetectConfig, Detector};

/// A search for a site's sections of item pages.
#[wasm_bindgen]
pub struct DetectJob {
    inner: Detector,
}

#[wasm_bindgen]
impl DetectJob {
    /// A search from `start` (any page of the site): at most `maxFetches` pages, `delayMs`
    /// between two requests, robots.txt obeyed unless `obeyRobots` is false.
    #[wasm_bindgen(constructor)]
    pub fn new(
        start: &str,
        #[wasm_bindgen(js_name = maxFetches)] max_fetches: u32,
        #[wasm_bindgen(js_name = delayMs)] delay_ms: u32,
        #[wasm_bindgen(js_name = obeyRobots)] obey_robots: bool,
    ) -> Result<DetectJob, js_sys::Error> {
        let config = DetectConfig {
            max_fetches: (max_fetches as usize).clamp(1, 100),
            politeness: Politeness {
                delay_ms: u64::from(delay_ms),
                max_in_flight: 1,
                max_in_flight_per_host: 1,
                obey_robots,
                ..Politeness::default()
            },
            ..DetectConfig::default()
        };
        Ok(DetectJob {
            inner: Detector::new(start, config).map_err(error)?,
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

    /// No events: the answer is [`DetectJob::result`]. (The pump asks after every step.)
    #[wasm_bindgen(js_name = drainEvents)]
    pub fn drain_events(&mut self) -> js_sys::Array {
        js_sys::Array::new()
    }

    /// Stops handing out requests.
    pub fn cancel(&mut self) {
        self.inner.cancel();
    }

    /// The answer: `{site, entitySite, sections: [{index, examples, estimatedItems, shape}],
    /// fetches, visited: [{url, depth, kind, group}]}` (final once `poll` says done).
    #[wasm_bindgen(unchecked_return_type = "Detection")]
    pub fn result(&self) -> Result<JsValue, js_sys::Error> {
        to_js(self.inner.detection())
    }
}
