//! Targets the page-kind model calls listing pages, for the review.
//!
//! A page built like the example but listing items is the classic wrong target: a quotes
//! site's `/page/N/` lists beside its author pages, a blog's `/tags/…` beside its posts, a
//! shop's category beside its products when the template is shared. Mapping records two signs:
//! the pages the page-kind model calls listings with confidence
//! ([`crate::map::SiteMap::listings`]), and the pages that page on ("Next", page numbers:
//! [`crate::map::SiteMap::paged`], [`crate::map::SiteMap::continued`]); the review flags the
//! targets with either and offers to leave them all out (as URL verdicts). Nothing is left out
//! unless the user says so, and a sign the example bears too flags nothing: then pages like it
//! are what the user asked for.

use std::collections::HashSet;

use crate::map::SiteMap;

/// The targets of `map` that look like listing pages, by URL: those the page-kind model calls
/// listings (unless it calls the example one too), and those that page on a listing or continue
/// one (unless the example does: item pages with "next item" links page on like listings). The
/// example and the pages the user judged like it (`like`, canonical URLs) are not listed.
pub fn targets(map: &SiteMap, like: &HashSet<&str>) -> Vec<u32> {
    let paged = |i: u32| map.paged.contains(&i) || map.continued.contains_key(&i);
    let example = map.canonical_example();
    let example_id = map.nodes.iter().position(|n| n.url == example);
    let (model, structure) = match example_id.map(|e| e as u32) {
        Some(e) => (!map.listings.contains(&e), !paged(e)),
        None => (true, true),
    };
    let mut out: Vec<u32> = map
        .targets()
        .filter(|&t| (model && map.listings.contains(&t)) || (structure && paged(t)))
        .filter(|&t| {
            let url = map.nodes[t as usize].url.as_str();
            url != example && !like.contains(url)
        })
        .collect();
    map.sort_by_url(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{Node, NodeState};

    fn map() -> SiteMap {
        let t = NodeState::Target;
        let mut nodes = vec![Node::scored("http://q.test/".into(), NodeState::Page, 0.2)];
        for url in [
            "/author/a/",
            "/author/b/",
            "/page/3/",
            "/page/2/",
            "/tag/x/",
        ] {
            nodes.push(Node::scored(format!("http://q.test{url}"), t.clone(), 0.9));
        }
        nodes.push(Node::scored(
            "http://q.test/about/".into(),
            NodeState::Page,
            0.4,
        ));
        SiteMap {
            entry: "http://q.test/".into(),
            example: "http://q.test/author/a/".into(),
            threshold: 0.8,
            nodes,
            // The lists of quotes, a tag page, and a page below θ (no target).
            listings: [3, 4, 5, 6].into(),
            ..SiteMap::default()
        }
    }

    #[test]
    fn targets_called_listings_are_flagged_unless_judged_like() {
        let m = map();
        let urls = |ids: Vec<u32>| -> Vec<String> {
            ids.iter()
                .map(|&i| m.nodes[i as usize].url.clone())
                .collect()
        };
        assert_eq!(
            urls(targets(&m, &HashSet::new())),
            [
                "http://q.test/page/2/",
                "http://q.test/page/3/",
                "http://q.test/tag/x/"
            ]
        );
        let like: HashSet<&str> = ["http://q.test/tag/x/"].into();
        assert_eq!(
            urls(targets(&m, &like)),
            ["http://q.test/page/2/", "http://q.test/page/3/"]
        );
    }

    #[test]
    fn targets_that_page_on_are_flagged_unless_the_example_does() {
        let mut m = map();
        m.listings.clear();
        // `/page/3/` has a "Next" link, `/page/2/` continues the entry.
        m.paged.insert(3);
        m.continued.insert(4, 0);
        let flagged = targets(&m, &HashSet::new());
        assert_eq!(flagged, [4, 3]);
        // An item with a "next item" link, as the example has: pages that page on are like it.
        m.paged.insert(1);
        assert!(targets(&m, &HashSet::new()).is_empty());
        // The model's sign still flags then.
        m.listings.insert(5);
        assert_eq!(targets(&m, &HashSet::new()), [5]);
    }

    #[test]
    fn nothing_is_flagged_when_the_example_is_a_listing_or_none_is() {
        let mut m = map();
        m.listings.insert(1);
        assert!(targets(&m, &HashSet::new()).is_empty());
        let mut m = map();
        m.listings.clear();
        assert!(targets(&m, &HashSet::new()).is_empty());
    }
}
