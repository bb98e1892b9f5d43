//! Exports: pages as JSON Lines, CSV and WARC 1.1, and a Scrapy project generated from a
//! navigation pattern. Writers take any `impl Write`; nothing here does other IO except
//! [`write_scrapy_project`].

// The crates below, by their short module names.
use exemplar_core::{
    crawler, fetch, fields, forms, pattern, review::language, script_links, sitemap,
};
use exemplar_url::canon;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One fetched page as exported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageRecord {
    /// Canonical URL.
    pub url: String,
    /// Final URL after redirects.
    pub final_url: String,
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// Response headers.
    pub headers: Vec<(String, String)>,
    /// When fetched (unix ms).
    pub fetched_at_ms: u64,
    /// `<title>`.
    pub title: Option<String>,
    /// The page's main heading (its first `h1` or title-classed element), when it has one.
    #[serde(default)]
    pub heading: Option<String>,
    /// The language the page declares (`<html lang>`), when it declares one.
    #[serde(default)]
    pub lang: Option<String>,
    /// The canonical URL the page declares (`<link rel="canonical">`), when it declares one.
    #[serde(default)]
    pub canonical: Option<String>,
    /// Similarity to the example, when measured.
    pub similarity: Option<f64>,
    /// The pattern level of the page whose link led to it (0 = the entry page).
    pub level: Option<usize>,
    /// Taken below θ because its heading follows the targets' (a verifying crawl's
    /// `TargetPage::by_heading`).
    #[serde(default)]
    pub by_heading: bool,
    /// The signature of its title and visible text ([`crate::crawler::TargetPage::text_digest`]),
    /// when known: compare two exports' to tell the pages whose text changed.
    #[serde(default)]
    pub text_digest: Option<String>,
    /// What it is against an earlier crawl, when the export compares with one.
    #[serde(default)]
    pub change: Option<Change>,
    /// The pattern's data fields read from the page ([`crate::fields::extract`]), by name.
    #[serde(default)]
    pub fields: Vec<(String, crate::fields::Value)>,
    /// Body.
    pub body: Option<Vec<u8>>,
}

/// What a page found by a crawl is against an earlier crawl of the same pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// The earlier crawl did not find it.
    New,
    /// The earlier crawl found it with another text digest (what the page says changed).
    Changed,
    /// The earlier crawl found it with the same text, or one of the two has no digest to
    /// compare: nothing says it changed.
    Same,
}

impl Change {
    /// `new`, `changed` or `same`, as exports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Changed => "changed",
            Change::Same => "same",
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonLine<'a> {
    url: &'a str,
    final_url: &'a str,
    status: u16,
    title: Option<&'a str>,
    heading: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical: Option<&'a str>,
    fetched_at: String,
    similarity: Option<f64>,
    level: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    by_heading: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    text_digest: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<String>,
}

/// JSON Lines: one object per page (`url`, `finalUrl`, `status`, `title`, `heading` (the main
/// heading, null when none), `lang` (the language the page declares, when it does: a corpus
/// of a multilingual site sorts its pages by it), `canonical` (the canonical URL the page
/// declares, when it does), `fetchedAt` in RFC 3339, `similarity`, `level`, `byHeading: true`
/// for a page a verifying crawl took below θ for its heading, `textDigest` (the signature of
/// its title and visible text, when known: the same in two exports unless the text changed),
/// `change` (`new`, `changed` or `same` against an earlier crawl, when compared with one),
/// `fields` (the pattern's data fields read from the page, typed: numbers, text, lists; absent
/// when the pattern has none or the page shows none), and `html` when `include_html`).
///
/// # Errors
/// Write errors.
pub fn write_jsonl<W: Write>(mut w: W, pages: &[PageRecord], include_html: bool) -> io::Result<()> {
    for p in pages {
        let line = JsonLine {
            url: &p.url,
            final_url: &p.final_url,
            status: p.status,
            title: p.title.as_deref(),
            heading: p.heading.as_deref().filter(|h| !h.is_empty()),
            lang: p.lang.as_deref().filter(|l| !l.is_empty()),
            canonical: p.canonical.as_deref().filter(|c| !c.is_empty()),
            fetched_at: rfc3339(p.fetched_at_ms),
            similarity: p.similarity,
            level: p.level,
            by_heading: p.by_heading,
            text_digest: p.text_digest.as_deref().filter(|d| !d.is_empty()),
            change: p.change,
            fields: (!p.fields.is_empty()).then(|| {
                p.fields
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or_default()))
                    .collect()
            }),
            html: if include_html {
                p.body
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            } else {
                None
            },
        };
        serde_json::to_writer(&mut w, &line)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV (RFC 4180) with a header: `url,final_url,status,title,heading,similarity,level,fetched_at`.
///
/// # Errors
/// Write errors.
pub fn write_csv<W: Write>(mut w: W, pages: &[PageRecord]) -> io::Result<()> {
    write_csv_header(&mut w)?;
    write_csv_rows(w, pages)
}

/// The CSV header alone, for a file written a row at a time ([`write_csv_rows`]).
///
/// # Errors
/// Write errors.
pub fn write_csv_header<W: Write>(w: W) -> io::Result<()> {
    write_csv_header_fields(w, &[])
}

/// The CSV header with a column per data field after the page's own (`fields`: their names).
///
/// # Errors
/// Write errors.
pub fn write_csv_header_fields<W: Write>(mut w: W, fields: &[String]) -> io::Result<()> {
    w.write_all(b"url,final_url,status,title,heading,similarity,level,fetched_at")?;
    for f in fields {
        w.write_all(b",")?;
        w.write_all(csv_field(f).as_bytes())?;
    }
    w.write_all(b"\r\n")
}

/// CSV rows without the header (see [`write_csv`]).
///
/// # Errors
/// Write errors.
pub fn write_csv_rows<W: Write>(w: W, pages: &[PageRecord]) -> io::Result<()> {
    write_csv_rows_fields(w, pages, &[])
}

/// CSV rows with a column per data field named in `fields` (empty where the page shows none;
/// a list's items joined by `; `), under [`write_csv_header_fields`].
///
/// # Errors
/// Write errors.
pub fn write_csv_rows_fields<W: Write>(
    mut w: W,
    pages: &[PageRecord],
    fields: &[String],
) -> io::Result<()> {
    for p in pages {
        let mut row = vec![
            csv_field(&p.url),
            csv_field(&p.final_url),
            p.status.to_string(),
            csv_field(p.title.as_deref().unwrap_or("")),
            csv_field(p.heading.as_deref().unwrap_or("")),
            p.similarity.map(|s| format!("{s:.4}")).unwrap_or_default(),
            p.level.map(|l| l.to_string()).unwrap_or_default(),
            rfc3339(p.fetched_at_ms),
        ];
        for name in fields {
            let v = p.fields.iter().find(|(k, _)| k == name);
            row.push(v.map(|(_, v)| csv_field(&v.as_text())).unwrap_or_default());
        }
        w.write_all(row.join(",").as_bytes())?;
        w.write_all(b"\r\n")?;
    }
    Ok(())
}

/// RFC 3339 UTC timestamp of unix milliseconds (second precision, as WARC-Date wants).
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil from days (H. Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// SHA-1 (for WARC digests; not for security).
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 80];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([
                chunk[4 * i],
                chunk[4 * i + 1],
                chunk[4 * i + 2],
                chunk[4 * i + 3],
            ]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

/// RFC 4648 base32 (upper case, padded).
pub fn base32(data: &[u8]) -> String {
    const A: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let v = buf.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(A[((v >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A WARC/1.1 writer: a `warcinfo` record, then one `response` record per page.
pub struct WarcWriter<W: Write> {
    w: W,
    counter: u64,
    seed: [u8; 20],
}

/// Where a [`WarcWriter`] stands between records: what [`WarcWriter::resume`] needs to go on
/// appending to the same file with record ids that stay unique.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WarcPosition {
    /// The file's id seed, hex.
    pub seed: String,
    /// Records written so far.
    pub records: u64,
}

impl<W: Write> WarcWriter<W> {
    /// Where the writer stands (after the last record written).
    pub fn position(&self) -> WarcPosition {
        WarcPosition {
            seed: self.seed.iter().map(|b| format!("{b:02x}")).collect(),
            records: self.counter,
        }
    }

    /// Goes on writing a file at `position`: `w` appends after the last record then written
    /// (no new `warcinfo`).
    ///
    /// # Errors
    /// A seed that is not 40 hex digits.
    pub fn resume(w: W, position: &WarcPosition) -> Result<WarcWriter<W>, String> {
        let hex = position.seed.as_bytes();
        let mut seed = [0u8; 20];
        if hex.len() != 40 || !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(format!("bad WARC seed {:?}", position.seed));
        }
        for (i, b) in seed.iter_mut().enumerate() {
            let pair = std::str::from_utf8(&hex[2 * i..2 * i + 2]).map_err(|e| e.to_string())?;
            *b = u8::from_str_radix(pair, 16).map_err(|e| e.to_string())?;
        }
        Ok(WarcWriter {
            w,
            counter: position.records,
            seed,
        })
    }

    /// Starts a WARC file with its `warcinfo` record dated `now` (unix ms; the core takes time
    /// as an argument).
    ///
    /// # Errors
    /// Write errors.
    pub fn new(w: W, description: &str, now: u64) -> io::Result<WarcWriter<W>> {
        let mut ww = WarcWriter {
            w,
            counter: 0,
            seed: sha1(format!("{description}{now}").as_bytes()),
        };
        let info = format!(
            "software: Exemplar/{}\r\nformat: WARC File Format 1.1\r\ndescription: {}\r\n",
            env!("CARGO_PKG_VERSION"),
            description.replace(['\r', '\n'], " ")
        );
        ww.record(
            "warcinfo",
            None,
            now,
            "application/warc-fields",
            info.as_bytes(),
            &[],
        )?;
        Ok(ww)
    }

    /// A deterministic UUID-shaped record id from the file's seed and a counter.
    fn record_id(&mut self) -> String {
        self.counter += 1;
        let mut input = self.seed.to_vec();
        input.extend_from_slice(&self.counter.to_be_bytes());
        let h = sha1(&input);
        let hex: String = h[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "<urn:uuid:{}-{}-4{}-a{}-{}>",
            &hex[..8],
            &hex[8..12],
            &hex[13..16],
            &hex[17..20],
            &hex[20..32]
        )
    }

    /// Writes one record; its id.
    fn record(
        &mut self,
        kind: &str,
        target: Option<&str>,
        ms: u64,
        content_type: &str,
        block: &[u8],
        extra: &[(&str, String)],
    ) -> io::Result<String> {
        let id = self.record_id();
        let mut head = format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: {}\r\n",
            rfc3339(ms)
        );
        if let Some(t) = target {
            head.push_str(&format!("WARC-Target-URI: {t}\r\n"));
        }
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!(
            "WARC-Block-Digest: sha1:{}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            base32(&sha1(block)),
            block.len()
        ));
        self.w.write_all(head.as_bytes())?;
        self.w.write_all(block)?;
        self.w.write_all(b"\r\n\r\n")?;
        Ok(id)
    }

    /// Writes a `response` record: the HTTP status line, headers and body; then, when the crawl
    /// judged the page, a `metadata` record concurrent to it (`application/warc-fields`, as
    /// Heritrix records a capture's context): the page's main `heading`, its declared `lang` and
    /// `canonical` URL, its `similarity` to the
    /// example, the `level` of the page it was found on, `byHeading: true` for a page taken
    /// below θ for its heading, its `textDigest`, its `change` against an earlier crawl, and the
    /// pattern's data fields read from it (`field-NAME: value`).
    ///
    /// # Errors
    /// Write errors.
    pub fn write_response(&mut self, p: &PageRecord) -> io::Result<()> {
        let body = p.body.as_deref().unwrap_or(&[]);
        let mut block = format!("HTTP/1.1 {} {}\r\n", p.status, reason(p.status));
        for (k, v) in &p.headers {
            // The body is stored decoded and whole: drop encodings that no longer apply.
            let k_l = k.to_ascii_lowercase();
            if matches!(
                k_l.as_str(),
                "content-length" | "transfer-encoding" | "content-encoding"
            ) {
                continue;
            }
            block.push_str(&format!("{k}: {}\r\n", v.replace(['\r', '\n'], " ")));
        }
        block.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut bytes = block.into_bytes();
        bytes.extend_from_slice(body);
        let payload = base32(&sha1(body));
        let target = if p.final_url.is_empty() {
            &p.url
        } else {
            &p.final_url
        };
        let id = self.record(
            "response",
            Some(target),
            p.fetched_at_ms,
            "application/http;msgtype=response",
            &bytes,
            &[("WARC-Payload-Digest", format!("sha1:{payload}"))],
        )?;
        let mut fields = String::new();
        if let Some(h) = p.heading.as_deref().filter(|h| !h.is_empty()) {
            // A field is one line of text: no control characters (CR, LF end it).
            let h: String = h
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            fields.push_str(&format!("heading: {h}\r\n"));
        }
        if let Some(l) = p.lang.as_deref().filter(|l| crate::language::is_tag(l)) {
            fields.push_str(&format!("lang: {l}\r\n"));
        }
        if let Some(c) = p.canonical.as_deref().filter(|c| !c.is_empty()) {
            let c: String = c.chars().filter(|c| !c.is_control()).collect();
            fields.push_str(&format!("canonical: {c}\r\n"));
        }
        if let Some(s) = p.similarity {
            fields.push_str(&format!("similarity: {s:.4}\r\n"));
        }
        if let Some(l) = p.level {
            fields.push_str(&format!("level: {l}\r\n"));
        }
        if p.by_heading {
            fields.push_str("byHeading: true\r\n");
        }
        if let Some(d) = p.text_digest.as_deref().filter(|d| is_digest(d)) {
            fields.push_str(&format!("textDigest: {d}\r\n"));
        }
        if let Some(c) = p.change {
            fields.push_str(&format!("change: {}\r\n", c.as_str()));
        }
        // The pattern's data fields, `field-NAME: value` (a list's items joined by `; `).
        for (name, value) in &p.fields {
            let v: String = value
                .as_text()
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            let name: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                fields.push_str(&format!("field-{name}: {v}\r\n"));
            }
        }
        if !fields.is_empty() {
            self.record(
                "metadata",
                Some(target),
                p.fetched_at_ms,
                "application/warc-fields",
                fields.as_bytes(),
                &[("WARC-Concurrent-To", id)],
            )?;
        }
        Ok(())
    }

    /// The underlying writer, for callers that drain a buffer between records (the extension
    /// exports a crawl in batches).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.w
    }

    /// Flushes and returns the writer.
    ///
    /// # Errors
    /// Write errors.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// A text digest as the crawler writes it (16 hex digits): what a WARC field may hold.
fn is_digest(d: &str) -> bool {
    d.len() == 16 && d.bytes().all(|b| b.is_ascii_hexdigit())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        203 => "Non-Authoritative Information",
        _ => "Status",
    }
}

/// Input of the Scrapy project generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScrapySpec {
    /// Project and spider name (made a Python identifier).
    pub name: String,
    /// Start URL.
    pub entry: String,
    /// Scrapy `allowed_domains`.
    pub allowed_domains: Vec<String>,
    /// E1 … En.
    pub levels: Vec<ScrapyLevel>,
    /// `DOWNLOAD_DELAY`.
    pub delay_s: f64,
    /// `CONCURRENT_REQUESTS_PER_DOMAIN`.
    pub concurrency_per_domain: u32,
    /// `ROBOTSTXT_OBEY`.
    pub obey_robots: bool,
    /// `USER_AGENT`.
    pub user_agent: String,
    /// Not used by the generated spider yet; kept for the format.
    pub max_pages_per_level: Option<u64>,
    /// The longest wait for a page answered "come back later" (`EXEMPLAR_MAX_WAIT`, seconds):
    /// the pattern's longest Crawl-delay ([`crate::fetch::Politeness::max_crawl_delay_ms`]).
    #[serde(default = "default_max_wait_s")]
    pub max_wait_s: f64,
    /// Pages' links include the page URLs named in the same-site scripts they include
    /// ([`crate::pattern::Pattern::script_links`]).
    #[serde(default)]
    pub script_links: bool,
    /// The entry page is a target too ([`crate::pattern::Pattern::entry_target`]).
    #[serde(default)]
    pub entry_target: bool,
    /// Directories whose pages are never items, as `exemplar crawl` refuses them
    /// ([`crate::pattern::Corrections::unlike_directories`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike_directories: Vec<String>,
    /// Targets never items, left out for their directory
    /// ([`crate::pattern::Pattern::unlike_by_directory`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike_targets: Vec<String>,
    /// Pages items wherever they lie: the example and the pages judged like it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub liked: Vec<String>,
    /// The site's pages are drawn by scripts ([`crate::pattern::Pattern::render`]): the
    /// spider, which fetches without rendering, says so when it starts.
    #[serde(default)]
    pub render: bool,
    /// The pattern's data fields ([`crate::pattern::Pattern::fields`]): the spider reads each
    /// from every item by its XPath, as `exemplar crawl` reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<fields::Field>,
    /// The pattern's rules for duplicate URLs ([`crate::pattern::Pattern::dust_rules`]): the
    /// spider rewrites every URL it follows by them, so that Scrapy's duplicate filter drops
    /// the copies, as `exemplar crawl` avoids them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dust_rules: Vec<exemplar_core::dust::DustRule>,
}

fn default_max_wait_s() -> f64 {
    crate::fetch::Politeness::default().max_crawl_delay_ms as f64 / 1000.0
}

impl ScrapySpec {
    /// The Scrapy spec of a navigation pattern: its entry, domains (`www.` and the bare host),
    /// levels (alternatives joined into one regex), politeness and Exemplar's user agent.
    pub fn from_pattern(pattern: &crate::pattern::Pattern) -> ScrapySpec {
        let host = url::Url::parse(&pattern.entry)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let mut domains = vec![host.clone()];
        let bare = host.strip_prefix("www.").unwrap_or(&host).to_string();
        if bare != host {
            domains.push(bare);
        } else if host.parse::<std::net::IpAddr>().is_err() && host != "localhost" {
            domains.push(format!("www.{host}"));
        }
        ScrapySpec {
            name: pattern.site.clone(),
            entry: pattern.entry.clone(),
            allowed_domains: domains,
            levels: pattern
                .levels
                .iter()
                .map(|l| ScrapyLevel {
                    regex: if l.regexes.len() == 1 {
                        l.regexes[0].clone()
                    } else {
                        format!("(?:{})", l.regexes.join("|"))
                    },
                    paginate: l.paginate,
                    from_targets: l.from_targets,
                    form: l.form.as_ref().map(ScrapyForm::from_level),
                    exclude: l.exclude.clone(),
                })
                .collect(),
            delay_s: pattern.politeness.delay_ms as f64 / 1000.0,
            concurrency_per_domain: pattern.politeness.max_in_flight_per_host as u32,
            obey_robots: pattern.politeness.obey_robots,
            user_agent: crate::fetch::USER_AGENT.to_string(),
            max_pages_per_level: None,
            max_wait_s: pattern.politeness.max_crawl_delay_ms as f64 / 1000.0,
            script_links: pattern.script_links,
            render: pattern.render,
            fields: pattern.fields.clone(),
            dust_rules: pattern.dust_rules.clone(),
            entry_target: pattern.entry_target,
            unlike_directories: pattern.corrections.unlike_directories.clone(),
            unlike_targets: pattern.unlike_by_directory.clone(),
            liked: if pattern.corrections.unlike_directories.is_empty()
                && pattern.unlike_by_directory.is_empty()
            {
                Vec::new()
            } else {
                crate::canon::canonicalize(&pattern.example)
                    .into_iter()
                    .chain(pattern.corrections.like.iter().cloned())
                    .collect()
            },
        }
    }
}

/// One level for Scrapy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScrapyLevel {
    /// Anchored full-URL regex (Python `re` syntax).
    pub regex: String,
    /// Pagination self-loop.
    pub paginate: bool,
    /// Pages of this level are also followed from targets (`Level::from_targets`).
    #[serde(default)]
    pub from_targets: bool,
    /// The level is reached through a search form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<ScrapyForm>,
    /// URLs the regex matches that are skipped (the pattern's known exceptions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// A search-form level for Scrapy: the spider submits the form (`scrapy.FormRequest`) once per
/// value — or, for a form of choice fields only, once per enumerated combination — and pages
/// through results with the form's pagination buttons (the request a click on one sends, built
/// by the spider as Exemplar builds it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScrapyForm {
    /// The action URL without its query.
    pub action: String,
    /// `GET` or `POST`.
    #[serde(default = "get")]
    pub method: String,
    /// The field the values fill (None: a form of choice fields only, submitted with each of
    /// `submissions`).
    #[serde(default)]
    pub query_field: Option<String>,
    /// Every `(name, value)` pair a submission sends, in order (the query field's value is
    /// replaced by each query).
    pub fields: Vec<(String, String)>,
    /// The values submitted (those that led to targets while learning); `-a queries=FILE`
    /// replaces them.
    pub values: Vec<String>,
    /// For a form of choice fields only: the pairs of each submission, the combinations
    /// `exemplar crawl` enumerates (same order, same budget).
    #[serde(default)]
    pub submissions: Vec<Vec<(String, String)>>,
    /// Result pages read per query.
    pub max_result_pages: u32,
    /// Selects an answer fills ([`crate::pattern::FormLevel::dependent`]): the spider submits
    /// such an answer's form again with each of their choices.
    #[serde(default)]
    pub dependent: Vec<String>,
    /// Submissions per query at most ([`crate::pattern::FormLevel::budget`]): bounds a step's.
    #[serde(default = "budget")]
    pub budget: usize,
}

fn budget() -> usize {
    crate::pattern::DEFAULT_BUDGET
}

fn get() -> String {
    "GET".into()
}

impl ScrapyForm {
    /// The Scrapy form of a form level.
    pub fn from_level(fl: &crate::pattern::FormLevel) -> ScrapyForm {
        let method = match fl.form.method {
            crate::forms::Method::Get => "GET".into(),
            crate::forms::Method::Post => "POST".into(),
        };
        let action = fl
            .form
            .action
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .to_string();
        let Some(q) = fl.query_field.clone() else {
            // The crawler's enumeration, run ahead: its combinations within the level's budget.
            let mut combos = crate::forms::query::Enumeration::new(&fl.form, fl.budget);
            let mut submissions = Vec::new();
            while let Some(values) = combos.next_values() {
                let pairs: Vec<(&str, &str)> = values
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                submissions.push(fl.form.pairs(&pairs));
            }
            return ScrapyForm {
                method,
                action,
                query_field: None,
                fields: fl.form.pairs(&[]),
                values: Vec::new(),
                submissions,
                max_result_pages: fl.max_result_pages,
                dependent: fl.dependent.clone(),
                budget: fl.budget,
            };
        };
        ScrapyForm {
            method,
            action,
            fields: fl.form.pairs(&[(q.as_str(), "")]),
            query_field: Some(q),
            values: fl.values.clone(),
            submissions: Vec::new(),
            max_result_pages: fl.max_result_pages,
            dependent: fl.dependent.clone(),
            budget: fl.budget,
        }
    }
}

impl ScrapySpec {
    /// The name the generated project and spider go by (`scrapy crawl NAME`): [`ScrapySpec::name`]
    /// made a Python identifier.
    pub fn spider_name(&self) -> String {
        py_ident(&self.name)
    }
}

fn py_ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "site_");
    }
    out
}

/// The session-id parameter names of `data/session-params.txt`.
fn session_params() -> Vec<&'static str> {
    data_lines(include_str!("../../../data/session-params.txt"))
}

/// The tracking parameter names of `data/tracking-params.txt` (`utm_*` a prefix).
fn tracking_params() -> Vec<&'static str> {
    data_lines(include_str!("../../../data/tracking-params.txt"))
}

/// A word list's entries: lines neither empty nor comments, trimmed.
fn data_lines(text: &'static str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The files of the Scrapy project: (relative path, contents).
pub fn scrapy_project(spec: &ScrapySpec) -> Vec<(String, String)> {
    let name = spec.spider_name();
    // Only the data differs from one pattern to another: the Python files are the templates in
    // crates/export/scrapy/, as they are (pyflakes reads them in the tests), and they read
    // exemplar.json.
    let config = serde_json::to_string_pretty(&scrapy_config(spec)).unwrap_or_default() + "\n";
    vec![
        (
            "scrapy.cfg".into(),
            format!("[settings]\ndefault = {name}.settings\n\n[deploy]\nproject = {name}\n"),
        ),
        (format!("{name}/__init__.py"), String::new()),
        (format!("{name}/exemplar.json"), config),
        (format!("{name}/settings.py"), SETTINGS_PY.into()),
        (format!("{name}/middlewares.py"), MIDDLEWARES_PY.into()),
        (format!("{name}/items.py"), ITEMS_PY.into()),
        (format!("{name}/spiders/__init__.py"), String::new()),
        (format!("{name}/spiders/{name}.py"), SPIDER_PY.into()),
        (
            "README.md".into(),
            format!(
                "# {name}: a Scrapy project generated by Exemplar\n\nRun: `pip install scrapy && scrapy crawl {name} -O pages.jsonl`.\n\nOn many machines: `pip install scrapy-redis`, then run `REDIS_URL=redis://HOST:6379 scrapy crawl {name} -O pages.jsonl` on every machine, with one Redis for all: they share one request queue and one duplicate filter there, so a page is fetched by one of them (the entry page and the scripts read for links, by each). The queue and the filter outlast the crawl; delete the keys `{name}:requests` and `{name}:dupefilter` before crawling the site again. A machine with nothing to do waits 30 s for work from the others before it stops (`-s MAX_IDLE_TIME_BEFORE_CLOSE=SECONDS`, 0 for ever).\n\nThe crawler's data (levels, forms, scope, politeness) is `{name}/exemplar.json`; the Python files are the same for every pattern. The spider follows the pattern's rules exactly and drops the same session-id parameters. It rewrites URLs by the pattern's rules for duplicate URLs (`dustRules`) as `exemplar crawl` does: a rule skips copies only once the first {probes} copies it names were fetched and said what the page it names says (the stats `exemplar/duplicates_avoided` and `exemplar/duplicate_rules_refuted` count them); unlike `exemplar crawl` it does not recognise one page served under two other URLs by its content.\n",
                probes = exemplar_core::crawler::DUST_PROBES
            ),
        ),
    ]
}

/// The generated project's Python files: templates that read `exemplar.json`
/// ([`scrapy_config`]). The middleware makes Scrapy's retries wait as Exemplar waits
/// ([`crate::fetch::retry_wait_ms`]), for Scrapy 2.8 (Debian's) to the newest.
const SPIDER_PY: &str = include_str!("../scrapy/spider.py");
const SETTINGS_PY: &str = include_str!("../scrapy/settings.py");
const MIDDLEWARES_PY: &str = include_str!("../scrapy/middlewares.py");
const ITEMS_PY: &str = include_str!("../scrapy/items.py");

/// `exemplar.json`, the generated project's data: what `scrapy_project`'s templates read.
fn scrapy_config(spec: &ScrapySpec) -> serde_json::Value {
    let levels: Vec<serde_json::Value> = spec
        .levels
        .iter()
        .map(
            |l| serde_json::json!({"regex": l.regex, "paginate": l.paginate, "exclude": l.exclude}),
        )
        .collect();
    // Form levels: {level index: settings}.
    let forms: serde_json::Map<String, serde_json::Value> = spec
        .levels
        .iter()
        .enumerate()
        .filter_map(|(j, l)| {
            let f = l.form.as_ref()?;
            Some((
                j.to_string(),
                serde_json::json!({
                    "action": f.action,
                    "method": f.method,
                    "query": f.query_field,
                    "fields": f.fields,
                    "values": f.values,
                    "submissions": f.submissions,
                    "pages": f.max_result_pages,
                    "dependent": f.dependent,
                    "budget": f.budget,
                }),
            ))
        })
        .collect();
    let mut next_words: Vec<&String> = crate::forms::pagination_words().iter().collect();
    next_words.sort();
    serde_json::json!({
        "name": spec.spider_name(),
        "entry": spec.entry,
        "allowedDomains": spec.allowed_domains,
        "levels": levels,
        "forms": forms,
        // Labels of pagination buttons besides page numbers (data/forms/pagination-words.txt).
        "nextWords": next_words,
        // Session-id parameters Exemplar drops from URLs (data/session-params.txt).
        "sessionParams": session_params(),
        // Tracking parameters dropped too (data/tracking-params.txt; `utm_*` a prefix).
        "trackingParams": tracking_params(),
        "maxSitemaps": crate::crawler::MAX_SITEMAPS,
        "sitemapMaxUrls": crate::sitemap::MAX_URLS,
        "sitemapMaxBytes": crate::sitemap::MAX_BYTES,
        "scriptLinks": spec.script_links,
        // Rewrites of duplicate URLs (Exemplar's `dust`), each on probation until this many of
        // the copies it names were fetched and found the page it names (`crawler::dust`).
        "dustRules": spec.dust_rules,
        "dustProbes": exemplar_core::crawler::DUST_PROBES,
        // The site's pages are drawn by scripts: the spider says it fetches them as served.
        "render": spec.render,
        // Data fields: the XPath that reads each, what the template writes around its value,
        // how its values are typed, whether it is a list.
        "fields": spec.fields.iter().map(|f| serde_json::json!({
            "name": f.name,
            "xpath": f.xpath,
            "prefix": f.prefix,
            "suffix": f.suffix,
            "suffixes": f.suffixes,
            "kind": f.kind,
            "repeated": f.repeated,
        })).collect::<Vec<_>>(),
        "entryTarget": spec.entry_target,
        "fromTargets": spec.levels.iter().position(|l| l.from_targets),
        "unlikeDirectories": spec.unlike_directories,
        "unlikeTargets": spec.unlike_targets,
        "liked": spec.liked,
        "maxScripts": crate::script_links::DEFAULT_MAX_SCRIPTS,
        "maxLinksPerScript": crate::script_links::MAX_LINKS_PER_SCRIPT,
        "pageExtensions": crate::script_links::PAGE_EXTENSIONS,
        "userAgent": spec.user_agent,
        "obeyRobots": spec.obey_robots,
        "delaySeconds": spec.delay_s,
        "concurrencyPerDomain": spec.concurrency_per_domain.max(1),
        "maxWaitSeconds": spec.max_wait_s,
    })
}

/// Writes the Scrapy project under `dir`.
///
/// # Errors
/// File-system errors.
pub fn write_scrapy_project(spec: &ScrapySpec, dir: &Path) -> io::Result<()> {
    for (rel, text) in scrapy_project(spec) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// The Scrapy project as one zip archive, its files under a folder named after the project (what
/// the extension downloads).
pub fn scrapy_zip(spec: &ScrapySpec) -> Vec<u8> {
    let folder = format!("{}-scrapy", py_ident(&spec.name));
    let files: Vec<(String, Vec<u8>)> = scrapy_project(spec)
        .into_iter()
        .map(|(path, text)| (format!("{folder}/{path}"), text.into_bytes()))
        .collect();
    zip_stored(&files)
}

/// CRC-32 (IEEE 802.3, the zip and gzip checksum), bitwise: archives here are small.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A zip archive of `files` (path, contents), stored without compression (PKWARE APPNOTE 6.3:
/// local headers, central directory, end record; UTF-8 names; no zip64, so each file and the
/// whole archive must stay under 4 GiB, far above a generated project). Dates are 1980-01-01 so
/// the same input gives the same bytes.
pub fn zip_stored(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    const DOS_DATE: u16 = 0x21; // 1980-01-01
    const UTF8_NAMES: u16 = 1 << 11;
    let mut out = Vec::new();
    let mut central = Vec::new();
    let le16 = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
    let le32 = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    for (name, data) in files {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let (size, name_len) = (data.len() as u32, name.len() as u16);
        le32(&mut out, 0x0403_4b50);
        for x in [20, UTF8_NAMES, 0, 0, DOS_DATE] {
            le16(&mut out, x);
        }
        for x in [crc, size, size] {
            le32(&mut out, x);
        }
        for x in [name_len, 0] {
            le16(&mut out, x);
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        le32(&mut central, 0x0201_4b50);
        for x in [20, 20, UTF8_NAMES, 0, 0, DOS_DATE] {
            le16(&mut central, x);
        }
        for x in [crc, size, size] {
            le32(&mut central, x);
        }
        for x in [name_len, 0, 0, 0, 0] {
            le16(&mut central, x);
        }
        le32(&mut central, 0o100_644 << 16); // regular file, rw-r--r--
        le32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let (cd_offset, cd_size, count) = (out.len() as u32, central.len() as u32, files.len() as u16);
    out.extend_from_slice(&central);
    le32(&mut out, 0x0605_4b50);
    for x in [0, 0, count, count] {
        le16(&mut out, x);
    }
    le32(&mut out, cd_size);
    le32(&mut out, cd_offset);
    le16(&mut out, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_names_are_serdes() {
        // WARC's `change:` field (as_str) and JSON Lines (serde) name a change alike.
        for c in [Change::New, Change::Changed, Change::Same] {
            let json = serde_json::to_string(&c).expect("a unit variant serialises");
            assert_eq!(json, format!("\"{}\"", c.as_str()));
            assert_eq!(
                serde_json::from_str::<Change>(&json).expect("and reads back"),
                c
            );
        }
    }

    #[test]
    fn crc32_check_value_and_zip_layout() {
        // The CRC-32 check value of the catalogue of parametrised CRC algorithms.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        let files = vec![
            ("a/x.txt".to_string(), b"hello".to_vec()),
            ("a/\u{e9}.py".to_string(), Vec::new()),
        ];
        let zip = zip_stored(&files);
        assert_eq!(&zip[..4], b"PK\x03\x04");
        let end = &zip[zip.len() - 22..];
        assert_eq!(&end[..4], b"PK\x05\x06");
        assert_eq!(u16::from_le_bytes([end[10], end[11]]), 2, "entries");
        let cd_size = u32::from_le_bytes([end[12], end[13], end[14], end[15]]) as usize;
        let cd_offset = u32::from_le_bytes([end[16], end[17], end[18], end[19]]) as usize;
        assert_eq!(cd_offset + cd_size, zip.len() - 22);
        assert_eq!(&zip[cd_offset..cd_offset + 4], b"PK\x01\x02");
        // Deterministic.
        assert_eq!(zip, zip_stored(&files));
    }

    #[test]
    fn digests_and_dates() {
        let hex = |b: [u8; 20]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            hex(sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(sha1(&[b'a'; 1000])),
            "291e9a6c66994949b57ba5e650361e98fc36b1ba"
        );
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI======");
        assert_eq!(base32(b""), "");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_370_096_000), "2026-11-22T17:54:56Z");
    }

    fn page(url: &str, title: &str) -> PageRecord {
        PageRecord {
            url: url.into(),
            final_url: url.into(),
            status: 200,
            content_type: Some("text/html".into()),
            headers: vec![("Content-Type".into(), "text/html".into())],
            fetched_at_ms: 1_795_370_096_000,
            title: Some(title.into()),
            heading: Some(format!("{title} Class Reference")),
            lang: None,
            canonical: None,
            similarity: Some(0.9),
            level: Some(1),
            by_heading: false,
            text_digest: None,
            change: None,
            fields: Vec::new(),
            body: Some(b"<p>hi</p>".to_vec()),
        }
    }

    #[test]
    fn a_resumed_warc_is_the_file_written_in_one_go() {
        let (a, b) = (page("http://h/a", "A"), page("http://h/b", "B"));
        let mut whole = WarcWriter::new(Vec::new(), "d", 1).expect("new");
        whole.write_response(&a).expect("a");
        whole.write_response(&b).expect("b");
        let whole = whole.finish().expect("finish");

        let mut first = WarcWriter::new(Vec::new(), "d", 1).expect("new");
        first.write_response(&a).expect("a");
        let position = first.position();
        assert_eq!(
            position.records, 3,
            "warcinfo, one response and its metadata"
        );
        let json = serde_json::to_string(&position).expect("json");
        let mut bytes = first.finish().expect("finish");
        let back: WarcPosition = serde_json::from_str(&json).expect("json");
        let mut rest = WarcWriter::resume(Vec::new(), &back).expect("resume");
        rest.write_response(&b).expect("b");
        bytes.extend(rest.finish().expect("finish"));
        assert_eq!(bytes, whole);

        let bad = WarcPosition {
            seed: "zz".into(),
            records: 1,
        };
        assert!(WarcWriter::resume(Vec::new(), &bad).is_err());
    }

    #[test]
    fn jsonl_and_csv() {
        let pages = [
            page("http://h/a", "A, \"quoted\"\nline"),
            PageRecord {
                by_heading: true,
                lang: Some("fr".into()),
                canonical: Some("http://h/b?from=list".into()),
                text_digest: Some("00ab00cd00ef0012".into()),
                change: Some(Change::Changed),
                ..page("http://h/b", "B")
            },
        ];
        let mut out = Vec::new();
        write_jsonl(&mut out, &pages, true).expect("jsonl");
        let text = String::from_utf8(out).expect("utf8");
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["finalUrl"], "http://h/a");
        assert_eq!(lines[0]["html"], "<p>hi</p>");
        assert_eq!(lines[0].get("textDigest"), None, "not known: not written");
        assert_eq!(lines[1]["textDigest"], "00ab00cd00ef0012");
        assert_eq!(lines[0].get("change"), None);
        assert_eq!(lines[1]["change"], "changed");
        assert_eq!(lines[1]["heading"], "B Class Reference");
        assert_eq!(lines[1]["fetchedAt"], "2026-11-22T17:54:56Z");
        // Only a page taken below θ for its heading says so.
        assert!(lines[0].get("byHeading").is_none(), "{text}");
        assert_eq!(lines[1]["byHeading"], true);
        // Only a page that declares its language says it.
        assert!(lines[0].get("lang").is_none(), "{text}");
        assert_eq!(lines[1]["lang"], "fr");
        // Only a page that declares a canonical URL says it.
        assert!(lines[0].get("canonical").is_none(), "{text}");
        assert_eq!(lines[1]["canonical"], "http://h/b?from=list");
        let mut out = Vec::new();
        write_csv(&mut out, &pages).expect("csv");
        let text = String::from_utf8(out).expect("utf8");
        assert!(text.contains("\"A, \"\"quoted\"\"\nline\""), "{text}");
        assert!(
            text.ends_with(",B,B Class Reference,0.9000,1,2026-11-22T17:54:56Z\r\n"),
            "{text}"
        );
        assert_eq!(text.matches("\r\n").count(), 3);
    }

    #[test]
    fn warc_records_parse_back() {
        let mut w = WarcWriter::new(Vec::new(), "test", 1_795_370_096_000).expect("warc");
        w.write_response(&page("http://h/a", "A")).expect("record");
        // Crawled text: a control character cannot end the field or the record.
        w.write_response(&PageRecord {
            by_heading: true,
            heading: Some("B\u{7}\r\nClass Reference".into()),
            lang: Some("pt-br".into()),
            canonical: Some("http://h/b\u{85}/".into()),
            text_digest: Some("00ab00cd00ef0012".into()),
            change: Some(Change::New),
            fields: vec![
                ("price".into(), fields::Value::Number(12.5)),
                (
                    "tags".into(),
                    fields::Value::List(vec![
                        fields::Value::Text("a\r\nb".into()),
                        fields::Value::Text("c".into()),
                    ]),
                ),
            ],
            ..page("http://h/b", "B")
        })
        .expect("record");
        // A page the crawl did not judge: nothing to add to its response.
        w.write_response(&PageRecord {
            similarity: None,
            level: None,
            heading: None,
            // Not a digest the crawler writes: not a field.
            text_digest: Some("0\r\nWARC-Type: x".into()),
            ..page("http://h/c", "C")
        })
        .expect("record");
        let bytes = w.finish().expect("finish");
        let text = String::from_utf8(bytes.clone()).expect("utf8");
        let mut rest: &[u8] = &bytes;
        let mut kinds = Vec::new();
        let mut ids = Vec::new();
        let mut metadata = Vec::new();
        while !rest.is_empty() {
            let head_end = rest
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .expect("head")
                + 4;
            let head = String::from_utf8_lossy(&rest[..head_end]).to_string();
            assert!(head.starts_with("WARC/1.1\r\n"));
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse().ok())
                .expect("length");
            let block = &rest[head_end..head_end + len];
            let digest = head
                .lines()
                .find_map(|l| l.strip_prefix("WARC-Block-Digest: sha1:"))
                .expect("digest");
            assert_eq!(digest.trim(), base32(&sha1(block)));
            kinds.push(head.lines().nth(1).unwrap_or("").to_string());
            let field = |name: &str| {
                head.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(str::to_string)
            };
            ids.push(field("WARC-Record-ID: ").expect("id"));
            if let Some(to) = field("WARC-Concurrent-To: ") {
                assert_eq!(
                    field("Content-Type: ").as_deref(),
                    Some("application/warc-fields")
                );
                metadata.push((
                    to,
                    field("WARC-Target-URI: ").expect("target"),
                    String::from_utf8_lossy(block).into_owned(),
                ));
            }
            assert_eq!(&rest[head_end + len..head_end + len + 4], b"\r\n\r\n");
            rest = &rest[head_end + len + 4..];
        }
        assert_eq!(
            kinds,
            [
                "WARC-Type: warcinfo",
                "WARC-Type: response",
                "WARC-Type: metadata",
                "WARC-Type: response",
                "WARC-Type: metadata",
                "WARC-Type: response"
            ]
        );
        // Each metadata record names its response and says how the crawl judged the page.
        assert_eq!(
            metadata,
            [
                (
                    ids[1].clone(),
                    "http://h/a".to_string(),
                    "heading: A Class Reference\r\nsimilarity: 0.9000\r\nlevel: 1\r\n"
                        .to_string()
                ),
                (
                    ids[3].clone(),
                    "http://h/b".to_string(),
                    "heading: B   Class Reference\r\nlang: pt-br\r\ncanonical: http://h/b/\r\nsimilarity: 0.9000\r\nlevel: 1\r\nbyHeading: true\r\ntextDigest: 00ab00cd00ef0012\r\nchange: new\r\nfield-price: 12.5\r\nfield-tags: a  b; c\r\n"
                        .to_string()
                )
            ]
        );
        assert!(text.contains("WARC-Target-URI: http://h/a\r\n"));
        assert!(text.contains(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<p>hi</p>"
        ));
    }

    /// The Scrapy project's Python files are real Python that a linter reads clean, as they are
    /// (pyflakes from the project's .venv, `./build.sh setup`).
    #[test]
    fn scrapy_templates_lint_clean() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let python = root.join("../../.venv/bin/python");
        if !python.exists() {
            eprintln!("no .venv (./build.sh setup): the templates are not linted");
            return;
        }
        let templates: Vec<_> = ["spider.py", "settings.py", "middlewares.py", "items.py"]
            .iter()
            .map(|f| root.join("scrapy").join(f))
            .collect();
        let out = std::process::Command::new(&python)
            .args(["-m", "pyflakes"])
            .args(&templates)
            .output()
            .expect("python");
        assert!(
            out.status.success(),
            "pyflakes: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn scrapy_project_files() {
        let spec = ScrapySpec {
            name: "127.0.0.1:8000".into(),
            entry: "http://127.0.0.1:8000/".into(),
            allowed_domains: vec!["127.0.0.1".into()],
            levels: vec![
                ScrapyLevel {
                    regex: r"^http://127\.0\.0\.1:8000/list\?page=[0-9]+$".into(),
                    paginate: true,
                    from_targets: false,
                    form: None,
                    exclude: vec![],
                },
                ScrapyLevel {
                    regex: r"^http://127\.0\.0\.1:8000/item/[0-9]+$".into(),
                    paginate: false,
                    from_targets: false,
                    form: None,
                    exclude: vec!["http://127.0.0.1:8000/item/0".into()],
                },
            ],
            delay_s: 0.25,
            concurrency_per_domain: 2,
            obey_robots: true,
            user_agent: "Exemplar/0.1".into(),
            max_pages_per_level: None,
            max_wait_s: 30.0,
            script_links: false,
            render: false,
            fields: Vec::new(),
            dust_rules: Vec::new(),
            entry_target: false,
            unlike_directories: vec![],
            unlike_targets: vec![],
            liked: vec![],
        };
        let files = scrapy_project(&spec);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"scrapy.cfg"));
        assert!(names.contains(&"site_127_0_0_1_8000/spiders/site_127_0_0_1_8000.py"));
        let file = |suffix: &str| {
            &files
                .iter()
                .find(|(n, _)| n.ends_with(suffix))
                .unwrap_or_else(|| panic!("{suffix}"))
                .1
        };
        assert_eq!(file("spiders/site_127_0_0_1_8000.py"), SPIDER_PY);
        let config: serde_json::Value =
            serde_json::from_str(file("site_127_0_0_1_8000/exemplar.json")).expect("json");
        assert_eq!(config["name"], "site_127_0_0_1_8000");
        assert_eq!(
            config["levels"][1],
            serde_json::json!({"regex": r"^http://127\.0\.0\.1:8000/item/[0-9]+$",
                "paginate": false, "exclude": ["http://127.0.0.1:8000/item/0"]})
        );
        assert_eq!(config["fromTargets"], serde_json::Value::Null);
        assert_eq!(config["concurrencyPerDomain"], 2);
        let dir = std::env::temp_dir().join(format!("exemplar-scrapy-{}", std::process::id()));
        write_scrapy_project(&spec, &dir).expect("write");
        if let Ok(out) = std::process::Command::new("python3")
            .arg("-m")
            .arg("py_compile")
            .arg(dir.join("site_127_0_0_1_8000/spiders/site_127_0_0_1_8000.py"))
            .arg(dir.join("site_127_0_0_1_8000/settings.py"))
            .arg(dir.join("site_127_0_0_1_8000/middlewares.py"))
            .output()
        {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
