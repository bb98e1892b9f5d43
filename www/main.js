// The playground: compares two pages (structural similarity) and classifies them, in the page, with the
// same WebAssembly core the extension uses. Results are written with textContent only.
import init, { classifyPage, similarity } from './pkg/exemplar.js';

const $ = (id) => document.getElementById(id);
// Copied from the bundled demo site (tests/fixtures/demo-site) by build.sh.
const SAMPLES = {
  'listing.html': 'Listing: apartments',
  'entity.html': 'Property: apartment',
  'entity-2.html': 'Property: house',
};
const BASE_URL = 'https://demo.exemplar.dev/';

async function loadSample(side, name) {
  const response = await fetch(`samples/${name}`);
  if (!response.ok) throw new Error(`samples/${name}: HTTP ${response.status}`);
  $(`html-${side}`).value = await response.text();
}

function compare() {
  const r = similarity($('html-a').value, $('html-b').value);
  $('similarity').textContent =
    `similarity ${r.similarity.toFixed(3)} · distance ${r.distance} · sizes ${r.sizeA} / ${r.sizeB} nodes · ` +
    `${r.similar ? 'similar' : 'not similar'} (threshold ${r.threshold})`;
}

function classify() {
  for (const side of ['a', 'b']) {
    const c = classifyPage($(`html-${side}`).value, `${BASE_URL}${$(`sample-${side}`).value}`);
    $(`kind-${side}`).textContent = `${c.kind} · ${Math.round(c.confidence * 100)}% confidence`;
  }
}

function guarded(fn) {
  return () => {
    try {
      $('status').className = '';
      fn();
    } catch (e) {
      $('status').textContent = `Error: ${e?.message ?? e}`;
      $('status').className = 'error';
    }
  };
}

async function main() {
  for (const [side, initial] of [['a', 'listing.html'], ['b', 'entity.html']]) {
    const select = $(`sample-${side}`);
    for (const [name, label] of Object.entries(SAMPLES)) select.add(new Option(label, name, false, name === initial));
    select.addEventListener('change', () => loadSample(side, select.value).catch((e) => ($('status').textContent = e.message)));
  }
  await Promise.all([init(), loadSample('a', 'listing.html'), loadSample('b', 'entity.html')]);
  $('compare').addEventListener('click', guarded(compare));
  $('classify').addEventListener('click', guarded(classify));
  $('compare').disabled = $('classify').disabled = false;
  $('status').textContent = 'Ready.';
}

main().catch((e) => {
  $('status').textContent = `Could not start: ${e?.message ?? e}`;
  $('status').className = 'error';
});
