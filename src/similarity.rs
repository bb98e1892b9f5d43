//! Page similarity as the product uses it: which view of the tree RTDM compares, and the
//! threshold θ above which a page is "like the example".
//!
//! Owns the defaults, chosen by measurement on the development sites (`./build.sh
//! eval-similarity`, table in `docs/similarity.md`), and the *template view*: plain RTDM is strict
//! on content-heavy pages (two same-template pages with different numbers of repeated blocks are
//! far apart), so before comparing, runs of sibling subtrees with the same label are collapsed to
//! one. Does not own the distance itself ([`crate::rtdm`]).

use serde::{Deserialize, Serialize};

use crate::dom::{Label, NodeId, Page, Tree};
use crate::rtdm::{self, Comparison, Prepared};

/// How repeated siblings are collapsed in the template view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Collapse {
    /// Compare the full tree.
    None,
    /// Keep only the first of each run of consecutive siblings with the same label.
    Consecutive,
    /// Keep only the first sibling of each label.
    All,
    /// Merge siblings with the same label into one node whose children are the union of
    /// theirs, recursively: the tree of distinct label paths (a DataGuide), in first-seen order.
    Merge,
}

/// Which view of a page's tree is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct View {
    /// Repeated-sibling collapsing.
    pub collapse: Collapse,
    /// Drop nodes deeper than this (root depth 0); `None` keeps all.
    pub max_depth: Option<u32>,
    /// Keep `#text` nodes.
    pub text: bool,
    /// Compare tag-plus-class labels (`div.refentry`) instead of tag names, where the tree
    /// has them ([`Tree::class_labels`]).
    pub classes: bool,
}

impl Default for View {
    fn default() -> Self {
        View {
            collapse: Collapse::Merge,
            max_depth: None,
            text: true,
            classes: true,
        }
    }
}

impl View {
    /// The full tree, as published RTDM compares it.
    pub const FULL: View = View {
        collapse: Collapse::None,
        max_depth: None,
        text: true,
        classes: false,
    };

    /// Applies the view to a tree (identity for [`View::FULL`]). Iterative; keeps preorder.
    pub fn apply(&self, tree: &Tree) -> Tree {
        if *self == View::FULL {
            return tree.clone();
        }
        if self.collapse == Collapse::Merge {
            return self.merged(tree);
        }
        let mut labels: Vec<Label> = Vec::with_capacity(tree.len());
        let mut parents: Vec<Option<NodeId>> = Vec::with_capacity(tree.len());
        let mut names: Vec<(Label, String)> = Vec::new();
        // (source node, parent in the output)
        let mut stack: Vec<(NodeId, Option<NodeId>)> = vec![(tree.root(), None)];
        let mut kept: Vec<NodeId> = Vec::new();
        let fine = self.classes && tree.class_labels().len() == tree.len();
        let label_of = |n: NodeId| {
            if fine {
                tree.class_labels()[n as usize]
            } else {
                tree.label(n)
            }
        };
        while let Some((node, parent)) = stack.pop() {
            let out = labels.len() as NodeId;
            let label = label_of(node);
            labels.push(label);
            parents.push(parent);
            if label != Label::TEXT {
                names.push((label, tree.label_name(label).to_string()));
            }
            if self.max_depth.is_some_and(|d| tree.depth(node) >= d) {
                continue;
            }
            kept.clear();
            let mut prev: Option<Label> = None;
            let mut seen: Vec<Label> = Vec::new();
            for c in tree.children(node) {
                let l = label_of(c);
                if !self.text && l == Label::TEXT {
                    continue;
                }
                let keep = match self.collapse {
                    Collapse::None | Collapse::Merge => true,
                    Collapse::Consecutive => prev != Some(l),
                    Collapse::All => !seen.contains(&l),
                };
                prev = Some(l);
                if keep {
                    seen.push(l);
                    kept.push(c);
                }
            }
            // Push in reverse so children pop in document order.
            stack.extend(kept.iter().rev().map(|&c| (c, Some(out))));
        }
        names.sort();
        names.dedup();
        match Tree::from_preorder(labels, &parents, names) {
            Ok(t) => t,
            // Unreachable: the walk emits a preorder by construction.
            Err(_) => tree.clone(),
        }
    }
}

impl View {
    fn label_of(&self, tree: &Tree, n: NodeId) -> Label {
        if self.classes && tree.class_labels().len() == tree.len() {
            tree.class_labels()[n as usize]
        } else {
            tree.label(n)
        }
    }

    /// The label-path trie of `tree` (see [`Collapse::Merge`]).
    fn merged(&self, tree: &Tree) -> Tree {
        use std::collections::HashMap;
        // Trie nodes: label, children in first-seen order.
        let mut labels: Vec<Label> = vec![self.label_of(tree, 0)];
        let mut kids: Vec<Vec<u32>> = vec![Vec::new()];
        let mut index: HashMap<(u32, Label), u32> = HashMap::new();
        // trie node of each source node (preorder: parents come first)
        let mut trie_of: Vec<u32> = vec![0; tree.len()];
        for n in 1..tree.len() as NodeId {
            let Some(p) = tree.parent(n) else { continue };
            if self.max_depth.is_some_and(|d| tree.depth(n) > d) {
                trie_of[n as usize] = u32::MAX;
                continue;
            }
            let pt = trie_of[p as usize];
            let l = self.label_of(tree, n);
            if pt == u32::MAX || (!self.text && l == Label::TEXT) {
                trie_of[n as usize] = u32::MAX;
                continue;
            }
            let t = *index.entry((pt, l)).or_insert_with(|| {
                labels.push(l);
                kids.push(Vec::new());
                let id = (labels.len() - 1) as u32;
                kids[pt as usize].push(id);
                id
            });
            trie_of[n as usize] = t;
        }
        // Emit the trie in preorder.
        let mut out_labels = Vec::with_capacity(labels.len());
        let mut parents: Vec<Option<NodeId>> = Vec::with_capacity(labels.len());
        let mut stack: Vec<(u32, Option<NodeId>)> = vec![(0, None)];
        while let Some((t, parent)) = stack.pop() {
            let out = out_labels.len() as NodeId;
            out_labels.push(labels[t as usize]);
            parents.push(parent);
            stack.extend(kids[t as usize].iter().rev().map(|&c| (c, Some(out))));
        }
        let mut names: Vec<(Label, String)> = out_labels
            .iter()
            .filter(|l| **l != Label::TEXT)
            .map(|&l| (l, tree.label_name(l).to_string()))
            .collect();
        names.sort();
        names.dedup();
        Tree::from_preorder(out_labels, &parents, names).unwrap_or_else(|_| tree.clone())
    }
}

/// Similarity settings a user can change.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// θ: pages with similarity ≥ θ to the example are targets.
    pub threshold: f64,
    /// The view of the trees RTDM compares.
    pub view: View,
}

/// The default θ, chosen from the development sites' figures (`docs/similarity.md`).
pub const DEFAULT_THRESHOLD: f64 = 0.8;

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: DEFAULT_THRESHOLD,
            view: View::default(),
        }
    }
}

impl Options {
    /// Checks user-supplied options.
    ///
    /// # Errors
    /// When θ is not a number in [0, 1].
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!(
                "threshold must be in [0, 1], got {}",
                self.threshold
            ));
        }
        Ok(())
    }
}

/// Result of comparing a page with an example, under the options' view and θ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Distance, similarity and view sizes.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// `similarity >= threshold`.
    pub similar: bool,
    /// The θ applied.
    pub threshold: f64,
}

/// An example page prepared once for comparisons with many pages.
pub struct Example {
    prepared: Prepared,
    options: Options,
    rtdm: rtdm::Rtdm,
}

impl Example {
    /// Prepares the example's tree under the options' view.
    pub fn new(page: &Page, options: Options) -> Example {
        Example::from_tree(&page.tree, options)
    }

    /// Prepares an example from a tree.
    pub fn from_tree(tree: &Tree, options: Options) -> Example {
        Example {
            prepared: Prepared::new(options.view.apply(tree)),
            options,
            rtdm: rtdm::Rtdm::new(),
        }
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Size of the example's view.
    pub fn size(&self) -> u32 {
        self.prepared.tree().len() as u32
    }

    /// Prepares a page's view for comparisons with this example.
    pub fn prepare(&self, page: &Page) -> Prepared {
        Prepared::new(self.options.view.apply(&page.tree))
    }

    /// Exact comparison with a page.
    pub fn compare(&mut self, page: &Page) -> Verdict {
        let other = self.prepare(page);
        self.compare_prepared(&other)
    }

    /// Exact comparison with a prepared page.
    pub fn compare_prepared(&mut self, other: &Prepared) -> Verdict {
        let comparison = self.rtdm.compare(&self.prepared, other);
        Verdict {
            similar: comparison.similarity >= self.options.threshold,
            threshold: self.options.threshold,
            comparison,
        }
    }

    /// Whether a page is similar to the example (decision mode: stops as soon as known).
    pub fn is_similar(&mut self, page: &Page) -> bool {
        let other = self.prepare(page);
        self.rtdm
            .is_similar(&self.prepared, &other, self.options.threshold)
    }
}

/// Compares two pages under `options` (prepares both; use [`Example`] for one-to-many).
pub fn compare_pages(a: &Page, b: &Page, options: &Options) -> Verdict {
    Example::new(a, *options).compare(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Tree {
        Tree::parse_shape(s).unwrap()
    }

    #[test]
    fn consecutive_collapse_keeps_first_of_each_run() {
        let v = View::default();
        let out = v.apply(&t("ul(li(a) li(a b) li p li)"));
        assert_eq!(out.outline(), "ul\n  li\n    a\n  p\n  li\n");
    }

    #[test]
    fn collapse_all_depth_and_text_options() {
        let v = View {
            collapse: Collapse::All,
            max_depth: Some(1),
            text: false,
            classes: false,
        };
        let out = v.apply(&t("body(div(p) #text div span(b) #text)"));
        assert_eq!(out.outline(), "body\n  div\n  span\n");
        assert_eq!(View::FULL.apply(&t("a(b b)")).len(), 3);
    }

    #[test]
    fn collapsed_view_makes_pages_with_more_items_alike() {
        let a = t("html(body(h1 ul(li(a) li(a) li(a))))");
        let b = t("html(body(h1 ul(li(a) li(a) li(a) li(a) li(a) li(a) li(a) li(a))))");
        let full = rtdm::similarity(&a, &b);
        let collapsed = rtdm::similarity(&View::default().apply(&a), &View::default().apply(&b));
        assert!(full < 0.8, "{full}");
        assert_eq!(collapsed, 1.0);
    }

    #[test]
    fn options_validate_threshold() {
        assert!(Options::default().validate().is_ok());
        assert!(
            Options {
                threshold: 1.5,
                ..Options::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            Options {
                threshold: f64::NAN,
                ..Options::default()
            }
            .validate()
            .is_err()
        );
    }
}
