//! The local web's backlink service, standing in for the backlink APIs of the source documents
//! (≤ 15 linking pages a call): every page of every site is read once, and each link that
//! reaches a page of another site is recorded.
//!
//! Contract: `GET /links?url=URL[&start=N]` on the service's host answers an HTML page listing
//! up to [`PER_CALL`] pages of other sites that link URL (a fragment and a final `index.html`
//! ignored), or, when URL is a site's own URL, that link any page of the site; from the N-th on,
//! with a "next" link while more remain. The order is fixed: one page of each linking site in
//! turn (sites in list order, their pages in path order), as a ranked API's first page spreads
//! over the sites that link. A request without `url` answers 400.
use std::collections::HashMap;
use std::sync::Arc;

use exemplar_native::serve::{Request, Response, percent_decode};

use super::{LocalWeb, Service};
use crate::replicas::html;

/// Linking pages a call returns at most.
pub const PER_CALL: usize = 15;

/// Who links whom across the sites of a local web.
#[derive(Debug, Default)]
pub struct Backlinks {
    /// Linking pages' URLs, with their site.
    sources: Vec<(String, usize)>,
    /// A page's URL → the sources that link it.
    to_page: HashMap<String, Vec<u32>>,
    /// A site's URL → the sources that link any of its pages.
    to_site: HashMap<String, Vec<u32>>,
    /// Pages read.
    pub pages_read: usize,
}

impl Backlinks {
    /// The links of every page of every site whose entry page is there; `each` sees every page
    /// read (its site, its path relative to the root, its bytes as installed).
    pub fn build(web: &LocalWeb, mut each: impl FnMut(usize, &str, &[u8])) -> Backlinks {
        let mut b = Backlinks::default();
        for (s, site) in web.sites.iter().enumerate() {
            if !web.available(s) {
                continue;
            }
            for rel in web.pages(s) {
                let Some(bytes) = web.fs().read(&web.file(s, &rel)) else {
                    continue;
                };
                b.pages_read += 1;
                each(s, &rel, &bytes);
                let mut source = None;
                let mut seen = Vec::new();
                for v in html::urls(&bytes) {
                    let Some(url) = web.map_link(s, &rel, &v).or_else(|| absolute(&v)) else {
                        continue;
                    };
                    let Some((t, _)) = web.site_of_url(&url) else {
                        continue;
                    };
                    if t == s {
                        continue;
                    }
                    let target = normal(&url);
                    if seen.contains(&target) {
                        continue;
                    }
                    let id = *source.get_or_insert_with(|| {
                        b.sources.push((site.url_of(&html::encode_path(&rel)), s));
                        (b.sources.len() - 1) as u32
                    });
                    let site_list = b.to_site.entry(web.sites[t].url()).or_default();
                    if site_list.last() != Some(&id) {
                        site_list.push(id);
                    }
                    b.to_page.entry(target.clone()).or_default().push(id);
                    seen.push(target);
                }
            }
        }
        b
    }

    /// Pages of other sites linking a URL (or, for a site's URL, any page of the site), in the
    /// service's order.
    pub fn of(&self, url: &str) -> Vec<&str> {
        let url = normal(url);
        let ids = self.to_site.get(&url).or_else(|| self.to_page.get(&url));
        let Some(ids) = ids else { return Vec::new() };
        // One page of each linking site in turn.
        let mut by_site: Vec<(usize, Vec<&str>)> = Vec::new();
        for &id in ids {
            let (src, site) = &self.sources[id as usize];
            match by_site.iter_mut().find(|(s, _)| s == site) {
                Some((_, v)) => v.push(src),
                None => by_site.push((*site, vec![src])),
            }
        }
        by_site.sort_by_key(|(s, _)| *s);
        for (_, v) in &mut by_site {
            v.sort();
            v.dedup();
        }
        let mut out = Vec::new();
        let mut round = 0;
        while by_site.iter().any(|(_, v)| round < v.len()) {
            out.extend(by_site.iter().filter_map(|(_, v)| v.get(round).copied()));
            round += 1;
        }
        out
    }

    /// Distinct linking pages recorded.
    pub fn sources(&self) -> usize {
        self.sources.len()
    }

    /// Site pairs linked (source site, target site), counted once each.
    pub fn site_edges(&self, web: &LocalWeb) -> usize {
        let mut pairs = std::collections::HashSet::new();
        for (url, ids) in &self.to_site {
            let Some((t, _)) = web.site_of_url(url) else {
                continue;
            };
            for &id in ids {
                pairs.insert((self.sources[id as usize].1, t));
            }
        }
        pairs.len()
    }

    /// The service answering `/links?url=…` from this index.
    pub fn service(self: Arc<Self>) -> Service {
        Arc::new(move |req: &Request| {
            let query = req.path.split_once('?').map_or("", |(_, q)| q);
            let param = |k: &str| {
                query.split('&').find_map(|kv| {
                    let (key, v) = kv.split_once('=')?;
                    (key == k).then(|| percent_decode(&v.replace('+', " ")))?
                })
            };
            let Some(url) = param("url").filter(|u| !u.is_empty()) else {
                return Response {
                    status: 400,
                    body: b"url=URL is required\n".to_vec(),
                    ..Response::default()
                };
            };
            let start: usize = param("start").and_then(|s| s.parse().ok()).unwrap_or(0);
            let all = self.of(&url);
            let mut body = format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Pages linking {u}</title></head>\
                 <body><h1>Pages linking {u}</h1><p>{n} pages</p><ol>",
                u = escape(&url),
                n = all.len()
            );
            for src in all.iter().skip(start).take(PER_CALL) {
                body.push_str(&format!("<li><a href=\"{0}\">{0}</a></li>", escape(src)));
            }
            body.push_str("</ol>");
            if start + PER_CALL < all.len() {
                body.push_str(&format!(
                    "<a rel=\"next\" href=\"/links?url={}&amp;start={}\">Next</a>",
                    encode_query(&url),
                    start + PER_CALL
                ));
            }
            body.push_str("</body></html>");
            Response::html(body)
        })
    }
}

/// An `http(s)` URL as written on a page.
fn absolute(v: &str) -> Option<String> {
    let lower = v.get(..8).unwrap_or(v).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| v.trim().to_string())
}

/// A URL without its fragment or a final `index.html`, over `http`.
fn normal(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    let url = match url.strip_prefix("https://") {
        Some(rest) => format!("http://{rest}"),
        None => url.to_string(),
    };
    match url.strip_suffix("index.html") {
        Some(dir) if dir.ends_with('/') => dir.to_string(),
        _ => url,
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

fn encode_query(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
