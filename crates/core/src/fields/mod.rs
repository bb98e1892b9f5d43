//! Fields of the target pages: what varies from item to item in a constant place of the
//! template — a product's name and price, an author's birth date — induced from a sample of
//! target pages, named, given portable selectors, and read from any page of the kind.
//!
//! Sans-IO: the driver hands parsed documents ([`exemplar_html::dom::Document`]). Contract:
//! - [`induce`] aligns the sample by element *places*: the path of an element from the root,
//!   each step its tag, the class tokens that element has on most pages of the sample (a class
//!   that varies, `star-rating Three`, is data, not place), the classes of same-tag siblings
//!   it lacks (`p:not(.mb-0)`), its position among same-tag siblings where the template fixes
//!   how many there are (two paragraphs in a row), none where the number varies (a list's
//!   items: a repeated field), and for a table row, a definition or a list item led by a bold
//!   label, that label instead of a position. A place whose own text varies is a field (a
//!   labelled row's even when it does not); text the template writes before every value up to a
//!   colon and a space ("Price: "), one short unit after it (" kg"), or the kind it names after
//!   each value, one of a few (Doxygen's " Class Reference", " Struct Reference"), is cut off;
//!   one sign repeated (★ ★ ★) is counted. Places in navigation, headers, footers and forms are
//!   left out. The sample is a driver's choice; [`sample_of`] spreads it over a pattern's
//!   targets.
//! - Names come first from what the page declares (microdata `itemprop`, a JSON-LD or meta value
//!   equal to the field's), then from the template's label beside it ("Price", "Born"), the
//!   element's own class names, the values' shape (a price, a date, a long text) and headings.
//! - Each field's [`Field::css`] selects exactly the elements its place matches (empty where a
//!   step is known by its label), [`Field::xpath`] the same; [`extract`] reads a page by the
//!   same place, so the core and a Scrapy spider read the same values. A user's field is placed
//!   by a CSS selector ([`parse_css`], [`Field::by_user`]); the user's edits are [`edit`].
pub mod edit;
mod naming;
mod values;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::dom::dom::Document;
pub use edit::Edit;
pub use naming::key;
pub use values::{Value, ValueKind};

/// Documents of the sample read at most (a sample larger than this is cut).
pub const MAX_SAMPLE: usize = 100;

/// Target pages a learning run reads to induce fields, at most (the example besides).
pub const LEARN_SAMPLE: usize = 30;

/// The pages of `known` (a pattern's known targets) to induce fields from besides the
/// `example`: up to [`LEARN_SAMPLE`], spread evenly over them (a site's first items are often
/// alike: one category, one author).
pub fn sample_of<'a>(known: &'a [String], example: &str) -> Vec<&'a str> {
    let others: Vec<&str> = known
        .iter()
        .map(String::as_str)
        .filter(|u| *u != example)
        .collect();
    spread(&others, LEARN_SAMPLE).into_iter().copied().collect()
}

/// `n` of `items` at most, evenly spread from the first to the last (a stride that is a whole
/// number would leave the end out: 30 of 104 taken every third stop at the 88th).
pub fn spread<T>(items: &[T], n: usize) -> Vec<&T> {
    if items.len() <= n {
        return items.iter().collect();
    }
    (0..n).map(|i| &items[i * items.len() / n]).collect()
}

/// Share of the sample's documents an element's class must be on, at its tag path, to be part
/// of its place.
const STABLE_CLASS: f64 = 0.5;
/// Share of the documents having a place whose text must be one value for it to be template.
const CONSTANT: f64 = 0.8;
/// Share of the documents a field must be on (an optional field is on fewer than all).
const MIN_SUPPORT: f64 = 0.2;
/// A fixed number of same-tag siblings at most: more are a list.
const MAX_FIXED: usize = 12;

/// Elements whose content is no item's data.
const BOILERPLATE: [&str; 9] = [
    "nav", "header", "footer", "script", "style", "noscript", "template", "head", "form",
];

/// One step of a place: an element's tag, its stable classes, and its 1-based position among
/// its parent's children of that tag when the template fixes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// Tag name.
    pub tag: String,
    /// Class tokens the element must have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
    /// `:nth-of-type`, when fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
    /// The label that names this element in the template, wherever the element is: a table
    /// row's header cell (`tr` whose `th` reads it), a definition's term (`dd` after a `dt`), a
    /// list item's bold lead (`li` starting with `<b>Label:</b>`). Rows a page has or lacks move
    /// the others; their labels do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Classes the element must not have: those of its siblings of the same tag at another
    /// place (`p` beside `p.price`), so that a step selects its own elements only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not: Vec<String>,
    /// The element's `id` (a selector the user gave).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Anywhere below the previous step, or anywhere in the page for the first (CSS's
    /// descendant combinator, in a selector the user gave); else a child of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub descendant: bool,
}

/// What named a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NamedBy {
    /// The page's own markup (microdata, JSON-LD, meta).
    Declared,
    /// The template's label beside the value.
    Label,
    /// The element's class names.
    Class,
    /// The values' shape or the element (a heading).
    Shape,
    /// The user.
    User,
    /// Nothing better: `field_N`.
    Position,
}

/// A field of the target pages. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// Its name (a JSON key: lower case, words joined by `_`).
    pub name: String,
    /// The elements it is read from, as a CSS selector.
    pub css: String,
    /// The same as an XPath expression.
    pub xpath: String,
    /// The place [`Field::css`] spells, as [`extract`] matches it.
    pub place: Vec<Step>,
    /// Text the template writes before the value in the same element, cut off.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// Text the template writes after it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
    /// The template's words after the value naming its kind, one of these, longest first
    /// (" Class Template Reference", " Class Reference"): the first the value ends with is cut
    /// off, after [`Field::suffix`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suffixes: Vec<String>,
    /// The values' shape: how they are typed.
    pub kind: ValueKind,
    /// Several values on a page (a list).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
    /// Absent from some pages of the sample.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// What named it.
    pub named_by: NamedBy,
}

/// A document of the sample with what induction reads of it.
struct Sampled<'a> {
    doc: &'a Document,
    /// Element → its place (None: boilerplate or not reached).
    places: HashMap<u32, Vec<Step>>,
}

/// The fields of pages like the `sample`'s (target pages of one kind; the example among them),
/// most supported first. Fewer than two documents give none: nothing can be seen to vary.
pub fn induce(sample: &[Document]) -> Vec<Field> {
    let sample = &sample[..sample.len().min(MAX_SAMPLE)];
    if sample.len() < 2 {
        return Vec::new();
    }
    let stable = stable_classes(sample);
    let fixed = fixed_positions(sample, &stable);
    let sampled: Vec<Sampled<'_>> = sample
        .iter()
        .map(|doc| Sampled {
            doc,
            places: places(doc, &stable, &fixed),
        })
        .collect();
    // Place → per document, the own texts of its elements in order.
    let mut texts: BTreeMap<Vec<Step>, Vec<Vec<String>>> = BTreeMap::new();
    for (i, s) in sampled.iter().enumerate() {
        let mut order: Vec<(&u32, &Vec<Step>)> = s.places.iter().collect();
        order.sort_by_key(|(e, _)| **e);
        for (&e, place) in order {
            let t = s.doc.own_text(e);
            if t.is_empty() {
                continue;
            }
            let per = texts
                .entry(place.clone())
                .or_insert_with(|| vec![Vec::new(); sample.len()]);
            per[i].push(t);
        }
    }
    let n = sample.len() as f64;
    let mut candidates: Vec<(Vec<Step>, Vec<Vec<String>>)> = Vec::new();
    for (place, per) in texts {
        let present = per.iter().filter(|v| !v.is_empty()).count();
        let joined: Vec<String> = per
            .iter()
            .filter(|v| !v.is_empty())
            .map(|v| v.join("\n"))
            .collect();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for v in &joined {
            *counts.entry(v.as_str()).or_default() += 1;
        }
        let most = counts.values().copied().max().unwrap_or(0);
        // A text the same on most pages is the template's (a label, a heading of the layout),
        // unless the template labels it: a row's value is data even where every item has the
        // same ("Product Type: Books").
        let constant = most as f64 >= CONSTANT * present as f64;
        let labelled = place.last().is_some_and(|s| s.label.is_some());
        // A row's own label (`th`, `dt`) is the template's, whatever rows a page has.
        let a_label = place
            .last()
            .is_some_and(|s| matches!(s.tag.as_str(), "th" | "dt"));
        if present >= 2
            && !a_label
            && (labelled || (!constant && counts.len() >= 2))
            && present as f64 >= MIN_SUPPORT * n
        {
            candidates.push((place, per));
        }
    }
    let siblings = sibling_classes(&sampled);
    let mut fields = Vec::new();
    for (place, per) in candidates {
        let values: Vec<&String> = per.iter().flatten().collect();
        let repeated = per.iter().any(|v| v.len() > 1);
        let optional = per.iter().any(Vec::is_empty);
        // A list of one sign repeated (★ ★ ★) says its number: a rating.
        let one_value = values.iter().all(|v| *v == values[0]);
        let counted = repeated && one_value;
        if !counted && !values.iter().any(|v| v.chars().any(char::is_alphanumeric)) {
            continue;
        }
        let (prefix, suffix) = if counted {
            (String::new(), String::new())
        } else {
            values::common_affixes(&values)
        };
        let mut stripped: Vec<String> = values
            .iter()
            .map(|v| values::strip(v, &prefix, &suffix))
            .collect();
        let suffixes = if counted || !suffix.is_empty() {
            Vec::new()
        } else {
            values::kind_suffixes(&stripped.iter().collect::<Vec<_>>())
        };
        for v in &mut stripped {
            *v = values::strip_kind(v, &suffixes).trim().to_string();
        }
        let kind = if counted {
            ValueKind::Count
        } else {
            values::kind_of(&stripped)
        };
        let place = with_exclusions(place, &siblings);
        fields.push((
            per.iter().filter(|v| !v.is_empty()).count(),
            Field {
                name: String::new(),
                css: css(&place),
                xpath: xpath(&place),
                place,
                prefix,
                suffix,
                suffixes,
                kind,
                repeated,
                optional,
                named_by: NamedBy::Position,
            },
        ));
    }
    // In the order the pages show them (the first page that has each), then by place.
    let order = |f: &Field| {
        sample
            .iter()
            .enumerate()
            .find_map(|(i, d)| select(d, &f.place).first().map(|&e| (i, e)))
            .unwrap_or((usize::MAX, u32::MAX))
    };
    fields.sort_by(|a, b| {
        order(&a.1)
            .cmp(&order(&b.1))
            .then(a.1.place.cmp(&b.1.place))
    });
    let mut fields: Vec<Field> = fields.into_iter().map(|(_, f)| f).collect();
    naming::name_all(&mut fields, &sampled_docs(&sampled));
    fields
}

fn sampled_docs<'a>(s: &[Sampled<'a>]) -> Vec<&'a Document> {
    s.iter().map(|s| s.doc).collect()
}

/// The values of `fields` on `doc`, by name (a field absent from the page is left out).
pub fn extract(fields: &[Field], doc: &Document, base: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for f in fields {
        let found = select(doc, &f.place);
        // An element's own text; its whole text when it has none of its own (a user's
        // selector naming `span.price` around `<b>12</b>`).
        let texts: Vec<String> = found
            .into_iter()
            .map(|e| {
                let own = doc.own_text(e);
                if own.is_empty() && f.kind != ValueKind::Count {
                    doc.text(e)
                } else {
                    own
                }
            })
            .filter(|t| !t.is_empty())
            .collect();
        if texts.is_empty() {
            continue;
        }
        if f.kind == ValueKind::Count {
            out.push((f.name.clone(), Value::Number(texts.len() as f64)));
            continue;
        }
        let mut vals: Vec<Value> = texts
            .iter()
            .map(|t| values::typed(&f.strip(t), f.kind, base))
            .collect();
        let v = if f.repeated {
            Value::List(vals)
        } else {
            vals.swap_remove(0)
        };
        out.push((f.name.clone(), v));
    }
    out
}

/// The elements of `doc` at `place`, in document order.
pub fn select(doc: &Document, place: &[Step]) -> Vec<u32> {
    if doc.is_empty() || place.is_empty() {
        return Vec::new();
    }
    let mut current: Vec<u32> = if place[0].descendant {
        doc.elements()
            .filter(|&e| matches_step(doc, e, &place[0], nth_of_type(doc, e)))
            .collect()
    } else if matches_step(doc, 0, &place[0], 1) {
        vec![0]
    } else {
        Vec::new()
    };
    for step in &place[1..] {
        let mut next = Vec::new();
        for &p in &current {
            if step.descendant {
                let mut stack: Vec<u32> = doc.child_elements(p).collect();
                stack.reverse();
                while let Some(c) = stack.pop() {
                    if matches_step(doc, c, step, nth_of_type(doc, c)) {
                        next.push(c);
                    }
                    let mut kids: Vec<u32> = doc.child_elements(c).collect();
                    kids.reverse();
                    stack.extend(kids);
                }
                continue;
            }
            let mut nth = HashMap::<&str, u32>::new();
            for c in doc.child_elements(p) {
                let k = nth.entry(doc.tag(c)).or_default();
                *k += 1;
                if matches_step(doc, c, step, *k) {
                    next.push(c);
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current
}

/// `e`'s 1-based position among its parent's children of its tag.
fn nth_of_type(doc: &Document, e: u32) -> u32 {
    let Some(p) = doc.node(e).parent else {
        return 1;
    };
    let tag = doc.tag(e);
    let mut k = 0;
    for c in doc.child_elements(p) {
        if doc.tag(c) == tag {
            k += 1;
        }
        if c == e {
            break;
        }
    }
    k
}

fn matches_step(doc: &Document, e: u32, step: &Step, nth: u32) -> bool {
    (step.tag == "*" || doc.tag(e) == step.tag)
        && step.nth.is_none_or(|n| n == nth)
        && step
            .id
            .as_ref()
            .is_none_or(|id| doc.attr(e, "id") == Some(id.as_str()))
        && step.classes.iter().all(|c| doc.classes(e).any(|x| x == c))
        && !step.not.iter().any(|c| doc.classes(e).any(|x| x == c))
        && step
            .label
            .as_ref()
            .is_none_or(|l| row_label(doc, e).as_deref() == Some(l.as_str()))
}

/// The label naming element `e` in its template (see [`Step::label`]).
fn row_label(doc: &Document, e: u32) -> Option<String> {
    let short = |t: String| {
        let t = t.trim().trim_end_matches(':').trim().to_string();
        (!t.is_empty() && t.chars().count() <= 40 && t.chars().any(char::is_alphabetic))
            .then_some(t)
    };
    match doc.tag(e) {
        "tr" => {
            let th = doc.child_elements(e).find(|&c| doc.tag(c) == "th")?;
            short(doc.text(th))
        }
        "dd" => {
            let p = doc.node(e).parent?;
            let mut prev = None;
            for c in doc.child_elements(p) {
                if c == e {
                    break;
                }
                prev = Some(c);
            }
            prev.filter(|&p| doc.tag(p) == "dt")
                .and_then(|p| short(doc.text(p)))
        }
        "li" => {
            let b = doc
                .child_elements(e)
                .next()
                .filter(|&c| matches!(doc.tag(c), "b" | "strong"))?;
            let t = doc.text(b);
            t.trim().ends_with(':').then(|| short(t)).flatten()
        }
        _ => None,
    }
}

/// The tag path of every element (tags from the root, `/`-joined).
fn tag_paths(doc: &Document) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(0u32, String::new())];
    if doc.is_empty() {
        return out;
    }
    while let Some((e, parent)) = stack.pop() {
        let path = format!("{parent}/{}", doc.tag(e));
        for c in doc.child_elements(e) {
            stack.push((c, path.clone()));
        }
        out.push((e, path));
    }
    out
}

/// Tag path → the classes on at least [`STABLE_CLASS`] of the documents having that path.
fn stable_classes(sample: &[Document]) -> HashMap<String, HashSet<String>> {
    let mut paths: HashMap<String, usize> = HashMap::new();
    let mut classes: HashMap<(String, String), usize> = HashMap::new();
    for doc in sample {
        let mut seen_p: HashSet<String> = HashSet::new();
        let mut seen_c: HashSet<(String, String)> = HashSet::new();
        for (e, path) in tag_paths(doc) {
            for c in doc.classes(e) {
                seen_c.insert((path.clone(), c.to_string()));
            }
            seen_p.insert(path);
        }
        for p in seen_p {
            *paths.entry(p).or_default() += 1;
        }
        for c in seen_c {
            *classes.entry(c).or_default() += 1;
        }
    }
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for ((path, class), n) in classes {
        let of = paths.get(&path).copied().unwrap_or(0);
        if n >= 2 && n as f64 >= STABLE_CLASS * of as f64 {
            out.entry(path).or_default().insert(class);
        }
    }
    out
}

/// An element's step without its position: tag and stable classes (sorted).
fn loose_step(
    doc: &Document,
    e: u32,
    path: &str,
    stable: &HashMap<String, HashSet<String>>,
) -> Step {
    let keep = stable.get(path);
    let mut classes: Vec<String> = doc
        .classes(e)
        .filter(|c| keep.is_some_and(|k| k.contains(*c)))
        .map(str::to_string)
        .collect();
    classes.sort();
    classes.dedup();
    Step {
        tag: doc.tag(e).to_string(),
        classes,
        nth: None,
        label: None,
        not: Vec::new(),
        id: None,
        descendant: false,
    }
}

/// A parent's loose place and a child's loose step whose siblings of that step the template
/// fixes: two or more of them, the same number on [`CONSTANT`] of the documents, at most
/// [`MAX_FIXED`]. Such a child is known by its position among its same-tag siblings; a step
/// alone on its parent needs none.
type Fixed = HashSet<(Vec<Step>, Step)>;

fn fixed_positions(sample: &[Document], stable: &HashMap<String, HashSet<String>>) -> Fixed {
    // (parent's loose place, child's loose step) → per document the count of such children
    // (the most under one parent).
    let mut counts: HashMap<(Vec<Step>, Step), Vec<usize>> = HashMap::new();
    for doc in sample {
        let mut here: HashMap<(Vec<Step>, Step), usize> = HashMap::new();
        walk(
            doc,
            stable,
            &HashSet::new(),
            &mut |_, parent_place, children| {
                let mut by_step: HashMap<Step, usize> = HashMap::new();
                for (_, step) in children {
                    *by_step.entry(step.clone()).or_default() += 1;
                }
                for (step, n) in by_step {
                    let k = (parent_place.to_vec(), step);
                    let e = here.entry(k).or_default();
                    *e = (*e).max(n);
                }
            },
        );
        for (k, n) in here {
            counts.entry(k).or_default().push(n);
        }
    }
    let mut out = HashSet::new();
    for (k, ns) in counts {
        let mut freq: HashMap<usize, usize> = HashMap::new();
        for &n in &ns {
            *freq.entry(n).or_default() += 1;
        }
        let (&n, &most) = freq
            .iter()
            .max_by_key(|(n, c)| (**c, **n))
            .unwrap_or((&0, &0));
        if (2..=MAX_FIXED).contains(&n)
            && most as f64 >= CONSTANT * ns.len() as f64
            && ns.len() >= 2
        {
            out.insert(k);
        }
    }
    out
}

/// What [`walk`] calls for each element: the element, its parent's loose place, its element
/// children with their loose steps.
type Visit<'a> = dyn FnMut(u32, &[Step], &[(u32, Step)]) + 'a;

/// Walks `doc`'s elements outside boilerplate, calling `visit(element, its place, its element
/// children with their loose steps)`; a step has its position where `fixed` says the template
/// fixes it.
fn walk(
    doc: &Document,
    stable: &HashMap<String, HashSet<String>>,
    fixed: &Fixed,
    visit: &mut Visit<'_>,
) {
    if doc.is_empty() {
        return;
    }
    let root = loose_step(doc, 0, "/html", stable);
    let mut stack: Vec<(u32, String, Vec<Step>)> = vec![(0, "/html".to_string(), vec![root])];
    while let Some((e, path, place)) = stack.pop() {
        let loose_parent: Vec<Step> = place
            .iter()
            .map(|s| Step {
                nth: None,
                ..s.clone()
            })
            .collect();
        let mut children: Vec<(u32, Step, String, u32)> = Vec::new();
        let mut nth: HashMap<&str, u32> = HashMap::new();
        for c in doc.child_elements(e) {
            let k = nth.entry(doc.tag(c)).or_default();
            *k += 1;
            if BOILERPLATE.contains(&doc.tag(c)) {
                continue;
            }
            let cpath = format!("{path}/{}", doc.tag(c));
            let mut step = loose_step(doc, c, &cpath, stable);
            step.label = row_label(doc, c);
            children.push((c, step, cpath, *k));
        }
        let loose: Vec<(u32, Step)> = children
            .iter()
            .map(|(c, s, _, _)| (*c, s.clone()))
            .collect();
        visit(e, &loose_parent, &loose);
        for (c, mut step, cpath, k) in children {
            if step.label.is_none() && fixed.contains(&(loose_parent.clone(), step.clone())) {
                step.nth = Some(k);
            }
            let mut cplace = place.clone();
            cplace.push(step);
            stack.push((c, cpath, cplace));
        }
    }
}

/// Every element's place (boilerplate left out).
fn places(
    doc: &Document,
    stable: &HashMap<String, HashSet<String>>,
    fixed: &Fixed,
) -> HashMap<u32, Vec<Step>> {
    // The walk hands each element its parent's loose place; the element's own place (with
    // positions) is rebuilt here from the children it was handed with.
    let mut out: HashMap<u32, Vec<Step>> = HashMap::new();
    if doc.is_empty() {
        return out;
    }
    out.insert(0, vec![loose_step(doc, 0, "/html", stable)]);
    walk(doc, stable, fixed, &mut |e, loose_parent, children| {
        let Some(place) = out.get(&e).cloned() else {
            return;
        };
        let mut nth: HashMap<&str, u32> = HashMap::new();
        let mut by_tag: Vec<(u32, u32)> = Vec::new();
        for c in doc.child_elements(e) {
            let k = nth.entry(doc.tag(c)).or_default();
            *k += 1;
            by_tag.push((c, *k));
        }
        for (c, step) in children {
            let mut step = step.clone();
            let k = by_tag.iter().find(|(x, _)| x == c).map_or(1, |(_, k)| *k);
            if step.label.is_none() && fixed.contains(&(loose_parent.to_vec(), step.clone())) {
                step.nth = Some(k);
            }
            let mut p = place.clone();
            p.push(step);
            out.insert(*c, p);
        }
    });
    out
}

/// A short reading of a place for people: its last three steps as CSS, a step known by its
/// label as `dd["Price (excl. tax)"]`.
pub fn describe(place: &[Step]) -> String {
    let from = place.len().saturating_sub(3);
    let steps: Vec<String> = place[from..]
        .iter()
        .map(|s| {
            let mut one = css(std::slice::from_ref(&Step {
                label: None,
                ..s.clone()
            }));
            if let Some(l) = &s.label {
                one.push_str(&format!("[{l:?}]"));
            }
            one
        })
        .collect();
    let lead = if from > 0 { "… " } else { "" };
    format!("{lead}{}", steps.join(" > "))
}

/// The CSS selector of a place; empty when a step is known by its label, which CSS cannot
/// say ([`xpath`] does).
pub fn css(place: &[Step]) -> String {
    if place.iter().any(|s| s.label.is_some()) {
        return String::new();
    }
    let mut out = String::new();
    for (i, s) in place.iter().enumerate() {
        if i > 0 {
            out.push_str(if s.descendant { " " } else { " > " });
        }
        out.push_str(&step_css(s));
    }
    out
}

/// One step as a CSS compound selector.
fn step_css(s: &Step) -> String {
    let mut out = s.tag.clone();
    if let Some(id) = &s.id {
        out.push('#');
        out.push_str(&css_ident(id));
    }
    for c in &s.classes {
        out.push('.');
        out.push_str(&css_ident(c));
    }
    for c in &s.not {
        out.push_str(&format!(":not(.{})", css_ident(c)));
    }
    if let Some(n) = s.nth {
        out.push_str(&format!(":nth-of-type({n})"));
    }
    out
}

/// A class token escaped for CSS (anything but ASCII letters, digits, `-` and `_` escaped; a
/// leading digit too).
fn css_ident(s: &str) -> String {
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if ch.is_ascii_alphanumeric() && !(i == 0 && ch.is_ascii_digit()) || ch == '-' || ch == '_'
        {
            out.push(ch);
        } else {
            out.push_str(&format!("\\{:x} ", ch as u32));
        }
    }
    out
}

/// The XPath expression of a place: position among same-tag siblings first, then classes, as
/// `:nth-of-type` and the class selectors mean.
pub fn xpath(place: &[Step]) -> String {
    let mut out = String::new();
    for s in place {
        out.push('/');
        if s.descendant {
            out.push('/');
        }
        // The HTML parser adds `tbody` to tables; lxml's (Scrapy's) does not: a plain `tbody`
        // step becomes `//`, which matches either tree.
        if s.tag == "tbody" && s.classes.is_empty() && s.nth.is_none() && s.id.is_none() {
            continue;
        }
        out.push_str(&s.tag);
        if let Some(id) = &s.id {
            out.push_str(&format!("[@id={}]", xpath_literal(id)));
        }
        if let Some(n) = s.nth {
            out.push_str(&format!("[{n}]"));
        }
        if let Some(l) = &s.label {
            let l = xpath_literal(l);
            out.push_str(&match s.tag.as_str() {
                "tr" => format!("[th[1][normalize-space(translate(., ':', ''))={l}]]"),
                "dd" => format!("[preceding-sibling::*[1][self::dt][normalize-space(translate(., ':', ''))={l}]]"),
                _ => format!("[*[1][self::b or self::strong][normalize-space(translate(., ':', ''))={l}]]"),
            });
        }
        for c in &s.classes {
            out.push_str(&format!(
                "[contains(concat(' ', normalize-space(@class), ' '), ' {} ')]",
                c.replace('\'', "")
            ));
        }
        for c in &s.not {
            out.push_str(&format!(
                "[not(contains(concat(' ', normalize-space(@class), ' '), ' {} '))]",
                c.replace('\'', "")
            ));
        }
    }
    out
}

/// (Parent place, tag) → the class sets its children of that tag have in the sample.
type Siblings = HashMap<(Vec<Step>, String), HashSet<Vec<String>>>;

fn sibling_classes(sampled: &[Sampled<'_>]) -> Siblings {
    let mut out: Siblings = HashMap::new();
    for s in sampled {
        for place in s.places.values() {
            if let Some((last, parent)) = place.split_last() {
                out.entry((parent.to_vec(), last.tag.clone()))
                    .or_default()
                    .insert(last.classes.clone());
            }
        }
    }
    out
}

/// `place` with each step's [`Step::not`]: the classes by which same-tag siblings that would
/// match its classes differ (`p` beside `p.mb-0`: not `.mb-0`).
fn with_exclusions(mut place: Vec<Step>, siblings: &Siblings) -> Vec<Step> {
    for i in 1..place.len() {
        let key = (place[..i].to_vec(), place[i].tag.clone());
        if let Some(sets) = siblings.get(&key) {
            let own = &place[i].classes;
            let mut not: Vec<String> = sets
                .iter()
                .filter(|set| set.len() > own.len() && own.iter().all(|c| set.contains(c)))
                .flat_map(|set| set.iter().filter(|c| !own.contains(c)).cloned())
                .collect();
            not.sort();
            not.dedup();
            place[i].not = not;
        }
    }
    place
}

/// The place a CSS selector names: compound selectors (a tag or `*`, `#id`, `.class`,
/// `:nth-of-type(N)`, `:not(.class)`) joined by the child (`>`) or descendant (space)
/// combinator; the first is matched anywhere in the page.
///
/// # Errors
/// Anything else (attribute selectors, other pseudo-classes, `+`, `~`, a selector list).
pub fn parse_css(sel: &str) -> Result<Vec<Step>, String> {
    let err = |why: &str| Err(format!("selector {sel:?}: {why}"));
    let mut place = Vec::new();
    let mut descendant = true;
    let mut rest = sel.trim();
    if rest.is_empty() {
        return err("empty");
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('>') {
            if place.is_empty() {
                return err("starts with >");
            }
            descendant = false;
            rest = r.trim_start();
            continue;
        }
        let end = rest.find([' ', '>']).unwrap_or(rest.len());
        let (compound, r) = rest.split_at(end);
        let step = parse_compound(compound).map_err(|why| format!("selector {sel:?}: {why}"))?;
        place.push(Step { descendant, ..step });
        let trimmed = r.trim_start();
        descendant = !trimmed.starts_with('>');
        rest = trimmed;
    }
    Ok(place)
}

fn parse_compound(c: &str) -> Result<Step, String> {
    let mut step = Step {
        tag: "*".into(),
        classes: Vec::new(),
        nth: None,
        label: None,
        not: Vec::new(),
        id: None,
        descendant: false,
    };
    let ident_end = |s: &str| {
        s.find(|ch: char| !(ch.is_alphanumeric() || ch == '-' || ch == '_'))
            .unwrap_or(s.len())
    };
    let mut rest = c;
    let n = ident_end(rest);
    if n > 0 {
        step.tag = rest[..n].to_ascii_lowercase();
        rest = &rest[n..];
    } else if let Some(r) = rest.strip_prefix('*') {
        rest = r;
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let n = ident_end(r);
            if n == 0 {
                return Err("a class without a name".into());
            }
            step.classes.push(r[..n].to_string());
            rest = &r[n..];
        } else if let Some(r) = rest.strip_prefix('#') {
            let n = ident_end(r);
            if n == 0 {
                return Err("an id without a name".into());
            }
            step.id = Some(r[..n].to_string());
            rest = &r[n..];
        } else if let Some(r) = rest.strip_prefix(":nth-of-type(") {
            let close = r.find(')').ok_or("an unclosed :nth-of-type(")?;
            let n: u32 = r[..close]
                .trim()
                .parse()
                .map_err(|_| format!(":nth-of-type({}) takes a number", &r[..close]))?;
            step.nth = Some(n.max(1));
            rest = &r[close + 1..];
        } else if let Some(r) = rest.strip_prefix(":not(.") {
            let close = r.find(')').ok_or("an unclosed :not(")?;
            step.not.push(r[..close].to_string());
            rest = &r[close + 1..];
        } else {
            return Err(format!(
                "{rest:?} is not understood (tags, #id, .class, :nth-of-type(N), :not(.class), > and spaces are)"
            ));
        }
    }
    Ok(step)
}

impl Field {
    /// `v`, a text of the field's element, without what the template writes around the value
    /// ([`Field::prefix`], [`Field::suffix`], [`Field::suffixes`]).
    pub fn strip(&self, v: &str) -> String {
        let v = values::strip(v, &self.prefix, &self.suffix);
        values::strip_kind(&v, &self.suffixes).trim().to_string()
    }

    /// A field the user names and places with a CSS selector ([`parse_css`]): its values are
    /// text as the page shows it.
    ///
    /// # Errors
    /// A selector [`parse_css`] refuses, or an empty name.
    pub fn by_user(name: &str, css: &str) -> Result<Field, String> {
        let key = key(name);
        if key.is_empty() {
            return Err(format!("field name {name:?}: give letters or digits"));
        }
        let place = parse_css(css)?;
        Ok(Field {
            name: key,
            css: self::css(&place),
            xpath: xpath(&place),
            place,
            prefix: String::new(),
            suffix: String::new(),
            suffixes: Vec::new(),
            kind: ValueKind::Text,
            repeated: false,
            optional: true,
            named_by: NamedBy::User,
        })
    }
}

/// `s` as an XPath 1.0 string literal (`concat()` when it holds both quote kinds).
fn xpath_literal(s: &str) -> String {
    if !s.contains('\'') {
        format!("'{s}'")
    } else if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        let parts: Vec<String> = s.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(", \"'\", "))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_edit;
