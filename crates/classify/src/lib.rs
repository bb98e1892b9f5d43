//! Page kinds: is a page an **index** (listing) page, an **entity** (detail) page or **other**,
//! decided from the page alone, with no example (design §7).
//!
//! Owns the public answer ([`Kind`], [`Evidence`], [`Classification`], [`classify`]) and the
//! loading of the shipped model. The parts:
//! - [`features`]: the fixed, documented feature vector of a page;
//! - [`model`]: softmax regression, its training, the gated mixture the shipped file holds, and
//!   their JSON form.
//!
//! The training and its evaluations are lab code (`exemplar-eval`'s `classify_train` and
//! `web_classify`). The model is `data/classifier.json`, compiled in with `include_str!` and
//! parsed once. A model that does not load (garbled, or trained for other features) never
//! panics: pages are then classified [`Kind::Other`] with confidence 0 and one evidence entry
//! saying why.
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use exemplar_html::Page;

pub mod features;
pub mod model;

use model::{Mixture, Model};

/// A page's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Lists links to many entity pages.
    Index,
    /// Describes one entity.
    Entity,
    /// Anything else.
    Other,
}

impl Kind {
    /// The three kinds, in the model's class order.
    pub const ALL: [Kind; 3] = [Kind::Index, Kind::Entity, Kind::Other];

    /// Lower-case name (`index`, `entity`, `other`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Index => "index",
            Kind::Entity => "entity",
            Kind::Other => "other",
        }
    }

    /// The kind in a user's words ("an item page"), as the popup says it.
    pub fn in_words(self) -> &'static str {
        match self {
            Kind::Index => "a listing page",
            Kind::Entity => "an item page",
            Kind::Other => "neither an item nor a listing page",
        }
    }
}

/// A feature's part in a decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Feature name (see [`features::NAMES`]).
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

/// Evidence entries returned by [`classify`].
pub const EVIDENCE: usize = 6;

/// The feature name of the evidence entry given when the model is unavailable.
pub const MODEL_UNAVAILABLE: &str = "model unavailable";

/// The shipped model text.
const MODEL_JSON: &str = include_str!("../../../data/classifier.json");

/// Parses a model file and checks it was trained for this build's features.
///
/// # Errors
/// When the text is not a valid mixture or its feature names differ from [`features::NAMES`].
pub fn load_model(text: &str) -> Result<Mixture, String> {
    let m = Mixture::from_json(text)?;
    check_expert(&m.experts[0])?;
    Ok(m)
}

/// Whether a page-kind model reads this build's features and gives the three kinds in order.
///
/// # Errors
/// When it does not.
pub fn check_expert(m: &Model) -> Result<(), String> {
    if m.features
        .iter()
        .map(String::as_str)
        .ne(features::NAMES.iter().copied())
    {
        return Err("the model was trained for other features; retrain it".into());
    }
    if m.classes
        .iter()
        .map(String::as_str)
        .ne(Kind::ALL.map(Kind::name))
    {
        return Err("the model's classes are not index, entity, other".into());
    }
    Ok(())
}

/// The shipped model, parsed once.
///
/// # Errors
/// When `data/classifier.json` does not load (see [`load_model`]).
pub fn shipped_model() -> Result<&'static Mixture, &'static str> {
    static MODEL: OnceLock<Result<Mixture, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| load_model(MODEL_JSON))
        .as_ref()
        .map_err(String::as_str)
}

/// Classifies a page with the shipped model.
pub fn classify(page: &Page) -> Classification {
    match shipped_model() {
        Ok(m) => classify_with(m, page),
        Err(e) => unavailable(e),
    }
}

/// Below this confidence the popup says the answer is unsure ([`summary`]).
pub const UNSURE: f64 = 0.6;

/// The page's evidence in words, for people (the extension's popup): whether the classifier is
/// unsure, what the page declares itself ("declares schema.org Product", "declares Open Graph
/// type article"), whether it links a next or previous page, the largest group of links sharing
/// a path ("links to 48 pages under /imoveis/"), prices, images, forms.
///
/// `c` is the page's classification ([`classify`]), which callers have already made.
pub fn summary(page: &Page, c: &Classification) -> Vec<String> {
    let mut out = Vec::new();
    if c.confidence < UNSURE {
        out.push(format!(
            "unsure: {:.0}% likely {}",
            c.confidence * 100.0,
            c.kind.in_words()
        ));
    }
    out.extend(declared_in_words(page));
    out.extend(counts_in_words(page));
    out
}

/// What the page declares about itself, in words: the types that say a kind, then pagination.
fn declared_in_words(page: &Page) -> Vec<String> {
    let mut out = Vec::new();
    for name in page
        .declares
        .iter()
        .filter_map(|d| features::declared_name(d))
    {
        if let Some(t) = name.strip_prefix("schema:") {
            out.push(format!("declares schema.org {t}"));
        } else if let Some(t) = name.strip_prefix("og:") {
            out.push(format!("declares Open Graph type {t}"));
        }
    }
    if page.declares.iter().any(|d| d.starts_with("rel:")) {
        out.push("links a next or previous page".to_string());
    }
    out
}

/// Links, prices, images and forms in words.
fn counts_in_words(page: &Page) -> Vec<String> {
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut out = Vec::new();
    let (prefix, group) = features::largest_prefix_group(page);
    let links = page.same_site_links().count();
    if group >= 2 {
        out.push(format!(
            "links to {} under {prefix}",
            plural(group, "page", "pages")
        ));
    }
    out.push(format!("{} on this site", plural(links, "link", "links")));
    out.push(plural(page.price_count(), "price", "prices"));
    out.push(plural(page.image_count, "image", "images"));
    if !page.forms.is_empty() {
        out.push(plural(page.forms.len(), "form", "forms"));
    }
    out
}

/// The answer when no model is available: `Other`, confidence 0, the reason as evidence.
fn unavailable(reason: &str) -> Classification {
    Classification {
        kind: Kind::Other,
        confidence: 0.0,
        evidence: vec![Evidence {
            feature: format!("{MODEL_UNAVAILABLE}: {reason}"),
            value: 0.0,
            contribution: 0.0,
        }],
    }
}

/// Classifies a page with a given model (one loaded with [`load_model`]).
pub fn classify_with(model: &Mixture, page: &Page) -> Classification {
    let x = features::extract(page);
    classify_features(model, &x)
}

/// Classifies a feature vector (from [`features::extract`]).
pub fn classify_features(model: &Mixture, x: &[f64]) -> Classification {
    if x.len() != model.gate.dim() {
        return unavailable("feature vector and model differ in length");
    }
    let (c, p, e) = model.predict(x);
    // The evidence is the trusted expert's: its contributions explain its vote. (A mixture
    // built by hand may lack it or have other classes: no panic, the fallback answer.)
    let (Some(expert), Some(&kind)) = (model.experts.get(e), Kind::ALL.get(c)) else {
        return unavailable("the model's experts do not match its gate or the kinds");
    };
    let contrib = expert.contributions(x, c);
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| {
        contrib[b]
            .abs()
            .total_cmp(&contrib[a].abs())
            .then(a.cmp(&b))
    });
    let evidence = order
        .into_iter()
        .take(EVIDENCE)
        .map(|j| Evidence {
            feature: expert.features[j].clone(),
            value: x[j],
            contribution: contrib[j],
        })
        .collect();
    Classification {
        kind,
        confidence: p,
        evidence,
    }
}

/// Two plain synthetic pages of a small shop every shipped model must get right (the unit tests
/// check it, and the feature selection keeps only feature sets whose model does): a product
/// listing (`index`) and a product page (`entity`).
pub fn sanity_pages() -> Vec<(Page, Kind)> {
    [
        (sanity_listing(), Kind::Index),
        (sanity_detail(), Kind::Entity),
    ]
    .into_iter()
    .filter_map(|(page, kind)| Some((page?, kind)))
    .collect()
}

/// A listing: 30 products in a list, short anchors, one link each.
fn sanity_listing() -> Option<Page> {
    let mut html = String::from(
        "<html><head><title>All products - Shop</title></head><body>\
         <nav><a href='/'>Home</a> <a href='/about'>About</a></nav><h1>Products</h1><ul>",
    );
    for i in 0..30 {
        html.push_str(&format!(
            "<li class=item><a href='/product/{i}-lamp'>Lamp {i}</a> <span>$ {i}0.00</span></li>"
        ));
    }
    html.push_str("</ul><a href='/products?page=2'>Next</a></body></html>");
    Page::from_html(&html, "http://shop.example/products").ok()
}

/// A detail page: one product described in paragraphs.
fn sanity_detail() -> Option<Page> {
    let mut html = String::from(
        "<html><head><title>Brass lamp 42 - Shop</title></head><body>\
         <nav><a href='/'>Home</a> <a href='/about'>About</a> <a href='/products'>Products</a></nav>\
         <h1>Brass lamp</h1><img src=a.jpg><img src=b.jpg><p>Price: $ 120.00</p>",
    );
    for i in 0..8 {
        html.push_str(&format!(
            "<h2>Section {i}</h2><p>This lamp is made of brass and gives a warm light; \
             it stands forty centimetres tall and weighs two kilos. Paragraph {i}.</p>"
        ));
    }
    html.push_str("<a href='/product/43-lamp'>Similar lamp</a></body></html>");
    Page::from_html(&html, "http://shop.example/product/42-brass-lamp").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str, url: &str) -> Page {
        Page::from_html(html, url).unwrap()
    }

    #[test]
    fn summary_says_what_the_page_links_to_in_words() {
        let shop = listing();
        let s = summary(&shop, &classify(&shop));
        assert!(
            s.contains(&"links to 30 pages under /product/".to_string()),
            "{s:?}"
        );
        assert!(s.contains(&"30 prices".to_string()), "{s:?}");
        assert!(s.contains(&"33 links on this site".to_string()), "{s:?}");
        let one = page("<a href='/x/1'>one</a><img src=a.png>", "http://shop.test/");
        assert_eq!(
            counts_in_words(&one),
            ["1 link on this site", "0 prices", "1 image"],
            "no group of one"
        );
    }

    #[test]
    fn summary_says_what_the_page_declares_and_when_it_is_unsure() {
        let p = page(
            r#"<head><meta property="og:type" content="article"><link rel=next href=2>
            <script type="application/ld+json">{"@type":"NewsArticle"}</script>
            <script type="application/ld+json">{"@type":"Organization"}</script></head>
            <body><h1>A headline of six words here</h1><p>text</p></body>"#,
            "http://news.test/2015/03/a-headline/",
        );
        let s = summary(&p, &classify(&p));
        for want in [
            "declares schema.org NewsArticle",
            "declares Open Graph type article",
            "links a next or previous page",
        ] {
            assert!(s.contains(&want.to_string()), "{want}: {s:?}");
        }
        assert!(!s.iter().any(|w| w.contains("Organization")), "{s:?}");
        let c = classify(&p);
        assert_eq!(
            s.iter().any(|w| w.starts_with("unsure:")),
            c.confidence < UNSURE,
            "{s:?} {c:?}"
        );
        let empty = page("<p></p>", "http://e.test/");
        let at = |confidence| Classification {
            kind: Kind::Other,
            confidence,
            evidence: Vec::new(),
        };
        assert_eq!(
            summary(&empty, &at(0.4))[0],
            "unsure: 40% likely neither an item nor a listing page"
        );
        assert!(
            !summary(&empty, &at(0.9))
                .iter()
                .any(|w| w.starts_with("unsure"))
        );
    }

    fn listing() -> Page {
        sanity_pages().swap_remove(0).0
    }

    fn detail() -> Page {
        sanity_pages().swap_remove(1).0
    }

    #[test]
    fn the_shipped_model_loads() {
        let m = shipped_model().unwrap();
        assert_eq!(m.gate.dim(), features::COUNT);
        assert_eq!(m.experts[1].classes, Kind::ALL.map(Kind::name));
    }

    #[test]
    fn a_listing_is_an_index_and_a_detail_page_an_entity() {
        let c = classify(&listing());
        assert_eq!(c.kind, Kind::Index, "{c:?}");
        assert!(c.confidence > 0.5 && c.confidence <= 1.0);
        assert_eq!(c.evidence.len(), EVIDENCE);
        assert!(c.evidence[0].contribution.abs() >= c.evidence[1].contribution.abs());
        let c = classify(&detail());
        assert_eq!(c.kind, Kind::Entity, "{c:?}");
    }

    #[test]
    fn a_garbled_model_gives_a_fallback_not_a_panic() {
        assert!(load_model("{not json").is_err());
        let mut m = shipped_model().unwrap().clone();
        m.experts[0].features.swap(0, 1);
        assert!(load_model(&m.to_json()).is_err());
        let c = unavailable("x");
        assert_eq!((c.kind, c.confidence), (Kind::Other, 0.0));
        assert!(c.evidence[0].feature.starts_with(MODEL_UNAVAILABLE));
        let short = classify_features(shipped_model().unwrap(), &[1.0]);
        assert_eq!(short.confidence, 0.0);
        let mut lone = shipped_model().unwrap().clone();
        lone.experts.truncate(0);
        let c = classify_features(&lone, &features::extract(&listing()));
        assert_eq!((c.kind, c.confidence), (Kind::Other, 0.0), "{c:?}");
    }
}
