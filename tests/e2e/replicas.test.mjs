// A replica host in the real extension: a shop at shop.test whose listings, once it has grown,
// link some products only on www.shop.test (the same shop under its other name). The crawl
// takes www.shop.test for a replica after meeting its paths on shop.test, fetches those
// products from shop.test, and the panel names the replica.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, filesInBrowser, itemPage, learnEnded, sitePage, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const PER_PAGE = 5;

/** The shop with `n` products; listing page `www` (if any) links its products on www.shop.test,
 * the other listings link theirs on shop.test and again on www.shop.test. */
function shop(n, www, port) {
  const pages = Math.ceil(n / PER_PAGE);
  const files = { 'index.html': sitePage('Shop', '<h1>A shop</h1><a href="/list/1.html">Catalogue</a>') };
  for (let p = 1; p <= pages; p++) {
    const items = [];
    for (let i = (p - 1) * PER_PAGE + 1; i <= Math.min(n, p * PER_PAGE); i++) {
      const other = `http://www.shop.test:${port}/item/${i}.html`;
      items.push(p === www ? `<li><a href="${other}">Item ${i}</a></li>`
        : `<li><a href="/item/${i}.html">Item ${i}</a> <a href="${www ? other : `/item/${i}.html`}">again</a></li>`);
    }
    const next = p < pages ? `<a class="next" href="/list/${p + 1}.html">Next</a>` : '';
    files[`list/${p}.html`] = sitePage(`Catalogue ${p}`, `<ul class="items">${items.join('')}</ul>${next}`);
  }
  for (let i = 1; i <= n; i++) files[`item/${i}.html`] = itemPage(i);
  return files;
}

let env;

before(async () => {
  // The port is known once served: the listings are written again after.
  env = await filesInBrowser('replicas', shop(12, 0, 0), BUILT, {}, { names: ['shop.test', 'www.shop.test'] });
});

after(async () => {
  await env?.close();
});

test('links to the site under its www. name are followed as its own, and said', { timeout: 240_000 }, async () => {
  const { site, browser, extensionId, call, dir } = env;
  const port = new URL(site.url).port;
  const entry = `http://shop.test:${port}/`;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: entry, exampleUrl: `${entry}item/3.html`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 180_000);
  assert.equal(learn.status, 'done', learn.error);

  // The shop grows to 17 products; its last listing links them on www.shop.test only.
  for (const [path, html] of Object.entries(shop(17, 4, port))) await writeFile(join(dir, path), html);
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  const started = Date.now();
  await call({ type: 'runCrawler', crawlerId: learn.crawlerId, settings: { delayMs: 0, concurrency: 4 } });
  const crawl = await crawlDone(call, learn.crawlerId, started - 1);
  assert.equal(crawl.result.targets, 17, 'items 16 and 17, linked only on www.shop.test, were fetched');
  assert.deepEqual(crawl.replicaHosts, [`www.shop.test:${port}`]);
  assert.ok(crawl.progress.replicaLinks >= 2, JSON.stringify(crawl.progress));
  await until(panel, () => !document.getElementById('job-replicas').hidden);
  assert.match(await panel.locator('#job-replicas').textContent(),
    new RegExp(`^This site's pages link to www\\.shop\\.test:${port}, the same site under another name: \\d+ such links were followed as this site's\\.$`));
});
