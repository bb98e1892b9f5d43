//! Query generation for forms: which values to submit next (thesis `004` §4.2, paper `001` §3).
//!
//! Owns the [`Policy`] trait and its policies, sans-IO: the caller asks [`Policy::next`] for a
//! query, submits it, and hands back the documents it returned with [`Policy::observe`].
//!
//! - [`Enumeration`]: the value combinations of a form's select, radio and checkbox fields
//!   (every value first, then further combinations, capped).
//! - [`thesis_terms`] / [`TermList::thesis`]: the 15 least frequent terms of the example page and
//!   the form page.
//! - [`TermList::generic_frequency`]: words of a general-language frequency list
//!   (`data/forms/en-frequency.txt`, from `wordfreq`) in frequency order.
//! - [`RandomTerms`]: words drawn uniformly from the same list with a seeded [`XorShift`].
//! - [`Adaptive`]: the paper's greedy choice by `P_new(q) / cost(q)` over the [`QueryStats`]
//!   table, with the independence or the Zipf estimator ([`ZipfFit`]) and the correction for
//!   sites capping results per query.
//!
//! Does not own submitting (that is [`super::FormSpec::submission`] and the driver) nor telling
//! result documents apart from navigation (the caller decides what a returned document is).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::dom::text::{is_stop_word, terms};
use crate::dom::{ControlKind, Page};

use super::{FormSpec, urlencode_into};

/// How many terms the thesis policy takes (thesis `004` §4.2).
pub const THESIS_TERMS: usize = 15;

/// A document a query returned: an identity (its URL, or any key the caller keeps stable) and
/// its terms (repeats are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocTerms {
    /// Stable identity of the document (two results with the same id are one document).
    pub id: String,
    /// The document's terms (see [`crate::dom::text::terms`]).
    pub terms: Vec<String>,
}

impl DocTerms {
    /// A document from its id and visible text.
    pub fn from_text(id: impl Into<String>, text: &str) -> DocTerms {
        DocTerms {
            id: id.into(),
            terms: terms(text),
        }
    }

    /// A document from a parsed page (id: its URL).
    pub fn from_page(page: &Page) -> DocTerms {
        DocTerms {
            id: page.url.clone(),
            terms: page.terms().to_vec(),
        }
    }
}

/// A query-generation policy in a sans-IO loop: `next` gives the query to submit (`None` when
/// the policy has nothing left), `observe` takes the documents that query returned.
pub trait Policy {
    /// The next query, or `None` when exhausted.
    fn next(&mut self) -> Option<String>;
    /// The documents `query` returned (fixed policies ignore them).
    fn observe(&mut self, query: &str, docs: &[DocTerms]);
    /// [`Policy::observe`] with the number of matches the site reported for `query`, when it
    /// reports one ("1-10 of about 91 matches"); policies that have no use for it observe.
    fn observe_with_total(&mut self, query: &str, docs: &[DocTerms], total: Option<u64>) {
        let _ = total;
        self.observe(query, docs);
    }
}

// ---------------------------------------------------------------------------------------------
// Enumeration of choice fields.

/// The value combinations of a form's select, radio and checkbox fields.
///
/// Each field name with listed values is a group (a select's options; the values of the radios
/// or checkboxes sharing a name). The first queries walk the groups side by side so that every
/// value of every group is used within as many queries as the largest group has values; then the
/// remaining combinations follow in odometer order (last group fastest), until `cap` queries.
/// Fixed fields (hidden, defaults) are not part of a combination: the submission keeps them.
///
/// As a [`Policy`] each query is the url-encoded combination (`select=title&kind=dvd`);
/// [`Enumeration::next_values`] gives the pairs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Enumeration {
    groups: Vec<(String, Vec<String>)>,
    cap: usize,
    emitted: usize,
    diagonal: usize,
    counter: Vec<usize>,
    odometer_done: bool,
    seen: HashSet<Vec<usize>>,
}

impl Enumeration {
    /// The enumeration of `spec`'s choice fields, at most `cap` combinations.
    pub fn new(spec: &FormSpec, cap: usize) -> Enumeration {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for f in spec
            .fields
            .iter()
            .filter(|f| f.is_choice() && !f.name.is_empty())
        {
            let values: Vec<String> = match f.kind {
                // A placeholder ("----------") chooses nothing: the application answers it
                // with its form again, or an error.
                ControlKind::Select => f
                    .options
                    .iter()
                    .filter(|o| !super::is_placeholder(o))
                    .cloned()
                    .collect(),
                _ if f.value.is_empty() => vec!["on".to_string()],
                _ => vec![f.value.clone()],
            };
            match groups.iter_mut().find(|(n, _)| *n == f.name) {
                Some((_, vs)) => {
                    for v in values {
                        if !vs.contains(&v) {
                            vs.push(v);
                        }
                    }
                }
                None => groups.push((f.name.clone(), values)),
            }
        }
        groups.retain(|(_, vs)| !vs.is_empty());
        let n = groups.len();
        Enumeration {
            groups,
            cap,
            emitted: 0,
            diagonal: 0,
            counter: vec![0; n],
            odometer_done: n == 0,
            seen: HashSet::new(),
        }
    }

    /// The groups: field name and its values, in document order.
    pub fn groups(&self) -> &[(String, Vec<String>)] {
        &self.groups
    }

    /// The number of distinct combinations (saturating).
    pub fn combinations(&self) -> usize {
        self.groups
            .iter()
            .fold(1usize, |acc, (_, vs)| acc.saturating_mul(vs.len()))
    }

    fn pairs(&self, idx: &[usize]) -> Vec<(String, String)> {
        self.groups
            .iter()
            .zip(idx)
            .filter_map(|((n, vs), &i)| vs.get(i).map(|v| (n.clone(), v.clone())))
            .collect()
    }

    /// The next combination as `(name, value)` pairs.
    pub fn next_values(&mut self) -> Option<Vec<(String, String)>> {
        if self.emitted >= self.cap || self.groups.is_empty() {
            return None;
        }
        let longest = self.groups.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        while self.diagonal < longest {
            let k = self.diagonal;
            self.diagonal += 1;
            let idx: Vec<usize> = self.groups.iter().map(|(_, vs)| k % vs.len()).collect();
            if self.seen.insert(idx.clone()) {
                self.emitted += 1;
                return Some(self.pairs(&idx));
            }
        }
        while !self.odometer_done {
            let idx = self.counter.clone();
            // Advance the odometer, last group fastest.
            let mut g = self.groups.len();
            loop {
                if g == 0 {
                    self.odometer_done = true;
                    break;
                }
                g -= 1;
                self.counter[g] += 1;
                if self.counter[g] < self.groups[g].1.len() {
                    break;
                }
                self.counter[g] = 0;
            }
            if self.seen.insert(idx.clone()) {
                self.emitted += 1;
                return Some(self.pairs(&idx));
            }
        }
        None
    }
}

impl Policy for Enumeration {
    fn next(&mut self) -> Option<String> {
        let pairs = self.next_values()?;
        let mut out = String::new();
        for (n, v) in &pairs {
            if !out.is_empty() {
                out.push('&');
            }
            urlencode_into(&mut out, n);
            out.push('=');
            urlencode_into(&mut out, v);
        }
        Some(out)
    }

    fn observe(&mut self, _query: &str, _docs: &[DocTerms]) {}
}

/// The thesis's query plan (thesis `004` §4.2): every choice combination of `spec` (see
/// [`Enumeration`]) crossed with every term in the form's query field
/// ([`FormSpec::query_field`]), at most `cap` entries; without one, the combinations alone;
/// without choice fields, the terms alone.
pub fn plan(spec: &FormSpec, terms: &[String], cap: usize) -> Vec<Vec<(String, String)>> {
    let mut combos = Vec::new();
    let mut e = Enumeration::new(spec, cap);
    while let Some(c) = e.next_values() {
        combos.push(c);
    }
    if combos.is_empty() {
        combos.push(Vec::new());
    }
    let text = spec.query_field().map(|f| f.name.clone());
    let mut out = Vec::new();
    match text {
        Some(name) if !terms.is_empty() => {
            'outer: for c in &combos {
                for t in terms {
                    if out.len() >= cap {
                        break 'outer;
                    }
                    let mut q = c.clone();
                    q.push((name.clone(), t.clone()));
                    out.push(q);
                }
            }
        }
        _ => {
            out = combos
                .into_iter()
                .filter(|c| !c.is_empty())
                .take(cap)
                .collect()
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Fixed term lists.

/// The general-language frequency list (`data/forms/en-frequency.txt`): words, most frequent
/// first, with occurrences per billion words; stop words and words [`terms`] would not keep
/// are left out.
pub fn frequency_list() -> &'static [(String, u64)] {
    static LIST: OnceLock<Vec<(String, u64)>> = OnceLock::new();
    LIST.get_or_init(|| {
        include_str!("../../../../data/forms/en-frequency.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (w, n) = l.split_once('\t')?;
                let n = n.trim().parse().ok()?;
                (terms(w).first().map(String::as_str) == Some(w)).then(|| (w.to_string(), n))
            })
            .collect()
    })
}

/// The frequency of `word` per billion words in the general-language list (0 when absent).
pub fn generic_frequency(word: &str) -> u64 {
    static MAP: OnceLock<HashMap<&'static str, u64>> = OnceLock::new();
    MAP.get_or_init(|| {
        frequency_list()
            .iter()
            .map(|(w, n)| (w.as_str(), *n))
            .collect()
    })
    .get(word)
    .copied()
    .unwrap_or(0)
}

/// The thesis's text values (thesis `004` §4.2): the `n` least frequent terms of the example page
/// and the form page together. Terms are counted over both pages; ties (most terms occur once)
/// go to the term rarer in general language (see [`generic_frequency`]; a word outside the list
/// is rarest), then to the earlier one (example page first).
pub fn thesis_terms(example: &Page, form_page: &Page, n: usize) -> Vec<String> {
    let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
    for (pos, t) in example
        .terms()
        .iter()
        .chain(form_page.terms().iter())
        .enumerate()
    {
        count.entry(t).or_insert((0, pos)).0 += 1;
    }
    let mut ranked: Vec<(&str, usize, u64, usize)> = count
        .into_iter()
        .map(|(t, (c, first))| (t, c, generic_frequency(t), first))
        .collect();
    ranked.sort_by_key(|&(_, c, g, first)| (c, g, first));
    ranked
        .into_iter()
        .take(n)
        .map(|(t, ..)| t.to_string())
        .collect()
}

/// A fixed list of terms issued in order, each once.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TermList {
    terms: Vec<String>,
    pos: usize,
}

impl TermList {
    /// Issues `terms` in order (repeats dropped).
    pub fn new(terms: Vec<String>) -> TermList {
        let mut seen = HashSet::new();
        let terms = terms
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect();
        TermList { terms, pos: 0 }
    }

    /// The thesis policy: [`thesis_terms`] with [`THESIS_TERMS`] terms.
    pub fn thesis(example: &Page, form_page: &Page) -> TermList {
        TermList::new(thesis_terms(example, form_page, THESIS_TERMS))
    }

    /// The generic-frequency policy (paper `001` §3): the frequency list, most frequent first.
    pub fn generic_frequency() -> TermList {
        TermList::new(frequency_list().iter().map(|(w, _)| w.clone()).collect())
    }

    /// The terms still to issue.
    pub fn remaining(&self) -> &[String] {
        self.terms.get(self.pos..).unwrap_or(&[])
    }
}

impl Policy for TermList {
    fn next(&mut self) -> Option<String> {
        let t = self.terms.get(self.pos)?.clone();
        self.pos += 1;
        Some(t)
    }

    fn observe(&mut self, _query: &str, _docs: &[DocTerms]) {}
}

/// A xorshift64* generator: deterministic, seeded, no dependency. Not for cryptography.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (0 is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Multiply-shift: bias below 2^-32 for the sizes used here.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The random policy (paper `001` §3): words drawn uniformly, without repeats, from a word list
/// (by default the frequency list), with a seeded [`XorShift`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RandomTerms {
    words: Vec<String>,
    left: usize,
    rng: XorShift,
}

impl RandomTerms {
    /// Draws from the frequency list with `seed`.
    pub fn new(seed: u64) -> RandomTerms {
        RandomTerms::from_words(
            frequency_list().iter().map(|(w, _)| w.clone()).collect(),
            seed,
        )
    }

    /// Draws from `words` with `seed`.
    pub fn from_words(words: Vec<String>, seed: u64) -> RandomTerms {
        let left = words.len();
        RandomTerms {
            words,
            left,
            rng: XorShift::new(seed),
        }
    }
}

impl Policy for RandomTerms {
    fn next(&mut self) -> Option<String> {
        if self.left == 0 {
            return None;
        }
        // A partial Fisher–Yates shuffle: the drawn word moves past the live prefix.
        let i = self.rng.below(self.left);
        self.left -= 1;
        self.words.swap(i, self.left);
        self.words.get(self.left).cloned()
    }

    fn observe(&mut self, _query: &str, _docs: &[DocTerms]) {}
}

// ---------------------------------------------------------------------------------------------
// The adaptive policy (paper 001, section 3).

/// The query statistics table (paper `001` §3.3, Figure 7): how many downloaded documents
/// contain each term, and how many documents were downloaded, updated incrementally.
///
/// Counts are weights: a document counts 1, except the new documents of a query whose results
/// the site capped, which stand for more (see [`Adaptive`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct QueryStats {
    docs: f64,
    df: HashMap<String, f64>,
    seen: HashSet<String>,
}

impl QueryStats {
    /// An empty table.
    pub fn new() -> QueryStats {
        QueryStats::default()
    }

    /// Adds `doc` with weight 1 unless its id was seen; returns whether it was new.
    pub fn add(&mut self, doc: &DocTerms) -> bool {
        self.add_weighted(doc, 1.0)
    }

    /// Adds `doc` with `weight` unless its id was seen; returns whether it was new.
    pub fn add_weighted(&mut self, doc: &DocTerms, weight: f64) -> bool {
        if !self.seen.insert(doc.id.clone()) {
            return false;
        }
        self.docs += weight;
        let mut once = HashSet::new();
        for t in &doc.terms {
            if once.insert(t.as_str()) {
                *self.df.entry(t.clone()).or_insert(0.0) += weight;
            }
        }
        true
    }

    /// Whether a document with this id was downloaded.
    pub fn contains(&self, id: &str) -> bool {
        self.seen.contains(id)
    }

    /// Downloaded documents (weighted): `|q1 ∨ … ∨ q(i−1)|` in documents.
    pub fn docs(&self) -> f64 {
        self.docs
    }

    /// Distinct documents downloaded.
    pub fn distinct(&self) -> usize {
        self.seen.len()
    }

    /// Documents (weighted) containing `term`: the table's `N(t_k)`.
    pub fn df(&self, term: &str) -> f64 {
        self.df.get(term).copied().unwrap_or(0.0)
    }

    /// `P(term | q1 ∨ … ∨ q(i−1))`: the share of downloaded documents containing `term`.
    pub fn p_given_previous(&self, term: &str) -> f64 {
        if self.docs > 0.0 {
            self.df(term) / self.docs
        } else {
            0.0
        }
    }

    /// Every term in the table with its count.
    pub fn terms(&self) -> impl Iterator<Item = (&str, f64)> {
        self.df.iter().map(|(t, &n)| (t.as_str(), n))
    }
}

/// `f = α (r + β)^−γ` fitted to document frequencies by rank (paper `001` §3.1, after Ipeirotis
/// et al.): least squares on `ln f = ln α − γ ln(r + β)` for each β of a grid, the β with the
/// smallest squared error kept.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZipfFit {
    /// Scale α.
    pub alpha: f64,
    /// Rank shift β.
    pub beta: f64,
    /// Exponent γ.
    pub gamma: f64,
}

impl ZipfFit {
    /// Fits `freqs` sorted in decreasing order (rank 1 first); `None` with fewer than two
    /// positive values.
    pub fn fit(freqs: &[f64]) -> Option<ZipfFit> {
        let pts: Vec<(f64, f64)> = freqs
            .iter()
            .enumerate()
            .filter(|(_, f)| **f > 0.0 && f.is_finite())
            .map(|(i, f)| ((i + 1) as f64, f.ln()))
            .collect();
        if pts.len() < 2 {
            return None;
        }
        let mut best: Option<(f64, ZipfFit)> = None;
        for beta in [
            0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0, 89.0,
        ] {
            let n = pts.len() as f64;
            let xs: Vec<f64> = pts.iter().map(|(r, _)| (r + beta).ln()).collect();
            let mx = xs.iter().sum::<f64>() / n;
            let my = pts.iter().map(|(_, y)| y).sum::<f64>() / n;
            let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
            if sxx <= 0.0 {
                continue;
            }
            let sxy: f64 = xs
                .iter()
                .zip(&pts)
                .map(|(x, (_, y))| (x - mx) * (y - my))
                .sum();
            let slope = sxy / sxx;
            let intercept = my - slope * mx;
            let sse: f64 = xs
                .iter()
                .zip(&pts)
                .map(|(x, (_, y))| (y - intercept - slope * x).powi(2))
                .sum();
            let fit = ZipfFit {
                alpha: intercept.exp(),
                beta,
                gamma: -slope,
            };
            if best.is_none_or(|(e, _)| sse < e) {
                best = Some((sse, fit));
            }
        }
        best.map(|(_, f)| f)
    }

    /// The fitted frequency at `rank` (1-based).
    pub fn at(&self, rank: f64) -> f64 {
        self.alpha * (rank + self.beta).powf(-self.gamma)
    }
}

/// How [`Adaptive`] estimates `P(q)` (paper `001` §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Estimator {
    /// `P(q) = P(q | q1 ∨ … ∨ q(i−1))`.
    Independence,
    /// `P(q)` from a [`ZipfFit`] of the table's frequencies by rank.
    Zipf,
}

/// The cost model `cost(q) = c_q + c_r·P(q) + c_d·P_new(q)` (paper `001` eq. 2), with `P` in
/// documents (the site's size cancels out of the comparison).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Cost of submitting a query.
    pub query: f64,
    /// Cost per result listed (result index pages).
    pub result: f64,
    /// Cost of downloading a new document.
    pub download: f64,
}

impl Default for Cost {
    /// The paper's experiments: every query costs the same.
    fn default() -> Cost {
        Cost {
            query: 1.0,
            result: 0.0,
            download: 0.0,
        }
    }
}

impl Cost {
    /// `c_q + c_r·matches + c_d·new`.
    pub fn of(&self, matches: f64, new: f64) -> f64 {
        self.query + self.result * matches + self.download * new
    }
}

/// The estimate for one candidate query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The term.
    pub term: String,
    /// Estimated matching documents on the site (`P(q)` in documents).
    pub matches: f64,
    /// Estimated new documents (`P_new(q)` in documents).
    pub new: f64,
    /// `new / cost`.
    pub efficiency: f64,
}

/// The adaptive policy (paper `001` §3): the first query from the example page, then greedily
/// the term of highest `P_new(q)/cost(q)` among the terms of the downloaded documents.
///
/// In documents rather than fractions: with `D` documents downloaded, `df(q)` of them holding
/// `q`, and `N̂` the estimated site size, `P(q)·N̂` is `N̂·df/D` (independence) or
/// `(N̂/D)·f̂(rank(q))` (Zipf), and `P_new(q)·N̂ = P(q)·N̂ − df(q)` (eq. 3). `N̂` is the
/// Lincoln–Petersen estimate from how many of each query's results were already downloaded
/// (`D·returned/overlap`, summed over queries), or `2D` before any overlap is seen.
///
/// Sites capping results (paper §3.4): a query returning `cap` results (see
/// [`Adaptive::with_result_cap`]) returned a sample of its matches. Its new documents enter the
/// table with weight `M/returned`, `M` its estimated matches (the site's reported total when
/// given to [`Adaptive::observe_with_total`] or [`Policy::observe_with_total`], else the estimate
/// made when it was chosen: measured against Xapian Omega, the reported count is much better,
/// see `docs/reports/forms.md`), which
/// is eq. 5–6's `P(q(i+1) ∧ qi) = P(q(i+1) ∧ qi_sample)·P(qi)/P(qi_sample)` applied to the new
/// part of the sample. When choosing, a capped site's `P_new(q)` counts only the new documents
/// a random `cap` of the matches would bring (`new·cap/matches`), under the same assumption.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Adaptive {
    stats: QueryStats,
    seeds: Vec<String>,
    seed_pos: usize,
    issued: HashSet<String>,
    estimator: Estimator,
    cost: Cost,
    cap: Option<usize>,
    predicted: HashMap<String, f64>,
    lp_num: f64,
    lp_den: f64,
}

impl Adaptive {
    /// A policy whose first queries are `seeds` (tried in order while nothing was downloaded).
    pub fn new(seeds: Vec<String>) -> Adaptive {
        Adaptive {
            stats: QueryStats::new(),
            seeds,
            seed_pos: 0,
            issued: HashSet::new(),
            estimator: Estimator::Independence,
            cost: Cost::default(),
            cap: None,
            predicted: HashMap::new(),
            lp_num: 0.0,
            lp_den: 0.0,
        }
    }

    /// Seeded from the example page: its terms, most frequent first (ties: earlier first).
    pub fn from_page(example: &Page) -> Adaptive {
        Adaptive::new(frequent_terms(example))
    }

    /// Uses `estimator` for `P(q)`.
    pub fn with_estimator(mut self, estimator: Estimator) -> Adaptive {
        self.estimator = estimator;
        self
    }

    /// Uses `cost` for the efficiency.
    pub fn with_cost(mut self, cost: Cost) -> Adaptive {
        self.cost = cost;
        self
    }

    /// The site returns at most `cap` results per query.
    pub fn with_result_cap(mut self, cap: usize) -> Adaptive {
        self.cap = Some(cap);
        self
    }

    /// The query statistics table.
    pub fn stats(&self) -> &QueryStats {
        &self.stats
    }

    /// The estimated site size `N̂` in documents.
    pub fn site_size(&self) -> f64 {
        let d = self.stats.docs();
        if self.lp_den > 0.0 {
            (self.lp_num / self.lp_den).max(d)
        } else {
            2.0 * d
        }
    }

    /// The estimates for every candidate term (not yet issued, in the table), best first.
    pub fn estimates(&self) -> Vec<Estimate> {
        let d = self.stats.docs();
        if d <= 0.0 {
            return Vec::new();
        }
        let n_hat = self.site_size();
        let mut cands: Vec<(&str, f64)> = self
            .stats
            .terms()
            .filter(|(t, _)| !self.issued.contains(*t))
            .collect();
        cands.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let zipf = match self.estimator {
            Estimator::Zipf => {
                let mut all: Vec<f64> = self.stats.terms().map(|(_, n)| n).collect();
                all.sort_by(|a, b| b.total_cmp(a));
                ZipfFit::fit(&all).map(|z| (z, all))
            }
            Estimator::Independence => None,
        };
        let mut out: Vec<Estimate> = cands
            .into_iter()
            .map(|(t, df)| {
                let sample_f = match &zipf {
                    Some((z, all)) => {
                        // Rank of df among all table terms (1-based, first of its ties).
                        let rank = all.partition_point(|&x| x > df) + 1;
                        z.at(rank as f64)
                    }
                    None => df,
                };
                let matches = n_hat * sample_f / d;
                let mut new = (matches - df).max(0.0);
                // A capped site returns a random `cap` of the matches: that share of the new.
                if let Some(cap) = self.cap
                    && matches > cap as f64
                {
                    new *= cap as f64 / matches;
                }
                let cost = self.cost.of(matches, new);
                let efficiency = if cost > 0.0 { new / cost } else { 0.0 };
                Estimate {
                    term: t.to_string(),
                    matches,
                    new,
                    efficiency,
                }
            })
            .collect();
        // Efficiencies equal to 9 digits are ties (under independence every capped query has
        // the same estimate): the larger estimated match set, then the smaller term, wins.
        let top = out.iter().map(|e| e.efficiency).fold(0.0f64, f64::max);
        let level = |e: f64| {
            if top > 0.0 {
                (e / top * 1e9).round() as i64
            } else {
                0
            }
        };
        out.sort_by(|a, b| {
            level(b.efficiency)
                .cmp(&level(a.efficiency))
                .then_with(|| b.matches.total_cmp(&a.matches))
                .then_with(|| a.term.cmp(&b.term))
        });
        out
    }

    /// Records `docs` as the results of `query`, with the site's reported number of matches
    /// when it gives one (used for the capped-results correction).
    pub fn observe_with_total(&mut self, query: &str, docs: &[DocTerms], total: Option<u64>) {
        self.issued.insert(query.to_string());
        let returned = {
            let mut ids = HashSet::new();
            docs.iter().filter(|d| ids.insert(d.id.as_str())).count()
        };
        let before = self.stats.docs();
        let overlap = docs.iter().filter(|d| self.stats.contains(&d.id)).count();
        if before > 0.0 && returned > 0 {
            self.lp_num += before * returned as f64;
            self.lp_den += overlap as f64;
        }
        let capped =
            self.cap.is_some_and(|c| returned >= c) || total.is_some_and(|t| t as usize > returned);
        let weight = if capped && returned > 0 {
            let predicted = self.predicted.get(query).copied().unwrap_or(0.0);
            let matches = match total {
                Some(t) => t as f64,
                None => predicted,
            };
            (matches / returned as f64).max(1.0)
        } else {
            1.0
        };
        for d in docs {
            self.stats.add_weighted(d, weight);
        }
    }
}

impl Policy for Adaptive {
    fn next(&mut self) -> Option<String> {
        if self.stats.distinct() == 0 {
            while let Some(s) = self.seeds.get(self.seed_pos) {
                self.seed_pos += 1;
                if !self.issued.contains(s) {
                    return Some(s.clone());
                }
            }
            return None;
        }
        let best = self.estimates().into_iter().next()?;
        self.predicted.insert(best.term.clone(), best.matches);
        Some(best.term)
    }

    fn observe(&mut self, query: &str, docs: &[DocTerms]) {
        Adaptive::observe_with_total(self, query, docs, None);
    }

    fn observe_with_total(&mut self, query: &str, docs: &[DocTerms], total: Option<u64>) {
        Adaptive::observe_with_total(self, query, docs, total);
    }
}

/// The terms of `page`, most frequent first (ties: earlier first): the adaptive policy's first
/// queries.
pub fn frequent_terms(page: &Page) -> Vec<String> {
    let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
    for (pos, t) in page.terms().iter().enumerate() {
        count.entry(t).or_insert((0, pos)).0 += 1;
    }
    let mut ranked: Vec<(&str, usize, usize)> =
        count.into_iter().map(|(t, (c, p))| (t, c, p)).collect();
    ranked.sort_by_key(|&(_, c, p)| (std::cmp::Reverse(c), p));
    ranked.into_iter().map(|(t, ..)| t.to_string()).collect()
}

/// Whether `term` is worth querying: what [`terms`] keeps (lower-case, a letter, not a stop
/// word).
pub fn is_query_term(term: &str) -> bool {
    !is_stop_word(term) && terms(term).first().map(String::as_str) == Some(term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: usize, ts: &[&str]) -> DocTerms {
        DocTerms {
            id: format!("d{id}"),
            terms: ts.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn xorshift_is_deterministic_and_bounded() {
        let mut a = XorShift::new(7);
        let mut b = XorShift::new(7);
        for _ in 0..100 {
            let x = a.below(10);
            assert_eq!(x, b.below(10));
            assert!(x < 10);
        }
        assert_eq!(XorShift::new(0).below(0), 0);
    }

    #[test]
    fn zipf_fit_recovers_parameters() {
        let f: Vec<f64> = (1..=200)
            .map(|r| 1000.0 * (r as f64 + 2.0).powf(-1.1))
            .collect();
        let z = ZipfFit::fit(&f).expect("fits");
        assert_eq!(z.beta, 2.0);
        assert!((z.gamma - 1.1).abs() < 1e-9, "{z:?}");
        assert!((z.alpha - 1000.0).abs() < 1e-6, "{z:?}");
        assert!(ZipfFit::fit(&[1.0]).is_none());
    }

    #[test]
    fn random_terms_draw_without_repeats() {
        let mut r = RandomTerms::from_words(vec!["a".into(), "b".into(), "c".into()], 3);
        let mut got: Vec<String> = std::iter::from_fn(|| r.next()).collect();
        got.sort();
        assert_eq!(got, ["a", "b", "c"]);
    }

    #[test]
    fn frequency_list_is_ordered_and_filtered() {
        let l = frequency_list();
        assert!(l.len() > 10_000);
        assert!(l.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(l.iter().all(|(w, _)| !is_stop_word(w)));
        assert!(generic_frequency("time") > generic_frequency("cozy"));
        assert!(is_query_term("model") && !is_query_term("the"));
    }

    #[test]
    fn reported_totals_reach_the_adaptive_policy_through_the_trait() {
        let docs: Vec<DocTerms> = (0..20).map(|i| doc(i, &["a", "b"])).collect();
        let mut p: Box<dyn Policy> = Box::new(Adaptive::new(vec!["a".into()]).with_result_cap(20));
        assert_eq!(p.next().as_deref(), Some("a"));
        p.observe_with_total("a", &docs, Some(60));
        let mut a = Adaptive::new(vec!["a".into()]).with_result_cap(20);
        a.observe_with_total("a", &docs, Some(60));
        // 20 returned of 60 reported: each new document stands for 3 in the table.
        assert_eq!(a.stats().docs(), 60.0);
        assert_eq!(p.next(), a.next());
        let mut t: Box<dyn Policy> = Box::new(TermList::new(vec!["x".into()]));
        t.observe_with_total("x", &docs, Some(60));
        assert_eq!(t.next().as_deref(), Some("x"));
    }

    #[test]
    fn adaptive_seeds_then_greedy() {
        let mut a = Adaptive::new(vec!["x".into(), "y".into()]);
        assert_eq!(a.next().as_deref(), Some("x"));
        a.observe("x", &[]);
        assert_eq!(a.next().as_deref(), Some("y"));
        a.observe("y", &[doc(1, &["y", "b", "c"]), doc(2, &["y", "c"])]);
        assert_eq!(a.next().as_deref(), Some("c"));
    }
}
