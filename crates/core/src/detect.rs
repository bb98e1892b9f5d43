//! "Find the item pages": the entity-site detector (document `000`, sections 3.3–3.4; design §8).
//! From any page of a site (its home page, a listing, an item), find the site's entity sections
//! in as few fetches as possible: each section's index page, a few sample items, an estimate of
//! how many items.
//!
//! Owns the search ([`Detector`], a [`Machine`] the drivers pump like the mapper), the link
//! prioritisers and the reading of a section off an index page. The contract:
//! - the search is best-first from the start page (then the site's root, when the start is not
//!   it or its `index.html`), ties to the shallower link, as the document's Algorithm 2: at most
//!   [`DetectConfig::max_fetches`] pages, depth ≤ [`DetectConfig::max_depth`], at most
//!   [`DetectConfig::unproductive_root`] children of the root and
//!   [`DetectConfig::unproductive`] of any other page fetched without finding a section; at
//!   depth 1 links of priority ≥ 0 are followed, deeper only those above 0;
//! - a page's groups of alike links (same directory, same shape of last segment, outside the
//!   page's `nav`/`header`/`footer`/`aside`; a flat directory's pages split by the leading word
//!   of their names when a few words name them all: `sql-*.html`, `class*.html`; directory
//!   pages such as `index.html` left out) of at least [`DetectConfig::min_group`] pages are
//!   candidate sections. One page of each of the likeliest three (largest, with the longest
//!   anchors: items are named by titles) is fetched next, the one with the longest anchor,
//!   ahead of every other link and of the samples' own samples, even one level below
//!   [`DetectConfig::max_depth`]. A sample is an item when the page-kind model
//!   (`exemplar_classify`) does not call it an index and it is no listing of its own built like
//!   the page that links it (a tag page of a quotes site lists quotes as its home page does;
//!   RTDM says they are alike), and its group is estimated to hold at least
//!   [`DetectConfig::min_items`] items (its size times the listing's pages). A sample the model
//!   calls an entity ends the search; one it calls `other` (profiles, but also a manual's
//!   chapters) is confirmed by a second page of its group built like it (RTDM), and is the
//!   answer when the search ends without an entity. The item's group is the section; when the
//!   listing was itself a sample of a group of listings in their own directory (a shop's
//!   categories), those listings are the section's index pages;
//! - when the start page is one the model calls an entity, a page with a group that lists it
//!   (in a flat root directory, the group's pages named with its leading word) names the
//!   section at once, with no sample; the start page's own links then go before the root (its
//!   "Up" and breadcrumb links lead to its listing). A section's examples start at its
//!   confirming item and go on in the listing's order;
//! - with [`DetectConfig::site_words`], the search learns from the site's own links: the
//!   anchor and URL words of links that led to a page listing something raise, within ±3, the
//!   priority of links sharing them; those of links that led nowhere lower it;
//! - with [`DetectConfig::confirm`] off (the baselines), it stops instead at the first page the
//!   model calls an index with such a group, as the document does;
//! - robots.txt is obeyed and not counted as a fetch; pages off the site, non-HTML bodies,
//!   4xx/5xx and failures count as fetches that found nothing.
//!
//! Two word lists: [`Prioritiser::Structure`] (ours: anchor and URL words of
//! `data/detect/words.txt` in several languages, the page's own link groups, the shape of the
//! target URL) and [`Prioritiser::Baseline`], the document's Portuguese word list
//! (`data/detect/baseline-pt.txt`), for the comparison. [`Strategy::BreadthFirst`] is the
//! document's other baseline (Table 4.2).
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::canon::{self, CompiledScope, Scope};
use crate::dom::{Page, ParseOptions};
use crate::fetch::{Delivered, FetchResult, Frontier, Machine, Next, Politeness, Poll, Unreadable};

/// How candidate links are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Prioritiser {
    /// Words of several languages, the page's link groups and the target URL's shape.
    #[default]
    Structure,
    /// The document's hand-made Portuguese real-estate word list.
    Baseline,
}

/// The order pages are visited in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Strategy {
    /// Highest priority first (Algorithm 2).
    #[default]
    BestFirst,
    /// Document order, level by level, no priority rules (the document's Table 4.2 baseline).
    BreadthFirst,
}

/// Settings of a detection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DetectConfig {
    /// Pages fetched at most (the document: 10).
    pub max_fetches: usize,
    /// Link depth from the start page at most (the document: 2).
    pub max_depth: u32,
    /// Children of the root fetched without a section before the root's others are dropped (6).
    pub unproductive_root: usize,
    /// The same for any other page (3).
    pub unproductive: usize,
    /// Alike links a page must hold to show a section.
    pub min_group: usize,
    /// Items a section must be estimated to hold (a few-page manual's chapters are no section).
    pub min_items: usize,
    /// Sample items given per section.
    pub examples: usize,
    /// Politeness (robots.txt, delays).
    pub politeness: Politeness,
    /// Body size at most, bytes.
    pub max_bytes: usize,
    /// Link order.
    pub prioritiser: Prioritiser,
    /// Learn from the site's own links as the search goes: the words of the anchors and URLs
    /// of links that led to a listing raise the priority of links that share them, those of
    /// links that led nowhere lower it.
    pub site_words: bool,
    /// Visit order.
    pub strategy: Strategy,
    /// Confirm a group of links by the kind of one of its pages (ours) rather than stop at the
    /// first page the model calls an index (the document's rule, for the baselines).
    pub confirm: bool,
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            max_fetches: 10,
            max_depth: 2,
            unproductive_root: 6,
            unproductive: 3,
            min_group: 6,
            min_items: 12,
            examples: 3,
            politeness: Politeness::default(),
            max_bytes: 8 << 20,
            prioritiser: Prioritiser::default(),
            site_words: true,
            strategy: Strategy::default(),
            confirm: true,
        }
    }
}

/// A section of a site: the pages of one kind an index page lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// The index page(s) that list the items.
    pub index: Vec<String>,
    /// A few of the items, in the index page's order.
    pub examples: Vec<String>,
    /// Items the index shows, times its pages when it says how many it has.
    pub estimated_items: usize,
    /// The items' URL shape (`/product/*`).
    pub shape: String,
}

/// A page the search fetched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Visit {
    /// Its URL.
    pub url: String,
    /// Link depth from the start page.
    pub depth: u32,
    /// The page-kind model's answer (`index`, `entity`, `other`), or why there is none.
    pub kind: String,
    /// The size of its largest group of alike links.
    pub group: usize,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    /// The start URL.
    pub site: String,
    /// Whether a section was found.
    pub entity_site: bool,
    /// Sections, best first.
    pub sections: Vec<Section>,
    /// Pages fetched (robots.txt not counted).
    pub fetches: usize,
    /// The pages fetched, in order.
    pub visited: Vec<Visit>,
}

impl Detection {
    /// Whether the site answered nothing: every page asked failed (a network failure, a
    /// timeout, an unreadable robots.txt). Its answer is then unknown, not "no items".
    pub fn unreachable(&self) -> bool {
        !self.visited.is_empty() && self.visited.iter().all(|v| v.kind.starts_with("failed"))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Cand {
    depth: u32,
    priority: i32,
    /// Order found (ties).
    order: u64,
    /// The URL of the page that linked it (`None` for the start and the root).
    parent: Option<String>,
    /// A sample of a group of alike links: the page and the group's shape.
    #[serde(default)]
    sample_of: Option<(String, String)>,
    /// Its anchors' and URL's words (the site's own prioritiser).
    #[serde(default)]
    words: Vec<String>,
}

/// A group of alike links waiting for its sample's kind.
#[derive(Clone, Debug)]
struct Pending {
    group: Group,
    /// The listing's pages (its page bar's largest number).
    pages: usize,
    /// The page that lists the group: a sample built like it is a listing of its own.
    listing: std::rc::Rc<Page>,
}

/// A section whose sample the model calls `other`.
struct Fallback {
    /// Its group: (listing, shape).
    key: (String, String),
    section: Section,
    /// The sample: a second page of the group built like it confirms the section.
    sample: std::rc::Rc<Page>,
}

/// The search. See the module docs.
pub struct Detector {
    config: DetectConfig,
    scope: CompiledScope,
    frontier: Frontier<Cand>,
    candidates: BTreeMap<String, Cand>,
    seen: HashSet<String>,
    root: String,
    order: u64,
    unproductive: HashMap<String, usize>,
    dropped_parents: HashSet<String>,
    /// Groups sampled, by (page, shape); ordered, so that which group of listings a section
    /// names ([`Detector::section`]) does not depend on a hash seed.
    pending: BTreeMap<(String, String), Pending>,
    /// The first section whose sample the model calls `other`: the answer if no sample it
    /// calls an entity turns up.
    fallback: Option<Fallback>,
    link_words: LinkWords,
    /// The start page, when the model calls it an entity: the listings that list it are its
    /// section's.
    start_item: Option<String>,
    result: Detection,
    done: bool,
}

impl Detector {
    /// A detection from `start`.
    ///
    /// # Errors
    /// When `start` is not an http(s) URL or the politeness settings are invalid.
    pub fn new(start: &str, config: DetectConfig) -> Result<Detector, String> {
        config.politeness.validate()?;
        let start_c =
            canon::canonicalize(start).ok_or_else(|| format!("not an http(s) URL: {start}"))?;
        let scope = Scope::for_url(&start_c, false)
            .ok_or_else(|| format!("not an http(s) URL: {start}"))?
            .compile()?;
        let root = Url::parse(&start_c)
            .map(|mut u| {
                u.set_path("/");
                u.set_query(None);
                u.to_string()
            })
            .map_err(|e| format!("{start}: {e}"))?;
        let mut d = Detector {
            frontier: Frontier::new(config.politeness.clone()),
            config,
            scope,
            candidates: BTreeMap::new(),
            seen: HashSet::new(),
            root: canon::canonicalize(&root).unwrap_or(root),
            order: 0,
            unproductive: HashMap::new(),
            dropped_parents: HashSet::new(),
            pending: BTreeMap::new(),
            fallback: None,
            link_words: LinkWords::default(),
            start_item: None,
            result: Detection {
                site: start.to_string(),
                entity_site: false,
                sections: Vec::new(),
                fetches: 0,
                visited: Vec::new(),
            },
            done: false,
        };
        d.add(start_c, 0, i32::MAX, None, Vec::new());
        Ok(d)
    }

    /// The answer so far (final once [`Poll::Done`]).
    pub fn detection(&self) -> &Detection {
        &self.result
    }

    /// Takes the answer.
    pub fn into_detection(self) -> Detection {
        self.result
    }

    fn add(
        &mut self,
        url: String,
        depth: u32,
        priority: i32,
        parent: Option<String>,
        words: Vec<String>,
    ) {
        if self.seen.contains(&url) || !self.scope.contains(&url) {
            return;
        }
        if let Some(c) = self.candidates.get_mut(&url) {
            // Met again: keep the best priority and the shallowest depth.
            c.priority = c.priority.max(priority);
            c.depth = c.depth.min(depth);
            for w in words {
                if c.words.len() < MAX_LINK_WORDS && !c.words.contains(&w) {
                    c.words.push(w);
                }
            }
            return;
        }
        self.order += 1;
        self.candidates.insert(
            url,
            Cand {
                depth,
                priority,
                order: self.order,
                parent,
                sample_of: None,
                words,
            },
        );
    }

    /// The next candidate to fetch, removed from the candidates.
    fn pick(&mut self) -> Option<(String, Cand)> {
        let priority = |c: &Cand| {
            if self.config.site_words && c.sample_of.is_none() {
                c.priority.saturating_add(self.link_words.bonus(&c.words))
            } else {
                c.priority
            }
        };
        let follow = |c: &Cand| c.depth <= 1 && priority(c) >= 0 || priority(c) > 0;
        let best = self
            .candidates
            .iter()
            .filter(|(_, c)| {
                c.parent
                    .as_ref()
                    .is_none_or(|p| !self.dropped_parents.contains(p))
            })
            .filter(|(_, c)| self.config.strategy == Strategy::BreadthFirst || follow(c))
            .min_by(|(_, a), (_, b)| match self.config.strategy {
                Strategy::BestFirst => priority(b)
                    .cmp(&priority(a))
                    .then(a.depth.cmp(&b.depth))
                    .then(a.order.cmp(&b.order)),
                Strategy::BreadthFirst => a.depth.cmp(&b.depth).then(a.order.cmp(&b.order)),
            })
            .map(|(u, _)| u.clone())?;
        let c = self.candidates.remove(&best)?;
        Some((best, c))
    }

    fn finish(&mut self) {
        self.done = true;
        self.frontier.clear_queue();
        if self.result.sections.is_empty()
            && let Some(f) = self.fallback.take()
        {
            self.result.sections.push(f.section);
        }
        self.result.entity_site = !self.result.sections.is_empty();
    }

    fn take(&mut self, url: String, cand: Cand, result: FetchResult) {
        self.result.fetches += 1;
        let page = match read_page(&url, result, &self.scope, self.config.max_bytes) {
            Ok(p) => p,
            Err(why) => {
                self.link_words.record(&cand.words, false);
                self.visit(&url, &cand, why, 0);
                self.unproductive_child(&cand);
                return;
            }
        };
        let kind = page_kind(&page);
        let groups = link_groups(&page, &self.scope);
        let largest = groups.first().map_or(0, |g| g.targets.len());
        if cand.sample_of.is_none() {
            self.link_words
                .record(&cand.words, largest >= self.config.min_group);
        }
        self.visit(&url, &cand, kind.0.to_string(), largest);
        if let Some(key) = &cand.sample_of
            && kind.0 != "index"
            && let Some(found) = self.pending.get(key).cloned()
            && !(largest >= self.config.min_group.max(found.group.targets.len() / 2)
                && crate::similarity::compare_pages(
                    &found.listing,
                    &page,
                    &crate::similarity::Options::default(),
                )
                .similar)
            && found.group.targets.len() * found.pages >= self.config.min_items
        {
            // The sample is an item: not called an index, and not a listing of its own built
            // like the page that links it (a tag page lists quotes as the home page does). Its
            // group is a section of that page. One the model calls an entity ends the search;
            // one it calls `other` (a profile, a manual's chapter) is kept in case no entity
            // section turns up.
            let section = self.section(&key.0, &found, &url);
            if kind.0 == "entity" {
                self.result.sections = vec![section];
                self.finish();
                return;
            }
            match &self.fallback {
                None => {
                    // A second page of the group, next: if it is built like this one, the
                    // group's pages are alike items and the search ends with them.
                    let second = sample_of_group(&found.listing, &found.group, &self.seen);
                    if let Some(second) = second {
                        self.order += 1;
                        self.candidates.insert(
                            second,
                            Cand {
                                depth: cand.depth,
                                priority: i32::MAX - 5,
                                order: self.order,
                                parent: cand.parent.clone(),
                                sample_of: Some(key.clone()),
                                words: Vec::new(),
                            },
                        );
                    }
                    self.fallback = Some(Fallback {
                        key: key.clone(),
                        section,
                        sample: std::rc::Rc::new(page.clone()),
                    });
                }
                Some(f)
                    if f.key == *key
                        && crate::similarity::compare_pages(
                            &f.sample,
                            &page,
                            &crate::similarity::Options::default(),
                        )
                        .similar =>
                {
                    self.finish();
                    return;
                }
                Some(_) => {}
            }
        }
        if self.config.confirm && self.result.fetches == 1 && kind.0 == "entity" {
            // The search starts on an item: a listing that lists it names its section, no
            // sample needed.
            self.start_item = Some(url.clone());
        }
        if let Some(item) = self.start_item.clone()
            && item != url
            && let Some(g) = groups
                .iter()
                .find(|g| g.targets.contains(&item))
                .and_then(|g| items_like(g, &item))
            && g.targets.len() >= self.config.min_group
            && let pages = page_count(&page)
            && g.targets.len() * pages >= self.config.min_items
        {
            let found = Pending {
                group: g,
                pages,
                listing: std::rc::Rc::new(page.clone()),
            };
            self.result.sections = vec![self.section(&url, &found, &item)];
            self.finish();
            return;
        }
        if !self.config.confirm {
            let sections = sections_of(&page, &groups, &kind, &self.config);
            if !sections.is_empty() {
                self.result.sections = sections;
                self.finish();
                return;
            }
        } else if cand.depth <= self.config.max_depth {
            // Samples go at most one level below the depth limit.
            self.sample_groups(&url, &cand, &page, &groups, &kind);
        }
        self.unproductive_child(&cand);
        if cand.depth < self.config.max_depth {
            let links = prioritise(&page, &groups, &self.scope, self.config.prioritiser);
            for (target, priority, words) in links {
                self.add(target, cand.depth + 1, priority, Some(url.clone()), words);
            }
        }
        if cand.depth == 0 && url != self.root && !is_root_page(&url, &self.root) {
            // Started below the root: the root is the next place to look (the document's
            // search starts there).
            // From an item, its own links come first when they look like a way up (its
            // listing, a breadcrumb): a listing that lists it names the section at once.
            let root = self.root.clone();
            let priority = if self.start_item.is_some() {
                1
            } else {
                i32::MAX - 1
            };
            self.add(root, 0, priority, None, Vec::new());
        }
    }

    /// Queues a sample of each of the page's likely groups of items (at most three, likeliest
    /// first, ahead of every other link): the first whose sample is no listing is the section.
    fn sample_groups(
        &mut self,
        url: &str,
        cand: &Cand,
        page: &Page,
        groups: &[Group],
        kind: &(&str, f64),
    ) {
        let _ = kind;
        let mut likely: Vec<&Group> = groups
            .iter()
            .filter(|g| g.targets.len() >= self.config.min_group)
            .collect();
        likely.sort_by(|a, b| item_likeness(page, b).total_cmp(&item_likeness(page, a)));
        let pages = page_count(page);
        let listing = std::rc::Rc::new(page.clone());
        for (k, g) in likely.into_iter().take(3).enumerate() {
            let Some(sample) = sample_of_group(page, g, &self.seen) else {
                continue;
            };
            let key = (url.to_string(), g.shape.clone());
            self.pending.insert(
                key.clone(),
                Pending {
                    group: g.clone(),
                    pages,
                    listing: std::rc::Rc::clone(&listing),
                },
            );
            self.order += 1;
            // Ahead of every link, in likeliness order; a sample met again keeps its first group.
            let c = self.candidates.entry(sample).or_insert(Cand {
                depth: cand.depth + 1,
                priority: 0,
                order: self.order,
                parent: Some(url.to_string()),
                sample_of: None,
                words: Vec::new(),
            });
            if c.sample_of.is_none() {
                c.sample_of = Some(key);
                // A page's samples before its samples' own: its items may be among them.
                let depth = i32::try_from(cand.depth)
                    .unwrap_or(i32::MAX / 8)
                    .min(1 << 20);
                c.priority = i32::MAX - 10 - 3 * depth - k as i32;
                c.parent = Some(url.to_string());
            }
        }
    }

    /// The section a confirmed group of `page` makes. When a group sampled earlier holds
    /// `page` (it is one of a shop's categories), that group's pages are the section's index
    /// pages: the first such group in (page, shape) order.
    fn section(&self, page: &str, found: &Pending, item: &str) -> Section {
        let listings = self
            .pending
            .iter()
            // A group in the root directory (`/*.html`: a manual's table of contents) holds
            // pages of every kind; a shop's categories sit in their own (`/category/…`).
            .filter(|((_, _), p)| !p.group.shape.starts_with("/*"))
            .filter(|((_, _), p)| p.group.targets.iter().any(|t| t == page))
            .map(|(_, p)| p.group.targets.clone())
            .next();
        let per_listing = found.group.targets.len() * found.pages;
        let (index, estimated_items) = match listings {
            Some(l) => {
                let n = l.len();
                (l, per_listing * n)
            }
            None => (vec![page.to_string()], per_listing),
        };
        Section {
            index,
            examples: examples_around(&found.group.targets, item, self.config.examples),
            estimated_items,
            shape: found.group.shape.clone(),
        }
    }

    fn visit(&mut self, url: &str, cand: &Cand, kind: String, group: usize) {
        self.result.visited.push(Visit {
            url: url.to_string(),
            depth: cand.depth,
            kind,
            group,
        });
    }

    fn unproductive_child(&mut self, cand: &Cand) {
        let Some(parent) = &cand.parent else { return };
        let n = self.unproductive.entry(parent.clone()).or_insert(0);
        *n += 1;
        let limit = if *parent == self.root {
            self.config.unproductive_root
        } else {
            self.config.unproductive
        };
        if *n >= limit {
            self.dropped_parents.insert(parent.clone());
        }
    }
}

impl Machine for Detector {
    fn poll(&mut self, now_ms: u64) -> Poll {
        loop {
            if self.done {
                return Poll::Done;
            }
            if self.frontier.queued() == 0 && self.frontier.in_flight() == 0 {
                if self.result.fetches >= self.config.max_fetches {
                    self.finish();
                    continue;
                }
                match self.pick() {
                    Some((url, cand)) => {
                        self.seen.insert(url.clone());
                        self.frontier.push(url, cand);
                    }
                    None => {
                        self.finish();
                        continue;
                    }
                }
            }
            return match self.frontier.next(now_ms) {
                Next::Fetch(r) => Poll::Fetch(r),
                Next::Disallowed(q) => {
                    let why = match self.frontier.robots_unreadable(&q.url) {
                        Some(Unreadable::Unreachable { error }) => format!("failed: {error}"),
                        Some(Unreadable::ServerError { status }) => {
                            format!("failed: robots.txt answers HTTP {status}")
                        }
                        None => "disallowed by robots.txt".into(),
                    };
                    self.visit(&q.url, &q.item, why, 0);
                    continue;
                }
                Next::WaitUntil(t) => Poll::WaitUntil(t),
                Next::Busy | Next::Full => Poll::Busy,
                Next::Empty => continue,
            };
        }
    }

    fn handle(&mut self, id: u64, result: FetchResult, _now_ms: u64) {
        if let Delivered::Page(q, result) = self.frontier.deliver(id, result) {
            if self.done {
                return;
            }
            self.take(q.url, q.item, result);
        }
    }

    fn cancel(&mut self) {
        self.finish();
    }
}

/// The page of a result, or why there is none.
fn read_page(
    url: &str,
    result: FetchResult,
    scope: &CompiledScope,
    max_bytes: usize,
) -> Result<Page, String> {
    let r = match result {
        FetchResult::Failed(e) => return Err(format!("failed: {e}")),
        FetchResult::Response(r) => r,
    };
    if !(200..300).contains(&r.status) {
        return Err(format!("HTTP {}", r.status));
    }
    let final_url = if r.final_url.is_empty() {
        url.to_string()
    } else {
        r.final_url.clone()
    };
    if !canon::canonicalize(&final_url).is_some_and(|f| scope.contains(&f)) {
        return Err(format!("redirected off site to {final_url}"));
    }
    if !r.is_html() {
        return Err("not HTML".into());
    }
    let opts = ParseOptions {
        max_bytes,
        ..ParseOptions::default()
    };
    Page::parse(&r.body, &final_url, r.header("content-type"), &opts).map_err(|e| e.to_string())
}

/// The page-kind model's answer: the kind's name and P(index).
fn page_kind(page: &Page) -> (&'static str, f64) {
    let Ok(model) = exemplar_classify::shipped_model() else {
        return ("unclassified", 0.0);
    };
    let x = exemplar_classify::features::extract(page);
    let (p, _) = model.probabilities(&x);
    let best = (0..p.len())
        .max_by(|&a, &b| p[a].total_cmp(&p[b]))
        .unwrap_or(2);
    (
        exemplar_classify::Kind::ALL
            .get(best)
            .map_or("other", |k| k.name()),
        p.first().copied().unwrap_or(0.0),
    )
}

/// A group of alike links on a page.
#[derive(Clone, Debug)]
struct Group {
    /// The shape key (`/product/*`, `/p/{n}`).
    shape: String,
    /// Distinct targets, in document order.
    targets: Vec<String>,
}

/// The page's same-site links outside its chrome (`nav`, `header`, `footer`, `aside`: the
/// site's menus, the same on every page) grouped by shape (directory, and the last segment's
/// class: a number, a word or slug, a file of some extension), largest first; the page itself,
/// the root and the page's own ancestors left out.
fn link_groups(page: &Page, scope: &CompiledScope) -> Vec<Group> {
    let here = canon::canonicalize(&page.url).unwrap_or_default();
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut seen = HashSet::new();
    let chrome = ["nav", "header", "footer", "aside"].map(crate::dom::Label::of);
    let tree = &page.tree;
    let in_chrome = |node| {
        std::iter::successors(Some(node), |&n| tree.parent(n))
            .any(|n| chrome.contains(&tree.label(n)))
    };
    for l in &page.links {
        if in_chrome(l.node) {
            continue;
        }
        let Some(u) = canon::canonicalize(&l.url) else {
            continue;
        };
        if u == here || !scope.contains(&u) || !seen.insert(u.clone()) {
            continue;
        }
        let Some(shape) = shape_of(&u) else { continue };
        if is_index_file(&u) {
            continue; // a directory's own page (`index.html`): a listing or the home, no item
        }
        if here.starts_with(u.trim_end_matches('/')) && u.ends_with('/') {
            continue; // an ancestor of this page (breadcrumbs)
        }
        groups
            .entry(shape.clone())
            .or_insert_with(|| Group {
                shape,
                targets: Vec::new(),
            })
            .targets
            .push(u);
    }
    let mut out: Vec<Group> = groups.into_values().flat_map(split_by_prefix).collect();
    out.sort_by(|a, b| {
        b.targets
            .len()
            .cmp(&a.targets.len())
            .then(a.shape.cmp(&b.shape))
    });
    out
}

/// A URL's shape: its directory and the class of its last segment; `None` for the root and
/// for links to files that are no pages.
fn shape_of(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    let path = u.path();
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return None;
    }
    let (dir, last) = trimmed.rsplit_once('/').unwrap_or(("", trimmed));
    let ext = last.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    if let Some(e) = &ext
        && !matches!(
            e.as_str(),
            "html" | "htm" | "php" | "asp" | "aspx" | "jsp" | "shtml"
        )
        && e.bytes().all(|b| b.is_ascii_alphabetic())
    {
        return None; // pdf, jpg, zip, css…
    }
    let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
    let class = if stem.bytes().all(|b| b.is_ascii_digit()) {
        "{n}"
    } else {
        "*"
    };
    let query = if u.query().is_some() { "?…" } else { "" };
    let slash = if path.ends_with('/') { "/" } else { "" };
    let ext = ext.map(|e| format!(".{e}")).unwrap_or_default();
    Some(format!("{dir}/{class}{ext}{slash}{query}"))
}

/// Whether `url` names its directory's own page: `…/index.html`, `default.aspx`.
fn is_index_file(url: &str) -> bool {
    let Ok(u) = Url::parse(url) else { return false };
    let last = u.path().rsplit('/').next().unwrap_or("");
    let stem = last.split_once('.').map_or("", |(s, _)| s);
    stem.eq_ignore_ascii_case("index") || stem.eq_ignore_ascii_case("default")
}

/// Whether `url` is the site's root page: the root itself or its directory's `index.html`.
fn is_root_page(url: &str, root: &str) -> bool {
    url == root
        || is_index_file(url)
            && Url::parse(url)
                .is_ok_and(|u| u.path().rsplit_once('/').is_some_and(|(d, _)| d.is_empty()))
}

/// The leading word of a URL's last segment, lower case (`sql` of `sql-vacuum.html`,
/// `classsf` of `classsf_1_1Texture.html`); empty when it starts with no letter.
fn leading_word(url: &str) -> String {
    let last = url.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    last.chars()
        .take_while(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// A group of one directory's pages named by a few prefixes (`sql-*.html`, `app-*.html` and a
/// few chapters in a manual's flat directory; `class*`, `struct*` and the tabs of an API
/// reference) split into one group per prefix that names enough pages, the rest kept together.
/// A group of slugs (`/author/Albert-Einstein`) has about as many leading words as pages and
/// stays whole.
fn split_by_prefix(g: Group) -> Vec<Group> {
    const MIN: usize = 6;
    if g.targets.len() < 2 * MIN || !g.shape.contains("/*") {
        return vec![g];
    }
    let mut by_word: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in &g.targets {
        by_word.entry(leading_word(t)).or_default().push(t.clone());
    }
    let structured = by_word.len() * 10 <= g.targets.len() * 3;
    if !structured || !by_word.iter().any(|(w, v)| !w.is_empty() && v.len() >= MIN) {
        return vec![g];
    }
    let mut rest = Group {
        shape: g.shape.clone(),
        targets: Vec::new(),
    };
    let mut out = Vec::new();
    for (word, targets) in by_word {
        if word.is_empty() || targets.len() < MIN {
            rest.targets.extend(targets);
            continue;
        }
        let at = g.shape.rfind("/*").unwrap_or(0);
        let shape = format!("{}/{word}*{}", &g.shape[..at], &g.shape[at + 2..]);
        out.push(Group { shape, targets });
    }
    if rest.targets.is_empty() && out.len() == 1 {
        return vec![g]; // one word names them all: nothing to tell apart
    }
    if !rest.targets.is_empty() {
        // Document order, as every group's.
        let order: HashMap<&String, usize> =
            g.targets.iter().enumerate().map(|(i, t)| (t, i)).collect();
        rest.targets
            .sort_by_key(|t| order.get(t).copied().unwrap_or(usize::MAX));
        out.push(rest);
    }
    out
}

/// `n` pages of a group, from `item` on in the listing's order (the pages next to an item are
/// likeliest of its kind; a group's first links are often a menu), then those before it.
fn examples_around(targets: &[String], item: &str, n: usize) -> Vec<String> {
    let at = targets.iter().position(|t| t == item).unwrap_or(0);
    targets[at..]
        .iter()
        .chain(targets[..at].iter().rev())
        .take(n)
        .cloned()
        .collect()
}

/// The pages of a group that contains `item` and are of its kind: the whole group, or in a
/// flat directory of the site's root (`/*.html`, pages of every kind) those whose names begin
/// with the item's leading word (`sql` of `sql-vacuum.html`); `None` when the item's name has
/// no such word.
fn items_like(g: &Group, item: &str) -> Option<Group> {
    if !g.shape.starts_with("/*") {
        return Some(g.clone());
    }
    let word = leading_word(item);
    if word.is_empty() {
        return None;
    }
    let at = g.shape.rfind("/*").unwrap_or(0);
    Some(Group {
        shape: format!("{}/{word}*{}", &g.shape[..at], &g.shape[at + 2..]),
        targets: g
            .targets
            .iter()
            .filter(|t| leading_word(t) == word)
            .cloned()
            .collect(),
    })
}

/// The page of `g` to fetch as its sample: of those not fetched yet, the one with the longest
/// anchor (items are named by titles; a group's first links are often its menu), first in
/// document order among equals.
fn sample_of_group(page: &Page, g: &Group, seen: &HashSet<String>) -> Option<String> {
    let targets: HashSet<&str> = g
        .targets
        .iter()
        .map(String::as_str)
        .filter(|t| !seen.contains(*t))
        .collect();
    let mut best: Option<(usize, String)> = None;
    for l in &page.links {
        let Some(u) = canon::canonicalize(&l.url) else {
            continue;
        };
        if !targets.contains(u.as_str()) {
            continue;
        }
        let words = l.text.split_whitespace().count().min(12);
        if best.as_ref().is_none_or(|(w, _)| words > *w) {
            best = Some((words, u));
        }
    }
    best.map(|(_, u)| u)
        .or_else(|| g.targets.iter().find(|t| !seen.contains(*t)).cloned())
}

/// How much a group looks like a list of items rather than of sub-listings: its size, times
/// its anchors' mean length in words (items are named by titles, listings by a word or two).
fn item_likeness(page: &Page, g: &Group) -> f64 {
    let targets: HashSet<&str> = g.targets.iter().map(String::as_str).collect();
    let (mut words, mut n) = (0usize, 0usize);
    for l in &page.links {
        if canon::canonicalize(&l.url).is_some_and(|u| targets.contains(u.as_str())) {
            words += l.text.split_whitespace().count().min(12);
            n += 1;
        }
    }
    let mean = if n > 0 { words as f64 / n as f64 } else { 0.0 };
    g.targets.len() as f64 * (1.0 + mean)
}

/// The sections a page shows (the document's rule, without confirmation): its link groups of at least `min_group` pages when the model
/// calls it an index, or when a group is twice that size whatever the model says (home pages
/// of shops and blogs are often called `other`); best (largest) first, at most three.
fn sections_of(
    page: &Page,
    groups: &[Group],
    kind: &(&str, f64),
    config: &DetectConfig,
) -> Vec<Section> {
    let index = kind.0 == "index";
    let pages = page_count(page);
    groups
        .iter()
        .filter(|g| {
            let n = g.targets.len();
            n >= config.min_group && (index || n >= 2 * config.min_group)
        })
        .take(3)
        .map(|g| Section {
            index: vec![page.url.clone()],
            examples: g.targets.iter().take(config.examples).cloned().collect(),
            estimated_items: g.targets.len() * pages,
            shape: g.shape.clone(),
        })
        .collect()
}

/// How many pages the listing says it has: the largest number among its links' anchors (a
/// page bar); at least 2 when it links a next page by a "next" word or arrow
/// (`data/forms/pagination-words.txt`) to a numbered URL (`/page/2/`, `?start=20`: a manual's
/// "Next" goes to its next chapter, no numbered page); at least 1.
fn page_count(page: &Page) -> usize {
    let words = crate::forms::pagination_words();
    let next = page.links.iter().any(|l| {
        let t = l.text.trim().to_lowercase();
        let bare = t.trim_matches(|c: char| !c.is_alphanumeric());
        ((!t.is_empty() && words.contains(&t)) || (!bare.is_empty() && words.contains(bare)))
            && Url::parse(&l.url).is_ok_and(|u| {
                format!("{}?{}", u.path(), u.query().unwrap_or(""))
                    .bytes()
                    .any(|b| b.is_ascii_digit())
            })
    });
    page.links
        .iter()
        .filter_map(|l| {
            let t = l.text.trim();
            (t.len() <= 4 && !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<usize>().ok())
                .flatten()
        })
        .max()
        .unwrap_or(1)
        .max(if next { 2 } else { 1 })
        .clamp(1, 10_000)
}

/// Scored word lists: (word, score) pairs for anchors, and for anchors and URLs.
struct Words {
    anchor: Vec<(String, i32)>,
    both: Vec<(String, i32)>,
}

/// Parses `WORD SCORE [anchor|both]` lines (`#` comments; `_` stands for a space).
fn words_of(text: &str) -> Words {
    let mut w = Words {
        anchor: Vec::new(),
        both: Vec::new(),
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut parts = line.split_whitespace();
        let (Some(word), Some(score)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(score) = score.parse::<i32>() else {
            continue;
        };
        let word = word.replace('_', " ").to_lowercase();
        match parts.next() {
            Some("both") => w.both.push((word, score)),
            _ => w.anchor.push((word, score)),
        }
    }
    w
}

fn structure_words() -> &'static Words {
    static W: OnceLock<Words> = OnceLock::new();
    W.get_or_init(|| words_of(include_str!("../../../data/detect/words.txt")))
}

fn baseline_words() -> &'static Words {
    static W: OnceLock<Words> = OnceLock::new();
    W.get_or_init(|| words_of(include_str!("../../../data/detect/baseline-pt.txt")))
}

/// Whether `word` occurs in `text` as a whole word (or phrase).
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The page's same-site links with their priorities and words, in document order (one per
/// target, its best priority, the words of all its anchors).
fn prioritise(
    page: &Page,
    groups: &[Group],
    scope: &CompiledScope,
    prioritiser: Prioritiser,
) -> Vec<(String, i32, Vec<String>)> {
    let here = canon::canonicalize(&page.url).unwrap_or_default();
    let words = match prioritiser {
        Prioritiser::Structure => structure_words(),
        Prioritiser::Baseline => baseline_words(),
    };
    // Directories that many of the page's links sit in: their own pages list them.
    let mut dirs: HashMap<String, usize> = HashMap::new();
    for g in groups {
        if let Some((dir, _)) = g.shape.rsplit_once('/') {
            *dirs.entry(format!("{dir}/")).or_insert(0) += g.targets.len();
        }
    }
    let mut best: BTreeMap<String, (usize, i32, Vec<String>)> = BTreeMap::new();
    for (i, l) in page.links.iter().enumerate() {
        let Some(u) = canon::canonicalize(&l.url) else {
            continue;
        };
        if u == here || !scope.contains(&u) || shape_of(&u).is_none() {
            continue;
        }
        let anchor = l.text.to_lowercase();
        let link_words = words_of_link(&anchor, &u);
        let url_text = Url::parse(&u)
            .map(|x| {
                format!("{}{}", x.path(), x.query().unwrap_or(""))
                    .to_lowercase()
                    .replace(['-', '_', '/', '.', '=', '&', '+'], " ")
            })
            .unwrap_or_default();
        let mut score = 0i32;
        for (w, s) in &words.anchor {
            if has_word(&anchor, w) {
                score += s;
            }
        }
        for (w, s) in &words.both {
            if has_word(&anchor, w) {
                score += s;
            }
            if has_word(&url_text, w) {
                score += s;
            }
        }
        if prioritiser == Prioritiser::Baseline {
            // The document's rules: long anchors and prices are no navigation.
            if anchor.chars().count() > 13 {
                score -= 2;
            }
        } else {
            let path = Url::parse(&u)
                .map(|x| x.path().to_string())
                .unwrap_or_default();
            // The page of a directory many links sit in lists them.
            if dirs.get(&path).copied().unwrap_or(0) >= 3 {
                score += 3;
            }
            // Navigation anchors are short; an item's is its title.
            let words_in_anchor = anchor.split_whitespace().count();
            if (1..=3).contains(&words_in_anchor) {
                score += 1;
            } else if words_in_anchor > 6 {
                score -= 1;
            }
            // Shallow URLs are sections, deep ones items.
            let depth = path
                .trim_matches('/')
                .split('/')
                .filter(|s| !s.is_empty())
                .count();
            if depth <= 1 {
                score += 1;
            }
            if path.bytes().any(|b| b.is_ascii_digit()) {
                score -= 1;
            }
        }
        let e = best.entry(u).or_insert((i, i32::MIN, Vec::new()));
        e.1 = e.1.max(score);
        for w in link_words {
            if e.2.len() < MAX_LINK_WORDS && !e.2.contains(&w) {
                e.2.push(w);
            }
        }
    }
    let mut out: Vec<(usize, String, i32, Vec<String>)> = best
        .into_iter()
        .map(|(u, (i, s, w))| (i, u, s, w))
        .collect();
    out.sort_by_key(|(i, _, _, _)| *i);
    out.into_iter().map(|(_, u, s, w)| (u, s, w)).collect()
}

/// Words kept of a link at most.
const MAX_LINK_WORDS: usize = 16;

/// A link's words for the site's own prioritiser: its anchor's and its URL path's, lower case,
/// letters only, two or more of them, no file extension.
fn words_of_link(anchor: &str, url: &str) -> Vec<String> {
    let path = Url::parse(url)
        .map(|u| u.path().to_lowercase())
        .unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    let words = anchor
        .split(|c: char| !c.is_alphabetic())
        .chain(path.split(|c: char| !c.is_ascii_alphabetic()));
    for w in words {
        if w.chars().count() < 2 || matches!(w, "html" | "htm" | "php" | "asp" | "aspx" | "jsp") {
            continue;
        }
        if out.len() < MAX_LINK_WORDS && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// Words of the links the search followed, with how many led to a page listing something
/// (a group of at least [`DetectConfig::min_group`] alike links) and how many led nowhere.
#[derive(Debug, Default)]
struct LinkWords(HashMap<String, (u32, u32)>);

impl LinkWords {
    fn record(&mut self, words: &[String], listed: bool) {
        for w in words {
            let e = self.0.entry(w.clone()).or_insert((0, 0));
            if listed {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }

    /// A link's bonus: its words' log-odds of leading to a listing, summed, within ±3.
    fn bonus(&self, words: &[String]) -> i32 {
        let sum: f64 = words
            .iter()
            .filter_map(|w| self.0.get(w))
            .map(|&(yes, no)| ((f64::from(yes) + 1.0) / (f64::from(no) + 1.0)).log2())
            .sum();
        // Bounded, so the priority rules of depth and the word list still order most links.
        sum.clamp(-3.0, 3.0).round() as i32
    }
}

#[cfg(test)]
mod tests;
