//! The tests of `rtdm` (a sibling file: they outgrew the module).
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
    if a.is_empty() || b.is_empty() || va.root.label != vb.root.label || va.root.same(&vb.root) {
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
