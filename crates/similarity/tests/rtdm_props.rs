//! Property tests of `exemplar_similarity::rtdm` against a slow, obviously-correct reference implementation
//! (plain recursion, full matrix, no hashing, no pruning, no stripping).

use exemplar_html::{Label, NodeId, Tree};
use exemplar_similarity::rtdm::{self, Prepared, Rtdm};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Reference implementation: the definition, transcribed.

fn ref_distance(a: &Tree, b: &Tree) -> u32 {
    if a.label(0) != b.label(0) {
        return a.size(0) + b.size(0);
    }
    ref_rtdm(a, 0, b, 0)
}

/// Children alignment of two nodes with equal labels (identical subtrees come out at 0 by
/// themselves, no shortcut needed).
fn ref_rtdm(a: &Tree, x: NodeId, b: &Tree, y: NodeId) -> u32 {
    let ak: Vec<NodeId> = a.children(x).collect();
    let bk: Vec<NodeId> = b.children(y).collect();
    let mut m = vec![vec![0u32; bk.len() + 1]; ak.len() + 1];
    for i in 1..=ak.len() {
        m[i][0] = m[i - 1][0] + a.size(ak[i - 1]);
    }
    for j in 1..=bk.len() {
        m[0][j] = m[0][j - 1] + b.size(bk[j - 1]);
    }
    for i in 1..=ak.len() {
        for j in 1..=bk.len() {
            let (ai, bj) = (ak[i - 1], bk[j - 1]);
            let cost = if a.label(ai) != b.label(bj) {
                a.size(ai) + b.size(bj)
            } else {
                ref_rtdm(a, ai, b, bj)
            };
            m[i][j] = (m[i - 1][j] + a.size(ai))
                .min(m[i][j - 1] + b.size(bj))
                .min(m[i - 1][j - 1] + cost);
        }
    }
    m[ak.len()][bk.len()]
}

fn ref_similarity(a: &Tree, b: &Tree) -> f64 {
    let total = u64::from(a.size(0)) + u64::from(b.size(0));
    1.0 - f64::from(ref_distance(a, b)) / total as f64
}

// ---------------------------------------------------------------------------------------------
// Random trees: a nested form that is easy to mutate, converted to `Tree` by `from_preorder`.

#[derive(Clone, Debug)]
struct N {
    label: u8,
    kids: Vec<N>,
}

const NAMES: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

fn to_tree(root: &N) -> Tree {
    let mut labels = Vec::new();
    let mut parents: Vec<Option<NodeId>> = Vec::new();
    // Explicit stack so deep mutations are fine too.
    let mut stack: Vec<(&N, Option<NodeId>)> = vec![(root, None)];
    while let Some((n, p)) = stack.pop() {
        let id = labels.len() as NodeId;
        labels.push(Label::of(NAMES[n.label as usize]));
        parents.push(p);
        for k in n.kids.iter().rev() {
            stack.push((k, Some(id)));
        }
    }
    let names = NAMES
        .iter()
        .map(|s| (Label::of(s), (*s).to_string()))
        .collect();
    Tree::from_preorder(labels, &parents, names).expect("valid preorder")
}

/// Builds a tree from `(label, choice)` pairs: node `i` hangs under the `choice % len`-th node of
/// the rightmost path of nodes `0..i` (cut to its first `max_depth` nodes, so a small
/// `max_depth` gives wide, shallow trees with long children lists), which always is a valid
/// preorder.
fn from_choices(spec: &[(u8, u32)], max_depth: usize) -> N {
    fn attach(root: &mut N, path: &[usize], n: N) {
        let mut cur = root;
        for &k in path {
            cur = &mut cur.kids[k];
        }
        cur.kids.push(n);
    }
    let mut root = N {
        label: spec[0].0,
        kids: vec![],
    };
    // Rightmost path as child indices from the root.
    let mut path: Vec<usize> = vec![];
    for &(label, choice) in &spec[1..] {
        let depth = choice as usize % (path.len().min(max_depth - 1) + 1);
        path.truncate(depth);
        attach(
            &mut root,
            &path,
            N {
                label,
                kids: vec![],
            },
        );
        let mut cur = &root;
        for &k in &path {
            cur = &cur.kids[k];
        }
        path.push(cur.kids.len() - 1);
    }
    root
}

fn count(n: &N) -> usize {
    1 + n.kids.iter().map(count).sum::<usize>()
}

/// Child-index path to the `k`-th node in preorder (`k < count(n)`).
fn path_to(n: &N, mut k: usize) -> Vec<usize> {
    let mut path = vec![];
    let mut cur = n;
    while k > 0 {
        k -= 1;
        let mut next = None;
        for (i, c) in cur.kids.iter().enumerate() {
            let s = count(c);
            if k < s {
                next = Some((i, c));
                break;
            }
            k -= s;
        }
        let (i, c) = next.expect("index in range");
        path.push(i);
        cur = c;
    }
    path
}

fn node_mut<'a>(n: &'a mut N, path: &[usize]) -> &'a mut N {
    let mut cur = n;
    for &k in path {
        cur = &mut cur.kids[k];
    }
    cur
}

#[derive(Clone, Debug)]
enum Op {
    Relabel(u32, u8),
    Delete(u32),
    InsertLeaf(u32, u32, u8),
    Duplicate(u32),
    /// Copy the subtree at the first position under the node at the second.
    Graft(u32, u32, u32),
}

fn mutate(mut root: N, ops: &[Op]) -> N {
    for op in ops {
        let n = count(&root) as u32;
        match *op {
            Op::Relabel(p, l) => {
                let path = path_to(&root, (p % n) as usize);
                node_mut(&mut root, &path).label = l;
            }
            Op::Delete(p) => {
                let path = path_to(&root, (p % n) as usize);
                if let Some((&last, parent)) = path.split_last() {
                    node_mut(&mut root, parent).kids.remove(last);
                }
            }
            Op::InsertLeaf(p, at, l) => {
                let path = path_to(&root, (p % n) as usize);
                let node = node_mut(&mut root, &path);
                let at = at as usize % (node.kids.len() + 1);
                node.kids.insert(
                    at,
                    N {
                        label: l,
                        kids: vec![],
                    },
                );
            }
            Op::Duplicate(p) => {
                let path = path_to(&root, (p % n) as usize);
                if let Some((&last, parent)) = path.split_last() {
                    let parent = node_mut(&mut root, parent);
                    let copy = parent.kids[last].clone();
                    parent.kids.insert(last + 1, copy);
                }
            }
            Op::Graft(from, to, at) => {
                let from = path_to(&root, (from % n) as usize);
                let copy = node_mut(&mut root, &from).clone();
                if count(&copy) + n as usize <= 120 {
                    let path = path_to(&root, (to % n) as usize);
                    let node = node_mut(&mut root, &path);
                    let at = at as usize % (node.kids.len() + 1);
                    node.kids.insert(at, copy);
                }
            }
        }
    }
    root
}

fn arb_spec(alphabet: u8, max: usize) -> impl Strategy<Value = Vec<(u8, u32)>> {
    prop::collection::vec((0..alphabet, any::<u32>()), 1..max)
}

fn arb_op(alphabet: u8) -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<u32>(), 0..alphabet).prop_map(|(p, l)| Op::Relabel(p, l)),
        any::<u32>().prop_map(Op::Delete),
        (any::<u32>(), any::<u32>(), 0..alphabet).prop_map(|(p, a, l)| Op::InsertLeaf(p, a, l)),
        any::<u32>().prop_map(Op::Duplicate),
        (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(f, t, a)| Op::Graft(f, t, a)),
    ]
}

/// Maximum depth of generated trees: wide and shallow (long children lists, as in pages) or free.
fn arb_depth() -> impl Strategy<Value = usize> {
    prop_oneof![Just(2usize), Just(3), Just(4), Just(60)]
}

/// One random tree (sizes 1..60, small alphabets so equal labels and identical subtrees abound).
fn arb_tree() -> impl Strategy<Value = Tree> {
    ((1u8..=4).prop_flat_map(|k| arb_spec(k, 60)), arb_depth())
        .prop_map(|(s, depth)| to_tree(&from_choices(&s, depth)))
}

/// A pair of trees: independent ones, or a tree and a few mutations of it (similar pairs).
fn arb_pair() -> impl Strategy<Value = (Tree, Tree)> {
    let independent = (1u8..=4).prop_flat_map(|k| (arb_spec(k, 60), arb_spec(k, 60), arb_depth()));
    let independent = independent.prop_map(|(a, b, depth)| {
        (
            to_tree(&from_choices(&a, depth)),
            to_tree(&from_choices(&b, depth)),
        )
    });
    let mutated = (1u8..=4).prop_flat_map(|k| {
        (
            arb_spec(k, 60),
            prop::collection::vec(arb_op(k), 0..6),
            prop::collection::vec(arb_op(k), 0..3),
            arb_depth(),
        )
    });
    let mutated = mutated.prop_map(|(s, ops_a, ops_b, depth)| {
        let base = from_choices(&s, depth);
        (
            to_tree(&mutate(base.clone(), &ops_b)),
            to_tree(&mutate(base, &ops_a)),
        )
    });
    prop_oneof![1 => independent, 3 => mutated]
}

/// Larger pairs (up to ~300 nodes, wide lists) of mutated trees: decision mode at low θ tries a
/// cheap upper bound first, which these stress with long children lists.
fn arb_big_pair() -> impl Strategy<Value = (Tree, Tree)> {
    (1u8..=4)
        .prop_flat_map(|k| {
            (
                arb_spec(k, 300),
                prop::collection::vec(arb_op(k), 0..12),
                prop::collection::vec(arb_op(k), 0..6),
                prop_oneof![Just(2usize), Just(3), Just(5), Just(300)],
            )
        })
        .prop_map(|(s, ops_a, ops_b, depth)| {
            let base = from_choices(&s, depth);
            (
                to_tree(&mutate(base.clone(), &ops_b)),
                to_tree(&mutate(base, &ops_a)),
            )
        })
}

/// A pair with equal root labels and no other label in common (labels of `b` below the root
/// moved to the other half of the alphabet).
fn arb_disjoint_pair() -> impl Strategy<Value = (Tree, Tree)> {
    fn shift(n: &mut N) {
        for k in &mut n.kids {
            k.label = 3 + k.label % 3;
            shift(k);
        }
    }
    (arb_spec(3, 60), arb_spec(3, 60), arb_depth()).prop_map(|(a, b, depth)| {
        let a = from_choices(&a, depth);
        let mut b = from_choices(&b, depth);
        b.label = a.label;
        shift(&mut b);
        (to_tree(&a), to_tree(&b))
    })
}

/// Decision mode against the reference at the threshold of every possible distance (so at both
/// sides of the answer's boundary, with budgets from 0 to everything) and one ulp above each.
fn check_every_threshold(a: &Tree, b: &Tree) -> Result<(), TestCaseError> {
    let sim = ref_similarity(a, b);
    let total = u64::from(a.size(0)) + u64::from(b.size(0));
    let (pa, pb) = (Prepared::new(a.clone()), Prepared::new(b.clone()));
    let mut ws = Rtdm::new();
    for j in 0..=total {
        let theta = 1.0 - j as f64 / total as f64;
        let above = f64::from_bits(theta.to_bits() + 1);
        for t in [theta, above] {
            prop_assert_eq!(rtdm::is_similar(a, b, t), sim >= t, "θ = {}", t);
            prop_assert_eq!(ws.is_similar(&pa, &pb, t), sim >= t, "θ = {}", t);
            prop_assert_eq!(ws.tree_is_similar(b, a, t), sim >= t, "θ = {}", t);
        }
    }
    prop_assert!(rtdm::is_similar(a, b, sim));
    prop_assert!(!rtdm::is_similar(a, b, f64::from_bits(sim.to_bits() + 1)));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Properties.

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn identical_trees_have_distance_zero(t in arb_tree()) {
        let c = rtdm::compare(&t, &t.clone());
        prop_assert_eq!(c.distance, 0);
        prop_assert_eq!(c.similarity, 1.0);
        prop_assert!(rtdm::is_similar(&t, &t, 1.0));
    }

    #[test]
    fn fast_equals_reference((a, b) in arb_pair()) {
        let expected = ref_distance(&a, &b);
        prop_assert_eq!(rtdm::distance(&a, &b), expected, "\n{}\n{}", a.outline(), b.outline());
    }

    #[test]
    fn symmetric_and_within_bounds((a, b) in arb_pair()) {
        let (ab, ba) = (rtdm::compare(&a, &b), rtdm::compare(&b, &a));
        prop_assert_eq!(ab.distance, ba.distance);
        prop_assert_eq!(ab.similarity, ba.similarity);
        let (s1, s2) = (a.size(0), b.size(0));
        prop_assert_eq!((ab.size_a, ab.size_b), (s1, s2));
        prop_assert!(ab.distance <= s1 + s2);
        prop_assert!(ab.distance >= s1.abs_diff(s2));
        prop_assert!((0.0..=1.0).contains(&ab.similarity));
        prop_assert_eq!(ab.similarity, ref_similarity(&a, &b));
        prop_assert_eq!(rtdm::similarity(&a, &b), ab.similarity);
    }

    #[test]
    fn bounded_is_min_of_reference_and_budget((a, b) in arb_pair(), k in 0u32..80) {
        let expected = ref_distance(&a, &b);
        prop_assert_eq!(rtdm::distance_bounded(&a, &b, k), expected.min(k));
        prop_assert_eq!(rtdm::distance_bounded(&a, &b, expected), expected);
        prop_assert_eq!(rtdm::distance_bounded(&a, &b, u32::MAX), expected);
        if expected > 0 {
            prop_assert_eq!(rtdm::distance_bounded(&a, &b, expected - 1), expected - 1);
        }
    }

    #[test]
    fn decision_mode_agrees_with_reference((a, b) in arb_pair(), theta in 0.0f64..=1.0) {
        let sim = ref_similarity(&a, &b);
        prop_assert_eq!(rtdm::is_similar(&a, &b, theta), sim >= theta);
        // At the boundary, and one ulp above it.
        prop_assert!(rtdm::is_similar(&a, &b, sim));
        let above = f64::from_bits(sim.to_bits() + 1);
        prop_assert_eq!(rtdm::is_similar(&a, &b, above), false);
    }

    #[test]
    fn decision_mode_at_every_threshold((a, b) in arb_pair()) {
        check_every_threshold(&a, &b)?;
    }

    #[test]
    fn decision_mode_on_identical_and_disjoint_trees(t in arb_tree(), (a, b) in arb_disjoint_pair()) {
        check_every_threshold(&t, &t.clone())?;
        check_every_threshold(&a, &b)?;
    }

    #[test]
    fn prepared_and_workspace_agree_with_free_functions(
        (a, b) in arb_pair(), k in 0u32..40, theta in 0.0f64..=1.0,
    ) {
        let c = rtdm::compare(&a, &b);
        let (pa, pb) = (Prepared::new(a.clone()), Prepared::new(b.clone()));
        prop_assert_eq!(pa.compare(&pb), c);
        prop_assert_eq!(pa.distance(&pb), c.distance);
        prop_assert_eq!(pa.distance_bounded(&pb, k), rtdm::distance_bounded(&a, &b, k));
        prop_assert_eq!(pa.is_similar(&pb, theta), rtdm::is_similar(&a, &b, theta));
        let mut ws = Rtdm::new();
        prop_assert_eq!(ws.compare(&pa, &pb), c);
        prop_assert_eq!(ws.is_similar(&pa, &pb, theta), c.similarity >= theta);
        prop_assert_eq!(pa.tree(), &a);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn decision_mode_on_larger_trees((a, b) in arb_big_pair(), theta in 0.0f64..=1.0) {
        let sim = ref_similarity(&a, &b);
        prop_assert_eq!(rtdm::is_similar(&a, &b, theta), sim >= theta);
        prop_assert_eq!(rtdm::is_similar(&a, &b, theta / 3.0), sim >= theta / 3.0);
        check_every_threshold(&a, &b)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Throughput on synthetic template pages (run with
// `cargo test --release --test rtdm_props -- --ignored --nocapture`).

/// Deterministic xorshift generator for the synthetic pages.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A page from a template: fixed head, nav, footer; `cards` product cards whose optional parts
/// vary with the seed. About 15 nodes per card.
fn template_page(seed: u64, cards: usize) -> Tree {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut s = String::from("html(head(meta meta meta title(#text) link link script script) ");
    s.push_str("body(header(div(a(img) form(input button(#text))) nav(ul(");
    for _ in 0..12 {
        s.push_str("li(a(#text)) ");
    }
    s.push_str("))) main(h1(#text) div(");
    for _ in 0..cards {
        s.push_str("div(a(img) h2(a(#text)) ");
        if r.below(3) > 0 {
            s.push_str("p(#text) ");
        }
        s.push_str("div(span(#text) ");
        if r.below(4) == 0 {
            s.push_str("span(#text) s(#text) ");
        }
        s.push_str(") ul(");
        for _ in 0..r.below(4) {
            s.push_str("li(#text) ");
        }
        s.push_str(") button(#text)) ");
    }
    s.push_str(") div(a(#text) a(#text) a(#text))) footer(div(");
    for _ in 0..20 {
        s.push_str("a(#text) ");
    }
    s.push_str(") p(#text)) script script))");
    Tree::parse_shape(&s).expect("valid shape")
}

#[test]
#[ignore = "timing, run in release by hand"]
fn throughput_on_template_pages() {
    use std::time::Instant;
    for (cards, pages) in [(60usize, 400u64), (130, 100)] {
        let prepared: Vec<Prepared> = (0..pages)
            .map(|i| Prepared::new(template_page(i, cards - (i as usize % 7))))
            .collect();
        let mean = prepared.iter().map(|p| p.tree().len()).sum::<usize>() / prepared.len();
        let example = &prepared[0];
        let count = prepared.len() as f64;
        for cold in [true, false] {
            let mut ws = Rtdm::new();
            let t0 = Instant::now();
            let mut similar = 0;
            for p in &prepared {
                if cold {
                    ws.clear_cache();
                }
                similar += usize::from(ws.is_similar(example, p, 0.8));
            }
            let decision = t0.elapsed().as_secs_f64() / count;
            let mut ws = Rtdm::new();
            let t1 = Instant::now();
            let mut dist = 0u64;
            for p in &prepared {
                if cold {
                    ws.clear_cache();
                }
                dist += u64::from(ws.distance(example, p));
            }
            let exact = t1.elapsed().as_secs_f64() / count;
            eprintln!(
                "~{mean} nodes, {}: decision {:.0} pairs/s ({similar} similar), exact {:.1} µs/pair \
                 (mean distance {:.1})",
                if cold { "cold cache" } else { "warm cache" },
                1.0 / decision,
                exact * 1e6,
                dist as f64 / count
            );
        }
    }
}
