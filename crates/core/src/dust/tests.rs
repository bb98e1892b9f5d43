use super::*;
use crate::map::Node;

fn page(url: &str) -> Node {
    Node::scored(url.into(), NodeState::Page, 0.5)
}

fn copy(url: &str, of: u32) -> Node {
    Node::scored(url.into(), NodeState::Duplicate { of }, 0.5)
}

fn map(nodes: Vec<Node>) -> SiteMap {
    SiteMap {
        entry: "http://b.test/".into(),
        example: "http://b.test/2024/01/a/".into(),
        threshold: 0.8,
        nodes,
        ..SiteMap::default()
    }
}

/// A blog: posts, each with `?replytocom=N` copies and an `index.html` copy; listings whose
/// `page/1/` is the listing itself.
fn blog() -> SiteMap {
    let mut nodes = vec![page("http://b.test/")];
    for (i, slug) in ["a", "b", "c", "d"].iter().enumerate() {
        let post = nodes.len() as u32;
        nodes.push(page(&format!("http://b.test/2024/01/{slug}/")));
        nodes.push(copy(
            &format!("http://b.test/2024/01/{slug}/?replytocom={}", 10 + i),
            post,
        ));
        nodes.push(copy(
            &format!("http://b.test/2024/01/{slug}/index.html"),
            post,
        ));
    }
    nodes.push(copy("http://b.test/page/1/", 0));
    nodes.push(page("http://b.test/page/2/"));
    for tag in ["x", "y", "z"] {
        let list = nodes.len() as u32;
        nodes.push(page(&format!("http://b.test/tag/{tag}/")));
        nodes.push(copy(&format!("http://b.test/tag/{tag}/page/1/"), list));
        nodes.push(page(&format!("http://b.test/tag/{tag}/page/2/")));
    }
    map(nodes)
}

fn kinds(rules: &[DustRule]) -> Vec<Rewrite> {
    rules.iter().map(|r| r.rewrite.clone()).collect()
}

#[test]
fn a_blogs_copies_give_their_rules_with_their_evidence() {
    let m = blog();
    let rules = mine(&m);
    assert_eq!(
        kinds(&rules),
        [
            Rewrite::DropParam {
                name: "replytocom".into(),
                value: None
            },
            Rewrite::DropSuffix {
                suffix: "index.html".into()
            },
            Rewrite::DropSuffix {
                suffix: "page/1/".into()
            },
        ]
    );
    assert_eq!(
        rules.iter().map(|r| r.support).collect::<Vec<_>>(),
        [4, 4, 4]
    );
    assert_eq!(
        rules[2].samples[0],
        [
            "http://b.test/page/1/".to_string(),
            "http://b.test/".to_string()
        ]
    );
    // Every copy is rewritten to the page mapping kept, every page to itself.
    for n in &m.nodes {
        let expect = match n.state {
            NodeState::Duplicate { of } => &m.nodes[of as usize].url,
            _ => &n.url,
        };
        assert_eq!(&apply(&rules, &n.url), expect, "{}", n.url);
    }
    // A URL not met while mapping is rewritten alike.
    assert_eq!(
        apply(&rules, "http://b.test/tag/new/page/1/?replytocom=99"),
        "http://b.test/tag/new/"
    );
    assert_eq!(
        apply(&rules, "http://b.test/tag/new/page/12/"),
        "http://b.test/tag/new/page/12/"
    );
}

#[test]
fn a_rule_that_would_merge_two_pages_is_refused() {
    // `?page=1` is the list, but `?page=2` is another page: only the value is dropped.
    let mut nodes = vec![page("http://b.test/")];
    for c in ["a", "b", "c"] {
        let list = nodes.len() as u32;
        nodes.push(page(&format!("http://b.test/cat/{c}")));
        nodes.push(copy(&format!("http://b.test/cat/{c}?page=1"), list));
        nodes.push(page(&format!("http://b.test/cat/{c}?page=2")));
    }
    let rules = mine(&map(nodes));
    assert_eq!(
        kinds(&rules),
        [Rewrite::DropParam {
            name: "page".into(),
            value: Some("1".into())
        }]
    );
    // Three directories whose `index.html` is their listing, and one whose `index.html` is
    // another page than the directory's: the rule would lose it, so there is none.
    let mut nodes = vec![page("http://d.test/")];
    for c in ["a", "b", "c"] {
        let dir = nodes.len() as u32;
        nodes.push(page(&format!("http://d.test/{c}/")));
        nodes.push(copy(&format!("http://d.test/{c}/index.html"), dir));
    }
    let m = map(nodes.clone());
    assert_eq!(mine(&m).len(), 1);
    nodes.push(page("http://d.test/docs/"));
    nodes.push(page("http://d.test/docs/index.html"));
    assert!(mine(&map(nodes)).is_empty());
}

#[test]
fn a_rule_that_turns_a_page_into_an_error_is_refused() {
    let mut nodes = vec![page("http://b.test/")];
    for c in ["a", "b", "c"] {
        let post = nodes.len() as u32;
        nodes.push(page(&format!("http://b.test/en/{c}/")));
        nodes.push(copy(&format!("http://b.test/EN/{c}/"), post));
    }
    let m = map(nodes.clone());
    assert_eq!(
        kinds(&mine(&m)),
        [Rewrite::Prefix {
            from: "/EN/".into(),
            to: "/en/".into()
        }]
    );
    // A page under /EN/ whose /en/ form answers 404: the prefix is no copy.
    nodes.push(page("http://b.test/EN/only-here/"));
    nodes.push(Node::scored(
        "http://b.test/en/only-here/".into(),
        NodeState::HttpError { status: 404 },
        0.0,
    ));
    assert!(mine(&map(nodes)).is_empty());
}

#[test]
fn two_pairs_are_no_rule_and_other_hosts_are_none() {
    let nodes = vec![
        page("http://b.test/"),
        page("http://b.test/a/"),
        copy("http://b.test/a/?ref=1", 1),
        page("http://b.test/b/"),
        copy("http://b.test/b/?ref=2", 3),
        page("http://c.test/x/"),
        copy("http://www.c.test/x/?ref=3", 5),
        page("http://c.test/y/"),
        copy("http://www.c.test/y/?ref=4", 7),
    ];
    assert!(mine(&map(nodes)).is_empty());
}

#[test]
fn rules_are_checked_as_documents_state_them() {
    let bad = [
        Rewrite::DropParam {
            name: String::new(),
            value: None,
        },
        Rewrite::DropSuffix {
            suffix: String::new(),
        },
        Rewrite::Prefix {
            from: "en/".into(),
            to: "/".into(),
        },
        Rewrite::Prefix {
            from: "/a/".into(),
            to: "/a/".into(),
        },
    ];
    assert!(bad.iter().all(|r| r.problem().is_some()));
    let rule: DustRule = serde_json::from_str(
        r#"{"kind": "dropSuffix", "suffix": "index.html", "support": 4, "samples": []}"#,
    )
    .expect("a rule");
    assert_eq!(rule.rewrite.problem(), None);
    assert_eq!(rule.rewrite.describe(), "drop index.html at a path's end");
    // A document's rules are one flat object each, written back as read; malformed ones are
    // refused with what is wrong.
    for text in [
        r#"{"kind":"dropParam","name":"page","value":"1","support":3,"samples":[["http://b.test/?page=1","http://b.test/"]]}"#,
        r#"{"kind":"dropSuffix","suffix":"page/1/","support":5,"samples":[]}"#,
        r#"{"kind":"prefix","from":"/EN/","to":"/en/","support":3,"samples":[]}"#,
    ] {
        let r: DustRule = serde_json::from_str(text).expect(text);
        assert_eq!(serde_json::to_string(&r).expect("JSON"), text);
    }
    for (text, why) in [
        (r#"{"kind":"dropParam","support":3}"#, "needs \"name\""),
        (
            r#"{"kind":"dropSuffix","suffix":"","support":3}"#,
            "empty suffix",
        ),
        (
            r#"{"kind":"prefix","from":"EN/","to":"/en/","support":3}"#,
            "start and end with /",
        ),
        (
            r#"{"kind":"replace","from":"a","to":"b","support":3}"#,
            "unknown variant",
        ),
    ] {
        let e = serde_json::from_str::<DustRule>(text)
            .expect_err(text)
            .to_string();
        assert!(e.contains(why), "{text}: {e}");
    }
    // Rewrites never panic on odd URLs, and leave what does not parse alone.
    for url in [
        "not a url",
        "http://b.test",
        "http://b.test/?",
        "mailto:a@b.test",
        "http://b.test/%zz/index.html",
    ] {
        let _ = rule.rewrite.apply(url);
        let _ = apply(std::slice::from_ref(&rule), url);
    }
    assert_eq!(apply(&[rule], "not a url"), "not a url");
}
