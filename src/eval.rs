//! Calibration of similarity on the development sites: for each site, the example page against
//! every page of the site, under several views; the distribution of target vs other pages, ROC
//! AUC, the best threshold and its margin, and errors at the default θ.
//!
//! Owns the measurement and its Markdown table (`docs/similarity.md`); the choice it informs
//! lives in [`crate::similarity`]. Native only.

use std::fmt::Write as _;
use std::time::Instant;

use crate::devsites::DevSite;
use crate::dom::{Page, ParseOptions};
use crate::rtdm::{Prepared, Rtdm};
use crate::similarity::{Collapse, DEFAULT_THRESHOLD, Options, View};

/// Similarities of one site's pages to its example.
pub struct SiteScores {
    /// Site name.
    pub site: String,
    /// `(path, similarity, is_target)` per page.
    pub scores: Vec<(String, f64, bool)>,
    /// Seconds spent comparing.
    pub seconds: f64,
}

/// Figures derived from a site's scores.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    /// Target pages.
    pub targets: usize,
    /// Other pages.
    pub others: usize,
    /// ROC AUC of the similarity as a target detector.
    pub auc: f64,
    /// Lowest target similarity.
    pub min_target: f64,
    /// Highest non-target similarity.
    pub max_other: f64,
    /// Threshold with the fewest errors (midpoint of the widest error-free gap when separable).
    pub best_threshold: f64,
    /// Errors at the best threshold.
    pub best_errors: usize,
    /// Errors at the given default threshold (false positives + false negatives).
    pub default_errors: usize,
    /// Threshold found without labels from the similarity distribution ([`auto_threshold`]).
    pub auto_threshold: f64,
    /// Errors at the automatic threshold.
    pub auto_errors: usize,
}

/// Errors (false positives + false negatives) of "similar when ≥ θ".
pub fn errors_at(scores: &[(String, f64, bool)], theta: f64) -> usize {
    scores
        .iter()
        .filter(|(_, s, t)| (*s >= theta) != *t)
        .count()
}

/// A threshold chosen from similarities alone, as the mapper sees them: the widest gap between
/// consecutive distinct similarities within [0.5, 1], threshold at its middle. Pages like the
/// example cluster near the top; the gap below the cluster is the natural cut.
pub fn auto_threshold(sims: &[f64]) -> f64 {
    let mut v: Vec<f64> = sims.iter().copied().filter(|s| *s >= 0.5).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v.dedup();
    let mut best = (0.0, DEFAULT_THRESHOLD);
    for w in v.windows(2) {
        let gap = w[1] - w[0];
        if gap > best.0 {
            best = (gap, (w[0] + w[1]) / 2.0);
        }
    }
    best.1
}

/// Computes the figures of a site's scores.
pub fn figures(scores: &[(String, f64, bool)], default_threshold: f64) -> Figures {
    let t: Vec<f64> = scores.iter().filter(|s| s.2).map(|s| s.1).collect();
    let o: Vec<f64> = scores.iter().filter(|s| !s.2).map(|s| s.1).collect();
    let mut pairs = 0.0;
    for &a in &t {
        for &b in &o {
            pairs += if a > b {
                1.0
            } else if a == b {
                0.5
            } else {
                0.0
            };
        }
    }
    let auc = if t.is_empty() || o.is_empty() {
        f64::NAN
    } else {
        pairs / (t.len() * o.len()) as f64
    };
    let min_target = t.iter().copied().fold(f64::INFINITY, f64::min);
    let max_other = o.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // Candidate thresholds: every score, and midpoints when separable.
    let mut best_threshold = (min_target + max_other) / 2.0;
    let mut best_errors = errors_at(scores, best_threshold);
    if min_target <= max_other {
        for (_, s, _) in scores {
            let e = errors_at(scores, *s);
            if e < best_errors {
                best_errors = e;
                best_threshold = *s;
            }
        }
    }
    let sims: Vec<f64> = scores.iter().map(|s| s.1).collect();
    let auto = auto_threshold(&sims);
    Figures {
        targets: t.len(),
        others: o.len(),
        auc,
        min_target,
        max_other,
        best_threshold,
        best_errors,
        default_errors: errors_at(scores, default_threshold),
        auto_threshold: auto,
        auto_errors: errors_at(scores, auto),
    }
}

/// Parses a site's pages once.
pub fn parse_site(site: &DevSite) -> Result<Vec<(String, bool, Page)>, String> {
    let opts = ParseOptions::default();
    site.pages()?
        .into_iter()
        .map(|p| {
            let page = Page::parse(&p.bytes, &p.url, None, &opts)
                .map_err(|e| format!("{}: {e}", p.path))?;
            Ok((p.path, p.target, page))
        })
        .collect()
}

/// Scores every page of a parsed site against its example under `view`.
pub fn score_site(
    site: &DevSite,
    pages: &[(String, bool, Page)],
    view: View,
) -> Result<SiteScores, String> {
    let example = pages
        .iter()
        .find(|p| p.0 == site.example)
        .ok_or_else(|| format!("{}: example {} not found", site.name, site.example))?;
    let ex = Prepared::new(view.apply(&example.2.tree));
    let mut rtdm = Rtdm::new();
    let start = Instant::now();
    let scores = pages
        .iter()
        .map(|(path, target, page)| {
            let other = Prepared::new(view.apply(&page.tree));
            (path.clone(), rtdm.compare(&ex, &other).similarity, *target)
        })
        .collect();
    Ok(SiteScores {
        site: site.name.clone(),
        scores,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The views measured.
pub fn views() -> Vec<(&'static str, View)> {
    let v = |collapse, max_depth, text, classes| View {
        collapse,
        max_depth,
        text,
        classes,
    };
    vec![
        ("tags, full (published RTDM)", View::FULL),
        (
            "tags, collapse consecutive",
            v(Collapse::Consecutive, None, true, false),
        ),
        ("classes, full", v(Collapse::None, None, true, true)),
        (
            "classes, collapse consecutive",
            v(Collapse::Consecutive, None, true, true),
        ),
        ("classes, collapse all", v(Collapse::All, None, true, true)),
        (
            "classes, collapse consecutive, no text",
            v(Collapse::Consecutive, None, false, true),
        ),
        (
            "classes, collapse all, no text",
            v(Collapse::All, None, false, true),
        ),
        ("tags, merge", v(Collapse::Merge, None, true, false)),
        ("classes, merge", v(Collapse::Merge, None, true, true)),
        (
            "classes, merge, no text",
            v(Collapse::Merge, None, false, true),
        ),
        ("classes, all, d8", v(Collapse::All, Some(8), true, true)),
        ("classes, all, d10", v(Collapse::All, Some(10), true, true)),
        ("classes, all, d12", v(Collapse::All, Some(12), true, true)),
        (
            "classes, merge, d8",
            v(Collapse::Merge, Some(8), true, true),
        ),
        (
            "classes, merge, d10",
            v(Collapse::Merge, Some(10), true, true),
        ),
        (
            "classes, consecutive, d8",
            v(Collapse::Consecutive, Some(8), true, true),
        ),
        ("classes, full, d8", v(Collapse::None, Some(8), true, true)),
    ]
}

/// Runs the whole calibration and renders the Markdown report.
pub fn similarity_report(sites: &[DevSite]) -> Result<String, String> {
    let default = Options::default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Similarity calibration on the development sites\n\n\
         Generated by `./build.sh eval-similarity` (the example page of each site against every page \
         of the site; ground truth from `../shared/eval/dev-sites.toml`). Default view: `{:?}`, \
         default θ = {}.\n",
        default.view, default.threshold
    );
    let parsed: Vec<_> = sites
        .iter()
        .filter(|s| s.available())
        .map(|s| parse_site(s).map(|p| (s, p)))
        .collect::<Result<_, _>>()?;
    let _ = writeln!(
        out,
        "| view | site | targets | others | AUC | min target | max other | margin | best θ | errors at best θ | errors at default θ | auto θ | errors at auto θ | seconds |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut default_rows = Vec::new();
    for (name, view) in views() {
        for (site, pages) in &parsed {
            let s = score_site(site, pages, view)?;
            let f = figures(&s.scores, default.threshold);
            let _ = writeln!(
                out,
                "| {name} | {} | {} | {} | {:.4} | {:.3} | {:.3} | {:+.3} | {:.3} | {} | {} | {:.3} | {} | {:.2} |",
                s.site,
                f.targets,
                f.others,
                f.auc,
                f.min_target,
                f.max_other,
                f.min_target - f.max_other,
                f.best_threshold,
                f.best_errors,
                f.default_errors,
                f.auto_threshold,
                f.auto_errors,
                s.seconds
            );
            if view == default.view {
                default_rows.push(s);
            }
        }
    }
    let _ = writeln!(
        out,
        "\n## Precision and recall of \"similar to the example\" for a sweep of θ (default view)\n"
    );
    let thetas = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
    let _ = write!(out, "| site |");
    for t in thetas {
        let _ = write!(out, " θ={t} P / R |");
    }
    let _ = write!(out, "\n|---|");
    for _ in thetas {
        let _ = write!(out, "---|");
    }
    let _ = writeln!(out);
    for s in &default_rows {
        let _ = write!(out, "| {} |", s.site);
        for t in thetas {
            let tp = s.scores.iter().filter(|x| x.2 && x.1 >= t).count() as f64;
            let fp = s.scores.iter().filter(|x| !x.2 && x.1 >= t).count() as f64;
            let fneg = s.scores.iter().filter(|x| x.2 && x.1 < t).count() as f64;
            let p = if tp + fp > 0.0 { tp / (tp + fp) } else { 1.0 };
            let r = if tp + fneg > 0.0 {
                tp / (tp + fneg)
            } else {
                1.0
            };
            let _ = write!(out, " {p:.3} / {r:.3} |");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "\n## Nearest misses under the default view\n");
    for s in &default_rows {
        let mut others: Vec<_> = s.scores.iter().filter(|x| !x.2).collect();
        others.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut targets: Vec<_> = s.scores.iter().filter(|x| x.2).collect();
        targets.sort_by(|a, b| a.1.total_cmp(&b.1));
        let list = |v: &[&(String, f64, bool)]| {
            v.iter()
                .take(12)
                .map(|x| format!("`{}` {:.3}", x.0, x.1))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "- {}: least similar targets {}; most similar non-targets {}",
            s.site,
            list(&targets),
            list(&others)
        );
    }
    Ok(out)
}
