//! Sitemaps (the sitemaps.org protocol 0.9): the page URLs a site lists for crawlers, read from
//! the files its robots.txt names (`Sitemap:` lines), or where it names none from the common
//! locations ([`common_locations`]: `/sitemap.xml`, `/sitemap_index.xml`, the entry page's
//! directory's `sitemap.xml`), where answering nothing is no error. A crawl reads them as it reads a page's
//! links: a listed URL that the pattern's last level matches is a target wherever it is met
//! (the shortcut rule), so the pages no listing links (a catalogue's listings cut at page 50,
//! an item linked from nowhere) are found too.
//!
//! A sitemap is a `<urlset>` of page URLs or a `<sitemapindex>` of further sitemaps, each URL
//! in a `<loc>`; the protocol also allows a plain text file of one URL per line. Files are
//! often gzip-compressed (`sitemap.xml.gz`, served as `application/gzip`, which neither the
//! browser's `fetch` nor an HTTP client inflates): they are inflated here. Bounded as the
//! protocol bounds a sitemap: 50,000 URLs and 50 MB uncompressed.
//!
//! Mapping reads them too, once it has followed every link ([`crate::mapper`]): the pages they
//! list that no link reached become links of the entry page, as a crawl reads them, so a site
//! whose listings are drawn by scripts can still be learned.

/// URLs read from one sitemap at most (the protocol's limit).
pub const MAX_URLS: usize = 50_000;
/// Sitemap files one run reads at most (those robots.txt names and those their indexes list).
pub const MAX_FILES: usize = 1_000;
/// Uncompressed size of one sitemap at most, in bytes (the protocol's limit).
pub const MAX_BYTES: usize = 50 * 1024 * 1024;

/// What a sitemap lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Page URLs (`<urlset>`, or a text sitemap).
    Pages,
    /// Further sitemaps (`<sitemapindex>`).
    Index,
}

/// A parsed sitemap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sitemap {
    /// Pages or further sitemaps.
    pub kind: Kind,
    /// The `<loc>` URLs (or lines) in document order, entities decoded, whitespace trimmed;
    /// only http(s) URLs, at most [`MAX_URLS`].
    pub urls: Vec<String>,
    /// The file listed more than [`MAX_URLS`] URLs: the rest were not read.
    pub truncated: bool,
}

/// The origins (`scheme://host[:port]`) of the sitemaps a site's robots.txt names that lie off
/// the site (`in_site` false): the protocol lets a site's robots.txt point at sitemaps on
/// another host (a CDN's, a storage bucket's), and the sitemap indexes there list further
/// sitemaps on the same hosts. Sitemaps on other hosts, and the URLs any sitemap lists off the
/// site, are not read.
pub fn named_hosts<'a>(
    named: impl IntoIterator<Item = &'a String>,
    in_site: impl Fn(&str) -> bool,
) -> impl Iterator<Item = String> {
    named
        .into_iter()
        .filter(move |u| !in_site(u))
        .filter_map(|u| crate::fetch::host_of(u))
}

/// The protocol's common locations, tried when the site's robots.txt names no sitemap:
/// `/sitemap.xml` and `/sitemap_index.xml` at the root, then `sitemap.xml` in the entry page's
/// directory and its parents below the root (a site published under a path prefix:
/// `/group/people/` → `/group/people/sitemap.xml`, `/group/sitemap.xml`), at most three of
/// those. Canonical, in that order. A guess that answers nothing is no error: most sites have
/// no sitemap there.
pub fn common_locations(entry: &str) -> Vec<String> {
    let Ok(u) = url::Url::parse(entry) else {
        return Vec::new();
    };
    let at = |path: &str| {
        let mut x = u.clone();
        x.set_path(path);
        x.set_query(None);
        x.set_fragment(None);
        crate::canon::canonicalize(x.as_str())
    };
    let mut out: Vec<String> = ["/sitemap.xml", "/sitemap_index.xml"]
        .into_iter()
        .filter_map(at)
        .collect();
    let path = u.path();
    let mut dir = &path[..path.rfind('/').unwrap_or(0)];
    for _ in 0..3 {
        if dir.is_empty() {
            break;
        }
        if let Some(s) = at(&format!("{dir}/sitemap.xml"))
            && !out.contains(&s)
        {
            out.push(s);
        }
        dir = &dir[..dir.rfind('/').unwrap_or(0)];
    }
    out
}

/// Why a sitemap was not read when its host's robots.txt stands in the way (`unreadable`:
/// [`crate::fetch::Frontier::robots_unreadable`]): it disallows the sitemap, or it could not be
/// read at all, which RFC 9309 reads as "disallow all" (a host that does not answer, or that the
/// browser gives the extension no access to).
pub fn disallowed(unreadable: Option<&crate::fetch::Unreadable>) -> String {
    use crate::fetch::Unreadable;
    match unreadable {
        None => "sitemap not read: its host's robots.txt disallows it".into(),
        Some(Unreadable::Unreachable { error }) => format!(
            "sitemap not read: its host's robots.txt could not be fetched ({error}), so nothing \
             there is asked (in the extension: no access to that host?)"
        ),
        Some(Unreadable::ServerError { status }) => format!(
            "sitemap not read: its host's robots.txt answered HTTP {status}, which disallows \
             everything there"
        ),
    }
}

/// A sitemap not read, or not all of it, as mapping and crawling report it
/// (`Event::SitemapSkipped`): missing, malformed, disallowed, past the bounds, on a host the
/// site's robots.txt does not name.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRead {
    /// The sitemap's URL.
    pub url: String,
    /// Why, in words.
    pub reason: String,
    /// Its host answered nothing when its robots.txt was asked
    /// ([`crate::fetch::Unreadable::Unreachable`]): in the extension, a host it may have no
    /// access to (access granted, the next run reads it).
    pub unreachable: bool,
}

impl NotRead {
    /// `url` not read for `reason`; unreachable when its host answered nothing for robots.txt.
    pub(crate) fn new<T: Clone>(
        frontier: &crate::fetch::Frontier<T>,
        url: String,
        reason: String,
    ) -> Self {
        let unreachable = matches!(
            frontier.robots_unreadable(&url),
            Some(crate::fetch::Unreadable::Unreachable { .. })
        );
        NotRead {
            url,
            reason,
            unreachable,
        }
    }
}

/// What a run does with a sitemap file it meets (named by the site's robots.txt, or listed by
/// an index): [`admit`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Read it: its canonical URL.
    Read(String),
    /// Already read or queued, or no http(s) URL: nothing to do.
    Known,
    /// Not read, said so: its canonical URL and why.
    Refused(String, String),
}

/// The sitemap files a run reads: each once (`queued`: those queued so far), on the site
/// (`in_site`) or on a host off it that the site's robots.txt names sitemaps on (`named_host`,
/// given an origin: [`named_hosts`]), at most [`MAX_FILES`] in all.
pub(crate) fn admit(
    url: &str,
    queued: &std::collections::BTreeSet<String>,
    in_site: impl Fn(&str) -> bool,
    named_host: impl Fn(&str) -> bool,
) -> Admission {
    let Some(url) = crate::canon::canonicalize(url) else {
        return Admission::Known;
    };
    if queued.contains(&url) {
        return Admission::Known;
    }
    if !in_site(&url) && !crate::fetch::host_of(&url).is_some_and(|h| named_host(&h)) {
        let why = "sitemap not read: on another host, where the site's robots.txt names none";
        return Admission::Refused(url, why.into());
    }
    if queued.len() >= MAX_FILES {
        let why = format!("sitemap not read: more than {MAX_FILES} sitemaps");
        return Admission::Refused(url, why);
    }
    Admission::Read(url)
}

/// [`admit`] for each of `urls` in turn, each admitted one added to `queued`: the URLs to ask
/// as sitemaps (canonical, in order), and those refused with why.
pub(crate) fn admit_all(
    urls: Vec<String>,
    queued: &mut std::collections::BTreeSet<String>,
    in_site: impl Fn(&str) -> bool,
    named_host: impl Fn(&str) -> bool,
) -> (Vec<String>, Vec<(String, String)>) {
    let (mut read, mut refused) = (Vec::new(), Vec::new());
    for url in urls {
        match admit(&url, queued, &in_site, &named_host) {
            Admission::Read(url) => {
                queued.insert(url.clone());
                read.push(url);
            }
            Admission::Known => {}
            Admission::Refused(url, why) => refused.push((url, why)),
        }
    }
    (read, refused)
}

/// Said of a sitemap that listed more than [`MAX_URLS`] URLs.
pub fn truncated_note() -> String {
    format!(
        "the sitemap lists more than {MAX_URLS} URLs (the protocol's limit): the rest were not read"
    )
}

/// Reads a sitemap from the answer to a sitemap request: a 2xx response's body.
///
/// # Errors
/// Why it was not read: the request's failure, an HTTP status outside 2xx, or [`parse`]'s error.
pub fn read(result: &crate::fetch::FetchResult) -> Result<Sitemap, String> {
    match result {
        crate::fetch::FetchResult::Failed(e) => Err(e.clone()),
        crate::fetch::FetchResult::Response(r) if !(200..300).contains(&r.status) => {
            Err(format!("HTTP {}", r.status))
        }
        crate::fetch::FetchResult::Response(r) => parse(&r.body),
    }
}

/// Reads a sitemap from a response body (gzip-compressed or not).
///
/// # Errors
/// A body that is neither a sitemap's XML (no `<urlset>` or `<sitemapindex>`) nor a text
/// sitemap (a first line that is no http(s) URL), a corrupt gzip stream, or more than
/// [`MAX_BYTES`] once inflated.
pub fn parse(body: &[u8]) -> Result<Sitemap, String> {
    let inflated;
    let bytes = if body.starts_with(&[0x1f, 0x8b]) {
        inflated = gunzip(body)?;
        &inflated[..]
    } else if body.len() > MAX_BYTES {
        return Err(format!("larger than {} MB", MAX_BYTES >> 20));
    } else {
        body
    };
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if !text.starts_with('<') {
        return text_sitemap(text);
    }
    let (kind, root) = if let Some(i) = element_start(text, "sitemapindex") {
        (Kind::Index, i)
    } else if let Some(i) = element_start(text, "urlset") {
        (Kind::Pages, i)
    } else {
        return Err("not a sitemap (no <urlset> or <sitemapindex>)".into());
    };
    // The protocol's `<loc>` is in the root's namespace: written with the root's prefix (none,
    // or `sm:` when the root is `<sm:urlset>`). Extensions put theirs under another prefix —
    // an image sitemap's `<image:loc>` inside each `<url>`, the address of a picture, not a
    // page — and are not read.
    let prefix = qualified_name(&text[root + 1..])
        .rsplit_once(':')
        .map_or("", |(p, _)| p);
    let mut urls = Vec::new();
    let mut truncated = false;
    let mut rest = text;
    while let Some(start) = element_start(rest, "loc") {
        let qualified = qualified_name(&rest[start + 1..]);
        if qualified.rsplit_once(':').map_or("", |(p, _)| p) != prefix {
            rest = &rest[start + 1..];
            continue;
        }
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else {
            break;
        };
        let content = &after[open_end + 1..];
        let Some(close) = content.find("</") else {
            break;
        };
        if let Some(url) = http_url(&decode(&content[..close])) {
            if urls.len() == MAX_URLS {
                truncated = true;
                break;
            }
            urls.push(url);
        }
        rest = &content[close..];
    }
    Ok(Sitemap {
        kind,
        urls,
        truncated,
    })
}

/// A text sitemap: one URL per line (blank lines skipped); its first line must be a URL.
fn text_sitemap(text: &str) -> Result<Sitemap, String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    if http_url(first).is_none() {
        return Err("not a sitemap (neither XML nor a list of URLs)".into());
    }
    let mut urls = Vec::new();
    let mut truncated = false;
    for line in std::iter::once(first).chain(lines) {
        if let Some(url) = http_url(line) {
            if urls.len() == MAX_URLS {
                truncated = true;
                break;
            }
            urls.push(url);
        }
    }
    Ok(Sitemap {
        kind: Kind::Pages,
        urls,
        truncated,
    })
}

/// The element name a tag's text starts with (`sm:loc` in `sm:loc>…`): up to `>`, whitespace
/// or `/`.
fn qualified_name(tag: &str) -> &str {
    tag.find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        .map_or(tag, |end| &tag[..end])
}

/// Where the first start tag of element `name` begins in `text`: `<name` or `<prefix:name`
/// followed by `>`, whitespace or `/` (so `<locale>` is no `<loc>`).
fn element_start(text: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find('<').map(|i| i + from) {
        let tag = &text[i + 1..];
        let local = qualified_name(tag);
        let local = local.rsplit(':').next().unwrap_or(local);
        if local == name && !tag.starts_with('/') {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// `s` trimmed when it is an absolute http(s) URL.
fn http_url(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| s.to_string())
}

/// XML character data: a CDATA section's content as it is, else the five predefined entities
/// and character references decoded (an unknown or malformed reference is kept as written).
fn decode(s: &str) -> String {
    let s = s.trim();
    if let Some(inner) = s
        .strip_prefix("<![CDATA[")
        .and_then(|r| r.strip_suffix("]]>"))
    {
        return inner.trim().to_string();
    }
    decode_references(s)
}

/// `s` with XML's five predefined entities (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`) and
/// numeric character references (`&#45;`, `&#x2D;`) decoded; an unknown or malformed reference
/// is kept as written. What a URL in XML or in an HTML attribute may hold.
pub fn decode_references(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let decoded = after.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &after[..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Inflates a gzip member (RFC 1952): header, optional fields, raw deflate data; at most
/// [`MAX_BYTES`] out.
fn gunzip(body: &[u8]) -> Result<Vec<u8>, String> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    let corrupt = || "corrupt gzip data".to_string();
    if body.len() < 18 || body[2] != 8 {
        return Err(corrupt());
    }
    let flags = body[3];
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let len = body.get(at..at + 2).ok_or_else(corrupt)?;
        at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let end = body.get(at..).and_then(|b| b.iter().position(|&c| c == 0));
            at += end.ok_or_else(corrupt)? + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    let data = body.get(at..).ok_or_else(corrupt)?;
    miniz_oxide::inflate::decompress_to_vec_with_limit(data, MAX_BYTES).map_err(|e| {
        if matches!(e.status, miniz_oxide::inflate::TINFLStatus::HasMoreOutput) {
            format!("larger than {} MB once inflated", MAX_BYTES >> 20)
        } else {
            corrupt()
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn character_references_decode_and_unknown_ones_stay() {
        assert_eq!(
            super::decode_references("a&#45;&#x2d;b&amp;c&quot;&copy;&"),
            "a--b&c\"&copy;&"
        );
    }

    const URLSET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://shop.test/item/1.html</loc><lastmod>2026-11-01</lastmod></url>
  <url>
    <loc>
      http://shop.test/item/2.html?a=1&amp;b=2
    </loc>
  </url>
  <url><loc><![CDATA[http://shop.test/item/3.html?x=<y>]]></loc></url>
  <url><loc>mailto:someone@shop.test</loc></url>
  <url><loc>http://shop.test/caf&#xe9;/&#233;t&eacute;</loc></url>
</urlset>"#;

    #[test]
    fn a_urlset_lists_its_page_urls() {
        let s = parse(URLSET.as_bytes()).expect("sitemap");
        assert_eq!(s.kind, Kind::Pages);
        assert_eq!(
            s.urls,
            [
                "http://shop.test/item/1.html",
                "http://shop.test/item/2.html?a=1&b=2",
                "http://shop.test/item/3.html?x=<y>",
                "http://shop.test/café/ét&eacute;",
            ]
        );
        assert!(!s.truncated);
    }

    #[test]
    fn an_index_lists_sitemaps_with_or_without_a_namespace_prefix() {
        let index = "<?xml version='1.0'?><sm:sitemapindex xmlns:sm='http://www.sitemaps.org/schemas/sitemap/0.9'>\
            <sm:sitemap><sm:loc>https://shop.test/s1.xml.gz</sm:loc></sm:sitemap>\
            <sm:sitemap><sm:locale>fr</sm:locale><sm:loc>https://shop.test/s2.xml</sm:loc></sm:sitemap>\
            </sm:sitemapindex>";
        let s = parse(index.as_bytes()).expect("index");
        assert_eq!(s.kind, Kind::Index);
        assert_eq!(
            s.urls,
            ["https://shop.test/s1.xml.gz", "https://shop.test/s2.xml"]
        );
    }

    /// An image sitemap (Google's extension, which shops and blogs write into their product
    /// sitemaps): each `<url>` also holds `<image:loc>`, a picture's address, which is not a
    /// page; under a prefixed root, only that prefix's `<loc>` is the protocol's.
    #[test]
    fn only_the_protocols_loc_is_read_not_an_extensions() {
        let urlset = "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9' \
            xmlns:image='http://www.google.com/schemas/sitemap-image/1.1'>\
            <url><loc>https://shop.test/p/1</loc><image:image><image:loc>https://shop.test/img/1.jpg</image:loc></image:image></url>\
            <url><loc>https://shop.test/p/2</loc><image:image><image:loc>https://cdn.test/2.jpg</image:loc>\
            <image:caption>Two</image:caption></image:image></url></urlset>";
        let s = parse(urlset.as_bytes()).expect("urlset");
        assert_eq!(s.urls, ["https://shop.test/p/1", "https://shop.test/p/2"]);
        let prefixed = "<sm:urlset xmlns:sm='http://www.sitemaps.org/schemas/sitemap/0.9'>\
            <sm:url><sm:loc>https://shop.test/p/3</sm:loc><image:loc>https://shop.test/3.jpg</image:loc>\
            <loc>https://shop.test/unqualified</loc></sm:url></sm:urlset>";
        let s = parse(prefixed.as_bytes()).expect("prefixed");
        assert_eq!(s.urls, ["https://shop.test/p/3"]);
    }

    #[test]
    fn a_text_sitemap_is_one_url_per_line() {
        let s = parse(b"\xef\xbb\xbfhttp://a.test/1\r\n\r\nhttp://a.test/2\nnot a url\n")
            .expect("text");
        assert_eq!(s.kind, Kind::Pages);
        assert_eq!(s.urls, ["http://a.test/1", "http://a.test/2"]);
        assert!(parse(b"<html><body>404</body></html>").is_err());
        assert!(parse(b"User-agent: *\nDisallow: /").is_err());
        assert!(parse(b"").is_err());
    }

    /// A gzip member as `gzip -n` writes it (no name), and one with a file name and comment.
    pub(crate) fn gzip(data: &[u8], flags: u8, extra: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 3];
        out.extend_from_slice(extra);
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        // CRC-32 and size: not checked here (the deflate stream ends itself).
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn a_gzipped_sitemap_is_inflated() {
        let plain = parse(URLSET.as_bytes()).expect("plain");
        assert_eq!(parse(&gzip(URLSET.as_bytes(), 0, &[])).expect("gz"), plain);
        let named = gzip(URLSET.as_bytes(), 8 | 16, b"sitemap.xml\0a comment\0");
        assert_eq!(parse(&named).expect("named gz"), plain);
        let mut broken = gzip(URLSET.as_bytes(), 0, &[]);
        broken.truncate(40);
        assert_eq!(parse(&broken), Err("corrupt gzip data".to_string()));
        assert!(
            parse(&[0x1f, 0x8b, 8, 8, 0, 0]).is_err(),
            "a header cut short"
        );
    }

    /// Sitemap files are read once each, on the site or on a host its robots.txt names, at most
    /// [`MAX_FILES`].
    #[test]
    fn sitemap_files_are_admitted_on_the_site_and_the_hosts_robots_txt_names() {
        let in_site = |u: &str| u.starts_with("http://shop.test/");
        let named = |h: &str| h == "https://cdn.test";
        let mut queued = std::collections::BTreeSet::new();
        let admit = |u: &str, q: &std::collections::BTreeSet<String>| admit(u, q, in_site, named);
        assert_eq!(
            admit("http://shop.test/a.xml#x", &queued),
            Admission::Read("http://shop.test/a.xml".into())
        );
        assert_eq!(
            admit("https://cdn.test:443/s/b.xml", &queued),
            Admission::Read("https://cdn.test/s/b.xml".into())
        );
        match admit("http://cdn.test/s/b.xml", &queued) {
            Admission::Refused(url, why) => {
                assert_eq!(url, "http://cdn.test/s/b.xml");
                assert!(why.contains("names none"), "{why}");
            }
            other => panic!("another scheme is another origin: {other:?}"),
        }
        assert_eq!(admit("ftp://shop.test/a.xml", &queued), Admission::Known);
        queued.insert("http://shop.test/a.xml".to_string());
        assert_eq!(admit("http://shop.test/a.xml", &queued), Admission::Known);
        queued.extend((0..MAX_FILES).map(|i| format!("http://shop.test/{i}.xml")));
        assert!(matches!(
            admit("http://shop.test/more.xml", &queued),
            Admission::Refused(_, why) if why.contains("more than 1000")
        ));
    }

    #[test]
    fn a_sitemap_is_bounded() {
        let mut big = String::from("<urlset>");
        for i in 0..=MAX_URLS {
            big.push_str(&format!("<url><loc>http://a.test/{i}</loc></url>"));
        }
        big.push_str("</urlset>");
        let s = parse(big.as_bytes()).expect("big");
        assert_eq!(s.urls.len(), MAX_URLS);
        assert!(s.truncated);
        // A bomb: more than MAX_BYTES once inflated.
        let zeros = vec![b' '; MAX_BYTES + 1];
        let err = parse(&gzip(&zeros, 0, &[])).expect_err("too large");
        assert!(err.contains("larger than 50 MB"), "{err}");
    }
}
