//! The page model: HTML bytes → a [`Page`]: the structural [`Tree`] RTDM compares, plus links, forms,
//! visible-text terms, image and price counts.
//!
//! # Example
//! ```
//! use exemplar_html::Page;
//! let page = Page::from_html(
//!     "<title>Casa</title><p>R$ 300.000</p><a href='/imovel/2#fotos'>Next</a>",
//!     "http://example.com/imovel/1",
//! )?;
//! assert_eq!(page.title, "Casa");
//! assert_eq!(page.links[0].url, "http://example.com/imovel/2");
//! assert_eq!(page.price_count(), 1);
//! assert_eq!(page.tree.outline(), "html\n  head\n    title\n      #text\n  body\n    p\n      #text\n    a\n      #text\n");
//! # Ok::<(), exemplar_html::Error>(())
//! ```
mod builder;
pub mod dom;
pub mod language;
mod page;
mod sink;
pub mod text;
mod tokenizer;
#[cfg(any(test, feature = "tokenizer-diff"))]
pub mod tokenizer_diff;
pub mod tree;

pub use page::{
    Control, ControlKind, Error, Form, Link, MetaRobots, Page, ParseOptions, site_host,
};
pub use tree::{Label, NodeId, Tree, TreeError};
