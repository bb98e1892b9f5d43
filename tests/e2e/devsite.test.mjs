// The whole generation flow through the real extension on a real documentation site from
// eval/dev-sites.toml (commons-lang3's javadoc, Debian package libcommons-lang3-java-doc), served on
// 127.0.0.1: learn from its entry page and example page, crawl with the learned pattern, score the
// crawl's pages against the ground truth computed from the site's own markers.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, devSite, extensionWithAccess, extensionWorker, launchChromium, requireBuilt, score, serveDirectory, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const SITE = 'commons-lang3';

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

test(`${SITE}: example → pattern → crawl in the extension, precision and recall against ground truth`, { timeout: 300_000 }, async (t) => {
  if (skip) return t.skip(`${spec.root} is not installed (./build.sh setup)`);
  const truth = (await spec.targets()).map((p) => site.url + p);
  assert.ok(truth.length > 200, `${truth.length} target pages`);

  const call = async (msg) => {
    const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
    assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
    return reply.result;
  };
  const started = Date.now();
  const { jobId } = await call({
    type: 'startLearn', exampleUrl: site.url + spec.example, entryUrl: site.url + spec.entry,
    settings: { delayMs: 0, concurrency: 4 },
  });
  const learn = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 240_000, 250);
  assert.equal(learn.status, 'done', learn.error);
  const crawl = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === learn.crawlerId && j.status !== 'running'), 'the crawl', 240_000, 250);
  assert.equal(crawl.status, 'done', crawl.error);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
  const pages = await panel.evaluate(async (id) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).map((p) => p.url);
  }, learn.crawlerId);
  await panel.close();

  const s = score(pages, truth);
  const figures = {
    targets: truth.length, mapping: learn.progress.fetched, crawling: crawl.progress.fetched, found: pages.length,
    precision: s.precision, recall: s.recall, seconds: (Date.now() - started) / 1000,
  };
  t.diagnostic(JSON.stringify(figures));
  assert.equal(s.precision, 1, JSON.stringify(figures));
  assert.ok(s.recall >= 0.99, JSON.stringify(figures));
  assert.ok(crawl.progress.fetched <= 1.2 * truth.length, `crawl links ${JSON.stringify(figures)}`);
  assert.equal(crawl.result.coverage.reached, crawl.result.coverage.known);
});
