//! The native driver of the sans-IO core: a blocking HTTP client ([`http`]), the worker pool that
//! pumps a mapping or a crawl with it and saves its state ([`run`]), and a small static HTTP
//! server for local sites, tests and evaluations ([`serve`]), and the cookies a user gives for a
//! crawl behind a login ([`cookies`]).
//!
//! The only product crate beside the CLI that does I/O: the network, files, threads, the clock.
pub mod cookies;
pub mod http;
pub mod render;
pub mod resolve;
pub mod run;
pub mod serve;

// The crates below, by their short module names.
pub(crate) use exemplar_core::{crawler, drawn, fetch, mapper, pattern};
pub(crate) use exemplar_html as dom;
pub(crate) use exemplar_url::canon;
