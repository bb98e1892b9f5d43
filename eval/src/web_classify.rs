//! The page-kind model on the real web: the labelled real pages of `eval/real/pages/` (copied
//! from `../shared/eval/real/pages/`, with how each label was decided in its `labels.tsv`) as
//! samples, and the leave-sites-out evaluation on them.
//!
//! Owns: reading `labels.tsv` and its gzipped pages; the sample weights that mix the
//! documentation sites and the real pages; leave-sites-out folds (every site's pages in one fold,
//! the documentation sites training data in every fold); the nested selection, inside each fold,
//! of the web expert's setting (the real pages' weight share and the L2 strength; the features
//! are not selected: the web expert uses them all); the mixture's training; the per-class and
//! per-source scores and `docs/reports/classifier-web.md`. The documentation-site evaluation
//! stays in [`crate::classify_train`].
//!
//! Everything is deterministic: folds are assigned from a hash of the site's name, candidates are
//! tried in a fixed order, and ties go to the earlier candidate.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use exemplar_classify::Kind;
use exemplar_classify::features::NAMES;
use exemplar_classify::model::{FitOptions, GATE_CLASSES, Mixture, Model};

use crate::classify_train::{Mask, Predictions, RawPage, Sample, Scores, featurise};

/// The real pages' directory in this repository.
pub fn real_pages_dir() -> PathBuf {
    exemplar_testkit::root().join("eval/real/pages")
}

/// The generator name given to every real page (they come from many sites and generators).
pub const WEB: &str = "web";

/// Outer folds of the leave-sites-out evaluation.
pub const FOLDS: usize = 10;

/// Inner folds of the nested selection.
pub const INNER_FOLDS: usize = 5;

/// Reads `labels.tsv` of `dir` and every page it names as samples (site = the page's host,
/// source = its collection). A page's URL is the one the table gives, else `https://SITE/PATH`.
///
/// # Errors
/// When the table or a page cannot be read or decompressed, or a row is malformed.
pub fn load_real_pages(dir: &Path) -> Result<Vec<Sample>, String> {
    let table = dir.join("labels.tsv");
    let text = std::fs::read_to_string(&table).map_err(|e| format!("{}: {e}", table.display()))?;
    let mut raw = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [path, site, label, how, source, url, encoding, ..] = cols[..] else {
            return Err(format!("{}:{}: expected 7 columns", table.display(), n + 1));
        };
        let kind = match label {
            "index" => Kind::Index,
            "entity" => Kind::Entity,
            "other" => Kind::Other,
            _ => {
                return Err(format!(
                    "{}:{}: bad label {label:?}",
                    table.display(),
                    n + 1
                ));
            }
        };
        let file = dir.join(path);
        let gz = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let url = if url.is_empty() {
            format!("https://{site}/{}", path.trim_end_matches(".gz"))
        } else {
            url.to_string()
        };
        raw.push(RawPage {
            site: site.to_string(),
            extra: false,
            generator: WEB.to_string(),
            path: path.to_string(),
            url,
            label: Some(how.to_string()),
            kind,
            bytes,
            content_type: (!encoding.is_empty()).then(|| format!("text/html; charset={encoding}")),
            source: Some(source.to_string()),
        });
    }
    Ok(featurise(&raw))
}

/// The fold of a real site: FNV-1a of its name modulo `k` (stable across runs and machines).
pub fn fold_of(site: &str, k: usize) -> usize {
    (exemplar_url::canon::bytes_signature(site.as_bytes()) % k as u64) as usize
}

/// Training weights: within the documentation pages and within the real pages, every site
/// weighs the same; then the kinds are balanced by `balance` (1: every kind the same total; 0:
/// totals as the sites give them; between: totals proportional to theirs to the power
/// `1 - balance`); the real pages weigh `web_share` of the total.
pub fn weights(samples: &[&Sample], web_share: f64, balance: f64) -> Vec<f64> {
    let is_web: Vec<bool> = samples.iter().map(|s| s.source.is_some()).collect();
    let mut out = vec![0.0; samples.len()];
    for (group, share) in [(false, 1.0 - web_share), (true, web_share)] {
        let idx: Vec<usize> = (0..samples.len()).filter(|&i| is_web[i] == group).collect();
        let mut per_site: BTreeMap<&str, f64> = BTreeMap::new();
        for &i in &idx {
            *per_site.entry(samples[i].site.as_str()).or_insert(0.0) += 1.0;
        }
        let mut per_class = [0.0f64; 3];
        for &i in &idx {
            per_class[class_index(samples[i].kind)] += 1.0 / per_site[samples[i].site.as_str()];
        }
        let target: Vec<f64> = per_class
            .iter()
            .map(|&t| if t > 0.0 { t.powf(1.0 - balance) } else { 0.0 })
            .collect();
        let sum: f64 = target.iter().sum::<f64>().max(1e-12);
        for &i in &idx {
            let c = class_index(samples[i].kind);
            let t = per_class[c];
            let w = 1.0 / per_site[samples[i].site.as_str()];
            out[i] = if t > 0.0 {
                share * w / t * target[c] / sum
            } else {
                0.0
            };
        }
    }
    out
}

fn class_index(k: Kind) -> usize {
    match k {
        Kind::Index => 0,
        Kind::Entity => 1,
        Kind::Other => 2,
    }
}

/// The settings a fold's model is trained with.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// Which features the model may use.
    pub mask: Mask,
    /// L2 strength.
    pub l2: f64,
    /// Share of the training weight on the real pages.
    pub web_share: f64,
    /// How far the kinds are balanced within each group ([`weights`]).
    pub class_balance: f64,
}

/// Trains a model on `samples` with a setting.
pub fn train(samples: &[&Sample], setting: &Setting) -> Model {
    let x: Vec<Vec<f64>> = samples.iter().map(|s| s.x.clone()).collect();
    let y: Vec<usize> = samples.iter().map(|s| class_index(s.kind)).collect();
    let w = weights(samples, setting.web_share, setting.class_balance);
    let opts = FitOptions {
        l2: setting.l2,
        used: setting.mask.clone(),
        ..FitOptions::default()
    };
    Model::fit(NAMES, &Kind::ALL.map(Kind::name), &x, &y, &w, &opts)
}

/// L2 strength of the gate.
pub const GATE_L2: f64 = 0.01;

/// The documentation pages' share of the gate's training weight. Chosen on the documentation
/// sites' leave-one-site-out (`--grid` prints the gate's routing): at 0.5 the gate sends 74 of
/// python311's 530 pages to the web expert and the documentation figure falls by 0.005; at 0.8,
/// 42 pages and 0.001. Those pages are prose (tutorials, how-tos) that the documentation labels
/// call `other` and the web would call articles: no page-content gate tells them apart.
pub const GATE_DOC_SHARE: f64 = 0.8;

/// Trains the gate: documentation pages (class 0) against real pages (class 1), the groups
/// weighing [`GATE_DOC_SHARE`] and the rest, every site of a group the same.
pub fn train_gate(samples: &[&Sample]) -> Model {
    let x: Vec<Vec<f64>> = samples.iter().map(|s| s.x.clone()).collect();
    let y: Vec<usize> = samples
        .iter()
        .map(|s| usize::from(s.source.is_some()))
        .collect();
    let mut per_site: BTreeMap<&str, f64> = BTreeMap::new();
    for s in samples {
        *per_site.entry(s.site.as_str()).or_insert(0.0) += 1.0;
    }
    let mut per_group = [0.0f64; 2];
    for (s, &c) in samples.iter().zip(&y) {
        per_group[c] += 1.0 / per_site[s.site.as_str()];
    }
    let share = [GATE_DOC_SHARE, 1.0 - GATE_DOC_SHARE];
    let w: Vec<f64> = samples
        .iter()
        .zip(&y)
        .map(|(s, &c)| share[c] / per_site[s.site.as_str()] / per_group[c].max(1e-12))
        .collect();
    let opts = FitOptions {
        l2: GATE_L2,
        ..FitOptions::default()
    };
    Model::fit(NAMES, &GATE_CLASSES, &x, &y, &w, &opts)
}

/// Trains the mixture: the gate; the documentation expert as [`crate::classify_train::train`]
/// trains it on the documentation pages alone (its features and L2); the web expert on every
/// page with `setting`.
pub fn train_mixture(samples: &[&Sample], setting: &Setting) -> Mixture {
    let docs: Vec<&Sample> = samples
        .iter()
        .copied()
        .filter(|s| s.source.is_none())
        .collect();
    let doc = crate::classify_train::train(
        &docs,
        &crate::classify_train::mask_of(crate::classify_train::SELECTED),
        crate::classify_train::L2,
    );
    Mixture {
        format: exemplar_classify::model::MIXTURE_FORMAT,
        trained_on: String::new(),
        training_data: String::new(),
        gate: train_gate(samples),
        experts: vec![doc, train(samples, setting)],
    }
}

/// Leave-sites-out over the real pages of `samples` among `held` (sample indices): for every
/// fold, a model trained on every sample outside the fold (documentation pages included) with
/// the setting `choose` gives for that training set predicts the fold's real pages. Returns the
/// predictions and the setting of each fold.
pub fn leave_sites_out(
    samples: &[Sample],
    held: &[usize],
    k: usize,
    choose: &(dyn Fn(&[usize]) -> Setting + Sync),
) -> (Predictions, Vec<Setting>) {
    let fold = |f: usize| -> (Predictions, Setting) {
        let test: Vec<usize> = held
            .iter()
            .copied()
            .filter(|&i| fold_of(&samples[i].site, k) == f)
            .collect();
        let train_idx: Vec<usize> = (0..samples.len())
            .filter(|i| !test.contains(i) && in_training(samples, held, *i, k, f))
            .collect();
        let setting = choose(&train_idx);
        let set: Vec<&Sample> = train_idx.iter().map(|&i| &samples[i]).collect();
        let m = train_mixture(&set, &setting);
        let preds = test
            .iter()
            .map(|&i| {
                let (c, p, _) = m.predict(&samples[i].x);
                (i, Kind::ALL[c], p)
            })
            .collect();
        (preds, setting)
    };
    let results: Vec<(Predictions, Setting)> = std::thread::scope(|scope| {
        let odd: Vec<_> = (1..k)
            .step_by(2)
            .map(|f| scope.spawn(move || fold(f)))
            .collect();
        let mut all: Vec<(usize, (Predictions, Setting))> =
            (0..k).step_by(2).map(|f| (f, fold(f))).collect();
        for (h, f) in odd.into_iter().zip((1..k).step_by(2)) {
            if let Ok(r) = h.join() {
                all.push((f, r));
            }
        }
        all.sort_by_key(|(f, _)| *f);
        all.into_iter().map(|(_, r)| r).collect()
    });
    let mut preds: Predictions = Vec::new();
    let mut settings = Vec::new();
    for (p, s) in results {
        preds.extend(p);
        settings.push(s);
    }
    preds.sort_by_key(|p| p.0);
    (preds, settings)
}

/// Whether sample `i` trains the model of fold `f`: a real page of the held-out set only when it
/// is outside the fold's sites; any other sample always.
fn in_training(samples: &[Sample], held: &[usize], i: usize, k: usize, f: usize) -> bool {
    !held.contains(&i) || fold_of(&samples[i].site, k) != f
}

/// Macro F1 over index and entity (the measure: `other` is thin on the real pages).
pub fn macro_ie(sc: &Scores) -> f64 {
    (sc.prf(0).2 + sc.prf(1).2) / 2.0
}

/// The indices of the real pages among `samples`.
pub fn real_indices(samples: &[Sample]) -> Vec<usize> {
    (0..samples.len())
        .filter(|&i| samples[i].source.is_some())
        .collect()
}

/// Scores restricted to the given sources (`None`: all real pages).
pub fn scores_of(samples: &[Sample], preds: &Predictions, source: Option<&str>) -> Scores {
    Scores::of(samples, preds, |s| {
        s.source.is_some() && source.is_none_or(|x| s.source.as_deref() == Some(x))
    })
}

/// Trains the shipped model on every development site and extra training site (and the demo site
/// when present), writes the model file and the evaluation report.
///
/// # Errors
/// When a site is missing or a file cannot be written.
pub fn train_shipped(
    sites: &[exemplar_testkit::devsites::DevSite],
    extra: &[exemplar_testkit::devsites::DevSite],
    model_path: &Path,
    report_path: &Path,
) -> Result<(), String> {
    let demo = crate::classify_train::demo_dir();
    let started = std::time::Instant::now();
    let samples = crate::classify_train::load_samples(sites, extra, demo.as_deref(), 1)?;
    eprintln!(
        "{} pages featurised in {:.1} s",
        samples.len(),
        started.elapsed().as_secs_f64()
    );
    let mut all = samples.clone();
    all.extend(load_real_pages(&real_pages_dir())?);
    let model = shipped(&all);
    let report = crate::classify_train::report(&samples, extra, &model.experts[0]);
    crate::classify_train::write(model_path, &model.to_json())?;
    crate::classify_train::write(report_path, &report)?;
    println!("{report}");
    eprintln!(
        "wrote {} and {} in {:.1} s",
        model_path.display(),
        report_path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The shipped classifier: the mixture of [`train_mixture`] on all samples
/// (the documentation pages and the real pages), its documentation expert with the [`crate::classify_train::SELECTED`]
/// features and [`crate::classify_train::L2`], its web expert with [`shipped_setting`].
pub fn shipped(samples: &[Sample]) -> Mixture {
    let all: Vec<&Sample> = samples.iter().collect();
    let mut model = train_mixture(&all, &shipped_setting());
    model.training_data = crate::classify_train::data_digest(samples);
    let mut names: Vec<&str> = Vec::new();
    for s in samples.iter().filter(|s| s.source.is_none()) {
        if !names.contains(&s.site.as_str()) {
            names.push(&s.site);
        }
    }
    let real = samples.iter().filter(|s| s.source.is_some()).count();
    model.trained_on = format!(
        "{} pages of {} and {real} real pages of eval/real/pages (weights balanced per site and \
         kind); documentation expert: {} of {} features; web expert: all, real-page share {}, \
         L2 {}; `exemplar-eval train-classifier`",
        samples.len() - real,
        names.join(", "),
        crate::classify_train::SELECTED.len(),
        NAMES.len(),
        SHIPPED_SHARE,
        SHIPPED_L2,
    );
    model
}

/// The real-page weight shares the nested selection tries.
pub const SHARES: [f64; 3] = [0.65, 0.8, 0.9];

/// The class balances ([`weights`]) the nested selection tries.
pub const BALANCES: [f64; 3] = [1.0, 0.5, 0.0];

/// The web expert's L2 strengths the nested selection tries.
pub const L2S: [f64; 3] = [0.01, 0.03, 0.1];

/// The shipped web expert's setting: what [`choose`] picks on all the real pages (the report
/// prints it; a test checks they agree).
pub const SHIPPED_SHARE: f64 = 0.9;
/// See [`SHIPPED_SHARE`].
pub const SHIPPED_L2: f64 = 0.03;

/// The shipped class balance of the web expert ([`weights`]).
pub const SHIPPED_BALANCE: f64 = 0.0;

/// The shipped setting ([`SHIPPED_SHARE`], [`SHIPPED_L2`], every feature).
pub fn shipped_setting() -> Setting {
    Setting {
        mask: vec![true; NAMES.len()],
        l2: SHIPPED_L2,
        web_share: SHIPPED_SHARE,
        class_balance: SHIPPED_BALANCE,
    }
}

/// Every setting of the grid, in the order ties are broken.
pub fn grid() -> Vec<Setting> {
    let mut out = Vec::new();
    for class_balance in BALANCES {
        for web_share in SHARES {
            for l2 in L2S {
                out.push(Setting {
                    mask: vec![true; NAMES.len()],
                    l2,
                    web_share,
                    class_balance,
                });
            }
        }
    }
    out
}

/// Model selection on a training set (sample indices): the grid's setting with the best
/// leave-sites-out macro F1 (index, entity) over its real pages, [`INNER_FOLDS`] folds; the
/// first on ties. Returns it with every setting's score.
pub fn choose(samples: &[Sample], train_idx: &[usize]) -> (Setting, Vec<(Setting, f64)>) {
    let sub: Vec<Sample> = train_idx.iter().map(|&i| samples[i].clone()).collect();
    let held = real_indices(&sub);
    let mut scored = Vec::new();
    for setting in grid() {
        let (p, _) = leave_sites_out(&sub, &held, INNER_FOLDS, &|_| setting.clone());
        scored.push((setting.clone(), macro_ie(&scores_of(&sub, &p, None))));
    }
    let mut best = 0;
    for (i, (_, f)) in scored.iter().enumerate() {
        if *f > scored[best].1 + 1e-12 {
            best = i;
        }
    }
    (scored[best].0.clone(), scored)
}

/// Reads the documentation sites (with the extra training sites and the demo site) and the
/// real pages as samples.
///
/// # Errors
/// When a site or the real pages cannot be read.
pub fn all_samples(
    sites: &[exemplar_testkit::devsites::DevSite],
    extra: &[exemplar_testkit::devsites::DevSite],
) -> Result<Vec<Sample>, String> {
    let mut samples = crate::classify_train::load_samples(
        sites,
        extra,
        crate::classify_train::demo_dir().as_deref(),
        1,
    )?;
    samples.extend(load_real_pages(&real_pages_dir())?);
    Ok(samples)
}

/// Evaluates the mixture on the real pages (nested leave-sites-out: the setting chosen inside
/// every fold) and on the documentation sites (leave-one-site-out, shipped setting), and writes
/// the report (`exemplar-eval web-classifier`).
///
/// # Errors
/// When a site or the real pages cannot be read, or the report cannot be written.
pub fn run(
    sites: &[exemplar_testkit::devsites::DevSite],
    extra: &[exemplar_testkit::devsites::DevSite],
    report_path: &Path,
) -> Result<(), String> {
    let samples = all_samples(sites, extra)?;
    let held = real_indices(&samples);
    let (nested, chosen) = leave_sites_out(&samples, &held, FOLDS, &|train_idx| {
        choose(&samples, train_idx).0
    });
    let (overall, grid_scores) = choose(&samples, &(0..samples.len()).collect::<Vec<_>>());
    let fixed: Vec<(Setting, Scores)> = grid()
        .into_iter()
        .map(|s| {
            let (p, _) = leave_sites_out(&samples, &held, FOLDS, &|_| s.clone());
            let sc = scores_of(&samples, &p, None);
            (s, sc)
        })
        .collect();
    let docs = doc_loso(&samples, &shipped_setting());
    let before = crate::classify_train::loso(
        &samples
            .iter()
            .filter(|s| s.source.is_none())
            .cloned()
            .collect::<Vec<_>>(),
        &crate::classify_train::mask_of(crate::classify_train::SELECTED),
        crate::classify_train::L2,
    );
    let doc_only: Vec<Sample> = samples
        .iter()
        .filter(|s| s.source.is_none())
        .cloned()
        .collect();
    let doc_expert_alone: Vec<&Sample> = doc_only.iter().collect();
    let former = crate::classify_train::train(
        &doc_expert_alone,
        &crate::classify_train::mask_of(crate::classify_train::SELECTED),
        crate::classify_train::L2,
    );
    let former_preds: Predictions = held
        .iter()
        .map(|&i| {
            let (c, p) = former.predict(&samples[i].x);
            (i, Kind::ALL[c], p)
        })
        .collect();
    let mut w = String::new();
    write_report(
        &mut w,
        &samples,
        &Report {
            nested: &nested,
            chosen: &chosen,
            overall: &overall,
            grid: &grid_scores,
            fixed: &fixed,
            docs: &docs,
            docs_before: &Scores::of(&doc_only, &before, |_| true),
            former: &former_preds,
        },
    );
    if let Some(dir) = report_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(report_path, &w).map_err(|e| format!("{}: {e}", report_path.display()))?;
    print!("{w}");
    let sc = scores_of(&samples, &nested, None);
    if overall != shipped_setting() {
        return Err(format!(
            "the selection on all real pages picks l2 {}, web share {} and class balance {}; the \
             shipped setting is l2 {SHIPPED_L2}, web share {SHIPPED_SHARE} and class balance \
             {SHIPPED_BALANCE}: update SHIPPED_* and retrain",
            overall.l2, overall.web_share, overall.class_balance
        ));
    }
    println!("nested macro F1 (index, entity): {:.3}", macro_ie(&sc));
    Ok(())
}

/// Prints leave-sites-out figures on the real pages and the documentation sites for a wider
/// grid than the nested selection's (class balance × real-page share × L2), and how often the
/// gate sends held-out pages to the other expert (`exemplar-eval web-classifier --grid`).
///
/// # Errors
/// When a site or the real pages cannot be read.
pub fn explore(
    sites: &[exemplar_testkit::devsites::DevSite],
    extra: &[exemplar_testkit::devsites::DevSite],
) -> Result<(), String> {
    let samples = all_samples(sites, extra)?;
    let held = real_indices(&samples);
    println!(
        "| balance | web share | L2 | real macro F1 (index, entity) | documentation macro F1 |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for class_balance in BALANCES {
        for web_share in SHARES {
            for l2 in L2S {
                let setting = Setting {
                    mask: vec![true; NAMES.len()],
                    l2,
                    web_share,
                    class_balance,
                };
                let (p, _) = leave_sites_out(&samples, &held, FOLDS, &|_| setting.clone());
                let d = doc_loso(&samples, &setting);
                let dsc = Scores::of(&samples, &d, |s| s.source.is_none());
                println!(
                    "| {class_balance} | {web_share} | {l2} | {:.3} | {:.3} |",
                    macro_ie(&scores_of(&samples, &p, None)),
                    dsc.macro_f1()
                );
            }
        }
    }
    // The gate on held-out documentation sites.
    for site in crate::classify_train::dev_sites(&samples) {
        let set: Vec<&Sample> = samples.iter().filter(|s| s.site != site).collect();
        let gate = train_gate(&set);
        let pages: Vec<&Sample> = samples.iter().filter(|s| s.site == site).collect();
        let web = pages.iter().filter(|s| gate.predict(&s.x).0 == 1).count();
        println!(
            "gate, {site} held out: {web} of {} pages routed to the web expert",
            pages.len()
        );
        let mut ps: Vec<f64> = pages.iter().map(|s| gate.probabilities(&s.x)[1]).collect();
        ps.sort_by(f64::total_cmp);
        let q = |f: f64| quantile(&ps, f);
        println!(
            "  P(web) quantiles 0.5 {:.3} 0.9 {:.3} 0.99 {:.3} max {:.3}",
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0)
        );
    }
    // The gate on held-out real pages.
    let mut ps = Vec::new();
    for f in 0..FOLDS {
        let set: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.source.is_none() || fold_of(&s.site, FOLDS) != f)
            .collect();
        let gate = train_gate(&set);
        for s in samples
            .iter()
            .filter(|s| s.source.is_some() && fold_of(&s.site, FOLDS) == f)
        {
            ps.push(gate.probabilities(&s.x)[1]);
        }
    }
    ps.sort_by(f64::total_cmp);
    let q = |f: f64| quantile(&ps, f);
    println!(
        "real pages held out: P(web) quantiles min {:.3} 0.01 {:.3} 0.05 {:.3} 0.5 {:.3}",
        q(0.0),
        q(0.01),
        q(0.05),
        q(0.5)
    );
    Ok(())
}

/// The `f` quantile of sorted values (0 when there are none).
fn quantile(sorted: &[f64], f: f64) -> f64 {
    let i = ((sorted.len().saturating_sub(1)) as f64 * f) as usize;
    sorted.get(i).copied().unwrap_or(0.0)
}

/// What the report shows.
struct Report<'a> {
    nested: &'a Predictions,
    chosen: &'a [Setting],
    overall: &'a Setting,
    grid: &'a [(Setting, f64)],
    fixed: &'a [(Setting, Scores)],
    docs: &'a Predictions,
    docs_before: &'a Scores,
    former: &'a Predictions,
}

/// The sources of the real pages, in first-seen order.
fn sources(samples: &[Sample]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for s in samples {
        if let Some(src) = s.source.as_deref()
            && !out.contains(&src)
        {
            out.push(src);
        }
    }
    out
}

fn write_report(w: &mut String, samples: &[Sample], r: &Report<'_>) {
    use std::fmt::Write as _;
    let real = real_indices(samples);
    let n_sites = real
        .iter()
        .map(|&i| samples[i].site.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let sc = scores_of(samples, r.nested, None);
    let _ = writeln!(w, "# Page kinds on the real web\n");
    let _ = writeln!(
        w,
        "Generated by `./build.sh web-classifier` (`exemplar-eval web-classifier`). Pages: the {} labelled real \
         pages of {n_sites} sites in `eval/real/pages/` (from `../shared/eval/real/pages/`; how each label was \
         decided is in its `labels.tsv`), and the documentation sites of `docs/reports/classifier.md` as \
         training data in every fold. Measure: macro F1 over `index` and `entity` (`other` has 15 real pages).\n",
        real.len()
    );
    let _ = writeln!(w, "## Nested leave-sites-out\n");
    let _ = writeln!(
        w,
        "{FOLDS} folds; a site's pages are all in one fold (a fold is the FNV-1a hash of the host modulo \
         {FOLDS}). Inside every fold the setting (real-page weight share × L2 of the web expert) is chosen \
         by a {INNER_FOLDS}-fold leave-sites-out over that fold's training pages alone, so the figure \
         below never saw its own pages in any choice.\n"
    );
    let _ = writeln!(
        w,
        "**Macro F1 (index, entity) {:.3}**, accuracy {:.3}, {} pages.\n",
        macro_ie(&sc),
        sc.accuracy(),
        sc.total()
    );
    let _ = writeln!(
        w,
        "| source | pages | index P | index R | index F1 | entity P | entity R | entity F1 | accuracy |"
    );
    let _ = writeln!(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let row = |w: &mut String, name: &str, sc: &Scores| {
        let (ip, ir, i_f) = sc.prf(0);
        let (ep, er, ef) = sc.prf(1);
        let _ = writeln!(
            w,
            "| {name} | {} | {ip:.3} | {ir:.3} | {i_f:.3} | {ep:.3} | {er:.3} | {ef:.3} | {:.3} |",
            sc.total(),
            sc.accuracy()
        );
    };
    row(w, "**all**", &sc);
    for src in sources(samples) {
        row(w, src, &scores_of(samples, r.nested, Some(src)));
    }
    let _ = writeln!(
        w,
        "\nConfusion (rows: truth; columns: predicted index, entity, other):\n"
    );
    for (c, k) in Kind::ALL.iter().enumerate() {
        let _ = writeln!(w, "- {}: {:?}", k.name(), sc.matrix[c]);
    }
    let _ = writeln!(
        w,
        "\nThe pages it gets wrong (nested), with the reason each label was given:\n"
    );
    let _ = writeln!(
        w,
        "| page | truth | predicted | confidence | label's reason |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---|");
    for &(i, k, conf) in r.nested {
        let s = &samples[i];
        if k != s.kind {
            let _ = writeln!(
                w,
                "| `{}` | {} | {} | {conf:.2} | {} |",
                s.path,
                s.kind.name(),
                k.name(),
                s.label.as_deref().unwrap_or("")
            );
        }
    }
    let _ = writeln!(
        w,
        "\nSettings chosen in the folds (class balance, web share, L2):"
    );
    let chosen: Vec<String> = r
        .chosen
        .iter()
        .map(|s| format!("({}, {}, {})", s.class_balance, s.web_share, s.l2))
        .collect();
    let _ = writeln!(w, "{}.\n", chosen.join(", "));
    let former = scores_of(samples, r.former, None);
    let _ = writeln!(
        w,
        "Before (the documentation model alone, as shipped before these pages): macro F1 (index, entity) {:.3}, \
         index F1 {:.3}, entity F1 {:.3}.\n",
        macro_ie(&former),
        former.prf(0).2,
        former.prf(1).2
    );
    let _ = writeln!(w, "## The shipped setting\n");
    let _ = writeln!(
        w,
        "Chosen the same way on all real pages ({INNER_FOLDS}-fold leave-sites-out):\n"
    );
    let _ = writeln!(
        w,
        "| class balance | web share | L2 | inner ({INNER_FOLDS}-fold) macro F1 | {FOLDS}-fold macro F1 (fixed setting, not nested) |"
    );
    let _ = writeln!(w, "|---:|---:|---:|---:|---:|");
    for ((s, f), (_, outer)) in r.grid.iter().zip(r.fixed) {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {f:.3} | {:.3} |",
            s.class_balance,
            s.web_share,
            s.l2,
            macro_ie(outer)
        );
    }
    let _ = writeln!(
        w,
        "\nShipped: class balance {}, web share {}, L2 {} (`web_classify::SHIPPED_*`).\n",
        r.overall.class_balance, r.overall.web_share, r.overall.l2
    );
    let docs = Scores::of(samples, r.docs, |s| s.source.is_none());
    let _ = writeln!(w, "## Documentation sites\n");
    let _ = writeln!(
        w,
        "Leave-one-site-out over the development documentation sites, the real pages in every fold's \
         training: the mixture gives macro F1 (three kinds) **{:.3}**, accuracy {:.3}; the documentation \
         model alone (the former shipped model, trained without the real pages) gives {:.3}, accuracy {:.3}.",
        docs.macro_f1(),
        docs.accuracy(),
        r.docs_before.macro_f1(),
        r.docs_before.accuracy()
    );
}

/// Leave-one-site-out over the documentation development sites with a setting: every other
/// sample (the real pages included) trains each fold's model. The documentation figure of
/// [`crate::classify_train`], for models trained the web's way.
pub fn doc_loso(samples: &[Sample], setting: &Setting) -> Predictions {
    let sites = crate::classify_train::dev_sites(samples);
    let fold = |site: &str| -> Predictions {
        let set: Vec<&Sample> = samples.iter().filter(|s| s.site != site).collect();
        let m = train_mixture(&set, setting);
        samples
            .iter()
            .enumerate()
            .filter(|(_, s)| s.site == site)
            .map(|(i, s)| {
                let (c, p, _) = m.predict(&s.x);
                (i, Kind::ALL[c], p)
            })
            .collect()
    };
    let mut out: Predictions = std::thread::scope(|scope| {
        let odd: Vec<_> = sites
            .iter()
            .skip(1)
            .step_by(2)
            .map(|&s| scope.spawn(move || fold(s)))
            .collect();
        let mut all: Predictions = sites.iter().step_by(2).flat_map(|&s| fold(s)).collect();
        for h in odd {
            all.extend(h.join().unwrap_or_default());
        }
        all
    });
    out.sort_by_key(|p| p.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_keep_a_site_whole_and_spread_sites() {
        let sites: Vec<String> = (0..200).map(|i| format!("site{i}.example")).collect();
        let mut per = vec![0usize; FOLDS];
        for s in &sites {
            assert_eq!(fold_of(s, FOLDS), fold_of(s, FOLDS));
            per[fold_of(s, FOLDS)] += 1;
        }
        assert!(per.iter().all(|&n| n >= 8), "{per:?}");
    }

    #[test]
    fn weights_give_each_group_its_share() {
        let mk = |site: &str, kind: Kind, web: bool| Sample {
            site: site.into(),
            extra: false,
            generator: site.into(),
            path: String::new(),
            label: None,
            kind,
            x: vec![0.0; NAMES.len()],
            bytes_digest: 0,
            source: web.then(|| "t".to_string()),
        };
        let s = [
            mk("doc", Kind::Index, false),
            mk("doc", Kind::Entity, false),
            mk("doc", Kind::Entity, false),
            mk("a.test", Kind::Entity, true),
            mk("b.test", Kind::Index, true),
        ];
        let refs: Vec<&Sample> = s.iter().collect();
        let w = weights(&refs, 0.75, 1.0);
        let web: f64 = w[3] + w[4];
        let doc: f64 = w[..3].iter().sum();
        assert!(
            (web - 0.75).abs() < 1e-9 && (doc - 0.25).abs() < 1e-9,
            "{w:?}"
        );
        assert!((w[1] - w[2]).abs() < 1e-12 && (w[0] - (w[1] + w[2])).abs() < 1e-9);
        // Unbalanced: every documentation page weighs the same (one site), kinds as they come.
        let w = weights(&refs, 0.75, 0.0);
        assert!(
            (w[0] - w[1]).abs() < 1e-12 && (w[1] - w[2]).abs() < 1e-12,
            "{w:?}"
        );
        assert!((w[..3].iter().sum::<f64>() - 0.25).abs() < 1e-9);
    }
}
