//! Text helpers of the page model: word splitting into terms, stop words, price detection and
//! charset decoding of response bytes.
//!
//! Owns the language data's loading (stop-word lists are data files under `data/stopwords/`),
//! not the choice of which text is visible (that is the page walk's, in `dom::page`).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use exemplar_url::canon::{Signature, fnv_step};
use exemplar_url::hash::FxHashSet;

use encoding_rs::{Encoding, UTF_8};

/// Stop words of the supported languages (English, Portuguese, Spanish), from `data/stopwords`.
fn stop_words() -> &'static StopWords {
    static SET: OnceLock<StopWords> = OnceLock::new();
    SET.get_or_init(|| {
        let words = [
            include_str!("../../../data/stopwords/en.txt"),
            include_str!("../../../data/stopwords/pt.txt"),
            include_str!("../../../data/stopwords/es.txt"),
        ]
        .iter()
        .flat_map(|f| f.lines())
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace);
        let mut stop = StopWords::default();
        for w in words {
            match pack(w) {
                Some(k) => stop.short.insert(k),
                None => stop.long.insert(w),
            };
            stop.max_len = stop.max_len.max(w.len());
        }
        stop
    })
}

/// The stop-word set: words of up to 8 bytes (nearly all) as packed integers, one multiply to
/// hash instead of a string hash per word of every page; the longer ones as strings.
#[derive(Default)]
struct StopWords {
    short: FxHashSet<u64>,
    long: FxHashSet<&'static str>,
    /// The longest word's byte length (longer words skip the lookup).
    max_len: usize,
}

/// A word of 1 to 8 bytes as an integer: its bytes, little-endian, zero-padded (a word with a
/// NUL byte is not packed, so padding cannot make two words one).
fn pack(word: &str) -> Option<u64> {
    pack_bytes(word.as_bytes(), false)
}

/// [`pack`] of `b`, ASCII letters lower-cased when `lower` (the tokenizer's name cache).
pub(crate) fn pack_bytes(b: &[u8], lower: bool) -> Option<u64> {
    if b.is_empty() || b.len() > 8 {
        return None;
    }
    // Shifted in byte by byte: a copy of a variable length is a call to memcpy, once per word
    // of every page.
    let mut k = 0u64;
    for (i, &c) in b.iter().enumerate() {
        if c == 0 {
            return None;
        }
        let c = if lower { c.to_ascii_lowercase() } else { c };
        k |= u64::from(c) << (8 * i);
    }
    Some(k)
}

impl StopWords {
    fn contains(&self, word: &str) -> bool {
        if word.len() > self.max_len {
            return false;
        }
        match pack(word) {
            Some(k) => self.short.contains(&k),
            None => self.long.contains(word),
        }
    }
}

/// Whether `word` (lower-case) is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    stop_words().contains(word)
}

/// Ideographic scripts have no spaces between words: each character is taken as a term.
fn is_ideographic(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff   // Hiragana, Katakana
        | 0x3400..=0x4dbf // CJK Extension A
        | 0x4e00..=0x9fff // CJK Unified Ideographs
        | 0xf900..=0xfaff // CJK Compatibility Ideographs
        | 0xac00..=0xd7af // Hangul syllables
        | 0x20000..=0x2ffff)
}

/// Splits text into lower-cased terms: maximal runs of alphanumeric characters (Unicode-aware),
/// ideographs one by one; drops stop words, single letters and tokens without a letter. Calls
/// `f` per term.
pub fn for_each_term(text: &str, f: impl FnMut(&str)) {
    let mut sink = TermSink {
        stop: stop_words(),
        f,
        text: String::new(),
        chars: 0,
        letter: false,
    };
    scan_words(text, &mut sink);
}

/// What [`scan_words`] reports as it reads text. The scanner alone decides where words begin
/// and end; a sink decides what a word becomes: a term's text ([`for_each_term`]) or a hash in
/// a page's signature ([`sign_words`]). Its calls are inlined into the scanner's loop, so a
/// sink that ignores one costs nothing.
trait WordSink {
    /// An ASCII letter or digit as it is read (`class` its [`ASCII_CLASS`] entry), before the
    /// run it belongs to is reported.
    #[inline(always)]
    fn byte(&mut self, _b: u8, _class: u8) {}
    /// A run of ASCII letters and digits, `text[run]`, `seen` the union of their classes. (The
    /// range, not the slice: a sink that does not read the run pays nothing for cutting it.)
    fn ascii_run(&mut self, text: &str, run: Range<usize>, seen: u8);
    /// A letter or digit outside ASCII: the word goes on.
    fn alphanumeric(&mut self, c: char);
    /// An ideograph: a word by itself (ideographic scripts put no space between words).
    fn ideograph(&mut self, c: char);
    /// A separator, or the end of the text: the word read so far, if any, ends.
    fn end_word(&mut self);
}

/// Reads `text` once and reports its words to `sink`: a word is a maximal run of letters and
/// digits (Unicode-aware); each ideograph is a word by itself; anything else separates words.
#[inline(always)]
fn scan_words(text: &str, sink: &mut impl WordSink) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii() {
            if ASCII_CLASS[b as usize] != 0 {
                // ASCII fast path: a run of ASCII letters and digits is taken at once.
                let from = i;
                let mut seen = 0u8;
                while let Some(&c) = bytes.get(i) {
                    let k = ASCII_CLASS[c as usize];
                    if k == 0 {
                        break;
                    }
                    seen |= k;
                    sink.byte(c, k);
                    i += 1;
                }
                sink.ascii_run(text, from..i, seen);
                continue;
            }
            sink.end_word();
            i += 1;
            continue;
        }
        // `i` is on a character boundary: only whole ASCII bytes and whole characters are
        // stepped over.
        let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else {
            break;
        };
        i += c.len_utf8();
        if is_ideographic(c) {
            sink.ideograph(c);
        } else if c.is_alphanumeric() {
            sink.alphanumeric(c);
        } else {
            sink.end_word();
        }
    }
    sink.end_word();
}

/// ASCII bytes by what they are in a word: [`DIGIT`], [`LETTER`] (with [`UPPER`] for capitals),
/// 0 for anything else (a separator). One load per byte instead of three range tests.
const ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_digit() {
            DIGIT
        } else if b.is_ascii_uppercase() {
            LETTER | UPPER
        } else if b.is_ascii_lowercase() {
            LETTER
        } else {
            0
        };
        c += 1;
    }
    t
};
const DIGIT: u8 = 1;
const LETTER: u8 = 2;
const UPPER: u8 = 4;

/// The terms' sink: builds each word's lower-cased text and hands the kept ones to `f`.
struct TermSink<'s, F> {
    stop: &'s StopWords,
    f: F,
    /// The word being read, lower-cased (empty between words).
    text: String,
    /// Its characters.
    chars: usize,
    /// Whether one of them is a letter.
    letter: bool,
}

impl<F: FnMut(&str)> TermSink<'_, F> {
    /// Hands `word` to `f` if it is a term: it has a letter, and two characters or is an
    /// ideograph, and is not a stop word.
    fn emit(stop: &StopWords, f: &mut F, word: &str, chars: usize, letter: bool, ideo: bool) {
        if letter && (chars >= 2 || ideo) && !stop.contains(word) {
            f(word);
        }
    }

    fn flush(&mut self, ideo: bool) {
        Self::emit(
            self.stop,
            &mut self.f,
            &self.text,
            self.chars,
            self.letter,
            ideo,
        );
        self.text.clear();
        self.chars = 0;
        self.letter = false;
    }
}

impl<F: FnMut(&str)> WordSink for TermSink<'_, F> {
    #[inline(always)]
    fn ascii_run(&mut self, text: &str, run: Range<usize>, seen: u8) {
        let (upper, letter) = (seen & UPPER != 0, seen & LETTER != 0);
        let ascii_after = text.as_bytes().get(run.end).is_none_or(u8::is_ascii);
        let run = text.get(run).unwrap_or("");
        // A whole word in lower case (nothing before it, nothing but ASCII or the end after
        // it, so no letter of another script continues it): read in place, not copied.
        if self.text.is_empty() && !upper && ascii_after {
            Self::emit(self.stop, &mut self.f, run, run.len(), letter, false);
            return;
        }
        self.letter |= letter;
        let from = self.text.len();
        self.text.push_str(run);
        if let Some(new) = self.text.get_mut(from..) {
            new.make_ascii_lowercase();
        }
        self.chars += run.len();
    }

    fn alphanumeric(&mut self, c: char) {
        self.letter |= c.is_alphabetic();
        for l in c.to_lowercase() {
            self.text.push(l);
            self.chars += 1;
        }
    }

    fn ideograph(&mut self, c: char) {
        self.flush(false);
        self.text.push(c);
        self.letter = true;
        self.flush(true);
    }

    #[inline(always)]
    fn end_word(&mut self) {
        if !self.text.is_empty() {
            self.flush(false);
        }
    }
}

/// Appends to `sig` the words of `text` as [`for_each_term`] splits them, stop words kept, each
/// followed by a space: what `for w in words { sig.push(w); sig.push(" ") }` gives, without
/// copying a word or looking one up (each byte is hashed as it is read). A page's content
/// signature: stop words tell pages apart as well as any word (two Doxygen index pages whose
/// only entries are `BE_NCONST` and `LE_NCONST` differ by `be` and `le`), and skipping the
/// lookup and the terms' buffer saves most of what splitting every page into terms cost.
pub fn sign_words(text: &str, sig: &mut Signature) {
    let start = sig.word_start();
    let mut sink = SignSink {
        sig,
        start,
        h: start,
        chars: 0,
        letter: false,
    };
    scan_words(text, &mut sink);
}

/// The signature's sink: hashes each word as it is read, from what the signature is before it
/// (`start`), and keeps or drops it when it ends.
struct SignSink<'s> {
    sig: &'s mut Signature,
    start: u64,
    /// The word's hash so far.
    h: u64,
    chars: usize,
    letter: bool,
}

impl SignSink<'_> {
    /// Keeps the word (its hash becomes the signature's) and starts the next one after it.
    fn keep(&mut self, h: u64) {
        self.sig.keep_word(h);
        self.start = self.sig.word_start();
    }
}

impl WordSink for SignSink<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8, class: u8) {
        // Capitals lower-cased: their class's UPPER bit (4) shifted to 0x20.
        self.h = fnv_step(self.h, b | ((class & UPPER) << 3));
    }

    #[inline(always)]
    fn ascii_run(&mut self, _text: &str, run: Range<usize>, seen: u8) {
        self.letter |= seen & LETTER != 0;
        self.chars += run.end - run.start;
    }

    fn alphanumeric(&mut self, c: char) {
        self.letter |= c.is_alphabetic();
        for l in c.to_lowercase() {
            self.h = l.encode_utf8(&mut [0; 4]).bytes().fold(self.h, fnv_step);
            self.chars += 1;
        }
    }

    fn ideograph(&mut self, c: char) {
        // A word by itself, always kept.
        self.end_word();
        self.keep(c.encode_utf8(&mut [0; 4]).bytes().fold(self.h, fnv_step));
        self.h = self.start;
    }

    #[inline(always)]
    fn end_word(&mut self) {
        if self.chars > 0 {
            if self.letter && self.chars >= 2 {
                self.keep(self.h);
            }
            (self.h, self.chars, self.letter) = (self.start, 0, false);
        }
    }
}

/// A page's terms in document order, kept in one buffer: a page has thousands of terms, and
/// one allocation each was about an eighth of mapping's CPU. Serialises as a list of strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    buf: String,
    /// End offset in `buf` of each term.
    ends: Vec<u32>,
}

impl Terms {
    /// No terms.
    pub fn new() -> Terms {
        Terms::default()
    }

    /// The terms of `text` (see [`for_each_term`]).
    pub fn of_text(text: &str) -> Terms {
        let mut t = Terms::new();
        for_each_term(text, |w| t.push(w));
        t
    }

    /// Appends a term (dropped if the buffer would pass 4 GiB, which a page cannot reach).
    pub fn push(&mut self, term: &str) {
        let Ok(end) = u32::try_from(self.buf.len() + term.len()) else {
            return;
        };
        self.buf.push_str(term);
        self.ends.push(end);
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No terms at all.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The terms in order.
    pub fn iter(&self) -> TermsIter<'_> {
        TermsIter {
            terms: self,
            start: 0,
            next: 0,
        }
    }

    /// The terms as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl<'a> IntoIterator for &'a Terms {
    type Item = &'a str;
    type IntoIter = TermsIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The terms of a [`Terms`] in order ([`Terms::iter`]).
#[derive(Clone, Debug)]
pub struct TermsIter<'a> {
    terms: &'a Terms,
    /// Byte offset of the next term in the buffer.
    start: usize,
    /// Index of the next term.
    next: usize,
}

impl<'a> Iterator for TermsIter<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let end = *self.terms.ends.get(self.next)? as usize;
        self.next += 1;
        let t = self.terms.buf.get(self.start..end).unwrap_or("");
        self.start = end;
        Some(t)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.terms.ends.len() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for TermsIter<'_> {}

impl<S: AsRef<str>> FromIterator<S> for Terms {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Terms {
        let mut t = Terms::new();
        for s in iter {
            t.push(s.as_ref());
        }
        t
    }
}

impl serde::Serialize for Terms {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Terms {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Terms, D::Error> {
        let v: Vec<String> = serde::Deserialize::deserialize(d)?;
        Ok(v.into_iter().collect())
    }
}

/// The terms of `text` (see [`for_each_term`]).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t.to_string()));
    out
}

/// Currency codes counted next to a number (whole ASCII words).
const CURRENCY_CODES: [&[u8; 3]; 13] = [
    b"USD", b"EUR", b"BRL", b"GBP", b"JPY", b"CNY", b"RMB", b"MXN", b"ARS", b"CLP", b"COP", b"CHF",
    b"INR",
];

/// The bytes a price marker of [`count_prices`] may start with: `$`, the lead bytes of
/// `£ ¥` (0xc2), `€ ₹ ₩ ₽` (0xe2) and `元` (0xe5), and the capital letters of ISO codes.
const PRICE_START: [bool; 256] = {
    let mut t = [false; 256];
    t[b'$' as usize] = true;
    t[0xc2] = true;
    t[0xe2] = true;
    t[0xe5] = true;
    let mut c = b'A';
    while c <= b'Z' {
        t[c as usize] = true;
        c += 1;
    }
    t
};

/// Counts price-looking strings: a currency symbol or ISO code next to a number
/// (`R$ 450.000`, `$12.99`, `1.200,00 €`, `EUR 35`).
///
/// Runs on all visible text of every page, so it scans bytes for the (rare) currency markers —
/// `$ € £ ¥ ₹ ₩ ₽ 元`, or a code of `CURRENCY_CODES` between ASCII word boundaries — and then
/// looks at the characters beside each one (a digit, possibly after one space).
pub fn count_prices(text: &str) -> usize {
    let b = text.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let is_space = |c: char| c == ' ' || c == '\u{a0}' || c == '\u{202f}';
    let mut count = 0;
    let mut i = 0;
    while i < b.len() {
        // Most bytes start no marker: skipped through a table, not the match below.
        if !PRICE_START[b[i] as usize] {
            i += 1;
            continue;
        }
        let len = match b[i] {
            b'$' => 1,
            // £ ¥
            0xc2 if matches!(b.get(i + 1), Some(0xa3 | 0xa5)) => 2,
            // € ₹ ₩ ₽
            0xe2 if b.get(i + 1) == Some(&0x82)
                && matches!(b.get(i + 2), Some(0xac | 0xb9 | 0xa9 | 0xbd)) =>
            {
                3
            }
            // 元
            0xe5 if b.get(i + 1) == Some(&0x85) && b.get(i + 2) == Some(&0x83) => 3,
            b'A'..=b'Z'
                if (i == 0 || !is_word(b[i - 1]))
                    && b.get(i..i + 3)
                        .is_some_and(|w| CURRENCY_CODES.iter().any(|c| &c[..] == w))
                    && b.get(i + 3).is_none_or(|&c| !is_word(c)) =>
            {
                3
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let (start, end) = (i, i + len);
        i = end;
        let mut after = text[end..].chars();
        let next = match after.next() {
            Some(c) if is_space(c) => after.next(),
            c => c,
        };
        let mut before = text[..start].chars().rev();
        let prev = match before.next() {
            Some(c) if is_space(c) => before.next(),
            c => c,
        };
        if next.is_some_and(|c| c.is_ascii_digit()) || prev.is_some_and(|c| c.is_ascii_digit()) {
            count += 1;
        }
    }
    count
}

/// Decodes response bytes to text, choosing the charset from a byte-order mark, then the HTTP
/// `Content-Type` header's `charset`, then a `<meta charset>` / `http-equiv` declaration in the
/// first 1024 bytes, then UTF-8. Malformed sequences become U+FFFD (lossy, never an error).
/// Returns the text (borrowed when the bytes are valid UTF-8 already) and the name of the
/// encoding used.
pub fn decode<'a>(bytes: &'a [u8], content_type: Option<&str>) -> (Cow<'a, str>, &'static str) {
    let enc = Encoding::for_bom(bytes)
        .map(|(e, _)| e)
        .or_else(|| {
            content_type
                .and_then(charset_param)
                .and_then(|l| Encoding::for_label(l.as_bytes()))
        })
        .or_else(|| meta_charset(&bytes[..bytes.len().min(1024)]))
        .unwrap_or(UTF_8);
    // A meta/header claim of UTF-16 on an ASCII-compatible byte stream means UTF-8 (HTML spec).
    let enc = if (enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE)
        && Encoding::for_bom(bytes).is_none()
    {
        UTF_8
    } else {
        enc
    };
    let (text, used, _had_errors) = enc.decode(bytes);
    (text, used.name())
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// Whether an HTML document's first kilobyte declares a charset encoding_rs knows (`<meta
/// charset>`, `http-equiv`): a static server then leaves the page to say it.
pub fn declares_charset(bytes: &[u8]) -> bool {
    meta_charset(&bytes[..bytes.len().min(1024)]).is_some()
}

/// A charset declared by `<meta charset=…>` or `<meta http-equiv=content-type content="…charset=…">`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    static RE: OnceLock<Option<regex::bytes::Regex>> = OnceLock::new();
    let re = RE
        .get_or_init(|| {
            regex::bytes::Regex::new(
                r#"(?i-u)<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)"#,
            )
            .ok()
        })
        .as_ref()?;
    let label = re.captures(head)?.get(1)?.as_bytes();
    Encoding::for_label(label)
}

#[cfg(test)]
mod tests {
    #[test]
    fn terms_keep_order_and_serialise_as_a_list() {
        let t = Terms::of_text("Casa grande, casa AZUL e a praia");
        assert_eq!(t.to_vec(), ["casa", "grande", "casa", "azul", "praia"]);
        assert_eq!(t.len(), 5);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"["casa","grande","casa","azul","praia"]"#);
        let back: Terms = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        assert_eq!((&t).into_iter().count(), 5);
        assert!(Terms::new().is_empty());
        // Any strings round-trip, separators included.
        let odd: Terms = ["a b", "", "ç\n"].into_iter().collect();
        assert_eq!(odd.to_vec(), ["a b", "", "ç\n"]);
    }

    use super::*;
    use regex::Regex;

    #[test]
    fn terms_lowercase_unicode_and_drop_stop_words() {
        assert_eq!(
            terms("The Apartamento em Santo André, 3 quartos — ÁREA 120m² R$ x"),
            ["apartamento", "santo", "andré", "quartos", "área", "120m²"]
        );
        assert_eq!(terms("北京 大学"), ["北", "京", "大", "学"]);
        assert!(terms("42 1.000 -- ,,").is_empty());
    }

    #[test]
    fn price_scan_counts_what_the_regex_does() {
        let re = Regex::new(
            r"[$€£¥₹₩₽元]|(?-u:\b)(?:USD|EUR|BRL|GBP|JPY|CNY|RMB|MXN|ARS|CLP|COP|CHF|INR)(?-u:\b)",
        )
        .unwrap();
        let is_space = |c: char| c == ' ' || c == '\u{a0}' || c == '\u{202f}';
        let oracle = |text: &str| {
            re.find_iter(text)
                .filter(|m| {
                    let mut after = text[m.end()..].chars();
                    let next = match after.next() {
                        Some(c) if is_space(c) => after.next(),
                        c => c,
                    };
                    let mut before = text[..m.start()].chars().rev();
                    let prev = match before.next() {
                        Some(c) if is_space(c) => before.next(),
                        c => c,
                    };
                    next.is_some_and(|c| c.is_ascii_digit())
                        || prev.is_some_and(|c| c.is_ascii_digit())
                })
                .count()
        };
        let parts = [
            "",
            " ",
            "1",
            "12",
            "$",
            "€",
            "£",
            "¥",
            "₹",
            "₩",
            "₽",
            "元",
            "USD",
            "EUR",
            "INR",
            "USDX",
            "xUSD",
            "_EUR",
            "EUR_",
            "é",
            "\u{a0}",
            "\u{202f}",
            "R",
            "a",
            ",",
            "ÉUR",
            "₿",
            "¢",
            "€€",
            "2USD",
            "USD3",
            "CHFEUR",
            "\u{20ac}",
            "\u{00a3}1",
        ];
        let mut n = 0;
        for a in parts {
            for b in parts {
                for c in parts {
                    let t = format!("{a}{b}{c}");
                    assert_eq!(count_prices(&t), oracle(&t), "{t:?}");
                    n += 1;
                }
            }
        }
        assert!(n > 30_000);
        for t in [
            "Preço: R$ 450.000 ou R$1.200,00/mês, US$ 5 e 35 € e EUR 40; USD 1,000 元 9",
            "$$1 $ $ 2 EUR EUR 3 (GBP)4 JPY\u{a0}5 6\u{202f}CHF",
        ] {
            assert_eq!(count_prices(t), oracle(t), "{t:?}");
        }
    }

    #[test]
    fn prices_in_several_notations() {
        assert_eq!(count_prices("Preço: R$ 450.000 ou R$1.200,00/mês"), 2);
        assert_eq!(count_prices("$12.99, 35 € and EUR 40; USD 1,000"), 4);
        assert_eq!(count_prices("page 12 of 40, 2024 results"), 0);
    }

    #[test]
    fn charset_from_bom_header_meta_or_utf8() {
        let latin1 = b"<meta charset=\"iso-8859-1\"><p>S\xe3o Paulo";
        assert!(decode(latin1, None).0.contains("São Paulo"));
        assert_eq!(decode(latin1, None).1, "windows-1252");
        let (t, e) = decode(b"<p>S\xe3o", Some("text/html; charset=ISO-8859-1"));
        assert_eq!((&*t, e), ("<p>São", "windows-1252"));
        let (t, e) = decode(
            "\u{feff}<p>ok".as_bytes(),
            Some("text/html; charset=latin1"),
        );
        assert_eq!((&*t, e), ("<p>ok", "UTF-8"));
        let (t, _) = decode(b"<p>bad \xff\xfe byte", None);
        assert!(t.contains('\u{fffd}'));
        let (_, e) = decode(
            b"<meta http-equiv=Content-Type content='text/html; charset=Shift_JIS'>",
            None,
        );
        assert_eq!(e, "Shift_JIS");
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// The splitter as first written, a character at a time, with the stop words as one string
    /// set: the reference the byte-run fast path and the packed stop words must agree with.
    fn reference_terms(text: &str) -> Vec<String> {
        reference_words(text, true)
    }

    /// [`reference_terms`], stop words dropped only when `drop_stop`.
    fn reference_words(text: &str, drop_stop: bool) -> Vec<String> {
        let stop: std::collections::HashSet<&str> = [
            include_str!("../../../data/stopwords/en.txt"),
            include_str!("../../../data/stopwords/pt.txt"),
            include_str!("../../../data/stopwords/es.txt"),
        ]
        .iter()
        .flat_map(|f| f.lines())
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
        let mut out = Vec::new();
        let mut word = String::new();
        let (mut chars, mut has_letter) = (0usize, false);
        let mut flush = |word: &mut String, chars: &mut usize, has_letter: &mut bool, ideo| {
            if *has_letter && (*chars >= 2 || ideo) && !(drop_stop && stop.contains(word.as_str()))
            {
                out.push(word.clone());
            }
            word.clear();
            *chars = 0;
            *has_letter = false;
        };
        for c in text.chars() {
            if is_ideographic(c) {
                flush(&mut word, &mut chars, &mut has_letter, false);
                word.push(c);
                has_letter = true;
                flush(&mut word, &mut chars, &mut has_letter, true);
            } else if c.is_alphanumeric() {
                has_letter |= c.is_alphabetic();
                for l in c.to_lowercase() {
                    word.push(l);
                    chars += 1;
                }
            } else {
                flush(&mut word, &mut chars, &mut has_letter, false);
            }
        }
        flush(&mut word, &mut chars, &mut has_letter, false);
        out
    }

    /// `sign_words` of `text` after `before`, and the reference words pushed one by one.
    fn signed_both_ways(before: &str, text: &str) -> (u64, u64) {
        let mut fast = Signature::new();
        fast.push(before);
        let mut slow = fast;
        sign_words(text, &mut fast);
        for w in reference_words(text, false) {
            slow.push(&w);
            slow.push(" ");
        }
        // Then something else is pushed (the page's size): the pending space is the same.
        fast.push("7");
        slow.push("7");
        (fast.finish(), slow.finish())
    }

    #[test]
    fn signed_words_keep_what_terms_keep_and_stop_words() {
        for text in [
            "A",
            "a b",
            "The cat, 12 dogs and 3D-art",
            "x1 22 İstanbul ÉTÉ é",
            "北京a 北",
            "ǅemal Ⅻ ٣٣",
            "été\u{a0}ÉTÉ",
            "a\u{0}b",
            "",
        ] {
            let (fast, slow) = signed_both_ways("Title\n", text);
            assert_eq!(fast, slow, "{text:?}");
        }
        // Stop words count: pages differing only in one are told apart.
        let (with, _) = signed_both_ways("", "the cat");
        let (without, _) = signed_both_ways("", "cat");
        assert_ne!(with, without);
    }

    proptest! {
        #[test]
        fn terms_agree_with_the_character_at_a_time_splitter(
            text in "([a-zA-Z0-9]{0,6}|The|de|ÉTÉ|é|ß|İ|北京|\u{a0}|[ .,;\n-]|ǅ|٣|Ⅻ|\u{0}){0,16}",
        ) {
            prop_assert_eq!(terms(&text), reference_terms(&text));
        }

        #[test]
        fn signed_words_are_the_words_pushed_one_by_one(
            before in "(|x|x |Title\n)",
            text in "([a-zA-Z0-9]{0,6}|[0-9]{1,3}|The|de|ÉTÉ|é|ß|İ|北京|\u{a0}|[ .,;\n-]|ǅ|٣|Ⅻ|\u{0}){0,16}",
        ) {
            let (fast, slow) = signed_both_ways(&before, &text);
            prop_assert_eq!(fast, slow);
        }
    }
}
