// The same extension in Firefox (firefox-esr, dist/firefox): page kinds, a crawler generation and
// the panel's views of it.
//
// What runs here: dist/firefox installed in headless firefox-esr (puppeteer-core over WebDriver
// BiDi, browser.installExtension), with access to 127.0.0.1 granted as in the Chromium tests; the
// background (an event page in Firefox, `background.scripts` as a module) answers the popup's
// messages: 'classify' of a property page (entity) and of a listing page (index), the popup on a
// live tab ('classifyTab', read with scripting.executeScript), and 'startLearn' on the demo site
// followed by the crawl it starts, whose pages (IndexedDB, read from an extension page) must be
// exactly the site's 22 entity pages.
//
// What does not run here, and why:
// - The side panel: Firefox has a sidebar (sidebar_action) instead, and no WebDriver command opens
//   it; panel.html is loaded as a tab instead, which runs the same code: the pattern's line and
//   cards, the θ chart and slider, the review's cards and folded groupings, the target list's filter.
// - Worker-termination tests (generate.test.mjs stops the service worker mid-run): Firefox's MV3
//   background is an event page, not a service worker, and neither WebDriver BiDi nor puppeteer can
//   stop it on demand; resuming from snapshots is covered in Chromium and in the core's tests.
// - The toolbar popup as a real popup: BiDi cannot click browser chrome, so popup.html is opened as
//   a page (?tabId=N), as the Chromium tests also do.
// - Exports, pause/resume, re-runs, import: the same background code as in Chromium, which tests
//   them; here only the browser-specific paths (module background, wasm, fetch with host access,
//   IndexedDB, messaging, scripting) are exercised.
// Found here: in Firefox a match pattern naming a port does not match that port (tabs.query finds no
// tab with it, and permissions.contains says false with 'http://127.0.0.1/*' granted), so the
// extension asks for and checks host patterns without the port (lib/site-access.js hostPattern).
// Extension pages cannot be opened by WebDriver (browsingContext.navigate refuses moz-extension:), so the
// test copy lists them in web_accessible_resources and a 127.0.0.1 page navigates to them.
import assert from 'node:assert/strict';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_SITE, ROOT, demoRoles, requireBuilt, score, serveDirectory, waitFor } from './helpers.mjs';

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const BUILT = join(ROOT, 'dist/firefox');
const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';
const LISTING = 'imoveis/apartamentos.html';
const FAST = { delayMs: 0, concurrency: 4 };
// A fixed moz-extension UUID (otherwise random per profile), so extension pages have a known URL.
const UUID = '6f1c9b52-7d0e-4a3b-9a57-2e0c4f8d1a31';

const requests = [];
let missing = null;
try {
  await access(FIREFOX);
} catch {
  missing = `${FIREFOX} is missing: install firefox-esr (./build.sh setup installs it) or set FIREFOX_PATH`;
}

let ext, site, browser, geckoId, entities;

/**
 * A copy of dist/firefox for the test: host access to 127.0.0.1 (standing in for the user granting
 * the optional permission) and the extension pages reachable from 127.0.0.1 (see above).
 */
async function firefoxExtension() {
  const dir = await mkdtemp(join(tmpdir(), 'exemplar-ff-ext-'));
  await cp(BUILT, dir, { recursive: true });
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  manifest.host_permissions = ['http://127.0.0.1/*'];
  manifest.web_accessible_resources = [{ resources: ['popup.html', 'panel.html'], matches: ['http://127.0.0.1/*'] }];
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, id: manifest.browser_specific_settings.gecko.id, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = await mkdtemp(join(tmpdir(), 'exemplar-ff-profile-'));
  const instance = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [geckoId]: UUID }),
      // Firefox MV3 treats host_permissions as optional, granted by the user. A temporary install (which
      // BiDi's installExtension is) gets them granted anyway (checked with permissions.getAll() in
      // firefox-esr 153, with and without this pref); the pref grants them at install in other cases.
      'extensions.originControls.grantByDefault': true,
    },
  });
  return {
    instance,
    close: async () => {
      await instance.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** An extension page (popup.html, panel.html…) in a new tab, reached from a 127.0.0.1 page. */
async function openExtensionPage(path) {
  const page = await browser.instance.newPage();
  await page.goto(site.url + 'index.html');
  const url = `moz-extension://${UUID}/${path}`;
  await page.evaluate((u) => { location.href = u; }, url);
  // WebDriver BiDi reports no navigation events for moz-extension: pages: poll the page itself.
  await waitFor(async () => page.evaluate((u) => location.href === u && document.readyState === 'complete', url)
    .catch(() => false), `${url} to load`, 15_000);
  return page;
}

let messenger; // an extension page kept open to talk to the background

async function call(msg) {
  const reply = await messenger.evaluate((m) => chrome.runtime.sendMessage(m), msg);
  assert.equal(reply?.ok, true, `${msg.type}: ${reply?.error}`);
  return reply.result;
}

async function finished(jobId, timeoutMs = 90_000) {
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, `job ${jobId}`, timeoutMs, 200);
}

before(async () => {
  if (missing) return;
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  ext = await firefoxExtension();
  geckoId = ext.id;
  site = await serveDirectory(DEMO_SITE, { log: requests });
  browser = await launchFirefox();
  await browser.instance.installExtension(ext.dir);
  entities = Object.entries(await demoRoles()).filter(([, r]) => r === 'entity').map(([p]) => p);
  messenger = await openExtensionPage('panel.html');
});

after(async () => {
  await browser?.close();
  await site?.close();
  await ext?.remove();
});

test('Firefox: page kinds through the background (entity and index)', { skip: missing ?? false }, async () => {
  const html = async (path) => readFile(join(DEMO_SITE, path), 'utf8');
  const entity = await waitFor(async () => {
    // The background may still be starting (wasm init) right after install.
    const reply = await messenger.evaluate((m) => chrome.runtime.sendMessage(m).catch((e) => ({ ok: false, error: String(e) })),
      { type: 'classify', html: await html(EXAMPLE), url: site.url + EXAMPLE });
    return reply?.ok && reply.result;
  }, 'the background to answer', 20_000, 250);
  assert.equal(entity.kind, 'entity');
  const listing = await call({ type: 'classify', html: await html(LISTING), url: site.url + LISTING });
  assert.equal(listing.kind, 'index');
});

test('Firefox: the popup classifies a live tab', { skip: missing ?? false }, async () => {
  const tab = await browser.instance.newPage();
  await tab.goto(site.url + LISTING);
  const tabId = await waitFor(
    // Port-less pattern: in Firefox a pattern naming a port matches nothing.
    async () => (await messenger.evaluate(async (u) => (await chrome.tabs.query({ url: 'http://127.0.0.1/*' }))
      .find((t) => t.url === u)?.id, site.url + LISTING)),
    'the tab', 10_000,
  );
  const popup = await openExtensionPage(`popup.html?tabId=${tabId}`);
  await popup.waitForSelector('#generate:not([hidden])', { timeout: 20_000 });
  assert.equal(await popup.$eval('#kind', (e) => e.dataset.kind), 'index');
  assert.equal(await popup.$eval('#kind', (e) => e.textContent), 'Listing page');
  assert.equal(await popup.$eval('#listing-hint', (e) => e.hidden), false, 'a hint to open an item');
  await popup.close();
  await tab.close();
});

/** The crawler the generation test learned, for the panel's test. @type {string | null} */
let crawlerId = null;

test('Firefox: example page → pattern → crawl of exactly the entity pages', { skip: missing ?? false }, async () => {
  const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, settings: FAST });
  const learn = await finished(jobId);
  crawlerId = learn.crawlerId;
  assert.equal(learn.status, 'done', learn.error);
  const crawlJob = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === learn.crawlerId), 'the crawl job');
  const crawl = await finished(crawlJob.id);
  assert.equal(crawl.status, 'done', crawl.error);
  assert.equal(crawl.errorCount, 0, JSON.stringify(crawl.errors));

  const pages = await messenger.evaluate(async (id) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).map((p) => p.url);
  }, learn.crawlerId);
  const expected = entities.map((p) => site.url + p);
  assert.deepEqual(score(pages, expected), { precision: 1, recall: 1, hits: 22, found: 22, expected: 22 });
  assert.equal(crawl.result.targets, 22);
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), [...expected].sort());
  // Firefox lets the extension identify its requests (Chromium keeps its own user agent).
  const crawled = requests.filter((r) => r.path.startsWith('/imovel/'));
  assert.ok(crawled.length >= 22);
  assert.ok(crawled.every((r) => / Exemplar\/0\.1 \(\+https:\/\/exemplar\.dev\/bot\)$/.test(r.headers['user-agent'])), crawled[0]?.headers['user-agent']);
});

test('Firefox: the panel draws the pattern, the θ chart, the review and the target pages', { skip: missing ?? false }, async () => {
  assert.ok(crawlerId, 'the generation test ran first');
  const panel = await openExtensionPage(`panel.html?crawler=${crawlerId}`);
  const text = (sel) => panel.$eval(sel, (e) => e.textContent);
  await waitFor(async () => (await text('#n-pages')) === '22', 'the 22 target pages listed', 20_000);
  // The pattern as a line and a card per level, paths readable.
  assert.match(await text('#pattern-flow'), /^entry page → .* → item pages \(22\)$/);
  const cards = await panel.$$eval('#levels > *', (l) => l.map((c) => c.textContent));
  assert.ok(cards.length >= 2, cards.join(' | '));
  assert.match(cards.at(-1), /^Level \d+: item pages/);
  assert.match(cards.at(-1), /\/imovel\/\{/);
  // θ on the chart: bars, and the slider's preview before re-learning.
  assert.ok(await panel.$eval('#theta-chart svg', (svg) => svg.querySelectorAll('rect').length) > 2);
  await panel.$eval('#theta-slider', (e) => { e.value = '0.5'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  assert.match(await text('#theta-preview'), /^At θ = 0\.5: \d+ of \d+ pages at or above θ \(\d+ more\)/);
  // The review: cards with a Yes / No pair each, groupings folded.
  const pairs = await panel.$$eval('#near-misses li.card, #weak-targets li.card', (l) => l.map((c) => c.querySelectorAll('input[type=radio]').length));
  assert.ok(pairs.length > 0 && pairs.every((n) => n === 2), JSON.stringify(pairs));
  assert.deepEqual(await panel.$$eval('#review-box details.grouping', (l) => l.filter((d) => d.open).length), 0);
  // The target pages: filtered by a word of one URL.
  await panel.type('#filter', '101-apartamento');
  await waitFor(async () => (await text('#n-pages')) === '1 of 22', 'the filter', 10_000);
  assert.equal(await panel.$eval('#listing-warning', (e) => e.hidden), true);
  await panel.close();
});
