// A site that gains a page of the targets' kind after learning, one the similarity alone would
// reject, run again in the real extension: SFML's Doxygen pages (Debian package libsfml-doc)
// served on 127.0.0.1 without the member-less class sf::Utf (a 404 while learning), then with
// it. The pattern carries the heading rule learning applied, so the crawl that verifies new
// pages takes it, the panel marks it `heading` and `new`, and the JSON Lines export says so.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, devSiteInBrowser, learnAndCrawl, press, storedPages, until } from './helpers.mjs';

const SITE = 'sfml';
const NEW = 'classsf_1_1Utf.html';
const gone = new Set([`/${NEW}`]);

let env;
before(async () => {
  env = await devSiteInBrowser(SITE, join(ROOT, 'dist/chrome'), { gone });
});
after(() => env?.close());

test(`${SITE}: a class page published after learning, below θ, is taken for its heading`, { timeout: 300_000 }, async (t) => {
  const { spec, site, browser, worker, call } = env;
  if (!spec.installed) return t.skip(`${spec.root} is not installed (./build.sh setup)`);
  const truth = (await spec.targets()).map((p) => site.url + p);
  const added = site.url + NEW;
  assert.ok(truth.includes(added));
  const { learn } = await learnAndCrawl(env);
  assert.ok(!learn.result.targets.some((x) => x.url === added), 'not published while learning');
  const before = new Set(await storedPages(env, learn.crawlerId));
  assert.equal(before.size, truth.length - 1);

  // Published; the user runs the crawler again. The target level says what the heading rule
  // takes, its templates as text.
  gone.clear();
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html?crawler=${learn.crawlerId}`);
  const rule = panel.locator('#levels .level').last().locator('details.heading-rule');
  await rule.waitFor({ state: 'attached' });
  assert.match(await rule.locator('summary').textContent(), /^pages just below θ taken when their heading follows one of \d+ target heading templates$/);
  assert.ok((await rule.locator('li').allTextContents()).includes('sf * Class Template Reference System module'));
  const startedAt = Date.now();
  await press(panel.locator('#run'));
  const crawl = await crawlDone(call, learn.crawlerId, startedAt - 1);
  t.diagnostic(JSON.stringify(crawl.progress));
  assert.equal(crawl.progress.newTargets, 1);
  assert.equal(crawl.progress.byHeading, 1);
  assert.equal(crawl.progress.rejected, 0);
  const after = await storedPages(env, learn.crawlerId);
  assert.deepEqual(after.filter((u) => !before.has(u)), [added]);
  assert.equal(after.length, truth.length);

  // The panel lists it marked: new in this run, taken for its heading.
  const row = panel.locator('#pages tbody tr', { hasText: NEW });
  await row.waitFor();
  // A finished crawl without search forms shows neither a query count nor a current URL.
  await until(panel, () => document.getElementById('job-now').hidden);
  assert.equal(await panel.locator('#job-now').isVisible(), false);
  assert.equal(await panel.locator('#queries-box').isVisible(), false);
  assert.deepEqual((await row.locator('.badge').allTextContents()).sort(), ['heading', 'new']);
  // Named by its heading (every SFML page has the one title "SFML - Simple and Fast Multimedia
  // Library"), the title on hover; the filter finds it by its heading.
  const name = row.locator('.name');
  assert.equal(await name.textContent(), 'sf::Utf< N > Class Template Reference System module');
  assert.equal(await name.getAttribute('title'), 'SFML - Simple and Fast Multimedia Library');
  await panel.locator('#filter').fill('class template reference');
  await until(panel, () => document.querySelectorAll('#pages tbody tr').length < 10);
  const templates = await panel.locator('#pages tbody tr .name').allTextContents();
  assert.ok(templates.length > 0 && templates.every((n) => /Class Template Reference/.test(n)), JSON.stringify(templates));
  await panel.locator('#filter').fill('');
  const similarity = Number(await row.locator('td.num').textContent());
  assert.ok(similarity < learn.result.threshold && similarity >= learn.result.threshold - 0.12, `${similarity}`);
  assert.equal(await panel.locator('#pages tbody .badge', { hasText: 'heading' }).count(), 1);

  // The JSON Lines export, as the panel builds it, says so for that page alone.
  const jsonl = await panel.evaluate(async (id) => {
    const { blob } = await globalThis.exemplarExport(id, 'jsonl', {});
    return blob.text();
  }, learn.crawlerId);
  const lines = jsonl.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, truth.length);
  assert.deepEqual(lines.filter((l) => l.byHeading === true).map((l) => l.url), [added]);
  assert.equal(lines.find((l) => l.url === added).heading, 'sf::Utf< N > Class Template Reference System module');
  await panel.close();
});
