//! Page signatures: when two URLs are one page. A page's signature is the hash of its text with
//! its own URL's varying values taken out, its canonical URL's, and its body's; the mapper and
//! the crawler both recognise a page met before by them.

use crate::canon;
use crate::dom::Page;

/// The canonical URL of each of the page's links (None where a link does not canonicalise), in
/// `page.links` order: computed once per page for both the signature and the expansion.
pub(crate) fn canonical_links(page: &Page) -> Vec<Option<String>> {
    page.links
        .iter()
        .map(|l| canon::canonicalize(&l.url))
        .collect()
}

/// The content signature of a page that tells the same page under several URLs: title, text
/// words, tree size and canonical links (`links` from [`canonical_links`]).
#[cfg(test)]
pub(crate) fn page_signature(page: &Page, links: &[Option<String>]) -> u64 {
    let own = canon::canonicalize(&page.url);
    signature_of(page, links, own.as_deref(), &[])
}

/// The signature of a response's bytes, another signature of its page beside
/// [`page_signatures`]: the same bytes under two URLs are one document, whatever its relative
/// links resolve to there. Debian's Apache manual links each untranslated page of `da/`, `de/`…
/// to the English one (a symbolic link), so the copies' canonical links lead to their own
/// language's neighbours and their text signatures differ; their bytes do not. Tagged apart from
/// the text signatures, with which it shares its map. Eight bytes a step ([`canon::mix_bytes`]:
/// a byte a step, as FNV goes, cost 2.4% of mapping's instructions on the PostgreSQL
/// documentation).
pub(crate) fn body_signature(body: &[u8]) -> u64 {
    canon::mix_bytes(canon::bytes_signature(b"\0body\0"), body)
}

/// The signature of what a page declares itself to be: its canonical URL
/// ([`Page::canonical`]), title and main heading, when it declares one. Two targets that share
/// it are one page served under two URLs even where their bytes differ (a "recently viewed"
/// block, the category path in a breadcrumb, a tracking parameter echoed in the links), which
/// the content signatures cannot see. Only targets are known by it (mapping and crawling
/// record the targets' and compare pages with them): a listing whose later pages all name the
/// first as canonical, as misconfigured sites do, must still be followed page by page. The title and heading guard against a site naming one
/// URL canonical on every page (its home page): such pages differ in them. Tagged apart from
/// the other signatures, with which it shares their map.
pub(crate) fn canonical_signature(page: &Page) -> Option<u64> {
    let url = canon::canonicalize(page.canonical.as_deref()?)?;
    let mut s = canon::Signature::new();
    s.push("\u{0}canonical\u{0}");
    s.push(&url);
    s.push("\n");
    s.push(&page.title);
    s.push("\n");
    s.push(&page.heading);
    Some(s.finish())
}

/// The signatures of a page: the plain one (title, text words, tree size and canonical links)
/// and, for a page whose links carry one of its own URL's query values ([`alias_values`]), a
/// second reading those values as "this page's": the same page asked for under an alias (gitweb's commit as `h=HEAD` and
/// as `h=<hash>`) links to its neighbours with whichever value it was asked with
/// (`a=log;h=HEAD`, `a=tree;…;hb=HEAD`). A second one, not a replacement: reading a value as
/// "this page's" also tells apart copies the plain one matches (a link whose value is one
/// page's own and not the other's: on gitweb, a replacement found two duplicates fewer), so a
/// page is a copy when either matches.
pub(crate) fn page_signatures(page: &Page, links: &[Option<String>]) -> Vec<u64> {
    let own = canon::canonicalize(&page.url);
    let values = own.as_deref().map_or_else(Vec::new, alias_values);
    let mut out = vec![signature_of(page, links, own.as_deref(), &[])];
    if !values.is_empty() && links.iter().flatten().any(|l| carries(l, &values)) {
        out.push(signature_of(page, links, own.as_deref(), &values));
    }
    out
}

/// The signature of a page whose canonical URL is `own`, its links' query values among
/// `own_values` read as "this page's" ([`with_own_values`]).
fn signature_of(
    page: &Page,
    links: &[Option<String>],
    own: Option<&str>,
    own_values: &[&str],
) -> u64 {
    // Streamed: the signature of title, words and size as text, never built, then of the set
    // of links. The words are the terms with their stop words (`sign_words`: no term list is
    // made for it).
    let mut s = canon::Signature::new();
    s.push(&page.title);
    s.push("\n");
    crate::dom::text::sign_words(&page.text, &mut s);
    // A form's answer to a POST is its form's state as much as its text: the steps of a
    // postback application (an author chosen, the select of their tags filled) differ only in
    // their selects, whose options are no text.
    if page.url.contains(crate::fetch::POST_MARK) {
        for c in page.controls.iter().filter(|c| !c.name.is_empty()) {
            if matches!(
                c.kind,
                crate::dom::ControlKind::Select
                    | crate::dom::ControlKind::Radio
                    | crate::dom::ControlKind::Checkbox
            ) {
                s.push("\0control\0");
                s.push(&c.name);
                s.push("=");
                s.push(if c.kind == crate::dom::ControlKind::Select || c.checked {
                    &c.value
                } else {
                    ""
                });
                for o in &c.options {
                    s.push("\n");
                    s.push(o);
                }
            }
        }
    }
    // Pages with no text at all (frames, images) are told apart by their structure size.
    s.push(&page.tree.len().to_string());
    // Terms keep no numbers, so two listings that differ only in numbered items ("Part 1041"…)
    // would read the same: their links tell them apart. Canonical links, sorted, so the copies
    // of one page under session-id URLs, whose links carry the session too, still match.
    // A link to the page itself (`#top`, a table of contents) carries the page's own URL, so the
    // same page under another URL (a form's query the site ignores) would differ by those
    // links alone: they count as one link to "this page".
    // With a query, the page's URL without it is "this page" too (a listing's filter form
    // answered with the listing, whose links name the listing without the query).
    // Each link is hashed eight bytes a step and the set is read from the sorted hashes:
    // sorting the strings and hashing them a byte at a time cost about twice as much.
    let bare = own.map(|u| u.split('?').next().unwrap_or(u));
    let mut sorted: Vec<u64> = links
        .iter()
        .flatten()
        .map(|l| {
            if own == Some(l.as_str()) || bare == Some(l.as_str()) {
                THIS_PAGE
            } else {
                canon::mix_bytes(0, with_own_values(l, own_values).as_bytes())
            }
        })
        .collect();
    sorted.sort_unstable();
    sorted.dedup();
    for l in sorted {
        s.push_hash(l);
    }
    s.finish()
}

/// A link to the page itself in [`signature_of`]: any value no link's hash is likely to be.
const THIS_PAGE: u64 = 0x7468_6973_2070_6167;

/// The values of `url`'s query parameters an alias may be: not numbers (terms keep no
/// numbers, so pages that differ only in a number and in links carrying it must stay apart:
/// `?id=41`, `?page=2`), at least 3 characters.
pub(crate) fn alias_values(url: &str) -> Vec<&str> {
    let Some((_, query)) = url.split_once('?') else {
        return Vec::new();
    };
    query
        .split(['&', ';'])
        .filter_map(|kv| kv.split_once('=').map(|(_, v)| v))
        .filter(|v| v.len() >= 3 && !v.bytes().all(|b| b.is_ascii_digit()))
        .collect()
}

/// Whether a query parameter of `link` has one of the values `own`.
fn carries(link: &str, own: &[&str]) -> bool {
    link.split_once('?').is_some_and(|(_, query)| {
        query
            .split(['&', ';'])
            .any(|kv| kv.split_once('=').is_some_and(|(_, v)| own.contains(&v)))
    })
}

/// `link` with each query parameter whose value is one of `own` ([`alias_values`] of the page's
/// URL) written `name=(own)`; unchanged (borrowed) when none is.
pub(crate) fn with_own_values<'a>(link: &'a str, own: &[&str]) -> std::borrow::Cow<'a, str> {
    if own.is_empty() || !carries(link, own) {
        return link.into();
    }
    let Some((path, query)) = link.split_once('?') else {
        return link.into();
    };
    let mut out = String::with_capacity(link.len());
    out.push_str(path);
    out.push('?');
    let mut rest = query;
    loop {
        // Each parameter with the separator that follows it, kept as it was.
        let end = rest.find(['&', ';']).unwrap_or(rest.len());
        let kv = &rest[..end];
        match kv.split_once('=') {
            Some((name, v)) if own.contains(&v) => {
                out.push_str(name);
                out.push_str("=(own)");
            }
            _ => out.push_str(kv),
        }
        if end == rest.len() {
            break;
        }
        out.push_str(&rest[end..end + 1]);
        rest = &rest[end + 1..];
    }
    out.into()
}
