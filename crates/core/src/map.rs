//! The site map, the data model everything after mapping reads: every URL met ([`Node`], what
//! became of it in [`NodeState`]), the link graph between them, the forms met
//! ([`MappedForm`]), and the groupings of targets a review shows ([`TargetGroup`]). The mapper
//! ([`crate::mapper`]) writes it; learning ([`crate::pattern`]), the review
//! ([`crate::review`]) and the drivers read it. It fetches and decides nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::canon;
use crate::forms::FormSpec;
use crate::similarity;

/// How many of a group's targets a review names: the most similar to the example, the middle
/// one and the least.
pub const KIND_SAMPLES: usize = 3;

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
    /// Not read: its body passed the size limit ([`crate::mapper::MapConfig::max_bytes`] of the mapping).
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
    /// the kind of page it names ([`crate::review::heading`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// The language it declares ([`crate::dom::Page::lang`]; fetched HTML pages): the review
    /// groups targets by it ([`crate::review::language`]).
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

/// A group's samples ([`KIND_SAMPLES`] of `nodes`, which it sorts): the most
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
    spread(&urls, KIND_SAMPLES)
}

/// Up to `k` of `urls`, in their order, spread evenly over them (the first and the last among
/// them).
pub(crate) fn spread(urls: &[&str], k: usize) -> Vec<String> {
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
    /// Up to [`KIND_SAMPLES`] of them from the most similar to the example to
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
    /// Mapping visited what targets link to ([`crate::mapper::MapConfig::expand_targets`]): the map shows
    /// where targets' links lead (false in maps saved before this field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub target_links: bool,
    /// The links each page has only through the same-site scripts it includes
    /// ([`crate::mapper::MapConfig::script_links`]) (node id → link ids, a subset of its
    /// `links`): learning checks whether the pattern needs them ([`crate::pattern`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripted: BTreeMap<u32, Vec<u32>>,
    /// The sitemaps the robots.txt of the site's hosts name (`Sitemap:` lines, resolved): a
    /// crawl reads them ([`crate::crawler::CrawlConfig::read_sitemaps`]), mapping once it has
    /// followed every link ([`crate::mapper::MapConfig::read_sitemaps`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sitemaps: Vec<String>,
    /// The pages no link reached that the sitemaps list: links of the entry page (a subset of
    /// its `links`), as a crawl reads sitemaps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sitemap_links: Vec<u32>,
    /// Pages that continue a listing (node id → the page whose "Next" or numbered link leads
    /// to it, [`crate::continuation`]): a page continuing one that is no target is no target
    /// either, whatever it scores ([`SiteMap::continues_listing`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub continued: BTreeMap<u32, u32>,
    /// Fetched pages the page-kind model calls listing pages ([`crate::review::listing`]):
    /// a target among them is flagged for the review, as a quotes site's `/page/N/` taken
    /// beside its authors.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub listings: BTreeSet<u32>,
    /// Fetched pages with a link that pages on the listing they are ([`crate::continuation`]:
    /// "Next" or a page number to a URL that differs by numbers), targets included: with
    /// [`SiteMap::continued`]'s pages, the listings the review flags by their structure.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub paged: BTreeSet<u32>,
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
        for &l in self.listings.iter().chain(&self.paged) {
            node(l, &|| "a listing page".into())?;
        }
        for (&q, &from) in &self.continued {
            node(q, &|| "a page continuing a listing".into())?;
            node(from, &|| format!("the listing node {q} continues"))?;
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
    /// when targets were not expanded, [`crate::mapper::MapConfig::expand_targets`]), so what lies only behind
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
        map.demote_continuations();
        for i in 0..map.nodes.len() {
            if map.nodes[i].state == NodeState::Target && !map.may_be_target(i as u32) {
                map.nodes[i].state = NodeState::Page;
            }
        }
        map
    }

    /// Whether `node` may be a target whatever it scores. An example that is a form's answer
    /// to a POST ([`crate::fetch::POST_MARK`]) makes the answers of that form the kind: a page
    /// got by GET — the form's own page, which shares its template — is none. A response that
    /// was a step of its form ([`MappedForm::steps`]) is none either.
    pub fn may_be_target(&self, node: u32) -> bool {
        let Some(n) = self.nodes.get(node as usize) else {
            return false;
        };
        if let (action, Some(_)) = crate::fetch::split_post_key(&self.example) {
            match crate::fetch::split_post_key(&n.url) {
                (a, Some(_)) if a == action => {}
                _ => return false,
            }
        }
        !self.forms.iter().any(|f| f.steps.contains(&node))
    }

    /// Whether `node`, were it like the example, still is no target: it continues a listing
    /// that is none (the entry page when it scores below θ, or a page that is no target),
    /// unless that listing is the example's own (the example continues it: a user whose example
    /// is page 2 of a listing wants the listing's pages).
    pub fn continues_listing(&self, node: u32) -> bool {
        self.continues_listing_but(node, || self.example_chain_root())
    }

    /// [`SiteMap::continues_listing`], the example's listing given (computed when needed).
    fn continues_listing_but(&self, node: u32, example_root: impl FnOnce() -> Option<u32>) -> bool {
        let Some(&from) = self.continued.get(&node) else {
            return false;
        };
        let Some(listing) = self.nodes.get(from as usize) else {
            return false;
        };
        let not_target = if from == 0 {
            listing
                .similarity
                .is_none_or(|s| f64::from(s) < self.threshold)
        } else {
            listing.state != NodeState::Target
        };
        not_target && example_root() != Some(self.chain_root(from))
    }

    /// The first page of the listing `node` continues, through chains of "Next" links.
    fn chain_root(&self, mut node: u32) -> u32 {
        for _ in 0..=self.continued.len() {
            match self.continued.get(&node) {
                Some(&from) if from != node => node = from,
                _ => break,
            }
        }
        node
    }

    /// The first page of the listing the example continues, when it continues one.
    pub(crate) fn example_chain_root(&self) -> Option<u32> {
        let example = self.canonical_example();
        let id = self.nodes.iter().position(|n| n.url == example)? as u32;
        self.continued
            .contains_key(&id)
            .then(|| self.chain_root(id))
    }

    /// Turns the targets that continue a listing into pages, through chains of "Next" links
    /// (`/page/3/` continues `/page/2/`, which continues the entry page).
    fn demote_continuations(&mut self) {
        let example_root = self.example_chain_root();
        // Each pass settles at least one more link of every chain.
        for _ in 0..self.continued.len() {
            let demote: Vec<u32> = self
                .continued
                .keys()
                .copied()
                .filter(|&q| {
                    self.nodes
                        .get(q as usize)
                        .is_some_and(|n| n.state == NodeState::Target)
                        && self.continues_listing_but(q, || example_root)
                })
                .collect();
            if demote.is_empty() {
                break;
            }
            for q in demote {
                self.nodes[q as usize].state = NodeState::Page;
            }
        }
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
    /// targets' links last, [`crate::mapper::MapConfig::expand_targets`]). With several requests in flight,
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

/// One submission of a mapped form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submitted {
    /// Its node (the request URL).
    pub node: u32,
    /// The values filled in (`name`, `value`).
    pub values: Vec<(String, String)>,
    /// Made from a response of the same form whose dependent selects it filled
    /// ([`MappedForm::dependent`]): the values are those selects', the rest the response's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chained: bool,
}

/// What became of a form met while mapping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum FormState {
    /// Submitted; responses still coming.
    Submitted,
    /// Its responses were analysed: these (the largest) were expanded.
    #[serde(rename_all = "camelCase")]
    Analysed {
        /// The response nodes expanded.
        expanded: Vec<u32>,
    },
    /// Submitted, but every submission gave the same page: the site ignores the values (a
    /// static page behind the form, a script-driven search), so nothing was expanded.
    #[serde(rename_all = "camelCase")]
    Ignored {
        /// The page every submission gave: the one response's node, or the page met before
        /// that every response duplicates.
        response: u32,
    },
    /// Not submitted.
    #[serde(rename_all = "camelCase")]
    Skipped {
        /// Why.
        reason: String,
    },
}

/// A form the mapper met, with what it did with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappedForm {
    /// The node of the page it was found on (first seen).
    pub page: u32,
    /// The form.
    pub spec: FormSpec,
    /// The thesis's text values used.
    pub terms: Vec<String>,
    /// The example page's terms, most frequent first: the adaptive policy's first queries.
    pub seeds: Vec<String>,
    /// The submissions made.
    pub submissions: Vec<Submitted>,
    /// Other pages the same form was met on and not submitted again: a form without an action,
    /// with these field names, repeated by the site's template (a search box on every page);
    /// see [`crate::mapper::self_shape`].
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub repeated: u32,
    /// Selects whose options a response of this form filled (a select of tags filled once an
    /// author is chosen, as postback applications do): each such response was submitted again
    /// with them enumerated, and is itself a step of the form, no result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependent: Vec<String>,
    /// The responses that were such steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<u32>,
    /// What became of it.
    #[serde(flatten)]
    pub state: FormState,
}

fn is_zero_count(n: &u32) -> bool {
    *n == 0
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
