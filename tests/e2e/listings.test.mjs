// Targets that look like listing pages, flagged in the real extension: the quotes directory's
// static mirror (eval/real/sites/quotes-toscrape) learned from an author page, then re-learned at
// θ 0.5, where its lists of quotes (`/page/N/`, which page on by "Next") pass θ beside the 50
// authors. The panel warns, names a few and marks them in the target list; "Leave out listing
// pages" re-learns with them judged unlike the example, every author kept, nothing fetched again.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, axeViolations, directoryInBrowser, learnEnded, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const SITE = join(ROOT, 'eval/real/sites/quotes-toscrape');

let env;
/** The site's requests. @type {{path: string}[]} */
const log = [];

before(async () => {
  env = await directoryInBrowser(SITE, BUILT, { log });
});

after(async () => {
  await env?.close();
});

const path = (u) => new URL(u).pathname;
const authors = (urls) => urls.filter((u) => path(u).startsWith('/author/')).length;

test('quote lists taken with the authors are flagged, and left out by one click', { timeout: 240_000 }, async () => {
  const { site, browser, extensionId, call } = env;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: site.url, exampleUrl: `${site.url}author/Albert-Einstein/`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 180_000);
  assert.equal(learn.status, 'done', learn.error);
  // At the default θ the targets are the authors, and nothing is flagged.
  assert.equal(learn.result.targets.length, 50);
  assert.deepEqual(learn.result.listingTargets, []);

  const low = await call({ type: 'relearn', jobId, threshold: 0.5 });
  const lists = Array.from({ length: 9 }, (_, i) => `/page/${i + 2}/`);
  const flagged = low.listingTargets.map(path);
  assert.ok(lists.every((p) => flagged.includes(p)), flagged.join(' '));
  assert.ok(flagged.every((p) => p.startsWith('/page/') || p.startsWith('/tag/')), flagged.join(' '));
  assert.equal(authors(low.targets.map((t) => t.url)), 50);
  assert.equal(low.targets.filter((t) => t.listing).length, flagged.length);
  const fetched = log.length;

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#listing-warning:not([hidden])').waitFor();
  assert.match(await panel.locator('#listing-text').textContent(),
    new RegExp(`^${flagged.length} of the ${low.targets.length} targets look like listing pages`));
  assert.equal(await panel.locator('#listing-samples li').count(), 4);
  assert.equal(await panel.locator('#listing-samples li').last().textContent(), `and ${flagged.length - 3} more`);
  // Each sample a link named by its path, opening the page in a new tab.
  const sample = panel.locator('#listing-samples li a').first();
  assert.equal(await sample.textContent(), new URL(await sample.getAttribute('href')).pathname);
  assert.ok(flagged.includes(await sample.textContent()));
  // The target list marks them (the list draws the rows in sight: the first ones are enough).
  await waitFor(async () => (await panel.locator('#pages .badge.warn').count()) > 0, 'listing marks in the target list');
  assert.deepEqual(await axeViolations(panel), []);

  await panel.locator('#leave-listings').click();
  await panel.locator('#listing-warning').waitFor({ state: 'hidden' });
  const job = await call({ type: 'status', jobId });
  const kept = job.result.targets.map((t) => t.url);
  assert.deepEqual(kept.map(path).filter((p) => flagged.includes(p)), []);
  assert.equal(authors(kept), 50);
  assert.equal(kept.length, low.targets.length - flagged.length);
  // The verdicts are the pattern's: the crawler keeps them.
  assert.ok(flagged.every((p) => job.result.corrections.unlike.some((u) => path(u) === p)));
  assert.equal(log.length, fetched, 'nothing fetched again');
  assert.equal(await panel.locator('#listing-error').textContent(), '');
});
