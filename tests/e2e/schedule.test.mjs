// Saved crawlers run again by themselves: a schedule (every N hours) lives with the crawler in
// IndexedDB and one alarm is set for the earliest run due. The scheduled run picks up the pages
// added to the site since the last one. A schedule whose alarm was lost (the browser may clear
// alarms when it restarts) and that fell due while the worker was stopped runs once when the
// worker starts, however many periods passed. A turn that cannot run (the previous run not over,
// no access to the site) is skipped and said so. The panel sets and clears the schedule. A run
// tells the pages whose text changed since the last (the core's text digest) from those found as
// they were, and the exports can hold what the last run brought: new pages and changed ones.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, callFrom, crawlDone, filesInBrowser, itemPage, learnEnded, press, sitePage, storedPages, tick, until, waitFor, watchWorker } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const DAY_MS = 24 * 3_600_000;

const list = (n) => sitePage('All items',
  `<ul>${Array.from({ length: n }, (_, i) => `<li><a href="item/${i + 1}.html">Item ${i + 1}</a></li>`).join('')}</ul>`);

let opened;

before(async () => {
  const files = { 'index.html': sitePage('Shop', '<a href="list.html">All items</a>'), 'list.html': list(3) };
  for (let i = 1; i <= 3; i++) files[`item/${i}.html`] = itemPage(i);
  opened = await filesInBrowser('schedule', files, BUILT);
});

after(async () => {
  await opened?.close();
});

/** Adds item `n` to the site and to its listing. */
async function addItem(n) {
  const root = opened.dir;
  await writeFile(join(root, `item/${n}.html`), itemPage(n));
  await writeFile(join(root, 'list.html'), list(n));
}

test('a saved crawler runs again by itself on its schedule and picks up the new pages', { timeout: 240_000 }, async () => {
  const { site, browser, worker, call, extensionId } = opened;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`, settings: { delayMs: 0 },
  });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  const crawlerId = learn.crawlerId;
  const first = await crawlDone(call, crawlerId);
  assert.equal(first.scheduled, false);
  assert.equal(first.result.targets, 3);

  // Due in half a second: the alarm starts the run (an unpacked extension's alarms are not held
  // back to 30 s), which finds the item added since.
  await addItem(4);
  const firstAt = Date.now() + 500;
  const set = await call({ type: 'setSchedule', crawlerId, everyHours: 24, firstAt });
  assert.deepEqual(set.schedule, { everyHours: 24, nextAt: firstAt });
  const alarm = await worker.evaluate(() => chrome.alarms.get('exemplar-schedule'));
  assert.equal(alarm?.scheduledTime, firstAt);
  const second = await crawlDone(call, crawlerId, first.startedAt);
  assert.equal(second.scheduled, true);
  assert.equal(second.result.targets, 4);
  assert.equal(second.result.newSinceLastRun, 1, 'item 4');
  assert.equal(second.result.changedSinceLastRun, 0, 'the pages found again read as they were');
  let crawler = (await call({ type: 'crawlers' })).find((c) => c.id === crawlerId);
  assert.equal(crawler.schedule.nextAt, firstAt + DAY_MS, 'the next run a period later');
  assert.equal(crawler.schedule.lastError, undefined);
  assert.equal(crawler.runs.at(-1).scheduled, true);
  assert.equal((await worker.evaluate(() => chrome.alarms.get('exemplar-schedule')))?.scheduledTime, firstAt + DAY_MS);

  // Its alarm lost and its time three days past while the worker was stopped: the next start of
  // the worker runs it once, and the next run is within a period from now. Meanwhile item 2's
  // description changed.
  await addItem(5);
  await writeFile(join(opened.dir, 'item/2.html'), itemPage(2).replace('Description of item 2.', 'Item 2, now in blue.'));
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${crawlerId}`);
  const stale = Date.now() - 3 * DAY_MS - 1000;
  await panel.evaluate(async ({ id, nextAt }) => {
    const db = await import('./lib/db.js');
    const c = await db.get('crawlers', id);
    await db.put('crawlers', { ...c, schedule: { ...c.schedule, nextAt } });
    await chrome.alarms.clear('exemplar-schedule');
  }, { id: crawlerId, nextAt: stale });
  await (await watchWorker(browser, panel, extensionId)).stop();
  // The panel's polling starts the worker again; calls go through the panel from now on.
  const send = callFrom(panel);
  const third = await crawlDone(send, crawlerId, second.startedAt);
  assert.equal(third.scheduled, true);
  assert.equal(third.result.newSinceLastRun, 1, 'item 5');
  assert.equal(third.result.changedSinceLastRun, 1, 'item 2');
  const crawls = (await send({ type: 'status' })).jobs.filter((j) => j.crawlerId === crawlerId && j.kind === 'crawl');
  assert.equal(crawls.length, 3, 'one run for the three days missed');
  crawler = (await send({ type: 'crawlers' })).find((c) => c.id === crawlerId);
  assert.equal(crawler.schedule.nextAt, stale + 4 * DAY_MS);
  assert.ok(crawler.schedule.nextAt > Date.now() && crawler.schedule.nextAt <= Date.now() + DAY_MS);
  const pages = await storedPages(opened, crawlerId);
  assert.equal(pages.length, 5);

  // A turn that finds the previous run not over (paused) is skipped, said so, and the schedule
  // goes on.
  const { jobId: pausedId } = await send({ type: 'runCrawler', crawlerId, settings: { delayMs: 2000 } });
  assert.equal((await send({ type: 'pauseJob', jobId: pausedId })).status, 'paused');
  const turn = Date.now() + 300;
  await send({ type: 'setSchedule', crawlerId, everyHours: 24, firstAt: turn });
  crawler = await waitFor(async () => (await send({ type: 'crawlers' })).find((c) => c.id === crawlerId && c.schedule.lastError),
    'the turn to be skipped');
  assert.match(crawler.schedule.lastError, /: not run, its previous run was not over$/);
  assert.equal(crawler.schedule.nextAt, turn + DAY_MS);
  assert.equal((await send({ type: 'status' })).jobs.filter((j) => j.crawlerId === crawlerId && j.kind === 'crawl').length, 4);
  await send({ type: 'cancelJob', jobId: pausedId });

  // What the last run brought alone (item 5, new, and item 2, changed), exported for whatever
  // reads the changes.
  await panel.reload();
  const exported = await panel.evaluate(async (id) => {
    const text = async (format, options) => {
      const { filename, blob } = await globalThis.exemplarExport(id, format, options);
      return { filename, text: await blob.text() };
    };
    return { all: await text('jsonl'), fresh: await text('jsonl', { changesOnly: true }), csv: await text('csv', { changesOnly: true }) };
  }, crawlerId);
  assert.equal(exported.all.text.trim().split('\n').length, 5);
  const fresh = exported.fresh.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(fresh.map((p) => p.url), [`${site.url}item/2.html`, `${site.url}item/5.html`]);
  for (const p of fresh) assert.match(p.textDigest, /^[0-9a-f]{16}$/);
  assert.deepEqual(fresh.map((p) => p.change), ['changed', 'new']);
  // The whole export says it of every page the last run found.
  const every = exported.all.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(every.map((p) => p.change), ['same', 'changed', 'same', 'same', 'new'], 'items 1 to 5');
  assert.match(exported.fresh.filename, /-changes-pages\.jsonl$/);
  assert.equal(exported.csv.text.trim().split('\r\n').length, 3, 'the header, items 2 and 5');
  await tick(panel.locator('#export-changes'));
  await press(panel.locator('#export-csv'));
  await panel.locator('#export-status', { hasText: 'Saved' }).waitFor();
  assert.match(await panel.locator('#export-status').textContent(), /^Saved .+-changes-pages\.csv\.$/);
  // The page list marks them.
  await panel.locator('#pages .badge', { hasText: 'changed' }).waitFor();
  const marked = async (badgeText) => (await panel.locator('#pages tbody tr', { has: panel.locator('.badge', { hasText: badgeText }) })
    .locator('.url').allTextContents());
  assert.deepEqual(await marked('changed'), [`${site.url}item/2.html`]);
  assert.deepEqual(await marked('new'), [`${site.url}item/5.html`]);

  // The panel shows the schedule and clears it.
  await panel.locator('#schedule-note', { hasText: 'next run' }).waitFor();
  assert.equal(await panel.locator('#schedule').inputValue(), '24');
  assert.match(await panel.locator('#crawlers').textContent(), /\(scheduled\); runs every day/);
  await panel.locator('#schedule').selectOption('');
  await waitFor(async () => !(await send({ type: 'crawlers' })).find((c) => c.id === crawlerId).schedule, 'the schedule to be cleared');
  assert.equal(await panel.evaluate(() => chrome.alarms.get('exemplar-schedule')), undefined);
  // The panel shows it at its next refresh (the database may be read before the panel redraws).
  await until(panel, () => document.getElementById('schedule-note').textContent === '', null, { timeout: 5000 });
  // And sets it again: a week from now.
  await panel.locator('#schedule').selectOption('168');
  crawler = await waitFor(async () => (await send({ type: 'crawlers' })).find((c) => c.id === crawlerId && c.schedule), 'the schedule');
  assert.equal(crawler.schedule.everyHours, 168);
  assert.ok(Math.abs(crawler.schedule.nextAt - (Date.now() + 7 * DAY_MS)) < 60_000);
  assert.equal(await send({ type: 'setSchedule', crawlerId, everyHours: -1 }).catch((e) => e.message),
    'setSchedule: everyHours must be a number of hours above 0, or null for no schedule');

  // A turn that cannot run (no access to the site: a pattern imported for localhost) is skipped
  // and said so; the schedule goes on.
  const json = crawler.patternJson.replaceAll('127.0.0.1', 'localhost');
  const imported = await send({ type: 'importPattern', json });
  const due = Date.now() + 300;
  await send({ type: 'setSchedule', crawlerId: imported.id, everyHours: 6, firstAt: due });
  const skipped = await waitFor(async () => (await send({ type: 'crawlers' })).find((c) => c.id === imported.id && c.schedule?.lastError),
    'the imported crawler to be due');
  assert.match(skipped.schedule.lastError, /: Permission denied: Exemplar has no access to http:\/\/localhost:\d+/);
  assert.equal(skipped.schedule.nextAt, due + 6 * 3_600_000);
  assert.equal((await send({ type: 'status' })).jobs.filter((j) => j.crawlerId === imported.id).length, 0);
  await panel.reload();
  await panel.locator('#crawlers button', { hasText: 'Show' }).first().waitFor();
  await press(panel.locator(`#crawlers tr[data-crawler-id="${imported.id}"] button`, { hasText: 'Show' }));
  await panel.locator('#schedule-note', { hasText: 'last turn:' }).waitFor();
  assert.match(await panel.locator('#schedule-note').textContent(), /^next run .+; last turn: .+Permission denied/);
  await panel.close();
});
