//! A page's elements as a read-only tree: tags, attributes and text, for reading what a page
//! holds (its fields), where the page model ([`crate::Page`]) keeps only what mapping needs.
//!
//! Built from the same parse as [`crate::Page`] (the fast builder, else html5ever's), bounded the
//! same way ([`ParseOptions`]). Element and attribute names are lower case; comments, doctypes
//! and `<template>` contents are left out; text is kept as the document has it (whitespace
//! too), script and style text included — [`Document::text`] skips them.
//!
//! # Example
//! ```
//! use exemplar_html::dom::Document;
//! let doc = Document::parse("<p class='price'>£ 12.50</p><script>x()</script>")?;
//! let p = doc.elements().find(|&e| doc.tag(e) == "p").expect("a p");
//! assert_eq!(doc.attr(p, "class"), Some("price"));
//! assert_eq!(doc.text(p), "£ 12.50");
//! # Ok::<(), exemplar_html::Error>(())
//! ```
use crate::page::{Error, ParseOptions, parse_html};
use crate::sink::{NIL, RawData};

/// One node: an element or a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Data {
    /// An element: its lower-case tag name and attributes, in document order.
    Element {
        /// Tag name.
        tag: String,
        /// `(name, value)` pairs.
        attrs: Vec<(String, String)>,
    },
    /// A text node.
    Text(String),
}

/// A node of a [`Document`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its parent (None for the root element).
    pub parent: Option<u32>,
    /// Its children, in document order.
    pub children: Vec<u32>,
    /// What it is.
    pub data: Data,
}

/// A parsed page's elements. Node 0 is the root element (`html`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    nodes: Vec<Node>,
}

/// Elements whose text is no visible text of the page.
const HIDDEN_TEXT: [&str; 5] = ["script", "style", "template", "noscript", "head"];

impl Document {
    /// Parses `html` with the default [`ParseOptions`].
    ///
    /// # Errors
    /// A document past the options' byte or node limits.
    pub fn parse(html: &str) -> Result<Document, Error> {
        Document::parse_with(html, &ParseOptions::default())
    }

    /// Parses `html` within `opts`' limits.
    ///
    /// # Errors
    /// A document past the byte or node limits.
    pub fn parse_with(html: &str, opts: &ParseOptions) -> Result<Document, Error> {
        if html.len() > opts.max_bytes {
            return Err(Error::too_large(html.len(), opts.max_bytes));
        }
        let arena = parse_html(html, opts);
        if arena.overflow {
            return Err(Error::too_many_nodes(opts.max_nodes));
        }
        let mut doc = Document {
            nodes: Vec::with_capacity(arena.nodes.len() / 2),
        };
        // The document node's element children (the `html` element, which the parser always
        // makes), each copied with its subtree; iteratively: pages nest deeply.
        let mut stack: Vec<(u32, Option<u32>)> = Vec::new();
        let mut c = arena.nodes.first().map_or(NIL, |n| n.first_child);
        let mut tops = Vec::new();
        while c != NIL {
            tops.push(c);
            c = arena.nodes[c as usize].next;
        }
        for &t in tops.iter().rev() {
            stack.push((t, None));
        }
        while let Some((raw, parent)) = stack.pop() {
            let node = &arena.nodes[raw as usize];
            let data = match &node.data {
                RawData::Element { name, attrs, .. } => Data::Element {
                    tag: name.local.to_string().to_ascii_lowercase(),
                    attrs: attrs
                        .iter()
                        .map(|a| {
                            (
                                a.name.local.to_string().to_ascii_lowercase(),
                                a.value.to_string(),
                            )
                        })
                        .collect(),
                },
                RawData::Text(t) => Data::Text(t.to_string()),
                RawData::Document | RawData::Other => continue,
            };
            let id = doc.nodes.len() as u32;
            let element = matches!(data, Data::Element { .. });
            doc.nodes.push(Node {
                parent,
                children: Vec::new(),
                data,
            });
            if let Some(p) = parent {
                doc.nodes[p as usize].children.push(id);
            }
            if element {
                let mut kids = Vec::new();
                let mut c = node.first_child;
                while c != NIL {
                    kids.push(c);
                    c = arena.nodes[c as usize].next;
                }
                for &k in kids.iter().rev() {
                    stack.push((k, Some(id)));
                }
            }
        }
        Ok(doc)
    }

    /// Nodes, elements and texts.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether it has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node `id`.
    ///
    /// # Panics
    /// When `id` is not a node of this document.
    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    /// The elements, in document order.
    pub fn elements(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.nodes.len() as u32)
            .filter(|&i| matches!(self.nodes[i as usize].data, Data::Element { .. }))
    }

    /// An element's tag ("" for a text).
    pub fn tag(&self, id: u32) -> &str {
        match &self.nodes[id as usize].data {
            Data::Element { tag, .. } => tag,
            Data::Text(_) => "",
        }
    }

    /// An element's attribute `name` (lower case).
    pub fn attr(&self, id: u32, name: &str) -> Option<&str> {
        match &self.nodes[id as usize].data {
            Data::Element { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str()),
            Data::Text(_) => None,
        }
    }

    /// An element's class tokens.
    pub fn classes(&self, id: u32) -> impl Iterator<Item = &str> {
        self.attr(id, "class")
            .unwrap_or("")
            .split_ascii_whitespace()
    }

    /// The element children of `id`.
    pub fn child_elements(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        self.nodes[id as usize]
            .children
            .iter()
            .copied()
            .filter(|&c| matches!(self.nodes[c as usize].data, Data::Element { .. }))
    }

    /// The visible text under `id` (scripts, styles and templates left out), whitespace
    /// collapsed.
    pub fn text(&self, id: u32) -> String {
        let mut out = String::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            match &self.nodes[n as usize].data {
                Data::Text(t) => push_collapsed(&mut out, t),
                Data::Element { tag, .. } if HIDDEN_TEXT.contains(&tag.as_str()) && n != id => {}
                Data::Element { .. } => {
                    stack.extend(self.nodes[n as usize].children.iter().rev());
                }
            }
        }
        out
    }

    /// The text nodes directly under `id`, joined, whitespace collapsed.
    pub fn own_text(&self, id: u32) -> String {
        let mut out = String::new();
        for &c in &self.nodes[id as usize].children {
            if let Data::Text(t) = &self.nodes[c as usize].data {
                push_collapsed(&mut out, t);
            }
        }
        out
    }

    /// The raw text of an element's children (a script's source), as written.
    pub fn raw_text(&self, id: u32) -> String {
        self.nodes[id as usize]
            .children
            .iter()
            .filter_map(|&c| match &self.nodes[c as usize].data {
                Data::Text(t) => Some(t.as_str()),
                Data::Element { .. } => None,
            })
            .collect()
    }
}

/// Appends `t` with runs of whitespace as one space, no space at the start or doubled.
fn push_collapsed(out: &mut String, t: &str) {
    for word in t.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_attributes_and_text_in_order() {
        let doc = Document::parse(
            "<!doctype html><title>T</title><div id=a class='x y'><b>one</b> two <!-- c -->\
             <script>var s = '<p>';</script><template><i>t</i></template></div>",
        )
        .expect("parses");
        let tags: Vec<&str> = doc.elements().map(|e| doc.tag(e)).collect();
        assert_eq!(
            tags,
            [
                "html", "head", "title", "body", "div", "b", "script", "template"
            ]
        );
        let div = doc.elements().find(|&e| doc.tag(e) == "div").expect("div");
        assert_eq!(doc.classes(div).collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(doc.attr(div, "id"), Some("a"));
        assert_eq!(doc.text(div), "one two");
        assert_eq!(doc.own_text(div), "two");
        let script = doc
            .elements()
            .find(|&e| doc.tag(e) == "script")
            .expect("script");
        assert_eq!(doc.raw_text(script), "var s = '<p>';");
        assert_eq!(doc.node(div).parent.map(|p| doc.tag(p)), Some("body"));
    }

    #[test]
    fn limits_are_errors() {
        let opts = ParseOptions {
            max_bytes: 10,
            ..ParseOptions::default()
        };
        assert!(Document::parse_with("<p>far too long</p>", &opts).is_err());
        let opts = ParseOptions {
            max_nodes: 5,
            ..ParseOptions::default()
        };
        assert!(Document::parse_with(&"<p>x</p>".repeat(50), &opts).is_err());
    }
}
