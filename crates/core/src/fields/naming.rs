//! Naming induced fields: what the page declares first (microdata `itemprop`, JSON-LD and meta
//! values equal to the field's), then the template's label beside the value, the element's
//! class names, the values' shape, and headings. Names are JSON keys: lower case, `_`-joined.
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::values::{self, ValueKind};
use super::{Field, NamedBy, select};
use crate::dom::dom::Document;

/// Share of the documents showing a field on which a declared value must equal it.
const DECLARED_AGREEMENT: f64 = 0.6;
/// The longest label read from the template.
const MAX_LABEL: usize = 40;
/// Elements a label is written in, before its value.
const LABELS: [&str; 17] = [
    "th", "td", "dt", "label", "strong", "b", "em", "i", "span", "p", "div", "h2", "h3", "h4",
    "h5", "h6", "small",
];
/// Elements holding a value whose label sits before the element itself (a table cell).
const CELLS: [&str; 3] = ["td", "dd", "li"];

/// Elements under `e`, counted up to a few.
fn descendants(d: &Document, e: u32) -> usize {
    let mut n = 0;
    let mut stack: Vec<u32> = d.child_elements(e).collect();
    while let Some(x) = stack.pop() {
        n += 1;
        if n > 8 {
            break;
        }
        stack.extend(d.child_elements(x));
    }
    n
}

/// Class words of layout frameworks and utilities, which name no data (data file).
fn generic_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        include_str!("../../../../data/fields/generic-class-words.txt")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Names every field (see the module docs), unique.
pub(super) fn name_all(fields: &mut [Field], docs: &[&Document]) {
    let declared: Vec<Vec<(String, String)>> = docs.iter().map(|d| declared_values(d)).collect();
    let mut used: HashMap<String, usize> = HashMap::new();
    for (i, f) in fields.iter_mut().enumerate() {
        let (name, by) = itemprop(f, docs)
            .map(|n| (n, NamedBy::Declared))
            .or_else(|| by_declared(f, docs, &declared).map(|n| (n, NamedBy::Declared)))
            .or_else(|| label(f, docs).map(|n| (n, NamedBy::Label)))
            .or_else(|| by_class(f).map(|n| (n, NamedBy::Class)))
            .or_else(|| by_shape(f).map(|n| (n, NamedBy::Shape)))
            .unwrap_or_else(|| (format!("field_{}", i + 1), NamedBy::Position));
        let name = key(&name);
        let name = if name.is_empty() {
            format!("field_{}", i + 1)
        } else {
            name
        };
        let n = used.entry(name.clone()).or_default();
        *n += 1;
        f.name = if *n == 1 { name } else { format!("{name}_{n}") };
        f.named_by = by;
    }
}

/// `s` as a JSON key: lower case, runs of other characters as one `_`, none at the ends.
pub fn key(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars().flat_map(char::to_lowercase) {
        if ch.is_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').chars().take(40).collect()
}

/// The first element of the field on each document that has it.
fn firsts<'a>(f: &Field, docs: &[&'a Document]) -> Vec<(&'a Document, u32)> {
    docs.iter()
        .filter_map(|d| {
            select(d, &f.place)
                .into_iter()
                .find(|&e| !d.own_text(e).is_empty())
                .map(|e| (*d, e))
        })
        .collect()
}

/// The most frequent of `names` when it covers more than half of `of`.
fn majority(names: Vec<String>, of: usize) -> Option<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for n in names {
        *counts.entry(n).or_default() += 1;
    }
    let (best, n) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?;
    (n * 2 > of).then_some(best)
}

/// Microdata: the element's `itemprop`, or its parent's when the element is the value's only
/// text (`<span itemprop=price><b>12</b></span>`).
fn itemprop(f: &Field, docs: &[&Document]) -> Option<String> {
    let found = firsts(f, docs);
    let names = found
        .iter()
        .filter_map(|&(d, e)| {
            d.attr(e, "itemprop")
                .or_else(|| d.node(e).parent.and_then(|p| d.attr(p, "itemprop")))
                .map(str::to_string)
        })
        .collect();
    majority(names, found.len())
}

/// `(name, value)` pairs a document declares: JSON-LD properties (nested keys by their last
/// name, `@` keys left out) and `<meta property|name content>`.
pub fn declared_values(doc: &Document) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in doc.elements() {
        match doc.tag(e) {
            "script"
                if doc
                    .attr(e, "type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) =>
            {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&doc.raw_text(e)) {
                    flatten("", &v, &mut out, 0);
                }
            }
            "meta" => {
                let name = doc.attr(e, "property").or_else(|| doc.attr(e, "name"));
                if let (Some(n), Some(c)) = (name, doc.attr(e, "content")) {
                    let n = n.rsplit(':').next().unwrap_or(n);
                    out.push((n.to_string(), c.to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

fn flatten(name: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > 8 || out.len() > 500 {
        return;
    }
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                if !k.starts_with('@') {
                    flatten(k, v, out, depth + 1);
                }
            }
        }
        serde_json::Value::Array(a) => {
            for v in a {
                flatten(name, v, out, depth + 1);
            }
        }
        serde_json::Value::String(s) if !name.is_empty() => out.push((name.to_string(), s.clone())),
        serde_json::Value::Number(n) if !name.is_empty() => {
            out.push((name.to_string(), n.to_string()))
        }
        _ => {}
    }
}

/// Whether a field's value and a declared value are one: equal text (case and spacing aside),
/// or equal numbers (`£26.08` and `26.08`).
fn same_value(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    if norm(a) == norm(b) {
        return true;
    }
    let num = |s: &str| values::price(s).or_else(|| values::number(s));
    matches!((num(a), num(b)), (Some(x), Some(y)) if (x - y).abs() < 1e-9)
}

/// The declared name whose value equals the field's on most documents that show the field and
/// declare that name (at least two): a site may declare its data on some pages only.
fn by_declared(
    f: &Field,
    docs: &[&Document],
    declared: &[Vec<(String, String)>],
) -> Option<String> {
    // Name → (documents declaring it and showing the field, of them agreeing).
    let mut tally: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        let Some(e) = select(d, &f.place)
            .into_iter()
            .find(|&e| !d.own_text(e).is_empty())
        else {
            continue;
        };
        let v = f.strip(&d.own_text(e));
        let mut seen: HashMap<&str, bool> = HashMap::new();
        for (n, dv) in &declared[i] {
            let same = same_value(&v, dv);
            let e = seen.entry(n.as_str()).or_insert(false);
            *e |= same;
        }
        for (n, same) in seen {
            let t = tally.entry(n).or_default();
            t.0 += 1;
            t.1 += usize::from(same);
        }
    }
    tally
        .into_iter()
        .filter(|(_, (of, agree))| *of >= 2 && *agree as f64 >= DECLARED_AGREEMENT * *of as f64)
        .max_by(|a, b| a.1.1.cmp(&b.1.1).then(b.0.cmp(a.0)))
        .map(|(n, _)| n.to_string())
}

/// A label: the text the template cuts off every value ("Price: "), else the constant text of
/// the element just before the value's (a `th`, `dt`, `strong` or `label`), else of its
/// parent's previous sibling.
fn label(f: &Field, docs: &[&Document]) -> Option<String> {
    // The row's label, which the place itself holds ("Availability" for its `dd`).
    if let Some(l) = f.place.iter().rev().take(2).find_map(|s| s.label.clone()) {
        return Some(l);
    }
    let own = f
        .prefix
        .trim()
        .trim_end_matches([':', '(', '[', '-'])
        .trim();
    if readable_label(own) {
        return Some(own.to_string());
    }
    let found = firsts(f, docs);
    for hop in 0..2 {
        let labels: Vec<String> = found
            .iter()
            .filter_map(|&(d, e)| {
                let at = if hop == 0 {
                    Some(e)
                } else {
                    d.node(e).parent.filter(|&p| CELLS.contains(&d.tag(p)))
                };
                let at = at?;
                let p = d.node(at).parent?;
                let siblings: Vec<u32> = d.child_elements(p).collect();
                let i = siblings.iter().position(|&s| s == at)?;
                let prev = *siblings.get(i.checked_sub(1)?)?;
                // A label is a few words in an element of its own, not a block (a header).
                if !LABELS.contains(&d.tag(prev)) || descendants(d, prev) > 3 {
                    return None;
                }
                let t = d.text(prev);
                let t = t.trim().trim_end_matches(':').trim().to_string();
                readable_label(&t).then_some(t)
            })
            .collect();
        // Constant: the same label on most documents.
        if let Some(l) = majority(labels, found.len()) {
            return Some(l);
        }
    }
    None
}

fn readable_label(t: &str) -> bool {
    !t.is_empty() && t.chars().count() <= MAX_LABEL && t.chars().any(char::is_alphabetic)
}

/// The element's class words that are not a framework's, else its parent's (a list's items
/// are named by the list: `ul.features > li`).
fn by_class(f: &Field) -> Option<String> {
    let generic = generic_words();
    // A count is named by what holds the signs (`div.rating` of `span.star`).
    let skip = usize::from(f.kind == ValueKind::Count && f.place.len() > 1);
    for step in f.place.iter().rev().skip(skip).take(2) {
        let mut words: Vec<String> = Vec::new();
        for c in &step.classes {
            for w in c.split(['-', '_']) {
                let w = w.to_lowercase();
                if w.len() > 1
                    && !generic.contains(w.as_str())
                    && !w.chars().all(|c| c.is_ascii_digit())
                    && !words.contains(&w)
                {
                    words.push(w);
                }
            }
        }
        if !words.is_empty() {
            return Some(words.join("_"));
        }
    }
    None
}

/// A name from the values' shape or the element.
fn by_shape(f: &Field) -> Option<String> {
    let tag = f.place.last().map(|s| s.tag.as_str()).unwrap_or("");
    Some(
        match (f.kind, tag) {
            (_, "h1") => "title",
            (ValueKind::Price, _) => "price",
            (ValueKind::Date, _) => "date",
            (ValueKind::LongText, _) => "description",
            (ValueKind::Url, _) => "url",
            (_, "h2" | "h3") => "subtitle",
            _ => return None,
        }
        .to_string(),
    )
}
