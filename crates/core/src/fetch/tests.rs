//! The fetch contract's and the frontier's tests (a sibling file: they outgrew the module).
use super::*;

#[test]
fn an_origin_is_read_without_parsing_only_where_parsing_keeps_it() {
    for (url, fast) in [
        (
            "http://127.0.0.1:8931/a.html",
            Some("http://127.0.0.1:8931"),
        ),
        (
            "https://www.example.org?q=1",
            Some("https://www.example.org"),
        ),
        (
            "http://docs.example-1.com#top",
            Some("http://docs.example-1.com"),
        ),
        ("http://example.com", Some("http://example.com")),
        // What parsing changes or reads otherwise is left to the parser.
        ("http://Example.com/", None),
        ("http://example.com:80/", None),
        ("https://example.com:443/", None),
        ("http://example.com:080/", None),
        ("http://user:pw@example.com/", None),
        ("http://0x7f.0.0.1/", None),
        ("http://127.1/", None),
        ("http://010.0.0.1/", None),
        ("http://2130706433/", None),
        ("http://example.123/", None),
        ("http://xn--nxasmq6b.com/", None),
        ("http://bücher.de/", None),
        ("http://a..b/", None),
        ("http://ex\tample.com/", None),
        // A backslash ends the host as a slash does (special schemes).
        ("http://ex\\ample.com/", Some("http://ex")),
        (" http://example.com/", None),
        ("ftp://example.com/", None),
        ("http://[::1]:8080/", None),
    ] {
        assert_eq!(crate::canon::written_origin(url), fast, "{url:?}");
        assert_eq!(host_of(url), parsed_origin(url), "{url:?}");
    }
    let o = "http://h.org";
    assert!(has_origin("http://h.org", o) && has_origin("http://h.org/a", o));
    assert!(has_origin("http://h.org?q", o) && has_origin("http://h.org#f", o));
    for other in [
        "http://h.org:81/",
        "http://h.org.evil/",
        "http://h.orgx/",
        "https://h.org/",
    ] {
        assert!(!has_origin(other, o), "{other}");
    }
}

proptest::proptest! {
    #[test]
    fn the_origin_read_without_parsing_is_the_parsed_one(
        scheme in "https?|HTTP|ftp",
        user in proptest::option::of("[a-z]{1,3}@"),
        host in "[a-zA-Z0-9.\\-\t]{0,12}|[0-9]{1,3}(\\.[0-9]{1,4}){0,4}|(0x)?[0-9a-f]{1,8}",
        port in proptest::option::of(":[0-9]{0,6}"),
        rest in "[/?#]?[a-z/.]{0,6}",
    ) {
        let url = format!(
            "{scheme}://{}{host}{}{rest}",
            user.unwrap_or_default(),
            port.unwrap_or_default()
        );
        proptest::prop_assert_eq!(host_of(&url), parsed_origin(&url), "{:?}", url);
        if let Some(fast) = crate::canon::written_origin(&url) {
            proptest::prop_assert_eq!(Some(fast.to_string()), parsed_origin(&url));
        }
    }
}

fn ok(status: u16, body: &str) -> FetchResult {
    FetchResult::Response(FetchResponse {
        status,
        final_url: String::new(),
        headers: vec![],
        body: body.as_bytes().to_vec(),
        truncated: false,
    })
}

fn fetch<T: Clone>(f: &mut Frontier<T>, now: u64) -> FetchRequest {
    match f.next(now) {
        Next::Fetch(r) => r,
        _ => panic!("expected a fetch"),
    }
}

/// The sitemaps a host's robots.txt names are handed to the machine, relative ones read
/// against the robots.txt URL.
#[test]
fn robots_txt_hands_out_its_sitemaps() {
    let mut f = Frontier::new(Politeness::default());
    assert!(f.push("http://h:8080/a".into(), 1));
    let r = fetch(&mut f, 0);
    assert_eq!(r.url, "http://h:8080/robots.txt");
    let robots = "User-agent: *\nSitemap: http://h:8080/s.xml.gz\nsitemap: /maps/index.xml # ours\nSitemap: https://cdn.test/s.txt\n";
    assert_eq!(
        f.deliver(r.id, ok(200, robots)),
        Delivered::Robots {
            origin: "http://h:8080".into(),
            sitemaps: vec![
                "http://h:8080/s.xml.gz".into(),
                "http://h:8080/maps/index.xml".into(),
                "https://cdn.test/s.txt".into(),
            ]
        }
    );
}

/// A host that answers 429 or 503 is left alone for its `Retry-After` (else 2, 4, 8 s) and
/// slowed down, the URL asked again first, at most [`MAX_RETRIES`] times; then the answer
/// goes to the machine. The waits and counts survive a snapshot.
#[test]
fn a_host_that_says_wait_is_waited_for_and_asked_again() {
    let mut f = Frontier::new(Politeness::unthrottled(1));
    f.politeness.obey_robots = false;
    assert!(f.push("http://h/a".into(), 1));
    assert!(f.push("http://h/b".into(), 2));
    let wait = |status: u16, retry_after: Option<&str>| {
        FetchResult::Response(FetchResponse {
            status,
            headers: retry_after
                .map(|v| vec![("Retry-After".to_string(), v.to_string())])
                .unwrap_or_default(),
            ..FetchResponse::default()
        })
    };
    let r = fetch(&mut f, 0);
    assert_eq!(r.url, "http://h/a");
    let Delivered::Retry(retry) = f.deliver(r.id, wait(429, Some(" 5 "))) else {
        panic!("asked again");
    };
    assert_eq!(
        retry,
        Retry {
            url: "http://h/a".into(),
            status: 429,
            wait_ms: 5000,
            delay_ms: 1000,
            attempt: 1
        }
    );
    let mut f: Frontier<i32> =
        serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
    assert_eq!(
        f.next(10),
        Next::WaitUntil(5010),
        "the wait survives a snapshot"
    );
    // Restored by a driver on another clock (a worker started again): the rest of the
    // wait, 5 s at 10 ms, is waited from its first step.
    let mut moved: Frontier<i32> =
        serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
    moved.requeue_in_flight();
    assert_eq!(moved.next(1_000_000), Next::WaitUntil(1_005_000));
    assert!(matches!(moved.next(1_005_000), Next::Fetch(r) if r.url == "http://h/a"));
    let mut now = 5010;
    for (attempt, wait_ms) in [(2, 4000), (3, 8000)] {
        let r = fetch(&mut f, now);
        assert_eq!(r.url, "http://h/a", "asked again before b");
        let Delivered::Retry(retry) = f.deliver(r.id, wait(503, None)) else {
            panic!("asked again");
        };
        assert_eq!((retry.attempt, retry.wait_ms), (attempt, wait_ms));
        assert_eq!(f.next(now), Next::WaitUntil(now + wait_ms));
        now += wait_ms;
    }
    // The fourth answer is the page's: the machine records the 503.
    let r = fetch(&mut f, now);
    assert!(
        matches!(f.deliver(r.id, wait(503, None)), Delivered::Page(q, _) if q.url == "http://h/a")
    );
    // The host stays slowed down: b waits for the raised delay (4 s after 1, 2, 4 s).
    assert_eq!(f.next(now + 1), Next::WaitUntil(now + 4000));
    let r = fetch(&mut f, now + 4000);
    assert_eq!(r.url, "http://h/b");
    // A 500 of a page is its own answer (not a "come back later").
    assert!(matches!(
        f.deliver(r.id, wait(500, None)),
        Delivered::Page(..)
    ));
}

/// A `Retry-After` date becomes the seconds until then (a driver's job: the machines have
/// no wall clock); numbers and what is not an HTTP date stay as they are.
#[test]
fn a_retry_after_date_is_read_as_the_seconds_until_then() {
    assert_eq!(
        http_date_unix_s("Sun, 06 Nov 1994 08:49:37 GMT"),
        Some(784_111_777)
    );
    assert_eq!(http_date_unix_s("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(
        http_date_unix_s("Sun, 29 Nov 2026 13:00:05 GMT"),
        Some(1_795_957_205)
    );
    assert_eq!(http_date_unix_s("Sunday, 06-Nov-94 08:49:37 GMT"), None);
    assert_eq!(http_date_unix_s("Sun, 06 Nov 1994 08:49:37 CET"), None);
    assert_eq!(http_date_unix_s("Sun, 32 Nov 1994 08:49:37 GMT"), None);
    let now = 1_795_957_200_500; // 13:00:00.5
    let mut headers = vec![
        (
            "Retry-After".to_string(),
            "Sun, 29 Nov 2026 13:00:05 GMT".to_string(),
        ),
        ("retry-after".to_string(), "120".to_string()),
        (
            "RETRY-AFTER".to_string(),
            "Thu, 01 Jan 1970 00:00:00 GMT".to_string(),
        ),
        ("retry-after".to_string(), "soon".to_string()),
        (
            "date".to_string(),
            "Sun, 29 Nov 2026 13:00:05 GMT".to_string(),
        ),
    ];
    retry_after_as_seconds(&mut headers, now);
    let values: Vec<&str> = headers.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(
        values,
        ["5", "120", "0", "soon", "Sun, 29 Nov 2026 13:00:05 GMT"]
    );
}

/// robots.txt decides the whole host, so a 429 or 5xx of it is asked again after the wait
/// (not taken at once as "disallow everything"); a later 200 gives the host its rules.
#[test]
fn a_robots_txt_answering_later_is_asked_again() {
    let mut f = Frontier::new(Politeness::unthrottled(2));
    assert!(f.push("http://h/a".into(), 1));
    let r = fetch(&mut f, 0);
    assert_eq!(r.url, "http://h/robots.txt");
    assert!(matches!(
        f.deliver(r.id, ok(500, "")),
        Delivered::Retry(Retry {
            attempt: 1,
            wait_ms: 2000,
            ..
        })
    ));
    assert_eq!(f.next(0), Next::WaitUntil(2000));
    let r = fetch(&mut f, 2000);
    assert_eq!(r.url, "http://h/robots.txt");
    assert!(matches!(
        f.deliver(r.id, ok(200, "User-agent: *\nDisallow: /b\n")),
        Delivered::Robots { .. }
    ));
    assert_eq!(f.robots_unreadable("http://h/a"), None);
    assert!(f.robots_allows("http://h/a") && !f.robots_allows("http://h/b"));
    assert_eq!(fetch(&mut f, 3000).url, "http://h/a");
}

/// A robots.txt that could not be read disallows its host (RFC 9309), and the frontier
/// says why: no answer, or a server error (once asked again [`MAX_RETRIES`] times); a 4xx
/// is no robots.txt (all allowed). The reason survives a snapshot.
#[test]
fn an_unreadable_robots_txt_says_why() {
    let mut f = Frontier::new(Politeness::unthrottled(4));
    f.politeness.obey_robots = true;
    for host in ["http://a", "http://b", "http://c", "http://d"] {
        assert!(f.push(format!("{host}/x"), 1));
    }
    let asked: Vec<FetchRequest> = (0..4).map(|_| fetch(&mut f, 0)).collect();
    for (r, (answer, host)) in asked.into_iter().zip([
        (FetchResult::Failed("Failed to fetch".into()), "http://a"),
        (ok(503, ""), "http://b"),
        (ok(404, ""), "http://c"),
        (ok(429, ""), "http://d"),
    ]) {
        assert_eq!(r.url, format!("{host}/robots.txt"));
        f.deliver(r.id, answer);
    }
    // b's 503 and d's 429 come back each time they are asked again: after the last, they
    // are unreadable (a 429 is no missing robots.txt, which would allow everything).
    let mut now = 0;
    let mut again = Vec::new();
    while again.len() < 2 * usize::from(MAX_RETRIES) {
        match f.next(now) {
            Next::Fetch(r) if r.kind == RequestKind::Robots => {
                let status = if r.url.starts_with("http://b/") {
                    503
                } else {
                    429
                };
                f.deliver(r.id, ok(status, ""));
                again.push(r.url);
            }
            Next::Fetch(r) => {
                f.deliver(r.id, ok(200, ""));
            }
            Next::Disallowed(_) => {}
            Next::WaitUntil(t) => now = t,
            other => panic!("robots.txt asked again: {other:?}"),
        }
    }
    again.sort();
    assert_eq!(
        again.iter().filter(|u| u.starts_with("http://b/")).count(),
        3
    );
    let f: Frontier<i32> =
        serde_json::from_str(&serde_json::to_string(&f).expect("json")).expect("back");
    assert_eq!(
        f.robots_unreadable("http://a/x"),
        Some(&Unreadable::Unreachable {
            error: "Failed to fetch".into()
        })
    );
    assert_eq!(
        f.robots_unreadable("http://b/y"),
        Some(&Unreadable::ServerError { status: 503 })
    );
    assert_eq!(
        f.robots_unreadable("http://d/y"),
        Some(&Unreadable::ServerError { status: 429 })
    );
    assert_eq!(f.robots_unreadable("http://c/x"), None);
    assert!(!f.robots_allows("http://a/x") && !f.robots_allows("http://b/x"));
    assert!(!f.robots_allows("http://d/x"));
    assert!(f.robots_allows("http://c/x"));
}

#[test]
fn robots_first_then_pages_in_order_with_delay() {
    let mut f = Frontier::new(Politeness {
        delay_ms: 100,
        max_in_flight: 4,
        max_in_flight_per_host: 4,
        ..Politeness::default()
    });
    assert!(f.push("http://h/a".into(), 1));
    assert!(f.push("http://h/b".into(), 2));
    assert!(
        !f.push("http://h/a".into(), 3),
        "seen URLs are not queued twice"
    );
    let r = fetch(&mut f, 0);
    assert_eq!(r.kind, RequestKind::Robots);
    assert_eq!(r.url, "http://h/robots.txt");
    assert_eq!(f.next(0), Next::Busy, "pages wait for robots.txt");
    assert_eq!(
        f.deliver(r.id, ok(404, "")),
        Delivered::Robots {
            origin: "http://h".into(),
            sitemaps: vec![]
        }
    );
    assert_eq!(f.next(50), Next::WaitUntil(100));
    let a = fetch(&mut f, 100);
    assert_eq!(a.url, "http://h/a");
    assert_eq!(f.next(150), Next::WaitUntil(200));
    let b = fetch(&mut f, 200);
    assert_eq!(b.url, "http://h/b");
    assert!(matches!(f.deliver(b.id, ok(200, "")), Delivered::Page(q, _) if q.item == 2));
    assert_eq!(f.next(300), Next::Busy);
    assert!(matches!(f.deliver(a.id, ok(200, "")), Delivered::Page(..)));
    assert_eq!(f.next(300), Next::Empty);
    assert_eq!(f.deliver(a.id, ok(200, "")), Delivered::Unknown);
}

/// A frontier restored by another driver (a service worker started again, its clock
/// elsewhere) waits what was left of each host's delay rather than asking at once; one
/// saved before the clock was kept waits nothing it cannot read.
#[test]
fn a_restored_frontier_waits_what_was_left_of_the_delay() {
    let mut f = Frontier::new(Politeness {
        delay_ms: 1000,
        obey_robots: false,
        ..Politeness::default()
    });
    f.push("http://h/a".into(), ());
    f.push("http://h/b".into(), ());
    let a = fetch(&mut f, 50_000);
    assert_eq!(a.url, "http://h/a");
    assert!(matches!(f.deliver(a.id, ok(200, "")), Delivered::Page(..)));
    assert_eq!(f.next(50_400), Next::WaitUntil(51_000));
    let saved = serde_json::to_value(&f).expect("json");
    let mut moved: Frontier<()> = serde_json::from_value(saved.clone()).expect("back");
    moved.requeue_in_flight();
    assert_eq!(moved.next(7), Next::WaitUntil(607), "600 ms were left");
    assert!(matches!(moved.next(607), Next::Fetch(r) if r.url == "http://h/b"));
    // In flight when saved: asked again, after the delay its start began.
    let b = fetch(&mut f, 51_000);
    let mut moved: Frontier<()> =
        serde_json::from_value(serde_json::to_value(&f).expect("json")).expect("back");
    moved.requeue_in_flight();
    assert_eq!(moved.next(0), Next::WaitUntil(1000));
    assert!(matches!(moved.next(1000), Next::Fetch(r) if r.url == b.url));
    // A snapshot without the clock (made by an older version) starts at once.
    let mut old = saved;
    old.as_object_mut().expect("object").remove("now_ms");
    let mut moved: Frontier<()> = serde_json::from_value(old).expect("back");
    moved.requeue_in_flight();
    assert!(matches!(moved.next(7), Next::Fetch(r) if r.url == "http://h/b"));
}

#[test]
fn disallowed_urls_are_handed_back_and_crawl_delay_raises_delay() {
    let mut f = Frontier::new(Politeness {
        delay_ms: 0,
        ..Politeness::default()
    });
    f.push("http://h/private/x".into(), ());
    f.push("http://h/ok".into(), ());
    let r = fetch(&mut f, 0);
    f.deliver(
        r.id,
        ok(200, "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"),
    );
    assert!(matches!(f.next(0), Next::Disallowed(q) if q.url == "http://h/private/x"));
    // The robots request itself started the host's clock with the old delay (0).
    let p = fetch(&mut f, 0);
    assert_eq!(p.url, "http://h/ok");
    f.push("http://h/next".into(), ());
    assert_eq!(f.next(1), Next::WaitUntil(2000));
}

#[test]
fn server_error_on_robots_disallows_everything() {
    let mut f = Frontier::new(Politeness::default());
    f.push("http://h/a".into(), ());
    let r = fetch(&mut f, 0);
    f.deliver(r.id, FetchResult::Failed("connection refused".into()));
    assert!(matches!(f.next(1000), Next::Disallowed(_)));
    assert_eq!(f.next(1000), Next::Empty);
}

#[test]
fn urls_queued_first_go_before_the_others_breadth_first_among_themselves() {
    let mut f = unlimited(1, 1);
    let mut order = Vec::new();
    let take = |f: &mut Frontier<u32>| {
        let r = fetch(f, 0);
        let url = r.url.clone();
        assert!(matches!(f.deliver(r.id, ok(200, "")), Delivered::Page(..)));
        url.trim_start_matches("http://h/").to_string()
    };
    f.push("http://h/a".into(), 1);
    f.push("http://h/b".into(), 2);
    assert!(f.push_first("http://h/x".into(), 3));
    assert!(f.push_first("http://h/y".into(), 4));
    assert!(
        !f.push_first("http://h/a".into(), 5),
        "seen URLs are not queued twice"
    );
    order.push(take(&mut f));
    f.push("http://h/c".into(), 6);
    // b moves ahead of c, behind y.
    assert_eq!(
        f.promote_ranked(named(&["http://h/b", "http://h/nowhere"]), |_| true),
        1
    );
    assert_eq!(
        f.promote_ranked(named(&["http://h/b"]), |_| true),
        0,
        "already ahead"
    );
    assert!(f.push_first("http://h/z".into(), 7));
    while f.queued() > 0 {
        order.push(take(&mut f));
    }
    assert_eq!(order, ["x", "y", "b", "z", "a", "c"]);
    // A request in flight when saved stays ahead of what was queued first.
    f.push("http://h/d".into(), 8);
    f.push_first("http://h/e".into(), 9);
    f.push_first("http://h/g".into(), 10);
    let e = fetch(&mut f, 0);
    f.requeue_in_flight();
    assert_eq!(e.url, "http://h/e");
    f.push_first("http://h/k".into(), 11);
    let rest: Vec<String> = f.iter_queue().map(|q| q.url.clone()).collect();
    assert_eq!(
        rest,
        ["http://h/e", "http://h/g", "http://h/k", "http://h/d"]
    );
    let in_turn: Vec<&str> = f.iter_in_turn().map(|q| q.url.as_str()).collect();
    assert_eq!(in_turn, ["http://h/d"]);
    assert_eq!(f.clear_queue(), 4);
    f.push("http://h/m".into(), 12);
    assert_eq!(
        f.iter_in_turn().count(),
        1,
        "clearing forgets what was first"
    );
}

/// URLs put off wait behind everything, also what is queued after them, until the queue
/// runs dry and they are resumed; they survive a snapshot.
#[test]
fn urls_put_off_are_asked_after_everything_else_once_resumed() {
    let mut f = unlimited(1, 1);
    f.push("http://h/fn/a".into(), 1);
    f.push("http://h/b".into(), 2);
    f.push("http://h/fn/c".into(), 3);
    f.push_first("http://h/fn/first".into(), 4);
    assert_eq!(
        f.defer(|u| u.contains("/fn/")),
        2,
        "those queued first stay"
    );
    assert!(f.push_later("http://h/fn/d".into(), 5));
    assert!(
        !f.push_later("http://h/b".into(), 6),
        "seen URLs are not queued twice"
    );
    f.push("http://h/e".into(), 7);
    assert_eq!(f.queued(), 6);
    let later: Vec<u32> = f.items().copied().collect();
    assert_eq!(later.len(), 6, "items() holds those put off: {later:?}");
    assert!(!f.resume_later(), "others still wait");
    // A snapshot keeps them.
    let json = serde_json::to_string(&f).expect("serialise");
    let mut f: Frontier<u32> = serde_json::from_str(&json).expect("deserialise");
    let mut order = Vec::new();
    loop {
        match f.next(0) {
            Next::Fetch(r) => {
                assert!(matches!(f.deliver(r.id, ok(200, "")), Delivered::Page(..)));
                order.push(r.url.trim_start_matches("http://h/").to_string());
            }
            Next::Empty if f.resume_later() => {}
            Next::Empty => break,
            _ => panic!("one connection, nothing held"),
        }
    }
    assert_eq!(order, ["fn/first", "b", "e", "fn/a", "fn/c", "fn/d"]);
    assert_eq!(f.queued(), 0);
    f.push_later("http://h/x".into(), 8);
    assert_eq!(f.clear_queue(), 1, "clearing drops those put off too");
    assert!(!f.resume_later());
}

/// URLs put off come back: in their turn with `undefer`, first with `promote_ranked`.
#[test]
fn urls_put_off_can_be_taken_back_or_promoted() {
    let mut f = unlimited(1, 1);
    f.push("http://h/a".into(), 1);
    f.push_later("http://h/fn/x".into(), 2);
    f.push_later("http://h/fn/y".into(), 3);
    f.push_later("http://h/gn/z".into(), 4);
    f.push("http://h/b".into(), 5);
    assert_eq!(f.undefer(|u| u.contains("/fn/")), 2);
    assert_eq!(f.undefer(|u| u.contains("/fn/")), 0);
    let urls = |f: &Frontier<u32>| -> Vec<String> {
        f.iter_queue()
            .map(|q| q.url.trim_start_matches("http://h/").to_string())
            .collect()
    };
    assert_eq!(urls(&f), ["a", "b", "fn/x", "fn/y", "gn/z"]);
    assert_eq!(f.iter_put_off().count(), 1);
    let both = named(&["http://h/gn/z", "http://h/fn/y"]);
    assert_eq!(
        f.promote_ranked(&both, |q| !q.url.contains("/gn/")),
        1,
        "those put off only where put_off holds"
    );
    assert_eq!(f.promote_ranked(&both, |_| true), 1);
    assert_eq!(urls(&f), ["fn/y", "gn/z", "a", "b", "fn/x"]);
    assert_eq!(f.iter_put_off().count(), 0);
    assert_eq!(
        f.iter_in_turn().count(),
        3,
        "both moved ahead of those in turn"
    );
}

/// Rank 0 for the URLs of `urls`.
fn named(urls: &[&'static str]) -> impl Fn(&Queued<u32>) -> Option<u32> {
    let urls = urls.to_vec();
    move |q| urls.contains(&q.url.as_str()).then_some(0)
}

/// The promotion `promote_ranked` stands for, one rank at a time: the entries of the rank
/// in their turn move behind those queued first, then those put off behind them.
fn promote_rank_by_rank(
    f: &mut Frontier<u32>,
    ranks: &[Vec<u32>],
    put_off: impl Fn(&Queued<u32>) -> bool,
) {
    for items in ranks {
        let first = f.first.min(f.queue.len());
        let rest: Vec<_> = f.queue.drain(first..).collect();
        let (moved, stay): (Vec<_>, Vec<_>) =
            rest.into_iter().partition(|q| items.contains(&q.item));
        let (moved_later, later): (Vec<_>, Vec<_>) = mem::take(&mut f.later)
            .into_iter()
            .partition(|q| items.contains(&q.item) && put_off(q));
        f.later = later.into();
        f.first = first + moved.len() + moved_later.len();
        f.queue
            .extend(moved.into_iter().chain(moved_later).chain(stay));
    }
}

proptest::proptest! {
    /// One pass by rank moves the same entries to the same places as moving each rank in
    /// turn (an entry of several ranks by its first).
    #[test]
    fn promoting_by_rank_at_once_is_promoting_rank_by_rank(
        kinds in proptest::collection::vec(0u8..3, 0..40),
        ranks in proptest::collection::vec(proptest::collection::vec(0u32..40, 0..8), 0..5),
    ) {
        let mut a = unlimited(1, 1);
        for (i, kind) in kinds.iter().enumerate() {
            let url = format!("http://h/{}{i}", if i % 4 == 0 { "b/" } else { "" });
            match kind {
                0 => a.push(url, i as u32),
                1 => a.push_first(url, i as u32),
                _ => a.push_later(url, i as u32),
            };
        }
        let mut b = a.clone();
        let put_off = |q: &Queued<u32>| !q.url.contains("/b/");
        let rank_of = |q: &Queued<u32>| {
            ranks.iter().position(|r| r.contains(&q.item)).map(|r| r as u32)
        };
        let n = a.promote_ranked(rank_of, put_off);
        promote_rank_by_rank(&mut b, &ranks, put_off);
        let order = |f: &Frontier<u32>| -> (Vec<u32>, Vec<u32>, usize) {
            (
                f.queue.iter().map(|q| q.item).collect(),
                f.later.iter().map(|q| q.item).collect(),
                f.first,
            )
        };
        proptest::prop_assert_eq!(order(&a), order(&b));
        proptest::prop_assert_eq!(n + kinds.iter().filter(|&&k| k == 1).count(), a.first);
    }
}

/// A frontier without robots.txt or delay, with these connection limits.
fn unlimited<T: Clone>(max: usize, per_host: usize) -> Frontier<T> {
    Frontier::new(Politeness {
        delay_ms: 0,
        max_in_flight: max,
        max_in_flight_per_host: per_host,
        obey_robots: false,
        ..Politeness::default()
    })
}

/// [`unlimited`] with `max` connections, `n` URLs queued (`http://h/0` …).
fn queued(max: usize, n: i32) -> Frontier<i32> {
    let mut f = unlimited(max, max);
    for i in 0..n {
        f.push(format!("http://h/{i}"), i);
    }
    f
}

#[test]
fn limits_in_flight_and_requeues_on_restore() {
    let mut f = queued(2, 4);
    let a = fetch(&mut f, 0);
    let _b = fetch(&mut f, 0);
    assert_eq!(f.next(0), Next::Full, "two on the network at most");
    f.deliver(a.id, ok(200, ""));
    let json = serde_json::to_string(&f).expect("serialise");
    let mut g: Frontier<i32> = serde_json::from_str(&json).expect("deserialise");
    g.requeue_in_flight();
    let first = fetch(&mut g, 0);
    assert_eq!(
        first.url, "http://h/1",
        "the in-flight page comes first again"
    );
    assert_eq!(fetch(&mut g, 0).url, "http://h/2");
    assert_eq!(g.next(0), Next::Full, "two on the network at most");
    g.deliver(first.id, ok(200, ""));
    assert_eq!(fetch(&mut g, 0).url, "http://h/3");
}

/// Held results come out oldest request first, never before it; they free their
/// connections but not their place in the window; they survive a snapshot (a non-UTF-8
/// body byte for byte) and their requests stay in flight while the others are asked again.
#[test]
fn held_results_are_taken_oldest_first_and_survive_a_restore() {
    let mut f = queued(3, 8);
    let (a, b, c) = (fetch(&mut f, 0), fetch(&mut f, 0), fetch(&mut f, 0));
    assert_eq!(f.next(0), Next::Full, "three on the network: wait for one");
    let mut order = InOrder::default();
    let latin1 = FetchResult::Response(FetchResponse {
        status: 200,
        final_url: String::new(),
        headers: vec![("content-type".into(), "text/html; charset=latin1".into())],
        body: vec![b'<', 0xe9, 0xff, 0x00, b'>'],
        truncated: false,
    });
    order.hold(&mut f, c.id, latin1.clone());
    order.hold(&mut f, b.id, FetchResult::Failed("timed out".into()));
    order.hold(&mut f, 999, ok(200, "unknown id"));
    order.hold(&mut f, c.id, latin1.clone());
    assert!(order.holds(b.id) && order.holds(c.id), "held");
    assert!(!order.holds(999), "an id not in flight is dropped");
    assert_eq!(
        order.oldest(&f),
        None,
        "the oldest request's result has not arrived"
    );
    let (d, e) = (fetch(&mut f, 0), fetch(&mut f, 0));
    assert_eq!(
        f.next(0),
        Next::Full,
        "b and c gave up their connections, once each"
    );

    let json = serde_json::to_string(&(&f, &order)).expect("serialise");
    assert!(json.contains("\"POn/AD4=\""), "the body as base64: {json}");
    let (mut g, mut restored): (Frontier<i32>, InOrder) =
        serde_json::from_str(&json).expect("deserialise");
    assert_eq!(restored, order);
    g.requeue_in_flight_except(|id| restored.holds(id));
    restored.retain_in_flight(&g);
    assert_eq!(g.in_flight(), 2, "b and c stay in flight");
    let again: Vec<String> = (0..3).map(|_| fetch(&mut g, 0).url).collect();
    assert_eq!(
        again,
        [a.url.clone(), d.url, e.url],
        "asked again, in order"
    );
    assert_eq!(g.next(0), Next::Full, "held results take no connection");
    let a2 = g.oldest_in_flight().expect("in flight");
    assert_ne!(a2, a.id, "a is a new request");
    let (id, result) = restored.oldest(&g).expect("b's result");
    assert_eq!(id, b.id, "b's request is the oldest");
    g.deliver(id, result);
    let (id, result) = restored
        .oldest(&g)
        .map_or((0, None), |(id, r)| (id, Some(r)));
    assert_eq!(
        (id, result),
        (c.id, Some(latin1)),
        "then c, its body intact"
    );
    assert!(!restored.holds(b.id) && !restored.holds(c.id), "both taken");
}

/// Responses that arrive before the oldest request's free their connections, so more is
/// asked, until the window holds `LOOKAHEAD` × the connections allowed: then the machine
/// must take the oldest result. The same per host: a host whose window is full is passed
/// over for the next host's URLs.
#[test]
fn a_window_of_requests_is_asked_ahead_of_the_oldest_result() {
    let mut f = queued(2, 10);
    let mut order = InOrder::default();
    let a = fetch(&mut f, 0);
    let b = fetch(&mut f, 0);
    assert_eq!(f.next(0), Next::Full);
    order.hold(&mut f, b.id, ok(200, "b"));
    let c = fetch(&mut f, 0);
    order.hold(&mut f, c.id, ok(200, "c"));
    let _d = fetch(&mut f, 0);
    assert_eq!(LOOKAHEAD, 2);
    assert_eq!(f.in_flight(), 4);
    assert_eq!(f.next(0), Next::Busy, "the window is full: take a result");
    assert_eq!(order.oldest(&f), None, "a has not arrived: wait for it");
    order.hold(&mut f, a.id, ok(200, "a"));
    let (id, result) = order.oldest(&f).expect("a's result");
    assert_eq!(id, a.id);
    f.deliver(id, result);
    assert_eq!(fetch(&mut f, 0).url, "http://h/4", "room again");

    let mut two = unlimited(4, 1);
    for u in ["http://h/0", "http://h/1", "http://h/2", "http://g/0"] {
        two.push(u.to_string(), 0);
    }
    let h0 = fetch(&mut two, 0);
    order.hold(&mut two, h0.id, ok(200, "h0"));
    assert_eq!(
        fetch(&mut two, 0).url,
        "http://h/1",
        "h0 freed h's connection"
    );
    assert_eq!(
        fetch(&mut two, 0).url,
        "http://g/0",
        "h's window is full: g's turn"
    );
    assert_eq!(two.next(0), Next::Busy, "h's window is full again: take h0");
    let (id, result) = order.oldest(&two).expect("h0's result");
    assert_eq!(id, h0.id);
    two.deliver(id, result);
    assert_eq!(
        two.next(0),
        Next::Full,
        "h1 holds h's connection, g0 g's: wait for one"
    );
}

#[test]
fn html_detection() {
    let mut r = FetchResponse {
        status: 200,
        headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        ..FetchResponse::default()
    };
    assert!(r.is_html());
    r.headers = vec![("content-type".into(), "application/pdf".into())];
    assert!(!r.is_html());
    r.headers.clear();
    r.body = b"\n <!DOCTYPE html><p>x".to_vec();
    assert!(r.is_html());
    r.body = b"%PDF-1.4".to_vec();
    assert!(!r.is_html());
}
