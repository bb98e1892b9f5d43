//! The pattern's rules for duplicate URLs in a crawl ([`crate::dust`]): links rewritten before
//! the seen-check, and each rule on probation until this crawl has confirmed it against the site
//! as it is — its first [`DUST_PROBES`] copies fetched as probes, the links it names held until
//! they answer; confirmed, the held copies are not fetched; refuted (a probe found another page,
//! or an error), the rule is not applied and the held links are fetched. Links still held when the
//! crawl has nothing else to do are fetched: no page is lost to a rule.
use serde::{Deserialize, Serialize};

use super::{Crawler, Item};
use crate::pattern::Step;

/// A link held for the verdict of the rules that rewrote it ([`Snapshot::dust_waiting`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct DustWaiting {
    url: String,
    item: Item,
    pub(super) rules: Vec<usize>,
}

/// A rule for duplicate URLs in one crawl ([`crate::dust`]): it skips a copy only once this
/// crawl has fetched [`DUST_PROBES`] of the copies it names and found each the page it said; a
/// probe that finds another page (or an error) refutes it, and it is not applied again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DustRun {
    /// Probes asked.
    pub sent: u32,
    /// Probes that found the page the rule named.
    pub confirmed: u32,
    /// A probe found another page: the rule is not applied in this crawl.
    pub refuted: bool,
    /// Its probes could not all be asked before the crawl ran out of work (fewer copies than
    /// probes, or a probe refused by robots.txt): not applied in this crawl.
    #[serde(default)]
    pub unconfirmed: bool,
}

impl DustRun {
    /// Confirmed, refuted or given up: the links it holds can go.
    fn decided(&self) -> bool {
        self.confirmed >= DUST_PROBES || self.refuted || self.unconfirmed
    }
}

/// A probe of rules for duplicate URLs: the URL the rules rewrote the copy to, and the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct DustProbe {
    to: String,
    pub(super) rules: Vec<usize>,
}

/// Copies a rule for duplicate URLs has this crawl fetch, and find the page it names, before it
/// skips any: "confirmed by fetching a few", against a site changed since learning.
pub const DUST_PROBES: u32 = 2;

impl Crawler {
    /// A link under the pattern's DUST rules: its rewritten form (fetched in its stead), or None
    /// when that form was already met. A rewrite is taken only where the pattern follows it as
    /// it follows the link, and only by rules this crawl has confirmed ([`DustRun`]); until
    /// then the link is fetched as it is, the first few whose rewritten form was met as probes.
    /// A copy's fetch is counted avoided once per URL, where the crawl would have fetched it.
    pub(super) fn rewritten(&mut self, url: String, item: &Item) -> Option<String> {
        let level = item.level;
        let rules = &self.state.pattern.dust_rules;
        if rules.is_empty() || self.state.frontier.is_seen(&url) {
            return Some(url);
        }
        let runs = &self.state.dust;
        let (to, fired) = crate::dust::apply_traced(rules, &url, |i| {
            !runs.get(i).is_some_and(|r| r.refuted || r.unconfirmed)
        });
        let step = self.compiled.step(level, &url);
        // The level, not how it was reached: `/c/7/page/1/` comes by pagination, `/c/7/` not.
        let level_of = |s: Option<Step>| match s {
            Some(Step::Level { level, .. }) => Some(level),
            Some(Step::Target) => Some(usize::MAX),
            None => None,
        };
        if to == url || level_of(self.compiled.step(level, &to)) != level_of(step) {
            return Some(url);
        }
        let met = self.state.frontier.is_seen(&to);
        let followed = step.is_some() && self.scope.contains(&url);
        let confirmed = fired.iter().all(|&i| {
            self.state
                .dust
                .get(i)
                .is_some_and(|r| r.confirmed >= DUST_PROBES)
        });
        if !confirmed {
            let wanted = fired
                .iter()
                .any(|&i| self.state.dust.get(i).is_some_and(|r| r.sent < DUST_PROBES));
            if met && followed && wanted {
                for &i in &fired {
                    if let Some(r) = self.state.dust.get_mut(i) {
                        r.sent += 1;
                    }
                }
                let probe = DustProbe { to, rules: fired };
                self.state.dust_probes.insert(url.clone(), probe);
                return Some(url);
            }
            if met && followed {
                // Its probes are out: held until they answer.
                let item = item.clone();
                self.state.dust_waiting.push(DustWaiting {
                    url,
                    item,
                    rules: fired,
                });
                return None;
            }
            return Some(url);
        }
        if met && followed {
            self.state.progress.duplicates_avoided += 1;
        }
        // Met again, the link is the URL it stands for, fetched or to be.
        self.state.frontier.mark_seen(&url);
        (!met).then_some(to)
    }

    /// A probe's answer taken ([`Crawler::take`]): the copy was the page its rules named (it
    /// was skipped as that page under another URL), or they are refuted.
    pub(super) fn probe_answered(&mut self, url: &str, probe: DustProbe) {
        let aliases = &self.state.aliases;
        let root = |u: &str| aliases.get(u).cloned().unwrap_or_else(|| u.to_string());
        let copy = aliases
            .get(url)
            .is_some_and(|of| root(of) == root(&probe.to));
        for i in probe.rules {
            let Some(r) = self.state.dust.get_mut(i) else {
                continue;
            };
            if copy {
                r.confirmed += 1;
            } else if !r.refuted {
                r.refuted = true;
                self.state.progress.duplicate_rules_refuted += 1;
            }
        }
        self.release_held(false);
    }

    /// Follows again the links held for rules now decided ([`DustRun::decided`]); with
    /// `give_up`, the rules still undecided are first given up (the crawl has nothing else to
    /// do: their probes will not come). Whether any link was released.
    pub(super) fn release_held(&mut self, give_up: bool) -> bool {
        if self.state.dust_waiting.is_empty() {
            return false;
        }
        if give_up {
            for r in self.state.dust.iter_mut().filter(|r| !r.decided()) {
                r.unconfirmed = true;
            }
        }
        let runs = &self.state.dust;
        let decided = |w: &DustWaiting| {
            w.rules
                .iter()
                .all(|&i| runs.get(i).is_none_or(DustRun::decided))
        };
        let (ready, held): (Vec<DustWaiting>, Vec<DustWaiting>) =
            std::mem::take(&mut self.state.dust_waiting)
                .into_iter()
                .partition(decided);
        self.state.dust_waiting = held;
        let released = !ready.is_empty();
        for w in ready {
            self.expand(vec![Some(w.url)], &w.item);
        }
        released
    }
}
