// The playground: compares two pages (why they are, or are not, alike), classifies a page, and tests a
// navigation pattern on URLs, with the same WebAssembly core the extension uses. The core runs in a
// module worker (worker.js) so large pages never freeze the page. Page content is written with
// textContent only, never as markup.
//
// A classic script, so the page also opens from file://: there browsers refuse module scripts, workers
// from files and fetch(), so pkg/offline.js (written by build.sh) brings the core, the worker's code,
// the samples and the examples as strings, and the worker runs from a blob (as a classic script).
'use strict';

const $ = (id) => document.getElementById(id);
const OFFLINE = location.protocol === 'file:';

// Copied from the demo site (tests/fixtures/demo-site) by build.sh (build_www).
const SAMPLES = {
  'listing.html': ['Listing: apartments', 'imoveis/apartamentos.html'],
  'listing-2.html': ['Listing: houses', 'imoveis/casas.html'],
  'entity.html': ['Property: apartment', 'imovel/101-apartamento-2-quartos-lapa.html'],
  'entity-2.html': ['Property: house', 'imovel/115-casa-5-quartos-tatuape.html'],
  'home.html': ['Home page', 'index.html'],
  'faq.html': ['FAQ page', 'faq.html'],
};
const PATTERNS = { 'demo-pattern.json': 'Demo site (hand-written)' };
const BASE_URL = 'https://demo.exemplar.dev/';
const STATUS_MARK = { identical: '=', matched: '·', deleted: '−', inserted: '+', mismatch: '≠' };
const STATUS_WORD = {
  identical: 'identical subtree', matched: 'matched', deleted: 'deleted (only in A)',
  inserted: 'inserted (only in B)', mismatch: 'label mismatch',
};

// --- The worker -------------------------------------------------------------------------------
const pending = new Map();
let nextId = 1;
let worker = null;
const workerReady = new Promise((resolve, reject) => pending.set(0, { resolve, reject }));

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`could not load ${src} (run ./build.sh)`));
    document.head.append(script);
  });
}

/** The worker: worker.js, or from file:// the same code after the core's glue, from a blob. */
async function startWorker() {
  if (!OFFLINE) return new Worker('worker.js', { type: 'module' });
  await loadScript('pkg/offline.js');
  const o = self.EXEMPLAR_OFFLINE;
  const body = o.worker.replace(/^import init, \* as core from .*$/m,
    `const init = () => __wbg_init({ module_or_path: Uint8Array.from(atob(__WASM), (c) => c.charCodeAt(0)) });
const core = { similarity, compareTrees, classifyPage, parsePage, validatePattern, renderPattern, testPattern, generaliseUrls };`);
  // Browsers refuse module workers from blobs of file:// pages: the glue becomes a classic script.
  const glue = o.glue.replace(/^export \{[^}]*\};?$/m, '')
    .replace(/^export (?=(?:async )?(?:class|function|const|let) )/gm, '')
    .replace(/import\.meta\.url/g, 'self.location.href');
  const blob = new Blob([glue, '\nconst __WASM = "', o.wasm, '";\n', body], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(blob));
}

function listen(w) {
  w.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p) return;
    pending.delete(data.id);
    if (data.ok) p.resolve(data.result);
    else p.reject(new Error(data.error));
  };
  w.onerror = (e) => {
    for (const p of pending.values()) p.reject(new Error(e.message || 'the worker failed to start'));
    pending.clear();
  };
}

/** Calls a core export in the worker. */
function call(fn, ...args) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, fn, args });
  });
}

// --- Small helpers -----------------------------------------------------------------------------
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

/** Runs an async action from a button: disables it meanwhile, reports errors in the status line. */
function action(button, fn) {
  button.addEventListener('click', async () => {
    button.disabled = true;
    const started = performance.now();
    try {
      setStatus('Working…');
      await fn();
      setStatus(`Done in ${Math.round(performance.now() - started)} ms.`);
    } catch (e) {
      setStatus(`Error: ${e?.message ?? e}`, true);
    } finally {
      button.disabled = false;
    }
  });
}

async function fetchText(path) {
  if (OFFLINE) {
    const text = self.EXEMPLAR_OFFLINE?.files[path];
    if (text === undefined) throw new Error(`${path}: not bundled`);
    return text;
  }
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

/** A file input and drops on a textarea fill the textarea with the file's text. */
function fileInto(input, textarea, after = () => {}) {
  const load = async (file) => {
    if (!file) return;
    textarea.value = await file.text();
    after(file);
  };
  input?.addEventListener('change', () => load(input.files[0]).catch((e) => setStatus(e.message, true)));
  textarea.addEventListener('dragover', (e) => { e.preventDefault(); textarea.classList.add('dragover'); });
  textarea.addEventListener('dragleave', () => textarea.classList.remove('dragover'));
  textarea.addEventListener('drop', (e) => {
    e.preventDefault();
    textarea.classList.remove('dragover');
    load(e.dataTransfer.files[0]).catch((err) => setStatus(err.message, true));
  });
}

// --- Tabs (WAI-ARIA tabs: arrows move between tabs) ------------------------------------------
function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute('aria-controls')).hidden = !on;
    }
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (e) => {
      const d = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (d === undefined) return;
      const next = tabs[(i + d + tabs.length) % tabs.length];
      select(next);
      next.focus();
    });
  });
}

// --- 1. Compare two pages ------------------------------------------------------------------------
/** The outlines drawn for the current comparison: per side, node index → element, built lazily. */
const drawn = { a: new Map(), b: new Map() };
let current = null;

function compareOptions() {
  const options = {};
  if ($('view').value === 'full') {
    options.view = { collapse: 'none', maxDepth: null, text: true, classes: false, ids: false, topWeight: 0, topDepth: 0, mergeAbove: 0 };
  }
  const theta = $('threshold').value;
  if (theta !== '') options.threshold = Number(theta);
  return options;
}

async function compare() {
  const r = await call('compareTrees', $('html-a').value, $('html-b').value, compareOptions());
  const v = r.verdict;
  $('similarity').textContent =
    `similarity ${v.similarity.toFixed(3)} · distance ${v.distance} · sizes ${v.sizeA} / ${v.sizeB} nodes · ` +
    `${v.similar ? 'similar' : 'not similar'} (threshold ${v.threshold})`;
  current = r;
  drawTrees(r);
  drawOps(r);
  $('compare-result').hidden = false;
}

function children(outline) {
  const kids = outline.labels.map(() => []);
  outline.parents.forEach((p, i) => { if (p >= 0) kids[p].push(i); });
  return kids;
}

function drawTrees(r) {
  for (const side of ['a', 'b']) {
    const outline = r[side];
    outline.kids = children(outline);
    drawn[side] = new Map();
    const root = $(`tree-${side}`);
    root.replaceChildren();
    if (outline.labels.length) root.append(nodeElement(side, 0));
  }
}

/** Opens identical, deleted, inserted and mismatched subtrees only on demand. */
function openByDefault(status) {
  return status === 'matched';
}

function nodeElement(side, i) {
  const outline = current[side];
  const status = outline.status[i];
  const label = el('span', { class: `node s-${status}`, 'data-side': side, 'data-node': String(i) },
    el('span', { class: 'mark', 'aria-hidden': 'true', text: STATUS_MARK[status] ?? '?' }), ` ${outline.labels[i]}`);
  label.setAttribute('aria-label', `${outline.labels[i]}: ${STATUS_WORD[status] ?? status}`);
  drawn[side].set(i, label);
  const kids = outline.kids[i];
  if (!kids.length) {
    label.tabIndex = 0; // a summary is focusable already
    return el('div', { class: 'leaf' }, label);
  }
  const details = el('details', {}, el('summary', {}, label));
  const fill = () => {
    if (details.dataset.filled) return;
    details.dataset.filled = '1';
    const box = el('div', { class: 'kids' });
    for (const k of kids) box.append(nodeElement(side, k));
    details.append(box);
  };
  details.addEventListener('toggle', () => { if (details.open) fill(); });
  if (openByDefault(status)) {
    fill();
    details.open = true;
  }
  return details;
}

/** Draws (and opens) the path to node `i` of `side`; returns its element. */
function reveal(side, i) {
  const outline = current[side];
  const path = [];
  for (let n = i; n >= 0; n = outline.parents[n]) path.unshift(n);
  for (const n of path.slice(0, -1)) {
    const details = drawn[side].get(n)?.closest('details');
    if (details && !details.open) details.open = true; // the toggle event fills it…
    if (details && !details.dataset.filled) details.dispatchEvent(new Event('toggle')); // …now, not later
  }
  return drawn[side].get(i);
}

function highlight(nodeEl, on) {
  const side = nodeEl.dataset.side;
  const other = side === 'a' ? 'b' : 'a';
  const partner = current?.[side].partner[Number(nodeEl.dataset.node)];
  nodeEl.classList.toggle('source', on);
  if (partner === undefined || partner < 0) return null;
  const target = drawn[other].get(partner);
  target?.classList.toggle('linked', on);
  return partner;
}

/** The node label of an event target: the label itself, or the summary (focusable) holding it. */
function nodeOf(target) {
  return target.closest?.('.node') ?? (target.matches?.('summary') ? target.querySelector(':scope > .node') : null);
}

function setupTreeLinks() {
  for (const side of ['a', 'b']) {
    const root = $(`tree-${side}`);
    const over = (e) => { const n = nodeOf(e.target); if (n) highlight(n, true); };
    const out = (e) => { const n = nodeOf(e.target); if (n) highlight(n, false); };
    root.addEventListener('mouseover', over);
    root.addEventListener('mouseout', out);
    root.addEventListener('focusin', over);
    root.addEventListener('focusout', out);
    const go = (n) => {
      const partner = current[side].partner[Number(n.dataset.node)];
      if (partner < 0) return;
      const other = side === 'a' ? 'b' : 'a';
      const target = reveal(other, partner);
      target?.classList.add('linked');
      target?.scrollIntoView({ block: 'nearest' });
    };
    root.addEventListener('click', (e) => {
      const n = nodeOf(e.target);
      if (n) go(n);
    });
    root.addEventListener('keydown', (e) => {
      const n = nodeOf(e.target);
      if (n && e.key === 'Enter') { e.preventDefault(); go(n); }
    });
  }
}

const OPS_SHOWN = 300;

function drawOps(r) {
  const list = $('ops');
  list.replaceChildren();
  // Mismatches first: they are what cut the mapping.
  const order = { mismatch: 0, delete: 1, insert: 2 };
  const ops = [...r.ops].sort((x, y) => order[x.op] - order[y.op] || y.cost - x.cost);
  $('ops-count').textContent = `(${r.ops.length}, total cost ${r.cost})`;
  for (const op of ops.slice(0, OPS_SHOWN)) {
    const li = el('li', { class: 'op' });
    const describe = (side, n) => (n >= 0 ? `${side.toUpperCase()}: ${r[side].labels[n]}` : '');
    li.append(el('span', { class: `mark s-${{ mismatch: 'mismatch', delete: 'deleted', insert: 'inserted' }[op.op]}`, text: op.op }),
      ` ${[describe('a', op.a), describe('b', op.b)].filter(Boolean).join(' ≠ ')} · cost ${op.cost}`);
    for (const side of ['a', 'b']) {
      const n = op[side];
      if (n < 0) continue;
      const show = el('button', { type: 'button', text: `show in ${side.toUpperCase()}` });
      show.addEventListener('click', () => {
        const target = reveal(side, n);
        if (!target) return;
        target.scrollIntoView({ block: 'nearest' });
        (target.closest('summary') ?? target).focus();
      });
      li.append(show);
    }
    list.append(li);
  }
  if (ops.length > OPS_SHOWN) list.append(el('li', { text: `… and ${ops.length - OPS_SHOWN} more` }));
}

async function classifyBoth() {
  for (const side of ['a', 'b']) {
    const c = await call('classifyPage', $(`html-${side}`).value, sampleUrl($(`sample-${side}`).value));
    $(`kind-${side}`).textContent = `${c.kind} · ${Math.round(c.confidence * 100)}% confidence`;
  }
}

function sampleUrl(name) {
  return SAMPLES[name] ? BASE_URL + SAMPLES[name][1] : '';
}

// --- 2. Classify a page ---------------------------------------------------------------------------
async function classify() {
  const c = await call('classifyPage', $('classify-html').value, $('classify-url').value.trim());
  $('classify-kind').textContent = c.kind;
  $('classify-confidence').textContent = `${Math.round(c.confidence * 100)}% confidence`;
  $('classify-summary').replaceChildren(...(c.summary ?? []).map((s) => el('li', { text: s })));
  $('classify-evidence').textContent = JSON.stringify(c.evidence, null, 2);
}

// --- 3. Test a pattern ------------------------------------------------------------------------------
async function testPattern() {
  const json = $('pattern-json').value;
  const out = $('pattern-result');
  out.replaceChildren();
  await call('validatePattern', json);
  const r = await call('testPattern', json, $('pattern-urls').value);
  for (const level of r.levels) {
    const last = level.level === r.levels.length;
    const loop = (level.paginate ? (last ? ' · followed from target to target' : ' · paginates') : '')
      + (level.fromTargets ? ' · also followed from targets' : '');
    out.append(el('h3', { text: `Level ${level.level}${last ? ' (targets)' : ''}${loop}` }));
    const table = el('table', { class: 'level', 'data-level': String(level.level) },
      el('thead', {}, el('tr', {}, el('th', { text: 'Regex' }), el('th', { text: 'Accepts' }))));
    const body = el('tbody');
    for (const re of level.regexes) {
      const urls = el('ul');
      for (const i of re.accepts) urls.append(el('li', { class: 'accepted', text: r.urls[i].url }));
      if (!re.accepts.length) urls.append(el('li', { class: 'none', text: 'no URL' }));
      body.append(el('tr', {}, el('td', {}, el('code', { class: 'regex', text: re.regex })),
        el('td', {}, el('p', { text: `${re.accepts.length} of ${r.urls.length} URLs` }), urls)));
    }
    table.append(body);
    out.append(table);
  }
  out.append(el('h3', { text: 'Where each URL leads' }));
  const head = el('tr', {}, el('th', { text: 'URL' }),
    ...r.levels.map((l, i) => el('th', { text: i === 0 ? 'found on the entry' : `found on a level ${i} page` })));
  const body = el('tbody');
  for (const u of r.urls) {
    body.append(el('tr', {}, el('td', {}, el('code', { text: u.url })),
      ...u.steps.map((s) => el('td', { class: s ? 'accepted' : 'none', text: s ?? 'not followed' }))));
  }
  out.append(el('table', { id: 'pattern-steps' }, el('thead', {}, head), body));
}

async function generalise() {
  $('gen-result').replaceChildren();
  const r = await call('generaliseUrls', $('gen-urls').value, $('gen-negatives').value);
  const urls = $('gen-urls').value.split('\n').map((s) => s.trim()).filter(Boolean);
  const out = $('gen-result');
  out.replaceChildren(el('h3', { text: 'Regexes the learner writes' }),
    el('ul', { id: 'gen-regexes' }, ...r.regexes.map((re) => el('li', {}, el('code', { class: 'regex', text: re })))),
    el('h3', { text: `URL groups (URLSim): ${r.groups.length}` }));
  const table = el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'URLs' }), el('th', { text: 'Regex of the group' }))));
  const body = el('tbody');
  r.groups.forEach((g, i) => {
    body.append(el('tr', {}, el('td', {}, el('ul', {}, ...g.map((k) => el('li', { text: urls[k] })))),
      el('td', {}, el('code', { class: 'regex', text: r.groupRegexes[i] ?? '(not URLs)' }))));
  });
  table.append(body);
  out.append(table);
}

// --- Start -------------------------------------------------------------------------------------------
async function main() {
  worker = await startWorker();
  listen(worker);
  setupTabs();
  setupTreeLinks();
  const initial = { a: 'listing.html', b: 'entity.html' };
  for (const side of ['a', 'b']) {
    const select = $(`sample-${side}`);
    for (const [name, [label]] of Object.entries(SAMPLES)) select.add(new Option(label, name, false, name === initial[side]));
    select.add(new Option('(your own page)', ''));
    select.addEventListener('change', () => {
      if (select.value) fetchText(`samples/${select.value}`).then((t) => ($(`html-${side}`).value = t)).catch((e) => setStatus(e.message, true));
    });
    fileInto($(`file-${side}`), $(`html-${side}`), () => (select.value = ''));
    $(`html-${side}`).addEventListener('input', () => (select.value = ''));
  }
  const cs = $('classify-sample');
  for (const [name, [label]] of Object.entries(SAMPLES)) cs.add(new Option(label, name, false, name === 'listing.html'));
  cs.add(new Option('(your own page)', ''));
  const loadClassify = async () => {
    if (!cs.value) return;
    $('classify-html').value = await fetchText(`samples/${cs.value}`);
    $('classify-url').value = sampleUrl(cs.value);
  };
  cs.addEventListener('change', () => loadClassify().catch((e) => setStatus(e.message, true)));
  $('classify-html').addEventListener('input', () => (cs.value = ''));
  fileInto($('classify-file'), $('classify-html'), (f) => { cs.value = ''; $('classify-url').value = ''; void f; });

  const ps = $('pattern-sample');
  for (const [name, label] of Object.entries(PATTERNS)) ps.add(new Option(label, name));
  ps.add(new Option('(your own pattern)', ''));
  const loadPattern = async () => {
    if (!ps.value) return;
    $('pattern-json').value = await fetchText(`examples/${ps.value}`);
    $('pattern-urls').value = await fetchText('examples/demo-urls.txt');
  };
  ps.addEventListener('change', () => loadPattern().catch((e) => setStatus(e.message, true)));
  fileInto($('pattern-file'), $('pattern-json'), () => (ps.value = ''));
  fileInto($('urls-file'), $('pattern-urls'));
  fileInto(null, $('gen-urls'));

  action($('compare'), compare);
  action($('classify'), classifyBoth);
  action($('classify-run'), classify);
  action($('pattern-run'), testPattern);
  action($('gen-run'), generalise);

  const samples = Promise.all([
    fetchText(`samples/${initial.a}`).then((t) => ($('html-a').value = t)),
    fetchText(`samples/${initial.b}`).then((t) => ($('html-b').value = t)),
    loadClassify(),
    loadPattern(),
  ]).catch((e) => setStatus(`Samples unavailable (${e.message}): paste or open pages instead.`, true));
  await workerReady;
  for (const id of ['compare', 'classify', 'classify-run', 'pattern-run', 'gen-run']) $(id).disabled = false;
  await samples;
  if (!$('status').classList.contains('error')) setStatus('Ready.');
}

main().catch((e) => {
  setStatus(`Could not start: ${e?.message ?? e}. Browsers that block module scripts on file:// pages need a static server (e.g. python3 -m http.server in this folder).`, true);
});
