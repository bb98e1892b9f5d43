//! `exemplar replicas` over real documentation served on 127.0.0.1: PostgreSQL's manual, a mirror
//! of it under a prefix with `.html` dropped and a banner on every page, a partial mirror of a
//! fifth of its pages, and two javadoc sites of one generator (hard negatives: template paths and
//! boilerplate pages shared, other pages).
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

use exemplar_native::serve::{Request, Response, Server, static_dir};

const POSTGRES: &str = "/usr/share/doc/postgresql-doc-15/html";
const LANG3: &str = "/usr/share/doc/libcommons-lang3-java/api";
const COMMONS_IO: &str = "/usr/share/doc/libcommons-io-java/api";

fn exemplar(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A mirror of `root` under `prefix`, `.html` dropped from its URLs and links, a banner with a
/// timestamp after `<body>` on every page.
fn mirror(
    root: &str,
    prefix: &'static str,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let files = static_dir(root);
    move |req: &Request| {
        let Some(rest) = req.path.strip_prefix(prefix) else {
            return Response::not_found();
        };
        let rest = rest.split('?').next().unwrap_or("");
        let file = if rest.is_empty() || rest.ends_with('/') {
            format!("/{rest}index.html")
        } else if rest.contains('.') {
            format!("/{rest}")
        } else {
            format!("/{rest}.html")
        };
        let mut r = files(&Request {
            path: file,
            ..req.clone()
        });
        let html = r
            .headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v.contains("html"));
        if r.status == 200 && html {
            let body = String::from_utf8_lossy(&r.body)
                .replace(".html\"", "\"")
                .replace("index\"", "\"");
            let stamp = format!(
                "<div class=mirror>This is a mirror of the PostgreSQL documentation, kept by \
                 mirror.example.net, copied {}.</div>",
                req.path.len() * 7919 % 100_000
            );
            let body = match body.find("<body") {
                Some(i) => match body[i..].find('>') {
                    Some(j) => format!("{}{stamp}{}", &body[..i + j + 1], &body[i + j + 1..]),
                    None => body,
                },
                None => body,
            };
            r.body = body.into_bytes();
        }
        r
    }
}

/// `root` with a fifth of its pages (by a hash of the path), and its assets.
fn partial(root: &str) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let files = static_dir(root);
    move |req: &Request| {
        let path = req.path.split('?').next().unwrap_or("");
        let page =
            path.ends_with(".html") && !path.ends_with("/index.html") && path != "/index.html";
        let h = path
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        if page && h % 5 != 0 {
            return Response::not_found();
        }
        files(req)
    }
}

#[test]
fn replicas_of_a_manual_and_not_two_javadoc_sites() {
    for root in [POSTGRES, LANG3, COMMONS_IO] {
        assert!(
            Path::new(root).is_dir(),
            "{root} missing: ./build.sh setup installs it"
        );
    }
    let original = Server::start(0, static_dir(POSTGRES)).expect("server");
    let copy = Server::start(0, mirror(POSTGRES, "/mirror/pg/")).expect("server");
    let part = Server::start(0, partial(POSTGRES)).expect("server");
    let lang3 = Server::start(0, static_dir(LANG3)).expect("server");
    let io = Server::start(0, static_dir(COMMONS_IO)).expect("server");
    let host = |s: &Server| s.addr().to_string();
    let copy_start = format!("http://{}/mirror/pg/", host(&copy));
    let hosts = [
        host(&original),
        copy_start.clone(),
        host(&part),
        host(&lang3),
        host(&io),
    ];
    let mut args: Vec<&str> = vec!["replicas", "--active", "--json", "--delay-ms", "0"];
    args.extend(hosts.iter().map(String::as_str));
    let (ok, out, err) = exemplar(&args);
    assert!(ok, "{out}\n{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let pair = |a: &str, b: &str| {
        lines
            .iter()
            .find(|l| {
                let (x, y) = (l["a"].as_str().unwrap_or(""), l["b"].as_str().unwrap_or(""));
                (x == a && y == b) || (x == b && y == a)
            })
            .cloned()
    };
    let merged: Vec<(String, String)> = lines
        .iter()
        .filter(|l| l["replica"] == true)
        .map(|l| {
            (
                l["a"].as_str().unwrap_or("").to_string(),
                l["b"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    // The mirror under its prefix, found with its mapping.
    let m = pair(&host(&original), &host(&copy)).expect("the mirror's pair");
    assert_eq!(m["replica"], true, "{m}");
    assert_eq!(m["mapping"]["to"], "/mirror/pg/", "{m}");
    assert!(m["probes"].as_u64().unwrap_or(99) <= 6, "{m}");
    // The partial mirror merges with both.
    let p = pair(&host(&original), &host(&part)).expect("the partial mirror's pair");
    assert_eq!(p["replica"], true, "{p}");
    // The two javadoc sites do not, nor anything with them.
    assert!(
        merged
            .iter()
            .all(|(a, b)| ![host(&lang3), host(&io)].contains(a)
                && ![host(&lang3), host(&io)].contains(b)),
        "{merged:?}"
    );
    assert_eq!(merged.len(), 3, "{merged:?}\n{out}");
    // Best first.
    let ps: Vec<f64> = lines
        .iter()
        .map(|l| l["p"].as_f64().unwrap_or(0.0))
        .collect();
    assert!(ps.windows(2).all(|w| w[0] >= w[1]), "{ps:?}");

    // Text output, and what was seen kept for a passive run that fetches nothing more.
    let seen = std::env::temp_dir().join(format!("exemplar-seen-{}.jsonl", std::process::id()));
    let seen = seen.to_string_lossy().into_owned();
    let (ok, out, err) = exemplar(&[
        "replicas",
        "--delay-ms",
        "0",
        "--save-seen",
        &seen,
        &hosts[0],
        &hosts[1],
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("one site: / → /mirror/pg/"), "{out}");
    let served = original.requests();
    let (ok, out2, err) = exemplar(&["replicas", "--seen", &seen, &hosts[0], &hosts[1]]);
    assert!(ok, "{err}");
    assert_eq!(
        original.requests(),
        served,
        "a passive run on pages seen fetches nothing"
    );
    assert!(out2.contains("one site"), "{out2}");
    let _ = std::fs::remove_file(&seen);
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        vec!["replicas", "only.example.org"],
        vec!["replicas", "a.test", "a.test"],
        vec!["replicas", "a.test", "b test"],
        vec!["replicas", "a.test", "b.test", "--probes", "0"],
        vec!["replicas", "a.test", "b.test", "--bogus"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
            .args(&args)
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bad = std::env::temp_dir().join(format!("exemplar-bad-seen-{}.jsonl", std::process::id()));
    std::fs::write(&bad, "{\"host\": 3}\n").expect("write");
    let (ok, _, err) = exemplar(&[
        "replicas",
        "--seen",
        &bad.to_string_lossy(),
        "a.test:1",
        "b.test:1",
    ]);
    assert!(!ok && err.contains("line 1"), "{err}");
    let _ = std::fs::remove_file(&bad);
}
