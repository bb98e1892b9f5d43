//! A listing's further pages, and the levels learned on sites that list their items several
//! ways: an in-memory directory built like quotes.toscrape.com.
use super::*;

/// One template for every page (header, a main block, a footer), as on the quotes site, where
/// a list of quotes scores above θ against an author page.
fn page(title: &str, main: &str) -> String {
    // The site's menu of tags: most of every page, and a shorter way to every author than
    // the paged list.
    let menu: String = (0..30)
        .map(|i| format!("<li class=tag><a class=label href='/tag/t{i}/page/1/'>t{i}</a></li>"))
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><div class=container>\
         <div class=header><h1><a href='/'>Quotes</a></h1><a href='/login'>Login</a></div>\
         <div class=row><div class=main>{main}</div><ul class=menu>{menu}</ul></div>\
         <footer><p>Made with care</p></footer></div></body></html>"
    )
}

/// Author `i`'s page.
fn author(i: usize) -> String {
    page(
        &format!("Author {i}"),
        &format!(
            "<div class=author-details><h3>Author {i}</h3><p>Born: {i} March</p>\
             <div class=description>The life of author {i}.</div></div>"
        ),
    )
}

/// Page `n` (1-based) of the quotes list: five quotes, each by an author (author `(5(n−1)+k) mod 30`)
/// with a tag; "Previous" and "Next" links.
fn quotes(n: usize, pages: usize, prefix: &str) -> String {
    let mut main = String::new();
    for k in 0..5 {
        let a = (5 * (n - 1) + k) % 30;
        main.push_str(&format!(
            "<div class=quote><span>Quote {n}.{k}</span> by <a href='/author/a{a}/'>(about)</a>\
             <a class=tag href='/tag/t{a}/page/1/'>t{a}</a></div>"
        ));
    }
    if n > 1 {
        let prev = if n == 2 && prefix.is_empty() {
            "/".to_string()
        } else {
            format!("{prefix}/page/{}/", n - 1)
        };
        main.push_str(&format!(
            "<li class=previous><a href='{prev}'>← Previous</a></li>"
        ));
    }
    if n < pages {
        main.push_str(&format!(
            "<li class=next><a href='{prefix}/page/{}/'>Next →</a></li>",
            n + 1
        ));
    }
    page("Quotes", &main)
}

/// The directory: 6 pages of quotes from `/`, each author quoted once, 30 authors, a tag page
/// per author listing its quotes (one page each).
fn directory(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    let number = |s: &str| s.trim_matches('/').parse::<usize>().ok();
    if path == "/" {
        return html(&quotes(1, 6, ""));
    }
    if let Some(n) = path.strip_prefix("/page/").and_then(number)
        && (2..=6).contains(&n)
    {
        return html(&quotes(n, 6, ""));
    }
    if let Some(a) = path
        .strip_prefix("/author/a")
        .and_then(number)
        .filter(|&a| a < 30)
    {
        return html(&author(a));
    }
    if let Some(rest) = path.strip_prefix("/tag/t") {
        let a = rest.split('/').next().and_then(|s| s.parse::<usize>().ok());
        if let Some(a) = a.filter(|&a| a < 30) {
            // A table of the quotes tagged so, each by the tag's author.
            let rows: String = (0..8)
                .map(|k| {
                    format!(
                        "<tr><td>Quote {k}</td><td><a href='/author/a{a}/'>(about)</a></td>\
                         <td><em>t{a}</em></td></tr>"
                    )
                })
                .collect();
            return html(&page("Tag", &format!("<table class=tagged>{rows}</table>")));
        }
    }
    if path == "/login" {
        return html(&page("Login", "<form method=post><input name=u></form>"));
    }
    FetchResult::Response(FetchResponse {
        status: 404,
        ..FetchResponse::default()
    })
}

fn directory_mapper() -> Mapper {
    Mapper::new(
        "http://shop.test/",
        ExamplePage {
            url: "http://shop.test/author/a0/".into(),
            body: author(0).into_bytes(),
            content_type: None,
        },
        MapConfig {
            politeness: Politeness::unthrottled(1),
            ..MapConfig::default()
        },
    )
    .expect("mapper")
}

fn urls(map: &SiteMap, ids: impl Iterator<Item = u32>) -> Vec<String> {
    let mut out: Vec<String> = ids.map(|i| map.nodes[i as usize].url.clone()).collect();
    out.sort();
    out
}

#[test]
fn a_listings_next_pages_are_no_targets_however_alike() {
    let mut m = directory_mapper();
    drive(&mut m, &directory);
    let map = m.site_map();
    let targets = urls(map, map.targets());
    assert_eq!(targets.len(), 30, "{targets:?}");
    assert!(
        targets.iter().all(|u| u.contains("/author/")),
        "{targets:?}"
    );
    // The pages of the list look like an author's page as much as the template makes them…
    let page2 = map
        .nodes
        .iter()
        .find(|n| n.url == "http://shop.test/page/2/")
        .expect("page 2 fetched");
    assert!(
        page2
            .similarity
            .is_some_and(|s| f64::from(s) >= map.threshold),
        "the fixture must make a list page score above θ: {:?}",
        page2.similarity
    );
    // … but continue the entry's list: pages, expanded, recorded as continuations.
    assert_eq!(page2.state, NodeState::Page);
    assert!(!page2.links.is_empty());
    let continued = urls(map, map.continued.keys().copied());
    for n in 2..=6 {
        assert!(
            continued.contains(&format!("http://shop.test/page/{n}/")),
            "{continued:?}"
        );
    }
    // Relabelled at another θ, the chain stays out of the targets.
    let again = map.with_threshold_placed_at(map.threshold - 0.05, map.threshold);
    assert!(
        urls(&again, again.targets())
            .iter()
            .all(|u| u.contains("/author/"))
    );
}

#[test]
fn the_paged_list_is_one_level_and_redundant_tag_pages_are_left_out() {
    let mut m = directory_mapper();
    drive(&mut m, &directory);
    let pattern = crate::pattern::learn_from_map(m.site_map(), m.config(), 0).expect("learns");
    let levels: Vec<&Vec<String>> = pattern.levels.iter().map(|l| &l.regexes).collect();
    assert_eq!(levels.len(), 2, "{levels:?}");
    assert_eq!(
        levels[0],
        &vec![r"^http://shop\.test/page/[0-9]+/$".to_string()],
        "the entry's pages, not one tag page per author"
    );
    assert!(pattern.levels[0].paginate);
    assert_eq!(levels[1].len(), 1, "{levels:?}");
    let sim = crate::pattern::simulate(&pattern, m.site_map()).expect("simulates");
    assert_eq!(sim.targets_reached, 30);
    assert!(sim.false_targets.is_empty());
    // The entry, its 5 further pages and the 30 authors.
    assert_eq!(sim.fetched, 36);
    // Without the simplification, the tag pages make the level.
    let plain = crate::pattern::learn(
        m.site_map(),
        pattern.scope.clone(),
        pattern.politeness.clone(),
        pattern.similarity,
        &crate::pattern::LearnConfig {
            simplify: false,
            ..crate::pattern::LearnConfig::default()
        },
        0,
    )
    .expect("learns");
    let plain_sim = crate::pattern::simulate(&plain, m.site_map()).expect("simulates");
    assert_eq!(plain_sim.targets_reached, 30);
    assert!(
        plain.levels[0].regexes.len() > 1 || plain_sim.fetched > sim.fetched,
        "{:?} fetching {}",
        plain.levels[0].regexes,
        plain_sim.fetched
    );
}

/// A shop's category tree, as Zyte's test shop: the home page links 3 top categories and 2 of
/// the 9 subcategories (featured); each top category links its 3 subcategories; each
/// subcategory lists 4 products. Top categories and subcategories share one URL shape.
fn category_shop(url: &str) -> FetchResult {
    let path = url.trim_start_matches("http://shop.test");
    let cat = |n: usize| format!("/category/{n}");
    let list = |title: &str, links: Vec<String>| {
        let items: String = links
            .iter()
            .map(|l| format!("<li><a href='{l}'>{l}</a></li>"))
            .collect();
        html(&format!(
            "<html><head><title>{title}</title></head><body><h1>{title}</h1><ul>{items}</ul></body></html>"
        ))
    };
    match path {
        "/" => list("Home", vec![cat(100), cat(101), cat(102), cat(4), cat(7)]),
        p if p.starts_with("/category/") => {
            let Ok(n) = p["/category/".len()..].parse::<usize>() else {
                return item_or_404(p);
            };
            match n {
                100..=102 => list("Top", (0..3).map(|k| cat(3 * (n - 100) + k)).collect()),
                0..=8 => list(
                    "Sub",
                    (0..4)
                        .map(|k| format!("/item/{}.html", 4 * n + k + 1))
                        .collect(),
                ),
                _ => item_or_404(p),
            }
        }
        p => item_or_404(p),
    }
}

#[test]
fn top_categories_join_their_subcategories_as_one_level() {
    let mut m = mapper_with(MapConfig {
        politeness: Politeness::unthrottled(1),
        ..MapConfig::default()
    });
    drive(&mut m, &category_shop);
    let map = m.site_map();
    assert_eq!(map.targets().count(), 36);
    let pattern = crate::pattern::learn_from_map(map, m.config(), 0).expect("learns");
    let regexes: Vec<&Vec<String>> = pattern.levels.iter().map(|l| &l.regexes).collect();
    // Not a level of three literal top categories above one of the subcategories.
    assert_eq!(regexes.len(), 2, "{regexes:?}");
    assert_eq!(
        regexes[0],
        &vec![r"^http://shop\.test/category/[0-9]+$".to_string()],
        "{regexes:?}"
    );
    assert!(pattern.levels[0].paginate, "the tree pages through itself");
    let sim = crate::pattern::simulate(&pattern, map).expect("simulates");
    assert_eq!(sim.targets_reached, 36);
    // The home page, 12 categories, 36 products.
    assert_eq!(sim.fetched, 49);
}

#[test]
fn an_example_that_is_page_two_of_the_entrys_list_makes_the_list_the_targets() {
    let mut m = Mapper::new(
        "http://shop.test/",
        ExamplePage {
            url: "http://shop.test/page/2/".into(),
            body: quotes(2, 6, "").into_bytes(),
            content_type: None,
        },
        MapConfig {
            politeness: Politeness::unthrottled(1),
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    // The list's first page, the entry, opens with a welcome that makes it score below θ.
    let site = |url: &str| {
        if url != "http://shop.test/" {
            return directory(url);
        }
        let welcome: String = (0..12)
            .map(|i| {
                format!("<section class=welcome><h2>Welcome {i}</h2><p>Read on.</p></section>")
            })
            .collect();
        html(&quotes(1, 6, "").replace("<div class=main>", &format!("<div class=main>{welcome}")))
    };
    drive(&mut m, &site);
    let map = m.site_map();
    assert!(
        map.nodes[0]
            .similarity
            .is_some_and(|s| f64::from(s) < map.threshold),
        "the fixture must make the entry score below θ: {:?}",
        map.nodes[0].similarity
    );
    let targets = urls(map, map.targets());
    // Every further page of the list is a target: the example's own list is of its kind.
    for n in 2..=6 {
        assert!(
            targets.contains(&format!("http://shop.test/page/{n}/")),
            "{targets:?}"
        );
    }
    // (The template makes an author's page score above θ against a list page too: this
    // fixture's authors are targets here, as its list pages were against an author.)
    let pattern = crate::pattern::learn_from_map(map, m.config(), 0).expect("learns");
    assert!(pattern.entry_target, "the entry is the list's first page");
    let compiled = pattern.compile().expect("compiles");
    for n in 2..=6 {
        let url = format!("http://shop.test/page/{n}/");
        assert!(
            (0..pattern.levels.len()).any(|l| compiled.step(l, &url).is_some()),
            "{url} is on no level: {:#?}",
            pattern.levels
        );
    }
}
