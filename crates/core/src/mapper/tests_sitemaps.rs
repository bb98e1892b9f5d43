//! Sitemaps at the protocol's common locations, where robots.txt names none.
use super::*;

/// A people site published under `/group/`: its entry links 3 of its 8 profiles, the others
/// are listed only in `/group/sitemap.xml`; robots.txt names no sitemap (it answers 404),
/// `/sitemap.xml` answers 404 and `/sitemap_index.xml` an HTML page (a soft 404).
fn group_site(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    let not_found = FetchResult::Response(FetchResponse {
        status: 404,
        final_url: String::new(),
        headers: vec![("content-type".into(), "text/html".into())],
        body: b"<h1>Not found</h1>".to_vec(),
        truncated: false,
    });
    match path {
        "/group/" => html(
            "<html><body><h1>Our group</h1><a href='people/1.html'>One</a> \
             <a href='people/2.html'>Two</a> <a href='people/3.html'>Three</a></body></html>",
        ),
        "/group/sitemap.xml" => {
            let mut xml = String::from(
                "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>",
            );
            for i in 1..=8 {
                xml.push_str(&format!(
                    "<url><loc>http://shop.test/group/people/{i}.html</loc></url>"
                ));
            }
            xml.push_str("</urlset>");
            FetchResult::Response(FetchResponse {
                status: 200,
                final_url: String::new(),
                headers: vec![("content-type".into(), "application/xml".into())],
                body: xml.into_bytes(),
                truncated: false,
            })
        }
        "/sitemap_index.xml" => html("<html><body><h1>Welcome</h1></body></html>"),
        p if p.starts_with("/group/people/") => {
            let i: u32 = p
                .trim_start_matches("/group/people/")
                .trim_end_matches(".html")
                .parse()
                .unwrap_or(0);
            html(&entity(i))
        }
        _ => not_found,
    }
}

#[test]
fn without_a_named_sitemap_the_common_locations_are_read_and_a_missing_one_is_no_error() {
    let mut m = Mapper::new(
        "http://shop.test/group/",
        ExamplePage {
            url: "http://shop.test/group/people/1.html".into(),
            body: entity(1).into_bytes(),
            content_type: None,
        },
        MapConfig {
            politeness: Politeness {
                delay_ms: 0,
                ..Politeness::default()
            },
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    let order = fetch_order(&mut m, &group_site);
    let events = m.drain_events();
    let map = m.site_map();
    let targets: BTreeSet<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    let people: BTreeSet<String> = (1..=8)
        .map(|i| format!("http://shop.test/group/people/{i}.html"))
        .collect();
    assert_eq!(targets, people, "{order:?}");
    for guess in ["/sitemap.xml", "/sitemap_index.xml", "/group/sitemap.xml"] {
        assert!(order.iter().any(|p| p == guess), "{guess}: {order:?}");
    }
    assert!(
        !events.iter().any(|e| matches!(e, Event::SitemapSkipped(_))),
        "a guess not there is no error: {events:?}"
    );
    let p = m.progress();
    assert_eq!((p.sitemaps, p.sitemap_links, p.skipped), (1, 5, 0));
}

#[test]
fn the_common_locations_are_the_root_s_and_the_entry_directory_s() {
    assert_eq!(
        crate::sitemap::common_locations("http://a.test/group/people/index.html?x=1"),
        [
            "http://a.test/sitemap.xml",
            "http://a.test/sitemap_index.xml",
            "http://a.test/group/people/sitemap.xml",
            "http://a.test/group/sitemap.xml"
        ]
    );
    assert_eq!(
        crate::sitemap::common_locations("http://a.test/"),
        [
            "http://a.test/sitemap.xml",
            "http://a.test/sitemap_index.xml"
        ]
    );
    assert!(crate::sitemap::common_locations("not a url").is_empty());
}
