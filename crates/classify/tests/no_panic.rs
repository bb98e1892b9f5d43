//! The core never panics and never overflows the stack, whatever the input: arbitrary and
//! HTML-ish bytes through parse + classify + compare, arbitrary trees through RTDM and views,
//! arbitrary JSON through `Tree` deserialization, mutated mapper/crawler snapshots and site maps,
//! and pathological shapes (100,000 levels deep,
//! 100,000 siblings wide).
//!
//! The checks are the fuzz targets' own (`exemplar_testkit::checks`), so a fuzz
//! finding turns into a test case here by pasting its bytes. Fuzzing itself: `fuzz/run.sh`.

use exemplar_testkit::checks;

use exemplar_classify::classify;
use exemplar_html::{Label, NodeId, Page, ParseOptions, Tree};
use exemplar_similarity::rtdm::{self, Prepared};
use exemplar_similarity::{Collapse, Options, View, compare_pages};
use proptest::prelude::*;

const URL: &str = "http://example.com/dir/page.html";

/// A fixed seed and no persistence: the suite is deterministic.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: prop::test_runner::RngSeed::Fixed(0x6578_656d_706c_6172),
        ..ProptestConfig::default()
    }
}

/// Parses, classifies and compares a page with itself, the fixed page and under every view.
fn exercise_html(html: &[u8]) {
    // Header bytes of `check_page_bytes`: default content type, first URL, small limits.
    for header in [[0u8, 0x3b, 0x05, 2], [0x83, 0x10, 0xc7, 9]] {
        let mut input = header.to_vec();
        if header[0] & 0x80 != 0 {
            input.extend_from_slice(b"text/html; charset=windows-1252\n");
        }
        input.extend_from_slice(html);
        checks::check_page_bytes(&input);
    }
}

// ---------------------------------------------------------------------------------------------
// HTML-ish generated documents.

const TAGS: &[&str] = &[
    "html",
    "head",
    "body",
    "div",
    "p",
    "a",
    "span",
    "b",
    "i",
    "ul",
    "li",
    "table",
    "tr",
    "td",
    "form",
    "input",
    "select",
    "option",
    "textarea",
    "button",
    "label",
    "base",
    "meta",
    "title",
    "script",
    "style",
    "template",
    "svg",
    "math",
    "iframe",
    "noscript",
    "frameset",
    "img",
    "h1",
    "xmp",
    "plaintext",
    "fieldset",
    "object",
    "isindex",
    "x-custom",
    "DIV",
    "",
];

const ATTRS: &[&str] = &[
    "href",
    "class",
    "id",
    "name",
    "type",
    "value",
    "action",
    "method",
    "form",
    "for",
    "charset",
    "content",
    "http-equiv",
    "rel",
    "selected",
    "checked",
    "src",
    "enctype",
    "onclick",
    "",
];

const VALUES: &[&str] = &[
    "",
    "/x",
    "javascript:void(0)",
    "http://[::1",
    "http://exa mple.com/%zz",
    "//evil.example/\u{0}",
    "mailto:",
    "../../../../..",
    "data:text/html,<b>",
    "\u{fffd}\u{202e}ب",
    "text/html; charset=utf-16",
    "noindex, nofollow",
    "checkbox",
    "radio",
    "hidden",
    "submit",
    "image",
    "file",
    "password",
    "date",
    "R$ 1.234,56",
    "a b c-1 d_2 postid-42",
];

fn attribute() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(ATTRS),
        prop_oneof![
            prop::sample::select(VALUES).prop_map(|v| v.as_bytes().to_vec()),
            (1usize..70_000).prop_map(|n| vec![b'x'; n]),
            prop::collection::vec(any::<u8>(), 0..40),
        ],
        0u8..4,
    )
        .prop_map(|(name, value, quote)| {
            let mut out = format!(" {name}").into_bytes();
            match quote {
                0 => {}
                1 => {
                    out.extend_from_slice(b"=\"");
                    out.extend_from_slice(&value);
                    out.push(b'"');
                }
                2 => {
                    out.extend_from_slice(b"='");
                    out.extend_from_slice(&value);
                }
                _ => {
                    out.push(b'=');
                    out.extend_from_slice(&value);
                }
            }
            out
        })
}

fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (prop::sample::select(TAGS), prop::collection::vec(attribute(), 0..3), any::<bool>())
            .prop_map(|(tag, attrs, self_close)| {
                let mut out = format!("<{tag}").into_bytes();
                for a in attrs {
                    out.extend_from_slice(&a);
                }
                out.extend_from_slice(if self_close { b"/>" } else { b">" });
                out
            }),
        2 => prop::sample::select(TAGS).prop_map(|t| format!("</{t}>").into_bytes()),
        2 => "[a-zA-Z0-9 .,$€çãé\\n]{0,30}".prop_map(String::into_bytes),
        1 => (prop::sample::select(TAGS), 1usize..1_000)
            .prop_map(|(t, n)| format!("<{t}>").repeat(n).into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..30),
        1 => prop::sample::select(&[
            "\0", "<!--", "-->", "<![CDATA[", "]]>", "<!doctype html>", "&amp;", "&#0;",
            "&#x110000;", "&notin", "<?xml?>", "\u{feff}", "<", ">", "</", "<base href=':'>",
            "<base href='http://other.example/x/'>", "<meta charset=shift_jis>",
            "<meta http-equiv=content-type content='text/html; charset=utf-16be'>",
            "<input form=nope type=radio name=r checked>", "<select><option><option selected>",
            "<form id=f1><form id=f2></form>", "<button form=f1 formaction=x>",
            "<textarea>\0</textarea>", "<table><form><tr><input></form></table>",
            "<a href=/1><a href=/2>x</a></a>", "<svg><foreignObject><p>", "<math><mi><table>",
        ][..])
        .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

fn html_ish() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(token(), 0..60).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn arbitrary_bytes_parse_classify_compare(
        data in prop::collection::vec(any::<u8>(), 0..2_000),
    ) {
        checks::check_page_bytes(&data);
    }
}

proptest! {
    #![proptest_config(config(32))]

    #[test]
    fn html_ish_documents_parse_classify_compare(html in html_ish()) {
        exercise_html(&html);
    }

    #[test]
    fn arbitrary_trees_keep_rtdm_invariants(
        data in prop::collection::vec(any::<u8>(), 0..120),
    ) {
        checks::check_rtdm_bytes_with(&data, 600);
    }

    #[test]
    fn arbitrary_tree_json_validates_or_errs(
        data in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut structured = vec![0u8];
        structured.extend_from_slice(&data);
        checks::check_tree_json(&structured);
        checks::check_tree_json(&data);
    }

    #[test]
    fn crawl_inputs_never_panic(
        lines in prop::collection::vec(
            prop_oneof![
                "[ -~]{0,40}",
                "(http|https|ftp)://[a-z.]{1,8}(:[0-9]{1,5})?(/[a-zA-Z0-9%._;=-]{0,6}){0,4}(\\?[a-z=&0-9]{0,10})?(#[a-z]{0,3})?",
                "(User-agent|Disallow|Allow|Crawl-delay|Sitemap): ?[ -~]{0,20}",
                "<a href=\"[ -~]{0,20}\">[a-z]{0,5}</a>",
                "<script src=\"[a-z/.]{0,8}(\\.js)?\"></script>",
                "var m = \\[\"[ -~]{0,10}(\\.html)?\", '[a-z/]{0,6}\\.html', /[\"']/g\\];",
                "<form action=\"[ -~]{0,12}\"( method=post)?><input name=q><select name=s><option>[a-z]{0,3}</select><input type=submit name=\"[ -~]{0,2}\" value=\"([0-9]{1,2}|Next)\"( disabled)?></form>",
            ],
            0..24,
        ),
    ) {
        checks::check_crawl_inputs(lines.join("\n").as_bytes());
    }

    #[test]
    fn arbitrary_bytes_as_crawl_inputs(data in prop::collection::vec(any::<u8>(), 0..600)) {
        checks::check_crawl_inputs(&data);
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// Mapper and crawler snapshots and site maps with numbers pointing nowhere, arrays cut
    /// short and keys dropped: restored and run, or refused, never a panic.
    #[test]
    fn mutated_saved_states_restore_or_err(data in prop::collection::vec(any::<u8>(), 2..18)) {
        checks::check_saved_state(&data);
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases.

#[test]
fn seed_corpus_inputs_pass() {
    for target in ["parse_classify", "rtdm", "tree_deserialize", "crawl_inputs"] {
        let dir = exemplar_testkit::root().join("fuzz/corpus").join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let data = std::fs::read(entry.path()).expect("corpus file reads");
            match target {
                "parse_classify" => checks::check_page_bytes(&data),
                "rtdm" => checks::check_rtdm_bytes(&data),
                "crawl_inputs" => checks::check_crawl_inputs(&data),
                _ => checks::check_tree_json(&data),
            }
        }
    }
}

#[test]
fn garbage_base_and_weird_forms() {
    let html = "<base href='ht!tp://::'><base href='/other/'>\
        <form action='http://[bad' method=DELETE enctype=\0>\
        <input type=IMAGE name=\u{0}><input type=unknown-type><input list=x>\
        <select multiple name=s><optgroup><option value>1<option>2</select>\
        <keygen><output for=x><datalist id=x><option value='\u{fffd}'></datalist>\
        <label for=nope><input type=checkbox checked=no></label>\
        <button type=reset formmethod=post>Go</button></form>\
        <input form=missing name=orphan><a href='\u{0}javascript:x'>x</a><a href>y</a>";
    exercise_html(html.as_bytes());
    let page = Page::from_html(html, URL).expect("parses");
    assert!(!page.controls.is_empty());
}

#[test]
fn invalid_utf8_and_nuls_in_every_encoding() {
    let body: Vec<u8> = [
        &b"<html><title>\xff\xfe\x00T\x00</title><p>\x80\x81\xc3\x28\xed\xa0\x80"[..],
        &b"\x00\x00<a href=\"\xf0\x28\x8c\xbc\">\x1b$B\x1b(J</a>"[..],
    ]
    .concat();
    for (i, ct) in checks::CONTENT_TYPES.iter().enumerate() {
        let _ = Page::parse(&body, URL, *ct, &ParseOptions::default());
        let mut input = vec![i as u8, 0x1f, 0x41, 5];
        input.extend_from_slice(&body);
        checks::check_page_bytes(&input);
    }
    // BOMs that contradict the header.
    for bom in [&b"\xef\xbb\xbf"[..], b"\xff\xfe", b"\xfe\xff"] {
        let input = [bom, &body].concat();
        let _ = Page::parse(
            &input,
            URL,
            Some("text/html; charset=utf-8"),
            &Default::default(),
        );
    }
}

#[test]
fn limits_give_clean_errors() {
    let html = "<div><p>x</p></div>".repeat(1_000);
    let tiny = ParseOptions {
        max_bytes: 100,
        max_nodes: 10,
        max_depth: 2,
    };
    let err = Page::parse(html.as_bytes(), URL, None, &tiny).expect_err("too large");
    assert!(err.is_too_large());
    let few = ParseOptions {
        max_bytes: 1 << 20,
        ..tiny
    };
    let err = Page::parse(html.as_bytes(), URL, None, &few).expect_err("too many nodes");
    assert!(err.is_too_large());
    assert!(Page::from_html("<p>", "no scheme").is_err());
    assert!(Page::from_html("<p>", "").is_err());
    let zero = ParseOptions {
        max_bytes: 0,
        max_nodes: 0,
        max_depth: 0,
    };
    let _ = Page::parse(b"", URL, None, &zero).map(|p| classify(&p));
    let _ = Page::parse(b"", URL, None, &ParseOptions::default()).map(|p| classify(&p));
}

/// Parses, classifies and compares (under the default and the full view) a huge page; returns
/// the page.
fn exercise_huge(html: &str) -> Page {
    let page = Page::parse(html.as_bytes(), URL, None, &ParseOptions::default())
        .expect("a huge page parses");
    let _ = classify(&page);
    let small = Page::from_html("<p>x</p>", URL).expect("parses");
    for view in [View::default(), View::FULL] {
        let options = Options {
            view,
            ..Options::default()
        };
        let own = compare_pages(&page, &page, &options);
        assert_eq!(own.comparison.distance, 0);
        let other = compare_pages(&page, &small, &options);
        checks::check_comparison(&other.comparison);
    }
    page
}

#[test]
fn hundred_thousand_deep_nesting() {
    for tag in ["div", "span", "li"] {
        let html = format!("<{tag}>").repeat(100_000) + "deep";
        let page = exercise_huge(&html);
        assert!(page.tree.height() <= ParseOptions::default().max_depth + 1);
    }
    // Formatting elements (adoption agency) and tables, nested less deep.
    for open in ["<b>", "<table><tr><td>", "<a href=x>", "<svg>"] {
        let _ = exercise_huge(&open.repeat(10_000));
    }
}

#[test]
fn hundred_thousand_wide_siblings() {
    let html = "<p>x</p>".repeat(100_000);
    let page = exercise_huge(&html);
    assert!(page.tree.len() > 200_000);
    let links = "<a href='/i/1'>i</a>".repeat(100_000);
    let page = exercise_huge(&links);
    assert_eq!(page.links.len(), 100_000);
}

/// Builds a tree from parent choices (names from the fuzz alphabet).
fn tree(labels: Vec<Label>, parents: &[Option<NodeId>]) -> Tree {
    let names = checks::ALPHABET
        .iter()
        .map(|&n| (Label::of(n), n.to_string()))
        .collect();
    Tree::from_preorder(labels, parents, names).expect("a valid preorder")
}

#[test]
fn rtdm_on_hundred_thousand_deep_and_wide_trees() {
    const N: usize = 100_000;
    let (a, b) = (Label::of("a"), Label::of("b"));
    let chain_parents: Vec<Option<NodeId>> = (0..N)
        .map(|i| i.checked_sub(1).map(|p| p as NodeId))
        .collect();
    let star_parents: Vec<Option<NodeId>> = (0..N).map(|i| (i > 0).then_some(0)).collect();
    let chain = tree(vec![a; N], &chain_parents);
    let mut chain_b_labels = vec![a; N];
    chain_b_labels[N - 1] = b;
    chain_b_labels[N / 2] = b;
    let chain_b = tree(chain_b_labels, &chain_parents);
    let star = tree(vec![a; N], &star_parents);
    let star_b = tree(
        (0..N).map(|i| if i % 3 == 0 { a } else { b }).collect(),
        &star_parents,
    );
    // Exact RTDM aligns two children lists in O(n·m): two different 100,000-wide lists are
    // 10^10 cells, so that pair only runs bounded and in decision mode.
    for (x, y) in [
        (&chain, &chain),
        (&chain, &chain_b),
        (&star, &star),
        (&chain, &star),
        (&star_b, &chain_b),
    ] {
        let c = rtdm::compare(x, y);
        checks::check_comparison(&c);
        assert_eq!(rtdm::distance_bounded(y, x, 1_000), c.distance.min(1_000));
    }
    let _ = rtdm::distance_bounded(&star, &star_b, 1_000);
    let _ = rtdm::is_similar(&star, &star_b, 0.999_9);
    assert_eq!(rtdm::distance(&chain, &chain_b), N as u32);
    let (pa, pb) = (Prepared::new(star.clone()), Prepared::new(star_b.clone()));
    assert_eq!(
        pa.distance_bounded(&pb, 500),
        rtdm::distance_bounded(&star, &star_b, 500)
    );
    assert_eq!(pa.compare(&pa), rtdm::compare(&star, &star));
    for collapse in [
        Collapse::None,
        Collapse::Consecutive,
        Collapse::All,
        Collapse::Merge,
    ] {
        let view = View {
            collapse,
            max_depth: Some(3),
            text: false,
            classes: true,
            ids: true,
            top_weight: 2,
            top_depth: 2,
            merge_above: 2,
        };
        for t in [&chain, &star_b] {
            checks::check_tree(&view.apply(t));
            checks::check_tree(
                &View {
                    max_depth: None,
                    ..view
                }
                .apply(t),
            );
        }
    }
    // Deep and wide trees through JSON and validation.
    let json = serde_json::to_vec(&chain).expect("serializes");
    let back: Tree = serde_json::from_slice(&json).expect("deserializes");
    assert_eq!(back.validated().expect("valid"), chain);
    let _ = Tree::parse_shape(&("a(".repeat(N) + &")".repeat(N))).expect("deep shape");
    let _ = Tree::parse_shape(&("a(".repeat(N) + &")".repeat(N - 1))).expect_err("unbalanced");
}

/// Fuzz regression (`fuzz/corpus/rtdm/regress_bounded_wide`): `a(a)` against a root with 4,999
/// children; an intermediate RTDM revision answered `distance_bounded(.., d + 1) = 1` for
/// `d = 4998` after the earlier budgets of the same check ran on the shared workspace.
#[test]
fn fuzz_regression_bounded_distance_on_a_wide_list() {
    checks::check_rtdm_bytes(&[0x78, 0x32, 0x09, 0x03, 0x00, 0x8d, 0xd7, 0xfe, 0xff]);
    let a = Tree::parse_shape("a(a)").expect("shape");
    let kids = ["b", "c", "div", "#text", "a"].repeat(1_000)[..4_999].join(" ");
    let b = Tree::parse_shape(&format!("a({kids})")).expect("shape");
    let d = rtdm::distance(&a, &b);
    assert_eq!(d, 4_998);
    for k in [0, 1, d - 1, d, d + 1, u32::MAX] {
        assert_eq!(rtdm::distance_bounded(&a, &b, k), d.min(k), "budget {k}");
    }
}

/// Fuzz regression (`fuzz/corpus/rtdm/regress_example_merge_chain`): an intermediate RTDM
/// revision gave `Example` (its own workspace) 807 and `rtdm::compare` (the thread-local one) 806
/// on an 803-node chain against a 7-node tree.
#[test]
fn fuzz_regression_example_agrees_on_a_long_chain() {
    let chain = Tree::parse_shape(&("a(".repeat(802) + "b" + &")".repeat(802))).expect("shape");
    let other = Tree::parse_shape("a(c div #text a(div) b)").expect("shape");
    assert_eq!(chain.len(), 803);
    let want = checks::ref_distance(&chain, &other);
    assert_eq!(rtdm::distance(&chain, &other), want);
    checks::check_pair(&chain, &other, [0x22, 0x09, 0x13]);
    checks::check_pair(&other, &chain, [0x23, 0x10, 0x03]);
}
