//! The tests of `crawler` (a sibling file: they outgrew the module).
use super::*;
use crate::fetch::FetchResponse;
use crate::mapper::{MapConfig, Mapper};
use crate::pattern::{self, LearnConfig};

fn html(body: String) -> FetchResult {
    FetchResult::Response(FetchResponse {
        status: 200,
        final_url: String::new(),
        headers: vec![("content-type".into(), "text/html".into())],
        body: body.into_bytes(),
        truncated: false,
    })
}

/// An in-memory site: `/` → `/list?p=1..4` (each page links the next) → `/item/N`.
fn site(url: &str, items: usize) -> FetchResult {
    let path = url.trim_start_matches("http://mem.test");
    let page = |title: &str, body: &str| {
        html(format!(
            "<html><head><title>{title}</title></head><body><nav><a href='/'>home</a></nav>{body}</body></html>"
        ))
    };
    if path == "/" {
        return page(
            "Home",
            "<p>Welcome</p><a href='/list?p=1'>catalogue</a><a href='/about'>about</a>",
        );
    }
    if path == "/about" {
        return page("About", "<p>About us</p>");
    }
    if let Some(p) = path.strip_prefix("/list?p=") {
        let p: usize = p.parse().unwrap_or(0);
        let pages = items.div_ceil(5);
        if p == 0 || p > pages {
            return FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            });
        }
        let mut body = String::from("<ul class=items>");
        for i in (p - 1) * 5 + 1..=(p * 5).min(items) {
            body += &format!("<li><a href='/item/{i}'>item {i}</a></li>");
        }
        body += "</ul>";
        if p < pages {
            body += &format!("<a class=next href='/list?p={}'>next</a>", p + 1);
        }
        return page(&format!("List {p}"), &body);
    }
    if let Some(i) = path.strip_prefix("/item/") {
        return page(
            &format!("Item {i}"),
            &format!(
                "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>price</td><td>{i}</td></tr></table><p class=d>text {i}</p></div>"
            ),
        );
    }
    if path == "/robots.txt" {
        return FetchResult::Response(FetchResponse {
            status: 404,
            ..FetchResponse::default()
        });
    }
    FetchResult::Response(FetchResponse {
        status: 404,
        ..FetchResponse::default()
    })
}

fn learn(items: usize) -> Pattern {
    learn_on(&|url: &str| site(url, items), "http://mem.test/item/1")
}

/// Maps an in-memory site from `http://mem.test/` with `example` and learns its pattern.
fn learn_on(site: &dyn Fn(&str) -> FetchResult, example: &str) -> Pattern {
    learn_from(site, "http://mem.test/", example)
}

/// The example page `url` as an in-memory site serves it.
fn example_of(site: &dyn Fn(&str) -> FetchResult, url: &str) -> ExamplePage {
    ExamplePage {
        url: url.into(),
        body: match site(url) {
            FetchResult::Response(r) => r.body,
            FetchResult::Failed(_) => Vec::new(),
        },
        content_type: None,
    }
}

/// Maps an in-memory site from `entry` with `example` and learns its pattern.
fn learn_from(site: &dyn Fn(&str) -> FetchResult, entry: &str, example: &str) -> Pattern {
    let example = example_of(site, example);
    let mut m = Mapper::new(entry, example, MapConfig::default()).expect("mapper");
    let mut now = 0;
    loop {
        match m.poll(now) {
            Poll::Fetch(r) => m.handle(r.id, site(&r.url), now),
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("synchronous driver"),
            Poll::Done => break,
        }
    }
    let politeness = m.config().politeness.clone();
    let map = m.into_site_map();
    pattern::learn(
        &map,
        crate::canon::Scope::for_url(entry, false).expect("scope"),
        politeness,
        Default::default(),
        &LearnConfig::default(),
        0,
    )
    .expect("pattern")
}

/// Runs a crawler to the end with injected time; `stop_after` results it is snapshotted,
/// dropped and restored (in-flight requests lost with the old driver).
fn run(c: Crawler, items: usize, stop_after: Option<usize>) -> (Vec<String>, Crawler) {
    run_on(c, &|url: &str| site(url, items), stop_after)
}

fn run_on(
    mut c: Crawler,
    site: &dyn Fn(&str) -> FetchResult,
    stop_after: Option<usize>,
) -> (Vec<String>, Crawler) {
    let mut now = 1_000;
    let mut handled = 0;
    let mut pending: Vec<(u64, String)> = Vec::new();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 10_000, "bounded");
        match c.poll(now) {
            Poll::Fetch(r) => {
                pending.push((r.id, r.url));
                continue;
            }
            Poll::WaitUntil(t) if pending.is_empty() => {
                now = t;
                continue;
            }
            Poll::Done => break,
            _ => {}
        }
        // Answer the oldest request, 10 ms later.
        now += 10;
        let (id, url) = pending.remove(0);
        c.handle(id, site(&url), now);
        handled += 1;
        if Some(handled) == stop_after {
            let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
            let snap: Snapshot = serde_json::from_str(&json).expect("restore json");
            c = Crawler::restore(snap).expect("restore");
            pending.clear();
        }
    }
    (c.targets().to_vec(), c)
}

/// Runs a crawler to the end, one request at a time; the target pages it handed out, with
/// their flags, and the crawler.
fn target_pages(mut c: Crawler, site: &dyn Fn(&str) -> FetchResult) -> (Vec<TargetPage>, Crawler) {
    let mut now = 0;
    let mut pages = Vec::new();
    for _ in 0..10_000 {
        let polled = c.poll(now);
        // Results are taken inside poll too: its events are read before it ends the run.
        for e in c.drain_events() {
            if let Event::Target(t) = e {
                pages.push(*t);
            }
        }
        match polled {
            Poll::Fetch(r) => c.handle(r.id, site(&r.url), now),
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("synchronous driver"),
            Poll::Done => return (pages, c),
        }
    }
    panic!("unbounded crawl");
}

#[test]
fn crawls_pagination_and_reports_coverage_and_new_pages() {
    let p = learn(12);
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    assert!(p.levels[0].paginate, "{}", p.render());
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run(c, 12, None);
    assert_eq!(targets.len(), 12);
    let cov = c.coverage();
    assert_eq!((cov.known, cov.reached, cov.new.len()), (12, 12, 0));
    // The site grows: the same pattern finds the new items, reported as new.
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run(c, 23, None);
    assert_eq!(targets.len(), 23);
    assert_eq!(c.coverage().new.len(), 11);
    assert_eq!(
        (c.progress().fetched, c.progress().sitemap_requests),
        (1 + 5 + 23, 2),
        "home, five list pages, items; the two common sitemap locations (none there) apart"
    );
}

/// A target's text digest is what the page says: the same under other markup, scripts and
/// styles, another when a word, a number or the title changes.
#[test]
fn the_text_digest_follows_the_text_not_the_markup() {
    let digest = |html: &str| {
        let page = Page::parse(
            html.as_bytes(),
            "http://h/a",
            None,
            &ParseOptions::default(),
        )
        .expect("parse");
        text_digest(&page)
    };
    let base = digest("<title>Item</title><p>Price: 10 EUR</p><p>Blue</p>");
    assert_eq!(base.len(), 16);
    assert!(base.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        base,
        digest(
            "<title>Item</title><style>p{}</style><div class=x><p>Price:\n 10 EUR</p>\
             <script>var t = 1;</script><p>Blue</p></div>"
        )
    );
    assert_ne!(
        base,
        digest("<title>Item</title><p>Price: 12 EUR</p><p>Blue</p>")
    );
    assert_ne!(
        base,
        digest("<title>Item 2</title><p>Price: 10 EUR</p><p>Blue</p>")
    );
}

#[test]
fn snapshot_restore_mid_crawl_loses_nothing() {
    let p = learn(20);
    let clean = run(
        Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c"),
        20,
        None,
    )
    .0;
    for stop in [1, 3, 7, 15] {
        let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c");
        let (got, _) = run(c, 20, Some(stop));
        let (mut a, mut b) = (clean.clone(), got.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b, "restored after {stop} results");
    }
}

/// A site whose only way in is a script: the home page includes `/nav.js`, which names the
/// first of three listing pages (`/list/N.html`, each linking the next) of 12 items.
fn scripted_site(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://mem.test");
    let head = "<head><script src='/nav.js'></script><title>t</title></head>";
    let page = |body: &str| html(format!("<html>{head}<body>{body}</body></html>"));
    if path == "/nav.js" {
        return FetchResult::Response(FetchResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/javascript".into())],
            body: br#"var menu = [{text: "Catalogue", url: "/list/1.html"}];"#.to_vec(),
            ..FetchResponse::default()
        });
    }
    if path == "/" {
        return page("<p>Welcome</p>");
    }
    if let Some(p) = path.strip_prefix("/list/") {
        let p: usize = p.trim_end_matches(".html").parse().unwrap_or(0);
        if !(1..=3).contains(&p) {
            return site(url, 0);
        }
        let mut body = String::from("<ul class=items>");
        for i in (p - 1) * 4 + 1..=p * 4 {
            body += &format!("<li><a href='/item/{i}.html'>item {i}</a></li>");
        }
        body += "</ul>";
        if p < 3 {
            body += &format!("<a class=next href='/list/{}.html'>next</a>", p + 1);
        }
        return page(&body);
    }
    if let Some(i) = path.strip_prefix("/item/") {
        // Words, not numbers: pages differing only in digits are one page to the mapper.
        let words = [
            "ash", "birch", "cedar", "elm", "fir", "hazel", "larch", "lime",
        ];
        let i: usize = i.trim_end_matches(".html").parse().unwrap_or(0);
        let i = format!("{} {}", words[i % 8], words[i / 8 % 8]);
        return page(&format!(
            "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>price</td><td>{i}</td></tr></table><p class=d>text {i}</p></div>"
        ));
    }
    site(url, 0)
}

/// A crawl snapshotted while the script it needs is in flight asks the script again after
/// the restore, and the pages that were waiting for it still get its links.
#[test]
fn snapshot_restore_with_a_script_in_flight_loses_nothing() {
    let p = learn_on(&scripted_site, "http://mem.test/item/1.html");
    assert!(p.script_links, "{}", p.render());
    let clean = run_on(
        Crawler::new(p.clone(), CrawlConfig::default(), None).expect("c"),
        &scripted_site,
        None,
    );
    assert_eq!(clean.0.len(), 12, "{:?}", clean.0);
    assert_eq!(clean.1.progress().scripts, 1);

    // Run until the script is asked, snapshot with it in flight, drop the crawler.
    let mut c = Crawler::new(p, CrawlConfig::default(), None).expect("c");
    let mut now = 1_000;
    loop {
        match c.poll(now) {
            Poll::Fetch(r) if r.kind == RequestKind::Script => break,
            Poll::Fetch(r) => c.handle(r.id, scripted_site(&r.url), now),
            Poll::WaitUntil(t) => now = t,
            other => panic!("nav.js never asked: {other:?}"),
        }
    }
    let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
    assert!(
        json.contains("nav.js"),
        "the waiting page is in the snapshot"
    );
    let r = Crawler::restore(serde_json::from_str(&json).expect("read")).expect("restore");
    let (mut got, r) = run_on(r, &scripted_site, None);
    let mut want = clean.0;
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(r.progress().scripts, 1, "asked again once, answered once");
}

/// A snapshot whose queued requests name a level the pattern does not have is refused.
#[test]
fn inconsistent_snapshots_are_refused() {
    let mut c = Crawler::new(learn(12), CrawlConfig::default(), None).expect("crawler");
    let Poll::Fetch(r) = c.poll(0) else {
        panic!("the start page first")
    };
    c.handle(r.id, site(&r.url, 12), 0);
    let good = serde_json::to_value(c.snapshot()).expect("snapshot");
    let restore = |v: &serde_json::Value| {
        let snap: Snapshot = serde_json::from_value(v.clone()).expect("deserialises");
        Crawler::restore(snap)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(restore(&good), Ok(()));
    let mut bad = good.clone();
    bad["frontier"]["queue"][0]["item"]["level"] = serde_json::json!(9);
    let err = restore(&bad).expect_err("a level beyond the pattern");
    assert!(
        err.contains("inconsistent snapshot: a queued request is for level 9"),
        "{err}"
    );
    let mut bad = good;
    bad["frontier"]["queue"][0]["item"]["query"] = serde_json::json!(3);
    let err = restore(&bad).expect_err("a form run that does not exist");
    assert!(err.contains("belongs to form run 3"), "{err}");
}

/// A crawl saved after 4 s of a 10 s budget and restored much later runs 6 s more.
#[test]
fn the_time_budget_counts_running_time_across_a_restore() {
    let config = CrawlConfig {
        max_duration_ms: Some(10_000),
        ..CrawlConfig::default()
    };
    let mut c = Crawler::new(learn(12), config, None).expect("crawler");
    let t0 = 50_000;
    let Poll::Fetch(r) = c.poll(t0) else {
        panic!("the start page first")
    };
    c.handle(r.id, site(&r.url, 12), t0);
    c.poll(t0 + 4_000);
    let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
    let snap: Snapshot = serde_json::from_str(&json).expect("restore json");
    let mut r = Crawler::restore(snap).expect("restore");
    let later = t0 + 7_200_000;
    // What was left of the host's delay when saved is waited (250 ms; the clock moved).
    assert_eq!(r.poll(later), Poll::WaitUntil(later + 250));
    assert_eq!((r.stopped(), r.progress().elapsed_ms), (None, 4_000));
    assert!(matches!(r.poll(later + 250), Poll::Fetch(_)));
    r.poll(later + 5_999);
    assert_eq!(r.stopped(), None);
    r.poll(later + 6_000);
    assert_eq!(r.stopped(), Some(StopReason::MaxDuration));
}

/// Started from the example page ("This page" in the extension): the entry is collected
/// with the other targets, once, and navigation still starts from it. With verification,
/// an entry that no longer looks like the example (its item removed) is not collected, and
/// its links are still followed.
#[test]
fn an_entry_like_the_example_is_collected_and_still_followed() {
    let item = |i: usize| format!("http://mem.test/item/{i}");
    let p = learn_from(&|url: &str| site(url, 6), &item(1), &item(1));
    assert!(p.entry_target, "{}", p.render());
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (mut targets, c) = run(c, 6, None);
    targets.sort();
    assert_eq!(targets, (1..=6).map(item).collect::<Vec<_>>());
    let cov = c.coverage();
    assert_eq!((cov.known, cov.reached, cov.new.len()), (6, 6, 0));
    // Without the flag (a pattern learned before it existed), the entry is a listing only.
    let mut old = p.clone();
    old.entry_target = false;
    let (targets, _) = run(
        Crawler::new(old, CrawlConfig::default(), None).expect("c"),
        6,
        None,
    );
    assert_eq!(targets.len(), 5);
    assert!(!targets.contains(&item(1)));
    // The entry's item is removed: a notice page, still linking home.
    let changed = |url: &str| {
        if url == item(1) {
            html("<html><body><p>This item was sold.</p><a href='/'>home</a></body></html>".into())
        } else {
            site(url, 6)
        }
    };
    let example = example_of(&|u| site(u, 6), &item(2));
    let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
    let (mut targets, mut c) = run_on(c, &changed, None);
    targets.sort();
    assert_eq!(targets, (2..=6).map(item).collect::<Vec<_>>());
    assert_eq!((c.progress().rejected, c.progress().skipped), (1, 0));
    let refused: Vec<String> = c
        .drain_events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Skipped { url, reason } if url == item(1) => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with("the entry page is followed but not collected: it is not similar"),
        "{refused:?}"
    );
}

#[test]
fn verification_rejects_pages_unlike_the_example() {
    let p = learn(6);
    let example = ExamplePage {
        url: "http://mem.test/about".into(),
        body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>".to_vec(),
        content_type: None,
    };
    let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
    let (targets, c) = run(c, 6, None);
    assert!(targets.is_empty());
    assert_eq!(c.progress().rejected, 6);
}

/// An example saved outside the targets' directory: verification does not mark the targets
/// down for their place, since learning found targets there (as mapping scores a directory
/// of look-alikes).
#[test]
fn verification_trusts_the_directories_of_known_targets() {
    let mut p = learn(6);
    // θ 0.95: with the place weight the items would score 0.9.
    p.similarity.threshold = 0.95;
    let body = match site("http://mem.test/item/1", 6) {
        FetchResult::Response(r) => r.body,
        FetchResult::Failed(_) => Vec::new(),
    };
    let example = ExamplePage {
        url: "http://mem.test/saved/item-1".into(),
        body,
        content_type: None,
    };
    let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
    let (targets, c) = run(c, 6, None);
    assert_eq!(targets.len(), 6);
    assert_eq!(c.progress().rejected, 0);
}

/// The same bytes under two URLs are one page to a crawl too, however their relative links
/// resolve: item 5 answers with item 2's page, whose `?print=1` link reads
/// `/item/5?print=1` there, so only the bytes tell the copy. It is skipped as an alias.
#[test]
fn the_same_bytes_under_another_url_are_skipped_as_a_copy() {
    let p = learn(6);
    let copy = |url: &str| {
        let path = url.trim_start_matches("http://mem.test");
        match path {
            "/item/2" | "/item/5" => html(
                "<html><head><title>Item 2</title></head><body><nav><a href='/'>home</a></nav>\
                 <div class=item><h1>Item 2</h1><table class=spec><tr><td>price</td><td>2</td>\
                 </tr></table><p class=d>text 2</p><a href='?print=1'>print</a></div></body></html>"
                    .to_string(),
            ),
            _ => site(url, 6),
        }
    };
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    let (pages, c) = target_pages(c, &copy);
    let urls: Vec<&str> = pages.iter().map(|t| t.url.as_str()).collect();
    assert_eq!(urls.len(), 5, "{urls:?}");
    let (first, second) = ("http://mem.test/item/2", "http://mem.test/item/5");
    assert!(urls.contains(&first) != urls.contains(&second), "{urls:?}");
    let (kept, alias) = if urls.contains(&first) {
        (first, second)
    } else {
        (second, first)
    };
    assert_eq!(c.state.aliases.get(alias).map(String::as_str), Some(kept));
}

/// A known target met under another of its URLs (recorded as an alias while learning) is
/// neither new nor checked when only new pages are verified.
#[test]
fn known_aliases_are_not_new() {
    let mut p = learn(6);
    let at = p
        .known_targets
        .iter()
        .position(|u| u.ends_with("/item/3"))
        .expect("item 3 known");
    let item3 = p.known_targets.remove(at);
    // Known as `/item/3?ref=home`, met while learning as `/item/3` too.
    p.known_targets.push(format!("{item3}?ref=home"));
    p.known_aliases.push(item3.clone());
    let config = CrawlConfig {
        verify_new_only: true,
        ..CrawlConfig::default()
    };
    // An example unlike the items: a page that were checked would be refused.
    let unlike_example = ExamplePage {
        url: "http://mem.test/about".into(),
        body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>".to_vec(),
        content_type: None,
    };
    let c = Crawler::new(p, config, Some(unlike_example)).expect("crawler");
    let (pages, c) = target_pages(c, &|url: &str| site(url, 6));
    assert_eq!(pages.len(), 6);
    let flags: Vec<_> = pages
        .into_iter()
        .map(|t| (t.url, t.new, t.verified))
        .collect();
    let item = flags
        .iter()
        .find(|f| f.0 == item3)
        .expect("item 3 collected");
    assert_eq!(
        (item.1, item.2),
        (false, None),
        "known under an alias: {flags:?}"
    );
    assert!(flags.iter().all(|f| !f.1), "nothing new: {flags:?}");
    assert_eq!(c.coverage().new, Vec::<String>::new());
}

#[test]
fn verifying_new_pages_only_trusts_the_known_targets() {
    let p = learn(6);
    assert_eq!(p.known_targets.len(), 6);
    let unlike_example = || ExamplePage {
        url: "http://mem.test/about".into(),
        body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>".to_vec(),
        content_type: None,
    };
    let config = CrawlConfig {
        verify_new_only: true,
        ..CrawlConfig::default()
    };
    // The six items known from learning are collected unchecked.
    let c = Crawler::new(p.clone(), config.clone(), Some(unlike_example())).expect("crawler");
    let (targets, c) = run(c, 6, None);
    assert_eq!(targets.len(), 6);
    assert_eq!(c.progress().rejected, 0);
    // Three new items: checked, and (unlike this example) refused.
    let c = Crawler::new(p, config, Some(unlike_example())).expect("crawler");
    let (targets, c) = run(c, 9, None);
    assert_eq!(targets.len(), 6, "{targets:?}");
    assert_eq!(c.progress().rejected, 3);
    assert_eq!(c.progress().new_targets, 0);
}

/// The in-memory site of [`site`] with six items named by words (`/item/bravo`, heading
/// "Item bravo"): headings name their page, as [`crate::review::heading`] needs.
fn named_site(url: &str) -> FetchResult {
    const NAMES: [&str; 6] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let url = match url.rsplit_once("/item/") {
        Some((head, name)) => match NAMES.iter().position(|n| *n == name) {
            Some(i) => format!("{head}/item/{}", i + 1),
            None => return site("http://mem.test/missing", 6),
        },
        None => url.to_string(),
    };
    match site(&url, 6) {
        FetchResult::Response(mut r) => {
            let mut body = String::from_utf8_lossy(&r.body).into_owned();
            for (i, name) in NAMES.iter().enumerate() {
                body = body
                    .replace(&format!("/item/{}'", i + 1), &format!("/item/{name}'"))
                    .replace(&format!(">Item {}<", i + 1), &format!(">Item {name}<"));
            }
            r.body = body.into_bytes();
            FetchResult::Response(r)
        }
        failed => failed,
    }
}

/// With every page verified, a known target whose score fell just below θ since learning is
/// taken when its heading follows the targets' template, as a new page would be, and marked;
/// below the band, or without the rule, it is refused.
#[test]
fn verification_takes_known_targets_just_below_theta_by_their_heading() {
    let mut p = learn_on(&named_site, "http://mem.test/item/alpha");
    assert_eq!(p.known_targets.len(), 6);
    // The example an item gained a block since: the items now score below 1.
    let example = || ExamplePage {
        url: "http://mem.test/item/alpha".into(),
        body: b"<html><head><title>Item alpha</title></head><body><nav><a href='/'>home</a>\
            </nav><div class=item><h1>Item alpha</h1><table class=spec><tr><td>price</td>\
            <td>1</td></tr></table><p class=d>text 1</p><div class=reviews><h2>Reviews</h2>\
            <ol><li>good</li></ol></div></div><aside class=related><h2>Related</h2><ul><li>\
            <a href='/about'>about</a></li></ul></aside><footer class=site><p>shop</p>\
            </footer></body></html>"
            .to_vec(),
        content_type: None,
    };
    let crawl = |p: &Pattern| {
        let c = Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler");
        let (pages, c) = target_pages(c, &named_site);
        (pages, c.progress())
    };
    // θ 0 to read the items' score.
    p.similarity.threshold = 0.0;
    let (pages, _) = crawl(&p);
    assert_eq!(pages.len(), 6);
    let score = pages
        .iter()
        .filter_map(|t| t.similarity)
        .fold(f64::MAX, f64::min);
    assert!(score < 0.85, "the items score {score}");
    // θ a little above the items' score: every known target falls in the band.
    p.similarity.threshold = score + 0.05;
    let (pages, progress) = crawl(&p);
    assert!(pages.is_empty(), "no rule: judged by θ alone");
    assert_eq!(progress.rejected, 6);
    p.heading_rule = Some(crate::review::heading::HeadingRule {
        templates: vec!["Item *".into()],
        unlike: vec![],
        like: vec![],
        kind_words: vec!["item".into()],
        common: vec![],
        frequent: None,
        qualified: false,
        whole_names: false,
        sections: false,
    });
    let (pages, progress) = crawl(&p);
    assert_eq!(pages.len(), 6, "taken for their heading");
    assert!(
        pages.iter().all(|t| t.by_heading && !t.new),
        "marked, known"
    );
    assert_eq!(
        (progress.by_heading, progress.new_targets, progress.rejected),
        (6, 0, 0)
    );
    // Listed by learning as taken for their heading, without the rule: still taken in the
    // band.
    let rule = p.heading_rule.take();
    p.by_heading = p.known_targets.clone();
    let (pages, progress) = crawl(&p);
    assert_eq!((pages.len(), progress.by_heading), (6, 6));
    // Further below θ than the band: refused whatever the heading or the list.
    p.heading_rule = rule;
    p.similarity.threshold = (score + crate::review::heading::WELL_BELOW + 0.02).min(1.0);
    let (pages, progress) = crawl(&p);
    assert!(pages.is_empty());
    assert_eq!((progress.by_heading, progress.rejected), (0, 6));
}

/// A kind the user judged unlike the example: a verifying crawl refuses the targets learning
/// left out for it, and any page whose heading follows its template, whatever the score.
#[test]
fn verification_refuses_the_kinds_judged_unlike() {
    let mut p = learn_on(&named_site, "http://mem.test/item/alpha");
    p.similarity.threshold = 0.0;
    let example = || example_of(&named_site, "http://mem.test/item/alpha");
    let crawl = |p: &Pattern| {
        let (pages, c) = target_pages(
            Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler"),
            &named_site,
        );
        (pages, c.progress())
    };
    let (pages, _) = crawl(&p);
    assert_eq!(pages.len(), 6, "all taken without a verdict");
    p.unlike_by_heading = vec!["http://mem.test/item/bravo".into()];
    let (pages, progress) = crawl(&p);
    assert_eq!((pages.len(), progress.rejected), (5, 1));
    assert!(!pages.iter().any(|t| t.url.ends_with("/bravo")));
    p.heading_rule = Some(crate::review::heading::HeadingRule {
        templates: vec![],
        unlike: vec!["Item *".into()],
        like: vec![],
        kind_words: vec!["item".into()],
        common: vec![],
        frequent: None,
        qualified: false,
        whole_names: false,
        sections: false,
    });
    // The example is like itself; the user's "like" on a page stands over its kind.
    let (pages, progress) = crawl(&p);
    assert_eq!(pages.len(), 1);
    assert_eq!(progress.rejected, 5);
    p.corrections.like = vec!["http://mem.test/item/charlie".into()];
    let (pages, _) = crawl(&p);
    let mut urls: Vec<&str> = pages.iter().map(|t| t.url.as_str()).collect();
    urls.sort_unstable();
    assert_eq!(
        urls,
        ["http://mem.test/item/alpha", "http://mem.test/item/charlie"]
    );
}

/// A language the user judged unlike the example's: a verifying crawl refuses the pages
/// that declare it, whatever their score, and the targets learning left out for it; the
/// example is like itself, a page judged like the example stands.
#[test]
fn verification_refuses_the_languages_judged_unlike() {
    // Items 2 and 4 declare French, the rest English (the example, 1, among them).
    let bilingual = |url: &str| match site(url, 6) {
        FetchResult::Response(mut r) => {
            let lang = if url.ends_with("/item/2") || url.ends_with("/item/4") {
                "fr"
            } else {
                "en"
            };
            let body = String::from_utf8_lossy(&r.body).replacen(
                "<html>",
                &format!("<html lang=\"{lang}\">"),
                1,
            );
            r.body = body.into_bytes();
            FetchResult::Response(r)
        }
        failed => failed,
    };
    let mut p = learn_on(&bilingual, "http://mem.test/item/1");
    p.corrections.unlike_languages = vec!["fr".into()];
    let example = || example_of(&bilingual, "http://mem.test/item/1");
    let crawl = |p: &Pattern| {
        let c = Crawler::new(p.clone(), CrawlConfig::default(), Some(example())).expect("crawler");
        let (pages, c) = target_pages(c, &bilingual);
        let mut urls: Vec<String> = pages.into_iter().map(|t| t.url).collect();
        urls.sort_unstable();
        (urls, c.progress())
    };
    let item = |i: usize| format!("http://mem.test/item/{i}");
    // Every item verified: the URL regex alone would take the French ones.
    p.similarity.threshold = 0.0;
    p.known_targets.clear();
    let (urls, progress) = crawl(&p);
    assert_eq!(urls, [1, 3, 5, 6].map(item));
    assert_eq!(progress.rejected, 2);
    // A page judged like the example stands over its language.
    p.corrections.like = vec![item(4)];
    assert_eq!(crawl(&p).0, [1, 3, 4, 5, 6].map(item));
    // The example is like itself whatever its language.
    p.corrections.like.clear();
    p.corrections.unlike_languages = vec!["en".into()];
    assert_eq!(crawl(&p).0, [1, 2, 4].map(item));
    // No verdict: all six; a target learning left out for its language is refused by URL.
    p.corrections.unlike_languages.clear();
    assert_eq!(crawl(&p).0.len(), 6);
    p.unlike_by_language = vec![item(6)];
    assert_eq!(crawl(&p).0, [1, 2, 3, 4, 5].map(item));
}

/// A page whose response says its language (`Content-Language`) and whose HTML does not:
/// a verifying crawl refuses it when that language is judged unlike, and exports it.
#[test]
fn a_crawl_reads_the_language_a_response_declares() {
    let by_header = |url: &str| match site(url, 6) {
        FetchResult::Response(mut r) => {
            let lang = if url.ends_with("/item/2") { "fr" } else { "en" };
            r.headers.push(("Content-Language".into(), lang.into()));
            FetchResult::Response(r)
        }
        failed => failed,
    };
    let mut p = learn_on(&by_header, "http://mem.test/item/1");
    p.similarity.threshold = 0.0;
    let example = example_of(&by_header, "http://mem.test/item/1");
    let c =
        Crawler::new(p.clone(), CrawlConfig::default(), Some(example.clone())).expect("crawler");
    let (pages, _) = target_pages(c, &by_header);
    assert_eq!(pages.len(), 6);
    assert!(
        pages
            .iter()
            .all(|t| t.lang == if t.url.ends_with("/2") { "fr" } else { "en" })
    );
    p.corrections.unlike_languages = vec!["fr".into()];
    let c = Crawler::new(p, CrawlConfig::default(), Some(example)).expect("crawler");
    let (pages, c) = target_pages(c, &by_header);
    assert_eq!(pages.len(), 5);
    assert_eq!(c.progress().rejected, 1);
}

/// A directory the user judged unlike the example's: the crawl refuses the pages in it by
/// their URL, verifying or not, and the targets learning left out for it; the example is
/// like itself, a page judged like the example stands.
#[test]
fn a_crawl_refuses_the_directories_judged_unlike() {
    let mut p = learn(6);
    let item = |i: usize| format!("http://mem.test/item/{i}");
    let fetched = std::cell::Cell::new(0);
    let crawl = |p: &Pattern, verify: bool| {
        let example = verify.then(|| example_of(&|u: &str| site(u, 6), &item(1)));
        let c = Crawler::new(p.clone(), CrawlConfig::default(), example).expect("crawler");
        let (mut urls, c) = run(c, 6, None);
        urls.sort_unstable();
        fetched.set(c.progress().fetched);
        (urls, c.progress().rejected)
    };
    assert_eq!(crawl(&p, false).0.len(), 6);
    let all = fetched.get();
    p.corrections.unlike_directories = vec!["http://mem.test/item/".into()];
    for verify in [false, true] {
        assert_eq!(crawl(&p, verify), (vec![item(1)], 5), "verify {verify}");
        // Refused by their URL: not fetched.
        assert_eq!(fetched.get(), all - 5, "verify {verify}");
    }
    p.corrections.like = vec![item(4)];
    assert_eq!(crawl(&p, false).0, [1, 4].map(item));
    // Another directory: nothing refused.
    p.corrections = pattern::Corrections::default();
    p.corrections.unlike_directories = vec!["http://mem.test/".into()];
    assert_eq!(crawl(&p, true), ((1..=6).map(item).collect(), 0));
    // A target learning left out for its directory is refused by URL.
    p.corrections = pattern::Corrections::default();
    p.unlike_by_directory = vec![item(6)];
    assert_eq!(crawl(&p, false).0, [1, 2, 3, 4, 5].map(item));
}

/// A crawl collects a page served under several URLs that declare one canonical URL once,
/// verifying or not, however the copies' content differs; without the declaration each
/// copy is collected.
#[test]
fn a_crawl_collects_the_copies_of_a_canonical_page_once() {
    use crate::mapper::tests::shop_with_canonicals;
    let declared = |i: u32| Some(format!("/item/{i}.html"));
    let site = |u: &str| shop_with_canonicals(u, &declared);
    let example = "http://shop.test/item/1.html?from=a";
    let p = learn_from(&site, "http://shop.test/", example);
    for verify in [false, true] {
        let c = Crawler::new(
            p.clone(),
            CrawlConfig::default(),
            verify.then(|| example_of(&site, example)),
        )
        .expect("crawler");
        let (targets, c) = run_on(c, &site, None);
        let mut items: Vec<&str> = targets
            .iter()
            .map(|t| t.split('?').next().unwrap_or(""))
            .collect();
        items.sort_unstable();
        let expected: Vec<String> = (1..=7)
            .map(|i| format!("http://shop.test/item/{i}.html"))
            .collect();
        assert_eq!(items, expected, "verify {verify}: {targets:?}");
        assert_eq!(c.state.aliases.len(), 3, "verify {verify}");
        assert_eq!(c.coverage().missed, Vec::<String>::new());
    }
    // The same site without the declarations: the copies differ, each one is collected.
    let plain = |u: &str| shop_with_canonicals(u, &|_| None);
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    assert_eq!(run_on(c, &plain, None).0.len(), 10);
}

/// mem.test's ten listed items, and a robots.txt (disallowing item 25) naming sitemaps that
/// list 27: an index (which also lists itself, a missing sitemap and one on a host
/// robots.txt does not name) of a gzip-compressed XML sitemap and a text one, and an index
/// on another host (a CDN's, `elsewhere.test`) of a text sitemap there listing items 26
/// and 27; elsewhere.test's own robots.txt names a sitemap listing item 28. It also names
/// three sitemaps never read: one under a path it disallows, one on a host that never
/// answers (`closed.test`: in a browser, a host the extension has no access to) and one
/// on a host whose robots.txt answers 503 (`busy.test`).
fn site_with_sitemaps(url: &str) -> FetchResult {
    if url.starts_with("http://closed.test/") {
        return FetchResult::Failed("Failed to fetch".into());
    }
    if url.starts_with("http://busy.test/") {
        return FetchResult::Response(FetchResponse {
            status: 503,
            ..FetchResponse::default()
        });
    }
    if let Some(path) = url.strip_prefix("http://elsewhere.test") {
        let text = |body: &str| {
            FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), "text/plain".into())],
                body: body.as_bytes().to_vec(),
                truncated: false,
            })
        };
        return match path {
            "/robots.txt" => text("Sitemap: http://elsewhere.test/theirs.txt\n"),
            "/theirs.txt" => text("http://mem.test/item/28\n"),
            "/s.xml" => text(
                "<sitemapindex><sitemap><loc>http://elsewhere.test/part.txt</loc></sitemap>\
                 <sitemap><loc>http://third.test/x.xml</loc></sitemap></sitemapindex>",
            ),
            "/part.txt" => text(
                "http://mem.test/item/26\nhttp://mem.test/item/27\nhttp://elsewhere.test/item/1\n",
            ),
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        };
    }
    let path = url.trim_start_matches("http://mem.test");
    let ok = |content_type: &str, body: Vec<u8>| {
        FetchResult::Response(FetchResponse {
            status: 200,
            final_url: String::new(),
            headers: vec![("content-type".into(), content_type.into())],
            body,
            truncated: false,
        })
    };
    match path {
        "/robots.txt" => ok(
            "text/plain",
            b"User-agent: *\nDisallow: /item/25\nDisallow: /private/\nSitemap: http://mem.test/sitemaps.xml\nSitemap: http://elsewhere.test/s.xml\n\
              Sitemap: http://mem.test/private/s.xml\nSitemap: http://closed.test/s.xml\nSitemap: http://busy.test/s.xml\n".to_vec(),
        ),
        "/sitemaps.xml" => ok(
            "application/xml",
            b"<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\
              <sitemap><loc>http://mem.test/items.xml.gz</loc></sitemap>\
              <sitemap><loc>http://mem.test/more.txt</loc></sitemap>\
              <sitemap><loc>http://mem.test/sitemaps.xml</loc></sitemap>\
              <sitemap><loc>http://mem.test/gone.xml</loc></sitemap>\
              <sitemap><loc>http://other.test/s.xml</loc></sitemap></sitemapindex>"
                .to_vec(),
        ),
        "/items.xml.gz" => {
            let locs: String = (1..=20)
                .map(|i| format!("<url><loc>http://mem.test/item/{i}</loc></url>"))
                .chain(["<url><loc>http://mem.test/about</loc></url>".to_string()])
                .chain(["<url><loc>http://other.test/item/1</loc></url>".to_string()])
                .collect();
            let xml = format!("<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{locs}</urlset>");
            let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
            gz.extend(miniz_oxide::deflate::compress_to_vec(xml.as_bytes(), 6));
            gz.extend_from_slice(&[0; 8]);
            ok("application/gzip", gz)
        }
        "/more.txt" => ok(
            "text/plain",
            (18..=25)
                .map(|i| format!("http://mem.test/item/{i}\n"))
                .collect::<String>()
                .into_bytes(),
        ),
        _ => site(url, 10),
    }
}

/// A crawl reads the sitemaps robots.txt names, as links of the start page: the items no
/// listing links are collected (new since learning), each once; robots.txt still rules
/// what is fetched; sitemaps on a host robots.txt names are read (the protocol's
/// cross-submission), those on other hosts or missing are passed over. Without them
/// (`read_sitemaps` off), the listings' ten.
#[test]
fn a_crawl_reads_the_sitemaps_robots_txt_names() {
    let p = learn(10);
    let crawl_stopped = |read_sitemaps: bool, stop_after: Option<usize>| {
        let config = CrawlConfig {
            read_sitemaps,
            ..CrawlConfig::default()
        };
        let c = Crawler::new(p.clone(), config, None).expect("crawler");
        let (mut urls, c) = run_on(c, &site_with_sitemaps, stop_after);
        urls.sort_by_key(|u| u.rsplit('/').next().and_then(|n| n.parse::<u32>().ok()));
        (urls, c)
    };
    let crawl = |read_sitemaps: bool| crawl_stopped(read_sitemaps, None);
    let (urls, c) = crawl(true);
    // Item 25 is listed, but robots.txt disallows it; 26 and 27 are listed on the other
    // host robots.txt names; 28 only by that host's own robots.txt, which is not the site's.
    let items: Vec<String> = (1..=24)
        .chain(26..=27)
        .map(|i| format!("http://mem.test/item/{i}"))
        .collect();
    assert_eq!(urls, items);
    let progress = c.progress();
    assert_eq!(
        progress.sitemaps, 5,
        "the indexes, the gzipped and the text sitemaps"
    );
    // Items 11 to 27 at least; those of 1 to 10 not yet queued from a listing too.
    assert!((17..=27).contains(&progress.sitemap_links), "{progress:?}");
    assert_eq!(c.coverage().new.len(), 16);
    assert_eq!(c.coverage().missed, Vec::<String>::new());
    // Snapshotted and restored while the sitemaps are read: the same pages.
    for stop_after in [1, 3, 12] {
        assert_eq!(
            crawl_stopped(true, Some(stop_after)).0,
            items,
            "{stop_after}"
        );
    }
    // Asked as sitemaps (a driver keeps their bodies whatever their media type).
    let mut c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (mut asked, mut now, mut not_read) = (Vec::new(), 0, Vec::new());
    for _ in 0..1_000 {
        match c.poll(now) {
            Poll::Fetch(r) => {
                asked.push((r.url.clone(), r.kind));
                c.handle(r.id, site_with_sitemaps(&r.url), now);
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Done => break,
            Poll::Busy => panic!("synchronous driver"),
        }
        not_read.extend(c.drain_events().into_iter().filter_map(|e| match e {
            Event::SitemapSkipped(n) => Some((n.url, n.reason, n.unreachable)),
            _ => None,
        }));
    }
    // Every sitemap not read is said so, with why; only the host that answered nothing is
    // marked unreachable (the extension offers to ask for access to it).
    not_read.sort();
    let not = |url: &str, why: &str, unreachable: bool| {
        (
            url.to_string(),
            format!("sitemap not read: {why}"),
            unreachable,
        )
    };
    assert_eq!(
        not_read,
        vec![
            not(
                "http://busy.test/s.xml",
                "its host's robots.txt answered HTTP 503, which disallows everything there",
                false
            ),
            not(
                "http://closed.test/s.xml",
                "its host's robots.txt could not be fetched (Failed to fetch), so nothing \
                 there is asked (in the extension: no access to that host?)",
                true
            ),
            not("http://mem.test/gone.xml", "HTTP 404", false),
            not(
                "http://mem.test/private/s.xml",
                "its host's robots.txt disallows it",
                false
            ),
            not(
                "http://other.test/s.xml",
                "on another host, where the site's robots.txt names none",
                false
            ),
            not(
                "http://third.test/x.xml",
                "on another host, where the site's robots.txt names none",
                false
            ),
        ]
    );
    let kind = |u: &str| asked.iter().find(|(a, _)| a == u).map(|(_, k)| *k);
    assert_eq!(
        kind("http://mem.test/sitemaps.xml"),
        Some(RequestKind::Sitemap)
    );
    assert_eq!(
        kind("http://mem.test/items.xml.gz"),
        Some(RequestKind::Sitemap)
    );
    assert_eq!(kind("http://mem.test/item/12"), Some(RequestKind::Page));
    let (urls, c) = crawl(false);
    assert_eq!(urls, items[..10]);
    assert_eq!(c.progress().sitemaps, 0);
    // Under a page budget the sitemaps' URLs are not queued past it.
    let config = CrawlConfig {
        max_pages: 8,
        ..CrawlConfig::default()
    };
    let c = Crawler::new(p.clone(), config, None).expect("crawler");
    let (urls, c) = run_on(c, &site_with_sitemaps, None);
    assert!(items.starts_with(&urls), "{urls:?}");
    // The budget counts requests: pages and the sitemaps asked.
    assert_eq!(c.progress().requests(), 8);
    // The two indexes were read; the sitemaps of pages came when the budget was queued
    // already.
    assert_eq!((c.progress().sitemaps, c.progress().sitemap_links), (2, 0));
}

/// Pages answered 429 ("too many requests") are asked again after the wait: the crawl
/// collects what it collects from a site that never says so, and counts the retries.
#[test]
fn pages_answered_too_many_requests_are_asked_again() {
    let p = learn(10);
    let plain = run_on(
        Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler"),
        &|u: &str| site(u, 10),
        None,
    );
    let asked = std::cell::RefCell::new(HashMap::<String, usize>::new());
    let busy = |url: &str| {
        let mut asked = asked.borrow_mut();
        let n = asked.entry(url.to_string()).or_default();
        *n += 1;
        if url.contains("/item/") && *n <= 2 {
            return FetchResult::Response(FetchResponse {
                status: 429,
                ..FetchResponse::default()
            });
        }
        site(url, 10)
    };
    let (mut urls, c) = run_on(
        Crawler::new(p, CrawlConfig::default(), None).expect("crawler"),
        &busy,
        Some(7),
    );
    let mut want = plain.0.clone();
    urls.sort();
    want.sort();
    assert_eq!(urls, want, "snapshotted and restored on the way too");
    assert_eq!(urls.len(), 10);
    assert_eq!(c.progress().retried, 20, "each item twice");
    assert_eq!(c.progress().errors, 0);
    assert!(
        asked
            .borrow()
            .iter()
            .all(|(u, &n)| n == if u.contains("/item/") { 3 } else { 1 })
    );
}

#[test]
fn verification_honours_the_users_verdicts() {
    let mut p = learn(6);
    p.corrections.like = vec![
        "http://mem.test/item/2".into(),
        "http://mem.test/item/5".into(),
    ];
    let unlike_example = ExamplePage {
        url: "http://mem.test/about".into(),
        body: b"<html><body><form><input name=q></form><ol><li>x</li></ol></body></html>".to_vec(),
        content_type: None,
    };
    let c = Crawler::new(p.clone(), CrawlConfig::default(), Some(unlike_example)).expect("crawler");
    let (mut targets, c) = run(c, 6, None);
    targets.sort();
    assert_eq!(
        targets, p.corrections.like,
        "liked pages pass whatever their score"
    );
    assert_eq!(c.progress().rejected, 4);
    // A page marked unlike is refused even when it looks like the example.
    p.corrections = Default::default();
    p.corrections.unlike = vec!["http://mem.test/item/3".into()];
    let like_example = ExamplePage {
        url: "http://mem.test/item/1".into(),
        body: match site("http://mem.test/item/1", 6) {
            FetchResult::Response(r) => r.body,
            FetchResult::Failed(_) => Vec::new(),
        },
        content_type: None,
    };
    let c = Crawler::new(p, CrawlConfig::default(), Some(like_example)).expect("crawler");
    let (targets, c) = run(c, 6, None);
    assert_eq!(targets.len(), 5);
    assert!(!targets.contains(&"http://mem.test/item/3".to_string()));
    assert_eq!(c.progress().rejected, 1);
}

#[path = "tests_sitemaps.rs"]
mod sitemaps;

#[path = "tests_replica.rs"]
mod replica_links;

#[path = "tests_dust.rs"]
mod dust_rules;
