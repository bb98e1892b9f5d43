// The real web applications of eval/real/apps/ through the real extension: Zyte's test shop
// (1,000 books in a category tree, ?page=N pagination) and the quotes site's Flask application
// (50 author pages among paged quote lists and tag lists), run on 127.0.0.1. The extension learns
// from each home page and an item, crawls, and keeps exactly the items.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, appInBrowser, learnAndCrawl, storedPages } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');

test('the live shop: every book and nothing else, through its ?page=N listings', { timeout: 300_000 }, async (t) => {
  const env = await appInBrowser('zyte-books', BUILT);
  try {
    const { learn, crawl } = await learnAndCrawl({ ...env, spec: { entry: '', example: 'product/239' } });
    const pages = await storedPages(env, learn.crawlerId);
    const products = pages.filter((u) => /\/product\/\d+$/.test(new URL(u).pathname));
    t.diagnostic(JSON.stringify({ pages: pages.length, products: products.length, fetched: crawl.progress.fetched }));
    assert.equal(products.length, 1000);
    assert.equal(pages.length, products.length, pages.filter((u) => !products.includes(u)).join(' '));
    assert.ok(crawl.progress.fetched <= 1200, `${crawl.progress.fetched} pages fetched`);
  } finally {
    await env.close();
  }
});

test('the live quotes site: its 50 authors, not its quote lists', { timeout: 300_000 }, async () => {
  const env = await appInBrowser('quotes-toscrape', BUILT);
  try {
    const { learn } = await learnAndCrawl({ ...env, spec: { entry: '', example: 'author/Albert-Einstein/' } });
    const pages = await storedPages(env, learn.crawlerId);
    const authors = new Set(pages.map((u) => new URL(u).pathname.replace(/\/$/, '')));
    assert.equal(authors.size, 50, pages.join(' '));
    assert.deepEqual([...authors].filter((p) => !p.startsWith('/author/')), []);
  } finally {
    await env.close();
  }
});
