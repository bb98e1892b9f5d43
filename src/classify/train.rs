//! Training and leave-one-site-out evaluation of the page-kind model. (Being written.)
use std::path::Path;

use crate::devsites::DevSite;

/// Trains the model on the development sites, writes the weights and the report.
///
/// # Errors
/// Always, for now.
pub fn run(_sites: &[DevSite], _model: &Path, _report: &Path) -> Result<(), String> {
    Err("not yet".into())
}
