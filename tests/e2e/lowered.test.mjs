// Only the example reaches θ, in the real extension: a C library documented like SQLite's, its
// interface pages' content straight under `body`, the example with every optional section and the
// others with one to three, so that the example alone reaches the default θ. Learning takes θ from
// the scores (Rust's `pattern::lowered_threshold`), collects every interface page and nothing
// else, and the panel says why θ is what it is; Re-learn at that θ keeps both, fetching nothing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, learnEnded, sitePage } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const INTERFACES = 24;
const EXTENSION = 4;
const DOCS = 30;
const SECTIONS = ["<dl><dt><a href='#x'>flag</a></dt><dd>What it does.</dd></dl>", '<h3>Notes</h3>',
  '<ul><li><b>One</b> case.</li></ul>', '<table><tr><th>Code</th><td>Meaning</td></tr></table>',
  '<ol><li>First step.</li></ol>', '<h4>See also</h4>'];

const nav = (up) => `<div class=nav><a href="${up}index.html">Home</a> <a href="${up}docs.html">Docs</a></div>`;
const iface = (i, sections) => sitePage(`f${i}`, `${nav('../')}<h2>C Interface</h2><h2>Function ${i}</h2>` +
  `<blockquote><pre>int f${i}(int);</pre></blockquote><p>About f${i}.</p>${SECTIONS.slice(0, sections).join('')}` +
  `<p>See <a href="../c3ref/list.html">the list</a>.</p>`);

let site, browser, call, extensionId, close;

before(async () => {
  const files = {};
  for (let i = 0; i < INTERFACES; i++) files[`c3ref/f${i}.html`] = iface(i, i === 0 ? 6 : 1 + (i % 3));
  for (let i = 0; i < EXTENSION; i++) files[`ext/e${i}.html`] = iface(100 + i, 1 + (i % 3));
  const list = Array.from({ length: INTERFACES }, (_, i) => `<li><a href="f${i}.html">f${i}</a></li>`).join('');
  files['c3ref/list.html'] = sitePage('List', `${nav('../')}<h1>Functions</h1><ul>${list}</ul>`);
  for (let j = 0; j < DOCS; j++) {
    const paras = Array.from({ length: 1 + (j % 4) }, (_, p) => `<p>Paragraph ${p} of page ${j}.</p>`).join('');
    files[`doc${j}.html`] = sitePage(`Doc ${j}`, `${nav('')}<h1>Doc ${j}</h1>${paras}<div class=box><p>Box.</p></div>`);
  }
  const docs = Array.from({ length: DOCS }, (_, j) => `<li><a href="doc${j}.html">doc ${j}</a></li>`).join('');
  const ext = Array.from({ length: EXTENSION }, (_, i) => `<li><a href="ext/e${i}.html">e${i}</a></li>`).join('');
  files['docs.html'] = sitePage('Docs', `${nav('')}<h1>Docs</h1><ul>${docs}</ul><p><a href="c3ref/list.html">C API</a></p><ul>${ext}</ul>`);
  files['index.html'] = sitePage('Home', `${nav('')}<h1>Home</h1><p><a href="docs.html">Documentation</a></p>`);
  ({ site, browser, extensionId, call, close } = await filesInBrowser('lowered', files, BUILT));
});

after(async () => {
  await close?.();
});

test('θ is taken from the scores when only the example reaches it, and the panel says so', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}c3ref/f0.html`,
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  const interfaces = [
    ...Array.from({ length: INTERFACES }, (_, i) => `${site.url}c3ref/f${i}.html`),
    ...Array.from({ length: EXTENSION }, (_, i) => `${site.url}ext/e${i}.html`),
  ].sort();
  const lowered = learn.result.thresholdLowered;
  assert.ok(lowered, 'θ lowered');
  assert.equal(lowered.from, 0.875);
  // Every fetched page but the example: home, docs, the list, the prose pages and 27 interfaces.
  assert.deepEqual([lowered.pages, lowered.scored], [INTERFACES + EXTENSION - 1, DOCS + 3 + INTERFACES + EXTENSION - 1]);
  assert.ok(lowered.to >= 0.5 && lowered.to < 0.6, JSON.stringify(lowered));
  assert.equal(learn.result.threshold, lowered.to);
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), interfaces);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#lowered:not([hidden])').waitFor();
  assert.equal(await panel.locator('#lowered').textContent(),
    `θ lowered from 0.875 to ${lowered.to.toFixed(3)}: no page but your example reached 0.875. ` +
    `${lowered.pages} of the other ${lowered.scored} pages fetched score ${lowered.to.toFixed(3)} or more, ` +
    'where the scores split in two. Check the targets below; another θ re-learns.');
  assert.equal(Number(await panel.locator('#threshold').inputValue()), lowered.to);
  // Re-learn at the θ shown (what the panel's button sends): the same targets, the note kept,
  // nothing fetched again; the panel, opened again, still says why.
  const result = await call({ type: 'relearn', jobId, threshold: Number(await panel.locator('#threshold').inputValue()) });
  assert.deepEqual(result.targets.map((t) => t.url).sort(), interfaces);
  assert.deepEqual(result.thresholdLowered, lowered);
  const after = await call({ type: 'status', jobId });
  assert.equal(after.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await panel.reload();
  await panel.locator('#lowered:not([hidden])').waitFor();
  // Another θ is the user's: no note.
  const other = await call({ type: 'relearn', jobId, threshold: 0.6 });
  assert.equal(other.thresholdLowered, null);
  assert.equal(other.threshold, 0.6);
});

test('a θ the user set is kept where only the example reaches it, and the panel names the θ the scores give', { timeout: 180_000 }, async () => {
  const example = `${site.url}c3ref/f0.html`;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: example,
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false, threshold: 0.9 },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  assert.equal(learn.result.threshold, 0.9);
  assert.equal(learn.result.thresholdLowered, null);
  assert.deepEqual(learn.result.targets.map((t) => t.url), [example]);
  const cut = learn.result.thresholdCut;
  assert.ok(cut, 'the cut named');
  assert.equal(cut.from, 0.9);
  assert.deepEqual([cut.pages, cut.scored], [INTERFACES + EXTENSION - 1, DOCS + 3 + INTERFACES + EXTENSION - 1]);
  assert.ok(cut.to >= 0.5 && cut.to < 0.6, JSON.stringify(cut));

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#lowered:not([hidden])').waitFor();
  assert.equal(await panel.locator('#lowered').textContent(),
    `No page but your example reached θ 0.900, the θ you set. ${cut.pages} of the other ${cut.scored} pages ` +
    `fetched score ${cut.to.toFixed(3)} or more, where the scores split in two: re-learn at θ = ${cut.to.toFixed(3)} to take them.`);
  assert.equal(Number(await panel.locator('#threshold').inputValue()), 0.9);
  // Re-learning at the θ named takes every interface page, as the default θ's run did.
  const result = await call({ type: 'relearn', jobId, threshold: cut.to });
  assert.equal(result.targets.length, INTERFACES + EXTENSION);
  assert.equal(result.thresholdCut, null);
});
