//! Learning and crawling runs for JavaScript drivers: the [`Job`] handle wraps the sans-IO
//! [`Mapper`] and [`Crawler`] so the extension's service worker pumps them with the browser's
//! `fetch`.
//!
//! The driver loop: `poll(now)` → `{type: "fetch", id, url, kind, post?}` (perform it, then
//! `handleResponse` / `handleFailure` with that id), `{type: "wait", untilMs}`, `{type: "busy"}`
//! or `{type: "done"}`; `drainEvents()` after each step. `snapshot()` is a JSON string of the
//! whole state and `Job.restore(snapshot)` brings it back (in-flight requests whose results had not arrived are asked again),
//! which is how a crawl survives the service worker being stopped.
//!
//! Times are milliseconds on the driver's clock (`Date.now()`), passed as JS numbers.
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{error, to_js};
use crate::crawler::{self, CrawlConfig, Crawler};
use crate::fetch::{FetchResponse, FetchResult, Poll};
use crate::mapper::{self, ExamplePage, MapConfig, Mapper, NodeState};
use crate::pattern::{self, Pattern};

/// A learning or crawling run.
#[wasm_bindgen]
pub struct Job {
    inner: Inner,
}

enum Inner {
    Learn(Box<Mapper>),
    Crawl(Box<Crawler>),
}

/// The serialised form of a job: `snapshot()` / `Job.restore()`. A plain struct, not an
/// internally tagged enum: those buffer their content, which loses serde_json's integer map keys
/// (the snapshots' signature tables).
#[derive(Serialize, Deserialize)]
struct Saved {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    learn: Option<mapper::Snapshot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    crawl: Option<crawler::Snapshot>,
}

/// What `poll` returns.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum PollJs {
    #[serde(rename_all = "camelCase")]
    Fetch {
        id: u64,
        url: String,
        kind: crate::fetch::RequestKind,
        /// A POST form submission's body (`{body, contentType}`); absent for a GET.
        #[serde(skip_serializing_if = "Option::is_none")]
        post: Option<crate::fetch::PostBody>,
    },
    #[serde(rename_all = "camelCase")]
    Wait {
        until_ms: u64,
    },
    Busy,
    Done,
}

/// A target of the map, for the result view.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MapTarget<'a> {
    url: &'a str,
    title: &'a str,
    similarity: Option<f32>,
    /// It looks like a listing page ([`crate::listing::targets`]).
    listing: bool,
}

/// What `learnPattern` returns.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Learned<'a> {
    pattern: &'a Pattern,
    pattern_json: String,
    rendered: String,
    threshold: f64,
    targets: Vec<MapTarget<'a>>,
    /// Similarity of every fetched page but the entry (for a histogram next to θ).
    similarities: Vec<f32>,
    /// The pages most similar to the example below θ, for the user to judge.
    near_misses: Vec<pattern::NearMiss>,
    /// A clear gap in the scores below θ and the θ that takes the pages above it
    /// ([`pattern::threshold_gap`]), for the user to judge.
    threshold_gap: Option<pattern::ThresholdGap>,
    /// θ lowered from mapping's because only the example reached it
    /// ([`pattern::lowered_threshold`]): learned at the θ its scores give.
    threshold_lowered: Option<pattern::LoweredThreshold>,
    /// Learned at the θ mapping ran with, which the user set, and only the example reached it:
    /// the θ the scores give, which a re-learn takes ([`pattern::lowered_threshold`]).
    threshold_cut: Option<pattern::LoweredThreshold>,
    /// The targets most worth checking ([`pattern::doubtful_targets`]), for the user to judge.
    doubtful_targets: Vec<pattern::Doubtful>,
    /// The targets that look like listing pages ([`crate::listing::targets`]), by
    /// URL: the panel offers to leave them out.
    listing_targets: Vec<&'a str>,
    /// The targets by heading template ([`crate::heading::kinds`]), for a verdict on a kind.
    heading_kinds: Vec<crate::heading::HeadingKind>,
    /// The pages below θ by heading template ([`crate::heading::kinds_below`]), for a verdict
    /// that takes a kind.
    heading_kinds_below: Vec<crate::heading::KindBelow>,
    /// The targets by declared language ([`crate::language::kinds`]), for a verdict on a
    /// language (empty where targets declare fewer than two and none is left out).
    language_kinds: Vec<crate::language::LanguageKind>,
    /// The targets by directory ([`crate::directory::kinds`]), for a verdict on a directory
    /// (empty where targets lie in fewer than two and none is left out).
    directory_kinds: Vec<crate::directory::DirectoryKind>,
    /// The URL shapes mapping fetched last for yielding nothing, with their pages it left
    /// unfetched ([`crate::mapper::shapes::left_unfetched`]).
    left_unfetched: Vec<LeftUnfetched>,
    /// The sitemaps the site's robots.txt names ([`crate::mapper::SiteMap::sitemaps`]): a crawl
    /// reads them; mapping did once every link was followed, unless it stopped first.
    sitemaps: Vec<String>,
    /// Sitemaps mapping read (0: none).
    sitemaps_read: usize,
    /// The pages no link reached that mapping took from the sitemaps and fetched
    /// ([`crate::mapper::SiteMap::sitemap_pages`]).
    sitemap_pages: usize,
}

/// A barren URL shape and its pages left unfetched.
#[derive(Serialize)]
struct LeftUnfetched {
    shape: String,
    pages: usize,
}

/// How many near misses `learnPattern` returns.
const NEAR_MISSES: usize = 20;

pub(crate) fn ms(now_ms: f64) -> u64 {
    if now_ms.is_finite() && now_ms > 0.0 {
        now_ms as u64
    } else {
        0
    }
}

/// A fetch's answer from JS (`handleResponse`'s arguments) for a machine: headers as `[[name,
/// value], …]` (undefined or null: none), a `Retry-After` date made seconds from now on the
/// browser's wall clock (the machines have none), as the CLI's HTTP client does.
pub(crate) fn response_of(
    status: u16,
    final_url: String,
    headers: JsValue,
    body: Vec<u8>,
    truncated: bool,
) -> Result<FetchResult, js_sys::Error> {
    let mut headers: Vec<(String, String)> = if headers.is_undefined() || headers.is_null() {
        Vec::new()
    } else {
        serde_wasm_bindgen::from_value(headers)
            .map_err(|e| error(format!("headers must be [[name, value], …]: {e}")))?
    };
    crate::fetch::retry_after_as_seconds(&mut headers, wall_clock_ms());
    Ok(FetchResult::Response(FetchResponse {
        status,
        final_url,
        headers,
        body,
        truncated,
    }))
}

/// A machine's next step for JS, as `Job.poll` gives it (requests without a form's body).
pub(crate) fn plain_poll(poll: Poll) -> Result<JsValue, js_sys::Error> {
    to_js(&match poll {
        Poll::Fetch(r) => {
            serde_json::json!({"type": "fetch", "id": r.id, "url": r.url, "kind": r.kind})
        }
        Poll::WaitUntil(t) => serde_json::json!({"type": "wait", "untilMs": t}),
        Poll::Busy => serde_json::json!({"type": "busy"}),
        Poll::Done => serde_json::json!({"type": "done"}),
    })
}

/// A config object over its defaults, unknown keys rejected (see [`super::merge_defaults`]).
fn config<T: Serialize + serde::de::DeserializeOwned + Default>(
    value: &JsValue,
    what: &str,
) -> Result<T, js_sys::Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    let value: Value = serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| error(format!("invalid {what}: {e}")))?;
    super::merge_defaults(Some(value), "")
        .map_err(|e| error(format!("invalid {what}: {}", String::from(e.message()))))
}

fn example(url: &str, body: &[u8], content_type: Option<String>) -> ExamplePage {
    ExamplePage {
        url: url.to_string(),
        body: body.to_vec(),
        content_type,
    }
}

#[wasm_bindgen]
impl Job {
    /// A learning run: maps the site of `entry` looking for pages like the example (its final
    /// URL, body bytes and `Content-Type`). `config` is a `MapConfig` (camelCase; absent keys take
    /// their defaults). Throws on a bad entry URL, an example that is not HTML, or a bad config.
    pub fn learn(
        entry: &str,
        #[wasm_bindgen(js_name = exampleUrl)] example_url: &str,
        #[wasm_bindgen(js_name = exampleBody)] example_body: &[u8],
        #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
        config_js: JsValue,
    ) -> Result<Job, js_sys::Error> {
        let config: MapConfig = config(&config_js, "mapping settings")?;
        let example = example(example_url, example_body, content_type);
        let mapper = Mapper::new(entry, example, config).map_err(error)?;
        Ok(Job {
            inner: Inner::Learn(Box::new(mapper)),
        })
    }

    /// A crawl with a pattern (its JSON text). `config` is a `CrawlConfig`. With an example
    /// (URL, body, content type), targets are verified with RTDM at the pattern's θ. Throws on a
    /// malformed pattern (with the reason) or a bad config.
    pub fn crawl(
        #[wasm_bindgen(js_name = patternJson)] pattern_json: &str,
        config_js: JsValue,
        #[wasm_bindgen(js_name = exampleUrl)] example_url: Option<String>,
        #[wasm_bindgen(js_name = exampleBody)] example_body: Option<Vec<u8>>,
        #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
    ) -> Result<Job, js_sys::Error> {
        let pattern = Pattern::from_json(pattern_json).map_err(error)?;
        let config: CrawlConfig = config(&config_js, "crawl settings")?;
        let example = match (example_url, example_body) {
            (Some(url), Some(body)) => Some(example(&url, &body, content_type)),
            _ => None,
        };
        let crawler = Crawler::new(pattern, config, example).map_err(error)?;
        Ok(Job {
            inner: Inner::Crawl(Box::new(crawler)),
        })
    }

    /// A job from `snapshot()`. Throws when the text is not a snapshot of this version.
    pub fn restore(snapshot: &str) -> Result<Job, js_sys::Error> {
        let saved: Saved = serde_json::from_str(snapshot)
            .map_err(|e| error(format!("not a job snapshot: {e}")))?;
        let inner = match (saved.learn, saved.crawl) {
            (Some(state), None) => Inner::Learn(Box::new(Mapper::restore(state).map_err(error)?)),
            (None, Some(state)) => Inner::Crawl(Box::new(Crawler::restore(state).map_err(error)?)),
            _ => return Err(error(format!("not a job snapshot (kind {:?})", saved.kind))),
        };
        Ok(Job { inner })
    }

    /// `"learn"` or `"crawl"`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        match self.inner {
            Inner::Learn(_) => "learn".into(),
            Inner::Crawl(_) => "crawl".into(),
        }
    }

    /// The whole state as a JSON string.
    pub fn snapshot(&self) -> Result<String, js_sys::Error> {
        let saved = match &self.inner {
            Inner::Learn(m) => Saved {
                kind: "learn".into(),
                learn: Some(m.snapshot()),
                crawl: None,
            },
            Inner::Crawl(c) => Saved {
                kind: "crawl".into(),
                learn: None,
                crawl: Some(c.snapshot()),
            },
        };
        serde_json::to_string(&saved).map_err(error)
    }

    /// What to do now: `{type: "fetch", id, url, kind: "page" | "robots" | "script"}`, `{type: "wait",
    /// untilMs}`, `{type: "busy"}` (wait for a result) or `{type: "done"}`.
    pub fn poll(&mut self, now_ms: f64) -> Result<JsValue, js_sys::Error> {
        let poll = match &mut self.inner {
            Inner::Learn(m) => m.poll(ms(now_ms)),
            Inner::Crawl(c) => c.poll(ms(now_ms)),
        };
        to_js(&match poll {
            Poll::Fetch(r) => PollJs::Fetch {
                id: r.id,
                url: r.url,
                kind: r.kind,
                post: r.post,
            },
            Poll::WaitUntil(t) => PollJs::Wait { until_ms: t },
            Poll::Busy => PollJs::Busy,
            Poll::Done => PollJs::Done,
        })
    }

    /// The response to request `id`, after redirects: status, final URL, headers as `[[name,
    /// value], …]`, body bytes, and whether the body was cut at the size limit.
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
        self.handle(id, response, now_ms);
        Ok(())
    }

    /// Request `id` failed (network error, timeout, aborted): `message` says why.
    #[wasm_bindgen(js_name = handleFailure)]
    pub fn handle_failure(&mut self, id: f64, message: String, now_ms: f64) {
        self.handle(id, FetchResult::Failed(message), now_ms);
    }

    fn handle(&mut self, id: f64, result: FetchResult, now_ms: f64) {
        let id = ms(id);
        match &mut self.inner {
            Inner::Learn(m) => m.handle(id, result, ms(now_ms)),
            Inner::Crawl(c) => c.handle(id, result, ms(now_ms)),
        }
    }

    /// Events since the last call. Mapping: `{type: "fetched", url, depth, status, similarity,
    /// target, state}`, `{type: "skipped", url, reason}`, `{type: "sitemapSkipped", url, reason,
    /// unreachable}` (a sitemap not read; `unreachable`: its host answered nothing, maybe for want
    /// of access), `{type: "retry", url, status, waitMs, delayMs, attempt}` (the site said to
    /// wait: asked again later), `{type: "finished", reason}`. Crawling: `{type: "target", url, finalUrl,
    /// status, headers, body: Uint8Array, title, heading, lang?, similarity, verified,
    /// foundOnLevel, new, byHeading, fetchedAtMs, fields?: [[name, value]]}` (`fields` when the
    /// pattern has any: the page's values), `{type: "page", url, level, status,
    /// followed}`, `{type: "query", level, query, issued, budget, resultPages, documents,
    /// targets}` (a form level's query answered), `skipped`, `sitemapSkipped`, `retry`,
    /// `finished`.
    #[wasm_bindgen(js_name = drainEvents)]
    pub fn drain_events(&mut self) -> Result<js_sys::Array, js_sys::Error> {
        let out = js_sys::Array::new();
        match &mut self.inner {
            Inner::Learn(m) => {
                for e in m.drain_events() {
                    out.push(&to_js(&e)?);
                }
            }
            Inner::Crawl(c) => {
                let events: Vec<crawler::Event> = c.drain_events().into_iter().collect();
                let fields = &c.pattern().fields;
                for e in events {
                    match e {
                        crawler::Event::Target(mut t) => {
                            // The page's record: its data fields read now, while it is parsed
                            // for nothing else, so the panel shows them and exports carry them.
                            let values = if fields.is_empty() {
                                Vec::new()
                            } else {
                                let content_type = t
                                    .headers
                                    .iter()
                                    .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
                                    .map(|(_, v)| v.as_str());
                                super::fields::document(&t.body, content_type)
                                    .map(|d| {
                                        exemplar_core::fields::extract(fields, &d, &t.final_url)
                                    })
                                    .unwrap_or_default()
                            };
                            // The body goes over as bytes, not as a JSON array of numbers.
                            let body = std::mem::take(&mut t.body);
                            let value = to_js(&crawler::Event::Target(t))?;
                            let bytes = js_sys::Uint8Array::from(body.as_slice());
                            js_sys::Reflect::set(&value, &"body".into(), &bytes)
                                .map_err(|_| error("could not set the body"))?;
                            if !fields.is_empty() {
                                js_sys::Reflect::set(&value, &"fields".into(), &to_js(&values)?)
                                    .map_err(|_| error("could not set the fields"))?;
                            }
                            out.push(&value);
                        }
                        other => {
                            out.push(&to_js(&other)?);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Counts for the progress display (`fetched`, `targets`, `queued`, `inFlight`, `skipped`,
    /// `errors`, `bytes`, `elapsedMs`; crawls add `newTargets`, `rejected`, `queries`).
    pub fn progress(&self) -> Result<JsValue, js_sys::Error> {
        match &self.inner {
            Inner::Learn(m) => to_js(&m.progress()),
            Inner::Crawl(c) => to_js(&c.progress()),
        }
    }

    /// The links the trap guard did not follow so far, one entry per bound that refused any:
    /// `[{reason, count, example, limit}]` (`limit` is the bound in words, `example` the first
    /// link refused), so a user sees what a crawler trap or a budget left out.
    #[wasm_bindgen(js_name = trapRefusals)]
    pub fn trap_refusals(&self) -> Result<JsValue, js_sys::Error> {
        match &self.inner {
            Inner::Learn(m) => to_js(&m.trap_refusals()),
            Inner::Crawl(c) => to_js(&c.trap_refusals()),
        }
    }

    /// Why the job stopped (`"exhausted"`, `"maxPages"`, `"maxDuration"`, `"cancelled"`), or
    /// `undefined` while it runs.
    pub fn stopped(&self) -> Result<JsValue, js_sys::Error> {
        match &self.inner {
            Inner::Learn(m) => to_js(&m.stopped()),
            Inner::Crawl(c) => to_js(&c.stopped()),
        }
    }

    /// Stops handing out requests; results still in flight are taken.
    pub fn cancel(&mut self) {
        match &mut self.inner {
            Inner::Learn(m) => m.cancel(),
            Inner::Crawl(c) => c.cancel(),
        }
    }

    /// Learning jobs: the navigation pattern learned from the map so far, at θ = `threshold`
    /// (default: the θ the map was made with, or when only the example reached it the θ its
    /// scores give, `pattern::lowered_threshold`; another θ relabels the fetched pages without
    /// refetching anything, see `SiteMap::with_threshold`), with the user's verdicts
    /// `corrections` (`{like: [url], unlike: [url], unlikeHeadings: [template], likeHeadings:
    /// [template], unlikeLanguages: [tag], likeLanguages: [tag], unlikeDirectories: [url],
    /// likeDirectories: [url]}`, optional: pages counted as targets or not whatever their
    /// similarity, kinds of target by heading left out, kinds of page below θ taken, and the
    /// targets declaring a language or lying in a directory left out; recorded in the pattern). Returns `{pattern, patternJson,
    /// rendered, threshold, targets: [{url, title, similarity}], similarities, nearMisses:
    /// [{url, title, heading, similarity, urlLikeTargets}], thresholdGap: {threshold, lowestAbove,
    /// highestBelow, pages, urlLikeTargets} or null, thresholdLowered: {from, to, pages, scored}
    /// or null, thresholdCut: the same, when `threshold` is the θ mapping ran with and only the
    /// example reached it (not taken: a θ set by the user is kept), or null, doubtfulTargets: [{url, title,
    /// heading, similarity, urlUnlikeTargets, byHeading}], headingKinds: [{template, targets,
    /// samples, example, unlike, section?}], headingKindsBelow: [{template, pages, samples, best,
    /// example, like}], languageKinds: [{language, targets, samples, example, unlike}],
    /// directoryKinds: [{directory, targets, samples, example, unlike}], leftUnfetched:
    /// [{shape, pages}]}` (the pattern's `byHeading` lists the pages taken below θ for their
    /// heading, `unlikeByHeading` the targets left out by a kind's verdict, `unlikeByLanguage`
    /// those left out by a language's, `unlikeByDirectory` by a directory's). Throws when no page is a target, for a verdict on a page mapping did
    /// not fetch, or on a crawl job.
    #[wasm_bindgen(js_name = learnPattern)]
    pub fn learn_pattern(
        &self,
        threshold: Option<f64>,
        now_ms: f64,
        corrections: JsValue,
    ) -> Result<JsValue, js_sys::Error> {
        let Inner::Learn(m) = &self.inner else {
            return Err(error("only a learning job learns a pattern"));
        };
        if let Some(t) = threshold
            && !(0.0..=1.0).contains(&t)
        {
            return Err(error(format!("threshold {t} is outside [0, 1]")));
        }
        // No verdicts given: a first learning, which starts from learning's own proposals.
        let given: Option<pattern::Corrections> =
            if corrections.is_undefined() || corrections.is_null() {
                None
            } else {
                Some(
                    serde_wasm_bindgen::from_value(corrections)
                        .map_err(|e| error(format!("corrections: {e}")))?,
                )
            };
        let config = m.config();
        let (map, threshold_lowered) = match threshold {
            Some(t) => (pattern::relabelled(m.site_map(), t), None),
            None => pattern::at_learning_threshold(m.site_map().clone()),
        };
        let corrections = given.unwrap_or_else(|| pattern::Corrections::proposed(&map));
        // A θ the user set is never replaced; at mapping's own θ the cut is named instead.
        let threshold_cut = threshold
            .filter(|&t| t == m.site_map().threshold)
            .and_then(|_| pattern::lowered_threshold(m.site_map()));
        let (pattern, map) =
            pattern::learn_from_map_corrected(map, config, &corrections, ms(now_ms)).map_err(
                |e| match m
                    .progress()
                    .nofollow_hint("turning off Obey robots in the limits")
                {
                    Some(hint) => error(format!("{e}. {hint}")),
                    None => error(e),
                },
            )?;
        let like: std::collections::HashSet<&str> = pattern
            .corrections
            .like
            .iter()
            .map(String::as_str)
            .collect();
        let listings: std::collections::BTreeSet<u32> =
            crate::listing::targets(&map, &like).into_iter().collect();
        // The entry page when the pattern collects it: the map keeps it a listing.
        let targets = map
            .nodes
            .iter()
            .enumerate()
            .filter(|&(i, n)| n.state == NodeState::Target || (i == 0 && pattern.entry_target))
            .map(|(i, n)| MapTarget {
                url: &n.url,
                title: &n.title,
                similarity: n.similarity,
                listing: listings.contains(&(i as u32)),
            })
            .collect();
        let listing_targets = listings
            .iter()
            .map(|&i| map.nodes[i as usize].url.as_str())
            .collect();
        let similarities = map
            .nodes
            .iter()
            .skip(1)
            .filter_map(|n| n.similarity)
            .collect();
        to_js(&Learned {
            pattern_json: pattern.to_json(),
            rendered: pattern.render(),
            threshold: map.threshold,
            pattern: &pattern,
            targets,
            similarities,
            near_misses: pattern::near_misses(&map, &pattern.corrections, NEAR_MISSES),
            threshold_gap: pattern::threshold_gap(&map, &pattern.corrections),
            threshold_lowered,
            threshold_cut,
            doubtful_targets: pattern::doubtful_targets(
                &map,
                &pattern.corrections,
                &pattern.by_heading,
                pattern.entry_target,
                pattern::DOUBTFUL_SHOWN,
            ),
            listing_targets,
            heading_kinds: crate::heading::kinds(
                &map,
                &pattern.unlike_by_heading,
                &pattern.corrections.unlike_headings,
            ),
            heading_kinds_below: crate::heading::kinds_below(
                &map,
                &pattern.corrections.like_headings,
                |n| pattern.corrections.leave_out(n),
            ),
            language_kinds: crate::language::kinds(
                &map,
                &pattern.unlike_by_language,
                &pattern.corrections.unlike_languages,
            ),
            directory_kinds: crate::directory::kinds(
                &map,
                &pattern.unlike_by_directory,
                &pattern.corrections.unlike_directories,
            ),
            left_unfetched: crate::mapper::shapes::left_unfetched(&map, config)
                .into_iter()
                .map(|(shape, pages)| LeftUnfetched { shape, pages })
                .collect(),
            sitemaps: map.sitemaps.clone(),
            sitemaps_read: m.progress().sitemaps,
            sitemap_pages: map.sitemap_pages(),
        })
    }

    /// Crawl jobs: coverage against the targets the pattern was learned from: `{known, reached,
    /// missed: [url], new: [url]}`. Throws on a learning job.
    pub fn coverage(&self) -> Result<JsValue, js_sys::Error> {
        let Inner::Crawl(c) = &self.inner else {
            return Err(error("only a crawl job has coverage"));
        };
        to_js(&c.coverage())
    }
}

/// Parses and checks a pattern document (JSON text): returns the pattern object, or throws an
/// `Error` saying what is wrong (not JSON, wrong version, a missing field, a bad regex…).
#[wasm_bindgen(js_name = validatePattern)]
pub fn validate_pattern(json: &str) -> Result<JsValue, js_sys::Error> {
    let pattern = Pattern::from_json(json).map_err(error)?;
    to_js(&pattern)
}

/// The pattern (JSON text) as readable text: levels, regexes, counts, sample URLs.
#[wasm_bindgen(js_name = renderPattern)]
pub fn render_pattern(json: &str) -> Result<String, js_sys::Error> {
    Ok(Pattern::from_json(json).map_err(error)?.render())
}

/// The default similarity threshold θ of the core (chosen from the development sites' figures,
/// `docs/reports/similarity.md`): the starting value of the extension's θ control.
#[wasm_bindgen(js_name = defaultThreshold)]
pub fn default_threshold() -> f64 {
    crate::similarity::DEFAULT_THRESHOLD
}

/// The core's defaults for the settings the extension shows (its "limits" panel and the
/// popup): one source, so the extension and the command line start from the same values.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DefaultSettings {
    max_pages: usize,
    max_depth: u32,
    delay_ms: u64,
    concurrency: usize,
    threshold: f64,
    max_bytes: usize,
    obey_robots: bool,
}

/// `{maxPages, maxDepth, delayMs, concurrency, threshold, maxBytes, obeyRobots}`: the core's
/// defaults of a learning run ([`MapConfig::default`]); `concurrency` is requests at once on one
/// host.
#[wasm_bindgen(js_name = defaultSettings)]
pub fn default_settings() -> Result<JsValue, js_sys::Error> {
    let c = MapConfig::default();
    to_js(&DefaultSettings {
        max_pages: c.max_pages,
        max_depth: c.max_depth,
        delay_ms: c.politeness.delay_ms,
        concurrency: c.politeness.max_in_flight_per_host,
        threshold: c.similarity.threshold,
        max_bytes: c.max_bytes,
        obey_robots: c.politeness.obey_robots,
    })
}

/// The browser's wall clock, ms since the Unix epoch.
fn wall_clock_ms() -> u64 {
    ms(js_sys::Date::now())
}

/// How long to wait before asking a page again whose answer says "come back later" (429,
/// 503), the `attempt`-th time (from 1), as the jobs' own requests wait
/// ([`crate::fetch::page_retry_wait_ms`], capped at the default largest site delay; a
/// `retryAfter` date read as the seconds until then); undefined when it is not asked again. For
/// the requests a driver makes itself (the example page).
#[wasm_bindgen(js_name = pageRetryWaitMs)]
pub fn page_retry_wait_ms(status: u16, retry_after: Option<String>, attempt: u8) -> Option<f64> {
    let mut headers: Vec<(String, String)> = retry_after
        .map(|v| vec![("retry-after".to_string(), v)])
        .unwrap_or_default();
    crate::fetch::retry_after_as_seconds(&mut headers, wall_clock_ms());
    let response = crate::fetch::FetchResponse {
        status,
        headers,
        ..crate::fetch::FetchResponse::default()
    };
    let max = crate::fetch::Politeness::default().max_crawl_delay_ms;
    crate::fetch::page_retry_wait_ms(&response, attempt, max).map(|ms| ms as f64)
}
