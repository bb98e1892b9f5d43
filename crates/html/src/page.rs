//! A parsed page: the structural [`Tree`] plus what the rest of the core reads off a page — final
//! URL, `<base>`, title, meta robots, links, forms and their controls, visible-text terms, image
//! and price counts.
//!
//! Why this file is long (~2,050 lines, tests apart): one walk over the tree gathers everything a
//! page yields (links, forms, text, headings, kinds, languages), and its state is shared by all of
//! it; splitting the walk would pass that state between files.
//!
//! Owns the walk from html5ever's arena to these products. Every walk is iterative: a
//! 100,000-level-deep document cannot overflow the stack. Like Blink (which stops nesting at 512
//! levels), nodes deeper than [`ParseOptions::max_depth`] are attached to their ancestor at that
//! depth, so the tree stays as deep as a browser's DOM would.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use html5ever::interface::TreeSink;
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, local_name, ns};
use serde::{Deserialize, Serialize};
use url::Url;

use super::builder::{FastBuilder, is_heading};
use super::sink::{Arena, DepthGuard, NIL, RawData, RawNode, Sink};
use super::text;
use super::tokenizer::tokenize;
use super::tree::{Label, MAX_ID_PREFIX_LEN, NodeId, Tree};
use exemplar_url::hash::{FxHashMap, FxHashSet};

/// Limits applied while parsing untrusted pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParseOptions {
    /// Largest body accepted, in bytes (default 16 MiB). Larger bodies are an error, not a crash.
    pub max_bytes: usize,
    /// Largest number of parsed nodes (default 2,000,000).
    pub max_nodes: usize,
    /// Depth past which nodes are flattened onto their ancestor at this depth (default 512, as
    /// Blink).
    pub max_depth: u32,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_bytes: 16 << 20,
            max_nodes: 2_000_000,
            max_depth: 512,
        }
    }
}

/// Why a page could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ErrorKind {
    TooLarge { bytes: usize, limit: usize },
    TooManyNodes { limit: usize },
    BadUrl { url: String, reason: String },
}

impl Error {
    /// A body of `bytes` bytes, past `limit`.
    pub(crate) fn too_large(bytes: usize, limit: usize) -> Error {
        Error {
            kind: ErrorKind::TooLarge { bytes, limit },
        }
    }

    /// A document of more than `limit` nodes.
    pub(crate) fn too_many_nodes(limit: usize) -> Error {
        Error {
            kind: ErrorKind::TooManyNodes { limit },
        }
    }

    /// True when the page was rejected for its size (bytes or nodes).
    pub fn is_too_large(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::TooLarge { .. } | ErrorKind::TooManyNodes { .. }
        )
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ErrorKind::TooLarge { bytes, limit } => write!(
                f,
                "page too large: {bytes} bytes, the limit is {limit} bytes (ParseOptions::max_bytes)"
            ),
            ErrorKind::TooManyNodes { limit } => write!(
                f,
                "page too large: more than {limit} nodes (ParseOptions::max_nodes)"
            ),
            ErrorKind::BadUrl { url, reason } => write!(f, "invalid page URL {url:?}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

/// A link found on a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// Absolute URL (resolved against `<base>` / the page URL), fragment dropped. Only http(s).
    pub url: String,
    /// Anchor text, whitespace collapsed (for `<img alt>`-only anchors, the alt text).
    pub text: String,
    /// The `<a>`/`<area>` element in the page's tree (`<meta>` for a refresh to another URL).
    pub node: NodeId,
    /// `rel` contains `nofollow`.
    pub nofollow: bool,
}

/// Kind of a form control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ControlKind {
    /// `<input type=text|search>` and unknown input types (the HTML default).
    Text,
    /// `<textarea>`.
    TextArea,
    /// `<input type=password>`.
    Password,
    /// `<input type=email>`.
    Email,
    /// `<input type=hidden>`.
    Hidden,
    /// `<input type=number|range>`.
    Number,
    /// `<input type=date|datetime-local|month|week|time>`.
    Date,
    /// `<select>`.
    Select,
    /// `<input type=radio>`.
    Radio,
    /// `<input type=checkbox>`.
    Checkbox,
    /// `<input type=submit>`, `<button type=submit>` (the default button type).
    Submit,
    /// `<input type=image>`: a submit button that sends the click's coordinates
    /// (`name.x=…&name.y=…`) instead of a value.
    Image,
    /// `<button type=button|reset>`, `<input type=button|reset>`.
    Button,
    /// `<input type=file>`.
    File,
    /// Any other input type (`tel`, `url`, `color`).
    Other,
}

impl ControlKind {
    /// A control that submits its form when activated ([`ControlKind::Submit`] or
    /// [`ControlKind::Image`]).
    pub fn is_submit(self) -> bool {
        matches!(self, ControlKind::Submit | ControlKind::Image)
    }
}

/// A form control.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Control {
    /// What the control is.
    pub kind: ControlKind,
    /// The `name` attribute ("" when absent: such controls are not submitted).
    pub name: String,
    /// The `id` attribute.
    pub id: String,
    /// The initial `value` (for a select, the selected option's value).
    pub value: String,
    /// For a select: every option value (an option without `value` uses its text).
    pub options: Vec<String>,
    /// `checked` (radio/checkbox) or `selected` (select) initially.
    pub checked: bool,
    /// A `<select multiple>`: it sends every selected option (none when none is).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
    /// For a select: the values of the options marked `selected`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// `disabled`: the control is not submitted.
    #[serde(default)]
    pub disabled: bool,
    /// Label text: `<label for>`, an enclosing `<label>`, the nearest preceding text in the
    /// form, `aria-label`/`placeholder`/`title`, or the name.
    pub label: String,
    /// Index of the owning form in [`Page::forms`] (`form` attribute, html5ever's form
    /// association, or the enclosing `<form>`).
    pub form: Option<usize>,
    /// The control's element in the page's tree.
    pub node: NodeId,
}

/// A form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Form {
    /// Absolute action URL (the page URL when empty or absent).
    pub action: String,
    /// `get` or `post` (lower case; `dialog` and unknown values fall back to `get`).
    pub method: String,
    /// The `enctype` attribute (default `application/x-www-form-urlencoded`).
    pub enctype: String,
    /// `name` attribute.
    pub name: String,
    /// `id` attribute.
    pub id: String,
    /// No `action` attribute, or an empty one: the form submits to the page it is on.
    #[serde(default)]
    pub no_action: bool,
    /// Has an `onsubmit` handler or a `javascript:` action (submits through script).
    pub scripted: bool,
    /// Indices into [`Page::controls`] of this form's controls, in document order.
    pub controls: Vec<usize>,
    /// The `<form>` element in the page's tree.
    pub node: NodeId,
}

/// The `<meta name=robots>` directives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaRobots {
    /// `noindex` (or `none`).
    pub noindex: bool,
    /// `nofollow` (or `none`).
    pub nofollow: bool,
}

/// A parsed page. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The page's final URL (after redirects), as given by the caller, normalised.
    pub url: String,
    /// The URL links resolve against: `<base href>` resolved against `url`, else `url`.
    pub base: String,
    /// The charset the body was decoded with.
    pub encoding: String,
    /// Structure for RTDM.
    pub tree: Tree,
    /// `<title>` text, whitespace collapsed.
    pub title: String,
    /// The page's main heading: the text of its first `h1`, else of the first element whose
    /// class names a title (`title`, `page-title`, `entry_heading`: Doxygen's `div.title`, which
    /// many templates use instead of `h1`; DocBook's `refentrytitle`), text nodes joined by a
    /// space, whitespace collapsed, at most 300 bytes; empty when there is neither. Generators
    /// write the page's kind into it ("sf::Texture Class Reference"), see `exemplar_core::review::heading`.
    #[serde(default)]
    pub heading: String,
    /// The language the page declares (`<html lang>`, else `xml:lang`, else `<meta
    /// http-equiv="content-language">`, else — given by the fetcher, [`Page::header_language`]
    /// — its response's `Content-Language`), as a lower-case tag (`en`, `pt-br`); empty when it
    /// declares none or no well-formed tag ([`crate::language`]).
    #[serde(default)]
    pub lang: String,
    /// The page's declared canonical URL: the head's first `<link rel="canonical" href>`,
    /// resolved as links are (fragment dropped), when it is an http(s) URL. What the site says
    /// is the page's own address wherever it is served from (tracking parameters, a category
    /// path, a mirror's pages naming the original).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// `<meta name=robots>` directives.
    pub robots: MetaRobots,
    /// http(s) links of `<a href>` and `<area href>`, in document order.
    pub links: Vec<Link>,
    /// http(s) URLs of external scripts (`<script src>`), fragment dropped, deduplicated, in
    /// document order: navigation a page builds with script (`exemplar_core::script_links`).
    pub scripts: Vec<String>,
    /// Forms in document order.
    pub forms: Vec<Form>,
    /// Every form control (including those of no form), in document order.
    pub controls: Vec<Control>,
    /// Visible text of the body: its text nodes joined by a space, whitespace collapsed.
    #[serde(default)]
    pub text: String,
    /// [`Page::terms`], split from `text` when first asked for: most pages are only signed
    /// ([`text::sign_words`]), and splitting every page into terms was a tenth of mapping's work.
    #[serde(skip)]
    terms: TermsOnce,
    /// Characters of visible body text (whitespace collapsed).
    pub text_chars: usize,
    /// Characters of visible text inside links.
    pub link_text_chars: usize,
    /// `<img>` elements in the body.
    pub image_count: usize,
    /// Whether an element holding much of the page carries, itself, an id naming the page after
    /// a kind prefix that is no heading's anchor (`section#module-json` on `json.html`). The
    /// tree's kind labels also take kinds from anchors (an empty element's id names its parent,
    /// [`Tree::kind_labels`]); this reads only the element's own id: Sphinx's label targets
    /// (`span#tut-classes` on `tutorial/classes.html`) name sections, not kinds of page. The
    /// page-kind classifier's `kind_id`.
    #[serde(default)]
    pub declares_kind: bool,
    /// What the page's markup says it is, lower case, sorted, at most 32 entries:
    /// `og:TYPE` from `<meta property="og:type">` (a namespaced type keeps only its last part:
    /// `zalando_sharing:product` → `og:product`); `schema:TYPE` for every schema.org type of its
    /// JSON-LD (`"@type"`) and microdata (`itemtype`); `rel:next` and `rel:prev` for a link
    /// with that relation (pagination, or a series). The page-kind classifier reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<String>,
    /// Visible text bytes of each `p` element, in document order, at most 4,096:
    /// articles are runs of long paragraphs, listings of short snippets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paragraphs: Vec<u32>,
}

/// A page's terms, split from its text once. Two pages' are equal whenever their texts are:
/// they are computed from it, whether they have been yet or not.
#[derive(Clone, Debug, Default)]
struct TermsOnce(OnceLock<text::Terms>);

impl PartialEq for TermsOnce {
    fn eq(&self, _: &TermsOnce) -> bool {
        true
    }
}

impl Page {
    /// Visible-text terms of the body in document order (lower-case, stop words removed): the
    /// words forms are filled with.
    pub fn terms(&self) -> &text::Terms {
        self.terms
            .0
            .get_or_init(|| text::Terms::of_text(&self.text))
    }

    /// Price-looking strings in the visible text.
    pub fn price_count(&self) -> usize {
        text::count_prices(&self.text)
    }

    /// Parses response bytes. `url` is the final URL (after redirects); `content_type` the HTTP
    /// header, used for its charset.
    ///
    /// # Errors
    /// When the body exceeds the limits of `opts`, or `url` is not an absolute URL.
    pub fn parse(
        bytes: &[u8],
        url: &str,
        content_type: Option<&str>,
        opts: &ParseOptions,
    ) -> Result<Page, Error> {
        if bytes.len() > opts.max_bytes {
            return Err(Error {
                kind: ErrorKind::TooLarge {
                    bytes: bytes.len(),
                    limit: opts.max_bytes,
                },
            });
        }
        let (html, encoding) = text::decode(bytes, content_type);
        Page::parse_decoded(&html, url, encoding, opts)
    }

    /// Takes the language a response's `Content-Language` header declares (one language,
    /// [`crate::language::of_header`]) when the page itself declares none: HTML's order.
    pub fn header_language(&mut self, header: Option<&str>) {
        if self.lang.is_empty()
            && let Some(lang) = header.and_then(crate::language::of_header)
        {
            self.lang = lang;
        }
    }

    /// Parses HTML text with the default options.
    ///
    /// # Errors
    /// As [`Page::parse`].
    pub fn from_html(html: &str, url: &str) -> Result<Page, Error> {
        Page::from_html_with(html, url, &ParseOptions::default())
    }

    /// Parses HTML text.
    ///
    /// # Errors
    /// As [`Page::parse`].
    pub fn from_html_with(html: &str, url: &str, opts: &ParseOptions) -> Result<Page, Error> {
        if html.len() > opts.max_bytes {
            return Err(Error {
                kind: ErrorKind::TooLarge {
                    bytes: html.len(),
                    limit: opts.max_bytes,
                },
            });
        }
        Page::parse_decoded(html, url, "UTF-8", opts)
    }

    fn parse_decoded(
        html: &str,
        url: &str,
        encoding: &str,
        opts: &ParseOptions,
    ) -> Result<Page, Error> {
        let page_url = Url::parse(url).map_err(|e| Error {
            kind: ErrorKind::BadUrl {
                url: url.chars().take(200).collect(),
                reason: e.to_string(),
            },
        })?;
        let arena = parse_html(html, opts);
        if arena.overflow {
            return Err(Error {
                kind: ErrorKind::TooManyNodes {
                    limit: opts.max_nodes,
                },
            });
        }
        Ok(Walker::new(&arena, page_url, encoding, opts.max_depth).run())
    }

    /// Number of links whose URL is on the same host as the page (www./bare treated as one).
    pub fn same_site_links(&self) -> impl Iterator<Item = &Link> {
        let host = site_host(&self.url);
        self.links
            .iter()
            .filter(move |l| host.is_some() && site_host(&l.url) == host)
    }
}

/// Runs our tokenizer ([`super::tokenizer`]) and our tree builder for the common case
/// ([`FastBuilder`]) over `html` into the arena; when the page takes a path that builder does
/// not follow, parses it again with html5ever's tree builder. Nesting is bounded (see
/// [`DepthGuard`]) at four times `max_depth`, well past where the walk flattens.
pub(crate) fn parse_html(html: &str, opts: &ParseOptions) -> Arena {
    let fast = DepthGuard::new(
        FastBuilder::new(Sink::for_source(opts.max_nodes, html.len())),
        depth_cap(opts),
    );
    tokenize(html, &fast);
    if let Some(arena) = fast.inner.finish() {
        return arena;
    }
    let guard = tree_builder(opts, html.len());
    tokenize(html, &guard);
    guard.inner.sink.finish()
}

/// The nesting [`DepthGuard`] lets through.
fn depth_cap(opts: &ParseOptions) -> u32 {
    opts.max_depth.saturating_mul(4).max(64)
}

/// The token sink chain `parse_html` feeds for a document of `bytes` bytes: depth guard, tree
/// builder, arena sink.
pub(super) fn tree_builder(
    opts: &ParseOptions,
    bytes: usize,
) -> DepthGuard<TreeBuilder<u32, Sink>> {
    let sink = Sink::for_source(opts.max_nodes, bytes);
    let builder = TreeBuilder::new(sink, TreeBuilderOpts::default());
    DepthGuard::new(builder, depth_cap(opts))
}

/// A page from an arena built elsewhere (the tokenizer's differential tests).
#[cfg(test)]
pub(super) fn page_from_arena(arena: &Arena, url: &str, opts: &ParseOptions) -> Page {
    let url = Url::parse(url).expect("test URL");
    Walker::new(arena, url, "UTF-8", opts.max_depth).run()
}

/// Host without a leading `www.`, lower-case.
pub fn site_host(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    let h = u.host_str()?.to_ascii_lowercase();
    Some(h.strip_prefix("www.").map(str::to_string).unwrap_or(h))
}

/// The finer label of an element: its tag plus up to eight sorted, lower-cased class tokens,
/// leaving out the tokens that name the page rather than a part of its template: tokens with
/// two or more consecutive digits (per-page ids such as `postid-42`; `sect1` or `nav-item-2`
/// stay), tokens that end with the page's own name ([`PageName::named_by`]: MediaWiki's
/// `page-cpp_algorithm_sort` on `sort.html`) and the taxonomy tokens of posts ([`varies`]:
/// `category-news`), which differ from page to page and, on the `body` or a post's `article`,
/// would set two pages of one template apart. Hashes the name without building it (this runs
/// for every element); returns the label and the kept tokens as ranges of `class`.
fn class_label<'c>(
    tag: &str,
    class: &'c str,
    name: &PageName,
    buf: &mut Vec<(usize, usize)>,
) -> (Label, Vec<&'c str>) {
    buf.clear();
    let base = class.as_ptr() as usize;
    for t in class.split_ascii_whitespace() {
        let digits = t
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_digit() && w[1].is_ascii_digit());
        if t.len() <= 40 && !digits && !name.named_by(t) && !varies(t) {
            let start = t.as_ptr() as usize - base;
            buf.push((start, start + t.len()));
        }
    }
    let mut tokens: Vec<&str> = buf.iter().map(|&(a, b)| &class[a..b]).collect();
    tokens.sort_unstable_by(|a, b| {
        a.bytes()
            .map(|c| c.to_ascii_lowercase())
            .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
    });
    tokens.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    tokens.truncate(8);
    let label =
        Label::of_bytes(tag.bytes().chain(
            tokens.iter().flat_map(|t| {
                std::iter::once(b'.').chain(t.bytes().map(|c| c.to_ascii_lowercase()))
            }),
        ));
    (label, tokens)
}

/// The page's name as class tokens embed it: its slug ([`page_slug`]) and the path segment
/// above it, lower-cased (`sort` and `algorithm` for `/cpp/algorithm/sort.html`).
struct PageName {
    slug: String,
    parent: String,
}

impl PageName {
    fn of(url: &Url) -> PageName {
        let parent = url
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).collect::<Vec<_>>())
            .and_then(|s| s.len().checked_sub(2).map(|i| s[i].to_ascii_lowercase()))
            .unwrap_or_default();
        PageName {
            slug: page_slug(url),
            parent,
        }
    }

    /// Whether a class token names this page rather than a part of its template: it ends with
    /// a separator and the page's slug (case-insensitive), and either the path segment above
    /// the page comes before that (`page-cpp_algorithm_sort` on `/cpp/algorithm/sort.html`,
    /// `category-news` on `/category/news/`) or its first word is one generators follow with
    /// the page's name (`data/page-naming-classes.txt`: `page-paris` on `/wiki/Paris`). A token
    /// equal to the name stays (`table` on `table.html`), and so does `flex-box` on `Box.html`:
    /// a template's word that happens to end with the page's name.
    fn named_by(&self, token: &str) -> bool {
        let (t, s) = (token.as_bytes(), self.slug.as_bytes());
        if s.len() < 2
            || t.len() < s.len() + 2
            || !t[t.len() - s.len()..].eq_ignore_ascii_case(s)
            || !is_separator(t[t.len() - s.len() - 1])
        {
            return false;
        }
        let before = &t[..t.len() - s.len() - 1];
        let p = self.parent.as_bytes();
        let under_parent = p.len() >= 2
            && before.len() >= p.len()
            && before[before.len() - p.len()..].eq_ignore_ascii_case(p)
            && (before.len() == p.len() || is_separator(before[before.len() - p.len() - 1]));
        let first = before
            .split(|&b| is_separator(b))
            .next()
            .unwrap_or_default();
        under_parent
            || page_naming_words()
                .iter()
                .any(|w| w.as_bytes().eq_ignore_ascii_case(first))
    }
}

fn is_separator(b: u8) -> bool {
    KIND_SEPARATORS.contains(&char::from(b))
}

/// Whether a class token starts with a prefix of `data/varying-class-prefixes.txt` (WordPress's
/// `category-news`, `tag-rust`: each post's own), case-insensitive.
fn varies(token: &str) -> bool {
    static PREFIXES: OnceLock<Vec<String>> = OnceLock::new();
    PREFIXES
        .get_or_init(|| data_lines(include_str!("../../../data/varying-class-prefixes.txt")))
        .iter()
        .any(|p| {
            token.len() > p.len() && token.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
        })
}

/// The lines of a data file but blank lines and `#` comments, trimmed and lower-cased.
fn data_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The words of `data/page-naming-classes.txt`.
fn page_naming_words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| data_lines(include_str!("../../../data/page-naming-classes.txt")))
}

/// Separators between an id's kind prefix and the page's name (`module-json`, `post_42`).
const KIND_SEPARATORS: [char; 4] = ['-', '_', ':', '.'];

/// The page's own name as ids embed it: the last non-empty path segment of its URL without its
/// extension, lower-cased (`json` for `/library/json.html`, `42` for `/post/42/`).
fn page_slug(url: &Url) -> String {
    let last = url
        .path_segments()
        .and_then(|mut s| s.rfind(|s| !s.is_empty()))
        .unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(a, _)| a);
    stem.to_ascii_lowercase()
}

/// The kind an element's id gives it: when the id is a prefix plus the page's own name
/// (`module-json` on `json.html`, `post-42` on `/post/42`), the prefix with its separator
/// (`module-`), which names what the element is on every page of that kind. Ids equal to the
/// page's name, ids that do not end with it, and prefixes with digits or without letters give
/// none. Case-insensitive.
fn id_kind(id: &str, slug: &str) -> Option<String> {
    if slug.chars().count() < 2 || id.len() > 200 {
        return None;
    }
    // Most ids do not end with the page's name: check that before lower-casing a copy.
    let trimmed = id.trim().as_bytes();
    if trimmed.len() < slug.len()
        || !trimmed[trimmed.len() - slug.len()..].eq_ignore_ascii_case(slug.as_bytes())
    {
        return None;
    }
    let id = id.trim().to_ascii_lowercase();
    let prefix = id.strip_suffix(slug)?;
    let word = prefix.strip_suffix(KIND_SEPARATORS)?;
    let ok = !word.is_empty()
        && word.len() <= 32
        && word.bytes().any(|b| b.is_ascii_alphabetic())
        && !word
            .bytes()
            .any(|b| b.is_ascii_digit() || b.is_ascii_whitespace());
    ok.then(|| prefix.to_string())
}

/// An id or a heading's text reduced to how generators slug headings (lower case, runs of
/// anything but letters and digits one `-`, leading non-letters dropped: docutils, GitHub,
/// Hugo), so an id can be recognised as a heading's anchor.
fn slug_form(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        if !out.is_empty() {
            out.push('-');
        }
        out.extend(part.chars().flat_map(char::to_lowercase));
    }
    // Trimmed in place: the slug is made for every heading and id of a page.
    let lead = out.len() - out.trim_start_matches(|c: char| !c.is_alphabetic()).len();
    out.drain(..lead);
    out
}

/// The kind prefixes an id declares: its leading parts up to each separator whose word has
/// letters and no digits (`module-`, `module-xml.` for `module-xml.parsers.expat`).
fn id_prefixes(id: &str, out: &mut Vec<String>) {
    let id = id.trim();
    if id.len() > 200 {
        return;
    }
    for (i, c) in id.char_indices() {
        if i == 0 || i >= MAX_ID_PREFIX_LEN || !KIND_SEPARATORS.contains(&c) {
            continue;
        }
        let word = &id[..i];
        if word
            .bytes()
            .any(|b| b.is_ascii_digit() || b.is_ascii_whitespace())
            || !word.bytes().any(|b| b.is_ascii_alphabetic())
        {
            break;
        }
        out.push(id[..=i].to_ascii_lowercase());
    }
}

/// Least share of a page's nodes an element must hold for its id to give the page a kind.
const MIN_KIND_SHARE: f64 = 0.2;

/// The kinded elements (`(node, label, kind)`, nodes in preorder) holding at least
/// [`MIN_KIND_SHARE`] of the tree whose parents (preorder) are `parents`. An empty element is an
/// anchor for its parent (Sphinx writes `<span class="target" id="module-celery.apps.multi">`
/// first thing in the module's section, whose own id is its heading's anchor): its kind goes to
/// the parent, with the parent's label from `class_labels`, unless the parent declares a kind
/// of its own (werkzeug's `section#module-werkzeug.exceptions` holds the label target
/// `span#http-exceptions`, which names the page only by chance).
///
/// Also returns the kinds of the elements that hold that share themselves, with no anchor's
/// help ([`Page::declares_kind`]).
fn main_elements(
    kinds: Vec<(u32, Label, String)>,
    parents: &[Option<NodeId>],
    class_labels: &[Label],
) -> (Vec<(u32, Label, String)>, Vec<String>) {
    if kinds.is_empty() {
        return (kinds, Vec::new());
    }
    let mut sizes = vec![1u32; parents.len()];
    for i in (0..parents.len()).rev() {
        if let Some(p) = parents[i] {
            let s = sizes[i];
            if let Some(slot) = sizes.get_mut(p as usize) {
                *slot = slot.saturating_add(s);
            }
        }
    }
    let total = parents.len().max(1) as f64;
    // Elements that carry a kind in their own id (not anchors): an anchor inside one of them
    // leaves it as it is.
    let kinded: HashSet<u32> = kinds
        .iter()
        .filter(|(node, _, _)| sizes.get(*node as usize) != Some(&1))
        .map(|(node, _, _)| *node)
        .collect();
    let holds_share = |node: u32| {
        sizes
            .get(node as usize)
            .is_some_and(|&s| f64::from(s) / total >= MIN_KIND_SHARE)
    };
    let own_kinds: Vec<String> = kinds
        .iter()
        .filter(|(node, _, _)| holds_share(*node))
        .map(|(_, _, kind)| kind.clone())
        .collect();
    let mut out: Vec<(u32, Label, String)> = kinds
        .into_iter()
        .map(|(node, label, kind)| {
            let anchor_of = (sizes.get(node as usize) == Some(&1))
                .then(|| parents.get(node as usize).copied().flatten())
                .flatten()
                .filter(|p| !kinded.contains(p))
                .and_then(|p| Some((p, *class_labels.get(p as usize)?)));
            match anchor_of {
                Some((p, l)) => (p, l, kind),
                None => (node, label, kind),
            }
        })
        .filter(|(node, _, _)| holds_share(*node))
        .collect();
    out.sort_by_key(|(node, _, _)| *node);
    out.dedup_by(|a, b| a.0 == b.0 && a.2 == b.2);
    (out, own_kinds)
}

/// Kind labels for a tree: empty when no element has a kind, else the class labels with each
/// kinded element's label refined to `class label#kind` (`section#module-`).
fn kind_labels(
    class_labels: &[Label],
    kinds: &[(u32, Label, String)],
    name_of: impl Fn(Label) -> String,
) -> (Vec<Label>, Vec<(Label, String)>) {
    if kinds.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut labels = class_labels.to_vec();
    let mut names = Vec::new();
    for (node, cl, kind) in kinds {
        let name = format!("{}#{kind}", name_of(*cl));
        let l = Label::of(&name);
        if let Some(slot) = labels.get_mut(*node as usize) {
            *slot = l;
        }
        names.push((l, name));
    }
    (labels, names)
}

/// The display name of a class label (`div.refentry`).
fn class_name(tag: &str, tokens: &[&str]) -> String {
    let mut name = tag.to_string();
    for t in tokens {
        name.push('.');
        name.push_str(&t.to_ascii_lowercase());
    }
    name
}

/// The name of a closed non-element (the document, when the page has no root element).
static EMPTY_NAME: LocalName = local_name!("");

/// Distinct (tag, class attribute) pairs whose class label the walk remembers.
const MAX_CLASS_CACHE: usize = 4096;

/// Bounds on what a page's ids and headings may cost ([`Tree::id_prefixes`]).
const MAX_SEP_IDS: usize = 20_000;
/// External scripts recorded per page at most (a page that includes thousands is hostile or
/// generated; navigation lives in the first few).
pub const MAX_SCRIPTS: usize = 64;
/// Entries of [`Page::declares`] kept at most.
pub const MAX_DECLARES: usize = 32;
/// Paragraph lengths kept at most ([`Page::paragraphs`]).
pub const MAX_PARAGRAPHS: usize = 4096;
/// JSON-LD text read per script at most (bytes): types come first in real documents.
const MAX_JSON_LD: usize = 64 * 1024;
const MAX_HEADINGS: usize = 5_000;
/// Longest main heading kept ([`Page::heading`]), in bytes.
const MAX_HEADING: usize = 300;

/// Elements whose text is not visible text (their element stays in the tree).
fn is_raw_text(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
    )
}

/// The type a schema.org type URL or name names (`https://schema.org/Product` → `Product`),
/// when it is one: a plain word.
fn schema_type(t: &str) -> Option<&str> {
    let t = t.trim().trim_end_matches('/');
    let name = t.rsplit(['/', ':', '#']).next().unwrap_or(t);
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(name)
}

/// The `"@type"` values of a JSON-LD text, read lexically (a string or an array of strings after
/// the key), so a truncated or malformed document still gives the types it spells.
fn json_ld_types(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("\"@type\"") {
        rest = rest[i + 7..].trim_start();
        let Some(r) = rest.strip_prefix(':') else {
            continue;
        };
        let r = r.trim_start();
        let (list, after) = match r.strip_prefix('[') {
            Some(inner) => inner.split_once(']').unwrap_or((inner, "")),
            None => {
                let end = r
                    .strip_prefix('"')
                    .and_then(|q| q.find('"'))
                    .map_or(0, |e| e + 2);
                (&r[..end], &r[end..])
            }
        };
        for item in list.split(',') {
            if let Some(t) = item
                .trim()
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                && let Some(t) = schema_type(t)
                && out.len() < MAX_DECLARES
            {
                out.push(t);
            }
        }
        rest = after;
    }
    out
}

/// The value of the no-namespace attribute `name` (atoms compare as integers).
fn attr<'a>(attrs: &'a [html5ever::Attribute], name: &LocalName) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| a.name.local == *name && a.name.ns == ns!())
        .map(|a| &*a.value)
}

/// The URL of a `<meta http-equiv=refresh>` directive (`0; url=../html/lapply.html`), as HTML's
/// "shared declarative refresh steps" read it: a delay, `;` or `,`, then the URL, optionally
/// after `url=` and in quotes. `None` for a refresh of the page itself (no URL).
fn refresh_url(content: &str) -> Option<&str> {
    let rest = content.trim_start();
    let delay_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    if delay_end == 0 {
        return None;
    }
    let rest = rest[delay_end..].trim_start();
    let rest = rest
        .strip_prefix(';')
        .or_else(|| rest.strip_prefix(','))
        .unwrap_or(rest)
        .trim_start();
    let rest = match rest.get(..3) {
        Some(u) if u.eq_ignore_ascii_case("url") => {
            let after = rest[3..].trim_start();
            after.strip_prefix('=').map(str::trim_start).unwrap_or(rest)
        }
        _ => rest,
    };
    let url = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].split(q).next().unwrap_or(""),
        _ => rest.trim_end(),
    };
    (!url.is_empty()).then_some(url)
}

/// Appends `s` to `out` with whitespace runs collapsed to one space, as joining
/// `s.split_whitespace()` (Unicode `White_Space`) with spaces would, after a space when `out`
/// is not empty and does not end with one. Copies runs of words separated by single spaces
/// whole; only bytes that may start a non-ASCII space are decoded.
fn push_collapsed(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut i = 0;
    let mut first = true;
    while i < b.len() {
        let n = space_at(s, i);
        if n > 0 {
            i += n;
            continue;
        }
        // A run of words separated by single ASCII spaces, copied at once. Continuation bytes
        // (0x80–0xbf) are never taken for spaces, so `i` only stops on character boundaries.
        let start = i;
        loop {
            while let Some(&c) = b.get(i) {
                if SPACE_CLASS[c as usize] != 0 && space_at(s, i) != 0 {
                    break;
                }
                i += 1;
            }
            if b.get(i) == Some(&b' ') && b.get(i + 1).is_some_and(|_| space_at(s, i + 1) == 0) {
                i += 1;
                continue;
            }
            break;
        }
        if !first || (!out.is_empty() && !out.ends_with(' ')) {
            out.push(' ');
        }
        first = false;
        out.push_str(&s[start..i]);
    }
}

/// Length of the whitespace character at byte `i` of `s` (a character boundary), or 0.
#[inline(always)]
fn space_at(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i).map(|&c| SPACE_CLASS[c as usize]) {
        None | Some(0) => 0,
        Some(1) => 1,
        _ => match s.get(i..).and_then(|t| t.chars().next()) {
            Some(c) if c.is_whitespace() => c.len_utf8(),
            _ => 0,
        },
    }
}

/// Bytes by what they may start: 1 an ASCII space (`char::is_whitespace`), 2 possibly a
/// non-ASCII space (lead bytes of U+0085, U+00A0, U+1680, U+2000–U+205F, U+3000), 0 neither.
const SPACE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 6 {
        t[[b'\t', b'\n', 0x0b, 0x0c, b'\r', b' '][i] as usize] = 1;
        i += 1;
    }
    t[0xc2] = 2;
    t[0xe1] = 2;
    t[0xe2] = 2;
    t[0xe3] = 2;
    t
};

/// Whether a class attribute names a title: a token `title` or `heading`, or ending in
/// `-title`, `_title`, `-heading` or `_heading` (`page-title`, `entry_title`), or DocBook's
/// `refentrytitle` (the name of a reference page, in an `h2` before the `Synopsis` section's
/// `refsynopsisdiv-title`), any case.
fn names_a_title(class: &str) -> bool {
    // Called for every classed element until one is found: no allocation.
    class.split_ascii_whitespace().any(|t| {
        t.eq_ignore_ascii_case("refentrytitle")
            || ["title", "heading"].iter().any(|w| {
                let Some(cut) = t.len().checked_sub(w.len()) else {
                    return false;
                };
                t.is_char_boundary(cut)
                    && t[cut..].eq_ignore_ascii_case(w)
                    && (cut == 0 || t[..cut].ends_with(['-', '_']))
            })
    })
}

/// `u` without its fragment, when it is an http(s) URL.
fn http_without_fragment(mut u: Url) -> Option<String> {
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

/// `href` resolved against an http(s) `base` without the URL parser, when it is a relative
/// path of characters the parser copies as they are, without dot segments (`sql-vacuum.html`,
/// `sql-vacuum.html#notes`, `../` excluded): the base's directory followed by `href` without
/// its fragment, as joining writes it once the fragment is dropped. Most links
/// of a page are such, and joining each one was about 2% of mapping's CPU time. `None` means
/// "join it".
fn join_plain(base: &Url, href: &str) -> Option<String> {
    // The fragment is dropped from the result (links into a page's sections are that page).
    let href = href.split_once('#').map_or(href, |(path, _)| path);
    // No `:`: before any `/` it would make a scheme.
    let plain = !href.is_empty()
        && !href.starts_with('/')
        && !href.contains(':')
        && exemplar_url::canon::plain_path(href);
    if !plain || !matches!(base.scheme(), "http" | "https") {
        return None;
    }
    // Special URLs always have a path starting with `/`: the directory ends at its last `/`.
    let path_end = base.as_str().len() - base[url::Position::AfterPath..].len();
    let dir = base.as_str()[..path_end].rfind('/')? + 1;
    let mut joined = String::with_capacity(dir + href.len());
    joined.push_str(&base.as_str()[..dir]);
    joined.push_str(href);
    Some(joined)
}

/// What a document's head declares ([`Walker::head`]).
#[derive(Default)]
struct Head {
    base: Option<Url>,
    canonical: Option<String>,
    lang: Option<String>,
}

/// One walk over the arena in document order producing the [`Page`].
struct Walker<'a> {
    nodes: &'a [RawNode],
    /// What fragment-only links resolve to (see [`Walker::resolve`]).
    same_document: std::cell::OnceCell<Option<String>>,
    form_owners: FxHashMap<u32, u32>,
    url: Url,
    encoding: String,
    max_depth: u32,
}

/// An open element during the walk.
struct Open {
    raw: u32,
    /// Output tree node, or the flattening ancestor's when past `max_depth`.
    out: u32,
    out_depth: u32,
    /// Next child to visit.
    next: u32,
}

/// Text being collected for an element (anchor, title, label, option, button).
struct Collector {
    raw: u32,
    text: String,
}

impl<'a> Walker<'a> {
    fn new(arena: &'a Arena, url: Url, encoding: &str, max_depth: u32) -> Walker<'a> {
        Walker {
            nodes: &arena.nodes,
            same_document: std::cell::OnceCell::new(),
            form_owners: arena.form_owners.iter().copied().collect(),
            url,
            encoding: encoding.to_string(),
            max_depth: max_depth.max(1),
        }
    }

    fn name(&self, raw: u32) -> Option<&'a str> {
        match &self.nodes[raw as usize].data {
            RawData::Element { name, .. } => Some(&name.local),
            _ => None,
        }
    }

    fn local(&self, raw: u32) -> Option<&'a LocalName> {
        match &self.nodes[raw as usize].data {
            RawData::Element { name, .. } => Some(&name.local),
            _ => None,
        }
    }

    fn attrs(&self, raw: u32) -> &'a [html5ever::Attribute] {
        match &self.nodes[raw as usize].data {
            RawData::Element { attrs, .. } => attrs,
            _ => &[],
        }
    }

    /// The root element (`html`), or the document itself when there is none.
    fn root(&self) -> u32 {
        let mut c = self.nodes[0].first_child;
        while c != NIL {
            if matches!(self.nodes[c as usize].data, RawData::Element { .. }) {
                return c;
            }
            c = self.nodes[c as usize].next;
        }
        0
    }

    fn resolve(&self, base: &Url, href: &str) -> Option<String> {
        let href = href.trim();
        if href.starts_with('#') {
            // A fragment-only reference is the base itself once the fragment is dropped (as
            // `join` would give): resolved once per page (such links are often the majority).
            return self
                .same_document
                .get_or_init(|| http_without_fragment(base.clone()))
                .clone();
        }
        if let Some(joined) = join_plain(base, href) {
            return Some(joined);
        }
        http_without_fragment(base.join(href).ok()?)
    }

    fn run(self) -> Page {
        let root = self.root();
        // First pass over the head for <base>: links anywhere resolve against it.
        let head = self.head();
        let base = head.base.clone().unwrap_or_else(|| self.url.clone());

        // One entry per element or text node the walk keeps: at most one per arena node.
        let mut labels: Vec<Label> = Vec::with_capacity(self.nodes.len());
        let mut class_labels: Vec<Label> = Vec::with_capacity(self.nodes.len());
        // Elements whose id names this page with a kind prefix: (node, class label, kind).
        let page_name = PageName::of(&self.url);
        let mut kinds: Vec<(u32, Label, String)> = Vec::new();
        // Ids with a separator (candidate kind declarations) and the slugs of the headings, whose
        // anchors are content rather than kinds.
        let mut sep_ids: Vec<String> = Vec::new();
        // Keyed by page text: std's keyed SipHash, so a hostile page cannot collide its keys
        // (Fx is for integer keys and bounded caches).
        let mut heading_slugs: HashSet<String> = HashSet::new();
        let mut heading_open = 0u32;
        let mut heading_text = String::new();
        let mut class_names: Vec<(Label, String)> = Vec::new();
        let mut token_buf: Vec<(usize, usize)> = Vec::new();
        let mut class_cache: FxHashMap<(Label, &'a str), Label> = FxHashMap::default();
        let mut parents: Vec<Option<NodeId>> = Vec::with_capacity(self.nodes.len());
        let mut names: Vec<(Label, String)> = Vec::new();
        let mut seen_labels: FxHashSet<Label> = FxHashSet::default();
        // Most elements repeat a tag seen before: a direct-mapped table of the tags' labels
        // answers them without the set (asking the set for every element was about 2% of
        // mapping's instructions). An element's label is never 0 ([`Label::of`]), the empty slot.
        let mut seen_tags = [0u32; 64];

        let mut title = String::new();
        let mut in_title = false;
        // The main heading: the first h1 and the first title-classed element, each collected
        // while open (the element's raw id), then kept.
        let mut h1: Option<String> = None;
        let mut h1_open: Option<(u32, String)> = None;
        let mut titled: Option<String> = None;
        let mut titled_open: Option<(u32, String)> = None;
        let mut robots = MetaRobots::default();
        let mut links: Vec<Link> = Vec::new();
        let mut scripts: Vec<String> = Vec::new();
        let mut forms: Vec<Form> = Vec::new();
        let mut form_index: FxHashMap<u32, usize> = FxHashMap::default();
        let mut controls: Vec<Control> = Vec::new();
        // Sized ahead (documentation pages hold about 11 bytes of text per node): growing it
        // from nothing took a dozen reallocations per page.
        let mut visible = String::with_capacity((self.nodes.len() * 8).min(1 << 20));
        let mut link_text_chars = 0usize;
        let mut image_count = 0usize;
        let mut declares: Vec<String> = Vec::new();
        let mut paragraphs: Vec<u32> = Vec::new();
        // Open `p` elements: (raw id, `visible`'s length when it opened).
        let mut p_open: Vec<(u32, usize)> = Vec::new();
        // label-for id -> label text; labels wrapping a control: control index -> label raw
        let mut label_for: HashMap<String, String> = HashMap::new();
        let mut wrapped_label: Vec<(usize, u32)> = Vec::new();
        let mut label_texts: FxHashMap<u32, String> = FxHashMap::default();
        // Last visible text seen inside each form (for "nearest preceding text" labels).
        let mut last_text_in_form: FxHashMap<usize, String> = FxHashMap::default();
        // Select option collection: select control index.
        let mut open_select: Option<usize> = None;
        let mut collectors: Vec<Collector> = Vec::new();
        // Anchor collector raw -> link index.
        let mut link_of_anchor: FxHashMap<u32, usize> = FxHashMap::default();

        let mut stack: Vec<Open> = Vec::new();
        let mut hidden_depth = 0u32; // > 0 inside raw-text elements
        let mut in_body = false;
        let mut form_stack: Vec<usize> = Vec::new();

        // Emit the root.
        let root_name = self.name(root).unwrap_or("#document").to_ascii_lowercase();
        let root_label = Label::of(&root_name);
        labels.push(root_label);
        class_labels.push(root_label);
        parents.push(None);
        seen_labels.insert(root_label);
        names.push((root_label, root_name));
        stack.push(Open {
            raw: root,
            out: 0,
            out_depth: 0,
            next: self.nodes[root as usize].first_child,
        });

        while let Some(top) = stack.last_mut() {
            let raw = top.next;
            if raw == NIL {
                // Close the element.
                let closed = top.raw;
                stack.pop();
                if h1_open.as_ref().is_some_and(|(raw, _)| *raw == closed) {
                    h1 = h1_open.take().map(|(_, text)| text);
                }
                if p_open.last().is_some_and(|(raw, _)| *raw == closed)
                    && let Some((_, start)) = p_open.pop()
                    && paragraphs.len() < MAX_PARAGRAPHS
                {
                    let len = visible.len().saturating_sub(start);
                    paragraphs.push(u32::try_from(len).unwrap_or(u32::MAX));
                }
                if titled_open.as_ref().is_some_and(|(raw, _)| *raw == closed) {
                    titled = titled_open.take().map(|(_, text)| text);
                }
                let name = self.local(closed).unwrap_or(&EMPTY_NAME);
                if is_raw_text(name) {
                    hidden_depth = hidden_depth.saturating_sub(1);
                }
                if is_heading(name) {
                    heading_open = heading_open.saturating_sub(1);
                    if heading_open == 0 && heading_slugs.len() < MAX_HEADINGS {
                        heading_slugs.insert(slug_form(&heading_text));
                    }
                }
                match *name {
                    local_name!("title") => in_title = false,
                    local_name!("body") => in_body = false,
                    local_name!("select") => open_select = None,
                    local_name!("form") => {
                        form_stack.pop();
                    }
                    _ => {}
                }
                if collectors.last().is_some_and(|c| c.raw == closed)
                    && let Some(c) = collectors.pop()
                {
                    self.close_collector(
                        closed,
                        name,
                        c.text,
                        &mut links,
                        &link_of_anchor,
                        &mut controls,
                        open_select,
                        &mut label_texts,
                        &mut label_for,
                    );
                }
                continue;
            }
            top.next = self.nodes[raw as usize].next;
            let (parent_out, parent_depth) = (top.out, top.out_depth);

            match &self.nodes[raw as usize].data {
                RawData::Text(t) => {
                    if hidden_depth > 0 {
                        continue;
                    }
                    if in_title && title.len() < 2048 {
                        push_collapsed(&mut title, t);
                    }
                    if heading_open > 0 && heading_text.len() < 512 {
                        push_collapsed(&mut heading_text, t);
                    }
                    if t.trim().is_empty() {
                        continue;
                    }
                    for (_, text) in h1_open.iter_mut().chain(titled_open.iter_mut()) {
                        if text.len() < MAX_HEADING {
                            if !text.is_empty() {
                                text.push(' ');
                            }
                            push_collapsed(text, t);
                        }
                    }
                    labels.push(Label::TEXT);
                    class_labels.push(Label::TEXT);
                    parents.push(Some(parent_out));
                    if !in_body {
                        continue;
                    }
                    if !visible.is_empty() {
                        visible.push(' ');
                    }
                    push_collapsed(&mut visible, t);
                    let in_link = collectors
                        .iter()
                        .any(|c| link_of_anchor.contains_key(&c.raw));
                    if in_link {
                        link_text_chars += t
                            .split_whitespace()
                            .map(|w| w.chars().count() + 1)
                            .sum::<usize>();
                    }
                    for c in collectors.iter_mut() {
                        if c.text.len() < 1024 {
                            push_collapsed(&mut c.text, t);
                        }
                    }
                    if let Some(&f) = form_stack.last() {
                        let e = last_text_in_form.entry(f).or_default();
                        e.clear();
                        push_collapsed(e, t);
                    }
                }
                RawData::Element { name, attrs, .. } => {
                    // html5ever lower-cases HTML tag names; only adjusted SVG/MathML names
                    // (`foreignObject`) need lowering, so the common path does not allocate.
                    let local: &str = &name.local;
                    let lname: Cow<str> = if local.bytes().any(|b| b.is_ascii_uppercase()) {
                        Cow::Owned(local.to_ascii_lowercase())
                    } else {
                        Cow::Borrowed(local)
                    };
                    let label = Label::of(&lname);
                    let slot = &mut seen_tags[label.0 as usize % 64];
                    if *slot != label.0 {
                        *slot = label.0;
                        if seen_labels.insert(label) {
                            names.push((label, lname.to_string()));
                        }
                    }
                    // The element hangs under the open node; past max_depth its children are
                    // attached beside it (to the same parent), so depth stays bounded.
                    let out = labels.len() as u32;
                    labels.push(label);
                    let cl = match attr(attrs, &local_name!("class")) {
                        // Pages repeat a few class attributes many times: the label of a
                        // (tag, class) pair is computed once.
                        Some(class) => match class_cache.get(&(label, class)) {
                            Some(&cl) => cl,
                            None => {
                                let (cl, tokens) =
                                    class_label(&lname, class, &page_name, &mut token_buf);
                                if seen_labels.insert(cl) {
                                    class_names.push((cl, class_name(&lname, &tokens)));
                                }
                                if class_cache.len() < MAX_CLASS_CACHE {
                                    class_cache.insert((label, class), cl);
                                }
                                cl
                            }
                        },
                        None => label,
                    };
                    if let Some(id) = attr(attrs, &local_name!("id")) {
                        if let Some(kind) = id_kind(id, &page_name.slug) {
                            kinds.push((out, cl, kind));
                        }
                        if sep_ids.len() < MAX_SEP_IDS && id.contains(KIND_SEPARATORS) {
                            sep_ids.push(id.to_string());
                        }
                    }
                    if name.local == local_name!("p") && hidden_depth == 0 {
                        p_open.push((raw, visible.len()));
                    }
                    if name.local == local_name!("h1") && h1.is_none() && h1_open.is_none() {
                        h1_open = Some((raw, String::new()));
                    }
                    if titled.is_none()
                        && titled_open.is_none()
                        && attr(attrs, &local_name!("class")).is_some_and(names_a_title)
                    {
                        titled_open = Some((raw, String::new()));
                    }
                    if is_heading(&name.local) {
                        if heading_open == 0 {
                            heading_text.clear();
                        }
                        heading_open += 1;
                    }
                    class_labels.push(cl);
                    parents.push(Some(parent_out));
                    let depth = parent_depth + 1;
                    let (child_out, child_out_depth) = if depth <= self.max_depth {
                        (out, depth)
                    } else {
                        (parent_out, parent_depth)
                    };
                    self.element(
                        raw,
                        &name.local,
                        attrs,
                        out,
                        &base,
                        &mut robots,
                        &mut links,
                        &mut scripts,
                        &mut link_of_anchor,
                        &mut forms,
                        &mut form_index,
                        &mut form_stack,
                        &mut controls,
                        &mut open_select,
                        &mut wrapped_label,
                        &mut collectors,
                        &last_text_in_form,
                        in_body,
                        &mut image_count,
                        &mut declares,
                    );
                    if is_raw_text(&name.local) {
                        hidden_depth += 1;
                    }
                    match name.local {
                        local_name!("title") if title.is_empty() => in_title = true,
                        local_name!("body") => in_body = true,
                        _ => {}
                    }
                    stack.push(Open {
                        raw,
                        out: child_out,
                        out_depth: child_out_depth,
                        next: self.nodes[raw as usize].first_child,
                    });
                }
                RawData::Document | RawData::Other => {}
            }
        }

        // Labels: <label for=id> first, then an enclosing label, nearest text (set at creation).
        for c in controls.iter_mut() {
            if !c.id.is_empty()
                && let Some(t) = label_for.get(&c.id)
                && !t.is_empty()
            {
                c.label = t.clone();
            }
        }
        for (ci, lraw) in wrapped_label {
            if let Some(t) = label_texts.get(&lraw)
                && !t.is_empty()
                && let Some(c) = controls.get_mut(ci)
                && !label_for.contains_key(&c.id)
            {
                c.label = t.clone();
            }
        }
        for c in controls.iter_mut() {
            if c.label.is_empty() {
                c.label = if c.name.is_empty() {
                    c.id.clone()
                } else {
                    c.name.clone()
                };
            }
        }
        // Forms' control lists.
        for (i, c) in controls.iter().enumerate() {
            if let Some(f) = c.form
                && let Some(form) = forms.get_mut(f)
            {
                form.controls.push(i);
            }
        }

        let text_chars = visible.chars().count();

        // An instance id names the page's main element (Sphinx's `section#module-json` holds
        // the module's whole documentation); a small element whose id ends with the page's name
        // is an optional part (javadoc's `related-package-summary` on every
        // `package-summary.html`, a page name shared by a whole kind of pages), not a kind.
        let (kinds, own_kinds) = main_elements(kinds, &parents, &class_labels);
        let (kind_labels, kind_names) = kind_labels(&class_labels, &kinds, |l| {
            class_names
                .iter()
                .chain(names.iter())
                .find(|(k, _)| *k == l)
                .map(|(_, n)| n.clone())
                .unwrap_or_default()
        });
        let mut prefixes = Vec::new();
        for id in &sep_ids {
            if !heading_slugs.contains(&slug_form(id)) {
                id_prefixes(id, &mut prefixes);
            }
        }
        let tree = match Tree::from_preorder(labels, &parents, names)
            .and_then(|t| t.with_class_labels(class_labels, class_names))
            .and_then(|t| t.with_kind_labels(kind_labels, kind_names))
        {
            Ok(t) => t.with_id_prefixes(prefixes),
            // The walk emits a valid preorder by construction; fall back to a lone root rather
            // than panic if that ever breaks.
            Err(_) => Tree::parse_shape("html").unwrap_or_else(|_| unreachable_tree()),
        };
        let declares_kind = own_kinds.iter().any(|k| tree.declares_prefix(k));
        let mut heading = h1
            .or_else(|| h1_open.map(|(_, t)| t))
            .filter(|h| !h.is_empty())
            .or(titled)
            .or_else(|| titled_open.map(|(_, t)| t))
            .unwrap_or_default();
        if heading.len() > MAX_HEADING {
            let mut end = MAX_HEADING;
            while !heading.is_char_boundary(end) {
                end -= 1;
            }
            heading.truncate(end);
        }
        let lang = self.find_lang(&head);
        // Resolved against the base, as links are; kept only as an http(s) URL.
        let canonical = head
            .canonical
            .as_deref()
            .and_then(|href| self.resolve(&base, href));
        Page {
            url: self.url.to_string(),
            base: base.to_string(),
            encoding: self.encoding,
            tree,
            title,
            heading,
            lang,
            canonical,
            robots,
            links,
            scripts,
            forms,
            controls,
            text: visible,
            terms: TermsOnce::default(),
            text_chars,
            link_text_chars,
            image_count,
            declares_kind,
            declares: {
                declares.sort();
                declares.dedup();
                declares
            },
            paragraphs,
        }
    }

    /// What one element declares about the page ([`Page::declares`]).
    fn declarations(
        &self,
        raw: u32,
        name: &LocalName,
        attrs: &[html5ever::Attribute],
        declares: &mut Vec<String>,
    ) {
        let mut push = |prefix: &str, value: &str| {
            let value = value.trim().to_ascii_lowercase();
            if !value.is_empty()
                && value.len() <= 64
                && declares.len() < MAX_DECLARES
                && !declares
                    .iter()
                    .any(|d| d.strip_prefix(prefix) == Some(&value))
            {
                declares.push(format!("{prefix}{value}"));
            }
        };
        if let Some(types) = attr(attrs, &local_name!("itemtype")) {
            for t in types.split_ascii_whitespace() {
                if let Some(t) = schema_type(t) {
                    push("schema:", t);
                }
            }
        }
        match *name {
            local_name!("meta") => {
                let prop = attr(attrs, &local_name!("property"))
                    .or_else(|| attr(attrs, &local_name!("name")));
                if prop.is_some_and(|p| p.trim().eq_ignore_ascii_case("og:type"))
                    && let Some(content) = attr(attrs, &local_name!("content"))
                {
                    push("og:", content.rsplit(':').next().unwrap_or(content));
                }
            }
            local_name!("link") | local_name!("a") => {
                if let Some(rel) = attr(attrs, &local_name!("rel")) {
                    for r in rel.split_ascii_whitespace() {
                        if r.eq_ignore_ascii_case("next") || r.eq_ignore_ascii_case("prev") {
                            push("rel:", r);
                        }
                    }
                }
            }
            local_name!("script")
                if attr(attrs, &local_name!("type"))
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) =>
            {
                let mut text = String::new();
                let mut c = self.nodes[raw as usize].first_child;
                while c != NIL && text.len() < MAX_JSON_LD {
                    if let RawData::Text(t) = &self.nodes[c as usize].data {
                        text.push_str(t);
                    }
                    c = self.nodes[c as usize].next;
                }
                for t in json_ld_types(&text) {
                    push("schema:", t);
                }
            }
            _ => {}
        }
    }

    /// The declared language of the document ([`Page::lang`]): its `<html>` element's, else
    /// the head's `<meta http-equiv="content-language">` (HTML's pragma-set default language).
    fn find_lang(&self, head: &Head) -> String {
        let root = self.root();
        if self.local(root) != Some(&local_name!("html")) {
            return String::new();
        }
        let attrs = self.attrs(root);
        attr(attrs, &local_name!("lang"))
            .or_else(|| {
                attrs
                    .iter()
                    .find(|a| (*a.name.local).eq_ignore_ascii_case("xml:lang"))
                    .map(|a| &*a.value)
            })
            .and_then(crate::language::tag)
            .or_else(|| head.lang.clone())
            .unwrap_or_default()
    }

    /// What the head declares, in one walk of the elements outside `<body>` (the first of
    /// each): `<base href>`, `<link rel=canonical href>` and the language of `<meta
    /// http-equiv="content-language" content="…">`, as HTML takes it (none when the content
    /// names several, a comma; else its first word).
    fn head(&self) -> Head {
        let mut head = Head::default();
        let (mut base, mut canonical, mut lang) = (false, false, false);
        self.find_outside_body(|n| {
            let attrs = self.attrs(n);
            let href = || attr(attrs, &local_name!("href"));
            match self.local(n) {
                Some(&local_name!("base")) if !base && href().is_some() => {
                    base = true;
                    head.base = href().and_then(|h| self.url.join(h.trim()).ok());
                }
                Some(&local_name!("link"))
                    if !canonical
                        && href().is_some()
                        && attr(attrs, &local_name!("rel")).is_some_and(|r| {
                            r.split_ascii_whitespace()
                                .any(|t| t.eq_ignore_ascii_case("canonical"))
                        }) =>
                {
                    canonical = true;
                    head.canonical = href().map(str::to_string);
                }
                Some(&local_name!("meta"))
                    if !lang
                        && attr(attrs, &local_name!("http-equiv"))
                            .is_some_and(|h| h.trim().eq_ignore_ascii_case("content-language")) =>
                {
                    lang = true;
                    head.lang =
                        attr(attrs, &local_name!("content")).and_then(crate::language::of_header);
                }
                _ => {}
            }
            (base && canonical && lang).then_some(())
        });
        head
    }

    /// The first answer `found` gives on an element outside `<body>` (the head's, and any the
    /// parser left beside it), in document order, without recursion.
    fn find_outside_body<T>(&self, mut found: impl FnMut(u32) -> Option<T>) -> Option<T> {
        let mut stack = vec![self.root()];
        while let Some(n) = stack.pop() {
            if let Some(answer) = found(n) {
                return Some(answer);
            }
            if self.local(n) == Some(&local_name!("body")) {
                continue;
            }
            let mut kids = Vec::new();
            let mut c = self.nodes[n as usize].first_child;
            while c != NIL {
                if matches!(self.nodes[c as usize].data, RawData::Element { .. }) {
                    kids.push(c);
                }
                c = self.nodes[c as usize].next;
            }
            stack.extend(kids.into_iter().rev());
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn element(
        &self,
        raw: u32,
        name: &LocalName,
        attrs: &[html5ever::Attribute],
        out: u32,
        base: &Url,
        robots: &mut MetaRobots,
        links: &mut Vec<Link>,
        scripts: &mut Vec<String>,
        link_of_anchor: &mut FxHashMap<u32, usize>,
        forms: &mut Vec<Form>,
        form_index: &mut FxHashMap<u32, usize>,
        form_stack: &mut Vec<usize>,
        controls: &mut Vec<Control>,
        open_select: &mut Option<usize>,
        wrapped_label: &mut Vec<(usize, u32)>,
        collectors: &mut Vec<Collector>,
        last_text_in_form: &FxHashMap<usize, String>,
        in_body: bool,
        image_count: &mut usize,
        declares: &mut Vec<String>,
    ) {
        self.declarations(raw, name, attrs, declares);
        match *name {
            local_name!("a") | local_name!("area") => {
                if let Some(href) = attr(attrs, &local_name!("href"))
                    && let Some(url) = self.resolve(base, href)
                {
                    let nofollow = attr(attrs, &local_name!("rel")).is_some_and(|r| {
                        r.split_ascii_whitespace()
                            .any(|t| t.eq_ignore_ascii_case("nofollow"))
                    });
                    link_of_anchor.insert(raw, links.len());
                    links.push(Link {
                        url,
                        text: String::new(),
                        node: out,
                        nofollow,
                    });
                    if *name == local_name!("a") {
                        collectors.push(Collector {
                            raw,
                            text: String::new(),
                        });
                    } else if let Some(alt) = attr(attrs, &local_name!("alt"))
                        && let Some(l) = links.last_mut()
                    {
                        push_collapsed(&mut l.text, alt);
                    }
                }
            }
            local_name!("script") => {
                if let Some(src) = attr(attrs, &local_name!("src"))
                    && let Some(url) = self.resolve(base, src)
                    && scripts.len() < MAX_SCRIPTS
                    && !scripts.contains(&url)
                {
                    scripts.push(url);
                }
            }
            local_name!("img") => {
                if in_body {
                    *image_count += 1;
                }
                // An image-only anchor is named by its alt text.
                if let Some(alt) = attr(attrs, &local_name!("alt"))
                    && let Some(c) = collectors
                        .iter_mut()
                        .rev()
                        .find(|c| link_of_anchor.contains_key(&c.raw))
                    && c.text.is_empty()
                {
                    push_collapsed(&mut c.text, alt);
                }
            }
            local_name!("meta") => {
                // A refresh to another URL is a redirect made in the page (R's help aliases,
                // moved pages on static sites): a browser follows it, so it is a link.
                if attr(attrs, &local_name!("http-equiv"))
                    .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"))
                    && let Some(target) = attr(attrs, &local_name!("content")).and_then(refresh_url)
                    && let Some(url) = self.resolve(base, target)
                {
                    links.push(Link {
                        url,
                        text: String::new(),
                        node: out,
                        nofollow: false,
                    });
                }
                if attr(attrs, &local_name!("name"))
                    .is_some_and(|n| n.eq_ignore_ascii_case("robots"))
                    && let Some(content) = attr(attrs, &local_name!("content"))
                {
                    for d in content.split(',').map(|d| d.trim().to_ascii_lowercase()) {
                        match d.as_str() {
                            "noindex" => robots.noindex = true,
                            "nofollow" => robots.nofollow = true,
                            "none" => {
                                robots.noindex = true;
                                robots.nofollow = true;
                            }
                            _ => {}
                        }
                    }
                }
            }
            local_name!("form") => {
                let action = attr(attrs, &local_name!("action")).unwrap_or("").trim();
                let scripted = attr(attrs, &local_name!("onsubmit")).is_some()
                    || action.to_ascii_lowercase().starts_with("javascript:");
                let no_action = action.is_empty();
                let action = if no_action {
                    self.url.to_string()
                } else {
                    base.join(action).map(|u| u.to_string()).unwrap_or_default()
                };
                let method = match attr(attrs, &local_name!("method"))
                    .map(str::to_ascii_lowercase)
                    .as_deref()
                {
                    Some("post") => "post",
                    _ => "get",
                };
                form_index.insert(raw, forms.len());
                form_stack.push(forms.len());
                forms.push(Form {
                    action,
                    method: method.to_string(),
                    enctype: attr(attrs, &local_name!("enctype"))
                        .unwrap_or("application/x-www-form-urlencoded")
                        .to_ascii_lowercase(),
                    name: attr(attrs, &local_name!("name")).unwrap_or("").to_string(),
                    id: attr(attrs, &local_name!("id")).unwrap_or("").to_string(),
                    no_action,
                    scripted,
                    controls: Vec::new(),
                    node: out,
                });
            }
            local_name!("label") => {
                collectors.push(Collector {
                    raw,
                    text: String::new(),
                });
            }
            local_name!("input")
            | local_name!("select")
            | local_name!("textarea")
            | local_name!("button") => {
                let kind = match *name {
                    local_name!("select") => ControlKind::Select,
                    local_name!("textarea") => ControlKind::TextArea,
                    local_name!("button") => match attr(attrs, &local_name!("type"))
                        .map(str::to_ascii_lowercase)
                        .as_deref()
                    {
                        Some("button") | Some("reset") => ControlKind::Button,
                        _ => ControlKind::Submit,
                    },
                    _ => match attr(attrs, &local_name!("type"))
                        .map(str::to_ascii_lowercase)
                        .as_deref()
                    {
                        None | Some("text") | Some("search") | Some("") => ControlKind::Text,
                        Some("password") => ControlKind::Password,
                        Some("email") => ControlKind::Email,
                        Some("hidden") => ControlKind::Hidden,
                        Some("number") | Some("range") => ControlKind::Number,
                        Some("date")
                        | Some("datetime-local")
                        | Some("month")
                        | Some("week")
                        | Some("time") => ControlKind::Date,
                        Some("radio") => ControlKind::Radio,
                        Some("checkbox") => ControlKind::Checkbox,
                        Some("submit") => ControlKind::Submit,
                        Some("image") => ControlKind::Image,
                        Some("button") | Some("reset") => ControlKind::Button,
                        Some("file") => ControlKind::File,
                        Some(_) => ControlKind::Other,
                    },
                };
                // Owner: the form attribute, else html5ever's association, else the open form.
                let form = match attr(attrs, &local_name!("form")) {
                    Some(fid) => forms.iter().position(|f| f.id == fid),
                    None => self
                        .form_owners
                        .get(&raw)
                        .and_then(|f| form_index.get(f).copied())
                        .or_else(|| form_stack.last().copied()),
                };
                let label = attr(attrs, &local_name!("aria-label"))
                    .or_else(|| attr(attrs, &local_name!("placeholder")))
                    .or_else(|| attr(attrs, &local_name!("title")))
                    // An image button's caption is its alternative text.
                    .or_else(|| {
                        (kind == ControlKind::Image)
                            .then(|| attr(attrs, &local_name!("alt")))
                            .flatten()
                    })
                    .map(str::to_string)
                    .filter(|s| !s.trim().is_empty())
                    .or_else(|| form.and_then(|f| last_text_in_form.get(&f).cloned()))
                    .unwrap_or_default();
                let idx = controls.len();
                if let Some(l) = collectors
                    .iter()
                    .rev()
                    .find(|c| self.local(c.raw) == Some(&local_name!("label")))
                {
                    wrapped_label.push((idx, l.raw));
                }
                controls.push(Control {
                    kind,
                    name: attr(attrs, &local_name!("name")).unwrap_or("").to_string(),
                    id: attr(attrs, &local_name!("id")).unwrap_or("").to_string(),
                    value: attr(attrs, &local_name!("value")).unwrap_or("").to_string(),
                    options: Vec::new(),
                    checked: attr(attrs, &local_name!("checked")).is_some(),
                    multiple: *name == local_name!("select")
                        && attr(attrs, &local_name!("multiple")).is_some(),
                    selected: Vec::new(),
                    disabled: attr(attrs, &local_name!("disabled")).is_some(),
                    label,
                    form,
                    node: out,
                });
                if *name == local_name!("select") {
                    *open_select = Some(idx);
                }
                if *name == local_name!("button") || *name == local_name!("textarea") {
                    collectors.push(Collector {
                        raw,
                        text: String::new(),
                    });
                }
            }
            local_name!("option") => {
                if let Some(si) = *open_select {
                    if let Some(v) = attr(attrs, &local_name!("value")) {
                        if let Some(c) = controls.get_mut(si) {
                            let selected = attr(attrs, &local_name!("selected")).is_some();
                            if selected || c.options.is_empty() {
                                c.value = v.to_string();
                                c.checked |= selected;
                            }
                            if selected {
                                c.selected.push(v.to_string());
                            }
                            c.options.push(v.to_string());
                        }
                    } else {
                        // Value comes from the text, filled in when the option closes.
                        collectors.push(Collector {
                            raw,
                            text: String::new(),
                        });
                    }
                }
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn close_collector(
        &self,
        raw: u32,
        name: &LocalName,
        text: String,
        links: &mut [Link],
        link_of_anchor: &FxHashMap<u32, usize>,
        controls: &mut [Control],
        open_select: Option<usize>,
        label_texts: &mut FxHashMap<u32, String>,
        label_for: &mut HashMap<String, String>,
    ) {
        match *name {
            local_name!("a") => {
                if let Some(&i) = link_of_anchor.get(&raw)
                    && let Some(l) = links.get_mut(i)
                {
                    l.text = text;
                }
            }
            local_name!("label") => {
                if let Some(f) = attr(self.attrs(raw), &local_name!("for")) {
                    label_for.insert(f.to_string(), text.clone());
                }
                label_texts.insert(raw, text);
            }
            local_name!("option") => {
                if let Some(si) = open_select
                    && let Some(c) = controls.get_mut(si)
                {
                    let selected = attr(self.attrs(raw), &local_name!("selected")).is_some();
                    if selected || c.options.is_empty() {
                        c.value = text.clone();
                        c.checked |= selected;
                    }
                    if selected {
                        c.selected.push(text.clone());
                    }
                    c.options.push(text);
                }
            }
            local_name!("button") | local_name!("textarea") => {
                // A button's text is its caption when it has no value; a textarea's text is
                // its initial value.
                if let Some(c) = controls.last_mut()
                    && c.value.is_empty()
                    && matches!(
                        c.kind,
                        ControlKind::Submit | ControlKind::Button | ControlKind::TextArea
                    )
                {
                    c.value = text;
                }
            }
            _ => {}
        }
    }
}

fn unreachable_tree() -> Tree {
    // `Tree::parse_shape("html")` cannot fail; this keeps the no-panic promise without unwrap.
    match Tree::from_preorder(vec![Label::of("html")], &[None], vec![]) {
        Ok(t) => t,
        Err(_) => unreachable!("a one-node preorder is always valid"),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A link joined without the parser is what the parser joins.
        #[test]
        fn a_plain_relative_link_joins_as_the_parser_joins(
            base in "https?://h(:8080)?(/[a-zA-Z0-9.%-]{0,4}){0,3}/?(\\?[a-z=&]{0,4})?(#[a-z]{0,3})?",
            href in "((\\.|\\.\\.|[a-zA-Z0-9._~!$&'()*+,=@:%?# -]{0,4})/?){0,3}",
        ) {
            let base = Url::parse(&base).expect("a base URL");
            if let Some(fast) = join_plain(&base, &href) {
                let parsed = base.join(&href).ok().and_then(http_without_fragment);
                prop_assert_eq!(Some(fast), parsed, "{} + {:?}", base, href);
            }
        }
    }
}

#[cfg(test)]
mod tests;
