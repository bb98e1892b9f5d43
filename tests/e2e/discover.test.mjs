// "Find more sites like this" through the real extension (dist/chrome) over a small local web:
// real documentation sites under their own host names (jsoup.org, commons.apache.org, javadoc.io,
// and sites of other kinds), a real search engine over them (Xapian Omega) and a backlink
// service, all served by `exemplar-eval serve-web` on 127.0.0.1 and reached by Chromium's
// --host-resolver-rules. A crawler learned on jsoup's Javadoc finds commons-io's Javadoc (the same
// generator's pages) and no site of another kind; "Make a crawler" learns one for a site found.
// (commons-lang3's, by a later javadoc, scores under the bar against jsoup's pages: it may be
// found, never required.) Without access to the sites
// it meets, discovery fetches nothing from them and lists them for the user to allow.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, callFrom, extensionWithAccess, extensionWorker, launchChromium, learnEnded, press, requireBuilt, waitFor,
  watchWorker,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
// `./build.sh test` builds it (debug) before the browser tests.
const EVAL = process.env.EXEMPLAR_EVAL ?? join(ROOT, 'target/debug/exemplar-eval');
/** Java class reference sites, and sites of other kinds (eval/web-sites.toml; CI installs them). */
const JAVA = ['jsoup', 'commons-io', 'commons-lang3'];
const OTHERS = ['kombu', 'werkzeug', 'cairo', 'harfbuzz'];
const SEARCH = 'http://search.web.test/?P={q}';
const BACKLINKS = 'http://backlinks.web.test/links?url={url}';
const EXAMPLE = 'http://jsoup.org/apidocs/org/jsoup/nodes/Element.html';
const ENTRY = 'http://jsoup.org/apidocs/index.html';
/** The found sites' prefixes that are right: the other Java sites', commons-io's first. */
const RIGHT = [/^http:\/\/javadoc\.io\/doc\/commons-io\//, /^http:\/\/commons\.apache\.org\/proper\/commons-lang\//];

let web;
let port;
/** The pattern learned on jsoup (JSON), for the second browser. */
let patternJson;

/** Starts the small local web; resolves with its port once it serves. */
function serveWeb() {
  return new Promise((resolve, reject) => {
    const child = spawn(EVAL, ['serve-web', '--sites', [...JAVA, ...OTHERS].join(',')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      const m = /serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(String(d));
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`serve-web exited (${code}): ${err}`)));
  });
}

/** Chromium with the extension (granted `origins`) resolving every host name to the local web. */
async function browserWith(origins) {
  const ext = await extensionWithAccess(BUILT, origins);
  const browser = await launchChromium({
    extension: ext.dir,
    args: [`--host-resolver-rules=MAP * 127.0.0.1:${port}, EXCLUDE 127.0.0.1`],
  });
  const worker = await extensionWorker(browser.context);
  const call = async (msg) => {
    const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
    assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
    return reply.result;
  };
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
  return {
    browser, worker, call, panel,
    close: async () => {
      await browser.close();
      await ext.remove();
    },
  };
}

/** Fills the panel's "Find more sites like this" and starts it; resolves with its status once it ends. */
async function findMore(panel, { any, budget }) {
  await press(panel.locator('#discover-box summary'));
  await panel.locator('#discover-search').fill(SEARCH);
  await panel.locator('#discover-backlinks').fill(BACKLINKS);
  await panel.locator('#discover-budget').fill(String(budget));
  if (any) await panel.locator('#discover-any').check();
  await press(panel.locator('#discover-start'));
  await panel.locator('#discover-stop:not([hidden])').waitFor({ timeout: 10_000 }).catch(() => {});
  return waitFor(async () => {
    const s = await panel.locator('#discover-status').textContent();
    return /^(No site|\d+ sites?) found|^Failed|^Stopped/.test(s ?? '') && s;
  }, 'the discovery to end', 240_000, 250);
}

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  assert.ok(existsSync(EVAL), `${EVAL} missing: cargo build --bin exemplar-eval`);
  ({ child: web, port } = await serveWeb());
});

after(() => {
  web?.kill();
});

test('a crawler learned on jsoup\'s Javadoc finds commons-io\'s, and one click learns a crawler for it', async () => {
  const b = await browserWith(['<all_urls>']);
  try {
    const { jobId } = await b.call({
      type: 'startLearn', exampleUrl: EXAMPLE, entryUrl: ENTRY,
      settings: { delayMs: 0, concurrency: 4, maxPages: 120, crawlAfterLearning: false },
    });
    const learn = await learnEnded(b.call, jobId);
    assert.equal(learn.status, 'done', learn.error);
    const [crawler] = await b.call({ type: 'crawlers' });
    patternJson = crawler.patternJson;

    const status = await findMore(b.panel, { any: true, budget: 400 });
    assert.match(status, /^\d+ sites? found \(\d+ of at most 400 pages read, \d+ searches\)/);
    const found = await b.panel.locator('#discover-sites > li > strong').allTextContents();
    // commons-io's Javadoc, and no site of another kind: kombu, werkzeug, cairo and harfbuzz
    // are never listed.
    assert.ok(found.some((s) => RIGHT[0].test(s)), `commons-io not among ${found.join(' | ')}`);
    assert.deepEqual(found.filter((s) => !RIGHT.some((r) => r.test(s))), []);
    const first = b.panel.locator('#discover-sites > li').first();
    const samples = await first.locator('.samples a').evaluateAll((as) => as.map((a) => [a.href, a.target]));
    const site = found[0];
    assert.ok(samples.length >= 1, JSON.stringify(samples));
    for (const [href, target] of samples) {
      assert.ok(href.startsWith(site), `${href} is not under ${site}`);
      assert.equal(target, '_blank');
    }
    // The services are remembered for the next search.
    assert.deepEqual(await b.call({ type: 'discoverServices' }), { search: SEARCH, backlinks: BACKLINKS });

    // "Make a crawler" learns from the site's first sample.
    await press(first.locator('.make-crawler'));
    const job = await waitFor(async () => (await b.call({ type: 'status' })).jobs.find((j) => j.kind === 'learn' && j.id !== jobId), 'a second learning job');
    assert.equal(job.example, samples[0][0]);
    await b.call({ type: 'cancelJob', jobId: job.id });
  } finally {
    await b.close();
  }
});

test('without access to the sites it meets, discovery reads none of them and lists them to allow', async () => {
  assert.ok(patternJson, 'the first test learned a pattern');
  const b = await browserWith(['http://jsoup.org/*', 'http://search.web.test/*', 'http://backlinks.web.test/*']);
  try {
    await b.worker.evaluate(() => performance.setResourceTimingBufferSize(100_000));
    await b.call({ type: 'importPattern', json: patternJson });
    await b.panel.locator('#result:not([hidden])').waitFor();
    const status = await findMore(b.panel, { any: false, budget: 200 });
    assert.match(status, /^No site found/);
    const note = await b.panel.locator('#discover-no-access').textContent();
    assert.match(note, /^Not read, for want of access: .*http:\/\/(javadoc\.io|commons\.apache\.org)/);
    assert.doesNotMatch(note, /jsoup\.org|search\.web\.test/);
    assert.equal(await b.panel.locator('#discover-allow').isVisible(), true);
    // Nothing was asked of those sites: the worker's fetch never reached them.
    const fetched = await b.worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.deepEqual(fetched.filter((u) => /commons\.apache\.org|javadoc\.io|kombu|werkzeug|cairographics|harfbuzz/.test(u)), []);
    assert.ok(fetched.some((u) => u.startsWith('http://search.web.test/')), 'the search engine was asked');
  } finally {
    await b.close();
  }
});

test('a search engine address without {q} is refused with a clear error, and nothing starts', async () => {
  assert.ok(patternJson, 'the first test learned a pattern');
  const b = await browserWith(['<all_urls>']);
  try {
    const crawler = await b.call({ type: 'importPattern', json: patternJson });
    const reply = await b.worker.evaluate((m) => globalThis.exemplarDispatch(m), {
      type: 'discover', crawlerId: crawler.id, search: 'http://search.web.test/?P=java', backlinks: '',
    });
    assert.equal(reply.ok, false);
    assert.match(reply.error, /needs \{q\} where the words go/);
    // A results page for the word exemplar is taken as the template.
    const ok = await b.call({ type: 'discover', crawlerId: crawler.id, search: 'http://search.web.test/?P=exemplar&DEFAULTOP=or', maxFetches: 5 });
    assert.deepEqual(ok, { started: true });
    assert.equal((await b.call({ type: 'discoverServices' })).search, 'http://search.web.test/?P={q}&DEFAULTOP=or');
  } finally {
    await b.close();
  }
});

test('a search whose worker the browser stops is shown stopped, and may start again', async () => {
  assert.ok(patternJson, 'the first test learned a pattern');
  const b = await browserWith(['<all_urls>']);
  try {
    // A second between two requests to a host (the pattern's politeness, which the imported
    // crawler keeps): the search lasts.
    const slow = JSON.parse(patternJson);
    slow.politeness = { ...slow.politeness, delayMs: 1000 };
    const crawler = await b.call({ type: 'importPattern', json: JSON.stringify(slow) });
    await b.call({ type: 'discover', crawlerId: crawler.id, search: SEARCH, backlinks: BACKLINKS, maxFetches: 400 });
    await press(b.panel.locator('#discover-box summary'));
    await b.panel.locator('#discover-stop:not([hidden])').waitFor();
    const worker = await watchWorker(b.browser, b.panel, new URL(b.worker.url()).host);
    await worker.stop();
    // Any message starts the worker again; it finds the search it left running over.
    await callFrom(b.panel)({ type: 'discoverServices' });
    await waitFor(async () => /^Stopped: /.test(await b.panel.locator('#discover-status').textContent() ?? ''), 'the search shown stopped');
    assert.match(await b.panel.locator('#discover-error').textContent(), /stopped Exemplar in the middle/);
    assert.equal(await b.panel.locator('#discover-start').isDisabled(), false);
    assert.equal(await b.panel.locator('#discover-stop').isHidden(), true);
  } finally {
    await b.close();
  }
});
