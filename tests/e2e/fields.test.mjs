// The data fields through the real extension, on the bundled demo site (property pages): learned
// with the crawler, shown in the side panel with the example's values, renamed and removed there,
// one added by clicking it on the example page (the content script's outlines and pick), one by a
// CSS selector, a bad selector refused with the reason; the crawl's records carry them (the
// panel's list, JSON Lines, CSV), and re-learning keeps them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_SITE, ROOT, callFrom, crawlDone, directoryInBrowser, learnEnded, press, until, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';

let env, site, browser, worker, panel, call;

before(async () => {
  env = await directoryInBrowser(DEMO_SITE, BUILT);
  ({ site, browser, worker } = env);
  panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${env.extensionId}/panel.html`);
  call = callFrom(panel);
});

after(async () => {
  await env?.close();
});

/** The crawler's fields and the example's values: {names, values: {name: value}}. */
async function fieldsOf(crawlerId) {
  const view = await call({ type: 'crawlerFields', crawlerId });
  return { names: view.fields.map((f) => f.name), values: Object.fromEntries(view.values) };
}

/** What the content script shows in `tabId`: {shown, boxes, picking}. */
async function shownIn(tabId) {
  const [r] = await worker.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id }, func: () => globalThis.exemplarFieldsState?.() ?? null,
  }), tabId);
  return r.result;
}

test('fields are learned, edited in the panel and on the page, and carried by the records', async () => {
  const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, settings: { delayMs: 0, concurrency: 4 } });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  const crawlerId = learn.crawlerId;
  await crawlDone(call, crawlerId);

  // Learned from the example and its fellow targets, with the example's values.
  const learned = await fieldsOf(crawlerId);
  for (const name of ['price', 'quartos', 'address']) assert.ok(learned.names.includes(name), learned.names.join(', '));
  assert.equal(learned.values.price, 1170000);
  assert.equal(learned.values.quartos, 2);
  const [crawler] = (await call({ type: 'crawlers' })).filter((c) => c.id === crawlerId);
  assert.equal(JSON.parse(crawler.patternJson).version, 2);

  // The panel lists them; a field renamed and one removed there.
  await until(panel, (n) => document.querySelectorAll('#fields tbody tr').length === n, learned.names.length);
  const priceName = panel.locator('#fields input[aria-label="Name of the field price"]');
  await priceName.fill('Preço');
  await priceName.dispatchEvent('change');
  await waitFor(async () => (await fieldsOf(crawlerId)).names.includes('preço'), 'the rename');
  await press(panel.locator('#fields button[aria-label="Remove the field address"]'));
  await waitFor(async () => !(await fieldsOf(crawlerId)).names.includes('address'), 'the removal');
  await until(panel, () => [...document.querySelectorAll('#fields input')].some((i) => i.value === 'preço'));
  assert.match(await panel.locator('#fields tbody').textContent(), /1170000/);

  // Shown on the example page: a tab opens on it, each field outlined with its name.
  await press(panel.locator('#fields-show'));
  const tab = await waitFor(() => browser.context.pages().find((p) => p.url() === site.url + EXAMPLE), 'the example tab');
  const tabId = await worker.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]?.id, site.url + EXAMPLE);
  // The content script answers before it has drawn: wait for the outlines themselves.
  const shown = await waitFor(async () => {
    const s = await shownIn(tabId);
    return s?.shown?.length ? s : null;
  }, 'the outlines');
  assert.ok(shown.shown.includes('preço') && !shown.shown.includes('address'), JSON.stringify(shown));
  assert.ok(shown.boxes.filter((b) => b === 'quartos').length === 1, JSON.stringify(shown.boxes));
  // Nothing of it is in the page's own DOM tree: the outlines live in a closed shadow root.
  assert.equal(await tab.evaluate(() => document.querySelector('exemplar-fields')?.shadowRoot ?? null), null);

  // Picked on the page: the address clicked becomes a field again, named by the core.
  await press(panel.locator('#fields-pick'));
  await waitFor(async () => (await shownIn(tabId))?.picking, 'pick mode');
  await tab.locator('p.address').click();
  await waitFor(async () => (await fieldsOf(crawlerId)).names.includes('address'), 'the picked field');
  assert.match(String((await fieldsOf(crawlerId)).values.address), /Lapa/);
  assert.equal((await shownIn(tabId)).picking, false, 'one pick, then pick mode ends');
  await until(panel, () => document.getElementById('fields-status').textContent.startsWith('Field added'));

  // Added by a CSS selector and a name; a selector the core cannot read is refused, with why.
  await panel.locator('#fields-css').fill('section.features > table th');
  await panel.locator('#fields-name').fill('Rótulos');
  await press(panel.locator('#fields-add button'));
  await waitFor(async () => (await fieldsOf(crawlerId)).names.includes('rótulos'), 'the field by selector');
  await panel.locator('#fields-css').fill('a[href]');
  await press(panel.locator('#fields-add button'));
  await until(panel, () => /not understood/.test(document.getElementById('fields-error').textContent));

  // A crawl's records carry the fields: the panel's list, JSON Lines, CSV.
  const before = Date.now();
  await call({ type: 'runCrawler', crawlerId });
  await crawlDone(call, crawlerId, before);
  await until(panel, () => [...document.querySelectorAll('#pages .record')].some((r) => /preço: \d+/.test(r.textContent)));
  const exported = await panel.evaluate(async (id) => {
    const out = {};
    for (const f of ['jsonl', 'csv']) {
      const { blob } = await globalThis.exemplarExport(id, f);
      out[f] = await blob.text();
    }
    return out;
  }, crawlerId);
  const lines = exported.jsonl.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 22);
  const unpriced = lines.filter((l) => !(typeof l.fields?.['preço'] === 'number' && l.fields['preço'] > 100000));
  assert.deepEqual(unpriced.map((l) => [l.url, l.fields]), []);
  const lapa = lines.find((l) => l.url.endsWith(EXAMPLE));
  assert.equal(lapa.fields.quartos, 2);
  assert.match(lapa.fields.address, /Lapa/);
  const [header, ...rows] = exported.csv.trim().split('\r\n');
  assert.ok(header.includes(',preço,') && header.includes(',quartos'), header);
  assert.equal(rows.length, 22);

  // Re-learning at another θ keeps the fields.
  await call({ type: 'relearn', jobId, threshold: 0.9 });
  const kept = await fieldsOf(crawlerId);
  assert.ok(kept.names.includes('preço') && kept.names.includes('rótulos'), kept.names.join(', '));
  await tab.close();
});
