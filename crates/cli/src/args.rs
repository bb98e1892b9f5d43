//! The command line's grammar, declared once: every subcommand with its flags and positional
//! arguments ([`command`], with clap). `exemplar` checks the arguments against it before a
//! command runs, so an unknown flag, a flag without its value or a missing subcommand is a usage
//! error (exit status 2) with a clear message, and `exemplar CMD --help` describes CMD.
//!
//! The commands then read their arguments by name ([`flag`], [`flags`], [`switch`],
//! [`positional`]); which flags are switches comes from the same declaration.

use clap::{Arg, ArgAction, Command};

/// A flag taking a value: `--name VALUE` (repeats allowed; the first is the one read unless the
/// flag is a list, [`flags`]). The value is the next argument whatever it starts with
/// (`--threshold -0.1` is a bad θ, not an unknown flag `-0`).
fn value(name: &'static str, value: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .value_name(value)
        .help(help)
        .action(ArgAction::Append)
        .allow_hyphen_values(true)
}

/// A flag without a value (given twice is the same as once).
fn switch_arg(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .help(help)
        .action(ArgAction::SetTrue)
        .overrides_with(name)
}

/// Positional arguments: at most `max` of them (fewer than `min` is the command's own usage
/// error, whose message says what is missing).
fn positionals(name: &'static str, min: usize, max: usize, help: &'static str) -> Arg {
    Arg::new(name)
        .value_name(name)
        .help(help)
        .num_args(min.max(1)..=max)
        .action(ArgAction::Set)
}

fn out_file(help: &'static str) -> [Arg; 1] {
    [Arg::new("out")
        .short('o')
        .long("out")
        .value_name("FILE")
        .help(help)
        .action(ArgAction::Append)]
}

/// The politeness flags of `learn` and `crawl`.
fn politeness() -> [Arg; 3] {
    [
        value(
            "delay-ms",
            "MS",
            "wait MS between two requests to one host (default 250)",
        ),
        value(
            "concurrency",
            "N",
            "at most N requests at once to one host (default 2)",
        ),
        switch_arg(
            "ignore-robots",
            "do not read robots.txt (your choice for your own site)",
        ),
    ]
}

/// `--state F [--save-every S]`.
fn state() -> [Arg; 2] {
    [
        value(
            "state",
            "FILE",
            "save the run to FILE (and on Ctrl-C); the same command resumes it",
        ),
        value(
            "save-every",
            "S",
            "save the state every S seconds (default 5)",
        ),
    ]
}

/// The user's verdicts: on pages, kinds of heading, languages and directories.
/// `--review`, `--review-file FILE`: the review's lists after learning; `--unlike-listings`,
/// the verdict on one of them.
fn review() -> [Arg; 3] {
    [
        switch_arg(
            "unlike-listings",
            "leave out the targets that look like listing pages (the review lists them)",
        ),
        switch_arg(
            "review",
            "print the review's lists (pages below θ, targets to check, targets by heading, language, directory), each cut to its first rows",
        ),
        value(
            "review-file",
            "FILE",
            "write the review's lists whole to FILE",
        ),
    ]
}

fn verdicts() -> [Arg; 8] {
    [
        value(
            "like",
            "URL",
            "a page below θ that is like the example (repeatable)",
        ),
        value(
            "unlike",
            "URL",
            "a target that is not like the example (repeatable)",
        ),
        value(
            "unlike-heading",
            "TEMPLATE",
            "leave out the targets headed so (repeatable)",
        ),
        value(
            "like-heading",
            "TEMPLATE",
            "take the pages headed so (repeatable)",
        ),
        value(
            "unlike-language",
            "TAG",
            "leave out the targets that declare TAG (repeatable)",
        ),
        value(
            "like-language",
            "TAG",
            "keep the targets that declare TAG (repeatable)",
        ),
        value(
            "unlike-directory",
            "DIR",
            "leave out the targets in DIR (repeatable)",
        ),
        value(
            "like-directory",
            "DIR",
            "keep the targets in DIR (repeatable)",
        ),
    ]
}

fn max_bytes() -> Arg {
    value(
        "max-bytes",
        "N",
        "the largest page read, in bytes (default 8388608)",
    )
}

/// `--render` / `--no-render`: pages drawn by scripts.
fn rendering(when: &'static str) -> [Arg; 2] {
    [
        switch_arg(
            "render",
            "render every page that has a script, in headless Chromium",
        ),
        switch_arg("no-render", when),
    ]
}

fn cookies() -> Arg {
    value(
        "cookies",
        "FILE",
        "send the cookies of FILE (Netscape format, as browsers export them): a crawl behind your login",
    )
}

fn resolve() -> Arg {
    value(
        "resolve",
        "HOST:ADDR",
        "connect to ADDR (IP or IP:PORT) for HOST (* for every host), as curl's --resolve: a copy \
         of a site served elsewhere under its own name; repeatable",
    )
}

fn threshold() -> Arg {
    value("threshold", "T", "the similarity threshold θ, in [0, 1]")
}

/// The whole grammar. `usage` is the overview `exemplar --help` prints.
pub fn command(usage: &'static str) -> Command {
    Command::new("exemplar")
        .about("Crawlers generated from one example page")
        .version(env!("CARGO_PKG_VERSION"))
        .override_help(usage)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .disable_help_subcommand(false)
        .subcommand(
            Command::new("learn")
                .about("map a site from its entry page and learn a crawler from an example page")
                .arg(value("entry", "URL", "the site's entry page"))
                .arg(value("example", "URL", "a page of the kind to collect"))
                .arg(value(
                    "example-data",
                    "BODY",
                    "the example is the answer to a form's POST of BODY (name=value&…) to --example; fields BODY leaves out keep the entry page's form values",
                ))
                .args(out_file("write the pattern to FILE (default pattern.json)"))
                .arg(switch_arg(
                    "no-fields",
                    "do not induce the target pages' data fields (a sample of the targets is fetched again for them)",
                ))
                .arg(value(
                    "map",
                    "FILE",
                    "keep the site map in FILE (for relearn)",
                ))
                .arg(value(
                    "max-pages",
                    "N",
                    "fetch at most N pages (default 10000)",
                ))
                .arg(value(
                    "max-depth",
                    "N",
                    "follow links at most N deep (default 10)",
                ))
                .arg(value("max-seconds", "S", "stop mapping after S seconds"))
                .arg(threshold())
                .args(politeness())
                .arg(switch_arg(
                    "include-subdomains",
                    "take the site's subdomains as the site",
                ))
                .arg(switch_arg(
                    "no-forms",
                    "do not fill and submit the site's forms",
                ))
                .arg(switch_arg(
                    "no-target-links",
                    "do not visit what only target pages link to",
                ))
                .arg(switch_arg(
                    "no-script-links",
                    "do not read page URLs named in the site's scripts",
                ))
                .arg(switch_arg(
                    "no-defer-barren",
                    "do not fetch last the URL shapes that yield nothing",
                ))
                .arg(switch_arg(
                    "no-sitemaps",
                    "do not read the site's sitemaps (robots.txt's, or at /sitemap.xml)",
                ))
                .arg(max_bytes())
                .arg(cookies())
                .arg(resolve())
                .args(rendering(
                    "never render pages (by default they are when the example's scripts draw what its HTML lacks)",
                ))
                .arg(value("allow", "RE", "only URLs matching RE (repeatable)"))
                .arg(value("deny", "RE", "never URLs matching RE (repeatable)"))
                .arg(switch_arg("quiet", "no progress line"))
                .args(verdicts())
                .args(review())
                .args(state()),
        )
        .subcommand(
            Command::new("relearn")
                .about("learn again from a kept map, with another θ or your verdicts, or edit the fields (no fetching)")
                .arg(positionals("PATTERN", 1, 1, "the pattern to learn again"))
                .arg(value("map", "FILE", "the map learn --map kept (not needed to edit fields alone)"))
                .arg(value(
                    "field",
                    "NAME=SELECTOR",
                    "add the field NAME read by the CSS SELECTOR, or place it there (repeatable)",
                ))
                .arg(value(
                    "no-field",
                    "NAME",
                    "leave out the field NAME (repeatable)",
                ))
                .arg(threshold())
                .args(verdicts())
                .args(review())
                .args(out_file(
                    "write the pattern to FILE (default: over PATTERN)",
                )),
        )
        .subcommand(
            Command::new("crawl")
                .about("crawl with a learned pattern and export the pages")
                .arg(positionals("PATTERN", 1, 1, "the pattern to crawl with"))
                .arg(value("jsonl", "FILE", "write the pages as JSON Lines"))
                .arg(switch_arg(
                    "html",
                    "with each page's HTML in the JSON Lines",
                ))
                .arg(value("csv", "FILE", "write the pages as CSV"))
                .arg(value("warc", "FILE", "write the responses as WARC"))
                .arg(switch_arg(
                    "verify",
                    "keep only the pages similar to the example",
                ))
                .arg(switch_arg(
                    "verify-new",
                    "verify only the pages new since the pattern was learned",
                ))
                .arg(switch_arg(
                    "no-sitemaps",
                    "do not read the site's sitemaps (robots.txt's, or at /sitemap.xml)",
                ))
                .arg(value(
                    "queries",
                    "FILE",
                    "the queries for the pattern's search forms",
                ))
                .arg(value(
                    "policy",
                    "POLICY",
                    "how to choose queries: adaptive, generic-frequency, thesis, random, values",
                ))
                .arg(value("budget", "N", "at most N queries per search form"))
                .arg(value(
                    "result-pages",
                    "N",
                    "at most N result pages per query",
                ))
                .arg(value("max-pages", "N", "fetch at most N pages"))
                .arg(max_bytes())
                .arg(cookies())
                .arg(resolve())
                .args(rendering(
                    "never render pages (by default they are when the pattern says the site's scripts draw them)",
                ))
                .args(politeness())
                .arg(switch_arg("quiet", "no progress line"))
                .args(state())
                .arg(value(
                    "since",
                    "EARLIER.jsonl",
                    "pages new, changed and gone since an earlier --jsonl",
                ))
                .arg(switch_arg(
                    "changes-only",
                    "with --since: export only new and changed pages",
                )),
        )
        .subcommand(
            Command::new("export-scrapy")
                .about("write a Scrapy project that crawls with the pattern")
                .arg(positionals(
                    "PATTERN DIR",
                    2,
                    2,
                    "the pattern, and the project's directory",
                )),
        )
        .subcommand(
            Command::new("serve")
                .about("serve a directory over HTTP on 127.0.0.1")
                .arg(positionals("DIR", 1, 1, "the directory to serve"))
                .arg(value("port", "N", "the port (default 8000)"))
                .arg(value(
                    "latency-ms",
                    "MS|MIN-MAX",
                    "delay each answer, as a remote site's (a range is drawn log-uniformly)",
                )),
        )
        .subcommand(
            Command::new("classify")
                .about("tell index pages from entity pages")
                .arg(positionals(
                    "FILE|URL",
                    1,
                    usize::MAX,
                    "pages: files or http(s) URLs",
                )),
        )
        .subcommand(
            Command::new("detect")
                .about("find a site's item pages (its entity sections) in a few fetches")
                .arg(positionals(
                    "URL",
                    1,
                    usize::MAX,
                    "a page of each site: its home page, a listing or an item",
                ))
                .arg(value(
                    "max-fetches",
                    "N",
                    "pages fetched per site at most (default 10)",
                ))
                .arg(switch_arg("json", "one JSON object a line, one per site"))
                .arg(switch_arg(
                    "baseline",
                    "the source document's Portuguese word list as the link prioritiser",
                ))
                .arg(switch_arg(
                    "breadth-first",
                    "visit in breadth-first order (a baseline)",
                ))
                .arg(cookies())
                .arg(resolve())
                .args(politeness()),
        )
        .subcommand(
            Command::new("discover")
                .about("find more sites like the seed pages")
                .arg(value(
                    "seeds",
                    "FILE",
                    "seed pages: a file of URLs, one a line, or a pattern (its example and targets)",
                ))
                .arg(value(
                    "search",
                    "URL_TEMPLATE",
                    "a search engine's results page, {q} standing for the words",
                ))
                .arg(value(
                    "related",
                    "URL_TEMPLATE",
                    "a search engine's page of pages like a page, {url} standing for it",
                ))
                .arg(value(
                    "backlinks",
                    "URL_TEMPLATE",
                    "a backlink provider's page of pages linking a URL, {url} standing for it",
                ))
                .arg(value("budget", "N", "pages fetched at most (default 5000)"))
                .arg(value(
                    "queries",
                    "N",
                    "search and backlink calls at most (default 500)",
                ))
                .arg(value(
                    "operator",
                    "NAME",
                    "use only this operator: keyword, related, forward or backward",
                ))
                .arg(switch_arg("json", "one JSON object a line, one per site, best first"))
                .arg(switch_arg("quiet", "no progress line"))
                .arg(cookies())
                .arg(resolve())
                .args(politeness()),
        )
        .subcommand(
            Command::new("replicas")
                .about("which of these hosts are one site (replicas: www and bare, mirrors)")
                .arg(positionals(
                    "HOST|URL",
                    1,
                    usize::MAX,
                    "hosts (docs.example.org, 127.0.0.1:8001) or start pages (a mirror's prefix)",
                ))
                .arg(switch_arg(
                    "active",
                    "ask each candidate pair's pages on the other host (a few probes a pair)",
                ))
                .arg(switch_arg("json", "one JSON object a line, one per pair, best first"))
                .arg(value("probes", "N", "probes a pair at most with --active (default 6)"))
                .arg(value(
                    "sample",
                    "N",
                    "pages a host is sampled to when fewer were seen (default 30)",
                ))
                .arg(value(
                    "seen",
                    "FILE",
                    "hosts' pages seen before (JSON Lines, as --save-seen writes)",
                ))
                .arg(value("save-seen", "FILE", "write the hosts' pages seen to FILE"))
                .arg(cookies())
                .arg(resolve())
                .args(politeness()),
        )
        .subcommand(
            Command::new("similarity")
                .about("the structural similarity of two pages")
                .arg(positionals("A B", 2, 2, "two pages: files or http(s) URLs"))
                .arg(threshold()),
        )
        .subcommand(
            Command::new("demo")
                .about("learn, crawl and score on a local site (the bundled demo site)")
                .arg(positionals("DIR", 1, 1, "the site's directory"))
                .arg(value(
                    "entry",
                    "FILE",
                    "the entry page (default index.html)",
                ))
                .arg(value("example", "FILE", "the example page")),
        )
        .subcommand(
            Command::new("outline")
                .hide(true)
                .about("the view of a page's tree that RTDM compares")
                .arg(positionals("FILE", 1, 1, "a page file")),
        )
}

/// `--name=value` as `--name value`, so that the commands' readers see one form.
pub fn split_equals(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut rest = false;
    for a in args {
        if rest {
            out.push(a);
            continue;
        }
        if a == "--" {
            rest = true;
        }
        match a.split_once('=') {
            Some((name, v)) if name.starts_with("--") && name.len() > 2 => {
                out.push(name.to_string());
                out.push(v.to_string());
            }
            _ => out.push(a),
        }
    }
    out
}

/// Whether `--name` is one of the grammar's switches (flags without a value), in any command.
fn is_switch(name: &str) -> bool {
    static SWITCHES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SWITCHES
        .get_or_init(|| {
            command("")
                .get_subcommands()
                .flat_map(|c| c.get_arguments())
                .filter(|a| a.get_long().is_some() && !a.get_action().takes_values())
                .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                .collect()
        })
        .iter()
        .any(|s| s == name)
}

/// The value after `--name`, if present (the first, when given twice).
pub fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// Every value of a repeatable flag.
pub fn flags<'a>(args: &'a [String], name: &str) -> Vec<&'a str> {
    args.windows(2)
        .filter(|w| w[0] == name)
        .map(|w| w[1].as_str())
        .collect()
}

/// Whether a switch is present.
pub fn switch(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

/// Positional arguments (not flags or flag values).
pub fn positional(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if a.starts_with("--") || a == "-o" {
            skip = !is_switch(a);
        } else {
            out.push(a.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<(), clap::Error> {
        let mut all = vec!["exemplar".to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        command("usage")
            .try_get_matches_from(split_equals(all))
            .map(|_| ())
    }

    #[test]
    fn the_grammar_is_consistent() {
        command("usage").debug_assert();
    }

    #[test]
    fn unknown_flags_and_missing_values_are_usage_errors() {
        for bad in [
            &["learn", "--entry", "a", "--example", "b", "--no-such-flag"][..],
            &["crawl", "p.json", "--jsonl"],
            &["crawl", "a.json", "b.json"],
            &["similarity", "a", "b", "c"],
            &["nonsense"],
            &[],
        ] {
            let e = parse(bad).expect_err(&format!("{bad:?}"));
            assert_eq!(e.exit_code(), 2, "{bad:?}: {e}");
        }
        parse(&[
            "learn",
            "--entry",
            "a",
            "--example=b",
            "-o",
            "p.json",
            "--quiet",
        ])
        .expect("learn");
        parse(&[
            "crawl", "p.json", "--jsonl", "x", "--html", "--policy", "random",
        ])
        .expect("crawl");
        parse(&["classify", "a", "b", "c"]).expect("classify");
        parse(&[
            "relearn",
            "p.json",
            "--map",
            "m.json",
            "--threshold",
            "-0.1",
        ])
        .expect("a value");
    }

    #[test]
    fn switches_come_from_the_grammar() {
        assert!(is_switch("--html") && is_switch("--no-forms") && is_switch("--changes-only"));
        assert!(!is_switch("--jsonl") && !is_switch("--entry") && !is_switch("--nope"));
        let args: Vec<String> = ["p.json", "--no-forms", "x.json", "--jsonl", "out", "y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(positional(&args), ["p.json", "x.json", "y"]);
    }
}
