//! Exemplar's core: the page model, RTDM structural similarity and page kinds.
//!
//! The core is sans-IO: it never fetches. Drivers (the browser extension through wasm, the native
//! command line, the tests) hand it bytes and read back results.
pub mod classify;
pub mod dom;
pub mod rtdm;
pub mod similarity;

#[cfg(not(target_arch = "wasm32"))]
pub mod devsites;
#[cfg(not(target_arch = "wasm32"))]
pub mod eval;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_bench;
