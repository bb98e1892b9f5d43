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

/// Marks a POST submission inside a machine's URL key: `action#exemplar-post=body`. The
/// machines key pages by URL; a POST is identified by its action and body, and a fragment is
/// never sent, so the key stays a valid URL of the action.
pub const POST_MARK: &str = "#exemplar-post=";

/// `application/x-www-form-urlencoded`, the default form encoding (of the POST requests a
/// form submission makes).
pub const URLENCODED: &str = "application/x-www-form-urlencoded";

/// The key of a POST submission of `body` to `action` (see [`POST_MARK`]).
pub fn post_key(action: &str, body: &str) -> String {
    let action = action.split('#').next().unwrap_or(action);
    format!("{action}{POST_MARK}{body}")
}

/// The canonical form of a URL or POST key: the URL (or the POST's action) canonicalised, the
/// body kept.
pub fn canonical_key(key: &str) -> Option<String> {
    let (url, body) = split_post_key(key);
    let url = crate::canon::canonicalize(url)?;
    Some(match body {
        Some(b) => post_key(&url, b),
        None => url,
    })
}

/// The key a response to `key` stands for, given its canonical final URL: a POST answered at its
/// own action (no redirect) is the POST's key, not the action's page.
pub fn same_post(key: &str, final_c: String) -> String {
    match split_post_key(key) {
        (action, Some(_)) if action == final_c => key.to_string(),
        _ => final_c,
    }
}

/// The URL to request and the POST body of a key ([`post_key`]); GET keys have no body.
pub fn split_post_key(key: &str) -> (&str, Option<&str>) {
    match key.split_once(POST_MARK) {
        Some((url, body)) => (url, Some(body)),
        None => (key, None),
    }
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum RobotsState {
    Unknown,
    Pending(u64),
    Known(Robots),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Host {
    robots: RobotsState,
    /// Earliest time the next request may start.
    next_at_ms: u64,
    /// Requests on the network (asked, no response yet).
    in_flight: usize,
    /// Requests whose response arrived and waits to be taken ([`InOrder`]): asked, but no
    /// longer holding a connection.
    #[serde(default)]
    held: usize,
    /// Delay in force (config or Crawl-delay).
    delay_ms: u64,
    /// Why its robots.txt could not be read (no answer, or a 5xx), when it could not: then
    /// nothing of the host may be asked ([`Frontier::robots_unreadable`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unreadable: Option<Unreadable>,
    /// The host asked to wait (429, 503, `Retry-After`): no request starts before this long
    /// after the next [`Frontier::next`] ([`Frontier::deliver`] has no clock).
    #[serde(default, skip_serializing_if = "is_zero")]
    backoff_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Times one URL is asked again when its host answers "too many requests" or "unavailable"
/// (429, 503; for robots.txt, which decides the whole host, 429 and any 5xx).
pub const MAX_RETRIES: u8 = 3;

/// Why and how a request is asked again ([`Delivered::Retry`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    /// The URL asked again (a robots.txt, or a queued URL).
    pub url: String,
    /// The status that asked for it.
    pub status: u16,
    /// How long its host is left alone first (its `Retry-After`, else 2, 4, 8 s…, at most
    /// [`Politeness::max_crawl_delay_ms`]).
    pub wait_ms: u64,
    /// The host's delay between requests from now on: at least 1, 2 or 4 s for the first, second
    /// or third attempt (as it was when longer; at most [`Politeness::max_crawl_delay_ms`]).
    pub delay_ms: u64,
    /// The how-manieth time it is asked again (1 to [`MAX_RETRIES`]).
    pub attempt: u8,
}

/// Why a host's robots.txt could not be read, which RFC 9309 reads as "disallow everything".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Unreadable {
    /// The host answered nothing: a network failure, a timeout or, in a browser, a host the
    /// extension has no access to.
    Unreachable {
        /// The failure as the driver told it.
        error: String,
    },
    /// The host answered with a server error, or kept answering 429.
    ServerError {
        /// The HTTP status (5xx, 429).
        status: u16,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Flight<T> {
    Robots { host: String },
    Page(Queued<T>),
}

/// What the frontier says to do next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next<T> {
    /// Perform this request.
    Fetch(FetchRequest),
    /// robots.txt forbids this URL: the machine records it as skipped.
    Disallowed(Queued<T>),
    /// Nothing can start before this time (per-host delay).
    WaitUntil(u64),
    /// Nothing more may be asked before a result is taken: as many requests as the window
    /// allows are waiting to be taken ([`LOOKAHEAD`]), or the rest of the queue waits on
    /// them (e.g. on a robots.txt), or the queue is empty. Take the oldest request's result.
    Busy,
    /// The next request may be asked, but every connection it may use is taken: wait for a
    /// response, and do not take a held result first (which request is asked next must not
    /// depend on when responses arrive).
    Full,
    /// The queue is empty and nothing is in flight.
    Empty,
}

/// A page result handed back to the machine that queued it.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivered<T> {
    /// The page's result.
    Page(Queued<T>, FetchResult),
    /// A robots.txt result, consumed by the frontier itself: the sitemaps it names
    /// (`Sitemap:` lines), for a machine that reads them.
    Robots {
        /// The origin whose robots.txt it is (`http://h:8080`): only the site's own name the
        /// site's sitemaps (a sitemap host's robots.txt speaks for that host).
        origin: String,
        /// The sitemap URLs, resolved against the robots.txt URL.
        sitemaps: Vec<String>,
    },
    /// The host answered "too many requests" or "unavailable": the request is queued again
    /// and its host slowed down; nothing for the machine to read.
    Retry(Retry),
    /// The id is not in flight (a duplicate or stale result): ignored.
    Unknown,
}

/// Results held until they can be taken in the order their requests were issued.
///
/// A state machine that takes results as they arrive asks for its next URLs in an order that
/// depends on network timing, so one site could give different maps and crawls from run to
/// run (and, with a page budget, different page sets). With this, a machine asks for every
/// request it can (until its frontier says [`Next::Busy`]: [`LOOKAHEAD`] × the connections
/// allowed are asked and not taken, or nothing else may be asked) and only then takes one
/// result, the oldest request's; while a request may be asked but no connection is free
/// ([`Next::Full`]) it waits and takes nothing. What is asked and what is taken then depend on
/// the site alone (for one host; with several, timing decides which host goes first when one
/// has no free connection or is in its delay). A result that arrives early waits, its
/// connection freed for the next request: a slow page holds the others up only once the
/// window is full.
///
/// Held results are part of the machines' snapshots (bodies as base64), so a restore does not
/// ask them again: a driver restored more often than its requests can be taken (a service
/// worker stopped every few responses) still makes progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Vec<Held>", from = "Vec<Held>")]
pub struct InOrder {
    arrived: BTreeMap<u64, FetchResult>,
}

/// A held result as saved: the body as base64 text.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Held {
    id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failed: Option<String>,
    #[serde(default)]
    status: u16,
    #[serde(default)]
    final_url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default, with = "base64_bytes")]
    body: Vec<u8>,
    #[serde(default)]
    truncated: bool,
}

impl From<InOrder> for Vec<Held> {
    fn from(o: InOrder) -> Vec<Held> {
        o.arrived
            .into_iter()
            .map(|(id, r)| match r {
                FetchResult::Failed(e) => Held {
                    id,
                    failed: Some(e),
                    status: 0,
                    final_url: String::new(),
                    headers: Vec::new(),
                    body: Vec::new(),
                    truncated: false,
                },
                FetchResult::Response(r) => Held {
                    id,
                    failed: None,
                    status: r.status,
                    final_url: r.final_url,
                    headers: r.headers,
                    body: r.body,
                    truncated: r.truncated,
                },
            })
            .collect()
    }
}

impl From<Vec<Held>> for InOrder {
    fn from(held: Vec<Held>) -> InOrder {
        let arrived = held
            .into_iter()
            .map(|h| {
                let result = match h.failed {
                    Some(e) => FetchResult::Failed(e),
                    None => FetchResult::Response(FetchResponse {
                        status: h.status,
                        final_url: h.final_url,
                        headers: h.headers,
                        body: h.body,
                        truncated: h.truncated,
                    }),
                };
                (h.id, result)
            })
            .collect();
        InOrder { arrived }
    }
}

mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

impl InOrder {
    /// Holds the result of request `id` if it is in flight; stale and unknown ids are dropped.
    pub fn hold<T: Clone>(&mut self, frontier: &mut Frontier<T>, id: u64, result: FetchResult) {
        if frontier.is_in_flight(id) {
            frontier.land(id);
            self.arrived.insert(id, result);
        }
    }

    /// The oldest request's result, if it has arrived: to take when the frontier is busy.
    pub fn oldest<T: Clone>(&mut self, frontier: &Frontier<T>) -> Option<(u64, FetchResult)> {
        let id = frontier.oldest_in_flight()?;
        self.arrived.remove(&id).map(|r| (id, r))
    }

    /// Whether request `id`'s result is held.
    pub fn holds(&self, id: u64) -> bool {
        self.arrived.contains_key(&id)
    }

    /// Keeps only the results of requests still in flight (after a restore put the others
    /// back in the queue; a snapshot read from disk is input).
    pub fn retain_in_flight<T: Clone>(&mut self, frontier: &Frontier<T>) {
        self.arrived.retain(|&id, _| frontier.is_in_flight(id));
    }
}

/// A state machine's running time at `now_ms`, for its time budget. `started_ms` is set at the
/// first poll of a fresh or restored machine so that the count goes on from `elapsed_ms`, the
/// running time it had when saved: the time a run lay saved does not count.
pub fn running_time(started_ms: &mut Option<u64>, elapsed_ms: u64, now_ms: u64) -> u64 {
    let started = *started_ms.get_or_insert(now_ms.saturating_sub(elapsed_ms));
    now_ms.saturating_sub(started)
}

/// Breadth-first queue with politeness. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frontier<T> {
    politeness: Politeness,
    queue: VecDeque<Queued<T>>,
    /// How many entries at the head of `queue` were queued first ([`Frontier::push_first`]):
    /// breadth-first among themselves, before all others.
    #[serde(default)]
    first: usize,
    /// URLs put off until `queue` runs dry ([`Frontier::push_later`], [`Frontier::defer`]):
    /// asked only after [`Frontier::resume_later`].
    #[serde(default = "VecDeque::new", skip_serializing_if = "VecDeque::is_empty")]
    later: VecDeque<Queued<T>>,
    seen: HashSet<String>,
    /// Requests asked and not yet taken: on the network, or held ([`Frontier::land`]).
    in_flight: BTreeMap<u64, Flight<T>>,
    /// The requests of `in_flight` whose response arrived.
    #[serde(default)]
    landed: BTreeSet<u64>,
    hosts: BTreeMap<String, Host>,
    next_id: u64,
    /// Crawl-delays that were capped: (host, asked ms).
    capped_delays: Vec<(String, u64)>,
    /// URLs asked again ([`Delivered::Retry`]): how many times so far.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    retries: BTreeMap<String, u8>,
    /// The time of the last [`Frontier::next`]: what is left of the hosts' waits is read
    /// against it when a restored frontier starts on another clock.
    /// (None in snapshots made before it was kept: their waits are not carried over.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    now_ms: Option<u64>,
}

/// Requests asked ahead of the oldest result not yet taken, as a multiple of the connections
/// allowed (globally and per host). A response that arrives before older ones is held and
/// frees its connection, so a slow page holds up the others only once this many requests wait
/// on it; held results (up to this many bodies) are kept in memory and in snapshots.
pub const LOOKAHEAD: usize = 2;

/// How far down the queue to look for a URL whose host may start now (several hosts only
/// happen with subdomains in scope; a bounded scan keeps `next` O(1) in the queue length).
const SCAN: usize = 64;

impl<T: Clone> Frontier<T> {
    /// An empty frontier.
    pub fn new(politeness: Politeness) -> Frontier<T> {
        Frontier {
            politeness,
            queue: VecDeque::new(),
            first: 0,
            later: VecDeque::new(),
            seen: HashSet::new(),
            in_flight: BTreeMap::new(),
            landed: BTreeSet::new(),
            hosts: BTreeMap::new(),
            next_id: 1,
            capped_delays: Vec::new(),
            retries: BTreeMap::new(),
            now_ms: None,
        }
    }

    /// The settings.
    pub fn politeness(&self) -> &Politeness {
        &self.politeness
    }

    /// The machine's data of every request queued or in flight.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.queue.iter().chain(&self.later).map(|q| &q.item).chain(
            self.in_flight.values().filter_map(|f| match f {
                Flight::Page(q) => Some(&q.item),
                Flight::Robots { .. } => None,
            }),
        )
    }

    /// Queues `url` (canonical) unless it was ever queued. Returns whether it was added.
    pub fn push(&mut self, url: String, item: T) -> bool {
        if !self.seen.insert(url.clone()) {
            return false;
        }
        self.queue.push_back(Queued { url, item });
        true
    }

    /// Queues `url` (canonical) even if it was queued before: a file asked again as another kind
    /// of request (a sitemap that a page linked, fetched then as a page).
    pub fn push_again(&mut self, url: String, item: T) {
        self.seen.insert(url.clone());
        self.queue.push_back(Queued { url, item });
    }

    /// Queues `url` (canonical) unless it was ever queued, after the URLs queued first and
    /// before all others. Returns whether it was added.
    pub fn push_first(&mut self, url: String, item: T) -> bool {
        if !self.seen.insert(url.clone()) {
            return false;
        }
        let at = self.first.min(self.queue.len());
        self.queue.insert(at, Queued { url, item });
        self.first = at + 1;
        true
    }

    /// Moves the entries to which `rank` gives a rank behind those queued first, those put off
    /// only where `put_off` also holds: by rank, and within a rank those in their turn (in
    /// queue order) before those put off (in their order). One pass over each queue whatever
    /// the number of ranks (a pass per rank cost mapping one pass over the whole queue per
    /// name of each target found). Returns how many moved.
    pub fn promote_ranked(
        &mut self,
        rank: impl Fn(&Queued<T>) -> Option<u32>,
        put_off: impl Fn(&Queued<T>) -> bool,
    ) -> usize {
        let first = self.first.min(self.queue.len());
        let in_turn = self.queue.range(first..).any(|q| rank(q).is_some());
        let later = self.later.iter().any(|q| rank(q).is_some() && put_off(q));
        if !in_turn && !later {
            return 0;
        }
        let mut moved: Vec<(u32, bool, Queued<T>)> = Vec::new();
        if in_turn {
            let mut stay = VecDeque::with_capacity(self.queue.len());
            for (i, q) in mem::take(&mut self.queue).into_iter().enumerate() {
                // Those queued first stay where they are.
                match (i >= first).then(|| rank(&q)).flatten() {
                    Some(r) => moved.push((r, false, q)),
                    None => stay.push_back(q),
                }
            }
            self.queue = stay;
        }
        if later {
            let mut stay = VecDeque::with_capacity(self.later.len());
            for q in mem::take(&mut self.later) {
                match rank(&q) {
                    Some(r) if put_off(&q) => moved.push((r, true, q)),
                    _ => stay.push_back(q),
                }
            }
            self.later = stay;
        }
        // Stable: each queue's order holds within a rank.
        moved.sort_by_key(|&(r, put_off, _)| (r, put_off));
        let n = moved.len();
        let tail = self.queue.split_off(first);
        self.queue.extend(moved.into_iter().map(|(_, _, q)| q));
        self.queue.extend(tail);
        self.first = first + n;
        n
    }

    /// Queues `url` (canonical) unless it was ever queued, behind everything: it is asked only
    /// after [`Frontier::resume_later`]. Returns whether it was added.
    pub fn push_later(&mut self, url: String, item: T) -> bool {
        if !self.seen.insert(url.clone()) {
            return false;
        }
        self.later.push_back(Queued { url, item });
        true
    }

    /// Puts off the URLs waiting in their turn for which `put_off` holds (those queued first
    /// stay), keeping their order; one pass over the queue. Returns how many moved.
    pub fn defer(&mut self, put_off: impl Fn(&str) -> bool) -> usize {
        let first = self.first.min(self.queue.len());
        let rest: Vec<Queued<T>> = self.queue.drain(first..).collect();
        let (moved, stay): (Vec<Queued<T>>, Vec<Queued<T>>) =
            rest.into_iter().partition(|q| put_off(&q.url));
        let n = moved.len();
        self.queue.extend(stay);
        self.later.extend(moved);
        n
    }

    /// Queues again in their turn, behind everything waiting, the URLs put off for which
    /// `back` holds, keeping their order; one pass. Returns how many moved.
    pub fn undefer(&mut self, back: impl Fn(&str) -> bool) -> usize {
        if self.later.is_empty() {
            return 0;
        }
        let (moved, later): (VecDeque<Queued<T>>, VecDeque<Queued<T>>) = mem::take(&mut self.later)
            .into_iter()
            .partition(|q| back(&q.url));
        self.later = later;
        let n = moved.len();
        self.queue.extend(moved);
        n
    }

    /// Queues the URLs put off, in their order, once nothing else waits; false when there
    /// were none (or others still wait).
    pub fn resume_later(&mut self) -> bool {
        if !self.queue.is_empty() || self.later.is_empty() {
            return false;
        }
        mem::swap(&mut self.queue, &mut self.later);
        self.first = 0;
        true
    }

    /// Queued items waiting in their turn, behind those queued first ([`Frontier::push_first`]).
    pub fn iter_in_turn(&self) -> impl Iterator<Item = &Queued<T>> {
        self.queue.iter().skip(self.first)
    }

    /// Queued items put off ([`Frontier::push_later`], [`Frontier::defer`]), in their order.
    pub fn iter_put_off(&self) -> impl Iterator<Item = &Queued<T>> {
        self.later.iter()
    }

    /// Takes the entry at `i` out of the queue, keeping the count of those queued first.
    fn take(&mut self, i: usize) -> Option<Queued<T>> {
        let q = self.queue.remove(i)?;
        if i < self.first {
            self.first -= 1;
        }
        Some(q)
    }

    /// Marks a URL as known without queueing it (e.g. the final URL of a redirect).
    pub fn mark_seen(&mut self, url: &str) -> bool {
        self.seen.insert(url.to_string())
    }

    /// Whether the URL was ever queued or marked.
    pub fn is_seen(&self, url: &str) -> bool {
        self.seen.contains(url)
    }

    /// URLs waiting (put off included).
    pub fn queued(&self) -> usize {
        self.queue.len() + self.later.len()
    }

    /// Requests in flight: asked and not taken, on the network or held.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Drops everything queued (stop conditions); returns how many were dropped.
    pub fn clear_queue(&mut self) -> usize {
        let n = self.queued();
        self.queue.clear();
        self.later.clear();
        self.first = 0;
        n
    }

    /// Queued items, head first, those put off last (for reports).
    pub fn iter_queue(&self) -> impl Iterator<Item = &Queued<T>> {
        self.queue.iter().chain(&self.later)
    }

    /// Hosts whose `Crawl-delay` was capped, with the delay they asked for.
    pub fn capped_delays(&self) -> &[(String, u64)] {
        &self.capped_delays
    }

    /// The next thing to do at `now_ms`. [`Next::Empty`] when nothing is in flight and nothing
    /// waits but what was put off ([`Frontier::resume_later`] queues that).
    pub fn next(&mut self, now_ms: u64) -> Next<T> {
        self.now_ms = Some(now_ms);
        if self.queue.is_empty() {
            return if self.in_flight.is_empty() {
                Next::Empty
            } else {
                Next::Busy
            };
        }
        if self.in_flight.len() >= LOOKAHEAD * self.politeness.max_in_flight {
            return Next::Busy;
        }
        // Whether the next request may be asked is decided on what was asked and taken only;
        // the network then decides when: a full network is waited for, never skipped.
        // (`landed` is snapshot input: never trusted to be a subset.)
        if self.in_flight.len().saturating_sub(self.landed.len()) >= self.politeness.max_in_flight {
            return Next::Full;
        }
        let per_host = self.politeness.max_in_flight_per_host;
        let mut earliest: Option<u64> = None;
        // A host whose connections are all taken is passed over for the next host's URLs (with
        // several hosts, which one goes first depends on timing, as with per-host delays).
        let mut host_full = false;
        let scan = self.queue.len().min(SCAN);
        // Hosts passed over for a reason all their URLs share (connections, robots.txt awaited,
        // delay): their other URLs are passed over without reading their host again.
        let mut passed: Vec<String> = Vec::new();
        for i in 0..scan {
            if passed.iter().any(|o| has_origin(&self.queue[i].url, o)) {
                continue;
            }
            let Some(host) = host_key(&self.queue[i].url) else {
                // Not a URL we can fetch: hand it back as disallowed rather than loop on it.
                if let Some(q) = self.take(i) {
                    return Next::Disallowed(q);
                }
                continue;
            };
            let obey = self.politeness.obey_robots;
            let delay = self.politeness.delay_ms;
            if !self.hosts.contains_key(host.as_ref()) {
                let robots = if obey {
                    RobotsState::Unknown
                } else {
                    RobotsState::Known(Robots::allow_all())
                };
                let fresh = Host {
                    robots,
                    next_at_ms: 0,
                    in_flight: 0,
                    held: 0,
                    delay_ms: delay,
                    unreadable: None,
                    backoff_ms: 0,
                };
                self.hosts.insert(host.to_string(), fresh);
            }
            let Some(entry) = self.hosts.get_mut(host.as_ref()) else {
                continue;
            };
            if entry.in_flight + entry.held >= LOOKAHEAD * per_host {
                passed.push(host.into_owned());
                continue;
            }
            if entry.backoff_ms > 0 {
                entry.next_at_ms = entry
                    .next_at_ms
                    .max(now_ms.saturating_add(entry.backoff_ms));
                entry.backoff_ms = 0;
            }
            match &entry.robots {
                RobotsState::Pending(_) => {
                    passed.push(host.into_owned());
                    continue;
                }
                RobotsState::Unknown => {
                    if entry.in_flight >= per_host {
                        host_full = true;
                        passed.push(host.into_owned());
                        continue;
                    }
                    // Asked again after the host said to wait.
                    if entry.next_at_ms > now_ms {
                        earliest =
                            Some(earliest.map_or(entry.next_at_ms, |e| e.min(entry.next_at_ms)));
                        passed.push(host.into_owned());
                        continue;
                    }
                    let id = self.next_id;
                    self.next_id += 1;
                    entry.robots = RobotsState::Pending(id);
                    entry.in_flight += 1;
                    entry.next_at_ms = now_ms.saturating_add(entry.delay_ms);
                    let url = robots::robots_url(&self.queue[i].url)
                        .unwrap_or_else(|| format!("{host}/robots.txt"));
                    let host = host.to_string();
                    self.in_flight.insert(id, Flight::Robots { host });
                    return Next::Fetch(FetchRequest {
                        id,
                        url,
                        kind: RequestKind::Robots,
                        post: None,
                    });
                }
                RobotsState::Known(robots) => {
                    if !robots.allowed(&self.queue[i].url) {
                        if let Some(q) = self.take(i) {
                            return Next::Disallowed(q);
                        }
                        continue;
                    }
                }
            }
            if entry.in_flight >= per_host {
                host_full = true;
                passed.push(host.into_owned());
                continue;
            }
            if entry.next_at_ms > now_ms {
                earliest = Some(earliest.map_or(entry.next_at_ms, |e| e.min(entry.next_at_ms)));
                passed.push(host.into_owned());
                continue;
            }
            entry.in_flight += 1;
            entry.next_at_ms = now_ms.saturating_add(entry.delay_ms);
            let Some(q) = self.take(i) else {
                break;
            };
            let id = self.next_id;
            self.next_id += 1;
            let (url, body) = split_post_key(&q.url);
            let (url, post) = (
                url.to_string(),
                body.map(|b| PostBody {
                    body: b.to_string(),
                    content_type: URLENCODED.to_string(),
                }),
            );
            self.in_flight.insert(id, Flight::Page(q));
            return Next::Fetch(FetchRequest {
                id,
                url,
                kind: RequestKind::Page,
                post,
            });
        }
        match earliest {
            Some(t) => Next::WaitUntil(t),
            None if host_full => Next::Full,
            None => Next::Busy,
        }
    }

    /// Takes a result. Robots results are consumed here; page results are handed back.
    pub fn deliver(&mut self, id: u64, result: FetchResult) -> Delivered<T> {
        let Some(flight) = self.in_flight.remove(&id) else {
            return Delivered::Unknown;
        };
        let landed = self.landed.remove(&id);
        let release = |h: &mut Host| {
            if landed {
                h.held = h.held.saturating_sub(1);
            } else {
                h.in_flight = h.in_flight.saturating_sub(1);
            }
        };
        // "Come back later": asked again after a wait, the host slowed down. robots.txt decides
        // the whole host (a 5xx disallows everything), so any 5xx of it is asked again too.
        if let FetchResult::Response(r) = &result
            && asks_to_wait(matches!(flight, Flight::Robots { .. }), r.status)
        {
            let url = match &flight {
                Flight::Robots { host } => format!("{host}/robots.txt"),
                Flight::Page(q) => q.url.clone(),
            };
            let attempt = self.retries.get(&url).copied().unwrap_or(0) + 1;
            let max = self.politeness.max_crawl_delay_ms;
            let wait = (attempt <= MAX_RETRIES).then(|| retry_wait_ms(r, attempt, max));
            if let Some(wait_ms) = wait {
                let host = match &flight {
                    Flight::Robots { host } => Some(host.clone()),
                    Flight::Page(q) => host_of(&q.url),
                };
                let mut delay_ms = 0;
                if let Some(h) = host.and_then(|host| self.hosts.get_mut(&host)) {
                    release(h);
                    h.backoff_ms = h.backoff_ms.max(wait_ms);
                    // By the URL's attempt, not by the "wait"s counted: the requests of a burst
                    // answered together slow the host once (1 s), a site still saying so on the
                    // second and third attempts to 2 and 4 s.
                    h.delay_ms = h.delay_ms.max((500u64 << attempt).min(max));
                    delay_ms = h.delay_ms;
                }
                self.retries.insert(url.clone(), attempt);
                match flight {
                    Flight::Robots { host } => {
                        if let Some(h) = self.hosts.get_mut(&host) {
                            h.robots = RobotsState::Unknown;
                        }
                    }
                    Flight::Page(q) => {
                        // At the head of the queue: it was next before.
                        self.queue.push_front(q);
                        self.first = self.first.min(self.queue.len() - 1) + 1;
                    }
                }
                return Delivered::Retry(Retry {
                    url,
                    status: r.status,
                    wait_ms,
                    delay_ms,
                    attempt,
                });
            }
        }
        match flight {
            Flight::Robots { host } => {
                let token = self.politeness.robots_token.clone();
                // RFC 9309 §2.3.1: 2xx → parse; 4xx → no rules; 5xx/unreachable → full
                // disallow, and why is kept. A robots.txt redirected off host is treated as
                // missing. A 429 ("too many requests") is the site asking to wait, not a missing
                // file: a full disallow, as Google reads it.
                let (robots, unreadable) = match &result {
                    FetchResult::Response(r) if (200..300).contains(&r.status) => (
                        Robots::parse(&String::from_utf8_lossy(&r.body), &token),
                        None,
                    ),
                    FetchResult::Response(r) if no_robots_txt(r.status) => {
                        (Robots::allow_all(), None)
                    }
                    FetchResult::Response(r) => (
                        Robots::disallow_all(),
                        Some(Unreadable::ServerError { status: r.status }),
                    ),
                    FetchResult::Failed(error) => (
                        Robots::disallow_all(),
                        Some(Unreadable::Unreachable {
                            error: error.clone(),
                        }),
                    ),
                };
                let delay = robots
                    .crawl_delay()
                    .map(|s| (s.max(0.0) * 1000.0).min(u64::MAX as f64) as u64);
                let max = self.politeness.max_crawl_delay_ms;
                // `Sitemap:` lines should be absolute; a relative one is read against the
                // robots.txt URL, as a browser reads a link.
                let origin = url::Url::parse(&format!("{host}/robots.txt")).ok();
                let sitemaps = robots
                    .sitemaps()
                    .iter()
                    .filter_map(|s| Some(origin.as_ref()?.join(s).ok()?.to_string()))
                    .collect();
                if let Some(h) = self.hosts.get_mut(&host) {
                    release(h);
                    if let Some(d) = delay {
                        if d > max {
                            self.capped_delays.push((host.clone(), d));
                        }
                        h.delay_ms = h.delay_ms.max(d.min(max));
                    }
                    h.robots = RobotsState::Known(robots);
                    h.unreadable = unreadable;
                }
                Delivered::Robots {
                    origin: host,
                    sitemaps,
                }
            }
            Flight::Page(q) => {
                if let Some(h) = host_key(&q.url).and_then(|host| self.hosts.get_mut(host.as_ref()))
                {
                    release(h);
                }
                Delivered::Page(q, result)
            }
        }
    }

    /// How many page requests are in flight (robots.txt requests not counted).
    pub fn pages_in_flight(&self) -> usize {
        self.in_flight
            .values()
            .filter(|f| matches!(f, Flight::Page(_)))
            .count()
    }

    /// The request issued first among those in flight (ids grow in issue order).
    pub fn oldest_in_flight(&self) -> Option<u64> {
        self.in_flight.keys().next().copied()
    }

    /// Whether request `id` is in flight (its result not delivered yet).
    pub fn is_in_flight(&self, id: u64) -> bool {
        self.in_flight.contains_key(&id)
    }

    /// Request `id`'s response arrived and waits to be taken: it no longer holds a connection
    /// (the request stays in flight until [`Frontier::deliver`]). Idempotent.
    pub fn land(&mut self, id: u64) {
        let Some(flight) = self.in_flight.get(&id) else {
            return;
        };
        if !self.landed.insert(id) {
            return;
        }
        let host = match flight {
            Flight::Page(q) => host_of(&q.url),
            Flight::Robots { host } => Some(host.clone()),
        };
        if let Some(h) = host.and_then(|host| self.hosts.get_mut(&host)) {
            h.in_flight = h.in_flight.saturating_sub(1);
            h.held += 1;
        }
    }

    /// Whether the host's robots.txt allows `url` (true when not known yet or not obeyed).
    pub fn robots_allows(&self, url: &str) -> bool {
        match host_key(url).and_then(|h| self.hosts.get(h.as_ref())) {
            Some(Host {
                robots: RobotsState::Known(r),
                ..
            }) => r.allowed(url),
            _ => true,
        }
    }

    /// Why the robots.txt of `url`'s host could not be read, when it could not (everything of
    /// the host is then disallowed).
    pub fn robots_unreadable(&self, url: &str) -> Option<&Unreadable> {
        let host = host_key(url)?;
        self.hosts.get(host.as_ref())?.unreadable.as_ref()
    }

    /// Puts every in-flight page back at the head of the queue and forgets pending robots
    /// requests (they are asked again). Used on restore: the driver that had them is gone.
    /// What was left of each host's wait (its delay, or a "come back later") when last asked
    /// is waited again from the next [`Frontier::next`], on whatever clock the new driver has.
    pub fn requeue_in_flight(&mut self) {
        self.requeue_in_flight_except(|_| false);
    }

    /// As [`Frontier::requeue_in_flight`], but the requests `keep` names stay in flight (their
    /// results are held: [`InOrder`]).
    pub fn requeue_in_flight_except(&mut self, keep: impl Fn(u64) -> bool) {
        let flights = std::mem::take(&mut self.in_flight);
        self.landed.clear();
        for h in self.hosts.values_mut() {
            h.in_flight = 0;
            h.held = 0;
            // The times were on the old driver's clock; what was left of the wait is kept
            // (bounded by the longest wait the politeness allows).
            if let Some(now_ms) = self.now_ms {
                let left = h.next_at_ms.saturating_sub(now_ms);
                let left = left.min(self.politeness.max_crawl_delay_ms.max(h.delay_ms));
                h.backoff_ms = h.backoff_ms.max(left);
            }
            h.next_at_ms = 0;
        }
        let mut requeue = Vec::new();
        for (id, f) in flights {
            if !keep(id) {
                requeue.push(f);
                continue;
            }
            let host = match &f {
                Flight::Page(q) => host_of(&q.url),
                Flight::Robots { host } => Some(host.clone()),
            };
            // Kept requests are those whose results are held: landed, off the network.
            if let Some(h) = host.and_then(|host| self.hosts.get_mut(&host)) {
                h.held += 1;
            }
            self.landed.insert(id);
            self.in_flight.insert(id, f);
        }
        for f in requeue.into_iter().rev() {
            match f {
                Flight::Page(q) => {
                    self.queue.push_front(q);
                    // In flight, they were next: they stay ahead of what was queued first.
                    self.first = self.first.min(self.queue.len() - 1) + 1;
                }
                Flight::Robots { host } => {
                    if let Some(h) = self.hosts.get_mut(&host) {
                        h.robots = RobotsState::Unknown;
                    }
                }
            }
        }
    }
}

/// Whether a robots.txt answered `status` is missing (no rules: everything allowed): a 4xx but
/// 429, which asks to wait.
fn no_robots_txt(status: u16) -> bool {
    (400..500).contains(&status) && status != 429
}

/// How long to wait before asking a page again whose answer says "come back later" (429, 503)
/// for the `attempt`-th time (from 1): its `Retry-After`, else 2, 4, 8 s, between 1 s and
/// `max_ms`. None when it is not asked again: another status, or [`MAX_RETRIES`] reached.
pub fn page_retry_wait_ms(r: &FetchResponse, attempt: u8, max_ms: u64) -> Option<u64> {
    (asks_to_wait(false, r.status) && (1..=MAX_RETRIES).contains(&attempt))
        .then(|| retry_wait_ms(r, attempt, max_ms))
}

/// Whether an answer with `status` says "come back later": 429 or 503, and for a robots.txt
/// (which decides the whole host: a 5xx disallows everything) any 5xx.
fn asks_to_wait(robots_txt: bool, status: u16) -> bool {
    status == 429 || status == 503 || (robots_txt && (500..600).contains(&status))
}

fn retry_wait_ms(r: &FetchResponse, attempt: u8, max_ms: u64) -> u64 {
    retry_after_ms(r)
        .unwrap_or(1000 << attempt.min(16))
        .clamp(1000, max_ms.max(1000))
}

/// `Retry-After` as the machines read it: a number of seconds. The header may also give an
/// HTTP date, which needs a wall clock the machines do not have, so a driver turns one into
/// the seconds from `now_unix_ms` until then (0 when past) before handing the response over.
/// Other values are left as they are (the default wait applies).
pub fn retry_after_as_seconds(headers: &mut [(String, String)], now_unix_ms: u64) {
    for (name, value) in headers.iter_mut() {
        if name.eq_ignore_ascii_case("retry-after")
            && value.trim().parse::<f64>().is_err()
            && let Some(at) = http_date_unix_s(value)
        {
            *value = at.saturating_sub(now_unix_ms / 1000).to_string();
        }
    }
}

/// An HTTP date in its preferred form, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
/// §5.6.7), as seconds since the Unix epoch.
fn http_date_unix_s(text: &str) -> Option<u64> {
    let rest = text.trim().split_once(", ")?.1;
    let mut parts = rest.split(' ');
    let day: u64 = parts.next()?.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == name)? as u64 + 1;
    let year: u64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|n| n.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT"
        || !(1..=31).contains(&day)
        || year < 1970
        || h > 23
        || m > 59
        || s > 60
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm), March-based years.
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y % 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// A response's `Retry-After` in milliseconds, when it gives a number of seconds (a driver turns
/// an HTTP date into one: [`retry_after_as_seconds`]).
fn retry_after_ms(r: &FetchResponse) -> Option<u64> {
    let secs: f64 = r.header("retry-after")?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| (secs * 1000.0).min(u64::MAX as f64) as u64)
}

/// `scheme://host[:port]` of a URL: the unit of politeness.
pub fn host_of(url: &str) -> Option<String> {
    host_key(url).map(Cow::into_owned)
}

/// Whether `url` is on `origin` (a [`host_of`] value): it starts with it, followed by the
/// path, the query, the fragment or nothing.
fn has_origin(url: &str, origin: &str) -> bool {
    url.strip_prefix(origin)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']))
}

/// [`host_of`], borrowed from `url` when `url` already starts with its origin as the `url`
/// crate writes it (what canonical URLs do): the frontier asks for the host of up to `SCAN`
/// queued URLs at every poll, and parsing each one was a sixth of mapping's CPU time in a
/// profile of `exemplar learn`.
fn host_key(url: &str) -> Option<Cow<'_, str>> {
    match crate::canon::written_origin(url) {
        Some(origin) => Some(Cow::Borrowed(origin)),
        None => parsed_origin(url).map(Cow::Owned),
    }
}

/// [`host_of`] by parsing `url` (any URL).
fn parsed_origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    Some(match u.port() {
        Some(p) => format!("{}://{}:{}", u.scheme(), host, p),
        None => format!("{}://{}", u.scheme(), host),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_read_without_parsing_only_where_parsing_keeps_it() {
        for (url, fast) in [
            (
                "http://127.0.0.1:8931/a.html",
                Some("http://127.0.0.1:8931"),
            ),
            (
                "https://www.example.org?q=1",
                Some("https://www.example.org"),
            ),
            (
                "http://docs.example-1.com#top",
                Some("http://docs.example-1.com"),
            ),
            ("http://example.com", Some("http://example.com")),
            // What parsing changes or reads otherwise is left to the parser.
            ("http://Example.com/", None),
            ("http://example.com:80/", None),
            ("https://example.com:443/", None),
            ("http://example.com:080/", None),
            ("http://user:pw@example.com/", None),
            ("http://0x7f.0.0.1/", None),
            ("http://127.1/", None),
            ("http://010.0.0.1/", None),
            ("http://2130706433/", None),
            ("http://example.123/", None),
            ("http://xn--nxasmq6b.com/", None),
            ("http://bücher.de/", None),
            ("http://a..b/", None),
            ("http://ex\tample.com/", None),
            // A backslash ends the host as a slash does (special schemes).
            ("http://ex\\ample.com/", Some("http://ex")),
            (" http://example.com/", None),
            ("ftp://example.com/", None),
            ("http://[::1]:8080/", None),
        ] {
            assert_eq!(crate::canon::written_origin(url), fast, "{url:?}");
            assert_eq!(host_of(url), parsed_origin(url), "{url:?}");
        }
        let o = "http://h.org";
        assert!(has_origin("http://h.org", o) && has_origin("http://h.org/a", o));
        assert!(has_origin("http://h.org?q", o) && has_origin("http://h.org#f", o));
        for other in [
            "http://h.org:81/",
            "http://h.org.evil/",
            "http://h.orgx/",
            "https://h.org/",
        ] {
            assert!(!has_origin(other, o), "{other}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_origin_read_without_parsing_is_the_parsed_one(
            scheme in "https?|HTTP|ftp",
            user in proptest::option::of("[a-z]{1,3}@"),
            host in "[a-zA-Z0-9.\\-\t]{0,12}|[0-9]{1,3}(\\.[0-9]{1,4}){0,4}|(0x)?[0-9a-f]{1,8}",
            port in proptest::option::of(":[0-9]{0,6}"),
            rest in "[/?#]?[a-z/.]{0,6}",
        ) {
            let url = format!(
                "{scheme}://{}{host}{}{rest}",
                user.unwrap_or_default(),
                port.unwrap_or_default()
            );
            proptest::prop_assert_eq!(host_of(&url), parsed_origin(&url), "{:?}", url);
            if let Some(fast) = crate::canon::written_origin(&url) {
                proptest::prop_assert_eq!(Some(fast.to_string()), parsed_origin(&url));
            }
        }
    }

    fn ok(status: u16, body: &str) -> FetchResult {
        FetchResult::Response(FetchResponse {
            status,
            final_url: String::new(),
            headers: vec![],
            body: body.as_bytes().to_vec(),
            truncated: false,
        })
    }

    fn fetch<T: Clone>(f: &mut Frontier<T>, now: u64) -> FetchRequest {
        match f.next(now) {
            Next::Fetch(r) => r,
            _ => panic!("expected a fetch"),
        }
    }

    /// The sitemaps a host's robots.txt names are handed to the machine, relative ones read
    /// against the robots.txt URL.
    #[test]
    fn robots_txt_hands_out_its_sitemaps() {
        let mut f = Frontier::new(Politeness::default());
        assert!(f.push("http://h:8080/a".into(), 1));
        let r = fetch(&mut f, 0);
        assert_eq!(r.url, "http://h:8080/robots.txt");
        let robots = "User-agent: *\nSitemap: http://h:8080/s.xml.gz\nsitemap: /maps/index.xml # ours\nSitemap: https://cdn.test/s.txt\n";
        assert_eq!(
            f.deliver(r.id, ok(200, robots)),
            Delivered::Robots {
                origin: "http://h:8080".into(),
                sitemaps: vec![
                    "http://h:8080/s.xml.gz".into(),
                    "http://h:8080/maps/index.xml".into(),
                    "https://cdn.test/s.txt".into(),
                ]
            }
        );
    }

    /// A host that answers 429 or 503 is left alone for its `Retry-After` (else 2, 4, 8 s) and
    /// slowed down, the URL asked again first, at most [`MAX_RETRIES`] times; then the answer
    /// goes to the machine. The waits and counts survive a snapshot.
    #[test]
    fn a_host_that_says_wait_is_waited_for_and_asked_again() {
        let mut f = Frontier::new(Politeness::unthrottled(1));
        f.politeness.obey_robots = false;
        assert!(f.push("http://h/a".into(), 1));
        assert!(f.push("http://h/b".into(), 2));
        let wait = |status: u16, retry_after: Option<&str>| {
            FetchResult::Response(FetchResponse {
                status,
                headers: retry_after
                    .map(|v| vec![("Retry-After".to_string(), v.to_string())])
                    .unwrap_or_default(),
                ..FetchResponse::default()
            })
        };
        let r = fetch(&mut f, 0);
        assert_eq!(r.url, "http://h/a");
        let Delivered::Retry(retry) = f.deliver(r.id, wait(429, Some(" 5 "))) else {
            panic!("asked again");
        };
        assert_eq!(
            retry,
            Retry {
                url: "http://h/a".into(),
                status: 429,
                wait_ms: 5000,
                delay_ms: 1000,
                attempt: 1
            }
        );
        let mut f: Frontier<i32> =
            serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
        assert_eq!(
            f.next(10),
            Next::WaitUntil(5010),
            "the wait survives a snapshot"
        );
        // Restored by a driver on another clock (a worker started again): the rest of the
        // wait, 5 s at 10 ms, is waited from its first step.
        let mut moved: Frontier<i32> =
            serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
        moved.requeue_in_flight();
        assert_eq!(moved.next(1_000_000), Next::WaitUntil(1_005_000));
        assert!(matches!(moved.next(1_005_000), Next::Fetch(r) if r.url == "http://h/a"));
        let mut now = 5010;
        for (attempt, wait_ms) in [(2, 4000), (3, 8000)] {
            let r = fetch(&mut f, now);
            assert_eq!(r.url, "http://h/a", "asked again before b");
            let Delivered::Retry(retry) = f.deliver(r.id, wait(503, None)) else {
                panic!("asked again");
            };
            assert_eq!((retry.attempt, retry.wait_ms), (attempt, wait_ms));
            assert_eq!(f.next(now), Next::WaitUntil(now + wait_ms));
            now += wait_ms;
        }
        // The fourth answer is the page's: the machine records the 503.
        let r = fetch(&mut f, now);
        assert!(
            matches!(f.deliver(r.id, wait(503, None)), Delivered::Page(q, _) if q.url == "http://h/a")
        );
        // The host stays slowed down: b waits for the raised delay (4 s after 1, 2, 4 s).
        assert_eq!(f.next(now + 1), Next::WaitUntil(now + 4000));
        let r = fetch(&mut f, now + 4000);
        assert_eq!(r.url, "http://h/b");
        // A 500 of a page is its own answer (not a "come back later").
        assert!(matches!(
            f.deliver(r.id, wait(500, None)),
            Delivered::Page(..)
        ));
    }

    /// A `Retry-After` date becomes the seconds until then (a driver's job: the machines have
    /// no wall clock); numbers and what is not an HTTP date stay as they are.
    #[test]
    fn a_retry_after_date_is_read_as_the_seconds_until_then() {
        assert_eq!(
            http_date_unix_s("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(http_date_unix_s("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date_unix_s("Sun, 29 Nov 2026 13:00:05 GMT"),
            Some(1_795_957_205)
        );
        assert_eq!(http_date_unix_s("Sunday, 06-Nov-94 08:49:37 GMT"), None);
        assert_eq!(http_date_unix_s("Sun, 06 Nov 1994 08:49:37 CET"), None);
        assert_eq!(http_date_unix_s("Sun, 32 Nov 1994 08:49:37 GMT"), None);
        let now = 1_795_957_200_500; // 13:00:00.5
        let mut headers = vec![
            (
                "Retry-After".to_string(),
                "Sun, 29 Nov 2026 13:00:05 GMT".to_string(),
            ),
            ("retry-after".to_string(), "120".to_string()),
            (
                "RETRY-AFTER".to_string(),
                "Thu, 01 Jan 1970 00:00:00 GMT".to_string(),
            ),
            ("retry-after".to_string(), "soon".to_string()),
            (
                "date".to_string(),
                "Sun, 29 Nov 2026 13:00:05 GMT".to_string(),
            ),
        ];
        retry_after_as_seconds(&mut headers, now);
        let values: Vec<&str> = headers.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            ["5", "120", "0", "soon", "Sun, 29 Nov 2026 13:00:05 GMT"]
        );
    }

    /// robots.txt decides the whole host, so a 429 or 5xx of it is asked again after the wait
    /// (not taken at once as "disallow everything"); a later 200 gives the host its rules.
    #[test]
    fn a_robots_txt_answering_later_is_asked_again() {
        let mut f = Frontier::new(Politeness::unthrottled(2));
        assert!(f.push("http://h/a".into(), 1));
        let r = fetch(&mut f, 0);
        assert_eq!(r.url, "http://h/robots.txt");
        assert!(matches!(
            f.deliver(r.id, ok(500, "")),
            Delivered::Retry(Retry {
                attempt: 1,
                wait_ms: 2000,
                ..
            })
        ));
        assert_eq!(f.next(0), Next::WaitUntil(2000));
        let r = fetch(&mut f, 2000);
        assert_eq!(r.url, "http://h/robots.txt");
        assert!(matches!(
            f.deliver(r.id, ok(200, "User-agent: *\nDisallow: /b\n")),
            Delivered::Robots { .. }
        ));
        assert_eq!(f.robots_unreadable("http://h/a"), None);
        assert!(f.robots_allows("http://h/a") && !f.robots_allows("http://h/b"));
        assert_eq!(fetch(&mut f, 3000).url, "http://h/a");
    }

    /// A robots.txt that could not be read disallows its host (RFC 9309), and the frontier
    /// says why: no answer, or a server error (once asked again [`MAX_RETRIES`] times); a 4xx
    /// is no robots.txt (all allowed). The reason survives a snapshot.
    #[test]
    fn an_unreadable_robots_txt_says_why() {
        let mut f = Frontier::new(Politeness::unthrottled(4));
        f.politeness.obey_robots = true;
        for host in ["http://a", "http://b", "http://c", "http://d"] {
            assert!(f.push(format!("{host}/x"), 1));
        }
        let asked: Vec<FetchRequest> = (0..4).map(|_| fetch(&mut f, 0)).collect();
        for (r, (answer, host)) in asked.into_iter().zip([
            (FetchResult::Failed("Failed to fetch".into()), "http://a"),
            (ok(503, ""), "http://b"),
            (ok(404, ""), "http://c"),
            (ok(429, ""), "http://d"),
        ]) {
            assert_eq!(r.url, format!("{host}/robots.txt"));
            f.deliver(r.id, answer);
        }
        // b's 503 and d's 429 come back each time they are asked again: after the last, they
        // are unreadable (a 429 is no missing robots.txt, which would allow everything).
        let mut now = 0;
        let mut again = Vec::new();
        while again.len() < 2 * usize::from(MAX_RETRIES) {
            match f.next(now) {
                Next::Fetch(r) if r.kind == RequestKind::Robots => {
                    let status = if r.url.starts_with("http://b/") {
                        503
                    } else {
                        429
                    };
                    f.deliver(r.id, ok(status, ""));
                    again.push(r.url);
                }
                Next::Fetch(r) => {
                    f.deliver(r.id, ok(200, ""));
                }
                Next::Disallowed(_) => {}
                Next::WaitUntil(t) => now = t,
                other => panic!("robots.txt asked again: {other:?}"),
            }
        }
        again.sort();
        assert_eq!(
            again.iter().filter(|u| u.starts_with("http://b/")).count(),
            3
        );
        let f: Frontier<i32> =
            serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
        assert_eq!(
            f.robots_unreadable("http://a/x"),
            Some(&Unreadable::Unreachable {
                error: "Failed to fetch".into()
            })
        );
        assert_eq!(
            f.robots_unreadable("http://b/y"),
            Some(&Unreadable::ServerError { status: 503 })
        );
        assert_eq!(
            f.robots_unreadable("http://d/y"),
            Some(&Unreadable::ServerError { status: 429 })
        );
        assert_eq!(f.robots_unreadable("http://c/x"), None);
        assert!(!f.robots_allows("http://a/x") && !f.robots_allows("http://b/x"));
        assert!(!f.robots_allows("http://d/x"));
        assert!(f.robots_allows("http://c/x"));
    }

    #[test]
    fn robots_first_then_pages_in_order_with_delay() {
        let mut f = Frontier::new(Politeness {
            delay_ms: 100,
            max_in_flight: 4,
            max_in_flight_per_host: 4,
            ..Politeness::default()
        });
        assert!(f.push("http://h/a".into(), 1));
        assert!(f.push("http://h/b".into(), 2));
        assert!(
            !f.push("http://h/a".into(), 3),
            "seen URLs are not queued twice"
        );
        let r = fetch(&mut f, 0);
        assert_eq!(r.kind, RequestKind::Robots);
        assert_eq!(r.url, "http://h/robots.txt");
        assert_eq!(f.next(0), Next::Busy, "pages wait for robots.txt");
        assert_eq!(
            f.deliver(r.id, ok(404, "")),
            Delivered::Robots {
                origin: "http://h".into(),
                sitemaps: vec![]
            }
        );
        assert_eq!(f.next(50), Next::WaitUntil(100));
        let a = fetch(&mut f, 100);
        assert_eq!(a.url, "http://h/a");
        assert_eq!(f.next(150), Next::WaitUntil(200));
        let b = fetch(&mut f, 200);
        assert_eq!(b.url, "http://h/b");
        assert!(matches!(f.deliver(b.id, ok(200, "")), Delivered::Page(q, _) if q.item == 2));
        assert_eq!(f.next(300), Next::Busy);
        assert!(matches!(f.deliver(a.id, ok(200, "")), Delivered::Page(..)));
        assert_eq!(f.next(300), Next::Empty);
        assert_eq!(f.deliver(a.id, ok(200, "")), Delivered::Unknown);
    }

    /// A frontier restored by another driver (a service worker started again, its clock
    /// elsewhere) waits what was left of each host's delay rather than asking at once; one
    /// saved before the clock was kept waits nothing it cannot read.
    #[test]
    fn a_restored_frontier_waits_what_was_left_of_the_delay() {
        let mut f = Frontier::new(Politeness {
            delay_ms: 1000,
            obey_robots: false,
            ..Politeness::default()
        });
        f.push("http://h/a".into(), ());
        f.push("http://h/b".into(), ());
        let a = fetch(&mut f, 50_000);
        assert_eq!(a.url, "http://h/a");
        assert!(matches!(f.deliver(a.id, ok(200, "")), Delivered::Page(..)));
        assert_eq!(f.next(50_400), Next::WaitUntil(51_000));
        let saved = serde_json::to_value(&f).expect("json");
        let mut moved: Frontier<()> = serde_json::from_value(saved.clone()).expect("back");
        moved.requeue_in_flight();
        assert_eq!(moved.next(7), Next::WaitUntil(607), "600 ms were left");
        assert!(matches!(moved.next(607), Next::Fetch(r) if r.url == "http://h/b"));
        // In flight when saved: asked again, after the delay its start began.
        let b = fetch(&mut f, 51_000);
        let mut moved: Frontier<()> =
            serde_json::from_value(serde_json::to_value(&f).expect("json")).expect("back");
        moved.requeue_in_flight();
        assert_eq!(moved.next(0), Next::WaitUntil(1000));
        assert!(matches!(moved.next(1000), Next::Fetch(r) if r.url == b.url));
        // A snapshot without the clock (made by an older version) starts at once.
        let mut old = saved;
        old.as_object_mut().expect("object").remove("now_ms");
        let mut moved: Frontier<()> = serde_json::from_value(old).expect("back");
        moved.requeue_in_flight();
        assert!(matches!(moved.next(7), Next::Fetch(r) if r.url == "http://h/b"));
    }

    #[test]
    fn disallowed_urls_are_handed_back_and_crawl_delay_raises_delay() {
        let mut f = Frontier::new(Politeness {
            delay_ms: 0,
            ..Politeness::default()
        });
        f.push("http://h/private/x".into(), ());
        f.push("http://h/ok".into(), ());
        let r = fetch(&mut f, 0);
        f.deliver(
            r.id,
            ok(200, "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"),
        );
        assert!(matches!(f.next(0), Next::Disallowed(q) if q.url == "http://h/private/x"));
        // The robots request itself started the host's clock with the old delay (0).
        let p = fetch(&mut f, 0);
        assert_eq!(p.url, "http://h/ok");
        f.push("http://h/next".into(), ());
        assert_eq!(f.next(1), Next::WaitUntil(2000));
    }

    #[test]
    fn server_error_on_robots_disallows_everything() {
        let mut f = Frontier::new(Politeness::default());
        f.push("http://h/a".into(), ());
        let r = fetch(&mut f, 0);
        f.deliver(r.id, FetchResult::Failed("connection refused".into()));
        assert!(matches!(f.next(1000), Next::Disallowed(_)));
        assert_eq!(f.next(1000), Next::Empty);
    }

    #[test]
    fn urls_queued_first_go_before_the_others_breadth_first_among_themselves() {
        let mut f = unlimited(1, 1);
        let mut order = Vec::new();
        let take = |f: &mut Frontier<u32>| {
            let r = fetch(f, 0);
            let url = r.url.clone();
            assert!(matches!(f.deliver(r.id, ok(200, "")), Delivered::Page(..)));
            url.trim_start_matches("http://h/").to_string()
        };
        f.push("http://h/a".into(), 1);
        f.push("http://h/b".into(), 2);
        assert!(f.push_first("http://h/x".into(), 3));
        assert!(f.push_first("http://h/y".into(), 4));
        assert!(
            !f.push_first("http://h/a".into(), 5),
            "seen URLs are not queued twice"
        );
        order.push(take(&mut f));
        f.push("http://h/c".into(), 6);
        // b moves ahead of c, behind y.
        assert_eq!(
            f.promote_ranked(named(&["http://h/b", "http://h/nowhere"]), |_| true),
            1
        );
        assert_eq!(
            f.promote_ranked(named(&["http://h/b"]), |_| true),
            0,
            "already ahead"
        );
        assert!(f.push_first("http://h/z".into(), 7));
        while f.queued() > 0 {
            order.push(take(&mut f));
        }
        assert_eq!(order, ["x", "y", "b", "z", "a", "c"]);
        // A request in flight when saved stays ahead of what was queued first.
        f.push("http://h/d".into(), 8);
        f.push_first("http://h/e".into(), 9);
        f.push_first("http://h/g".into(), 10);
        let e = fetch(&mut f, 0);
        f.requeue_in_flight();
        assert_eq!(e.url, "http://h/e");
        f.push_first("http://h/k".into(), 11);
        let rest: Vec<String> = f.iter_queue().map(|q| q.url.clone()).collect();
        assert_eq!(
            rest,
            ["http://h/e", "http://h/g", "http://h/k", "http://h/d"]
        );
        let in_turn: Vec<&str> = f.iter_in_turn().map(|q| q.url.as_str()).collect();
        assert_eq!(in_turn, ["http://h/d"]);
        assert_eq!(f.clear_queue(), 4);
        f.push("http://h/m".into(), 12);
        assert_eq!(
            f.iter_in_turn().count(),
            1,
            "clearing forgets what was first"
        );
    }

    /// URLs put off wait behind everything, also what is queued after them, until the queue
    /// runs dry and they are resumed; they survive a snapshot.
    #[test]
    fn urls_put_off_are_asked_after_everything_else_once_resumed() {
        let mut f = unlimited(1, 1);
        f.push("http://h/fn/a".into(), 1);
        f.push("http://h/b".into(), 2);
        f.push("http://h/fn/c".into(), 3);
        f.push_first("http://h/fn/first".into(), 4);
        assert_eq!(
            f.defer(|u| u.contains("/fn/")),
            2,
            "those queued first stay"
        );
        assert!(f.push_later("http://h/fn/d".into(), 5));
        assert!(
            !f.push_later("http://h/b".into(), 6),
            "seen URLs are not queued twice"
        );
        f.push("http://h/e".into(), 7);
        assert_eq!(f.queued(), 6);
        let later: Vec<u32> = f.items().copied().collect();
        assert_eq!(later.len(), 6, "items() holds those put off: {later:?}");
        assert!(!f.resume_later(), "others still wait");
        // A snapshot keeps them.
        let json = serde_json::to_string(&f).expect("serialise");
        let mut f: Frontier<u32> = serde_json::from_str(&json).expect("deserialise");
        let mut order = Vec::new();
        loop {
            match f.next(0) {
                Next::Fetch(r) => {
                    assert!(matches!(f.deliver(r.id, ok(200, "")), Delivered::Page(..)));
                    order.push(r.url.trim_start_matches("http://h/").to_string());
                }
                Next::Empty if f.resume_later() => {}
                Next::Empty => break,
                _ => panic!("one connection, nothing held"),
            }
        }
        assert_eq!(order, ["fn/first", "b", "e", "fn/a", "fn/c", "fn/d"]);
        assert_eq!(f.queued(), 0);
        f.push_later("http://h/x".into(), 8);
        assert_eq!(f.clear_queue(), 1, "clearing drops those put off too");
        assert!(!f.resume_later());
    }

    /// URLs put off come back: in their turn with `undefer`, first with `promote_ranked`.
    #[test]
    fn urls_put_off_can_be_taken_back_or_promoted() {
        let mut f = unlimited(1, 1);
        f.push("http://h/a".into(), 1);
        f.push_later("http://h/fn/x".into(), 2);
        f.push_later("http://h/fn/y".into(), 3);
        f.push_later("http://h/gn/z".into(), 4);
        f.push("http://h/b".into(), 5);
        assert_eq!(f.undefer(|u| u.contains("/fn/")), 2);
        assert_eq!(f.undefer(|u| u.contains("/fn/")), 0);
        let urls = |f: &Frontier<u32>| -> Vec<String> {
            f.iter_queue()
                .map(|q| q.url.trim_start_matches("http://h/").to_string())
                .collect()
        };
        assert_eq!(urls(&f), ["a", "b", "fn/x", "fn/y", "gn/z"]);
        assert_eq!(f.iter_put_off().count(), 1);
        let both = named(&["http://h/gn/z", "http://h/fn/y"]);
        assert_eq!(
            f.promote_ranked(&both, |q| !q.url.contains("/gn/")),
            1,
            "those put off only where put_off holds"
        );
        assert_eq!(f.promote_ranked(&both, |_| true), 1);
        assert_eq!(urls(&f), ["fn/y", "gn/z", "a", "b", "fn/x"]);
        assert_eq!(f.iter_put_off().count(), 0);
        assert_eq!(
            f.iter_in_turn().count(),
            3,
            "both moved ahead of those in turn"
        );
    }

    /// Rank 0 for the URLs of `urls`.
    fn named(urls: &[&'static str]) -> impl Fn(&Queued<u32>) -> Option<u32> {
        let urls = urls.to_vec();
        move |q| urls.contains(&q.url.as_str()).then_some(0)
    }

    /// The promotion `promote_ranked` stands for, one rank at a time: the entries of the rank
    /// in their turn move behind those queued first, then those put off behind them.
    fn promote_rank_by_rank(
        f: &mut Frontier<u32>,
        ranks: &[Vec<u32>],
        put_off: impl Fn(&Queued<u32>) -> bool,
    ) {
        for items in ranks {
            let first = f.first.min(f.queue.len());
            let rest: Vec<_> = f.queue.drain(first..).collect();
            let (moved, stay): (Vec<_>, Vec<_>) =
                rest.into_iter().partition(|q| items.contains(&q.item));
            let (moved_later, later): (Vec<_>, Vec<_>) = mem::take(&mut f.later)
                .into_iter()
                .partition(|q| items.contains(&q.item) && put_off(q));
            f.later = later.into();
            f.first = first + moved.len() + moved_later.len();
            f.queue
                .extend(moved.into_iter().chain(moved_later).chain(stay));
        }
    }

    proptest::proptest! {
        /// One pass by rank moves the same entries to the same places as moving each rank in
        /// turn (an entry of several ranks by its first).
        #[test]
        fn promoting_by_rank_at_once_is_promoting_rank_by_rank(
            kinds in proptest::collection::vec(0u8..3, 0..40),
            ranks in proptest::collection::vec(proptest::collection::vec(0u32..40, 0..8), 0..5),
        ) {
            let mut a = unlimited(1, 1);
            for (i, kind) in kinds.iter().enumerate() {
                let url = format!("http://h/{}{i}", if i % 4 == 0 { "b/" } else { "" });
                match kind {
                    0 => a.push(url, i as u32),
                    1 => a.push_first(url, i as u32),
                    _ => a.push_later(url, i as u32),
                };
            }
            let mut b = a.clone();
            let put_off = |q: &Queued<u32>| !q.url.contains("/b/");
            let rank_of = |q: &Queued<u32>| {
                ranks.iter().position(|r| r.contains(&q.item)).map(|r| r as u32)
            };
            let n = a.promote_ranked(rank_of, put_off);
            promote_rank_by_rank(&mut b, &ranks, put_off);
            let order = |f: &Frontier<u32>| -> (Vec<u32>, Vec<u32>, usize) {
                (
                    f.queue.iter().map(|q| q.item).collect(),
                    f.later.iter().map(|q| q.item).collect(),
                    f.first,
                )
            };
            proptest::prop_assert_eq!(order(&a), order(&b));
            proptest::prop_assert_eq!(n + kinds.iter().filter(|&&k| k == 1).count(), a.first);
        }
    }

    /// A frontier without robots.txt or delay, with these connection limits.
    fn unlimited<T: Clone>(max: usize, per_host: usize) -> Frontier<T> {
        Frontier::new(Politeness {
            delay_ms: 0,
            max_in_flight: max,
            max_in_flight_per_host: per_host,
            obey_robots: false,
            ..Politeness::default()
        })
    }

    /// [`unlimited`] with `max` connections, `n` URLs queued (`http://h/0` …).
    fn queued(max: usize, n: i32) -> Frontier<i32> {
        let mut f = unlimited(max, max);
        for i in 0..n {
            f.push(format!("http://h/{i}"), i);
        }
        f
    }

    #[test]
    fn limits_in_flight_and_requeues_on_restore() {
        let mut f = queued(2, 4);
        let a = fetch(&mut f, 0);
        let _b = fetch(&mut f, 0);
        assert_eq!(f.next(0), Next::Full, "two on the network at most");
        f.deliver(a.id, ok(200, ""));
        let json = serde_json::to_string(&f).expect("serialise");
        let mut g: Frontier<i32> = serde_json::from_str(&json).expect("deserialise");
        g.requeue_in_flight();
        let first = fetch(&mut g, 0);
        assert_eq!(
            first.url, "http://h/1",
            "the in-flight page comes first again"
        );
        assert_eq!(fetch(&mut g, 0).url, "http://h/2");
        assert_eq!(g.next(0), Next::Full, "two on the network at most");
        g.deliver(first.id, ok(200, ""));
        assert_eq!(fetch(&mut g, 0).url, "http://h/3");
    }

    /// Held results come out oldest request first, never before it; they free their
    /// connections but not their place in the window; they survive a snapshot (a non-UTF-8
    /// body byte for byte) and their requests stay in flight while the others are asked again.
    #[test]
    fn held_results_are_taken_oldest_first_and_survive_a_restore() {
        let mut f = queued(3, 8);
        let (a, b, c) = (fetch(&mut f, 0), fetch(&mut f, 0), fetch(&mut f, 0));
        assert_eq!(f.next(0), Next::Full, "three on the network: wait for one");
        let mut order = InOrder::default();
        let latin1 = FetchResult::Response(FetchResponse {
            status: 200,
            final_url: String::new(),
            headers: vec![("content-type".into(), "text/html; charset=latin1".into())],
            body: vec![b'<', 0xe9, 0xff, 0x00, b'>'],
            truncated: false,
        });
        order.hold(&mut f, c.id, latin1.clone());
        order.hold(&mut f, b.id, FetchResult::Failed("timed out".into()));
        order.hold(&mut f, 999, ok(200, "unknown id"));
        order.hold(&mut f, c.id, latin1.clone());
        assert!(order.holds(b.id) && order.holds(c.id), "held");
        assert!(!order.holds(999), "an id not in flight is dropped");
        assert_eq!(
            order.oldest(&f),
            None,
            "the oldest request's result has not arrived"
        );
        let (d, e) = (fetch(&mut f, 0), fetch(&mut f, 0));
        assert_eq!(
            f.next(0),
            Next::Full,
            "b and c gave up their connections, once each"
        );

        let json = serde_json::to_string(&(&f, &order)).expect("serialise");
        assert!(json.contains("\"POn/AD4=\""), "the body as base64: {json}");
        let (mut g, mut restored): (Frontier<i32>, InOrder) =
            serde_json::from_str(&json).expect("deserialise");
        assert_eq!(restored, order);
        g.requeue_in_flight_except(|id| restored.holds(id));
        restored.retain_in_flight(&g);
        assert_eq!(g.in_flight(), 2, "b and c stay in flight");
        let again: Vec<String> = (0..3).map(|_| fetch(&mut g, 0).url).collect();
        assert_eq!(
            again,
            [a.url.clone(), d.url, e.url],
            "asked again, in order"
        );
        assert_eq!(g.next(0), Next::Full, "held results take no connection");
        let a2 = g.oldest_in_flight().expect("in flight");
        assert_ne!(a2, a.id, "a is a new request");
        let (id, result) = restored.oldest(&g).expect("b's result");
        assert_eq!(id, b.id, "b's request is the oldest");
        g.deliver(id, result);
        let (id, result) = restored
            .oldest(&g)
            .map_or((0, None), |(id, r)| (id, Some(r)));
        assert_eq!(
            (id, result),
            (c.id, Some(latin1)),
            "then c, its body intact"
        );
        assert!(!restored.holds(b.id) && !restored.holds(c.id), "both taken");
    }

    /// Responses that arrive before the oldest request's free their connections, so more is
    /// asked, until the window holds `LOOKAHEAD` × the connections allowed: then the machine
    /// must take the oldest result. The same per host: a host whose window is full is passed
    /// over for the next host's URLs.
    #[test]
    fn a_window_of_requests_is_asked_ahead_of_the_oldest_result() {
        let mut f = queued(2, 10);
        let mut order = InOrder::default();
        let a = fetch(&mut f, 0);
        let b = fetch(&mut f, 0);
        assert_eq!(f.next(0), Next::Full);
        order.hold(&mut f, b.id, ok(200, "b"));
        let c = fetch(&mut f, 0);
        order.hold(&mut f, c.id, ok(200, "c"));
        let _d = fetch(&mut f, 0);
        assert_eq!(LOOKAHEAD, 2);
        assert_eq!(f.in_flight(), 4);
        assert_eq!(f.next(0), Next::Busy, "the window is full: take a result");
        assert_eq!(order.oldest(&f), None, "a has not arrived: wait for it");
        order.hold(&mut f, a.id, ok(200, "a"));
        let (id, result) = order.oldest(&f).expect("a's result");
        assert_eq!(id, a.id);
        f.deliver(id, result);
        assert_eq!(fetch(&mut f, 0).url, "http://h/4", "room again");

        let mut two = unlimited(4, 1);
        for u in ["http://h/0", "http://h/1", "http://h/2", "http://g/0"] {
            two.push(u.to_string(), 0);
        }
        let h0 = fetch(&mut two, 0);
        order.hold(&mut two, h0.id, ok(200, "h0"));
        assert_eq!(
            fetch(&mut two, 0).url,
            "http://h/1",
            "h0 freed h's connection"
        );
        assert_eq!(
            fetch(&mut two, 0).url,
            "http://g/0",
            "h's window is full: g's turn"
        );
        assert_eq!(two.next(0), Next::Busy, "h's window is full again: take h0");
        let (id, result) = order.oldest(&two).expect("h0's result");
        assert_eq!(id, h0.id);
        two.deliver(id, result);
        assert_eq!(
            two.next(0),
            Next::Full,
            "h1 holds h's connection, g0 g's: wait for one"
        );
    }

    #[test]
    fn html_detection() {
        let mut r = FetchResponse {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            ..FetchResponse::default()
        };
        assert!(r.is_html());
        r.headers = vec![("content-type".into(), "application/pdf".into())];
        assert!(!r.is_html());
        r.headers.clear();
        r.body = b"\n <!DOCTYPE html><p>x".to_vec();
        assert!(r.is_html());
        r.body = b"%PDF-1.4".to_vec();
        assert!(!r.is_html());
    }
}
