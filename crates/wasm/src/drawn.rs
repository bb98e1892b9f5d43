//! Script-drawn pages for JavaScript drivers: whether the example page's rendered DOM shows
//! what its fetched HTML lacks ([`drawn_compare`]), and [`DrawnLedger`], which tells the
//! extension's pump which fetched pages to render in a background tab ([`exemplar_core::drawn`]).
use wasm_bindgen::prelude::*;

use super::{error, to_js};
use exemplar_core::drawn::{self, Difference, Ledger};
use exemplar_html::{Page, ParseOptions};

/// How a rendered page differs from its fetched HTML, for JavaScript.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Compared {
    matters: bool,
    summary: String,
    links_added: usize,
    text_fetched: usize,
    text_rendered: usize,
}

fn compare(
    url: &str,
    fetched: &[u8],
    content_type: Option<String>,
    rendered: &str,
) -> Result<Difference, js_sys::Error> {
    let opts = ParseOptions::default();
    let before = Page::parse(fetched, url, content_type.as_deref(), &opts).map_err(error)?;
    let after = Page::from_html_with(rendered, url, &opts).map_err(error)?;
    Ok(drawn::compare(&before, &after))
}

/// Compares a page as fetched (`fetched` bytes, their `Content-Type`) with the same page as the
/// browser drew it (`rendered`, its `outerHTML`): `{matters, summary, linksAdded, textFetched,
/// textRendered}`. Throws when either is too large or the URL is not absolute.
#[wasm_bindgen(js_name = drawnCompare, unchecked_return_type = "DrawnComparison")]
pub fn drawn_compare(
    url: &str,
    fetched: &[u8],
    #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
    rendered: &str,
) -> Result<JsValue, js_sys::Error> {
    let d = compare(url, fetched, content_type, rendered)?;
    to_js(&Compared {
        matters: d.matters(),
        summary: d.summary(),
        links_added: d.links_added,
        text_fetched: d.text_fetched,
        text_rendered: d.text_rendered,
    })
}

/// What a "load more" button says (`data/load-more-words.txt`): the words the extension's
/// rendering presses such a button by.
#[wasm_bindgen(js_name = loadMoreWords)]
pub fn load_more_words() -> Vec<String> {
    drawn::load_more_words()
        .into_iter()
        .map(String::from)
        .collect()
}

/// Whether `html` has a script that runs (a page without one is the same rendered).
#[wasm_bindgen(js_name = mayBeDrawn)]
pub fn may_be_drawn(html: &[u8]) -> bool {
    drawn::may_be_drawn(html)
}

/// Which fetched pages of a run are rendered: those with a script that runs, of URL shapes
/// whose renders have changed something (three that changed nothing stop a shape's renders).
#[wasm_bindgen]
pub struct DrawnLedger {
    inner: Ledger,
}

impl Default for DrawnLedger {
    fn default() -> Self {
        DrawnLedger::new()
    }
}

#[wasm_bindgen]
impl DrawnLedger {
    /// An empty ledger.
    #[wasm_bindgen(constructor)]
    pub fn new() -> DrawnLedger {
        DrawnLedger {
            inner: Ledger::new(),
        }
    }

    /// Whether the page at `url`, fetched as `body`, should be rendered.
    pub fn wants(&self, url: &str, body: &[u8]) -> bool {
        self.inner.wants(url, body)
    }

    /// Records a render of `url`: whether it showed what the fetched page lacks. A page that
    /// does not parse counts as unchanged; a page of a shape whose renders changed something
    /// already is not compared (true).
    pub fn record(
        &mut self,
        url: &str,
        fetched: &[u8],
        #[wasm_bindgen(js_name = contentType)] content_type: Option<String>,
        rendered: &str,
    ) -> bool {
        if self.inner.settled(url) {
            return true;
        }
        let d = compare(url, fetched, content_type, rendered).unwrap_or_default();
        self.inner.record(url, &d);
        d.matters()
    }

    /// The URL shapes no longer rendered (probed, never changed).
    #[wasm_bindgen(js_name = fetchedOnly)]
    pub fn fetched_only(&self) -> Vec<String> {
        self.inner.fetched_only()
    }
}
