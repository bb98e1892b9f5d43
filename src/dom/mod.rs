//! Page model: HTML bytes → a [`Page`] (structural [`Tree`] plus links, forms, text terms, counts).
pub mod tree;
pub use tree::{Label, NodeId, Tree, TreeError};
