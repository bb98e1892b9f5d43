//! The `exemplar` command line, run as a real process: the demo job on the bundled demo site
//! (what `./build.sh` prints), and errors with exit codes.
//!
//! Why this file is long (~3,000 lines): each test runs the real binary against a real site
//! and shares this file's fixture helpers (`roles`, the served demo site); one binary keeps
//! their build and start-up once. The export, form and fixture-site tests are files of their own.

mod shared;
use shared::exemplar;

use exemplar_testkit as common;

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

const SITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/demo-site"
);

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
    let dir = scratch_dir("exports");
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE)).unwrap();
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
    let p = exemplar_core::pattern::Pattern::from_json(&text).unwrap();
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
    assert!(first["similarity"].as_f64().unwrap() >= exemplar_similarity::DEFAULT_THRESHOLD - 1e-6);
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
    // An unknown flag, before or after a command, is a usage error, not ignored.
    let out = exemplar(&["--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
    let out = exemplar(&["classify", "--no-such-flag", "a.html"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'--no-such-flag'") && stderr.contains("Usage: exemplar classify"),
        "{stderr}"
    );
    let out = exemplar(&["crawl", "p.json", "--jsonl"]);
    assert_eq!(out.status.code(), Some(2), "a flag without its value");
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
    for (flags, message) in [
        (
            &["--save-every", "1"][..],
            "--save-every needs --state FILE",
        ),
        (
            &["--state", "s", "--save-every", "0"][..],
            "--save-every must be a positive",
        ),
    ] {
        let mut args = vec![
            "learn",
            "--entry",
            "http://127.0.0.1:9/",
            "--example",
            "http://127.0.0.1:9/x",
        ];
        args.extend_from_slice(flags);
        let out = exemplar(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
    }
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

// ---- The near-miss review: `learn` lists the pages just below θ, `relearn` applies verdicts. ----

const NEAR_MISS_HEADER: &str = "closest pages below θ = ";
const NEAR_MISS_LEGEND: &str =
    " (* URL shaped like the targets'; relearn --like URL counts one as a target):";

/// One line of the near-miss review: `  0.953 * URL  heading`.
#[derive(Debug)]
struct NearMiss {
    similarity: f64,
    url_like_targets: bool,
    url: String,
}

/// The near-miss review `learn` and `relearn` print: θ from its header, then its lines (`None`
/// without a review). Panics on a line that does not read `  S.SSS M URL[  heading]`.
fn near_misses(stdout: &str) -> Option<(f64, Vec<NearMiss>)> {
    let mut lines = stdout
        .lines()
        .skip_while(|l| !l.starts_with(NEAR_MISS_HEADER));
    let header = lines.next()?;
    let theta = header
        .strip_prefix(NEAR_MISS_HEADER)
        .and_then(|h| h.strip_suffix(NEAR_MISS_LEGEND))
        .unwrap_or_else(|| panic!("near-miss header: {header:?}"))
        .parse()
        .unwrap_or_else(|e| panic!("θ in {header:?}: {e}"));
    let rows = lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let (sim, rest) = l[2..].split_once(' ').unwrap_or_else(|| panic!("{l:?}"));
            let url_like_targets = match rest.get(..2) {
                Some("* ") => true,
                Some("  ") => false,
                _ => panic!("near-miss URL mark in {l:?}"),
            };
            let url = rest[2..].split("  ").next().unwrap_or("").to_string();
            assert!(
                url.starts_with("http://") && !url.contains(' '),
                "near-miss URL in {l:?}"
            );
            assert_eq!(sim.len(), 5, "three decimals in {l:?}");
            NearMiss {
                similarity: sim.parse().unwrap_or_else(|e| panic!("{l:?}: {e}")),
                url_like_targets,
                url,
            }
        })
        .collect();
    Some((theta, rows))
}

const CHECK_HEADER: &str = "targets to check (e the entry page, collected as it is like the example; h taken below θ for its heading, naming the targets' kind; ! URL shaped like pages below θ; relearn --unlike URL drops one):";

/// The targets to check that `learn` and `relearn` print after the near misses: (similarity,
/// the entry page, taken for its heading or URL shaped like pages below θ, URL) per line. Panics on a line
/// that does not read `  S.SSS HM URL[  heading]`.
fn targets_to_check(stdout: &str) -> Vec<(f64, bool, String)> {
    stdout
        .lines()
        .skip_while(|l| *l != CHECK_HEADER)
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let (sim, rest) = l[2..].split_once(' ').unwrap_or_else(|| panic!("{l:?}"));
            let marked = match rest.get(..3) {
                Some("h! " | "h  " | " ! " | "e  ") => true,
                Some("   ") => false,
                _ => panic!("marks in {l:?}"),
            };
            let sim: f64 = sim.parse().unwrap_or_else(|e| panic!("{l:?}: {e}"));
            let url = rest[3..].split("  ").next().unwrap_or("");
            (sim, marked, url.to_string())
        })
        .collect()
}

/// The demo site served in-process, and a scratch directory for `learn`'s `pattern.json` and
/// `map.json` and the files made from them (removed on drop, with the server stopped).
struct Demo {
    server: exemplar_native::serve::Server,
    base: String,
    dir: Scratch,
}

impl Demo {
    /// Serves the demo site; the scratch directory is named after `name`.
    fn serve(name: &str) -> Demo {
        let dir = scratch_dir(name);
        let server =
            exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(SITE))
                .unwrap();
        let base = server.url();
        Demo { server, base, dir }
    }

    /// Serves the demo site and learns it ([`Demo::learn`]).
    fn learned(name: &str, extra: &[&str]) -> (Demo, String) {
        let demo = Demo::serve(name);
        let stdout = demo.learn(extra);
        (demo, stdout)
    }

    /// The arguments of `exemplar learn` from `index.html` with the demo's example into
    /// `pattern` and `map`, `delay_ms` between requests, quiet.
    fn learn_args(&self, pattern: &str, map: &str, delay_ms: &str) -> Vec<String> {
        let (example, _) = roles();
        let (entry, example) = (self.url("index.html"), self.url(&example));
        let mut args = learn_args(&entry, &example, pattern, delay_ms);
        args.extend(["--map", map].map(String::from));
        args
    }

    /// `exemplar learn` ([`Demo::learn_args`]) into `pattern.json` and `map.json` with no
    /// delay, `extra` flags added.
    fn learn_output(&self, extra: &[&str]) -> std::process::Output {
        let (pattern, map) = (self.file("pattern.json"), self.file("map.json"));
        let args = self.learn_args(&pattern, &map, "0");
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        exemplar(&args)
    }

    /// [`Demo::learn_output`], which must succeed: its stdout.
    fn learn(&self, extra: &[&str]) -> String {
        stdout_of(self.learn_output(extra))
    }

    /// The URL of a page of the demo site (a path from `expected.toml`).
    fn url(&self, page: &str) -> String {
        format!("{}/{page}", self.base)
    }

    /// A file of the scratch directory.
    fn file(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }

    /// `exemplar relearn PATTERN --map map.json ARGS…`, which must succeed.
    fn relearn(&self, pattern: &str, args: &[&str]) -> String {
        let map = self.file("map.json");
        let mut all = vec!["relearn", pattern, "--map", &map, "--review"];
        all.extend_from_slice(args);
        stdout_of(exemplar(&all))
    }

    /// `exemplar crawl PATTERN --verify --csv F`: the URLs of the CSV's rows with their
    /// similarity, and the crawl's stderr (its summary).
    fn verified_crawl(&self, pattern: &str) -> (HashMap<String, f64>, String) {
        let csv = self.file("crawl.csv");
        let _ = std::fs::remove_file(&csv);
        let (stdout, stderr) = crawled(pattern, &["--verify", "--csv", &csv]);
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (url_col, sim_col) = (
            header.iter().position(|h| *h == "url").unwrap(),
            header.iter().position(|h| *h == "similarity").unwrap(),
        );
        let rows: HashMap<String, f64> = lines
            .map(|l| {
                let cells: Vec<&str> = l.split(',').collect();
                (cells[url_col].to_string(), cells[sim_col].parse().unwrap())
            })
            .collect();
        // The CSV and the URLs printed on stdout agree.
        let printed: BTreeSet<&str> = stdout.lines().collect();
        assert_eq!(
            printed,
            rows.keys().map(String::as_str).collect(),
            "{stdout}"
        );
        (rows, stderr)
    }

    /// The demo site's entity pages, as URLs.
    fn entities(&self) -> BTreeSet<String> {
        let (_, roles) = roles();
        roles
            .iter()
            .filter(|(_, r)| *r == "entity")
            .map(|(p, _)| self.url(p))
            .collect()
    }

    /// The map `learn --map` wrote.
    fn map(&self) -> exemplar_core::mapper::SiteMap {
        serde_json::from_str(&std::fs::read_to_string(self.file("map.json")).unwrap()).unwrap()
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        self.server.stop();
    }
}

/// `exemplar crawl PATTERN --delay-ms 0 --quiet ARGS…`, which must succeed: its stdout (the
/// target URLs) and stderr (the coverage report).
fn crawled(pattern: &str, args: &[&str]) -> (String, String) {
    let mut all = vec!["crawl", pattern, "--delay-ms", "0", "--quiet"];
    all.extend_from_slice(args);
    let out = exemplar(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// The stdout of a run that must have succeeded.
fn stdout_of(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `relearn PATTERN --map MAP FLAGS… -o OUT`, which must succeed and fetch nothing from
/// `server`: its stdout.
fn relearned_offline(
    server: &exemplar_native::serve::Server,
    pattern: &str,
    map: &str,
    flags: &[&str],
    out: &str,
) -> String {
    let requests = server.requests();
    let mut args = vec!["relearn", pattern, "--map", map, "--review"];
    args.extend_from_slice(flags);
    args.extend(["-o", out]);
    let stdout = stdout_of(exemplar(&args));
    assert_eq!(server.requests(), requests, "relearn fetches nothing");
    stdout
}

/// A pattern file, parsed.
fn pattern(path: &str) -> exemplar_core::pattern::Pattern {
    exemplar_core::pattern::Pattern::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn known_targets(path: &str) -> BTreeSet<String> {
    pattern(path).known_targets.into_iter().collect()
}

/// `learn --map` lists, after the pattern, the fetched pages just below θ — on the demo site
/// every page but the entity pages and the entry, most similar first — and writes the map
/// they were measured on.
#[test]
fn learn_lists_the_near_misses_below_theta_and_writes_the_map() {
    let (demo, stdout) = Demo::learned("near-misses", &[]);
    let stdout = &stdout;
    let (_, roles) = roles();
    let p = pattern(&demo.file("pattern.json"));
    let map = demo.map();
    // The map is the one the pattern was learned from, as mapped.
    assert_eq!(map.entry, p.entry);
    assert_eq!(map.example, p.example);
    assert!((map.threshold - p.similarity.threshold).abs() < 1e-9);
    let map_targets: BTreeSet<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(map_targets, demo.entities());
    assert_eq!(p.known_targets.len(), demo.entities().len());

    let (theta, near) = near_misses(stdout).unwrap_or_else(|| panic!("no review: {stdout}"));
    assert_eq!(
        format!("{theta:.3}"),
        format!("{:.3}", p.similarity.threshold)
    );
    // The review comes after the rendered pattern and before the mapping summary.
    let at = |s: &str| {
        stdout
            .find(s)
            .unwrap_or_else(|| panic!("{s:?} in {stdout}"))
    };
    assert!(at("navigation pattern for") < at(NEAR_MISS_HEADER));
    assert!(at(NEAR_MISS_HEADER) < at("mapping: "));
    // The demo site's pages that are not entity pages, but the entry (9 of them: at most 10
    // are listed).
    let expected: BTreeSet<String> = roles
        .iter()
        .filter(|(page, r)| *r != "entity" && *page != "index.html")
        .map(|(page, _)| demo.url(page))
        .collect();
    assert_eq!(expected.len(), 9);
    let listed: BTreeSet<String> = near.iter().map(|n| n.url.clone()).collect();
    assert_eq!(listed, expected, "{stdout}");
    assert_eq!(near.len(), listed.len(), "no page twice: {stdout}");
    // Each with its similarity in the map (three decimals), below θ, most similar first.
    let sim: HashMap<&str, f64> = map
        .nodes
        .iter()
        .filter_map(|n| Some((n.url.as_str(), f64::from(n.similarity?))))
        .collect();
    for n in &near {
        let s = sim[n.url.as_str()];
        assert!(s < map.threshold, "{} at {s} is not below θ", n.url);
        assert!((n.similarity - s).abs() < 0.0006, "{n:?} vs {s}");
        assert!(n.similarity > 0.0 && n.similarity < theta, "{n:?}");
        // None of them has the URL shape of /imovel/NNN-… entity pages.
        assert!(!n.url_like_targets, "{n:?}");
    }
    assert!(
        near.windows(2).all(|w| w[0].similarity >= w[1].similarity),
        "sorted most similar first: {stdout}"
    );
    // The most similar of them is the most similar non-target fetched page of the map.
    let best = map
        .nodes
        .iter()
        .skip(1)
        .filter(|n| n.state == exemplar_core::mapper::NodeState::Page)
        .filter_map(|n| n.similarity)
        .fold(0f32, f32::max);
    assert!((near[0].similarity - f64::from(best)).abs() < 0.0006);

    // Then the targets to check: 20 of the 21 entity pages besides the example, least similar
    // first; none marked, every /imovel/NNN-… page being a target.
    assert!(at(NEAR_MISS_HEADER) < at(CHECK_HEADER) && at(CHECK_HEADER) < at("mapping: "));
    let check = targets_to_check(stdout);
    assert_eq!(check.len(), 20, "{stdout}");
    let entities = demo.entities();
    for (s, unlike, url) in &check {
        assert!(entities.contains(url) && *url != map.example, "{url}");
        assert!(!unlike, "{url}");
        assert!(
            (s - sim[url.as_str()]).abs() < 0.0006 && *s >= theta,
            "{url} {s}"
        );
    }
    assert!(
        check.windows(2).all(|w| w[0].0 <= w[1].0),
        "least similar first: {stdout}"
    );
    let unlisted: Vec<&String> = entities
        .iter()
        .filter(|u| **u != map.example && !check.iter().any(|c| c.2 == **u))
        .collect();
    assert_eq!(unlisted.len(), 1, "{unlisted:?}");
    assert!(
        check
            .iter()
            .all(|c| c.0 <= sim[unlisted[0].as_str()] + 0.0006)
    );
    // The one left out is counted, on a line of its own.
    assert!(
        stdout.contains("\n… and 1 row not shown (--review-file FILE lists them all)\n"),
        "{stdout}"
    );
}

/// Without `--review` the lists are a line saying what they hold; `--review-file` writes them
/// whole (the 21 targets to check, none cut), the terminal keeping the line.
#[test]
fn the_review_is_one_line_unless_asked_for_and_whole_in_its_file() {
    let (demo, _) = Demo::learned("review-line", &["--no-forms"]);
    let (pattern, map) = (demo.file("pattern.json"), demo.file("map.json"));
    let out = demo.file("again.json");
    let plain = stdout_of(exemplar(&["relearn", &pattern, "--map", &map, "-o", &out]));
    assert!(
        !plain.contains(NEAR_MISS_HEADER) && !plain.contains(CHECK_HEADER),
        "{plain}"
    );
    let line = plain
        .lines()
        .find(|l| l.starts_with("review: "))
        .unwrap_or_else(|| panic!("no review line: {plain}"));
    assert!(line.contains("21 targets to check"), "{line}");
    assert!(line.ends_with("--review prints these lists, --review-file FILE writes them whole"));

    let file = demo.file("review.txt");
    let with_file = |f: &str| {
        exemplar(&[
            "relearn",
            &pattern,
            "--map",
            &map,
            "-o",
            &out,
            "--review-file",
            f,
        ])
    };
    let written = stdout_of(with_file(&file));
    assert!(!written.contains(CHECK_HEADER), "{written}");
    assert!(
        written.contains(&format!("; written to {file}\n")),
        "{written}"
    );
    let review = std::fs::read_to_string(&file).unwrap();
    assert_eq!(targets_to_check(&review).len(), 21, "{review}");
    assert!(!review.contains("not shown"), "{review}");
    let (_, near) = near_misses(&review).unwrap_or_else(|| panic!("{review}"));
    // Every page below θ but the entry (which is not judged): 9 listed whole, 10 at most printed.
    assert_eq!(near.len(), 9, "{review}");

    // An unwritable file is a clear error, and the pattern is still written.
    let _ = std::fs::remove_file(&out);
    let bad = with_file("/nonexistent/dir/r.txt");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--review-file /nonexistent/dir/r.txt"),
        "{err}"
    );
    assert!(
        std::path::Path::new(&out).exists(),
        "the pattern is written first"
    );
}

/// `relearn` applies verdicts to the saved map without fetching: at a higher θ entity pages
/// (but those learning takes for their heading)
/// fall below it and are listed marked `*`; `--like` one counts it as a target again (recorded
/// in the pattern), a later `--unlike` of the same page wins over the recorded like.
#[test]
fn relearn_with_verdicts_moves_a_near_miss_in_and_out_of_the_targets() {
    let (demo, _) = Demo::learned("relearn", &["--no-forms"]);
    let requests = demo.server.requests();
    let original = demo.file("pattern.json");
    let original_text = std::fs::read_to_string(&original).unwrap();
    let entities = demo.entities();
    let map = demo.map();

    // θ = 0.96: the entity pages below it are the first near misses, marked *.
    let strict = demo.file("strict.json");
    let out = demo.relearn(&original, &["--threshold", "0.96", "-o", &strict]);
    assert!(
        out.contains(&format!("pattern written to {strict}")),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&original).unwrap(), original_text);
    let strict_targets = known_targets(&strict);
    let below: BTreeSet<String> = map
        .nodes
        .iter()
        .filter(|n| entities.contains(&n.url) && n.similarity.is_some_and(|s| s < 0.96))
        .map(|n| n.url.clone())
        .collect();
    assert!(!below.is_empty(), "some demo entity page scores below 0.96");
    // The targets at 0.96: the entity pages above it, and those just below it that learning
    // takes for a heading like the entity pages' (never another page).
    let at_096 = |p: &exemplar_core::pattern::Pattern| -> BTreeSet<String> {
        let taken: BTreeSet<String> = p.by_heading.iter().cloned().collect();
        assert!(taken.is_subset(&below), "{taken:?}");
        entities.difference(&below).cloned().chain(taken).collect()
    };
    let taken: BTreeSet<String> = pattern(&strict).by_heading.into_iter().collect();
    assert_eq!(strict_targets, at_096(&pattern(&strict)), "{out}");
    let below: BTreeSet<String> = below.difference(&taken).cloned().collect();
    assert!(!below.is_empty(), "{out}");
    let (theta, near) = near_misses(&out).unwrap();
    assert_eq!(theta, 0.96);
    assert_eq!(near.len(), 10, "{out}");
    let head: BTreeSet<String> = near[..below.len()].iter().map(|n| n.url.clone()).collect();
    assert_eq!(head, below, "{out}");
    for (i, n) in near.iter().enumerate() {
        assert_eq!(n.url_like_targets, i < below.len(), "{n:?}");
    }
    let miss = near[0].url.clone();

    // --like it: it is a target again, and the only change.
    let liked = demo.file("liked.json");
    let strict_text = std::fs::read_to_string(&strict).unwrap();
    let out = demo.relearn(&strict, &["--like", &miss, "-o", &liked]);
    assert_eq!(std::fs::read_to_string(&strict).unwrap(), strict_text);
    let mut expected = strict_targets.clone();
    expected.insert(miss.clone());
    assert_eq!(known_targets(&liked), expected);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&liked).unwrap()).unwrap();
    assert_eq!(json["corrections"]["like"], serde_json::json!([miss]));
    assert_eq!(json["corrections"]["unlike"], serde_json::json!([]));
    assert_eq!(json["similarity"]["threshold"], 0.96, "relearn keeps θ");
    assert!(
        out.contains("your verdicts: 1 page like the example, 0 not like it"),
        "{out}"
    );
    let (_, near) = near_misses(&out).unwrap();
    assert!(near.iter().all(|n| n.url != miss), "a target now: {out}");
    // Every other measured page but the entry, ten at most.
    let targets = known_targets(&liked);
    let others = map
        .nodes
        .iter()
        .skip(1)
        .filter(|n| n.similarity.is_some() && !targets.contains(&n.url))
        .count();
    assert_eq!(near.len(), others.min(10), "{out}");

    // --unlike the same page (a fragment changes nothing): the later verdict wins.
    let unliked = demo.file("unliked.json");
    let liked_text = std::fs::read_to_string(&liked).unwrap();
    let out = demo.relearn(
        &liked,
        &["--unlike", &format!("{miss}#top"), "-o", &unliked],
    );
    assert_eq!(std::fs::read_to_string(&liked).unwrap(), liked_text);
    let p = pattern(&unliked);
    assert!(p.corrections.like.is_empty(), "{:?}", p.corrections);
    assert_eq!(p.corrections.unlike, vec![miss.clone()]);
    assert_eq!(known_targets(&unliked), at_096(&p));
    assert!(!p.by_heading.contains(&miss));
    assert!(
        out.contains("your verdicts: 0 pages like the example, 1 not like it"),
        "{out}"
    );
    let (_, near) = near_misses(&out).unwrap();
    assert!(near.iter().all(|n| n.url != miss), "judged already: {out}");

    // Without -o the pattern is relearned in place, its verdicts kept and added to.
    let in_place = demo.file("in-place.json");
    std::fs::copy(&unliked, &in_place).unwrap();
    let other = near.iter().find(|n| n.url != miss).unwrap().url.clone();
    let out = demo.relearn(&in_place, &["--like", &other]);
    assert!(
        out.contains(&format!("pattern written to {in_place}")),
        "{out}"
    );
    let p = pattern(&in_place);
    assert_eq!(p.corrections.like, vec![other.clone()]);
    assert_eq!(p.corrections.unlike, vec![miss.clone()]);
    assert!(p.known_targets.contains(&other) && !p.known_targets.contains(&miss));

    assert_eq!(demo.server.requests(), requests, "relearn fetches nothing");
}

/// A verifying crawl honours the verdicts: a page marked unlike is not collected (refused by
/// verification even where the pattern's regexes reach it), a page marked like is collected
/// whatever its similarity.
#[test]
fn verifying_crawls_honour_the_verdicts() {
    let (demo, _) = Demo::learned("verdicts-crawl", &["--no-forms"]);
    let entities = demo.entities();
    let (example, _) = roles();
    let original = demo.file("pattern.json");
    let victim = entities
        .iter()
        .find(|u| !u.ends_with(&example))
        .unwrap()
        .clone();

    // --unlike an entity page: no longer a target, and the crawl collects the others only.
    let unliked = demo.file("unliked.json");
    let out = demo.relearn(&original, &["--unlike", &victim, "-o", &unliked]);
    assert!(
        out.contains("0 pages like the example, 1 not like it"),
        "{out}"
    );
    let others: BTreeSet<String> = entities.iter().filter(|u| **u != victim).cloned().collect();
    assert_eq!(known_targets(&unliked), others);
    let (rows, stderr) = demo.verified_crawl(&unliked);
    assert!(!rows.contains_key(&victim), "{rows:?}");
    assert_eq!(rows.keys().cloned().collect::<BTreeSet<_>>(), others);
    let n = others.len();
    assert!(
        stderr.contains(&format!("coverage: {n} of {n} targets")),
        "{stderr}"
    );

    // The learned pattern (whose regexes reach the victim) with the verdict recorded:
    // verification fetches the victim and rejects it.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&original).unwrap()).unwrap();
    json["corrections"] = serde_json::json!({ "like": [], "unlike": [victim] });
    let recorded = demo.file("recorded.json");
    std::fs::write(&recorded, json.to_string()).unwrap();
    let (rows, stderr) = demo.verified_crawl(&recorded);
    assert_eq!(rows.keys().cloned().collect::<BTreeSet<_>>(), others);
    assert!(stderr.contains(", 1 rejected by verification"), "{stderr}");
    assert!(stderr.contains(&format!("missed: {victim}")), "{stderr}");

    // θ = 0.96 with --like the best entity page below it: collected with its similarity below θ.
    let strict = demo.file("strict.json");
    let out = demo.relearn(&original, &["--threshold", "0.96", "-o", &strict]);
    let (_, near) = near_misses(&out).unwrap();
    let miss = near[0].url.clone();
    assert!(
        near[0].url_like_targets && entities.contains(&miss),
        "{out}"
    );
    let liked = demo.file("liked.json");
    demo.relearn(&strict, &["--like", &miss, "-o", &liked]);
    let (rows, stderr) = demo.verified_crawl(&liked);
    assert!(rows[&miss] < 0.96, "{miss} at {}", rows[&miss]);
    assert_eq!(
        rows.keys().cloned().collect::<BTreeSet<_>>(),
        known_targets(&liked)
    );
    assert!(stderr.contains(", 0 rejected by verification"), "{stderr}");
    // The same pattern without the verdict: verification rejects that page.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&liked).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("corrections");
    let bare = demo.file("bare.json");
    std::fs::write(&bare, json.to_string()).unwrap();
    let (rows, stderr) = demo.verified_crawl(&bare);
    assert!(!rows.contains_key(&miss), "{rows:?}");
    assert!(stderr.contains(", 1 rejected by verification"), "{stderr}");
}

/// `learn --like/--unlike` applies the verdicts right after mapping and records them; the map
/// it writes is as mapped, so `relearn` from both gives the same pattern. A verdict on a page
/// never met fails the learn, and no pattern is written.
#[test]
fn learn_applies_verdicts_and_writes_the_map_as_mapped() {
    let (example, _) = roles();
    let demo = Demo::serve("learn-verdicts");
    let entities = demo.entities();
    let victim = entities
        .iter()
        .find(|u| !u.ends_with(&example))
        .unwrap()
        .clone();
    let faq = demo.url("faq.html");
    let pattern_file = demo.file("pattern.json");

    let nowhere = demo.url("nowhere.html");
    let out = demo.learn_output(&["--no-forms", "--like", &nowhere]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{nowhere} was not met while mapping")),
        "{stderr}"
    );
    assert!(!std::path::Path::new(&pattern_file).exists());
    assert!(stderr.contains("the map is saved in"), "{stderr}");
    let kept: exemplar_core::mapper::SiteMap =
        serde_json::from_str(&std::fs::read_to_string(demo.file("map.json")).unwrap()).unwrap();
    assert_eq!(
        kept.targets().count(),
        entities.len(),
        "the mapping is kept"
    );

    let stdout = demo.learn(&["--no-forms", "--unlike", &victim, "--like", &faq]);
    assert!(
        stdout.contains("your verdicts: 1 page like the example, 1 not like it"),
        "{stdout}"
    );
    let p = pattern(&pattern_file);
    assert_eq!(p.corrections.like, vec![faq.clone()]);
    assert_eq!(p.corrections.unlike, vec![victim.clone()]);
    let mut expected = entities.clone();
    expected.remove(&victim);
    expected.insert(faq.clone());
    assert_eq!(known_targets(&pattern_file), expected);
    // The review is of the corrected map: the liked page is a target, not a near miss.
    let (_, near) = near_misses(&stdout).unwrap();
    assert!(
        !near.is_empty() && near.iter().all(|n| n.url != faq),
        "{stdout}"
    );
    // The map is as mapped: the victim a target, faq a page.
    let map = demo.map();
    let state = |url: &str| {
        map.nodes
            .iter()
            .find(|n| n.url == url)
            .map(|n| n.state.clone())
            .unwrap()
    };
    assert_eq!(state(&victim), exemplar_core::mapper::NodeState::Target);
    assert_eq!(state(&faq), exemplar_core::mapper::NodeState::Page);
    // relearn from the pattern's recorded verdicts and the map: the same pattern.
    let again = demo.file("again.json");
    demo.relearn(&pattern_file, &["-o", &again]);
    let q = pattern(&again);
    assert_eq!(q.corrections, p.corrections);
    assert_eq!(q.known_targets, p.known_targets);
    assert_eq!(
        q.levels.iter().map(|l| &l.regexes).collect::<Vec<_>>(),
        p.levels.iter().map(|l| &l.regexes).collect::<Vec<_>>()
    );
}

/// `relearn` refuses, with exit status 1 (2 for a usage error) and a message naming the
/// problem, verdicts it cannot apply and a map or θ that do not fit; it writes no pattern.
/// Started from a property page other than the example: the entry is like the example, so
/// the crawl collects it with the other properties, and it is the first target to check
/// (marked `e`). Judged unlike the example, the crawl leaves it out and still starts there;
/// judged like again, it is back. The home page, below θ, is taken when judged like.
#[test]
fn an_entry_like_the_example_is_collected_and_judged_as_a_target() {
    let demo = Demo::serve("entry-target");
    let (example, _) = roles();
    let entry = demo.url("imovel/102-apartamento-1-quartos-butanta.html");
    let (pattern_file, map_file) = (demo.file("pattern.json"), demo.file("map.json"));
    let mut args = learn_args(&entry, &demo.url(&example), &pattern_file, "0");
    args.extend(["--map".to_string(), map_file]);
    let stdout = stdout_of(exemplar(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert!(
        stdout.contains("the entry page is like the example: a crawl collects it as a target too"),
        "{stdout}"
    );
    let check = targets_to_check(&stdout);
    assert_eq!((check[0].1, check[0].2.as_str()), (true, entry.as_str()));
    assert!(
        stdout
            .lines()
            .any(|l| l.ends_with(&format!("e  {entry}")) || l.contains(&format!("e  {entry}  "))),
        "{stdout}"
    );
    assert!(pattern(&pattern_file).entry_target);
    let urls = |stdout: String| -> BTreeSet<String> { stdout.lines().map(String::from).collect() };
    let all = demo.entities();
    assert!(all.contains(&entry));
    assert_eq!(urls(crawled(&pattern_file, &[]).0), all);

    let unliked = demo.file("unliked.json");
    let out = demo.relearn(&pattern_file, &["--unlike", &entry, "-o", &unliked]);
    assert!(!out.contains("the entry page is like the example"), "{out}");
    assert!(
        !targets_to_check(&out).iter().any(|t| t.2 == entry),
        "judged: not listed again"
    );
    let p = pattern(&unliked);
    assert!(!p.entry_target && !p.known_targets.contains(&entry));
    let mut others = all.clone();
    others.remove(&entry);
    assert_eq!(
        urls(crawled(&unliked, &[]).0),
        others,
        "followed, not collected"
    );
    let liked = demo.file("liked.json");
    demo.relearn(&unliked, &["--like", &entry, "-o", &liked]);
    assert!(pattern(&liked).entry_target);
    assert_eq!(urls(crawled(&liked, &[]).0), all);

    // The home page is a listing, below θ: a crawl collects it only when judged like.
    let (home, _) = Demo::learned("entry-home", &[]);
    let home_page = home.url("index.html");
    assert!(!pattern(&home.file("pattern.json")).entry_target);
    let taken = home.file("taken.json");
    home.relearn(
        &home.file("pattern.json"),
        &["--like", &home_page, "-o", &taken],
    );
    let p = pattern(&taken);
    assert!(p.entry_target && p.known_targets.contains(&home_page));
    assert!(urls(crawled(&taken, &[]).0).contains(&home_page));
}

#[test]
fn relearn_refuses_bad_verdicts_and_arguments() {
    // With forms: their responses are in the map as duplicates of pages met before.
    let (demo, _) = Demo::learned("relearn-errors", &[]);
    let requests = demo.server.requests();
    let original = demo.file("pattern.json");
    let original_text = std::fs::read_to_string(&original).unwrap();
    let map = demo.map();
    let duplicate = map
        .nodes
        .iter()
        .find(|n| matches!(n.state, exemplar_core::mapper::NodeState::Duplicate { .. }))
        .map(|n| n.url.clone())
        .expect("a URL of the demo map answered by a page met before (a form response)");
    let entry = demo.url("index.html");
    let example = demo.url(&roles().0);
    let faq = demo.url("faq.html");
    let nowhere = demo.url("nowhere.html");
    let out_file = demo.file("out.json");
    let map_file = demo.file("map.json");

    // Another example's map (the same site otherwise).
    let mut other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map_file).unwrap()).unwrap();
    let other_example = demo.url("imovel/102-apartamento-1-quartos-butanta.html");
    other["example"] = serde_json::json!(other_example);
    let other_map = demo.file("other-map.json");
    std::fs::write(&other_map, other.to_string()).unwrap();
    let not_a_map = demo.file("not-a-map.json");
    std::fs::write(&not_a_map, "{\"nodes\": 3}").unwrap();
    // A map whose entry page links to a node it does not have (edited, or cut short).
    let mut dangling: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map_file).unwrap()).unwrap();
    let nodes = dangling["nodes"].as_array().map_or(0, Vec::len);
    dangling["nodes"][0]["links"]
        .as_array_mut()
        .expect("the entry page's links")
        .push(serde_json::json!(nodes + 5));
    let dangling_map = demo.file("dangling-map.json");
    std::fs::write(&dangling_map, dangling.to_string()).unwrap();

    let cases: Vec<(Vec<&str>, i32, String)> = vec![
        (
            vec!["--map", &map_file, "--like", &nowhere],
            1,
            format!("{nowhere} was not met while mapping"),
        ),
        (
            vec!["--map", &map_file, "--unlike", &nowhere],
            1,
            format!("{nowhere} was not met while mapping"),
        ),
        (
            vec!["--map", &map_file, "--like", &duplicate],
            1,
            format!("{duplicate} has the same content as "),
        ),
        (
            vec!["--map", &map_file, "--unlike", &example],
            1,
            format!("{example} is the example page: it is like itself"),
        ),
        (
            vec!["--map", &map_file, "--like", &faq, "--unlike", &faq],
            1,
            format!("{faq} is marked both like and unlike the example"),
        ),
        (
            vec!["--map", &map_file, "--like", "faq.html"],
            1,
            "\"faq.html\" is not an absolute URL".into(),
        ),
        (
            vec!["--map", &map_file, "--threshold", "1.5"],
            1,
            "--threshold 1.5 is outside [0, 1]".into(),
        ),
        (
            vec!["--map", &map_file, "--threshold", "-0.1"],
            1,
            "--threshold -0.1 is outside [0, 1]".into(),
        ),
        (
            vec!["--map", &other_map, "--like", &faq],
            1,
            format!("{other_map} was mapped from {entry} with example {other_example}"),
        ),
        (
            vec!["--map", &not_a_map],
            1,
            format!("{not_a_map}: not a site map"),
        ),
        (
            vec!["--map", &dangling_map],
            1,
            format!("{dangling_map}: inconsistent site map: a link of node 0 is "),
        ),
        (
            vec!["--like", &faq],
            2,
            "relearn needs --map map.json (written by learn --map)".into(),
        ),
    ];
    for (args, code, message) in &cases {
        let mut all = vec!["relearn", &original, "-o", &out_file];
        all.extend_from_slice(args);
        let out = exemplar(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("exemplar: ") && stderr.contains(message.as_str()),
            "{args:?}: expected {message:?} in {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing printed on stdout");
        assert!(
            !std::path::Path::new(&out_file).exists(),
            "{args:?}: no pattern written"
        );
    }
    assert_eq!(std::fs::read_to_string(&original).unwrap(), original_text);

    // Without -o a refused relearn leaves the pattern file as it was.
    let out = exemplar(&["relearn", &original, "--map", &map_file, "--like", &nowhere]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&original).unwrap(), original_text);
    // A verdict recorded earlier is merged: a new opposite verdict replaces it (no conflict),
    // unlike then like here (like then unlike in the test above).
    demo.relearn(&original, &["--unlike", &faq, "-o", &out_file]);
    let p = pattern(&out_file);
    assert_eq!(p.corrections.unlike, vec![faq.clone()]);
    assert!(!p.known_targets.contains(&faq));
    demo.relearn(&out_file, &["--like", &faq]);
    let p = pattern(&out_file);
    assert_eq!(p.corrections.like, vec![faq.clone()]);
    assert!(p.corrections.unlike.is_empty(), "{:?}", p.corrections);
    assert!(p.known_targets.contains(&faq));
    assert_eq!(demo.server.requests(), requests, "relearn fetches nothing");
}

/// Output piped into a reader that stops early (`exemplar … | head`): the command ends quietly on
/// SIGPIPE, as Unix tools do, instead of panicking in `println!`.
#[cfg(unix)]
#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let pages: Vec<String> = std::fs::read_dir(SITE)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .map(|p| p.display().to_string())
        .collect();
    // Far more output than a pipe buffers (64 KiB), so the writer meets the closed pipe.
    let args: Vec<&str> = std::iter::once("classify")
        .chain(std::iter::repeat_n(pages.iter().map(String::as_str), 80).flatten())
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run exemplar");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    assert!(first.contains(".html\t"), "{first}");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

/// `learn --state`: a mapping killed (SIGKILL, after a save), then interrupted (Ctrl-C, which
/// saves and exits with 130), then run to the end by the same command, learns the pattern an
/// uninterrupted run learns, from the same pages; a command for another site or example is
/// refused, and the finished run removes its state.
#[test]
fn a_killed_or_interrupted_mapping_resumes_to_the_same_pattern() {
    use std::time::{Duration, Instant};
    let demo = Demo::serve("learn-state");
    let learn = |pattern: &str, map: &str, delay: &str, state: Option<&str>| -> Vec<String> {
        let mut args = demo.learn_args(pattern, map, delay);
        if let Some(s) = state {
            args.extend(["--state", s, "--save-every", "0.5"].map(String::from));
        }
        args
    };
    let run = |args: &[String]| {
        Command::new(env!("CARGO_BIN_EXE_exemplar"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn exemplar")
    };
    let reference = (demo.file("ref.json"), demo.file("ref-map.json"));
    let out = run(&learn(&reference.0, &reference.1, "0", None))
        .wait_with_output()
        .expect("wait");
    stdout_of(out);

    let state = demo.file("learn.state");
    let (pattern_file, map_file) = (demo.file("pattern.json"), demo.file("map.json"));
    // 150 ms between requests: mapping the demo site takes a few seconds.
    let args = learn(&pattern_file, &map_file, "150", Some(&state));
    let mut child = run(&args);
    let start = Instant::now();
    while !std::path::Path::new(&state).exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "no state saved");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().expect("kill");
    let _ = child.wait();
    assert!(
        !std::path::Path::new(&pattern_file).exists(),
        "killed mid-mapping"
    );

    let child = run(&args);
    std::thread::sleep(Duration::from_millis(1000));
    interrupt(&child);
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resuming the mapping saved in"), "{stderr}");
    assert!(
        stderr.contains("interrupted: the mapping is saved in"),
        "{stderr}"
    );
    assert!(
        !std::path::Path::new(&pattern_file).exists(),
        "interrupted mid-mapping"
    );

    // Another example page: refused, the state kept.
    let mut other = args.clone();
    let at = other
        .iter()
        .position(|a| a == "--example")
        .expect("example");
    other[at + 1] = demo.url("index.html");
    let out = exemplar(&other.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("remove it to start over"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::path::Path::new(&state).exists());

    let out = run(&args).wait_with_output().expect("wait");
    let stdout = stdout_of(out);
    assert!(stdout.contains("pattern written to"), "{stdout}");
    assert!(
        !std::path::Path::new(&state).exists(),
        "a finished run removes its state"
    );
    let (resumed, expected) = (pattern(&pattern_file), pattern(&reference.0));
    assert_eq!(resumed.levels, expected.levels);
    assert_eq!(resumed.known_targets, expected.known_targets);
    let fetched = |path: &str| -> BTreeSet<String> {
        let map: exemplar_core::mapper::SiteMap =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        map.nodes
            .iter()
            .filter(|n| n.similarity.is_some())
            .map(|n| n.url.clone())
            .collect()
    };
    assert_eq!(
        fetched(&map_file),
        fetched(&reference.1),
        "the same pages measured"
    );
}

/// A mapping that finds no page like the example fails with the reason, and `--map` still
/// keeps what was mapped.
#[test]
fn learn_without_a_target_fails_but_keeps_the_map() {
    let demo = Demo::serve("no-target");
    let out = demo.learn_output(&["--max-pages", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no page similar to the example"),
        "{stderr}"
    );
    let map = demo.map();
    assert_eq!(map.nodes[0].url, demo.url("index.html"));
    assert_eq!(map.targets().count(), 0);
}

/// Links the trap guard refuses are named after learning, by reason, with the first one and the
/// limit: a page links ever deeper copies of itself (`/a/a/a/…`) and sixty overlong URLs.
#[test]
fn learn_names_the_links_the_trap_guard_refused() {
    use exemplar_native::serve::{Response, Server};
    let item = |i: u32| {
        format!(
            "<html><head><title>Item {i}</title></head><body><div class=item><h1>Item {i}</h1>\
             <p class=d>text {i}</p></div></body></html>"
        )
    };
    let server = Server::start(0, move |req| match req.path.as_str() {
        "/" => {
            let long: String = (0..60)
                .map(|i| format!("<a href='/q?{i}={}'>long</a>", "x".repeat(1100)))
                .collect();
            Response::html(format!(
                "<html><body><a href='/item/1'>1</a><a href='/item/2'>2</a>\
                 <a href='/a/'>a</a>{long}</body></html>"
            ))
        }
        p if p.starts_with("/a/") => Response::html(format!(
            "<html><body><h2>{p}</h2><a href='{p}a/'>deeper</a></body></html>"
        )),
        "/item/1" => Response::html(item(1)),
        "/item/2" => Response::html(item(2)),
        _ => Response::not_found(),
    })
    .unwrap();
    let dir = scratch_dir("traps");
    let pattern = dir.join("pattern.json");
    let (entry, example) = (server.url() + "/", server.url() + "/item/1");
    let args = learn_args(&entry, &example, pattern.to_str().unwrap(), "0");
    let out = stdout_of(exemplar(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let base = server.url();
    assert!(
        out.contains(&format!(
            "trap guard: 60 links not followed, longer than 1024 characters (e.g. {base}/q?0=xxx"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "trap guard: 1 link not followed, a path segment repeated more than 2 times (e.g. {base}/a/a/a/)"
        )),
        "{out}"
    );
    // A crawl names them too: a pattern whose first level pages through the copies.
    let hand = common::hand_pattern(
        &base,
        "",
        "item/1",
        &[("(?:a/)+", true), ("item/[0-9]+", false)],
        true,
    );
    let hand_path = dir.join("hand.json");
    std::fs::write(&hand_path, hand.to_string()).unwrap();
    let (_, stderr) = crawled(hand_path.to_str().unwrap(), &[]);
    assert!(
        stderr.contains(&format!(
            "trap guard: 1 link not followed, a path segment repeated more than 2 times (e.g. {base}/a/a/a/)"
        )),
        "{stderr}"
    );
}

/// Ctrl-C while a request hangs (a server that holds the connection for a minute, longer than
/// the 30 s request timeout) saves and ends the mapping at once, without waiting for the
/// request; the state asks for the page again on resume.
#[test]
fn ctrl_c_does_not_wait_for_a_hanging_request() {
    use exemplar_native::serve::{Response, Server};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    let hung = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&hung);
    let item = |i: u32| {
        format!(
            "<html><head><title>Item {i}</title></head><body><div class=item><h1>Item {i}</h1>\
             <p class=d>text {i}</p></div></body></html>"
        )
    };
    let server = Server::start(0, move |req| match req.path.as_str() {
        "/" => Response::html(
            "<html><body><ul><li><a href='/item/1'>1</a></li><li><a href='/hang'>hang</a></li>\
             </ul></body></html>",
        ),
        "/hang" => {
            seen.store(true, Ordering::SeqCst);
            Response {
                delay: Some(Duration::from_secs(60)),
                ..Response::html("late")
            }
        }
        "/item/1" => Response::html(item(1)),
        _ => Response::not_found(),
    })
    .unwrap();
    let dir = scratch_dir("hang");
    let (state, pattern) = (dir.join("learn.state"), dir.join("pattern.json"));
    let (state, pattern) = (state.to_str().unwrap(), pattern.to_str().unwrap());
    let (entry, example) = (server.url() + "/", server.url() + "/item/1");
    let mut args = learn_args(&entry, &example, pattern, "0");
    args.extend(["--state", state].map(String::from));
    let child = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn exemplar");
    let start = Instant::now();
    while !hung.load(Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "/hang never asked"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the other pages be answered: only /hang is left in flight.
    std::thread::sleep(Duration::from_millis(500));
    let interrupted = Instant::now();
    interrupt(&child);
    let out = child.wait_with_output().expect("wait");
    let took = interrupted.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        took < Duration::from_secs(10),
        "ended {took:?} after Ctrl-C, the request timeout is 30 s"
    );
    let saved = std::fs::read_to_string(state).expect("state saved");
    assert!(
        saved.contains("/hang"),
        "the hanging page is still to fetch"
    );
}

/// The arguments of a quiet `exemplar learn` into `pattern`, `delay_ms` between requests.
fn learn_args(entry: &str, example: &str, pattern: &str, delay_ms: &str) -> Vec<String> {
    [
        "learn",
        "--entry",
        entry,
        "--example",
        example,
        "-o",
        pattern,
        "--delay-ms",
        delay_ms,
        "--quiet",
        "--review",
    ]
    .map(String::from)
    .to_vec()
}

/// The stdout of a quiet `exemplar learn` from `entry` with `example` that writes `pattern` and
/// the site map `map`, with `extra` arguments; the run must succeed.
fn learned_with_map(
    entry: &str,
    example: &str,
    pattern: &str,
    map: &str,
    extra: &[&str],
) -> String {
    let mut args = learn_args(entry, example, pattern, "0");
    args.extend(["--map", map].iter().chain(extra).map(|s| s.to_string()));
    stdout_of(exemplar(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ))
}

/// `learn --map` from `{base}/{entry}` with `{base}/{example}` into a fresh scratch directory
/// named after `name`: the directory, the pattern and map files in it, and learn's stdout.
fn learned_in_scratch(
    name: &str,
    base: &str,
    entry: &str,
    example: &str,
) -> (Scratch, String, String, String) {
    let dir = scratch_dir(name);
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (pattern, map) = (file("pattern.json"), file("map.json"));
    let learned = learned_with_map(
        &format!("{base}/{entry}"),
        &format!("{base}/{example}"),
        &pattern,
        &map,
        &[],
    );
    (dir, pattern, map, learned)
}

/// Ctrl-C for a child process: SIGINT.
fn interrupt(child: &std::process::Child) {
    // SAFETY: sending SIGINT to our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0, "SIGINT sent");
}

/// A scratch directory, removed when dropped: also when the test fails.
struct Scratch(std::path::PathBuf);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh scratch directory named after `name`.
fn scratch_dir(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "exemplar-cli-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// `serve --latency-ms` answers each request after the latency asked (a remote site's round
/// trip, for `bench-crawl`), with the same pages; a latency that is not a number is a usage
/// error.
#[test]
fn serve_answers_after_the_latency_asked() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args([
            "serve",
            SITE,
            "--port",
            &port.to_string(),
            "--latency-ms",
            "300",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run exemplar serve");
    let ready = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let client =
        exemplar_native::http::Client::new(&exemplar_native::http::ClientConfig::default());
    let (example, _) = roles();
    let timed = |path: &str| {
        let t = std::time::Instant::now();
        let r = client.fetch(&format!("http://127.0.0.1:{port}/{path}"), None);
        (r, t.elapsed())
    };
    let results = [timed(&example), timed("no-such-page.html")];
    let _ = server.kill();
    let _ = server.wait();
    assert!(ready, "the server did not start");
    let exemplar_core::fetch::FetchResult::Response(page) = &results[0].0 else {
        panic!("no answer: {:?}", results[0].0);
    };
    assert_eq!(page.status, 200);
    assert_eq!(
        page.body,
        std::fs::read(format!("{SITE}/{example}")).unwrap(),
        "the page as on disk"
    );
    assert!(
        matches!(&results[1].0, exemplar_core::fetch::FetchResult::Response(r) if r.status == 404)
    );
    for (r, elapsed) in &results {
        assert!(
            *elapsed >= std::time::Duration::from_millis(300),
            "answered after {elapsed:?}: {r:?}"
        );
    }
    let out = exemplar(&["serve", SITE, "--latency-ms", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--latency-ms"));
}

/// SFML (a development site, Debian's libsfml-doc), or None with a note when it is not installed.
fn installed_sfml() -> Option<exemplar_testkit::devsites::DevSite> {
    exemplar_testkit::devsites::installed_site("sfml")
        .map_err(|e| eprintln!("skipped: {e}"))
        .ok()
}

/// `exemplar learn` prints the heading rule the pattern carries, and `exemplar crawl
/// --verify-new` applies it: SFML (a development site) served from a folder of links to its
/// files without the member-less class `sf::Utf`, which is linked in after learning; the crawl
/// takes it below θ for its heading and says so, on stderr and in the JSON Lines export.
#[test]
fn a_verifying_crawl_says_which_new_pages_it_took_for_their_heading() {
    let Some(site) = installed_sfml() else {
        return;
    };
    const NEW: &str = "classsf_1_1Utf.html";
    let dir = scratch_dir("heading-rule");
    let root = dir.join("site");
    std::fs::create_dir_all(&root).unwrap();
    for entry in std::fs::read_dir(&site.root).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != NEW {
            std::os::unix::fs::symlink(entry.path(), root.join(entry.file_name())).unwrap();
        }
    }
    let mut server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(root.clone()))
            .unwrap();
    let base = server.url();
    let pattern = dir.join("pattern.json").to_str().unwrap().to_string();
    let learned = stdout_of(exemplar(
        &learn_args(
            &format!("{base}/{}", site.entry),
            &format!("{base}/{}", site.example),
            &pattern,
            "0",
        )
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    ));
    assert!(
        learned.contains(
            "a verifying crawl takes pages just below θ whose heading follows one of the targets' "
        ),
        "{learned}"
    );
    // The targets to check name each page by its heading after its URL: the tag struct taken
    // for its heading first.
    let tag = format!("{base}/structsf_1_1Shader_1_1CurrentTextureType.html");
    assert_eq!(targets_to_check(&learned)[0].2, tag, "{learned}");
    assert!(
        learned.lines().any(|l| l.starts_with("  0.")
            && l.ends_with(&format!(
                " h  {tag}  sf::Shader::CurrentTextureType Struct Reference"
            ))),
        "{learned}"
    );

    std::os::unix::fs::symlink(site.root.join(NEW), root.join(NEW)).unwrap();
    let jsonl = dir.join("pages.jsonl").to_str().unwrap().to_string();
    let (stdout, stderr) = crawled(&pattern, &["--verify-new", "--jsonl", &jsonl]);
    assert!(
        stdout.lines().any(|l| l == format!("{base}/{NEW}")),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "verification took 1 page just below θ for its heading (it follows the targets' heading template)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains(", 0 rejected by verification"), "{stderr}");
    // The JSON Lines export says which page was taken for its heading, and only that one, and
    // gives each page's heading (every SFML page has the same title).
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect();
    let taken: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|v| v.get("byHeading") == Some(&serde_json::Value::Bool(true)))
        .collect();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0]["url"], format!("{base}/{NEW}"));
    assert_eq!(
        taken[0]["heading"],
        "sf::Utf< N > Class Template Reference System module"
    );
    assert_eq!(
        taken[0]["title"],
        "SFML - Simple and Fast Multimedia Library"
    );
    assert!(
        lines
            .iter()
            .all(|v| v["heading"].as_str().is_some_and(|h| h.starts_with("sf::"))),
        "every class page named by its heading"
    );
    server.stop();
}

/// A kind of target by heading left out: `learn` lists SFML's targets by heading template (the
/// example's kind marked), `relearn --unlike-heading` leaves out the event structs without
/// fetching, and a verifying crawl refuses pages of that kind even where the pattern's regexes
/// reach them (the left-out list and exclusions removed from the pattern).
#[test]
fn a_kind_left_out_by_heading_is_refused_by_a_verifying_crawl() {
    let Some(site) = installed_sfml() else {
        return;
    };
    const KIND: &str = "sf Event * Struct Reference";
    let mut server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(site.root.clone()),
    )
    .unwrap();
    let base = server.url();
    let (dir, pattern, map, learned) =
        learned_in_scratch("heading-kinds", &base, &site.entry, &site.example);
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let kinds: Vec<&str> = learned
        .lines()
        .skip_while(|l| !l.starts_with("targets by heading"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        kinds
            .iter()
            .any(|l| l.contains("sf * Class Reference Graphics module (the example's)")),
        "{learned}"
    );
    let events = kinds
        .iter()
        .find(|l| l.contains(&format!("  {KIND}  e.g. ")))
        .unwrap_or_else(|| panic!("{learned}"));
    let n: usize = events.split_whitespace().next().unwrap().parse().unwrap();
    assert!(n >= 10, "{events}");
    let targets = |p: &str| -> Vec<String> {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        json["knownTargets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_str().unwrap().to_string())
            .collect()
    };
    let before = targets(&pattern);
    let left = file("left.json");
    let out = relearned_offline(&server, &pattern, &map, &["--unlike-heading", KIND], &left);
    assert!(
        out.contains(&format!(
            "  {n} targets left out: headed as you judged not like the example"
        )),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.contains(&format!(" x  {KIND}  e.g. "))),
        "{out}"
    );
    let after = targets(&left);
    assert_eq!(after.len(), before.len() - n);
    assert!(
        !after.iter().any(|u| u.contains("structsf_1_1Event_1_1")),
        "{after:?}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&left).unwrap()).unwrap();
    assert_eq!(
        json["corrections"]["unlikeHeadings"],
        serde_json::json!([KIND])
    );
    assert_eq!(json["unlikeByHeading"].as_array().map(Vec::len), Some(n));
    assert_eq!(json["headingRule"]["unlike"], serde_json::json!([KIND]));

    // --like-heading takes the kind back (it is not taken whatever its similarity); a kind of
    // no page of the map, or text that is no template, is refused with the reason.
    let back = file("back.json");
    let out = stdout_of(exemplar(&[
        "relearn",
        &left,
        "--map",
        &map,
        "--like-heading",
        KIND,
        "-o",
        &back,
    ]));
    assert!(!out.contains("left out: headed as"), "{out}");
    assert_eq!(targets(&back).len(), before.len());
    let taken_back = std::fs::read_to_string(&back).unwrap();
    assert!(
        !taken_back.contains("likeHeadings") && !taken_back.contains("unlikeHeadings"),
        "taken back, not taken whatever its similarity"
    );
    for (flag, kind, why) in [
        (
            "--like-heading",
            "sf * Nothing",
            "is no kind of the map's pages",
        ),
        ("--unlike-heading", "<b>sf</b>", "is not a heading template"),
    ] {
        let out = exemplar(&["relearn", &left, "--map", &map, flag, kind, "-o", &back]);
        assert_eq!(out.status.code(), Some(1), "{kind}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{stderr}");
    }

    // The same pattern without its list of left-out pages and its exclusions: the regexes
    // reach the event structs again, and verification refuses them by their heading.
    let mut bare = json.clone();
    bare.as_object_mut().unwrap().remove("unlikeByHeading");
    for level in bare["levels"].as_array_mut().unwrap() {
        level.as_object_mut().unwrap().remove("exclude");
    }
    let bare_path = file("bare.json");
    std::fs::write(&bare_path, bare.to_string()).unwrap();
    let (stdout, stderr) = crawled(&bare_path, &["--verify"]);
    assert!(
        !stdout.contains("structsf_1_1Event_1_1"),
        "refused by heading: {stdout}"
    );
    let rejected: usize = stderr
        .split(" rejected by verification")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        rejected >= n,
        "the regexes reach the {n} event structs: {stderr}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.ends_with("/structsf_1_1Font_1_1Info.html")),
        "another struct kind is kept: {stdout}"
    );
    server.stop();
}

/// A page past `--max-bytes` is named with the flag that reads it, by `learn` and by `crawl`;
/// with the limit raised it is read and collected.
#[test]
fn pages_past_the_size_limit_are_named_with_the_flag_that_reads_them() {
    let dir = scratch_dir("max-bytes");
    let item = |i: usize, paragraphs: usize| {
        format!(
            "<!DOCTYPE html><html><head><title>Item {i}</title></head><body><header>Shop</header>\
             <main><h1>Item {i}</h1><table class=spec><tr><td>size</td><td>{i}</td></tr></table>\
             {}</main></body></html>",
            "<p class=desc>About this item, at some length.</p>".repeat(paragraphs)
        )
    };
    let links: String = (1..=4)
        .map(|i| format!("<li><a href='item{i}.html'>Item {i}</a></li>"))
        .collect();
    std::fs::write(
        dir.join("index.html"),
        format!("<!DOCTYPE html><title>Shop</title><h1>Items</h1><ul>{links}</ul>"),
    )
    .unwrap();
    for i in 1..=4 {
        // Item 4 is some 40 KB.
        let paragraphs = if i == 4 { 800 } else { 3 };
        std::fs::write(dir.join(format!("item{i}.html")), item(i, paragraphs)).unwrap();
    }
    let server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(dir.to_path_buf()),
    )
    .unwrap();
    let base = server.url();
    let pattern = dir.join("pattern.json");
    let (entry, example) = (format!("{base}/index.html"), format!("{base}/item1.html"));
    let learn = |extra: &[&str]| {
        let mut args = vec![
            "learn",
            "--entry",
            &entry,
            "--example",
            &example,
            "-o",
            pattern.to_str().unwrap(),
            "--delay-ms",
            "0",
        ];
        args.extend_from_slice(extra);
        exemplar(&args)
    };
    let out = learn(&["--max-bytes", "16384"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "1 page not read for being larger than 16384 bytes (learn --max-bytes N reads them): {base}/item4.html"
        )),
        "{stderr}"
    );
    assert_eq!(pattern_targets(&pattern), 3);
    let (_, stderr) = crawled(pattern.to_str().unwrap(), &["--max-bytes", "16384"]);
    assert!(
        stderr.contains(&format!(
            "1 page not read for being larger than 16384 bytes (crawl --max-bytes N reads them): {base}/item4.html"
        )),
        "{stderr}"
    );
    let (stdout, stderr) = crawled(pattern.to_str().unwrap(), &[]);
    assert!(stdout.contains(&format!("{base}/item4.html")), "{stdout}");
    assert!(!stderr.contains("not read"), "{stderr}");

    let out = learn(&[]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not read"));
    assert_eq!(pattern_targets(&pattern), 4);

    let out = learn(&["--max-bytes", "100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--max-bytes 100: give a size from 1024")
    );
}

/// How many targets the pattern in `path` knows from learning.
fn pattern_targets(path: &std::path::Path) -> usize {
    known_targets(path.to_str().unwrap()).len()
}

/// On a site where only the example reaches the default θ, `learn` takes θ from the scores and
/// says why; a θ given with `--threshold` is the user's and stays, and `learn` names the cut
/// with the `relearn` command that takes it, which then finds what the default run found.
#[test]
fn a_theta_given_by_hand_is_kept_where_the_default_is_lowered() {
    let server =
        exemplar_native::serve::Server::start(0, |req: &exemplar_native::serve::Request| {
            common::c_api::site(&req.path)
        })
        .unwrap();
    let base = server.url();
    let dir = scratch_dir("given-theta");
    let path = |name: &str| dir.0.join(name).to_string_lossy().into_owned();
    let (entry, example) = (format!("{base}/"), format!("{base}/c3ref/f0.html"));
    let learn = |pattern: &str, map: &str, extra: &[&str]| {
        learned_with_map(&entry, &example, pattern, map, extra)
    };
    // The default θ: lowered, and said so.
    let (lowered, lowered_map) = (path("lowered.json"), path("lowered-map.json"));
    let stdout = learn(&lowered, &lowered_map, &[]);
    let theta = pattern(&lowered).similarity.threshold;
    assert!((0.5..0.6).contains(&theta), "{theta}\n{stdout}");
    assert!(
        stdout.contains(&format!(
            "θ lowered from 0.875 to {theta:.3}: no page but the example reached 0.875; 27 of the other 60 fetched pages"
        )),
        "{stdout}"
    );
    let interfaces = known_targets(&lowered);
    assert_eq!(interfaces.len(), 28, "{interfaces:?}");
    // θ given by hand: kept, the example alone, and the cut named with the command taking it.
    let (given, given_map) = (path("given.json"), path("given-map.json"));
    let stdout = learn(&given, &given_map, &["--threshold", "0.875"]);
    assert_eq!(pattern(&given).similarity.threshold, 0.875);
    assert_eq!(known_targets(&given), BTreeSet::from([example.clone()]));
    assert!(!stdout.contains("θ lowered"), "{stdout}");
    let command = format!("relearn {given} --map {given_map} --threshold {theta:.3}");
    assert!(
        stdout.contains(&format!(
            "no page but the example reached θ 0.875 (given with --threshold); 27 of the other 60 fetched pages score {theta:.3} or more"
        )) && stdout.contains(&command),
        "{stdout}"
    );
    let args: Vec<&str> = command.split(' ').collect();
    stdout_of(exemplar(&args));
    assert_eq!(pattern(&given).similarity.threshold, theta);
    assert_eq!(known_targets(&given), interfaces);
}

/// A manual whose reference pages and user's-guide chapters share one layout and one directory,
/// as Erlang's do: a module page is headed by its name alone, a chapter by its section number
/// and title. Twelve modules, eight chapters (a ninth, `added.html`, only when `grown`), the
/// home page and two lists.
fn manual(path: &str, grown: bool) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    const MODULES: [&str; 12] = [
        "lists",
        "maps",
        "string",
        "array",
        "queue",
        "sets",
        "dict",
        "proplists",
        "binary",
        "calendar",
        "timer",
        "random",
    ];
    const CHAPTERS: [(&str, &str); 9] = [
        ("intro", "1 Introduction"),
        ("gen_server_concepts", "2 gen_server Behaviour"),
        ("statem", "3 gen_statem Behaviour"),
        ("events", "4 gen_event Behaviour"),
        ("sup_princ", "5 Supervisor Behaviour"),
        ("spec_proc", "6 Special Processes"),
        ("applications", "7 Applications"),
        ("release_handling", "8 Release Handling"),
        ("added", "9 Appendix of Terms"),
    ];
    let chapters = if grown { 9 } else { 8 };
    let page = |title: &str, content: &str| {
        let menu: String = MODULES
            .iter()
            .map(|m| format!("<li><a href='/lib/{m}.html'>{m}</a></li>"))
            .collect();
        Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
             <div class=top><a href='/'>Home</a> <a href='/lib/index.html'>Reference</a> \
             <a href='/lib/guide.html'>Guide</a></div><div class=menu><ul>{menu}</ul></div>\
             <div class=content>{content}</div></body></html>"
        ))
    };
    let body = |h1: &str, items: usize| {
        let dl: String = (0..items)
            .map(|i| format!("<dt><code>f{i}(X)</code></dt><dd><p>Does {i}.</p></dd>"))
            .collect();
        format!("<h1>{h1}</h1><p>About {h1}.</p><h3>Contents</h3><dl>{dl}</dl>")
    };
    match path {
        "/" => page(
            "Home",
            "<h1>Manual</h1><p><a href='lib/index.html'>Reference</a> <a href='lib/guide.html'>Guide</a></p>",
        ),
        "/lib/index.html" => {
            let links: String = MODULES
                .iter()
                .map(|m| format!("<li><a href='{m}.html'>{m}</a></li>"))
                .collect();
            Response::html(format!(
                "<!DOCTYPE html><title>Reference</title><h1>Reference</h1><ul>{links}</ul>"
            ))
        }
        "/lib/guide.html" => {
            let links: String = CHAPTERS[..chapters]
                .iter()
                .map(|(f, t)| format!("<li><a href='{f}.html'>{t}</a></li>"))
                .collect();
            Response::html(format!(
                "<!DOCTYPE html><title>Guide</title><h1>User's Guide</h1><ol>{links}</ol>"
            ))
        }
        _ => {
            let name = path
                .strip_prefix("/lib/")
                .and_then(|p| p.strip_suffix(".html"))
                .unwrap_or("");
            if let Some(i) = MODULES.iter().position(|m| *m == name) {
                page(name, &body(name, 3 + i % 3))
            } else if let Some(i) = CHAPTERS[..chapters].iter().position(|(f, _)| *f == name) {
                page(CHAPTERS[i].1, &body(CHAPTERS[i].1, 3 + i % 3))
            } else {
                Response::not_found()
            }
        }
    }
}

/// Section-numbered headings as one kind: on a manual whose chapters pass θ beside the module
/// pages, `learn` lists the numbered headings as a kind (`#`), `relearn --unlike-heading '#'`
/// leaves out every chapter without fetching, and a verifying crawl of the site grown by a
/// chapter since refuses the new one too.
#[test]
fn numbered_headings_are_a_kind_the_user_can_leave_out() {
    let grown = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let g = std::sync::Arc::clone(&grown);
    let server =
        exemplar_native::serve::Server::start(0, move |req: &exemplar_native::serve::Request| {
            manual(&req.path, g.load(std::sync::atomic::Ordering::SeqCst))
        })
        .unwrap();
    let base = server.url();
    let (dir, pattern_file, map, learned) =
        learned_in_scratch("numbered", &base, "", "lib/lists.html");
    let path = |name: &str| dir.0.join(name).to_string_lossy().into_owned();
    let targets = known_targets(&pattern_file);
    let chapter = |u: &String| {
        !u.contains("/lib/")
            || ["intro", "_", "statem", "events", "applications"]
                .iter()
                .any(|c| u.contains(c))
    };
    assert_eq!(
        targets.iter().filter(|u| chapter(u)).count(),
        8,
        "the chapters pass θ: {targets:?}\n{learned}"
    );
    assert_eq!(targets.len(), 20, "{targets:?}");
    assert!(
        learned.lines().any(
            |l| l.split_whitespace().collect::<Vec<_>>()[..].starts_with(&[
                "8",
                "#",
                "(headings",
                "that",
                "start"
            ]) && l.contains("a section number: chapters, sections)  e.g. ")
        ),
        "{learned}"
    );
    let left = path("left.json");
    let out = relearned_offline(
        &server,
        &pattern_file,
        &map,
        &["--unlike-heading", "#"],
        &left,
    );
    assert!(
        out.contains("  8 targets left out: headed as you judged not like the example"),
        "{out}"
    );
    let modules = known_targets(&left);
    assert_eq!(modules.len(), 12, "{modules:?}");
    assert!(!modules.iter().any(chapter), "{modules:?}");
    let json = |p: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let relearned = json(&left);
    assert_eq!(
        relearned["corrections"]["unlikeHeadings"],
        serde_json::json!(["#"])
    );
    assert_eq!(relearned["headingRule"]["unlike"], serde_json::json!(["#"]));
    let (stdout, _) = crawled(&left, &["--verify"]);
    let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
    assert_eq!(got, modules);
    // The site gains a chapter. The first pattern's levels lead to the chapters; with the
    // verdict's rule in it, a verifying crawl refuses them by their number, the new one too.
    grown.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut first = json(&pattern_file);
    first["headingRule"] = relearned["headingRule"].clone();
    let ruled = path("ruled.json");
    std::fs::write(&ruled, first.to_string()).unwrap();
    let (stdout, stderr) = crawled(&ruled, &["--verify"]);
    let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
    assert_eq!(got, modules, "{stderr}");
    let rejected: usize = stderr
        .split(" rejected by verification")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(rejected >= 9, "every chapter, the new one too: {stderr}");
}

/// Git's manual (Debian's git-doc, AsciiDoc): every manual page is built alike and headed
/// "NAME(N) Manual Page", so the file formats (5) and overviews (7) pass θ beside the commands
/// (1). Learning from a command's page proposes to leave those sections out: the pattern
/// collects the commands and nothing else, the kinds list shows the two sections left out, and
/// `relearn --like-heading` takes one back without fetching.
#[test]
fn git_manual_pages_of_another_section_than_the_examples_are_left_out() {
    const ROOT: &str = "/usr/share/doc/git-doc";
    // The ground truth from the files: a page's section is in its title ("git-add(1)").
    let mut section: std::collections::BTreeMap<String, String> = Default::default();
    for entry in std::fs::read_dir(ROOT).expect("git-doc is installed by ./build.sh setup") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".html") {
            continue;
        }
        let html = std::fs::read_to_string(&path).unwrap();
        let title = html
            .split_once("<title>")
            .and_then(|(_, t)| t.split_once("</title>"))
            .map_or("", |(t, _)| t);
        if let Some(n) = title.strip_suffix(')').and_then(|t| t.rsplit_once('(')) {
            section.insert(name, n.1.to_string());
        }
    }
    let of = |n: &str| section.values().filter(|s| *s == n).count();
    assert!(of("1") > 100 && of("5") > 5 && of("7") > 5, "{section:?}");
    let mut server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(std::path::Path::new(ROOT)),
    )
    .unwrap();
    let base = server.url();
    let (dir, pattern_file, map, learned) =
        learned_in_scratch("git-manual", &base, "index.html", "git-commit.html");
    let path = |name: &str| dir.0.join(name).to_string_lossy().into_owned();
    let sections_of = |targets: &BTreeSet<String>| -> BTreeSet<String> {
        targets
            .iter()
            .map(|u| {
                let name = u.rsplit('/').next().unwrap_or("");
                section
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| format!("none: {u}"))
            })
            .collect()
    };
    let targets = known_targets(&pattern_file);
    assert_eq!(
        sections_of(&targets),
        BTreeSet::from(["1".to_string()]),
        "{learned}"
    );
    assert!(
        targets.len() * 100 >= of("1") * 95,
        "{} of {}",
        targets.len(),
        of("1")
    );
    for (kind, n) in [("5", of("5")), ("7", of("7"))] {
        let (n, kind) = (n.to_string(), format!("({kind})"));
        let row = [n.as_str(), "x", "*", &kind, "Manual", "Page", "e.g."];
        assert!(
            learned
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>().starts_with(&row)),
            "section {kind} listed left out with its {n} pages:\n{learned}"
        );
    }
    let p = pattern(&pattern_file);
    assert_eq!(
        p.corrections.unlike_headings,
        ["* (5) Manual Page", "* (7) Manual Page"]
    );
    assert_eq!(p.unlike_by_heading.len(), of("5") + of("7"));
    assert!(p.heading_rule.as_ref().is_some_and(|r| r.sections));
    // The crawl collects what learning did.
    let (stdout, _) = crawled(&pattern_file, &[]);
    let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
    assert_eq!(got, targets);
    // Taken back: the file formats are targets again, nothing fetched.
    let back = path("back.json");
    let out = relearned_offline(
        &server,
        &pattern_file,
        &map,
        &["--like-heading", "* (5) Manual Page"],
        &back,
    );
    let again = known_targets(&back);
    assert_eq!(
        sections_of(&again),
        BTreeSet::from(["1".to_string(), "5".to_string()]),
        "{out}"
    );
    assert_eq!(again.len(), targets.len() + of("5"));
    assert_eq!(
        pattern(&back).corrections.unlike_headings,
        ["* (7) Manual Page"]
    );
    // The same verdict given to learn: over learning's proposal, as relearn's is.
    let at_once = path("at-once.json");
    learned_with_map(
        &format!("{base}/index.html"),
        &format!("{base}/git-commit.html"),
        &at_once,
        &path("map2.json"),
        &["--like-heading", "* (5) Manual Page"],
    );
    assert_eq!(known_targets(&at_once), again);
    // A template naming no kind of the map is refused, the map kept.
    let out = exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/index.html"),
        "--example",
        &format!("{base}/git-commit.html"),
        "-o",
        &path("bad.json"),
        "--map",
        &path("map3.json"),
        "--delay-ms",
        "0",
        "--quiet",
        "--like-heading",
        "* (6) Manual Page",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("\"* (6) Manual Page\" is no kind of the map's pages")
            && stderr.contains("the map is saved in"),
        "{stderr}"
    );
    server.stop();
}

/// Debian's Apache HTTP Server manual in nine languages under one root (apache2-doc): the
/// translations are built from the English pages' template and pass θ beside them. Learning
/// from an English module page proposes to leave the other declared languages out: the pattern
/// collects English pages only (the module pages among them), the language list shows the
/// others left out, `relearn --like-language` takes one back without fetching, and a language
/// no page declares is refused. Then the guides, in other directories than the example's, are
/// listed by directory, and a verdict on those directories leaves them out: every target is a
/// module page, the crawl refuses the rest, and a directory is taken back or refused when it
/// holds no page.
#[test]
fn apache_pages_in_another_language_or_directory_than_the_examples_are_left_out() {
    const ROOT: &str = "/usr/share/doc/apache2-doc/manual";
    assert!(
        std::path::Path::new(ROOT).is_dir(),
        "apache2-doc is installed by ./build.sh setup"
    );
    // The ground truth from the files: the language a served path's file declares.
    let lang_of = |url: &str| -> String {
        let path = url.splitn(4, '/').nth(3).unwrap_or("");
        let html = std::fs::read(std::path::Path::new(ROOT).join(path)).unwrap_or_default();
        let html = String::from_utf8_lossy(&html);
        html.split_once("<html lang=\"")
            .and_then(|(_, t)| t.split_once('"'))
            .map_or(String::new(), |(l, _)| l.to_string())
    };
    let mut server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(std::path::Path::new(ROOT)),
    )
    .unwrap();
    let base = server.url();
    let (dir, pattern_file, map, learned) = learned_in_scratch(
        "apache-manual",
        &base,
        "en/index.html",
        "en/mod/mod_rewrite.html",
    );
    let path = |name: &str| dir.0.join(name).to_string_lossy().into_owned();
    let languages = |targets: &BTreeSet<String>| -> BTreeSet<String> {
        targets.iter().map(|u| lang_of(u)).collect()
    };
    let targets = known_targets(&pattern_file);
    assert_eq!(
        languages(&targets),
        BTreeSet::from(["en".to_string()]),
        "{learned}"
    );
    // The English module pages (with their summary table) are among them.
    let modules: BTreeSet<String> = std::fs::read_dir(format!("{ROOT}/en/mod"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            let html = std::fs::read_to_string(format!("{ROOT}/en/mod/{name}")).ok()?;
            html.contains("<table class=\"module\">")
                .then(|| format!("{base}/en/mod/{name}"))
        })
        .collect();
    assert!(modules.len() > 100, "{}", modules.len());
    let found = modules.intersection(&targets).count();
    assert!(
        found * 100 >= modules.len() * 99,
        "{found} of {}",
        modules.len()
    );
    let p = pattern(&pattern_file);
    for lang in ["fr", "ja", "ko", "tr"] {
        assert!(
            p.corrections.unlike_languages.iter().any(|l| l == lang),
            "{lang} proposed: {:?}",
            p.corrections.unlike_languages
        );
    }
    assert!(!p.corrections.unlike_languages.iter().any(|l| l == "en"));
    let left_out: BTreeSet<String> = p.unlike_by_language.iter().cloned().collect();
    assert!(left_out.len() > 200, "{}", left_out.len());
    assert!(
        left_out
            .iter()
            .all(|u| lang_of(u) != "en" && !lang_of(u).is_empty())
    );
    // Listed with their counts, left out; English is the example's.
    let french = left_out.iter().filter(|u| lang_of(u) == "fr").count();
    fn row(l: &str) -> Vec<&str> {
        l.split_whitespace().collect()
    }
    assert!(
        learned
            .lines()
            .any(|l| row(l).starts_with(&[&french.to_string(), "x", "fr", "e.g."])),
        "French listed left out with its {french} pages:\n{learned}"
    );
    assert!(
        learned.lines().any(|l| row(l).starts_with(&[
            &targets.len().to_string(),
            "en",
            "(the",
            "example's)"
        ])),
        "{learned}"
    );
    // The crawl collects what learning did: no translation; its pages say their language.
    let jsonl = path("pages.jsonl");
    let (stdout, _) = crawled(&pattern_file, &["--verify", "--jsonl", &jsonl]);
    let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
    assert_eq!(got, targets);
    let lines = std::fs::read_to_string(&jsonl).unwrap();
    let langs: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["lang"].clone())
        .collect();
    assert_eq!(langs.len(), targets.len());
    assert!(langs.iter().all(|l| l == "en"), "{lines}");
    // Taken back: the French pages are targets again, nothing fetched.
    let back = path("back.json");
    let out = relearned_offline(
        &server,
        &pattern_file,
        &map,
        &["--like-language", "FR"],
        &back,
    );
    let again = known_targets(&back);
    assert_eq!(
        languages(&again),
        BTreeSet::from(["en".to_string(), "fr".to_string()]),
        "{out}"
    );
    assert_eq!(again.len(), targets.len() + french);
    let q = pattern(&back);
    assert!(!q.corrections.unlike_languages.iter().any(|l| l == "fr"));
    assert!(q.corrections.unlike_languages.iter().any(|l| l == "ja"));
    // A language no page declares is refused, the map kept.
    let out = exemplar(&[
        "relearn",
        &pattern_file,
        "--map",
        &map,
        "--unlike-language",
        "xx",
        "-o",
        &path("bad.json"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no page of the map declares the language \"xx\""),
        "{stderr}"
    );
    // The targets by directory: the example's (the module pages) and the guides' several.
    let listed = |out: &str| -> Vec<Vec<String>> {
        out.lines()
            .skip_while(|l| !l.starts_with("targets by directory"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| row(l).into_iter().map(String::from).collect())
            .collect()
    };
    let modules_dir = format!("{base}/en/mod/");
    let directories = listed(&learned);
    assert!(
        directories
            .iter()
            .any(|r| r[1] == modules_dir && r[2] == "(the"),
        "{learned}"
    );
    let guides: Vec<(String, usize)> = directories
        .iter()
        .filter(|r| r[1] != modules_dir)
        .map(|r| (r[1].clone(), r[0].parse().unwrap()))
        .collect();
    assert!(guides.len() >= 5, "{learned}");
    let in_guides = |u: &String| !u.starts_with(&modules_dir);
    assert_eq!(
        guides.iter().map(|g| g.1).sum::<usize>(),
        targets.iter().filter(|u| in_guides(u)).count()
    );
    // Left out, one directory typed as its path, the others as listed: every target a module
    // page, as many as before.
    let mut flags: Vec<String> = Vec::new();
    for (i, (d, _)) in guides.iter().enumerate() {
        flags.push("--unlike-directory".into());
        flags.push(if i == 0 {
            d.trim_start_matches(&base)
                .trim_end_matches('/')
                .to_string()
        } else {
            d.clone()
        });
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let only_modules = path("modules.json");
    let out = relearned_offline(&server, &pattern_file, &map, &flags, &only_modules);
    let kept = known_targets(&only_modules);
    assert!(kept.iter().all(|u| u.starts_with(&modules_dir)), "{out}");
    assert_eq!(
        kept,
        targets.iter().filter(|u| !in_guides(u)).cloned().collect()
    );
    assert!(modules.intersection(&kept).count() * 100 >= modules.len() * 99);
    let q = pattern(&only_modules);
    assert_eq!(q.corrections.unlike_directories.len(), guides.len());
    assert_eq!(q.unlike_by_directory.len(), targets.len() - kept.len());
    let marked = listed(&out);
    assert!(
        guides.iter().all(|(d, n)| marked
            .iter()
            .any(|r| r[..3] == [n.to_string(), "x".into(), d.clone()])),
        "{out}"
    );
    // A crawl, verifying or not, collects the module pages alone.
    for verify in [&[][..], &["--verify"][..]] {
        let (stdout, _) = crawled(&only_modules, verify);
        let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
        assert_eq!(got, kept, "{verify:?}");
    }
    // One directory taken back: its targets again, nothing fetched.
    let (back_dir, back_count) = &guides[0];
    let one_back = path("one-back.json");
    relearned_offline(
        &server,
        &only_modules,
        &map,
        &["--like-directory", back_dir],
        &one_back,
    );
    assert_eq!(known_targets(&one_back).len(), kept.len() + back_count);
    // A directory holding no page is refused.
    let out = exemplar(&[
        "relearn",
        &only_modules,
        "--map",
        &map,
        "--unlike-directory",
        "/en/nowhere/",
        "-o",
        &path("bad.json"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no page of the map lies in the directory"),
        "{stderr}"
    );
    server.stop();
}

/// An OCaml API documented as ocamldoc does, in `dir`: ten classes headed "Class G.*" and six
/// virtual classes headed "Class virtual G.*" (fewer sections: they score about 0.78 against
/// a class), eight prose pages, and an index of them all; `extra` more virtual classes.
fn ocaml_api(dir: &std::path::Path, extra: &[&str]) {
    let page = |title: &str, h1: &str, body: &str| {
        format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body><div class=navbar>\
             <a href='index.html'>Up</a></div><h1>{h1}</h1>{body}</body></html>"
        )
    };
    // A class page `G.{name}-c.html` headed "{kind} G.{name}".
    let class = |name: &str, kind: &str, body: &str| {
        let h1 = format!("{kind} <a href='type_{name}.html'>G.{name}</a>");
        std::fs::write(dir.join(format!("G.{name}-c.html")), page(name, &h1, body)).unwrap();
    };
    const CLASSES: [&str; 10] = [
        "window", "button", "label", "entry", "frame", "notebook", "paned", "table", "image",
        "scale",
    ];
    let mut virtuals = vec![
        "action_group",
        "ml_signals",
        "focus",
        "drag_ops",
        "misc_ops",
        "gobject_ops",
    ];
    virtuals.extend_from_slice(extra);
    for (i, c) in CLASSES.iter().enumerate() {
        let methods: String = (0..3 + i % 4)
            .map(|m| {
                format!(
                    "<pre><span class=keyword>method</span> <code>m{m} : unit</code></pre>\
                     <div class=info><p>Does {m}.</p></div>"
                )
            })
            .collect();
        let body = format!(
            "<pre><span>class</span> <code>{c}</code></pre><div class=info><p>About {c}.</p></div>\
             <ul><li>inherits</li></ul><hr>{methods}"
        );
        class(c, "Class", &body);
    }
    for (i, v) in virtuals.iter().enumerate() {
        let methods: String = (0..2 + i % 3)
            .map(|m| {
                format!("<pre><span class=keyword>method</span> <code>m{m} : unit</code></pre>")
            })
            .collect();
        let body = format!(
            "<pre><span>class virtual</span> <code>{v}</code></pre><hr>{methods}\
             <table><tr><td>x</td></tr></table>"
        );
        class(v, "Class virtual", &body);
    }
    for i in 0..8 {
        let paras: String = (0..=i % 3).map(|j| format!("<p>Para {j}.</p>")).collect();
        std::fs::write(
            dir.join(format!("doc{i}.html")),
            page(&format!("Doc {i}"), &format!("Doc {i}"), &paras),
        )
        .unwrap();
    }
    let links: String = CLASSES
        .iter()
        .chain(&virtuals)
        .map(|c| format!("<li><a href='G.{c}-c.html'>{c}</a></li>"))
        .chain((0..8).map(|i| format!("<li><a href='doc{i}.html'>Doc {i}</a></li>")))
        .collect();
    std::fs::write(
        dir.join("index.html"),
        page("Index", "Index of classes", &format!("<ul>{links}</ul>")),
    )
    .unwrap();
}

/// A kind of page below θ taken: `learn` lists the pages below θ by heading (the virtual
/// classes, their best similarity), `relearn --like-heading` takes them all whatever their
/// similarity without fetching, a verifying crawl collects them and a virtual class added
/// since (the pattern's rule), and `--unlike-heading` on the kind takes the verdict back.
#[test]
fn a_kind_below_theta_taken_by_heading() {
    let site = scratch_dir("kinds-below");
    ocaml_api(&site.0, &[]);
    let mut server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(site.0.clone()),
    )
    .unwrap();
    let base = server.url();
    let (dir, pattern_file, map, learned) =
        learned_in_scratch("kinds-below-out", &base, "index.html", "G.window-c.html");
    let path = |name: &str| dir.0.join(name).to_string_lossy().into_owned();
    let classes = known_targets(&pattern_file);
    assert_eq!(classes.len(), 10, "{learned}");
    assert!(
        !classes
            .iter()
            .any(|u| u.contains("_ops") || u.contains("focus"))
    );
    let kind = learned
        .lines()
        .skip_while(|l| !l.starts_with("pages below θ by heading"))
        .nth(1)
        .unwrap_or_else(|| panic!("{learned}"));
    let cells: Vec<&str> = kind.split_whitespace().collect();
    assert_eq!(cells[0], "6", "{kind}");
    let best: f64 = cells[1].parse().unwrap();
    assert!((0.5..0.875).contains(&best), "{kind}");
    assert!(kind.contains(" Class virtual *  e.g. "), "{kind}");

    let taken = path("taken.json");
    let out = relearned_offline(
        &server,
        &pattern_file,
        &map,
        &["--like-heading", "Class virtual *"],
        &taken,
    );
    assert!(out.contains("1 heading kind like it"), "{out}");
    assert!(out.contains("+  Class virtual *"), "{out}");
    // Pages of a kind judged like the example are judged: not among the targets to check.
    let to_check: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("targets to check"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        !to_check.is_empty() && to_check.iter().all(|l| !l.contains("Class virtual")),
        "{out}"
    );
    let all = known_targets(&taken);
    assert_eq!(all.len(), 16, "{all:?}");
    assert!(all.is_superset(&classes));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&taken).unwrap()).unwrap();
    assert_eq!(
        json["corrections"]["likeHeadings"],
        serde_json::json!(["Class virtual *"])
    );
    assert_eq!(
        json["headingRule"]["like"],
        serde_json::json!(["Class virtual *"])
    );

    // A virtual class added since: a verifying crawl takes it by its heading, whatever its
    // similarity, and the prose pages stay out.
    ocaml_api(&site.0, &["new_signals"]);
    let (stdout, stderr) = crawled(&taken, &["--verify"]);
    let got: BTreeSet<String> = stdout.lines().map(String::from).collect();
    let mut expected = all.clone();
    expected.insert(format!("{base}/G.new_signals-c.html"));
    assert_eq!(got, expected, "{stderr}");

    // --unlike-heading on the kind takes the verdict back: the classes alone again.
    let back = path("back.json");
    stdout_of(exemplar(&[
        "relearn",
        &taken,
        "--map",
        &map,
        "--unlike-heading",
        "Class virtual *",
        "-o",
        &back,
    ]));
    assert_eq!(known_targets(&back), classes);
    assert!(
        !std::fs::read_to_string(&back)
            .unwrap()
            .contains("likeHeadings")
    );
    server.stop();
}

/// `learn` on a shop whose home page links no item (its catalogue is drawn by scripts) reads the
/// sitemap robots.txt names once every link is followed, learns from the items it lists, and
/// says so; `--no-sitemaps` finds nothing; the crawl collects every item listed.
/// The body of item `i` of the small shops written by the tests below: a heading, a table of
/// two rows, a description.
/// A page of the small shops these tests serve.
fn shop_page(title: &str, body: &str) -> String {
    format!("<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>")
}

/// A shop under `site`: an index listing `items` and their pages.
fn write_shop(site: &std::path::Path, items: &[usize]) {
    std::fs::create_dir_all(site.join("item")).unwrap();
    let links: String = items
        .iter()
        .map(|i| format!("<li><a href='/item/{i}.html'>Item {i}</a></li>"))
        .collect();
    std::fs::write(
        site.join("index.html"),
        shop_page("Shop", &format!("<ul>{links}</ul>")),
    )
    .unwrap();
    for &i in items {
        std::fs::write(
            site.join(format!("item/{i}.html")),
            shop_page(&format!("Item {i}"), &item_body(i)),
        )
        .unwrap();
    }
}

fn item_body(i: usize) -> String {
    format!(
        "<div class=item><h1>Item {i}</h1><table class=spec><tr><td>a</td><td>{i}</td></tr>\
         <tr><td>b</td><td>x</td></tr></table><p class=desc>Description of item {i}.</p></div>"
    )
}

/// A crawl run again later compares with the earlier one's JSON Lines (`--since`): the pages
/// new since, those whose text changed (not those whose markup alone did), and those no longer
/// found; `--changes-only` keeps the exports to the new and changed pages. The earlier file may
/// be the one the crawl writes anew (a rolling baseline), but not with `--changes-only`.
#[test]
fn crawl_since_an_earlier_export_names_what_is_new_changed_and_gone() {
    let site = scratch_dir("since-site");
    let page = shop_page;
    write_shop(&site, &[1, 2, 3, 4]);
    let server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(site.to_path_buf()),
    )
    .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    let (dir, pattern_path, _map, _learned) =
        learned_in_scratch("since", base, "index.html", "item/1.html");
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (first, changes, csv) = (
        file("first.jsonl"),
        file("changes.jsonl"),
        file("changes.csv"),
    );
    crawled(&pattern_path, &["--jsonl", &first]);
    let url = |i: usize| format!("{base}/item/{i}.html");
    let lines = |path: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    assert_eq!(lines(&first).len(), 4);
    assert!(
        lines(&first)
            .iter()
            .all(|p| p["textDigest"].as_str().is_some_and(|d| d.len() == 16))
    );

    // Item 5 added, item 3 gone, item 2's description changed, item 4's markup alone.
    write_shop(&site, &[1, 2, 4, 5]);
    std::fs::remove_file(site.join("item/3.html")).unwrap();
    std::fs::write(
        site.join("item/2.html"),
        page(
            "Item 2",
            &item_body(2).replace("Description of item 2.", "Now in blue."),
        ),
    )
    .unwrap();
    std::fs::write(
        site.join("item/4.html"),
        page(
            "Item 4",
            &format!("<section class=wide>{}</section><!-- v2 -->", item_body(4)),
        ),
    )
    .unwrap();
    let (stdout, stderr) = crawled(
        &pattern_path,
        &[
            "--since",
            &first,
            "--changes-only",
            "--jsonl",
            &changes,
            "--csv",
            &csv,
        ],
    );
    let all: BTreeSet<String> = stdout.lines().map(str::to_string).collect();
    assert_eq!(
        all,
        [1, 2, 4, 5].map(url).into_iter().collect(),
        "stdout lists every target"
    );
    assert!(
        stderr.contains(&format!(
            "since {first}: 1 new, 1 changed, 2 as they were, 1 no longer found\n  new: {}\n  changed: {}\n  gone: {}\n",
            url(5),
            url(2),
            url(3)
        )),
        "{stderr}"
    );
    assert!(stderr.contains("exports: the 2 new and changed pages only (--changes-only)"));
    let exported: BTreeSet<String> = lines(&changes)
        .iter()
        .map(|p| p["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(exported, [2, 5].map(url).into_iter().collect());
    for p in lines(&changes) {
        let want = if p["url"] == url(2).as_str() {
            "changed"
        } else {
            "new"
        };
        assert_eq!(p["change"], want, "{p}");
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 3);

    // A rolling baseline: the earlier file written anew by the crawl that reads it.
    crawled(&pattern_path, &["--jsonl", &first]);
    let (_, stderr) = crawled(&pattern_path, &["--since", &first, "--jsonl", &first]);
    assert!(
        stderr.contains(&format!(
            "since {first}: 0 new, 0 changed, 4 as they were, 0 no longer found"
        )),
        "{stderr}"
    );
    assert_eq!(lines(&first).len(), 4);
    assert!(lines(&first).iter().all(|p| p["change"] == "same"));
    // But not with --changes-only, which would leave the changes alone in it; nor without
    // an earlier file; and an earlier file that is not JSON Lines is named.
    for (args, says) in [
        (
            vec![
                "--since",
                first.as_str(),
                "--jsonl",
                first.as_str(),
                "--changes-only",
            ],
            "--changes-only would leave in",
        ),
        (
            vec!["--changes-only"],
            "--changes-only needs --since EARLIER.jsonl",
        ),
        (
            vec!["--since", csv.as_str()],
            "line 1: not a page of a JSON Lines export",
        ),
    ] {
        let mut all = vec!["crawl", pattern_path.as_str(), "--delay-ms", "0", "--quiet"];
        all.extend(args.iter().copied());
        let out = exemplar(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(says),
            "{says}: {stderr}"
        );
    }
    assert_eq!(lines(&first).len(), 4, "refused before writing anything");
}

/// A site that says "wait": robots.txt answers 503 the first time, and each item 429 (with
/// `Retry-After: 1`) every other time it is asked (the example page too, which `learn` asks
/// before mapping), item 3 three times in four. `learn` and `crawl` ask again after the wait, get every item, and say so;
/// the exported Scrapy spider gets every item too.
#[test]
fn learn_and_crawl_wait_when_the_site_says_so() {
    let site = scratch_dir("busy-site");
    write_shop(&site, &[1, 2, 3, 4]);
    std::fs::write(site.join("robots.txt"), "User-agent: *\nAllow: /\n").unwrap();
    let files = exemplar_native::serve::static_dir(site.to_path_buf());
    // When each path was asked.
    let asked = std::sync::Arc::new(std::sync::Mutex::new(HashMap::<
        String,
        Vec<std::time::Instant>,
    >::new()));
    let log = asked.clone();
    let server =
        exemplar_native::serve::Server::start(0, move |req: &exemplar_native::serve::Request| {
            let n = {
                let mut asked = log.lock().unwrap();
                let times = asked.entry(req.path.clone()).or_default();
                times.push(std::time::Instant::now());
                times.len()
            };
            let wait = |status: u16, seconds: &str| exemplar_native::serve::Response {
                status,
                headers: vec![("Retry-After".into(), seconds.into())],
                ..exemplar_native::serve::Response::default()
            };
            match req.path.as_str() {
                "/robots.txt" if n == 1 => wait(503, "1"),
                // Item 3 three times in four, 2 s each: asked again as often as Exemplar asks.
                "/item/3.html" if n % 4 != 0 => wait(429, "2"),
                p if p.starts_with("/item/") && n % 2 == 1 => wait(429, "1"),
                _ => files(req),
            }
        })
        .expect("serve");
    let asks_of_3 = || {
        asked
            .lock()
            .unwrap()
            .get("/item/3.html")
            .cloned()
            .unwrap_or_default()
    };
    let base = server.url();
    let base = base.trim_end_matches('/');
    let items: BTreeSet<String> = (1..=4).map(|i| format!("{base}/item/{i}.html")).collect();
    let (_dir, pattern_path, _map, learned) =
        learned_in_scratch("busy", base, "index.html", "item/1.html");
    assert!(
        learned.contains(
            "the site said to wait (429 or 503): 7 requests asked again after the wait it asked for"
        ),
        "robots.txt and items 1, 2 and 4 once, item 3 three times: {learned}"
    );
    assert!(learned.contains("4 targets, 0 errors"), "{learned}");
    assert_eq!(known_targets(&pattern_path), items);
    let (crawled, stderr) = crawled(&pattern_path, &[]);
    let collected: BTreeSet<String> = crawled.lines().map(str::to_string).collect();
    assert_eq!(collected, items);
    assert!(
        stderr.contains("the site said to wait (429 or 503): 6 requests asked again"),
        "{stderr}"
    );
    assert!(stderr.contains("; 0 errors, 0 skipped"), "{stderr}");
    // The exported spider asks again too (Scrapy's retries, set to Exemplar's: 429 and 503).
    let project = scratch_dir("busy-scrapy");
    let p = pattern(&pattern_path);
    exemplar_export::write_scrapy_project(&exemplar_export::ScrapySpec::from_pattern(&p), &project)
        .expect("scrapy project");
    let name = exemplar_export::ScrapySpec::from_pattern(&p).spider_name();
    let before = asks_of_3().len();
    let scraped: BTreeSet<String> = common::scrapy_crawl(&project, &name).into_iter().collect();
    assert_eq!(scraped, items);
    // Each Scrapy asked item 3 four times, each time after the 2 s its answer asked for
    // (Scrapy's own retries ask again at once). The middleware does not hold the request
    // itself: it waits in its host's download slot, held for the wait, as every request of the
    // host does.
    let asks = asks_of_3();
    assert_eq!(asks.len() - before, 8, "two Scrapys, four asks each");
    for run in asks[before..].chunks(4) {
        for pair in run.windows(2) {
            let gap = pair[1] - pair[0];
            assert!(
                gap >= std::time::Duration::from_millis(1950),
                "asked again after {gap:?}"
            );
        }
    }
    // The waits themselves (middlewares.py), in both Pythons: Retry-After as seconds or as a
    // date, else 2, 4, 8 s, between 1 s and the longest wait.
    let check = "import sys; sys.path.insert(0, sys.argv[1]); \
        from importlib import import_module; m = import_module(sys.argv[2] + '.middlewares'); \
        assert m.retry_after_seconds(b' 7 ') == 7; \
        assert m.retry_after_seconds(b'Sun, 06 Nov 1994 08:49:37 GMT', now=784111772) == 5; \
        assert m.retry_after_seconds(b'Sun, 06 Nov 1994 08:49:37 GMT') == 0; \
        assert m.retry_after_seconds(b'soon') is None and m.retry_after_seconds(None) is None; \
        assert m.retry_after_seconds('\\u00b2'.encode('latin-1')) is None; \
        assert [m.wait_seconds(None, a, 30) for a in (1, 2, 3)] == [2, 4, 8]; \
        assert (m.wait_seconds(0, 1, 30), m.wait_seconds(90, 1, 30)) == (1, 30)";
    for python in [
        exemplar_testkit::root().join(".venv/bin/python"),
        std::path::PathBuf::from("/usr/bin/python3"),
    ] {
        let out = Command::new(&python)
            .args(["-c", check])
            .arg(&*project)
            .arg(&name)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
        assert!(
            out.status.success(),
            "{}: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn learn_reads_the_sitemaps_for_the_pages_no_link_reaches() {
    let site = scratch_dir("sitemap-site");
    let page = |title: &str, body: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title></head><body>\
             <nav><a href='/index.html'>Home</a> <a href='/about.html'>About</a></nav>{body}</body></html>"
        )
    };
    std::fs::create_dir_all(site.join("item")).unwrap();
    std::fs::write(site.join("index.html"), page("Shop", "<div id=app></div>")).unwrap();
    std::fs::write(site.join("about.html"), page("About", "<p>Since 1999.</p>")).unwrap();
    for i in 1..=6 {
        std::fs::write(
            site.join(format!("item/{i}.html")),
            page(&format!("Item {i}"), &item_body(i)),
        )
        .unwrap();
    }
    let server = exemplar_native::serve::Server::start(
        0,
        exemplar_native::serve::static_dir(site.to_path_buf()),
    )
    .expect("serve");
    let base = server.url();
    let base = base.trim_end_matches('/');
    std::fs::write(
        site.join("robots.txt"),
        "User-agent: *\nSitemap: /sitemap.txt\nSitemap: /gone.xml\n",
    )
    .unwrap();
    let items: BTreeSet<String> = (1..=6).map(|i| format!("{base}/item/{i}.html")).collect();
    let listed: String = items.iter().map(|u| format!("{u}\n")).collect();
    std::fs::write(site.join("sitemap.txt"), listed).unwrap();

    let (dir, pattern, _map, learned) =
        learned_in_scratch("sitemap", base, "index.html", "item/1.html");
    assert!(
        learned.contains(&format!(
            "robots.txt names 2 sitemaps ({base}/sitemap.txt, …): read once every link was followed (1 sitemap read), 6 pages no link reached mapped from them as links of the entry page"
        )),
        "{learned}"
    );
    // The sitemap not read is named, with why.
    assert!(
        learned.contains(&format!(
            "\n  {base}/gone.xml: sitemap not read: HTTP 404\n"
        )),
        "{learned}"
    );
    assert_eq!(known_targets(&pattern), items);
    let (crawled, stderr) = crawled(&pattern, &[]);
    let collected: BTreeSet<String> = crawled.lines().map(str::to_string).collect();
    assert_eq!(collected, items);
    assert!(
        stderr.contains(&format!(
            "sitemaps: 1 read (named by robots.txt), 6 of the URLs they list followed; 1 sitemap not read:\n  {base}/gone.xml: sitemap not read: HTTP 404\n"
        )),
        "{stderr}"
    );

    let out = exemplar(&[
        "learn",
        "--entry",
        &format!("{base}/index.html"),
        "--example",
        &format!("{base}/item/1.html"),
        "-o",
        &dir.join("off.json").to_string_lossy(),
        "--delay-ms",
        "0",
        "--quiet",
        "--no-sitemaps",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no page similar to the example"),
        "{stderr}"
    );
}
