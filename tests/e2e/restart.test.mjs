// A browser closed in the middle of a generation: the jobs live in IndexedDB with their last
// checkpoint, and the next browser start (runtime.onStartup, or any start of the worker) resumes
// them — the learning run and the crawl that follows end as an uninterrupted run does.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DEMO_SITE, ROOT, demoRoles, extensionWithAccess, extensionWorker, launchChromium, requireBuilt, score,
  serveDirectory, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';

let ext, slow, profile;

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  ext = await extensionWithAccess(BUILT);
  slow = await serveDirectory(DEMO_SITE, { delayMs: 40 });
  profile = await mkdtemp(join(tmpdir(), 'exemplar-restart-'));
});

after(async () => {
  await slow?.close();
  await ext?.remove();
  if (profile) await rm(profile, { recursive: true, force: true });
});

async function call(worker, msg) {
  const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
  assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
  return reply.result;
}

test('a generation running when the browser closes resumes when the browser starts again', async () => {
  let browser = await launchChromium({ extension: ext.dir, profile });
  let worker = await extensionWorker(browser.context);
  const { jobId } = await call(worker, {
    type: 'startLearn', exampleUrl: slow.url + EXAMPLE, settings: { delayMs: 30, concurrency: 1 },
  });
  await waitFor(async () => (await call(worker, { type: 'status', jobId })).progress?.fetched >= 10, '10 pages fetched', 30_000, 50);
  const before = (await call(worker, { type: 'status', jobId })).progress.fetched;
  await browser.close();

  browser = await launchChromium({ extension: ext.dir, profile });
  try {
    worker = await extensionWorker(browser.context);
    const learn = await waitFor(async () => {
      const s = await call(worker, { type: 'status', jobId });
      return s.status !== 'running' && s;
    }, 'the resumed learning run', 60_000, 200);
    assert.equal(learn.status, 'done', learn.error);
    assert.ok(learn.progress.fetched > before, `went on after the restart (${before} → ${learn.progress.fetched})`);
    const crawl = await waitFor(async () => {
      const j = (await call(worker, { type: 'status' })).jobs.find((x) => x.kind === 'crawl' && x.crawlerId === learn.crawlerId);
      return j && j.status !== 'running' && j;
    }, 'the crawl after learning', 60_000, 200);
    assert.equal(crawl.status, 'done', crawl.error);
    // What an uninterrupted run finds: every entity page of the demo site, nothing else.
    const roles = await demoRoles();
    const entities = Object.entries(roles).filter(([, r]) => r === 'entity').map(([p]) => slow.url + p);
    const learned = learn.result.targets.map((t) => t.url);
    const s = score(learned, entities);
    assert.equal(s.precision, 1, JSON.stringify(s));
    assert.equal(s.recall, 1, JSON.stringify(s));
    assert.equal(crawl.result.targets, entities.length);
  } finally {
    await browser.close();
  }
});
