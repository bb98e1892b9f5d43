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
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

mod forms;
pub mod shapes;
pub use forms::{
    FORM_LIMIT_REACHED, FormState, FormsConfig, MappedForm, Submitted, form_key, self_shape,
};

use serde::{Deserialize, Serialize};

use crate::canon::{self, CompiledScope, Scope, TrapGuard, TrapLimits};
use crate::dom::hash::FxHashMap;
use crate::dom::{Page, ParseOptions};
pub use crate::fetch::Poll;
use crate::fetch::{
    Delivered, FetchResult, Frontier, InOrder, Machine, Next, Politeness, RequestKind,
};
use crate::forms::FormSpec;
use crate::script_links::{self, Include, ScriptTable};
use crate::similarity::{self, Example};
use crate::url_pattern;

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

/// What became of a URL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum NodeState {
    /// Known, not fetched (queued, or beyond the limits).
    Discovered,
    /// Fetched HTML, not similar to the example: expanded.
    Page,
    /// Fetched HTML similar to the example.
    Target,
    /// Same content (or same final URL) as another node.
    Duplicate {
        /// The node it duplicates.
        of: u32,
    },
    /// Not fetched: robots.txt disallows it.
    Disallowed,
    /// A non-HTML response.
    NotHtml {
        /// Its media type.
        media_type: String,
    },
    /// HTTP error status (or an unfollowed redirect).
    HttpError {
        /// The status.
        status: u16,
    },
    /// Redirected off the site.
    OffSite {
        /// Where it went.
        final_url: String,
    },
    /// Not read: its body passed the size limit ([`MapConfig::max_bytes`] of the mapping).
    #[serde(rename_all = "camelCase")]
    TooLarge {
        /// The limit it passed.
        max_bytes: usize,
    },
    /// Network error, or a page that could not be parsed.
    Failed {
        /// Why.
        error: String,
    },
}

/// One URL of the map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Canonical URL (for a POST submission, its key `action#exemplar-post=body`).
    pub url: String,
    /// The page that first linked to it (breadth-first tree); None for the entry.
    pub parent: Option<u32>,
    /// Link depth from the entry.
    pub depth: u32,
    /// What became of it.
    #[serde(flatten)]
    pub state: NodeState,
    /// Similarity to the example (fetched HTML pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// For a fetched page outside the example's directory ([`similarity::place`]): its
    /// similarity before the place weight. `similarity` equals it when the page's directory
    /// holds enough look-alikes ([`similarity::supported_places`]), and is it × (1 − place
    /// weight) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unplaced: Option<f32>,
    /// `<title>` of fetched pages.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Its main heading ([`crate::dom::Page::heading`]; fetched HTML pages): the review reads
    /// the kind of page it names ([`crate::heading`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// The language it declares ([`crate::dom::Page::lang`]; fetched HTML pages): the review
    /// groups targets by it ([`crate::language`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lang: String,
    /// Links of an expanded page: node ids, deduplicated, in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<u32>,
    /// The form (index in [`SiteMap::forms`]) this URL submits, or whose result page it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<u32>,
}

#[cfg(test)]
impl Node {
    /// A fetched page one link from the entry, scored `similarity` (unit tests' maps).
    pub(crate) fn scored(url: String, state: NodeState, similarity: f32) -> Node {
        Node {
            url,
            parent: Some(0),
            depth: 1,
            state,
            similarity: Some(similarity),
            unplaced: None,
            title: String::new(),
            heading: String::new(),
            lang: String::new(),
            links: Vec::new(),
            form: None,
        }
    }
}

/// A group's samples ([`crate::heading::KIND_SAMPLES`] of `nodes`, which it sorts): the most
/// similar to the example, the middle one and the least. A group holding a few pages of the
/// example's kind among many others shows one of them, and a group as large as a directory is
/// better shown by its ends and middle than by its first few.
pub(crate) fn samples(nodes: &mut [&Node]) -> Vec<String> {
    nodes.sort_by(|a, b| {
        let score = |n: &Node| n.similarity.unwrap_or(0.0);
        score(b)
            .total_cmp(&score(a))
            .then_with(|| a.url.cmp(&b.url))
    });
    let urls: Vec<&str> = nodes.iter().map(|n| n.url.as_str()).collect();
    spread(&urls, crate::heading::KIND_SAMPLES)
}

/// Up to `k` of `urls`, in their order, spread evenly over them (the first and the last among
/// them).
fn spread(urls: &[&str], k: usize) -> Vec<String> {
    let k = k.min(urls.len());
    (0..k)
        .map(|i| {
            let at = if k == 1 {
                0
            } else {
                i * (urls.len() - 1) / (k - 1)
            };
            urls[at].to_string()
        })
        .collect()
}

/// Targets sharing a key ([`SiteMap::targets_by`]): a kind of page a verdict may leave out whole.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetGroup {
    /// What they share (a language tag, a directory URL).
    pub key: String,
    /// How many targets (with those a verdict on the key left out).
    pub targets: usize,
    /// Up to [`crate::heading::KIND_SAMPLES`] of them from the most similar to the example to
    /// the least, spread over them (the most, the middle, the least similar).
    pub samples: Vec<String>,
    /// The example is one of them.
    pub example: bool,
    /// The key is judged unlike the example: its targets are left out.
    pub unlike: bool,
}

/// The map of a site: node 0 is the entry page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteMap {
    /// The entry URL as given.
    pub entry: String,
    /// The example page's URL.
    pub example: String,
    /// θ applied.
    pub threshold: f64,
    /// The place weight applied to pages outside the example's directory ([`Node::unplaced`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub place_weight: f64,
    /// Every URL met, by id.
    pub nodes: Vec<Node>,
    /// The forms met, with what mapping did with them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<MappedForm>,
    /// Mapping visited what targets link to ([`MapConfig::expand_targets`]): the map shows
    /// where targets' links lead (false in maps saved before this field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub target_links: bool,
    /// The links each page has only through the same-site scripts it includes
    /// ([`MapConfig::script_links`]) (node id → link ids, a subset of its
    /// `links`): learning checks whether the pattern needs them ([`crate::pattern`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripted: BTreeMap<u32, Vec<u32>>,
    /// The sitemaps the robots.txt of the site's hosts name (`Sitemap:` lines, resolved): a
    /// crawl reads them ([`crate::crawler::CrawlConfig::read_sitemaps`]), mapping once it has
    /// followed every link ([`MapConfig::read_sitemaps`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sitemaps: Vec<String>,
    /// The pages no link reached that the sitemaps list: links of the entry page (a subset of
    /// its `links`), as a crawl reads sitemaps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sitemap_links: Vec<u32>,
}

/// A map's breadth-first tree ([`SiteMap::breadth_first`]), indexed by node id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreadthFirst {
    /// The page a node is first met from (None for the entry).
    pub parent: Vec<Option<u32>>,
    /// Link depth from the entry (None: reached only through pages not expanded).
    pub depth: Vec<Option<u32>>,
    /// The order nodes are met in (None: not reached).
    pub order: Vec<Option<u32>>,
}

impl SiteMap {
    /// Checks that every node id the map holds names one of its nodes and every form index
    /// one of its forms. A map read back from a file is input: learning from one whose ids
    /// point nowhere must be a clear error.
    ///
    /// # Errors
    /// The first reference that points nowhere.
    pub fn check(&self) -> Result<(), String> {
        let (n, f) = (self.nodes.len(), self.forms.len());
        let dangling = |what: String, id: u32, len: usize, of: &str| {
            format!("{what} is {id}, but the map has {len} {of}")
        };
        let node = |id: u32, what: &dyn Fn() -> String| {
            ((id as usize) < n)
                .then_some(())
                .ok_or_else(|| dangling(what(), id, n, "nodes"))
        };
        for (i, x) in self.nodes.iter().enumerate() {
            if let Some(p) = x.parent {
                node(p, &|| format!("the parent of node {i}"))?;
            }
            for &l in &x.links {
                node(l, &|| format!("a link of node {i}"))?;
            }
            if let NodeState::Duplicate { of } = x.state {
                node(of, &|| format!("the page node {i} duplicates"))?;
            }
            for &l in self.scripted.get(&(i as u32)).into_iter().flatten() {
                node(l, &|| format!("a scripted link of node {i}"))?;
            }
            if let Some(form) = x.form.filter(|&form| form as usize >= f) {
                return Err(dangling(format!("the form of node {i}"), form, f, "forms"));
            }
        }
        for &l in &self.sitemap_links {
            node(l, &|| "a page a sitemap lists".into())?;
        }
        for (i, form) in self.forms.iter().enumerate() {
            node(form.page, &|| format!("the page of form {i}"))?;
            for s in &form.submissions {
                node(s.node, &|| format!("a submission of form {i}"))?;
            }
            match &form.state {
                FormState::Analysed { expanded } => {
                    for &e in expanded {
                        node(e, &|| format!("a response form {i} expanded"))?;
                    }
                }
                FormState::Ignored { response } => {
                    node(*response, &|| format!("the response of form {i}"))?;
                }
                FormState::Submitted | FormState::Skipped { .. } => {}
            }
        }
        Ok(())
    }

    /// The example's URL as the map's nodes spell it: canonical, or as given when it does not
    /// parse (map URLs are canonical; the example's is as the user gave it).
    pub fn canonical_example(&self) -> String {
        canon::canonicalize(&self.example).unwrap_or_else(|| self.example.clone())
    }

    /// The targets a verdict on a whole kind leaves out: those `of_kind` says are of it, except
    /// the example (like itself) and the pages judged like it (`like`, canonical URLs); the
    /// entry is left to the caller (a crawl's start, judged apart). Node ids, by URL.
    pub fn left_out_of_kind(
        &self,
        like: &std::collections::HashSet<&str>,
        of_kind: impl Fn(u32, &Node) -> bool,
    ) -> Vec<u32> {
        let example = self.canonical_example();
        let mut out: Vec<u32> = self
            .nodes
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(i, n)| {
                n.state == NodeState::Target
                    && n.url != example
                    && !like.contains(n.url.as_str())
                    && of_kind(*i as u32, n)
            })
            .map(|(i, _)| i as u32)
            .collect();
        self.sort_by_url(&mut out);
        out
    }

    /// The targets grouped by a key of theirs (`key`: a page's declared language, its
    /// directory), for a verdict on a whole group: counting those `left_out` by such a verdict
    /// (canonical URLs) and listing every key in `unlike` (judged unlike, even when none of its
    /// pages is left), the most targets first. Empty when the targets have fewer than two keys
    /// and no key is judged unlike: there is no choice to offer. Targets without a key are not
    /// counted.
    pub fn targets_by(
        &self,
        left_out: &[String],
        unlike: &[String],
        key: impl Fn(&Node) -> Option<String>,
    ) -> Vec<TargetGroup> {
        let left_out: HashSet<&str> = left_out.iter().map(String::as_str).collect();
        let example = self.canonical_example();
        let mut by_key: BTreeMap<String, (Vec<&Node>, bool)> = unlike
            .iter()
            .map(|k| (k.clone(), (Vec::new(), false)))
            .collect();
        for n in &self.nodes {
            if n.state != NodeState::Target && !left_out.contains(n.url.as_str()) {
                continue;
            }
            let Some(k) = key(n) else { continue };
            let entry = by_key.entry(k).or_default();
            entry.0.push(n);
            entry.1 |= n.url == example;
        }
        if by_key.len() < 2 && unlike.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<TargetGroup> = by_key
            .into_iter()
            .map(|(key, (mut nodes, example))| TargetGroup {
                unlike: unlike.contains(&key),
                key,
                targets: nodes.len(),
                samples: samples(&mut nodes),
                example,
            })
            .collect();
        out.sort_by(|a, b| b.targets.cmp(&a.targets).then_with(|| a.key.cmp(&b.key)));
        out
    }

    /// Sorts node ids by their URL (the order review lists and verdicts' results are given in).
    pub fn sort_by_url(&self, ids: &mut [u32]) {
        ids.sort_by(|a, b| {
            self.nodes[*a as usize]
                .url
                .cmp(&self.nodes[*b as usize].url)
        });
    }

    /// Ids of target nodes.
    pub fn targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.state == NodeState::Target)
            .map(|(i, _)| i as u32)
    }

    /// The map as it would read at another θ, without refetching anything: fetched pages
    /// scoring at least `threshold` become targets, targets below it become pages. A page
    /// turned target keeps its links (pattern learning ignores a target's links, and moving θ
    /// back restores the page); a target turned page has the links mapping read from it (none
    /// when targets were not expanded, [`MapConfig::expand_targets`]), so what lies only behind
    /// it may stay unknown until the site is mapped again. The entry page stays a page, as
    /// while mapping.
    pub fn with_threshold(&self, threshold: f64) -> SiteMap {
        self.with_threshold_placed_at(threshold, threshold)
    }

    /// [`SiteMap::with_threshold`], deciding which directories hold look-alikes at
    /// `place_threshold` instead of `threshold` (mapping's θ, for a θ taken from the scores:
    /// [`crate::pattern::relabelled`]).
    pub fn with_threshold_placed_at(&self, threshold: f64, place_threshold: f64) -> SiteMap {
        let mut map = self.clone();
        map.threshold = threshold;
        map.place_look_alikes(place_threshold);
        for (i, node) in map.nodes.iter_mut().enumerate() {
            if i == 0 || !matches!(node.state, NodeState::Page | NodeState::Target) {
                continue;
            }
            if let Some(s) = node.similarity {
                node.state = if f64::from(s) >= threshold {
                    NodeState::Target
                } else {
                    NodeState::Page
                };
            }
        }
        map
    }

    /// Sets the similarity of the pages outside the example's directory from their similarity
    /// before the place weight, at θ = `threshold`: whole in directories holding enough
    /// look-alikes ([`similarity::supported_places`]), weighted elsewhere. What mapping does page
    /// by page, done over the whole map (for another θ).
    fn place_look_alikes(&mut self, threshold: f64) {
        let example = similarity::place(&self.example);
        // The entry page is never a target, so never a look-alike (as while mapping).
        let places: Vec<Option<Vec<String>>> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                n.unplaced
                    .filter(|_| i != 0)
                    .map(|_| similarity::place(&n.url))
            })
            .collect();
        let supported = similarity::supported_places(
            &example,
            self.nodes
                .iter()
                .zip(&places)
                .filter_map(|(n, p)| Some((p.as_deref()?, f64::from(n.unplaced?)))),
            threshold,
        );
        let weight = 1.0 - self.place_weight.clamp(0.0, 1.0);
        for (node, place) in self.nodes.iter_mut().zip(&places) {
            if let (Some(unplaced), Some(place)) = (node.unplaced, place) {
                node.similarity = Some(if supported.contains(place.as_slice()) {
                    unplaced
                } else {
                    (f64::from(unplaced) * weight) as f32
                });
            }
        }
    }

    /// Applies a user's verdicts on top of θ: each `like` page becomes a target whatever its
    /// similarity, each `unlike` page an ordinary page (what a user who knows the site says about
    /// pages near θ). URLs are compared canonicalised. As with [`SiteMap::with_threshold`], a
    /// target turned page keeps only the links mapping read from it. On error the map is
    /// unchanged.
    ///
    /// # Errors
    /// A URL that is not absolute, was not fetched while mapping (only fetched pages were
    /// measured), is the entry page (which learning judges, [`crate::pattern::learn_corrected`]),
    /// the example marked unlike, or is in both lists.
    pub fn correct(&mut self, like: &[String], unlike: &[String]) -> Result<(), String> {
        if like.is_empty() && unlike.is_empty() {
            return Ok(());
        }
        let ids: HashMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.url.as_str(), i))
            .collect();
        let find = |url: &str| -> Result<usize, String> {
            if url.contains(crate::fetch::POST_MARK) {
                return Err(format!(
                    "{url} is a POST form submission, not a page of its own"
                ));
            }
            let canonical = canon::canonicalize(url)
                .ok_or_else(|| format!("{url:?} is not an absolute URL"))?;
            let id = *ids
                .get(canonical.as_str())
                .ok_or_else(|| format!("{url} was not met while mapping"))?;
            let why = match &self.nodes[id].state {
                // The map keeps its entry a listing: a verdict on it is the pattern's
                // ([`crate::pattern::learn_corrected`]).
                NodeState::Page | NodeState::Target if id == 0 => {
                    return Err(format!(
                        "{url} is the entry page: the map keeps it a listing, and learning applies a verdict on it"
                    ));
                }
                NodeState::Page | NodeState::Target => return Ok(id),
                NodeState::Discovered => "was met but not fetched while mapping".to_string(),
                NodeState::Duplicate { of } => format!(
                    "has the same content as {}, which stands for it",
                    self.nodes
                        .get(*of as usize)
                        .map_or("another page", |n| n.url.as_str())
                ),
                NodeState::Disallowed => "is disallowed by robots.txt".to_string(),
                NodeState::NotHtml { .. } => "is not an HTML page".to_string(),
                NodeState::HttpError { status } => format!("answered HTTP {status}"),
                NodeState::OffSite { .. } => "redirects off the site".to_string(),
                NodeState::TooLarge { max_bytes } => {
                    format!("is larger than {max_bytes} bytes, the size limit it was mapped with")
                }
                NodeState::Failed { .. } => "could not be fetched or read".to_string(),
            };
            Err(format!("{url} {why}, so it was never measured"))
        };
        let example = canon::canonicalize(&self.example);
        let liked: Vec<usize> = like.iter().map(|u| find(u)).collect::<Result<_, _>>()?;
        let mut unliked = Vec::with_capacity(unlike.len());
        for url in unlike {
            let id = find(url)?;
            if example.as_deref() == Some(self.nodes[id].url.as_str()) {
                return Err(format!("{url} is the example page: it is like itself"));
            }
            if liked.contains(&id) {
                return Err(format!("{url} is marked both like and unlike the example"));
            }
            unliked.push(id);
        }
        // Checked first, applied after: a refused verdict leaves the map as it was.
        for id in unliked {
            self.nodes[id].state = NodeState::Page;
        }
        for id in liked {
            self.nodes[id].state = NodeState::Target;
        }
        Ok(())
    }

    /// Fetched pages below θ, most similar first, at most `n`: the pages a user checks when a
    /// target seems missing (never the entry page, nor a POST form submission).
    pub fn near_misses(&self, n: usize) -> Vec<u32> {
        let mut below: Vec<(u32, f32)> = self
            .nodes
            .iter()
            .enumerate()
            .skip(1)
            // A POST submission has no URL of its own: a crawl cannot collect it as a target.
            .filter(|(_, node)| {
                node.state == NodeState::Page && !node.url.contains(crate::fetch::POST_MARK)
            })
            .filter_map(|(i, node)| node.similarity.map(|s| (i as u32, s)))
            .filter(|&(_, s)| f64::from(s) < self.threshold)
            .collect();
        // Ties by URL, not by id: ids follow the order responses arrived in.
        let url = |i: u32| self.nodes[i as usize].url.as_str();
        below.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| url(a.0).cmp(url(b.0))));
        below.truncate(n);
        below.into_iter().map(|(i, _)| i).collect()
    }

    /// The breadth-first tree of the map's link graph from the entry: every node's parent and
    /// depth as a mapper fetching one page at a time would have met them — links taken in
    /// document order, targets not expanded; then, for what only targets lead to, the walk goes
    /// on from the targets in the order it met them, expanding every page (mapping follows
    /// targets' links last, [`MapConfig::expand_targets`]). With several requests in flight,
    /// [`Node::parent`] records whichever linking page answered first, so learning from it
    /// would give one site different patterns from run to run; this tree depends on the pages
    /// alone. Nodes no walk reaches keep their recorded parent.
    pub fn breadth_first(&self) -> BreadthFirst {
        let n = self.nodes.len();
        let mut parent: Vec<Option<u32>> = self.nodes.iter().map(|node| node.parent).collect();
        let mut depth: Vec<Option<u32>> = vec![None; n];
        let mut order: Vec<Option<u32>> = vec![None; n];
        let mut met = 0u32;
        let mut queue = VecDeque::new();
        if n > 0 {
            parent[0] = None;
            depth[0] = Some(0);
            order[0] = Some(0);
            queue.push_back(0u32);
        }
        // Two walks: the first does not expand targets; the second starts from the targets the
        // first met, in its order, and expands everything.
        let mut expand_targets = false;
        loop {
            while let Some(u) = queue.pop_front() {
                let node = &self.nodes[u as usize];
                if u != 0 && node.state == NodeState::Target && !expand_targets {
                    continue;
                }
                let d = depth[u as usize].unwrap_or(0);
                for &v in &node.links {
                    if let Some(slot) = depth.get_mut(v as usize)
                        && slot.is_none()
                    {
                        *slot = Some(d + 1);
                        parent[v as usize] = Some(u);
                        met += 1;
                        order[v as usize] = Some(met);
                        queue.push_back(v);
                    }
                }
            }
            if expand_targets {
                break;
            }
            expand_targets = true;
            let mut targets: Vec<u32> = self
                .targets()
                .filter(|&t| t != 0 && order[t as usize].is_some())
                .collect();
            targets.sort_by_key(|&t| order[t as usize]);
            queue.extend(targets);
        }
        BreadthFirst {
            parent,
            depth,
            order,
        }
    }

    /// The pages mapping took from the sitemaps that it fetched and parsed
    /// ([`SiteMap::sitemap_links`], without those disallowed, failed or not HTML).
    pub fn sitemap_pages(&self) -> usize {
        self.sitemap_links
            .iter()
            .filter(|&&id| self.is_fetched(id))
            .count()
    }

    /// Whether a node was fetched and parsed (page or target).
    pub fn is_fetched(&self, id: u32) -> bool {
        matches!(
            self.nodes.get(id as usize).map(|n| &n.state),
            Some(NodeState::Page | NodeState::Target)
        )
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
                crate::pattern::count(self.nofollow, "page"),
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
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
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
                scripted: BTreeMap::new(),
                sitemaps: Vec::new(),
                sitemap_links: Vec::new(),
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
                forms: Vec::new(),
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
                    let e = &mut self.state.map.nodes[earlier as usize];
                    e.similarity = e.unplaced;
                    if e.state == NodeState::Page {
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
        let named = self.state.map.sitemaps.clone();
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

    /// A sitemap not read for `reason`, said so and counted as skipped.
    fn sitemap_skipped(&mut self, url: String, reason: String) {
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

/// The canonical URL of each of the page's links (None where a link does not canonicalise), in
/// `page.links` order: computed once per page for both the signature and the expansion.
pub(crate) fn canonical_links(page: &Page) -> Vec<Option<String>> {
    page.links
        .iter()
        .map(|l| canon::canonicalize(&l.url))
        .collect()
}

/// The content signature of a page that tells the same page under several URLs: title, text
/// words, tree size and canonical links (`links` from [`canonical_links`]).
#[cfg(test)]
pub(crate) fn page_signature(page: &Page, links: &[Option<String>]) -> u64 {
    let own = canon::canonicalize(&page.url);
    signature_of(page, links, own.as_deref(), &[])
}

/// The signature of a response's bytes, another signature of its page beside
/// [`page_signatures`]: the same bytes under two URLs are one document, whatever its relative
/// links resolve to there. Debian's Apache manual links each untranslated page of `da/`, `de/`…
/// to the English one (a symbolic link), so the copies' canonical links lead to their own
/// language's neighbours and their text signatures differ; their bytes do not. Tagged apart from
/// the text signatures, with which it shares its map. Eight bytes a step ([`canon::mix_bytes`]:
/// a byte a step, as FNV goes, cost 2.4% of mapping's instructions on the PostgreSQL
/// documentation).
pub(crate) fn body_signature(body: &[u8]) -> u64 {
    canon::mix_bytes(canon::bytes_signature(b"\0body\0"), body)
}

/// The signature of what a page declares itself to be: its canonical URL
/// ([`Page::canonical`]), title and main heading, when it declares one. Two targets that share
/// it are one page served under two URLs even where their bytes differ (a "recently viewed"
/// block, the category path in a breadcrumb, a tracking parameter echoed in the links), which
/// the content signatures cannot see. Only targets are known by it (mapping and crawling
/// record the targets' and compare pages with them): a listing whose later pages all name the
/// first as canonical, as misconfigured sites do, must still be followed page by page. The title and heading guard against a site naming one
/// URL canonical on every page (its home page): such pages differ in them. Tagged apart from
/// the other signatures, with which it shares their map.
pub(crate) fn canonical_signature(page: &Page) -> Option<u64> {
    let url = canon::canonicalize(page.canonical.as_deref()?)?;
    let mut s = canon::Signature::new();
    s.push("\u{0}canonical\u{0}");
    s.push(&url);
    s.push("\n");
    s.push(&page.title);
    s.push("\n");
    s.push(&page.heading);
    Some(s.finish())
}

/// The signatures of a page: the plain one (title, text words, tree size and canonical links)
/// and, for a page whose links carry one of its own URL's query values ([`alias_values`]), a
/// second reading those values as "this page's": the same page asked for under an alias (gitweb's commit as `h=HEAD` and
/// as `h=<hash>`) links to its neighbours with whichever value it was asked with
/// (`a=log;h=HEAD`, `a=tree;…;hb=HEAD`). A second one, not a replacement: reading a value as
/// "this page's" also tells apart copies the plain one matches (a link whose value is one
/// page's own and not the other's: on gitweb, a replacement found two duplicates fewer), so a
/// page is a copy when either matches.
pub(crate) fn page_signatures(page: &Page, links: &[Option<String>]) -> Vec<u64> {
    let own = canon::canonicalize(&page.url);
    let values = own.as_deref().map_or_else(Vec::new, alias_values);
    let mut out = vec![signature_of(page, links, own.as_deref(), &[])];
    if !values.is_empty() && links.iter().flatten().any(|l| carries(l, &values)) {
        out.push(signature_of(page, links, own.as_deref(), &values));
    }
    out
}

/// The signature of a page whose canonical URL is `own`, its links' query values among
/// `own_values` read as "this page's" ([`with_own_values`]).
fn signature_of(
    page: &Page,
    links: &[Option<String>],
    own: Option<&str>,
    own_values: &[&str],
) -> u64 {
    // Streamed: the signature of title, words and size as text, never built, then of the set
    // of links. The words are the terms with their stop words (`sign_words`: no term list is
    // made for it).
    let mut s = canon::Signature::new();
    s.push(&page.title);
    s.push("\n");
    crate::dom::text::sign_words(&page.text, &mut s);
    // Pages with no text at all (frames, images) are told apart by their structure size.
    s.push(&page.tree.len().to_string());
    // Terms keep no numbers, so two listings that differ only in numbered items ("Part 1041"…)
    // would read the same: their links tell them apart. Canonical links, sorted, so the copies
    // of one page under session-id URLs, whose links carry the session too, still match.
    // A link to the page itself (`#top`, a table of contents) carries the page's own URL, so the
    // same page under another URL (a form's query the site ignores) would differ by those
    // links alone: they count as one link to "this page".
    // With a query, the page's URL without it is "this page" too (a listing's filter form
    // answered with the listing, whose links name the listing without the query).
    // Each link is hashed eight bytes a step and the set is read from the sorted hashes:
    // sorting the strings and hashing them a byte at a time cost about twice as much.
    let bare = own.map(|u| u.split('?').next().unwrap_or(u));
    let mut sorted: Vec<u64> = links
        .iter()
        .flatten()
        .map(|l| {
            if own == Some(l.as_str()) || bare == Some(l.as_str()) {
                THIS_PAGE
            } else {
                canon::mix_bytes(0, with_own_values(l, own_values).as_bytes())
            }
        })
        .collect();
    sorted.sort_unstable();
    sorted.dedup();
    for l in sorted {
        s.push_hash(l);
    }
    s.finish()
}

/// A link to the page itself in [`signature_of`]: any value no link's hash is likely to be.
const THIS_PAGE: u64 = 0x7468_6973_2070_6167;

/// The values of `url`'s query parameters an alias may be: not numbers (terms keep no
/// numbers, so pages that differ only in a number and in links carrying it must stay apart:
/// `?id=41`, `?page=2`), at least 3 characters.
fn alias_values(url: &str) -> Vec<&str> {
    let Some((_, query)) = url.split_once('?') else {
        return Vec::new();
    };
    query
        .split(['&', ';'])
        .filter_map(|kv| kv.split_once('=').map(|(_, v)| v))
        .filter(|v| v.len() >= 3 && !v.bytes().all(|b| b.is_ascii_digit()))
        .collect()
}

/// Whether a query parameter of `link` has one of the values `own`.
fn carries(link: &str, own: &[&str]) -> bool {
    link.split_once('?').is_some_and(|(_, query)| {
        query
            .split(['&', ';'])
            .any(|kv| kv.split_once('=').is_some_and(|(_, v)| own.contains(&v)))
    })
}

/// `link` with each query parameter whose value is one of `own` ([`alias_values`] of the page's
/// URL) written `name=(own)`; unchanged (borrowed) when none is.
fn with_own_values<'a>(link: &'a str, own: &[&str]) -> std::borrow::Cow<'a, str> {
    if own.is_empty() || !carries(link, own) {
        return link.into();
    }
    let Some((path, query)) = link.split_once('?') else {
        return link.into();
    };
    let mut out = String::with_capacity(link.len());
    out.push_str(path);
    out.push('?');
    let mut rest = query;
    loop {
        // Each parameter with the separator that follows it, kept as it was.
        let end = rest.find(['&', ';']).unwrap_or(rest.len());
        let kv = &rest[..end];
        match kv.split_once('=') {
            Some((name, v)) if own.contains(&v) => {
                out.push_str(name);
                out.push_str("=(own)");
            }
            _ => out.push_str(kv),
        }
        if end == rest.len() {
            break;
        }
        out.push_str(&rest[end..end + 1]);
        rest = &rest[end + 1..];
    }
    out.into()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fetch::FetchResponse;

    /// An in-memory site: path → (status, content type, body).
    pub(crate) fn drive(m: &mut Mapper, site: &dyn Fn(&str) -> FetchResult) -> usize {
        let mut now = 0;
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps < 100_000, "bounded");
            match m.poll(now) {
                Poll::Fetch(r) => {
                    let res = site(&r.url);
                    m.handle(r.id, res, now);
                }
                Poll::WaitUntil(t) => now = t,
                Poll::Busy => panic!("nothing in flight in a synchronous driver"),
                Poll::Done => return steps,
            }
        }
    }

    fn html(body: &str) -> FetchResult {
        FetchResult::Response(FetchResponse {
            status: 200,
            final_url: String::new(),
            headers: vec![("content-type".into(), "text/html".into())],
            body: body.as_bytes().to_vec(),
            truncated: false,
        })
    }

    fn entity(i: u32) -> String {
        format!(
            "<html><head><title>Item {i}</title></head><body><div class=item><h1>Item {i}</h1>\
             <table class=spec><tr><td>a</td><td>{i}</td></tr><tr><td>b</td><td>x</td></tr></table>\
             <p class=desc>Description of item {i}.</p></div></body></html>"
        )
    }

    fn listing(links: &[String]) -> String {
        let items: String = links
            .iter()
            .map(|l| format!("<li><a href='{l}'>{l}</a></li>"))
            .collect();
        format!(
            "<html><head><title>List</title></head><body><nav><a href='/'>Home</a></nav>\
             <ul class=list>{items}</ul></body></html>"
        )
    }

    /// `/item/N.html` as an entity page, anything else 404.
    fn item_or_404(path: &str) -> FetchResult {
        match path.strip_prefix("/item/") {
            Some(p) => html(&entity(p.trim_end_matches(".html").parse().unwrap_or(0))),
            None => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        }
    }

    fn site(url: &str) -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/robots.txt" => html("User-agent: *\nDisallow: /private/\n"),
            "/" => html(&listing(&[
                "/cat/a.html".into(),
                "/cat/b.html".into(),
                "/private/x.html".into(),
                "/about.html".into(),
            ])),
            "/cat/a.html" => html(&listing(
                &(1..=5)
                    .map(|i| format!("/item/{i}.html"))
                    .collect::<Vec<_>>(),
            )),
            "/cat/b.html" => html(&listing(
                &(6..=9)
                    .map(|i| format!("/item/{i}.html?sid=1#top"))
                    .collect::<Vec<_>>(),
            )),
            "/about.html" => {
                html("<html><body><p>About us</p><a href='/cat/a.html'>a</a></body></html>")
            }
            p => item_or_404(p),
        }
    }

    fn mapper() -> Mapper {
        mapper_with(MapConfig {
            politeness: Politeness {
                delay_ms: 10,
                ..Politeness::default()
            },
            ..MapConfig::default()
        })
    }

    /// A mapper of shop.test from its home page, `/item/1.html` the example.
    fn mapper_with(config: MapConfig) -> Mapper {
        Mapper::new(
            "http://shop.test/",
            ExamplePage {
                url: "http://shop.test/item/1.html".into(),
                body: entity(1).into_bytes(),
                content_type: None,
            },
            config,
        )
        .expect("mapper")
    }

    /// Under a page budget, links named like the example or a target found are fetched
    /// before the rest: `/item/9.html` (like the example `/item/1.html`) at once, and once
    /// `/product/2.html` is a target, `/product/3.html` and `/product/4.html` move ahead of the
    /// twenty pages queued before them.
    #[test]
    fn links_named_like_a_target_are_fetched_first_under_a_page_budget() {
        let docs: Vec<String> = (1..=20).map(|i| format!("/docs/page-{i}.html")).collect();
        let home: Vec<String> = std::iter::once("/product/2.html".to_string())
            .chain(docs.iter().cloned())
            .chain(["/product/3.html", "/product/4.html", "/item/9.html"].map(String::from))
            .collect();
        let site = move |url: &str| -> FetchResult {
            let path = url.trim_start_matches("http://shop.test");
            match path {
                "/" => html(&listing(&home)),
                p if p.starts_with("/product/") || p.starts_with("/item/") => {
                    let n: u32 = p
                        .trim_start_matches("/product/")
                        .trim_start_matches("/item/")
                        .trim_end_matches(".html")
                        .parse()
                        .unwrap_or(0);
                    html(&entity(n))
                }
                p if p.starts_with("/docs/") => html(&format!(
                    "<html><head><title>Doc</title></head><body><h2>Doc {p}</h2>\
                     <p>Prose about {p}.</p><p>More.</p></body></html>"
                )),
                _ => FetchResult::Response(FetchResponse {
                    status: 404,
                    final_url: String::new(),
                    headers: vec![],
                    body: Vec::new(),
                    truncated: false,
                }),
            }
        };
        let mut m = mapper_with(MapConfig {
            max_pages: 5,
            politeness: Politeness {
                delay_ms: 0,
                max_in_flight: 1,
                max_in_flight_per_host: 1,
                obey_robots: false,
                ..Politeness::default()
            },
            ..MapConfig::default()
        });
        drive(&mut m, &site);
        let map = m.into_site_map();
        let fetched: BTreeSet<&str> = map
            .nodes
            .iter()
            .filter(|n| n.similarity.is_some())
            .map(|n| n.url.trim_start_matches("http://shop.test"))
            .collect();
        // Breadth first, the budget would go to /product/2.html and three docs pages (their
        // content differs: they are not duplicates). The first docs page is asked before
        // /product/2.html is known to be a target: one request is asked ahead of the oldest
        // result (`fetch::LOOKAHEAD` × one connection).
        assert_eq!(
            fetched,
            BTreeSet::from([
                "/",
                "/docs/page-1.html",
                "/item/9.html",
                "/product/2.html",
                "/product/3.html",
            ])
        );
        assert_eq!(map.targets().count(), 3);
    }

    /// A site whose home page links sixty pages of one barren shape (`/fn/f*.html`, each
    /// linking home only) before its listing of ten items.
    fn barren_site(url: &str) -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/" => html(&listing(
                &(0..60)
                    .map(|i| format!("/fn/f{i}.html"))
                    .chain(std::iter::once("/list.html".to_string()))
                    .collect::<Vec<_>>(),
            )),
            "/list.html" => items_then(&[]),
            p if p.starts_with("/fn/") => html(&format!(
                "<html><head><title>{p}</title></head><body><h2>Function {p}</h2>\
                 <p>Signature of {p}.</p><a href='/'>Home</a></body></html>"
            )),
            p => item_or_404(p),
        }
    }

    /// A listing of `/item/1.html` … `/item/10.html`, then `more`.
    fn items_then(more: &[&str]) -> FetchResult {
        html(&listing(
            &(1..=10)
                .map(|i| format!("/item/{i}.html"))
                .chain(more.iter().map(|m| m.to_string()))
                .collect::<Vec<_>>(),
        ))
    }

    fn barren_mapper(max_pages: usize, defer_barren: bool) -> Mapper {
        mapper_with(MapConfig {
            max_pages,
            defer_barren,
            politeness: Politeness::unthrottled(1),
            ..MapConfig::default()
        })
    }

    fn fetched_urls(map: &SiteMap) -> BTreeSet<String> {
        map.nodes
            .iter()
            .filter(|n| n.state != NodeState::Discovered)
            .map(|n| n.url.clone())
            .collect()
    }

    /// Under a page budget, once fifty pages of one shape yielded nothing, the rest of that
    /// shape waits behind everything else: the listing and its ten items are fetched within
    /// 65 pages (breadth first, the budget ends three items in). A site read whole gives the
    /// same pages either way, and a mapping saved after the shape was put off and restored
    /// ends as the uninterrupted one.
    #[test]
    fn barren_shapes_are_fetched_last() {
        let mut m = barren_mapper(65, true);
        drive(&mut m, &barren_site);
        let (put_off, taken_back) = put_off_and_taken_back(&m.drain_events());
        assert_eq!(put_off.len(), 1, "{put_off:?}");
        assert!(taken_back.is_empty(), "nothing of the shape yields");
        assert_eq!(put_off[0].0, "shop.test/fn/f*");
        assert!((8..=10).contains(&put_off[0].1), "{put_off:?}");
        assert_eq!(m.site_map().targets().count(), 10);
        // What the budget left of them is reported, unless nothing was put off.
        let left = shapes::left_unfetched(m.site_map(), m.config());
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0].0, "shop.test/fn/f*");
        assert!(
            (1..=put_off[0].1).contains(&left[0].1),
            "{left:?} of {put_off:?}"
        );
        let off = MapConfig {
            defer_barren: false,
            ..m.config().clone()
        };
        assert!(shapes::left_unfetched(m.site_map(), &off).is_empty());
        let mut breadth_first = barren_mapper(65, false);
        drive(&mut breadth_first, &barren_site);
        assert_eq!(breadth_first.site_map().targets().count(), 3);

        let mut whole = barren_mapper(10_000, true);
        drive(&mut whole, &barren_site);
        let mut whole_bf = barren_mapper(10_000, false);
        drive(&mut whole_bf, &barren_site);
        assert_eq!(
            fetched_urls(whole.site_map()),
            fetched_urls(whole_bf.site_map())
        );
        assert_eq!(fetched_urls(whole.site_map()).len(), 72);

        // Saved as soon as the shape is put off, restored, run to the end.
        let mut m = barren_mapper(10_000, true);
        let mut now = 0;
        while !m
            .drain_events()
            .iter()
            .any(|e| matches!(e, Event::PutOff { .. }))
        {
            match m.poll(now) {
                Poll::Fetch(r) => m.handle(r.id, barren_site(&r.url), now),
                Poll::WaitUntil(t) => now = t,
                other => panic!("unexpected {other:?}"),
            }
        }
        let json = serde_json::to_string(&m.snapshot()).expect("serialise");
        assert!(
            json.contains("\"later\""),
            "the snapshot holds those put off"
        );
        let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
        let mut r = Mapper::restore(snap).expect("restore");
        assert!(
            r.shapes.is_barren("http://shop.test/fn/f59.html"),
            "derived again"
        );
        drive(&mut r, &barren_site);
        assert_eq!(r.site_map(), whole.site_map());
    }

    /// Datasette's tables: a listing links each row and the row's `.json` alternate, of the
    /// rows' shape (which yields targets, so it is never barren). Fifty JSON answers make the
    /// file type barren and the rest waits: within the same budget the mapping reaches more rows.
    #[test]
    fn a_file_type_never_html_is_fetched_last() {
        fn site(url: &str) -> FetchResult {
            let path = url.trim_start_matches("http://shop.test");
            let num = |p: &str, pre: &str, suf: &str| -> Option<u32> {
                p.strip_prefix(pre)?.strip_suffix(suf)?.parse().ok()
            };
            if path == "/" {
                return html(&listing(&["/list/1.html".to_string()]));
            }
            if let Some(k) = num(path, "/list/", ".html").filter(|k| (1..=15).contains(k)) {
                let mut links: Vec<String> = (10 * (k - 1) + 1..=10 * k)
                    .flat_map(|i| [format!("/item/{i}.html"), format!("/item/{i}.json")])
                    .collect();
                links.push(format!("/list/{}.html", k + 1));
                return html(&listing(&links));
            }
            if let Some(i) = num(path, "/item/", ".json") {
                return FetchResult::Response(FetchResponse {
                    status: 200,
                    final_url: String::new(),
                    headers: vec![("content-type".into(), "application/json".into())],
                    body: format!("{{\"id\": {i}}}").into_bytes(),
                    truncated: false,
                });
            }
            item_or_404(path)
        }
        let mut deferring = barren_mapper(150, true);
        drive(&mut deferring, &site);
        let (put_off, _) = put_off_and_taken_back(&deferring.drain_events());
        assert_eq!(put_off.len(), 1, "{put_off:?}");
        assert_eq!(put_off[0].0, "shop.test/**/*.json");
        let json = |m: &Mapper| {
            m.site_map()
                .nodes
                .iter()
                .filter(|n| matches!(n.state, NodeState::NotHtml { .. }))
                .count()
        };
        assert_eq!(json(&deferring), shapes::BARREN_AFTER as usize);
        let mut in_turn = barren_mapper(150, false);
        drive(&mut in_turn, &site);
        let (with, without) = (
            deferring.site_map().targets().count(),
            in_turn.site_map().targets().count(),
        );
        // 150 pages: the home page, nine or ten listings, fifty JSON answers and 90 items,
        // against 71 items when every JSON link is fetched in its turn.
        assert!(
            with >= 85 && without <= 75,
            "{with} items against {without}"
        );
        assert!(json(&in_turn) > shapes::BARREN_AFTER as usize);
    }

    /// The `PutOff` events (shape, URLs) and the `TakenBack` ones (URLs) among `events`.
    fn put_off_and_taken_back(events: &[Event]) -> (Vec<(String, usize)>, Vec<usize>) {
        let mut put_off = Vec::new();
        let mut taken_back = Vec::new();
        for e in events {
            match e {
                Event::PutOff { shape, urls } => put_off.push((shape.clone(), *urls)),
                Event::TakenBack { urls } => taken_back.push(*urls),
                _ => {}
            }
        }
        (put_off, taken_back)
    }

    /// The URLs a mapper fetches, in the order it asks for them.
    fn fetch_order(m: &mut Mapper, site: &dyn Fn(&str) -> FetchResult) -> Vec<String> {
        let asked = std::cell::RefCell::new(Vec::new());
        drive(m, &|url: &str| {
            asked
                .borrow_mut()
                .push(url.trim_start_matches("http://shop.test").to_string());
            site(url)
        });
        asked.into_inner()
    }

    fn position(order: &[String], path: &str) -> usize {
        order
            .iter()
            .position(|u| u == path)
            .unwrap_or_else(|| panic!("{path} not fetched: {order:?}"))
    }

    /// Pages put off come back in their turn once their shape yields: `/fn/f40.html`, fetched
    /// before the shape was barren, links a page that turns out a target, so `/fn/f50…59` are
    /// fetched before the review pages found after that (not after everything).
    /// And a page put off that is named like a target found later is fetched first.
    #[test]
    fn put_off_pages_come_back_when_their_shape_yields_or_a_target_names_them() {
        let revived = |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            match path {
                "/fn/f40.html" => html(&listing(&["/goods/g.html".to_string()])),
                "/goods/g.html" => html(&entity(0)),
                "/list.html" => items_then(&["/more.html"]),
                "/more.html" => html(&listing(
                    &(1..=10)
                        .map(|i| format!("/review/r{i}.html"))
                        .collect::<Vec<_>>(),
                )),
                _ => barren_site(url),
            }
        };
        let mut m = barren_mapper(10_000, true);
        let order = fetch_order(&mut m, &revived);
        let (put_off, taken_back) = put_off_and_taken_back(&m.drain_events());
        assert_eq!(put_off.len(), 1, "{put_off:?}");
        assert!(put_off[0].1 >= 8, "{put_off:?}");
        assert_eq!(taken_back, [put_off[0].1], "all of them come back");
        assert!(
            position(&order, "/fn/f59.html") < position(&order, "/review/r1.html"),
            "{order:?}"
        );
        assert_eq!(m.site_map().targets().count(), 11);
        // The same site breadth first fetches the same pages.
        let mut bf = barren_mapper(10_000, false);
        let bf_order = fetch_order(&mut bf, &revived);
        assert_eq!(
            order.iter().collect::<BTreeSet<_>>(),
            bf_order.iter().collect::<BTreeSet<_>>()
        );

        // `/item/f55.html` is a target named like `/fn/f55.html` (one word apart), put off.
        let named = |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            if path == "/list.html" {
                items_then(&["/item/f55.html"])
            } else {
                barren_site(url)
            }
        };
        let mut m = barren_mapper(10_000, true);
        let order = fetch_order(&mut m, &named);
        // (`/fn/f50.html` was asked before the shape was put off.)
        let (f55, f51) = (
            position(&order, "/fn/f55.html"),
            position(&order, "/fn/f51.html"),
        );
        assert!(f55 < f51, "{order:?}");
        assert!(
            f55 > position(&order, "/item/f55.html"),
            "brought first once named: {order:?}"
        );
    }

    #[test]
    fn maps_a_small_site_finds_targets_and_obeys_robots() {
        let mut m = mapper();
        drive(&mut m, &site);
        let events = m.drain_events();
        let map = m.site_map();
        let targets: Vec<&str> = map
            .targets()
            .map(|t| map.nodes[t as usize].url.as_str())
            .collect();
        assert_eq!(targets.len(), 9, "{targets:?}");
        assert!(
            targets.contains(&"http://shop.test/item/6.html"),
            "session id and fragment dropped"
        );
        let private = map
            .nodes
            .iter()
            .find(|n| n.url.contains("private"))
            .expect("node");
        assert_eq!(private.state, NodeState::Disallowed);
        assert!(matches!(
            events.last(),
            Some(Event::Finished {
                reason: StopReason::Exhausted
            })
        ));
        assert_eq!(m.stopped(), Some(StopReason::Exhausted));
        // Breadth-first tree: items hang off the category pages.
        let item1 = map
            .nodes
            .iter()
            .find(|n| n.url.ends_with("/item/1.html"))
            .expect("item");
        assert_eq!(
            map.nodes[item1.parent.expect("parent") as usize].url,
            "http://shop.test/cat/a.html"
        );
        assert_eq!(item1.depth, 2);
    }

    /// Debian's Apache manual: each untranslated page of `da/` is the English page (a symbolic
    /// link), whose relative links lead to `da/`'s neighbours: one page, fetched twice, counted
    /// once. A translation (other bytes) is a page of its own.
    #[test]
    fn body_signatures_tell_every_byte() {
        let body = b"<html><body><p>Hello, mirrored world</p></body></html>".to_vec();
        let sig = body_signature(&body);
        assert_eq!(sig, body_signature(&body.clone()));
        for i in 0..body.len() {
            let mut other = body.clone();
            other[i] ^= 1;
            assert_ne!(sig, body_signature(&other), "byte {i}");
        }
        let mut longer = body.clone();
        longer.push(0);
        assert_ne!(sig, body_signature(&longer));
        assert_ne!(body_signature(b""), body_signature(&[0]));
    }

    #[test]
    fn the_same_bytes_in_another_directory_are_one_page() {
        let doc = |i: u32| {
            format!(
                "<html><head><title>Module {i}</title></head><body><div class=nav>\
                 <a href='../index.html'>Manual</a> <a href='../../en/mod/m{i}.html'>en</a> \
                 <a href='../../da/mod/m{i}.html'>da</a></div>{}</body></html>",
                entity(i)
            )
        };
        let site = |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            match path {
                "/en/index.html" | "/da/index.html" => html(&listing(
                    &(1..=4)
                        .map(|i| format!("mod/m{i}.html"))
                        .collect::<Vec<_>>(),
                )),
                "/da/mod/m2.html" => html(&doc(2).replace("Description", "Beskrivelse")),
                p => match p
                    .strip_prefix("/en/mod/m")
                    .or_else(|| p.strip_prefix("/da/mod/m"))
                    .and_then(|n| n.strip_suffix(".html"))
                    .and_then(|n| n.parse().ok())
                {
                    Some(i) => html(&doc(i)),
                    None => item_or_404(p),
                },
            }
        };
        let mut m = Mapper::new(
            "http://shop.test/en/index.html",
            ExamplePage {
                url: "http://shop.test/en/mod/m1.html".into(),
                body: doc(1).into_bytes(),
                content_type: None,
            },
            MapConfig::default(),
        )
        .expect("mapper");
        drive(&mut m, &site);
        let map = m.site_map();
        let state = |url: &str| {
            map.nodes
                .iter()
                .find(|n| n.url == format!("http://shop.test{url}"))
                .map(|n| n.state.clone())
        };
        for i in [1, 3, 4] {
            assert!(
                matches!(
                    state(&format!("/da/mod/m{i}.html")),
                    Some(NodeState::Duplicate { .. })
                ),
                "{i}: {:?}",
                state(&format!("/da/mod/m{i}.html"))
            );
            assert_eq!(
                state(&format!("/en/mod/m{i}.html")),
                Some(NodeState::Target)
            );
        }
        assert_eq!(
            state("/da/mod/m2.html"),
            Some(NodeState::Target),
            "a translation"
        );
        assert_eq!(map.targets().count(), 5);
    }

    #[test]
    fn listings_differing_only_in_numbers_are_not_duplicates() {
        let signature = |page: &Page| page_signature(page, &canonical_links(page));
        let listing = |items: std::ops::Range<u32>| {
            let links: String = items
                .map(|i| format!("<li><a href='/part/{i}.html'>Part {i}</a></li>"))
                .collect();
            Page::from_html(&format!("<ul>{links}</ul>"), "http://shop.test/list").expect("page")
        };
        assert_ne!(signature(&listing(1..5)), signature(&listing(5..9)));
        assert_eq!(signature(&listing(1..5)), signature(&listing(1..5)));
        // The links are read as a set: their order and repeats do not count, each one does
        // (pages of one size: the tree's size counts too).
        let page = |hrefs: &[&str]| {
            let links: String = hrefs
                .iter()
                .map(|h| format!("<a href='{h}'>x</a> "))
                .collect();
            Page::from_html(&links, "http://shop.test/list").expect("page")
        };
        let aab = signature(&page(&["/a", "/a", "/b"]));
        assert_eq!(aab, signature(&page(&["/b", "/a", "/b"])));
        assert_ne!(aab, signature(&page(&["/a", "/a", "/c"])));
        assert_ne!(aab, signature(&page(&["/a", "/b", "/c"])));
        // The same page under a session-id URL, its links carrying the session: one page.
        let with_session = |sid: &str| {
            Page::from_html(
                &format!("<a href='/a.html?jsessionid={sid}'>A</a> <p>Hello</p>"),
                &format!("http://shop.test/?jsessionid={sid}"),
            )
            .expect("page")
        };
        assert_eq!(signature(&with_session("1")), signature(&with_session("2")));
        // The same page under a query the site ignores: its `#top` link carries the query.
        let at = |url: &str| {
            Page::from_html("<a href='#top'>top</a> <a href='/b'>B</a> <p>Hi</p>", url)
                .expect("page")
        };
        let plain = signature(&at("http://shop.test/a"));
        assert_eq!(plain, signature(&at("http://shop.test/a?q=term")));
        // Another page with the same body links to itself elsewhere: still one page only when
        // the self links are the difference, not the other links.
        assert_ne!(plain, signature(&at("http://shop.test/b")));
    }

    #[test]
    fn a_page_under_an_alias_whose_links_carry_it_counts_once() {
        // gitweb's head commit as `h=HEAD` and as `h=<hash>`: its neighbours' links carry the
        // value it was asked with.
        let signature = |page: &Page| {
            let links = canonical_links(page);
            *page_signatures(page, &links)
                .last()
                .expect("the plain signature")
        };
        let commit = |h: &str, parent: &str, text: &str| {
            let cgi = "/cgi-bin/gitweb.cgi?p=r.git";
            Page::from_html(
                &format!(
                    "<a href='{cgi};a=log;h={h}'>log</a> <a href='{cgi};a=tree;h=7684cbf;hb={h}'>tree</a> \
                     <a href='{cgi};a=commit;h={parent}'>parent</a> <p>{text}</p>"
                ),
                &format!("http://git.test{cgi};a=commit;h={h}"),
            )
            .expect("page")
        };
        let head = signature(&commit("HEAD", "ce41fb3", "Fix the parser"));
        assert_eq!(
            head,
            signature(&commit("a923f22", "ce41fb3", "Fix the parser"))
        );
        // Another commit with the same message is another page: its parent differs.
        assert_ne!(
            head,
            signature(&commit("b1c2d3e", "a923f22", "Fix the parser"))
        );
        // Pages that differ only in a number their links carry stay apart (terms keep no
        // numbers): an order and its print link.
        let order = |n: u32| {
            Page::from_html(
                &format!("<a href='/order?id={n}&print=yes'>Print</a> <p>Order {n}</p>"),
                &format!("http://shop.test/order?id={n}"),
            )
            .expect("page")
        };
        assert_ne!(signature(&order(4101)), signature(&order(4102)));
        assert_eq!(
            alias_values("http://h/x?p=r.git;a=commit;h=HEAD&n=12&b=ab"),
            ["r.git", "commit", "HEAD"]
        );
        assert_eq!(
            with_own_values("http://h/x?a=1;hb=HEAD&b=2", &["HEAD", "3"]),
            "http://h/x?a=1;hb=(own)&b=2"
        );
        assert!(matches!(
            with_own_values("http://h/x?b=2", &["HEAD"]),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    /// A page that declares no language itself takes its response's `Content-Language` (one
    /// language), and learning proposes to leave out the targets in another language than the
    /// example's, told so by their headers alone.
    #[test]
    fn the_content_language_header_declares_a_pages_language() {
        let by_header = |url: &str| {
            let mut res = site(url);
            if let FetchResult::Response(r) = &mut res {
                let path = url.trim_start_matches("http://shop.test");
                let lang = match path {
                    "/item/6.html" | "/item/7.html" => "fr",
                    "/item/8.html" => "de, fr",
                    _ => "en",
                };
                r.headers.push(("Content-Language".into(), lang.into()));
            }
            res
        };
        let mut m = mapper();
        drive(&mut m, &by_header);
        let map = m.site_map();
        let lang = |path: &str| {
            let url = format!("http://shop.test{path}");
            map.nodes
                .iter()
                .find(|n| n.url == url)
                .map(|n| n.lang.clone())
        };
        assert_eq!(lang("/item/1.html").as_deref(), Some("en"));
        assert_eq!(lang("/item/6.html").as_deref(), Some("fr"));
        assert_eq!(
            lang("/item/8.html").as_deref(),
            Some(""),
            "two languages: none"
        );
        assert_eq!(crate::language::other_languages(map), ["fr"]);
    }

    /// The map records the sitemaps robots.txt names (resolved, once each); the files read are
    /// never nodes of the map (here they are missing: the map is the links' alone).
    #[test]
    fn the_map_records_the_sitemaps_robots_txt_names() {
        let with_sitemaps = |url: &str| {
            if url == "http://shop.test/robots.txt" {
                html(
                    "User-agent: *\nSitemap: /maps/a.xml\nSitemap: http://shop.test/maps/a.xml\nSitemap: https://cdn.test/b.xml.gz\n",
                )
            } else {
                site(url)
            }
        };
        let mut m = mapper();
        drive(&mut m, &with_sitemaps);
        let map = m.site_map();
        assert_eq!(
            map.sitemaps,
            ["http://shop.test/maps/a.xml", "https://cdn.test/b.xml.gz"]
        );
        assert!(!map.nodes.iter().any(|n| n.url.contains("/maps/")));
        let json = serde_json::to_string(map).expect("json");
        let back: SiteMap = serde_json::from_str(&json).expect("back");
        assert_eq!(back.sitemaps, map.sitemaps);
        let mut plain = mapper();
        drive(&mut plain, &site);
        assert!(plain.site_map().sitemaps.is_empty());
    }

    /// shop.test whose catalogue is drawn by scripts: the home page links `/cat/a.html` (items
    /// 1–5) and `/about.html`; items 6–12 are listed only by the sitemaps robots.txt names (an
    /// index of `/items.xml.gz`, gzip-compressed, and `/more.txt`, which the about page links,
    /// with a missing one; a missing one on another host, whose robots.txt names its own; and
    /// one on a host that never answers),
    /// which also list pages links reach, a disallowed page and another site's.
    fn catalogue_in_sitemaps(url: &str) -> FetchResult {
        if url.starts_with("http://closed.test/") {
            return FetchResult::Failed("Failed to fetch".into());
        }
        if url == "http://elsewhere.test/robots.txt" {
            return html("Sitemap: http://elsewhere.test/theirs.xml\n");
        }
        let path = url.trim_start_matches("http://shop.test");
        let file = |body: Vec<u8>| {
            FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), "application/octet-stream".into())],
                body,
                truncated: false,
            })
        };
        match path {
            "/robots.txt" => html(
                "User-agent: *\nDisallow: /private/\nSitemap: /sitemaps.xml\nSitemap: http://elsewhere.test/s.xml\n\
                 Sitemap: http://closed.test/s.xml\n",
            ),
            "/" => html(&listing(&["/cat/a.html".into(), "/about.html".into()])),
            "/sitemaps.xml" => file(
                b"<sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
                  <sitemap><loc>http://shop.test/items.xml.gz</loc></sitemap>\
                  <sitemap><loc>http://shop.test/more.txt</loc></sitemap>\
                  <sitemap><loc>http://shop.test/gone.xml</loc></sitemap></sitemapindex>"
                    .to_vec(),
            ),
            "/items.xml.gz" => {
                let locs: String = (1..=9)
                    .map(|i| format!("<url><loc>http://shop.test/item/{i}.html</loc></url>"))
                    .collect();
                let xml = format!(
                    "<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
                     <url><loc>http://shop.test/</loc></url>{locs}\
                     <url><loc>http://shop.test/private/x.html</loc></url>\
                     <url><loc>http://elsewhere.test/item/99.html</loc></url></urlset>"
                );
                file(crate::sitemap::tests::gzip(xml.as_bytes(), 0, &[]))
            }
            "/more.txt" => file(
                (9..=12)
                    .map(|i| format!("http://shop.test/item/{i}.html\n"))
                    .collect::<String>()
                    .into_bytes(),
            ),
            "/cat/a.html" => html(&listing(
                &(1..=5)
                    .map(|i| format!("/item/{i}.html"))
                    .collect::<Vec<_>>(),
            )),
            "/about.html" => {
                html("<html><body><p>About us</p><a href='/more.txt'>more</a></body></html>")
            }
            p => item_or_404(p),
        }
    }

    /// A site that says "wait" (robots.txt 503 once, every item 429 once, with `Retry-After`)
    /// maps as one that does not: each is asked again after the wait, the host slowed down,
    /// and the mapping says how many were.
    #[test]
    fn pages_the_site_says_to_wait_for_are_asked_again() {
        let targets_of = |m: &Mapper| -> BTreeSet<String> {
            let map = m.site_map();
            map.targets()
                .map(|t| map.nodes[t as usize].url.clone())
                .collect()
        };
        let mut plain = mapper();
        drive(&mut plain, &catalogue_in_sitemaps);
        let asked = std::cell::RefCell::new(HashMap::<String, usize>::new());
        let busy = |url: &str| {
            let mut asked = asked.borrow_mut();
            let n = asked.entry(url.to_string()).or_default();
            *n += 1;
            let wait = |status: u16| {
                FetchResult::Response(FetchResponse {
                    status,
                    headers: vec![("retry-after".into(), "2".into())],
                    ..FetchResponse::default()
                })
            };
            match url.trim_start_matches("http://shop.test") {
                "/robots.txt" if *n == 1 => wait(503),
                p if p.starts_with("/item/") && *n == 1 => wait(429),
                _ => catalogue_in_sitemaps(url),
            }
        };
        let mut m = mapper();
        drive(&mut m, &busy);
        assert_eq!(targets_of(&m), targets_of(&plain));
        assert_eq!(targets_of(&m).len(), 12);
        let items = asked
            .borrow()
            .keys()
            .filter(|u| u.contains("/item/"))
            .count();
        assert_eq!(
            m.progress().retried,
            items + 1,
            "each item and robots.txt once"
        );
        assert_eq!(m.progress().errors, plain.progress().errors);
        let retries: Vec<crate::fetch::Retry> = m
            .drain_events()
            .into_iter()
            .filter_map(|e| match e {
                Event::Retry(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(retries.len(), items + 1);
        assert_eq!(
            (
                retries[0].url.as_str(),
                retries[0].status,
                retries[0].wait_ms
            ),
            ("http://shop.test/robots.txt", 503, 2000)
        );
        // Each asked again once, after the 2 s it asked for; the host's delay from 10 ms to 1 s.
        assert!(
            retries
                .iter()
                .all(|r| (r.attempt, r.wait_ms, r.delay_ms) == (1, 2000, 1000)),
            "{retries:?}"
        );
    }

    /// Once every link is followed, mapping reads the sitemaps robots.txt names: the pages they
    /// list that no link reached become links of the entry page (as a crawl reads them), those
    /// links reached keep their place, a disallowed or off-site URL is not fetched, sitemaps
    /// count in the page budget and survive a snapshot; off, or with robots.txt not obeyed,
    /// none is read.
    #[test]
    fn after_every_link_mapping_reads_the_sitemaps_for_the_pages_no_link_reaches() {
        let mut m = mapper();
        let order = fetch_order(&mut m, &catalogue_in_sitemaps);
        let events = m.drain_events();
        let map = m.site_map();
        let url = |p: &str| format!("http://shop.test{p}");
        let targets: BTreeSet<String> = map
            .targets()
            .map(|t| map.nodes[t as usize].url.clone())
            .collect();
        let items: BTreeSet<String> = (1..=12).map(|i| url(&format!("/item/{i}.html"))).collect();
        assert_eq!(targets, items);
        // The sitemaps come after every page links reach.
        let first_sitemap = position(&order, "/sitemaps.xml");
        for p in ["/", "/cat/a.html", "/about.html", "/item/5.html"] {
            assert!(
                position(&order, p) < first_sitemap,
                "{p} before the sitemaps: {order:?}"
            );
        }
        assert!(position(&order, "/items.xml.gz") > first_sitemap);
        // The about page links the text sitemap: fetched as a page first, asked again as one.
        let more: Vec<usize> = (0..order.len())
            .filter(|&i| order[i] == "/more.txt")
            .collect();
        assert!(more.len() == 2 && more[0] < first_sitemap, "{order:?}");
        assert!(
            !order.iter().any(|p| p.starts_with("/private/")),
            "{order:?}"
        );
        // Items 6–12 (once each, though two sitemaps list item 9), the disallowed page: links
        // of the entry, in the sitemaps' order; items 1–5 and the entry itself gain no link.
        let linked: Vec<&str> = map
            .sitemap_links
            .iter()
            .map(|&id| map.nodes[id as usize].url.as_str())
            .collect();
        let mut expected: Vec<String> = (6..=9).map(|i| url(&format!("/item/{i}.html"))).collect();
        expected.push(url("/private/x.html"));
        expected.extend((10..=12).map(|i| url(&format!("/item/{i}.html"))));
        assert_eq!(linked, expected);
        let entry_links: Vec<&str> = map.nodes[0]
            .links
            .iter()
            .map(|&id| map.nodes[id as usize].url.as_str())
            .collect();
        assert!(entry_links.ends_with(&linked[..]), "{entry_links:?}");
        assert!(!entry_links.contains(&url("/item/1.html").as_str()));
        assert_eq!(map.nodes[map.sitemap_links[0] as usize].depth, 1);
        let p = m.progress();
        // The index, items.xml.gz and more.txt are read; gone.xml answers 404, and so does the
        // sitemap on the other host robots.txt names (asked: the protocol lets a site name
        // sitemaps elsewhere). All five count in the page budget.
        assert_eq!((p.sitemaps, p.sitemap_requests, p.sitemap_links), (3, 5, 8));
        assert_eq!(p.requests(), p.fetched + 5);
        // Each sitemap not read is said so; the one whose host answered nothing, not even for
        // its robots.txt, is marked unreachable.
        let mut not_read: Vec<(String, String, bool)> = events
            .into_iter()
            .filter_map(|e| match e {
                Event::SitemapSkipped(n) => Some((n.url, n.reason, n.unreachable)),
                _ => None,
            })
            .collect();
        not_read.sort();
        assert_eq!(
            not_read
                .iter()
                .map(|(u, _, x)| (u.as_str(), *x))
                .collect::<Vec<_>>(),
            [
                ("http://closed.test/s.xml", true),
                ("http://elsewhere.test/s.xml", false),
                ("http://shop.test/gone.xml", false)
            ],
            "{not_read:?}"
        );
        assert!(
            not_read[0]
                .1
                .contains("could not be fetched (Failed to fetch)")
        );
        assert!(not_read[2].1.ends_with("HTTP 404"));
        assert!(
            order.contains(&"http://elsewhere.test/s.xml".to_string()),
            "{order:?}"
        );
        // That host's own robots.txt speaks for that host, not for the site.
        assert_eq!(
            map.sitemaps,
            [
                "http://shop.test/sitemaps.xml",
                "http://elsewhere.test/s.xml",
                "http://closed.test/s.xml"
            ]
        );
        assert!(map.check().is_ok());
        let json = serde_json::to_string(map).expect("json");
        let back: SiteMap = serde_json::from_str(&json).expect("back");
        assert_eq!(back.sitemap_links, map.sitemap_links);
        // Learned from the links (the category, then its items), the sitemaps' items matched
        // by the last level from the entry, as a crawl reads the sitemaps: all twelve reached.
        let p = crate::pattern::learn_from_map(map, m.config(), 0).expect("learn");
        assert_eq!(p.levels.len(), 2, "{}", p.render());
        assert!(
            p.levels[0].regexes.iter().all(|r| r.contains("cat")),
            "{}",
            p.render()
        );
        assert_eq!(p.stats.targets_reached, 12, "{}", p.render());

        // Snapshot and restore with the sitemaps' requests in flight: the same map.
        let mut r = mapper();
        let mut now = 0;
        let mut in_flight = Vec::new();
        loop {
            match r.poll(now) {
                Poll::Fetch(q) if q.url.ends_with("/sitemaps.xml") || !in_flight.is_empty() => {
                    assert_eq!(q.kind, RequestKind::Sitemap);
                    in_flight.push(q);
                    if in_flight.len() == 1 {
                        continue;
                    }
                    break;
                }
                Poll::Fetch(q) => r.handle(q.id, catalogue_in_sitemaps(&q.url), now),
                Poll::WaitUntil(t) => now = t,
                Poll::Busy => break,
                Poll::Done => panic!("done before the sitemaps"),
            }
        }
        let json = serde_json::to_string(&r.snapshot()).expect("snapshot");
        let mut back =
            Mapper::restore(serde_json::from_str(&json).expect("read")).expect("restore");
        drive(&mut back, &catalogue_in_sitemaps);
        assert_eq!(back.site_map(), map);

        // A page budget the links fill: no sitemap is read.
        let mut short = mapper_with(MapConfig {
            max_pages: 8,
            ..MapConfig::default()
        });
        let order = fetch_order(&mut short, &catalogue_in_sitemaps);
        assert!(!order.iter().any(|p| p.contains("sitemaps")), "{order:?}");
        // Off, or robots.txt not obeyed: links only.
        for config in [
            MapConfig {
                read_sitemaps: false,
                ..MapConfig::default()
            },
            MapConfig {
                politeness: Politeness {
                    obey_robots: false,
                    ..Politeness::default()
                },
                ..MapConfig::default()
            },
        ] {
            let mut off = mapper_with(config);
            drive(&mut off, &catalogue_in_sitemaps);
            assert_eq!(off.site_map().targets().count(), 5);
            assert!(off.site_map().sitemap_links.is_empty());
            assert_eq!(off.progress().sitemaps, 0);
        }
        // A site whose links reach every page it lists: the same map as without sitemaps.
        let everything_linked = |u: &str| match u.trim_start_matches("http://shop.test") {
            "/robots.txt" => html("User-agent: *\nDisallow: /private/\nSitemap: /pages.txt\n"),
            "/pages.txt" => html(
                &[
                    "/",
                    "/cat/a.html",
                    "/about.html",
                    "/item/1.html",
                    "/item/5.html",
                ]
                .map(|p| format!("http://shop.test{p}\n"))
                .concat(),
            ),
            _ => site(u),
        };
        let mut with = mapper();
        drive(&mut with, &everything_linked);
        let mut without = mapper_with(MapConfig {
            read_sitemaps: false,
            ..MapConfig::default()
        });
        drive(&mut without, &everything_linked);
        assert_eq!(with.progress().sitemaps, 1);
        assert_eq!(with.site_map().nodes, without.site_map().nodes);
    }

    /// shop.test with its items listed in two categories, `/item/N.html?from=CAT`, each page
    /// showing the category it was reached from (so no two copies have the same bytes or text)
    /// and declaring `canonical(N)` as its canonical URL, if any; listing `b`'s second page
    /// names its first as canonical, as misconfigured sites do.
    pub(crate) fn shop_with_canonicals(
        url: &str,
        canonical: &dyn Fn(u32) -> Option<String>,
    ) -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        let links = |cat: &str, items: std::ops::RangeInclusive<u32>| -> Vec<String> {
            items
                .map(|i| format!("/item/{i}.html?from={cat}"))
                .collect()
        };
        let (page, rest) = path.split_once('?').unwrap_or((path, ""));
        match (page, rest) {
            ("/", _) => html(&listing(&["/cat/a.html".into(), "/cat/b.html".into()])),
            ("/cat/a.html", _) => html(&listing(&links("a", 1..=5))),
            ("/cat/b.html", "") => {
                let mut l = links("b", 3..=5);
                l.push("/cat/b.html?page=2".into());
                html(&listing(&l))
            }
            ("/cat/b.html", "page=2") => html(
                &listing(&links("b", 6..=7))
                    .replace("<head>", "<head><link rel=canonical href=/cat/b.html>"),
            ),
            (p, from) => {
                let Some(i) = p
                    .strip_prefix("/item/")
                    .and_then(|n| n.strip_suffix(".html")?.parse::<u32>().ok())
                else {
                    return item_or_404(p);
                };
                let link = canonical(i)
                    .map(|c| format!("<link rel=canonical href=\"{c}\">"))
                    .unwrap_or_default();
                let seen_in = if from.ends_with('a') {
                    "kitchen"
                } else {
                    "garden"
                };
                html(
                    &entity(i)
                        .replace("<head>", &format!("<head>{link}"))
                        .replace("</p>", &format!(" Seen among {seen_in} things.</p>")),
                )
            }
        }
    }

    /// Two targets naming one canonical URL (with the same title and heading) are one page
    /// under two URLs, however their content differs; a listing's later page naming its first
    /// as canonical is still followed (the rule is for targets), and a site naming one URL
    /// canonical on every page loses none of them.
    #[test]
    fn targets_declaring_one_canonical_url_are_one_page() {
        let targets = |canonical: &dyn Fn(u32) -> Option<String>| {
            let mut m = mapper();
            drive(&mut m, &|u: &str| shop_with_canonicals(u, canonical));
            let map = m.site_map();
            let mut items: Vec<String> = map
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Target)
                .map(|n| n.url.split('?').next().unwrap_or("").to_string())
                .collect();
            items.sort();
            let copies: Vec<(String, String)> = map
                .nodes
                .iter()
                .filter_map(|n| match n.state {
                    NodeState::Duplicate { of } => {
                        Some((n.url.clone(), map.nodes[of as usize].url.clone()))
                    }
                    _ => None,
                })
                .collect();
            (items, copies)
        };
        let (items, copies) = targets(&|i| Some(format!("/item/{i}.html")));
        let expected: Vec<String> = (1..=7)
            .map(|i| format!("http://shop.test/item/{i}.html"))
            .collect();
        assert_eq!(
            items, expected,
            "each item once, 6 and 7 from the listing's page 2"
        );
        assert_eq!(copies.len(), 3, "{copies:?}");
        for (copy, of) in &copies {
            assert!(copy.ends_with("?from=b"), "{copy}");
            assert_eq!(copy.replace("from=b", "from=a"), *of);
        }
        // Without the declaration the copies differ (the category shown): each is a target.
        let (items, copies) = targets(&|_| None);
        assert_eq!(items.len(), 10, "{items:?}");
        assert!(copies.is_empty(), "{copies:?}");
        // A site naming its home page canonical everywhere loses no item: the items' titles
        // and headings differ (the copies of one item are still one).
        let (items, copies) = targets(&|_| Some("/".into()));
        assert_eq!(items, expected);
        assert_eq!(copies.len(), 3, "{copies:?}");
    }

    /// A group's samples are its most similar target, its middle one and its least similar:
    /// a directory holding a few pages like the example among many others shows one of them.
    #[test]
    fn a_groups_samples_run_from_its_most_similar_target_to_its_least() {
        let mut map = SiteMap {
            example: "http://h/a/0".into(),
            threshold: 0.5,
            ..SiteMap::default()
        };
        for i in 0..10 {
            let score = if i == 7 { 0.99 } else { 0.6 + 0.01 * i as f32 };
            map.nodes.push(Node::scored(
                format!("http://h/b/{i}"),
                NodeState::Target,
                score,
            ));
        }
        map.nodes
            .push(Node::scored("http://h/a/0".into(), NodeState::Target, 1.0));
        let groups = map.targets_by(&[], &[], |n| n.url.get(..10).map(str::to_string));
        let b = groups.iter().find(|g| g.key == "http://h/b").expect("b");
        assert_eq!(b.targets, 10);
        // By similarity: 7 (0.99), 9, 8, 6, 5, 4, 3, 2, 1, 0: the first, the fifth, the last.
        assert_eq!(b.samples, ["http://h/b/7", "http://h/b/5", "http://h/b/0"]);
        assert!(!b.example && groups.iter().any(|g| g.key == "http://h/a" && g.example));
        assert_eq!(spread(&["x"], 3), ["x"]);
        assert!(spread(&[], 3).is_empty());
    }

    /// Look-alikes filed outside the example's directory become targets once their directory
    /// holds several, and from then on are known by the canonical URL they declare: a copy of
    /// one under another URL (`?ref=home`, other text) met after is a duplicate, not a target.
    #[test]
    fn look_alikes_promoted_by_their_directory_are_known_by_what_they_declare() {
        let site = |declare: bool| {
            move |url: &str| {
                let path = url.trim_start_matches("http://shop.test");
                let page = |i: u32, extra: &str| {
                    let head = if declare {
                        format!("<link rel=canonical href='http://shop.test/archive/{i}.html'>")
                    } else {
                        String::new()
                    };
                    html(
                        &entity(i)
                            .replace("<head>", &format!("<head>{head}"))
                            .replace(".</p>", &format!(". {extra}</p>")),
                    )
                };
                match path {
                    "/" => html(&listing(
                        &[
                            "/item/1.html",
                            "/archive/3.html",
                            "/archive/4.html",
                            "/archive/5.html",
                            "/archive/3.html?ref=home",
                        ]
                        .map(String::from),
                    )),
                    "/item/1.html" => html(&entity(1)),
                    "/archive/3.html?ref=home" => page(3, "Seen on the home page."),
                    p => match p
                        .strip_prefix("/archive/")
                        .and_then(|n| n.trim_end_matches(".html").parse().ok())
                    {
                        Some(i) => page(i, "In the archive."),
                        None => FetchResult::Response(FetchResponse {
                            status: 404,
                            ..FetchResponse::default()
                        }),
                    },
                }
            }
        };
        let targets = |declare: bool| {
            let mut config = MapConfig::default();
            config.similarity.threshold = 0.85;
            config.politeness.delay_ms = 0;
            let mut m = mapper_with(config);
            drive(&mut m, &site(declare));
            let map = m.into_site_map();
            let copy = map
                .nodes
                .iter()
                .find(|n| n.url.ends_with("?ref=home"))
                .map(|n| n.state.clone());
            (map.targets().count(), copy)
        };
        let (n, copy) = targets(true);
        assert_eq!(n, 4, "item 1 and archive 3 to 5");
        assert!(
            matches!(copy, Some(NodeState::Duplicate { .. })),
            "{copy:?}"
        );
        // Without the declarations the copy is one more target.
        assert_eq!(targets(false), (5, Some(NodeState::Target)));
    }

    #[test]
    fn look_alikes_filed_elsewhere_count_once_their_directory_holds_several() {
        // θ 0.95: a copy of the example's template outside /item/ scores 1.0 before the place
        // weight and 0.9 with it.
        let site = |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            let number = |p: &str| -> Option<u32> {
                p.rsplit('/').next()?.trim_end_matches(".html").parse().ok()
            };
            match (path, number(path)) {
                ("/", _) => html(&listing(
                    &[
                        "/item/1.html",
                        "/item/2.html",
                        "/archive/3.html",
                        "/archive/4.html",
                        "/archive/5.html",
                        "/lone/6.html",
                    ]
                    .map(String::from),
                )),
                (_, Some(i)) => html(&entity(i)),
                _ => FetchResult::Response(FetchResponse {
                    status: 404,
                    ..FetchResponse::default()
                }),
            }
        };
        let mut config = MapConfig::default();
        config.similarity.threshold = 0.95;
        config.politeness.delay_ms = 0;
        let mut m = mapper_with(config);
        drive(&mut m, &site);
        let promoted = m
            .drain_events()
            .iter()
            .filter(|e| matches!(e, Event::Promoted { .. }))
            .count();
        let map = m.into_site_map();
        let mut targets: Vec<&str> = map
            .targets()
            .map(|t| map.nodes[t as usize].url.as_str())
            .collect();
        targets.sort_unstable();
        assert_eq!(
            targets,
            [
                "http://shop.test/archive/3.html",
                "http://shop.test/archive/4.html",
                "http://shop.test/archive/5.html",
                "http://shop.test/item/1.html",
                "http://shop.test/item/2.html",
            ]
        );
        // The two archive pages met before the third were promoted when it came.
        assert_eq!(promoted, 2);
        let lone = map
            .nodes
            .iter()
            .find(|n| n.url.ends_with("/lone/6.html"))
            .expect("lone page");
        assert_eq!(lone.state, NodeState::Page);
        assert_eq!(lone.unplaced, Some(1.0));
        assert!((lone.similarity.expect("measured") - 0.9).abs() < 1e-6);
        // The whole-map computation agrees with the page-by-page one, and follows θ: at 0.85
        // the lone page passes with its place weight, at 0.99 nothing changes.
        assert_eq!(map.with_threshold(map.threshold), map);
        assert_eq!(map.with_threshold(0.85).targets().count(), 6);
        assert_eq!(map.with_threshold(0.99).targets().count(), 5);
    }

    #[test]
    fn a_link_held_back_from_a_target_is_visited_in_its_turn_when_a_page_links_it_too() {
        // The entry links the item first, then a listing; the item and the listing both link
        // /x (the item first), the listing also /y. Four fetches: /x, linked by an ordinary
        // page, comes before /y, not after everything else.
        let site = |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            match path {
                "/" => html(&listing(&["/item/1.html".into(), "/list.html".into()])),
                "/item/1.html" => html(&entity(1).replace("</div>", "<a href='/x'>x</a></div>")),
                "/list.html" => html(&listing(&["/x".into(), "/y".into()])),
                "/x" | "/y" => html("<html><body><p>page</p></body></html>"),
                _ => FetchResult::Response(FetchResponse {
                    status: 404,
                    ..FetchResponse::default()
                }),
            }
        };
        let mut config = MapConfig {
            max_pages: 4,
            ..MapConfig::default()
        };
        config.politeness.delay_ms = 0;
        config.politeness.max_in_flight = 1;
        let mut m = mapper_with(config);
        drive(&mut m, &site);
        let map = m.into_site_map();
        let fetched = |suffix: &str| {
            map.nodes
                .iter()
                .any(|n| n.url.ends_with(suffix) && n.similarity.is_some())
        };
        assert!(fetched("/item/1.html") && fetched("/list.html"));
        assert!(fetched("/x"), "held back, then linked by the listing");
        assert!(!fetched("/y"));
    }

    #[test]
    fn with_threshold_relabels_fetched_pages_only() {
        let mut m = mapper();
        drive(&mut m, &site);
        let map = m.into_site_map();
        let targets: Vec<u32> = map.targets().collect();
        assert!(!targets.is_empty());
        let sims = |map: &SiteMap| -> Vec<(u32, f32)> {
            map.nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.similarity.map(|s| (i as u32, s)))
                .collect()
        };
        // θ above every score: no target; θ = 0: every fetched page but the entry.
        assert_eq!(map.with_threshold(1.01).targets().count(), 0);
        let all = map.with_threshold(0.0);
        let fetched = sims(&map).iter().filter(|(i, _)| *i != 0).count();
        assert_eq!(all.targets().count(), fetched);
        assert_eq!(all.nodes[0].state, NodeState::Page);
        // The same θ gives the same map; states other than page/target never change.
        assert_eq!(map.with_threshold(map.threshold), map);
        for (a, b) in map.nodes.iter().zip(&all.nodes) {
            if !matches!(a.state, NodeState::Page | NodeState::Target) {
                assert_eq!(a.state, b.state);
            }
            assert_eq!(a.links, b.links);
        }
    }

    #[test]
    fn corrections_override_theta_on_fetched_pages_only() {
        let mut m = mapper();
        drive(&mut m, &site);
        let map = m.into_site_map();
        let id = |url: &str| map.nodes.iter().position(|n| n.url == url).expect(url);
        let (about, item) = (
            id("http://shop.test/about.html"),
            id("http://shop.test/item/2.html"),
        );
        assert_eq!(map.nodes[about].state, NodeState::Page);
        assert_eq!(map.nodes[item].state, NodeState::Target);
        // The user's verdicts win over θ; URLs are canonicalised (fragment, session-free form).
        let mut fixed = map.clone();
        fixed
            .correct(
                &["http://shop.test/about.html#x".into()],
                &["http://SHOP.test/item/2.html".into()],
            )
            .expect("corrected");
        assert_eq!(fixed.nodes[about].state, NodeState::Target);
        assert_eq!(fixed.nodes[item].state, NodeState::Page);
        assert_eq!(fixed.targets().count(), map.targets().count());
        for (i, (a, b)) in map.nodes.iter().zip(&fixed.nodes).enumerate() {
            if i != about && i != item {
                assert_eq!(a, b);
            }
        }
        // Verdicts on pages that were never measured are refused, with the reason.
        let err = |like: &str, unlike: &str| {
            let list = |u: &str| {
                if u.is_empty() {
                    vec![]
                } else {
                    vec![u.to_string()]
                }
            };
            let mut m = map.clone();
            let e = m.correct(&list(like), &list(unlike)).expect_err(like);
            assert_eq!(m, map, "a refused verdict changes nothing");
            e
        };
        assert!(err("http://shop.test/nowhere.html", "").contains("not met"));
        assert!(err("http://shop.test/private/x.html", "").contains("disallowed by robots.txt"));
        assert!(err("", "http://shop.test/item/1.html").contains("the example page"));
        assert!(err("http://shop.test/", "").contains("entry page"));
        assert!(err("/about.html", "").contains("not an absolute URL"));
        let both = "http://shop.test/about.html";
        assert!(err(both, both).contains("both"));
    }

    #[test]
    fn near_misses_are_the_most_similar_pages_below_theta() {
        let mut m = mapper();
        drive(&mut m, &site);
        let map = m.into_site_map();
        let near = map.near_misses(100);
        assert!(!near.is_empty());
        let sims: Vec<f32> = near
            .iter()
            .map(|&i| map.nodes[i as usize].similarity.expect("measured"))
            .collect();
        assert!(sims.windows(2).all(|w| w[0] >= w[1]), "{sims:?}");
        assert!(!near.contains(&0), "the entry page is never a near miss");
        for &i in &near {
            assert_eq!(map.nodes[i as usize].state, NodeState::Page);
        }
        let measured_pages = map
            .nodes
            .iter()
            .skip(1)
            .filter(|n| n.state == NodeState::Page && n.similarity.is_some())
            .count();
        assert_eq!(near.len(), measured_pages);
        assert_eq!(map.near_misses(1), near[..1]);
        // A target marked unlike the example is a page now, but not a near miss.
        let target = map
            .targets()
            .map(|t| t as usize)
            .find(|&t| map.nodes[t].url != map.example)
            .expect("a target besides the example");
        let mut fixed = map.clone();
        fixed
            .correct(&[], &[map.nodes[target].url.clone()])
            .expect("corrected");
        assert_eq!(fixed.near_misses(100), near);
        // Equal similarities are ordered by URL, whatever order the pages arrived in.
        let mut tied = map.clone();
        let pages: Vec<usize> = near.iter().take(2).map(|&i| i as usize).collect();
        let below = tied.nodes[pages[1]].similarity;
        for &i in &pages {
            tied.nodes[i].similarity = below;
        }
        let (a, b) = (pages[0], pages[1]);
        tied.nodes[a].url = "http://shop.test/tie-a".into();
        tied.nodes[b].url = "http://shop.test/tie-b".into();
        let order = |map: &SiteMap| -> Vec<usize> {
            map.near_misses(100)
                .into_iter()
                .map(|i| i as usize)
                .filter(|i| pages.contains(i))
                .collect()
        };
        assert_eq!(order(&tied), [a, b]);
        // The same pages arrived the other way round.
        tied.nodes.swap(a, b);
        assert_eq!(order(&tied), [b, a]);
    }

    #[test]
    fn breadth_first_tree_follows_document_order_not_arrival_order() {
        let node = |url: &str, parent: Option<u32>, state: NodeState, links: Vec<u32>| Node {
            url: url.into(),
            parent,
            depth: 0,
            state,
            similarity: None,
            unplaced: None,
            title: String::new(),
            heading: String::new(),
            lang: String::new(),
            links,
            form: None,
        };
        // Entry 0 links a (1) then b (2); both link c (3), recorded under b because b answered
        // first. c links the target t (4), a links the target u (6); both targets link d (5),
        // recorded under t. Targets are expanded only once nothing else is left, in the order
        // the walk met them: u (met from a) before t (met from c), so d hangs under u.
        let map = SiteMap {
            nodes: vec![
                node("/", None, NodeState::Page, vec![1, 2]),
                node("/a", Some(0), NodeState::Page, vec![3, 6]),
                node("/b", Some(0), NodeState::Page, vec![3, 0]),
                node("/c", Some(2), NodeState::Page, vec![4]),
                node("/t", Some(3), NodeState::Target, vec![5]),
                node("/d", Some(4), NodeState::Discovered, vec![]),
                node("/u", Some(1), NodeState::Target, vec![5]),
            ],
            ..SiteMap::default()
        };
        let tree = map.breadth_first();
        assert_eq!(
            tree.parent,
            vec![None, Some(0), Some(0), Some(1), Some(3), Some(6), Some(1)]
        );
        assert_eq!(
            tree.depth,
            vec![
                Some(0),
                Some(1),
                Some(1),
                Some(2),
                Some(3),
                Some(3),
                Some(2)
            ]
        );
        assert_eq!(
            tree.order,
            vec![
                Some(0),
                Some(1),
                Some(2),
                Some(3),
                Some(5),
                Some(6),
                Some(4)
            ]
        );
        // The same pages recorded the other way round give the same tree.
        let mut other = map.clone();
        other.nodes[5].parent = Some(6);
        other.nodes[3].parent = Some(1);
        assert_eq!(other.breadth_first(), tree);
        // A node no walk reaches keeps its recorded parent and has no depth.
        let mut alone = map.clone();
        alone
            .nodes
            .push(node("/e", Some(2), NodeState::Discovered, vec![]));
        let tree = alone.breadth_first();
        assert_eq!(
            (tree.parent[7], tree.depth[7], tree.order[7]),
            (Some(2), None, None)
        );
    }

    #[test]
    fn snapshot_restore_mid_run_gives_the_same_map() {
        let mut clean = mapper();
        drive(&mut clean, &site);
        let mut m = mapper();
        // Start three requests, snapshot with them in flight, drop the mapper.
        let mut now = 0;
        let mut started = 0;
        while started < 4 {
            match m.poll(now) {
                Poll::Fetch(r) => {
                    started += 1;
                    if started <= 2 {
                        m.handle(r.id, site(&r.url), now);
                    }
                }
                Poll::WaitUntil(t) => now = t,
                _ => break,
            }
        }
        let json = serde_json::to_string(&m.snapshot()).expect("serialise");
        drop(m);
        let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
        let mut r = Mapper::restore(snap).expect("restore");
        drive(&mut r, &site);
        assert_eq!(r.site_map(), clean.site_map());
    }

    /// A site whose home page has no `<a>` link: its menu is written by `/nav.js` (as Doxygen's
    /// `menudata.js`), which every page includes; `/track.js` answers 404 and `/private/` is
    /// disallowed.
    fn scripted_site(url: &str) -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        let js = |body: &str| {
            FetchResult::Response(FetchResponse {
                status: 200,
                headers: vec![("content-type".into(), "text/javascript".into())],
                body: body.as_bytes().to_vec(),
                ..FetchResponse::default()
            })
        };
        let scripts = "<script src=/nav.js></script><script src=/track.js></script>\
                       <script src=/private/p.js></script>";
        match path {
            "/robots.txt" => html("User-agent: *\nDisallow: /private/\n"),
            "/" => html(&format!(
                "<html><head>{scripts}<title>Home</title></head><body><p>Welcome</p></body></html>"
            )),
            "/nav.js" => js(r#"var menu = [{text: "Catalogue", url: "/cat/a.html"}]; // "x.html""#),
            "/cat/a.html" => html(
                &listing(
                    &(1..=5)
                        .map(|i| format!("/item/{i}.html"))
                        .collect::<Vec<_>>(),
                )
                .replace("<head>", &format!("<head>{scripts}")),
            ),
            p if p.starts_with("/item/") => {
                let i: u32 = p[6..].trim_end_matches(".html").parse().unwrap_or(0);
                html(&entity(i).replace("<head>", &format!("<head>{scripts}")))
            }
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        }
    }

    /// The page URLs a same-site script names are links of every page including it: the
    /// script is asked once, the map records no node for it, and a snapshot taken while it is
    /// in flight restores to the same map.
    #[test]
    fn links_named_in_a_pages_scripts_are_its_links() {
        let mut m = mapper();
        let asked = std::cell::RefCell::new(Vec::new());
        drive(&mut m, &|url: &str| {
            asked.borrow_mut().push(url.to_string());
            scripted_site(url)
        });
        let map = m.site_map();
        let targets: Vec<&str> = map
            .targets()
            .map(|t| map.nodes[t as usize].url.as_str())
            .collect();
        assert_eq!(targets.len(), 5, "{targets:?}");
        let home_links: Vec<&str> = map.nodes[0]
            .links
            .iter()
            .map(|&l| map.nodes[l as usize].url.as_str())
            .collect();
        assert_eq!(home_links, ["http://shop.test/cat/a.html"]);
        assert_eq!(map.scripted.get(&0), Some(&map.nodes[0].links));
        // The pattern needs the script: without it the home page leads nowhere.
        let learned = crate::pattern::learn_from_map(map, m.config(), 0).expect("learn");
        assert!(learned.script_links, "{}", learned.render());
        // Where no link came only from scripts, a crawl does not fetch them.
        let mut plain = map.clone();
        plain.scripted.clear();
        let learned = crate::pattern::learn_from_map(&plain, m.config(), 0).expect("learn");
        assert!(!learned.script_links);
        assert!(map.nodes.iter().all(|n| !n.url.ends_with(".js")));
        let asked = asked.into_inner();
        for script in ["/nav.js", "/track.js"] {
            let n = asked.iter().filter(|u| u.ends_with(script)).count();
            assert_eq!(n, 1, "{script} asked once: {asked:?}");
        }
        assert!(!asked.iter().any(|u| u.contains("/private/")));
        // nav.js and track.js answered (the disallowed one is skipped, not asked).
        assert_eq!(m.progress().scripts, 2);
        assert_eq!(m.progress().fetched, 7);

        // Snapshot with the script in flight (asked right after the home page), restore.
        let mut s = mapper();
        let mut now = 0;
        loop {
            match s.poll(now) {
                Poll::Fetch(r) if r.url.ends_with("/nav.js") => {
                    // Asked as a script: a driver keeps its body though it is not HTML.
                    assert_eq!(r.kind, RequestKind::Script);
                    break;
                }
                Poll::Fetch(r) => {
                    assert_ne!(r.kind, RequestKind::Script, "{}", r.url);
                    s.handle(r.id, scripted_site(&r.url), now);
                }
                Poll::WaitUntil(t) => now = t,
                other => panic!("nav.js never asked: {other:?}"),
            }
        }
        let json = serde_json::to_string(&s.snapshot()).expect("serialise");
        let mut r = Mapper::restore(serde_json::from_str(&json).expect("read")).expect("restore");
        drive(&mut r, &scripted_site);
        assert_eq!(r.site_map(), m.site_map());

        // Turned off: the home page has no links, and learning says why.
        let mut off = mapper_with(MapConfig {
            script_links: false,
            ..MapConfig::default()
        });
        drive(&mut off, &scripted_site);
        assert_eq!(off.site_map().nodes.len(), 1);
        assert!(off.site_map().scripted.is_empty());
    }

    /// A snapshot or map read back from disk whose ids point nowhere is refused with the
    /// reason, not run into a panic.
    #[test]
    fn inconsistent_snapshots_and_maps_are_refused() {
        let mut m = mapper();
        let mut now = 0;
        for _ in 0..6 {
            match m.poll(now) {
                Poll::Fetch(r) => m.handle(r.id, site(&r.url), now),
                Poll::WaitUntil(t) => now = t,
                _ => break,
            }
        }
        let good = serde_json::to_value(m.snapshot()).expect("snapshot");
        let queued = good["frontier"]["queue"].as_array().map_or(0, Vec::len);
        assert!(queued > 0, "requests queued: {}", good["frontier"]);
        let restore = |v: &serde_json::Value| {
            let snap: Snapshot = serde_json::from_value(v.clone()).expect("deserialises");
            Mapper::restore(snap).map(|_| ()).map_err(|e| e.to_string())
        };
        assert_eq!(restore(&good), Ok(()));
        let mut bad = good.clone();
        bad["frontier"]["queue"][0]["item"]["node"] = serde_json::json!(9_999);
        let err = restore(&bad).expect_err("a queued request for no node");
        assert!(
            err.contains("inconsistent snapshot: a queued request is node 9999"),
            "{err}"
        );
        let mut bad = good.clone();
        bad["map"]["nodes"][1]["parent"] = serde_json::json!(4_000_000_000u32);
        let err = restore(&bad).expect_err("a parent beyond the map");
        assert!(err.contains("the parent of node 1 is 4000000000"), "{err}");

        let mut map = m.into_site_map();
        assert_eq!(map.check(), Ok(()));
        let mut listed = map.clone();
        listed.sitemap_links.push(88);
        let err = listed.check().expect_err("a sitemap's page beyond the map");
        assert!(err.contains("a page a sitemap lists is 88"), "{err}");
        map.nodes[0].links.push(77);
        let err = map.check().expect_err("a dangling link");
        assert!(err.contains("a link of node 0 is 77"), "{err}");
        let learned = crate::pattern::learn_from_map(&map, &MapConfig::default(), 0);
        assert!(
            learned.is_err_and(|e| e.to_string().contains("inconsistent site map")),
            "learning refuses it"
        );
    }

    #[test]
    fn bad_inputs_are_clear_errors() {
        let ex = ExamplePage {
            url: "http://shop.test/item/1.html".into(),
            body: entity(1).into_bytes(),
            content_type: None,
        };
        assert!(Mapper::new("ftp://x/", ex.clone(), MapConfig::default()).is_err());
        let bad = MapConfig {
            deny: vec!["(".into()],
            ..MapConfig::default()
        };
        assert!(Mapper::new("http://shop.test/", ex.clone(), bad).is_err());
        let bad = MapConfig {
            similarity: similarity::Options {
                threshold: 2.0,
                ..Default::default()
            },
            ..MapConfig::default()
        };
        assert!(Mapper::new("http://shop.test/", ex, bad).is_err());
    }

    #[test]
    fn limits_stop_the_run() {
        let mut m = Mapper::new(
            "http://shop.test/",
            ExamplePage {
                url: "http://shop.test/item/1.html".into(),
                body: entity(1).into_bytes(),
                content_type: None,
            },
            MapConfig {
                max_pages: 3,
                ..MapConfig::default()
            },
        )
        .expect("mapper");
        drive(&mut m, &site);
        assert_eq!(m.stopped(), Some(StopReason::MaxPages));
        assert_eq!(m.progress().fetched, 3);
    }

    /// The time budget counts running time: a run saved after 5 s and restored an hour later
    /// has 5 s left of 10.
    #[test]
    fn the_time_budget_counts_running_time_across_a_restore() {
        let limited = || {
            let mut m = mapper();
            m.state.config.max_duration_ms = Some(10_000);
            m
        };
        let mut m = limited();
        let t0 = 1_000_000;
        let Poll::Fetch(r) = m.poll(t0) else {
            panic!("the entry page first")
        };
        m.handle(r.id, site(&r.url), t0);
        assert!(matches!(m.poll(t0 + 5_000), Poll::Fetch(_)));
        assert_eq!(m.progress().elapsed_ms, 5_000);
        let json = serde_json::to_string(&m.snapshot()).expect("serialise");
        let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
        let mut r = Mapper::restore(snap).expect("restore");
        let later = t0 + 3_600_000;
        // The request in flight is asked again once the host's delay from its start is over.
        assert_eq!(r.poll(later), Poll::WaitUntil(later + 10));
        assert!(matches!(r.poll(later + 10), Poll::Fetch(_)));
        assert_eq!(r.stopped(), None, "5 s of 10 used");
        assert_eq!(r.progress().elapsed_ms, 5_010);
        r.poll(later + 4_000);
        assert_eq!(r.stopped(), None);
        r.poll(later + 5_000);
        assert_eq!(r.stopped(), Some(StopReason::MaxDuration));
        // Without the restore, the same budget runs out at 10 s.
        let mut m = limited();
        m.poll(t0);
        m.poll(t0 + 10_000);
        assert_eq!(m.stopped(), Some(StopReason::MaxDuration));
    }
}
