//! The structure-driven crawler (design §5, thesis Algorithm 7) as a sans-IO state machine.
//!
//! Runs a [`Pattern`]: breadth first from the entry page; on a page of level j it follows only
//! links matching level j+1 (or its own level when that level paginates, bounded, or a deeper
//! level: [`Compiled::step`]); links matching the last level are targets wherever they are met
//! (shortcuts). Targets are fetched
//! and handed to the driver in [`Event::Target`] (body included, so the driver streams them to
//! its exports and the crawler keeps nothing but URLs and signatures), optionally verified
//! with RTDM against the example. At the end, [`Crawler::coverage`] compares the targets with
//! those the pattern was learned from. Form levels are entered by issuing queries (see
//! `crawler/forms.rs`).
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::canon::{self, CompiledScope, TrapGuard, TrapLimits};
use crate::dom::{Page, ParseOptions};
use crate::fetch::{
    Delivered, FetchResponse, FetchResult, Frontier, InOrder, Machine, Next, Politeness, Poll,
    RequestKind,
};
use crate::forms::query::DocTerms;
use crate::mapper::{ExamplePage, StopReason};
use crate::pattern::{Compiled, Pattern, Step};
use crate::script_links::{self, Include, ScriptTable};
use crate::signature::{body_signature, canonical_links, canonical_signature, page_signatures};
use crate::similarity::Example;

mod forms;
pub use forms::CrawlForms;

/// Settings of a crawl beyond the pattern.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CrawlConfig {
    /// Pages fetched at most.
    pub max_pages: usize,
    /// Stop after this many milliseconds of running time (None: no limit); the time a run lay
    /// saved before a restore does not count.
    pub max_duration_ms: Option<u64>,
    /// Largest body, in bytes.
    pub max_bytes: usize,
    /// Politeness (None: the pattern's).
    pub politeness: Option<Politeness>,
    /// Crawler-trap bounds.
    pub traps: TrapLimits,
    /// Query values, policy and budget for the pattern's form levels.
    pub forms: CrawlForms,
    /// With an example page, verify only targets learning did not know (those were judged
    /// while learning): a pattern run again later checks just its new pages.
    #[serde(default)]
    pub verify_new_only: bool,
    /// Distinct scripts fetched at most, when the pattern reads scripts.
    pub max_scripts: usize,
    /// Read the sitemaps the site's robots.txt names (when robots.txt is obeyed): the URLs they
    /// list are followed as links of the start page, so a target no listing links is found (a
    /// catalogue whose listings stop at page 50). At most [`MAX_SITEMAPS`] files.
    #[serde(default = "read_sitemaps_default")]
    pub read_sitemaps: bool,
}

fn read_sitemaps_default() -> bool {
    true
}

/// Sitemap files a crawl reads at most (those robots.txt names, and those their indexes list).
pub const MAX_SITEMAPS: usize = crate::sitemap::MAX_FILES;

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            max_pages: 100_000,
            max_duration_ms: None,
            max_bytes: 8 << 20,
            politeness: None,
            // The pattern already bounds where the crawl goes (regexes, pagination hops); the
            // per-shape budget that keeps mapping out of calendars would cut a large catalogue
            // (`/item/#` × 100,000) short, so it is raised for crawls.
            traps: TrapLimits {
                max_per_shape: 10_000_000,
                ..TrapLimits::default()
            },
            forms: CrawlForms::default(),
            verify_new_only: false,
            max_scripts: script_links::DEFAULT_MAX_SCRIPTS,
            read_sitemaps: true,
        }
    }
}

/// A target page, handed to the driver once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetPage {
    /// Canonical URL.
    pub url: String,
    /// Final URL after redirects.
    pub final_url: String,
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// `<title>`.
    pub title: String,
    /// The page's main heading ([`crate::dom::Page::heading`]): what names the page where
    /// every page of a site shares one title.
    #[serde(default)]
    pub heading: String,
    /// The language it declares ([`crate::dom::Page::lang`]), empty when none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lang: String,
    /// The canonical URL it declares ([`crate::dom::Page::canonical`]), when it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// Similarity to the example (when verifying).
    pub similarity: Option<f64>,
    /// Verification verdict (None when not verifying).
    pub verified: Option<bool>,
    /// The level of the page it was found on (0 = entry).
    pub found_on_level: usize,
    /// Not among the pattern's known targets.
    pub new: bool,
    /// Verification took this page within the band below θ for its heading: learning listed
    /// it ([`Pattern::by_heading`]), or it follows the targets' heading templates
    /// ([`Pattern::heading_rule`]).
    #[serde(default)]
    pub by_heading: bool,
    /// When the response was taken (driver's clock).
    pub fetched_at_ms: u64,
    /// What the page says, signed: its title and visible text, whitespace collapsed
    /// ([`text_digest`], 16 hex digits). The same from one run to the next unless that text
    /// changed (its markup, scripts and styles aside): a run again tells the pages changed
    /// since the last from those it found as they were.
    #[serde(default)]
    pub text_digest: String,
}

/// The signature of a page's title and visible text ([`TargetPage::text_digest`]), both
/// whitespace-collapsed as the page model keeps them, hashed eight bytes a step
/// ([`crate::canon::mix_bytes`]), as 16 hex digits (a string, since JavaScript numbers cannot
/// hold 64 bits). Digests are compared across runs: a change here reads every page as changed
/// once.
pub fn text_digest(page: &Page) -> String {
    use crate::canon::{bytes_signature, mix_bytes};
    let h = mix_bytes(bytes_signature(b"\0text\0"), page.title.as_bytes());
    format!("{:016x}", mix_bytes(h, page.text.as_bytes()))
}

/// Something that happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Event {
    /// A target page.
    Target(Box<TargetPage>),
    /// A navigation page was fetched.
    #[serde(rename_all = "camelCase")]
    Page {
        /// URL.
        url: String,
        /// Its level.
        level: usize,
        /// HTTP status (0: failed).
        status: u16,
        /// Links followed from it.
        followed: usize,
    },
    /// A URL was not fetched or gave nothing.
    #[serde(rename_all = "camelCase")]
    Skipped {
        /// URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// A sitemap, or part of one, was not read.
    SitemapSkipped(crate::sitemap::NotRead),
    /// The site said to wait (429, 503): a request is asked again later and its host slowed
    /// down.
    Retry(crate::fetch::Retry),
    /// A page not read: its body passed the size limit ([`CrawlConfig::max_bytes`]).
    #[serde(rename_all = "camelCase")]
    TooLarge {
        /// URL.
        url: String,
        /// The limit it passed.
        max_bytes: usize,
    },
    /// A query of a form level was answered (its result pages and documents fetched).
    #[serde(rename_all = "camelCase")]
    Query {
        /// The crawl level of its result pages.
        level: usize,
        /// The query (the text value, or the choice values).
        query: String,
        /// Queries issued so far on this level.
        issued: usize,
        /// The level's query budget.
        budget: usize,
        /// Result pages read.
        result_pages: usize,
        /// Documents the query returned (fetched from its result pages).
        documents: usize,
        /// Targets collected so far in the crawl.
        targets: usize,
    },
    /// The crawl finished.
    #[serde(rename_all = "camelCase")]
    Finished {
        /// Why.
        reason: StopReason,
    },
}

/// Counts for display.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// Page requests answered.
    pub fetched: usize,
    /// Targets collected.
    pub targets: usize,
    /// Of which new since learning.
    pub new_targets: usize,
    /// Targets that failed verification.
    pub rejected: usize,
    /// Targets verification took below θ for their heading ([`TargetPage::by_heading`]).
    #[serde(default)]
    pub by_heading: usize,
    /// URLs waiting.
    pub queued: usize,
    /// Requests in flight.
    pub in_flight: usize,
    /// Skipped URLs.
    pub skipped: usize,
    /// Errors.
    pub errors: usize,
    /// Body bytes.
    pub bytes: u64,
    /// Milliseconds since the first poll.
    pub elapsed_ms: u64,
    /// Form queries issued.
    #[serde(default)]
    pub queries: usize,
    /// Script requests answered ([`Pattern::script_links`]); they count in the page budget.
    #[serde(default)]
    pub scripts: usize,
    /// Sitemaps read ([`CrawlConfig::read_sitemaps`]); counted in `fetched` too.
    #[serde(default)]
    pub sitemaps: usize,
    /// Sitemap URLs the pattern follows (targets and listings), besides those already queued.
    #[serde(default)]
    pub sitemap_links: usize,
    /// Requests asked again because the site said to wait (429, 503: [`crate::fetch::Retry`]).
    #[serde(default)]
    pub retried: usize,
}

/// Coverage of a crawl against the targets the pattern was learned from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// Targets known from learning.
    pub known: usize,
    /// Of those, reached by this crawl.
    pub reached: usize,
    /// Known targets not reached.
    pub missed: Vec<String>,
    /// Targets not known from learning (new pages, or pages the mapping did not reach).
    pub new: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Item {
    level: usize,
    /// Pagination hops in the current chain.
    hops: u32,
    /// Target (fetched; expanded only when the last level paginates).
    target: bool,
    /// The form run whose query led here (result pages and the documents they link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    query: Option<u32>,
    /// A document a query returned (linked from its result pages).
    #[serde(default)]
    doc: bool,
    /// A script the page that asked it includes ([`Pattern::script_links`]); the other fields
    /// are that page's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    script: bool,
    /// A sitemap the site's robots.txt names, or one a sitemap index lists
    /// ([`CrawlConfig::read_sitemaps`]): its URLs are read as links of the start page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    sitemap: bool,
}

impl Item {
    /// The start page's: level 0, nothing else.
    fn start() -> Item {
        Item {
            level: 0,
            hops: 0,
            target: false,
            query: None,
            script: false,
            doc: false,
            sitemap: false,
        }
    }
}

/// What verification said of a page met as a target ([`Crawler::judge`]).
struct Judged {
    /// Not a target learning knew.
    new: bool,
    /// Its similarity to the example, when compared.
    similarity: Option<f64>,
    /// Some(true) when verified, None when not checked.
    verified: Option<bool>,
    /// Taken just below θ for its heading.
    by_heading: bool,
}

/// A page waiting for a script it includes: its links follow from its level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ScriptWaiter {
    item: Item,
    /// Its base URL (links resolve against it).
    base: String,
}

/// The serialisable state of a crawler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Format version.
    pub version: u32,
    pattern: Pattern,
    config: CrawlConfig,
    example: Option<ExamplePage>,
    frontier: Frontier<Item>,
    targets: Vec<String>,
    signatures: HashMap<u64, String>,
    traps: TrapGuard,
    progress: Progress,
    started_ms: Option<u64>,
    stopped: Option<StopReason>,
    finished_sent: bool,
    #[serde(default)]
    runs: Vec<forms::FormRun>,
    /// URLs skipped as the same content as another page (URL → that page), so a known target
    /// met under another URL still counts as reached.
    #[serde(default)]
    aliases: HashMap<String, String>,
    /// Results that arrived before an earlier request's, waiting to be taken in the order the
    /// requests were issued ([`InOrder`]); their requests stay in flight across a restore.
    #[serde(default)]
    arrived: InOrder,
    /// The same-site scripts pages include, and the pages waiting for them.
    #[serde(default)]
    scripts: ScriptTable<ScriptWaiter>,
    /// The sitemap files queued (at most [`MAX_SITEMAPS`]): asked as sitemaps
    /// ([`RequestKind::Sitemap`]).
    #[serde(default)]
    sitemap_urls: BTreeSet<String>,
    /// The hosts off the site the site's robots.txt names sitemaps on
    /// ([`crate::sitemap::named_hosts`]): sitemaps there are read too.
    #[serde(default)]
    sitemap_hosts: BTreeSet<String>,
}

const SNAPSHOT_VERSION: u32 = 1;

impl Snapshot {
    /// Every level and form run the queued requests name exists (a snapshot read back from
    /// disk is input).
    fn check(&self) -> Result<(), String> {
        let levels = self.pattern.levels.len();
        for run in &self.runs {
            run.check(levels)?;
        }
        let waiting = self.scripts.waiters().map(|w| &w.item);
        for item in self.frontier.items().chain(waiting) {
            // Crawl level 0 is the start page; level i holds pages of the pattern's level i.
            if item.level > levels {
                return Err(format!(
                    "a queued request is for level {}, but the pattern has {levels} levels",
                    item.level
                ));
            }
            if let Some(r) = item.query.filter(|&r| r as usize >= self.runs.len()) {
                return Err(format!(
                    "a queued request belongs to form run {r}, but there are {}",
                    self.runs.len()
                ));
            }
        }
        Ok(())
    }

    /// The pattern being crawled.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// The crawl's settings.
    pub fn config(&self) -> &CrawlConfig {
        &self.config
    }

    /// Whether targets are verified against the example page (saved with the state).
    pub fn verifies(&self) -> bool {
        self.example.is_some()
    }

    /// Target URLs collected so far, in the order found.
    pub fn targets(&self) -> &[String] {
        &self.targets
    }
}

/// The crawling state machine. See the module docs.
pub struct Crawler {
    state: Snapshot,
    compiled: Compiled,
    scope: CompiledScope,
    example: Option<Example>,
    parse: ParseOptions,
    known: HashSet<String>,
    /// The directories ([`crate::similarity::place`]) of the targets learning knew: a page
    /// verified there keeps its whole score, as mapping scored its directory's look-alikes.
    known_places: HashSet<Vec<String>>,
    events: VecDeque<Event>,
}

/// Errors creating a crawler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrawlError(pub String);

impl std::fmt::Display for CrawlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CrawlError {}

impl Crawler {
    /// A crawler for a pattern. With `example`, targets are verified with RTDM at the
    /// pattern's θ (pages that fail are reported, not collected).
    ///
    /// # Errors
    /// An invalid pattern or config, an unparseable example.
    pub fn new(
        pattern: Pattern,
        config: CrawlConfig,
        example: Option<ExamplePage>,
    ) -> Result<Crawler, CrawlError> {
        let politeness = config
            .politeness
            .clone()
            .unwrap_or_else(|| pattern.politeness.clone());
        let entry = canon::canonicalize(&pattern.entry)
            .ok_or_else(|| CrawlError(format!("bad entry URL {:?}", pattern.entry)))?;
        let mut frontier = Frontier::new(politeness);
        frontier.push(entry, Item::start());
        Crawler::from_state(Snapshot {
            version: SNAPSHOT_VERSION,
            traps: TrapGuard::new(config.traps.clone()),
            pattern,
            config,
            example,
            frontier,
            targets: Vec::new(),
            signatures: HashMap::new(),
            progress: Progress::default(),
            started_ms: None,
            stopped: None,
            finished_sent: false,
            runs: Vec::new(),
            aliases: HashMap::new(),
            arrived: InOrder::default(),
            scripts: ScriptTable::default(),
            sitemap_urls: BTreeSet::new(),
            sitemap_hosts: BTreeSet::new(),
        })
    }

    fn from_state(state: Snapshot) -> Result<Crawler, CrawlError> {
        if state.version != SNAPSHOT_VERSION {
            return Err(CrawlError(format!(
                "snapshot version {} is not supported",
                state.version
            )));
        }
        state
            .pattern
            .validate()
            .map_err(|e| CrawlError(e.to_string()))?;
        let compiled = state
            .pattern
            .compile()
            .map_err(|e| CrawlError(e.to_string()))?;
        state
            .check()
            .map_err(|e| CrawlError(format!("inconsistent snapshot: {e}")))?;
        let scope = state.pattern.scope.compile().map_err(CrawlError)?;
        let parse = ParseOptions {
            max_bytes: state.config.max_bytes,
            ..ParseOptions::default()
        };
        let example = match &state.example {
            Some(ex) => {
                let page = Page::parse(&ex.body, &ex.url, ex.content_type.as_deref(), &parse)
                    .map_err(|e| CrawlError(format!("example page {}: {e}", ex.url)))?;
                Some(Example::new(&page, state.pattern.similarity))
            }
            None => None,
        };
        // A known target met first under another of its URLs is not new.
        let known = state
            .pattern
            .known_targets
            .iter()
            .chain(&state.pattern.known_aliases)
            .cloned()
            .collect();
        let known_places = state
            .pattern
            .known_targets
            .iter()
            .map(|u| crate::similarity::place(u))
            .collect();
        Ok(Crawler {
            state,
            compiled,
            scope,
            example,
            parse,
            known,
            known_places,
            events: VecDeque::new(),
        })
    }

    /// The whole state as serde data.
    pub fn snapshot(&self) -> Snapshot {
        self.state.clone()
    }

    /// A crawler from a snapshot; requests in flight whose results had not arrived are asked
    /// again, and the time budget (`max_duration_ms`) goes on from the running time saved.
    ///
    /// # Errors
    /// As [`Crawler::new`]; also queued requests for levels or form runs the state does not
    /// have.
    pub fn restore(snapshot: Snapshot) -> Result<Crawler, CrawlError> {
        let mut c = Crawler::from_state(snapshot)?;
        // Requests whose results arrived stay in flight (the results are in the snapshot);
        // the others are asked again.
        let s = &mut c.state;
        s.frontier
            .requeue_in_flight_except(|id| s.arrived.holds(id));
        s.arrived.retain_in_flight(&s.frontier);
        c.state.started_ms = None;
        Ok(c)
    }

    /// The crawl's settings.
    pub fn config(&self) -> &CrawlConfig {
        &self.state.config
    }

    /// The politeness in force: the settings', else the pattern's.
    pub fn politeness(&self) -> &Politeness {
        self.state.frontier.politeness()
    }

    /// Counts for display.
    pub fn progress(&self) -> Progress {
        let mut p = self.state.progress;
        p.queued = self.state.frontier.queued();
        p.in_flight = self.state.frontier.in_flight();
        p
    }

    /// The links the trap guard refused so far, by reason (part of [`Progress::skipped`]).
    pub fn trap_refusals(&self) -> &[crate::canon::Refusal] {
        self.state.traps.refusals()
    }

    /// Why it stopped, once it has.
    pub fn stopped(&self) -> Option<StopReason> {
        self.state.stopped
    }

    /// Target URLs collected so far, in order.
    pub fn targets(&self) -> &[String] {
        &self.state.targets
    }

    /// The pattern being run.
    pub fn pattern(&self) -> &Pattern {
        &self.state.pattern
    }

    /// Events since the last call.
    pub fn drain_events(&mut self) -> Vec<Event> {
        self.events.drain(..).collect()
    }

    /// Stops handing out requests.
    pub fn cancel(&mut self) {
        self.stop(StopReason::Cancelled);
    }

    fn stop(&mut self, reason: StopReason) {
        if self.state.stopped.is_none() {
            self.state.stopped = Some(reason);
            self.state.frontier.clear_queue();
        }
    }

    /// Coverage against the pattern's known targets.
    pub fn coverage(&self) -> Coverage {
        let got: HashSet<&String> = self.state.targets.iter().collect();
        // A known target reached under another URL (same content) is reached.
        let reached = |t: &String| {
            got.contains(t) || self.state.aliases.get(t).is_some_and(|a| got.contains(a))
        };
        // Targets that are a known target under another URL are not new.
        let known_under_alias: HashSet<&str> = self
            .state
            .pattern
            .known_targets
            .iter()
            .filter_map(|k| self.state.aliases.get(k).map(String::as_str))
            .collect();
        let missed: Vec<String> = self
            .state
            .pattern
            .known_targets
            .iter()
            .filter(|t| !reached(t))
            .cloned()
            .collect();
        Coverage {
            known: self.state.pattern.known_targets.len(),
            reached: self.state.pattern.known_targets.len() - missed.len(),
            missed,
            new: self
                .state
                .targets
                .iter()
                .filter(|t| !self.known.contains(*t) && !known_under_alias.contains(t.as_str()))
                .cloned()
                .collect(),
        }
    }

    /// What to do at `now_ms`.
    pub fn poll(&mut self, now_ms: u64) -> Poll {
        let elapsed = crate::fetch::running_time(
            &mut self.state.started_ms,
            self.state.progress.elapsed_ms,
            now_ms,
        );
        self.state.progress.elapsed_ms = elapsed;
        if let Some(max) = self.state.config.max_duration_ms
            && elapsed >= max
        {
            self.stop(StopReason::MaxDuration);
        }
        loop {
            // The page budget counts the requests asked, so that it is never overrun: once
            // they fill it, nothing more is asked and their results are taken in order.
            let in_flight = self.state.frontier.pages_in_flight();
            let answered = self.state.progress.fetched + self.state.progress.scripts;
            if self.state.stopped.is_none() && answered + in_flight >= self.state.config.max_pages {
                match self.state.arrived.oldest(&self.state.frontier) {
                    Some((id, result)) => self.deliver(id, result, now_ms),
                    None if in_flight > 0 => return Poll::Busy,
                    None => self.stop(StopReason::MaxPages),
                }
                continue;
            }
            match self.state.frontier.next(now_ms) {
                Next::Fetch(mut r) => {
                    if self.state.scripts.is_asked(&r.url) {
                        r.kind = RequestKind::Script;
                    } else if self.state.sitemap_urls.contains(&r.url) {
                        r.kind = RequestKind::Sitemap;
                    }
                    return Poll::Fetch(r);
                }
                Next::Disallowed(q) if q.item.script => {
                    self.state.progress.skipped += 1;
                    self.script_answered(&q.url, Err("disallowed by robots.txt".into()));
                }
                Next::Disallowed(q) if q.item.sitemap => {
                    let why =
                        crate::sitemap::disallowed(self.state.frontier.robots_unreadable(&q.url));
                    self.sitemap_skipped(q.url, why);
                }
                Next::Disallowed(q) => {
                    self.state.progress.skipped += 1;
                    self.events.push_back(Event::Skipped {
                        url: q.url,
                        reason: "robots.txt".into(),
                    });
                    if let Some(r) = q.item.query {
                        self.query_answered(r, None, false);
                    }
                }
                Next::WaitUntil(t) => return Poll::WaitUntil(t),
                // A connection is waited for; held results stay held.
                Next::Full => return Poll::Busy,
                Next::Busy => {
                    // Everything that can be asked was: the oldest request's result is taken
                    // (if it arrived), then asking starts again.
                    match self.state.arrived.oldest(&self.state.frontier) {
                        Some((id, result)) => self.deliver(id, result, now_ms),
                        None => return Poll::Busy,
                    }
                }
                Next::Empty => {
                    if self.state.stopped.is_none() {
                        self.state.stopped = Some(StopReason::Exhausted);
                    }
                    if let Some(reason) = self.state.stopped.filter(|_| !self.state.finished_sent) {
                        self.state.finished_sent = true;
                        self.events.push_back(Event::Finished { reason });
                    }
                    return Poll::Done;
                }
            }
        }
    }

    /// Hands over the result of request `id`; the next [`Crawler::poll`] takes it. Results are
    /// taken in the order their requests were issued, one each time everything that can be
    /// asked has been ([`InOrder`]): a crawl cut short by a budget, or steered by what its
    /// queries return, is the same whatever order responses arrive in.
    pub fn handle(&mut self, id: u64, result: FetchResult, _now_ms: u64) {
        self.state
            .arrived
            .hold(&mut self.state.frontier, id, result);
    }

    fn deliver(&mut self, id: u64, result: FetchResult, now_ms: u64) {
        let (q, result) = match self.state.frontier.deliver(id, result) {
            Delivered::Page(q, result) => (q, result),
            // Only the site's own robots.txt names its sitemaps (a sitemap host's speaks for
            // that host).
            Delivered::Robots { origin, sitemaps } => {
                if self.state.config.read_sitemaps && self.scope.contains(&format!("{origin}/")) {
                    let scope = &self.scope;
                    let hosts = crate::sitemap::named_hosts(&sitemaps, |u| scope.contains(u));
                    self.state.sitemap_hosts.extend(hosts);
                    self.queue_sitemaps(sitemaps);
                }
                return;
            }
            Delivered::Retry(retry) => {
                self.state.progress.retried += 1;
                self.events.push_back(Event::Retry(retry));
                return;
            }
            Delivered::Unknown => return,
        };
        if q.item.sitemap {
            self.state.progress.fetched += 1;
            self.read_sitemap(q.url, result);
            self.check_budget();
            return;
        }
        if q.item.script {
            self.state.progress.scripts += 1;
            if let FetchResult::Response(r) = &result {
                self.state.progress.bytes += r.body.len() as u64;
            }
            self.script_answered(&q.url, script_links::read(result));
            self.check_budget();
            return;
        }
        self.state.progress.fetched += 1;
        let query = q.item.query;
        let result_page = query.is_some() && !q.item.doc;
        let doc = self.take(q.url, q.item, result, now_ms);
        if let Some(r) = query {
            self.query_answered(r, doc, result_page);
        }
    }

    /// Examines one response; returns the page's terms when it is a document a query returned.
    fn take(
        &mut self,
        url: String,
        item: Item,
        result: FetchResult,
        now_ms: u64,
    ) -> Option<DocTerms> {
        let r = match result {
            FetchResult::Failed(e) => return self.error(url, item.level, 0, e),
            FetchResult::Response(r) => r,
        };
        self.state.progress.bytes += r.body.len() as u64;
        if (300..400).contains(&r.status) && !r.final_url.is_empty() {
            return self.skip(url, format!("redirected off site to {}", r.final_url));
        }
        if !(200..300).contains(&r.status) {
            return self.error(url, item.level, r.status, format!("HTTP {}", r.status));
        }
        let final_url = if r.final_url.is_empty() {
            url.clone()
        } else {
            r.final_url.clone()
        };
        let final_c = canon::canonicalize(&final_url)
            .map(|f| crate::fetch::same_post(&url, f))
            .unwrap_or_default();
        if !self.scope.contains(&final_c) {
            return self.skip(url, format!("redirected off site to {final_url}"));
        }
        if final_c != url {
            if self.state.frontier.is_seen(&final_c) {
                return self.skip(url, format!("redirect to a page already seen: {final_c}"));
            }
            self.state.frontier.mark_seen(&final_c);
        }
        if !r.is_html() {
            let mt = r.media_type().unwrap_or_default();
            return self.skip(url, format!("not HTML ({mt})"));
        }
        if r.truncated {
            self.state.progress.skipped += 1;
            let max_bytes = self.state.config.max_bytes;
            self.events.push_back(Event::TooLarge { url, max_bytes });
            return None;
        }
        // The same bytes as a page already seen: a copy, known without parsing it.
        let body = body_signature(&r.body);
        if let Some(of) = self.state.signatures.get(&body).cloned() {
            return self.copy_of(url, of);
        }
        let mut page = match Page::parse(&r.body, &final_c, r.header("content-type"), &self.parse) {
            Ok(p) => p,
            Err(e) => return self.error(url, item.level, r.status, e.to_string()),
        };
        page.header_language(r.header("content-language"));
        let mut links = canonical_links(&page);
        let mut signatures = page_signatures(&page, &links);
        signatures.push(body);
        if let Some(of) = signatures
            .iter()
            .find_map(|s| self.state.signatures.get(s))
            .cloned()
        {
            return self.copy_of(url, of);
        }
        for s in signatures {
            self.state.signatures.insert(s, url.clone());
        }
        // As mapping does: no link of a page whose robots meta tag says `nofollow`, nor a
        // `rel=nofollow` link, unless robots are not obeyed.
        if self.politeness().obey_robots {
            for (l, u) in page.links.iter().zip(links.iter_mut()) {
                if page.robots.nofollow || l.nofollow {
                    *u = None;
                }
            }
        }
        let doc = item.doc.then(|| DocTerms::from_page(&page));
        if item.target {
            let judged = match self.judge(&url, &page) {
                Ok(j) => j,
                Err(why) => {
                    self.state.progress.rejected += 1;
                    self.skip(url, format!("matches the last level but is {why}"));
                    return doc;
                }
            };
            // A target naming the canonical URL, title and heading of one collected is that
            // page under another URL ([`crate::mapper::canonical_signature`]).
            if let Some(sig) = canonical_signature(&page) {
                if let Some(of) = self.state.signatures.get(&sig).cloned() {
                    let declared = page.canonical.as_deref().unwrap_or_default();
                    let why = format!("the same page as {of} (canonical {declared})");
                    return self.alias_of(url, of, why);
                }
                self.state.signatures.insert(sig, url.clone());
            }
            // Targets that link to further targets ([`Level::paginate`] on the last level) or
            // back to listings ([`Level::from_targets`]).
            if self.compiled.reads_targets() {
                let from = Item {
                    level: self.compiled.len(),
                    hops: 0,
                    target: true,
                    query: None,
                    script: false,
                    sitemap: false,
                    doc: false,
                };
                self.expand(links, &from);
                self.include_scripts(&page, &from);
            }
            self.collect(url, final_url, r, &page, judged, item.level, now_ms);
        } else {
            let status = r.status;
            // The entry page, when learning found it like the example: collected, and still
            // where navigation starts.
            let entry_target = self.state.pattern.entry_target
                && item.level == 0
                && item.query.is_none()
                && canon::canonicalize(&self.state.pattern.entry).as_deref() == Some(url.as_str());
            if entry_target {
                match self.judge(&url, &page) {
                    Ok(judged) => {
                        let (u, f) = (url.clone(), final_url.clone());
                        self.collect(u, f, r, &page, judged, 0, now_ms);
                    }
                    Err(why) => {
                        // Not skipped: its links are followed below.
                        self.state.progress.rejected += 1;
                        self.events.push_back(Event::Skipped {
                            url: url.clone(),
                            reason: format!(
                                "the entry page is followed but not collected: it is {why}"
                            ),
                        });
                    }
                }
            }
            if self.is_result_level(item.level) {
                // Result pages that page with submit buttons: their GET equivalents (or POST
                // keys).
                links.extend(
                    crate::forms::pagination_links(&page)
                        .iter()
                        .map(|u| crate::fetch::canonical_key(u)),
                );
            }
            let followed = self.expand(links, &item);
            if item.query.is_none() {
                self.include_scripts(&page, &item);
            }
            self.start_form_level(item.level);
            self.events.push_back(Event::Page {
                url,
                level: item.level,
                status,
                followed,
            });
        }
        self.check_budget();
        doc
    }

    /// Whether a page met as a target is collected: with an example page, verified (the
    /// user's verdicts, then θ, then the heading rule just below it). The verdict, or why the
    /// page is refused.
    fn judge(&mut self, url: &str, page: &Page) -> Result<Judged, String> {
        // A directory judged unlike the example's is told by the URL alone: refused whether
        // the crawl verifies or not.
        if unlike_directory(&self.state.pattern, url) {
            return Err("in a directory marked not like the example's".to_string());
        }
        let new = !self.known.contains(url);
        let check = new || !self.state.config.verify_new_only;
        let Some(ex) = self.example.as_mut().filter(|_| check) else {
            return Ok(Judged {
                new,
                similarity: None,
                verified: None,
                by_heading: false,
            });
        };
        let mut v = ex.compare(page);
        if v.place_agreement < 1.0 && self.known_places.contains(&crate::similarity::place(url)) {
            v.score = v.comparison.similarity * v.kind_agreement;
            v.place_agreement = 1.0;
            v.similar = v.score >= v.threshold;
        }
        // The user's verdicts stand over θ. Within the band below θ, a page learning took for
        // its heading (listed in the pattern) stays taken, and any other — new, or a known
        // target whose score fell since — is taken by the heading rule learning applied.
        // Further below, the page has changed kind (a removed item's notice): refused whatever
        // learning said of it. A page of a kind the user judged unlike the example (by its
        // heading) is refused, as learning left such targets out.
        let pattern = &self.state.pattern;
        let corrections = &pattern.corrections;
        let liked = corrections.like.iter().any(|u| u == url)
            || pattern
                .heading_rule
                .as_ref()
                .is_some_and(|rule| rule.likes(url, &page.heading))
                && !corrections.unlike.iter().any(|u| u == url)
                && !unlike_kind(pattern, url, &page.heading)
                && !unlike_language(pattern, url, &page.lang);
        let mut by_heading = false;
        if liked {
            // Taken whatever its score.
        } else if corrections.unlike.iter().any(|u| u == url) {
            return Err("marked not like the example".to_string());
        } else if unlike_kind(pattern, url, &page.heading) {
            return Err("headed as a kind marked not like the example".to_string());
        } else if unlike_language(pattern, url, &page.lang) {
            return Err(format!(
                "in a language marked not like the example's ({})",
                page.lang
            ));
        } else if !v.similar {
            by_heading = v.score >= v.threshold - crate::review::heading::WELL_BELOW
                && (pattern.by_heading.iter().any(|u| u == url)
                    || pattern
                        .heading_rule
                        .as_ref()
                        .is_some_and(|rule| rule.takes(url, &page.heading)));
            if !by_heading {
                return Err(format!("not similar to the example ({:.3})", v.score));
            }
        }
        Ok(Judged {
            new,
            similarity: Some(v.score),
            verified: Some(true),
            by_heading,
        })
    }

    /// Counts a target and hands it to the driver.
    #[allow(clippy::too_many_arguments)]
    fn collect(
        &mut self,
        url: String,
        final_url: String,
        r: FetchResponse,
        page: &Page,
        judged: Judged,
        found_on_level: usize,
        now_ms: u64,
    ) {
        self.state.progress.targets += 1;
        if judged.new {
            self.state.progress.new_targets += 1;
        }
        if judged.by_heading {
            self.state.progress.by_heading += 1;
        }
        self.state.targets.push(url.clone());
        self.events.push_back(Event::Target(Box::new(TargetPage {
            url,
            final_url,
            status: r.status,
            headers: r.headers,
            body: r.body,
            title: page.title.clone(),
            heading: page.heading.clone(),
            lang: page.lang.clone(),
            canonical: page.canonical.clone(),
            similarity: judged.similarity,
            verified: judged.verified,
            found_on_level,
            new: judged.new,
            by_heading: judged.by_heading,
            fetched_at_ms: now_ms,
            text_digest: text_digest(page),
        })));
    }

    fn check_budget(&mut self) {
        if self.state.progress.fetched + self.state.progress.scripts >= self.state.config.max_pages
        {
            self.stop(StopReason::MaxPages);
        }
    }

    /// The same-site scripts `page` (queued as `item`) includes, when the pattern reads them:
    /// the page URLs of those already read are followed now as the page's links, the others
    /// are asked (first) and followed when they arrive.
    fn include_scripts(&mut self, page: &Page, item: &Item) {
        if !self.state.pattern.script_links || self.state.stopped.is_some() {
            return;
        }
        let scripts: Vec<String> =
            script_links::included(page, |u| self.scope.contains(u)).collect();
        for url in scripts {
            let waiter = ScriptWaiter {
                item: item.clone(),
                base: page.base.clone(),
            };
            let max = self.state.config.max_scripts;
            match self.state.scripts.include(&url, waiter, max) {
                Include::Read => {
                    let links = self.state.scripts.resolved(&url, &page.base).to_vec();
                    self.expand(links, item);
                }
                Include::Ask => {
                    let ask = Item {
                        script: true,
                        ..item.clone()
                    };
                    if !self.state.frontier.push_first(url.clone(), ask) {
                        self.script_answered(&url, Err("already fetched as a page".into()));
                    }
                }
                Include::Waiting | Include::Over => {}
            }
        }
    }

    /// A script's outcome: its page URLs are followed from every page that waited for it.
    fn script_answered(&mut self, url: &str, outcome: Result<Vec<String>, String>) {
        for w in self.state.scripts.answer(url, outcome) {
            let links = self.state.scripts.resolved(url, &w.base).to_vec();
            self.expand(links, &w.item);
        }
    }

    fn expand(&mut self, links: Vec<Option<String>>, item: &Item) -> usize {
        if self.state.stopped.is_some() {
            return 0;
        }
        let mut followed = 0;
        // Only a query's result pages pass it on: what they link is what the query returned.
        let query = if item.doc { None } else { item.query };
        for url in links.into_iter().flatten() {
            if self.state.frontier.is_seen(&url) || !self.scope.contains(&url) {
                continue;
            }
            let next = match self.compiled.step(item.level, &url) {
                None => continue,
                // Refused by its URL alone ([`Crawler::judge`]), and a refused target is not
                // expanded: nothing to fetch it for.
                Some(Step::Target) if unlike_directory(&self.state.pattern, &url) => {
                    self.state.frontier.mark_seen(&url);
                    self.state.progress.rejected += 1;
                    self.events.push_back(Event::Skipped {
                        url,
                        reason: "matches the last level but is in a directory marked not like the example's (not fetched)".into(),
                    });
                    continue;
                }
                Some(Step::Target) => Item {
                    level: item.level,
                    hops: 0,
                    target: true,
                    query,
                    script: false,
                    sitemap: false,
                    doc: query.is_some(),
                },
                Some(Step::Level { level, paginated }) => {
                    let hops = if paginated {
                        item.hops.saturating_add(1)
                    } else {
                        0
                    };
                    // A form level's pagination is its result pages: a few per query.
                    let max = match self.run_for_results(level) {
                        Some(run) if paginated => run.max_result_pages.saturating_sub(1),
                        _ => self.state.pattern.max_pagination,
                    };
                    if hops > max {
                        continue;
                    }
                    Item {
                        level,
                        hops,
                        target: false,
                        query,
                        script: false,
                        sitemap: false,
                        doc: query.is_some() && !paginated,
                    }
                }
            };
            if let Some(reason) = self.state.traps.check(&url) {
                self.state.progress.skipped += 1;
                self.events.push_back(Event::Skipped {
                    url,
                    reason: format!("trap guard: {reason:?}"),
                });
                continue;
            }
            if self.state.frontier.push(url, next) {
                followed += 1;
                if let Some(r) = query {
                    self.query_queued(r);
                }
            }
        }
        followed
    }

    /// Queues sitemaps (named by robots.txt or listed by an index) on the crawl's site or on a
    /// host its robots.txt names sitemaps on, each once, at most [`MAX_SITEMAPS`] in all;
    /// those on other hosts are passed over, said so.
    fn queue_sitemaps(&mut self, urls: Vec<String>) {
        let hosts = &self.state.sitemap_hosts;
        let (read, refused) = crate::sitemap::admit_all(
            urls,
            &mut self.state.sitemap_urls,
            |u| self.scope.contains(u),
            |h| hosts.contains(h),
        );
        for url in read {
            let item = Item {
                sitemap: true,
                ..Item::start()
            };
            // A page may have linked it: fetched then as a page, it is asked again.
            self.state.frontier.push_again(url, item);
        }
        for (url, why) in refused {
            self.sitemap_skipped(url, why);
        }
    }

    /// A sitemap's answer: an index's sitemaps are queued, a sitemap's URLs followed as the
    /// start page's links are (targets where the last level matches them, listings where the
    /// first does). A body cut at the size limit is read as far as it goes.
    fn read_sitemap(&mut self, url: String, result: FetchResult) {
        if let FetchResult::Response(r) = &result {
            self.state.progress.bytes += r.body.len() as u64;
        }
        let sitemap = match crate::sitemap::read(&result) {
            Ok(s) => s,
            Err(e) => {
                self.sitemap_skipped(url, format!("sitemap not read: {e}"));
                return;
            }
        };
        let status = match &result {
            FetchResult::Response(r) => r.status,
            FetchResult::Failed(_) => 0,
        };
        if sitemap.truncated {
            self.events
                .push_back(Event::SitemapSkipped(crate::sitemap::NotRead {
                    url: url.clone(),
                    reason: crate::sitemap::truncated_note(),
                    unreachable: false,
                }));
        }
        let followed = match sitemap.kind {
            crate::sitemap::Kind::Index => {
                self.queue_sitemaps(sitemap.urls);
                0
            }
            // The page budget bounds what is queued: a site listing millions of pages in its
            // sitemaps must not fill the frontier (memory) beyond what the crawl may fetch.
            crate::sitemap::Kind::Pages
                if self.state.progress.fetched + self.state.frontier.queued()
                    >= self.state.config.max_pages =>
            {
                self.sitemap_skipped(
                    url,
                    "sitemap not read: the page budget is queued already".into(),
                );
                return;
            }
            crate::sitemap::Kind::Pages => {
                let links = sitemap
                    .urls
                    .iter()
                    .map(|u| canon::canonicalize(u))
                    .collect();
                let followed = self.expand(links, &Item::start());
                self.state.progress.sitemap_links += followed;
                followed
            }
        };
        self.state.progress.sitemaps += 1;
        self.events.push_back(Event::Page {
            url,
            level: 0,
            status,
            followed,
        });
    }

    fn error(
        &mut self,
        url: String,
        level: usize,
        status: u16,
        reason: String,
    ) -> Option<DocTerms> {
        self.state.progress.errors += 1;
        self.events.push_back(Event::Page {
            url: url.clone(),
            level,
            status,
            followed: 0,
        });
        self.events.push_back(Event::Skipped { url, reason });
        None
    }

    /// `url` answered with the page `of` already collected or seen: an alias of it, skipped.
    fn copy_of(&mut self, url: String, of: String) -> Option<DocTerms> {
        let why = format!("same content as {of}");
        self.alias_of(url, of, why)
    }

    /// `url` is the page `of` under another URL: skipped, remembered for coverage.
    fn alias_of(&mut self, url: String, of: String, why: String) -> Option<DocTerms> {
        self.state.aliases.insert(url.clone(), of);
        self.skip(url, why)
    }

    fn skip(&mut self, url: String, reason: String) -> Option<DocTerms> {
        self.state.progress.skipped += 1;
        self.events.push_back(Event::Skipped { url, reason });
        None
    }

    /// A sitemap not read for `reason`, said so and counted as skipped.
    fn sitemap_skipped(&mut self, url: String, reason: String) {
        self.state.progress.skipped += 1;
        let not_read = crate::sitemap::NotRead::new(&self.state.frontier, url, reason);
        self.events.push_back(Event::SitemapSkipped(not_read));
    }
}

/// Whether a page is of a kind the user's verdicts left out: learning left it out
/// ([`Pattern::unlike_by_heading`]), or its heading follows a template judged unlike the example
/// ([`crate::review::heading::HeadingRule::refuses`]).
/// The example is like itself whatever its kind.
fn unlike_kind(pattern: &Pattern, url: &str, heading: &str) -> bool {
    let of_kind = pattern.unlike_by_heading.iter().any(|u| u == url)
        || pattern
            .heading_rule
            .as_ref()
            .is_some_and(|rule| rule.refuses(url, heading));
    of_kind && canon::canonicalize(&pattern.example).as_deref() != Some(url)
}

/// Whether a page is in a language the user's verdicts left out: learning left it out
/// ([`Pattern::unlike_by_language`]), or it declares a language judged unlike the example's
/// ([`crate::review::language::refused`]). The example is like itself whatever its language.
fn unlike_language(pattern: &Pattern, url: &str, lang: &str) -> bool {
    let left_out = pattern.unlike_by_language.iter().any(|u| u == url)
        || crate::review::language::refused(&pattern.corrections.unlike_languages, lang);
    left_out && canon::canonicalize(&pattern.example).as_deref() != Some(url)
}

/// Whether a page lies in a directory the user's verdicts left out: learning left it out
/// ([`Pattern::unlike_by_directory`]), or its directory is judged unlike the example's
/// ([`crate::review::directory::refused`]). The example is like itself wherever it lies, and so is a
/// page judged like it.
fn unlike_directory(pattern: &Pattern, url: &str) -> bool {
    let left_out = pattern.unlike_by_directory.iter().any(|u| u == url)
        || crate::review::directory::refused(&pattern.corrections.unlike_directories, url);
    left_out
        && canon::canonicalize(&pattern.example).as_deref() != Some(url)
        && !pattern.corrections.like.iter().any(|u| u == url)
}

impl Machine for Crawler {
    fn poll(&mut self, now_ms: u64) -> Poll {
        Crawler::poll(self, now_ms)
    }
    fn handle(&mut self, id: u64, result: FetchResult, now_ms: u64) {
        Crawler::handle(self, id, result, now_ms)
    }
    fn cancel(&mut self) {
        Crawler::cancel(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::FetchResponse;
    use crate::mapper::{MapConfig, Mapper};
    use crate::pattern::{self, LearnConfig};

    fn html(body: String) -> FetchResult {
        FetchResult::Response(FetchResponse {
            status: 200,
            final_url: String::new(),
            headers: vec![("content-type".into(), "text/html".into())],
            body: body.into_bytes(),
            truncated: false,
        })
    }

    /// An in-memory site: `/` → `/list?p=1..4` (each page links the next) → `/item/N`.
    fn site(url: &str, items: usize) -> FetchResult {
        let path = url.trim_start_matches("http://mem.test");
        let page = |title: &str, body: &str| {
            html(format!(
                "<html><head><title>{title}</title></head><body><nav><a href='/'>home</a></nav>{body}</body></html>"
            ))
        };
        if path == "/" {
            return page(
                "Home",
                "<p>Welcome</p><a href='/list?p=1'>catalogue</a><a href='/about'>about</a>",
            );
        }
        if path == "/about" {
            return page("About", "<p>About us</p>");
        }
        if let Some(p) = path.strip_prefix("/list?p=") {
            let p: usize = p.parse().unwrap_or(0);
            let pages = items.div_ceil(5);
            if p == 0 || p > pages {
                return FetchResult::Response(FetchResponse {
                    status: 404,
                    ..FetchResponse::default()
                });
            }
            let mut body = String::from("<ul class=items>");
            for i in (p - 1) * 5 + 1..=(p * 5).min(items) {
                body += &format!("<li><a href='/item/{i}'>item {i}</a></li>");
            }
            body += "</ul>";
            if p < pages {
                body += &format!("<a class=next href='/list?p={}'>next</a>", p + 1);
            }
            return page(&format!("List {p}"), &body);
        }
        if let Some(i) = path.strip_prefix("/item/") {
            return page(
                &format!("Item {i}"),
                &format!(
                    "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>price</td><td>{i}</td></tr></table><p class=d>text {i}</p></div>"
                ),
            );
        }
        if path == "/robots.txt" {
            return FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            });
        }
        FetchResult::Response(FetchResponse {
            status: 404,
            ..FetchResponse::default()
        })
    }

    fn learn(items: usize) -> Pattern {
        learn_on(&|url: &str| site(url, items), "http://mem.test/item/1")
    }

    /// Maps an in-memory site from `http://mem.test/` with `example` and learns its pattern.
    fn learn_on(site: &dyn Fn(&str) -> FetchResult, example: &str) -> Pattern {
        learn_from(site, "http://mem.test/", example)
    }

    /// The example page `url` as an in-memory site serves it.
    fn example_of(site: &dyn Fn(&str) -> FetchResult, url: &str) -> ExamplePage {
        ExamplePage {
            url: url.into(),
            body: match site(url) {
                FetchResult::Response(r) => r.body,
                FetchResult::Failed(_) => Vec::new(),
            },
            content_type: None,
        }
    }

    /// Maps an in-memory site from `entry` with `example` and learns its pattern.
    fn learn_from(site: &dyn Fn(&str) -> FetchResult, entry: &str, example: &str) -> Pattern {
        let example = example_of(site, example);
        let mut m = Mapper::new(entry, example, MapConfig::default()).expect("mapper");
        let mut now = 0;
        loop {
            match m.poll(now) {
                Poll::Fetch(r) => m.handle(r.id, site(&r.url), now),
                Poll::WaitUntil(t) => now = t,
                Poll::Busy => panic!("synchronous driver"),
                Poll::Done => break,
            }
        }
        let politeness = m.config().politeness.clone();
        let map = m.into_site_map();
        pattern::learn(
            &map,
            crate::canon::Scope::for_url(entry, false).expect("scope"),
            politeness,
            Default::default(),
            &LearnConfig::default(),
            0,
        )
        .expect("pattern")
    }

    /// Runs a crawler to the end with injected time; `stop_after` results it is snapshotted,
    /// dropped and restored (in-flight requests lost with the old driver).
    fn run(c: Crawler, items: usize, stop_after: Option<usize>) -> (Vec<String>, Crawler) {
        run_on(c, &|url: &str| site(url, items), stop_after)
    }

    fn run_on(
        mut c: Crawler,
        site: &dyn Fn(&str) -> FetchResult,
        stop_after: Option<usize>,
    ) -> (Vec<String>, Crawler) {
        let mut now = 1_000;
        let mut handled = 0;
        let mut pending: Vec<(u64, String)> = Vec::new();
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps < 10_000, "bounded");
            match c.poll(now) {
                Poll::Fetch(r) => {
                    pending.push((r.id, r.url));
                    continue;
                }
                Poll::WaitUntil(t) if pending.is_empty() => {
                    now = t;
                    continue;
                }
                Poll::Done => break,
                _ => {}
            }
            // Answer the oldest request, 10 ms later.
            now += 10;
            let (id, url) = pending.remove(0);
            c.handle(id, site(&url), now);
            handled += 1;
            if Some(handled) == stop_after {
                let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
                let snap: Snapshot = serde_json::from_str(&json).expect("restore json");
                c = Crawler::restore(snap).expect("restore");
                pending.clear();
            }
        }
        (c.targets().to_vec(), c)
    }

    /// Runs a crawler to the end, one request at a time; the target pages it handed out, with
    /// their flags, and the crawler.
    fn target_pages(
        mut c: Crawler,
        site: &dyn Fn(&str) -> FetchResult,
    ) -> (Vec<TargetPage>, Crawler) {
        let mut now = 0;
        let mut pages = Vec::new();
        for _ in 0..10_000 {
            let polled = c.poll(now);
            // Results are taken inside poll too: its events are read before it ends the run.
            for e in c.drain_events() {
                if let Event::Target(t) = e {
                    pages.push(*t);
                }
            }
            match polled {
                Poll::Fetch(r) => c.handle(r.id, site(&r.url), now),
                Poll::WaitUntil(t) => now = t,
                Poll::Busy => panic!("synchronous driver"),
                Poll::Done => return (pages, c),
            }
        }
        panic!("unbounded crawl");
    }

    #[test]
    fn crawls_pagination_and_reports_coverage_and_new_pages() {
        let p = learn(12);
        assert_eq!(p.levels.len(), 2, "{}", p.render());
        assert!(p.levels[0].paginate, "{}", p.render());
        let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
        let (targets, c) = run(c, 12, None);
        assert_eq!(targets.len(), 12);
        let cov = c.coverage();
        assert_eq!((cov.known, cov.reached, cov.new.len()), (12, 12, 0));
        // The site grows: the same pattern finds the new items, reported as new.
        let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
        let (targets, c) = run(c, 23, None);
        assert_eq!(targets.len(), 23);
        assert_eq!(c.coverage().new.len(), 11);
        assert_eq!(
            c.progress().fetched,
            1 + 5 + 23,
            "home, five list pages, items only"
        );
    }

    /// A target's text digest is what the page says: the same under other markup, scripts and
    /// styles, another when a word, a number or the title changes.
    #[test]
    fn the_text_digest_follows_the_text_not_the_markup() {
        let digest = |html: &str| {
            let page = Page::parse(
                html.as_bytes(),
                "http://h/a",
                None,
                &ParseOptions::default(),
            )
            .expect("parse");
            text_digest(&page)
        };
        let base = digest("<title>Item</title><p>Price: 10 EUR</p><p>Blue</p>");
        assert_eq!(base.len(), 16);
        assert!(base.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(
            base,
            digest(
                "<title>Item</title><style>p{}</style><div class=x><p>Price:\n 10 EUR</p>\
                 <script>var t = 1;</script><p>Blue</p></div>"
            )
        );
        assert_ne!(
            base,
            digest("<title>Item</title><p>Price: 12 EUR</p><p>Blue</p>")
        );
        assert_ne!(
            base,
            digest("<title>Item 2</title><p>Price: 10 EUR</p><p>Blue</p>")
        );
    }

    #[test]
    fn snapshot_restore_mid_crawl_loses_nothing() {
        let p = learn(20);
        let clean = run(
            Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c"),
            20,
            None,
        )
        .0;
        for stop in [1, 3, 7, 15] {
            let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c");
            let (got, _) = run(c, 20, Some(stop));
            let (mut a, mut b) = (clean.clone(), got.clone());
            a.sort();
            b.sort();
            assert_eq!(a, b, "restored after {stop} results");
        }
    }

    /// A site whose only way in is a script: the home page includes `/nav.js`, which names the
    /// first of three listing pages (`/list/N.html`, each linking the next) of 12 items.
    fn scripted_site(url: &str) -> FetchResult {
        let path = url.trim_start_matches("http://mem.test");
        let head = "<head><script src='/nav.js'></script><title>t</title></head>";
        let page = |body: &str| html(format!("<html>{head}<body>{body}</body></html>"));
        if path == "/nav.js" {
            return FetchResult::Response(FetchResponse {
                status: 200,
                headers: vec![("content-type".into(), "text/javascript".into())],
                body: br#"var menu = [{text: "Catalogue", url: "/list/1.html"}];"#.to_vec(),
                ..FetchResponse::default()
            });
        }
        if path == "/" {
            return page("<p>Welcome</p>");
        }
        if let Some(p) = path.strip_prefix("/list/") {
            let p: usize = p.trim_end_matches(".html").parse().unwrap_or(0);
            if !(1..=3).contains(&p) {
                return site(url, 0);
            }
            let mut body = String::from("<ul class=items>");
            for i in (p - 1) * 4 + 1..=p * 4 {
                body += &format!("<li><a href='/item/{i}.html'>item {i}</a></li>");
            }
            body += "</ul>";
            if p < 3 {
                body += &format!("<a class=next href='/list/{}.html'>next</a>", p + 1);
            }
            return page(&body);
        }
        if let Some(i) = path.strip_prefix("/item/") {
            // Words, not numbers: pages differing only in digits are one page to the mapper.
            let words = [
                "ash", "birch", "cedar", "elm", "fir", "hazel", "larch", "lime",
            ];
            let i: usize = i.trim_end_matches(".html").parse().unwrap_or(0);
            let i = format!("{} {}", words[i % 8], words[i / 8 % 8]);
            return page(&format!(
                "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>price</td><td>{i}</td></tr></table><p class=d>text {i}</p></div>"
            ));
        }
        site(url, 0)
    }

    /// A crawl snapshotted while the script it needs is in flight asks the script again after
    /// the restore, and the pages that were waiting for it still get its links.
    #[test]
    fn snapshot_restore_with_a_script_in_flight_loses_nothing() {
        let p = learn_on(&scripted_site, "http://mem.test/item/1.html");
        assert!(p.script_links, "{}", p.render());
        let clean = run_on(
            Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c"),
            &scripted_site,
            None,
        );
        assert_eq!(clean.0.len(), 12, "{:?}", clean.0);
        assert_eq!(clean.1.progress().scripts, 1);

        // Run until the script is asked, snapshot with it in flight, drop the crawler.
        let mut c = Crawler::new(p, CrawlConfig::default(), None).expect("c");
        let mut now = 1_000;
        loop {
            match c.poll(now) {
                Poll::Fetch(r) if r.kind == RequestKind::Script => break,
                Poll::Fetch(r) => c.handle(r.id, scripted_site(&r.url), now),
                Poll::WaitUntil(t) => now = t,
                other => panic!("nav.js never asked: {other:?}"),
            }
        }
        let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
        assert!(
            json.contains("nav.js"),
            "the waiting page is in the snapshot"
        );
        let r = Crawler::restore(serde_json::from_str(&json).expect("read")).expect("restore");
        let (mut got, r) = run_on(r, &scripted_site, None);
        let mut want = clean.0;
        got.sort();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(r.progress().scripts, 1, "asked again once, answered once");
    }

    /// A snapshot whose queued requests name a level the pattern does not have is refused.
    #[test]
    fn inconsistent_snapshots_are_refused() {
        let mut c = Crawler::new(learn(12), CrawlConfig::default(), None).expect("crawler");
        let Poll::Fetch(r) = c.poll(0) else {
            panic!("the start page first")
        };
        c.handle(r.id, site(&r.url, 12), 0);
        let good = serde_json::to_value(c.snapshot()).expect("snapshot");
        let restore = |v: &serde_json::Value| {
            let snap: Snapshot = serde_json::from_value(v.clone()).expect("deserialises");
            Crawler::restore(snap)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(restore(&good), Ok(()));
        let mut bad = good.clone();
        bad["frontier"]["queue"][0]["item"]["level"] = serde_json::json!(9);
        let err = restore(&bad).expect_err("a level beyond the pattern");
        assert!(
            err.contains("inconsistent snapshot: a queued request is for level 9"),
            "{err}"
        );
        let mut bad = good;
        bad["frontier"]["queue"][0]["item"]["query"] = serde_json::json!(3);
        let err = restore(&bad).expect_err("a form run that does not exist");
        assert!(err.contains("belongs to form run 3"), "{err}");
    }

    /// A crawl saved after 4 s of a 10 s budget and restored much later runs 6 s more.
    #[test]
    fn the_time_budget_counts_running_time_across_a_restore() {
        let config = CrawlConfig {
            max_duration_ms: Some(10_000),
            ..CrawlConfig::default()
        };
        let mut c = Crawler::new(learn(12), config, None).expect("crawler");
        let t0 = 50_000;
        let Poll::Fetch(r) = c.poll(t0) else {
            panic!("the start page first")
        };
        c.handle(r.id, site(&r.url, 12), t0);
        c.poll(t0 + 4_000);
        let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
        let snap: Snapshot = serde_json::from_str(&json).expect("restore json");
        let mut r = Crawler::restore(snap).expect("restore");
        let later = t0 + 7_200_000;
        // What was left of the host's delay when saved is waited (250 ms; the clock moved).
        assert_eq!(r.poll(later), Poll::WaitUntil(later + 250));
        assert_eq!((r.stopped(), r.progress().elapsed_ms), (None, 4_000));
        assert!(matches!(r.poll(later + 250), Poll::Fetch(_)));
        r.poll(later + 5_999);
        assert_eq!(r.stopped(), None);
        r.poll(later + 6_000);
        assert_eq!(r.stopped(), Some(StopReason::MaxDuration));
    }

    /// Started from the example page ("This page" in the extension): the entry is collected
    /// with the other targets, once, and navigation still starts from it. With verification,
    /// an entry that no longer looks like the example (its item removed) is not collected, and
    /// its links are still followed.
    #[test]
    fn an_entry_like_the_example_is_collected_and_still_followed() {
        let item = |i: usize| format!("http://mem.test/item/{i}");
        let p = learn_from(&|url: &str| site(url, 6), &item(1), &item(1));
        assert!(p.entry_target, "{}", p.render());
        let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
        let (mut targets, c) = run(c, 6, None);
        targets.sort();
        assert_eq!(targets, (1..=6).map(item).collect::<Vec<_>>());
        let cov = c.coverage();
        assert_eq!((cov.known, cov.reached, cov.new.len()), (6, 6, 0));
        // Without the flag (a pattern learned before it existed), the entry is a listing only.
        let mut old = p.clone();
        old.entry_target = false;
        let (targets, _) = run(
            Crawler::new(old, CrawlConfig::default(), None).expect("c"),
            6,
            None,
        );
        assert_eq!(targets.len(), 5);
        assert!(!targets.contains(&item(1)));
        // The entry's item is removed: a notice page, still linking home.
        let changed = |url: &str| {
            if url == item(1) {
                html(
                    "<html><body><p>This item was sold.</p><a href='/'>home</a></body></html>"
                        .into(),
                )
            } else {
                site(url, 6)
            }
        };
        let example = example_of(&|u| site(u, 6), &item(2));
        let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
        let (mut targets, mut c) = run_on(c, &changed, None);
        targets.sort();
        assert_eq!(targets, (2..=6).map(item).collect::<Vec<_>>());
        assert_eq!((c.progress().rejected, c.progress().skipped), (1, 0));
        let refused: Vec<String> = c
            .drain_events()
            .into_iter()
            .filter_map(|e| match e {
                Event::Skipped { url, reason } if url == item(1) => Some(reason),
                _ => None,
            })
            .collect();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0]
                .starts_with("the entry page is followed but not collected: it is not similar"),
            "{refused:?}"
        );
    }

    #[test]
    fn verification_rejects_pages_unlike_the_example() {
        let p = learn(6);
        let example = ExamplePage {
            url: "http://mem.test/about".into(),
            body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>"
                .to_vec(),
            content_type: None,
        };
        let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
        let (targets, c) = run(c, 6, None);
        assert!(targets.is_empty());
        assert_eq!(c.progress().rejected, 6);
    }

    /// An example saved outside the targets' directory: verification does not mark the targets
    /// down for their place, since learning found targets there (as mapping scores a directory
    /// of look-alikes).
    #[test]
    fn verification_trusts_the_directories_of_known_targets() {
        let mut p = learn(6);
        // θ 0.95: with the place weight the items would score 0.9.
        p.similarity.threshold = 0.95;
        let body = match site("http://mem.test/item/1", 6) {
            FetchResult::Response(r) => r.body,
            FetchResult::Failed(_) => Vec::new(),
        };
        let example = ExamplePage {
            url: "http://mem.test/saved/item-1".into(),
            body,
            content_type: None,
        };
        let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
        let (targets, c) = run(c, 6, None);
        assert_eq!(targets.len(), 6);
        assert_eq!(c.progress().rejected, 0);
    }

    /// The same bytes under two URLs are one page to a crawl too, however their relative links
    /// resolve: item 5 answers with item 2's page, whose `?print=1` link reads
    /// `/item/5?print=1` there, so only the bytes tell the copy. It is skipped as an alias.
    #[test]
    fn the_same_bytes_under_another_url_are_skipped_as_a_copy() {
        let p = learn(6);
        let copy = |url: &str| {
            let path = url.trim_start_matches("http://mem.test");
            match path {
                "/item/2" | "/item/5" => html(
                    "<html><head><title>Item 2</title></head><body><nav><a href='/'>home</a></nav>\
                     <div class=item><h1>Item 2</h1><table class=spec><tr><td>price</td><td>2</td>\
                     </tr></table><p class=d>text 2</p><a href='?print=1'>print</a></div></body></html>"
                        .to_string(),
                ),
                _ => site(url, 6),
            }
        };
        let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
        let (pages, c) = target_pages(c, &copy);
        let urls: Vec<&str> = pages.iter().map(|t| t.url.as_str()).collect();
        assert_eq!(urls.len(), 5, "{urls:?}");
        let (first, second) = ("http://mem.test/item/2", "http://mem.test/item/5");
        assert!(urls.contains(&first) != urls.contains(&second), "{urls:?}");
        let (kept, alias) = if urls.contains(&first) {
            (first, second)
        } else {
            (second, first)
        };
        assert_eq!(c.state.aliases.get(alias).map(String::as_str), Some(kept));
    }

    /// A known target met under another of its URLs (recorded as an alias while learning) is
    /// neither new nor checked when only new pages are verified.
    #[test]
    fn known_aliases_are_not_new() {
        let mut p = learn(6);
        let at = p
            .known_targets
            .iter()
            .position(|u| u.ends_with("/item/3"))
            .expect("item 3 known");
        let item3 = p.known_targets.remove(at);
        // Known as `/item/3?ref=home`, met while learning as `/item/3` too.
        p.known_targets.push(format!("{item3}?ref=home"));
        p.known_aliases.push(item3.clone());
        let config = CrawlConfig {
            verify_new_only: true,
            ..CrawlConfig::default()
        };
        // An example unlike the items: a page that were checked would be refused.
        let unlike_example = ExamplePage {
            url: "http://mem.test/about".into(),
            body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>"
                .to_vec(),
            content_type: None,
        };
        let c = Crawler::new(p, config, Some(unlike_example)).expect("crawler");
        let (pages, c) = target_pages(c, &|url: &str| site(url, 6));
        assert_eq!(pages.len(), 6);
        let flags: Vec<_> = pages
            .into_iter()
            .map(|t| (t.url, t.new, t.verified))
            .collect();
        let item = flags
            .iter()
            .find(|f| f.0 == item3)
            .expect("item 3 collected");
        assert_eq!(
            (item.1, item.2),
            (false, None),
            "known under an alias: {flags:?}"
        );
        assert!(flags.iter().all(|f| !f.1), "nothing new: {flags:?}");
        assert_eq!(c.coverage().new, Vec::<String>::new());
    }

    #[test]
    fn verifying_new_pages_only_trusts_the_known_targets() {
        let p = learn(6);
        assert_eq!(p.known_targets.len(), 6);
        let unlike_example = || ExamplePage {
            url: "http://mem.test/about".into(),
            body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>"
                .to_vec(),
            content_type: None,
        };
        let config = CrawlConfig {
            verify_new_only: true,
            ..CrawlConfig::default()
        };
        // The six items known from learning are collected unchecked.
        let c = Crawler::new(p.clone(), config.clone(), Some(unlike_example())).expect("crawler");
        let (targets, c) = run(c, 6, None);
        assert_eq!(targets.len(), 6);
        assert_eq!(c.progress().rejected, 0);
        // Three new items: checked, and (unlike this example) refused.
        let c = Crawler::new(p, config, Some(unlike_example())).expect("crawler");
        let (targets, c) = run(c, 9, None);
        assert_eq!(targets.len(), 6, "{targets:?}");
        assert_eq!(c.progress().rejected, 3);
        assert_eq!(c.progress().new_targets, 0);
    }

    /// The in-memory site of [`site`] with six items named by words (`/item/bravo`, heading
    /// "Item bravo"): headings name their page, as [`crate::review::heading`] needs.
    fn named_site(url: &str) -> FetchResult {
        const NAMES: [&str; 6] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
        let url = match url.rsplit_once("/item/") {
            Some((head, name)) => match NAMES.iter().position(|n| *n == name) {
                Some(i) => format!("{head}/item/{}", i + 1),
                None => return site("http://mem.test/missing", 6),
            },
            None => url.to_string(),
        };
        match site(&url, 6) {
            FetchResult::Response(mut r) => {
                let mut body = String::from_utf8_lossy(&r.body).into_owned();
                for (i, name) in NAMES.iter().enumerate() {
                    body = body
                        .replace(&format!("/item/{}'", i + 1), &format!("/item/{name}'"))
                        .replace(&format!(">Item {}<", i + 1), &format!(">Item {name}<"));
                }
                r.body = body.into_bytes();
                FetchResult::Response(r)
            }
            failed => failed,
        }
    }

    /// With every page verified, a known target whose score fell just below θ since learning is
    /// taken when its heading follows the targets' template, as a new page would be, and marked;
    /// below the band, or without the rule, it is refused.
    #[test]
    fn verification_takes_known_targets_just_below_theta_by_their_heading() {
        let mut p = learn_on(&named_site, "http://mem.test/item/alpha");
        assert_eq!(p.known_targets.len(), 6);
        // The example an item gained a block since: the items now score below 1.
        let example = || ExamplePage {
            url: "http://mem.test/item/alpha".into(),
            body: b"<html><head><title>Item alpha</title></head><body><nav><a href='/'>home</a>\
                </nav><div class=item><h1>Item alpha</h1><table class=spec><tr><td>price</td>\
                <td>1</td></tr></table><p class=d>text 1</p><div class=reviews><h2>Reviews</h2>\
                <ol><li>good</li></ol></div></div><aside class=related><h2>Related</h2><ul><li>\
                <a href='/about'>about</a></li></ul></aside><footer class=site><p>shop</p>\
                </footer></body></html>"
                .to_vec(),
            content_type: None,
        };
        let crawl = |p: &Pattern| {
            let c =
                Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler");
            let (pages, c) = target_pages(c, &named_site);
            (pages, c.progress())
        };
        // θ 0 to read the items' score.
        p.similarity.threshold = 0.0;
        let (pages, _) = crawl(&p);
        assert_eq!(pages.len(), 6);
        let score = pages
            .iter()
            .filter_map(|t| t.similarity)
            .fold(f64::MAX, f64::min);
        assert!(score < 0.85, "the items score {score}");
        // θ a little above the items' score: every known target falls in the band.
        p.similarity.threshold = score + 0.05;
        let (pages, progress) = crawl(&p);
        assert!(pages.is_empty(), "no rule: judged by θ alone");
        assert_eq!(progress.rejected, 6);
        p.heading_rule = Some(crate::review::heading::HeadingRule {
            templates: vec!["Item *".into()],
            unlike: vec![],
            like: vec![],
            kind_words: vec!["item".into()],
            common: vec![],
            frequent: None,
            qualified: false,
            whole_names: false,
            sections: false,
        });
        let (pages, progress) = crawl(&p);
        assert_eq!(pages.len(), 6, "taken for their heading");
        assert!(
            pages.iter().all(|t| t.by_heading && !t.new),
            "marked, known"
        );
        assert_eq!(
            (progress.by_heading, progress.new_targets, progress.rejected),
            (6, 0, 0)
        );
        // Listed by learning as taken for their heading, without the rule: still taken in the
        // band.
        let rule = p.heading_rule.take();
        p.by_heading = p.known_targets.clone();
        let (pages, progress) = crawl(&p);
        assert_eq!((pages.len(), progress.by_heading), (6, 6));
        // Further below θ than the band: refused whatever the heading or the list.
        p.heading_rule = rule;
        p.similarity.threshold = (score + crate::review::heading::WELL_BELOW + 0.02).min(1.0);
        let (pages, progress) = crawl(&p);
        assert!(pages.is_empty());
        assert_eq!((progress.by_heading, progress.rejected), (0, 6));
    }

    /// A kind the user judged unlike the example: a verifying crawl refuses the targets learning
    /// left out for it, and any page whose heading follows its template, whatever the score.
    #[test]
    fn verification_refuses_the_kinds_judged_unlike() {
        let mut p = learn_on(&named_site, "http://mem.test/item/alpha");
        p.similarity.threshold = 0.0;
        let example = || example_of(&named_site, "http://mem.test/item/alpha");
        let crawl = |p: &Pattern| {
            let (pages, c) = target_pages(
                Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler"),
                &named_site,
            );
            (pages, c.progress())
        };
        let (pages, _) = crawl(&p);
        assert_eq!(pages.len(), 6, "all taken without a verdict");
        p.unlike_by_heading = vec!["http://mem.test/item/bravo".into()];
        let (pages, progress) = crawl(&p);
        assert_eq!((pages.len(), progress.rejected), (5, 1));
        assert!(!pages.iter().any(|t| t.url.ends_with("/bravo")));
        p.heading_rule = Some(crate::review::heading::HeadingRule {
            templates: vec![],
            unlike: vec!["Item *".into()],
            like: vec![],
            kind_words: vec!["item".into()],
            common: vec![],
            frequent: None,
            qualified: false,
            whole_names: false,
            sections: false,
        });
        // The example is like itself; the user's "like" on a page stands over its kind.
        let (pages, progress) = crawl(&p);
        assert_eq!(pages.len(), 1);
        assert_eq!(progress.rejected, 5);
        p.corrections.like = vec!["http://mem.test/item/charlie".into()];
        let (pages, _) = crawl(&p);
        let mut urls: Vec<&str> = pages.iter().map(|t| t.url.as_str()).collect();
        urls.sort_unstable();
        assert_eq!(
            urls,
            ["http://mem.test/item/alpha", "http://mem.test/item/charlie"]
        );
    }

    /// A language the user judged unlike the example's: a verifying crawl refuses the pages
    /// that declare it, whatever their score, and the targets learning left out for it; the
    /// example is like itself, a page judged like the example stands.
    #[test]
    fn verification_refuses_the_languages_judged_unlike() {
        // Items 2 and 4 declare French, the rest English (the example, 1, among them).
        let bilingual = |url: &str| match site(url, 6) {
            FetchResult::Response(mut r) => {
                let lang = if url.ends_with("/item/2") || url.ends_with("/item/4") {
                    "fr"
                } else {
                    "en"
                };
                let body = String::from_utf8_lossy(&r.body).replacen(
                    "<html>",
                    &format!("<html lang=\"{lang}\">"),
                    1,
                );
                r.body = body.into_bytes();
                FetchResult::Response(r)
            }
            failed => failed,
        };
        let mut p = learn_on(&bilingual, "http://mem.test/item/1");
        p.corrections.unlike_languages = vec!["fr".into()];
        let example = || example_of(&bilingual, "http://mem.test/item/1");
        let crawl = |p: &Pattern| {
            let c =
                Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler");
            let (pages, c) = target_pages(c, &bilingual);
            let mut urls: Vec<String> = pages.into_iter().map(|t| t.url).collect();
            urls.sort_unstable();
            (urls, c.progress())
        };
        let item = |i: usize| format!("http://mem.test/item/{i}");
        // Every item verified: the URL regex alone would take the French ones.
        p.similarity.threshold = 0.0;
        p.known_targets.clear();
        let (urls, progress) = crawl(&p);
        assert_eq!(urls, [1, 3, 5, 6].map(item));
        assert_eq!(progress.rejected, 2);
        // A page judged like the example stands over its language.
        p.corrections.like = vec![item(4)];
        assert_eq!(crawl(&p).0, [1, 3, 4, 5, 6].map(item));
        // The example is like itself whatever its language.
        p.corrections.like.clear();
        p.corrections.unlike_languages = vec!["en".into()];
        assert_eq!(crawl(&p).0, [1, 2, 4].map(item));
        // No verdict: all six; a target learning left out for its language is refused by URL.
        p.corrections.unlike_languages.clear();
        assert_eq!(crawl(&p).0.len(), 6);
        p.unlike_by_language = vec![item(6)];
        assert_eq!(crawl(&p).0, [1, 2, 3, 4, 5].map(item));
    }

    /// A page whose response says its language (`Content-Language`) and whose HTML does not:
    /// a verifying crawl refuses it when that language is judged unlike, and exports it.
    #[test]
    fn a_crawl_reads_the_language_a_response_declares() {
        let by_header = |url: &str| match site(url, 6) {
            FetchResult::Response(mut r) => {
                let lang = if url.ends_with("/item/2") { "fr" } else { "en" };
                r.headers.push(("Content-Language".into(), lang.into()));
                FetchResult::Response(r)
            }
            failed => failed,
        };
        let mut p = learn_on(&by_header, "http://mem.test/item/1");
        p.similarity.threshold = 0.0;
        let example = example_of(&by_header, "http://mem.test/item/1");
        let c = Crawler::new(p.clone(), CrawlConfig::default(), Some(example.clone()))
            .expect("crawler");
        let (pages, _) = target_pages(c, &by_header);
        assert_eq!(pages.len(), 6);
        assert!(
            pages
                .iter()
                .all(|t| t.lang == if t.url.ends_with("/2") { "fr" } else { "en" })
        );
        p.corrections.unlike_languages = vec!["fr".into()];
        let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
        let (pages, c) = target_pages(c, &by_header);
        assert_eq!(pages.len(), 5);
        assert_eq!(c.progress().rejected, 1);
    }

    /// A directory the user judged unlike the example's: the crawl refuses the pages in it by
    /// their URL, verifying or not, and the targets learning left out for it; the example is
    /// like itself, a page judged like the example stands.
    #[test]
    fn a_crawl_refuses_the_directories_judged_unlike() {
        let mut p = learn(6);
        let item = |i: usize| format!("http://mem.test/item/{i}");
        let fetched = std::cell::Cell::new(0);
        let crawl = |p: &Pattern, verify: bool| {
            let example = verify.then(|| example_of(&|u: &str| site(u, 6), &item(1)));
            let c = Crawler::new(p.clone(), CrawlConfig::default(), example).expect("crawler");
            let (mut urls, c) = run(c, 6, None);
            urls.sort_unstable();
            fetched.set(c.progress().fetched);
            (urls, c.progress().rejected)
        };
        assert_eq!(crawl(&p, false).0.len(), 6);
        let all = fetched.get();
        p.corrections.unlike_directories = vec!["http://mem.test/item/".into()];
        for verify in [false, true] {
            assert_eq!(crawl(&p, verify), (vec![item(1)], 5), "verify {verify}");
            // Refused by their URL: not fetched.
            assert_eq!(fetched.get(), all - 5, "verify {verify}");
        }
        p.corrections.like = vec![item(4)];
        assert_eq!(crawl(&p, false).0, [1, 4].map(item));
        // Another directory: nothing refused.
        p.corrections = pattern::Corrections::default();
        p.corrections.unlike_directories = vec!["http://mem.test/".into()];
        assert_eq!(crawl(&p, true), ((1..=6).map(item).collect(), 0));
        // A target learning left out for its directory is refused by URL.
        p.corrections = pattern::Corrections::default();
        p.unlike_by_directory = vec![item(6)];
        assert_eq!(crawl(&p, false).0, [1, 2, 3, 4, 5].map(item));
    }

    /// A crawl collects a page served under several URLs that declare one canonical URL once,
    /// verifying or not, however the copies' content differs; without the declaration each
    /// copy is collected.
    #[test]
    fn a_crawl_collects_the_copies_of_a_canonical_page_once() {
        use crate::mapper::tests::shop_with_canonicals;
        let declared = |i: u32| Some(format!("/item/{i}.html"));
        let site = |u: &str| shop_with_canonicals(u, &declared);
        let example = "http://shop.test/item/1.html?from=a";
        let p = learn_from(&site, "http://shop.test/", example);
        for verify in [false, true] {
            let c = Crawler::new(
                p.clone(),
                CrawlConfig::default(),
                verify.then(|| example_of(&site, example)),
            )
            .expect("crawler");
            let (targets, c) = run_on(c, &site, None);
            let mut items: Vec<&str> = targets
                .iter()
                .map(|t| t.split('?').next().unwrap_or(""))
                .collect();
            items.sort_unstable();
            let expected: Vec<String> = (1..=7)
                .map(|i| format!("http://shop.test/item/{i}.html"))
                .collect();
            assert_eq!(items, expected, "verify {verify}: {targets:?}");
            assert_eq!(c.state.aliases.len(), 3, "verify {verify}");
            assert_eq!(c.coverage().missed, Vec::<String>::new());
        }
        // The same site without the declarations: the copies differ, each one is collected.
        let plain = |u: &str| shop_with_canonicals(u, &|_| None);
        let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
        assert_eq!(run_on(c, &plain, None).0.len(), 10);
    }

    /// mem.test's ten listed items, and a robots.txt (disallowing item 25) naming sitemaps that
    /// list 27: an index (which also lists itself, a missing sitemap and one on a host
    /// robots.txt does not name) of a gzip-compressed XML sitemap and a text one, and an index
    /// on another host (a CDN's, `elsewhere.test`) of a text sitemap there listing items 26
    /// and 27; elsewhere.test's own robots.txt names a sitemap listing item 28. It also names
    /// three sitemaps never read: one under a path it disallows, one on a host that never
    /// answers (`closed.test`: in a browser, a host the extension has no access to) and one
    /// on a host whose robots.txt answers 503 (`busy.test`).
    fn site_with_sitemaps(url: &str) -> FetchResult {
        if url.starts_with("http://closed.test/") {
            return FetchResult::Failed("Failed to fetch".into());
        }
        if url.starts_with("http://busy.test/") {
            return FetchResult::Response(FetchResponse {
                status: 503,
                ..FetchResponse::default()
            });
        }
        if let Some(path) = url.strip_prefix("http://elsewhere.test") {
            let text = |body: &str| {
                FetchResult::Response(FetchResponse {
                    status: 200,
                    final_url: String::new(),
                    headers: vec![("content-type".into(), "text/plain".into())],
                    body: body.as_bytes().to_vec(),
                    truncated: false,
                })
            };
            return match path {
                "/robots.txt" => text("Sitemap: http://elsewhere.test/theirs.txt\n"),
                "/theirs.txt" => text("http://mem.test/item/28\n"),
                "/s.xml" => text(
                    "<sitemapindex><sitemap><loc>http://elsewhere.test/part.txt</loc></sitemap>\
                     <sitemap><loc>http://third.test/x.xml</loc></sitemap></sitemapindex>",
                ),
                "/part.txt" => text(
                    "http://mem.test/item/26\nhttp://mem.test/item/27\nhttp://elsewhere.test/item/1\n",
                ),
                _ => FetchResult::Response(FetchResponse {
                    status: 404,
                    ..FetchResponse::default()
                }),
            };
        }
        let path = url.trim_start_matches("http://mem.test");
        let ok = |content_type: &str, body: Vec<u8>| {
            FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), content_type.into())],
                body,
                truncated: false,
            })
        };
        match path {
            "/robots.txt" => ok(
                "text/plain",
                b"User-agent: *\nDisallow: /item/25\nDisallow: /private/\nSitemap: http://mem.test/sitemaps.xml\nSitemap: http://elsewhere.test/s.xml\n\
                  Sitemap: http://mem.test/private/s.xml\nSitemap: http://closed.test/s.xml\nSitemap: http://busy.test/s.xml\n".to_vec(),
            ),
            "/sitemaps.xml" => ok(
                "application/xml",
                b"<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
                  <sitemap><loc>http://mem.test/items.xml.gz</loc></sitemap>\
                  <sitemap><loc>http://mem.test/more.txt</loc></sitemap>\
                  <sitemap><loc>http://mem.test/sitemaps.xml</loc></sitemap>\
                  <sitemap><loc>http://mem.test/gone.xml</loc></sitemap>\
                  <sitemap><loc>http://other.test/s.xml</loc></sitemap></sitemapindex>"
                    .to_vec(),
            ),
            "/items.xml.gz" => {
                let locs: String = (1..=20)
                    .map(|i| format!("<url><loc>http://mem.test/item/{i}</loc></url>"))
                    .chain(["<url><loc>http://mem.test/about</loc></url>".to_string()])
                    .chain(["<url><loc>http://other.test/item/1</loc></url>".to_string()])
                    .collect();
                let xml = format!("<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{locs}</urlset>");
                let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
                gz.extend(miniz_oxide::deflate::compress_to_vec(xml.as_bytes(), 6));
                gz.extend_from_slice(&[0; 8]);
                ok("application/gzip", gz)
            }
            "/more.txt" => ok(
                "text/plain",
                (18..=25)
                    .map(|i| format!("http://mem.test/item/{i}\n"))
                    .collect::<String>()
                    .into_bytes(),
            ),
            _ => site(url, 10),
        }
    }

    /// A crawl reads the sitemaps robots.txt names, as links of the start page: the items no
    /// listing links are collected (new since learning), each once; robots.txt still rules
    /// what is fetched; sitemaps on a host robots.txt names are read (the protocol's
    /// cross-submission), those on other hosts or missing are passed over. Without them
    /// (`read_sitemaps` off), the listings' ten.
    #[test]
    fn a_crawl_reads_the_sitemaps_robots_txt_names() {
        let p = learn(10);
        let crawl_stopped = |read_sitemaps: bool, stop_after: Option<usize>| {
            let config = CrawlConfig {
                read_sitemaps,
                ..CrawlConfig::default()
            };
            let c = Crawler::new(p.clone(), config, None).expect("crawler");
            let (mut urls, c) = run_on(c, &site_with_sitemaps, stop_after);
            urls.sort_by_key(|u| u.rsplit('/').next().and_then(|n| n.parse::<u32>().ok()));
            (urls, c)
        };
        let crawl = |read_sitemaps: bool| crawl_stopped(read_sitemaps, None);
        let (urls, c) = crawl(true);
        // Item 25 is listed, but robots.txt disallows it; 26 and 27 are listed on the other
        // host robots.txt names; 28 only by that host's own robots.txt, which is not the site's.
        let items: Vec<String> = (1..=24)
            .chain(26..=27)
            .map(|i| format!("http://mem.test/item/{i}"))
            .collect();
        assert_eq!(urls, items);
        let progress = c.progress();
        assert_eq!(
            progress.sitemaps, 5,
            "the indexes, the gzipped and the text sitemaps"
        );
        // Items 11 to 27 at least; those of 1 to 10 not yet queued from a listing too.
        assert!((17..=27).contains(&progress.sitemap_links), "{progress:?}");
        assert_eq!(c.coverage().new.len(), 16);
        assert_eq!(c.coverage().missed, Vec::<String>::new());
        // Snapshotted and restored while the sitemaps are read: the same pages.
        for stop_after in [1, 3, 12] {
            assert_eq!(
                crawl_stopped(true, Some(stop_after)).0,
                items,
                "{stop_after}"
            );
        }
        // Asked as sitemaps (a driver keeps their bodies whatever their media type).
        let mut c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
        let (mut asked, mut now, mut not_read) = (Vec::new(), 0, Vec::new());
        for _ in 0..1_000 {
            match c.poll(now) {
                Poll::Fetch(r) => {
                    asked.push((r.url.clone(), r.kind));
                    c.handle(r.id, site_with_sitemaps(&r.url), now);
                }
                Poll::WaitUntil(t) => now = t,
                Poll::Done => break,
                Poll::Busy => panic!("synchronous driver"),
            }
            not_read.extend(c.drain_events().into_iter().filter_map(|e| match e {
                Event::SitemapSkipped(n) => Some((n.url, n.reason, n.unreachable)),
                _ => None,
            }));
        }
        // Every sitemap not read is said so, with why; only the host that answered nothing is
        // marked unreachable (the extension offers to ask for access to it).
        not_read.sort();
        let not = |url: &str, why: &str, unreachable: bool| {
            (
                url.to_string(),
                format!("sitemap not read: {why}"),
                unreachable,
            )
        };
        assert_eq!(
            not_read,
            vec![
                not(
                    "http://busy.test/s.xml",
                    "its host's robots.txt answered HTTP 503, which disallows everything there",
                    false
                ),
                not(
                    "http://closed.test/s.xml",
                    "its host's robots.txt could not be fetched (Failed to fetch), so nothing \
                     there is asked (in the extension: no access to that host?)",
                    true
                ),
                not("http://mem.test/gone.xml", "HTTP 404", false),
                not(
                    "http://mem.test/private/s.xml",
                    "its host's robots.txt disallows it",
                    false
                ),
                not(
                    "http://other.test/s.xml",
                    "on another host, where the site's robots.txt names none",
                    false
                ),
                not(
                    "http://third.test/x.xml",
                    "on another host, where the site's robots.txt names none",
                    false
                ),
            ]
        );
        let kind = |u: &str| asked.iter().find(|(a, _)| a == u).map(|(_, k)| *k);
        assert_eq!(
            kind("http://mem.test/sitemaps.xml"),
            Some(RequestKind::Sitemap)
        );
        assert_eq!(
            kind("http://mem.test/items.xml.gz"),
            Some(RequestKind::Sitemap)
        );
        assert_eq!(kind("http://mem.test/item/12"), Some(RequestKind::Page));
        let (urls, c) = crawl(false);
        assert_eq!(urls, items[..10]);
        assert_eq!(c.progress().sitemaps, 0);
        // Under a page budget the sitemaps' URLs are not queued past it.
        let config = CrawlConfig {
            max_pages: 8,
            ..CrawlConfig::default()
        };
        let c = Crawler::new(p.clone(), config, None).expect("crawler");
        let (urls, c) = run_on(c, &site_with_sitemaps, None);
        assert!(items.starts_with(&urls), "{urls:?}");
        assert_eq!(c.progress().fetched, 8);
        // The two indexes were read; the sitemaps of pages came when the budget was queued
        // already.
        assert_eq!((c.progress().sitemaps, c.progress().sitemap_links), (2, 0));
    }

    /// Pages answered 429 ("too many requests") are asked again after the wait: the crawl
    /// collects what it collects from a site that never says so, and counts the retries.
    #[test]
    fn pages_answered_too_many_requests_are_asked_again() {
        let p = learn(10);
        let plain = run_on(
            Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler"),
            &|u: &str| site(u, 10),
            None,
        );
        let asked = std::cell::RefCell::new(HashMap::<String, usize>::new());
        let busy = |url: &str| {
            let mut asked = asked.borrow_mut();
            let n = asked.entry(url.to_string()).or_default();
            *n += 1;
            if url.contains("/item/") && *n <= 2 {
                return FetchResult::Response(FetchResponse {
                    status: 429,
                    ..FetchResponse::default()
                });
            }
            site(url, 10)
        };
        let (mut urls, c) = run_on(
            Crawler::new(p, CrawlConfig::default(), None).expect("crawler"),
            &busy,
            Some(7),
        );
        let mut want = plain.0.clone();
        urls.sort();
        want.sort();
        assert_eq!(urls, want, "snapshotted and restored on the way too");
        assert_eq!(urls.len(), 10);
        assert_eq!(c.progress().retried, 20, "each item twice");
        assert_eq!(c.progress().errors, 0);
        assert!(
            asked
                .borrow()
                .iter()
                .all(|(u, &n)| n == if u.contains("/item/") { 3 } else { 1 })
        );
    }

    #[test]
    fn verification_honours_the_users_verdicts() {
        let mut p = learn(6);
        p.corrections.like = vec![
            "http://mem.test/item/2".into(),
            "http://mem.test/item/5".into(),
        ];
        let unlike_example = ExamplePage {
            url: "http://mem.test/about".into(),
            body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>"
                .to_vec(),
            content_type: None,
        };
        let c =
            Crawler::new(p.clone(), CrawlConfig::default(), Some(unlike_example)).expect("crawler");
        let (mut targets, c) = run(c, 6, None);
        targets.sort();
        assert_eq!(
            targets, p.corrections.like,
            "liked pages pass whatever their score"
        );
        assert_eq!(c.progress().rejected, 4);
        // A page marked unlike is refused even when it looks like the example.
        p.corrections = Default::default();
        p.corrections.unlike = vec!["http://mem.test/item/3".into()];
        let like_example = ExamplePage {
            url: "http://mem.test/item/1".into(),
            body: match site("http://mem.test/item/1", 6) {
                FetchResult::Response(r) => r.body,
                FetchResult::Failed(_) => Vec::new(),
            },
            content_type: None,
        };
        let c = Crawler::new(p, CrawlConfig::default(), Some(like_example)).expect("crawler");
        let (targets, c) = run(c, 6, None);
        assert_eq!(targets.len(), 5);
        assert!(!targets.contains(&"http://mem.test/item/3".to_string()));
        assert_eq!(c.progress().rejected, 1);
    }
}
