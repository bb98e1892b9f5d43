//! What the seeds look like, and how alike another page is ([`Profile`]): the seeds' structure
//! (RTDM to each seed page, under the default view, URLs ignored: another site's pages live
//! elsewhere), their markup (a centroid of the class names their elements carry: a generator
//! marks a kind's parts the same way under any theme, Sphinx's `py function` and `sig-name`,
//! javadoc's `member-signature`) and their words (a centroid of their term vectors), and the
//! words a search for more of them is made of.
//!
//! Contract: a page's [`Profile::score`] is in [0, 1]: `structure_weight × structure +
//! markup_weight × markup + (1 − structure_weight − markup_weight) × words`, where structure
//! is the best RTDM score (similarity × kind agreement) to a seed, markup the cosine of its
//! class-name vector with the seeds' centroid, and words the cosine of its term vector with the
//! seeds' centroid.
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
    markup: Vector,
    structure_weight: f64,
    markup_weight: f64,
}

/// The class names on a page's elements, weighted (log tf), unit length: the template's marks.
pub fn markup(page: &Page) -> Vector {
    let tree = &page.tree;
    let mut tf: BTreeMap<&str, f64> = BTreeMap::new();
    for &label in tree.class_labels() {
        // `tag.class.class`: the classes only.
        for c in tree.label_name(label).split('.').skip(1) {
            if !c.is_empty() && c.len() <= 40 {
                *tf.entry(c).or_default() += 1.0;
            }
        }
    }
    normalise(
        tf.into_iter()
            .map(|(t, n)| (t.to_string(), 1.0 + n.ln()))
            .collect(),
    )
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
    /// The profile of seed pages, each with its site's key; the weights are clamped so that
    /// they and words' share are in [0, 1].
    pub fn new(seeds: &[(String, &Page)], structure_weight: f64, markup_weight: f64) -> Profile {
        let options = Options {
            place_weight: 0.0,
            ..Options::default()
        };
        let examples = seeds
            .iter()
            .take(MAX_EXAMPLES)
            .map(|(_, p)| Example::from_tree(&p.tree, options))
            .collect();
        let mut marks: Vector = BTreeMap::new();
        for (_, page) in seeds {
            for (t, x) in markup(page) {
                *marks.entry(t).or_default() += x;
            }
        }
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
            markup: normalise(marks),
            structure_weight: structure_weight.clamp(0.0, 1.0),
            markup_weight: markup_weight.clamp(0.0, 1.0 - structure_weight.clamp(0.0, 1.0)),
        }
    }

    /// How alike a page is to the seeds, in [0, 1], and its parts (structure, markup, words).
    pub fn score(&mut self, page: &Page) -> (f64, f64, f64, f64) {
        let structure = self
            .examples
            .iter_mut()
            .map(|e| e.compare(page).score)
            .fold(0.0, f64::max);
        let words = cosine(&vector(page), &self.centroid);
        let marks = if self.markup_weight > 0.0 {
            cosine(&markup(page), &self.markup)
        } else {
            0.0
        };
        let (s, m) = (self.structure_weight, self.markup_weight);
        (
            s * structure + m * marks + (1.0 - s - m) * words,
            structure,
            marks,
            words,
        )
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
