// A postback form through the real extension: the quotes application's search.aspx (a POST form
// with a view state whose author select fills the tag select), run on 127.0.0.1. The user submits
// the form in a tab as anyone would, and on the results presses "This is an example page". The
// page's URL alone answers 405: the extension takes its form as it stands for the example, and
// the crawler it learns steps through every author's tags to every quote the form can list.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, appInBrowser, clickExample, crawlDone, learnEnded } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');

/** The application's author and tag pairs, and the quotes that have a tag (the form lists those). */
async function data() {
  const lines = (await readFile(join(ROOT, 'eval/real/apps/spidyquotes/data/quotesdb.jl'), 'utf8')).split('\n').filter(Boolean);
  const pairs = new Set();
  const quotes = new Set();
  for (const line of lines) {
    const q = JSON.parse(line);
    for (const t of q.tags ?? []) pairs.add(`${q.author.name}|${t}`);
    if ((q.tags ?? []).length) quotes.add(q.text);
  }
  return { pairs, quotes };
}

/** The author and tag a stored page's key (`…/filter.aspx#exemplar-post=body`) chose. */
function chosen(url) {
  const form = new URLSearchParams(url.split('#exemplar-post=')[1] ?? '');
  return `${form.get('author')}|${form.get('tag')}`;
}

test('a search form\'s results as the example: every author and tag reached', { timeout: 300_000 }, async () => {
  const env = await appInBrowser('quotes-toscrape', BUILT);
  try {
    const { browser, worker, site, call } = env;
    // The user's own search: an author (the page posts itself back with the author's tags), a tag.
    const tab = await browser.context.newPage();
    await tab.goto(`${site.url}search.aspx`);
    await Promise.all([tab.waitForURL('**/filter.aspx'), tab.selectOption('#author', 'Albert Einstein')]);
    await tab.selectOption('#tag', 'change');
    await Promise.all([tab.waitForNavigation(), tab.click('input[type=submit]')]);
    assert.match(await tab.locator('.results').textContent() ?? '', /The world as we have created it/);
    const url = `${site.url}filter.aspx`;
    const tabId = await worker.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]?.id, url);
    assert.equal(typeof tabId, 'number');

    const popup = await browser.context.newPage();
    await popup.goto(`chrome-extension://${new URL(worker.url()).host}/popup.html?tabId=${tabId}`);
    await popup.locator('#generate:not([hidden])').waitFor();
    await popup.selectOption('#entry-choice', 'url');
    await popup.fill('#entry-url', `${site.url}search.aspx`);
    // A local application: no delay between requests (the popup's limits, as a user sets them).
    await popup.locator('#advanced summary').click();
    await popup.fill('#delayMs', '0');
    await popup.fill('#concurrency', '4');
    const jobId = await clickExample(popup);
    const learn = await learnEnded(call, jobId);
    assert.equal(learn.status, 'done', String(learn.error));
    assert.match(learn.rendering?.why ?? '', /form's answer to a POST/);
    const crawl = await crawlDone(call, learn.crawlerId);

    const { pairs, quotes } = await data();
    const panel = await browser.context.newPage();
    await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
    const stored = await panel.evaluate(async (id) => {
      const db = await import('./lib/db.js');
      const out = [];
      for (const { url } of await db.pagesOf(id)) {
        const page = await db.get('pages', [id, url]);
        const html = new TextDecoder().decode(page?.body ?? new Uint8Array());
        out.push({ url, quotes: [...html.matchAll(/<span class="content">(.*?)<\/span>/g)].map((m) => m[1]) });
      }
      return out;
    }, learn.crawlerId);
    const got = new Set(stored.map((p) => chosen(p.url)));
    assert.equal(stored.length, pairs.size, 'each result once');
    assert.deepEqual([...pairs].filter((p) => !got.has(p)), [], 'every author and tag');
    const decode = (s) => s.replaceAll('&#39;', '\'').replaceAll('&#34;', '"').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    const shown = new Set(stored.flatMap((p) => p.quotes.map(decode)));
    assert.deepEqual([...quotes].filter((q) => !shown.has(q)), [], 'every quote the form lists');
    // The search page, a step per author, a result per tag: nothing else.
    const authors = new Set([...pairs].map((p) => p.split('|')[0])).size;
    assert.equal(crawl.progress.fetched, 1 + authors + pairs.size, JSON.stringify(crawl.progress));

    await panel.close();
  } finally {
    await env.close();
  }
});
