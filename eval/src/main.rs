//! `exemplar-eval`: the lab's command line. It measures Exemplar on the development, further
//! and held-out sites and writes the reports in `docs/reports/`; it trains the page-kind model.
//! `./build.sh eval`, `eval-similarity`, `eval-forms`, `eval-replicas`, `train-classifier` and
//! `bench-crawl` run it.
//!
//! Subcommands: `eval`, `bench-crawl`, `eval-similarity`, `eval-forms`, `train-classifier`,
//! `eval-detect`, `eval-fields`, `eval-replicas` (site replicas against the baselines, then the DUST rules; or the replica data's
//! summary), `eval-discover` (the local web of domain discovery), and
//! `serve` (the product's static server, which `bench-crawl` starts in a process of its own).
//! Exit codes: 0 success, 1 failure (a bar not met included), 2 usage error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use exemplar_testkit::devsites;

mod bench_crawl;
mod eval_forms;

const USAGE: &str = "usage:
  exemplar-eval eval [--sites dev-sites.toml] [--train-sites train-sites.toml] [--heldout-sites heldout-sites.toml]
                [--out docs/reports/crawl.md] [--only NAME|real]
  exemplar-eval bench-crawl [--site NAME] [--runs N]   (the median of N runs per row, default 3)
  exemplar-eval eval-similarity [--sites dev-sites.toml] [--train-sites train-sites.toml] [--grid] [--out docs/reports/similarity.md]
  exemplar-eval eval-forms --search URL --documents N [--example URL] [--prefix /pg/]
                 [--queries 200] [--pages 10] [--out docs/reports/forms.md] [--svg docs/reports/forms-coverage.svg]
  exemplar-eval train-classifier [--sites dev-sites.toml] [--train-sites train-sites.toml] [--select [--from-former | --nested]] [--model data/classifier.json] [--report docs/reports/classifier.md]
  exemplar-eval web-classifier [--sites dev-sites.toml] [--train-sites train-sites.toml] [--report docs/reports/classifier-web.md] [--grid]
  exemplar-eval eval-detect [--sites dev-sites.toml] [--out docs/reports/detect.md]
  exemplar-eval eval-fields [--out docs/reports/fields.md]
  exemplar-eval eval-replicas [--sites eval/replica-sites.toml] [--out docs/reports/replicas.md | --no-report]
                 [--sample N] [--no-active] [--split dev|test] [--misses] [--sample-host NAME]
                 [--no-dust | --dust-only]
                 (replica detection against the baselines, and the DUST rules on sites served with
                  duplicate-URL habits, the report; --misses: each pair decided against its label;
                  --sample-host: a host's sample; --dust-only: the DUST section alone, printed)
  exemplar-eval eval-replicas [--sites F] --summary | --hosts | --serve PORT
                 (the replica data: hosts, pairs by variation and kind; --hosts: every host, a line each;
                  --serve: every host on 127.0.0.1:PORT by Host)
  exemplar-eval eval-discover [--serve PORT] [--no-search] [--out docs/reports/discover.md]
                 [--discover [--budget N] [--queries N] [--draws N] [--domains a,b,...]
                  [--relevant X] [--probe X] [--structure-weight W] [--markup-weight W]
                  [--baselines [--svg docs/reports/discover-harvest.svg]]]
                 (the local web of eval/web-sites.toml: its sites by domain, links, backlinks and
                  search engine, checked over HTTP; --serve: keep answering on 127.0.0.1:PORT)
  exemplar-eval serve-web --sites a,b,... [--port N] [--index DIR]
                 (those sites of the local web, its backlinks and a search engine over them: the
                  browser tests' small web)
  exemplar-eval serve DIR [--port N] [--latency-ms MS|MIN-MAX]";

/// The flags each subcommand takes: (name, takes a value). Declared once; clap checks them.
const FLAGS: &[(&str, &[(&str, bool)])] = &[
    (
        "eval",
        &[
            ("--sites", true),
            ("--train-sites", true),
            ("--heldout-sites", true),
            ("--out", true),
            ("--only", true),
        ],
    ),
    (
        "bench-crawl",
        &[("--sites", true), ("--site", true), ("--runs", true)],
    ),
    (
        "eval-similarity",
        &[
            ("--sites", true),
            ("--train-sites", true),
            ("--grid", false),
            ("--out", true),
        ],
    ),
    (
        "eval-forms",
        &[
            ("--search", true),
            ("--documents", true),
            ("--example", true),
            ("--prefix", true),
            ("--queries", true),
            ("--pages", true),
            ("--out", true),
            ("--svg", true),
        ],
    ),
    (
        "train-classifier",
        &[
            ("--sites", true),
            ("--train-sites", true),
            ("--select", false),
            ("--from-former", false),
            ("--nested", false),
            ("--model", true),
            ("--report", true),
        ],
    ),
    (
        "web-classifier",
        &[
            ("--sites", true),
            ("--train-sites", true),
            ("--report", true),
            ("--grid", false),
        ],
    ),
    ("eval-detect", &[("--sites", true), ("--out", true)]),
    ("eval-fields", &[("--out", true)]),
    (
        "eval-replicas",
        &[
            ("--sites", true),
            ("--hosts", false),
            ("--serve", true),
            ("--summary", false),
            ("--out", true),
            ("--no-report", false),
            ("--sample", true),
            ("--no-active", false),
            ("--split", true),
            ("--misses", false),
            ("--sample-host", true),
            ("--no-dust", false),
            ("--dust-only", false),
        ],
    ),
    (
        "serve-web",
        &[("--sites", true), ("--port", true), ("--index", true)],
    ),
    (
        "eval-discover",
        &[
            ("--serve", true),
            ("--no-search", false),
            ("--out", true),
            ("--discover", false),
            ("--budget", true),
            ("--queries", true),
            ("--draws", true),
            ("--domains", true),
            ("--relevant", true),
            ("--probe", true),
            ("--structure-weight", true),
            ("--markup-weight", true),
            ("--baselines", false),
            ("--svg", true),
        ],
    ),
    ("serve", &[("--port", true), ("--latency-ms", true)]),
];

fn main() -> ExitCode {
    // Output piped into `head` and the like: end quietly when the reader goes, as Unix tools do.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if matches!(cmd.as_str(), "-h" | "--help" | "help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let rest = &args[1..];
    let Some(&(name, known)) = FLAGS.iter().find(|(name, _)| name == cmd) else {
        eprintln!("exemplar-eval: unknown command {cmd:?}\n{USAGE}");
        return ExitCode::from(2);
    };
    if let Err(e) = check_flags(name, rest, known) {
        eprintln!("exemplar-eval: {e}\n{USAGE}");
        return ExitCode::from(2);
    }
    let result = match cmd.as_str() {
        "eval" => bench_crawl::eval(rest),
        "bench-crawl" => bench_crawl::bench_crawl(rest),
        "eval-similarity" => eval_similarity(rest),
        "eval-forms" => eval_forms::eval_forms(rest),
        "train-classifier" => train_classifier(rest),
        "web-classifier" => web_classifier(rest),
        "eval-detect" => eval_detect(rest),
        "eval-fields" => {
            let out = flag(rest, "--out").unwrap_or("docs/reports/fields.md");
            exemplar_eval::fields_eval::run(Path::new(out))
        }
        "eval-replicas" => eval_replicas(rest),
        "eval-discover" => exemplar_eval::discover_eval::run(rest),
        "serve-web" => exemplar_eval::web::serve_cmd::run(rest),
        _ => bench_crawl::serve(rest),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("exemplar-eval: {e}");
            if e.contains("\nusage:") {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Every argument is a known flag, a known flag's value, or (for `serve`) the directory: the
/// subcommand's grammar, from `FLAGS`, checked by clap.
fn check_flags(
    cmd: &'static str,
    args: &[String],
    known: &[(&'static str, bool)],
) -> Result<(), String> {
    let mut grammar = clap::Command::new(cmd)
        .no_binary_name(true)
        .disable_help_flag(true);
    if cmd == "serve" {
        grammar = grammar.arg(clap::Arg::new("DIR").num_args(0..=1));
    }
    for &(flag, takes_value) in known {
        let arg = clap::Arg::new(flag).long(flag.trim_start_matches("--"));
        grammar = grammar.arg(if takes_value {
            arg.num_args(1)
                .allow_hyphen_values(true)
                .action(clap::ArgAction::Append)
        } else {
            arg.action(clap::ArgAction::SetTrue).overrides_with(flag)
        });
    }
    grammar
        .try_get_matches_from(args)
        .map(|_| ())
        .map_err(|e| e.to_string().trim_end().to_string())
}

/// The value after `--name`, if present.
pub(crate) fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

pub(crate) fn sites_path(args: &[String]) -> PathBuf {
    PathBuf::from(flag(args, "--sites").unwrap_or(devsites::DEFAULT_SITES))
}

fn eval_similarity(args: &[String]) -> Result<(), String> {
    let sites = devsites::load(&sites_path(args))?;
    if let Some(missing) = sites.iter().find(|s| !s.available()) {
        return Err(format!(
            "site {} is not installed ({}): run ./build.sh setup",
            missing.name, missing.package
        ));
    }
    let extra = flag(args, "--train-sites").unwrap_or(devsites::TRAIN_SITES);
    let extra = devsites::load(Path::new(extra))?;
    let grid = args.iter().any(|a| a == "--grid");
    let report = if grid {
        exemplar_eval::similarity_eval::grid_report(&sites, &extra)?
    } else {
        exemplar_eval::similarity_eval::similarity_report(&sites, &extra)?
    };
    let default_out = if grid {
        "docs/reports/similarity-grid.md"
    } else {
        "docs/reports/similarity.md"
    };
    let out = flag(args, "--out").unwrap_or(default_out);
    if let Some(dir) = Path::new(out).parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(out, &report).map_err(|e| format!("{out}: {e}"))?;
    println!("{report}\nwritten to {out}");
    Ok(())
}

/// The replica data's summary: sites, hosts, replica pairs by variation, hard negatives by kind
/// (with `--hosts`, every host instead); with `--serve PORT`, then every host on
/// 127.0.0.1:PORT until stopped.
fn eval_replicas(args: &[String]) -> Result<(), String> {
    use exemplar_eval::replicas;
    let path = flag(args, "--sites").unwrap_or(replicas::DEFAULT_SITES);
    let has = |f: &str| args.iter().any(|a| a == f);
    if !has("--hosts") && !has("--serve") && !has("--summary") {
        return exemplar_eval::replica_eval::eval_replicas(args);
    }
    let catalogue = replicas::Catalogue::load(Path::new(path))?;
    if has("--hosts") {
        println!("host\taddr\tsplit\tsite\tvariation\tseed");
        for h in catalogue.hosts() {
            let split = h.site.split.name();
            println!(
                "{}\t{}\t{split}\t{}\t{}\t{}",
                h.host, h.addr, h.site.name, h.variation, h.seed
            );
        }
    } else {
        println!("replica data of {path}\n\n{}", catalogue.summary());
    }
    let Some(port) = flag(args, "--serve") else {
        return Ok(());
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("--serve {port}: not a port\n{USAGE}"))?;
    let server =
        replicas::serve(port, catalogue.hosts()).map_err(|e| format!("port {port}: {e}"))?;
    println!(
        "serving {} hosts on {} (name one in Host: curl -H 'Host: {}' {}/); Ctrl-C stops",
        catalogue.hosts().len(),
        server.url(),
        catalogue.hosts()[0].host,
        server.url()
    );
    loop {
        std::thread::park();
    }
}

fn eval_detect(args: &[String]) -> Result<(), String> {
    let sites = devsites::load(&sites_path(args))?;
    let out = flag(args, "--out").unwrap_or("docs/reports/detect.md");
    exemplar_eval::detect_eval::run(&sites, Path::new(out))
}

fn web_classifier(args: &[String]) -> Result<(), String> {
    let sites = devsites::load(&sites_path(args))?;
    let extra = flag(args, "--train-sites").unwrap_or(devsites::TRAIN_SITES);
    let extra = devsites::load(Path::new(extra))?;
    if args.iter().any(|a| a == "--grid") {
        return exemplar_eval::web_classify::explore(&sites, &extra);
    }
    let report = flag(args, "--report").unwrap_or("docs/reports/classifier-web.md");
    exemplar_eval::web_classify::run(&sites, &extra, Path::new(report))
}

fn train_classifier(args: &[String]) -> Result<(), String> {
    let sites = devsites::load(&sites_path(args))?;
    let extra = flag(args, "--train-sites").unwrap_or(devsites::TRAIN_SITES);
    let extra = devsites::load(Path::new(extra))?;
    if args.iter().any(|a| a == "--select") {
        if args.iter().any(|a| a == "--nested") {
            return exemplar_eval::classify_train::run_nested(&sites, &extra);
        }
        let from_former = args.iter().any(|a| a == "--from-former");
        return exemplar_eval::classify_train::run_selection(&sites, &extra, from_former);
    }
    let model = flag(args, "--model").unwrap_or("data/classifier.json");
    let report = flag(args, "--report").unwrap_or("docs/reports/classifier.md");
    exemplar_eval::web_classify::train_shipped(&sites, &extra, Path::new(model), Path::new(report))
}
