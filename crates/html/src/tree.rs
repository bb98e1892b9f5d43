//! The structural tree of a page: a compact, preorder, index-based arena.
//!
//! Owns node labels, parents, subtree sizes, depths and structural hashes. It does not own text,
//! attributes or links (those live in [`crate::Page`]): RTDM compares structure only.
//!
//! Nodes are stored in preorder, so the subtree of node `i` is the index range `i .. i + size(i)`,
//! its first child is `i + 1` (when `size(i) > 1`) and the next sibling of a child `c` is
//! `c + size(c)`. No child lists are needed, the tree is a handful of flat vectors, and it
//! serializes as plain data (no lifetimes), so it crosses the wasm boundary and `snapshot()`s as is.

use serde::{Deserialize, Serialize};

/// An interned node label: the FNV-1a hash of an element's lower-case tag name, or
/// [`Label::TEXT`] for a non-whitespace text node.
///
/// Hashing instead of a process-wide interner keeps labels stable across trees, processes and the
/// wasm boundary with no shared state; a test checks the standard HTML tags do not collide.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Label(pub u32);

impl Label {
    /// The label of a text node with non-whitespace content.
    pub const TEXT: Label = Label(0);

    /// The label of an element with this (already lower-case) tag name; `"#text"` gives
    /// [`Label::TEXT`].
    pub fn of(name: &str) -> Label {
        if name == "#text" {
            return Label::TEXT;
        }
        Label::of_bytes(name.bytes())
    }

    /// The label of the name spelled by `bytes` (as [`Label::of`], without building a string).
    pub fn of_bytes(bytes: impl IntoIterator<Item = u8>) -> Label {
        let mut h: u32 = 0x811c_9dc5;
        for b in bytes {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
        // Keep 0 for text.
        Label(if h == 0 { 1 } else { h })
    }
}

/// Index of a node in a [`Tree`] (preorder position).
pub type NodeId = u32;

/// A labelled ordered tree in preorder layout. See the module docs for the layout invariants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tree {
    labels: Vec<Label>,
    sizes: Vec<u32>,
    parents: Vec<u32>,
    depths: Vec<u32>,
    hashes: Vec<u64>,
    /// Names of the labels used in this tree, for display (`(label, name)`, sorted by label).
    names: Vec<(Label, String)>,
    /// Optional finer labels, one per node: the tag plus its template class tokens
    /// (`div.refentry`), set by the page parser; empty when absent. See
    /// [`Tree::class_labels`].
    #[serde(default)]
    class_labels: Vec<Label>,
    /// Optional kind labels, one per node, set by the page parser only when some element's id
    /// names the page with a kind prefix (`section#module-` for `id="module-json"` on
    /// `json.html`); empty otherwise. See [`Tree::kind_labels`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    kind_labels: Vec<Label>,
    /// Kind prefixes the page's ids declare (`module-` for `id="module-xml.parsers.expat"`),
    /// sorted; ids that spell a heading of the page are content, not kinds. See
    /// [`Tree::id_prefixes`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    id_prefixes: Vec<String>,
}

/// At most this many id prefixes are kept per page ([`Tree::id_prefixes`]).
pub const MAX_ID_PREFIXES: usize = 512;
/// Longer id prefixes are not kept ([`Tree::id_prefixes`]).
pub const MAX_ID_PREFIX_LEN: usize = 48;

/// Parts of a chained tree ([`Tree::chained_parts`]).
pub struct Chained {
    /// The chained node that starts each node's chain, then the chained tree's size: node `i`'s
    /// chain is `top[i]..top[i + 1]`.
    pub top: Vec<u32>,
    /// Subtree size of every chained node, in preorder.
    pub sizes: Vec<u32>,
    /// Structural hash of every chained node, in preorder.
    pub hashes: Vec<u64>,
}

/// Marker for "no parent" in [`Tree::parent`]'s storage.
const NONE: u32 = u32::MAX;

/// Errors building a [`Tree`] from untrusted parts (deserialized data, generated shapes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeError(String);

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid tree: {}", self.0)
    }
}

impl std::error::Error for TreeError {}

impl Tree {
    /// Builds a tree from labels and parent links given in preorder (`parents[0]` is `None`, every
    /// other node's parent comes before it and the parent chain of node `i` contains `i - 1`'s
    /// ancestors or `i - 1` itself, as preorder requires). Sizes, depths and hashes are computed.
    ///
    /// # Errors
    /// When the sequence is empty or not a preorder of one tree.
    pub fn from_preorder(
        labels: Vec<Label>,
        parents: &[Option<NodeId>],
        names: Vec<(Label, String)>,
    ) -> Result<Tree, TreeError> {
        let n = labels.len();
        if n == 0 || parents.len() != n {
            return Err(TreeError(
                "empty tree or labels/parents length mismatch".into(),
            ));
        }
        if n >= NONE as usize {
            return Err(TreeError("too many nodes".into()));
        }
        if parents[0].is_some() {
            return Err(TreeError("the first node must be the root".into()));
        }
        let mut par = vec![NONE; n];
        let mut depths = vec![0u32; n];
        // `path` is the chain of open ancestors of the previous node (root first).
        let mut path: Vec<u32> = vec![0];
        for i in 1..n {
            let Some(p) = parents[i] else {
                return Err(TreeError(format!(
                    "node {i} has no parent but is not the root"
                )));
            };
            while path.last().is_some_and(|&top| top != p) {
                path.pop();
            }
            if path.is_empty() {
                return Err(TreeError(format!(
                    "node {i}: parent {p} is not an open ancestor"
                )));
            }
            par[i] = p;
            depths[i] = path.len() as u32;
            path.push(i as u32);
        }
        Ok(Tree::finish(labels, par, depths, names))
    }

    /// Computes sizes and hashes bottom-up (reverse preorder visits children before parents).
    fn finish(
        labels: Vec<Label>,
        parents: Vec<u32>,
        depths: Vec<u32>,
        mut names: Vec<(Label, String)>,
    ) -> Tree {
        let n = labels.len();
        let mut sizes = vec![1u32; n];
        for i in (1..n).rev() {
            let p = parents[i] as usize;
            sizes[p] += sizes[i];
        }
        let mut hashes = vec![0u64; n];
        for i in (0..n).rev() {
            let mut h = mix(0x9e37_79b9_7f4a_7c15 ^ u64::from(labels[i].0));
            let end = i + sizes[i] as usize;
            let mut c = i + 1;
            while c < end {
                h = mix(h.rotate_left(5) ^ hashes[c]);
                c += sizes[c] as usize;
            }
            hashes[i] = mix(h ^ u64::from(sizes[i]));
        }
        names.sort();
        names.dedup_by(|a, b| a.0 == b.0);
        Tree {
            labels,
            sizes,
            parents,
            depths,
            hashes,
            names,
            class_labels: Vec::new(),
            kind_labels: Vec::new(),
            id_prefixes: Vec::new(),
        }
    }

    /// Attaches finer labels (one per node, e.g. tag plus class tokens) and their names.
    ///
    /// # Errors
    /// When `labels` does not have one entry per node.
    pub fn with_class_labels(
        mut self,
        labels: Vec<Label>,
        names: Vec<(Label, String)>,
    ) -> Result<Tree, TreeError> {
        if labels.len() != self.len() {
            return Err(TreeError("class labels: one per node expected".into()));
        }
        self.class_labels = labels;
        self.names.extend(names);
        self.names.sort();
        self.names.dedup_by(|a, b| a.0 == b.0);
        Ok(self)
    }

    /// Attaches kind labels (one per node: the class label, or the class label plus the kind of
    /// an id that names the page) and their names. An empty `labels` removes them.
    ///
    /// # Errors
    /// When `labels` is neither empty nor one per node.
    pub fn with_kind_labels(
        mut self,
        labels: Vec<Label>,
        names: Vec<(Label, String)>,
    ) -> Result<Tree, TreeError> {
        if !labels.is_empty() && labels.len() != self.len() {
            return Err(TreeError("kind labels: one per node expected".into()));
        }
        self.kind_labels = labels;
        self.names.extend(names);
        self.names.sort();
        self.names.dedup_by(|a, b| a.0 == b.0);
        Ok(self)
    }

    /// Attaches the kind prefixes the page's ids declare (see [`Tree::id_prefixes`]); kept
    /// sorted, distinct and bounded ([`MAX_ID_PREFIXES`] of at most [`MAX_ID_PREFIX_LEN`] bytes).
    pub fn with_id_prefixes(mut self, mut prefixes: Vec<String>) -> Tree {
        prefixes.retain(|p| !p.is_empty() && p.len() <= MAX_ID_PREFIX_LEN);
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes.truncate(MAX_ID_PREFIXES);
        self.id_prefixes = prefixes;
        self
    }

    /// The kind prefixes the page's ids declare: for every element id that is not a heading's
    /// slug, its leading parts up to each separator (`module-`, `module-xml.` for
    /// `module-xml.parsers.expat`). A page of the example's kind declares the example's kind
    /// prefix even when the id does not end with the page's own name (Sphinx documents
    /// `xml.parsers.expat` on `pyexpat.html`).
    pub fn id_prefixes(&self) -> &[String] {
        &self.id_prefixes
    }

    /// Whether one of the page's ids declares the kind prefix `prefix` ([`Tree::id_prefixes`]).
    pub fn declares_prefix(&self, prefix: &str) -> bool {
        self.id_prefixes
            .binary_search_by(|p| p.as_str().cmp(prefix))
            .is_ok()
    }

    /// The kind labels set by [`Tree::with_kind_labels`] (empty when the page has no element
    /// whose id is a kind prefix plus the page's own name): an element's class label, refined
    /// for such elements with the kind (`section#module-`).
    pub fn kind_labels(&self) -> &[Label] {
        &self.kind_labels
    }

    /// The finer labels set by [`Tree::with_class_labels`] (empty when none): an element's tag
    /// plus its class tokens but those naming the page (`div.refentry`; `postid-42` and
    /// `page-cpp_algorithm_sort` on `sort.html` are dropped), which carry the template a page
    /// generator used.
    pub fn class_labels(&self) -> &[Label] {
        &self.class_labels
    }

    /// Checks the invariants of a deserialized tree (lengths, preorder layout, sizes, hashes),
    /// rebuilding it from labels and parents; use before trusting a tree from outside.
    ///
    /// # Errors
    /// When the parts are inconsistent.
    pub fn validated(self) -> Result<Tree, TreeError> {
        let n = self.labels.len();
        if self.parents.len() != n {
            return Err(TreeError("labels/parents length mismatch".into()));
        }
        let parents: Vec<Option<NodeId>> = self
            .parents
            .iter()
            .map(|&p| if p == NONE { None } else { Some(p) })
            .collect();
        let class_labels = self.class_labels;
        let kind_labels = self.kind_labels;
        let id_prefixes = self.id_prefixes;
        let t = Tree::from_preorder(self.labels, &parents, self.names)?;
        let t = if class_labels.is_empty() {
            t
        } else {
            t.with_class_labels(class_labels, Vec::new())?
        };
        Ok(t.with_kind_labels(kind_labels, Vec::new())?
            .with_id_prefixes(id_prefixes))
    }

    /// The tree with node `i` replaced by a chain of `weights[i]` nodes with its label (at least
    /// one), the last of which holds its children: what [`Tree::from_preorder`] builds from that
    /// expansion, computed in one pass from this tree's sizes and hashes instead of walked
    /// again (node weights as shape, `similarity::View::weigh`). Class and kind labels and id
    /// prefixes are not carried over. `None` when `weights` is not one per node or the
    /// expansion would not fit a tree.
    pub fn chained(&self, weights: &[u32]) -> Option<Tree> {
        let Chained { top, sizes, hashes } = self.chained_parts(weights)?;
        let total = sizes.len();
        let mut labels = Vec::with_capacity(total);
        let mut parents = Vec::with_capacity(total);
        let mut depths = Vec::with_capacity(total);
        for (i, chain) in top.windows(2).enumerate() {
            let first = chain[0];
            let (parent, depth) = match self.parent(i as NodeId) {
                // Hangs from the last node of its parent's chain.
                Some(p) => {
                    let bottom = top[p as usize + 1] - 1;
                    (bottom, depths[bottom as usize] + 1)
                }
                None => (NONE, 0),
            };
            for j in 0..chain[1] - first {
                labels.push(self.labels[i]);
                parents.push(if j == 0 { parent } else { first + j - 1 });
                depths.push(depth + j);
            }
        }
        Some(Tree {
            labels,
            sizes,
            parents,
            depths,
            hashes,
            names: self.names.clone(),
            class_labels: Vec::new(),
            kind_labels: Vec::new(),
            id_prefixes: Vec::new(),
        })
    }

    /// Sizes and structural hashes of [`Tree::chained`]'s nodes, and where each node's chain
    /// starts: what RTDM's children lists need, without the rest of the tree
    /// (`rtdm::Rtdm::compare_chained`).
    pub fn chained_parts(&self, weights: &[u32]) -> Option<Chained> {
        let n = self.len();
        if weights.len() != n {
            return None;
        }
        let w = |i: usize| weights[i].max(1);
        // Chained subtree sizes, bottom-up, in u64 so the bound below is checked, not wrapped.
        let mut sub: Vec<u64> = (0..n).map(|i| u64::from(w(i))).collect();
        for i in (1..n).rev() {
            let p = self.parents[i] as usize;
            sub[p] += sub[i];
        }
        if sub[0] >= u64::from(NONE) {
            return None;
        }
        let total = sub[0] as usize;
        // First node of each node's chain (preorder: a chain, then its subtrees), and the end.
        let mut next = 0u32;
        let mut top: Vec<u32> = Vec::with_capacity(n + 1);
        for i in 0..n {
            top.push(next);
            next += w(i);
        }
        top.push(next);
        let mut sizes = Vec::with_capacity(total);
        for (i, &s) in sub.iter().enumerate() {
            sizes.extend((0..w(i)).map(|j| (s - u64::from(j)) as u32));
        }
        // Hashes as `finish` computes them: children before parents (reverse preorder of the
        // tree), a chain from its bottom up.
        let mut hashes = vec![0u64; total];
        for i in (0..n).rev() {
            let seed = mix(0x9e37_79b9_7f4a_7c15 ^ u64::from(self.labels[i].0));
            let bottom = top[i + 1] as usize - 1;
            let mut h = seed;
            for c in self.children(i as NodeId) {
                h = mix(h.rotate_left(5) ^ hashes[top[c as usize] as usize]);
            }
            hashes[bottom] = mix(h ^ u64::from(sizes[bottom]));
            for k in (top[i] as usize..bottom).rev() {
                let h = mix(seed.rotate_left(5) ^ hashes[k + 1]);
                hashes[k] = mix(h ^ u64::from(sizes[k]));
            }
        }
        Some(Chained { top, sizes, hashes })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Always false: a tree has a root.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The root node (0).
    pub fn root(&self) -> NodeId {
        0
    }

    /// Label of `node`.
    pub fn label(&self, node: NodeId) -> Label {
        self.labels[node as usize]
    }

    /// All labels in preorder.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Subtree size of `node` (itself included).
    pub fn size(&self, node: NodeId) -> u32 {
        self.sizes[node as usize]
    }

    /// All subtree sizes in preorder.
    pub fn sizes(&self) -> &[u32] {
        &self.sizes
    }

    /// Depth of `node` (root 0).
    pub fn depth(&self, node: NodeId) -> u32 {
        self.depths[node as usize]
    }

    /// Structural hash of the subtree at `node`: equal for identical labelled subtrees.
    pub fn hash(&self, node: NodeId) -> u64 {
        self.hashes[node as usize]
    }

    /// All subtree hashes in preorder.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Parent of `node`, `None` for the root.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        let p = self.parents[node as usize];
        (p != NONE).then_some(p)
    }

    /// Children of `node`, in order.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: node + 1,
            end: node + self.sizes[node as usize],
        }
    }

    /// Number of children of `node`.
    pub fn child_count(&self, node: NodeId) -> usize {
        self.children(node).count()
    }

    /// Maximum depth over all nodes.
    pub fn height(&self) -> u32 {
        self.depths.iter().copied().max().unwrap_or(0)
    }

    /// Display name of a label used in this tree (`"#text"` for text).
    pub fn label_name(&self, label: Label) -> &str {
        if label == Label::TEXT {
            return "#text";
        }
        match self.names.binary_search_by_key(&label, |(l, _)| *l) {
            Ok(i) => &self.names[i].1,
            Err(_) => "?",
        }
    }

    /// Display name of `node`'s label.
    pub fn name(&self, node: NodeId) -> &str {
        self.label_name(self.label(node))
    }

    /// An indented outline of the tree (one node per line), for debugging and tests.
    pub fn outline(&self) -> String {
        let mut out = String::new();
        for i in 0..self.len() as u32 {
            for _ in 0..self.depth(i) {
                out.push_str("  ");
            }
            out.push_str(self.name(i));
            out.push('\n');
        }
        out
    }
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    tree: &'a Tree,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let c = self.next;
        self.next += self.tree.sizes[c as usize];
        Some(c)
    }
}

/// SplitMix64 finaliser: a fast, well-distributed 64-bit mixer.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Builds a tree from a nested text form `a(b c(d))`, labels by name. For tests, examples and
/// docs: `Tree::parse_shape("html(head body(div(#text) div))")`.
///
/// # Errors
/// On unbalanced parentheses or an empty input.
impl Tree {
    pub fn parse_shape(s: &str) -> Result<Tree, TreeError> {
        let mut labels = Vec::new();
        let mut parents: Vec<Option<NodeId>> = Vec::new();
        let mut names = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        let mut last: Option<u32> = None;
        let mut chars = s.char_indices().peekable();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '(' => {
                    let Some(l) = last else {
                        return Err(TreeError(format!("'(' without a label at {i}")));
                    };
                    stack.push(l);
                }
                ')' => {
                    if stack.pop().is_none() {
                        return Err(TreeError(format!("unbalanced ')' at {i}")));
                    }
                }
                c if c.is_whitespace() || c == ',' => {}
                _ => {
                    let start = i;
                    let mut end = i + ch.len_utf8();
                    while let Some(&(j, c)) = chars.peek() {
                        if c == '(' || c == ')' || c == ',' || c.is_whitespace() {
                            break;
                        }
                        end = j + c.len_utf8();
                        chars.next();
                    }
                    let name = &s[start..end];
                    if stack.is_empty() && !labels.is_empty() {
                        return Err(TreeError("more than one root".into()));
                    }
                    let label = Label::of(name);
                    labels.push(label);
                    names.push((label, name.to_string()));
                    parents.push(stack.last().copied());
                    last = Some(labels.len() as u32 - 1);
                }
            }
        }
        if !stack.is_empty() {
            return Err(TreeError("unbalanced '('".into()));
        }
        Tree::from_preorder(labels, &parents, names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preorder_layout_sizes_depths() {
        let t = Tree::parse_shape("html(head(title) body(div(#text) div p(a a)))").unwrap();
        assert_eq!(t.len(), 10);
        assert_eq!(t.size(0), 10);
        assert_eq!(t.name(1), "head");
        assert_eq!(
            t.children(0).map(|c| t.name(c)).collect::<Vec<_>>(),
            ["head", "body"]
        );
        let body = 3;
        assert_eq!(t.child_count(body), 3);
        assert_eq!(t.depth(8), 3);
        assert_eq!(t.parent(8), Some(7));
        assert_eq!(t.height(), 3);
    }

    /// The chain expansion written out node by node and built by `from_preorder`.
    fn chained_by_hand(t: &Tree, weights: &[u32]) -> Tree {
        let mut labels = Vec::new();
        let mut parents: Vec<Option<NodeId>> = Vec::new();
        let mut bottom = vec![0; t.len()];
        for i in 0..t.len() {
            let mut parent = t.parent(i as NodeId).map(|p| bottom[p as usize]);
            for _ in 0..weights[i].max(1) {
                labels.push(t.label(i as NodeId));
                parents.push(parent);
                parent = Some(labels.len() as NodeId - 1);
            }
            bottom[i] = labels.len() as NodeId - 1;
        }
        Tree::from_preorder(labels, &parents, t.names.clone()).unwrap()
    }

    proptest::proptest! {
        /// One pass over sizes and hashes builds what the node-by-node expansion builds:
        /// labels, parents, depths, sizes and structural hashes alike.
        #[test]
        fn a_chained_tree_is_its_expansion_built_node_by_node(
            shape in proptest::collection::vec((0u8..6, 0usize..4, 0u32..5), 0..40),
        ) {
            let names = ["a", "b", "c", "#text"];
            let mut labels = vec![Label::of("r")];
            let mut parents: Vec<Option<NodeId>> = vec![None];
            let mut weights = vec![3];
            let mut path: Vec<NodeId> = vec![0];
            for (k, &(up, name, weight)) in shape.iter().enumerate() {
                path.truncate(path.len() - (up as usize % path.len()));
                labels.push(Label::of(names[name]));
                parents.push(path.last().copied());
                weights.push(weight);
                path.push(k as NodeId + 1);
            }
            let names = names.iter().filter(|n| **n != "#text").map(|n| (Label::of(n), n.to_string()));
            let t = Tree::from_preorder(labels, &parents, names.collect()).unwrap();
            proptest::prop_assert_eq!(t.chained(&weights), Some(chained_by_hand(&t, &weights)));
            proptest::prop_assert_eq!(t.chained(&weights[1..]), None);
        }
    }

    #[test]
    fn identical_subtrees_hash_equal_and_different_ones_differ() {
        let t = Tree::parse_shape("r(a(b c) a(b c) a(c b) a(b))").unwrap();
        let kids: Vec<_> = t.children(0).collect();
        assert_eq!(t.hash(kids[0]), t.hash(kids[1]));
        assert_ne!(t.hash(kids[0]), t.hash(kids[2]));
        assert_ne!(t.hash(kids[0]), t.hash(kids[3]));
    }

    #[test]
    fn standard_tags_do_not_collide() {
        let tags = include_str!("../../../data/html-tags.txt");
        let mut seen = std::collections::HashMap::new();
        for tag in tags.split_whitespace() {
            let l = Label::of(tag);
            assert_ne!(l, Label::TEXT, "{tag}");
            if let Some(other) = seen.insert(l, tag) {
                panic!("label collision: {tag} / {other}");
            }
        }
        assert!(seen.len() > 100);
    }

    #[test]
    fn rejects_bad_shapes_and_bad_preorders() {
        assert!(Tree::parse_shape("").is_err());
        assert!(Tree::parse_shape("a(b").is_err());
        assert!(Tree::parse_shape("a b").is_err());
        let l = vec![Label(1), Label(2), Label(3)];
        // Node 2's parent 1 is not open after... it is; but a parent after the child is not.
        assert!(Tree::from_preorder(l.clone(), &[None, Some(2), Some(0)], vec![]).is_err());
        assert!(Tree::from_preorder(l, &[None, Some(0), None], vec![]).is_err());
    }

    #[test]
    fn serde_round_trip_and_validation() {
        let t = Tree::parse_shape("a(b(c) d)").unwrap();
        let json = serde_json::to_string(&t).unwrap();
        let back: Tree = serde_json::from_str(&json).unwrap();
        assert_eq!(back.clone().validated().unwrap(), t);
    }
}
