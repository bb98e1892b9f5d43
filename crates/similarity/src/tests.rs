//! The tests of `similarity` (a sibling file: they outgrew the module).
use super::*;

/// [`View::merged`] written plainly: every node visited, depths from [`branching_depths`].
fn merged_reference(
    view: &View,
    tree: &Tree,
    all_from: Option<u32>,
) -> Vec<(Label, Option<NodeId>)> {
    let mut labels: Vec<Label> = vec![view.label_of(tree, 0)];
    let mut kids: Vec<Vec<u32>> = vec![Vec::new()];
    let mut index: HashMap<(u32, Label), u32> = HashMap::new();
    let mut owner: Vec<NodeId> = vec![0];
    let mut trie_of: Vec<u32> = vec![0; tree.len()];
    let depths = branching_depths(tree);
    for n in 1..tree.len() as NodeId {
        let p = tree.parent(n).unwrap();
        let l = view.label_of(tree, n);
        let pt = trie_of[p as usize];
        if view.max_depth.is_some_and(|d| depths[n as usize] > d)
            || pt == u32::MAX
            || (!view.text && l == Label::TEXT)
        {
            trie_of[n as usize] = u32::MAX;
            continue;
        }
        let t = *index.entry((pt, l)).or_insert_with(|| {
            labels.push(l);
            kids.push(Vec::new());
            owner.push(n);
            kids[pt as usize].push(labels.len() as u32 - 1);
            labels.len() as u32 - 1
        });
        let keep = all_from.is_none_or(|m| depths[n as usize] < m) || owner[t as usize] == n;
        trie_of[n as usize] = if keep { t } else { u32::MAX };
    }
    let mut out = Vec::new();
    let mut stack: Vec<(u32, Option<NodeId>)> = vec![(0, None)];
    while let Some((t, parent)) = stack.pop() {
        let id = out.len() as NodeId;
        out.push((labels[t as usize], parent));
        stack.extend(kids[t as usize].iter().rev().map(|&c| (c, Some(id))));
    }
    out
}

proptest::proptest! {
    /// The merged views skip left-out subtrees and take depths on the way: the same trees
    /// as visiting every node.
    #[test]
    fn merged_views_are_the_plainly_merged_trees(
        shape in proptest::collection::vec((0u8..5, 0usize..4), 0..60),
        max_depth in proptest::option::of(0u32..5),
        merge_above in 0u32..4,
        merge in proptest::bool::ANY,
        text in proptest::bool::ANY,
    ) {
        let names = ["div", "p", "a", "#text"];
        let mut labels = vec![Label::of("html")];
        let mut parents: Vec<Option<NodeId>> = vec![None];
        let mut path: Vec<NodeId> = vec![0];
        for (k, &(up, name)) in shape.iter().enumerate() {
            path.truncate(path.len() - (up as usize % path.len()));
            labels.push(Label::of(names[name]));
            parents.push(path.last().copied());
            // Text has no children.
            if names[name] != "#text" {
                path.push(k as NodeId + 1);
            }
        }
        let tree = Tree::from_preorder(labels, &parents, Vec::new()).unwrap();
        let view = View {
            collapse: if merge { Collapse::Merge } else { Collapse::All },
            max_depth,
            text,
            merge_above: if merge { 0 } else { merge_above.max(1) },
            ..View::default()
        };
        let all_from = (!merge).then_some(view.merge_above);
        let shaped = view.shape(&tree);
        let got: Vec<(Label, Option<NodeId>)> = (0..shaped.len() as NodeId)
            .map(|n| (shaped.label(n), shaped.parent(n)))
            .collect();
        proptest::prop_assert_eq!(got, merged_reference(&view, &tree, all_from));
    }
}

fn t(s: &str) -> Tree {
    Tree::parse_shape(s).unwrap()
}

#[test]
fn consecutive_collapse_keeps_first_of_each_run() {
    let v = View {
        collapse: Collapse::Consecutive,
        ..View::default()
    };
    let out = v.shape(&t("ul(li(a) li(a b) li p li)"));
    assert_eq!(out.outline(), "ul\n  li\n    a\n  p\n  li\n");
}

#[test]
fn a_saved_view_without_merge_above_keeps_its_meaning() {
    let old = r#"{"collapse":"all","maxDepth":6,"text":true,"classes":true,"ids":true,"topWeight":4,"topDepth":4}"#;
    let view: View = serde_json::from_str(old).expect("an old view");
    assert_eq!(view.merge_above, 0);
    assert_eq!((view.top_weight, view.top_depth), (4, 4));
    // Other missing fields still take the default's values; a saved view round-trips.
    let partial: View = serde_json::from_str(r#"{"maxDepth":5}"#).expect("partial");
    assert_eq!(partial.top_weight, View::default().top_weight);
    let json = serde_json::to_string(&View::default()).expect("serializes");
    assert!(json.contains("\"mergeAbove\":3"), "{json}");
    assert_eq!(
        serde_json::from_str::<View>(&json).ok(),
        Some(View::default())
    );
}

#[test]
fn layout_siblings_that_share_a_label_are_merged() {
    // A Doxygen page with a tree view: the title bar, the side navigation and the content
    // are three plain `div`s under `body` (`div#top`, `div#side-nav`, `div#doc-content`).
    // Keeping only the first `div` dropped the content, so a class page and a file page
    // had one view.
    let page = |last: &str| {
        t(&format!(
            "html(head body(div(div.titlearea) div.side-nav(div) script \
             div(div.header(div.title) div.contents(table.memberdecls(tr tr tr) {last})) \
             div.navpath(ul)))"
        ))
    };
    let (class, file) = (page("hr"), page("div.textblock"));
    let first_only = View {
        merge_above: 0,
        ..View::default()
    };
    let d = |v: View| rtdm::distance(&v.apply(&class), &v.apply(&file));
    assert_eq!(d(first_only), 0);
    assert!(d(View::default()) > 0);
    // Below the layout, repeated siblings are still records: one row stands for all.
    let shaped = View::default().shape(&class).outline();
    assert_eq!(shaped.matches(" tr\n").count(), 1, "{shaped}");
    // Above it, the merged `div` holds the children of both.
    assert!(
        shaped.contains("    div\n      div.titlearea\n      div.header\n"),
        "{shaped}"
    );
}

#[test]
fn collapse_all_depth_and_text_options() {
    let v = View {
        collapse: Collapse::All,
        max_depth: Some(1),
        text: false,
        classes: false,
        ids: false,
        top_weight: 0,
        top_depth: 0,
        merge_above: 0,
    };
    let out = v.apply(&t("body(div(p) #text div span(b) #text)"));
    assert_eq!(out.outline(), "body\n  div\n  span\n");
    assert_eq!(View::FULL.apply(&t("a(b b)")).len(), 3);
}

#[test]
fn collapsed_view_makes_pages_with_more_items_alike() {
    let a = t("html(body(h1 ul(li(a) li(a) li(a))))");
    let b = t("html(body(h1 ul(li(a) li(a) li(a) li(a) li(a) li(a) li(a) li(a))))");
    let full = rtdm::similarity(&a, &b);
    let collapsed = rtdm::similarity(&View::default().apply(&a), &View::default().apply(&b));
    assert!(full < 0.8, "{full}");
    assert_eq!(collapsed, 1.0);
}

#[test]
fn merge_builds_the_label_path_trie() {
    let v = View {
        collapse: Collapse::Merge,
        ..View::default()
    };
    let out = v.shape(&t("ul(li(a) p li(b a) li)"));
    assert_eq!(out.outline(), "ul\n  li\n    a\n    b\n  p\n");
}

#[test]
fn default_view_uses_class_labels_and_cuts_depth() {
    let page = Page::from_html(
        "<div class='refentry x12'><p>a</p><p>b</p></div><div class=sect1></div>",
        "http://e.com/",
    )
    .unwrap();
    let out = View::default().shape(&page.tree);
    assert!(
        out.outline().contains("div.refentry\n"),
        "{}",
        out.outline()
    );
    assert!(out.outline().contains("div.sect1\n"));
    assert_eq!(out.outline().matches("  p\n").count(), 1);
    // Single-child wrappers do not count towards the depth cut; branching nodes do.
    let chain = Tree::parse_shape(&format!("{}k{}", "w(".repeat(12), ")".repeat(12))).unwrap();
    assert_eq!(View::default().shape(&chain).len(), chain.len());
    let mut shape = String::from("x");
    for _ in 0..12 {
        shape = format!("n(leaf {shape})");
    }
    let branchy = Tree::parse_shape(&shape).unwrap();
    let cut = View::default().shape(&branchy);
    assert!(cut.len() < branchy.len());
    assert_eq!(cut.height(), View::default().max_depth.unwrap_or(0));
}

#[test]
fn class_tokens_naming_the_page_leave_its_label() {
    // MediaWiki stamps the page's name on the body: every page's body label differed, and
    // two pages of one template compared as a replaced root (cppreference: 0.55 for all).
    let page = |url: &str, body: &str| {
        Page::from_html(
            &format!("<body class='{body}'><div class=nav><a href=x>x</a></div><div class=content><h1>T</h1><p>a</p></div>"),
            url,
        )
        .unwrap()
    };
    let alike = |x: &Page, y: &Page| {
        compare_pages(x, y, &Options::default())
            .comparison
            .similarity
    };
    let a = page(
        "http://e.com/en/cpp/algorithm/sort.html",
        "mediawiki ltr page-cpp_algorithm_sort",
    );
    let b = page(
        "http://e.com/en/cpp/container/array.html",
        "mediawiki ltr page-cpp_container_array",
    );
    let outline = View::default().shape(&a.tree).outline();
    assert!(outline.contains("body.ltr.mediawiki\n"), "{outline}");
    assert_eq!(alike(&a, &b), 1.0);
    // WordPress's archive pages (`category-news` on /category/news/), case-insensitive.
    let c = page("http://e.com/category/News/", "archive category-news");
    let d = page("http://e.com/category/sport/", "archive category-sport");
    assert_eq!(alike(&c, &d), 1.0);
    // WordPress files each post's article under its categories and tags.
    let post = |url: &str, class: &str| {
        Page::from_html(
            &format!("<body class='single single-post'><article class='{class}'><h1 class=entry-title>T</h1><div class=entry-content><p>a</p></div></article>"),
            url,
        )
        .unwrap()
    };
    let p1 = post(
        "http://e.com/2024/05/hello-world/",
        "post-12 post type-post hentry category-news tag-rust",
    );
    let p2 = post(
        "http://e.com/2024/06/another-day/",
        "post-345 post type-post hentry category-sport Tag-Football tag-cup",
    );
    let outline = View::default().shape(&p1.tree).outline();
    assert!(
        outline.contains("article.hentry.post.type-post\n"),
        "{outline}"
    );
    assert_eq!(alike(&p1, &p2), 1.0);
    // MediaWiki at the site's root: `page-` names the page.
    let g = page(
        "http://e.com/wiki/Paris",
        "mediawiki page-Paris rootpage-Paris",
    );
    let h = page(
        "http://e.com/wiki/Albert_Einstein",
        "mediawiki page-Albert_Einstein",
    );
    assert_eq!(alike(&g, &h), 1.0);
    // A token equal to the page's name, ending with it without a separator, or a template's
    // word that ends with it (javadoc's layout `flex-box` on `javax/swing/Box.html`) stays.
    for (url, class) in [
        ("http://e.com/table.html", "table"),
        ("http://e.com/box.html", "checkbox"),
        ("http://e.com/api/javax/swing/Box.html", "flex-box"),
    ] {
        let outline = View::default().shape(&page(url, class).tree).outline();
        assert!(
            outline.contains(&format!("body.{class}\n")),
            "{url}: {outline}"
        );
    }
    let b = page("http://e.com/api/javax/swing/Box.html", "flex-box");
    let s = page("http://e.com/api/java/lang/String.html", "flex-box");
    assert_eq!(alike(&b, &s), 1.0);
}

#[test]
fn id_kinds_separate_pages_of_one_template() {
    let page = |id: &str, url: &str| {
        Page::from_html(
            &format!("<body><div class=nav><a href=x>x</a></div><section id='{id}'><h1>T</h1><p>a</p><p>b</p></section>"),
            url,
        )
        .unwrap()
    };
    let json = page("module-json", "http://e.com/library/json.html");
    let re = page("module-re", "http://e.com/library/re.html");
    let runners = page("runners", "http://e.com/library/asyncio-runner.html");
    let with = Options::default();
    let without = Options {
        view: View {
            ids: false,
            ..View::default()
        },
        ..Options::default()
    };
    assert!(
        View::default()
            .shape(&json.tree)
            .outline()
            .contains("section#module-\n")
    );
    let sim = |a: &Page, b: &Page, o: &Options| compare_pages(a, b, o).comparison.similarity;
    assert_eq!(sim(&json, &re, &with), 1.0);
    assert_eq!(sim(&json, &runners, &without), 1.0);
    // The section is relabelled: its whole subtree differs.
    let d = compare_pages(&json, &runners, &with).comparison;
    let section = View::default()
        .apply(&json.tree)
        .labels()
        .iter()
        .filter(|l| json.tree.label_name(**l) == "section#module-")
        .count();
    assert!(section > 0);
    assert!(d.distance > 2 * 4, "{d:?}");
    assert!(d.similarity < 1.0);
    // Without `classes`, ids are not used either.
    let tags = View {
        classes: false,
        ..View::default()
    };
    assert_eq!(tags.apply(&json.tree), tags.apply(&runners.tree));
}

#[test]
fn top_weights_make_shallow_differences_cost_more() {
    let v = View {
        collapse: Collapse::None,
        max_depth: None,
        text: true,
        classes: false,
        ids: false,
        top_weight: 2,
        top_depth: 2,
        merge_above: 0,
    };
    // Branching depths: r 0, a and b 1, their children 2 and deeper.
    let base = t("r(a(x(p q) y) b)");
    let w = v.apply(&base);
    // r counts 5, a and b 3 each, the rest once.
    assert_eq!(w.len(), 5 + 3 + 3 + 4);
    assert_eq!(v.shape(&base).len(), base.len());
    let shallow = t("r(a(x(p q) y) c)");
    let deep = t("r(a(x(p z) y) b)");
    let d = |x: &Tree, y: &Tree| rtdm::distance(&v.apply(x), &v.apply(y));
    assert_eq!(
        rtdm::distance(&base, &shallow),
        rtdm::distance(&base, &deep)
    );
    assert_eq!(d(&base, &deep), 2);
    assert_eq!(d(&base, &shallow), 6);
    assert_eq!(d(&base, &base), 0);
    // No weights: the shape itself.
    let plain = View { top_weight: 0, ..v };
    assert_eq!(plain.apply(&base), base);
}

#[test]
fn example_kinds_are_declared_by_any_id_with_their_prefix() {
    let page = |head: &str, body: &str, url: &str| {
        let html =
            format!("<body><section id='{head}'><h1>{body}</h1><p>a</p></section><p>x</p></body>");
        Page::from_html(&html, url).unwrap()
    };
    let json = page(
        "module-json",
        "json — JSON",
        "http://e.com/library/json.html",
    );
    let expat = page(
        "module-xml.parsers.expat",
        "xml.parsers.expat — Expat",
        "http://e.com/library/pyexpat.html",
    );
    // A C-API page titled "Module Objects": its id is its heading's anchor.
    let objects = page(
        "module-objects",
        "Module Objects",
        "http://e.com/library/module.html",
    );
    let options = Options::default();
    let ex_kinds = options.example_kinds(&json.tree);
    assert_eq!(ex_kinds.len(), 1);
    assert_eq!(ex_kinds[0].prefix, "module-");
    assert_eq!(declared_kinds(&ex_kinds, &expat.tree), [ex_kinds[0].label]);
    assert!(declared_kinds(&ex_kinds, &objects.tree).is_empty());
    let mut ex = Example::new(&json, options);
    assert_eq!(ex.compare(&expat).kind_agreement, 1.0);
    assert_eq!(
        ex.compare(&objects).kind_agreement,
        1.0 - DEFAULT_KIND_WEIGHT
    );
}

#[test]
fn a_directory_of_look_alikes_is_supported_a_stray_one_is_not() {
    let dir = |d: &str| place(&format!("http://e.com/{d}/x.html"));
    let (ex, gui, news, deep) = (dir("core"), dir("gui"), dir("news"), dir("core/sub"));
    let mut pages: Vec<(&[String], f64)> = vec![(&news, 0.95), (&news, 0.5), (&news, 0.4)];
    pages.extend([(&gui[..], 0.9); PLACE_SUPPORT]);
    // The example's own directory and those below it never need support.
    pages.extend([(&ex[..], 0.99), (&deep[..], 0.99)]);
    let supported = supported_places(&ex, pages.iter().copied(), 0.875);
    assert_eq!(supported.len(), 1);
    assert!(supported.contains(gui.as_slice()));
    // Below θ the same pages give no support.
    assert!(supported_places(&ex, pages.iter().copied(), 0.95).is_empty());
}

#[test]
fn pages_outside_the_example_place_lose_the_place_weight() {
    assert_eq!(place("http://e.com/library/json.html"), ["library"]);
    assert_eq!(place("http://e.com/2019/01/post-7/"), ["#", "#"]);
    assert!(place("http://e.com/index.html").is_empty());
    assert!(place("not a url").is_empty());
    assert!(place("file:///home/me/saved/page.html").is_empty());
    let lib = place("http://e.com/library/json.html");
    let w = DEFAULT_PLACE_WEIGHT;
    assert_eq!(
        place_agreement(&lib, &place("http://e.com/library/re.html"), w),
        1.0
    );
    assert_eq!(
        place_agreement(&lib, &place("http://e.com/library/x/y.html"), w),
        1.0
    );
    assert_eq!(
        place_agreement(&lib, &place("http://e.com/whatsnew/2.5.html"), w),
        1.0 - w
    );
    assert_eq!(
        place_agreement(&lib, &place("http://e.com/index.html"), w),
        1.0 - w
    );
    assert_eq!(place_agreement(&[], &lib, w), 1.0);
    let dated = place("http://e.com/2019/01/a.html");
    assert_eq!(
        place_agreement(&dated, &place("http://e.com/2020/12/b.html"), w),
        1.0
    );

    let html = "<body><div class='item'><h1>T</h1><p>a</p></div></body>";
    let a = Page::from_html(html, "http://e.com/library/a.html").unwrap();
    let b = Page::from_html(html, "http://e.com/library/b.html").unwrap();
    let c = Page::from_html(html, "http://e.com/whatsnew/c.html").unwrap();
    let options = Options {
        threshold: 0.95,
        ..Options::default()
    };
    let mut ex = Example::new(&a, options);
    let same = ex.compare(&b);
    assert_eq!(
        (same.place_agreement, same.score, same.similar),
        (1.0, 1.0, true)
    );
    let away = ex.compare(&c);
    assert_eq!(away.comparison.similarity, 1.0);
    assert_eq!(away.place_agreement, 1.0 - w);
    assert!(!away.similar && !ex.is_similar(&c) && ex.is_similar(&b));
    // Prepared from a bare tree, the example has no place.
    let mut bare = Example::from_tree(&a.tree, options);
    assert_eq!(bare.compare(&c).place_agreement, 1.0);
    let off = Options {
        place_weight: 0.0,
        ..options
    };
    assert!(Example::new(&a, off).is_similar(&c));
    assert!(
        Options {
            place_weight: -0.1,
            ..Options::default()
        }
        .validate()
        .is_err()
    );
}

#[test]
fn kind_agreement_scales_pages_lacking_the_example_kinds() {
    let (a, b) = (Label::of("section#module-"), Label::of("div#post-"));
    assert_eq!(kind_agreement(&[], &[a], 0.5), 1.0);
    assert_eq!(kind_agreement(&[a], &[a, b], 0.5), 1.0);
    assert_eq!(kind_agreement(&[a], &[], 0.5), 0.5);
    assert_eq!(kind_agreement(&[a, b], &[b], 0.5), 0.75);
    assert_eq!(kind_agreement(&[a], &[b], 1.0), 0.0);
    assert_eq!(kind_agreement(&[a], &[b], 0.0), 1.0);
    let html =
        |id: &str| format!("<body><section id='{id}'><h1>T</h1><p>a</p></section><p>x</p></body>");
    let json = Page::from_html(&html("module-json"), "http://e.com/json.html").unwrap();
    let re = Page::from_html(&html("module-re"), "http://e.com/re.html").unwrap();
    let intro = Page::from_html(&html("intro"), "http://e.com/intro.html").unwrap();
    assert_eq!(kinds(&json.tree).len(), 1);
    assert_eq!(kinds(&json.tree), kinds(&re.tree));
    assert!(kinds(&intro.tree).is_empty());
    for theta in [0.0, 0.2, 0.4, 0.6, 1.0] {
        let options = Options {
            threshold: theta,
            ..Options::default()
        };
        let mut ex = Example::new(&json, options);
        assert_eq!(ex.kinds().len(), 1);
        let same = ex.compare(&re);
        assert_eq!(same.kind_agreement, 1.0);
        assert_eq!(same.score, same.comparison.similarity);
        let other = ex.compare(&intro);
        assert_eq!(other.kind_agreement, 1.0 - DEFAULT_KIND_WEIGHT);
        assert_eq!(
            other.score,
            other.comparison.similarity * other.kind_agreement
        );
        assert_eq!(other.similar, other.score >= theta);
        assert_eq!(ex.is_similar(&intro), other.similar, "θ={theta}");
        assert_eq!(ex.is_similar(&re), same.similar, "θ={theta}");
    }
    // Kinds do not count when the view leaves ids out or the weight is 0.
    for options in [
        Options {
            kind_weight: 0.0,
            ..Options::default()
        },
        Options {
            view: View {
                ids: false,
                ..View::default()
            },
            ..Options::default()
        },
    ] {
        assert_eq!(
            Example::new(&json, options).compare(&intro).kind_agreement,
            1.0
        );
    }
    assert!(
        Options {
            kind_weight: 2.0,
            ..Options::default()
        }
        .validate()
        .is_err()
    );
}

#[test]
fn auto_threshold_splits_two_clusters() {
    let sims = [0.1, 0.15, 0.2, 0.22, 0.3, 0.85, 0.9, 0.92, 0.95];
    let t = auto_threshold(&sims);
    assert!((0.3..0.85).contains(&t), "{t}");
    assert_eq!(auto_threshold(&[0.5]), DEFAULT_THRESHOLD);
    assert_eq!(auto_threshold(&[0.4, 0.4, f64::NAN]), DEFAULT_THRESHOLD);
}

#[test]
fn remembered_comparisons_are_the_comparisons() {
    let html = [
        "<body><div class=a><h1>T</h1><p>x</p></div></body>",
        "<body><div class=a><h1>T</h1><p>x</p><p>y</p><ul><li>1</ul></div></body>",
        "<body><div class=b><h2>U</h2></div><div class=a><p>z</p></div></body>",
        "<body><table><tr><td>1<td>2</table></body>",
    ];
    let pages: Vec<Page> = html
        .iter()
        .enumerate()
        .map(|(i, h)| Page::from_html(h, &format!("http://e.com/d{}/p.html", i % 2)).unwrap())
        .collect();
    let options = Options::default();
    let mut ex = Example::new(&pages[0], options);
    for &i in &[1, 2, 1, 3, 0, 2, 3, 1] {
        let fresh = Example::new(&pages[0], options).compare(&pages[i]);
        assert_eq!(ex.compare(&pages[i]), fresh, "page {i}");
        let plain = rtdm::compare(
            &options.view.apply(&pages[0].tree),
            &options.view.apply(&pages[i].tree),
        );
        assert_eq!(fresh.comparison, plain, "page {i}");
    }
    assert_eq!(ex.compared.len(), 4);
}

#[test]
fn example_decision_mode_agrees_with_exact() {
    let a = Page::from_html("<ul><li><a href=a>x</a></ul><p>t", "http://e.com/").unwrap();
    let b = Page::from_html("<ul><li><a href=b>y</a><li>z</ul>", "http://e.com/").unwrap();
    for theta in [0.0, 0.5, 0.8, 0.9, 1.0] {
        let mut ex = Example::new(
            &a,
            Options {
                threshold: theta,
                ..Options::default()
            },
        );
        let v = ex.compare(&b);
        assert_eq!(ex.is_similar(&b), v.similar, "θ={theta}");
        assert_eq!(v.similar, v.comparison.similarity >= theta);
    }
}

/// Top weights beyond the bounds are refused (each weighted node becomes a chain of
/// nodes), and a view that was never validated is weighed as if clamped, without overflow.
#[test]
fn top_weights_are_bounded() {
    let with = |top_weight, top_depth| Options {
        view: View {
            top_weight,
            top_depth,
            ..View::default()
        },
        ..Options::default()
    };
    assert!(with(MAX_TOP_WEIGHT, MAX_TOP_DEPTH).validate().is_ok());
    let err = with(MAX_TOP_WEIGHT + 1, 4)
        .validate()
        .expect_err("too heavy");
    assert!(err.contains("top weight must be at most 16"), "{err}");
    assert!(with(4, u32::MAX).validate().is_err());
    let t = Tree::parse_shape("html(body(div(p p) div))").expect("tree");
    let huge = View {
        top_weight: u32::MAX,
        top_depth: u32::MAX,
        ..View::default()
    };
    let clamped = View {
        top_weight: MAX_TOP_WEIGHT,
        top_depth: MAX_TOP_DEPTH,
        ..View::default()
    };
    assert_eq!(huge.weigh(&t).len(), clamped.weigh(&t).len());
}

#[test]
fn options_validate_threshold() {
    assert!(Options::default().validate().is_ok());
    assert!(
        Options {
            threshold: 1.5,
            ..Options::default()
        }
        .validate()
        .is_err()
    );
    assert!(
        Options {
            threshold: f64::NAN,
            ..Options::default()
        }
        .validate()
        .is_err()
    );
}
