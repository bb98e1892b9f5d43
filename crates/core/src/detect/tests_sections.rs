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
