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

/// A rewritten form met only as a copy, fetched as it was before its rules were confirmed
/// ([`Snapshot::dust_met`]): a later copy, or the form itself, is that page met again, not a
/// page to fetch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct DustMet {
    /// The copy's URL.
    pub(super) copy: String,
    /// The rules that rewrote it.
    pub(super) rules: Vec<usize>,
}

/// A link's fate under rules on probation ([`Crawler::probation`]).
enum Probation {
    /// The rules are confirmed; `met`: the page was met (the link is skipped).
    Confirmed { met: bool },
    /// Fetch the link as it is (a probe, or rules not decided and no page met).
    Fetch,
    /// Held until the rules' probes answer.
    Held,
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
    /// A link under the pattern's DUST rules: its rewritten form (fetched in its stead) with the
    /// step to follow it by when the pattern's regexes do not say (None: they do), or None when
    /// that form was already met. A rewrite is taken where the pattern follows the rewritten form
    /// as it follows the link, or does not follow it at all (a form the pattern never saw: the
    /// URL without the session id every link of the site carried), the link's own step then
    /// kept; never where the forms are of two levels (`/c/7/page/1/` comes by pagination, `/c/7/`
    /// not). Only rules this crawl has confirmed ([`DustRun`]) rewrite; until then the link is
    /// fetched as it is, the first few whose rewritten form was met as probes. A copy's fetch is
    /// counted avoided once per URL, where the crawl would have fetched it.
    pub(super) fn rewritten(&mut self, url: String, item: &Item) -> Option<(String, Option<Step>)> {
        let level = item.level;
        if self.state.pattern.dust_rules.is_empty() || self.state.frontier.is_seen(&url) {
            return Some((url, None));
        }
        let step = self.compiled.step(level, &url);
        let followed = step.is_some() && self.scope.contains(&url);
        // A form met before only as a copy, fetched as it was: that page met again.
        if let Some(met) = self.state.dust_met.get(&url).cloned() {
            let active = met.rules.iter().all(|&i| {
                !self
                    .state
                    .dust
                    .get(i)
                    .is_some_and(|r| r.refuted || r.unconfirmed)
            });
            if !active {
                return Some((url, None));
            }
            return match self.probation(&url, item, met.rules, Some(met.copy), followed) {
                Probation::Confirmed { .. } => {
                    self.state.frontier.mark_seen(&url);
                    None
                }
                Probation::Fetch => Some((url, None)),
                Probation::Held => None,
            };
        }
        let runs = &self.state.dust;
        let (to, fired) = crate::dust::apply_traced(&self.state.pattern.dust_rules, &url, |i| {
            !runs.get(i).is_some_and(|r| r.refuted || r.unconfirmed)
        });
        // The level, not how it was reached: `/c/7/page/1/` comes by pagination, `/c/7/` not.
        let level_of = |s: Option<Step>| match s {
            Some(Step::Level { level, .. }) => Some(level),
            Some(Step::Target) => Some(usize::MAX),
            None => None,
        };
        let to_step = self.compiled.step(level, &to);
        if to == url || (to_step.is_some() && level_of(to_step) != level_of(step)) {
            return Some((url, None));
        }
        // The rewritten form followed by the link's step where the regexes know it not.
        let kept = if to_step.is_none() { step } else { None };
        // Where the page was met: under its rewritten form, or as a copy fetched as it was.
        let met_as = if self.state.frontier.is_seen(&to) {
            Some(to.clone())
        } else {
            self.state.dust_met.get(&to).map(|m| m.copy.clone())
        };
        let met = met_as.is_some();
        match self.probation(&url, item, fired.clone(), met_as, followed) {
            Probation::Confirmed { met: true } => {
                // Met again, the link is the URL it stands for, fetched or to be.
                self.state.frontier.mark_seen(&url);
                None
            }
            Probation::Confirmed { met: false } => {
                self.state.frontier.mark_seen(&url);
                Some((to, kept))
            }
            Probation::Fetch => {
                if followed && !met {
                    let copy = url.clone();
                    self.state
                        .dust_met
                        .insert(to, DustMet { copy, rules: fired });
                }
                Some((url, None))
            }
            Probation::Held => None,
        }
    }

    /// What to do with a link `rules` name a copy of a page, met under `met_as` (None: not met
    /// yet), while the rules are on probation: skip it once they are confirmed (counted avoided
    /// where the crawl would have fetched it), fetch it as a probe while they want one, hold it
    /// while their probes are out, else fetch it as it is.
    fn probation(
        &mut self,
        url: &str,
        item: &Item,
        rules: Vec<usize>,
        met_as: Option<String>,
        followed: bool,
    ) -> Probation {
        let runs = &self.state.dust;
        let confirmed = rules
            .iter()
            .all(|&i| runs.get(i).is_some_and(|r| r.confirmed >= DUST_PROBES));
        if confirmed {
            let met = met_as.is_some();
            if met && followed {
                self.state.progress.duplicates_avoided += 1;
            }
            return Probation::Confirmed { met };
        }
        let Some(to) = met_as.filter(|_| followed) else {
            return Probation::Fetch;
        };
        let wanted = rules
            .iter()
            .any(|&i| runs.get(i).is_some_and(|r| r.sent < DUST_PROBES));
        if wanted {
            for &i in &rules {
                if let Some(r) = self.state.dust.get_mut(i) {
                    r.sent += 1;
                }
            }
            let probe = DustProbe { to, rules };
            self.state.dust_probes.insert(url.to_string(), probe);
            return Probation::Fetch;
        }
        // Its probes are out: held until they answer.
        self.state.dust_waiting.push(DustWaiting {
            url: url.to_string(),
            item: item.clone(),
            rules,
        });
        Probation::Held
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
