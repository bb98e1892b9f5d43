//! A listing's further pages: which links of a page lead to the same listing paged on.
//!
//! A page reached from a listing by its "Next" link, or by a page number, is that listing's
//! next page: a page of the same kind, whatever it scores against the example. The quotes
//! directory's `/page/2/` looks as much like an author page as the template makes it (0.896),
//! yet it continues the home page, a list of quotes; so it is a listing, not a target.
//! Mapping records these links ([`crate::map::SiteMap::continued`]) and takes a listing's
//! continuation for a listing; learning gives such pages a level of their own.
//!
//! Contract: [`continuations`] reads a page's links alone (anchor text and URLs), never fetches;
//! it names a link only when both its anchor and its URL say "the same listing, paged": the
//! anchor is a "next"/"previous" word or arrow (`data/forms/pagination-words.txt`, the list
//! pagination buttons are known by) or a bare page number, and the URL differs from the page's
//! own only by numbers, or extends the page's directory by a short numbered part (`/` →
//! `/page/2/`, `/category/5` → `/category/5?page=2`). "Read more" links to posts are no
//! continuation.
use crate::canon::abstract_digits as mask;
use crate::dom::Page;

/// The longest page number an anchor may carry (a listing of a million pages).
const MAX_DIGITS: usize = 6;

/// Indices into `page.links` of the links that continue the listing `page` is.
pub fn continuations(page: &Page) -> Vec<usize> {
    page.links
        .iter()
        .enumerate()
        .filter(|(_, l)| is_continuation(&page.url, &l.url, &l.text))
        .map(|(i, _)| i)
        .collect()
}

/// Whether a link from `from` to `to` with anchor `text` pages on the listing `from` is.
pub fn is_continuation(from: &str, to: &str, text: &str) -> bool {
    if from == to {
        return false;
    }
    let anchor = anchor_label(text);
    if anchor.is_empty() {
        return false;
    }
    let numbered = anchor.len() <= MAX_DIGITS && anchor.bytes().all(|b| b.is_ascii_digit());
    if numbered {
        // The number must be in the URL: "2" → `/page/2/`, not to `/item/17`.
        let n = anchor.trim_start_matches('0');
        if n.is_empty() || !digit_runs(to).any(|run| run.trim_start_matches('0') == n) {
            return false;
        }
    } else if !is_paging_word(&anchor) {
        return false;
    }
    same_listing(from, to).is_some_and(|listing| pages_by_number(from, to, listing))
}

/// Words a page number follows in URLs (`/page/2/`, `page2.html`, `/seite-3`, `?p=2`,
/// `?start=20`); besides them, a number right after the listing's own URL (`/news/` →
/// `/news/2/`) and a query key holding "page" (`?currentPage=2`).
const PAGE_TOKENS: [&str; 11] = [
    "page", "pages", "p", "pg", "paged", "pagina", "página", "seite", "start", "offset", "skip",
];

/// Whether `to` differs from `from` by a page number: a number of `to` that `from` lacks (or
/// has another at the same rank) standing as a page number stands ([`page_number_at`]). A
/// document's "Next" to `overload2.html` or `ch03.html` (reading order, not a listing), a
/// numbered link to `/item/2`, carry no page number.
fn pages_by_number(from: &str, to: &str, listing: Listing) -> bool {
    let before: Vec<&str> = digit_runs(from).collect();
    let mut rank = 0;
    let bytes = to.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let run = &to[start..i];
        let differs = before.get(rank).is_none_or(|b| *b != run);
        rank += 1;
        if differs && page_number_at(to, start, i, listing) {
            return true;
        }
    }
    false
}

/// Whether the digits `to[start..end]` stand as a page number: a query value under a paging key
/// (`?page=2`, `&start=20`, `?currentPage=3`), a path segment after a page word (`/page/2/`) or
/// right after the listing's URL (`/news/2/` from `/news/`), or after a page word in a segment
/// (`page2.html`, `seite-3`).
fn page_number_at(to: &str, start: usize, end: usize, listing: Listing) -> bool {
    let head = &to[..start];
    let prev = head.chars().next_back();
    let next = to[end..].chars().next();
    let segment_end = matches!(next, None | Some('/' | '?' | '#' | '&' | '.'));
    if prev == Some('=') {
        let key = head[..head.len() - 1]
            .rsplit(['?', '&'])
            .next()
            .unwrap_or("")
            .to_lowercase();
        return matches!(next, None | Some('&' | '#'))
            && (PAGE_TOKENS.contains(&key.as_str()) || key.contains("page"));
    }
    let word = |s: &str| -> String {
        let w: String = s
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        w.to_lowercase()
    };
    if prev == Some('/') && segment_end {
        if let Listing::Extends(at) = listing
            && start == at + 1
        {
            return true;
        }
        // The segment before: `/page/2/`.
        let before = head[..head.len() - 1].rsplit('/').next().unwrap_or("");
        return PAGE_TOKENS.contains(&word(before).as_str()) && word(before).len() == before.len();
    }
    // A page word right before, alone or after a separator: `page2.html`, `page-2`.
    segment_end && PAGE_TOKENS.contains(&word(head.trim_end_matches(['-', '_'])).as_str())
}

/// The anchor's label: lower case, arrows, quotes and punctuation around it dropped
/// ("Next →" → "next", "« Previous" → "previous", "[2]" → "2"). A label made only of arrows
/// keeps them (">", "»").
fn anchor_label(text: &str) -> String {
    let lower = text.trim().to_lowercase();
    if lower.chars().count() > 40 {
        return String::new();
    }
    let stripped = lower
        .trim_matches(|c: char| !c.is_alphanumeric())
        .trim()
        .to_string();
    if stripped.is_empty() {
        lower.split_whitespace().collect::<Vec<_>>().join("")
    } else {
        stripped
    }
}

/// Whether `label` is a "next"/"previous" word or arrow. "More" is left out: "Read more"
/// leads to an item.
fn is_paging_word(label: &str) -> bool {
    if label == "more" || label.starts_with("more ") {
        return false;
    }
    crate::forms::pagination_words().contains(label)
}

/// The runs of ASCII digits in `s`.
fn digit_runs(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
}

/// How `to` stands to the listing `from` ([`same_listing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// The same URL but for its numbers.
    Renumbered,
    /// `from`'s URL extended: `to[..at]` is the listing's own URL (its directory).
    Extends(usize),
}

/// Whether `to` is shaped as a further page of `from`: the same URL but for its numbers, or
/// `from`'s directory extended by a short part holding a number (at most two path segments, or
/// a query, `from`'s query kept), the host the same.
fn same_listing(from: &str, to: &str) -> Option<Listing> {
    let (a, b) = (split(from)?, split(to)?);
    if a.origin != b.origin {
        return None;
    }
    if mask(from) == mask(to) {
        return Some(Listing::Renumbered);
    }
    // `from` without its query, its trailing slash or a last segment naming an index file.
    let base = match a.path.rsplit_once('/') {
        Some((head, last)) if last.is_empty() || last.starts_with("index.") => head,
        _ => a.path,
    };
    let rest = b.path.strip_prefix(base)?;
    if !(rest.is_empty() || rest.starts_with('/') || rest.starts_with('?')) {
        return None;
    }
    // The query of `from` must be kept (filters of the listing), a page number added.
    if let Some(q) = a.query
        && !b.query.is_some_and(|bq| {
            q.split('&')
                .filter(|p| !p.is_empty())
                .all(|p| bq.split('&').any(|x| mask(x) == mask(p)))
        })
    {
        return None;
    }
    let segments = rest.split('/').filter(|s| !s.is_empty()).count();
    let extra_has_digit = rest.bytes().any(|c| c.is_ascii_digit())
        || b.query
            .is_some_and(|q| q.bytes().any(|c| c.is_ascii_digit()));
    (segments <= 2 && extra_has_digit).then_some(Listing::Extends(b.origin.len() + base.len()))
}

struct Parts<'a> {
    origin: &'a str,
    path: &'a str,
    query: Option<&'a str>,
}

/// An absolute URL's origin, path and query (fragment dropped).
fn split(url: &str) -> Option<Parts<'_>> {
    let url = url.split('#').next().unwrap_or(url);
    let after_scheme = url.find("://")? + 3;
    let path_at = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |i| after_scheme + i);
    let origin = &url[..path_at];
    let rest = &url[path_at..];
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    Some(Parts {
        origin,
        path: if path.is_empty() { "/" } else { path },
        query,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "http://site.test";

    fn cont(from: &str, to: &str, text: &str) -> bool {
        is_continuation(&format!("{H}{from}"), &format!("{H}{to}"), text)
    }

    #[test]
    fn next_links_and_page_numbers_continue_a_listing() {
        assert!(cont("/", "/page/2/", "Next →"));
        assert!(cont("/page/2/", "/page/3/", "Next →"));
        assert!(cont("/page/3/", "/page/2/", "← Previous"));
        assert!(cont("/category/5", "/category/5?page=2", "2"));
        assert!(cont("/category/5/", "/category/5/page/2/", "»"));
        assert!(cont("/tag/love/", "/tag/love/page/2/", "Next"));
        assert!(cont("/search?q=x", "/search?q=x&start=20", "Next"));
        assert!(cont("/list?start=0", "/list?start=20", "Siguiente"));
        assert!(cont("/blog/index.html", "/blog/page2.html", "2"));
        assert!(cont("/news/", "/news/seite-3", "3"));
        assert!(cont("/forum/t/12", "/forum/t/12/2", "Next"));
        assert!(cont("/news/", "/news/2/", "2"));
        assert!(cont("/shop?cat=4", "/shop?cat=4&currentPage=2", "›"));
    }

    #[test]
    fn items_and_other_listings_are_no_continuation() {
        // "Read more" and titles lead to items.
        assert!(!cont("/blog/", "/blog/post-12/", "Read more"));
        assert!(!cont("/blog/", "/blog/post-12/", "more"));
        assert!(!cont("/", "/author/Albert-Einstein", "(about)"));
        // A number that is not in the URL, or a deep item URL.
        assert!(!cont("/", "/item/17", "2"));
        assert!(!cont("/", "/2020/05/12/a-post/", "12"));
        // Another listing's page: the filter of the query dropped, another host.
        assert!(!cont("/search?q=x", "/search?start=20", "Next"));
        assert!(!is_continuation(
            "http://a.test/",
            "http://b.test/page/2/",
            "Next"
        ));
        // A document's "Next" in reading order: the number is part of a name.
        assert!(!cont("/ref/overload1.html", "/ref/overload2.html", "Next"));
        assert!(!cont("/book/ch02.html", "/book/ch03.html", "Next"));
        assert!(!cont("/book/", "/book/ch03.html", "3"));
        // Not the same directory.
        assert!(!cont("/tag/love/", "/tag/life/page/2/", "Next"));
        assert!(!cont("/a/", "/a/", "Next"));
        assert!(!cont("/a/", "/a/b/", ""));
    }

    #[test]
    fn long_or_odd_anchors_are_no_page_label() {
        assert!(!cont("/", "/page/2/", &"next ".repeat(20)));
        assert!(!cont("/", "/page/2/", "1234567"));
        assert!(!cont("/", "/page/0/", "0"));
        assert!(!cont("/", "/page/2/", "next chapter of the story"));
    }
}
