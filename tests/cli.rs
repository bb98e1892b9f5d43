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
fn demo_finds_exactly_the_entity_pages_like_the_example() {
    let (example, roles) = roles();
    let out = exemplar(&["demo", SITE, "--entry", "index.html", "--example", &example]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut seen = 0;
    for line in stdout.lines() {
        let Some(page) = line.split_whitespace().next() else {
            continue;
        };
        let Some(role) = roles.get(page) else {
            continue;
        };
        seen += 1;
        let similar = line.contains("like the example");
        assert_eq!(similar, role == "entity", "{line}");
    }
    assert_eq!(seen, roles.len(), "{stdout}");
    let entities = roles.values().filter(|r| *r == "entity").count();
    assert!(
        stdout.contains(&format!("Learned: {entities} of {} pages", roles.len())),
        "{stdout}"
    );
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
}
