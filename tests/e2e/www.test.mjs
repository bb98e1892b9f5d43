// Serves the playground (www/, with www/pkg and www/samples built by build.sh) and drives its three tools
// in headless Chromium with real pages: the demo site's pages (copied into www/samples), a development
// site's page when installed (Commons Lang's API docs), and a generated 10,000-node page. Saves a
// screenshot of each view into target/e2e-screenshots/ for review.
import assert from 'node:assert/strict';
import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { ROOT, launchChromium, press, requireBuilt, serveDirectory, until } from './helpers.mjs';

const SHOTS = join(ROOT, 'target/e2e-screenshots');
const DEVSITE = '/usr/share/doc/libcommons-lang3-java/api/org/apache/commons/lang3';

let site, browser;

before(async () => {
  await requireBuilt(join(ROOT, 'www/pkg/exemplar_bg.wasm'), 'the playground');
  await requireBuilt(join(ROOT, 'www/samples/listing.html'), 'the playground samples');
  await requireBuilt(join(ROOT, 'www/pkg/offline.js'), 'the playground for file://');
  await mkdir(SHOTS, { recursive: true });
  site = await serveDirectory(join(ROOT, 'www'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
});

async function openPlayground(url = site.url) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 1000 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.locator('#status', { hasText: 'Ready.' }).waitFor({ timeout: 20000 });
  return { page, errors };
}

async function done(page) {
  await page.locator('#status', { hasText: /^(Done in \d+ ms\.|Error: .*)$/ }).waitFor({ timeout: 60000 });
  const status = await page.locator('#status').textContent();
  assert.match(status, /^Done in/, status);
}

/** Sets a textarea's text at once, as a paste does (page.fill types large pages too slowly). */
async function paste(page, selector, text) {
  await page.locator(selector).evaluate((e, v) => { e.value = v; }, text);
}

async function exists(path) {
  return access(path).then(() => true, () => false);
}

/** Similarity figures from the summary line. */
function figures(text) {
  const m = /similarity (\d\.\d+) · distance (\d+) · sizes (\d+) \/ (\d+) nodes · (similar|not similar)/.exec(text);
  assert.ok(m, text);
  return { similarity: Number(m[1]), distance: Number(m[2]), sizeA: Number(m[3]), sizeB: Number(m[4]), similar: m[5] === 'similar' };
}

test('compare: a listing and a property page of the demo site, with the mapping coloured and linked', async () => {
  const { page, errors } = await openPlayground();
  await page.click('#compare');
  await done(page);
  const f = figures(await page.locator('#similarity').textContent());
  assert.ok(f.similarity > 0 && f.similarity < 1, JSON.stringify(f));
  assert.ok(f.distance > 0);

  // Both outlines are drawn, and the edit script costs the distance.
  assert.ok(await page.locator('#tree-a .node').count() > 3);
  assert.ok(await page.locator('#tree-b .node').count() > 3);
  assert.match(await page.locator('#ops-count').textContent(), new RegExp(`total cost ${f.distance}\\)`));
  // Different pages: something is deleted, inserted or cut by a label mismatch.
  const changed = await page.locator('#tree-a .node.s-deleted, #tree-a .node.s-mismatch, #tree-b .node.s-inserted, #tree-b .node.s-mismatch').count();
  assert.ok(changed > 0, 'some nodes are marked as changed');

  // Hovering a matched node of A highlights its partner in B (and only that one).
  const matched = page.locator('#tree-a .node.s-matched').nth(1);
  await matched.hover();
  const linked = page.locator('#tree-b .node.linked');
  assert.equal(await linked.count(), 1);
  assert.equal(await linked.textContent(), await matched.textContent(), 'the partner has the same label');
  assert.match(await linked.getAttribute('class'), /s-matched/);
  await page.screenshot({ path: join(SHOTS, 'www-compare.png'), fullPage: true });

  // A label mismatch or deletion listed in the edit operations is revealed on request.
  const show = page.locator('#ops li button').first();
  await press(show);
  assert.equal(await page.locator('#tree-a .node:focus, #tree-b .node:focus, #tree-a summary:focus, #tree-b summary:focus').count(), 1);

  // Two properties of one template are similar: nearly everything is matched or identical.
  await page.selectOption('#sample-a', 'entity.html');
  await page.selectOption('#sample-b', 'entity-2.html');
  await until(page, () => document.getElementById('html-a').value.includes('<'));
  await page.waitForTimeout(200);
  await page.click('#compare');
  await done(page);
  const g = figures(await page.locator('#similarity').textContent());
  assert.ok(g.similarity > f.similarity, `${g.similarity} > ${f.similarity}`);
  assert.ok(g.similar, 'two property pages are similar');
  // Keyboard: focusing a node links it too.
  await page.locator('#tree-a summary').first().focus();
  assert.equal(await page.locator('#tree-b .node.linked').count(), 1);

  await page.click('#classify');
  await done(page);
  for (const id of ['#kind-a', '#kind-b']) {
    assert.match(await page.locator(id).textContent(), /^entity · \d+% confidence$/);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('compare: a 10,000-node page does not freeze the page (the core runs in a worker)', async () => {
  const { page, errors } = await openPlayground();
  const rows = (n, extra) => Array.from({ length: n }, (_, i) => `<tr><td>${i}</td><td><a href="/p/${i}">item ${i}</a>${extra(i)}</td></tr>`).join('');
  const big = (extra) => `<!DOCTYPE html><html><head><title>big</title></head><body><table>${rows(2000, extra)}</table></body></html>`;
  await paste(page, '#html-a', big(() => ''));
  await paste(page, '#html-b', big((i) => (i % 7 === 0 ? '<b>new</b>' : '')));
  await page.selectOption('#view', 'full');
  await page.click('#compare');
  // While the worker computes, the page keeps answering.
  const ticks = await page.evaluate(() => new Promise((resolve) => {
    let n = 0;
    const start = performance.now();
    const tick = () => { n++; if (performance.now() - start < 300) setTimeout(tick, 10); else resolve(n); };
    tick();
  }));
  assert.ok(ticks > 10, `the main thread ran ${ticks} timers in 300 ms`);
  await done(page);
  const f = figures(await page.locator('#similarity').textContent());
  assert.ok(f.sizeA > 10000 && f.sizeB > 10000, JSON.stringify(f));
  assert.ok(await page.locator('#tree-b .node.s-inserted').count() > 0 || await page.locator('#ops li').count() > 0);
  await page.screenshot({ path: join(SHOTS, 'www-compare-large.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('classify: kind, confidence and the evidence in words, for demo pages and a development-site page', async (t) => {
  const { page, errors } = await openPlayground();
  await page.click('#tab-classify');
  assert.equal(await page.locator('#panel-classify').isVisible(), true);
  await until(page, () => document.getElementById('classify-html').value.length > 0);
  await page.click('#classify-run');
  await done(page);
  assert.equal(await page.locator('#classify-kind').textContent(), 'index');
  assert.match(await page.locator('#classify-confidence').textContent(), /^\d+% confidence$/);
  assert.ok(await page.locator('#classify-summary li').count() > 0, 'the evidence in words');
  assert.ok((await page.locator('#classify-evidence').textContent()).startsWith('['));
  await page.screenshot({ path: join(SHOTS, 'www-classify.png'), fullPage: true });

  await page.selectOption('#classify-sample', 'entity.html');
  await until(page, () => document.getElementById('classify-url').value.includes('/imovel/'));
  await page.click('#classify-run');
  await done(page);
  assert.equal(await page.locator('#classify-kind').textContent(), 'entity');

  const devPage = join(DEVSITE, 'StringUtils.html');
  if (await exists(devPage)) {
    // Markup in the page stays text: nothing of it is rendered.
    await paste(page, '#classify-html', await readFile(devPage, 'utf8'));
    await page.fill('#classify-url', 'https://commons.apache.org/proper/commons-lang/apidocs/org/apache/commons/lang3/StringUtils.html');
    await page.click('#classify-run');
    await done(page);
    assert.match(await page.locator('#classify-kind').textContent(), /^(index|entity|other)$/);
    assert.ok(await page.locator('#classify-summary li').count() > 0);
    await page.screenshot({ path: join(SHOTS, 'www-classify-devsite.png') });
  } else {
    t.diagnostic(`${devPage} absent: the development-site part is skipped`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('compare: two development-site pages of one template', async (t) => {
  const [a, b] = [join(DEVSITE, 'StringUtils.html'), join(DEVSITE, 'ArrayUtils.html')];
  if (!(await exists(a)) || !(await exists(b))) {
    t.skip(`${DEVSITE} absent`);
    return;
  }
  const { page, errors } = await openPlayground();
  await paste(page, '#html-a', await readFile(a, 'utf8'));
  await paste(page, '#html-b', await readFile(b, 'utf8'));
  await page.click('#compare');
  await done(page);
  const f = figures(await page.locator('#similarity').textContent());
  assert.ok(f.similar, JSON.stringify(f));
  assert.match(await page.locator('#ops-count').textContent(), new RegExp(`total cost ${f.distance}\\)`));
  await page.screenshot({ path: join(SHOTS, 'www-compare-devsite.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('pattern: the bundled example, level by level, and the generaliser', async () => {
  const { page, errors } = await openPlayground();
  await page.click('#tab-pattern');
  await until(page, () => document.getElementById('pattern-urls').value.includes('imovel'));
  await page.click('#pattern-run');
  await done(page);

  // Level 1 accepts the listings, level 2 (targets) the property pages; nothing else.
  const level = (n) => page.locator(`table.level[data-level="${n}"] li.accepted`);
  const l1 = await level(1).allTextContents();
  const l2 = await level(2).allTextContents();
  assert.deepEqual(l1.sort(), [
    'https://demo.exemplar.dev/imoveis/apartamentos-2.html',
    'https://demo.exemplar.dev/imoveis/apartamentos.html',
    'https://demo.exemplar.dev/imoveis/casas.html',
  ]);
  assert.equal(l2.length, 3);
  assert.ok(l2.every((u) => u.includes('/imovel/')), l2.join(' '));
  // Where each URL leads: a property page is a target from anywhere, the FAQ is never followed.
  const row = (url) => page.locator('#pattern-steps tr', { has: page.locator('code', { hasText: url }) });
  assert.deepEqual(await row('/imovel/101-apartamento-2-quartos-lapa.html').locator('td').allTextContents(),
    ['https://demo.exemplar.dev/imovel/101-apartamento-2-quartos-lapa.html', 'target', 'target']);
  assert.deepEqual(await row('/imoveis/casas.html').locator('td').allTextContents(),
    ['https://demo.exemplar.dev/imoveis/casas.html', 'level 1', 'level 1 (pagination)']);
  assert.deepEqual((await row('/faq.html').locator('td').allTextContents()).slice(1), ['not followed', 'not followed']);
  await page.screenshot({ path: join(SHOTS, 'www-pattern.png'), fullPage: true });

  // An invalid pattern says what is wrong.
  await page.fill('#pattern-json', '{"version": 1}');
  await page.click('#pattern-run');
  await page.locator('#status.error').waitFor();
  assert.match(await page.locator('#status').textContent(), /^Error: invalid pattern/);

  // The generaliser: property URLs give one regex that matches them all and not the listing.
  const urls = [
    'https://demo.exemplar.dev/imovel/101-apartamento-2-quartos-lapa.html',
    'https://demo.exemplar.dev/imovel/106-apartamento-3-quartos-pinheiros.html',
    'https://demo.exemplar.dev/imovel/116-casa-5-quartos-santana.html',
  ];
  await page.fill('#gen-urls', urls.join('\n'));
  await page.fill('#gen-negatives', 'https://demo.exemplar.dev/imoveis/casas.html');
  await page.click('#gen-run');
  await done(page);
  const regexes = await page.locator('#gen-regexes code').allTextContents();
  assert.ok(regexes.length >= 1, regexes.join(' '));
  for (const u of urls) assert.ok(regexes.some((r) => new RegExp(r).test(u)), `${u} is covered by ${regexes}`);
  assert.ok(!regexes.some((r) => new RegExp(r).test('https://demo.exemplar.dev/imoveis/casas.html')));
  await page.screenshot({ path: join(SHOTS, 'www-generalise.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('pasted HTML is shown as text, never rendered', async () => {
  const { page, errors } = await openPlayground();
  const hostile = '<html><body><div class="x"><img src=x onerror="window.pwned=1"><script>window.pwned=2</script></div></body></html>';
  await page.fill('#html-a', hostile);
  await page.fill('#html-b', hostile.replace('class="x"', 'class="y"'));
  await page.click('#compare');
  await done(page);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.locator('#tree-a img, #tree-a script').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the built folder opens directly from file:// (no server): all three tools work', async () => {
  const { page, errors } = await openPlayground(pathToFileURL(join(ROOT, 'www/index.html')).href);
  await page.click('#compare');
  await done(page);
  const f = figures(await page.locator('#similarity').textContent());
  assert.ok(f.similarity > 0 && f.similarity < 1, JSON.stringify(f));
  await page.locator('#tree-a .node.s-matched').first().hover();
  assert.equal(await page.locator('#tree-b .node.linked').count(), 1);

  await page.click('#tab-classify');
  await page.click('#classify-run');
  await done(page);
  assert.equal(await page.locator('#classify-kind').textContent(), 'index');

  await page.click('#tab-pattern');
  await page.click('#pattern-run');
  await done(page);
  assert.equal(await page.locator('table.level[data-level="2"] li.accepted').count(), 3);
  await page.screenshot({ path: join(SHOTS, 'www-file-url.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
