//! Native benchmark of the core (`cargo bench --bench core`; `./build.sh bench` runs it through
//! `bench/run.sh`, which merges it with the wasm-in-Chromium and Python peer results).
//!
//! For every page pair of `bench/pairs.tsv` (real same-template pages of the Debian dev sites):
//! parse throughput of `Page::parse`, RTDM exact (`compare`) and decision mode (`is_similar`
//! at θ = 0.8 and at a θ giving the other answer, see [`theta_other`]) on the raw tree (published
//! RTDM) and on the product's default view, each on a fresh workspace (its memo would otherwise
//! answer a repeated pair from cache), the `tree-edit-distance` crate on the same trees (it
//! computes the same top-down distance: the bench checks the two agree), and the memory of the
//! parsed tree/page.
//!
//! Output: human-readable lines on stderr, one machine-readable `BENCH {json}` line per result on
//! stdout, and in `$EXEMPLAR_BENCH_DIR` (default `target/bench`): `native.json` (every result),
//! `pairs.json` (the pairs, their files, sizes and the θ used, read by the wasm and Python
//! drivers) and `trees/<pair>-<a|b>-<raw|view>.json` (`{"labels": [u32…], "parents": [i64…]}`,
//! preorder, root parent -1) for the Python peers.
//!
//! Environment: `EXEMPLAR_BENCH_QUICK=1` (shorter timing budget), `EXEMPLAR_BENCH_PAIRS=FILE`
//! (another pairs file), `EXEMPLAR_BENCH_DIR=DIR` (output directory), `EXEMPLAR_BENCH_PARSE_ONLY=1`
//! (only the parse measurements, e.g. under `perf record`; writes no files),
//! `EXEMPLAR_BENCH_SCAN=DIR` (only print the tree size of every `.html` under DIR, to pick pairs).
//!
//! Timing: each measurement is calibrated to batches of ≥ 20 ms, then batches run until a time
//! budget is spent (at least 5); the reported time is the median batch mean.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use exemplar_html::{Page, ParseOptions, Tree};
use exemplar_similarity::Options;
use exemplar_similarity::rtdm::{Prepared, Rtdm};
use serde_json::{Value, json};

const THETA: f64 = 0.8;

fn main() {
    // `cargo bench` passes `--bench` (and filters); nothing to parse.
    if let Ok(dir) = std::env::var("EXEMPLAR_BENCH_SCAN") {
        scan(Path::new(&dir));
        return;
    }
    let quick = std::env::var("EXEMPLAR_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let budget = Duration::from_millis(if quick { 150 } else { 600 });
    let parse_only =
        std::env::var("EXEMPLAR_BENCH_PARSE_ONLY").is_ok_and(|v| !v.is_empty() && v != "0");
    // The repository root (this crate is `bench/`): outputs and the pairs file are named from it.
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out_dir = std::env::var("EXEMPLAR_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target/bench"));
    std::fs::create_dir_all(out_dir.join("trees")).expect("create the output directory");

    let pairs = read_pairs(
        &std::env::var("EXEMPLAR_BENCH_PAIRS")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root.join("bench/pairs.tsv")),
    );
    let mut results: Vec<Value> = Vec::new();
    let mut pair_info: Vec<Value> = Vec::new();
    for pair in &pairs {
        eprintln!("== {} ({}): {} | {}", pair.name, pair.site, pair.a, pair.b);
        let bytes_a = std::fs::read(&pair.a).unwrap_or_else(|e| panic!("{}: {e}", pair.a));
        let bytes_b = std::fs::read(&pair.b).unwrap_or_else(|e| panic!("{}: {e}", pair.b));
        let url_a = file_url(&pair.a);
        let url_b = file_url(&pair.b);
        let opts = ParseOptions::default();
        let page_a = Page::parse(&bytes_a, &url_a, None, &opts).expect("parse a");
        let page_b = Page::parse(&bytes_b, &url_b, None, &opts).expect("parse b");

        // Parse throughput, both pages of the pair (MB/s = HTML bytes / time).
        let mut parse = Vec::new();
        for (side, bytes, url) in [("a", &bytes_a, &url_a), ("b", &bytes_b, &url_b)] {
            let t = time(budget, || {
                black_box(Page::parse(black_box(bytes), url, None, &opts).ok());
            });
            let mbs = bytes.len() as f64 / t / 1e6;
            eprintln!("   parse {side}: {:.3} ms, {mbs:.1} MB/s", t * 1e3);
            parse.push(json!({"side": side, "bytes": bytes.len(), "ms": t * 1e3, "mbs": mbs}));
        }
        let total_bytes = (bytes_a.len() + bytes_b.len()) as f64;
        let parse_total: f64 = parse.iter().map(|p| p["ms"].as_f64().unwrap()).sum();
        let r = json!({"kind": "parse", "pair": pair.name, "sides": parse,
                       "mbs": total_bytes / (parse_total / 1e3) / 1e6});
        emit(&mut results, r);

        if parse_only {
            continue;
        }
        // Memory of the parsed pages.
        for (side, page, bytes) in [("a", &page_a, &bytes_a), ("b", &page_b, &bytes_b)] {
            let tree_bytes = tree_bytes(&page.tree);
            let page_bytes = page_bytes(page);
            let n = page.tree.len();
            eprintln!(
                "   memory {side}: {n} nodes, tree {tree_bytes} B ({:.1} B/node), page {page_bytes} B ({:.1} B/node, {:.2}x the {} B of HTML)",
                tree_bytes as f64 / n as f64,
                page_bytes as f64 / n as f64,
                page_bytes as f64 / bytes.len() as f64,
                bytes.len()
            );
            emit(
                &mut results,
                json!({"kind": "memory", "pair": pair.name, "side": side, "nodes": n,
                       "htmlBytes": bytes.len(), "treeBytes": tree_bytes, "pageBytes": page_bytes}),
            );
        }

        let view = Options::default().view;
        let mut info = json!({"name": pair.name, "site": pair.site, "a": pair.a, "b": pair.b,
                              "urlA": url_a, "urlB": url_b,
                              "bytesA": bytes_a.len(), "bytesB": bytes_b.len()});
        for (kind, ta, tb) in [
            ("raw", page_a.tree.clone(), page_b.tree.clone()),
            ("view", view.apply(&page_a.tree), view.apply(&page_b.tree)),
        ] {
            write_tree(&out_dir, &pair.name, "a", kind, &ta);
            write_tree(&out_dir, &pair.name, "b", kind, &tb);
            let ted_a = ted_tree(&ta);
            let ted_b = ted_tree(&tb);
            let pa = Prepared::new(ta);
            let pb = Prepared::new(tb);
            let cmp = Rtdm::new().compare(&pa, &pb);
            let theta_other = theta_other(cmp.similarity);
            let (na, nb) = (cmp.size_a, cmp.size_b);
            eprintln!(
                "   {kind}: {na} + {nb} nodes, distance {}, similarity {:.4}",
                cmp.distance, cmp.similarity
            );
            info[format!("{kind}NodesA")] = json!(na);
            info[format!("{kind}NodesB")] = json!(nb);
            info[format!("{kind}Distance")] = json!(cmp.distance);
            info[format!("{kind}Similarity")] = json!(cmp.similarity);
            info[format!("{kind}Thetas")] = json!([THETA, theta_other]);

            // A fresh workspace per comparison: the workspace's memo keeps subtree-pair costs
            // across comparisons, so repeating one pair on a reused workspace would time memo hits.
            let t = time(budget, || {
                black_box(Rtdm::new().compare(black_box(&pa), black_box(&pb)));
            });
            let compare_ms = t * 1e3;
            // For reference only: the same pair again on a reused (warm) workspace.
            let mut warm = Rtdm::new();
            let t_warm = time(budget / 2, || {
                black_box(warm.compare(black_box(&pa), black_box(&pb)));
            });
            eprintln!(
                "   {kind} compare: {compare_ms:.4} ms (same pair again on a warm workspace: {:.4} ms)",
                t_warm * 1e3
            );
            emit(
                &mut results,
                json!({"kind": "rtdm", "pair": pair.name, "tree": kind, "mode": "compare",
                       "nodesA": na, "nodesB": nb, "distance": cmp.distance,
                       "similarity": cmp.similarity, "ms": compare_ms, "warmMs": t_warm * 1e3}),
            );
            for theta in [THETA, theta_other] {
                let answer = Rtdm::new().is_similar(&pa, &pb, theta);
                assert_eq!(answer, cmp.similarity >= theta, "decision mode disagrees");
                let t = time(budget, || {
                    black_box(Rtdm::new().is_similar(black_box(&pa), black_box(&pb), theta));
                });
                eprintln!(
                    "   {kind} is_similar θ={theta}: {answer}, {:.4} ms, {:.0} pairs/s",
                    t * 1e3,
                    1.0 / t
                );
                emit(
                    &mut results,
                    json!({"kind": "rtdm", "pair": pair.name, "tree": kind, "mode": "similar",
                           "theta": theta, "answer": answer, "nodesA": na, "nodesB": nb,
                           "ms": t * 1e3, "pairsPerSec": 1.0 / t}),
                );
            }

            // Peer: the tree-edit-distance crate on the same trees (conversion outside the
            // timed loop, the crate's own per-call preprocessing inside).
            let d = on_big_stack(|| tree_edit_distance::diff(&ted_a, &ted_b).1);
            let t = on_big_stack(|| {
                time(budget, || {
                    black_box(tree_edit_distance::diff(
                        black_box(&ted_a),
                        black_box(&ted_b),
                    ));
                })
            });
            eprintln!(
                "   {kind} tree-edit-distance: distance {d}, {:.3} ms ({:.1}x our compare)",
                t * 1e3,
                t * 1e3 / compare_ms
            );
            emit(
                &mut results,
                json!({"kind": "peer", "peer": "tree-edit-distance", "pair": pair.name,
                       "tree": kind, "distance": d, "agrees": u64::from(cmp.distance) == d,
                       "ms": t * 1e3}),
            );
        }
        pair_info.push(info);
    }
    if parse_only {
        return;
    }
    let native = json!({
        "machine": machine(),
        "quick": quick,
        "pairs": pair_info,
        "results": results,
    });
    std::fs::write(
        out_dir.join("native.json"),
        serde_json::to_string_pretty(&native).unwrap(),
    )
    .expect("write native.json");
    std::fs::write(
        out_dir.join("pairs.json"),
        serde_json::to_string_pretty(&native["pairs"]).unwrap(),
    )
    .expect("write pairs.json");
    eprintln!("wrote {}", out_dir.join("native.json").display());
}

fn emit(results: &mut Vec<Value>, r: Value) {
    println!("BENCH {r}");
    results.push(r);
}

/// The second θ of decision mode, chosen to get the other answer than θ = 0.8: for a pair
/// similar at 0.8, halfway between its similarity and 1 (rounded up to 0.01; "no" unless the
/// trees are identical); for a pair not similar at 0.8, half its similarity (rounded down to
/// 0.01; "yes", the costlier case, as the budget must be nearly exhausted to prove it).
fn theta_other(similarity: f64) -> f64 {
    if similarity >= THETA {
        (((similarity + 1.0) / 2.0 * 100.0).ceil() / 100.0).min(1.0)
    } else {
        (similarity / 2.0 * 100.0).floor() / 100.0
    }
}

/// Median seconds per call of `f` over batches of ≥ 20 ms run for `budget` (at least 5 batches).
fn time(budget: Duration, mut f: impl FnMut()) -> f64 {
    // Warm up and calibrate.
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let iters = ((0.02 / once).ceil() as u64).clamp(1, 10_000_000);
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || (start.elapsed() < budget && samples.len() < 101) {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() / iters as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Runs `f` on a thread with a 1 GiB stack (the peer crate recurses once per tree level and per
/// children-alignment step).
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, f)
            .expect("spawn")
            .join()
            .expect("peer panicked")
    })
}

struct Pair {
    name: String,
    site: String,
    a: String,
    b: String,
}

/// `bench/pairs.tsv`: `name  site  fileA  fileB` (tab-separated; `#` comments).
fn read_pairs(path: &Path) -> Vec<Pair> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l
                .split('\t')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            assert_eq!(f.len(), 4, "bad line in {}: {l:?}", path.display());
            Pair {
                name: f[0].into(),
                site: f[1].into(),
                a: f[2].into(),
                b: f[3].into(),
            }
        })
        .collect()
}

fn file_url(path: &str) -> String {
    format!("file://{path}")
}

/// Preorder labels and parents, for the Python peers.
fn write_tree(dir: &Path, pair: &str, side: &str, kind: &str, t: &Tree) {
    let labels: Vec<u32> = t.labels().iter().map(|l| l.0).collect();
    let parents: Vec<i64> = (0..t.len() as u32)
        .map(|i| t.parent(i).map_or(-1, i64::from))
        .collect();
    let path = dir.join(format!("trees/{pair}-{side}-{kind}.json"));
    std::fs::write(
        &path,
        json!({"labels": labels, "parents": parents}).to_string(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Approximate heap bytes of a tree: its per-node vectors (labels, sizes, parents, depths: u32;
/// hashes: u64; class labels: u32 when present) plus the label-name table.
fn tree_bytes(t: &Tree) -> usize {
    let n = t.len();
    let mut labels: Vec<u32> = t
        .labels()
        .iter()
        .chain(t.class_labels())
        .map(|l| l.0)
        .collect();
    labels.sort_unstable();
    labels.dedup();
    let names: usize = labels
        .iter()
        .map(|&l| {
            std::mem::size_of::<(u32, String)>() + t.label_name(exemplar_html::Label(l)).len()
        })
        .sum();
    n * (4 * 4 + 8) + t.class_labels().len() * 4 + names
}

/// Approximate heap bytes of a page: the tree plus links, forms, controls and visible text (struct
/// sizes plus string lengths).
fn page_bytes(p: &Page) -> usize {
    use std::mem::size_of;
    let s = |x: &String| x.len();
    let mut total = tree_bytes(&p.tree) + s(&p.url) + s(&p.base) + s(&p.title) + s(&p.encoding);
    for l in &p.links {
        total += size_of::<exemplar_html::Link>() + s(&l.url) + s(&l.text);
    }
    for f in &p.forms {
        total += size_of::<exemplar_html::Form>()
            + s(&f.action)
            + s(&f.method)
            + s(&f.enctype)
            + s(&f.name)
            + s(&f.id)
            + f.controls.len() * size_of::<usize>();
    }
    for c in &p.controls {
        total += size_of::<exemplar_html::Control>()
            + s(&c.name)
            + s(&c.id)
            + s(&c.value)
            + s(&c.label)
            + c.options
                .iter()
                .map(|o| size_of::<String>() + o.len())
                .sum::<usize>();
    }
    // The visible text; its terms are split only when asked for.
    total += s(&p.text);
    total
}

/// Our tree in the `tree-edit-distance` crate's form: a node with a kind (our label), weight 1
/// (so its cost is the number of nodes, as in RTDM) and owned children.
struct TedNode {
    label: u32,
    children: Vec<TedNode>,
}

impl tree_edit_distance::Node for TedNode {
    type Kind = u32;
    fn kind(&self) -> u32 {
        self.label
    }
    type Weight = u64;
    fn weight(&self) -> u64 {
        1
    }
}

impl tree_edit_distance::Tree for TedNode {
    type Children<'c> = &'c [TedNode];
    fn children(&self) -> &[TedNode] {
        &self.children
    }
}

/// Builds the peer's tree bottom-up (iteratively: preorder reversed sees children before parents).
fn ted_tree(t: &Tree) -> TedNode {
    let n = t.len();
    let mut built: Vec<Option<TedNode>> = (0..n).map(|_| None).collect();
    for i in (0..n as u32).rev() {
        let children = t
            .children(i)
            .map(|c| built[c as usize].take().expect("child built"))
            .collect();
        built[i as usize] = Some(TedNode {
            label: t.label(i).0,
            children,
        });
    }
    built[0].take().expect("root")
}

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    json!({"cpu": cpu, "cores": cores, "arch": std::env::consts::ARCH, "os": std::env::consts::OS})
}

/// Prints `nodes  view-nodes  bytes  path` for every `.html` file under `dir`.
fn scan(dir: &Path) {
    let view = Options::default().view;
    let mut stack = vec![dir.to_path_buf()];
    let mut out = String::new();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                let Ok(bytes) = std::fs::read(&p) else {
                    continue;
                };
                let url = file_url(&p.display().to_string());
                if let Ok(page) = Page::parse(&bytes, &url, None, &ParseOptions::default()) {
                    let v = view.apply(&page.tree);
                    let _ = writeln!(
                        out,
                        "{}\t{}\t{}\t{}",
                        page.tree.len(),
                        v.len(),
                        bytes.len(),
                        p.display()
                    );
                }
            }
        }
    }
    print!("{out}");
}
