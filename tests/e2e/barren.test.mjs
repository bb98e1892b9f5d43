// A page budget spent where the targets are, in the real extension: a site whose home page links
// eighty pages of one kind (`fn/f*.html`, none like the example, each linking home only) before
// its one listing of ten items, learned with a budget of 70 pages. Breadth first the budget ends
// inside the eighty and nothing like the example is found; since the first fifty of their URL
// shape yielded nothing, the rest come last, the listing and its items are fetched, and the
// panel says which pages were left unfetched.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, filesInBrowser, itemPage, sitePage, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const FNS = 80;
const ITEMS = 10;

const list = (hrefs) => `<nav><a href="/index.html">Home</a></nav><ul class="list">${hrefs.map((h) => `<li><a href="${h}">${h}</a></li>`).join('')}</ul>`;

let site, browser, call, extensionId, close;

before(async () => {
  const fns = Array.from({ length: FNS }, (_, i) => `fn/f${i}.html`);
  const files = {
    'index.html': sitePage('Home', list([...fns.map((f) => `/${f}`), '/list.html'])),
    'list.html': sitePage('Items', list(Array.from({ length: ITEMS }, (_, i) => `/item/${i + 1}.html`))),
  };
  for (const [i, f] of fns.entries()) {
    files[f] = sitePage(`f${i}`, `<h2>Function f${i}</h2><p>Signature of f${i}.</p><a href="/index.html">Home</a>`);
  }
  for (let i = 1; i <= ITEMS; i++) files[`item/${i}.html`] = itemPage(i);
  ({ site, browser, extensionId, call, close } = await filesInBrowser('barren', files, BUILT));
});

after(async () => {
  await close?.();
});

test('under a page budget, a URL shape that yields nothing comes last', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`,
    settings: { maxPages: 70, delayMs: 0, concurrency: 2 },
  });
  const learn = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 120_000, 250);
  assert.equal(learn.status, 'done', learn.error);
  assert.equal(learn.progress.fetched, 70);
  assert.deepEqual(learn.result.targets.map((t) => new URL(t.url).pathname).sort(),
    Array.from({ length: ITEMS }, (_, i) => `/item/${i + 1}.html`).sort());
  const host = new URL(site.url).host;
  assert.equal(learn.result.leftUnfetched.length, 1, JSON.stringify(learn.result.leftUnfetched));
  const [{ shape, pages }] = learn.result.leftUnfetched;
  assert.equal(shape, `${host}/fn/f*`);
  // 70 fetched: home, the listing, its 10 items, the rest of the eighty.
  assert.equal(pages, FNS - (70 - 2 - ITEMS));
  await crawlDone(call, learn.crawlerId);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  const note = panel.locator('#left-unfetched');
  await note.waitFor({ state: 'visible' });
  assert.equal(await note.textContent(),
    `${pages} pages left unfetched when mapping stopped: the first pages of their URL shape were no target and led to none, ` +
    `so they came last: ${host}/fn/f* (${pages}). Raise “Max pages” (in the popup’s settings) to map them too.`);
  await panel.close();
});
