//! `exemplar discover`: more sites like the seeds ([`exemplar_core::discover`]), one JSON object
//! a line per site found, best first (`{"site", "score", "entry", "examples"}`), or a readable
//! list; its progress and a summary of the run on stderr. Ctrl-C ends the search with what it
//! found so far.
use exemplar_core::discover::{DiscoverConfig, MAX_SEEDS, Operator, Policy, seeds_of_pattern};
use exemplar_core::fetch::Politeness;
use exemplar_core::pattern::Pattern;
use exemplar_native::run;

use super::commands::{client_config, parse, politeness};
use super::{USAGE, flag, switch};

/// The seeds a `--seeds` file gives: a pattern's ([`seeds_of_pattern`]), or its URLs, one a
/// line (`#` comments and blank lines skipped), at most [`MAX_SEEDS`].
///
/// # Errors
/// An unreadable file, or one that gives no URL.
pub fn read_seeds(path: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut seeds: Vec<String> = if text.trim_start().starts_with('{') {
        let pattern = Pattern::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
        seeds_of_pattern(&pattern)
    } else {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    seeds.truncate(MAX_SEEDS);
    if seeds.is_empty() {
        return Err(format!("{path}: no seed URL"));
    }
    Ok(seeds)
}

pub fn discover(args: &[String]) -> Result<(), String> {
    let path = flag(args, "--seeds").ok_or(format!("discover needs --seeds FILE\n{USAGE}"))?;
    let seeds = read_seeds(path)?;
    let policy = match flag(args, "--operator") {
        None => Policy::Bandit,
        Some(name) => Policy::Only(Operator::ALL.into_iter().find(|o| o.name() == name).ok_or(
            format!("--operator {name}: keyword, related, forward or backward\n{USAGE}"),
        )?),
    };
    let mut config = DiscoverConfig {
        search: flag(args, "--search").map(str::to_string),
        related: flag(args, "--related").map(str::to_string),
        backlinks: flag(args, "--backlinks").map(str::to_string),
        politeness: politeness(args, Politeness::default())?,
        policy,
        ..DiscoverConfig::default()
    };
    config.detect.politeness = config.politeness.clone();
    if let Some(n) = parse::<usize>(args, "--budget")? {
        if n == 0 {
            return Err(format!("--budget must be at least 1\n{USAGE}"));
        }
        config.max_fetches = n;
    }
    if let Some(n) = parse::<usize>(args, "--queries")? {
        config.max_queries = n;
    }
    let json = switch(args, "--json");
    let client = client_config(args)?;
    // Ctrl-C stops the search and prints what it found so far (a search is not saved: the
    // same command starts it again).
    super::resume::catch_ctrl_c();
    let mut bar = run::ProgressLine::new(switch(args, "--quiet"));
    let d = run::discover(&seeds, &config, &client, |d| {
        let last = d.sites.last().map_or("", |s| s.site.as_str());
        bar.draw(
            d.fetches,
            &format!(
                "{}, {} refused, {} queries",
                exemplar_core::pattern::count(d.sites.len(), "site"),
                d.refused.len(),
                d.queries
            ),
            last,
        );
        !super::resume::STOP.load(std::sync::atomic::Ordering::SeqCst)
    })?;
    bar.finish();
    if super::resume::STOP.load(std::sync::atomic::Ordering::SeqCst) {
        eprintln!("interrupted: the sites found so far follow");
    }
    for p in &d.problems {
        eprintln!("exemplar: {p}");
    }
    for (i, s) in d.sites.iter().enumerate() {
        if json {
            let line = serde_json::json!({
                "site": s.site,
                "score": (s.score * 1000.0).round() / 1000.0,
                "entry": s.entry,
                "examples": s.examples,
            });
            println!("{line}");
        } else {
            println!(
                "{}. {} (score {:.3}, found by {})\n   entry {}\n   like {}\n   exemplar learn --entry {} --example {}",
                i + 1,
                s.site,
                s.score,
                s.found_by.name(),
                s.entry,
                s.examples.first().map_or("", String::as_str),
                s.entry,
                s.examples.first().map_or("", String::as_str),
            );
        }
    }
    let mut rounds: Vec<String> = Vec::new();
    for op in Operator::ALL {
        let n = d.rounds.iter().filter(|r| r.operator == op).count();
        if n > 0 {
            rounds.push(format!("{} {n}", op.name()));
        }
    }
    eprintln!("seed sites (never listed): {}", d.seed_sites.join(" "));
    for r in &d.replicas {
        eprintln!("left out, a copy of {}: {}", r.of, r.site);
    }
    eprintln!(
        "{} found, {} refused, from {} seed site(s); {} pages fetched, {} queries; rounds: {}",
        exemplar_core::pattern::count(d.sites.len(), "site"),
        d.refused.len(),
        d.seed_sites.len(),
        d.fetches,
        d.queries,
        if rounds.is_empty() {
            "none".to_string()
        } else {
            rounds.join(", ")
        }
    );
    if d.fetches == 0 && d.sites.is_empty() && !d.problems.is_empty() {
        return Err("no seed page could be read".into());
    }
    Ok(())
}
