#!/usr/bin/env bash
# Exemplar's benchmark (`./build.sh bench [ARGS]`): native core (cargo bench --bench core), the same
# code as wasm in headless Chromium next to Chromium's own DOMParser, and peers on the same trees
# (the tree-edit-distance crate, inside the native bench; Python zss, apted and html-similarity),
# merged into one table printed here and written to docs/reports/benchmarks.md. See bench/README.md.
#
#   bash bench/run.sh [--quick] [--no-wasm] [--no-python] [--timeout SECONDS] [--out FILE]
#
#   --quick        short timing budgets and a 10 s peer timeout; prints the table, writes no docs
#   --no-wasm      skip the wasm/Chromium part        --no-python  skip the Python peers
#   --timeout S    per-comparison timeout of the Python peers (default 60)
#   --out FILE     where the Markdown goes (default docs/reports/benchmarks.md; full runs only unless given)
#
# Results (JSON) go to target/bench/ (EXEMPLAR_BENCH_DIR overrides). Respects CARGO_TARGET_DIR.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
OUT=${EXEMPLAR_BENCH_DIR:-$ROOT/target/bench}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WASM_TARGET=wasm32-unknown-unknown
QUICK=0 WASM=1 PYTHON=1 TIMEOUT='' DOC=''

while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --no-wasm) WASM=0 ;;
    --no-python) PYTHON=0 ;;
    --timeout) TIMEOUT=$2; shift ;;
    --out) DOC=$2; shift ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if ((QUICK)); then BUDGET_MS=150; TIMEOUT=${TIMEOUT:-10}; else BUDGET_MS=600; TIMEOUT=${TIMEOUT:-60}; fi
if [[ -z $DOC ]] && ((!QUICK)); then DOC=docs/reports/benchmarks.md; fi

section() { printf '\n==> %s\n' "$*"; }
die() { printf 'bench/run.sh: error: %s\n' "$*" >&2; exit 1; }
START=$SECONDS

mkdir -p "$OUT"
rm -f "$OUT"/native.json "$OUT"/pairs.json "$OUT"/wasm.json "$OUT"/python.json
python3 - "$OUT/env.json" "$(rustc --version)" "$(node --version 2>/dev/null || true)" <<'EOF'
import datetime, json, os, sys
out, rustc, node = sys.argv[1:]
json.dump({"rustc": rustc, "node": f"node {node}" if node else "",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "load": " ".join(f"{x:.1f}" for x in os.getloadavg())}, open(out, "w"))
EOF

# ---------------------------------------------------------------- native (+ tree-edit-distance)
section "native: cargo bench -p exemplar-bench --bench core (parse, RTDM, tree-edit-distance crate; exports trees)"
EXEMPLAR_BENCH_DIR=$OUT EXEMPLAR_BENCH_QUICK=$QUICK cargo bench -p exemplar-bench --bench core >"$OUT/native.log"
[[ -f $OUT/native.json ]] || die "the native bench wrote no $OUT/native.json"

# ---------------------------------------------------------------- wasm in headless Chromium
if ((WASM)); then
  section "wasm: build (release, wasm-bindgen --target web) and run in headless Chromium"
  command -v wasm-bindgen >/dev/null || die "wasm-bindgen not installed: run ./build.sh setup (or pass --no-wasm)"
  [[ -x /usr/bin/chromium ]] || die "/usr/bin/chromium missing: run ./build.sh setup (or pass --no-wasm)"
  [[ -d node_modules/playwright-core ]] || die "playwright-core missing: run ./build.sh setup (or pass --no-wasm)"
  # The benchmark exports are a build of their own (bench/wasm), never in the product module.
  cargo build -p exemplar-bench-wasm --release --target "$WASM_TARGET"
  rm -rf "$OUT/pkg"
  wasm-bindgen --target web --out-name exemplar --out-dir "$OUT/pkg" "$TARGET_DIR/$WASM_TARGET/release/exemplar_bench_wasm.wasm"
  if [[ -x node_modules/.bin/wasm-opt ]]; then
    # As the product build does (./build.sh wasm).
    npx --no-install wasm-opt -O3 "$OUT/pkg/exemplar_bg.wasm" -o "$OUT/pkg/exemplar_bg.opt.wasm"
    mv "$OUT/pkg/exemplar_bg.opt.wasm" "$OUT/pkg/exemplar_bg.wasm"
  fi
  BROWSER_TMP=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-bench.XXXXXX")
  trap 'rm -rf "$BROWSER_TMP"' EXIT
  mkdir -p "$BROWSER_TMP/home" "$BROWSER_TMP/tmp"
  # The /usr/bin/chromium wrapper's harmless "[: unexpected operator" noise is filtered out.
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp node bench/wasm-bench.mjs --pkg "$OUT/pkg" \
    --pairs "$OUT/pairs.json" --out "$OUT/wasm.json" --budget-ms "$BUDGET_MS" \
    2> >(grep -v 'unexpected operator' >&2)
  [[ -f $OUT/wasm.json ]] || die "the wasm bench wrote no $OUT/wasm.json"
fi

# ---------------------------------------------------------------- Python peers
if ((PYTHON)); then
  section "Python peers (zss, apted, html-similarity; timeout ${TIMEOUT} s per comparison)"
  VENV=bench/.venv
  stamp=$VENV/.requirements.sha256
  want=$(sha256sum bench/requirements.txt | cut -d' ' -f1)
  if [[ ! -x $VENV/bin/python || ! -f $stamp || $(<"$stamp") != "$want" ]]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r bench/requirements.txt
    echo "$want" >"$stamp"
  fi
  "$VENV/bin/python" bench/peers.py --dir "$OUT" --timeout "$TIMEOUT" >"$OUT/python.json"
fi

# ---------------------------------------------------------------- report
section "results ($((SECONDS - START)) s)"
python3 bench/report.py --dir "$OUT" --env "$OUT/env.json" ${DOC:+--out "$DOC"}
[[ -n $DOC ]] && echo && echo "wrote $DOC"
exit 0
