//! `exemplar`: the native command-line driver of the core.
//!
//! Subcommands: `learn`, `relearn`, `crawl`, `serve`, `export-scrapy`, `classify`, `detect`,
//! `discover`, `replicas`,
//! `similarity`, `demo`. Pages are files or http(s) URLs. Exit codes: 0 success, 1 failure, 2 usage error (an
//! unknown command or flag, a missing value). The evaluations are another binary's
//! (`exemplar-eval`, the lab crate `eval/`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use exemplar_html::{Page, ParseOptions};
use exemplar_similarity::{Options, compare_pages};

const USAGE: &str = "usage:
  exemplar learn --entry URL --example URL [-o pattern.json] [--map map.json]
                 [--max-pages N] [--max-depth N] [--max-seconds S] [--threshold T]
                 [--delay-ms MS] [--concurrency N] [--include-subdomains] [--no-forms]
                 [--no-target-links]   (do not visit what only target pages link to)
                 [--no-script-links]   (do not read page URLs named in the site's scripts)
                 [--no-defer-barren]   (do not fetch last the URL shapes that yield nothing)
                 [--no-sitemaps]       (do not read the site's sitemaps, robots.txt's or at
                                        /sitemap.xml, once every link is followed)
                 [--max-bytes N]       (the largest page read, default 8388608)
                 [--allow RE]... [--deny RE]... [--ignore-robots] [--quiet]
                 [--cookies FILE]      (your session's cookies, Netscape format: behind a login)
                 [--like URL]... [--unlike URL]...   (your verdicts over the threshold)
                 [--unlike-heading TEMPLATE]...      (leave out the targets headed so)
                 [--unlike-language TAG]... [--like-language TAG]...  (leave out, or keep, the
                                                     targets that declare a language)
                 [--unlike-directory DIR]... [--like-directory DIR]...  (the same for the
                                                     targets in a directory: /en/howto/)
                 [--unlike-listings]   (leave out the targets that look like listing pages)
                 [--review]            (print the review's lists, each cut to its first rows)
                 [--review-file F]     (write them whole to F)
                 [--state F [--save-every S]]  (saved every S s, default 5, and on Ctrl-C;
                                                the same command resumes it)
  exemplar relearn pattern.json --map map.json [--threshold T] [--like URL]... [--unlike URL]...
                 [--unlike-heading TEMPLATE]... [--like-heading TEMPLATE]...
                 [--unlike-language TAG]... [--like-language TAG]...
                 [--unlike-directory DIR]... [--like-directory DIR]... [-o out.json]
                 [--unlike-listings] [--review] [--review-file F]
                                                     (no fetching; verdicts add to the pattern's)
  exemplar crawl pattern.json [--jsonl F [--html]] [--csv F] [--warc F] [--verify | --verify-new]
                 [--no-sitemaps]                 (the site's sitemaps are read unless given)
                 [--queries F | --policy adaptive|generic-frequency|thesis|random|values]
                 [--budget N] [--result-pages N]     (patterns with a search-form level)
                 [--max-pages N] [--max-bytes N] [--delay-ms MS] [--concurrency N] [--quiet]
                 [--cookies FILE]
                 [--state F [--save-every S]]  (saved every S s, default 5, and on Ctrl-C;
                                                the same command resumes it)
                 [--since EARLIER.jsonl [--changes-only]]  (pages new, changed and gone since
                                                an earlier --jsonl; exports only new and changed)
  exemplar export-scrapy pattern.json DIR
  exemplar serve DIR [--port N] [--latency-ms MS|MIN-MAX]  (each answer's delay, as a remote
                 site's; a range is drawn log-uniformly)
  exemplar classify FILE|URL...
  exemplar detect URL... [--max-fetches N] [--json] [--baseline] [--breadth-first]
                 [--delay-ms MS] [--concurrency N] [--ignore-robots] [--cookies FILE]
                                                     (a site's item pages)
  exemplar discover --seeds FILE|pattern.json [--search URL_TEMPLATE] [--related URL_TEMPLATE]
                 [--backlinks URL_TEMPLATE] [--budget N] [--queries N]
                 [--operator keyword|related|forward|backward] [--json] [--quiet]
                 [--delay-ms MS] [--concurrency N] [--ignore-robots] [--resolve HOST:ADDR]
                                                     (more sites like the seeds; templates take
                                                      {q} or {url}; best first)
  exemplar similarity A B [--threshold T]        (files or URLs)
  exemplar demo DIR --entry FILE --example FILE";

fn run() -> ExitCode {
    let args = args::split_equals(std::env::args().skip(1).collect());
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let grammar = args::command(USAGE);
    let known = grammar.get_subcommands().any(|c| c.get_name() == cmd)
        || matches!(cmd.as_str(), "-h" | "--help" | "help" | "-V" | "--version");
    if !known {
        eprintln!("exemplar: unknown command {cmd:?}\n{USAGE}");
        return ExitCode::from(2);
    }
    // Unknown flags, flags without their value, too many arguments: usage errors (exit 2).
    if let Err(e) = grammar
        .try_get_matches_from(std::iter::once("exemplar").chain(args.iter().map(String::as_str)))
    {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "learn" => commands::learn(rest),
        "relearn" => commands::relearn(rest),
        "crawl" => commands::crawl(rest),
        "export-scrapy" => commands::export_scrapy(rest),
        "serve" => commands::serve(rest),
        "classify" => classify(rest),
        "detect" => commands::detect(rest),
        "discover" => discover::discover(rest),
        "replicas" => replicas::replicas(rest),
        "similarity" => similarity(rest),
        "demo" => demo(rest),
        "outline" => outline(rest),
        // The grammar answered --help and --version itself; nothing else is left.
        _ => Err(format!("unknown command {cmd:?}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("exemplar: {e}");
            // Errors that end with the usage text are usage errors.
            if e.contains("\nusage:") {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

mod args;
mod commands;
mod discover;
mod replicas;
mod resume;
mod review;
mod since;

pub(crate) use args::{flag, flags, positional, switch};

/// Reads and parses a page: an http(s) URL is fetched, anything else is a file.
fn read_page_or_url(arg: &str) -> Result<Page, String> {
    if arg.starts_with("http://") || arg.starts_with("https://") {
        let client = exemplar_native::http::Client::new(&Default::default());
        let p = exemplar_native::run::fetch_page(&client, arg)?;
        return Page::parse(
            &p.body,
            &p.url,
            p.content_type.as_deref(),
            &ParseOptions::default(),
        )
        .map_err(|e| format!("{arg}: {e}"));
    }
    read_page(Path::new(arg))
}

/// Reads and parses a page file; its URL is a `file://` URL of the path.
fn read_page(path: &Path) -> Result<Page, String> {
    let (bytes, url) = read_file(path)?;
    parse_file(path, &bytes, &url)
}

/// A file's bytes and its `file://` URL.
fn read_file(path: &Path) -> Result<(Vec<u8>, String), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let abs = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((bytes, format!("file://{}", abs.display())))
}

fn parse_file(path: &Path, bytes: &[u8], url: &str) -> Result<Page, String> {
    Page::parse(bytes, url, None, &ParseOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a page file to classify. Under its `file://` URL every path would start at the file
/// system's root and the URL features (path depth, shared path prefixes) would not read as
/// on the web, so the page is given the URL it would have on a server rooted at the saved
/// site's root: the deepest directory holding the page and every local file it links to.
fn read_page_in_site(path: &Path) -> Result<Page, String> {
    let (bytes, file_url) = read_file(path)?;
    let page = parse_file(path, &bytes, &file_url)?;
    let segments = |url: &str| -> Option<Vec<String>> {
        let u = url::Url::parse(url).ok().filter(|u| u.scheme() == "file")?;
        Some(u.path_segments()?.map(str::to_string).collect())
    };
    let Some(own) = segments(&page.url) else {
        return Ok(page);
    };
    // Directories (every segment but the last) shared with each local link target.
    let mut root = own.len().saturating_sub(1);
    for target in page.links.iter().filter_map(|l| segments(&l.url)) {
        let dirs = &target[..target.len().saturating_sub(1)];
        root = root.min(own.iter().zip(dirs).take_while(|(a, b)| a == b).count());
    }
    parse_file(
        path,
        &bytes,
        &format!("http://localhost/{}", own[root..].join("/")),
    )
}

fn classify(args: &[String]) -> Result<(), String> {
    let files = positional(args);
    if files.is_empty() {
        return Err(format!("classify needs at least one file\n{USAGE}"));
    }
    for f in files {
        let page = if f.starts_with("http://") || f.starts_with("https://") {
            read_page_or_url(f)?
        } else {
            read_page_in_site(Path::new(f))?
        };
        let c = exemplar_classify::classify(&page);
        println!("{f}\t{}\t{:.2}", c.kind.name(), c.confidence);
    }
    Ok(())
}

fn similarity(args: &[String]) -> Result<(), String> {
    let files = positional(args);
    let [a, b] = files[..] else {
        return Err(format!("similarity needs two files\n{USAGE}"));
    };
    let mut options = Options::default();
    if let Some(t) = flag(args, "--threshold") {
        options.threshold = t.parse().map_err(|_| format!("bad threshold {t:?}"))?;
    }
    options.validate()?;
    let (pa, pb) = (read_page_or_url(a)?, read_page_or_url(b)?);
    let v = compare_pages(&pa, &pb, &options);
    println!(
        "similarity {:.4}  distance {}  sizes {} / {} (view)  kind agreement {:.2}  place agreement {:.2}  score {:.4}  {} at θ = {}",
        v.comparison.similarity,
        v.comparison.distance,
        v.comparison.size_a,
        v.comparison.size_b,
        v.kind_agreement,
        v.place_agreement,
        v.score,
        if v.similar { "similar" } else { "not similar" },
        v.threshold
    );
    Ok(())
}

/// The main job: serves a local site, classifies its entry and example pages, learns the
/// navigation pattern from the example, crawls with it, and scores the result against the
/// site's `expected.toml` when it has one.
fn demo(args: &[String]) -> Result<(), String> {
    let dir = positional(args)
        .first()
        .map(PathBuf::from)
        .ok_or_else(|| format!("demo needs a directory\n{USAGE}"))?;
    let example = flag(args, "--example").ok_or("demo needs --example FILE")?;
    let entry = flag(args, "--entry").unwrap_or("index.html");
    for (what, f) in [("entry", entry), ("example", example)] {
        let page = read_page(&dir.join(f))?;
        let c = exemplar_classify::classify(&page);
        println!(
            "{what} page {f}: {} (confidence {:.2})",
            c.kind.name(),
            c.confidence
        );
    }
    let server =
        exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(dir.clone()))
            .map_err(|e| format!("cannot serve {}: {e}", dir.display()))?;
    let base = server.url();
    println!("serving {} on {base}/", dir.display());
    let politeness = exemplar_core::fetch::Politeness {
        delay_ms: 0,
        ..Default::default()
    };
    let config = exemplar_core::mapper::MapConfig {
        politeness: politeness.clone(),
        ..Default::default()
    };
    let learned = exemplar_native::run::learn(
        &format!("{base}/{entry}"),
        &format!("{base}/{example}"),
        config,
        &Default::default(),
        &mut |_, _| {},
    )?;
    println!(
        "\nmapped {} pages in {:.2} s, {} like the example\n",
        learned.progress.fetched,
        learned.elapsed.as_secs_f64(),
        learned.progress.targets
    );
    print!("{}", learned.pattern.render());
    let crawled = exemplar_native::run::crawl(
        learned.pattern,
        exemplar_core::crawler::CrawlConfig {
            politeness: Some(politeness),
            ..Default::default()
        },
        false,
        &Default::default(),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )?;
    let got: Vec<String> = crawled
        .targets
        .iter()
        .map(|u| u.strip_prefix(&format!("{base}/")).unwrap_or(u).to_string())
        .collect();
    println!(
        "\ncrawl: {} pages like the example, {} pages fetched in {:.2} s",
        got.len(),
        crawled.progress.fetched,
        crawled.elapsed.as_secs_f64()
    );
    if let Ok(text) = std::fs::read_to_string(dir.join("expected.toml")) {
        let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("expected.toml: {e}"))?;
        let truth: Vec<&str> = doc
            .get("pages")
            .and_then(|p| p.as_table())
            .map(|t| {
                t.iter()
                    .filter(|(_, v)| v.as_str() == Some("entity"))
                    .map(|(k, _)| k.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let hits = got.iter().filter(|g| truth.contains(&g.as_str())).count();
        println!(
            "against expected.toml: precision {:.1}%, recall {:.1}% ({hits} of {} entity pages)",
            100.0 * hits as f64 / got.len().max(1) as f64,
            100.0 * hits as f64 / truth.len().max(1) as f64,
            truth.len()
        );
    }
    Ok(())
}

/// Prints the tree of a page under the default similarity view (a debugging aid).
fn outline(args: &[String]) -> Result<(), String> {
    let file = positional(args)
        .first()
        .copied()
        .ok_or("outline needs a file")?;
    let page = read_page(Path::new(file))?;
    print!("{}", Options::default().view.shape(&page.tree).outline());
    Ok(())
}

fn main() -> std::process::ExitCode {
    // Output piped into `head` and the like: end quietly when the reader goes, as Unix tools do.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    run()
}
