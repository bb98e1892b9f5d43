//! Duplicate URLs learned and avoided, through the CLI: a blog whose category listings answer
//! `page/1/` with their first page (WordPress's habit), served on 127.0.0.1. `learn` mines the
//! rule from the copies mapping met; after the blog grows new categories, `crawl` avoids their
//! `page/1/` copies (but the first two, its probes), which a crawl without the rule fetches, and
//! collects the same posts.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use exemplar_native::serve::{Server, static_dir};

const POSTS: usize = 12;
const PER_PAGE: usize = 5;

fn exemplar(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar");
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

fn write(path: &Path, html: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
    std::fs::write(path, html).expect("write");
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><title>{title} – A blog</title></head><body>\
         <header><a href=\"/\">A blog</a></header><main>{body}</main>\
         <footer><p>Powered by a blog engine.</p></footer></body></html>"
    )
}

/// Category `c` of the blog under `root`: its posts, its listing paged by PER_PAGE, and the
/// listing's `page/1/`, a copy of its first page.
fn category(root: &Path, c: usize) {
    let pages = POSTS.div_ceil(PER_PAGE);
    for n in 1..=pages {
        let items: String = (0..POSTS)
            .skip((n - 1) * PER_PAGE)
            .take(PER_PAGE)
            .map(|i| {
                format!(
                    "<article><h2><a href=\"/post/c{c}-{i}/\">Post {i} of category {c}</a></h2>\
                     <p>An excerpt of post {i}, about subject {c}.</p></article>"
                )
            })
            .collect();
        let numbers: String = (1..=pages)
            .map(|k| format!(" <a href=\"/category/c{c}/page/{k}/\">{k}</a>"))
            .collect();
        let newer = if n > 1 {
            format!("<a href=\"/category/c{c}/page/{}/\">Newer posts</a>", n - 1)
        } else {
            String::new()
        };
        let older = if n < pages {
            format!(
                " <a href=\"/category/c{c}/page/{}/\">Older posts</a>",
                n + 1
            )
        } else {
            String::new()
        };
        let html = page(
            &format!("Category {c}"),
            &format!("<h1>Category {c}</h1>{items}<nav>{newer}{older}<p>Pages:{numbers}</p></nav>"),
        );
        if n == 1 {
            write(&root.join(format!("category/c{c}/index.html")), &html);
        }
        write(
            &root.join(format!("category/c{c}/page/{n}/index.html")),
            &html,
        );
    }
    for i in 0..POSTS {
        let paragraphs: String = (0..3 + i % 3)
            .map(|p| {
                format!("<p>Paragraph {p} of post {i} in category {c}, with its own words.</p>")
            })
            .collect();
        write(
            &root.join(format!("post/c{c}-{i}/index.html")),
            &page(
                &format!("Post {i} of category {c}"),
                &format!(
                    "<article><h1>Post {i} of category {c}</h1><p class=meta>Posted in \
                     <a href=\"/category/c{c}/\">category {c}</a></p>{paragraphs}</article>"
                ),
            ),
        );
    }
}

/// The home page linking `categories` categories.
fn home(root: &Path, categories: usize) {
    let links: String = (0..categories)
        .map(|c| format!("<li><a href=\"/category/c{c}/\">Category {c}</a></li>"))
        .collect();
    write(
        &root.join("index.html"),
        &page("Home", &format!("<h1>A blog</h1><ul>{links}</ul>")),
    );
}

/// The generated spider's name for the pattern at `path`.
fn spider_name(path: &str) -> String {
    let text = std::fs::read_to_string(path).expect("pattern");
    let pattern = exemplar_core::pattern::Pattern::from_json(&text).expect("valid pattern");
    exemplar_export::ScrapySpec::from_pattern(&pattern).spider_name()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("exemplar-dust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `crawl PATTERN`: the posts collected (paths), the pages fetched and the copies avoided.
fn crawl(pattern: &str) -> (BTreeSet<String>, usize, usize) {
    let (stdout, stderr) = exemplar(&["crawl", pattern, "--delay-ms", "0", "--quiet"]);
    let posts = stdout
        .lines()
        .map(|u| url::Url::parse(u).map_or_else(|_| u.to_string(), |u| u.path().to_string()))
        .collect();
    let number = |after: &str| -> usize {
        stderr
            .split(after)
            .next()
            .and_then(|s| s.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let fetched = number(" pages fetched");
    let avoided = stderr
        .lines()
        .find(|l| l.contains("not fetched: the pattern's rules for duplicate URLs"))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(fetched > 0, "{stderr}");
    (posts, fetched, avoided)
}

#[test]
fn copies_of_a_listings_first_page_are_learned_and_not_fetched_again() {
    let dir = tempdir("blog");
    let site = dir.join("site");
    for c in 0..4 {
        category(&site, c);
    }
    home(&site, 4);
    let server = Server::start(0, static_dir(&site)).expect("serve");
    let base = server.url();
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8");
    let (learned, _) = exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/"),
        "--example",
        &format!("{base}/post/c0-3/"),
        "-o",
        p,
        "--delay-ms",
        "0",
        "--quiet",
        "--no-fields",
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pattern).expect("pattern")).expect("JSON");
    let rules = json["dustRules"].as_array().expect("dustRules learned");
    assert_eq!(rules.len(), 1, "{learned}");
    assert_eq!(rules[0]["kind"], "dropSuffix");
    assert_eq!(rules[0]["suffix"], "page/1/");
    assert!(
        rules[0]["support"].as_u64().unwrap_or(0) >= 4,
        "{}",
        rules[0]
    );
    assert!(
        learned.contains("  duplicate URLs: drop page/1/ at a path's end ("),
        "{learned}"
    );

    // The blog grows six categories the map never saw.
    for c in 4..10 {
        category(&site, c);
    }
    home(&site, 10);
    let (with, fetched_with, avoided) = crawl(p);
    let mut plain = json.clone();
    plain
        .as_object_mut()
        .expect("an object")
        .remove("dustRules");
    let plain_file = dir.join("plain.json");
    std::fs::write(&plain_file, plain.to_string()).expect("write");
    let (without, fetched_without, none) = crawl(plain_file.to_str().expect("utf-8"));
    assert_eq!(none, 0);
    // Every post, with the rule or without: no unique page lost.
    assert_eq!(with.len(), 10 * POSTS);
    assert_eq!(with, without);
    // The copies a crawl without the rule fetches are avoided but the first few, fetched as
    // probes that confirm the rule against the site as it is now.
    let probes = exemplar_core::crawler::DUST_PROBES as usize;
    let copies = fetched_without - fetched_with + probes;
    eprintln!(
        "posts {}, fetched {fetched_without} without the rule and {fetched_with} with it, {avoided} copies avoided",
        with.len()
    );
    assert_eq!(copies, 6, "{fetched_without} vs {fetched_with}");
    assert_eq!(avoided, copies - probes);

    // The Scrapy spider rewrites URLs by the same rule, as learned (it asks no probes): the
    // same posts, none of the copies asked for (each project is run twice, by the venv's Scrapy
    // and Debian's).
    let spider = |pattern: &str, name: &str| {
        let project = dir.join(name);
        exemplar(&["export-scrapy", pattern, project.to_str().expect("utf-8")]);
        let before = server.requests();
        let items: BTreeSet<String> =
            exemplar_testkit::scrapy_crawl(&project, &spider_name(pattern))
                .iter()
                .map(|u| url::Url::parse(u).map_or_else(|_| u.clone(), |u| u.path().to_string()))
                .collect();
        (items, server.requests() - before)
    };
    let (items, asked_with) = spider(p, "with");
    let (items_without, asked_without) = spider(plain_file.to_str().expect("utf-8"), "without");
    assert_eq!(items, with);
    assert_eq!(items_without, with);
    assert_eq!(asked_without - asked_with, 2 * copies as u64);
}
