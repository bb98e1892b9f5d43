//! The active check on in-memory hosts: a mirror under a prefix with a banner, a partial
//! mirror, another version, a host whose root redirects, and the probe budget.

use std::collections::HashMap;

use super::check::{CheckConfig, Checker};
use super::*;
use crate::fetch::{FetchResponse, FetchResult, Machine, Politeness, Poll, RequestKind};

/// Hosts as `host → path → body`; `REDIRECT URL` answers as after a redirect to URL.
type Web = HashMap<String, HashMap<String, String>>;

fn words(seed: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("t{}k{}", (seed * 6007 + i * 7877) % 50_021, i % 7))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A documentation site of `n` pages under `prefix`; `banner` before each page's text; page
/// `i` kept when `keep(i)`; `ext` after each page name.
fn docs(
    prefix: &str,
    ext: &str,
    n: usize,
    banner: &str,
    keep: impl Fn(usize) -> bool,
    edit: impl Fn(usize, String) -> String,
) -> HashMap<String, String> {
    let mut site = HashMap::new();
    // A partial mirror copies the pages it keeps as they are: its home page still links all.
    let links: String = (0..n)
        .map(|i| format!("<a href='{prefix}p{i}{ext}'>page {i}</a>"))
        .collect();
    site.insert(
        prefix.to_string(),
        format!(
            "<html><body>{banner}<h1>Docs {}</h1>{links}</body></html>",
            edit(999, "home".into())
        ),
    );
    for i in (0..n).filter(|i| keep(*i)) {
        site.insert(
            format!("{prefix}p{i}{ext}"),
            format!(
                "<html><body>{banner}<h1>Page {i}</h1><p>{}</p></body></html>",
                edit(i, words(i, 200))
            ),
        );
    }
    site
}

fn run(web: &Web, starts: &[&str], pairs: Vec<(usize, usize)>) -> (Vec<check::Verdict>, usize) {
    let config = CheckConfig {
        politeness: Politeness::unthrottled(2),
        ..CheckConfig::default()
    };
    let hp: Vec<HostPages> = starts
        .iter()
        .map(|s| HostPages {
            host: check::host_port(s).expect("host"),
            ..HostPages::default()
        })
        .collect();
    let starts = starts.iter().map(|s| s.to_string()).collect();
    let mut c = Checker::new(hp, starts, pairs, config).expect("checker");
    let mut fetches = 0;
    for _ in 0..100_000 {
        match c.poll(0) {
            Poll::Done => return (c.verdicts(), fetches),
            Poll::Fetch(r) => {
                let u = url::Url::parse(&r.url).expect("url");
                let host = match u.port() {
                    Some(p) => format!("{}:{p}", u.host_str().unwrap_or("")),
                    None => u.host_str().unwrap_or("").to_string(),
                };
                let path = u.path().to_string();
                let body = web.get(&host).and_then(|s| s.get(&path));
                let result = match (r.kind, body) {
                    (RequestKind::Robots, _) | (_, None) => FetchResponse {
                        status: 404,
                        final_url: r.url.clone(),
                        ..FetchResponse::default()
                    },
                    (_, Some(b)) if b.starts_with("REDIRECT ") => {
                        let to = &b["REDIRECT ".len()..];
                        let tu = url::Url::parse(to).expect("redirect");
                        let th = tu.host_str().unwrap_or("").to_string();
                        let tb = web
                            .get(&th)
                            .and_then(|s| s.get(tu.path()))
                            .cloned()
                            .unwrap_or_default();
                        FetchResponse {
                            status: 200,
                            final_url: to.to_string(),
                            headers: vec![("content-type".into(), "text/html".into())],
                            body: tb.into_bytes(),
                            truncated: false,
                        }
                    }
                    (_, Some(b)) => FetchResponse {
                        status: 200,
                        final_url: r.url.clone(),
                        headers: vec![("content-type".into(), "text/html".into())],
                        body: b.clone().into_bytes(),
                        truncated: false,
                    },
                };
                if r.kind == RequestKind::Page {
                    fetches += 1;
                }
                c.handle(r.id, FetchResult::Response(result), 0);
            }
            Poll::WaitUntil(_) | Poll::Busy => {}
        }
    }
    panic!("the check did not end");
}

#[test]
fn mirrors_merge_versions_do_not() {
    let all = |_: usize| true;
    let same = |_: usize, t: String| t;
    let mut web = Web::new();
    web.insert(
        "docs.example.org".into(),
        docs("/", ".html", 60, "", all, same),
    );
    // A mirror under a prefix, `.html` dropped, a banner with a timestamp on every page.
    let banner = format!("<div>{} mirrored 2026-12-05</div>", words(4242, 25));
    web.insert(
        "mirror.example.net".into(),
        docs("/mirror/ex/", "", 60, &banner, all, same),
    );
    // A partial mirror: a fifth of the pages.
    web.insert(
        "part.example.net".into(),
        docs("/", ".html", 60, "", |i| i % 5 == 0, same),
    );
    // The next version: its number on the home page and on every eighth page.
    web.insert(
        "v2.example.org".into(),
        docs("/", ".html", 60, "", all, |i, t| {
            if i % 8 == 0 || i == 999 {
                format!("version 2 {t}")
            } else {
                t
            }
        }),
    );
    let hosts = [
        "http://docs.example.org/",
        "http://mirror.example.net/mirror/ex/",
        "http://part.example.net/",
        "http://v2.example.org/",
    ];
    let (v, fetches) = run(&web, &hosts, vec![(0, 1), (0, 2), (0, 3)]);
    assert!(v[0].replica, "the mirror: {:?}", v[0]);
    assert_eq!(v[0].mapping.describe(), "/ → /mirror/ex/");
    assert!(v[1].replica, "the partial mirror: {:?}", v[1]);
    assert!(!v[2].replica, "another version: {:?}", v[2]);
    assert!(v.iter().all(|x| x.probes <= 6), "{v:?}");
    // Samples of 30 pages a host, then the probes.
    assert!(fetches <= 4 * 30 + 3 * 6, "{fetches}");
}

#[test]
fn a_root_that_redirects_names_its_host() {
    let mut web = Web::new();
    web.insert(
        "www.example.org".into(),
        docs("/", ".html", 10, "", |_| true, |_, t| t),
    );
    let mut bare = HashMap::new();
    bare.insert(
        "/".to_string(),
        "REDIRECT http://www.example.org/".to_string(),
    );
    web.insert("example.org".into(), bare);
    let (v, _) = run(
        &web,
        &["http://www.example.org/", "http://example.org/"],
        vec![(0, 1)],
    );
    assert!(v[0].replica && v[0].redirect, "{:?}", v[0]);
    assert_eq!(v[0].probes, 0);
}

#[test]
fn unrelated_hosts_and_unreachable_ones_are_not_merged() {
    let mut web = Web::new();
    web.insert(
        "a.test".into(),
        docs("/", ".html", 10, "", |_| true, |_, t| t),
    );
    web.insert(
        "b.test".into(),
        docs("/", ".html", 10, "", |_| true, |i, _| words(i + 77, 200)),
    );
    let (v, _) = run(
        &web,
        &["http://a.test/", "http://b.test/", "http://gone.test/"],
        check::all_pairs(3),
    );
    assert!(v.iter().all(|x| !x.replica), "{v:?}");
    assert!(Checker::new(vec![], vec![], vec![(0, 1)], CheckConfig::default()).is_err());
}
