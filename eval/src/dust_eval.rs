//! Lab: rules for duplicate URLs within one site (DUST, [`exemplar_core::dust`]) measured on
//! real documentation sites served on 127.0.0.1 with the URL habits that make one page answer
//! under several URLs ([`Habit`]). On each site and habit: learn from the site's example page
//! (mapping mines the rules), crawl with the pattern as learned and again with its rules taken
//! out, and count at the server the page fetches that were copies of a page already fetched.
//!
//! Contract: a session id is minted by every page for its links (as a crawler without cookies
//! meets them); another habit rewrites the links of a seeded half of the site's pages (chosen by
//! the page's file, so a page links the same way under every URL it answers). The server answers
//! every form a habit writes (`?s=`, `?sid=`, `?from=`, `/latest/`, `dir/index.html` and `dir/`).
//! A fetch is a copy when the file it served (the request's path without query, `/latest/` and
//! `index.html`) was served before in the same crawl. Avoidable copies are the crawl's without
//! rules; avoided, those the crawl with rules did not fetch; a page is lost when a target file
//! the crawl without rules collected is missing from the crawl with rules.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use exemplar_native::serve::{Request, Response, Server, static_dir};
use exemplar_testkit::devsites::{self, DevSite};

use crate::crawl_eval::{crawl_local, learn_local};
use crate::replicas::html::rewrite;
use crate::replicas::mix;

/// A URL habit that gives the site's pages a second URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Habit {
    /// A session id in the query under a name the canonical form does not know (`?s=HEX`, as
    /// vBulletin writes it), minted by each linking page on every page: a page under as many
    /// URLs as pages link it.
    SessionQuery,
    /// The same under a name the canonical form drops (`?sid=HEX`): no rule is needed.
    KnownSession,
    /// A parameter of one value saying where the link was (`?from=nav`).
    Referrer,
    /// The site also under `/latest/` (as documentation sites alias a version): links of the
    /// pages chosen go there, and a page fetched there links there.
    Prefix,
    /// Directories linked as `dir/index.html` where the site says `dir/`, and the other way.
    IndexHtml,
}

impl Habit {
    /// Every habit, in report order.
    pub const ALL: [Habit; 5] = [
        Habit::SessionQuery,
        Habit::KnownSession,
        Habit::Referrer,
        Habit::Prefix,
        Habit::IndexHtml,
    ];

    /// Whether every page's links take it (a session id), not a seeded half's.
    fn everywhere(self) -> bool {
        matches!(self, Habit::SessionQuery | Habit::KnownSession)
    }

    /// Its name in the report and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Habit::SessionQuery => "session-query",
            Habit::KnownSession => "known-session",
            Habit::Referrer => "referrer",
            Habit::Prefix => "prefix",
            Habit::IndexHtml => "index-html",
        }
    }

    /// A link of the page at `page` (the decoded path it was served as) rewritten under the
    /// habit, when it is a link to a page of the site.
    fn link(self, page: &str, link: &str) -> Option<String> {
        let base = url::Url::parse(&format!("http://site{page}")).ok()?;
        let to = base.join(link).ok()?;
        if to.host_str() != Some("site") || !is_page(to.path()) {
            return None;
        }
        let (head, fragment) = match link.split_once('#') {
            Some((h, f)) => (h, format!("#{f}")),
            None => (link, String::new()),
        };
        if head.is_empty() {
            return None; // a link within the page
        }
        let join = |param: &str| {
            let sep = if head.contains('?') { '&' } else { '?' };
            Some(format!("{head}{sep}{param}{fragment}"))
        };
        match self {
            Habit::SessionQuery => join(&format!("s={:016x}", mix(7, file_of(page).as_str()))),
            Habit::KnownSession => join(&format!("sid={:016x}", mix(7, file_of(page).as_str()))),
            Habit::Referrer => join("from=nav"),
            Habit::Prefix => {
                let path = to.path();
                let path = path
                    .strip_prefix(PREFIX.trim_end_matches('/'))
                    .filter(|p| p.starts_with('/'))
                    .unwrap_or(path);
                let query = to.query().map(|q| format!("?{q}")).unwrap_or_default();
                Some(format!(
                    "{}{path}{query}{fragment}",
                    PREFIX.trim_end_matches('/')
                ))
            }
            Habit::IndexHtml => {
                let (path, query) = head.split_once('?').map_or((head, ""), |(p, q)| (p, q));
                let query = if query.is_empty() {
                    String::new()
                } else {
                    format!("?{query}")
                };
                let new = if let Some(dir) = path.strip_suffix("index.html") {
                    if !(dir.is_empty() || dir.ends_with('/')) {
                        return None;
                    }
                    if dir.is_empty() { "./" } else { dir }.to_string()
                } else if path.ends_with('/') {
                    format!("{path}index.html")
                } else {
                    return None;
                };
                Some(format!("{new}{query}{fragment}"))
            }
        }
    }
}

/// Copies of the crawl with rules a run keeps, to be shown.
const COPIES_SHOWN: usize = 6;

/// The alias prefix [`Habit::Prefix`] serves the site under.
const PREFIX: &str = "/latest/";

/// Whether a URL path names a page (not a style sheet, image or script).
fn is_page(path: &str) -> bool {
    path.ends_with('/') || path.ends_with(".html") || path.ends_with(".htm")
}

/// The site file a request path (without query) is served from: `/latest/` and a final
/// `index.html` taken away, the leading `/` kept.
fn file_of(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let path = match path.strip_prefix(PREFIX) {
        Some(rest) => format!("/{rest}"),
        None => path.to_string(),
    };
    if path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path
    }
}

/// The pages a crawl was served: each HTML answer's file and the request's path, in order.
type Served = Arc<Mutex<Vec<(String, String)>>>;

/// A handler serving `site` under `habit`: the static files, the `/latest/` alias for
/// [`Habit::Prefix`], and the links of a seeded half of the pages rewritten; each HTML answer's
/// file is recorded in `served`.
fn handler(
    site: &DevSite,
    habit: Option<Habit>,
    served: Served,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let files = static_dir(site.root.clone());
    move |req: &Request| {
        let mut req = req.clone();
        if habit == Some(Habit::Prefix)
            && let Some(rest) = req.path.strip_prefix(PREFIX)
        {
            req.path = format!("/{rest}");
        }
        let mut resp = files(&req);
        let html = resp
            .headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v.starts_with("text/html"));
        if resp.status != 200 || !html {
            return resp;
        }
        let file = file_of(&req.path);
        if let Ok(mut s) = served.lock() {
            s.push((file.clone(), req.path.clone()));
        }
        if let Some(habit) = habit
            && (habit.everywhere() || mix(11, &file) % 2 == 1)
        {
            let page = req.path.split('?').next().unwrap_or("/").to_string();
            resp.body = rewrite(&resp.body, |link| habit.link(&page, link), None);
        }
        resp
    }
}

/// One site under one habit (or none).
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// The site.
    pub site: String,
    /// Rules learned, as the pattern shows them.
    pub rules: Vec<String>,
    /// Page fetches of the crawl without rules, and of copies among them.
    pub fetched_without: usize,
    /// Copies among them (avoidable).
    pub copies_without: usize,
    /// Page fetches of the crawl with the rules.
    pub fetched_with: usize,
    /// Copies among them (the rules' probes included).
    pub copies_with: usize,
    /// The first few of those copies' requests.
    pub copied_with: Vec<String>,
    /// Copies the crawl with rules reported avoided.
    pub reported_avoided: usize,
    /// Rules a probe refuted.
    pub refuted: usize,
    /// Distinct target files of the crawl without rules.
    pub targets_without: usize,
    /// Target files the crawl without rules collected and the crawl with rules did not.
    pub lost: Vec<String>,
}

impl Run {
    /// Copies the rules avoided.
    pub fn avoided(&self) -> usize {
        self.copies_without.saturating_sub(self.copies_with)
    }
}

/// Fetches and copies among the files `served` recorded since `from`, and the copies' requests.
fn copies(served: &Served, from: usize) -> (usize, Vec<String>) {
    let s = served
        .lock()
        .map(|s| s[from..].to_vec())
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let copies = s
        .iter()
        .filter(|(file, _)| !seen.insert(file.clone()))
        .map(|(_, req)| req.clone())
        .collect();
    (s.len(), copies)
}

/// Learns and crawls `site` under `habit` (or as it is), with and without the rules learned.
///
/// # Errors
/// When the site cannot be served, learned or crawled.
pub fn run(site: &DevSite, habit: Option<Habit>) -> Result<Run, String> {
    let served: Served = Arc::default();
    let server = Server::start(0, handler(site, habit, served.clone()))
        .map_err(|e| format!("{}: cannot serve: {e}", site.name))?;
    let base = server.url();
    let learned = learn_local(
        &format!("{base}/{}", site.entry),
        &format!("{base}/{}", site.example),
    )?;
    let pattern = learned.pattern;
    let target_files = |targets: &[String]| -> BTreeSet<String> {
        targets
            .iter()
            .filter_map(|u| url::Url::parse(u).ok())
            .map(|u| file_of(u.path()))
            .collect()
    };
    let mut bare = pattern.clone();
    bare.dust_rules.clear();
    let mark = served.lock().map(|s| s.len()).unwrap_or(0);
    let without = crawl_local(bare)?;
    let (fetched_without, copied_without) = copies(&served, mark);
    let mark = served.lock().map(|s| s.len()).unwrap_or(0);
    let with = crawl_local(pattern.clone())?;
    let (fetched_with, copied_with) = copies(&served, mark);
    let (t_without, t_with) = (target_files(&without.targets), target_files(&with.targets));
    Ok(Run {
        site: site.name.clone(),
        rules: pattern
            .dust_rules
            .iter()
            .map(|r| format!("{} ({} pairs)", r.rewrite.describe(), r.support))
            .collect(),
        fetched_without,
        copies_without: copied_without.len(),
        fetched_with,
        copies_with: copied_with.len(),
        copied_with: copied_with.into_iter().take(COPIES_SHOWN).collect(),
        reported_avoided: with.progress.duplicates_avoided,
        refuted: with.progress.duplicate_rules_refuted,
        targets_without: t_without.len(),
        lost: t_without.difference(&t_with).cloned().collect(),
    })
}

/// The sites of each split: the development sites (settings are chosen on them) and four
/// held-out sites of other generators (figures are reported on them).
pub fn splits() -> Result<Vec<(&'static str, Vec<DevSite>)>, String> {
    let dev = devsites::load(Path::new(devsites::DEFAULT_SITES))?;
    let heldout = devsites::load(Path::new(devsites::HELDOUT_SITES))?;
    let test: Vec<DevSite> = heldout
        .into_iter()
        .filter(|s| TEST_SITES.contains(&s.name.as_str()))
        .collect();
    Ok(vec![("dev", dev), ("test", test)])
}

/// The held-out sites the test split takes (of a size a run affords; other generators than the
/// development sites').
const TEST_SITES: &[&str] = &["git", "sqlite", "yard", "erlang"];

/// Every run of `sites`, the plain site first, then each habit; sites not installed skipped.
fn runs(sites: &[DevSite], log: &mut dyn FnMut(String)) -> BTreeMap<Option<Habit>, Vec<Run>> {
    let mut out: BTreeMap<Option<Habit>, Vec<Run>> = BTreeMap::new();
    for site in sites.iter().filter(|s| s.available()) {
        for habit in std::iter::once(None).chain(Habit::ALL.map(Some)) {
            let name = habit.map_or("none", Habit::name);
            match run(site, habit) {
                Ok(r) => {
                    log(format!(
                        "{} {name}: rules {:?}; copies {} of {} without rules, {} of {} with \
                         ({} reported avoided, {} rules refuted; {:?}); {} lost",
                        site.name,
                        r.rules,
                        r.copies_without,
                        r.fetched_without,
                        r.copies_with,
                        r.fetched_with,
                        r.reported_avoided,
                        r.refuted,
                        r.copied_with,
                        r.lost.len()
                    ));
                    out.entry(habit).or_default().push(r);
                }
                Err(e) => log(format!("{} {name}: {e}", site.name)),
            }
        }
    }
    out
}

/// The report's section: per split and habit, the copies avoided and the pages lost.
pub fn report(splits: &[(&str, Vec<DevSite>)], log: &mut dyn FnMut(String)) -> String {
    let mut r = String::from(
        "## Duplicate URLs within a site (DUST rules)\n\n\
         Each site is served with a URL habit that gives its pages more URLs: a session id every \
         page mints for all its links (`?s=`, a name the canonical form does not know; \
         `known-session`: `?sid=`, one it drops), or on the links of a seeded half of the pages \
         a referrer parameter (`?from=nav`), the `/latest/` alias of the whole site, or `dir/` \
         written `dir/index.html` and the other way. It is learned from its example page \
         (mapping mines the rules), then crawled with the rules and without them. A copy is a \
         page fetch whose file was already served in that crawl; the crawl with rules counts its \
         probes (two a rule) among its copies. *Lost*: target pages the crawl without rules \
         collected and the one with rules did not. The development sites were used to build \
         this; the test sites were run once, after.\n\n",
    );
    for (split, sites) in splits {
        let all = runs(sites, log);
        let names: Vec<&str> = sites
            .iter()
            .filter(|s| s.available())
            .map(|s| s.name.as_str())
            .collect();
        let _ = writeln!(
            r,
            "### {split} ({})\n\n| habit | sites with a rule | copies without rules | copies with \
             rules | avoided | pages lost |\n|---|---:|---:|---:|---:|---:|",
            names.join(", ")
        );
        let (mut avoidable, mut avoided) = (0, 0);
        for (habit, runs) in &all {
            let ruled = runs.iter().filter(|x| !x.rules.is_empty()).count();
            let without: usize = runs.iter().map(|x| x.copies_without).sum();
            let with: usize = runs.iter().map(|x| x.copies_with).sum();
            let saved: usize = runs.iter().map(Run::avoided).sum();
            let lost: usize = runs.iter().map(|x| x.lost.len()).sum();
            if habit.is_some() {
                avoidable += without;
                avoided += saved;
            }
            let _ = writeln!(
                r,
                "| {} | {ruled} of {} | {without} | {with} | {} | {lost} |",
                habit.map_or("none (the site as it is)", Habit::name),
                runs.len(),
                share(saved, without),
            );
        }
        let _ = writeln!(
            r,
            "\nAll habits: {} of the avoidable copies avoided ({avoided} of {avoidable}).\n",
            share(avoided, avoidable)
        );
        r.push_str("Rules learned:\n\n");
        for (habit, runs) in &all {
            for x in runs.iter().filter(|x| !x.rules.is_empty()) {
                let _ = writeln!(
                    r,
                    "- {} {}: {}",
                    x.site,
                    habit.map_or("none", Habit::name),
                    x.rules.join("; ")
                );
            }
        }
        r.push('\n');
    }
    r
}

/// `part of whole` as a percentage, or `–` when there is nothing.
fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::{Habit, file_of};

    #[test]
    fn habits_rewrite_page_links_only_and_keep_fragments() {
        let page = "/lib/a.html";
        assert_eq!(
            Habit::Referrer.link(page, "b.html#x").as_deref(),
            Some("b.html?from=nav#x")
        );
        assert_eq!(Habit::Referrer.link(page, "style.css"), None);
        assert_eq!(Habit::Referrer.link(page, "http://other/b.html"), None);
        assert_eq!(Habit::Referrer.link(page, "#top"), None);
        assert_eq!(
            Habit::Prefix.link(page, "../c/d.html?q=1").as_deref(),
            Some("/latest/c/d.html?q=1")
        );
        assert_eq!(
            Habit::Prefix
                .link("/latest/lib/a.html", "b.html")
                .as_deref(),
            Some("/latest/lib/b.html")
        );
        assert_eq!(
            Habit::IndexHtml.link(page, "sub/").as_deref(),
            Some("sub/index.html")
        );
        assert_eq!(
            Habit::IndexHtml.link(page, "index.html").as_deref(),
            Some("./")
        );
        assert_eq!(Habit::IndexHtml.link(page, "myindex.html"), None);
        let sid = Habit::SessionQuery.link(page, "b.html").unwrap_or_default();
        assert!(sid.starts_with("b.html?s="), "{sid}");
        assert_eq!(
            Habit::SessionQuery.link("/latest/lib/a.html", "b.html"),
            Some(sid),
            "one id a page, whatever its URL"
        );
    }

    #[test]
    fn a_request_names_its_file() {
        assert_eq!(file_of("/latest/a/?sid=1"), "/a/index.html");
        assert_eq!(file_of("/a/b.html#x"), "/a/b.html");
        assert_eq!(file_of("/"), "/index.html");
    }
}

#[cfg(test)]
mod served {
    use super::{Habit, handler};
    use exemplar_native::serve::Request;

    #[test]
    fn the_chosen_pages_link_under_the_habit_and_the_copies_are_served() {
        let Ok(site) = exemplar_testkit::devsites::installed_site("postgres15") else {
            return;
        };
        let get = |habit, path: &str| {
            let h = handler(&site, Some(habit), std::sync::Arc::default());
            let req = Request {
                method: "GET".into(),
                path: path.into(),
                headers: vec![],
                body: vec![],
            };
            let r = h(&req);
            (r.status, String::from_utf8_lossy(&r.body).into_owned())
        };
        // Every page mints its own session id.
        let (_, home) = get(Habit::SessionQuery, "/index.html");
        let (_, preface) = get(Habit::SessionQuery, "/preface.html?s=1");
        let sid = |body: &str| {
            body.split("?s=")
                .nth(1)
                .map(|s| s[..16].to_string())
                .unwrap_or_default()
        };
        assert!(home.contains("\"preface.html?s="), "{home}");
        assert!(!sid(&home).is_empty() && sid(&home) != sid(&preface));
        // A referrer marks the links of some pages, not of others.
        let pages = [
            "/index.html",
            "/preface.html",
            "/tutorial.html",
            "/sql.html",
            "/admin.html",
        ];
        let marked: Vec<bool> = pages
            .iter()
            .map(|p| get(Habit::Referrer, p).1.contains("?from=nav"))
            .collect();
        assert!(
            marked.contains(&true) && marked.contains(&false),
            "{marked:?}"
        );
        // The alias answers as the original.
        let (status, latest) = get(Habit::Prefix, "/latest/preface.html");
        assert_eq!(status, 200);
        assert!(latest.contains("<title>Preface"), "{latest}");
    }
}
