//! The page-kind classifier on the real development sites (Debian documentation packages): the
//! shipped model must fit every site, the leave-one-site-out figure of `docs/reports/classifier.md` must
//! hold, and the committed `data/classifier.json` must be what training produces.
//!
//! Skipped (with a notice) when the development sites or the extra training sites of
//! `eval/train-sites.toml` are not installed; `./build.sh setup` installs them.

use std::path::Path;
use std::sync::OnceLock;

use exemplar_classify::{self as classify, Kind, features};
use exemplar_eval::classify_train::{self as train, Sample, Scores};
use exemplar_eval::web_classify as web;
use exemplar_testkit::devsites::{self, DevSite};

/// A page every installation of the development sites has.
const MARKER: &str = "/usr/share/doc/postgresql-doc-15/html/index.html";

/// Per-site accuracy the shipped model must reach on the pages of every development site.
const MIN_SITE_ACCURACY: f64 = 0.90;

/// The LOSO macro F1 (pooled, the extra training sites in every fold) this code reaches (0.924),
/// minus a small margin: a regression guard. The project's bar is [`train::BAR`] (0.93);
/// `docs/reports/classifier.md` explains why it is not reached.
const LOSO_FLOOR: f64 = 0.915;

/// The same for leave-one-generator-out (0.762): the held-out site's generator absent too.
const LOGO_FLOOR: f64 = 0.75;

/// When the installed sites are not the pages the committed model was trained on: the share of
/// pages on which it must decide as a model retrained here does. Measured: the model trained on
/// PostgreSQL 15.18's pages and one retrained on 15.20's (two pages more) agree on every page;
/// a model trained without any one of its features agrees with it on 0.976–0.998 of the pages
/// (0.9981 without `main_links_log`, stop 57), and with λ 0.006 or 0.008 instead of 0.007 on
/// 0.9971 and 0.9983 (λ itself is checked exactly; the features by
/// [`agreement_check_catches_a_model_trained_with_other_features`]).
const MIN_RETRAINED_AGREEMENT: f64 = 0.9985;

/// The development sites and all their pages (and the demo site's) as samples, parsed once for
/// all the tests of this file; `None` (with a notice) when the sites are not installed.
fn data() -> Option<&'static (Vec<DevSite>, Vec<Sample>)> {
    static DATA: OnceLock<Option<(Vec<DevSite>, Vec<Sample>)>> = OnceLock::new();
    DATA.get_or_init(|| {
        if !Path::new(MARKER).is_file() {
            eprintln!(
                "skipped: {MARKER} missing, development sites not installed (./build.sh setup)"
            );
            return None;
        }
        let sites = match devsites::load(Path::new(devsites::DEFAULT_SITES)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("skipped: {e}");
                return None;
            }
        };
        let extra = match devsites::load(Path::new(devsites::TRAIN_SITES)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("skipped: {e}");
                return None;
            }
        };
        if let Some(s) = sites.iter().chain(&extra).find(|s| !s.available()) {
            eprintln!(
                "skipped: site {} ({}) not installed (./build.sh setup)",
                s.name, s.package
            );
            return None;
        }
        let started = std::time::Instant::now();
        let samples = train::load_samples(&sites, &extra, train::demo_dir().as_deref(), 1)
            .expect("the installed development and training sites load");
        eprintln!(
            "{} pages featurised in {:.1} s",
            samples.len(),
            started.elapsed().as_secs_f64()
        );
        Some((sites, samples))
    })
    .as_ref()
}

#[test]
fn shipped_model_fits_every_site() {
    let Some((_, samples)) = data() else { return };
    let model = classify::shipped_model().expect("the shipped model loads");
    for site in train::dev_sites(samples) {
        let pages: Vec<&Sample> = samples.iter().filter(|s| s.site == site).collect();
        let right = pages
            .iter()
            .filter(|s| classify::classify_features(model, &s.x).kind == s.kind)
            .count();
        let accuracy = right as f64 / pages.len() as f64;
        eprintln!(
            "{site}: shipped model accuracy {accuracy:.3} on {} pages",
            pages.len()
        );
        assert!(
            accuracy >= MIN_SITE_ACCURACY,
            "{site}: accuracy {accuracy:.3} < {MIN_SITE_ACCURACY}"
        );
    }
}

#[test]
fn leave_one_site_out_holds() {
    let Some((_, samples)) = data() else { return };
    let preds = train::loso(samples, &train::mask_of(train::SELECTED), train::L2);
    let pooled = Scores::of(samples, &preds, |_| true);
    eprintln!(
        "LOSO pooled macro F1 {:.3} (bar {}), accuracy {:.3}",
        pooled.macro_f1(),
        train::BAR,
        pooled.accuracy()
    );
    assert_eq!(
        pooled.total(),
        dev_pages(samples),
        "every development page held out once"
    );
    assert!(pooled.macro_f1() >= LOSO_FLOOR, "{pooled:?}");
    // Every kind is recognised on every held-out site at least sometimes.
    for site in train::dev_sites(samples) {
        let sc = Scores::of(samples, &preds, |s| s.site == site);
        for (c, k) in Kind::ALL.iter().enumerate() {
            assert!(
                sc.prf(c).2 > train::MIN_KIND_F1,
                "{site}: {k:?} F1 {:.3}",
                sc.prf(c).2
            );
        }
    }
}

/// Pages of the development sites (the demo and the extra training sites are never held out).
fn dev_pages(samples: &[Sample]) -> usize {
    samples
        .iter()
        .filter(|s| s.site != train::DEMO && !s.extra)
        .count()
}

#[test]
fn leave_one_generator_out_holds() {
    let Some((_, samples)) = data() else { return };
    let preds = train::logo(samples, &train::mask_of(train::SELECTED), train::L2);
    let pooled = Scores::of(samples, &preds, |_| true);
    eprintln!(
        "leave-one-generator-out pooled macro F1 {:.3}, accuracy {:.3}",
        pooled.macro_f1(),
        pooled.accuracy()
    );
    assert_eq!(
        pooled.total(),
        dev_pages(samples),
        "every development page held out once"
    );
    assert!(pooled.macro_f1() >= LOGO_FLOOR, "{pooled:?}");
    // Every extra site's `like` names a development site, so the fold holding that site out
    // drops it (holding out sfml leaves no Doxygen site in training, and so on).
    for s in samples.iter().filter(|s| s.extra) {
        assert!(
            train::dev_sites(samples).contains(&s.generator.as_str()),
            "{}: like {} is not a development site",
            s.site,
            s.generator
        );
    }
}

#[test]
fn committed_model_is_what_training_produces() {
    let shipped = classify::shipped_model().expect("the shipped model loads");
    let doc = &shipped.experts[0];
    assert_eq!(doc.features, features::NAMES, "feature names and order");
    for (j, name) in features::NAMES.iter().enumerate() {
        let used = doc.weights.iter().any(|w| w[j] != 0.0);
        assert_eq!(
            used,
            train::SELECTED.contains(name),
            "{name}: used by the model?"
        );
    }
    assert_eq!(doc.l2, train::L2);
    assert_eq!(shipped.experts[1].l2, web::SHIPPED_L2);
    let Some((_, doc_samples)) = data() else {
        return;
    };
    let mut all = doc_samples.clone();
    all.extend(web::load_real_pages(&web::real_pages_dir()).expect("the real pages load"));
    let samples = &all;
    let retrained = web::shipped(samples);
    if retrained.training_data == shipped.training_data {
        let committed = include_str!("../../data/classifier.json");
        assert!(
            retrained.to_json() == committed,
            "data/classifier.json is stale: run ./build.sh train-classifier"
        );
        return;
    }
    // The installed packages are not those the model was trained on (a Debian point release
    // added or changed pages): the committed model cannot be reproduced bit for bit, but a model
    // trained by this code on these pages must still decide as it does.
    let share = agreement(shipped, &retrained, samples);
    eprintln!(
        "the installed sites differ from those data/classifier.json was trained on \
         (pages {} ≠ {}): retrained model agrees on {share:.4} of {} pages",
        retrained.training_data,
        shipped.training_data,
        samples.len()
    );
    assert!(
        share >= MIN_RETRAINED_AGREEMENT,
        "data/classifier.json is stale (agrees with a retrained model on {share:.4} of the \
         pages): run ./build.sh train-classifier"
    );
}

/// The share of pages two models give the same kind.
fn agreement(
    a: &classify::model::Mixture,
    b: &classify::model::Mixture,
    samples: &[Sample],
) -> f64 {
    let same = samples
        .iter()
        .filter(|s| {
            classify::classify_features(a, &s.x).kind == classify::classify_features(b, &s.x).kind
        })
        .count();
    same as f64 / samples.len() as f64
}

/// The agreement check of [`committed_model_is_what_training_produces`] (used when the
/// installed pages are not those the model was trained on) still catches a model left behind
/// by a change of the features: trained without any one of its features, a model disagrees
/// with the shipped one on more pages than [`MIN_RETRAINED_AGREEMENT`] allows.
#[test]
fn agreement_check_catches_a_model_trained_with_other_features() {
    let Some((_, samples)) = data() else { return };
    let shipped = classify::shipped_model().expect("the shipped model loads");
    let all: Vec<&Sample> = samples.iter().collect();
    for dropped in train::SELECTED {
        let kept: Vec<&str> = train::SELECTED
            .iter()
            .copied()
            .filter(|n| n != dropped)
            .collect();
        let mut other = shipped.clone();
        other.experts[0] = train::train(&all, &train::mask_of(&kept), train::L2);
        let share = agreement(shipped, &other, samples);
        eprintln!("without {dropped}: agrees on {share:.4} of the pages");
        assert!(
            share < MIN_RETRAINED_AGREEMENT,
            "without {dropped} the model agrees on {share:.4} ≥ {MIN_RETRAINED_AGREEMENT}"
        );
    }
}
