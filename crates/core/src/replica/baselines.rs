//! The baselines our ranking is measured against (document `003`): NormPaths (Eq. 4.1), the
//! full-path cosine alone, simhash over the pages seen, and the document's own PU, NU and PNU
//! (§3.3: a lazy associative classifier over the five pair features, trained without labels by
//! EM self-training from obvious positives or obvious negatives, the two rankings combined by
//! Pareto dominance).
//!
//! Choices where the document is silent (see `docs/reports/replicas.md`): features are cut into
//! ten equal-frequency bins fitted on the pairs scored; rules are every subset of a pair's five
//! values (support ≥ 1); EM flips with the document's best fixed thresholds (PU 0.6, NU 0.5,
//! Table 4.1), passes until none flips (at most 20); a pair is scored leaving its own counts out.

use std::collections::HashMap;

use super::features::{Collection, PairFeatures};
use super::{HostPages, paths};

/// NormPaths (Eq. 4.1): `Σ 1/|L|` over the ⟨path, content⟩ tuples the two hosts share, `L` the
/// hosts that serve that tuple. One score a pair of `pairs`.
pub fn normpaths(hosts: &[HostPages], pairs: &[(usize, usize)]) -> Vec<f64> {
    let tuple = |p: &super::SeenPage| {
        let mut h = crate::canon::content_signature(&p.path);
        for x in &p.print.shingles {
            h = crate::canon::mix_bytes(h, &x.to_le_bytes());
        }
        h
    };
    let mut lists: HashMap<u64, usize> = HashMap::new();
    let per_host: Vec<std::collections::HashSet<u64>> = hosts
        .iter()
        .map(|h| h.pages.iter().map(tuple).collect())
        .collect();
    for set in &per_host {
        for t in set {
            *lists.entry(*t).or_default() += 1;
        }
    }
    pairs
        .iter()
        .map(|&(a, b)| {
            per_host[a]
                .iter()
                .filter(|t| per_host[b].contains(t))
                .map(|t| 1.0 / lists.get(t).copied().unwrap_or(1).max(1) as f64)
                .sum()
        })
        .collect()
}

/// Simhash over the pages seen: the share of the smaller host's pages (by path key, under no
/// mapping) whose simhash is within 3 bits of the other host's page of that key.
pub fn simhash(hosts: &[HostPages], pairs: &[(usize, usize)]) -> Vec<f64> {
    let keyed: Vec<HashMap<String, u64>> = hosts
        .iter()
        .map(|h| {
            h.pages
                .iter()
                .map(|p| (paths::key(&p.path), p.print.simhash))
                .collect()
        })
        .collect();
    pairs
        .iter()
        .map(|&(a, b)| {
            let (small, large) = if keyed[a].len() <= keyed[b].len() {
                (&keyed[a], &keyed[b])
            } else {
                (&keyed[b], &keyed[a])
            };
            if small.is_empty() {
                return 0.0;
            }
            let near = small
                .iter()
                .filter(|(k, s)| large.get(*k).is_some_and(|t| (*s ^ t).count_ones() <= 3))
                .count();
            near as f64 / small.len() as f64
        })
        .collect()
}

/// Bins a feature is cut into.
const BINS: usize = 10;

/// Equal-frequency cut points of each feature over `rows`.
fn cut_points(rows: &[[f64; 5]]) -> Vec<Vec<f64>> {
    (0..5)
        .map(|f| {
            let mut v: Vec<f64> = rows.iter().map(|r| r[f]).collect();
            v.sort_by(f64::total_cmp);
            let mut cuts: Vec<f64> = (1..BINS)
                .filter_map(|i| v.get(i * v.len() / BINS).copied())
                .collect();
            cuts.dedup();
            cuts
        })
        .collect()
}

/// A row's bins, one a feature.
fn discretise(row: &[f64; 5], cuts: &[Vec<f64>]) -> [u8; 5] {
    let mut out = [0u8; 5];
    for f in 0..5 {
        out[f] = cuts[f].iter().take_while(|c| row[f] >= **c).count() as u8;
    }
    out
}

/// The key of the rule antecedent `mask` (a subset of the five features) with values `bins`.
fn antecedent(mask: u8, bins: &[u8; 5]) -> u64 {
    let mut k = u64::from(mask);
    for (f, b) in bins.iter().enumerate() {
        if mask >> f & 1 == 1 {
            k |= (u64::from(*b) + 1) << (8 + 8 * f);
        }
    }
    k
}

/// A lazy associative classifier's counts: each antecedent's examples by class.
struct Lac {
    counts: HashMap<u64, [u32; 2]>,
}

impl Lac {
    fn new(examples: &[[u8; 5]], positive: &[bool]) -> Lac {
        let mut lac = Lac {
            counts: HashMap::new(),
        };
        for (x, &p) in examples.iter().zip(positive) {
            lac.add(x, p, 1);
        }
        lac
    }

    fn add(&mut self, x: &[u8; 5], positive: bool, delta: i64) {
        for mask in 1u8..32 {
            let c = self.counts.entry(antecedent(mask, x)).or_default();
            let slot = &mut c[usize::from(positive)];
            *slot = (i64::from(*slot) + delta).max(0) as u32;
        }
    }

    /// α(x, ⊕) (Eqs. 3.5–3.6): the mean confidence of the rules voting ⊕ over both classes'
    /// means; `own` is x's current label when x is among the examples (left out).
    fn alpha_positive(&self, x: &[u8; 5], own: Option<bool>) -> f64 {
        let (mut sum, mut n) = ([0.0f64; 2], [0usize; 2]);
        for mask in 1u8..32 {
            let Some(c) = self.counts.get(&antecedent(mask, x)) else {
                continue;
            };
            let mut c = [i64::from(c[0]), i64::from(c[1])];
            if let Some(l) = own {
                c[usize::from(l)] -= 1;
            }
            let total = c[0] + c[1];
            if total <= 0 {
                continue;
            }
            for l in 0..2 {
                if c[l] > 0 {
                    sum[l] += c[l] as f64 / total as f64;
                    n[l] += 1;
                }
            }
        }
        let s = |l: usize| if n[l] == 0 { 0.0 } else { sum[l] / n[l] as f64 };
        let (neg, pos) = (s(0), s(1));
        if neg + pos == 0.0 {
            0.5
        } else {
            pos / (neg + pos)
        }
    }
}

/// Which obvious pairs a self-training starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Obvious positives (www. or TLD variants); the other candidates provisionally negative.
    Positives,
    /// Obvious negatives (pairs sharing nothing); the candidates provisionally positive.
    Negatives,
}

/// PU or NU (§3.3.3): α(x, ⊕) of each of `candidates` after EM self-training. `obvious` are the
/// fixed examples (positives for [`Start::Positives`], negatives for [`Start::Negatives`]);
/// their features are given beside the candidates'.
pub fn self_trained(
    candidates: &[PairFeatures],
    obvious: &[PairFeatures],
    start: Start,
    obvious_in_candidates: &[bool],
) -> Vec<f64> {
    let rows: Vec<[f64; 5]> = candidates
        .iter()
        .chain(obvious)
        .map(PairFeatures::values)
        .collect();
    let cuts = cut_points(&rows);
    let bins: Vec<[u8; 5]> = rows.iter().map(|r| discretise(r, &cuts)).collect();
    let n = candidates.len();
    let fixed_label = start == Start::Positives;
    let mut labels: Vec<bool> = (0..bins.len())
        .map(|i| {
            if i >= n || obvious_in_candidates.get(i).copied().unwrap_or(false) {
                fixed_label
            } else {
                !fixed_label
            }
        })
        .collect();
    let fixed: Vec<bool> = (0..bins.len())
        .map(|i| i >= n || obvious_in_candidates.get(i).copied().unwrap_or(false))
        .collect();
    let mut lac = Lac::new(&bins, &labels);
    let threshold = match start {
        Start::Positives => 0.6,
        Start::Negatives => 0.5,
    };
    for _pass in 0..20 {
        let mut flips = 0usize;
        for i in 0..n {
            if fixed[i] {
                continue;
            }
            let pos = lac.alpha_positive(&bins[i], Some(labels[i]));
            let flip = match start {
                // ⊖ → ⊕ when α(x, ⊖) ≤ α_min.
                Start::Positives => !labels[i] && 1.0 - pos <= threshold,
                // ⊕ → ⊖ when α(x, ⊕) ≤ α_min.
                Start::Negatives => labels[i] && pos <= threshold,
            };
            if flip {
                lac.add(&bins[i], labels[i], -1);
                labels[i] = !labels[i];
                lac.add(&bins[i], labels[i], 1);
                flips += 1;
            }
        }
        if flips == 0 {
            break;
        }
    }
    (0..n)
        .map(|i| lac.alpha_positive(&bins[i], Some(labels[i])))
        .collect()
}

/// PNU (§3.3.4): each pair's count of pairs it dominates in the plane of its PU and NU
/// probabilities (higher on both, strictly on one), ties broken by their sum; scaled into
/// [0, 1) so that it ranks as the counts do.
pub fn pareto(pu: &[f64], nu: &[f64]) -> Vec<f64> {
    let n = pu.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| pu[a].total_cmp(&pu[b]));
    let mut ranks_n: Vec<f64> = nu.to_vec();
    ranks_n.sort_by(f64::total_cmp);
    ranks_n.dedup();
    let rank_of = |v: f64| ranks_n.partition_point(|x| *x < v);
    let mut tree = vec![0usize; ranks_n.len() + 1];
    let add = |tree: &mut Vec<usize>, mut i: usize| {
        i += 1;
        while i < tree.len() {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    };
    let sum = |tree: &Vec<usize>, mut i: usize| {
        let mut s = 0;
        i += 1;
        while i > 0 {
            s += tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    };
    let mut equal: HashMap<(u64, u64), usize> = HashMap::new();
    for i in 0..n {
        *equal.entry((pu[i].to_bits(), nu[i].to_bits())).or_default() += 1;
    }
    let mut dom = vec![0usize; n];
    let mut g = 0;
    while g < n {
        let mut e = g;
        while e < n && pu[order[e]] == pu[order[g]] {
            e += 1;
        }
        for &i in &order[g..e] {
            add(&mut tree, rank_of(nu[i]));
        }
        for &i in &order[g..e] {
            let le = sum(&tree, rank_of(nu[i]));
            let same = equal
                .get(&(pu[i].to_bits(), nu[i].to_bits()))
                .copied()
                .unwrap_or(1);
            dom[i] = le - same;
        }
        g = e;
    }
    (0..n)
        .map(|i| (dom[i] as f64 + (pu[i] + nu[i]) / 2.0 * 0.999) / (n as f64 + 1.0))
        .collect()
}

/// The document's ranking over a collection: PU, NU and PNU scores of `pairs`, trained on the
/// candidate pairs `candidates` (obvious positives among them by their host names) and
/// `negatives` (pairs sharing nothing, sampled by the caller).
pub struct DocumentScores {
    /// PU's α(x, ⊕) of each pair.
    pub pu: Vec<f64>,
    /// NU's.
    pub nu: Vec<f64>,
    /// PNU's dominance score.
    pub pnu: Vec<f64>,
    /// The full-path cosine alone.
    pub fullpath: Vec<f64>,
}

/// PU, NU, PNU and the full-path cosine for `pairs`, trained on `candidates` (which must hold
/// `pairs`) and the obvious `negatives`.
pub fn document(
    hosts: &[HostPages],
    candidates: &[(usize, usize)],
    negatives: &[(usize, usize)],
    pairs: &[(usize, usize)],
) -> DocumentScores {
    let coll = Collection::new(hosts);
    let feats: Vec<PairFeatures> = candidates
        .iter()
        .map(|&(a, b)| coll.features(a, b))
        .collect();
    let obvious: Vec<bool> = candidates
        .iter()
        .map(|&(a, b)| super::features::obvious_positive(&hosts[a].host, &hosts[b].host))
        .collect();
    let neg_feats: Vec<PairFeatures> = negatives
        .iter()
        .map(|&(a, b)| coll.features(a, b))
        .collect();
    let pu_all = self_trained(&feats, &[], Start::Positives, &obvious);
    let nu_all = self_trained(&feats, &neg_feats, Start::Negatives, &[]);
    let index: HashMap<(usize, usize), usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, i))
        .collect();
    let pick = |v: &[f64], default: f64| -> Vec<f64> {
        pairs
            .iter()
            .map(|p| index.get(p).map_or(default, |&i| v[i]))
            .collect()
    };
    let pu = pick(&pu_all, 0.0);
    let nu = pick(&nu_all, 0.0);
    let pnu = pareto(&pu, &nu);
    let fullpath = pairs
        .iter()
        .map(|&(a, b)| coll.features(a, b).fullpath)
        .collect();
    DocumentScores {
        pu,
        nu,
        pnu,
        fullpath,
    }
}
