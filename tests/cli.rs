//! The `exemplar` command line, run as a real process: the demo job on the bundled demo site
//! (what `./build.sh` prints), and errors with exit codes.

use std::collections::HashMap;
use std::process::Command;

const SITE: &str = "tests/fixtures/demo-site";

fn exemplar(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar")
}

/// Page roles from the demo site's `expected.toml`.
fn roles() -> (String, HashMap<String, String>) {
    let text = std::fs::read_to_string(format!("{SITE}/expected.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let example = doc["example"].as_str().unwrap().to_string();
    let pages = doc["pages"]
        .as_table()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    (example, pages)
}

#[test]
fn demo_learns_a_pattern_and_crawls_exactly_the_entity_pages() {
    let (example, roles) = roles();
    let out = exemplar(&["demo", SITE, "--entry", "index.html", "--example", &example]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let entities = roles.values().filter(|r| *r == "entity").count();
    assert!(
        stdout.contains("navigation pattern for 127.0.0.1:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("level 1 (") && stdout.contains("level 2 ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("paginated"),
        "the listing pagination is learned: {stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "precision 100.0%, recall 100.0% ({entities} of {entities} entity pages)"
        )),
        "{stdout}"
    );
}

#[test]
fn learn_and_crawl_commands_write_pattern_and_exports() {
    let (example, roles) = roles();
    let dir = std::env::temp_dir().join(format!("exemplar-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = exemplar::serve::Server::start(0, exemplar::serve::static_dir(SITE)).unwrap();
    let base = server.url();
    let pattern = dir.join("pattern.json");
    let out = exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/index.html"),
        "--example",
        &format!("{base}/{example}"),
        "-o",
        pattern.to_str().unwrap(),
        "--delay-ms",
        "0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&pattern).unwrap();
    let p = exemplar::pattern::Pattern::from_json(&text).unwrap();
    assert_eq!(p.levels.len(), 2);
    let (jsonl, csv) = (dir.join("pages.jsonl"), dir.join("pages.csv"));
    let out = exemplar(&[
        "crawl",
        pattern.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
        "--html",
        "--csv",
        csv.to_str().unwrap(),
        "--verify",
        "--delay-ms",
        "0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let entities = roles.values().filter(|r| *r == "entity").count();
    assert_eq!(stdout.lines().count(), entities, "{stdout}");
    let lines = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(lines.lines().count(), entities);
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["html"].as_str().unwrap().contains("<html"));
    assert!(
        first["similarity"].as_f64().unwrap() >= exemplar::similarity::DEFAULT_THRESHOLD - 1e-6
    );
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap().lines().count(),
        entities + 1
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("coverage: {entities} of {entities}")),
        "{stderr}"
    );
    // A malformed pattern is a clear error with exit code 1.
    std::fs::write(&pattern, "{\"version\": 1, \"levels\": 3}").unwrap();
    let out = exemplar(&["crawl", pattern.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid pattern"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn similarity_of_a_page_with_itself_is_one() {
    let (example, _) = roles();
    let path = format!("{SITE}/{example}");
    let out = exemplar(&["similarity", &path, &path]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("similarity 1.0000  distance 0"),
        "{stdout}"
    );
    assert!(stdout.contains(" similar at"), "{stdout}");
}

#[test]
fn errors_have_messages_and_exit_codes() {
    let out = exemplar(&["classify", "no/such/file.html"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.html"));
    let out = exemplar(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
    let (example, _) = roles();
    let path = format!("{SITE}/{example}");
    let out = exemplar(&["similarity", &path, &path, "--threshold", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold"));
    let out = exemplar(&["learn", "--entry", "http://127.0.0.1:9/"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a missing flag is a usage error"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("learn needs --example"));
    // Nothing listens on port 9: a clear network error, exit 1.
    let out = exemplar(&[
        "learn",
        "--entry",
        "http://127.0.0.1:9/",
        "--example",
        "http://127.0.0.1:9/x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("example page: http://127.0.0.1:9/x"));
}

/// `classify FILE` reads a saved page as it would be served from its site's root: the demo
/// site's listing files are index pages and its property files entity pages, as over HTTP
/// (under a bare `file://` URL every page read as an entity).
#[test]
fn classify_reads_saved_pages_as_on_their_site() {
    let (_, roles) = roles();
    let mut files: Vec<&String> = roles
        .iter()
        .filter(|(_, r)| *r == "index")
        .map(|(p, _)| p)
        .collect();
    files.sort();
    files.extend(
        roles
            .iter()
            .filter(|(_, r)| *r == "entity")
            .map(|(p, _)| p)
            .take(3),
    );
    let paths: Vec<String> = files.iter().map(|p| format!("{SITE}/{p}")).collect();
    let args: Vec<&str> = std::iter::once("classify")
        .chain(paths.iter().map(String::as_str))
        .collect();
    let out = exemplar(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    for (line, page) in stdout.lines().zip(&files) {
        let kind = line.split('\t').nth(1).unwrap_or("");
        assert_eq!(kind, roles[*page], "{line}");
    }
    assert_eq!(stdout.lines().count(), files.len(), "{stdout}");
}
