//! The reading of sections: prefixes in a flat directory, pages the model calls `other`
//! confirmed by a second alike page, the least section size, the root's `index.html`.
use super::*;

/// A directory of people: the home page lists 14 profiles over numbered pages; profiles
/// declare nothing and hold a line of facts, so the model calls them `other` (as it does
/// quotes.toscrape.com's authors).
fn people() -> HashMap<String, String> {
    let mut s = HashMap::new();
    let mut list = String::from("<h1>Our people</h1>");
    for i in 1..=14 {
        list.push_str(&format!(
            "<div class=person><a href='/person/name-{i}'>Person number {i} of the team</a>\
            <span>Researcher</span></div>"
        ));
    }
    list.push_str("<a href='/page/2/'>Next →</a>");
    s.insert("/".into(), page("People", &list));
    for i in 1..=14 {
        s.insert(
            format!("/person/name-{i}"),
            page(
                &format!("Person {i}"),
                &format!(
                    "<div><strong>Person {i}</strong> Born: {i} in Ulm</div>\
                    <div>Description: works on things</div>"
                ),
            ),
        );
    }
    s
}

#[test]
fn pages_called_other_are_a_section_when_a_second_one_is_alike() {
    let d = run("http://people.test/", &people(), quick());
    assert!(d.entity_site, "{d:#?}");
    let s = &d.sections[0];
    assert_eq!(s.shape, "/person/*", "{d:#?}");
    assert_eq!(s.index, ["http://people.test/"]);
    // 14 on the page, a "Next" link to a numbered page: at least two pages.
    assert_eq!(s.estimated_items, 28);
    let kinds: Vec<&str> = d.visited.iter().map(|v| v.kind.as_str()).collect();
    assert_eq!(kinds[1..], ["other", "other"], "{d:#?}");
    assert_eq!(d.fetches, 3, "the home page, two alike profiles: {d:#?}");
}

#[test]
fn a_section_needs_enough_items() {
    // The same directory with 7 people and no next page: a few pages, no section.
    let mut s = people();
    let mut list = String::from("<h1>Our people</h1>");
    for i in 1..=7 {
        list.push_str(&format!(
            "<div><a href='/person/name-{i}'>Person number {i} of the team</a></div>"
        ));
    }
    s.insert("/".into(), page("People", &list));
    let d = run("http://people.test/", &s, quick());
    assert!(!d.entity_site, "{d:#?}");
}

#[test]
fn a_flat_directory_is_read_by_its_prefixes() {
    // A manual in one directory: chapters, and a reference of 20 `sql-*.html` pages.
    let mut s = HashMap::new();
    let mut toc = String::from("<h1>Manual</h1><ul>");
    for c in [
        "intro", "tutorial", "install", "config", "backup", "monitor",
    ] {
        toc.push_str(&format!("<li><a href='{c}.html'>The {c} chapter</a></li>"));
    }
    for i in 0..20 {
        toc.push_str(&format!(
            "<li><a href='sql-cmd{i}.html'>SQL CMD{i} — do thing {i}</a></li>"
        ));
    }
    toc.push_str("</ul>");
    s.insert("/index.html".into(), page("Manual", &toc));
    for i in 0..20 {
        s.insert(
            format!("/sql-cmd{i}.html"),
            format!(
                "<html><head><title>CMD{i}</title></head><body><nav><a href='/'>Home</a> \
                <a href='/about/'>About us</a> <a href='/contact/'>Contact</a> \
                <a href='/products/'>Products</a></nav><h1>CMD{i}</h1><h2>Synopsis</h2>\
                <pre>CMD{i} [ options ]</pre><h2>Description</h2><p>CMD{i} does thing {i}.</p>\
                </body></html>"
            ),
        );
    }
    let d = run("http://manual.test/index.html", &s, quick());
    assert!(d.entity_site, "{d:#?}");
    assert_eq!(d.sections[0].shape, "/sql*.html", "{d:#?}");
    assert_eq!(d.sections[0].estimated_items, 20);
    assert!(
        !d.visited.iter().any(|v| v.url == "http://manual.test/"),
        "index.html is the root: {d:#?}"
    );
}

#[test]
fn prefixes_split_only_groups_named_by_few_words() {
    let group = |urls: Vec<String>| Group {
        shape: "/*.html".into(),
        targets: urls,
    };
    let mut mixed: Vec<String> = (0..12)
        .map(|i| format!("http://a.test/class{i}.html"))
        .collect();
    mixed.extend((0..3).map(|i| format!("http://a.test/page{i}.html")));
    let split = split_by_prefix(group(mixed));
    let shapes: Vec<(&str, usize)> = split
        .iter()
        .map(|g| (g.shape.as_str(), g.targets.len()))
        .collect();
    assert_eq!(shapes, [("/class*.html", 12), ("/*.html", 3)]);
    // Slugs: as many leading words as pages, one group.
    let slugs: Vec<String> = (b'a'..=b'x')
        .map(|c| format!("http://a.test/{0}{0}-smith.html", c as char))
        .collect();
    assert_eq!(split_by_prefix(group(slugs)).len(), 1);
    assert_eq!(leading_word("http://a.test/sql-vacuum.html"), "sql");
    assert_eq!(leading_word("http://a.test/__future__.html"), "");
}

#[test]
fn a_next_link_counts_a_page_only_to_a_numbered_url() {
    let parse = |body: &str| {
        Page::parse(
            page("L", body).as_bytes(),
            "http://a.test/",
            None,
            &ParseOptions::default(),
        )
        .expect("page")
    };
    assert_eq!(page_count(&parse("<a href='/page/2/'>Next →</a>")), 2);
    assert_eq!(page_count(&parse("<a href='/?start=20'>»</a>")), 2);
    assert_eq!(
        page_count(&parse("<a href='/chapter-two.html'>Next</a>")),
        1
    );
    assert_eq!(
        page_count(&parse("<a href='/?p=2'>2</a> <a href='/?p=9'>9</a>")),
        9
    );
}

#[test]
fn a_trap_a_redirect_off_site_and_non_html_end_within_the_limit() {
    // A calendar that links ever more days, each day 20 new ones; a link that redirects to
    // another host; files that are no pages.
    let mut s = HashMap::new();
    let mut home = String::from("<h1>Club</h1><a href='/away/'>Our partner</a>");
    home.push_str("<a href='/doc/'>Rules</a> <a href='/cal/1/'>Calendar</a>");
    s.insert("/".into(), page("Club", &home));
    s.insert("/away/".into(), "REDIRECT http://elsewhere.test/".into());
    s.insert("/doc/".into(), "%PDF-1.4".into());
    for day in 1..=400 {
        let mut p = format!("<h1>Day {day}</h1>");
        for next in 1..=20 {
            p.push_str(&format!(
                "<a href='/cal/{}/'>Day {}</a> ",
                day * 20 + next,
                day * 20 + next
            ));
        }
        s.insert(format!("/cal/{day}/"), page(&format!("Day {day}"), &p));
    }
    let d = run("http://club.test/", &s, quick());
    assert!(d.fetches <= 10, "{d:#?}");
    // Each day is built like the one that links it: a listing of listings, no items.
    assert!(!d.entity_site, "{d:#?}");
    assert!(
        d.visited
            .iter()
            .any(|v| v.kind.starts_with("redirected off site")),
        "{d:#?}"
    );
    assert!(d.visited.iter().any(|v| v.kind == "not HTML"), "{d:#?}");
    assert!(
        !d.visited
            .iter()
            .any(|v| v.url.starts_with("http://elsewhere.test")),
        "{d:#?}"
    );
}

#[test]
fn from_an_item_the_listing_that_lists_it_is_its_section() {
    // Product 7 is an entity by the model (it declares schema.org Product); the listing its
    // menu names lists it: that listing is the section, with no sample fetched, and the
    // examples start at the product.
    let d = run("http://shop.test/product/7", &shop(), quick());
    assert!(d.entity_site, "{d:#?}");
    assert_eq!(d.visited[0].kind, "entity");
    let s = &d.sections[0];
    assert_eq!(s.index, ["http://shop.test/products/"]);
    assert_eq!(s.examples[0], "http://shop.test/product/7");
    assert_eq!(d.fetches, 2, "the product, its listing: {d:#?}");
}

#[test]
fn examples_start_at_the_item_and_flat_directories_keep_its_word() {
    let t: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
    assert_eq!(examples_around(&t, "c", 3), ["c", "d", "b"]);
    assert_eq!(examples_around(&t, "x", 2), ["a", "b"]);
    let g = Group {
        shape: "/*.html".into(),
        targets: ["sql-a", "intro", "sql-b"]
            .map(|n| format!("http://m.test/{n}.html"))
            .to_vec(),
    };
    let like = items_like(&g, "http://m.test/sql-a.html").expect("a word");
    assert_eq!(like.shape, "/sql*.html");
    assert_eq!(like.targets.len(), 2);
    assert!(items_like(&g, "http://m.test/__x.html").is_none());
}

#[test]
fn the_site_s_own_words_raise_links_like_those_that_led_to_listings() {
    let mut w = LinkWords::default();
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    w.record(&words("shop lamps"), true);
    w.record(&words("shop chairs"), true);
    w.record(&words("about"), false);
    assert!(w.bonus(&words("shop tables")) > 0);
    assert!(w.bonus(&words("about team")) < 0);
    assert_eq!(w.bonus(&words("unknown")), 0);
    // Bounded: many listings never outweigh the priority rules by more than 3.
    for _ in 0..100 {
        w.record(&words("shop"), true);
    }
    assert_eq!(w.bonus(&words("shop")), 3);
    assert_eq!(
        words_of_link("see all lamps", "http://a.test/cat/lamps-2.html"),
        ["see", "all", "lamps", "cat"]
    );
}
