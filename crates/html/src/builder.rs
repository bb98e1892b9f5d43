//! Tree construction for the common case, in front of html5ever's tree builder.
//!
//! Why this file is long (~2,200 lines): one state machine, the HTML standard's insertion modes
//! this builder handles, with the checks that hand a document to html5ever's builder; the modes
//! read best side by side.
//!
//! Owns building the arena from tokens for documents that only take the well-trodden paths of
//! the WHATWG tree-construction algorithm: implied `html`/`head`/`body`, head elements, raw
//! text, block and inline elements, implied end tags (`p`, `li`, `dd`, `dt`), properly nested
//! formatting elements, forms and their controls (`select` as html5ever 0.40 parses it, with
//! no insertion mode of its own), tables without misplaced content, and inline SVG icons. It
//! follows html5ever 0.40's rules line by line for those paths and calls the same [`Sink`]
//! methods in the same order, so the arena is the one html5ever would build. At the
//! first token that would take any other path — misnested formatting elements (the adoption
//! agency's re-parenting, reconstruction), foster parenting, `template`, MathML, HTML
//! inside SVG, framesets, ruby, a `<table>` inside a `<p>` under a doctype whose quirks mode is
//! not worked out here — it gives up, and the caller parses the page again with html5ever's tree
//! builder ([`super::page::parse_html`]).
//!
//! It exists for speed: html5ever's tree builder asks the sink for element names at every
//! scope check and clones each formatting tag (attributes included) into its list of active
//! formatting elements; this one keeps names beside the handles and no tags. Mapping the
//! PostgreSQL documentation runs 2.42 G instructions with it against 2.63 G with html5ever's
//! builder alone (`./build.sh bench-instructions`). The differential tests (`tokenizer_diff`,
//! its fuzz target, and every page of the development sites) compare both builders' arenas.

use std::cell::{Cell, RefCell};
use std::mem;

use html5ever::interface::tree_builder::{NodeOrText, TreeSink, create_element_with_flags};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName, QualName, local_name, namespace_prefix, ns};

use super::sink::{Arena, Sink};

/// The builder gave up: the page takes a path it does not follow.
#[derive(Debug)]
struct Unsupported;

type Res<T> = Result<T, Unsupported>;

/// The insertion modes followed (html5ever's names).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    AfterHead,
    InBody,
    Text,
    InTable,
    InTableText,
    InCaption,
    InColumnGroup,
    InTableBody,
    InRow,
    InCell,
    AfterBody,
    AfterAfterBody,
}

/// Whether a character token has been split into a whitespace run and the rest.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Run {
    Unsplit,
    Whitespace,
    NotWhitespace,
}

/// A token as the modes see it.
enum Tok {
    Tag(Tag),
    Comment(StrTendril),
    Chars(Run, StrTendril),
    Null,
    Eof,
}

/// What a mode did with a token.
enum Step {
    Done,
    /// Switch to the mode and process the token again.
    Again(Mode, Tok),
    /// Process the leading run of whitespace or non-whitespace, then the rest.
    SplitWhitespace(StrTendril),
    /// Stop and tell the tokenizer (raw text states, a finished script).
    Out(TokenSinkResult<u32>),
}

/// The tree-construction state (html5ever's, less what the followed paths never use).
struct State {
    mode: Mode,
    orig_mode: Option<Mode>,
    /// Open elements with their local names: in the HTML namespace, except from `svg_from` up.
    open: Vec<(u32, LocalName)>,
    /// Active formatting elements; `None` is a marker.
    formatting: Vec<Option<(u32, LocalName)>>,
    head: Option<u32>,
    form: Option<u32>,
    /// Whether the document is in quirks mode; `None` when its doctype is one whose mode is not
    /// worked out here (it matters only to a `<table>` inside a `<p>`).
    quirks: Option<bool>,
    ignore_lf: bool,
    pending_table_text: Vec<(Run, StrTendril)>,
    /// Index in `open` of the outermost open `svg` element: the elements from there up are
    /// in the SVG namespace, and tokens go to the foreign-content rules.
    svg_from: Option<usize>,
}

/// The token sink: tree construction into a [`Sink`] until it gives up.
pub(crate) struct FastBuilder {
    sink: Sink,
    state: RefCell<State>,
    gave_up: Cell<bool>,
}

impl FastBuilder {
    pub fn new(sink: Sink) -> Self {
        FastBuilder {
            sink,
            state: RefCell::new(State {
                mode: Mode::Initial,
                orig_mode: None,
                open: Vec::new(),
                formatting: Vec::new(),
                head: None,
                form: None,
                quirks: None,
                ignore_lf: false,
                pending_table_text: Vec::new(),
                svg_from: None,
            }),
            gave_up: Cell::new(false),
        }
    }

    /// The arena, or `None` when the builder gave up and the page needs html5ever's.
    pub fn finish(self) -> Option<Arena> {
        (!self.gave_up.get()).then(|| self.sink.finish())
    }
}

impl TokenSink for FastBuilder {
    type Handle = u32;

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<u32> {
        if self.gave_up.get() {
            // The rest of the page only needs reading to its end: PLAINTEXT makes the
            // tokenizer take it as one text run.
            return TokenSinkResult::Plaintext;
        }
        let mut st = self.state.borrow_mut();
        // Any token, a parse error included, ends the wait for the newline after `<pre>`.
        let ignore_lf = mem::take(&mut st.ignore_lf);
        let tok = match token {
            Token::ParseError(_) => return TokenSinkResult::Continue,
            Token::DoctypeToken(d) => {
                if st.mode == Mode::Initial {
                    st.quirks = doctype_quirks(&d);
                    st.mode = Mode::BeforeHtml;
                }
                return TokenSinkResult::Continue;
            }
            Token::TagToken(t) => Tok::Tag(t),
            Token::CommentToken(c) => Tok::Comment(c),
            Token::NullCharacterToken => Tok::Null,
            Token::EOFToken => Tok::Eof,
            Token::CharacterTokens(mut t) => {
                if ignore_lf && t.starts_with('\n') {
                    t.pop_front(1);
                }
                if t.is_empty() {
                    return TokenSinkResult::Continue;
                }
                Tok::Chars(Run::Unsplit, t)
            }
        };
        match st.run(&self.sink, tok) {
            Ok(r) => r,
            Err(Unsupported) => {
                self.gave_up.set(true);
                TokenSinkResult::Plaintext
            }
        }
    }

    fn end(&self) {}

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        !self.gave_up.get()
            && self
                .state
                .try_borrow()
                .is_ok_and(|st| st.svg_from.is_some())
    }
}

/// Quirks mode for the doctypes pages use, as html5ever decides it; `None` for the others.
fn doctype_quirks(d: &Doctype) -> Option<bool> {
    if d.force_quirks || d.name.as_deref() != Some("html") {
        return Some(true);
    }
    let system = d.system_id.as_deref().map(str::to_ascii_lowercase);
    if system.as_deref() == Some("http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
        return Some(true);
    }
    let Some(public) = d.public_id.as_deref().map(str::to_ascii_lowercase) else {
        return Some(false);
    };
    let no_quirks = [
        "-//w3c//dtd xhtml 1.0 transitional//",
        "-//w3c//dtd xhtml 1.0 frameset//",
        "-//w3c//dtd xhtml 1.0 strict//en",
        "-//w3c//dtd xhtml 1.1//en",
        "-//w3c//dtd html 4.01//en",
    ];
    if no_quirks.iter().any(|p| public.starts_with(p)) {
        // XHTML 1.0 Transitional and Frameset are limited-quirks, which tree construction
        // treats as no-quirks.
        return Some(false);
    }
    let html4 = [
        "-//w3c//dtd html 4.01 frameset//",
        "-//w3c//dtd html 4.01 transitional//",
    ];
    if html4.iter().any(|p| public.starts_with(p)) {
        return Some(system.is_none());
    }
    None
}

/// html5ever's default scope.
fn default_scope(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("applet")
            | local_name!("caption")
            | local_name!("html")
            | local_name!("table")
            | local_name!("td")
            | local_name!("th")
            | local_name!("marquee")
            | local_name!("object")
            | local_name!("select")
            | local_name!("template")
    )
}

fn list_item_scope(n: &LocalName) -> bool {
    default_scope(n) || matches!(*n, local_name!("ol") | local_name!("ul"))
}

fn button_scope(n: &LocalName) -> bool {
    default_scope(n) || *n == local_name!("button")
}

fn table_scope(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("html") | local_name!("table") | local_name!("template")
    )
}

fn table_body_context(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("template")
            | local_name!("html")
    )
}

fn table_row_context(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("tr") | local_name!("template") | local_name!("html")
    )
}

fn td_th(n: &LocalName) -> bool {
    matches!(*n, local_name!("td") | local_name!("th"))
}

/// Headings (`h1`–`h6`): tree construction closes one with another; the page walk uses their
/// slugs as anchors.
pub(super) fn is_heading(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
    )
}

fn cursory_implied_end(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("dd")
            | local_name!("dt")
            | local_name!("li")
            | local_name!("option")
            | local_name!("optgroup")
            | local_name!("p")
            | local_name!("rb")
            | local_name!("rp")
            | local_name!("rt")
            | local_name!("rtc")
    )
}

/// html5ever's special elements.
fn special(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("address")
            | local_name!("applet")
            | local_name!("area")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("blockquote")
            | local_name!("body")
            | local_name!("br")
            | local_name!("button")
            | local_name!("caption")
            | local_name!("center")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("dd")
            | local_name!("details")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("embed")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("form")
            | local_name!("frame")
            | local_name!("frameset")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("head")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("hr")
            | local_name!("html")
            | local_name!("iframe")
            | local_name!("img")
            | local_name!("input")
            | local_name!("isindex")
            | local_name!("li")
            | local_name!("link")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("marquee")
            | local_name!("menu")
            | local_name!("meta")
            | local_name!("nav")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("object")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("param")
            | local_name!("plaintext")
            | local_name!("pre")
            | local_name!("script")
            | local_name!("section")
            | local_name!("select")
            | local_name!("source")
            | local_name!("style")
            | local_name!("summary")
            | local_name!("table")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("template")
            | local_name!("textarea")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("title")
            | local_name!("tr")
            | local_name!("track")
            | local_name!("ul")
            | local_name!("wbr")
            | local_name!("xmp")
    )
}

/// Start tags that close a `<p>` and open a block (html5ever's list, `menu` included).
fn block_start(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("main")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("search")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("ul")
            | local_name!("menu")
    )
}

/// End tags closed by "generate implied end tags, then pop to the element" when in scope.
fn block_end(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("button")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("menu")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("pre")
            | local_name!("search")
            | local_name!("section")
            | local_name!("select")
            | local_name!("summary")
            | local_name!("ul")
    )
}

fn formatting(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("b")
            | local_name!("big")
            | local_name!("code")
            | local_name!("em")
            | local_name!("font")
            | local_name!("i")
            | local_name!("s")
            | local_name!("small")
            | local_name!("strike")
            | local_name!("strong")
            | local_name!("tt")
            | local_name!("u")
    )
}

/// Common start tags with no rule of their own in body ("any other start tag").
fn ordinary(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("span")
            | local_name!("sup")
            | local_name!("sub")
            | local_name!("var")
            | local_name!("kbd")
            | local_name!("abbr")
            | local_name!("cite")
            | local_name!("dfn")
            | local_name!("samp")
            | local_name!("label")
    )
}

/// The encoding hint html5ever's tree builder returns for a `meta` element's attributes: its
/// `charset` value, or, with `http-equiv="content-type"`, the `content` value when a charset
/// can be read from it (the spec's algorithm for extracting a character encoding from a meta
/// element, whose outcome alone matters here).
fn charset_hint(attrs: &[Attribute]) -> Option<StrTendril> {
    let attr = |name: LocalName| {
        attrs
            .iter()
            .find(|a| a.name.ns == ns!() && a.name.local == name)
            .map(|a| &a.value)
    };
    if let Some(charset) = attr(local_name!("charset")) {
        return Some(charset.clone());
    }
    let content = attr(local_name!("content"))?;
    (attr(local_name!("http-equiv")).is_some_and(|v| v.eq_ignore_ascii_case("content-type"))
        && declares_charset(content))
    .then(|| content.clone())
}

/// Whether the spec's algorithm for extracting a character encoding from a meta element finds
/// one in `content` (`charset`, optional whitespace, `=`, then a value; a quoted value needs its
/// closing quote).
fn declares_charset(content: &str) -> bool {
    let b = content.as_bytes();
    let mut pos = 0;
    loop {
        loop {
            match b.get(pos..pos + "charset".len()) {
                None => return false,
                Some(w) if w.eq_ignore_ascii_case(b"charset") => break,
                Some(_) => pos += 1,
            }
        }
        pos += "charset".len();
        pos += b[pos..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        match b.get(pos) {
            None => return false,
            Some(b'=') => break,
            Some(_) => {}
        }
    }
    pos += 1;
    pos += b[pos..]
        .iter()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    match b.get(pos) {
        None => false,
        Some(&q @ (b'"' | b'\'')) => b[pos + 1..].contains(&q),
        Some(_) => true,
    }
}

/// Start tags handled in "in body" by the "in head" rules (`template` aside).
fn head_element(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("noframes")
            | local_name!("script")
            | local_name!("style")
            | local_name!("title")
    )
}

/// Start tags whose in-body paths are not followed.
fn unsupported_in_body(n: &LocalName) -> bool {
    matches!(
        *n,
        local_name!("template")
            | local_name!("frameset")
            | local_name!("plaintext")
            | local_name!("nobr")
            | local_name!("applet")
            | local_name!("marquee")
            | local_name!("object")
            | local_name!("image")
            | local_name!("rb")
            | local_name!("rtc")
            | local_name!("rp")
            | local_name!("rt")
            | local_name!("math")
    )
}

fn is_start(t: &Tag, name: LocalName) -> bool {
    t.kind == TagKind::StartTag && t.name == name
}

fn is_end(t: &Tag, name: LocalName) -> bool {
    t.kind == TagKind::EndTag && t.name == name
}

impl State {
    /// html5ever's `process_to_completion`.
    fn run(&mut self, sink: &Sink, mut tok: Tok) -> Res<TokenSinkResult<u32>> {
        let mut more: Option<Tok> = None;
        loop {
            let step = if self.svg_from.is_some() && !matches!(tok, Tok::Eof) {
                self.step_foreign(sink, tok)?
            } else {
                self.step(sink, self.mode, tok)?
            };
            match step {
                Step::Done => match more.take() {
                    Some(t) => tok = t,
                    None => return Ok(TokenSinkResult::Continue),
                },
                Step::Again(mode, t) => {
                    self.mode = mode;
                    tok = t;
                }
                Step::SplitWhitespace(mut buf) => {
                    let Some((first, ws)) = buf.pop_front_char_run(|c| c.is_ascii_whitespace())
                    else {
                        return Ok(TokenSinkResult::Continue);
                    };
                    let split = if ws {
                        Run::Whitespace
                    } else {
                        Run::NotWhitespace
                    };
                    tok = Tok::Chars(split, first);
                    if buf.len32() > 0 {
                        // html5ever queues the rest behind anything already queued; a split
                        // only happens with an empty queue, so one slot is enough.
                        if more.is_some() {
                            return Err(Unsupported);
                        }
                        more = Some(Tok::Chars(Run::Unsplit, buf));
                    }
                }
                Step::Out(r) => {
                    if more.is_some() {
                        return Err(Unsupported);
                    }
                    return Ok(r);
                }
            }
        }
    }

    fn step(&mut self, sink: &Sink, mode: Mode, tok: Tok) -> Res<Step> {
        match mode {
            Mode::Initial => Ok(match tok {
                Tok::Chars(Run::Unsplit, t) => Step::SplitWhitespace(t),
                Tok::Chars(Run::Whitespace, _) => Step::Done,
                Tok::Comment(c) => {
                    let c = sink.create_comment(c);
                    sink.append(&0, NodeOrText::AppendNode(c));
                    Step::Done
                }
                tok => {
                    self.quirks = Some(true);
                    Step::Again(Mode::BeforeHtml, tok)
                }
            }),
            Mode::BeforeHtml => Ok(match tok {
                Tok::Comment(c) => {
                    let c = sink.create_comment(c);
                    sink.append(&0, NodeOrText::AppendNode(c));
                    Step::Done
                }
                Tok::Chars(Run::Unsplit, t) => Step::SplitWhitespace(t),
                Tok::Chars(Run::Whitespace, _) => Step::Done,
                Tok::Tag(t) if is_start(&t, local_name!("html")) => {
                    self.create_root(sink, t.attrs);
                    self.mode = Mode::BeforeHead;
                    Step::Done
                }
                Tok::Tag(t)
                    if t.kind == TagKind::EndTag
                        && !matches!(
                            t.name,
                            local_name!("head")
                                | local_name!("body")
                                | local_name!("html")
                                | local_name!("br")
                        ) =>
                {
                    Step::Done
                }
                tok => {
                    self.create_root(sink, Vec::new());
                    Step::Again(Mode::BeforeHead, tok)
                }
            }),
            Mode::BeforeHead => Ok(match tok {
                Tok::Chars(Run::Unsplit, t) => Step::SplitWhitespace(t),
                Tok::Chars(Run::Whitespace, _) => Step::Done,
                Tok::Comment(c) => self.append_comment(sink, c)?,
                Tok::Tag(t) if is_start(&t, local_name!("html")) => {
                    self.step(sink, Mode::InBody, Tok::Tag(t))?
                }
                Tok::Tag(t) if is_start(&t, local_name!("head")) => {
                    self.head = Some(self.insert_tag(sink, t, true)?);
                    self.mode = Mode::InHead;
                    Step::Done
                }
                Tok::Tag(t)
                    if t.kind == TagKind::EndTag
                        && !matches!(
                            t.name,
                            local_name!("head")
                                | local_name!("body")
                                | local_name!("html")
                                | local_name!("br")
                        ) =>
                {
                    Step::Done
                }
                tok => {
                    self.head =
                        Some(self.insert(sink, local_name!("head"), Vec::new(), false, true)?);
                    Step::Again(Mode::InHead, tok)
                }
            }),
            Mode::InHead => self.in_head(sink, tok),
            Mode::AfterHead => self.after_head(sink, tok),
            Mode::InBody => self.in_body(sink, tok),
            Mode::Text => match tok {
                Tok::Chars(_, t) => self.append_text(sink, t),
                Tok::Eof => {
                    self.pop()?;
                    let orig = self.orig_mode.take().ok_or(Unsupported)?;
                    Ok(Step::Again(orig, Tok::Eof))
                }
                Tok::Tag(t) if t.kind == TagKind::EndTag => {
                    let (node, _) = self.pop()?;
                    self.mode = self.orig_mode.take().ok_or(Unsupported)?;
                    if t.name == local_name!("script") {
                        return Ok(Step::Out(TokenSinkResult::Script(node)));
                    }
                    Ok(Step::Done)
                }
                // html5ever: unreachable (raw text holds nothing else).
                _ => Err(Unsupported),
            },
            Mode::InTable => self.in_table(sink, tok),
            Mode::InTableText => match tok {
                Tok::Null => Ok(Step::Done),
                Tok::Chars(split, t) => {
                    self.pending_table_text.push((split, t));
                    Ok(Step::Done)
                }
                tok => {
                    let pending = mem::take(&mut self.pending_table_text);
                    let nonspace = pending.iter().any(|(split, t)| match split {
                        Run::Whitespace => false,
                        Run::NotWhitespace => true,
                        Run::Unsplit => t.chars().any(|c| !c.is_ascii_whitespace()),
                    });
                    if nonspace {
                        // Foster parenting.
                        return Err(Unsupported);
                    }
                    for (_, t) in pending {
                        self.append_text(sink, t)?;
                    }
                    let orig = self.orig_mode.take().ok_or(Unsupported)?;
                    Ok(Step::Again(orig, tok))
                }
            },
            Mode::InCaption => self.in_caption(sink, tok),
            Mode::InColumnGroup => self.in_column_group(sink, tok),
            Mode::InTableBody => self.in_table_body(sink, tok),
            Mode::InRow => self.in_row(sink, tok),
            Mode::InCell => self.in_cell(sink, tok),
            Mode::AfterBody => Ok(match tok {
                Tok::Chars(Run::Unsplit, t) => Step::SplitWhitespace(t),
                tok @ Tok::Chars(Run::Whitespace, _) => self.step(sink, Mode::InBody, tok)?,
                Tok::Comment(c) => {
                    let html = self.open.first().ok_or(Unsupported)?.0;
                    let c = sink.create_comment(c);
                    sink.append(&html, NodeOrText::AppendNode(c));
                    Step::Done
                }
                Tok::Tag(t) if is_start(&t, local_name!("html")) => {
                    self.step(sink, Mode::InBody, Tok::Tag(t))?
                }
                Tok::Tag(t) if is_end(&t, local_name!("html")) => {
                    self.mode = Mode::AfterAfterBody;
                    Step::Done
                }
                Tok::Eof => Step::Done,
                tok => Step::Again(Mode::InBody, tok),
            }),
            Mode::AfterAfterBody => Ok(match tok {
                Tok::Chars(Run::Unsplit, t) => Step::SplitWhitespace(t),
                tok @ Tok::Chars(Run::Whitespace, _) => self.step(sink, Mode::InBody, tok)?,
                Tok::Comment(c) => {
                    let c = sink.create_comment(c);
                    sink.append(&0, NodeOrText::AppendNode(c));
                    Step::Done
                }
                Tok::Tag(t) if is_start(&t, local_name!("html")) => {
                    self.step(sink, Mode::InBody, Tok::Tag(t))?
                }
                Tok::Eof => Step::Done,
                tok => Step::Again(Mode::InBody, tok),
            }),
        }
    }

    /// html5ever's rules for foreign content, inside an `svg` element.
    fn step_foreign(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let integration_point = self.open.last().is_some_and(|(_, n)| {
            matches!(
                *n,
                local_name!("foreignObject") | local_name!("desc") | local_name!("title")
            )
        });
        if integration_point
            && matches!(
                &tok,
                Tok::Chars(..)
                    | Tok::Null
                    | Tok::Tag(Tag {
                        kind: TagKind::StartTag,
                        ..
                    })
            )
        {
            // HTML inside SVG.
            return Err(Unsupported);
        }
        let t = match tok {
            Tok::Null => return self.append_text(sink, StrTendril::from("\u{fffd}")),
            Tok::Chars(_, t) => return self.append_text(sink, t),
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Eof => return Err(Unsupported),
            Tok::Tag(t) => t,
        };
        if t.kind == TagKind::EndTag {
            // The common case of html5ever's loop: the end tag closes the current node.
            let (_, n) = self.open.last().ok_or(Unsupported)?;
            if self.open.len() < 2 || !n.eq_ignore_ascii_case(&t.name) {
                return Err(Unsupported);
            }
            self.open.pop();
            if self.svg_from.is_some_and(|i| self.open.len() <= i) {
                self.svg_from = None;
            }
            return Ok(Step::Done);
        }
        let breaks_out = matches!(
            t.name,
            local_name!("b")
                | local_name!("big")
                | local_name!("blockquote")
                | local_name!("body")
                | local_name!("br")
                | local_name!("center")
                | local_name!("code")
                | local_name!("dd")
                | local_name!("div")
                | local_name!("dl")
                | local_name!("dt")
                | local_name!("em")
                | local_name!("embed")
                | local_name!("h1")
                | local_name!("h2")
                | local_name!("h3")
                | local_name!("h4")
                | local_name!("h5")
                | local_name!("h6")
                | local_name!("head")
                | local_name!("hr")
                | local_name!("i")
                | local_name!("img")
                | local_name!("li")
                | local_name!("listing")
                | local_name!("menu")
                | local_name!("meta")
                | local_name!("nobr")
                | local_name!("ol")
                | local_name!("p")
                | local_name!("pre")
                | local_name!("ruby")
                | local_name!("s")
                | local_name!("small")
                | local_name!("span")
                | local_name!("strong")
                | local_name!("strike")
                | local_name!("sub")
                | local_name!("sup")
                | local_name!("table")
                | local_name!("tt")
                | local_name!("u")
                | local_name!("ul")
                | local_name!("var")
                // Only with color, face or size, but rare enough to leave to html5ever.
                | local_name!("font")
        );
        if breaks_out {
            return Err(Unsupported);
        }
        let push = !t.self_closing;
        self.insert_svg(sink, t, push)?;
        Ok(Step::Done)
    }

    /// An element in the SVG namespace at the current node, its name and attributes adjusted
    /// to the spec's camel case.
    fn insert_svg(&mut self, sink: &Sink, mut t: Tag, push: bool) -> Res<u32> {
        let parent = self.current()?;
        if let Some(n) = svg_tag_name(&t.name) {
            t.name = n;
        }
        for a in &mut t.attrs {
            if let Some(n) = svg_attribute_name(&a.name.local) {
                a.name = n;
            }
        }
        let elem = create_element_with_flags(
            sink,
            QualName::new(None, ns!(svg), t.name.clone()),
            t.attrs,
            t.had_duplicate_attributes,
        );
        sink.append(&parent, NodeOrText::AppendNode(elem));
        if push {
            self.open.push((elem, t.name));
        }
        Ok(elem)
    }

    fn in_head(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let t = match tok {
            Tok::Chars(Run::Unsplit, t) => return Ok(Step::SplitWhitespace(t)),
            Tok::Chars(Run::Whitespace, t) => return self.append_text(sink, t),
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Tag(t) => t,
            tok => {
                self.pop()?;
                return Ok(Step::Again(Mode::AfterHead, tok));
            }
        };
        if t.kind == TagKind::StartTag {
            match t.name {
                local_name!("html") => self.step(sink, Mode::InBody, Tok::Tag(t)),
                local_name!("base")
                | local_name!("basefont")
                | local_name!("bgsound")
                | local_name!("link")
                | local_name!("meta") => {
                    // html5ever returns an encoding hint for a charset declaration, which the
                    // tokenizer treats as a pause (`tokenizer::emit_tag`); its value is unused.
                    let hint = (t.name == local_name!("meta")).then(|| charset_hint(&t.attrs));
                    self.insert_tag(sink, t, false)?;
                    Ok(match hint.flatten() {
                        Some(value) => Step::Out(TokenSinkResult::EncodingIndicator(value)),
                        None => Step::Done,
                    })
                }
                local_name!("title") => self.raw_text(sink, t, RawKind::Rcdata),
                // Scripting is on (html5ever's default), so `noscript` is raw text.
                local_name!("noframes") | local_name!("style") | local_name!("noscript") => {
                    self.raw_text(sink, t, RawKind::Rawtext)
                }
                local_name!("script") => {
                    let parent = self.current()?;
                    let elem = create_element_with_flags(
                        sink,
                        QualName::new(None, ns!(html), local_name!("script")),
                        t.attrs,
                        t.had_duplicate_attributes,
                    );
                    sink.append(&parent, NodeOrText::AppendNode(elem));
                    self.open.push((elem, local_name!("script")));
                    self.orig_mode = Some(self.mode);
                    self.mode = Mode::Text;
                    Ok(Step::Out(TokenSinkResult::RawData(RawKind::ScriptData)))
                }
                local_name!("template") => Err(Unsupported),
                local_name!("head") => Ok(Step::Done),
                _ => {
                    self.pop()?;
                    Ok(Step::Again(Mode::AfterHead, Tok::Tag(t)))
                }
            }
        } else {
            match t.name {
                local_name!("head") => {
                    self.pop()?;
                    self.mode = Mode::AfterHead;
                    Ok(Step::Done)
                }
                local_name!("body") | local_name!("html") | local_name!("br") => {
                    self.pop()?;
                    Ok(Step::Again(Mode::AfterHead, Tok::Tag(t)))
                }
                // `</template>` without a template open, and any other end tag: ignored.
                _ => Ok(Step::Done),
            }
        }
    }

    fn after_head(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let t = match tok {
            Tok::Chars(Run::Unsplit, t) => return Ok(Step::SplitWhitespace(t)),
            Tok::Chars(Run::Whitespace, t) => return self.append_text(sink, t),
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Tag(t) => t,
            tok => return self.implied_body(sink, tok),
        };
        if t.kind == TagKind::StartTag {
            match t.name {
                local_name!("html") => self.step(sink, Mode::InBody, Tok::Tag(t)),
                local_name!("body") => {
                    self.insert_tag(sink, t, true)?;
                    self.mode = Mode::InBody;
                    Ok(Step::Done)
                }
                local_name!("frameset") | local_name!("template") => Err(Unsupported),
                ref n if head_element(n) => {
                    // Back into the head for it, then out.
                    let head = self.head.ok_or(Unsupported)?;
                    self.open.push((head, local_name!("head")));
                    let step = self.step(sink, Mode::InHead, Tok::Tag(t))?;
                    let i = self
                        .open
                        .iter()
                        .rposition(|&(h, _)| h == head)
                        .ok_or(Unsupported)?;
                    self.open.remove(i);
                    Ok(step)
                }
                local_name!("head") => Ok(Step::Done),
                _ => self.implied_body(sink, Tok::Tag(t)),
            }
        } else {
            match t.name {
                local_name!("body") | local_name!("html") | local_name!("br") => {
                    self.implied_body(sink, Tok::Tag(t))
                }
                _ => Ok(Step::Done),
            }
        }
    }

    fn implied_body(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        self.insert(sink, local_name!("body"), Vec::new(), false, true)?;
        Ok(Step::Again(Mode::InBody, tok))
    }

    fn in_body(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let t = match tok {
            Tok::Null | Tok::Eof => return Ok(Step::Done),
            Tok::Chars(_, text) => {
                self.reconstruct_formatting()?;
                return self.append_text(sink, text);
            }
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Tag(t) => t,
        };
        if t.kind == TagKind::EndTag {
            return self.end_tag_in_body(sink, t);
        }
        let name = t.name.clone();
        // Every arm is a set of names of its own, so their order is free: the start tags pages
        // use most come first.
        match name {
            local_name!("a") => {
                if self
                    .formatting_after_marker()
                    .any(|(_, n)| *n == local_name!("a"))
                {
                    // Misnested links: the adoption agency.
                    return Err(Unsupported);
                }
                self.reconstruct_formatting()?;
                self.insert_formatting(sink, t)
            }
            ref n if formatting(n) => {
                self.reconstruct_formatting()?;
                self.insert_formatting(sink, t)
            }
            ref n if ordinary(n) => {
                self.reconstruct_formatting()?;
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            ref n if unsupported_in_body(n) => Err(Unsupported),
            // html5ever 0.40 parses `select` as the current HTML standard does (no "in select"
            // mode): a `select` in scope is closed by another, `option` and `optgroup` close
            // an open option.
            local_name!("select") => {
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    self.pop_until_named(&local_name!("select"));
                } else {
                    self.reconstruct_formatting()?;
                    self.insert_tag(sink, t, true)?;
                }
                Ok(Step::Done)
            }
            local_name!("option") | local_name!("optgroup") => {
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    let optgroup = local_name!("optgroup");
                    self.generate_implied_end((name == local_name!("option")).then_some(&optgroup));
                } else if self.current_is(&local_name!("option")) {
                    self.pop()?;
                }
                self.reconstruct_formatting()?;
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            local_name!("html") => {
                let html = self.open.first().ok_or(Unsupported)?.0;
                sink.add_attrs_if_missing(&html, t.attrs);
                Ok(Step::Done)
            }
            ref n if head_element(n) => self.step(sink, Mode::InHead, Tok::Tag(t)),
            local_name!("body") => {
                if let Some(&(body, local_name!("body"))) = self.open.get(1) {
                    sink.add_attrs_if_missing(&body, t.attrs);
                }
                Ok(Step::Done)
            }
            ref n if block_start(n) => {
                self.close_p_in_button_scope();
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            ref n if is_heading(n) => {
                self.close_p_in_button_scope();
                if self.open.last().is_some_and(|(_, n)| is_heading(n)) {
                    self.pop()?;
                }
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            local_name!("pre") | local_name!("listing") => {
                self.close_p_in_button_scope();
                self.insert_tag(sink, t, true)?;
                self.ignore_lf = true;
                Ok(Step::Done)
            }
            local_name!("form") => {
                if self.form.is_none() {
                    self.close_p_in_button_scope();
                    self.form = Some(self.insert_tag(sink, t, true)?);
                }
                Ok(Step::Done)
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let list = name == local_name!("li");
                let mut to_close = None;
                for (_, n) in self.open.iter().rev() {
                    let closes = if list {
                        *n == local_name!("li")
                    } else {
                        matches!(*n, local_name!("dd") | local_name!("dt"))
                    };
                    if closes {
                        to_close = Some(n.clone());
                        break;
                    }
                    if special(n)
                        && !matches!(
                            *n,
                            local_name!("address") | local_name!("div") | local_name!("p")
                        )
                    {
                        break;
                    }
                }
                if let Some(n) = to_close {
                    self.generate_implied_end(Some(&n));
                    self.pop_until_named(&n);
                }
                self.close_p_in_button_scope();
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            local_name!("button") => {
                if self.in_scope_named(default_scope, &local_name!("button")) {
                    return Err(Unsupported);
                }
                self.reconstruct_formatting()?;
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
            local_name!("svg") => {
                self.reconstruct_formatting()?;
                let push = !t.self_closing;
                self.insert_svg(sink, t, push)?;
                if push {
                    self.svg_from = Some(self.open.len() - 1);
                }
                Ok(Step::Done)
            }
            local_name!("table") => {
                let p_open = self.in_scope_named(button_scope, &local_name!("p"));
                match (self.quirks, p_open) {
                    (Some(false), true) => self.close_p(),
                    (None, true) => return Err(Unsupported),
                    _ => {}
                }
                self.insert_tag(sink, t, true)?;
                self.mode = Mode::InTable;
                Ok(Step::Done)
            }
            local_name!("area")
            | local_name!("br")
            | local_name!("embed")
            | local_name!("img")
            | local_name!("keygen")
            | local_name!("wbr")
            | local_name!("input") => {
                if name == local_name!("input")
                    && self.in_scope_named(default_scope, &local_name!("select"))
                {
                    self.pop_until_named(&local_name!("select"));
                }
                self.reconstruct_formatting()?;
                self.insert_tag(sink, t, false)?;
                Ok(Step::Done)
            }
            local_name!("param") | local_name!("source") | local_name!("track") => {
                self.insert_tag(sink, t, false)?;
                Ok(Step::Done)
            }
            local_name!("hr") => {
                self.close_p_in_button_scope();
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    self.generate_implied_end(None);
                }
                self.insert_tag(sink, t, false)?;
                Ok(Step::Done)
            }
            local_name!("textarea") => {
                self.ignore_lf = true;
                self.raw_text(sink, t, RawKind::Rcdata)
            }
            local_name!("xmp") => {
                self.close_p_in_button_scope();
                self.reconstruct_formatting()?;
                self.raw_text(sink, t, RawKind::Rawtext)
            }
            local_name!("iframe") | local_name!("noembed") | local_name!("noscript") => {
                self.raw_text(sink, t, RawKind::Rawtext)
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("frame")
            | local_name!("head")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => Ok(Step::Done),
            _ => {
                self.reconstruct_formatting()?;
                self.insert_tag(sink, t, true)?;
                Ok(Step::Done)
            }
        }
    }

    fn end_tag_in_body(&mut self, sink: &Sink, t: Tag) -> Res<Step> {
        let name = t.name.clone();
        // As in `in_body`, the commonest end tags first.
        match name {
            local_name!("a") | local_name!("nobr") => self.adoption_agency(&name)?,
            ref n if formatting(n) => self.adoption_agency(n)?,
            ref n if ordinary(n) => self.any_other_end_tag(n),
            local_name!("template") => {}
            local_name!("body") => {
                if self.in_scope_named(default_scope, &local_name!("body")) {
                    self.mode = Mode::AfterBody;
                }
            }
            local_name!("html") => {
                if self.in_scope_named(default_scope, &local_name!("body")) {
                    return Ok(Step::Again(Mode::AfterBody, Tok::Tag(t)));
                }
            }
            ref n if block_end(n) => {
                if self.in_scope_named(default_scope, n) {
                    self.generate_implied_end(None);
                    self.pop_until_named(n);
                }
            }
            local_name!("form") => {
                let Some(node) = self.form.take() else {
                    return Ok(Step::Done);
                };
                if !self.in_scope(default_scope, |h, _| h == node) {
                    return Ok(Step::Done);
                }
                self.generate_implied_end(None);
                if let Some(i) = self.open.iter().rposition(|&(h, _)| h == node) {
                    self.open.remove(i);
                }
            }
            local_name!("br") => {
                // Read as `<br>`, attributes dropped.
                let br = Tag {
                    kind: TagKind::StartTag,
                    attrs: Vec::new(),
                    ..t
                };
                return self.in_body(sink, Tok::Tag(br));
            }
            local_name!("p") => {
                if !self.in_scope_named(button_scope, &local_name!("p")) {
                    // A stray `</p>` closes an empty `p` of its own.
                    self.insert(sink, local_name!("p"), Vec::new(), false, true)?;
                }
                self.close_p();
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let scope = if name == local_name!("li") {
                    list_item_scope
                } else {
                    default_scope
                };
                if self.in_scope_named(scope, &name) {
                    self.generate_implied_end(Some(&name));
                    self.pop_until_named(&name);
                }
            }
            ref n if is_heading(n) => {
                if self.in_scope(default_scope, |_, n| is_heading(n)) {
                    self.generate_implied_end(None);
                    while let Some((_, n)) = self.open.pop() {
                        if is_heading(&n) {
                            break;
                        }
                    }
                }
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                // Never opened here (their start tags give up), so never in scope: ignored.
            }
            _ => self.any_other_end_tag(&name),
        }
        Ok(Step::Done)
    }

    /// html5ever's "any other end tag" in body.
    fn any_other_end_tag(&mut self, name: &LocalName) {
        let mut at = None;
        for (i, (_, n)) in self.open.iter().enumerate().rev() {
            if n == name {
                at = Some(i);
                break;
            }
            if special(n) {
                return;
            }
        }
        if let Some(i) = at {
            // Implied end tags stop at the element itself, so truncating covers them.
            self.open.truncate(i);
        }
    }

    /// The adoption agency algorithm where it re-parents nothing: the formatting element is
    /// closed with no special element opened inside it. Gives up otherwise.
    fn adoption_agency(&mut self, subject: &LocalName) -> Res<()> {
        // 1. The current node is the subject but not a formatting entry: pop it.
        if let Some(&(cur, ref n)) = self.open.last()
            && n == subject
            && !self
                .formatting
                .iter()
                .any(|e| e.as_ref().is_some_and(|&(h, _)| h == cur))
        {
            self.open.pop();
            return Ok(());
        }
        let entry = self
            .formatting
            .iter()
            .enumerate()
            .rev()
            .take_while(|(_, e)| e.is_some())
            .find_map(|(i, e)| {
                e.as_ref()
                    .filter(|(_, n)| n == subject)
                    .map(|&(h, _)| (i, h))
            });
        let Some((entry_index, elem)) = entry else {
            self.any_other_end_tag(subject);
            return Ok(());
        };
        let Some(stack_index) = self.open.iter().rposition(|&(h, _)| h == elem) else {
            self.formatting.remove(entry_index);
            return Ok(());
        };
        if !self.in_scope(default_scope, |h, _| h == elem) {
            return Ok(());
        }
        if self.open[stack_index..].iter().any(|(_, n)| special(n)) {
            // A furthest block: nodes are re-parented.
            return Err(Unsupported);
        }
        self.open.truncate(stack_index);
        self.formatting.remove(entry_index);
        Ok(())
    }

    fn in_table(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let t = match tok {
            tok @ (Tok::Null | Tok::Chars(..)) => {
                let outer = self.open.last().is_some_and(|(_, n)| {
                    matches!(
                        *n,
                        local_name!("table")
                            | local_name!("tbody")
                            | local_name!("tfoot")
                            | local_name!("thead")
                            | local_name!("tr")
                    )
                });
                if !outer {
                    // Foster parenting.
                    return Err(Unsupported);
                }
                self.orig_mode = Some(self.mode);
                return Ok(Step::Again(Mode::InTableText, tok));
            }
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Eof => return self.step(sink, Mode::InBody, Tok::Eof),
            Tok::Tag(t) => t,
        };
        if t.kind == TagKind::StartTag {
            match t.name {
                local_name!("caption") => {
                    self.pop_until_current(table_scope)?;
                    self.formatting.push(None);
                    self.insert_tag(sink, t, true)?;
                    self.mode = Mode::InCaption;
                    Ok(Step::Done)
                }
                local_name!("colgroup") => {
                    self.pop_until_current(table_scope)?;
                    self.insert_tag(sink, t, true)?;
                    self.mode = Mode::InColumnGroup;
                    Ok(Step::Done)
                }
                local_name!("col") => {
                    self.pop_until_current(table_scope)?;
                    self.insert(sink, local_name!("colgroup"), Vec::new(), false, true)?;
                    Ok(Step::Again(Mode::InColumnGroup, Tok::Tag(t)))
                }
                local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                    self.pop_until_current(table_scope)?;
                    self.insert_tag(sink, t, true)?;
                    self.mode = Mode::InTableBody;
                    Ok(Step::Done)
                }
                local_name!("td") | local_name!("th") | local_name!("tr") => {
                    self.pop_until_current(table_scope)?;
                    self.insert(sink, local_name!("tbody"), Vec::new(), false, true)?;
                    Ok(Step::Again(Mode::InTableBody, Tok::Tag(t)))
                }
                local_name!("style") | local_name!("script") => {
                    self.step(sink, Mode::InHead, Tok::Tag(t))
                }
                // Nested tables, hidden inputs and forms in a table, templates and anything
                // fostered out of it.
                _ => Err(Unsupported),
            }
        } else {
            match t.name {
                local_name!("table") => {
                    if self.in_scope_named(table_scope, &local_name!("table")) {
                        self.pop_until_named(&local_name!("table"));
                        self.mode = self.reset_insertion_mode()?;
                    }
                    Ok(Step::Done)
                }
                local_name!("body")
                | local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("html")
                | local_name!("tbody")
                | local_name!("td")
                | local_name!("tfoot")
                | local_name!("th")
                | local_name!("thead")
                | local_name!("tr")
                | local_name!("template") => Ok(Step::Done),
                _ => Err(Unsupported),
            }
        }
    }

    fn in_caption(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let Tok::Tag(t) = tok else {
            return self.step(sink, Mode::InBody, tok);
        };
        let closes = match t.kind {
            TagKind::StartTag => matches!(
                t.name,
                local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("tbody")
                    | local_name!("td")
                    | local_name!("tfoot")
                    | local_name!("th")
                    | local_name!("thead")
                    | local_name!("tr")
            ),
            TagKind::EndTag => matches!(t.name, local_name!("table") | local_name!("caption")),
        };
        if closes {
            if !self.in_scope_named(table_scope, &local_name!("caption")) {
                return Ok(Step::Done);
            }
            self.generate_implied_end(None);
            self.pop_until_named(&local_name!("caption"));
            self.clear_formatting_to_marker();
            if is_end(&t, local_name!("caption")) {
                self.mode = Mode::InTable;
                return Ok(Step::Done);
            }
            return Ok(Step::Again(Mode::InTable, Tok::Tag(t)));
        }
        if t.kind == TagKind::EndTag
            && matches!(
                t.name,
                local_name!("body")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("html")
                    | local_name!("tbody")
                    | local_name!("td")
                    | local_name!("tfoot")
                    | local_name!("th")
                    | local_name!("thead")
                    | local_name!("tr")
            )
        {
            return Ok(Step::Done);
        }
        self.step(sink, Mode::InBody, Tok::Tag(t))
    }

    fn in_column_group(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let t = match tok {
            Tok::Chars(Run::Unsplit, t) => return Ok(Step::SplitWhitespace(t)),
            Tok::Chars(Run::Whitespace, t) => return self.append_text(sink, t),
            Tok::Comment(c) => return self.append_comment(sink, c),
            Tok::Eof => return self.step(sink, Mode::InBody, Tok::Eof),
            Tok::Tag(t) => t,
            tok => return self.leave_column_group(tok),
        };
        match (t.kind, t.name.clone()) {
            (TagKind::StartTag, local_name!("html")) => self.step(sink, Mode::InBody, Tok::Tag(t)),
            (TagKind::StartTag, local_name!("col")) => {
                self.insert_tag(sink, t, false)?;
                Ok(Step::Done)
            }
            (TagKind::EndTag, local_name!("colgroup")) => {
                if self.current_is(&local_name!("colgroup")) {
                    self.pop()?;
                    self.mode = Mode::InTable;
                }
                Ok(Step::Done)
            }
            (TagKind::EndTag, local_name!("col") | local_name!("template")) => Ok(Step::Done),
            (TagKind::StartTag, local_name!("template")) => Err(Unsupported),
            _ => self.leave_column_group(Tok::Tag(t)),
        }
    }

    fn leave_column_group(&mut self, tok: Tok) -> Res<Step> {
        if self.current_is(&local_name!("colgroup")) {
            self.pop()?;
            Ok(Step::Again(Mode::InTable, tok))
        } else {
            Ok(Step::Done)
        }
    }

    fn in_table_body(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let Tok::Tag(t) = tok else {
            return self.in_table(sink, tok);
        };
        match (t.kind, t.name.clone()) {
            (TagKind::StartTag, local_name!("tr")) => {
                self.pop_until_current(table_body_context)?;
                self.insert_tag(sink, t, true)?;
                self.mode = Mode::InRow;
                Ok(Step::Done)
            }
            (TagKind::StartTag, local_name!("th") | local_name!("td")) => {
                self.pop_until_current(table_body_context)?;
                self.insert(sink, local_name!("tr"), Vec::new(), false, true)?;
                Ok(Step::Again(Mode::InRow, Tok::Tag(t)))
            }
            (
                TagKind::EndTag,
                ref n @ (local_name!("tbody") | local_name!("tfoot") | local_name!("thead")),
            ) => {
                if self.in_scope_named(table_scope, n) {
                    self.pop_until_current(table_body_context)?;
                    self.pop()?;
                    self.mode = Mode::InTable;
                }
                Ok(Step::Done)
            }
            (
                TagKind::StartTag,
                local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("tbody")
                | local_name!("tfoot")
                | local_name!("thead"),
            )
            | (TagKind::EndTag, local_name!("table")) => {
                // html5ever's set here is table, tbody and tfoot (not thead).
                let outer = self.in_scope(table_scope, |_, n| {
                    matches!(
                        *n,
                        local_name!("table") | local_name!("tbody") | local_name!("tfoot")
                    )
                });
                if !outer {
                    return Ok(Step::Done);
                }
                self.pop_until_current(table_body_context)?;
                self.pop()?;
                Ok(Step::Again(Mode::InTable, Tok::Tag(t)))
            }
            (
                TagKind::EndTag,
                local_name!("body")
                | local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("html")
                | local_name!("td")
                | local_name!("th")
                | local_name!("tr"),
            ) => Ok(Step::Done),
            _ => self.in_table(sink, Tok::Tag(t)),
        }
    }

    fn in_row(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let Tok::Tag(t) = tok else {
            return self.in_table(sink, tok);
        };
        match (t.kind, t.name.clone()) {
            (TagKind::StartTag, local_name!("th") | local_name!("td")) => {
                self.pop_until_current(table_row_context)?;
                self.insert_tag(sink, t, true)?;
                self.mode = Mode::InCell;
                self.formatting.push(None);
                Ok(Step::Done)
            }
            (TagKind::EndTag, local_name!("tr")) => {
                if self.in_scope_named(table_scope, &local_name!("tr")) {
                    self.close_row()?;
                    self.mode = Mode::InTableBody;
                }
                Ok(Step::Done)
            }
            (
                TagKind::StartTag,
                local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("tbody")
                | local_name!("tfoot")
                | local_name!("thead")
                | local_name!("tr"),
            )
            | (TagKind::EndTag, local_name!("table")) => {
                if !self.in_scope_named(table_scope, &local_name!("tr")) {
                    return Ok(Step::Done);
                }
                self.close_row()?;
                Ok(Step::Again(Mode::InTableBody, Tok::Tag(t)))
            }
            (
                TagKind::EndTag,
                ref n @ (local_name!("tbody") | local_name!("tfoot") | local_name!("thead")),
            ) => {
                if !self.in_scope_named(table_scope, n)
                    || !self.in_scope_named(table_scope, &local_name!("tr"))
                {
                    return Ok(Step::Done);
                }
                self.close_row()?;
                Ok(Step::Again(Mode::InTableBody, Tok::Tag(t)))
            }
            (
                TagKind::EndTag,
                local_name!("body")
                | local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("html")
                | local_name!("td")
                | local_name!("th"),
            ) => Ok(Step::Done),
            _ => self.in_table(sink, Tok::Tag(t)),
        }
    }

    /// Pops back to the `tr` and the `tr` itself.
    fn close_row(&mut self) -> Res<()> {
        self.pop_until_current(table_row_context)?;
        let (_, n) = self.pop()?;
        if n != local_name!("tr") {
            // html5ever asserts this.
            return Err(Unsupported);
        }
        Ok(())
    }

    fn in_cell(&mut self, sink: &Sink, tok: Tok) -> Res<Step> {
        let Tok::Tag(t) = tok else {
            return self.in_body(sink, tok);
        };
        match (t.kind, t.name.clone()) {
            (TagKind::EndTag, ref n @ (local_name!("td") | local_name!("th"))) => {
                if self.in_scope_named(table_scope, n) {
                    self.generate_implied_end(None);
                    self.pop_until_named(n);
                    self.clear_formatting_to_marker();
                    self.mode = Mode::InRow;
                }
                Ok(Step::Done)
            }
            (
                TagKind::StartTag,
                local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("tbody")
                | local_name!("td")
                | local_name!("tfoot")
                | local_name!("th")
                | local_name!("thead")
                | local_name!("tr"),
            ) => {
                if !self.in_scope(table_scope, |_, n| td_th(n)) {
                    return Ok(Step::Done);
                }
                self.close_cell();
                Ok(Step::Again(Mode::InRow, Tok::Tag(t)))
            }
            (
                TagKind::EndTag,
                local_name!("body")
                | local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("html"),
            ) => Ok(Step::Done),
            (
                TagKind::EndTag,
                ref n @ (local_name!("table")
                | local_name!("tbody")
                | local_name!("tfoot")
                | local_name!("thead")
                | local_name!("tr")),
            ) => {
                if !self.in_scope_named(table_scope, n) {
                    return Ok(Step::Done);
                }
                self.close_cell();
                Ok(Step::Again(Mode::InRow, Tok::Tag(t)))
            }
            _ => self.in_body(sink, Tok::Tag(t)),
        }
    }

    fn close_cell(&mut self) {
        self.generate_implied_end(None);
        while let Some((_, n)) = self.open.pop() {
            if td_th(&n) {
                break;
            }
        }
        self.clear_formatting_to_marker();
    }

    /// html5ever's reset of the insertion mode (no fragment context).
    fn reset_insertion_mode(&self) -> Res<Mode> {
        for (i, (_, n)) in self.open.iter().enumerate().rev() {
            let last = i == 0;
            match *n {
                local_name!("td") | local_name!("th") if !last => return Ok(Mode::InCell),
                local_name!("tr") => return Ok(Mode::InRow),
                local_name!("tbody") | local_name!("thead") | local_name!("tfoot") => {
                    return Ok(Mode::InTableBody);
                }
                local_name!("caption") => return Ok(Mode::InCaption),
                local_name!("colgroup") => return Ok(Mode::InColumnGroup),
                local_name!("table") => return Ok(Mode::InTable),
                local_name!("template") | local_name!("frameset") => return Err(Unsupported),
                local_name!("head") if !last => return Ok(Mode::InHead),
                local_name!("body") => return Ok(Mode::InBody),
                local_name!("html") => {
                    return Ok(if self.head.is_none() {
                        Mode::BeforeHead
                    } else {
                        Mode::AfterHead
                    });
                }
                _ => {}
            }
        }
        Ok(Mode::InBody)
    }

    fn current(&self) -> Res<u32> {
        self.open.last().map(|&(h, _)| h).ok_or(Unsupported)
    }

    fn current_is(&self, name: &LocalName) -> bool {
        self.open.last().is_some_and(|(_, n)| n == name)
    }

    fn pop(&mut self) -> Res<(u32, LocalName)> {
        self.open.pop().ok_or(Unsupported)
    }

    fn pop_until_named(&mut self, name: &LocalName) {
        while let Some((_, n)) = self.open.pop() {
            if n == *name {
                break;
            }
        }
    }

    fn pop_until_current(&mut self, set: fn(&LocalName) -> bool) -> Res<()> {
        loop {
            match self.open.last() {
                Some((_, n)) if set(n) => return Ok(()),
                Some(_) => {
                    self.open.pop();
                }
                None => return Err(Unsupported),
            }
        }
    }

    fn in_scope(
        &self,
        scope: fn(&LocalName) -> bool,
        pred: impl Fn(u32, &LocalName) -> bool,
    ) -> bool {
        for (h, n) in self.open.iter().rev() {
            if pred(*h, n) {
                return true;
            }
            if scope(n) {
                return false;
            }
        }
        false
    }

    fn in_scope_named(&self, scope: fn(&LocalName) -> bool, name: &LocalName) -> bool {
        self.in_scope(scope, |_, n| n == name)
    }

    /// Pops the elements whose end tags are implied, except those named `except`.
    fn generate_implied_end(&mut self, except: Option<&LocalName>) {
        while let Some((_, n)) = self.open.last() {
            if !cursory_implied_end(n) || Some(n) == except {
                return;
            }
            self.open.pop();
        }
    }

    fn close_p(&mut self) {
        self.generate_implied_end(Some(&local_name!("p")));
        self.pop_until_named(&local_name!("p"));
    }

    fn close_p_in_button_scope(&mut self) {
        if self.in_scope_named(button_scope, &local_name!("p")) {
            self.close_p();
        }
    }

    /// The active formatting elements after the last marker, last first.
    fn formatting_after_marker(&self) -> impl Iterator<Item = &(u32, LocalName)> {
        self.formatting.iter().rev().map_while(Option::as_ref)
    }

    /// Reconstructing formatting elements clones them: give up when it would.
    fn reconstruct_formatting(&self) -> Res<()> {
        match self.formatting.last() {
            None | Some(None) => Ok(()),
            Some(Some((h, _))) if self.open.iter().rev().any(|(o, _)| o == h) => Ok(()),
            Some(Some(_)) => Err(Unsupported),
        }
    }

    fn clear_formatting_to_marker(&mut self) {
        while let Some(e) = self.formatting.pop() {
            if e.is_none() {
                break;
            }
        }
    }

    fn insert_formatting(&mut self, sink: &Sink, t: Tag) -> Res<Step> {
        // The "Noah's Ark" clause drops the earliest of three equal entries; entries of other
        // names are never equal, so fewer than three of this name cannot trigger it.
        let same = self
            .formatting_after_marker()
            .filter(|(_, n)| *n == t.name)
            .count();
        if same >= 3 {
            return Err(Unsupported);
        }
        let name = t.name.clone();
        let elem = self.insert_tag(sink, t, true)?;
        self.formatting.push(Some((elem, name)));
        Ok(Step::Done)
    }

    fn create_root(&mut self, sink: &Sink, attrs: Vec<Attribute>) {
        let elem = create_element_with_flags(
            sink,
            QualName::new(None, ns!(html), local_name!("html")),
            attrs,
            false,
        );
        self.open.push((elem, local_name!("html")));
        sink.append(&0, NodeOrText::AppendNode(elem));
    }

    fn insert_tag(&mut self, sink: &Sink, t: Tag, push: bool) -> Res<u32> {
        self.insert(sink, t.name, t.attrs, t.had_duplicate_attributes, push)
    }

    /// html5ever's `insert_element` at the current node (no foster parenting, no template).
    fn insert(
        &mut self,
        sink: &Sink,
        name: LocalName,
        attrs: Vec<Attribute>,
        had_duplicate_attributes: bool,
        push: bool,
    ) -> Res<u32> {
        let parent = self.current()?;
        let associatable = matches!(
            name,
            local_name!("button")
                | local_name!("fieldset")
                | local_name!("input")
                | local_name!("object")
                | local_name!("output")
                | local_name!("select")
                | local_name!("textarea")
                | local_name!("img")
        );
        let owner = self.form.filter(|_| {
            associatable
                && (name == local_name!("img")
                    || !attrs
                        .iter()
                        .any(|a| a.name.ns == ns!() && a.name.local == local_name!("form")))
        });
        let elem = create_element_with_flags(
            sink,
            QualName::new(None, ns!(html), name.clone()),
            attrs,
            had_duplicate_attributes,
        );
        if let Some(form) = owner {
            sink.associate_with_form(&elem, &form, (&parent, None));
        }
        sink.append(&parent, NodeOrText::AppendNode(elem));
        if push {
            self.open.push((elem, name));
        }
        Ok(elem)
    }

    fn raw_text(&mut self, sink: &Sink, t: Tag, kind: RawKind) -> Res<Step> {
        self.insert_tag(sink, t, true)?;
        self.orig_mode = Some(self.mode);
        self.mode = Mode::Text;
        Ok(Step::Out(TokenSinkResult::RawData(kind)))
    }

    fn append_text(&self, sink: &Sink, text: StrTendril) -> Res<Step> {
        sink.append(&self.current()?, NodeOrText::AppendText(text));
        Ok(Step::Done)
    }

    fn append_comment(&self, sink: &Sink, text: StrTendril) -> Res<Step> {
        let parent = self.current()?;
        let c = sink.create_comment(text);
        sink.append(&parent, NodeOrText::AppendNode(c));
        Ok(Step::Done)
    }
}

/// SVG element names the spec writes in camel case (html5ever's `adjust_svg_tag_name`).
fn svg_tag_name(name: &LocalName) -> Option<LocalName> {
    Some(match *name {
        local_name!("altglyph") => local_name!("altGlyph"),
        local_name!("altglyphdef") => local_name!("altGlyphDef"),
        local_name!("altglyphitem") => local_name!("altGlyphItem"),
        local_name!("animatecolor") => local_name!("animateColor"),
        local_name!("animatemotion") => local_name!("animateMotion"),
        local_name!("animatetransform") => local_name!("animateTransform"),
        local_name!("clippath") => local_name!("clipPath"),
        local_name!("feblend") => local_name!("feBlend"),
        local_name!("fecolormatrix") => local_name!("feColorMatrix"),
        local_name!("fecomponenttransfer") => local_name!("feComponentTransfer"),
        local_name!("fecomposite") => local_name!("feComposite"),
        local_name!("feconvolvematrix") => local_name!("feConvolveMatrix"),
        local_name!("fediffuselighting") => local_name!("feDiffuseLighting"),
        local_name!("fedisplacementmap") => local_name!("feDisplacementMap"),
        local_name!("fedistantlight") => local_name!("feDistantLight"),
        local_name!("fedropshadow") => local_name!("feDropShadow"),
        local_name!("feflood") => local_name!("feFlood"),
        local_name!("fefunca") => local_name!("feFuncA"),
        local_name!("fefuncb") => local_name!("feFuncB"),
        local_name!("fefuncg") => local_name!("feFuncG"),
        local_name!("fefuncr") => local_name!("feFuncR"),
        local_name!("fegaussianblur") => local_name!("feGaussianBlur"),
        local_name!("feimage") => local_name!("feImage"),
        local_name!("femerge") => local_name!("feMerge"),
        local_name!("femergenode") => local_name!("feMergeNode"),
        local_name!("femorphology") => local_name!("feMorphology"),
        local_name!("feoffset") => local_name!("feOffset"),
        local_name!("fepointlight") => local_name!("fePointLight"),
        local_name!("fespecularlighting") => local_name!("feSpecularLighting"),
        local_name!("fespotlight") => local_name!("feSpotLight"),
        local_name!("fetile") => local_name!("feTile"),
        local_name!("feturbulence") => local_name!("feTurbulence"),
        local_name!("foreignobject") => local_name!("foreignObject"),
        local_name!("glyphref") => local_name!("glyphRef"),
        local_name!("lineargradient") => local_name!("linearGradient"),
        local_name!("radialgradient") => local_name!("radialGradient"),
        local_name!("textpath") => local_name!("textPath"),
        _ => return None,
    })
}

/// Attribute names adjusted on SVG elements (html5ever's `adjust_svg_attributes` and
/// `adjust_foreign_attributes`).
fn svg_attribute_name(name: &LocalName) -> Option<QualName> {
    Some(match *name {
        local_name!("attributename") => QualName::new(None, ns!(), local_name!("attributeName")),
        local_name!("attributetype") => QualName::new(None, ns!(), local_name!("attributeType")),
        local_name!("basefrequency") => QualName::new(None, ns!(), local_name!("baseFrequency")),
        local_name!("baseprofile") => QualName::new(None, ns!(), local_name!("baseProfile")),
        local_name!("calcmode") => QualName::new(None, ns!(), local_name!("calcMode")),
        local_name!("clippathunits") => QualName::new(None, ns!(), local_name!("clipPathUnits")),
        local_name!("diffuseconstant") => {
            QualName::new(None, ns!(), local_name!("diffuseConstant"))
        }
        local_name!("edgemode") => QualName::new(None, ns!(), local_name!("edgeMode")),
        local_name!("filterunits") => QualName::new(None, ns!(), local_name!("filterUnits")),
        local_name!("glyphref") => QualName::new(None, ns!(), local_name!("glyphRef")),
        local_name!("gradienttransform") => {
            QualName::new(None, ns!(), local_name!("gradientTransform"))
        }
        local_name!("gradientunits") => QualName::new(None, ns!(), local_name!("gradientUnits")),
        local_name!("kernelmatrix") => QualName::new(None, ns!(), local_name!("kernelMatrix")),
        local_name!("kernelunitlength") => {
            QualName::new(None, ns!(), local_name!("kernelUnitLength"))
        }
        local_name!("keypoints") => QualName::new(None, ns!(), local_name!("keyPoints")),
        local_name!("keysplines") => QualName::new(None, ns!(), local_name!("keySplines")),
        local_name!("keytimes") => QualName::new(None, ns!(), local_name!("keyTimes")),
        local_name!("lengthadjust") => QualName::new(None, ns!(), local_name!("lengthAdjust")),
        local_name!("limitingconeangle") => {
            QualName::new(None, ns!(), local_name!("limitingConeAngle"))
        }
        local_name!("markerheight") => QualName::new(None, ns!(), local_name!("markerHeight")),
        local_name!("markerunits") => QualName::new(None, ns!(), local_name!("markerUnits")),
        local_name!("markerwidth") => QualName::new(None, ns!(), local_name!("markerWidth")),
        local_name!("maskcontentunits") => {
            QualName::new(None, ns!(), local_name!("maskContentUnits"))
        }
        local_name!("maskunits") => QualName::new(None, ns!(), local_name!("maskUnits")),
        local_name!("numoctaves") => QualName::new(None, ns!(), local_name!("numOctaves")),
        local_name!("pathlength") => QualName::new(None, ns!(), local_name!("pathLength")),
        local_name!("patterncontentunits") => {
            QualName::new(None, ns!(), local_name!("patternContentUnits"))
        }
        local_name!("patterntransform") => {
            QualName::new(None, ns!(), local_name!("patternTransform"))
        }
        local_name!("patternunits") => QualName::new(None, ns!(), local_name!("patternUnits")),
        local_name!("pointsatx") => QualName::new(None, ns!(), local_name!("pointsAtX")),
        local_name!("pointsaty") => QualName::new(None, ns!(), local_name!("pointsAtY")),
        local_name!("pointsatz") => QualName::new(None, ns!(), local_name!("pointsAtZ")),
        local_name!("preservealpha") => QualName::new(None, ns!(), local_name!("preserveAlpha")),
        local_name!("preserveaspectratio") => {
            QualName::new(None, ns!(), local_name!("preserveAspectRatio"))
        }
        local_name!("primitiveunits") => QualName::new(None, ns!(), local_name!("primitiveUnits")),
        local_name!("refx") => QualName::new(None, ns!(), local_name!("refX")),
        local_name!("refy") => QualName::new(None, ns!(), local_name!("refY")),
        local_name!("repeatcount") => QualName::new(None, ns!(), local_name!("repeatCount")),
        local_name!("repeatdur") => QualName::new(None, ns!(), local_name!("repeatDur")),
        local_name!("requiredextensions") => {
            QualName::new(None, ns!(), local_name!("requiredExtensions"))
        }
        local_name!("requiredfeatures") => {
            QualName::new(None, ns!(), local_name!("requiredFeatures"))
        }
        local_name!("specularconstant") => {
            QualName::new(None, ns!(), local_name!("specularConstant"))
        }
        local_name!("specularexponent") => {
            QualName::new(None, ns!(), local_name!("specularExponent"))
        }
        local_name!("spreadmethod") => QualName::new(None, ns!(), local_name!("spreadMethod")),
        local_name!("startoffset") => QualName::new(None, ns!(), local_name!("startOffset")),
        local_name!("stddeviation") => QualName::new(None, ns!(), local_name!("stdDeviation")),
        local_name!("stitchtiles") => QualName::new(None, ns!(), local_name!("stitchTiles")),
        local_name!("surfacescale") => QualName::new(None, ns!(), local_name!("surfaceScale")),
        local_name!("systemlanguage") => QualName::new(None, ns!(), local_name!("systemLanguage")),
        local_name!("tablevalues") => QualName::new(None, ns!(), local_name!("tableValues")),
        local_name!("targetx") => QualName::new(None, ns!(), local_name!("targetX")),
        local_name!("targety") => QualName::new(None, ns!(), local_name!("targetY")),
        local_name!("textlength") => QualName::new(None, ns!(), local_name!("textLength")),
        local_name!("viewbox") => QualName::new(None, ns!(), local_name!("viewBox")),
        local_name!("viewtarget") => QualName::new(None, ns!(), local_name!("viewTarget")),
        local_name!("xchannelselector") => {
            QualName::new(None, ns!(), local_name!("xChannelSelector"))
        }
        local_name!("ychannelselector") => {
            QualName::new(None, ns!(), local_name!("yChannelSelector"))
        }
        local_name!("zoomandpan") => QualName::new(None, ns!(), local_name!("zoomAndPan")),
        local_name!("xlink:actuate") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("actuate"),
        ),
        local_name!("xlink:arcrole") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("arcrole"),
        ),
        local_name!("xlink:href") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("href"),
        ),
        local_name!("xlink:role") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("role"),
        ),
        local_name!("xlink:show") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("show"),
        ),
        local_name!("xlink:title") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("title"),
        ),
        local_name!("xlink:type") => QualName::new(
            Some(namespace_prefix!("xlink")),
            ns!(xlink),
            local_name!("type"),
        ),
        local_name!("xml:lang") => QualName::new(
            Some(namespace_prefix!("xml")),
            ns!(xml),
            local_name!("lang"),
        ),
        local_name!("xml:space") => QualName::new(
            Some(namespace_prefix!("xml")),
            ns!(xml),
            local_name!("space"),
        ),
        local_name!("xmlns") => QualName::new(
            Some(namespace_prefix!("")),
            ns!(xmlns),
            local_name!("xmlns"),
        ),
        local_name!("xmlns:xlink") => QualName::new(
            Some(namespace_prefix!("xmlns")),
            ns!(xmlns),
            local_name!("xlink"),
        ),
        _ => return None,
    })
}
