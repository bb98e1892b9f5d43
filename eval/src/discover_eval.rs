//! `exemplar-eval eval-discover`: the local web of domain discovery (issue 58), built and
//! described: its sites by domain with their ground truth counted on the served files, the links
//! across them, the backlink service and the search engine; `--serve PORT` keeps it answering.
//!
//! Contract: every available site's entry page and example page are fetched over HTTP from the
//! started server under their own host; a failure of either, an example its site's rule does not
//! label, or no site available is an error.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use exemplar_native::serve::Server;

use crate::web::backlinks::Backlinks;
use crate::web::search::Omega;
use crate::web::sites::NO_DOMAIN;
use crate::web::{BACKLINKS_HOST, LocalWeb, SEARCH_HOST};

/// What a run found.
#[derive(Debug, Default)]
pub struct Census {
    /// Per domain: sites, pages, entity pages.
    pub domains: BTreeMap<String, (usize, usize, usize)>,
    /// Sites whose entry page is there.
    pub available: usize,
    /// Sites of the list.
    pub listed: usize,
}

/// Run the command (`args` after the subcommand).
///
/// # Errors
/// Nothing to serve, a site that does not answer, a failing search engine.
pub fn run(args: &[String]) -> Result<(), String> {
    let flag = |f: &str| args.windows(2).find(|w| w[0] == f).map(|w| w[1].as_str());
    let has = |f: &str| args.iter().any(|a| a == f);
    let mut web = LocalWeb::load_default()?;
    let started = Instant::now();
    let mut census = Census {
        listed: web.sites.len(),
        ..Census::default()
    };
    let mut per_site = vec![(0usize, 0usize); web.sites.len()];
    // Each site's seed page: its example when the site's rule labels it, else its first
    // labelled page (a few examples of the survey are a section's index).
    let mut seed_pages: Vec<Option<String>> = vec![None; web.sites.len()];
    let backlinks = Backlinks::build(&web, |s, rel, bytes| {
        per_site[s].0 += 1;
        let target = web.sites[s].is_target(rel, bytes);
        per_site[s].1 += usize::from(target);
        if target && (seed_pages[s].is_none() || rel == web.sites[s].example) {
            seed_pages[s] = Some(rel.to_string());
        }
    });
    let read_s = started.elapsed().as_secs_f64();
    for (s, site) in web.sites.iter().enumerate() {
        if !web.available(s) {
            continue;
        }
        census.available += 1;
        let d = census.domains.entry(site.domain.clone()).or_default();
        d.0 += 1;
        d.1 += per_site[s].0;
        d.2 += per_site[s].1;
    }
    if census.available == 0 {
        return Err("no site of the local web is there: run ./build.sh eval-discover".into());
    }
    let omega = if has("--no-search") {
        None
    } else {
        let dir = Path::new(crate::web::WEB_ROOT).join("../omega");
        let t = Instant::now();
        let o = Omega::index(&web, &dir, |s| eprintln!("    indexed {s}"))?;
        eprintln!(
            "    Omega: {} documents ({:.0} s)",
            o.documents,
            t.elapsed().as_secs_f64()
        );
        Some(o)
    };
    if let Some(o) = &omega {
        web.add_service(SEARCH_HOST, o.service());
    }
    let backlinks = Arc::new(backlinks);
    web.add_service(BACKLINKS_HOST, Arc::clone(&backlinks).service());
    let port: u16 = match flag("--serve") {
        Some(p) => p.parse().map_err(|_| format!("--serve {p}: not a port"))?,
        None => 0,
    };
    let web = Arc::new(web);
    let handler = Arc::clone(&web);
    // Every host of the local web is a keep-alive connection of its own in a client's pool.
    let server = Server::start_with(port, 2048, move |req| handler.respond(req))
        .map_err(|e| format!("port {port}: {e}"))?;
    check_sites(&web, &per_site, server.addr())?;

    let mut out = String::new();
    let _ = writeln!(
        out,
        "local web: {} of {} sites there, read in {read_s:.0} s",
        census.available, census.listed
    );
    let _ = writeln!(
        out,
        "\n| domain | sites | pages | entity pages |\n|---|---:|---:|---:|"
    );
    for (d, (sites, pages, targets)) in &census.domains {
        let targets = if d == NO_DOMAIN {
            "—".to_string()
        } else {
            targets.to_string()
        };
        let _ = writeln!(out, "| {d} | {sites} | {pages} | {targets} |");
    }
    let _ = writeln!(
        out,
        "\nlinks across sites: {} site pairs, from {} pages; backlinks at http://{BACKLINKS_HOST}/links?url=URL ({} a call)",
        backlinks.site_edges(&web),
        backlinks.sources(),
        crate::web::backlinks::PER_CALL
    );
    if let Some(o) = &omega {
        let _ = writeln!(
            out,
            "search: Omega over {} documents at http://{SEARCH_HOST}/?P=WORDS",
            o.documents
        );
    }
    if has("--discover") {
        out.push_str(&discover_runs(
            &web,
            &per_site,
            &seed_pages,
            server.addr(),
            args,
        )?);
    }
    print!("{out}");
    if let Some(path) = flag("--out") {
        let report = format!(
            "# Discovery on the local web\n\nPrinted by `./build.sh eval-discover` (`exemplar-eval eval-discover \
             {}`); the local web: `docs/local-web.md`.\n\n{}",
            args.join(" "),
            out.replace(&format!(", read in {read_s:.0} s"), "")
        );
        std::fs::write(path, report).map_err(|e| format!("{path}: {e}"))?;
    }
    if flag("--serve").is_some() {
        println!(
            "serving on {} — exemplar ... --resolve '*:{}'; Ctrl-C stops",
            server.url(),
            server.addr()
        );
        loop {
            std::thread::park();
        }
    }
    Ok(())
}

/// Discovery from three seed sites of each domain asked for, `--draws` times each.
fn discover_runs(
    web: &LocalWeb,
    per_site: &[(usize, usize)],
    seed_pages: &[Option<String>],
    addr: std::net::SocketAddr,
    args: &[String],
) -> Result<String, String> {
    use crate::discover_baselines as db;
    use crate::discover_runs as dr;
    use exemplar_core::discover::Policy;
    let flag = |f: &str| args.windows(2).find(|w| w[0] == f).map(|w| w[1].as_str());
    let num = |f: &str, d: usize| -> Result<usize, String> {
        flag(f).map_or(Ok(d), |v| {
            v.parse().map_err(|_| format!("{f} {v}: not a number"))
        })
    };
    let real = |f: &str, d: f64| -> Result<f64, String> {
        flag(f).map_or(Ok(d), |v| {
            v.parse().map_err(|_| format!("{f} {v}: not a number"))
        })
    };
    let d = dr::Tuning::default();
    let tuning = dr::Tuning {
        relevant: real("--relevant", d.relevant)?,
        probe: real("--probe", d.probe)?,
        structure_weight: real("--structure-weight", d.structure_weight)?,
        markup_weight: real("--markup-weight", d.markup_weight)?,
    };
    let budget = num("--budget", 5000)?;
    let queries = num("--queries", 200)?;
    let draws = num("--draws", 3)? as u64;
    let domains: Vec<String> = flag("--domains")
        .unwrap_or("java-class,python-module,haskell-module,cpp-class,c-ref,c-type")
        .split(',')
        .map(str::to_string)
        .collect();
    let baselines = args.iter().any(|a| a == "--baselines");
    let mut runs = Vec::new();
    let mut all = Vec::new();
    let mut rankings = Vec::new();
    for domain in &domains {
        let candidates = dr::seedable(web, per_site, domain);
        if candidates.len() < 4 {
            return Err(format!(
                "{domain}: {} sites can seed, 4 are needed",
                candidates.len()
            ));
        }
        for draw in 1..=draws {
            let seeds = dr::draw_sites(&candidates, draw);
            let urls: Vec<String> = seeds
                .iter()
                .filter_map(|&s| seed_pages[s].as_ref().map(|rel| web.sites[s].url_of(rel)))
                .collect();
            let policies = if baselines {
                db::policies(draw)
            } else {
                vec![("bandit".to_string(), Policy::Bandit)]
            };
            let mut draw_runs = Vec::new();
            for (name, policy) in policies {
                let t = Instant::now();
                let d = dr::run_tuned(addr, &urls, policy, budget, queries, &tuning)?;
                let scored = dr::score(web, domain, draw, &seeds, &d);
                eprintln!(
                    "    {domain} draw {draw} {name}: {} sites listed, P@17 {:.3}, coverage {:.3} ({:.0} s)",
                    scored.right.len(),
                    scored.precision_at(17),
                    scored.coverage,
                    t.elapsed().as_secs_f64()
                );
                if policy == Policy::Bandit {
                    runs.push(scored);
                    if baselines {
                        let t = Instant::now();
                        let r = db::compare_ranking(web, domain, draw, &seeds, &urls, &d);
                        eprintln!(
                            "    {domain} draw {draw}: DWDBRM ranked {} candidates, P@17 {:.3} (ours {:.3}) ({:.0} s)",
                            r.candidates,
                            db::p_at(&r.dwdbrm, 17),
                            db::p_at(&r.ours, 17),
                            t.elapsed().as_secs_f64()
                        );
                        rankings.push(r);
                    }
                }
                if baselines {
                    draw_runs.push(db::score_run(web, domain, draw, &seeds, &name, &d));
                }
            }
            if baselines {
                all.push(db::DrawRuns {
                    domain: domain.clone(),
                    draw,
                    runs: draw_runs,
                });
            }
        }
    }
    let mut out = format!(
        "\n## Discovery (the bandit, budget {budget} fetches, {queries} queries)\n\nScoring: relevant from {}, probe from {}, structure {}, markup {}, words the rest.\n\n{}",
        tuning.relevant,
        tuning.probe,
        tuning.structure_weight,
        tuning.markup_weight,
        dr::table(&runs)
    );
    if baselines {
        let svg = flag("--svg");
        if let Some(path) = svg {
            std::fs::write(path, db::svg_chart(&all, budget))
                .map_err(|e| format!("{path}: {e}"))?;
        }
        // The report links the chart beside it by its file name.
        let link = svg.map(|p| {
            Path::new(p)
                .file_name()
                .map_or(p.to_string(), |f| f.to_string_lossy().into_owned())
        });
        out.push_str(&db::report(&all, &rankings, budget, link.as_deref()));
    }
    Ok(out)
}

/// Every available site's entry and example page, fetched from the server under its host.
fn check_sites(
    web: &LocalWeb,
    per_site: &[(usize, usize)],
    addr: std::net::SocketAddr,
) -> Result<(), String> {
    let mut failed = Vec::new();
    for (s, site) in web.sites.iter().enumerate() {
        if !web.available(s) {
            continue;
        }
        for rel in [&site.entry, &site.example] {
            let url = site.url_of(rel);
            match get(addr, &url) {
                Ok(200) => {}
                Ok(code) => failed.push(format!("{url}: {code}")),
                Err(e) => failed.push(format!("{url}: {e}")),
            }
        }
        if site.domain != NO_DOMAIN && per_site[s].1 == 0 {
            failed.push(format!("{}: no page labelled {}", site.name, site.domain));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} checks failed:\n  {}",
            failed.len(),
            failed.join("\n  ")
        ))
    }
}

/// The status of a GET of an `http://` URL sent to `addr` (its host in `Host:`).
pub fn get(addr: std::net::SocketAddr, url: &str) -> Result<u16, String> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").ok_or("not http")?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut conn = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut head = [0u8; 12];
    conn.read_exact(&mut head).map_err(|e| e.to_string())?;
    std::str::from_utf8(&head[9..12])
        .ok()
        .and_then(|c| c.parse().ok())
        .ok_or("no status".into())
}
