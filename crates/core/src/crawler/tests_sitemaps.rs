//! A crawl reads the sitemap at the protocol's common location when robots.txt names none.
use super::*;

#[test]
fn without_a_named_sitemap_a_crawl_reads_sitemap_xml_and_a_missing_index_is_no_error() {
    let p = learn(10);
    // robots.txt answers 404; /sitemap.xml lists items 1–14 (11–14 in no listing);
    // /sitemap_index.xml answers 404.
    let with_sitemap = |url: &str| {
        if url == "http://mem.test/sitemap.xml" {
            let body: String = (1..=14)
                .map(|i| format!("http://mem.test/item/{i}\n"))
                .collect();
            return FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), "text/plain".into())],
                body: body.into_bytes(),
                truncated: false,
            });
        }
        site(url, 10)
    };
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (mut urls, mut c) = run_on(c, &with_sitemap, None);
    urls.sort_by_key(|u| u.rsplit('/').next().and_then(|n| n.parse::<u32>().ok()));
    let items: Vec<String> = (1..=14)
        .map(|i| format!("http://mem.test/item/{i}"))
        .collect();
    assert_eq!(urls, items);
    let progress = c.progress();
    assert_eq!(progress.sitemaps, 1);
    assert_eq!(progress.skipped, 0, "{progress:?}");
    assert!(
        !c.drain_events()
            .iter()
            .any(|e| matches!(e, Event::SitemapSkipped(_))),
        "a guess not there is no error"
    );
    // Off: the listings' ten.
    let config = CrawlConfig {
        read_sitemaps: false,
        ..CrawlConfig::default()
    };
    let c = Crawler::new(p, config, None).expect("crawler");
    assert_eq!(run_on(c, &with_sitemap, None).0.len(), 10);
}
