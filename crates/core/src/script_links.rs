//! Links a page makes with script: the page URLs named in the same-site scripts it includes.
//!
//! Doxygen's tree view and menu (`navtreedata.js`, `menudata.js`), javadoc's search and many
//! sites' menus build their navigation in script, so a crawler that reads only `<a href>` meets
//! an entry page with no links (assimp's API reference) or misses whole sections. Like
//! Heritrix's speculative JavaScript extractor, but stricter: only a quoted string shaped like a
//! page's URL is taken — no white space, and a path whose last segment ends in an HTML-like
//! extension (`annotated.html`, `../list.php?page=2`, `/docs/a.htm#top`) — and it resolves
//! against the page that includes the script, as a browser resolves a URL that script assigns to
//! `location` or to a link. Scripts are fetched once each ([`ScriptTable`]) and never run.
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::fetch::FetchResult;

/// Distinct scripts fetched per run at most, by default (a site whose every page brings its own
/// script is not building navigation with them).
pub const DEFAULT_MAX_SCRIPTS: usize = 32;
/// Page URLs kept per script at most.
pub const MAX_LINKS_PER_SCRIPT: usize = 5_000;
/// Resolved URLs kept in a table's cache at most; past it the cache starts again (a site with
/// many directories and long scripts would otherwise keep one copy of the list per directory).
const MAX_CACHED_URLS: usize = 200_000;
/// Longest string taken as a URL.
const MAX_URL_LEN: usize = 2_048;
/// Extensions of a page's last path segment (lower case), what marks a string as a page URL.
pub const PAGE_EXTENSIONS: [&str; 8] = [
    ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp",
];

/// The page URLs named in a script's source: quoted strings shaped like a page's URL
/// (see the module docs), unescaped, deduplicated, in source order, at most `max`.
///
/// Comments and regular expression literals are skipped; a string is never taken across a line
/// end (an unterminated quote, or a regular expression taken for a division, cannot swallow the
/// rest of the script).
pub fn page_urls(source: &str, max: usize) -> Vec<String> {
    let bytes = source.as_bytes();
    let mut out: Vec<String> = Vec::new();
    // The last byte of code before `i` that is not white space (0 at the start): whether a `/`
    // opens a regular expression literal or divides.
    let mut prev = 0u8;
    let mut i = 0;
    while i < bytes.len() && out.len() < max {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = memchr(b'\n', bytes, i).unwrap_or(bytes.len());
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(b"*/", bytes, i + 2).map_or(bytes.len(), |e| e + 2);
            }
            b'/' if prev == 0 || b"(,=:[!&|?{};+-*%<>~^".contains(&prev) => {
                i = regex_literal_end(bytes, i + 1).unwrap_or(i + 1);
                prev = b'a';
            }
            q @ (b'"' | b'\'' | b'`') => {
                let (literal, next) = string_literal(source, i + 1, q);
                i = next;
                prev = q;
                if let Some(s) = literal.filter(|s| is_page_url(s))
                    && !out.contains(&s)
                {
                    out.push(s);
                }
            }
            b => {
                if !b.is_ascii_whitespace() {
                    prev = b;
                }
                i += 1;
            }
        }
    }
    out
}

/// Where the regular expression literal whose body starts at `start` ends (just after its
/// closing `/`), or None when the line ends first (it was a division after all).
fn regex_literal_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut in_class = false;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return Some(i + 1),
            b'\n' | b'\r' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The string literal opened by `quote` just before `start`: its value (None when it holds an
/// escape other than `\/`, `\\` and quotes, or ends at a line end or the source's end) and where
/// scanning resumes.
fn string_literal(source: &str, start: usize, quote: u8) -> (Option<String>, usize) {
    let bytes = source.as_bytes();
    let mut value = String::new();
    let mut plain = true;
    let mut i = start;
    let mut run = start;
    while i < bytes.len() {
        match bytes[i] {
            b if b == quote => {
                value.push_str(&source[run..i]);
                let ok = plain && value.len() <= MAX_URL_LEN;
                return (ok.then_some(value), i + 1);
            }
            b'\n' | b'\r' if quote != b'`' => return (None, i),
            b'\\' => {
                value.push_str(&source[run..i]);
                match bytes.get(i + 1) {
                    Some(&c @ (b'/' | b'\\' | b'"' | b'\'' | b'`')) => value.push(char::from(c)),
                    Some(_) => plain = false,
                    None => return (None, bytes.len()),
                }
                // The escaped byte is ASCII or the first byte of a character: skip it whole.
                i += 1 + source[i + 1..].chars().next().map_or(1, char::len_utf8);
                run = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (None, bytes.len())
}

/// Whether a string is shaped like a page's URL: see the module docs.
fn is_page_url(s: &str) -> bool {
    if s.is_empty() || s.len() > MAX_URL_LEN {
        return false;
    }
    if s.chars().any(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '<' | '>' | '"' | '\'' | '`' | '{' | '}' | '\\' | '|' | '^' | '*'
            )
    }) || s.contains("${")
    {
        return false;
    }
    // A scheme must be http(s): `javascript:`, `data:`, `mailto:` name no page.
    if let Some((scheme, _)) = s.split_once(':')
        && !scheme.contains(['/', '?', '#'])
        && !scheme.eq_ignore_ascii_case("http")
        && !scheme.eq_ignore_ascii_case("https")
    {
        return false;
    }
    let path = s.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    PAGE_EXTENSIONS
        .iter()
        .any(|ext| last.len() > ext.len() && last.ends_with(ext))
}

fn memchr(b: u8, bytes: &[u8], from: usize) -> Option<usize> {
    bytes[from..].iter().position(|&c| c == b).map(|p| from + p)
}

fn find(needle: &[u8], bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The canonical URLs of the scripts `page` includes that `in_scope` accepts.
pub fn included<'a>(
    page: &'a crate::dom::Page,
    in_scope: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = String> + 'a {
    page.scripts
        .iter()
        .filter_map(|src| crate::canon::canonicalize(src))
        .filter(move |u| in_scope(u))
}

/// The page URLs of a script resolved against the page that includes it (its base URL),
/// canonical; None where one does not resolve to an http(s) URL.
pub fn resolve(base: &str, urls: &[String]) -> Vec<Option<String>> {
    let Ok(base) = Url::parse(base) else {
        return vec![None; urls.len()];
    };
    urls.iter()
        .map(|u| {
            let joined = base.join(u).ok()?;
            crate::canon::canonicalize(joined.as_str())
        })
        .collect()
}

/// The page URLs of a script's response, or why it gave none (an error status, an HTML page,
/// a body cut at the size limit).
pub fn read(result: FetchResult) -> Result<Vec<String>, String> {
    let r = match result {
        FetchResult::Failed(e) => return Err(e),
        FetchResult::Response(r) => r,
    };
    if !(200..300).contains(&r.status) {
        return Err(format!("HTTP {}", r.status));
    }
    if r.truncated {
        return Err("larger than the size limit".into());
    }
    if r.is_html() {
        return Err("an HTML page, not a script".into());
    }
    Ok(page_urls(
        &String::from_utf8_lossy(&r.body),
        MAX_LINKS_PER_SCRIPT,
    ))
}

/// What became of one script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum ScriptState {
    /// Requested; its result has not been taken.
    Asked,
    /// Read: the page URLs it names (unresolved).
    Read {
        /// As written in the script.
        urls: Vec<String>,
    },
    /// Gave no links.
    Failed {
        /// Why.
        error: String,
    },
}

/// One script and the pages waiting for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Script<W> {
    /// Its state.
    #[serde(flatten)]
    pub state: ScriptState,
    /// The pages that include it and were read before it arrived (the state machine's own
    /// record of each: node id, crawl level…).
    #[serde(default = "Vec::new")]
    pub waiting: Vec<W>,
}

/// What a page including a script does now.
#[derive(Debug, PartialEq)]
pub enum Include {
    /// The script was read: its page URLs are [`ScriptTable::resolved`] (none if it failed).
    Read,
    /// New: request it; the page waits for it.
    Ask,
    /// Already requested: the page waits for it.
    Waiting,
    /// The run's script budget is spent: the page gets no links from it.
    Over,
}

/// The scripts of one run, by canonical URL: requested once each, read once, their links given
/// to every page that includes them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "W: Serialize", deserialize = "W: Deserialize<'de>"))]
pub struct ScriptTable<W> {
    scripts: BTreeMap<String, Script<W>>,
    /// Derived, so not part of a snapshot: rebuilt as pages ask for it.
    #[serde(skip)]
    cache: ResolveCache,
}

impl<W> Default for ScriptTable<W> {
    fn default() -> Self {
        ScriptTable {
            scripts: BTreeMap::new(),
            cache: ResolveCache::default(),
        }
    }
}

/// A read script's page URLs resolved against each base seen, keyed by script and by what of
/// the base a resolution depends on: its directory (every page of a Doxygen site shares one, so
/// its tree view's thousands of URLs are joined once, not once per page).
#[derive(Clone, Default)]
struct ResolveCache {
    resolved: HashMap<(String, String), Arc<[Option<String>]>>,
    urls: usize,
}

impl std::fmt::Debug for ResolveCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ResolveCache({} bases)", self.resolved.len())
    }
}

/// A cache holds nothing of the table's state: two tables are equal whatever their caches hold.
impl PartialEq for ResolveCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What of `base` resolving `urls` depends on: the scheme, authority and directory, unless a
/// URL is relative to the document itself (empty, or only a query or fragment).
fn base_key<'a>(base: &'a str, urls: &[String]) -> &'a str {
    if urls
        .iter()
        .any(|u| u.is_empty() || u.starts_with(['?', '#']))
    {
        return base;
    }
    let end = base.find(['?', '#']).unwrap_or(base.len());
    let path_start = base
        .find("://")
        .and_then(|i| base[i + 3..end].find('/').map(|j| i + 3 + j));
    match (path_start, base[..end].rfind('/')) {
        (Some(p), Some(last)) if last >= p => &base[..=last],
        _ => base,
    }
}

impl<W> ScriptTable<W> {
    /// A page includes the script at `url` (canonical): see [`Include`]. At most `max` distinct
    /// scripts are asked per run.
    pub fn include(&mut self, url: &str, waiter: W, max: usize) -> Include {
        if !self.scripts.contains_key(url) {
            if self.scripts.len() >= max {
                return Include::Over;
            }
            self.scripts.insert(
                url.to_string(),
                Script {
                    state: ScriptState::Asked,
                    waiting: vec![waiter],
                },
            );
            return Include::Ask;
        }
        let Some(s) = self.scripts.get_mut(url) else {
            return Include::Over;
        };
        match &s.state {
            ScriptState::Asked => {
                s.waiting.push(waiter);
                Include::Waiting
            }
            ScriptState::Read { .. } | ScriptState::Failed { .. } => Include::Read,
        }
    }

    /// The page URLs of the script at `url`, read, resolved against `base` as [`resolve`]
    /// does (empty unless it was read). Computed once per script and base directory.
    pub fn resolved(&mut self, url: &str, base: &str) -> Arc<[Option<String>]> {
        let Some(Script {
            state: ScriptState::Read { urls },
            ..
        }) = self.scripts.get(url)
        else {
            return Arc::from(Vec::new());
        };
        let key = (url.to_string(), base_key(base, urls).to_string());
        if let Some(r) = self.cache.resolved.get(&key) {
            return r.clone();
        }
        let r: Arc<[Option<String>]> = resolve(base, urls).into();
        if self.cache.urls + r.len() > MAX_CACHED_URLS {
            self.cache = ResolveCache::default();
        }
        self.cache.urls += r.len();
        self.cache.resolved.insert(key, r.clone());
        r
    }

    /// Records a script's outcome; returns the pages that waited for it when it named page
    /// URLs (their links are [`ScriptTable::resolved`]), and nobody when it failed or named
    /// none. A script not asked, or already answered, releases nobody.
    pub fn answer(&mut self, url: &str, outcome: Result<Vec<String>, String>) -> Vec<W> {
        let Some(s) = self.scripts.get_mut(url) else {
            return Vec::new();
        };
        if s.state != ScriptState::Asked {
            return Vec::new();
        }
        let waiting = std::mem::take(&mut s.waiting);
        match outcome {
            Ok(urls) => {
                let any = !urls.is_empty();
                s.state = ScriptState::Read { urls };
                if any { waiting } else { Vec::new() }
            }
            Err(error) => {
                s.state = ScriptState::Failed { error };
                Vec::new()
            }
        }
    }

    /// Whether `url` is a script asked and not answered yet (a request for it is a
    /// [`crate::fetch::RequestKind::Script`]).
    pub fn is_asked(&self, url: &str) -> bool {
        self.scripts
            .get(url)
            .is_some_and(|s| s.state == ScriptState::Asked)
    }

    /// Every page waiting for a script (to check a restored snapshot).
    pub fn waiters(&self) -> impl Iterator<Item = &W> {
        self.scripts.values().flat_map(|s| &s.waiting)
    }

    /// The scripts, by URL.
    pub fn scripts(&self) -> impl Iterator<Item = (&str, &Script<W>)> {
        self.scripts.iter().map(|(u, s)| (u.as_str(), s))
    }

    /// Whether some script named at least one page URL.
    pub fn any_links(&self) -> bool {
        self.scripts
            .values()
            .any(|s| matches!(&s.state, ScriptState::Read { urls } if !urls.is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::FetchResponse;

    #[test]
    fn doxygen_menus_and_tree_views_name_their_pages() {
        let menudata = r#"/* @licstart ... "licence.html" in a comment */
var menudata={children:[
{text:"Main Page",url:"index.html"},
{text:"Classes",url:"annotated.html",children:[
{text:"a",url:"functions.html#index_a"},
{text:"Class List",url:"annotated.html"}]}]}"#;
        assert_eq!(
            page_urls(menudata, 100),
            ["index.html", "annotated.html", "functions.html#index_a"]
        );
        let navtree = r#"var NAVTREE = [ [ "Assimp", "index.html", [
    [ "Namespaces", "namespaces.html", [ [ "Namespace List", "namespaces.html", "namespaces_dup" ] ] ],
    [ "Classes", 'annotated.html', null ] ] ] ];
var NAVTREEINDEX = [ "annotated.html", "class_a_1_1_b.html" ]; // "commented.html"
"#;
        assert_eq!(
            page_urls(navtree, 100),
            [
                "index.html",
                "namespaces.html",
                "annotated.html",
                "class_a_1_1_b.html"
            ]
        );
        assert_eq!(page_urls(navtree, 2).len(), 2);
    }

    #[test]
    fn only_strings_shaped_like_page_urls_are_taken() {
        let js = r#"
            var a = "text/html", b = ".html", c = "*.html", d = "jquery.js", e = "a b.html";
            var f = "javascript:go('x.html')", g = "mailto:me@x.html", h = `${base}/x.html`;
            var i = "https://example.com/docs/a.HTM?x=1", j = "../list.php?page=2";
            var k = "c:\\path\\x.html", l = "\/escaped\/page.html", m = "\u0041.html";
            var re = /"/; var n = "after-a-regex.html";
            var o = 'unterminated.html
            var p = "ok.aspx";
        "#;
        assert_eq!(
            page_urls(js, 100),
            [
                "https://example.com/docs/a.HTM?x=1",
                "../list.php?page=2",
                "/escaped/page.html",
                "after-a-regex.html",
                "ok.aspx"
            ]
        );
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        for s in [
            "\"",
            "'",
            "`",
            "\\",
            "\"\\",
            "'a\\",
            "/*",
            "//",
            "\"é\\é.html\"",
            "'\\\u{1F600}x.html'",
            "`multi\nline.html`",
            "\"x.html\"\"y.html\"",
        ] {
            let _ = page_urls(s, 10);
        }
        assert_eq!(page_urls("`multi\nline.html`", 10), Vec::<String>::new());
        assert_eq!(page_urls("\"x.html\"'y.html'", 10), ["x.html", "y.html"]);
    }

    #[test]
    fn urls_resolve_against_the_including_page() {
        let urls = vec![
            "list.html#top".to_string(),
            "/a/b.html".into(),
            "https://o.org/x.html".into(),
        ];
        assert_eq!(
            resolve("http://h.org/docs/index.html", &urls),
            [
                Some("http://h.org/docs/list.html".to_string()),
                Some("http://h.org/a/b.html".to_string()),
                Some("https://o.org/x.html".to_string())
            ]
        );
        assert_eq!(resolve("not a url", &urls), [None, None, None]);
    }

    fn response(status: u16, content_type: &str, body: &str) -> FetchResult {
        FetchResult::Response(FetchResponse {
            status,
            final_url: String::new(),
            headers: vec![("content-type".into(), content_type.into())],
            body: body.as_bytes().to_vec(),
            truncated: false,
        })
    }

    #[test]
    fn a_script_is_asked_once_and_its_links_go_to_every_page_including_it() {
        let mut t: ScriptTable<u32> = ScriptTable::default();
        assert_eq!(t.include("http://h/m.js", 1, 2), Include::Ask);
        assert_eq!(t.include("http://h/m.js", 2, 2), Include::Waiting);
        assert_eq!(t.include("http://h/n.js", 3, 2), Include::Ask);
        assert_eq!(t.include("http://h/o.js", 4, 2), Include::Over);
        let m = read(response(200, "text/javascript", r#"go("a.html")"#));
        assert_eq!(t.answer("http://h/m.js", m), vec![1, 2]);
        // Answered once: a second answer releases nobody.
        assert_eq!(t.answer("http://h/m.js", Ok(vec![])), Vec::<u32>::new());
        assert_eq!(t.include("http://h/m.js", 5, 2), Include::Read);
        let a = t.resolved("http://h/m.js", "http://h/d/p.html");
        assert_eq!(&*a, [Some("http://h/d/a.html".to_string())]);
        let failed = read(response(404, "text/html", "<p>no"));
        assert_eq!(failed, Err("HTTP 404".to_string()));
        // A failed script releases its waiters with nothing to link.
        assert_eq!(t.answer("http://h/n.js", failed), Vec::<u32>::new());
        assert_eq!(t.include("http://h/n.js", 6, 2), Include::Read);
        assert!(t.resolved("http://h/n.js", "http://h/d/p.html").is_empty());
        assert!(t.resolved("http://h/unknown.js", "http://h/").is_empty());
        assert!(t.any_links());
        assert_eq!(
            read(response(200, "text/html", "<a href=x.html>")),
            Err("an HTML page, not a script".to_string())
        );
        // Round-trips as serde data.
        let json = serde_json::to_string(&t).unwrap_or_default();
        let back: ScriptTable<u32> = serde_json::from_str(&json).expect("table round-trips");
        assert_eq!(back, t);
    }

    #[test]
    fn resolutions_are_shared_by_pages_of_one_directory_and_no_further() {
        let mut t: ScriptTable<u32> = ScriptTable::default();
        let js = r#"m = ["a.html", "../up.html", "/root.html", "//other/x.html", "b.html?q=1#f"];"#;
        assert_eq!(t.include("http://h/m.js", 1, 4), Include::Ask);
        t.answer("http://h/m.js", read(response(200, "text/javascript", js)));
        let urls = page_urls(js, 100);
        // Whatever the cache holds, each base gets what resolving against it gives.
        for base in [
            "http://h/d/p.html",
            "http://h/d/q.html?x=1#top",
            "http://h/d/",
            "http://h/e/p.html",
            "http://h/",
            "http://h",
            "https://h/d/p.html",
            "http://g/d/p.html",
            "http://h/d/p.html",
        ] {
            assert_eq!(
                t.resolved("http://h/m.js", base).to_vec(),
                resolve(base, &urls),
                "{base}"
            );
        }
        // Pages of one directory share one entry; other directories, hosts and schemes do not.
        assert_eq!(t.cache.resolved.len(), 6);
        assert_eq!(base_key("http://h/d/p.html?a/b", &urls), "http://h/d/");
        assert_eq!(base_key("http://h", &urls), "http://h");
        // A URL relative to the document itself keys on the whole base.
        let own = ["?page=2.html".to_string()];
        assert_eq!(base_key("http://h/d/p.html?x", &own), "http://h/d/p.html?x");
        // Snapshots leave the cache out, and a restored table rebuilds it.
        let json = serde_json::to_string(&t).unwrap_or_default();
        assert!(!json.contains("cache"), "{json}");
        let mut back: ScriptTable<u32> = serde_json::from_str(&json).expect("table round-trips");
        assert_eq!(
            back.resolved("http://h/m.js", "http://h/d/p.html").to_vec(),
            resolve("http://h/d/p.html", &urls)
        );
    }
}
