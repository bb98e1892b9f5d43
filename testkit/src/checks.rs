//! The checks behind the fuzz targets (`fuzz/`), shared with the native smoke test
//! (`crates/classify/tests/no_panic.rs`), so a fuzz input and a test case run exactly the same
//! code. Built with the feature `fuzz`.
//!
//! Each `check_*` function takes arbitrary bytes, drives the core and asserts its documented
//! invariants; it must never panic except on a real finding.
#![allow(dead_code)]

use std::sync::OnceLock;

use exemplar_classify as classify;
use exemplar_html::{Label, NodeId, Page, ParseOptions, Tree};
use exemplar_similarity::rtdm::{self, Prepared, Rtdm};
use exemplar_similarity::{Collapse, Example, Options, View, compare_pages};

// ---------------------------------------------------------------------------------------------
// A byte reader that never fails: past the end it yields zeros.

/// Reads bytes off the front of the input; yields 0 once it is exhausted.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// Whether bytes remain.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

// ---------------------------------------------------------------------------------------------
// Pages.

/// Content types the parse target picks from (charset sniffing and decoding paths).
pub const CONTENT_TYPES: [Option<&str>; 16] = [
    None,
    Some("text/html"),
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=windows-1252"),
    Some("text/html; charset=iso-8859-1"),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=utf-16le"),
    Some("text/html; charset=UTF-16BE"),
    Some("text/html; charset=iso-2022-jp"),
    Some("text/html; charset=gb18030"),
    Some("text/html; charset=x-user-defined"),
    Some("text/html; charset=replacement"),
    Some("text/html; charset=\"euc-kr\""),
    Some("text/html; charset="),
    Some("application/xhtml+xml;;charset==;charset=utf-8"),
    Some(""),
];

/// Final URLs the parse target picks from (one is not absolute: a clean error).
pub const URLS: [&str; 4] = [
    "http://example.com/imovel/1",
    "https://www.exemplo.com.br/a/b/c?x=1#f",
    "file:///tmp/page.html",
    "not a url",
];

/// The fixed page every fuzzed page is compared with.
pub fn fixed_page() -> &'static Page {
    static PAGE: OnceLock<Page> = OnceLock::new();
    PAGE.get_or_init(|| {
        Page::from_html(
            "<!doctype html><html><head><title>Imóveis</title></head><body>\
             <nav><a href='/'>Home</a><a href='/busca'>Busca</a></nav>\
             <form action='/busca'><input name=q><select name=t><option>Casa</option></select>\
             <button>Ir</button></form>\
             <ul class='lista'><li class=item><a href='/imovel/1'>Casa 1</a><p>R$ 300.000</p></li>\
             <li class=item><a href='/imovel/2'>Casa 2</a><p>R$ 450.000</p></li></ul>\
             <footer>© 2024</footer></body></html>",
            "http://example.com/",
        )
        .expect("the fixed page parses")
    })
}

/// `parse_classify` target: arbitrary bytes as a page body, a content type picked from (or taken
/// from) the input, parsed with default and small limits, classified, and compared with itself and
/// with a fixed page under every collapse mode of the view.
pub fn check_page_bytes(data: &[u8]) {
    let mut r = Bytes(data);
    let sel = r.byte();
    let view_sel = r.byte();
    let limits = r.byte();
    let theta_sel = r.byte();
    let mut body = r.0;
    // Bit 7: the content type comes from the input (up to the first newline, 64 bytes at most).
    let owned_ct: String;
    let content_type = if sel & 0x80 != 0 {
        let end = body
            .iter()
            .take(64)
            .position(|&b| b == b'\n')
            .unwrap_or(body.len().min(64));
        owned_ct = String::from_utf8_lossy(&body[..end]).into_owned();
        body = &body[(end + 1).min(body.len())..];
        Some(owned_ct.as_str())
    } else {
        CONTENT_TYPES[usize::from(sel & 0x0f)]
    };
    let url = URLS[usize::from((sel >> 4) & 0x03)];

    let small = ParseOptions {
        max_bytes: if limits & 0x80 != 0 {
            body.len() / 2
        } else {
            1 << 16
        },
        max_nodes: usize::from(limits & 0x3f) * 4,
        max_depth: u32::from(limits & 0x07),
    };
    let view = view_of(view_sel);
    let threshold = theta_of(theta_sel);
    for opts in [ParseOptions::default(), small] {
        match Page::parse(body, url, content_type, &opts) {
            Ok(page) => check_page(&page, &opts, view, threshold),
            Err(e) => {
                let _ = e.to_string();
                let _ = e.is_too_large();
            }
        }
    }
    // The same text through the `&str` entry point.
    let text = String::from_utf8_lossy(body);
    if let Ok(page) = Page::from_html(&text, url) {
        check_page(&page, &ParseOptions::default(), view, threshold);
    }
}

/// Checks one parsed page: its invariants, classification and comparisons.
pub fn check_page(page: &Page, opts: &ParseOptions, view: View, threshold: f64) {
    let tree = &page.tree;
    assert!(!tree.is_empty(), "a page's tree has a root");
    check_tree(tree);
    assert!(
        tree.height() <= opts.max_depth.max(1).saturating_add(1),
        "tree height {} past max_depth {}",
        tree.height(),
        opts.max_depth
    );
    let n = tree.len() as NodeId;
    assert!(
        page.lang.is_empty() || exemplar_core::review::language::is_tag(&page.lang),
        "declared language {:?} is no tag",
        page.lang
    );
    if let Some(c) = &page.canonical {
        assert!(
            (c.starts_with("http://") || c.starts_with("https://")) && !c.contains('#'),
            "canonical URL {c:?} is no http(s) URL without a fragment"
        );
    }
    for l in &page.links {
        assert!(l.node < n, "link node out of range");
    }
    for f in &page.forms {
        assert!(f.node < n, "form node out of range");
        for &c in &f.controls {
            assert!(c < page.controls.len(), "form control index out of range");
        }
    }
    for c in &page.controls {
        assert!(c.node < n, "control node out of range");
        if let Some(f) = c.form {
            assert!(f < page.forms.len(), "control form index out of range");
        }
    }
    let _ = page.same_site_links().count();
    let _ = exemplar_html::site_host(&page.base);
    let _ = serde_json::to_string(page).expect("a page serializes");

    let c = classify::classify(page);
    assert!(
        (0.0..=1.0).contains(&c.confidence),
        "confidence {} not in [0, 1]",
        c.confidence
    );

    let fixed = fixed_page();
    let collapses = [
        Collapse::None,
        Collapse::Consecutive,
        Collapse::All,
        Collapse::Merge,
    ];
    let views = collapses
        .iter()
        .map(|&collapse| View { collapse, ..view })
        .chain([View::FULL, View::default()]);
    for view in views {
        let options = Options {
            threshold,
            view,
            ..Options::default()
        };
        let own = compare_pages(page, page, &options);
        assert_eq!(own.comparison.distance, 0, "a page differs from itself");
        assert_eq!(own.comparison.similarity, 1.0);
        let ab = compare_pages(page, fixed, &options);
        let ba = compare_pages(fixed, page, &options);
        check_comparison(&ab.comparison);
        assert_eq!(ab.comparison.distance, ba.comparison.distance, "asymmetric");
        assert_eq!(
            ab.score,
            ab.comparison.similarity * ab.kind_agreement * ab.place_agreement
        );
        assert!((0.0..=1.0).contains(&ab.kind_agreement));
        assert!((0.0..=1.0).contains(&ab.place_agreement));
        assert_eq!(ab.similar, ab.score >= threshold);
        let mut example = Example::new(fixed, options);
        assert_eq!(
            example.is_similar(page),
            example.compare(page).similar,
            "Example::is_similar disagrees with Example::compare"
        );
    }
}

/// A view picked by a byte (collapse, max depth, text, classes and ids, top weights, layout
/// merging).
pub fn view_of(b: u8) -> View {
    View {
        collapse: match b & 3 {
            0 => Collapse::None,
            1 => Collapse::Consecutive,
            2 => Collapse::All,
            _ => Collapse::Merge,
        },
        max_depth: match (b >> 2) & 3 {
            0 => None,
            1 => Some(0),
            2 => Some(1),
            _ => Some(u32::from(b >> 6) + 2),
        },
        text: b & 0x10 != 0,
        classes: b & 0x20 != 0,
        ids: b & 0x20 != 0,
        top_weight: if b & 0x80 != 0 { 2 } else { 0 },
        top_depth: 3,
        // Layout merging on half the views, at a depth the max-depth bits also vary.
        merge_above: u32::from(b & 0x40 != 0) * 2,
    }
}

/// A threshold picked by a byte, out-of-range and NaN values included.
pub fn theta_of(b: u8) -> f64 {
    match b % 16 {
        0 => 0.0,
        1 => 1.0,
        2 => 0.8,
        3 => f64::NAN,
        4 => -0.5,
        5 => 1.5,
        6 => f64::INFINITY,
        7 => f64::NEG_INFINITY,
        8 => 1.0 - f64::EPSILON,
        _ => f64::from(b) / 255.0,
    }
}

// ---------------------------------------------------------------------------------------------
// Trees.

/// Label names of the generated trees (a small alphabet, so subtrees match often).
pub const ALPHABET: [&str; 5] = ["a", "b", "c", "div", "#text"];

/// Largest generated tree.
pub const MAX_NODES: usize = 5_000;

/// Builds a tree from bytes; the parent choices always form a valid preorder.
///
/// Each byte is an op: `0x00..=0x7f` adds one node after closing `(b >> 3) & 15` open nodes,
/// `0x80..=0xbf` a chain of [`run_length`]`(next)` nested nodes, `0xc0..=0xff` as many siblings under
/// the current node. The low three bits pick the label (5, 6, 7: rotate through the alphabet).
pub fn tree_from_bytes(data: &[u8], max_nodes: usize) -> Tree {
    let mut r = Bytes(data);
    let mut labels = vec![Label::of(ALPHABET[usize::from(r.byte()) % ALPHABET.len()])];
    let mut parents: Vec<Option<NodeId>> = vec![None];
    let mut path: Vec<NodeId> = vec![0];
    let label_at = |sel: u8, i: usize| {
        let k = usize::from(sel & 7);
        let name = if k < ALPHABET.len() {
            ALPHABET[k]
        } else {
            ALPHABET[(i + k) % ALPHABET.len()]
        };
        Label::of(name)
    };
    while !r.is_empty() && labels.len() < max_nodes {
        let b = r.byte();
        match b >> 6 {
            0 | 1 => {
                let pops = usize::from((b >> 3) & 15);
                let keep = path.len().saturating_sub(pops).max(1);
                path.truncate(keep);
                let id = labels.len() as NodeId;
                labels.push(label_at(b, 0));
                parents.push(path.last().copied());
                path.push(id);
            }
            2 => {
                let count = run_length(r.byte());
                for i in 0..count.min(max_nodes - labels.len()) {
                    let id = labels.len() as NodeId;
                    labels.push(label_at(b, i));
                    parents.push(path.last().copied());
                    path.push(id);
                }
            }
            _ => {
                let count = run_length(r.byte());
                let parent = path.last().copied();
                for i in 0..count.min(max_nodes - labels.len()) {
                    labels.push(label_at(b, i));
                    parents.push(parent);
                }
            }
        }
    }
    let names = ALPHABET
        .iter()
        .filter(|&&n| n != "#text")
        .map(|&n| (Label::of(n), n.to_string()))
        .collect();
    Tree::from_preorder(labels, &parents, names).expect("generated parents form a preorder")
}

/// The length of a chain or sibling run from one byte: cubic, so most runs are short and a byte
/// of 255 gives 5,000.
pub fn run_length(b: u8) -> usize {
    let b = usize::from(b);
    b * b * b / 3_317 + 1
}

/// `rtdm` target: two trees from the bytes (the first byte splits the rest), then every RTDM
/// invariant on the pair.
pub fn check_rtdm_bytes(data: &[u8]) {
    check_rtdm_bytes_with(data, MAX_NODES);
}

/// [`check_rtdm_bytes`] with trees of at most `max_nodes` nodes.
pub fn check_rtdm_bytes_with(data: &[u8], max_nodes: usize) {
    let mut r = Bytes(data);
    let split = r.byte();
    let params = [r.byte(), r.byte(), r.byte()];
    let rest = r.0;
    let at = rest.len() * usize::from(split) / 255;
    let a = tree_from_bytes(&rest[..at], max_nodes);
    let b = tree_from_bytes(&rest[at..], max_nodes);
    check_pair(&a, &b, params);
}

/// The structural invariants of a tree, through its public API.
pub fn check_tree(t: &Tree) {
    let n = t.len();
    assert!(n > 0);
    assert_eq!(t.size(0) as usize, n, "root size is the node count");
    assert_eq!(t.depth(0), 0);
    assert_eq!(t.parent(0), None);
    assert!(t.class_labels().is_empty() || t.class_labels().len() == n);
    let mut height = 0;
    for i in 1..n as NodeId {
        let p = t.parent(i).expect("every non-root node has a parent");
        assert!(p < i, "parent after child");
        assert_eq!(t.depth(i), t.depth(p) + 1);
        assert!(i + t.size(i) <= p + t.size(p), "subtree escapes its parent");
        height = height.max(t.depth(i));
    }
    assert_eq!(t.height(), height);
    let kids: usize = (0..n as NodeId).map(|i| t.child_count(i)).sum();
    assert_eq!(kids, n - 1, "every non-root node is one node's child");
}

/// Every RTDM invariant on a pair of valid trees; `params` pick budgets, a threshold and a view.
pub fn check_pair(a: &Tree, b: &Tree, params: [u8; 3]) {
    check_tree(a);
    check_tree(b);
    let (sa, sb) = (a.len() as u32, b.len() as u32);

    for t in [a, b] {
        let c = rtdm::compare(t, t);
        assert_eq!(c.distance, 0, "compare(t, t) is not 0");
        assert_eq!(c.similarity, 1.0);
    }
    let ab = rtdm::compare(a, b);
    check_comparison(&ab);
    assert_eq!((ab.size_a, ab.size_b), (sa, sb));
    let d = ab.distance;
    if a.label(0) != b.label(0) {
        assert_eq!(d, sa + sb, "roots differ: distance is size_a + size_b");
    } else {
        assert!(d <= (sa + sb).saturating_sub(2));
    }
    if a == b {
        assert_eq!(d, 0);
    }
    // The reference (plain recursion) on small, shallow trees.
    if sa <= 300 && sb <= 300 {
        assert_eq!(d, ref_distance(a, b), "distance differs from the reference");
    }
    // Exact comparisons of two large trees cost up to sa·sb DP cells each: on large pairs every
    // entry point is still checked, with fewer budgets and thresholds.
    let large = u64::from(sa) * u64::from(sb) > 250_000;

    let pa = Prepared::new(a.clone());
    let pb = Prepared::new(b.clone());
    let p = u32::from(params[0]);
    let theta = theta_of(params[1]);
    let mut fresh = Rtdm::new();
    let check_ba = |ba: rtdm::Comparison| {
        assert_eq!(ab.distance, ba.distance, "distance is not symmetric");
        assert_eq!(ab.similarity, ba.similarity, "similarity is not symmetric");
    };
    if large {
        // One more exact comparison, the entry point picked by the input.
        match params[0] % 5 {
            0 => check_ba(rtdm::compare(b, a)),
            1 => assert_eq!(pa.compare(&pb), ab, "Prepared::compare disagrees"),
            2 => assert_eq!(fresh.tree_distance(a, b), d, "a fresh workspace disagrees"),
            3 => check_ba(fresh.compare(&pb, &pa)),
            _ => assert_eq!(rtdm::distance(a, b), d),
        }
    } else {
        check_ba(rtdm::compare(b, a));
        assert_eq!(rtdm::distance(a, b), d);
        assert_eq!(
            pa.compare(&pb),
            ab,
            "Prepared::compare disagrees with compare"
        );
        assert_eq!(pa.distance(&pb), d);
        assert_eq!(fresh.tree_distance(a, b), d, "a fresh workspace disagrees");
        assert_eq!(fresh.compare(&pa, &pb), ab);
    }

    let budgets: &[u32] = if large {
        &[0, d.saturating_sub(1), p]
    } else {
        &[
            0,
            1,
            d.saturating_sub(1),
            d,
            d.saturating_add(1),
            p,
            p * 97,
            u32::MAX,
        ]
    };
    for &k in budgets {
        let want = d.min(k);
        assert_eq!(
            rtdm::distance_bounded(a, b, k),
            want,
            "distance_bounded({k})"
        );
        assert_eq!(pa.distance_bounded(&pb, k), want, "Prepared bounded({k})");
        assert_eq!(fresh.distance_bounded(&pa, &pb, k), want);
        if !large {
            assert_eq!(
                rtdm::distance_bounded(b, a, k),
                want,
                "distance_bounded({k}) b,a"
            );
            assert_eq!(fresh.tree_distance_bounded(a, b, k), want);
        }
    }
    let thetas: &[f64] = if large {
        &[f64::NAN, 1.0, 0.95]
    } else {
        &[theta, ab.similarity, 0.0, 1.0, f64::NAN, 0.8]
    };
    for &th in thetas {
        let want = ab.similarity >= th;
        assert_eq!(rtdm::is_similar(a, b, th), want, "is_similar({th})");
        assert_eq!(pa.is_similar(&pb, th), want, "Prepared is_similar({th})");
        if !large {
            assert_eq!(rtdm::is_similar(b, a, th), want, "is_similar({th}) b,a");
            assert_eq!(fresh.tree_is_similar(a, b, th), want);
            assert_eq!(fresh.is_similar(&pa, &pb, th), want);
        }
        match rtdm::max_distance(sa, sb, th) {
            Some(max) => assert_eq!(d <= max, want, "max_distance({th})"),
            None => assert!(!want, "max_distance None but similar at {th}"),
        }
    }

    // Views: valid trees; shapes never larger, idempotent unless siblings are merged (Merge,
    // or All with `merge_above`): merging can raise the branching depth `max_depth` cuts at,
    // so a second pass may cut more.
    let view = view_of(params[2]);
    for t in [a, b] {
        check_tree(&view.apply(t));
        let v = view.shape(t);
        check_tree(&v);
        assert!(v.len() <= t.len(), "a view's shape grew the tree");
        let again = view.shape(&v);
        check_tree(&again);
        if view.collapse != Collapse::Merge && view.merge_above == 0 {
            assert_eq!(again, v, "view is not idempotent: {view:?}");
        }
    }
    let options = Options {
        threshold: theta,
        view,
        ..Options::default()
    };
    let mut ex = Example::from_tree(a, options);
    let pb_view = Prepared::new(view.apply(b));
    let verdict = ex.compare_prepared(&pb_view);
    check_comparison(&verdict.comparison);
    let direct = rtdm::compare(&view.apply(a), &view.apply(b));
    assert_eq!(
        verdict.comparison, direct,
        "Example disagrees with rtdm::compare"
    );
}

/// `0 <= similarity <= 1`, consistent with the distance and sizes.
pub fn check_comparison(c: &rtdm::Comparison) {
    assert!(
        (0.0..=1.0).contains(&c.similarity),
        "similarity {} out of [0, 1]",
        c.similarity
    );
    let total = u64::from(c.size_a) + u64::from(c.size_b);
    assert!(
        u64::from(c.distance) <= total,
        "distance past size_a + size_b"
    );
    let want = if total == 0 {
        1.0
    } else {
        1.0 - f64::from(c.distance) / total as f64
    };
    assert_eq!(c.similarity, want);
}

/// The RTDM definition, transcribed (recursive: small trees only).
pub fn ref_distance(a: &Tree, b: &Tree) -> u32 {
    if a.label(0) != b.label(0) {
        return a.size(0) + b.size(0);
    }
    ref_rtdm(a, 0, b, 0)
}

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

// ---------------------------------------------------------------------------------------------
// Deserialized trees.

/// The fixed tree deserialized trees are compared with.
pub fn fixed_tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| Tree::parse_shape("a(b(c #text) div(a b) c)").expect("fixed shape"))
}

/// `tree_deserialize` target: arbitrary JSON as a [`Tree`]; `validated()` must never panic, and
/// a valid tree must survive RTDM. Inputs starting with a 0 byte are turned into tree-shaped
/// JSON first (labels and parent indices from the bytes), which reaches validation far more often.
pub fn check_tree_json(data: &[u8]) {
    let json;
    let bytes = match data.split_first() {
        Some((0, rest)) => {
            json = tree_json_from_bytes(rest);
            json.as_bytes()
        }
        _ => data,
    };
    let Ok(tree) = serde_json::from_slice::<Tree>(bytes) else {
        return;
    };
    let Ok(t) = tree.validated() else {
        return;
    };
    check_tree(&t);
    let _ = t.outline();
    let json = serde_json::to_string(&t).expect("a tree serializes");
    let back: Tree = serde_json::from_str(&json).expect("a serialized tree deserializes");
    assert_eq!(back.validated().as_ref(), Ok(&t), "serde round trip");
    if t.len() <= 2_000 {
        let seed = data.iter().fold(0u8, |h, &b| h.rotate_left(3) ^ b);
        check_pair(
            &t,
            fixed_tree(),
            [seed, seed.wrapping_mul(7), seed.wrapping_mul(13)],
        );
        check_pair(&t, &t, [seed, 3, seed]);
    }
}

/// Tree-shaped JSON from bytes: per node a label byte and a parent byte (an offset back from the
/// node, 0 meaning none), sometimes class labels and names, with the derived fields left wrong
/// on purpose (`validated()` must recompute them).
pub fn tree_json_from_bytes(data: &[u8]) -> String {
    let mut r = Bytes(data);
    let flags = r.byte();
    let mut labels = Vec::new();
    let mut parents = Vec::new();
    // Parent bytes: with flag 0x20, an offset back from the node (mostly invalid preorders);
    // else how many open nodes to close first (a valid preorder) except, with flag 0x40, 0 for
    // no parent and, with flag 0x80, 0xff for a raw index from the next byte. Flag 1 gives the
    // root a parent too.
    let mut path: Vec<u32> = Vec::new();
    let mut i = 0u32;
    while !r.is_empty() && labels.len() < 4_000 {
        let l = r.byte();
        let p = r.byte();
        labels.push(if l & 0x80 != 0 {
            u32::from(l) * 0x0101_0101
        } else {
            u32::from(l % 6)
        });
        let parent = match p {
            0 if flags & 0x40 != 0 => u32::MAX,
            0xff if flags & 0x80 != 0 => u32::from(r.byte()),
            _ if flags & 0x20 != 0 => i.saturating_sub(u32::from(p)),
            _ => {
                let keep = path.len().saturating_sub(usize::from(p) % 8).max(1);
                path.truncate(keep);
                path.last().copied().unwrap_or(u32::MAX)
            }
        };
        parents.push(if i == 0 && flags & 1 == 0 {
            u32::MAX
        } else {
            parent
        });
        path.push(i);
        i += 1;
    }
    let n = labels.len();
    let sizes = vec![1u32; if flags & 2 != 0 { n } else { n / 2 }];
    let class_labels: Vec<u32> = match flags & 0x0c {
        0 => Vec::new(),
        4 => labels.iter().map(|l| l ^ 0x55).collect(),
        _ => vec![7; n / 2 + 1],
    };
    let names: Vec<(u32, String)> = labels
        .iter()
        .take(if flags & 0x10 != 0 { 64 } else { 0 })
        .map(|&l| (l, format!("n{l}")))
        .collect();
    serde_json::json!({
        "labels": labels,
        "sizes": sizes,
        "parents": parents,
        "depths": vec![0u32; n],
        "hashes": vec![0u64; n],
        "names": names,
        "classLabels": class_labels,
    })
    .to_string()
}

// ---------------------------------------------------------------------------------------------
// Crawling inputs: pattern documents, robots.txt, URLs, and responses fed to the state machines.

/// Arbitrary bytes as every untrusted input of mapping and crawling: an imported pattern, a
/// robots.txt, URL lists (one per line), and the bodies of every response the mapper and the
/// crawler receive. Checks: no panic; canonical URLs are fixed points; a generated URL pattern
/// matches every URL it was built from; the machines finish within a bounded number of steps.
fn type_of(url: &str) -> &'static str {
    if url.ends_with(".js") {
        "text/javascript"
    } else {
        "text/html"
    }
}

pub fn check_crawl_inputs(data: &[u8]) {
    use exemplar_core::crawler::{CrawlConfig, Crawler};
    use exemplar_core::fetch::{FetchResponse, FetchResult, Poll};
    use exemplar_core::mapper::{ExamplePage, MapConfig, Mapper};
    use exemplar_core::pattern::Pattern;
    use exemplar_url::canon::{self, TrapGuard, TrapLimits};
    use exemplar_url::robots::Robots;
    use exemplar_url::url_pattern;

    // A sitemap body (gzip-compressed, XML or text): read within its bounds, http(s) URLs only.
    if let Ok(s) = exemplar_core::sitemap::parse(data) {
        assert!(s.urls.len() <= exemplar_core::sitemap::MAX_URLS);
        for u in &s.urls {
            let lower = u.to_ascii_lowercase();
            assert!(
                lower.starts_with("http://") || lower.starts_with("https://"),
                "sitemap URL {u:?}"
            );
        }
    }
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = Pattern::from_json(&text) {
        assert!(p.compile().is_ok(), "a validated pattern compiles");
        let _ = p.render();
        if let Ok(mut c) = Crawler::new(p, CrawlConfig::default(), None) {
            for step in 0..64u64 {
                match c.poll(step) {
                    Poll::Fetch(r) => c.handle(r.id, FetchResult::Failed("fuzz".into()), step),
                    Poll::Done => break,
                    _ => {}
                }
            }
        }
    }
    // Headings and URLs as a crawl meets them, under a heading rule that reads glued and
    // qualified names, whole names and manual sections.
    let rule = exemplar_core::review::heading::HeadingRule {
        templates: vec!["* Class Reference".into()],
        unlike: vec![
            "* File Reference".into(),
            "#".into(),
            "* (5) Manual Page".into(),
        ],
        like: vec!["Class virtual *".into()],
        kind_words: vec!["html".into(), "class".into()],
        common: vec!["fuzz".into()],
        frequent: Some(vec!["reference".into()]),
        qualified: true,
        whole_names: true,
        sections: true,
    };
    for line in text.lines().take(16) {
        let _ = rule.takes(line, line);
        let _ = rule.refuses("http://fuzz.test/a_b_8h.html", line);
        let _ = rule.refuses("http://fuzz.test/std/io/struct.A_b.html", line);
        let _ = rule.likes("http://fuzz.test/G.a_b-c.html", line);
        let _ = exemplar_core::review::heading::numbered(line);
        for (at, section) in exemplar_core::review::heading::manual_sections(line) {
            assert!(line.is_char_boundary(at), "{line:?} at {at}");
            assert!(
                exemplar_core::review::heading::is_template(&section),
                "{section:?}"
            );
        }
        if let Some(tag) = exemplar_core::review::language::tag(line) {
            assert!(
                exemplar_core::review::language::is_tag(&tag),
                "{line:?} gave {tag:?}"
            );
            assert_eq!(
                exemplar_core::review::language::tag(&tag).as_deref(),
                Some(tag.as_str())
            );
        }
        if let Some(tag) = exemplar_core::review::language::of_header(line) {
            assert!(
                exemplar_core::review::language::is_tag(&tag),
                "{line:?} gave {tag:?}"
            );
        }
        // A line's directory names itself as a verdict: what the review lists, a verdict takes.
        if let Some(dir) = exemplar_core::review::directory::of(line) {
            assert_eq!(
                exemplar_core::review::directory::verdict(&dir).as_deref(),
                Some(dir.as_str())
            );
            // A page filed in the directory lies in it (the directory's own URL, a page filed
            // as a directory, lies in its parent).
            assert_eq!(
                exemplar_core::review::directory::of(&format!("{dir}page.html")).as_deref(),
                Some(dir.as_str())
            );
            assert!(exemplar_core::review::directory::refused(
                std::slice::from_ref(&dir),
                line
            ));
        }
        let _ = exemplar_core::review::directory::resolve("http://a.test/x/", line);
        if exemplar_core::review::heading::is_template(line) {
            assert!(!line.chars().any(char::is_control), "{line:?}");
        }
    }
    let robots = Robots::parse(&text, "exemplar");
    let mut guard = TrapGuard::new(TrapLimits::default());
    let mut urls = Vec::new();
    for line in text.lines().take(64) {
        let _ = robots.allowed(line);
        let _ = guard.check(line);
        let _ = canon::site_key(line);
        if let Some(c) = canon::canonicalize(line) {
            assert_eq!(
                canon::canonicalize(&c).as_deref(),
                Some(c.as_str()),
                "idempotent"
            );
            urls.push(c);
        }
    }
    if !urls.is_empty() {
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        if let Some(p) = url_pattern::url_pattern(&refs) {
            let re = p.compile().expect("generated patterns compile");
            for u in &refs {
                let n = url_pattern::normalize(u).unwrap_or_else(|| u.to_string());
                assert!(re.is_match(&n), "{n} !~ {}", p.regex);
            }
        }
        let _ =
            exemplar_core::pattern::generalise(&refs[..refs.len() / 2], &refs[refs.len() / 2..], 2);
    }
    // The detector on a site whose every page is these bytes: it ends within its limits.
    {
        use exemplar_core::detect::{DetectConfig, Detector};
        use exemplar_core::fetch::{Machine, Politeness};
        let config = DetectConfig {
            politeness: Politeness::unthrottled(1),
            max_fetches: 4,
            ..DetectConfig::default()
        };
        if let Ok(mut d) = Detector::new("http://fuzz.test/", config) {
            let mut done = false;
            for step in 0..256u64 {
                match d.poll(step) {
                    Poll::Fetch(r) => {
                        let html = r.kind == exemplar_core::fetch::RequestKind::Page;
                        let result = FetchResult::Response(FetchResponse {
                            status: if html { 200 } else { 404 },
                            final_url: r.url.clone(),
                            headers: vec![("content-type".into(), "text/html".into())],
                            body: if html { data.to_vec() } else { Vec::new() },
                            ..FetchResponse::default()
                        });
                        d.handle(r.id, result, step);
                    }
                    Poll::Done => {
                        done = true;
                        break;
                    }
                    _ => {}
                }
            }
            assert!(done, "the detector ends");
            let det = d.into_detection();
            assert!(det.fetches <= 4, "{}", det.fetches);
            for s in &det.sections {
                assert!(!s.examples.is_empty() && s.examples.len() <= 3);
            }
        }
    }
    // The bytes as a script: what it names has the shape of a page URL, and resolves or not.
    let named = exemplar_core::script_links::page_urls(&text, 64);
    assert!(named.len() <= 64);
    for u in &named {
        assert!(
            !u.is_empty() && !u.chars().any(char::is_whitespace),
            "{u:?}"
        );
    }
    let _ = exemplar_core::script_links::resolve("http://fuzz.test/a/b.html", &named);
    // The mapper on a one-host site whose every response is these bytes (scripts served as
    // JavaScript: a page including `<script src>` reads them; the sitemap robots.txt names),
    // but for robots.txt and the pages under `/fn/`:
    // one small page unlike them, so that a page of 50 links or more there puts the rest off
    // (`mapper::shapes`; the seed `barren_shape`).
    let example = ExamplePage {
        url: "http://fuzz.test/example".into(),
        body: data.to_vec(),
        content_type: Some("text/html".into()),
    };
    if let Ok(mut m) = Mapper::new(
        "http://fuzz.test/",
        example,
        MapConfig {
            max_pages: 64,
            ..MapConfig::default()
        },
    ) {
        let mut now = 0;
        for _ in 0..1024 {
            match m.poll(now) {
                Poll::Fetch(r) => {
                    // robots.txt names a sitemap, which these bytes answer too: mapping reads
                    // it once every link is followed.
                    let body = if r.url.ends_with("/robots.txt") {
                        b"User-agent: *\nSitemap: /sitemap.xml\n".to_vec()
                    } else if r.url.starts_with("http://fuzz.test/fn/") {
                        b"<title>f</title><p>A function.</p><a href=\"/\">Home</a>".to_vec()
                    } else {
                        data.to_vec()
                    };
                    // Some answers say "come back later" (429, 503) with a Retry-After made of
                    // the fuzzed bytes: the mapping waits and asks again, boundedly.
                    let (status, retry_after) = match data.first().map(|b| b % 11) {
                        Some(0) => (429, String::from_utf8_lossy(&data[..data.len().min(9)])),
                        Some(1) => (503, String::from_utf8_lossy(&data[1..data.len().min(4)])),
                        _ => (200, "".into()),
                    };
                    let result = FetchResult::Response(FetchResponse {
                        status,
                        final_url: r.url.clone(),
                        headers: vec![
                            ("content-type".into(), type_of(&r.url).into()),
                            ("retry-after".into(), retry_after.into_owned()),
                        ],
                        body,
                        truncated: false,
                    });
                    m.handle(r.id, result, now);
                }
                Poll::WaitUntil(t) => now = t,
                Poll::Busy | Poll::Done => break,
            }
        }
        let map = m.into_site_map();
        let _ = exemplar_core::pattern::learn(
            &map,
            canon::Scope::for_url("http://fuzz.test/", false).expect("scope"),
            Default::default(),
            Default::default(),
            &Default::default(),
            0,
        );
        // The targets by heading kind, and learning with the largest kind judged unlike.
        let kinds = exemplar_core::review::heading::kinds(&map, &[], &[]);
        if let Some(kind) = kinds.first() {
            assert!(
                exemplar_core::review::heading::is_template(&kind.template),
                "{kind:?}"
            );
            let verdicts = exemplar_core::pattern::Corrections {
                unlike_headings: vec![kind.template.clone()],
                ..Default::default()
            };
            let _ = exemplar_core::pattern::learn_from_map_corrected(
                map.clone(),
                &MapConfig::default(),
                &verdicts,
                0,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Saved states: mapper and crawler snapshots and site maps read back (state files, `--map`, the
// extension's stored jobs). Valid JSON whose numbers point nowhere must give a clean error or a
// run that ends, never a panic.

/// The in-memory site the saved states come from: a home page with a search form, three
/// numbered listing pages of items, and search results that link items.
fn state_site(url: &str) -> exemplar_core::fetch::FetchResult {
    use exemplar_core::fetch::{FetchResponse, FetchResult};
    let path = url.trim_start_matches("http://state.test");
    let page = |body: String| {
        FetchResult::Response(FetchResponse {
            status: 200,
            final_url: url.to_string(),
            headers: vec![("content-type".into(), "text/html".into())],
            body: format!("<html><head><title>t</title></head><body><nav><a href='/'>home</a></nav>{body}</body></html>").into_bytes(),
            truncated: false,
        })
    };
    let items = |from: usize| -> String {
        (from..from + 4)
            .map(|i| format!("<li><a href='/item/{i}'>item {i}</a></li>"))
            .collect()
    };
    if path == "/" {
        return page(
            "<form action='/search'><input name=q><button>go</button></form>\
             <a href='/list?p=1'>all</a><a href='/about'>about</a>"
                .into(),
        );
    }
    if let Some(p) = path.strip_prefix("/list?p=") {
        let p: usize = p.parse().unwrap_or(0);
        if (1..=3).contains(&p) {
            let next = if p < 3 {
                format!("<a class=next href='/list?p={}'>next</a>", p + 1)
            } else {
                String::new()
            };
            return page(format!("<ul class=items>{}</ul>{next}", items(p * 4 - 3)));
        }
    }
    if path.starts_with("/search?") {
        return page(format!(
            "<ul class=results>{}</ul>",
            items(path.len() % 9 + 1)
        ));
    }
    if let Some(i) = path.strip_prefix("/item/") {
        return page(format!(
            "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>price</td><td>{i}</td></tr></table><p class=d>text about item {i}</p></div>"
        ));
    }
    if path == "/about" {
        return page("<p>About us, a longer text page.</p>".into());
    }
    FetchResult::Response(FetchResponse {
        status: 404,
        ..FetchResponse::default()
    })
}

/// Answers a state machine's requests from [`state_site`] for at most `steps` polls; after
/// `stop_after` answers it returns (requests may be left in flight).
fn drive_state<M: exemplar_core::fetch::Machine>(m: &mut M, steps: usize, stop_after: usize) {
    use exemplar_core::fetch::Poll;
    let mut now = 1_000;
    let mut answered = 0;
    for _ in 0..steps {
        match m.poll(now) {
            Poll::Fetch(r) => {
                if answered == stop_after {
                    return;
                }
                answered += 1;
                m.handle(r.id, state_site(&r.url), now);
            }
            Poll::WaitUntil(t) => now = t.max(now + 1),
            Poll::Busy | Poll::Done => return,
        }
    }
}

/// A mapper snapshot taken half way, the finished map, and a crawler snapshot taken half way,
/// as JSON.
struct SavedStates {
    mapper: serde_json::Value,
    map: serde_json::Value,
    crawler: serde_json::Value,
}

fn state_example() -> exemplar_core::mapper::ExamplePage {
    let body = match state_site("http://state.test/item/1") {
        exemplar_core::fetch::FetchResult::Response(r) => r.body,
        exemplar_core::fetch::FetchResult::Failed(_) => Vec::new(),
    };
    exemplar_core::mapper::ExamplePage {
        url: "http://state.test/item/1".into(),
        body,
        content_type: None,
    }
}

fn state_map_config() -> exemplar_core::mapper::MapConfig {
    let mut config = exemplar_core::mapper::MapConfig::default();
    config.politeness.delay_ms = 0;
    config
}

fn saved_states() -> &'static SavedStates {
    use exemplar_core::crawler::{CrawlConfig, Crawler};
    use exemplar_core::mapper::Mapper;
    static STATES: OnceLock<SavedStates> = OnceLock::new();
    STATES.get_or_init(|| {
        let new_mapper = || {
            Mapper::new("http://state.test/", state_example(), state_map_config()).expect("mapper")
        };
        let mut half = new_mapper();
        drive_state(&mut half, 10_000, 12);
        let mut full = new_mapper();
        drive_state(&mut full, 10_000, usize::MAX);
        let config = full.config().clone();
        let map = full.into_site_map();
        let pattern = exemplar_core::pattern::learn_from_map(&map, &config, 0).expect("a pattern");
        let mut crawl =
            Crawler::new(pattern, CrawlConfig::default(), Some(state_example())).expect("crawler");
        drive_state(&mut crawl, 10_000, 8);
        let json = |v: String| serde_json::from_str(&v).expect("json");
        SavedStates {
            mapper: json(serde_json::to_string(&half.snapshot()).expect("snapshot")),
            map: json(serde_json::to_string(&map).expect("map")),
            crawler: json(serde_json::to_string(&crawl.snapshot()).expect("snapshot")),
        }
    })
}

/// Every number, array and object of a JSON value, by path (pre-order), page bodies left out
/// (their bytes are the page fuzzers' business, and they would crowd out everything else).
fn json_places(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if path.last().is_some_and(|k| k == "body") {
        return;
    }
    match v {
        serde_json::Value::Number(_)
        | serde_json::Value::Array(_)
        | serde_json::Value::Object(_) => out.push(path.clone()),
        _ => {}
    }
    match v {
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                json_places(x, path, out);
                path.pop();
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                path.push(k.clone());
                json_places(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn json_at<'v>(v: &'v mut serde_json::Value, path: &[String]) -> Option<&'v mut serde_json::Value> {
    path.iter().try_fold(v, |v, k| match v {
        serde_json::Value::Array(a) => a.get_mut(k.parse::<usize>().ok()?),
        serde_json::Value::Object(o) => o.get_mut(k),
        _ => None,
    })
}

/// Mutates a saved state as the bytes say (one or two changes: a number replaced by an edge
/// value, an array cut short, an object key dropped), then restores it and runs it on
/// [`state_site`], and learns from the map it ends with. Errors are fine; panics are findings.
pub fn check_saved_state(data: &[u8]) {
    use exemplar_core::crawler::{self, Crawler};
    use exemplar_core::mapper::{self, Mapper, SiteMap};
    let mut b = Bytes(data);
    let states = saved_states();
    let kind = b.byte() % 3;
    let mut v = match kind {
        0 => states.mapper.clone(),
        1 => states.map.clone(),
        _ => states.crawler.clone(),
    };
    let mut places = Vec::new();
    json_places(&v, &mut Vec::new(), &mut places);
    let changes = 1 + b.byte() % 2;
    for _ in 0..changes {
        let at = usize::from(b.byte()) << 8 | usize::from(b.byte());
        let Some(path) = places.get(at % places.len().max(1)).cloned() else {
            break;
        };
        let how = b.byte();
        let Some(target) = json_at(&mut v, &path) else {
            continue;
        };
        // Mostly values every unsigned field accepts (so the state deserialises and the
        // consistency checks are what is tested), now and then ones few fields accept.
        const EDGES: [i64; 8] = [0, 1, 2, 3, 7, 255, 65_536, u32::MAX as i64];
        match target {
            serde_json::Value::Number(_) => {
                *target = match how % 16 {
                    0 => serde_json::json!(-1),
                    1 => serde_json::json!(i64::MAX),
                    _ => serde_json::json!(EDGES[usize::from(how / 16) % EDGES.len()]),
                };
            }
            serde_json::Value::Array(a) => a.truncate(usize::from(how) % (a.len() + 1)),
            // Most keys are required: dropping one mostly gives a deserialisation error.
            serde_json::Value::Object(o) if how % 4 == 0 => {
                let key = o.keys().nth(usize::from(how / 4) % o.len().max(1)).cloned();
                if let Some(k) = key {
                    o.remove(&k);
                }
            }
            _ => {}
        }
    }
    let text = v.to_string();
    let steps = 200;
    match kind {
        0 => {
            let Ok(snap) = serde_json::from_str::<mapper::Snapshot>(&text) else {
                return;
            };
            let Ok(mut m) = Mapper::restore(snap) else {
                return;
            };
            drive_state(&mut m, steps, usize::MAX);
            let _ = m.progress();
            let _ = m.snapshot();
            let config = m.config().clone();
            let map = m.into_site_map();
            let _ = exemplar_core::pattern::learn_from_map(&map, &config, 0);
        }
        1 => {
            let Ok(map) = serde_json::from_str::<SiteMap>(&text) else {
                return;
            };
            let _ = map.breadth_first();
            let _ = map.near_misses(10);
            let _ = map.with_threshold(0.5);
            let config = state_map_config();
            let _ = exemplar_core::pattern::learn_from_map(&map, &config, 0);
            let like = ["http://state.test/about".to_string()];
            let corrections = exemplar_core::pattern::Corrections {
                like: like.to_vec(),
                ..Default::default()
            };
            let _ = exemplar_core::pattern::near_misses(&map, &corrections, 10);
            // The entry listed too (an empty map has no entry node).
            let _ = exemplar_core::pattern::doubtful_targets(&map, &corrections, &like, true, 20);
            let _ = exemplar_core::pattern::learn_from_map_corrected(map, &config, &corrections, 0);
        }
        _ => {
            let Ok(snap) = serde_json::from_str::<crawler::Snapshot>(&text) else {
                return;
            };
            let Ok(mut c) = Crawler::restore(snap) else {
                return;
            };
            drive_state(&mut c, steps, usize::MAX);
            let _ = c.progress();
            let _ = c.coverage();
            let _ = c.snapshot();
        }
    }
}
