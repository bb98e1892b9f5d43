//! The signs of a listing page mapping records for the review ([`crate::review::listing`]):
//! here the page-kind model's word, read once a page is parsed; the other sign, a page that
//! pages on, comes from [`crate::continuation`] where the mapper reads the page's links.
use crate::dom::Page;
use crate::map::SiteMap;

/// Records the signs of the fetched page `node`: the model's word ([`listing`]), and whether it
/// pages on (`pages_on`: it has a "Next" or page-number link, [`crate::continuation`]).
pub(super) fn record(map: &mut SiteMap, node: u32, page: &Page, pages_on: bool) {
    if listing(page) {
        map.listings.insert(node);
    }
    if pages_on {
        map.paged.insert(node);
    }
}

/// The least probability of "index" at which the page-kind model's word that a page is a
/// listing is recorded ([`crate::map::SiteMap::listings`]): its index pages are right 89% of
/// the time on the real web (docs/reports/classifier-web.md), its confident ones more often,
/// and a target wrongly flagged costs the user a question.
pub const LISTING_CONFIDENCE: f64 = 0.75;

/// Whether the page-kind model calls `page` a listing page, with at least
/// [`LISTING_CONFIDENCE`].
pub fn listing(page: &Page) -> bool {
    let Ok(model) = exemplar_classify::shipped_model() else {
        return false;
    };
    // P(index) first; at 0.75 or more it is the most probable kind.
    let (p, _) = model.probabilities(&exemplar_classify::features::extract(page));
    p.first().is_some_and(|&p| p >= LISTING_CONFIDENCE)
}
