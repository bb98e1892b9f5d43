//! Page kinds: index / entity / other for one page, with no example. (Being written.)
use serde::{Deserialize, Serialize};

use crate::dom::Page;

#[cfg(not(target_arch = "wasm32"))]
pub mod train;

/// A page's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Lists links to many entity pages.
    Index,
    /// Describes one entity.
    Entity,
    /// Anything else.
    Other,
}

/// A feature's part in a decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Feature name.
    pub feature: String,
    /// Its value on the page.
    pub value: f64,
    /// Its contribution to the winning kind's score.
    pub contribution: f64,
}

/// The classifier's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    /// The kind.
    pub kind: Kind,
    /// Probability of the kind, in [0, 1].
    pub confidence: f64,
    /// The features that decided, strongest first.
    pub evidence: Vec<Evidence>,
}

/// Classifies a page.
pub fn classify(_page: &Page) -> Classification {
    Classification {
        kind: Kind::Other,
        confidence: 0.0,
        evidence: Vec::new(),
    }
}
