//! A listing's sort and view variants (`?sort=price`, `?view=grid`): mapping meets them, and
//! learning leaves them out of the levels (they reach no item the plain pages do not), so the
//! listing's level keeps the one parameter that matters, its page number.
use super::*;

const PRODUCTS: usize = 60;
const PER_PAGE: usize = 12;

fn product(i: usize) -> String {
    format!(
        "<html><head><title>Product {i}</title></head><body><nav><a href='/'>Shop</a>\
         <a href='/help'>Help</a></nav><div class=product><h1>Lamp {} {}</h1>\
         <p class=price>{i}.99</p><p>A lamp of brass and {} glass, made by hand.</p></div></body></html>",
        ["Aster", "Birch", "Cedar", "Dahlia", "Elm", "Fern"][i % 6],
        [
            "North", "South", "East", "West", "Upper", "Lower", "Inner", "Outer", "Grand", "Small"
        ][i / 6 % 10],
        ["green", "amber", "blue", "clear"][i % 4]
    )
}

/// Page `n` (1-based) of the catalogue sorted by `sort`, drawn as `view`: twelve products, the
/// options as links carrying the page's other parameter, and numbered pages carrying both.
fn catalogue(n: usize, sort: &str, view: &str) -> String {
    let mut order: Vec<usize> = (0..PRODUCTS).collect();
    if sort == "price" {
        order.reverse();
    } else if sort == "name" {
        order.sort_by_key(|&i| (i % 6, i / 6));
    }
    let query = |sort: &str, view: &str, page: usize| {
        let mut q = Vec::new();
        if !sort.is_empty() {
            q.push(format!("sort={sort}"));
        }
        if !view.is_empty() {
            q.push(format!("view={view}"));
        }
        if page > 1 {
            q.push(format!("page={page}"));
        }
        if q.is_empty() {
            "/catalogue".to_string()
        } else {
            format!("/catalogue?{}", q.join("&"))
        }
    };
    let items: String = order[(n - 1) * PER_PAGE..n * PER_PAGE]
        .iter()
        .map(|&i| {
            let name = format!("Lamp {i}");
            if view == "grid" {
                format!("<div class=cell><a href='/product/{i}'>{name}</a></div>")
            } else {
                format!(
                    "<li class=row><a href='/product/{i}'>{name}</a> <span>in stock</span></li>"
                )
            }
        })
        .collect();
    let sorts: String = ["", "price", "name"]
        .iter()
        .map(|s| format!("<a class=sort href='{}'>sort {s}</a> ", query(s, view, 1)))
        .collect();
    let views: String = ["", "grid"]
        .iter()
        .map(|v| format!("<a class=view href='{}'>view {v}</a> ", query(sort, v, 1)))
        .collect();
    let pages: String = (1..=PRODUCTS / PER_PAGE)
        .map(|p| format!("<a class=page href='{}'>{p}</a> ", query(sort, view, p)))
        .collect();
    format!(
        "<html><head><title>Catalogue</title></head><body><nav><a href='/'>Shop</a>\
         <a href='/help'>Help</a></nav><div class=tools>{sorts}{views}</div>\
         <div class=items>{items}</div><div class=pages>{pages}</div></body></html>"
    )
}

fn shop(url: &str) -> FetchResult {
    let Ok(u) = url::Url::parse(url) else {
        return FetchResult::Failed("bad url".into());
    };
    let q: std::collections::HashMap<String, String> = u.query_pairs().into_owned().collect();
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    match u.path() {
        "/" => html(
            "<html><head><title>Shop</title></head><body><a href='/catalogue'>All lamps</a>\
             <a href='/help'>Help</a></body></html>",
        ),
        "/help" => html("<html><head><title>Help</title></head><body><p>Ask us.</p></body></html>"),
        "/catalogue" => {
            let page = get("page").parse::<usize>().unwrap_or(1);
            if !(1..=PRODUCTS / PER_PAGE).contains(&page) {
                return FetchResult::Response(FetchResponse {
                    status: 404,
                    ..FetchResponse::default()
                });
            }
            html(&catalogue(page, &get("sort"), &get("view")))
        }
        p => match p
            .strip_prefix("/product/")
            .and_then(|i| i.parse::<usize>().ok())
        {
            Some(i) if i < PRODUCTS => html(&product(i)),
            _ => FetchResult::Response(FetchResponse {
                status: 404,
                ..FetchResponse::default()
            }),
        },
    }
}

#[test]
fn sort_and_view_variants_stay_out_of_the_levels() {
    let mut m = Mapper::new(
        "http://shop.test/",
        ExamplePage {
            url: "http://shop.test/product/7".into(),
            body: product(7).into_bytes(),
            content_type: None,
        },
        MapConfig {
            politeness: Politeness::unthrottled(1),
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    drive(&mut m, &shop);
    let map = m.site_map();
    let targets: Vec<&str> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.as_str())
        .collect();
    assert_eq!(targets.len(), PRODUCTS, "{targets:?}");
    // The fixture must put the variants on the way to the products: a sort's first page lists
    // products the plain first page does not.
    let fetched = |url: &str| {
        map.nodes
            .iter()
            .any(|n| n.url == url && n.state == NodeState::Page)
    };
    assert!(fetched("http://shop.test/catalogue?sort=price"));
    assert!(fetched("http://shop.test/catalogue?view=grid"));
    let pattern = crate::pattern::learn_from_map(map, m.config(), 0).expect("learns");
    let regexes: Vec<&String> = pattern.levels.iter().flat_map(|l| &l.regexes).collect();
    assert!(
        regexes
            .iter()
            .all(|r| !r.contains("sort") && !r.contains("view")),
        "{regexes:#?}"
    );
    let sim = crate::pattern::simulate(&pattern, map).expect("simulates");
    assert_eq!(sim.targets_reached, PRODUCTS);
    // Home, the catalogue's 5 pages, the products: no sorted or redrawn copy of a page.
    assert_eq!(sim.fetched, PRODUCTS + 6, "{regexes:#?}");
    assert_eq!(
        regexes[0], r"^http://shop\.test/catalogue(?:\?page=[0-9]+)?$",
        "the listing's level keeps the one parameter that matters"
    );
}
