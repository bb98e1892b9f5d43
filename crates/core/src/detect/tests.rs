use std::collections::HashMap;

use super::*;
use crate::fetch::{FetchResponse, RequestKind};

/// Pumps a detector against pages held in memory (`path → HTML`; robots.txt answers 404; a
/// path missing answers 404), one request at a time, as a driver does.
pub(super) fn run(start: &str, site: &HashMap<String, String>, config: DetectConfig) -> Detection {
    let mut d = Detector::new(start, config).expect("detector");
    let mut now = 0u64;
    for _ in 0..10_000 {
        match d.poll(now) {
            Poll::Done => return d.into_detection(),
            Poll::Fetch(r) => {
                let path = Url::parse(&r.url).map(|u| {
                    let mut p = u.path().to_string();
                    if let Some(q) = u.query() {
                        p.push('?');
                        p.push_str(q);
                    }
                    p
                });
                let path = path.unwrap_or_default();
                let result = match (r.kind, site.get(&path)) {
                    (RequestKind::Robots, _) | (_, None) => FetchResult::Response(FetchResponse {
                        status: 404,
                        final_url: r.url.clone(),
                        ..FetchResponse::default()
                    }),
                    (_, Some(body)) if body.starts_with("FAIL") => {
                        FetchResult::Failed("reset".into())
                    }
                    // `REDIRECT URL`: the page answered after a redirect to URL.
                    (_, Some(body)) if body.starts_with("REDIRECT ") => {
                        FetchResult::Response(FetchResponse {
                            status: 200,
                            final_url: body["REDIRECT ".len()..].to_string(),
                            headers: vec![("content-type".into(), "text/html".into())],
                            body: page("Elsewhere", "<p>Another site.</p>").into_bytes(),
                            ..FetchResponse::default()
                        })
                    }
                    (_, Some(body)) => FetchResult::Response(FetchResponse {
                        status: 200,
                        final_url: r.url.clone(),
                        headers: vec![(
                            "content-type".into(),
                            if body.starts_with("%PDF") {
                                "application/pdf".into()
                            } else {
                                "text/html; charset=utf-8".into()
                            },
                        )],
                        body: body.clone().into_bytes(),
                        ..FetchResponse::default()
                    }),
                };
                d.handle(r.id, result, now);
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => now += 1,
        }
    }
    panic!("the detector never finished");
}

fn quick() -> DetectConfig {
    DetectConfig {
        politeness: Politeness::unthrottled(1),
        ..DetectConfig::default()
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> \
        <a href='/about/'>About us</a> <a href='/contact/'>Contact</a> \
        <a href='/products/'>Products</a></nav>{body}</body></html>"
    )
}

/// A small shop: the home page, a product listing of 24 items over 3 pages, product pages.
fn shop() -> HashMap<String, String> {
    let mut s = HashMap::new();
    s.insert(
        "/".into(),
        page(
            "Lamp shop",
            "<h1>Welcome</h1><p>We sell lamps.</p>\
        <a href='/product/1'>Lamp 1</a> <a href='/product/2'>Lamp 2</a>",
        ),
    );
    s.insert(
        "/about/".into(),
        page("About", "<h1>About</h1><p>A family shop since 1990.</p>"),
    );
    s.insert(
        "/contact/".into(),
        page("Contact", "<h1>Contact</h1><p>Write to us.</p>"),
    );
    let mut list = String::from("<h1>All products</h1><ul>");
    for i in 1..=24 {
        list.push_str(&format!(
            "<li><a href='/product/{i}'>Brass lamp {i}</a> <span>$ {i}0.00</span></li>"
        ));
    }
    list.push_str("</ul><a href='/products/?page=2'>2</a> <a href='/products/?page=3'>3</a>");
    s.insert("/products/".into(), page("All products - Lamp shop", &list));
    for i in 1..=24 {
        // A product page as shops publish them: it declares itself (schema.org `Product`).
        let mut p = format!(
            "<html><head><title>Brass lamp {i} - Lamp shop</title>\
            <script type='application/ld+json'>{{\"@type\": \"Product\", \"name\": \
            \"Brass lamp {i}\", \"offers\": {{\"@type\": \"Offer\", \"price\": \"{i}0.00\"}}}}\
            </script></head><body><nav><a href='/'>Home</a> <a href='/about/'>About us</a> \
            <a href='/contact/'>Contact</a> <a href='/products/'>Products</a></nav><h1>Brass lamp {i}</h1><img src=a.jpg><p>Price: $ {i}0.00</p>"
        );
        for k in 0..2 {
            p.push_str(&format!(
                "<p>This lamp is made of brass and gives a warm light; it stands \
                forty centimetres tall. Paragraph {k}.</p>"
            ));
        }
        p.push_str("<button>Add to cart</button></body></html>");
        s.insert(format!("/product/{i}"), p);
    }
    s
}

#[test]
fn a_shop_s_products_are_found_from_its_home_page_in_three_fetches() {
    // The home page, the listing its menu names, one product to confirm the listing's group.
    let d = run("http://shop.test/", &shop(), quick());
    assert!(d.entity_site, "{d:#?}");
    assert_eq!(d.fetches, 3, "{d:#?}");
    assert_eq!(
        d.visited[2].url, "http://shop.test/product/1",
        "the sample goes first"
    );
    let s = &d.sections[0];
    assert_eq!(s.index, ["http://shop.test/products/"]);
    assert_eq!(
        s.examples,
        [
            "http://shop.test/product/1",
            "http://shop.test/product/2",
            "http://shop.test/product/3"
        ]
    );
    assert_eq!(
        s.estimated_items,
        24 * 3,
        "24 items a page, a page bar up to 3"
    );
    assert_eq!(s.shape, "/product/{n}");
    assert_eq!(d.visited[1].kind, "index");
}

#[test]
fn from_an_item_page_the_search_goes_to_the_root() {
    let d = run("http://shop.test/product/7", &shop(), quick());
    assert!(d.entity_site, "{d:#?}");
    assert_eq!(d.visited[0].url, "http://shop.test/product/7");
    assert_eq!(d.sections[0].index, ["http://shop.test/products/"]);
    assert!(d.fetches <= 4, "{d:#?}");
}

#[test]
fn a_few_page_site_is_no_entity_site_and_costs_few_fetches() {
    let mut s = HashMap::new();
    s.insert("/".into(), page("My project", "<h1>My project</h1><p>A tool.</p><a href='/install/'>Install</a> <a href='/usage/'>Usage</a>"));
    s.insert(
        "/install/".into(),
        page("Install", "<h1>Install</h1><p>Run make.</p>"),
    );
    s.insert(
        "/usage/".into(),
        page("Usage", "<h1>Usage</h1><p>Run it.</p>"),
    );
    s.insert("/about/".into(), page("About", "<p>Me.</p>"));
    s.insert("/contact/".into(), page("Contact", "<p>Mail.</p>"));
    let d = run("http://tool.test/", &s, quick());
    assert!(!d.entity_site, "{d:#?}");
    assert!(d.sections.is_empty());
    // The home page, then its links of priority ≥ 0 (about and contact score below 0), each
    // of which links nothing new.
    assert!(d.fetches <= 4, "{d:#?}");
    assert!(
        !d.visited.iter().any(|v| v.url.contains("/about/")),
        "{d:#?}"
    );
}

#[test]
fn limits_hold_and_bad_answers_count_as_fetches_that_found_nothing() {
    // A home page linking many dead ends: failures, 404s, a PDF, a redirect off site.
    let mut s = HashMap::new();
    let mut home = String::from("<h1>Hub</h1>");
    for i in 0..3 {
        home.push_str(&format!("<a href='/gone{i}/'>Section {i}</a> "));
    }
    home.push_str("<a href='/fail/'>Archive</a> <a href='/doc/'>Docs</a>");
    s.insert("/".into(), page("Hub", &home));
    s.insert("/fail/".into(), "FAIL".into());
    s.insert("/doc/".into(), "%PDF-1.4".into());
    let config = DetectConfig {
        max_fetches: 4,
        ..quick()
    };
    let d = run("http://hub.test/", &s, config);
    assert!(!d.entity_site);
    assert_eq!(d.fetches, 4, "{d:#?}");
    assert!(
        d.visited.iter().any(|v| v.kind.starts_with("HTTP 404")),
        "{d:#?}"
    );
    // The unproductive-children rule: at most 6 of the root's children, then nothing more.
    let d = run("http://hub.test/", &s, quick());
    assert!(d.fetches <= 1 + 6, "{d:#?}");
    assert!(
        d.visited.iter().any(|v| v.kind.starts_with("failed"))
            || d.visited.iter().any(|v| v.kind == "not HTML"),
        "{d:#?}"
    );
}

#[test]
fn breadth_first_and_the_baseline_words_run_too() {
    let bfs = DetectConfig {
        strategy: Strategy::BreadthFirst,
        ..quick()
    };
    let d = run("http://shop.test/", &shop(), bfs);
    assert!(d.entity_site, "{d:#?}");
    let base = DetectConfig {
        prioritiser: Prioritiser::Baseline,
        ..quick()
    };
    let d = run("http://shop.test/", &shop(), base);
    assert!(d.entity_site, "{d:#?}");
}

#[test]
fn a_bad_start_is_an_error() {
    assert!(Detector::new("ftp://x.test/", quick()).is_err());
    assert!(Detector::new("not a url", quick()).is_err());
}

#[test]
fn shapes_group_alike_links() {
    assert_eq!(
        shape_of("http://a.test/product/12").as_deref(),
        Some("/product/{n}")
    );
    assert_eq!(
        shape_of("http://a.test/blog/2015/a-post/").as_deref(),
        Some("/blog/2015/*/")
    );
    assert_eq!(
        shape_of("http://a.test/p/x.html?id=3").as_deref(),
        Some("/p/*.html?…")
    );
    assert_eq!(shape_of("http://a.test/"), None);
    assert_eq!(shape_of("http://a.test/files/a.pdf"), None);
}

#[path = "tests_sections.rs"]
mod sections;
