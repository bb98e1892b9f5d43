//! The active check: hosts sampled where too little of them was seen, then a few pages of one
//! host asked for on the other, compared by their text. A [`Checker`] is a
//! [`Machine`] the drivers pump like the mapper.
//!
//! Contract:
//! - a host seen on fewer than [`CheckConfig::sample`] pages is sampled first: its root, then
//!   its own links breadth-first, up to that many pages (robots.txt obeyed; not counted against
//!   a pair's probes). A root that redirects to another host of the check names that host;
//! - each pair then gets at most [`CheckConfig::probes`] probes, alternating sides: a key one
//!   host was seen serving and the other was not, asked for on the other under the pair's path
//!   mapping and URL habits (the root first: home pages carry version numbers; then the pages
//!   with most text). A page found is compared with the one seen ([`print::compare`]); a page
//!   the other host lacks (404, a redirect elsewhere) counts as absent, neither for nor against
//!   (a partial mirror lacks most pages);
//! - only pairs that share a path key, a file name or a text are probed, unless
//!   [`CheckConfig::probe_unrelated`];
//! - a pair is one site when nothing disagrees and at least [`MIN_AGREEING`] pages agree, or
//!   when one host's root redirects to the other's; [`Verdict::p`] is [`Evidence::score`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{Evidence, HostPages, Mapping, SeenPage, compare_hosts, paths, print};
use crate::canon;
use crate::dom::{Page, ParseOptions};
use crate::fetch::{Delivered, FetchResult, Frontier, Machine, Next, Politeness, Poll};

/// Fewest agreeing pages, none disagreeing, that make a pair one site.
pub const MIN_AGREEING: usize = 3;

/// Settings of a check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CheckConfig {
    /// Pages a host is sampled to when fewer were seen.
    pub sample: usize,
    /// Probes a pair at most.
    pub probes: usize,
    /// Largest page read (bytes).
    pub max_bytes: usize,
    /// Politeness.
    pub politeness: Politeness,
    /// Probe pairs that share nothing seen too (a pair the user asks about; a partial mirror
    /// of a subtree the other host's sample never reached); else only candidate pairs
    /// ([`super::candidates`]) are probed.
    pub probe_unrelated: bool,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            sample: 30,
            probes: 6,
            max_bytes: 5_000_000,
            politeness: Politeness::default(),
            probe_unrelated: false,
        }
    }
}

/// Which host of a pair a probe asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Side {
    /// The pair's first host.
    First,
    /// The second.
    Second,
}

/// A request's purpose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Job {
    /// A page of host `host`'s sample.
    Sample { host: usize, root: bool },
    /// A probe of pair `pair`: the other host's page `seen` asked for on `asked`.
    Probe {
        pair: usize,
        asked: Side,
        seen: usize,
    },
    /// A script of host `host`'s page at `base`, read for the page URLs it names (menus built
    /// by script: Doxygen's `menudata.js`), when the page links too few of its own.
    Script { host: usize, base: String },
}

/// A sampled page linking fewer pages of its host than this has its scripts read.
const FEW_LINKS: usize = 3;

/// Scripts read a page at most (Doxygen includes seven; its menu's is the sixth).
const SCRIPTS_READ: usize = 8;

/// What the check concluded of one pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The first host (index into the hosts given).
    pub a: usize,
    /// The second.
    pub b: usize,
    /// Whether they are one site.
    pub replica: bool,
    /// [`Evidence::score`] of everything seen and probed.
    pub p: f64,
    /// The pages' evidence, probes included.
    pub evidence: Evidence,
    /// The mapping of the first host's paths onto the second's.
    pub mapping: Mapping,
    /// One host's root redirects to the other's.
    pub redirect: bool,
    /// Probes fetched for the pair.
    pub probes: usize,
    /// Probes that found no page.
    pub absent: usize,
}

/// The active check of pairs of hosts.
pub struct Checker {
    hosts: Vec<HostPages>,
    schemes: Vec<String>,
    pairs: Vec<(usize, usize)>,
    config: CheckConfig,
    frontier: Frontier<Job>,
    /// Pages each host has been asked for (sampling), by canonical URL.
    asked: Vec<usize>,
    /// Host each host's root redirected to.
    redirects: Vec<Option<String>>,
    /// Per pair: its evidence, mapping, probes planned and done.
    state: Vec<PairState>,
    probing: bool,
    done: bool,
}

#[derive(Clone, Debug, Default)]
struct PairState {
    evidence: Evidence,
    mapping: Option<Mapping>,
    probes: usize,
    absent: usize,
}

impl Checker {
    /// A check of `pairs` (indices into `hosts`; none: only the hosts' samples, [`Checker::hosts`]); `starts` gives each host's start page, where
    /// its sample begins (its root, or the page a mirror under a prefix starts at): its scheme
    /// is the host's.
    ///
    /// # Errors
    /// A pair naming a host not given, a start page not on its host, or invalid politeness.
    pub fn new(
        hosts: Vec<HostPages>,
        starts: Vec<String>,
        pairs: Vec<(usize, usize)>,
        config: CheckConfig,
    ) -> Result<Checker, String> {
        config.politeness.validate()?;
        if starts.len() != hosts.len() {
            return Err("one start page a host".into());
        }
        let mut schemes = Vec::new();
        for (h, s) in hosts.iter().zip(&starts) {
            let u = url::Url::parse(s).map_err(|e| format!("{s}: {e}"))?;
            if !matches!(u.scheme(), "http" | "https") {
                return Err(format!("{s}: not an http(s) URL"));
            }
            if host_port(s).as_deref() != Some(h.host.to_ascii_lowercase().as_str()) {
                return Err(format!("{s} is not on {}", h.host));
            }
            schemes.push(u.scheme().to_string());
        }
        if let Some(&(a, b)) = pairs
            .iter()
            .find(|(a, b)| *a >= hosts.len() || *b >= hosts.len())
        {
            return Err(format!("pair ({a}, {b}) names a host not given"));
        }
        let mut frontier = Frontier::new(config.politeness.clone());
        let mut asked = vec![0; hosts.len()];
        for (h, host) in hosts.iter().enumerate() {
            // With no pair given, every host is sampled (a sampler).
            if host.pages.len() < config.sample
                && (pairs.is_empty() || pairs.iter().any(|&(a, b)| a == h || b == h))
                && let Some(c) = canon::canonicalize(&starts[h])
            {
                {
                    frontier.push(
                        c,
                        Job::Sample {
                            host: h,
                            root: true,
                        },
                    );
                    asked[h] += 1;
                }
            }
        }
        let n = hosts.len();
        let state = vec![PairState::default(); pairs.len()];
        Ok(Checker {
            hosts,
            schemes,
            pairs,
            config,
            frontier,
            asked,
            redirects: vec![None; n],
            state,
            probing: false,
            done: false,
        })
    }

    /// The hosts with what was sampled of them.
    pub fn hosts(&self) -> &[HostPages] {
        &self.hosts
    }

    /// The verdicts, one a pair, in the order given.
    pub fn verdicts(&self) -> Vec<Verdict> {
        self.pairs
            .iter()
            .zip(&self.state)
            .map(|(&(a, b), s)| {
                let redirect = self.redirect_between(a, b);
                let e = &s.evidence;
                let replica = redirect || (e.disagreeing() == 0 && e.agreeing() >= MIN_AGREEING);
                let p = if redirect { 1.0 } else { e.score() };
                Verdict {
                    a,
                    b,
                    replica,
                    p,
                    evidence: e.clone(),
                    mapping: s.mapping.clone().unwrap_or_else(Mapping::identity),
                    redirect,
                    probes: s.probes,
                    absent: s.absent,
                }
            })
            .collect()
    }

    fn redirect_between(&self, a: usize, b: usize) -> bool {
        let host = |h: usize| self.hosts[h].host.to_ascii_lowercase();
        self.redirects[a].as_deref() == Some(host(b).as_str())
            || self.redirects[b].as_deref() == Some(host(a).as_str())
    }

    /// Plans every pair's probes once the samples are in.
    fn plan(&mut self) {
        self.probing = true;
        // Pairs that share nothing seen are not probed: a probe confirms, it does not search.
        let candidates: std::collections::HashSet<(usize, usize)> =
            super::candidates(&self.hosts).into_iter().collect();
        for (i, &(a, b)) in self.pairs.iter().enumerate() {
            let evidence = compare_hosts(&self.hosts[a], &self.hosts[b]);
            let mapping = evidence.mapping.clone().unwrap_or_else(Mapping::identity);
            self.state[i].evidence = evidence;
            self.state[i].mapping = Some(mapping.clone());
            let related = self.config.probe_unrelated || candidates.contains(&(a.min(b), a.max(b)));
            if self.redirect_between(a, b) || !related {
                continue;
            }
            let ka = self.hosts[a].by_key();
            let kb = self.hosts[b].by_key();
            // Keys seen on one side only, the root first, then by words.
            let unseen = |mine: &BTreeMap<String, usize>,
                          theirs: &BTreeMap<String, usize>,
                          host: &HostPages,
                          map: &dyn Fn(&str) -> Option<String>| {
                let mut v: Vec<(String, usize)> = mine
                    .iter()
                    .filter_map(|(k, &i)| {
                        let t = map(k)?;
                        let short = host.pages[i].print.shingles.len() < print::MIN_COMPARED;
                        (!theirs.contains_key(&t) && !short).then_some((t, i))
                    })
                    .collect();
                v.sort_by_key(|(t, i)| {
                    (
                        std::cmp::Reverse(t.matches('/').count() <= 1 && t.ends_with('/')),
                        std::cmp::Reverse(host.pages[*i].print.words),
                    )
                });
                v
            };
            let to_b = unseen(&ka, &kb, &self.hosts[a], &|k| mapping.apply(k));
            let to_a = unseen(&kb, &ka, &self.hosts[b], &|k| mapping.invert(k));
            let (hb, ha) = (self.hosts[b].habits(), self.hosts[a].habits());
            let mut queue: Vec<(Side, String, usize)> = Vec::new();
            let (mut x, mut y) = (to_b.into_iter(), to_a.into_iter());
            while queue.len() < self.config.probes {
                let (p, q) = (x.next(), y.next());
                if p.is_none() && q.is_none() {
                    break;
                }
                if let Some((k, seen)) = p {
                    let path = paths::translate(&self.hosts[a].pages[seen].path, &mapping, &hb);
                    queue.push((Side::Second, path.unwrap_or_else(|| hb.path_of(&k)), seen));
                }
                if let Some((k, seen)) = q
                    && queue.len() < self.config.probes
                {
                    let back = mapping.inverse();
                    let path = paths::translate(&self.hosts[b].pages[seen].path, &back, &ha);
                    queue.push((Side::First, path.unwrap_or_else(|| ha.path_of(&k)), seen));
                }
            }
            for (side, path, seen) in queue {
                let h = if side == Side::Second { b } else { a };
                let url = format!("{}://{}{}", self.schemes[h], self.hosts[h].host, path);
                let Some(c) = canon::canonicalize(&url) else {
                    continue;
                };
                // One URL may serve two pairs' probes: the first asks, the others are not planned.
                if self.frontier.push(
                    c,
                    Job::Probe {
                        pair: i,
                        asked: side,
                        seen,
                    },
                ) {
                    self.state[i].probes += 1;
                }
            }
        }
    }

    fn take(&mut self, url: &str, job: Job, result: FetchResult) {
        match job {
            Job::Sample { host, root } => self.sampled(url, host, root, result),
            Job::Probe { pair, asked, seen } => self.probed(pair, asked, seen, result),
            Job::Script { host, base } => {
                let Ok(urls) = crate::script_links::read(result) else {
                    return;
                };
                let links: Vec<String> = crate::script_links::resolve(&base, &urls)
                    .into_iter()
                    .flatten()
                    .collect();
                self.sample_links(host, links);
            }
        }
    }

    /// Queues `links` of `host` (its own) for its sample, while it has room.
    fn sample_links(&mut self, host: usize, links: impl IntoIterator<Item = String>) {
        let own = self.hosts[host].host.to_ascii_lowercase();
        for u in links {
            if self.asked[host] >= self.config.sample {
                break;
            }
            if host_port(&u).is_some_and(|h| h == own)
                && self.frontier.push(u, Job::Sample { host, root: false })
            {
                self.asked[host] += 1;
            }
        }
    }

    fn sampled(&mut self, url: &str, host: usize, root: bool, result: FetchResult) {
        let FetchResult::Response(r) = result else {
            return;
        };
        let final_url = if r.final_url.is_empty() {
            url
        } else {
            &r.final_url
        };
        let final_host = host_port(final_url).unwrap_or_default();
        let own = self.hosts[host].host.to_ascii_lowercase();
        if final_host != own {
            if root {
                self.redirects[host] = Some(final_host);
            }
            return;
        }
        if !(200..300).contains(&r.status) || !r.is_html() {
            return;
        }
        let opts = ParseOptions {
            max_bytes: self.config.max_bytes,
            ..ParseOptions::default()
        };
        let Ok(page) = Page::parse(&r.body, final_url, r.header("content-type"), &opts) else {
            return;
        };
        let path = path_of(final_url);
        self.hosts[host].pages.push(SeenPage {
            path,
            print: print::PagePrint::of_text(&page.text),
        });
        let links: BTreeSet<String> = page
            .links
            .iter()
            .filter(|l| !l.nofollow)
            .filter_map(|l| canon::canonicalize(&l.url))
            .filter(|u| host_port(u).is_some_and(|h| h == own))
            .collect();
        if links.len() < FEW_LINKS {
            let scripts: Vec<String> =
                crate::script_links::included(&page, |u| host_port(u).is_some_and(|h| h == own))
                    .take(SCRIPTS_READ)
                    .collect();
            for s in scripts {
                let base = page.base.clone();
                self.frontier.push(s, Job::Script { host, base });
            }
        }
        self.sample_links(host, links);
    }

    fn probed(&mut self, pair: usize, asked: Side, seen: usize, result: FetchResult) {
        let (a, b) = self.pairs[pair];
        let (asked_host, seen_host) = match asked {
            Side::Second => (b, a),
            Side::First => (a, b),
        };
        let absent = |s: &mut PairState| s.absent += 1;
        let FetchResult::Response(r) = result else {
            absent(&mut self.state[pair]);
            return;
        };
        let own = self.hosts[asked_host].host.to_ascii_lowercase();
        let final_host = host_port(&r.final_url).unwrap_or_else(|| own.clone());
        if final_host != own || !(200..300).contains(&r.status) || !r.is_html() {
            absent(&mut self.state[pair]);
            return;
        }
        let opts = ParseOptions {
            max_bytes: self.config.max_bytes,
            ..ParseOptions::default()
        };
        let Ok(page) = Page::parse(&r.body, &r.final_url, r.header("content-type"), &opts) else {
            absent(&mut self.state[pair]);
            return;
        };
        let found = print::PagePrint::of_text(&page.text);
        let Some(theirs) = self.hosts[seen_host].pages.get(seen) else {
            return;
        };
        let l = match asked {
            Side::Second => print::compare(&theirs.print, &found),
            Side::First => print::compare(&found, &theirs.print),
        };
        self.state[pair].evidence.add(l);
        self.state[pair].evidence.lined_up += 1;
    }
}

/// The host of a URL with its port when it has one (`127.0.0.1:8001`), lower case.
pub fn host_port(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    Some(match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// The path and query of a URL (`/` when it has none).
pub fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    match rest.find('/') {
        Some(i) => rest[i..].split('#').next().unwrap_or("/").to_string(),
        None => "/".into(),
    }
}

impl Machine for Checker {
    fn poll(&mut self, now_ms: u64) -> Poll {
        loop {
            if self.done {
                return Poll::Done;
            }
            return match self.frontier.next(now_ms) {
                Next::Fetch(r) => Poll::Fetch(r),
                Next::Disallowed(q) => {
                    self.take(
                        &q.url.clone(),
                        q.item,
                        FetchResult::Failed("disallowed by robots.txt".into()),
                    );
                    continue;
                }
                Next::WaitUntil(t) => Poll::WaitUntil(t),
                Next::Busy | Next::Full => Poll::Busy,
                Next::Empty => {
                    if self.probing {
                        self.done = true;
                    } else {
                        self.plan();
                    }
                    continue;
                }
            };
        }
    }

    fn handle(&mut self, id: u64, result: FetchResult, _now_ms: u64) {
        if let Delivered::Page(q, result) = self.frontier.deliver(id, result) {
            if self.done {
                return;
            }
            self.take(&q.url, q.item, result);
        }
    }

    fn cancel(&mut self) {
        self.done = true;
    }
}

/// Hosts named once each, for a check of every pair among them.
pub fn all_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect()
}

/// Hosts by name, for drivers that read several files naming one host.
pub fn merge_hosts(hosts: Vec<HostPages>) -> Vec<HostPages> {
    let mut by: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<HostPages> = Vec::new();
    for h in hosts {
        let k = h.host.to_ascii_lowercase();
        match by.get(&k) {
            Some(&i) => {
                let known: BTreeSet<String> = out[i].pages.iter().map(|p| p.path.clone()).collect();
                out[i]
                    .pages
                    .extend(h.pages.into_iter().filter(|p| !known.contains(&p.path)));
                if out[i].addr.is_none() {
                    out[i].addr = h.addr;
                }
            }
            None => {
                by.insert(k, out.len());
                out.push(h);
            }
        }
    }
    out
}
