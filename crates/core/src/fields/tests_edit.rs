//! The user's edits of fields ([`super::edit`]), on the generated item pages of `tests.rs`.
use super::tests::{docs, field};
use super::*;

#[test]
fn placed_fields_are_fitted_and_named_from_the_page() {
    let sample = docs(6);
    let mut fields = Vec::new();
    let place = |css: &str| Edit::Place {
        name: String::new(),
        css: css.into(),
    };
    edit::apply(&mut fields, &place("p.price"), &sample).expect("placed");
    let price = field(&fields, "price");
    assert_eq!(
        (price.kind, price.prefix.as_str(), price.named_by),
        (ValueKind::Price, "Price: ", NamedBy::Label),
        "typed by its values, named by the template's label"
    );
    edit::apply(&mut fields, &place("ul.features > li"), &sample).expect("placed");
    let features = field(&fields, "features");
    assert!(features.repeated, "several on a page: a list");
    edit::apply(&mut fields, &place("span.badge"), &sample).expect("placed");
    assert!(
        fields.last().expect("a field").optional,
        "not on every page"
    );
    // The same place again, unnamed: a name of its own.
    edit::apply(&mut fields, &place("p.price"), &sample).expect("placed");
    assert_eq!(fields.last().expect("a field").name, "price_2");
    // Named: read back by that name from another page.
    let named = Edit::Place {
        name: "Item title".into(),
        css: "div.product > h1".into(),
    };
    edit::apply(&mut fields, &named, &sample).expect("placed");
    let title = field(&fields, "item_title");
    assert_eq!(title.named_by, NamedBy::User);
    let doc = Document::parse(&tests::item(20)).expect("parses");
    let got = extract(&fields, &doc, "http://shop.test/p/20");
    assert!(
        got.contains(&("item_title".into(), Value::Text("Steel Kettle".into()))),
        "{got:?}"
    );
    assert!(
        got.contains(&("price".into(), Value::Number(150.60))),
        "{got:?}"
    );
}

#[test]
fn renames_and_removals_check_their_names() {
    let sample = docs(12);
    let mut fields = induce(&sample);
    let before = fields.clone();
    let err =
        |fields: &mut Vec<Field>, e: Edit| edit::apply(fields, &e, &sample).expect_err("must fail");
    let e = err(
        &mut fields,
        Edit::Remove {
            name: "colour_code".into(),
        },
    );
    assert!(
        e.contains("no field \"colour_code\"") && e.contains("price"),
        "{e}"
    );
    let e = err(
        &mut fields,
        Edit::Rename {
            name: "price".into(),
            to: "SKU".into(),
        },
    );
    assert!(e.contains("named \"sku\" already"), "{e}");
    let e = err(
        &mut fields,
        Edit::Rename {
            name: "price".into(),
            to: " -- ".into(),
        },
    );
    assert!(e.contains("letters or digits"), "{e}");
    let e = err(
        &mut fields,
        Edit::Place {
            name: "x".into(),
            css: "p.nowhere".into(),
        },
    );
    assert!(e.contains("selects no element"), "{e}");
    let e = err(
        &mut fields,
        Edit::Place {
            name: "x".into(),
            css: "a[href]".into(),
        },
    );
    assert!(e.contains("not understood"), "{e}");
    assert_eq!(fields, before, "a refused edit changes nothing");

    edit::apply(
        &mut fields,
        &Edit::Rename {
            name: "Price".into(),
            to: "Cost (GBP)".into(),
        },
        &sample,
    )
    .expect("renamed");
    assert_eq!(field(&fields, "cost_gbp").named_by, NamedBy::User);
    edit::apply(
        &mut fields,
        &Edit::Remove {
            name: "cost_gbp".into(),
        },
        &sample,
    )
    .expect("removed");
    assert_eq!(fields.len(), before.len() - 1);
    // Edits as JSON, as the extension sends them.
    let e: Edit =
        serde_json::from_str(r#"{"op": "rename", "name": "sku", "to": "code"}"#).expect("an edit");
    edit::apply(&mut fields, &e, &sample).expect("renamed");
    assert!(fields.iter().any(|f| f.name == "code"));
}
