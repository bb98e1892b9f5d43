//! Script-drawn pages in `./build.sh eval`: the `[[drawn]]` variants of `eval/real/sites.toml`
//! (the quotes application's `/js/`, `/js-delayed/`, `/scroll`), each run live on 127.0.0.1,
//! learned with rendering chosen as `exemplar learn` chooses it ([`run::choose_rendering`]) and
//! crawled as `exemplar crawl` does with the pattern.
//!
//! Ground truth: the application's data file (every quote it serves) for the items, and the
//! variant's path regex for the pages. Item recall is the share of the data's items that the
//! crawled targets show once rendered; precision, the share of crawled targets on the path.
use std::collections::HashSet;
use std::fmt::Write;
use std::sync::Arc;

use exemplar_core::crawler::CrawlConfig;
use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::MapConfig;
use exemplar_native::http::{Client, ClientConfig};
use exemplar_native::render::{RenderConfig, Renderer};
use exemplar_native::run::{self, MapStart, RenderMode};
use regex::Regex;

use crate::real_eval::real_dir;

/// One `[[drawn]]` entry.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Its name in the report.
    pub name: String,
    /// The application (`serve_app.py`'s name).
    pub app: String,
    /// Entry and example paths (no leading `/`).
    pub entry: String,
    /// See `entry`.
    pub example: String,
    /// Pages of the example's kind: their path matches it.
    pub target: Regex,
    /// The items every target together must show.
    pub items: HashSet<String>,
    /// How an item shows in a page (first group).
    pub item_re: Regex,
}

/// The variants the site list names.
///
/// # Errors
/// When the list or a data file cannot be read, or a regex is malformed.
pub fn variants() -> Result<Vec<Variant>, String> {
    let dir = real_dir();
    let path = dir.join("sites.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for v in doc
        .get("drawn")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
    {
        let field = |k: &str| {
            v.get(k)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or(format!("{}: a [[drawn]] entry lacks {k}", path.display()))
        };
        let name = field("name")?;
        let regex = |k: &str| -> Result<Regex, String> {
            Regex::new(&field(k)?).map_err(|e| format!("{name}: {k}: {e}"))
        };
        let items = items_of(&dir.join(field("items")?), None)?;
        out.push(Variant {
            app: field("live")?,
            entry: field("entry")?,
            example: field("example")?,
            target: regex("target")?,
            item_re: regex("item_re")?,
            items,
            name,
        });
    }
    Ok(out)
}

/// The `text` of each record of a JSON Lines data file, normalised ([`normalise`]); with
/// `with`, only the records whose field of that name is a non-empty list or string.
///
/// # Errors
/// The file cannot be read.
pub(crate) fn items_of(
    data: &std::path::Path,
    with: Option<&str>,
) -> Result<HashSet<String>, String> {
    Ok(std::fs::read_to_string(data)
        .map_err(|e| format!("{}: {e}", data.display()))?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| {
            with.is_none_or(|w| match r.get(w) {
                Some(serde_json::Value::Array(a)) => !a.is_empty(),
                Some(serde_json::Value::String(s)) => !s.is_empty(),
                _ => false,
            })
        })
        .filter_map(|r| r.get("text").and_then(|t| t.as_str()).map(normalise))
        .collect())
}

/// An item's text as compared: the few entities a template writes decoded, whitespace collapsed.
pub(crate) fn normalise(s: &str) -> String {
    s.replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// One variant's figures.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// The variant.
    pub name: String,
    /// Whether learning chose to render, and why.
    pub rendering: String,
    /// Targets crawled, and of them on the variant's path.
    pub crawled: usize,
    /// See `crawled`.
    pub crawled_true: usize,
    /// Items of the data, and of them shown by the crawled targets.
    pub items: usize,
    /// See `items`.
    pub items_found: usize,
    /// Pages fetched and rendered crawling.
    pub fetched: usize,
    /// See `fetched`.
    pub rendered: usize,
    /// Regexes of each level.
    pub levels: Vec<usize>,
    /// Seconds learning, crawling.
    pub learn_secs: f64,
    /// See `learn_secs`.
    pub crawl_secs: f64,
}

impl Figures {
    /// The bar: precision 100%, item recall ≥ 99%, fetched ≤ 1.2 × targets (rendered
    /// pages counted apart), ≤ 3 regexes a level.
    pub fn meets_bar(&self) -> bool {
        self.crawled > 0
            && self.crawled_true == self.crawled
            && self.items_found as f64 >= 0.99 * self.items as f64
            && self.fetched as f64 <= 1.2 * self.crawled as f64
            && self.levels.iter().all(|&n| n <= 3)
    }
}

/// Learns and crawls one variant.
///
/// # Errors
/// When the application cannot be started, or learning or crawling fails.
pub fn evaluate(v: &Variant, log: &mut dyn FnMut(String)) -> Result<Figures, String> {
    let app = exemplar_testkit::live_apps::start(&v.app)?;
    let entry = format!("{}/{}", app.base, v.entry);
    let example = format!("{}/{}", app.base, v.example);
    let politeness = Politeness::unthrottled(2);
    let started = std::time::Instant::now();
    let mut client = ClientConfig::default();
    let page = run::fetch_page(&Client::new(&client), &example)?;
    let choice = run::choose_rendering(RenderMode::Auto, page, RenderConfig::default())?;
    client.renderer = choice.renderer;
    let learned = run::map_site(
        MapStart::Fetched {
            entry: entry.clone(),
            example: choice.example,
            config: Box::new(MapConfig {
                politeness: politeness.clone(),
                ..MapConfig::default()
            }),
        },
        &client,
        &mut |_, _| {},
        None,
    )?
    .learn()?;
    let learn_secs = started.elapsed().as_secs_f64();
    let mut pattern = learned.pattern;
    pattern.render = client.renderer.is_some();
    log(format!("{}: {}\n{}", v.name, choice.why, pattern.render()));
    let levels = pattern.levels.iter().map(|l| l.regexes.len()).collect();
    // The crawl's own browser, as `exemplar crawl` starts one for a pattern that renders.
    let renderer = if pattern.render {
        Some(Arc::new(Renderer::new(RenderConfig::default())?))
    } else {
        None
    };
    let client = ClientConfig {
        renderer: renderer.clone(),
        ..ClientConfig::default()
    };
    let mut pages: Vec<(String, String)> = Vec::new();
    let started = std::time::Instant::now();
    let crawled = run::crawl(
        pattern,
        CrawlConfig {
            politeness: Some(politeness),
            ..CrawlConfig::default()
        },
        false,
        &client,
        &mut |t| {
            pages.push((t.url.clone(), String::from_utf8_lossy(&t.body).into_owned()));
            Ok(())
        },
        &mut |_, _| {},
    )?;
    let crawl_secs = started.elapsed().as_secs_f64();
    let on_path = |u: &str| {
        url::Url::parse(u)
            .ok()
            .is_some_and(|u| v.target.is_match(u.path()))
    };
    let shown: HashSet<String> = pages
        .iter()
        .flat_map(|(_, html)| {
            v.item_re
                .captures_iter(html)
                .filter_map(|c| c.get(1).map(|m| normalise(m.as_str())))
                .collect::<Vec<_>>()
        })
        .collect();
    Ok(Figures {
        name: v.name.clone(),
        rendering: if client.renderer.is_some() {
            "chosen".into()
        } else {
            "not chosen".into()
        },
        crawled: pages.len(),
        crawled_true: pages.iter().filter(|(u, _)| on_path(u)).count(),
        items: v.items.len(),
        items_found: v.items.intersection(&shown).count(),
        fetched: crawled.progress.fetched,
        rendered: renderer.map_or(0, |r| r.rendered()),
        levels,
        learn_secs,
        crawl_secs,
    })
}

/// The section of `docs/reports/crawl.md` on script-drawn pages, and whether every variant
/// meets the bar. A variant that cannot be run gets the reason in place of its row.
///
/// # Errors
/// When the list cannot be read.
pub fn report(log: &mut dyn FnMut(String)) -> Result<(String, bool), String> {
    let mut md = String::from(
        "\n## Script-drawn pages\n\nThe `[[drawn]]` variants of `eval/real/sites.toml`, development material: the live quotes application's pages whose quotes a script draws (`/js/`: from data in the page; `/js-delayed/`: after a 10 s timer; `/scroll`: one page loading `/api/quotes?page=N` as it is scrolled). Learned as `exemplar learn` does (rendering chosen from the example page fetched and rendered), crawled as `exemplar crawl` does with the pattern. *Items*: the application's quotes (its data file) shown by the crawled targets once rendered; *precision*: crawled targets on the variant's path; *fetched*: pages fetched crawling, the rendered among them counted apart. Bar: precision 100%, items ≥ 99%, fetched ≤ 1.2 × targets, ≤ 3 regexes a level.\n\n| variant | rendering | targets crawled | precision | items shown | pages fetched | of them rendered | fetched / target | levels: alternatives | s learning | s crawling | bar |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut ok = true;
    let mut failures = String::new();
    for v in variants()? {
        match evaluate(&v, log) {
            Ok(f) => {
                ok &= f.meets_bar();
                let pct = |a: usize, b: usize| {
                    if b == 0 {
                        "–".to_string()
                    } else {
                        format!("{:.1}%", 100.0 * a as f64 / b as f64)
                    }
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} of {} ({}) | {} | {} | {:.2} | {} | {:.1} | {:.1} | {} |",
                    f.name,
                    f.rendering,
                    f.crawled,
                    pct(f.crawled_true, f.crawled),
                    f.items_found,
                    f.items,
                    pct(f.items_found, f.items),
                    f.fetched,
                    f.rendered,
                    f.fetched as f64 / f.crawled.max(1) as f64,
                    f.levels
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(" / "),
                    f.learn_secs,
                    f.crawl_secs,
                    if f.meets_bar() { "met" } else { "**not met**" }
                );
            }
            Err(e) => {
                ok = false;
                let _ = writeln!(failures, "- {}: not measured: {e}", v.name);
            }
        }
    }
    md.push_str(&failures);
    Ok((md, ok))
}
