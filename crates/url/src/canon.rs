//! URL canonicalisation, site scope, crawler-trap guards and content signatures: how the mapper
//! and the crawler decide that two URLs are one page, that a URL is on the site, and that a URL
//! leads into a trap.
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use regex::Regex;
use serde::{Deserialize, Serialize};
use url::Url;

/// Query parameters that carry session ids (data file, one lower-case name per line).
const SESSION_PARAMS: &str = include_str!("../../../data/session-params.txt");
/// Query parameters that only track where a visitor came from (data file; `utm_*` a prefix).
const TRACKING_PARAMS: &str = include_str!("../../../data/tracking-params.txt");

/// Whether the query parameter `name` carries a session id or tracking, never the page asked
/// for: canonical URLs drop it.
fn is_session_param(name: &str) -> bool {
    // Read once: every query parameter of every link is asked about.
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        SESSION_PARAMS
            .lines()
            .chain(TRACKING_PARAMS.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    });
    names.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => name
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix)),
        None => p.eq_ignore_ascii_case(name),
    })
}

/// Canonical form of a URL, the crawler's identity of a page: http(s) only; scheme and host
/// lower case; default port, fragment, an empty query, session-id and tracking parameters
/// (`utm_*`, click ids) dropped (also `;jsessionid=` path parameters); percent-encoding normalised (unreserved characters
/// decoded, hex digits upper case); dot segments resolved; an empty path is `/`.
pub fn canonicalize(url: &str) -> Option<String> {
    match written_canonical(url) {
        Some(written) => Some(written.to_string()),
        None => canonicalize_parsed(url),
    }
}

/// [`canonicalize`] by parsing `url`.
fn canonicalize_parsed(url: &str) -> Option<String> {
    let mut u = Url::parse(url.trim()).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    u.host_str()?;
    u.set_fragment(None);
    // `url` already lower-cases scheme and host, drops default ports and resolves dot segments.
    let path = strip_path_session(u.path());
    let path = normalise_percent(&path);
    u.set_path(&path);
    if let Some(q) = u.query() {
        let kept: Vec<String> = q
            .split('&')
            .filter(|kv| !kv.is_empty())
            .filter(|kv| {
                let name = kv.split('=').next().unwrap_or("");
                !is_session_param(&percent_decode_lossy(name))
            })
            .map(normalise_percent)
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else {
            u.set_query(Some(&kept.join("&")));
        }
    }
    Some(u.to_string())
}

/// `url` itself when it is already canonical as written (once its fragment is cut): parsed as
/// written ([`written_parsed`]), with no empty or session query parameters. Pages' links mostly
/// are, and parsing each one again was a twentieth of mapping's CPU time in a profile of
/// `exemplar learn`. `None` means "parse it".
fn written_canonical(url: &str) -> Option<&str> {
    let url = written_parsed(url)?;
    if let Some((_, q)) = url.split_once('?')
        && q.split('&')
            .any(|kv| kv.is_empty() || is_session_param(kv.split('=').next().unwrap_or("")))
    {
        return None;
    }
    Some(url)
}

/// `url` without its fragment when that is how the WHATWG parser writes it: an origin as
/// [`written_origin`] reads it, a path of plain characters without dot segments and a
/// non-empty query of plain characters. `None` means "parse it", not "invalid".
pub(crate) fn written_parsed(url: &str) -> Option<&str> {
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    let origin = written_origin(url)?;
    let rest = &url[origin.len()..];
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    if !path.starts_with('/') || !plain_path(path) {
        return None;
    }
    // Characters the parser copies as they are in a query (not `'`, which it encodes there).
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-._~/?!$&()*+,=:@".contains(&b);
    if let Some(q) = query
        && (q.is_empty() || !q.bytes().all(plain))
    {
        return None;
    }
    Some(url)
}

/// Whether the parser copies `path` as it is (absolute, or relative to a base path): only
/// characters it copies in a path (no `%`, `;` or `\`, nothing it encodes) and no `.` or `..`
/// segment.
pub fn plain_path(path: &str) -> bool {
    path.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,=:@".contains(&b))
        && !path.split('/').any(|seg| seg == "." || seg == "..")
}

/// Removes `;name=value` path parameters whose name is a session parameter.
fn strip_path_session(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let mut parts = seg.split(';');
            let head = parts.next().unwrap_or("");
            let mut out = head.to_string();
            for p in parts {
                let name = p.split('=').next().unwrap_or("");
                if !is_session_param(name) {
                    out.push(';');
                    out.push_str(p);
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Decodes `%XX` of unreserved characters, upper-cases the hex of the others.
fn normalise_percent(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            match hex_escape(s, i) {
                Some(v) if is_unreserved(v) => out.push(v as char),
                Some(_) => {
                    out.push('%');
                    out.push_str(&s[i + 1..i + 3].to_ascii_uppercase());
                }
                // A stray `%` is written as the escape it stands for, so that a decoded
                // neighbour cannot complete it into an escape on the next pass (`%%30a`).
                None => {
                    out.push_str("%25");
                    i += 1;
                    continue;
                }
            }
            i += 3;
            continue;
        }
        let ch_len = s[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&s[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// The byte of the `%XX` escape at `i` (two hex digits; `from_str_radix` alone would also take
/// a sign).
fn hex_escape(s: &str, i: usize) -> Option<u8> {
    let h = s.get(i + 1..i + 3)?;
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(h, 16).ok()
}

fn percent_decode_lossy(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = hex_escape(s, i)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Site identity of a URL: host lower case without a leading `www.`, plus the port when it is
/// not the scheme's default.
pub fn site_key(url: &str) -> Option<String> {
    site_key_cow(url).map(Cow::into_owned)
}

/// [`site_key`], borrowed from `url` when it has the plain shape canonical URLs have.
fn site_key_cow(url: &str) -> Option<Cow<'_, str>> {
    match plain_site_key(url) {
        Some(k) => Some(Cow::Borrowed(k)),
        None => parsed_site_key(url).map(Cow::Owned),
    }
}

/// [`site_key`] through the URL parser (any URL).
fn parsed_site_key(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    Some(match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// Which URLs a run may visit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// [`site_key`] of the entry.
    pub site: String,
    /// Subdomains of the site are in scope too.
    #[serde(default)]
    pub include_subdomains: bool,
    /// When not empty, only URLs matching one of these regexes.
    #[serde(default)]
    pub allow: Vec<String>,
    /// URLs matching one of these regexes are out.
    #[serde(default)]
    pub deny: Vec<String>,
}

impl Scope {
    /// The scope of an entry URL's site.
    pub fn for_url(entry: &str, include_subdomains: bool) -> Option<Scope> {
        Some(Scope {
            site: site_key(entry)?,
            include_subdomains,
            allow: Vec::new(),
            deny: Vec::new(),
        })
    }

    /// Compiles the allow/deny regexes.
    ///
    /// # Errors
    /// A regex that does not compile, named in the message.
    pub fn compile(&self) -> Result<CompiledScope, String> {
        let build = |list: &[String], what: &str| {
            list.iter()
                .map(|r| Regex::new(r).map_err(|e| format!("bad {what} pattern {r:?}: {e}")))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(CompiledScope {
            site: self.site.clone(),
            include_subdomains: self.include_subdomains,
            allow: build(&self.allow, "allow")?,
            deny: build(&self.deny, "deny")?,
        })
    }
}

/// A [`Scope`] ready to test URLs.
#[derive(Clone, Debug)]
pub struct CompiledScope {
    site: String,
    include_subdomains: bool,
    allow: Vec<Regex>,
    deny: Vec<Regex>,
}

/// [`site_key`] without parsing, for the URLs [`written_origin`] reads; `None` for the others,
/// which go through the parser. Every link of every page is scope-checked, and a full parse
/// per link was a visible share of mapping.
fn plain_site_key(url: &str) -> Option<&str> {
    let (_, authority) = written_origin(url)?.split_once("://")?;
    Some(authority.strip_prefix("www.").unwrap_or(authority))
}

/// The `scheme://host[:port]` that `url` starts with, when parsing `url` could not change it:
/// `http(s)://`, no user info, a host of lower-case letters, digits, dots and dashes in
/// non-empty labels, none an IDNA `xn--` label (an IPv4 address only in its canonical dotted
/// form: a last label starting with a digit makes the parser read the host as IPv4) and an
/// optional non-default port. `None` means "parse it", not "invalid". Canonical URLs have this
/// shape, and the mapper and the frontier ask for the origin of many URLs per page.
pub fn written_origin(url: &str) -> Option<&str> {
    let (scheme, default_port) = if url.starts_with("https://") {
        (8, "443")
    } else if url.starts_with("http://") {
        (7, "80")
    } else {
        return None;
    };
    let rest = &url.as_bytes()[scheme..];
    let end = rest
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b'\\'))
        .unwrap_or(rest.len());
    let authority = &url[scheme..scheme + end];
    let (host, port) = match authority.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    };
    // One pass over the host (this runs for many URLs per page): plain bytes, no empty label,
    // no `xn--` label; where the last label starts.
    let h = host.as_bytes();
    let mut label = 0;
    for (i, &b) in h.iter().enumerate() {
        if b == b'.' {
            if i == label {
                return None;
            }
            label = i + 1;
        } else if !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            || (i == label && h[i..].starts_with(b"xn--"))
        {
            return None;
        }
    }
    if label == h.len() {
        return None;
    }
    if h[label].is_ascii_digit() {
        // Canonical dotted IPv4 only: four labels of one to three digits, no leading zero, none
        // above 255 (read in one pass: every link of a site served from an address comes here).
        let (mut labels, mut value, mut digits) = (0, 0u32, 0);
        for &b in h.iter().chain([b'.'].iter()) {
            if b == b'.' {
                labels += 1;
                if digits == 0 || value > 255 || labels > 4 {
                    return None;
                }
                (value, digits) = (0, 0);
            } else if b.is_ascii_digit() && digits < 3 && !(digits == 1 && value == 0) {
                value = value * 10 + u32::from(b - b'0');
                digits += 1;
            } else {
                return None;
            }
        }
        if labels != 4 {
            return None;
        }
    }
    if let Some(p) = port {
        let canonical = !p.is_empty()
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && !p.starts_with('0')
            && p.parse::<u32>().is_ok_and(|v| v <= 65_535)
            && p != default_port;
        if !canonical {
            return None;
        }
    }
    Some(&url[..scheme + authority.len()])
}

impl CompiledScope {
    /// Whether the URL is in scope: http(s), same site (or a subdomain when allowed), allowed,
    /// not denied.
    pub fn contains(&self, url: &str) -> bool {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return false;
        }
        let Some(key) = site_key_cow(url) else {
            return false;
        };
        let same = key == self.site
            || (self.include_subdomains && key.ends_with(&format!(".{}", self.site)));
        same && (self.allow.is_empty() || self.allow.iter().any(|r| r.is_match(url)))
            && !self.deny.iter().any(|r| r.is_match(url))
            && !ends_session(url)
    }
}

/// Words naming a link that ends the user's session (data file).
const LOGOUT_WORDS: &str = include_str!("../../../data/logout-words.txt");

/// Whether `url` (absolute) ends the user's session: its path or query holds a logout word as a
/// word of its own (`/logout`, `/account/sign-out`, `?action=logoff`; not `/blog/logouts`). A
/// crawl with the user's cookies must never follow one; no crawl needs one.
pub fn ends_session(url: &str) -> bool {
    static WORDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        LOGOUT_WORDS
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    });
    let rest = url
        .find("://")
        .and_then(|i| url[i + 3..].find('/').map(|j| &url[i + 3 + j..]))
        .unwrap_or("");
    // Every link of every page is asked about: compared in place, no lower-cased copy.
    let bytes = rest.split('#').next().unwrap_or(rest).as_bytes();
    let edge = |b: Option<&u8>| b.is_none_or(|c| !c.is_ascii_alphanumeric());
    words.iter().any(|w| {
        let w = w.as_bytes();
        bytes.windows(w.len()).enumerate().any(|(at, window)| {
            window.eq_ignore_ascii_case(w)
                && edge(at.checked_sub(1).and_then(|i| bytes.get(i)))
                && edge(bytes.get(at + w.len()))
        })
    })
}

/// The longest POST body a key may carry (see [`TrapGuard::check`]).
pub const MAX_POST_BODY: usize = 64 * 1024;

/// Bounds against crawler traps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TrapLimits {
    /// Longest URL followed.
    pub max_url_len: usize,
    /// A path segment may occur at most this many times in one path.
    pub max_segment_repeats: usize,
    /// Path segments at most.
    pub max_path_depth: usize,
    /// Query parameters at most.
    pub max_query_params: usize,
    /// Distinct URLs of one shape (digit runs and query values abstracted) at most: bounds
    /// endless calendars and id sequences that do not lead anywhere new.
    pub max_per_shape: usize,
    /// Distinct query-parameter-name sets per path at most: bounds facet combinations.
    pub max_facets_per_path: usize,
}

impl Default for TrapLimits {
    fn default() -> Self {
        TrapLimits {
            max_url_len: 1024,
            max_segment_repeats: 2,
            max_path_depth: 16,
            max_query_params: 8,
            max_per_shape: 5000,
            max_facets_per_path: 16,
        }
    }
}

/// Why the guard refused a URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TrapReason {
    /// Longer than `max_url_len`.
    TooLong,
    /// A path segment repeats (`/a/b/a/b/a/b`).
    RepeatedSegments,
    /// Deeper than `max_path_depth`.
    TooDeep,
    /// More query parameters than `max_query_params`.
    TooManyParams,
    /// Too many URLs of this shape.
    ShapeBudget,
    /// Too many parameter combinations on this path.
    FacetBudget,
}

impl TrapReason {
    /// What the limit is, for a user: `past 5000 URLs of one shape`.
    pub fn describe(self, l: &TrapLimits) -> String {
        match self {
            TrapReason::TooLong => format!("longer than {} characters", l.max_url_len),
            TrapReason::RepeatedSegments => format!(
                "a path segment repeated more than {} times",
                l.max_segment_repeats
            ),
            TrapReason::TooDeep => format!("deeper than {} path segments", l.max_path_depth),
            TrapReason::TooManyParams => {
                format!("more than {} query parameters", l.max_query_params)
            }
            TrapReason::ShapeBudget => format!(
                "past {} URLs of one shape (digits and query values aside)",
                l.max_per_shape
            ),
            TrapReason::FacetBudget => format!(
                "past {} sets of query parameters on one path",
                l.max_facets_per_path
            ),
        }
    }
}

/// The URLs the guard refused for one reason: how many, the first, and the limit in words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    /// The reason.
    pub reason: TrapReason,
    /// URLs refused for it.
    pub count: usize,
    /// The first of them.
    pub example: String,
    /// [`TrapReason::describe`] with the guard's limits.
    pub limit: String,
}

/// The stateful trap guard (serde data, part of snapshots).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrapGuard {
    limits: TrapLimits,
    shapes: HashMap<String, usize>,
    facets: HashMap<String, BTreeSet<String>>,
    /// What was refused, by reason in the order first met: a user is told (gitweb's one shape
    /// had 147,745 links refused, silently).
    #[serde(default)]
    refused: Vec<Refusal>,
}

impl TrapGuard {
    /// A guard with these limits.
    pub fn new(limits: TrapLimits) -> TrapGuard {
        TrapGuard {
            limits,
            shapes: HashMap::new(),
            facets: HashMap::new(),
            refused: Vec::new(),
        }
    }

    /// Checks a new URL (call once per distinct URL); `Some` means skip it, and is counted
    /// ([`TrapGuard::refusals`]).
    pub fn check(&mut self, url: &str) -> Option<TrapReason> {
        let reason = self.verdict(url)?;
        match self.refused.iter_mut().find(|r| r.reason == reason) {
            Some(r) => r.count += 1,
            None => self.refused.push(Refusal {
                reason,
                count: 1,
                example: url.to_string(),
                limit: reason.describe(&self.limits),
            }),
        }
        Some(reason)
    }

    /// What the guard refused so far, by reason.
    pub fn refusals(&self) -> &[Refusal] {
        &self.refused
    }

    fn verdict(&mut self, url: &str) -> Option<TrapReason> {
        let l = &self.limits;
        // A key's fragment is a POST body (the core's `action#exemplar-post=body`; canonical
        // URLs have none): the request line is what a trap lengthens, while a form's view
        // state is routinely kilobytes long. The body is bounded on its own.
        let sent = url.split('#').next().unwrap_or(url);
        if sent.len() > l.max_url_len || url.len() - sent.len() > MAX_POST_BODY {
            return Some(TrapReason::TooLong);
        }
        let Ok(u) = Url::parse(url) else {
            return Some(TrapReason::TooLong);
        };
        let segs: Vec<&str> = u.path().split('/').filter(|s| !s.is_empty()).collect();
        if segs.len() > l.max_path_depth {
            return Some(TrapReason::TooDeep);
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for s in &segs {
            let c = counts.entry(s).or_default();
            *c += 1;
            if *c > l.max_segment_repeats {
                return Some(TrapReason::RepeatedSegments);
            }
        }
        let query = u.query().unwrap_or("");
        let names: BTreeSet<String> = query_names(query).map(|k| k.to_string()).collect();
        if query_names(query).count() > l.max_query_params {
            return Some(TrapReason::TooManyParams);
        }
        let path_key = format!("{}{}", u.host_str().unwrap_or(""), u.path());
        let combo = names.iter().cloned().collect::<Vec<_>>().join("&");
        let max_facets = l.max_facets_per_path;
        let set = self.facets.entry(path_key).or_default();
        if !set.contains(&combo) {
            if set.len() >= max_facets {
                return Some(TrapReason::FacetBudget);
            }
            set.insert(combo.clone());
        }
        let shape = format!(
            "{}{}?{combo}",
            u.host_str().unwrap_or(""),
            abstract_digits(u.path())
        );
        let max_shape = l.max_per_shape;
        let n = self.shapes.entry(shape).or_default();
        if *n >= max_shape {
            return Some(TrapReason::ShapeBudget);
        }
        *n += 1;
        None
    }
}

/// The parameter names of a query string, in order (repeats kept). Parameters are separated
/// by `&` or `;` (HTML 4's recommendation, which CGI scripts such as gitweb follow:
/// `p=repo.git;a=commit;h=…`), so such URLs get shapes by their parameters as others do.
pub fn query_names(query: &str) -> impl Iterator<Item = &str> {
    query
        .split(['&', ';'])
        .filter(|kv| !kv.is_empty())
        .map(|kv| kv.split_once('=').map_or(kv, |(k, _)| k))
}

/// `s` with every run of ASCII digits replaced by one `#`: the shape shared by `/2019/01/` and
/// `/2020/3/`, by the trap guard's URL shapes and the similarity's place of a page.
pub fn abstract_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// A stable 64-bit signature (FNV-1a) of whitespace-normalised text: the same page under
/// several URLs has one signature. Stable across runs and platforms (snapshots keep it).
pub fn content_signature(text: &str) -> u64 {
    let mut s = Signature::new();
    s.push(text.trim());
    s.finish()
}

/// [`content_signature`] of text given in pieces, without joining them: the signature of the
/// pieces' concatenation (leading and trailing ASCII whitespace dropped, runs of ASCII
/// whitespace read as one space).
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    h: u64,
    /// Some non-space byte was hashed (leading whitespace is dropped).
    started: bool,
    /// Whitespace seen since the last hashed byte (hashed as one space before the next one).
    space: bool,
}

impl Default for Signature {
    fn default() -> Self {
        Signature::new()
    }
}

impl Signature {
    /// An empty text's signature, to push pieces into.
    pub fn new() -> Signature {
        Signature {
            h: FNV_OFFSET,
            started: false,
            space: false,
        }
    }

    /// Appends a piece of text.
    pub fn push(&mut self, piece: &str) {
        for b in piece.bytes() {
            if b.is_ascii_whitespace() {
                self.space = self.started;
                continue;
            }
            if self.space {
                self.h = fnv_step(self.h, b' ');
                self.space = false;
            }
            self.started = true;
            self.h = fnv_step(self.h, b);
        }
    }

    /// The hash a word pushed now would be hashed from: the pending space (the one between
    /// pieces) included. For hashing a word byte by byte ([`fnv_step`]) before deciding whether
    /// to keep it ([`Signature::keep_word`]).
    pub fn word_start(&self) -> u64 {
        if self.space {
            fnv_step(self.h, b' ')
        } else {
            self.h
        }
    }

    /// Appends a word hashed from [`Signature::word_start`] (`hash`, at least one byte, no
    /// whitespace) and a space after it: what `push(word)` and `push(" ")` give.
    pub fn keep_word(&mut self, hash: u64) {
        self.h = hash;
        self.started = true;
        self.space = true;
    }

    /// Appends a hash of something else (a piece that is not text: a link's own hash, so a
    /// set of links is read without joining them). Ends any pending space.
    pub fn push_hash(&mut self, h: u64) {
        self.h = mix_bytes(self.h, &h.to_le_bytes());
        self.started = true;
        self.space = false;
    }

    /// The signature of everything pushed.
    pub fn finish(&self) -> u64 {
        self.h
    }
}

/// FNV-1a of raw bytes: identical responses (not merely the same text) have one hash.
pub fn bytes_signature(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| fnv_step(h, b))
}

/// `bytes` hashed into `h` eight bytes a step (a byte a step, as FNV goes, costs several times
/// as much on a page's body or text), then their length: a run and the same with zero bytes
/// after it differ. Stable across platforms (little-endian words): signatures made with it are
/// kept and compared from one run to the next.
pub fn mix_bytes(mut h: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |h: u64, w: u64| {
        let h = (h ^ w).wrapping_mul(K);
        h ^ (h >> 29)
    };
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix(h, u64::from_le_bytes(w));
    }
    let mut w = [0u8; 8];
    let rest = chunks.remainder();
    w[..rest.len()].copy_from_slice(rest);
    mix(mix(h, u64::from_le_bytes(w)), bytes.len() as u64)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// One byte of FNV-1a.
pub fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_percent_signs_are_escaped_once() {
        let c = canonicalize("http://a.org/?%%30a").expect("canonical");
        assert_eq!(c, "http://a.org/?%250a");
        assert_eq!(canonicalize(&c).as_deref(), Some(c.as_str()));
        // `%+1` is no escape (a sign is not a hex digit).
        assert_eq!(
            canonicalize("http://a.org/p%+1").as_deref(),
            Some("http://a.org/p%25+1")
        );
    }

    #[test]
    fn plain_site_keys_and_what_goes_to_the_parser() {
        assert_eq!(
            plain_site_key("http://www.example.com/a?b"),
            Some("example.com")
        );
        assert_eq!(
            plain_site_key("https://127.0.0.1:8080/x"),
            Some("127.0.0.1:8080")
        );
        assert_eq!(plain_site_key("http://h-1.org"), Some("h-1.org"));
        assert_eq!(plain_site_key("http://0.10.200.255/"), Some("0.10.200.255"));
        for url in [
            "http://Example.com/", // case
            "http://127.1/",       // IPv4 shorthand
            "http://0x7f.0.0.1/",  // hex IPv4
            "http://01.2.3.4/",    // leading zero (octal)
            "http://1.2.3.010/",   // leading zero (octal)
            "http://256.1.1.1/",   // above 255
            "http://1.2.3.4.5/",   // five labels
            "http://1.2.3/",       // three labels
            "http://1.2.3.1234/",  // four digits
            "http://1.2..4/",      // empty label
            "http://h.org:80/",    // default port
            "https://h.org:0443/", // leading zero
            "http://u@h.org/",     // userinfo
            "http://[::1]:8080/",  // IPv6
            "ftp://h.org/",
        ] {
            assert_eq!(plain_site_key(url), None, "{url}");
        }
    }

    #[test]
    fn links_that_end_the_session_are_out_of_scope() {
        for url in [
            "http://q.test/logout",
            "http://q.test/account/sign-out?next=/",
            "http://q.test/index.php?action=logoff",
            "http://q.test/user/Logout/",
        ] {
            assert!(ends_session(url), "{url}");
        }
        for url in [
            "http://q.test/blog/logouts-considered-harmful",
            "http://q.test/login",
            "http://logout.test/page",
            "http://q.test/",
        ] {
            assert!(!ends_session(url), "{url}");
        }
        let scope = Scope::for_url("http://q.test/", false)
            .expect("scope")
            .compile()
            .expect("compiles");
        assert!(scope.contains("http://q.test/author/x"));
        assert!(!scope.contains("http://q.test/logout"));
    }

    #[test]
    fn canonical_forms() {
        let c = |s: &str| canonicalize(s);
        assert_eq!(
            c("HTTP://Example.COM:80/a/./b/../c#frag").as_deref(),
            Some("http://example.com/a/c")
        );
        assert_eq!(c("https://x.org:443").as_deref(), Some("https://x.org/"));
        assert_eq!(c("http://x.org/a?").as_deref(), Some("http://x.org/a"));
        assert_eq!(
            c("http://x.org/%7euser/%2f%41").as_deref(),
            Some("http://x.org/~user/%2FA")
        );
        assert_eq!(
            c("http://x.org/p?PHPSESSID=abc&id=3").as_deref(),
            Some("http://x.org/p?id=3")
        );
        // Tracking: campaign parameters (a prefix) and click ids go; a code host's `ref` stays.
        assert_eq!(
            c("http://x.org/p?id=3&utm_source=news&UTM_Medium=mail&fbclid=Iw1").as_deref(),
            Some("http://x.org/p?id=3")
        );
        assert_eq!(
            c("http://x.org/blog/post?gclid=abc").as_deref(),
            Some("http://x.org/blog/post")
        );
        assert_eq!(
            c("http://x.org/src?ref=main&utm=1").as_deref(),
            Some("http://x.org/src?ref=main&utm=1")
        );
        assert_eq!(
            c("http://x.org/a;jsessionid=XYZ?x=1").as_deref(),
            Some("http://x.org/a?x=1")
        );
        assert_eq!(
            c("http://x.org/item/6?sid=1").as_deref(),
            Some("http://x.org/item/6")
        );
        for bad in [
            "mailto:a@b.c",
            "javascript:void(0)",
            "ftp://x.org/",
            "",
            "not a url",
        ] {
            assert_eq!(c(bad), None, "{bad}");
        }
        for u in [
            "http://x.org/a%20b?q=%e2%82%ac&z",
            "http://x.org/a;jsessionid=1;v=2",
        ] {
            let once = c(u).expect("canonical");
            assert_eq!(c(&once).as_deref(), Some(once.as_str()), "idempotent");
        }
    }

    #[test]
    fn scope_rules() {
        let s = Scope::for_url("http://www.site.org/", false).expect("scope");
        assert_eq!(s.site, "site.org");
        let c = s.compile().expect("compile");
        assert!(c.contains("http://site.org/a"));
        assert!(c.contains("https://www.site.org/a"));
        assert!(!c.contains("http://docs.site.org/a"));
        assert!(!c.contains("http://othersite.org/"));
        let sub = Scope {
            include_subdomains: true,
            deny: vec!["/private/".into()],
            ..s.clone()
        }
        .compile()
        .expect("compile");
        assert!(sub.contains("http://docs.site.org/a"));
        assert!(!sub.contains("http://evilsite.org/a"));
        assert!(!sub.contains("http://site.org/private/x"));
        let bad = Scope {
            deny: vec!["(".into()],
            ..s
        };
        assert!(bad.compile().expect_err("bad").contains("bad deny pattern"));
        assert_eq!(
            site_key("http://127.0.0.1:8000/x").as_deref(),
            Some("127.0.0.1:8000")
        );
    }

    #[test]
    fn traps_are_bounded() {
        let mut g = TrapGuard::new(TrapLimits {
            max_per_shape: 100,
            ..TrapLimits::default()
        });
        assert_eq!(
            g.check(&format!("http://h/{}", "a".repeat(2000))),
            Some(TrapReason::TooLong)
        );
        // A POST key's body (a form's view state) is no URL: only past its own bound.
        let state = format!(
            "http://h/filter.aspx#exemplar-post=__VIEWSTATE={}",
            "x".repeat(4000)
        );
        assert_eq!(g.check(&state), None);
        let huge = format!("http://h/f#exemplar-post=s={}", "x".repeat(MAX_POST_BODY));
        assert_eq!(g.check(&huge), Some(TrapReason::TooLong));
        assert_eq!(
            g.check("http://h/a/b/a/b/a/b/"),
            Some(TrapReason::RepeatedSegments)
        );
        let deep: String = (0..20).map(|i| format!("/s{i}")).collect();
        assert_eq!(
            g.check(&format!("http://h{deep}")),
            Some(TrapReason::TooDeep)
        );
        let mut refused = 0;
        for d in 0..1000 {
            if g.check(&format!("http://h/cal?d=2026-01-{d}")).is_some() {
                refused += 1;
            }
        }
        assert_eq!(refused, 900, "the calendar is cut at its shape budget");
        let mut facet_refused = 0;
        let names = ["a", "b", "c", "d", "e", "f"];
        for mask in 1..64u32 {
            let q: Vec<String> = names
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, n)| format!("{n}=1"))
                .collect();
            if g.check(&format!("http://h/list?{}", q.join("&"))) == Some(TrapReason::FacetBudget) {
                facet_refused += 1;
            }
        }
        assert_eq!(facet_refused, 63 - 16);
    }

    /// gitweb separates its parameters with `;`: its commit, tree and blob pages are shapes
    /// of their own, so a thousand tree pages leave room for the commits (one shape for all
    /// cut a blind run's map off at 5,000 URLs).
    #[test]
    fn semicolon_parameters_make_shapes_of_their_own() {
        let mut g = TrapGuard::new(TrapLimits {
            max_per_shape: 100,
            ..TrapLimits::default()
        });
        let cgi = "http://h/cgi-bin/gitweb.cgi?p=x.git";
        for i in 0..100 {
            assert_eq!(g.check(&format!("{cgi};a=tree;h={i:x};hb=b{i}")), None);
        }
        assert_eq!(
            g.check(&format!("{cgi};a=tree;h=ff;hb=b")),
            Some(TrapReason::ShapeBudget)
        );
        assert_eq!(g.check(&format!("{cgi};a=commit;h=ff")), None);
        assert_eq!(
            query_names("p=x.git;a=commit&h=1;;f").collect::<Vec<_>>(),
            ["p", "a", "h", "f"]
        );
        // What was refused is counted by reason, with the first URL and the limit in words.
        g.check(&format!("{cgi};a=tree;h=fe;hb=c"));
        g.check(&format!("http://h/{}", "x".repeat(2000)));
        assert_eq!(
            g.refusals(),
            [
                Refusal {
                    reason: TrapReason::ShapeBudget,
                    count: 2,
                    example: format!("{cgi};a=tree;h=ff;hb=b"),
                    limit: "past 100 URLs of one shape (digits and query values aside)".into(),
                },
                Refusal {
                    reason: TrapReason::TooLong,
                    count: 1,
                    example: format!("http://h/{}", "x".repeat(2000)),
                    limit: "longer than 1024 characters".into(),
                },
            ]
        );
    }

    #[test]
    fn plain_urls_are_taken_as_written_and_the_others_parsed() {
        for (url, written) in [
            ("http://h.org/a/b.html", Some("http://h.org/a/b.html")),
            ("http://h.org/a.html#top", Some("http://h.org/a.html")),
            (
                "http://h.org:8080/x?a=1&b=c",
                Some("http://h.org:8080/x?a=1&b=c"),
            ),
            ("http://h.org", None),
            ("http://h.org/a/../b", None),
            ("http://h.org/a/./b", None),
            ("http://h.org/%7Ea", None),
            ("http://h.org/a;jsessionid=1", None),
            ("http://h.org/a?", None),
            ("http://h.org/a?x=1&&y=2", None),
            ("http://h.org/a?PHPSESSID=1&x=2", None),
            ("http://h.org/a b", None),
            ("http://h.org/a?q='x'", None),
            ("http://H.org/a", None),
        ] {
            assert_eq!(written_canonical(url), written, "{url:?}");
            assert_eq!(canonicalize(url), canonicalize_parsed(url), "{url:?}");
        }
    }

    #[test]
    fn signatures_ignore_whitespace_only() {
        assert_eq!(content_signature("a  b\n c"), content_signature(" a b c "));
        assert_ne!(content_signature("a b c"), content_signature("a b d"));
        // The FNV-1a 64 test vector.
        assert_eq!(content_signature("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(bytes_signature(b"a"), 0xaf63_dc4c_8601_ec8c);
        // Raw bytes keep the whitespace the text signature drops.
        assert_ne!(bytes_signature(b"a b"), bytes_signature(b"a  b"));
        assert_eq!(content_signature("a b"), content_signature("a  b"));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// `base` with an optional query and fragment.
    fn url_of(base: &str, query: Option<String>, frag: Option<String>) -> String {
        let query = query.map(|q| format!("?{q}")).unwrap_or_default();
        let frag = frag.map(|f| format!("#{f}")).unwrap_or_default();
        format!("{base}{query}{frag}")
    }

    proptest! {
        #[test]
        fn canonicalize_is_idempotent_and_total(
            host in "[a-zA-Z]{1,8}(\\.[a-z]{2,3})?",
            path in "(/[a-zA-Z0-9%._~;=-]{0,6}){0,4}",
            query in proptest::option::of("[a-zA-Z0-9=&%]{0,12}"),
            frag in proptest::option::of("[a-z]{0,4}"),
        ) {
            let url = url_of(&format!("http://{host}{path}"), query, frag);
            if let Some(c) = canonicalize(&url) {
                prop_assert_eq!(canonicalize(&c), Some(c.clone()));
            }
        }

        /// A URL taken as parsed as written is what the parser writes, and one taken as
        /// canonical as written is what the parser makes of it.
        #[test]
        fn a_url_taken_as_written_is_what_the_parser_makes_of_it(
            scheme in "https?|HTTP",
            host in "[a-zA-Z0-9.-]{1,8}(:[0-9]{1,5})?",
            path in "(/[a-zA-Z0-9%._~;=&'|`^{}\\\\ \t-]{0,6}){0,4}",
            query in proptest::option::of("[a-zA-Z0-9=&%?/'\" <>._-]{0,12}|jsessionid=1|sid=2&a"),
            frag in proptest::option::of("[a-z#?]{0,4}"),
        ) {
            let url = url_of(&format!("{scheme}://{host}{path}"), query, frag);
            if let Some(fast) = written_parsed(&url) {
                let mut parsed = Url::parse(&url).expect("a URL read as written parses");
                parsed.set_fragment(None);
                prop_assert_eq!(fast, parsed.as_str(), "{:?}", url);
            }
            if let Some(fast) = written_canonical(&url) {
                prop_assert_eq!(Some(fast.to_string()), canonicalize_parsed(&url), "{:?}", url);
            }
        }

        /// Signing text in pieces gives the signature of the joined text.
        #[test]
        fn signature_of_pieces_is_that_of_their_concatenation(
            pieces in proptest::collection::vec("[ab \t\n\u{a0}é]{0,5}", 0..6),
        ) {
            let joined: String = pieces.concat();
            let mut s = Signature::new();
            for p in &pieces {
                s.push(p);
            }
            // content_signature trims Unicode whitespace at the ends, the stream ASCII only.
            prop_assume!(joined.trim() == joined.trim_matches(|c: char| c.is_ascii_whitespace()));
            prop_assert_eq!(s.finish(), content_signature(&joined));
        }

        /// The parse-free site key agrees with the parser's wherever it answers, on URL-ish
        /// strings full of the cases that differ (ports, IPv4 forms, case, userinfo, `www.`).
        #[test]
        fn plain_site_key_agrees_with_the_parser(
            scheme in "(http|https|HTTP|ftp)://",
            www in "(www\\.)?",
            host in "([a-zA-Z0-9-]{1,6}\\.){0,3}[a-zA-Z0-9-]{1,6}|[0-9]{1,4}(\\.[0-9x]{1,4}){0,4}",
            port in "(:[0-9]{0,6})?",
            user in "([a-z]{1,3}@)?",
            rest in "(/|\\?|#|\\\\)?[a-z/]{0,4}",
        ) {
            let url = format!("{scheme}{user}{www}{host}{port}{rest}");
            if let Some(k) = plain_site_key(&url) {
                prop_assert_eq!(Some(k.to_string()), parsed_site_key(&url), "{}", url);
            }
        }

        #[test]
        fn guard_never_panics(s in ".{0,200}") {
            let mut g = TrapGuard::new(TrapLimits::default());
            let _ = g.check(&s);
            let _ = canonicalize(&s);
            let _ = site_key(&s);
        }
    }
}
