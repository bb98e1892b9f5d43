//! Discovery measured on the local web (`exemplar-eval eval-discover --discover`): for each
//! domain of enough sites, seeds drawn from three of its sites (a labelled page of each), a run of
//! [`exemplar_core::discover`] through the local web's search engine and backlink service, and
//! its list of sites scored against the ground truth.
//!
//! Contract: a found site is the ground-truth site its first example lies in; it is right when
//! that site is of the seeds' domain, not seeded, and not found before in the list (a second
//! entry for one site counts as wrong). P@k is over the first k of the list (a list shorter
//! than k counts its missing entries as wrong); coverage is the right sites over the domain's
//! sites not seeded. Page P@k is over the run's ranked pages: a page is right when its site's
//! rule labels it and the site is of the domain, not seeded. Draws are a fixed shuffle of the domain's sites with at least
//! [`MIN_ENTITIES`] labelled pages, seeded by the draw's number.
use std::collections::HashSet;
use std::fmt::Write as _;
use std::net::SocketAddr;

use exemplar_core::discover::{DiscoverConfig, Discovery, Policy};
use exemplar_core::fetch::Politeness;
use exemplar_native::http::ClientConfig;
use exemplar_native::resolve::Resolve;

use crate::web::{BACKLINKS_HOST, LocalWeb, SEARCH_HOST};

/// A site is drawn as a seed only when this many of its pages are labelled.
pub const MIN_ENTITIES: usize = 5;

/// One run's figures.
#[derive(Clone, Debug)]
pub struct Scored {
    /// Domain, draw.
    pub domain: String,
    /// The draw's number.
    pub draw: u64,
    /// The seed sites' names.
    pub seeds: Vec<String>,
    /// Whether each listed site is right, in list order.
    pub right: Vec<bool>,
    /// Whether each ranked page is right (a labelled page of a site of the domain not seeded),
    /// in rank order: the source document's P@k counts pages.
    pub page_right: Vec<bool>,
    /// Distinct right sites over the domain's sites not seeded.
    pub coverage: f64,
    /// The domain's sites not seeded.
    pub reachable: usize,
    /// (fetches, right sites so far) at each right site's acceptance.
    pub curve: Vec<(usize, usize)>,
    /// Page fetches and queries spent.
    pub fetches: usize,
    /// Queries spent.
    pub queries: usize,
}

impl Scored {
    /// Precision of the first k sites listed.
    pub fn precision_at(&self, k: usize) -> f64 {
        self.right.iter().take(k).filter(|&&r| r).count() as f64 / k as f64
    }

    /// Precision of the first k pages ranked.
    pub fn page_precision_at(&self, k: usize) -> f64 {
        self.page_right.iter().take(k).filter(|&&r| r).count() as f64 / k as f64
    }
}

/// The sites of a domain that may seed (enough labelled pages), by name.
pub fn seedable(web: &LocalWeb, per_site: &[(usize, usize)], domain: &str) -> Vec<usize> {
    let mut v: Vec<usize> = (0..web.sites.len())
        .filter(|&s| web.sites[s].domain == domain && per_site[s].1 >= MIN_ENTITIES)
        .collect();
    v.sort_by(|&a, &b| web.sites[a].name.cmp(&web.sites[b].name));
    v
}

/// Three sites of a domain for draw `draw` (a seeded shuffle).
pub fn draw_sites(candidates: &[usize], draw: u64) -> Vec<usize> {
    let mut v = candidates.to_vec();
    let mut x = draw.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v.truncate(3);
    v
}

/// A run on the local web served at `addr`, from seed page URLs.
pub fn run(
    addr: SocketAddr,
    urls: &[String],
    policy: Policy,
    max_fetches: usize,
    max_queries: usize,
) -> Result<Discovery, String> {
    run_tuned(
        addr,
        urls,
        policy,
        max_fetches,
        max_queries,
        &Tuning::default(),
    )
}

/// The scoring settings a run may be given over the core's defaults (chosen on the
/// development domains: `eval-discover --relevant X --probe Y --structure-weight W
/// --markup-weight M`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// [`DiscoverConfig::relevant`].
    pub relevant: f64,
    /// [`DiscoverConfig::probe`].
    pub probe: f64,
    /// [`DiscoverConfig::structure_weight`].
    pub structure_weight: f64,
    /// [`DiscoverConfig::markup_weight`].
    pub markup_weight: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        let d = DiscoverConfig::default();
        Tuning {
            relevant: d.relevant,
            probe: d.probe,
            structure_weight: d.structure_weight,
            markup_weight: d.markup_weight,
        }
    }
}

/// [`run`] with scoring settings of its own.
///
/// # Errors
/// As [`run`].
pub fn run_tuned(
    addr: SocketAddr,
    urls: &[String],
    policy: Policy,
    max_fetches: usize,
    max_queries: usize,
    tuning: &Tuning,
) -> Result<Discovery, String> {
    let politeness = Politeness::unthrottled(8);
    let mut config = DiscoverConfig {
        relevant: tuning.relevant,
        probe: tuning.probe,
        structure_weight: tuning.structure_weight,
        markup_weight: tuning.markup_weight,
        search: Some(format!("http://{SEARCH_HOST}/?P={{q}}")),
        related: Some(format!("http://{SEARCH_HOST}/?MORELIKE=U{{url}}")),
        backlinks: Some(format!("http://{BACKLINKS_HOST}/links?url={{url}}")),
        politeness: politeness.clone(),
        policy,
        max_fetches,
        max_queries,
        ..DiscoverConfig::default()
    };
    config.detect.politeness = politeness;
    let client = ClientConfig {
        resolve: vec![Resolve::parse(&format!("*:{addr}"))?],
        ..ClientConfig::default()
    };
    exemplar_native::run::discover(urls, &config, &client, |_| true)
}

/// A run's list scored against the ground truth.
pub fn score(web: &LocalWeb, domain: &str, draw: u64, seeds: &[usize], d: &Discovery) -> Scored {
    let mut seen = HashSet::new();
    let mut right = Vec::new();
    let mut by_time: Vec<(usize, bool)> = Vec::new();
    for s in &d.sites {
        let gt = s
            .examples
            .first()
            .and_then(|u| web.site_of_url(u))
            .map(|(i, _)| i);
        let ok = gt.is_some_and(|g| {
            web.sites[g].domain == domain && !seeds.contains(&g) && seen.insert(g)
        });
        right.push(ok);
        by_time.push((s.found_at, ok));
    }
    by_time.sort();
    let mut curve = Vec::new();
    let mut n = 0;
    for (at, ok) in by_time {
        if ok {
            n += 1;
            curve.push((at, n));
        }
    }
    let page_right = d
        .pages
        .iter()
        .take(100)
        .map(|p| page_is_right(web, domain, seeds, &p.url))
        .collect();
    let reachable = web
        .sites
        .iter()
        .enumerate()
        .filter(|(i, s)| s.domain == domain && !seeds.contains(i) && web.available(*i))
        .count();
    Scored {
        domain: domain.to_string(),
        draw,
        seeds: seeds.iter().map(|&s| web.sites[s].name.clone()).collect(),
        coverage: seen.len() as f64 / reachable.max(1) as f64,
        right,
        page_right,
        reachable,
        curve,
        fetches: d.fetches,
        queries: d.queries,
    }
}

/// Whether a page is right: a page its site's rule labels, on a site of the domain not seeded.
pub fn page_is_right(web: &LocalWeb, domain: &str, seeds: &[usize], url: &str) -> bool {
    let Some((s, _)) = web.site_of_url(url) else {
        return false;
    };
    if web.sites[s].domain != domain || seeds.contains(&s) {
        return false;
    }
    page_file(web, url).is_some_and(|(s, rel, bytes)| web.sites[s].is_target(&rel, &bytes))
}

/// A local-web page's site, path in the site and bytes, from its URL (a directory's URL is its
/// `index.html`); `None` off the local web or when no file is there.
pub fn page_file(web: &LocalWeb, url: &str) -> Option<(usize, String, Vec<u8>)> {
    let (s, rest) = web.site_of_url(url)?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let rel = exemplar_native::serve::percent_decode(rest)?;
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel
    };
    let bytes = web.fs().read(&web.file(s, &rel))?;
    Some((s, rel, bytes))
}

/// The table of runs: per run P@17, P@35, P@100, coverage; then each domain's mean and worst.
pub fn table(runs: &[Scored]) -> String {
    let mut out = String::from(
        "| domain | draw | seeds | sites listed | P@17 | P@35 | P@100 | coverage | pages P@17 / P@35 / P@100 | fetches | queries |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in runs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} ({} of {}) | {:.3} / {:.3} / {:.3} | {} | {} |",
            r.domain,
            r.draw,
            r.seeds.join(", "),
            r.right.len(),
            r.precision_at(17),
            r.precision_at(35),
            r.precision_at(100),
            r.coverage,
            (r.coverage * r.reachable as f64).round(),
            r.reachable,
            r.page_precision_at(17),
            r.page_precision_at(35),
            r.page_precision_at(100),
            r.fetches,
            r.queries
        );
    }
    let stat = |f: &dyn Fn(&Scored) -> f64| {
        let v: Vec<f64> = runs.iter().map(f).collect();
        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
        let worst = v.iter().copied().fold(f64::INFINITY, f64::min);
        format!("{mean:.3} / {worst:.3}")
    };
    let _ = writeln!(
        out,
        "\nAll runs, mean / worst: sites P@17 {}, P@35 {}, P@100 {}, coverage {}; pages P@17 {}, P@35 {}, P@100 {}",
        stat(&|r| r.precision_at(17)),
        stat(&|r| r.precision_at(35)),
        stat(&|r| r.precision_at(100)),
        stat(&|r| r.coverage),
        stat(&|r| r.page_precision_at(17)),
        stat(&|r| r.page_precision_at(35)),
        stat(&|r| r.page_precision_at(100))
    );
    out
}
