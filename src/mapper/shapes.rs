//! URL shapes and what the pages of each shape yielded while mapping.
//!
//! A *shape* is a URL with its names left out, written as a glob: the host, the directories
//! (digit runs as `*`), the file name's leading letters and the query's parameter names —
//! `core/arch/x86_64/fn._mm_add_epi8.html` is `core/arch/x*_*/fn*`, `cal?month=2024-05` is
//! `cal*?month=*`. A shape is *barren* once [`BARREN_AFTER`] of its pages were fetched and none of
//! them was a target, none of the pages first found on them was one, and they found fewer new
//! pages than they are (hubs find more): Rust's 7,000 intrinsics, endless calendar days,
//! per-item review pages. The mapper fetches the rest of a barren shape after everything else
//! ([`super::MapConfig::defer_barren`]), so a page budget is spent where the targets are; the
//! map of a site read whole holds the same pages.
//!
//! Kept in memory only: [`Shapes::of_map`] derives the same counts from a map on restore.
use std::collections::HashMap;

use super::{NodeState, SiteMap};

/// Pages of one shape fetched, without a target among them or the pages they found, before the
/// shape is barren. Large enough that a shape of listings or entities shows its yield first
/// (one target or one hub page among them suffices), small against the budgets where the
/// order matters (10,000 pages by default).
pub const BARREN_AFTER: u32 = 50;

/// What the pages of one shape yielded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Yield {
    /// Pages fetched (any outcome).
    fetched: u32,
    /// Of them, targets.
    targets: u32,
    /// Pages first found on them (the map's parent links).
    found: u32,
    /// Of those, targets.
    found_targets: u32,
}

impl Yield {
    fn is_barren(&self) -> bool {
        self.fetched >= BARREN_AFTER
            && self.targets == 0
            && self.found_targets == 0
            && self.found <= self.fetched
    }
}

/// Yields by shape. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shapes {
    by_shape: HashMap<String, Yield>,
}

/// The shape of a canonical URL (see the module docs). Not a URL: a key.
pub fn shape(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (dir, file) = path.rsplit_once('/').unwrap_or((path, ""));
    let (host, dir) = dir.split_once('/').unwrap_or((dir, ""));
    let mut out = String::with_capacity(path.len() + 8);
    out.push_str(host);
    out.push('/');
    let mut digits = false;
    for c in dir.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('*');
            }
            digits = true;
        } else {
            out.push(c);
            digits = false;
        }
    }
    if !dir.is_empty() {
        out.push('/');
    }
    out.extend(
        file.chars()
            .take_while(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase()),
    );
    out.push('*');
    if !query.is_empty() {
        let mut keys: Vec<&str> = query
            .split('&')
            .map(|kv| kv.split_once('=').map_or(kv, |(k, _)| k))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        out.push('?');
        out.push_str(&keys.join("=*&"));
        out.push_str("=*");
    }
    out
}

impl Shapes {
    /// The counts of a map: every node fetched, and every node found from a parent.
    pub fn of_map(map: &SiteMap) -> Shapes {
        let mut s = Shapes::default();
        for n in &map.nodes {
            let target = n.state == NodeState::Target;
            if is_fetched(&n.state) {
                let y = s.by_shape.entry(shape(&n.url)).or_default();
                y.fetched += 1;
                y.targets += u32::from(target);
            }
            if let Some(p) = n.parent.and_then(|p| map.nodes.get(p as usize)) {
                let y = s.by_shape.entry(shape(&p.url)).or_default();
                y.found += 1;
                y.found_targets += u32::from(target);
            }
        }
        s
    }

    /// A page was found first on `parent`.
    pub fn found(&mut self, parent: &str) {
        self.by_shape.entry(shape(parent)).or_default().found += 1;
    }

    /// A page was fetched (any outcome), first found on `parent`. Returns its shape when this
    /// made the shape barren.
    pub fn fetched(&mut self, url: &str, parent: Option<&str>, target: bool) -> Option<String> {
        if target {
            self.targeted(url, parent);
        }
        let key = shape(url);
        let y = self.by_shape.entry(key.clone()).or_default();
        let was = y.is_barren();
        y.fetched += 1;
        (!was && y.is_barren()).then_some(key)
    }

    /// A page fetched earlier, first found on `parent`, became a target.
    pub fn promoted(&mut self, url: &str, parent: Option<&str>) {
        self.targeted(url, parent);
    }

    fn targeted(&mut self, url: &str, parent: Option<&str>) {
        self.by_shape.entry(shape(url)).or_default().targets += 1;
        if let Some(p) = parent {
            self.by_shape.entry(shape(p)).or_default().found_targets += 1;
        }
    }

    /// Whether `url`'s shape is barren.
    pub fn is_barren(&self, url: &str) -> bool {
        self.by_shape.get(&shape(url)).is_some_and(Yield::is_barren)
    }
}

/// The barren shapes of a map with the pages of each not fetched (put off when mapping
/// stopped), most first; shapes with none are left out.
pub fn left_unfetched(map: &SiteMap) -> Vec<(String, usize)> {
    let shapes = Shapes::of_map(map);
    let mut left: HashMap<String, usize> = HashMap::new();
    for n in &map.nodes {
        if n.state == NodeState::Discovered {
            let key = shape(&n.url);
            if shapes.by_shape.get(&key).is_some_and(Yield::is_barren) {
                *left.entry(key).or_default() += 1;
            }
        }
    }
    let mut v: Vec<(String, usize)> = left.into_iter().collect();
    v.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// A node whose request was answered (any outcome): not waiting, not refused by robots.txt.
fn is_fetched(state: &NodeState) -> bool {
    !matches!(state, NodeState::Discovered | NodeState::Disallowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_leave_names_out() {
        assert_eq!(
            shape("http://h/core/arch/x86_64/fn._mm_add_epi8.html"),
            "h/core/arch/x*_*/fn*"
        );
        assert_eq!(
            shape("http://h/std/string/struct.String.html"),
            "h/std/string/struct*"
        );
        assert_eq!(
            shape("https://h/cal?month=2024-05&y=1"),
            "h/cal*?month=*&y=*"
        );
        assert_eq!(
            shape("https://h/cal?y=2&month=2024-06"),
            "h/cal*?month=*&y=*"
        );
        assert_eq!(shape("http://h/"), "h/*");
        assert_eq!(shape("http://127.0.0.1:8080/a1/b"), "127.0.0.1:8080/a*/b*");
        assert_eq!(shape("http://h/item/17/reviews"), "h/item/*/reviews*");
        // javadoc names its files by class: each its own shape, never barren.
        assert_ne!(
            shape("http://h/org/a/StringUtils.html"),
            shape("http://h/org/a/ArrayUtils.html")
        );
        assert_eq!(shape("not a url"), "not a url/*");
    }

    fn fetch_n(s: &mut Shapes, n: u32, url: impl Fn(u32) -> String) -> Vec<String> {
        (0..n)
            .filter_map(|i| s.fetched(&url(i), Some("http://h/index.html"), false))
            .collect()
    }

    #[test]
    fn a_shape_is_barren_after_enough_pages_without_targets_or_hubs() {
        let mut s = Shapes::default();
        let fired = fetch_n(&mut s, BARREN_AFTER, |i| format!("http://h/fn.f{i}.html"));
        assert_eq!(fired, vec!["h/fn*".to_string()], "fires once, on the last");
        assert!(s.is_barren("http://h/fn.other.html"));
        assert!(!s.is_barren("http://h/struct.S.html"));
        // A target among them ends it.
        s.fetched("http://h/fn.t.html", None, true);
        assert!(!s.is_barren("http://h/fn.other.html"));
    }

    #[test]
    fn hubs_and_the_parents_of_targets_are_never_barren() {
        // Listings that each find two new pages.
        let mut s = Shapes::default();
        for i in 0..BARREN_AFTER {
            let list = format!("http://h/list?page={i}");
            s.found(&list);
            s.found(&list);
        }
        assert!(fetch_n(&mut s, BARREN_AFTER, |i| format!("http://h/list?page={i}")).is_empty());
        // Pages that each find one page, one of which is a target.
        let mut s = Shapes::default();
        s.found("http://h/a/1");
        s.fetched("http://h/t/1", Some("http://h/a/1"), true);
        assert!(fetch_n(&mut s, 2 * BARREN_AFTER, |i| format!("http://h/a/{i}")).is_empty());
        // Fewer than needed.
        let mut s = Shapes::default();
        assert!(fetch_n(&mut s, BARREN_AFTER - 1, |i| format!("http://h/b/{i}")).is_empty());
    }
}
