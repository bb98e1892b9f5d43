//! The kind of page a main heading names, for the review of pages just below θ.
//!
//! Generators write a page's kind into its heading next to its name: "sf::Texture Class
//! Reference", "sf::Event::SizeEvent Struct Reference", "GpuPreference.hpp File Reference",
//! "QTextOption::Tab Struct". A similarity cannot see that text, and Doxygen builds its
//! namespace and header pages from the class template, so a class without members scores below
//! a namespace page. The heading's *template* — its words with those naming the page (the words
//! of its own URL, the module words of a qualified name: "Struct std::iter::Map" is "Struct
//! *", and the rest of a name the URL cuts short or holds one word of) as slots — tells them
//! apart: a page just below θ whose template is a target's, and no clearly unlike page's, is
//! likelier a missed target (learning takes it). A page well below θ is clearly unlike unless
//! its heading follows the example's own template: the site names it as it names the example,
//! and it is that kind scoring low (ocamldoc's class pages hold their content straight under
//! `body` and score from 0.66 to 1.0), not another kind straddling θ; a page the user judged
//! unlike vetoes any template.
//!
//! Learning takes such a page as a target ([`promoted`]; `pattern::learn_corrected`), and the
//! review lists it first among the targets to check. Measured on the 23 sites of
//! `eval/*-sites.toml` (`docs/reports/crawl.md`): 471 pages rightly taken (SFML's two member-less classes,
//! 17 of Qt's nested classes, 15 of rust-std's structs, 341 of Boost's reference pages, 96 of
//! LablGTK's classes) and 33 wrongly, each a page of another kind whose template pages already
//! wrongly over θ share (assimp's header and namespace pages, the Sphinx manual's source
//! listings, a Qt namespace, a LablGTK page): on a site where θ already lets a kind through, its
//! siblings just below follow. A page the user judged unlike the example is never
//! taken, and its template takes no other page; one judged like it is a target, and its
//! template takes the band pages that share it.
//!
//! The user can also judge a kind ([`kinds`]: the targets grouped by heading template,
//! assimp's "* File Reference" 88, "* Struct Reference" 40): the targets of a kind judged unlike the
//! example are left out ([`Judgement::left_out`]) and a verifying crawl refuses pages of that
//! kind. One kind is not made of words: the headings that start with a section number
//! ([`NUMBERED`]), a manual's chapters among reference pages headed by their name (Erlang's).
//! A manual page's section glued to its name ("gitattributes(5)", [`manual_sections`]) is a
//! word of its template whatever the site's other headings say, and a first learning proposes
//! to leave out the kinds of another section than the example's ([`other_sections`]): Git's
//! file formats and overviews are built and headed like its commands but for the section.
//! The other way round, the pages below θ grouped by template ([`kinds_below`]) let the user
//! take a whole kind that θ cuts through, whatever its similarity (LablGTK's "Class virtual *"
//! classes, 0.66–0.86 against a plain class): the rule then takes such pages a crawl meets.
//! Where θ lets a whole kind through (assimp's header pages among its classes), one verdict
//! settles it; no verdict on one page is stretched to its kind (SFML's member-less class
//! template "sf::Utf< N > Class Template Reference" is one doubtful page, not a reason to drop
//! every class template).
//!
//! The pattern carries the rule ([`HeadingRule`]), so a verifying crawl takes a page just below
//! θ the same way: one learning never saw, or a known target whose score fell since.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::dom::text::is_stop_word;
use crate::map::{Node, NodeState, SiteMap};

/// How far below θ a page is "clearly unlike the example" (the pages whose templates veto the
/// mark): the band the review looks at.
pub const WELL_BELOW: f64 = 0.12;

/// A word of a page's URL names the page (a slot of its heading) when fewer than this share of
/// the site's fetched URLs carry it (and always when its URL alone does); a word carried by many
/// URLs names a kind (`class` in Doxygen's `class_json_1_1_value.html`), and stays in the
/// template.
pub const NAME_SHARE: f64 = 0.05;

/// The words of a text: runs of letters, two or more long (numbers, punctuation and one-letter
/// template parameters are not words).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().nth(1).is_some())
}

/// The lower-case words of a URL's last path segment (query and fragment dropped).
fn url_words(url: &str) -> HashSet<String> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    words(last).map(str::to_lowercase).collect()
}

/// The words of `heading` (lower case) that name the page at `url` although no word of the URL
/// is them: generators glue a name's words together (Doxygen's
/// `structai_export_data_blob.html` for "aiExportDataBlob Struct Reference",
/// `_base_importer_8h.html` for "BaseImporter.h File Reference"). Such a word lies inside the
/// URL's last segment, holds one of its `names` (its URL words that name it), and is not
/// `frequent` on the site's headings. A kind's word glued to a name (`struct` in `structai`,
/// `namespace` in `namespacesf`) holds no name, so it stays in the template however few pages
/// are of that kind.
fn glued_names(
    heading: &str,
    url: &str,
    names: &HashSet<String>,
    frequent: &HashSet<String>,
) -> Vec<String> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let letters: String = path
        .rsplit('/')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    words(heading)
        .map(str::to_lowercase)
        .filter(|w| {
            !names.contains(w)
                && !frequent.contains(w)
                && letters.contains(w.as_str())
                && names
                    .iter()
                    .any(|n| n.chars().count() >= GLUED_MIN_LETTERS && w.contains(n.as_str()))
        })
        .collect()
}

/// The lower-case words of a URL's directories (its path but the last segment; no host).
fn dir_words(url: &str) -> HashSet<String> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = path.split_once("://").map_or(path, |(_, rest)| rest);
    let Some((host_and_dirs, _last)) = path.rsplit_once('/') else {
        return HashSet::new();
    };
    let dirs = host_and_dirs.split_once('/').map_or("", |(_, dirs)| dirs);
    words(dirs).map(str::to_lowercase).collect()
}

/// The words of `heading` (lower case) that name the page at `url` as its place: generators
/// qualify a name with the modules the URL's directories are named after ("Struct
/// std::iter::ByRefSized" at `std/iter/struct.ByRefSized.html`, "Module std::iter" at
/// `std/iter/index.html`, "Uses of Class org.apache.commons.lang3.StringUtils"). Such a
/// qualified name is one token of the heading (no space inside) of two or more words, each a
/// directory word of the URL or one of its `names`, at least one a directory word. Without
/// this every module would make its own kind ("Struct std iter *", "Struct core cell *").
/// A directory word standing alone ("Blog" on `/blog/…`) stays: it may name the kind.
fn qualified_names(heading: &str, url: &str, names: &HashSet<String>) -> Vec<String> {
    let dirs = dir_words(url);
    if dirs.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for token in name_tokens(heading) {
        let ws: Vec<String> = words(&token).map(str::to_lowercase).collect();
        let qualified = ws.len() >= 2
            && ws.iter().any(|w| dirs.contains(w))
            && ws.iter().all(|w| dirs.contains(w) || names.contains(w));
        if qualified {
            out.extend(ws.into_iter().filter(|w| !names.contains(w)));
        }
    }
    out
}

/// The lower-case words naming the page at `url` with main heading `heading` — the slots of
/// its template — as learning and the rule decide them alike: the words of its URL (`own`) but
/// the site's kind words (`is_kind`), the heading words glued inside the URL (with `frequent`;
/// None in rules learned before glued names were read), with `qualified` the module words
/// of a qualified name, and with `whole` the rest of a name ([`whole_names`]).
fn page_names(
    own: HashSet<String>,
    heading: &str,
    url: &str,
    is_kind: impl Fn(&str) -> bool,
    frequent: Option<&HashSet<String>>,
    slots: Slots,
) -> HashSet<String> {
    let mut names: HashSet<String> = own.into_iter().filter(|w| !is_kind(w)).collect();
    if let Some(frequent) = frequent {
        let glued = glued_names(heading, url, &names, frequent);
        names.extend(glued);
        if slots.whole {
            let rest = whole_names(heading, &names, frequent);
            names.extend(rest);
        }
    }
    if slots.qualified {
        let module = qualified_names(heading, url, &names);
        names.extend(module);
    }
    names
}

/// Which heading words besides its URL's words a rule counts as naming a page (each false in
/// rules learned before it was read).
#[derive(Clone, Copy, Debug)]
struct Slots {
    /// The module words of a qualified name ([`qualified_names`]).
    qualified: bool,
    /// The rest of a name ([`whole_names`]).
    whole: bool,
}

impl Slots {
    const ALL: Slots = Slots {
        qualified: true,
        whole: true,
    };
}

/// Fewest letters of a URL word cut short that names the heading word it begins
/// ([`whole_names`]): shorter ones begin other words by chance.
const CUT_MIN_LETTERS: usize = 4;

/// The words of `heading` (lower case) that name the page with the ones its `names` hold:
/// a word its URL cut short (BoostBook writes "Struct template result<This(Sub)>" to
/// `resu_1_3_45_….html`, "Function template register_skeleton_and_content" to
/// `regist_1_3_25_….html`) — one beginning with a name of at least four letters and not
/// `frequent` on the site's headings — and then every word of a part of the heading (no space
/// nor a qualified name's separator inside) holding a name: an identifier is one name
/// (`with_p_square_cumulative_distribution_median` at `with_1_3_….html`, `result<This(Sub)>`),
/// however few of its words the URL carries.
fn whole_names(heading: &str, names: &HashSet<String>, frequent: &HashSet<String>) -> Vec<String> {
    let cut = |w: &str| {
        !names.contains(w)
            && !frequent.contains(w)
            && names
                .iter()
                .any(|n| n.chars().count() >= CUT_MIN_LETTERS && w.starts_with(n.as_str()))
    };
    let mut found: HashSet<String> = words(heading)
        .map(str::to_lowercase)
        .filter(|w| cut(w))
        .collect();
    // A qualified name's parts are names of their own (`Json::Path`: `Json` may be the site's
    // kind word); [`qualified_names`] reads them.
    let parts = heading
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '.' | '/'))
        .filter(|p| !p.is_empty());
    for part in parts {
        let ws: Vec<String> = words(part).map(str::to_lowercase).collect();
        if ws.len() >= 2 && ws.iter().any(|w| names.contains(w) || found.contains(w)) {
            found.extend(ws.into_iter().filter(|w| !names.contains(w)));
        }
    }
    found.into_iter().collect()
}

/// The tokens of a heading with a qualified name's separators (`::`, `.`, `/`) gluing their
/// neighbours whatever the spaces around them: rustdoc's heading reads "Struct std :: iter ::
/// Map" as text, one name as `std::iter::Map`.
fn name_tokens(heading: &str) -> Vec<String> {
    let separator = |c: char| matches!(c, ':' | '.' | '/');
    let mut out: Vec<String> = Vec::new();
    let mut glue = false;
    for t in heading.split_whitespace() {
        match out.last_mut() {
            Some(last) if glue || t.starts_with(separator) => last.push_str(t),
            _ => out.push(t.to_string()),
        }
        glue = t.ends_with(separator);
    }
    out
}

/// Whether `text` has the shape of a heading template ([`template`]): words of letters and `*`
/// slots, one space apart. Templates come from users and imported patterns too; anything else
/// (markup, control characters) is refused, not printed or matched.
pub fn is_template(text: &str) -> bool {
    text == NUMBERED
        || !text.is_empty()
            && text.split(' ').all(|t| {
                t == "*"
                    || (!t.is_empty() && t.chars().all(char::is_alphabetic))
                    || section_token(t)
            })
}

/// Whether `token` is a manual section as [`template`] writes it: `(1)`, `(3p)` — a digit and
/// up to [`SECTION_SUFFIX`] lower-case letters or digits in parentheses.
fn section_token(token: &str) -> bool {
    token
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .is_some_and(|inner| {
            let mut cs = inner.chars();
            cs.next().is_some_and(|c| c.is_ascii_digit())
                && inner.len() <= 1 + SECTION_SUFFIX
                && cs.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Most characters after a manual section's number (`3pm`, `1ssl`).
const SECTION_SUFFIX: usize = 5;

/// The manual sections glued to a name in `heading` — "git-commit(1) Manual Page",
/// "gitattributes(5)", "LS(1)", "printf(3p)" — as (byte offset, token in lower case: `(1)`).
/// A manual page's section is its kind by convention (commands, system calls, library
/// functions, file formats, overviews), written after its name on every manual site, and its
/// words do not say it: a page headed "gitattributes(5) Manual Page" is headed like a command's
/// page but for the section. A parenthesis after a space ("Chapter (1)"), holding more than a
/// number and a short suffix ("f(int)", "v(2.0)") or followed by a letter is not one.
pub fn manual_sections(heading: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, _) in heading.match_indices('(') {
        let glued = heading[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
        // A section is short: look no further for its parenthesis (a long heading of unclosed
        // parentheses costs no more than a short one).
        let Some(len) = heading.as_bytes()[i..]
            .iter()
            .take(SECTION_SUFFIX + 3)
            .position(|&b| b == b')')
        else {
            continue;
        };
        let token = heading[i..=i + len].to_lowercase();
        let after = heading[i + len + 1..].chars().next();
        if glued && section_token(&token) && !after.is_some_and(|c| c.is_alphanumeric()) {
            out.push((i, token));
        }
    }
    out
}

/// The kind of the headings that start with a section number ([`numbered`]), in
/// [`HeadingKind::template`], `Corrections::unlike_headings` and [`HeadingRule::unlike`]: a
/// kind made by the number, not by the words (their templates stay what [`template`] makes).
pub const NUMBERED: &str = "#";

/// Whether `heading` starts with a section number — digits, dot-separated, with or without a
/// final dot — then a space and a letter: "2 gen_server Behaviour", "53.26. pg_index". A
/// manual numbers its chapters and sections; generators of reference pages do not number the
/// pages of the things they document (Erlang's user's-guide chapters pass θ beside its module
/// pages, and only their number tells them apart: one verdict on this kind leaves them out).
pub fn numbered(heading: &str) -> bool {
    let h = heading.trim_start();
    let count = |from: usize, f: fn(&u8) -> bool| {
        h.as_bytes()
            .get(from..)
            .map_or(0, |rest| rest.iter().take_while(|c| f(c)).count())
    };
    let mut i = 0;
    loop {
        let digits = count(i, u8::is_ascii_digit);
        if digits == 0 {
            return false;
        }
        i += digits;
        if h.as_bytes().get(i) == Some(&b'.') {
            i += 1;
            if h.as_bytes().get(i).is_some_and(u8::is_ascii_digit) {
                continue;
            }
        }
        break;
    }
    let spaces = count(i, u8::is_ascii_whitespace);
    // Digits, dots and ASCII spaces are one byte each: `i + spaces` is a character boundary.
    spaces > 0
        && h.get(i + spaces..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(char::is_alphabetic)
}

/// Fewest letters of the URL word a glued name must hold ([`glued_names`]): shorter ones are
/// inside other words by chance.
const GLUED_MIN_LETTERS: usize = 3;

/// A heading's template: its words in order, each word that names the page (`names`, lower
/// case) replaced by `*`, runs of `*` merged. None unless a word is left that is neither
/// `common` (lower case: on most headings of the site, like the project's name) nor a stop
/// word: a heading that is only a name, or a name and the site's name (gi-docgen's "Gtk
/// Button", whose kind is in another element), says nothing of a kind, and neither does an
/// article title whose words are in its URL but for "of" and "the". None too unless a word
/// names the page: a heading without the page's name is a label ("Note", "Caution": the first
/// titled element of a PostgreSQL reference page is often an admonition), not a kind next to a
/// name.
///
/// With `sections`, a manual section glued to a name ([`manual_sections`]) is a word of the
/// template that names a kind however many headings carry it ("git * (1) Manual Page",
/// "* (5) Manual Page"); rules learned before sections were read have none.
pub fn template(
    heading: &str,
    names: &HashSet<String>,
    common: &HashSet<String>,
    sections: bool,
) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let (mut kind, mut named) = (false, false);
    let mut marks = if sections {
        manual_sections(heading)
    } else {
        Vec::new()
    }
    .into_iter()
    .peekable();
    let start = heading.as_ptr() as usize;
    for w in words(heading) {
        // `words` yields slices of `heading`: their offsets order them among the sections.
        let at = w.as_ptr() as usize - start;
        while let Some((_, section)) = marks.next_if(|(i, _)| *i < at) {
            kind = true;
            out.push(section);
        }
        let lower = w.to_lowercase();
        if names.contains(&lower) {
            named = true;
            if out.last().map(String::as_str) != Some("*") {
                out.push("*".into());
            }
        } else {
            kind |= !common.contains(&lower) && !is_stop_word(&lower);
            out.push(w.into());
        }
    }
    for (_, section) in marks {
        kind = true;
        out.push(section);
    }
    (kind && named).then(|| out.join(" "))
}

/// The heading templates of a map's fetched pages, by node id, and which of them mark a page
/// like the targets.
#[derive(Debug, Default)]
pub struct Templates {
    by_node: HashMap<u32, String>,
    /// Templates of targets' headings, with how many targets have each.
    of_targets: HashMap<String, usize>,
    well_below: HashSet<String>,
    /// Templates the user judged unlike the example (kinds left out).
    unlike: HashSet<String>,
    /// Fetched pages whose heading starts with a section number ([`numbered`]).
    numbered: HashSet<u32>,
    /// Templates the user judged like the example (kinds below θ taken).
    like: HashSet<String>,
    /// URL words too many of the site's URLs carry to name a page ([`NAME_SHARE`]).
    kind_words: HashSet<String>,
    /// Words on most of the site's headings.
    common: HashSet<String>,
    /// Words on as many of the site's headings as [`NAME_SHARE`] makes a kind's
    /// ([`glued_names`]).
    frequent: HashSet<String>,
}

impl Templates {
    /// The templates of every fetched page of `map` with a heading.
    pub fn of(map: &SiteMap) -> Templates {
        Templates::judged(map, &HashSet::new(), &HashSet::new())
    }

    /// [`Templates::of`], where the templates of the pages a user judged unlike the example
    /// (`unlike`, canonical URLs) veto a mark as those of pages well below θ do, and so do the
    /// templates the user judged unlike it (`unlike_kinds`).
    pub fn judged(
        map: &SiteMap,
        unlike: &HashSet<&str>,
        unlike_kinds: &HashSet<&str>,
    ) -> Templates {
        let fetched: Vec<(u32, &crate::map::Node)> = map
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.similarity.is_some() && matches!(n.state, NodeState::Page | NodeState::Target)
            })
            .map(|(i, n)| (i as u32, n))
            .collect();
        let mut carried: HashMap<String, usize> = HashMap::new();
        let own: Vec<HashSet<String>> = fetched.iter().map(|(_, n)| url_words(&n.url)).collect();
        for w in own.iter().flatten() {
            *carried.entry(w.clone()).or_default() += 1;
        }
        let many = (NAME_SHARE * fetched.len() as f64).max(2.0);
        // Words on more than half of the headings name the site, not a kind.
        let mut on_headings: HashMap<String, usize> = HashMap::new();
        let mut headed = 0usize;
        for (_, n) in fetched.iter().filter(|(_, n)| !n.heading.is_empty()) {
            headed += 1;
            let distinct: HashSet<String> = words(&n.heading).map(str::to_lowercase).collect();
            for w in distinct {
                *on_headings.entry(w).or_default() += 1;
            }
        }
        let common: HashSet<String> = on_headings
            .iter()
            .filter(|&(_, &k)| 2 * k > headed)
            .map(|(w, _)| w.clone())
            .collect();
        let frequent: HashSet<String> = on_headings
            .into_iter()
            .filter(|&(_, k)| k as f64 >= many)
            .map(|(w, _)| w)
            .collect();
        let mut t = Templates {
            kind_words: carried
                .iter()
                .filter(|&(_, &k)| k as f64 >= many)
                .map(|(w, _)| w.clone())
                .collect(),
            ..Templates::default()
        };
        let example = map.canonical_example();
        // Templates of pages well below θ, and the example's own: the site names the example's
        // kind in its heading, so pages well below θ that share it are that kind scoring low (a
        // site whose pages hold their content straight under `body`), not another kind that
        // straddles θ, and they veto nothing.
        let mut unlike_by_score: HashSet<String> = HashSet::new();
        let mut example_template: Option<String> = None;
        for ((id, node), own) in fetched.iter().zip(own) {
            if node.heading.is_empty() {
                continue;
            }
            if numbered(&node.heading) {
                t.numbered.insert(*id);
            }
            let names = page_names(
                own,
                &node.heading,
                &node.url,
                |w| t.kind_words.contains(w),
                Some(&frequent),
                Slots::ALL,
            );
            let Some(tpl) = template(&node.heading, &names, &common, true) else {
                continue;
            };
            if node.url == example || node.url == map.example {
                example_template = Some(tpl.clone());
            }
            if unlike.contains(node.url.as_str()) {
                t.well_below.insert(tpl.clone());
            } else if node.state == NodeState::Target {
                *t.of_targets.entry(tpl.clone()).or_default() += 1;
            } else if node
                .similarity
                .is_some_and(|s| f64::from(s) < map.threshold - WELL_BELOW)
            {
                unlike_by_score.insert(tpl.clone());
            }
            t.by_node.insert(*id, tpl);
        }
        if let Some(own) = &example_template {
            unlike_by_score.remove(own);
        }
        t.well_below.extend(unlike_by_score);
        t.unlike = unlike_kinds.iter().map(|k| k.to_string()).collect();
        t.well_below.extend(t.unlike.iter().cloned());
        t.common = common;
        t.frequent = frequent;
        t
    }

    /// Whether node `node`'s heading follows a template the user judged unlike the example, or
    /// starts with a section number when the user judged [`NUMBERED`] headings unlike it.
    pub fn of_unlike_kind(&self, node: u32) -> bool {
        self.of_kind(&self.unlike, node)
    }

    /// Whether node `node`'s heading is of a kind the user judged like the example.
    pub fn of_like_kind(&self, node: u32) -> bool {
        self.of_kind(&self.like, node)
    }

    fn of_kind(&self, kinds: &HashSet<String>, node: u32) -> bool {
        self.template(node).is_some_and(|t| kinds.contains(t))
            || kinds.contains(NUMBERED) && self.numbered.contains(&node)
    }

    /// Whether `kind` is the template of a fetched page's heading, or [`NUMBERED`] with a
    /// numbered heading among them.
    pub fn names_kind(&self, kind: &str) -> bool {
        if kind == NUMBERED {
            !self.numbered.is_empty()
        } else {
            self.by_node.values().any(|t| t == kind)
        }
    }

    /// A page's heading template (None without a heading or with only its name in it).
    pub fn template(&self, node: u32) -> Option<&str> {
        self.by_node.get(&node).map(String::as_str)
    }

    /// Whether node `node`'s heading follows the template of a target's heading and of no page
    /// well below θ ([`WELL_BELOW`]).
    pub fn like_targets(&self, node: u32) -> bool {
        self.template(node)
            .is_some_and(|t| self.of_targets.contains_key(t) && !self.well_below.contains(t))
            && !self.of_unlike_kind(node)
    }

    /// The rule these templates make for pages met later ([`HeadingRule`]); None when no
    /// template of two or more targets is free of a veto.
    pub fn rule(&self) -> Option<HeadingRule> {
        let templates: BTreeSet<String> = self
            .of_targets
            .iter()
            .filter(|&(t, &k)| k >= RULE_MIN_TARGETS && !self.well_below.contains(t))
            .map(|(t, _)| t.clone())
            .collect();
        if templates.is_empty() && self.unlike.is_empty() && self.like.is_empty() {
            return None;
        }
        // Sorted: one map makes one pattern document.
        let sorted = |words: &HashSet<String>| -> Vec<String> {
            words
                .iter()
                .cloned()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        Some(HeadingRule {
            templates: templates.into_iter().collect(),
            unlike: sorted(&self.unlike),
            like: sorted(&self.like),
            kind_words: sorted(&self.kind_words),
            common: sorted(&self.common),
            frequent: Some(sorted(&self.frequent)),
            qualified: true,
            whole_names: true,
            sections: true,
        })
    }
}

/// Fewest targets sharing a heading template for [`HeadingRule`] to carry it: a template only
/// one target has (a page named in words its URL does not carry) takes no page met later, and
/// carrying them would grow a pattern with its targets.
pub const RULE_MIN_TARGETS: usize = 2;

/// The heading rule learning applied, carried in the pattern for the pages a crawl meets that
/// learning never saw (`Pattern::heading_rule`): a verifying crawl takes a new page within
/// [`WELL_BELOW`] under θ whose heading follows one of these templates, as learning took the
/// pages of the map ([`promoted`]), and refuses one whose heading follows a template the user
/// judged unlike the example, as learning left such targets out. The slots of a new page's
/// template are the words of its URL but the site's kind words, the heading words glued
/// inside it, the module words of a qualified name and the rest of a name, as learning decided
/// them from the map (`page_names`, shared with learning).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadingRule {
    /// Templates of two or more targets' headings that no clearly unlike page shares.
    pub templates: Vec<String>,
    /// Templates the user judged unlike the example (`Corrections::unlike_headings`): a page
    /// whose heading follows one is refused whatever its similarity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike: Vec<String>,
    /// Templates the user judged like the example (`Corrections::like_headings`, [`kinds_below`]):
    /// a page whose heading follows one is taken whatever its similarity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub like: Vec<String>,
    /// Lower-case URL words too many of the site's URLs carry to name a page (`html`,
    /// Doxygen's `classsf`): they stay in a template.
    pub kind_words: Vec<String>,
    /// Lower-case words on most of the site's headings (its name): they name no kind.
    pub common: Vec<String>,
    /// Lower-case words on many of the site's headings ([`NAME_SHARE`]): a heading word glued
    /// inside its page's URL and holding one of its name words names the page unless it is one
    /// of them ("aiExportDataBlob" in `structai_export_data_blob.html`). None in patterns
    /// learned before glued names were read: only URL words are slots then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequent: Option<Vec<String>>,
    /// Whether a qualified name's module words name the page: a token of the heading of two or
    /// more words, each a word of the URL's directories or a name of the page ("Struct
    /// std::iter::ByRefSized" at `std/iter/struct.ByRefSized.html` is "Struct *"). False in
    /// patterns learned before they did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub qualified: bool,
    /// Whether the rest of a name names the page: a heading word its URL cut short
    /// ("result" at BoostBook's `resu_1_3_45_….html`) and every word of a part of the heading
    /// (no space nor `::` inside) holding a name (`with_p_square_cumulative_distribution_median` at `with_1_3_….html`). False in
    /// patterns learned before it did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_names: bool,
    /// Whether a manual section glued to a name is a word of a template ([`manual_sections`]:
    /// "* (5) Manual Page"). False in patterns learned before it was.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sections: bool,
}

impl HeadingRule {
    /// The template of a page at `url` with main heading `heading`, under this rule's slots.
    pub fn template_of(&self, url: &str, heading: &str) -> Option<String> {
        let kinds: HashSet<&str> = self.kind_words.iter().map(String::as_str).collect();
        let frequent: Option<HashSet<String>> =
            self.frequent.as_ref().map(|f| f.iter().cloned().collect());
        let names = page_names(
            url_words(url),
            heading,
            url,
            |w| kinds.contains(w),
            frequent.as_ref(),
            Slots {
                qualified: self.qualified,
                whole: self.whole_names,
            },
        );
        let common: HashSet<String> = self.common.iter().cloned().collect();
        template(heading, &names, &common, self.sections)
    }

    /// Whether a page at `url` with main heading `heading` follows one of the targets'
    /// templates (the band around θ is the caller's to check).
    pub fn takes(&self, url: &str, heading: &str) -> bool {
        self.template_of(url, heading)
            .is_some_and(|t| self.templates.contains(&t))
    }

    /// Whether a page at `url` with main heading `heading` follows a template the user judged
    /// like the example ([`HeadingRule::like`]).
    pub fn likes(&self, url: &str, heading: &str) -> bool {
        follows(&self.like, || self.template_of(url, heading), heading)
    }

    /// Whether a page at `url` with main heading `heading` follows a template the user judged
    /// unlike the example ([`HeadingRule::unlike`]).
    pub fn refuses(&self, url: &str, heading: &str) -> bool {
        follows(&self.unlike, || self.template_of(url, heading), heading)
    }
}

/// Whether a heading whose template `template` gives is of one of `kinds` (the template, or
/// [`NUMBERED`] for a numbered heading); the template is made only when there are kinds.
fn follows(kinds: &[String], template: impl FnOnce() -> Option<String>, heading: &str) -> bool {
    !kinds.is_empty()
        && (kinds.iter().any(|k| k == NUMBERED) && numbered(heading)
            || template().is_some_and(|t| kinds.contains(&t)))
}

/// The pages learning takes as targets for their heading: fetched pages within [`WELL_BELOW`]
/// under θ whose heading follows a target's template and no clearly unlike page's
/// ([`Templates::like_targets`]), never one the user judged unlike the example (`unlike`,
/// canonical URLs) nor a POST submission (no URL a crawl could collect). Node ids, by URL.
pub fn promoted(map: &SiteMap, unlike: &HashSet<&str>) -> Vec<u32> {
    judge(
        map,
        &Verdicts {
            unlike: unlike.clone(),
            ..Verdicts::default()
        },
    )
    .promoted
}

/// A user's verdicts as [`judge`] reads them: canonical URLs of pages judged like and unlike
/// the example, and the heading templates judged unlike it ([`kinds`]).
#[derive(Debug, Default)]
pub struct Verdicts<'a> {
    /// Pages judged like the example.
    pub like: HashSet<&'a str>,
    /// Pages judged unlike the example.
    pub unlike: HashSet<&'a str>,
    /// Heading templates judged unlike the example.
    pub unlike_kinds: HashSet<&'a str>,
    /// Heading templates judged like the example ([`kinds_below`]).
    pub like_kinds: HashSet<&'a str>,
}

/// What learning decides by heading with a user's verdicts ([`judge`]).
#[derive(Debug, Default)]
pub struct Judgement {
    /// Pages just below θ taken as targets ([`promoted`]). Node ids, by URL.
    pub promoted: Vec<u32>,
    /// Pages below θ taken as targets because their heading follows a template the user
    /// judged like the example ([`Verdicts::like_kinds`]), whatever their similarity; none of
    /// them promoted. Node ids, by URL.
    pub liked: Vec<u32>,
    /// Targets left out because their heading follows a template the user judged unlike the
    /// example; never the example, nor a page judged like it. Node ids, by URL.
    pub left_out: Vec<u32>,
    /// The rule for the pages a crawl meets later ([`Templates::rule`]).
    pub rule: Option<HeadingRule>,
}

/// [`promoted`], the targets the kinds judged unlike leave out, and the rule learning applied,
/// for a map with the user's page verdicts applied (`SiteMap::correct`).
pub fn judge(map: &SiteMap, verdicts: &Verdicts) -> Judgement {
    let mut t = Templates::judged(map, &verdicts.unlike, &verdicts.unlike_kinds);
    t.like = verdicts.like_kinds.iter().map(|k| k.to_string()).collect();
    let low = map.threshold - WELL_BELOW;
    let mut promoted: Vec<u32> = map
        .nodes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, n)| {
            n.state == NodeState::Page
                && !n.url.contains(crate::fetch::POST_MARK)
                && !verdicts.unlike.contains(n.url.as_str())
                && n.similarity
                    .is_some_and(|s| (low..map.threshold).contains(&f64::from(s)))
        })
        .map(|(i, _)| i as u32)
        .filter(|&i| t.like_targets(i))
        .collect();
    map.sort_by_url(&mut promoted);
    // Pages of a kind the user judged like the example, whatever their similarity.
    let taken: HashSet<u32> = promoted.iter().copied().collect();
    let mut liked: Vec<u32> = map
        .nodes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, n)| {
            n.state == NodeState::Page
                && n.similarity.is_some()
                && !n.url.contains(crate::fetch::POST_MARK)
                && !verdicts.unlike.contains(n.url.as_str())
                && !taken.contains(&(*i as u32))
        })
        .map(|(i, _)| i as u32)
        .filter(|&i| t.of_like_kind(i) && !t.of_unlike_kind(i))
        .collect();
    map.sort_by_url(&mut liked);
    let left_out = map.left_out_of_kind(&verdicts.like, |i, _| t.of_unlike_kind(i));
    Judgement {
        promoted,
        liked,
        left_out,
        rule: t.rule(),
    }
}

/// One kind of target, by heading ([`kinds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadingKind {
    /// The heading template ("* File Reference"), or [`NUMBERED`]: the headings that start
    /// with a section number, whatever their words (a target may be counted in both).
    pub template: String,
    /// Targets whose heading follows it (with those a verdict on the kind left out).
    pub targets: usize,
    /// Up to [`KIND_SAMPLES`] of them: the most similar to the example, the middle one and the
    /// least, as [`crate::map::SiteMap::targets_by`] shows a group.
    pub samples: Vec<String>,
    /// The example's heading follows it.
    pub example: bool,
    /// The user judged the kind unlike the example: its targets are left out.
    pub unlike: bool,
    /// The manual section the template holds ([`manual_sections`]: "5" for "* (5) Manual
    /// Page"), so that no reader parses templates again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// How many of a kind's targets [`kinds`] names.
pub use crate::map::KIND_SAMPLES;

/// The targets grouped by heading template, for a verdict on a whole kind: every template of
/// two or more targets (counting those `left_out` by a kind verdict) and every template judged
/// unlike (`unlike_kinds`), the most targets first. Empty where headings name no kind (titles
/// of a name alone).
pub fn kinds(map: &SiteMap, left_out: &[String], unlike_kinds: &[String]) -> Vec<HeadingKind> {
    let t = Templates::of(map);
    let left_out: HashSet<&str> = left_out.iter().map(String::as_str).collect();
    let example = crate::canon::canonicalize(&map.example);
    let mut by_template: HashMap<&str, (Vec<&Node>, bool)> = unlike_kinds
        .iter()
        .map(|k| (k.as_str(), (Vec::new(), false)))
        .collect();
    for (i, node) in map.nodes.iter().enumerate() {
        let counted = node.state == NodeState::Target || left_out.contains(node.url.as_str());
        if !counted {
            continue;
        }
        let is_example = example.as_deref() == Some(node.url.as_str());
        // A numbered heading is of its words' kind and of the numbered kind: a chapter is
        // left out by either verdict.
        let numbered_kind = t.numbered.contains(&(i as u32)).then_some(NUMBERED);
        for tpl in t.template(i as u32).into_iter().chain(numbered_kind) {
            let entry = by_template.entry(tpl).or_default();
            entry.0.push(node);
            entry.1 |= is_example;
        }
    }
    let mut out: Vec<HeadingKind> = by_template
        .into_iter()
        .map(|(template, (mut nodes, example))| HeadingKind {
            template: template.to_string(),
            targets: nodes.len(),
            samples: crate::map::samples(&mut nodes),
            example,
            unlike: unlike_kinds.iter().any(|k| k == template),
            section: template
                .split(' ')
                .find(|t| section_token(t))
                .map(|t| t.trim_start_matches('(').trim_end_matches(')').to_string()),
        })
        .filter(|k| k.unlike || k.targets >= RULE_MIN_TARGETS)
        .collect();
    out.sort_by(|a, b| {
        b.targets
            .cmp(&a.targets)
            .then_with(|| a.template.cmp(&b.template))
    });
    out
}

/// The kinds of target learning proposes to leave out before the user's review: the templates
/// of targets headed with another manual section than the example's ([`manual_sections`]:
/// "* (5) Manual Page" beside the example's "git * (1) Manual Page"). A manual's sections are
/// kinds by convention (commands, file formats, overviews), its pages of every section are
/// built alike, and a user who picks a command's page wants the commands: recorded as the
/// user's verdicts would be (`Corrections::unlike_headings`), the kinds stay listed, left out,
/// for the user to take back. Empty when the example's heading has no section. Sorted.
pub fn other_sections(map: &SiteMap) -> Vec<String> {
    let example = map.canonical_example();
    let Some(own) = map
        .nodes
        .iter()
        .find(|n| n.url == example || n.url == map.example)
        .map(|n| section_set(&n.heading))
        .filter(|s| !s.is_empty())
    else {
        return Vec::new();
    };
    let t = Templates::of(map);
    let mut out = BTreeSet::new();
    for (i, node) in map.nodes.iter().enumerate() {
        if node.state != NodeState::Target {
            continue;
        }
        let theirs = section_set(&node.heading);
        if theirs.is_empty() || !theirs.is_disjoint(&own) {
            continue;
        }
        if let Some(tpl) = t.template(i as u32) {
            out.insert(tpl.to_string());
        }
    }
    out.into_iter().collect()
}

/// The manual sections of a heading ([`manual_sections`]), as a set.
fn section_set(heading: &str) -> HashSet<String> {
    manual_sections(heading)
        .into_iter()
        .map(|(_, s)| s)
        .collect()
}

/// One kind of page below θ, by heading ([`kinds_below`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindBelow {
    /// The heading template ("Class virtual *").
    pub template: String,
    /// Fetched pages below θ whose heading follows it (those a verdict took included).
    pub pages: usize,
    /// Up to [`KIND_SAMPLES`] of them: the most similar to the example (the nearest θ), the
    /// middle one and the least, as [`crate::map::SiteMap::targets_by`] shows a group.
    pub samples: Vec<String>,
    /// The highest similarity among them.
    pub best: f32,
    /// The example's heading follows it: these are pages named as the example is, scoring low.
    pub example: bool,
    /// The user judged the kind like the example: its pages are targets.
    pub like: bool,
}

/// How many kinds below θ [`kinds_below`] lists (besides those judged like the example).
pub const KINDS_BELOW_SHOWN: usize = 10;

/// The fetched pages below θ grouped by heading template, for a verdict that takes a whole kind
/// (LablGTK's "Class virtual *" classes score 0.66–0.86 against a plain class): the templates of
/// two or more such pages, the largest kinds first (a verdict there takes the most pages), at
/// most [`KINDS_BELOW_SHOWN`], and every template judged like (`like_kinds`). Counted on the map as
/// mapped or corrected alike (a page a verdict took is still below θ), without the pages
/// `left_out` says a verdict on their language or directory settled
/// (`Corrections::leave_out`: Apache's French module pages are no kind to take).
pub fn kinds_below(
    map: &SiteMap,
    like_kinds: &[String],
    left_out: impl Fn(&Node) -> bool,
) -> Vec<KindBelow> {
    let t = Templates::of(map);
    let example = map.canonical_example();
    let example_template = map
        .nodes
        .iter()
        .position(|n| n.url == example)
        .and_then(|i| t.template(i as u32));
    let mut by_template: HashMap<&str, (Vec<&Node>, f32)> = like_kinds
        .iter()
        .map(|k| (k.as_str(), (Vec::new(), 0.0)))
        .collect();
    for (i, node) in map.nodes.iter().enumerate() {
        let Some(s) = node.similarity else { continue };
        let below = f64::from(s) < map.threshold
            && matches!(node.state, NodeState::Page | NodeState::Target)
            && !node.url.contains(crate::fetch::POST_MARK)
            && !left_out(node);
        if let Some(tpl) = t.template(i as u32).filter(|_| below) {
            let entry = by_template.entry(tpl).or_default();
            entry.0.push(node);
            entry.1 = entry.1.max(s);
        }
    }
    let mut out: Vec<KindBelow> = by_template
        .into_iter()
        .map(|(template, (mut nodes, best))| KindBelow {
            template: template.to_string(),
            pages: nodes.len(),
            samples: crate::map::samples(&mut nodes),
            best,
            example: example_template == Some(template),
            like: like_kinds.iter().any(|k| k == template),
        })
        .filter(|k| k.like || k.pages >= RULE_MIN_TARGETS)
        .collect();
    out.sort_by(|a, b| {
        b.pages
            .cmp(&a.pages)
            .then_with(|| b.best.total_cmp(&a.best))
            .then_with(|| a.template.cmp(&b.template))
    });
    let mut shown = 0;
    out.retain(|k| {
        shown += 1;
        k.like || shown <= KINDS_BELOW_SHOWN
    });
    out
}

/// Map nodes for the tests of this module and of the evaluations that measure it (feature
/// `test-fixtures`).
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixtures {
    use crate::map::{Node, NodeState};

    /// A fetched page `http://h/{url}` with its state, similarity and main heading.
    pub fn node(url: &str, state: NodeState, similarity: f32, heading: &str) -> Node {
        Node {
            url: format!("http://h/{url}"),
            parent: None,
            depth: 1,
            state,
            similarity: Some(similarity),
            unplaced: None,
            title: String::new(),
            heading: heading.into(),
            lang: String::new(),
            links: Vec::new(),
            form: None,
        }
    }

    /// An entry page, three class targets ("Texture Class Reference", …) and one struct
    /// target ("Size Struct Reference").
    pub fn classes_and_a_struct() -> Vec<Node> {
        use NodeState::{Page, Target};
        let mut nodes = vec![node("index.html", Page, 0.4, "Guide")];
        for name in ["Texture", "Sprite", "Font"] {
            let h = format!("{name} Class Reference");
            nodes.push(node(&format!("class-{name}.html"), Target, 0.95, &h));
        }
        nodes.push(node(
            "struct-Size.html",
            Target,
            0.92,
            "Size Struct Reference",
        ));
        nodes
    }
}

#[cfg(test)]
mod tests;
