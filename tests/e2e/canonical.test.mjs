// One page under two URLs, in the real extension: a shop lists its items in two categories,
// each copy showing the category it sits in (so their bytes and text differ) and declaring the
// item's own URL as canonical (`<link rel="canonical">`). Learning counts each item once
// (Rust's `mapper::canonical_signature`), the crawl collects each once, and the pages exported
// as JSON Lines say the canonical URL they declare.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, filesInBrowser, learnEnded } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const CATEGORIES = { kitchen: [1, 2, 3], garden: [2, 3, 4] };

const item = (i, category) => `<!doctype html><html><head><title>Item ${i}</title>` +
  `<link rel="canonical" href="/item/${i}.html"></head><body><div class="item"><h1>Item ${i}</h1>` +
  `<table class="spec"><tr><td>a</td><td>${i}</td></tr><tr><td>b</td><td>x</td></tr></table>` +
  `<p class="desc">Description of item ${i}, among ${category} things.</p></div></body></html>`;
const listing = (title, links) => `<!doctype html><html><head><title>${title}</title></head><body>` +
  `<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></body></html>`;

let site, browser, call, extensionId, close;

before(async () => {
  const files = { 'index.html': listing('Shop', Object.keys(CATEGORIES).map((c) => `${c}.html`)) };
  for (const [category, items] of Object.entries(CATEGORIES)) {
    files[`${category}.html`] = listing(category, items.map((i) => `${category}/${i}.html`));
    for (const i of items) files[`${category}/${i}.html`] = item(i, category);
  }
  ({ site, browser, extensionId, call, close } = await filesInBrowser('canonical', files, BUILT));
});

after(async () => {
  await close?.();
});

test('an item served under two URLs declaring one canonical URL is learned, crawled and exported once', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}kitchen/1.html`,
    settings: { delayMs: 0, concurrency: 1 },
  });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  const number = (url) => /\/(\d)\.html$/.exec(url)?.[1];
  const learned = learn.result.targets.map((t) => number(t.url)).sort();
  assert.deepEqual(learned, ['1', '2', '3', '4'], JSON.stringify(learn.result.targets.map((t) => t.url)));
  await crawlDone(call, learn.crawlerId);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  const jsonl = await panel.evaluate(async (id) => {
    const { blob } = await globalThis.exemplarExport(id, 'jsonl', {});
    return blob.text();
  }, learn.crawlerId);
  const lines = jsonl.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => number(l.url)).sort(), ['1', '2', '3', '4'], jsonl);
  for (const l of lines) assert.equal(l.canonical, `${site.url}item/${number(l.url)}.html`);
});
