//! What the seeds look like, and how alike another page is ([`Profile`]): the seeds' structure
//! (RTDM to each seed page, under the default view, URLs ignored: another site's pages live
//! elsewhere) and their words (a centroid of their term vectors), and the words a search for
//! more of them is made of.
//!
//! Contract: a page's [`Profile::score`] is in [0, 1]: `structure_weight × structure +
//! (1 − structure_weight) × words`, where structure is the best RTDM score (similarity × kind
//! agreement) to a seed and words the cosine of its term vector with the seeds' centroid.
//! [`Profile::query_terms`] ranks terms by how many seed sites use them, then by weight, so that
//! a query names what the sites share, not one site's name.
use std::collections::{BTreeMap, BTreeSet};

use crate::dom::Page;
use crate::similarity::{Example, Options};

/// Seed pages compared by structure at most (the first ones).
const MAX_EXAMPLES: usize = 6;
/// Terms a vector keeps (its heaviest).
const MAX_TERMS: usize = 300;

/// A page's terms, weighted (log tf), unit length.
pub type Vector = BTreeMap<String, f64>;

/// The seeds, prepared for scoring pages.
pub struct Profile {
    examples: Vec<Example>,
    centroid: Vector,
    /// Per term: the seed sites whose pages use it.
    sites_of: BTreeMap<String, BTreeSet<String>>,
    structure_weight: f64,
}

/// The term vector of a page: title and heading count three times, then the body text.
pub fn vector(page: &Page) -> Vector {
    let mut tf: BTreeMap<String, f64> = BTreeMap::new();
    for (text, w) in [(&page.title, 3.0), (&page.heading, 3.0)] {
        crate::dom::text::for_each_term(text, |t| *tf.entry(t.to_string()).or_default() += w);
    }
    for t in page.terms().iter() {
        if t.len() <= 30 {
            *tf.entry(t.to_string()).or_default() += 1.0;
        }
    }
    let mut v: Vec<(String, f64)> = tf.into_iter().map(|(t, n)| (t, 1.0 + n.ln())).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(MAX_TERMS);
    normalise(v.into_iter().collect())
}

fn normalise(mut v: Vector) -> Vector {
    let n = v.values().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 {
        v.values_mut().for_each(|x| *x /= n);
    }
    v
}

/// The cosine of two unit vectors.
pub fn cosine(a: &Vector, b: &Vector) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .filter_map(|(t, x)| large.get(t).map(|y| x * y))
        .sum::<f64>()
        .clamp(0.0, 1.0)
}

impl Profile {
    /// The profile of seed pages, each with its site's key.
    pub fn new(seeds: &[(String, &Page)], structure_weight: f64) -> Profile {
        let options = Options {
            place_weight: 0.0,
            ..Options::default()
        };
        let examples = seeds
            .iter()
            .take(MAX_EXAMPLES)
            .map(|(_, p)| Example::from_tree(&p.tree, options))
            .collect();
        let mut sum: Vector = BTreeMap::new();
        let mut sites_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (site, page) in seeds {
            for (t, x) in vector(page) {
                *sum.entry(t.clone()).or_default() += x;
                sites_of.entry(t).or_default().insert(site.clone());
            }
        }
        Profile {
            examples,
            centroid: normalise(sum),
            sites_of,
            structure_weight: structure_weight.clamp(0.0, 1.0),
        }
    }

    /// How alike a page is to the seeds, in [0, 1], and its parts (structure, words).
    pub fn score(&mut self, page: &Page) -> (f64, f64, f64) {
        let structure = self
            .examples
            .iter_mut()
            .map(|e| e.compare(page).score)
            .fold(0.0, f64::max);
        let words = cosine(&vector(page), &self.centroid);
        let w = self.structure_weight;
        (w * structure + (1.0 - w) * words, structure, words)
    }

    /// Terms for queries, best first: used on the most seed sites, then heaviest; terms of
    /// digits and punctuation only are left out.
    pub fn query_terms(&self, n: usize) -> Vec<String> {
        let mut terms: Vec<(&String, usize, f64)> = self
            .centroid
            .iter()
            .filter(|(t, _)| t.chars().any(char::is_alphabetic) && t.chars().count() >= 3)
            .map(|(t, w)| (t, self.sites_of.get(t).map_or(0, BTreeSet::len), *w))
            .collect();
        terms.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then(b.2.total_cmp(&a.2))
                .then_with(|| a.0.cmp(b.0))
        });
        terms
            .into_iter()
            .take(n)
            .map(|(t, _, _)| t.clone())
            .collect()
    }
}
