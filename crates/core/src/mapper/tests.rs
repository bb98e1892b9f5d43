//! The mapper's tests (a sibling file: they outgrew the module).
//!
//! Why this file is long (~1,900 lines): the mapper's behaviours are tested against in-memory
//! sites built by the helpers at its top (`drive`, the shop and documentation fixtures), which
//! the crawler's tests reuse (`crate::mapper::tests::…`).
use super::*;
use crate::fetch::FetchResponse;
use crate::map::spread;
use crate::signature::{alias_values, page_signature, with_own_values};

/// An in-memory site: path → (status, content type, body).
pub(crate) fn drive(m: &mut Mapper, site: &dyn Fn(&str) -> FetchResult) -> usize {
    let mut now = 0;
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 100_000, "bounded");
        match m.poll(now) {
            Poll::Fetch(r) => {
                let res = site(&r.url);
                m.handle(r.id, res, now);
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("nothing in flight in a synchronous driver"),
            Poll::Done => return steps,
        }
    }
}

fn html(body: &str) -> FetchResult {
    FetchResult::Response(FetchResponse {
        status: 200,
        final_url: String::new(),
        headers: vec![("content-type".into(), "text/html".into())],
        body: body.as_bytes().to_vec(),
        truncated: false,
    })
}

fn entity(i: u32) -> String {
    format!(
        "<html><head><title>Item {i}</title></head><body><div class=item><h1>Item {i}</h1>\
         <table class=spec><tr><td>a</td><td>{i}</td></tr><tr><td>b</td><td>x</td></tr></table>\
         <p class=desc>Description of item {i}.</p></div></body></html>"
    )
}

fn listing(links: &[String]) -> String {
    let items: String = links
        .iter()
        .map(|l| format!("<li><a href='{l}'>{l}</a></li>"))
        .collect();
    format!(
        "<html><head><title>List</title></head><body><nav><a href='/'>Home</a></nav>\
         <ul class=list>{items}</ul></body></html>"
    )
}

/// `/item/N.html` as an entity page, anything else 404.
fn item_or_404(path: &str) -> FetchResult {
    match path.strip_prefix("/item/") {
        Some(p) => html(&entity(p.trim_end_matches(".html").parse().unwrap_or(0))),
        None => FetchResult::Response(FetchResponse {
            status: 404,
            ..FetchResponse::default()
        }),
    }
}

fn site(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    match path {
        "/robots.txt" => html("User-agent: *\nDisallow: /private/\n"),
        "/" => html(&listing(&[
            "/cat/a.html".into(),
            "/cat/b.html".into(),
            "/private/x.html".into(),
            "/about.html".into(),
        ])),
        "/cat/a.html" => html(&listing(
            &(1..=5)
                .map(|i| format!("/item/{i}.html"))
                .collect::<Vec<_>>(),
        )),
        "/cat/b.html" => html(&listing(
            &(6..=9)
                .map(|i| format!("/item/{i}.html?sid=1#top"))
                .collect::<Vec<_>>(),
        )),
        "/about.html" => {
            html("<html><body><p>About us</p><a href='/cat/a.html'>a</a></body></html>")
        }
        p => item_or_404(p),
    }
}

fn mapper() -> Mapper {
    mapper_with(MapConfig {
        politeness: Politeness {
            delay_ms: 10,
            ..Politeness::default()
        },
        ..MapConfig::default()
    })
}

/// A mapper of shop.test from its home page, `/item/1.html` the example.
fn mapper_with(config: MapConfig) -> Mapper {
    Mapper::new(
        "http://shop.test/",
        ExamplePage {
            url: "http://shop.test/item/1.html".into(),
            body: entity(1).into_bytes(),
            content_type: None,
        },
        config,
    )
    .expect("mapper")
}

/// Under a page budget, links named like the example or a target found are fetched
/// before the rest: `/item/9.html` (like the example `/item/1.html`) at once, and once
/// `/product/2.html` is a target, `/product/3.html` and `/product/4.html` move ahead of the
/// twenty pages queued before them.
#[test]
fn links_named_like_a_target_are_fetched_first_under_a_page_budget() {
    let docs: Vec<String> = (1..=20).map(|i| format!("/docs/page-{i}.html")).collect();
    let home: Vec<String> = std::iter::once("/product/2.html".to_string())
        .chain(docs.iter().cloned())
        .chain(["/product/3.html", "/product/4.html", "/item/9.html"].map(String::from))
        .collect();
    let site = move |url: &str| -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/" => html(&listing(&home)),
            p if p.starts_with("/product/") || p.starts_with("/item/") => {
                let n: u32 = p
                    .trim_start_matches("/product/")
                    .trim_start_matches("/item/")
                    .trim_end_matches(".html")
                    .parse()
                    .unwrap_or(0);
                html(&entity(n))
            }
            p if p.starts_with("/docs/") => html(&format!(
                "<html><head><title>Doc</title></head><body><h2>Doc {p}</h2>\
                 <p>Prose about {p}.</p><p>More.</p></body></html>"
            )),
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                final_url: String::new(),
                headers: vec![],
                body: Vec::new(),
                truncated: false,
            }),
        }
    };
    let mut m = mapper_with(MapConfig {
        max_pages: 5,
        politeness: Politeness {
            delay_ms: 0,
            max_in_flight: 1,
            max_in_flight_per_host: 1,
            obey_robots: false,
            ..Politeness::default()
        },
        ..MapConfig::default()
    });
    drive(&mut m, &site);
    let map = m.into_site_map();
    let fetched: BTreeSet<&str> = map
        .nodes
        .iter()
        .filter(|n| n.similarity.is_some())
        .map(|n| n.url.trim_start_matches("http://shop.test"))
        .collect();
    // Breadth first, the budget would go to /product/2.html and three docs pages (their
    // content differs: they are not duplicates). The first docs page is asked before
    // /product/2.html is known to be a target: one request is asked ahead of the oldest
    // result (`fetch::LOOKAHEAD` × one connection).
    assert_eq!(
        fetched,
        BTreeSet::from([
            "/",
            "/docs/page-1.html",
            "/item/9.html",
            "/product/2.html",
            "/product/3.html",
        ])
    );
    assert_eq!(map.targets().count(), 3);
}

/// A site whose home page links sixty pages of one barren shape (`/fn/f*.html`, each
/// linking home only) before its listing of ten items.
fn barren_site(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    match path {
        "/" => html(&listing(
            &(0..60)
                .map(|i| format!("/fn/f{i}.html"))
                .chain(std::iter::once("/list.html".to_string()))
                .collect::<Vec<_>>(),
        )),
        "/list.html" => items_then(&[]),
        p if p.starts_with("/fn/") => html(&format!(
            "<html><head><title>{p}</title></head><body><h2>Function {p}</h2>\
             <p>Signature of {p}.</p><a href='/'>Home</a></body></html>"
        )),
        p => item_or_404(p),
    }
}

/// A listing of `/item/1.html` … `/item/10.html`, then `more`.
fn items_then(more: &[&str]) -> FetchResult {
    html(&listing(
        &(1..=10)
            .map(|i| format!("/item/{i}.html"))
            .chain(more.iter().map(|m| m.to_string()))
            .collect::<Vec<_>>(),
    ))
}

fn barren_mapper(max_pages: usize, defer_barren: bool) -> Mapper {
    mapper_with(MapConfig {
        max_pages,
        defer_barren,
        politeness: Politeness::unthrottled(1),
        ..MapConfig::default()
    })
}

fn fetched_urls(map: &SiteMap) -> BTreeSet<String> {
    map.nodes
        .iter()
        .filter(|n| n.state != NodeState::Discovered)
        .map(|n| n.url.clone())
        .collect()
}

/// Under a page budget, once fifty pages of one shape yielded nothing, the rest of that
/// shape waits behind everything else: the listing and its ten items are fetched within
/// 65 pages (breadth first, the budget ends three items in). A site read whole gives the
/// same pages either way, and a mapping saved after the shape was put off and restored
/// ends as the uninterrupted one.
#[test]
fn barren_shapes_are_fetched_last() {
    let mut m = barren_mapper(65, true);
    drive(&mut m, &barren_site);
    let (put_off, taken_back) = put_off_and_taken_back(&m.drain_events());
    assert_eq!(put_off.len(), 1, "{put_off:?}");
    assert!(taken_back.is_empty(), "nothing of the shape yields");
    assert_eq!(put_off[0].0, "shop.test/fn/f*");
    assert!((8..=10).contains(&put_off[0].1), "{put_off:?}");
    assert_eq!(m.site_map().targets().count(), 10);
    // What the budget left of them is reported, unless nothing was put off.
    let left = shapes::left_unfetched(m.site_map(), m.config());
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0].0, "shop.test/fn/f*");
    assert!(
        (1..=put_off[0].1).contains(&left[0].1),
        "{left:?} of {put_off:?}"
    );
    let off = MapConfig {
        defer_barren: false,
        ..m.config().clone()
    };
    assert!(shapes::left_unfetched(m.site_map(), &off).is_empty());
    let mut breadth_first = barren_mapper(65, false);
    drive(&mut breadth_first, &barren_site);
    assert_eq!(breadth_first.site_map().targets().count(), 3);

    let mut whole = barren_mapper(10_000, true);
    drive(&mut whole, &barren_site);
    let mut whole_bf = barren_mapper(10_000, false);
    drive(&mut whole_bf, &barren_site);
    assert_eq!(
        fetched_urls(whole.site_map()),
        fetched_urls(whole_bf.site_map())
    );
    assert_eq!(fetched_urls(whole.site_map()).len(), 72);

    // Saved as soon as the shape is put off, restored, run to the end.
    let mut m = barren_mapper(10_000, true);
    let mut now = 0;
    while !m
        .drain_events()
        .iter()
        .any(|e| matches!(e, Event::PutOff { .. }))
    {
        match m.poll(now) {
            Poll::Fetch(r) => m.handle(r.id, barren_site(&r.url), now),
            Poll::WaitUntil(t) => now = t,
            other => panic!("unexpected {other:?}"),
        }
    }
    let json = serde_json::to_string(&m.snapshot()).expect("serialise");
    assert!(
        json.contains("\"later\""),
        "the snapshot holds those put off"
    );
    let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
    let mut r = Mapper::restore(snap).expect("restore");
    assert!(
        r.shapes.is_barren("http://shop.test/fn/f59.html"),
        "derived again"
    );
    drive(&mut r, &barren_site);
    assert_eq!(r.site_map(), whole.site_map());
}

/// Datasette's tables: a listing links each row and the row's `.json` alternate, of the
/// rows' shape (which yields targets, so it is never barren). Fifty JSON answers make the
/// file type barren and the rest waits: within the same budget the mapping reaches more rows.
#[test]
fn a_file_type_never_html_is_fetched_last() {
    fn site(url: &str) -> FetchResult {
        let path = url.trim_start_matches("http://shop.test");
        let num = |p: &str, pre: &str, suf: &str| -> Option<u32> {
            p.strip_prefix(pre)?.strip_suffix(suf)?.parse().ok()
        };
        if path == "/" {
            return html(&listing(&["/list/1.html".to_string()]));
        }
        if let Some(k) = num(path, "/list/", ".html").filter(|k| (1..=15).contains(k)) {
            let mut links: Vec<String> = (10 * (k - 1) + 1..=10 * k)
                .flat_map(|i| [format!("/item/{i}.html"), format!("/item/{i}.json")])
                .collect();
            links.push(format!("/list/{}.html", k + 1));
            return html(&listing(&links));
        }
        if let Some(i) = num(path, "/item/", ".json") {
            return FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), "application/json".into())],
                body: format!("{{\"id\": {i}}}").into_bytes(),
                truncated: false,
            });
        }
        item_or_404(path)
    }
    let mut deferring = barren_mapper(150, true);
    drive(&mut deferring, &site);
    let (put_off, _) = put_off_and_taken_back(&deferring.drain_events());
    assert_eq!(put_off.len(), 1, "{put_off:?}");
    assert_eq!(put_off[0].0, "shop.test/**/*.json");
    let json = |m: &Mapper| {
        m.site_map()
            .nodes
            .iter()
            .filter(|n| matches!(n.state, NodeState::NotHtml { .. }))
            .count()
    };
    assert_eq!(json(&deferring), shapes::BARREN_AFTER as usize);
    let mut in_turn = barren_mapper(150, false);
    drive(&mut in_turn, &site);
    let (with, without) = (
        deferring.site_map().targets().count(),
        in_turn.site_map().targets().count(),
    );
    // 150 pages: the home page, nine or ten listings, fifty JSON answers and 90 items,
    // against 71 items when every JSON link is fetched in its turn.
    assert!(
        with >= 85 && without <= 75,
        "{with} items against {without}"
    );
    assert!(json(&in_turn) > shapes::BARREN_AFTER as usize);
}

/// The `PutOff` events (shape, URLs) and the `TakenBack` ones (URLs) among `events`.
fn put_off_and_taken_back(events: &[Event]) -> (Vec<(String, usize)>, Vec<usize>) {
    let mut put_off = Vec::new();
    let mut taken_back = Vec::new();
    for e in events {
        match e {
            Event::PutOff { shape, urls } => put_off.push((shape.clone(), *urls)),
            Event::TakenBack { urls } => taken_back.push(*urls),
            _ => {}
        }
    }
    (put_off, taken_back)
}

/// The URLs a mapper fetches, in the order it asks for them.
fn fetch_order(m: &mut Mapper, site: &dyn Fn(&str) -> FetchResult) -> Vec<String> {
    let asked = std::cell::RefCell::new(Vec::new());
    drive(m, &|url: &str| {
        asked
            .borrow_mut()
            .push(url.trim_start_matches("http://shop.test").to_string());
        site(url)
    });
    asked.into_inner()
}

fn position(order: &[String], path: &str) -> usize {
    order
        .iter()
        .position(|u| u == path)
        .unwrap_or_else(|| panic!("{path} not fetched: {order:?}"))
}

/// Pages put off come back in their turn once their shape yields: `/fn/f40.html`, fetched
/// before the shape was barren, links a page that turns out a target, so `/fn/f50…59` are
/// fetched before the review pages found after that (not after everything).
/// And a page put off that is named like a target found later is fetched first.
#[test]
fn put_off_pages_come_back_when_their_shape_yields_or_a_target_names_them() {
    let revived = |url: &str| {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/fn/f40.html" => html(&listing(&["/goods/g.html".to_string()])),
            "/goods/g.html" => html(&entity(0)),
            "/list.html" => items_then(&["/more.html"]),
            "/more.html" => html(&listing(
                &(1..=10)
                    .map(|i| format!("/review/r{i}.html"))
                    .collect::<Vec<_>>(),
            )),
            _ => barren_site(url),
        }
    };
    let mut m = barren_mapper(10_000, true);
    let order = fetch_order(&mut m, &revived);
    let (put_off, taken_back) = put_off_and_taken_back(&m.drain_events());
    assert_eq!(put_off.len(), 1, "{put_off:?}");
    assert!(put_off[0].1 >= 8, "{put_off:?}");
    assert_eq!(taken_back, [put_off[0].1], "all of them come back");
    assert!(
        position(&order, "/fn/f59.html") < position(&order, "/review/r1.html"),
        "{order:?}"
    );
    assert_eq!(m.site_map().targets().count(), 11);
    // The same site breadth first fetches the same pages.
    let mut bf = barren_mapper(10_000, false);
    let bf_order = fetch_order(&mut bf, &revived);
    assert_eq!(
        order.iter().collect::<BTreeSet<_>>(),
        bf_order.iter().collect::<BTreeSet<_>>()
    );

    // `/item/f55.html` is a target named like `/fn/f55.html` (one word apart), put off.
    let named = |url: &str| {
        let path = url.trim_start_matches("http://shop.test");
        if path == "/list.html" {
            items_then(&["/item/f55.html"])
        } else {
            barren_site(url)
        }
    };
    let mut m = barren_mapper(10_000, true);
    let order = fetch_order(&mut m, &named);
    // (`/fn/f50.html` was asked before the shape was put off.)
    let (f55, f51) = (
        position(&order, "/fn/f55.html"),
        position(&order, "/fn/f51.html"),
    );
    assert!(f55 < f51, "{order:?}");
    assert!(
        f55 > position(&order, "/item/f55.html"),
        "brought first once named: {order:?}"
    );
}

#[test]
fn maps_a_small_site_finds_targets_and_obeys_robots() {
    let mut m = mapper();
    drive(&mut m, &site);
    let events = m.drain_events();
    let map = m.site_map();
    let targets: Vec<&str> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.as_str())
        .collect();
    assert_eq!(targets.len(), 9, "{targets:?}");
    assert!(
        targets.contains(&"http://shop.test/item/6.html"),
        "session id and fragment dropped"
    );
    let private = map
        .nodes
        .iter()
        .find(|n| n.url.contains("private"))
        .expect("node");
    assert_eq!(private.state, NodeState::Disallowed);
    assert!(matches!(
        events.last(),
        Some(Event::Finished {
            reason: StopReason::Exhausted
        })
    ));
    assert_eq!(m.stopped(), Some(StopReason::Exhausted));
    // Breadth-first tree: items hang off the category pages.
    let item1 = map
        .nodes
        .iter()
        .find(|n| n.url.ends_with("/item/1.html"))
        .expect("item");
    assert_eq!(
        map.nodes[item1.parent.expect("parent") as usize].url,
        "http://shop.test/cat/a.html"
    );
    assert_eq!(item1.depth, 2);
}

/// Debian's Apache manual: each untranslated page of `da/` is the English page (a symbolic
/// link), whose relative links lead to `da/`'s neighbours: one page, fetched twice, counted
/// once. A translation (other bytes) is a page of its own.
#[test]
fn body_signatures_tell_every_byte() {
    let body = b"<html><body><p>Hello, mirrored world</p></body></html>".to_vec();
    let sig = body_signature(&body);
    assert_eq!(sig, body_signature(&body.clone()));
    for i in 0..body.len() {
        let mut other = body.clone();
        other[i] ^= 1;
        assert_ne!(sig, body_signature(&other), "byte {i}");
    }
    let mut longer = body.clone();
    longer.push(0);
    assert_ne!(sig, body_signature(&longer));
    assert_ne!(body_signature(b""), body_signature(&[0]));
}

#[test]
fn the_same_bytes_in_another_directory_are_one_page() {
    let doc = |i: u32| {
        format!(
            "<html><head><title>Module {i}</title></head><body><div class=nav>\
             <a href='../index.html'>Manual</a> <a href='../../en/mod/m{i}.html'>en</a> \
             <a href='../../da/mod/m{i}.html'>da</a></div>{}</body></html>",
            entity(i)
        )
    };
    let site = |url: &str| {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/en/index.html" | "/da/index.html" => html(&listing(
                &(1..=4)
                    .map(|i| format!("mod/m{i}.html"))
                    .collect::<Vec<_>>(),
            )),
            "/da/mod/m2.html" => html(&doc(2).replace("Description", "Beskrivelse")),
            p => match p
                .strip_prefix("/en/mod/m")
                .or_else(|| p.strip_prefix("/da/mod/m"))
                .and_then(|n| n.strip_suffix(".html"))
                .and_then(|n| n.parse().ok())
            {
                Some(i) => html(&doc(i)),
                None => item_or_404(p),
            },
        }
    };
    let mut m = Mapper::new(
        "http://shop.test/en/index.html",
        ExamplePage {
            url: "http://shop.test/en/mod/m1.html".into(),
            body: doc(1).into_bytes(),
            content_type: None,
        },
        MapConfig::default(),
    )
    .expect("mapper");
    drive(&mut m, &site);
    let map = m.site_map();
    let state = |url: &str| {
        map.nodes
            .iter()
            .find(|n| n.url == format!("http://shop.test{url}"))
            .map(|n| n.state.clone())
    };
    for i in [1, 3, 4] {
        assert!(
            matches!(
                state(&format!("/da/mod/m{i}.html")),
                Some(NodeState::Duplicate { .. })
            ),
            "{i}: {:?}",
            state(&format!("/da/mod/m{i}.html"))
        );
        assert_eq!(
            state(&format!("/en/mod/m{i}.html")),
            Some(NodeState::Target)
        );
    }
    assert_eq!(
        state("/da/mod/m2.html"),
        Some(NodeState::Target),
        "a translation"
    );
    assert_eq!(map.targets().count(), 5);
}

#[test]
fn listings_differing_only_in_numbers_are_not_duplicates() {
    let signature = |page: &Page| page_signature(page, &canonical_links(page));
    let listing = |items: std::ops::Range<u32>| {
        let links: String = items
            .map(|i| format!("<li><a href='/part/{i}.html'>Part {i}</a></li>"))
            .collect();
        Page::from_html(&format!("<ul>{links}</ul>"), "http://shop.test/list").expect("page")
    };
    assert_ne!(signature(&listing(1..5)), signature(&listing(5..9)));
    assert_eq!(signature(&listing(1..5)), signature(&listing(1..5)));
    // The links are read as a set: their order and repeats do not count, each one does
    // (pages of one size: the tree's size counts too).
    let page = |hrefs: &[&str]| {
        let links: String = hrefs
            .iter()
            .map(|h| format!("<a href='{h}'>x</a> "))
            .collect();
        Page::from_html(&links, "http://shop.test/list").expect("page")
    };
    let aab = signature(&page(&["/a", "/a", "/b"]));
    assert_eq!(aab, signature(&page(&["/b", "/a", "/b"])));
    assert_ne!(aab, signature(&page(&["/a", "/a", "/c"])));
    assert_ne!(aab, signature(&page(&["/a", "/b", "/c"])));
    // The same page under a session-id URL, its links carrying the session: one page.
    let with_session = |sid: &str| {
        Page::from_html(
            &format!("<a href='/a.html?jsessionid={sid}'>A</a> <p>Hello</p>"),
            &format!("http://shop.test/?jsessionid={sid}"),
        )
        .expect("page")
    };
    assert_eq!(signature(&with_session("1")), signature(&with_session("2")));
    // The same page under a query the site ignores: its `#top` link carries the query.
    let at = |url: &str| {
        Page::from_html("<a href='#top'>top</a> <a href='/b'>B</a> <p>Hi</p>", url).expect("page")
    };
    let plain = signature(&at("http://shop.test/a"));
    assert_eq!(plain, signature(&at("http://shop.test/a?q=term")));
    // Another page with the same body links to itself elsewhere: still one page only when
    // the self links are the difference, not the other links.
    assert_ne!(plain, signature(&at("http://shop.test/b")));
}

#[test]
fn a_page_under_an_alias_whose_links_carry_it_counts_once() {
    // gitweb's head commit as `h=HEAD` and as `h=<hash>`: its neighbours' links carry the
    // value it was asked with.
    let signature = |page: &Page| {
        let links = canonical_links(page);
        *page_signatures(page, &links)
            .last()
            .expect("the plain signature")
    };
    let commit = |h: &str, parent: &str, text: &str| {
        let cgi = "/cgi-bin/gitweb.cgi?p=r.git";
        Page::from_html(
            &format!(
                "<a href='{cgi};a=log;h={h}'>log</a> <a href='{cgi};a=tree;h=7684cbf;hb={h}'>tree</a> \
                 <a href='{cgi};a=commit;h={parent}'>parent</a> <p>{text}</p>"
            ),
            &format!("http://git.test{cgi};a=commit;h={h}"),
        )
        .expect("page")
    };
    let head = signature(&commit("HEAD", "ce41fb3", "Fix the parser"));
    assert_eq!(
        head,
        signature(&commit("a923f22", "ce41fb3", "Fix the parser"))
    );
    // Another commit with the same message is another page: its parent differs.
    assert_ne!(
        head,
        signature(&commit("b1c2d3e", "a923f22", "Fix the parser"))
    );
    // Pages that differ only in a number their links carry stay apart (terms keep no
    // numbers): an order and its print link.
    let order = |n: u32| {
        Page::from_html(
            &format!("<a href='/order?id={n}&print=yes'>Print</a> <p>Order {n}</p>"),
            &format!("http://shop.test/order?id={n}"),
        )
        .expect("page")
    };
    assert_ne!(signature(&order(4101)), signature(&order(4102)));
    assert_eq!(
        alias_values("http://h/x?p=r.git;a=commit;h=HEAD&n=12&b=ab"),
        ["r.git", "commit", "HEAD"]
    );
    assert_eq!(
        with_own_values("http://h/x?a=1;hb=HEAD&b=2", &["HEAD", "3"]),
        "http://h/x?a=1;hb=(own)&b=2"
    );
    assert!(matches!(
        with_own_values("http://h/x?b=2", &["HEAD"]),
        std::borrow::Cow::Borrowed(_)
    ));
}

/// A page that declares no language itself takes its response's `Content-Language` (one
/// language), and learning proposes to leave out the targets in another language than the
/// example's, told so by their headers alone.
#[test]
fn the_content_language_header_declares_a_pages_language() {
    let by_header = |url: &str| {
        let mut res = site(url);
        if let FetchResult::Response(r) = &mut res {
            let path = url.trim_start_matches("http://shop.test");
            let lang = match path {
                "/item/6.html" | "/item/7.html" => "fr",
                "/item/8.html" => "de, fr",
                _ => "en",
            };
            r.headers.push(("Content-Language".into(), lang.into()));
        }
        res
    };
    let mut m = mapper();
    drive(&mut m, &by_header);
    let map = m.site_map();
    let lang = |path: &str| {
        let url = format!("http://shop.test{path}");
        map.nodes
            .iter()
            .find(|n| n.url == url)
            .map(|n| n.lang.clone())
    };
    assert_eq!(lang("/item/1.html").as_deref(), Some("en"));
    assert_eq!(lang("/item/6.html").as_deref(), Some("fr"));
    assert_eq!(
        lang("/item/8.html").as_deref(),
        Some(""),
        "two languages: none"
    );
    assert_eq!(crate::review::language::other_languages(map), ["fr"]);
}

/// The map records the sitemaps robots.txt names (resolved, once each); the files read are
/// never nodes of the map (here they are missing: the map is the links' alone).
#[test]
fn the_map_records_the_sitemaps_robots_txt_names() {
    let with_sitemaps = |url: &str| {
        if url == "http://shop.test/robots.txt" {
            html(
                "User-agent: *\nSitemap: /maps/a.xml\nSitemap: http://shop.test/maps/a.xml\nSitemap: https://cdn.test/b.xml.gz\n",
            )
        } else {
            site(url)
        }
    };
    let mut m = mapper();
    drive(&mut m, &with_sitemaps);
    let map = m.site_map();
    assert_eq!(
        map.sitemaps,
        ["http://shop.test/maps/a.xml", "https://cdn.test/b.xml.gz"]
    );
    assert!(!map.nodes.iter().any(|n| n.url.contains("/maps/")));
    let json = serde_json::to_string(map).expect("json");
    let back: SiteMap = serde_json::from_str(&json).expect("back");
    assert_eq!(back.sitemaps, map.sitemaps);
    let mut plain = mapper();
    drive(&mut plain, &site);
    assert!(plain.site_map().sitemaps.is_empty());
}

/// shop.test whose catalogue is drawn by scripts: the home page links `/cat/a.html` (items
/// 1–5) and `/about.html`; items 6–12 are listed only by the sitemaps robots.txt names (an
/// index of `/items.xml.gz`, gzip-compressed, and `/more.txt`, which the about page links,
/// with a missing one; a missing one on another host, whose robots.txt names its own; and
/// one on a host that never answers),
/// which also list pages links reach, a disallowed page and another site's.
fn catalogue_in_sitemaps(url: &str) -> FetchResult {
    if url.starts_with("http://closed.test/") {
        return FetchResult::Failed("Failed to fetch".into());
    }
    if url == "http://elsewhere.test/robots.txt" {
        return html("Sitemap: http://elsewhere.test/theirs.xml\n");
    }
    let path = url.trim_start_matches("http://shop.test");
    let file = |body: Vec<u8>| {
        FetchResult::Response(FetchResponse {
            status: 200,
            final_url: String::new(),
            headers: vec![("content-type".into(), "application/octet-stream".into())],
            body,
            truncated: false,
        })
    };
    match path {
        "/robots.txt" => html(
            "User-agent: *\nDisallow: /private/\nSitemap: /sitemaps.xml\nSitemap: http://elsewhere.test/s.xml\n\
             Sitemap: http://closed.test/s.xml\n",
        ),
        "/" => html(&listing(&["/cat/a.html".into(), "/about.html".into()])),
        "/sitemaps.xml" => file(
            b"<sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
              <sitemap><loc>http://shop.test/items.xml.gz</loc></sitemap>\
              <sitemap><loc>http://shop.test/more.txt</loc></sitemap>\
              <sitemap><loc>http://shop.test/gone.xml</loc></sitemap></sitemapindex>"
                .to_vec(),
        ),
        "/items.xml.gz" => {
            let locs: String = (1..=9)
                .map(|i| format!("<url><loc>http://shop.test/item/{i}.html</loc></url>"))
                .collect();
            let xml = format!(
                "<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
                 <url><loc>http://shop.test/</loc></url>{locs}\
                 <url><loc>http://shop.test/private/x.html</loc></url>\
                 <url><loc>http://elsewhere.test/item/99.html</loc></url></urlset>"
            );
            file(crate::sitemap::tests::gzip(xml.as_bytes(), 0, &[]))
        }
        "/more.txt" => file(
            (9..=12)
                .map(|i| format!("http://shop.test/item/{i}.html\n"))
                .collect::<String>()
                .into_bytes(),
        ),
        "/cat/a.html" => html(&listing(
            &(1..=5)
                .map(|i| format!("/item/{i}.html"))
                .collect::<Vec<_>>(),
        )),
        "/about.html" => {
            html("<html><body><p>About us</p><a href='/more.txt'>more</a></body></html>")
        }
        p => item_or_404(p),
    }
}

/// A site that says "wait" (robots.txt 503 once, every item 429 once, with `Retry-After`)
/// maps as one that does not: each is asked again after the wait, the host slowed down,
/// and the mapping says how many were.
#[test]
fn pages_the_site_says_to_wait_for_are_asked_again() {
    let targets_of = |m: &Mapper| -> BTreeSet<String> {
        let map = m.site_map();
        map.targets()
            .map(|t| map.nodes[t as usize].url.clone())
            .collect()
    };
    let mut plain = mapper();
    drive(&mut plain, &catalogue_in_sitemaps);
    let asked = std::cell::RefCell::new(HashMap::<String, usize>::new());
    let busy = |url: &str| {
        let mut asked = asked.borrow_mut();
        let n = asked.entry(url.to_string()).or_default();
        *n += 1;
        let wait = |status: u16| {
            FetchResult::Response(FetchResponse {
                status,
                headers: vec![("retry-after".into(), "2".into())],
                ..FetchResponse::default()
            })
        };
        match url.trim_start_matches("http://shop.test") {
            "/robots.txt" if *n == 1 => wait(503),
            p if p.starts_with("/item/") && *n == 1 => wait(429),
            _ => catalogue_in_sitemaps(url),
        }
    };
    let mut m = mapper();
    drive(&mut m, &busy);
    assert_eq!(targets_of(&m), targets_of(&plain));
    assert_eq!(targets_of(&m).len(), 12);
    let items = asked
        .borrow()
        .keys()
        .filter(|u| u.contains("/item/"))
        .count();
    assert_eq!(
        m.progress().retried,
        items + 1,
        "each item and robots.txt once"
    );
    assert_eq!(m.progress().errors, plain.progress().errors);
    let retries: Vec<crate::fetch::Retry> = m
        .drain_events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Retry(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(retries.len(), items + 1);
    assert_eq!(
        (
            retries[0].url.as_str(),
            retries[0].status,
            retries[0].wait_ms
        ),
        ("http://shop.test/robots.txt", 503, 2000)
    );
    // Each asked again once, after the 2 s it asked for; the host's delay from 10 ms to 1 s.
    assert!(
        retries
            .iter()
            .all(|r| (r.attempt, r.wait_ms, r.delay_ms) == (1, 2000, 1000)),
        "{retries:?}"
    );
}

/// Once every link is followed, mapping reads the sitemaps robots.txt names: the pages they
/// list that no link reached become links of the entry page (as a crawl reads them), those
/// links reached keep their place, a disallowed or off-site URL is not fetched, sitemaps
/// count in the page budget and survive a snapshot; off, or with robots.txt not obeyed,
/// none is read.
#[test]
fn after_every_link_mapping_reads_the_sitemaps_for_the_pages_no_link_reaches() {
    let mut m = mapper();
    let order = fetch_order(&mut m, &catalogue_in_sitemaps);
    let events = m.drain_events();
    let map = m.site_map();
    let url = |p: &str| format!("http://shop.test{p}");
    let targets: BTreeSet<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    let items: BTreeSet<String> = (1..=12).map(|i| url(&format!("/item/{i}.html"))).collect();
    assert_eq!(targets, items);
    // The sitemaps come after every page links reach.
    let first_sitemap = position(&order, "/sitemaps.xml");
    for p in ["/", "/cat/a.html", "/about.html", "/item/5.html"] {
        assert!(
            position(&order, p) < first_sitemap,
            "{p} before the sitemaps: {order:?}"
        );
    }
    assert!(position(&order, "/items.xml.gz") > first_sitemap);
    // The about page links the text sitemap: fetched as a page first, asked again as one.
    let more: Vec<usize> = (0..order.len())
        .filter(|&i| order[i] == "/more.txt")
        .collect();
    assert!(more.len() == 2 && more[0] < first_sitemap, "{order:?}");
    assert!(
        !order.iter().any(|p| p.starts_with("/private/")),
        "{order:?}"
    );
    // Items 6–12 (once each, though two sitemaps list item 9), the disallowed page: links
    // of the entry, in the sitemaps' order; items 1–5 and the entry itself gain no link.
    let linked: Vec<&str> = map
        .sitemap_links
        .iter()
        .map(|&id| map.nodes[id as usize].url.as_str())
        .collect();
    let mut expected: Vec<String> = (6..=9).map(|i| url(&format!("/item/{i}.html"))).collect();
    expected.push(url("/private/x.html"));
    expected.extend((10..=12).map(|i| url(&format!("/item/{i}.html"))));
    assert_eq!(linked, expected);
    let entry_links: Vec<&str> = map.nodes[0]
        .links
        .iter()
        .map(|&id| map.nodes[id as usize].url.as_str())
        .collect();
    assert!(entry_links.ends_with(&linked[..]), "{entry_links:?}");
    assert!(!entry_links.contains(&url("/item/1.html").as_str()));
    assert_eq!(map.nodes[map.sitemap_links[0] as usize].depth, 1);
    let p = m.progress();
    // The index, items.xml.gz and more.txt are read; gone.xml answers 404, and so does the
    // sitemap on the other host robots.txt names (asked: the protocol lets a site name
    // sitemaps elsewhere). All five count in the page budget.
    assert_eq!((p.sitemaps, p.sitemap_requests, p.sitemap_links), (3, 5, 8));
    assert_eq!(p.requests(), p.fetched + 5);
    // Each sitemap not read is said so; the one whose host answered nothing, not even for
    // its robots.txt, is marked unreachable.
    let mut not_read: Vec<(String, String, bool)> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::SitemapSkipped(n) => Some((n.url, n.reason, n.unreachable)),
            _ => None,
        })
        .collect();
    not_read.sort();
    assert_eq!(
        not_read
            .iter()
            .map(|(u, _, x)| (u.as_str(), *x))
            .collect::<Vec<_>>(),
        [
            ("http://closed.test/s.xml", true),
            ("http://elsewhere.test/s.xml", false),
            ("http://shop.test/gone.xml", false)
        ],
        "{not_read:?}"
    );
    assert!(
        not_read[0]
            .1
            .contains("could not be fetched (Failed to fetch)")
    );
    assert!(not_read[2].1.ends_with("HTTP 404"));
    assert!(
        order.contains(&"http://elsewhere.test/s.xml".to_string()),
        "{order:?}"
    );
    // That host's own robots.txt speaks for that host, not for the site.
    assert_eq!(
        map.sitemaps,
        [
            "http://shop.test/sitemaps.xml",
            "http://elsewhere.test/s.xml",
            "http://closed.test/s.xml"
        ]
    );
    assert!(map.check().is_ok());
    let json = serde_json::to_string(map).expect("json");
    let back: SiteMap = serde_json::from_str(&json).expect("back");
    assert_eq!(back.sitemap_links, map.sitemap_links);
    // Learned from the links (the category, then its items), the sitemaps' items matched
    // by the last level from the entry, as a crawl reads the sitemaps: all twelve reached.
    let p = crate::pattern::learn_from_map(map, m.config(), 0).expect("learn");
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    assert!(
        p.levels[0].regexes.iter().all(|r| r.contains("cat")),
        "{}",
        p.render()
    );
    assert_eq!(p.stats.targets_reached, 12, "{}", p.render());

    // Snapshot and restore with the sitemaps' requests in flight: the same map.
    let mut r = mapper();
    let mut now = 0;
    let mut in_flight = Vec::new();
    loop {
        match r.poll(now) {
            Poll::Fetch(q) if q.url.ends_with("/sitemaps.xml") || !in_flight.is_empty() => {
                assert_eq!(q.kind, RequestKind::Sitemap);
                in_flight.push(q);
                if in_flight.len() == 1 {
                    continue;
                }
                break;
            }
            Poll::Fetch(q) => r.handle(q.id, catalogue_in_sitemaps(&q.url), now),
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => break,
            Poll::Done => panic!("done before the sitemaps"),
        }
    }
    let json = serde_json::to_string(&r.snapshot()).expect("snapshot");
    let mut back = Mapper::restore(serde_json::from_str(&json).expect("read")).expect("restore");
    drive(&mut back, &catalogue_in_sitemaps);
    assert_eq!(back.site_map(), map);

    // A page budget the links fill: no sitemap is read.
    let mut short = mapper_with(MapConfig {
        max_pages: 8,
        ..MapConfig::default()
    });
    let order = fetch_order(&mut short, &catalogue_in_sitemaps);
    assert!(!order.iter().any(|p| p.contains("sitemaps")), "{order:?}");
    // Off, or robots.txt not obeyed: links only.
    for config in [
        MapConfig {
            read_sitemaps: false,
            ..MapConfig::default()
        },
        MapConfig {
            politeness: Politeness {
                obey_robots: false,
                ..Politeness::default()
            },
            ..MapConfig::default()
        },
    ] {
        let mut off = mapper_with(config);
        drive(&mut off, &catalogue_in_sitemaps);
        assert_eq!(off.site_map().targets().count(), 5);
        assert!(off.site_map().sitemap_links.is_empty());
        assert_eq!(off.progress().sitemaps, 0);
    }
    // A site whose links reach every page it lists: the same map as without sitemaps.
    let everything_linked = |u: &str| match u.trim_start_matches("http://shop.test") {
        "/robots.txt" => html("User-agent: *\nDisallow: /private/\nSitemap: /pages.txt\n"),
        "/pages.txt" => html(
            &[
                "/",
                "/cat/a.html",
                "/about.html",
                "/item/1.html",
                "/item/5.html",
            ]
            .map(|p| format!("http://shop.test{p}\n"))
            .concat(),
        ),
        _ => site(u),
    };
    let mut with = mapper();
    drive(&mut with, &everything_linked);
    let mut without = mapper_with(MapConfig {
        read_sitemaps: false,
        ..MapConfig::default()
    });
    drive(&mut without, &everything_linked);
    assert_eq!(with.progress().sitemaps, 1);
    assert_eq!(with.site_map().nodes, without.site_map().nodes);
}

/// shop.test with its items listed in two categories, `/item/N.html?from=CAT`, each page
/// showing the category it was reached from (so no two copies have the same bytes or text)
/// and declaring `canonical(N)` as its canonical URL, if any; listing `b`'s second page
/// names its first as canonical, as misconfigured sites do.
pub(crate) fn shop_with_canonicals(
    url: &str,
    canonical: &dyn Fn(u32) -> Option<String>,
) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    let links = |cat: &str, items: std::ops::RangeInclusive<u32>| -> Vec<String> {
        items
            .map(|i| format!("/item/{i}.html?from={cat}"))
            .collect()
    };
    let (page, rest) = path.split_once('?').unwrap_or((path, ""));
    match (page, rest) {
        ("/", _) => html(&listing(&["/cat/a.html".into(), "/cat/b.html".into()])),
        ("/cat/a.html", _) => html(&listing(&links("a", 1..=5))),
        ("/cat/b.html", "") => {
            let mut l = links("b", 3..=5);
            l.push("/cat/b.html?page=2".into());
            html(&listing(&l))
        }
        ("/cat/b.html", "page=2") => html(
            &listing(&links("b", 6..=7))
                .replace("<head>", "<head><link rel=canonical href=/cat/b.html>"),
        ),
        (p, from) => {
            let Some(i) = p
                .strip_prefix("/item/")
                .and_then(|n| n.strip_suffix(".html")?.parse::<u32>().ok())
            else {
                return item_or_404(p);
            };
            let link = canonical(i)
                .map(|c| format!("<link rel=canonical href=\"{c}\">"))
                .unwrap_or_default();
            let seen_in = if from.ends_with('a') {
                "kitchen"
            } else {
                "garden"
            };
            html(
                &entity(i)
                    .replace("<head>", &format!("<head>{link}"))
                    .replace("</p>", &format!(" Seen among {seen_in} things.</p>")),
            )
        }
    }
}

/// Two targets naming one canonical URL (with the same title and heading) are one page
/// under two URLs, however their content differs; a listing's later page naming its first
/// as canonical is still followed (the rule is for targets), and a site naming one URL
/// canonical on every page loses none of them.
#[test]
fn targets_declaring_one_canonical_url_are_one_page() {
    let targets = |canonical: &dyn Fn(u32) -> Option<String>| {
        let mut m = mapper();
        drive(&mut m, &|u: &str| shop_with_canonicals(u, canonical));
        let map = m.site_map();
        let mut items: Vec<String> = map
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Target)
            .map(|n| n.url.split('?').next().unwrap_or("").to_string())
            .collect();
        items.sort();
        let copies: Vec<(String, String)> = map
            .nodes
            .iter()
            .filter_map(|n| match n.state {
                NodeState::Duplicate { of } => {
                    Some((n.url.clone(), map.nodes[of as usize].url.clone()))
                }
                _ => None,
            })
            .collect();
        (items, copies)
    };
    let (items, copies) = targets(&|i| Some(format!("/item/{i}.html")));
    let expected: Vec<String> = (1..=7)
        .map(|i| format!("http://shop.test/item/{i}.html"))
        .collect();
    assert_eq!(
        items, expected,
        "each item once, 6 and 7 from the listing's page 2"
    );
    assert_eq!(copies.len(), 3, "{copies:?}");
    for (copy, of) in &copies {
        assert!(copy.ends_with("?from=b"), "{copy}");
        assert_eq!(copy.replace("from=b", "from=a"), *of);
    }
    // Without the declaration the copies differ (the category shown): each is a target.
    let (items, copies) = targets(&|_| None);
    assert_eq!(items.len(), 10, "{items:?}");
    assert!(copies.is_empty(), "{copies:?}");
    // A site naming its home page canonical everywhere loses no item: the items' titles
    // and headings differ (the copies of one item are still one).
    let (items, copies) = targets(&|_| Some("/".into()));
    assert_eq!(items, expected);
    assert_eq!(copies.len(), 3, "{copies:?}");
}

/// A group's samples are its most similar target, its middle one and its least similar:
/// a directory holding a few pages like the example among many others shows one of them.
#[test]
fn a_groups_samples_run_from_its_most_similar_target_to_its_least() {
    let mut map = SiteMap {
        example: "http://h/a/0".into(),
        threshold: 0.5,
        ..SiteMap::default()
    };
    for i in 0..10 {
        let score = if i == 7 { 0.99 } else { 0.6 + 0.01 * i as f32 };
        map.nodes.push(Node::scored(
            format!("http://h/b/{i}"),
            NodeState::Target,
            score,
        ));
    }
    map.nodes
        .push(Node::scored("http://h/a/0".into(), NodeState::Target, 1.0));
    let groups = map.targets_by(&[], &[], |n| n.url.get(..10).map(str::to_string));
    let b = groups.iter().find(|g| g.key == "http://h/b").expect("b");
    assert_eq!(b.targets, 10);
    // By similarity: 7 (0.99), 9, 8, 6, 5, 4, 3, 2, 1, 0: the first, the fifth, the last.
    assert_eq!(b.samples, ["http://h/b/7", "http://h/b/5", "http://h/b/0"]);
    assert!(!b.example && groups.iter().any(|g| g.key == "http://h/a" && g.example));
    assert_eq!(spread(&["x"], 3), ["x"]);
    assert!(spread(&[], 3).is_empty());
}

/// Look-alikes filed outside the example's directory become targets once their directory
/// holds several, and from then on are known by the canonical URL they declare: a copy of
/// one under another URL (`?ref=home`, other text) met after is a duplicate, not a target.
#[test]
fn look_alikes_promoted_by_their_directory_are_known_by_what_they_declare() {
    let site = |declare: bool| {
        move |url: &str| {
            let path = url.trim_start_matches("http://shop.test");
            let page = |i: u32, extra: &str| {
                let head = if declare {
                    format!("<link rel=canonical href='http://shop.test/archive/{i}.html'>")
                } else {
                    String::new()
                };
                html(
                    &entity(i)
                        .replace("<head>", &format!("<head>{head}"))
                        .replace(".</p>", &format!(". {extra}</p>")),
                )
            };
            match path {
                "/" => html(&listing(
                    &[
                        "/item/1.html",
                        "/archive/3.html",
                        "/archive/4.html",
                        "/archive/5.html",
                        "/archive/3.html?ref=home",
                    ]
                    .map(String::from),
                )),
                "/item/1.html" => html(&entity(1)),
                "/archive/3.html?ref=home" => page(3, "Seen on the home page."),
                p => match p
                    .strip_prefix("/archive/")
                    .and_then(|n| n.trim_end_matches(".html").parse().ok())
                {
                    Some(i) => page(i, "In the archive."),
                    None => FetchResult::Response(FetchResponse {
                        status: 404,
                        ..FetchResponse::default()
                    }),
                },
            }
        }
    };
    let targets = |declare: bool| {
        let mut config = MapConfig::default();
        config.similarity.threshold = 0.85;
        config.politeness.delay_ms = 0;
        let mut m = mapper_with(config);
        drive(&mut m, &site(declare));
        let map = m.into_site_map();
        let copy = map
            .nodes
            .iter()
            .find(|n| n.url.ends_with("?ref=home"))
            .map(|n| n.state.clone());
        (map.targets().count(), copy)
    };
    let (n, copy) = targets(true);
    assert_eq!(n, 4, "item 1 and archive 3 to 5");
    assert!(
        matches!(copy, Some(NodeState::Duplicate { .. })),
        "{copy:?}"
    );
    // Without the declarations the copy is one more target.
    assert_eq!(targets(false), (5, Some(NodeState::Target)));
}

#[test]
fn look_alikes_filed_elsewhere_count_once_their_directory_holds_several() {
    // θ 0.95: a copy of the example's template outside /item/ scores 1.0 before the place
    // weight and 0.9 with it.
    let site = |url: &str| {
        let path = url.trim_start_matches("http://shop.test");
        let number = |p: &str| -> Option<u32> {
            p.rsplit('/').next()?.trim_end_matches(".html").parse().ok()
        };
        match (path, number(path)) {
            ("/", _) => html(&listing(
                &[
                    "/item/1.html",
                    "/item/2.html",
                    "/archive/3.html",
                    "/archive/4.html",
                    "/archive/5.html",
                    "/lone/6.html",
                ]
                .map(String::from),
            )),
            (_, Some(i)) => html(&entity(i)),
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        }
    };
    let mut config = MapConfig::default();
    config.similarity.threshold = 0.95;
    config.politeness.delay_ms = 0;
    let mut m = mapper_with(config);
    drive(&mut m, &site);
    let promoted = m
        .drain_events()
        .iter()
        .filter(|e| matches!(e, Event::Promoted { .. }))
        .count();
    let map = m.into_site_map();
    let mut targets: Vec<&str> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.as_str())
        .collect();
    targets.sort_unstable();
    assert_eq!(
        targets,
        [
            "http://shop.test/archive/3.html",
            "http://shop.test/archive/4.html",
            "http://shop.test/archive/5.html",
            "http://shop.test/item/1.html",
            "http://shop.test/item/2.html",
        ]
    );
    // The two archive pages met before the third were promoted when it came.
    assert_eq!(promoted, 2);
    let lone = map
        .nodes
        .iter()
        .find(|n| n.url.ends_with("/lone/6.html"))
        .expect("lone page");
    assert_eq!(lone.state, NodeState::Page);
    assert_eq!(lone.unplaced, Some(1.0));
    assert!((lone.similarity.expect("measured") - 0.9).abs() < 1e-6);
    // The whole-map computation agrees with the page-by-page one, and follows θ: at 0.85
    // the lone page passes with its place weight, at 0.99 nothing changes.
    assert_eq!(map.with_threshold(map.threshold), map);
    assert_eq!(map.with_threshold(0.85).targets().count(), 6);
    assert_eq!(map.with_threshold(0.99).targets().count(), 5);
}

#[test]
fn a_link_held_back_from_a_target_is_visited_in_its_turn_when_a_page_links_it_too() {
    // The entry links the item first, then a listing; the item and the listing both link
    // /x (the item first), the listing also /y. Four fetches: /x, linked by an ordinary
    // page, comes before /y, not after everything else.
    let site = |url: &str| {
        let path = url.trim_start_matches("http://shop.test");
        match path {
            "/" => html(&listing(&["/item/1.html".into(), "/list.html".into()])),
            "/item/1.html" => html(&entity(1).replace("</div>", "<a href='/x'>x</a></div>")),
            "/list.html" => html(&listing(&["/x".into(), "/y".into()])),
            "/x" | "/y" => html("<html><body><p>page</p></body></html>"),
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        }
    };
    let mut config = MapConfig {
        max_pages: 4,
        ..MapConfig::default()
    };
    config.politeness.delay_ms = 0;
    config.politeness.max_in_flight = 1;
    let mut m = mapper_with(config);
    drive(&mut m, &site);
    let map = m.into_site_map();
    let fetched = |suffix: &str| {
        map.nodes
            .iter()
            .any(|n| n.url.ends_with(suffix) && n.similarity.is_some())
    };
    assert!(fetched("/item/1.html") && fetched("/list.html"));
    assert!(fetched("/x"), "held back, then linked by the listing");
    assert!(!fetched("/y"));
}

#[test]
fn with_threshold_relabels_fetched_pages_only() {
    let mut m = mapper();
    drive(&mut m, &site);
    let map = m.into_site_map();
    let targets: Vec<u32> = map.targets().collect();
    assert!(!targets.is_empty());
    let sims = |map: &SiteMap| -> Vec<(u32, f32)> {
        map.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.similarity.map(|s| (i as u32, s)))
            .collect()
    };
    // θ above every score: no target; θ = 0: every fetched page but the entry.
    assert_eq!(map.with_threshold(1.01).targets().count(), 0);
    let all = map.with_threshold(0.0);
    let fetched = sims(&map).iter().filter(|(i, _)| *i != 0).count();
    assert_eq!(all.targets().count(), fetched);
    assert_eq!(all.nodes[0].state, NodeState::Page);
    // The same θ gives the same map; states other than page/target never change.
    assert_eq!(map.with_threshold(map.threshold), map);
    for (a, b) in map.nodes.iter().zip(&all.nodes) {
        if !matches!(a.state, NodeState::Page | NodeState::Target) {
            assert_eq!(a.state, b.state);
        }
        assert_eq!(a.links, b.links);
    }
}

#[test]
fn corrections_override_theta_on_fetched_pages_only() {
    let mut m = mapper();
    drive(&mut m, &site);
    let map = m.into_site_map();
    let id = |url: &str| map.nodes.iter().position(|n| n.url == url).expect(url);
    let (about, item) = (
        id("http://shop.test/about.html"),
        id("http://shop.test/item/2.html"),
    );
    assert_eq!(map.nodes[about].state, NodeState::Page);
    assert_eq!(map.nodes[item].state, NodeState::Target);
    // The user's verdicts win over θ; URLs are canonicalised (fragment, session-free form).
    let mut fixed = map.clone();
    fixed
        .correct(
            &["http://shop.test/about.html#x".into()],
            &["http://SHOP.test/item/2.html".into()],
        )
        .expect("corrected");
    assert_eq!(fixed.nodes[about].state, NodeState::Target);
    assert_eq!(fixed.nodes[item].state, NodeState::Page);
    assert_eq!(fixed.targets().count(), map.targets().count());
    for (i, (a, b)) in map.nodes.iter().zip(&fixed.nodes).enumerate() {
        if i != about && i != item {
            assert_eq!(a, b);
        }
    }
    // Verdicts on pages that were never measured are refused, with the reason.
    let err = |like: &str, unlike: &str| {
        let list = |u: &str| {
            if u.is_empty() {
                vec![]
            } else {
                vec![u.to_string()]
            }
        };
        let mut m = map.clone();
        let e = m.correct(&list(like), &list(unlike)).expect_err(like);
        assert_eq!(m, map, "a refused verdict changes nothing");
        e
    };
    assert!(err("http://shop.test/nowhere.html", "").contains("not met"));
    assert!(err("http://shop.test/private/x.html", "").contains("disallowed by robots.txt"));
    assert!(err("", "http://shop.test/item/1.html").contains("the example page"));
    assert!(err("http://shop.test/", "").contains("entry page"));
    assert!(err("/about.html", "").contains("not an absolute URL"));
    let both = "http://shop.test/about.html";
    assert!(err(both, both).contains("both"));
}

#[test]
fn near_misses_are_the_most_similar_pages_below_theta() {
    let mut m = mapper();
    drive(&mut m, &site);
    let map = m.into_site_map();
    let near = map.near_misses(100);
    assert!(!near.is_empty());
    let sims: Vec<f32> = near
        .iter()
        .map(|&i| map.nodes[i as usize].similarity.expect("measured"))
        .collect();
    assert!(sims.windows(2).all(|w| w[0] >= w[1]), "{sims:?}");
    assert!(!near.contains(&0), "the entry page is never a near miss");
    for &i in &near {
        assert_eq!(map.nodes[i as usize].state, NodeState::Page);
    }
    let measured_pages = map
        .nodes
        .iter()
        .skip(1)
        .filter(|n| n.state == NodeState::Page && n.similarity.is_some())
        .count();
    assert_eq!(near.len(), measured_pages);
    assert_eq!(map.near_misses(1), near[..1]);
    // A target marked unlike the example is a page now, but not a near miss.
    let target = map
        .targets()
        .map(|t| t as usize)
        .find(|&t| map.nodes[t].url != map.example)
        .expect("a target besides the example");
    let mut fixed = map.clone();
    fixed
        .correct(&[], &[map.nodes[target].url.clone()])
        .expect("corrected");
    assert_eq!(fixed.near_misses(100), near);
    // Equal similarities are ordered by URL, whatever order the pages arrived in.
    let mut tied = map.clone();
    let pages: Vec<usize> = near.iter().take(2).map(|&i| i as usize).collect();
    let below = tied.nodes[pages[1]].similarity;
    for &i in &pages {
        tied.nodes[i].similarity = below;
    }
    let (a, b) = (pages[0], pages[1]);
    tied.nodes[a].url = "http://shop.test/tie-a".into();
    tied.nodes[b].url = "http://shop.test/tie-b".into();
    let order = |map: &SiteMap| -> Vec<usize> {
        map.near_misses(100)
            .into_iter()
            .map(|i| i as usize)
            .filter(|i| pages.contains(i))
            .collect()
    };
    assert_eq!(order(&tied), [a, b]);
    // The same pages arrived the other way round.
    tied.nodes.swap(a, b);
    assert_eq!(order(&tied), [b, a]);
}

#[test]
fn breadth_first_tree_follows_document_order_not_arrival_order() {
    let node = |url: &str, parent: Option<u32>, state: NodeState, links: Vec<u32>| Node {
        url: url.into(),
        parent,
        depth: 0,
        state,
        similarity: None,
        unplaced: None,
        title: String::new(),
        heading: String::new(),
        lang: String::new(),
        links,
        form: None,
    };
    // Entry 0 links a (1) then b (2); both link c (3), recorded under b because b answered
    // first. c links the target t (4), a links the target u (6); both targets link d (5),
    // recorded under t. Targets are expanded only once nothing else is left, in the order
    // the walk met them: u (met from a) before t (met from c), so d hangs under u.
    let map = SiteMap {
        nodes: vec![
            node("/", None, NodeState::Page, vec![1, 2]),
            node("/a", Some(0), NodeState::Page, vec![3, 6]),
            node("/b", Some(0), NodeState::Page, vec![3, 0]),
            node("/c", Some(2), NodeState::Page, vec![4]),
            node("/t", Some(3), NodeState::Target, vec![5]),
            node("/d", Some(4), NodeState::Discovered, vec![]),
            node("/u", Some(1), NodeState::Target, vec![5]),
        ],
        ..SiteMap::default()
    };
    let tree = map.breadth_first();
    assert_eq!(
        tree.parent,
        vec![None, Some(0), Some(0), Some(1), Some(3), Some(6), Some(1)]
    );
    assert_eq!(
        tree.depth,
        vec![
            Some(0),
            Some(1),
            Some(1),
            Some(2),
            Some(3),
            Some(3),
            Some(2)
        ]
    );
    assert_eq!(
        tree.order,
        vec![
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(5),
            Some(6),
            Some(4)
        ]
    );
    // The same pages recorded the other way round give the same tree.
    let mut other = map.clone();
    other.nodes[5].parent = Some(6);
    other.nodes[3].parent = Some(1);
    assert_eq!(other.breadth_first(), tree);
    // A node no walk reaches keeps its recorded parent and has no depth.
    let mut alone = map.clone();
    alone
        .nodes
        .push(node("/e", Some(2), NodeState::Discovered, vec![]));
    let tree = alone.breadth_first();
    assert_eq!(
        (tree.parent[7], tree.depth[7], tree.order[7]),
        (Some(2), None, None)
    );
}

#[test]
fn snapshot_restore_mid_run_gives_the_same_map() {
    let mut clean = mapper();
    drive(&mut clean, &site);
    let mut m = mapper();
    // Start three requests, snapshot with them in flight, drop the mapper.
    let mut now = 0;
    let mut started = 0;
    while started < 4 {
        match m.poll(now) {
            Poll::Fetch(r) => {
                started += 1;
                if started <= 2 {
                    m.handle(r.id, site(&r.url), now);
                }
            }
            Poll::WaitUntil(t) => now = t,
            _ => break,
        }
    }
    let json = serde_json::to_string(&m.snapshot()).expect("serialise");
    drop(m);
    let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
    let mut r = Mapper::restore(snap).expect("restore");
    drive(&mut r, &site);
    assert_eq!(r.site_map(), clean.site_map());
}

/// A site whose home page has no `<a>` link: its menu is written by `/nav.js` (as Doxygen's
/// `menudata.js`), which every page includes; `/track.js` answers 404 and `/private/` is
/// disallowed.
fn scripted_site(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    let js = |body: &str| {
        FetchResult::Response(FetchResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/javascript".into())],
            body: body.as_bytes().to_vec(),
            ..FetchResponse::default()
        })
    };
    let scripts = "<script src=/nav.js></script><script src=/track.js></script>\
                   <script src=/private/p.js></script>";
    match path {
        "/robots.txt" => html("User-agent: *\nDisallow: /private/\n"),
        "/" => html(&format!(
            "<html><head>{scripts}<title>Home</title></head><body><p>Welcome</p></body></html>"
        )),
        "/nav.js" => js(r#"var menu = [{text: "Catalogue", url: "/cat/a.html"}]; // "x.html""#),
        "/cat/a.html" => html(
            &listing(
                &(1..=5)
                    .map(|i| format!("/item/{i}.html"))
                    .collect::<Vec<_>>(),
            )
            .replace("<head>", &format!("<head>{scripts}")),
        ),
        p if p.starts_with("/item/") => {
            let i: u32 = p[6..].trim_end_matches(".html").parse().unwrap_or(0);
            html(&entity(i).replace("<head>", &format!("<head>{scripts}")))
        }
        _ => FetchResult::Response(FetchResponse {
            status: 404,
            ..FetchResponse::default()
        }),
    }
}

/// The page URLs a same-site script names are links of every page including it: the
/// script is asked once, the map records no node for it, and a snapshot taken while it is
/// in flight restores to the same map.
#[test]
fn links_named_in_a_pages_scripts_are_its_links() {
    let mut m = mapper();
    let asked = std::cell::RefCell::new(Vec::new());
    drive(&mut m, &|url: &str| {
        asked.borrow_mut().push(url.to_string());
        scripted_site(url)
    });
    let map = m.site_map();
    let targets: Vec<&str> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.as_str())
        .collect();
    assert_eq!(targets.len(), 5, "{targets:?}");
    let home_links: Vec<&str> = map.nodes[0]
        .links
        .iter()
        .map(|&l| map.nodes[l as usize].url.as_str())
        .collect();
    assert_eq!(home_links, ["http://shop.test/cat/a.html"]);
    assert_eq!(map.scripted.get(&0), Some(&map.nodes[0].links));
    // The pattern needs the script: without it the home page leads nowhere.
    let learned = crate::pattern::learn_from_map(map, m.config(), 0).expect("learn");
    assert!(learned.script_links, "{}", learned.render());
    // Where no link came only from scripts, a crawl does not fetch them.
    let mut plain = map.clone();
    plain.scripted.clear();
    let learned = crate::pattern::learn_from_map(&plain, m.config(), 0).expect("learn");
    assert!(!learned.script_links);
    assert!(map.nodes.iter().all(|n| !n.url.ends_with(".js")));
    let asked = asked.into_inner();
    for script in ["/nav.js", "/track.js"] {
        let n = asked.iter().filter(|u| u.ends_with(script)).count();
        assert_eq!(n, 1, "{script} asked once: {asked:?}");
    }
    assert!(!asked.iter().any(|u| u.contains("/private/")));
    // nav.js and track.js answered (the disallowed one is skipped, not asked).
    assert_eq!(m.progress().scripts, 2);
    assert_eq!(m.progress().fetched, 7);

    // Snapshot with the script in flight (asked right after the home page), restore.
    let mut s = mapper();
    let mut now = 0;
    loop {
        match s.poll(now) {
            Poll::Fetch(r) if r.url.ends_with("/nav.js") => {
                // Asked as a script: a driver keeps its body though it is not HTML.
                assert_eq!(r.kind, RequestKind::Script);
                break;
            }
            Poll::Fetch(r) => {
                assert_ne!(r.kind, RequestKind::Script, "{}", r.url);
                s.handle(r.id, scripted_site(&r.url), now);
            }
            Poll::WaitUntil(t) => now = t,
            other => panic!("nav.js never asked: {other:?}"),
        }
    }
    let json = serde_json::to_string(&s.snapshot()).expect("serialise");
    let mut r = Mapper::restore(serde_json::from_str(&json).expect("read")).expect("restore");
    drive(&mut r, &scripted_site);
    assert_eq!(r.site_map(), m.site_map());

    // Turned off: the home page has no links, and learning says why.
    let mut off = mapper_with(MapConfig {
        script_links: false,
        ..MapConfig::default()
    });
    drive(&mut off, &scripted_site);
    assert_eq!(off.site_map().nodes.len(), 1);
    assert!(off.site_map().scripted.is_empty());
}

/// A snapshot or map read back from disk whose ids point nowhere is refused with the
/// reason, not run into a panic.
#[test]
fn inconsistent_snapshots_and_maps_are_refused() {
    let mut m = mapper();
    let mut now = 0;
    for _ in 0..6 {
        match m.poll(now) {
            Poll::Fetch(r) => m.handle(r.id, site(&r.url), now),
            Poll::WaitUntil(t) => now = t,
            _ => break,
        }
    }
    let good = serde_json::to_value(m.snapshot()).expect("snapshot");
    let queued = good["frontier"]["queue"].as_array().map_or(0, Vec::len);
    assert!(queued > 0, "requests queued: {}", good["frontier"]);
    let restore = |v: &serde_json::Value| {
        let snap: Snapshot = serde_json::from_value(v.clone()).expect("deserialises");
        Mapper::restore(snap).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(restore(&good), Ok(()));
    let mut bad = good.clone();
    bad["frontier"]["queue"][0]["item"]["node"] = serde_json::json!(9_999);
    let err = restore(&bad).expect_err("a queued request for no node");
    assert!(
        err.contains("inconsistent snapshot: a queued request is node 9999"),
        "{err}"
    );
    let mut bad = good.clone();
    bad["map"]["nodes"][1]["parent"] = serde_json::json!(4_000_000_000u32);
    let err = restore(&bad).expect_err("a parent beyond the map");
    assert!(err.contains("the parent of node 1 is 4000000000"), "{err}");

    let mut map = m.into_site_map();
    assert_eq!(map.check(), Ok(()));
    let mut listed = map.clone();
    listed.sitemap_links.push(88);
    let err = listed.check().expect_err("a sitemap's page beyond the map");
    assert!(err.contains("a page a sitemap lists is 88"), "{err}");
    map.nodes[0].links.push(77);
    let err = map.check().expect_err("a dangling link");
    assert!(err.contains("a link of node 0 is 77"), "{err}");
    let learned = crate::pattern::learn_from_map(&map, &MapConfig::default(), 0);
    assert!(
        learned.is_err_and(|e| e.to_string().contains("inconsistent site map")),
        "learning refuses it"
    );
}

#[test]
fn bad_inputs_are_clear_errors() {
    let ex = ExamplePage {
        url: "http://shop.test/item/1.html".into(),
        body: entity(1).into_bytes(),
        content_type: None,
    };
    assert!(Mapper::new("ftp://x/", ex.clone(), MapConfig::default()).is_err());
    let bad = MapConfig {
        deny: vec!["(".into()],
        ..MapConfig::default()
    };
    assert!(Mapper::new("http://shop.test/", ex.clone(), bad).is_err());
    let bad = MapConfig {
        similarity: similarity::Options {
            threshold: 2.0,
            ..Default::default()
        },
        ..MapConfig::default()
    };
    assert!(Mapper::new("http://shop.test/", ex, bad).is_err());
}

#[test]
fn limits_stop_the_run() {
    let mut m = Mapper::new(
        "http://shop.test/",
        ExamplePage {
            url: "http://shop.test/item/1.html".into(),
            body: entity(1).into_bytes(),
            content_type: None,
        },
        MapConfig {
            max_pages: 3,
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    drive(&mut m, &site);
    assert_eq!(m.stopped(), Some(StopReason::MaxPages));
    assert_eq!(m.progress().fetched, 3);
}

/// The time budget counts running time: a run saved after 5 s and restored an hour later
/// has 5 s left of 10.
#[test]
fn the_time_budget_counts_running_time_across_a_restore() {
    let limited = || {
        let mut m = mapper();
        m.state.config.max_duration_ms = Some(10_000);
        m
    };
    let mut m = limited();
    let t0 = 1_000_000;
    let Poll::Fetch(r) = m.poll(t0) else {
        panic!("the entry page first")
    };
    m.handle(r.id, site(&r.url), t0);
    assert!(matches!(m.poll(t0 + 5_000), Poll::Fetch(_)));
    assert_eq!(m.progress().elapsed_ms, 5_000);
    let json = serde_json::to_string(&m.snapshot()).expect("serialise");
    let snap: Snapshot = serde_json::from_str(&json).expect("deserialise");
    let mut r = Mapper::restore(snap).expect("restore");
    let later = t0 + 3_600_000;
    // The request in flight is asked again once the host's delay from its start is over.
    assert_eq!(r.poll(later), Poll::WaitUntil(later + 10));
    assert!(matches!(r.poll(later + 10), Poll::Fetch(_)));
    assert_eq!(r.stopped(), None, "5 s of 10 used");
    assert_eq!(r.progress().elapsed_ms, 5_010);
    r.poll(later + 4_000);
    assert_eq!(r.stopped(), None);
    r.poll(later + 5_000);
    assert_eq!(r.stopped(), Some(StopReason::MaxDuration));
    // Without the restore, the same budget runs out at 10 s.
    let mut m = limited();
    m.poll(t0);
    m.poll(t0 + 10_000);
    assert_eq!(m.stopped(), Some(StopReason::MaxDuration));
}

#[path = "tests_sitemaps.rs"]
mod sitemaps;

#[path = "tests_listings.rs"]
mod listings;

#[path = "tests_variants.rs"]
mod variants;
