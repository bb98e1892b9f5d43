#!/usr/bin/env bash
# Mapping's cost in instructions (`./build.sh bench-instructions [REV...]`): the instructions the
# mapping thread of `exemplar learn` executes on the PostgreSQL documentation served on
# 127.0.0.1, counted by valgrind's callgrind. CPU time moves by a quarter from run to run on a
# shared machine (docs/reports/bench-crawl.md shows the range); an instruction count does not, so it is
# how a change's cost is compared: this tree first, then each git revision REV, built in a
# scratch worktree and measured on the same site in the same run, with the ratio to this tree and
# whether its site map is this tree's (a ratio between runs that learn different things says
# nothing). Prints a Markdown table.
#
#   bash bench/instructions.sh [REV...]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
SITE=/usr/share/doc/postgresql-doc-15/html
ENTRY=index.html
EXAMPLE=sql-vacuum.html

die() { printf 'bench-instructions: error: %s\n' "$*" >&2; exit 1; }

[[ -d $SITE ]] || die "$SITE is missing: run ./build.sh setup"
if ! command -v valgrind >/dev/null; then
  echo "installing valgrind" >&2
  sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind >&2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-instructions.XXXXXX")
SERVER=''
WORKTREES=()
cleanup() {
  [[ -n $SERVER ]] && kill "$SERVER" 2>/dev/null
  for w in "${WORKTREES[@]}"; do git -C "$ROOT" worktree remove --force "$w" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# One port for every run: site maps name it, and they are compared.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE=http://127.0.0.1:$PORT

# measure LABEL BINARY: sets PAGES and TOTAL (instructions) and leaves the site map in
# $WORK/LABEL.map.json. Not run in a subshell, so cleanup sees the server it starts.
measure() {
  local label=$1 bin=$2 out
  "$bin" serve "$SITE" --port "$PORT" >/dev/null 2>&1 &
  SERVER=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
  done
  # No politeness delay: only instructions are counted, and the delay would only add waiting.
  out=$(valgrind --tool=callgrind --separate-threads=yes \
    --callgrind-out-file="$WORK/$label.cg.%p" \
    "$bin" learn --entry "$BASE/$ENTRY" --example "$BASE/$EXAMPLE" \
    -o "$WORK/$label.pattern.json" --map "$WORK/$label.map.json" \
    --delay-ms 0 --concurrency 8 --quiet 2>/dev/null)
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  SERVER=''
  PAGES=$(sed -n 's/^mapping: \([0-9]*\) pages fetched.*/\1/p' <<<"$out")
  [[ -n $PAGES ]] || die "$label: exemplar learn printed no mapping summary"
  # Thread 1 is the driver: parse, similarity, bookkeeping (the others are the HTTP client's).
  TOTAL=$(sed -n 's/^totals: *//p' "$WORK/$label".cg.*-01)
  [[ -n $TOTAL ]] || die "$label: no callgrind totals for the main thread"
}

# build_rev REV N: builds revision REV in a scratch worktree; sets BIN. (Not a subshell: the
# worktree is recorded for cleanup.)
build_rev() {
  local rev=$1 dir=$WORK/rev-$2
  git -C "$ROOT" worktree add --detach "$dir" "$rev" >/dev/null 2>&1 || die "no revision $rev"
  WORKTREES+=("$dir")
  cargo build --release --bin exemplar --manifest-path "$dir/Cargo.toml" --target-dir "$WORK/target" >&2
  BIN=$WORK/target/release/exemplar
}

row() {
  local label=$1 pages=$2 total=$3 ratio=$4 same=$5
  awk -v l="$label" -v p="$pages" -v t="$total" -v r="$ratio" -v s="$same" 'BEGIN {
    printf "| %s | %d | %.3f G | %.2f M | %s | %s |\n", l, p, t / 1e9, t / p / 1e6, r, s }'
}

echo "Instructions of the mapping thread of \`exemplar learn\` (entry $ENTRY, example $EXAMPLE) on the PostgreSQL documentation served on 127.0.0.1, counted by callgrind"
echo
echo "| code | pages | instructions | per page | ratio to this tree | same site map |"
echo "|---|---|---|---|---|---|"
cargo build --release --bin exemplar >&2
measure tree "${CARGO_TARGET_DIR:-$ROOT/target}/release/exemplar"
total=$TOTAL
row "this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ', modified'))" \
  "$PAGES" "$TOTAL" 1 –
n=0
for rev in "$@"; do
  n=$((n + 1))
  build_rev "$rev" "$n"
  measure "rev$n" "$BIN"
  same=no
  cmp -s "$WORK/tree.map.json" "$WORK/rev$n.map.json" && same=yes
  row "$rev" "$PAGES" "$TOTAL" "$(awk -v a="$TOTAL" -v b="$total" 'BEGIN { printf "%.3f", a / b }')" "$same"
done
