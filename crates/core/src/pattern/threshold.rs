//! θ for a site where mapping's θ judged no page but the example similar to it.
//!
//! The default θ was calibrated on sites whose page kinds differ in their top-level layout. On a
//! site whose pages put their content straight under `body` (SQLite's C interface pages, a
//! `blockquote`, paragraphs and lists each), an example rich in sections outweighs every page of
//! its own kind with the sections they lack: they score 0.67–0.85, the example alone reaches
//! 0.875, and learning would have nothing to learn from, although the scores still rank the
//! pages of the example's kind above the others. A learning run that would end so takes θ
//! from the scores instead — Otsu's cut of the fetched pages' similarities
//! ([`similarity::auto_threshold`]) — and says so; the user judges the targets it gives as any
//! others. Only the default θ mapping ran with is replaced so; a θ the user chose (`exemplar
//! learn --threshold`, `relearn --threshold`, the panel's θ) never is: `learn` then names the cut.
//! Which directories hold look-alikes (the place weight) stays decided at mapping's θ
//! ([`relabelled`]).

use serde::{Deserialize, Serialize};

use crate::map::{NodeState, SiteMap};
use crate::similarity;

/// Fewest scored pages (besides the example) a θ is taken from: a handful of scores says
/// nothing about where a kind ends.
const MIN_SCORED: usize = 20;
/// Fewest pages the lowered θ must take besides the example: one page more is not a kind.
const MIN_TAKEN: usize = 2;
/// Lowest θ taken: below it the "kind" would be most of a site's pages by chance.
const LOWEST: f64 = 0.5;
/// Least share of the scores' variance the cut must explain (between the two groups): an even
/// spread of scores gives 0.75, whatever its range, and two groups more.
const MIN_SEPARATION: f64 = 0.8;

/// θ lowered from mapping's because only the example reached it ([`lowered_threshold`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoweredThreshold {
    /// The θ mapping judged pages by.
    pub from: f64,
    /// The θ learning takes: Otsu's cut of the scores, to three decimals.
    pub to: f64,
    /// The pages at or above it besides the example.
    pub pages: usize,
    /// The fetched pages whose scores it was cut from (the example left out).
    pub scored: usize,
}

/// The θ to learn at when no page but the example reached the θ `map` was mapped with, if the
/// scores of the fetched pages have a cut between 0.5 and that θ that takes at least two more
/// pages out of at least twenty scored and explains at least 80% of their variance (two groups,
/// not an even spread). `None` whenever another page is a target already, on maps too small to
/// judge.
pub fn lowered_threshold(map: &SiteMap) -> Option<LoweredThreshold> {
    let example = map.canonical_example();
    let is_example = |url: &str| url == example || url == map.example;
    if map
        .targets()
        .any(|t| !is_example(&map.nodes[t as usize].url))
    {
        return None;
    }
    // Every fetched HTML page as mapping scored it, the entry included (it is a page of the
    // site), the example left out (it scores 1 against itself whatever the site).
    let scores: Vec<f64> = map
        .nodes
        .iter()
        .filter(|n| matches!(n.state, NodeState::Page | NodeState::Target) && !is_example(&n.url))
        .filter_map(|n| n.similarity.map(f64::from))
        .collect();
    if scores.len() < MIN_SCORED {
        return None;
    }
    let to = rounded(similarity::auto_threshold(&scores));
    if !(LOWEST..map.threshold).contains(&to) {
        return None;
    }
    let pages = scores.iter().filter(|&&s| s >= to).count();
    (pages >= MIN_TAKEN && separation(&scores, to) >= MIN_SEPARATION).then_some(LoweredThreshold {
        from: map.threshold,
        to,
        pages,
        scored: scores.len(),
    })
}

/// A cut to three decimals, rounded down so that no page it takes falls below it.
fn rounded(cut: f64) -> f64 {
    (cut * 1000.0).floor() / 1000.0
}

/// The share of the variance of `scores` between the groups below and at or above `cut`
/// (Otsu's criterion, normalised): 1 for two tight groups far apart, 0 when all are equal.
fn separation(scores: &[f64], cut: f64) -> f64 {
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let total = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n;
    let (above, below): (Vec<f64>, Vec<f64>) = scores.iter().partition(|&&s| s >= cut);
    if total <= 0.0 || above.is_empty() || below.is_empty() {
        return 0.0;
    }
    let mean_of = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (w1, w0) = (above.len() as f64 / n, below.len() as f64 / n);
    w0 * w1 * (mean_of(&above) - mean_of(&below)).powi(2) / total
}

/// The map to learn from at the map's own θ: relabelled at the lowered θ when
/// [`lowered_threshold`] gives one (with that θ), as it is otherwise.
pub fn at_learning_threshold(map: SiteMap) -> (SiteMap, Option<LoweredThreshold>) {
    match lowered_threshold(&map) {
        // As `relabelled` does, the map being as mapped.
        Some(lowered) => (
            map.with_threshold_placed_at(lowered.to, map.threshold),
            Some(lowered),
        ),
        None => (map, None),
    }
}

/// `map` (as mapped) relabelled at `threshold` ([`SiteMap::with_threshold`]), for learning at a
/// θ the user chose or at the lowered one. When only the example reached mapping's θ, which
/// directories hold look-alikes stays decided at mapping's θ, whatever θ is learned at: at the
/// θ the scores give ([`lowered_threshold`]) a directory of another kind easily holds three pages
/// that score as much before the place weight as the example's kind after it (SQLite's pages
/// about the library beside its C interface pages), and the cut was taken from the scores as
/// mapping weighted them. Learning and relearning at the pattern's θ label the same pages.
pub fn relabelled(map: &SiteMap, threshold: f64) -> SiteMap {
    let place_at = if lowered_threshold(map).is_some() {
        map.threshold
    } else {
        threshold
    };
    map.with_threshold_placed_at(threshold, place_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Node;

    fn node(url: &str, state: NodeState, similarity: f32) -> Node {
        Node::scored(format!("http://sql.test/{url}"), state, similarity)
    }

    /// A site like SQLite's documentation: the example interface page alone above θ, the
    /// other interface pages from 0.84 down to 0.72, the other pages from 0.64 down to 0.50.
    fn flat_site(interfaces: usize, others: usize) -> SiteMap {
        let p = NodeState::Page;
        let mut nodes = vec![node("index.html", p.clone(), 0.45)];
        nodes.push(node("c3ref/open.html", NodeState::Target, 1.0));
        for i in 0..interfaces {
            let s = 0.84 - 0.12 * i as f32 / interfaces.max(2) as f32;
            nodes.push(node(&format!("c3ref/f{i}.html"), p.clone(), s));
        }
        for i in 0..others {
            let s = 0.64 - 0.14 * i as f32 / others.max(2) as f32;
            nodes.push(node(&format!("doc{i}.html"), p.clone(), s));
        }
        SiteMap {
            entry: "http://sql.test/index.html".into(),
            example: "http://sql.test/c3ref/open.html".into(),
            threshold: 0.875,
            nodes,
            ..SiteMap::default()
        }
    }

    #[test]
    fn only_the_example_above_theta_lowers_it_to_the_cut_of_the_scores() {
        let map = flat_site(30, 60);
        let lowered = lowered_threshold(&map).expect("lowered");
        assert_eq!(lowered.from, 0.875);
        assert_eq!(
            lowered.scored, 91,
            "every page but the example, the entry included"
        );
        // Otsu's cut lies between the two groups: every interface page and no other page.
        assert!(lowered.to > 0.64 && lowered.to <= 0.72, "{lowered:?}");
        assert_eq!(lowered.pages, 30);
        let (relabelled, again) = at_learning_threshold(map);
        assert_eq!(again, Some(lowered.clone()));
        assert_eq!(relabelled.threshold, lowered.to);
        let targets: Vec<&str> = relabelled
            .targets()
            .map(|t| relabelled.nodes[t as usize].url.as_str())
            .collect();
        assert_eq!(targets.len(), 31, "the example and the 30 interface pages");
        assert!(targets.iter().all(|u| u.contains("/c3ref/")));
    }

    #[test]
    fn theta_stays_when_another_page_reached_it_or_the_map_is_too_small() {
        // Another target: mapping's θ found the kind.
        let mut map = flat_site(30, 60);
        map.nodes[2].state = NodeState::Target;
        map.nodes[2].similarity = Some(0.9);
        assert_eq!(lowered_threshold(&map), None);
        let (same, none) = at_learning_threshold(map.clone());
        assert_eq!((same, none), (map, None));
        // Too few pages scored to judge (19 besides the example).
        assert_eq!(lowered_threshold(&flat_site(6, 12)), None);
        assert!(lowered_threshold(&flat_site(6, 13)).is_some());
        // One interface page besides the example: the cut splits the even spread of the
        // other pages' scores, which is no kind.
        let lone = flat_site(1, 40);
        assert_eq!(lowered_threshold(&lone), None);
        assert!((separation(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], 0.45) - 0.762).abs() < 1e-3);
        assert!((separation(&[0.1, 0.1, 0.9, 0.9], 0.5) - 1.0).abs() < 1e-9);
        assert_eq!(separation(&[0.5, 0.5], 0.5), 0.0);
        // Scores all far below: the cut would be under 0.5.
        let mut low = flat_site(30, 60);
        for n in low.nodes.iter_mut().skip(2) {
            n.similarity = n.similarity.map(|s| s - 0.4);
        }
        assert_eq!(lowered_threshold(&low), None);
    }

    #[test]
    fn places_stay_decided_at_mappings_theta() {
        // Five pages about the library in /about/, scoring 0.70 before the place weight and
        // 0.63 after it: under the cut as mapping weighted them, over it if /about/ counted as
        // a place of the kind, which at the lowered θ its five pages would make it.
        let mut map = flat_site(30, 60);
        map.place_weight = 0.1;
        for i in 0..5 {
            let mut n = node(&format!("about/a{i}.html"), NodeState::Page, 0.63);
            n.unplaced = Some(0.70);
            map.nodes.push(n);
        }
        let lowered = lowered_threshold(&map).expect("lowered");
        assert!(lowered.to > 0.64 && lowered.to <= 0.70, "{lowered:?}");
        let naive = map.with_threshold(lowered.to);
        assert_eq!(
            naive.targets().count(),
            36,
            "re-placed, /about/ would be taken"
        );
        let (learned, _) = at_learning_threshold(map.clone());
        assert_eq!(learned.targets().count(), 31);
        assert!(
            learned
                .targets()
                .all(|t| !learned.nodes[t as usize].url.contains("/about/"))
        );
        // Relearning at the pattern's θ from the map as mapped labels the same pages; so does
        // any other θ the user picks on this map.
        assert_eq!(relabelled(&map, lowered.to), learned);
        assert_eq!(relabelled(&map, 0.65).targets().count(), 31);
        assert_eq!(map.with_threshold(0.65).targets().count(), 36);
        // Where mapping's θ found the kind, relabelling is `with_threshold`.
        let mut found = map.clone();
        found.nodes[2].state = NodeState::Target;
        found.nodes[2].similarity = Some(0.9);
        assert_eq!(relabelled(&found, 0.6), found.with_threshold(0.6));
    }

    #[test]
    fn the_example_under_another_spelling_of_its_url_is_still_the_example() {
        let mut map = flat_site(30, 60);
        // As given by the user (default port, a fragment); the map's node is canonical.
        map.example = "http://sql.test:80/c3ref/open.html#top".into();
        let lowered = lowered_threshold(&map).expect("lowered");
        assert_eq!((lowered.pages, lowered.scored), (30, 91));
    }
}
