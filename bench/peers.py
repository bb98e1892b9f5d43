"""Python peers of the benchmark, on the same trees and pages as the native and wasm runs.

- zss (Zhang-Shasha) and apted (APTED): general tree edit distance (unit costs, rename 0/1) on
  the trees benches/core.rs exported to <dir>/trees/<pair>-<a|b>-<raw|view>.json
  ({"labels": [...], "parents": [...]}, preorder).
- html-similarity: structural_similarity(html_a, html_b) on the two HTML files (lxml parse + a
  difflib ratio of the tag sequences).

Each comparison runs in a child process with a timeout (default 60 s); a peer is not run on a
larger pair once it timed out, or when its time on a smaller pair scaled by the square of the
size ratio (a lower bound: these algorithms are at least quadratic) exceeds the timeout. Fast ones are repeated (up to ~2 s, at most 5 runs) and the median reported.
Conversion of our trees to the peer's node type happens before timing.

    python bench/peers.py --dir target/bench [--timeout 60] > target/bench/python.json
"""

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time


def load_tree(path):
    with open(path) as f:
        t = json.load(f)
    return t["labels"], t["parents"]


def zss_tree(labels, parents):
    import zss

    nodes = [zss.Node(str(l)) for l in labels]
    for i, p in enumerate(parents):
        if p >= 0:
            nodes[p].addkid(nodes[i])
    return nodes[0]


def zss_distance(a, b):
    import zss

    return zss.distance(
        a,
        b,
        zss.Node.get_children,
        insert_cost=lambda n: 1,
        remove_cost=lambda n: 1,
        update_cost=lambda x, y: 0 if x.label == y.label else 1,
    )


def apted_tree(labels, parents):
    from apted.helpers import Tree

    nodes = [Tree(str(l)) for l in labels]
    for i, p in enumerate(parents):
        if p >= 0:
            nodes[p].children.append(nodes[i])
    return nodes[0]


def apted_distance(a, b):
    from apted import APTED

    return APTED(a, b).compute_edit_distance()


def html_similarity(a, b):
    from html_similarity import structural_similarity

    return structural_similarity(a, b)


def prepare(peer, job):
    """The peer's inputs, built outside the timed region."""
    if peer == "html-similarity":
        with open(job["a"], encoding="utf-8", errors="replace") as f:
            a = f.read()
        with open(job["b"], encoding="utf-8", errors="replace") as f:
            b = f.read()
        return html_similarity, a, b
    build, run = {"zss": (zss_tree, zss_distance), "apted": (apted_tree, apted_distance)}[peer]
    return run, build(*load_tree(job["treeA"])), build(*load_tree(job["treeB"]))


def child(peer, job, conn):
    sys.setrecursionlimit(1_000_000)
    try:
        run, a, b = prepare(peer, job)
        times, value = [], None
        spent = 0.0
        while len(times) < 5 and (not times or spent < 2.0):
            t = time.perf_counter()
            value = run(a, b)
            dt = time.perf_counter() - t
            times.append(dt)
            spent += dt
        conn.send({"ms": statistics.median(times) * 1e3, "runs": len(times), "value": value})
    except Exception as e:  # reported, not fatal
        conn.send({"error": f"{type(e).__name__}: {e}"})
    conn.close()


def measure(peer, job, timeout):
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=child, args=(peer, job, send))
    p.start()
    send.close()
    if recv.poll(timeout):
        try:
            r = recv.recv()
        except EOFError:
            r = {"error": f"child died (exit code {p.exitcode})"}
        p.join()
        return r
    p.kill()
    p.join()
    return {"timeout": timeout}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="target/bench")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    with open(f"{args.dir}/pairs.json") as f:
        pairs = json.load(f)
    pairs.sort(key=lambda p: p["rawNodesA"] + p["rawNodesB"])
    results = []
    # (peer, tree) -> (nodes, ms) of its largest finished run, or (nodes, None) once it timed out.
    last = {}
    for pair in pairs:
        jobs = [("html-similarity", "html", {"a": pair["a"], "b": pair["b"]}, pair["rawNodesA"] + pair["rawNodesB"])]
        for tree in ("raw", "view"):
            job = {
                "treeA": f"{args.dir}/trees/{pair['name']}-a-{tree}.json",
                "treeB": f"{args.dir}/trees/{pair['name']}-b-{tree}.json",
            }
            size = pair[f"{tree}NodesA"] + pair[f"{tree}NodesB"]
            jobs += [("zss", tree, job, size), ("apted", tree, job, size)]
        for peer, tree, job, size in jobs:
            key = (peer, tree)
            prev = last.get(key)
            r = None
            if prev and size >= prev[0]:
                if prev[1] is None:
                    r = {"skipped": f"timed out at {prev[0]} nodes"}
                elif prev[1] / 1e3 * (size / prev[0]) ** 2 > args.timeout:
                    # Tree edit distance is at least quadratic: this is a lower bound of its time.
                    r = {"skipped": f"≥ {prev[1] / 1e3 * (size / prev[0]) ** 2:.0f} s predicted from {prev[0]} nodes"}
            if r is None:
                r = measure(peer, job, args.timeout)
                if "timeout" in r:
                    last[key] = (size, None)
                elif "ms" in r and (not prev or size >= prev[0]):
                    last[key] = (size, r["ms"])
            r.update({"peer": peer, "pair": pair["name"], "tree": tree, "nodes": size})
            print(f"   {pair['name']} {tree} {peer}: {r}", file=sys.stderr, flush=True)
            results.append(r)
    json.dump({"python": sys.version.split()[0], "timeout": args.timeout, "results": results}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
