//! Exports checked by the tools users take them to: the WARC file read and digest-checked by
//! Python `warcio`, the pattern validated by `jsonschema` against its JSON Schema, and the
//! generated Scrapy project run by Scrapy against the same local site, which must collect the
//! same URL set as `exemplar crawl`. The tools live in `.venv`
//! (`./build.sh setup` installs tests/requirements.txt).
#![cfg(not(target_arch = "wasm32"))]

use exemplar_testkit as common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const SITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/demo-site"
);

fn venv(tool: &str) -> PathBuf {
    let p = exemplar_testkit::root().join(".venv/bin").join(tool);
    assert!(
        p.exists(),
        "{} is missing: run ./build.sh setup (installs tests/requirements.txt into .venv)",
        p.display()
    );
    p
}

fn exemplar(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar");
    assert!(
        out.status.success(),
        "exemplar {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn example() -> String {
    let text = std::fs::read_to_string(format!("{SITE}/expected.toml")).expect("expected.toml");
    let doc: toml::Table = toml::from_str(&text).expect("toml");
    doc["example"].as_str().expect("example").to_string()
}

/// Learns the demo site; returns (pattern path, crawl URL set, WARC path, temp dir).
fn learn_and_crawl(base: &str, dir: &Path) -> (PathBuf, BTreeSet<String>, PathBuf) {
    let pattern = dir.join("pattern.json");
    exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/index.html"),
        "--example",
        &format!("{base}/{}", example()),
        "-o",
        pattern.to_str().expect("path"),
        "--delay-ms",
        "0",
        "--quiet",
    ]);
    let warc = dir.join("pages.warc");
    let out = exemplar(&[
        "crawl",
        pattern.to_str().expect("path"),
        "--warc",
        warc.to_str().expect("path"),
        "--quiet",
    ]);
    let urls: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(urls.len() >= 20, "{urls:?}");
    (pattern, urls, warc)
}

/// The URLs `exemplar crawl` collects with the pattern at `pattern`.
fn crawl_urls(pattern: &Path) -> BTreeSet<String> {
    let out = exemplar(&["crawl", pattern.to_str().expect("path"), "--quiet"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The spider generated from `pattern` collects exactly `crawled` (what `exemplar crawl` did);
/// then `dir` is removed.
fn assert_scrapy_collects(pattern: &Path, dir: &Path, crawled: &BTreeSet<String>) {
    let got = scrapy_urls(pattern, dir);
    assert_eq!(
        &got, crawled,
        "Scrapy and exemplar crawl collect the same URLs"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Exports the pattern at `pattern` as a Scrapy project under `dir`, runs its spider, and
/// returns the URLs it collected.
fn scrapy_urls(pattern: &Path, dir: &Path) -> BTreeSet<String> {
    scrapy_urls_with(pattern, dir, &[])
}

/// [`scrapy_urls`] with more arguments for `scrapy crawl` (`-s NAME=VALUE`).
fn scrapy_urls_with(pattern: &Path, dir: &Path, args: &[&str]) -> BTreeSet<String> {
    let project = dir.join("project");
    exemplar(&[
        "export-scrapy",
        pattern.to_str().expect("path"),
        project.to_str().expect("path"),
    ]);
    let p = exemplar_core::pattern::Pattern::from_json(
        &std::fs::read_to_string(pattern).expect("pattern"),
    )
    .expect("valid pattern");
    let name = exemplar_export::ScrapySpec::from_pattern(&p).spider_name();
    common::scrapy_crawl_args(&project, &name, args)
        .into_iter()
        .collect()
}

/// Writes a pattern (a hand-made one, [`common::hand_pattern`]) to `dir/pattern.json`, checked
/// valid, and returns its path.
fn write_pattern(dir: &Path, pattern: &serde_json::Value) -> PathBuf {
    let path = dir.join("pattern.json");
    std::fs::write(&path, pattern.to_string()).expect("write pattern");
    exemplar_core::pattern::Pattern::from_json(&pattern.to_string()).expect("valid pattern");
    path
}

/// The target URI of every response record of a WARC file, in order, as `warcio` reads them
/// (each body checked to be an HTML page with status 200, each followed by a `metadata` record
/// concurrent to it that gives the page's level; other records must be `warcinfo`).
fn warc_response_uris(warc: &Path) -> Vec<String> {
    let script = r#"
import sys
from warcio.archiveiterator import ArchiveIterator
last = None
with open(sys.argv[1], 'rb') as f:
    for r in ArchiveIterator(f):
        uri = r.rec_headers.get_header('WARC-Target-URI')
        if r.rec_type == 'response':
            assert last is None, 'a response without its metadata'
            body = r.content_stream().read()
            assert r.http_headers.get_statuscode() == '200'
            assert b'<html' in body.lower(), uri
            last = (r.rec_headers.get_header('WARC-Record-ID'), uri)
            print(uri)
        elif r.rec_type == 'metadata':
            assert last == (r.rec_headers.get_header('WARC-Concurrent-To'), uri), (last, uri)
            assert r.rec_headers.get_header('Content-Type') == 'application/warc-fields'
            fields = dict(l.split(': ', 1) for l in r.content_stream().read().decode().splitlines())
            assert fields['level'].isdigit(), fields
            last = None
        else:
            assert r.rec_type == 'warcinfo', r.rec_type
assert last is None, 'a response without its metadata'
"#;
    let out = Command::new(venv("python"))
        .args(["-c", script])
        .arg(warc)
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("exemplar-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

#[test]
fn warc_is_read_and_digest_checked_by_warcio() {
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
        .expect("serve");
    let dir = temp_dir("warc");
    let (_, urls, warc) = learn_and_crawl(&server.url(), &dir);
    let check = Command::new(venv("warcio"))
        .args(["check", "-v"])
        .arg(&warc)
        .output()
        .expect("warcio check");
    assert!(
        check.status.success(),
        "warcio check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let read: BTreeSet<String> = warc_response_uris(&warc).into_iter().collect();
    assert_eq!(read, urls, "one response record per crawled page");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn learned_pattern_validates_against_the_json_schema() {
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
        .expect("serve");
    let dir = temp_dir("schema");
    let (pattern, _, _) = learn_and_crawl(&server.url(), &dir);
    let script = r##"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
v.validate(json.load(open(sys.argv[2])))
bad = json.load(open(sys.argv[2]))
bad["levels"] = [{"regexes": []}]
assert list(v.iter_errors(bad)), "an empty level must be invalid"
ok = json.load(open(sys.argv[2]))
ok["corrections"] = {"like": ["http://a.test/x"], "unlike": []}
v.validate(ok)
ok["levels"][0]["fromTargets"] = True
v.validate(ok)
ok["entryTarget"] = True
v.validate(ok)
ok["entryTarget"] = "yes"
assert list(v.iter_errors(ok)), "entryTarget is a boolean"
del ok["entryTarget"]
ok["levels"][0]["fromTargets"] = 1
assert list(v.iter_errors(ok)), "fromTargets is a boolean"
del ok["levels"][0]["fromTargets"]
# A kind left out by heading: the verdict, the targets it left out, the rule's refusal.
ok["corrections"] = {"like": [], "unlike": [], "unlikeHeadings": ["* File Reference"]}
ok["unlikeByHeading"] = ["http://a.test/Logger_8h.html"]
ok["headingRule"] = {"templates": [], "unlike": ["* File Reference"], "kindWords": ["html"], "common": [], "qualified": True}
v.validate(ok)
ok["headingRule"]["qualified"] = "yes"
assert list(v.iter_errors(ok)), "qualified is a boolean"
ok["headingRule"]["qualified"] = True
ok["headingRule"]["unlike"] = "* File Reference"
assert list(v.iter_errors(ok)), "unlike is a list"
# A kind below θ taken, and numbered headings left out.
ok["corrections"] = {"like": [], "unlike": [], "likeHeadings": ["Class virtual *"], "unlikeHeadings": ["#"]}
ok["headingRule"] = {"templates": ["Class *"], "like": ["Class virtual *"], "unlike": ["#"], "kindWords": [], "common": []}
v.validate(ok)
ok["headingRule"]["like"] = "Class virtual *"
assert list(v.iter_errors(ok)), "like is a list"
del ok["headingRule"]
# Directories left out: the verdict and the targets it left out.
ok["corrections"] = {"like": [], "unlike": [], "unlikeDirectories": ["http://a.test/en/howto/"], "likeDirectories": ["http://a.test/en/"]}
ok["unlikeByDirectory"] = ["http://a.test/en/howto/cgi.html"]
v.validate(ok)
for wrong in (["http://a.test/en/howto"], ["/en/howto/"], ["http://a.test/en/?q=1/"]):
    ok["corrections"]["unlikeDirectories"] = wrong
    assert list(v.iter_errors(ok)), wrong
del ok["unlikeByDirectory"]
for wrong in ({"like": "http://a.test/x"}, {"likes": []}):
    ok["corrections"] = wrong
    assert list(v.iter_errors(ok)), wrong
del ok["corrections"]
# Rules for duplicate URLs: each kind, and what a rule must not be.
ok["dustRules"] = [
    {"kind": "dropParam", "name": "replytocom", "support": 4, "samples": [["http://a.test/p/?replytocom=1", "http://a.test/p/"]]},
    {"kind": "dropParam", "name": "page", "value": "1", "support": 3},
    {"kind": "dropSuffix", "suffix": "page/1/", "support": 5, "samples": []},
    {"kind": "prefix", "from": "/EN/", "to": "/en/", "support": 3},
]
v.validate(ok)
for wrong in ({"kind": "dropSuffix", "suffix": "", "support": 3}, {"kind": "prefix", "from": "EN/", "to": "/en/", "support": 3},
              {"kind": "dropParam", "support": 3}, {"kind": "replace", "from": "a", "to": "b", "support": 3},
              {"kind": "dropSuffix", "suffix": "x", "support": 3, "samples": [["only one"]]}):
    ok["dustRules"] = [wrong]
    assert list(v.iter_errors(ok)), wrong
print("ok")
"##;
    let schema = exemplar_testkit::root().join("schemas/pattern-2.schema.json");
    let out = Command::new(venv("python"))
        .args(["-c", script])
        .arg(&schema)
        .arg(&pattern)
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The schema shipped in the crate is the file in the repository.
    assert_eq!(
        exemplar_core::pattern::SCHEMA,
        std::fs::read_to_string(&schema).expect("schema")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generated_scrapy_project_collects_the_same_urls() {
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
        .expect("serve");
    let dir = temp_dir("scrapy");
    let (pattern, urls, _) = learn_and_crawl(&server.url(), &dir);
    assert_scrapy_collects(&pattern, &dir, &urls);
}

/// Started from the example page itself (the extension's "This page" entry): the entry is
/// like the example, so `exemplar crawl` collects it with every other target the crawl from the
/// home page collects, and the generated spider collects the same set.
#[test]
fn an_entry_like_the_example_is_collected_by_the_crawl_and_the_spider() {
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
        .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    let dir = temp_dir("scrapy-entry");
    let (_, from_home, _) = learn_and_crawl(base, &dir);
    let entry = format!("{base}/{}", example());
    let pattern = dir.join("from-example.json");
    exemplar(&[
        "learn",
        "--entry",
        &entry,
        "--example",
        &entry,
        "-o",
        pattern.to_str().expect("path"),
        "--delay-ms",
        "0",
        "--quiet",
    ]);
    let p = exemplar_core::pattern::Pattern::from_json(
        &std::fs::read_to_string(&pattern).expect("read"),
    )
    .expect("valid pattern");
    assert!(
        p.entry_target && p.known_targets.contains(&entry),
        "{}",
        p.render()
    );
    let crawled = crawl_urls(&pattern);
    assert!(
        from_home.contains(&entry),
        "the home page's crawl collects the example"
    );
    assert_eq!(
        crawled, from_home,
        "the same targets from the example as from the home page"
    );
    assert_scrapy_collects(&pattern, &dir, &crawled);
}

/// Writes `site/path`: a page titled with its path listing `links` (paths from the site's root).
fn write_listing(site: &Path, path: &str, links: &[&str]) {
    let file = site.join(path);
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let items: String = links
        .iter()
        .map(|l| format!("<li><a href=\"/{l}\">{l}</a></li>"))
        .collect();
    let html = format!("<!doctype html><title>{path}</title><ul>{items}</ul>");
    std::fs::write(file, html).expect("write");
}

/// A link from a page straight to a page of a deeper level is followed there (a home page
/// linking a listing two levels down): by `exemplar crawl` and by the generated spider alike. A
/// three-level pattern over a small site whose home page links one listing directly; that
/// listing's items are reachable no other way.
#[test]
fn scrapy_follows_links_to_deeper_levels_as_the_crawler_does() {
    let dir = temp_dir("scrapy-deeper");
    let site = dir.join("site");
    let page = |path: &str, links: &[&str]| write_listing(&site, path, links);
    page(
        "index.html",
        &["section/a.html", "section/b.html", "list/z-1.html"],
    );
    page(
        "section/a.html",
        &["list/a-1.html", "list/a-2.html", "index.html"],
    );
    page("section/b.html", &["list/b-1.html"]);
    page("list/a-1.html", &["item/a1.html", "item/a2.html"]);
    page("list/a-2.html", &["item/a3.html"]);
    page("list/b-1.html", &["item/b1.html"]);
    page("list/z-1.html", &["item/z1.html", "item/z2.html"]);
    for item in ["a1", "a2", "a3", "b1", "z1", "z2"] {
        page(&format!("item/{item}.html"), &["index.html"]);
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url();
    let pattern = common::hand_pattern(
        base.trim_end_matches('/'),
        "index.html",
        "item/a1.html",
        &[
            ("section/[a-z]+\\.html", false),
            ("list/[a-z]+-[0-9]+\\.html", false),
            ("item/[a-z0-9]+\\.html", false),
        ],
        true,
    );
    let path = write_pattern(&dir, &pattern);
    let crawled = crawl_urls(&path);
    let items = |names: &[&str]| -> BTreeSet<String> {
        names
            .iter()
            .map(|n| format!("{}/item/{n}.html", base.trim_end_matches('/')))
            .collect()
    };
    assert_eq!(
        crawled,
        items(&["a1", "a2", "a3", "b1", "z1", "z2"]),
        "exemplar crawl"
    );
    assert_scrapy_collects(&path, &dir, &crawled);
}

/// Directories the user judged unlike the example's: `exemplar crawl` and the generated spider
/// refuse the targets in them alike, and the targets learning left out for them, but the example
/// and the pages judged like it. Items and guides match one target regex.
#[test]
fn scrapy_refuses_the_directories_judged_unlike_as_the_crawler_does() {
    let dir = temp_dir("scrapy-directories");
    let site = dir.join("site");
    let page = |path: &str, links: &[&str]| write_listing(&site, path, links);
    let pages = [
        "item/a.html",
        "item/b.html",
        "item/c.html",
        "guide/g1.html",
        "guide/g2.html",
        "guide/g3.html",
        "howto/h1.html",
    ];
    page("index.html", &pages);
    for p in pages {
        page(p, &["index.html"]);
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    let mut pattern = common::hand_pattern(
        base,
        "index.html",
        "item/a.html",
        &[("[a-z]+/[a-z0-9]+\\.html", false)],
        true,
    );
    let url = |p: &str| format!("{base}/{p}");
    pattern["corrections"] = serde_json::json!({
        "like": [url("guide/g2.html")],
        "unlike": [],
        "unlikeDirectories": [url("guide/"), url("item/")],
    });
    pattern["unlikeByDirectory"] = serde_json::json!([url("howto/h1.html")]);
    let path = write_pattern(&dir, &pattern);
    let before = server.requests();
    let crawled = crawl_urls(&path);
    let expected: BTreeSet<String> = ["item/a.html", "guide/g2.html"].map(url).into();
    assert_eq!(crawled, expected, "exemplar crawl");
    // robots.txt, the entry, the two items and the two common sitemap locations (robots.txt
    // names none; none there): the pages refused by their URL are not fetched.
    let by_crawl = server.requests() - before;
    assert_eq!(by_crawl, 4 + 2);
    let before = server.requests();
    assert_scrapy_collects(&path, &dir, &crawled);
    // The same by each of the two Scrapy runs (the repository's and Debian's), and robots.txt
    // once more, asked by the spider for its `Sitemap:` lines (Scrapy's robots middleware keeps
    // its own copy to itself).
    assert_eq!(server.requests() - before, 2 * (by_crawl + 1));
}

/// One page served under two URLs that declare one canonical URL (a shop's item in two
/// categories, each copy showing the category it sits in, so their bytes and text differ):
/// `exemplar crawl` and the generated spider collect it once, the first copy met; pages that
/// name one canonical URL but are headed apart (a site naming its home page canonical
/// everywhere) stay apart.
#[test]
fn scrapy_collects_a_canonical_page_once_as_the_crawler_does() {
    let dir = temp_dir("scrapy-canonical");
    let site = dir.join("site");
    let item = |path: &str, canonical: &str, heading: &str, category: &str| {
        let file = site.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        let html = format!(
            "<!doctype html><html><head><title>Shop</title>\
             <link rel=\"stylesheet\" href=\"/s.css\"><link rel=\"Canonical\" href=\"{canonical}\">\
             </head><body><h1>{heading}</h1><p>In {category}.</p></body></html>"
        );
        std::fs::write(file, html).expect("write");
    };
    item("a/kettle.html", "/item/kettle.html", "Kettle", "kitchen");
    item("b/kettle.html", "/item/kettle.html#top", "Kettle", "garden");
    item("a/stool.html", "/item/stool.html", "Stool", "kitchen");
    item(
        "b/stool.html",
        "http://elsewhere.test/stool",
        "Stool",
        "garden",
    );
    item("a/pot.html", "/", "Pot", "kitchen");
    item("b/rake.html", "/", "Rake", "garden");
    write_listing(&site, "index.html", &["list-a.html", "list-b.html"]);
    write_listing(
        &site,
        "list-a.html",
        &["a/kettle.html", "a/stool.html", "a/pot.html"],
    );
    write_listing(
        &site,
        "list-b.html",
        &["b/kettle.html", "b/stool.html", "b/rake.html"],
    );
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    let pattern = common::hand_pattern(
        base,
        "index.html",
        "a/kettle.html",
        &[("list-[ab]\\.html", false), ("[ab]/[a-z]+\\.html", false)],
        true,
    );
    let path = write_pattern(&dir, &pattern);
    let crawled = crawl_urls(&path);
    let url = |p: &str| format!("{base}/{p}");
    // The kettle once (whichever copy came first); the stool's copies name two canonical URLs,
    // the pot and the rake one, but they are headed apart.
    assert_eq!(crawled.len(), 5, "{crawled:?}");
    assert_eq!(
        crawled
            .iter()
            .filter(|u| u.ends_with("/kettle.html"))
            .count(),
        1,
        "{crawled:?}"
    );
    for p in ["a/stool.html", "b/stool.html", "a/pot.html", "b/rake.html"] {
        assert!(crawled.contains(&url(p)), "{p}: {crawled:?}");
    }
    // Which copy comes first depends on the order of the answers: the spider runs one request
    // at a time (so both Scrapy versions meet the copies in one order), and the two crawls
    // agree up to the kettle's copy.
    let got = scrapy_urls_with(&path, &dir, &["-s", "CONCURRENT_REQUESTS=1"]);
    let kettle_once = |urls: &BTreeSet<String>| -> BTreeSet<String> {
        urls.iter()
            .map(|u| u.replace("/a/kettle.html", "/b/kettle.html"))
            .collect()
    };
    assert_eq!(got.len(), 5, "{got:?}");
    assert_eq!(kettle_once(&got), kettle_once(&crawled));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The sitemaps robots.txt names: a served shop whose listing links three of its eight items,
/// and whose sitemap index lists a gzip-compressed sitemap of items and a text one, and a
/// sitemap host (another server) with an index there. `exemplar crawl` and the generated
/// spider read them and collect six (one is disallowed, one named only by the sitemap host's
/// own robots.txt), `--no-sitemaps` the three.
#[test]
fn scrapy_reads_the_sitemaps_robots_txt_names_as_the_crawler_does() {
    let dir = temp_dir("scrapy-sitemaps");
    let site = dir.join("site");
    let items = ["item/1.html", "item/2.html", "item/3.html"];
    write_listing(&site, "index.html", &["list.html"]);
    write_listing(&site, "list.html", &items);
    for i in 1..=6 {
        write_listing(&site, &format!("item/{i}.html"), &["index.html"]);
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    let url = |p: &str| format!("{base}/{p}");
    std::fs::write(
        site.join("robots.txt"),
        format!(
            "User-agent: *\nDisallow: /item/6.html\nSitemap: {}\n",
            url("sitemaps/index.xml")
        ),
    )
    .expect("robots");
    std::fs::create_dir_all(site.join("sitemaps")).expect("mkdir");
    std::fs::write(
        site.join("sitemaps/index.xml"),
        format!(
            "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
             <sitemap><loc>{}</loc></sitemap><sitemap><loc>{}</loc></sitemap></sitemapindex>",
            url("sitemaps/items.xml.gz"),
            url("sitemaps/more.txt")
        ),
    )
    .expect("index");
    // Item 4's entry carries an image (Google's extension) whose address is item 8's page: a
    // picture's address, which neither the crawler nor Scrapy's sitemap reader takes as a page.
    let urlset = format!(
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\
         <url><loc>{}</loc></url><url><loc>{}</loc><image:image><image:loc>{}</image:loc></image:image></url>\
         <url><loc>{}</loc></url></urlset>",
        url("item/2.html"),
        url("item/4.html"),
        url("item/8.html"),
        url("index.html")
    );
    let gz = Command::new("gzip")
        .arg("-c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(urlset.as_bytes())?;
            child.wait_with_output()
        })
        .expect("gzip");
    std::fs::write(site.join("sitemaps/items.xml.gz"), gz.stdout).expect("gz");
    std::fs::write(
        site.join("sitemaps/more.txt"),
        format!("{}\n{}\n", url("item/5.html"), url("item/6.html")),
    )
    .expect("text sitemap");
    // A sitemap host (a CDN, `localhost`: another host than the site's 127.0.0.1) that
    // robots.txt names: its index lists a text sitemap there naming item 7; its own robots.txt
    // names a sitemap naming item 8, which is not the site's to name.
    let cdn_dir = dir.join("cdn");
    std::fs::create_dir_all(cdn_dir.join("s")).expect("mkdir");
    let cdn =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&cdn_dir))
            .expect("serve");
    let cdn_url = |p: &str| format!("{}/{p}", cdn.url().replace("127.0.0.1", "localhost"));
    for i in 7..=8 {
        write_listing(&site, &format!("item/{i}.html"), &["index.html"]);
    }
    std::fs::write(
        cdn_dir.join("robots.txt"),
        format!("User-agent: *\nSitemap: {}\n", cdn_url("theirs.txt")),
    )
    .expect("cdn robots");
    std::fs::write(cdn_dir.join("theirs.txt"), url("item/8.html") + "\n").expect("theirs");
    std::fs::write(
        cdn_dir.join("s/index.xml"),
        format!(
            "<sitemapindex><sitemap><loc>{}</loc></sitemap></sitemapindex>",
            cdn_url("s/part.txt")
        ),
    )
    .expect("cdn index");
    std::fs::write(cdn_dir.join("s/part.txt"), url("item/7.html") + "\n").expect("cdn part");
    std::fs::write(
        site.join("robots.txt"),
        format!(
            "User-agent: *\nDisallow: /item/6.html\nSitemap: {}\nSitemap: {}\n",
            url("sitemaps/index.xml"),
            cdn_url("s/index.xml")
        ),
    )
    .expect("robots");
    let pattern = common::hand_pattern(
        base,
        "index.html",
        "item/1.html",
        &[("list\\.html", false), ("item/[0-9]+\\.html", false)],
        true,
    );
    let path = write_pattern(&dir, &pattern);
    let crawled = crawl_urls(&path);
    // Item 6 is listed, but robots.txt disallows it; 7 is listed on the sitemap host, 8 only by
    // that host's own robots.txt and as an image's address.
    let expected: BTreeSet<String> = (1..=5)
        .chain([7])
        .map(|i| url(&format!("item/{i}.html")))
        .collect();
    assert_eq!(crawled, expected);
    let out = exemplar(&[
        "crawl",
        path.to_str().expect("path"),
        "--quiet",
        "--no-sitemaps",
    ]);
    let listed: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, items.iter().map(|p| url(p)).collect());
    assert_scrapy_collects(&path, &dir, &crawled);
}

/// The robots meta tag's `nofollow` and `rel=nofollow` links: `exemplar crawl` and the generated
/// spider follow neither while the pattern obeys robots, and both when it does not. A listing
/// asks robots not to follow its links; another marks one of its two links `nofollow`.
#[test]
fn scrapy_obeys_nofollow_as_the_crawler_does() {
    let dir = temp_dir("scrapy-nofollow");
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("list")).expect("mkdir");
    std::fs::create_dir_all(site.join("item")).expect("mkdir");
    let write = |path: &str, head: &str, body: &str| {
        let html = format!(
            "<!doctype html><html><head><title>{path}</title>{head}</head><body>{body}</body></html>"
        );
        std::fs::write(site.join(path), html).expect("write");
    };
    write(
        "index.html",
        "",
        "<a href='/list/a.html'>a</a> <a href='/list/b.html'>b</a>",
    );
    write(
        "list/a.html",
        "<meta name='ROBOTS' content='index, NoFollow'>",
        "<a href='/item/a1.html'>a1</a> <a href='/item/a2.html'>a2</a>",
    );
    write(
        "list/b.html",
        "",
        "<a href='/item/b1.html'>b1</a> <a rel='external nofollow' href='/item/b2.html'>b2</a>",
    );
    for item in ["a1", "a2", "b1", "b2"] {
        write(
            &format!("item/{item}.html"),
            "",
            "<a href='/index.html'>home</a>",
        );
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url().trim_end_matches('/').to_string();
    let items = |names: &[&str]| -> BTreeSet<String> {
        names
            .iter()
            .map(|n| format!("{base}/item/{n}.html"))
            .collect()
    };
    for (obey, expected) in [
        (true, items(&["b1"])),
        (false, items(&["a1", "a2", "b1", "b2"])),
    ] {
        let pattern = common::hand_pattern(
            &base,
            "index.html",
            "item/b1.html",
            &[
                ("list/[a-z]+\\.html", false),
                ("item/[a-z0-9]+\\.html", false),
            ],
            obey,
        );
        let path = dir.join(format!("pattern-{obey}.json"));
        std::fs::write(&path, pattern.to_string()).expect("write pattern");
        let crawled = crawl_urls(&path);
        assert_eq!(crawled, expected, "exemplar crawl, obeying robots: {obey}");
        assert_eq!(
            scrapy_urls(&path, &dir.join(format!("scrapy-{obey}"))),
            expected,
            "Scrapy, obeying robots: {obey}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module's class list linked only from class pages (Qt's D-Bus and network modules): the
/// entry links one module's list; a class of it links another module's list ("see also"),
/// whose classes are reachable no other way. Learning marks the list level as followed from
/// targets; `exemplar crawl` and the generated spider collect every class, and nothing else.
#[test]
fn listings_linked_only_from_targets_are_followed_from_targets() {
    let dir = temp_dir("scrapy-from-targets");
    let site = dir.join("site");
    let write = |path: &str, html: String| {
        let file = site.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, html).expect("write");
    };
    let links = |hrefs: &[String]| -> String {
        hrefs
            .iter()
            .map(|h| format!("<li><a href=\"/{h}\">{h}</a></li>"))
            .collect()
    };
    let modules = [("core", 4), ("net", 3), ("gui", 3)];
    let classes = |m: &str, k: usize| -> Vec<String> {
        (1..=k).map(|i| format!("class/{m}-{i}.html")).collect()
    };
    write(
        "index.html",
        format!(
            "<!doctype html><title>Docs</title><h1>Docs</h1><p>Start with the core module.</p><ul>{}</ul>",
            links(&["modules/core.html".into(), "guide.html".into()])
        ),
    );
    write(
        "guide.html",
        "<!doctype html><title>Guide</title><h1>Guide</h1><p>Prose.</p><p>More prose.</p>".into(),
    );
    for (i, (m, k)) in modules.iter().enumerate() {
        write(
            &format!("modules/{m}.html"),
            format!(
                "<!doctype html><title>{m} module</title><h1>{m} Module</h1><ul>{}</ul>",
                links(&classes(m, *k))
            ),
        );
        for c in classes(m, *k) {
            // The module's list, and from the first class the next module's ("see also").
            let mut to = vec![format!("modules/{m}.html")];
            if let Some((next, _)) = modules.get(i + 1).filter(|_| c.ends_with("-1.html")) {
                to.push(format!("modules/{next}.html"));
            }
            let members: String = (0..6)
                .map(|j| {
                    format!(
                        "<tr><td class=\"type\">int</td><td class=\"name\">member{j}()</td></tr>"
                    )
                })
                .collect();
            write(
                &c,
                format!(
                    "<!doctype html><title>{c}</title><div class=\"header\"><ul class=\"crumbs\">{}</ul></div>\
                     <div class=\"content\"><h1 class=\"title\">{c} Class</h1><p class=\"brief\">A class.</p>\
                     <h2>Public Functions</h2><table class=\"members\">{members}</table>\
                     <h2>Detailed Description</h2><p>Text.</p></div>",
                    links(&to)
                ),
            );
        }
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(&site))
            .expect("serve");
    let base = server.url().trim_end_matches('/').to_string();
    let path = dir.join("pattern.json");
    exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/index.html"),
        "--example",
        &format!("{base}/class/core-2.html"),
        "-o",
        path.to_str().expect("path"),
        "--delay-ms",
        "0",
        "--quiet",
    ]);
    let text = std::fs::read_to_string(&path).expect("pattern");
    let p = exemplar_core::pattern::Pattern::from_json(&text).expect("valid pattern");
    let n = p.levels.len();
    assert!(n >= 2 && p.levels[n - 2].from_targets, "{}", p.render());
    assert!(p.render().contains("also followed from targets"));
    let all: BTreeSet<String> = modules
        .iter()
        .flat_map(|(m, k)| classes(m, *k))
        .map(|c| format!("{base}/{c}"))
        .collect();
    let crawled = crawl_urls(&path);
    assert_eq!(crawled, all, "exemplar crawl: {}", p.render());
    // Without the mark, the crawl stops at the modules the entry links.
    let mut plain = p.clone();
    plain.levels[n - 2].from_targets = false;
    let plain_path = dir.join("plain.json");
    std::fs::write(&plain_path, plain.to_json()).expect("write");
    assert_eq!(
        crawl_urls(&plain_path).len(),
        4,
        "only the core module's classes"
    );
    assert_scrapy_collects(&path, &dir, &crawled);
}

/// `crawl --state`: killed (SIGKILL, after a save), then interrupted (Ctrl-C, which saves), then
/// run to the end by the same command each time — the exports hold every page of an
/// uninterrupted crawl exactly once, the WARC still reads in `warcio` with unique record ids,
/// and the finished crawl removes its state file. Mismatched commands are refused.
#[test]
fn a_killed_or_interrupted_crawl_resumes_and_exports_every_page_once() {
    use std::time::{Duration, Instant};
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
        .expect("serve");
    let dir = temp_dir("resume");
    let (pattern, urls, _) = learn_and_crawl(&server.url(), &dir);
    let path = |name: &str| dir.join(name).to_str().expect("path").to_string();
    let (state, jsonl, csv, warc) = (
        path("state.json"),
        path("pages.jsonl"),
        path("pages.csv"),
        path("pages.warc"),
    );
    let pattern = pattern.to_str().expect("path").to_string();
    // An earlier export to compare with (`--since`): the first target missing (new), every
    // other one with another text (changed), the rest without digests (as they were), and a
    // page no longer found. The comparison survives the interruptions (the state keeps it).
    let earlier = path("earlier.jsonl");
    let mut lines_before =
        vec![r#"{"url":"http://gone.invalid/x","textDigest":"0000000000000000"}"#.to_string()];
    let mut changed = 0;
    for (i, u) in urls.iter().enumerate().skip(1) {
        if i % 2 == 1 {
            changed += 1;
            lines_before.push(format!(
                r#"{{"url":"{u}","textDigest":"ffffffffffffffff"}}"#
            ));
        } else {
            lines_before.push(format!(r#"{{"url":"{u}"}}"#));
        }
    }
    std::fs::write(&earlier, lines_before.join("\n")).expect("earlier export");
    let since = format!(
        "since {earlier}: 1 new, {changed} changed, {} as they were, 1 no longer found",
        urls.len() - 1 - changed
    );
    // 150 ms between requests: the crawl of the demo site takes a few seconds.
    let args: Vec<String> = [
        "crawl",
        &pattern,
        "--since",
        &earlier,
        "--state",
        &state,
        "--save-every",
        "1",
        "--jsonl",
        &jsonl,
        "--html",
        "--csv",
        &csv,
        "--warc",
        &warc,
        "--delay-ms",
        "150",
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_exemplar"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn exemplar")
    };
    let lines = |p: &str| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let wait_for_save = || {
        let start = Instant::now();
        while !Path::new(&state).exists() {
            assert!(start.elapsed() < Duration::from_secs(20), "no state saved");
            std::thread::sleep(Duration::from_millis(20));
        }
    };

    // 1. Killed outright between two saves: the pages written after the first are cut on
    //    resume (the save says how long each export was).
    //    With the pages' HTML in the records, the file grows between saves (whole buffers,
    //    so its end may be half a record).
    let mut child = spawn();
    wait_for_save();
    let saved_size = || -> u64 {
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("json");
        assert_eq!(saved["run"]["exports"][0]["path"], jsonl.as_str());
        saved["run"]["exports"][0]["bytes"]
            .as_u64()
            .expect("jsonl size")
    };
    let start = Instant::now();
    while std::fs::metadata(&jsonl).expect("jsonl").len() <= saved_size() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the file never grew"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill");
    let _ = child.wait();
    let (len, mark) = (
        std::fs::metadata(&jsonl).expect("jsonl").len(),
        saved_size(),
    );
    assert!(
        len > mark,
        "pages written after the save: {len} > {mark} bytes"
    );
    let written = lines(&jsonl).len();
    assert!(
        written < urls.len(),
        "killed before the end: {written} of {}",
        urls.len()
    );

    // 2. Resumed, then interrupted with Ctrl-C: it saves, says so and exits with 130.
    let child = spawn();
    std::thread::sleep(Duration::from_millis(1200));
    // SAFETY: sending SIGINT to our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resuming the crawl saved in"), "{stderr}");
    assert!(
        stderr.contains("interrupted: the crawl is saved in"),
        "{stderr}"
    );
    assert!(Path::new(&state).exists());
    assert!(
        lines(&jsonl).len() < urls.len(),
        "interrupted before the end"
    );

    // A command that does not match the saved crawl is refused; the state is kept.
    let mut other = args.clone();
    let at = other.iter().position(|a| a == "--csv").expect("csv");
    other.drain(at..at + 2);
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(&other)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give the same files to resume"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut slower = args.clone();
    let at = slower.iter().position(|a| a == "150").expect("delay");
    slower[at] = "300".into();
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(&slower)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    assert!(Path::new(&state).exists());

    // 3. The same command runs it to the end.
    let out = spawn().wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, urls, "every target of the crawl, whatever the runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&since), "{since}\n{stderr}");
    assert!(
        !Path::new(&state).exists(),
        "a finished crawl removes its state"
    );

    let records: Vec<String> = lines(&jsonl)
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a whole JSON line");
            v["url"].as_str().expect("url").to_string()
        })
        .collect();
    assert_eq!(records.len(), urls.len(), "no page twice: {records:?}");
    assert_eq!(records.iter().cloned().collect::<BTreeSet<_>>(), urls);
    let rows = lines(&csv);
    // The page's columns, then one per data field of the pattern.
    assert!(
        rows[0].starts_with("url,final_url,status,title,heading,similarity,level,fetched_at,"),
        "{}",
        rows[0]
    );
    assert_eq!(rows.len(), urls.len() + 1, "one header, a row per page");
    let uris = warc_response_uris(Path::new(&warc));
    assert_eq!(uris.len(), urls.len(), "one response record per page");
    assert_eq!(uris.into_iter().collect::<BTreeSet<_>>(), urls);
    let text = String::from_utf8_lossy(&std::fs::read(&warc).expect("warc")).to_string();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("WARC-Record-ID: "))
        .collect();
    assert_eq!(
        ids.len(),
        2 * urls.len() + 1,
        "one warcinfo, a response and its metadata per page"
    );
    assert_eq!(
        ids.iter().collect::<BTreeSet<_>>().len(),
        ids.len(),
        "record ids stay unique across runs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `.js` file under `dir`, recursively (symlinks followed, as `exemplar serve` does).
fn scripts_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            scripts_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "js") {
            out.push(p);
        }
    }
}

/// The generated spider carries a Python port of `script_links::page_urls`: on every script
/// of the development and training sites (Doxygen menus and tree views, Sphinx's search index,
/// javadoc's scripts) and on hand-made hard cases, it must name the same page URLs as Exemplar,
/// or the spider and `exemplar crawl` would follow different links.
#[test]
fn the_scrapy_spider_reads_scripts_as_exemplar_does() {
    let dir = temp_dir("scrapy-scripts");
    let mut files = Vec::new();
    for sites in [
        exemplar_testkit::devsites::DEFAULT_SITES,
        exemplar_testkit::devsites::TRAIN_SITES,
    ] {
        for site in exemplar_testkit::devsites::load(Path::new(sites)).expect("sites") {
            scripts_under(&site.root, &mut files);
        }
    }
    let doxygen = files.iter().filter(|f| f.ends_with("menudata.js")).count();
    assert!(
        files.len() >= 300 && doxygen >= 3,
        "the sites' scripts (./build.sh setup): {} files, {doxygen} Doxygen menus",
        files.len()
    );
    let hard = [
        r#"var a = "x.html", b = 'y.htm?q=1#f', c = `z.php`; // "no.html""#,
        "var re = /\"/g, d = \"after.html\"; /* 'c.html' */ var e = 'e.aspx';",
        "x = a / b; y = \"div.html\" / 2; z = '\\/esc\\/aped.html'; u = \"\\u0041.html\";",
        "var s = 'unterminated.html\n'next.html'; t = `multi\nline.html`; `${x}.html`",
        "\"é/ünï.html\" 'javascript:go(\"x.html\")' \"mailto:a@b.html\" \"https://h/a.JSP\"",
        "return /[/\"]/.test(s) ? \"in-class.html\" : '*.html'",
    ];
    for (i, src) in hard.iter().enumerate() {
        let f = dir.join(format!("hard-{i}.js"));
        std::fs::write(&f, src).expect("write");
        files.push(f);
    }
    let spec = exemplar_export::ScrapySpec {
        name: "scripts".into(),
        entry: "http://127.0.0.1:1/".into(),
        allowed_domains: vec!["127.0.0.1".into()],
        levels: vec![exemplar_export::ScrapyLevel {
            regex: "^http://127\\.0\\.0\\.1:1/x$".into(),
            paginate: false,
            from_targets: false,
            form: None,
            exclude: vec![],
        }],
        delay_s: 0.0,
        concurrency_per_domain: 1,
        obey_robots: true,
        user_agent: "test".into(),
        max_pages_per_level: None,
        max_wait_s: 30.0,
        script_links: true,
        render: false,
        fields: Vec::new(),
        dust_rules: Vec::new(),
        entry_target: false,
        unlike_directories: vec![],
        unlike_targets: vec![],
        liked: vec![],
    };
    let project = dir.join("project");
    exemplar_export::write_scrapy_project(&spec, &project).expect("project");
    let name = spec.spider_name();
    let list = dir.join("files.txt");
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    std::fs::write(&list, names.join("\n")).expect("list");
    let out = Command::new(venv("python"))
        .current_dir(&project)
        .args([
            "-c",
            &format!(
                "import json, sys\nfrom {name}.spiders.{name} import page_urls\n\
                 files = open(sys.argv[1], encoding='utf-8').read().split('\\n')\n\
                 print(json.dumps([page_urls(open(f, 'rb').read().decode('utf-8', 'replace')) \
                 for f in files]))"
            ),
            list.to_str().expect("path"),
        ])
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let python: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(python.len(), files.len());
    let mut named = 0;
    for (f, py) in files.iter().zip(&python) {
        let source = String::from_utf8_lossy(&std::fs::read(f).expect("read")).into_owned();
        let rust = exemplar_core::script_links::page_urls(
            &source,
            exemplar_core::script_links::MAX_LINKS_PER_SCRIPT,
        );
        assert_eq!(py, &rust, "{}", f.display());
        named += rust.len();
    }
    // Not a comparison of empty lists: the Doxygen menus alone name dozens of pages.
    assert!(named >= 100, "{named} page URLs named in all");
    let _ = std::fs::remove_dir_all(&dir);
}
