//! The local web's site list (`eval/web-sites.toml`): each documentation site with the
//! installed root its package gives, the upstream host and URL prefix it is served under, and
//! its domain's ground truth (which of its pages are entity pages of that domain).
//!
//! Contract: [`load`] checks every key (an unknown key is an error) and that host + prefix is
//! unique; a site's [`WebSite::is_target`] is its labelling rule on a page's path relative to
//! the root and on its bytes.
use std::collections::HashSet;
use std::path::Path;

use regex::Regex;
use regex::bytes::Regex as BytesRegex;

/// The list in the repository.
pub const DEFAULT_SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/web-sites.toml");

/// The domain of sites with no entity kind labelled.
pub const NO_DOMAIN: &str = "other";

/// One site of the local web.
#[derive(Debug)]
pub struct WebSite {
    /// Short name, unique.
    pub name: String,
    /// The Debian package that holds it.
    pub package: String,
    /// Its root as installed (`/usr/share/doc/…`), or in the repository (a mirror's).
    pub root: String,
    /// The entry page, relative to the root.
    pub entry: String,
    /// The upstream host name (lower case).
    pub host: String,
    /// The URL path the root is served at (begins and ends with `/`).
    pub prefix: String,
    /// Further prefixes the host serves the same pages at.
    pub aliases: Vec<String>,
    /// What made its pages.
    pub generator: String,
    /// The kind of entity page labelled on it ([`NO_DOMAIN`]: none).
    pub domain: String,
    /// One entity page, relative to the root.
    pub example: String,
    /// The labelling rule on the path relative to the root (None: the path cannot tell).
    pub target_regex: Option<Regex>,
    /// The labelling rule on the page's bytes (None: the path alone decides).
    pub target_html: Option<BytesRegex>,
    /// The survey's count of entity pages.
    pub entities: usize,
    /// The survey's count of pages.
    pub pages: usize,
    /// Sites of the list its pages link.
    pub links_to: Vec<String>,
}

impl WebSite {
    /// The site's URL (`http://host/prefix`).
    pub fn url(&self) -> String {
        format!("http://{}{}", self.host, self.prefix)
    }

    /// The URL of a file relative to the root.
    pub fn url_of(&self, rel: &str) -> String {
        format!("http://{}{}{}", self.host, self.prefix, rel)
    }

    /// Whether a page (its path relative to the root, its bytes) is an entity page of the
    /// site's domain.
    pub fn is_target(&self, rel: &str, bytes: &[u8]) -> bool {
        if self.domain == NO_DOMAIN || (self.target_regex.is_none() && self.target_html.is_none()) {
            return false;
        }
        self.target_regex.as_ref().is_none_or(|r| r.is_match(rel))
            && self.target_html.as_ref().is_none_or(|r| r.is_match(bytes))
    }
}

/// The sites of a list file.
///
/// # Errors
/// An unreadable file, a malformed entry, an unknown key, a duplicate name or host + prefix.
pub fn load(path: &Path) -> Result<Vec<WebSite>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The sites of a list's text.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str) -> Result<Vec<WebSite>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    if let Some(k) = table.keys().find(|k| *k != "site") {
        return Err(format!("unknown top-level key {k:?}"));
    }
    let entries = table
        .get("site")
        .and_then(toml::Value::as_array)
        .ok_or("no [[site]]")?;
    let mut sites = Vec::with_capacity(entries.len());
    let (mut names, mut places) = (HashSet::new(), HashSet::new());
    for (i, e) in entries.iter().enumerate() {
        let t = e.as_table().ok_or(format!("site {i} is not a table"))?;
        let site = parse_site(t).map_err(|e| format!("site {i}: {e}"))?;
        if !names.insert(site.name.clone()) {
            return Err(format!("two sites named {}", site.name));
        }
        for p in std::iter::once(&site.prefix).chain(&site.aliases) {
            if !places.insert(format!("{}{p}", site.host)) {
                return Err(format!("{}: {}{p} is served twice", site.name, site.host));
            }
        }
        sites.push(site);
    }
    let known: HashSet<&str> = sites.iter().map(|s| s.name.as_str()).collect();
    for s in &sites {
        if let Some(l) = s.links_to.iter().find(|l| !known.contains(l.as_str())) {
            return Err(format!("{}: links_to names no site: {l}", s.name));
        }
    }
    Ok(sites)
}

const KEYS: &[&str] = &[
    "name",
    "package",
    "root",
    "entry",
    "host",
    "prefix",
    "aliases",
    "generator",
    "domain",
    "example",
    "target_regex",
    "target_html",
    "entities",
    "pages",
    "installed_size_kb",
    "links_to",
];

fn parse_site(t: &toml::Table) -> Result<WebSite, String> {
    if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key {k:?}"));
    }
    let s = |k: &str| -> Result<String, String> {
        t.get(k)
            .and_then(toml::Value::as_str)
            .map(str::to_string)
            .ok_or(format!("{k} must be a string"))
    };
    let n = |k: &str| -> Result<usize, String> {
        t.get(k)
            .and_then(toml::Value::as_integer)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or(format!("{k} must be a count"))
    };
    let list = |k: &str| -> Result<Vec<String>, String> {
        match t.get(k) {
            None => Ok(Vec::new()),
            Some(v) => v
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
                .ok_or(format!("{k} must be a list of strings")),
        }
    };
    let name = s("name")?;
    let prefix = s("prefix")?;
    let aliases = list("aliases")?;
    for p in std::iter::once(&prefix).chain(&aliases) {
        if !p.starts_with('/') || !p.ends_with('/') {
            return Err(format!("{name}: prefix {p:?} must begin and end with /"));
        }
    }
    let root = s("root")?;
    // An installed path, or a directory of the repository (the real sites' mirrors).
    let root = if root.starts_with('/') {
        root
    } else {
        format!(
            "{}/{root}",
            env!("CARGO_MANIFEST_DIR").trim_end_matches("/eval")
        )
    };
    let target_regex = match s("target_regex")?.as_str() {
        "" => None,
        r => Some(Regex::new(r).map_err(|e| format!("{name}: target_regex: {e}"))?),
    };
    let target_html = match t.get("target_html") {
        None => None,
        Some(_) => Some(
            BytesRegex::new(&s("target_html")?).map_err(|e| format!("{name}: target_html: {e}"))?,
        ),
    };
    Ok(WebSite {
        package: s("package")?,
        root: root.trim_end_matches('/').to_string(),
        entry: s("entry")?,
        host: s("host")?.to_ascii_lowercase(),
        prefix,
        aliases,
        generator: s("generator")?,
        domain: s("domain")?,
        example: s("example")?,
        target_regex,
        target_html,
        entities: n("entities")?,
        pages: n("pages")?,
        links_to: list("links_to")?,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_list_loads() {
        let sites = load(Path::new(DEFAULT_SITES)).unwrap();
        assert_eq!(sites.len(), 253);
        let books = sites.iter().find(|s| s.name == "zyte-books").unwrap();
        assert!(
            Path::new(&books.root)
                .join("product/239/index.html")
                .is_file()
        );
        assert!(books.is_target("product/239/index.html", b""));
        let py = sites.iter().find(|s| s.name == "python311").unwrap();
        assert_eq!(py.url(), "http://docs.python.org/3.11/");
        assert_eq!(py.aliases, ["/3/"]);
        assert!(py.is_target("library/json.html", b"<section id=\"module-json\">"));
        assert!(!py.is_target("library/json.html", b"<section id=\"encoders\">"));
        assert!(!py.is_target("tutorial/index.html", b"<section id=\"module-json\">"));
    }

    #[test]
    fn bad_lists_are_refused() {
        let one = |extra: &str| {
            format!(
                "[[site]]\nname = \"a\"\npackage = \"p\"\nroot = \"/r\"\nentry = \"index.html\"\nhost = \"h\"\n\
                 prefix = \"/\"\ngenerator = \"g\"\ndomain = \"d\"\nexample = \"e.html\"\ntarget_regex = \"\"\n\
                 entities = 1\npages = 2\nlinks_to = []\n{extra}"
            )
        };
        assert!(parse(&one("")).is_ok());
        assert!(
            parse(&one("colour = 1\n"))
                .unwrap_err()
                .contains("unknown key")
        );
        assert!(
            parse(&format!("{}{}", one(""), one("")))
                .unwrap_err()
                .contains("two sites")
        );
        assert!(
            parse(&one("").replace("links_to = []", "links_to = [\"b\"]"))
                .unwrap_err()
                .contains("names no site")
        );
        assert!(
            parse(&one("").replace("prefix = \"/\"", "prefix = \"x\""))
                .unwrap_err()
                .contains("must begin")
        );
    }
}
