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

/// A path's key: the path (and query) of a URL, or a path with query, without the habits a
/// replica may differ by. Lower case; path parameters (`;jsessionid=…`) and session parameters
/// of the query dropped, the other parameters sorted; `.html`/`.htm`/`.php` dropped; a final
/// `index` (`index.html`) read as its directory; a directory ends in `/`.
pub fn key(path_and_query: &str) -> String {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let path = path.split('#').next().unwrap_or("");
    let mut segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| s.split(';').next().unwrap_or("").to_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    let mut dir = path.ends_with('/') || segments.is_empty();
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
    let mut params: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            let session = SESSION_PARAMS.iter().any(|s| s.eq_ignore_ascii_case(name));
            !(session || (name.len() <= 3 && token_like(value)))
        })
        .collect();
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

    /// In words: "/ → /mirror/python/", or "same paths".
    pub fn describe(&self) -> String {
        if self.is_identity() {
            "same paths".into()
        } else {
            format!("{} → {}", self.from, self.to)
        }
    }
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
    let best = votes
        .iter()
        .max_by(|x, y| {
            x.1.cmp(y.1)
                .then_with(|| (y.0.0.len() + y.0.1.len()).cmp(&(x.0.0.len() + x.0.1.len())))
                .then_with(|| y.0.cmp(x.0))
        })
        .map(|((f, t), n)| {
            (
                Mapping {
                    from: (*f).into(),
                    to: (*t).into(),
                },
                *n,
            )
        })?;
    if identity >= best.1 {
        return Some((Mapping::identity(), identity));
    }
    Some(best)
}
