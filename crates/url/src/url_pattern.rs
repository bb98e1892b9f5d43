//! URL patterns (thesis `004`, section 3.3, Algorithms 3–6): URL *levels*, the URL similarity
//! `URLsim` ([`url_similar`]), the partition of URLs into groups of similar ones ([`group`]), the
//! *regex tree* tokenizer ([`tokenize`]) and the generation of one anchored regex that matches a
//! set of URLs and their unseen siblings of the same shape ([`url_pattern`]).
//!
//! Does not own the tree of pages the groups come from, the choice of the navigation path, nor the
//! navigation pattern document (the mapper and the pattern module do).
//!
//! # URLs
//!
//! URLs are read with the WHATWG parser and taken in the form `url::Url` serialises them, without
//! fragment (the form the page model's links already have); a pattern matches that form. Anything
//! without a host and a `/`-rooted path is not a URL here.
//!
//! # Regexes
//!
//! Patterns use only syntax that Rust's `regex` (built without Unicode tables) and Python's `re`
//! read alike (they are exported to Scrapy's `LinkExtractor(allow=...)`): ASCII character classes,
//! `(?:...)`, `?`, `*`, `+`, `|`, and literals escaped by [`escape`].
//!
//! # Example
//!
//! ```
//! use exemplar_url::url_pattern::url_pattern;
//!
//! let p = url_pattern(&[
//!     "https://www.postgresql.org/docs/current/sql-vacuum.html",
//!     "https://www.postgresql.org/docs/current/sql-analyze.html",
//!     "https://www.postgresql.org/docs/current/app-pgdump.html",
//!     "https://www.postgresql.org/docs/current/pgbench.html",
//! ])
//! .unwrap();
//! assert_eq!(
//!     p.regex,
//!     r"^https://www\.postgresql\.org/docs/current/[A-Za-z]+(?:-[A-Za-z]+)?\.html$"
//! );
//! assert!(p.compile().unwrap().is_match("https://www.postgresql.org/docs/current/sql-copy.html"));
//! ```

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use url::{Position, Url};

/// The thesis' `K`: two URLs with the same shape are similar when they differ in at most this many
/// levels.
pub const DEFAULT_K: usize = 2;

/// Infixes with more tokens than this are not aligned token by token but generalised as a whole
/// (keeps the alignment's cost bounded on long query strings).
const MAX_TOKENS: usize = 48;
/// Same, for the number of aligned columns of one level.
const MAX_COLUMNS: usize = 96;

/// Parses `url` into the form patterns are built from (see the module documentation).
fn parse(url: &str) -> Option<Url> {
    let mut u = Url::parse(url).ok()?;
    if !u.has_host() || !u.path().starts_with('/') {
        return None;
    }
    u.set_fragment(None);
    Some(u)
}

/// The form of `url` that levels and patterns are computed on: the WHATWG serialisation without
/// fragment. `None` if `url` is not a URL with a host and a `/`-rooted path.
pub fn normalize(url: &str) -> Option<String> {
    // Most URLs are written as the parser would write them (the mapper normalizes every URL it
    // queues, several times).
    if let Some(written) = crate::canon::written_parsed(url) {
        return Some(written.to_string());
    }
    parse(url).map(String::from)
}

/// URL levels: level 0 is the site (scheme, user info, host and port, e.g.
/// `"http://127.0.0.1:8000"`), then one level per path segment; the query string (with its `?`)
/// belongs to the last level. A trailing `/` gives an empty last segment, and the site root has
/// one empty segment: `http://h/` → `["http://h", ""]`.
///
/// Joining the levels with `/` gives back [`normalize`]`(url)`. `None` for non-URLs.
pub fn levels(url: &str) -> Option<Vec<String>> {
    let u = parse(url)?;
    let site = &u[..Position::BeforePath];
    let path = &u[Position::BeforePath..Position::AfterPath];
    let query = &u[Position::AfterPath..Position::AfterQuery];
    let mut out = vec![site.to_string()];
    out.extend(path.strip_prefix('/')?.split('/').map(str::to_string));
    if let Some(last) = out.last_mut() {
        last.push_str(query);
    }
    Some(out)
}

/// `URLsim(a, b)`: the URLs have the same number of levels, the same level 0 (site), and differ
/// in at most `k` of the other levels. `false` if either is not a URL.
pub fn url_similar(a: &str, b: &str, k: usize) -> bool {
    match (levels(a), levels(b)) {
        (Some(a), Some(b)) => similar_levels(&a, &b, k),
        _ => false,
    }
}

fn similar_levels(a: &[String], b: &[String], k: usize) -> bool {
    a.len() == b.len()
        && a.first() == b.first()
        && a.iter().zip(b).skip(1).filter(|(x, y)| x != y).count() <= k
}

/// Partitions `urls` into groups of pairwise-similar URLs ([`url_similar`] with `k`), as the
/// thesis' Algorithm 3 does with the children of a node. Deterministic: URLs are taken in order,
/// and each joins the first group all of whose members are similar to it, or starts a new group.
/// A non-URL is similar to nothing and forms a group of its own.
///
/// Returns groups of indices into `urls`, each in increasing order, groups ordered by their first
/// member.
pub fn group(urls: &[&str], k: usize) -> Vec<Vec<usize>> {
    /// A group: its members (levels interned as ids) and, per level, how many members have each
    /// value there.
    struct Group {
        members: Vec<usize>,
        counts: Vec<HashMap<u32, usize>>,
    }
    let mut intern: HashMap<String, u32> = HashMap::new();
    let rows: Vec<Option<Vec<u32>>> = urls
        .iter()
        .map(|u| {
            let lv = levels(u)?;
            Some(
                lv.into_iter()
                    .map(|l| {
                        let next = intern.len() as u32;
                        *intern.entry(l).or_insert(next)
                    })
                    .collect(),
            )
        })
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(row) = row else {
            groups.push(Group {
                members: vec![i],
                counts: Vec::new(),
            });
            continue;
        };
        let joins = groups.iter().position(|g| {
            // Site and depth first; then the per-level counts settle most cases without visiting
            // the members: at most `k` levels where some member differs → similar to all; more
            // than `k` levels where every member differs → similar to none.
            if g.counts.len() != row.len()
                || g.counts
                    .first()
                    .and_then(|c| row.first().and_then(|v| c.get(v)))
                    .is_none()
            {
                return false;
            }
            let (mut some, mut all) = (0, 0);
            for (c, v) in g.counts.iter().zip(row).skip(1) {
                let same = c.get(v).copied().unwrap_or(0);
                some += usize::from(same < g.members.len());
                all += usize::from(same == 0);
            }
            if some <= k {
                return true;
            }
            if all > k {
                return false;
            }
            g.members.iter().all(|&j| {
                rows.get(j).and_then(Option::as_ref).is_some_and(|other| {
                    other
                        .iter()
                        .zip(row)
                        .skip(1)
                        .filter(|(a, b)| a != b)
                        .count()
                        <= k
                })
            })
        });
        match joins.and_then(|g| groups.get_mut(g)) {
            Some(g) => {
                g.members.push(i);
                for (c, v) in g.counts.iter_mut().zip(row) {
                    *c.entry(*v).or_insert(0) += 1;
                }
            }
            None => groups.push(Group {
                members: vec![i],
                counts: row.iter().map(|v| HashMap::from([(*v, 1)])).collect(),
            }),
        }
    }
    groups.into_iter().map(|g| g.members).collect()
}

/// A node of the regex tree (thesis Figure 3.3), a hierarchy of languages where the children of a
/// node partition it:
///
/// ```text
/// Any ── AlphaNum ── Alpha   [A-Za-z]+
///     │           └─ Digit   [0-9]+
///     └─ Symbol ──── Punct(c) for every character c that is not an ASCII letter or digit
/// ```
///
/// `Alpha`, `Digit` and `Punct` are the leaves [`tokenize`] cuts strings with; a symbol token is
/// always one character (`--` is two tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// The root: any non-empty string.
    Any,
    /// A run of ASCII letters and digits, `[A-Za-z0-9]+`.
    AlphaNum,
    /// A run of ASCII letters, `[A-Za-z]+` (both cases, always).
    Alpha,
    /// A run of ASCII digits, `[0-9]+`.
    Digit,
    /// One character that is not an ASCII letter or digit, `[^A-Za-z0-9]`.
    Symbol,
    /// That one character.
    Punct(char),
}

impl Class {
    /// The leaf a single character belongs to.
    pub fn of(c: char) -> Class {
        if c.is_ascii_alphabetic() {
            Class::Alpha
        } else if c.is_ascii_digit() {
            Class::Digit
        } else {
            Class::Punct(c)
        }
    }

    /// The parent node in the tree; `None` for the root.
    pub fn parent(self) -> Option<Class> {
        match self {
            Class::Any => None,
            Class::AlphaNum | Class::Symbol => Some(Class::Any),
            Class::Alpha | Class::Digit => Some(Class::AlphaNum),
            Class::Punct(_) => Some(Class::Symbol),
        }
    }

    /// Whether `self` is `node` or one of its descendants.
    pub fn is_within(self, node: Class) -> bool {
        let mut c = Some(self);
        while let Some(x) = c {
            if x == node {
                return true;
            }
            c = x.parent();
        }
        false
    }

    /// The lowest common ancestor of two nodes (TokenRegex's generalisation step).
    pub fn lca(self, other: Class) -> Class {
        let mut c = Some(self);
        while let Some(x) = c {
            if other.is_within(x) {
                return x;
            }
            c = x.parent();
        }
        Class::Any
    }

    /// The node's regex as the tree defines it, matching one token of the class (`.+` for the
    /// root; patterns themselves render the root as a class that cannot cross `/`).
    pub fn regex(self) -> String {
        match self {
            Class::Any => ".+".to_string(),
            Class::AlphaNum => "[A-Za-z0-9]+".to_string(),
            Class::Alpha => "[A-Za-z]+".to_string(),
            Class::Digit => "[0-9]+".to_string(),
            Class::Symbol => "[^A-Za-z0-9]".to_string(),
            Class::Punct(c) => escape(c.encode_utf8(&mut [0; 4])),
        }
    }
}

/// The URL (normalized) once per word or number token ([`tokenize`]), with that token replaced by
/// a mark no URL contains: two URLs share a variant when they differ in that one token
/// (`iface.Editable.html` and `iface.Actionable.html`, `std/cell/struct.Cell.html` and
/// `core/cell/struct.Cell.html`), which is how pages of one kind are named. A file name of one
/// word (`pgbench.html`, `9.html`) is blanked only with `sole_name`: blanked, it stands for its
/// whole directory, which is a kind on some sites (`item/9.html`) and a mix on others (every
/// PostgreSQL page is `*.html`).
pub fn one_token_variants(url: &str, sole_name: bool) -> Vec<String> {
    let normalized = normalize(url).unwrap_or_else(|| url.to_string());
    variant_spans(&normalized, sole_name)
        .into_iter()
        .map(|r| {
            let (before, after) = (&normalized[..r.start], &normalized[r.end..]);
            let mut key = String::with_capacity(normalized.len() + 1);
            key.push_str(before);
            key.push('\u{0}');
            key.push_str(after);
            key
        })
        .collect()
}

/// [`one_token_variants`], each hashed, without building it: equal variants have equal hashes
/// (a variant is the text before the blanked token, the mark, and the text after it; the mark
/// occurs once, so equal variants are cut the same way). The mapper indexes the URLs it queues
/// by these, several per link.
pub fn one_token_variant_hashes(url: &str, sole_name: bool) -> Vec<u64> {
    use std::hash::Hasher;
    let normalized = normalize(url).unwrap_or_else(|| url.to_string());
    variant_spans(&normalized, sole_name)
        .into_iter()
        .map(|r| {
            let mut h = crate::hash::FxHasher::default();
            h.write(&normalized.as_bytes()[..r.start]);
            h.write_u8(0);
            h.write(&normalized.as_bytes()[r.end..]);
            h.finish()
        })
        .collect()
}

/// The byte ranges, in `normalized`, of the tokens [`one_token_variants`] blanks.
fn variant_spans(normalized: &str, sole_name: bool) -> Vec<Range<usize>> {
    let tokens = spans(normalized);
    let is_word = |c: &Class| matches!(c, Class::Alpha | Class::Digit | Class::AlphaNum);
    // The file name: the tokens after the last '/' and before its last '.' (the extension).
    let name_start = tokens
        .iter()
        .rposition(|(c, _)| *c == Class::Punct('/'))
        .map_or(0, |i| i + 1);
    let name_end = tokens[name_start..]
        .iter()
        .rposition(|(c, _)| *c == Class::Punct('.'))
        .map_or(tokens.len(), |i| name_start + i);
    let name_words = tokens[name_start..name_end]
        .iter()
        .filter(|(c, _)| is_word(c))
        .count();
    tokens
        .into_iter()
        .enumerate()
        .filter(|(_, (c, _))| is_word(c))
        .filter(|&(i, _)| sole_name || name_words >= 2 || !(name_start..name_end).contains(&i))
        .map(|(_, (_, r))| r)
        .collect()
}

/// A fragment of a string cut by [`tokenize`]: its text and the leaf it matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The fragment.
    pub text: String,
    /// Its class: [`Class::Alpha`], [`Class::Digit`], [`Class::Punct`], or [`Class::AlphaNum`]
    /// for an identifier (see [`tokenize`]).
    pub class: Class,
}

/// Algorithm 5 (`Tokenize`): repeatedly takes the longest leftmost prefix of `s` that matches one
/// leaf of the regex tree — a run of ASCII letters, a run of ASCII digits, or one other character
/// — except that a run of letters and digits alternating at least three times (`3f9a`, a commit
/// hash) is one [`Class::AlphaNum`] token, an identifier. The texts of the tokens concatenate
/// back to `s`.
pub fn tokenize(s: &str) -> Vec<Token> {
    spans(s)
        .into_iter()
        .map(|(class, r)| Token {
            text: s.get(r).unwrap_or_default().to_string(),
            class,
        })
        .collect()
}

/// A run of letters and digits made of at least this many letter and digit runs (`3f9a`, a
/// 40-digit hex hash) is one [`Class::AlphaNum`] token, an identifier: cut into its runs,
/// hashes and codes would give each value its own sequence of runs, and the alignment one
/// optional column per difference (gitweb's commit hashes made 38 alternatives that accepted
/// 82.7% of unseen hashes). Fewer runs are words and numbers (`page12`, `Silvio8`, `lib32gcc`,
/// and Doxygen's `_1_1Vector2`, where three runs taken as one identifier misaligned SFML's class
/// names) and stay apart, as the thesis' tokenizer cuts them.
const IDENTIFIER_RUNS: usize = 4;

/// [`tokenize`] without the copies: each token as its leaf and byte range.
fn spans(s: &str) -> Vec<(Class, Range<usize>)> {
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some((start, c)) = it.next() {
        let class = Class::of(c);
        if !matches!(class, Class::Alpha | Class::Digit) {
            out.push((class, start..start + c.len_utf8()));
            continue;
        }
        // The whole run of ASCII letters and digits, and its letter and digit runs.
        let first = out.len();
        let (mut run_class, mut run_start, mut end) = (class, start, start + 1);
        while let Some(&(i, d)) = it.peek() {
            let next = Class::of(d);
            if !matches!(next, Class::Alpha | Class::Digit) {
                break;
            }
            if next != run_class {
                out.push((run_class, run_start..i));
                (run_class, run_start) = (next, i);
            }
            end = i + 1;
            it.next();
        }
        out.push((run_class, run_start..end));
        if out.len() - first >= IDENTIFIER_RUNS {
            out.truncate(first);
            out.push((Class::AlphaNum, start..end));
        }
    }
    out
}

/// The byte offsets where [`spans`] cuts `s`, from 0 to `s.len()` included.
fn boundaries(s: &str) -> Vec<usize> {
    let mut b: Vec<usize> = spans(s).into_iter().map(|(_, r)| r.start).collect();
    b.push(s.len());
    b
}

/// Escapes the regex metacharacters of `s` (`\ . + * ? ( ) | [ ] { } ^ $`) and nothing else, so
/// the result reads the same in Rust's `regex` and Python's `re`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A URL pattern: one regex over the whole URL (anchored with `^` and `$`), in the syntax common to
/// Rust's `regex` and Python's `re`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct UrlPattern {
    /// The anchored regex.
    pub regex: String,
}

impl UrlPattern {
    /// Compiles the regex.
    ///
    /// # Errors
    ///
    /// The `regex` crate's error if the string is not a valid regex (never for patterns built by
    /// this module; possible for deserialised ones).
    pub fn compile(&self) -> Result<regex::Regex, regex::Error> {
        regex::Regex::new(&self.regex)
    }

    /// The pattern matching exactly `url` (taken as given, not normalised).
    pub fn literal(url: &str) -> UrlPattern {
        UrlPattern {
            regex: format!("^{}$", escape(url)),
        }
    }
}

/// Algorithms 4 and 6 (`URLpattern`): one anchored regex matching every URL of `urls` (in its
/// [`normalize`]d form) and generalising them: levels where all URLs agree stay literal, the others
/// go through [`level_regex`].
///
/// URLs are meant to come from one [`group`] (same site, same number of levels). Otherwise they
/// are split by (site, number of levels), in order of first appearance, each part gets its own
/// pattern, and the parts are joined as alternatives: `^(?:A|B)$`.
///
/// `None` if `urls` is empty or any of them is not a URL.
pub fn url_pattern(urls: &[&str]) -> Option<UrlPattern> {
    let mut index: HashMap<(String, usize), usize> = HashMap::new();
    let mut parts: Vec<Vec<Vec<String>>> = Vec::new();
    for u in urls {
        let lv = levels(u)?;
        let key = (lv.first()?.clone(), lv.len());
        let i = *index.entry(key).or_insert_with(|| {
            parts.push(Vec::new());
            parts.len() - 1
        });
        parts.get_mut(i)?.push(lv);
    }
    let alternatives: Vec<String> = parts.iter().map(|rows| rows_regex(rows)).collect();
    let regex = match alternatives.as_slice() {
        [] => return None,
        [one] => format!("^{one}$"),
        many => format!("^(?:{})$", many.join("|")),
    };
    Some(UrlPattern { regex })
}

/// The (unanchored) regex of URLs with the same site and number of levels.
fn rows_regex(rows: &[Vec<String>]) -> String {
    let n = rows.first().map_or(0, Vec::len);
    let mut out = String::new();
    for lvl in 0..n {
        let values: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.get(lvl).map(String::as_str))
            .collect();
        if lvl > 0 {
            out.push('/');
            out.push_str(&level_regex(&values));
        } else if let Some(site) = values.first() {
            out.push_str(&escape(site));
        }
    }
    out
}

/// The regex of one level (unanchored, no `/` around it) matching every value in `values`.
///
/// All values equal → the escaped value. Otherwise the longest common prefix and suffix are kept
/// literal, shortened to token boundaries (cutting `sql-analyze` / `sql-vacuum` inside a word
/// would pin its last letter); the infixes left are tokenized, their tokens aligned into columns
/// (a column of one symbol is an anchor; letters align with letters, digits with digits), and each
/// column becomes TokenRegex of its tokens:
///
/// - all tokens equal → the literal, when seen in at least two values (or it is a symbol, or a
///   query key before `=`); a word seen once is an example, not a constant, and is generalised;
/// - otherwise the lowest common ancestor's class: `[A-Za-z]+`, `[0-9]+`, `[A-Za-z0-9]+`, or one
///   symbol `[^A-Za-z0-9/?]` (without `/`, `?` unless seen);
/// - columns missing in some values are optional; consecutive ones missing in the same values
///   form one optional group: `app-pgdump`, `pgbench` → `[A-Za-z]+(?:-[A-Za-z]+)?`.
///
/// Infixes too long to align, or without a common structure and no query parameters (no symbol
/// in every value, and the average value fills fewer than half the aligned columns), are
/// generalised as a whole: one class of the characters seen (`[A-Za-z0-9\-\~]+`). `""` for no
/// values.
pub fn level_regex(values: &[&str]) -> String {
    let mut seen = HashSet::new();
    let distinct: Vec<&str> = values.iter().copied().filter(|v| seen.insert(*v)).collect();
    let [first, ..] = distinct.as_slice() else {
        return String::new();
    };
    if distinct.len() == 1 {
        return escape(first);
    }
    let (p, s) = common_affixes(&distinct);
    let infixes: Vec<&str> = distinct
        .iter()
        .map(|v| v.get(p..v.len() - s).unwrap_or_default())
        .collect();
    let mut out = escape(first.get(..p).unwrap_or_default());
    out.push_str(&infix_regex(&infixes));
    out.push_str(&escape(first.get(first.len() - s..).unwrap_or_default()));
    out
}

/// Byte lengths of the common prefix and suffix of `vals` (at least two strings), not
/// overlapping, both ending on token boundaries.
fn common_affixes(vals: &[&str]) -> (usize, usize) {
    let Some(first) = vals.first() else {
        return (0, 0);
    };
    let fb = first.as_bytes();
    let mut p = fb.len();
    for v in vals {
        p = p.min(
            fb.iter()
                .zip(v.as_bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    // Identifiers make a cut depend on the whole run around it, which may differ between values
    // (`ab12` is cut at 2, `ab12c3` is one token): a cut must be one in every value.
    let cuts: Vec<Vec<usize>> = vals.iter().map(|v| boundaries(v)).collect();
    let cut_everywhere = |from_end: bool, t: usize| {
        vals.iter().zip(&cuts).all(|(v, c)| {
            let i = if from_end { v.len() - t } else { t };
            c.binary_search(&i).is_ok()
        })
    };
    p = (0..=p)
        .rev()
        .find(|&i| cut_everywhere(false, i))
        .unwrap_or(0);
    let mut s = vals.iter().map(|v| v.len() - p).min().unwrap_or(0);
    for v in vals {
        let common = fb
            .iter()
            .rev()
            .zip(v.as_bytes().iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        s = s.min(common);
    }
    s = (0..=s)
        .rev()
        .find(|&t| cut_everywhere(true, t))
        .unwrap_or(0);
    (p, s)
}

/// What the alignment learns about one column.
struct Column<'a> {
    /// Lowest common ancestor of its tokens' leaves.
    class: Class,
    /// Number of values with a token in the column.
    count: usize,
    /// The first token's text, and whether all tokens have it.
    text: &'a str,
    equal: bool,
    /// Whether some token is `/` or `?` (a symbol class must then include it).
    slash: bool,
    question: bool,
}

/// One piece of a rendered column.
enum Piece {
    /// An escaped literal, with whether it is one character.
    Literal(String, bool),
    /// A class matching one or more characters (the body, without quantifier).
    Repeat(&'static str),
    /// A class matching exactly one character.
    One(String),
}

impl Piece {
    fn plain(&self) -> String {
        match self {
            Piece::Literal(s, _) | Piece::One(s) => s.clone(),
            Piece::Repeat(b) => format!("{b}+"),
        }
    }

    fn optional(&self) -> String {
        match self {
            Piece::Literal(s, true) | Piece::One(s) => format!("{s}?"),
            Piece::Literal(s, false) => format!("(?:{s})?"),
            Piece::Repeat(b) => format!("{b}*"),
        }
    }
}

/// A class matching any character but `/` and `?` unless they occur in the examples.
fn any_char(slash: bool, question: bool) -> &'static str {
    match (slash, question) {
        (false, false) => "[^/?]",
        (false, true) => "[^/]",
        (true, false) => "[^?]",
        (true, true) => "(?s:.)",
    }
}

/// An identifier's column (see [`IDENTIFIER_RUNS`]): one or more letters and digits.
const ANY_ALNUM: &str = "[A-Za-z0-9]+";
/// Optional columns [`ANY_ALNUM`] already covers next to it: aligning an identifier with a word and
/// a number leaves one of these beside it (`ab12`, `ab12c3` → `[A-Za-z0-9]+[0-9]*`).
const ALNUM_OPTIONAL: [&str; 3] = ["[A-Za-z]*", "[0-9]*", "[A-Za-z0-9]*"];

/// Fallback for infixes without a structure to align: one class over the whole infix, of the
/// characters seen — letters (both cases), digits and each symbol met — so that a symbol no
/// value has stays out (Datasette's row names hold `-`, `+` and `~` but never `.`, which its
/// `.json` alternates do). Any character but `/` and `?` unless seen, when an infix holds one
/// that is not ASCII.
fn coarse_regex(infixes: &[&str]) -> String {
    let quant = if infixes.iter().any(|f| f.is_empty()) {
        '*'
    } else {
        '+'
    };
    let chars = || infixes.iter().flat_map(|f| f.chars());
    if !chars().all(|c| c.is_ascii_graphic()) {
        let slash = infixes.iter().any(|f| f.contains('/'));
        let question = infixes.iter().any(|f| f.contains('?'));
        return format!("{}{quant}", any_char(slash, question));
    }
    let mut symbols: Vec<char> = chars().filter(|c| !c.is_ascii_alphanumeric()).collect();
    symbols.sort_unstable();
    symbols.dedup();
    let mut class = String::from("[");
    if chars().any(|c| c.is_ascii_alphabetic()) {
        class.push_str("A-Za-z");
    }
    if chars().any(|c| c.is_ascii_digit()) {
        class.push_str("0-9");
    }
    for c in symbols {
        // Escaped where a class gives it a meaning in either syntax (Rust's `&&`, `--`, `~~`
        // are set operations).
        if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~') {
            class.push('\\');
        }
        class.push(c);
    }
    class.push(']');
    format!("{class}{quant}")
}

/// Below this share of the aligned columns filled by the average value, and with no symbol
/// column every value has (SFML's `classsf_1_1Texture` and `structsf_1_1Event_1_1SizeEvent`
/// share their `_`), the values have no common structure to align (each package name its own
/// run of words, digits and symbols: Datasette's rows gave 40 columns, most optional) and the
/// infix is one class ([`coarse_regex`]) — unless it holds query parameters ([`has_query`]).
const MIN_FILL: f64 = 0.5;

/// Whether an infix holds query parameters (`?`, `&`, `;`, `=`): their keys are structure even
/// where the values vary, and one class over them would take every combination of a
/// listing's sorts and facets (Datasette's table then led a crawl into endless combinations).
fn has_query(infixes: &[&str]) -> bool {
    infixes.iter().any(|f| f.contains(['?', '&', ';', '=']))
}

/// Score of aligning a token of leaf `t` with a column whose tokens generalise to `col`; `None`
/// when they must not share a column (a symbol with letters or digits).
fn score(t: Class, col: Class) -> Option<i32> {
    match (t, col) {
        (Class::Punct(a), Class::Punct(b)) if a == b => Some(10),
        (Class::Punct(_), Class::Punct(_) | Class::Symbol) => Some(1),
        (Class::Alpha, Class::Alpha)
        | (Class::Digit, Class::Digit)
        | (Class::AlphaNum, Class::AlphaNum) => Some(4),
        (Class::Alpha | Class::Digit, Class::AlphaNum)
        | (Class::AlphaNum, Class::Alpha | Class::Digit) => Some(3),
        (Class::Alpha, Class::Digit) | (Class::Digit, Class::Alpha) => Some(1),
        _ => None,
    }
}

/// Result of aligning token shapes: the columns in order and, per shape, the column of each token.
struct Alignment {
    order: Vec<usize>,
    maps: Vec<Vec<usize>>,
}

/// Progressive alignment of the shapes (sequences of leaves) into columns, in order: each shape is
/// aligned with the columns so far by dynamic programming (maximum total score, gaps free), ties
/// resolved towards matching early, so the unmatched tail of a longer shape becomes trailing
/// optional columns. `None` when the columns exceed [`MAX_COLUMNS`].
fn align(shapes: &[Vec<Class>]) -> Option<Alignment> {
    let first = shapes.first()?;
    let mut class: Vec<Class> = first.clone();
    let mut order: Vec<usize> = (0..class.len()).collect();
    let mut maps = vec![order.clone()];
    for shape in shapes.iter().skip(1) {
        let (n, m) = (order.len(), shape.len());
        let w = m + 1;
        // dp[i * w + j]: best score aligning columns i.. with tokens j..
        let mut dp = vec![0i32; (n + 1) * w];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                let mut best = dp[(i + 1) * w + j].max(dp[i * w + j + 1]);
                if let Some(sc) = score(shape[j], class[order[i]]) {
                    best = best.max(sc + dp[(i + 1) * w + j + 1]);
                }
                dp[i * w + j] = best;
            }
        }
        let mut next = Vec::with_capacity(n + m);
        let mut map = Vec::with_capacity(m);
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            let here = dp[i * w + j];
            if i < n && j < m {
                let c = order[i];
                if let Some(sc) = score(shape[j], class[c])
                    && here == sc + dp[(i + 1) * w + j + 1]
                {
                    class[c] = class[c].lca(shape[j]);
                    next.push(c);
                    map.push(c);
                    i += 1;
                    j += 1;
                    continue;
                }
            }
            if i < n && here == dp[(i + 1) * w + j] {
                next.push(order[i]);
                i += 1;
                continue;
            }
            let Some(&t) = shape.get(j) else { break };
            next.push(class.len());
            map.push(class.len());
            class.push(t);
            j += 1;
        }
        if next.len() > MAX_COLUMNS {
            return None;
        }
        order = next;
        maps.push(map);
    }
    Some(Alignment { order, maps })
}

/// The regex of the infixes of one level (at least two, not all equal).
fn infix_regex(infixes: &[&str]) -> String {
    let tokens: Vec<Vec<(Class, Range<usize>)>> = infixes.iter().map(|f| spans(f)).collect();
    if tokens.iter().any(|t| t.len() > MAX_TOKENS) {
        return coarse_regex(infixes);
    }
    // Values with the same sequence of leaves align alike: align each shape once.
    let mut shape_of: HashMap<Vec<Class>, usize> = HashMap::new();
    let mut shapes: Vec<Vec<Class>> = Vec::new();
    let row_shape: Vec<usize> = tokens
        .iter()
        .map(|t| {
            let shape: Vec<Class> = t.iter().map(|(c, _)| *c).collect();
            *shape_of.entry(shape.clone()).or_insert_with(|| {
                shapes.push(shape);
                shapes.len() - 1
            })
        })
        .collect();
    let Some(al) = align(&shapes) else {
        return coarse_regex(infixes);
    };

    let ncols = al
        .order
        .len()
        .max(al.maps.iter().flatten().map(|c| c + 1).max().unwrap_or(0));
    let mut cols: Vec<Option<Column>> = (0..ncols).map(|_| None).collect();
    for ((infix, toks), &sh) in infixes.iter().zip(&tokens).zip(&row_shape) {
        let Some(map) = al.maps.get(sh) else { continue };
        for ((leaf, r), &c) in toks.iter().zip(map) {
            let text = infix.get(r.clone()).unwrap_or_default();
            let Some(slot) = cols.get_mut(c) else {
                continue;
            };
            match slot {
                None => {
                    *slot = Some(Column {
                        class: *leaf,
                        count: 1,
                        text,
                        equal: true,
                        slash: text == "/",
                        question: text == "?",
                    })
                }
                Some(col) => {
                    col.class = col.class.lca(*leaf);
                    col.count += 1;
                    col.equal &= col.text == text;
                    col.slash |= text == "/";
                    col.question |= text == "?";
                }
            }
        }
    }
    // Which shapes have a token in each column, as a bit set.
    let words = shapes.len().div_ceil(64);
    let mut presence = vec![vec![0u64; words]; ncols];
    for (sh, map) in al.maps.iter().enumerate() {
        for &c in map {
            if let Some(word) = presence.get_mut(c).and_then(|p| p.get_mut(sh / 64)) {
                *word |= 1 << (sh % 64);
            }
        }
    }
    let full = |p: &[u64]| p.iter().map(|w| w.count_ones() as usize).sum::<usize>() == shapes.len();
    // No common structure: no symbol every value has, and the average value fills fewer than
    // half the columns.
    let shared_symbol = al.order.iter().any(|&c| {
        matches!(cols.get(c), Some(Some(col)) if matches!(col.class, Class::Punct(_)))
            && full(&presence[c])
    });
    let filled: usize = tokens.iter().map(Vec::len).sum();
    if !shared_symbol
        && (filled as f64) < MIN_FILL * (tokens.len() * al.order.len()) as f64
        && !has_query(infixes)
    {
        return coarse_regex(infixes);
    }

    let piece = |c: usize, key: bool| -> Piece {
        let Some(Some(col)) = cols.get(c) else {
            return Piece::Literal(String::new(), false);
        };
        let symbol = matches!(col.class, Class::Punct(_));
        if col.equal && (symbol || key || col.count >= 2) {
            return Piece::Literal(escape(col.text), col.text.chars().count() == 1);
        }
        match col.class {
            Class::Alpha => Piece::Repeat("[A-Za-z]"),
            Class::Digit => Piece::Repeat("[0-9]"),
            Class::AlphaNum => Piece::Repeat("[A-Za-z0-9]"),
            Class::Symbol | Class::Punct(_) => {
                let mut s = "[^A-Za-z0-9".to_string();
                if !col.slash {
                    s.push('/');
                }
                if !col.question {
                    s.push('?');
                }
                s.push(']');
                Piece::One(s)
            }
            Class::Any => Piece::Repeat(any_char(col.slash, col.question)),
        }
    };
    // A word right before a constant `=` in the same group is a key (`?page=`): keep it literal.
    let is_key = |c: usize| matches!(cols.get(c), Some(Some(col)) if col.equal && col.text == "=");

    let mut out = String::new();
    let mut k = 0;
    while k < al.order.len() {
        let same = &presence[al.order[k]];
        let mut e = k + 1;
        while e < al.order.len() && presence[al.order[e]] == *same {
            e += 1;
        }
        let run = &al.order[k..e];
        let pieces: Vec<Piece> = run
            .iter()
            .enumerate()
            .map(|(x, &c)| piece(c, run.get(x + 1).is_some_and(|&n| is_key(n))))
            .collect();
        if full(same) {
            for p in &pieces {
                let plain = p.plain();
                // `[A-Za-z0-9]+` takes in the optional letter and digit runs before it.
                if plain == ANY_ALNUM {
                    while let Some(rest) = ALNUM_OPTIONAL.iter().find_map(|o| out.strip_suffix(o)) {
                        out.truncate(rest.len());
                    }
                }
                out.push_str(&plain);
            }
        } else if let [one] = pieces.as_slice() {
            let optional = one.optional();
            // … and after it.
            if !(out.ends_with(ANY_ALNUM) && ALNUM_OPTIONAL.contains(&optional.as_str())) {
                out.push_str(&optional);
            }
        } else {
            out.push_str("(?:");
            pieces.iter().for_each(|p| out.push_str(&p.plain()));
            out.push_str(")?");
        }
        k = e;
    }
    out
}

#[cfg(test)]
mod tests;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn check(urls: &[String]) -> Result<(), TestCaseError> {
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        let Some(p) = url_pattern(&refs) else {
            prop_assert!(refs.iter().any(|u| normalize(u).is_none()) || refs.is_empty());
            return Ok(());
        };
        let re = p.compile();
        prop_assert!(re.is_ok(), "{} does not compile", p.regex);
        let re = re.unwrap();
        for u in &refs {
            let n = normalize(u).unwrap();
            prop_assert!(re.is_match(&n), "{} does not match {}", p.regex, n);
        }
        Ok(())
    }

    /// URLs of one shape: fixed site and depth, each level drawn from a small grammar.
    fn shaped() -> impl Strategy<Value = Vec<String>> {
        let segment = "[a-zA-Z]{1,8}([-_.][a-z0-9]{1,6}){0,3}(\\.html)?|[0-9]{1,5}|";
        (1usize..5).prop_flat_map(move |depth| {
            prop::collection::vec(
                (
                    prop::collection::vec(segment, depth),
                    prop::option::of("[a-z]{1,4}=[a-z0-9]{0,5}(&[a-z]{1,4}=[0-9]{1,3}){0,2}"),
                ),
                1..25,
            )
            .prop_map(|rows| {
                rows.into_iter()
                    .map(|(segs, q)| {
                        let q = q.map(|q| format!("?{q}")).unwrap_or_default();
                        format!("http://example.test/{}{q}", segs.join("/"))
                    })
                    .collect()
            })
        })
    }

    /// The definition, checked pair by pair.
    fn group_reference(urls: &[&str], k: usize) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, u) in urls.iter().enumerate() {
            match groups
                .iter_mut()
                .find(|g| g.iter().all(|&j| url_similar(u, urls[j], k)))
            {
                Some(g) => g.push(i),
                None => groups.push(vec![i]),
            }
        }
        groups
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn pattern_matches_shaped_urls(urls in shaped()) {
            check(&urls)?;
        }

        #[test]
        fn pattern_matches_arbitrary_paths(paths in prop::collection::vec("[ -~]{0,24}", 1..12)) {
            let urls: Vec<String> = paths.iter().map(|p| format!("http://h.test/{p}")).collect();
            check(&urls)?;
        }

        #[test]
        fn pattern_matches_unicode_paths(paths in prop::collection::vec("\\PC{0,12}", 1..8)) {
            let urls: Vec<String> = paths.iter().map(|p| format!("https://h.test:8080/d/{p}")).collect();
            check(&urls)?;
        }

        #[test]
        fn no_panic_on_arbitrary_strings(strings in prop::collection::vec(any::<String>(), 0..6)) {
            let refs: Vec<&str> = strings.iter().map(String::as_str).collect();
            check(&strings)?;
            let _ = group(&refs, DEFAULT_K);
            for s in &refs {
                let _ = levels(s);
                let _ = url_similar(s, s, DEFAULT_K);
                let lr = level_regex(&refs);
                prop_assert!(regex::Regex::new(&lr).is_ok(), "{}", lr);
                prop_assert!(UrlPattern::literal(s).compile().unwrap().is_match(s));
            }
        }

        #[test]
        fn level_regex_matches_its_values(values in prop::collection::vec("\\PC{0,16}", 1..10)) {
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            let lr = level_regex(&refs);
            let re = regex::Regex::new(&format!("^(?:{lr})$"));
            prop_assert!(re.is_ok(), "{}", lr);
            let re = re.unwrap();
            for v in &refs {
                prop_assert!(re.is_match(v), "{} does not match {:?}", lr, v);
            }
        }

        #[test]
        fn group_agrees_with_reference(
            urls in prop::collection::vec("http://[ab]\\.test(/[a-c0-2]{0,2}){0,4}|x", 0..40),
            k in 0usize..4,
        ) {
            let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
            prop_assert_eq!(group(&refs, k), group_reference(&refs, k));
        }

        #[test]
        fn tokenize_concatenates_back(s in any::<String>()) {
            let joined: String = tokenize(&s).into_iter().map(|t| t.text).collect();
            prop_assert_eq!(joined, s);
        }

        #[test]
        fn similarity_is_reflexive_and_symmetric(
            a in "http://h\\.test(/[a-c0-2]{0,2}){0,4}",
            b in "http://h\\.test(/[a-c0-2]{0,2}){0,4}",
            k in 0usize..4,
        ) {
            prop_assert!(url_similar(&a, &a, k));
            prop_assert_eq!(url_similar(&a, &b, k), url_similar(&b, &a, k));
        }
    }
}
