//! Exports: pages as JSON Lines, CSV and WARC 1.1, and a Scrapy project generated from a
//! navigation pattern. Writers take any `impl Write`; nothing here does other IO except
//! [`write_scrapy_project`].

// The crates below, by their short module names.
use exemplar_core::{crawler, fetch, forms, pattern, review::language, script_links, sitemap};
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
    html: Option<String>,
}

/// JSON Lines: one object per page (`url`, `finalUrl`, `status`, `title`, `heading` (the main
/// heading, null when none), `lang` (the language the page declares, when it does: a corpus
/// of a multilingual site sorts its pages by it), `canonical` (the canonical URL the page
/// declares, when it does), `fetchedAt` in RFC 3339, `similarity`, `level`, `byHeading: true`
/// for a page a verifying crawl took below θ for its heading, `textDigest` (the signature of
/// its title and visible text, when known: the same in two exports unless the text changed),
/// `change` (`new`, `changed` or `same` against an earlier crawl, when compared with one), and
/// `html` when `include_html`).
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
pub fn write_csv_header<W: Write>(mut w: W) -> io::Result<()> {
    w.write_all(b"url,final_url,status,title,heading,similarity,level,fetched_at\r\n")
}

/// CSV rows without the header (see [`write_csv`]).
///
/// # Errors
/// Write errors.
pub fn write_csv_rows<W: Write>(mut w: W, pages: &[PageRecord]) -> io::Result<()> {
    for p in pages {
        let row = [
            csv_field(&p.url),
            csv_field(&p.final_url),
            p.status.to_string(),
            csv_field(p.title.as_deref().unwrap_or("")),
            csv_field(p.heading.as_deref().unwrap_or("")),
            p.similarity.map(|s| format!("{s:.4}")).unwrap_or_default(),
            p.level.map(|l| l.to_string()).unwrap_or_default(),
            rfc3339(p.fetched_at_ms),
        ];
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
    /// below θ for its heading, its `textDigest` and its `change` against an earlier crawl.
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
        }
    }
}

/// A Python literal of a JSON value (`null`, `true` and `false` are not Python).
fn py_literal(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => py_str(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(py_literal).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str(k), py_literal(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
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

/// A Python string literal (JSON strings are valid Python literals).
fn py_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Python string literals, comma-separated (the items of a list).
fn py_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| py_str(i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The session-id parameter names of `data/session-params.txt`.
fn session_params() -> Vec<&'static str> {
    include_str!("../../../data/session-params.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The files of the Scrapy project: (relative path, contents).
pub fn scrapy_project(spec: &ScrapySpec) -> Vec<(String, String)> {
    let name = spec.spider_name();
    let levels: String = spec
        .levels
        .iter()
        .map(|l| {
            let exclude: Vec<String> = l.exclude.iter().map(|u| py_str(u)).collect();
            format!(
                "    ({}, {}, frozenset([{}])),\n",
                py_str(&l.regex),
                if l.paginate { "True" } else { "False" },
                exclude.join(", ")
            )
        })
        .collect();
    let domains: Vec<String> = spec.allowed_domains.iter().map(|d| py_str(d)).collect();
    // Form levels: {level index: settings}, as Python literals.
    let forms: String = spec
        .levels
        .iter()
        .enumerate()
        .filter_map(|(j, l)| {
            let f = l.form.as_ref()?;
            let settings = serde_json::json!({
                "action": f.action,
                "method": f.method,
                "query": f.query_field,
                "fields": f.fields,
                "values": f.values,
                "submissions": f.submissions,
                "pages": f.max_result_pages,
            });
            Some(format!("    {j}: {},\n", py_literal(&settings)))
        })
        .collect();
    let spider = format!(
        r##""""Spider generated by Exemplar from a navigation pattern.

Level j pages follow links matching LEVELS[j] (to level j+1); links matching the last
level are targets wherever they are met; a level marked paginated also follows its own
regex; links matching a deeper level lead there. Targets are expanded only when the last
level is marked paginated — then a target's links matching the last level are targets too —
or when the level before the targets is followed from targets (FROM_TARGETS): then a target's
links matching that level are followed, as a class page links its module's class list.
The same rules as `exemplar crawl`.

A level reached through a search form (FORMS) is entered by submitting the form once per
value — the values that led to targets while Exemplar learned, or yours with
`scrapy crawl NAME -a queries=FILE` (one per line) — or, for a form of choice fields only
(selects, radio buttons, checkboxes), once per combination Exemplar enumerates; its result
pages are paged with the form's pagination buttons, as a browser would click them.
"""
import gzip
import io
import re
import time
import unicodedata
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.http import HtmlResponse
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.response import get_base_url, get_meta_refresh
from scrapy.utils.sitemap import Sitemap
from twisted.internet.defer import Deferred

from {name}.items import PageItem

# (regex, paginate, excluded URLs) per level: E1 ... En. A level's links are those its regex
# matches, except the pages Exemplar saw were of another kind.
LEVELS = [
{levels}]
COMPILED = [(re.compile(r), p, x) for r, p, x in LEVELS]


def matches(level, url):
    regex, _, exclude = COMPILED[level]
    return url not in exclude and regex.fullmatch(url) is not None
# Search-form levels: LEVELS[j] is reached by submitting FORMS[j] from level-j pages.
FORMS = {{
{forms}}}
# Labels of pagination buttons besides page numbers (data/forms/pagination-words.txt).
NEXT_WORDS = {{{next_words}}}
# Session-id parameters Exemplar drops from URLs (data/session-params.txt), so both crawlers
# see one URL per page.
SESSION_PARAMS = {{{session}}}
# Sitemap files read at most, and the protocol's bounds on one sitemap.
MAX_SITEMAPS = {max_sitemaps}
SITEMAP_MAX_URLS = {max_urls}
SITEMAP_MAX_BYTES = {max_bytes}


# Pages' links include the page URLs named in the same-site scripts they include (Exemplar's
# script_links: Doxygen's menu and tree view build their navigation in script). Scripts are
# read, never run: a quoted string is taken when it is shaped like a page's URL.
SCRIPT_LINKS = {script_links}
# The entry page is like the example: an item too, and where navigation starts.
ENTRY_TARGET = {entry_target}
# The level (index into LEVELS) whose pages are followed from targets, or None.
FROM_TARGETS = {from_targets}
# Directories (URLs up to the last "/" of the path) whose pages the user judged not like the
# example, the targets learning left out for them, and the pages items wherever they lie (the
# example, those judged like it): a page refused is not fetched, as in `exemplar crawl`.
UNLIKE_DIRECTORIES = frozenset([{unlike_directories}])
UNLIKE_TARGETS = frozenset([{unlike_targets}])
LIKED = frozenset([{liked}])


def refused(url):
    if url in LIKED:
        return False
    parts = urlsplit(url)
    directory = urlunsplit((parts.scheme, parts.netloc,
                            parts.path[:parts.path.rfind("/") + 1] or "/", "", ""))
    return url in UNLIKE_TARGETS or directory in UNLIKE_DIRECTORIES


MAX_SCRIPTS = {max_scripts}
PAGE_EXTENSIONS = ({extensions})
REGEX_BEFORE = frozenset("(,=:[!&|?{{}};+-*%<>~^")


def page_urls(source, limit={max_links}):
    out, prev, i, n = [], "", 0, len(source)
    while i < n and len(out) < limit:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "/" and (prev == "" or prev in REGEX_BEFORE):
            i = regex_end(source, i + 1)
            prev = "a"
        elif c in "\"'`":
            value, i = string_literal(source, i + 1, c)
            prev = c
            if value is not None and is_page_url(value) and value not in out:
                out.append(value)
        else:
            if c not in " \t\n\x0c\r":
                prev = c
            i += 1
    return out


def regex_end(s, start):
    in_class, i = False, start
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 1
        elif c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return i + 1
        elif c in "\n\r":
            return start
        i += 1
    return start


def string_literal(s, i, quote):
    value, plain = [], True
    while i < len(s):
        c = s[i]
        if c == quote:
            v = "".join(value)
            return (v if plain and len(v.encode()) <= 2048 else None), i + 1
        if c in "\n\r" and quote != "`":
            return None, i
        if c == "\\":
            if i + 1 >= len(s):
                return None, len(s)
            if s[i + 1] in "/\\\"'`":
                value.append(s[i + 1])
            else:
                plain = False
            i += 2
            continue
        value.append(c)
        i += 1
    return None, len(s)


def is_page_url(s):
    if not s or len(s.encode()) > 2048 or "${{" in s:
        return False
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" or ch in "<>\"'`{{}}\\|^*"
           for ch in s):
        return False
    scheme, colon, _ = s.partition(":")
    if colon and not any(x in scheme for x in "/?#") and scheme.lower() not in ("http", "https"):
        return False
    last = re.split(r"[?#]", s, maxsplit=1)[0].rsplit("/", 1)[-1].lower()
    return any(len(last) > len(ext) and last.endswith(ext) for ext in PAGE_EXTENSIONS)


def controls(form):
    """A form's controls in document order."""
    return form.xpath(".//input | .//select | .//textarea | .//button")


def click(response, form, clicked, **kwargs):
    """The request a click on control `clicked` (an index into controls(form)) sends, built as
    Exemplar builds it: the named controls in document order, each as it stands (text-like and
    hidden inputs their value; checked radios and checkboxes theirs, "on" when empty; a select
    its last selected option, or its first; a multiple select each selected one; a textarea its
    text) and the clicked button its value; disabled controls, other buttons and file inputs
    send nothing. GET replaces the action's query. (Scrapy 2.19 deprecates
    FormRequest.from_response for a separate library; this needs none.)"""
    pairs = []
    for i, c in enumerate(controls(form)):
        name = c.attrib.get("name", "")
        if not name or "disabled" in c.attrib:
            continue
        tag = c.root.tag.lower()
        kind = c.attrib.get("type", "").lower()
        if tag == "button" or kind in ("submit", "image", "reset", "button", "file"):
            if i == clicked:
                pairs.append((name, c.attrib.get("value", "")))
        elif tag == "select":
            options = [(o.attrib["value"] if "value" in o.attrib
                        else " ".join(o.xpath("string()").get().split()),
                        "selected" in o.attrib) for o in c.css("option")]
            chosen = [v for v, selected in options if selected]
            if "multiple" in c.attrib:
                pairs.extend((name, v) for v in chosen)
            elif options:
                pairs.append((name, chosen[-1] if chosen else options[0][0]))
        elif tag == "textarea":
            pairs.append((name, c.xpath("string()").get()))
        elif kind in ("checkbox", "radio"):
            if "checked" in c.attrib:
                pairs.append((name, c.attrib.get("value") or "on"))
        else:
            pairs.append((name, c.attrib.get("value", "")))
    method = "POST" if form.attrib.get("method", "").upper() == "POST" else "GET"
    action = form.attrib.get("action", "").strip()
    # An empty action is the page's own URL, not its base.
    action = urljoin(get_base_url(response), action) if action else response.url
    return scrapy.FormRequest(action, method=method, formdata=pairs, **kwargs)


def names_a_title(token):
    t = token.lower()
    return t == "refentrytitle" or any(
        t == w or t.endswith(("-" + w, "_" + w)) for w in ("title", "heading"))


def text_of(nodes):
    return " ".join(" ".join(nodes.xpath(".//text()").getall()).split())


def declared_page(response):
    """What a target declares itself to be, as Exemplar's crawler compares targets: its
    canonical URL (the head's first `<link rel="canonical">`), title and main heading (its
    first `h1`, else the first element whose class names a title). None without a canonical
    URL. Two targets declaring one are one page served under two URLs."""
    for link in response.xpath("/html/head//link[@rel][@href]"):
        if "canonical" in link.attrib["rel"].lower().split():
            url = response.urljoin(link.attrib["href"].strip())
            break
    else:
        return None
    if not url.startswith(("http://", "https://")):
        return None
    heading = text_of(response.xpath("(//body//h1)[1]"))
    if not heading:
        for element in response.xpath("//body//*[@class]"):
            if any(names_a_title(t) for t in element.attrib["class"].split()):
                heading = text_of(element)
                break
    return (canonical(url), text_of(response.xpath("(//title)[1]")), heading)


def canonical(url):
    parts = urlsplit(url)
    path = ";".join(
        p for i, p in enumerate(parts.path.split(";"))
        if i == 0 or p.split("=", 1)[0].lower() not in SESSION_PARAMS
    )
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if k.lower() not in SESSION_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc, path, urlencode(query), ""))


class PatternSpider(scrapy.Spider):
    name = {name_s}
    allowed_domains = [{domains}]
    start_urls = [{entry}]

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider.on_response, signal=signals.response_received)
        return spider

    def on_response(self, **_):
        self.idle_since = None

    def on_idle(self):
        """With a request queue shared between machines (scrapy-redis), an empty queue may be
        filled again by another machine's pages: stay open MAX_IDLE_TIME_BEFORE_CLOSE seconds of
        idleness (scrapy-redis's setting, 0 for ever) before closing, not stop at once."""
        if not self.settings.get("REDIS_URL"):
            return
        wait = self.settings.getfloat("MAX_IDLE_TIME_BEFORE_CLOSE", 30)
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since = now
        if wait == 0 or now - self.idle_since < wait:
            raise DontCloseSpider

    def __init__(self, *args, queries=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.idle_since = None
        self.queries = None
        if queries:
            with open(queries, encoding="utf-8") as f:
                self.queries = [line.strip() for line in f
                                if line.strip() and not line.startswith("#")]
        self.started = set()
        self.sitemaps_asked = False
        self.sitemaps_seen = set()
        # The hosts off the site the site's robots.txt names sitemaps on (a CDN's): sitemaps
        # there are read too, as the protocol allows; those on other hosts are not.
        self.sitemap_hosts = set()
        # What the targets collected declare (declared_page): a copy under another URL is
        # collected once. Per process: machines sharing a queue (scrapy-redis) each keep theirs.
        self.declared = set()
        # Script URL -> its page URLs once read (None while fetched); Deferreds of the pages
        # waiting for it.
        self.script_urls = {{}}
        self.script_waiting = {{}}

    async def parse(self, response):
        if ENTRY_TARGET and not refused(response.url):
            yield self.item(response, 0)
        async for r in self.follow(response, 0):
            yield r
        for r in self.submit(0):
            yield r
        if (not self.sitemaps_asked and self.settings.getbool("ROBOTSTXT_OBEY")
                and self.settings.getbool("EXEMPLAR_READ_SITEMAPS", True)):
            # The sitemaps robots.txt names, read as the entry page's links (exemplar crawl
            # does the same unless --no-sitemaps; -s EXEMPLAR_READ_SITEMAPS=False here).
            self.sitemaps_asked = True
            yield scrapy.Request(response.urljoin("/robots.txt"), callback=self.parse_robots)

    def parse_robots(self, response):
        # `Sitemap:` lines, comments cut, as Exemplar reads robots.txt.
        urls = []
        for line in response.body.decode("utf-8", "replace").splitlines():
            key, _, value = line.split("#", 1)[0].partition(":")
            if key.strip().lower() == "sitemap" and value.strip():
                urls.append(urljoin(response.url, value.strip()))
        for url in urls:
            host = urlsplit(url).hostname
            if host not in self.allowed_domains:
                self.sitemap_hosts.add(host)
        yield from self.ask_sitemaps(urls)

    def ask_sitemaps(self, urls):
        for url in urls:
            url = canonical(url.strip())
            if url in self.sitemaps_seen or len(self.sitemaps_seen) >= MAX_SITEMAPS:
                continue
            host = urlsplit(url).hostname
            if host in self.allowed_domains:
                self.sitemaps_seen.add(url)
                yield scrapy.Request(url, callback=self.parse_sitemap)
            elif host in self.sitemap_hosts:
                # Past the offsite filter: `allow_offsite` (Scrapy 2.11.2+), `dont_filter`
                # (earlier); sitemaps_seen keeps each asked once.
                self.sitemaps_seen.add(url)
                yield scrapy.Request(url, callback=self.parse_sitemap, dont_filter=True,
                                     meta={{"allow_offsite": True}})

    def parse_sitemap(self, response):
        """A sitemap index's sitemaps are asked; a sitemap's URLs followed as the entry page's
        links. Gzip-compressed, XML or text (a URL per line); bounded as the protocol bounds a
        sitemap: 50,000 URLs, 50 MB."""
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gzip.GzipFile(fileobj=io.BytesIO(body)).read(SITEMAP_MAX_BYTES + 1)
            except (OSError, EOFError):
                return
            if len(body) > SITEMAP_MAX_BYTES:
                return
        if body.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
            try:
                sitemap = Sitemap(body)
                kind = sitemap.type
                urls = [entry["loc"].strip() for entry in sitemap if entry.get("loc")]
            except (SyntaxError, ValueError, AttributeError, TypeError):
                return  # not XML that lxml can recover: not a sitemap
        else:
            lines = [line.strip() for line in body.decode("utf-8", "replace").splitlines()
                     if line.strip()]
            if not lines or not lines[0].lstrip("\ufeff").startswith(("http://", "https://")):
                return
            kind, urls = "urlset", [line.lstrip("\ufeff") for line in lines]
        urls = [u for u in urls if u.lower().startswith(("http://", "https://"))][:SITEMAP_MAX_URLS]
        if kind == "sitemapindex":
            yield from self.ask_sitemaps(urls)
        elif kind == "urlset":
            yield from self.follow_urls([canonical(u) for u in urls], 0)

    def submit(self, level):
        form = FORMS.get(level)
        if form is None or level in self.started:
            return
        self.started.add(level)
        if form["query"] is None:
            # Choice fields only: the combinations Exemplar enumerates.
            submissions = form["submissions"]
        else:
            values = self.queries if self.queries is not None else form["values"]
            submissions = [[(k, value if k == form["query"] else v) for k, v in form["fields"]]
                           for value in values]
        for data in submissions:
            yield scrapy.FormRequest(form["action"], method=form["method"],
                                     formdata=[tuple(p) for p in data],
                                     callback=self.parse_level,
                                     cb_kwargs={{"level": level + 1, "page": 1}})

    def paginate(self, response, level, page):
        form = FORMS.get(level - 1)
        if form is None or page >= form["pages"]:
            return
        for f in response.css("form"):
            for i, button in enumerate(controls(f)):
                if button.root.tag.lower() not in ("input", "button") \
                        or button.attrib.get("type") != "submit":
                    continue
                name = button.attrib.get("name", "")
                value = button.attrib.get("value", "").strip()
                if not name or "disabled" in button.attrib:
                    continue
                if not (value.isdigit() or value.lower() in NEXT_WORDS
                        or name.lower() in NEXT_WORDS):
                    continue
                yield click(response, f, i, callback=self.parse_level,
                            cb_kwargs={{"level": level, "page": page + 1}})

    def hrefs(self, response):
        """The page's links as Exemplar follows them: none when its robots meta tag says
        nofollow (or none), and no rel=nofollow link, while robots are obeyed."""
        obey = self.settings.getbool("ROBOTSTXT_OBEY")
        if obey:
            for meta in response.css("meta"):
                if meta.attrib.get("name", "").lower() != "robots":
                    continue
                words = {{w.strip().lower() for w in meta.attrib.get("content", "").split(",")}}
                if words & {{"nofollow", "none"}}:
                    return []
        hrefs = [a.attrib["href"] for a in response.css("a[href], area[href]")
                 if not (obey and "nofollow" in a.attrib.get("rel", "").lower().split())]
        # A refresh to another URL is a link, as Exemplar reads it (METAREFRESH_ENABLED is off:
        # followed as a redirect, the page would reach the callback of the refresh page's level).
        refresh = get_meta_refresh(response)[1] if isinstance(response, HtmlResponse) else None
        if refresh:
            hrefs.append(refresh)
        return hrefs

    async def follow(self, response, level):
        hrefs = self.hrefs(response)
        for r in self.follow_urls([canonical(response.urljoin(h)) for h in hrefs], level):
            yield r
        if level - 1 not in FORMS:
            # Not on a search form's result pages (nor does exemplar crawl read scripts there).
            async for r in self.include_scripts(response, level, False):
                yield r

    async def include_scripts(self, response, level, target):
        if not SCRIPT_LINKS:
            return
        base = get_base_url(response)
        for src in response.css("script::attr(src)").getall():
            url = canonical(response.urljoin(src))
            if urlsplit(url).hostname not in self.allowed_domains:
                continue
            if url not in self.script_urls and len(self.script_urls) >= MAX_SCRIPTS:
                continue
            for r in self.follow_script(await self.read_script(url), base, level, target):
                yield r

    async def read_script(self, url):
        """The page URLs script `url` names. This process fetches each script once, straight
        through the downloader (its delay, concurrency and robots.txt apply), not through the
        scheduler: with a scheduler shared between machines (scrapy-redis) another machine would
        read the answer, and the pages waiting for it here would never see it."""
        if url in self.script_urls:
            if self.script_urls[url] is None:
                # Being fetched for another page of this process: wait for it.
                waiter = Deferred()
                self.script_waiting[url].append(waiter)
                return await maybe_deferred_to_future(waiter)
            return self.script_urls[url]
        self.script_urls[url] = None
        self.script_waiting[url] = []
        request = scrapy.Request(url, dont_filter=True, meta={{"handle_httpstatus_all": True}})
        try:
            response = await self.download(request)
            ok = 200 <= response.status < 300 and not isinstance(response, HtmlResponse)
            urls = page_urls(response.body.decode("utf-8", "replace")) if ok else []
        except Exception:
            # Refused by robots.txt, or failed: no links, as Exemplar reads it.
            urls = []
        self.script_urls[url] = urls
        for waiter in self.script_waiting.pop(url):
            waiter.callback(urls)
        return urls

    def download(self, request):
        engine = self.crawler.engine
        if hasattr(engine, "download_async"):
            # Scrapy 2.14 and later (download() is deprecated there).
            return engine.download_async(request)
        return maybe_deferred_to_future(engine.download(request))

    def follow_script(self, urls, base, level, target):
        links = [canonical(urljoin(base, u)) for u in urls]
        if target:
            yield from self.follow_targets(links)
        else:
            yield from self.follow_urls(links, level)

    def follow_urls(self, urls, level):
        n = len(COMPILED)
        for url in urls:
            if not url.startswith(("http://", "https://")):
                continue
            if matches(n - 1, url):
                if not refused(url):
                    yield scrapy.Request(url, callback=self.parse_target,
                                         cb_kwargs={{"level": level}})
            elif level + 1 < n and matches(level, url):
                yield scrapy.Request(url, callback=self.parse_level, cb_kwargs={{"level": level + 1}})
            elif level >= 1 and COMPILED[level - 1][1] and matches(level - 1, url):
                yield scrapy.Request(url, callback=self.parse_level, cb_kwargs={{"level": level}})
            else:
                # Straight to a deeper level (not a search-form level nor its results).
                deeper = next((j for j in range(level + 1, n - 1)
                               if j not in FORMS and j - 1 not in FORMS and matches(j, url)), None)
                if deeper is not None:
                    yield scrapy.Request(url, callback=self.parse_level,
                                         cb_kwargs={{"level": deeper + 1}})

    async def parse_level(self, response, level, page=0):
        async for r in self.follow(response, level):
            yield r
        if page:
            for r in self.paginate(response, level, page):
                yield r
        for r in self.submit(level):
            yield r

    def item(self, response, level):
        return PageItem(
            url=response.url,
            title=(response.css("title::text").get() or "").strip(),
            level=level,
        )

    async def parse_target(self, response, level):
        if refused(response.url):
            return
        declared = declared_page(response)
        if declared is not None:
            if declared in self.declared:
                return
            self.declared.add(declared)
        yield self.item(response, level)
        if COMPILED[-1][1] or FROM_TARGETS is not None:
            # Targets that link to further targets, or back to the level before them.
            hrefs = self.hrefs(response)
            for r in self.follow_targets([canonical(response.urljoin(h)) for h in hrefs]):
                yield r
            async for r in self.include_scripts(response, len(COMPILED), True):
                yield r

    def follow_targets(self, urls):
        n = len(COMPILED)
        for url in urls:
            if not url.startswith(("http://", "https://")):
                continue
            if matches(n - 1, url):
                if COMPILED[-1][1] and not refused(url):
                    yield scrapy.Request(url, callback=self.parse_target, cb_kwargs={{"level": n}})
            elif FROM_TARGETS is not None and matches(FROM_TARGETS, url):
                yield scrapy.Request(url, callback=self.parse_level,
                                     cb_kwargs={{"level": FROM_TARGETS + 1}})
"##,
        name_s = py_str(&name),
        script_links = if spec.script_links { "True" } else { "False" },
        entry_target = if spec.entry_target { "True" } else { "False" },
        unlike_directories = py_list(&spec.unlike_directories),
        unlike_targets = py_list(&spec.unlike_targets),
        liked = py_list(&spec.liked),
        from_targets = spec
            .levels
            .iter()
            .position(|l| l.from_targets)
            .map_or("None".to_string(), |i| i.to_string()),
        max_scripts = crate::script_links::DEFAULT_MAX_SCRIPTS,
        max_links = crate::script_links::MAX_LINKS_PER_SCRIPT,
        max_sitemaps = crate::crawler::MAX_SITEMAPS,
        max_urls = crate::sitemap::MAX_URLS,
        max_bytes = crate::sitemap::MAX_BYTES,
        extensions = crate::script_links::PAGE_EXTENSIONS
            .iter()
            .map(|e| py_str(e))
            .collect::<Vec<_>>()
            .join(", "),
        session = session_params()
            .iter()
            .map(|p| py_str(p))
            .collect::<Vec<_>>()
            .join(", "),
        domains = domains.join(", "),
        entry = py_str(&spec.entry),
        next_words = {
            let mut words: Vec<&String> = crate::forms::pagination_words().iter().collect();
            words.sort();
            words
                .iter()
                .map(|w| py_str(w))
                .collect::<Vec<_>>()
                .join(", ")
        },
    );
    let settings = format!(
        r#"# Scrapy settings generated by Exemplar.
import os

import scrapy

BOT_NAME = {name_s}
SPIDER_MODULES = [{spiders}]
NEWSPIDER_MODULE = {spiders}

USER_AGENT = {ua}
ROBOTSTXT_OBEY = {robots}
DOWNLOAD_DELAY = {delay}
CONCURRENT_REQUESTS_PER_DOMAIN = {conc}
AUTOTHROTTLE_ENABLED = False
# The spider follows a page's refresh to another URL as a link, as Exemplar does.
METAREFRESH_ENABLED = False
# A page answered "come back later" (429, 503) is asked again up to three times, as Exemplar
# asks again; other errors are the page's answer.
# Asked again after the wait the site asks for (Retry-After), its host waiting as long and
# slowed down: Scrapy's retries do not wait (middlewares.py).
RETRY_TIMES = 3
RETRY_HTTP_CODES = [429, 503]
DOWNLOADER_MIDDLEWARES = {{
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    {retry_mw}: 550,
}}
EXEMPLAR_MAX_WAIT = {max_wait}
# The delay as set, not drawn around it (Scrapy 2.19 renamed the setting and deprecated the old).
if scrapy.version_info >= (2, 19):
    DOWNLOAD_DELAY_JITTER = 0
else:
    RANDOMIZE_DOWNLOAD_DELAY = False
# Breadth-first, like Exemplar: a URL gets the level where it is first met.
DEPTH_PRIORITY = 1
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
FEED_EXPORT_ENCODING = "utf-8"

# Many machines, one crawl: `pip install scrapy-redis`, then on every machine
# `REDIS_URL=redis://HOST:6379 scrapy crawl {name}`. The machines share one request queue and
# one duplicate filter in that Redis (scrapy-redis), so a page is fetched by one of them (the
# entry page and the scripts read for links, by each). Both are kept when a machine finishes (the others go on with them): before crawling the
# site again, delete the keys `{name}:requests` and `{name}:dupefilter`.
if os.environ.get("REDIS_URL"):
    SCHEDULER = "scrapy_redis.scheduler.Scheduler"
    DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
    SCHEDULER_PERSIST = True
    REDIS_URL = os.environ["REDIS_URL"]
    # Seconds a machine with nothing to do waits for work from the others before it stops.
    MAX_IDLE_TIME_BEFORE_CLOSE = 30
"#,
        name_s = py_str(&name),
        spiders = py_str(&format!("{name}.spiders")),
        ua = py_str(&spec.user_agent),
        robots = if spec.obey_robots { "True" } else { "False" },
        delay = spec.delay_s,
        conc = spec.concurrency_per_domain.max(1),
        retry_mw = py_str(&format!("{name}.middlewares.ComeBackLaterMiddleware")),
        max_wait = spec.max_wait_s,
    );
    vec![
        (
            "scrapy.cfg".into(),
            format!("[settings]\ndefault = {name}.settings\n\n[deploy]\nproject = {name}\n"),
        ),
        (format!("{name}/__init__.py"), String::new()),
        (format!("{name}/settings.py"), settings),
        (format!("{name}/middlewares.py"), MIDDLEWARES.into()),
        (
            format!("{name}/items.py"),
            "import scrapy\n\n\nclass PageItem(scrapy.Item):\n    url = scrapy.Field()\n    title = scrapy.Field()\n    level = scrapy.Field()\n".into(),
        ),
        (format!("{name}/spiders/__init__.py"), String::new()),
        (format!("{name}/spiders/{name}.py"), spider),
        (
            "README.md".into(),
            format!(
                "# {name}: a Scrapy project generated by Exemplar\n\nRun: `pip install scrapy && scrapy crawl {name} -O pages.jsonl`.\n\nOn many machines: `pip install scrapy-redis`, then run `REDIS_URL=redis://HOST:6379 scrapy crawl {name} -O pages.jsonl` on every machine, with one Redis for all: they share one request queue and one duplicate filter there, so a page is fetched by one of them (the entry page and the scripts read for links, by each). The queue and the filter outlast the crawl; delete the keys `{name}:requests` and `{name}:dupefilter` before crawling the site again. A machine with nothing to do waits 30 s for work from the others before it stops (`-s MAX_IDLE_TIME_BEFORE_CLOSE=SECONDS`, 0 for ever).\n\nThe spider follows the pattern's rules exactly and drops the same session-id parameters; unlike `exemplar crawl` it does not recognise one page served under two URLs by its content.\n"
            ),
        ),
    ]
}

/// The generated project's `middlewares.py`: Scrapy's retries made to wait as Exemplar waits
/// ([`crate::fetch::retry_wait_ms`]), for Scrapy 2.8 (Debian's) to the newest.
const MIDDLEWARES: &str = r#""""Downloader middlewares generated by Exemplar."""
import logging
import time
from email.utils import parsedate_to_datetime

from scrapy import Request
from scrapy.downloadermiddlewares.retry import RetryMiddleware

logger = logging.getLogger(__name__)


def retry_after_seconds(value, now=None):
    """The seconds a Retry-After header asks to wait: a number, or an HTTP date (the time
    until then, 0 when past). None when it says neither."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    text = text.strip()
    if text.isascii() and text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def wait_seconds(retry_after, attempt, longest):
    """Exemplar's wait before asking a page again for the attempt-th time (from 1): its
    Retry-After, else 2, 4, 8 s; between 1 s and the longest wait."""
    wait = 2.0 ** attempt if retry_after is None else retry_after
    return min(max(wait, 1.0), max(longest, 1.0))


class ComeBackLaterMiddleware(RetryMiddleware):
    """Scrapy's retries (RETRY_TIMES, RETRY_HTTP_CODES) as Exemplar asks again: the page is
    asked again after the wait its answer asks for (wait_seconds), and its host waits as long
    before its next request, its delay raised to 1, 2, 4 s by the attempt (EXEMPLAR_MAX_WAIT
    at most)."""

    @classmethod
    def from_crawler(cls, crawler):
        mw = super().from_crawler(crawler)
        mw.exemplar_crawler = crawler
        mw.longest = crawler.settings.getfloat("EXEMPLAR_MAX_WAIT", 30.0)
        return mw

    def process_response(self, request, response, spider=None):
        # Scrapy 2.8 passes the spider; newer Scrapys do not (and warn when given it).
        args = () if spider is None else (spider,)
        result = super().process_response(request, response, *args)
        if isinstance(result, Request):
            attempt = result.meta.get("retry_times", 1)
            ra = retry_after_seconds(response.headers.get(b"Retry-After"))
            wait = wait_seconds(ra, attempt, self.longest)
            self.hold_host(request, wait, min(0.5 * 2 ** attempt, self.longest))
        return result

    def hold_host(self, request, wait, delay):
        """No request of the host starts before `wait` seconds from now, and then one every
        `delay` seconds at least (the downloader's slot of the request)."""
        engine = getattr(self.exemplar_crawler, "engine", None)
        downloader = getattr(engine, "downloader", None)
        slot = getattr(downloader, "slots", {}).get(request.meta.get("download_slot"))
        if slot is None:
            logger.warning("no download slot for %s: asked again without waiting", request.url)
            return
        slot.delay = max(slot.delay, delay)
        # The downloader starts the slot's next request `delay` after `lastseen`, the start of
        # its last request: on the wall clock (Scrapy 2.8) or the monotonic one (newer), the
        # one it is nearest.
        wall, mono = time.time(), time.monotonic()
        now = wall if abs(slot.lastseen - wall) <= abs(slot.lastseen - mono) else mono
        slot.lastseen = max(slot.lastseen, now + wait - slot.delay)
        logger.debug("%s asked to wait: %.1f s, then a request every %.1f s",
                     request.url, wait, slot.delay)
"#;

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
                    "heading: B   Class Reference\r\nlang: pt-br\r\ncanonical: http://h/b/\r\nsimilarity: 0.9000\r\nlevel: 1\r\nbyHeading: true\r\ntextDigest: 00ab00cd00ef0012\r\nchange: new\r\n"
                        .to_string()
                )
            ]
        );
        assert!(text.contains("WARC-Target-URI: http://h/a\r\n"));
        assert!(text.contains(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<p>hi</p>"
        ));
    }

    #[test]
    fn python_literals_of_json() {
        let v = serde_json::json!({"query": null, "on": true, "off": false, "n": [1, "a\"b"]});
        assert_eq!(
            py_literal(&v),
            r#"{"n": [1, "a\"b"], "off": False, "on": True, "query": None}"#
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
            entry_target: false,
            unlike_directories: vec![],
            unlike_targets: vec![],
            liked: vec![],
        };
        let files = scrapy_project(&spec);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"scrapy.cfg"));
        assert!(names.contains(&"site_127_0_0_1_8000/spiders/site_127_0_0_1_8000.py"));
        let spider = &files
            .iter()
            .find(|(n, _)| n.ends_with("spiders/site_127_0_0_1_8000.py"))
            .expect("spider")
            .1;
        assert!(
            spider.contains(r#""^http://127\\.0\\.0\\.1:8000/item/[0-9]+$""#),
            "{spider}"
        );
        assert!(
            spider.contains(r#"frozenset(["http://127.0.0.1:8000/item/0"])"#),
            "{spider}"
        );
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
