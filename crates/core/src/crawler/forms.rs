//! Crawling through form levels (design §6): when the crawl reaches the level before a form
//! level, it issues queries from the level's template — one at a time, so the adaptive policy
//! learns from each query's documents before choosing the next — reads each query's result
//! pages (submit-button pagination through its GET equivalents, at most `maxResultPages`),
//! follows the result links the pattern allows, and hands the policy the documents the query
//! returned. The budget bounds the queries; every finished query is reported with the targets
//! collected so far.
use serde::{Deserialize, Serialize};

use super::{Crawler, Event, Item};
use crate::canon;
use crate::dom::Page;
use crate::forms::query::{Adaptive, DocTerms, Enumeration, Policy, RandomTerms, TermList};
use crate::forms::{self};
use crate::mapper::form_key;
use crate::pattern::{FormLevel, QueryPolicy};

/// Overrides of the pattern's form levels for one crawl.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CrawlForms {
    /// Query values given by the user (used in order; overrides the policy).
    pub queries: Option<Vec<String>>,
    /// The policy (None: the level's).
    pub policy: Option<QueryPolicy>,
    /// Queries per form level at most (None: the level's).
    pub budget: Option<usize>,
    /// Result pages read per query (None: the level's).
    pub max_result_pages: Option<u32>,
    /// Seed of the random policy.
    pub seed: u64,
}

/// Results per page assumed when telling the adaptive policy how many results a query can
/// return at most (the common default of search engines, Omega's included).
const RESULTS_PER_PAGE: usize = 10;

/// A policy's state (serde data: it is part of the crawler's snapshot).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
enum PolicyState {
    Terms { list: TermList },
    Random { terms: RandomTerms },
    Adaptive { policy: Box<Adaptive> },
    Enumerate { combos: Enumeration },
}

impl PartialEq for PolicyState {
    /// Compared as data (the policies hold floats and tables; snapshots compare by content).
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_value(self).ok() == serde_json::to_value(other).ok()
    }
}

impl PolicyState {
    fn for_level(fl: &FormLevel, overrides: &CrawlForms, result_pages: u32) -> PolicyState {
        if fl.query_field.is_none() {
            let budget = overrides.budget.unwrap_or(fl.budget);
            return PolicyState::Enumerate {
                combos: Enumeration::new(&fl.form, budget),
            };
        }
        if let Some(q) = &overrides.queries {
            return PolicyState::Terms {
                list: TermList::new(q.clone()),
            };
        }
        match overrides.policy.unwrap_or(fl.policy) {
            QueryPolicy::Values => PolicyState::Terms {
                list: TermList::new(fl.values.clone()),
            },
            QueryPolicy::Thesis => PolicyState::Terms {
                list: TermList::new(fl.thesis_terms.clone()),
            },
            QueryPolicy::GenericFrequency => PolicyState::Terms {
                list: TermList::generic_frequency(),
            },
            QueryPolicy::Random => PolicyState::Random {
                terms: RandomTerms::new(overrides.seed),
            },
            QueryPolicy::Adaptive => {
                // The values that worked while learning come first, then the example's terms.
                let mut seeds = fl.values.clone();
                seeds.extend(fl.seeds.iter().cloned());
                PolicyState::Adaptive {
                    policy: Box::new(
                        Adaptive::new(seeds)
                            .with_result_cap(result_pages as usize * RESULTS_PER_PAGE),
                    ),
                }
            }
        }
    }

    /// The next query: its label and the values to fill.
    fn next(&mut self, field: Option<&str>) -> Option<(String, Vec<(String, String)>)> {
        let term = match self {
            PolicyState::Enumerate { combos } => {
                let values = combos.next_values()?;
                let label = values
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("&");
                return Some((label, values));
            }
            PolicyState::Terms { list } => list.next()?,
            PolicyState::Random { terms } => terms.next()?,
            PolicyState::Adaptive { policy } => policy.next()?,
        };
        let field = field?;
        Some((term.clone(), vec![(field.to_string(), term)]))
    }

    fn observe(&mut self, query: &str, docs: &[DocTerms]) {
        match self {
            PolicyState::Adaptive { policy } => policy.observe(query, docs),
            PolicyState::Terms { .. }
            | PolicyState::Random { .. }
            | PolicyState::Enumerate { .. } => {}
        }
    }
}

/// The query being answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Current {
    query: String,
    /// Requests of this query not answered yet (result pages and their documents).
    outstanding: usize,
    result_pages: usize,
    docs: Vec<DocTerms>,
}

/// One form level being crawled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FormRun {
    /// Index of the form level in the pattern's levels; its result pages are crawl level
    /// `index + 1`.
    index: usize,
    policy: PolicyState,
    budget: usize,
    pub(super) max_result_pages: u32,
    issued: usize,
    current: Option<Current>,
    finished: bool,
    /// The hidden fields of the form as the page that started the run has it now (a view
    /// state, a token): sent in place of those learning saw, which an application may have
    /// bound to another session or expired.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hidden: Vec<(String, String)>,
}

impl FormRun {
    /// Its form level is one of the pattern's `levels` (a snapshot read back is input).
    pub(super) fn check(&self, levels: usize) -> Result<(), String> {
        if self.index < levels {
            Ok(())
        } else {
            Err(format!(
                "a form run is for level {}, but the pattern has {levels} levels",
                self.index + 1
            ))
        }
    }
}

impl Crawler {
    /// The form run whose result pages are crawl level `level`.
    pub(super) fn run_for_results(&self, level: usize) -> Option<&FormRun> {
        self.state.runs.iter().find(|r| r.index + 1 == level)
    }

    /// Whether pages of crawl level `level` are result pages of a form level.
    pub(super) fn is_result_level(&self, level: usize) -> bool {
        level >= 1
            && self
                .state
                .pattern
                .levels
                .get(level - 1)
                .is_some_and(|l| l.form.is_some())
    }

    /// A page of crawl level `level` was expanded: when the next level is a form level not
    /// started yet, its queries start, with the hidden fields of the form as `page` has it.
    pub(super) fn start_form_level(&mut self, level: usize, page: &Page) {
        let Some(fl) = self
            .state
            .pattern
            .levels
            .get(level)
            .and_then(|l| l.form.clone())
        else {
            return;
        };
        if self.state.runs.iter().any(|r| r.index == level) || self.state.stopped.is_some() {
            return;
        }
        let key = form_key(&fl.form);
        let hidden = forms::valid_forms(page)
            .into_iter()
            .find(|s| form_key(s) == key)
            .map(|s| {
                s.fields
                    .into_iter()
                    .filter(|f| {
                        f.kind == crate::dom::ControlKind::Hidden
                            && !f.name.is_empty()
                            && !f.disabled
                    })
                    .map(|f| (f.name, f.value))
                    .collect()
            })
            .unwrap_or_default();
        let o = &self.state.config.forms;
        let pages = o.max_result_pages.unwrap_or(fl.max_result_pages).max(1);
        let run = FormRun {
            hidden,
            index: level,
            policy: PolicyState::for_level(&fl, o, pages),
            budget: o.budget.unwrap_or(fl.budget),
            max_result_pages: pages,
            issued: 0,
            current: None,
            finished: false,
        };
        self.state.runs.push(run);
        self.next_query(self.state.runs.len() - 1);
    }

    /// Issues run `r`'s next query, or marks it finished (budget spent, policy exhausted,
    /// crawl stopped).
    fn next_query(&mut self, r: usize) {
        loop {
            let stopped = self.state.stopped.is_some();
            let run = &mut self.state.runs[r];
            run.current = None;
            if stopped || run.issued >= run.budget {
                run.finished = true;
                return;
            }
            let Some(fl) = self.state.pattern.levels[run.index].form.as_ref() else {
                run.finished = true;
                return;
            };
            let Some((query, values)) = run.policy.next(fl.query_field.as_deref()) else {
                run.finished = true;
                return;
            };
            let mut pairs: Vec<(&str, &str)> = values
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            for (k, v) in &run.hidden {
                if !pairs.iter().any(|(n, _)| n == k) {
                    pairs.push((k, v));
                }
            }
            let url = fl.form.submission(&pairs).ok().and_then(|s| {
                let url = canon::canonicalize(&s.url)?;
                Some(match s.body {
                    Some(body) => crate::fetch::post_key(&url, &body),
                    None => url,
                })
            });
            let Some(url) = url.filter(|u| self.scope.contains(u)) else {
                self.events.push_back(Event::Skipped {
                    url: fl.form.action.clone(),
                    reason: format!("query {query:?}: no submission in scope"),
                });
                continue;
            };
            let level = run.index + 1;
            // On the last level the answers are the targets, unless each is a step to them.
            let last = level == self.state.pattern.levels.len();
            let target = last && fl.dependent.is_empty();
            run.issued += 1;
            let item = Item {
                level,
                hops: 0,
                target,
                query: Some(r as u32),
                doc: false,
                script: false,
                sitemap: false,
                step: false,
            };
            if self.state.frontier.push(url, item) {
                self.state.runs[r].current = Some(Current {
                    query,
                    outstanding: 1,
                    result_pages: 0,
                    docs: Vec::new(),
                });
                self.state.progress.queries += 1;
                return;
            }
            // Asked before (a repeated value): nothing to wait for.
        }
    }

    /// A result page of a form level whose answers fill selects
    /// ([`crate::pattern::FormLevel::dependent`]) is a step: the form on it — the application's
    /// view state and hidden fields, the choices made — is submitted again with each choice of
    /// the filled selects (at most the level's budget), as part of the same query. Their
    /// answers are the results; they are not stepped from again.
    pub(super) fn chain_step(&mut self, page: &Page, item: &Item) {
        let Some(r) = item.query.filter(|_| !item.doc && !item.step) else {
            return;
        };
        let Some(run) = self.state.runs.get(r as usize) else {
            return;
        };
        let levels = self.state.pattern.levels.len();
        let (index, last) = (run.index, run.index + 1 == levels);
        if index + 1 != item.level {
            return;
        }
        let Some(fl) = self.state.pattern.levels[index].form.as_ref() else {
            return;
        };
        if fl.dependent.is_empty() {
            return;
        }
        let key = form_key(&fl.form);
        let Some(spec) = forms::valid_forms(page)
            .into_iter()
            .find(|s| form_key(s) == key)
        else {
            return;
        };
        let filled: Vec<String> = forms::filled_selects(&fl.form, &spec)
            .into_iter()
            .filter(|n| fl.dependent.contains(n))
            .collect();
        if filled.is_empty() {
            return;
        }
        let mut only = spec.clone();
        only.fields
            .retain(|x| !x.is_choice() || filled.contains(&x.name));
        let mut combos = Enumeration::new(&only, fl.budget);
        let mut keys = Vec::new();
        while let Some(values) = combos.next_values() {
            let pairs: Vec<(&str, &str)> = values
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            if let Some(url) = spec.submission(&pairs).ok().and_then(|s| {
                let url = canon::canonicalize(&s.url)?;
                Some(match s.body {
                    Some(body) => crate::fetch::post_key(&url, &body),
                    None => url,
                })
            }) {
                keys.push(url);
            }
        }
        for url in keys {
            if !self.scope.contains(&url) || self.state.frontier.is_seen(&url) {
                continue;
            }
            let next = Item {
                level: item.level,
                hops: 0,
                target: last,
                query: Some(r),
                doc: false,
                script: false,
                sitemap: false,
                step: true,
            };
            if self.state.frontier.push(url, next) {
                self.query_queued(r);
            }
        }
    }

    /// A request of run `r` was queued.
    pub(super) fn query_queued(&mut self, r: u32) {
        if let Some(c) = self
            .state
            .runs
            .get_mut(r as usize)
            .and_then(|run| run.current.as_mut())
        {
            c.outstanding += 1;
        }
    }

    /// A request of run `r` was answered (any outcome); `doc` is the document's terms when it
    /// was a document the query returned, `result_page` when it was one of its result pages.
    /// The query ends when nothing of it is outstanding: the policy observes its documents and
    /// the next query goes out.
    pub(super) fn query_answered(&mut self, r: u32, doc: Option<DocTerms>, result_page: bool) {
        let r = r as usize;
        let Some(c) = self
            .state
            .runs
            .get_mut(r)
            .and_then(|run| run.current.as_mut())
        else {
            return;
        };
        c.outstanding = c.outstanding.saturating_sub(1);
        if result_page {
            c.result_pages += 1;
        }
        if let Some(d) = doc {
            c.docs.push(d);
        }
        if c.outstanding > 0 {
            return;
        }
        let Some(c) = self.state.runs[r].current.take() else {
            return;
        };
        let run = &mut self.state.runs[r];
        run.policy.observe(&c.query, &c.docs);
        self.events.push_back(Event::Query {
            level: run.index + 1,
            query: c.query,
            issued: run.issued,
            budget: run.budget,
            result_pages: c.result_pages,
            documents: c.docs.len(),
            targets: self.state.progress.targets,
        });
        self.next_query(r);
    }
}
