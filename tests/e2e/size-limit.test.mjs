// The page size limit, in the real extension: a shop whose last item page is larger than the
// limit set in the popup. Learning and the crawl name that page in the panel; "Crawl again
// reading pages up to" collects it (and the crawler keeps the larger limit), "Learn again" takes
// it as a target.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, clickExample, crawlDone, filesInBrowser, learnEnded, popupOn, press, sitePage, storedPages, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const ITEMS = 6;
const LIMIT = 32 * 1024;

// The last item's description is 64 KiB of text: one text node, the same structure as the others.
const item = (i) => sitePage(`Item ${i}`, `<div class="shop"><h1>Item ${i}</h1><table class="spec">` +
  `<tr><th>Price</th><td>${10 + i} EUR</td></tr><tr><th>Stock</th><td>${i * 3}</td></tr></table>` +
  `<p class="desc">${i === ITEMS - 1 ? 'A long description. '.repeat(3300) : `About item ${i}.`}</p>` +
  '<p><a href="../index.html">All items</a></p></div>');

let site, browser, worker, call, extensionId, close;

before(async () => {
  const files = {};
  for (let i = 0; i < ITEMS; i++) files[`items/item${i}.html`] = item(i);
  const links = Array.from({ length: ITEMS }, (_, i) => `<li><a href="items/item${i}.html">Item ${i}</a></li>`).join('');
  files['index.html'] = sitePage('Shop', `<h1>Shop</h1><ul class="items">${links}</ul><p><a href="about.html">About</a></p>`);
  files['about.html'] = sitePage('About', '<h1>About</h1><p>A shop.</p>');
  ({ site, browser, worker, extensionId, call, close } = await filesInBrowser('size', files, BUILT));
});

after(async () => {
  await close?.();
});

test('pages past the size limit are named in the panel, and a run with a larger limit reads them', { timeout: 240_000 }, async () => {
  const items = Array.from({ length: ITEMS }, (_, i) => `${site.url}items/item${i}.html`);
  const big = items[ITEMS - 1];
  const { tab, popup } = await popupOn(browser.context, worker, items[0]);
  await press(popup.locator('#advanced summary'));
  assert.equal(await popup.locator('#maxMb').inputValue(), '8', 'the default limit, in MB');
  await popup.locator('#maxMb').fill(String(LIMIT / (1024 * 1024)));
  await popup.locator('#delayMs').fill('0');
  const jobId = await clickExample(popup);
  await popup.close();
  await tab.close();

  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  assert.equal(learn.settings.maxBytes, LIMIT);
  assert.deepEqual(learn.tooLarge, { count: 1, urls: [big] });
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), items.slice(0, -1));
  const crawl = await crawlDone(call, learn.crawlerId);
  assert.deepEqual(crawl.tooLarge, { count: 1, urls: [big] }, 'the pattern leads to it, the crawl cannot read it');
  assert.deepEqual((await storedPages({ browser, worker }, learn.crawlerId)).sort(), items.slice(0, -1));

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  const crawlBox = panel.locator('#job-too-large:not([hidden])');
  const learnBox = panel.locator('#learn-too-large:not([hidden])');
  await crawlBox.waitFor();
  await learnBox.waitFor();
  assert.equal(await crawlBox.locator('p[role=status]').textContent(),
    '1 page was not read by this crawl: larger than 0.031 MB, the page size limit.');
  assert.equal(await learnBox.locator('p[role=status]').textContent(),
    '1 page was not read while learning: larger than 0.031 MB, the page size limit.');
  assert.deepEqual(await crawlBox.locator('li').allTextContents(), [big]);
  assert.equal(await crawlBox.locator('input').inputValue(), '0.125', 'four times the limit offered');

  // A larger limit for the crawl: the page is collected, and the crawler keeps the limit.
  const before = Date.now();
  await press(crawlBox.locator('button'));
  const again = await crawlDone(call, learn.crawlerId, before);
  assert.deepEqual(again.tooLarge, { count: 0, urls: [] });
  assert.equal(again.settings.maxBytes, 4 * LIMIT);
  assert.deepEqual((await storedPages({ browser, worker }, learn.crawlerId)).sort(), items);
  const [crawler] = (await call({ type: 'crawlers' })).filter((c) => c.id === learn.crawlerId);
  assert.equal(crawler.settings.maxBytes, 4 * LIMIT);
  await panel.locator('#job-too-large[hidden]').waitFor({ state: 'attached' });

  // A larger limit for learning: the page is measured, and it is a target.
  const jobs = new Set((await call({ type: 'status' })).jobs.map((j) => j.id));
  await learnBox.locator('input').fill('1');
  await press(learnBox.locator('button'));
  const relearned = await waitFor(async () => {
    const s = (await call({ type: 'status' })).jobs.find((j) => j.kind === 'learn' && !jobs.has(j.id));
    return s && s.status !== 'running' && s;
  }, 'learning again', 120_000, 200);
  assert.equal(relearned.status, 'done', relearned.error);
  assert.equal(relearned.settings.maxBytes, 1024 * 1024);
  assert.deepEqual(relearned.tooLarge, { count: 0, urls: [] });
  assert.deepEqual(relearned.result.targets.map((t) => t.url).sort(), items);
  await crawlDone(call, relearned.crawlerId);
  await panel.close();
});
