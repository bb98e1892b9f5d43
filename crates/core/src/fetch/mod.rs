//! The sans-IO fetching contract and the frontier shared by the mapper and the crawler.
//!
//! The core never fetches. A state machine hands out [`FetchRequest`]s (several may be in flight,
//! each with an id) and takes back a [`FetchResult`] per id; drivers — the extension's `fetch`,
//! the native CLI, the simulation tests — do the IO and follow redirects. Time is an argument
//! (`now_ms`, milliseconds on any monotonic-enough clock the driver picks), so tests are
//! deterministic.
//!
//! The [`Frontier`] owns what both machines need to be polite and to not lose work: the FIFO
//! queue (breadth-first order), the set of URLs ever queued, the requests in flight, per-host
//! robots.txt state, delay and concurrency. It is plain serde data: a snapshot taken mid-crawl
//! puts in-flight requests back at the head of the queue on restore. A host that says "come
//! back later" (429, 503; 429 or any 5xx for its robots.txt) is waited for and asked again, a
//! few times, and slowed down ([`Delivered::Retry`]): the machines see only the final answer.
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::mem;

use serde::{Deserialize, Serialize};

use exemplar_url::robots::{self, Robots};

/// The identifying user agent of Exemplar's crawlers (the command line sends it; the generated
/// Scrapy project too; browsers keep their own).
pub const USER_AGENT: &str = concat!(
    "Exemplar/",
    env!("CARGO_PKG_VERSION"),
    " (+https://exemplar.dev/bot; structure-driven crawler)"
);

/// What a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RequestKind {
    /// A host's robots.txt (fetched before any page of the host).
    Robots,
    /// A page.
    Page,
    /// A same-site script a page includes, read for the page URLs it names
    /// ([`crate::script_links`]), never run: its body is wanted whatever its media type.
    Script,
    /// A sitemap robots.txt names ([`crate::sitemap`]): its body is wanted whatever its media
    /// type (XML, text, gzip).
    Sitemap,
}

/// A request the driver should perform (GET unless `post` is set; following redirects, which
/// turn a POST into a GET as browsers do for 301/302/303).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FetchRequest {
    /// Identifies the request; the driver passes it back with the result.
    pub id: u64,
    /// Absolute URL.
    pub url: String,
    /// Robots.txt or a page.
    pub kind: RequestKind,
    /// A POST form submission: send this body instead of a GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post: Option<PostBody>,
}

/// The body of a POST request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostBody {
    /// The encoded body.
    pub body: String,
    /// Its `Content-Type`.
    pub content_type: String,
}

/// A response as the driver saw it after following redirects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FetchResponse {
    /// HTTP status of the final response.
    pub status: u16,
    /// URL of the final response (after redirects).
    pub final_url: String,
    /// Response headers (names in any case).
    pub headers: Vec<(String, String)>,
    /// Body bytes (drivers may stop reading past the configured maximum and set `truncated`).
    pub body: Vec<u8>,
    /// The driver stopped reading the body at the size limit.
    #[serde(default)]
    pub truncated: bool,
}

impl FetchResponse {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lower case, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let ct = self.header("content-type")?;
        let mt = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        (!mt.is_empty()).then_some(mt)
    }

    /// Whether the body is HTML: `text/html` or `application/xhtml+xml`, or no content type and
    /// a body that starts like HTML.
    pub fn is_html(&self) -> bool {
        match self.media_type() {
            Some(mt) => mt == "text/html" || mt == "application/xhtml+xml",
            None => {
                let head = &self.body[..self.body.len().min(512)];
                let head = String::from_utf8_lossy(head).to_ascii_lowercase();
                let head = head.trim_start_matches('\u{feff}').trim_start();
                head.starts_with("<!doctype html") || head.starts_with("<html")
            }
        }
    }
}

/// The outcome of a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FetchResult {
    /// A response arrived (any status).
    Response(FetchResponse),
    /// The request failed: DNS, connection, timeout, too many redirects, aborted.
    Failed(String),
}

/// Politeness and concurrency settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Politeness {
    /// Minimum milliseconds between two request starts on one host (raised by robots.txt
    /// `Crawl-delay`, capped by `max_crawl_delay_ms`).
    pub delay_ms: u64,
    /// Requests in flight at most, overall.
    pub max_in_flight: usize,
    /// Requests in flight at most per host.
    pub max_in_flight_per_host: usize,
    /// Fetch and obey robots.txt.
    pub obey_robots: bool,
    /// The product token matched against robots.txt `User-agent` lines.
    pub robots_token: String,
    /// A site's `Crawl-delay` above this is capped (a site asking for an hour between pages
    /// would otherwise stall the run; the cap is reported).
    pub max_crawl_delay_ms: u64,
}

impl Default for Politeness {
    fn default() -> Self {
        Politeness {
            delay_ms: 250,
            max_in_flight: 4,
            max_in_flight_per_host: 2,
            obey_robots: true,
            robots_token: "exemplar".into(),
            max_crawl_delay_ms: 30_000,
        }
    }
}

impl Politeness {
    /// No delay between requests and `in_flight` of them at once, on one host too: for a site
    /// served on this machine (evaluations, benchmarks, tests), never a remote one.
    pub fn unthrottled(in_flight: usize) -> Politeness {
        Politeness {
            delay_ms: 0,
            max_in_flight: in_flight,
            max_in_flight_per_host: in_flight,
            ..Politeness::default()
        }
    }

    /// Checks the values.
    ///
    /// # Errors
    /// When a limit is zero.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_in_flight == 0 || self.max_in_flight_per_host == 0 {
            return Err("max in flight must be at least 1".into());
        }
        Ok(())
    }
}

/// What a state machine tells its driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Poll {
    /// Perform this request and hand back the result.
    Fetch(FetchRequest),
    /// Nothing to start before this time; poll again then (or when a result arrives).
    WaitUntil(u64),
    /// Wait for an in-flight result.
    Busy,
    /// Finished.
    Done,
}

/// The driver's view of the mapper and the crawler.
pub trait Machine {
    /// What to do at `now_ms`.
    fn poll(&mut self, now_ms: u64) -> Poll;
    /// Takes the result of request `id`.
    fn handle(&mut self, id: u64, result: FetchResult, now_ms: u64);
    /// Stops handing out requests.
    fn cancel(&mut self);
}

/// A queued URL with the machine's payload (depth, level, parent…).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Queued<T> {
    /// Canonical URL.
    pub url: String,
    /// The machine's data for this URL.
    pub item: T,
}

mod frontier;
mod in_order;
mod post;
mod retry;
#[cfg(test)]
mod tests;

pub use frontier::*;
pub use in_order::*;
pub use post::*;
pub use retry::*;
