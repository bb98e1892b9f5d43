//! The frontier shared by the mapper and the crawler: the breadth-first queue, the URLs ever
//! queued, the requests in flight, and each host's robots.txt state, delay and concurrency.

use super::*;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum RobotsState {
    Unknown,
    Pending(u64),
    Known(Robots),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Host {
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

pub(crate) fn is_zero(n: &u64) -> bool {
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
pub(crate) enum Flight<T> {
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
    pub(super) politeness: Politeness,
    pub(super) queue: VecDeque<Queued<T>>,
    /// How many entries at the head of `queue` were queued first ([`Frontier::push_first`]):
    /// breadth-first among themselves, before all others.
    #[serde(default)]
    pub(super) first: usize,
    /// URLs put off until `queue` runs dry ([`Frontier::push_later`], [`Frontier::defer`]):
    /// asked only after [`Frontier::resume_later`].
    #[serde(default = "VecDeque::new", skip_serializing_if = "VecDeque::is_empty")]
    pub(super) later: VecDeque<Queued<T>>,
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
pub(crate) const SCAN: usize = 64;

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
pub(crate) fn no_robots_txt(status: u16) -> bool {
    (400..500).contains(&status) && status != 429
}

/// `scheme://host[:port]` of a URL: the unit of politeness.
pub fn host_of(url: &str) -> Option<String> {
    host_key(url).map(Cow::into_owned)
}

/// Whether `url` is on `origin` (a [`host_of`] value): it starts with it, followed by the
/// path, the query, the fragment or nothing.
pub(crate) fn has_origin(url: &str, origin: &str) -> bool {
    url.strip_prefix(origin)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']))
}

/// [`host_of`], borrowed from `url` when `url` already starts with its origin as the `url`
/// crate writes it (what canonical URLs do): the frontier asks for the host of up to `SCAN`
/// queued URLs at every poll, and parsing each one was a sixth of mapping's CPU time in a
/// profile of `exemplar learn`.
pub(crate) fn host_key(url: &str) -> Option<Cow<'_, str>> {
    match crate::canon::written_origin(url) {
        Some(origin) => Some(Cow::Borrowed(origin)),
        None => parsed_origin(url).map(Cow::Owned),
    }
}

/// [`host_of`] by parsing `url` (any URL).
pub(crate) fn parsed_origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    Some(match u.port() {
        Some(p) => format!("{}://{}:{}", u.scheme(), host, p),
        None => format!("{}://{}", u.scheme(), host),
    })
}
