//! `--resolve HOST:ADDR`: a site served on 127.0.0.1 under its own host name, as the real host
//! would serve it (a server that answers by the `Host` header and misdirects any other name),
//! learned and crawled under its own URLs.
#![cfg(not(target_arch = "wasm32"))]

mod shared;
use shared::exemplar;

use exemplar_native::serve::{Request, Response, Server, static_dir};

const SITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/demo-site"
);
const HOST: &str = "imoveis.test";
const EXAMPLE: &str = "imovel/101-apartamento-2-quartos-lapa.html";

/// The site at `root` for `Host: imoveis.test` alone; 421 for any other name.
fn virtual_host(root: &str) -> Server {
    let files = static_dir(root);
    Server::start(0, move |req: &Request| {
        let host = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map(|(_, v)| v.split(':').next().unwrap_or("").to_ascii_lowercase());
        if host.as_deref() == Some(HOST) {
            files(req)
        } else {
            Response {
                status: 421,
                ..Response::default()
            }
        }
    })
    .expect("serve")
}

/// The demo site's entity pages, by `expected.toml`.
fn entities() -> usize {
    std::fs::read_to_string(format!("{SITE}/expected.toml"))
        .expect("expected.toml")
        .lines()
        .filter(|l| l.trim_end().ends_with("= \"entity\""))
        .count()
}

#[test]
fn a_site_under_its_own_name_is_learned_and_crawled_where_resolve_points() {
    let server = virtual_host(SITE);
    let port = server.addr().port();
    let dir = shared::tempdir("resolve", "demo");
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8");
    for rule in [
        format!("{HOST}:127.0.0.1:{port}"),
        format!("*:127.0.0.1:{port}"),
    ] {
        let out = exemplar(&[
            "learn",
            "--resolve",
            &rule,
            "--entry",
            &format!("http://{HOST}/index.html"),
            "--example",
            &format!("http://{HOST}/{EXAMPLE}"),
            "-o",
            p,
            "--delay-ms",
            "0",
            "--quiet",
            "--no-fields",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{rule}: {stderr}");
        let text = std::fs::read_to_string(&pattern).expect("pattern");
        assert!(text.contains(r"imoveis\\.test/imovel/"), "{rule}: {text}");
        assert!(!text.contains("127.0.0.1"), "the site's own URLs: {text}");

        let out = exemplar(&["crawl", p, "--resolve", &rule, "--delay-ms", "0", "--quiet"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let targets: Vec<&str> = stdout.lines().collect();
        assert_eq!(targets.len(), entities(), "{stdout}");
        assert!(
            targets
                .iter()
                .all(|t| t.starts_with(&format!("http://{HOST}/imovel/"))),
            "{stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Pages rendered in Chromium are asked where `--resolve` points too: the demo site's property
/// pages, each with a script that draws a line, crawled with `--render` under their own name
/// show the line (Chromium asking the real `imoveis.test` would find no such host, and keep
/// the pages as fetched).
#[test]
fn pages_rendered_in_chromium_are_asked_where_resolve_points() {
    let dir = shared::tempdir("resolve", "render");
    let site = dir.join("site");
    copy_dir(std::path::Path::new(SITE), &site);
    let drawn = "<script>document.body.insertAdjacentHTML('beforeend', \
                 '<p id=\"drawn\">drawn by a script</p>')</script></body>";
    for entry in std::fs::read_dir(site.join("imovel")).expect("imovel/") {
        let path = entry.expect("entry").path();
        let html = std::fs::read_to_string(&path).expect("page");
        std::fs::write(&path, html.replacen("</body>", drawn, 1)).expect("write");
    }
    let server = virtual_host(site.to_str().expect("utf-8"));
    let rule = format!("{HOST}:127.0.0.1:{}", server.addr().port());
    let pattern = dir.join("pattern.json");
    let p = pattern.to_str().expect("utf-8");
    let out = exemplar(&[
        "learn",
        "--resolve",
        &rule,
        "--entry",
        &format!("http://{HOST}/index.html"),
        "--example",
        &format!("http://{HOST}/{EXAMPLE}"),
        "-o",
        p,
        "--delay-ms",
        "0",
        "--quiet",
        "--no-fields",
        "--no-render",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jsonl = dir.join("pages.jsonl");
    let out = exemplar(&[
        "crawl",
        p,
        "--resolve",
        &rule,
        "--render",
        "--jsonl",
        jsonl.to_str().expect("utf-8"),
        "--html",
        "--delay-ms",
        "0",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("could not be rendered"), "{stderr}");
    let pages: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .expect("JSON Lines")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(pages.len(), entities());
    for page in &pages {
        assert!(
            page["html"]
                .as_str()
                .unwrap_or("")
                .contains("drawn by a script</p>"),
            "not rendered: {}",
            page["url"]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of the directory `from` at `to` (files and subdirectories).
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

#[test]
fn a_resolve_rule_of_another_shape_is_a_clear_error() {
    for (bad, says) in [
        (HOST, "expected HOST:ADDRESS"),
        ("imoveis.test:localhost", "\"localhost\" is not an address"),
    ] {
        let out = exemplar(&[
            "learn",
            "--resolve",
            bad,
            "--entry",
            &format!("http://{HOST}/index.html"),
            "--example",
            &format!("http://{HOST}/{EXAMPLE}"),
            "-o",
            "/dev/null",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad}");
        assert!(
            stderr.contains(&format!("--resolve {bad}: ")) && stderr.contains(says),
            "{stderr}"
        );
    }
}
