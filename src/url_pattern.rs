//! URL levels, URLsim and URL generalisation with the regex tree (design §4, thesis
//! Algorithms 3–6).
//!
//! A URL's *levels* are its site (`scheme://host[:port]`) and its path segments; the query
//! string belongs to the last level. Two URLs are similar (URLsim) when they have as many
//! levels, the same site, and differ in at most K levels.
//!
//! Generalisation ([`url_pattern`]) works level by level. Where the URLs differ, their common
//! token prefix and suffix stay literal and the infixes are tokenised with the regex tree —
//! leaves `[A-Za-z]+`, `[0-9]+` and one per punctuation character, inner node `[A-Za-z0-9]+`.
//! Token sequences of different lengths are aligned column by column (longest common
//! subsequence on token kinds: a word aligns with a word, a punctuation character with the
//! same character); a column absent from some URL is optional. A column becomes its literal
//! when every URL has the same token there, else the regex of the lowest common ancestor of
//! its tokens' leaves.
//!
//! Every regex is anchored and uses only syntax common to Rust `regex` and Python `re`
//! (character classes, `(?:…)`, `?`, `+`, `|`, `\`-escaped metacharacters), so patterns can
//! be exported to Scrapy unchanged.
use serde::{Deserialize, Serialize};
use url::Url;

/// URLsim's K: similar URLs differ in at most this many levels.
pub const DEFAULT_K: usize = 2;

/// The levels of a URL (see the module docs); None for non-URLs.
pub fn levels(url: &str) -> Option<Vec<String>> {
    let u = Url::parse(url).ok()?;
    let host = u.host_str()?;
    let site = match u.port() {
        Some(p) => format!("{}://{host}:{p}", u.scheme()),
        None => format!("{}://{host}", u.scheme()),
    };
    let mut out = vec![site];
    let path = u.path();
    let path = path.strip_prefix('/').unwrap_or(path);
    out.extend(path.split('/').map(str::to_string));
    if let Some(q) = u.query()
        && let Some(last) = out.last_mut()
    {
        last.push('?');
        last.push_str(q);
    }
    Some(out)
}

/// URLsim: same number of levels, same site, at most `k` differing levels.
pub fn url_similar(a: &str, b: &str, k: usize) -> bool {
    match (levels(a), levels(b)) {
        (Some(la), Some(lb)) => similar_levels(&la, &lb, k),
        _ => false,
    }
}

fn similar_levels(a: &[String], b: &[String], k: usize) -> bool {
    a.len() == b.len()
        && a.first() == b.first()
        && a.iter().zip(b).filter(|(x, y)| x != y).count() <= k
}

/// Partitions URLs into groups of pairwise-similar URLs, deterministically: in order of first
/// appearance, a URL joins the first group all of whose members are similar to it. Returns
/// indices into `urls`; unparseable URLs form groups of their own.
pub fn group(urls: &[&str], k: usize) -> Vec<Vec<usize>> {
    let lv: Vec<Option<Vec<String>>> = urls.iter().map(|u| levels(u)).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, l) in lv.iter().enumerate() {
        let Some(l) = l else {
            groups.push(vec![i]);
            continue;
        };
        let home = groups.iter_mut().find(|g| {
            g.iter()
                .all(|&j| lv[j].as_ref().is_some_and(|m| similar_levels(l, m, k)))
        });
        match home {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// A node of the regex tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    /// `[A-Za-z]+` (leaf).
    Alpha,
    /// `[0-9]+` (leaf).
    Digit,
    /// `[A-Za-z0-9]+`: the parent of `Alpha` and `Digit`.
    AlphaNum,
    /// One punctuation (or other non-alphanumeric) character (leaf).
    Punct(char),
}

impl Class {
    fn regex(self) -> String {
        match self {
            Class::Alpha => "[A-Za-z]+".into(),
            Class::Digit => "[0-9]+".into(),
            Class::AlphaNum => "[A-Za-z0-9]+".into(),
            Class::Punct(c) => escape(&c.to_string()),
        }
    }

    fn is_word(self) -> bool {
        !matches!(self, Class::Punct(_))
    }
}

/// A token: text and the leaf of the regex tree it matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// The text.
    pub text: String,
    /// Its leaf.
    pub class: Class,
}

/// Algorithm 5: the longest leftmost prefix matching one leaf, repeatedly.
pub fn tokenize(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let class = if c.is_ascii_alphabetic() {
            Class::Alpha
        } else if c.is_ascii_digit() {
            Class::Digit
        } else {
            out.push(Token {
                text: c.to_string(),
                class: Class::Punct(c),
            });
            continue;
        };
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = chars.peek() {
            let same = match class {
                Class::Alpha => d.is_ascii_alphabetic(),
                _ => d.is_ascii_digit(),
            };
            if !same {
                break;
            }
            end = i + d.len_utf8();
            chars.next();
        }
        out.push(Token {
            text: s[start..end].to_string(),
            class,
        });
    }
    out
}

/// Escapes the regex metacharacters common to Rust `regex` and Python `re`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
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

/// An anchored full-URL regex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlPattern {
    /// `^…$`.
    pub regex: String,
}

impl UrlPattern {
    /// Compiles it.
    ///
    /// # Errors
    /// Only for hand-edited regexes; generated ones always compile.
    pub fn compile(&self) -> Result<regex::Regex, regex::Error> {
        regex::Regex::new(&self.regex)
    }

    /// The pattern of exactly one URL.
    pub fn literal(url: &str) -> UrlPattern {
        UrlPattern {
            regex: format!("^{}$", escape(url)),
        }
    }
}

/// Algorithms 4 and 6: one anchored regex matching every URL given, generalised level by
/// level. URLs with different level counts or sites get one alternative per (site, count).
/// None when no URL parses.
pub fn url_pattern(urls: &[&str]) -> Option<UrlPattern> {
    let mut shapes: Vec<(usize, String, Vec<Vec<String>>)> = Vec::new();
    for u in urls {
        let Some(l) = levels(u) else { continue };
        match shapes
            .iter_mut()
            .find(|(n, site, _)| *n == l.len() && Some(site) == l.first())
        {
            Some((_, _, v)) => v.push(l),
            None => shapes.push((l.len(), l[0].clone(), vec![l])),
        }
    }
    if shapes.is_empty() {
        return None;
    }
    let alts: Vec<String> = shapes
        .iter()
        .map(|(n, _, lv)| {
            (0..*n)
                .map(|i| {
                    let col: Vec<&str> = lv.iter().map(|l| l[i].as_str()).collect();
                    level_regex(&col)
                })
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let regex = if alts.len() == 1 {
        format!("^{}$", alts[0])
    } else {
        format!("^(?:{})$", alts.join("|"))
    };
    Some(UrlPattern { regex })
}

/// The regex of one level given its value in every URL.
pub fn level_regex(values: &[&str]) -> String {
    let Some(first) = values.first() else {
        return String::new();
    };
    if values.iter().all(|v| v == first) {
        return escape(first);
    }
    let toks: Vec<Vec<Token>> = values.iter().map(|v| tokenize(v)).collect();
    // Common token prefix and suffix (not overlapping in the shortest sequence).
    let min = toks.iter().map(Vec::len).min().unwrap_or(0);
    let mut pre = 0;
    while pre < min && toks.iter().all(|t| t[pre] == toks[0][pre]) {
        pre += 1;
    }
    let mut suf = 0;
    while suf < min - pre
        && toks
            .iter()
            .all(|t| t[t.len() - 1 - suf] == toks[0][toks[0].len() - 1 - suf])
    {
        suf += 1;
    }
    let mut columns: Vec<Column> = Vec::new();
    for (n, t) in toks.iter().enumerate() {
        let middle = &t[pre..t.len() - suf];
        merge(&mut columns, middle, n);
    }
    let total = toks.len();
    let mut out = String::new();
    for t in &toks[0][..pre] {
        out.push_str(&escape(&t.text));
    }
    for c in &columns {
        let body = c.regex();
        if c.present < total {
            if c.class.is_word() {
                out.push_str(&format!("(?:{body})?"));
            } else {
                out.push_str(&format!("{body}?"));
            }
        } else {
            out.push_str(&body);
        }
    }
    let t0 = &toks[0];
    for t in &t0[t0.len() - suf..] {
        out.push_str(&escape(&t.text));
    }
    out
}

/// One aligned token column.
#[derive(Clone, Debug)]
struct Column {
    class: Class,
    /// The literal, while every token seen here is the same.
    literal: Option<String>,
    /// Sequences with a token in this column.
    present: usize,
    /// The last sequence counted (a sequence counts once).
    last: usize,
}

impl Column {
    fn new(t: &Token, seq: usize) -> Column {
        Column {
            class: t.class,
            literal: Some(t.text.clone()),
            present: 1,
            last: seq,
        }
    }

    fn add(&mut self, t: &Token, seq: usize) {
        if self.literal.as_deref() != Some(t.text.as_str()) {
            self.literal = None;
        }
        self.class = lca(self.class, t.class);
        if self.last != seq {
            self.present += 1;
            self.last = seq;
        }
    }

    fn regex(&self) -> String {
        match &self.literal {
            Some(l) => escape(l),
            None => self.class.regex(),
        }
    }
}

/// Lowest common ancestor in the regex tree (only called on tokens of one alignment key:
/// two words, or two equal punctuation characters).
fn lca(a: Class, b: Class) -> Class {
    match (a, b) {
        (x, y) if x == y => x,
        (x, y) if x.is_word() && y.is_word() => Class::AlphaNum,
        (x, _) => x,
    }
}

fn key_match(c: Class, t: Class) -> bool {
    match (c, t) {
        (Class::Punct(a), Class::Punct(b)) => a == b,
        (x, y) => x.is_word() && y.is_word(),
    }
}

/// Merges one token sequence into the columns: LCS on alignment keys; unmatched tokens become
/// new columns where they occur.
fn merge(columns: &mut Vec<Column>, seq: &[Token], n: usize) {
    if columns.is_empty() {
        columns.extend(seq.iter().map(|t| Column::new(t, n)));
        if n > 0 {
            // Earlier sequences had nothing here: these columns are optional.
            for c in columns.iter_mut() {
                c.present = 1;
            }
        }
        return;
    }
    let (a, b) = (columns.len(), seq.len());
    // Long infixes are rare in URLs; cap the table to keep the work bounded.
    if a.saturating_mul(b) > 1_000_000 {
        for c in columns.iter_mut() {
            c.literal = None;
            c.class = if c.class.is_word() {
                Class::AlphaNum
            } else {
                c.class
            };
        }
        return;
    }
    let mut dp = vec![0u32; (a + 1) * (b + 1)];
    let at = |i: usize, j: usize| i * (b + 1) + j;
    for i in (0..a).rev() {
        for j in (0..b).rev() {
            dp[at(i, j)] = if key_match(columns[i].class, seq[j].class) {
                dp[at(i + 1, j + 1)] + 1
            } else {
                dp[at(i + 1, j)].max(dp[at(i, j + 1)])
            };
        }
    }
    let mut merged: Vec<Column> = Vec::with_capacity(a + b);
    let (mut i, mut j) = (0, 0);
    let old = std::mem::take(columns);
    while i < a || j < b {
        if i < a
            && j < b
            && key_match(old[i].class, seq[j].class)
            && dp[at(i, j)] == dp[at(i + 1, j + 1)] + 1
        {
            let mut c = old[i].clone();
            c.add(&seq[j], n);
            merged.push(c);
            i += 1;
            j += 1;
        } else if i < a && (j == b || dp[at(i + 1, j)] >= dp[at(i, j + 1)]) {
            merged.push(old[i].clone());
            i += 1;
        } else {
            merged.push(Column::new(&seq[j], n));
            j += 1;
        }
    }
    *columns = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(urls: &[&str]) -> regex::Regex {
        let p = url_pattern(urls).expect("pattern");
        let re = p.compile().expect("compiles");
        for u in urls {
            assert!(re.is_match(u), "{u} !~ {}", p.regex);
        }
        re
    }

    #[test]
    fn levels_and_urlsim() {
        assert_eq!(
            levels("http://h:8080/a/b.html?x=1").expect("levels"),
            ["http://h:8080", "a", "b.html?x=1"]
        );
        assert_eq!(levels("http://h/").expect("levels"), ["http://h", ""]);
        assert!(url_similar("http://h/a/1", "http://h/b/2", 2));
        assert!(!url_similar("http://h/a/1/x", "http://h/b/2/y", 2));
        assert!(!url_similar("http://h/a", "http://h/a/b", 2));
        assert!(!url_similar("http://h/a", "http://g/a", 2));
        let urls = [
            "http://h/a/1",
            "http://h/a/2",
            "http://h/b/c/d",
            "http://h/x/2",
            "http://h/b/c/e",
        ];
        assert_eq!(group(&urls, 1), vec![vec![0, 1], vec![2, 4], vec![3]]);
        assert_eq!(group(&urls, 2), vec![vec![0, 1, 3], vec![2, 4]]);
    }

    #[test]
    fn thesis_example() {
        let urls = [
            "http://h/x/Chaves:Silvio8=.html",
            "http://h/x/Ugher:MangabeiraD=.html",
            "http://h/x/Mendes:Sergio.html",
        ];
        let p = url_pattern(&urls).expect("pattern");
        // The thesis writes `[A-Za-z]+:[A-Za-z]+[A-Za-z0-9]*=?\.html`; our alignment keeps the
        // digit run as its own optional column, the same language on these names.
        assert_eq!(p.regex, r"^http://h/x/[A-Za-z]+:[A-Za-z]+(?:8)?=?\.html$");
        let re = pat(&urls);
        assert!(re.is_match("http://h/x/Silva:Joao.html"));
        assert!(re.is_match("http://h/x/Costa:Ana=.html"));
        assert!(!re.is_match("http://h/x/a/b.html"));
        assert!(!re.is_match("http://h/x/Silva.html"));
    }

    #[test]
    fn doc_site_shapes() {
        let re = pat(&[
            "http://h/sql-vacuum.html",
            "http://h/sql-analyze.html",
            "http://h/sql-createtable.html",
        ]);
        assert!(re.is_match("http://h/sql-copy.html"));
        assert!(!re.is_match("http://h/app-psql.html"));
        let re = pat(&[
            "http://h/sql-vacuum.html",
            "http://h/app-pgdump.html",
            "http://h/pgbench.html",
        ]);
        assert!(re.is_match("http://h/app-psql.html"));
        assert!(re.is_match("http://h/initdb.html"));
        assert!(!re.is_match("http://h/a/b.html"));
        let re = pat(&[
            "http://h/classsf_1_1Texture.html",
            "http://h/classsf_1_1Sprite.html",
            "http://h/structsf_1_1Event_1_1KeyEvent.html",
        ]);
        assert!(re.is_match("http://h/classsf_1_1Music.html"));
        let re = pat(&[
            "http://h/library/json.html",
            "http://h/library/os.path.html",
        ]);
        assert!(
            re.is_match("http://h/library/xml.etree.html")
                || re.is_match("http://h/library/re.html")
        );
        let re = pat(&[
            "http://h/api/org/apache/commons/lang3/StringUtils.html",
            "http://h/api/org/apache/commons/lang3/text/StrBuilder.html",
            "http://h/api/org/apache/commons/lang3/ArrayUtils.html",
        ]);
        assert!(re.is_match("http://h/api/org/apache/commons/lang3/CharUtils.html"));
        let re = pat(&["http://h/list?page=2", "http://h/list?page=10"]);
        assert!(re.is_match("http://h/list?page=77"));
        assert!(!re.is_match("http://h/list?page=x"));
    }

    #[test]
    fn tokenize_leaves() {
        let t = tokenize("Silvio8=.html");
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["Silvio", "8", "=", ".", "html"]);
        assert_eq!(t[1].class, Class::Digit);
        assert_eq!(t[2].class, Class::Punct('='));
        assert!(url_pattern(&["not a url"]).is_none());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pattern_matches_every_url_it_was_built_from(
            segs in proptest::collection::vec(
                proptest::collection::vec("[a-zA-Z0-9._:=~-]{0,10}", 1..4), 1..8),
            query in proptest::option::of("[a-z]{1,4}=[0-9]{1,3}"),
        ) {
            let urls: Vec<String> = segs.iter().map(|s| {
                let mut u = format!("http://h.test/{}", s.join("/"));
                if let Some(q) = &query { u.push('?'); u.push_str(q); }
                u
            }).collect();
            let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
            let p = url_pattern(&refs).expect("pattern");
            let re = p.compile().expect("compiles");
            for u in &urls {
                let canon = url::Url::parse(u).expect("url").to_string();
                prop_assert!(re.is_match(&canon), "{} !~ {}", canon, p.regex);
            }
        }

        #[test]
        fn tokens_concatenate_to_the_input(s in ".{0,40}") {
            let t: String = tokenize(&s).into_iter().map(|t| t.text).collect();
            prop_assert_eq!(t, s);
        }

        #[test]
        fn urlsim_is_reflexive_and_symmetric(a in "[a-c/]{0,8}", b in "[a-c/]{0,8}") {
            let (a, b) = (format!("http://h/{a}"), format!("http://h/{b}"));
            prop_assert!(url_similar(&a, &a, 2));
            prop_assert_eq!(url_similar(&a, &b, 2), url_similar(&b, &a, 2));
        }

        #[test]
        fn no_panic(a in ".{0,60}", b in ".{0,60}") {
            let _ = url_pattern(&[&a, &b]);
            let _ = group(&[&a, &b], 2);
        }
    }
}
