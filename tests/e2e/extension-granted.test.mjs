// The extension with access to the test site (a copy of dist/chrome whose manifest grants
// http://127.0.0.1/*, standing in for a user granting the optional host permission): tabs are
// classified when they finish loading, the badge and the popup show the result.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_SITE, ROOT, extensionWorker, launchChromium, requireBuilt, serveDirectory } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
let site, browser, worker, extensionId, copy;

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  copy = await mkdtemp(join(tmpdir(), 'exemplar-ext-'));
  await cp(BUILT, copy, { recursive: true });
  const manifest = JSON.parse(await readFile(join(copy, 'manifest.json'), 'utf8'));
  manifest.host_permissions = ['http://127.0.0.1/*'];
  await writeFile(join(copy, 'manifest.json'), JSON.stringify(manifest));
  site = await serveDirectory(DEMO_SITE);
  browser = await launchChromium({ extension: copy });
  worker = await extensionWorker(browser.context);
  extensionId = new URL(worker.url()).host;
});

after(async () => {
  await browser?.close();
  await site?.close();
  if (copy) await rm(copy, { recursive: true, force: true });
});

const dispatch = (msg) => worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);

/** Opens `path` of the demo site in a new tab; returns [page, tabId]. */
async function openTab(path) {
  const page = await browser.context.newPage();
  await page.goto(site.url + path);
  const tabId = await worker.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]?.id, site.url + path);
  assert.equal(typeof tabId, 'number');
  return [page, tabId];
}

/** Waits until the worker has stored a classification for the tab (after tabs.onUpdated). */
async function waitForState(tabId) {
  for (let i = 0; i < 100; i++) {
    const reply = await dispatch({ type: 'tabState', tabId });
    if (reply.ok && reply.result) return reply.result;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`tab ${tabId} was never classified`);
}

test('a loaded tab is classified on its own and the popup shows the result', async () => {
  const [page, tabId] = await openTab('imovel/101-apartamento-2-quartos-lapa.html');
  const state = await waitForState(tabId);
  assert.equal(state.url, site.url + 'imovel/101-apartamento-2-quartos-lapa.html');
  const title = await worker.evaluate((id) => chrome.action.getTitle({ tabId: id }), tabId);
  assert.match(title, /^Exemplar: (an item page|a listing page|neither an item nor a listing page) \(\d+% confidence\)$/);

  const popup = await browser.context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html?tabId=${tabId}`);
  await popup.locator('#result:not([hidden])').waitFor();
  assert.equal(await popup.locator('#kind').getAttribute('data-kind'), state.kind);
  assert.equal(await popup.locator('#kind').textContent(), { entity: 'Item page', index: 'Listing page', other: 'Other page' }[state.kind]);
  assert.match(await popup.locator('#confidence').textContent(), /^\d+%$/);
  assert.equal(await popup.locator('#status').textContent(), state.url);
  await popup.close();
  await page.close();
});

test('the badge says ITEM on a property page and LIST on a listing page', async () => {
  for (const [path, badge] of [['imovel/115-casa-5-quartos-tatuape.html', 'ITEM'], ['imoveis/casas.html', 'LIST']]) {
    const [page, tabId] = await openTab(path);
    const state = await waitForState(tabId);
    const text = await worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);
    assert.equal(text, badge, `${path}: ${JSON.stringify(state)}`);
    // The button's title in words.
    const title = await worker.evaluate((id) => chrome.action.getTitle({ tabId: id }), tabId);
    assert.match(title, badge === 'ITEM' ? /^Exemplar: an item page \(\d+% confidence\)$/ : /^Exemplar: a listing page \(\d+% confidence\)$/);
    await page.close();
  }
});
