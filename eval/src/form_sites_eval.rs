//! Search forms of real applications in `./build.sh eval`: the `[[form]]` entries of
//! `eval/real/sites.toml`, each run live on 127.0.0.1, learned as `exemplar learn` does (an
//! example given as the POST a browser made, `--example-data`, or links denied so the form is
//! the only way in) and crawled as `exemplar crawl` does with the pattern.
//!
//! Ground truth: the target pages' path regex for precision; for recall, the application's data
//! (the items the form can list: `items` with `item_re`, only records whose `items_with` field is
//! not empty) or the number of target pages it serves (`targets`). A form whose answers fill a
//! dependent select costs a step page per first choice: the row gives that floor, the fewest
//! pages any crawl through the form fetches (the form's page, a step per first choice, a result
//! per pair), beside the 1.2 × targets.
use std::collections::HashSet;
use std::fmt::Write;

use exemplar_core::crawler::CrawlConfig;
use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::MapConfig;
use exemplar_native::http::{Client, ClientConfig};
use exemplar_native::run::{self, MapStart};
use regex::Regex;

use crate::drawn_eval::{items_of, normalise};
use crate::real_eval::real_dir;

/// What recall is measured against.
#[derive(Clone, Debug)]
pub enum Truth {
    /// The items the form can list, and how one shows in a page (first group).
    Items {
        /// The items.
        items: HashSet<String>,
        /// How one shows.
        re: Regex,
    },
    /// The number of target pages the application serves.
    Targets(usize),
}

/// One `[[form]]` entry.
#[derive(Clone, Debug)]
pub struct FormSite {
    /// Its name in the report.
    pub name: String,
    /// The application (`serve_app.py`'s name).
    pub app: String,
    /// Entry and example paths (no leading `/`).
    pub entry: String,
    /// See `entry`.
    pub example: String,
    /// The POST body of the example, when it is a form's answer.
    pub example_data: Option<String>,
    /// Links never followed (`--deny`), so that the form is the way in.
    pub deny: Vec<String>,
    /// Target pages: their path matches it.
    pub target: Regex,
    /// See [`Truth`].
    pub truth: Truth,
}

/// The entries the site list names.
///
/// # Errors
/// When the list or a data file cannot be read, or a regex is malformed.
pub fn form_sites() -> Result<Vec<FormSite>, String> {
    let dir = real_dir();
    let path = dir.join("sites.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for v in doc
        .get("form")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
    {
        let opt = |k: &str| v.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let field =
            |k: &str| opt(k).ok_or(format!("{}: a [[form]] entry lacks {k}", path.display()));
        let name = field("name")?;
        let regex = |s: String, k: &str| Regex::new(&s).map_err(|e| format!("{name}: {k}: {e}"));
        let truth = match (
            opt("items"),
            v.get("targets").and_then(toml::Value::as_integer),
        ) {
            (Some(items), _) => {
                let items = items_of(&dir.join(items), opt("items_with").as_deref())?;
                Truth::Items {
                    items,
                    re: regex(field("item_re")?, "item_re")?,
                }
            }
            (None, Some(n)) => Truth::Targets(usize::try_from(n).unwrap_or(0)),
            (None, None) => return Err(format!("{name}: give items or targets")),
        };
        let deny = v
            .get("deny")
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_str().map(str::to_string))
            .collect();
        out.push(FormSite {
            app: field("live")?,
            entry: opt("entry").unwrap_or_default(),
            example: field("example")?,
            example_data: opt("example_data"),
            target: regex(field("target")?, "target")?,
            deny,
            truth,
            name,
        });
    }
    Ok(out)
}

/// One entry's figures.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// The entry.
    pub name: String,
    /// Targets crawled, and of them on the target path.
    pub crawled: usize,
    /// See `crawled`.
    pub crawled_true: usize,
    /// What recall counts (items of the data, or target pages), and of them found.
    pub truth: usize,
    /// See `truth`.
    pub found: usize,
    /// Pages fetched crawling.
    pub fetched: usize,
    /// Queries the crawl issued.
    pub queries: usize,
    /// The fewest pages a crawl through the form fetches, when its answers are steps
    /// (1 + steps + targets); None otherwise.
    pub floor: Option<usize>,
    /// Regexes of each level.
    pub levels: Vec<usize>,
    /// Seconds learning, crawling.
    pub learn_secs: f64,
    /// See `learn_secs`.
    pub crawl_secs: f64,
}

impl Figures {
    /// Precision 100% and recall ≥ 99%; fetched ≤ 1.2 × targets, or the floor where the form's
    /// steps make 1.2 unreachable; ≤ 3 regexes a level. A form that is the only way in (links
    /// denied) pays its result pages: its fetched pages are reported, not barred.
    pub fn meets_bar(&self, barred: bool) -> bool {
        let cap = (1.2 * self.crawled as f64).max(self.floor.unwrap_or(0) as f64);
        self.crawled > 0
            && self.crawled_true == self.crawled
            && self.found as f64 >= 0.99 * self.truth as f64
            && (!barred || self.fetched as f64 <= cap)
            && self.levels.iter().all(|&n| n <= 3)
    }
}

/// Learns and crawls one entry.
///
/// # Errors
/// When the application cannot be started, or learning or crawling fails.
pub fn evaluate(s: &FormSite, log: &mut dyn FnMut(String)) -> Result<Figures, String> {
    let app = exemplar_testkit::live_apps::start(&s.app)?;
    let entry = format!("{}/{}", app.base, s.entry);
    let mut example = format!("{}/{}", app.base, s.example);
    let client = ClientConfig::default();
    if let Some(data) = &s.example_data {
        example = run::example_post(&Client::new(&client), &entry, &example, data)?;
    }
    let politeness = Politeness::unthrottled(2);
    let started = std::time::Instant::now();
    let page = run::fetch_page(&Client::new(&client), &example)?;
    let learned = run::map_site(
        MapStart::Fetched {
            entry: entry.clone(),
            example: page,
            config: Box::new(MapConfig {
                politeness: politeness.clone(),
                deny: s.deny.clone(),
                ..MapConfig::default()
            }),
        },
        &client,
        &mut |_, _| {},
        None,
    )?
    .learn()?;
    let learn_secs = started.elapsed().as_secs_f64();
    let pattern = learned.pattern;
    log(format!("{}:\n{}", s.name, pattern.render()));
    let levels = pattern.levels.iter().map(|l| l.regexes.len()).collect();
    let dependent = pattern
        .levels
        .iter()
        .any(|l| l.form.as_ref().is_some_and(|f| !f.dependent.is_empty()));
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
            .is_some_and(|u| s.target.is_match(u.path()))
    };
    let true_targets: HashSet<&str> = pages
        .iter()
        .filter(|(u, _)| on_path(u))
        .map(|(u, _)| u.as_str())
        .collect();
    let (truth, found) = match &s.truth {
        Truth::Items { items, re } => {
            let shown: HashSet<String> = pages
                .iter()
                .flat_map(|(_, html)| {
                    re.captures_iter(html)
                        .filter_map(|c| c.get(1).map(|m| normalise(m.as_str())))
                        .collect::<Vec<_>>()
                })
                .collect();
            (items.len(), items.intersection(&shown).count())
        }
        Truth::Targets(n) => (*n, true_targets.len().min(*n)),
    };
    let queries = crawled.progress.queries;
    Ok(Figures {
        name: s.name.clone(),
        crawled: pages.len(),
        crawled_true: pages.iter().filter(|(u, _)| on_path(u)).count(),
        truth,
        found,
        fetched: crawled.progress.fetched,
        queries,
        // The form's page, a step per query (a first choice), a result per target.
        floor: dependent.then(|| 1 + queries + pages.len()),
        levels,
        learn_secs,
        crawl_secs,
    })
}

/// The section of `docs/reports/crawl.md` on the search forms of real applications, and whether
/// every entry meets the bar. An entry that cannot be run gets the reason in place of its row.
///
/// # Errors
/// When the list cannot be read.
pub fn report(log: &mut dyn FnMut(String)) -> Result<(String, bool), String> {
    let mut md = String::from(
        "\n## Search forms of real applications\n\nThe `[[form]]` entries of `eval/real/sites.toml`, development material, each application live: the quotes `search.aspx` (a POST form with a view state whose author select fills the tag select; the example is one of its result pages, given as the POST a browser made) and the shop's search box with the category links denied, so that its queries are the only way to the products. Learned as `exemplar learn` does, crawled as `exemplar crawl` does with the pattern. *Recall*: the application's data the crawled targets show (the quotes the form can list: those with a tag) or its target pages; *floor*: the fewest pages a crawl through a form with steps fetches (the form's page, a step per first choice, a result per target). Bar: precision 100%, recall ≥ 99%, fetched ≤ 1.2 × targets or the floor, ≤ 3 regexes a level; where denied links leave the form the only way in, fetched pages are reported, not barred.\n\n| form | targets crawled | precision | recall | queries | pages fetched | fetched / target | floor | levels: alternatives | s learning | s crawling | bar |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut ok = true;
    let mut failures = String::new();
    for s in form_sites()? {
        match evaluate(&s, log) {
            Ok(f) => {
                let barred = s.deny.is_empty();
                let met = f.meets_bar(barred);
                ok &= met;
                let pct = |a: usize, b: usize| {
                    if b == 0 {
                        "–".to_string()
                    } else {
                        format!("{:.1}%", 100.0 * a as f64 / b as f64)
                    }
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} of {} ({}) | {} | {} | {:.2} | {} | {} | {:.1} | {:.1} | {} |",
                    f.name,
                    f.crawled,
                    pct(f.crawled_true, f.crawled),
                    f.found,
                    f.truth,
                    pct(f.found, f.truth),
                    f.queries,
                    f.fetched,
                    f.fetched as f64 / f.crawled.max(1) as f64,
                    f.floor.map_or("–".into(), |n| format!(
                        "{n} ({:.2})",
                        n as f64 / f.crawled.max(1) as f64
                    )),
                    f.levels
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(" / "),
                    f.learn_secs,
                    f.crawl_secs,
                    match (met, barred) {
                        (true, true) => "met",
                        (true, false) => "met (fetched not barred)",
                        (false, _) => "**not met**",
                    }
                );
            }
            Err(e) => {
                ok = false;
                let _ = writeln!(failures, "- {}: not measured: {e}", s.name);
            }
        }
    }
    md.push_str(&failures);
    Ok((md, ok))
}
