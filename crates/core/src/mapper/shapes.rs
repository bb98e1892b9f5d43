//! URL shapes and what the pages of each shape yielded while mapping.
//!
//! A *shape* is a URL with its names left out, written as a glob: the host, the directories
//! (digit runs as `*`), the file name's leading letters and the query's parameter names —
//! `core/arch/x86_64/fn._mm_add_epi8.html` is `core/arch/x*_*/fn*`, `cal?month=2024-05` is
//! `cal*?month=*`. A shape is *barren* once [`BARREN_AFTER`] of its pages were fetched and none of
//! them was a target, none of the pages first found on them was one, and they found fewer new
//! pages than they are (hubs find more): Rust's 7,000 intrinsics, endless calendar days,
//! per-item review pages. A *kind* is a shape with its directories left out too
//! (`**/fn*`): it is barren like a shape, once its pages span [`KIND_SHAPES`] shapes or more
//! (each module's few functions, constants, macros), and its pages of a shape that yielded
//! something are not. The mapper fetches the rest of a barren shape or kind after everything
//! else ([`super::MapConfig::defer_barren`]), so a page budget is spent where the targets are;
//! the map of a site read whole holds the same pages. A target among a barren shape's or kind's
//! pages, or found on one, ends its barrenness for good ([`Change::revived`]): what was put off
//! for it comes back in its turn.
//!
//! A *file type* is the host and a file name extension (`**/*.json`): it is barren once
//! [`BARREN_AFTER`] of its pages were answered and none of them was HTML, whatever their shape
//! yielded — Datasette offers each row as `.json` and `.csv` beside the page, and a quarter of
//! a 10,000-page budget went to them.
//!
//! Kept in memory only: [`Shapes::of_map`] derives the same counts from a map on restore.
use std::collections::HashMap;

use super::{MapConfig, NodeState, SiteMap};

/// Pages of one shape fetched, without a target among them or the pages they found, before the
/// shape is barren. Large enough that a shape of listings or entities shows its yield first
/// (one target or one hub page among them suffices), small against the budgets where the
/// order matters (10,000 pages by default).
pub const BARREN_AFTER: u32 = 50;

/// Shapes a barren kind's pages span at least: one directory's pages of a name that is a target
/// elsewhere say little about the others.
pub const KIND_SHAPES: u32 = 3;

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

    fn yielded(&self) -> bool {
        self.targets > 0 || self.found_targets > 0
    }
}

/// What the pages of one kind yielded, and how many shapes they span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KindYield {
    pages: Yield,
    shapes: u32,
}

impl KindYield {
    fn is_barren(&self) -> bool {
        self.shapes >= KIND_SHAPES && self.pages.is_barren()
    }
}

/// How the pages of one file type were answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TypeYield {
    html: u32,
    other: u32,
}

impl TypeYield {
    fn is_barren(&self) -> bool {
        self.other >= BARREN_AFTER && self.html == 0
    }
}

/// Yields by shape, by kind and by file type. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shapes {
    by_shape: HashMap<String, Yield>,
    by_kind: HashMap<String, KindYield>,
    by_type: HashMap<String, TypeYield>,
}

/// What counting one fetched page changed ([`Shapes::fetched`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// The shape or kind this page made barren.
    pub barren: Option<String>,
    /// Whether a shape or kind that was barren is no longer (the page is a target of it or
    /// found on one): what was put off for it may come back.
    pub revived: bool,
}

/// The shape of a canonical URL (see the module docs). Not a URL: a key.
pub fn shape(url: &str) -> String {
    shape_or_kind(url, false)
}

/// The kind of a canonical URL: its shape without directories (see the module docs).
pub fn kind(url: &str) -> String {
    shape_or_kind(url, true)
}

/// The file type of a canonical URL, when its file name has an extension of one to eight letters
/// and digits: `h/**/*.json` (see the module docs). Not a URL: a key.
pub fn file_type(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = path.split_once('/')?;
    let file = path.rsplit('/').next().unwrap_or(path);
    let (_, ext) = file.rsplit_once('.')?;
    ((1..=8).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then(|| format!("{host}/**/*.{}", ext.to_ascii_lowercase()))
}

/// Whether a node's answer was HTML: `None` when it does not tell (an error, a duplicate).
fn html_of(state: &NodeState) -> Option<bool> {
    match state {
        NodeState::Page | NodeState::Target | NodeState::TooLarge { .. } => Some(true),
        NodeState::NotHtml { .. } => Some(false),
        _ => None,
    }
}

fn shape_or_kind(url: &str, kind: bool) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (dir, file) = path.rsplit_once('/').unwrap_or((path, ""));
    let (host, dir) = dir.split_once('/').unwrap_or((dir, ""));
    let dir = if kind && !dir.is_empty() { "**" } else { dir };
    let mut out = String::with_capacity(path.len() + 8);
    out.push_str(host);
    out.push('/');
    // A canonical URL has no '#' left: the digit runs' mark becomes the glob's.
    out.push_str(&crate::canon::abstract_digits(dir).replace('#', "*"));
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
        let mut keys: Vec<&str> = crate::canon::query_names(query).collect();
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
            let parent = n.parent.and_then(|p| map.nodes.get(p as usize));
            if let Some(p) = parent {
                s.found(&p.url);
            }
            if is_fetched(&n.state) {
                s.fetched(
                    &n.url,
                    parent.map(|p| p.url.as_str()),
                    n.state == NodeState::Target,
                );
                s.answered(&n.url, &n.state);
            }
        }
        s
    }

    /// A page was found first on `parent`.
    pub fn found(&mut self, parent: &str) {
        let (y, k) = self.yields(parent);
        y.found += 1;
        k.pages.found += 1;
    }

    /// A page was fetched (any outcome), first found on `parent`: what that changed.
    pub fn fetched(&mut self, url: &str, parent: Option<&str>, target: bool) -> Change {
        let revived = target && self.targeted(url, parent);
        let (shape_key, kind_key) = (shape(url), kind(url));
        let y = self.by_shape.entry(shape_key.clone()).or_default();
        let (was, new_shape) = (y.is_barren(), y.fetched == 0);
        y.fetched += 1;
        let shape_barren = !was && y.is_barren();
        let k = self.by_kind.entry(kind_key.clone()).or_default();
        let was = k.is_barren();
        k.pages.fetched += 1;
        k.shapes += u32::from(new_shape);
        let barren = if shape_barren {
            Some(shape_key)
        } else {
            (!was && k.is_barren()).then_some(kind_key)
        };
        Change { barren, revived }
    }

    /// A page was answered with `state`: returns the file type this made barren, if any.
    pub fn answered(&mut self, url: &str, state: &NodeState) -> Option<String> {
        let (key, html) = (file_type(url)?, html_of(state)?);
        let t = self.by_type.entry(key.clone()).or_default();
        let was = t.is_barren();
        if html {
            t.html += 1;
        } else {
            t.other += 1;
        }
        (!was && t.is_barren()).then_some(key)
    }

    /// A page fetched earlier, first found on `parent`, became a target. Returns whether
    /// pages of a shape or kind that was barren no longer are ([`Change::revived`]).
    pub fn promoted(&mut self, url: &str, parent: Option<&str>) -> bool {
        self.targeted(url, parent)
    }

    /// Counts a target and its parent's find. A target ends its own shape's and kind's
    /// barrenness and its parent's, for good: returns whether any of them was barren.
    fn targeted(&mut self, url: &str, parent: Option<&str>) -> bool {
        let (y, k) = self.yields(url);
        let mut was_barren = y.is_barren() || k.is_barren();
        y.targets += 1;
        k.pages.targets += 1;
        if let Some(p) = parent {
            let (y, k) = self.yields(p);
            was_barren |= y.is_barren() || k.is_barren();
            y.found_targets += 1;
            k.pages.found_targets += 1;
        }
        was_barren
    }

    /// The yields of `url`'s shape and kind.
    fn yields(&mut self, url: &str) -> (&mut Yield, &mut KindYield) {
        (
            self.by_shape.entry(shape(url)).or_default(),
            self.by_kind.entry(kind(url)).or_default(),
        )
    }

    /// Whether `url` is of a barren file type: none of its pages answered was HTML.
    pub fn never_html(&self, url: &str) -> bool {
        file_type(url).is_some_and(|k| self.by_type.get(&k).is_some_and(TypeYield::is_barren))
    }

    /// Whether `url` is of a barren file type or shape, or of a barren kind and a shape that
    /// yielded nothing.
    pub fn is_barren(&self, url: &str) -> bool {
        self.barren_key(url).is_some()
    }

    /// The barren file type, shape or kind `url` is of (see [`Shapes::is_barren`]).
    pub fn barren_key(&self, url: &str) -> Option<String> {
        // First: a row's `.json` is of the row's shape, which yielded.
        if let Some(key) = file_type(url)
            && self.by_type.get(&key).is_some_and(TypeYield::is_barren)
        {
            return Some(key);
        }
        let key = shape(url);
        match self.by_shape.get(&key) {
            Some(y) if y.is_barren() => return Some(key),
            Some(y) if y.yielded() => return None,
            _ => {}
        }
        let key = kind(url);
        self.by_kind
            .get(&key)
            .is_some_and(KindYield::is_barren)
            .then_some(key)
    }
}

/// The barren shapes and kinds of a map with the pages of each not fetched (put off when mapping
/// stopped), most first; shapes with none are left out. None when `config` put nothing off.
pub fn left_unfetched(map: &SiteMap, config: &MapConfig) -> Vec<(String, usize)> {
    if !config.defer_barren {
        return Vec::new();
    }
    let shapes = Shapes::of_map(map);
    let mut left: HashMap<String, usize> = HashMap::new();
    for n in &map.nodes {
        if n.state == NodeState::Discovered
            && let Some(key) = shapes.barren_key(&n.url)
        {
            *left.entry(key).or_default() += 1;
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
        assert_eq!(
            shape("http://h/gitweb.cgi?p=x.git;a=commit;h=1f2e"),
            "h/gitweb*?a=*&h=*&p=*"
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
            .filter_map(|i| {
                s.fetched(&url(i), Some("http://h/index.html"), false)
                    .barren
            })
            .collect()
    }

    #[test]
    fn a_shape_is_barren_after_enough_pages_without_targets_or_hubs() {
        let mut s = Shapes::default();
        let fired = fetch_n(&mut s, BARREN_AFTER, |i| format!("http://h/fn.f{i}.html"));
        assert_eq!(fired, vec!["h/fn*".to_string()], "fires once, on the last");
        assert!(s.is_barren("http://h/fn.other.html"));
        assert!(!s.is_barren("http://h/struct.S.html"));
        // A target among them ends it, and says so.
        let change = s.fetched("http://h/fn.t.html", None, true);
        assert_eq!(
            change,
            Change {
                barren: None,
                revived: true
            }
        );
        assert!(!s.is_barren("http://h/fn.other.html"));
        assert!(
            !s.fetched("http://h/fn.u.html", None, true).revived,
            "once only"
        );
        // So does a target found on one of a barren shape's pages.
        let mut s = Shapes::default();
        fetch_n(&mut s, BARREN_AFTER, |i| format!("http://h/gn.f{i}.html"));
        assert!(s.promoted("http://h/t.html", Some("http://h/gn.f3.html")));
        assert!(!s.is_barren("http://h/gn.other.html"));
    }

    #[test]
    fn a_file_type_is_barren_when_never_html() {
        assert_eq!(
            file_type("http://h/db/packages/bash.json?_shape=array").as_deref(),
            Some("h/**/*.json")
        );
        assert_eq!(file_type("http://h/a/B.CSV").as_deref(), Some("h/**/*.csv"));
        assert_eq!(file_type("http://h/db/packages/bash"), None);
        assert_eq!(file_type("http://h/a.b/c"), None, "a directory's dot");
        assert_eq!(file_type("http://h/x.tar-gz"), None);
        let json = NodeState::NotHtml {
            media_type: "application/json".into(),
        };
        let mut s = Shapes::default();
        // The rows' shapes yield; their alternates are of those shapes.
        s.fetched("http://h/p/bash", None, true);
        let fired: Vec<String> = (0..BARREN_AFTER)
            .filter_map(|i| s.answered(&format!("http://h/p/row{i}.json"), &json))
            .collect();
        assert_eq!(fired, ["h/**/*.json"], "fires once, on the last");
        assert!(s.is_barren("http://h/p/bash.json"));
        assert!(!s.is_barren("http://h/p/bash"));
        // One HTML answer of the type, and it is not barren.
        let mut s = Shapes::default();
        s.answered("http://h/a.json", &NodeState::Page);
        for i in 0..BARREN_AFTER {
            s.answered(&format!("http://h/p/row{i}.json"), &json);
        }
        assert!(!s.is_barren("http://h/p/row1.json"));
        // Errors tell nothing.
        let mut s = Shapes::default();
        let gone = NodeState::HttpError { status: 404 };
        for i in 0..2 * BARREN_AFTER {
            s.answered(&format!("http://h/p/row{i}.json"), &gone);
        }
        assert!(!s.is_barren("http://h/p/row1.json"));
    }

    /// Each module's few functions: no shape reaches fifty pages, their kind does.
    #[test]
    fn a_kind_is_barren_across_shapes_but_not_where_its_shape_yielded() {
        assert_eq!(kind("http://h/std/ptr/fn.null.html"), "h/**/fn*");
        assert_eq!(kind("http://h/fn.null.html"), "h/fn*");
        let mut s = Shapes::default();
        // A function page of `mem` is a target: that shape yielded.
        s.fetched("http://h/std/mem/fn.t.html", None, true);
        let fired = fetch_n(&mut s, BARREN_AFTER, |i| {
            format!(
                "http://h/std/{}/fn.f{i}.html",
                ["io", "os", "ptr"][(i % 3) as usize]
            )
        });
        assert!(
            fired.is_empty(),
            "a target among the kind's pages: {fired:?}"
        );
        let mut s = Shapes::default();
        let fired = fetch_n(&mut s, BARREN_AFTER, |i| {
            format!(
                "http://h/std/{}/fn.f{i}.html",
                ["io", "os", "ptr"][(i % 3) as usize]
            )
        });
        assert_eq!(fired, vec!["h/**/fn*".to_string()]);
        assert_eq!(
            s.barren_key("http://h/std/other/fn.g.html").as_deref(),
            Some("h/**/fn*")
        );
        s.fetched("http://h/std/sync/fn.t.html", Some("http://h/x"), false);
        s.found("http://h/std/sync/fn.t.html");
        s.fetched(
            "http://h/std/sync/struct.S.html",
            Some("http://h/std/sync/fn.t.html"),
            true,
        );
        assert!(
            !s.is_barren("http://h/std/sync/fn.u.html"),
            "a shape that led to a target is not put off with its kind"
        );
        assert!(!s.is_barren("http://h/std/sync/struct.T.html"));
        // One directory's pages alone do not make a kind barren.
        let mut s = Shapes::default();
        fetch_n(&mut s, 2 * BARREN_AFTER, |i| {
            format!("http://h/news/detail-{i}.html")
        });
        assert!(s.is_barren("http://h/news/detail-x.html"));
        assert!(!s.is_barren("http://h/products/detail-1.html"));
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
