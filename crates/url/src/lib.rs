//! URLs as the crawler meets them: canonicalisation, the site's scope and crawler-trap guards
//! ([`canon`]), URL patterns learned from examples ([`url_pattern`]), robots.txt ([`robots`]),
//! and the small hashes URLs and page text share ([`hash`], [`canon::Signature`]).
//!
//! The bottom of the workspace: it knows nothing of HTML or of fetching.
pub mod canon;
pub mod hash;
pub mod robots;
pub mod url_pattern;
