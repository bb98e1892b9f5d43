//! Form levels of a pattern (thesis `004` §4.4; design §6): a level reached by submitting a
//! form is a *template* — the form's action with its fixed fields and a free-text field to fill
//! (`/cgi-bin/omega?DB=pg&P=*`) — with the values that led to targets while learning and the
//! query policy and budget a crawl uses. The level's regex is derived from the template so that
//! any query's result pages, and their pagination, belong to it.
use std::cell::OnceCell;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::{Level, PatternError};
use crate::dom::ControlKind;
use crate::forms::{FormSpec, Method};
use crate::map::{FormState, NodeState, SiteMap};
use crate::url_pattern;

/// Queries a crawl issues per form level unless told otherwise.
pub const DEFAULT_BUDGET: usize = 100;
/// Result pages read per query unless told otherwise (the first included): 100 results at
/// 10 per page.
pub const DEFAULT_RESULT_PAGES: u32 = 10;

/// Where a crawl's query terms come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QueryPolicy {
    /// The level's `values` (those that worked while learning, or the user's).
    Values,
    /// The thesis's: the least frequent terms of the example and the form page.
    Thesis,
    /// A general-language frequency list, most frequent first.
    GenericFrequency,
    /// Random words of that list (the baseline).
    Random,
    /// The paper's adaptive policy, learning from the documents each query returns.
    Adaptive,
}

impl QueryPolicy {
    /// The policy named `s` (`values`, `thesis`, `generic-frequency`, `random`, `adaptive`).
    ///
    /// # Errors
    /// An unknown name, with the known ones.
    pub fn parse(s: &str) -> Result<QueryPolicy, String> {
        Ok(match s {
            "values" => QueryPolicy::Values,
            "thesis" => QueryPolicy::Thesis,
            "generic-frequency" | "genericFrequency" | "generic" => QueryPolicy::GenericFrequency,
            "random" => QueryPolicy::Random,
            "adaptive" => QueryPolicy::Adaptive,
            _ => {
                return Err(format!(
                    "unknown query policy {s:?} (values, thesis, generic-frequency, random, adaptive)"
                ));
            }
        })
    }

    /// Its name as [`QueryPolicy::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            QueryPolicy::Values => "values",
            QueryPolicy::Thesis => "thesis",
            QueryPolicy::GenericFrequency => "generic-frequency",
            QueryPolicy::Random => "random",
            QueryPolicy::Adaptive => "adaptive",
        }
    }
}

/// A level reached through a form. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormLevel {
    /// Readable template: the action path with fixed fields and `*` for filled ones.
    pub template: String,
    /// The form as found on the site, each select and radio group set to the choice that led
    /// to targets while learning (a crawl keeps it: [`FormSpec::pairs`] sends the defaults).
    pub form: FormSpec,
    /// The free-text field queries fill (None: only choice fields, enumerated).
    #[serde(default)]
    pub query_field: Option<String>,
    /// Text values that led to targets while learning (the `values` policy's list).
    #[serde(default)]
    pub values: Vec<String>,
    /// The thesis's values.
    #[serde(default)]
    pub thesis_terms: Vec<String>,
    /// The adaptive policy's first queries: the example's most frequent terms.
    #[serde(default)]
    pub seeds: Vec<String>,
    /// The policy a crawl uses unless told otherwise.
    #[serde(default = "default_policy")]
    pub policy: QueryPolicy,
    /// Queries a crawl issues at most.
    #[serde(default = "default_budget")]
    pub budget: usize,
    /// Result pages read per query, the first included.
    #[serde(default = "default_result_pages")]
    pub max_result_pages: u32,
    /// Selects an answer fills ([`crate::map::MappedForm::dependent`]): an answer whose form
    /// has them filled is a step, submitted again with each of their choices; its answers are
    /// the results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependent: Vec<String>,
}

fn default_policy() -> QueryPolicy {
    QueryPolicy::Adaptive
}

fn default_budget() -> usize {
    DEFAULT_BUDGET
}

fn default_result_pages() -> u32 {
    DEFAULT_RESULT_PAGES
}

impl FormLevel {
    /// Checks what the types cannot say.
    ///
    /// # Errors
    /// A GET form without an http(s) action, a query field the form lacks, a zero budget or
    /// result-page count.
    pub fn validate(&self, level: usize) -> Result<(), PatternError> {
        let err = |m: String| Err(PatternError(format!("level {level}: form: {m}")));
        match url::Url::parse(&self.form.action) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return err(format!(
                    "action {:?} is not an http(s) URL",
                    self.form.action
                ));
            }
        }
        if let Some(q) = &self.query_field
            && !self.form.fields.iter().any(|f| &f.name == q)
        {
            return err(format!("query field {q:?} is not a field of the form"));
        }
        if self.budget == 0 || self.max_result_pages == 0 {
            return err("budget and maxResultPages must be at least 1".into());
        }
        Ok(())
    }

    /// The regex of the level: GET requests to the action that carry the query field (any
    /// value, any other fields, in any order).
    pub fn regex(&self) -> String {
        let action = self.form.action.split(['?', '#']).next().unwrap_or("");
        let action = crate::canon::canonicalize(action).unwrap_or_else(|| action.to_string());
        let action = action.split('?').next().unwrap_or("");
        // GET: the query string; POST: the key's body (`fetch::post_key`).
        let sep = match self.form.method {
            Method::Get => "\\?".to_string(),
            Method::Post => url_pattern::escape(crate::fetch::POST_MARK),
        };
        match &self.query_field {
            Some(q) => {
                let mut name = String::new();
                crate::forms::urlencode_into(&mut name, q);
                format!(
                    "^{}{sep}(?:.*&)?{}=.*$",
                    url_pattern::escape(action),
                    url_pattern::escape(&name)
                )
            }
            None => format!("^{}{sep}.*$", url_pattern::escape(action)),
        }
    }
}

/// `spec` with each select and radio group set to the value most of the submissions that worked
/// gave it (`worked`: their pairs; of equal counts the default, else the first seen), when it
/// is one of its options (a multiple select to that one option when no other is as frequent:
/// learning submits one at a time), and each checkbox checked or not as most of them had it (of equal counts, its
/// default). A crawl's queries fill the query field and keep the other fields'
/// defaults, and learning saw which choices reach targets: Datasette's filter operator lists
/// nothing for a word by default (`=`), the whole table with "is not"; learning submits every
/// checkbox checked, which a crawl with the defaults would not.
fn with_working_choices(spec: &FormSpec, worked: &[&[(String, String)]]) -> FormSpec {
    let mut out = spec.clone();
    let mut names: Vec<&str> = Vec::new();
    for f in &spec.fields {
        let choice = f.kind == ControlKind::Select || f.kind == ControlKind::Radio;
        if choice && !f.name.is_empty() && !f.disabled && !names.contains(&f.name.as_str()) {
            names.push(&f.name);
        }
    }
    for name in names {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for (_, v) in worked
            .iter()
            .flat_map(|pairs| pairs.iter())
            .filter(|(k, _)| k == name)
        {
            match counts.iter_mut().find(|(c, _)| *c == v) {
                Some((_, n)) => *n += 1,
                None => counts.push((v, 1)),
            }
        }
        // The first of the most frequent (`max_by_key` takes the last), unless the default is
        // as frequent.
        let Some(&(best, most)) = counts.iter().rev().max_by_key(|(_, n)| *n) else {
            continue;
        };
        // The default: a select's value (a multiple select's selected options), the checked
        // radio's.
        let defaults: Vec<&str> = match spec
            .fields
            .iter()
            .find(|f| f.name == name && (f.kind == ControlKind::Select || f.checked))
        {
            Some(f) if f.multiple => f.selected.iter().map(String::as_str).collect(),
            Some(f) => vec![f.value.as_str()],
            None => Vec::new(),
        };
        if counts
            .iter()
            .any(|&(v, n)| defaults.contains(&v) && n == most)
        {
            continue;
        }
        let radio_has = |v: &str| {
            spec.fields
                .iter()
                .any(|f| f.kind == ControlKind::Radio && f.name == name && f.value == v)
        };
        for f in out.fields.iter_mut().filter(|f| f.name == name) {
            match f.kind {
                // Learning submits one option of a multiple select at a time; options as
                // frequent (a form of choices only, enumerated) leave its defaults.
                ControlKind::Select if f.multiple => {
                    let alone = counts.iter().filter(|&&(_, n)| n == most).count() == 1;
                    if alone && f.options.iter().any(|o| o == best) {
                        f.selected = vec![best.to_string()];
                    }
                }
                ControlKind::Select if f.options.iter().any(|o| o == best) => {
                    f.value = best.to_string();
                }
                ControlKind::Radio if radio_has(best) => f.checked = f.value == best,
                _ => {}
            }
        }
    }
    if !worked.is_empty() {
        for f in out
            .fields
            .iter_mut()
            .filter(|f| f.kind == ControlKind::Checkbox && !f.name.is_empty() && !f.disabled)
        {
            let value = if f.value.is_empty() { "on" } else { &f.value };
            let on = worked
                .iter()
                .filter(|pairs| pairs.iter().any(|(k, v)| *k == f.name && v == value))
                .count();
            let off = worked.len() - on;
            if on != off {
                f.checked = on > off;
            }
        }
    }
    out
}

/// The readable template of a form: action path, fixed fields with their values, filled fields
/// as `*`.
pub fn template(spec: &FormSpec, query_field: Option<&str>) -> String {
    let path = url::Url::parse(&spec.action)
        .map(|u| u.path().to_string())
        .unwrap_or_else(|_| spec.action.clone());
    let mut parts: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for f in &spec.fields {
        if f.name.is_empty()
            || f.disabled
            || matches!(
                f.kind,
                ControlKind::Submit | ControlKind::Image | ControlKind::Button | ControlKind::File
            )
            || !seen.insert(f.name.as_str())
        {
            continue;
        }
        let filled = Some(f.name.as_str()) == query_field || f.is_choice();
        let mut part = String::new();
        crate::forms::urlencode_into(&mut part, &f.name);
        part.push('=');
        if filled {
            part.push('*');
        } else {
            crate::forms::urlencode_into(&mut part, &f.value);
        }
        parts.push(part);
    }
    format!("{path}?{}", parts.join("&"))
}

/// Turns the levels reached through a mapped form into form levels: for each non-last level,
/// the form most of whose submissions (and result pages) the level's regexes match. The values
/// that worked are those of submissions with a target below them in the map's breadth-first
/// tree.
///
/// A form is one level, the first it matches: its submissions and result pages also sit one level
/// deeper when their links reach the targets only through another page, but the template level
/// already issues them (and pages through the results), so deeper levels lose the alternatives
/// matching the form's URLs — and a level left with none is removed.
///
/// One [`Annotator`] serves every candidate level set learned from one map: what depends on the
/// map alone (the submissions that worked, the target level generalised over the whole map) is
/// computed once, on first use.
pub(super) struct Annotator<'a> {
    map: &'a SiteMap,
    parents: &'a [Option<u32>],
    max_exclusions: f64,
    worked: OnceCell<HashSet<u32>>,
    strict: OnceCell<super::Generalised>,
}

impl<'a> Annotator<'a> {
    /// For levels learned from `map`, whose breadth-first tree has these `parents`, with
    /// [`super::LearnConfig::max_exclusions`].
    pub(super) fn new(
        map: &'a SiteMap,
        parents: &'a [Option<u32>],
        max_exclusions: f64,
    ) -> Annotator<'a> {
        Annotator {
            map,
            parents,
            max_exclusions,
            worked: OnceCell::new(),
            strict: OnceCell::new(),
        }
    }

    /// Submission nodes under which a target lies.
    fn worked(&self) -> &HashSet<u32> {
        self.worked.get_or_init(|| {
            let (map, parents) = (self.map, self.parents);
            let mut worked = HashSet::new();
            for (t, node) in map.nodes.iter().enumerate() {
                if node.state != NodeState::Target {
                    continue;
                }
                let mut cur = t as u32;
                let mut guard = 0;
                while let Some(p) = parents.get(cur as usize).copied().flatten() {
                    guard += 1;
                    if guard > map.nodes.len() {
                        break;
                    }
                    if map.nodes[cur as usize].form.is_some() {
                        worked.insert(cur);
                    }
                    cur = p;
                }
            }
            worked
        })
    }

    /// Result pages link any document of the site, not only what the levels' pages linked
    /// while the target regexes were generalised: the target level is generalised again
    /// against every fetched page that is not a target, so no document a query returns is
    /// taken for a target; as for any level, a few known negatives are listed as exclusions
    /// rather than split around (gitweb's two merge commits below the threshold cut its commit
    /// hashes into 36 regexes by first letters). By URL, not by node id: ids follow the order
    /// responses arrived in, and the regexes' order follows their input's.
    fn strict_targets(&self) -> &super::Generalised {
        self.strict.get_or_init(|| {
            let map = self.map;
            let mut pos: Vec<&str> = map
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Target)
                .map(|n| n.url.as_str())
                .collect();
            pos.sort_unstable();
            let mut neg: Vec<&str> = map
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Page && n.form.is_none())
                .map(|n| n.url.as_str())
                .collect();
            neg.sort_unstable();
            super::generalise_excluding(&pos, &neg, url_pattern::DEFAULT_K, self.max_exclusions)
        })
    }

    /// See the type's docs.
    pub(super) fn annotate(&self, levels: &mut Vec<Level>) -> Result<(), PatternError> {
        annotate(levels, self)
    }
}

fn annotate(levels: &mut Vec<Level>, with: &Annotator<'_>) -> Result<(), PatternError> {
    let map = with.map;
    if map.forms.is_empty() || levels.is_empty() {
        return Ok(());
    }
    let n = levels.len();
    let compiled = super::Compiled::from_levels(levels)?;
    let worked = with.worked();
    let mut attached: HashSet<usize> = HashSet::new();
    // The target level is a form's level when most targets are that form's answers (an example
    // that is a form's answer to a POST): the crawl submits the form to reach them.
    let answers = |f: usize| {
        let targets = map.nodes.iter().filter(|nd| nd.state == NodeState::Target);
        let (mut all, mut ours) = (0usize, 0usize);
        for nd in targets {
            all += 1;
            ours += usize::from(nd.form == Some(f as u32));
        }
        ours > 0 && ours * 2 > all
    };
    for (i, level) in levels.iter_mut().enumerate() {
        let last = i + 1 == n;
        let mut best: Option<(usize, usize)> = None;
        for (f, form) in map.forms.iter().enumerate() {
            if !matches!(form.state, FormState::Analysed { .. }) {
                continue;
            }
            let hits = map
                .nodes
                .iter()
                .filter(|nd| {
                    // A POST key's level regex may have been generalised from its action.
                    let action = crate::fetch::split_post_key(&nd.url).0;
                    nd.form == Some(f as u32)
                        && (compiled.matches_level(i, &nd.url) || compiled.matches_level(i, action))
                })
                .count();
            if hits > 0 && (!last || answers(f)) && best.is_none_or(|(_, h)| hits > h) {
                best = Some((f, hits));
            }
        }
        let Some((f, _)) = best else {
            continue;
        };
        let ours = |r: &String| {
            regex::Regex::new(r).is_ok_and(|re| {
                map.nodes.iter().any(|nd| {
                    nd.form == Some(f as u32)
                        && (re.is_match(&nd.url)
                            || re.is_match(crate::fetch::split_post_key(&nd.url).0))
                })
            })
        };
        if attached.contains(&f) {
            level.regexes.retain(|r| !ours(r));
            continue;
        }
        attached.insert(f);
        let form = &map.forms[f];
        let query_field = form.spec.query_field().map(|fl| fl.name.clone());
        let mut values: Vec<String> = Vec::new();
        let mut worked_pairs: Vec<&[(String, String)]> = Vec::new();
        for s in &form.submissions {
            if !worked.contains(&s.node) {
                continue;
            }
            worked_pairs.push(&s.values);
            if let Some(q) = &query_field
                && let Some((_, v)) = s.values.iter().find(|(k, _)| k == q)
                && !values.contains(v)
            {
                values.push(v.clone());
            }
        }
        let fl = FormLevel {
            template: template(&form.spec, query_field.as_deref()),
            form: with_working_choices(&form.spec, &worked_pairs),
            query_field,
            values,
            thesis_terms: form.terms.clone(),
            seeds: form.seeds.clone(),
            policy: QueryPolicy::Adaptive,
            budget: DEFAULT_BUDGET,
            max_result_pages: DEFAULT_RESULT_PAGES,
            dependent: form.dependent.clone(),
        };
        // The template's regex replaces the alternatives that matched this form's URLs; any
        // other page kind on the level keeps its own.
        let mut regexes = vec![fl.regex()];
        regexes.extend(level.regexes.iter().filter(|r| !ours(r)).cloned());
        level.regexes = regexes;
        level.paginate = true;
        level.form = Some(fl);
    }
    if attached.is_empty() {
        return Ok(());
    }
    // Levels emptied above go; the target level always stays.
    let last = levels.len() - 1;
    let mut i = 0;
    levels.retain(|l| {
        i += 1;
        i - 1 == last || !l.regexes.is_empty()
    });
    // The target level, generalised over the whole map ([`Annotator::strict_targets`]).
    let strict = with.strict_targets();
    if let Some(target) = levels.last_mut()
        && target.form.is_none()
        && !strict.regexes.is_empty()
    {
        target.regexes.clone_from(&strict.regexes);
        target.exclude.clone_from(&strict.exclude);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Page;

    fn omega() -> FormSpec {
        let page = Page::from_html(
            include_str!("../../../../tests/fixtures/forms/omega-results.html"),
            "http://127.0.0.1:8080/cgi-bin/omega?DB=pg&P=vacuum",
        )
        .expect("parses");
        crate::forms::valid_forms(&page).remove(0)
    }

    /// The first form of a page at `http://h/` made of `html`.
    fn form_of(html: &str) -> FormSpec {
        let page = Page::from_html(html, "http://h/").expect("parses");
        crate::forms::valid_forms(&page).remove(0)
    }

    #[test]
    fn the_choices_that_worked_become_the_defaults() {
        let spec = form_of(
            "<form action=/s><select name=op><option>exact<option>not</select>\
             <input type=radio name=in value=title checked><input type=radio name=in value=body>\
             <select name=lang><option>en<option>pt</select><input name=q></form>",
        );
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        let a = vec![pair("op", "not"), pair("in", "body"), pair("lang", "pt")];
        let b = vec![pair("op", "not"), pair("in", "title"), pair("lang", "en")];
        let c = vec![pair("op", "exact"), pair("in", "body"), pair("lang", "xx")];
        let set = with_working_choices(&spec, &[&a, &b, &c]);
        // The most frequent value; of a tie the default, else the first seen; never a value
        // the field lacks.
        assert_eq!(
            set.pairs(&[("q", "w")]),
            [
                pair("op", "not"),
                pair("in", "body"),
                pair("lang", "en"),
                pair("q", "w")
            ]
        );
        let d = vec![pair("lang", "pt")];
        let set = with_working_choices(&spec, &[&d, &c]);
        assert_eq!(set.pairs(&[]).get(2), Some(&pair("lang", "pt")));
        let none = with_working_choices(&spec, &[&[pair("lang", "xx")]]);
        assert_eq!(none, spec, "nothing usable worked: the defaults stay");

        // Checkboxes as most of the submissions that worked had them; of a tie, the default.
        let spec = form_of(
            "<form action=/s><input type=checkbox name=all value=1>\
             <input type=checkbox name=exact checked><input type=checkbox name=x value=y>\
             <input name=q></form>",
        );
        assert_eq!(
            spec.pairs(&[("q", "w")]),
            [pair("exact", "on"), pair("q", "w")]
        );
        let a = vec![pair("all", "1"), pair("x", "y")];
        let b = vec![pair("all", "1"), pair("exact", "on")];
        let c = vec![pair("all", "1"), pair("x", "y")];
        let set = with_working_choices(&spec, &[&a, &b, &c, &c]);
        assert_eq!(
            set.pairs(&[("q", "w")]),
            [pair("all", "1"), pair("x", "y"), pair("q", "w")],
            "all: 4 of 4; exact: 1 of 4; x: 3 of 4"
        );
        let set = with_working_choices(&spec, &[&b, &[pair("x", "y")]]);
        assert_eq!(
            set.pairs(&[]),
            [pair("exact", "on"), pair("q", "")],
            "all, exact and x: 1 of 2 each, so their defaults"
        );

        // A multiple select: the option most of them had, unless a default one is as frequent.
        let spec = form_of(
            "<form action=/s><select name=cat multiple><option>a<option selected>b<option>c\
             </select><input name=q></form>",
        );
        assert_eq!(
            spec.pairs(&[("q", "w")]),
            [pair("cat", "b"), pair("q", "w")]
        );
        let (a, b, c) = (
            vec![pair("cat", "a")],
            vec![pair("cat", "b")],
            vec![pair("cat", "c")],
        );
        let set = with_working_choices(&spec, &[&c, &a, &c]);
        assert_eq!(set.pairs(&[("q", "w")]), [pair("cat", "c"), pair("q", "w")]);
        assert_eq!(with_working_choices(&spec, &[&c, &b]), spec);
        assert_eq!(
            with_working_choices(&spec, &[&c, &a]),
            spec,
            "a tie: the defaults"
        );
    }

    fn level(query_field: Option<&str>) -> FormLevel {
        FormLevel {
            template: String::new(),
            form: omega(),
            query_field: query_field.map(str::to_string),
            values: vec![],
            thesis_terms: vec![],
            seeds: vec![],
            policy: QueryPolicy::Adaptive,
            budget: 10,
            max_result_pages: 10,
            dependent: vec![],
        }
    }

    #[test]
    fn template_fills_the_query_and_choice_fields_and_keeps_fixed_ones() {
        let t = template(&omega(), Some("P"));
        assert!(t.starts_with("/cgi-bin/omega?P=*&DEFAULTOP=*"), "{t}");
        assert!(t.contains("DB=pg") && t.contains("FMT=query"), "{t}");
        // Submit buttons (the pagination) are not part of the template.
        assert!(!t.contains("%5B"), "{t}");
    }

    #[test]
    fn the_level_regex_takes_any_query_and_its_pagination_but_not_the_form_page() {
        let re = regex::Regex::new(&level(Some("P")).regex()).expect("compiles");
        assert!(re.is_match("http://127.0.0.1:8080/cgi-bin/omega?P=index&DB=pg"));
        assert!(re.is_match("http://127.0.0.1:8080/cgi-bin/omega?DB=pg&P=a+b&%5B=3"));
        assert!(!re.is_match("http://127.0.0.1:8080/cgi-bin/omega?DB=pg"));
        assert!(!re.is_match("http://127.0.0.1:8080/pg/index.html"));
        let any = regex::Regex::new(&level(None).regex()).expect("compiles");
        assert!(any.is_match("http://127.0.0.1:8080/cgi-bin/omega?DB=pg"));
    }

    #[test]
    fn validation_names_the_problem() {
        let mut l = level(Some("nope"));
        assert!(l.validate(1).unwrap_err().0.contains("query field"));
        l.query_field = Some("P".into());
        assert!(l.validate(1).is_ok());
        l.budget = 0;
        assert!(l.validate(1).unwrap_err().0.contains("budget"));
        l.budget = 1;
        l.form.method = Method::Post;
        assert!(l.validate(1).is_ok());
        let re = regex::Regex::new(&l.regex()).expect("compiles");
        assert!(re.is_match("http://127.0.0.1:8080/cgi-bin/omega#exemplar-post=DB=pg&P=x"));
        assert!(!re.is_match("http://127.0.0.1:8080/cgi-bin/omega?DB=pg&P=x"));
    }

    /// The target level is generalised again over the map's pages (result pages link any
    /// document): its regexes must come out in one order whatever ids the pages got, and ids
    /// follow the order responses arrived in.
    #[test]
    fn target_regexes_do_not_depend_on_node_ids() {
        use crate::map::{MappedForm, Node, Submitted};
        let base = "http://127.0.0.1:8080";
        let node = |url: String, state: NodeState, links: Vec<u32>, form: Option<u32>| Node {
            url,
            parent: Some(0),
            depth: 1,
            state,
            similarity: Some(0.5),
            unplaced: None,
            title: String::new(),
            heading: String::new(),
            lang: String::new(),
            links,
            form,
        };
        // Targets of two names, and a page whose name the pair's common regex would match.
        let docs = ["sql-x", "app-y", "sql-z", "app-w", "abc-d"];
        let map_with = |order: &[usize]| {
            let doc_ids: Vec<u32> = (0..docs.len()).map(|i| 3 + order[i] as u32).collect();
            let mut nodes = vec![
                node(
                    format!("{base}/cgi-bin/omega?DB=pg"),
                    NodeState::Page,
                    vec![1, 2],
                    None,
                ),
                node(
                    format!("{base}/cgi-bin/omega?P=a&DB=pg"),
                    NodeState::Page,
                    doc_ids.clone(),
                    Some(0),
                ),
                node(
                    format!("{base}/cgi-bin/omega?P=b&DB=pg"),
                    NodeState::Page,
                    doc_ids.clone(),
                    Some(0),
                ),
            ];
            let mut placed: Vec<(u32, Node)> = docs
                .iter()
                .zip(&doc_ids)
                .map(|(d, &id)| {
                    let state = if d.starts_with("abc") {
                        NodeState::Page
                    } else {
                        NodeState::Target
                    };
                    (id, node(format!("{base}/pg/{d}.html"), state, vec![], None))
                })
                .collect();
            placed.sort_by_key(|(id, _)| *id);
            nodes.extend(placed.into_iter().map(|(_, n)| n));
            SiteMap {
                entry: format!("{base}/cgi-bin/omega?DB=pg"),
                example: format!("{base}/pg/sql-x.html"),
                threshold: 0.875,
                place_weight: 0.0,
                nodes,
                forms: vec![MappedForm {
                    page: 0,
                    spec: omega(),
                    terms: vec![],
                    seeds: vec![],
                    submissions: ["a", "b"]
                        .iter()
                        .enumerate()
                        .map(|(i, v)| Submitted {
                            node: 1 + i as u32,
                            values: vec![("P".into(), (*v).into())],
                            chained: false,
                        })
                        .collect(),
                    repeated: 0,
                    dependent: Vec::new(),
                    steps: Vec::new(),
                    state: FormState::Analysed {
                        expanded: vec![1, 2],
                    },
                }],
                target_links: false,
                scripted: Default::default(),
                sitemaps: vec![],
                sitemap_links: vec![],
                continued: Default::default(),
                listings: Default::default(),
                paged: Default::default(),
            }
        };
        let target_regexes = |map: &SiteMap| {
            let level = super::super::level;
            let mut levels = vec![
                level(r"^http://127\.0\.0\.1:8080/cgi-bin/omega\?P=[a-z]&DB=pg$"),
                level(r"^http://127\.0\.0\.1:8080/pg/(sql|app)-[a-z]\.html$"),
            ];
            let parents: Vec<Option<u32>> = map.nodes.iter().map(|n| n.parent).collect();
            Annotator::new(map, &parents, super::super::DEFAULT_MAX_EXCLUSIONS)
                .annotate(&mut levels)
                .expect("annotates");
            assert!(levels[0].form.is_some(), "{levels:?}");
            (levels[1].regexes.clone(), levels[1].exclude.clone())
        };
        let forwards = target_regexes(&map_with(&[0, 1, 2, 3, 4]));
        // One regex; the one known negative it matches is listed.
        assert_eq!(forwards.0.len(), 1, "{forwards:?}");
        assert_eq!(forwards.1.len(), 1, "{forwards:?}");
        assert_eq!(target_regexes(&map_with(&[3, 2, 1, 0, 4])), forwards);
        assert_eq!(target_regexes(&map_with(&[1, 0, 3, 2, 4])), forwards);
    }

    /// A search form's level and the level of its results are entered by queries only: a link
    /// from a page above never skips into them ([`super::super::Compiled::step`]), though it
    /// matches; a deeper level past them it may.
    #[test]
    fn links_never_skip_into_a_form_level_or_its_results() {
        use super::super::{Compiled, Step, level as plain};
        let mut levels = vec![
            plain(r"^http://h/start$"),
            plain(r"^http://h/search\?q=.*$"),
            plain(r"^http://h/results/[0-9]+$"),
            plain(r"^http://h/more/[0-9]+$"),
            plain(r"^http://h/item/[0-9]+$"),
        ];
        let c = Compiled::from_levels(&levels).expect("compile");
        let to = |level| {
            Some(Step::Level {
                level,
                paginated: false,
            })
        };
        assert_eq!(c.step(0, "http://h/search?q=x"), to(2), "without a form");
        levels[1].form = Some(level(Some("P")));
        let c = Compiled::from_levels(&levels).expect("compile");
        assert_eq!(
            c.step(0, "http://h/search?q=x"),
            None,
            "into the form's level"
        );
        assert_eq!(
            c.step(0, "http://h/results/1"),
            None,
            "into its results' level"
        );
        assert_eq!(c.step(0, "http://h/more/1"), to(4), "past them");
    }

    #[test]
    fn policy_names_round_trip() {
        for p in [
            QueryPolicy::Values,
            QueryPolicy::Thesis,
            QueryPolicy::GenericFrequency,
            QueryPolicy::Random,
            QueryPolicy::Adaptive,
        ] {
            assert_eq!(QueryPolicy::parse(p.name()), Ok(p));
        }
        assert!(QueryPolicy::parse("clever").is_err());
    }
}
