//! The baselines of discovery on the local web (`exemplar-eval eval-discover --discover
//! --baselines`, issue 58): for each domain and seed draw, runs of the same seeds at the same
//! budget with each policy — the bandit, a random choice of operator, and each operator alone —
//! their harvest scored against the ground truth, the issue's two checks (bandit ≥ the best
//! single operator, ≥ 1.2 × random), the backlink locator alone (backward crawl only, document
//! `000`'s Algorithm 3) with the precision of each third of its sites in the order found, DWDBRM's
//! ranking ([`crate::dwdbrm_rank`]) of the bandit run's candidates against ours, and the harvest
//! curves as an SVG chart.
//!
//! Contract: a run's harvest is counted on [`exemplar_core::discover::Discovery::met`] (the
//! candidates judged, once each, in order) and on its list of sites, both by the harness's rule
//! ([`crate::discover_runs::page_is_right`], [`crate::discover_runs::score`]); a policy's figure
//! for a domain is the mean over its draws. The candidates DWDBRM ranks are the bandit run's
//! pages met off its seed sites — the set [`exemplar_core::discover::Discovery::pages`] ranks —
//! read from the local web's files; the negatives its NB and LR learn from are every available
//! site's entry and example pages off the seed sites (a sample of the web, unlabelled, as the
//! document's "random pages of a public collection").
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use exemplar_core::discover::{Discovery, Operator, Policy};

use crate::discover_runs::{self as dr, Scored};
use crate::dwdbrm_rank::{self, Doc};
use crate::web::LocalWeb;

/// The policies compared, by name, for draw `draw` (the random one seeded by it).
pub fn policies(draw: u64) -> Vec<(String, Policy)> {
    let mut v = vec![
        ("bandit".to_string(), Policy::Bandit),
        ("random".to_string(), Policy::Random(draw)),
    ];
    for op in Operator::ALL {
        v.push((format!("{} only", op.name()), Policy::Only(op)));
    }
    v
}

/// The domains settings were chosen on; the others report.
pub const DEV_DOMAINS: [&str; 3] = ["java-class", "python-module", "c-ref"];

/// A domain's role in the evaluation: `dev` (settings chosen there) or `report`.
pub fn role(domain: &str) -> &'static str {
    if DEV_DOMAINS.contains(&domain) {
        "dev"
    } else {
        "report"
    }
}

/// The name of the locator's run: backward crawl alone.
pub const LOCATOR: &str = "backward only";

/// One run of one policy.
#[derive(Clone, Debug)]
pub struct PolicyRun {
    /// The policy's name.
    pub policy: String,
    /// The run scored (its sites' list, pages P@k, site curve).
    pub scored: Scored,
    /// (fetches, right pages so far) at each right page met.
    pub page_curve: Vec<(usize, usize)>,
    /// Whether each listed site is right, in the order found.
    pub right_by_time: Vec<bool>,
}

impl PolicyRun {
    /// Right pages harvested.
    pub fn pages(&self) -> usize {
        self.page_curve.last().map_or(0, |p| p.1)
    }

    /// Right sites harvested.
    pub fn sites(&self) -> usize {
        self.scored.curve.last().map_or(0, |p| p.1)
    }
}

/// A run scored as a policy run: its page harvest on the pages met, its sites in found order.
pub fn score_run(
    web: &LocalWeb,
    domain: &str,
    draw: u64,
    seeds: &[usize],
    policy: &str,
    d: &Discovery,
) -> PolicyRun {
    let scored = dr::score(web, domain, draw, seeds, d);
    let mut seen = HashSet::new();
    let mut page_curve = Vec::new();
    for m in &d.met {
        if seen.insert(m.url.as_str()) && dr::page_is_right(web, domain, seeds, &m.url) {
            page_curve.push((m.fetches, page_curve.len() + 1));
        }
    }
    let mut by_time = d.clone();
    by_time.sites.sort_by_key(|s| s.found_at);
    let right_by_time = dr::score(web, domain, draw, seeds, &by_time).right;
    PolicyRun {
        policy: policy.to_string(),
        scored,
        page_curve,
        right_by_time,
    }
}

/// Precision of each third (first, middle, last) of a list of right/wrong; `None` for an
/// empty third. The thirds split at `⌈n/3⌉` and `⌈2n/3⌉`.
pub fn thirds(right: &[bool]) -> [Option<f64>; 3] {
    let n = right.len();
    let cut = [0, n.div_ceil(3), (2 * n).div_ceil(3), n];
    let mut out = [None; 3];
    for t in 0..3 {
        let part = &right[cut[t]..cut[t + 1]];
        if !part.is_empty() {
            out[t] = Some(part.iter().filter(|&&r| r).count() as f64 / part.len() as f64);
        }
    }
    out
}

/// DWDBRM's ranking against ours on one bandit run's candidates.
#[derive(Clone, Debug)]
pub struct RankingPair {
    /// Domain and draw.
    pub domain: String,
    /// The draw.
    pub draw: u64,
    /// Candidates ranked.
    pub candidates: usize,
    /// Right candidates among them.
    pub right: usize,
    /// Whether each of our first 100 pages is right.
    pub ours: Vec<bool>,
    /// Whether each of DWDBRM's first 100 pages is right.
    pub dwdbrm: Vec<bool>,
}

/// Precision of the first k of a list (missing entries are wrong).
pub fn p_at(right: &[bool], k: usize) -> f64 {
    right.iter().take(k).filter(|&&r| r).count() as f64 / k as f64
}

/// A page of the local web read for the rankers.
fn read_doc(web: &LocalWeb, url: &str) -> Doc {
    match dr::page_file(web, url) {
        Some((_, _, bytes)) => dwdbrm_rank::doc(url, &String::from_utf8_lossy(&bytes)),
        None => Doc {
            url: url.to_string(),
            ..Doc::default()
        },
    }
}

/// The negatives: every available site's entry and example page, off the seed sites.
pub fn negatives(web: &LocalWeb, seeds: &[usize]) -> Vec<Doc> {
    let mut v = Vec::new();
    for (s, site) in web.sites.iter().enumerate() {
        if !web.available(s) || seeds.contains(&s) {
            continue;
        }
        for rel in [&site.entry, &site.example] {
            v.push(read_doc(web, &site.url_of(rel)));
        }
    }
    v
}

/// DWDBRM's ranking of a bandit run's candidates, and ours, scored.
pub fn compare_ranking(
    web: &LocalWeb,
    domain: &str,
    draw: u64,
    seeds: &[usize],
    seed_urls: &[String],
    d: &Discovery,
) -> RankingPair {
    let mut seen = HashSet::new();
    let urls: Vec<&str> = d
        .met
        .iter()
        .map(|m| m.url.as_str())
        .filter(|u| !d.seed_sites.iter().any(|p| u.starts_with(p.as_str())) && seen.insert(*u))
        .collect();
    let candidates: Vec<Doc> = urls.iter().map(|u| read_doc(web, u)).collect();
    let seed_docs: Vec<Doc> = seed_urls.iter().map(|u| read_doc(web, u)).collect();
    let order = dwdbrm_rank::rank(&seed_docs, &negatives(web, seeds), &candidates);
    let right = |u: &str| dr::page_is_right(web, domain, seeds, u);
    RankingPair {
        domain: domain.to_string(),
        draw,
        candidates: urls.len(),
        right: urls.iter().filter(|u| right(u)).count(),
        ours: d.pages.iter().take(100).map(|p| right(&p.url)).collect(),
        dwdbrm: order.iter().take(100).map(|&i| right(urls[i])).collect(),
    }
}

/// All the baselines' runs of a domain and draw, by policy, in [`policies`]' order.
#[derive(Clone, Debug)]
pub struct DrawRuns {
    /// The domain.
    pub domain: String,
    /// The draw.
    pub draw: u64,
    /// The runs.
    pub runs: Vec<PolicyRun>,
}

/// Mean of a figure over a domain's draws, per policy, in policy order.
fn means(draws: &[&DrawRuns], f: &dyn Fn(&PolicyRun) -> f64) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    let Some(first) = draws.first() else {
        return out;
    };
    for (i, r) in first.runs.iter().enumerate() {
        let v: Vec<f64> = draws.iter().filter_map(|d| d.runs.get(i).map(f)).collect();
        out.push((
            r.policy.clone(),
            v.iter().sum::<f64>() / v.len().max(1) as f64,
        ));
    }
    out
}

/// The issue's checks on one figure's means: bandit ≥ the best single operator, bandit ≥ 1.2 ×
/// random. `(passed, line)` each.
pub fn checks(figure: &str, domain: &str, m: &[(String, f64)]) -> Vec<(bool, String)> {
    let get = |name: &str| m.iter().find(|(n, _)| n == name).map(|p| p.1);
    let (Some(bandit), Some(random)) = (get("bandit"), get("random")) else {
        return Vec::new();
    };
    let best = m
        .iter()
        .filter(|(n, _)| n.ends_with(" only"))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let mut out = Vec::new();
    if let Some((name, v)) = best {
        out.push((
            bandit >= *v,
            format!(
                "{domain}, {figure}: bandit {bandit:.1} ≥ best single operator ({name}) {v:.1}"
            ),
        ));
    }
    out.push((
        bandit >= 1.2 * random,
        format!(
            "{domain}, {figure}: bandit {bandit:.1} ≥ 1.2 × random {random:.1} = {:.1}",
            1.2 * random
        ),
    ));
    out
}

/// The report's section: harvest per policy and domain, the checks, the locator's thirds, the
/// rankings compared, and the chart's link.
pub fn report(
    all: &[DrawRuns],
    rankings: &[RankingPair],
    budget: usize,
    svg: Option<&str>,
) -> String {
    let mut domains: Vec<&str> = Vec::new();
    for d in all {
        if !domains.contains(&d.domain.as_str()) {
            domains.push(&d.domain);
        }
    }
    let names: Vec<String> = all
        .first()
        .map(|d| d.runs.iter().map(|r| r.policy.clone()).collect())
        .unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Baselines: each policy at the same budget ({budget} fetches)\n\n\
         Same seeds, same budgets, one run per policy and draw; the figure is the mean over the \
         domain's draws of the right pages met (labelled pages of the domain's sites not seeded, \
         once each) / the right sites listed (the harness's rule above). `random` picks an \
         operator at random each round (seeded by the draw). Roles: settings were chosen on the dev \
         domains (java-class, python-module, c-ref); haskell-module, cpp-class and c-type \
         report. No setting of the core was changed for these baselines.\n"
    );
    let _ = write!(out, "| domain (role) | draws |");
    for n in &names {
        let _ = write!(out, " {n} |");
    }
    let _ = write!(out, "\n|---|---:|");
    for _ in &names {
        out.push_str("---:|");
    }
    out.push('\n');
    let mut all_checks = Vec::new();
    for dom in &domains {
        let draws: Vec<&DrawRuns> = all.iter().filter(|d| d.domain == *dom).collect();
        let pages = means(&draws, &|r| r.pages() as f64);
        let sites = means(&draws, &|r| r.sites() as f64);
        let _ = write!(out, "| {dom} ({}) | {} |", role(dom), draws.len());
        for ((_, p), (_, s)) in pages.iter().zip(&sites) {
            let _ = write!(out, " {p:.1} / {s:.1} |");
        }
        out.push('\n');
        all_checks.extend(checks("pages", dom, &pages));
        all_checks.extend(checks("sites", dom, &sites));
    }
    let _ = write!(
        out,
        "\nEach cell: right pages / right sites. A run stops before the budget when its \
         operators have nothing left to do (the core's `Policy::Only` ends when its operator has \
         no page left to apply to): the single operators here stopped far below the budget, so \
         \"the same budget\" is the budget allowed, not spent. The page fetches each spent \
         (mean):\n\n| domain |"
    );
    for n in &names {
        let _ = write!(out, " {n} |");
    }
    out.push_str("\n|---|");
    for _ in &names {
        out.push_str("---:|");
    }
    out.push('\n');
    for dom in &domains {
        let draws: Vec<&DrawRuns> = all.iter().filter(|d| d.domain == *dom).collect();
        let _ = write!(out, "| {dom} |");
        for (_, f) in means(&draws, &|r| r.scored.fetches as f64) {
            let _ = write!(out, " {f:.0} |");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nThe issue's checks (bandit ≥ the best single \
         operator, bandit ≥ 1.2 × random), per domain and figure:\n"
    );
    for (ok, line) in &all_checks {
        let _ = writeln!(out, "- {} {line}", if *ok { "PASS" } else { "**FAIL**" });
    }
    let passed = all_checks.iter().filter(|c| c.0).count();
    let _ = writeln!(out, "\n{passed} of {} checks pass.", all_checks.len());
    if let Some(path) = svg {
        let _ = writeln!(
            out,
            "\nHarvest curves (mean over draws; x: page fetches, y: right pages / right sites): \
             [{path}]({path})\n\n![harvest curves]({path})"
        );
    }
    // The locator.
    let _ = writeln!(
        out,
        "\n## The locator alone (backward crawl only)\n\n\
         Document `000`'s Algorithm 3 is seeds → backlinks of relevant sites → their outlinks; \
         here it is the core's backward-crawl operator alone (`Policy::Only(Backward)`) at the \
         same budget, its sites in the order found, split into thirds. The document's figures: \
         95% (first 100) / 82% (a random 100) / 67% (last 100) of 6,975 sites; the issue's bar: \
         ≥ 0.95 on each third.\n\n\
         | domain | draw | sites listed | right | first third | middle third | last third |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    let fmt = |p: Option<f64>| p.map_or("—".to_string(), |v| format!("{v:.3}"));
    let mut pooled: Vec<bool> = Vec::new();
    let mut below = 0;
    let mut counted = 0;
    for d in all {
        let Some(r) = d.runs.iter().find(|r| r.policy == LOCATOR) else {
            continue;
        };
        let t = thirds(&r.right_by_time);
        let _ = writeln!(
            out,
            "| {} ({}) | {} | {} | {} | {} | {} | {} |",
            d.domain,
            role(&d.domain),
            d.draw,
            r.right_by_time.len(),
            r.right_by_time.iter().filter(|&&x| x).count(),
            fmt(t[0]),
            fmt(t[1]),
            fmt(t[2])
        );
        for p in t.iter().flatten() {
            counted += 1;
            below += usize::from(*p < 0.95);
        }
        pooled.extend(&r.right_by_time);
    }
    let _ = writeln!(
        out,
        "\nThirds below 0.95: {below} of {counted} measured (an empty list has no thirds). \
         The bar is {}.",
        if below == 0 && counted > 0 {
            "met"
        } else {
            "**not met**"
        }
    );
    // The rankings.
    if !rankings.is_empty() {
        let _ = writeln!(
            out,
            "\n## DWDBRM's ranking against ours, on the bandit runs' candidates\n\n\
             The same candidates (the pages each bandit run met off its seed sites) ranked by \
             DWDBRM's Algorithm 2 (NB, LR, one-class, cosine, Jaccard and PageRank, α = 0.2; \
             `eval/src/dwdbrm_rank.rs` says what the document leaves open and what was chosen) \
             and by ours (`Discovery::pages`); page P@k by the harness's rule.\n\n\
             | domain | draw | candidates | right among them | ours P@17 / P@35 / P@100 | DWDBRM P@17 / P@35 / P@100 |\n\
             |---|---:|---:|---:|---:|---:|"
        );
        for r in rankings {
            let _ = writeln!(
                out,
                "| {} ({}) | {} | {} | {} | {:.3} / {:.3} / {:.3} | {:.3} / {:.3} / {:.3} |",
                r.domain,
                role(&r.domain),
                r.draw,
                r.candidates,
                r.right,
                p_at(&r.ours, 17),
                p_at(&r.ours, 35),
                p_at(&r.ours, 100),
                p_at(&r.dwdbrm, 17),
                p_at(&r.dwdbrm, 35),
                p_at(&r.dwdbrm, 100)
            );
        }
        let mean = |f: &dyn Fn(&RankingPair) -> f64| {
            rankings.iter().map(f).sum::<f64>() / rankings.len() as f64
        };
        let _ = writeln!(
            out,
            "\nMean over these runs: ours {:.3} / {:.3} / {:.3}, DWDBRM {:.3} / {:.3} / {:.3} (P@17 / P@35 / P@100).",
            mean(&|r| p_at(&r.ours, 17)),
            mean(&|r| p_at(&r.ours, 35)),
            mean(&|r| p_at(&r.ours, 100)),
            mean(&|r| p_at(&r.dwdbrm, 17)),
            mean(&|r| p_at(&r.dwdbrm, 35)),
            mean(&|r| p_at(&r.dwdbrm, 100))
        );
    }
    out
}

/// A step curve's value at `x` (its last point at or before `x`; 0 before the first).
pub fn at(curve: &[(usize, usize)], x: usize) -> usize {
    curve
        .iter()
        .take_while(|p| p.0 <= x)
        .last()
        .map_or(0, |p| p.1)
}

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The harvest curves: one panel per domain and figure (right pages, right sites), one polyline
/// per policy (the mean over the domain's draws, sampled every `budget / 50` fetches, up to the
/// most fetches a draw of it spent), axes,
/// ticks and one legend; plain SVG text, in the forms report's style.
pub fn svg_chart(all: &[DrawRuns], budget: usize) -> String {
    let mut domains: Vec<&str> = Vec::new();
    for d in all {
        if !domains.contains(&d.domain.as_str()) {
            domains.push(&d.domain);
        }
    }
    let names: Vec<String> = all
        .first()
        .map(|d| d.runs.iter().map(|r| r.policy.clone()).collect())
        .unwrap_or_default();
    let budget = budget.max(1);
    let (pw, ph) = (300.0, 170.0);
    let (left, gap_x, top, gap_y, legend) = (55.0, 40.0, 60.0, 70.0, 150.0);
    let cols = 2usize;
    let rows = domains.len().max(1);
    let w = left + cols as f64 * (pw + gap_x) + legend;
    let h = top + rows as f64 * (ph + gap_y);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="22" font-size="14">Harvest against page fetches, mean over draws (left: right pages; right: right sites)</text>"#
    );
    let steps = 50;
    for (row, dom) in domains.iter().enumerate() {
        let draws: Vec<&DrawRuns> = all.iter().filter(|d| d.domain == *dom).collect();
        for col in 0..cols {
            let x0 = left + col as f64 * (pw + gap_x);
            let y0 = top + row as f64 * (ph + gap_y);
            let curve_of = |r: &PolicyRun| -> Vec<(usize, usize)> {
                if col == 0 {
                    r.page_curve.clone()
                } else {
                    r.scored.curve.clone()
                }
            };
            // Mean curves per policy, each up to the most fetches a draw of it spent (a policy
            // that stopped early ends there).
            let mut lines: Vec<Vec<f64>> = Vec::new();
            for i in 0..names.len() {
                let spent = draws
                    .iter()
                    .filter_map(|d| d.runs.get(i))
                    .map(|r| r.scored.fetches)
                    .max()
                    .unwrap_or(0);
                let last = (spent * steps).div_ceil(budget).min(steps);
                let mut v = vec![0.0; last + 1];
                for (k, slot) in v.iter_mut().enumerate() {
                    let x = budget * k / steps;
                    let vals: Vec<f64> = draws
                        .iter()
                        .filter_map(|d| d.runs.get(i))
                        .map(|r| at(&curve_of(r), x) as f64)
                        .collect();
                    *slot = vals.iter().sum::<f64>() / vals.len().max(1) as f64;
                }
                lines.push(v);
            }
            // A multiple of 4 so the five ticks are whole numbers.
            let ymax = (lines.iter().flatten().copied().fold(1.0f64, f64::max) / 4.0).ceil() * 4.0;
            let xp = |k: usize| x0 + pw * k as f64 / steps as f64;
            let yp = |v: f64| y0 + ph * (1.0 - v / ymax);
            for t in 0..=4 {
                let v = ymax * f64::from(t) / 4.0;
                let yy = yp(v);
                let _ = writeln!(
                    s,
                    r##"<line x1="{x0}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.0}</text>"##,
                    x0 + pw,
                    x0 - 4.0,
                    yy + 4.0
                );
            }
            for t in 0..=5 {
                let xx = x0 + pw * f64::from(t) / 5.0;
                let _ = writeln!(
                    s,
                    r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#333"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                    y0 + ph,
                    y0 + ph + 4.0,
                    y0 + ph + 16.0,
                    budget * t as usize / 5
                );
            }
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{:.1}" stroke="#333"/><line x1="{x0}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333"/>"##,
                y0 + ph,
                y0 + ph,
                x0 + pw,
                y0 + ph
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{} — {} ({} draws), by page fetches</text>"#,
                x0 + pw / 2.0,
                y0 - 8.0,
                xml_escape(dom),
                if col == 0 {
                    "right pages"
                } else {
                    "right sites"
                },
                draws.len()
            );
            for (i, v) in lines.iter().enumerate() {
                let pts: Vec<String> = v
                    .iter()
                    .enumerate()
                    .map(|(k, &y)| format!("{:.1},{:.1}", xp(k), yp(y)))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>"#,
                    COLORS[i % COLORS.len()],
                    pts.join(" ")
                );
            }
        }
    }
    let lx = left + cols as f64 * (pw + gap_x);
    for (i, n) in names.iter().enumerate() {
        let ly = top + 10.0 + 20.0 * i as f64;
        let color = COLORS[i % COLORS.len()];
        let _ = writeln!(
            s,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 20.0,
            lx + 26.0,
            ly + 4.0,
            xml_escape(n)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Per-domain summary lines of the baselines for `docs/results.md`-style quoting.
pub fn summary(all: &[DrawRuns]) -> BTreeMap<String, Vec<(String, f64, f64)>> {
    let mut out: BTreeMap<String, Vec<(String, f64, f64)>> = BTreeMap::new();
    let mut domains: Vec<&str> = Vec::new();
    for d in all {
        if !domains.contains(&d.domain.as_str()) {
            domains.push(&d.domain);
        }
    }
    for dom in domains {
        let draws: Vec<&DrawRuns> = all.iter().filter(|d| d.domain == dom).collect();
        let pages = means(&draws, &|r| r.pages() as f64);
        let sites = means(&draws, &|r| r.sites() as f64);
        out.insert(
            dom.to_string(),
            pages
                .into_iter()
                .zip(sites)
                .map(|((n, p), (_, s))| (n, p, s))
                .collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(policy: &str, pages: &[(usize, usize)], sites: &[(usize, usize)]) -> PolicyRun {
        PolicyRun {
            policy: policy.into(),
            scored: Scored {
                domain: "d".into(),
                draw: 1,
                seeds: Vec::new(),
                right: vec![true; sites.len()],
                page_right: Vec::new(),
                coverage: 0.0,
                reachable: 10,
                curve: sites.to_vec(),
                fetches: 100,
                queries: 0,
            },
            page_curve: pages.to_vec(),
            right_by_time: vec![true; sites.len()],
        }
    }

    #[test]
    fn thirds_split_and_measure() {
        let r = [true, true, true, false, true, false, false, false, true];
        let t = thirds(&r);
        assert_eq!(t, [Some(1.0), Some(1.0 / 3.0), Some(1.0 / 3.0)]);
        // Four: 2 / 1 / 1.
        assert_eq!(
            thirds(&[true, false, true, true]),
            [Some(0.5), Some(1.0), Some(1.0)]
        );
        assert_eq!(thirds(&[true]), [Some(1.0), None, None]);
        assert_eq!(thirds(&[]), [None, None, None]);
    }

    #[test]
    fn checks_compare_bandit_with_best_single_and_random() {
        let m = vec![
            ("bandit".to_string(), 12.0),
            ("random".to_string(), 10.0),
            ("keyword only".to_string(), 11.0),
            ("forward only".to_string(), 13.0),
        ];
        let c = checks("pages", "d", &m);
        assert_eq!(c.len(), 2);
        assert!(!c[0].0 && c[0].1.contains("forward only"), "{c:?}");
        assert!(c[1].0, "12 ≥ 1.2 × 10");
        let m = vec![("bandit".to_string(), 11.9), ("random".to_string(), 10.0)];
        assert!(!checks("sites", "d", &m)[0].0);
    }

    #[test]
    fn step_curves_and_precision() {
        let c = [(10, 1), (20, 2), (50, 3)];
        assert_eq!(at(&c, 5), 0);
        assert_eq!(at(&c, 20), 2);
        assert_eq!(at(&c, 1000), 3);
        assert!((p_at(&[true, false, true], 4) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn svg_is_well_formed_with_a_polyline_per_policy_and_panel() {
        let all = vec![
            DrawRuns {
                domain: "a<&>".into(),
                draw: 1,
                runs: vec![
                    run("bandit", &[(10, 1), (90, 2)], &[(50, 1)]),
                    run("random", &[(30, 1)], &[]),
                ],
            },
            DrawRuns {
                domain: "b".into(),
                draw: 1,
                runs: vec![run("bandit", &[], &[]), run("random", &[(5, 1)], &[(5, 1)])],
            },
        ];
        let svg = svg_chart(&all, 100);
        assert_eq!(svg.matches("<polyline").count(), 2 * 2 * 2);
        assert!(svg.trim_start().starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a&lt;&amp;&gt;"));
        // Balanced tags: every opened non-empty element is closed.
        let opened = svg.matches("<svg ").count() + svg.matches("<text").count();
        let closed = svg.matches("</svg>").count() + svg.matches("</text>").count();
        assert_eq!(opened, closed);
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        let report = report(&all, &[], 100, Some("x.svg"));
        assert!(
            report.contains("| a<&> (report) | 1 | 2.0 / 1.0 | 1.0 / 0.0 |"),
            "{report}"
        );
        assert!(report.contains("| a<&> | 100 | 100 |"), "{report}");
        assert!(report.contains("x.svg"));
    }
}
