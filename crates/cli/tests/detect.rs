//! `exemplar detect` as a real process against real sites served on 127.0.0.1: the static
//! mirrors of books.toscrape.com (a shop) and quotes.toscrape.com (a directory) of
//! `eval/real/sites/`, a few-page site, a host that answers nothing, bad arguments.
#![cfg(not(target_arch = "wasm32"))]

mod shared;
use shared::exemplar;

use std::path::PathBuf;

use exemplar_native::serve::{Server, static_dir};

fn real_site(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../eval/real/sites"
    ))
    .join(name)
}

/// Runs `detect --json` on `url` with no delay; the one JSON line it prints.
fn detect(url: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["detect", url, "--json", "--delay-ms", "0"];
    args.extend_from_slice(extra);
    let out = exemplar(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    serde_json::from_str(lines[0]).expect("a JSON line")
}

fn examples(v: &serde_json::Value) -> Vec<String> {
    v["sections"][0]["examples"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_shop_s_products_are_found_from_its_home_page() {
    let server = Server::start(0, static_dir(real_site("zyte-books"))).expect("serve");
    let v = detect(&format!("{}/", server.url()), &[]);
    assert_eq!(v["entitySite"], true, "{v:#}");
    let ex = examples(&v);
    assert!(
        !ex.is_empty() && ex.iter().all(|u| u.contains("/product/")),
        "{v:#}"
    );
    // The home page lists categories only: one category (a listing built like the home page),
    // then another with enough books, then one book to confirm.
    assert!(v["fetches"].as_u64().unwrap_or(99) <= 4, "{v:#}");
    // The section's index pages are the categories that list the books.
    assert!(
        v["sections"][0]["index"]
            .as_array()
            .is_some_and(|a| a.len() > 1),
        "{v:#}"
    );
    assert!(
        v["sections"][0]["estimatedItems"].as_u64().unwrap_or(0) >= 10,
        "{v:#}"
    );
}

#[test]
fn a_directory_s_author_pages_are_found_from_an_author_page() {
    let server = Server::start(0, static_dir(real_site("quotes-toscrape"))).expect("serve");
    let base = server.url();
    let v = detect(&format!("{base}/"), &[]);
    assert_eq!(v["entitySite"], true, "{v:#}");
    assert!(examples(&v).iter().all(|u| u.contains("/author/")), "{v:#}");
    // From an item page: the search goes to the root and finds the same section.
    let v = detect(
        &format!("{base}/author/Albert-Einstein/"),
        &["--max-fetches", "5"],
    );
    assert_eq!(v["entitySite"], true, "{v:#}");
    assert!(examples(&v).iter().all(|u| u.contains("/author/")), "{v:#}");
    assert!(v["fetches"].as_u64().unwrap_or(99) <= 5, "{v:#}");
}

#[test]
fn a_few_page_site_has_no_item_pages_and_text_output_says_so() {
    let dir = std::env::temp_dir().join(format!("exemplar-detect-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("install")).expect("dir");
    std::fs::write(
        dir.join("index.html"),
        "<html><head><title>tool</title></head><body><h1>tool</h1><p>A small tool.</p>\
         <a href='install/'>Install</a> <a href='changes.html'>Changes</a></body></html>",
    )
    .expect("write");
    std::fs::write(
        dir.join("install/index.html"),
        "<h1>Install</h1><p>make install</p>",
    )
    .expect("write");
    std::fs::write(
        dir.join("changes.html"),
        "<h1>Changes</h1><ul><li>1.0: first</li></ul>",
    )
    .expect("write");
    let server = Server::start(0, static_dir(dir.clone())).expect("serve");
    let url = format!("{}/", server.url());
    let v = detect(&url, &[]);
    assert_eq!(v["entitySite"], false, "{v:#}");
    assert!(v["fetches"].as_u64().unwrap_or(99) <= 4, "{v:#}");
    let out = exemplar(&["detect", &url, "--delay-ms", "0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no section of item pages found"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_host_that_answers_nothing_and_bad_arguments_are_clear_errors() {
    // A port nothing listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let out = exemplar(&[
        "detect",
        &format!("http://127.0.0.1:{port}/"),
        "--delay-ms",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no page answered"), "{err}");
    let out = exemplar(&["detect", "http://127.0.0.1:1/", "--max-fetches", "0"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = exemplar(&["detect", "http://127.0.0.1:1/", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let out = exemplar(&["detect", "not-a-url"]);
    assert_eq!(out.status.code(), Some(1));
}
