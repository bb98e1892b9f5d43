//! `exemplar discover` over HTTP: five lamp shops and a search engine, all on one server on
//! 127.0.0.1 that answers by `Host`, reached under their names with `--resolve`.
mod shared;

use std::collections::BTreeMap;
use std::sync::Arc;

use exemplar_native::serve::{Request, Response, Server};
use shared::{exemplar, tempdir};

fn product(s: usize, i: usize) -> String {
    format!(
        "<html><head><title>Lamp {i} - Shop {s}</title>\
         <script type='application/ld+json'>{{\"@type\": \"Product\", \"name\": \"Lamp {i}\"}}</script>\
         </head><body><nav><a href='/'>Home</a> <a href='/about/'>About</a></nav><div class='item s{s}'>\
         <h1>Brass lamp {i}</h1><img src=a.jpg><p>Price: $ {i}0.00</p><table><tr><th>Height</th><td>{i}0 cm</td></tr></table>\
         <p>This brass lamp gives a warm light for reading; the shade is linen and the cable braided.</p>\
         <p>Delivered in three days, with a bulb; made by hand in our workshop.</p>\
         <button>Add to cart</button></div></body></html>"
    )
}

/// Shops 1–5 (`http://shopN.test/`) and a search engine (`http://search.test/?q=`) that finds
/// the pages holding every word, one page of each host in turn.
fn web() -> Arc<BTreeMap<String, String>> {
    let mut w = BTreeMap::new();
    for s in 1..=5 {
        let mut list =
            format!("<html><head><title>Shop {s}</title></head><body><h1>All lamps</h1><ul>");
        for i in 1..=14 {
            list.push_str(&format!(
                "<li><a href='/product/{i}'>Brass lamp number {i}</a></li>"
            ));
            w.insert(format!("shop{s}.test/product/{i}"), product(s, i));
        }
        w.insert(format!("shop{s}.test/"), list + "</ul></body></html>");
        w.insert(
            format!("shop{s}.test/about/"),
            "<html><body><h1>About us</h1></body></html>".into(),
        );
    }
    Arc::new(w)
}

fn serve(w: Arc<BTreeMap<String, String>>) -> Server {
    Server::start(0, move |req: &Request| {
        let host = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map_or("", |(_, v)| v.as_str());
        let host = host.split(':').next().unwrap_or("");
        if host == "search.test" {
            let q = req
                .path
                .split_once("q=")
                .map_or("", |(_, q)| q)
                .replace('+', " ")
                .to_lowercase();
            let words: Vec<&str> = q.split_whitespace().collect();
            let mut by_host: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
            for (k, page) in w.iter() {
                if !words.is_empty() && words.iter().all(|t| page.to_lowercase().contains(t)) {
                    by_host
                        .entry(k.split('/').next().unwrap_or(""))
                        .or_default()
                        .push(k);
                }
            }
            let mut body = String::from("<html><body><a href='/help'>Help</a><ol>");
            for round in 0..3 {
                for v in by_host.values() {
                    if let Some(k) = v.get(round) {
                        body.push_str(&format!("<li><a href='http://{k}'>{k}</a></li>"));
                    }
                }
            }
            return Response::html(body + "</ol></body></html>");
        }
        let path = req.path.split('?').next().unwrap_or("/");
        match w.get(&format!("{host}{path}")) {
            Some(p) => Response::html(p.clone()),
            None => Response::not_found(),
        }
    })
    .expect("server")
}

#[test]
fn the_other_shops_are_listed_best_first_one_json_object_a_line() {
    let server = serve(web());
    let dir = tempdir("discover", "shops");
    let seeds = dir.join("seeds.txt");
    std::fs::write(
        &seeds,
        "# two lamps of shop 1\nhttp://shop1.test/product/1\n\nhttp://shop1.test/product/5\n",
    )
    .unwrap();
    let resolve = format!("*:{}", server.addr());
    let out = exemplar(&[
        "discover",
        "--seeds",
        seeds.to_str().unwrap(),
        "--search",
        "http://search.test/?q={q}",
        "--resolve",
        &resolve,
        "--delay-ms",
        "0",
        "--json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let mut sites: Vec<&str> = lines.iter().map(|l| l["site"].as_str().unwrap()).collect();
    let scores: Vec<f64> = lines.iter().map(|l| l["score"].as_f64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );
    for l in &lines {
        let site = l["site"].as_str().unwrap();
        assert!(l["entry"].as_str().unwrap().starts_with(site), "{l}");
        let examples = l["examples"].as_array().unwrap();
        assert!(
            !examples.is_empty()
                && examples
                    .iter()
                    .all(|e| e.as_str().unwrap().starts_with(&format!("{site}product/"))),
            "{l}"
        );
    }
    sites.sort();
    assert_eq!(
        sites,
        [
            "http://shop2.test/",
            "http://shop3.test/",
            "http://shop4.test/",
            "http://shop5.test/"
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("seed sites (never listed): http://shop1.test/"),
        "{stderr}"
    );

    // Without a search engine nothing links the shops: none is found, and the run says so.
    let out = exemplar(&[
        "discover",
        "--seeds",
        seeds.to_str().unwrap(),
        "--resolve",
        &resolve,
        "--delay-ms",
        "0",
    ]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 sites found"));

    // A budget of 3 pages fetches the two seeds and one more at most.
    let out = exemplar(&[
        "discover",
        "--seeds",
        seeds.to_str().unwrap(),
        "--search",
        "http://search.test/?q={q}",
        "--resolve",
        &resolve,
        "--delay-ms",
        "0",
        "--budget",
        "3",
    ]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("3 pages fetched"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A saved crawler's pattern seeds a run: its example and the targets it knows.
#[test]
fn a_pattern_learned_on_one_shop_finds_the_others() {
    let server = serve(web());
    let dir = tempdir("discover", "pattern");
    let pattern = dir.join("pattern.json");
    let resolve = format!("*:{}", server.addr());
    let learn = exemplar(&[
        "learn",
        "--entry",
        "http://shop1.test/",
        "--example",
        "http://shop1.test/product/3",
        "--resolve",
        &resolve,
        "--delay-ms",
        "0",
        "--no-fields",
        "-o",
        pattern.to_str().unwrap(),
    ]);
    assert!(
        learn.status.success(),
        "{}",
        String::from_utf8_lossy(&learn.stderr)
    );
    let out = exemplar(&[
        "discover",
        "--seeds",
        pattern.to_str().unwrap(),
        "--search",
        "http://search.test/?q={q}",
        "--resolve",
        &resolve,
        "--delay-ms",
        "0",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = String::from_utf8_lossy(&out.stdout).lines().count();
    assert_eq!(found, 4, "{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("seed sites (never listed): http://shop1.test/")
    );
}

#[test]
fn bad_seeds_and_settings_are_told_plainly() {
    let dir = tempdir("discover", "bad");
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "# nothing\n").unwrap();
    let e = exemplar(&["discover", "--seeds", empty.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&e.stderr).contains("no seed URL"));
    let seeds = dir.join("seeds.txt");
    std::fs::write(&seeds, "http://shop1.test/product/1\n").unwrap();
    for (args, says) in [
        (vec!["--search", "http://search.test/?q="], "{q}"),
        (vec!["--budget", "0"], "--budget"),
        (vec!["--operator", "sideways"], "--operator"),
        (vec!["--colour", "red"], "colour"),
    ] {
        let mut a = vec!["discover", "--seeds", seeds.to_str().unwrap()];
        a.extend(args);
        let e = exemplar(&a);
        assert!(!e.status.success());
        assert!(
            String::from_utf8_lossy(&e.stderr).contains(says),
            "{says}: {}",
            String::from_utf8_lossy(&e.stderr)
        );
    }
    assert_eq!(exemplar(&["discover"]).status.code(), Some(2));
}

/// The readable list: numbered sites, each with its entry, a sample and the command that
/// learns its crawler; a copy of the seed site under another name is named on stderr, never
/// listed.
#[test]
fn the_readable_list_gives_each_site_its_learn_command_and_leaves_copies_out() {
    let mut w = (*web()).clone();
    let copies: Vec<(String, String)> = w
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix("shop1.test/")
                .map(|rest| (format!("www.shop1.test/{rest}"), v.clone()))
        })
        .collect();
    w.extend(copies);
    let server = serve(Arc::new(w));
    let dir = tempdir("discover", "readable");
    let seeds = dir.join("seeds.txt");
    std::fs::write(
        &seeds,
        "http://shop1.test/product/1\nhttp://shop1.test/product/2\n",
    )
    .unwrap();
    let out = exemplar(&[
        "discover",
        "--seeds",
        seeds.to_str().unwrap(),
        "--search",
        "http://search.test/?q={q}",
        "--resolve",
        &format!("*:{}", server.addr()),
        "--delay-ms",
        "0",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let numbered: Vec<&str> = stdout
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(numbered.len(), 4, "{stdout}");
    assert!(numbered[0].starts_with("1. http://shop"), "{stdout}");
    assert!(numbered.iter().all(|l| l.contains("(score 0.")), "{stdout}");
    let learn: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("exemplar learn --entry http://shop"))
        .collect();
    assert_eq!(learn.len(), 4, "{stdout}");
    assert!(learn.iter().all(|l| l.contains("/product/")), "{stdout}");
    assert!(!stdout.contains("www.shop1.test"), "{stdout}");
    assert!(
        stderr.contains("left out, a copy of http://shop1.test/: http://www.shop1.test/"),
        "{stderr}"
    );
    assert!(stderr.contains("4 sites found"), "{stderr}");
}

/// Ctrl-C ends a search with what it found so far, and a clean exit.
#[test]
fn ctrl_c_ends_the_search_with_the_sites_found_so_far() {
    let server = serve(web());
    let dir = tempdir("discover", "interrupted");
    let seeds = dir.join("seeds.txt");
    std::fs::write(&seeds, "http://shop1.test/product/1\n").unwrap();
    // A second between two requests to a host: the search lasts long enough to be stopped.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args([
            "discover",
            "--seeds",
            seeds.to_str().unwrap(),
            "--search",
            "http://search.test/?q={q}",
            "--resolve",
            &format!("*:{}", server.addr()),
            "--delay-ms",
            "1000",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run exemplar");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: sending SIGINT to our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0, "SIGINT sent");
    let started = std::time::Instant::now();
    let out = child.wait_with_output().expect("exemplar ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "stopped in {:?}",
        started.elapsed()
    );
    assert!(
        stderr.contains("interrupted: the sites found so far follow"),
        "{stderr}"
    );
    assert!(stderr.contains("pages fetched"), "{stderr}");
    // Whatever was found is printed, one JSON object a line.
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
        assert!(
            v["site"]
                .as_str()
                .is_some_and(|s| s.starts_with("http://shop"))
        );
    }
}
