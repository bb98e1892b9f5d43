//! Pages drawn by scripts, through the CLI: the live quotes application's `/js/` and `/scroll`
//! variants rendered in Debian's Chromium (`learn` choosing to, `crawl` following the pattern),
//! a site without scripts left unrendered, and the errors of a missing browser.

mod shared;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use exemplar_testkit::live_apps;

const FAST: [&str; 5] = ["--delay-ms", "0", "--concurrency", "8", "--quiet"];

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run exemplar")
}

/// Runs exemplar, which must succeed: its stdout and stderr.
fn ok(args: &[&str]) -> (String, String) {
    let out = run(args, &[]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "exemplar {args:?}\n{stdout}\n{stderr}"
    );
    (stdout, stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The JSON Lines' pages: URL path and HTML.
fn pages(jsonl: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(jsonl)
        .expect("JSON Lines written")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let url = v["url"].as_str().expect("url");
            let path = url::Url::parse(url).expect("a URL").path().to_string();
            (path, v["html"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// The distinct quotes the pages show.
fn quotes(pages: &[(String, String)]) -> BTreeSet<String> {
    let re = regex::Regex::new(r#"<span class="text">(.*?)</span>"#).expect("regex");
    pages
        .iter()
        .flat_map(|(_, html)| re.captures_iter(html).map(|c| c[1].to_string()))
        .collect()
}

fn learn(dir: &Path, entry: &str, example: &str, more: &[&str]) -> (String, serde_json::Value) {
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
    args.extend_from_slice(more);
    let (_, stderr) = ok(&args);
    let json = serde_json::from_str(&std::fs::read_to_string(&pattern).expect("pattern"))
        .expect("pattern JSON");
    (stderr, json)
}

fn crawl(dir: &Path, name: &str, more: &[&str]) -> (String, Vec<(String, String)>) {
    let pattern = dir.join("pattern.json");
    let jsonl = dir.join(name);
    let mut args = vec!["crawl", s(&pattern), "--jsonl", s(&jsonl), "--html"];
    args.extend_from_slice(&FAST);
    args.extend_from_slice(more);
    let (_, stderr) = ok(&args);
    (stderr, pages(&jsonl))
}

#[test]
fn quotes_drawn_by_a_script_are_rendered_learned_and_crawled() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("drawn", "js");
    let (said, pattern) = learn(
        &dir,
        &format!("{}/js/", app.base),
        &format!("{}/js/page/2/", app.base),
        &[],
    );
    assert!(
        said.contains("the example page is drawn by scripts"),
        "{said}"
    );
    assert_eq!(pattern["render"], true, "{pattern:#}");
    assert_eq!(
        pattern["entryTarget"], true,
        "the entry is the list's first page"
    );
    let (said, got) = crawl(&dir, "rendered.jsonl", &[]);
    let paths: BTreeSet<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths.len(), 10, "{paths:#?}");
    assert!(paths.iter().all(|p| p.starts_with("/js/")), "{paths:#?}");
    assert_eq!(quotes(&got).len(), 100, "every quote of the site");
    assert!(
        said.contains("rendered: 11 pages of the 11 pages fetched"),
        "{said}"
    );

    // The same pages fetched only hold no quote: rendering is what shows them.
    let (said, plain) = crawl(&dir, "fetched.jsonl", &["--no-render"]);
    assert_eq!(plain.len(), 10);
    assert!(quotes(&plain).is_empty());
    assert!(!said.contains("rendered:"), "{said}");

    // The Scrapy project, which does not render, says so: on export and when its spider starts.
    let project = dir.join("scrapy");
    let pattern = dir.join("pattern.json");
    let out = run(&["export-scrapy", s(&pattern), s(&project)], &[]);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("drawn by scripts"), "{said}");
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
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("drawn by scripts"), "{log}");
    // Its items are the listing's pages, as served (`/js/page/1/`, a copy of `/js/`, among them).
    let items = exemplar_testkit::item_urls(&project.join("items.jsonl"));
    assert!(items.len() >= 10, "{items:#?}");
    assert!(items.iter().all(|u| u.contains("/js/")), "{items:#?}");
}

#[test]
fn an_infinitely_scrolling_page_is_scrolled_to_its_last_item() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("drawn", "scroll");
    let scroll = format!("{}/scroll", app.base);
    let (said, pattern) = learn(&dir, &scroll, &scroll, &[]);
    assert!(said.contains("drawn by scripts"), "{said}");
    assert_eq!(pattern["render"], true);
    let (said, got) = crawl(&dir, "pages.jsonl", &[]);
    let page = got
        .iter()
        .find(|(p, _)| p == "/scroll")
        .expect("the scrolling page among the targets");
    assert_eq!(quotes(std::slice::from_ref(page)).len(), 100);
    // Only the page that has scripts is rendered; the site's other quote lists are fetched.
    assert!(said.contains("rendered: 1 page of the"), "{said}");
}

#[test]
fn a_site_without_scripts_is_fetched_only() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("drawn", "plain");
    let (said, pattern) = learn(
        &dir,
        &format!("{}/", app.base),
        &format!("{}/author/Albert-Einstein/", app.base),
        &[],
    );
    assert!(said.contains("the example page has no script"), "{said}");
    assert!(pattern.get("render").is_none(), "{pattern:#}");
}

#[test]
fn a_missing_browser_is_a_clear_error_when_asked_for_and_a_note_otherwise() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("drawn", "no-browser");
    let pattern = dir.join("pattern.json");
    let (entry, example) = (
        format!("{}/js/", app.base),
        format!("{}/js/page/2/", app.base),
    );
    let args = |more: &'static [&'static str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "learn",
            "--entry",
            &entry,
            "--example",
            &example,
            "-o",
            s(&pattern),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect();
        a.extend(FAST.iter().chain(more).map(|x| x.to_string()));
        a
    };
    let missing = [("EXEMPLAR_CHROMIUM", "/nonexistent/chromium")];
    let asked = args(&["--render"]);
    let out = run(
        &asked.iter().map(String::as_str).collect::<Vec<_>>(),
        &missing,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--render: rendering needs Chromium at /nonexistent/chromium"),
        "{err}"
    );
    assert!(!pattern.exists(), "nothing learned");

    let auto = args(&[]);
    let out = run(
        &auto.iter().map(String::as_str).collect::<Vec<_>>(),
        &missing,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("pages are fetched, not rendered: rendering needs Chromium"),
        "{err}"
    );

    let both = args(&["--render", "--no-render"]);
    let out = run(&both.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--render and --no-render"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
