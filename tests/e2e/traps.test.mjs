// The trap guard's refusals, in the real extension: a home page links three items, five URLs
// longer than the 1,024-character bound and one whose path repeats a segment (`/a/a/a/`). The
// guard follows none of those six; the job's status names them per bound (how many, the bound in
// words, the first link), and the panel shows them on the job card and under the learned crawler.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, itemPage, learnEnded, sitePage } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const ITEMS = 3;
const LONG = 5;

const longHref = (i) => `/search.html?q=${i}${'x'.repeat(1100)}`;

let site, browser, call, extensionId, close;

before(async () => {
  const links = [
    ...Array.from({ length: ITEMS }, (_, i) => `/item/${i + 1}.html`),
    ...Array.from({ length: LONG }, (_, i) => longHref(i)),
    '/a/a/a/',
  ];
  const files = { 'index.html': sitePage('Home', `<ul>${links.map((h) => `<li><a href="${h}">link</a></li>`).join('')}</ul>`) };
  for (let i = 1; i <= ITEMS; i++) files[`item/${i}.html`] = itemPage(i);
  ({ site, browser, extensionId, call, close } = await filesInBrowser('traps', files, BUILT));
});

after(async () => {
  await close?.();
});

test('the links the trap guard did not follow are named in the status and the panel', { timeout: 180_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}item/1.html`,
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId);
  assert.equal(learn.status, 'done', learn.error);
  assert.equal(learn.result.targets.length, ITEMS);
  const base = site.url.slice(0, -1);
  assert.deepEqual(learn.traps, [
    { reason: 'tooLong', count: LONG, example: base + longHref(0), limit: 'longer than 1024 characters' },
    { reason: 'repeatedSegments', count: 1, example: `${base}/a/a/a/`, limit: 'a path segment repeated more than 2 times' },
  ]);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  // The job card (the learning job is the newest) and the learned crawler's view say the same.
  for (const id of ['#job-traps', '#learn-traps']) {
    const box = panel.locator(id);
    await box.waitFor({ state: 'visible' });
    assert.equal(await box.locator('p').textContent(),
      "6 links were not followed while learning: the trap guard's bounds on URLs (endless calendars, facet combinations, repeated paths).");
    assert.deepEqual(await box.locator('li').allTextContents(), [
      `longer than 1024 characters: ${LONG} links, e.g. ${base}${longHref(0)}`,
      `a path segment repeated more than 2 times: 1 link, e.g. ${base}/a/a/a/`,
    ]);
  }
  await panel.close();
});
