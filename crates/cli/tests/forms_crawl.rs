//! Forms in mapping, patterns and crawls (issue 5) on the team's hidden-web fixture: a library
//! whose books are reachable only through its search form, served over real HTTP on 127.0.0.1.
#![cfg(not(target_arch = "wasm32"))]

mod shared;
use shared::exemplar;

use exemplar_testkit::library;

use exemplar_testkit as common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use exemplar_core::crawler::{self, CrawlConfig, CrawlForms, Crawler};
use exemplar_core::fetch::{FetchResponse, FetchResult, Politeness, Poll};
use exemplar_core::mapper::{ExamplePage, FormState, MapConfig, NodeState};
use exemplar_core::pattern::{Corrections, Pattern, QueryPolicy};
use exemplar_html::ControlKind;
use exemplar_native::http::ClientConfig;
use exemplar_native::run;
use exemplar_native::serve::Server;
use library::Library;

fn fast() -> Politeness {
    Politeness::unthrottled(4)
}

fn learn(lib: &Library) -> (Server, run::Learned) {
    let server = Server::start(0, lib.handler()).expect("server");
    let learned = learn_from(&server, "/book/3");
    (server, learned)
}

/// The value of `k` in a query string (`""` when absent).
/// The field of `form` named `name`.
fn field<'a>(
    form: &'a exemplar_core::forms::FormSpec,
    name: &str,
) -> &'a exemplar_core::forms::Field {
    form.fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}: {:?}", form.fields))
}

fn query_param(query: &str, k: &str) -> String {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
        .unwrap_or("")
        .to_string()
}

/// An empty 404 answer.
fn not_found() -> exemplar_native::serve::Response {
    exemplar_native::serve::Response {
        status: 404,
        ..exemplar_native::serve::Response::html(String::new())
    }
}

/// Learns from the server's home page and the example at `example` (a path), unthrottled.
fn learn_from(server: &Server, example: &str) -> run::Learned {
    let base = server.url();
    run::learn(
        &format!("{base}/"),
        &format!("{base}{example}"),
        MapConfig {
            politeness: fast(),
            ..MapConfig::default()
        },
        &ClientConfig::default(),
        &mut |_, _| {},
    )
    .expect("learns")
}

fn book_ids(base: &str, urls: &[String]) -> BTreeSet<usize> {
    urls.iter()
        .map(|u| {
            u.strip_prefix(&format!("{base}/book/"))
                .and_then(|i| i.parse().ok())
                .unwrap_or_else(|| panic!("not a book: {u}"))
        })
        .collect()
}

fn crawl(pattern: &Pattern, forms: CrawlForms) -> run::Crawled {
    let config = CrawlConfig {
        politeness: Some(fast()),
        forms,
        ..CrawlConfig::default()
    };
    run::crawl(
        pattern.clone(),
        config,
        false,
        &ClientConfig::default(),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )
    .expect("crawls")
}

#[test]
fn the_search_form_becomes_a_template_level_of_the_pattern() {
    let lib = Library::new(80);
    let (server, learned) = learn(&lib);
    let base = server.url();
    let p = &learned.pattern;
    eprintln!("{}", p.render());
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    let fl = p.levels[0]
        .form
        .as_ref()
        .expect("the first level is the form");
    assert_eq!(fl.template, "/search?q=*&lang=en&sort=*");
    assert_eq!(fl.query_field.as_deref(), Some("q"));
    assert_eq!(fl.policy, QueryPolicy::Adaptive);
    assert!(!fl.values.is_empty(), "values that led to targets");
    for v in &fl.values {
        assert!(!lib.matches(v).is_empty(), "{v} matches no book");
    }
    assert_eq!(fl.thesis_terms.len(), 15);
    // Targets found while mapping are books, and only books (precision).
    let known = book_ids(&base, &p.known_targets);
    assert!(known.len() >= 5, "{known:?}");
    // The mapper analysed the largest 30% of the distinct responses ("no match" pages are one
    // page under many URLs) and left the rest unexpanded.
    let map = &learned.map;
    let form = &map.forms[0];
    let FormState::Analysed { expanded } = &form.state else {
        panic!("{:?}", form.state)
    };
    let subs = form.submissions.len();
    assert_eq!(subs, 30, "15 terms × 2 sort orders");
    let distinct: Vec<u32> = form
        .submissions
        .iter()
        .map(|s| s.node)
        .filter(|&n| map.nodes[n as usize].state == NodeState::Page)
        .collect();
    assert!(distinct.len() >= 4, "{distinct:?}");
    assert_eq!(
        expanded.len(),
        (distinct.len() as f64 * 0.3).ceil() as usize
    );
    let size = |n: u32| map.nodes[n as usize].links.len();
    for &n in &distinct {
        if !expanded.contains(&n) {
            assert!(size(n) == 0, "an unanalysed response was expanded");
        }
    }
    // The pattern is valid JSON with the form, and round-trips.
    let back = Pattern::from_json(&p.to_json()).expect("round-trips");
    assert_eq!(&back, p);
    // The JSON Schema in the repository accepts it (Python `jsonschema`, as for link levels),
    // and refuses a form level with a zero budget.
    let venv = exemplar_testkit::root().join(".venv/bin/python");
    assert!(venv.exists(), "run ./build.sh setup (.venv)");
    let file =
        std::env::temp_dir().join(format!("exemplar-form-pattern-{}.json", std::process::id()));
    std::fs::write(&file, p.to_json()).expect("writes");
    let script = r#"
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
v.validate(doc)
doc["levels"][0]["form"]["budget"] = 0
assert list(v.iter_errors(doc)), "a zero budget must be invalid"
print("ok")
"#;
    let out = std::process::Command::new(&venv)
        .args(["-c", script])
        .arg(exemplar_testkit::root().join("schemas/pattern-2.schema.json"))
        .arg(&file)
        .output()
        .expect("python");
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A malformed form level is a clear error on import.
    let mut bad: serde_json::Value = serde_json::from_str(&p.to_json()).expect("json");
    bad["levels"][0]["form"]["queryField"] = "nope".into();
    let err = Pattern::from_json(&bad.to_string()).expect_err("refused");
    assert!(err.to_string().contains("query field \"nope\""), "{err}");
    // The rendering names the template.
    assert!(p.render().contains("form GET /search?q=*&lang=en&sort=*"));
    // Learning again (the review's relearn) keeps what the user set and learning does not
    // decide: the pagination bound and the form level's policy, budget and result pages.
    let mut edited = p.clone();
    edited.max_pagination = 5;
    let form = edited.levels[0].form.as_mut().expect("form");
    form.policy = QueryPolicy::Values;
    form.budget = 3;
    form.max_result_pages = 2;
    let (again, _) = edited
        .relearned(learned.map.clone(), &Corrections::default(), 0)
        .expect("relearned");
    assert_eq!(again.max_pagination, 5);
    let form = again.levels[0].form.as_ref().expect("form");
    assert_eq!(
        (form.policy, form.budget, form.max_result_pages),
        (QueryPolicy::Values, 3, 2)
    );
    assert_eq!(again.levels[0].regexes, p.levels[0].regexes);
    // Untouched, relearning gives the learned defaults back.
    let (same, _) = p
        .relearned(learned.map.clone(), &Corrections::default(), 0)
        .expect("relearned");
    assert_eq!(same.levels, p.levels);
    assert_eq!(same.max_pagination, p.max_pagination);
}

#[test]
fn crawling_through_the_form_with_policies_and_user_values() {
    let lib = Library::new(80);
    let (server, learned) = learn(&lib);
    let base = server.url();
    let p = &learned.pattern;

    // User values: exactly the books the engine returns for them (all result pages read).
    let words = ["music", "water"];
    let c = crawl(
        p,
        CrawlForms {
            queries: Some(words.iter().map(|w| w.to_string()).collect()),
            ..CrawlForms::default()
        },
    );
    let want: BTreeSet<usize> = words
        .iter()
        .flat_map(|w| lib.matches(w).into_iter().take(library::CAP))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(book_ids(&base, &c.targets), want);
    assert_eq!(c.progress.queries, 2);

    // Policies with a budget: adaptive finds more books than random, and most of the library.
    let mut found = Vec::new();
    for policy in [QueryPolicy::Random, QueryPolicy::Adaptive] {
        let c = crawl(
            p,
            CrawlForms {
                policy: Some(policy),
                budget: Some(20),
                ..CrawlForms::default()
            },
        );
        assert!(
            c.progress.queries <= 20,
            "{policy:?}: {}",
            c.progress.queries
        );
        let books = book_ids(&base, &c.targets);
        eprintln!("{policy:?}: {} books of {}", books.len(), lib.books);
        found.push(books.len());
    }
    // The engine returns 20 results at most per query, lowest ids first: books with high ids
    // come only from rare words. Measured: random 4, adaptive 40 of 80 in 20 queries.
    assert!(
        found[1] >= 2 * found[0],
        "adaptive {} vs random {}",
        found[1],
        found[0]
    );
    assert!(
        found[1] * 100 >= lib.books * 35,
        "adaptive found {} of {}",
        found[1],
        lib.books
    );
}

/// An in-memory driver: each request answered at once, snapshot and restore after every
/// `every` responses (0: never). Returns the targets and the query events.
fn drive(pattern: &Pattern, lib: &Library, every: usize) -> (Vec<String>, Vec<String>) {
    let config = CrawlConfig {
        politeness: Some(fast()),
        forms: CrawlForms {
            policy: Some(QueryPolicy::Adaptive),
            budget: Some(12),
            ..CrawlForms::default()
        },
        ..CrawlConfig::default()
    };
    let mut c = Crawler::new(pattern.clone(), config, None::<ExamplePage>).expect("crawler");
    let mut now = 0;
    let mut answered = 0;
    let mut queries = Vec::new();
    for _ in 0..100_000 {
        let polled = c.poll(now);
        // Results are taken inside poll, in the order they were asked for.
        for e in c.drain_events() {
            if let crawler::Event::Query { query, .. } = e {
                queries.push(query);
            }
        }
        match polled {
            Poll::Fetch(r) => {
                let path = r.url.splitn(4, '/').nth(3).unwrap_or("");
                let resp = lib.respond(&format!("/{path}"));
                let result = FetchResult::Response(FetchResponse {
                    status: resp.status,
                    final_url: String::new(),
                    headers: resp.headers,
                    body: resp.body,
                    truncated: false,
                });
                c.handle(r.id, result, now);
                answered += 1;
                if every > 0 && answered % every == 0 {
                    let snap = serde_json::to_string(&c.snapshot()).expect("serialises");
                    c = Crawler::restore(serde_json::from_str(&snap).expect("parses"))
                        .expect("restores");
                }
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("nothing in flight"),
            Poll::Done => return (c.targets().to_vec(), queries),
        }
    }
    panic!("unbounded crawl");
}

#[test]
fn snapshots_mid_query_lose_nothing() {
    let lib = Library::new(60);
    let (_server, learned) = learn(&lib);
    let (targets, queries) = drive(&learned.pattern, &lib, 0);
    assert_eq!(queries.len(), 12, "{queries:?}");
    let (again, queries_again) = drive(&learned.pattern, &lib, 3);
    assert_eq!(queries_again, queries, "the policy state survives restores");
    assert_eq!(again, targets);
}

/// Runs the exported Scrapy project with `-a queries=FILE`; the URLs it collected.
fn scrapy_urls(project: &std::path::Path, base: &str, queries: &std::path::Path) -> Vec<String> {
    scrapy_run(project, base, Some(queries))
}

/// Runs the exported Scrapy project ([`common::scrapy_crawl_args`]: the venv's Scrapy, then
/// Debian's, which must agree), with `-a queries=FILE` when given and no delay; the URLs it
/// collected.
fn scrapy_run(
    project: &std::path::Path,
    base: &str,
    queries: Option<&std::path::Path>,
) -> Vec<String> {
    let port = base.rsplit(':').next().expect("port");
    let queries = queries.map(|q| format!("queries={}", q.display()));
    let mut args = vec!["-s", "DOWNLOAD_DELAY=0"];
    if let Some(q) = &queries {
        args.extend(["-a", q]);
    }
    common::scrapy_crawl_args(project, &format!("site_127_0_0_1_{port}"), &args)
}

/// Runs `exemplar`, asserts success and returns its stdout lines (a crawl's URLs) and its
/// stderr.
fn exemplar_ok(args: &[&str]) -> (BTreeSet<String>, String) {
    let out = exemplar(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (lines, stderr)
}

/// Serves `lib` and learns its pattern with [`learn_cli`] into a fresh scratch directory
/// (`exemplar-forms-NAME-PID`): the server (keep it alive), its base URL, the directory and the
/// pattern file.
fn serve_and_learn(lib: &Library, name: &str) -> (Server, String, PathBuf, PathBuf) {
    let server = Server::start(0, lib.handler()).expect("server");
    let base = server.url();
    let dir = std::env::temp_dir().join(format!("exemplar-forms-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let pattern = dir.join("pattern.json");
    learn_cli(&base, pattern.to_str().expect("utf-8"));
    (server, base, dir, pattern)
}

/// `exemplar learn` on the library (entry `/`, example `/book/3`, no delay) into `pattern`.
fn learn_cli(base: &str, pattern: &str) {
    exemplar_ok(&[
        "learn",
        "--entry",
        &format!("{base}/"),
        "--example",
        &format!("{base}/book/3"),
        "--delay-ms",
        "0",
        "-o",
        pattern,
    ]);
}

#[test]
fn command_line_crawls_through_the_form_with_values_or_a_policy() {
    let lib = Library::new(50);
    let (_server, base, dir, pattern) = serve_and_learn(&lib, "cli");
    let pattern_s = pattern.to_str().expect("utf-8");
    // User values, one per line (comments and blanks ignored).
    let queries = dir.join("queries.txt");
    std::fs::write(&queries, "# words\nmusic\n\nwater\n").expect("writes");
    let (got, stderr) = exemplar_ok(&[
        "crawl",
        pattern_s,
        "--delay-ms",
        "0",
        "--queries",
        queries.to_str().expect("utf-8"),
    ]);
    let want: BTreeSet<String> = ["music", "water"]
        .iter()
        .flat_map(|w| lib.matches(w).into_iter().take(library::CAP))
        .map(|i| format!("{base}/book/{i}"))
        .collect();
    assert_eq!(got, want);
    assert!(stderr.contains("forms: 2 queries issued"), "{stderr}");
    // The Scrapy project submits the same form with the same values and pages its results
    // with the buttons: the same URL set.
    let project = dir.join("scrapy");
    exemplar_ok(&["export-scrapy", pattern_s, project.to_str().expect("utf-8")]);
    let scraped: BTreeSet<String> = scrapy_urls(&project, &base, &queries).into_iter().collect();
    assert_eq!(
        scraped, want,
        "Scrapy and exemplar crawl collect the same books"
    );
    // A policy and a budget.
    let (_, stderr) = exemplar_ok(&[
        "crawl",
        pattern_s,
        "--delay-ms",
        "0",
        "--policy",
        "adaptive",
        "--budget",
        "3",
    ]);
    assert!(stderr.contains("forms: 3 queries issued"), "{stderr}");
    // One result page per query: only each query's first PER_PAGE books.
    let (first_pages, _) = exemplar_ok(&[
        "crawl",
        pattern_s,
        "--delay-ms",
        "0",
        "--queries",
        queries.to_str().expect("utf-8"),
        "--result-pages",
        "1",
    ]);
    let want_first: BTreeSet<String> = ["music", "water"]
        .iter()
        .flat_map(|w| lib.matches(w).into_iter().take(library::PER_PAGE))
        .map(|i| format!("{base}/book/{i}"))
        .collect();
    assert!(
        want_first.len() < want.len(),
        "the fixture pages its results"
    );
    assert_eq!(first_pages, want_first);
    // Clear errors with a non-zero exit.
    for (args, msg) in [
        (vec!["--policy", "clever"], "unknown query policy"),
        (vec!["--budget", "0"], "at least 1"),
        (
            vec![
                "--queries",
                queries.to_str().expect("utf-8"),
                "--policy",
                "random",
            ],
            "exclude each other",
        ),
    ] {
        let mut a = vec!["crawl", pattern_s];
        a.extend(args);
        let out = exemplar(&a);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Learns the site `server` serves from its home page, with `/item/2` as the example.
/// A search box whose action is a static page (a script-driven search, as Sphinx's): every
/// submission gives the same bytes, so the form is recognised as ignoring its values and dropped;
/// the pattern is learned from links alone.
#[test]
fn a_form_that_ignores_its_values_is_dropped() {
    let page = |title: &str, body: &str| {
        exemplar_native::serve::Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
             <form action='/search.html'><input name=q><input type=submit value=Search></form>\
             <a href='#'>top</a><main>{body}</main></body></html>"
        ))
    };
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        let path = req.path.split('?').next().unwrap_or("");
        match path {
            "/" => page(
                "Home",
                &(1..=6)
                    .map(|i| format!("<a href='/item/{i}'>item {i}</a> "))
                    .collect::<String>(),
            ),
            "/search.html" => page("Search", "<p>Results appear here with JavaScript.</p>"),
            p => match p.strip_prefix("/item/") {
                Some(i) => page(
                    &format!("Item {i}"),
                    &format!("<article><h1>Item {i}</h1><p>Details of item {i}.</p></article>"),
                ),
                None => not_found(),
            },
        }
    })
    .expect("server");
    let learned = learn_from(&server, "/item/2");
    let form = &learned.map.forms[0];
    assert!(form.submissions.len() > 1);
    assert!(
        matches!(form.state, FormState::Ignored { .. }),
        "{:?}",
        form.state
    );
    assert!(learned.pattern.levels.iter().all(|l| l.form.is_none()));
    assert_eq!(learned.pattern.known_targets.len(), 6);
}

/// A search box without an action on every page (gi-docgen's; the search runs in a script, so
/// the site ignores the query): the form submits to its own page, so its key differs on every
/// page. It is tried once, on the first page, and counted on the others; the same page under a
/// query URL is a duplicate although its `#top` link carries the query.
#[test]
fn a_search_box_submitting_to_its_own_page_is_tried_once() {
    const ITEMS: usize = 30;
    const TOPICS: usize = 10;
    let page = |title: &str, body: &str| {
        exemplar_native::serve::Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body id=top>\
             <form id=search-form autocomplete=off><input name=q type=search></form>\
             <main>{body}</main><a href='#top'>top</a></body></html>"
        ))
    };
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        let path = req.path.split('?').next().unwrap_or("");
        match path {
            "/" => page(
                "Home",
                &(1..=ITEMS)
                    .map(|i| format!("<a href='/item/{i}'>item {i}</a> "))
                    .chain((1..=TOPICS).map(|i| format!("<a href='/topic/{i}'>topic {i}</a> ")))
                    .collect::<String>(),
            ),
            p if p.starts_with("/topic/") => {
                let t = p.trim_start_matches("/topic/");
                page(
                    &format!("Topic {t}"),
                    &format!(
                        "<ul><li><a href='/'>home</a></li><li><a href='/item/{t}'>first</a></li>\
                         </ul><table><tr><td>a</td></tr><tr><td>b</td></tr></table>"
                    ),
                )
            }
            p => match p.strip_prefix("/item/") {
                Some(i) => page(
                    &format!("Item {i}"),
                    &format!(
                        "<article><h1>Item {i}</h1><p>Details of item {i}.</p>\
                         <a href='/'>home</a></article>"
                    ),
                ),
                None => not_found(),
            },
        }
    })
    .expect("server");
    let learned = learn_from(&server, "/item/2");
    let map = &learned.map;
    assert_eq!(map.forms.len(), 1, "one form, not one per page");
    let form = &map.forms[0];
    assert_eq!(form.page, 0, "tried on the entry page");
    assert!(form.submissions.len() > 1);
    assert!(
        matches!(form.state, FormState::Ignored { .. }),
        "{:?}",
        form.state
    );
    // Every page holds the form; the pages expanded after the entry (the topics: item pages are
    // targets, not expanded) count as repeats.
    assert_eq!(form.repeated as usize, TOPICS);
    // Only the entry's submissions carry a query, and each is the entry page again.
    for n in map.nodes.iter().filter(|n| n.url.contains('?')) {
        assert!(
            n.url.starts_with(&format!("{}/?", server.url())),
            "{}",
            n.url
        );
        assert!(
            matches!(n.state, NodeState::Duplicate { .. }) || n.form == Some(0),
            "{} {:?}",
            n.url,
            n.state
        );
    }
    let fetched = map
        .nodes
        .iter()
        .filter(|n| !matches!(n.state, NodeState::Discovered))
        .count();
    assert!(
        fetched <= 1 + ITEMS + TOPICS + form.submissions.len(),
        "{fetched} fetched"
    );
    assert_eq!(learned.pattern.known_targets.len(), ITEMS);
    assert!(learned.pattern.levels.iter().all(|l| l.form.is_none()));
}

/// The same library with a POST search form (and POST result pagination): submissions are keyed
/// `action#exemplar-post=body`, the pattern's form level is a POST template, and both
/// `exemplar crawl` and the Scrapy export collect the books of the given values, every result
/// page read.
#[test]
fn a_post_search_form_is_learned_crawled_and_exported() {
    let lib = Library::with_post(50);
    let (server, learned) = learn(&lib);
    let base = server.url();
    let p = &learned.pattern;
    let fl = p.levels[0].form.as_ref().expect("a form level");
    assert_eq!(fl.form.method, exemplar_core::forms::Method::Post);
    assert!(
        learned
            .map
            .nodes
            .iter()
            .any(|n| n.url.contains("#exemplar-post=q=")),
        "submissions are POST keys"
    );
    let words = ["music", "water"];
    let want: BTreeSet<usize> = words
        .iter()
        .flat_map(|w| lib.matches(w).into_iter().take(library::CAP))
        .collect();
    assert!(
        want.len() > 2 * library::PER_PAGE,
        "several result pages are needed"
    );
    let c = crawl(
        p,
        CrawlForms {
            queries: Some(words.iter().map(|w| w.to_string()).collect()),
            ..CrawlForms::default()
        },
    );
    assert_eq!(book_ids(&base, &c.targets), want);

    let dir = std::env::temp_dir().join(format!("exemplar-forms-post-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let pattern = dir.join("pattern.json");
    std::fs::write(&pattern, p.to_json()).expect("writes");
    let queries = dir.join("queries.txt");
    std::fs::write(&queries, words.join("\n")).expect("writes");
    let project = dir.join("scrapy");
    exemplar_ok(&[
        "export-scrapy",
        pattern.to_str().expect("utf-8"),
        project.to_str().expect("utf-8"),
    ]);
    let scraped = scrapy_urls(&project, &base, &queries);
    assert_eq!(book_ids(&base, &scraped), want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Maps the library in memory, restoring from a JSON snapshot after every `every` responses
/// (0: never); the final map, and how many responses arrived before an earlier request's.
/// `order` None answers one request at a time; `Some(seed)` keeps up to four in flight and
/// answers a seeded random one next, as a network would.
fn map_in_memory(
    lib: &Library,
    every: usize,
    order: Option<u64>,
) -> (exemplar_core::mapper::SiteMap, usize) {
    use exemplar_core::mapper::Mapper;
    let example = lib.respond("/book/3");
    let mut m = Mapper::new(
        "http://lib.test/",
        ExamplePage {
            url: "http://lib.test/book/3".into(),
            body: example.body,
            content_type: Some("text/html".into()),
        },
        MapConfig {
            politeness: fast(),
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    let respond = |url: &str| {
        let path = url.splitn(4, '/').nth(3).unwrap_or("");
        let resp = if url.ends_with("robots.txt") {
            not_found()
        } else {
            lib.respond(&format!("/{path}"))
        };
        FetchResult::Response(FetchResponse {
            status: resp.status,
            final_url: String::new(),
            headers: resp.headers,
            body: resp.body,
            truncated: false,
        })
    };
    // xorshift64*: a failing order can be replayed from its seed.
    let mut rng = order.unwrap_or(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut pick = |n: usize| {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        (rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    };
    let mut in_flight: Vec<(u64, String)> = Vec::new();
    let mut now = 0;
    let mut answered = 0;
    let mut overtaking = 0;
    for _ in 0..100_000 {
        let answer = match m.poll(now) {
            Poll::Fetch(r) => {
                in_flight.push((r.id, r.url));
                order.is_none() || in_flight.len() >= 4
            }
            Poll::WaitUntil(t) => {
                if in_flight.is_empty() {
                    now = t;
                }
                !in_flight.is_empty()
            }
            Poll::Busy => {
                assert!(!in_flight.is_empty(), "busy with nothing in flight");
                true
            }
            Poll::Done => return (m.into_site_map(), overtaking),
        };
        if answer && !in_flight.is_empty() {
            let i = if order.is_some() {
                pick(in_flight.len())
            } else {
                0
            };
            let (id, url) = in_flight.swap_remove(i);
            overtaking += usize::from(in_flight.iter().any(|(other, _)| *other < id));
            m.handle(id, respond(&url), now);
            now += 1;
            answered += 1;
            if every > 0 && answered % every == 0 {
                let snap = serde_json::to_string(&m.snapshot()).expect("serialises");
                m = Mapper::restore(serde_json::from_str(&snap).expect("parses"))
                    .expect("restores");
            }
        }
    }
    panic!("unbounded mapping");
}

/// A map's graph by URL: every page with the pages it links, as mapping recorded them.
fn graph(map: &exemplar_core::mapper::SiteMap) -> std::collections::BTreeMap<String, Vec<String>> {
    map.nodes
        .iter()
        .map(|n| {
            let links = n.links.iter().map(|&v| map.nodes[v as usize].url.clone());
            (n.url.clone(), links.collect())
        })
        .collect()
}

/// One site, one pattern, with forms too: result pages arrive in whatever order the network
/// gives, and the links sampled from each (a random share per URL group) must not depend on
/// it. They did while one generator was drawn in arrival order: on Xapian Omega the learned
/// pattern had 2 or 3 levels from run to run.
#[test]
fn the_order_form_responses_arrive_in_changes_neither_map_nor_pattern() {
    let lib = Library::new(40);
    let (one_at_a_time, _) = map_in_memory(&lib, 0, None);
    let expected = graph(&one_at_a_time);
    let learn = |map: &exemplar_core::mapper::SiteMap| {
        exemplar_core::pattern::learn_from_map(map, &MapConfig::default(), 0)
            .expect("learns")
            .levels
    };
    let levels = learn(&one_at_a_time);
    assert!(levels.iter().any(|l| l.form.is_some()), "{levels:?}");
    let mut overtaken = 0;
    for seed in 1..=4 {
        let (map, overtaking) = map_in_memory(&lib, 0, Some(seed));
        overtaken += overtaking;
        assert_eq!(graph(&map), expected, "order {seed}: another map");
        assert_eq!(learn(&map), levels, "order {seed}: another pattern");
    }
    // Otherwise the test proves nothing: responses did arrive out of order.
    assert!(
        overtaken > 0,
        "every response arrived in the order it was asked for"
    );
}

#[test]
fn mapping_snapshots_mid_form_analysis_lose_nothing() {
    let lib = Library::new(40);
    let (straight, _) = map_in_memory(&lib, 0, None);
    assert!(
        matches!(straight.forms[0].state, FormState::Analysed { .. }),
        "{:?}",
        straight.forms[0].state
    );
    assert!(straight.targets().count() >= 3);
    // Restored after every other response: submissions answered, responses held back for the
    // analysis and the sampling generator all survive.
    assert_eq!(map_in_memory(&lib, 2, None).0, straight);
}

/// A form of choice fields only (a multiple shelf select and an image button the server checks):
/// learned as a form level without a query field, crawled by enumerating its choices, and
/// exported to Scrapy with the same combinations — both collect every book, which they can only
/// do by sending the image button's click coordinates as a browser does.
#[test]
fn a_choice_only_form_is_enumerated_by_the_crawl_and_by_scrapy() {
    let lib = Library::with_shelves(40);
    // The fixture answers a submission without the click with no books.
    let bare = lib.respond("/shelf?shelf=1&lang=en");
    assert!(!String::from_utf8_lossy(&bare.body).contains("/book/"));
    let clicked = lib.respond("/shelf?shelf=1&shelf=2&lang=en&go.x=0&go.y=0");
    assert!(String::from_utf8_lossy(&clicked.body).contains("/book/2'"));
    let (_server, base, dir, pattern) = serve_and_learn(&lib, "shelves");
    let pattern_s = pattern.to_str().expect("utf-8");
    let p =
        Pattern::from_json(&std::fs::read_to_string(&pattern).expect("pattern")).expect("valid");
    let form = p
        .levels
        .iter()
        .find_map(|l| l.form.as_ref())
        .expect("a form level");
    assert_eq!(form.query_field, None, "choice fields only");
    assert!(form.template.contains("shelf=*"), "{}", form.template);
    let shelf = field(&form.form, "shelf");
    assert!(shelf.multiple && shelf.selected.is_empty(), "{shelf:?}");
    assert!(
        form.form
            .fields
            .iter()
            .any(|f| f.kind == ControlKind::Image && f.name == "go"),
        "{:?}",
        form.form.fields
    );
    let want: BTreeSet<String> = (1..=40).map(|i| format!("{base}/book/{i}")).collect();
    let (got, stderr) = exemplar_ok(&["crawl", pattern_s, "--delay-ms", "0"]);
    assert_eq!(got, want, "every shelf enumerated");
    assert!(stderr.contains("forms: 9 queries issued"), "{stderr}");
    let project = dir.join("scrapy");
    exemplar_ok(&["export-scrapy", pattern_s, project.to_str().expect("utf-8")]);
    let scraped: BTreeSet<String> = scrapy_run(&project, &base, None).into_iter().collect();
    assert_eq!(scraped, want, "Scrapy submits the same combinations");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A map recorded by `exemplar learn` on Xapian Omega over the PostgreSQL documentation
/// (tests/fixtures/forms/omega-map.json, page titles dropped): entry = the search page,
/// example = `sql-vacuum.html`, 1271 pages, 307 reference pages. Result pages also lead to
/// reference pages through long chains of other documents, so deeper level counts are
/// candidates too. One of them (a first level of one document, the form's level second)
/// reached the most targets on its bare links — the entry links the mapped queries, and a link
/// may lead straight to a deeper level — but a form's level is entered only by queries: run as
/// a crawl runs it, it reached none. Learning must choose on the levels as they run.
#[test]
fn a_recorded_omega_map_learns_levels_that_run_through_the_form() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/forms/omega-map.json"
    ))
    .expect("fixture");
    let map: exemplar_core::mapper::SiteMap = serde_json::from_str(&text).expect("a site map");
    let targets = map.targets().count();
    assert_eq!(targets, 307);
    let pattern =
        exemplar_core::pattern::learn_from_map(&map, &MapConfig::default(), 0).expect("learns");
    let forms: Vec<usize> = (0..pattern.levels.len())
        .filter(|&i| pattern.levels[i].form.is_some())
        .collect();
    // The entry is the search page: the first level is the form's.
    assert_eq!(forms, vec![0], "{}", pattern.render());
    let sim = exemplar_core::pattern::simulate(&pattern, &map).expect("simulates");
    assert_eq!(sim.targets_reached, targets, "{}", pattern.render());
    assert_eq!(pattern.stats.targets_reached, targets);
    assert!(sim.false_targets.is_empty(), "{:?}", sim.false_targets);
}

/// A table browser like Datasette's: the home page links the table, whose listing pages ten
/// rows at a time ("next" links) and carries a filter form (a column, an operator, a value). A
/// filter without a column is ignored (the first page again); "is not" a value lists the whole
/// table. Mapping's probes of the form lead to rows, but the listing's links reach every row:
/// the form must not take the listing's level (a blind run on Datasette learned a pattern whose
/// only way to the listing was the form, reaching none of its rows, and whose crawl filled the
/// form with the operator's default, getting the first page a hundred times).
#[test]
fn a_filter_form_does_not_replace_the_links_that_reach_every_row() {
    const ROWS: usize = 60;
    let page = |title: &str, body: &str| {
        exemplar_native::serve::Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
             <nav><a href='/'>home</a> <a href='/db'>db</a></nav><main>{body}</main></body></html>"
        ))
    };
    let listing = move |rows: &[usize], next: Option<String>| {
        let form = "<form action='/db/t'><select name=_filter_column><option value=''>- column -</option>\
                    <option>name</option></select><select name=_filter_op><option>exact</option>\
                    <option>not</option></select><input name=_filter_value><input type=submit value=Apply></form>";
        let body: String = rows
            .iter()
            .map(|i| format!("<tr><td><a href='/db/t/row{i}'>row{i}</a></td><td>{i}</td></tr>"))
            .collect();
        let next = next.map_or(String::new(), |n| {
            format!("<p><a href='/db/t?{n}'>next page</a></p>")
        });
        page("t", &format!("<h1>t</h1>{form}<table>{body}</table>{next}"))
    };
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        let (path, query) = req.path.split_once('?').unwrap_or((&req.path, ""));
        let param = |k: &str| query_param(query, k);
        match path {
            "/" => page("Home", "<h1>Databases</h1><a href='/db'>db</a>"),
            "/db" => page("db", "<h1>db</h1><ul><li><a href='/db/t'>t</a> (60 rows)</li></ul>"),
            "/db/t" => {
                let (column, op, value) = (param("_filter_column"), param("_filter_op"), param("_filter_value"));
                if column == "name" && op == "exact" {
                    let rows: Vec<usize> = value.strip_prefix("row").and_then(|i| i.parse().ok()).filter(|&i| i < ROWS).into_iter().collect();
                    return listing(&rows, None);
                }
                let start: usize = param("_next").parse().unwrap_or(0).min(ROWS);
                let end = (start + 10).min(ROWS);
                let keep = if column == "name" && op == "not" {
                    format!("_filter_column=name&_filter_op=not&_filter_value={value}&")
                } else {
                    String::new()
                };
                listing(&(start..end).collect::<Vec<_>>(), (end < ROWS).then(|| format!("{keep}_next={end}")))
            }
            p => match p.strip_prefix("/db/t/row").and_then(|i| i.parse::<usize>().ok()) {
                Some(i) if i < ROWS => page(
                    &format!("row{i}"),
                    &format!("<h1>t: row{i}</h1><dl><dt>name</dt><dd>row{i}</dd><dt>n</dt><dd>{i}</dd></dl>\
                              <p><a href='/db/t/row{i}.json'>json</a></p>"),
                ),
                _ => not_found(),
            },
        }
    })
    .expect("server");
    let base = server.url();
    let learned = learn_from(&server, "/db/t/row5");
    let rows: BTreeSet<String> = (0..ROWS).map(|i| format!("{base}/db/t/row{i}")).collect();
    let p = &learned.pattern;
    assert_eq!(
        p.known_targets.iter().cloned().collect::<BTreeSet<_>>(),
        rows
    );
    assert_eq!(p.stats.targets_reached, ROWS, "{}", p.render());
    let crawled = crawl(p, CrawlForms::default());
    let got: BTreeSet<String> = crawled.targets.iter().cloned().collect();
    assert_eq!(got, rows, "{}", p.render());
    assert_eq!(
        crawled.progress.queries,
        0,
        "links reach every row: no query is needed\n{}",
        p.render()
    );
}

/// A search form whose default choices find nothing for a word: rows are listed only by
/// "is not" (as Datasette's filter operator) with the unchecked box "include all" ticked, and no
/// link reaches them. Learning's working submissions chose "not" and ticked the box; the
/// pattern's form keeps those choices, so a crawl's queries list the rows (with the form's
/// defaults, "exact" and the box unticked, they would find none).
#[test]
fn a_form_level_keeps_the_choices_that_worked() {
    const ROWS: usize = 30;
    let names = [
        "apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel", "iris", "juniper",
        "kiwi", "lemon", "mango", "nectar", "olive", "peach", "quince", "raisin", "sloe",
        "tamarind", "ugli", "vanilla", "walnut", "xigua", "yam", "zucchini", "acorn", "bramble",
        "clove", "date",
    ];
    let page = |title: &str, body: &str| {
        exemplar_native::serve::Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
             <nav><a href='/'>home</a></nav><main>{body}</main></body></html>"
        ))
    };
    let form = "<form action='/search'><select name=op><option>exact</option><option>not</option>\
                </select><input type=checkbox name=all value=yes><input name=q>\
                <input type=submit value=Search></form>";
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        let (path, query) = req.path.split_once('?').unwrap_or((&req.path, ""));
        let param = |k: &str| query_param(query, k);
        match path {
            "/" => page(
                "Fruit",
                &format!("<h1>Fruit</h1><p>Search the fruit.</p>{form}"),
            ),
            "/search" => {
                let (op, q, all) = (param("op"), param("q"), param("all") == "yes");
                let rows: String = names
                    .iter()
                    .filter(|n| all && if op == "not" { **n != q } else { **n == q })
                    .map(|n| format!("<li><a href='/fruit/{n}'>{n}</a></li>"))
                    .collect();
                page("Results", &format!("<h1>Results</h1>{form}<ul>{rows}</ul>"))
            }
            p => match p.strip_prefix("/fruit/").filter(|n| names.contains(n)) {
                Some(n) => page(
                    n,
                    &format!(
                        "<h1>{n}</h1><dl><dt>name</dt><dd>{n}</dd><dt>kind</dt><dd>fruit</dd></dl>"
                    ),
                ),
                None => not_found(),
            },
        }
    })
    .expect("server");
    let base = server.url();
    let learned = learn_from(&server, "/fruit/fig");
    let p = &learned.pattern;
    let fl = p
        .levels
        .iter()
        .find_map(|l| l.form.as_ref())
        .unwrap_or_else(|| panic!("a form level: {}", p.render()));
    assert_eq!(field(&fl.form, "op").value, "not", "the choice that worked");
    assert!(
        field(&fl.form, "all").checked,
        "the box the working submissions ticked"
    );
    let rows: BTreeSet<String> = names.iter().map(|n| format!("{base}/fruit/{n}")).collect();
    let crawled = crawl(p, CrawlForms::default());
    let got: BTreeSet<String> = crawled.targets.iter().cloned().collect();
    assert_eq!(got, rows, "{}", p.render());
    assert_eq!(ROWS, names.len());
}
