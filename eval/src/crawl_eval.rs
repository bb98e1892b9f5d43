//! `./build.sh eval`: learn and crawl every development site served on 127.0.0.1 and score the
//! result against the ground truth of `eval/dev-sites.toml`.
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write;

use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::MapConfig;
use exemplar_core::pattern::{self, Corrections, Pattern};
use exemplar_html::{Page, ParseOptions};
use exemplar_native::run;
use exemplar_native::serve::{Server, static_dir};
use exemplar_testkit::devsites::{DevSite, SitePage};

/// The exclusion ratios (`LearnConfig::max_exclusions`) the unseen-pages measure compares: the
/// default first, then a stricter and a looser one, then 0 (splitting only, the former
/// behaviour) last.
pub const UNSEEN_RATIOS: [f64; 4] = [pattern::DEFAULT_MAX_EXCLUSIONS, 0.25, 1.0, 0.0];

/// How the figures are made: a site on 127.0.0.1, 8 requests in flight, no delay.
fn unthrottled() -> Politeness {
    Politeness::unthrottled(8)
}

/// Learns a local site from `entry` with `example` (8 requests in flight, no delay; default
/// settings otherwise, no progress shown).
///
/// # Errors
/// As [`run::learn`].
pub fn learn_local(entry: &str, example: &str) -> Result<run::Learned, String> {
    exemplar_testkit::learn_quietly(
        entry,
        example,
        MapConfig {
            politeness: unthrottled(),
            ..MapConfig::default()
        },
    )
}

/// Crawls a local site with `pattern` (8 requests in flight, no delay, no verification, nothing
/// kept).
///
/// # Errors
/// As [`run::crawl`].
pub fn crawl_local(pattern: Pattern) -> Result<run::Crawled, String> {
    exemplar_testkit::crawl_quietly(pattern, unthrottled())
}

/// Figures of one site.
#[derive(Clone, Debug, Default)]
pub struct SiteFigures {
    /// Site name.
    pub name: String,
    /// Ground-truth targets.
    pub truth: usize,
    /// Of those, targets plain links lead to from the entry page ([`reachable`]).
    pub reachable: usize,
    /// Targets found while mapping (similar pages), and how many are true targets.
    pub mapped: usize,
    /// Of `mapped`, true targets.
    pub mapped_true: usize,
    /// Of `mapped`, pages learning took below θ for their heading ([`exemplar_core::review::heading::promoted`]).
    pub by_heading: usize,
    /// Of those, true targets.
    pub by_heading_true: usize,
    /// Targets collected by the crawl.
    pub crawled: usize,
    /// Of those, true targets.
    pub crawled_true: usize,
    /// Pages fetched while mapping.
    pub map_links: usize,
    /// Pages fetched while crawling.
    pub crawl_links: usize,
    /// The pattern's levels: each level's alternatives (regexes) and exceptions (`exclude`).
    pub levels: Vec<(usize, usize)>,
    /// Seconds mapping, crawling.
    pub map_secs: f64,
    /// Seconds crawling.
    pub crawl_secs: f64,
    /// True targets the crawl missed (a few, for the report).
    pub missed: Vec<String>,
    /// Crawled pages that are not targets (a few).
    pub wrong: Vec<String>,
    /// The near-miss review: what a user who is shown the pages just below θ gets by marking
    /// the ones that are targets.
    pub review: Review,
    /// How the target level generalises to pages learning did not see, for each ratio of
    /// [`UNSEEN_RATIOS`] (the default first, splitting only last).
    pub unseen: Vec<(f64, Unseen)>,
    /// What the heading rule does with pages learning did not see just below θ.
    pub new_pages: NewPages,
    /// The site learned from its example page as the entry ([`from_example`]), when measured,
    /// or why that failed.
    pub from_example: Option<Result<FromExample, String>>,
    /// θ taken from the scores because only the example reached the default
    /// ([`exemplar_core::pattern::lowered_threshold`]).
    pub lowered: Option<exemplar_core::pattern::LoweredThreshold>,
}

/// Pages learning did not see ([`unseen`]): five folds over the map's targets and other
/// fetched pages; each fold's last level is generalised from the other four fifths (the other
/// pages as known negatives) and tested on the held-out fifth.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Unseen {
    /// Held-out targets the regexes match.
    pub targets_matched: usize,
    /// Held-out targets.
    pub targets: usize,
    /// Held-out other pages the regexes match (and the exclusions do not list).
    pub others_matched: usize,
    /// Held-out other pages.
    pub others: usize,
    /// Regexes per fold (mean).
    pub regexes: f64,
    /// Exclusions per fold (mean).
    pub exclusions: f64,
}

/// Generalisation to unseen pages: the target level learned from four fifths of a map's
/// targets and other pages, matched against the fifth held out, for each of five folds.
/// `max_exclusions` as [`pattern::LearnConfig::max_exclusions`] (0: split only).
pub fn unseen(map: &exemplar_core::mapper::SiteMap, max_exclusions: f64) -> Unseen {
    use exemplar_core::mapper::NodeState;
    let of = |state: NodeState| -> Vec<&str> {
        let mut v: Vec<&str> = map
            .nodes
            .iter()
            .skip(1)
            .filter(|n| n.state == state && !n.url.contains(exemplar_core::fetch::POST_MARK))
            .map(|n| n.url.as_str())
            .collect();
        v.sort_unstable();
        v
    };
    let (targets, others) = (of(NodeState::Target), of(NodeState::Page));
    const FOLDS: usize = 5;
    let fold = |v: &[&'_ str], f: usize, held: bool| -> Vec<String> {
        v.iter()
            .enumerate()
            .filter(|(i, _)| (i % FOLDS == f) == held)
            .map(|(_, u)| u.to_string())
            .collect()
    };
    let mut out = Unseen::default();
    for f in 0..FOLDS {
        let (train, test) = (fold(&targets, f, false), fold(&targets, f, true));
        let (known, new) = (fold(&others, f, false), fold(&others, f, true));
        let pos: Vec<&str> = train.iter().map(String::as_str).collect();
        let neg: Vec<&str> = known.iter().map(String::as_str).collect();
        let g = pattern::generalise_excluding(
            &pos,
            &neg,
            exemplar_url::url_pattern::DEFAULT_K,
            max_exclusions,
        );
        let Ok(set) = regex::RegexSet::new(&g.regexes) else {
            continue;
        };
        out.targets += test.len();
        out.targets_matched += test.iter().filter(|u| set.is_match(u)).count();
        out.others += new.len();
        out.others_matched += new.iter().filter(|u| set.is_match(u)).count();
        out.regexes += g.regexes.len() as f64 / FOLDS as f64;
        out.exclusions += g.exclude.len() as f64 / FOLDS as f64;
    }
    out
}

/// Pages a crawl meets that learning never saw, just below θ ([`new_pages`]): what the heading
/// rule the pattern carries ([`exemplar_core::review::heading::HeadingRule`]) does with them when a crawl
/// verifies new pages.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NewPages {
    /// Held-out true targets within [`exemplar_core::review::heading::WELL_BELOW`] under θ: the similarity
    /// alone rejects them.
    pub band_targets: usize,
    /// Of those, taken by the heading rule.
    pub band_targets_taken: usize,
    /// Held-out other pages in the same band.
    pub band_others: usize,
    /// Of those, taken by the heading rule (wrongly).
    pub band_others_taken: usize,
}

/// The heading rule on pages learning did not see: in five folds over the map's fetched pages
/// (by URL), the rule is made from the map without the fold's pages, as learning makes it
/// ([`exemplar_core::review::heading::Templates::rule`]), and applied to the fold's pages within
/// [`exemplar_core::review::heading::WELL_BELOW`] under θ, as a crawl verifying new pages applies it.
/// `is_target` is the ground truth.
pub fn new_pages(
    map: &exemplar_core::mapper::SiteMap,
    is_target: &dyn Fn(&str) -> bool,
) -> NewPages {
    use exemplar_core::review::heading::{Templates, WELL_BELOW};
    let mut fetched: Vec<u32> = (1..map.nodes.len() as u32)
        .filter(|&i| map.nodes[i as usize].similarity.is_some())
        .collect();
    fetched.sort_by(|a, b| map.nodes[*a as usize].url.cmp(&map.nodes[*b as usize].url));
    const FOLDS: usize = 5;
    let mut out = NewPages::default();
    for f in 0..FOLDS {
        let held: Vec<u32> = fetched
            .iter()
            .enumerate()
            .filter(|(i, _)| i % FOLDS == f)
            .map(|(_, &id)| id)
            .collect();
        let mut seen = map.clone();
        for &id in &held {
            seen.nodes[id as usize].similarity = None;
        }
        let rule = Templates::of(&seen).rule();
        for &id in &held {
            let node = &map.nodes[id as usize];
            let s = f64::from(node.similarity.unwrap_or(0.0));
            if node.url.contains(exemplar_core::fetch::POST_MARK)
                || !(map.threshold - WELL_BELOW..map.threshold).contains(&s)
            {
                continue;
            }
            let taken = rule
                .as_ref()
                .is_some_and(|r| r.takes(&node.url, &node.heading));
            if is_target(&node.url) {
                out.band_targets += 1;
                out.band_targets_taken += usize::from(taken);
            } else {
                out.band_others += 1;
                out.band_others_taken += usize::from(taken);
            }
        }
    }
    out
}

/// The review of one site, as `exemplar learn` and the extension show it: the
/// [`NEAR_MISSES_REVIEWED`] pages most similar to the example below θ and the
/// [`pattern::DOUBTFUL_SHOWN`] targets worth checking ([`pattern::doubtful_targets`]). A simulated
/// user marks the true targets among the near misses like the example, the other pages among
/// the targets to check unlike it, the heading kinds ([`exemplar_core::review::heading::kinds`]) whose sample
/// pages shown are all other pages unlike it (never the example's kind), and the kinds of pages
/// below θ ([`exemplar_core::review::heading::kinds_below`]) whose samples are all true targets like it, and
/// the directories of targets ([`exemplar_core::review::directory::kinds`]) whose samples are all other pages
/// unlike the example's (never the example's); the pattern is relearned from the same map
/// (nothing fetched) and the site crawled again.
#[derive(Clone, Debug, Default)]
pub struct Review {
    /// Near misses shown.
    pub shown: usize,
    /// Of those, pages whose URL is shaped like the targets' (marked for the user).
    pub url_like: usize,
    /// Of those shown, true targets: the pages the user marks.
    pub marked: usize,
    /// Targets to check shown.
    pub checked: usize,
    /// Of those, pages whose URL is shaped like pages judged unlike the example (marked for the
    /// user).
    pub url_unlike: usize,
    /// Of those shown, not true targets: the pages the user marks unlike the example.
    pub unmarked: usize,
    /// Heading kinds of targets shown.
    pub kinds: usize,
    /// Of those, kinds whose samples are all other pages: marked unlike the example.
    pub kinds_unmarked: usize,
    /// Targets of the kinds marked unlike.
    pub kinds_unmarked_targets: usize,
    /// Heading kinds of pages below θ shown ([`exemplar_core::review::heading::kinds_below`]).
    pub kinds_below: usize,
    /// Of those, kinds whose samples are all true targets: marked like the example.
    pub kinds_marked: usize,
    /// Pages below θ of the kinds marked like.
    pub kinds_marked_pages: usize,
    /// Directories of targets shown ([`exemplar_core::review::directory::kinds`]).
    pub directories: usize,
    /// Of those, directories whose samples are all other pages: marked unlike the example's.
    pub directories_unmarked: usize,
    /// Targets in the directories marked unlike.
    pub directories_unmarked_targets: usize,
    /// The gap below θ the review reports ([`pattern::threshold_gap`]), if any.
    pub gap: Option<ReviewGap>,
    /// Targets the crawl with the relearned pattern collects.
    pub crawled: usize,
    /// Of those, true targets.
    pub crawled_true: usize,
}

/// The gap below θ a review reports, scored: the θ it suggests, the pages above that θ, and how
/// many of them are true targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReviewGap {
    /// The θ suggested.
    pub threshold: f64,
    /// Pages at or above it and below the learned θ.
    pub pages: usize,
    /// Of those, true targets.
    pub true_pages: usize,
}

/// How many near misses the review shows.
pub const NEAR_MISSES_REVIEWED: usize = 10;

impl SiteFigures {
    /// Crawl precision.
    pub fn precision(&self) -> f64 {
        ratio(self.crawled_true, self.crawled)
    }
    /// Crawl recall.
    pub fn recall(&self) -> f64 {
        ratio(self.crawled_true, self.truth)
    }
    /// Whether the bar is met.
    pub fn meets_bar(&self) -> bool {
        self.crawled == self.crawled_true
            && self.recall() >= 0.99
            && (self.crawl_links as f64) <= 1.2 * self.truth as f64
    }
}

/// Per-level counts joined for the table: `1 / 4`.
fn per_level(counts: impl Iterator<Item = usize>) -> String {
    counts
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" / ")
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Path of a URL of the served site, percent-decoded, without the leading '/'; a directory's
/// URL (`product/7/`) names its `index.html`, the file a static server answers it with.
fn site_path(url: &str) -> String {
    let mut path = served_path(url);
    if path.is_empty() || path.ends_with('/') {
        path.push_str("index.html");
    }
    path
}

/// [`site_path`] without the index file.
fn served_path(url: &str) -> String {
    let path = url::Url::parse(url)
        .map(|u| u.path().to_string())
        .unwrap_or_default();
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(Ok(b)) = path.get(i + 1..i + 3).map(|h| u8::from_str_radix(h, 16))
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out)
        .trim_start_matches('/')
        .to_string()
}

/// Learns and crawls one site.
///
/// # Errors
/// When the site cannot be served or learning fails.
pub fn evaluate(site: &DevSite, log: &mut dyn FnMut(String)) -> Result<SiteFigures, String> {
    let pages = site.pages()?;
    let truth: HashSet<String> = pages
        .iter()
        .filter(|p| p.target)
        .map(|p| p.path.clone())
        .collect();
    evaluate_against(site, &pages, truth, true, log)
}

/// The paths of the site's pages that plain links lead to from its entry page (Exemplar's own
/// link extraction, as the mapper sees links: no script runs, so a link a script makes is not
/// one). Recall cannot exceed the share of the targets among them.
pub fn reachable(site: &DevSite, pages: &[SitePage]) -> HashSet<String> {
    let by_path: HashMap<&str, &SitePage> = pages.iter().map(|p| (p.path.as_str(), p)).collect();
    let options = ParseOptions::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    let entry = if site.entry.is_empty() || site.entry.ends_with('/') {
        format!("{}index.html", site.entry)
    } else {
        site.entry.clone()
    };
    if by_path.contains_key(entry.as_str()) {
        seen.insert(entry.clone());
        queue.push_back(entry);
    }
    while let Some(path) = queue.pop_front() {
        let Some(page) = by_path.get(path.as_str()) else {
            continue;
        };
        let Ok(parsed) = Page::parse(&page.bytes, &page.url, None, &options) else {
            continue;
        };
        let host = url::Url::parse(&page.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string));
        for link in &parsed.links {
            let same_host = url::Url::parse(&link.url)
                .ok()
                .is_some_and(|u| u.host_str().map(str::to_string) == host);
            if !same_host {
                continue;
            }
            let mut to = site_path(&link.url);
            if !by_path.contains_key(to.as_str()) {
                // A directory linked without its trailing slash.
                to.push_str("/index.html");
            }
            if by_path.contains_key(to.as_str()) && seen.insert(to.clone()) {
                queue.push_back(to);
            }
        }
    }
    seen
}

/// [`evaluate`] with the ground truth given: the paths of the site's target pages.
fn evaluate_against(
    site: &DevSite,
    pages: &[SitePage],
    truth: HashSet<String>,
    with_example_entry: bool,
    log: &mut dyn FnMut(String),
) -> Result<SiteFigures, String> {
    // A page's path as the site's files name it: a static server answers `author/X` (a link
    // without its trailing slash) with `author/X/index.html`.
    let files: HashSet<&str> = pages.iter().map(|p| p.path.as_str()).collect();
    let key = |url: &str| -> String {
        let path = site_path(url);
        let index = format!("{path}/index.html");
        if !files.contains(path.as_str()) && files.contains(index.as_str()) {
            index
        } else {
            path
        }
    };
    let reachable_targets = reachable(site, pages)
        .iter()
        .filter(|p| truth.contains(*p))
        .count();
    let server = Server::start(0, static_dir(site.root.clone()))
        .map_err(|e| format!("{}: cannot serve: {e}", site.name))?;
    let base = server.url();
    let entry = format!("{base}/{}", site.entry);
    let example = format!("{base}/{}", site.example);
    let learned = learn_local(&entry, &example)?;
    log(format!(
        "{}: mapped {} pages, {} targets in {:.1} s\n{}",
        site.name,
        learned.progress.fetched,
        learned.progress.targets,
        learned.elapsed.as_secs_f64(),
        learned.pattern.render()
    ));
    let mapped: Vec<String> = learned
        .map
        .targets()
        .map(|t| key(&learned.map.nodes[t as usize].url))
        .collect();
    let crawled = crawl_local(learned.pattern.clone())?;
    let got: Vec<String> = crawled.targets.iter().map(|u| key(u)).collect();
    let from_example = with_example_entry.then(|| from_example(site, &base, &truth));
    // The review: the user marks the true targets among the near misses shown like the
    // example, and the other pages among the targets to check unlike it.
    // The review starts from the verdicts learning proposed (kinds of another manual section).
    let proposed = &learned.pattern.corrections;
    let near = pattern::near_misses(&learned.map, proposed, NEAR_MISSES_REVIEWED);
    let like: Vec<String> = near
        .iter()
        .filter(|n| truth.contains(&key(&n.url)))
        .map(|n| n.url.clone())
        .collect();
    let doubtful = pattern::doubtful_targets(
        &learned.map,
        proposed,
        &learned.pattern.by_heading,
        learned.pattern.entry_target,
        pattern::DOUBTFUL_SHOWN,
    );
    let unlike: Vec<String> = doubtful
        .iter()
        .filter(|d| !truth.contains(&key(&d.url)))
        .map(|d| d.url.clone())
        .collect();
    let kinds = exemplar_core::review::heading::kinds(
        &learned.map,
        &learned.pattern.unlike_by_heading,
        &proposed.unlike_headings,
    );
    let unlike_kinds: Vec<&exemplar_core::review::heading::HeadingKind> = kinds
        .iter()
        .filter(|k| !k.example && !k.unlike && k.samples.iter().all(|u| !truth.contains(&key(u))))
        .collect();
    let below =
        exemplar_core::review::heading::kinds_below(&learned.map, &proposed.like_headings, |n| {
            proposed.leave_out(n)
        });
    let like_kinds: Vec<&exemplar_core::review::heading::KindBelow> = below
        .iter()
        .filter(|k| k.samples.iter().all(|u| truth.contains(&key(u))))
        .collect();
    // A directory whose three sample pages are all other pages is marked unlike (never the
    // example's).
    let directories = exemplar_core::review::directory::kinds(
        &learned.map,
        &learned.pattern.unlike_by_directory,
        &proposed.unlike_directories,
    );
    let unlike_directories: Vec<&exemplar_core::review::directory::DirectoryKind> = directories
        .iter()
        .filter(|k| !k.example && !k.unlike && k.samples.iter().all(|u| !truth.contains(&key(u))))
        .collect();
    // A language learning left out whose three sample pages are all true targets is taken back.
    let kept_languages: Vec<String> = exemplar_core::review::language::kinds(
        &learned.map,
        &learned.pattern.unlike_by_language,
        &proposed.unlike_languages,
    )
    .into_iter()
    .filter(|k| k.unlike && k.samples.iter().all(|u| truth.contains(&key(u))))
    .map(|k| k.language)
    .collect();
    let reviewed: Vec<String> = if like.is_empty()
        && unlike.is_empty()
        && unlike_kinds.is_empty()
        && like_kinds.is_empty()
        && kept_languages.is_empty()
        && unlike_directories.is_empty()
    {
        got.clone()
    } else {
        let verdicts = proposed
            .merged(&Corrections {
                like: like.clone(),
                unlike: unlike.clone(),
                unlike_headings: unlike_kinds.iter().map(|k| k.template.clone()).collect(),
                like_headings: like_kinds.iter().map(|k| k.template.clone()).collect(),
                like_languages: kept_languages.clone(),
                unlike_directories: unlike_directories
                    .iter()
                    .map(|k| k.directory.clone())
                    .collect(),
                ..Corrections::default()
            })
            .map_err(|e| format!("{}: the review's verdicts: {e}", site.name))?;
        let now = learned.pattern.stats.learned_at_ms;
        let (pattern, _) = learned
            .pattern
            .relearned(learned.map.clone(), &verdicts, now)
            .map_err(|e| format!("{}: relearning with the review: {e}", site.name))?;
        let again = crawl_local(pattern)?;
        again.targets.iter().map(|u| key(u)).collect()
    };
    let review = Review {
        shown: near.len(),
        url_like: near.iter().filter(|n| n.url_like_targets).count(),
        marked: like.len(),
        checked: doubtful.len(),
        url_unlike: doubtful.iter().filter(|d| d.url_unlike_targets).count(),
        unmarked: unlike.len(),
        kinds: kinds.len(),
        kinds_unmarked: unlike_kinds.len(),
        kinds_unmarked_targets: unlike_kinds.iter().map(|k| k.targets).sum(),
        kinds_below: below.len(),
        kinds_marked: like_kinds.len(),
        kinds_marked_pages: like_kinds.iter().map(|k| k.pages).sum(),
        directories: directories.len(),
        directories_unmarked: unlike_directories.len(),
        directories_unmarked_targets: unlike_directories.iter().map(|k| k.targets).sum(),
        gap: pattern::threshold_gap(&learned.map, proposed).map(|g| {
            let above = learned.map.near_misses(g.pages);
            let true_above = above
                .iter()
                .filter(|&&id| truth.contains(&key(&learned.map.nodes[id as usize].url)))
                .count();
            ReviewGap {
                threshold: g.threshold,
                pages: g.pages,
                true_pages: true_above,
            }
        }),
        crawled: reviewed.len(),
        crawled_true: reviewed.iter().filter(|g| truth.contains(*g)).count(),
    };
    Ok(SiteFigures {
        lowered: learned.lowered.clone(),
        reachable: reachable_targets,
        by_heading: learned.pattern.by_heading.len(),
        by_heading_true: learned
            .pattern
            .by_heading
            .iter()
            .filter(|u| truth.contains(&key(u)))
            .count(),
        review,
        unseen: UNSEEN_RATIOS
            .iter()
            .map(|&r| (r, unseen(&learned.map, r)))
            .collect(),
        new_pages: new_pages(&learned.map, &|u| truth.contains(&key(u))),
        from_example,
        ..crawl_figures(&site.name, &truth, &mapped, &got, &learned, &crawled)
    })
}

/// The figures every site gets from one learning and one crawl, against `truth`: targets
/// found mapping (`mapped`) and crawling (`got`), with how many are true, the pages each
/// fetched, the levels' regexes and exceptions, the times, and a few of the targets missed and
/// the pages taken wrongly (sorted: the crawl's own order follows response arrival).
pub(crate) fn crawl_figures(
    name: &str,
    truth: &HashSet<String>,
    mapped: &[String],
    got: &[String],
    learned: &run::Learned,
    crawled: &run::Crawled,
) -> SiteFigures {
    let got_set: HashSet<&String> = got.iter().collect();
    let mut missed: Vec<String> = truth
        .iter()
        .filter(|t| !got_set.contains(t))
        .cloned()
        .collect();
    missed.sort();
    let mut wrong: Vec<String> = got
        .iter()
        .filter(|g| !truth.contains(*g))
        .cloned()
        .collect();
    wrong.sort();
    SiteFigures {
        name: name.to_string(),
        truth: truth.len(),
        mapped: mapped.len(),
        mapped_true: mapped.iter().filter(|m| truth.contains(*m)).count(),
        crawled: got.len(),
        crawled_true: got.iter().filter(|g| truth.contains(*g)).count(),
        map_links: learned.progress.fetched,
        crawl_links: crawled.progress.fetched,
        levels: learned
            .pattern
            .levels
            .iter()
            .map(|l| (l.regexes.len(), l.exclude.len()))
            .collect(),
        map_secs: learned.elapsed.as_secs_f64(),
        crawl_secs: crawled.elapsed.as_secs_f64(),
        missed: missed.into_iter().take(10).collect(),
        wrong: wrong.into_iter().take(10).collect(),
        ..SiteFigures::default()
    }
}

/// Runs every site; returns the Markdown report and whether every site meets the bar.
///
/// # Errors
/// As [`evaluate`].
pub fn report(sites: &[DevSite], log: &mut dyn FnMut(String)) -> Result<(String, bool), String> {
    let mut figures = Vec::new();
    for s in sites {
        figures.push(evaluate(s, log)?);
    }
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Crawling the development sites\n\nGenerated by `./build.sh eval`: each site of `eval/dev-sites.toml` is served on 127.0.0.1; Exemplar maps it from its entry page with its example page (default settings, 8 requests in flight, no delay), learns the navigation pattern, then crawls with the pattern (no similarity check at crawl time). Ground truth: the generators' markers (the site's target rule). Links = pages fetched. *Taken for their heading*: pages just below θ (within 0.12) that learning counts as targets because their main heading follows a target's heading with the page's own name left out (\"sf::Utf Class Template Reference\" like \"sf::Vector2 Class Template Reference\") and no clearly unlike page's (`crates/core/src/review/heading.rs`); they are part of *found mapping*. Bar: precision 100%, recall ≥ 99%, crawl links ≤ 1.2 × targets.\n"
    );
    md.push_str(TABLE_HEADER);
    let mut review = String::new();
    let mut unseen_rows = String::new();
    let mut new_rows = String::new();
    let mut ok = true;
    for f in &figures {
        ok &= f.meets_bar();
        table_row(&mut md, f);
        review_row(&mut review, f);
        new_pages_row(&mut new_rows, f);
    }
    for f in &figures {
        for (r, u) in &f.unseen {
            let how = if *r == 0.0 {
                "splitting only".to_string()
            } else if *r == pattern::DEFAULT_MAX_EXCLUSIONS {
                format!("exclusions ≤ {r}× (default)")
            } else {
                format!("exclusions ≤ {r}×")
            };
            let _ = writeln!(
                unseen_rows,
                "| {} | {how} | {:.1} | {:.1} | {}/{} ({:.1}%) | {}/{} ({:.1}%) |",
                f.name,
                u.regexes,
                u.exclusions,
                u.targets_matched,
                u.targets,
                100.0 * ratio(u.targets_matched, u.targets),
                u.others_matched,
                u.others,
                100.0 * ratio(u.others_matched, u.others),
            );
        }
    }
    let _ = writeln!(
        md,
        "\nReading the table: *found mapping* counts the pages the mapper judged similar to the example (θ = {}, the default view, kind and place weights; on a site where only the example reaches it, the θ its scores give, as the site's notes below say), and those learning took below θ for their heading, with how many of them are true targets; the crawl then collects what the pattern learned from them reaches. When *found crawling* equals *found mapping* and precision equals the mapping's, the pattern and the crawler lose nothing: the remaining errors are similarity decisions. SFML's two class pages without members look less like the example than the namespace, group and header pages Doxygen builds from the same template (`docs/reports/similarity.md`, *What remains*); their headings (\"sf::Utf< N > Class Template Reference\", \"sf::Shader::CurrentTextureType Struct Reference\") follow class and struct pages' and no clearly unlike page's, so learning takes them.",
        exemplar_similarity::DEFAULT_THRESHOLD
    );
    let _ = writeln!(
        md,
        "\n## With the review\n\nThe table above is Exemplar on its own. After learning, `exemplar learn` shows the {NEAR_MISSES_REVIEWED} pages most similar to the example below θ (the extension's panel 20), marking those whose URL is shaped like the targets' (a generalisation of the target URLs, made without the non-targets, matches it), and the {} targets most worth checking: first those learning took below θ for their heading (*taken for their heading* above), then those whose URL differs in one word or number from mostly pages below θ (marked: `iface.Editable.html` among `iface.*.html` pages), then the least similar. It also lists the targets by heading kind: the template of their main heading, the page's own name left out (on assimp `* File Reference` 47 pages, `Assimp * Class Reference` 5), or their section number (`#`: a manual's numbered chapters), with three sample pages each; where the targets declare two or more languages, the targets by language (a first learning leaves out those other than the example's: Apache's translations); where they lie in two or more directories, the targets by directory (at most {} besides those left out; three sample pages each, the most similar to the example, the middle and the least); and the kinds of the pages below θ the same way, the largest first (at most {}; LablGTK's `Class virtual *`). The user can mark any near miss *like the example*, any target *unlike* it, any kind but the example's unlike it (its targets are left out, and a verifying crawl refuses pages headed so), any kind below θ like it (its pages are targets whatever their similarity, and a verifying crawl takes pages headed so), and any directory but the example's unlike it (its targets are left out, and a crawl refuses the pages in it), and the pattern is relearned from the same map, nothing fetched (`exemplar relearn --like URL --unlike URL --unlike-heading TEMPLATE --like-heading TEMPLATE --like-language TAG --unlike-directory DIR`, the extension's *Re-learn*). Here a simulated user marks exactly the true targets among the near misses, exactly the other pages among the targets to check, the kinds of targets whose three sample pages are all other pages, and the kinds below θ whose three sample pages are all true targets, takes back a language left out whose three sample pages are all true targets (none on these sites), marks the directories whose three sample pages are all other pages (Apache's guides), and the site is crawled again with the relearned pattern. *Gap below θ*: when the scores below θ go on from the targets' with no gap among them down to a clear one (at least 0.08 wide and three times any gap above it) and at least 90% of the five or more pages above it have URLs shaped like the targets', the review says so and suggests a θ that takes the pages above it, 0.05 under the lowest of them (or the middle of the gap, when higher; `relearn --threshold`; `pattern::threshold_gap`): on R's help pages (Rd2HTML, a blind run), 285 topic pages score from 0.689 to θ, 269 of them with URLs shaped like the targets', and the nearest other page 0.523; the θ suggested, 0.64, takes every topic page links reach (1,412), and nothing else. The simulated user does not take the suggestion; the column says what it would add.\n\n{REVIEW_HEADER}{review}",
        pattern::DOUBTFUL_SHOWN,
        exemplar_core::review::directory::DIRECTORIES_SHOWN,
        exemplar_core::review::heading::KINDS_BELOW_SHOWN
    );
    let _ = writeln!(
        md,
        "\n## Unseen pages\n\nA pattern is run again later to pick up new pages, so its target level must match pages learning never saw. Measured on each site's map in five folds: the target level is generalised from four fifths of the targets, with four fifths of the other pages fetched while mapping as the known non-targets, and matched against the fifth held out (targets it should match, other pages it should not). *Exclusions ≤ r×*: a URL shape keeps its regex when the known non-targets it matches number at most r × the targets it is made from, and lists them as exceptions the crawl skips (`exclude` in the pattern); r = {} by default (`LearnConfig::max_exclusions`), a stricter and a looser r for comparison. *Splitting only*: the regex is split on the characters of the names seen until no known non-target matches (the former behaviour). A held-out other page that matches would be collected by a crawl without verification (`exemplar crawl --verify` checks every target against the example).\n\n| site | generalisation | regexes | exclusions | unseen targets matched | unseen other pages matched |\n|---|---|---|---|---|---|\n{unseen_rows}",
        pattern::DEFAULT_MAX_EXCLUSIONS
    );
    let _ = write!(md, "{NEW_PAGES_INTRO}{NEW_PAGES_HEADER}{new_rows}");
    md.push_str(&from_example_section(
        &format!(
            "\n## Started from the example page\n\n{FROM_EXAMPLE_INTRO} Same settings and ground truth as above.\n\n"
        ),
        &figures.iter().collect::<Vec<_>>(),
    ));
    for f in &figures {
        misses(&mut md, f);
    }
    Ok((md, ok))
}

/// What the *New pages below θ* tables measure ([`new_pages`]).
const NEW_PAGES_INTRO: &str = "\n## New pages below θ\n\nA pattern run again later verifies the pages learning never saw (`exemplar crawl --verify-new`; the extension always does when it kept the example page). The similarity rejects a new target just below θ; the heading rule the pattern carries (`headingRule`: the heading templates of two or more targets that no clearly unlike page shares) takes it when its heading follows one, as learning took such pages of the map. Measured on each site's map in five folds: the rule is made from four fifths of the fetched pages and applied to the held-out fifth's pages within 0.12 under θ; ground truth as above.\n\n";

/// The header of the *New pages below θ* tables.
const NEW_PAGES_HEADER: &str = "| site | held-out targets just below θ | taken by the heading rule | other held-out pages just below θ | taken by the heading rule |\n|---|---|---|---|---|\n";

/// A site's row of the *New pages below θ* table.
fn new_pages_row(md: &mut String, f: &SiteFigures) {
    let n = &f.new_pages;
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} | {} |",
        f.name, n.band_targets, n.band_targets_taken, n.band_others, n.band_others_taken
    );
}

/// The header of the per-site table (the development sites, the held-out sites).
pub(crate) const TABLE_HEADER: &str = "| site | targets | reachable by links | found mapping (true) | of them taken for their heading (true) | found crawling | precision | recall | links mapping | links crawling | crawl links / targets | levels: alternatives | exceptions | s mapping | s crawling | bar |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

/// The header of the review table ([`Review`]).
const REVIEW_HEADER: &str = "| site | near misses shown | URL shaped like the targets' | marked like the example | targets to check shown | URL shaped like pages below θ | marked unlike the example | heading kinds shown | kinds marked unlike (their targets) | kinds below θ shown | kinds marked like (their pages) | directories shown | directories marked unlike (their targets) | found crawling | precision | recall | gap below θ: θ suggested (pages above it, true) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

/// A site's row of the review table.
fn review_row(md: &mut String, f: &SiteFigures) {
    let r = &f.review;
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} ({}) | {} | {:.1}% | {:.1}% | {} |",
        f.name,
        r.shown,
        r.url_like,
        r.marked,
        r.checked,
        r.url_unlike,
        r.unmarked,
        r.kinds,
        r.kinds_unmarked,
        r.kinds_unmarked_targets,
        r.kinds_below,
        r.kinds_marked,
        r.kinds_marked_pages,
        r.directories,
        r.directories_unmarked,
        r.directories_unmarked_targets,
        r.crawled,
        100.0 * ratio(r.crawled_true, r.crawled),
        100.0 * ratio(r.crawled_true, f.truth),
        gap_cell(r.gap.as_ref()),
    );
}

/// The review's gap below θ as a table cell: "0.61 (285, 285)", or "none".
fn gap_cell(gap: Option<&ReviewGap>) -> String {
    match gap {
        Some(g) => format!("{:.2} ({}, {})", g.threshold, g.pages, g.true_pages),
        None => "none".into(),
    }
}

/// A site's row of the per-site table.
pub(crate) fn table_row(md: &mut String, f: &SiteFigures) {
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} ({}) | {} ({}) | {} | {:.1}% | {:.1}% | {} | {} | {:.2} | {} | {} | {:.1} | {:.1} | {} |",
        f.name,
        f.truth,
        f.reachable,
        f.mapped,
        f.mapped_true,
        f.by_heading,
        f.by_heading_true,
        f.crawled,
        100.0 * f.precision(),
        100.0 * f.recall(),
        f.map_links,
        f.crawl_links,
        ratio(f.crawl_links, f.truth),
        per_level(f.levels.iter().map(|l| l.0)),
        per_level(f.levels.iter().map(|l| l.1)),
        f.map_secs,
        f.crawl_secs,
        if f.meets_bar() { "met" } else { "**not met**" }
    );
}

/// The crawl figures on the held-out sites of `eval/heldout-sites.toml` (sites no setting was
/// chosen on, with their own example and target): a Markdown section for `docs/reports/crawl.md`, the
/// same table as the development sites'. Sites not installed are listed; a site that cannot be
/// read or learned gets the reason in its row.
pub fn heldout_report(sites: &[DevSite], log: &mut dyn FnMut(String)) -> String {
    let mut md = format!(
        "\n## Held-out sites\n\nThe sites of `eval/heldout-sites.toml`: real documentation websites no setting of Exemplar was chosen on; each site's example and target were fixed before its first run (see the file: by the rule of the development site of the same generator, or for a generator none of them was made by, its central class). A site stops being blind once a change is made on it; the file and `eval/similarity-notes.md` say which. Measured as the development sites above.\n\n{TABLE_HEADER}"
    );
    let mut missing = Vec::new();
    let mut errors = String::new();
    let mut review = String::new();
    let mut new_rows = String::new();
    let mut learned = Vec::new();
    for site in sites {
        if !site.available() {
            missing.push(format!("{} ({})", site.name, site.package));
            continue;
        }
        match evaluate(site, log) {
            Ok(f) => {
                table_row(&mut md, &f);
                review_row(&mut review, &f);
                new_pages_row(&mut new_rows, &f);
                misses(&mut errors, &f);
                learned.push(f);
            }
            // A site Exemplar cannot learn is a result too: its row says why.
            Err(e) => {
                let _ = writeln!(
                    md,
                    "| {} | | | | | | | | | | | | | | | learning failed: {} |",
                    site.name,
                    e.replace('|', "\\|")
                );
            }
        }
    }
    if !review.is_empty() {
        let _ = write!(
            md,
            "\nWith the review (as in *With the review* above):\n\n{REVIEW_HEADER}{review}"
        );
    }
    if !new_rows.is_empty() {
        let _ = write!(
            md,
            "\nNew pages below θ (as in *New pages below θ* above):\n\n{NEW_PAGES_HEADER}{new_rows}"
        );
    }
    if !learned.is_empty() {
        md.push_str(&from_example_section(
            "\nStarted from the example page (as in *Started from the example page* above):\n\n",
            &learned.iter().collect::<Vec<_>>(),
        ));
    }
    md.push_str(&errors);
    not_installed(&mut md, &missing, "`./build.sh eval` installs them");
    md
}

/// The line naming the sites skipped because their packages are not installed, if any.
fn not_installed(md: &mut String, missing: &[String], how: &str) {
    if !missing.is_empty() {
        let _ = writeln!(
            md,
            "\nNot installed, skipped: {} ({how}).",
            missing.join(", ")
        );
    }
}

/// A site learned from its example page as the entry, as the extension's *This page* entry
/// does ([`from_example`]), and crawled.
#[derive(Clone, Debug, Default)]
pub struct FromExample {
    /// Ground-truth targets.
    pub truth: usize,
    /// Targets collected by the crawl.
    pub crawled: usize,
    /// Of those, true targets.
    pub crawled_true: usize,
    /// The example page (the entry) among the pages collected.
    pub example_collected: bool,
    /// Pages fetched while mapping.
    pub map_links: usize,
    /// Pages fetched while crawling.
    pub crawl_links: usize,
}

/// Learns a site served at `base` from its example page as the entry — the mapper climbs
/// from it to the listings — and crawls with the pattern, default settings as [`evaluate`]: a
/// user who starts from the page they want more of. `truth`: the paths of its targets.
///
/// # Errors
/// When learning or the crawl fails.
pub fn from_example(
    site: &DevSite,
    base: &str,
    truth: &HashSet<String>,
) -> Result<FromExample, String> {
    let example = format!("{base}/{}", site.example);
    let learned = learn_local(&example, &example)?;
    let crawled = crawl_local(learned.pattern)?;
    let got: Vec<String> = crawled.targets.iter().map(|u| site_path(u)).collect();
    Ok(FromExample {
        truth: truth.len(),
        crawled: got.len(),
        crawled_true: got.iter().filter(|g| truth.contains(*g)).count(),
        example_collected: got.contains(&site.example),
        map_links: learned.progress.fetched,
        crawl_links: crawled.progress.fetched,
    })
}

/// What the *Started from the example page* tables measure ([`from_example`]).
const FROM_EXAMPLE_INTRO: &str = "The extension's *This page* entry: learning starts from the example page itself. The mapper follows its links up to the listings; the pattern collects the entry page since it is like the example (`entryTarget`), and still starts navigation there.";

/// A *Started from the example page* table under `heading`: one row per site, learned from its
/// example page ([`from_example`]); a site where that fails gets the reason in its row.
fn from_example_section(heading: &str, figures: &[&SiteFigures]) -> String {
    let mut md = format!(
        "{heading}| site | targets | found crawling | example collected | precision | recall | links mapping | links crawling |\n|---|---|---|---|---|---|---|---|\n"
    );
    for (name, result) in figures
        .iter()
        .filter_map(|f| Some((&f.name, f.from_example.as_ref()?)))
    {
        match result {
            Ok(f) => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {:.1}% | {:.1}% | {} | {} |",
                    name,
                    f.truth,
                    f.crawled,
                    if f.example_collected { "yes" } else { "**no**" },
                    100.0 * ratio(f.crawled_true, f.crawled),
                    100.0 * ratio(f.crawled_true, f.truth),
                    f.map_links,
                    f.crawl_links,
                );
            }
            Err(e) => {
                let _ = writeln!(
                    md,
                    "| {} | | | | | | | learning failed: {} |",
                    name,
                    e.replace('|', "\\|")
                );
            }
        }
    }
    md
}

/// A site's missed and wrong pages under its name, when it has any.
pub(crate) fn misses(md: &mut String, f: &SiteFigures) {
    if !f.missed.is_empty() || !f.wrong.is_empty() || f.lowered.is_some() {
        let _ = writeln!(md, "\n**{}**", f.name);
        if let Some(l) = &f.lowered {
            let _ = writeln!(
                md,
                "- learned at θ = {:.3}: no page but the example reached {:.3}, and the scores of the other {} pages fetched split in two there (Otsu's cut; {} pages above it)",
                l.to, l.from, l.scored, l.pages
            );
        }
        if !f.missed.is_empty() {
            let _ = writeln!(md, "- missed (first 10): {}", f.missed.join(", "));
        }
        if !f.wrong.is_empty() {
            let _ = writeln!(md, "- not targets (first 10): {}", f.wrong.join(", "));
        }
    }
}

/// The crawl figures on the sites of `eval/train-sites.toml`, each with its median-size entity
/// page as the example ([`crate::similarity_eval::with_examples`]): a Markdown section for `docs/reports/crawl.md`.
/// A site where learning fails gets its error in the table. Sites not installed are listed.
///
/// # Errors
/// When a site's pages cannot be read.
pub fn extra_report(extra: &[DevSite], log: &mut dyn FnMut(String)) -> Result<String, String> {
    let mut md = String::from(
        "\n## Beyond the development sites\n\nThe sites of `eval/train-sites.toml` (more Debian documentation by the same four generators), each learned from its entry page and, having no example of its own, from its median-size page of its first entity label (`docs/reports/similarity.md`, *Beyond the development sites*); the target is that label. Default settings, as above; *after the review*: a simulated user marks the true targets among the near misses shown, the other pages among the targets to check and the heading kinds whose samples are all other pages, as in *With the review*. The similarity view was chosen on the first ten of these sites and the development sites together, and its *anchors* rule on the last three (Celery, Kombu, SQLAlchemy); the pattern learning and the crawler were not tuned on them.\n\n| site | example | targets | found mapping (true) | of them taken for their heading (true) | found crawling | precision | recall | links mapping | links crawling | bar | precision after the review | recall after the review | gap below θ: θ suggested (pages above it, true) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut missing = Vec::new();
    let mut errors = String::new();
    let mut new_rows = String::new();
    for site in extra {
        if !site.available() {
            missing.push(site.name.clone());
            continue;
        }
        let pages = site.pages()?;
        let Some(picks) = crate::similarity_eval::with_examples(site, &pages) else {
            continue;
        };
        let pick = &picks[picks.len() / 2];
        let truth = pages
            .iter()
            .filter(|p| p.label.as_deref() == Some(pick.target.as_str()))
            .map(|p| p.path.clone())
            .collect();
        match evaluate_against(pick, &pages, truth, false, log) {
            Ok(f) => {
                let _ = writeln!(
                    md,
                    "| {} | `{}` | {} | {} ({}) | {} ({}) | {} | {:.1}% | {:.1}% | {} | {} | {} | {:.1}% | {:.1}% | {} |",
                    f.name,
                    pick.example,
                    f.truth,
                    f.mapped,
                    f.mapped_true,
                    f.by_heading,
                    f.by_heading_true,
                    f.crawled,
                    100.0 * f.precision(),
                    100.0 * f.recall(),
                    f.map_links,
                    f.crawl_links,
                    if f.meets_bar() { "met" } else { "not met" },
                    100.0 * ratio(f.review.crawled_true, f.review.crawled),
                    100.0 * ratio(f.review.crawled_true, f.truth),
                    gap_cell(f.review.gap.as_ref())
                );
                new_pages_row(&mut new_rows, &f);
                misses(&mut errors, &f);
            }
            Err(e) => {
                let _ = writeln!(
                    md,
                    "| {} | `{}` | | | | | | | | | learning failed: {} | | | |",
                    site.name,
                    pick.example,
                    e.replace('|', "\\|")
                );
            }
        }
    }
    if !new_rows.is_empty() {
        let _ = write!(
            md,
            "\nNew pages below θ (as in *New pages below θ* above):\n\n{NEW_PAGES_HEADER}{new_rows}"
        );
    }
    md.push_str(&errors);
    not_installed(&mut md, &missing, "`./build.sh setup`");
    let _ = write!(md, "{EXTRA_NOTES}");
    Ok(md)
}

/// Hand-written reading of the further sites' figures (`eval/crawl-extra-notes.md`).
const EXTRA_NOTES: &str = include_str!("../crawl-extra-notes.md");

#[cfg(test)]
mod tests {
    use super::*;

    /// Held out in turn, each class page just below θ is taken by the rule the rest of the
    /// map makes, a namespace page is not, and a page of another kind that shares the class
    /// template counts as a wrong take.
    #[test]
    fn new_pages_measures_the_heading_rule_on_held_out_pages() {
        use exemplar_core::mapper::{NodeState, SiteMap};
        use exemplar_core::review::heading::fixtures::node;
        let mut nodes = vec![node("index.html", NodeState::Page, 0.3, "Guide")];
        for name in ["Aa", "Bb", "Cc", "Dd", "Ee", "Ff", "Gg", "Hh"] {
            let h = format!("{name} Class Reference");
            nodes.push(node(
                &format!("class-{name}.html"),
                NodeState::Target,
                0.95,
                &h,
            ));
        }
        for name in ["Utf", "Tag", "Mark"] {
            let h = format!("{name} Class Reference");
            nodes.push(node(
                &format!("class-{name}.html"),
                NodeState::Page,
                0.8,
                &h,
            ));
        }
        nodes.push(node(
            "namespace-Gl.html",
            NodeState::Page,
            0.8,
            "Gl Namespace Reference",
        ));
        nodes.push(node(
            "other-Odd.html",
            NodeState::Page,
            0.8,
            "Odd Class Reference",
        ));
        // Member lists far below θ: `Class` and `Reference` stay words of a kind, not of
        // most headings.
        for name in ["Kk", "Ll", "Mm", "Nn", "Oo", "Pp", "Qq", "Rr", "Ss", "Tt"] {
            let h = format!("{name} Member List");
            nodes.push(node(
                &format!("members-{name}.html"),
                NodeState::Page,
                0.5,
                &h,
            ));
        }
        let map = SiteMap {
            threshold: 0.875,
            nodes,
            ..SiteMap::default()
        };
        let n = new_pages(&map, &|u| u.contains("/class-"));
        assert_eq!(
            n,
            NewPages {
                band_targets: 3,
                band_targets_taken: 3,
                band_others: 2,
                band_others_taken: 1,
            }
        );
    }

    /// A site on disk: the entry links `a.html` plainly, `b.html` only through a script
    /// (gi-docgen's `javascript:void(0)` with a `data-link`), and `a.html` links `c/`.
    #[test]
    fn reachable_pages_are_those_plain_links_lead_to() {
        let dir = std::env::temp_dir().join(format!("exemplar-reach-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("c")).expect("dir");
        let write = |path: &str, body: &str| std::fs::write(dir.join(path), body).expect("write");
        write(
            "index.html",
            "<a href='a.html'>a</a> <a href='javascript:void(0)' data-link='b.html'>b</a>",
        );
        write(
            "a.html",
            "<a href='c/'>c</a> <a href='https://elsewhere.test/x.html'>x</a>",
        );
        write("b.html", "<p>b</p>");
        write("c/index.html", "<a href='../a.html#top'>back</a>");
        let toml = dir.join("sites.toml");
        std::fs::write(
            &toml,
            format!(
                "[[site]]\nname = \"t\"\npackage = \"none\"\nroot = {:?}\nentry = \"index.html\"\n\
                 example = \"a.html\"\ntarget = \"x\"\nrules = []\n",
                dir.display().to_string()
            ),
        )
        .expect("toml");
        let sites = exemplar_testkit::devsites::load(&toml).expect("sites");
        let pages = sites[0].pages().expect("pages");
        let mut got: Vec<String> = reachable(&sites[0], &pages).into_iter().collect();
        got.sort();
        assert_eq!(got, ["a.html", "c/index.html", "index.html"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
