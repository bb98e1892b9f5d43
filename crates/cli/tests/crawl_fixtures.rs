//! Mapping, learning and crawling the fixture shop over real HTTP on 127.0.0.1: pagination,
//! facets, shortcuts, a calendar trap, session ids, redirects, 404/500, a slow page, non-HTML
//! links, robots.txt, and a site that grows between learning and crawling; pages under aliases
//! their links carry (a repository browser's `h=HEAD`).
#![cfg(not(target_arch = "wasm32"))]

use exemplar_testkit as common;
use exemplar_testkit::shop;

use std::collections::BTreeSet;

use exemplar_core::crawler::CrawlConfig;
use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::{MapConfig, NodeState};
use exemplar_native::http::ClientConfig;
use exemplar_native::run;
use exemplar_native::serve::Server;
use shop::Shop;

fn fast() -> Politeness {
    Politeness::unthrottled(4)
}

/// Paths without the query (`/item/2?ref=home` is `/item/2`); asserts no page twice.
fn paths(base: &str, urls: &[String]) -> BTreeSet<String> {
    let set: BTreeSet<String> = urls
        .iter()
        .map(|u| u.strip_prefix(base).unwrap_or(u))
        .map(|p| p.split('?').next().unwrap_or(p).to_string())
        .collect();
    assert_eq!(set.len(), urls.len(), "a page collected twice: {urls:?}");
    set
}

/// Learns from `entry` and `example` (URLs) with `config` at fast politeness.
fn learn_fast(entry: &str, example: &str, config: MapConfig) -> Result<run::Learned, String> {
    let config = MapConfig {
        politeness: fast(),
        ..config
    };
    exemplar_testkit::learn_quietly(entry, example, config)
}

/// Writes the Scrapy project of `spec` into a fresh directory named after `what`, runs its
/// spider ([`common::scrapy_crawl`]) and removes the project; returns the URLs of the items.
fn scrapy_crawl_spec(spec: &exemplar_export::ScrapySpec, what: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("exemplar-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    exemplar_export::write_scrapy_project(spec, &dir).expect("scrapy project");
    let scraped = common::scrapy_crawl(&dir, &spec.spider_name());
    let _ = std::fs::remove_dir_all(&dir);
    scraped
}

/// Crawls with `pattern` at fast politeness, keeping nothing but the counts and URLs.
fn crawl_fast(pattern: exemplar_core::pattern::Pattern) -> run::Crawled {
    exemplar_testkit::crawl_quietly(pattern, fast()).expect("crawl")
}

#[test]
fn learns_the_shop_and_crawls_it_again_after_it_grows() {
    let shop = Shop::new(25);
    let server = Server::start(0, shop.handler()).expect("server");
    let base = server.url();
    let config = MapConfig {
        politeness: fast(),
        max_bytes: 1 << 20,
        ..MapConfig::default()
    };
    let learned = run::learn(
        &format!("{base}/"),
        &format!("{base}/item/1"),
        config,
        &ClientConfig::default(),
        &mut |_, _| {},
    )
    .expect("learn");
    let map = &learned.map;
    let state = |suffix: &str| {
        map.nodes
            .iter()
            .find(|n| n.url == format!("{base}{suffix}"))
            .map(|n| n.state.clone())
    };
    // Bad input is recorded, not fatal.
    assert_eq!(
        state("/missing"),
        Some(NodeState::HttpError { status: 404 })
    );
    assert_eq!(state("/error"), Some(NodeState::HttpError { status: 500 }));
    assert!(matches!(
        state("/manual.pdf"),
        Some(NodeState::NotHtml { .. })
    ));
    assert!(matches!(state("/away"), Some(NodeState::OffSite { .. })));
    assert_eq!(state("/admin/panel"), Some(NodeState::Disallowed));
    assert_eq!(state("/slow"), Some(NodeState::Page));
    assert!(
        matches!(
            state("/huge"),
            Some(NodeState::TooLarge {
                max_bytes: 1_048_576
            })
        ),
        "{:?}",
        state("/huge")
    );
    // The redirect to /item/5 and the ?ref= duplicates count once.
    let targets: Vec<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    let found = paths(&base, &targets);
    let all: BTreeSet<String> = shop.item_paths().into_iter().collect();
    assert!(found.is_subset(&all), "only items are targets: {found:?}");
    assert!(
        found.len() + 1 >= all.len(),
        "mapping finds (nearly) every item: {} of {}",
        found.len(),
        all.len()
    );
    // The calendar trap is bounded.
    let calendar = map
        .nodes
        .iter()
        .filter(|n| n.url.contains("/calendar/"))
        .count();
    assert!(calendar < 3000, "calendar pages: {calendar}");

    let p = &learned.pattern;
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    assert!(p.levels[0].paginate, "listings paginate: {}", p.render());
    let last = &p.levels[1].regexes;
    assert_eq!(last.len(), 1, "one item regex: {}", p.render());
    let re = regex::Regex::new(&last[0]).expect("regex");
    assert!(
        re.is_match(&format!("{base}/item/999")),
        "generalises: {}",
        last[0]
    );
    assert!(!re.is_match(&format!("{base}/about")));
    // The item linked under two URLs is known under both.
    let item2: Vec<String> = p
        .known_targets
        .iter()
        .chain(&p.known_aliases)
        .filter(|u| u.contains("/item/2?") || u.ends_with("/item/2"))
        .cloned()
        .collect();
    assert_eq!(item2.len(), 2, "{item2:?}");
    // The pattern round-trips through JSON.
    let again = exemplar_core::pattern::Pattern::from_json(&p.to_json()).expect("json");
    assert_eq!(&again, p);

    // The site grows; the crawl finds the new items and follows few links.
    shop.grow(12);
    let crawled = run::crawl(
        p.clone(),
        CrawlConfig {
            politeness: Some(fast()),
            ..CrawlConfig::default()
        },
        true,
        &ClientConfig::default(),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )
    .expect("crawl");
    let got = paths(&base, &crawled.targets);
    let all: BTreeSet<String> = shop.item_paths().into_iter().collect();
    assert_eq!(got, all, "precision and recall 100% after growth");
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());
    assert_eq!(crawled.coverage.new.len(), all.len() - found.len());
    let listings = 2 * (shop.per_category().div_ceil(shop::PER_PAGE));
    assert!(
        crawled.progress.fetched <= all.len() + listings + 1 + 3,
        "crawl links {} for {} targets and {listings} listings",
        crawled.progress.fetched,
        all.len()
    );
    // Navigation pages (not targets): the crawl skips the calendar, facets, errors and extras.
    let crawl_nav = crawled.progress.fetched - crawled.progress.targets;
    let map_nav = learned.progress.fetched - learned.progress.targets;
    assert!(
        crawl_nav * 3 < map_nav,
        "the crawl follows far fewer navigation links than the mapping ({crawl_nav} vs {map_nav})"
    );

    // Verifying only the new pages: the items known from learning are taken as they are, the
    // new ones are compared with the example (and pass: they are items).
    let mut checked: Vec<(String, Option<bool>, bool)> = Vec::new();
    let again = run::crawl(
        p.clone(),
        CrawlConfig {
            politeness: Some(fast()),
            verify_new_only: true,
            ..CrawlConfig::default()
        },
        true,
        &ClientConfig::default(),
        &mut |t| {
            checked.push((t.url.clone(), t.verified, t.new));
            Ok(())
        },
        &mut |_, _| {},
    )
    .expect("crawl");
    assert_eq!(paths(&base, &again.targets), all);
    assert_eq!(again.progress.rejected, 0);
    for (url, verified, new) in &checked {
        assert_eq!(verified.is_some(), *new, "{url}: checked only when new");
        assert_ne!(*verified, Some(false), "{url}");
    }
    let new: Vec<String> = checked
        .iter()
        .filter(|c| c.2)
        .map(|c| c.0.clone())
        .collect();
    let new = paths(&base, &new);
    let expected: BTreeSet<String> = all.difference(&found).cloned().collect();
    // Item 2 is linked as `/item/2?ref=home` and as `/item/2`: one page under two URLs, known
    // under whichever answered first while mapping, the other kept as its alias. The crawl may
    // meet either first (the order varies under load); neither is new.
    assert_eq!(new, expected, "checked as new; known: {found:?}");
}

/// A catalogue whose listing shows three of its twenty items; every item links the next two
/// ("related items") and its own reviews page, of another kind.
fn catalogue(path: &str) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    let page = |title: &str, body: &str| {
        Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
             <header class=top><a href='/'>Catalogue</a></header><main>{body}</main></body></html>"
        ))
    };
    let item = |i: u32| -> Option<u32> { (1..=20).contains(&i).then_some(i) };
    let number = |p: &str, prefix: &str, suffix: &str| -> Option<u32> {
        p.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
    };
    if path == "/" {
        let links: String = (1..=3)
            .map(|i| format!("<li><a href='/item/{i}.html'>Item {i}</a></li>"))
            .collect();
        return page("Catalogue", &format!("<ul class=list>{links}</ul>"));
    }
    if let Some(i) = number(path, "/item/", ".html").and_then(item) {
        let related: String = [i + 1, i + 2]
            .into_iter()
            .filter_map(item)
            .map(|j| format!("<li><a href='/item/{j}.html'>Item {j}</a></li>"))
            .collect();
        return page(
            &format!("Item {i}"),
            &format!(
                "<article class=item><h1>Item {i}</h1><table class=spec><tr><td>size</td>\
                 <td>{i}</td></tr><tr><td>colour</td><td>red</td></tr></table>\
                 <p class=desc>About item {i}.</p><a href='/item/{i}/reviews.html'>Reviews</a>\
                 </article><aside><h2>Related</h2><ul class=related>{related}</ul></aside>"
            ),
        );
    }
    if let Some(i) = number(path, "/item/", "/reviews.html").and_then(item) {
        return page(
            &format!("Reviews of item {i}"),
            &format!("<h1>Reviews</h1><p>Nobody has reviewed item {i} yet.</p>"),
        );
    }
    Response {
        status: 404,
        headers: Vec::new(),
        body: Vec::new(),
        delay: None,
    }
}

#[test]
fn items_linked_only_from_other_items_are_mapped_learned_and_crawled() {
    let server = Server::start(0, |req: &exemplar_native::serve::Request| {
        catalogue(&req.path)
    })
    .expect("server");
    let base = server.url();
    let learn = |expand_targets: bool| {
        let config = MapConfig {
            expand_targets,
            ..MapConfig::default()
        };
        learn_fast(&format!("{base}/"), &format!("{base}/item/1.html"), config).expect("learn")
    };
    let crawl = crawl_fast;
    let items: BTreeSet<String> = (1..=20).map(|i| format!("/item/{i}.html")).collect();

    // Design §3 alone: targets are not expanded, so the map and the crawl stop at the three
    // items the listing shows.
    let plain = learn(false);
    assert_eq!(plain.map.targets().count(), 3);
    assert!(!plain.pattern.levels.last().expect("level").paginate);
    assert_eq!(crawl(plain.pattern).targets.len(), 3);

    // Targets expanded once the rest is visited: every item is mapped, the pattern follows
    // items to items (and not to their reviews, which mapping saw), the crawl collects all.
    let learned = learn(true);
    assert_eq!(learned.map.targets().count(), 20);
    let p = learned.pattern;
    let last = p.levels.last().expect("level");
    assert!(last.paginate, "{}", p.render());
    assert!(p.render().contains("followed from target to target"));
    let spec = exemplar_export::ScrapySpec::from_pattern(&p);
    let crawled = crawl(p);
    assert_eq!(paths(&base, &crawled.targets), items);
    // The Scrapy export follows items to items as well.
    let scraped = scrapy_crawl_spec(&spec, "catalogue");
    assert_eq!(paths(&base, &scraped), items);
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());
    assert!(
        crawled.progress.fetched <= 21 + 2,
        "only the entry, the items and the two common sitemap locations: {}",
        crawled.progress.fetched
    );
}

/// An API reference built like Doxygen's with a tree view: the home page has no `<a>` link;
/// every page includes `menudata.js`, whose menu names the class and file lists. `navtree.js`
/// answers 404, `/private/` is disallowed, and a CDN script is off site.
fn scripted_docs(path: &str) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    let head = "<script src='menudata.js'></script><script src='navtree.js'></script>\
                <script src='https://cdn.example.org/lib.js'></script>\
                <script src='/private/stats.js'></script>";
    let page = |title: &str, body: &str| {
        Response::html(format!(
            "<!DOCTYPE html><html><head>{head}<title>{title}</title></head><body>\
             <div id=top><div id=projectname>Widgets API</div></div><div id=main-nav></div>\
             <div class=contents>{body}</div></body></html>"
        ))
    };
    let number = |p: &str, prefix: &str| -> Option<u32> {
        p.strip_prefix(prefix)?.strip_suffix(".html")?.parse().ok()
    };
    match path {
        "/robots.txt" => Response {
            headers: vec![("Content-Type".into(), "text/plain".into())],
            ..Response::html("User-agent: *\nDisallow: /private/\n")
        },
        "/docs/index.html" => page("Widgets API", "<p>The Widgets library.</p>"),
        "/docs/menudata.js" => Response {
            headers: vec![("Content-Type".into(), "text/javascript".into())],
            ..Response::html(
                "/* generated: \"licence.html\" */\nvar quote = /\"/g;\n\
                 var menudata={children:[{text:\"Main Page\",url:\"index.html\"},\n\
                 {text:\"Classes\",url:\"annotated.html\"},{text:\"Files\",url:\"files.html\"}]};\n",
            )
        },
        "/docs/annotated.html" => page(
            "Class List",
            &(1..=12)
                .map(|k| {
                    format!("<tr><td><a class=el href='class_{k}.html'>Widget{k}</a></td></tr>")
                })
                .collect::<String>(),
        ),
        "/docs/files.html" => page(
            "File List",
            &(1..=4)
                .map(|k| format!("<li><a href='file_{k}.html'>widget{k}.h</a></li>"))
                .collect::<String>(),
        ),
        p if number(p, "/docs/class_").is_some_and(|k| (1..=12).contains(&k)) => {
            let k = number(p, "/docs/class_").unwrap_or(0);
            page(
                &format!("Widget{k} Class Reference"),
                &format!(
                    "<div class=header><h1>Widget{k} Class Reference</h1></div>\
                     <table class=memberdecls><tr><td>void</td><td>draw{k}()</td></tr>\
                     <tr><td>int</td><td>size()</td></tr></table><div class=textblock>\
                     <p>A widget of kind {k}.</p></div><h2>Member Function Documentation</h2>\
                     <div class=memitem><div class=memproto>void draw{k}()</div>\
                     <div class=memdoc>Draws it.</div></div>"
                ),
            )
        }
        p if number(p, "/docs/file_").is_some_and(|k| (1..=4).contains(&k)) => {
            let k = number(p, "/docs/file_").unwrap_or(0);
            page(
                &format!("widget{k}.h"),
                &format!("<pre class=fragment>#include &lt;widget{k}.h&gt;\nint x;\n</pre>"),
            )
        }
        _ => Response::not_found(),
    }
}

#[test]
fn navigation_written_by_script_is_learned_crawled_and_exported() {
    use std::sync::{Arc, Mutex};
    let hits: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&hits);
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        log.lock().expect("log").push(req.path.clone());
        scripted_docs(&req.path)
    })
    .expect("server");
    let base = server.url();
    let count = |path: &str| {
        hits.lock()
            .expect("log")
            .iter()
            .filter(|p| *p == path)
            .count()
    };
    let learn = |script_links: bool| {
        let config = MapConfig {
            script_links,
            ..MapConfig::default()
        };
        let (entry, example) = (
            format!("{base}/docs/index.html"),
            format!("{base}/docs/class_1.html"),
        );
        learn_fast(&entry, &example, config)
    };
    let classes: BTreeSet<String> = (1..=12).map(|k| format!("/docs/class_{k}.html")).collect();

    // Without reading scripts the home page is a dead end, and learning says why.
    let err = learn(false).err().unwrap_or_default();
    assert!(err.contains("links to no other page"), "{err}");

    hits.lock().expect("log").clear();
    let learned = learn(true).expect("learn");
    assert!(learned.pattern.script_links, "{}", learned.pattern.render());
    let targets: Vec<String> = learned
        .map
        .targets()
        .map(|t| learned.map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(paths(&base, &targets), classes);
    assert!(learned.map.nodes.iter().all(|n| !n.url.ends_with(".js")));
    // Every page includes menudata.js: it is fetched once; the 404 one once; the disallowed
    // and the off-site ones never.
    assert_eq!(count("/docs/menudata.js"), 1);
    assert_eq!(count("/docs/navtree.js"), 1);
    assert_eq!(count("/private/stats.js"), 0);
    assert_eq!(learned.progress.scripts, 2);

    let spec = exemplar_export::ScrapySpec::from_pattern(&learned.pattern);
    assert!(spec.script_links);
    hits.lock().expect("log").clear();
    let crawled = crawl_fast(learned.pattern);
    assert_eq!(paths(&base, &crawled.targets), classes);
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());
    assert_eq!(count("/docs/menudata.js"), 1);
    // The entry, the class list, the classes: not the file pages. The three common sitemap
    // locations of a site under /docs/ (none there) are requests beside them.
    assert_eq!(
        (crawled.progress.fetched, crawled.progress.sitemap_requests),
        (14, 3),
        "{:?}",
        hits.lock().expect("log")
    );
    assert_eq!(crawled.progress.scripts, 2);
    assert_eq!(count("/private/stats.js"), 0, "disallowed by robots.txt");

    // The generated Scrapy spider reads the menu as well, once per run: the classes are linked
    // only from it, and both Scrapys (the venv's, Debian's) collected them all.
    hits.lock().expect("log").clear();
    let scraped = scrapy_crawl_spec(&spec, "scripted");
    assert_eq!(paths(&base, &scraped), classes);
    assert_eq!(count("/docs/menudata.js"), 2);
}

/// Many machines, one crawl, as the generated project's README says: two processes of the
/// spider share one Redis through scrapy-redis (`REDIS_URL=… scrapy crawl NAME`) on the scripted
/// docs site, which answers each request after 500 ms, one request at a time per process. Both
/// start together; the one whose requests reach Redis second finds every link of the entry
/// page known and is idle at once: it takes part because it waits for work (here 6 s; it polls
/// the queue every 5 s, Scrapy's heartbeat) instead of stopping. Together they collect every
/// class, none twice; a third process started after them collects nothing. The class list is linked only from a script: each process
/// reads the scripts itself, straight through its downloader (through the shared scheduler the
/// answer could go to the other process, away from the pages waiting for it).
#[test]
fn two_spider_processes_sharing_one_redis_collect_every_target_once() {
    let server = Server::start(0, |req: &exemplar_native::serve::Request| {
        std::thread::sleep(std::time::Duration::from_millis(500));
        scripted_docs(&req.path)
    })
    .expect("server");
    let base = server.url();
    let config = MapConfig {
        script_links: true,
        ..MapConfig::default()
    };
    let learned = learn_fast(
        &format!("{base}/docs/index.html"),
        &format!("{base}/docs/class_1.html"),
        config,
    )
    .expect("learn");
    let spec = exemplar_export::ScrapySpec::from_pattern(&learned.pattern);
    let dir = std::env::temp_dir().join(format!("exemplar-redis-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    exemplar_export::write_scrapy_project(&spec, &dir).expect("scrapy project");
    let redis = common::Redis::start();
    let scrapy = exemplar_testkit::root().join(".venv/bin/scrapy");
    let name = spec.spider_name();
    // One request at a time: a process takes from the shared queue only what it fetches.
    let spawn = |out: &str, idle_s: &str| {
        common::scrapy_command(&scrapy, &dir, &name, out)
            .env("REDIS_URL", redis.url())
            .args(["-s", &format!("MAX_IDLE_TIME_BEFORE_CLOSE={idle_s}")])
            .args(["-s", "CONCURRENT_REQUESTS=1"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("scrapy (./build.sh setup installs it and scrapy-redis into .venv)")
    };
    // Its items, once it ends well.
    let finish = |run: std::process::Child, out: &str| {
        let done = run.wait_with_output().expect("scrapy ran");
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "scrapy: {stderr}");
        // scrapy-redis itself may warn of Scrapy APIs it still uses; the project must not.
        assert!(
            !stderr
                .lines()
                .any(|l| l.contains("ScrapyDeprecationWarning")
                    && l.contains(dir.to_str().unwrap_or("-"))),
            "scrapy: {stderr}"
        );
        common::item_urls(&dir.join(out))
    };
    let (a, b) = (spawn("a.jsonl", "6"), spawn("b.jsonl", "6"));
    let each = [finish(a, "a.jsonl"), finish(b, "b.jsonl")];
    let all: Vec<String> = each.concat();
    let classes: BTreeSet<String> = (1..=12).map(|k| format!("/docs/class_{k}.html")).collect();
    // `paths` also asserts that no page was collected twice, by one process or by both.
    assert_eq!(paths(&base, &all), classes);
    assert!(
        each.iter().all(|urls| !urls.is_empty()),
        "both processes collected classes: {each:?}"
    );
    // The queue and the seen set outlast a process (SCHEDULER_PERSIST): a machine that starts
    // once the others are done finds every page known and collects nothing again.
    let late = finish(spawn("c.jsonl", "1"), "c.jsonl");
    assert_eq!(late, Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A help site built like R's: the package index links each topic through an alias page that
/// only redirects with `<meta http-equiv=refresh>` (`/help/<alias>.html` → `/html/<topic>.html`);
/// two aliases lead to the same topic, and one redirects off the site.
fn help_site(path: &str) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    let topics = [
        "apply", "paste", "vector", "list", "matrix", "sum", "mean", "sort",
    ];
    let alias = |a: &str| -> Option<&str> {
        match a {
            "sapply" => Some("apply"),
            "elsewhere" => Some("http://example.org/moved.html"),
            _ => topics.iter().find(|t| **t == a).copied(),
        }
    };
    if path == "/" {
        let links: String = topics
            .iter()
            .chain(&["sapply", "elsewhere"])
            .map(|a| format!("<tr><td><a href='help/{a}.html'>{a}</a></td></tr>"))
            .collect();
        return Response::html(format!(
            "<html><head><title>Package index</title></head><body><h2>The package</h2>\
             <table class=index>{links}</table></body></html>"
        ));
    }
    if let Some(a) = path
        .strip_prefix("/help/")
        .and_then(|p| p.strip_suffix(".html"))
        .and_then(alias)
    {
        let to = if a.starts_with("http") {
            a.to_string()
        } else {
            format!("../html/{a}.html")
        };
        return Response::html(format!(
            "<!DOCTYPE html><html><head><meta http-equiv='refresh' content='0; url={to}'>\
             <title>HTTP redirect</title></head><body></body></html>"
        ));
    }
    if let Some(t) = path
        .strip_prefix("/html/")
        .and_then(|p| p.strip_suffix(".html"))
        .filter(|t| topics.contains(t))
    {
        return Response::html(format!(
            "<!DOCTYPE html><html><head><title>R: {t}</title></head><body><div class=container>\
             <table><tr><td>{t} {{base}}</td><td>R Documentation</td></tr></table>\
             <h2>The {t} function</h2><h3>Description</h3><p>What {t} does.</p>\
             <h3>Usage</h3><pre>{t}(x, ...)</pre><h3>Arguments</h3><table><tr><td>x</td>\
             <td>an object</td></tr></table><hr><div style='text-align: center;'>\
             <a href='../index.html'>Index</a></div></div></body></html>"
        ));
    }
    Response::not_found()
}

/// `site` (path and query → answer) served on 127.0.0.1 and learned from its home page and the
/// example at `example` (a path) with the default settings: the server (kept running), its base
/// URL and what was learned.
fn serve_and_learn(
    site: fn(&str) -> exemplar_native::serve::Response,
    example: &str,
) -> (Server, String, run::Learned) {
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        site(&req.path)
    })
    .expect("server");
    let base = server.url();
    let learned = learn_fast(
        &format!("{base}/"),
        &format!("{base}{example}"),
        MapConfig::default(),
    )
    .expect("learn");
    (server, base, learned)
}

#[test]
fn pages_reached_only_through_a_meta_refresh_are_mapped_learned_and_crawled() {
    let (_server, base, learned) = serve_and_learn(help_site, "/html/apply.html");
    let topics: BTreeSet<String> = ["apply", "paste", "vector", "list", "matrix", "sum", "mean"]
        .iter()
        .chain(&["sort"])
        .map(|t| format!("/html/{t}.html"))
        .collect();
    let map = &learned.map;
    let mapped: Vec<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(paths(&base, &mapped), topics);
    let p = learned.pattern;
    // Through the alias level to the topics.
    assert_eq!(p.levels.len(), 2, "{}", p.render());
    assert!(
        p.levels[0].regexes.iter().all(|r| r.contains("help")),
        "{}",
        p.render()
    );
    let spec = exemplar_export::ScrapySpec::from_pattern(&p);
    let crawled = crawl_fast(p);
    assert_eq!(paths(&base, &crawled.targets), topics);
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());

    // The generated Scrapy spider reads the refresh as a link too.
    let scraped = scrapy_crawl_spec(&spec, "refresh");
    assert_eq!(paths(&base, &scraped), topics);
}

/// A repository browser like gitweb: commits at `/commit?h=<hash>`, the newest also at
/// `/commit?h=HEAD`, whose links carry `HEAD` where the other URL's carry the hash.
fn repository(path: &str) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    const HASHES: [&str; 5] = ["9f3ab07", "c41e2d9", "5b8d0fa", "e07c6b1", "a923f22"];
    let commit = |h: &str, i: usize| {
        let parent = i
            .checked_sub(1)
            .map(|p| format!("<a href='/commit?h={}'>parent</a>", HASHES[p]))
            .unwrap_or_default();
        Response::html(format!(
            "<html><head><title>commit</title></head><body><div class=nav>\
             <a href='/log?h={h}'>log</a> <a href='/tree?hb={h}'>tree</a></div>\
             <table class=commit><tr><td>message</td><td>Change number {}</td></tr>\
             <tr><td>parent</td><td>{parent}</td></tr></table>\
             <div class=files><a href='/blob?f=README;hb={h}'>README</a></div></body></html>",
            ["one", "two", "three", "four", "five"][i]
        ))
    };
    match path.split_once('?') {
        None if path == "/" => Response::html(
            "<html><body><a href='/log'>log</a> <a href='/commit?h=HEAD'>last commit</a>\
             </body></html>",
        ),
        Some(("/log", _)) | None if path.starts_with("/log") => {
            let rows: String = HASHES
                .iter()
                .rev()
                .map(|h| format!("<li><a href='/commit?h={h}'>{h}</a></li>"))
                .collect();
            Response::html(format!("<html><body><ul>{rows}</ul></body></html>"))
        }
        Some(("/commit", q)) => {
            let h = q.strip_prefix("h=").unwrap_or(q);
            let h = if h == "HEAD" { HASHES[4] } else { h };
            match HASHES.iter().position(|x| *x == h) {
                Some(i) => commit(q.strip_prefix("h=").unwrap_or(q), i),
                None => Response::not_found(),
            }
        }
        _ => Response::not_found(),
    }
}

#[test]
fn a_commit_under_an_alias_whose_links_carry_it_is_collected_once() {
    let (_server, _, learned) = serve_and_learn(repository, "/commit?h=5b8d0fa");
    // The head commit is one page, under whichever URL mapping met first.
    assert_eq!(
        learned.map.targets().count(),
        5,
        "{}",
        learned.pattern.render()
    );
    let duplicates = learned
        .map
        .nodes
        .iter()
        .filter(|n| matches!(n.state, NodeState::Duplicate { .. }) && n.url.contains("/commit"))
        .count();
    assert_eq!(duplicates, 1);
    let crawled = crawl_fast(learned.pattern);
    assert_eq!(crawled.targets.len(), 5, "{:?}", crawled.targets);
}

#[test]
fn a_site_where_only_the_example_reaches_theta_is_learned_at_the_theta_its_scores_give() {
    let (_server, base, learned) = serve_and_learn(common::c_api::site, "/c3ref/f0.html");
    let interfaces: BTreeSet<String> = (0..24)
        .map(|i| format!("/c3ref/f{i}.html"))
        .chain((0..4).map(|i| format!("/ext/e{i}.html")))
        .collect();
    let lowered = learned.lowered.clone().expect("θ lowered");
    assert_eq!(lowered.from, 0.875);
    // Every page but the example was scored: home, docs, the list, 30 prose pages, 27
    // interface pages.
    assert_eq!((lowered.scored, lowered.pages), (60, 27), "{lowered:?}");
    assert!(lowered.to >= 0.5 && lowered.to < 0.6, "{lowered:?}");
    let map = &learned.map;
    assert_eq!(map.threshold, lowered.to);
    let mapped: Vec<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(paths(&base, &mapped), interfaces);
    let p = learned.pattern;
    assert_eq!(p.similarity.threshold, lowered.to);
    // Relearning at the pattern's θ from the map as mapped gives the same targets.
    let (again, _) = p
        .relearned(
            exemplar_core::pattern::relabelled(map, lowered.to),
            &exemplar_core::pattern::Corrections::default(),
            0,
        )
        .expect("relearn");
    assert_eq!(again.known_targets, p.known_targets);
    let crawled = crawl_fast(p);
    assert_eq!(paths(&base, &crawled.targets), interfaces);
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());
}

/// A shop whose catalogue the browser draws with a script from a JSON feed (no link and no
/// page URL in the HTML or the script): `products` products at `/product/<slug>-<n>`, listed
/// only by the sitemap its robots.txt names (with the home, about and help pages, which links
/// reach too), written with the host the request names, as a site writes absolute URLs.
fn script_shop(
    req: &exemplar_native::serve::Request,
    products: usize,
) -> exemplar_native::serve::Response {
    let path = req.path.as_str();
    let host = req
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map_or("", |(_, v)| v.as_str());
    use exemplar_native::serve::Response;
    let page = |title: &str, body: &str| {
        Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title><script src='/app.js'></script></head>\
             <body><header><a href='/'>Shop</a> <a href='/about'>About</a> <a href='/help'>Help</a></header>\
             <main>{body}</main><footer><p>© Shop</p></footer></body></html>"
        ))
    };
    let slug = |n: usize| format!("{}-{n}", ["chair", "table", "lamp"][n % 3]);
    match path {
        "/robots.txt" => Response {
            status: 200,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: b"User-agent: *\nSitemap: /sitemap.xml\n".to_vec(),
            delay: None,
        },
        "/sitemap.xml" => {
            let locs: String = ["/", "/about", "/help"]
                .iter()
                .map(|p| p.to_string())
                .chain((1..=products).map(|n| format!("/product/{}", slug(n))))
                .map(|p| format!("<url><loc>http://{host}{p}</loc></url>"))
                .collect();
            Response {
                status: 200,
                headers: vec![("Content-Type".into(), "application/xml".into())],
                body: format!(
                    "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{locs}</urlset>"
                )
                .into_bytes(),
                delay: None,
            }
        }
        "/app.js" => Response {
            status: 200,
            headers: vec![("Content-Type".into(), "text/javascript".into())],
            body: b"for (const p of feed) document.querySelector('main').append(card(p));".to_vec(),
            delay: None,
        },
        "/" => page("Shop", "<h1>Our products</h1><div id=catalogue></div>"),
        "/about" => page("About", "<p>We sell furniture.</p><p>Since 1999.</p>"),
        "/help" => page("Help", "<p>Ask us.</p>"),
        p => match p.strip_prefix("/product/").and_then(|s| s.rsplit_once('-')) {
            Some((kind, n)) if n.parse().is_ok_and(|n: usize| (1..=products).contains(&n)) => page(
                &format!("{kind} {n}"),
                &format!(
                    "<article class=product><h1>{kind} {n}</h1><p class=price>R$ {n}9,90</p>\
                     <table class=spec><tr><th>Colour</th><td>oak</td></tr><tr><th>Size</th><td>{n} cm</td></tr></table>\
                     <p class=desc>A {kind} for your home.</p><button>Buy</button></article>"
                ),
            ),
            _ => Response::not_found(),
        },
    }
}

/// A site whose listings are drawn by scripts is learned from its sitemap (read once every link
/// is followed): every product is a target, reached from the entry through the sitemap, and the
/// crawl — which reads the sitemap as the entry page's links — collects them, and the products
/// added since; the Scrapy spider too. Without the sitemap, learning finds no product.
#[test]
fn a_catalogue_drawn_by_scripts_is_learned_and_crawled_from_its_sitemap() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let products = Arc::new(AtomicUsize::new(20));
    let count = Arc::clone(&products);
    let server = Server::start(0, move |req: &exemplar_native::serve::Request| {
        script_shop(req, count.load(Ordering::SeqCst))
    })
    .expect("server");
    let base = server.url();
    let products_of = |n: usize| -> BTreeSet<String> {
        (1..=n)
            .map(|n| format!("/product/{}-{n}", ["chair", "table", "lamp"][n % 3]))
            .collect()
    };
    let learn = |read_sitemaps: bool| {
        let config = MapConfig {
            read_sitemaps,
            ..MapConfig::default()
        };
        learn_fast(
            &format!("{base}/"),
            &format!("{base}/product/chair-3"),
            config,
        )
    };
    let err = learn(false).err().unwrap_or_default();
    assert!(err.contains("no page similar"), "{err}");

    let learned = learn(true).expect("learn");
    let map = &learned.map;
    let targets: Vec<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(paths(&base, &targets), products_of(20));
    assert_eq!(learned.progress.sitemaps, 1);
    assert_eq!(learned.progress.sitemap_links, 20);
    let p = learned.pattern;
    assert_eq!(p.levels.len(), 1, "{}", p.render());
    assert_eq!(p.stats.targets_reached, 20, "{}", p.render());

    // Five products added since learning: the crawl reads the sitemap again.
    products.store(25, Ordering::SeqCst);
    let spec = exemplar_export::ScrapySpec::from_pattern(&p);
    let crawled = crawl_fast(p);
    assert_eq!(paths(&base, &crawled.targets), products_of(25));
    assert_eq!(crawled.coverage.missed, Vec::<String>::new());
    assert_eq!(crawled.coverage.new.len(), 5);
    // The entry and the products, the sitemap beside them: nothing else.
    assert_eq!(
        (crawled.progress.fetched, crawled.progress.sitemap_requests),
        (26, 1)
    );

    let scraped = scrapy_crawl_spec(&spec, "sitemap-shop");
    assert_eq!(paths(&base, &scraped), products_of(25));
}

/// A research group's site published under `/group/`: its entry links 3 of its 12 people,
/// the others are listed only in `/group/sitemap.xml`, which no robots.txt names (the host's
/// answers 404, as do `/sitemap.xml` and `/sitemap_index.xml`).
fn group_site(req: &exemplar_native::serve::Request) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    let host = req
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map_or("127.0.0.1", |(_, v)| v.as_str());
    let path = req.path.as_str();
    if path == "/group/" {
        let links: String = (1..=3)
            .map(|i| format!("<li><a href='people/{i}.html'>Person {i}</a></li>"))
            .collect();
        return Response::html(format!(
            "<html><head><title>The group</title></head><body><h1>The group</h1>\
             <p>We study things.</p><ul>{links}</ul></body></html>"
        ));
    }
    if path == "/group/sitemap.xml" {
        let locs: String = (1..=12)
            .map(|i| format!("<url><loc>http://{host}/group/people/{i}.html</loc></url>"))
            .collect();
        return Response {
            headers: vec![("Content-Type".into(), "application/xml".into())],
            ..Response::html(format!(
                "<?xml version='1.0'?><urlset \
                 xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{locs}</urlset>"
            ))
        };
    }
    if let Some(i) = path
        .strip_prefix("/group/people/")
        .and_then(|p| p.strip_suffix(".html"))
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|i| (1..=12).contains(i))
    {
        return Response::html(format!(
            "<html><head><title>Person {i}</title></head><body><p><a href='../'>The group</a></p>\
             <div class=person><h1>Person {i}</h1><table><tr><th>Room</th><td>{i}</td></tr>\
             <tr><th>Phone</th><td>555-01{i:02}</td></tr></table>\
             <p class=bio>Person {i} works on the group's projects.</p></div></body></html>"
        ));
    }
    Response::not_found()
}

#[test]
fn a_site_under_a_path_prefix_is_learned_and_crawled_from_the_sitemap_beside_its_entry() {
    let server = Server::start(0, group_site).expect("server");
    let base = server.url();
    let people: BTreeSet<String> = (1..=12)
        .map(|i| format!("/group/people/{i}.html"))
        .collect();
    let learned = learn_fast(
        &format!("{base}/group/"),
        &format!("{base}/group/people/1.html"),
        MapConfig::default(),
    )
    .expect("learn");
    let map = &learned.map;
    let targets: Vec<String> = map
        .targets()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect();
    assert_eq!(paths(&base, &targets), people);
    assert_eq!(learned.progress.sitemaps, 1);
    assert_eq!(learned.progress.sitemap_links, 9);
    let spec = exemplar_export::ScrapySpec::from_pattern(&learned.pattern);
    let crawled = crawl_fast(learned.pattern);
    assert_eq!(paths(&base, &crawled.targets), people);
    // The generated spider tries the same locations.
    let scraped = scrapy_crawl_spec(&spec, "group-sitemap");
    assert_eq!(paths(&base, &scraped), people);
}
