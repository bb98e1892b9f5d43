//! The page-kind mixture on the real web: the labelled real pages of `eval/real/pages/` load with
//! their labels, and the leave-sites-out figure of `docs/reports/classifier-web.md` (fixed at the
//! shipped setting; the nested figure is the report's, `./build.sh web-classifier`) holds, with
//! the documentation sites' leave-one-site-out figure beside it.

use std::path::Path;

use exemplar_classify::Kind;
use exemplar_eval::classify_train as train;
use exemplar_eval::web_classify as web;
use exemplar_testkit::devsites;

/// The real pages' leave-sites-out macro F1 (index, entity) at the shipped setting, measured
/// 0.927 (optimistic: the setting was chosen on these pages; the nested figure is 0.918), minus
/// a margin: a regression guard. The bar is 0.93.
const WEB_FLOOR: f64 = 0.915;

/// The documentation sites' LOSO macro F1 with the mixture, measured 0.921 (0.924 before the
/// real pages), minus a margin.
const DOC_FLOOR: f64 = 0.91;

#[test]
fn real_pages_load_with_their_labels() {
    let pages = web::load_real_pages(&web::real_pages_dir()).expect("the real pages load");
    let count = |k: Kind| pages.iter().filter(|s| s.kind == k).count();
    eprintln!(
        "{} real pages: index {}, entity {}, other {}",
        pages.len(),
        count(Kind::Index),
        count(Kind::Entity),
        count(Kind::Other)
    );
    assert!(pages.len() >= 430, "{}", pages.len());
    assert!(count(Kind::Entity) >= 260 && count(Kind::Index) >= 150);
    assert!(pages.iter().all(|s| s.source.is_some() && !s.extra));
    let err = web::load_real_pages(Path::new("/nonexistent")).unwrap_err();
    assert!(err.contains("labels.tsv"), "{err}");
}

/// Whether the documentation sites are installed (`./build.sh setup`).
fn doc_sites() -> Option<(Vec<devsites::DevSite>, Vec<devsites::DevSite>)> {
    let sites = devsites::load(Path::new(devsites::DEFAULT_SITES)).ok()?;
    let extra = devsites::load(Path::new(devsites::TRAIN_SITES)).ok()?;
    if sites.iter().chain(&extra).any(|s| !s.available()) {
        eprintln!("skipped: development sites not installed (./build.sh setup)");
        return None;
    }
    Some((sites, extra))
}

#[test]
fn the_mixture_holds_on_real_pages_and_on_documentation_sites() {
    let Some((sites, extra)) = doc_sites() else {
        return;
    };
    let samples = web::all_samples(&sites, &extra).expect("the samples load");
    let held = web::real_indices(&samples);
    let setting = web::shipped_setting();
    let (preds, _) = web::leave_sites_out(&samples, &held, web::FOLDS, &|_| setting.clone());
    let sc = web::scores_of(&samples, &preds, None);
    assert_eq!(sc.total(), held.len(), "every real page held out once");
    let f = web::macro_ie(&sc);
    eprintln!("real pages, leave-sites-out: macro F1 (index, entity) {f:.3}");
    assert!(f >= WEB_FLOOR, "{sc:?}");
    let docs = web::doc_loso(&samples, &setting);
    let dsc = train::Scores::of(&samples, &docs, |s| s.source.is_none());
    eprintln!("documentation sites, LOSO: macro F1 {:.3}", dsc.macro_f1());
    assert!(dsc.macro_f1() >= DOC_FLOOR, "{dsc:?}");
}
