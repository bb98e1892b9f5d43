//! Calibration of similarity on the development sites: for each site, the example page against
//! every page of the site, under several views; the distribution of target vs other pages, ROC
//! AUC, the best threshold and its margin, and errors at the default θ.
//!
//! Owns the measurement and its Markdown table (`docs/reports/similarity.md`); the choice it informs
//! lives in [`exemplar_similarity`]. Native only.

use std::fmt::Write as _;
use std::time::Instant;

use exemplar_html::{Page, ParseOptions};
use exemplar_similarity::rtdm::{Prepared, Rtdm};
use exemplar_similarity::{Collapse, Options, View, place, place_agreement, supported_places};
use exemplar_testkit::devsites::{DevSite, Role, SitePage};

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

/// A threshold chosen from similarities alone, as the mapper sees them: Otsu's method on the
/// similarities (the cut maximising the between-class variance of "like the example" vs the
/// rest), searched over [0.05, 0.95].
pub fn auto_threshold(sims: &[f64]) -> f64 {
    exemplar_similarity::auto_threshold(sims)
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

/// Figures of one view over all sites.
pub struct GlobalFigures {
    /// Lowest per-site AUC.
    pub min_auc: f64,
    /// Mean per-site AUC.
    pub mean_auc: f64,
    /// Sum over sites of the errors at each site's best θ.
    pub per_site_errors: usize,
    /// The single θ with the fewest errors over all sites.
    pub global_threshold: f64,
    /// Its errors.
    pub global_errors: usize,
    /// Errors at the default θ over all sites.
    pub default_errors: usize,
    /// Errors at each site's automatic θ, summed.
    pub auto_errors: usize,
}

/// Figures of one view over several sites' scores.
pub fn global_figures(sites: &[Vec<(String, f64, bool)>], default_threshold: f64) -> GlobalFigures {
    let figs: Vec<Figures> = sites
        .iter()
        .map(|s| figures(s, default_threshold))
        .collect();
    let all: Vec<(String, f64, bool)> = sites.iter().flatten().cloned().collect();
    let mut global = (usize::MAX, default_threshold);
    for step in 0..=200 {
        let theta = step as f64 / 200.0;
        let e = errors_at(&all, theta);
        if e < global.0 {
            global = (e, theta);
        }
    }
    GlobalFigures {
        min_auc: figs.iter().map(|f| f.auc).fold(f64::INFINITY, f64::min),
        mean_auc: figs.iter().map(|f| f.auc).sum::<f64>() / figs.len().max(1) as f64,
        per_site_errors: figs.iter().map(|f| f.best_errors).sum(),
        global_threshold: global.1,
        global_errors: global.0,
        default_errors: figs.iter().map(|f| f.default_errors).sum(),
        auto_errors: figs.iter().map(|f| f.auto_errors).sum(),
    }
}

/// Parses a site's pages once.
pub fn parse_site(site: &DevSite) -> Result<Vec<(String, bool, Page)>, String> {
    parse_pages(site.pages()?, &site.target)
}

/// Parses pages already read, a page being a target when its label is `target`.
pub fn parse_pages(
    pages: Vec<SitePage>,
    target: &str,
) -> Result<Vec<(String, bool, Page)>, String> {
    let opts = ParseOptions::default();
    pages
        .into_iter()
        .map(|p| {
            let page = Page::parse(&p.bytes, &p.url, None, &opts)
                .map_err(|e| format!("{}: {e}", p.path))?;
            let is_target = !target.is_empty() && p.label.as_deref() == Some(target);
            Ok((p.path, is_target, page))
        })
        .collect()
}

/// Scores every page of a parsed site against its example under `view`.
pub fn score_site(
    site: &DevSite,
    pages: &[(String, bool, Page)],
    view: View,
) -> Result<SiteScores, String> {
    score_site_with(
        site,
        pages,
        Options {
            view,
            ..Options::default()
        },
    )
}

/// Scores every page of a parsed site against its example under `options` (view, kind and
/// place weights; θ decides which directories hold enough look-alikes to escape the place
/// weight, [`supported_places`]).
pub fn score_site_with(
    site: &DevSite,
    pages: &[(String, bool, Page)],
    options: Options,
) -> Result<SiteScores, String> {
    score_site_placed(site, pages, options, true)
}

/// [`score_site_with`], with the place weight applied to every page outside the example's
/// directory when `support` is false (the settings before [`supported_places`]).
fn score_site_placed(
    site: &DevSite,
    pages: &[(String, bool, Page)],
    options: Options,
    support: bool,
) -> Result<SiteScores, String> {
    let view = options.view;
    let example = pages
        .iter()
        .find(|p| p.0 == site.example)
        .ok_or_else(|| format!("{}: example {} not found", site.name, site.example))?;
    let ex = Prepared::new(view.apply(&example.2.tree));
    let ex_kinds = options.example_kinds(&example.2.tree);
    let ex_place = place(&example.2.url);
    let mut rtdm = Rtdm::new();
    let start = Instant::now();
    // Scores before the place weight, then the weight where mapping applies it: outside the
    // example's directory, in directories without enough look-alikes.
    let unplaced: Vec<(Vec<String>, f64)> = pages
        .iter()
        .map(|(_, _, page)| {
            let other = Prepared::new(view.apply(&page.tree));
            let agreement = options.agreement(&ex_kinds, &page.tree);
            (
                place(&page.url),
                rtdm.compare(&ex, &other).similarity * agreement,
            )
        })
        .collect();
    let supported = supported_places(
        &ex_place,
        unplaced
            .iter()
            .filter(|_| support)
            .map(|(p, s)| (p.as_slice(), *s)),
        options.threshold,
    );
    let scores = pages
        .iter()
        .zip(&unplaced)
        .map(|((path, target, _), (page_place, score))| {
            let weight = if supported.contains(page_place.as_slice()) {
                1.0
            } else {
                place_agreement(&ex_place, page_place, options.place_weight)
            };
            (path.clone(), score * weight, *target)
        })
        .collect();
    Ok(SiteScores {
        site: site.name.clone(),
        scores,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The views measured.
pub fn views() -> Vec<(String, View)> {
    let v = |collapse, max_depth, text, classes, ids| View {
        collapse,
        max_depth,
        text,
        classes,
        ids,
        top_weight: 0,
        top_depth: 0,
        merge_above: 0,
    };
    let mut out = vec![
        ("tags, full (published RTDM)".to_string(), View::FULL),
        (
            "classes, full".to_string(),
            v(Collapse::None, None, true, true, false),
        ),
        (
            "classes + ids, full".to_string(),
            v(Collapse::None, None, true, true, true),
        ),
        (
            "tags, collapse all".to_string(),
            v(Collapse::All, None, true, false, false),
        ),
        (
            "classes, collapse all".to_string(),
            v(Collapse::All, None, true, true, false),
        ),
        (
            "classes, merge".to_string(),
            v(Collapse::Merge, None, true, true, false),
        ),
    ];
    for (cname, c) in [
        ("consecutive", Collapse::Consecutive),
        ("all", Collapse::All),
        ("merge", Collapse::Merge),
    ] {
        for d in [3, 4, 5, 6, 7, 8] {
            out.push((
                format!("classes, {cname}, depth ≤ {d}"),
                v(c, Some(d), true, true, false),
            ));
        }
    }
    for (cname, c) in [("all", Collapse::All), ("merge", Collapse::Merge)] {
        for d in [4, 5, 6, 7, 8] {
            out.push((
                format!("classes + ids, {cname}, depth ≤ {d}"),
                v(c, Some(d), true, true, true),
            ));
        }
    }
    for (cname, c) in [("all", Collapse::All), ("merge", Collapse::Merge)] {
        for d in [5, 6, 7] {
            for (top_weight, top_depth) in [(2, 4), (4, 4), (2, 5), (4, 5)] {
                out.push((
                    format!("classes + ids, {cname}, depth ≤ {d}, top ×{top_weight} to depth {top_depth}"),
                    View {
                        top_weight,
                        top_depth,
                        ..v(c, Some(d), true, true, true)
                    },
                ));
            }
        }
    }
    // Layout merged: above branching depth m same-label siblings are merged, below it the first
    // of each label is kept (`View::merge_above`).
    for m in [2, 3, 4] {
        for d in [5, 6] {
            for (top_weight, top_depth) in [(4, 4), (4, 5), (8, 5), (12, 5)] {
                out.push((
                    format!("classes + ids, all merged above depth {m}, depth ≤ {d}, top ×{top_weight} to depth {top_depth}"),
                    View {
                        top_weight,
                        top_depth,
                        merge_above: m,
                        ..v(Collapse::All, Some(d), true, true, true)
                    },
                ));
            }
        }
    }
    out
}

/// The settings measured: every view of [`views`] with the default kind and place weights, then
/// the default view without the place weight and without both weights.
pub fn variants() -> Vec<(String, Options)> {
    let default = Options::default();
    let mut out: Vec<(String, Options)> = views()
        .into_iter()
        .map(|(name, view)| (name, Options { view, ..default }))
        .collect();
    let name = views()
        .into_iter()
        .find(|(_, v)| *v == default.view)
        .map_or_else(|| "default view".to_string(), |(n, _)| n);
    out.push((
        format!("{name}, no place weight"),
        Options {
            place_weight: 0.0,
            ..default
        },
    ));
    out.push((
        format!("{name}, no place or kind weight"),
        Options {
            place_weight: 0.0,
            kind_weight: 0.0,
            ..default
        },
    ));
    out
}

/// Runs the whole calibration and renders the Markdown report.
pub fn similarity_report(sites: &[DevSite], extra: &[DevSite]) -> Result<String, String> {
    let default = Options::default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Similarity calibration on the development sites\n\n\
         Generated by `./build.sh eval-similarity` (the example page of each site against every page \
         of the site; ground truth from `eval/dev-sites.toml`). Default view: `{:?}`, \
         default θ = {}. Views: *tags* labels elements by tag name (design §1, published RTDM); \
         *classes* by tag plus class tokens (`div.refentry`); *+ ids* also labels an element whose id \
         is a kind prefix plus the page's own name with that kind (`id=\"module-json\"` on `json.html`: \
         `section#module-`), and pages declaring none of the example's kinds (by that label or by any \
         id with the kind's prefix that is not a heading's anchor) keep half their similarity; \
         pages outside the example's directory keep 90% (*place weight* 0.1) unless their directory \
         holds at least 3 pages at or above θ before that weight (decided at the default θ for every \
         figure here, including those read at other θ); \
         *top ×w to depth t* counts a node at branching depth d < t 1 + w·(t − d) times; *consecutive* keeps the first of each \
         run of same-label siblings, *all* the first sibling of each label, *merge* the tree of \
         distinct label paths; *depth ≤ d* cuts below branching depth d (ancestors with ≥ 2 \
         children). *Auto θ* is Otsu's cut of the similarities seen, without labels. Margin = lowest \
         target similarity − highest non-target similarity (positive: separable).\n",
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
    let mut summary = Vec::new();
    for (name, options) in variants() {
        let is_default = options == default;
        let name = if is_default {
            format!("**{name} (default)**")
        } else {
            name
        };
        let mut all_scores: Vec<Vec<(String, f64, bool)>> = Vec::new();
        for (site, pages) in &parsed {
            let s = score_site_with(site, pages, options)?;
            let f = figures(&s.scores, default.threshold);
            all_scores.push(s.scores.clone());
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
            if is_default {
                default_rows.push(s);
            }
        }
        summary.push((name.clone(), global_figures(&all_scores, default.threshold)));
    }
    let _ = writeln!(
        out,
        "\n## Summary per view\n\n| view | min AUC | mean AUC | errors at best θ per site (sum) | best single θ | errors at best single θ | errors at default θ | errors at auto θ |\n|---|---|---|---|---|---|---|---|"
    );
    for (name, g) in &summary {
        let _ = writeln!(
            out,
            "| {name} | {:.4} | {:.4} | {} | {:.3} | {} | {} | {} |",
            g.min_auc,
            g.mean_auc,
            g.per_site_errors,
            g.global_threshold,
            g.global_errors,
            g.default_errors,
            g.auto_errors
        );
    }
    let _ = writeln!(
        out,
        "\n## Against the bar (default view)\n\nThe bar: AUC ≥ 0.99 and zero errors at the default θ (one view and one θ for every site); \
         *separable* says whether some per-site θ has zero errors.\n"
    );
    for s in &default_rows {
        let f = figures(&s.scores, default.threshold);
        let met = f.auc >= 0.99 && f.default_errors == 0;
        let _ = writeln!(
            out,
            "- {}: AUC {:.4}, {} errors at the default θ, {} at the best θ {:.3} ({}) — {}",
            s.site,
            f.auc,
            f.default_errors,
            f.best_errors,
            f.best_threshold,
            if f.best_errors == 0 {
                "separable"
            } else {
                "not separable"
            },
            if met { "**met**" } else { "**not met**" }
        );
    }
    let _ = writeln!(
        out,
        "\n## Precision and recall of \"similar to the example\" for a sweep of θ (default view)\n"
    );
    let thetas = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
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
    extra_report(&mut out, extra, &default_rows)?;
    let _ = write!(out, "\n{NOTES}");
    Ok(out)
}

/// The θ interval (lo, hi] over which `scores` make the fewest errors: the widest run of
/// thresholds with that count. Returns (errors, lo, hi); hi is the highest score that still
/// passes, lo the next score below it where the count changes.
pub fn plateau(scores: &[&(String, f64, bool)]) -> (usize, f64, f64) {
    let mut cuts: Vec<f64> = scores.iter().map(|s| s.1).collect();
    cuts.push(f64::INFINITY);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    // θ in (cuts[i-1], cuts[i]] passes exactly the scores ≥ cuts[i].
    let errors: Vec<usize> = cuts
        .iter()
        .map(|&c| scores.iter().filter(|(_, s, t)| (*s >= c) != *t).count())
        .collect();
    let best = errors.iter().copied().min().unwrap_or(0);
    let (mut lo, mut hi, mut width) = (0.0, 0.0, -1.0);
    let mut i = 0;
    while i < cuts.len() {
        if errors[i] != best {
            i += 1;
            continue;
        }
        let start = i;
        while i + 1 < cuts.len() && errors[i + 1] == best {
            i += 1;
        }
        let a = if start == 0 { 0.0 } else { cuts[start - 1] };
        let b = cuts[i].min(1.0);
        if b - a > width {
            (lo, hi, width) = (a, b, b - a);
        }
        i += 1;
    }
    (best, lo, hi)
}

/// The grid the default view was chosen from (layout merging depth, depth cut, top weight and
/// depth), measured on the development sites and on the further sites with the examples of
/// [`with_examples`]: per view, the θ plateau where the development sites make the fewest errors,
/// and the further sites' errors at its middle. A Markdown report (`eval-similarity --grid`).
///
/// # Errors
/// When a site cannot be read.
pub fn grid_report(sites: &[DevSite], extra: &[DevSite]) -> Result<String, String> {
    let dev: Vec<_> = sites
        .iter()
        .filter(|s| s.available())
        .map(|s| parse_site(s).map(|p| (s.clone(), p)))
        .collect::<Result<_, _>>()?;
    let mut further = Vec::new();
    for site in extra.iter().filter(|s| s.available()) {
        let read = site.pages()?;
        let Some(picks) = with_examples(site, &read) else {
            continue;
        };
        let pages = parse_pages(read, &picks[0].target)?;
        further.push((picks, pages));
    }
    let default = Options::default();
    let mut grid = Vec::new();
    for merge_above in [0, 2, 3, 4] {
        for max_depth in [5, 6, 7] {
            for top_depth in [4, 5, 6] {
                for top_weight in [4, 8, 12, 16] {
                    grid.push(View {
                        merge_above,
                        max_depth: Some(max_depth),
                        top_depth,
                        top_weight,
                        ..default.view
                    });
                }
            }
        }
    }
    // The place weight on every page elsewhere, as when the view was chosen: which directories
    // escape it depends on θ, and the grid reads each view at its own θ.
    let measure = |view: View| -> Result<String, String> {
        let options = Options { view, ..default };
        let mut dev_scores = Vec::new();
        for (site, pages) in &dev {
            dev_scores.extend(score_site_placed(site, pages, options, false)?.scores);
        }
        let mut further_scores = Vec::new();
        for (picks, pages) in &further {
            for pick in picks {
                further_scores.push(score_site_placed(pick, pages, options, false)?.scores);
            }
        }
        let (errors, lo, hi) = plateau(&dev_scores.iter().collect::<Vec<_>>());
        let mid = (lo + hi) / 2.0;
        let at_mid: usize = further_scores.iter().map(|s| errors_at(s, mid)).sum();
        let at_default: usize = further_scores
            .iter()
            .map(|s| errors_at(s, default.threshold))
            .sum();
        let marker = if view == default.view {
            " (default)"
        } else {
            ""
        };
        Ok(format!(
            "| {}{marker} | {} | ×{} to {} | {errors} | {lo:.3} < θ ≤ {hi:.3} | {:.3} | {mid:.3} | {at_mid} | {} | {at_default} |",
            view.merge_above,
            view.max_depth.unwrap_or(0),
            view.top_weight,
            view.top_depth,
            hi - lo,
            errors_at(&dev_scores, default.threshold),
        ))
    };
    // Two workers: the grid is 144 views × every site.
    let rows: Vec<Result<String, String>> = std::thread::scope(|scope| {
        let half = grid.len().div_ceil(2);
        let handles: Vec<_> = grid
            .chunks(half)
            .map(|chunk| scope.spawn(|| chunk.iter().map(|&v| measure(v)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec![Err("a grid worker panicked".to_string())])
            })
            .collect()
    });
    let mut out = format!(
        "# The similarity view grid\n\n\
         Generated by `./build.sh eval-similarity --grid`: the grid the default view was chosen \
         from (`eval/similarity-notes.md`, *Layout merging*). Every view is the default \
         (`{:?}`) with *merge* (same-label siblings merged above that branching depth; 0: never), \
         *depth* (cut below that branching depth) and the top weights changed. *Plateau*: the θ \
         interval where the development sites together make the fewest errors (the widest such \
         interval); *further sites*: errors summed over the {} site × example cases of \
         `eval/train-sites.toml` (examples as in `docs/reports/similarity.md`, *Beyond the development \
         sites*) at the plateau's middle, and both sums at the default θ = {}. The place weight \
         applies to every page outside the example's directory, as when the view was chosen \
         (the rule that lifts it in directories of look-alikes depends on θ).\n\n\
         | merge above | depth ≤ | top | dev errors (fewest) | plateau | width | middle | further sites at the middle | dev at default θ | further at default θ |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        default.view,
        further.iter().map(|(p, _)| p.len()).sum::<usize>(),
        default.threshold
    );
    for row in rows {
        out.push_str(&row?);
        out.push('\n');
    }
    Ok(out)
}

/// The size quantiles at which [`with_examples`] picks example pages.
pub const EXAMPLE_QUANTILES: [f64; 3] = [0.25, 0.5, 0.75];

/// A site of `eval/train-sites.toml` given an example by a fixed rule, since it has none of its
/// own: the target label is its first entity rule's, and the examples are the pages with that
/// label at the [`EXAMPLE_QUANTILES`] of byte size (ties by path). `None` when no rule or page
/// qualifies. `pages` are the site's pages ([`DevSite::pages`]), read once by the caller.
pub fn with_examples(site: &DevSite, pages: &[SitePage]) -> Option<Vec<DevSite>> {
    let rule = site.rules.iter().find(|r| r.role == Role::Entity)?;
    let mut sized: Vec<(usize, &str)> = pages
        .iter()
        .filter(|p| p.label.as_deref() == Some(rule.label.as_str()))
        .map(|p| (p.bytes.len(), p.path.as_str()))
        .collect();
    if sized.is_empty() {
        return None;
    }
    sized.sort();
    let picks = EXAMPLE_QUANTILES
        .iter()
        .map(|q| {
            let i = ((sized.len() - 1) as f64 * q).round() as usize;
            let mut s = site.clone();
            s.example = sized[i].1.to_string();
            s.target = rule.label.clone();
            s
        })
        .collect();
    Some(picks)
}

/// The default settings and the former default (before layout merging) on the sites of
/// `eval/train-sites.toml`, with examples picked by [`with_examples`].
fn extra_report(out: &mut String, extra: &[DevSite], dev: &[SiteScores]) -> Result<(), String> {
    let default = Options::default();
    let former = Options {
        threshold: 0.84,
        view: View {
            top_weight: 4,
            top_depth: 4,
            merge_above: 0,
            ..default.view
        },
        ..default
    };
    let _ = writeln!(
        out,
        "\n## Beyond the development sites\n\n\
         The sites of `eval/train-sites.toml` (more Debian documentation made by the same four \
         generators) have no example of their own, so one is picked by a fixed rule: the target is \
         the site's first entity label, and the examples are the pages with that label at the {:?} \
         quantiles of byte size (a small, a median and a large entity page). These sites are not \
         held out: the default view was chosen on the first ten of them and the development sites \
         together, and its *anchors* rule on the last three (Celery, Kombu, SQLAlchemy: see the \
         notes below), so read this as a check of breadth, not a blind test. *Former default*: top ×4 \
         to depth 4, no layout merging, θ = 0.84, the place weight on every page outside the example's directory.\n\n\
         | settings | site | example | targets | others | AUC | margin | best θ | errors at best θ | errors at its θ |\n\
         |---|---|---|---|---|---|---|---|---|---|",
        EXAMPLE_QUANTILES
    );
    let mut totals = [(0usize, 0usize, f64::INFINITY, 0usize); 2];
    // The default settings' scores of every case, for the θ sweep.
    let mut cases: Vec<Vec<(String, f64, bool)>> = Vec::new();
    // Errors at each setting's θ per site, summed over its examples: (site, like, [default, former]).
    let mut per_site: Vec<(String, String, [usize; 2])> = Vec::new();
    let mut missing = Vec::new();
    for site in extra {
        if !site.available() {
            missing.push(format!("{} ({})", site.name, site.package));
            continue;
        }
        let read = site.pages()?;
        let Some(picks) = with_examples(site, &read) else {
            continue;
        };
        // Parse once; targets depend only on the label, the same for every pick.
        let pages = parse_pages(read, &picks[0].target)?;
        per_site.push((
            site.name.clone(),
            site.like.clone().unwrap_or_default(),
            [0, 0],
        ));
        for pick in &picks {
            for (i, (name, options)) in [("default", default), ("former default", former)]
                .into_iter()
                .enumerate()
            {
                // The former default as it was: the place weight on every page elsewhere.
                let s = score_site_placed(pick, &pages, options, i == 0)?;
                let f = figures(&s.scores, options.threshold);
                if i == 0 {
                    cases.push(s.scores.clone());
                }
                totals[i].0 += f.default_errors;
                if let Some(last) = per_site.last_mut() {
                    last.2[i] += f.default_errors;
                }
                totals[i].1 += f.best_errors;
                totals[i].2 = totals[i].2.min(f.auc);
                totals[i].3 += 1;
                let _ = writeln!(
                    out,
                    "| {name} | {} | `{}` | {} | {} | {:.4} | {:+.3} | {:.3} | {} | {} |",
                    site.name,
                    pick.example,
                    f.targets,
                    f.others,
                    f.auc,
                    f.min_target - f.max_other,
                    f.best_threshold,
                    f.best_errors,
                    f.default_errors
                );
            }
        }
    }
    for (i, name) in ["default", "former default"].into_iter().enumerate() {
        let (at_theta, at_best, min_auc, cases) = totals[i];
        let _ = writeln!(
            out,
            "\n- {name}: {at_theta} errors at its θ and {at_best} at each case's best θ over {cases} \
             site × example cases; lowest AUC {min_auc:.4}."
        );
    }
    let _ = writeln!(
        out,
        "\nErrors at each setting's θ per site, summed over its examples:\n\n\
         | site | like | default | former default |\n|---|---|---|---|"
    );
    for (name, like, [d, f]) in &per_site {
        let _ = writeln!(out, "| {name} | {like} | {d} | {f} |");
    }
    let _ = writeln!(
        out,
        "\nErrors of the default view for a sweep of θ, summed over the development sites and over \
         the cases above:\n\n| θ | development sites | further sites |\n|---|---|---|"
    );
    for t in [
        0.80, 0.82, 0.84, 0.85, 0.86, 0.865, 0.87, 0.875, 0.88, 0.885, 0.89, 0.90, 0.92,
    ] {
        let sum = |v: &mut dyn Iterator<Item = &Vec<(String, f64, bool)>>| {
            v.map(|s| errors_at(s, t)).sum::<usize>()
        };
        let marker = if (t - default.threshold).abs() < 1e-9 {
            " (default)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {t}{marker} | {} | {} |",
            sum(&mut dev.iter().map(|s| &s.scores)),
            sum(&mut cases.iter())
        );
    }
    if !missing.is_empty() {
        let _ = writeln!(
            out,
            "\nNot installed, skipped: {} (`./build.sh setup`).",
            missing.join(", ")
        );
    }
    Ok(())
}

/// Hand-written notes appended to the report: how the default was chosen, what it gets wrong.
const NOTES: &str = include_str!("../similarity-notes.md");

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(v: &[(f64, bool)]) -> Vec<(String, f64, bool)> {
        v.iter()
            .enumerate()
            .map(|(i, &(s, t))| (format!("p{i}"), s, t))
            .collect()
    }

    #[test]
    fn plateau_is_the_widest_interval_of_fewest_errors() {
        // Separable: every θ in (0.5, 0.8] makes no error.
        let s = scores(&[(0.2, false), (0.5, false), (0.8, true), (0.9, true)]);
        let refs: Vec<_> = s.iter().collect();
        assert_eq!(plateau(&refs), (0, 0.5, 0.8));
        // One target below one other page: one error wherever θ is; the widest such run wins.
        let s = scores(&[
            (0.1, false),
            (0.3, true),
            (0.6, false),
            (0.65, true),
            (0.7, true),
        ]);
        let refs: Vec<_> = s.iter().collect();
        let (errors, lo, hi) = plateau(&refs);
        assert_eq!(errors, 1);
        assert_eq!((lo, hi), (0.1, 0.3));
        for (name, t) in [("inside", (lo + hi) / 2.0), ("at the top", hi)] {
            assert_eq!(errors_at(&s, t), 1, "{name}");
        }
        assert_eq!(errors_at(&s, lo), 2);
        // Nothing to separate: no page.
        assert_eq!(plateau(&[]).0, 0);
    }
}
