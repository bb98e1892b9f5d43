//! Forms while mapping (thesis `004` §4.3; design §6): the mapper fills the usable GET forms it
//! meets with the thesis's values (the least frequent terms of the example and the form page,
//! crossed with the choice fields' values), submits them as new nodes linked from the form's
//! page, and analyses the responses once all are in: the largest share (30%) is examined — a
//! response like the example is a target, a response with another form is handled like any
//! page with forms (recursion), and from a response's links a random share (≥ 30%) of each
//! URLsim group is followed. The small responses (errors, "no match") fall out unexpanded, and
//! a form whose responses lead to no target is reported as dropped when the pattern is learned.
//! Result pages that page with submit buttons are followed through their GET equivalents
//! ([`forms::pagination_links`]), a few pages per query.
//!
//! A form is one form across pages by its action and field names ([`form_key`]). A form without
//! an `action` (a template's search box run by a script) submits to the page it is on, so it has
//! another action on every page; it is submitted on the first page it is met on only, and
//! counted on the others ([`MappedForm::repeated`]), unless that first one's responses proved
//! worth expanding.
//!
//! POST forms are submitted too: their nodes are keyed `action#exemplar-post=body`
//! ([`crate::fetch::post_key`]); their result pages cannot be paged through GET equivalents.
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{Event, Item, Mapper, Node, NodeState};
use crate::canon;
use crate::dom::Page;
use crate::forms::query::{self, XorShift};
use crate::forms::{self, FormSpec};
use crate::map::{FormState, MappedForm, Submitted};
use crate::url_pattern;

/// How mapping treats forms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FormsConfig {
    /// Fill and submit usable forms.
    pub enabled: bool,
    /// Submissions per form at most (the thesis plan: terms × choice values).
    pub max_submissions: usize,
    /// Forms submitted at most in one run.
    pub max_forms: usize,
    /// Share of a form's responses analysed, the largest first (thesis: 30%).
    pub analyse_share: f64,
    /// Share of each URLsim group of a response's links that is followed (thesis: ≥ 30%).
    pub follow_share: f64,
    /// Result pages read per submission, the first included (submit-button pagination).
    pub max_result_pages: u32,
    /// Seed of the link sampling (runs are reproducible).
    pub seed: u64,
}

impl Default for FormsConfig {
    fn default() -> Self {
        FormsConfig {
            enabled: true,
            max_submissions: 30,
            max_forms: 20,
            analyse_share: 0.3,
            follow_share: 0.3,
            max_result_pages: 3,
            seed: 0x5eed_f012,
        }
    }
}

/// A form response held back until all responses of its form are in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Deferred {
    node: u32,
    size: usize,
    links: Vec<Option<String>>,
    pagination: Vec<String>,
    forms: Vec<(FormSpec, Vec<String>)>,
}

/// The mapper's form bookkeeping (part of its snapshot).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct FormTable {
    /// Form key → index in `SiteMap::forms`.
    keys: HashMap<String, u32>,
    /// Shape of a form without an action ([`self_shape`]) → the first form of that shape.
    shapes: HashMap<String, u32>,
    /// Responses held back, per form.
    deferred: HashMap<u32, Vec<Deferred>>,
    /// Submissions answered, per form.
    answered: HashMap<u32, usize>,
    /// Result-page hops of submission responses and their pagination.
    hops: HashMap<u32, u32>,
    /// Hashes of form responses' bodies: byte-identical responses under different URLs (the
    /// query changes the URL, not the page) are one response.
    bodies: HashMap<u64, u32>,
}

impl FormTable {
    /// Every node id and form index it holds is below `nodes` and `forms`.
    pub(super) fn check(&self, nodes: usize, forms: usize) -> Result<(), String> {
        let bad = |what: &str, id: u32, len: usize| {
            (id as usize >= len).then(|| format!("{what} is {id}, beyond {len}"))
        };
        let problem = self
            .keys
            .values()
            .find_map(|&f| bad("a form key's form", f, forms))
            .or_else(|| {
                self.shapes
                    .values()
                    .find_map(|&f| bad("a form shape's form", f, forms))
            })
            .or_else(|| {
                self.deferred.iter().find_map(|(&f, held)| {
                    bad("a held-back response's form", f, forms).or_else(|| {
                        held.iter()
                            .find_map(|d| bad("a held-back response's node", d.node, nodes))
                    })
                })
            })
            .or_else(|| {
                self.answered
                    .keys()
                    .find_map(|&f| bad("an answered form", f, forms))
            })
            .or_else(|| {
                self.hops
                    .keys()
                    .find_map(|&id| bad("a result page's node", id, nodes))
            })
            .or_else(|| {
                self.bodies
                    .values()
                    .find_map(|&id| bad("a form response's node", id, nodes))
            });
        problem.map_or(Ok(()), Err)
    }
}

/// Why a form was not submitted when [`FormsConfig::max_forms`] forms already were.
pub const FORM_LIMIT_REACHED: &str = "the run's form limit was reached";

/// Adaptive seeds kept per form: the example's most frequent terms.
pub(super) const SEEDS: usize = 50;

/// A form's identity across pages: method, action without query, and its field names. The
/// same search box on every page of a site is one form.
pub fn form_key(spec: &FormSpec) -> String {
    let action = spec.action.split(['?', '#']).next().unwrap_or("");
    format!("{:?} {action} {}", spec.method, field_names(spec))
}

/// A form's named fields (submit buttons left out), sorted and deduplicated, comma-joined.
fn field_names(spec: &FormSpec) -> String {
    let mut names: Vec<&str> = spec
        .fields
        .iter()
        .filter(|f| !f.name.is_empty() && !f.kind.is_submit())
        .map(|f| f.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.join(",")
}

/// The shape of a form without an `action` (it submits to the page it is on): method and field
/// names. Such a form in a site's template (gi-docgen's search box, run by a script) has another
/// action on every page, so [`form_key`] alone would submit it again on each. None for a form
/// with an action (a filter form naming its own page is keyed by that page, as before).
pub fn self_shape(spec: &FormSpec) -> Option<String> {
    if !spec.no_action {
        return None;
    }
    Some(format!(
        "{:?} (no action) {}",
        spec.method,
        field_names(spec)
    ))
}

impl Mapper {
    /// The usable forms of `page` not met before, with their thesis values (computed now, while
    /// the page is at hand).
    pub(super) fn new_forms(&self, page: &Page) -> Vec<(FormSpec, Vec<String>)> {
        if !self.state.config.forms.enabled {
            return Vec::new();
        }
        forms::valid_forms(page)
            .into_iter()
            .filter(|spec| !self.state.forms.keys.contains_key(&form_key(spec)))
            .filter(|spec| {
                spec.fields
                    .iter()
                    .any(|f| f.is_free_text() || f.is_choice())
            })
            .map(|spec| {
                // A repeat is only counted ([`Mapper::submit_forms`]): no values needed.
                let terms = if self.repeat_of(&spec).is_some() {
                    Vec::new()
                } else {
                    query::thesis_terms(&self.example_page, page, query::THESIS_TERMS)
                };
                (spec, terms)
            })
            .collect()
    }

    /// The form already met that `spec` repeats: a form without an action with the shape of one
    /// tried before on another page, unless that one's responses proved worth expanding (then
    /// every page's copy is its own form).
    fn repeat_of(&self, spec: &FormSpec) -> Option<u32> {
        let shape = self_shape(spec)?;
        let &f = self.state.forms.shapes.get(&shape)?;
        match &self.state.map.forms.get(f as usize)?.state {
            FormState::Analysed { expanded } if !expanded.is_empty() => None,
            _ => Some(f),
        }
    }

    /// The canonical GET equivalents of `page`'s pagination buttons, in scope.
    pub(super) fn pagination(&self, page: &Page) -> Vec<String> {
        if !self.state.config.forms.enabled {
            return Vec::new();
        }
        forms::pagination_links(page)
            .iter()
            .filter_map(|u| crate::fetch::canonical_key(u))
            .filter(|u| self.scope.contains(u))
            .collect()
    }

    /// Whether `node` is a form response to hold back (its form is still being answered).
    pub(super) fn defers(&self, node: u32) -> Option<u32> {
        let f = self.state.map.nodes[node as usize].form?;
        let form = self.state.map.forms.get(f as usize)?;
        let is_submission = form.submissions.iter().any(|s| s.node == node);
        (is_submission && form.state == FormState::Submitted).then_some(f)
    }

    /// The node whose response had exactly these bytes, for a form response (`node` submits or
    /// pages a form); records it otherwise.
    pub(super) fn same_response(&mut self, node: u32, body: &[u8]) -> Option<u32> {
        self.state.map.nodes[node as usize].form?;
        // The bytes, not the text signature: identical bytes are the test here.
        let h = crate::canon::bytes_signature(body);
        match self.state.forms.bodies.get(&h) {
            Some(&of) if of != node => Some(of),
            _ => {
                self.state.forms.bodies.insert(h, node);
                None
            }
        }
    }

    /// Holds a response back for its form's analysis.
    pub(super) fn defer(
        &mut self,
        form: u32,
        node: u32,
        size: usize,
        links: Vec<Option<String>>,
        pagination: Vec<String>,
        forms: Vec<(FormSpec, Vec<String>)>,
    ) {
        self.state
            .forms
            .deferred
            .entry(form)
            .or_default()
            .push(Deferred {
                node,
                size,
                links,
                pagination,
                forms,
            });
    }

    /// Counts an answer (any outcome) to a submission; analyses the form once all are in.
    pub(super) fn answered(&mut self, node: u32) {
        let Some(f) = self.state.map.nodes[node as usize].form else {
            return;
        };
        let Some(form) = self.state.map.forms.get(f as usize) else {
            return;
        };
        if form.state != FormState::Submitted || !form.submissions.iter().any(|s| s.node == node) {
            return;
        }
        let total = form.submissions.len();
        let n = self.state.forms.answered.entry(f).or_insert(0);
        *n += 1;
        if *n >= total {
            self.analyse(f);
        }
    }

    /// Analyses every form still waiting (the frontier ran dry before all answers came, e.g.
    /// some submissions were disallowed). Returns whether any was analysed.
    pub(super) fn analyse_pending(&mut self) -> bool {
        let pending: Vec<u32> = self
            .state
            .map
            .forms
            .iter()
            .enumerate()
            .filter(|(_, f)| f.state == FormState::Submitted)
            .map(|(i, _)| i as u32)
            .collect();
        for &f in &pending {
            self.analyse(f);
        }
        !pending.is_empty()
    }

    /// The node `node` duplicates, through chains of duplicates (a response identical to an
    /// earlier response that was itself a page met before); `node` itself when it is none.
    fn original(&self, node: u32) -> u32 {
        let mut n = node;
        // Bounded: a chain cannot be longer than the map.
        for _ in 0..self.state.map.nodes.len() {
            match self.state.map.nodes.get(n as usize).map(|x| &x.state) {
                Some(NodeState::Duplicate { of }) if *of != n => n = *of,
                _ => break,
            }
        }
        n
    }

    /// Thesis §4.3: the largest share of the responses is expanded (with sampled links), the
    /// rest falls out.
    fn analyse(&mut self, f: u32) {
        let mut responses = self.state.forms.deferred.remove(&f).unwrap_or_default();
        let submissions = self.state.map.forms[f as usize].submissions.len();
        if responses.len() <= 1 && submissions > 1 {
            // Every submission gave one page — this response, or a page met before (a form
            // without an action, whose query the site ignores, gives its own page back): the
            // values change nothing.
            let mut pages = self.state.map.forms[f as usize]
                .submissions
                .iter()
                .map(|s| match self.original(s.node) {
                    n if n != s.node => Some(n),
                    _ if responses.first().is_some_and(|r| r.node == s.node) => Some(s.node),
                    _ => None,
                });
            let first = pages.next().flatten();
            if let Some(page) = first
                && pages.all(|p| p == Some(page))
            {
                self.state.map.forms[f as usize].state = FormState::Ignored { response: page };
                return;
            }
        }
        responses.sort_by(|a, b| b.size.cmp(&a.size).then(a.node.cmp(&b.node)));
        let share = self.state.config.forms.analyse_share.clamp(0.0, 1.0);
        let keep = ((responses.len() as f64 * share).ceil() as usize)
            .max(1)
            .min(responses.len());
        let mut expanded = Vec::new();
        for d in responses.into_iter().take(keep) {
            expanded.push(d.node);
            self.expand_response(d.node, d.links, d.pagination, d.forms);
        }
        self.state.map.forms[f as usize].state = FormState::Analysed { expanded };
    }

    /// Expands a form response (or one of its result pages): pagination within the result-page
    /// budget, a random share of each URLsim group of links, and its own new forms.
    pub(super) fn expand_response(
        &mut self,
        node: u32,
        links: Vec<Option<String>>,
        pagination: Vec<String>,
        forms: Vec<(FormSpec, Vec<String>)>,
    ) {
        let hops = self.state.forms.hops.get(&node).copied().unwrap_or(0);
        let mut chosen: Vec<Option<String>> = Vec::new();
        if hops.saturating_add(1) < self.state.config.forms.max_result_pages {
            let form = self.state.map.nodes[node as usize].form;
            for url in pagination {
                if !self.state.index.contains_key(&url) {
                    let id = self.add_node(&url, node, form);
                    if let Some(id) = id {
                        self.state.forms.hops.insert(id, hops.saturating_add(1));
                    }
                }
                chosen.push(Some(url));
            }
        }
        chosen.extend(self.sample_links(node, links));
        self.expand(node, chosen, forms);
    }

    /// A random `follow_share` (at least one) of each URLsim group of the in-scope links of
    /// the response `node`. The draw depends on the seed and the response's URL alone, not on
    /// the order responses arrived in, so one site gives one map (and one pattern) whatever
    /// the network's timing.
    fn sample_links(&self, node: u32, links: Vec<Option<String>>) -> Vec<Option<String>> {
        let mut urls: Vec<String> = Vec::new();
        for u in links.into_iter().flatten() {
            if self.scope.contains(&u) && !urls.contains(&u) {
                urls.push(u);
            }
        }
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        let groups = url_pattern::group(&refs, url_pattern::DEFAULT_K);
        let share = self.state.config.forms.follow_share.clamp(0.0, 1.0);
        let url = self
            .state
            .map
            .nodes
            .get(node as usize)
            .map_or("", |n| n.url.as_str());
        let mut rng =
            XorShift::new(self.state.config.forms.seed ^ canon::bytes_signature(url.as_bytes()));
        let mut keep = vec![false; urls.len()];
        for mut g in groups {
            let n = ((g.len() as f64 * share).ceil() as usize)
                .max(1)
                .min(g.len());
            for i in 0..n {
                let j = i + rng.below(g.len() - i);
                g.swap(i, j);
                keep[g[i]] = true;
            }
        }
        urls.into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(u, _)| Some(u))
            .collect()
    }

    /// A node for `url` reached from `parent` (queued when within the limits); None when the
    /// trap guard refuses it.
    fn add_node(&mut self, url: &str, parent: u32, form: Option<u32>) -> Option<u32> {
        if let Some(reason) = self.state.traps.check(url) {
            self.state.progress.skipped += 1;
            self.events.push_back(Event::Skipped {
                url: url.to_string(),
                reason: format!("trap guard: {reason:?}"),
            });
            return None;
        }
        let depth = self.state.map.nodes[parent as usize]
            .depth
            .saturating_add(1);
        let id = self.state.map.nodes.len() as u32;
        self.shapes
            .found(&self.state.map.nodes[parent as usize].url);
        self.state.map.nodes.push(Node {
            url: url.to_string(),
            parent: Some(parent),
            depth,
            state: NodeState::Discovered,
            similarity: None,
            unplaced: None,
            title: String::new(),
            heading: String::new(),
            lang: String::new(),
            links: Vec::new(),
            form,
        });
        self.state.index.insert(url.to_string(), id);
        if depth <= self.state.config.max_depth && self.state.stopped.is_none() {
            self.state.frontier.push(
                url.to_string(),
                Item {
                    node: id,
                    script: false,
                    sitemap: false,
                },
            );
        }
        Some(id)
    }

    /// Whether the response `node` is a step of its form rather than a result: the answer to
    /// a submission that carries the same form with selects it filled
    /// ([`forms::filled_selects`]; a postback application's select of an author's tags). The
    /// form on the answer — its choices kept, its view state and hidden fields as the
    /// application sent them — is submitted again with those selects enumerated: at most
    /// [`FormsConfig::max_submissions`] such submissions per form, spread over its responses
    /// (one each at least). Their answers are not stepped from again.
    pub(super) fn chain_step(&mut self, node: u32, page: &Page) -> bool {
        if !self.state.config.forms.enabled {
            return false;
        }
        let Some(f) = self.state.map.nodes[node as usize].form else {
            return false;
        };
        let Some(form) = self.state.map.forms.get(f as usize) else {
            return false;
        };
        // A submission made from the form's page (not a result page, not a chained one).
        if !form
            .submissions
            .iter()
            .any(|s| s.node == node && !s.chained)
        {
            return false;
        }
        let key = form_key(&form.spec);
        let Some(spec) = forms::valid_forms(page)
            .into_iter()
            .find(|s| form_key(s) == key)
        else {
            return false;
        };
        let dependent = forms::filled_selects(&form.spec, &spec);
        if dependent.is_empty() {
            return false;
        }
        let cap = self.state.config.forms.max_submissions;
        let first = form
            .submissions
            .iter()
            .filter(|s| !s.chained)
            .count()
            .max(1);
        let made = form.submissions.iter().filter(|s| s.chained).count();
        let here = (cap / first).max(1).min(cap.saturating_sub(made));
        // Only the filled selects vary; every other field keeps the answer's value.
        let mut only = spec.clone();
        only.fields
            .retain(|x| !x.is_choice() || dependent.contains(&x.name));
        // Made from the step, but hung under the form's page in the map, beside the other
        // submissions: a crawl reaches them by submitting the form there (the step is part of
        // the form's level, [`crate::pattern::FormLevel::dependent`]), not by a level of steps.
        let page_node = form.page;
        let mut combos = query::Enumeration::new(&only, here);
        let mut subs = Vec::new();
        while let Some(values) = combos.next_values() {
            let pairs: Vec<(&str, &str)> = values
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            let Some(url) = spec.submission(&pairs).ok().and_then(|sub| {
                let url = canon::canonicalize(&sub.url)?;
                Some(match &sub.body {
                    Some(body) => crate::fetch::post_key(&url, body),
                    None => url,
                })
            }) else {
                continue;
            };
            if !self.scope.contains(&url) || self.state.index.contains_key(&url) {
                continue;
            }
            if let Some(id) = self.add_node(&url, page_node, Some(f)) {
                subs.push(Submitted {
                    node: id,
                    values,
                    chained: true,
                });
            }
        }
        let form = &mut self.state.map.forms[f as usize];
        for d in dependent {
            if !form.dependent.contains(&d) {
                form.dependent.push(d);
            }
        }
        form.steps.push(node);
        let links = &mut self.state.map.nodes[page_node as usize].links;
        links.extend(subs.iter().map(|s| s.node));
        form.submissions.extend(subs);
        true
    }

    /// Submits the new forms found on `node`'s page; returns the submission nodes (links of
    /// the page in the map).
    pub(super) fn submit_forms(
        &mut self,
        node: u32,
        found: Vec<(FormSpec, Vec<String>)>,
    ) -> Vec<u32> {
        let mut out = Vec::new();
        for (spec, terms) in found {
            let key = form_key(&spec);
            if self.state.forms.keys.contains_key(&key) {
                continue;
            }
            // Checked again here: a form response's forms are submitted after its form's
            // analysis, when a form of the same shape may have been met meanwhile.
            if let Some(first) = self.repeat_of(&spec) {
                if let Some(m) = self.state.map.forms.get_mut(first as usize) {
                    m.repeated = m.repeated.saturating_add(1);
                }
                continue;
            }
            let f = self.state.map.forms.len() as u32;
            self.state.forms.keys.insert(key, f);
            if let Some(shape) = self_shape(&spec) {
                self.state.forms.shapes.entry(shape).or_insert(f);
            }
            let mut form = MappedForm {
                page: node,
                spec,
                terms,
                seeds: self.seeds.clone(),
                submissions: Vec::new(),
                repeated: 0,
                dependent: Vec::new(),
                steps: Vec::new(),
                state: FormState::Submitted,
            };
            let submitted = self
                .state
                .map
                .forms
                .iter()
                .filter(|f| !f.submissions.is_empty())
                .count();
            let skip = if submitted >= self.state.config.forms.max_forms {
                Some(FORM_LIMIT_REACHED)
            } else {
                None
            };
            if let Some(reason) = skip {
                self.events.push_back(Event::Skipped {
                    url: form.spec.action.clone(),
                    reason: format!("form not submitted: {reason}"),
                });
                form.state = FormState::Skipped {
                    reason: reason.into(),
                };
                // Never submitted: its values are not kept (a site of many forms would
                // otherwise hold the example's seeds once per form).
                form.terms = Vec::new();
                form.seeds = Vec::new();
                self.state.map.forms.push(form);
                continue;
            }
            self.state.map.forms.push(form);
            let spec = self.state.map.forms[f as usize].spec.clone();
            let terms = self.state.map.forms[f as usize].terms.clone();
            let plan = query::plan(&spec, &terms, self.state.config.forms.max_submissions);
            let mut subs = Vec::new();
            for values in plan {
                let pairs: Vec<(&str, &str)> = values
                    .iter()
                    .map(|(n, v)| (n.as_str(), v.as_str()))
                    .collect();
                let Ok(sub) = spec.submission(&pairs) else {
                    continue;
                };
                let Some(url) = canon::canonicalize(&sub.url) else {
                    continue;
                };
                // A POST is keyed by its action and body (see `fetch::post_key`).
                let url = match &sub.body {
                    Some(body) => crate::fetch::post_key(&url, body),
                    None => url,
                };
                if !self.scope.contains(&url) || self.state.index.contains_key(&url) {
                    continue;
                }
                if let Some(id) = self.add_node(&url, node, Some(f)) {
                    subs.push(Submitted {
                        node: id,
                        values,
                        chained: false,
                    });
                    out.push(id);
                }
            }
            if subs.is_empty() {
                self.state.map.forms[f as usize].state = FormState::Skipped {
                    reason: "no submission could be built in scope".into(),
                };
            }
            self.state.map.forms[f as usize].submissions = subs;
        }
        out
    }
}
