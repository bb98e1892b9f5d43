// Serves the playground (www/, with www/pkg built by build.sh) and drives it in headless Chromium.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, launchChromium, requireBuilt, serveDirectory } from './helpers.mjs';

let site, browser;

before(async () => {
  await requireBuilt(join(ROOT, 'www/pkg/exemplar_bg.wasm'), 'the playground');
  await requireBuilt(join(ROOT, 'www/samples/listing.html'), 'the playground samples');
  site = await serveDirectory(join(ROOT, 'www'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
});

test('the playground loads the wasm core, compares and classifies the two sample pages', async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(site.url);
  await page.locator('#status', { hasText: 'Ready.' }).waitFor({ timeout: 15000 });

  await page.click('#compare');
  const text = await page.locator('#similarity').textContent();
  const m = /similarity (\d\.\d+) · distance (\d+) · sizes (\d+) \/ (\d+) nodes/.exec(text);
  assert.ok(m, text);
  assert.ok(Number(m[1]) > 0 && Number(m[1]) < 1, text);

  await page.click('#classify');
  for (const id of ['#kind-a', '#kind-b']) {
    assert.match(await page.locator(id).textContent(), /^(index|entity|other) · \d+% confidence$/);
  }
  assert.deepEqual(errors, []);
});
