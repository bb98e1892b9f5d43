#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) on the stable toolchain.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]      (./build.sh fuzz [SECONDS] calls this)
#
# Installs cargo-fuzz if missing. Fails on the first crash, leak, timeout or OOM and prints the
# reproducer (fuzz/artifacts/<target>/...). New corpus entries go to fuzz/work/<target>/ (ignored
# by git); the committed seeds in fuzz/corpus/<target>/ are only read.
#
# Environment: FUZZ_SANITIZER (address | none) overrides the per-target default: ASan for
# parse_classify and tokenizer_diff (html5ever and tendril use unsafe code), none for the others (safe
# code only; ASan would cost ~5x the executions). A failed ASan build falls back to none.
# CARGO_TARGET_DIR (default fuzz/target) gets one subdirectory per sanitizer.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(parse_classify rtdm tree_deserialize crawl_inputs tokenizer_diff saved_state)
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

# cargo-fuzz wants nightly flags (-Zsanitizer, -Cpasses=sancov-module); stable rustc accepts them
# with RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: installing cargo-fuzz"
  cargo install --locked cargo-fuzz
fi

sanitizer_of() {
  if [[ -n ${FUZZ_SANITIZER:-} ]]; then
    echo "$FUZZ_SANITIZER"
  elif [[ $1 == parse_classify || $1 == tokenizer_diff ]]; then
    echo address
  else
    echo none
  fi
}

# build SANITIZER TARGET: prints the sanitizer actually built with.
build() {
  local san=$1 target=$2
  if cargo fuzz build -O --sanitizer "$san" --target-dir "$TARGET_DIR/$san" "$target" >&2; then
    echo "$san"
  elif [[ $san != none ]]; then
    echo "fuzz/run.sh: the $san build failed; retrying with --sanitizer none" >&2
    cargo fuzz build -O --sanitizer none --target-dir "$TARGET_DIR/none" "$target" >&2
    echo none
  else
    return 1
  fi
}

# Per-target libFuzzer options: input size and dictionary.
options() {
  case $1 in
    parse_classify) echo "-max_len=16384 -dict=html.dict -timeout=30" ;;
    rtdm) echo "-max_len=256 -timeout=60" ;;
    tree_deserialize) echo "-max_len=8192 -dict=tree.dict -timeout=20" ;;
    crawl_inputs) echo "-max_len=8192 -timeout=30" ;;
    tokenizer_diff) echo "-max_len=4096 -dict=html.dict -timeout=30" ;;
  esac
}

status=0
for target in "${TARGETS[@]}"; do
  mkdir -p "work/$target" "corpus/$target" "artifacts/$target"
  log="work/$target.log"
  san=$(build "$(sanitizer_of "$target")" "$target")
  echo "==> fuzzing $target for ${SECONDS_PER_TARGET}s (sanitizer: $san, log: fuzz/$log)"
  # shellcheck disable=SC2046
  if cargo fuzz run -O --sanitizer "$san" --target-dir "$TARGET_DIR/$san" "$target" \
      "work/$target" "corpus/$target" -- \
      -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=4096 -print_final_stats=1 \
      $(options "$target") >"$log" 2>&1; then
    grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$log" || true
    grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
  else
    status=1
    echo "fuzz/run.sh: $target FAILED; last lines of fuzz/$log:" >&2
    grep -E 'panicked at|ERROR:|SUMMARY' "$log" | head -5 >&2 || true
    tail -n 5 "$log" >&2
    for f in $(grep -oE "artifacts/$target/[a-z-]+-[0-9a-f]+" "$log" | sort -u); do
      echo "fuzz/run.sh: reproducer: fuzz/$f" >&2
      echo "  replay: (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -O --sanitizer $san $target $f)" >&2
    done
    break
  fi
done
exit $status
