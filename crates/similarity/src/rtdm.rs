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
mod tests {
    use super::*;

    fn t(s: &str) -> Tree {
        Tree::parse_shape(s).unwrap()
    }

    fn d(a: &str, b: &str) -> u32 {
        let (a, b) = (t(a), t(b));
        let v = distance(&a, &b);
        assert_eq!(distance(&b, &a), v, "symmetry");
        assert_eq!(Prepared::new(a).distance(&Prepared::new(b)), v, "prepared");
        v
    }

    #[test]
    fn identical_trees_are_at_distance_zero() {
        let a = t("html(head(title) body(div(p(#text) p) ul(li li li)))");
        let c = compare(&a, &a.clone());
        assert_eq!(c.distance, 0);
        assert_eq!(c.similarity, 1.0);
        assert_eq!((c.size_a, c.size_b), (12, 12));
        assert!(is_similar(&a, &a, 1.0));
    }

    #[test]
    fn different_roots_cost_both_trees() {
        assert_eq!(d("a(b c)", "x(b c)"), 6);
        assert_eq!(similarity(&t("a(b c)"), &t("x(b c)")), 0.0);
        assert_eq!(d("a", "b(c)"), 3);
    }

    #[test]
    fn hand_computed_cases() {
        // A leaf inserted.
        assert_eq!(d("a(b c)", "a(b x c)"), 1);
        assert_eq!(d("a", "a(b)"), 1);
        // A subtree of size 3 replaced by a different-label subtree of size 2.
        assert_eq!(d("r(k b(c d) k)", "r(k x(c) k)"), 5);
        // Swapped children: delete one, insert it again.
        assert_eq!(d("a(b c)", "a(c b)"), 2);
        // A leaf deleted deep inside.
        assert_eq!(d("a(b(c d))", "a(b(c))"), 1);
        assert_eq!(d("a(b(c(e f) d))", "a(b(c(e) d))"), 1);
        // An inner relabel replaces the whole subtree.
        assert_eq!(d("a(b(c d))", "a(x(c d))"), 6);
        // Same label, different shape: b(c(d)) vs b(c d) → match c, delete d under c, insert d.
        assert_eq!(d("a(b(c(d)))", "a(b(c d))"), 2);
        // Children of different labels: replacing costs more than delete + insert never.
        assert_eq!(d("a(b c)", "a(d e)"), 4);
    }

    #[test]
    fn prefix_and_suffix_stripping_cases() {
        assert_eq!(d("a(p p p x p p)", "a(p p p p p)"), 1);
        assert_eq!(d("a(p p p)", "a(p p p p p p)"), 3);
        assert_eq!(d("a(q(r) p p)", "a(p p q(r))"), 4);
        assert_eq!(d("a(b(c) b(c) b(c d))", "a(b(c d) b(c) b(c))"), 2);
    }

    #[test]
    fn bounded_distance_is_min_of_distance_and_budget() {
        let (a, b) = (t("a(b(c d e) f g(h))"), t("a(b(c) g(h i) j)"));
        let full = distance(&a, &b);
        assert_eq!(full, 5);
        for k in 0..12 {
            assert_eq!(distance_bounded(&a, &b, k), full.min(k), "budget {k}");
        }
        assert_eq!(distance_bounded(&a, &t("z"), 3), 3);
        assert_eq!(distance_bounded(&a, &a, 5), 0);
    }

    #[test]
    fn decision_mode_matches_similarity() {
        let a = t("a(b c d e)");
        let b = t("a(b c d x)");
        assert_eq!(distance(&a, &b), 2);
        let b = t("a(b c d)");
        let s = similarity(&a, &b);
        assert_eq!(distance(&a, &b), 1);
        assert!(is_similar(&a, &b, s));
        assert!(!is_similar(&a, &b, s + 1e-12));
        assert!(is_similar(&a, &b, 0.0));
        assert!(is_similar(&a, &b, -3.0));
        assert!(!is_similar(&a, &b, 1.0));
        assert!(!is_similar(&a, &b, f64::NAN));
        assert!(!is_similar(&a, &a, 1.5));
        assert!(is_similar(&a, &t("z"), 0.0));
        assert!(!is_similar(&a, &t("z"), 1e-9));
    }

    #[test]
    fn max_distance_is_consistent_with_similarity() {
        for total in [1u32, 2, 3, 7, 10, 100, 999, 2000, 1 << 20] {
            for k in 0..=20 {
                let theta = f64::from(k) / 20.0;
                let max = max_distance(total, 0, theta).unwrap();
                let sim = |d: u32| similarity_of(u64::from(d), u64::from(total));
                assert!(sim(max) >= theta);
                assert!(max == total || sim(max + 1) < theta, "{total} {theta}");
            }
        }
        assert_eq!(max_distance(5, 5, 0.9), Some(1));
        assert_eq!(max_distance(5, 5, 0.7), Some(3));
        assert_eq!(max_distance(5, 5, 1.0), Some(0));
        assert_eq!(max_distance(5, 5, 1.01), None);
        assert_eq!(max_distance(5, 5, f64::NAN), None);
        assert_eq!(max_distance(5, 5, -1.0), Some(10));
    }

    fn chain(depth: usize, bottom: &str) -> Tree {
        let mut labels = vec![Label::of("a"); depth];
        labels.push(Label::of(bottom));
        let parents: Vec<Option<NodeId>> = (0..=depth)
            .map(|i| i.checked_sub(1).map(|p| p as NodeId))
            .collect();
        Tree::from_preorder(labels, &parents, vec![]).unwrap()
    }

    #[test]
    fn deep_chains_do_not_overflow_the_stack() {
        let n = 100_000;
        let (a, b) = (chain(n, "b"), chain(n, "c"));
        assert_eq!(distance(&a, &b), 2);
        assert_eq!(distance_bounded(&a, &b, 1), 1);
        assert!(is_similar(&a, &b, 0.99));
        // A low threshold goes through the upper bound first.
        assert!(is_similar(&a, &b, 0.3));
        assert_eq!(upper_bound(&a, &b, u32::MAX), 2);
        // A leaf under a leaf costs 1; a leaf `b` against a chain `a(b)` costs 3 (top-down).
        assert_eq!(distance(&a, &chain(n - 1, "b")), 3);
        let (a, c) = (chain(n, "a"), chain(n - 1, "a"));
        assert_eq!(distance(&a, &c), 1);
        let (pa, pc) = (Prepared::new(a), Prepared::new(c));
        assert_eq!(pa.compare(&pc).distance, 1);
        assert_eq!(pa.distance_bounded(&pc, 7), 1);
    }

    /// `a(x a(x a(… a(x))))`, `depth` levels of an `a` with a leaf `x` and the next level.
    fn comb(depth: usize, leaf: &str) -> Tree {
        let mut labels = Vec::new();
        let mut parents: Vec<Option<NodeId>> = Vec::new();
        for k in 0..depth {
            let a = labels.len() as NodeId;
            labels.push(Label::of("a"));
            parents.push(k.checked_sub(1).map(|_| a - 2));
            labels.push(Label::of(leaf));
            parents.push(Some(a));
        }
        Tree::from_preorder(labels, &parents, vec![]).unwrap()
    }

    #[test]
    fn deep_combs_use_the_explicit_stack() {
        // Every level is a 2×2 alignment that recurses into the next level: 100,000 frames.
        let n = 100_000;
        let (a, b) = (comb(n, "x"), comb(n, "y"));
        assert_eq!(a.height() as usize, n);
        assert_eq!(distance(&a, &b), 2 * n as u32);
        assert_eq!(distance_bounded(&a, &b, 1_000), 1_000);
        assert!(is_similar(&a, &b, 0.49));
        assert!(!is_similar(&a, &b, 0.51));
        assert!(!is_similar(&a, &b, 0.7));
        assert_eq!(upper_bound(&a, &b, u32::MAX), 2 * n as u32);
        let c = comb(n - 1, "x");
        assert_eq!(distance(&a, &c), 2);
        assert_eq!(Prepared::new(c).distance(&Prepared::new(a)), 2);
        // The workspace gives the deep stack back afterwards.
        let mut ws = Rtdm::new();
        let (pa, pb) = (Prepared::new(comb(n, "x")), Prepared::new(comb(n, "y")));
        assert_eq!(ws.distance(&pa, &pb), 2 * n as u32);
        let small = Prepared::new(t("a(b c)"));
        assert_eq!(ws.distance(&small, &Prepared::new(t("a(c)"))), 1);
        assert!(ws.core.frames.capacity() <= KEEP_FRAMES);
    }

    #[test]
    fn workspace_is_reusable_and_prepared_agrees() {
        let trees: Vec<Tree> = [
            "a(b c(d e) f)",
            "a(b c(d) f g)",
            "a(c(d e) f)",
            "x(b)",
            "a",
            "a(b(c(d(e))))",
        ]
        .iter()
        .map(|s| t(s))
        .collect();
        let prepared: Vec<Prepared> = trees.iter().cloned().map(Prepared::new).collect();
        let mut ws = Rtdm::new();
        for (a, pa) in trees.iter().zip(&prepared) {
            for (b, pb) in trees.iter().zip(&prepared) {
                let c = compare(a, b);
                assert_eq!(ws.compare(pa, pb), c);
                assert_eq!(pa.compare(pb), c);
                assert_eq!(ws.tree_distance(a, b), c.distance);
                for k in 0..6 {
                    assert_eq!(ws.distance_bounded(pa, pb, k), c.distance.min(k));
                }
                for theta in [0.0, 0.5, 0.8, 0.9, 1.0] {
                    let expected = c.similarity >= theta;
                    assert_eq!(ws.is_similar(pa, pb, theta), expected);
                    assert_eq!(ws.tree_is_similar(a, b, theta), expected);
                }
            }
        }
    }

    #[test]
    fn comparison_serializes_in_camel_case() {
        let c = compare(&t("a(b)"), &t("a"));
        let json = serde_json::to_string(&c).unwrap();
        assert!(
            json.contains("\"sizeA\":2") && json.contains("\"sizeB\":1"),
            "{json}"
        );
        let back: Comparison = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }
    /// Every node of `a` is matched, inside an identical or cut pair, or deleted (and likewise
    /// for `b`), exactly once; returns the sum of the operations' costs.
    fn check_mapping(a: &Tree, b: &Tree) -> Mapping {
        let m = mapping(a, b);
        let mut seen_a = vec![0u32; a.len()];
        let mut seen_b = vec![0u32; b.len()];
        let cover = |seen: &mut Vec<u32>, tree: &Tree, root: NodeId| {
            for k in root..root + tree.size(root) {
                seen[k as usize] += 1;
            }
        };
        for p in &m.pairs {
            assert_eq!(a.label(p.a), b.label(p.b), "matched labels");
            match p.kind {
                PairKind::Identical => {
                    assert_eq!((a.hash(p.a), a.size(p.a)), (b.hash(p.b), b.size(p.b)));
                    cover(&mut seen_a, a, p.a);
                    cover(&mut seen_b, b, p.b);
                }
                PairKind::Matched => {
                    seen_a[p.a as usize] += 1;
                    seen_b[p.b as usize] += 1;
                }
            }
        }
        for op in &m.ops {
            match *op {
                EditOp::Delete { a: x, cost } => {
                    assert_eq!(cost, a.size(x));
                    cover(&mut seen_a, a, x);
                }
                EditOp::Insert { b: y, cost } => {
                    assert_eq!(cost, b.size(y));
                    cover(&mut seen_b, b, y);
                }
                EditOp::Relabel { a: x, b: y, cost } => {
                    assert_ne!(a.label(x), b.label(y));
                    assert_eq!(cost, a.size(x) + b.size(y));
                    cover(&mut seen_a, a, x);
                    cover(&mut seen_b, b, y);
                }
            }
        }
        assert!(seen_a.iter().all(|&c| c == 1), "a covered once: {seen_a:?}");
        assert!(seen_b.iter().all(|&c| c == 1), "b covered once: {seen_b:?}");
        let cost: u32 = m.ops.iter().map(EditOp::cost).sum();
        assert_eq!(cost, m.distance);
        assert_eq!(
            m.distance,
            distance(a, b),
            "the script costs the RTDM distance"
        );
        m
    }

    /// Pairs with equal roots: insertions, deletions, relabels, reorderings, repeated siblings.
    const HAND_PAIRS: [(&str, &str); 9] = [
        ("a(b c)", "a(b x c)"),
        ("r(k b(c d) k)", "r(k x(c) k)"),
        ("a(b c)", "a(c b)"),
        ("a(b(c(e f) d))", "a(b(c(e) d))"),
        ("a(b(c d))", "a(x(c d))"),
        ("a(b(c(d)))", "a(b(c d))"),
        ("a(q(r) p p)", "a(p p q(r))"),
        ("a(b(c) b(c) b(c d))", "a(b(c d) b(c) b(c))"),
        ("a", "a(b(c))"),
    ];

    #[test]
    fn mapping_costs_the_distance_on_hand_cases() {
        let extra = [("a(b c)", "x(b c)"), ("a", "a")];
        for &(x, y) in HAND_PAIRS.iter().chain(&extra) {
            check_mapping(&t(x), &t(y));
        }
        let m = check_mapping(&t("a(b(c d))"), &t("a(x(c d))"));
        assert_eq!(
            m.ops,
            vec![EditOp::Relabel {
                a: 1,
                b: 1,
                cost: 6
            }]
        );
        let m = check_mapping(&t("a(b c)"), &t("a(b x c)"));
        assert_eq!(m.ops, vec![EditOp::Insert { b: 2, cost: 1 }]);
        assert_eq!(m.pairs.len(), 3);
        assert!(mapping(&t("a"), &t("a")).ops.is_empty());
    }

    #[test]
    fn mapping_of_deep_trees_does_not_overflow_the_stack() {
        let n = 20_000;
        check_mapping(&comb(n, "x"), &comb(n - 1, "x"));
        check_mapping(&chain(n, "b"), &chain(n, "c"));
    }

    /// A random tree of at most `n` nodes over a few labels, from a seed.
    fn random_tree(seed: &[u8]) -> Tree {
        let names = ["a", "b", "c", "d"];
        let mut labels = vec![Label::of("r")];
        let mut parents: Vec<Option<NodeId>> = vec![None];
        // Preorder: each new node's parent is on the path of the previous node.
        let mut path: Vec<NodeId> = vec![0];
        for (k, &byte) in seed.iter().enumerate() {
            let up = (byte >> 4) as usize % (path.len());
            path.truncate(path.len() - up);
            let node = (k + 1) as NodeId;
            labels.push(Label::of(names[(byte & 3) as usize]));
            parents.push(path.last().copied());
            path.push(node);
        }
        Tree::from_preorder(labels, &parents, vec![]).unwrap()
    }

    /// [`Core::upper`] on two trees (the value for roots it does not handle: the exact one).
    fn upper_bound(a: &Tree, b: &Tree, budget: u32) -> u32 {
        let mut ws = Rtdm::new();
        ws.lists_a.build(a);
        ws.lists_b.build(b);
        let (va, vb) = (ws.lists_a.view(), ws.lists_b.view());
        if a.is_empty() || b.is_empty() || va.root.label != vb.root.label || va.root.same(&vb.root)
        {
            return ws.core.bounded(va, vb, budget);
        }
        ws.core.upper(va, vb, budget)
    }

    #[test]
    fn upper_bound_hand_cases() {
        for &(x, y) in HAND_PAIRS.iter().chain(&[("a(b c d)", "a(e f g)")]) {
            let (a, b) = (t(x), t(y));
            let d = distance(&a, &b);
            let u = upper_bound(&a, &b, u32::MAX);
            assert!(u >= d, "{x} {y}: {u} < {d}");
            // Never worse than deleting and inserting all children.
            assert!(u <= a.size(0) + b.size(0) - 2, "{x} {y}: {u}");
            for k in 0..=u + 1 {
                assert_eq!(upper_bound(&a, &b, k), u.min(k), "{x} {y} budget {k}");
            }
        }
        // On these the estimated alignment is the optimal one.
        assert_eq!(upper_bound(&t("a(b c)"), &t("a(b x c)"), 99), 1);
        assert_eq!(upper_bound(&t("a(b(c(e f) d))"), &t("a(b(c(e) d))"), 99), 1);
        assert_eq!(upper_bound(&t("a(b c d)"), &t("a(e f g)"), 99), 6);
    }

    #[test]
    fn upper_bound_gives_up_on_huge_lists() {
        // 300 × 300 children exceed the alignment matrix: all of them are deleted and inserted.
        let leaves = |l: &str| format!("r({})", vec![l; 300].join(" "));
        let (a, b) = (t(&leaves("x(y)")), t(&leaves("x(z)")));
        assert_eq!(distance(&a, &b), 600);
        assert_eq!(upper_bound(&a, &b, u32::MAX), 1200);
        // The exact computation still answers.
        assert!(is_similar(&a, &b, similarity_of(600, 1202)));
        assert!(!is_similar(&a, &b, similarity_of(599, 1202)));
        assert!(is_similar(&a, &b, similarity_of(1200, 1202)));
    }

    proptest::proptest! {
        /// Children lists built from the tree and its weights are those of the chained tree,
        /// kid by kid, and so compare alike.
        #[test]
        fn chained_lists_are_the_chained_trees(
            x in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            y in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            w in proptest::collection::vec(0u32..6, 40),
        ) {
            let (a, b) = (random_tree(&x), random_tree(&y));
            let weights = &w[..b.len()];
            let chained = b.chained(weights).unwrap();
            let (mut by_tree, mut in_place) = (Lists::default(), Lists::default());
            by_tree.build(&chained);
            in_place.build_chained(&b, &b.chained_parts(weights).unwrap());
            proptest::prop_assert_eq!(&in_place.off, &by_tree.off);
            proptest::prop_assert_eq!(&in_place.kids, &by_tree.kids);
            proptest::prop_assert_eq!(&in_place.classes, &by_tree.classes);
            proptest::prop_assert_eq!(in_place.root, by_tree.root);
            let example = Prepared::new(a);
            proptest::prop_assert_eq!(
                Rtdm::new().compare_chained(&example, &b, weights),
                Some(example.compare(&Prepared::new(chained)))
            );
        }

        #[test]
        fn upper_bound_is_at_least_the_distance(
            x in proptest::collection::vec(proptest::num::u8::ANY, 0..60),
            y in proptest::collection::vec(proptest::num::u8::ANY, 0..60),
            k in 0u32..130,
        ) {
            let (a, b) = (random_tree(&x), random_tree(&y));
            let d = distance(&a, &b);
            let u = upper_bound(&a, &b, u32::MAX);
            proptest::prop_assert!(u >= d, "{} < {}", u, d);
            proptest::prop_assert!(u <= a.size(0) + b.size(0));
            proptest::prop_assert_eq!(upper_bound(&a, &b, k), u.min(k));
            proptest::prop_assert_eq!(upper_bound(&a, &b.clone(), u32::MAX).min(u), u);
            proptest::prop_assert_eq!(upper_bound(&a, &a.clone(), u32::MAX), 0);
            // Decision mode at every distance's threshold and one ulp above it.
            let total = u64::from(a.size(0)) + u64::from(b.size(0));
            for j in 0..=total {
                let theta = similarity_of(j, total);
                proptest::prop_assert_eq!(is_similar(&a, &b, theta), u64::from(d) <= j);
                let above = f64::from_bits(theta.to_bits() + 1);
                proptest::prop_assert_eq!(is_similar(&a, &b, above), u64::from(d) < j);
            }
        }

        #[test]
        fn mapping_script_costs_the_rtdm_distance(
            x in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            y in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let (a, b) = (random_tree(&x), random_tree(&y));
            check_mapping(&a, &b);
            check_mapping(&b, &a);
            check_mapping(&a, &a.clone());
        }
    }
}
