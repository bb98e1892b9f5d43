//! The real sites of `eval/real/sites.toml` in `./build.sh eval`: each static mirror measured
//! as the documentation sites are ([`crate::crawl_eval::evaluate`]), and each live application
//! (`eval/real/serve_app.py`, [`exemplar_testkit::live_apps`]) run on 127.0.0.1, learned from its entry page and crawled.
//!
//! The live applications' ground truth is what a visitor can reach: the URLs a plain
//! breadth-first walk over every same-host link finds ([`walk`], Exemplar's own link extraction,
//! no pattern), those matching the site's `live_target` path regex being targets. Their
//! mirrors' ground truth is the labelling rules, as for every site.
use std::collections::{HashSet, VecDeque};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use exemplar_core::fetch::FetchResult;
use exemplar_html::{Page, ParseOptions};
use exemplar_native::http::{Client, ClientConfig};
use exemplar_testkit::devsites::{self, DevSite};
use regex::Regex;

use crate::crawl_eval::{self, SiteFigures};

/// `eval/real/`: the site list, the mirrors, the applications.
pub fn real_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("real")
}

/// The mirrors of `eval/real/sites.toml`, rooted at `eval/real/sites/`.
///
/// # Errors
/// When the list cannot be read.
pub fn static_sites() -> Result<Vec<DevSite>, String> {
    let dir = real_dir();
    devsites::load_rooted(&dir.join("sites.toml"), &dir.join("sites"))
}

/// A live application of `eval/real/sites.toml` (its `live`, `live_example`, `live_target`).
#[derive(Clone, Debug)]
pub struct LiveSite {
    /// The site's name.
    pub name: String,
    /// The application's name for `serve_app.py`.
    pub app: String,
    /// The example page's path (no leading `/`).
    pub example: String,
    /// Target pages: their URL path matches it.
    pub target: Regex,
}

/// The live applications the site list names.
///
/// # Errors
/// When the list cannot be read or a regex is malformed.
pub fn live_sites() -> Result<Vec<LiveSite>, String> {
    let path = real_dir().join("sites.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for site in doc
        .get("site")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
    {
        let field = |k: &str| site.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let (Some(name), Some(app), Some(example), Some(target)) = (
            field("name"),
            field("live"),
            field("live_example"),
            field("live_target"),
        ) else {
            continue;
        };
        let target = Regex::new(&target).map_err(|e| format!("{name}: live_target: {e}"))?;
        out.push(LiveSite {
            name,
            app,
            example,
            target,
        });
    }
    Ok(out)
}

/// The same-host URLs a breadth-first walk from `entry` reaches over plain links (at most
/// `max_pages` fetched), as final URLs after redirects, fragments dropped.
pub fn walk(entry: &str, max_pages: usize) -> HashSet<String> {
    let client = Client::new(&ClientConfig::default());
    let options = ParseOptions::default();
    let host = |u: &str| {
        url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
    };
    let own = host(entry);
    let mut queued: HashSet<String> = HashSet::from([entry.to_string()]);
    let mut reached: HashSet<String> = HashSet::new();
    let mut queue = VecDeque::from([entry.to_string()]);
    let mut fetched = 0;
    while let Some(url) = queue.pop_front() {
        if fetched >= max_pages {
            break;
        }
        fetched += 1;
        let FetchResult::Response(r) = client.get(&url) else {
            continue;
        };
        if r.status != 200 || host(&r.final_url) != own {
            continue;
        }
        reached.insert(r.final_url.clone());
        let Ok(page) = Page::parse(&r.body, &r.final_url, None, &options) else {
            continue;
        };
        for link in page.links {
            if host(&link.url) == own && queued.insert(link.url.clone()) {
                queue.push_back(link.url);
            }
        }
    }
    reached
}

/// A live site's path for comparing: the URL's path and query, a trailing `/` dropped (a link
/// to `/author/X` is answered at `/author/X/`).
fn live_key(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return url.to_string();
    };
    let path = u.path().trim_end_matches('/');
    match u.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    }
}

/// Learns and crawls one live application; the figures as [`crawl_eval::evaluate`]'s
/// (without the review's and the unseen pages' measures).
///
/// # Errors
/// When the application cannot be started, or learning or crawling fails.
pub fn evaluate_live(site: &LiveSite, log: &mut dyn FnMut(String)) -> Result<SiteFigures, String> {
    let app = exemplar_testkit::live_apps::start(&site.app)?;
    let entry = format!("{}/", app.base);
    let example = format!("{}/{}", app.base, site.example);
    let reached = walk(&entry, 20_000);
    let is_target = |u: &str| {
        url::Url::parse(u)
            .ok()
            .is_some_and(|u| site.target.is_match(u.path()))
    };
    let truth: HashSet<String> = reached
        .iter()
        .filter(|u| is_target(u))
        .map(|u| live_key(u))
        .collect();
    let learned = crawl_eval::learn_local(&entry, &example)?;
    log(format!(
        "{} (live): mapped {} pages, {} targets\n{}",
        site.name,
        learned.progress.fetched,
        learned.progress.targets,
        learned.pattern.render()
    ));
    let mapped: Vec<String> = learned
        .map
        .targets()
        .map(|t| live_key(&learned.map.nodes[t as usize].url))
        .collect();
    let crawled = crawl_eval::crawl_local(learned.pattern.clone())?;
    let got: Vec<String> = crawled.targets.iter().map(|u| live_key(u)).collect();
    Ok(SiteFigures {
        reachable: truth.len(),
        ..crawl_eval::crawl_figures(
            &format!("{} (live)", site.name),
            &truth,
            &mapped,
            &got,
            &learned,
            &crawled,
        )
    })
}

/// The section of `docs/reports/crawl.md` on the real sites: the mirrors, then the live
/// applications, each a row of the documentation sites' table, with the learned pattern's
/// regexes; and whether every row meets the bar. A live application that cannot be started
/// gets the reason in place of its row.
///
/// # Errors
/// When a mirror cannot be learned.
pub fn report(log: &mut dyn FnMut(String)) -> Result<(String, bool), String> {
    let mut rows: Vec<SiteFigures> = Vec::new();
    for site in static_sites()? {
        let mut f = crawl_eval::evaluate(&site, log)?;
        f.name = format!("{} (mirror)", f.name);
        rows.push(f);
    }
    let mut failures = String::new();
    for site in live_sites()? {
        match evaluate_live(&site, log) {
            Ok(f) => rows.push(f),
            Err(e) => {
                let _ = writeln!(failures, "- {} (live): not measured: {e}", site.name);
            }
        }
    }
    let mut md = String::from(
        "\n## Real sites\n\nThe sites of `eval/real/sites.toml`, development material: a shop (Zyte's test shop, the 1,000 books of books.toscrape.com in a category tree) and a directory (quotes.toscrape.com: 50 author pages among paged quote lists and tag lists). *Mirror*: the static copy served as files, ground truth by the site's labelling rules. *Live*: the real application (`eval/real/serve_app.py`, `?page=N` pagination, a working search form), ground truth the pages of the target path (`live_target`) that a breadth-first walk over every link reaches. Nothing is rendered in this table: neither site draws these pages with scripts (the script-drawn variants follow). Same settings and bar as above; *levels: alternatives* is the regexes per level (aim: at most 3).\n\n",
    );
    md.push_str(crawl_eval::TABLE_HEADER);
    let mut ok = failures.is_empty();
    for f in &rows {
        ok &= f.meets_bar();
        crawl_eval::table_row(&mut md, f);
    }
    md.push_str(&failures);
    for f in &rows {
        crawl_eval::misses(&mut md, f);
    }
    Ok((md, ok))
}
