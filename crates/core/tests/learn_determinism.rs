//! One site, one pattern: the mapper and the crawler keep several requests in flight, and the
//! order their responses arrive in must not change what they do (which pages a budget admits,
//! which linking page is recorded as a page's parent, the pattern learned). The sans-IO machines
//! let the tests choose that order: real development sites (Debian documentation packages, read
//! from disk) are mapped and crawled in memory with eight requests in flight, answered at once
//! and in seeded random orders, and every order must give the same map, pattern and crawl.
//!
//! Skipped (with a notice) when the sites are not installed; `./build.sh setup` installs them.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

use exemplar_core::crawler::{CrawlConfig, Crawler, Event};
use exemplar_core::fetch::{FetchResponse, FetchResult, Machine, Politeness, Poll};
use exemplar_core::mapper::{ExamplePage, MapConfig, Mapper, NodeState, SiteMap};
use exemplar_core::pattern::{self, Level};
use exemplar_testkit::devsites;

/// A small deterministic generator (xorshift64*), so that a failing order can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

fn respond(pages: &HashMap<String, Vec<u8>>, url: &str) -> FetchResult {
    match pages.get(url) {
        Some(body) => FetchResult::Response(FetchResponse {
            status: 200,
            final_url: url.to_string(),
            headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
            body: body.clone(),
            truncated: false,
        }),
        None => FetchResult::Response(FetchResponse {
            status: 404,
            final_url: url.to_string(),
            headers: vec![("content-type".into(), "text/plain".into())],
            body: b"not found".to_vec(),
            truncated: false,
        }),
    }
}

/// Runs `m` with up to 8 requests in flight; `seed` None answers each request at once, otherwise
/// a random in-flight request is answered next. `after` sees the machine after every step (and
/// once more at the end: results are taken inside `poll`). Returns how many answers overtook
/// an older request still in flight: the orders must really differ for a test to prove anything.
fn drive<M: Machine>(
    m: &mut M,
    pages: &HashMap<String, Vec<u8>>,
    seed: Option<u64>,
    mut after: impl FnMut(&mut M),
) -> usize {
    let mut rng = Rng(seed.unwrap_or(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut in_flight: Vec<(u64, String)> = Vec::new();
    let mut now = 0;
    let mut overtaking = 0;
    for _ in 0..1_000_000 {
        let polled = m.poll(now);
        after(m);
        let answer_one = match polled {
            Poll::Fetch(r) => {
                in_flight.push((r.id, r.url));
                seed.is_none() || in_flight.len() >= 8
            }
            Poll::WaitUntil(t) => {
                if in_flight.is_empty() {
                    now = t;
                    false
                } else {
                    true
                }
            }
            Poll::Busy => true,
            Poll::Done => return overtaking,
        };
        if answer_one && !in_flight.is_empty() {
            let i = if seed.is_some() {
                rng.below(in_flight.len())
            } else {
                0
            };
            let (id, url) = in_flight.swap_remove(i);
            overtaking += usize::from(in_flight.iter().any(|(other, _)| *other < id));
            m.handle(id, respond(pages, &url), now);
            after(m);
            now += 1;
        }
    }
    panic!("the run did not finish");
}

/// Maps the site with up to 8 requests in flight (see [`drive`]); also returns the number of
/// answers that overtook an older request.
fn map_site(
    entry: &str,
    example: ExamplePage,
    pages: &HashMap<String, Vec<u8>>,
    seed: Option<u64>,
    max_pages: Option<usize>,
) -> (SiteMap, MapConfig, usize) {
    let default = MapConfig::default();
    let config = MapConfig {
        politeness: eight_in_flight(),
        max_pages: max_pages.unwrap_or(default.max_pages),
        ..default
    };
    let mut m = Mapper::new(entry, example, config).expect("mapper");
    let overtaking = drive(&mut m, pages, seed, |_| {});
    let config = m.config().clone();
    (m.into_site_map(), config, overtaking)
}

fn eight_in_flight() -> Politeness {
    Politeness {
        delay_ms: 0,
        max_in_flight: 8,
        max_in_flight_per_host: 8,
        ..Politeness::default()
    }
}

/// What must not change: the levels' regexes, pagination flags and counts, and the samples.
fn levels_of(map: &SiteMap, config: &MapConfig) -> Vec<Level> {
    pattern::learn_from_map(map, config, 0)
        .expect("learn")
        .levels
}

/// Nodes whose recorded parent differs between two maps (compared by URL).
fn parents_differing(a: &SiteMap, b: &SiteMap) -> usize {
    let parent_url = |m: &SiteMap| -> HashMap<String, Option<String>> {
        m.nodes
            .iter()
            .map(|n| {
                (
                    n.url.clone(),
                    n.parent.map(|p| m.nodes[p as usize].url.clone()),
                )
            })
            .collect()
    };
    let (pa, pb) = (parent_url(a), parent_url(b));
    pa.iter().filter(|(u, p)| pb.get(*u) != Some(*p)).count()
}

#[test]
fn the_order_responses_arrive_in_does_not_change_the_pattern() {
    let sites = match devsites::installed() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    // The two sites whose pattern changed from run to run before learning used the
    // breadth-first tree of the map instead of the parents recorded while mapping.
    for site in sites
        .iter()
        .filter(|s| s.name == "python311" || s.name == "commons-lang3")
    {
        same_pattern_in_every_order(site);
    }
}

/// Qt 5 (held out, `eval/heldout-sites.toml`) links many classes and module pages only from
/// other classes: pages met through targets, which the first breadth-first walk does not
/// expand; their recorded parents changed its pattern from run to run until the tree walked on
/// from the targets. Skipped when Qt's documentation is not installed (`./build.sh setup`
/// installs it).
#[test]
fn pages_met_only_through_targets_do_not_depend_on_the_order_either() {
    let sites =
        devsites::load(std::path::Path::new(devsites::HELDOUT_SITES)).expect("held-out sites");
    let Some(qt) = sites.iter().find(|s| s.name == "qt5" && s.available()) else {
        eprintln!("skipped: qt5 not installed (./build.sh setup installs it)");
        return;
    };
    same_pattern_in_every_order(qt);
}

/// A site's pages by URL, its entry URL and its example's URL.
fn load(site: &devsites::DevSite) -> (HashMap<String, Vec<u8>>, String, String) {
    let pages = site
        .pages()
        .expect("pages")
        .into_iter()
        .map(|p| (p.url, p.bytes))
        .collect();
    (pages, site.url(&site.entry), site.url(&site.example))
}

/// PostgreSQL's pages, entry and example ([`load`]); None, with a notice, when the development
/// sites are not installed.
fn postgres() -> Option<(HashMap<String, Vec<u8>>, String, String)> {
    let sites = match devsites::installed() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("skipped: {e}");
            return None;
        }
    };
    let site = sites
        .iter()
        .find(|s| s.name == "postgres15")
        .expect("postgres15 is a development site");
    Some(load(site))
}

fn example_page(pages: &HashMap<String, Vec<u8>>, url: &str) -> ExamplePage {
    ExamplePage {
        url: url.to_string(),
        body: pages[url].clone(),
        content_type: Some("text/html; charset=utf-8".into()),
    }
}

/// Maps `site` answering each request at once and in two random orders of eight requests in
/// flight: the same targets, the same recorded parents and the same learned levels every time.
/// (Learning was first made to give one pattern from differing parents; since results are
/// taken in the order they were asked for, the parents do not differ either.)
fn same_pattern_in_every_order(site: &devsites::DevSite) {
    let (pages, entry, example_url) = load(site);
    let example = || example_page(&pages, &example_url);
    let (sequential, config, _) = map_site(&entry, example(), &pages, None, None);
    let expected = levels_of(&sequential, &config);
    assert!(!expected.is_empty(), "{}", site.name);
    for seed in 1..=2 {
        let (map, config, overtaking) = map_site(&entry, example(), &pages, Some(seed), None);
        // Otherwise the test would prove nothing: answers did arrive out of order.
        assert!(
            overtaking > 0,
            "{} seed {seed}: answered in order",
            site.name
        );
        assert_eq!(
            map.targets().count(),
            sequential.targets().count(),
            "{} seed {seed}: the same pages are targets",
            site.name
        );
        assert_eq!(
            parents_differing(&sequential, &map),
            0,
            "{} seed {seed}: pages recorded under another parent ({overtaking} answers overtook)",
            site.name
        );
        assert_eq!(
            levels_of(&map, &config),
            expected,
            "{} seed {seed}: another pattern",
            site.name
        );
    }
}

/// A page budget smaller than the site: which pages fit in it is decided by what mapping asks
/// next, and that by the results it has taken — so results are taken in the order their
/// requests were issued, whatever order they arrive in. Before, rustdoc's standard library
/// (three times the budget) gave maps of 656 to 760 targets from run to run.
#[test]
fn a_site_larger_than_the_page_budget_gives_one_map_in_every_order() {
    let Some((pages, entry, example_url)) = postgres() else {
        return;
    };
    let example = || example_page(&pages, &example_url);
    // A graph by URL: each page's state and the pages it links.
    let graph = |m: &SiteMap| -> Vec<(String, String, Vec<String>)> {
        let mut g: Vec<_> = m
            .nodes
            .iter()
            .map(|n| {
                let links = n.links.iter().map(|&v| m.nodes[v as usize].url.clone());
                (n.url.clone(), format!("{:?}", n.state), links.collect())
            })
            .collect();
        g.sort();
        g
    };
    let budget = 300;
    // Answered at once, then in random orders of eight requests in flight.
    let (first, config, _) = map_site(&entry, example(), &pages, None, Some(budget));
    let fetched = first
        .nodes
        .iter()
        .filter(|n| matches!(n.state, NodeState::Page | NodeState::Target))
        .count();
    // (The budget counts requests asked: the ones in flight never overrun it.)
    assert!(
        fetched <= budget && fetched > budget - 20 && pages.len() > 2 * budget,
        "the budget cuts the site short: {fetched} fetched of {}",
        pages.len()
    );
    let expected = graph(&first);
    let levels = levels_of(&first, &config);
    for seed in 1..=3 {
        let (map, config, overtaking) =
            map_site(&entry, example(), &pages, Some(seed), Some(budget));
        assert!(overtaking > 0, "order {seed}: answered in order");
        let got = graph(&map);
        let differ = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
        let first = got.iter().zip(&expected).find(|(a, b)| a != b);
        assert!(
            differ == 0 && got.len() == expected.len(),
            "order {seed}: another map ({} pages against {}; {differ} differ, first {:?}; {overtaking} answers overtook)",
            got.len(),
            expected.len(),
            first.map(|(a, b)| (&a.0, &a.1, &b.0, &b.1))
        );
        assert_eq!(
            levels_of(&map, &config),
            levels,
            "order {seed}: another pattern"
        );
    }
}

/// The crawler takes results in the order it asked for them too: a crawl cut short by its page
/// budget collects the same pages, in the same order, whatever order responses arrive in.
/// PostgreSQL's pattern is learned from a full map; the crawl may fetch 120 of its 1,169 pages.
#[test]
fn a_crawl_cut_short_by_its_budget_is_the_same_in_every_order() {
    let Some((pages, entry, example_url)) = postgres() else {
        return;
    };
    let (map, config, _) = map_site(
        &entry,
        example_page(&pages, &example_url),
        &pages,
        None,
        None,
    );
    let pattern = pattern::learn_from_map(&map, &config, 0).expect("learn");
    let budget = 120;
    // Every event of the crawl, in order (what a user sees and exports).
    let crawl = |seed: Option<u64>| -> (Vec<String>, usize) {
        let config = CrawlConfig {
            max_pages: budget,
            politeness: Some(eight_in_flight()),
            ..CrawlConfig::default()
        };
        let mut c = Crawler::new(pattern.clone(), config, None).expect("crawler");
        let mut log = Vec::new();
        let overtaking = drive(&mut c, &pages, seed, |c| {
            log.extend(c.drain_events().into_iter().map(|e| match e {
                Event::Target(t) => format!("target {}", t.url),
                Event::Page { url, level, .. } => format!("page {level} {url}"),
                Event::Skipped { url, reason } => format!("skipped {url}: {reason}"),
                other => format!("{other:?}"),
            }));
        });
        // The budget counts requests asked: never overrun by the ones in flight.
        assert_eq!(c.progress().requests(), budget, "pages and sitemaps asked");
        (log, overtaking)
    };
    let (expected, _) = crawl(None);
    let targets = expected.iter().filter(|e| e.starts_with("target ")).count();
    assert!(
        targets > 50 && targets < site_targets(&map),
        "the budget cuts the crawl short: {targets} targets of {}",
        site_targets(&map)
    );
    for seed in 1..=3 {
        let (got, overtaking) = crawl(Some(seed));
        assert!(overtaking > 0, "order {seed}: answered in order");
        let first = got.iter().zip(&expected).position(|(a, b)| a != b);
        assert!(
            got == expected,
            "order {seed}: another crawl ({} events against {}; first difference at {first:?}: {:?} / {:?}; {overtaking} answers overtook)",
            got.len(),
            expected.len(),
            first.map(|i| &got[i]),
            first.map(|i| &expected[i]),
        );
    }
}

fn site_targets(map: &SiteMap) -> usize {
    map.targets().count()
}
