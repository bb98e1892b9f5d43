#!/usr/bin/env python3
"""The workspace's layering, checked: the crate graph is the architecture (docs/architecture.md).

1. Each product crate depends (for its library and binaries, not its tests) only on the product
   crates below it in LAYERS, never on a lab crate (eval, bench, testkit).
2. No crate below the drivers (wasm, native, cli) depends on wasm-bindgen, ureq or toml, or names
   std::net's sockets in its sources (parsing an IP address is not I/O).
3. No import cycle between the top-level modules of one crate: a module's `crate::x` paths (and
   `super::x` from its submodules) are its edges.

Exits 1 with what is wrong; prints the crate graph and each crate's module order otherwise.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each product crate and the product crates it may use.
LAYERS = {
    "exemplar-url": [],
    "exemplar-html": ["exemplar-url"],
    "exemplar-similarity": ["exemplar-url", "exemplar-html"],
    "exemplar-classify": ["exemplar-url", "exemplar-html"],
    "exemplar-core": ["exemplar-url", "exemplar-html", "exemplar-similarity", "exemplar-classify"],
    "exemplar-export": ["exemplar-url", "exemplar-html", "exemplar-core"],
    "exemplar-wasm": ["exemplar-url", "exemplar-html", "exemplar-similarity", "exemplar-classify",
                      "exemplar-core", "exemplar-export"],
    "exemplar-native": ["exemplar-url", "exemplar-html", "exemplar-core"],
    "exemplar-cli": ["exemplar-url", "exemplar-html", "exemplar-similarity", "exemplar-classify",
                     "exemplar-core", "exemplar-export", "exemplar-native"],
}
LAB = {"exemplar-eval", "exemplar-bench", "exemplar-bench-wasm", "exemplar-testkit"}
DRIVERS = {"exemplar-wasm", "exemplar-native", "exemplar-cli"}
IO_CRATES = {"wasm-bindgen", "ureq", "toml"}


def metadata():
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def module_of(src: Path, path: Path) -> str:
    """The top-level module a source file belongs to ('' for the crate root)."""
    rel = path.relative_to(src)
    if rel.parts[0] in ("lib.rs", "main.rs"):
        return ""
    return rel.parts[0].removesuffix(".rs")


def strip_comments(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def module_cycles(src: Path) -> list[list[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(src.rglob("*.rs")):
        m = module_of(src, path)
        # Test files: `tests.rs`, its siblings `tests_*.rs` (long tests split off), `tests/`.
        test_file = path.name == "tests.rs" or path.name.startswith("tests_")
        if not m or test_file or "tests" in path.relative_to(src).parts[:-1]:
            continue
        text = strip_comments(path.read_text())
        # Tests may use any module of their crate: only the product code's edges count.
        text = re.split(r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))?\s+)?mod tests", text)[0]
        refs = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text))
        # `use crate::{a, b::c}`
        for group in re.findall(r"\bcrate::\{([^}]*)\}", text):
            refs |= set(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
        edges.setdefault(m, set()).update(r for r in refs if r != m)
    modules = set(edges)
    edges = {m: {r for r in rs if r in modules} for m, rs in edges.items()}
    # Strongly connected components (Tarjan).
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    meta = metadata()
    problems = []
    for pkg in meta["packages"]:
        name = pkg["name"]
        normal = [d for d in pkg["dependencies"] if d["kind"] is None]
        names = {d["name"] for d in normal}
        if name in LAYERS:
            ours = {n for n in names if n.startswith("exemplar-")}
            for n in sorted(ours & LAB):
                problems.append(f"{name} depends on the lab crate {n}")
            for n in sorted(ours - LAB - set(LAYERS[name])):
                problems.append(f"{name} depends on {n}, which is not below it")
            if name not in DRIVERS:
                for n in sorted(names & IO_CRATES):
                    problems.append(f"{name} depends on {n}: only the drivers may")
                src = Path(pkg["manifest_path"]).parent / "src"
                for path in src.rglob("*.rs"):
                    if re.search(r"\bstd::net::(TcpStream|TcpListener|UdpSocket|ToSocketAddrs|SocketAddr)\b", strip_comments(path.read_text())):
                        problems.append(f"{path.relative_to(ROOT)} uses std::net: only the drivers may")
            print(f"{name}: {', '.join(sorted(ours)) or '-'}")
        elif name not in LAB:
            problems.append(f"{name}: neither a product crate nor a lab crate of the layering")
        for target in pkg["targets"]:
            if target["kind"][0] in ("lib", "cdylib", "rlib", "bin"):
                src = Path(target["src_path"]).parent
                for comp in module_cycles(src):
                    problems.append(f"{name}: modules import each other in a cycle: {' ↔ '.join(comp)}")
                break
    for p in problems:
        print(f"layering: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
