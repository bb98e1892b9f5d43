//! The structure-driven crawler (design §5, thesis Algorithm 7) as a sans-IO state machine.
//!
//! Runs a [`Pattern`]: breadth first from the entry page; on a page of level j it follows only
//! links matching level j+1 (or its own level when that level paginates, bounded, or a deeper
//! level: [`Compiled::step`]); links matching the last level are targets wherever they are met
//! (shortcuts). Targets are fetched and handed to the driver in [`Event::Target`] (body included,
//! so the driver streams them to its exports and the crawler keeps nothing but URLs and
//! signatures), optionally verified with RTDM against the example. At the end,
//! [`Crawler::coverage`] compares the targets with those the pattern was learned from. Form levels
//! are entered by issuing queries (see `crawler/forms.rs`).
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

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

mod dust;
mod forms;
mod replica;
pub use dust::{DUST_PROBES, DustRun};
use dust::{DustMet, DustProbe, DustWaiting};
pub use forms::CrawlForms;
pub use replica::ReplicaHost;

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
    /// The site's pages link to a replica of the site under another host name: its links are
    /// followed as the site's own from now on ([`Crawler::replica_hosts`]).
    Replica {
        /// The replica's host.
        host: String,
    },
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
    /// Sitemaps read ([`CrawlConfig::read_sitemaps`]).
    #[serde(default)]
    pub sitemaps: usize,
    /// Sitemap requests answered, the guessed locations that hold none included: requests,
    /// not pages, so not in `fetched`; they count in the page budget.
    #[serde(default)]
    pub sitemap_requests: usize,
    /// Sitemap URLs the pattern follows (targets and listings), besides those already queued.
    #[serde(default)]
    pub sitemap_links: usize,
    /// Requests asked again because the site said to wait (429, 503: [`crate::fetch::Retry`]).
    #[serde(default)]
    pub retried: usize,
    /// Links not fetched because the pattern's DUST rules ([`crate::dust`]) rewrite them into a
    /// URL already met: fetches of copies avoided.
    #[serde(default)]
    pub duplicates_avoided: usize,
    /// Rules for duplicate URLs a probe refuted: the site answered another page than the rule
    /// named, so the rule is not applied in this crawl.
    #[serde(default)]
    pub duplicate_rules_refuted: usize,
    /// Links to a replica of the site under another host name followed as the site's own
    /// ([`Crawler::replica_hosts`]).
    #[serde(default)]
    pub replica_links: usize,
}

impl Progress {
    /// Requests answered that the page budget counts: pages, scripts and sitemaps.
    pub fn requests(&self) -> usize {
        self.fetched + self.scripts + self.sitemap_requests
    }
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
    /// A submission made from a step of its form ([`crate::pattern::FormLevel::dependent`]):
    /// its answer is a result, never stepped from again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    step: bool,
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
            step: false,
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
    /// Sitemaps asked at the common locations because robots.txt named none: one that is not
    /// there is no error.
    #[serde(default)]
    sitemap_guessed: BTreeSet<String>,
    /// The pattern's rules for duplicate URLs on probation, one a rule ([`DustRun`]).
    #[serde(default)]
    dust: Vec<DustRun>,
    /// Probes in flight: a copy's URL fetched as it is, and what the rules said it is.
    #[serde(default)]
    dust_probes: BTreeMap<String, DustProbe>,
    /// Links a rule on probation names as a copy of a page met, held until its probes answer:
    /// confirmed, they are not fetched; refuted, they are.
    #[serde(default)]
    dust_waiting: Vec<DustWaiting>,
    /// Rewritten forms met only as a copy fetched as it was: the form → [`DustMet`].
    #[serde(default)]
    dust_met: BTreeMap<String, DustMet>,
    /// Hosts the site links to whose names are variants of its own ([`ReplicaHost`]).
    #[serde(default)]
    replica_hosts: Vec<ReplicaHost>,
}

const SNAPSHOT_VERSION: u32 = 1;

impl Snapshot {
    /// Every level and form run the queued requests name exists (a snapshot read back from
    /// disk is input).
    fn check(&self) -> Result<(), String> {
        let levels = self.pattern.levels.len();
        let rules = self.pattern.dust_rules.len();
        if self.dust.len() > rules {
            return Err(format!(
                "{} rules for duplicate URLs on probation, but the pattern has {rules}",
                self.dust.len()
            ));
        }
        if let Some(i) = self
            .dust_probes
            .values()
            .flat_map(|p| &p.rules)
            .chain(self.dust_waiting.iter().flat_map(|w| &w.rules))
            .chain(self.dust_met.values().flat_map(|m| &m.rules))
            .find(|&&i| i >= rules)
        {
            return Err(format!(
                "a probe names rule {i} for duplicate URLs, but the pattern has {rules}"
            ));
        }
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
            sitemap_guessed: BTreeSet::new(),
            dust: Vec::new(),
            dust_probes: BTreeMap::new(),
            dust_waiting: Vec::new(),
            dust_met: BTreeMap::new(),
            replica_hosts: Vec::new(),
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
        let mut state = state;
        let rules = state.pattern.dust_rules.len();
        state.dust.resize(rules, DustRun::default());
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
            let answered = self.state.progress.requests();
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
                    // Links held for rules whose probes will not come: followed now.
                    if self.state.stopped.is_none() && self.release_held(true) {
                        continue;
                    }
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
                    let entry_origin = crate::fetch::host_of(&self.state.pattern.entry);
                    if sitemaps.is_empty() && entry_origin.as_deref() == Some(origin.as_str()) {
                        // None named: the protocol's common locations, where a missing file
                        // is no error.
                        let guesses = crate::sitemap::common_locations(&self.state.pattern.entry);
                        self.state.sitemap_guessed.extend(guesses.iter().cloned());
                        self.queue_sitemaps(guesses);
                    } else {
                        self.queue_sitemaps(sitemaps);
                    }
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
            self.state.progress.sitemap_requests += 1;
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
        let probe = self.state.dust_probes.remove(&q.url);
        let probed: Option<String> = probe.as_ref().map(|_| q.url.to_string());
        let doc = self.take(q.url, q.item, result, now_ms);
        if let (Some(url), Some(probe)) = (probed, probe) {
            self.probe_answered(&url, probe);
        }
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
                let why = format!("redirect to a page already seen: {final_c}");
                return self.alias_of(url, final_c, why);
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
                    step: false,
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
            self.chain_step(&page, &item);
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
            self.start_form_level(item.level, &page);
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
        if self.state.progress.requests() >= self.state.config.max_pages {
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
            // A replica's link (`www.` or bare, another TLD) as the site's own.
            let url = if self.on_own_origin(&url) {
                url
            } else {
                match self.replica_link(&url) {
                    Some(ours) => ours,
                    None => url,
                }
            };
            let Some((url, kept)) = self.rewritten(url, item) else {
                continue;
            };
            if self.state.frontier.is_seen(&url) || !self.scope.contains(&url) {
                continue;
            }
            let next = match kept.or_else(|| self.compiled.step(item.level, &url)) {
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
                    step: false,
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
                        step: false,
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
                step: false,
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
                if self.state.progress.requests() + self.state.frontier.queued()
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

    /// A sitemap not read for `reason`, said so and counted as skipped (unless it was a guess
    /// at a common location: most sites have none there).
    fn sitemap_skipped(&mut self, url: String, reason: String) {
        if self.state.sitemap_guessed.contains(&url) {
            return;
        }
        self.state.progress.skipped += 1;
        let not_read = crate::sitemap::NotRead::new(&self.state.frontier, url, reason);
        self.events.push_back(Event::SitemapSkipped(not_read));
    }
}

/// Whether a page is of a kind the user's verdicts left out: learning left it out
/// ([`Pattern::unlike_by_heading`]), or its heading follows a template judged unlike the
/// example ([`crate::review::heading::HeadingRule::refuses`]). The example is like itself
/// whatever its kind.
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
mod tests;
