//! The directory a page's URL lies in, as a kind of page for the review.
//!
//! Sites file the pages of one kind together, and a kind the site's template makes look like
//! the example is often filed apart: the Apache HTTP Server manual keeps its module pages in
//! `en/mod/` and its guides in `en/`, `en/howto/`, `en/ssl/`…, and learning from a module page
//! took 70 targets in nine other directories beside the 133 in `en/mod/` (`exemplar learn`'s
//! list by directory), the guides' layout outweighing their content and their headings each
//! its own. A verdict on a whole
//! directory settles them in a few ticks: the review lists the targets by directory
//! ([`kinds`]), a directory judged unlike the example (`Corrections::unlike_directories`) has
//! its targets left out ([`left_out`]), and a crawl refuses the pages in it ([`refused`]). A
//! directory is the URL up to the last `/` of its path, query dropped — literally, not
//! generalised: the verdict is on what the user sees. No directory is left out unless the user
//! says so: targets in several directories are the rule on many sites (javadoc's packages).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::map::SiteMap;

/// The most directories [`kinds`] lists (those judged unlike always are): a javadoc tree of a
/// large library has hundreds of packages, and a review list that long is read by no one.
pub const DIRECTORIES_SHOWN: usize = 30;

/// The directory the page at `url` lies in: its scheme, host and path up to the last `/`,
/// canonical (`http://h.test/en/howto/cgi.html?x=1` → `http://h.test/en/howto/`); for a page
/// whose path ends in `/` (items filed as directories: `/job/123/`, `/en/howto/`), the
/// directory above it, where its siblings are. None for a URL that does not parse or is not
/// http(s).
pub fn of(url: &str) -> Option<String> {
    let mut u = url::Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    u.set_query(None);
    u.set_fragment(None);
    let path = u.path();
    let own = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    let dir = own[..own.rfind('/')? + 1].to_string();
    u.set_path(&dir);
    crate::canon::canonicalize(u.as_str())
}

/// A directory URL's own form: the URL up to the last `/` of its path (query and fragment
/// dropped), canonical.
fn prefix(url: &str) -> Option<String> {
    let mut u = url::Url::parse(url).ok()?;
    u.set_query(None);
    u.set_fragment(None);
    let path = u.path();
    let dir = path[..path.rfind('/')? + 1].to_string();
    u.set_path(&dir);
    crate::canon::canonicalize(u.as_str())
}

/// A directory as a verdict names it, canonical: an absolute http(s) URL ending in `/`. None
/// for anything else (a page's URL, a relative path: [`resolve`] makes those).
pub fn verdict(text: &str) -> Option<String> {
    let t = text.trim();
    if !t.ends_with('/') {
        return None;
    }
    // A directory's URL is its own prefix: all of its path kept, no query dropped.
    let canonical = crate::canon::canonicalize(t)?;
    if !matches!(canonical.split("://").next(), Some("http" | "https")) {
        return None;
    }
    prefix(&canonical).filter(|d| *d == canonical)
}

/// A directory the user typed, as a verdict names it ([`verdict`]): an absolute URL, or a path
/// from the site's root (`/en/howto/`) taken on `base`'s host; the trailing `/` may be left
/// out. None when it names no directory.
pub fn resolve(base: &str, text: &str) -> Option<String> {
    let t = text.trim();
    let t = if t.ends_with('/') {
        t.to_string()
    } else {
        format!("{t}/")
    };
    if t.starts_with('/') && !t.starts_with("//") {
        let base = url::Url::parse(base).ok()?;
        return verdict(base.join(&t).ok()?.as_str());
    }
    verdict(&t)
}

/// The targets of `map` that a verdict on their directory leaves out: those in one of
/// `unlike`, except the example and the pages judged like it (`like`, canonical URLs). Node
/// ids, by URL.
pub fn left_out(map: &SiteMap, unlike: &[String], like: &HashSet<&str>) -> Vec<u32> {
    if unlike.is_empty() {
        return Vec::new();
    }
    map.left_out_of_kind(like, |_, n| refused(unlike, &n.url))
}

/// Whether the page at `url` lies in a directory judged unlike the example (`unlike`).
pub fn refused(unlike: &[String], url: &str) -> bool {
    !unlike.is_empty() && of(url).is_some_and(|d| unlike.contains(&d))
}

/// Targets in one directory ([`kinds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryKind {
    /// The directory's URL ([`of`]).
    pub directory: String,
    /// Targets in it (with those a verdict on it left out).
    pub targets: usize,
    /// Up to [`crate::map::KIND_SAMPLES`] of them: the most similar to the example, the
    /// middle and the least ([`SiteMap::targets_by`]).
    pub samples: Vec<String>,
    /// The example is in it.
    pub example: bool,
    /// Judged unlike the example: its targets are left out.
    pub unlike: bool,
}

/// The targets grouped by directory, for a verdict on a whole directory: listed when targets
/// lie in two or more directories of two or more targets each (counting those `left_out` by a
/// directory verdict, canonical URLs) or a directory is judged unlike (`unlike`), the most
/// targets first; at most [`DIRECTORIES_SHOWN`] besides those judged unlike ([`all_kinds`]
/// lists them all).
pub fn kinds(map: &SiteMap, left_out: &[String], unlike: &[String]) -> Vec<DirectoryKind> {
    let mut shown = 0;
    all_kinds(map, left_out, unlike)
        .into_iter()
        .filter(|g| {
            shown += usize::from(!g.unlike);
            g.unlike || shown <= DIRECTORIES_SHOWN
        })
        .collect()
}

/// [`kinds`], every directory: for a review written to a file, where length costs no reader.
pub fn all_kinds(map: &SiteMap, left_out: &[String], unlike: &[String]) -> Vec<DirectoryKind> {
    // A directory of one target groups nothing (a shop's `/product/7/` is its own directory
    // when the URL is taken literally); it is listed only when judged unlike, or as the
    // example's beside other groups.
    let mut groups = map.targets_by(left_out, unlike, |n| of(&n.url));
    groups.retain(|g| g.unlike || g.targets > 1);
    if groups.len() < 2 && unlike.is_empty() {
        return Vec::new();
    }
    groups
        .into_iter()
        .map(|g| DirectoryKind {
            directory: g.key,
            targets: g.targets,
            samples: g.samples,
            example: g.example,
            unlike: g.unlike,
        })
        .collect()
}

/// Whether some fetched page of `map` lies in `directory` ([`verdict`]'s form): a verdict on a
/// directory holding none would leave nothing out (a mistyped path).
pub fn holds_pages(map: &SiteMap, directory: &str) -> bool {
    map.nodes
        .iter()
        .any(|n| of(&n.url).as_deref() == Some(directory))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{Node, NodeState};

    /// An example in `mod/` among module targets, guides in the root and in `howto/`, and a
    /// page below θ in `ssl/`.
    fn map() -> SiteMap {
        let t = NodeState::Target;
        let page = |url: &str, state: NodeState| Node::scored(url.to_string(), state, 0.9);
        SiteMap {
            entry: "http://s.test/en/index.html".into(),
            example: "http://s.test/en/mod/rewrite.html".into(),
            threshold: 0.8,
            nodes: vec![
                page("http://s.test/en/index.html", NodeState::Page),
                page("http://s.test/en/mod/rewrite.html", t.clone()),
                page("http://s.test/en/mod/alias.html", t.clone()),
                page("http://s.test/en/mod/core.html", t.clone()),
                page("http://s.test/en/caching.html", t.clone()),
                page("http://s.test/en/howto/cgi.html", t.clone()),
                page("http://s.test/en/howto/ssi.html?x=1", t),
                page("http://s.test/en/ssl/faq.html", NodeState::Page),
            ],
            ..SiteMap::default()
        }
    }

    #[test]
    fn a_directory_is_the_url_up_to_the_last_slash_of_its_path() {
        assert_eq!(
            of("http://S.test:80/en/howto/cgi.html?x=1#top").as_deref(),
            Some("http://s.test/en/howto/")
        );
        assert_eq!(of("http://s.test/").as_deref(), Some("http://s.test/"));
        assert_eq!(of("http://s.test").as_deref(), Some("http://s.test/"));
        // A page filed as a directory lies beside its siblings.
        assert_eq!(of("http://s.test/en/").as_deref(), Some("http://s.test/"));
        assert_eq!(
            of("http://s.test/job/123/?ref=x").as_deref(),
            Some("http://s.test/job/")
        );
        assert_eq!(of("file:///tmp/a.html"), None);
        assert_eq!(of("not a url"), None);
    }

    #[test]
    fn verdicts_name_directories_absolutely_or_from_the_root() {
        let base = "http://s.test/en/index.html";
        assert_eq!(
            verdict("http://s.test/en/howto/").as_deref(),
            Some("http://s.test/en/howto/")
        );
        for bad in [
            "http://s.test/en/howto/cgi.html",
            "http://s.test/en/howto",
            "http://s.test/en/?q=1/",
            "/en/howto/",
            "en/howto/",
            "",
        ] {
            assert_eq!(verdict(bad), None, "{bad:?}");
        }
        for typed in ["/en/howto/", "/en/howto", " http://s.test/en/howto "] {
            assert_eq!(
                resolve(base, typed).as_deref(),
                Some("http://s.test/en/howto/"),
                "{typed:?}"
            );
        }
        assert_eq!(resolve(base, "/").as_deref(), Some("http://s.test/"));
        assert_eq!(resolve(base, "en/howto"), None);
        assert_eq!(resolve(base, "//other.test/x/"), None);
    }

    #[test]
    fn a_directory_verdict_leaves_its_targets_out_but_the_example_and_pages_judged_like() {
        let m = map();
        let unlike = vec![
            "http://s.test/en/howto/".to_string(),
            "http://s.test/en/mod/".to_string(),
        ];
        let like: HashSet<&str> = ["http://s.test/en/mod/core.html"].into_iter().collect();
        let out: Vec<&str> = left_out(&m, &unlike, &like)
            .into_iter()
            .map(|i| m.nodes[i as usize].url.as_str())
            .collect();
        assert_eq!(
            out,
            vec![
                "http://s.test/en/howto/cgi.html",
                "http://s.test/en/howto/ssi.html?x=1",
                "http://s.test/en/mod/alias.html"
            ]
        );
        assert!(refused(&unlike, "http://s.test/en/howto/new.html"));
        assert!(!refused(&unlike, "http://s.test/en/caching.html"));
        assert!(!refused(&unlike, "http://s.test/en/howto/deeper/page.html"));
        assert!(!refused(&[], "http://s.test/en/howto/new.html"));
    }

    #[test]
    fn targets_are_listed_by_directory_with_those_left_out() {
        let mut m = map();
        m.nodes[5].state = NodeState::Page;
        let k = kinds(
            &m,
            &["http://s.test/en/howto/cgi.html".into()],
            &["http://s.test/en/howto/".into()],
        );
        let rows: Vec<(&str, usize, bool, bool)> = k
            .iter()
            .map(|k| (k.directory.as_str(), k.targets, k.example, k.unlike))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("http://s.test/en/mod/", 3, true, false),
                ("http://s.test/en/howto/", 2, false, true),
            ]
        );
        assert_eq!(
            k[1].samples,
            vec![
                "http://s.test/en/howto/cgi.html",
                "http://s.test/en/howto/ssi.html?x=1"
            ]
        );
        // Every target in one directory: no choice to offer.
        let mut one = map();
        one.nodes.truncate(4);
        assert!(kinds(&one, &[], &[]).is_empty());
        assert!(holds_pages(&m, "http://s.test/en/ssl/"));
        assert!(!holds_pages(&m, "http://s.test/en/misc/"));
    }

    #[test]
    fn the_list_is_cut_but_keeps_the_directories_judged_unlike() {
        let mut m = map();
        for i in 0..DIRECTORIES_SHOWN + 5 {
            for page in ["a", "b"] {
                m.nodes.push(Node::scored(
                    format!("http://s.test/d{i:02}/{page}.html"),
                    NodeState::Target,
                    0.9,
                ));
            }
        }
        let unlike = vec!["http://s.test/d34/".to_string()];
        let k = kinds(&m, &[], &unlike);
        assert_eq!(k.len(), DIRECTORIES_SHOWN + 1);
        assert!(k.iter().any(|k| k.directory == unlike[0] && k.unlike));
        assert_eq!(kinds(&m, &[], &[]).len(), DIRECTORIES_SHOWN);
        // All of them for a review written to a file: the original directories and the 35.
        let all = all_kinds(&m, &[], &[]);
        assert_eq!(
            all.len(),
            kinds(&map(), &[], &[]).len() + DIRECTORIES_SHOWN + 5
        );
    }

    #[test]
    fn items_filed_as_directories_are_one_group_and_lone_pages_none() {
        let t = NodeState::Target;
        let mut nodes = vec![Node::scored("http://s.test/".into(), NodeState::Page, 0.1)];
        for i in 0..50 {
            nodes.push(Node::scored(
                format!("http://s.test/job/{i}/"),
                t.clone(),
                0.9,
            ));
        }
        let mut m = SiteMap {
            entry: "http://s.test/".into(),
            example: "http://s.test/job/3/".into(),
            threshold: 0.8,
            nodes,
            ..SiteMap::default()
        };
        // One directory of 50 jobs: nothing to choose between.
        assert!(kinds(&m, &[], &[]).is_empty());
        // Lone pages elsewhere group nothing; a second directory of two does.
        for url in ["http://s.test/page/2/", "http://s.test/about.html"] {
            m.nodes.push(Node::scored(url.into(), t.clone(), 0.9));
        }
        assert!(kinds(&m, &[], &[]).is_empty());
        m.nodes
            .push(Node::scored("http://s.test/page/3/".into(), t.clone(), 0.9));
        let rows: Vec<(String, usize)> = kinds(&m, &[], &[])
            .into_iter()
            .map(|k| (k.directory, k.targets))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("http://s.test/job/".to_string(), 50),
                ("http://s.test/page/".to_string(), 2)
            ]
        );
    }
}
