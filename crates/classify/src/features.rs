//! The page-kind feature vector: a fixed list of numbers computed from a [`Page`] alone.
//!
//! Owns the feature definitions ([`NAMES`], [`extract`]) and the word lists they read
//! (`data/classify/index-words.txt`, `data/classify/chrome-words.txt`). Every feature is
//! scale-robust — a logarithm (`ln(1 + x)`), a ratio or a flag — so that a model trained on some
//! sites transfers to sites of other sizes. "Links" are same-site links (host without `www.`),
//! fragments dropped, links back to the page itself excluded unless said otherwise; a link's
//! *target* is its URL.
//!
//! *Chrome* is site navigation: everything inside `nav`/`header`/`footer`/`aside` or an element
//! whose class tokens contain a word of `chrome-words.txt` (`navheader`, `sphinxsidebar`,
//! `top-nav`, `tabs`, …). The `main_*` features look at the page without its chrome.
//!
//! | feature | definition |
//! |---|---|
//! | **design §7, general** | |
//! | `links_log` | same-site links (the page itself included) |
//! | `prefix_group_log` | largest group of distinct targets sharing a path prefix (URL path minus its last segment) |
//! | `prefix_group_frac` | that group / distinct targets |
//! | `path_group_log` | DOM variant: largest group of distinct targets whose links share a tag path (root → link) |
//! | `sibling_group_log` | DOM variant: largest group of distinct targets whose links sit at the same place in repeated sibling items (item: nearest ancestor-or-self, ≤ 6 levels up, with ≥ 3 same-tag siblings; key: the item's parent and the tag path item → link) |
//! | `anchor_len_log` | mean anchor text length, characters (all links) |
//! | `anchor_words` | mean anchor length, words (all links; capped at 20) |
//! | **structure** | |
//! | `link_density` | link text / visible text, characters |
//! | `links_per_knode` | links per 1000 tree nodes, log |
//! | `list_link_frac` | share of links inside `li`/`tr`/`dt`/`dd` |
//! | `rep_hash_log` | largest set of structurally identical siblings (same subtree hash) |
//! | `rep_hash_cover` | nodes covered by the largest such set (≥ 2 members) / tree size |
//! | `headings_log` | `h1`–`h6` elements |
//! | `headings_per_knode` | headings per 1000 nodes, log |
//! | `tree_log` | tree nodes |
//! | `text_log` | visible text characters |
//! | `paragraph_frac` | `p` elements per 100 nodes |
//! | `pre_frac` | share of the tree under `pre` |
//! | `dl_items_log` | `dt` elements |
//! | `table_rows_log` | `tr` elements |
//! | **design §7, domain** | |
//! | `images_log` | images |
//! | `prices_log` | price-looking strings |
//! | `forms` | forms (capped at 3) |
//! | `text_inputs` | text/search inputs and text areas (capped at 3) |
//! | **URL** | |
//! | `path_depth` | segments of the URL path (capped at 4) |
//! | `last_index_word` | the last path segment is empty or one of its words is an index word (`index-words.txt`) |
//! | `last_has_digits` | the last path segment carries a digit (an id) |
//! | `last_words_log` | words in the last path segment, extension excluded |
//! | **title** | |
//! | `title_words_log` | words in the title |
//! | `title_index_word` | a title word is an index word |
//! | `title_is_index` | a whole title segment is index words only (`Index — Python documentation`: a site-wide index of terms) |
//! | `title_numbered` | the title starts with a section number (`9.4. `, `F.5. `) |
//! | `title_url_full` | a title segment fully names the URL's last segment (see [`title_url_match`]) |
//! | `title_url_partial` | the best title segment only partly does |
//! | **repetition** | |
//! | `links_per_target` | same-site links (page included) per distinct target, log |
//! | `repeat_links` | links per distinct target with table-of-contents sub-entries not counted, log (a later link to a page inside the `li`/`dt` entry of an earlier link to it, or in the `dd` after that `dt`, is a sub-entry) |
//! | **main content (chrome removed)** | |
//! | `chrome_share` | text nodes in chrome / text nodes |
//! | `main_links_log` | links outside chrome |
//! | `main_targets_log` | their distinct targets |
//! | `main_repeat` | `repeat_links` of those links |
//! | `main_link_text` | text nodes inside links / text nodes, outside chrome |
//! | `main_text_log` | text nodes outside chrome |
//! | `main_record_share` | share of records (block elements with ≥ 3 same-tag siblings) holding a link, outside chrome |
//! | `main_list_log` | the main list: largest group of distinct targets sharing both tag path and path prefix, outside chrome |
//! | `main_list_frac` | main list / distinct targets outside chrome |
//! | `main_anchor_words` | mean anchor words of the links outside chrome (capped at 20) |
//! | `main_headings_log` | headings outside chrome |
//! | `kind_id` | an element holding much of the page has an id naming the page after a kind prefix (`section#module-json` on `json.html`, `article#post-42` on `/post/42`), and the id is no heading's anchor |
//! | **what the page declares** (`data/classify/declared-kinds.txt`) | |
//! | `declares_entity` | it declares a type naming one thing (`og:article`, schema.org `Product`, `NewsArticle`, `QAPage`, …) |
//! | `declares_index` | it declares a collection type (schema.org `CollectionPage`, `SearchResultsPage`, `ItemList`, …) |
//! | `declares_site` | its `og:type` is `website` |
//! | `rel_next` | a link with relation `next` or `prev` |
//! | **the web's own shapes** | |
//! | `heading_words_log` | words in the main heading ([`Page::heading`]) |
//! | `heading_in_title` | the main heading, two words or more, is part of the title |
//! | `long_paragraphs_log` | `p` elements with at least 150 bytes of text |
//! | `paragraph_share` | bytes of text in those paragraphs / bytes of visible text |
//! | `longest_paragraph_log` | bytes of text of the longest `p` |
//! | `numeric_anchors_log` | links whose text is a number (page bars) |
//! | `time_log` | `time` elements |
//! | `article_log` | `article` elements |
//! | `query_index` | a query parameter of the URL is a pagination, search, sort or filter one (`data/classify/index-params.txt`) |
//! | `slug_words_log` | words in the last non-empty path segment (`/2015/03/this-api-is-fetching/` → 4) |
//! | `slug_has_digits` | that segment carries a digit |
//! | `date_in_path` | a path segment is a year (1990–2039) followed by a month or day segment |
//! | `scripts_log` | external scripts (`script src`; at most 64 are recorded) |
//! | `paged_url` | the URL names page N of something: a path segment of `page-words.txt` followed by a number (`/page/3/`), or such a word with the number in one segment (`/p8`, `/page2.html`) |
//! | `paged_title` | the title holds a word of `page-words.txt` followed by a number ("Page 3 of 7") |
//! | `declares_any` | the page declares anything of [`Page::declares`] (publishing metadata: documentation generators rarely write it) |

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use url::Url;

use exemplar_html::{ControlKind, Label, Link, NodeId, Page, Tree};

/// Feature names, in vector order. The model file stores them; a model whose names differ is not
/// loaded.
pub const NAMES: &[&str] = &[
    "links_log",
    "prefix_group_log",
    "prefix_group_frac",
    "path_group_log",
    "sibling_group_log",
    "anchor_len_log",
    "anchor_words",
    "link_density",
    "links_per_knode",
    "list_link_frac",
    "rep_hash_log",
    "rep_hash_cover",
    "headings_log",
    "headings_per_knode",
    "tree_log",
    "text_log",
    "paragraph_frac",
    "pre_frac",
    "dl_items_log",
    "table_rows_log",
    "images_log",
    "prices_log",
    "forms",
    "text_inputs",
    "path_depth",
    "last_index_word",
    "last_has_digits",
    "last_words_log",
    "title_words_log",
    "title_index_word",
    "title_is_index",
    "title_numbered",
    "title_url_full",
    "title_url_partial",
    "links_per_target",
    "repeat_links",
    "chrome_share",
    "main_links_log",
    "main_targets_log",
    "main_repeat",
    "main_link_text",
    "main_text_log",
    "main_record_share",
    "main_list_log",
    "main_list_frac",
    "main_anchor_words",
    "main_headings_log",
    "kind_id",
    "declares_entity",
    "declares_index",
    "declares_site",
    "rel_next",
    "heading_words_log",
    "heading_in_title",
    "long_paragraphs_log",
    "paragraph_share",
    "longest_paragraph_log",
    "numeric_anchors_log",
    "time_log",
    "article_log",
    "query_index",
    "slug_words_log",
    "slug_has_digits",
    "date_in_path",
    "scripts_log",
    "declares_any",
    "paged_url",
    "paged_title",
];

/// Number of features.
pub const COUNT: usize = NAMES.len();

/// A same-site link to another page.
struct Out<'a> {
    link: &'a Link,
    /// Target URL (fragment dropped).
    url: String,
    /// Target URL path.
    path: String,
}

/// Computes the feature vector of a page (see the module docs for the definitions), in
/// [`NAMES`] order.
pub fn extract(page: &Page) -> Vec<f64> {
    extract_named(page).into_iter().map(|(_, v)| v).collect()
}

/// [`extract`] with each value's name.
pub fn extract_named(page: &Page) -> Vec<(&'static str, f64)> {
    let tree = &page.tree;
    let n_nodes = tree.len().max(1) as f64;
    let page_url = defragment(&page.url);
    let page_path = url_path(page_url);

    // Links.
    let n_links = page.links.len();
    let n_same = page.same_site_links().count();
    let out: Vec<Out<'_>> = page
        .same_site_links()
        .filter_map(|l| {
            let u = defragment(&l.url);
            (u != page_url).then(|| Out {
                link: l,
                url: u.to_string(),
                path: url_path(u),
            })
        })
        .collect();
    let n_targets = out
        .iter()
        .map(|o| o.url.as_str())
        .collect::<HashSet<_>>()
        .len();
    let prefix_group = largest_group(out.iter().map(|o| (path_prefix(&o.path), o.url.as_str())));
    let path_group = largest_group(
        out.iter()
            .map(|o| (tag_path(tree, o.link.node), o.url.as_str())),
    );
    let siblings = same_label_siblings(tree);
    let sibling_group =
        largest_group(out.iter().filter_map(|o| {
            sibling_key(tree, &siblings, o.link.node).map(|k| (k, o.url.as_str()))
        }));
    let anchor_chars: usize = page.links.iter().map(|l| l.text.chars().count()).sum();
    let anchor_words: usize = page
        .links
        .iter()
        .map(|l| l.text.split_whitespace().count())
        .sum();
    let list_tags = [
        Label::of("li"),
        Label::of("tr"),
        Label::of("dt"),
        Label::of("dd"),
    ];
    let in_list = page
        .links
        .iter()
        .filter(|l| ancestors(tree, l.node).any(|a| list_tags.contains(&tree.label(a))))
        .count();

    // Structure.
    let (rep_hash, rep_hash_nodes) = repeated_siblings(tree);
    let count = |name: &str| {
        let l = Label::of(name);
        tree.labels().iter().filter(|&&x| x == l).count()
    };
    let heading_tags = heading_labels();
    let headings = tree
        .labels()
        .iter()
        .filter(|l| heading_tags.contains(l))
        .count();
    let pre_nodes = covered_by(tree, Label::of("pre"));
    let text_inputs = page
        .controls
        .iter()
        .filter(|c| matches!(c.kind, ControlKind::Text | ControlKind::TextArea))
        .count();

    // URL.
    let segments: Vec<&str> = page_path.split('/').filter(|s| !s.is_empty()).collect();
    let last = if page_path.ends_with('/') {
        ""
    } else {
        segments.last().copied().unwrap_or("")
    };
    let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
    let stem_words = split_words(stem);
    let slug = segments.last().copied().unwrap_or("");
    let slug_stem = slug.rsplit_once('.').map_or(slug, |(s, _)| s);
    let long_paragraphs: Vec<u32> = page
        .paragraphs
        .iter()
        .copied()
        .filter(|&n| n >= LONG_PARAGRAPH)
        .collect();
    let iw = index_words();
    let last_index = stem.is_empty() || stem_words.iter().any(|w| iw.contains(w));

    // Title.
    let title_words = split_words(&page.title);
    let title_url = title_url_match(&page.title, stem);

    let main = main_content(tree, &siblings, &out);
    let text_chars = page.text_chars as f64;
    let flag = |b: bool| f64::from(u8::from(b));
    vec![
        ("links_log", ln1p(n_same as f64)),
        ("prefix_group_log", ln1p(prefix_group as f64)),
        (
            "prefix_group_frac",
            ratio(prefix_group as f64, n_targets as f64),
        ),
        ("path_group_log", ln1p(path_group as f64)),
        ("sibling_group_log", ln1p(sibling_group as f64)),
        (
            "anchor_len_log",
            ln1p(ratio(anchor_chars as f64, n_links as f64)),
        ),
        (
            "anchor_words",
            ratio(anchor_words as f64, n_links as f64).min(20.0),
        ),
        (
            "link_density",
            ratio(page.link_text_chars as f64, text_chars).min(1.0),
        ),
        ("links_per_knode", ln1p(n_links as f64 * 1000.0 / n_nodes)),
        ("list_link_frac", ratio(in_list as f64, n_links as f64)),
        ("rep_hash_log", ln1p(rep_hash as f64)),
        ("rep_hash_cover", rep_hash_nodes as f64 / n_nodes),
        ("headings_log", ln1p(headings as f64)),
        (
            "headings_per_knode",
            ln1p(headings as f64 * 1000.0 / n_nodes),
        ),
        ("tree_log", ln1p(n_nodes)),
        ("text_log", ln1p(text_chars)),
        ("paragraph_frac", count("p") as f64 * 100.0 / n_nodes),
        ("pre_frac", pre_nodes as f64 / n_nodes),
        ("dl_items_log", ln1p(count("dt") as f64)),
        ("table_rows_log", ln1p(count("tr") as f64)),
        ("images_log", ln1p(page.image_count as f64)),
        ("prices_log", ln1p(page.price_count() as f64)),
        ("forms", page.forms.len().min(3) as f64),
        ("text_inputs", text_inputs.min(3) as f64),
        ("path_depth", segments.len().min(4) as f64),
        ("last_index_word", flag(last_index)),
        (
            "last_has_digits",
            flag(stem.bytes().any(|b| b.is_ascii_digit())),
        ),
        ("last_words_log", ln1p(stem_words.len() as f64)),
        ("title_words_log", ln1p(title_words.len() as f64)),
        (
            "title_index_word",
            flag(title_words.iter().any(|w| iw.contains(w))),
        ),
        (
            "title_is_index",
            flag(title_segments(&page.title).iter().any(|seg| {
                let ws = split_words(seg);
                !ws.is_empty() && ws.iter().all(|w| iw.contains(w))
            })),
        ),
        ("title_numbered", flag(section_number(&page.title))),
        ("title_url_full", flag(title_url >= 1.0)),
        (
            "title_url_partial",
            flag(title_url > 0.0 && title_url < 1.0),
        ),
        (
            "links_per_target",
            ln1p(ratio(n_same as f64, n_targets as f64)),
        ),
        ("repeat_links", repeat_links(tree, &out)),
        ("chrome_share", main.chrome_share),
        ("main_links_log", ln1p(main.links as f64)),
        ("main_targets_log", ln1p(main.targets as f64)),
        ("main_repeat", main.repeat),
        ("main_link_text", main.link_text),
        ("main_text_log", ln1p(main.text as f64)),
        ("main_record_share", main.record_share),
        ("main_list_log", ln1p(main.list as f64)),
        (
            "main_list_frac",
            ratio(main.list as f64, main.targets as f64),
        ),
        ("main_anchor_words", main.anchor_words),
        ("main_headings_log", ln1p(main.headings as f64)),
        ("kind_id", flag(page.declares_kind)),
        ("declares_entity", flag(declared_kind(page, "entity"))),
        ("declares_index", flag(declared_kind(page, "index"))),
        ("declares_site", flag(declared_kind(page, "site"))),
        (
            "rel_next",
            flag(page.declares.iter().any(|d| d.starts_with("rel:"))),
        ),
        (
            "heading_words_log",
            ln1p(page.heading.split_whitespace().count() as f64),
        ),
        ("heading_in_title", flag(heading_in_title(page))),
        ("long_paragraphs_log", ln1p(long_paragraphs.len() as f64)),
        (
            "paragraph_share",
            ratio(
                long_paragraphs.iter().map(|&n| f64::from(n)).sum(),
                page.text.len() as f64,
            )
            .min(1.0),
        ),
        (
            "longest_paragraph_log",
            ln1p(f64::from(
                page.paragraphs.iter().copied().max().unwrap_or(0),
            )),
        ),
        (
            "numeric_anchors_log",
            ln1p(page.links.iter().filter(|l| is_number(&l.text)).count() as f64),
        ),
        ("time_log", ln1p(count("time") as f64)),
        ("article_log", ln1p(count("article") as f64)),
        ("query_index", flag(query_index(page_url))),
        ("slug_words_log", ln1p(split_words(slug_stem).len() as f64)),
        (
            "slug_has_digits",
            flag(slug_stem.bytes().any(|b| b.is_ascii_digit())),
        ),
        ("date_in_path", flag(date_in_path(&segments))),
        ("scripts_log", ln1p(page.scripts.len() as f64)),
        ("declares_any", flag(!page.declares.is_empty())),
        ("paged_url", flag(paged_url(&segments))),
        ("paged_title", flag(paged_title(&page.title))),
    ]
}

/// Paragraphs of this many bytes of text or more are prose, not snippets.
const LONG_PARAGRAPH: u32 = 150;

/// Whether the page declares a type of this kind (`data/classify/declared-kinds.txt`).
fn declared_kind(page: &Page, kind: &str) -> bool {
    let kinds = declared_kinds();
    page.declares
        .iter()
        .any(|d| kinds.get(d.as_str()).is_some_and(|(k, _)| k == kind))
}

/// A [`Page::declares`] entry's name as `data/classify/declared-kinds.txt` spells it
/// (`schema:newsarticle` → `schema:NewsArticle`), when it is a type that says a kind.
pub fn declared_name(declared: &str) -> Option<&'static str> {
    declared_kinds()
        .get(declared)
        .map(|(_, name)| name.as_str())
}

/// Declared types by their lower-case form: kind and spelling
/// (`data/classify/declared-kinds.txt`: `KIND TYPE` per line).
fn declared_kinds() -> &'static HashMap<String, (String, String)> {
    static KINDS: OnceLock<HashMap<String, (String, String)>> = OnceLock::new();
    KINDS.get_or_init(|| {
        include_str!("../../../data/classify/declared-kinds.txt")
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter_map(|l| l.split_once(' '))
            .map(|(k, t)| {
                let t = t.trim();
                (t.to_lowercase(), (k.to_string(), t.to_string()))
            })
            .collect()
    })
}

/// Whether the main heading (two words or more) is part of the title, case aside.
fn heading_in_title(page: &Page) -> bool {
    page.heading.split_whitespace().count() >= 2
        && page
            .title
            .to_lowercase()
            .contains(&page.heading.trim().to_lowercase())
}

/// Whether an anchor text is a number (1 to 4 digits): a page bar's link.
fn is_number(text: &str) -> bool {
    let t = text.trim();
    (1..=4).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a query parameter of the URL is a pagination, search, sort or filter one.
fn query_index(url: &str) -> bool {
    let params = index_params();
    Url::parse(url).is_ok_and(|u| {
        u.query_pairs()
            .any(|(k, _)| params.contains(&k.to_ascii_lowercase()))
    })
}

/// Query parameter names of collection views (`data/classify/index-params.txt`).
fn index_params() -> &'static HashSet<String> {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS.get_or_init(|| word_list(include_str!("../../../data/classify/index-params.txt")))
}

/// Words naming "page N" (`data/classify/page-words.txt`).
fn page_words() -> &'static HashSet<String> {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS.get_or_init(|| word_list(include_str!("../../../data/classify/page-words.txt")))
}

/// Whether the URL's path names page N: a page word then a number segment, or one segment of
/// a page word and digits (an extension aside).
fn paged_url(segments: &[&str]) -> bool {
    let words = page_words();
    let number = |s: &str| !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit());
    let word = |s: &str| words.contains(&s.to_lowercase());
    segments
        .windows(2)
        .any(|w| word(w[0]) && number(w[1].split('.').next().unwrap_or("")))
        || segments.iter().any(|s| {
            let stem = s.split('.').next().unwrap_or(s);
            let head = stem.trim_end_matches(|c: char| c.is_ascii_digit());
            let head = head.trim_end_matches(['-', '_']);
            head.len() < stem.len() && word(head)
        })
}

/// Whether the title holds a page word followed by a number ("Page 3", "Seite 2 von 9").
fn paged_title(title: &str) -> bool {
    let words = page_words();
    let tokens: Vec<String> = title
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '|' | '-' | '–' | '—' | ':' | ',' | '(' | ')')
        })
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    tokens
        .windows(2)
        .any(|w| words.contains(&w[0]) && w[1].chars().all(|c| c.is_numeric()) && !w[1].is_empty())
}

/// Whether a path segment is a year (1990–2039) followed by a numeric month or day segment.
fn date_in_path(segments: &[&str]) -> bool {
    segments.windows(2).any(|w| {
        let year = w[0].len() == 4 && w[0].parse::<u32>().is_ok_and(|y| (1990..2040).contains(&y));
        let next = (1..=2).contains(&w[1].len()) && w[1].bytes().all(|b| b.is_ascii_digit());
        year && next
    })
}

fn ln1p(x: f64) -> f64 {
    x.max(0.0).ln_1p()
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// The URL without its fragment.
fn defragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// The largest group of distinct same-site link targets sharing a path prefix (what the
/// `prefix_group_*` features measure): the prefix and its size, `("", 0)` without links.
pub fn largest_prefix_group(page: &Page) -> (String, usize) {
    let page_url = defragment(&page.url);
    let mut groups: HashMap<String, HashSet<&str>> = HashMap::new();
    for l in page.same_site_links() {
        let u = defragment(&l.url);
        if u != page_url {
            groups
                .entry(path_prefix(&url_path(u)).to_string())
                .or_default()
                .insert(u);
        }
    }
    groups
        .into_iter()
        .map(|(k, v)| (k, v.len()))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap_or_default()
}

/// The path of a URL ("" when it does not parse).
fn url_path(url: &str) -> String {
    Url::parse(url)
        .map(|u| u.path().to_string())
        .unwrap_or_default()
}

/// The path minus its last segment (`/a/b/c.html` → `/a/b/`).
fn path_prefix(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..=i])
}

/// The `h1`–`h6` labels.
fn heading_labels() -> [Label; 6] {
    ["h1", "h2", "h3", "h4", "h5", "h6"].map(Label::of)
}

/// Ancestors of a node, nearest first.
fn ancestors(tree: &Tree, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    std::iter::successors(tree.parent(node), move |&x| tree.parent(x))
}

/// Nodes inside elements with this label (outermost ones; the element included).
fn covered_by(tree: &Tree, label: Label) -> usize {
    let labels = tree.labels();
    let (mut covered, mut i) = (0usize, 0usize);
    while i < labels.len() {
        if labels[i] == label {
            let s = tree.size(i as NodeId) as usize;
            covered += s;
            i += s;
        } else {
            i += 1;
        }
    }
    covered
}

/// For each node, the number of its siblings (itself included) with the same tag.
fn same_label_siblings(tree: &Tree) -> Vec<u32> {
    let mut out = vec![1u32; tree.len()];
    let mut counts: HashMap<Label, u32> = HashMap::new();
    for node in 0..tree.len() as NodeId {
        if tree.size(node) <= 1 {
            continue;
        }
        counts.clear();
        for c in tree.children(node) {
            *counts.entry(tree.label(c)).or_insert(0) += 1;
        }
        for c in tree.children(node) {
            out[c as usize] = counts[&tree.label(c)];
        }
    }
    out
}

/// The largest set of structurally identical siblings (same subtree hash) under one parent, and
/// the nodes covered by the largest such set with at least two members.
fn repeated_siblings(tree: &Tree) -> (usize, usize) {
    let (mut most, mut covered) = (0usize, 0usize);
    let mut by_hash: HashMap<u64, (usize, usize)> = HashMap::new();
    for node in 0..tree.len() as NodeId {
        if tree.size(node) <= 2 {
            continue;
        }
        by_hash.clear();
        for c in tree.children(node) {
            let e = by_hash.entry(tree.hash(c)).or_insert((0, 0));
            e.0 += 1;
            e.1 += tree.size(c) as usize;
        }
        for &(count, nodes) in by_hash.values() {
            most = most.max(count);
            if count >= 2 {
                covered = covered.max(nodes);
            }
        }
    }
    (most, covered)
}

/// Hash of the tag path from the root down to `node` (inclusive).
fn tag_path(tree: &Tree, node: NodeId) -> u64 {
    std::iter::once(node)
        .chain(ancestors(tree, node))
        .fold(0xcbf2_9ce4_8422_2325, |h, x| {
            (h ^ u64::from(tree.label(x).0)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// The sibling-structure key of a link: the nearest ancestor-or-self (up to 6 levels up) with at
/// least 3 same-tag siblings is its item; the key is the item's parent and the tag path from the
/// item down to the link.
fn sibling_key(tree: &Tree, siblings: &[u32], link: NodeId) -> Option<(NodeId, u64)> {
    let mut x = link;
    let mut rel: u64 = 0x811c_9dc5;
    for _ in 0..6 {
        rel = (rel ^ u64::from(tree.label(x).0)).wrapping_mul(0x0100_0000_01b3);
        let parent = tree.parent(x)?;
        if siblings[x as usize] >= 3 {
            return Some((parent, rel));
        }
        x = parent;
    }
    None
}

/// Size of the largest group of distinct targets per key.
fn largest_group<'a, K: std::hash::Hash + Eq>(items: impl Iterator<Item = (K, &'a str)>) -> usize {
    let mut groups: HashMap<K, HashSet<&str>> = HashMap::new();
    for (k, v) in items {
        groups.entry(k).or_default().insert(v);
    }
    groups.values().map(HashSet::len).max().unwrap_or(0)
}

/// Words that mark a listing page (`data/classify/index-words.txt`).
fn index_words() -> &'static HashSet<String> {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS.get_or_init(|| word_list(include_str!("../../../data/classify/index-words.txt")))
}

/// One lower-case word per line; `#` starts a comment.
fn word_list(text: &str) -> HashSet<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Words that mark page chrome in class names (`data/classify/chrome-words.txt`).
fn chrome_words() -> &'static Vec<String> {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut w: Vec<String> = word_list(include_str!("../../../data/classify/chrome-words.txt"))
            .into_iter()
            .collect();
        w.sort();
        w
    })
}

/// Which nodes are page chrome (navigation, header, footer, sidebar): inside an element whose tag
/// is `nav`, `header`, `footer` or `aside`, or whose class tokens contain a chrome word.
pub fn chrome_mask(tree: &Tree) -> Vec<bool> {
    let tags = [
        Label::of("nav"),
        Label::of("header"),
        Label::of("footer"),
        Label::of("aside"),
    ];
    let words = chrome_words();
    let classes = tree.class_labels();
    let mut verdict: HashMap<Label, bool> = HashMap::new();
    let mut mask = vec![false; tree.len()];
    for i in 0..tree.len() {
        let node = i as NodeId;
        let in_chrome = tree.parent(node).is_some_and(|p| mask[p as usize]);
        if in_chrome || tags.contains(&tree.label(node)) {
            mask[i] = true;
            continue;
        }
        if let Some(&cl) = classes.get(i) {
            mask[i] = *verdict.entry(cl).or_insert_with(|| {
                let name = tree.label_name(cl).to_ascii_lowercase();
                name.split('.')
                    .skip(1)
                    .any(|token| words.iter().any(|w| token.contains(w.as_str())))
            });
        }
    }
    mask
}

/// The page without its chrome.
#[derive(Default)]
struct Main {
    chrome_share: f64,
    links: usize,
    targets: usize,
    repeat: f64,
    link_text: f64,
    text: usize,
    record_share: f64,
    list: usize,
    anchor_words: f64,
    headings: usize,
}

fn main_content(tree: &Tree, siblings: &[u32], out: &[Out<'_>]) -> Main {
    let chrome = chrome_mask(tree);
    let n = tree.len();
    let mut in_link = vec![false; n];
    for o in out {
        let start = o.link.node as usize;
        let end = (start + tree.size(o.link.node) as usize).min(n);
        in_link[start..end].iter_mut().for_each(|v| *v = true);
    }
    let heading_tags = heading_labels();
    let (mut text, mut chrome_text, mut link_text, mut headings) = (0usize, 0usize, 0usize, 0usize);
    for (i, &label) in tree.labels().iter().enumerate() {
        if label == Label::TEXT {
            if chrome[i] {
                chrome_text += 1;
            } else {
                text += 1;
                link_text += usize::from(in_link[i]);
            }
        } else if !chrome[i] && heading_tags.contains(&label) {
            headings += 1;
        }
    }
    let main: Vec<&Out<'_>> = out
        .iter()
        .filter(|o| !chrome[o.link.node as usize])
        .collect();
    let targets = main
        .iter()
        .map(|o| o.url.as_str())
        .collect::<HashSet<_>>()
        .len();
    let list = largest_group(main.iter().map(|o| {
        (
            (tag_path(tree, o.link.node), path_prefix(&o.path)),
            o.url.as_str(),
        )
    }));
    let unchromed: Vec<u32> = siblings
        .iter()
        .zip(&chrome)
        .map(|(&s, &c)| if c { 0 } else { s })
        .collect();
    let words: usize = main
        .iter()
        .map(|o| o.link.text.split_whitespace().count())
        .sum();
    Main {
        chrome_share: ratio(chrome_text as f64, (text + chrome_text) as f64),
        links: main.len(),
        targets,
        repeat: repeat_links(tree, main.iter().copied()),
        link_text: ratio(link_text as f64, text as f64),
        text,
        record_share: record_links(tree, &unchromed, &main),
        list,
        anchor_words: ratio(words as f64, main.len() as f64).min(20.0),
        headings,
    }
}

/// How often the page links again to pages it already linked, sub-entries aside: links per
/// distinct target (logarithm). A later link to a page is a sub-entry, not counted, when it lies
/// inside the list item (`li`/`dt`, up to 4 levels up) of an earlier counted link to that page or
/// in the `dd` right after that `dt` — a table-of-contents entry's sub-entries point into its page. A
/// member list, whose every row links into the same few pages, scores high; a listing of distinct
/// pages scores `ln 2`.
fn repeat_links<'a, 'b: 'a>(tree: &Tree, links: impl IntoIterator<Item = &'a Out<'b>>) -> f64 {
    let li = Label::of("li");
    let dt = Label::of("dt");
    let dd = Label::of("dd");
    let n = tree.len() as u32;
    // Per target: the node ranges of the entries of its counted links.
    let mut entries: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    let mut counted = 0usize;
    for o in links {
        let node = o.link.node;
        let ranges = entries.entry(o.url.as_str()).or_default();
        if ranges.iter().any(|&(a, b)| node >= a && node < b) {
            continue;
        }
        counted += 1;
        let mut x = tree.parent(node);
        for _ in 0..4 {
            let Some(item) = x else { break };
            let label = tree.label(item);
            if label == li || label == dt {
                let end = item + tree.size(item);
                ranges.push((item, end));
                if label == dt
                    && end < n
                    && tree.label(end) == dd
                    && tree.parent(end) == tree.parent(item)
                {
                    ranges.push((end, end + tree.size(end)));
                }
                break;
            }
            x = tree.parent(item);
        }
    }
    ln1p(ratio(counted as f64, entries.len() as f64))
}

/// Whether a title starts with a section number: digits or one capital letter, then `.digits`
/// groups, then `. ` (`9.4. `, `F.5. `, `4. `).
fn section_number(title: &str) -> bool {
    let b = title.trim_start().as_bytes();
    let mut i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if i == 0 {
        if b.first().is_some_and(u8::is_ascii_uppercase) {
            i = 1;
        } else {
            return false;
        }
    }
    loop {
        if b.get(i) != Some(&b'.') {
            return false;
        }
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return b.get(i + 1).is_some_and(u8::is_ascii_whitespace);
        }
        i += 1 + digits;
    }
}

/// Records: block elements repeated at least 3 times among their siblings (`siblings`: same-tag
/// sibling counts; list items, table rows, definition terms, paragraphs, divs…; inline tags and
/// text excluded). Returns the share of records holding one of the links. In a listing every
/// record holds a link; in prose or on a detail page most do not.
fn record_links(tree: &Tree, siblings: &[u32], links: &[&Out<'_>]) -> f64 {
    const INLINE: [&str; 14] = [
        "a", "span", "code", "em", "strong", "b", "i", "br", "img", "tt", "var", "sup", "sub",
        "wbr",
    ];
    let inline: Vec<Label> = INLINE.iter().map(|t| Label::of(t)).collect();
    let mut link_nodes: Vec<u32> = links.iter().map(|o| o.link.node).collect();
    link_nodes.sort_unstable();
    let (mut records, mut linked) = (0usize, 0usize);
    for node in 1..tree.len() as NodeId {
        let label = tree.label(node);
        if label == Label::TEXT || siblings[node as usize] < 3 || inline.contains(&label) {
            continue;
        }
        records += 1;
        let end = node + tree.size(node);
        let i = link_nodes.partition_point(|&x| x < node);
        if link_nodes.get(i).is_some_and(|&x| x < end) {
            linked += 1;
        }
    }
    ratio(linked as f64, records as f64)
}

/// Words of a URL segment: split at non-alphanumerics and at letter/digit boundaries.
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_digit = None;
    for c in s.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_digit = None;
            continue;
        }
        let digit = c.is_ascii_digit();
        if prev_digit.is_some_and(|d| d != digit) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
        prev_digit = Some(digit);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The segments of a title: split at ` — `, ` – `, ` - `, ` | `, ` · `, `: ` and ` (` (the
/// page's own name and the site's name usually sit in different segments).
fn title_segments(title: &str) -> Vec<String> {
    let mut t = title.to_string();
    for sep in [" — ", " – ", " - ", " | ", " · ", ": ", " ("] {
        t = t.replace(sep, "\u{1f}");
    }
    t.split('\u{1f}').map(str::to_string).collect()
}

/// Folds common Latin accents to ASCII (`imóvel` → `imovel`), for matching titles with URLs.
fn fold(c: char) -> char {
    const FROM: &str = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿ";
    const TO: &str = "aaaaaaceeeeiiiinooooouuuuyy";
    FROM.chars()
        .position(|x| x == c)
        .and_then(|i| TO.chars().nth(i))
        .unwrap_or(c)
}

/// How well the title names the page's URL: the largest share, over the title's segments (split
/// at ` — `, ` – `, ` - `, ` | `, ` · `, `: `, ` (`), of a segment's words found in the URL's last
/// segment (as one of its words or, for words of 3+ characters, inside it); a segment whose
/// letters and digits all appear together inside the URL segment counts fully (`CREATE TABLE`
/// names `sql-createtable`, `pg_dump` names `app-pgdump`). An entity page's URL is usually its
/// name.
pub fn title_url_match(title: &str, stem: &str) -> f64 {
    let folded = |s: &str| -> String { s.chars().flat_map(char::to_lowercase).map(fold).collect() };
    let stem = folded(stem);
    let stem_words: HashSet<String> = split_words(&stem).into_iter().collect();
    let stem_key: String = stem.chars().filter(|c| c.is_alphanumeric()).collect();
    if stem_key.is_empty() {
        return 0.0;
    }
    title_segments(&folded(title))
        .iter()
        .map(|seg| {
            let key: String = seg.chars().filter(|c| c.is_alphanumeric()).collect();
            if key.chars().count() >= 3 && stem_key.contains(&key) {
                return 1.0;
            }
            let ws = split_words(seg);
            let hits = ws
                .iter()
                .filter(|w| {
                    stem_words.contains(*w) || (w.len() >= 3 && stem_key.contains(w.as_str()))
                })
                .count();
            ratio(hits as f64, ws.len() as f64)
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str, url: &str) -> Page {
        Page::from_html(html, url).unwrap()
    }

    fn value(p: &Page, name: &str) -> f64 {
        let named = extract_named(p);
        named
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no feature {name}"))
    }

    #[test]
    fn names_and_values_line_up() {
        let p = page("<title>x</title><p>y", "http://e.com/a");
        let named = extract_named(&p);
        let names: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, NAMES);
        assert_eq!(extract(&p).len(), COUNT);
        assert!(named.iter().all(|(_, v)| v.is_finite()));
    }

    #[test]
    fn kind_id_is_an_id_naming_the_page_after_a_kind_not_a_heading_anchor() {
        let body = |id: &str, h: &str| {
            format!(
                "<body><nav><a href='/'>Home</a></nav><section id='{id}'><h1>{h}</h1>\
                 <p>one</p><p>two</p><dl><dt>f</dt><dd>does</dd></dl></section></body>"
            )
        };
        let kind = |id: &str, h: &str, url: &str| value(&page(&body(id, h), url), "kind_id");
        // Sphinx's module page: the main section is `module-` plus the page's name.
        assert_eq!(
            kind(
                "module-json",
                "json — JSON",
                "http://e.com/library/json.html"
            ),
            1.0
        );
        // The same id on a page of another name declares nothing.
        assert_eq!(
            kind(
                "module-json",
                "json — JSON",
                "http://e.com/library/csv.html"
            ),
            0.0
        );
        // A heading's anchor that happens to end with the page's name is no kind.
        assert_eq!(
            kind("reporting-bugs", "Reporting Bugs", "http://e.com/bugs.html"),
            0.0
        );
        // An id that is the page's name alone has no kind prefix.
        assert_eq!(kind("json", "JSON", "http://e.com/json.html"), 0.0);
    }

    #[test]
    fn link_groups_on_a_small_listing() {
        // Nav: 2 links into /; list: 4 items under /p/ (one linked twice); one link to itself.
        let html = "<nav><a href='/'>Home</a><a href='/about'>About</a></nav>\
            <ul><li><a href='/p/1'>One thing</a></li><li><a href='/p/2'>Two</a></li>\
            <li><a href='/p/3'>Three</a></li><li><a href='/p/4'>Four</a> <a href='/p/4'>again</a></li></ul>\
            <a href='/list#top'>top</a><a href='http://other.org/x'>elsewhere</a>";
        let p = page(html, "http://e.com/list");
        // Same-site links: 2 + 5 + 1 (self) = 8.
        assert!((value(&p, "links_log") - 9f64.ln()).abs() < 1e-9);
        // Distinct targets (self excluded): /, /about, /p/1..4 = 6; largest prefix group /p/ = 4.
        assert!((value(&p, "prefix_group_log") - 5f64.ln()).abs() < 1e-9);
        assert!((value(&p, "prefix_group_frac") - 4.0 / 6.0).abs() < 1e-9);
        // Tag path ul/li/a holds 4 distinct targets; the sibling structure (li items) too.
        assert!((value(&p, "path_group_log") - 5f64.ln()).abs() < 1e-9);
        assert!((value(&p, "sibling_group_log") - 5f64.ln()).abs() < 1e-9);
        // 5 of 9 links sit in list items.
        assert!((value(&p, "list_link_frac") - 5.0 / 9.0).abs() < 1e-9);
        // Chrome (the nav) aside: 5 links to 4 targets.
        assert!((value(&p, "main_links_log") - 6f64.ln()).abs() < 1e-9);
        assert!((value(&p, "main_targets_log") - 5f64.ln()).abs() < 1e-9);
        assert_eq!(value(&p, "last_index_word"), 1.0);
        assert_eq!(value(&p, "last_has_digits"), 0.0);
    }

    #[test]
    fn toc_sub_entries_are_not_repeats_but_member_rows_are() {
        let toc = "<ul><li><a href='a.html'>A</a><ul><li><a href='a.html#x'>A.x</a></li>\
            <li><a href='a.html#y'>A.y</a></li></ul></li><li><a href='b.html'>B</a></li>\
            <li><a href='c.html'>C</a></li></ul>";
        let p = page(toc, "http://e.com/toc.html");
        assert!((value(&p, "repeat_links") - 2f64.ln()).abs() < 1e-9);
        let mut rows = String::from("<table>");
        for m in ["bind", "copy", "create", "getSize"] {
            rows.push_str(&format!(
                "<tr><td><a href='T.html#{m}'>{m}</a></td><td><a href='T.html'>T</a></td></tr>"
            ));
        }
        rows.push_str("</table>");
        let p = page(&rows, "http://e.com/T-members.html");
        // 8 links, one target.
        assert!((value(&p, "repeat_links") - 9f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn structure_counts() {
        let html = "<h1>T</h1><h2>a</h2><p>x</p><p>y</p><pre>code\nmore</pre>\
            <dl><dt>k</dt><dd>v</dd><dt>k2</dt><dd>v2</dd></dl><table><tr><td>1</td></tr></table>\
            <img src=a.png><p>R$ 10,00</p><form><input name=q></form>";
        let p = page(html, "http://e.com/x/item-42");
        assert!((value(&p, "headings_log") - 3f64.ln()).abs() < 1e-9);
        assert!((value(&p, "dl_items_log") - 3f64.ln()).abs() < 1e-9);
        assert!((value(&p, "table_rows_log") - 2f64.ln()).abs() < 1e-9);
        assert!((value(&p, "images_log") - 2f64.ln()).abs() < 1e-9);
        assert!((value(&p, "prices_log") - 2f64.ln()).abs() < 1e-9);
        assert_eq!(value(&p, "forms"), 1.0);
        assert_eq!(value(&p, "text_inputs"), 1.0);
        assert_eq!(value(&p, "path_depth"), 2.0);
        assert_eq!(value(&p, "last_has_digits"), 1.0);
        assert!(value(&p, "pre_frac") > 0.0);
        // Three identical `p(#text)` siblings? No: two p(#text) and one p(#text) — all three are
        // `p` with one text child, so they hash alike.
        assert!((value(&p, "rep_hash_log") - 4f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn section_numbers() {
        assert!(section_number("9.4. String Functions and Operators"));
        assert!(section_number("F.5. auth_delay"));
        assert!(section_number("4. More Control Flow Tools"));
        assert!(!section_number("Chapter 9. Functions"));
        assert!(!section_number("2to3 — Automated translation"));
        assert!(!section_number("Python 3.11.4 documentation"));
        assert!(!section_number(""));
        assert!(!section_number("9."));
    }

    #[test]
    fn title_names_url() {
        assert_eq!(title_url_match("VACUUM", "sql-vacuum"), 1.0);
        assert_eq!(title_url_match("CREATE TABLE", "sql-createtable"), 1.0);
        assert_eq!(title_url_match("pg_dump", "app-pgdump"), 1.0);
        assert_eq!(
            title_url_match(
                "json — JSON encoder and decoder — Python 3.11 documentation",
                "json"
            ),
            1.0
        );
        assert_eq!(
            title_url_match(
                "StringUtils (Apache Commons Lang 3.12.0 API)",
                "StringUtils"
            ),
            1.0
        );
        let partial = title_url_match("9.4. String Functions and Operators", "functions-string");
        assert!(partial > 0.0 && partial < 1.0, "{partial}");
        assert_eq!(title_url_match("Dictionary Objects", "dict"), 0.0);
        assert_eq!(title_url_match("Anything", ""), 0.0);
        let accents = title_url_match("Como financiar seu imóvel", "como-financiar-seu-imovel");
        assert_eq!(accents, 1.0);
    }

    #[test]
    fn chrome_is_found_by_tag_and_class() {
        let p = page(
            "<div class='navheader'><a href='/'>Home</a></div><div class=body><p>text</p></div>\
             <footer><p>c</p></footer><div class='sphinxsidebar'>s</div>",
            "http://e.com/",
        );
        let chrome = chrome_mask(&p.tree);
        let names: Vec<&str> = (0..p.tree.len() as NodeId)
            .filter(|&i| chrome[i as usize] && p.tree.label(i) != Label::TEXT)
            .map(|i| p.tree.name(i))
            .collect();
        assert_eq!(names, ["div", "a", "footer", "p", "div"]);
    }

    #[test]
    fn empty_and_linkless_pages_are_finite() {
        for html in ["", "<p>only text", "<a href='#x'>self</a>"] {
            let p = page(html, "http://e.com/");
            assert!(extract(&p).iter().all(|v| v.is_finite()), "{html}");
        }
    }
}
