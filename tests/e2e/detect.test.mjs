// "Find item pages" through the real extension (dist/chrome with access to 127.0.0.1 granted): on
// an author page of the quotes.toscrape.com mirror (eval/real/sites/quotes-toscrape, a real
// site), the popup finds the site's author pages, the side panel lists them with links to their
// sample pages, and "Use as example" there learns a crawler for them. A host that answers nothing gets a clear message.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, extensionWithAccess, extensionWorker, launchChromium, learnEnded, popupOn, press, requireBuilt,
  serveDirectory, until, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const QUOTES = join(ROOT, 'eval/real/sites/quotes-toscrape');

let ext, site, browser, worker;

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  ext = await extensionWithAccess(BUILT);
  site = await serveDirectory(QUOTES);
  browser = await launchChromium({ extension: ext.dir });
  worker = await extensionWorker(browser.context);
});

after(async () => {
  await browser?.close();
  await site?.close();
  await ext?.remove();
});

async function call(msg) {
  const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
  assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
  return reply.result;
}

test('the popup finds the author pages from an author page; the panel lists them, and one click learns a crawler', async () => {
  const { popup } = await popupOn(browser.context, worker, `${site.url}author/Albert-Einstein/`);
  await press(popup.locator('#advanced summary'));
  await popup.locator('#delayMs').fill('0');
  await popup.locator('#concurrency').fill('4');
  await press(popup.locator('#find-items'));
  await until(popup, () => document.querySelectorAll('#sections > li').length > 0
    || /^No list|answered nothing|denied/.test(document.getElementById('find-status').textContent));
  assert.match(await popup.locator('#find-status').textContent(), /^Found after reading \d+ pages:$/);
  const first = popup.locator('#sections > li').first();
  assert.match(await first.textContent(), /^About \d+ items \(\/author\/\*\) on \//);
  const samples = await first.locator('ul li').allTextContents();
  assert.ok(samples.length >= 1 && samples.every((s) => s.startsWith('/author/')), samples.join(' | '));

  // The side panel lists the same section, its samples as links to the pages.
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
  await panel.locator('#found:not([hidden]) #found-sections > li').first().waitFor();
  assert.equal(await panel.locator('#found-site').textContent(), new URL(site.url).host);
  assert.match(await panel.locator('#found-status').textContent(), /^Found after reading \d+ pages\./);
  const section = panel.locator('#found-sections > li').first();
  assert.match(await section.locator('strong').textContent(), /^About \d+ item pages like \/author\/\*$/);
  const links = await section.locator('.samples a').evaluateAll((as) => as.map((a) => [a.href, a.target]));
  assert.ok(links.length >= 2, JSON.stringify(links));
  for (const [href, target] of links) {
    assert.ok(href.startsWith(`${site.url}author/`), href);
    assert.equal(target, '_blank');
  }

  // "Use as example" in the panel learns from the first sample, with the popup's limits.
  const before = (await call({ type: 'status' })).jobs.length;
  await press(section.locator('.use-section'));
  const job = await waitFor(async () => {
    const { jobs } = await call({ type: 'status' });
    return jobs.length > before && jobs.find((j) => j.kind === 'learn');
  }, 'a learning job');
  const learn = await learnEnded(call, job.id);
  assert.equal(learn.status, 'done', learn.error);
  // The mirror's directory-style pages redirect `/author/X` to `/author/X/`.
  assert.equal(learn.example.replace(/\/$/, ''), links[0][0].replace(/\/$/, ''));
  assert.equal(await panel.locator('#found-error').textContent(), '');
  // Every author page is learned as a target, and nothing else: the quote lists (/page/N/),
  // alike as the template makes them, continue the home page's list.
  const targets = learn.result.targets.map((t) => t.url);
  const authors = targets.filter((u) => u.includes('/author/'));
  assert.ok(authors.length >= 45, `${authors.length} author pages among ${targets.length} targets`);
  assert.deepEqual(targets.filter((u) => !u.includes('/author/')), []);
});

test('a host that answers nothing is said so in the popup', async () => {
  const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), { type: 'detect', url: 'http://127.0.0.1:9/', delayMs: 0 });
  assert.equal(reply.ok, false);
  assert.match(reply.error, /answered nothing/);
});
