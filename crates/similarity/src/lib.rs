//! Page similarity as the product uses it: which view of the tree RTDM compares, and the
//! threshold θ above which a page is "like the example".
//!
//! Owns the defaults, chosen by measurement on the development sites (`./build.sh
//! eval-similarity`, table in `docs/reports/similarity.md`), and the *template view*. Plain RTDM over tag
//! names is strict on content-heavy pages (two same-template pages with different amounts of
//! content are far apart) and blind to the class names page generators stamp on their
//! templates. The default view therefore (1) labels elements with their tag plus class tokens
//! (`div.refentry`), (2) keeps only the first sibling of each label (a list of 40 items looks
//! like a list of 4, a page with twelve sections like one with three), (3) cuts the tree below
//! branching depth 6 ([`branching_depths`]), where page content rather than template lives,
//! (4) counts the top of the page more (a node at branching depth d < 4 counts 1 + 4·(4 − d)
//! times: the layout that makes a page of its kind weighs more than the varying content below
//! it; [`View::weigh`]), and (5) labels an element whose id is a kind prefix plus the page's own
//! name with that kind (`id="module-json"` on `json.html` is `section#module-`): generators name
//! a page's main element after the page, and the prefix says what kind of page it is (Sphinx
//! module pages vs the other library pages, built from the same template). A page declares the
//! example's kind by that label or by any id with the kind's prefix that is not a heading's
//! anchor (`module-xml.parsers.expat` on `pyexpat.html`; [`declared_kinds`]); a page lacking the
//! kinds the example declares keeps only part of its similarity ([`kind_agreement`],
//! [`Options::kind_weight`]). (6) A page outside the example's directory keeps 90% of its score
//! ([`place_agreement`], [`Options::place_weight`]): look-alikes from other sections of a site.
//! Does not own the distance itself ([`crate::rtdm`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::rtdm::{Comparison, Prepared};
use exemplar_html::{Label, NodeId, Page, Tree};
use exemplar_url::hash::FxHashMap;

pub mod rtdm;

/// How repeated siblings are collapsed in the template view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Collapse {
    /// Compare the full tree.
    None,
    /// Keep only the first of each run of consecutive siblings with the same label.
    Consecutive,
    /// Keep only the first sibling of each label.
    All,
    /// Merge siblings with the same label into one node whose children are the union of
    /// theirs, recursively: the tree of distinct label paths (a DataGuide), in first-seen order.
    Merge,
}

/// Which view of a page's tree is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct View {
    /// Repeated-sibling collapsing.
    pub collapse: Collapse,
    /// Drop nodes deeper than this *branching depth* (see [`branching_depths`]); `None` keeps
    /// all.
    pub max_depth: Option<u32>,
    /// Keep `#text` nodes.
    pub text: bool,
    /// Compare tag-plus-class labels (`div.refentry`) instead of tag names, where the tree
    /// has them ([`Tree::class_labels`]).
    pub classes: bool,
    /// With `classes`, also label an element whose id is a kind prefix plus the page's own
    /// name with that kind (`id="module-json"` on `json.html` gives `section#module-`), where
    /// the tree has such labels ([`Tree::kind_labels`]).
    pub ids: bool,
    /// Weight of the page's top structure: a node of the view at branching depth `d <
    /// top_depth` counts `1 + top_weight × (top_depth − d)` times in the distance (0: every node
    /// counts once). See [`View::weigh`].
    pub top_weight: u32,
    /// The branching depth from which nodes count once (see `top_weight`).
    pub top_depth: u32,
    /// With [`Collapse::All`]: siblings above this branching depth that share a label are
    /// merged (one node holding all their children, as [`Collapse::Merge`] does) instead of
    /// all but the first being dropped (0: dropped at every depth). The top of a page is its
    /// layout, whose containers often share a plain label (`div#top`, `div#side-nav`,
    /// `div#doc-content` are three `div`s on a Doxygen page with a tree view): keeping only
    /// the first hid the page's whole content. Below it, repeated siblings are records and
    /// the first stands for them all. Missing from serialized views it is 0, not the default's
    /// 3: views saved before the option existed (in patterns) keep their meaning.
    #[serde(default)]
    pub merge_above: u32,
}

impl Default for View {
    fn default() -> Self {
        View {
            collapse: Collapse::All,
            max_depth: Some(6),
            text: true,
            classes: true,
            ids: true,
            top_weight: 12,
            top_depth: 5,
            merge_above: 3,
        }
    }
}

impl View {
    /// The full tree, as published RTDM compares it.
    pub const FULL: View = View {
        collapse: Collapse::None,
        max_depth: None,
        text: true,
        classes: false,
        ids: false,
        top_weight: 0,
        top_depth: 0,
        merge_above: 0,
    };

    /// Applies the view to a tree: [`View::shape`], then [`View::weigh`] (identity for
    /// [`View::FULL`]).
    pub fn apply(&self, tree: &Tree) -> Tree {
        self.weighed(self.shape(tree))
    }

    /// [`View::weigh`] of a shaped tree, which is itself when the view has no weights (or
    /// their chains would not fit a tree).
    fn weighed(&self, shaped: Tree) -> Tree {
        match self.weights(&shaped).and_then(|w| shaped.chained(&w)) {
            Some(chained) => chained,
            None => shaped,
        }
    }

    /// The weight of each node of `tree` ([`View::weigh`]), or `None` when every weight is 1.
    fn weights(&self, tree: &Tree) -> Option<Vec<u32>> {
        if self.top_weight == 0 || self.top_depth == 0 {
            return None;
        }
        // Clamped as `Options::validate` bounds them, for views that were never validated.
        let (w, t) = (
            self.top_weight.min(MAX_TOP_WEIGHT),
            self.top_depth.min(MAX_TOP_DEPTH),
        );
        let weights: Vec<u32> = branching_depths(tree)
            .into_iter()
            .map(|d| 1 + w * t.saturating_sub(d))
            .collect();
        weights.iter().any(|&w| w > 1).then_some(weights)
    }

    /// Node weights as tree shape: a node of weight `w` ([`View::top_weight`]) becomes a chain
    /// of `w` nodes with its label, the last of which holds its children. RTDM then counts it
    /// `w` times when it is inserted or deleted and not at all when matched (a chain of single
    /// children matches down to its end), which is RTDM with weighted nodes, computed by the
    /// unweighted core. Depths are the branching depths of the shaped tree.
    pub fn weigh(&self, tree: &Tree) -> Tree {
        self.weights(tree)
            .and_then(|w| tree.chained(&w))
            .unwrap_or_else(|| tree.clone())
    }

    /// The compared shape of a tree: labels, collapsing and depth cut, without weights
    /// (identity for [`View::FULL`]). Iterative; keeps preorder. What `exemplar outline` prints.
    pub fn shape(&self, tree: &Tree) -> Tree {
        self.shape_with(tree, true)
    }

    /// [`View::shape`], with the label names (for display) or without them (to compare: RTDM
    /// and structural hashes read labels only).
    fn shape_with(&self, tree: &Tree, named: bool) -> Tree {
        if *self == View::FULL {
            return tree.clone();
        }
        if self.collapse == Collapse::Merge {
            return self.merged(tree, None, named);
        }
        if self.collapse == Collapse::All && self.merge_above > 0 {
            return self.merged(tree, Some(self.merge_above), named);
        }
        let mut labels: Vec<Label> = Vec::with_capacity(tree.len());
        let mut parents: Vec<Option<NodeId>> = Vec::with_capacity(tree.len());
        // (source node, parent in the output)
        let mut stack: Vec<(NodeId, Option<NodeId>)> = vec![(tree.root(), None)];
        let mut kept: Vec<NodeId> = Vec::new();
        let depths = branching_depths(tree);
        let label_of = |n: NodeId| self.label_of(tree, n);
        while let Some((node, parent)) = stack.pop() {
            let out = labels.len() as NodeId;
            let label = label_of(node);
            labels.push(label);
            parents.push(parent);
            if self.max_depth.is_some_and(|d| depths[node as usize] >= d) {
                continue;
            }
            kept.clear();
            let mut prev: Option<Label> = None;
            let mut seen: Vec<Label> = Vec::new();
            for c in tree.children(node) {
                let l = label_of(c);
                if !self.text && l == Label::TEXT {
                    continue;
                }
                let keep = match self.collapse {
                    Collapse::None | Collapse::Merge => true,
                    Collapse::Consecutive => prev != Some(l),
                    Collapse::All => !seen.contains(&l),
                };
                prev = Some(l);
                if keep {
                    seen.push(l);
                    kept.push(c);
                }
            }
            // Push in reverse so children pop in document order.
            stack.extend(kept.iter().rev().map(|&c| (c, Some(out))));
        }
        let names = if named {
            names_of(tree, &labels)
        } else {
            Vec::new()
        };
        match Tree::from_preorder(labels, &parents, names) {
            Ok(t) => t,
            // Unreachable: the walk emits a preorder by construction.
            Err(_) => tree.clone(),
        }
    }
}

impl View {
    fn label_of(&self, tree: &Tree, n: NodeId) -> Label {
        if self.classes && self.ids && tree.kind_labels().len() == tree.len() {
            tree.kind_labels()[n as usize]
        } else if self.classes && tree.class_labels().len() == tree.len() {
            tree.class_labels()[n as usize]
        } else {
            tree.label(n)
        }
    }

    /// The label-path trie of `tree` (see [`Collapse::Merge`]); with `all_from`, a node at that
    /// branching depth or deeper joins a trie node only if it made it, so below that depth only
    /// the first sibling of each label is kept, with its own subtree ([`Collapse::All`]).
    fn merged(&self, tree: &Tree, all_from: Option<u32>, named: bool) -> Tree {
        // Trie nodes: label, children in first-seen order as linked lists (first child, last
        // child, next sibling; `NONE` for none), not a Vec per node.
        const NONE: u32 = u32::MAX;
        let mut labels: Vec<Label> = vec![self.label_of(tree, 0)];
        let (mut first, mut last, mut next_sibling) = (vec![NONE], vec![NONE], vec![NONE]);
        // Integer keys: Fx, not SipHash (built for every page mapped).
        let mut index: FxHashMap<(u32, Label), u32> = FxHashMap::default();
        // The source node that made each trie node.
        let mut owner: Vec<NodeId> = vec![0];
        // Trie node and branching depth ([`branching_depths`]) of each source node visited
        // (preorder: parents come first). A node left out leaves out its whole subtree, which
        // is skipped (the depth cut leaves out most of a page).
        let mut trie_of: Vec<u32> = vec![0; tree.len()];
        let mut depths: Vec<u32> = vec![0; tree.len()];
        let sizes = tree.sizes();
        // Whether node `p`, which has a child, has two or more: its first child's subtree
        // does not reach its end.
        let branches = |p: usize| p + 1 + (sizes[p + 1] as usize) < p + sizes[p] as usize;
        let mut n = 1;
        while n < tree.len() {
            let next = n + sizes[n] as usize;
            let Some(p) = tree.parent(n as NodeId) else {
                n = next;
                continue;
            };
            let p = p as usize;
            let depth = depths[p] + u32::from(branches(p));
            depths[n] = depth;
            if self.max_depth.is_some_and(|d| depth > d) {
                n = next;
                continue;
            }
            let pt = trie_of[p];
            let l = self.label_of(tree, n as NodeId);
            if !self.text && l == Label::TEXT {
                n = next;
                continue;
            }
            let t = *index.entry((pt, l)).or_insert_with(|| {
                let id = labels.len() as u32;
                labels.push(l);
                first.push(NONE);
                last.push(NONE);
                next_sibling.push(NONE);
                owner.push(n as NodeId);
                match last[pt as usize] {
                    NONE => first[pt as usize] = id,
                    prev => next_sibling[prev as usize] = id,
                }
                last[pt as usize] = id;
                id
            });
            if all_from.is_some_and(|m| depth >= m) && owner[t as usize] != n as NodeId {
                n = next;
                continue;
            }
            trie_of[n] = t;
            n += 1;
        }
        // Emit the trie in preorder.
        let mut out_labels = Vec::with_capacity(labels.len());
        let mut parents: Vec<Option<NodeId>> = Vec::with_capacity(labels.len());
        // The next siblings still to visit once the current subtree is done.
        let mut stack: Vec<(u32, Option<NodeId>)> = Vec::new();
        let mut visit = Some((0u32, None));
        while let Some((t, parent)) = visit.or_else(|| stack.pop()) {
            let out = out_labels.len() as NodeId;
            out_labels.push(labels[t as usize]);
            parents.push(parent);
            if next_sibling[t as usize] != NONE {
                stack.push((next_sibling[t as usize], parent));
            }
            visit = (first[t as usize] != NONE).then(|| (first[t as usize], Some(out)));
        }
        let names = if named {
            names_of(tree, &out_labels)
        } else {
            Vec::new()
        };
        Tree::from_preorder(out_labels, &parents, names).unwrap_or_else(|_| tree.clone())
    }
}

/// The names, in `tree`, of the distinct labels of `labels` but text's, sorted by label: one
/// name per label, not one per node (views are built for every page mapped).
fn names_of(tree: &Tree, labels: &[Label]) -> Vec<(Label, String)> {
    let mut distinct: Vec<Label> = labels
        .iter()
        .copied()
        .filter(|&l| l != Label::TEXT)
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
        .into_iter()
        .map(|l| (l, tree.label_name(l).to_string()))
        .collect()
}

/// The branching depth of every node: the number of its proper ancestors that have two or more
/// children. Chains of single-child wrappers (`div > div > div`, common in script-built pages)
/// add nothing, so a depth cut keeps the same part of the page on shallow documentation sites and
/// on deeply wrapped applications.
pub fn branching_depths(tree: &Tree) -> Vec<u32> {
    let n = tree.len();
    let mut kids = vec![0u32; n];
    for i in 1..n as NodeId {
        if let Some(p) = tree.parent(i) {
            kids[p as usize] += 1;
        }
    }
    let mut depth = vec![0u32; n];
    for i in 1..n as NodeId {
        if let Some(p) = tree.parent(i) {
            depth[i as usize] = depth[p as usize] + u32::from(kids[p as usize] >= 2);
        }
    }
    depth
}

/// Similarity settings a user can change.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// θ: pages whose score (similarity × kind agreement) to the example is ≥ θ are targets.
    pub threshold: f64,
    /// The view of the trees RTDM compares.
    pub view: View,
    /// How much a page loses for lacking the kinds the example declares in its ids (see
    /// [`kind_agreement`]), in [0, 1]: 0 ignores kinds, 1 rules such pages out.
    pub kind_weight: f64,
    /// How much a page loses for living outside the example's part of the site (see
    /// [`place_agreement`]), in [0, 1]: 0 ignores URLs.
    pub place_weight: f64,
}

/// The default θ, chosen from the development sites' figures (`docs/reports/similarity.md`): under the
/// default view (layout merged, id kinds, top weights), kind and place weights, θ above 0.865
/// and up to 0.881 separates PostgreSQL's, commons-lang3's and Python's pages with no error and
/// leaves SFML at its floor (2 errors: pages no structural view tells apart); 0.875 is the
/// middle of that plateau and also where the ten further Debian sites of
/// `eval/train-sites.toml` make the fewest errors, and keeps template-only pages of small sites
/// (an "About" page beside product pages) out.
pub const DEFAULT_THRESHOLD: f64 = 0.875;

/// The default kind weight: a page that declares none of the example's kinds keeps half its
/// similarity. Chosen on the development sites (`docs/reports/similarity.md`): on Python's documentation,
/// where every page shares one template and only module pages declare `module-…` ids, it moves
/// the non-module pages below the module pages and brings the site's best θ in line with the
/// other sites' (0.55–0.60); 0.5 and 1 give the same errors there, and 0.5 keeps the ranking of
/// the pages it lowers. Sites whose ids declare no kinds are unaffected.
pub const DEFAULT_KIND_WEIGHT: f64 = 0.5;

/// The default place weight: a page outside the example's directory keeps 90% of its score.
/// Chosen on the development sites (`docs/reports/similarity.md`): Python's `whatsnew/2.5.html` and
/// `distutils/apiref.html` are built from the library pages' template and declare `module-` ids
/// like module pages, and only their place tells them apart; every target of the four sites
/// lives under its example's directory. It applies only in directories with fewer than
/// [`PLACE_SUPPORT`] look-alikes, so pages of one kind filed in sibling directories
/// (`/shoes/…`, `/hats/…`; Qt's `qtcore/`, `qtgui/`) keep their whole score.
pub const DEFAULT_PLACE_WEIGHT: f64 = 0.1;

/// The largest [`View::top_weight`] options accept (the default view uses 12).
pub const MAX_TOP_WEIGHT: u32 = 16;

/// The largest [`View::top_depth`] options accept (the default view uses 5).
pub const MAX_TOP_DEPTH: u32 = 16;

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: DEFAULT_THRESHOLD,
            view: View::default(),
            kind_weight: DEFAULT_KIND_WEIGHT,
            place_weight: DEFAULT_PLACE_WEIGHT,
        }
    }
}

/// The part of a site a page lives in: the directories of its URL's path (every segment before
/// the page's own name), digit runs generalised (`/2019/01/post.html` and `/2020/03/other.html`
/// live in one place). Empty for pages at the root, for URLs that do not parse and for other
/// schemes than http(s) (local files compared by hand live wherever the user saved them).
pub fn place(url: &str) -> Vec<String> {
    let Ok(u) = url::Url::parse(url) else {
        return Vec::new();
    };
    if !matches!(u.scheme(), "http" | "https") {
        return Vec::new();
    }
    let Some(segments) = u.path_segments() else {
        return Vec::new();
    };
    let mut dirs: Vec<String> = segments
        .filter(|s| !s.is_empty())
        .map(exemplar_url::canon::abstract_digits)
        .collect();
    dirs.pop();
    dirs
}

/// How far a page's place agrees with the example's, as a factor on its similarity: 1 when the
/// page lives in the example's directory or below it ([`place`]), `1 − weight` elsewhere. Pages
/// of one kind live under one path on most sites; look-alikes from other sections do not.
pub fn place_agreement(example: &[String], page: &[String], weight: f64) -> f64 {
    if page.starts_with(example) {
        1.0
    } else {
        1.0 - weight.clamp(0.0, 1.0)
    }
}

/// How many look-alikes (pages scoring at least θ before the place weight) a directory outside
/// the example's must hold for its pages to keep their whole score ([`supported_places`]). One
/// or two look-alikes in another section are what the place weight is for (Python's
/// `whatsnew/2.5.html` and `distutils/apiref.html`, alone in their directories, are built and
/// labelled like its module pages); a directory holding several is the same kind of page filed
/// elsewhere (the Qt 5 documentation puts the classes of each module in its own directory,
/// `qtcore/`, `qtgui/`, `qtwidgets/`, and lost two thirds of them to the weight). 2, 3 and 5 give
/// the same figures on the development sites and on Qt (`eval/similarity-notes.md`).
pub const PLACE_SUPPORT: usize = 3;

/// The places (directories, [`place`]) outside the example's where at least [`PLACE_SUPPORT`]
/// pages score at least `threshold` before the place weight: their pages keep their whole
/// score. `pages`: each page's place and its score before the place weight (similarity × kind
/// agreement).
pub fn supported_places<'a>(
    example: &[String],
    pages: impl IntoIterator<Item = (&'a [String], f64)>,
    threshold: f64,
) -> std::collections::HashSet<&'a [String]> {
    let mut counts: HashMap<&'a [String], usize> = HashMap::new();
    for (place, score) in pages {
        if score >= threshold && !place.starts_with(example) {
            *counts.entry(place).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n >= PLACE_SUPPORT)
        .map(|(p, _)| p)
        .collect()
}

/// The kinds a page declares: the distinct kind labels of its elements whose id is a kind
/// prefix plus the page's own name ([`Tree::kind_labels`]), sorted. Empty for most pages.
pub fn kinds(tree: &Tree) -> Vec<Label> {
    let mut out: Vec<Label> = tree
        .kind_labels()
        .iter()
        .zip(tree.class_labels())
        .filter(|(k, c)| k != c)
        .map(|(k, _)| *k)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A kind the example declares: its kind label (`section#module-`) and the id prefix that names
/// it (`module-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The element's class label refined with the kind.
    pub label: Label,
    /// The id prefix, lower-cased, separator included.
    pub prefix: String,
}

/// The kinds a tree declares with their id prefixes ([`kinds`]).
pub fn kinds_with_prefixes(tree: &Tree) -> Vec<Kind> {
    kinds(tree)
        .into_iter()
        .filter_map(|label| {
            let name = tree.label_name(label);
            let (_, prefix) = name.rsplit_once('#')?;
            Some(Kind {
                label,
                prefix: prefix.to_string(),
            })
        })
        .collect()
}

/// The example's kinds a page declares: by the same kind label (an id naming the page after the
/// kind prefix), or by an id of the page with the kind's prefix that is not a heading's anchor
/// ([`Tree::id_prefixes`]: `module-xml.parsers.expat` on `pyexpat.html`, `module-lib2to3` on
/// `2to3.html`).
pub fn declared_kinds(example: &[Kind], tree: &Tree) -> Vec<Label> {
    if example.is_empty() {
        return Vec::new();
    }
    let own = kinds(tree);
    example
        .iter()
        .filter(|k| own.contains(&k.label) || tree.declares_prefix(&k.prefix))
        .map(|k| k.label)
        .collect()
}

/// How far a page agrees with the kinds the example declares, as a factor on its similarity:
/// `1 − weight × (share of the example's kinds the page lacks)`. 1 when the example declares
/// none. A kind is an id naming the page after a prefix (`module-json` on `json.html`): pages of
/// one kind share that prefix, and a page of another kind (`asyncio-runner.html`, a Sphinx page
/// built from the same template as module pages) does not declare it.
pub fn kind_agreement(example: &[Label], page: &[Label], weight: f64) -> f64 {
    if example.is_empty() {
        return 1.0;
    }
    let missing = example.iter().filter(|k| !page.contains(k)).count();
    (1.0 - weight.clamp(0.0, 1.0) * missing as f64 / example.len() as f64).clamp(0.0, 1.0)
}

impl Options {
    /// Checks user-supplied options.
    ///
    /// # Errors
    /// When θ or a weight is not a number in [0, 1], or the view's top weight or depth is
    /// beyond [`MAX_TOP_WEIGHT`] / [`MAX_TOP_DEPTH`].
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!(
                "threshold must be in [0, 1], got {}",
                self.threshold
            ));
        }
        if !(0.0..=1.0).contains(&self.kind_weight) {
            return Err(format!(
                "kind weight must be in [0, 1], got {}",
                self.kind_weight
            ));
        }
        if !(0.0..=1.0).contains(&self.place_weight) {
            return Err(format!(
                "place weight must be in [0, 1], got {}",
                self.place_weight
            ));
        }
        // Each weighted node becomes a chain of up to 1 + weight × depth nodes: bounded so a
        // view stays a small multiple of the page.
        let (w, d) = (self.view.top_weight, self.view.top_depth);
        if w > MAX_TOP_WEIGHT || d > MAX_TOP_DEPTH {
            return Err(format!(
                "top weight must be at most {MAX_TOP_WEIGHT} and top depth at most \
                 {MAX_TOP_DEPTH}, got {w} and {d}"
            ));
        }
        Ok(())
    }
}

/// Result of comparing a page with an example, under the options' view and θ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Distance, similarity and view sizes.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// Agreement with the kinds the example declares ([`kind_agreement`]; 1 when it declares
    /// none).
    pub kind_agreement: f64,
    /// Agreement with the example's place in the site ([`place_agreement`]; 1 when the example
    /// was prepared without its URL).
    #[serde(default = "one")]
    pub place_agreement: f64,
    /// `similarity × kind_agreement × place_agreement`: what θ is applied to.
    pub score: f64,
    /// `score >= threshold`.
    pub similar: bool,
    /// The θ applied.
    pub threshold: f64,
}

/// An example page prepared once for comparisons with many pages.
pub struct Example {
    prepared: Prepared,
    kinds: Vec<Label>,
    kind_prefixes: Vec<Kind>,
    /// The example's place ([`place`]); `None` when prepared from a bare tree.
    place: Option<Vec<String>>,
    options: Options,
    rtdm: rtdm::Rtdm,
    /// Comparisons with the pages seen, by their shaped view's structural hash and size: the
    /// shaped view decides the comparison, and pages of one template often share it (800
    /// distinct views among PostgreSQL's 1,169 pages), which spares weighing, preparing and
    /// comparing it again. Trusts 64-bit hashes as RTDM's memo does; cleared when full.
    compared: FxHashMap<(u64, u32), Comparison>,
}

/// [`Example`] remembers at most this many comparisons.
const MAX_COMPARED: usize = 4096;

fn one() -> f64 {
    1.0
}

impl Example {
    /// Prepares the example's tree under the options' view.
    pub fn new(page: &Page, options: Options) -> Example {
        let mut example = Example::from_tree(&page.tree, options);
        example.place = Some(place(&page.url));
        example
    }

    /// Prepares an example from a tree.
    pub fn from_tree(tree: &Tree, options: Options) -> Example {
        Example {
            prepared: Prepared::new(options.view.apply(tree)),
            kinds: options.page_kinds(tree),
            kind_prefixes: options.example_kinds(tree),
            place: None,
            options,
            rtdm: rtdm::Rtdm::new(),
            compared: FxHashMap::default(),
        }
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Size of the example's view.
    pub fn size(&self) -> u32 {
        self.prepared.tree().len() as u32
    }

    /// The kinds the example declares (empty when the view does not use ids).
    pub fn kinds(&self) -> &[Label] {
        &self.kinds
    }

    /// Prepares a page's view for comparisons with this example.
    pub fn prepare(&self, page: &Page) -> Prepared {
        Prepared::new(self.options.view.apply(&page.tree))
    }

    /// The kind agreement of a page's tree with the example ([`kind_agreement`]).
    pub fn agreement(&self, tree: &Tree) -> f64 {
        self.options.agreement(&self.kind_prefixes, tree)
    }

    /// The place agreement of a page's URL with the example's ([`place_agreement`]; 1 when the
    /// example was prepared without its URL).
    pub fn place_agreement(&self, url: &str) -> f64 {
        match &self.place {
            Some(example) if self.options.place_weight > 0.0 => {
                place_agreement(example, &place(url), self.options.place_weight)
            }
            _ => 1.0,
        }
    }

    /// Exact comparison with a page.
    pub fn compare(&mut self, page: &Page) -> Verdict {
        let agreement = self.agreement(&page.tree);
        let place = self.place_agreement(&page.url);
        let shaped = self.options.view.shape_with(&page.tree, false);
        let key = (shaped.hash(shaped.root()), shaped.len() as u32);
        let comparison = match self.compared.get(&key) {
            Some(&c) => c,
            None => {
                // The weighted view is compared without being built (about twenty times the
                // shaped one). Without weights, or chains too long for a tree, the view is the
                // shaped tree itself ([`View::weighed`]).
                let weights = self.options.view.weights(&shaped);
                let chained =
                    weights.and_then(|w| self.rtdm.compare_chained(&self.prepared, &shaped, &w));
                let c = match chained {
                    Some(c) => c,
                    None => self.rtdm.compare(&self.prepared, &Prepared::new(shaped)),
                };
                if self.compared.len() >= MAX_COMPARED {
                    self.compared.clear();
                }
                self.compared.insert(key, c);
                c
            }
        };
        self.scored(comparison, agreement, place)
    }

    /// Exact comparison with a prepared page, on structure only (kind and place agreement 1:
    /// the prepared view carries neither the page's kinds nor its URL; [`Example::compare`]
    /// applies them).
    pub fn compare_prepared(&mut self, other: &Prepared) -> Verdict {
        self.verdict(other, 1.0, 1.0)
    }

    fn verdict(&mut self, other: &Prepared, kind_agreement: f64, place_agreement: f64) -> Verdict {
        let comparison = self.rtdm.compare(&self.prepared, other);
        self.scored(comparison, kind_agreement, place_agreement)
    }

    fn scored(&self, comparison: Comparison, kind_agreement: f64, place_agreement: f64) -> Verdict {
        let score = comparison.similarity * kind_agreement * place_agreement;
        Verdict {
            kind_agreement,
            place_agreement,
            score,
            similar: score >= self.options.threshold,
            threshold: self.options.threshold,
            comparison,
        }
    }

    /// Whether a page is similar to the example (decision mode: stops as soon as known when the
    /// page agrees with the example's kinds and place; exact otherwise).
    pub fn is_similar(&mut self, page: &Page) -> bool {
        let agreement = self.agreement(&page.tree);
        let place = self.place_agreement(&page.url);
        let other = self.prepare(page);
        if agreement < 1.0 || place < 1.0 {
            return self.verdict(&other, agreement, place).similar;
        }
        self.rtdm
            .is_similar(&self.prepared, &other, self.options.threshold)
    }
}

impl Options {
    /// The kinds of a page's tree that count under these options: none unless the view uses
    /// ids and the kind weight is positive.
    pub fn page_kinds(&self, tree: &Tree) -> Vec<Label> {
        if self.view.classes && self.view.ids && self.kind_weight > 0.0 {
            kinds(tree)
        } else {
            Vec::new()
        }
    }

    /// The kinds an example's tree declares, with their prefixes, under these options (none
    /// unless the view uses ids and the kind weight is positive).
    pub fn example_kinds(&self, tree: &Tree) -> Vec<Kind> {
        if self.view.classes && self.view.ids && self.kind_weight > 0.0 {
            kinds_with_prefixes(tree)
        } else {
            Vec::new()
        }
    }

    /// A page's agreement with the example's kinds ([`declared_kinds`], [`kind_agreement`]).
    pub fn agreement(&self, example: &[Kind], tree: &Tree) -> f64 {
        if example.is_empty() {
            return 1.0;
        }
        let labels: Vec<Label> = example.iter().map(|k| k.label).collect();
        kind_agreement(&labels, &declared_kinds(example, tree), self.kind_weight)
    }
}

/// A threshold chosen from the similarities to the example seen so far (no labels): Otsu's cut
/// of their distribution, the θ that best splits them into two groups ("like the example" and
/// the rest) by between-group variance. Falls back to [`DEFAULT_THRESHOLD`] with fewer than two
/// distinct values.
pub fn auto_threshold(sims: &[f64]) -> f64 {
    let mut v: Vec<f64> = sims.iter().copied().filter(|s| s.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n < 2 || v[0] == v[n - 1] {
        return DEFAULT_THRESHOLD;
    }
    let total: f64 = v.iter().sum();
    let mut below = 0.0;
    let mut best = (f64::NEG_INFINITY, DEFAULT_THRESHOLD);
    for i in 0..n - 1 {
        below += v[i];
        if v[i] == v[i + 1] {
            continue;
        }
        let cut = (v[i] + v[i + 1]) / 2.0;
        if !(0.05..=0.95).contains(&cut) {
            continue;
        }
        let w0 = (i + 1) as f64 / n as f64;
        let w1 = 1.0 - w0;
        let m0 = below / (i + 1) as f64;
        let m1 = (total - below) / (n - i - 1) as f64;
        let between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if between > best.0 {
            best = (between, cut);
        }
    }
    best.1
}

/// Compares two pages under `options` (prepares both; use [`Example`] for one-to-many).
pub fn compare_pages(a: &Page, b: &Page, options: &Options) -> Verdict {
    Example::new(a, *options).compare(b)
}

#[cfg(test)]
mod tests;
