// Loads the built Chrome extension (dist/chrome) in headless Chromium and talks to its service worker.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_SITE, ROOT, extensionWorker, launchChromium, requireBuilt, serveDirectory } from './helpers.mjs';

const EXTENSION = join(ROOT, 'dist/chrome');
const LISTING = 'imoveis/apartamentos.html';
const ENTITY = 'imovel/101-apartamento-2-quartos-lapa.html';

let site, browser, worker, extensionId;

before(async () => {
  await requireBuilt(join(EXTENSION, 'pkg/exemplar_bg.wasm'), 'the extension');
  site = await serveDirectory(DEMO_SITE);
  browser = await launchChromium({ extension: EXTENSION });
  worker = await extensionWorker(browser.context);
  extensionId = new URL(worker.url()).host;
});

after(async () => {
  await browser?.close();
  await site?.close();
});

async function fetchPage(path) {
  const response = await fetch(site.url + path);
  assert.equal(response.status, 200, path);
  return { html: await response.text(), url: site.url + path };
}

test('the manifest asks for no host permissions at install', async () => {
  const manifest = JSON.parse(await readFile(join(EXTENSION, 'manifest.json'), 'utf8'));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.host_permissions, undefined);
  assert.deepEqual(manifest.optional_host_permissions, ['<all_urls>']);
  assert.deepEqual([...manifest.permissions].sort(), ['activeTab', 'alarms', 'downloads', 'scripting', 'sidePanel', 'storage']);
  assert.deepEqual(manifest.background, { service_worker: 'background/main.js', type: 'module' });
  assert.deepEqual(manifest.side_panel, { default_path: 'panel.html' });
  assert.equal(manifest.sidebar_action, undefined, 'Firefox-only keys are left out of the Chrome build');
  assert.match(manifest.content_security_policy.extension_pages, /'wasm-unsafe-eval'/);
  // Its icons, every size a browser asks for, as PNG files of that size.
  for (const icons of [manifest.icons, manifest.action.default_icon]) {
    assert.deepEqual(Object.keys(icons), ['16', '32', '48', '128']);
    for (const [size, path] of Object.entries(icons)) {
      const png = await readFile(join(EXTENSION, path));
      assert.equal(png.toString('latin1', 1, 4), 'PNG', path);
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [Number(size), Number(size)], path);
    }
  }
});

test('the service worker classifies a listing page and a property page', async () => {
  for (const [path, kind] of [[LISTING, 'index'], [ENTITY, 'entity']]) {
    const page = await fetchPage(path);
    const reply = await worker.evaluate((msg) => globalThis.exemplarDispatch(msg), { type: 'classify', ...page });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.equal(reply.result.kind, kind, `${path}: ${JSON.stringify(reply.result)}`);
    assert.ok(reply.result.confidence > 0 && reply.result.confidence <= 1);
    assert.ok(Array.isArray(reply.result.evidence));
  }
});

test('unknown messages and bad input get an error reply, not a crash', async () => {
  const reply = await worker.evaluate(() => globalThis.exemplarDispatch({ type: 'nope' }));
  assert.deepEqual(reply, { ok: false, error: 'unknown message type: "nope"' });
});

test('without a host permission a tab cannot be read, and the worker says so', async () => {
  // Without the "tabs" permission tab URLs are hidden: the page's tab is the one that appears.
  const tabIds = () => worker.evaluate(async () => (await chrome.tabs.query({})).map((t) => t.id));
  const before = await tabIds();
  const tab = await browser.context.newPage();
  await tab.goto(site.url + ENTITY);
  const added = (await tabIds()).filter((id) => !before.includes(id));
  assert.equal(added.length, 1, JSON.stringify(added));
  const [tabId] = added;
  const reply = await worker.evaluate((msg) => globalThis.exemplarDispatch(msg), { type: 'classifyTab', tabId });
  assert.equal(reply.ok, false);
  assert.match(reply.error, /Cannot access|permission/i);
  const state = await worker.evaluate((msg) => globalThis.exemplarDispatch(msg), { type: 'tabState', tabId });
  assert.deepEqual(state, { ok: true, result: null });
  await tab.close();
});

test('the popup renders and reaches the worker through runtime messages', async () => {
  const popup = await browser.context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  assert.equal(await popup.locator('h1').textContent(), 'Exemplar');
  // The popup opened as a tab reads itself, which an extension may not script: it says so.
  await popup.locator('#status.error').waitFor();
  assert.match(await popup.locator('#status').textContent(), /cannot read this page/);

  const a = await fetchPage(ENTITY);
  const b = await fetchPage('imovel/115-casa-5-quartos-tatuape.html');
  const sim = await popup.evaluate((msg) => chrome.runtime.sendMessage(msg), { type: 'similarity', htmlA: a.html, htmlB: b.html, options: { view: { collapse: 'none' } } });
  assert.equal(sim.ok, true, JSON.stringify(sim));
  assert.ok(sim.result.similarity > 0 && sim.result.similarity < 1, JSON.stringify(sim.result));
  assert.equal(typeof sim.result.similar, 'boolean');

  const reply = await popup.evaluate((msg) => chrome.runtime.sendMessage(msg), { type: 'classify', ...a });
  assert.equal(reply.ok, true, JSON.stringify(reply));
  assert.ok(['index', 'entity', 'other'].includes(reply.result.kind), JSON.stringify(reply.result));

  // The limits start from the core's defaults (the wasm export defaultSettings(), the command
  // line's too), not from a table of the extension's own.
  const defaults = await popup.evaluate((msg) => chrome.runtime.sendMessage(msg), { type: 'defaults' });
  assert.equal(defaults.ok, true, JSON.stringify(defaults));
  const core = await popup.evaluate(async () => {
    const wasm = await import('./pkg/exemplar.js');
    await wasm.default();
    return wasm.defaultSettings();
  });
  for (const key of ['maxPages', 'maxDepth', 'delayMs', 'concurrency', 'threshold', 'maxBytes', 'obeyRobots']) {
    assert.equal(defaults.result[key], core[key], key);
  }
  assert.equal(core.maxPages, 10000, "the core's page budget (MapConfig::default)");
  await popup.close();
});

test('firefox build: background scripts, a sidebar, the gecko id, no side panel', async () => {
  const manifest = JSON.parse(await readFile(join(ROOT, 'dist/firefox/manifest.json'), 'utf8'));
  assert.deepEqual(manifest.background, { scripts: ['background/main.js'], type: 'module' });
  assert.equal(manifest.sidebar_action.default_panel, 'panel.html');
  assert.equal(manifest.side_panel, undefined);
  assert.ok(!manifest.permissions.includes('sidePanel'));
  assert.equal(manifest.browser_specific_settings.gecko.id, 'exemplar@exemplar.dev');
});

test('without site access a generation is refused with a clear message and nothing is fetched', async () => {
  const watched = await serveDirectory(DEMO_SITE);
  const origin = new URL(watched.url).origin;
  try {
    const reply = await worker.evaluate((msg) => globalThis.exemplarDispatch(msg), { type: 'startLearn', exampleUrl: watched.url + ENTITY });
    assert.equal(reply.ok, false);
    assert.equal(reply.error, `Permission denied: Exemplar has no access to ${origin}. Allow it when Exemplar asks, or in the extension's site access settings.`);
    const jobs = await worker.evaluate((msg) => globalThis.exemplarDispatch(msg), { type: 'status' });
    assert.deepEqual(jobs.result.jobs, []);

    // Asking for access puts the question to the user (a prompt headless tests cannot answer):
    // until they answer, the extension has no access and nothing starts.
    const popup = await browser.context.newPage();
    await popup.goto(`chrome-extension://${extensionId}/popup.html`);
    const asked = await popup.evaluate(async (o) => {
      const request = chrome.permissions.request({ origins: [`${o}/*`] }).then(String, (e) => `error: ${e.message}`);
      const answer = await Promise.race([request, new Promise((ok) => setTimeout(() => ok('pending'), 1000))]);
      return { answer, contains: await chrome.permissions.contains({ origins: [`${o}/*`] }) };
    }, origin);
    assert.deepEqual(asked, { answer: 'pending', contains: false });
    await popup.close();
  } finally {
    await watched.close();
  }
});
