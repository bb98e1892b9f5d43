"""Merges the native, wasm-in-Chromium and Python peer results of bench/run.sh into one table
(printed, and written as Markdown with the machine and date).

    python3 bench/report.py --dir target/bench [--out docs/reports/benchmarks.md] [--env target/bench/env.json]
"""

import argparse
import datetime
import json
import os
import statistics

TARGET_PARSE = 1.3  # wasm parse / DOMParser
TARGET_EXACT_MS = 2.0  # wasm exact RTDM at ~2,000 nodes
TARGET_DECIDE = 30_000  # wasm decision pairs/s at ~1,000 nodes
TARGET_TED = 20.0  # tree-edit-distance crate time / ours
TARGET_CLASSIFY_MS = 20.0  # wasm classification of one page, as the extension's classifyPage (issue 57)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def ms(x):
    if x is None:
        return "–"
    if x >= 1000:
        return f"{x / 1000:.1f} s"
    if x >= 10:
        return f"{x:.0f} ms"
    if x >= 0.1:
        return f"{x:.2f} ms"
    if x >= 0.001:
        return f"{x * 1000:.1f} µs"
    return f"{x * 1e6:.0f} ns"


def rate(per_ms):
    if per_ms is None:
        return "–"
    return f"{1000 / per_ms:,.0f}/s" if per_ms > 0 else "–"


def ratio(x):
    if x is None:
        return "–"
    return f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def mark(ok):
    return "✓" if ok else "✗"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="target/bench")
    ap.add_argument("--out")
    ap.add_argument("--env")
    args = ap.parse_args()
    native = load(f"{args.dir}/native.json")
    wasm = load(f"{args.dir}/wasm.json") or {"pairs": []}
    python = load(f"{args.dir}/python.json") or {"results": []}
    env = load(args.env) if args.env else {}
    env = env or {}

    nres = native["results"]
    wpairs = {p["pair"]: p for p in wasm["pairs"]}

    def nget(**kw):
        for r in nres:
            if all(r.get(k) == v for k, v in kw.items()):
                return r
        return None

    def wget(pair, **kw):
        for r in wpairs.get(pair, {}).get("rtdm", []):
            if all(r.get(k) == v for k, v in kw.items()):
                return r
        return None

    def pget(**kw):
        for r in python["results"]:
            if all(r.get(k) == v for k, v in kw.items()):
                return r
        return None

    rows = []  # (pair, measurement, ours native, ours wasm, peers, target)
    checks = []  # (target, value, met)
    parse_tot = {"bytes": 0, "wasm": 0.0, "dom": 0.0, "native": 0.0}
    classify_worst = []
    ted_ratios = []

    def peer_cell(pr, ours_ms):
        """A Python peer's result: time and its ratio to ours (peer ÷ ours)."""
        if not pr:
            return None
        name = pr["peer"]
        if "ms" in pr:
            return f"{name} {ms(pr['ms'])} ({ratio(pr['ms'] / ours_ms)})" if ours_ms > 0 else f"{name} {ms(pr['ms'])}"
        if "timeout" in pr:
            return f"{name} timeout > {pr['timeout']:g} s"
        if "skipped" in pr:
            return f"{name} not run ({pr['skipped']})"
        return f"{name} error ({pr.get('error', '?')[:40]})"

    for p in native["pairs"]:
        name = p["name"]
        label = f"{name} ({p['site']})"
        raw_nodes = f"{p['rawNodesA']:,}+{p['rawNodesB']:,}"
        view_nodes = f"{p['viewNodesA']:,}+{p['viewNodesB']:,}"
        # Parse: both pages, MB/s = HTML bytes / time.
        npar = nget(kind="parse", pair=name)
        nbytes = p["bytesA"] + p["bytesB"]
        nms = sum(s["ms"] for s in npar["sides"])
        w = wpairs.get(name)
        wmbs = dmbs = None
        if w:
            wms = sum(s["wasmMs"] for s in w["parse"])
            dms = sum(s["domParserMs"] for s in w["parse"])
            wmbs, dmbs = nbytes / wms / 1e3, nbytes / dms / 1e3
            parse_tot["wasm"] += wms
            parse_tot["dom"] += dms
        parse_tot["bytes"] += nbytes
        parse_tot["native"] += nms
        rows.append((label, f"parse A+B ({nbytes / 1e3:,.0f} KB), MB/s",
                     f"{nbytes / nms / 1e3:.1f}", f"{wmbs:.1f}" if wmbs else "–",
                     f"DOMParser {dmbs:.1f} MB/s (wasm ÷ DOMParser {ratio(wmbs / dmbs)})" if wmbs and dmbs else "",
                     f"≥ {TARGET_PARSE}× {mark(wmbs / dmbs >= TARGET_PARSE)}" if wmbs and dmbs else ""))
        if w and all("classifyMs" in s for s in w["parse"]):
            for s in w["parse"]:
                dom = s["domParserMs"]
                classify_worst.append((s["classifyMs"], f"{name} {s['side']}"))
                rows.append((label, f"classify page {s['side'].upper()} (parse, kind, words), ms", "",
                             ms(s["classifyMs"]), f"DOMParser parse alone {ms(dom)} ({ratio(dom / s['classifyMs'])})",
                             f"< {TARGET_CLASSIFY_MS:g} ms {mark(s['classifyMs'] < TARGET_CLASSIFY_MS)}"))
        mems = [r for r in nres if r["kind"] == "memory" and r["pair"] == name]
        nodes = sum(m["nodes"] for m in mems)
        tb = sum(m["treeBytes"] for m in mems)
        pb = sum(m["pageBytes"] for m in mems)
        hb = sum(m["htmlBytes"] for m in mems)
        rows.append((label, "memory per node: tree / whole page (page ÷ HTML bytes)",
                     f"{tb / nodes:.0f} / {pb / nodes:.0f} B ({pb / hb:.2f}×)", "", "", ""))
        for tree, nodes_s in (("raw", raw_nodes), ("view", view_nodes)):
            cmp_ = nget(kind="rtdm", pair=name, tree=tree, mode="compare")
            wc = wget(name, tree=tree, mode="compare")
            winfo = wget(name, tree=tree, mode="info")
            note = ""
            if winfo and winfo["distance"] != cmp_["distance"]:
                note = " **wasm distance differs**"
            targets = []
            if tree == "raw" and 1500 <= (p["rawNodesA"] + p["rawNodesB"]) / 2 <= 3000 and wc:
                ok = wc["ms"] <= TARGET_EXACT_MS
                targets.append(f"wasm ≤ {TARGET_EXACT_MS:g} ms {mark(ok)}")
                checks.append((f"exact RTDM ≤ {TARGET_EXACT_MS:g} ms at ~2,000 nodes (wasm), {name}", ms(wc["ms"]), ok))
            peers = []
            ted = nget(kind="peer", peer="tree-edit-distance", pair=name, tree=tree)
            if ted:
                r = ted["ms"] / cmp_["ms"] if cmp_["ms"] > 0 else None
                if r is not None:
                    ted_ratios.append((r, f"{name} {tree}"))
                    targets.append(f"TED ≥ {TARGET_TED:g}× {mark(r >= TARGET_TED)}")
                same = "" if ted.get("agrees") else f", distance {ted['distance']} differs!"
                peers.append(f"tree-edit-distance {ms(ted['ms'])} ({ratio(r)}{same})")
            for peer in ("apted", "zss"):
                c = peer_cell(pget(peer=peer, pair=name, tree=tree), cmp_["ms"])
                if c:
                    peers.append(c)
            rows.append((label, f"{tree} ({nodes_s} nodes): exact, distance {cmp_['distance']}, "
                         f"similarity {cmp_['similarity']:.3f}{note}",
                         ms(cmp_["ms"]), ms(wc["ms"]) if wc else "–", "; ".join(peers), ", ".join(targets)))
            nat, was, targets = [], [], []
            for theta in p[f"{tree}Thetas"]:
                s = nget(kind="rtdm", pair=name, tree=tree, mode="similar", theta=theta)
                ws = wget(name, tree=tree, mode="similar", theta=theta)
                head = f"θ={theta:g} {'yes' if s['answer'] else 'no'}: "
                nat.append(head + rate(s["ms"]))
                was.append(head + rate(ws["ms"]) if ws else "–")
                if 700 <= (p["rawNodesA"] + p["rawNodesB"]) / 2 <= 1400 and ws and tree == "raw":
                    ok = 1000 / ws["ms"] >= TARGET_DECIDE
                    targets.append(f"θ={theta:g} {mark(ok)}")
                    checks.append((f"decision ≥ {TARGET_DECIDE:,} pairs/s at ~1,000 nodes (wasm), {name} θ={theta:g}",
                                   rate(ws["ms"]), ok))
            rows.append((label, f"{tree}: decision mode, pairs/s", "<br>".join(nat), "<br>".join(was), "",
                         f"wasm ≥ {TARGET_DECIDE // 1000}k/s: " + ", ".join(targets) if targets else ""))
        hs = pget(peer="html-similarity", pair=name)
        if hs:
            ours = nms + nget(kind="rtdm", pair=name, tree="raw", mode="compare")["ms"]
            c = peer_cell(hs, ours)
            if "value" in hs:
                c += f", says {hs['value']:.3f}"
            rows.append((label, "HTML → similarity: our parse A+B + raw exact", ms(ours), "", c, ""))

    if parse_tot["wasm"]:
        r = parse_tot["dom"] / parse_tot["wasm"]
        checks.insert(0, ("parse throughput wasm ÷ DOMParser ≥ 1.3× (all pages)",
                          f"{parse_tot['bytes'] / parse_tot['wasm'] / 1e3:.1f} vs "
                          f"{parse_tot['bytes'] / parse_tot['dom'] / 1e3:.1f} MB/s = {ratio(r)}", r >= TARGET_PARSE))
    if classify_worst:
        worst = max(classify_worst)
        checks.append((f"wasm page classification < {TARGET_CLASSIFY_MS:g} ms (every page)",
                       f"max {ms(worst[0])} ({worst[1]}), median {ms(statistics.median(c for c, _ in classify_worst))}",
                       worst[0] < TARGET_CLASSIFY_MS))
    if ted_ratios:
        lo = min(ted_ratios)
        checks.append((f"≥ {TARGET_TED:g}× faster than tree-edit-distance (every pair and tree)",
                       f"min {ratio(lo[0])} ({lo[1]}), median {ratio(statistics.median(r for r, _ in ted_ratios))}",
                       lo[0] >= TARGET_TED))

    header = ("pair (site)", "measurement", "ours native", "ours wasm (Chromium)",
              "peers, same run (peer time ÷ ours)", "target")
    now = env.get("date") or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    m = native.get("machine", {})
    lines = ["Pages (same-template pairs of the Debian dev sites):", ""]
    lines += [f"- `{p['name']}` ({p['site']}): `{p['a']}` ({p['bytesA']:,} B) vs `{p['b']}` ({p['bytesB']:,} B)"
              for p in native["pairs"]]
    lines.append("")
    lines.append(f"Run {now} on {m.get('cpu', '?')} ({m.get('cores', '?')} cores, {m.get('os')}/{m.get('arch')})"
                 + (f", load average at start {env['load']}" if env.get("load") else "") + ".")
    tools = [env.get("rustc"), f"Chromium {wasm.get('browser')}" if wasm.get("browser") else None,
             f"Python {python.get('python')}" if python.get("python") else None, env.get("node")]
    lines.append("Tools: " + ", ".join(t for t in tools if t) + ".")
    if native.get("quick"):
        lines.append("**Quick run (short timing budgets): numbers are indicative only.**")
    lines.append("")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    lines.append("")
    lines.append("Targets:")
    lines.append("")
    for what, value, ok in checks:
        lines.append(f"- {mark(ok)} {what}: {value}")
    table = "\n".join(lines)
    print(table)

    if args.out:
        doc = f"""# Benchmarks

Produced by `./build.sh bench` (`bench/run.sh`; see `bench/README.md` for the method). Do not edit by
hand: rerun it.

How to read it: *raw* is the full tree (published RTDM), *view* the product's default view
(`similarity::Options::default().view`). Times are medians of repeated batches; each RTDM
comparison runs on a fresh workspace (a reused one answers a repeated pair from its memo in
~0.1 µs, which would measure a cache). Decision mode is `is_similar` at θ = 0.8 and at a second θ
chosen to give the other answer. Ratios are the peer's time ÷ ours on the same trees in the same
run. The `tree-edit-distance` crate computes the same top-down distance as RTDM (the run checks the
distances agree); zss and APTED compute the general tree edit distance (a different, larger
problem), html-similarity a difflib ratio of the tag sequences.

{table}
"""
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w") as f:
            f.write(doc)


if __name__ == "__main__":
    main()
