//! Links to a replica of the crawl's site ([`crate::replica`]): the same site under another
//! host name (www and bare, another TLD) that the site's pages link to. A crawl scoped to its
//! host drops such links; this module notices the host and, once it is known for one, follows
//! its links as the crawl's own host's (same path, query and fragment dropped), so that pages
//! reached only through the other name are not missed and the replica is not crawled twice.
//!
//! A host is taken as a replica when its name is an obvious variant of the site's
//! ([`crate::replica::features::obvious_positive`]) and at least [`MATCHES`] of the distinct
//! paths linked on it are paths the crawl has met on its own host. Nothing is skipped on its
//! word: a link followed as the site's own is fetched from the site's host, where a path the
//! replica serves and the site does not is a 404 like any other.

use serde::{Deserialize, Serialize};

use super::Crawler;
use crate::replica::check::{host_port, path_of};
use crate::replica::features::obvious_positive;

/// Distinct linked paths of another host the crawl must have met on its own, before the host
/// is taken for a replica.
pub const MATCHES: usize = 3;

/// Distinct paths kept a host while it is not known (bounded state for hosts never matched).
const KEPT: usize = 64;

/// A host the site's pages link to, whose name is a variant of the site's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaHost {
    /// Host (with its port when not the scheme's).
    pub host: String,
    /// Links to it met.
    pub links: usize,
    /// Of the distinct paths linked, those the crawl met on its own host.
    pub matching: usize,
    /// Taken as a replica: its links are followed as the site's.
    pub replica: bool,
    /// Distinct paths linked, while not yet known (at most 64).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    paths: Vec<String>,
}

impl Crawler {
    /// The crawl's own origin, `scheme://host[:port]`, from the pattern's entry page.
    fn own_origin(&self) -> Option<(String, String)> {
        let u = url::Url::parse(&self.state.pattern.entry).ok()?;
        let host = host_port(&self.state.pattern.entry)?;
        Some((u.scheme().to_string(), host))
    }

    /// Whether `url` is on the crawl's own origin (the entry page's scheme, host and port).
    pub(super) fn on_own_origin(&self, url: &str) -> bool {
        let entry = &self.state.pattern.entry;
        match (
            crate::canon::written_origin(url),
            crate::canon::written_origin(entry),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => {
                host_port(url) == host_port(entry)
                    && url.split(':').next() == entry.split(':').next()
            }
        }
    }

    /// A link off the crawl's own host: the same path on the crawl's host when the link's host
    /// is a replica of the site ([`ReplicaHost`]), else None (the link is taken as before: in
    /// scope, as it is; out of it, dropped).
    pub(super) fn replica_link(&mut self, url: &str) -> Option<String> {
        let host = host_port(url)?;
        let (scheme, own) = self.own_origin()?;
        if host == own || !obvious_positive(&host, &own) {
            return None;
        }
        let path = path_of(url);
        let ours = crate::canon::canonicalize(&format!("{scheme}://{own}{path}"))?;
        let met = self.state.frontier.is_seen(&ours);
        let hosts = &mut self.state.replica_hosts;
        let i = match hosts.iter().position(|h| h.host == host) {
            Some(i) => i,
            None => {
                if hosts.len() >= KEPT {
                    return None;
                }
                hosts.push(ReplicaHost {
                    host: host.clone(),
                    ..ReplicaHost::default()
                });
                hosts.len() - 1
            }
        };
        let h = &mut hosts[i];
        h.links += 1;
        if !h.replica && !h.paths.contains(&path) && h.paths.len() < KEPT {
            h.paths.push(path);
            if met {
                h.matching += 1;
            }
            if h.matching >= MATCHES {
                h.replica = true;
                h.paths.clear();
                let host = h.host.clone();
                self.events.push_back(super::Event::Replica { host });
            }
        }
        if !self.state.replica_hosts[i].replica {
            return None;
        }
        self.state.progress.replica_links += 1;
        self.scope.contains(&ours).then_some(ours)
    }

    /// The hosts the site's pages link to whose names are variants of the site's, with how
    /// many links and whether each was taken as a replica.
    pub fn replica_hosts(&self) -> &[ReplicaHost] {
        &self.state.replica_hosts
    }
}
