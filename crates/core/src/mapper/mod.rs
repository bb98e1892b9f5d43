//! Site mapping (design §3, thesis Algorithm 2) as a sans-IO state machine.
//!
//! From an entry URL and an example page, the [`Mapper`] walks the site breadth first: every
//! fetched HTML page is compared with the example (RTDM); pages at least θ similar are targets
//! and are not expanded, the others' same-site links are queued. Once nothing else is left, the
//! links first met on targets are visited too ([`MapConfig::expand_targets`]: entity pages that
//! only other entity pages link to). Links named like the example or a target found so far (a URL
//! that differs from one of theirs in one word: `core/cell/struct.Cell.html` once
//! `std/cell/struct.Cell.html` is a target) are fetched before the rest, breadth first among
//! themselves: under a page budget, the pages most likely to be targets come first (the map of a
//! site read whole is the same). For the same reason the pages of a URL shape whose first fifty
//! were no target and led to none are fetched after everything else ([`shapes`]). Last, once every
//! link has been followed, the sitemaps robots.txt names are read ([`MapConfig::read_sitemaps`]):
//! the pages they list that no link reached become links of the entry page, as a crawl reads
//! them (a catalogue drawn by scripts has no links to its items, only sitemaps). It keeps the
//! link graph of the pages it read (node ids, not HTML) in a [`SiteMap`], from which
//! [`crate::pattern`] learns the navigation pattern. Forms met on the way are filled and submitted (`mapper/forms.rs`); their
//! submissions are nodes like links.
//!
//! The driver loop is: `poll(now)` → perform the [`crate::fetch::FetchRequest`] → `handle(id, result, now)`,
//! with `drain_events()` after each `poll`, until `poll` says [`Poll::Done`] (results are taken
//! inside `poll`). [`Mapper::snapshot`] / [`Mapper::restore`] round-trip the whole state as
//! serde data. Several requests may be in flight; their results are taken in the order the
//! requests were issued, one each time everything that can be asked was ([`InOrder`]), so one
//! site gives one map whatever the network's timing, even when the page budget cuts the site
//! short.
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

mod forms;
mod listing;
pub mod shapes;
pub use forms::{FORM_LIMIT_REACHED, FormsConfig, form_key, self_shape};

pub use crate::map::{
    BreadthFirst, FormState, KIND_SAMPLES, MappedForm, Node, NodeState, SiteMap, Submitted,
    TargetGroup,
};
use crate::signature::{body_signature, canonical_links, canonical_signature, page_signatures};

use serde::{Deserialize, Serialize};

use crate::canon::{self, CompiledScope, Scope, TrapGuard, TrapLimits};
use crate::dom::{Page, ParseOptions};
pub use crate::fetch::Poll;
use crate::fetch::{
    Delivered, FetchResult, Frontier, InOrder, Machine, Next, Politeness, RequestKind,
};
use crate::forms::FormSpec;
use crate::script_links::{self, Include, ScriptTable};
use crate::similarity::{self, Example};
use crate::url_pattern;
use exemplar_url::hash::FxHashMap;

/// Limits and scope of a mapping run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MapConfig {
    /// Pages fetched at most (robots.txt not counted).
    pub max_pages: usize,
    /// Link depth from the entry page at most.
    pub max_depth: u32,
    /// Stop after this many milliseconds of running time (None: no limit); the time a run lay
    /// saved before a restore does not count.
    pub max_duration_ms: Option<u64>,
    /// Largest body parsed, in bytes; larger pages are recorded as too large.
    pub max_bytes: usize,
    /// Similarity settings (θ and the view).
    pub similarity: similarity::Options,
    /// Subdomains of the entry's site are in scope.
    pub include_subdomains: bool,
    /// Only URLs matching one of these regexes are followed (empty: all).
    pub allow: Vec<String>,
    /// URLs matching one of these regexes are never followed.
    pub deny: Vec<String>,
    /// Follow `rel=nofollow` links and pages with `<meta name=robots content=nofollow>` (also
    /// done when [`Politeness::obey_robots`](crate::fetch::Politeness::obey_robots) is off).
    pub follow_nofollow: bool,
    /// Delay, concurrency, robots.txt.
    pub politeness: Politeness,
    /// Crawler-trap bounds.
    pub traps: TrapLimits,
    /// Filling and submitting forms.
    pub forms: FormsConfig,
    /// Once every page has been visited, follow the links of the pages judged similar to the
    /// example too (design §3 does not expand them): sites that link many of their entity
    /// pages only from other entity pages (Qt's classes, a Doxygen tree view's classes) are
    /// mapped whole, and learning can see targets leading to targets.
    pub expand_targets: bool,
    /// Read the page URLs named in the same-site scripts pages include (Doxygen's menu and
    /// tree view, script-built menus) as links of those pages ([`crate::script_links`]).
    pub script_links: bool,
    /// Distinct scripts fetched at most.
    pub max_scripts: usize,
    /// Fetch the pages of barren URL shapes and kinds after everything else ([`shapes`]: fifty
    /// pages of one shape, none a target nor leading to one): under a page budget, targets
    /// first.
    pub defer_barren: bool,
    /// Once every link has been followed, read the sitemaps the site's robots.txt names (when
    /// robots.txt is obeyed): the pages they list that no link reached become links of the
    /// entry page, as a crawl reads them ([`crate::crawler::CrawlConfig::read_sitemaps`]), so
    /// a site whose listings are drawn by scripts is learned from its sitemaps. Pages links
    /// reached keep their place: the levels are learned from the links.
    pub read_sitemaps: bool,
}

impl Default for MapConfig {
    fn default() -> Self {
        MapConfig {
            max_pages: 10_000,
            max_depth: 10,
            max_duration_ms: None,
            max_bytes: 8 << 20,
            similarity: similarity::Options::default(),
            include_subdomains: false,
            allow: Vec::new(),
            deny: Vec::new(),
            follow_nofollow: false,
            politeness: Politeness::default(),
            traps: TrapLimits::default(),
            forms: FormsConfig::default(),
            expand_targets: true,
            script_links: true,
            max_scripts: script_links::DEFAULT_MAX_SCRIPTS,
            defer_barren: true,
            read_sitemaps: true,
        }
    }
}

impl MapConfig {
    /// The scope of a run from `entry`: its site (with subdomains if configured) and the allow and
    /// deny lists. None when `entry` has no host.
    pub fn scope(&self, entry: &str) -> Option<Scope> {
        Some(Scope {
            allow: self.allow.clone(),
            deny: self.deny.clone(),
            ..Scope::for_url(entry, self.include_subdomains)?
        })
    }
}

/// Why mapping stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Every reachable page within the limits was visited.
    Exhausted,
    /// `max_pages` reached.
    MaxPages,
    /// `max_duration_ms` reached.
    MaxDuration,
    /// The caller cancelled.
    Cancelled,
}

/// Something that happened, for progress display and logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Event {
    /// A page was fetched and examined.
    #[serde(rename_all = "camelCase")]
    Fetched {
        /// Canonical URL.
        url: String,
        /// Link depth.
        depth: u32,
        /// HTTP status.
        status: u16,
        /// Similarity to the example (HTML pages).
        similarity: Option<f32>,
        /// Whether it is a target.
        target: bool,
        /// What became of it.
        state: NodeState,
    },
    /// A page met earlier outside the example's directory became a target: its directory now
    /// holds enough pages like the example ([`similarity::PLACE_SUPPORT`]).
    #[serde(rename_all = "camelCase")]
    Promoted {
        /// Canonical URL.
        url: String,
        /// Its similarity, now without the place weight.
        similarity: Option<f32>,
    },
    /// A URL was not fetched.
    #[serde(rename_all = "camelCase")]
    Skipped {
        /// The URL.
        url: String,
        /// Why (robots.txt, trap guard…).
        reason: String,
    },
    /// A sitemap, or part of one, was not read.
    SitemapSkipped(crate::sitemap::NotRead),
    /// The site said to wait (429, 503): a request is asked again later and its host slowed
    /// down.
    Retry(crate::fetch::Retry),
    /// Pages of a barren URL shape or kind are fetched after everything else from now on
    /// ([`MapConfig::defer_barren`]).
    #[serde(rename_all = "camelCase")]
    PutOff {
        /// The shape or kind, a glob ([`shapes::shape`], [`shapes::kind`]).
        shape: String,
        /// URLs waiting that were put off.
        urls: usize,
    },
    /// Pages put off come back in their turn: a target was found among a barren shape's or
    /// kind's pages, or on one of them, so it is barren no longer.
    #[serde(rename_all = "camelCase")]
    TakenBack {
        /// URLs that were put off and now wait in their turn.
        urls: usize,
    },
    /// Mapping finished.
    #[serde(rename_all = "camelCase")]
    Finished {
        /// Why.
        reason: StopReason,
    },
}

/// Counts for a progress display.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// Page requests answered (any outcome).
    pub fetched: usize,
    /// Targets found.
    pub targets: usize,
    /// URLs waiting.
    pub queued: usize,
    /// Requests in flight.
    pub in_flight: usize,
    /// URLs skipped (robots.txt, traps, out of scope after redirect).
    pub skipped: usize,
    /// Failures and HTTP errors.
    pub errors: usize,
    /// Body bytes received.
    pub bytes: u64,
    /// Milliseconds since the first poll.
    pub elapsed_ms: u64,
    /// Script requests answered ([`MapConfig::script_links`]); they count in the page budget.
    #[serde(default)]
    pub scripts: usize,
    /// Pages whose links were not followed: their robots meta tag says `nofollow` (followed
    /// with [`MapConfig::follow_nofollow`], or when robots.txt is not obeyed).
    #[serde(default)]
    pub nofollow: usize,
    /// Sitemaps read ([`MapConfig::read_sitemaps`]), as a crawl counts them.
    #[serde(default)]
    pub sitemaps: usize,
    /// Sitemap requests answered, read or not (missing, unreadable): they count in the page
    /// budget.
    #[serde(default)]
    pub sitemap_requests: usize,
    /// Pages the sitemaps list that no link reached, queued as the entry page's links.
    #[serde(default)]
    pub sitemap_links: usize,
    /// Requests asked again because the site said to wait (429, 503: [`crate::fetch::Retry`]).
    #[serde(default)]
    pub retried: usize,
}

impl Progress {
    /// Requests answered that count in the page budget: pages, scripts and sitemaps.
    pub fn requests(&self) -> usize {
        self.fetched + self.scripts + self.sitemap_requests
    }

    /// Why a mapping whose learning found nothing may have stopped short, when pages' robots
    /// meta tags kept their links unfollowed (gitweb writes `nofollow` into every page), or
    /// None. `ignore` names how the user ignores robots (a flag, a setting).
    pub fn nofollow_hint(&self, ignore: &str) -> Option<String> {
        (self.nofollow > 0).then(|| {
            format!(
                "{} asked robots not to follow {} links (<meta name=\"robots\" content=\"nofollow\">), \
                 and they were not followed; {ignore} follows them",
                crate::words::count(self.nofollow, "page"),
                if self.nofollow == 1 { "its" } else { "their" },
            )
        })
    }
}

/// Errors creating or restoring a mapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError(pub String);

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MapError {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Item {
    /// The page asked (for a script: the page that first included it).
    node: u32,
    /// A script the pages of the map include, not a page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    script: bool,
    /// A sitemap ([`MapConfig::read_sitemaps`]), not a page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    sitemap: bool,
}

/// A page waiting for a script it includes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ScriptWaiter {
    node: u32,
    /// Its base URL, when not its own URL (`<base href>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base: Option<String>,
    /// Its links are queued (a page), or held back (a target).
    queue: bool,
}

/// The example page as the driver fetched it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExamplePage {
    /// Its URL (final, after redirects).
    pub url: String,
    /// Body bytes.
    pub body: Vec<u8>,
    /// `Content-Type` header, for the charset.
    pub content_type: Option<String>,
}

/// The serialisable state of a mapper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Format version.
    pub version: u32,
    config: MapConfig,
    example: ExamplePage,
    map: SiteMap,
    frontier: Frontier<Item>,
    index: HashMap<String, u32>,
    signatures: HashMap<u64, u32>,
    traps: TrapGuard,
    progress: Progress,
    started_ms: Option<u64>,
    stopped: Option<StopReason>,
    finished_sent: bool,
    #[serde(default)]
    forms: forms::FormTable,
    /// Pages outside the example's directory that pass θ before the place weight, by
    /// directory (joined with `/`): a directory with [`similarity::PLACE_SUPPORT`] of them
    /// keeps its pages' whole score.
    #[serde(default)]
    look_alikes: HashMap<String, Vec<u32>>,
    /// The canonical signatures ([`canonical_signature`]) of look-alikes whose directory does
    /// not hold enough of them yet: registered when it does and they become targets.
    #[serde(default)]
    look_alike_canonicals: HashMap<u32, u64>,
    /// URLs first met on target pages, held back until every other page has been visited
    /// ([`MapConfig::expand_targets`]).
    #[serde(default)]
    held: BTreeSet<u32>,
    /// Results that arrived before an earlier request's, waiting to be taken in the order the
    /// requests were issued ([`InOrder`]); their requests stay in flight across a restore.
    #[serde(default)]
    arrived: InOrder,
    /// The same-site scripts pages include, and the pages waiting for them.
    #[serde(default)]
    scripts: ScriptTable<ScriptWaiter>,
    /// The sitemap files queued ([`MapConfig::read_sitemaps`], at most
    /// [`crate::sitemap::MAX_FILES`]): asked as sitemaps. Empty until every link was followed.
    #[serde(default)]
    sitemap_files: BTreeSet<String>,
    /// The sitemaps robots.txt names were queued (once: after every link was followed).
    #[serde(default)]
    sitemaps_queued: bool,
    /// Sitemaps asked at the common locations because robots.txt named none: one that is not
    /// there is no error.
    #[serde(default)]
    sitemap_guessed: BTreeSet<String>,
}

const SNAPSHOT_VERSION: u32 = 1;

impl Snapshot {
    /// Every node id and form index the state holds points into its map (a snapshot read back
    /// from disk is input).
    fn check(&self) -> Result<(), String> {
        self.map.check()?;
        let n = self.map.nodes.len();
        let node = |id: u32, what: &str| {
            ((id as usize) < n)
                .then_some(())
                .ok_or_else(|| format!("{what} is node {id}, but the map has {n} nodes"))
        };
        for item in self.frontier.items() {
            node(item.node, "a queued request")?;
        }
        for &id in self.index.values() {
            node(id, "a URL of the index")?;
        }
        for &id in self.signatures.values() {
            node(id, "a content signature")?;
        }
        for &id in self.look_alikes.values().flatten() {
            node(id, "a look-alike outside the example's directory")?;
        }
        for &id in self.look_alike_canonicals.keys() {
            node(id, "a look-alike's canonical signature")?;
        }
        for &id in &self.held {
            node(id, "a link held back from a target")?;
        }
        for w in self.scripts.waiters() {
            node(w.node, "a page waiting for a script")?;
        }
        self.forms.check(n, self.map.forms.len())
    }

    /// The mapping's settings.
    pub fn config(&self) -> &MapConfig {
        &self.config
    }

    /// Counts when saved.
    pub fn progress(&self) -> Progress {
        self.progress
    }
}

/// The mapping state machine. See the module docs.
pub struct Mapper {
    state: Snapshot,
    scope: CompiledScope,
    example: Example,
    /// The example parsed (its terms fill forms).
    example_page: Page,
    /// The example's most frequent terms (adaptive seeds).
    seeds: Vec<String>,
    parse: ParseOptions,
    events: VecDeque<Event>,
    /// Hashes of the one-token variants ([`url_pattern::one_token_variants`]) of the example's
    /// and the targets' URLs: a link sharing one is queued first. Derived from the map.
    target_names: HashSet<u64>,
    /// The nodes queued in their turn, by the hash of each of their URL's one-token variants:
    /// those to move ahead when a target named like them is found. Derived from the frontier.
    waiting: HashMap<u64, Vec<u32>>,
    /// What each URL shape yielded: barren ones are put off. Derived from the map.
    shapes: shapes::Shapes,
}

impl Mapper {
    /// A mapper for the site of `entry`, looking for pages like `example`.
    ///
    /// # Errors
    /// A bad entry URL, an example that is not parseable HTML, or an invalid config (bad
    /// allow/deny regex, θ outside [0, 1], zero concurrency).
    pub fn new(entry: &str, example: ExamplePage, config: MapConfig) -> Result<Mapper, MapError> {
        let entry_c = canon::canonicalize(entry)
            .ok_or_else(|| MapError(format!("not an http(s) URL: {entry:?}")))?;
        let mut frontier = Frontier::new(config.politeness.clone());
        frontier.push(
            entry_c.clone(),
            Item {
                node: 0,
                script: false,
                sitemap: false,
            },
        );
        let mut index = HashMap::new();
        index.insert(entry_c.clone(), 0);
        let state = Snapshot {
            version: SNAPSHOT_VERSION,
            traps: TrapGuard::new(config.traps.clone()),
            map: SiteMap {
                entry: entry_c.clone(),
                example: example.url.clone(),
                threshold: config.similarity.threshold,
                place_weight: config.similarity.place_weight,
                target_links: config.expand_targets,
                nodes: vec![Node {
                    url: entry_c,
                    parent: None,
                    depth: 0,
                    state: NodeState::Discovered,
                    similarity: None,
                    unplaced: None,
                    title: String::new(),
                    heading: String::new(),
                    lang: String::new(),
                    links: Vec::new(),
                    form: None,
                }],
                ..SiteMap::default()
            },
            config,
            example,
            frontier,
            index,
            signatures: HashMap::new(),
            progress: Progress::default(),
            started_ms: None,
            stopped: None,
            finished_sent: false,
            forms: forms::FormTable::default(),
            look_alikes: HashMap::new(),
            look_alike_canonicals: HashMap::new(),
            held: BTreeSet::new(),
            arrived: InOrder::default(),
            scripts: ScriptTable::default(),
            sitemap_files: BTreeSet::new(),
            sitemaps_queued: false,
            sitemap_guessed: BTreeSet::new(),
        };
        Mapper::from_state(state)
    }

    fn from_state(state: Snapshot) -> Result<Mapper, MapError> {
        if state.version != SNAPSHOT_VERSION {
            return Err(MapError(format!(
                "snapshot version {} is not supported (expected {SNAPSHOT_VERSION})",
                state.version
            )));
        }
        state.config.similarity.validate().map_err(MapError)?;
        state.config.politeness.validate().map_err(MapError)?;
        state
            .check()
            .map_err(|e| MapError(format!("inconsistent snapshot: {e}")))?;
        let entry = &state.map.entry;
        let scope = state
            .config
            .scope(entry)
            .ok_or_else(|| MapError(format!("no host in {entry:?}")))?
            .compile()
            .map_err(MapError)?;
        let parse = ParseOptions {
            max_bytes: state.config.max_bytes,
            ..ParseOptions::default()
        };
        let ex = &state.example;
        let page = Page::parse(&ex.body, &ex.url, ex.content_type.as_deref(), &parse)
            .map_err(|e| MapError(format!("example page {}: {e}", ex.url)))?;
        let example = Example::new(&page, state.config.similarity);
        let mut seeds = crate::forms::query::frequent_terms(&page);
        seeds.truncate(forms::SEEDS);
        let mut m = Mapper {
            state,
            scope,
            example,
            example_page: page,
            seeds,
            parse,
            events: VecDeque::new(),
            target_names: HashSet::new(),
            waiting: HashMap::new(),
            shapes: shapes::Shapes::default(),
        };
        m.shapes = shapes::Shapes::of_map(&m.state.map);
        let in_turn: Vec<(String, u32)> = m
            .state
            .frontier
            .iter_in_turn()
            .chain(m.state.frontier.iter_put_off())
            .filter(|q| !q.item.script)
            .map(|q| (q.url.clone(), q.item.node))
            .collect();
        for (url, id) in in_turn {
            m.wait(&url, id);
        }
        let named: Vec<String> = std::iter::once(m.state.example.url.clone())
            .chain(
                m.state
                    .map
                    .targets()
                    .map(|t| m.state.map.nodes[t as usize].url.clone()),
            )
            .collect();
        for url in named {
            m.name_target(&url);
        }
        Ok(m)
    }

    /// Records a target's URL: links named like it are queued first, those already waiting
    /// in their turn move ahead.
    fn name_target(&mut self, url: &str) {
        let canonical = canon::canonicalize(url).unwrap_or_else(|| url.to_string());
        // The pages waiting under each new name, ranked by the name's place among the variants
        // (a page by its first): moved name by name, in one pass.
        let mut rank: FxHashMap<u32, u32> = FxHashMap::default();
        // Kept only in memory (derived again on restore): any hash stable within a run does.
        for (r, h) in url_pattern::one_token_variant_hashes(&canonical, true)
            .into_iter()
            .enumerate()
        {
            if !self.target_names.insert(h) {
                continue;
            }
            // Those fetched since, in flight or moved ahead by another name are not waiting.
            for id in self.waiting.remove(&h).unwrap_or_default() {
                let waiting = self
                    .state
                    .map
                    .nodes
                    .get(id as usize)
                    .is_some_and(|node| node.state == NodeState::Discovered);
                if waiting {
                    rank.entry(id).or_insert(r as u32);
                }
            }
        }
        if rank.is_empty() {
            return;
        }
        let shapes = &self.shapes;
        self.state.frontier.promote_ranked(
            |q| {
                (!q.item.script)
                    .then(|| rank.get(&q.item.node).copied())
                    .flatten()
            },
            // Those of a barren shape or kind wait among the pages put off; not those of a
            // file type never HTML: named like a target or not, no page.
            |q| shapes.is_barren(&q.url) && !shapes.never_html(&q.url),
        );
    }

    /// Indexes a URL waiting in its turn by its one-token variants.
    fn wait(&mut self, url: &str, id: u32) {
        for h in url_pattern::one_token_variant_hashes(url, true) {
            self.waiting.entry(h).or_default().push(id);
        }
    }

    /// Queues a new URL: last when it is of a file type never HTML, first when it is named like
    /// a target, last when it is of a barren shape or kind, else in its turn.
    fn queue(&mut self, url: String, id: u32) {
        let item = Item {
            node: id,
            script: false,
            sitemap: false,
        };
        if self.state.config.defer_barren && self.shapes.never_html(&url) {
            self.state.frontier.push_later(url, item);
            return;
        }
        let names = url_pattern::one_token_variant_hashes(&url, true);
        if names.iter().any(|h| self.target_names.contains(h)) {
            self.state.frontier.push_first(url, item);
            return;
        }
        // Indexed by name even when put off: a target named like it brings it first.
        for h in names {
            self.waiting.entry(h).or_default().push(id);
        }
        if self.state.config.defer_barren && self.shapes.is_barren(&url) {
            self.state.frontier.push_later(url, item);
        } else {
            self.state.frontier.push(url, item);
        }
    }

    /// Counts a page fetched by its shape, kind and file type; puts off what waits of one that
    /// became barren, and takes back what was put off of one that is barren no longer.
    fn count_shape(&mut self, node: u32, state: &NodeState) {
        let nodes = &self.state.map.nodes;
        let url = &nodes[node as usize].url;
        let mut change =
            self.shapes
                .fetched(url, parent_url(nodes, node), *state == NodeState::Target);
        if let Some(key) = self.shapes.answered(url, state) {
            change.barren.get_or_insert(key);
        }
        if !self.state.config.defer_barren {
            return;
        }
        if change.revived {
            self.take_back();
        }
        let Some(barren) = change.barren else {
            return;
        };
        let shapes = &self.shapes;
        let urls = self.state.frontier.defer(|url| shapes.is_barren(url));
        self.events.push_back(Event::PutOff {
            shape: barren,
            urls,
        });
    }

    /// Queues again in their turn the pages put off whose shape and kind are no longer barren.
    fn take_back(&mut self) {
        let shapes = &self.shapes;
        let urls = self.state.frontier.undefer(|url| !shapes.is_barren(url));
        if urls > 0 {
            self.events.push_back(Event::TakenBack { urls });
        }
    }

    /// The whole state as serde data (requests in flight whose results had not arrived are
    /// asked again after restore).
    pub fn snapshot(&self) -> Snapshot {
        self.state.clone()
    }

    /// A mapper from a snapshot. Requests that were in flight are queued again; the time
    /// budget (`max_duration_ms`) goes on from the running time saved.
    ///
    /// # Errors
    /// An unsupported snapshot version, an invalid config inside it, or node ids that point
    /// nowhere (see [`SiteMap::check`]).
    pub fn restore(snapshot: Snapshot) -> Result<Mapper, MapError> {
        let mut m = Mapper::from_state(snapshot)?;
        // Requests whose results arrived stay in flight (the results are in the snapshot);
        // the others are asked again.
        let s = &mut m.state;
        s.frontier
            .requeue_in_flight_except(|id| s.arrived.holds(id));
        s.arrived.retain_in_flight(&s.frontier);
        m.state.started_ms = None;
        Ok(m)
    }

    /// The map so far.
    pub fn site_map(&self) -> &SiteMap {
        &self.state.map
    }

    /// Consumes the mapper, returning the map.
    pub fn into_site_map(self) -> SiteMap {
        self.state.map
    }

    /// The configuration.
    pub fn config(&self) -> &MapConfig {
        &self.state.config
    }

    /// Counts for display.
    pub fn progress(&self) -> Progress {
        let mut p = self.state.progress;
        p.queued = self.state.frontier.queued();
        p.in_flight = self.state.frontier.in_flight();
        p
    }

    /// The links the trap guard refused so far, by reason (part of [`Progress::skipped`]).
    pub fn trap_refusals(&self) -> &[canon::Refusal] {
        self.state.traps.refusals()
    }

    /// Why it stopped, once it has.
    pub fn stopped(&self) -> Option<StopReason> {
        self.state.stopped
    }

    /// Events since the last call.
    pub fn drain_events(&mut self) -> Vec<Event> {
        self.events.drain(..).collect()
    }

    /// Stops: nothing new is handed out; results of requests in flight are still taken.
    pub fn cancel(&mut self) {
        self.stop(StopReason::Cancelled);
    }

    fn stop(&mut self, reason: StopReason) {
        if self.state.stopped.is_none() {
            self.state.stopped = Some(reason);
            self.state.frontier.clear_queue();
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
                    Some((id, result)) => self.take(id, result, now_ms),
                    None if in_flight > 0 => return Poll::Busy,
                    None => self.stop(StopReason::MaxPages),
                }
                continue;
            }
            match self.state.frontier.next(now_ms) {
                Next::Fetch(mut r) => {
                    if self.state.scripts.is_asked(&r.url) {
                        r.kind = RequestKind::Script;
                    } else if self.state.sitemap_files.contains(&r.url) {
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
                    self.state.map.nodes[q.item.node as usize].state = NodeState::Disallowed;
                    self.state.progress.skipped += 1;
                    self.events.push_back(Event::Skipped {
                        url: q.url,
                        reason: "robots.txt".into(),
                    });
                    self.answered(q.item.node);
                }
                Next::WaitUntil(t) => return Poll::WaitUntil(t),
                // A connection is waited for; held results stay held.
                Next::Full => return Poll::Busy,
                Next::Busy => {
                    // Everything that can be asked was: the oldest request's result is taken
                    // (if it arrived), then asking starts again.
                    match self.state.arrived.oldest(&self.state.frontier) {
                        Some((id, result)) => self.take(id, result, now_ms),
                        None => return Poll::Busy,
                    }
                }
                Next::Empty => {
                    // Forms whose answers never all came (disallowed, beyond the depth limit)
                    // are analysed now; that may queue more.
                    if self.state.stopped.is_none() && self.analyse_pending() {
                        continue;
                    }
                    if self.state.stopped.is_none() && self.release_held() {
                        continue;
                    }
                    if self.state.stopped.is_none() && self.state.frontier.resume_later() {
                        continue;
                    }
                    // Every link followed: the sitemaps, for the pages no link reaches.
                    if self.state.stopped.is_none() && self.queue_named_sitemaps() {
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

    /// Hands over the result of request `id`; the next [`Mapper::poll`] takes it. Results are
    /// taken in the order their requests were issued, one each time everything that can be
    /// asked has been ([`InOrder`]): one site gives one map whatever the order responses
    /// arrive in, even when the page budget cuts the site short.
    pub fn handle(&mut self, id: u64, result: FetchResult, _now_ms: u64) {
        self.state
            .arrived
            .hold(&mut self.state.frontier, id, result);
    }

    fn take(&mut self, id: u64, result: FetchResult, now_ms: u64) {
        let (q, result) = match self.state.frontier.deliver(id, result) {
            Delivered::Page(q, result) => (q, result),
            // Only the site's own robots.txt names its sitemaps (a sitemap host's speaks for
            // that host).
            Delivered::Robots { origin, sitemaps } => {
                if self.scope.contains(&format!("{origin}/")) {
                    for s in sitemaps {
                        if !self.state.map.sitemaps.contains(&s) {
                            self.state.map.sitemaps.push(s);
                        }
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
        if q.item.script || q.item.sitemap {
            if let FetchResult::Response(r) = &result {
                self.state.progress.bytes += r.body.len() as u64;
            }
            if q.item.script {
                self.state.progress.scripts += 1;
                self.script_answered(&q.url, script_links::read(result));
            } else {
                self.state.progress.sitemap_requests += 1;
                self.read_sitemap(q.url, &result);
            }
            if self.state.progress.requests() >= self.state.config.max_pages {
                self.stop(StopReason::MaxPages);
            }
            return;
        }
        let node = q.item.node;
        self.state.progress.fetched += 1;
        let (status, state) = self.examine(node, result);
        self.count_shape(node, &state);
        let n = &mut self.state.map.nodes[node as usize];
        n.state = state.clone();
        match &state {
            NodeState::Target => self.state.progress.targets += 1,
            NodeState::HttpError { .. } | NodeState::Failed { .. } | NodeState::TooLarge { .. } => {
                self.state.progress.errors += 1
            }
            NodeState::OffSite { .. } => self.state.progress.skipped += 1,
            _ => {}
        }
        self.events.push_back(Event::Fetched {
            url: n.url.clone(),
            depth: n.depth,
            status,
            similarity: n.similarity,
            target: state == NodeState::Target,
            state,
        });
        if self.state.progress.requests() >= self.state.config.max_pages {
            self.stop(StopReason::MaxPages);
        }
        self.answered(node);
        let _ = now_ms;
    }

    /// Decides what a response is; expands pages.
    fn examine(&mut self, node: u32, result: FetchResult) -> (u16, NodeState) {
        let r = match result {
            FetchResult::Failed(error) => return (0, NodeState::Failed { error }),
            FetchResult::Response(r) => r,
        };
        self.state.progress.bytes += r.body.len() as u64;
        if (300..400).contains(&r.status)
            && !r.final_url.is_empty()
            && !self.scope.contains(&r.final_url)
        {
            return (
                r.status,
                NodeState::OffSite {
                    final_url: r.final_url,
                },
            );
        }
        if !(200..300).contains(&r.status) {
            return (r.status, NodeState::HttpError { status: r.status });
        }
        let url = self.state.map.nodes[node as usize].url.clone();
        let final_c = if r.final_url.is_empty() {
            Some(url.clone())
        } else {
            canon::canonicalize(&r.final_url).map(|f| crate::fetch::same_post(&url, f))
        };
        let Some(final_c) = final_c else {
            return (
                r.status,
                NodeState::OffSite {
                    final_url: r.final_url,
                },
            );
        };
        if !self.scope.contains(&final_c) {
            return (r.status, NodeState::OffSite { final_url: final_c });
        }
        if final_c != url {
            match self.state.index.get(&final_c) {
                Some(&of) if of != node => return (r.status, NodeState::Duplicate { of }),
                _ => {
                    self.state.index.insert(final_c.clone(), node);
                    self.state.frontier.mark_seen(&final_c);
                }
            }
        }
        if let Some(of) = self.same_response(node, &r.body) {
            return (r.status, NodeState::Duplicate { of });
        }
        if !r.is_html() {
            return (
                r.status,
                NodeState::NotHtml {
                    media_type: r.media_type().unwrap_or_default(),
                },
            );
        }
        if r.truncated {
            return (
                r.status,
                NodeState::TooLarge {
                    max_bytes: self.state.config.max_bytes,
                },
            );
        }
        // The same bytes as a page already seen: a copy, known without parsing it.
        let body = body_signature(&r.body);
        if let Some(&of) = self.state.signatures.get(&body).filter(|&&of| of != node) {
            return (r.status, NodeState::Duplicate { of });
        }
        let mut page = match Page::parse(&r.body, &final_c, r.header("content-type"), &self.parse) {
            Ok(p) => p,
            Err(e) => {
                return (
                    r.status,
                    NodeState::Failed {
                        error: e.to_string(),
                    },
                );
            }
        };
        page.header_language(r.header("content-language"));
        let size = r.body.len();
        drop(r);
        let links = canonical_links(&page);
        let mut signatures = page_signatures(&page, &links);
        signatures.push(body);
        let seen = signatures.iter().find_map(|s| {
            self.state
                .signatures
                .get(s)
                .copied()
                .filter(|&of| of != node)
        });
        if let Some(of) = seen {
            return (200, NodeState::Duplicate { of });
        }
        for s in signatures {
            self.state.signatures.insert(s, node);
        }
        // A page naming the canonical URL, title and heading of a target already found is that
        // target under another URL, whatever it scores: counted once, its links (the same
        // page's) not read again, and no look-alike of its directory (before `place`).
        let canonical = canonical_signature(&page);
        if let Some(&of) = canonical
            .and_then(|sig| self.state.signatures.get(&sig))
            .filter(|&&of| of != node)
        {
            return (200, NodeState::Duplicate { of });
        }
        let verdict = self.example.compare(&page);
        let similar = self.place(node, &verdict, canonical);
        let n = &mut self.state.map.nodes[node as usize];
        n.title = page.title.chars().take(300).collect();
        n.heading.clone_from(&page.heading);
        n.lang.clone_from(&page.lang);
        // Links to follow: nofollow ones dropped (unless configured), then the GET equivalents
        // of submit-button pagination, as links.
        // Not obeying robots.txt (the user's choice) covers the robots meta tag too.
        let follow_all =
            self.state.config.follow_nofollow || !self.state.config.politeness.obey_robots;
        if page.robots.nofollow && !follow_all {
            self.state.progress.nofollow += 1;
        }
        let mut links: Vec<Option<String>> = if page.robots.nofollow && !follow_all {
            Vec::new()
        } else {
            page.links
                .iter()
                .zip(links)
                .map(|(l, u)| u.filter(|_| follow_all || !l.nofollow))
                .collect()
        };
        // The listing's further pages ("Next", page numbers): recorded once this page's links
        // are nodes, and no target while it is none.
        let continuing: Vec<String> = crate::continuation::continuations(&page)
            .into_iter()
            .filter_map(|i| links.get(i).cloned().flatten())
            .collect();
        listing::record(&mut self.state.map, node, &page, !continuing.is_empty());
        // A form's step (its answer asks for another choice) is no result, whatever it scores.
        let step = self.chain_step(node, &page);
        let similar = similar
            && !step
            && !self.state.map.continues_listing(node)
            && self.state.map.may_be_target(node);
        // The entry page is always expanded: it is where navigation starts, even when it looks
        // like the example. A target's links wait until everything else has been visited.
        if similar && node != 0 {
            // Only targets are known by what they declare ([`canonical_signature`]).
            if let Some(sig) = canonical {
                self.state.signatures.insert(sig, node);
            }
            let url = self.state.map.nodes[node as usize].url.clone();
            self.name_target(&url);
            if self.state.config.expand_targets {
                self.link(node, links, false);
                if !page.robots.nofollow || follow_all {
                    self.include_scripts(node, &page, false);
                }
            }
            return (200, NodeState::Target);
        }
        let found = if page.robots.nofollow && !follow_all {
            Vec::new()
        } else {
            self.new_forms(&page)
        };
        let pagination = self.pagination(&page);
        if let Some(f) = self.defers(node) {
            self.defer(f, node, size, links, pagination, found);
        } else if self.state.map.nodes[node as usize].form.is_some() {
            self.expand_response(node, links, pagination, found);
        } else {
            links.extend(pagination.into_iter().map(Some));
            self.expand(node, links, found);
            if !page.robots.nofollow || follow_all {
                self.include_scripts(node, &page, true);
            }
        }
        for url in continuing {
            if let Some(&q) = self.state.index.get(&url)
                && q != 0
                && q != node
            {
                self.state.map.continued.entry(q).or_insert(node);
            }
        }
        (200, NodeState::Page)
    }

    /// Records a page's similarity and says whether it reaches θ. A page outside the example's
    /// directory keeps its whole score once its directory holds [`similarity::PLACE_SUPPORT`]
    /// look-alikes; the one that completes the count also promotes the earlier ones to targets
    /// (their links were followed: a target's links are not used for learning), and registers
    /// what they declare (`canonical`, [`canonical_signature`]) as a target's.
    fn place(&mut self, node: u32, verdict: &similarity::Verdict, canonical: Option<u64>) -> bool {
        let threshold = verdict.threshold;
        let n = &mut self.state.map.nodes[node as usize];
        n.similarity = Some(verdict.score as f32);
        if verdict.place_agreement >= 1.0 {
            return verdict.similar;
        }
        let unplaced = verdict.comparison.similarity * verdict.kind_agreement;
        n.unplaced = Some(unplaced as f32);
        if unplaced < threshold || node == 0 {
            return verdict.similar;
        }
        let dir = similarity::place(&n.url).join("/");
        let look_alikes = self.state.look_alikes.entry(dir).or_default();
        look_alikes.push(node);
        match look_alikes.len() {
            k if k < similarity::PLACE_SUPPORT => {
                if let Some(sig) = canonical {
                    self.state.look_alike_canonicals.insert(node, sig);
                }
                return verdict.similar;
            }
            k if k == similarity::PLACE_SUPPORT => {
                let mut promoted = Vec::new();
                for &earlier in &look_alikes[..k - 1] {
                    let listing = self.state.map.continues_listing(earlier);
                    let e = &mut self.state.map.nodes[earlier as usize];
                    e.similarity = e.unplaced;
                    if e.state == NodeState::Page && !listing {
                        e.state = NodeState::Target;
                        self.state.progress.targets += 1;
                        promoted.push(earlier);
                        self.events.push_back(Event::Promoted {
                            url: e.url.clone(),
                            similarity: e.unplaced,
                        });
                    }
                }
                for earlier in promoted {
                    // Known by what it declares from now on, as a target found so.
                    if let Some(sig) = self.state.look_alike_canonicals.remove(&earlier) {
                        self.state.signatures.entry(sig).or_insert(earlier);
                    }
                    let nodes = &self.state.map.nodes;
                    let url = nodes[earlier as usize].url.clone();
                    if self.shapes.promoted(&url, parent_url(nodes, earlier))
                        && self.state.config.defer_barren
                    {
                        self.take_back();
                    }
                    self.name_target(&url);
                }
            }
            _ => {}
        }
        self.state.map.nodes[node as usize].similarity = Some(unplaced as f32);
        true
    }

    /// Queues the links of `node` (canonical, None where unusable) and submits its new forms.
    fn expand(
        &mut self,
        node: u32,
        canonical: Vec<Option<String>>,
        found: Vec<(FormSpec, Vec<String>)>,
    ) {
        let mut links = self.link(node, canonical, true);
        for id in self.submit_forms(node, found) {
            if !links.contains(&id) {
                links.push(id);
            }
        }
        self.state.map.nodes[node as usize].links = links;
    }

    /// Records the links of `node` (canonical, None where unusable) in the map, creating nodes
    /// for new URLs in scope: queued when `queue`, else held back ([`MapConfig::expand_targets`]).
    /// Returns the node ids, deduplicated, in document order (also stored as the node's links).
    fn link(&mut self, node: u32, canonical: Vec<Option<String>>, queue: bool) -> Vec<u32> {
        let depth = self.state.map.nodes[node as usize].depth;
        // Appended to those recorded before (a script's links arrive after the page's).
        let mut links: Vec<u32> = std::mem::take(&mut self.state.map.nodes[node as usize].links);
        // A listing may link thousands of pages: deduplicated through a set, not a scan.
        let mut linked: HashSet<u32> = links.iter().copied().collect();
        for url in canonical {
            let Some(url) = url else {
                continue;
            };
            if !self.scope.contains(&url) {
                continue;
            }
            let id = match self.state.index.get(&url) {
                // First met on a target and held back; an ordinary page links it too, so it
                // is visited in its turn.
                Some(&id)
                    if queue && self.state.stopped.is_none() && self.state.held.remove(&id) =>
                {
                    self.queue(url, id);
                    id
                }
                Some(&id) => id,
                None => {
                    if let Some(reason) = self.state.traps.check(&url) {
                        self.state.progress.skipped += 1;
                        self.events.push_back(Event::Skipped {
                            url,
                            reason: format!("trap guard: {reason:?}"),
                        });
                        continue;
                    }
                    let id = self.state.map.nodes.len() as u32;
                    self.shapes.found(&self.state.map.nodes[node as usize].url);
                    self.state.map.nodes.push(Node {
                        url: url.clone(),
                        parent: Some(node),
                        depth: depth.saturating_add(1),
                        state: NodeState::Discovered,
                        similarity: None,
                        unplaced: None,
                        title: String::new(),
                        heading: String::new(),
                        lang: String::new(),
                        links: Vec::new(),
                        form: None,
                    });
                    self.state.index.insert(url.clone(), id);
                    if depth < self.state.config.max_depth && self.state.stopped.is_none() {
                        if queue {
                            self.queue(url, id);
                        } else {
                            self.state.held.insert(id);
                        }
                    }
                    id
                }
            };
            if id != node && linked.insert(id) {
                links.push(id);
            }
        }
        self.state.map.nodes[node as usize].links = links.clone();
        links
    }

    /// The same-site scripts `page` (node `node`) includes: the page URLs of those already read
    /// become its links now, the others are asked (first: they carry navigation) and give
    /// their links when they arrive ([`Mapper::script_answered`]). Not called for the answers
    /// to form submissions (their links go through `mapper/forms.rs`), nor under `nofollow`.
    fn include_scripts(&mut self, node: u32, page: &Page, queue: bool) {
        if !self.state.config.script_links {
            return;
        }
        let own = &self.state.map.nodes[node as usize].url;
        let base = (page.base != *own).then(|| page.base.clone());
        let scripts: Vec<String> =
            script_links::included(page, |u| self.scope.contains(u)).collect();
        for url in scripts {
            let waiter = ScriptWaiter {
                node,
                base: base.clone(),
                queue,
            };
            let max = self.state.config.max_scripts;
            match self.state.scripts.include(&url, waiter, max) {
                Include::Read => self.link_script(node, base.as_deref(), &url, queue),
                Include::Ask => {
                    let item = Item {
                        node,
                        script: true,
                        sitemap: false,
                    };
                    if self.state.stopped.is_some() {
                        self.script_answered(&url, Err("mapping stopped".into()));
                    } else if !self.state.frontier.push_first(url.clone(), item) {
                        self.script_answered(&url, Err("already fetched as a page".into()));
                    }
                }
                Include::Waiting | Include::Over => {}
            }
        }
    }

    /// A script's outcome: its page URLs become links of every page that waited for it.
    fn script_answered(&mut self, url: &str, outcome: Result<Vec<String>, String>) {
        for w in self.state.scripts.answer(url, outcome) {
            self.link_script(w.node, w.base.as_deref(), url, w.queue);
        }
    }

    /// Adds the page URLs of the script at `script` (read), resolved against the page's base,
    /// to the page's links.
    fn link_script(&mut self, node: u32, base: Option<&str>, script: &str, queue: bool) {
        let base = base.unwrap_or(&self.state.map.nodes[node as usize].url);
        let resolved = self.state.scripts.resolved(script, base).to_vec();
        let before = self.state.map.nodes[node as usize].links.len();
        let links = self.link(node, resolved, queue);
        if links.len() > before {
            let added = &links[before..];
            self.state
                .map
                .scripted
                .entry(node)
                .or_default()
                .extend_from_slice(added);
        }
    }

    /// Queues the sitemaps robots.txt named ([`MapConfig::read_sitemaps`]), once, when every
    /// link has been followed; false when there were none to queue.
    fn queue_named_sitemaps(&mut self) -> bool {
        if self.state.sitemaps_queued
            || !self.state.config.read_sitemaps
            || !self.state.config.politeness.obey_robots
        {
            return false;
        }
        self.state.sitemaps_queued = true;
        let mut named = self.state.map.sitemaps.clone();
        if named.is_empty() {
            // None named: the protocol's common locations, where a missing file is no error.
            named = crate::sitemap::common_locations(&self.state.map.nodes[0].url);
            self.state.sitemap_guessed.extend(named.iter().cloned());
        }
        self.queue_sitemaps(named)
    }

    /// Queues sitemap files on the site or on a host its robots.txt names sitemaps on
    /// ([`crate::sitemap::named_hosts`]), each once, at most [`crate::sitemap::MAX_FILES`] in
    /// all; those on other hosts are passed over, said so. Returns whether any was queued.
    fn queue_sitemaps(&mut self, urls: Vec<String>) -> bool {
        let scope = &self.scope;
        let hosts: BTreeSet<String> =
            crate::sitemap::named_hosts(&self.state.map.sitemaps, |u| scope.contains(u)).collect();
        let (read, refused) = crate::sitemap::admit_all(
            urls,
            &mut self.state.sitemap_files,
            |u| scope.contains(u),
            |h| hosts.contains(h),
        );
        let any = !read.is_empty();
        for url in read {
            let item = Item {
                node: 0,
                script: false,
                sitemap: true,
            };
            // A page may have linked it (a footer's "Sitemap"): fetched then as a page, its
            // body not kept, it is asked again as a sitemap.
            self.state.frontier.push_again(url, item);
        }
        for (url, why) in refused {
            self.sitemap_skipped(url, why);
        }
        any
    }

    /// A sitemap's answer: an index's sitemaps are queued; the pages a sitemap lists that no
    /// link reached (nor an earlier sitemap) become links of the entry page, queued as links
    /// are (those named like a target first). Pages already on the map gain no link: their
    /// place in the site is where links put them.
    fn read_sitemap(&mut self, url: String, result: &FetchResult) {
        let sitemap = match crate::sitemap::read(result) {
            Ok(s) => s,
            Err(e) => {
                self.sitemap_skipped(url, format!("sitemap not read: {e}"));
                return;
            }
        };
        self.state.progress.sitemaps += 1;
        if sitemap.truncated {
            self.events
                .push_back(Event::SitemapSkipped(crate::sitemap::NotRead {
                    url: url.clone(),
                    reason: crate::sitemap::truncated_note(),
                    unreachable: false,
                }));
        }
        if sitemap.kind == crate::sitemap::Kind::Index {
            self.queue_sitemaps(sitemap.urls);
            return;
        }
        // The page budget bounds what is created: a site listing millions of pages must not
        // fill the map (memory) beyond what mapping may fetch.
        let room = self
            .state
            .config
            .max_pages
            .saturating_sub(self.state.progress.requests() + self.state.frontier.queued());
        let mut new: Vec<Option<String>> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for u in &sitemap.urls {
            if new.len() >= room {
                break;
            }
            if let Some(c) = canon::canonicalize(u)
                && self.scope.contains(&c)
                && !self.state.index.contains_key(&c)
                && seen.insert(c.clone())
            {
                new.push(Some(c));
            }
        }
        let before = self.state.map.nodes[0].links.len();
        let links = self.link(0, new, true);
        let added = links[before.min(links.len())..].to_vec();
        self.state.progress.sitemap_links += added.len();
        self.state.map.sitemap_links.extend(added);
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

    /// Queues the URLs held back from targets; false when there were none.
    fn release_held(&mut self) -> bool {
        let held = std::mem::take(&mut self.state.held);
        let any = !held.is_empty();
        for id in held {
            let url = self.state.map.nodes[id as usize].url.clone();
            self.queue(url, id);
        }
        any
    }
}

impl Machine for Mapper {
    fn poll(&mut self, now_ms: u64) -> Poll {
        Mapper::poll(self, now_ms)
    }
    fn handle(&mut self, id: u64, result: FetchResult, now_ms: u64) {
        Mapper::handle(self, id, result, now_ms)
    }
    fn cancel(&mut self) {
        Mapper::cancel(self)
    }
}

/// The URL of `node`'s parent, if any.
fn parent_url(nodes: &[Node], node: u32) -> Option<&str> {
    nodes[node as usize]
        .parent
        .and_then(|p| nodes.get(p as usize))
        .map(|p| p.url.as_str())
}

#[cfg(test)]
pub(crate) mod tests;
