//! Exemplar's engine, sans-IO: it never fetches, reads a file or a clock. Drivers (the extension
//! through `exemplar-wasm`, the native driver `exemplar-native`, the tests) pump it: they ask it
//! what to fetch ([`fetch`]), hand it the answers, and read back the site map, the learned
//! navigation pattern and the crawled pages.
//!
//! - [`fetch`]: the driver contract (requests, results, politeness, robots, the frontier).
//! - [`mapper`]: maps a site from its entry page and measures each page against the example,
//!   into a [`map::SiteMap`] (the data model learning and the review read).
//! - [`pattern`]: learns the navigation pattern (URL regexes level by level) from the map.
//! - [`crawler`]: crawls with a pattern, now or later, resumably.
//! - [`forms`]: search, login and pagination forms; queries learned from the pages.
//! - [`review`]: the groupings a user reviews targets by (heading, language, directory).
//! - [`detect`]: finding a site's item pages in a few fetches ("Find the item pages").
//! - [`sitemap`], [`script_links`]: pages no `<a href>` reaches.
//! - [`signature`]: when two URLs are one page; [`dust`]: rules that say so before fetching.
//! - [`replica`]: when two hosts are one site (site replicas), passively and by a few probes.
//! - [`continuation`]: a listing's "Next" and numbered links, to its further pages.
//! - [`drawn`]: pages drawn by scripts, and which pages of a run are worth rendering.
//! - [`fields`]: the data of the target pages: fields induced from a sample, read from any.
//!
//! The crates below are used here by their short module names (`dom`, `similarity`, …).
pub(crate) use exemplar_html as dom;
pub(crate) use exemplar_similarity as similarity;
pub(crate) use exemplar_url::{canon, url_pattern};

pub mod continuation;
pub mod crawler;
pub mod detect;
pub mod discover;
pub mod drawn;
pub mod dust;
pub mod fetch;
pub mod fields;
pub mod forms;
pub mod map;
pub mod mapper;
pub mod pattern;
pub mod replica;
pub mod review;
pub mod script_links;
pub mod signature;
pub mod sitemap;
pub mod words;
