// A site that says "come back later" (429 Too Many Requests, Retry-After: 1), in the real
// extension: the example page, robots.txt and an item are each answered 429 first. The example
// page is asked again by the worker, robots.txt and the item by the core after the wait; the
// site is slowed down, learning finds every item with no error, and the panel says what
// happened.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, callFrom, crawlDone, filesInBrowser, itemPage, learnEnded, sitePage, waitFor, watchWorker } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');

let opened;
// Item 2's second answer names a date 7 s ahead, which the worker turns into seconds.
const busy = new Map([['/item/1.html', 1], ['/robots.txt', 1], ['/item/2.html', ['1', () => new Date(Date.now() + 7000).toUTCString()]]]);

before(async () => {
  const links = [1, 2, 3].map((i) => `<li><a href="item/${i}.html">Item ${i}</a></li>`).join('');
  const files = { 'index.html': sitePage('Shop', `<ul>${links}</ul>`), 'robots.txt': 'User-agent: *\nAllow: /\n' };
  for (let i = 1; i <= 3; i++) files[`item/${i}.html`] = itemPage(i);
  opened = await filesInBrowser('retry', files, BUILT, { busy });
});

after(async () => {
  await opened?.close();
});

test('requests the site answers 429 are asked again after the wait, and the panel says so', { timeout: 120_000 }, async () => {
  const { site, browser, call, extensionId } = opened;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`,
    settings: { delayMs: 0, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), [1, 2, 3].map((i) => `${site.url}item/${i}.html`));
  assert.equal(learn.errorCount, 0, JSON.stringify(learn.errors));
  assert.equal(learn.progress.retried, 3, 'robots.txt once, item 2 twice (the example page is the worker\'s)');
  const { waitMs, ...last } = learn.lastRetry;
  assert.deepEqual(last, { url: `${site.url}item/2.html`, status: 429, delayMs: 2000, attempt: 2 });
  assert.ok(waitMs >= 5000 && waitMs <= 7000, `the date's 6 or 7 s, not a second attempt's default 4 s: ${waitMs}`);
  assert.deepEqual([...busy.values()].map((v) => v.length ?? v), [0, 0, 0], 'every 429 was answered');

  // The panel shows the learning job, the newest: how many were asked again, and the last.
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html`);
  await panel.locator(`#job[data-job-id="${jobId}"]`).waitFor();
  assert.equal(await panel.locator('#retried-box').isVisible(), true);
  assert.equal(await panel.locator('#n-retried').textContent(), '3');
  assert.equal(await panel.locator('#job-retry').textContent(),
    `The site said to wait (HTTP 429): ${site.url}item/2.html is asked again after ${Math.round(waitMs / 1000)} s, and the site at most once every 2 s from now on.`);
  await panel.close();

  // A crawl of a site that no longer says so is asked nothing again.
  await call({ type: 'runCrawler', crawlerId: learn.crawlerId });
  const crawl = await crawlDone(call, learn.crawlerId);
  assert.equal(crawl.result.targets, 3);
  assert.equal(crawl.progress.retried, 0);
  assert.equal(crawl.lastRetry, null);
});

// The worker stopped while the job waits for a site that said "come back in 6 s": the job
// resumes from its last checkpoint when the worker starts again and still waits the rest of
// those 6 s (the core keeps what was left of each host's wait across a restore) before asking
// the page again, rather than asking at once.
test('a job restored by a new worker still waits what the site asked', { timeout: 120_000 }, async () => {
  const log = [];
  const links = [1, 2, 3].map((i) => `<li><a href="item/${i}.html">Item ${i}</a></li>`).join('');
  const files = { 'index.html': sitePage('Shop', `<ul>${links}</ul>`), 'robots.txt': 'User-agent: *\nAllow: /\n' };
  for (let i = 1; i <= 3; i++) files[`item/${i}.html`] = itemPage(i);
  const stopped = await filesInBrowser('retry-restore', files, BUILT, { log, busy: new Map([['/item/3.html', ['6']]]) });
  try {
    const { site, browser, call, extensionId } = stopped;
    const { jobId } = await call({
      type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`,
      settings: { delayMs: 0, crawlAfterLearning: false },
    });
    const asks = () => log.filter((r) => r.path === '/item/3.html');
    await waitFor(() => asks().length === 1, 'item 3 answered 429');
    // A checkpoint after the answer (one every second), then the worker is stopped.
    await new Promise((ok) => setTimeout(ok, 1500));
    const panel = await browser.context.newPage();
    await panel.goto(`chrome-extension://${extensionId}/panel.html`);
    await (await watchWorker(browser, panel, extensionId)).stop();
    const stoppedAt = Date.now();
    // The panel's polling starts the worker again, which resumes the job.
    const learn = await learnEnded(callFrom(panel), jobId);
    assert.equal(learn.status, 'done', learn.error);
    assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), [1, 2, 3].map((i) => `${site.url}item/${i}.html`));
    const [first, second] = asks();
    assert.ok(second, 'item 3 asked again');
    assert.ok(second.at > stoppedAt, 'asked again by the new worker');
    assert.ok(second.at - first.at >= 5500, `asked again ${second.at - first.at} ms after the 429 (Retry-After: 6)`);
    await panel.close();
  } finally {
    await stopped.close();
  }
});
