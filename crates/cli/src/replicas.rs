//! `exemplar replicas`: which of the hosts given are one site ([`exemplar_core::replica`]).
//!
//! Each host is named by its name (`docs.example.org`, `127.0.0.1:8001`: its root over https,
//! or http for an address or a port) or by a start page (a mirror under a prefix). What was seen
//! of them before (`--seen FILE`, JSON Lines of hosts with their pages, as `--save-seen` writes)
//! counts; a host seen on too few pages is sampled first. Without `--active` the pairs are
//! ranked by the pages seen; with it, each candidate pair is also probed (at most `--probes`
//! pages a pair). Output: one line a pair, best first; `--json`: one object a line.

use std::io::{BufRead, Write};

use exemplar_core::pattern::count;
use exemplar_core::replica::check::{self, CheckConfig, Checker, Verdict};
use exemplar_core::replica::{HostPages, rank};
use exemplar_native::http;
use serde::Serialize;

use super::commands::{client_config, parse, politeness};
use super::{USAGE, flag, flags, positional, switch};
use exemplar_core::fetch::Politeness;

/// Up to this many hosts, every pair is probed with `--active`.
const PROBE_ALL_UP_TO: usize = 10;

/// A pair as `--json` writes it.
#[derive(Serialize)]
struct Line<'a> {
    a: &'a str,
    b: &'a str,
    p: f64,
    replica: bool,
    mapping: Mapping<'a>,
    evidence: &'a exemplar_core::replica::Evidence,
    redirect: bool,
    probes: usize,
}

#[derive(Serialize)]
struct Mapping<'a> {
    from: &'a str,
    to: &'a str,
}

/// The start page of a host argument: a URL as given; a bare name over https, an address or a
/// name with a port over http (a local server).
fn start_of(arg: &str) -> Result<String, String> {
    if arg.starts_with("http://") || arg.starts_with("https://") {
        return Ok(arg.to_string());
    }
    if arg.is_empty() || arg.contains(['/', ' ', '?', '#']) {
        return Err(format!(
            "{arg:?}: give a host name or an http(s) URL\n{USAGE}"
        ));
    }
    let local = arg.contains(':')
        || arg
            .split('.')
            .all(|l| l.chars().all(|c| c.is_ascii_digit()));
    Ok(format!("{}://{arg}/", if local { "http" } else { "https" }))
}

/// Hosts of a `--seen` file: JSON Lines of [`HostPages`].
fn read_seen(path: &str) -> Result<Vec<HostPages>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("--seen {path}: {e}"))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| format!("--seen {path}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let h: HostPages = serde_json::from_str(&line)
            .map_err(|e| format!("--seen {path}, line {}: {e}", i + 1))?;
        out.push(h);
    }
    Ok(out)
}

pub fn replicas(args: &[String]) -> Result<(), String> {
    let named = positional(args);
    if named.len() < 2 {
        return Err(format!("replicas needs at least two hosts\n{USAGE}"));
    }
    let mut starts = Vec::new();
    let mut hosts: Vec<HostPages> = Vec::new();
    for arg in &named {
        let start = start_of(arg)?;
        let host = check::host_port(&start).ok_or(format!("{arg}: no host in it\n{USAGE}"))?;
        if hosts.iter().any(|h| h.host == host) {
            return Err(format!("{host} is named twice\n{USAGE}"));
        }
        hosts.push(HostPages {
            host,
            ..HostPages::default()
        });
        starts.push(start);
    }
    let mut seen = Vec::new();
    for path in flags(args, "--seen") {
        seen.extend(read_seen(path)?);
    }
    for s in check::merge_hosts(seen) {
        if let Some(h) = hosts
            .iter_mut()
            .find(|h| h.host.eq_ignore_ascii_case(&s.host))
        {
            h.pages = s.pages;
            h.addr = s.addr;
        }
    }
    let active = switch(args, "--active");
    let mut config = CheckConfig {
        politeness: politeness(args, Politeness::default())?,
        ..CheckConfig::default()
    };
    if let Some(n) = parse::<usize>(args, "--probes")? {
        if !(1..=50).contains(&n) {
            return Err(format!("--probes {n}: give 1 to 50\n{USAGE}"));
        }
        config.probes = n;
    }
    if let Some(n) = parse::<usize>(args, "--sample")? {
        if !(1..=10_000).contains(&n) {
            return Err(format!("--sample {n}: give 1 to 10000\n{USAGE}"));
        }
        config.sample = n;
    }
    if !active {
        config.probes = 0;
    }
    // A few hosts named together are pairs the user asks about: each is probed, whatever its
    // samples share; among many, only pairs that share something seen.
    config.probe_unrelated = hosts.len() <= PROBE_ALL_UP_TO;
    let n = hosts.len();
    let mut checker = Checker::new(hosts, starts, check::all_pairs(n), config)?;
    let client = http::Client::new(&client_config(args)?);
    http::run(&mut checker, &client, 2, |_| true);
    let hosts = checker.hosts().to_vec();
    if let Some(path) = flag(args, "--save-seen") {
        let mut w = std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("--save-seen {path}: {e}"))?,
        );
        for h in &hosts {
            let line = serde_json::to_string(h).map_err(|e| e.to_string())?;
            writeln!(w, "{line}").map_err(|e| format!("--save-seen {path}: {e}"))?;
        }
        w.flush().map_err(|e| format!("--save-seen {path}: {e}"))?;
    }
    let mut verdicts: Vec<Verdict> = checker.verdicts();
    // Pairs no candidate filter keeps and no redirect joins are not listed.
    let ranked = rank(&hosts);
    verdicts.retain(|v| v.redirect || ranked.iter().any(|r| (r.a, r.b) == (v.a, v.b)));
    verdicts.sort_by(|x, y| y.p.total_cmp(&x.p).then((x.a, x.b).cmp(&(y.a, y.b))));
    let unseen: Vec<&str> = hosts
        .iter()
        .filter(|h| h.pages.is_empty())
        .map(|h| h.host.as_str())
        .collect();
    if !unseen.is_empty() {
        eprintln!(
            "no page of {} answered: {}",
            count(unseen.len(), "host"),
            unseen.join(", ")
        );
    }
    let json = switch(args, "--json");
    for v in &verdicts {
        let (a, b) = (hosts[v.a].host.as_str(), hosts[v.b].host.as_str());
        if json {
            let line = Line {
                a,
                b,
                p: (v.p * 1000.0).round() / 1000.0,
                replica: v.replica,
                mapping: Mapping {
                    from: &v.mapping.from,
                    to: &v.mapping.to,
                },
                evidence: &v.evidence,
                redirect: v.redirect,
                probes: v.probes,
            };
            println!(
                "{}",
                serde_json::to_string(&line).map_err(|e| e.to_string())?
            );
            continue;
        }
        let e = &v.evidence;
        let why = if v.redirect {
            "one redirects to the other".to_string()
        } else {
            format!(
                "{} agree, {} disagree{}",
                count(e.agreeing(), "page"),
                e.disagreeing(),
                if v.probes > 0 {
                    format!(
                        "; {} asked, {} not found",
                        count(v.probes, "probe"),
                        v.absent
                    )
                } else {
                    String::new()
                }
            )
        };
        if v.replica {
            println!(
                "{:.3}  {a}  {b}  one site: {} ({why})",
                v.p,
                v.mapping.describe()
            );
        } else {
            println!("{:.3}  {a}  {b}  not shown to be one site ({why})", v.p);
        }
    }
    if verdicts.is_empty() {
        println!("no two of these hosts share a page");
    }
    Ok(())
}
