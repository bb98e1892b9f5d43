//! Navigation patterns (design §4): learned from a [`SiteMap`], a versioned JSON document users
//! export, import and re-run.
//!
//! Why this file is long (~1,800 lines, tests apart): the pattern's format (its serde types,
//! validation and schema) and learning it from the map share the level types; the review
//! (`review`), thresholds (`threshold`) and form levels (`forms`) are already their own files.
//!
//! Learning, from the map's link graph:
//! 1. *Target pages map*: the breadth-first paths from the entry to every target, in the map's
//!    own breadth-first tree ([`SiteMap::breadth_first`]: links in document order), not the
//!    parents recorded while mapping, which depend on the order concurrent responses arrived
//!    in — one site gives one pattern. Pages are taken in the order that walk meets them,
//!    never in node-id order.
//! 2. *Levels*: a page's level is `n − dist`, where `dist` is its shortest link distance to a
//!    target and `n` the entry's. Listing pages of one kind land on one level even when the BFS
//!    met them at different depths (page 2 of a listing is one hop deeper than page 1 but just
//!    as far from its targets); an edge between two pages of one level is a pagination
//!    self-loop.
//! 3. *Regexes*: the URLs of each level are grouped with URLsim (K = 2) and generalised with the
//!    regex tree ([`crate::url_pattern`]). The thesis stops there; we also know the pages the
//!    crawler would wrongly follow (fetched pages linked from the previous level that are not on
//!    the level), so a generalisation that matches one of them is split — by the next character
//!    after the group's common prefix — until no known negative matches. The most general
//!    regexes consistent with everything seen are kept.
//! 4. *Shortcuts*: the last level's regexes are applied on every page the crawl visits, and a
//!    link matching a deeper level than the next leads to that level ([`Compiled::step`]).
//! 5. *Simplification* (`levels.rs`): groups of alike URLs are dropped or moved down a level
//!    while the simulated crawl loses nothing, down to the few regexes a person would write; a
//!    listing's page number is any number.
//!
//! The user's verdicts ([`Corrections`]: pages like the example or not, whatever their
//! similarity, chosen from the [`near_misses`] a review shows) turn map pages into targets or back
//! before learning ([`learn_corrected`], [`Pattern::relearned`]); the pattern records them.
//! Before them, learning takes as targets the pages just below θ whose main heading names the
//! targets' kind ([`crate::review::heading::promoted`]: "sf::Utf Class Template Reference" among class
//! templates); the pattern lists them ([`Pattern::by_heading`]) and a user's "unlike" undoes it.
//!
//! [`simulate`] runs a pattern over the map's graph (no fetching) to estimate its coverage and
//! cost; the learner reports both.
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use regex::RegexSet;
use serde::{Deserialize, Serialize};

use crate::canon::Scope;
use crate::fetch::Politeness;
use crate::map::{NodeState, SiteMap};
use crate::similarity;
use crate::url_pattern::{self, UrlPattern};
use levels::{How, levels_for};

mod forms;
mod levels;
mod review;
mod threshold;
pub use forms::{DEFAULT_BUDGET, DEFAULT_RESULT_PAGES, FormLevel, QueryPolicy, template};
pub use review::{
    DOUBTFUL_SHOWN, Doubtful, NearMiss, ThresholdGap, doubtful_targets, near_misses, threshold_gap,
};
pub use threshold::{LoweredThreshold, at_learning_threshold, lowered_threshold, relabelled};

/// The pattern format version this build writes. Version 2 added the data fields
/// ([`Pattern::fields`]).
pub const VERSION: u32 = 2;
/// The versions this build reads: a version 1 document (no fields) is read as version 2 with
/// none.
pub const READS: [u32; 2] = [1, 2];
/// The JSON Schema of the format (`schemas/pattern-2.schema.json` in the repository).
pub const SCHEMA_URL: &str = "https://exemplar.dev/schemas/pattern-2.schema.json";
/// The schema itself, shipped for validators (the extension, users' tools).
pub const SCHEMA: &str = include_str!("../../../../schemas/pattern-2.schema.json");

/// Pagination self-loops are followed at most this many hops per chain (bounds calendars and
/// endless "next" links that slipped through the trap guard).
pub const DEFAULT_MAX_PAGINATION: u32 = 1000;

/// A plain level of one regex (tests).
#[cfg(test)]
pub(crate) fn level(re: &str) -> Level {
    Level {
        regexes: vec![re.into()],
        paginate: false,
        from_targets: false,
        pages: 1,
        samples: vec![],
        form: None,
        exclude: vec![],
    }
}

/// One level of a pattern: the links leaving the previous level that lead here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Level {
    /// Anchored full-URL regexes (alternatives); syntax valid in Rust `regex` and Python `re`.
    pub regexes: Vec<String>,
    /// Pages of this level link to further pages of this level (pagination) and those are
    /// followed. On the last level: targets link to further targets, followed from every
    /// target collected (sites that link some entity pages only from other entity pages).
    #[serde(default)]
    pub paginate: bool,
    /// Pages of this level are also followed from targets (only on the level before the
    /// targets): a class page links its module's class list, and some modules' lists are
    /// linked from nowhere else (Qt's D-Bus and network modules). Learned when it reaches more
    /// targets on the map.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_targets: bool,
    /// Pages of this level seen while learning.
    #[serde(default)]
    pub pages: usize,
    /// A few of them.
    #[serde(default)]
    pub samples: Vec<String>,
    /// Reached by submitting a form: the template, values and query policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormLevel>,
    /// Pages the regexes match that learning saw were not of this level (canonical URLs, as
    /// links are): a crawl skips them. A regex keeps its generality — new pages of its shape
    /// are followed — when the known pages it wrongly matches are few next to those it
    /// rightly matches ([`LearnConfig::max_exclusions`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// Figures of the learning run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LearnStats {
    /// Pages fetched while mapping (links followed).
    pub pages_fetched: usize,
    /// URLs known at the end of mapping.
    pub urls_seen: usize,
    /// Targets found while mapping.
    pub targets: usize,
    /// Targets the pattern reaches on the map (simulation).
    pub targets_reached: usize,
    /// Pages the pattern fetches on the map, targets included (simulation).
    pub estimated_fetches: usize,
    /// When learned (unix ms, from the driver).
    pub learned_at_ms: u64,
}

/// A navigation pattern. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pattern {
    /// The JSON Schema this document follows.
    #[serde(rename = "$schema", default = "schema_url")]
    pub schema: String,
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Site identity (host without `www.`, port if any).
    pub site: String,
    /// Where crawls start.
    pub entry: String,
    /// The example page.
    pub example: String,
    /// Similarity settings used while learning (and for optional verification).
    #[serde(default)]
    pub similarity: similarity::Options,
    /// Which URLs the crawl may visit.
    pub scope: Scope,
    /// E1 … En: `levels[0]` applies to the entry's links; the last level matches targets.
    pub levels: Vec<Level>,
    /// Pagination chains are followed at most this many hops.
    #[serde(default = "default_max_pagination")]
    pub max_pagination: u32,
    /// Politeness the crawl uses.
    #[serde(default)]
    pub politeness: Politeness,
    /// The entry page is itself like the example: a crawl collects it as a target too, and
    /// still follows its links as the page navigation starts from (a user who starts from the
    /// example page, or from a page like it, wants that page among the targets).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entry_target: bool,
    /// Target URLs found while learning (coverage and "new since" reports); the entry page
    /// among them when it is a target.
    #[serde(default)]
    pub known_targets: Vec<String>,
    /// Other URLs of known targets: URLs met while learning whose page had the same content
    /// as a known target (`/item/2` beside `/item/2?ref=home`). A crawl that meets a known
    /// target under one of them first does not count it new.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_aliases: Vec<String>,
    /// Figures of the learning run.
    #[serde(default)]
    pub stats: LearnStats,
    /// The user's verdicts the pattern was learned with (pages counted as targets, or not,
    /// whatever their similarity); a verifying crawl honours them too.
    #[serde(default, skip_serializing_if = "Corrections::is_empty")]
    pub corrections: Corrections,
    /// Pages just below θ that learning took as targets because their main heading names the
    /// targets' kind ([`crate::review::heading::promoted`]); a verifying crawl takes them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_heading: Vec<String>,
    /// Targets left out because their main heading follows a template the user judged unlike
    /// the example ([`Corrections::unlike_headings`], [`crate::review::heading::Judgement::left_out`]);
    /// a verifying crawl refuses them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike_by_heading: Vec<String>,
    /// Targets left out because they declare a language judged unlike the example's
    /// ([`Corrections::unlike_languages`], [`crate::review::language::left_out`]); a verifying crawl
    /// refuses them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike_by_language: Vec<String>,
    /// Targets left out because they lie in a directory judged unlike the example
    /// ([`Corrections::unlike_directories`], [`crate::review::directory::left_out`]); a crawl refuses
    /// them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlike_by_directory: Vec<String>,
    /// The heading templates learning took pages by, for the pages a crawl meets later: a
    /// verifying crawl takes a page just below θ whose heading follows one
    /// ([`crate::review::heading::HeadingRule`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading_rule: Option<crate::review::heading::HeadingRule>,
    /// A page's links include the page URLs named in the same-site scripts it includes
    /// ([`crate::script_links`]): the pattern reaches fewer of the map's targets without the
    /// links pages have only through scripts, so a crawl reads scripts too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub script_links: bool,
    /// The site's pages are drawn by scripts: a crawl renders them ([`crate::drawn`]), the
    /// pages whose fetched HTML lacks what the browser shows. Set by the driver that learned
    /// it, from the example page fetched and rendered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub render: bool,
    /// The data fields of the target pages ([`crate::fields`]): exports read them from each
    /// page. Set by the driver that learned the pattern, from a sample of its targets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<crate::fields::Field>,
    /// Rewrites of URLs that give a page already met under another URL ([`crate::dust`]),
    /// learned from the map's copies: a crawl applies them before it fetches. An older build
    /// ignores them and fetches the copies, losing nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dust_rules: Vec<crate::dust::DustRule>,
}

/// A user's verdicts on pages of the map, over the similarity threshold: canonical URLs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Corrections {
    /// Pages like the example (targets whatever their similarity).
    pub like: Vec<String>,
    /// Pages not like the example (never targets).
    pub unlike: Vec<String>,
    /// Heading templates not like the example ([`crate::review::heading::kinds`]: "* File Reference"):
    /// targets headed so are left out, except the example and pages judged like it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlike_headings: Vec<String>,
    /// Heading templates like the example ([`crate::review::heading::kinds_below`]: "Class virtual *"):
    /// pages headed so are targets whatever their similarity, unless judged unlike one by one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub like_headings: Vec<String>,
    /// Declared languages not like the example's ([`crate::review::language`]: `fr`): targets that
    /// declare one are left out, except the example and pages judged like it, and a verifying
    /// crawl refuses pages that declare one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlike_languages: Vec<String>,
    /// Declared languages the user kept (a proposal taken back): recorded, never left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub like_languages: Vec<String>,
    /// Directories not like the example's ([`crate::review::directory`]: `http://h/en/howto/`, absolute
    /// and ending in `/`): targets in one are left out, except the example and pages judged
    /// like it, and a crawl refuses pages in one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlike_directories: Vec<String>,
    /// Directories the user took back (an earlier verdict undone): recorded, never left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub like_directories: Vec<String>,
}

impl Corrections {
    /// The verdicts learning proposes on a map before the user's review: the kinds of target
    /// headed with another manual section than the example's
    /// ([`crate::review::heading::other_sections`]) and the languages targets declare other than the
    /// example's ([`crate::review::language::other_languages`]), unlike it. A first learning starts
    /// from these; a relearning starts from the pattern's verdicts, where the user may have
    /// taken them back.
    pub fn proposed(map: &SiteMap) -> Corrections {
        Corrections {
            unlike_headings: crate::review::heading::other_sections(map),
            unlike_languages: crate::review::language::other_languages(map),
            ..Corrections::default()
        }
    }

    /// Whether a verdict on a whole kind of page leaves `node` out for what the page says of
    /// itself: it declares a language judged unlike, or lies in a directory judged unlike. Such
    /// a page below θ is no question for the review any more.
    pub fn leave_out(&self, node: &crate::map::Node) -> bool {
        crate::review::language::refused(&self.unlike_languages, &node.lang)
            || crate::review::directory::refused(&self.unlike_directories, &node.url)
    }

    /// Whether there is no verdict.
    pub fn is_empty(&self) -> bool {
        self.like.is_empty()
            && self.unlike.is_empty()
            && self.unlike_headings.is_empty()
            && self.like_headings.is_empty()
            && self.unlike_languages.is_empty()
            && self.like_languages.is_empty()
            && self.unlike_directories.is_empty()
            && self.like_directories.is_empty()
    }

    /// These verdicts, then `newer` ones over them (a page's or a kind's latest verdict wins),
    /// canonicalised, sorted and deduplicated.
    ///
    /// # Errors
    /// A URL that is not absolute, a template, language tag or directory that is not one, or
    /// a page or a kind `newer` marks both ways.
    pub fn merged(&self, newer: &Corrections) -> Result<Corrections, PatternError> {
        let url = |u: &str| {
            if u.contains(crate::fetch::POST_MARK) {
                return Err(format!(
                    "{u} is a POST form submission, not a page of its own"
                ));
            }
            crate::canon::canonicalize(u).ok_or_else(|| format!("{u:?} is not an absolute URL"))
        };
        let template = |h: &str| {
            crate::review::heading::is_template(h).then(|| h.to_string()).ok_or_else(|| {
                format!(
                    "{h:?} is not a heading template (words and * one space apart, as the kinds by heading list them)"
                )
            })
        };
        let language = |l: &str| {
            crate::review::language::tag(l).ok_or_else(|| {
                format!("{l:?} is not a language tag (as pages declare them: en, fr, pt-br)")
            })
        };
        let directory = |d: &str| {
            crate::review::directory::verdict(d).ok_or_else(|| {
                format!(
                    "{d:?} is not a directory (an absolute URL ending in /, as the targets by directory list them)"
                )
            })
        };
        let (like, unlike) = verdicts_of(
            (&self.like, &self.unlike),
            (&newer.like, &newer.unlike),
            url,
            |u| u.to_string(),
        )?;
        let (like_headings, unlike_headings) = verdicts_of(
            (&self.like_headings, &self.unlike_headings),
            (&newer.like_headings, &newer.unlike_headings),
            template,
            |h| format!("{h:?}"),
        )?;
        let (like_languages, unlike_languages) = verdicts_of(
            (&self.like_languages, &self.unlike_languages),
            (&newer.like_languages, &newer.unlike_languages),
            language,
            |l| format!("language {l}"),
        )?;
        let (like_directories, unlike_directories) = verdicts_of(
            (&self.like_directories, &self.unlike_directories),
            (&newer.like_directories, &newer.unlike_directories),
            directory,
            |d| format!("directory {d}"),
        )?;
        Ok(Corrections {
            like,
            unlike,
            unlike_headings,
            like_headings,
            unlike_languages,
            like_languages,
            unlike_directories,
            like_directories,
        })
    }
}

/// [`latest_wins`] over verdicts of one sort as given, each item first checked and normalised
/// by `check` (its error said as it is).
fn verdicts_of(
    old: (&[String], &[String]),
    new: (&[String], &[String]),
    check: impl Fn(&str) -> Result<String, String>,
    name: impl Fn(&str) -> String,
) -> Result<(Vec<String>, Vec<String>), PatternError> {
    let set = |items: &[String]| -> Result<BTreeSet<String>, PatternError> {
        items
            .iter()
            .map(|i| check(i).map_err(PatternError))
            .collect()
    };
    latest_wins((set(old.0)?, set(old.1)?), (set(new.0)?, set(new.1)?), name)
}

/// Verdicts of one sort (pages, or kinds by heading), `(like, unlike)`: the `old` ones, then the
/// `new` ones over them (the latest verdict on an item wins), sorted; an item `new` marks both
/// ways is refused, named by `name`.
fn latest_wins(
    old: (BTreeSet<String>, BTreeSet<String>),
    new: (BTreeSet<String>, BTreeSet<String>),
    name: impl Fn(&str) -> String,
) -> Result<(Vec<String>, Vec<String>), PatternError> {
    let ((mut like, mut unlike), (new_like, new_unlike)) = (old, new);
    if let Some(both) = new_like.intersection(&new_unlike).next() {
        return Err(PatternError(format!(
            "{} is marked both like and unlike the example",
            name(both)
        )));
    }
    for item in &new_like {
        unlike.remove(item);
    }
    for item in &new_unlike {
        like.remove(item);
    }
    like.extend(new_like);
    unlike.extend(new_unlike);
    Ok((like.into_iter().collect(), unlike.into_iter().collect()))
}

fn schema_url() -> String {
    SCHEMA_URL.to_string()
}

fn default_max_pagination() -> u32 {
    DEFAULT_MAX_PAGINATION
}

/// Errors learning or loading a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError(pub String);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

/// Where a link leads in a crawl.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A target (matches the last level).
    Target,
    /// A page of this level (1-based: 1 … n−1), `paginated` when reached by a self-loop.
    Level {
        /// The level.
        level: usize,
        /// Reached through pagination.
        paginated: bool,
    },
}

/// A pattern ready to match URLs.
#[derive(Clone, Debug)]
pub struct Compiled {
    levels: Vec<RegexSet>,
    exclude: Vec<HashSet<String>>,
    paginate: Vec<bool>,
    /// Whether a crawl may reach the level by a link from a page two or more levels above
    /// (not a form level nor the level of its results: those are entered by queries).
    skip_to: Vec<bool>,
    /// The level (0-based index) whose pages are followed from targets ([`Level::from_targets`]).
    up: Option<usize>,
}

impl Compiled {
    /// Number of levels (n).
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// Whether there are no levels (never true for a validated pattern).
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Whether `url` matches level `index` (0-based: `levels[index]`) and is not one of its
    /// exclusions.
    pub fn matches_level(&self, index: usize, url: &str) -> bool {
        self.levels.get(index).is_some_and(|l| l.is_match(url))
            && !self.exclude.get(index).is_some_and(|x| x.contains(url))
    }

    /// Whether targets' links to further targets are followed (the last level paginates).
    pub fn targets_link_targets(&self) -> bool {
        self.paginate.last().copied().unwrap_or(false)
    }

    /// Whether a target's links are read at all: to further targets, or back to the level
    /// before the targets ([`Level::from_targets`]).
    pub fn reads_targets(&self) -> bool {
        self.targets_link_targets() || self.up.is_some()
    }

    /// Where a link found on a page of level `from` (0 = the entry; n = a target) leads, if
    /// anywhere. Order: target (shortcuts included), next level, same level when it paginates,
    /// then a deeper level (the shallowest that matches). From a target: targets when the
    /// last level paginates, then pages of the level before the targets when it is followed
    /// from targets ([`Level::from_targets`]).
    pub fn step(&self, from: usize, url: &str) -> Option<Step> {
        let n = self.levels.len();
        if n == 0 || from > n {
            return None;
        }
        if from == n {
            if self.matches_level(n - 1, url) {
                return self.targets_link_targets().then_some(Step::Target);
            }
            return self
                .up
                .filter(|&i| self.matches_level(i, url))
                .map(|i| Step::Level {
                    level: i + 1,
                    paginated: false,
                });
        }
        if self.matches_level(n - 1, url) {
            return Some(Step::Target);
        }
        if from + 1 < n && self.matches_level(from, url) {
            return Some(Step::Level {
                level: from + 1,
                paginated: false,
            });
        }
        if from >= 1 && self.paginate[from - 1] && self.matches_level(from - 1, url) {
            return Some(Step::Level {
                level: from,
                paginated: true,
            });
        }
        // A link from this page straight to a page of a deeper level (a home page linking a
        // listing two levels down, rustdoc's crate page linking its "all items" list): the
        // crawl goes on from there, as it does for targets met early. Levels are learned from
        // pages' distance to the targets, and on a densely linked site the entry links many
        // pages of every level.
        ((from + 1)..n - 1)
            .find(|&index| self.skip_to[index] && self.matches_level(index, url))
            .map(|index| Step::Level {
                level: index + 1,
                paginated: false,
            })
    }
}

impl Pattern {
    /// Parses and validates a pattern document.
    ///
    /// # Errors
    /// Malformed JSON, a missing or mistyped field, an unsupported version, a regex that does
    /// not compile, no levels: each with the place it was found.
    pub fn from_json(text: &str) -> Result<Pattern, PatternError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PatternError(format!("not JSON: {e}")))?;
        match value.get("version") {
            Some(serde_json::Value::Number(v))
                if v.as_u64()
                    .is_some_and(|v| READS.iter().any(|&r| u64::from(r) == v)) => {}
            Some(v) => {
                return Err(PatternError(format!(
                    "pattern version {v} is not supported (this build reads versions 1 and {VERSION})"
                )));
            }
            None => return Err(PatternError("not a pattern: no \"version\" field".into())),
        }
        let mut p: Pattern = serde_json::from_value(value)
            .map_err(|e| PatternError(format!("invalid pattern: {e}")))?;
        p.validate()?;
        // An older document is this version with what it lacks at its defaults: written back,
        // it is a current one.
        p.version = VERSION;
        p.schema = SCHEMA_URL.to_string();
        Ok(p)
    }

    /// Serialises (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks the semantic rules the types cannot express.
    ///
    /// # Errors
    /// As [`Pattern::from_json`].
    pub fn validate(&self) -> Result<(), PatternError> {
        if self.levels.is_empty() {
            return Err(PatternError("pattern has no levels".into()));
        }
        if let Some(p) = self.dust_rules.iter().find_map(|r| r.rewrite.problem()) {
            return Err(PatternError(format!("dustRules: {p}")));
        }
        let rule = self.heading_rule.as_ref();
        let templates = self
            .corrections
            .unlike_headings
            .iter()
            .chain(&self.corrections.like_headings)
            .chain(
                rule.into_iter()
                    .flat_map(|r| r.templates.iter().chain(&r.unlike).chain(&r.like)),
            );
        for t in templates {
            if !crate::review::heading::is_template(t) {
                return Err(PatternError(format!("{t:?} is not a heading template")));
            }
        }
        let c = &self.corrections;
        for l in c.unlike_languages.iter().chain(&c.like_languages) {
            if !crate::review::language::is_tag(l) {
                return Err(PatternError(format!(
                    "{l:?} is not a language tag (lower-case, as en, fr, pt-br)"
                )));
            }
        }
        for d in c.unlike_directories.iter().chain(&c.like_directories) {
            if crate::review::directory::verdict(d).as_deref() != Some(d.as_str()) {
                return Err(PatternError(format!(
                    "{d:?} is not a directory (an absolute, canonical URL ending in /)"
                )));
            }
        }
        for (i, l) in self.levels.iter().enumerate() {
            if l.regexes.is_empty() {
                return Err(PatternError(format!("level {} has no regex", i + 1)));
            }
            if l.from_targets && !(i + 2 == self.levels.len() && entered_by_links(&self.levels, i))
            {
                return Err(PatternError(format!(
                    "level {}: only the level before the targets, entered by links (not a form's), can be followed from targets",
                    i + 1
                )));
            }
            if let Some(f) = &l.form {
                f.validate(i + 1)?;
            }
        }
        let mut names = HashSet::new();
        for f in &self.fields {
            if f.name.is_empty() || f.place.is_empty() {
                return Err(PatternError(format!(
                    "field {:?}: a field needs a name and a place",
                    f.name
                )));
            }
            if !names.insert(f.name.as_str()) {
                return Err(PatternError(format!("field {:?} is named twice", f.name)));
            }
        }
        url::Url::parse(&self.entry)
            .map_err(|e| PatternError(format!("entry {:?}: {e}", self.entry)))?;
        self.similarity.validate().map_err(PatternError)?;
        self.politeness.validate().map_err(PatternError)?;
        self.scope.compile().map_err(PatternError)?;
        self.compile()?;
        Ok(())
    }

    /// Compiles the level regexes.
    ///
    /// # Errors
    /// A regex that does not compile (with its level).
    pub fn compile(&self) -> Result<Compiled, PatternError> {
        Compiled::from_levels(&self.levels)
    }
}

/// Whether level `i` (0-based) is entered by links: neither a form level nor the level of a
/// form's results (those are entered by queries).
fn entered_by_links(levels: &[Level], i: usize) -> bool {
    levels[i].form.is_none() && (i == 0 || levels[i - 1].form.is_none())
}

impl Compiled {
    /// Compiles levels.
    ///
    /// # Errors
    /// A regex that does not compile (with its level).
    pub fn from_levels(levels_in: &[Level]) -> Result<Compiled, PatternError> {
        let mut levels = Vec::with_capacity(levels_in.len());
        for (i, l) in levels_in.iter().enumerate() {
            let set = regex::RegexSetBuilder::new(&l.regexes)
                .size_limit(64 << 20)
                .build()
                .map_err(|e| PatternError(format!("level {}: bad regex: {e}", i + 1)))?;
            levels.push(set);
        }
        let skip_to: Vec<bool> = (0..levels_in.len())
            .map(|i| entered_by_links(levels_in, i))
            .collect();
        // Validated: only the level before the targets, not entered by a form.
        let up = levels_in
            .iter()
            .position(|l| l.from_targets)
            .filter(|&i| i + 2 == levels_in.len() && skip_to[i]);
        Ok(Compiled {
            up,
            skip_to,
            paginate: levels_in.iter().map(|l| l.paginate).collect(),
            exclude: levels_in
                .iter()
                .map(|l| l.exclude.iter().cloned().collect())
                .collect(),
            levels,
        })
    }
}

impl Pattern {
    /// A readable rendering: levels, regexes, counts, samples.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "navigation pattern for {} (θ = {:.3})",
            self.site, self.similarity.threshold
        );
        let _ = writeln!(s, "  entry:   {}", self.entry);
        let _ = writeln!(s, "  example: {}", self.example);
        let c = &self.corrections;
        // Only the verdicts there are: a first learning's proposals are on kinds alone.
        let mut verdicts = Vec::new();
        if !c.like.is_empty() || !c.unlike.is_empty() {
            verdicts.push(format!(
                "{} like the example, {} not like it, whatever their similarity",
                count(c.like.len(), "page"),
                c.unlike.len()
            ));
        }
        if !c.unlike_headings.is_empty() {
            verdicts.push(format!(
                "{} not like it",
                count(c.unlike_headings.len(), "heading kind")
            ));
        }
        if !c.like_headings.is_empty() {
            verdicts.push(format!(
                "{} like it",
                count(c.like_headings.len(), "heading kind")
            ));
        }
        if !c.unlike_languages.is_empty() {
            verdicts.push(format!(
                "pages in {} not like it",
                c.unlike_languages.join(", ")
            ));
        }
        if !c.unlike_directories.is_empty() {
            verdicts.push(format!(
                "{} not like it",
                match c.unlike_directories.len() {
                    1 => "1 directory".to_string(),
                    n => format!("{n} directories"),
                }
            ));
        }
        if !verdicts.is_empty() {
            let _ = writeln!(s, "  your verdicts: {}", verdicts.join("; "));
        }
        if !self.by_heading.is_empty() {
            let _ = writeln!(
                s,
                "  {} just below θ taken as targets: their heading names the targets' kind, e.g. {}",
                count(self.by_heading.len(), "page"),
                self.by_heading[0]
            );
        }
        if !self.unlike_by_heading.is_empty() {
            let _ = writeln!(
                s,
                "  {} left out: headed as you judged not like the example, e.g. {}",
                count(self.unlike_by_heading.len(), "target"),
                self.unlike_by_heading[0]
            );
        }
        if !self.unlike_by_language.is_empty() {
            let _ = writeln!(
                s,
                "  {} left out: in a language you judged not like the example's, e.g. {}",
                count(self.unlike_by_language.len(), "target"),
                self.unlike_by_language[0]
            );
        }
        if !self.unlike_by_directory.is_empty() {
            let _ = writeln!(
                s,
                "  {} left out: in a directory you judged not like the example's, e.g. {}",
                count(self.unlike_by_directory.len(), "target"),
                self.unlike_by_directory[0]
            );
        }
        if let Some(rule) = self
            .heading_rule
            .as_ref()
            .filter(|r| !r.templates.is_empty())
        {
            let _ = writeln!(
                s,
                "  a verifying crawl takes pages just below θ whose heading follows one of the targets' {}, e.g. \"{}\"",
                count(rule.templates.len(), "heading template"),
                rule.templates.first().map_or("", String::as_str)
            );
        }
        if let Some(rule) = self.heading_rule.as_ref().filter(|r| !r.unlike.is_empty()) {
            let _ = writeln!(
                s,
                "  a verifying crawl refuses pages headed as you judged not like the example: \"{}\"",
                rule.unlike.join("\", \"")
            );
        }
        if self.entry_target {
            let _ = writeln!(
                s,
                "  the entry page is like the example: a crawl collects it as a target too"
            );
        }
        let n = self.levels.len();
        for (i, l) in self.levels.iter().enumerate() {
            let what = if i + 1 == n { "target" } else { "page" };
            let pag = match (l.paginate, i + 1 == n) {
                (false, _) => "",
                (true, false) => ", paginated",
                (true, true) => ", followed from target to target",
            };
            let up = if l.from_targets {
                ", also followed from targets"
            } else {
                ""
            };
            let _ = writeln!(s, "  level {} ({}{pag}{up}):", i + 1, count(l.pages, what));
            for r in l.regexes.iter().take(12) {
                let _ = writeln!(s, "    {r}");
            }
            if l.regexes.len() > 12 {
                let _ = writeln!(s, "    … {} more alternatives", l.regexes.len() - 12);
            }
            // The level's own pages under its regexes, before the exceptions and the form.
            for u in l.samples.iter().take(3) {
                let _ = writeln!(s, "      e.g. {u}");
            }
            if let Some(first) = l.exclude.first() {
                let _ = writeln!(
                    s,
                    "    except {} seen while learning to be of another kind, e.g. {first}",
                    count(l.exclude.len(), "page")
                );
            }
            if let Some(f) = &l.form {
                let _ = writeln!(
                    s,
                    "    form {} {} — policy {}, {} queries, {} result pages each",
                    if f.form.method == crate::forms::Method::Get {
                        "GET"
                    } else {
                        "POST"
                    },
                    f.template,
                    f.policy.name(),
                    f.budget,
                    f.max_result_pages
                );
                if !f.values.is_empty() {
                    let shown: Vec<&str> = f.values.iter().take(8).map(String::as_str).collect();
                    let _ = writeln!(s, "    values that led to targets: {}", shown.join(", "));
                }
            }
        }
        let st = &self.stats;
        let _ = writeln!(
            s,
            "  learned from {}: {}, the pattern reaches {} of them fetching {}",
            count(st.pages_fetched, "page"),
            count(st.targets, "target"),
            st.targets_reached,
            count(st.estimated_fetches, "page")
        );
        for r in &self.dust_rules {
            let example = r.samples.first().map_or(String::new(), |[from, to]| {
                format!(", e.g. {} → {}", path_of(from), path_of(to))
            });
            let _ = writeln!(
                s,
                "  duplicate URLs: {} ({} of the map's copies{example})",
                r.rewrite.describe(),
                r.support
            );
        }
        s
    }
}

/// A URL's path and query (the URL itself when it does not parse): what tells a site's pages
/// apart where the host is the same.
fn path_of(url: &str) -> String {
    url::Url::parse(url).map_or_else(
        |_| url.to_string(),
        |u| {
            format!(
                "{}{}",
                u.path(),
                u.query().map_or(String::new(), |q| format!("?{q}"))
            )
        },
    )
}

pub use crate::words::count;

/// Learning settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LearnConfig {
    /// URLsim's K.
    pub k: usize,
    /// Refine generalisations that match known non-targets (off: the thesis' plain URLpattern).
    pub use_negatives: bool,
    /// A generalisation matching known non-targets stays general, with those pages listed as
    /// [`Level::exclude`], when they number at most this fraction of the pages it is made
    /// from; otherwise it is split (0: always split, never exclude).
    pub max_exclusions: f64,
    /// Rework the levels a group of alike URLs at a time while the simulated crawl loses
    /// nothing, down to the few regexes a person would write (`pattern/levels.rs`).
    pub simplify: bool,
}

/// [`LearnConfig::max_exclusions`] by default: a URL shape stays general when at least
/// two-thirds of the known pages it matches belong to its level. With the *Unseen pages*
/// measure of `./build.sh eval` (docs/reports/crawl.md), ratios 0.25 and 1 give the same figures on the
/// four development sites.
pub const DEFAULT_MAX_EXCLUSIONS: f64 = 0.5;

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig {
            k: url_pattern::DEFAULT_K,
            use_negatives: true,
            max_exclusions: DEFAULT_MAX_EXCLUSIONS,
            simplify: true,
        }
    }
}

/// Learns a pattern from a map with the settings the map was made with (scope, politeness,
/// similarity view) and the map's θ, taking the pages just below θ whose heading names the
/// targets' kind as targets ([`crate::review::heading::promoted`], listed in [`Pattern::by_heading`]).
/// [`learn_from_map_corrected`] does the same with a user's verdicts and returns the map it
/// learned from.
///
/// # Errors
/// As [`learn`], and an entry URL without a host.
pub fn learn_from_map(
    map: &SiteMap,
    config: &crate::mapper::MapConfig,
    now_ms: u64,
) -> Result<Pattern, PatternError> {
    let scope = entry_scope(map, config)?;
    let mut similarity = config.similarity;
    similarity.threshold = map.threshold;
    // A copy of the map only when a heading turns a page into a target.
    let crate::review::heading::Judgement { promoted, rule, .. } =
        crate::review::heading::judge(map, &crate::review::heading::Verdicts::default());
    let mut taken = None;
    if !promoted.is_empty() {
        let mut copy = map.clone();
        let by_heading = promote(&mut copy, &promoted);
        taken = Some((copy, by_heading));
    }
    let mut pattern = learn(
        taken.as_ref().map_or(map, |(m, _)| m),
        scope,
        config.politeness.clone(),
        similarity,
        &LearnConfig::default(),
        now_ms,
    )?;
    if let Some((_, by_heading)) = taken {
        pattern.by_heading = by_heading;
    }
    pattern.heading_rule = rule;
    Ok(pattern)
}

/// Makes the nodes `ids` targets; returns their URLs.
fn promote(map: &mut SiteMap, ids: &[u32]) -> Vec<String> {
    set_state(map, ids, NodeState::Target)
}

/// Makes the nodes `ids` pages (targets left out); returns their URLs.
fn demote(map: &mut SiteMap, ids: &[u32]) -> Vec<String> {
    set_state(map, ids, NodeState::Page)
}

fn set_state(map: &mut SiteMap, ids: &[u32], state: NodeState) -> Vec<String> {
    ids.iter()
        .map(|&id| {
            let node = &mut map.nodes[id as usize];
            node.state = state.clone();
            node.url.clone()
        })
        .collect()
}

/// The crawl scope of a map made with `config`.
fn entry_scope(map: &SiteMap, config: &crate::mapper::MapConfig) -> Result<Scope, PatternError> {
    config
        .scope(&map.entry)
        .ok_or_else(|| PatternError(format!("no host in the entry URL {:?}", map.entry)))
}

/// [`learn_from_map`] with a user's verdicts applied to the map first ([`learn_corrected`]).
/// Returns the pattern and the corrected map.
///
/// # Errors
/// As [`learn_from_map`] and [`learn_corrected`].
pub fn learn_from_map_corrected(
    map: SiteMap,
    config: &crate::mapper::MapConfig,
    corrections: &Corrections,
    now_ms: u64,
) -> Result<(Pattern, SiteMap), PatternError> {
    let scope = entry_scope(&map, config)?;
    learn_corrected(
        map,
        scope,
        config.politeness.clone(),
        config.similarity,
        corrections,
        now_ms,
    )
}

/// Learns a pattern from a map with a user's verdicts over its θ ([`SiteMap::correct`]) and the
/// pages taken for their heading ([`crate::review::heading::promoted`]), recording both in the pattern.
/// Returns the pattern and the corrected map.
///
/// # Errors
/// As [`learn`], and verdicts on pages the map did not fetch.
pub fn learn_corrected(
    mut map: SiteMap,
    scope: Scope,
    politeness: Politeness,
    similarity: similarity::Options,
    corrections: &Corrections,
    now_ms: u64,
) -> Result<(Pattern, SiteMap), PatternError> {
    let corrections = Corrections::default().merged(corrections)?;
    // A verdict on the entry page says whether a crawl collects it: the map keeps it a page,
    // where navigation starts. An entry that was never measured (an error page, not HTML) is
    // left to `SiteMap::correct`, which refuses verdicts on it.
    let entry = map
        .nodes
        .first()
        .filter(|n| n.state == NodeState::Page && n.similarity.is_some())
        .map(|n| n.url.clone())
        .unwrap_or_default();
    let entry_verdict = if entry.is_empty() {
        None
    } else if corrections.like.contains(&entry) {
        Some(true)
    } else if corrections.unlike.contains(&entry) {
        if crate::canon::canonicalize(&map.example).as_deref() == Some(entry.as_str()) {
            return Err(PatternError(format!(
                "{entry} is the example page: it is like itself"
            )));
        }
        Some(false)
    } else {
        None
    };
    let others = |urls: &[String]| -> Vec<String> {
        urls.iter().filter(|u| **u != entry).cloned().collect()
    };
    map.correct(&others(&corrections.like), &others(&corrections.unlike))
        .map_err(PatternError)?;
    let verdicts = crate::review::heading::Verdicts {
        like: corrections.like.iter().map(String::as_str).collect(),
        unlike: corrections.unlike.iter().map(String::as_str).collect(),
        unlike_kinds: corrections
            .unlike_headings
            .iter()
            .map(String::as_str)
            .collect(),
        like_kinds: corrections
            .like_headings
            .iter()
            .map(String::as_str)
            .collect(),
    };
    let judgement = crate::review::heading::judge(&map, &verdicts);
    let by_heading = promote(&mut map, &judgement.promoted);
    promote(&mut map, &judgement.liked);
    let rule = judgement.rule;
    let unlike_by_heading = demote(&mut map, &judgement.left_out);
    let by_language =
        crate::review::language::left_out(&map, &corrections.unlike_languages, &verdicts.like);
    let mut unlike_by_language = demote(&mut map, &by_language);
    let by_directory =
        crate::review::directory::left_out(&map, &corrections.unlike_directories, &verdicts.like);
    let mut unlike_by_directory = demote(&mut map, &by_directory);
    // A page taken for its heading and left out for its language or directory is no target.
    let mut by_heading = by_heading;
    by_heading.retain(|u| {
        unlike_by_language.binary_search(u).is_err()
            && unlike_by_directory.binary_search(u).is_err()
    });
    let mut similarity = similarity;
    similarity.threshold = map.threshold;
    let mut pattern = learn(
        &map,
        scope,
        politeness,
        similarity,
        &LearnConfig::default(),
        now_ms,
    )?;
    let mut unlike_by_heading = unlike_by_heading;
    match entry_verdict {
        Some(yes) => pattern.take_entry(yes),
        // An entry of a kind judged unlike the example is left out as such targets are (the
        // example excepted: it is like itself).
        None if pattern.entry_target
            && crate::canon::canonicalize(&map.example).as_deref() != Some(entry.as_str())
            && rule.as_ref().is_some_and(|r| {
                r.refuses(&entry, map.nodes.first().map_or("", |n| n.heading.as_str()))
            }) =>
        {
            pattern.take_entry(false);
            unlike_by_heading.push(entry.clone());
            unlike_by_heading.sort();
        }
        // So is an entry that declares a language judged unlike the example's.
        None if pattern.entry_target
            && crate::canon::canonicalize(&map.example).as_deref() != Some(entry.as_str())
            && map.nodes.first().is_some_and(|n| {
                crate::review::language::refused(&corrections.unlike_languages, &n.lang)
            }) =>
        {
            pattern.take_entry(false);
            unlike_by_language.push(entry.clone());
            unlike_by_language.sort();
        }
        // And one in a directory judged unlike the example's.
        None if pattern.entry_target
            && crate::canon::canonicalize(&map.example).as_deref() != Some(entry.as_str())
            && crate::review::directory::refused(&corrections.unlike_directories, &entry) =>
        {
            pattern.take_entry(false);
            unlike_by_directory.push(entry.clone());
            unlike_by_directory.sort();
        }
        None => {}
    }
    pattern.corrections = corrections;
    pattern.by_heading = by_heading;
    pattern.unlike_by_heading = unlike_by_heading;
    pattern.unlike_by_language = unlike_by_language;
    pattern.unlike_by_directory = unlike_by_directory;
    pattern.heading_rule = rule;
    Ok((pattern, map))
}

impl Pattern {
    /// Makes the entry page a target of the pattern or not ([`Pattern::entry_target`]), with
    /// the known targets and the learning figures that count it.
    fn take_entry(&mut self, yes: bool) {
        let Some(entry) = crate::canon::canonicalize(&self.entry) else {
            return;
        };
        if yes == self.entry_target {
            return;
        }
        self.entry_target = yes;
        let st = &mut self.stats;
        match (yes, self.known_targets.binary_search(&entry)) {
            (true, Err(i)) => {
                self.known_targets.insert(i, entry);
                st.targets += 1;
                st.targets_reached += 1;
            }
            (false, Ok(i)) => {
                self.known_targets.remove(i);
                st.targets = st.targets.saturating_sub(1);
                st.targets_reached = st.targets_reached.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// The pattern learned again from `map` (the map this pattern was learned from, possibly
    /// at another θ) with this pattern's scope, politeness and similarity settings and the user's
    /// `corrections` ([`learn_corrected`]). Returns the pattern and the corrected map.
    ///
    /// What a user may have set in the pattern and learning does not decide is kept: the
    /// pagination bound, the query policy, budget and result pages of a search-form level
    /// whose form (by its template) is learned again, and whether pages are rendered (the
    /// driver's choice, from the example page).
    ///
    /// # Errors
    /// As [`learn_corrected`].
    pub fn relearned(
        &self,
        map: SiteMap,
        corrections: &Corrections,
        now_ms: u64,
    ) -> Result<(Pattern, SiteMap), PatternError> {
        let (mut pattern, map) = learn_corrected(
            map,
            self.scope.clone(),
            self.politeness.clone(),
            self.similarity,
            corrections,
            now_ms,
        )?;
        pattern.max_pagination = self.max_pagination;
        pattern.render = self.render;
        pattern.fields.clone_from(&self.fields);
        for form in pattern.levels.iter_mut().filter_map(|l| l.form.as_mut()) {
            if let Some(old) = self
                .levels
                .iter()
                .filter_map(|l| l.form.as_ref())
                .find(|old| old.template == form.template)
            {
                form.policy = old.policy;
                form.budget = old.budget;
                form.max_result_pages = old.max_result_pages;
            }
        }
        Ok((pattern, map))
    }
}

/// Where a node stands in the order pages are taken for learning: the order the map's
/// breadth-first walk meets them, then the URL (nodes it does not reach come last).
fn met<'m>(map: &'m SiteMap, tree: &crate::map::BreadthFirst, id: u32) -> (u32, &'m str) {
    (
        tree.order[id as usize].unwrap_or(u32::MAX),
        map.nodes[id as usize].url.as_str(),
    )
}

/// Learns a pattern from a map. `politeness` and `scope` are copied into the pattern for the
/// crawls that run it.
///
/// # Errors
/// When the map's node ids point nowhere ([`SiteMap::check`]), the map holds no target, or no
/// target is reachable from the entry.
pub fn learn(
    map: &SiteMap,
    scope: Scope,
    politeness: Politeness,
    similarity: similarity::Options,
    config: &LearnConfig,
    now_ms: u64,
) -> Result<Pattern, PatternError> {
    map.check()
        .map_err(|e| PatternError(format!("inconsistent site map: {e}")))?;
    // In the order a breadth-first walk meets them (then by URL), not by node id: ids follow
    // the order responses arrived in.
    let tree = map.breadth_first();
    let mut targets: Vec<u32> = map.targets().collect();
    targets.sort_by_key(|&id| met(map, &tree, id));
    if targets.is_empty() {
        let fetched = map.nodes.iter().filter(|n| n.similarity.is_some()).count();
        // A map of the entry alone: its navigation is built by scripts (a Doxygen tree view, a
        // single-page app), which a crawler that reads HTML does not run.
        let entry_alone = map.nodes.len() == 1 && map.forms.is_empty() && fetched == 1;
        let hint = if entry_alone {
            "; the entry page links to no other page of the site: its navigation may be built \
             by scripts, which are never run (page URLs named in same-site scripts are read, \
             unless script links are turned off): start from a page with plain links towards \
             the pages you want"
        } else {
            ""
        };
        return Err(PatternError(format!(
            "no page similar to the example (θ = {:.3}) among the {fetched} pages fetched{hint}",
            map.threshold,
        )));
    }
    let dist = distances(map);
    let shortest = match dist.first().copied().flatten() {
        Some(d) if d >= 1 => d as usize,
        _ => {
            return Err(PatternError(
                "no target is reachable from the entry page".into(),
            ));
        }
    };
    // The number of levels: the entry's distance to the nearest target is a lower bound, but a
    // few shortcuts (featured items on a home page) must not make every target look one click
    // away. Every depth up to the deepest target is tried; the pattern reaching the most
    // targets on the map wins, then the one fetching fewest pages — each judged with its
    // search forms made template levels, as a crawl runs them: before that, a form's level
    // holds only the few queries mapping made, and a link from the entry to a deeper level
    // ([`Compiled::step`]) may run into the level a form is about to take.
    let deepest = targets
        .iter()
        .map(|&t| tree.depth[t as usize].unwrap_or(map.nodes[t as usize].depth) as usize)
        .max()
        .unwrap_or(shortest)
        .clamp(shortest, shortest + 8);
    // Each depth is also judged without its forms: a form's template level takes the
    // alternatives of the level that match its submissions, and where the same listing is
    // reached by links too (a table browser's filter form over its paginated rows) the links
    // alone may reach more targets than the form's queries. On a tie the forms stay.
    let mut best: Option<Candidate> = None;
    let forms = forms::Annotator::new(map, &tree.parent, config.max_exclusions);
    for n in shortest..=deepest {
        // The levels a form reaches are left to it where it becomes a level; without the form
        // they are simplified like any other ([`levels`]).
        let free = levels_for(map, &tree, &dist, &targets, n, config, How::default());
        let kept = if map.forms.is_empty() {
            free.clone()
        } else {
            levels_for(
                map,
                &tree,
                &dist,
                &targets,
                n,
                config,
                How {
                    keep_form_levels: true,
                    ..How::default()
                },
            )
        };
        if kept.iter().any(|l| l.regexes.is_empty()) {
            continue;
        }
        let mut as_run = kept.clone();
        forms.annotate(&mut as_run)?;
        let with_forms = as_run != kept;
        let mut candidates = Vec::new();
        if with_forms {
            candidates.push((as_run, kept, true));
        }
        if free.iter().all(|l| !l.regexes.is_empty()) {
            candidates.push((free.clone(), free, false));
        }
        for (run_levels, levels, with_forms) in candidates {
            let sim = simulate_levels(&run_levels, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new())?;
            let better = match &best {
                None => true,
                Some(b) => {
                    sim.targets_reached > b.sim.targets_reached
                        || (sim.targets_reached == b.sim.targets_reached
                            && sim.fetched < b.sim.fetched)
                }
            };
            if better {
                best = Some(Candidate {
                    plain: levels.clone(),
                    run: run_levels,
                    sim,
                    n,
                    with_forms,
                });
            }
        }
    }
    let Some(Candidate {
        plain: plain_levels,
        run: mut levels,
        n,
        with_forms,
        ..
    }) = best
    else {
        return Err(PatternError("no pattern could be built".into()));
    };
    // Targets that lead to targets the levels miss (mapping expands targets last,
    // [`crate::mapper::MapConfig::expand_targets`]): the last level learned again with the
    // targets' links among its negatives, and followed from target to target, when that
    // reaches more targets on the map without collecting a page known not to be one — or as
    // many, when mapping visited what targets link to ([`SiteMap::target_links`]) and they
    // lead to more pages shaped like targets that mapping met but had no budget left to fetch
    // (a site larger than the page budget: rustdoc's standard library, where the levels alone
    // reach every target on the map). Decided once the number of levels is: chains of targets
    // are not a reason to drop the listings that lead to new pages.
    let plain = simulate_levels(&plain_levels, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new())?;
    let how = How {
        loop_targets: true,
        keep_form_levels: with_forms,
    };
    let mut looped = levels_for(map, &tree, &dist, &targets, n, config, how);
    if looped.iter().all(|l| !l.regexes.is_empty()) {
        let sim = simulate_levels(&looped, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new())?;
        let reach = sim.targets_reached > plain.targets_reached
            || (map.target_links
                && sim.targets_reached == plain.targets_reached
                && sim.unfetched_targets > plain.unfetched_targets);
        if reach && sim.false_targets.len() <= plain.false_targets.len() {
            if with_forms {
                forms.annotate(&mut looped)?;
            }
            levels = looped;
        }
    }
    // Listings linked only from targets (a class page links its module's class list, the
    // only link to some modules'): followed from targets when that reaches more targets on
    // the map without collecting a page known not to be one.
    if let Some(i) = levels.len().checked_sub(2) {
        let before = simulate_levels(&levels, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new())?;
        if entered_by_links(&levels, i) {
            let mut up = levels.clone();
            up[i].from_targets = true;
            let sim = simulate_levels(&up, DEFAULT_MAX_PAGINATION, map, &BTreeMap::new())?;
            if sim.targets_reached > before.targets_reached
                && sim.false_targets.len() <= before.false_targets.len()
            {
                levels = up;
            }
        }
    }
    let mut known_targets: Vec<String> = targets
        .iter()
        .map(|&t| map.nodes[t as usize].url.clone())
        .collect();
    known_targets.sort();
    let is_target: HashSet<u32> = targets.iter().copied().collect();
    let mut known_aliases: Vec<String> = map
        .nodes
        .iter()
        .filter(|n| matches!(n.state, NodeState::Duplicate { of } if is_target.contains(&of)))
        .map(|n| n.url.clone())
        .collect();
    known_aliases.sort();
    let mut pattern = Pattern {
        schema: schema_url(),
        version: VERSION,
        site: scope.site.clone(),
        entry: map.entry.clone(),
        example: map.example.clone(),
        similarity,
        scope,
        levels,
        max_pagination: DEFAULT_MAX_PAGINATION,
        politeness,
        entry_target: false,
        known_targets,
        known_aliases,
        corrections: Corrections::default(),
        by_heading: Vec::new(),
        unlike_by_heading: Vec::new(),
        unlike_by_language: Vec::new(),
        unlike_by_directory: Vec::new(),
        heading_rule: None,
        script_links: false,
        render: false,
        fields: Vec::new(),
        dust_rules: crate::dust::mine(map),
        stats: LearnStats {
            pages_fetched: map
                .nodes
                .iter()
                .filter(|n| !matches!(n.state, NodeState::Discovered | NodeState::Disallowed))
                .count(),
            urls_seen: map.nodes.len(),
            targets: targets.len(),
            learned_at_ms: now_ms,
            ..LearnStats::default()
        },
    };
    let sim = simulate(&pattern, map)?;
    pattern.script_links = needs_scripts(&pattern, map, sim.targets_reached)?;
    pattern.stats.targets_reached = sim.targets_reached;
    pattern.stats.estimated_fetches = sim.fetched;
    pattern.take_entry(entry_like(map));
    Ok(pattern)
}

/// One number of levels [`learn`] tried: the levels learned, the same as a crawl runs them
/// (with their search forms, or without), and what they do on the map.
struct Candidate {
    plain: Vec<Level>,
    run: Vec<Level>,
    sim: Simulation,
    n: usize,
    with_forms: bool,
}

/// Whether the map's entry page scored at least the map's θ, or is the first page of the
/// listing the example continues (the example is its page 2: the user wants the listing's
/// pages, the first among them). Mapping keeps the entry a page whatever its score (navigation
/// starts there), so learning decides whether it is a target too.
fn entry_like(map: &SiteMap) -> bool {
    map.nodes.first().is_some_and(|n| {
        n.state == NodeState::Page
            && map.may_be_target(0)
            && (n.similarity.is_some_and(|s| f64::from(s) >= map.threshold)
                || map.example_chain_root() == Some(0))
    })
}

/// Whether a crawl with `pattern` must read scripts: on the map without the links pages have
/// only through their scripts ([`SiteMap::scripted`]), it reaches fewer than `reached` targets.
/// A site whose scripts name only pages the pattern does not need (Python's Sphinx scripts name
/// `cgitb.html`) is crawled without fetching them.
fn needs_scripts(pattern: &Pattern, map: &SiteMap, reached: usize) -> Result<bool, PatternError> {
    if map.scripted.is_empty() {
        return Ok(false);
    }
    let plain = simulate_levels(&pattern.levels, pattern.max_pagination, map, &map.scripted)?;
    Ok(plain.targets_reached < reached)
}

/// Shortest link distance from every node to a target (None: no path in the known graph).
fn distances(map: &SiteMap) -> Vec<Option<u32>> {
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); map.nodes.len()];
    for (u, node) in map.nodes.iter().enumerate() {
        if node.state == NodeState::Target {
            continue;
        }
        for &v in &node.links {
            if let Some(r) = rev.get_mut(v as usize) {
                r.push(u as u32);
            }
        }
    }
    let mut dist = vec![None; map.nodes.len()];
    let mut queue = VecDeque::new();
    for t in map.targets() {
        dist[t as usize] = Some(0);
        queue.push_back(t);
    }
    while let Some(v) = queue.pop_front() {
        let d = dist[v as usize].unwrap_or(0);
        for &u in &rev[v as usize] {
            if dist[u as usize].is_none() {
                dist[u as usize] = Some(d + 1);
                queue.push_back(u);
            }
        }
    }
    dist
}

/// The most general regexes covering `pos` that match none of `neg`: URLsim groups
/// generalised with the regex tree, split while a known negative matches — by the punctuation
/// skeleton of what follows their common prefix, then by its next character.
pub fn generalise(pos: &[&str], neg: &[&str], k: usize) -> Vec<String> {
    generalise_excluding(pos, neg, k, 0.0).regexes
}

/// Regexes and the known negatives they still match ([`generalise_excluding`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generalised {
    /// The regexes.
    pub regexes: Vec<String>,
    /// Known negatives the regexes match (exact URLs a crawl skips).
    pub exclude: Vec<String>,
}

/// [`generalise`], except that a group (or part of one, after splits) whose regex matches
/// known negatives numbering at most `ratio` × its URLs keeps that regex, the negatives
/// listed as exclusions: splitting would shape the regexes after the names seen (`class[A-S]…`)
/// and miss new pages of the same kind; a few known exceptions are cheaper to list.
pub fn generalise_excluding(pos: &[&str], neg: &[&str], k: usize, ratio: f64) -> Generalised {
    let mut out = Generalised::default();
    for g in url_pattern::group(pos, k) {
        let urls: Vec<&str> = g.iter().filter_map(|&i| pos.get(i).copied()).collect();
        split(&urls, neg, &mut out, 0, ratio);
    }
    let mut seen = HashSet::new();
    out.regexes.retain(|r| seen.insert(r.clone()));
    out.exclude.sort();
    out.exclude.dedup();
    out
}

fn split(urls: &[&str], neg: &[&str], out: &mut Generalised, depth: usize, ratio: f64) {
    if urls.is_empty() {
        return;
    }
    if urls.len() == 1 || depth > 200 {
        for u in urls {
            out.regexes.push(UrlPattern::literal(u).regex);
        }
        return;
    }
    let matched = |re: &str| -> Option<Vec<String>> {
        let re = regex::Regex::new(re).ok()?;
        Some(
            neg.iter()
                .filter(|n| re.is_match(n))
                .map(|n| n.to_string())
                .collect(),
        )
    };
    let accept = |m: &Vec<String>| m.is_empty() || (m.len() as f64) <= ratio * urls.len() as f64;
    if let Some(p) = url_pattern::url_pattern(urls)
        && let Some(m) = matched(&p.regex)
        && accept(&m)
    {
        out.regexes.push(p.regex);
        out.exclude.extend(m);
        return;
    }
    let prefix = common_prefix(urls);
    // Below the first split the group shares a character prefix the token-level pattern may
    // have generalised away: keep it literal and generalise only what follows.
    if depth > 0 {
        let rests: Vec<&str> = urls.iter().map(|u| &u[prefix.len()..]).collect();
        if rests.iter().all(|r| !r.contains('/')) {
            let re = format!(
                "^{}{}$",
                url_pattern::escape(prefix),
                url_pattern::level_regex(&rests)
            );
            if let Some(m) = matched(&re)
                && accept(&m)
            {
                out.regexes.push(re);
                out.exclude.extend(m);
                return;
            }
        }
    }
    let cut = prefix.len();
    // Split by the structure of what follows the common prefix first: URLs of one skeleton
    // (gitweb's `;h=*` beside `;h=*/*/*` and `diff;h=*`) are one kind more often than URLs that
    // share a first letter, and each skeleton may generalise on its own.
    let mut shapes: Vec<(String, Vec<&str>)> = Vec::new();
    for &u in urls {
        let s = skeleton(&u[cut..]);
        match shapes.iter_mut().find(|(k, _)| *k == s) {
            Some((_, g)) => g.push(u),
            None => shapes.push((s, vec![u])),
        }
    }
    if shapes.len() > 1 {
        for (_, g) in shapes {
            split(&g, neg, out, depth + 1, ratio);
        }
        return;
    }
    // Then by the character after the common prefix.
    let mut groups: Vec<(Option<char>, Vec<&str>)> = Vec::new();
    for &u in urls {
        let c = u[cut..].chars().next();
        match groups.iter_mut().find(|(k, _)| *k == c) {
            Some((_, g)) => g.push(u),
            None => groups.push((c, vec![u])),
        }
    }
    if groups.len() == 1 {
        for u in urls {
            out.regexes.push(UrlPattern::literal(u).regex);
        }
        return;
    }
    for (_, g) in groups {
        split(&g, neg, out, depth + 1, ratio);
    }
}

/// The punctuation of `s` with each run of ASCII letters and digits as one mark (NUL, which no
/// URL holds; `*` here): `;h=3f9a/x` → `;*=*/*`.
fn skeleton(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if !c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('\0') {
            out.push('\0');
        }
    }
    out
}

fn common_prefix<'a>(urls: &[&'a str]) -> &'a str {
    let Some(first) = urls.first() else {
        return "";
    };
    let mut len = first.len();
    for u in &urls[1..] {
        len = first
            .char_indices()
            .zip(u.chars())
            .take_while(|((_, a), b)| a == b)
            .map(|((i, a), _)| i + a.len_utf8())
            .last()
            .unwrap_or(0)
            .min(len);
    }
    &first[..len]
}

/// What a pattern does on a map's graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    /// Map targets reached.
    pub targets_reached: usize,
    /// Map targets not reached.
    pub targets_missed: Vec<String>,
    /// Pages fetched (known pages and unknown URLs the pattern would request).
    pub fetched: usize,
    /// Reached pages matching the last level that the map says are not targets.
    pub false_targets: Vec<String>,
    /// Reached URLs matching the last level that mapping met but never fetched (beyond its
    /// page budget): where the crawl would find targets the map does not hold.
    pub unfetched_targets: usize,
}

/// Runs a pattern over a map without fetching: breadth-first from the entry, following links
/// as the crawler would. Pages the map never fetched count as fetched leaves.
///
/// # Errors
/// A pattern whose regexes do not compile.
pub fn simulate(pattern: &Pattern, map: &SiteMap) -> Result<Simulation, PatternError> {
    simulate_levels(
        &pattern.levels,
        pattern.max_pagination,
        map,
        &BTreeMap::new(),
    )
}

/// [`simulate`] with `levels`, not following the links `skip` lists for a node (node id →
/// link ids: [`SiteMap::scripted`] simulates a crawl that reads no script).
fn simulate_levels(
    levels: &[Level],
    max_pagination: u32,
    map: &SiteMap,
    skip: &BTreeMap<u32, Vec<u32>>,
) -> Result<Simulation, PatternError> {
    let compiled = Compiled::from_levels(levels)?;
    let mut sim = Simulation::default();
    if map.nodes.is_empty() {
        return Ok(sim);
    }
    // A form page's submissions are links of the map, not of the page: a crawl makes them
    // only into a form level (it fills the form the level holds), never by following links.
    let submitted: HashSet<(u32, u32)> = map
        .forms
        .iter()
        .flat_map(|f| f.submissions.iter().map(move |s| (f.page, s.node)))
        .collect();
    let last_form = levels.last().is_some_and(|l| l.form.is_some());
    let into_form = |step: Option<Step>| match step {
        Some(Step::Level { level, .. }) => levels[level - 1].form.is_some(),
        // The targets are a form's answers (an example that is one).
        Some(Step::Target) => last_form,
        None => false,
    };
    // A form's steps ([`crate::map::MappedForm::steps`]) are fetched on the way, not taken.
    let steps: HashSet<u32> = map
        .forms
        .iter()
        .flat_map(|f| f.steps.iter().copied())
        .collect();
    let mut visited = vec![false; map.nodes.len()];
    let mut queue: VecDeque<(u32, usize, u32)> = VecDeque::new();
    visited[0] = true;
    queue.push_back((0, 0, 0));
    let mut reached_targets = HashSet::new();
    while let Some((id, level, hops)) = queue.pop_front() {
        sim.fetched += 1;
        let node = &map.nodes[id as usize];
        let skipped = skip.get(&id).map_or(&[][..], Vec::as_slice);
        for &v in &node.links {
            if visited[v as usize] || skipped.contains(&v) {
                continue;
            }
            let url = &map.nodes[v as usize].url;
            let step = compiled.step(level, url);
            if submitted.contains(&(id, v)) && !into_form(step) {
                continue;
            }
            match step {
                Some(Step::Target) => {
                    visited[v as usize] = true;
                    sim.fetched += 1;
                    if map.nodes[v as usize].state == NodeState::Target {
                        reached_targets.insert(v);
                        if compiled.reads_targets() {
                            // Counted above: the target's links are read, not fetched again.
                            sim.fetched -= 1;
                            queue.push_back((v, levels.len(), 0));
                        }
                    } else if map.is_fetched(v) && !steps.contains(&v) {
                        sim.false_targets.push(url.clone());
                    } else if map.nodes[v as usize].state == NodeState::Discovered {
                        sim.unfetched_targets += 1;
                    }
                }
                Some(Step::Level {
                    level: l,
                    paginated,
                }) => {
                    let h = if paginated { hops + 1 } else { 0 };
                    if h <= max_pagination {
                        visited[v as usize] = true;
                        queue.push_back((v, l, h));
                    }
                }
                None => {}
            }
        }
    }
    sim.targets_reached = reached_targets.len();
    sim.targets_missed = map
        .targets()
        .filter(|t| !reached_targets.contains(t))
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    Ok(sim)
}

#[cfg(test)]
mod tests;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The generalisation accepts every positive and no known negative (negatives that are
        /// also positives excepted), whatever the URLs.
        #[test]
        fn generalise_separates_positives_from_negatives(
            pos in proptest::collection::vec("[a-c]{1,3}(-[a-c0-9]{1,3})?(/[a-z0-9]{1,3})?(\\?p=[0-9]{1,2})?", 1..20),
            neg in proptest::collection::vec("[a-c]{1,3}(-[a-c0-9]{1,3})?(/[a-z0-9]{1,3})?(\\?p=[0-9]{1,2})?", 0..20),
        ) {
            let canon = |s: &String| url::Url::parse(&format!("http://h.test/{s}")).map(|u| u.to_string()).unwrap_or_default();
            let pos: Vec<String> = pos.iter().map(canon).collect();
            let neg: Vec<String> = neg.iter().map(canon).filter(|n| !pos.contains(n)).collect();
            let p: Vec<&str> = pos.iter().map(String::as_str).collect();
            let n: Vec<&str> = neg.iter().map(String::as_str).collect();
            let set = RegexSet::new(generalise(&p, &n, 2)).expect("compiles");
            for u in &p {
                prop_assert!(set.is_match(u), "positive {}", u);
            }
            for u in &n {
                prop_assert!(!set.is_match(u), "negative {}", u);
            }
            // With exclusions: every positive matches; a negative that matches is listed, and
            // no more of them than the ratio allows per group.
            let g = generalise_excluding(&p, &n, 2, 0.5);
            let set = RegexSet::new(&g.regexes).expect("compiles");
            for u in &p {
                prop_assert!(set.is_match(u), "positive {}", u);
            }
            for u in &n {
                prop_assert_eq!(set.is_match(u), g.exclude.iter().any(|x| x == u), "negative {}", u);
            }
            prop_assert!(g.exclude.len() as f64 <= 0.5 * p.len() as f64, "{:?}", g);
        }
    }
}
