// Pages drawn by scripts, through the real extension: the quotes application's /js/ pages (quotes
// written by a script from data in the page) and /scroll (one page that loads more quotes as it is
// scrolled), run on 127.0.0.1. The extension sees that the example's fetched HTML lacks what the
// browser shows, renders pages in background tabs, and stores them drawn: every quote of the site.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, appInBrowser, directoryInBrowser, learnAndCrawl, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');

const QUOTE = '<span class="text">(.*?)</span>';

/**
 * The stored pages of a crawler: their URL path and the items their HTML shows (`item`: a
 * regular expression's source whose first group is an item).
 * @param {{browser: any, worker: any}} env
 * @param {string} crawlerId
 * @param {string} [item]
 * @returns {Promise<{path: string, quotes: string[]}[]>}
 */
async function storedQuotes({ browser, worker }, crawlerId, item = QUOTE) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
    return await page.evaluate(async ([id, source]) => {
      const db = await import('./lib/db.js');
      const out = [];
      for (const { url } of await db.pagesOf(id)) {
        const stored = await db.get('pages', [id, url]);
        const html = new TextDecoder().decode(stored?.body ?? new Uint8Array());
        const quotes = [...html.matchAll(new RegExp(source, 'g'))].map((m) => m[1]);
        out.push({ path: new URL(url).pathname, quotes });
      }
      return out;
    }, [crawlerId, item]);
  } finally {
    await page.close();
  }
}

test('quotes drawn by a script: rendered in the browser, every quote stored', { timeout: 300_000 }, async () => {
  const env = await appInBrowser('quotes-toscrape', BUILT);
  try {
    const { learn, crawl } = await learnAndCrawl({ ...env, spec: { entry: 'js/', example: 'js/page/2/' } });
    assert.equal(learn.rendering?.on, true, JSON.stringify(learn.rendering));
    assert.match(learn.rendering.why, /drawn by scripts/);
    assert.equal(crawl.rendering?.on, true, 'the saved crawler renders too');
    assert.equal(crawl.rendering.failed, 0, String(crawl.rendering.firstError));
    const pages = await storedQuotes(env, learn.crawlerId);
    assert.equal(pages.length, 10, pages.map((p) => p.path).join(' '));
    assert.ok(pages.every((p) => p.path.startsWith('/js/')), pages.map((p) => p.path).join(' '));
    assert.equal(new Set(pages.flatMap((p) => p.quotes)).size, 100);
    assert.ok(crawl.rendering.rendered >= 10 && crawl.rendering.rendered <= crawl.progress.fetched, JSON.stringify(crawl));

    // The panel says it.
    const panel = await env.browser.context.newPage();
    await panel.goto(`chrome-extension://${new URL(env.worker.url()).host}/panel.html`);
    const said = await waitFor(async () => {
      const text = await panel.locator('#job-rendering').textContent();
      return text?.includes('rendered in the browser') ? text : null;
    }, 'the panel\'s rendering line', 30_000);
    assert.match(said, /\d+ pages rendered of \d+ fetched/);
    await panel.close();
  } finally {
    await env.close();
  }
});

test('an infinitely scrolling page: scrolled to its last quote', { timeout: 300_000 }, async () => {
  const env = await appInBrowser('quotes-toscrape', BUILT);
  try {
    const { learn } = await learnAndCrawl({ ...env, spec: { entry: 'scroll', example: 'scroll' } });
    assert.equal(learn.rendering?.on, true, JSON.stringify(learn.rendering));
    const pages = await storedQuotes(env, learn.crawlerId);
    const scroll = pages.find((p) => p.path === '/scroll');
    assert.ok(scroll, pages.map((p) => p.path).join(' '));
    assert.equal(new Set(scroll.quotes).size, 100);
  } finally {
    await env.close();
  }
});

test('a "load more" button: pressed until the list is whole, links and form buttons never', { timeout: 300_000 }, async () => {
  const env = await directoryInBrowser(join(ROOT, 'tests/fixtures/load-more'), BUILT);
  try {
    const { learn } = await learnAndCrawl({ ...env, spec: { entry: 'index.html', example: 'lamp-1.html' } });
    assert.equal(learn.rendering?.on, true, JSON.stringify(learn.rendering));
    const pages = await storedQuotes(env, learn.crawlerId, '<li class="review">(.*?)</li>');
    assert.deepEqual(pages.map((p) => p.path).sort(), ['/lamp-1.html', '/lamp-2.html']);
    for (const p of pages) assert.equal(new Set(p.quotes).size, 20, p.path);
  } finally {
    await env.close();
  }
});
