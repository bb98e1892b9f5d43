//! Links to a replica of the site (`www.` and bare names): once the crawl has met enough of the
//! replica's paths on its own host, it follows the replica's links as its own.
use super::*;

/// `mem.test`, whose list pages also link their items on `www.mem.test` (and on `other.test`,
/// not a replica); the last list page links its items only on `www.mem.test`.
fn with_replica_links(url: &str) -> FetchResult {
    let FetchResult::Response(mut r) = site(url, 12) else {
        return site(url, 12);
    };
    let Some(p) = url.strip_prefix("http://mem.test/list?p=") else {
        return FetchResult::Response(r);
    };
    let p: usize = p.parse().unwrap_or(0);
    let items = (p - 1) * 5 + 1..=(p * 5).min(12);
    let mut body = String::from_utf8_lossy(&r.body).into_owned();
    if p == 3 {
        for i in items.clone() {
            body = body.replace(
                &format!("href='/item/{i}'"),
                &format!("href='http://www.mem.test/item/{i}'"),
            );
        }
    } else {
        let more: String = items
            .map(|i| format!("<a href='http://www.mem.test/item/{i}'>again</a><a href='http://other.test/item/{i}'>elsewhere</a>"))
            .collect();
        body = body.replace("</body>", &format!("{more}</body>"));
    }
    r.body = body.into_bytes();
    FetchResult::Response(r)
}

#[test]
fn links_to_a_replica_host_are_followed_as_the_sites_own() {
    let p = learn(12);
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run_on(c, &with_replica_links, None);
    // Items 11 and 12, linked only on www.mem.test, are fetched from mem.test.
    assert_eq!(targets.len(), 12, "{targets:?}");
    assert!(
        targets.iter().all(|t| t.starts_with("http://mem.test/")),
        "{targets:?}"
    );
    let hosts = c.replica_hosts();
    let www = hosts
        .iter()
        .find(|h| h.host == "www.mem.test")
        .expect("www.mem.test met");
    assert!(www.replica && www.matching >= replica::MATCHES, "{www:?}");
    assert!(
        hosts.iter().all(|h| h.host != "other.test"),
        "not a variant of the site's name: {hosts:?}"
    );
    assert!(c.progress().replica_links >= 2);
    // No page fetched twice for it: the copies on www resolve to URLs already met.
    assert_eq!(c.progress().fetched, 1 + 3 + 12, "{:?}", c.progress());

    // A snapshot keeps what was learned of the host.
    let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
    let back = Crawler::restore(serde_json::from_str(&json).expect("read")).expect("restore");
    assert_eq!(back.replica_hosts(), hosts);
}
