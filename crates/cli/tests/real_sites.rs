//! `exemplar learn` and `exemplar crawl` as real processes on the real sites of `eval/real/`:
//! the static mirrors of quotes.toscrape.com (a directory) and books.toscrape.com (a shop),
//! and the live applications behind them (`eval/real/serve_app.py`, started from `.venv`).
//! Each crawl must collect exactly the site's item pages, from patterns of at most three
//! regexes a level.
#![cfg(not(target_arch = "wasm32"))]

mod shared;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use exemplar_native::serve::{Server, static_dir};
use exemplar_testkit::live_apps;

fn real_site(name: &str) -> PathBuf {
    exemplar_testkit::root().join("eval/real/sites").join(name)
}

fn exemplar(args: &[&str]) -> String {
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

/// What a learn and a crawl give on one site.
struct Run {
    /// `learn`'s report.
    learned: String,
    /// The pattern's regexes, level by level.
    levels: Vec<Vec<String>>,
    /// The URLs the crawl collected, by path.
    collected: BTreeSet<String>,
    /// Pages the crawl fetched (its JSON Lines' pages and the requests its report counts).
    fetched: usize,
}

fn path_of(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_string(), |u| u.path().to_string())
}

/// Learns from `entry` with `example` and crawls with the pattern, in `dir`.
fn learn_and_crawl(dir: &Path, entry: &str, example: &str) -> Run {
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8 path");
    let fast = ["--delay-ms", "0", "--concurrency", "8", "--quiet"];
    let review = dir.join("review.txt");
    let review = review.to_str().expect("utf-8 path");
    let mut args = vec!["learn", "--entry", entry, "--example", example, "-o", p];
    args.extend(["--review-file", review]);
    args.extend_from_slice(&fast);
    let learned = exemplar(&args);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pattern).expect("pattern written"))
            .expect("pattern JSON");
    let levels: Vec<Vec<String>> = json["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .map(|l| {
            l["regexes"]
                .as_array()
                .expect("regexes")
                .iter()
                .map(|r| r.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .collect();
    let mut args = vec!["crawl", p];
    args.extend_from_slice(&fast);
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(&args)
        .output()
        .expect("run exemplar");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let collected: BTreeSet<String> = stdout.lines().map(path_of).collect();
    let fetched = stderr
        .split(" pages fetched")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no page count in {stderr}"));
    Run {
        learned,
        levels,
        collected,
        fetched,
    }
}

fn assert_few_regexes(run: &Run) {
    for (i, level) in run.levels.iter().enumerate() {
        assert!(
            level.len() <= 3,
            "level {} has {} regexes: {level:#?}\n{}",
            i + 1,
            level.len(),
            run.learned
        );
    }
}

#[test]
fn the_quotes_directory_mirror_gives_its_50_authors_and_nothing_else() {
    let server = Server::start(0, static_dir(real_site("quotes-toscrape"))).expect("serve");
    let base = server.url();
    let dir = shared::tempdir("real", "quotes-mirror");
    let run = learn_and_crawl(
        &dir,
        &format!("{base}/"),
        &format!("{base}/author/Albert-Einstein/"),
    );
    assert_eq!(run.collected.len(), 50, "{:#?}", run.collected);
    assert!(
        run.collected.iter().all(|p| p.starts_with("/author/")),
        "quote lists taken as authors: {:#?}",
        run.collected
    );
    assert_few_regexes(&run);
    // The paged list of quotes is the level, not a literal tag page per author.
    assert_eq!(run.levels.len(), 2, "{:#?}", run.levels);
    assert!(run.levels[0][0].contains("/page/"), "{:#?}", run.levels);
    // The entry, its 9 further pages and the 50 authors: 1.2 pages a target. Robots.txt and
    // the sitemap guesses are requests, not pages; `/page/1/`, the entry's copy, is not fetched.
    assert_eq!(run.fetched, 60, "pages fetched");
}

#[test]
fn the_shop_mirror_gives_its_1000_books_from_a_pattern_a_person_would_write() {
    let server = Server::start(0, static_dir(real_site("zyte-books"))).expect("serve");
    let base = server.url();
    let dir = shared::tempdir("real", "books-mirror");
    let run = learn_and_crawl(&dir, &format!("{base}/"), &format!("{base}/product/239/"));
    assert_eq!(run.collected.len(), 1000);
    assert!(run.collected.iter().all(|p| p.starts_with("/product/")));
    assert_few_regexes(&run);
    assert!(run.fetched <= 1200, "{} pages fetched", run.fetched);
    // Products filed as directories (`/product/7/`) are one directory, not a thousand; and
    // the terminal gets the pattern and a line of review, not the lists: they are in the file.
    assert!(run.learned.lines().count() <= 40, "{}", run.learned);
    let review = std::fs::read_to_string(dir.join("review.txt")).expect("--review-file written");
    assert!(!review.contains("targets by directory"), "{review}");
    let line = run
        .learned
        .lines()
        .find(|l| l.starts_with("review: "))
        .unwrap_or_else(|| panic!("no review line in {}", run.learned));
    assert!(
        line.ends_with(&format!("written to {}", dir.join("review.txt").display())),
        "{line}"
    );
    // Every target is in the file's list to check, in order of doubt: the terminal's 20 cut none.
    let to_check = review
        .lines()
        .skip_while(|l| !l.starts_with("targets to check"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .count();
    assert_eq!(to_check, 999, "{review}");
}

#[test]
fn the_live_shop_is_crawled_through_its_query_string_pagination() {
    let app = live_apps::start("zyte-books").expect("the live shop");
    let dir = shared::tempdir("real", "books-live");
    let run = learn_and_crawl(
        &dir,
        &format!("{}/", app.base),
        &format!("{}/product/239", app.base),
    );
    let products: Vec<&String> = run
        .collected
        .iter()
        .filter(|p| {
            p.strip_prefix("/product/")
                .is_some_and(|id| id.parse::<u32>().is_ok())
        })
        .collect();
    assert_eq!(products.len(), run.collected.len(), "{:#?}", run.collected);
    assert_eq!(products.len(), 1000);
    assert_few_regexes(&run);
    assert!(
        run.levels.iter().flatten().any(|r| r.contains(r"\?page=")),
        "{:#?}",
        run.levels
    );
    assert!(run.fetched <= 1200, "{} pages fetched", run.fetched);
}

#[test]
fn the_live_quotes_application_gives_its_50_authors() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("real", "quotes-live");
    let run = learn_and_crawl(
        &dir,
        &format!("{}/", app.base),
        &format!("{}/author/Albert-Einstein/", app.base),
    );
    let authors: BTreeSet<String> = run
        .collected
        .iter()
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    assert_eq!(authors.len(), 50, "{:#?}", run.collected);
    assert!(
        authors.iter().all(|p| p.starts_with("/author/")),
        "{authors:#?}"
    );
    assert_few_regexes(&run);
}

#[test]
fn a_crawl_behind_a_login_sends_the_users_cookies() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let dir = shared::tempdir("real", "quotes-login");
    let cookies = dir.join("cookies.txt");
    live_apps::log_in(&app.base, &cookies).expect("logged in");
    let c = cookies.to_str().expect("utf-8 path");
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8 path");
    // The quote lists show who is signed in (author pages do not): they are the pages to
    // collect here.
    let entry = format!("{}/", app.base);
    let example = format!("{}/page/2/", app.base);
    let fast = ["--delay-ms", "0", "--concurrency", "4", "--quiet"];
    let mut learn = vec!["learn", "--entry", &entry, "--example", &example, "-o", p];
    learn.extend_from_slice(&fast);
    learn.extend_from_slice(&["--cookies", c]);
    exemplar(&learn);
    // The pattern keeps no secret: cookies are given again to each run.
    let saved = std::fs::read_to_string(&pattern).expect("pattern");
    let session = std::fs::read_to_string(&cookies).expect("cookies");
    let value = session
        .lines()
        .filter(|l| !l.starts_with('#') || l.starts_with("#HttpOnly_"))
        .find_map(|l| l.split('\t').nth(6))
        .expect("a cookie");
    assert!(!saved.contains(value));
    let pages = |with_cookies: bool| -> Vec<serde_json::Value> {
        let jsonl = dir.join(format!("pages-{with_cookies}.jsonl"));
        let j = jsonl.to_str().expect("utf-8 path");
        let mut crawl = vec!["crawl", p, "--jsonl", j, "--html"];
        crawl.extend_from_slice(&fast);
        if with_cookies {
            crawl.extend_from_slice(&["--cookies", c]);
        }
        exemplar(&crawl);
        std::fs::read_to_string(&jsonl)
            .expect("jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    };
    let signed_in = pages(true);
    let listed = |pages: &[serde_json::Value]| {
        pages
            .iter()
            .filter(|p| p["url"].as_str().unwrap_or_default().contains("/page/"))
            .count()
    };
    assert!(listed(&signed_in) >= 9, "{signed_in:#?}");
    let lists = |pages: &[serde_json::Value]| -> Vec<String> {
        pages
            .iter()
            .filter(|p| !p["url"].as_str().unwrap_or_default().contains("/author/"))
            .map(|p| p["html"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert!(
        lists(&signed_in)
            .iter()
            .all(|html| html.contains(">Logout<"))
    );
    // The same crawl without the cookies sees the site as a visitor does.
    let anonymous = pages(false);
    assert_eq!(listed(&anonymous), listed(&signed_in));
    assert!(
        lists(&anonymous)
            .iter()
            .all(|html| html.contains(">Login<"))
    );
}

#[test]
fn a_cookie_file_that_cannot_be_read_is_a_clear_error() {
    let dir = shared::tempdir("real", "bad-cookies");
    let bad = dir.join("cookies.txt");
    std::fs::write(&bad, "quotes.test\tTRUE\t/\tFALSE\t0\tsession\n").expect("write");
    for (file, says) in [
        (
            bad.to_str().expect("utf-8"),
            "line 1: 6 tab-separated fields",
        ),
        (
            "/nonexistent/cookies.txt",
            "--cookies /nonexistent/cookies.txt",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
            .args([
                "learn",
                "--entry",
                "http://127.0.0.1:9/",
                "--example",
                "http://127.0.0.1:9/a",
                "--cookies",
                file,
            ])
            .output()
            .expect("run exemplar");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(!stderr.contains("session"), "{stderr}");
    }
}

/// Targets that look like listing pages are flagged, and left out on the user's word: on the
/// quotes directory learned from an author page at θ 0.5, the lists of quotes (`/page/N/`,
/// which page on) pass θ with the authors; the review lists them and none of the 50 authors,
/// and `relearn --unlike-listings` gives them a paginated level of their own, every author kept.
#[test]
fn quote_lists_taken_as_authors_are_flagged_and_left_out_on_the_users_word() {
    let server = Server::start(0, static_dir(real_site("quotes-toscrape"))).expect("serve");
    let base = server.url();
    let dir = shared::tempdir("real", "quotes-listings");
    let file = |name: &str| dir.join(name).to_str().expect("utf-8").to_string();
    let (pattern, map, review) = (file("p.json"), file("map.json"), file("review.txt"));
    let (entry, example) = (
        format!("{base}/"),
        format!("{base}/author/Albert-Einstein/"),
    );
    let fast = [
        "--delay-ms",
        "0",
        "--concurrency",
        "8",
        "--quiet",
        "--no-fields",
    ];
    let mut args = vec![
        "learn",
        "--entry",
        &entry,
        "--example",
        &example,
        "-o",
        &pattern,
    ];
    args.extend([
        "--map",
        &map,
        "--threshold",
        "0.5",
        "--review-file",
        &review,
    ]);
    args.extend_from_slice(&fast);
    exemplar(&args);
    let targets = |p: &str| -> BTreeSet<String> {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).expect("pattern")).expect("JSON");
        json["knownTargets"]
            .as_array()
            .expect("knownTargets")
            .iter()
            .map(|u| path_of(u.as_str().unwrap_or_default()))
            .collect()
    };
    let before = targets(&pattern);
    let lists: BTreeSet<String> = (2..=10).map(|n| format!("/page/{n}/")).collect();
    assert!(before.is_superset(&lists), "{before:?}");
    let text = std::fs::read_to_string(&review).expect("review file");
    let flagged: BTreeSet<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("targets that look like listing pages"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| path_of(l.split_whitespace().nth(1).unwrap_or_default()))
        .collect();
    assert!(flagged.is_superset(&lists), "{text}");
    assert!(
        flagged
            .iter()
            .all(|p| p.starts_with("/page/") || p.starts_with("/tag/")),
        "{flagged:?}"
    );
    let authors = |t: &BTreeSet<String>| t.iter().filter(|p| p.starts_with("/author/")).count();
    assert_eq!(authors(&before), 50);

    let left = file("left.json");
    exemplar(&[
        "relearn",
        &pattern,
        "--map",
        &map,
        "--unlike-listings",
        "-o",
        &left,
    ]);
    let after = targets(&left);
    assert!(after.is_disjoint(&flagged), "{after:?}");
    assert_eq!(authors(&after), 50);
    assert_eq!(after.len(), before.len() - flagged.len());
}
