// The sitemaps robots.txt names, in the real extension: a shop whose listing links three of its
// seven items, and whose robots.txt names a sitemap index (a relative `Sitemap:` line) listing a
// gzip-compressed XML sitemap, served as application/gzip, which the browser's fetch does not
// inflate, and a text one. Learning follows the links (three items), then reads the sitemaps
// (Rust's `sitemap`) and maps the items no listing links, except the one robots.txt disallows;
// the crawl reads them too and collects them. A sitemap robots.txt names on another host, to
// which the extension has no access, is not read, and both jobs list it among their errors with
// a button that asks for access to that host; a missing sitemap is listed too, without one. The
// panel counts the sitemaps read and says what learning took from them. Answered (by the test:
// headless Chromium's prompt cannot be clicked), the button says whether access was granted and,
// when it was, offers to crawl again, which starts a new run of the crawler.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ROOT, crawlDone, directoryInBrowser, itemPage, learnEnded, press, sitePage, storedPages, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const ITEMS = 7;
const LISTED = 3;

let dir, site, browser, worker, call, extensionId, close;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'exemplar-sitemaps-'));
  await mkdir(join(dir, 'item'));
  await mkdir(join(dir, 'maps'));
  for (let i = 1; i <= ITEMS; i++) await writeFile(join(dir, `item/${i}.html`), itemPage(i));
  const links = Array.from({ length: LISTED }, (_, i) => `<li><a href="item/${i + 1}.html">Item ${i + 1}</a></li>`);
  await writeFile(join(dir, 'index.html'), sitePage('Shop', `<a href="list.html">All items</a>`));
  await writeFile(join(dir, 'list.html'), sitePage('All items', `<ul>${links.join('')}</ul>`));
  ({ site, browser, worker, extensionId, call, close } = await directoryInBrowser(dir, BUILT));
  // Sitemaps name absolute URLs: written once the port is known.
  const url = (p) => `${site.url}${p}`;
  // And a sitemap on another host (`localhost`, the same server): the extension has no access
  // to it, so its robots.txt cannot be read, and the sitemap is not read either — said so.
  const cdn = site.url.replace('127.0.0.1', 'localhost');
  await writeFile(join(dir, 'robots.txt'),
    `User-agent: *\nDisallow: /item/7.html\nSitemap: /maps/index.xml\nSitemap: ${cdn}maps/cdn.txt\n`);
  await writeFile(join(dir, 'maps/cdn.txt'), `${url('item/6.html')}\n`);
  await writeFile(join(dir, 'maps/index.xml'), '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    `<sitemap><loc>${url('maps/items.xml.gz')}</loc></sitemap><sitemap><loc>${url('maps/more.txt')}</loc></sitemap>` +
    `<sitemap><loc>${url('maps/gone.xml')}</loc></sitemap></sitemapindex>`);
  const urlset = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    [2, 4, 5].map((i) => `<url><loc>${url(`item/${i}.html`)}</loc></url>`).join('') + '</urlset>';
  await writeFile(join(dir, 'maps/items.xml.gz'), await promisify(gzip)(urlset));
  await writeFile(join(dir, 'maps/more.txt'), `${url('item/6.html')}\n${url('item/7.html')}\n`);
});

after(async () => {
  await close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('learning and the crawl read the sitemaps robots.txt names and take the items no listing links', { timeout: 180_000 }, async () => {
  // The sitemap on the host without access, and that host.
  const cdnSitemap = `${site.url.replace('127.0.0.1', 'localhost')}maps/cdn.txt`;
  const cdnHost = new URL(cdnSitemap).host;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`,
    settings: { delayMs: 0 },
  });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  const item = (url) => Number(/\/item\/(\d+)\.html$/.exec(url)?.[1]);
  assert.deepEqual(learn.result.targets.map((t) => item(t.url)).sort(), [1, 2, 3, 4, 5, 6],
    'the links, then the sitemaps');
  assert.equal(learn.result.sitemapsRead, 3);
  assert.equal(learn.result.sitemapPages, 3, 'items 4 to 6 (7 is disallowed)');
  const crawl = await crawlDone(call, learn.crawlerId);
  assert.equal(crawl.progress.sitemaps, 3, JSON.stringify(crawl.progress));
  for (const job of [learn, crawl]) {
    const missed = job.errors.find((e) => e.url === cdnSitemap);
    assert.match(missed?.what ?? '', /^sitemap not read: its host's robots\.txt could not be fetched \(.+\)/,
      JSON.stringify(job.errors));
    assert.equal(missed.askAccess, true, 'its host answered nothing: access is asked for');
    const gone = job.errors.find((e) => e.url === `${site.url}maps/gone.xml`);
    assert.equal(gone?.what, 'sitemap not read: HTTP 404', JSON.stringify(job.errors));
    assert.equal(gone.askAccess, undefined, 'a missing sitemap is no question of access');
  }
  const pages = await storedPages({ browser, worker }, learn.crawlerId);
  assert.deepEqual(pages.map(item).sort(), [1, 2, 3, 4, 5, 6]);
  assert.equal(crawl.progress.newTargets, 0, 'learning saw every item');
  assert.equal(crawl.result.coverage.known, 6);
  assert.equal(crawl.result.coverage.reached, 6);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await until(panel, () => !document.getElementById('sitemaps-box').hidden);
  // The sitemap on the host without access carries a button that asks for it; the missing one
  // is listed without one.
  const ask = panel.locator('#job-errors button.allow-host');
  await ask.waitFor({ state: 'attached' });
  assert.equal(await ask.count(), 1);
  assert.equal(await panel.locator('#job-errors li', { hasText: 'maps/gone.xml: sitemap not read: HTTP 404' }).count(), 1);
  assert.equal(await ask.textContent(), `Allow access to ${cdnHost}`);
  assert.match(await panel.locator('#n-sitemaps').textContent(), /^3 \/ [3-6]$/);
  // Learning says what it took from the sitemaps, and that the crawl reads them.
  assert.deepEqual(learn.result.sitemaps, [`${site.url}maps/index.xml`, cdnSitemap]);
  await until(panel, () => !document.getElementById('sitemaps-note').hidden);
  assert.match(await panel.locator('#sitemaps-note').textContent(),
    /^The site's robots\.txt names 2 sitemaps \(http:\/\/127\.0\.0\.1:\d+\/maps\/index\.xml, …\): learning read them once every link was followed and took 3 pages no link reaches from them; the crawl reads them too/);

  // Allow access, then Crawl again. Headless Chromium's permission prompt cannot be clicked, so
  // the panel's `chrome.permissions.request` answers as the user would (no, then yes); the
  // button, the answer shown and the crawl it starts are the extension's own.
  const answer = (granted) => panel.evaluate((g) => {
    Object.defineProperty(chrome.permissions, 'request', { value: async () => g, configurable: true });
  }, granted);
  const openErrors = () => panel.evaluate(() => { document.getElementById('job-errors-box').open = true; });
  await answer(false);
  await openErrors();
  await press(ask);
  await panel.locator('#job-errors li', { hasText: `Access to ${cdnHost} not granted.` }).waitFor();
  assert.equal(await panel.locator('#job-errors button.run-again').count(), 0, 'nothing to run again without access');
  await panel.reload();
  await answer(true);
  await openErrors();
  await press(panel.locator('#job-errors button.allow-host'));
  const again = panel.locator('#job-errors button.run-again');
  await again.waitFor();
  assert.equal(await again.textContent(), 'Crawl again');
  assert.equal(await panel.locator('#job-errors li', { hasText: `Access to ${cdnHost} granted.` }).count(), 1);
  await press(again);
  const second = await crawlDone(call, learn.crawlerId, crawl.startedAt);
  assert.notEqual(second.id, crawl.id, 'a new run of the crawler');
  assert.equal(second.progress.sitemaps, 3, JSON.stringify(second.progress));
  // The answer came from the test, not the browser: the host is still out of reach, and the
  // new run says so again.
  assert.ok(second.errors.some((e) => e.url === cdnSitemap && e.askAccess),
    JSON.stringify(second.errors));
});
