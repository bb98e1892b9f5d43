//! RTDM structural similarity: the restricted top-down tree edit distance of de Castro Reis et
//! al. (WWW 2004) between two [`Tree`]s, the similarity derived from it, and the bounded
//! "decision mode" that answers "is this page similar to the example?" without finishing the
//! computation once the answer is known.
//!
//! This module owns the distance computation only: it reads labels, sizes and structural hashes
//! from [`Tree`] and never looks at text, attributes or links.
//!
//! # Definition
//!
//! For two nodes `a`, `b` with equal labels, `rtdm(a, b)` aligns their children sequences
//! `a_1..a_m`, `b_1..b_n` by dynamic programming: deleting `a_i` costs `size(a_i)`, inserting `b_j`
//! costs `size(b_j)`, and matching `a_i` with `b_j` costs `0` for identical subtrees,
//! `size(a_i) + size(b_j)` for different labels, and `rtdm(a_i, b_j)` otherwise. Roots with
//! different labels are at distance `size(T1) + size(T2)`. The similarity is
//! `1 - rtdm(T1, T2) / (size(T1) + size(T2))`, in `[0, 1]`, and `1` exactly for identical trees.
//!
//! # How it is computed
//!
//! - Identical subtrees are recognised in O(1) by structural hash and size equality (the
//!   hash-consing shortcut: pages of one template share most of their subtrees), and the common
//!   identical prefix and suffix of two children sequences are stripped before the dynamic
//!   programming. This is exact: matching an identical pair first is always optimal, because any
//!   match costs at least the size difference of its two subtrees. A pair left with one child on
//!   each side descends to that pair directly, without a DP.
//! - Every pair of nodes is computed with a *budget* `B` and yields `min(distance, B)`. A cell
//!   `(i, j)` of the alignment only matters below `cap(i, j) = B - |rest_a(i) - rest_b(j)|` (the
//!   rest of the alignment costs at least the difference of the remaining sizes): cells are
//!   capped there, only the window of live cells (below their cap) of each row is computed, a
//!   recursive call is made only when its lower bound `|size(a_i) - size(b_j)|` cannot already
//!   rule it out, and it receives as its own budget what it has to beat. A row without live cells
//!   ends the pair early with the answer `B`. [`is_similar`] runs this with the largest distance
//!   the threshold allows, computed once by [`max_distance`].
//! - Costs of recursive pairs are remembered per pair of sibling classes (a dense table per
//!   frame: a list of 60 product cards of a dozen shapes against another costs a dozen squared
//!   recursions, not 3,600) and in a memo keyed by the structure of both subtrees, which a
//!   workspace keeps across comparisons, so comparing one example with many pages of its template
//!   meets the same pairs again for free. The memo is bounded and [`Rtdm::clear_cache`] empties
//!   it.
//! - The recursion runs on an explicit heap stack of frames (two rolling rows per frame in a
//!   shared arena), so a 100,000-deep tree compares natively and in wasm without stack overflow.
//!   All buffers live in a reusable [`Rtdm`] workspace (allocation-free once warm); the free
//!   functions and the [`Prepared`] methods use a thread-local one.
//! - [`Prepared`] keeps the children lists of a tree as flat vectors (each child with its hash,
//!   size, label and sibling class inline) so one example page is compared with thousands of
//!   pages without repeated work.
//!
//! Like the identity test, the memo trusts 64-bit structural hashes (with sizes) to identify
//! subtrees. The mapping itself (matched pairs and the edit script, for the playground) is
//! [`mapping`], a separate plain computation whose costs add up to [`distance`].
//!
//! # Example
//!
//! ```
//! use exemplar_html::Tree;
//! use exemplar_similarity::rtdm::{self, Prepared};
//!
//! let a = Tree::parse_shape("html(head(title) body(div(p p) div))").unwrap();
//! let b = Tree::parse_shape("html(head(title) body(div(p p p) div))").unwrap();
//! assert_eq!(rtdm::distance(&a, &b), 1); // one leaf inserted
//! let cmp = rtdm::compare(&a, &b);
//! assert_eq!((cmp.size_a, cmp.size_b), (8, 9));
//! assert!((cmp.similarity - (1.0 - 1.0 / 17.0)).abs() < 1e-12);
//! assert!(rtdm::is_similar(&a, &b, 0.9));
//! assert_eq!(rtdm::distance_bounded(&a, &b, 0), 0);
//!
//! // Compare one example with many pages without redoing its preparation.
//! let example = Prepared::new(a);
//! let page = Prepared::new(b);
//! assert_eq!(example.compare(&page), cmp);
//! assert!(!example.is_similar(&page, 0.95));
//! ```

use exemplar_html::tree::Chained;
use exemplar_html::{Label, NodeId, Tree};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The result of comparing two trees.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The RTDM edit distance (0 for identical trees, `size_a + size_b` when the roots differ).
    pub distance: u32,
    /// `1 - distance / (size_a + size_b)`, in `[0, 1]`.
    pub similarity: f64,
    /// Number of nodes of the first tree.
    pub size_a: u32,
    /// Number of nodes of the second tree.
    pub size_b: u32,
}

/// RTDM distance between `a` and `b` (exact).
pub fn distance(a: &Tree, b: &Tree) -> u32 {
    with_workspace(|ws| ws.tree_distance(a, b))
}

/// RTDM similarity between `a` and `b`: `1 - distance / (size(a) + size(b))`.
pub fn similarity(a: &Tree, b: &Tree) -> f64 {
    compare(a, b).similarity
}

/// Distance, similarity and sizes of `a` and `b`.
pub fn compare(a: &Tree, b: &Tree) -> Comparison {
    let d = distance(a, b);
    comparison(d, tree_size(a), tree_size(b))
}

/// Whether `similarity(a, b) >= theta`, computed with a budget so it stops as soon as the answer
/// is known. Agrees exactly with `compare(a, b).similarity >= theta` (a NaN `theta` gives
/// `false`).
pub fn is_similar(a: &Tree, b: &Tree, theta: f64) -> bool {
    with_workspace(|ws| ws.tree_is_similar(a, b, theta))
}

/// `min(distance(a, b), budget)`: exact whenever the distance is below `budget`, and cheaper the
/// smaller the budget.
pub fn distance_bounded(a: &Tree, b: &Tree, budget: u32) -> u32 {
    with_workspace(|ws| ws.tree_distance_bounded(a, b, budget))
}

/// The largest distance at which two trees of `size_a` and `size_b` nodes are still similar at
/// threshold `theta` (`similarity >= theta`, with the similarity computed exactly as
/// [`Comparison::similarity`] is), or `None` when no distance is (`theta > 1` or NaN).
///
/// Computed once per pair of sizes, robustly: the floating-point estimate
/// `floor((1 - theta) * (size_a + size_b))` is corrected against the similarity formula itself.
pub fn max_distance(size_a: u32, size_b: u32, theta: f64) -> Option<u32> {
    let total = u64::from(size_a) + u64::from(size_b);
    let ok = |d: u64| similarity_of(d, total) >= theta;
    if !ok(0) {
        return None;
    }
    let estimate = ((1.0 - theta) * total as f64).floor();
    // `as` saturates (NaN is excluded by `ok(0)` above); the loops fix the last ulp errors.
    let mut d = (estimate.max(0.0) as u64).min(total);
    while d > 0 && !ok(d) {
        d -= 1;
    }
    while d < total && ok(d + 1) {
        d += 1;
    }
    Some(u32::try_from(d).unwrap_or(u32::MAX))
}

/// A tree prepared for many comparisons: the tree plus its children lists as flat vectors (each
/// child with its hash, size and label inline), built once.
#[derive(Clone, Debug)]
pub struct Prepared {
    tree: Tree,
    lists: Lists,
}

impl Prepared {
    /// Prepares `tree` (linear time). The tree must satisfy its own invariants, as every
    /// constructor of [`Tree`] and [`Tree::validated`] guarantee.
    pub fn new(tree: Tree) -> Self {
        let mut lists = Lists::default();
        lists.build(&tree);
        // The scratch map only serves building.
        lists.scratch = HashMap::default();
        Prepared { tree, lists }
    }

    /// The prepared tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Gives the tree back.
    pub fn into_tree(self) -> Tree {
        self.tree
    }

    /// Distance, similarity and sizes of `self` and `other`.
    pub fn compare(&self, other: &Prepared) -> Comparison {
        with_workspace(|ws| ws.compare(self, other))
    }

    /// Whether `self` and `other` are similar at threshold `theta` (see [`is_similar`]).
    pub fn is_similar(&self, other: &Prepared, theta: f64) -> bool {
        with_workspace(|ws| ws.is_similar(self, other, theta))
    }

    /// `min(distance, budget)` between `self` and `other` (see [`distance_bounded`]).
    pub fn distance_bounded(&self, other: &Prepared, budget: u32) -> u32 {
        with_workspace(|ws| ws.distance_bounded(self, other, budget))
    }

    /// Exact distance between `self` and `other`.
    pub fn distance(&self, other: &Prepared) -> u32 {
        with_workspace(|ws| ws.distance(self, other))
    }

    fn view(&self) -> View<'_> {
        self.lists.view()
    }
}

impl From<Tree> for Prepared {
    fn from(tree: Tree) -> Self {
        Prepared::new(tree)
    }
}

/// A reusable workspace (frame stack, DP rows, children lists for unprepared trees): after the
/// first comparisons it reaches a steady size and comparisons no longer allocate. The free
/// functions and the [`Prepared`] methods use a thread-local one; hold your own to control it.
#[derive(Debug, Default)]
pub struct Rtdm {
    core: Core,
    lists_a: Lists,
    lists_b: Lists,
}

impl Rtdm {
    /// An empty workspace.
    pub fn new() -> Self {
        Rtdm::default()
    }

    /// Forgets the costs of subtree pairs remembered from earlier comparisons (they are keyed by
    /// structure, so keeping them is always valid; this only bounds memory or measures cold runs).
    pub fn clear_cache(&mut self) {
        self.core.memo.clear();
    }

    /// Exact distance between two prepared trees.
    pub fn distance(&mut self, a: &Prepared, b: &Prepared) -> u32 {
        self.core.exact(a.view(), b.view())
    }

    /// `min(distance, budget)` between two prepared trees.
    pub fn distance_bounded(&mut self, a: &Prepared, b: &Prepared, budget: u32) -> u32 {
        self.core.bounded(a.view(), b.view(), budget)
    }

    /// Distance, similarity and sizes of two prepared trees.
    pub fn compare(&mut self, a: &Prepared, b: &Prepared) -> Comparison {
        let d = self.distance(a, b);
        comparison(d, tree_size(&a.tree), tree_size(&b.tree))
    }

    /// Whether two prepared trees are similar at threshold `theta` (see [`is_similar`]).
    pub fn is_similar(&mut self, a: &Prepared, b: &Prepared, theta: f64) -> bool {
        self.core.similar(a.view(), b.view(), theta)
    }

    /// Distance, similarity and sizes of a prepared tree and `tree` with node weights as chains:
    /// `self.compare(a, &Prepared::new(tree.chained(weights)?))`, without building that tree
    /// (its children lists are built in this workspace, from the tree's). `None` as
    /// [`Tree::chained`].
    pub fn compare_chained(
        &mut self,
        a: &Prepared,
        tree: &Tree,
        weights: &[u32],
    ) -> Option<Comparison> {
        let parts = tree.chained_parts(weights)?;
        self.lists_b.build_chained(tree, &parts);
        let d = self.core.exact(a.view(), self.lists_b.view());
        Some(comparison(d, tree_size(&a.tree), parts.sizes.len() as u32))
    }

    /// Exact distance between two unprepared trees.
    pub fn tree_distance(&mut self, a: &Tree, b: &Tree) -> u32 {
        self.lists_a.build(a);
        self.lists_b.build(b);
        self.core.exact(self.lists_a.view(), self.lists_b.view())
    }

    /// `min(distance, budget)` between two unprepared trees.
    pub fn tree_distance_bounded(&mut self, a: &Tree, b: &Tree, budget: u32) -> u32 {
        self.lists_a.build(a);
        self.lists_b.build(b);
        self.core
            .bounded(self.lists_a.view(), self.lists_b.view(), budget)
    }

    /// Whether two unprepared trees are similar at threshold `theta`.
    pub fn tree_is_similar(&mut self, a: &Tree, b: &Tree, theta: f64) -> bool {
        self.lists_a.build(a);
        self.lists_b.build(b);
        self.core
            .similar(self.lists_a.view(), self.lists_b.view(), theta)
    }
}

thread_local! {
    static WORKSPACE: RefCell<Rtdm> = RefCell::new(Rtdm::new());
}

/// Runs `f` with the thread-local workspace (a fresh one if it is already in use).
fn with_workspace<R>(f: impl FnOnce(&mut Rtdm) -> R) -> R {
    WORKSPACE.with(|ws| match ws.try_borrow_mut() {
        Ok(mut ws) => f(&mut ws),
        Err(_) => f(&mut Rtdm::new()),
    })
}

fn tree_size(t: &Tree) -> u32 {
    if t.is_empty() { 0 } else { t.size(0) }
}

fn similarity_of(distance: u64, total: u64) -> f64 {
    if total == 0 {
        1.0
    } else {
        1.0 - distance as f64 / total as f64
    }
}

fn comparison(distance: u32, size_a: u32, size_b: u32) -> Comparison {
    Comparison {
        distance,
        similarity: similarity_of(u64::from(distance), u64::from(size_a) + u64::from(size_b)),
        size_a,
        size_b,
    }
}

/// A node as seen from its parent's children list: what the DP needs, inline.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Kid {
    hash: u64,
    node: NodeId,
    size: u32,
    label: Label,
    /// Class of identical subtrees among its siblings: dense index in order of first occurrence.
    cls: u32,
}

impl Kid {
    fn of(tree: &Tree, node: NodeId) -> Kid {
        Kid {
            hash: tree.hash(node),
            node,
            size: tree.size(node),
            label: tree.label(node),
            cls: 0,
        }
    }

    /// Identical subtrees (the identity test: equal structural hash and equal size).
    #[inline]
    fn same(&self, other: &Kid) -> bool {
        self.hash == other.hash && self.size == other.size
    }
}

/// Children lists of every node: the children of node `x` are `kids[off[x]..off[x + 1]]`, and
/// they fall in `classes[x]` classes of identical subtrees.
#[derive(Clone, Debug, Default)]
struct Lists {
    root: Option<Kid>,
    off: Vec<u32>,
    kids: Vec<Kid>,
    classes: Vec<u32>,
    /// Scratch map for numbering the classes of long children lists.
    scratch: HashMap<(u64, u32), u32, BuildHasherDefault<KeyHasher>>,
}

/// Children lists up to this length are numbered by pairwise comparison, longer ones by a map.
const SHORT_LIST: usize = 16;

impl Lists {
    /// Empties the lists for a tree of `n` nodes (capacity kept: the workspace reuses them).
    fn reset(&mut self, n: usize) {
        self.off.clear();
        self.kids.clear();
        self.classes.clear();
        self.off.reserve(n + 1);
        self.kids.reserve(n.saturating_sub(1));
        self.classes.reserve(n);
    }

    fn build(&mut self, tree: &Tree) {
        let n = tree.len();
        self.reset(n);
        let sizes = tree.sizes();
        for i in 0..n {
            let lo = self.kids.len();
            self.off.push(lo as u32);
            let end = i + sizes[i] as usize;
            let mut c = i + 1;
            while c < end {
                self.kids.push(Kid::of(tree, c as NodeId));
                c += sizes[c] as usize;
            }
            let count = self.number_classes(lo);
            self.classes.push(count);
        }
        self.off.push(self.kids.len() as u32);
        self.root = (n > 0).then(|| Kid::of(tree, 0));
    }

    /// The lists of `tree` with node weights as chains, from [`Tree::chained_parts`]: what
    /// [`Lists::build`] makes of [`Tree::chained`], without that tree. A chain node's list is
    /// the next node of its chain; the last one's, the first nodes of its children's chains.
    fn build_chained(&mut self, tree: &Tree, parts: &Chained) {
        let Chained { top, sizes, hashes } = parts;
        let total = sizes.len();
        self.reset(total);
        let kid = |label: Label, x: u32| Kid {
            hash: hashes[x as usize],
            node: x,
            size: sizes[x as usize],
            label,
            cls: 0,
        };
        for (i, chain) in top.windows(2).enumerate() {
            let label = tree.label(i as NodeId);
            for x in chain[0]..chain[1] - 1 {
                self.off.push(self.kids.len() as u32);
                self.kids.push(kid(label, x + 1));
                self.classes.push(1);
            }
            let lo = self.kids.len();
            self.off.push(lo as u32);
            for c in tree.children(i as NodeId) {
                self.kids.push(kid(tree.label(c), top[c as usize]));
            }
            let count = self.number_classes(lo);
            self.classes.push(count);
        }
        self.off.push(self.kids.len() as u32);
        self.root = (total > 0).then(|| kid(tree.label(0), 0));
    }

    /// Numbers the classes of identical subtrees in `kids[lo..]`; returns how many there are.
    fn number_classes(&mut self, lo: usize) -> u32 {
        let list = &mut self.kids[lo..];
        let mut count = 0u32;
        if list.len() <= SHORT_LIST {
            for i in 0..list.len() {
                let k = list[i];
                list[i].cls = match list[..i].iter().find(|o| o.same(&k)) {
                    Some(o) => o.cls,
                    None => {
                        count += 1;
                        count - 1
                    }
                };
            }
        } else {
            self.scratch.clear();
            for k in list.iter_mut() {
                let next = count;
                k.cls = *self.scratch.entry((k.hash, k.size)).or_insert(next);
                if k.cls == next {
                    count += 1;
                }
            }
        }
        count
    }

    fn view(&self) -> View<'_> {
        View {
            root: self.root.unwrap_or(Kid {
                hash: 0,
                node: 0,
                size: 0,
                label: Label::TEXT,
                cls: 0,
            }),
            off: &self.off,
            kids: &self.kids,
            classes: &self.classes,
        }
    }
}

#[derive(Clone, Copy)]
struct View<'a> {
    root: Kid,
    off: &'a [u32],
    kids: &'a [Kid],
    classes: &'a [u32],
}

impl View<'_> {
    /// Index range of `node`'s children in `kids`.
    #[inline]
    fn range(&self, node: NodeId) -> (u32, u32) {
        (self.off[node as usize], self.off[node as usize + 1])
    }
}

/// One pair of nodes being aligned (labels equal, not identical, prefix/suffix stripped).
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Children `a.kids[alo..ahi]` of the first node (after stripping).
    alo: u32,
    ahi: u32,
    /// Children `b.kids[blo..bhi]` of the second node (after stripping).
    blo: u32,
    bhi: u32,
    /// End (preorder index) of the last child in each range: the size still to align after
    /// child `c` is `end - (c.node + c.size)`.
    a_end: u32,
    b_end: u32,
    /// Total size of the second range (what is left of it before any column).
    sum_b: u32,
    /// The result is `min(distance, budget)`.
    budget: u32,
    /// Offset of the frame's two rows (`n + 1` cells each) in the row arena.
    row: u32,
    /// Offset of the frame's class-pair table in the table arena ([`NO_TABLE`] when the lists
    /// have no repeated class), and its row stride (number of classes of the second list).
    tab: u32,
    stride: u32,
    /// Cursor: the cell `(i, j)` to compute next (rows `1..=m`, columns `1..=n`; `j == 0`: the
    /// row is not started).
    i: u32,
    j: u32,
    /// First and last live column of row `i - 1`: the cells outside are dead (at their cap) and
    /// are neither stored nor read.
    plo: u32,
    phi: u32,
    /// First and last live column of row `i` so far ([`NONE`] when none yet).
    clo: u32,
    chi: u32,
}

/// No column.
const NONE: u32 = u32::MAX;
/// The value read for a dead cell outside the live window: any value at or above a cell's cap
/// keeps the invariant, and saturating arithmetic keeps it there.
const DEAD: u32 = u32::MAX;

/// [`Frame::tab`] of a frame without a class-pair table.
const NO_TABLE: u32 = u32::MAX;
/// Largest class-pair table a frame allocates (entries).
const MAX_TABLE: usize = 1 << 20;
/// Class-pair table entry: nothing known yet.
const UNKNOWN: u64 = u64::MAX;
/// Class-pair table entry flag: the low 32 bits are the exact cost (else a lower bound).
const EXACT: u64 = 1 << 32;
/// Frames and cells (rows, table entries) a workspace keeps between comparisons.
const KEEP_FRAMES: usize = 1 << 12;
const KEEP_CELLS: usize = 1 << 18;
/// The cross-comparison memo is cleared when it grows beyond this many pairs.
const MAX_MEMO: usize = 1 << 16;

enum Open {
    Done(u32),
    Frame(Frame),
}

enum Step {
    /// The frame needs `min(rtdm(x, y), budget)` for its current cell.
    Need(Kid, Kid, u32),
    /// The frame is finished with this result.
    Done(u32),
}

/// The reusable state of the DP: the explicit frame stack, the row and table arenas, the memo.
#[derive(Debug, Default)]
struct Core {
    frames: Vec<Frame>,
    rows: Vec<u32>,
    table: Vec<u64>,
    memo: Memo,
    /// Pairs still to align and the alignment matrix of [`Core::upper`].
    pending: Vec<(Kid, Kid)>,
    matrix: Vec<u32>,
}

/// Costs of pairs of subtrees already computed, keyed by their structure (hash and size of each
/// side), so valid across comparisons: one example compared with many pages of its template
/// meets the same pairs of list items again and again. Consulted only before a recursive call.
type Memo = HashMap<PairKey, u64, BuildHasherDefault<KeyHasher>>;

/// Two subtree classes (hash and size of each side).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct PairKey(u64, u64, u32, u32);

impl PairKey {
    fn of(x: &Kid, y: &Kid) -> PairKey {
        PairKey(x.hash, y.hash, x.size, y.size)
    }
}

/// A hasher for keys that already are well-mixed 64-bit hashes.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
}

/// What a table or memo entry says about a cost, given the cell's `d` and `alt`: `Some(value)`
/// of the cell when it settles it, `None` when a recursive call is still needed.
#[inline]
fn settle(entry: u64, d: u32, alt: u32) -> Option<u32> {
    if entry == UNKNOWN {
        None
    } else if entry & EXACT != 0 {
        Some(alt.min(d.saturating_add(entry as u32)))
    } else if d.saturating_add(entry as u32) >= alt {
        Some(alt)
    } else {
        None
    }
}

impl Core {
    fn exact(&mut self, a: View<'_>, b: View<'_>) -> u32 {
        // With equal roots the distance is at most size_a + size_b - 2, so this budget is exact.
        let budget = a.root.size.saturating_add(b.root.size);
        self.bounded(a, b, budget)
    }

    fn similar(&mut self, a: View<'_>, b: View<'_>, theta: f64) -> bool {
        let Some(max) = max_distance(a.root.size, b.root.size, theta) else {
            return false;
        };
        let (x, y) = (a.root, b.root);
        let total = u64::from(x.size) + u64::from(y.size);
        // A large budget prunes the exact computation little, so a "yes" costs about as much as
        // the exact distance: try to prove it at once with the cost of one cheap edit script.
        // (A small budget makes the exact run cheap either way, and "no" the likely answer.)
        if u64::from(max) * UPPER_SLACK >= total
            && x.size > 0
            && y.size > 0
            && x.label == y.label
            && !x.same(&y)
            && self.upper(a, b, max.saturating_add(1)) <= max
        {
            return true;
        }
        self.bounded(a, b, max.saturating_add(1)) <= max
    }

    /// `min(U, budget)` for the cost `U >= rtdm(a, b)` of one valid edit script, found in about
    /// linear time (plus one small DP per aligned pair): the children of every matched pair are
    /// aligned once by a DP whose costs for matching two different same-label subtrees are
    /// *estimates* (instead of recursive distances), then the matched pairs are aligned in turn
    /// and the script's real costs are added up: deleted and inserted subtrees cost their size,
    /// differently labelled pairs both sizes, a leaf against a same-label tree the size
    /// difference, identical subtrees nothing. Precondition: the roots have equal labels and
    /// are not identical.
    fn upper(&mut self, a: View<'_>, b: View<'_>, budget: u32) -> u32 {
        self.pending.clear();
        self.pending.shrink_to(KEEP_FRAMES);
        self.matrix.shrink_to(KEEP_CELLS);
        self.pending.push((a.root, b.root));
        let mut acc = 0u32;
        while let Some((x, y)) = self.pending.pop() {
            let (mut alo, mut ahi) = a.range(x.node);
            let (mut blo, mut bhi) = b.range(y.node);
            while alo < ahi && blo < bhi && a.kids[alo as usize].same(&b.kids[blo as usize]) {
                alo += 1;
                blo += 1;
            }
            while alo < ahi && blo < bhi && a.kids[ahi as usize - 1].same(&b.kids[bhi as usize - 1])
            {
                ahi -= 1;
                bhi -= 1;
            }
            let ak = &a.kids[alo as usize..ahi as usize];
            let bk = &b.kids[blo as usize..bhi as usize];
            acc = acc.saturating_add(align_upper(ak, bk, &mut self.matrix, &mut self.pending));
            if acc >= budget {
                return budget;
            }
        }
        acc
    }

    /// `min(rtdm(a, b), budget)`.
    fn bounded(&mut self, a: View<'_>, b: View<'_>, budget: u32) -> u32 {
        let (x, y) = (a.root, b.root);
        if budget == 0 {
            return 0;
        }
        if x.size == 0 || y.size == 0 || x.label != y.label {
            return x.size.saturating_add(y.size).min(budget);
        }
        if x.same(&y) {
            return 0;
        }
        if x.size.abs_diff(y.size) >= budget {
            return budget;
        }
        self.run(a, b, budget)
    }

    /// The explicit-stack recursion. Precondition: the roots have equal labels, are not
    /// identical, and `budget > 0`.
    fn run(&mut self, a: View<'_>, b: View<'_>, budget: u32) -> u32 {
        self.frames.clear();
        self.rows.clear();
        self.table.clear();
        // Give back what a pathological comparison (a very deep or very wide tree) grew; no-ops
        // for the usual sizes.
        self.frames.shrink_to(KEEP_FRAMES);
        self.rows.shrink_to(KEEP_CELLS);
        self.table.shrink_to(KEEP_CELLS);
        if self.memo.len() > MAX_MEMO {
            self.memo.clear();
        }
        let mut arenas = Arenas {
            rows: &mut self.rows,
            table: &mut self.table,
        };
        match open(&mut arenas, a, b, a.root, b.root, budget) {
            Open::Done(v) => return v,
            Open::Frame(f) => self.frames.push(f),
        }
        let mut pending: Option<u32> = None;
        loop {
            let top = self.frames.len() - 1;
            let mut f = self.frames[top];
            match step(&mut arenas, &mut self.memo, a, b, &mut f, pending.take()) {
                Step::Need(x, y, r) => {
                    self.frames[top] = f;
                    match open(&mut arenas, a, b, x, y, r) {
                        Open::Done(v) => pending = Some(v),
                        Open::Frame(child) => self.frames.push(child),
                    }
                }
                Step::Done(v) => {
                    self.frames.pop();
                    arenas.rows.truncate(f.row as usize);
                    if f.tab != NO_TABLE {
                        arenas.table.truncate(f.tab as usize);
                    }
                    if self.frames.is_empty() {
                        return v;
                    }
                    pending = Some(v);
                }
            }
        }
    }
}

/// Pairs of children lists beyond this many matrix cells are not aligned by [`align_upper`]:
/// all their children are deleted and inserted.
const MAX_UPPER_CELLS: usize = 1 << 16;
/// [`Core::similar`] tries [`Core::upper`] first when the largest allowed distance is at least
/// `1 / UPPER_SLACK` of the sizes (θ ≤ 0.75).
const UPPER_SLACK: u64 = 4;

/// The estimated cost of matching children `p` and `q` in [`align_upper`]: exact for identical
/// subtrees, different labels and a leaf against a tree; for two same-label trees the size
/// difference (a lower bound) plus a quarter of what the rest could cost at most.
#[inline]
fn estimate(p: &Kid, q: &Kid) -> u32 {
    if p.same(q) {
        0
    } else if p.label != q.label {
        p.size.saturating_add(q.size)
    } else {
        let lower = p.size.abs_diff(q.size);
        lower.saturating_add(p.size.min(q.size).saturating_sub(1) / 2)
    }
}

/// Aligns the children lists `ak` and `bk` by the DP with [`estimate`]d match costs (full
/// matrix in `matrix`, traced back), pushes the matched same-label pairs whose cost is not known
/// on `pending`, and returns the real cost of the rest of the alignment: deleted and inserted
/// children, differently labelled matches, leaves against trees.
fn align_upper(
    ak: &[Kid],
    bk: &[Kid],
    matrix: &mut Vec<u32>,
    pending: &mut Vec<(Kid, Kid)>,
) -> u32 {
    let (m, n) = (ak.len(), bk.len());
    let w = n + 1;
    let size_sum = |ks: &[Kid]| ks.iter().fold(0u32, |s, k| s.saturating_add(k.size));
    if m == 0 || n == 0 || (m + 1).saturating_mul(w) > MAX_UPPER_CELLS {
        return size_sum(ak).saturating_add(size_sum(bk));
    }
    matrix.clear();
    matrix.resize((m + 1) * w, 0);
    for (j, q) in bk.iter().enumerate() {
        matrix[j + 1] = matrix[j].saturating_add(q.size);
    }
    for (i, p) in ak.iter().enumerate() {
        let (up, cur) = matrix[i * w..(i + 2) * w].split_at_mut(w);
        cur[0] = up[0].saturating_add(p.size);
        for (j, q) in bk.iter().enumerate() {
            let mut v = up[j + 1]
                .saturating_add(p.size)
                .min(cur[j].saturating_add(q.size));
            if p.label == q.label {
                v = v.min(up[j].saturating_add(estimate(p, q)));
            }
            cur[j + 1] = v;
        }
    }
    // Trace one optimal path back and add up what its operations really cost.
    let mut cost = 0u32;
    let (mut i, mut j) = (m, n);
    while i > 0 || j > 0 {
        let here = matrix[i * w + j];
        if i > 0 && j > 0 {
            let (p, q) = (ak[i - 1], bk[j - 1]);
            if p.label == q.label
                && matrix[(i - 1) * w + j - 1].saturating_add(estimate(&p, &q)) == here
            {
                if p.size == 1 || q.size == 1 {
                    // A leaf against a same-label tree: exactly the size difference (0 if same).
                    cost = cost.saturating_add(p.size.abs_diff(q.size));
                } else if !p.same(&q) {
                    pending.push((p, q));
                }
                i -= 1;
                j -= 1;
                continue;
            }
        }
        if i > 0 && (j == 0 || matrix[(i - 1) * w + j].saturating_add(ak[i - 1].size) == here) {
            cost = cost.saturating_add(ak[i - 1].size);
            i -= 1;
        } else {
            cost = cost.saturating_add(bk[j - 1].size);
            j -= 1;
        }
    }
    cost
}

/// The per-frame storage, stack-allocated in two vectors.
struct Arenas<'a> {
    rows: &'a mut Vec<u32>,
    table: &'a mut Vec<u64>,
}

/// Sets up the alignment of the children of `x` and `y` (equal labels, not identical) with
/// `budget > 0`: strips the identical prefix and suffix, answers at once when one side is empty
/// or the size difference exceeds the budget, else allocates the rows (and the class-pair table
/// when a class repeats) and fills row 0.
fn open(
    ar: &mut Arenas<'_>,
    a: View<'_>,
    b: View<'_>,
    mut x: Kid,
    mut y: Kid,
    mut budget: u32,
) -> Open {
    let (alo0, ahi0, blo0, bhi0, alo, ahi, blo, bhi) = loop {
        let (alo0, ahi0) = a.range(x.node);
        let (blo0, bhi0) = b.range(y.node);
        let (mut alo, mut ahi, mut blo, mut bhi) = (alo0, ahi0, blo0, bhi0);
        while alo < ahi && blo < bhi && a.kids[alo as usize].same(&b.kids[blo as usize]) {
            alo += 1;
            blo += 1;
        }
        while alo < ahi && blo < bhi && a.kids[ahi as usize - 1].same(&b.kids[bhi as usize - 1]) {
            ahi -= 1;
            bhi -= 1;
        }
        if ahi - alo != 1 || bhi - blo != 1 {
            break (alo0, ahi0, blo0, bhi0, alo, ahi, blo, bhi);
        }
        // One child against one (different) child: the distance is the smaller of replacing it
        // and, for equal labels, the children's own distance. Descend without a frame, with the
        // budget lowered to the replacement cost: min(rtdm(x1, y1), min(budget, replace)) is
        // min(rtdm(x, y), budget).
        let (x1, y1) = (a.kids[alo as usize], b.kids[blo as usize]);
        let replace = x1.size.saturating_add(y1.size);
        if x1.label != y1.label {
            return Open::Done(replace.min(budget));
        }
        let lower = x1.size.abs_diff(y1.size);
        if x1.size == 1 || y1.size == 1 || lower >= budget {
            // A leaf against a tree of its label costs exactly the size difference.
            return Open::Done(lower.min(budget));
        }
        budget = budget.min(replace);
        x = x1;
        y = y1;
    };
    let span = |v: &View<'_>, lo: u32, hi: u32| -> (u32, u32) {
        if lo == hi {
            return (0, 0);
        }
        let first = v.kids[lo as usize];
        let last = v.kids[hi as usize - 1];
        let end = last.node + last.size;
        (end - first.node, end)
    };
    let (sum_a, a_end) = span(&a, alo, ahi);
    let (sum_b, b_end) = span(&b, blo, bhi);
    if alo == ahi || blo == bhi {
        // One side is empty: delete or insert everything on the other side.
        return Open::Done(sum_a.saturating_add(sum_b).min(budget));
    }
    if sum_a.abs_diff(sum_b) >= budget {
        return Open::Done(budget);
    }
    let n = (bhi - blo) as usize;
    let row = ar.rows.len();
    ar.rows.resize(row + 2 * (n + 1), 0);
    // Row 0 (inserting b_1..b_j), capped: cap(0, j) = budget - |sum_a - rest_b(j)|.
    let r0 = &mut ar.rows[row..row + n + 1];
    r0[0] = 0;
    // Live columns of row 0 run from 0 to the first dead one (its only predecessor is its left).
    let mut phi = 0;
    let mut acc = 0u32;
    for (j, k) in b.kids[blo as usize..bhi as usize].iter().enumerate() {
        acc = acc.saturating_add(k.size);
        let rest_b = b_end - (k.node + k.size);
        let cap = budget.saturating_sub(sum_a.abs_diff(rest_b));
        if acc >= cap {
            break;
        }
        r0[j + 1] = acc;
        phi = j as u32 + 1;
    }
    // A class-pair table pays off when a class repeats on either side.
    let (ka, kb) = (a.classes[x.node as usize], b.classes[y.node as usize]);
    let repeats = (ka as usize) < (ahi0 - alo0) as usize || (kb as usize) < (bhi0 - blo0) as usize;
    let cells = ka as usize * kb as usize;
    let (tab, stride) = if repeats && cells <= MAX_TABLE {
        let tab = ar.table.len();
        ar.table.resize(tab + cells, UNKNOWN);
        (tab as u32, kb)
    } else {
        (NO_TABLE, 0)
    };
    Open::Frame(Frame {
        alo,
        ahi,
        blo,
        bhi,
        a_end,
        b_end,
        sum_b,
        budget,
        row: row as u32,
        tab,
        stride,
        i: 1,
        j: 0,
        plo: 0,
        phi,
        clo: NONE,
        chi: NONE,
    })
}

/// Runs frame `f` from its cursor until it needs a recursive result or finishes. `pending` is the
/// recursive result for the cell at the cursor, when resuming.
///
/// Invariant: with `cap(i, j) = budget - |rest_a(i) - rest_b(j)|`, every cell value `V` read
/// (stored, or [`DEAD`]) satisfies `min(V, cap) == min(M, cap)` for the true DP value `M`; a cell
/// is live when `V < cap`, and a dead cell may hold any value at or above its cap. Only the live
/// window of a row is computed: from the first live column of the previous row to one past its
/// last live column, then on to the right while the cell to the left is live. Dead cells at the
/// window's borders are overwritten with [`DEAD`] so the loop reads its neighbours without tests.
/// A row without live cells proves `distance >= budget`.
fn step(
    ar: &mut Arenas<'_>,
    memo: &mut Memo,
    a: View<'_>,
    b: View<'_>,
    f: &mut Frame,
    mut pending: Option<u32>,
) -> Step {
    let m = f.ahi - f.alo;
    let n = f.bhi - f.blo;
    let w = n as usize + 1;
    let base = f.row as usize;
    let rows = &mut ar.rows[base..base + 2 * w];
    let table: &mut [u64] = if f.tab == NO_TABLE {
        &mut []
    } else {
        &mut ar.table[f.tab as usize..]
    };
    let stride = f.stride as usize;
    let akids = &a.kids[f.alo as usize..f.ahi as usize];
    let bkids = &b.kids[f.blo as usize..f.bhi as usize];
    let budget = f.budget;
    let b_end = f.b_end;
    while f.i <= m {
        let (r0, r1) = rows.split_at_mut(w);
        // Row i is stored in half `i % 2`, row i - 1 in the other one.
        let (prev, cur) = if f.i & 1 == 1 { (r0, r1) } else { (r1, r0) };
        let ai = akids[f.i as usize - 1];
        let sa = ai.size;
        let rest_a = f.a_end - (ai.node + sa);
        let trow = ai.cls as usize * stride;
        let (plo, phi) = (f.plo, f.phi);
        if f.j == 0 {
            if plo == 0 {
                let cap = budget.saturating_sub(rest_a.abs_diff(f.sum_b));
                let v = prev[0].saturating_add(sa);
                if v < cap {
                    cur[0] = v;
                    f.clo = 0;
                    f.chi = 0;
                } else {
                    cur[0] = DEAD;
                }
            } else {
                prev[plo as usize - 1] = DEAD;
                cur[plo as usize - 1] = DEAD;
            }
            if phi < n {
                prev[phi as usize + 1] = DEAD;
            }
            f.j = plo.max(1);
        }
        let cap_of = |bj: &Kid| budget.saturating_sub(rest_a.abs_diff(b_end - (bj.node + bj.size)));
        if let Some(c) = pending.take() {
            // Resuming: the recursive call for this cell had the budget `alt - d`.
            let j = f.j as usize;
            let bj = bkids[j - 1];
            let cap = cap_of(&bj);
            let alt = prev[j]
                .saturating_add(sa)
                .min(cur[j - 1].saturating_add(bj.size))
                .min(cap);
            let d = prev[j - 1];
            let entry = if c < alt - d {
                EXACT | u64::from(c)
            } else {
                u64::from(c)
            };
            if let Some(slot) = table.get_mut(trow + bj.cls as usize) {
                *slot = entry;
            }
            memo.insert(PairKey::of(&ai, &bj), entry);
            let v = alt.min(d.saturating_add(c));
            cur[j] = v;
            if v < cap {
                f.clo = f.clo.min(f.j);
                f.chi = f.j;
            }
            f.j += 1;
        }
        // The window: up, left and diagonal neighbours are all readable.
        let stop = n.min(phi + 1);
        while f.j <= stop {
            let j = f.j as usize;
            let bj = bkids[j - 1];
            let sb = bj.size;
            let cap = cap_of(&bj);
            let alt = prev[j]
                .saturating_add(sa)
                .min(cur[j - 1].saturating_add(sb))
                .min(cap);
            let d = prev[j - 1];
            let v = if ai.same(&bj) {
                alt.min(d)
            } else if ai.label != bj.label {
                alt.min(d.saturating_add(sa).saturating_add(sb))
            } else {
                let with_lb = d.saturating_add(sa.abs_diff(sb));
                if with_lb >= alt {
                    alt
                } else if sa == 1 || sb == 1 {
                    // Equal labels and one leaf: the cost is exactly the size difference.
                    with_lb
                } else {
                    let slot = table.get_mut(trow + bj.cls as usize);
                    let known = slot.as_ref().map_or(UNKNOWN, |s| **s);
                    match settle(known, d, alt) {
                        Some(v) => v,
                        None => {
                            let entry = memo.get(&PairKey::of(&ai, &bj)).copied();
                            match entry.and_then(|e| settle(e, d, alt)) {
                                Some(v) => {
                                    if let (Some(slot), Some(e)) = (slot, entry) {
                                        *slot = e;
                                    }
                                    v
                                }
                                // Recurse with what the match has to beat; `alt - d > 0` here.
                                None => return Step::Need(ai, bj, alt - d),
                            }
                        }
                    }
                }
            };
            cur[j] = v;
            if v < cap {
                f.clo = f.clo.min(f.j);
                f.chi = f.j;
            }
            f.j += 1;
        }
        // Past the window only the left neighbour can be live.
        while f.j <= n && f.chi == f.j - 1 {
            let j = f.j as usize;
            let bj = bkids[j - 1];
            let v = cur[j - 1].saturating_add(bj.size);
            if v >= cap_of(&bj) {
                break;
            }
            cur[j] = v;
            f.chi = f.j;
            f.j += 1;
        }
        if f.clo == NONE {
            return Step::Done(budget);
        }
        f.plo = f.clo;
        f.phi = f.chi;
        f.clo = NONE;
        f.chi = NONE;
        f.i += 1;
        f.j = 0;
    }
    // Row m is in half `m % 2`; its last cell is live only if it is below the budget.
    if f.phi != n {
        return Step::Done(budget);
    }
    let last = if m & 1 == 1 { &rows[w..] } else { &rows[..w] };
    Step::Done(last[n as usize])
}

/// How two matched nodes correspond in a [`Mapping`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PairKind {
    /// Identical subtrees (equal structural hash and size): every descendant of `a` at preorder
    /// offset `k` matches the descendant of `b` at offset `k`, at no cost.
    Identical,
    /// Equal labels, different subtrees: their children are aligned in turn.
    Matched,
}

/// Two nodes the mapping keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pair {
    /// Node of the first tree.
    pub a: NodeId,
    /// Node of the second tree.
    pub b: NodeId,
    /// Identical subtrees or a matched pair whose children are aligned.
    pub kind: PairKind,
}

/// An edit operation of the RTDM script: whole subtrees are deleted or inserted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "op")]
pub enum EditOp {
    /// The subtree of `a` (first tree) is deleted; costs its size.
    Delete {
        /// Root of the deleted subtree.
        a: NodeId,
        /// Its size.
        cost: u32,
    },
    /// The subtree of `b` (second tree) is inserted; costs its size.
    Insert {
        /// Root of the inserted subtree.
        b: NodeId,
        /// Its size.
        cost: u32,
    },
    /// Aligned nodes whose labels differ: the mapping is cut there, both subtrees are replaced
    /// (costs the sum of their sizes).
    Relabel {
        /// Root in the first tree.
        a: NodeId,
        /// Root in the second tree.
        b: NodeId,
        /// `size(a) + size(b)`.
        cost: u32,
    },
}

impl EditOp {
    /// What the operation costs.
    pub fn cost(&self) -> u32 {
        match *self {
            EditOp::Delete { cost, .. } | EditOp::Insert { cost, .. } => cost,
            EditOp::Relabel { cost, .. } => cost,
        }
    }
}

/// The RTDM mapping of two trees: the matched pairs and the edit script, whose costs add up to
/// the distance. See [`mapping`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mapping {
    /// Matched nodes, top-down (an [`PairKind::Identical`] pair stands for its whole subtrees).
    pub pairs: Vec<Pair>,
    /// The edit operations, top-down.
    pub ops: Vec<EditOp>,
    /// The RTDM distance: the sum of the operations' costs.
    pub distance: u32,
}

/// The RTDM mapping between `a` and `b`: which nodes are matched and which subtrees are deleted,
/// inserted or cut by a label mismatch. The costs of [`Mapping::ops`] add up to
/// [`distance`]`(a, b)`.
///
/// A plain reference computation for showing *why* two pages differ (the playground): full
/// dynamic programming over the children of every matched pair, child-pair costs remembered by
/// structure, no budget. Iterative (an explicit stack), so deep trees do not overflow. Slower
/// than [`distance`] on large dissimilar trees; meant for one pair at a time.
///
/// # Example
///
/// ```
/// use exemplar_html::Tree;
/// use exemplar_similarity::rtdm::{self, EditOp};
///
/// let a = Tree::parse_shape("r(p q(x) s)").unwrap();
/// let b = Tree::parse_shape("r(p q(x y) t)").unwrap();
/// let m = rtdm::mapping(&a, &b);
/// assert_eq!(m.distance, rtdm::distance(&a, &b));
/// assert_eq!(m.ops.iter().map(EditOp::cost).sum::<u32>(), m.distance);
/// assert!(m.ops.contains(&EditOp::Insert { b: 4, cost: 1 })); // the y
/// ```
pub fn mapping(a: &Tree, b: &Tree) -> Mapping {
    let mut out = Mapping::default();
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return out,
        (true, false) => out.ops.push(EditOp::Insert {
            b: 0,
            cost: b.size(0),
        }),
        (false, true) => out.ops.push(EditOp::Delete {
            a: 0,
            cost: a.size(0),
        }),
        (false, false) => {
            let mut mapper = Mapper {
                a,
                b,
                memo: HashMap::default(),
            };
            mapper.trace(&mut out);
        }
    }
    out.distance = out.ops.iter().map(EditOp::cost).sum();
    out
}

/// The reference computation behind [`mapping`].
struct Mapper<'t> {
    a: &'t Tree,
    b: &'t Tree,
    /// Distance of same-label pairs, keyed by the structure of both subtrees.
    memo: HashMap<(u64, u32, u64, u32), u32, BuildHasherDefault<KeyHasher>>,
}

/// The cost of aligning two children, when it is known without recursion.
enum Cell {
    Known(u32),
    /// Equal labels, both inner nodes: their distance.
    Recurse,
}

impl Mapper<'_> {
    fn key(&self, x: NodeId, y: NodeId) -> (u64, u32, u64, u32) {
        (
            self.a.hash(x),
            self.a.size(x),
            self.b.hash(y),
            self.b.size(y),
        )
    }

    fn cell(&self, x: NodeId, y: NodeId) -> Cell {
        let (sa, sb) = (self.a.size(x), self.b.size(y));
        if self.a.hash(x) == self.b.hash(y) && sa == sb {
            Cell::Known(0)
        } else if self.a.label(x) != self.b.label(y) {
            Cell::Known(sa + sb)
        } else if sa == 1 || sb == 1 {
            Cell::Known(sa.abs_diff(sb))
        } else {
            Cell::Recurse
        }
    }

    fn cost(&self, x: NodeId, y: NodeId) -> u32 {
        match self.cell(x, y) {
            Cell::Known(c) => c,
            Cell::Recurse => self
                .memo
                .get(&self.key(x, y))
                .copied()
                .unwrap_or(u32::MAX / 4),
        }
    }

    /// The full alignment table of the children of `x` and `y` (all child costs known).
    fn table(&self, xs: &[NodeId], ys: &[NodeId]) -> Vec<u32> {
        let w = ys.len() + 1;
        let mut t = vec![0u32; (xs.len() + 1) * w];
        for (j, &y) in ys.iter().enumerate() {
            t[j + 1] = t[j] + self.b.size(y);
        }
        for (i, &x) in xs.iter().enumerate() {
            let sa = self.a.size(x);
            t[(i + 1) * w] = t[i * w] + sa;
            for (j, &y) in ys.iter().enumerate() {
                let del = t[i * w + j + 1] + sa;
                let ins = t[(i + 1) * w + j] + self.b.size(y);
                let sub = t[i * w + j].saturating_add(self.cost(x, y));
                t[(i + 1) * w + j + 1] = del.min(ins).min(sub);
            }
        }
        t
    }

    /// Computes the distance of every same-label pair `(x, y)` needs, bottom-up from a stack.
    fn distance(&mut self, x: NodeId, y: NodeId) {
        let mut stack = vec![(x, y)];
        while let Some(&(x, y)) = stack.last() {
            if self.memo.contains_key(&self.key(x, y)) {
                stack.pop();
                continue;
            }
            let xs: Vec<NodeId> = self.a.children(x).collect();
            let ys: Vec<NodeId> = self.b.children(y).collect();
            let before = stack.len();
            for &cx in &xs {
                for &cy in &ys {
                    if matches!(self.cell(cx, cy), Cell::Recurse)
                        && !self.memo.contains_key(&self.key(cx, cy))
                    {
                        stack.push((cx, cy));
                    }
                }
            }
            if stack.len() > before {
                continue;
            }
            let t = self.table(&xs, &ys);
            let d = t.last().copied().unwrap_or(0);
            self.memo.insert(self.key(x, y), d);
            stack.pop();
        }
    }

    fn trace(&mut self, out: &mut Mapping) {
        let (ra, rb) = (self.a.root(), self.b.root());
        match self.cell(ra, rb) {
            Cell::Known(0) => {
                out.pairs.push(Pair {
                    a: ra,
                    b: rb,
                    kind: PairKind::Identical,
                });
                return;
            }
            Cell::Known(c) if self.a.label(ra) != self.b.label(rb) => {
                out.ops.push(EditOp::Relabel {
                    a: ra,
                    b: rb,
                    cost: c,
                });
                return;
            }
            _ => {}
        }
        let mut todo = vec![(ra, rb)];
        while let Some((x, y)) = todo.pop() {
            out.pairs.push(Pair {
                a: x,
                b: y,
                kind: PairKind::Matched,
            });
            let xs: Vec<NodeId> = self.a.children(x).collect();
            let ys: Vec<NodeId> = self.b.children(y).collect();
            for &cx in &xs {
                for &cy in &ys {
                    if matches!(self.cell(cx, cy), Cell::Recurse) {
                        self.distance(cx, cy);
                    }
                }
            }
            let t = self.table(&xs, &ys);
            let w = ys.len() + 1;
            let (mut i, mut j) = (xs.len(), ys.len());
            let mut ops = Vec::new();
            let mut pairs = Vec::new();
            let mut next = Vec::new();
            while i > 0 || j > 0 {
                let here = t[i * w + j];
                if i > 0 && j > 0 {
                    let (cx, cy) = (xs[i - 1], ys[j - 1]);
                    let c = self.cost(cx, cy);
                    if t[(i - 1) * w + j - 1].saturating_add(c) == here {
                        match self.cell(cx, cy) {
                            Cell::Known(0) => pairs.push(Pair {
                                a: cx,
                                b: cy,
                                kind: PairKind::Identical,
                            }),
                            _ if self.a.label(cx) != self.b.label(cy) => {
                                ops.push(EditOp::Relabel {
                                    a: cx,
                                    b: cy,
                                    cost: c,
                                })
                            }
                            _ => next.push((cx, cy)),
                        }
                        i -= 1;
                        j -= 1;
                        continue;
                    }
                }
                if i > 0 && t[(i - 1) * w + j] + self.a.size(xs[i - 1]) == here {
                    ops.push(EditOp::Delete {
                        a: xs[i - 1],
                        cost: self.a.size(xs[i - 1]),
                    });
                    i -= 1;
                } else {
                    ops.push(EditOp::Insert {
                        b: ys[j - 1],
                        cost: self.b.size(ys[j - 1]),
                    });
                    j -= 1;
                }
            }
            // Found right to left: give them back in document order.
            out.ops.extend(ops.into_iter().rev());
            out.pairs.extend(pairs.into_iter().rev());
            todo.extend(next);
        }
    }
}

#[cfg(test)]
mod tests;
