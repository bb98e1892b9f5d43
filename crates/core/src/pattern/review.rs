//! The review after learning: the pages a user should look at before trusting a pattern. On
//! one side the pages just below θ that may be missed targets ([`near_misses`]), on the other
//! the targets that may not be what the user wants ([`doubtful_targets`]): a similarity says how
//! alike two page *structures* are, and generators build several kinds of page (a class and an
//! interface, a class and a namespace) from one template, so the user's verdicts
//! ([`super::Corrections`]) settle what θ cannot. Each list carries the URL evidence: whether a
//! page's URL is shaped like the targets' or like the pages judged unlike the example; the
//! targets learning took below θ for their heading ([`crate::review::heading`]) come first among the
//! targets to check.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::Corrections;
use crate::map::{NodeState, SiteMap};
use crate::url_pattern;

/// A fetched page just below θ, for the user to judge ([`near_misses`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NearMiss {
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its main heading (empty when none): what names it where every page has one title.
    #[serde(default)]
    pub heading: String,
    /// Its similarity to the example.
    pub similarity: f32,
    /// Its URL has the shape of the targets' URLs (a generalisation of a group of target URLs,
    /// made without looking at non-targets, matches it): a likelier missed target than a page
    /// whose URL is of another kind.
    pub url_like_targets: bool,
}

/// The `n` fetched pages most similar to the example below θ ([`SiteMap::near_misses`]) that the
/// user has not already judged unlike it (`corrections`: by URL, by the language the page
/// declares, by the directory it lies in), each with whether its URL looks like the targets'.
/// On a manual shipped in nine languages, the pages just below θ are mostly translations of
/// pages just below θ in the example's language: with the other languages left out, listing
/// them would ask the same question again.
pub fn near_misses(map: &SiteMap, corrections: &Corrections, n: usize) -> Vec<NearMiss> {
    let shapes = TargetShapes::of(map);
    let judged: HashSet<&str> = corrections.unlike.iter().map(String::as_str).collect();
    let judged_unlike = |id: &u32| {
        let node = &map.nodes[*id as usize];
        judged.contains(node.url.as_str()) || corrections.leave_out(node)
    };
    map.near_misses(usize::MAX)
        .into_iter()
        .filter(|id| !judged_unlike(id))
        .take(n)
        .map(|id| {
            let node = &map.nodes[id as usize];
            NearMiss {
                url: node.url.clone(),
                title: node.title.clone(),
                heading: node.heading.clone(),
                similarity: node.similarity.unwrap_or(0.0),
                url_like_targets: shapes.matches(&node.url),
            }
        })
        .collect()
}

/// The shapes of the targets' URLs: a generalisation of each group of two or more target URLs
/// ([`url_pattern::group`]), made without looking at non-targets.
struct TargetShapes(Vec<regex::Regex>);

impl TargetShapes {
    fn of(map: &SiteMap) -> TargetShapes {
        let mut targets: Vec<&str> = map
            .targets()
            .map(|t| map.nodes[t as usize].url.as_str())
            .collect();
        // Grouping depends on the order of its input; node ids follow the order responses
        // arrived.
        targets.sort_unstable();
        TargetShapes(
            url_pattern::group(&targets, url_pattern::DEFAULT_K)
                .iter()
                .filter(|g| g.len() >= 2)
                .filter_map(|g| {
                    let urls: Vec<&str> = g.iter().map(|&i| targets[i]).collect();
                    url_pattern::url_pattern(&urls)?.compile().ok()
                })
                .collect(),
        )
    }

    fn matches(&self, url: &str) -> bool {
        let normalized = url_pattern::normalize(url).unwrap_or_else(|| url.to_string());
        self.0.iter().any(|r| r.is_match(&normalized))
    }
}

/// A clear gap in the scores below θ ([`threshold_gap`]): the pages between it and θ go on from
/// the targets' scores with no gap of their own and have the targets' URL shape; the pages below
/// it are far from all of them. A θ of the wrong height for the site, most likely: 285 of R's
/// help pages score from 0.689 to θ, the nearest page of another kind 0.523.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdGap {
    /// A θ that takes the pages above the gap: 0.05 under the lowest of them, or the middle of
    /// the gap when that is higher; two decimals.
    pub threshold: f64,
    /// The lowest score above the gap.
    pub lowest_above: f32,
    /// The highest score below it.
    pub highest_below: f32,
    /// The pages between the gap and θ.
    pub pages: usize,
    /// Of those, pages whose URL is shaped like the targets' (at least 90% of them: a package
    /// the targets' URLs did not show, `stats4` among `base`, `utils`…, may not be).
    pub url_like_targets: usize,
}

/// Fewest pages between a gap and θ for [`threshold_gap`]: a page or two is the near misses'
/// business.
const GAP_MIN_PAGES: usize = 5;
/// Narrowest gap [`threshold_gap`] reports.
const GAP_MIN_WIDTH: f32 = 0.08;
/// How many times wider than any gap above it (between the lowest target and the pages below
/// θ) a gap [`threshold_gap`] reports must be.
const GAP_MIN_RATIO: f32 = 3.0;
/// Least share of the pages above the gap whose URL is shaped like the targets'.
const GAP_MIN_SHAPED: f64 = 0.9;
/// How far under the lowest page above a gap the θ [`threshold_gap`] suggests lies.
const GAP_MARGIN: f64 = 0.05;
/// How far below θ [`threshold_gap`] looks.
const GAP_MAX_DEPTH: f64 = 0.3;

/// The first clear gap in the scores of the fetched pages below θ ([`ThresholdGap`]), when
/// nearly every page above it has a URL shaped like the targets' and none was judged unlike the
/// example (`corrections`). `None` on most sites: a suggestion for the user, who judges whether
/// the pages above the gap are what they want (`relearn --threshold`).
pub fn threshold_gap(map: &SiteMap, corrections: &Corrections) -> Option<ThresholdGap> {
    let lowest_target = map
        .targets()
        .filter_map(|t| map.nodes[t as usize].similarity)
        .filter(|&s| f64::from(s) >= map.threshold)
        .min_by(f32::total_cmp)?;
    let below = map.near_misses(usize::MAX);
    let score = |id: u32| map.nodes[id as usize].similarity.unwrap_or(0.0);
    // The scores alone first: on most sites there is no gap, and the URL shapes are not needed.
    let mut widest_above = 0f32;
    let mut prev = lowest_target;
    let mut cut = None;
    for (i, &id) in below.iter().enumerate() {
        let s = score(id);
        let gap = prev - s;
        if i >= GAP_MIN_PAGES && gap >= GAP_MIN_WIDTH && gap >= GAP_MIN_RATIO * widest_above {
            cut = Some((i, prev, s));
            break;
        }
        if f64::from(s) < map.threshold - GAP_MAX_DEPTH {
            return None;
        }
        widest_above = widest_above.max(gap);
        prev = s;
    }
    let (pages, lowest_above, highest_below) = cut?;
    let above: Vec<&str> = below[..pages]
        .iter()
        .map(|&id| map.nodes[id as usize].url.as_str())
        .collect();
    if above
        .iter()
        .any(|u| corrections.unlike.iter().any(|j| j == u))
    {
        return None;
    }
    let shapes = TargetShapes::of(map);
    let shaped = above.iter().filter(|u| shapes.matches(u)).count();
    // Near the pages it takes: a verifying crawl judges new pages by it, and nothing was seen
    // lower down to say how far the kind reaches.
    let threshold =
        (f64::from(lowest_above) - GAP_MARGIN).max(f64::from(lowest_above + highest_below) / 2.0);
    (shaped as f64 >= GAP_MIN_SHAPED * pages as f64).then(|| ThresholdGap {
        threshold: (threshold * 100.0).round() / 100.0,
        lowest_above,
        highest_below,
        pages,
        url_like_targets: shaped,
    })
}

/// A target the user may want to check ([`doubtful_targets`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Doubtful {
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its main heading (empty when none).
    #[serde(default)]
    pub heading: String,
    /// Its similarity to the example.
    pub similarity: f32,
    /// Most fetched pages whose URL differs from its URL in one word or number are not targets
    /// (`iface.Editable.html` among `iface.*.html` pages that are mostly below θ): a page of
    /// another kind that the template makes look like the example.
    pub url_unlike_targets: bool,
    /// Learning took it below θ because its main heading names the targets' kind
    /// ([`super::Pattern::by_heading`]): the one decision not made by the similarity.
    #[serde(default)]
    pub by_heading: bool,
    /// The entry page, a target because it is like the example ([`super::Pattern::entry_target`]):
    /// navigation starts there whatever the user judges, and the crawl collects it unless judged
    /// unlike the example.
    #[serde(default)]
    pub entry: bool,
}

/// How many targets to check the review lists (`exemplar learn`, the extension's panel, the
/// simulated review of `exemplar-eval eval`).
pub const DOUBTFUL_SHOWN: usize = 20;

/// Fewest other fetched pages sharing a target's URL shape before that shape counts as
/// evidence against it: two or three pages say nothing about a kind.
const MIN_SHAPE_PAGES: usize = 4;

/// The `n` targets most worth checking: first the entry page when the pattern collects it
/// (`entry_target`, [`Doubtful::entry`]: the one target mapping did not judge among the others),
/// then those learning took for their heading (`by_heading`, [`Doubtful::by_heading`]), then
/// those whose URL shape is mostly held by pages judged unlike the example
/// ([`Doubtful::url_unlike_targets`]), then the least similar, each group from the least similar
/// up. The example itself and the pages the user has already judged like it (`corrections`) are
/// not listed.
pub fn doubtful_targets(
    map: &SiteMap,
    corrections: &Corrections,
    by_heading: &[String],
    entry_target: bool,
    n: usize,
) -> Vec<Doubtful> {
    let mut judged: HashSet<&str> = corrections.like.iter().map(String::as_str).collect();
    // Pages of a kind the user judged like the example are judged too.
    if !corrections.like_headings.is_empty() {
        let kinds: HashSet<&str> = corrections
            .like_headings
            .iter()
            .map(String::as_str)
            .collect();
        let t = crate::review::heading::Templates::of(map);
        judged.extend(
            map.targets()
                .filter(|&i| t.template(i).is_some_and(|k| kinds.contains(k)))
                .map(|i| map.nodes[i as usize].url.as_str()),
        );
    }
    let by_heading: HashSet<&str> = by_heading.iter().map(String::as_str).collect();
    let example = map.canonical_example();
    let shapes = ShapeCounts::of(map);
    let mut targets: Vec<Doubtful> = map
        .targets()
        .map(|t| &map.nodes[t as usize])
        .filter(|node| node.url != example && !judged.contains(node.url.as_str()))
        .map(|node| Doubtful {
            url: node.url.clone(),
            title: node.title.clone(),
            heading: node.heading.clone(),
            similarity: node.similarity.unwrap_or(0.0),
            url_unlike_targets: shapes.mostly_non_targets(&node.url),
            by_heading: by_heading.contains(node.url.as_str()),
            entry: false,
        })
        .collect();
    if let Some(node) = map
        .nodes
        .first()
        .filter(|node| entry_target && node.url != example && !judged.contains(node.url.as_str()))
    {
        targets.push(Doubtful {
            url: node.url.clone(),
            title: node.title.clone(),
            heading: node.heading.clone(),
            similarity: node.similarity.unwrap_or(0.0),
            url_unlike_targets: false,
            by_heading: false,
            entry: true,
        });
    }
    targets.sort_by(|a, b| {
        b.entry
            .cmp(&a.entry)
            .then_with(|| b.by_heading.cmp(&a.by_heading))
            .then_with(|| b.url_unlike_targets.cmp(&a.url_unlike_targets))
            .then_with(|| a.similarity.total_cmp(&b.similarity))
            .then_with(|| a.url.cmp(&b.url))
    });
    targets.truncate(n);
    targets
}

/// For every way of blanking one word or number of a URL (its tokens, [`url_pattern::tokenize`]),
/// how many fetched pages and how many targets have that URL with that token blanked: the pages
/// whose URL differs from a given one in exactly that token, itself included.
struct ShapeCounts {
    counts: HashMap<String, (usize, usize)>,
}

impl ShapeCounts {
    fn of(map: &SiteMap) -> ShapeCounts {
        let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
        let judged = map
            .nodes
            .iter()
            .filter(|node| matches!(node.state, NodeState::Page | NodeState::Target))
            .filter(|node| node.similarity.is_some());
        for node in judged {
            let target = usize::from(node.state == NodeState::Target);
            for key in url_pattern::one_token_variants(&node.url, false) {
                let c = counts.entry(key).or_default();
                c.0 += 1;
                c.1 += target;
            }
        }
        ShapeCounts { counts }
    }

    /// Whether the other pages whose URL differs from this target's in one token number at
    /// least [`MIN_SHAPE_PAGES`] and are mostly not targets. A page differing in one token is
    /// counted once: it matches only the key blanking that token.
    fn mostly_non_targets(&self, url: &str) -> bool {
        let (mut pages, mut targets) = (0usize, 0usize);
        for key in url_pattern::one_token_variants(url, false) {
            if let Some(&(p, t)) = self.counts.get(&key) {
                // Less this target itself.
                pages += p.saturating_sub(1);
                targets += t.saturating_sub(1);
            }
        }
        pages >= MIN_SHAPE_PAGES && 2 * targets < pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Node;

    fn node(url: &str, state: NodeState, similarity: f32) -> Node {
        Node::scored(format!("http://docs.test/{url}"), state, similarity)
    }

    /// A gi-docgen-like site: class pages (targets), interface pages that the template makes
    /// look like them (one above θ, most below) and struct pages mostly above θ.
    fn docs() -> SiteMap {
        let (t, p) = (NodeState::Target, NodeState::Page);
        let mut nodes = vec![node("index.html", p.clone(), 0.5)];
        for (i, name) in ["Button", "Label", "Window", "Entry", "Grid"]
            .iter()
            .enumerate()
        {
            nodes.push(node(
                &format!("class.{name}.html"),
                t.clone(),
                0.95 - i as f32 * 0.01,
            ));
        }
        nodes.push(node("iface.Editable.html", t.clone(), 0.94));
        for name in ["Actionable", "Orientable", "Root", "Native"] {
            nodes.push(node(&format!("iface.{name}.html"), p.clone(), 0.86));
        }
        for name in ["Border", "Bitset", "TreeIter"] {
            nodes.push(node(&format!("struct.{name}.html"), t.clone(), 0.88));
        }
        nodes.push(node("struct.Requisition.html", p.clone(), 0.85));
        nodes.push(node("method.Button.clicked.html", p.clone(), 0.7));
        SiteMap {
            entry: "http://docs.test/index.html".into(),
            example: "http://docs.test/class.Button.html".into(),
            threshold: 0.875,
            nodes,
            ..SiteMap::default()
        }
    }

    /// A help site like R's: topic pages from 0.95 down to 0.66 with no gap among them, the
    /// targets above θ and `below` more under it down to 0.66; the news and an index far below.
    fn help_site(below: usize) -> SiteMap {
        let (t, p) = (NodeState::Target, NodeState::Page);
        let mut nodes = vec![node("index.html", p.clone(), 0.4)];
        for i in 0..12 {
            let score = 0.95 - 0.006 * i as f32;
            nodes.push(node(&format!("html/topic{i}.html"), t.clone(), score));
        }
        for i in 0..below {
            let score = 0.87 - 0.21 * i as f32 / (below - 1) as f32;
            nodes.push(node(
                &format!("html/topic{}.html", 12 + i),
                p.clone(),
                score,
            ));
        }
        nodes.push(node("news.html", p.clone(), 0.52));
        nodes.push(node("html/00Index.html", p.clone(), 0.45));
        SiteMap {
            entry: "http://docs.test/index.html".into(),
            example: "http://docs.test/html/topic0.html".into(),
            threshold: 0.875,
            nodes,
            ..SiteMap::default()
        }
    }

    #[test]
    fn a_clear_gap_below_theta_is_reported_with_the_theta_that_takes_the_pages_above_it() {
        let map = help_site(40);
        let gap = threshold_gap(&map, &Corrections::default()).expect("a gap");
        let below = map.near_misses(usize::MAX).len();
        assert_eq!(below, 40 + 2);
        assert_eq!((gap.pages, gap.url_like_targets), (40, 40));
        assert!((gap.lowest_above - 0.66).abs() < 1e-4, "{gap:?}");
        assert!((gap.highest_below - 0.52).abs() < 1e-4, "{gap:?}");
        // 0.05 under the lowest page above the gap, over its middle (0.59); two decimals.
        assert_eq!(gap.threshold, 0.61);
        // A narrow gap: its middle.
        let mut narrow = map.clone();
        for n in narrow
            .nodes
            .iter_mut()
            .filter(|n| n.url.ends_with("news.html"))
        {
            n.similarity = Some(0.57);
        }
        let gap = threshold_gap(&narrow, &Corrections::default()).expect("a gap");
        assert_eq!((gap.threshold, gap.pages), (0.62, 40));

        // Too few pages above the gap: the near misses show them.
        assert_eq!(threshold_gap(&help_site(3), &Corrections::default()), None);
        // A page above it judged unlike the example: no suggestion.
        let judged = Corrections {
            unlike: vec!["http://docs.test/html/topic30.html".into()],
            ..Corrections::default()
        };
        assert_eq!(threshold_gap(&map, &judged), None);
        // Pages above it with URLs of another shape: no suggestion.
        let mut others = map.clone();
        for n in others
            .nodes
            .iter_mut()
            .filter(|n| n.state == NodeState::Page)
        {
            n.url = n.url.replace("html/topic", "news/item-");
        }
        assert_eq!(threshold_gap(&others, &Corrections::default()), None);
        // A gap (0.61 to 0.52) under three times as wide as one above it (0.80 to 0.75): none.
        let mut steps = map.clone();
        for n in steps
            .nodes
            .iter_mut()
            .filter(|n| n.state == NodeState::Page)
        {
            if n.similarity.is_some_and(|s| s < 0.8 && s > 0.6) {
                n.similarity = n.similarity.map(|s| s - 0.04);
            }
        }
        assert_eq!(threshold_gap(&steps, &Corrections::default()), None);
    }

    fn urls(list: &[Doubtful]) -> Vec<&str> {
        list.iter()
            .map(|d| d.url.trim_start_matches("http://docs.test/"))
            .collect()
    }

    #[test]
    fn a_target_among_pages_of_its_url_shape_below_theta_comes_first() {
        let map = docs();
        let list = doubtful_targets(&map, &Corrections::default(), &[], false, 100);
        assert_eq!(
            urls(&list),
            [
                // Four of its five iface.* neighbours are below θ.
                "iface.Editable.html",
                // Then every other target, the least similar first; structs are mostly targets,
                // so their shape says nothing against them.
                "struct.Bitset.html",
                "struct.Border.html",
                "struct.TreeIter.html",
                "class.Grid.html",
                "class.Entry.html",
                "class.Window.html",
                "class.Label.html",
            ]
        );
        assert!(list[0].url_unlike_targets);
        assert!(list[1..].iter().all(|d| !d.url_unlike_targets));
        assert!(
            !urls(&list).contains(&"class.Button.html"),
            "the example is not for review"
        );
        let mut given = map.clone();
        given.example = "http://docs.test/class.Button.html#top".into();
        assert_eq!(
            doubtful_targets(&given, &Corrections::default(), &[], false, 100),
            list
        );
        assert_eq!(
            urls(&doubtful_targets(
                &map,
                &Corrections::default(),
                &[],
                false,
                2
            )),
            urls(&list)[..2]
        );
    }

    /// The entry page, when the pattern collects it, is listed first: mapping did not judge it
    /// among the targets. Not when the user judged it like the example, nor when it is the
    /// example.
    #[test]
    fn an_entry_taken_as_a_target_is_listed_first() {
        let mut map = docs();
        map.nodes[0].similarity = Some(0.9);
        let list = doubtful_targets(&map, &Corrections::default(), &[], true, 100);
        assert_eq!(urls(&list)[0], "index.html");
        assert!(list[0].entry && list[1..].iter().all(|d| !d.entry));
        assert_eq!(list[0].similarity, 0.9);
        assert_eq!(
            urls(&list)[1..],
            urls(&doubtful_targets(
                &map,
                &Corrections::default(),
                &[],
                false,
                100
            ))[..]
        );
        let liked = Corrections {
            like: vec!["http://docs.test/index.html".into()],
            ..Corrections::default()
        };
        assert!(
            !doubtful_targets(&map, &liked, &[], true, 100)
                .iter()
                .any(|d| d.entry)
        );
        map.example = "http://docs.test/index.html".into();
        assert!(
            !doubtful_targets(&map, &Corrections::default(), &[], true, 100)
                .iter()
                .any(|d| d.entry)
        );
    }

    /// Pages below θ in a language or a directory judged unlike the example's are not near
    /// misses to ask about: the verdict was given.
    #[test]
    fn near_misses_leave_out_the_languages_and_directories_judged_unlike() {
        let mut map = help_site(10);
        let listed = |map: &SiteMap, c: &Corrections| -> Vec<String> {
            near_misses(map, c, 4)
                .into_iter()
                .map(|n| n.url.trim_start_matches("http://docs.test/").to_string())
                .collect()
        };
        let all = listed(&map, &Corrections::default());
        assert_eq!(
            all,
            [
                "html/topic12.html",
                "html/topic13.html",
                "html/topic14.html",
                "html/topic15.html"
            ]
        );
        // The two most similar (nodes 13 and 14) declare French; the third lies in another
        // directory.
        for (i, lang) in [(13, "fr"), (14, "fr"), (15, "en")] {
            map.nodes[i].lang = lang.into();
        }
        map.nodes[15].url = "http://docs.test/guide/topic14.html".into();
        let c = Corrections {
            unlike_languages: vec!["fr".into()],
            unlike_directories: vec!["http://docs.test/guide/".into()],
            ..Corrections::default()
        };
        assert_eq!(
            listed(&map, &c),
            [
                "html/topic15.html",
                "html/topic16.html",
                "html/topic17.html",
                "html/topic18.html"
            ]
        );
    }

    #[test]
    fn pages_judged_like_the_example_are_not_listed_again() {
        let map = docs();
        let corrections = Corrections {
            like: vec!["http://docs.test/iface.Editable.html".into()],
            ..Corrections::default()
        };
        let list = doubtful_targets(&map, &corrections, &[], false, 100);
        assert!(!urls(&list).contains(&"iface.Editable.html"));
        assert_eq!(list.len(), 7);
    }

    #[test]
    fn a_shape_of_too_few_pages_is_no_evidence() {
        let mut map = docs();
        // Only three other iface pages: below MIN_SHAPE_PAGES.
        map.nodes.retain(|n| !n.url.ends_with("iface.Native.html"));
        let list = doubtful_targets(&map, &Corrections::default(), &[], false, 100);
        assert!(list.iter().all(|d| !d.url_unlike_targets));
        assert_eq!(urls(&list)[0], "struct.Bitset.html");
    }

    #[test]
    fn a_one_word_file_name_among_pages_below_theta_is_not_marked() {
        let mut map = docs();
        for name in ["tutorial", "install", "faq", "news", "license"] {
            map.nodes
                .push(node(&format!("{name}.html"), NodeState::Page, 0.6));
        }
        map.nodes.push(node("pgbench.html", NodeState::Target, 0.9));
        let list = doubtful_targets(&map, &Corrections::default(), &[], false, 100);
        let pgbench = list.iter().find(|d| d.url.ends_with("/pgbench.html"));
        assert!(pgbench.is_some_and(|d| !d.url_unlike_targets), "{list:?}");
    }
}
