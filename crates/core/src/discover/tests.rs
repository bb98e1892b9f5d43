//! A small web held in memory: six lamp shops (one template, varied a little per shop), three
//! blogs, a search engine (words and related pages) and a backlink provider, all answered by
//! the test's driver.
use std::collections::BTreeMap;

use super::*;
use crate::fetch::{FetchRequest, FetchResponse};

const SHOPS: usize = 6;
const BLOGS: usize = 3;

fn shop_page(s: usize, i: usize, extra: &str) -> String {
    let mut p = format!(
        "<html><head><title>Lamp {i} - Shop {s}</title>\
         <script type='application/ld+json'>{{\"@type\": \"Product\", \"name\": \"Lamp {i}\"}}</script>\
         </head><body><nav class='menu{s}'><a href='/'>Home</a> <a href='/about/'>About</a> \
         <a href='/products/'>Products</a></nav><div class='item s{s}'><h1>Brass lamp {i}</h1><img src=a.jpg>\
         <p>Price: $ {i}0.00</p><table><tr><th>Height</th><td>{i}0 cm</td></tr><tr><th>Bulb</th><td>E27</td></tr></table>"
    );
    for k in 0..3 {
        p.push_str(&format!(
            "<p>This brass lamp gives a warm light for reading; the shade is linen and the \
             cable braided. Note {k}.</p>"
        ));
    }
    p.push_str(&format!(
        "<button>Add to cart</button></div>{extra}</body></html>"
    ));
    p
}

fn blog_post(b: usize, i: usize, extra: &str) -> String {
    let mut p = format!(
        "<html><head><title>Walk {i} - Hiking blog {b}</title>\
         <script type='application/ld+json'>{{\"@type\": \"BlogPosting\"}}</script></head><body>\
         <header><a href='/'>Hiking {b}</a> <a href='/about/'>About me</a></header><article><h1>A walk in the hills, day {i}</h1>\
         <p class='date'>2024-05-{i:02}</p>"
    );
    for k in 0..4 {
        // Blog 1 writes about lamps: its words are the shops', its pages are posts.
        p.push_str(&if b == 1 {
            format!("<p>My brass lamp gives a warm light for reading; its shade is linen and its cable braided. Part {k}.</p>")
        } else {
            format!(
                "<p>We left the village at dawn and climbed the ridge through pine woods, \
                 stopping by the river for lunch before the long descent. Part {k}.</p>"
            )
        });
    }
    p.push_str(&format!(
        "</article>{extra}<footer>Comments are closed.</footer></body></html>"
    ));
    p
}

fn listing(title: &str, links: &[(String, String)]) -> String {
    let mut l = format!(
        "<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> <a href='/about/'>About</a></nav><h1>{title}</h1><ul>"
    );
    for (href, text) in links {
        l.push_str(&format!("<li><a href='{href}'>{text}</a></li>"));
    }
    l.push_str("</ul></body></html>");
    l
}

/// The web: URL → page.
fn web() -> BTreeMap<String, String> {
    let mut w = BTreeMap::new();
    for s in 1..=SHOPS {
        let host = format!("http://shop{s}.test");
        // Shop 1 links shop 2, shop 2 links shop 3: the only links between shops.
        let partner = match s {
            1 | 2 => format!(
                "<footer>Partner: <a href='http://shop{}.test/'>another lamp shop</a></footer>",
                s + 1
            ),
            _ => String::new(),
        };
        let items: Vec<(String, String)> = (1..=14)
            .map(|i| (format!("/product/{i}"), format!("Brass lamp number {i}")))
            .collect();
        w.insert(
            format!("{host}/"),
            listing(&format!("Shop {s}: all lamps"), &items)
                .replace("</body>", &format!("{partner}</body>")),
        );
        w.insert(
            format!("{host}/products/"),
            listing(&format!("Shop {s}: all lamps"), &items),
        );
        w.insert(format!("{host}/about/"), listing("About us", &[]));
        for i in 1..=14 {
            w.insert(format!("{host}/product/{i}"), shop_page(s, i, &partner));
        }
    }
    for b in 1..=BLOGS {
        let host = format!("http://blog{b}.test");
        // Blog 1 writes about a lamp of shop 4.
        let extra = if b == 1 {
            "<p>My lamp came from <a href='http://shop4.test/product/2'>this shop</a>.</p>"
                .to_string()
        } else {
            String::new()
        };
        let posts: Vec<(String, String)> = (1..=14)
            .map(|i| {
                (
                    format!("/posts/{i}"),
                    format!("A walk in the hills, day {i}"),
                )
            })
            .collect();
        w.insert(
            format!("{host}/"),
            listing(&format!("Hiking blog {b}"), &posts),
        );
        w.insert(format!("{host}/about/"), listing("About me", &[]));
        for i in 1..=14 {
            w.insert(format!("{host}/posts/{i}"), blog_post(b, i, &extra));
        }
    }
    w
}

fn param(url: &str, key: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    u.query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

fn results(title: &str, urls: &[&String]) -> String {
    let mut r =
        format!("<html><head><title>{title}</title></head><body><a href='/help'>Help</a><ol>");
    for u in urls.iter().take(10) {
        r.push_str(&format!("<li><a href='{u}'>{u}</a></li>"));
    }
    r.push_str("</ol></body></html>");
    r
}

/// The services' answers, or the page at the URL.
fn answer(
    w: &BTreeMap<String, String>,
    url: &str,
    search_fails: bool,
) -> Option<(u16, String, &'static str)> {
    let html = "text/html; charset=utf-8";
    if url.starts_with("http://search.test/related") {
        let of = param(url, "url")?;
        let host = of.split('/').nth(2)?.to_string();
        let kind = if host.starts_with("shop") {
            "/product/"
        } else {
            "/posts/"
        };
        let like: Vec<&String> = w
            .keys()
            .filter(|u| u.contains(kind) && !u.contains(&host) && u.ends_with("/3"))
            .collect();
        return Some((200, results("Related", &like), html));
    }
    if url.starts_with("http://search.test/") {
        if search_fails {
            return Some((
                200,
                "\u{0}\u{1}garbage<<<".into(),
                "application/octet-stream",
            ));
        }
        let q = param(url, "q")?;
        let words: Vec<String> = q.split_whitespace().map(str::to_lowercase).collect();
        let hits: Vec<&String> = w
            .iter()
            .filter(|(_, p)| words.iter().all(|t| p.to_lowercase().contains(t.as_str())))
            .map(|(u, _)| u)
            .collect();
        // Spread over hosts, as engines do: one page of each in turn.
        let mut by_host: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
        for u in hits {
            by_host
                .entry(u.split('/').nth(2).unwrap_or(""))
                .or_default()
                .push(u);
        }
        let mut spread = Vec::new();
        for round in 0..20 {
            spread.extend(by_host.values().filter_map(|v| v.get(round).copied()));
        }
        return Some((200, results("Search", &spread), html));
    }
    if url.starts_with("http://links.test/") {
        let of = param(url, "url")?;
        let host = of.split('/').nth(2)?.to_string();
        let linking: Vec<&String> = w
            .iter()
            .filter(|(u, p)| !u.contains(&host) && p.contains(&format!("http://{host}/")))
            .map(|(u, _)| u)
            .collect();
        return Some((200, results("Backlinks", &linking), html));
    }
    w.get(url).map(|p| (200, p.clone(), html))
}

struct Run {
    discovery: Discovery,
    asked: Vec<String>,
}

fn run(seeds: &[&str], config: DiscoverConfig, search_fails: bool) -> Run {
    run_held(seeds, config, search_fails, 1)
}

/// The answer the test's web gives a request.
fn respond(w: &BTreeMap<String, String>, r: &FetchRequest, search_fails: bool) -> FetchResult {
    let response = |status: u16, ctype: &str, body: Vec<u8>| {
        FetchResult::Response(FetchResponse {
            status,
            final_url: r.url.clone(),
            headers: vec![("content-type".into(), ctype.into())],
            body,
            ..FetchResponse::default()
        })
    };
    if r.kind == RequestKind::Robots {
        return if r.url.starts_with("http://closed.test/") {
            response(200, "text/plain", b"User-agent: *\nDisallow: /\n".to_vec())
        } else {
            response(404, "text/plain", Vec::new())
        };
    }
    match answer(w, &r.url, search_fails) {
        Some((status, body, ctype)) => response(status, ctype, body.into_bytes()),
        None => response(404, "text/html", Vec::new()),
    }
}

/// Pumps a run, holding up to `hold` requests before answering them together (in the order
/// asked), as a driver with that many connections does.
fn run_held(seeds: &[&str], config: DiscoverConfig, search_fails: bool, hold: usize) -> Run {
    run_on(&web(), seeds, config, search_fails, hold)
}

/// [`run_held`] on the web `w`.
fn run_on(
    w: &BTreeMap<String, String>,
    seeds: &[&str],
    config: DiscoverConfig,
    search_fails: bool,
    hold: usize,
) -> Run {
    let seeds: Vec<String> = seeds.iter().map(|s| s.to_string()).collect();
    let mut d = Discoverer::new(&seeds, config).expect("discoverer");
    let mut asked = Vec::new();
    let mut held: Vec<FetchRequest> = Vec::new();
    let mut now = 0;
    // A machine that says Busy with nothing in flight would hold a real driver up until its
    // next tick (or end its run).
    let mut busy = 0;
    for _ in 0..100_000 {
        let polled = d.poll(now);
        match polled {
            Poll::Done => {
                assert_eq!(busy, 0, "Busy with nothing in flight");
                return Run {
                    discovery: d.into_discovery(),
                    asked,
                };
            }
            Poll::Fetch(r) => {
                if r.kind == RequestKind::Page {
                    asked.push(r.url.clone());
                }
                held.push(r);
                if held.len() < hold {
                    continue;
                }
            }
            Poll::WaitUntil(t) => now = t.max(now + 1),
            Poll::Busy => {
                busy += usize::from(held.is_empty());
                now += 1;
            }
        }
        for r in held.drain(..) {
            let result = respond(w, &r, search_fails);
            d.handle(r.id, result, now);
        }
    }
    panic!("the run did not end");
}

fn config() -> DiscoverConfig {
    DiscoverConfig {
        search: Some("http://search.test/?q={q}".into()),
        related: Some("http://search.test/related?url={url}".into()),
        backlinks: Some("http://links.test/?url={url}".into()),
        politeness: Politeness::unthrottled(4),
        detect: DetectConfig {
            politeness: Politeness::unthrottled(4),
            ..DetectConfig::default()
        },
        ..DiscoverConfig::default()
    }
}

const SEEDS: [&str; 3] = [
    "http://shop1.test/product/1",
    "http://shop1.test/product/5",
    "http://shop1.test/product/9",
];

fn hosts(d: &Discovery) -> Vec<String> {
    let mut h: Vec<String> = d
        .sites
        .iter()
        .map(|s| host_of(&s.site).to_string())
        .collect();
    h.sort();
    h
}

#[test]
fn every_other_shop_is_found_and_no_blog() {
    let r = run(&SEEDS, config(), false);
    let d = &r.discovery;
    assert_eq!(
        hosts(d),
        [
            "shop2.test",
            "shop3.test",
            "shop4.test",
            "shop5.test",
            "shop6.test"
        ],
        "{d:#?}"
    );
    assert_eq!(d.seed_sites, ["http://shop1.test/"]);
    for s in &d.sites {
        assert!(s.examples.iter().all(|e| e.contains("/product/")), "{s:?}");
        assert!(s.entry.starts_with(&s.site));
        assert!(s.score >= config().relevant && s.score <= 1.0, "{s:?}");
    }
    assert!(
        !r.asked
            .iter()
            .any(|u| u.contains("blog2.test") || u.contains("blog3.test"))
            || d.refused
                .iter()
                .all(|p| p.contains("blog") || p.contains("shop"))
    );
    assert!(
        d.refused.iter().all(|p| !p.contains("shop")),
        "{:?}",
        d.refused
    );
    // The blog linking a shop is met, and never listed: its posts score too low to try its
    // site, or its site is refused.
    assert!(
        r.asked.iter().any(|u| u.contains("blog1.test")),
        "{:?}",
        r.asked
    );
    let blog = d
        .pages
        .iter()
        .filter(|p| p.url.contains("blog1.test"))
        .map(|p| p.score)
        .fold(0.0, f64::max);
    assert!(
        blog < config().probe || d.refused.iter().any(|p| p.contains("blog1.test")),
        "blog1 scored {blog}: {:?}",
        d.refused
    );
    // Pages are ranked too, best first, none of the seed site.
    assert!(d.pages.len() > 20, "{}", d.pages.len());
    assert!(d.pages.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(d.pages.iter().all(|p| !p.url.contains("shop1.test")));
    assert!(
        d.pages[..10].iter().all(|p| p.url.contains("/product/")),
        "{:?}",
        &d.pages[..10]
    );
    // Every ranked page was met, and the pages met are in the order of the fetches spent.
    assert!(d.met.len() >= d.pages.len());
    assert!(d.met.windows(2).all(|w| w[0].fetches <= w[1].fetches));
    assert!(d.met.iter().all(|m| m.fetches <= d.fetches));
    assert!(d.pages.iter().all(|p| d.met.iter().any(|m| m.url == p.url)));
    // The harvest only grows.
    assert!(
        d.harvest
            .windows(2)
            .all(|w| w[0].relevant_pages < w[1].relevant_pages && w[0].fetches <= w[1].fetches)
    );
    assert!(
        d.fetches <= 5000
            && d.fetches
                == r.asked
                    .iter()
                    .filter(|u| !u.contains("search.test") && !u.contains("links.test"))
                    .count(),
        "{} fetches",
        d.fetches
    );
}

#[test]
fn forward_crawl_alone_follows_the_links_there_are() {
    let c = DiscoverConfig {
        search: None,
        related: None,
        backlinks: None,
        ..config()
    };
    let r = run(&SEEDS, c, false);
    assert_eq!(
        hosts(&r.discovery),
        ["shop2.test", "shop3.test"],
        "{:#?}",
        r.discovery
    );
    assert!(
        r.discovery
            .rounds
            .iter()
            .all(|x| x.operator == Operator::Forward)
    );
    assert_eq!(r.discovery.queries, 0);
    assert!(
        !r.asked
            .iter()
            .any(|u| u.contains("search.test") || u.contains("links.test"))
    );
}

#[test]
fn a_search_engine_answering_garbage_costs_its_calls_and_nothing_else() {
    let c = DiscoverConfig {
        related: None,
        backlinks: None,
        max_queries: 5,
        ..config()
    };
    let r = run(&SEEDS, c, true);
    let d = &r.discovery;
    assert_eq!(hosts(d), ["shop2.test", "shop3.test"], "{d:#?}");
    assert!(d.queries <= 5 && d.queries >= 1, "{}", d.queries);
    assert!(
        d.problems
            .iter()
            .any(|p| p.starts_with("keyword ") && p.contains("not HTML")),
        "{:?}",
        d.problems
    );
    // An engine that answers nothing at all (404s).
    let c = DiscoverConfig {
        search: Some("http://nothing.test/?q={q}".into()),
        related: None,
        backlinks: None,
        max_queries: 3,
        ..config()
    };
    let r = run(&SEEDS, c, false);
    assert_eq!(hosts(&r.discovery), ["shop2.test", "shop3.test"]);
    assert_eq!(r.discovery.queries, 3);
}

#[test]
fn budgets_are_never_passed() {
    // Eight requests in flight at once: pages asked beyond the budget would show.
    for max in [1, 10, 40, 200] {
        let c = DiscoverConfig {
            max_fetches: max,
            max_queries: 3,
            ..config()
        };
        let r = run_held(&SEEDS, c, false, 8);
        let pages = r
            .asked
            .iter()
            .filter(|u| !u.contains("search.test") && !u.contains("links.test"))
            .count();
        assert!(
            pages <= max,
            "{pages} page fetches in flight for a budget of {max}"
        );
        assert!(r.discovery.fetches <= max);
        assert!(r.discovery.queries <= 3);
    }
    for max in [1, 10, 40] {
        let c = DiscoverConfig {
            max_fetches: max,
            max_queries: 2,
            ..config()
        };
        let r = run(&SEEDS, c, false);
        let pages = r
            .asked
            .iter()
            .filter(|u| !u.contains("search.test") && !u.contains("links.test"))
            .count();
        assert!(pages <= max, "{pages} page fetches for a budget of {max}");
        assert!(r.discovery.queries <= 2);
        assert!(r.asked.len() - pages <= 2, "{:?}", r.asked);
    }
}

#[test]
fn each_policy_keeps_to_its_operators() {
    let c = DiscoverConfig {
        policy: Policy::Only(Operator::Keyword),
        ..config()
    };
    let r = run(&SEEDS, c, false);
    assert!(
        r.discovery
            .rounds
            .iter()
            .all(|x| x.operator == Operator::Keyword)
    );
    assert!(hosts(&r.discovery).len() >= 4, "{:#?}", r.discovery);
    let c = DiscoverConfig {
        policy: Policy::Random(7),
        ..config()
    };
    let a = run(&SEEDS, c.clone(), false);
    let b = run(&SEEDS, c, false);
    assert_eq!(
        a.discovery, b.discovery,
        "a seeded random policy is deterministic"
    );
    let r = run(&SEEDS, config(), false);
    let used: HashSet<Operator> = r.discovery.rounds.iter().map(|x| x.operator).collect();
    assert_eq!(
        used.len(),
        4,
        "the bandit tries each operator: {:?}",
        r.discovery.rounds
    );
}

#[test]
fn bad_settings_are_refused() {
    assert!(Discoverer::new(&[], config()).is_err());
    assert!(Discoverer::new(&["ftp://x/".into()], config()).is_err());
    let c = DiscoverConfig {
        search: Some("http://search.test/?q=".into()),
        ..config()
    };
    assert!(
        Discoverer::new(&[SEEDS[0].into()], c)
            .err()
            .unwrap_or_default()
            .contains("{q}")
    );
    // Seeds robots.txt forbids end the run with a reason, at once.
    let r = run(
        &["http://closed.test/a", "http://closed.test/b"],
        config(),
        false,
    );
    assert!(r.discovery.sites.is_empty());
    assert_eq!(r.discovery.fetches, 0);
    assert!(
        r.discovery
            .problems
            .iter()
            .any(|p| p.contains("disallowed by robots.txt")),
        "{:?}",
        r.discovery.problems
    );
    assert!(
        r.discovery
            .problems
            .iter()
            .any(|p| p.contains("no seed page")),
        "{:?}",
        r.discovery.problems
    );
    // Seeds that cannot be read end the run with a reason.
    let r = run(&["http://nowhere.test/a"], config(), false);
    assert!(r.discovery.sites.is_empty());
    assert!(
        r.discovery
            .problems
            .iter()
            .any(|p| p.contains("no seed page")),
        "{:?}",
        r.discovery.problems
    );
}

#[test]
fn a_patterns_seeds_are_its_example_targets_and_samples_once_each() {
    let targets: Vec<String> = (0..30).map(|i| format!("http://h/item/{i}")).collect();
    let json = serde_json::json!({
        "version": crate::pattern::VERSION,
        "site": "h",
        "entry": "http://h/",
        "example": "http://h/item/7",
        "scope": {"site": "h"},
        "levels": [
            {"regexes": ["^http://h/list/\\d+$"], "samples": ["http://h/list/1"]},
            {"regexes": ["^http://h/item/\\d+$"], "samples": ["http://h/item/0", "http://h/item/99"]},
        ],
        "knownTargets": targets[..3],
    });
    let pattern: crate::pattern::Pattern = serde_json::from_value(json).expect("a pattern");
    // The example first, each URL once, then the last level's samples (not the listings').
    assert_eq!(
        seeds_of_pattern(&pattern),
        [
            "http://h/item/7",
            "http://h/item/0",
            "http://h/item/1",
            "http://h/item/2",
            "http://h/item/99"
        ]
    );
    let mut many = pattern.clone();
    many.known_targets = targets;
    let seeds = seeds_of_pattern(&many);
    assert_eq!(seeds.len(), MAX_SEEDS);
    assert_eq!(seeds[..2], ["http://h/item/7", "http://h/item/0"]);
}

#[test]
fn a_copy_of_a_seed_site_or_of_a_site_found_is_a_replica_not_a_site() {
    // www.shop1.test serves the seed site's pages; shop4-copy.test serves shop 4's under
    // /lamps/. Each is found as the other shops are (the search engine knows their pages).
    let mut w = web();
    let copies: Vec<(String, String)> = w
        .iter()
        .filter_map(|(u, p)| {
            if let Some(rest) = u.strip_prefix("http://shop1.test/") {
                Some((format!("http://www.shop1.test/{rest}"), p.clone()))
            } else {
                u.strip_prefix("http://shop4.test/").map(|rest| {
                    let p = p.replace("href='/", "href='/lamps/");
                    (format!("http://shop4-copy.test/lamps/{rest}"), p)
                })
            }
        })
        .collect();
    w.extend(copies);
    let d = run_on(&w, &SEEDS, config(), false, 1).discovery;
    let listed = hosts(&d);
    assert!(
        !listed.contains(&"www.shop1.test".to_string()),
        "{listed:?}"
    );
    assert_eq!(
        listed.iter().filter(|h| h.starts_with("shop4")).count(),
        1,
        "one of shop 4 and its copy: {listed:?}"
    );
    for shop in ["shop2.test", "shop3.test", "shop5.test", "shop6.test"] {
        assert!(listed.contains(&shop.to_string()), "{shop} in {listed:?}");
    }
    let of = |site: &str| {
        d.replicas
            .iter()
            .find(|r| r.site == site)
            .map(|r| r.of.as_str())
    };
    assert_eq!(
        of("http://www.shop1.test/"),
        Some("http://shop1.test/"),
        "{:?}",
        d.replicas
    );
    assert!(
        of("http://shop4-copy.test/lamps/") == Some("http://shop4.test/")
            || of("http://shop4.test/") == Some("http://shop4-copy.test/lamps/"),
        "{:?}",
        d.replicas
    );
    // Shops that are no copies are never taken for one (their pages name their own shop).
    assert_eq!(d.replicas.len(), 2, "{:?}", d.replicas);
}

#[test]
fn a_site_holding_sites_found_before_takes_them_in_as_one_record() {
    let mut d = Discoverer::new(&SEEDS.map(String::from), config()).expect("discoverer");
    // Two sections of one shop, each found first as a site of its own and listed.
    for (part, score) in [("a", 0.9), ("b", 0.7)] {
        d.sites.push(Site {
            prefix: format!("http://shop7.test/{part}/"),
            state: SiteState::Accepted,
            entry: format!("http://shop7.test/{part}/"),
            examples: vec![format!("http://shop7.test/{part}/product/1")],
            scores: vec![score],
            checks: vec![score],
            samples_left: 0,
            found_by: Operator::Keyword,
            backlinks_used: false,
            print: None,
            probes_left: 0,
        });
        let i = d.sites.len() - 1;
        d.accept(i);
    }
    assert_eq!(d.result.sites.len(), 2);
    // A page linking the shop's home shows the site they are part of.
    let detection = Detection {
        site: "http://shop7.test/".into(),
        entity_site: true,
        sections: Vec::new(),
        fetches: 3,
        visited: Vec::new(),
    };
    d.detected(
        detection,
        Pending {
            url: "http://shop7.test/c/product/1".into(),
            score: 0.8,
            op: Operator::Forward,
            prefix: "http://shop7.test/".into(),
            entry: "http://shop7.test/".into(),
        },
    );
    let open: Vec<&Site> = d
        .sites
        .iter()
        .filter(|s| s.prefix == "http://shop7.test/" && s.state != SiteState::Merged)
        .collect();
    assert_eq!(open.len(), 1, "one record for the shop");
    assert_eq!(open[0].scores.len(), 2, "both parts' evidence");
    let listed: Vec<&str> = d.result.sites.iter().map(|s| s.site.as_str()).collect();
    assert_eq!(listed, ["http://shop7.test/"]);
    // Later pages of either part count for that one record.
    let i = d.site_of("http://shop7.test/b/product/9").expect("a site");
    assert_eq!(d.sites[i].state, SiteState::Accepted);
    assert_eq!(
        d.sites
            .iter()
            .filter(|s| s.open() && s.prefix.contains("shop7"))
            .count(),
        1
    );
}

#[test]
fn markup_tells_a_generators_kind_under_another_theme() {
    // A module page of one theme, the same kind of page under another theme (other layout,
    // other words, the generator's own class names), and a narrative page of the first theme.
    let seed = "<html><body><div class='wrapper'><div class='body'><section id='module-a'>\
        <h1>a module</h1><dl class='py function'><dt class='sig sig-object py'>\
        <span class='sig-name descname'>run</span></dt><dd><p>Runs it.</p></dd></dl>\
        <dl class='py class'><dt class='sig sig-object py'><span class='sig-name descname'>Job\
        </span></dt><dd><p>A job.</p></dd></dl></section></div></div></body></html>";
    let other_theme = "<html><body><nav class='rst-nav'><ul><li>x</li><li>y</li></ul></nav>\
        <main class='rst-content'><h1>b module</h1><dl class='py function'>\
        <dt class='sig sig-object py'><span class='sig-name descname'>fetch</span></dt>\
        <dd><p>Fetches pages from the network.</p></dd></dl></main></body></html>";
    let narrative = "<html><body><div class='wrapper'><div class='body'><section id='intro'>\
        <h1>Introduction</h1><p>Welcome to the tutorial.</p><ul class='simple'><li>one</li>\
        </ul></section></div></div></body></html>";
    let page = |h: &str, u: &str| crate::dom::Page::from_html(h, u).expect("a page");
    let seeds = [("s".to_string(), &page(seed, "http://s.test/a.html"))];
    let mut p = Profile::new(&seeds, 0.3, 0.4);
    let kind = p.score(&page(other_theme, "http://o.test/b.html"));
    let not_kind = p.score(&page(narrative, "http://s2.test/intro.html"));
    // Markup (the second part) ranks the other theme's module page first.
    assert!(kind.2 > 0.8, "{kind:?}");
    assert!(not_kind.2 < 0.3, "{not_kind:?}");
    assert!(kind.0 > not_kind.0, "{kind:?} {not_kind:?}");
    // Without its weight, the score is structure and words alone.
    let mut plain = Profile::new(&seeds, 0.5, 0.0);
    let (s, st, _, w) = plain.score(&page(other_theme, "http://o.test/b.html"));
    assert!((s - (0.5 * st + 0.5 * w)).abs() < 1e-9);
}
