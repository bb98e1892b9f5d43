// A θ too high for the site, in the real extension: a help site like R's whose forty topic pages
// have from twelve optional sections down to five, so their similarity to the first falls in
// steps from 1 to about 0.8 with no gap; its news page is far below. Learning takes the topics
// above θ; the panel reports the gap below the rest and the θ that takes them, and Re-learn with
// that θ takes every topic and nothing else, fetching nothing again.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, press, sitePage, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const TOPICS = 40;
const SECTIONS = ['usage', 'arguments', 'details', 'value', 'note', 'references', 'see-also', 'examples',
  'author', 'source', 'warning', 'section'];

const topic = (i, sections) => sitePage(`Topic ${i}`, `<div class="container"><table class="head"><tr><td>t${i}</td>` +
  `<td>R Documentation</td></tr></table><h2>Topic ${i}</h2><h3>Description</h3><p>About topic ${i}.</p>` +
  SECTIONS.slice(0, sections).map((s) => `<h3>${s}</h3><div class="${s}"><p>Text of ${s}.</p><pre>code()</pre></div>`).join('') +
  '<hr><div class="foot"><a href="../index.html">Index</a></div></div>');

let site, browser, call, extensionId, close;

before(async () => {
  const files = {};
  for (let i = 0; i < TOPICS; i++) files[`t/topic${i}.html`] = topic(i, 12 - Math.floor((i * 7) / TOPICS));
  const links = Array.from({ length: TOPICS }, (_, i) => `<li><a href="t/topic${i}.html">topic ${i}</a></li>`).join('');
  files['index.html'] = sitePage('Index', `<h1>Topics</h1><ul>${links}</ul><p><a href="news.html">News</a></p>`);
  files['news.html'] = sitePage('News', '<h1>News</h1><dl><dt>1.0</dt><dd><ul><li>Change</li></ul></dd></dl>');
  ({ site, browser, extensionId, call, close } = await filesInBrowser('gap', files, BUILT));
});

after(async () => {
  await close?.();
});

test('a gap below θ is reported in the panel, and its θ takes the pages above it', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}t/topic0.html`,
    settings: { delayMs: 0, concurrency: 2 },
  });
  const learn = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 120_000, 250);
  assert.equal(learn.status, 'done', learn.error);
  const topics = Array.from({ length: TOPICS }, (_, i) => `${site.url}t/topic${i}.html`).sort();
  const taken = learn.result.targets.map((t) => t.url);
  assert.ok(taken.length >= 20 && taken.length < TOPICS, `${taken.length} topics above θ`);
  assert.ok(taken.every((u) => topics.includes(u)));
  const gap = learn.result.thresholdGap;
  assert.ok(gap, 'a gap is reported');
  assert.equal(gap.pages, TOPICS - taken.length);
  assert.equal(gap.urlLikeTargets, gap.pages);
  assert.ok(gap.highestBelow < 0.3 && gap.lowestAbove > 0.75, JSON.stringify(gap));
  assert.equal(gap.threshold, Math.round((gap.lowestAbove - 0.05) * 100) / 100);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#gap:not([hidden])').waitFor();
  const text = await panel.locator('#gap-text').textContent();
  assert.match(text, new RegExp(`^A gap in the scores below θ: ${gap.pages} pages score from ${gap.lowestAbove.toFixed(3)} `));
  assert.equal(await panel.locator('#gap-theta').textContent(), gap.threshold.toFixed(2));
  await press(panel.locator('#gap-use'));
  assert.equal(Number(await panel.locator('#threshold').inputValue()), gap.threshold);
  await press(panel.locator('#relearn'));
  const relearned = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.result?.threshold === gap.threshold && s;
  }, 're-learning', 30_000, 100);
  assert.deepEqual(relearned.result.targets.map((t) => t.url).sort(), topics);
  assert.equal(relearned.result.thresholdGap, null, 'no gap left to report');
  assert.equal(relearned.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await panel.locator('#gap[hidden]').waitFor({ state: 'attached' });
});
