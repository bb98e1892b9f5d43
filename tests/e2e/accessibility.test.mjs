// Accessibility of the extension's pages, checked by axe-core (WCAG 2 A and AA rules) in Debian's
// Chromium: the popup on an item page and on a listing, and the side panel showing a learned and
// crawled crawler of the demo site with its data fields and review. No serious or critical
// violation; every control reachable by the keyboard has a name; text is 13 px or larger.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_SITE, ROOT, axeViolations as violations, callFrom, crawlDone, directoryInBrowser, learnEnded, popupOn, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');

let env, site, browser, worker;

before(async () => {
  env = await directoryInBrowser(DEMO_SITE, BUILT);
  ({ site, browser, worker } = env);
});

after(async () => {
  await env?.close();
});

test('the popup has no serious accessibility violation, on an item page and on a listing', async () => {
  for (const path of ['imovel/101-apartamento-2-quartos-lapa.html', 'imoveis/casas.html']) {
    const { tab, popup } = await popupOn(browser.context, worker, site.url + path);
    assert.deepEqual(await violations(popup), [], path);
    await popup.close();
    await tab.close();
  }
});

test('the side panel has no serious accessibility violation, with a crawler, its fields and its review', async () => {
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
  const call = callFrom(panel);
  const { jobId } = await call({ type: 'startLearn', exampleUrl: `${site.url}imovel/101-apartamento-2-quartos-lapa.html`, settings: { delayMs: 0, concurrency: 4 } });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  await crawlDone(call, learn.crawlerId);
  await until(panel, () => document.querySelectorAll('#fields tbody tr').length > 0 && document.querySelectorAll('#pages tbody tr').length > 0);
  // The review holds cards to answer; what is folded is checked unfolded too.
  const cards = await panel.locator('#near-misses li.card, #weak-targets li.card').count();
  assert.ok(cards >= 2, `${cards} review cards`);
  assert.equal(await panel.locator('#review-box input[type=radio]').count(), 2 * cards, 'a Yes / No pair a card');
  await panel.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  assert.deepEqual(await violations(panel), []);
  // The keyboard reaches every control, each with a name.
  const unnamed = await panel.evaluate(() => [...document.querySelectorAll('button, input, select, textarea, summary, a[href]')]
    .filter((e) => !(/** @type {HTMLElement} */ (e).closest('[hidden]')))
    .filter((e) => /** @type {HTMLElement} */ (e).tabIndex < 0 || !(e.getAttribute('aria-label') || e.textContent?.trim() || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e.closest('label') || e.getAttribute('placeholder')))
    .map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(unnamed, []);
  // Text for reading is 13 px or larger.
  const small = await panel.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((e) => !(/** @type {HTMLElement} */ (e).closest('[hidden]')) && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent?.trim()))
    .filter((e) => parseFloat(getComputedStyle(e).fontSize) < 13)
    .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${getComputedStyle(e).fontSize}`));
  assert.deepEqual([...new Set(small)], []);
  await panel.close();
});
