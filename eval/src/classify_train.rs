//! Training and evaluation of the page-kind model on the development sites (native only).
//!
//! Owns: turning the labelled pages of `../shared/eval/dev-sites.toml`, of the extra training
//! sites of `eval/train-sites.toml` and of the bundled synthetic demo site (when present) into
//! feature rows; class balancing; the leave-one-site-out (LOSO)
//! and leave-one-generator-out evaluations, the in-domain cross-validation, the ablations and the feature selection; the
//! training of the shipped mixture's documentation expert; and `docs/reports/classifier.md`
//! (`crate::web_classify::train_shipped` writes it with the mixture). Everything is deterministic (no
//! randomness, fixed orders, floats rounded in the model file), so a retrain reproduces the
//! committed files byte for byte.
//!
//! The features the model uses ([`SELECTED`]) were chosen on the LOSO macro F1 with the extra
//! training sites in every fold: backward elimination ([`select_features`]) from all features,
//! then the best single addition, keeping every kind's held-out F1 above [`MIN_KIND_F1`] on every
//! site and the plain shop pages of [`exemplar_classify::sanity_pages`] right (`exemplar-eval train-classifier
//! --select` reruns it).
//!
//! Why this file is long (~1,530 lines): the training, its leave-one-site-out evaluations and the
//! report they write share the sample and score types; it is lab code, run by
//! `./build.sh train-classifier`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use exemplar_html::{Page, ParseOptions};
use exemplar_testkit::devsites::{DevSite, Role};

use exemplar_classify::Kind;
use exemplar_classify::features::{self, NAMES};
use exemplar_classify::model::{FitOptions, Model};

/// Name given to the bundled demo site.
pub const DEMO: &str = "demo";

/// L2 strength of the shipped model (chosen on the LOSO macro F1; the report shows the sweep).
pub const L2: f64 = 0.007;

/// The features the shipped model uses (the others get no weight); see the module docs.
pub const SELECTED: &[&str] = &[
    "sibling_group_log",
    "anchor_words",
    "link_density",
    "rep_hash_log",
    "headings_per_knode",
    "text_log",
    "pre_frac",
    "dl_items_log",
    "table_rows_log",
    "images_log",
    "prices_log",
    "last_index_word",
    "last_has_digits",
    "title_is_index",
    "title_numbered",
    "title_url_full",
    "title_url_partial",
    "links_per_target",
    "repeat_links",
    "main_links_log",
    "main_targets_log",
    "main_repeat",
    "main_link_text",
    "main_text_log",
    "main_list_frac",
    "kind_id",
];

/// The features the model used before the extra training sites (chosen the same way on the four
/// development sites alone); a starting point of the selection.
pub const FORMER: &[&str] = &[
    "links_per_knode",
    "list_link_frac",
    "rep_hash_log",
    "headings_log",
    "headings_per_knode",
    "paragraph_frac",
    "pre_frac",
    "dl_items_log",
    "table_rows_log",
    "images_log",
    "last_index_word",
    "last_has_digits",
    "title_is_index",
    "title_numbered",
    "repeat_links",
    "title_url_full",
    "main_links_log",
    "main_repeat",
    "main_text_log",
    "main_anchor_words",
];

/// The general and domain features of the source paper (design §7) that the vector has.
pub const PAPER: &[&str] = &[
    "links_log",
    "prefix_group_log",
    "anchor_len_log",
    "title_words_log",
    "images_log",
    "prices_log",
];

/// Features that read the index word list (`data/classify/index-words.txt`).
pub const INDEX_WORD_FEATURES: &[&str] = &["last_index_word", "title_index_word", "title_is_index"];

/// Features that read the chrome word list (`data/classify/chrome-words.txt`).
pub const CHROME_FEATURES: &[&str] = &[
    "chrome_share",
    "main_links_log",
    "main_targets_log",
    "main_repeat",
    "main_link_text",
    "main_text_log",
    "main_record_share",
    "main_list_log",
    "main_list_frac",
    "main_anchor_words",
    "main_headings_log",
];

/// Features that read the title.
pub const TITLE_FEATURES: &[&str] = &[
    "title_words_log",
    "title_index_word",
    "title_is_index",
    "title_numbered",
    "title_url_full",
    "title_url_partial",
];

/// The bar: LOSO macro F1 pooled over the held-out pages of the development sites.
pub const BAR: f64 = 0.93;

/// One labelled page as a feature row.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Site name.
    pub site: String,
    /// Whether the site is an extra training site (`eval/train-sites.toml`): training data in
    /// every fold, never held out in the headline figures.
    pub extra: bool,
    /// The generator group: a development site's own name; for an extra site, the development
    /// site made by the same generator (its `like`); [`DEMO`] for the demo site.
    pub generator: String,
    /// Path relative to the site root.
    pub path: String,
    /// The ground-truth rule label (`refentry`, `class-use`, …), if any rule matched.
    pub label: Option<String>,
    /// The true kind.
    pub kind: Kind,
    /// Feature vector ([`features::extract`]).
    pub x: Vec<f64>,
    /// FNV-1a of the page's bytes as read: with the paths and labels, it tells whether two
    /// trainings read the same pages ([`data_digest`]).
    pub bytes_digest: u64,
    /// For a real labelled page (`eval/real/pages/`), the collection it comes from (`aeb`,
    /// `readability`, …); `None` for the documentation sites' pages.
    pub source: Option<String>,
}

fn kind_of(role: Role) -> Kind {
    match role {
        Role::Index => Kind::Index,
        Role::Entity => Kind::Entity,
        Role::Other => Kind::Other,
    }
}

/// Position of a kind in [`Kind::ALL`] (the model's class order).
fn class_index(k: Kind) -> usize {
    match k {
        Kind::Index => 0,
        Kind::Entity => 1,
        Kind::Other => 2,
    }
}

/// The bundled synthetic demo site (`tests/fixtures/demo-site`), if present.
pub fn demo_dir() -> Option<PathBuf> {
    let d = exemplar_testkit::root().join("tests/fixtures/demo-site");
    d.join("expected.toml").is_file().then_some(d)
}

/// A page to featurise.
pub(crate) struct RawPage {
    pub site: String,
    pub extra: bool,
    pub generator: String,
    pub path: String,
    pub url: String,
    pub label: Option<String>,
    pub kind: Kind,
    pub bytes: Vec<u8>,
    /// The `Content-Type` the page was served with, when known (its charset).
    pub content_type: Option<String>,
    pub source: Option<String>,
}

/// Parses pages into samples on two threads (order preserved; unparsable pages are skipped).
pub(crate) fn featurise(raw: &[RawPage]) -> Vec<Sample> {
    let work = |chunk: &[RawPage]| -> Vec<Option<Sample>> {
        chunk
            .iter()
            .map(|r| {
                let page = Page::parse(
                    &r.bytes,
                    &r.url,
                    r.content_type.as_deref(),
                    &ParseOptions::default(),
                )
                .ok()?;
                Some(Sample {
                    site: r.site.clone(),
                    extra: r.extra,
                    generator: r.generator.clone(),
                    path: r.path.clone(),
                    label: r.label.clone(),
                    kind: r.kind,
                    x: features::extract(&page),
                    bytes_digest: exemplar_url::canon::bytes_signature(&r.bytes),
                    source: r.source.clone(),
                })
            })
            .collect()
    };
    let (a, b) = raw.split_at(raw.len() / 2);
    let (ra, rb) = std::thread::scope(|s| {
        let h = s.spawn(|| work(b));
        (work(a), h.join().unwrap_or_default())
    });
    ra.into_iter().chain(rb).flatten().collect()
}

/// Reads the pages of the development sites and of the extra training sites (every `every`-th
/// page of each site in path order; 1 for all) and of the demo site (all of it, when `demo` is
/// given) as samples.
///
/// # Errors
/// When a site is not installed or cannot be read, or the demo site's `expected.toml` is invalid.
pub fn load_samples(
    sites: &[DevSite],
    extra: &[DevSite],
    demo: Option<&Path>,
    every: usize,
) -> Result<Vec<Sample>, String> {
    let mut raw = Vec::new();
    let all = sites
        .iter()
        .map(|s| (s, false))
        .chain(extra.iter().map(|s| (s, true)));
    for (site, is_extra) in all {
        let generator = if is_extra {
            site.like.clone().unwrap_or_else(|| site.name.clone())
        } else {
            site.name.clone()
        };
        if !site.available() {
            return Err(format!(
                "site {} is not installed ({}): run ./build.sh setup",
                site.name, site.package
            ));
        }
        for (i, p) in site.pages()?.into_iter().enumerate() {
            if i % every.max(1) == 0 {
                raw.push(RawPage {
                    site: site.name.clone(),
                    extra: is_extra,
                    generator: generator.clone(),
                    path: p.path,
                    url: p.url,
                    label: p.label,
                    kind: kind_of(p.role),
                    bytes: p.bytes,
                    content_type: None,
                    source: None,
                });
            }
        }
    }
    if let Some(dir) = demo {
        raw.extend(demo_pages(dir)?);
    }
    Ok(featurise(&raw))
}

/// The demo site's pages with the roles of its `expected.toml` (`[pages]`: path → role).
fn demo_pages(dir: &Path) -> Result<Vec<RawPage>, String> {
    let file = dir.join("expected.toml");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let value: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let pages = value
        .get("pages")
        .and_then(toml::Value::as_table)
        .ok_or_else(|| format!("{}: no [pages] table", file.display()))?;
    let sorted: BTreeMap<&String, &toml::Value> = pages.iter().collect();
    let mut out = Vec::new();
    for (path, role) in sorted {
        let kind = match role.as_str() {
            Some("index") => Kind::Index,
            Some("entity") => Kind::Entity,
            Some("other") => Kind::Other,
            _ => return Err(format!("{}: bad role for {path}", file.display())),
        };
        let p = dir.join(path);
        let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        out.push(RawPage {
            site: DEMO.to_string(),
            extra: false,
            generator: DEMO.to_string(),
            path: path.clone(),
            url: format!("http://{DEMO}.test/{path}"),
            label: Some(kind.name().to_string()),
            kind,
            bytes,
            content_type: None,
            source: None,
        });
    }
    Ok(out)
}

/// Per-row training weights: every site weighs the same in total, and then every kind weighs the
/// same in total (so neither the largest site nor the commonest kind dominates).
pub fn balance(samples: &[&Sample]) -> Vec<f64> {
    let mut per_site: BTreeMap<&str, f64> = BTreeMap::new();
    for s in samples {
        *per_site.entry(s.site.as_str()).or_insert(0.0) += 1.0;
    }
    let site_w: Vec<f64> = samples
        .iter()
        .map(|s| 1.0 / per_site[s.site.as_str()])
        .collect();
    let mut per_class = [0.0f64; 3];
    for (s, w) in samples.iter().zip(&site_w) {
        per_class[class_index(s.kind)] += w;
    }
    samples
        .iter()
        .zip(&site_w)
        .map(|(s, w)| {
            let t = per_class[class_index(s.kind)];
            if t > 0.0 { w / t } else { 0.0 }
        })
        .collect()
}

/// Which features a model may use (`false`: the column is zeroed, so it gets no weight).
pub type Mask = Vec<bool>;

/// The mask of the named features.
pub fn mask_of(names: &[&str]) -> Mask {
    NAMES.iter().map(|n| names.contains(n)).collect()
}

/// A mask minus the named features.
pub fn without(mask: &[bool], names: &[&str]) -> Mask {
    NAMES
        .iter()
        .zip(mask)
        .map(|(n, &m)| m && !names.contains(n))
        .collect()
}

/// Trains on the given samples, using the features of `mask`.
pub fn train(samples: &[&Sample], mask: &[bool], l2: f64) -> Model {
    let x: Vec<Vec<f64>> = samples.iter().map(|s| s.x.clone()).collect();
    let y: Vec<usize> = samples.iter().map(|s| class_index(s.kind)).collect();
    let w = balance(samples);
    let opts = FitOptions {
        l2,
        used: mask.to_vec(),
        ..FitOptions::default()
    };
    Model::fit(NAMES, &Kind::ALL.map(Kind::name), &x, &y, &w, &opts)
}

/// Predictions of one evaluation: (sample index, predicted kind, confidence), by sample index.
pub type Predictions = Vec<(usize, Kind, f64)>;

/// Leave-one-site-out: for every site in `held`, train on all the other samples (the extra
/// training sites and the demo site included) and predict the held-out site's pages.
pub fn loso_sites(samples: &[Sample], held: &[&str], mask: &[bool], l2: f64) -> Predictions {
    held_out(samples, held, mask, l2, |s, site| s.site != site)
}

/// Leave-one-generator-out: like [`loso_sites`], but the training fold of a held-out development
/// site also loses the extra sites of its generator (those whose `like` is that site).
pub fn logo_sites(samples: &[Sample], held: &[&str], mask: &[bool], l2: f64) -> Predictions {
    held_out(samples, held, mask, l2, |s, site| {
        s.site != site && s.generator != site
    })
}

/// Leave-one-site-out over the development sites with the extra training sites left out of
/// every fold (the training data before `eval/train-sites.toml`).
pub fn loso_without_extra(samples: &[Sample], mask: &[bool], l2: f64) -> Predictions {
    held_out(samples, &dev_sites(samples), mask, l2, |s, site| {
        s.site != site && !s.extra
    })
}

/// For every site in `held`: train on the samples `keep(sample, site)` accepts, predict that
/// site's pages (two workers; sorted by sample index).
fn held_out(
    samples: &[Sample],
    held: &[&str],
    mask: &[bool],
    l2: f64,
    keep: impl Fn(&Sample, &str) -> bool + Sync,
) -> Predictions {
    let keep = &keep;
    let fold = |site: &str| -> Predictions {
        let train_set: Vec<&Sample> = samples.iter().filter(|s| keep(s, site)).collect();
        let m = train(&train_set, mask, l2);
        samples
            .iter()
            .enumerate()
            .filter(|(_, s)| s.site == site)
            .map(|(i, s)| {
                let (c, p) = m.predict(&s.x);
                (i, Kind::ALL[c], p)
            })
            .collect()
    };
    // Two workers: the folds are independent, and the output is sorted afterwards.
    let mut out: Predictions = std::thread::scope(|scope| {
        let odd: Vec<_> = held
            .iter()
            .skip(1)
            .step_by(2)
            .map(|&s| scope.spawn(move || fold(s)))
            .collect();
        let mut all: Predictions = held.iter().step_by(2).flat_map(|&s| fold(s)).collect();
        for h in odd {
            all.extend(h.join().unwrap_or_default());
        }
        all
    });
    out.sort_by_key(|p| p.0);
    out
}

/// The development sites of the samples (every site but the extra training sites and the demo
/// site), in sample order.
pub fn dev_sites(samples: &[Sample]) -> Vec<&str> {
    let mut sites: Vec<&str> = Vec::new();
    for s in samples {
        if s.site != DEMO && !s.extra && s.source.is_none() && !sites.contains(&s.site.as_str()) {
            sites.push(&s.site);
        }
    }
    sites
}

/// The extra training sites of the samples, in sample order.
pub fn extra_sites(samples: &[Sample]) -> Vec<&str> {
    let mut sites: Vec<&str> = Vec::new();
    for s in samples {
        if s.extra && !sites.contains(&s.site.as_str()) {
            sites.push(&s.site);
        }
    }
    sites
}

/// LOSO over the development sites (the extra sites and the demo site are only ever training
/// data).
pub fn loso(samples: &[Sample], mask: &[bool], l2: f64) -> Predictions {
    loso_sites(samples, &dev_sites(samples), mask, l2)
}

/// Leave-one-generator-out over the development sites ([`logo_sites`]).
pub fn logo(samples: &[Sample], mask: &[bool], l2: f64) -> Predictions {
    logo_sites(samples, &dev_sites(samples), mask, l2)
}

/// In-domain evaluation: 5-fold cross-validation over all pages pooled (fold = rank of the page
/// within its site, modulo 5), the setting of the source paper's train/test split. Returns the
/// predictions for the development sites' pages.
pub fn in_domain(samples: &[Sample], mask: &[bool], l2: f64) -> Predictions {
    const FOLDS: usize = 5;
    let mut fold_of = Vec::with_capacity(samples.len());
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for s in samples {
        let r = seen.entry(s.site.as_str()).or_insert(0);
        fold_of.push(*r % FOLDS);
        *r += 1;
    }
    let mut out = Vec::new();
    for f in 0..FOLDS {
        let train_set: Vec<&Sample> = samples
            .iter()
            .zip(&fold_of)
            .filter(|(_, r)| **r != f)
            .map(|(s, _)| s)
            .collect();
        let m = train(&train_set, mask, l2);
        for (i, s) in samples.iter().enumerate() {
            if fold_of[i] == f && s.site != DEMO && !s.extra && s.source.is_none() {
                let (c, p) = m.predict(&s.x);
                out.push((i, Kind::ALL[c], p));
            }
        }
    }
    out.sort_by_key(|p| p.0);
    out
}

/// The accuracy of the model trained on all samples with `mask` on each development site.
pub fn site_fits(samples: &[Sample], mask: &[bool], l2: f64) -> Vec<(String, f64)> {
    let all: Vec<&Sample> = samples.iter().collect();
    let m = train(&all, mask, l2);
    dev_sites(samples)
        .iter()
        .map(|site| {
            let pages: Vec<&Sample> = samples.iter().filter(|s| s.site == *site).collect();
            let right = pages
                .iter()
                .filter(|s| Kind::ALL[m.predict(&s.x).0] == s.kind)
                .count();
            (site.to_string(), right as f64 / pages.len().max(1) as f64)
        })
        .collect()
}

/// The least F1 of every kind on every held-out development site that a selected feature set
/// must keep (every kind is recognised on every site at least sometimes; `eval/tests/classify_sites.rs`
/// checks it for the shipped set).
pub const MIN_KIND_F1: f64 = 0.25;

/// Whether the model trained on all samples with `mask` classifies the plain shop pages of
/// [`exemplar_classify::sanity_pages`] right (a product listing, a product page).
pub fn sane(samples: &[Sample], mask: &[bool], l2: f64) -> bool {
    let all: Vec<&Sample> = samples.iter().collect();
    let m = train(&all, mask, l2);
    exemplar_classify::sanity_pages()
        .iter()
        .all(|(page, kind)| Kind::ALL[m.predict(&features::extract(page)).0] == *kind)
}

/// Feature selection on the LOSO pooled macro F1, among the feature sets whose LOSO F1 of every
/// kind on every held-out site exceeds [`MIN_KIND_F1`] and whose shipped model classifies the
/// plain shop pages of [`exemplar_classify::sanity_pages`] right ([`sane`]): backward elimination from `start` (drop
/// the feature whose removal scores best, while that is no worse than 0.002 below the best seen),
/// then the single addition that scores best, if it beats the best seen. Returns the final mask
/// and the trace (`-feature` dropped or `+feature` added, macro F1 after it).
pub fn select_features(samples: &[Sample], start: &[bool], l2: f64) -> (Mask, Vec<(String, f64)>) {
    let sites = dev_sites(samples);
    let score = |m: &[bool]| -> f64 {
        let p = loso(samples, m, l2);
        let every_kind = sites.iter().all(|site| {
            let sc = Scores::of(samples, &p, |s| s.site == *site);
            (0..3).all(|c| sc.prf(c).2 > MIN_KIND_F1)
        });
        if every_kind && sane(samples, m, l2) {
            Scores::of(samples, &p, |_| true).macro_f1()
        } else {
            0.0
        }
    };
    let mut mask = start.to_vec();
    let mut best = score(&mask);
    let mut trace = vec![("(start)".to_string(), best)];
    // Best single flip among the features with `mask[j] == on`.
    let best_flip = |mask: &mut Mask, on: bool| -> Option<(f64, usize)> {
        let mut cand: Option<(f64, usize)> = None;
        for j in 0..mask.len() {
            if mask[j] != on {
                continue;
            }
            mask[j] = !on;
            let f = score(mask);
            mask[j] = on;
            if cand.is_none_or(|c| f > c.0) {
                cand = Some((f, j));
            }
        }
        cand
    };
    while let Some((f, j)) = best_flip(&mut mask, true).filter(|c| c.0 >= best - 0.002) {
        mask[j] = false;
        best = best.max(f);
        trace.push((format!("-{}", NAMES[j]), f));
    }
    if let Some((f, j)) = best_flip(&mut mask, false).filter(|c| c.0 > best) {
        mask[j] = true;
        trace.push((format!("+{}", NAMES[j]), f));
    }
    (mask, trace)
}

/// A 3×3 confusion matrix, `matrix[true][predicted]` in [`Kind::ALL`] order, with the usual
/// scores.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    /// Counts, `matrix[true][predicted]`.
    pub matrix: [[usize; 3]; 3],
}

impl Scores {
    /// Scores of predictions against the samples' kinds, restricted to samples `keep` accepts.
    pub fn of(samples: &[Sample], preds: &Predictions, keep: impl Fn(&Sample) -> bool) -> Scores {
        let mut s = Scores::default();
        for &(i, k, _) in preds {
            if keep(&samples[i]) {
                s.matrix[class_index(samples[i].kind)][class_index(k)] += 1;
            }
        }
        s
    }

    /// Pages counted.
    pub fn total(&self) -> usize {
        self.matrix.iter().flatten().sum()
    }

    /// Precision, recall and F1 of class `c` (0 when undefined).
    pub fn prf(&self, c: usize) -> (f64, f64, f64) {
        let tp = self.matrix[c][c] as f64;
        let predicted: usize = (0..3).map(|t| self.matrix[t][c]).sum();
        let actual: usize = self.matrix[c].iter().sum();
        let p = if predicted > 0 {
            tp / predicted as f64
        } else {
            0.0
        };
        let r = if actual > 0 { tp / actual as f64 } else { 0.0 };
        let f = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        (p, r, f)
    }

    /// Mean F1 over the kinds present (in truth or in the predictions).
    pub fn macro_f1(&self) -> f64 {
        let present: Vec<usize> = (0..3)
            .filter(|&c| {
                self.matrix[c].iter().sum::<usize>()
                    + (0..3).map(|t| self.matrix[t][c]).sum::<usize>()
                    > 0
            })
            .collect();
        if present.is_empty() {
            return 0.0;
        }
        present.iter().map(|&c| self.prf(c).2).sum::<f64>() / present.len() as f64
    }

    /// Share of pages classified correctly.
    pub fn accuracy(&self) -> f64 {
        let t = self.total();
        if t == 0 {
            return 0.0;
        }
        (0..3).map(|c| self.matrix[c][c]).sum::<usize>() as f64 / t as f64
    }

    /// Precision, recall and F1 of "index" against the rest (the source paper's task).
    pub fn index_vs_rest(&self) -> (f64, f64, f64) {
        self.prf(0)
    }
}

/// Runs the feature selection ([`select_features`]) from all features (what [`SELECTED`] was set
/// from; `exemplar-eval train-classifier --select`) or from [`FORMER`] (the features chosen before the
/// extra training sites; `--select --from-former`), printing the trace and the resulting feature
/// list with the shipped model's accuracy per development site; writes nothing.
///
/// # Errors
/// When a site is missing.
pub fn run_selection(
    sites: &[DevSite],
    extra: &[DevSite],
    from_former: bool,
) -> Result<(), String> {
    let demo = demo_dir();
    let samples = load_samples(sites, extra, demo.as_deref(), 1)?;
    let start = if from_former {
        mask_of(FORMER)
    } else {
        vec![true; NAMES.len()]
    };
    let (mask, trace) = select_features(&samples, &start, L2);
    println!(
        "## backward elimination from {}, then the best single addition (0: some kind's F1 ≤ \
         {MIN_KIND_F1} on some held-out site, or a plain shop page misclassified)",
        if from_former {
            "FORMER"
        } else {
            "all features"
        }
    );
    for (f, score) in &trace {
        println!("- {f}: {score:.4}");
    }
    let kept = names_in(&mask);
    println!("kept {}: {kept:?}", kept.len());
    for (site, accuracy) in site_fits(&samples, &mask, L2) {
        println!("shipped model accuracy on {site}: {accuracy:.3}");
    }
    Ok(())
}

/// The names of the features a mask keeps, in vector order.
fn names_in(mask: &[bool]) -> Vec<&'static str> {
    NAMES
        .iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(n, _)| *n)
        .collect()
}

/// One fold of [`nested`]: the held-out development site, the features the other sites chose,
/// the score their selection ended on, and the held-out site's predictions.
#[derive(Clone, Debug)]
pub struct NestedFold {
    /// The held-out development site.
    pub site: String,
    /// The features the selection on the other sites kept.
    pub mask: Mask,
    /// The selection's own last score (its leave-one-site-out over the other sites).
    pub inner_score: f64,
    /// The held-out site's pages, predicted by the model trained on every other site with `mask`.
    pub predictions: Predictions,
}

/// Leave-one-site-out with the feature selection inside each fold: for every development site,
/// `select` sees the samples of every other site only (never the held-out one) and returns a
/// mask with its trace (as [`select_features`]); the model trained on those samples with that
/// mask predicts the held-out site. Lazy: a fold is computed when it is asked for, so a slow
/// selection's folds can be reported one by one.
pub fn nested<'a>(
    samples: &'a [Sample],
    l2: f64,
    select: impl Fn(&[Sample]) -> (Mask, Vec<(String, f64)>) + 'a,
) -> impl Iterator<Item = NestedFold> + 'a {
    dev_sites(samples).into_iter().map(move |outer| {
        let inner: Vec<Sample> = samples
            .iter()
            .filter(|s| s.site != outer)
            .cloned()
            .collect();
        let (mask, trace) = select(&inner);
        // Trained on the `inner` samples (every other site) with the features chosen.
        let predictions = loso_sites(samples, &[outer], &mask, l2);
        NestedFold {
            site: outer.to_string(),
            // The last step's score is that of the features kept.
            inner_score: trace.last().map_or(0.0, |t| t.1),
            mask,
            predictions,
        }
    })
}

/// Leave-one-site-out with the feature selection inside each fold (`exemplar-eval train-classifier
/// --select --nested`): [`nested`] with [`select_features`] from all features. The headline LOSO
/// figure uses features chosen on every held-out site, which makes it optimistic; this one never
/// looks at the site it scores. Prints each fold's choice and score and the pooled figure;
/// writes nothing. Slow: a whole selection per development site.
///
/// # Errors
/// When a site is missing.
pub fn run_nested(sites: &[DevSite], extra: &[DevSite]) -> Result<(), String> {
    let demo = demo_dir();
    let samples = load_samples(sites, extra, demo.as_deref(), 1)?;
    let start = vec![true; NAMES.len()];
    println!(
        "## leave-one-site-out, the features selected without the held-out site (backward \
         elimination from all features on the other sites, as `--select`)"
    );
    let folds = nested(&samples, L2, |inner| select_features(inner, &start, L2));
    let mut preds: Predictions = Vec::new();
    for fold in folds {
        let chosen = names_in(&fold.mask);
        let held = Scores::of(&samples, &fold.predictions, |_| true);
        println!(
            "- held out {}: macro F1 {:.3}, accuracy {:.3} ({} pages); the other sites' \
             selection kept {} features (its own leave-one-site-out {:.3}): {chosen:?}",
            fold.site,
            held.macro_f1(),
            held.accuracy(),
            held.total(),
            chosen.len(),
            fold.inner_score,
        );
        preds.extend(fold.predictions);
    }
    let pooled = Scores::of(&samples, &preds, |_| true);
    println!(
        "pooled over the development sites: macro F1 {:.3}, accuracy {:.3} ({} pages)",
        pooled.macro_f1(),
        pooled.accuracy(),
        pooled.total()
    );
    Ok(())
}

/// A digest of the pages a training read (their sites, paths, labels and bytes, in order), as
/// 16 hex digits. The installed documentation packages change with Debian's point releases (a
/// PostgreSQL security update adds or removes pages): the digest tells a model trained on other
/// pages from a model trained with other code.
pub fn data_digest(samples: &[Sample]) -> String {
    let mut text = Vec::new();
    for s in samples {
        text.extend_from_slice(s.site.as_bytes());
        text.push(0);
        text.extend_from_slice(s.path.as_bytes());
        text.push(0);
        text.extend_from_slice(s.label.as_deref().unwrap_or("").as_bytes());
        text.push(0);
        text.extend_from_slice(&s.bytes_digest.to_le_bytes());
    }
    format!("{:016x}", exemplar_url::canon::bytes_signature(&text))
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

mod report;
pub use report::report;

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Pages of `site` whose first feature tells their kind and whose second is noise.
    fn site(name: &str, extra: bool, pages: usize) -> Vec<Sample> {
        (0..pages)
            .map(|i| {
                let kind = Kind::ALL[i % 3];
                let mut x = vec![0.0; NAMES.len()];
                x[0] = class_index(kind) as f64 * 3.0 + (i % 5) as f64 * 0.1;
                x[1] = ((i * 7 + name.len()) % 11) as f64;
                Sample {
                    site: name.to_string(),
                    extra,
                    generator: name.to_string(),
                    path: format!("{i}.html"),
                    label: None,
                    kind,
                    x,
                    bytes_digest: i as u64,
                    source: None,
                }
            })
            .collect()
    }

    #[test]
    fn nested_selects_without_the_held_out_site_and_predicts_it_with_the_chosen_mask() {
        let samples: Vec<Sample> = [("a", false), ("b", false), ("x", true), ("c", false)]
            .into_iter()
            .flat_map(|(name, extra)| site(name, extra, 30))
            .collect();
        let seen: RefCell<Vec<Vec<String>>> = RefCell::new(Vec::new());
        // A selection that keeps the informative feature alone, and records the sites it saw.
        let folds: Vec<NestedFold> = nested(&samples, L2, |inner| {
            let mut sites: Vec<String> = inner.iter().map(|s| s.site.clone()).collect();
            sites.dedup();
            seen.borrow_mut().push(sites);
            (mask_of(&[NAMES[0]]), vec![("-noise".to_string(), 0.5)])
        })
        .collect();
        assert_eq!(
            folds.iter().map(|f| f.site.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"],
            "the extra site is never held out"
        );
        assert_eq!(
            *seen.borrow(),
            [["b", "x", "c"], ["a", "x", "c"], ["a", "b", "x"]],
            "each selection sees every site but the held-out one"
        );
        for fold in &folds {
            assert!(
                fold.predictions
                    .iter()
                    .all(|p| samples[p.0].site == fold.site)
            );
            assert_eq!(fold.predictions.len(), 30);
            assert_eq!(fold.mask, mask_of(&[NAMES[0]]));
            assert_eq!(fold.inner_score, 0.5);
            let sc = Scores::of(&samples, &fold.predictions, |_| true);
            assert_eq!(sc.accuracy(), 1.0, "{}: {:?}", fold.site, sc.matrix);
        }
        // The mask chosen is the one the held-out model uses: the noise feature alone cannot
        // tell the kinds.
        let noise: Vec<NestedFold> =
            nested(&samples, L2, |_| (mask_of(&[NAMES[1]]), Vec::new())).collect();
        let preds: Predictions = noise.into_iter().flat_map(|f| f.predictions).collect();
        assert!(Scores::of(&samples, &preds, |_| true).accuracy() < 0.8);
    }
}
