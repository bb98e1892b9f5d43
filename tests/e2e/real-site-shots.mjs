// The user guide's pictures of a real site (`./build.sh screenshots`, after the demo's): the real
// extension in headless Chromium on the static mirror of books.toscrape.com
// (eval/real/sites/zyte-books: 1,000 books in a category tree). The popup on a book, "This is an
// example page", the crawl; then the side panel's navigation pattern, θ chart, review questions
// and target pages, each saved as DIR/shop-*.png (DIR: EXEMPLAR_SCREENSHOTS, default docs/images).
// Then the quotes mirror learned from an author page and re-learned at θ 0.5, where its lists of
// quotes pass θ: the warning over targets that look like listing pages (quotes-listings.png).
// Not a test file; it fails loudly when a step does not happen.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ROOT, callFrom, clickExample, directoryInBrowser, learnEnded, popupOn, press, until, waitFor,
} from './helpers.mjs';

const SHOTS = process.env.EXEMPLAR_SCREENSHOTS ?? join(ROOT, 'docs/images');
const BUILT = join(ROOT, 'dist/chrome');
const say = (s) => console.log(`    ${s}`);

/**
 * Saves the part of `page` from the top of `from` to the bottom of `to` (CSS selectors) as
 * SHOTS/NAME.png.
 * @param {import('playwright-core').Page} page
 */
async function region(page, from, to, name) {
  const box = await page.evaluate(([a, b]) => {
    const top = document.querySelector(a)?.getBoundingClientRect();
    const bottom = document.querySelector(b)?.getBoundingClientRect();
    if (!top || !bottom) return null;
    return { y: top.top + window.scrollY - 6, bottom: bottom.bottom + window.scrollY + 6 };
  }, [from, to]);
  if (!box) throw new Error(`no ${from} … ${to} to picture`);
  const width = page.viewportSize()?.width ?? 480;
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true, clip: { x: 0, y: Math.max(0, box.y), width, height: box.bottom - box.y } });
  say(`screenshot: ${path}`);
}

await mkdir(SHOTS, { recursive: true });

// The shop: from the popup on a book to the crawled pages.
const shop = await directoryInBrowser(join(ROOT, 'eval/real/sites/zyte-books'), BUILT);
try {
  const { site, browser, worker, extensionId } = shop;
  const { popup } = await popupOn(browser.context, worker, `${site.url}product/239/`);
  await popup.setViewportSize({ width: 420, height: 560 });
  await popup.screenshot({ path: join(SHOTS, 'shop-popup.png') });
  say(`screenshot: ${join(SHOTS, 'shop-popup.png')}`);
  await press(popup.locator('#advanced summary'));
  await popup.locator('#delayMs').fill('0');
  await clickExample(popup);
  await popup.close();
  const panel = await browser.context.newPage();
  await panel.setViewportSize({ width: 480, height: 900 });
  await panel.goto(`chrome-extension://${extensionId}/panel.html`);
  const call = callFrom(panel);
  const { crawl } = await waitFor(async () => {
    const { jobs } = await call({ type: 'status' });
    const learn = jobs.find((j) => j.kind === 'learn');
    if (learn?.status === 'failed') throw new Error(learn.error);
    const c = jobs.find((j) => j.kind === 'crawl');
    return c && c.status !== 'running' && { crawl: c };
  }, 'the shop learned and crawled', 240_000, 250);
  await until(panel, (n) => document.getElementById('n-pages').textContent === String(n), crawl.result.targets);
  say(`the shop: ${crawl.result.targets} books collected`);
  await region(panel, '#result > h2', '#coverage', 'shop-pattern');
  await region(panel, '#threshold-box > h3', '#histogram', 'shop-threshold');
  await region(panel, '#review-box', '#weak-box', 'shop-review');
  await panel.locator('#filter').fill('mystery');
  await until(panel, () => document.querySelectorAll('#pages tbody tr').length > 0);
  await region(panel, '#result > h3:last-of-type', '#pages-box', 'shop-pages');
} finally {
  await shop.close();
}

// The quotes directory: its lists of quotes flagged at θ 0.5.
const quotes = await directoryInBrowser(join(ROOT, 'eval/real/sites/quotes-toscrape'), BUILT);
try {
  const { site, browser, extensionId, call } = quotes;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: site.url, exampleUrl: `${site.url}author/Albert-Einstein/`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  if (learn.status !== 'done') throw new Error(learn.error);
  const low = await call({ type: 'relearn', jobId, threshold: 0.5 });
  if (!low.listingTargets.length) throw new Error('no target flagged as a listing at θ 0.5');
  const panel = await browser.context.newPage();
  await panel.setViewportSize({ width: 480, height: 900 });
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#listing-warning:not([hidden])').waitFor();
  await region(panel, '#listing-warning', '#listing-warning', 'quotes-listings');
} finally {
  await quotes.close();
}
