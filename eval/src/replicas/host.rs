//! A site as one virtual host serves it ([`VirtualHost`]): which of the site's files it serves,
//! at which URL paths, and its pages' bytes, read from the site's files when asked for.
//!
//! Contract: a file's path here is its path on the original host, then (in this order) the
//! original's first segment dropped (`DropPrefix`), a prefix added (`AddPrefix`), `.html` dropped
//! and `index.html` served at its directory (`DropHtml`), and for pages a session id
//! (`SessionPath`, `SessionQuery`; a request with any session id, or none, is answered). In the
//! pages of every host but the original, each link to the site's own files (relative, a path,
//! or a URL naming the original host) is rewritten, keeping its form: to the file's URL here when
//! the host serves it, to the original's URL when it does not (a partial mirror, as `wget -k`
//! leaves them); where the paths are the original's, relative links and paths are left as they
//! are.
//! `file://` links to the installed root (Debian's canonical links) become the original's URLs
//! on every host. Two files that would share a path here: a page before another file, else the
//! first in path order, is served.
//! Deterministic: the same site files and seed give the same paths and bytes.

use std::collections::HashMap;
use std::fmt;
use std::net::Ipv4Addr;
use std::sync::{Arc, OnceLock};

use super::html::{decode_path, encode_path, relative, rewrite};
use super::sites::{Files, Site};
use super::variation::Variation;
use super::{mix, unit};

/// A host serving a site under a variation.
pub struct VirtualHost {
    /// The host name (or dotted address) requests name in `Host`.
    pub host: String,
    /// Its address.
    pub addr: Ipv4Addr,
    /// The site it serves.
    pub site: Arc<Site>,
    /// How it serves it.
    pub variation: Variation,
    /// Every choice it makes (prefix, session id, partial pages, banner text) follows from it.
    pub seed: u64,
    table: OnceLock<Table>,
}

/// Which files a host serves and where.
struct Table {
    /// Each file's decoded URL path here (`None`: not served).
    urls: Vec<Option<String>>,
    /// Decoded URL path → file.
    lookup: HashMap<String, u32>,
    /// The entry page.
    entry: Option<u32>,
    /// The session id of `SessionPath` and `SessionQuery` links.
    session: String,
}

impl fmt::Debug for VirtualHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VirtualHost")
            .field("host", &self.host)
            .field("addr", &self.addr)
            .field("site", &self.site.name)
            .field("variation", &self.variation.name())
            .field("seed", &self.seed)
            .finish()
    }
}

impl VirtualHost {
    /// A host; nothing is read until its paths or pages are asked for.
    pub fn new(
        host: impl Into<String>,
        addr: Ipv4Addr,
        site: Arc<Site>,
        variation: Variation,
        seed: u64,
    ) -> VirtualHost {
        VirtualHost {
            host: host.into(),
            addr,
            site,
            variation,
            seed,
            table: OnceLock::new(),
        }
    }

    /// Whether it serves the same site as `other` (a replica of it, or it).
    pub fn replicates(&self, other: &VirtualHost) -> bool {
        self.site.name == other.site.name
    }

    /// `http://HOST` followed by a path (and query).
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{path_and_query}", self.host)
    }

    /// Every URL path (with its query, if any) it serves, in the site's file order.
    pub fn paths(&self) -> Vec<String> {
        let t = self.table();
        (0..t.urls.len() as u32)
            .filter_map(|i| self.link(t, i).map(|p| p + &self.query(t, i, None)))
            .collect()
    }

    /// The URL paths (with query) of the HTML pages it serves.
    pub fn pages(&self) -> Vec<String> {
        let t = self.table();
        let html = &self.site.file_table().html;
        (0..t.urls.len() as u32)
            .filter(|&i| html[i as usize])
            .filter_map(|i| self.link(t, i).map(|p| p + &self.query(t, i, None)))
            .collect()
    }

    /// The URL path (with query) of its entry page: the site's entry, or for a subtree mirror
    /// the subtree's index page.
    pub fn entry(&self) -> Option<String> {
        let t = self.table();
        let i = t.entry?;
        self.link(t, i).map(|p| p + &self.query(t, i, None))
    }

    /// The path (with query) it serves a site file at (relative to the root), if it serves it.
    pub fn path(&self, file: &str) -> Option<String> {
        let t = self.table();
        let &i = self.site.file_table().index.get(file)?;
        self.link(t, i).map(|p| p + &self.query(t, i, None))
    }

    /// The session id its links carry (`SessionPath`, `SessionQuery`).
    pub fn session_id(&self) -> Option<String> {
        (self.variation.has(&Variation::SessionPath)
            || self.variation.has(&Variation::SessionQuery))
        .then(|| self.table().session.clone())
    }

    /// The site file a request path names here (relative to the site's root).
    pub fn file(&self, path_and_query: &str) -> Option<&str> {
        let i = self.resolve(path_and_query)?;
        Some(self.site.file_table().paths[i as usize].as_str())
    }

    /// The page (content type and bytes) a request for `path_and_query` gets, as this host
    /// serves it; `None` for a path it does not serve. The query is ignored, as a static server
    /// does (a session id in it included).
    pub fn get(&self, path_and_query: &str) -> Option<(&'static str, Vec<u8>)> {
        let i = self.resolve(path_and_query)?;
        let files = self.site.file_table();
        let file = &files.paths[i as usize];
        let bytes = std::fs::read(self.site.root.join(file)).ok()?;
        let bytes = if files.html[i as usize] {
            self.render(i, bytes)
        } else {
            bytes
        };
        let ctype = content_type(file, &bytes);
        Some((ctype, bytes))
    }

    fn resolve(&self, path_and_query: &str) -> Option<u32> {
        let path = path_and_query.split(['?', '#']).next().unwrap_or("");
        let path = match path.find(";jsessionid=") {
            Some(k) if self.variation.has(&Variation::SessionPath) => &path[..k],
            _ => path,
        };
        let decoded = decode_path(path)?;
        Files::lookup(&self.table().lookup, &decoded)
    }

    fn table(&self) -> &Table {
        self.table.get_or_init(|| self.build())
    }

    fn build(&self) -> Table {
        let files = self.site.file_table();
        let n = files.paths.len();
        let entry = files.index.get(&self.site.entry).copied();
        let (served, entry) = self.selection(files, entry);
        let mut urls = vec![None; n];
        let mut lookup = HashMap::with_capacity(n);
        // Pages first: where `.html` dropped makes a page's path a file's (`copyright.html`
        // and Debian's `copyright`), the page is served.
        let pages_first = (0..n)
            .filter(|&i| files.html[i])
            .chain((0..n).filter(|&i| !files.html[i]));
        for i in pages_first {
            if !served[i] {
                continue;
            }
            let path = self.path_of(&files.paths[i], files.html[i]);
            if let std::collections::hash_map::Entry::Vacant(e) = lookup.entry(path.clone()) {
                e.insert(i as u32);
                urls[i] = Some(path);
            }
        }
        let entry = entry.filter(|&i| urls[i as usize].is_some());
        let session = format!(
            "{:016X}{:016X}",
            mix(self.seed, "session"),
            mix(self.seed, "session 2")
        );
        Table {
            urls,
            lookup,
            entry,
            session,
        }
    }

    /// The decoded path of a file here, without session id.
    fn path_of(&self, file: &str, html: bool) -> String {
        let mut p = self.site.origin_path(file);
        if self.variation.has(&Variation::DropPrefix) {
            // The original's paths all start with its prefix's first segment.
            p = match p[1..].split_once('/') {
                Some((_, rest)) => format!("/{rest}"),
                None => "/".to_string(),
            };
        }
        if let Some(prefix) = self.variation.added_prefix() {
            p = format!("{}{p}", prefix.trim_end_matches('/'));
        }
        if self.variation.has(&Variation::DropHtml) && html {
            if let Some(dir) = p.strip_suffix("index.html").filter(|d| d.ends_with('/')) {
                p = dir.to_string();
            } else if let Some(stem) = p.strip_suffix(".html") {
                p = stem.to_string();
            }
        }
        p
    }

    /// Which files it serves, and its entry page.
    fn selection(&self, files: &Files, entry: Option<u32>) -> (Vec<bool>, Option<u32>) {
        let mut served = vec![true; files.paths.len()];
        let pages: Vec<usize> = (0..files.paths.len()).filter(|&i| files.html[i]).collect();
        if self.variation.has(&Variation::PartialRandom) && !pages.is_empty() {
            let n = pages.len();
            let share = 0.10 + 0.20 * unit(mix(self.seed, "share"));
            let lo = (n as f64 * 0.10).ceil() as usize;
            let hi = ((n as f64 * 0.30).floor() as usize).max(lo);
            let keep = ((n as f64 * share).round() as usize).clamp(lo, hi).max(1);
            let mut ranked = pages.clone();
            ranked.sort_by_key(|&i| mix(self.seed, &files.paths[i]));
            ranked.truncate(keep);
            if let Some(e) = entry.map(|e| e as usize)
                && !ranked.contains(&e)
                && let Some(last) = ranked.last_mut()
            {
                *last = e;
            }
            for &i in &pages {
                served[i] = false;
            }
            for i in ranked {
                served[i] = true;
            }
            return (served, entry);
        }
        if self.variation.has(&Variation::PartialSubtree) {
            let candidates = self.site.subtrees();
            for &i in &pages {
                served[i] = false;
            }
            if candidates.is_empty() {
                return (served, None);
            }
            let dir = &candidates[(mix(self.seed, "subtree") % candidates.len() as u64) as usize];
            let mut first = None;
            for &i in &pages {
                if files.paths[i].starts_with(dir.as_str()) {
                    served[i] = true;
                    first = first.or(Some(i as u32));
                }
            }
            let index = files.index.get(&format!("{dir}index.html")).copied();
            return (served, index.or(first));
        }
        (served, entry)
    }

    /// A file's encoded path here with its session id, if it serves it.
    fn link(&self, t: &Table, i: u32) -> Option<String> {
        let path = t.urls[i as usize].as_ref()?;
        let mut s = encode_path(path);
        if self.site.file_table().html[i as usize] && self.variation.has(&Variation::SessionPath) {
            s.push_str(";jsessionid=");
            s.push_str(&t.session);
        }
        Some(s)
    }

    /// The query a link to file `i` carries here, given the original link's.
    fn query(&self, t: &Table, i: u32, original: Option<&str>) -> String {
        let session =
            self.site.file_table().html[i as usize] && self.variation.has(&Variation::SessionQuery);
        match (session, original) {
            (true, Some(q)) => format!("?{q}&sid={}", t.session),
            (true, None) => format!("?sid={}", t.session),
            (false, Some(q)) => format!("?{q}"),
            (false, None) => String::new(),
        }
    }

    /// A page's bytes as served here: links rewritten, the banner inserted.
    fn render(&self, i: u32, bytes: Vec<u8>) -> Vec<u8> {
        let banner = self.variation.has(&Variation::Banner);
        let file_links = bytes.windows(7).any(|w| w == b"file://");
        let same = self.variation == Variation::Same;
        if same && !file_links {
            return bytes;
        }
        let t = self.table();
        let site = &self.site;
        let files = site.file_table();
        let file = &files.paths[i as usize];
        let Ok(base) = url::Url::parse(&format!(
            "http://{}{}",
            site.host,
            encode_path(&site.origin_path(file))
        )) else {
            return bytes;
        };
        let Some(here) = self.link(t, i) else {
            return bytes;
        };
        let file_root = format!("file://{}/", site.declared_root.trim_end_matches('/'));
        let original_url = |f: u32, query: Option<&str>, frag: &str| {
            let q = query.map(|q| format!("?{q}")).unwrap_or_default();
            let path = encode_path(&site.origin_path(&files.paths[f as usize]));
            format!("http://{}{path}{q}{frag}", site.host)
        };
        let map = |v: &str| -> Option<String> {
            let v = v.trim();
            if v.is_empty() || v.starts_with('#') {
                return None;
            }
            if let Some(rest) = v.strip_prefix(&file_root) {
                let (path, frag) = rest.split_once('#').unwrap_or((rest, ""));
                let f = *files.index.get(&decode_path(path)?)?;
                let frag = if frag.is_empty() {
                    String::new()
                } else {
                    format!("#{frag}")
                };
                return Some(original_url(f, None, &frag));
            }
            if same {
                return None;
            }
            let url = base.join(v).ok()?;
            if !matches!(url.scheme(), "http" | "https")
                || url.host_str() != Some(site.host.as_str())
                || url.port().is_some()
            {
                return None;
            }
            let f = Files::lookup(&files.origin, &decode_path(url.path())?)?;
            let frag = url.fragment().map(|f| format!("#{f}")).unwrap_or_default();
            let Some(target) = self.link(t, f) else {
                return Some(original_url(f, url.query(), &frag));
            };
            // Links keep their form: a URL names this host, a path stays a path, a relative
            // reference stays relative (and as it was, where the paths are the original's).
            let full = v.starts_with("//") || v.contains("://");
            if !full && !self.variation.changes_urls() {
                return None;
            }
            let query = self.query(t, f, url.query());
            let path = if full {
                format!("http://{}{target}", self.host)
            } else if v.starts_with('/') {
                target
            } else {
                relative(&here, &target)
            };
            Some(format!("{path}{query}{frag}"))
        };
        let insert = banner.then(|| self.banner(file));
        rewrite(&bytes, map, insert.as_deref())
    }

    /// The mirror banner of a page: who mirrors what (a link to the original's entry page), when
    /// it was synchronised, and when the page was made (a time of its own per page).
    fn banner(&self, file: &str) -> Vec<u8> {
        let sync = 19_700 + (mix(self.seed, "sync") % 700) as i64;
        let minute = mix(self.seed, "minute") % 1440;
        let page = mix(self.seed, file) % 86_400;
        let (y, m, d) = civil(sync);
        let (y2, m2, d2) = civil(sync + 1 + (mix(self.seed, "delay") % 3) as i64);
        let site = &self.site;
        format!(
            "<div class=\"mirror-banner\" style=\"background:#ffe;border-bottom:1px solid #cc8;\
             padding:4px 8px;font:12px sans-serif\">This is a mirror of \
             <a href=\"http://{host}{prefix}\">{host}</a>, provided by {me}. \
             Last synchronised {y}-{m:02}-{d:02} {hh:02}:{mm:02} UTC; \
             page generated {y2}-{m2:02}-{d2:02} {ph:02}:{pm:02}:{ps:02} UTC.</div>",
            host = site.host,
            prefix = encode_path(&site.origin_path(&site.entry)),
            me = self.host,
            hh = minute / 60,
            mm = minute % 60,
            ph = page / 3600,
            pm = page / 60 % 60,
            ps = page % 60,
        )
        .into_bytes()
    }
}

/// The `Content-Type` of a file: by its extension; an HTML page is said to be UTF-8 only when
/// it declares no charset of its own and is UTF-8 (as `exemplar serve` does).
fn content_type(file: &str, body: &[u8]) -> &'static str {
    let ext = file
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm"
            if exemplar_html::text::declares_charset(body)
                || std::str::from_utf8(body).is_err() =>
        {
            "text/html"
        }
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" | "map" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "gif" => "image/gif",
        "jpg" | "jpeg" => "image/jpeg",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "gz" => "application/gzip",
        _ => "application/octet-stream",
    }
}

/// The date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::civil;

    #[test]
    fn dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
        assert_eq!(civil(19_782), (2024, 2, 29));
    }
}
