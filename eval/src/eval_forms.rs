//! `exemplar-eval eval-forms`: the query policies against a real search engine (see
//! [`exemplar_eval::forms_eval`]); `./build.sh eval-forms` sets up Xapian Omega and runs it.

use exemplar_eval::forms_eval::{self, EvalConfig};
use exemplar_eval::forms_learn_eval;

use crate::{USAGE, flag};

fn number(args: &[String], name: &str, default: usize) -> Result<usize, String> {
    match flag(args, name) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| format!("{name}: not a number: {v:?}\n{USAGE}")),
    }
}

/// Runs every policy, prints the table and the bar, writes the report and the chart. A failed
/// bar is printed, not an error: only setup and I/O errors are.
pub fn eval_forms(args: &[String]) -> Result<(), String> {
    let search = flag(args, "--search")
        .ok_or_else(|| format!("eval-forms needs --search URL\n{USAGE}"))?
        .to_string();
    let documents = number(args, "--documents", 0)?;
    if documents == 0 {
        return Err(format!(
            "eval-forms needs --documents N (the engine's document count)\n{USAGE}"
        ));
    }
    let origin = url::Url::parse(&search)
        .map_err(|e| format!("--search {search}: {e}"))?
        .join("/")
        .map_err(|e| format!("--search {search}: {e}"))?;
    let example = match flag(args, "--example") {
        Some(e) => e.to_string(),
        None => origin
            .join("pg/sql-vacuum.html")
            .map_err(|e| e.to_string())?
            .to_string(),
    };
    let max_pages = number(args, "--pages", 10)?;
    let config = EvalConfig {
        search,
        documents,
        example,
        prefix: flag(args, "--prefix").unwrap_or("/pg/").to_string(),
        queries: number(args, "--queries", 200)?,
        max_pages,
        result_cap: max_pages * 10,
    };
    // (a) Learning a crawler through the form, when the documents' directory is given.
    let learned = match flag(args, "--root") {
        Some(root) => Some(forms_learn_eval::learn_and_crawl(
            &config.search,
            &config.example,
            std::path::Path::new(root),
            number(args, "--crawl-budget", 100)?,
            &mut |line| eprintln!("{line}"),
        )?),
        None => None,
    };
    if let Some(l) = &learned {
        println!("{}", l.report());
    }
    // (b) Coverage curves of the query policies.
    let runs = forms_eval::evaluate(&config, &mut |line| eprintln!("{line}"))?;
    println!("{}", forms_eval::table(&runs, documents));
    let out = flag(args, "--out");
    let svg = flag(args, "--svg");
    if let Some(path) = svg {
        let chart = forms_eval::svg_chart(&runs, documents, config.queries);
        std::fs::write(path, chart).map_err(|e| format!("{path}: {e}"))?;
        println!("chart written to {path}");
    }
    if let Some(path) = out {
        let mut report = forms_eval::report(&config, &runs, svg);
        if let Some(l) = &learned {
            report.push_str(&l.report());
        }
        std::fs::write(path, report).map_err(|e| format!("{path}: {e}"))?;
        println!("report written to {path}");
    }
    let mut checks = forms_eval::bar(&runs, documents);
    if let Some(l) = &learned {
        checks.extend(l.bar());
    }
    for (ok, line) in &checks {
        println!("{} {line}", if *ok { "PASS" } else { "FAIL" });
    }
    if checks.iter().all(|(ok, _)| *ok) {
        println!("eval-forms: the bar is met");
    } else {
        println!("eval-forms: the bar is NOT met");
    }
    Ok(())
}
