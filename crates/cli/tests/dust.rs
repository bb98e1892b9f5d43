//! Duplicate URLs learned and avoided, through the CLI: a blog whose category listings answer
//! `page/1/` with their first page (WordPress's habit), served on 127.0.0.1. `learn` mines the
//! rule from the copies mapping met; after the blog grows new categories, `crawl` avoids their
//! `page/1/` copies (but the first two, its probes), which a crawl without the rule fetches, and
//! collects the same posts.
#![cfg(not(target_arch = "wasm32"))]

mod shared;

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

/// Items the last Scrapy run of the project at `project` wrote (JSON Lines).
fn item_count(project: &Path) -> usize {
    std::fs::read_to_string(project.join("items.jsonl"))
        .expect("items")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// The generated spider's name for the pattern at `path`.
fn spider_name(path: &str) -> String {
    let text = std::fs::read_to_string(path).expect("pattern");
    let pattern = exemplar_core::pattern::Pattern::from_json(&text).expect("valid pattern");
    exemplar_export::ScrapySpec::from_pattern(&pattern).spider_name()
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

/// `learn` from the blog at `base` with the example at path `example`, into `pattern`: what it
/// printed and the pattern's JSON.
fn learn(base: &str, example: &str, pattern: &Path) -> (String, serde_json::Value) {
    let (learned, _) = exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/"),
        "--example",
        &format!("{base}{example}"),
        "-o",
        pattern.to_str().expect("utf-8"),
        "--delay-ms",
        "0",
        "--quiet",
        "--no-fields",
    ]);
    let json =
        serde_json::from_str(&std::fs::read_to_string(pattern).expect("pattern")).expect("JSON");
    (learned, json)
}

/// The pattern `json` without its rules for duplicate URLs, written beside it.
fn without_rules(dir: &Path, json: &serde_json::Value) -> PathBuf {
    let mut plain = json.clone();
    plain
        .as_object_mut()
        .expect("an object")
        .remove("dustRules");
    let file = dir.join("plain.json");
    std::fs::write(&file, plain.to_string()).expect("write");
    file
}

/// The pattern at `pattern` exported as a Scrapy project `dir/name` and run by the venv's Scrapy
/// and Debian's: the paths each run collected, and the requests `server` answered for both.
/// Which URL of a copy a spider collects depends on the order answers come in, so posts are
/// compared by path.
fn spider(server: &Server, dir: &Path, pattern: &str, name: &str) -> ([BTreeSet<String>; 2], u64) {
    let project = dir.join(name);
    exemplar(&["export-scrapy", pattern, project.to_str().expect("utf-8")]);
    let before = server.requests();
    let runs = exemplar_testkit::scrapy_crawl_each(&project, &spider_name(pattern));
    let paths = runs.map(|urls| {
        urls.iter()
            .map(|u| url::Url::parse(u).map_or_else(|_| u.clone(), |u| u.path().to_string()))
            .collect::<BTreeSet<String>>()
    });
    (paths, server.requests() - before)
}

#[test]
fn copies_of_a_listings_first_page_are_learned_and_not_fetched_again() {
    let dir = shared::tempdir("dust", "blog");
    let site = dir.join("site");
    for c in 0..4 {
        category(&site, c);
    }
    home(&site, 4);
    let server = Server::start(0, static_dir(&site)).expect("serve");
    let base = server.url();
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8");
    let (learned, json) = learn(&base, "/post/c0-3/", &pattern);
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
    let plain_file = without_rules(&dir, &json);
    let plain = plain_file.to_str().expect("utf-8");
    let (without, fetched_without, none) = crawl(plain);
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

    // The Scrapy spider keeps the rule on probation as the crawl does: the same posts, and the
    // same copies avoided, its probes asked.
    let (runs, asked_with) = spider(&server, &dir, p, "with");
    let (runs_without, asked_without) = spider(&server, &dir, plain, "without");
    for posts in runs.iter().chain(&runs_without) {
        assert_eq!(posts, &with);
    }
    eprintln!("scrapy asked {asked_with} with the rule, {asked_without} without (two runs each)");
    assert_eq!(asked_without - asked_with, 2 * (copies - probes) as u64);
}

/// A session id under a name the canonical form does not know (`?s=`, as vBulletin writes it),
/// minted by every page for all its links (each listing page also links its category's latest
/// post, so that post is met under several ids): the pattern is learned on URLs that carry it, and
/// the rule that drops it sends each copy to a URL the pattern's regexes never saw. `crawl` and
/// the Scrapy spider both take that rule (the link's own level kept), collect every post, and
/// fetch fewer pages than without it.
#[test]
fn a_session_id_on_every_link_is_dropped_by_a_learned_rule() {
    let dir = shared::tempdir("dust", "sessions");
    let site = dir.join("site");
    for c in 0..3 {
        category(&site, c);
    }
    home(&site, 3);
    let files = static_dir(&site);
    let href = regex::Regex::new(r#"href="(/[^"?#]*)""#).expect("regex");
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        let mut r = files(req);
        let page = req.path.split('?').next().unwrap_or("/");
        // One id a page (the digits of its path's length and bytes), whatever the URL it has.
        let id: u64 = page
            .bytes()
            .fold(page.len() as u64, |h, b| h.wrapping_mul(31) + u64::from(b));
        let mut body = String::from_utf8_lossy(&r.body).into_owned();
        // Every listing page links its category's latest post besides its own list.
        if let Some(c) = page
            .strip_prefix("/category/")
            .and_then(|p| p.split('/').next())
        {
            let latest = format!("<aside><a href=\"/post/{c}-0/\">Latest post</a></aside></main>");
            body = body.replacen("</main>", &latest, 1);
        }
        r.body = href
            .replace_all(&body, |c: &regex::Captures| {
                format!("href=\"{}?s={id:016x}\"", &c[1])
            })
            .into_owned()
            .into_bytes();
        r
    })
    .expect("serve");
    let base = server.url();
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8");
    let (learned, json) = learn(&base, "/post/c0-3/?s=0123456789abcdef", &pattern);
    let rules = json["dustRules"].as_array().expect("dustRules learned");
    assert!(
        rules
            .iter()
            .any(|r| r["kind"] == "dropParam" && r["name"] == "s"),
        "{learned}"
    );
    let plain_file = without_rules(&dir, &json);
    let plain = plain_file.to_str().expect("utf-8");

    let (with, fetched_with, avoided) = crawl(p);
    let (without, fetched_without, _) = crawl(plain);
    eprintln!(
        "posts {}, fetched {fetched_without} without the rule and {fetched_with} with it, \
         {avoided} copies avoided",
        with.len()
    );
    assert_eq!(with.len(), 3 * POSTS, "{with:?}");
    assert_eq!(with, without);
    // Each category's latest post is met under two more ids (on page/2/ and page/3/): six
    // copies, two of them fetched as the rule's probes.
    let probes = exemplar_core::crawler::DUST_PROBES as usize;
    assert_eq!(fetched_without - fetched_with, 6 - probes);
    assert_eq!(avoided, 6 - probes);

    let (runs, asked_with) = spider(&server, &dir, p, "with");
    let (runs_without, asked_without) = spider(&server, &dir, plain, "without");
    eprintln!("scrapy asked {asked_with} with the rule, {asked_without} without (two runs each)");
    for posts in runs.iter().chain(&runs_without) {
        assert_eq!(posts, &with);
    }
    // A probe that found its post is a copy: no item of its own.
    assert_eq!(item_count(&dir.join("with")), 3 * POSTS);
    assert_eq!(asked_without - asked_with, 2 * (6 - probes) as u64);
}
