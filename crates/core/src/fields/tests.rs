//! Field induction on generated item pages of one template: a label cut from the value's own
//! text, a table whose rows a page may lack (the labels move), an optional field, a repeated
//! field, a class that varies with the item (a rating), JSON-LD naming a field, and the same
//! values read back through the fields' places.
use super::*;

const NAMES: [&str; 8] = [
    "Brass Lamp",
    "Oak Desk",
    "Wool Rug",
    "Glass Vase",
    "Steel Kettle",
    "Linen Sheet",
    "Clay Pot",
    "Silk Scarf",
];

/// Item `i`: every third has a "Sale" badge; even ones a "Colour" row before "Weight"; the
/// number of features varies; odd ones declare JSON-LD.
pub(super) fn item(i: usize) -> String {
    let name = NAMES[i % NAMES.len()];
    let price = format!("£{}.{:02}", 10 + i * 7, (i * 13) % 100);
    let rating = ["One", "Two", "Three", "Four", "Five"][i % 5];
    let sale = if i.is_multiple_of(3) {
        "<span class='badge sale'>Sale</span>"
    } else {
        ""
    };
    let colour = if i.is_multiple_of(2) {
        format!(
            "<tr><th>Colour</th><td>{}</td></tr>",
            ["red", "blue", "green"][i % 3]
        )
    } else {
        String::new()
    };
    let features: String = [
        "Made by hand",
        "Two years' warranty",
        "Free delivery",
        "Recycled box",
    ][..1 + i % 4]
        .iter()
        .map(|f| format!("<li>{f}</li>"))
        .collect();
    let ld = if i % 2 == 1 {
        format!(
            "<script type='application/ld+json'>{{\"@type\":\"Product\",\"name\":\"{name}\",\"sku\":\"SKU-{i:04}\"}}</script>"
        )
    } else {
        String::new()
    };
    format!(
        "<html><head><title>{name} | Shop</title>{ld}</head><body><nav><a href='/'>Home</a> <a href='/c/{i}'>Cat {i}</a></nav>\
         <div class='container product'><h1>{name}</h1>{sale}<p class='col-sm-6 price'>Price: {price}</p>\
         <p class='star-rating {rating}'><i></i></p><h2>Details</h2>\
         <table class='info'><tr><th>SKU</th><td>SKU-{i:04}</td></tr>{colour}<tr><th>Weight</th><td>{} kg</td></tr></table>\
         <ul class='features'>{features}</ul></div><footer>© Shop {}</footer></body></html>",
        1 + i % 9,
        2020 + i % 3
    )
}

pub(super) fn docs(n: usize) -> Vec<Document> {
    (0..n)
        .map(|i| Document::parse(&item(i)).expect("parses"))
        .collect()
}

pub(super) fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
    fields.iter().find(|f| f.name == name).unwrap_or_else(|| {
        panic!(
            "no field {name}: {:#?}",
            fields
                .iter()
                .map(|f| (&f.name, &f.css, &f.xpath))
                .collect::<Vec<_>>()
        )
    })
}

#[test]
fn fields_are_found_named_and_read_back() {
    let sample = docs(12);
    let fields = induce(&sample);
    // The heading, named as JSON-LD names it; the price under its own label; the rows by
    // their labels.
    let name = field(&fields, "name");
    assert_eq!(
        (name.css.as_str(), name.named_by),
        (
            "html > body > div.container.product > h1",
            NamedBy::Declared
        )
    );
    let price = field(&fields, "price");
    assert_eq!(
        (price.prefix.as_str(), price.kind, price.named_by),
        ("Price: ", ValueKind::Price, NamedBy::Label)
    );
    assert_eq!(
        price.css, "html > body > div.container.product > p.col-sm-6.price",
        "classes the template always has"
    );
    let sku = field(&fields, "sku");
    assert_eq!(
        sku.named_by,
        NamedBy::Declared,
        "JSON-LD names it on the pages declaring it"
    );
    let weight = field(&fields, "weight");
    assert_eq!(weight.suffix, " kg");
    assert!(
        weight
            .xpath
            .contains("th[1][normalize-space(translate(., ':', ''))='Weight']"),
        "{}",
        weight.xpath
    );
    assert!(weight.css.is_empty(), "CSS cannot name a row by its label");
    let colour = field(&fields, "colour");
    assert!(colour.optional && !weight.optional);
    let features = field(&fields, "features");
    assert!(features.repeated);
    // Nothing of the navigation, the footer, or the template's own words.
    assert!(
        fields
            .iter()
            .all(|f| !f.css.contains("nav") && !f.css.contains("footer")),
        "{fields:#?}"
    );
    assert!(fields.iter().all(|f| f.name != "details"));

    // Read back from a page the sample did not hold.
    let doc = Document::parse(&item(20)).expect("parses");
    let got: HashMap<String, Value> = extract(&fields, &doc, "http://shop.test/p/20")
        .into_iter()
        .collect();
    assert_eq!(got["name"], Value::Text("Steel Kettle".into()));
    assert_eq!(got["price"], Value::Number(150.60));
    assert_eq!(got["weight"], Value::Number(3.0));
    assert_eq!(got["colour"], Value::Text("green".into()));
    assert_eq!(got["sku"], Value::Text("SKU-0020".into()));
    assert_eq!(
        got["features"],
        Value::List(vec![Value::Text("Made by hand".into())])
    );
    // A page without the optional row has no such field, and the next row is still read.
    let doc = Document::parse(&item(21)).expect("parses");
    let got: HashMap<String, Value> = extract(&fields, &doc, "http://shop.test/p/21")
        .into_iter()
        .collect();
    assert!(!got.contains_key("colour"));
    assert_eq!(got["weight"], Value::Number(4.0));
}

#[test]
fn one_page_shows_nothing_to_vary() {
    assert!(induce(&docs(1)).is_empty());
    assert!(induce(&[]).is_empty());
}

#[test]
fn selectors_quote_what_they_must() {
    let place = vec![Step {
        tag: "div".into(),
        classes: vec!["2col".into(), "a:b".into()],
        nth: Some(2),
        label: None,
        not: vec!["x".into()],
        id: None,
        descendant: false,
    }];
    assert_eq!(css(&place), "div.\\32 col.a\\3a b:not(.x):nth-of-type(2)");
    let place = vec![Step {
        tag: "tr".into(),
        classes: vec![],
        nth: None,
        label: Some("Author's \"pick\"".into()),
        not: vec![],
        id: None,
        descendant: false,
    }];
    assert!(
        xpath(&place).contains("concat('Author', \"'\", 's \"pick\"')"),
        "{}",
        xpath(&place)
    );
}

#[test]
fn a_users_selector_names_a_field() {
    let place = parse_css("div.product > p.price").expect("parses");
    assert_eq!(css(&place), "div.product > p.price");
    assert!(place[0].descendant && !place[1].descendant);
    assert_eq!(
        xpath(&place),
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' product ')]/p[contains(concat(' ', normalize-space(@class), ' '), ' price ')]"
    );
    let doc = Document::parse(&item(3)).expect("parses");
    let f = Field::by_user("Shown price", "div.product p.price").expect("a field");
    assert_eq!(f.name, "shown_price");
    assert_eq!(
        extract(&[f], &doc, "http://shop.test/"),
        [(
            "shown_price".to_string(),
            Value::Text("Price: £31.39".into())
        )]
    );
    let f = Field::by_user("first row", "table.info tr:nth-of-type(1) > td").expect("a field");
    assert_eq!(
        extract(&[f], &doc, "http://shop.test/")[0].1,
        Value::Text("SKU-0003".into())
    );
    let f = Field::by_user("id", "#nothing").expect("a field");
    assert!(
        extract(&[f], &doc, "http://shop.test/").is_empty(),
        "a page without it has none"
    );
    for bad in ["", "a[href]", "p:first-child", "> p", "p, h1", "p."] {
        assert!(parse_css(bad).is_err(), "{bad:?}");
    }
    assert!(Field::by_user("  ", "p").is_err());
}

proptest::proptest! {
    /// Any markup, any text: induction and reading never panic, and what is read is what the
    /// fields name.
    #[test]
    fn any_pages_are_read_without_panic(
        pages in proptest::collection::vec(
            proptest::collection::vec(
                (
                    proptest::sample::select(vec!["p", "div", "span", "td", "tr", "dd", "dt", "li", "ul", "table", "h1", "b"]),
                    "[a-z :£$()0-9.,-]{0,12}",
                    proptest::option::of("[a-z -]{1,8}"),
                ),
                0..24,
            ),
            0..6,
        )
    ) {
        let docs: Vec<Document> = pages
            .iter()
            .map(|els| {
                let html: String = els
                    .iter()
                    .map(|(tag, text, class)| match class {
                        Some(c) => format!("<{tag} class='{c}'>{text}"),
                        None => format!("<{tag}>{text}"),
                    })
                    .collect();
                Document::parse(&html).expect("parses")
            })
            .collect();
        let fields = induce(&docs);
        for d in &docs {
            for (name, _) in extract(&fields, d, "http://h/") {
                proptest::prop_assert!(fields.iter().any(|f| f.name == name));
            }
        }
    }
}
