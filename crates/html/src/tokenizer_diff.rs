//! Differential harness for [`super::tokenizer`] and [`super::builder`]: runs our tokenizer and
//! html5ever's own over the same text, each into a fresh `DepthGuard` → `TreeBuilder` → arena
//! chain (so each gets the tree builder's answers — raw-text switches, CDATA — for its own token
//! stream), and compares the token streams (character runs merged, parse errors left out) and the
//! built arenas; then runs our tokenizer into our tree builder and, unless it gave up, compares
//! its arena with html5ever's tree builder's.
//!
//! Test-only in the crate, and public with the feature `tokenizer-diff` for the `tokenizer_diff`
//! fuzz target ([`compare`]).

use std::cell::RefCell;
use std::fmt::Write as _;

use html5ever::TokenizerResult;
use html5ever::interface::TreeSink;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};

use super::builder::FastBuilder;
use super::sink::{Arena, DepthGuard, RawData, Sink};
use super::tokenizer::tokenize;

/// Records the tokens passing through, normalised (adjacent character tokens merged, empty
/// runs and parse errors left out), and forwards every token.
pub(crate) struct Recorder<S> {
    inner: S,
    log: RefCell<Vec<String>>,
    text: RefCell<String>,
}

impl<S> Recorder<S> {
    fn flush(&self) {
        let mut text = self.text.borrow_mut();
        if !text.is_empty() {
            self.log.borrow_mut().push(format!("chars {:?}", *text));
            text.clear();
        }
    }
}

impl<S: TokenSink> TokenSink for Recorder<S> {
    type Handle = S::Handle;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<S::Handle> {
        match &token {
            Token::ParseError(_) => {}
            Token::CharacterTokens(t) => self.text.borrow_mut().push_str(t),
            other => {
                self.flush();
                let entry = match other {
                    Token::TagToken(tag) => {
                        let mut s = format!(
                            "{:?} {} self_closing={} dup={}",
                            tag.kind, &*tag.name, tag.self_closing, tag.had_duplicate_attributes
                        );
                        for a in &tag.attrs {
                            let _ = write!(s, " {}={:?}", &*a.name.local, &*a.value);
                        }
                        s
                    }
                    Token::CommentToken(c) => format!("comment {:?}", &**c),
                    Token::DoctypeToken(d) => format!(
                        "doctype {:?} {:?} {:?} quirks={}",
                        d.name.as_deref(),
                        d.public_id.as_deref(),
                        d.system_id.as_deref(),
                        d.force_quirks
                    ),
                    other => format!("{other:?}"),
                };
                self.log.borrow_mut().push(entry);
            }
        }
        self.inner.process_token(token, line)
    }

    fn end(&self) {
        self.flush();
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

type Chain = Recorder<DepthGuard<TreeBuilder<u32, Sink>>>;

fn chain(max_nodes: usize, cap: u32) -> Chain {
    let builder = TreeBuilder::new(Sink::for_source(max_nodes, 0), TreeBuilderOpts::default());
    Recorder {
        inner: DepthGuard::new(builder, cap),
        log: RefCell::new(Vec::new()),
        text: RefCell::new(String::new()),
    }
}

fn finish(chain: Chain) -> (Vec<String>, Arena) {
    (chain.log.into_inner(), chain.inner.inner.sink.finish())
}

/// Our tokenizer: the normalised token stream and the arena.
pub(crate) fn run_ours(html: &str, max_nodes: usize, cap: u32) -> (Vec<String>, Arena) {
    let sink = chain(max_nodes, cap);
    tokenize(html, &sink);
    finish(sink)
}

/// html5ever's tokenizer, driven as the crate drove it before: the normalised token stream and
/// the arena.
pub(crate) fn run_reference(html: &str, max_nodes: usize, cap: u32) -> (Vec<String>, Arena) {
    let tokenizer = Tokenizer::new(chain(max_nodes, cap), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    finish(tokenizer.sink)
}

/// The arena as text, node by node in creation order (links, names, attributes, text).
pub(crate) fn dump(arena: &Arena) -> String {
    let mut out = String::new();
    for (i, n) in arena.nodes.iter().enumerate() {
        let _ = write!(
            out,
            "{i}: parent {} first {} last {} prev {} next {} ",
            n.parent, n.first_child, n.last_child, n.prev, n.next
        );
        let _ = match &n.data {
            RawData::Document => writeln!(out, "#document"),
            RawData::Other => writeln!(out, "#other"),
            RawData::Text(t) => writeln!(out, "#text {:?}", &**t),
            RawData::Element {
                name,
                attrs,
                template,
            } => {
                let _ = write!(out, "<{} {}> template {template}", &*name.ns, &*name.local);
                for a in attrs {
                    let _ = write!(out, " {}|{}={:?}", &*a.name.ns, &*a.name.local, &*a.value);
                }
                writeln!(out)
            }
        };
    }
    let _ = writeln!(
        out,
        "form owners {:?} overflow {}",
        arena.form_owners, arena.overflow
    );
    out
}

/// Whether both tokenizers give the same tokens and the same arena for `html` (node cap
/// `max_nodes`, depth guard cap `cap`), and our tree builder html5ever's arena unless it gave
/// up: `Ok(true)` when it built the page, `Ok(false)` when it gave up, the first difference
/// otherwise.
pub fn compare(html: &str, max_nodes: usize, cap: u32) -> Result<bool, String> {
    let (ref_tokens, ref_arena) = run_reference(html, max_nodes, cap);
    let (our_tokens, our_arena) = run_ours(html, max_nodes, cap);
    if ref_tokens != our_tokens {
        let i = ref_tokens
            .iter()
            .zip(&our_tokens)
            .take_while(|(a, b)| a == b)
            .count();
        return Err(format!(
            "token {i} differs (cap {cap}):\n  html5ever: {:?}\n  ours:      {:?}",
            ref_tokens.get(i),
            our_tokens.get(i)
        ));
    }
    same_arenas("arena", cap, &ref_arena, &our_arena)?;
    let Some(fast) = run_fast(html, max_nodes, cap) else {
        return Ok(false);
    };
    same_arenas("our tree builder's arena", cap, &our_arena, &fast)?;
    Ok(true)
}

/// `Ok` when the arenas are the same node for node, else their first differing line.
fn same_arenas(what: &str, cap: u32, reference: &Arena, ours: &Arena) -> Result<(), String> {
    let (a, b) = (dump(reference), dump(ours));
    if a == b {
        return Ok(());
    }
    let line = a.lines().zip(b.lines()).find(|(x, y)| x != y);
    Err(format!(
        "{what} differs (cap {cap}): {line:?} ({} / {} lines)",
        a.lines().count(),
        b.lines().count()
    ))
}

/// Our tokenizer into our tree builder: the arena, or `None` when the builder gave up.
pub(crate) fn run_fast(html: &str, max_nodes: usize, cap: u32) -> Option<Arena> {
    let sink = DepthGuard::new(FastBuilder::new(Sink::for_source(max_nodes, 0)), cap);
    tokenize(html, &sink);
    sink.inner.finish()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    use super::*;
    use crate::page::{page_from_arena, parse_html, tree_builder};
    use crate::{Page, ParseOptions};

    const URL: &str = "http://example.com/dir/page.html";

    /// Both tokenizers through the whole product path: the `Page` JSON must be byte-identical.
    fn compare_pages(html: &str) -> Result<(), String> {
        let opts = ParseOptions::default();
        let ours = Page::from_html(html, URL).map_err(|e| format!("ours failed: {e:?}"))?;
        let guard = tree_builder(&opts, html.len());
        let tokenizer = Tokenizer::new(guard, TokenizerOpts::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from(html));
        while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
        tokenizer.end();
        let arena = tokenizer.sink.inner.sink.finish();
        let reference = page_from_arena(&arena, URL, &opts);
        let a = serde_json::to_string(&reference).map_err(|e| e.to_string())?;
        let b = serde_json::to_string(&ours).map_err(|e| e.to_string())?;
        if a != b {
            let i = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            let from = i.saturating_sub(80);
            return Err(format!(
                "page JSON differs at byte {i}:\n  html5ever: {:?}\n  ours:      {:?}",
                a.get(from..(i + 80).min(a.len())),
                b.get(from..(i + 80).min(b.len()))
            ));
        }
        // parse_html is what Page::from_html ran; its arena must match the reference's too.
        let ours_arena = parse_html(html, &opts);
        if dump(&ours_arena) != dump(&arena) {
            return Err("arena differs".into());
        }
        Ok(())
    }

    fn check(html: &str) {
        for cap in [2048, 3] {
            if let Err(e) = compare(html, 1 << 20, cap) {
                panic!("{e}\ninput: {html:?}");
            }
        }
        if let Err(e) = compare_pages(html) {
            panic!("{e}\ninput: {html:?}");
        }
    }

    #[test]
    fn hand_written_edge_cases() {
        let cases = [
            "",
            "\u{feff}<p>bom",
            "\u{feff}\u{feff}x",
            // html5ever drops a U+FEFF right after a tag at which its tokenizer returns to the
            // driver (a script's end, a charset declaration), and only there.
            "<script>x</script>\u{feff}y",
            "<script>x</script>\u{feff}\u{feff}y",
            "<meta charset=utf-8>\u{feff}y",
            "<head><meta http-equiv=content-type content='text/html; charset=utf-8'>\u{feff}y",
            "<p>\u{feff}y</p><b>\u{feff}</b>",
            "<script>x</script >\u{feff}<style>\u{feff}</style>",
            "plain text",
            "a\r\nb\rc\n\rd\r",
            "<p>a\r\n<b\r\nclass='x\r\ny'\r>",
            "<",
            "<a",
            "</",
            "</>x",
            "<pre></>\nx",
            "<pre>\nx",
            "<pre>\r\nx",
            "<pre>&#10x",
            "<pre>&#10;x",
            "<pre>&NewLine;x",
            "<pre>&#10",
            "<textarea>&#10x</textarea>",
            "<textarea>\nx</textarea>",
            "<listing>&#xa</listing>",
            "<pre><!---->\nx",
            "<pre><a b=&#10 c d c>\nx",
            "<div><div><pre><b a a>\nx",
            "<div><div><pre><b a=\"\0\">\nx",
            "<div><div><pre><b\0>\nx",
            "<div><div><pre><b a=x\"y>\nx",
            "<div><div><pre><b a=\"x\"c>\nx",
            "<div><div><pre><b/c>\nx",
            "<div><div><pre><b a=>\nx",
            "<div><div><pre><b =a>\nx",
            "<div><div><pre><b a&lt;>\nx",
            "<div><div><pre><b a='&#0;'>\nx",
            "<div><div><pre><b a='&#'>\nx",
            "<div><div><pre><b a='&xyz;'>\nx",
            "<div><div><pre><b a='&amp'>\nx",
            "<div><div><pre><b a='&ampx'>\nx",
            "< p>",
            "<?php echo 1 ?>",
            "</ p>",
            "<!>",
            "<!-->",
            "<!--->",
            "<!---->",
            "<!-- a -- b --!> c -->",
            "<!-- a --!x -->",
            "<!-- a --!-->",
            "<!--a---->",
            "<!--<!-- nested --> -->",
            "<!--<!-->",
            "<!--\0-->",
            "<!-",
            "<!--",
            "<!--x--",
            "<!--x--!",
            "<![CDATA[x]]>",
            "<svg><![CDATA[a]b]]c]]]>d]]></svg>",
            "<svg><![CDATA[a\0b]]></svg>",
            "<svg><![CDATA[]]></svg>",
            "<svg><![CDATA[x",
            "<svg><![CDATA[x]",
            "<svg><![CDATA[x]]",
            "<math><mi><![CDATA[x]]></mi></math>",
            "<svg>x<![CDATA[y]]></svg>",
            "<!DOCTYPE html>",
            "<!doctype html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">",
            "<!DOCTYPE html SYSTEM 'about:legacy-compat'>",
            "<!DOCTYPE>",
            "<!DOCTYPE",
            "<!DOCTYPE ",
            "<!DOCTYPE\0x>",
            "<!DOCTYPE HtMl>",
            "<!DOCTYPE html PUBLIC>",
            "<!DOCTYPE html PUBLIC\"x\">",
            "<!DOCTYPE html PUBLIC 'x'\"y\">",
            "<!DOCTYPE html PUBLIC 'x' 'y' z>",
            "<!DOCTYPE html PUBLIC 'x>",
            "<!DOCTYPE html SYSTEM \"y\" junk>",
            "<!DOCTYPE html junk>",
            "<!DOCTYPE html pub",
            "<!DOCTYPE html public \"a\0b\" \"c\0\"",
            "<p>&amp; &amp &ampx &notin; &notit; &noti; &not &#x41; &#65 &#X41; &#; &#x; &#xZ",
            "&#0; &#128; &#x80; &#x81; &#x9F; &#xD800; &#x110000; &#99999999999; &#13; &#xFFFE; &#x1F;",
            "<a href='?a=1&copy=2&copy;&copyx&amp=&lt'>",
            "<a href=x&amp;y&notin z>",
            "&CounterClockwiseContourIntegral; &CounterClockwiseContourIntegra",
            "&",
            "&#",
            "&#x",
            "&am",
            "&amp",
            "<title>a &amp; <b> </title> </titlex> </title >",
            "<title>x</TITLE>y",
            "<textarea>a</textarea x=y>b",
            "<textarea>a</textarea/>b",
            "<textarea>a</textarea",
            "<textarea>a</textare",
            "<textarea>a</",
            "<textarea>a<",
            "<style>a</b></style>",
            "<style>\0</style>",
            "<xmp><b></xmp>",
            "<script>a<b</script>",
            "<script><!--</script>x",
            "<script><!-- <script> </script> --></script>x",
            "<script><!-- <script> </script> </script>x",
            "<script><!--<script>-</script>--></script>x",
            "<script><!--<ScRiPt>--x</script>",
            "<script><!--<scripty></script>x",
            "<script><!--<script/></script>x",
            "<script><!-- -<x ---> </script>",
            "<script><!-- --\0 -\0 \0 </script>",
            "<script><!- </script>",
            "<script><!</script>",
            "<script><!--",
            "<script><!--<",
            "<script><!--<s",
            "<script><!--<script>",
            "<script><!--<script><",
            "<script><!--<script></",
            "<script><!--<script></scr",
            "<script><!--<script>-",
            "<script><!--<script>--",
            "<script><!---",
            "<script><!----",
            "<script></script",
            "<script></scrip",
            "<script>\0</script>",
            "<plaintext><b>&amp;\0</plaintext>",
            "<noscript><b></noscript>",
            "<iframe><b></iframe>",
            "<noembed><b></noembed>",
            "<noframes><b></noframes>",
            "<a b c=d e='f' g=\"h\" i=j/ k/>",
            "<a b=\"1\" B=\"2\" b='3'>",
            "<A HREF=X>",
            "<a\0b c\0d=e\0f>",
            "<a b='\0'>",
            "<a b=\0>",
            "<a/b/c/>",
            "<br/>",
            "<p =x>",
            "<p \"a\" 'b' <c>",
            "<p a=`b` c=d=e f=<>",
            "<p a='b'c=d>",
            "<p a",
            "<p a=",
            "<p a='",
            "<p a=b",
            "<p/",
            "<p a/",
            "<table>x<tr> y<td>z</table>",
            "<table>\0<tr>\0<td>\0</table>",
            "<select>\0<option>a\0</select>",
            "<svg>\0<foreignObject>\0</svg>",
            "<template>\0x</template>",
            "<frameset>x\0 </frameset>",
            "<p>é\u{10000}<b é=é>é</b>",
            "<div>&notin;é&eacute;</div>",
            "a\0b",
            "<svg><path/><p>x</svg>",
            "<math><annotation-xml encoding='text/html'><![CDATA[x]]></math>",
        ];
        for c in cases {
            check(c);
        }
    }

    #[test]
    fn select_documents_are_built_by_our_builder() {
        // html5ever 0.40 has no "in select" mode; our builder follows its in-body rules for
        // `select`, `option` and `optgroup` (and `input` and `hr` inside a select).
        for c in [
            "<form><select name=s><option value=1>a<option selected>b</option><optgroup label=g><option>c</optgroup></select></form>",
            "<select><select>x<option>y",
            "<select><option>a<input name=i>b<hr>c</select>",
            "<p>a<select><option>b</p>c<option>d<div>e</div></select>",
            "<ul><li><select><li>x</select>",
            "<table><tr><td><select><option>a</td><td>b</table>",
            "<option>a<option>b<optgroup>c<option>d",
            "<b><select><option>x</b>y</select>z",
        ] {
            assert_eq!(compare(c, 1 << 20, 2048), Ok(true), "{c:?}");
        }
    }

    /// Fragments that matter to the tokenizer and tree builder (and a few that do not).
    const FRAGMENTS: &[&str] = &[
        "<",
        "</",
        ">",
        "/>",
        "<!--",
        "-->",
        "--!>",
        "-",
        "--",
        "!",
        "<!",
        "<!DOCTYPE",
        "<![CDATA[",
        "]]>",
        "]",
        "?",
        "&amp",
        "&amp;",
        "&#x",
        "&#",
        "&notin",
        "&noti;",
        "&not",
        "&#10",
        "&#x0a;",
        "&NewLine;",
        ";",
        "=",
        "\"",
        "'",
        "`",
        "\0",
        "\r",
        "\r\n",
        "\n",
        "\t",
        " ",
        "  ",
        "a",
        "A",
        "x1",
        "é",
        "😀",
        "/",
        "script",
        "SCRIPT",
        "style",
        "title",
        "textarea",
        "plaintext",
        "xmp",
        "svg",
        "math",
        "pre",
        "listing",
        "p",
        "b",
        "table",
        "td",
        "select",
        "template",
        "html",
        "body",
        "head",
        "<!--<script>",
        "</script",
        "<script>",
        "</script>",
        "<svg>",
        "</svg>",
        "<math>",
        "<mi>",
        "<pre>",
        "<textarea>",
        "<title>",
        "<style>",
        "<table>",
        "<select>",
        "<template>",
        "<p>",
        "<b>",
        "</b>",
        "<a href=",
        "public",
        "SYSTEM",
        "html",
        "0",
        "9",
        "f",
        "F",
        "&#x80",
        "&#150;",
        "&#x9F",
        "&#0",
        "&#xD800;",
        "&#x10FFFF;",
        "&#1114112",
        "&#13;",
        "&lt",
        "&lt;",
        "&copy",
        "&eacute;",
        "&AMP;",
        "&ampx",
        "&amp=",
    ];

    /// Strings of up to 40 of `fragments`.
    fn string_of(fragments: &'static [&'static str]) -> impl Strategy<Value = String> {
        proptest::collection::vec(0..fragments.len(), 0..40)
            .prop_map(move |ix| ix.into_iter().map(|i| fragments[i]).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6000, ..ProptestConfig::default() })]
        #[test]
        fn random_fragment_strings_agree(html in string_of(FRAGMENTS)) {
            for cap in [2048, 3] {
                prop_assert!(compare(&html, 1 << 20, cap).is_ok(), "{:?}: {:?}", html, compare(&html, 1 << 20, cap));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
        #[test]
        fn random_strings_agree(html in "[<>/!?=&#;\"' a-zA-Z0-9\\-\\[\\]\0\r\n\té]{0,60}") {
            prop_assert!(compare(&html, 1 << 20, 2048).is_ok(), "{:?}: {:?}", html, compare(&html, 1 << 20, 2048));
        }
    }

    /// Whole tags and text for the tree builders: the paths our builder follows (implied
    /// elements, implied end tags, formatting elements, forms, tables, SVG) and ones where it
    /// gives up (misnesting, foster parenting, `template`, HTML inside SVG).
    const TREE_FRAGMENTS: &[&str] = &[
        "<!DOCTYPE html>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"x\">",
        "<html lang=en>",
        "</html>",
        "<head>",
        "</head>",
        "<body class=b>",
        "</body>",
        "<title>T</title>",
        "<meta charset=utf-8>",
        "<link rel=x href=y>",
        "<script>var a = '<p>';</script>",
        "<style>p{}</style>",
        "<noscript><p>n</noscript>",
        "<!-- c -->",
        "text",
        " ",
        "\n",
        "\0",
        "<p>",
        "</p>",
        "<div class=d>",
        "</div>",
        "<span>",
        "</span>",
        "<x>",
        "</x>",
        "<ul>",
        "</ul>",
        "<ol>",
        "<li>",
        "</li>",
        "<dl>",
        "<dt>",
        "<dd>",
        "</dd>",
        "<h1>",
        "</h1>",
        "<h2>",
        "</h3>",
        "<pre>",
        "</pre>",
        "<listing>",
        "<a href=x>",
        "</a>",
        "<b>",
        "</b>",
        "<em>",
        "</em>",
        "<code>",
        "</code>",
        "<br>",
        "</br>",
        "<img src=i>",
        "<hr>",
        "<form action=f>",
        "</form>",
        "<input name=q>",
        "<input type=hidden form=f2>",
        "<button>",
        "</button>",
        "<textarea>\nt</textarea>",
        "<xmp>x</xmp>",
        "<table>",
        "</table>",
        "<caption>",
        "</caption>",
        "<colgroup>",
        "<col>",
        "</colgroup>",
        "<tbody>",
        "</tbody>",
        "<thead>",
        "<tr>",
        "</tr>",
        "<td>",
        "</td>",
        "<th>",
        "</th>",
        "<svg viewbox='0 0 1 1' xmlns:xlink=x>",
        "<path d=M0/>",
        "<clippath>",
        "</clipPath>",
        "</svg>",
        "<select name=s>",
        "</select>",
        "<option value=o>",
        "</option>",
        "<optgroup label=g>",
        "</optgroup>",
        // Paths our builder leaves to html5ever.
        "<foreignObject>",
        "<nobr>",
        "<template>",
        "<object>",
        "<frameset>",
    ];

    /// How many of [`TREE_FRAGMENTS`] (the last ones) always make our builder give up.
    const GIVE_UP_FRAGMENTS: usize = 5;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6000, ..ProptestConfig::default() })]
        #[test]
        fn random_documents_build_html5evers_tree(html in string_of(TREE_FRAGMENTS)) {
            for cap in [2048, 3] {
                prop_assert!(compare(&html, 1 << 20, cap).is_ok(), "{:?}: {:?}", html, compare(&html, 1 << 20, cap));
            }
        }
    }

    /// Random documents made of the fragments our builder follows reach its paths: it builds
    /// most of them rather than giving up (on misnesting, foster parenting) on nearly all,
    /// which would leave the comparisons above empty.
    #[test]
    fn our_tree_builder_builds_most_random_documents() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = string_of(&TREE_FRAGMENTS[..TREE_FRAGMENTS.len() - GIVE_UP_FRAGMENTS]);
        let (mut built, n) = (0, 3000);
        for _ in 0..n {
            let html = strategy
                .new_tree(&mut runner)
                .expect("a document")
                .current();
            built += usize::from(compare(&html, 1 << 20, 2048).expect("same tree"));
        }
        eprintln!("our tree builder built {built} of {n} random documents");
        assert!(built * 2 >= n, "built only {built} of {n}");
    }

    fn html_files(root: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(root) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                html_files(&p, out);
            } else if p
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"))
            {
                out.push(p);
            }
        }
    }

    /// Every page of a dev site: same tokens, same arena, same `Page` JSON. Skipped (with a
    /// note) when the site is not installed.
    fn site(root: &str) {
        let mut files = Vec::new();
        html_files(Path::new(root), &mut files);
        if files.is_empty() {
            eprintln!("{root}: not installed, skipped");
            return;
        }
        files.sort();
        let mut built = 0;
        for f in &files {
            let bytes = std::fs::read(f).expect("readable page");
            let html = String::from_utf8_lossy(&bytes);
            let max_nodes = ParseOptions::default().max_nodes;
            let r = compare(&html, max_nodes, 2048)
                .and_then(|fast| compare_pages(&html).map(|()| fast));
            match r {
                Ok(fast) => built += usize::from(fast),
                Err(e) => panic!("{}: {e}", f.display()),
            }
        }
        eprintln!(
            "{root}: {} pages identical; our tree builder built {built} of them",
            files.len()
        );
        // Documentation generators' pages take the common paths: html5ever's builder is the
        // exception (PostgreSQL's 11 of 1,169 pages with misnested links, or `<object>`).
        assert!(
            built * 50 >= files.len() * 49,
            "{root}: our tree builder built only {built} of {} pages",
            files.len()
        );
    }

    #[test]
    fn dev_site_python() {
        site("/usr/share/doc/python3.11/html");
    }

    #[test]
    fn dev_site_postgresql() {
        site("/usr/share/doc/postgresql-doc-15/html");
    }

    #[test]
    fn dev_site_sfml() {
        site("/usr/share/doc/libsfml-dev/html");
    }

    #[test]
    fn dev_site_commons_lang() {
        site("/usr/share/doc/libcommons-lang3-java/api");
    }

    /// Every page of the other sites of `eval/*.toml` (training, further and held-out sites:
    /// Boost, GTK 4, Qt 5, Rust's documentation, …), as for the dev sites above. Their packages
    /// are installed by `./build.sh eval`, not by setup, hence ignored by default; run with
    /// `cargo test --release --lib other_doc_sites -- --ignored --nocapture` (a few minutes).
    #[test]
    #[ignore = "needs the site packages ./build.sh eval installs"]
    fn other_doc_sites_build_html5evers_trees() {
        use exemplar_testkit::devsites::{DEFAULT_SITES, HELDOUT_SITES, TRAIN_SITES, load};
        let sites = |path: &str| load(Path::new(path)).expect("a site list of eval/");
        let dev: Vec<PathBuf> = sites(DEFAULT_SITES).into_iter().map(|s| s.root).collect();
        let mut roots: Vec<PathBuf> = Vec::new();
        for site in sites(TRAIN_SITES).into_iter().chain(sites(HELDOUT_SITES)) {
            if !dev.contains(&site.root) && !roots.contains(&site.root) {
                roots.push(site.root);
            }
        }
        assert!(roots.len() >= 10, "roots read from eval/*.toml: {roots:?}");
        for root in &roots {
            site(&root.to_string_lossy());
        }
    }
}
