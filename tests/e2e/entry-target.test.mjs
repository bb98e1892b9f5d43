// Learning from "This page" in the real extension: the user opens a property page of the demo site
// and starts from it, so the entry page is the example. The entry is like the example, so the crawl
// collects it with every other property (before, navigation started there and it was never
// collected), and the side panel says so.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DEMO_SITE, ROOT, demoRoles, extensionWithAccess, extensionWorker, launchChromium, press, requireBuilt, score,
  clickExample, learnEnded, popupOn, serveDirectory, tick, until, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';

let ext, site, browser, worker, extensionId, entities;

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  ext = await extensionWithAccess(BUILT);
  site = await serveDirectory(DEMO_SITE);
  browser = await launchChromium({ extension: ext.dir });
  worker = await extensionWorker(browser.context);
  extensionId = new URL(worker.url()).host;
  entities = Object.entries(await demoRoles()).filter(([, r]) => r === 'entity').map(([p]) => site.url + p);
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

test('started from the example page, the crawl collects it too', { timeout: 180_000 }, async () => {
  const { tab, popup } = await popupOn(browser.context, worker, site.url + EXAMPLE);
  await popup.locator('#entry-choice').selectOption('current');
  await press(popup.locator('#advanced summary'));
  await popup.locator('#delayMs').fill('0');
  await popup.locator('#concurrency').fill('4');
  const jobId = await clickExample(popup);
  await popup.close();

  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  assert.equal(learn.entry, site.url + EXAMPLE);
  assert.equal(learn.result.targets.length, entities.length, 'the entry among the targets learning found');
  assert.ok(learn.result.targets.some((t) => t.url === site.url + EXAMPLE && t.similarity === 1));
  const crawl = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === learn.crawlerId && j.status !== 'running'), 'the crawl', 120_000, 200);
  assert.equal(crawl.status, 'done', crawl.error);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  const pages = await panel.evaluate(async (id) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).map((p) => p.url);
  }, learn.crawlerId);
  assert.ok(pages.includes(site.url + EXAMPLE), 'the example, the entry, is collected');
  const s = score(pages, entities);
  assert.deepEqual([s.precision, s.recall], [1, 1], JSON.stringify(s));
  await panel.locator('#r-entry-target').waitFor({ state: 'visible' });
  assert.equal(await panel.locator('#r-entry-target').textContent(),
    'The entry page is like the example: the crawl collects it too.');
  await until(panel, () => /reached 22 of the 22 targets/.test(document.getElementById('coverage').textContent));
  await panel.close();
  await tab.close();
});

test('an entry page like the example is the first target to check, and "not like" leaves it out', { timeout: 180_000 }, async () => {
  const entry = `${site.url}imovel/102-apartamento-1-quartos-butanta.html`;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: entry, exampleUrl: site.url + EXAMPLE, settings: { delayMs: 0, concurrency: 4 },
  });
  const learn = await learnEnded(call, jobId, 120_000);
  assert.equal(learn.status, 'done', learn.error);
  const crawlOf = (after) => waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === learn.crawlerId && j.status !== 'running' && j.startedAt > after),
  'the crawl', 120_000, 200);
  const first = await crawlOf(0);
  assert.equal(first.status, 'done', first.error);
  assert.equal(first.progress.targets, entities.length, 'every property, the entry among them');

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#r-entry-target').waitFor({ state: 'visible' });
  const firstRow = panel.locator('#weak-targets li').first();
  await firstRow.waitFor();
  assert.equal(await firstRow.getAttribute('data-url'), entry);
  assert.equal(await firstRow.locator('.badge').first().textContent(), 'entry');
  await tick(firstRow.locator('input[value="no"]'));
  await press(panel.locator('#relearn'));
  const relearned = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.result?.corrections?.unlike?.length > 0 && s;
  }, 're-learning', 30_000, 100);
  assert.deepEqual(relearned.result.corrections.unlike, [entry]);
  assert.ok(!relearned.result.targets.some((t) => t.url === entry));
  await panel.locator('#r-entry-target').waitFor({ state: 'hidden' });
  const startedAt = Date.now();
  await press(panel.locator('#run'));
  const second = await crawlOf(startedAt - 1);
  assert.equal(second.status, 'done', second.error);
  assert.equal(second.progress.targets, entities.length - 1, 'navigation starts there, nothing is collected from it');
  await panel.close();
});
