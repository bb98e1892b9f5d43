//! The user's say over a pattern's fields: leave one out, rename one, or place one by a CSS
//! selector (a new field, or an induced one moved).
//!
//! Contract: [`apply`] changes `fields` only when the edit is valid and leaves them as they were
//! otherwise, with an error that names what is wrong (an unknown field, with the ones there
//! are; a name taken; a selector [`super::parse_css`] refuses; a place that selects nothing on
//! any page of the sample). A placed field is fitted to the sample ([`fit`]): typed by its
//! values, a list where a page has several, optional where one has none, and named like an
//! induced field when the user gives no name.
use serde::{Deserialize, Serialize};

use super::values;
use super::{Field, NamedBy, key, naming, select};
use crate::dom::dom::Document;

/// One edit of a pattern's fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Edit {
    /// Leaves field `name` out.
    Remove {
        /// The field's name.
        name: String,
    },
    /// Renames field `name` to `to`.
    Rename {
        /// The field's name.
        name: String,
        /// Its new name (made a JSON key, as [`key`] does).
        to: String,
    },
    /// Reads field `name` from the elements `css` selects: a new field, or one that was
    /// there, moved. An empty name: one is given as induction names fields.
    Place {
        /// The field's name, or empty.
        #[serde(default)]
        name: String,
        /// A CSS selector ([`super::parse_css`]).
        css: String,
    },
}

/// Applies `edit` to `fields`; a placed field is fitted to `sample` (the example first; empty:
/// not fitted, its values read as text).
///
/// # Errors
/// See the module docs; `fields` is then unchanged.
pub fn apply(fields: &mut Vec<Field>, edit: &Edit, sample: &[Document]) -> Result<(), String> {
    let names = |fields: &[Field]| {
        if fields.is_empty() {
            "none".to_string()
        } else {
            let n: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            n.join(", ")
        }
    };
    let find = |fields: &[Field], name: &str| {
        let k = key(name);
        fields
            .iter()
            .position(|f| f.name == k)
            .ok_or_else(|| format!("no field {name:?} (there are: {})", names(fields)))
    };
    match edit {
        Edit::Remove { name } => {
            let i = find(fields, name)?;
            fields.remove(i);
        }
        Edit::Rename { name, to } => {
            let i = find(fields, name)?;
            let to_key = key(to);
            if to_key.is_empty() {
                return Err(format!("field name {to:?}: give letters or digits"));
            }
            if fields
                .iter()
                .enumerate()
                .any(|(j, f)| j != i && f.name == to_key)
            {
                return Err(format!("a field is named {to_key:?} already"));
            }
            fields[i].name = to_key;
            fields[i].named_by = NamedBy::User;
        }
        Edit::Place { name, css } => {
            let given = !key(name).is_empty();
            let mut field = Field::by_user(if given { name } else { "field" }, css)?;
            if !sample.is_empty() {
                fit(&mut field, sample)?;
            }
            if !given {
                let docs: Vec<&Document> = sample.iter().collect();
                let mut one = [field];
                naming::name_all(&mut one, &docs);
                let [named] = one;
                field = named;
                let taken = |n: &str| fields.iter().any(|f| f.name == n);
                if taken(&field.name) {
                    let base = field.name.clone();
                    let free = (2..).map(|n| format!("{base}_{n}")).find(|n| !taken(n));
                    field.name = free.unwrap_or(base);
                }
            }
            match fields.iter_mut().find(|f| f.name == field.name) {
                Some(f) => *f = field,
                None => fields.push(field),
            }
        }
    }
    Ok(())
}

/// Fits a field placed by hand to `sample`: its kind from its values (text the template writes
/// around every value cut off where the sample shows two values or more), a list where a page
/// has several values, optional where a page has none.
///
/// # Errors
/// The place selects no element with text on any page of the sample.
pub fn fit(field: &mut Field, sample: &[Document]) -> Result<(), String> {
    let per: Vec<Vec<String>> = sample
        .iter()
        .map(|doc| {
            select(doc, &field.place)
                .into_iter()
                .map(|e| {
                    let own = doc.own_text(e);
                    if own.is_empty() { doc.text(e) } else { own }
                })
                .filter(|t| !t.is_empty())
                .collect()
        })
        .collect();
    let all: Vec<&String> = per.iter().flatten().collect();
    if all.is_empty() {
        return Err(format!(
            "selector {:?} selects no element with text on the example page",
            field.css
        ));
    }
    field.repeated = per.iter().any(|v| v.len() > 1);
    field.optional = per.iter().any(Vec::is_empty);
    let distinct = all.iter().any(|v| *v != all[0]);
    let (prefix, suffix) = if distinct {
        values::common_affixes(&all)
    } else {
        (String::new(), String::new())
    };
    let mut stripped: Vec<String> = all
        .iter()
        .map(|v| values::strip(v, &prefix, &suffix))
        .collect();
    field.suffixes = if distinct && suffix.is_empty() {
        values::kind_suffixes(&stripped.iter().collect::<Vec<_>>())
    } else {
        Vec::new()
    };
    for v in &mut stripped {
        *v = values::strip_kind(v, &field.suffixes).trim().to_string();
    }
    field.kind = values::kind_of(&stripped);
    field.prefix = prefix;
    field.suffix = suffix;
    Ok(())
}
