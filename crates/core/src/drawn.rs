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
    /// Characters of visible text outside links (a page's content, not its menus), fetched
    /// and rendered.
    pub content_fetched: usize,
    /// See `content_fetched`.
    pub content_rendered: usize,
    /// Elements, fetched and rendered.
    pub elements_fetched: usize,
    /// See `elements_fetched`.
    pub elements_rendered: usize,
}

impl Difference {
    /// Content scripts draw, outside links: at least this many more characters…
    pub const TEXT_CHARS: usize = 200;
    /// …and at least this share more than the fetched page has (a cookie banner or a date a
    /// script writes is not the page's content).
    pub const TEXT_SHARE: f64 = 0.25;

    /// Whether the rendered page shows content the fetched HTML lacks, enough for a crawl to
    /// miss items by fetching only: text outside links that scripts draw (a list of quotes, a
    /// post's body), or a page whose text scripts at least double, links included (a shell
    /// filled with cards, each a link). Links a script adds to a page that has its content
    /// are not enough: a documentation site's menu and tree of every page are drawn so, and
    /// the pages they name are read from its scripts without rendering
    /// ([`crate::script_links`]).
    pub fn matters(&self) -> bool {
        let content_gain = self.content_rendered.saturating_sub(self.content_fetched);
        (content_gain >= Self::TEXT_CHARS
            && content_gain as f64 >= Self::TEXT_SHARE * self.content_fetched.max(1) as f64)
            || self.text_rendered >= 2 * self.text_fetched + Self::TEXT_CHARS
    }

    /// One line for people: "+10 links, +1,520 characters of text (412 → 1,932)".
    pub fn summary(&self) -> String {
        format!(
            "{} links more (of {}), {} fewer; text {} → {} characters, {} → {} outside links; elements {} → {}",
            self.links_added,
            self.links_fetched,
            self.links_removed,
            self.text_fetched,
            self.text_rendered,
            self.content_fetched,
            self.content_rendered,
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
        content_fetched: fetched.text_chars.saturating_sub(fetched.link_text_chars),
        content_rendered: rendered.text_chars.saturating_sub(rendered.link_text_chars),
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

    /// Whether renders of `url`'s shape have changed something already: every page of it is
    /// rendered from now on, and comparing another one (two parses) decides nothing.
    pub fn settled(&self, url: &str) -> bool {
        self.shapes.get(&shape(url)).is_some_and(|t| t.changed > 0)
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
    fn drawn_content_matters_menus_and_banners_do_not() {
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

        // A shell a script fills with cards, each a link: the text at least doubles.
        let cards: String = (0..12)
            .map(|i| format!("<a href='/p/{i}'><div class=card><h3>Lamp {i}</h3><p>Brass and amber glass</p></div></a>"))
            .collect();
        let shell = page("<h1>Lamps</h1><div id=app></div><script>draw()</script>");
        let filled = page(&format!("<h1>Lamps</h1><div id=app>{cards}</div>"));
        let d = compare(&shell, &filled);
        assert_eq!(d.links_added, 12);
        assert!(
            d.content_rendered < d.content_fetched + 50,
            "{}",
            d.summary()
        );
        assert!(d.matters(), "{}", d.summary());

        // A menu and a tree a script adds to a page that has its content (a documentation
        // page): links and their text, not content; the site's scripts name those pages.
        let body =
            "The class stores the blob's data and its size, and links to the next one. ".repeat(20);
        let many: String = (0..40)
            .map(|i| format!("<a href='/c/{i}'>member{i}</a>"))
            .collect();
        let plain = page(&format!(
            "<h1>Class</h1><p>{body}</p>{many}<script>menu()</script>"
        ));
        let tree: String = (0..150)
            .map(|i| format!("<li><a href='/class{i}.html'>aiClass{i}</a></li>"))
            .collect();
        let menu = page(&format!(
            "<h1>Class</h1><ul class=tree>{tree}</ul><p>{body}</p>{many}"
        ));
        let d = compare(&plain, &menu);
        assert_eq!((d.links_added, d.links_fetched), (150, 40));
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
            content_fetched: 20,
            content_rendered: 3000,
            ..Difference::default()
        };
        assert!(changed.matters());
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
        assert!(ledger.settled("http://s.test/js/page/9"));
        assert!(!ledger.settled("http://s.test/author/z"));
    }
}
