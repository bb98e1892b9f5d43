//! The data of target pages through the CLI (issue 61): `learn` induces the fields of the live
//! quotes authors and the live shop's books from a sample of their pages and prints them with the
//! example's values; `crawl` writes them in JSON Lines (typed) and CSV (a column each). Checked
//! against the applications' own data files, page by page.

mod shared;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use exemplar_testkit::live_apps;

const FAST: [&str; 5] = ["--delay-ms", "0", "--concurrency", "8", "--quiet"];

fn ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "exemplar {args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Learns from `example` and crawls: what learn printed, the pattern's fields, the JSON Lines'
/// records (URL, fields) and the CSV text.
fn learn_and_crawl(
    dir: &Path,
    entry: &str,
    example: &str,
) -> (
    String,
    Vec<serde_json::Value>,
    Vec<(String, serde_json::Value)>,
    String,
) {
    let pattern = dir.join("pattern.json");
    let mut args = vec![
        "learn",
        "--entry",
        entry,
        "--example",
        example,
        "-o",
        s(&pattern),
    ];
    args.extend_from_slice(&FAST);
    let said = ok(&args);
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pattern).expect("pattern")).expect("json");
    let fields = p["fields"].as_array().cloned().unwrap_or_default();
    let (jsonl, csv, warc) = (
        dir.join("pages.jsonl"),
        dir.join("pages.csv"),
        dir.join("pages.warc"),
    );
    let mut args = vec![
        "crawl",
        s(&pattern),
        "--jsonl",
        s(&jsonl),
        "--csv",
        s(&csv),
        "--warc",
        s(&warc),
    ];
    args.extend_from_slice(&FAST);
    ok(&args);
    let records = std::fs::read_to_string(&jsonl)
        .expect("JSON Lines")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (
                v["url"].as_str().expect("url").to_string(),
                v["fields"].clone(),
            )
        })
        .collect();
    (
        said,
        fields,
        records,
        std::fs::read_to_string(&csv).expect("CSV"),
    )
}

/// The Scrapy project exported from `dir/pattern.json` run with the `.venv`'s Scrapy: each
/// item's fields by its URL (without a trailing `/`: the spider names a page by its URL after
/// redirects, the crawl by its link's).
fn scrapy_fields(dir: &Path) -> HashMap<String, serde_json::Value> {
    let project = dir.join("scrapy");
    let out = ok(&["export-scrapy", s(&dir.join("pattern.json")), s(&project)]);
    let name = out
        .split("scrapy crawl ")
        .nth(1)
        .map(str::trim)
        .expect("the spider's name");
    let scrapy = exemplar_testkit::root().join(".venv/bin/scrapy");
    let run = exemplar_testkit::scrapy_command(&scrapy, &project, name, "items.jsonl")
        .output()
        .expect("scrapy");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(project.join("items.jsonl"))
        .expect("items")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("an item");
            let url = v["url"].as_str().expect("url").trim_end_matches('/');
            (url.to_string(), v["fields"].clone())
        })
        .collect()
}

fn field_named<'a>(fields: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    fields
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no field {name} among {fields:#?}"))
}

#[test]
fn an_authors_fields_are_learned_printed_and_exported() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("fields", "quotes");
    let (said, fields, records, csv) = learn_and_crawl(
        &dir,
        &format!("{}/", app.base),
        &format!("{}/author/Albert-Einstein/", app.base),
    );
    assert!(said.contains("fields (4 from"), "{said}");
    assert!(
        said.contains("March 14, 1879"),
        "the example's values are printed: {said}"
    );
    let born = field_named(&fields, "born");
    assert_eq!(born["kind"], "date");
    assert_eq!(
        born["namedBy"], "label",
        "named by the template's \"Born:\""
    );
    // Every author's record, from the application's data.
    let data = exemplar_testkit::root().join("eval/real/apps/spidyquotes/data/authorsdb.jl");
    let truth: HashMap<String, serde_json::Value> = std::fs::read_to_string(data)
        .expect("authors")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (v["name"].as_str().expect("name").to_string(), v)
        })
        .collect();
    assert_eq!(records.len(), 50);
    for (url, f) in &records {
        let name = f["author_title"]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: {f}"));
        let t = &truth[name];
        assert_eq!(f["born"], t["born_at"], "{url}");
        assert_eq!(f["author_born_location"], t["born_in"], "{url}");
        let norm = |v: &serde_json::Value| {
            v.as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(norm(&f["description"]), norm(&t["description"]), "{url}");
    }
    let header = csv.lines().next().expect("a header");
    assert!(
        header.ends_with(",author_title,born,author_born_location,description"),
        "{header}"
    );
    assert!(
        csv.contains(",Albert Einstein,\"March 14, 1879\",\"in Ulm, Germany\","),
        "{csv}"
    );

    // The WARC's metadata records carry them too.
    let warc = std::fs::read(dir.join("pages.warc")).expect("WARC");
    let warc = String::from_utf8_lossy(&warc);
    assert!(
        warc.contains("field-born: March 14, 1879\r\n"),
        "the WARC's metadata"
    );

    // The Scrapy project reads the same fields from the same pages.
    let items = scrapy_fields(&dir);
    assert_eq!(items.len(), records.len());
    for (url, f) in &records {
        let url = url.trim_end_matches('/');
        assert_eq!(
            items.get(url),
            Some(f),
            "{url}: the spider's fields are the crawl's"
        );
    }

    // The user's say, without a map or a fetch: one field left out, one added by a selector.
    let pattern = dir.join("pattern.json");
    let said = ok(&[
        "relearn",
        s(&pattern),
        "--no-field",
        "description",
        "--field",
        "Birth date=div.author-details span.author-born-date",
    ]);
    assert!(said.contains("birth_date  (User)"), "{said}");
    let jsonl = dir.join("edited.jsonl");
    let mut args = vec!["crawl", s(&pattern), "--jsonl", s(&jsonl)];
    args.extend_from_slice(&FAST);
    ok(&args);
    for line in std::fs::read_to_string(&jsonl).expect("JSON Lines").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let f = &v["fields"];
        assert!(f.get("description").is_none(), "{f}");
        assert_eq!(f["birth_date"], f["born"], "{f}");
    }
    for (bad, why) in [
        (["--field", "x=a[href]"], "is not understood"),
        (
            ["--no-field", "nothing"],
            "no field \"nothing\" (there are: ",
        ),
        (["--field", "no selector"], "NAME=SELECTOR"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
            .args(["relearn", s(&pattern), bad[0], bad[1]])
            .output()
            .expect("run exemplar");
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{bad:?}: {err}");
    }
}

#[test]
fn a_books_price_rating_and_table_rows_are_read_from_every_book() {
    let app = live_apps::start("zyte-books").expect("the live shop");
    let dir = shared::tempdir("fields", "shop");
    let (_, fields, records, _) = learn_and_crawl(
        &dir,
        &format!("{}/", app.base),
        &format!("{}/product/239", app.base),
    );
    assert_eq!(field_named(&fields, "price")["prefix"], "Price: ");
    assert_eq!(field_named(&fields, "rating")["kind"], "count");
    assert!(
        field_named(&fields, "upc")["css"].as_str() == Some(""),
        "a row known by its label"
    );
    let data = exemplar_testkit::root()
        .join("eval/real/apps/zyte-ecommerce/zyte_test_websites/ecommerce/data.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data).expect("shop data")).expect("json");
    let by_id: HashMap<u64, &serde_json::Value> = data["products"]
        .as_array()
        .expect("products")
        .iter()
        .map(|p| (p["id"].as_u64().expect("id"), p))
        .collect();
    assert_eq!(records.len(), 1000);
    for (url, f) in &records {
        let id: u64 = url
            .rsplit('/')
            .next()
            .and_then(|i| i.parse().ok())
            .expect("a product id");
        let t = by_id[&id];
        let price: f64 = t["price"]
            .as_str()
            .expect("price")
            .trim_start_matches('£')
            .parse()
            .expect("a price");
        assert_eq!(f["price"].as_f64(), Some(price), "{url}");
        assert_eq!(f["rating"].as_f64(), t["rating"].as_f64(), "{url}");
        assert_eq!(f["upc"], t["properties"]["UPC"], "{url}");
        assert_eq!(f["title"], t["name"], "{url}");
    }
}

/// Doxygen writes a class's kind after its name in the one heading ("sf::Texture Class
/// Reference", "sf::Event::KeyEvent Struct Reference"): the field reads the name alone, in the
/// crawl and in the Scrapy spider alike. SFML's documentation (Debian's libsfml-doc, a
/// development site); skipped with a note when it is not installed.
#[test]
fn a_doxygen_class_name_is_read_without_its_kind() {
    let site = match exemplar_testkit::devsites::installed_site("sfml") {
        Ok(site) => site,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(site.root.clone()),
    )
    .expect("a server");
    let base = server.url();
    let dir = shared::tempdir("fields", "sfml");
    let (_, fields, records, _) = learn_and_crawl(
        &dir,
        &format!("{base}/{}", site.entry),
        &format!("{base}/{}", site.example),
    );
    let name = fields
        .iter()
        .find(|f| f["suffixes"].as_array().is_some_and(|s| !s.is_empty()))
        .unwrap_or_else(|| panic!("no field cuts a kind: {fields:#?}"));
    let suffixes = name["suffixes"].as_array().expect("suffixes");
    for kind in [" Class Reference", " Struct Reference"] {
        assert!(suffixes.iter().any(|s| s == kind), "{suffixes:?}");
    }
    let key = name["name"].as_str().expect("a name");
    let read: HashMap<&str, &serde_json::Value> = records
        .iter()
        .map(|(url, f)| (url.rsplit('/').next().unwrap_or(url), &f[key]))
        .collect();
    assert_eq!(read["classsf_1_1Texture.html"], "sf::Texture");
    assert_eq!(
        read["structsf_1_1Event_1_1KeyEvent.html"],
        "sf::Event::KeyEvent"
    );

    // The Scrapy spider cuts the same words.
    let items = scrapy_fields(&dir);
    assert_eq!(items.len(), records.len());
    for (url, f) in &records {
        assert_eq!(
            items.get(url.trim_end_matches('/')).map(|i| &i[key]),
            Some(&f[key]),
            "{url}: the spider's value is the crawl's"
        );
    }
}
