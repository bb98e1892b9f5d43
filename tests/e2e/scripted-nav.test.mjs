// A site whose navigation is built by script, through the real extension: assimp's API reference
// (Doxygen with a tree view, Debian package libassimp-doc, an extra site of eval/train-sites.toml),
// served on 127.0.0.1. Its entry page has no <a> link at all: the menu and the tree are written by
// menudata.js and navtreedata.js. The extension must fetch those scripts (their bodies, though they
// are not HTML), read the page URLs they name, learn, and crawl every class, struct and union page.
import assert from 'node:assert/strict';
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  crawlDone, extensionWithAccess, extensionWorker, launchChromium, requireBuilt, ROOT, serveDirectory,
  storedPages, waitFor,
} from './helpers.mjs';

const ROOT_DIR = '/usr/share/doc/libassimp-doc/apiref';
// The site's rules in eval/train-sites.toml, first match wins: listings, members pages, then entities.
const LISTING = /^(annotated|classes|hierarchy|namespaces|modules|files|namespace[^/]*|group__[^/]*|dir_[^/]*)\.html$/;
const CLASS = /^(class|struct|union)[^/]*\.html$/;

let env = null;
before(async () => {
  const built = join(ROOT, 'dist/chrome');
  await requireBuilt(join(built, 'pkg/exemplar_bg.wasm'), 'the extension');
  if (!(await access(ROOT_DIR).then(() => true, () => false))) return;
  const ext = await extensionWithAccess(built);
  const log = [];
  const site = await serveDirectory(ROOT_DIR, { log });
  const browser = await launchChromium({ extension: ext.dir });
  const worker = await extensionWorker(browser.context);
  const call = async (msg) => {
    const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
    if (!reply.ok) throw new Error(`${msg.type}: ${reply.error}`);
    return reply.result;
  };
  env = {
    site, browser, worker, call, log,
    close: async () => { await browser.close(); await site.close(); await ext.remove(); },
  };
});
after(() => env?.close());

test('a Doxygen tree view: scripts read, every class learned and crawled in the extension', { timeout: 300_000 }, async (t) => {
  if (!env) return t.skip(`${ROOT_DIR} is not installed (./build.sh setup)`);
  const { site, call, log } = env;
  const classes = (await readdir(ROOT_DIR))
    .filter((f) => !LISTING.test(f) && !f.endsWith('-members.html') && CLASS.test(f))
    .map((f) => `${site.url}${f}`);
  assert.ok(classes.length > 100, `${classes.length} class pages`);

  const { jobId } = await call({
    type: 'startLearn', exampleUrl: `${site.url}structai_export_data_blob.html`, entryUrl: `${site.url}index.html`,
    settings: { delayMs: 0, concurrency: 4 },
  });
  const learn = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 240_000, 250);
  assert.equal(learn.status, 'done', `learning: ${learn.error}`);
  // The scripts' bodies were read: the map is the whole site, not the entry page alone.
  assert.ok(learn.progress.scripts >= 2, `scripts read: ${JSON.stringify(learn.progress)}`);
  assert.ok(learn.progress.fetched > 400, `pages mapped: ${learn.progress.fetched}`);

  const crawl = await crawlDone(call, learn.crawlerId);
  const pages = new Set(await storedPages(env, learn.crawlerId));
  const missed = classes.filter((u) => !pages.has(u));
  t.diagnostic(JSON.stringify({ classes: classes.length, collected: pages.size, missed: missed.length, crawled: crawl.progress.fetched }));
  assert.deepEqual(missed, [], 'every class, struct and union page collected');
  assert.ok(crawl.progress.scripts >= 1, 'the crawl read the scripts too');
  // Every page includes menudata.js: asked once by learning and once by the crawl it started
  // (the extension's own requests; the tab that rendered the example to see whether the site
  // draws its pages loaded it as a page's script).
  const asked = log.filter((r) => r.path === '/menudata.js');
  assert.equal(asked.filter((r) => r.headers['sec-fetch-dest'] !== 'script').length, 2, 'menudata.js asked once per run');
  // The menu and tree its scripts draw are no reason to render the site's pages.
  assert.equal(learn.rendering?.on, false, JSON.stringify(learn.rendering));
});
