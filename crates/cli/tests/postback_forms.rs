//! The live quotes application's `search.aspx` through the CLI: a POST form with a view state
//! whose author select fills the tag select. The example is one of its result pages, given as
//! the POST a browser made (`--example-data`); the crawl, and the Scrapy project exported from
//! the pattern, reach every author and tag the application lists.

mod shared;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use exemplar_testkit::live_apps;

const FAST: [&str; 5] = ["--delay-ms", "0", "--concurrency", "8", "--quiet"];

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "exemplar {args:?}\n{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The application's data: each author's tags, and the tagged quotes (the form lists only
/// those: a quote without a tag has no (author, tag) to choose).
fn data() -> (BTreeSet<(String, String)>, BTreeSet<String>) {
    let path = exemplar_testkit::root().join("eval/real/apps/spidyquotes/data/quotesdb.jl");
    let mut pairs = BTreeSet::new();
    let mut quotes = BTreeSet::new();
    for line in std::fs::read_to_string(path).expect("quotes data").lines() {
        let q: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let author = q["author"]["name"].as_str().expect("author").to_string();
        let tags = q["tags"].as_array().cloned().unwrap_or_default();
        for t in &tags {
            pairs.insert((author.clone(), t.as_str().expect("tag").to_string()));
        }
        if !tags.is_empty() {
            quotes.insert(q["text"].as_str().expect("text").to_string());
        }
    }
    (pairs, quotes)
}

/// The author and tag a POST key (`…/filter.aspx#exemplar-post=body`) or a body chose.
fn chosen(body: &str) -> (String, String) {
    let body = body.split_once("#exemplar-post=").map_or(body, |(_, b)| b);
    let form: BTreeMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    (get("author"), get("tag"))
}

fn html_unescape(s: &str) -> String {
    s.replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn a_postback_form_with_a_dependent_select_is_crawled_to_every_result() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("postback", "search");
    let pattern = dir.join("pattern.json");
    let mut args = vec![
        "learn",
        "--entry",
        &format!("{}/search.aspx", app.base),
        "--example",
        &format!("{}/filter.aspx", app.base),
        "--example-data",
        "author=Albert Einstein&tag=change",
        "-o",
        s(&pattern),
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    args.extend(FAST.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let said = ok(&args);
    assert!(
        said.contains("the example page is a form's answer to a POST"),
        "{said}"
    );
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pattern).expect("pattern")).expect("json");
    let levels = p["levels"].as_array().expect("levels");
    assert_eq!(levels.len(), 1, "{p:#}");
    let form = &levels[0]["form"];
    assert_eq!(form["dependent"], serde_json::json!(["tag"]), "{form:#}");
    assert_eq!(form["form"]["method"], "post");
    assert!(
        p.get("entryTarget").is_none_or(|v| v == false),
        "the search page is no result: {p:#}"
    );

    let jsonl = dir.join("pages.jsonl");
    let mut args = vec!["crawl", s(&pattern), "--jsonl", s(&jsonl), "--html"];
    args.extend_from_slice(&FAST);
    let said = ok(&args);
    let (pairs, quotes) = data();
    let mut got = BTreeSet::new();
    let mut shown = BTreeSet::new();
    let re = regex::Regex::new(r#"<span class="content">(.*?)</span>"#).expect("regex");
    let lines = std::fs::read_to_string(&jsonl).expect("JSON Lines");
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        got.insert(chosen(v["url"].as_str().expect("url")));
        for c in re.captures_iter(v["html"].as_str().unwrap_or_default()) {
            shown.insert(html_unescape(&c[1]));
        }
    }
    assert_eq!(lines.lines().count(), pairs.len(), "each result once");
    assert_eq!(got, pairs, "every author and tag, and no step");
    let missed: Vec<&String> = quotes.difference(&shown).collect();
    assert!(
        missed.is_empty(),
        "quotes the form lists, not shown: {missed:#?}"
    );
    assert_eq!(
        shown.len(),
        quotes.len(),
        "every quote the form can list, and no other"
    );
    // The search page, a step per author (its tags), a result per tag: nothing else.
    let authors = pairs.iter().map(|(a, _)| a).collect::<BTreeSet<_>>().len();
    let fetched = format!("from {} pages fetched", 1 + authors + pairs.len());
    assert!(said.contains(&fetched), "{fetched}?\n{said}");

    // The same pattern as a Scrapy project: the spider steps through the tags as the crawl does.
    let project = dir.join("scrapy");
    let out = run(&["export-scrapy", s(&pattern), s(&project)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let name = stdout
        .split("scrapy crawl ")
        .nth(1)
        .map(str::trim)
        .expect("the spider's name");
    let scrapy = exemplar_testkit::root().join(".venv/bin/scrapy");
    let out = exemplar_testkit::scrapy_command(&scrapy, &project, name, "items.jsonl")
        .output()
        .expect("scrapy");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let items: BTreeSet<(String, String)> =
        exemplar_testkit::item_urls(&project.join("items.jsonl"))
            .iter()
            .map(|u| chosen(u))
            .collect();
    assert_eq!(items, pairs, "the spider's results are the crawl's");
}

#[test]
fn an_example_post_the_application_refuses_is_a_clear_error() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("postback", "refused");
    let out = run(&[
        "learn",
        "--entry",
        &format!("{}/search.aspx", app.base),
        "--example",
        &format!("{}/filter.aspx", app.base),
        "--example-data",
        "author=Nobody At All",
        "-o",
        s(&dir.join("pattern.json")),
        "--quiet",
    ]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("answered by a redirect"), "{said}");
    assert!(!dir.join("pattern.json").exists(), "nothing written");
}
