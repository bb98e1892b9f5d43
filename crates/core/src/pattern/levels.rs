//! The levels of a pattern on the map: which pages stand on which level, the regexes that
//! describe each level, and the simplification that leaves the few regexes a person would
//! write.
//!
//! A page's level is `n − dist` (the module docs of [`super`]). Breadth-first paths take the
//! shortest way to every target, and on sites that list their items several ways that gives
//! levels no person would write: a quotes directory whose authors the paged home listing
//! reaches gets a level of a dozen literal tag pages (`/tag/love/page/1/`, …) because a tag page
//! is one hop shorter than page 7 of the listing; a shop's top categories, one hop above its
//! subcategories, get a level of literal URLs (`/category/1000`) because the subcategories share
//! their shape. [`simplified`] reworks the levels, a group of alike URLs at a time, while the
//! simulated crawl reaches as many targets and collects no page known not to be one:
//! - *drop* a group whose targets other groups reach (the tag pages, when the paged listing
//!   reaches every author); the listings left take their further pages along
//!   ([`SiteMap::continued`]);
//! - *move down* a group to the next level, which then pages through itself (the top
//!   categories join the subcategories as one paginated level; a level left empty goes).
//!
//! It keeps a change that leaves fewer regexes without fetching more than a tenth more pages, or
//! as many regexes fetching fewer pages; the best change each round, until none helps.
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use regex::Regex;

use super::{
    DEFAULT_MAX_PAGINATION, LearnConfig, Level, Simulation, generalise, generalise_excluding, met,
    simulate_levels,
};
use crate::map::{BreadthFirst, FormState, NodeState, SiteMap};

/// Rounds of [`simplified`] at most (each keeps one change).
const MAX_ROUNDS: usize = 8;
/// Groups of one level tried each round, at most (the largest first).
const MAX_GROUPS: usize = 8;
/// A change may fetch this fraction more pages when it saves regexes.
const FETCH_SLACK: f64 = 0.1;

/// The pages of each level: `positives[0]` the entry, `positives[n]` the targets;
/// `paginate[l - 1]` says level `l` links itself.
#[derive(Clone, Debug, PartialEq)]
struct LevelPages {
    positives: Vec<Vec<u32>>,
    paginate: Vec<bool>,
}

impl LevelPages {
    fn n(&self) -> usize {
        self.positives.len() - 1
    }
}

/// How [`levels_for`] makes the levels.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct How {
    /// Targets' links are followed (the last level pages through itself).
    pub loop_targets: bool,
    /// The levels holding a search form's submissions are left as they are ([`form_level`]).
    pub keep_form_levels: bool,
}

/// The levels of an n-level pattern, simplified ([`simplified`]).
pub(super) fn levels_for(
    map: &SiteMap,
    tree: &BreadthFirst,
    dist: &[Option<u32>],
    targets: &[u32],
    n: usize,
    config: &LearnConfig,
    how: How,
) -> Vec<Level> {
    let pages = level_pages(map, tree, dist, targets, n);
    let levels = regexes(map, &pages, config, how.loop_targets);
    simplified(map, tree, pages, levels, config, how)
}

/// A page's level is `n − dist`; pages farther from the targets than the entry break their
/// path (irregular).
fn level_pages(
    map: &SiteMap,
    tree: &BreadthFirst,
    dist: &[Option<u32>],
    targets: &[u32],
    n: usize,
) -> LevelPages {
    // Levels of the pages on the breadth-first paths to targets.
    let mut level_of: HashMap<u32, usize> = HashMap::new();
    let mut paginate = vec![false; n];
    let is_target = |id: u32| map.nodes[id as usize].state == NodeState::Target;
    for &t in targets {
        let mut child = t;
        let mut guard = 0;
        while let Some(parent) = tree.parent.get(child as usize).copied().flatten() {
            guard += 1;
            if guard > map.nodes.len() {
                break;
            }
            let lp = match dist[parent as usize] {
                Some(d) if (d as usize) <= n => n - d as usize,
                _ => break,
            };
            if parent != 0 && lp == 0 {
                // Farther from targets than the entry: an irregular path, not a level.
                break;
            }
            level_of.insert(parent, lp);
            if !is_target(child)
                && let Some(&lc) = level_of.get(&child)
                && lc == lp
                && lp >= 1
            {
                paginate[lp - 1] = true;
            }
            child = parent;
        }
    }
    level_of.insert(0, 0);
    let mut positives: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for (&id, &l) in &level_of {
        positives[l].push(id);
    }
    for p in &mut positives {
        p.sort_by_key(|&id| met(map, tree, id));
    }
    positives[n] = targets.to_vec();
    LevelPages {
        positives,
        paginate,
    }
}

/// The regexes of each level: its pages generalised against the pages the crawler would
/// wrongly follow (fetched pages linked from the level before, or from the level itself when
/// it pages, that are not on it; for a level of listings, also the copies of listings under
/// other URLs).
fn regexes(
    map: &SiteMap,
    pages: &LevelPages,
    config: &LearnConfig,
    loop_targets: bool,
) -> Vec<Level> {
    let n = pages.n();
    let positives = &pages.positives;
    let paginate = &pages.paginate;
    let is_target = |id: u32| map.nodes[id as usize].state == NodeState::Target;
    let mut levels = Vec::with_capacity(n);
    for j in 1..=n {
        let pos: HashSet<u32> = positives[j].iter().copied().collect();
        let mut neg: BTreeSet<u32> = BTreeSet::new();
        if config.use_negatives {
            // Pages whose links this level's regexes are tested on.
            let sources: Vec<u32> = if j == n {
                // Targets too, when their links are followed.
                let upto = if loop_targets { n + 1 } else { n };
                (0..upto)
                    .flat_map(|l| positives[l].iter().copied())
                    .collect()
            } else {
                let mut s = positives[j - 1].clone();
                if paginate[j - 1] {
                    s.extend(positives[j].iter().copied());
                }
                s
            };
            for s in sources {
                for &v in &map.nodes[s as usize].links {
                    if pos.contains(&v) {
                        continue;
                    }
                    // A listing's copy under another URL (`/page/1/` of `/`) is no page to
                    // fetch again: a negative of the listings' levels.
                    let copy = j < n
                        && matches!(map.nodes[v as usize].state, NodeState::Duplicate { of }
                            if map.nodes.get(of as usize).is_some_and(|o| o.state != NodeState::Target));
                    if !map.is_fetched(v) && !copy {
                        continue;
                    }
                    // Targets are taken by the last level first; they are not negatives of
                    // an intermediate level.
                    if j < n && is_target(v) {
                        continue;
                    }
                    neg.insert(v);
                }
            }
        }
        let pos_urls: Vec<&str> = positives[j]
            .iter()
            .map(|&i| map.nodes[i as usize].url.as_str())
            .collect();
        let mut neg_urls: Vec<&str> = neg
            .iter()
            .map(|&i| map.nodes[i as usize].url.as_str())
            .collect();
        neg_urls.sort_unstable();
        let g = generalise_excluding(&pos_urls, &neg_urls, config.k, config.max_exclusions);
        let regexes = g
            .regexes
            .into_iter()
            .map(|r| any_page_number(r, &neg_urls))
            .collect();
        levels.push(Level {
            regexes,
            paginate: if j < n { paginate[j - 1] } else { loop_targets },
            from_targets: false,
            pages: pos_urls.len(),
            samples: pos_urls.iter().take(5).map(|s| s.to_string()).collect(),
            form: None,
            exclude: g.exclude,
        });
    }
    levels
}

/// `regex` with the literal page numbers it holds (`\?page=2`, `/page/2/`, `&start=20`: one
/// page of a listing seen) made any number, unless that matches a known negative: a listing
/// has pages learning did not see, and a person writes `?page=[0-9]+`.
fn any_page_number(regex: String, neg: &[&str]) -> String {
    static PAGE: std::sync::OnceLock<Option<(Regex, Regex)>> = std::sync::OnceLock::new();
    let Some((query, path)) = PAGE.get_or_init(|| {
        let query =
            Regex::new(r"((?:\\\?|&)(?:page|p|pg|paged|start|offset|skip)=)[0-9]+(\$|&|\(|\\\?)?")
                .ok()?;
        let path = Regex::new(r"(/page/)[0-9]+(/|\$)").ok()?;
        Some((query, path))
    }) else {
        return regex;
    };
    let general = query.replace_all(&regex, "${1}[0-9]+${2}");
    let general = path.replace_all(&general, "${1}[0-9]+${2}").into_owned();
    if general == regex {
        return regex;
    }
    match Regex::new(&general) {
        Ok(r) if !neg.iter().any(|u| r.is_match(u)) => general,
        _ => regex,
    }
}

/// What a change does to a group of one level's pages.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// Leave them out: other pages reach their targets.
    Drop,
    /// Put them on the next level, which then pages through itself.
    MoveDown,
}

/// The levels reworked a group of alike URLs at a time (the module docs).
fn simplified(
    map: &SiteMap,
    tree: &BreadthFirst,
    mut pages: LevelPages,
    mut levels: Vec<Level>,
    config: &LearnConfig,
    how: How,
) -> Vec<Level> {
    let loop_targets = how.loop_targets;
    let form_level = |level: &[u32]| how.keep_form_levels && form_level(map, level);
    if !config.simplify || levels.iter().any(|l| l.regexes.is_empty()) {
        return levels;
    }
    let Some(mut sim) = simulations(map, &levels) else {
        return levels;
    };
    for _ in 0..MAX_ROUNDS {
        let mut best: Option<(LevelPages, Vec<Level>, Simulations)> = None;
        let n = pages.n();
        for j in 1..n {
            if form_level(&pages.positives[j]) {
                continue;
            }
            for group in groups(map, &pages.positives[j], config.k) {
                for change in [Change::Drop, Change::MoveDown] {
                    if matches!(change, Change::MoveDown)
                        && pages.positives.get(j + 1).is_some_and(|l| form_level(l))
                    {
                        continue;
                    }
                    let Some(candidate) = changed(map, tree, &pages, j, &group, change) else {
                        continue;
                    };
                    let cand_levels = regexes(map, &candidate, config, loop_targets);
                    if cand_levels.iter().any(|l| l.regexes.is_empty()) {
                        continue;
                    }
                    let Some(cand_sim) = simulations(map, &cand_levels) else {
                        continue;
                    };
                    if !better(&cand_sim, &cand_levels, &sim, &levels) {
                        continue;
                    }
                    let beats_best = best.as_ref().is_none_or(|(_, bl, bs)| {
                        (regex_count(&cand_levels), cand_sim.0.fetched)
                            < (regex_count(bl), bs.0.fetched)
                    });
                    if beats_best {
                        best = Some((candidate, cand_levels, cand_sim));
                    }
                }
            }
        }
        let Some((p, l, s)) = best else {
            break;
        };
        pages = p;
        levels = l;
        sim = s;
    }
    levels
}

/// Regexes of every level.
fn regex_count(levels: &[Level]) -> usize {
    levels.iter().map(|l| l.regexes.len()).sum()
}

/// What levels do on the map as learned, and with the level before the targets also followed
/// from targets (which learning may switch on afterwards: a page that looks redundant now may
/// be the only way to a module's list then).
type Simulations = (Simulation, Simulation);

fn simulations(map: &SiteMap, levels: &[Level]) -> Option<Simulations> {
    let plain = simulate_levels(levels, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new()).ok()?;
    let mut up = levels.to_vec();
    let Some(i) = up.len().checked_sub(2) else {
        return Some((plain.clone(), plain));
    };
    up[i].from_targets = true;
    let from_targets = simulate_levels(&up, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new()).ok()?;
    Some((plain, from_targets))
}

/// Whether `new` is a simpler pattern than `old` that loses nothing, either way it may be run
/// ([`Simulations`]): as many targets reached (and unfetched target-shaped pages met), no more
/// pages known not to be targets collected; fewer regexes without fetching a tenth more, or as
/// many fetching fewer.
fn better(
    new: &Simulations,
    new_levels: &[Level],
    old: &Simulations,
    old_levels: &[Level],
) -> bool {
    let loses = |n: &Simulation, o: &Simulation| {
        n.targets_reached < o.targets_reached
            || n.unfetched_targets < o.unfetched_targets
            || n.false_targets.len() > o.false_targets.len()
    };
    if loses(&new.0, &old.0) || loses(&new.1, &old.1) {
        return false;
    }
    let (new, old) = (&new.0, &old.0);
    let (rn, ro) = (regex_count(new_levels), regex_count(old_levels));
    (rn < ro && new.fetched as f64 <= old.fetched as f64 * (1.0 + FETCH_SLACK) + 2.0)
        || (rn <= ro && new.fetched < old.fetched)
}

/// The pages of one level in groups of alike URLs, the largest first, at most [`MAX_GROUPS`]:
/// those of one generalisation (with no negative), one first path segment, as many segments
/// and the same query keys (`/page/2/` apart from `/tag/love/`, which one regex may cover).
fn groups(map: &SiteMap, level: &[u32], k: usize) -> Vec<Vec<u32>> {
    let urls: Vec<&str> = level
        .iter()
        .map(|&i| map.nodes[i as usize].url.as_str())
        .collect();
    let compiled: Vec<Regex> = generalise(&urls, &[], k)
        .iter()
        .filter_map(|r| Regex::new(r).ok())
        .collect();
    let mut groups: BTreeMap<(usize, String, usize, Vec<String>), Vec<u32>> = BTreeMap::new();
    for (&id, url) in level.iter().zip(&urls) {
        let Some(g) = compiled.iter().position(|r| r.is_match(url)) else {
            continue;
        };
        let (first, segments, keys) = shape(url);
        groups
            .entry((g, first, segments, keys))
            .or_default()
            .push(id);
    }
    let mut groups: Vec<Vec<u32>> = groups.into_values().collect();
    // Stable: equal sizes keep the order of their keys.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    groups.truncate(MAX_GROUPS);
    groups
}

/// A URL's first path segment, its number of segments and its query's keys, sorted.
fn shape(url: &str) -> (String, usize, Vec<String>) {
    let after = url.find("://").map_or(url, |i| &url[i + 3..]);
    let rest = after.find(['/', '?']).map_or("", |i| &after[i..]);
    let rest = rest.split('#').next().unwrap_or(rest);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut keys: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split('=').next().unwrap_or(p).to_string())
        .collect();
    keys.sort();
    keys.dedup();
    (
        segments.first().map_or(String::new(), |s| s.to_string()),
        segments.len(),
        keys,
    )
}

/// `pages` with `group` of level `j` dropped or moved down; None when that leaves nothing to
/// change (a level emptied by a drop, or no level below to move to).
fn changed(
    map: &SiteMap,
    tree: &BreadthFirst,
    pages: &LevelPages,
    j: usize,
    group: &[u32],
    change: Change,
) -> Option<LevelPages> {
    let n = pages.n();
    let in_group: HashSet<u32> = group.iter().copied().collect();
    let mut out = pages.clone();
    out.positives[j].retain(|id| !in_group.contains(id));
    match change {
        Change::Drop => {
            if out.positives[j].is_empty() {
                return None;
            }
            // The listings left keep their further pages: breadth-first paths went through
            // the group instead of page 5 of a list, which now pages on to it.
            let on_levels: HashSet<u32> = out.positives.iter().flatten().copied().collect();
            let more = continuations(map, &out.positives[j], &on_levels);
            if !more.is_empty() {
                out.positives[j].extend(more);
                out.positives[j].sort_by_key(|&id| met(map, tree, id));
            }
            out.paginate[j - 1] |= links_among(map, &out.positives[j]);
        }
        Change::MoveDown => {
            if j + 1 >= n {
                return None;
            }
            out.positives[j + 1].extend(group.iter().copied());
            out.positives[j + 1].sort_by_key(|&id| met(map, tree, id));
            out.paginate[j] = true;
            if out.positives[j].is_empty() {
                out.positives.remove(j);
                out.paginate.remove(j - 1);
            }
        }
    }
    Some(out)
}

/// The pages continuing the listings of `level` ([`SiteMap::continued`]), through chains of
/// "Next" links, that are neither targets nor on a level (`on_levels`).
fn continuations(map: &SiteMap, level: &[u32], on_levels: &HashSet<u32>) -> Vec<u32> {
    if map.continued.is_empty() {
        return Vec::new();
    }
    let mut next: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&q, &p) in &map.continued {
        next.entry(p).or_default().push(q);
    }
    let mut seen: HashSet<u32> = level.iter().copied().collect();
    let mut stack: Vec<u32> = level.to_vec();
    let mut out = Vec::new();
    while let Some(p) = stack.pop() {
        for &q in next.get(&p).into_iter().flatten() {
            let node = &map.nodes[q as usize];
            if node.state == NodeState::Page && !on_levels.contains(&q) && seen.insert(q) {
                out.push(q);
                stack.push(q);
            }
        }
    }
    out
}

/// Whether `level` holds the submissions of a search form mapping kept (analysed): the form's
/// to shape, as learning makes it a template level afterwards ([`super::forms`]), from the
/// alternatives matching its submissions.
fn form_level(map: &SiteMap, level: &[u32]) -> bool {
    level.iter().any(|&id| {
        map.nodes[id as usize].form.is_some_and(|f| {
            map.forms
                .get(f as usize)
                .is_some_and(|form| matches!(form.state, FormState::Analysed { .. }))
        })
    })
}

/// Whether a page of `level` links another of it.
fn links_among(map: &SiteMap, level: &[u32]) -> bool {
    let set: HashSet<u32> = level.iter().copied().collect();
    level.iter().any(|&id| {
        map.nodes[id as usize]
            .links
            .iter()
            .any(|v| *v != id && set.contains(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listings_page_number_is_any_number_unless_a_negative_says_no() {
        let any = |r: &str, neg: &[&str]| any_page_number(r.to_string(), neg);
        assert_eq!(
            any(r"^http://h\.test/\?page=2$", &[]),
            r"^http://h\.test/\?page=[0-9]+$"
        );
        assert_eq!(
            any(r"^http://h\.test/category/[0-9]+/page/2/$", &[]),
            r"^http://h\.test/category/[0-9]+/page/[0-9]+/$"
        );
        assert_eq!(
            any(r"^http://h\.test/s\?q=x&start=20$", &[]),
            r"^http://h\.test/s\?q=x&start=[0-9]+$"
        );
        // Numbers that are no page number stay, and so does a page a negative would match.
        assert_eq!(
            any(r"^http://h\.test/item/2$", &[]),
            r"^http://h\.test/item/2$"
        );
        assert_eq!(
            any(r"^http://h\.test/\?page=2$", &["http://h.test/?page=3"]),
            r"^http://h\.test/\?page=2$"
        );
    }
}
