//! Lab: the evaluations that measure Exemplar on real sites and write `docs/reports/`, and the
//! page-kind classifier's training. Nothing in the product depends on this crate.
//!
//! - [`crawl_eval`]: learn and crawl each development, further and held-out site on 127.0.0.1
//!   against its ground truth (`docs/reports/crawl.md`), and the crawl benchmark.
//! - [`real_eval`]: the real sites' mirrors and live applications in the same report.
//! - [`drawn_eval`]: the live application's script-drawn pages, rendered, in the same report.
//! - [`similarity_eval`]: similarity to each example against the ground truth
//!   (`docs/reports/similarity.md`, `similarity-grid.md`).
//! - [`forms_eval`], [`forms_learn_eval`]: query policies against a real search engine
//!   (`docs/reports/forms.md`) and learning through a search form.
//! - [`classify_train`]: trains `data/classifier.json` leave-one-site-out
//!   (`docs/reports/classifier.md`).
//! - [`replica_eval`]: site-replica detection against the baselines on that data, the report.
//! - [`discover_eval`], [`discover_runs`], [`discover_baselines`], [`dwdbrm_rank`]: the local
//!   web of domain discovery, discovery's runs on it, its baselines (each operator alone,
//!   random, the locator, DWDBRM's ranking) and their report (`docs/reports/discover.md`).
//! - [`replicas`]: the ground truth of site-replica detection: real sites served under many
//!   virtual hosts (originals, replicas with real-world URL habits, distractors), labelled pairs,
//!   and a server that answers for every host by its `Host` header.
pub mod classify_train;
pub mod crawl_eval;
pub mod detect_eval;
pub mod discover_baselines;
pub mod discover_eval;
pub mod discover_runs;
pub mod drawn_eval;
pub mod dust_eval;
pub mod dwdbrm_rank;
pub mod fields_eval;
pub mod form_sites_eval;
pub mod forms_eval;
pub mod forms_learn_eval;
pub mod real_eval;
pub mod replica_eval;
pub mod replicas;
pub mod similarity_eval;
pub mod web;
pub mod web_classify;
