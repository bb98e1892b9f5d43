//! The tests of `pattern` (a sibling file: they outgrew the module).
#[test]
fn kind_verdicts_merge_with_the_latest_winning() {
    let c = |like: &[&str], unlike: &[&str]| Corrections {
        like_headings: like.iter().map(|s| s.to_string()).collect(),
        unlike_headings: unlike.iter().map(|s| s.to_string()).collect(),
        ..Corrections::default()
    };
    let old = c(&["Class virtual *"], &["* File Reference", "#"]);
    let m = old
        .merged(&c(&["* File Reference"], &["Class virtual *"]))
        .expect("merged");
    assert_eq!(m, c(&["* File Reference"], &["#", "Class virtual *"]));
    assert!(!m.is_empty() && c(&[], &[]).is_empty());
    let both = old.merged(&c(&["Struct *"], &["Struct *"]));
    assert!(both.is_err_and(|e| e.0.contains("both like and unlike")));
    let bad = old.merged(&c(&["<b>x</b>"], &[]));
    assert!(bad.is_err_and(|e| e.0.contains("not a heading template")));
}

#[test]
fn corrections_merge_with_the_latest_verdict_winning() {
    let c = |like: &[&str], unlike: &[&str]| Corrections {
        like: like.iter().map(|s| s.to_string()).collect(),
        unlike: unlike.iter().map(|s| s.to_string()).collect(),
        unlike_headings: vec![],
        like_headings: vec![],
        ..Corrections::default()
    };
    let old = c(
        &["http://a.test/x#top", "http://a.test/y"],
        &["http://a.test/z"],
    );
    let merged = old
        .merged(&c(&["http://a.test/z"], &["http://a.test/y"]))
        .expect("merged");
    assert_eq!(
        merged,
        c(
            &["http://a.test/x", "http://a.test/z"],
            &["http://a.test/y"]
        )
    );
    assert!(old.merged(&c(&["/rel"], &[])).is_err());
    let post = old.merged(&c(&["http://a.test/s#exemplar-post=q=x"], &[]));
    assert!(post.expect_err("a POST key").0.contains("POST"));
    let both = old.merged(&c(&["http://a.test/q"], &["http://a.test/q#f"]));
    assert!(both.expect_err("both ways").0.contains("both"));
    assert!(Corrections::default().is_empty() && !merged.is_empty());
}

use super::*;

/// The step into level `level` (paginated: by the level's own regex).
fn to_level(level: usize, paginated: bool) -> Option<Step> {
    Some(Step::Level { level, paginated })
}

#[test]
fn an_entry_without_links_is_named_as_the_reason() {
    use crate::map::{Node, NodeState};
    let node = |url: &str, similarity, links: Vec<u32>| Node {
        url: url.into(),
        parent: None,
        depth: 0,
        state: NodeState::Page,
        similarity: Some(similarity),
        unplaced: None,
        title: String::new(),
        heading: String::new(),
        lang: String::new(),
        links,
        form: None,
    };
    let mut map = SiteMap {
        entry: "http://h/".into(),
        example: "http://h/item/1".into(),
        threshold: 0.86,
        place_weight: 0.0,
        nodes: vec![node("http://h/", 0.3, vec![])],
        forms: vec![],
        target_links: false,
        scripted: Default::default(),
        sitemaps: vec![],
        sitemap_links: vec![],
        continued: Default::default(),
        listings: Default::default(),
        paged: Default::default(),
    };
    let scope = Scope::for_url("http://h/", false).expect("scope");
    let err = |map: &SiteMap| {
        learn(
            map,
            scope.clone(),
            Politeness::default(),
            similarity::Options::default(),
            &LearnConfig::default(),
            0,
        )
        .expect_err("no target")
        .to_string()
    };
    let alone = err(&map);
    assert!(alone.contains("among the 1 pages fetched"), "{alone}");
    assert!(alone.contains("links to no other page"), "{alone}");
    // With a page beyond the entry, the reason is not the entry's links.
    map.nodes[0].links = vec![1];
    map.nodes.push(Node {
        parent: Some(0),
        depth: 1,
        ..node("http://h/about", 0.5, vec![])
    });
    let more = err(&map);
    assert!(more.contains("among the 2 pages fetched"), "{more}");
    assert!(!more.contains("links to no other page"), "{more}");
}

/// A listing links every item and items link each other: the levels alone reach every
/// target on the map. Targets' links are followed when mapping visited them and they lead
/// to item-shaped pages mapping met but never fetched (its budget spent); a map that did
/// not visit them cannot tell where they lead, and a map holding the whole site has
/// nothing more to find there.
#[test]
fn targets_links_are_followed_at_equal_reach_only_towards_unfetched_targets() {
    use crate::map::{Node, NodeState};
    let node = linked_node;
    // 0 entry → 1 listing → items 2..=5; each item links the next (the last, the first).
    let mut nodes = vec![
        node("/", false, None, vec![1]),
        node("/list", false, Some(0), vec![2, 3, 4, 5]),
    ];
    for i in 2..=5u32 {
        let next = if i == 5 { 2 } else { i + 1 };
        nodes.push(node(&format!("/item/{i}"), true, Some(1), vec![next]));
    }
    let mut map = SiteMap {
        entry: "http://h/".into(),
        example: "http://h/item/2".into(),
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let looped = |map: &SiteMap| {
        let p = learn_h(map);
        assert_eq!(p.stats.targets_reached, 4, "{}", p.render());
        p.levels.last().expect("level").paginate
    };
    assert!(!looped(&map), "targets' links not visited");
    map.target_links = true;
    assert!(!looped(&map), "the whole site is on the map");
    // Item 5 also links item 6, which mapping met and had no budget left to fetch.
    map.nodes[5].links.push(6);
    map.nodes.push(Node {
        state: NodeState::Discovered,
        similarity: None,
        ..node("/item/6", false, Some(5), vec![])
    });
    assert!(looped(&map), "an item beyond the budget");
    map.target_links = false;
    assert!(!looped(&map), "targets' links not visited");
}

/// A verdict on a directory: its targets are left out of the pattern (listed, and the
/// pattern's last level reaches no page of it), the example and pages judged like it
/// excepted; the verdict is merged and validated like the others and printed.
#[test]
fn a_directory_judged_unlike_leaves_its_targets_out() {
    let node = linked_node;
    // 0 entry → 1 listing → modules 2..=4 in /mod/, guides 5..=7 in /guide/.
    let mut nodes = vec![
        node("/", false, None, vec![1]),
        node("/list", false, Some(0), vec![2, 3, 4, 5, 6, 7]),
    ];
    for path in [
        "/mod/a", "/mod/b", "/mod/c", "/guide/x", "/guide/y", "/guide/z",
    ] {
        nodes.push(node(path, true, Some(1), vec![]));
    }
    let map = SiteMap {
        entry: "http://h/".into(),
        example: "http://h/mod/a".into(),
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let learned = |c: &Corrections| {
        learn_corrected(
            map.clone(),
            Scope::for_url("http://h/", false).expect("scope"),
            Politeness::default(),
            similarity::Options::default(),
            c,
            0,
        )
        .expect("learned")
        .0
    };
    assert_eq!(learned(&Corrections::default()).known_targets.len(), 6);
    let c = Corrections {
        unlike_directories: vec!["http://h/guide/".into(), "http://h/mod/".into()],
        like: vec!["http://h/guide/y".into()],
        ..Corrections::default()
    };
    let p = learned(&c);
    assert_eq!(
        p.unlike_by_directory,
        [
            "http://h/guide/x",
            "http://h/guide/z",
            "http://h/mod/b",
            "http://h/mod/c"
        ]
    );
    assert_eq!(p.known_targets, ["http://h/guide/y", "http://h/mod/a"]);
    let shown = p.render();
    assert!(shown.contains("; 2 directories not like it\n"), "{shown}");
    assert!(
        shown.contains("4 targets left out: in a directory you judged not like the example's"),
        "{shown}"
    );
    let compiled = p.compile().expect("compile");
    assert_eq!(compiled.step(1, "http://h/guide/x"), None, "{}", p.render());
    assert_eq!(Pattern::from_json(&p.to_json()).expect("round trip"), p);
    // Merged like the other verdicts: the latest wins, malformed ones are refused.
    let m = c
        .merged(&Corrections {
            like_directories: vec!["http://H:80/mod/".into()],
            ..Corrections::default()
        })
        .expect("merged");
    assert_eq!(m.unlike_directories, ["http://h/guide/"]);
    assert_eq!(m.like_directories, ["http://h/mod/"]);
    for bad in ["/guide/", "http://h/guide", "http://h/guide/x"] {
        let e = c.merged(&Corrections {
            unlike_directories: vec![bad.into()],
            ..Corrections::default()
        });
        assert!(e.is_err_and(|e| e.0.contains("not a directory")), "{bad}");
    }
    // A pattern file naming a directory that is not one is refused.
    let mut broken = p.clone();
    broken.corrections.unlike_directories = vec!["http://h/guide".into()];
    assert!(Pattern::from_json(&broken.to_json()).is_err());
}

/// A fetched page `http://h{url}` of a test map: a target (similarity 0.95) or not (0.3),
/// with its parent and links.
fn linked_node(url: &str, target: bool, parent: Option<u32>, links: Vec<u32>) -> crate::map::Node {
    use crate::map::{Node, NodeState};
    Node {
        url: format!("http://h{url}"),
        parent,
        depth: parent.map_or(0, |_| 1),
        state: if target {
            NodeState::Target
        } else {
            NodeState::Page
        },
        similarity: Some(if target { 0.95 } else { 0.3 }),
        unplaced: None,
        title: String::new(),
        heading: String::new(),
        lang: String::new(),
        links,
        form: None,
    }
}

/// A pattern learned on a test map of `http://h/` with the default settings.
fn learn_h(map: &SiteMap) -> Pattern {
    learn(
        map,
        Scope::for_url("http://h/", false).expect("scope"),
        Politeness::default(),
        similarity::Options::default(),
        &LearnConfig::default(),
        0,
    )
    .expect("learn")
}

/// A listing linked only from a target (a class page linking another module's class
/// list): its level is followed from targets, and the pattern reaches its items; when the
/// entry links it too, nothing is gained and the level is not marked.
#[test]
fn a_listing_linked_only_from_targets_is_followed_from_targets() {
    // 0 entry → 1 /list/a → items 3, 4; item 3 → 2 /list/b → items 5, 6.
    let mut nodes = vec![
        linked_node("/", false, None, vec![1]),
        linked_node("/list/a", false, Some(0), vec![3, 4]),
        linked_node("/list/b", false, Some(3), vec![5, 6]),
    ];
    nodes.push(linked_node("/item/3", true, Some(1), vec![1, 2]));
    nodes.push(linked_node("/item/4", true, Some(1), vec![1]));
    nodes.push(linked_node("/item/5", true, Some(2), vec![2]));
    nodes.push(linked_node("/item/6", true, Some(2), vec![2]));
    let mut map = SiteMap {
        entry: "http://h/".into(),
        example: "http://h/item/3".into(),
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let p = learn_h(&map);
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    assert!(p.levels[0].from_targets, "{}", p.render());
    assert_eq!(p.stats.targets_reached, 4, "{}", p.render());
    let mut plain = p.clone();
    plain.levels[0].from_targets = false;
    assert_eq!(simulate(&plain, &map).expect("simulate").targets_reached, 2);
    // The entry links the second list too: the levels alone reach every item.
    map.nodes[0].links.push(2);
    let p = learn_h(&map);
    assert!(!p.levels[0].from_targets, "{}", p.render());
    assert_eq!(p.stats.targets_reached, 4, "{}", p.render());
}

/// The entry page scoring at least θ (a user who starts from the example page) is a
/// target of the pattern too, counted with the others; the user's verdict on it decides
/// over its score, and the example cannot be judged unlike itself.
#[test]
fn an_entry_like_the_example_is_a_target_too() {
    // 0 entry /item/1 (the example) → items 2, 3 and a listing 4 → item 5.
    let mut nodes = vec![linked_node("/item/1", false, None, vec![1, 2, 3])];
    nodes[0].similarity = Some(1.0);
    nodes.push(linked_node("/item/2", true, Some(0), vec![0]));
    nodes.push(linked_node("/item/3", true, Some(0), vec![0]));
    nodes.push(linked_node("/list", false, Some(0), vec![4]));
    nodes.push(linked_node("/item/5", true, Some(3), vec![0]));
    let map = SiteMap {
        entry: "http://h/item/1".into(),
        example: "http://h/item/1".into(),
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let entry = "http://h/item/1".to_string();
    let p = learn_h(&map);
    assert!(p.entry_target, "{}", p.render());
    assert!(p.known_targets.contains(&entry));
    assert_eq!((p.stats.targets, p.stats.targets_reached), (4, 4));
    assert!(p.render().contains("the entry page is like the example"));
    let json = p.to_json();
    assert!(json.contains("\"entryTarget\": true"), "{json}");
    assert_eq!(Pattern::from_json(&json).expect("read back"), p);
    // Below θ, it stays a listing only.
    let mut low = map.clone();
    low.nodes[0].similarity = Some(0.5);
    low.example = "http://h/item/2".into();
    let q = learn_h(&low);
    assert!(!q.entry_target && !q.known_targets.contains(&entry));
    assert_eq!((q.stats.targets, q.stats.targets_reached), (3, 3));
    assert!(!q.to_json().contains("entryTarget"), "absent when false");
    // Verdicts: like takes it whatever its score, unlike leaves it out; the map keeps it a
    // listing either way.
    let verdict = |map: &SiteMap, like: bool| {
        let c = Corrections {
            like: if like { vec![entry.clone()] } else { vec![] },
            unlike: if like { vec![] } else { vec![entry.clone()] },
            unlike_headings: vec![],
            like_headings: vec![],
            ..Corrections::default()
        };
        p.relearned(map.clone(), &c, 0)
    };
    let (liked, m) = verdict(&low, true).expect("like");
    assert!(liked.entry_target && liked.known_targets.contains(&entry));
    // Rendering is the driver's choice: a relearned pattern renders as the one it replaces.
    let drawn = Pattern {
        render: true,
        ..p.clone()
    };
    let (again, _) = drawn
        .relearned(low.clone(), &Corrections::default(), 0)
        .expect("relearns");
    assert!(again.render && !liked.render);
    assert_eq!(liked.stats.targets, 4);
    assert_eq!(m.nodes[0].state, crate::map::NodeState::Page);
    let mut other_example = map.clone();
    other_example.example = "http://h/item/2".into();
    let (unliked, _) = verdict(&other_example, false).expect("unlike");
    assert!(!unliked.entry_target && !unliked.known_targets.contains(&entry));
    assert_eq!(unliked.corrections.unlike, vec![entry.clone()]);
    let err = verdict(&map, false).expect_err("the example").to_string();
    assert!(err.contains("is the example page"), "{err}");
    // An entry never measured takes no verdict.
    let mut broken = low.clone();
    broken.nodes[0].state = crate::map::NodeState::HttpError { status: 500 };
    broken.nodes[0].similarity = None;
    let err = verdict(&broken, true).expect_err("unmeasured").to_string();
    assert!(
        err.contains("answered HTTP 500, so it was never measured"),
        "{err}"
    );
    // An entry of a kind judged unlike the example is left out with the targets of its kind.
    let mut headed = other_example.clone();
    for (i, (name, kind)) in [
        ("Alpha", "Struct"),
        ("Beta", "Class"),
        ("Gamma", "Class"),
        ("", ""),
        ("Delta", "Struct"),
    ]
    .iter()
    .enumerate()
    {
        if !name.is_empty() {
            headed.nodes[i].heading = format!("{name} {kind} Reference");
            headed.nodes[i].url = format!("http://h/item/{name}");
        }
    }
    headed.entry = headed.nodes[0].url.clone();
    headed.example = headed.nodes[1].url.clone();
    let struct_kind = Corrections {
        unlike_headings: vec!["* Struct Reference".into()],
        ..Corrections::default()
    };
    let (kinds, _) = learn_h(&headed)
        .relearned(headed.clone(), &struct_kind, 0)
        .expect("unlike kind");
    assert!(!kinds.entry_target, "{}", kinds.render());
    assert_eq!(
        kinds.unlike_by_heading,
        ["http://h/item/Alpha", "http://h/item/Delta"],
        "{}",
        kinds.render()
    );
    assert_eq!(kinds.stats.targets, 2);
}

#[test]
fn generalise_splits_only_where_negatives_demand() {
    let pos = [
        "http://h/sql-vacuum.html",
        "http://h/sql-analyze.html",
        "http://h/sql-copy.html",
        "http://h/app-pgdump.html",
        "http://h/app-psql.html",
    ];
    let r = generalise(&pos, &[], 2);
    assert_eq!(r.len(), 1, "{r:?}");
    let neg = ["http://h/tutorial-start.html"];
    let r = generalise(&pos, &neg, 2);
    let set = RegexSet::new(&r).expect("compiles");
    for p in pos {
        assert!(set.is_match(p), "{p} {r:?}");
    }
    assert!(!set.is_match(neg[0]), "{r:?}");
    assert!(
        set.is_match("http://h/sql-createtable.html"),
        "still general: {r:?}"
    );
}

/// gitweb's commit pages, as a blind run learned them: 40-digit hashes beside `h=HEAD`,
/// `h=refs/heads/main`, the bare `a=commit` and two `commitdiff` pages over the threshold,
/// while the other commitdiff pages are known negatives. Split by first character, the
/// hashes made 36 regexes, some literal; split by structure, one regex takes every hash.
#[test]
fn a_split_follows_the_urls_structure_before_their_letters() {
    let base = "http://h/gw.cgi?p=r.git;a=commit";
    let hashes: Vec<String> = (0..40u64)
        .map(|i| {
            (0..5)
                .map(|k| format!("{:08x}", (i + 1).wrapping_mul(0x9e37_79b9 + k)))
                .collect()
        })
        .collect();
    let mut pos: Vec<String> = hashes.iter().map(|h| format!("{base};h={h}")).collect();
    pos.extend([
        base.to_string(),
        format!("{base};h=HEAD"),
        format!("{base};h=refs/heads/main"),
        format!("{base}diff;h={}", hashes[0]),
        format!("{base}diff;h={}", hashes[1]),
    ]);
    let neg: Vec<String> = hashes[2..]
        .iter()
        .map(|h| format!("{base}diff;h={h}"))
        .collect();
    let pos: Vec<&str> = pos.iter().map(String::as_str).collect();
    let neg: Vec<&str> = neg.iter().map(String::as_str).collect();
    let g = generalise_excluding(&pos, &neg, 2, 0.5);
    let hash_re = r"^http://h/gw\.cgi\?p=r\.git;a=commit;h=[A-Za-z0-9]+$";
    assert!(g.regexes.iter().any(|r| r == hash_re), "{g:#?}");
    assert!(g.regexes.len() <= 5, "{g:#?}");
    let set = RegexSet::new(&g.regexes).expect("compiles");
    assert!(pos.iter().all(|p| set.is_match(p)));
    assert!(!neg.iter().any(|n| set.is_match(n)), "{g:#?}");
    assert!(set.is_match(&format!(
        "{base};h=0123456789abcdef0123456789abcdef01234567"
    )));
}

#[test]
fn few_known_exceptions_are_excluded_not_split_around() {
    let pos = [
        "http://h/class-alpha.html",
        "http://h/class-beta.html",
        "http://h/class-gamma.html",
        "http://h/class-delta.html",
    ];
    let neg = ["http://h/class-index.html", "http://h/about.html"];
    // One exception among four: kept general, the exception listed.
    let g = generalise_excluding(&pos, &neg, 2, 0.5);
    assert_eq!(g.regexes.len(), 1, "{g:?}");
    assert_eq!(g.exclude, vec!["http://h/class-index.html".to_string()]);
    let re = regex::Regex::new(&g.regexes[0]).expect("compiles");
    assert!(
        re.is_match("http://h/class-omega.html"),
        "new pages match: {g:?}"
    );
    // Splitting only: shaped after the names seen, so a new name is missed.
    let split = generalise(&pos, &neg, 2);
    let set = RegexSet::new(&split).expect("compiles");
    assert!(
        split.len() > 1 && !set.is_match("http://h/class-index.html"),
        "{split:?}"
    );
    assert!(!set.is_match("http://h/class-omega.html"), "{split:?}");
    // More exceptions than the ratio allows: split.
    let many = [
        "http://h/class-a1.html",
        "http://h/class-b1.html",
        "http://h/class-c1.html",
    ];
    let g = generalise_excluding(&pos, &many, 2, 0.5);
    assert!(g.exclude.is_empty(), "{g:?}");
    let set = RegexSet::new(&g.regexes).expect("compiles");
    assert!(pos.iter().all(|p| set.is_match(p)) && !many.iter().any(|n| set.is_match(n)));
}

#[test]
fn step_order_target_next_pagination() {
    let p = Pattern {
        schema: schema_url(),
        version: VERSION,
        site: "h".into(),
        entry: "http://h/".into(),
        example: "http://h/item/1".into(),
        similarity: similarity::Options::default(),
        scope: Scope::for_url("http://h/", false).expect("scope"),
        levels: vec![
            Level {
                regexes: vec![r"^http://h/list\?page=[0-9]+$".into()],
                paginate: true,
                from_targets: false,
                pages: 2,
                samples: vec![],
                form: None,
                exclude: vec![],
            },
            Level {
                regexes: vec![r"^http://h/item/[0-9]+$".into()],
                paginate: false,
                from_targets: false,
                pages: 2,
                samples: vec!["http://h/item/1".into()],
                form: None,
                exclude: vec!["http://h/item/0".into()],
            },
        ],
        max_pagination: 10,
        politeness: Politeness::default(),
        entry_target: false,
        known_targets: vec![],
        known_aliases: vec![],
        stats: LearnStats::default(),
        corrections: Corrections::default(),
        by_heading: vec![],
        unlike_by_heading: vec![],
        unlike_by_language: vec![],
        unlike_by_directory: vec![],
        heading_rule: None,
        script_links: false,
        render: false,
        fields: Vec::new(),
        dust_rules: Vec::new(),
    };
    let c = p.compile().expect("compile");
    assert_eq!(c.step(0, "http://h/item/3"), Some(Step::Target), "shortcut");
    assert_eq!(c.step(0, "http://h/item/0"), None, "an exclusion");
    assert!(!c.matches_level(1, "http://h/item/0"));
    assert!(c.matches_level(1, "http://h/item/10"));
    // The level's samples come under its regexes, not under its exceptions.
    assert!(
        p.render().contains(
            "      e.g. http://h/item/1\n    except 1 page seen while learning to be of another kind, e.g. http://h/item/0\n"
        ),
        "{}",
        p.render()
    );
    assert_eq!(c.step(0, "http://h/list?page=1"), to_level(1, false));
    assert_eq!(c.step(1, "http://h/list?page=2"), to_level(1, true));
    assert_eq!(c.step(1, "http://h/about"), None);
    // From a target: nothing, unless the listing level is followed from targets.
    assert_eq!(c.step(2, "http://h/list?page=3"), None);
    assert_eq!(c.step(2, "http://h/item/4"), None);
    assert!(!c.reads_targets());
    let mut up = p.clone();
    up.levels[0].from_targets = true;
    let u = up.compile().expect("compile");
    assert!(u.reads_targets());
    assert_eq!(u.step(2, "http://h/list?page=3"), to_level(1, false));
    assert_eq!(
        u.step(2, "http://h/item/4"),
        None,
        "the last level does not paginate"
    );
    assert!(up.render().contains("also followed from targets"));
    let back = Pattern::from_json(&up.to_json()).expect("round trip");
    assert_eq!(back, up);
    assert!(!p.to_json().contains("fromTargets"), "absent when false");
    // Only the level before the targets can be followed from targets.
    let mut wrong = p.clone();
    wrong.levels[1].from_targets = true;
    let e = Pattern::from_json(&wrong.to_json()).expect_err("the target level");
    assert!(e.0.contains("followed from targets"), "{e}");
    let back = Pattern::from_json(&p.to_json()).expect("round trip");
    assert_eq!(back, p);
    // Heading templates from an imported pattern are words and slots, nothing else.
    let mut kinds = p.clone();
    kinds.corrections.unlike_headings = vec!["* File Reference".into()];
    kinds.heading_rule = Some(crate::review::heading::HeadingRule {
        unlike: vec!["* File Reference".into()],
        ..crate::review::heading::HeadingRule::default()
    });
    let back = Pattern::from_json(&kinds.to_json()).expect("round trip");
    assert_eq!(back, kinds);
    kinds.corrections.unlike_headings = vec!["* File\u{1b}[2J".into()];
    let e = Pattern::from_json(&kinds.to_json()).expect_err("escape");
    assert!(e.0.contains("is not a heading template"), "{e}");
    kinds.corrections.unlike_headings.clear();
    kinds.heading_rule = Some(crate::review::heading::HeadingRule {
        templates: vec!["<script>*".into()],
        ..crate::review::heading::HeadingRule::default()
    });
    assert!(Pattern::from_json(&kinds.to_json()).is_err());
}

/// A page linking straight to a page two levels down (a home page linking a category's
/// listing): the crawl goes on from there at that level, but never back up.
#[test]
fn step_skips_ahead_to_a_deeper_level() {
    let levels = vec![
        level(r"^http://h/cat/[a-z]+$"),
        level(r"^http://h/cat/[a-z]+/list$"),
        level(r"^http://h/item/[0-9]+$"),
    ];
    let c = Compiled::from_levels(&levels).expect("compile");
    let list = to_level(2, false);
    assert_eq!(c.step(0, "http://h/cat/books/list"), list, "skips level 1");
    assert_eq!(c.step(1, "http://h/cat/books/list"), list, "the next level");
    assert_eq!(c.step(2, "http://h/cat/books"), None, "never back up");
    assert_eq!(c.step(0, "http://h/item/7"), Some(Step::Target));
    assert_eq!(c.step(0, "http://h/about"), None);
    // Two levels: nothing between the next level and the targets to skip to.
    let c = Compiled::from_levels(&levels[1..]).expect("compile");
    assert_eq!(c.step(0, "http://h/cat/books"), None);
}

#[test]
fn malformed_patterns_are_clear_errors() {
    let e = |s: &str| Pattern::from_json(s).expect_err("must fail").0;
    assert!(e("{").contains("not JSON"));
    assert!(e("{}").contains("no \"version\""));
    assert!(e(r#"{"version": 9}"#).contains("not supported"));
    assert!(e(r#"{"version": 1, "site": 3}"#).contains("invalid pattern"));
}

#[test]
fn version_1_documents_are_read_and_written_as_version_2() {
    let v1 = r#"{"$schema": "https://exemplar.dev/schemas/pattern-1.schema.json", "version": 1,
        "site": "h", "entry": "http://h/", "example": "http://h/item/1",
        "scope": {"site": "h", "includeSubdomains": false, "allow": [], "deny": []},
        "levels": [{"regexes": ["^http://h/item/[0-9]+$"], "paginate": false, "pages": 1, "samples": []}]}"#;
    let p = Pattern::from_json(v1).expect("a version 1 pattern reads");
    assert_eq!(p.version, VERSION);
    assert!(p.fields.is_empty());
    let written: serde_json::Value = serde_json::from_str(&p.to_json()).expect("json");
    assert_eq!(written["version"], 2);
    assert_eq!(written["$schema"], SCHEMA_URL);
    assert!(SCHEMA_URL.ends_with("pattern-2.schema.json"));
}
