//! The local web (issue 58's measuring ground): the documentation sites of
//! `eval/web-sites.toml`, each served on 127.0.0.1 under its upstream host and URL prefix by one
//! server that routes by the `Host` header and the longest prefix, with the links between them
//! kept; beside them a backlink service ([`backlinks`]) and a search engine ([`search`]).
//!
//! Contract of [`LocalWeb::respond`]: a path under a site's prefix (or alias) is the file at the
//! same place under the site's root; a directory serves its `index.html` (without the trailing
//! `/`: 301 to it); a page's links are rewritten so that they still reach what they reached
//! installed: an `https://` link to a served site becomes `http://` (the local web has no TLS),
//! and a relative, absolute-path or `file://` link that lands in another site's root (Haddock's
//! `../base-4.15.1.0/`, gtk-doc's `../glib/`, after Debian's links are followed) becomes that
//! site's URL; every other byte is served as installed. An unknown host answers 421, a path no
//! site serves 404, a method other than GET and HEAD 405.
pub mod backlinks;
pub mod fs;
pub mod search;
pub mod serve_cmd;
pub mod sites;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use exemplar_native::serve::{Request, Response, content_type, percent_decode};

use crate::replicas::html;
pub use fs::UnionFs;
pub use sites::WebSite;

/// The search engine's host on the local web.
pub const SEARCH_HOST: &str = "search.web.test";
/// The backlink service's host on the local web.
pub const BACKLINKS_HOST: &str = "backlinks.web.test";

/// Where `./build.sh eval-discover` unpacks the packages that are not installed.
pub const WEB_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../.cache/web/root");

/// A handler for a service host of the local web (the search engine, the backlinks).
pub type Service = Arc<dyn Fn(&Request) -> Response + Send + Sync>;

/// The sites, where their files are, and the services beside them.
pub struct LocalWeb {
    /// The sites, in list order.
    pub sites: Vec<WebSite>,
    fs: UnionFs,
    /// Each site's root with links resolved (no trailing `/`).
    roots: Vec<String>,
    /// Resolved roots with a trailing `/`, longest first, with their site.
    by_root: Vec<(String, usize)>,
    /// Host → (prefix, site), longest prefix first.
    by_host: HashMap<String, Vec<(String, usize)>>,
    services: HashMap<String, Service>,
}

impl LocalWeb {
    /// The sites of a list, read through a union file system.
    pub fn new(sites: Vec<WebSite>, fs: UnionFs) -> LocalWeb {
        let roots: Vec<String> = sites.iter().map(|s| fs.resolve(&s.root)).collect();
        let mut by_root: Vec<(String, usize)> = roots
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("{}/", r.trim_end_matches('/')), i))
            .collect();
        by_root.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        let mut by_host: HashMap<String, Vec<(String, usize)>> = HashMap::new();
        for (i, s) in sites.iter().enumerate() {
            for p in std::iter::once(&s.prefix).chain(&s.aliases) {
                by_host
                    .entry(s.host.clone())
                    .or_default()
                    .push((p.clone(), i));
            }
        }
        for v in by_host.values_mut() {
            v.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        }
        LocalWeb {
            sites,
            fs,
            roots,
            by_root,
            by_host,
            services: HashMap::new(),
        }
    }

    /// The repository's list over the unpacked packages of [`WEB_ROOT`].
    ///
    /// # Errors
    /// The list's errors.
    pub fn load_default() -> Result<LocalWeb, String> {
        Ok(LocalWeb::new(
            sites::load(Path::new(sites::DEFAULT_SITES))?,
            UnionFs::new(WEB_ROOT),
        ))
    }

    /// The file system the sites are read through.
    pub fn fs(&self) -> &UnionFs {
        &self.fs
    }

    /// Answer for another host with a handler (a service beside the sites).
    pub fn add_service(&mut self, host: &str, service: Service) {
        self.services.insert(host.to_ascii_lowercase(), service);
    }

    /// Whether a site's entry page is there to read.
    pub fn available(&self, site: usize) -> bool {
        self.fs
            .read(&self.file(site, &self.sites[site].entry))
            .is_some()
    }

    /// The installed path of a file of a site (relative to its root).
    pub fn file(&self, site: usize, rel: &str) -> String {
        format!("{}/{}", self.roots[site].trim_end_matches('/'), rel)
    }

    /// A site's HTML pages, relative to its root.
    pub fn pages(&self, site: usize) -> Vec<String> {
        self.fs.pages(&self.roots[site])
    }

    /// The site serving a URL's host and path, and the path relative to its prefix.
    pub fn site_at<'a>(&self, host: &str, path: &'a str) -> Option<(usize, &'a str)> {
        self.by_host
            .get(&host.to_ascii_lowercase())?
            .iter()
            .find_map(|(p, i)| path.strip_prefix(p.as_str()).map(|rest| (*i, rest)))
    }

    /// The site and path relative to its prefix of an absolute `http(s)` URL.
    pub fn site_of_url<'a>(&self, url: &'a str) -> Option<(usize, &'a str)> {
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        self.site_at(host, if path.is_empty() { "/" } else { path })
    }

    /// The URL an installed path is served at (links resolved), if it lies in a site's root.
    pub fn url_of_file(&self, path: &str) -> Option<String> {
        let resolved = self.fs.resolve(path);
        let (root, i) = self
            .by_root
            .iter()
            .find(|(r, _)| resolved.starts_with(r.as_str()) || format!("{resolved}/") == *r)?;
        let rel = resolved.get(root.len()..).unwrap_or("");
        Some(self.sites[*i].url_of(&html::encode_path(rel)))
    }

    /// A link's value as served on a page of `site` at `rel` (relative to the root): None when
    /// it is served as installed.
    pub fn map_link(&self, site: usize, rel: &str, value: &str) -> Option<String> {
        let v = value.trim();
        let lower = v.get(..8).unwrap_or(v).to_ascii_lowercase();
        if lower.starts_with("https://") {
            let http = format!("http://{}", &v[8..]);
            return self.site_of_url(&http).is_some().then_some(http);
        }
        if lower.starts_with("file://") {
            let (path, tail) = split_tail(&v[7..]);
            return self.url_of_file(&percent_decode(path)?).map(|u| u + tail);
        }
        if v.is_empty() || v.starts_with(['#', '?']) || v.starts_with("//") || has_scheme(v) {
            return None;
        }
        let (path, tail) = split_tail(v);
        let path = percent_decode(path)?;
        let dir_link = path.ends_with('/');
        let root = self.roots[site].trim_end_matches('/');
        let joined = if path.starts_with('/') {
            // A path from the host's root: an installed path (Debian's own links), or the site's.
            if !path.starts_with("/usr/") {
                return None;
            }
            path
        } else {
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
            let joined = lexical(&format!("{root}/{dir}/{path}"));
            if joined.starts_with(&format!("{root}/")) || joined == root {
                return None;
            }
            joined
        };
        let url = self.url_of_file(&joined)?;
        let url = if dir_link && !url.ends_with('/') {
            url + "/"
        } else {
            url
        };
        Some(url + tail)
    }

    /// The answer to a request.
    pub fn respond(&self, req: &Request) -> Response {
        let host = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map(|(_, v)| {
                v.rsplit_once(':')
                    .map_or(v.as_str(), |(h, _)| h)
                    .to_ascii_lowercase()
            });
        let Some(host) = host else { return status(421) };
        if let Some(service) = self.services.get(&host) {
            return service(req);
        }
        if req.method != "GET" && req.method != "HEAD" {
            return status(405);
        }
        let raw = req.path.split(['?', '#']).next().unwrap_or("/");
        if !self.by_host.contains_key(&host) {
            return status(421);
        }
        // A prefix asked without its trailing slash.
        if let Some((_, "")) = self.site_at(&host, &format!("{raw}/")) {
            return Response::redirect(301, &format!("{raw}/"));
        }
        let Some((site, rest)) = self.site_at(&host, raw) else {
            return Response::not_found();
        };
        let Some(rest) = percent_decode(rest) else {
            return status(400);
        };
        if rest.split('/').any(|c| c == "..") {
            return status(403);
        }
        let mut rel = rest;
        let mut path = self.file(site, &rel);
        if rel.is_empty() || self.fs.is_dir(&path) {
            if !rel.is_empty() && !rel.ends_with('/') {
                return Response::redirect(301, &format!("{raw}/"));
            }
            rel.push_str("index.html");
            path = self.file(site, &rel);
        }
        let Some(bytes) = self.fs.read(&path) else {
            return Response::not_found();
        };
        let ctype = content_type(Path::new(&rel), &bytes);
        let body = if fs::is_page(Path::new(&rel)) {
            html::rewrite(&bytes, |v| self.map_link(site, &rel, v), None)
        } else {
            bytes
        };
        Response {
            status: 200,
            headers: vec![("Content-Type".into(), ctype.into())],
            body,
            delay: None,
        }
    }
}

fn status(code: u16) -> Response {
    Response {
        status: code,
        ..Response::default()
    }
}

/// A URL reference split before its query or fragment.
fn split_tail(v: &str) -> (&str, &str) {
    v.split_at(v.find(['?', '#']).unwrap_or(v.len()))
}

fn has_scheme(v: &str) -> bool {
    v.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    })
}

/// An absolute path with `.` and `..` removed (no link followed).
fn lexical(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    format!("/{}", out.join("/"))
}

#[cfg(test)]
mod tests;
