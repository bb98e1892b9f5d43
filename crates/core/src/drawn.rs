//! Script-drawn pages: whether a page's fetched HTML lacks what its rendered DOM shows, and
//! which pages of a run are worth rendering. Sans-IO: the driver renders (headless Chromium in
//! the CLI, a background tab in the extension) and hands both versions here.
//!
//! Contract:
//! - [`may_be_drawn`] is a cheap test on the fetched bytes: a page with no script that runs
//!   (JSON-LD and templates do not) is the same rendered, and is never rendered.
//! - [`compare`] says how the rendered page differs from the fetched one in what a crawl uses:
//!   same-site links and visible text (the items a listing draws, a post's body). The example's
//!   comparison decides whether a run renders at all ([`Difference::matters`]).
//! - [`Ledger`] learns per shape of URL (`/author/*`, `/js/page/*`) whether rendering changes
//!   anything: after [`Ledger::PROBES`] renders of a shape that changed nothing, its pages are
//!   fetched only. Rendering costs a browser's page load; most pages of most sites need none.
use std::collections::HashMap;

use exemplar_html::Page;

/// What a button that loads a list's next items says (`data/load-more-words.txt`): lower-case
/// phrases a rendered page's "load more" button begins with.
pub fn load_more_words() -> Vec<&'static str> {
    include_str!("../../../data/load-more-words.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Whether `html` has a script that runs: an inline or external `<script>` whose type is empty
/// or JavaScript (`module` included). JSON-LD, JSON and template types do not run.
pub fn may_be_drawn(html: &[u8]) -> bool {
    let mut rest = html;
    while let Some(at) = find_ci(rest, b"<script") {
        let after = &rest[at + 7..];
        // `<scripts>` or `<script-x>` is another element.
        if after
            .first()
            .is_some_and(|b| !(b.is_ascii_whitespace() || *b == b'>' || *b == b'/'))
        {
            rest = after;
            continue;
        }
        // A tag cut off by the end of the page makes no element.
        let Some(end) = after.iter().position(|b| *b == b'>') else {
            return false;
        };
        if runs(&after[..end]) {
            return true;
        }
        rest = &after[end..];
    }
    false
}

/// Whether a script element with these attributes runs (HTML's "classic" and "module" types).
fn runs(attrs: &[u8]) -> bool {
    let Some(at) = find_ci(attrs, b"type") else {
        return true;
    };
    let value = attrs[at + 4..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace() || **b == b'=')
        .skip_while(|b| **b == b'"' || **b == b'\'')
        .take_while(|b| !(b.is_ascii_whitespace() || **b == b'"' || **b == b'\'' || **b == b'>'))
        .map(u8::to_ascii_lowercase)
        .collect::<Vec<u8>>();
    value.is_empty()
        || value == b"module"
        || value.ends_with(b"javascript")
        || value.ends_with(b"ecmascript")
        || value == b"text/jscript"
}

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// How a page's rendered DOM differs from its fetched HTML.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Difference {
    /// Same-site links (URLs, fragment dropped) the rendered page has and the fetched one lacks.
    pub links_added: usize,
    /// Same-site links the fetched page has and the rendered one lacks.
    pub links_removed: usize,
    /// Same-site links of the fetched page.
    pub links_fetched: usize,
    /// Characters of visible text, fetched and rendered.
    pub text_fetched: usize,
    /// See `text_fetched`.
    pub text_rendered: usize,
    /// Elements, fetched and rendered.
    pub elements_fetched: usize,
    /// See `elements_fetched`.
    pub elements_rendered: usize,
}

impl Difference {
    /// Links that scripts add and a crawl would follow: at least this many new same-site links
    /// (one is often a "skip to content" or a login link a script writes)…
    pub const LINKS: usize = 3;
    /// …and at least this share of the links the fetched page has (a menu a script builds on
    /// every page of a documentation site adds a few links to many; a listing drawn by
    /// scripts, most of its links).
    pub const LINKS_SHARE: f64 = 0.5;
    /// Visible text scripts draw: at least this many more characters…
    pub const TEXT_CHARS: usize = 200;
    /// …and at least this share more than the fetched page has (a cookie banner or a date a
    /// script writes is not the page's content).
    pub const TEXT_SHARE: f64 = 0.25;

    /// Whether the rendered page shows links or content the fetched HTML lacks, enough for a
    /// crawl to miss items by fetching only.
    pub fn matters(&self) -> bool {
        let text_gain = self.text_rendered.saturating_sub(self.text_fetched);
        (self.links_added >= Self::LINKS
            && self.links_added as f64 >= Self::LINKS_SHARE * self.links_fetched as f64)
            || (text_gain >= Self::TEXT_CHARS
                && text_gain as f64 >= Self::TEXT_SHARE * self.text_fetched.max(1) as f64)
    }

    /// One line for people: "+10 links, +1,520 characters of text (412 → 1,932)".
    pub fn summary(&self) -> String {
        format!(
            "{} links more, {} fewer; text {} → {} characters; elements {} → {}",
            self.links_added,
            self.links_removed,
            self.text_fetched,
            self.text_rendered,
            self.elements_fetched,
            self.elements_rendered
        )
    }
}

/// Compares the page as fetched with the page as rendered (both parsed at the same URL).
pub fn compare(fetched: &Page, rendered: &Page) -> Difference {
    let links = |p: &Page| -> std::collections::HashSet<String> {
        p.same_site_links().map(|l| l.url.clone()).collect()
    };
    let (f, r) = (links(fetched), links(rendered));
    Difference {
        links_added: r.difference(&f).count(),
        links_removed: f.difference(&r).count(),
        links_fetched: f.len(),
        text_fetched: fetched.text_chars,
        text_rendered: rendered.text_chars,
        elements_fetched: fetched.tree.len(),
        elements_rendered: rendered.tree.len(),
    }
}

/// The shape of a URL for [`Ledger`]: its host and path with the last segment a wildcard
/// (`/author/Albert-Einstein/` → `/author/*`, `/js/page/2/` → `/js/page/*`, `/` → `/`). The
/// pages of one template mostly share it.
pub fn shape(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return url.to_string();
    };
    let segments: Vec<&str> = u.path().split('/').filter(|s| !s.is_empty()).collect();
    let host = u.host_str().unwrap_or("");
    match segments.split_last() {
        None => format!("{host}/"),
        Some((_, [])) => format!("{host}/*"),
        Some((_, parents)) => format!("{host}/{}/*", parents.join("/")),
    }
}

/// What rendering has changed, shape by shape.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    shapes: HashMap<String, Tally>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    rendered: u32,
    changed: u32,
}

impl Ledger {
    /// Renders of a shape that change nothing before its pages are fetched only.
    pub const PROBES: u32 = 3;

    /// An empty ledger.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Whether the page at `url`, fetched as `html`, should be rendered.
    pub fn wants(&self, url: &str, html: &[u8]) -> bool {
        if !may_be_drawn(html) {
            return false;
        }
        match self.shapes.get(&shape(url)) {
            Some(t) => t.changed > 0 || t.rendered < Self::PROBES,
            None => true,
        }
    }

    /// Records a render of `url` and how it differed.
    pub fn record(&mut self, url: &str, difference: &Difference) {
        let t = self.shapes.entry(shape(url)).or_default();
        t.rendered += 1;
        if difference.matters() {
            t.changed += 1;
        }
    }

    /// The shapes no longer rendered (probed, never changed), sorted.
    pub fn fetched_only(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .shapes
            .iter()
            .filter(|(_, t)| t.changed == 0 && t.rendered >= Self::PROBES)
            .map(|(s, _)| s.clone())
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Page {
        Page::from_html(html, "http://s.test/js/").expect("parses")
    }

    #[test]
    fn load_more_words_are_lower_case_phrases() {
        let words = load_more_words();
        assert!(words.contains(&"load more") && words.contains(&"加载更多"));
        assert!(
            words
                .iter()
                .all(|w| w.to_lowercase() == *w && !w.contains("  "))
        );
    }

    #[test]
    fn scripts_that_run_are_told_from_data() {
        assert!(may_be_drawn(
            b"<p>x</p><script>document.write('a')</script>"
        ));
        assert!(may_be_drawn(b"<SCRIPT src=/app.js></SCRIPT>"));
        assert!(may_be_drawn(b"<script type=\"module\" src=a.js></script>"));
        assert!(may_be_drawn(b"<script type='text/javascript'>x()</script>"));
        assert!(!may_be_drawn(b"<p>no script</p>"));
        assert!(!may_be_drawn(
            b"<script type=\"application/ld+json\">{\"@type\":\"Product\"}</script>"
        ));
        assert!(!may_be_drawn(b"<script type=text/template><p></script>"));
        assert!(!may_be_drawn(b"<scripts>not one</scripts>"));
        assert!(!may_be_drawn(b"<script"));
    }

    #[test]
    fn drawn_items_and_links_matter_a_banner_does_not() {
        let fetched = page("<h1>Quotes</h1><script>draw()</script><a href='/js/page/2/'>Next</a>");
        let items: String = (0..10)
            .map(|i| format!("<div class=quote><span>Quote number {i} with some words in it, long enough to count</span></div>"))
            .collect();
        let drawn = page(&format!(
            "<h1>Quotes</h1>{items}<a href='/js/page/2/'>Next</a>"
        ));
        let d = compare(&fetched, &drawn);
        assert_eq!(d.links_added, 0);
        assert!(d.text_rendered > d.text_fetched + 500, "{d:?}");
        assert!(d.matters(), "{}", d.summary());

        let links = page(
            "<h1>Quotes</h1><a href='/js/page/2/'>Next</a><a href='/a/1'>1</a><a href='/a/2'>2</a><a href='/a/3'>3</a>",
        );
        let d = compare(&fetched, &links);
        assert_eq!(d.links_added, 3);
        assert!(d.matters());

        // A menu a script adds to a page of many links is chrome, not the page's items.
        let many: String = (0..40)
            .map(|i| format!("<a href='/c/{i}'>c{i}</a>"))
            .collect();
        let plain = page(&format!("<h1>Class</h1>{many}<script>menu()</script>"));
        let menu = page(&format!(
            "<h1>Class</h1><a href='/'>Main</a><a href='/files'>Files</a><a href='/classes'>Classes</a>{many}"
        ));
        let d = compare(&plain, &menu);
        assert_eq!((d.links_added, d.links_fetched), (3, 40));
        assert!(!d.matters(), "{}", d.summary());

        let long = "words of the page ".repeat(100);
        let article = page(&format!("<article>{long}</article><script>x()</script>"));
        let banner = page(&format!(
            "<article>{long}</article><div>We use cookies to improve the site; accept them or leave them, as you like; the choice is yours and we respect it, always and everywhere, today.</div>"
        ));
        let d = compare(&article, &banner);
        assert!(!d.matters(), "{}", d.summary());
        assert!(!compare(&fetched, &fetched).matters());
    }

    #[test]
    fn shapes_wildcard_the_last_segment() {
        assert_eq!(
            shape("http://s.test/author/Albert-Einstein/"),
            "s.test/author/*"
        );
        assert_eq!(shape("http://s.test/js/page/2/"), "s.test/js/page/*");
        assert_eq!(shape("http://s.test/js/"), "s.test/*");
        assert_eq!(shape("http://s.test/"), "s.test/");
        assert_eq!(shape("not a url"), "not a url");
    }

    #[test]
    fn the_ledger_stops_rendering_a_shape_that_never_changes() {
        let script = b"<script>x()</script>";
        let mut ledger = Ledger::new();
        let same = Difference::default();
        let changed = Difference {
            links_added: 5,
            ..Difference::default()
        };
        assert!(!ledger.wants("http://s.test/author/a", b"<p>static</p>"));
        for i in 0..Ledger::PROBES {
            let url = format!("http://s.test/author/{i}");
            assert!(ledger.wants(&url, script));
            ledger.record(&url, &same);
        }
        assert!(!ledger.wants("http://s.test/author/z", script));
        assert_eq!(ledger.fetched_only(), vec!["s.test/author/*".to_string()]);
        for i in 0..Ledger::PROBES {
            let url = format!("http://s.test/js/page/{i}");
            ledger.record(&url, if i == 0 { &changed } else { &same });
        }
        assert!(ledger.wants("http://s.test/js/page/9", script));
    }
}
