//! html5ever's tree-builder sink: a mutable, index-based arena (`Vec<RawNode>`, `u32` handles).
//!
//! Owns only what the HTML tree-construction algorithm needs (re-parenting, foster parenting,
//! text merging, form association). [`crate::page`] turns the result into the compact
//! preorder [`crate::Tree`] and the page's links, forms and text. Every method takes `&self`
//! (html5ever's contract) and mutates through a `RefCell`.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::sync::LazyLock;

use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, Namespace, QualName, local_name};

/// "No node" in the arena's links.
pub(crate) const NIL: u32 = u32::MAX;

/// What an arena node is.
pub(crate) enum RawData {
    Document,
    Element {
        name: QualName,
        attrs: Vec<Attribute>,
        /// The template contents fragment of a `<template>` (not part of the page tree).
        template: u32,
    },
    Text(StrTendril),
    /// Comments, doctypes and processing instructions: kept only so html5ever's handles stay
    /// valid; never attached to the output tree.
    Other,
}

/// One arena node with doubly-linked sibling lists (html5ever inserts before siblings and
/// re-parents runs of children, which a child `Vec` would make quadratic).
pub(crate) struct RawNode {
    pub parent: u32,
    pub first_child: u32,
    pub last_child: u32,
    pub prev: u32,
    pub next: u32,
    pub data: RawData,
}

/// The sink. `finish` hands back the arena, the form-owner associations and whether the node
/// cap was hit.
pub(crate) struct Sink {
    nodes: RefCell<Vec<RawNode>>,
    /// (control, form) pairs reported through `associate_with_form`.
    form_owners: RefCell<Vec<(u32, u32)>>,
    max_nodes: usize,
    overflow: Cell<bool>,
}

/// What parsing produced.
pub(crate) struct Arena {
    pub nodes: Vec<RawNode>,
    pub form_owners: Vec<(u32, u32)>,
    pub overflow: bool,
}

/// The name answered for a handle that is not an element (html5ever only asks for elements').
fn no_name() -> &'static QualName {
    static NO_NAME: LazyLock<QualName> =
        LazyLock::new(|| QualName::new(None, Namespace::from(""), LocalName::from("")));
    &NO_NAME
}

/// Source bytes per arena node assumed when sizing the arena: the median of PostgreSQL's and
/// Python's documentation pages is about 30 bytes per node of the page tree, and the arena
/// also holds whitespace and comments. Growing by doubling from empty copied the arena about
/// a dozen times per page.
const BYTES_PER_NODE: usize = 32;

/// The most nodes reserved ahead (about 20 MB of arena); a larger page grows past it.
const MAX_RESERVED_NODES: usize = 1 << 18;

impl Sink {
    /// A sink for a document of `bytes` bytes: the arena is sized for it.
    pub fn for_source(max_nodes: usize, bytes: usize) -> Sink {
        let doc = RawNode {
            parent: NIL,
            first_child: NIL,
            last_child: NIL,
            prev: NIL,
            next: NIL,
            data: RawData::Document,
        };
        let mut nodes = Vec::with_capacity(
            (bytes / BYTES_PER_NODE)
                .min(MAX_RESERVED_NODES)
                .min(max_nodes)
                .max(1),
        );
        nodes.push(doc);
        Sink {
            nodes: RefCell::new(nodes),
            form_owners: RefCell::new(Vec::new()),
            max_nodes,
            overflow: Cell::new(false),
        }
    }

    fn push(&self, data: RawData) -> u32 {
        let mut nodes = self.nodes.borrow_mut();
        if nodes.len() >= self.max_nodes {
            // Keep handing out valid handles (html5ever needs them) but remember the page is
            // over the cap; the caller turns that into an error.
            self.overflow.set(true);
        }
        nodes.push(RawNode {
            parent: NIL,
            first_child: NIL,
            last_child: NIL,
            prev: NIL,
            next: NIL,
            data,
        });
        (nodes.len() - 1) as u32
    }

    fn detach(nodes: &mut [RawNode], id: u32) {
        let (parent, prev, next) = {
            let n = &nodes[id as usize];
            (n.parent, n.prev, n.next)
        };
        if parent == NIL {
            return;
        }
        if prev != NIL {
            nodes[prev as usize].next = next;
        } else {
            nodes[parent as usize].first_child = next;
        }
        if next != NIL {
            nodes[next as usize].prev = prev;
        } else {
            nodes[parent as usize].last_child = prev;
        }
        let n = &mut nodes[id as usize];
        n.parent = NIL;
        n.prev = NIL;
        n.next = NIL;
    }

    fn append_child(nodes: &mut [RawNode], parent: u32, child: u32) {
        Self::detach(nodes, child);
        let last = nodes[parent as usize].last_child;
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = last;
            c.next = NIL;
        }
        if last != NIL {
            nodes[last as usize].next = child;
        } else {
            nodes[parent as usize].first_child = child;
        }
        nodes[parent as usize].last_child = child;
    }

    fn insert_before(nodes: &mut [RawNode], sibling: u32, child: u32) {
        Self::detach(nodes, child);
        let (parent, prev) = {
            let s = &nodes[sibling as usize];
            (s.parent, s.prev)
        };
        if parent == NIL {
            return;
        }
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = prev;
            c.next = sibling;
        }
        if prev != NIL {
            nodes[prev as usize].next = child;
        } else {
            nodes[parent as usize].first_child = child;
        }
        nodes[sibling as usize].prev = child;
    }

    /// Appends text to `prev` when it is a text node (html5ever asks sinks to merge), else
    /// returns the text back.
    fn merge_text(nodes: &mut [RawNode], prev: u32, text: StrTendril) -> Option<StrTendril> {
        if prev != NIL
            && let RawData::Text(t) = &mut nodes[prev as usize].data
        {
            t.push_tendril(&text);
            return None;
        }
        Some(text)
    }
}

impl TreeSink for Sink {
    type Handle = u32;
    type Output = Arena;
    /// A borrow of the arena, not a copy: the tree builder asks for names all the time (each
    /// scope check walks the open elements), and cloning two atoms per answer, then dropping
    /// them, was about 3% of mapping's CPU. html5ever 0.40 holds a name only inside an
    /// expression or block that calls no sink method (it scopes them for such `RefCell` sinks;
    /// markup5ever implements `ElemName` for `Ref<QualName>` for them), so the `borrow_mut` of
    /// the next tree mutation never meets it; a violation would be a `BorrowMutError` panic,
    /// which the parse and differential fuzz targets look for.
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Arena {
        Arena {
            nodes: self.nodes.into_inner(),
            form_owners: self.form_owners.into_inner(),
            overflow: self.overflow.get(),
        }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> u32 {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a u32) -> Ref<'a, QualName> {
        Ref::map(self.nodes.borrow(), |nodes| {
            match nodes.get(*target as usize).map(|n| &n.data) {
                Some(RawData::Element { name, .. }) => name,
                // html5ever only asks for element names; an empty name is a harmless answer.
                _ => no_name(),
            }
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> u32 {
        let template = if flags.template {
            self.push(RawData::Document)
        } else {
            NIL
        };
        self.push(RawData::Element {
            name,
            attrs,
            template,
        })
    }

    fn create_comment(&self, _text: StrTendril) -> u32 {
        self.push(RawData::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> u32 {
        self.push(RawData::Other)
    }

    fn append(&self, parent: &u32, child: NodeOrText<u32>) {
        let mut nodes = self.nodes.borrow_mut();
        let id = match child {
            NodeOrText::AppendNode(n) => n,
            NodeOrText::AppendText(text) => {
                let last = nodes[*parent as usize].last_child;
                let Some(text) = Self::merge_text(&mut nodes, last, text) else {
                    return;
                };
                drop(nodes);
                let id = self.push(RawData::Text(text));
                nodes = self.nodes.borrow_mut();
                id
            }
        };
        Self::append_child(&mut nodes, *parent, id);
    }

    fn append_based_on_parent_node(
        &self,
        element: &u32,
        prev_element: &u32,
        child: NodeOrText<u32>,
    ) {
        let has_parent = self.nodes.borrow()[*element as usize].parent != NIL;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &u32) -> u32 {
        match &self.nodes.borrow()[*target as usize].data {
            RawData::Element { template, .. } if *template != NIL => *template,
            // Not a template: html5ever promises not to ask; answer the node itself.
            _ => *target,
        }
    }

    fn same_node(&self, x: &u32, y: &u32) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &u32, child: NodeOrText<u32>) {
        let mut nodes = self.nodes.borrow_mut();
        let id = match child {
            NodeOrText::AppendNode(n) => n,
            NodeOrText::AppendText(text) => {
                let prev = nodes[*sibling as usize].prev;
                let Some(text) = Self::merge_text(&mut nodes, prev, text) else {
                    return;
                };
                drop(nodes);
                let id = self.push(RawData::Text(text));
                nodes = self.nodes.borrow_mut();
                id
            }
        };
        Self::insert_before(&mut nodes, *sibling, id);
    }

    fn add_attrs_if_missing(&self, target: &u32, new: Vec<Attribute>) {
        if let RawData::Element { attrs, .. } = &mut self.nodes.borrow_mut()[*target as usize].data
        {
            for a in new {
                if !attrs.iter().any(|e| e.name == a.name) {
                    attrs.push(a);
                }
            }
        }
    }

    fn associate_with_form(&self, target: &u32, form: &u32, _nodes: (&u32, Option<&u32>)) {
        self.form_owners.borrow_mut().push((*target, *form));
    }

    fn remove_from_parent(&self, target: &u32) {
        Self::detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &u32, new_parent: &u32) {
        let mut nodes = self.nodes.borrow_mut();
        let mut c = nodes[*node as usize].first_child;
        while c != NIL {
            let next = nodes[c as usize].next;
            Self::append_child(&mut nodes, *new_parent, c);
            c = next;
        }
    }
}

/// Bounds the nesting html5ever's tree builder sees.
///
/// The tree builder's scope checks walk its stack of open elements, so a document nested
/// 100,000 levels deep costs O(depth²) (minutes). This token filter counts nesting from start
/// and end tags (void elements, elements whose end tag is optional and raw-text elements do not
/// count, so unclosed `<p>`/`<li>`/`<td>` never trip it) and drops start tags past `cap`; their
/// content still arrives, as children of the deepest kept element. Browsers stop nesting at 512
/// levels too (Blink), and [`crate::page`] flattens past its own `max_depth` anyway.
pub(crate) struct DepthGuard<S> {
    pub inner: S,
    depth: Cell<u32>,
    cap: u32,
}

impl<S> DepthGuard<S> {
    pub fn new(inner: S, cap: u32) -> Self {
        DepthGuard {
            inner,
            depth: Cell::new(0),
            cap,
        }
    }
}

fn counts_for_depth(name: &LocalName) -> bool {
    !matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
            | local_name!("param")
            | local_name!("keygen")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("frame")
            | local_name!("p")
            | local_name!("li")
            | local_name!("dt")
            | local_name!("dd")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("option")
            | local_name!("optgroup")
            | local_name!("tbody")
            | local_name!("thead")
            | local_name!("tfoot")
            | local_name!("colgroup")
            | local_name!("caption")
            | local_name!("rb")
            | local_name!("rt")
            | local_name!("rp")
            | local_name!("rtc")
            | local_name!("html")
            | local_name!("head")
            | local_name!("body")
            | local_name!("script")
            | local_name!("style")
            | local_name!("textarea")
            | local_name!("title")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("plaintext")
    )
}

impl<S: html5ever::tokenizer::TokenSink> html5ever::tokenizer::TokenSink for DepthGuard<S> {
    type Handle = S::Handle;

    fn process_token(
        &self,
        token: html5ever::tokenizer::Token,
        line_number: u64,
    ) -> html5ever::tokenizer::TokenSinkResult<S::Handle> {
        use html5ever::tokenizer::{TagKind, Token};
        if let Token::TagToken(tag) = &token
            && !tag.self_closing
            && counts_for_depth(&tag.name)
        {
            match tag.kind {
                TagKind::StartTag => {
                    if self.depth.get() >= self.cap {
                        return html5ever::tokenizer::TokenSinkResult::Continue;
                    }
                    self.depth.set(self.depth.get() + 1);
                }
                TagKind::EndTag => self.depth.set(self.depth.get().saturating_sub(1)),
            }
        }
        self.inner.process_token(token, line_number)
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
