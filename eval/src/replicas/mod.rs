//! Lab: the ground truth for evaluating site-replica detection. Real documentation sites (and
//! the two real mirrors of `eval/real/sites/`) are served under many virtual hosts: each site's
//! upstream host (its original) and replicas with real-world URL habits (www or bare name,
//! another TLD, an IP literal, a path prefix added or dropped, `.html` dropped, session ids, a
//! mirror banner, partial mirrors). Pairs of hosts are labelled: replicas (a site's original
//! against one of its replicas) and hard negatives (other versions of one documentation, two
//! sites of one generator, unrelated sites on one address).
//!
//! Owns:
//! - [`sites`]: the site list `eval/replica-sites.toml` ([`Site`], [`Plan`]) and each site's files;
//! - [`variation`]: the URL habits ([`Variation`]);
//! - [`host`]: a site as one host serves it ([`VirtualHost`]): its paths, and its pages with their
//!   links rewritten to stay within the host under its habits;
//! - [`catalogue`]: every host and the labelled pairs, by split ([`Catalogue`], [`Pair`]);
//! - [`server`]: an HTTP/1.1 server on 127.0.0.1 answering for every host by its `Host` header.
//!
//! Contract: hosts, addresses, seeds and pairs are a pure function of the TOML file (not of which
//! packages are installed); a host's pages are a pure function of that and the site's files, read
//! when asked for. A site that is not installed serves nothing (`Site::available`).
//! Module order: `sites` < `variation` < `host` < `catalogue` < `server`; `html` (the link
//! scanner and URL helpers) is used by `host` alone.

pub mod catalogue;
pub mod host;
pub(crate) mod html;
pub mod server;
pub mod sites;
pub mod variation;

pub use catalogue::{Catalogue, Pair, PairKind};
pub use host::VirtualHost;
pub use server::{HostRouter, serve};
pub use sites::{DEB_DIR, DEFAULT_SITES, Plan, Site, Split};
pub use variation::{ATOM_NAMES, Variation};

/// A 64-bit hash of a seed and a string (FNV-1a, then SplitMix64's finaliser): the one source of
/// every seeded choice, so that they do not depend on Rust's hasher or platform.
pub(crate) fn mix(seed: u64, s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix(h)
}

/// SplitMix64's finaliser.
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform draw in [0, 1) from a hash.
pub(crate) fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}
