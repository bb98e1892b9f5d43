//! `exemplar-eval eval-replicas`: site-replica detection (`exemplar_core::replica`) on the
//! replica data ([`crate::replicas`]): each host sampled as a crawl would see it, every pair
//! scored by our ranking and by the document's baselines (NormPaths, the full-path cosine,
//! simhash, PU, NU, PNU), the active check run on the labelled pairs, and the report
//! `docs/reports/replicas.md` written. Settings were chosen on the dev split; the test split's
//! figures are the ones reported as results.
//!
//! Contract: deterministic for a given site list and installed packages (samples follow each
//! host's links breadth-first; distractor pairs are drawn with a fixed seed). The active check
//! is pumped in process against the virtual hosts' pages (the CLI's end-to-end test runs it over
//! HTTP): a probe's answer is what the host serves at that path, a 404 where it serves nothing.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use exemplar_core::fetch::{FetchResponse, FetchResult, Machine, Politeness, Poll, RequestKind};
use exemplar_core::replica::check::{CheckConfig, Checker, path_of};
use exemplar_core::replica::{self, HostPages, baselines};

use crate::replicas::{Catalogue, Split, VirtualHost, mix, unit};

/// Pages a host is sampled to (breadth-first from its entry): what a short crawl sees.
const SAMPLE: usize = 60;

/// Random non-replica pairs added to the negatives of the AUC, a split.
const RANDOM_NEGATIVES: usize = 5_000;

/// The distractor counts of the replica detection rate (the document's Table 4.4).
const RDR_K: [usize; 3] = [10, 100, 1_000];

/// Options of a run.
struct Options {
    sites: PathBuf,
    out: Option<PathBuf>,
    sample: usize,
    active: bool,
    /// Only this split.
    split: Option<String>,
    /// Print every pair decided against its label.
    misses: bool,
    /// Print this host's sample and stop.
    sample_host: Option<String>,
    /// The DUST section ([`crate::dust_eval`]): with the replica figures, alone, or not.
    dust: Dust,
}

/// Whether a run measures the DUST rules too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dust {
    With,
    Only,
    Without,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        sites: PathBuf::from(crate::replicas::DEFAULT_SITES),
        out: Some(exemplar_testkit::root().join("docs/reports/replicas.md")),
        sample: SAMPLE,
        active: true,
        split: None,
        misses: false,
        sample_host: None,
        dust: Dust::With,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--sites" => o.sites = PathBuf::from(value()?),
            "--out" => o.out = Some(PathBuf::from(value()?)),
            "--no-report" => o.out = None,
            "--sample" => {
                o.sample = value()?.parse().map_err(|e| format!("--sample: {e}"))?;
            }
            "--no-active" => o.active = false,
            "--split" => {
                let split = value()?;
                if !Split::ALL.iter().any(|s| s.name() == split) {
                    return Err(format!("--split {split}: dev or test"));
                }
                o.split = Some(split);
            }
            "--misses" => o.misses = true,
            "--sample-host" => o.sample_host = Some(value()?),
            "--no-dust" => o.dust = Dust::Without,
            "--dust-only" => o.dust = Dust::Only,
            other => return Err(format!("eval-replicas: unknown argument {other}")),
        }
    }
    Ok(o)
}

/// What a virtual host answers for `url` as a static server would: its page, a redirect to the
/// directory for a directory named without its slash, else 404.
fn answer(host: &VirtualHost, url: &str, kind: RequestKind) -> FetchResult {
    let path = path_of(url);
    let found = match kind {
        RequestKind::Robots => None,
        _ => host.get(&path).map(|r| (url.to_string(), r)).or_else(|| {
            let (p, q) = path
                .split_once('?')
                .map_or((path.as_str(), ""), |(p, q)| (p, q));
            if p.ends_with('/') {
                return None;
            }
            let dir = if q.is_empty() {
                format!("{p}/")
            } else {
                format!("{p}/?{q}")
            };
            host.get(&dir).map(|r| (host.url(&dir), r))
        }),
    };
    FetchResult::Response(match found {
        Some((final_url, (ctype, body))) => FetchResponse {
            status: 200,
            final_url,
            headers: vec![("content-type".into(), ctype.into())],
            body,
            truncated: false,
        },
        None => FetchResponse {
            status: 404,
            final_url: url.to_string(),
            ..FetchResponse::default()
        },
    })
}

/// Pumps a check in process over `hosts` (each request answered by the virtual host it names);
/// the page requests it made.
fn pump(c: &mut Checker, hosts: &[&VirtualHost]) -> usize {
    let mut fetches = 0;
    for _ in 0..100_000 {
        match c.poll(0) {
            Poll::Done => break,
            Poll::Fetch(r) => {
                let name = exemplar_core::replica::check::host_port(&r.url).unwrap_or_default();
                let result = match hosts.iter().find(|h| h.host == name) {
                    Some(h) => answer(h, &r.url, r.kind),
                    None => FetchResult::Failed("no such host".into()),
                };
                if r.kind != RequestKind::Robots {
                    fetches += 1;
                }
                c.handle(r.id, result, 0);
            }
            Poll::WaitUntil(_) | Poll::Busy => {}
        }
    }
    fetches
}

/// A host sampled as the product samples one ([`Checker`] with no pair): its entry page, then
/// its own links breadth-first (and the page URLs its scripts name where a page links few), up
/// to `n` pages.
pub fn sample(host: &VirtualHost, n: usize) -> HostPages {
    let empty = HostPages {
        host: host.host.clone(),
        addr: Some(host.addr.to_string()),
        pages: Vec::new(),
    };
    let Some(entry) = host.entry() else {
        return empty;
    };
    let config = CheckConfig {
        sample: n,
        politeness: Politeness::unthrottled(1),
        ..CheckConfig::default()
    };
    let Ok(mut c) = Checker::new(vec![empty.clone()], vec![host.url(&entry)], vec![], config)
    else {
        return empty;
    };
    pump(&mut c, &[host]);
    let mut out = c.hosts()[0].clone();
    out.addr = empty.addr;
    out
}

/// Samples every host, on two threads.
fn sample_all(hosts: &[Arc<VirtualHost>], n: usize) -> Vec<HostPages> {
    let half = hosts.len().div_ceil(2);
    std::thread::scope(|s| {
        let parts: Vec<_> = hosts
            .chunks(half.max(1))
            .map(|chunk| s.spawn(move || chunk.iter().map(|h| sample(h, n)).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_default())
            .collect()
    })
}

/// The area under the ROC curve of `pos` against `neg` (ties count half).
pub fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    let mut all: Vec<(f64, bool)> = pos
        .iter()
        .map(|&s| (s, true))
        .chain(neg.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Rank sum of the positives, ties at their mean rank.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j < all.len() && all[j].0 == all[i].0 {
            j += 1;
        }
        let mean = (i + j + 1) as f64 / 2.0;
        rank_sum += mean * all[i..j].iter().filter(|x| x.1).count() as f64;
        i = j;
    }
    let (p, n) = (pos.len() as f64, neg.len() as f64);
    (rank_sum - p * (p + 1.0) / 2.0) / (p * n)
}

/// The true positive rate at the lowest threshold that keeps the false positive rate at most
/// `fpr` (a pair counts when its score is above the threshold).
pub fn tpr_at(pos: &[f64], neg: &[f64], fpr: f64) -> f64 {
    let mut n: Vec<f64> = neg.to_vec();
    n.sort_by(|a, b| b.total_cmp(a));
    let allowed = (fpr * n.len() as f64).floor() as usize;
    // The threshold: the score of the first negative not allowed above it.
    let t = n.get(allowed).copied().unwrap_or(f64::NEG_INFINITY);
    pos.iter().filter(|&&s| s > t).count() as f64 / pos.len().max(1) as f64
}

/// The scores of one method over the pairs of a split.
struct Scored {
    name: &'static str,
    what: &'static str,
    score: Box<dyn Fn(usize, usize) -> f64>,
}

/// One split's figures.
#[derive(Default)]
struct SplitFigures {
    sites: usize,
    hosts: usize,
    pages: usize,
    replica_pairs: usize,
    negatives: BTreeMap<&'static str, usize>,
    random_negatives: usize,
    /// Per method: AUC, TPR at FPR ≤ 0.001, RDR at each k.
    methods: Vec<(&'static str, &'static str, f64, f64, Vec<f64>)>,
    /// Our decision: per variation (replicas found, of), per negative kind (merged, of).
    by_variation: BTreeMap<String, (usize, usize, f64)>,
    merges: BTreeMap<&'static str, (usize, usize)>,
    /// The active check: replicas found, of; negatives merged, of; fetches per pair (mean, max).
    active: Option<ActiveFigures>,
    active_by_variation: BTreeMap<String, (usize, usize)>,
    seconds: f64,
}

#[derive(Default, Clone, Copy)]
struct ActiveFigures {
    found: usize,
    replicas: usize,
    merged: usize,
    negatives: usize,
    fetches: usize,
    max_fetches: usize,
    pairs: usize,
}

/// The active check of one pair, pumped in process: whether it found one site, and the fetches.
fn check_pair(
    a: &HostPages,
    b: &HostPages,
    va: &VirtualHost,
    vb: &VirtualHost,
    misses: bool,
) -> (bool, usize) {
    let starts = vec![va.url("/"), vb.url("/")];
    // The hosts as seen: no sample taken again, every fetch a probe.
    let config = CheckConfig {
        sample: 0,
        probe_unrelated: true,
        politeness: Politeness::unthrottled(1),
        ..CheckConfig::default()
    };
    let Ok(mut c) = Checker::new(vec![a.clone(), b.clone()], starts, vec![(0, 1)], config) else {
        return (false, 0);
    };
    let fetches = pump(&mut c, &[va, vb]);
    let v = c.verdicts();
    if misses
        && let Some(v) = v.first()
        && v.replica != va.replicates(vb)
    {
        eprintln!(
            "ACTIVE {} {} {} {:?}",
            va.host,
            vb.host,
            vb.variation.name(),
            v
        );
    }
    (v.first().is_some_and(|v| v.replica), fetches)
}

fn run_split(cat: &Catalogue, split: Split, o: &Options) -> SplitFigures {
    let started = Instant::now();
    let hosts: Vec<Arc<VirtualHost>> = cat
        .all_hosts(split)
        .into_iter()
        .filter(|h| h.site.available())
        .collect();
    let seen = sample_all(&hosts, o.sample);
    let index: HashMap<&str, usize> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.host.as_str(), i))
        .collect();
    let mut f = SplitFigures {
        sites: hosts
            .iter()
            .map(|h| h.site.name.as_str())
            .collect::<HashSet<_>>()
            .len(),
        hosts: hosts.len(),
        pages: seen.iter().map(|h| h.pages.len()).sum(),
        ..SplitFigures::default()
    };
    // Labelled pairs, then random pairs of hosts of two sites as more negatives.
    let mut pairs: Vec<(usize, usize, bool, &'static str, String)> = Vec::new();
    for p in cat.pairs(split) {
        let (Some(&a), Some(&b)) = (index.get(p.a.host.as_str()), index.get(p.b.host.as_str()))
        else {
            continue;
        };
        let kind = p.kind.name();
        pairs.push((a, b, p.replica, kind, p.b.variation.name()));
        if p.replica {
            f.replica_pairs += 1;
        } else {
            *f.negatives.entry(kind).or_default() += 1;
        }
    }
    let mut k = 0u64;
    while f.random_negatives < RANDOM_NEGATIVES
        && hosts.len() > 1
        && k < 50 * RANDOM_NEGATIVES as u64
    {
        k += 1;
        let a = (unit(mix(k, "a")) * hosts.len() as f64) as usize;
        let b = (unit(mix(k, "b")) * hosts.len() as f64) as usize;
        if a == b || hosts[a].replicates(&hosts[b]) {
            continue;
        }
        pairs.push((a.min(b), a.max(b), false, "random", String::new()));
        f.random_negatives += 1;
    }
    // The distractors of the detection rate: the replica's original against hosts of other
    // sites, drawn once.
    let rdr_sets: Vec<(usize, usize, Vec<usize>)> = pairs
        .iter()
        .filter(|p| p.2)
        .map(|&(a, b, ..)| {
            let mut others: Vec<usize> = (0..hosts.len())
                .filter(|&d| !hosts[d].replicates(&hosts[a]))
                .collect();
            others.sort_by_key(|&d| mix(d as u64, &hosts[a].host));
            others.truncate(*RDR_K.iter().max().unwrap_or(&1000));
            (a, b, others)
        })
        .collect();
    let mut wanted: Vec<(usize, usize)> =
        pairs.iter().map(|p| (p.0.min(p.1), p.0.max(p.1))).collect();
    for (a, _, others) in &rdr_sets {
        wanted.extend(others.iter().map(|&d| ((*a).min(d), (*a).max(d))));
    }
    wanted.sort_unstable();
    wanted.dedup();
    // The document's baselines are trained on the candidate pairs (transductively: no label is
    // read) and the obvious negatives, pairs sharing nothing.
    let candidates = replica::candidates(&seen);
    let cset: HashSet<(usize, usize)> = candidates.iter().copied().collect();
    let mut negatives = Vec::new();
    let mut k = 0u64;
    while negatives.len() < candidates.len().min(20_000) && k < 1_000_000 && hosts.len() > 1 {
        k += 1;
        let a = (unit(mix(k, "na")) * hosts.len() as f64) as usize;
        let b = (unit(mix(k, "nb")) * hosts.len() as f64) as usize;
        let p = (a.min(b), a.max(b));
        if a != b && !cset.contains(&p) {
            negatives.push(p);
        }
    }
    let doc = baselines::document(&seen, &candidates, &negatives, &wanted);
    let normpaths = baselines::normpaths(&seen, &wanted);
    let simhash = baselines::simhash(&seen, &wanted);
    let at: HashMap<(usize, usize), usize> =
        wanted.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let ours: Vec<f64> = wanted
        .iter()
        .map(|&(a, b)| replica::compare_hosts(&seen[a], &seen[b]).score())
        .collect();
    let column = |v: Vec<f64>| -> Box<dyn Fn(usize, usize) -> f64> {
        let at = at.clone();
        Box::new(move |a: usize, b: usize| at.get(&(a.min(b), a.max(b))).map_or(0.0, |&i| v[i]))
    };
    let methods = vec![
        Scored {
            name: "ours",
            what: "pages compared one way under the inferred path mapping",
            score: column(ours),
        },
        Scored {
            name: "PNU",
            what: "the document's best: PU and NU combined by Pareto dominance",
            score: column(doc.pnu),
        },
        Scored {
            name: "PU",
            what: "LAC self-trained from obvious positives (www., TLD)",
            score: column(doc.pu),
        },
        Scored {
            name: "NU",
            what: "LAC self-trained from obvious negatives (nothing shared)",
            score: column(doc.nu),
        },
        Scored {
            name: "NormPaths",
            what: "Σ 1/|L| over shared ⟨path, content⟩",
            score: column(normpaths),
        },
        Scored {
            name: "full-path cosine",
            what: "the document's fullpath feature alone",
            score: column(doc.fullpath),
        },
        Scored {
            name: "simhash",
            what: "share of same-path pages within 3 bits",
            score: column(simhash),
        },
    ];
    for m in &methods {
        let pos: Vec<f64> = pairs
            .iter()
            .filter(|p| p.2)
            .map(|p| (m.score)(p.0, p.1))
            .collect();
        let neg: Vec<f64> = pairs
            .iter()
            .filter(|p| !p.2)
            .map(|p| (m.score)(p.0, p.1))
            .collect();
        let rdr: Vec<f64> = RDR_K
            .iter()
            .map(|&k| {
                let rr: Vec<f64> = rdr_sets
                    .iter()
                    .map(|(a, b, others)| {
                        let s = (m.score)(*a, *b);
                        // Ties rank the replica behind them (the pessimistic reading).
                        let above = others
                            .iter()
                            .take(k)
                            .filter(|&&d| (m.score)(*a, d) >= s)
                            .count();
                        1.0 / (above + 1) as f64
                    })
                    .collect();
                rr.iter().sum::<f64>() / rr.len().max(1) as f64
            })
            .collect();
        f.methods.push((
            m.name,
            m.what,
            auc(&pos, &neg),
            tpr_at(&pos, &neg, 0.001),
            rdr,
        ));
    }
    // Our decision (one site: no page disagrees, three agree), per variation and negative kind.
    let ours_score = &methods[0].score;
    for &(a, b, replica, kind, ref variation) in &pairs {
        let e = replica::compare_hosts(&seen[a], &seen[b]);
        let merged = e.disagreeing() == 0 && e.agreeing() >= replica::check::MIN_AGREEING;
        if o.misses && merged != replica {
            eprintln!(
                "{} {} {} ({} / {} pages) {variation} {e:?}",
                if replica { "MISSED" } else { "MERGED" },
                hosts[a].host,
                hosts[b].host,
                seen[a].pages.len(),
                seen[b].pages.len()
            );
        }
        if replica {
            let v = f.by_variation.entry(variation.clone()).or_default();
            v.0 += usize::from(merged);
            v.1 += 1;
            v.2 += ours_score(a, b);
        } else {
            let m = f.merges.entry(kind).or_default();
            m.0 += usize::from(merged);
            m.1 += 1;
        }
    }
    if o.active {
        let mut af = ActiveFigures::default();
        for &(a, b, replica, kind, ref variation) in &pairs {
            if kind == "random" {
                continue;
            }
            let (merged, fetches) = check_pair(&seen[a], &seen[b], &hosts[a], &hosts[b], o.misses);
            af.pairs += 1;
            af.fetches += fetches;
            af.max_fetches = af.max_fetches.max(fetches);
            if replica {
                af.replicas += 1;
                af.found += usize::from(merged);
                let v = f.active_by_variation.entry(variation.clone()).or_default();
                v.0 += usize::from(merged);
                v.1 += 1;
            } else {
                af.negatives += 1;
                af.merged += usize::from(merged);
            }
        }
        f.active = Some(af);
    }
    f.seconds = started.elapsed().as_secs_f64();
    f
}

/// How to read the report: fixed text, the figures follow.
const READING: &str = "## How it is measured\n\n\
- **What is seen.** Each host is sampled as `exemplar replicas` samples one: its entry page, then its own \
links breadth-first (and the page URLs its scripts name where a page links few), up to the sample size. \
The passive ranking reads those pages only.\n\
- **Ours.** The path mapping that lines up the most page keys (URL habits taken out), chosen among the \
likeliest three by how the pages agree; each page seen on both hosts compared one way by its text \
(a mirror adds, another version substitutes); one page of another text vetoes the pair. Decision: no \
page disagrees and at least three agree.\n\
- **The document's baselines** (document `003`): NormPaths (Eq. 4.1), the full-path cosine alone, PU and NU \
(LAC over ndist, nmatch, ip4, ip3, fullpath, self-trained by EM from obvious positives or obvious \
negatives with the fixed thresholds of Table 4.1) and PNU (their Pareto dominance count), trained on the \
split's candidate pairs without labels; and simhash over the same-path pages seen.\n\
- **Negatives** of the AUC and the FPR: the hard negatives (other versions of one documentation, sites of \
one generator, unrelated sites on one address) and random pairs of hosts of two sites. **RDR** is the \
document's replica detection rate (Table 4.4): the mean of 1/rank of the replica among k hosts of other \
sites paired with its original, ties ranked against it.\n\
- **The active check** runs on every labelled pair with the pages seen, asking at most six pages (the \
home page first, then the pages with most text) of one host on the other; it is pumped in process over \
the virtual hosts (the CLI's test runs it over HTTP).\n\n";

fn pct(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else {
        format!("{x:.4}")
    }
}

fn report(cat: &Catalogue, figures: &[(Split, SplitFigures)], o: &Options) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "# Site replicas: which hosts are one site\n\nWritten by `./build.sh eval-replicas` \
         (`exemplar-eval eval-replicas`, {} pages sampled a host). The data: `eval/replica-sites.toml` \
         ([docs/replica-data.md](../replica-data.md)), real documentation sites and mirrors served \
         under virtual hosts with real-world URL habits, the labelled pairs and hard negatives. \
         Settings (the one-way page comparison, three agreeing pages, the veto) were chosen on the \
         **dev** split; the **test** split's sites were not looked at while choosing: its figures \
         are the results.\n",
        o.sample
    );
    let _ = writeln!(r, "```\n{}```\n", cat.summary());
    r.push_str(READING);
    for (split, f) in figures {
        let _ = writeln!(
            r,
            "## {} split\n\n{} sites, {} hosts, {} pages sampled; {} replica pairs; hard negatives: {}; {} random non-replica pairs. {:.0} s.\n",
            split.name(),
            f.sites,
            f.hosts,
            f.pages,
            f.replica_pairs,
            f.negatives
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", "),
            f.random_negatives,
            f.seconds
        );
        let _ = writeln!(
            r,
            "### Passive ranking (pages seen, no probe)\n\n| method | AUC | TPR at FPR ≤ 0.001 | RDR@10 | RDR@100 | RDR@1000 | what |\n|---|---:|---:|---:|---:|---:|---|"
        );
        for (name, what, auc, tpr, rdr) in &f.methods {
            let _ = writeln!(
                r,
                "| {name} | {} | {} | {} | {} | {} | {what} |",
                pct(*auc),
                pct(*tpr),
                pct(rdr[0]),
                pct(rdr[1]),
                pct(rdr[2])
            );
        }
        let _ = writeln!(
            r,
            "\nRDR is the document's replica detection rate (Table 4.4): the mean of 1/rank of the \
             replica among k hosts of other sites paired with its original (ties ranked against it). \
             Negatives of the AUC and the FPR: the hard negatives and the random pairs.\n"
        );
        let _ = writeln!(
            r,
            "### Our decision per kind of variation (passive)\n\n| variation | pairs | taken as one site | mean score |\n|---|---:|---:|---:|"
        );
        for (v, (found, n, s)) in &f.by_variation {
            let _ = writeln!(
                r,
                "| {v} | {n} | {found} ({:.0}%) | {:.3} |",
                100.0 * *found as f64 / (*n).max(1) as f64,
                s / (*n).max(1) as f64
            );
        }
        let _ = writeln!(
            r,
            "\n| negatives | pairs | merged (false merges) |\n|---|---:|---:|"
        );
        for (k, (m, n)) in &f.merges {
            let _ = writeln!(r, "| {k} | {n} | {m} |");
        }
        if let Some(a) = f.active {
            let _ = writeln!(
                r,
                "\n### Active check (at most 6 probes a pair)\n\nPrecision {}, recall {} ({} of {} replica pairs; {} of {} hard negatives merged); fetches a pair: {:.2} on average, {} at most.\n",
                pct(if a.found + a.merged == 0 {
                    f64::NAN
                } else {
                    a.found as f64 / (a.found + a.merged) as f64
                }),
                pct(a.found as f64 / a.replicas.max(1) as f64),
                a.found,
                a.replicas,
                a.merged,
                a.negatives,
                a.fetches as f64 / a.pairs.max(1) as f64,
                a.max_fetches
            );
            let _ = writeln!(
                r,
                "| variation | pairs | one site after probes |\n|---|---:|---:|"
            );
            for (v, (found, n)) in &f.active_by_variation {
                let _ = writeln!(
                    r,
                    "| {v} | {n} | {found} ({:.0}%) |",
                    100.0 * *found as f64 / (*n).max(1) as f64
                );
            }
            r.push('\n');
        }
    }
    r
}

/// `eval-replicas [--sites FILE] [--out FILE | --no-report] [--sample N] [--no-active]
/// [--split dev|test] [--misses] [--sample-host NAME] [--no-dust | --dust-only]`.
pub fn eval_replicas(args: &[String]) -> Result<(), String> {
    let o = options(args)?;
    let cat = Catalogue::load(&o.sites)?;
    if let Some(name) = &o.sample_host {
        let h = cat.host(name).ok_or(format!("no host {name}"))?;
        for p in sample(h, o.sample).pages {
            println!("{} {}", p.path, p.print.words);
        }
        return Ok(());
    }
    let in_split = |name: &str| o.split.as_deref().is_none_or(|x| x == name);
    let dust = |log: &mut dyn FnMut(String)| -> Result<String, String> {
        let mut splits = crate::dust_eval::splits()?;
        splits.retain(|(name, _)| in_split(name));
        Ok(crate::dust_eval::report(&splits, log))
    };
    if o.dust == Dust::Only {
        print!("{}", dust(&mut |line| eprintln!("{line}"))?);
        return Ok(());
    }
    let mut figures = Vec::new();
    for split in Split::ALL
        .into_iter()
        .filter(|s| o.split.as_deref().is_none_or(|x| x == s.name()))
    {
        let f = run_split(&cat, split, &o);
        eprintln!(
            "{}: {} hosts, {} replica pairs, ours AUC {}, PNU AUC {}",
            split.name(),
            f.hosts,
            f.replica_pairs,
            f.methods.first().map_or("–".into(), |m| pct(m.2)),
            f.methods.get(1).map_or("–".into(), |m| pct(m.2)),
        );
        figures.push((split, f));
    }
    let mut text = report(&cat, &figures, &o);
    if o.dust == Dust::With {
        text.push_str(&dust(&mut |line| eprintln!("{line}"))?);
    }
    match &o.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("report written to {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn auc_and_tpr_count_as_the_document_does() {
        assert_eq!(super::auc(&[0.9, 0.8], &[0.1, 0.2]), 1.0);
        assert_eq!(super::auc(&[0.5], &[0.5]), 0.5);
        assert_eq!(super::auc(&[0.1], &[0.9]), 0.0);
        // One negative in 1,000 may sit above the threshold.
        let neg: Vec<f64> = (0..1000).map(|i| f64::from(i) / 2000.0).collect();
        assert_eq!(super::tpr_at(&[0.4, 0.6], &neg, 0.001), 0.5);
    }
}
