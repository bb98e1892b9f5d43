//! DUST — different URLs with the same text — within one site: rules that rewrite a URL into
//! another that gives the same page, learned from the site map and applied by the crawl before
//! it fetches, so that a page met under two URLs is fetched once.
//!
//! Mapping fetches both URLs of a pair and judges them one page (`NodeState::Duplicate { of }`:
//! a redirect, the same bytes, the same text and links, or the same declared canonical). Each
//! such pair suggests the rewrites that turn its URL into the one mapping kept ([`Rewrite`]: a
//! query parameter that changes nothing, a suffix such as `page/1/` or `index.html`, a path
//! prefix). A rewrite is learned ([`mine`]) when at least [`MIN_SUPPORT`] pairs of the map,
//! fetched on both sides, bear it out, and no URL of the map contradicts it: rewritten, none may
//! land on another page of the map, or on an error where the page was fine (or the other way).
//! Rules are confirmed by those fetches; none comes from the shape of URLs alone.
//!
//! Contract: [`apply`] is pure and idempotent over the rules [`mine`] returns (checked on the
//! map's URLs before they are returned), and its result is canonical ([`crate::canon`]).
//! Rewrites point to the URL mapping kept: the form the pattern's regexes were learned on.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::canon;
use crate::map::{NodeState, SiteMap};

/// Fewest pairs of the map a rule must explain: two may be a coincidence (DustBuster's
/// large-support principle; the pairs were fetched, so a few suffice).
pub const MIN_SUPPORT: usize = 3;

/// Sample pairs a rule keeps, for the user and the report.
const SAMPLES: usize = 3;

/// Longest suffix or prefix a rule rewrites (characters): longer ones are items' own names.
const MAX_PART: usize = 40;

/// A rewrite of URLs of one site.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rewrite {
    /// Drop the query parameter `name`: with any value, or only with `value` (`page=1`).
    DropParam {
        /// The parameter's name.
        name: String,
        /// Only this value.
        value: Option<String>,
    },
    /// Drop `suffix` at the end of the path (`page/1/`, `index.html`, `.html`), where what is
    /// left ends in `/` or the suffix starts with `/` or `.`.
    DropSuffix {
        /// The suffix.
        suffix: String,
    },
    /// Replace the path's leading `from` by `to` (each starts and ends with `/`).
    Prefix {
        /// The prefix replaced.
        from: String,
        /// Its replacement.
        to: String,
    },
}

/// A rewrite learned from the map, with its evidence. In a pattern document it is one flat
/// object: `kind` (`dropParam`, `dropSuffix`, `prefix`), the kind's own keys (`name` and
/// `value`, `suffix`, `from` and `to`), `support` and `samples`; a malformed one is refused
/// when read ([`Rewrite::problem`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Wire", into = "Wire")]
pub struct DustRule {
    /// What it rewrites.
    pub rewrite: Rewrite,
    /// Pairs of the map it explains (both URLs fetched, one page).
    pub support: usize,
    /// Some of them: `[the URL rewritten, the URL mapping kept]`.
    pub samples: Vec<[String; 2]>,
}

/// A rule's kind, as a document names it.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Kind {
    DropParam,
    DropSuffix,
    Prefix,
}

/// [`DustRule`] as a document writes it: one flat object (a flat struct, not a tagged enum
/// flattened into the rule: serde's buffering for those costs the wasm module tens of KB).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    support: usize,
    #[serde(default)]
    samples: Vec<[String; 2]>,
}

impl TryFrom<Wire> for DustRule {
    type Error = String;

    fn try_from(w: Wire) -> Result<DustRule, String> {
        let need = |v: Option<String>, key: &str| {
            v.ok_or_else(|| format!("a dust rule of this kind needs {key:?}"))
        };
        let rewrite = match w.kind {
            Kind::DropParam => Rewrite::DropParam {
                name: need(w.name, "name")?,
                value: w.value,
            },
            Kind::DropSuffix => Rewrite::DropSuffix {
                suffix: need(w.suffix, "suffix")?,
            },
            Kind::Prefix => Rewrite::Prefix {
                from: need(w.from, "from")?,
                to: need(w.to, "to")?,
            },
        };
        if let Some(p) = rewrite.problem() {
            return Err(p);
        }
        Ok(DustRule {
            rewrite,
            support: w.support,
            samples: w.samples,
        })
    }
}

impl From<DustRule> for Wire {
    fn from(r: DustRule) -> Wire {
        let mut w = Wire {
            kind: Kind::DropParam,
            name: None,
            value: None,
            suffix: None,
            from: None,
            to: None,
            support: r.support,
            samples: r.samples,
        };
        match r.rewrite {
            Rewrite::DropParam { name, value } => (w.name, w.value) = (Some(name), value),
            Rewrite::DropSuffix { suffix } => (w.kind, w.suffix) = (Kind::DropSuffix, Some(suffix)),
            Rewrite::Prefix { from, to } => {
                (w.kind, w.from, w.to) = (Kind::Prefix, Some(from), Some(to));
            }
        }
        w
    }
}

impl Rewrite {
    /// The rule in a user's words.
    pub fn describe(&self) -> String {
        match self {
            Rewrite::DropParam { name, value: None } => format!("drop the parameter {name}"),
            Rewrite::DropParam {
                name,
                value: Some(v),
            } => format!("drop {name}={v}"),
            Rewrite::DropSuffix { suffix } => format!("drop {suffix} at a path's end"),
            Rewrite::Prefix { from, to } => format!("{from} → {to} at a path's start"),
        }
    }

    /// A problem with the rule as a document states it (an empty name or suffix, a prefix that
    /// does not start and end with `/`), or None.
    pub fn problem(&self) -> Option<String> {
        match self {
            Rewrite::DropParam { name, .. } if name.is_empty() => {
                Some("a dropParam rule names no parameter".into())
            }
            Rewrite::DropSuffix { suffix } if suffix.is_empty() => {
                Some("a dropSuffix rule has an empty suffix".into())
            }
            Rewrite::Prefix { from, to } if !(slashed(from) && slashed(to)) || from == to => {
                Some(format!(
                    "a prefix rule's from and to must start and end with / and differ ({from:?}, {to:?})"
                ))
            }
            _ => None,
        }
    }

    /// `url` rewritten, canonical; None when the rule does not apply (or the URL does not
    /// parse).
    pub fn apply(&self, url: &str) -> Option<String> {
        let mut u = url::Url::parse(url).ok()?;
        match self {
            Rewrite::DropParam { name, value } => {
                let pairs: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect();
                let kept: Vec<&(String, String)> = pairs
                    .iter()
                    .filter(|(k, v)| !(k == name && value.as_ref().is_none_or(|x| x == v)))
                    .collect();
                if kept.len() == pairs.len() {
                    return None;
                }
                if kept.is_empty() {
                    u.set_query(None);
                } else {
                    u.query_pairs_mut().clear().extend_pairs(kept);
                }
            }
            Rewrite::DropSuffix { suffix } => {
                let left = u.path().strip_suffix(suffix.as_str())?;
                let boundary =
                    left.ends_with('/') || suffix.starts_with('/') || suffix.starts_with('.');
                if !boundary || left.is_empty() {
                    return None;
                }
                let left = left.to_string();
                u.set_path(&left);
            }
            Rewrite::Prefix { from, to } => {
                let rest = u.path().strip_prefix(from.as_str())?;
                let path = format!("{to}{rest}");
                u.set_path(&path);
            }
        }
        canon::canonicalize(u.as_str())
    }
}

/// A path prefix as a rule states it: starting and ending with `/`.
fn slashed(p: &str) -> bool {
    p.starts_with('/') && p.ends_with('/')
}

/// `url` rewritten by `rules`, each tried once in order; `url` canonical when none applies.
pub fn apply(rules: &[DustRule], url: &str) -> String {
    apply_traced(rules, url, |_| true).0
}

/// [`apply`] with the rules `on` allows (by index), and the indices of those that rewrote.
pub fn apply_traced(
    rules: &[DustRule],
    url: &str,
    on: impl Fn(usize) -> bool,
) -> (String, Vec<usize>) {
    let mut out = canon::canonicalize(url).unwrap_or_else(|| url.to_string());
    let mut fired = Vec::new();
    for (i, r) in rules.iter().enumerate().filter(|(i, _)| on(*i)) {
        if let Some(next) = r.rewrite.apply(&out)
            && next != out
        {
            out = next;
            fired.push(i);
        }
    }
    (out, fired)
}

/// The map's URLs by what became of them, for the rules' evidence.
struct Evidence<'a> {
    /// Node id by URL.
    index: HashMap<&'a str, u32>,
    /// Each fetched node's page: the node it duplicates (followed to the end), else itself.
    class: Vec<Option<u32>>,
    /// Nodes that answered with an error or no HTML.
    failed: HashSet<u32>,
}

impl<'a> Evidence<'a> {
    fn of(map: &'a SiteMap) -> Evidence<'a> {
        let n = map.nodes.len();
        let index = map
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.url.as_str(), i as u32))
            .collect();
        let root = |mut i: u32| {
            // Chains are short; a cycle (none should exist) ends after n steps.
            for _ in 0..n {
                match map.nodes.get(i as usize).map(|x| &x.state) {
                    Some(NodeState::Duplicate { of }) => i = *of,
                    _ => break,
                }
            }
            i
        };
        let class = map
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match node.state {
                NodeState::Page | NodeState::Target => Some(i as u32),
                NodeState::Duplicate { .. } => Some(root(i as u32)),
                _ => None,
            })
            .collect();
        let failed = map
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| {
                matches!(
                    node.state,
                    NodeState::HttpError { .. } | NodeState::NotHtml { .. }
                )
            })
            .map(|(i, _)| i as u32)
            .collect();
        Evidence {
            index,
            class,
            failed,
        }
    }

    /// Whether `rewrite` sends a URL of the map to another page of it, or turns a page into a
    /// failure (or a failure into a page).
    fn contradicts(&self, map: &SiteMap, rewrite: &Rewrite) -> bool {
        map.nodes.iter().enumerate().any(|(i, node)| {
            let i = i as u32;
            let Some(to) = rewrite.apply(&node.url) else {
                return false;
            };
            let Some(&j) = self.index.get(to.as_str()) else {
                return false;
            };
            if j == i {
                return false;
            }
            let (a, b) = (self.class[i as usize], self.class[j as usize]);
            match (a, b) {
                (Some(a), Some(b)) => a != b,
                (Some(_), None) => self.failed.contains(&j),
                (None, Some(_)) => self.failed.contains(&i),
                (None, None) => false,
            }
        })
    }
}

/// The rewrites one pair suggests: `variant` (a duplicate) into `kept` (the URL mapping kept).
fn candidates(variant: &str, kept: &str) -> Vec<Rewrite> {
    let (Ok(v), Ok(k)) = (url::Url::parse(variant), url::Url::parse(kept)) else {
        return Vec::new();
    };
    if v.host_str() != k.host_str() || v.port() != k.port() || v.scheme() != k.scheme() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if v.path() == k.path() {
        // One parameter more: the one that changes nothing.
        let vp: Vec<(String, String)> = v
            .query_pairs()
            .map(|(a, b)| (a.into_owned(), b.into_owned()))
            .collect();
        let kp: Vec<(String, String)> = k
            .query_pairs()
            .map(|(a, b)| (a.into_owned(), b.into_owned()))
            .collect();
        let extra: Vec<&(String, String)> = vp.iter().filter(|p| !kp.contains(p)).collect();
        if extra.len() == 1 && vp.len() == kp.len() + 1 {
            let (name, value) = extra[0].clone();
            out.push(Rewrite::DropParam {
                name: name.clone(),
                value: None,
            });
            out.push(Rewrite::DropParam {
                name,
                value: Some(value),
            });
        }
        return out;
    }
    if v.query() != k.query() {
        return out;
    }
    let (vp, kp) = (v.path(), k.path());
    if let Some(suffix) = vp.strip_prefix(kp)
        && !suffix.is_empty()
        && suffix.chars().count() <= MAX_PART
    {
        out.push(Rewrite::DropSuffix {
            suffix: suffix.to_string(),
        });
    }
    // The longest common tail that starts at a `/`: heads differ before it.
    let common = vp
        .bytes()
        .rev()
        .zip(kp.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let tail_v = &vp[vp.len() - common..];
    if let Some(cut) = tail_v.find('/') {
        let (from, to) = (
            &vp[..vp.len() - common + cut + 1],
            &kp[..kp.len() - common + cut + 1],
        );
        if from != to
            && from.starts_with('/')
            && to.starts_with('/')
            && from.chars().count() <= MAX_PART
            && to.chars().count() <= MAX_PART
        {
            out.push(Rewrite::Prefix {
                from: from.to_string(),
                to: to.to_string(),
            });
        }
    }
    out
}

/// The rewrites the map bears out, the most pairs first: each explains at least
/// [`MIN_SUPPORT`] pairs the rules before it do not, and no URL of the map contradicts it.
pub fn mine(map: &SiteMap) -> Vec<DustRule> {
    let evidence = Evidence::of(map);
    // Pairs: a duplicate's URL and the URL of the page it is, both fetched.
    let pairs: Vec<(&str, &str)> = map
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.state, NodeState::Duplicate { .. }))
        .filter_map(|(i, n)| {
            let root = evidence.class[i]?;
            (root as usize != i).then(|| (n.url.as_str(), map.nodes[root as usize].url.as_str()))
        })
        .collect();
    let mut suggested: BTreeMap<Rewrite, usize> = BTreeMap::new();
    for (v, k) in &pairs {
        for c in candidates(v, k) {
            *suggested.entry(c).or_default() += 1;
        }
    }
    let mut ranked: Vec<(Rewrite, usize)> = suggested
        .into_iter()
        .filter(|(_, n)| *n >= MIN_SUPPORT)
        .collect();
    // The most pairs first; at equal support the general rule (any value) before the specific.
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut rules: Vec<DustRule> = Vec::new();
    let mut explained: HashSet<&str> = HashSet::new();
    for (rewrite, _) in ranked {
        let mut with = rules.clone();
        with.push(DustRule {
            rewrite: rewrite.clone(),
            support: 0,
            samples: Vec::new(),
        });
        let newly: Vec<(&str, &str)> = pairs
            .iter()
            .filter(|(v, k)| !explained.contains(v) && apply(&with, v) == *k)
            .copied()
            .collect();
        if newly.len() < MIN_SUPPORT || evidence.contradicts(map, &rewrite) {
            continue;
        }
        let rule = DustRule {
            rewrite,
            support: newly.len(),
            samples: newly
                .iter()
                .take(SAMPLES)
                .map(|(v, k)| [v.to_string(), k.to_string()])
                .collect(),
        };
        let mut trial = rules.clone();
        trial.push(rule);
        // The set must stay idempotent over the map's URLs: a second pass changes nothing.
        let stable = map.nodes.iter().all(|n| {
            let once = apply(&trial, &n.url);
            apply(&trial, &once) == once
        });
        if stable {
            explained.extend(newly.iter().map(|(v, _)| *v));
            rules = trial;
        }
    }
    rules
}

#[cfg(test)]
mod tests;
