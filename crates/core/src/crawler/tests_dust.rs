//! The crawl under the pattern's rules for duplicate URLs (`crawler::dust`): copies avoided
//! once probes confirm a rule, none where the rule would lose a page.
use super::*;
use crate::dust::{DustRule, Rewrite};

fn rule(rewrite: Rewrite) -> DustRule {
    DustRule {
        rewrite,
        support: 3,
        samples: Vec::new(),
    }
}

/// A rule for duplicate URLs whose rewrite the pattern would not follow as it follows the link
/// (here a target rewritten out of the target level) is not taken: no page is lost to it. A
/// rule that rewrites a link into a URL already met avoids that fetch once probes have
/// confirmed it, and one the site refutes is not applied.
#[test]
fn rules_for_duplicate_urls_avoid_copies_and_lose_no_page() {
    let mut p = learn(12);
    p.dust_rules = vec![rule(Rewrite::Prefix {
        from: "/item/".into(),
        to: "/thing/".into(),
    })];
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run(c, 12, None);
    assert_eq!(targets.len(), 12, "{targets:?}");
    assert_eq!(c.progress().duplicates_avoided, 0);

    // Every list page also links its first item as `/item/N/` (a copy the site serves alike):
    // the pattern's target level follows both; the rule sends the copy to the URL met.
    let with_copies = |url: &str| match url.strip_suffix('/') {
        Some(item) if item.contains("/item/") => site(item, 12),
        _ => match site(url, 12) {
            FetchResult::Response(mut r) if url.contains("/list?p=") => {
                let first = url
                    .rsplit('=')
                    .next()
                    .and_then(|p| p.parse::<usize>().ok())
                    .unwrap_or(1);
                let copy = format!("<a href='/item/{}/'>again</a></body>", (first - 1) * 5 + 1);
                r.body = String::from_utf8_lossy(&r.body)
                    .replace("</body>", &copy)
                    .into_bytes();
                FetchResult::Response(r)
            }
            other => other,
        },
    };
    // The target level written to take both forms, as a person might: without the rule the
    // copies are fetched (and known as copies by their bytes), with it they are not.
    let last = p.levels.len() - 1;
    p.levels[last].regexes = vec![r"^http://mem\.test/item/[0-9]+/?$".into()];
    p.dust_rules = Vec::new();
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (plain, c) = run_on(c, &with_copies, None);
    let fetched = c.progress().fetched;
    p.dust_rules = vec![rule(Rewrite::DropSuffix { suffix: "/".into() })];
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run_on(c, &with_copies, None);
    assert_eq!(targets.len(), 12, "{targets:?}");
    assert_eq!(targets, plain);
    assert!(targets.iter().all(|t| !t.ends_with('/')), "{targets:?}");
    // One copy a list page, three list pages: the first two fetched as probes (each found the
    // item it names), the third not fetched.
    assert_eq!(c.state.dust[0].confirmed, DUST_PROBES);
    assert_eq!(c.progress().duplicates_avoided, 3 - DUST_PROBES as usize);
    assert_eq!(c.progress().fetched, fetched - 1);

    // The site changed since learning: `/item/N/` is now the item's comments, another page. The
    // probes find it so, the rule is refuted, nothing is skipped and the pages are collected.
    let changed = |url: &str| match url.strip_suffix('/') {
        Some(item) if item.contains("/item/") => {
            // Each its own words: no page signature makes one a copy of another.
            let n: usize = item
                .rsplit('/')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let words = ["first", "second", "third", "fourth", "fifth"]
                .iter()
                .cycle();
            let said: Vec<&str> = words.skip(n).take(3 + n % 4).copied().collect();
            html(format!(
                "<html><head><title>Comments on {item}</title></head><body><nav><a href='/'>home</a>\
                 </nav><div class=comments><h2>Comments</h2><p>{}</p></div></body></html>",
                said.join(" reader comment ")
            ))
        }
        _ => with_copies(url),
    };
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run_on(c, &changed, None);
    assert_eq!(c.progress().duplicate_rules_refuted, 1);
    assert_eq!(c.progress().duplicates_avoided, 0);
    assert_eq!(targets.len(), 12 + 3, "{targets:?}");
}

/// A site whose every link carries the linking page's session id (`?s=L1`) under a name the
/// canonical form does not know: list page `p` links its five items and the first two of the
/// next list page, so items 6, 7, 11, 12, ... are each linked under two session ids.
fn with_sessions(url: &str, items: usize) -> FetchResult {
    let path = url.trim_start_matches("http://mem.test");
    let bare = path.split("?s=").next().unwrap_or(path);
    let pages = items.div_ceil(5);
    match bare.strip_prefix("/list/") {
        Some(p) => {
            let p: usize = p.parse().unwrap_or(0);
            if p == 0 || p > pages {
                return site("http://mem.test/nowhere", items);
            }
            let links: String = ((p - 1) * 5 + 1..=(p * 5 + 2).min(items))
                .map(|i| format!("<li><a href='/item/{i}?s=L{p}'>item {i}</a></li>"))
                .collect();
            let next = if p < pages {
                format!("<a class=next href='/list/{}?s=L{p}'>next</a>", p + 1)
            } else {
                String::new()
            };
            html(format!(
                "<html><head><title>List {p}</title></head><body><nav><a href='/?s=L{p}'>home</a>\
                 </nav><ul class=items>{links}</ul>{next}</body></html>"
            ))
        }
        None if bare == "/" => html(
            "<html><head><title>Home</title></head><body><p>Welcome</p>\
             <a href='/list/1?s=H'>catalogue</a></body></html>"
                .into(),
        ),
        // An item links nothing with a session id: its bytes are one under every URL.
        None => site(&format!("http://mem.test{bare}"), items),
    }
}

/// The item number of an item URL, whatever its query.
fn item_of(url: &str) -> Option<usize> {
    url.split("/item/").nth(1)?.split('?').next()?.parse().ok()
}

/// The copies among the pages fetched: requests of a page (its URL without the session id)
/// already asked.
fn copies(asked: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    asked
        .iter()
        .filter(|u| !seen.insert(u.split("?s=").next().unwrap_or(u).to_string()))
        .cloned()
        .collect()
}

/// A session id every link carries: the pattern's regexes were learned on URLs with it, so the
/// URL without it is a form the pattern never saw. The rule is still taken, the link's own step
/// kept; a page fetched under a copy's URL while the rule was on probation is not fetched again
/// under its rewritten form, and a later link to the page under yet another session id is
/// skipped. Every item is collected once, and of the copies the crawl without the rule fetches,
/// the crawl with it fetches only its two probes.
#[test]
fn a_rule_dropping_a_session_id_every_link_carries_avoids_its_copies() {
    let items = 20;
    let asked = std::cell::RefCell::new(Vec::new());
    let sessions = |url: &str| {
        asked.borrow_mut().push(url.to_string());
        with_sessions(url, items)
    };
    let mut p = learn_on(&sessions, "http://mem.test/item/1?s=L1");
    let target = &p.levels[p.levels.len() - 1];
    assert!(
        target.regexes.iter().all(|r| r.contains("s=")),
        "learned on the session ids: {}",
        p.render()
    );
    p.dust_rules = Vec::new();
    asked.borrow_mut().clear();
    let c = Crawler::new(p.clone(), CrawlConfig::default(), None).expect("crawler");
    let (plain, _) = run_on(c, &sessions, None);
    let plain_copies = copies(&asked.borrow());
    let mut plain_items: Vec<usize> = plain.iter().filter_map(|u| item_of(u)).collect();
    plain_items.sort_unstable();
    plain_items.dedup();
    assert_eq!(plain_items, (1..=items).collect::<Vec<_>>());
    // Items 6, 7, 11, 12, 16 and 17 are linked from two list pages.
    let linked_twice = [6, 7, 11, 12, 16, 17];
    let mut twice: Vec<usize> = plain_copies.iter().filter_map(|u| item_of(u)).collect();
    twice.sort_unstable();
    assert_eq!(twice, linked_twice, "{plain_copies:?}");

    p.dust_rules = vec![rule(Rewrite::DropParam {
        name: "s".into(),
        value: None,
    })];
    asked.borrow_mut().clear();
    let c = Crawler::new(p, CrawlConfig::default(), None).expect("crawler");
    let (targets, c) = run_on(c, &sessions, None);
    let mut got: Vec<usize> = targets.iter().filter_map(|u| item_of(u)).collect();
    got.sort_unstable();
    assert_eq!(
        got,
        (1..=items).collect::<Vec<_>>(),
        "each item once: {targets:?}"
    );
    assert_eq!(c.state.dust[0].confirmed, DUST_PROBES);
    assert_eq!(c.progress().duplicate_rules_refuted, 0);
    let probes = copies(&asked.borrow());
    assert_eq!(
        probes.len(),
        DUST_PROBES as usize,
        "only the probes: {probes:?}"
    );
    assert_eq!(
        c.progress().duplicates_avoided,
        linked_twice.len() - DUST_PROBES as usize
    );
    assert!(
        targets.iter().any(|t| !t.contains("?s=")),
        "items first met once the rule was confirmed are fetched without the session id: \
         {targets:?}"
    );
}
