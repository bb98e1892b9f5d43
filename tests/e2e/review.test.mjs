// The near-miss review through the real extension on a real documentation site: SFML's Doxygen
// pages (Debian package libsfml-doc, eval/dev-sites.toml), served on 127.0.0.1. Learning from
// sf::Texture misses two member-less class pages that score just below θ (docs/similarity.md);
// the panel lists the pages just below θ, the user ticks the ones that are classes, re-learns
// (nothing fetched again) and the crawl then collects every class page and nothing else.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, devSite, extensionWithAccess, extensionWorker, launchChromium, requireBuilt, score, serveDirectory, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const SITE = 'sfml';

let site, ext, browser, worker, spec, skip = false;

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  spec = await devSite(SITE);
  if (!spec.installed) {
    skip = true; // not installed: `./build.sh setup` installs it; CI always has it.
    return;
  }
  ext = await extensionWithAccess(BUILT);
  site = await serveDirectory(spec.root);
  browser = await launchChromium({ extension: ext.dir });
  worker = await extensionWorker(browser.context);
});

after(async () => {
  await browser?.close();
  await site?.close();
  await ext?.remove();
});

test(`${SITE}: ticking the near misses that are targets gives every target`, { timeout: 300_000 }, async (t) => {
  if (skip) return t.skip(`${spec.root} is not installed (./build.sh setup)`);
  const truth = (await spec.targets()).map((p) => site.url + p);
  assert.ok(truth.length > 100, `${truth.length} class pages`);
  const isTarget = new Set(truth);

  const dispatch = (msg) => worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
  const call = async (msg) => {
    const reply = await dispatch(msg);
    assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
    return reply.result;
  };
  const crawlDone = (crawlerId, after = 0) => waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === crawlerId && j.status !== 'running' && j.startedAt > after),
  'the crawl', 240_000, 250);
  const { jobId } = await call({
    type: 'startLearn', exampleUrl: site.url + spec.example, entryUrl: site.url + spec.entry,
    settings: { delayMs: 0, concurrency: 4 },
  });
  const learn = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 240_000, 250);
  assert.equal(learn.status, 'done', learn.error);
  const first = await crawlDone(learn.crawlerId);
  assert.equal(first.status, 'done', first.error);

  // Exemplar alone misses some class pages; each missed one is listed just below θ with its URL
  // marked as shaped like the targets'.
  const missed = truth.filter((u) => !learn.result.targets.some((x) => x.url === u));
  assert.ok(missed.length >= 1 && missed.length <= 2, `missed ${missed}`);
  const near = learn.result.nearMisses;
  for (const url of missed) {
    const n = near.find((x) => x.url === url);
    assert.ok(n, `${url} among the near misses ${near.map((x) => x.url)}`);
    assert.ok(n.similarity < learn.result.threshold && n.urlLikeTargets, JSON.stringify(n));
  }
  assert.ok(near.filter((n) => n.urlLikeTargets).length <= 5, 'the URL mark narrows the list');

  // In the panel: the user ticks the pages they recognise as classes and re-learns.
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#near-misses li').first().waitFor();
  assert.equal(await panel.locator('#near-misses li').count(), near.length);
  assert.equal(await panel.locator('#near-misses input:checked').count(), 0);
  // Each page opens in a new tab to be judged; URLs and titles are text, never markup.
  const links = await panel.locator('#near-misses a').evaluateAll((as) => as.map((a) => [a.href, a.target, a.rel]));
  assert.deepEqual(links, near.map((n) => [n.url, '_blank', 'noopener noreferrer']));
  for (const n of near) {
    const box = panel.locator(`#near-misses input[data-url="${n.url}"]`);
    if (isTarget.has(n.url)) await box.check();
  }
  await panel.locator('#relearn').click();
  const relearned = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.result.corrections.like.length > 0 && s;
  }, 're-learning', 30_000, 100);
  assert.deepEqual([...relearned.result.corrections.like].sort(), [...missed].sort());
  assert.equal(relearned.result.targets.length, truth.length);
  assert.equal(relearned.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  // The liked pages stay listed, ticked, so the verdict can be taken back.
  await panel.waitForFunction((n) => document.querySelectorAll('#near-misses input:checked').length === n, missed.length);

  // The crawl with the re-learned pattern collects every class page and nothing else.
  const startedAt = Date.now();
  await panel.locator('#run').click();
  const second = await crawlDone(learn.crawlerId, startedAt - 1);
  assert.equal(second.status, 'done', second.error);
  const pages = await panel.evaluate(async (id) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).map((p) => p.url);
  }, learn.crawlerId);
  const s = score(pages, truth);
  t.diagnostic(JSON.stringify({ targets: truth.length, missedAlone: missed.length, found: pages.length, ...s }));
  assert.equal(s.precision, 1);
  assert.equal(s.recall, 1);
  await panel.close();

  // "Not like": a target ticked in the other list leaves the targets; verdicts on pages mapping
  // never fetched, or that are not URL lists, are refused with the reason.
  const weakest = relearned.result.targets.filter((x) => !missed.includes(x.url))
    .sort((a, b) => a.similarity - b.similarity)[0].url;
  const unliked = await call({ type: 'relearn', jobId, threshold: relearned.result.threshold, like: missed, unlike: [weakest] });
  assert.equal(unliked.targets.length, truth.length - 1);
  assert.ok(!unliked.targets.some((x) => x.url === weakest));
  assert.deepEqual(unliked.corrections.unlike, [weakest]);
  const nowhere = await dispatch({ type: 'relearn', jobId, threshold: 0.84, like: [`${site.url}nowhere.html`] });
  assert.equal(nowhere.ok, false);
  assert.match(nowhere.error, /was not met while mapping/);
  const notList = await dispatch({ type: 'relearn', jobId, threshold: 0.84, like: 'x' });
  assert.equal(notList.ok, false);
  assert.match(notList.error, /like must be a list of URLs/);
});
