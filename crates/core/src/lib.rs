//! Exemplar's core: the page model, RTDM structural similarity, page kinds, URL patterns, and
//! the mapping and crawling state machines.
//!
//! The core is sans-IO: it never fetches. Drivers (the browser extension through wasm, the native
//! command line, the tests) hand it bytes and read back results.
pub mod canon;
pub mod classify;
pub mod crawler;
pub mod directory;
pub mod dom;
pub mod export;
pub mod fetch;
pub mod forms;
pub mod heading;
pub mod language;
pub mod mapper;
pub mod pattern;
pub mod robots;
pub mod rtdm;
pub mod script_links;
pub mod similarity;
pub mod sitemap;
pub mod url_pattern;

#[cfg(not(target_arch = "wasm32"))]
pub mod crawl_eval;
#[cfg(not(target_arch = "wasm32"))]
pub mod devsites;
#[cfg(not(target_arch = "wasm32"))]
pub mod eval;
#[cfg(not(target_arch = "wasm32"))]
pub mod forms_eval;
#[cfg(not(target_arch = "wasm32"))]
pub mod forms_learn_eval;
#[cfg(not(target_arch = "wasm32"))]
pub mod http;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_bench;
