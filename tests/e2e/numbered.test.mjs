// A manual whose user's-guide chapters share the reference pages' layout and directory, as
// Erlang's do, in the real extension: a module page is headed by its name alone, a chapter by its
// section number and title, and both pass θ. The panel lists the headings that start with a
// section number as one kind (`#`, Rust's `heading::NUMBERED`); ticking it and re-learning leaves
// out every chapter, fetching nothing, and the crawl then collects the module pages alone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, learnEnded, relearnFromPanel, sitePage, tick, unfold, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const MODULES = ['lists', 'maps', 'string', 'array', 'queue', 'sets', 'dict', 'proplists', 'binary',
  'calendar', 'timer', 'random'];
const CHAPTERS = [['intro', '1 Introduction'], ['gen_server_concepts', '2 gen_server Behaviour'],
  ['statem', '3 gen_statem Behaviour'], ['events', '4 gen_event Behaviour'],
  ['sup_princ', '5 Supervisor Behaviour'], ['spec_proc', '6 Special Processes'],
  ['applications', '7 Applications'], ['release_handling', '8 Release Handling']];

const menu = MODULES.map((m) => `<li><a href="${m}.html">${m}</a></li>`).join('');
const page = (heading, items) => sitePage(heading, '<div class=top><a href="../index.html">Home</a> ' +
  `<a href="index.html">Reference</a> <a href="guide.html">Guide</a></div><div class=menu><ul>${menu}</ul></div>` +
  `<div class=content><h1>${heading}</h1><p>About ${heading}.</p><h3>Contents</h3><dl>` +
  Array.from({ length: items }, (_, i) => `<dt><code>f${i}(X)</code></dt><dd><p>Does ${i}.</p></dd>`).join('') +
  '</dl></div>');

let site, browser, call, extensionId, close;

before(async () => {
  const files = {};
  MODULES.forEach((m, i) => { files[`lib/${m}.html`] = page(m, 3 + (i % 3)); });
  CHAPTERS.forEach(([f, h], i) => { files[`lib/${f}.html`] = page(h, 3 + (i % 3)); });
  files['lib/index.html'] = sitePage('Reference', `<h1>Reference</h1><ul>${menu}</ul>`);
  files['lib/guide.html'] = sitePage('Guide', `<h1>User's Guide</h1><ol>${CHAPTERS.map(([f, h]) => `<li><a href="${f}.html">${h}</a></li>`).join('')}</ol>`);
  files['index.html'] = sitePage('Home', '<h1>Manual</h1><p><a href="lib/index.html">Reference</a> <a href="lib/guide.html">Guide</a></p>');
  ({ site, browser, extensionId, call, close } = await filesInBrowser('numbered', files, BUILT));
});

after(async () => {
  await close?.();
});

test('numbered headings are one kind in the panel, and leaving it out keeps the reference pages', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}lib/lists.html`,
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  const modules = MODULES.map((m) => `${site.url}lib/${m}.html`).sort();
  const chapters = CHAPTERS.map(([f]) => `${site.url}lib/${f}.html`).sort();
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), [...modules, ...chapters].sort(), 'the chapters pass θ');
  const numbered = learn.result.headingKinds.find((k) => k.template === '#');
  assert.ok(numbered, JSON.stringify(learn.result.headingKinds));
  assert.equal(numbered.targets, CHAPTERS.length);
  assert.ok(!numbered.example && !numbered.unlike);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await until(panel, () => !document.getElementById('kinds-box').hidden);
  await unfold(panel, 'kinds-box');
  const row = panel.locator('#heading-kinds li').filter({ has: panel.locator('input[data-template="#"]') });
  assert.match(await row.textContent(), /^ 8 # headings that start with a section number \(chapters, sections\) e\.g\. /);
  await tick(row.locator('input'));
  const left = await relearnFromPanel(panel, call, jobId, (s) => (s.result.unlikeByHeading ?? []).length > 0);
  assert.deepEqual(left.result.corrections, { like: [], unlike: [], unlikeHeadings: ['#'] });
  assert.deepEqual([...left.result.unlikeByHeading].sort(), chapters);
  assert.deepEqual(left.result.targets.map((t) => t.url).sort(), modules);
  assert.equal(left.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await until(panel, (n) => {
    const p = document.getElementById('left-out');
    return !p.hidden && p.textContent.startsWith(`${n} targets left out`);
  }, CHAPTERS.length);
});
