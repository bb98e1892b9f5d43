//! The document's pair features (document `003`, §3.2 i–v), over a collection of hosts:
//! `ndist` (edit distance of host names), `nmatch` (cosine of host-name terms weighted
//! `ln(len t) / (1 + ln df t)`), `ip4` and `ip3` (`1 / (|G| − 1)` for the group of hosts on one
//! address or one /24), and `fullpath` (cosine of the hosts' whole paths weighted
//! `1 + ln(maxdf / df t)`, paths on more than 100 hosts dropped). The baselines read them; our
//! own ranking does not need them.
//!
//! Contract: df counts hosts of the collection given to [`Collection::new`]; features are
//! symmetric in the pair; logs are natural (the document names no base).

use std::collections::{HashMap, HashSet};

use super::HostPages;

/// Paths on more hosts than this carry no weight in `fullpath` (§3.2 v: "maxdf is 100").
pub const MAX_DF: usize = 100;

/// The five features of a pair, in the document's order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairFeatures {
    /// Levenshtein distance of the host names.
    pub ndist: f64,
    /// Cosine of the host-name terms.
    pub nmatch: f64,
    /// `1 / (|G| − 1)` for the hosts on one address.
    pub ip4: f64,
    /// The same for the hosts on one /24.
    pub ip3: f64,
    /// Cosine of the whole paths.
    pub fullpath: f64,
}

impl PairFeatures {
    /// The features as an array, in the document's order.
    pub fn values(&self) -> [f64; 5] {
        [self.ndist, self.nmatch, self.ip4, self.ip3, self.fullpath]
    }
}

/// The statistics of a collection the features are weighted by.
pub struct Collection {
    /// Each host's name terms (split on `.` and `-`, the port dropped).
    terms: Vec<Vec<String>>,
    /// Hosts whose name has each term.
    term_df: HashMap<String, usize>,
    /// Each host's distinct paths.
    paths: Vec<HashSet<String>>,
    /// Hosts that serve each path.
    path_df: HashMap<String, usize>,
    /// Hosts on each address and on each /24.
    ip4: HashMap<String, usize>,
    ip3: HashMap<String, usize>,
    addrs: Vec<Option<String>>,
    names: Vec<String>,
}

/// A host name without its port, lower case.
fn bare(host: &str) -> String {
    let h = match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    };
    h.to_ascii_lowercase()
}

/// The /24 of a dotted IPv4 address.
fn net24(addr: &str) -> Option<String> {
    let (net, _) = addr.rsplit_once('.')?;
    Some(net.to_string())
}

impl Collection {
    /// The statistics of `hosts`.
    pub fn new(hosts: &[HostPages]) -> Collection {
        let names: Vec<String> = hosts.iter().map(|h| bare(&h.host)).collect();
        let terms: Vec<Vec<String>> = names
            .iter()
            .map(|n| {
                let mut t: Vec<String> = n
                    .split(['.', '-'])
                    .filter(|t| !t.is_empty())
                    .map(String::from)
                    .collect();
                t.sort();
                t.dedup();
                t
            })
            .collect();
        let mut term_df: HashMap<String, usize> = HashMap::new();
        for t in terms.iter().flatten() {
            *term_df.entry(t.clone()).or_default() += 1;
        }
        let paths: Vec<HashSet<String>> = hosts
            .iter()
            .map(|h| h.pages.iter().map(|p| p.path.clone()).collect())
            .collect();
        let mut path_df: HashMap<String, usize> = HashMap::new();
        for p in paths.iter().flatten() {
            *path_df.entry(p.clone()).or_default() += 1;
        }
        let addrs: Vec<Option<String>> = hosts.iter().map(|h| h.addr.clone()).collect();
        let mut ip4: HashMap<String, usize> = HashMap::new();
        let mut ip3: HashMap<String, usize> = HashMap::new();
        for a in addrs.iter().flatten() {
            *ip4.entry(a.clone()).or_default() += 1;
            if let Some(n) = net24(a) {
                *ip3.entry(n).or_default() += 1;
            }
        }
        Collection {
            terms,
            term_df,
            paths,
            path_df,
            ip4,
            ip3,
            addrs,
            names,
        }
    }

    /// Whether a host serves `path` (as seen).
    pub fn serves(&self, host: usize, path: &str) -> bool {
        self.paths[host].contains(path)
    }

    /// The features of hosts `a` and `b`.
    pub fn features(&self, a: usize, b: usize) -> PairFeatures {
        PairFeatures {
            ndist: levenshtein(&self.names[a], &self.names[b]) as f64,
            nmatch: self.nmatch(a, b),
            ip4: self.ip_group(a, b, |x| Some(x.to_string()), &self.ip4),
            ip3: self.ip_group(a, b, net24, &self.ip3),
            fullpath: self.fullpath(a, b),
        }
    }

    fn nmatch(&self, a: usize, b: usize) -> f64 {
        let w = |t: &String| {
            let df = self.term_df.get(t).copied().unwrap_or(1).max(1) as f64;
            (t.chars().count() as f64).ln() / (1.0 + df.ln())
        };
        cosine(&self.terms[a], &self.terms[b], w)
    }

    fn ip_group(
        &self,
        a: usize,
        b: usize,
        group: impl Fn(&str) -> Option<String>,
        sizes: &HashMap<String, usize>,
    ) -> f64 {
        let (Some(x), Some(y)) = (&self.addrs[a], &self.addrs[b]) else {
            return 0.0;
        };
        match (group(x), group(y)) {
            (Some(gx), Some(gy)) if gx == gy => {
                let n = sizes.get(&gx).copied().unwrap_or(2);
                1.0 / (n.max(2) - 1) as f64
            }
            _ => 0.0,
        }
    }

    fn fullpath(&self, a: usize, b: usize) -> f64 {
        let w = |p: &String| {
            let df = self.path_df.get(p).copied().unwrap_or(1).max(1);
            if df > MAX_DF {
                0.0
            } else {
                1.0 + (MAX_DF as f64 / df as f64).ln()
            }
        };
        let pa: Vec<String> = self.paths[a].iter().cloned().collect();
        let pb: Vec<String> = self.paths[b].iter().cloned().collect();
        cosine(&pa, &pb, w)
    }
}

/// Cosine of two binary term vectors weighted by `w`.
fn cosine<T: std::hash::Hash + Eq>(a: &[T], b: &[T], w: impl Fn(&T) -> f64) -> f64 {
    let bs: HashSet<&T> = b.iter().collect();
    let dot: f64 = a
        .iter()
        .filter(|t| bs.contains(t))
        .map(|t| w(t).powi(2))
        .sum();
    let na: f64 = a.iter().map(|t| w(t).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|t| w(t).powi(2)).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// Levenshtein distance (unit costs) of two strings, by characters.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Whether two host names are an obvious replica pair (§3.3.3): they differ only by a leading
/// `www.`, or only in their last label (the TLD: `exemplo.com.br` / `exemplo.net.br` count, as
/// the labels before the public suffix are equal), or both.
pub fn obvious_positive(a: &str, b: &str) -> bool {
    let (a, b) = (bare(a), bare(b));
    if a == b {
        return false;
    }
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_string();
    let (a, b) = (strip(&a), strip(&b));
    if a == b {
        return true;
    }
    // Registrable label: the longest label before the first label of two or three letters
    // counted from the end (a small public-suffix rule: com, org, net, gov, edu, br, de, uk…).
    let registrable = |h: &str| -> Option<String> {
        let labels: Vec<&str> = h.split('.').collect();
        if labels.len() < 2 || labels.iter().all(|l| l.chars().all(|c| c.is_ascii_digit())) {
            return None;
        }
        let mut end = labels.len();
        while end > 1 && labels[end - 1].len() <= 3 {
            end -= 1;
        }
        (end < labels.len()).then(|| labels[..end].join("."))
    };
    match (registrable(&a), registrable(&b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}
