//! URL paths across hosts: a path's key without the URL habits replicas differ by, the habits
//! of a host, and the mapping between two hosts' paths.
//!
//! A replica serves the same pages under other URL habits: `.html` dropped or kept, a directory
//! as `/` or `/index.html`, session ids in paths (`;jsessionid=…`) or queries (`?sid=…`), case,
//! and the whole site under another path prefix (`/mirror/python/`). [`key`] takes the habits
//! out; [`infer`] finds the prefix mapping that lines the most keys of two hosts up; [`Habits`]
//! puts a host's habits back to ask it for a page it was not seen serving.
//!
//! Contract: [`key`] is idempotent and total (any string); [`Mapping::apply`] of the identity is
//! the key itself; [`infer`] is deterministic (ties to the shortest prefixes, then in order).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// Query parameters that name a visit, not a page.
const SESSION_PARAMS: &[&str] = &[
    "sid",
    "sessionid",
    "session_id",
    "session",
    "phpsessid",
    "jsessionid",
    "aspsessionid",
    "cfid",
    "cftoken",
    "zenid",
    "osCsid",
];

/// Whether a query value looks like a session token: long and all hex or base64-like.
fn token_like(v: &str) -> bool {
    v.len() >= 16
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether a query parameter (`name=value`) names the page rather than the visit: not empty,
/// not a session parameter, not a short name with a token for a value.
fn names_page(p: &str) -> bool {
    let (name, value) = p.split_once('=').unwrap_or((p, ""));
    let session = SESSION_PARAMS.iter().any(|s| s.eq_ignore_ascii_case(name));
    !(p.is_empty() || session || (name.len() <= 3 && token_like(value)))
}

/// A path's key: the path (and query) of a URL, or a path with query, without the habits a
/// replica may differ by. Lower case; path parameters (`;jsessionid=…`) and session parameters
/// of the query dropped, the other parameters sorted; `.html`/`.htm`/`.php` dropped; a final
/// `index` (`index.html`) read as its directory; a directory ends in `/`.
pub fn key(path_and_query: &str) -> String {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let path = path.split('#').next().unwrap_or("");
    // Path parameters out first: `/a/;jsessionid=X` is the directory `/a/`.
    let raw: Vec<String> = path
        .split('/')
        .map(|s| s.split(';').next().unwrap_or("").to_lowercase())
        .collect();
    let mut dir = raw.last().is_none_or(String::is_empty);
    let mut segments: Vec<String> = raw.into_iter().filter(|s| !s.is_empty()).collect();
    dir |= segments.is_empty();
    if let Some(last) = segments.last_mut() {
        for ext in [".html", ".htm", ".php", ".shtml", ".xhtml"] {
            if let Some(stem) = last.strip_suffix(ext) {
                *last = stem.to_string();
                break;
            }
        }
        if matches!(last.as_str(), "index" | "default" | "") {
            segments.pop();
            dir = true;
        }
    }
    let mut out = String::from("/");
    out.push_str(&segments.join("/"));
    if dir && !segments.is_empty() {
        out.push('/');
    }
    let mut params: Vec<&str> = query.split('&').filter(|p| names_page(p)).collect();
    params.sort_unstable();
    if !params.is_empty() {
        out.push('?');
        out.push_str(&params.join("&").to_lowercase());
    }
    out
}

/// How a host writes its URLs, from the paths it was seen serving.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Habits {
    /// Pages end in `.html` (else the extension is dropped).
    pub html: bool,
    /// Directories are asked for as `…/index.html` (else `…/`).
    pub index_file: bool,
}

impl Habits {
    /// The habits most of `paths` show.
    pub fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Habits {
        let (mut files, mut html, mut dirs, mut index) = (0usize, 0usize, 0usize, 0usize);
        for p in paths {
            let path = p.split(['?', '#']).next().unwrap_or("");
            let last = path.rsplit('/').next().unwrap_or("");
            let last = last.split(';').next().unwrap_or("");
            if last.is_empty() {
                dirs += 1;
            } else if last.starts_with("index.") {
                index += 1;
            } else {
                files += 1;
                if last.ends_with(".html") || last.ends_with(".htm") {
                    html += 1;
                }
            }
        }
        Habits {
            html: files > 0 && html * 2 >= files,
            index_file: index > dirs,
        }
    }

    /// The path this host would serve `key` under.
    pub fn path_of(&self, key: &str) -> String {
        let (path, query) = key.split_once('?').unwrap_or((key, ""));
        let mut out = path.to_string();
        if out.ends_with('/') {
            if self.index_file {
                out.push_str("index.html");
            }
        } else if self.html {
            out.push_str(".html");
        }
        if !query.is_empty() {
            out.push('?');
            out.push_str(query);
        }
        out
    }
}

/// A rewrite of one host's keys into another's: the leading `from` replaced by `to` (both
/// start and end with `/`; `/` for none).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Mapping {
    /// The first host's prefix.
    pub from: String,
    /// The second host's prefix in its place.
    pub to: String,
}

impl Mapping {
    /// No rewrite.
    pub fn identity() -> Mapping {
        Mapping {
            from: "/".into(),
            to: "/".into(),
        }
    }

    /// Whether it rewrites nothing.
    pub fn is_identity(&self) -> bool {
        self.from == self.to
    }

    /// The second host's key for the first host's `key`, if under `from`.
    pub fn apply(&self, key: &str) -> Option<String> {
        let rest = key.strip_prefix(self.from.as_str())?;
        Some(format!("{}{rest}", self.to))
    }

    /// The first host's key for the second host's `key`, if under `to`.
    pub fn invert(&self, key: &str) -> Option<String> {
        let rest = key.strip_prefix(self.to.as_str())?;
        Some(format!("{}{rest}", self.from))
    }

    /// The mapping the other way.
    pub fn inverse(&self) -> Mapping {
        Mapping {
            from: self.to.clone(),
            to: self.from.clone(),
        }
    }

    /// In words: "/ → /mirror/python/", or "same paths".
    pub fn describe(&self) -> String {
        if self.is_identity() {
            "same paths".into()
        } else {
            format!("{} → {}", self.from, self.to)
        }
    }
}

/// Whether a prefix rewrite changes a number (`/14.0.0/rc4/` → `/15.0.0/`): another version of
/// the documentation, which shares most page names and texts with this one, not a mirror of it.
/// A mirror may add or drop a prefix, not renumber one.
fn renumbers(from: &str, to: &str) -> bool {
    let numbers = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect()
    };
    let (a, b) = (numbers(from), numbers(to));
    !a.is_empty() && !b.is_empty() && a != b
}

/// A page's path as served on one host (`/Docs/Guide.html;jsessionid=X`), as the other host of a
/// `mapping` would serve it under its `habits`: the letters' case kept (keys are lower case, a
/// server may not be), path parameters and session parameters dropped, the prefix rewritten
/// (matched without regard to case), the extension and the directory's `index.html` written as
/// the other host writes them. `None` when the path is not under the mapping's prefix.
pub fn translate(path_and_query: &str, mapping: &Mapping, habits: &Habits) -> Option<String> {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let path = path.split('#').next().unwrap_or("");
    let raw: Vec<&str> = path
        .split('/')
        .map(|s| s.split(';').next().unwrap_or(""))
        .collect();
    let mut clean = raw.join("/");
    if !clean.starts_with('/') {
        clean.insert(0, '/');
    }
    let from = mapping.from.as_str();
    let head = clean.get(..from.len())?;
    if !head.eq_ignore_ascii_case(from) {
        return None;
    }
    let rest = clean.get(from.len()..).unwrap_or("");
    let mut out = format!("{}{rest}", mapping.to);
    // The last segment as the other host writes it.
    let cut = out.rfind('/').map_or(0, |i| i + 1);
    let last = out[cut..].to_string();
    let lower = last.to_ascii_lowercase();
    let stem_len = [".html", ".htm"]
        .iter()
        .find(|e| lower.ends_with(*e))
        .map(|e| last.len() - e.len());
    match stem_len {
        Some(n) if last[..n].eq_ignore_ascii_case("index") => {
            out.truncate(cut);
            if habits.index_file {
                out.push_str("index.html");
            }
        }
        Some(n) if !habits.html => out.truncate(cut + n),
        None if last.is_empty() && habits.index_file => out.push_str("index.html"),
        None if habits.html && !last.contains('.') => out.push_str(".html"),
        _ => {}
    }
    let params: Vec<&str> = query.split('&').filter(|p| names_page(p)).collect();
    if !params.is_empty() {
        out.push('?');
        out.push_str(&params.join("&"));
    }
    Some(out)
}

/// Longest prefix (in segments) a mapping may add or drop.
const MAX_PREFIX_SEGMENTS: usize = 4;

/// The splits of a key into a prefix of at most [`MAX_PREFIX_SEGMENTS`] segments and the rest
/// (which keeps at least one segment): `("/", "a/b.html")`, `("/a/", "b.html")`.
fn splits(key: &str) -> impl Iterator<Item = (&str, &str)> {
    let body = key.strip_prefix('/').unwrap_or(key);
    let mut cuts = vec![0usize];
    for (i, c) in body.char_indices() {
        if c == '/' && i + 1 < body.len() && cuts.len() <= MAX_PREFIX_SEGMENTS {
            cuts.push(i + 1);
        }
    }
    cuts.into_iter()
        .map(move |c| (&key[..c + 1], &body[c..]))
        .filter(|(_, rest)| !rest.is_empty())
}

/// The mapping of the first host's keys onto the second's that lines up the most keys, with
/// how many it lines up; the identity when it lines up as many as any other. `None` when no
/// key lines up under any mapping.
pub fn infer(a: &[String], b: &[String]) -> Option<(Mapping, usize)> {
    candidates(a, b, 1).into_iter().next()
}

/// The `n` mappings that line up the most keys ([`infer`]'s first), best first, the identity
/// among them whenever it lines up any key: a sample may line up a few keys by chance under a
/// wrong prefix (`/category/` and `/category/15/page/`), which the pages' texts then tell.
pub fn candidates(a: &[String], b: &[String], n: usize) -> Vec<(Mapping, usize)> {
    let mut by_rest: HashMap<&str, Vec<&str>> = HashMap::new();
    for k in b {
        for (prefix, rest) in splits(k) {
            let slot = by_rest.entry(rest).or_default();
            if slot.len() < 8 {
                slot.push(prefix);
            }
        }
    }
    let mut votes: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for k in a {
        // The longest rest that lines up decides for this key.
        for (prefix, rest) in splits(k) {
            if let Some(theirs) = by_rest.get(rest) {
                for t in theirs {
                    *votes.entry((prefix, *t)).or_default() += 1;
                }
                break;
            }
        }
    }
    let identity = votes.get(&("/", "/")).copied().unwrap_or(0);
    let mut ranked: Vec<((&str, &str), usize)> = votes.into_iter().collect();
    ranked.sort_by(|x, y| {
        y.1.cmp(&x.1)
            .then_with(|| (x.0.0.len() + x.0.1.len()).cmp(&(y.0.0.len() + y.0.1.len())))
            .then_with(|| x.0.cmp(&y.0))
    });
    let mut out: Vec<(Mapping, usize)> = Vec::new();
    if identity > 0 && ranked.first().is_none_or(|r| identity >= r.1) {
        out.push((Mapping::identity(), identity));
    }
    for ((f, t), v) in ranked {
        if out.len() >= n {
            break;
        }
        if renumbers(f, t) {
            continue;
        }
        let m = Mapping {
            from: f.into(),
            to: t.into(),
        };
        if !out.iter().any(|(o, _)| *o == m) {
            out.push((m, v));
        }
    }
    if identity > 0 && !out.iter().any(|(m, _)| m.is_identity()) {
        out.push((Mapping::identity(), identity));
    }
    out
}
