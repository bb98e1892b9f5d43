//! Exports checked by the tools users take them to: the WARC file read and digest-checked by
//! Python `warcio`, the pattern validated by `jsonschema` against its JSON Schema, and the
//! generated Scrapy project run by Scrapy against the same local site, which must collect the
//! same URL set as `exemplar crawl`. The tools live in `.venv`
//! (`./build.sh setup` installs tests/requirements.txt).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const SITE: &str = "tests/fixtures/demo-site";

fn venv(tool: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".venv/bin")
        .join(tool);
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

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("exemplar-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

#[test]
fn warc_is_read_and_digest_checked_by_warcio() {
    let server =
        exemplar::serve::Server::start(0, exemplar::serve::static_dir(SITE)).expect("serve");
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
    let script = r#"
import sys
from warcio.archiveiterator import ArchiveIterator
with open(sys.argv[1], 'rb') as f:
    for r in ArchiveIterator(f):
        if r.rec_type == 'response':
            body = r.content_stream().read()
            assert r.http_headers.get_statuscode() == '200'
            assert b'<html' in body.lower(), r.rec_headers.get_header('WARC-Target-URI')
            print(r.rec_headers.get_header('WARC-Target-URI'))
        else:
            assert r.rec_type == 'warcinfo', r.rec_type
"#;
    let out = Command::new(venv("python"))
        .args(["-c", script])
        .arg(&warc)
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(read, urls, "one response record per crawled page");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn learned_pattern_validates_against_the_json_schema() {
    let server =
        exemplar::serve::Server::start(0, exemplar::serve::static_dir(SITE)).expect("serve");
    let dir = temp_dir("schema");
    let (pattern, _, _) = learn_and_crawl(&server.url(), &dir);
    let script = r#"
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
for wrong in ({"like": "http://a.test/x"}, {"likes": []}):
    ok["corrections"] = wrong
    assert list(v.iter_errors(ok)), wrong
print("ok")
"#;
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/pattern-1.schema.json");
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
        exemplar::pattern::SCHEMA,
        std::fs::read_to_string(&schema).expect("schema")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generated_scrapy_project_collects_the_same_urls() {
    let server =
        exemplar::serve::Server::start(0, exemplar::serve::static_dir(SITE)).expect("serve");
    let dir = temp_dir("scrapy");
    let (pattern, urls, _) = learn_and_crawl(&server.url(), &dir);
    let project = dir.join("project");
    exemplar(&[
        "export-scrapy",
        pattern.to_str().expect("path"),
        project.to_str().expect("path"),
    ]);
    let p =
        exemplar::pattern::Pattern::from_json(&std::fs::read_to_string(&pattern).expect("pattern"))
            .expect("valid pattern");
    let name: String = p
        .site
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("site_{name}")
    } else {
        name
    };
    let items = dir.join("items.jsonl");
    let out = Command::new(venv("scrapy"))
        .current_dir(&project)
        .args(["crawl", &name, "-O"])
        .arg(&items)
        .args(["-s", "LOG_LEVEL=WARNING"])
        .output()
        .expect("scrapy");
    assert!(
        out.status.success(),
        "scrapy: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&items).expect("items");
    let got: BTreeSet<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json line");
            v["url"].as_str().expect("url").to_string()
        })
        .collect();
    assert_eq!(got, urls, "Scrapy and exemplar crawl collect the same URLs");
    let _ = std::fs::remove_dir_all(&dir);
}
