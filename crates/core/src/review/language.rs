//! The language a page declares, as a kind of page for the review.
//!
//! A multilingual site builds its translations from one template, so similarity takes every
//! language's copy of a page as a target: learning from an English module page of the Apache
//! HTTP Server manual (Debian's, nine languages under one root) took 124 French module pages
//! beside the 124 English ones, and 445 translated targets in all (`exemplar learn`'s lists by
//! heading and by language). The page says which it is (`<html lang="fr">`, [`tag`]); a
//! user who picks an English page wants the English pages. So a first learning proposes to
//! leave out the targets that declare another language than the example's ([`other_languages`],
//! recorded as the user's verdicts would be, `Corrections::unlike_languages`), the review lists
//! the targets by declared language ([`kinds`]) for the user to take one back, and a verifying
//! crawl refuses a page that declares a language judged unlike. A page declares its language by
//! `<html lang>`, else `<meta http-equiv="content-language">`, else its response's
//! `Content-Language` header (one language, [`of_header`]). Languages are told apart by
//! their primary subtag (`en-GB` beside `en` is the example's language); a page that declares
//! none is never left out for it.

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use crate::map::{NodeState, SiteMap};

pub use exemplar_html::language::{MAX_TAG, is_tag, of_header, tag};

/// The primary subtag of a tag (`pt-br` → `pt`): two tags of one language share it.
fn primary(tag: &str) -> &str {
    tag.split('-').next().unwrap_or(tag)
}

/// The example page's declared language (empty when it declares none or was not fetched).
fn example_language(map: &SiteMap) -> &str {
    let example = map.canonical_example();
    map.nodes
        .iter()
        .find(|n| n.url == example || n.url == map.example)
        .map_or("", |n| n.lang.as_str())
}

/// The languages learning proposes to leave out before the user's review: those targets
/// declare whose primary subtag is not the example's. Empty when the example declares no
/// language. Sorted.
pub fn other_languages(map: &SiteMap) -> Vec<String> {
    let own = example_language(map);
    if own.is_empty() {
        return Vec::new();
    }
    let langs: BTreeSet<&str> = map
        .nodes
        .iter()
        .filter(|n| n.state == NodeState::Target && !n.lang.is_empty())
        .map(|n| n.lang.as_str())
        .filter(|l| primary(l) != primary(own))
        .collect();
    langs.into_iter().map(str::to_string).collect()
}

/// The targets of `map` that a verdict on their declared language leaves out: those declaring
/// one of `unlike`, except the example and the pages judged like it (`like`, canonical URLs).
/// Node ids, by URL.
pub fn left_out(map: &SiteMap, unlike: &[String], like: &HashSet<&str>) -> Vec<u32> {
    if unlike.is_empty() {
        return Vec::new();
    }
    map.left_out_of_kind(like, |_, n| unlike.contains(&n.lang))
}

/// Whether a page declaring `lang` is of a language judged unlike the example (`unlike`).
pub fn refused(unlike: &[String], lang: &str) -> bool {
    !lang.is_empty() && unlike.iter().any(|l| l == lang)
}

/// Targets declaring one language ([`kinds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LanguageKind {
    /// The declared language tag (`fr`, `pt-br`).
    pub language: String,
    /// Targets declaring it (with those a verdict on the language left out).
    pub targets: usize,
    /// Up to [`crate::map::KIND_SAMPLES`] of them: the most similar to the example, the
    /// middle and the least ([`SiteMap::targets_by`]).
    pub samples: Vec<String>,
    /// The example declares it.
    pub example: bool,
    /// Judged unlike the example: its targets are left out.
    pub unlike: bool,
}

/// The targets grouped by declared language, for a verdict on a whole language: listed when
/// targets declare two or more languages (counting those `left_out` by a language verdict,
/// canonical URLs) or a language is judged unlike (`unlike`), the most targets first; targets
/// that declare none are not counted.
pub fn kinds(map: &SiteMap, left_out: &[String], unlike: &[String]) -> Vec<LanguageKind> {
    map.targets_by(left_out, unlike, |n| {
        (!n.lang.is_empty()).then(|| n.lang.clone())
    })
    .into_iter()
    .map(|g| LanguageKind {
        language: g.key,
        targets: g.targets,
        samples: g.samples,
        example: g.example,
        unlike: g.unlike,
    })
    .collect()
}

/// Whether some fetched page of `map` declares `lang`: a verdict on a language no page declares
/// would leave nothing out (a mistyped tag).
pub fn declared(map: &SiteMap, lang: &str) -> bool {
    map.nodes.iter().any(|n| n.lang == lang)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Node;

    fn page(url: &str, state: NodeState, lang: &str) -> Node {
        let mut n = Node::scored(url.to_string(), state, 0.9);
        n.lang = lang.to_string();
        n
    }

    /// An English example among English, French and Japanese targets, and a target that
    /// declares nothing.
    fn map() -> SiteMap {
        let t = NodeState::Target;
        SiteMap {
            entry: "http://s.test/".into(),
            example: "http://s.test/en/a".into(),
            threshold: 0.8,
            nodes: vec![
                page("http://s.test/", NodeState::Page, "en"),
                page("http://s.test/en/a", t.clone(), "en"),
                page("http://s.test/en/b", t.clone(), "en-gb"),
                page("http://s.test/fr/a", t.clone(), "fr"),
                page("http://s.test/fr/b", t.clone(), "fr"),
                page("http://s.test/ja/a", t.clone(), "ja"),
                page("http://s.test/x", t, ""),
                page("http://s.test/de/a", NodeState::Page, "de"),
            ],
            ..SiteMap::default()
        }
    }

    #[test]
    fn declared_tags_are_normalised_or_refused() {
        assert_eq!(tag(" pt_BR ").as_deref(), Some("pt-br"));
        assert_eq!(tag("EN").as_deref(), Some("en"));
        assert_eq!(tag("zh-Hant-TW").as_deref(), Some("zh-hant-tw"));
        for bad in [
            "",
            " ",
            "{{ lang }}",
            "en-",
            "-en",
            "1en",
            "e n",
            "en--gb",
            &"a".repeat(36),
        ] {
            assert_eq!(tag(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn other_languages_than_the_examples_are_proposed() {
        let m = map();
        // en-gb is the example's language; a page that declares none is no language; a page
        // below θ is no target.
        assert_eq!(other_languages(&m), vec!["fr", "ja"]);
        let mut silent = m.clone();
        silent.nodes[1].lang.clear();
        assert!(other_languages(&silent).is_empty());
    }

    #[test]
    fn a_language_verdict_leaves_its_targets_out_but_the_example_and_pages_judged_like() {
        let m = map();
        let unlike = vec!["fr".to_string(), "en".to_string()];
        let like: HashSet<&str> = ["http://s.test/fr/b"].into_iter().collect();
        let out: Vec<&str> = left_out(&m, &unlike, &like)
            .into_iter()
            .map(|i| m.nodes[i as usize].url.as_str())
            .collect();
        assert_eq!(out, vec!["http://s.test/fr/a"]);
        assert!(refused(&unlike, "fr") && !refused(&unlike, "") && !refused(&unlike, "ja"));
    }

    #[test]
    fn targets_are_listed_by_language_with_those_left_out() {
        let mut m = map();
        m.nodes[3].state = NodeState::Page;
        let k = kinds(&m, &["http://s.test/fr/a".into()], &["fr".into()]);
        let rows: Vec<(&str, usize, bool, bool)> = k
            .iter()
            .map(|k| (k.language.as_str(), k.targets, k.example, k.unlike))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("fr", 2, false, true),
                ("en", 1, true, false),
                ("en-gb", 1, false, false),
                ("ja", 1, false, false)
            ]
        );
        assert_eq!(
            k[0].samples,
            vec!["http://s.test/fr/a", "http://s.test/fr/b"]
        );
        // One language among the targets: no choice to offer.
        let mut one = map();
        for n in &mut one.nodes {
            n.lang = "en".into();
        }
        assert!(kinds(&one, &[], &[]).is_empty());
        assert!(declared(&m, "ja") && !declared(&m, "ko"));
    }
}
