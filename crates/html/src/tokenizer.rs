//! The HTML tokenizer in front of html5ever's tree builder.
//!
//! Owns turning page text into html5ever [`Token`]s (WHATWG tokenization: data, RCDATA, RAWTEXT,
//! script data with its escaped states, PLAINTEXT, tags, attributes, comments, DOCTYPE, CDATA,
//! character references) and feeding them to a [`TokenSink`] — in the product the
//! `DepthGuard` → `TreeBuilder` → arena chain, so tree construction stays html5ever's.
//!
//! It exists for speed: html5ever's tokenizer pushes every character into a tendril, copies
//! attribute values and goes through a `BufferQueue` per character, which made it about half of
//! the parse time. This one sees the whole page at once: text runs, attribute values and
//! comments are found with word-at-a-time byte searches for the few bytes that matter and handed
//! on as slices of one shared input tendril (no copy) unless they hold a reference, a NUL or
//! came from a `\r`; names become atoms in one step. Every special byte is ASCII, so positions
//! are always char boundaries.
//!
//! It reproduces html5ever 0.40's token stream, not just the specification, where the two could
//! differ in the built tree: NUL in data is a `NullCharacterToken`, CDATA's NULs too, duplicate
//! attributes are dropped (the first is kept), a U+FEFF right after a script's end tag or a
//! charset declaration is dropped (html5ever's tokenizer is fed again there and drops a leading
//! one each time), and a `ParseError` token is sent wherever one of html5ever's decides whether
//! the tree builder drops the newline right after `<pre>`,
//! `<listing>` or `<textarea>` (it stops waiting at any token, errors included): for `</>`, for a
//! numeric reference without `;` in text, and before a start tag with an error inside it (which
//! `DepthGuard` may drop). Other parse errors are not reported. The differential tests
//! (`tokenizer_diff`) compare both tokenizers' token streams and built trees.

use std::borrow::Cow;
use std::mem;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::{RawKind, ScriptEscapeKind};
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName, QualName, ns};
use markup5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// Tokenizes `html` into `sink`, then calls `sink.end()`. A leading byte-order mark is dropped
/// and CR / CRLF become LF first (the spec's input preprocessing; one copy, only for pages that
/// contain a CR).
pub(crate) fn tokenize<S: TokenSink>(html: &str, sink: &S) {
    let html = html.strip_prefix('\u{feff}').unwrap_or(html);
    let input = if memchr::memchr(b'\r', html.as_bytes()).is_some() {
        StrTendril::from(normalize_newlines(html))
    } else {
        StrTendril::from(html)
    };
    Tokenizer::new(&input, sink).run();
    sink.end();
}

fn normalize_newlines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    out.push_str(rest);
    out
}

/// Kinds of raw text whose end-tag states are shared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Raw {
    Rcdata,
    Rawtext,
    Script,
    ScriptEscaped,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IdKind {
    Public,
    System,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Data,
    Rcdata,
    Rawtext,
    ScriptData,
    Plaintext,
    TagOpen,
    EndTagOpen,
    TagName,
    BeforeAttrName,
    AttrName,
    AfterAttrName,
    BeforeAttrValue,
    AttrValueQuoted(u8),
    AttrValueUnquoted,
    AfterAttrValueQuoted,
    SelfClosing,
    /// After `<` in RCDATA, RAWTEXT or script data.
    RawLessThan(Raw),
    /// After `</` in those, or in escaped script data.
    RawEndTagOpen(Raw),
    RawEndTagName(Raw),
    ScriptEscapeStart,
    ScriptEscapeStartDash,
    ScriptEscaped,
    ScriptEscapedDash,
    ScriptEscapedDashDash,
    ScriptEscapedLessThan,
    ScriptDoubleEscapeStart,
    ScriptDoubleEscaped,
    ScriptDoubleEscapedDash,
    ScriptDoubleEscapedDashDash,
    ScriptDoubleEscapedLessThan,
    ScriptDoubleEscapeEnd,
    MarkupDeclarationOpen,
    CommentStart,
    CommentStartDash,
    Comment,
    CommentEndDash,
    CommentEnd,
    CommentEndBang,
    BogusComment,
    Doctype,
    BeforeDoctypeName,
    DoctypeName,
    AfterDoctypeName,
    AfterDoctypeKeyword(IdKind),
    BeforeDoctypeId(IdKind),
    DoctypeIdQuoted(IdKind, u8),
    AfterDoctypeId(IdKind),
    BetweenDoctypeIds,
    BogusDoctype,
    CdataSection,
    CdataBracket,
    CdataEnd,
}

/// Text being collected: nothing, a range of the input (handed on without a copy), or an owned
/// tendril once something that is not a contiguous input range was added.
#[derive(Default)]
enum Buf {
    #[default]
    Empty,
    Range(usize, usize),
    Owned(StrTendril),
}

impl Buf {
    fn push(&mut self, src: &str, a: usize, b: usize) {
        if a >= b {
            return;
        }
        match self {
            Buf::Empty => *self = Buf::Range(a, b),
            Buf::Range(_, e) if *e == a => *e = b,
            Buf::Range(s, e) => {
                let mut t = StrTendril::from_slice(slice(src, *s, *e));
                t.push_slice(slice(src, a, b));
                *self = Buf::Owned(t);
            }
            Buf::Owned(t) => t.push_slice(slice(src, a, b)),
        }
    }

    fn push_str(&mut self, src: &str, s: &str) {
        match self {
            Buf::Empty => *self = Buf::Owned(StrTendril::from_slice(s)),
            Buf::Range(a, b) => {
                let mut t = StrTendril::from_slice(slice(src, *a, *b));
                t.push_slice(s);
                *self = Buf::Owned(t);
            }
            Buf::Owned(t) => t.push_slice(s),
        }
    }

    fn push_char(&mut self, src: &str, c: char) {
        self.push_str(src, c.encode_utf8(&mut [0; 4]));
    }

    /// The collected text (None when empty); the buffer is left empty.
    fn take(&mut self, input: &StrTendril) -> Option<StrTendril> {
        match mem::take(self) {
            Buf::Empty => None,
            Buf::Range(a, b) => Some(subtendril(input, a, b)),
            Buf::Owned(t) => (!t.is_empty()).then_some(t),
        }
    }
}

/// `src[a..b]`, or "" when that is not a char-boundary range (never, by construction).
fn slice(src: &str, a: usize, b: usize) -> &str {
    src.get(a..b).unwrap_or_default()
}

/// A slice of the input sharing its buffer (a copy only if the range were invalid).
fn subtendril(input: &StrTendril, a: usize, b: usize) -> StrTendril {
    let shared = u32::try_from(a)
        .ok()
        .zip(u32::try_from(b.saturating_sub(a)).ok())
        .and_then(|(off, len)| input.try_subtendril(off, len).ok());
    shared.unwrap_or_else(|| StrTendril::from_slice(slice(input, a, b)))
}

/// Index of the first byte of `hay[from..]` in `set`, or `hay.len()`. Eight bytes at a time:
/// a byte equal to `n` is a zero byte of `word ^ n·0x01…01`, and the classic has-zero-byte mask's
/// lowest set bit marks the first one exactly (false positives only appear above a true zero).
/// Sets of up to three bytes go to `memchr`, which reads 16 or 32 bytes a step where the CPU
/// has vector instructions (natively; in wasm it reads a word at a time, as this does).
#[inline]
fn find_any<const N: usize>(hay: &[u8], from: usize, set: [u8; N]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let Some(rest) = hay.get(from..) else {
        return hay.len();
    };
    let found = match *set.as_slice() {
        [a] => Some(memchr::memchr(a, rest)),
        [a, b] => Some(memchr::memchr2(a, b, rest)),
        [a, b, c] => Some(memchr::memchr3(a, b, c, rest)),
        _ => None,
    };
    if let Some(found) = found {
        return found.map_or(hay.len(), |i| from + i);
    }
    let (words, tail) = rest.as_chunks::<8>();
    for (k, w) in words.iter().enumerate() {
        let w = u64::from_le_bytes(*w);
        let mut m = 0;
        for n in set {
            let x = w ^ (LO * u64::from(n));
            m |= x.wrapping_sub(LO) & !x & HI;
        }
        if m != 0 {
            return from + k * 8 + (m.trailing_zeros() / 8) as usize;
        }
    }
    let base = from + words.len() * 8;
    tail.iter()
        .position(|b| set.contains(b))
        .map_or(hay.len(), |i| base + i)
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b' ')
}

/// A character reference's result.
enum CharRef {
    /// Not a reference: the `&` is text. `error`: html5ever reports a parse error.
    NotARef { error: bool },
    Chars {
        chars: [char; 2],
        count: usize,
        /// Input position after the reference.
        end: usize,
        /// Whether html5ever reports a parse error before the characters.
        error: bool,
    },
}

struct Tokenizer<'a, S: TokenSink> {
    sink: &'a S,
    input: &'a StrTendril,
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    state: State,
    done: bool,
    text: Buf,
    tag_kind: TagKind,
    tag_name: LocalName,
    self_closing: bool,
    attrs: Vec<Attribute>,
    had_duplicate: bool,
    /// Whether html5ever would have reported a parse error inside the current tag.
    tag_error: bool,
    attr_name: Option<LocalName>,
    attr_value: Buf,
    last_start_tag: Option<LocalName>,
    comment: Buf,
    doctype: Doctype,
    /// The script double-escape temporary buffer (lower-cased letters).
    temp: String,
    scratch: String,
    /// Atoms of recent short names by their packed lower-cased bytes ([`packed_name`]), in
    /// pairs of entries (the more recent first): a page repeats a few dozen tag and attribute
    /// names hundreds of times, and a look here is cheaper than interning the name again
    /// (hashing it to find it in the static set): about 1% of mapping's instructions. Pairs,
    /// because two names of one slot often alternate (`<p class=…>`).
    names: [(u64, LocalName); NAME_CACHE],
}

/// Entries of [`Tokenizer::names`] (a power of two).
const NAME_CACHE: usize = 128;

/// A name of 1 to 8 bytes, ASCII letters lower-cased, as an integer (little-endian, zero
/// padded); `None` for longer or empty names and names with a NUL (which becomes U+FFFD).
fn packed_name(s: &str) -> Option<u64> {
    super::text::pack_bytes(s.as_bytes(), true)
}

impl<'a, S: TokenSink> Tokenizer<'a, S> {
    fn new(input: &'a StrTendril, sink: &'a S) -> Self {
        let src: &str = input;
        Tokenizer {
            sink,
            input,
            src,
            b: src.as_bytes(),
            pos: 0,
            state: State::Data,
            done: false,
            text: Buf::Empty,
            tag_kind: TagKind::StartTag,
            tag_name: LocalName::default(),
            self_closing: false,
            attrs: Vec::new(),
            had_duplicate: false,
            tag_error: false,
            attr_name: None,
            attr_value: Buf::Empty,
            last_start_tag: None,
            comment: Buf::Empty,
            doctype: Doctype::default(),
            temp: String::new(),
            scratch: String::new(),
            names: std::array::from_fn(|_| (0, LocalName::default())),
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn text_range(&mut self, a: usize, b: usize) {
        self.text.push(self.src, a, b);
    }

    fn send(&self, token: Token) -> TokenSinkResult<S::Handle> {
        self.sink.process_token(token, 1)
    }

    fn flush_text(&mut self) {
        if let Some(t) = self.text.take(self.input) {
            let _ = self.send(Token::CharacterTokens(t));
        }
    }

    fn parse_error(&mut self, msg: &'static str) {
        self.flush_text();
        let _ = self.send(Token::ParseError(Cow::Borrowed(msg)));
    }

    fn null_character(&mut self) {
        self.flush_text();
        let _ = self.send(Token::NullCharacterToken);
    }

    fn eof(&mut self) {
        self.flush_text();
        let _ = self.send(Token::EOFToken);
        self.done = true;
    }

    fn run(&mut self) {
        while !self.done {
            self.step();
        }
    }

    /// An atom for the name in `src[a..b]`: ASCII letters lower-cased, NUL as U+FFFD.
    fn name(&mut self, a: usize, b: usize) -> LocalName {
        let s = slice(self.src, a, b);
        if let Some(k) = packed_name(s) {
            // Fibonacci hashing: the top bits of the product pick the pair.
            let pair = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (65 - NAME_CACHE.trailing_zeros()))
                as usize
                * 2;
            if self.names[pair].0 != k {
                if self.names[pair + 1].0 != k {
                    let bytes = k.to_le_bytes();
                    let lower = std::str::from_utf8(&bytes[..s.len()]).unwrap_or(s);
                    self.names[pair + 1] = (k, LocalName::from(lower));
                }
                self.names.swap(pair, pair + 1);
            }
            return self.names[pair].1.clone();
        }
        if !s.bytes().any(|c| c.is_ascii_uppercase() || c == 0) {
            return LocalName::from(s);
        }
        self.scratch.clear();
        for c in s.chars() {
            self.scratch.push(if c == '\0' {
                '\u{fffd}'
            } else {
                c.to_ascii_lowercase()
            });
        }
        LocalName::from(self.scratch.as_str())
    }

    fn start_tag(&mut self, kind: TagKind) {
        self.tag_kind = kind;
        self.self_closing = false;
        self.had_duplicate = false;
        self.tag_error = false;
        self.attrs.clear();
        self.attr_name = None;
        self.attr_value = Buf::Empty;
    }

    /// Adds the pending attribute to the tag unless one of that name is there (html5ever keeps
    /// the first).
    fn finish_attr(&mut self) {
        let Some(name) = self.attr_name.take() else {
            return;
        };
        let value = self.attr_value.take(self.input).unwrap_or_default();
        if self.attrs.iter().any(|a| a.name.local == name) {
            self.had_duplicate = true;
            self.tag_error = true;
        } else {
            self.attrs.push(Attribute {
                name: QualName::new(None, ns!(), name),
                value,
            });
        }
    }

    fn new_attr(&mut self, a: usize, b: usize) {
        self.finish_attr();
        let name = self.name(a, b);
        self.attr_name = Some(name);
    }

    fn emit_tag(&mut self) {
        self.finish_attr();
        self.flush_text();
        let name = mem::take(&mut self.tag_name);
        if self.tag_kind == TagKind::StartTag {
            if self.tag_error {
                // html5ever reports errors inside a tag before the tag. When `DepthGuard` drops
                // the tag, that error is what ends the tree builder's wait for the newline after
                // a `<pre>`, so it has to be there.
                self.parse_error("Bad tag");
            }
            self.last_start_tag = Some(name.clone());
        }
        let tag = Tag {
            kind: self.tag_kind,
            name,
            self_closing: self.self_closing,
            // Moved out at their exact size, and the buffer they were gathered in stays for the
            // next tag: most tags have one or two, and a new Vec grown for each tag took the
            // slower growth path and four places. Copied in one move (`append`): collecting
            // the drained attributes moved them one at a time, and cost more than the copy.
            attrs: if self.attrs.is_empty() {
                Vec::new()
            } else {
                let mut attrs = Vec::with_capacity(self.attrs.len());
                attrs.append(&mut self.attrs);
                attrs
            },
            had_duplicate_attributes: self.had_duplicate,
        };
        self.state = match self.send(Token::TagToken(tag)) {
            TokenSinkResult::RawData(RawKind::Rcdata) => State::Rcdata,
            TokenSinkResult::RawData(RawKind::Rawtext) => State::Rawtext,
            TokenSinkResult::RawData(RawKind::ScriptData) => State::ScriptData,
            TokenSinkResult::RawData(RawKind::ScriptDataEscaped(ScriptEscapeKind::Escaped)) => {
                State::ScriptEscaped
            }
            TokenSinkResult::RawData(RawKind::ScriptDataEscaped(
                ScriptEscapeKind::DoubleEscaped,
            )) => State::ScriptDoubleEscaped,
            TokenSinkResult::Plaintext => State::Plaintext,
            // Scripts are never run, so a `Script` pause just continues; encoding hints are
            // the decoder's business (done before parsing). html5ever's tokenizer returns to
            // its driver at both, and drops a U+FEFF that starts the input it is fed again
            // (its `discard_bom` is never cleared): so is one right after such a tag here.
            TokenSinkResult::Script(_) | TokenSinkResult::EncodingIndicator(_) => {
                if self
                    .src
                    .get(self.pos..)
                    .is_some_and(|rest| rest.starts_with('\u{feff}'))
                {
                    self.pos += '\u{feff}'.len_utf8();
                }
                State::Data
            }
            TokenSinkResult::Continue => State::Data,
        };
    }

    fn emit_comment(&mut self) {
        self.flush_text();
        let c = self.comment.take(self.input).unwrap_or_default();
        let _ = self.send(Token::CommentToken(c));
        self.state = State::Data;
    }

    fn emit_doctype(&mut self, force_quirks: bool) {
        self.flush_text();
        let mut d = mem::take(&mut self.doctype);
        d.force_quirks |= force_quirks;
        let _ = self.send(Token::DoctypeToken(d));
        self.state = State::Data;
    }

    /// End of input inside a comment: the comment so far is emitted, then the end.
    fn eof_in_comment(&mut self) {
        self.emit_comment();
        self.eof();
    }

    /// End of input inside a DOCTYPE: emitted with force-quirks, then the end.
    fn eof_in_doctype(&mut self) {
        self.emit_doctype(true);
        self.eof();
    }

    fn raw_state(kind: Raw) -> State {
        match kind {
            Raw::Rcdata => State::Rcdata,
            Raw::Rawtext => State::Rawtext,
            Raw::Script => State::ScriptData,
            Raw::ScriptEscaped => State::ScriptEscaped,
        }
    }

    /// Reads a character reference whose `&` is just before `self.pos`.
    fn char_ref(&self, in_attribute: bool) -> CharRef {
        let b = self.b;
        let p = self.pos;
        match b.get(p) {
            Some(b'#') => {
                let mut i = p + 1;
                let hex = matches!(b.get(i), Some(b'x' | b'X'));
                if hex {
                    i += 1;
                }
                let radix = if hex { 16 } else { 10 };
                let digits = i;
                let mut n: u32 = 0;
                while let Some(d) = b.get(i).and_then(|&c| char::from(c).to_digit(radix)) {
                    // Saturate past the Unicode range: the value is replaced anyway.
                    n = n.saturating_mul(radix).saturating_add(d).min(0x11_0000);
                    i += 1;
                }
                if i == digits {
                    return CharRef::NotARef { error: true };
                }
                let semicolon = b.get(i) == Some(&b';');
                if semicolon {
                    i += 1;
                }
                let (c, bad) = numeric_char(n);
                CharRef::Chars {
                    chars: [c, '\0'],
                    count: 1,
                    end: i,
                    error: bad || !semicolon,
                }
            }
            Some(c) if c.is_ascii_alphanumeric() => {
                // Longest name in the table; html5ever's table also holds every prefix of a
                // name (value 0), which tells when to stop.
                let mut best = None;
                let mut i = p;
                while let Some(&c) = b.get(i) {
                    if !(c.is_ascii_alphanumeric() || c == b';') {
                        break;
                    }
                    i += 1;
                    match NAMED_ENTITIES.get(slice(self.src, p, i)) {
                        None => break,
                        Some(&(c1, c2)) if c1 != 0 => best = Some((i, c1, c2)),
                        Some(_) => {}
                    }
                    if c == b';' {
                        break;
                    }
                }
                let Some((end, c1, c2)) = best else {
                    // html5ever reports an unknown name only when a `;` ends its letters.
                    let run = b.get(p..).unwrap_or_default();
                    let letters = run.iter().take_while(|c| c.is_ascii_alphanumeric()).count();
                    return CharRef::NotARef {
                        error: run.get(letters) == Some(&b';'),
                    };
                };
                let semicolon = b.get(end - 1) == Some(&b';');
                // The attribute-value legacy rule: `&copy=` / `&copyx` stay text.
                if !semicolon
                    && in_attribute
                    && b.get(end)
                        .is_some_and(|&c| c == b'=' || c.is_ascii_alphanumeric())
                {
                    return CharRef::NotARef { error: false };
                }
                let ch = |u| char::from_u32(u).unwrap_or('\u{fffd}');
                CharRef::Chars {
                    chars: [ch(c1), ch(c2)],
                    count: if c2 == 0 { 1 } else { 2 },
                    end,
                    error: !semicolon,
                }
            }
            _ => CharRef::NotARef { error: false },
        }
    }

    /// A character reference in data or RCDATA; `amp` is the position of its `&`.
    fn text_char_ref(&mut self, amp: usize) {
        match self.char_ref(false) {
            CharRef::NotARef { .. } => self.text_range(amp, amp + 1),
            CharRef::Chars {
                chars,
                count,
                end,
                error,
            } => {
                if error {
                    // Sent before the characters, as html5ever does: after `<pre>`, a `&#10`
                    // without `;` is then not the newline the tree builder drops.
                    self.parse_error("Invalid character reference");
                }
                for &c in chars.iter().take(count) {
                    self.text.push_char(self.src, c);
                }
                self.pos = end;
            }
        }
    }

    fn attr_char_ref(&mut self, amp: usize) {
        match self.char_ref(true) {
            CharRef::NotARef { error } => {
                self.tag_error |= error;
                self.attr_value.push(self.src, amp, amp + 1);
            }
            CharRef::Chars {
                chars,
                count,
                end,
                error,
            } => {
                self.tag_error |= error;
                for &c in chars.iter().take(count) {
                    self.attr_value.push_char(self.src, c);
                }
                self.pos = end;
            }
        }
    }

    /// Lower-cased `src[a..b]` (ASCII letters) appended to the doctype name or an id.
    fn doctype_push(&mut self, field: DoctypeField, a: usize, b: usize) {
        let s = slice(self.src, a, b);
        let target = match field {
            DoctypeField::Name => &mut self.doctype.name,
            DoctypeField::Id(IdKind::Public) => &mut self.doctype.public_id,
            DoctypeField::Id(IdKind::System) => &mut self.doctype.system_id,
        };
        let t = target.get_or_insert_with(StrTendril::new);
        if field == DoctypeField::Name {
            for c in s.chars() {
                t.push_char(if c == '\0' {
                    '\u{fffd}'
                } else {
                    c.to_ascii_lowercase()
                });
            }
        } else {
            for c in s.chars() {
                t.push_char(if c == '\0' { '\u{fffd}' } else { c });
            }
        }
    }

    fn doctype_id_empty(&mut self, kind: IdKind) {
        let id = match kind {
            IdKind::Public => &mut self.doctype.public_id,
            IdKind::System => &mut self.doctype.system_id,
        };
        *id = Some(StrTendril::new());
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    fn starts_with_ci(&self, pat: &[u8]) -> bool {
        self.b
            .get(self.pos..self.pos + pat.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(pat))
    }

    /// Runs one state until it changes state (or input ends).
    fn step(&mut self) {
        let b = self.b;
        match self.state {
            State::Data => loop {
                let i = find_any(b, self.pos, [b'<', b'&', 0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'<') => {
                        self.state = State::TagOpen;
                        return;
                    }
                    Some(b'&') => self.text_char_ref(i),
                    Some(_) => self.null_character(),
                }
            },
            State::Rcdata => loop {
                let i = find_any(b, self.pos, [b'<', b'&', 0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'<') => {
                        self.state = State::RawLessThan(Raw::Rcdata);
                        return;
                    }
                    Some(b'&') => self.text_char_ref(i),
                    Some(_) => self.text.push_str(self.src, "\u{fffd}"),
                }
            },
            State::Rawtext | State::ScriptData => loop {
                let i = find_any(b, self.pos, [b'<', 0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'<') => {
                        let kind = if self.state == State::Rawtext {
                            Raw::Rawtext
                        } else {
                            Raw::Script
                        };
                        self.state = State::RawLessThan(kind);
                        return;
                    }
                    Some(_) => self.text.push_str(self.src, "\u{fffd}"),
                }
            },
            State::Plaintext => loop {
                let i = find_any(b, self.pos, [0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                if i >= b.len() {
                    return self.eof();
                }
                self.text.push_str(self.src, "\u{fffd}");
            },
            State::TagOpen => match self.peek() {
                None => {
                    self.text_range(self.pos - 1, self.pos);
                    self.eof();
                }
                Some(b'!') => {
                    self.pos += 1;
                    self.state = State::MarkupDeclarationOpen;
                }
                Some(b'/') => {
                    self.pos += 1;
                    self.state = State::EndTagOpen;
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    self.start_tag(TagKind::StartTag);
                    self.state = State::TagName;
                }
                Some(b'?') => {
                    self.comment = Buf::Empty;
                    self.state = State::BogusComment;
                }
                Some(_) => {
                    self.text_range(self.pos - 1, self.pos);
                    self.state = State::Data;
                }
            },
            State::EndTagOpen => match self.peek() {
                None => {
                    self.text_range(self.pos - 2, self.pos);
                    self.eof();
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    self.start_tag(TagKind::EndTag);
                    self.state = State::TagName;
                }
                Some(b'>') => {
                    self.pos += 1;
                    self.parse_error("Empty end tag");
                    self.state = State::Data;
                }
                Some(_) => {
                    self.comment = Buf::Empty;
                    self.state = State::BogusComment;
                }
            },
            State::TagName => {
                let start = self.pos;
                let mut i = start;
                while b
                    .get(i)
                    .is_some_and(|&c| !is_ws(c) && c != b'/' && c != b'>')
                {
                    i += 1;
                }
                let Some(&c) = b.get(i) else {
                    self.pos = i;
                    return self.eof();
                };
                self.tag_error |= b.get(start..i).is_some_and(|n| n.contains(&0));
                self.tag_name = self.name(start, i);
                self.pos = i + 1;
                self.after_name(c);
            }
            State::BeforeAttrName | State::AfterAttrName => {
                self.skip_ws();
                match self.peek() {
                    None => self.eof(),
                    Some(b'/') => {
                        self.pos += 1;
                        self.state = State::SelfClosing;
                    }
                    Some(b'>') => {
                        self.pos += 1;
                        self.emit_tag();
                    }
                    Some(b'=') if self.state == State::AfterAttrName => {
                        self.pos += 1;
                        self.state = State::BeforeAttrValue;
                    }
                    // Any other byte (even `=` here) starts a name.
                    Some(_) => self.state = State::AttrName,
                }
            }
            State::AttrName => {
                let start = self.pos;
                // The first character belongs to the name whatever it is.
                let mut i = start + 1;
                while b
                    .get(i)
                    .is_some_and(|&c| !is_ws(c) && !matches!(c, b'/' | b'>' | b'='))
                {
                    i += 1;
                }
                let Some(&c) = b.get(i) else {
                    self.pos = i;
                    return self.eof();
                };
                self.tag_error |= b.get(start) == Some(&b'=')
                    || b.get(start..i)
                        .is_some_and(|n| n.iter().any(|c| matches!(c, b'"' | b'\'' | b'<' | 0)));
                self.new_attr(start, i);
                self.pos = i + 1;
                if c == b'=' {
                    self.state = State::BeforeAttrValue;
                } else if is_ws(c) {
                    self.state = State::AfterAttrName;
                } else {
                    self.after_name(c);
                }
            }
            State::BeforeAttrValue => {
                self.skip_ws();
                match self.peek() {
                    Some(q @ (b'"' | b'\'')) => {
                        self.pos += 1;
                        self.state = State::AttrValueQuoted(q);
                    }
                    Some(b'>') => {
                        self.pos += 1;
                        self.tag_error = true;
                        self.emit_tag();
                    }
                    _ => self.state = State::AttrValueUnquoted,
                }
            }
            State::AttrValueQuoted(q) => loop {
                let i = find_any(b, self.pos, [q, b'&', 0]);
                self.attr_value.push(self.src, self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'&') => self.attr_char_ref(i),
                    Some(0) => {
                        self.tag_error = true;
                        self.attr_value.push_str(self.src, "\u{fffd}");
                    }
                    Some(_) => {
                        self.state = State::AfterAttrValueQuoted;
                        return;
                    }
                }
            },
            State::AttrValueUnquoted => loop {
                let i = find_any(b, self.pos, [b' ', b'\n', b'\t', b'\x0C', b'&', b'>', 0]);
                self.attr_value.push(self.src, self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'&') => self.attr_char_ref(i),
                    Some(0) => {
                        self.tag_error = true;
                        self.attr_value.push_str(self.src, "\u{fffd}");
                    }
                    Some(b'>') => return self.emit_tag(),
                    Some(_) => {
                        self.state = State::BeforeAttrName;
                        return;
                    }
                }
            },
            State::AfterAttrValueQuoted => match self.peek() {
                None => self.eof(),
                Some(c) if is_ws(c) || c == b'/' || c == b'>' => {
                    self.pos += 1;
                    self.after_name(c);
                }
                Some(_) => {
                    self.tag_error = true;
                    self.state = State::BeforeAttrName;
                }
            },
            State::SelfClosing => match self.peek() {
                None => self.eof(),
                Some(b'>') => {
                    self.pos += 1;
                    self.self_closing = true;
                    self.emit_tag();
                }
                Some(_) => {
                    self.tag_error = true;
                    self.state = State::BeforeAttrName;
                }
            },
            State::RawLessThan(kind) => match self.peek() {
                Some(b'/') => {
                    self.pos += 1;
                    self.state = State::RawEndTagOpen(kind);
                }
                Some(b'!') if kind == Raw::Script => {
                    self.text_range(self.pos - 1, self.pos + 1);
                    self.pos += 1;
                    self.state = State::ScriptEscapeStart;
                }
                _ => {
                    self.text_range(self.pos - 1, self.pos);
                    self.state = Self::raw_state(kind);
                }
            },
            State::RawEndTagOpen(kind) => match self.peek() {
                Some(c) if c.is_ascii_alphabetic() => self.state = State::RawEndTagName(kind),
                _ => {
                    self.text_range(self.pos - 2, self.pos);
                    self.state = Self::raw_state(kind);
                }
            },
            State::RawEndTagName(kind) => {
                let start = self.pos;
                let mut i = start;
                while b.get(i).is_some_and(u8::is_ascii_alphabetic) {
                    i += 1;
                }
                let name = slice(self.src, start, i);
                let appropriate = self
                    .last_start_tag
                    .as_ref()
                    .is_some_and(|l| str::eq_ignore_ascii_case(l, name));
                match b.get(i) {
                    Some(&c) if appropriate && (is_ws(c) || c == b'/' || c == b'>') => {
                        self.start_tag(TagKind::EndTag);
                        self.tag_name = self.name(start, i);
                        self.pos = i + 1;
                        self.after_name(c);
                    }
                    _ => {
                        // `</` and the letters are text; reconsume what ended them.
                        self.text_range(start - 2, i);
                        self.pos = i;
                        self.state = Self::raw_state(kind);
                    }
                }
            }
            State::ScriptEscapeStart | State::ScriptEscapeStartDash => {
                if self.peek() == Some(b'-') {
                    self.text_range(self.pos, self.pos + 1);
                    self.pos += 1;
                    self.state = if self.state == State::ScriptEscapeStart {
                        State::ScriptEscapeStartDash
                    } else {
                        State::ScriptEscapedDashDash
                    };
                } else {
                    self.state = State::ScriptData;
                }
            }
            State::ScriptEscaped | State::ScriptDoubleEscaped => loop {
                let i = find_any(b, self.pos, [b'-', b'<', 0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                let double = self.state == State::ScriptDoubleEscaped;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b'-') => {
                        self.text_range(i, i + 1);
                        self.state = if double {
                            State::ScriptDoubleEscapedDash
                        } else {
                            State::ScriptEscapedDash
                        };
                        return;
                    }
                    Some(b'<') => {
                        self.state = if double {
                            self.text_range(i, i + 1);
                            State::ScriptDoubleEscapedLessThan
                        } else {
                            State::ScriptEscapedLessThan
                        };
                        return;
                    }
                    Some(_) => self.text.push_str(self.src, "\u{fffd}"),
                }
            },
            State::ScriptEscapedDash
            | State::ScriptEscapedDashDash
            | State::ScriptDoubleEscapedDash
            | State::ScriptDoubleEscapedDashDash => {
                let double = matches!(
                    self.state,
                    State::ScriptDoubleEscapedDash | State::ScriptDoubleEscapedDashDash
                );
                let dash_dash = matches!(
                    self.state,
                    State::ScriptEscapedDashDash | State::ScriptDoubleEscapedDashDash
                );
                let (escaped, less_than, dd) = if double {
                    (
                        State::ScriptDoubleEscaped,
                        State::ScriptDoubleEscapedLessThan,
                        State::ScriptDoubleEscapedDashDash,
                    )
                } else {
                    (
                        State::ScriptEscaped,
                        State::ScriptEscapedLessThan,
                        State::ScriptEscapedDashDash,
                    )
                };
                match self.peek() {
                    None => self.eof(),
                    Some(b'-') => {
                        self.text_range(self.pos, self.pos + 1);
                        self.pos += 1;
                        self.state = dd;
                    }
                    Some(b'<') => {
                        if double {
                            self.text_range(self.pos, self.pos + 1);
                        }
                        self.pos += 1;
                        self.state = less_than;
                    }
                    Some(b'>') if dash_dash => {
                        self.text_range(self.pos, self.pos + 1);
                        self.pos += 1;
                        self.state = State::ScriptData;
                    }
                    // Anything else (NUL too) is what the escaped state does with it.
                    Some(_) => self.state = escaped,
                }
            }
            State::ScriptEscapedLessThan => match self.peek() {
                Some(b'/') => {
                    self.pos += 1;
                    self.state = State::RawEndTagOpen(Raw::ScriptEscaped);
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    self.text_range(self.pos - 1, self.pos);
                    self.temp.clear();
                    self.state = State::ScriptDoubleEscapeStart;
                }
                None => {
                    self.text_range(self.pos - 1, self.pos);
                    self.eof();
                }
                Some(_) => {
                    self.text_range(self.pos - 1, self.pos);
                    self.state = State::ScriptEscaped;
                }
            },
            State::ScriptDoubleEscapeStart | State::ScriptDoubleEscapeEnd => {
                let start = self.pos;
                let mut i = start;
                while let Some(&c) = b.get(i).filter(|c| c.is_ascii_alphabetic()) {
                    self.temp.push(char::from(c.to_ascii_lowercase()));
                    i += 1;
                }
                self.text_range(start, i);
                self.pos = i;
                let opening = self.state == State::ScriptDoubleEscapeStart;
                let (on_script, otherwise, fallback) = if opening {
                    (
                        State::ScriptDoubleEscaped,
                        State::ScriptEscaped,
                        State::ScriptEscaped,
                    )
                } else {
                    (
                        State::ScriptEscaped,
                        State::ScriptDoubleEscaped,
                        State::ScriptDoubleEscaped,
                    )
                };
                match b.get(i) {
                    None => self.eof(),
                    Some(&c) if is_ws(c) || c == b'/' || c == b'>' => {
                        self.text_range(i, i + 1);
                        self.pos = i + 1;
                        self.state = if self.temp == "script" {
                            on_script
                        } else {
                            otherwise
                        };
                    }
                    Some(_) => self.state = fallback,
                }
            }
            State::ScriptDoubleEscapedLessThan => {
                if self.peek() == Some(b'/') {
                    self.text_range(self.pos, self.pos + 1);
                    self.pos += 1;
                    self.temp.clear();
                    self.state = State::ScriptDoubleEscapeEnd;
                } else {
                    self.state = State::ScriptDoubleEscaped;
                }
            }
            State::MarkupDeclarationOpen => {
                let rest = b.get(self.pos..).unwrap_or_default();
                if rest.starts_with(b"--") {
                    self.pos += 2;
                    self.comment = Buf::Empty;
                    self.state = State::CommentStart;
                } else if self.starts_with_ci(b"doctype") {
                    self.pos += 7;
                    self.state = State::Doctype;
                } else if rest.starts_with(b"[CDATA[") && {
                    // The tree builder answers from the tokens it has seen: send the text first.
                    self.flush_text();
                    self.sink
                        .adjusted_current_node_present_but_not_in_html_namespace()
                } {
                    self.pos += 7;
                    self.state = State::CdataSection;
                } else {
                    self.comment = Buf::Empty;
                    self.state = State::BogusComment;
                }
            }
            State::CommentStart | State::CommentStartDash => match self.peek() {
                None => self.eof_in_comment(),
                Some(b'-') => {
                    self.pos += 1;
                    self.state = if self.state == State::CommentStart {
                        State::CommentStartDash
                    } else {
                        State::CommentEnd
                    };
                }
                Some(b'>') => {
                    self.pos += 1;
                    self.emit_comment();
                }
                Some(_) => {
                    if self.state == State::CommentStartDash {
                        self.comment.push(self.src, self.pos - 1, self.pos);
                    }
                    self.state = State::Comment;
                }
            },
            // The comment less-than-sign states of the spec only report nested-comment errors
            // (html5ever skips them after `<!--` too); the data is the same without them.
            State::Comment => loop {
                let i = find_any(b, self.pos, [b'-', 0]);
                self.comment.push(self.src, self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof_in_comment(),
                    Some(b'-') => {
                        self.state = State::CommentEndDash;
                        return;
                    }
                    Some(_) => self.comment.push_str(self.src, "\u{fffd}"),
                }
            },
            State::CommentEndDash => match self.peek() {
                None => self.eof_in_comment(),
                Some(b'-') => {
                    self.pos += 1;
                    self.state = State::CommentEnd;
                }
                Some(_) => {
                    self.comment.push(self.src, self.pos - 1, self.pos);
                    self.state = State::Comment;
                }
            },
            // Here the two bytes before `pos` are `--`.
            State::CommentEnd => match self.peek() {
                None => self.eof_in_comment(),
                Some(b'>') => {
                    self.pos += 1;
                    self.emit_comment();
                }
                Some(b'!') => {
                    self.pos += 1;
                    self.state = State::CommentEndBang;
                }
                Some(b'-') => {
                    self.comment.push(self.src, self.pos - 2, self.pos - 1);
                    self.pos += 1;
                }
                Some(_) => {
                    self.comment.push(self.src, self.pos - 2, self.pos);
                    self.state = State::Comment;
                }
            },
            // Here the three bytes before `pos` are `--!`.
            State::CommentEndBang => match self.peek() {
                None => self.eof_in_comment(),
                Some(b'>') => {
                    self.pos += 1;
                    self.emit_comment();
                }
                Some(c) => {
                    self.comment.push(self.src, self.pos - 3, self.pos);
                    if c == b'-' {
                        self.pos += 1;
                        self.state = State::CommentEndDash;
                    } else {
                        self.state = State::Comment;
                    }
                }
            },
            State::BogusComment => loop {
                let i = find_any(b, self.pos, [b'>', 0]);
                self.comment.push(self.src, self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof_in_comment(),
                    Some(b'>') => return self.emit_comment(),
                    Some(_) => self.comment.push_str(self.src, "\u{fffd}"),
                }
            },
            State::Doctype => match self.peek() {
                None => {
                    self.doctype = Doctype::default();
                    self.emit_doctype(true);
                    self.eof();
                }
                Some(c) => {
                    if is_ws(c) {
                        self.pos += 1;
                    }
                    self.state = State::BeforeDoctypeName;
                }
            },
            State::BeforeDoctypeName => {
                self.skip_ws();
                self.doctype = Doctype::default();
                match self.peek() {
                    None => self.eof_in_doctype(),
                    Some(b'>') => {
                        self.pos += 1;
                        self.emit_doctype(true);
                    }
                    Some(_) => {
                        self.doctype.name = Some(StrTendril::new());
                        self.state = State::DoctypeName;
                    }
                }
            }
            State::DoctypeName => {
                let start = self.pos;
                let i = find_any(b, start, [b'\t', b'\n', b'\x0C', b' ', b'>']);
                self.doctype_push(DoctypeField::Name, start, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => self.eof_in_doctype(),
                    Some(b'>') => self.emit_doctype(false),
                    Some(_) => self.state = State::AfterDoctypeName,
                }
            }
            State::AfterDoctypeName => {
                self.skip_ws();
                if self.starts_with_ci(b"public") {
                    self.pos += 6;
                    self.state = State::AfterDoctypeKeyword(IdKind::Public);
                } else if self.starts_with_ci(b"system") {
                    self.pos += 6;
                    self.state = State::AfterDoctypeKeyword(IdKind::System);
                } else {
                    self.doctype_tail(false, true);
                }
            }
            State::AfterDoctypeKeyword(kind) => match self.peek() {
                Some(c) if is_ws(c) => {
                    self.pos += 1;
                    self.state = State::BeforeDoctypeId(kind);
                }
                Some(q @ (b'"' | b'\'')) => {
                    self.pos += 1;
                    self.doctype_id_empty(kind);
                    self.state = State::DoctypeIdQuoted(kind, q);
                }
                _ => self.doctype_tail(true, true),
            },
            State::BeforeDoctypeId(kind) => {
                self.skip_ws();
                match self.peek() {
                    Some(q @ (b'"' | b'\'')) => {
                        self.pos += 1;
                        self.doctype_id_empty(kind);
                        self.state = State::DoctypeIdQuoted(kind, q);
                    }
                    _ => self.doctype_tail(true, true),
                }
            }
            State::DoctypeIdQuoted(kind, q) => {
                let start = self.pos;
                let i = find_any(b, start, [q, b'>']);
                self.doctype_push(DoctypeField::Id(kind), start, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => self.eof_in_doctype(),
                    Some(b'>') => self.emit_doctype(true),
                    Some(_) => self.state = State::AfterDoctypeId(kind),
                }
            }
            State::AfterDoctypeId(IdKind::Public) => match self.peek() {
                Some(c) if is_ws(c) => {
                    self.pos += 1;
                    self.state = State::BetweenDoctypeIds;
                }
                Some(q @ (b'"' | b'\'')) => {
                    self.pos += 1;
                    self.doctype_id_empty(IdKind::System);
                    self.state = State::DoctypeIdQuoted(IdKind::System, q);
                }
                _ => self.doctype_tail(false, true),
            },
            State::BetweenDoctypeIds => {
                self.skip_ws();
                match self.peek() {
                    Some(q @ (b'"' | b'\'')) => {
                        self.pos += 1;
                        self.doctype_id_empty(IdKind::System);
                        self.state = State::DoctypeIdQuoted(IdKind::System, q);
                    }
                    _ => self.doctype_tail(false, true),
                }
            }
            State::AfterDoctypeId(IdKind::System) => {
                self.skip_ws();
                self.doctype_tail(false, false);
            }
            State::BogusDoctype => {
                let i = find_any(b, self.pos, [b'>']);
                self.pos = i + 1;
                self.emit_doctype(false);
                if i >= b.len() {
                    self.eof();
                }
            }
            State::CdataSection => loop {
                let i = find_any(b, self.pos, [b']', 0]);
                self.text_range(self.pos, i);
                self.pos = i + 1;
                match b.get(i) {
                    None => return self.eof(),
                    Some(b']') => {
                        self.state = State::CdataBracket;
                        return;
                    }
                    Some(_) => self.null_character(),
                }
            },
            State::CdataBracket => {
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.state = State::CdataEnd;
                } else {
                    self.text_range(self.pos - 1, self.pos);
                    self.state = State::CdataSection;
                }
            }
            // Here the two bytes before `pos` are `]]`.
            State::CdataEnd => match self.peek() {
                Some(b']') => {
                    self.text_range(self.pos - 2, self.pos - 1);
                    self.pos += 1;
                }
                Some(b'>') => {
                    self.pos += 1;
                    self.state = State::Data;
                }
                _ => {
                    self.text_range(self.pos - 2, self.pos);
                    self.state = State::CdataSection;
                }
            },
        }
    }

    /// What follows a tag name, an attribute name or a quoted value: `c` was just consumed.
    fn after_name(&mut self, c: u8) {
        match c {
            b'/' => self.state = State::SelfClosing,
            b'>' => self.emit_tag(),
            _ => self.state = State::BeforeAttrName,
        }
    }

    /// The common end of the DOCTYPE states: `>` emits, end of input emits with force-quirks,
    /// anything else goes to the bogus DOCTYPE state. `quirks_on_gt` / `quirks_on_other` set
    /// force-quirks for those cases.
    fn doctype_tail(&mut self, quirks_on_gt: bool, quirks_on_other: bool) {
        match self.peek() {
            None => self.eof_in_doctype(),
            Some(b'>') => {
                self.pos += 1;
                self.emit_doctype(quirks_on_gt);
            }
            Some(_) => {
                self.doctype.force_quirks |= quirks_on_other;
                self.state = State::BogusDoctype;
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DoctypeField {
    Name,
    Id(IdKind),
}

/// A numeric reference's character and whether it is a parse error (html5ever's table).
fn numeric_char(n: u32) -> (char, bool) {
    let ch = |n| char::from_u32(n).unwrap_or('\u{fffd}');
    match n {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => ('\u{fffd}', true),
        0x80..=0x9F => (
            C1_REPLACEMENTS
                .get((n - 0x80) as usize)
                .copied()
                .flatten()
                .unwrap_or_else(|| ch(n)),
            true,
        ),
        0x01..=0x08 | 0x0B | 0x0D..=0x1F | 0x7F | 0xFDD0..=0xFDEF => (ch(n), true),
        n if n & 0xFFFE == 0xFFFE => (ch(n), true),
        n => (ch(n), false),
    }
}
