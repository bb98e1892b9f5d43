//! Rewriting a page's links in its bytes, as a mirror does: a small scanner of HTML tags that
//! finds the attributes holding URLs (`href`, `src`, `action`, a `<meta>` refresh's URL) and
//! replaces their values, leaving every other byte as it was; and the URL path helpers the
//! rewriting needs (percent-encoding, relative references).
//!
//! Contract: the scanner never fails: comments, `<script>` and `<style>` content and malformed
//! tags are skipped; a value that is not UTF-8 is left alone. Replacement values are written
//! double-quoted and escaped.

/// An attribute whose value is a URL, as found in a page.
struct UrlAttr {
    /// Byte range of the whole value, quotes included.
    span: (usize, usize),
    /// The value, character references decoded.
    value: String,
    /// For a `<meta>` refresh: the text before and after the URL inside the value.
    refresh: Option<(String, String)>,
}

/// A tag's attributes: (lower-case name, value range without quotes, whole range).
type Attrs = Vec<(String, (usize, usize), (usize, usize))>;

/// `bytes` with each URL attribute's value replaced by `map(value)` when it gives one, and
/// `insert` put right after the first `<body>` tag (after `</head>`, or at the start, when there
/// is none).
pub(crate) fn rewrite(
    bytes: &[u8],
    mut map: impl FnMut(&str) -> Option<String>,
    insert: Option<&[u8]>,
) -> Vec<u8> {
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    let mut body_at = None;
    let mut head_end = None;
    scan(bytes, |name, tag_end, attrs| {
        if name == "body" && body_at.is_none() {
            body_at = Some(tag_end);
        }
        if name == "/head" && head_end.is_none() {
            head_end = Some(tag_end);
        }
        for a in url_attrs(bytes, name, attrs) {
            let Some(new) = map(&a.value) else { continue };
            let value = match &a.refresh {
                Some((before, after)) => format!("{before}{new}{after}"),
                None => new,
            };
            edits.push((a.span.0, a.span.1, quoted(&value)));
        }
    });
    if let Some(ins) = insert {
        let at = body_at.or(head_end).unwrap_or(0);
        edits.push((at, at, ins.to_vec()));
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = Vec::with_capacity(bytes.len() + 256);
    let mut pos = 0;
    for (start, end, text) in edits {
        if start < pos {
            continue;
        }
        out.extend_from_slice(&bytes[pos..start]);
        out.extend_from_slice(&text);
        pos = end;
    }
    out.extend_from_slice(&bytes[pos..]);
    out
}

/// Every URL value of the page, in order (what [`rewrite`] would hand to its map).
pub(crate) fn urls(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    scan(bytes, |name, _, attrs| {
        out.extend(url_attrs(bytes, name, attrs).into_iter().map(|a| a.value));
    });
    out
}

fn url_attrs(bytes: &[u8], tag: &str, attrs: &Attrs) -> Vec<UrlAttr> {
    let text = |r: (usize, usize)| {
        std::str::from_utf8(&bytes[r.0..r.1])
            .ok()
            .map(exemplar_core::sitemap::decode_references)
    };
    let mut out = Vec::new();
    let refresh = tag == "meta"
        && attrs.iter().any(|(n, v, _)| {
            n == "http-equiv" && text(*v).is_some_and(|t| t.eq_ignore_ascii_case("refresh"))
        });
    for (name, value, whole) in attrs {
        let Some(v) = text(*value) else { continue };
        if refresh && name == "content" {
            // `0; url=target` (or `0;URL='target'`).
            let lower = v.to_ascii_lowercase();
            let Some(at) = lower.find("url=") else {
                continue;
            };
            let start = at + 4;
            let rest = &v[start..];
            let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"');
            let (inner, end) = match quote {
                Some(q) => match rest[1..].find(q) {
                    Some(e) => (&rest[1..1 + e], start + 1 + e),
                    None => (&rest[1..], v.len()),
                },
                None => (rest.trim_end(), start + rest.trim_end().len()),
            };
            let offset = usize::from(quote.is_some());
            out.push(UrlAttr {
                span: *whole,
                value: inner.to_string(),
                refresh: Some((v[..start + offset].to_string(), v[end..].to_string())),
            });
        } else if matches!(name.as_str(), "href" | "src" | "action") {
            out.push(UrlAttr {
                span: *whole,
                value: v,
                refresh: None,
            });
        }
    }
    out
}

/// Calls `on_tag(lower-case name, end of the tag, attributes)` for every start tag and end tag
/// (end tags as `/name`, without attributes).
fn scan(b: &[u8], mut on_tag: impl FnMut(&str, usize, &Attrs)) {
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        i += off;
        if b[i..].starts_with(b"<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |e| e + 3);
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let name_start = i + 1 + usize::from(closing);
        if !b.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            i += 1;
            continue;
        }
        let mut j = name_start;
        while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' && b[j] != b'/' {
            j += 1;
        }
        let name = String::from_utf8_lossy(&b[name_start..j]).to_ascii_lowercase();
        let (attrs, end) = attributes(b, j);
        if closing {
            on_tag(&format!("/{name}"), end, &Vec::new());
            i = end;
            continue;
        }
        on_tag(&name, end, &attrs);
        i = end;
        if name == "script" || name == "style" {
            let close = format!("</{name}");
            i = find_ci(b, i, close.as_bytes()).unwrap_or(b.len());
        }
    }
}

/// A tag's attributes from `j` (after its name) and the index after its `>`.
fn attributes(b: &[u8], mut j: usize) -> (Attrs, usize) {
    let mut attrs = Vec::new();
    loop {
        while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b'/') {
            j += 1;
        }
        if j >= b.len() {
            return (attrs, b.len());
        }
        if b[j] == b'>' {
            return (attrs, j + 1);
        }
        let n0 = j;
        while j < b.len() && !b[j].is_ascii_whitespace() && !matches!(b[j], b'=' | b'>' | b'/') {
            j += 1;
        }
        let name = String::from_utf8_lossy(&b[n0..j]).to_ascii_lowercase();
        let mut k = j;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if b.get(k) != Some(&b'=') {
            continue;
        }
        k += 1;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        match b.get(k) {
            Some(&q) if q == b'"' || q == b'\'' => {
                let end = b[k + 1..]
                    .iter()
                    .position(|&c| c == q)
                    .map_or(b.len(), |e| k + 1 + e);
                attrs.push((name, (k + 1, end), (k, (end + 1).min(b.len()))));
                j = (end + 1).min(b.len());
            }
            Some(_) => {
                let mut end = k;
                while end < b.len() && !b[end].is_ascii_whitespace() && b[end] != b'>' {
                    end += 1;
                }
                attrs.push((name, (k, end), (k, end)));
                j = end;
            }
            None => return (attrs, b.len()),
        }
    }
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

fn find_ci(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w.eq_ignore_ascii_case(pat))
        .map(|p| from + p)
}

/// A value written double-quoted.
fn quoted(v: &str) -> Vec<u8> {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '"' => s.push_str("&quot;"),
            '<' => s.push_str("&lt;"),
            _ => s.push(c),
        }
    }
    s.push('"');
    s.into_bytes()
}

/// A decoded URL path percent-encoded: everything but unreserved characters, `/` and the
/// sub-delimiters that cannot be mistaken (`;`, `&`, `?`, `#` and `%` are encoded).
pub(crate) fn encode_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$'()*+,=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A percent-encoded path decoded (`None`: a bad escape or bytes that are not UTF-8), as the
/// static server decodes one.
pub(crate) use exemplar_native::serve::percent_decode as decode_path;

/// The relative reference from the page at path `from` to path `to` (both absolute, encoded).
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from_segs: Vec<&str> = from.split('/').collect();
    let from_dirs = &from_segs[..from_segs.len() - 1];
    let to_segs: Vec<&str> = to.split('/').collect();
    let to_dirs = &to_segs[..to_segs.len() - 1];
    let common = from_dirs
        .iter()
        .zip(to_dirs)
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from_dirs.len() - common;
    let rest = to_segs[common..].join("/");
    let mut out = "../".repeat(ups);
    if ups == 0 && rest.split('/').next().is_some_and(|s| s.contains(':')) {
        out.push_str("./");
    }
    out.push_str(&rest);
    if out.is_empty() {
        out.push_str("./");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_references() {
        assert_eq!(relative("/a/b/c.html", "/a/d/e.html"), "../d/e.html");
        assert_eq!(relative("/a/b/c", "/a/b/"), "./");
        assert_eq!(relative("/a/b/c", "/a/"), "../");
        assert_eq!(
            relative("/a/b.html", "/a/c.html;jsessionid=AB"),
            "c.html;jsessionid=AB"
        );
        assert_eq!(relative("/a/", "/a/x:y.html"), "./x:y.html");
        assert_eq!(relative("/", "/x/y"), "x/y");
    }

    #[test]
    fn paths_round_trip() {
        let p = "/a b/ü;x&y?.html";
        let e = encode_path(p);
        assert_eq!(e, "/a%20b/%C3%BC%3Bx%26y%3F.html");
        assert_eq!(decode_path(&e).as_deref(), Some(p));
        assert_eq!(decode_path("%zz"), None);
    }

    #[test]
    fn rewrites_url_attributes_only() {
        let page = br#"<!DOCTYPE html><html><head><!-- <a href="c.html"> -->
<meta http-equiv="Refresh" content="0; URL=next.html"><link rel=stylesheet href=s.css>
<script>var a = '<a href="x.html">';</script></head>
<BODY class=x><a title="t" HREF='a.html?x=1&amp;y=2#f'>a</a><img src="i.png" alt=""></body>"#;
        assert_eq!(
            urls(page),
            ["next.html", "s.css", "a.html?x=1&y=2#f", "i.png"]
        );
        let out = rewrite(
            page,
            |v| Some(format!("/m/{v}")),
            Some(b"<div>banner</div>"),
        );
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains(r#"content="0; URL=/m/next.html""#), "{out}");
        assert!(out.contains(r#"href="/m/s.css""#));
        assert!(out.contains(r#"HREF="/m/a.html?x=1&amp;y=2#f""#));
        assert!(out.contains(r#"<BODY class=x><div>banner</div><a"#));
        assert!(out.contains(r#"<!-- <a href="c.html"> -->"#));
        assert!(out.contains(r#"'<a href="x.html">'"#));
    }
}
