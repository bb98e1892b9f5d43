//! Site replicas: "these two hosts are one site" (document `003`, chapters 3–4; design §10).
//!
//! A replica serves a site's pages under another host name (www and bare, another TLD, an
//! address, a mirror under a path prefix, a partial mirror) and often other URL habits (`.html`
//! dropped, session ids). From what Exemplar has seen of each host ([`HostPages`]: paths and
//! text prints of some of its pages), this module
//! - filters candidate pairs: hosts that share a path key or a page text ([`candidates`]);
//! - weighs a pair by its pages ([`Evidence`], [`compare_hosts`]): of the path mappings that
//!   line up the most of the two hosts' pages ([`paths::candidates`]; never one that renumbers a
//!   prefix), the one whose pages agree best, each page seen on both sides compared by its text
//!   one way ([`mod@print`]): a mirror adds (a banner, a timestamp) but never substitutes, where
//!   another version of the same documentation substitutes its number on every page;
//! - computes the document's pair features and baselines ([`features`], [`baselines`]: NormPaths,
//!   the full-path cosine, PU, NU and PNU, simhash), for the comparison;
//! - checks a pair actively ([`check`]): a few pages of one host asked for on the other under the
//!   mapping, compared the same way.
//!
//! Precision first: a false merge silently loses a site's pages, so a single page of one host
//! that the other serves as another page (both sides lacking text of the other's) vetoes the
//! pair, and so does a host whose pages are inside the other's while the other's are inside its
//! own (a substitution both ways).

pub mod baselines;
pub mod check;
pub mod features;
pub mod paths;
pub mod print;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

pub use paths::{Habits, Mapping};
pub use print::{Likeness, PagePrint};

/// A page seen on a host: its path (and query) and its text print.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenPage {
    /// Path and query, as the host served it (`/library/os.html`).
    pub path: String,
    /// Its text's print.
    pub print: PagePrint,
}

/// What has been seen of one host.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostPages {
    /// Host name, with its port when not the scheme's (`docs.python.org`, `127.0.0.1:8001`).
    pub host: String,
    /// Its IPv4 address, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<String>,
    /// Pages seen, in the order met.
    pub pages: Vec<SeenPage>,
}

impl HostPages {
    /// Its pages by path key ([`paths::key`]); the first page of a key wins.
    pub fn by_key(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for (i, p) in self.pages.iter().enumerate() {
            out.entry(paths::key(&p.path)).or_insert(i);
        }
        out
    }

    /// The host's URL habits ([`Habits::of`]).
    pub fn habits(&self) -> Habits {
        Habits::of(self.pages.iter().map(|p| p.path.as_str()))
    }
}

/// Paths or texts shared by more hosts than this do not make candidates (the document's own
/// cut for its full-path feature: `index.html`, `/robots.txt` would pair every host).
pub const MAX_SHARED_BY: usize = 100;

/// Pairs of hosts (indices into `hosts`, the lower first) that share a path key, a last path
/// segment's key (a mirror under a prefix), or a page text, none of them shared by more than
/// [`MAX_SHARED_BY`] hosts. Sorted.
pub fn candidates(hosts: &[HostPages]) -> Vec<(usize, usize)> {
    let mut lists: HashMap<(u8, u64), Vec<usize>> = HashMap::new();
    for (h, host) in hosts.iter().enumerate() {
        for p in &host.pages {
            let k = paths::key(&p.path);
            let tail = k.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            let mut push = |kind: u8, v: u64| {
                let l = lists.entry((kind, v)).or_default();
                if l.last() != Some(&h) {
                    l.push(h);
                }
            };
            push(0, crate::canon::content_signature(&k));
            if tail.len() >= 3 {
                push(1, crate::canon::content_signature(tail));
            }
            if p.print.shingles.len() >= print::MIN_COMPARED {
                let mut s = 0x51_7cc1_b727_220a_u64;
                for x in &p.print.shingles {
                    s = crate::canon::mix_bytes(s, &x.to_le_bytes());
                }
                push(2, s);
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for l in lists.values() {
        if l.len() < 2 || l.len() > MAX_SHARED_BY {
            continue;
        }
        for (i, &a) in l.iter().enumerate() {
            for &b in &l[i + 1..] {
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// What two hosts' pages say about their being one site.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The mapping of the first host's paths onto the second's that lines up the most.
    pub mapping: Option<Mapping>,
    /// Path keys of the first host that the mapping lines up with one of the second's.
    pub lined_up: usize,
    /// Of those, pages with the same text.
    pub same: usize,
    /// Pages of the first host whose text is inside the second's page, which adds some.
    pub first_inside: usize,
    /// Pages of the second host whose text is inside the first's.
    pub second_inside: usize,
    /// Pages that are other pages on the two hosts: the veto.
    pub other: usize,
    /// Pages too short to compare.
    pub unknown: usize,
    /// Keys of the first host (under the mapping's prefix) the second was not seen serving.
    pub first_only: usize,
    /// Keys of the second host (under its prefix) the first was not seen serving.
    pub second_only: usize,
    /// Jaccard of the two hosts' template texts (shingles on most of each host's pages): a site's
    /// name and boilerplate, seen even where no page was seen on both hosts. Ranks such pairs
    /// above pairs sharing nothing; never decides.
    #[serde(default)]
    pub template: f64,
}

impl Evidence {
    /// Pages that agree: the same, or inside in the one direction the pair shows.
    pub fn agreeing(&self) -> usize {
        self.same + self.first_inside.max(self.second_inside)
    }

    /// Pages that disagree: other pages, and those inside in the direction against the pair's.
    pub fn disagreeing(&self) -> usize {
        self.other + self.first_inside.min(self.second_inside)
    }

    /// Adds one comparison of a page seen on both hosts.
    pub fn add(&mut self, l: Likeness) {
        match l {
            Likeness::Same => self.same += 1,
            Likeness::FirstInside => self.first_inside += 1,
            Likeness::SecondInside => self.second_inside += 1,
            Likeness::Other => self.other += 1,
            Likeness::Unknown => self.unknown += 1,
        }
    }

    /// The pair's score in [0, 1]: agreeing pages, each disagreeing one counting against them
    /// ten times over (precision first), shrunk towards 0 on little evidence. Pairs with equal
    /// page evidence are told apart by how much of their paths lines up.
    pub fn score(&self) -> f64 {
        let agree = self.agreeing() as f64;
        let disagree = self.disagreeing() as f64;
        let pages = agree / (agree + 10.0 * disagree + 2.0);
        let seen = (self.lined_up + self.first_only + self.second_only).max(1) as f64;
        pages * 0.97 + 0.01 * (self.lined_up as f64 / seen) + 0.02 * self.template
    }
}

/// Mappings weighed for a pair: the likeliest few by keys, then chosen by the pages' texts.
const MAPPINGS_WEIGHED: usize = 3;

/// The evidence of hosts `a` and `b` ([`Evidence`]): of the mappings that line up the most of
/// their keys ([`paths::candidates`]), the one whose pages agree best, with every page seen on
/// both under it compared by its text.
pub fn compare_hosts(a: &HostPages, b: &HostPages) -> Evidence {
    let ka = a.by_key();
    let kb = b.by_key();
    let keys_a: Vec<String> = ka.keys().cloned().collect();
    let keys_b: Vec<String> = kb.keys().cloned().collect();
    let template = template_similarity(a, b);
    let mut best: Option<Evidence> = None;
    for (mapping, _) in paths::candidates(&keys_a, &keys_b, MAPPINGS_WEIGHED) {
        let mut e = evidence_under(a, b, &ka, &kb, mapping);
        e.template = template;
        let better = best.as_ref().is_none_or(|b| {
            let merit = |e: &Evidence| e.agreeing() as i64 - 10 * e.disagreeing() as i64;
            (merit(&e), e.lined_up) > (merit(b), b.lined_up)
        });
        if better {
            best = Some(e);
        }
    }
    best.unwrap_or_else(|| Evidence {
        first_only: ka.len(),
        second_only: kb.len(),
        template,
        ..Evidence::default()
    })
}

/// Shingles on at least this share of a host's pages are its template.
const TEMPLATE_SHARE: f64 = 0.6;

/// Jaccard of the hosts' template shingles (on ≥ 60% of each host's pages, at least three pages),
/// on the coarsest sampling modulus of their pages.
fn template_similarity(a: &HostPages, b: &HostPages) -> f64 {
    let template = |h: &HostPages| -> Option<(u64, std::collections::BTreeSet<u64>)> {
        if h.pages.len() < 3 {
            return None;
        }
        let m = h.pages.iter().map(|p| p.print.modulus).max().unwrap_or(1);
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for p in &h.pages {
            for s in p.print.shingles.iter().filter(|s| *s % m == 0) {
                *counts.entry(*s).or_default() += 1;
            }
        }
        let need = (TEMPLATE_SHARE * h.pages.len() as f64).ceil() as usize;
        Some((
            m,
            counts
                .into_iter()
                .filter(|(_, c)| *c >= need)
                .map(|(s, _)| s)
                .collect(),
        ))
    };
    let (Some((ma, ta)), Some((mb, tb))) = (template(a), template(b)) else {
        return 0.0;
    };
    let m = ma.max(mb);
    let ta: std::collections::BTreeSet<u64> = ta.into_iter().filter(|s| s % m == 0).collect();
    let tb: std::collections::BTreeSet<u64> = tb.into_iter().filter(|s| s % m == 0).collect();
    let union = ta.union(&tb).count();
    if union == 0 {
        return 0.0;
    }
    ta.intersection(&tb).count() as f64 / union as f64
}

/// The evidence of `a` and `b` under one mapping.
fn evidence_under(
    a: &HostPages,
    b: &HostPages,
    ka: &BTreeMap<String, usize>,
    kb: &BTreeMap<String, usize>,
    mapping: Mapping,
) -> Evidence {
    let mut e = Evidence::default();
    for (k, &i) in ka {
        let Some(theirs) = mapping.apply(k) else {
            continue;
        };
        match kb.get(&theirs) {
            Some(&j) => {
                e.lined_up += 1;
                e.add(print::compare(&a.pages[i].print, &b.pages[j].print));
            }
            None => e.first_only += 1,
        }
    }
    e.second_only = kb
        .keys()
        .filter(|k| {
            mapping
                .invert(k)
                .is_some_and(|mine| !ka.contains_key(&mine))
        })
        .count();
    e.mapping = Some(mapping);
    e
}

/// A pair of hosts ranked: indices into the hosts given, and its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedPair {
    /// The first host.
    pub a: usize,
    /// The second host.
    pub b: usize,
    /// [`Evidence::score`].
    pub score: f64,
    /// What the pages said.
    pub evidence: Evidence,
}

/// The candidate pairs of `hosts` ([`candidates`]) ranked by their pages' evidence, best first
/// (ties in host order).
pub fn rank(hosts: &[HostPages]) -> Vec<RankedPair> {
    let mut out: Vec<RankedPair> = candidates(hosts)
        .into_iter()
        .map(|(a, b)| {
            let evidence = compare_hosts(&hosts[a], &hosts[b]);
            RankedPair {
                a,
                b,
                score: evidence.score(),
                evidence,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then((x.a, x.b).cmp(&(y.a, y.b)))
    });
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_check;
