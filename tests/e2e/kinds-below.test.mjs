// An OCaml API documented as ocamldoc does, in the real extension: ten classes headed
// "Class G.*" and six virtual classes headed "Class virtual G.*" whose fewer sections keep them
// below θ. The panel lists the pages below θ by heading (Rust's `heading::kinds_below`); ticking
// the virtual classes' kind and re-learning takes them all whatever their similarity, fetching
// nothing; unticking takes the verdict back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, learnEnded, relearnFromPanel, sitePage, tick, unfold, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const CLASSES = ['window', 'button', 'label', 'entry', 'frame', 'notebook', 'paned', 'table', 'image', 'scale'];
const VIRTUALS = ['action_group', 'ml_signals', 'focus', 'drag_ops', 'misc_ops', 'gobject_ops'];
const KIND = 'Class virtual *';

const page = (title, h1, body) => sitePage(title, `<div class=navbar><a href="index.html">Up</a></div><h1>${h1}</h1>${body}`);
const cls = (c, n) => page(c, `Class <a href="type_${c}.html">G.${c}</a>`,
  `<pre><span>class</span> <code>${c}</code></pre><div class=info><p>About ${c}.</p></div><ul><li>inherits</li></ul><hr>` +
  Array.from({ length: n }, (_, m) => `<pre><span class=keyword>method</span> <code>m${m} : unit</code></pre><div class=info><p>Does ${m}.</p></div>`).join(''));
const virt = (v, n) => page(v, `Class virtual <a href="type_${v}.html">G.${v}</a>`,
  `<pre><span>class virtual</span> <code>${v}</code></pre><hr>` +
  Array.from({ length: n }, (_, m) => `<pre><span class=keyword>method</span> <code>m${m} : unit</code></pre>`).join('') +
  '<table><tr><td>x</td></tr></table>');

let site, browser, call, extensionId, close;

before(async () => {
  const files = {};
  CLASSES.forEach((c, i) => { files[`G.${c}-c.html`] = cls(c, 3 + (i % 4)); });
  VIRTUALS.forEach((v, i) => { files[`G.${v}-c.html`] = virt(v, 2 + (i % 3)); });
  for (let i = 0; i < 8; i++) {
    files[`doc${i}.html`] = page(`Doc ${i}`, `Doc ${i}`, Array.from({ length: 1 + (i % 3) }, (_, j) => `<p>Para ${j}.</p>`).join(''));
  }
  const links = [...CLASSES, ...VIRTUALS].map((c) => `<li><a href="G.${c}-c.html">${c}</a></li>`).join('') +
    Array.from({ length: 8 }, (_, i) => `<li><a href="doc${i}.html">Doc ${i}</a></li>`).join('');
  files['index.html'] = page('Index', 'Index of classes', `<ul>${links}</ul>`);
  ({ site, browser, extensionId, call, close } = await filesInBrowser('kinds-below', files, BUILT));
});

after(async () => {
  await close?.();
});

test('a kind of page below θ ticked in the panel is taken whatever its similarity', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}G.window-c.html`,
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  const classes = CLASSES.map((c) => `${site.url}G.${c}-c.html`).sort();
  const virtuals = VIRTUALS.map((v) => `${site.url}G.${v}-c.html`).sort();
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), classes);
  const [kind] = learn.result.headingKindsBelow;
  assert.equal(kind.template, KIND, JSON.stringify(learn.result.headingKindsBelow));
  assert.equal(kind.pages, VIRTUALS.length);
  assert.ok(kind.best > 0.5 && kind.best < learn.result.threshold, String(kind.best));
  assert.ok(!kind.like && !kind.example);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await until(panel, () => !document.getElementById('kinds-below-box').hidden);
  await unfold(panel, 'kinds-below-box');
  const row = panel.locator('#heading-kinds-below li').filter({ has: panel.locator(`input[data-template="${KIND}"]`) });
  assert.equal(await row.textContent(), ` ${VIRTUALS.length} ${kind.best.toFixed(3)} ${KIND} e.g. /G.action_group-c.html`);
  await tick(row.locator('input'));
  const taken = await relearnFromPanel(panel, call, jobId, (s) => (s.result.corrections.likeHeadings ?? []).length > 0);
  assert.deepEqual(taken.result.corrections, { like: [], unlike: [], likeHeadings: [KIND] });
  assert.deepEqual(taken.result.targets.map((t) => t.url).sort(), [...classes, ...virtuals].sort());
  assert.ok(taken.result.headingKindsBelow.find((k) => k.template === KIND)?.like);
  assert.equal(taken.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await until(panel, (t) => document.querySelector(`#heading-kinds-below input[data-template="${t}"]`)?.checked, KIND);

  // Unticked: the verdict is taken back.
  await tick(panel.locator(`#heading-kinds-below input[data-template="${KIND}"]`), false);
  const back = await relearnFromPanel(panel, call, jobId, (s) => !s.result.corrections.likeHeadings);
  assert.deepEqual(back.result.targets.map((t) => t.url).sort(), classes);
});
