// Crawler generation through the real extension (dist/chrome with access to 127.0.0.1 granted, as a
// user would when asked): the popup's "This is an example page", the side panel's progress and
// result, exports, pause/resume, the worker stopped mid-run, re-runs that find new pages, the
// similarity threshold, pattern import, and crawled markup staying inert. The site is the bundled
// demo site (tests/fixtures/demo-site), whose expected.toml gives every page's role.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DEMO_SITE, ROOT, demoRoles, extensionWithAccess, extensionWorker, launchChromium, press, requireBuilt, score,
  clickExample, popupOn, serveDirectory, until, waitFor, watchWorker,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';
// Fast settings for a local site; the politeness defaults are tested in the core.
const FAST = { delayMs: 0, concurrency: 4 };

let ext, site, slow, browser, worker, extensionId, entities;
const overrides = new Map();

before(async () => {
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  ext = await extensionWithAccess(BUILT);
  site = await serveDirectory(DEMO_SITE, { overrides });
  slow = await serveDirectory(DEMO_SITE, { delayMs: 60 });
  browser = await launchChromium({ extension: ext.dir });
  worker = await extensionWorker(browser.context);
  extensionId = new URL(worker.url()).host;
  const roles = await demoRoles();
  entities = Object.entries(roles).filter(([, r]) => r === 'entity').map(([p]) => p);
});

after(async () => {
  await browser?.close();
  await site?.close();
  await slow?.close();
  await ext?.remove();
});

/** The current worker (it changes when stopped and started again). */
async function currentWorker() {
  return browser.context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${extensionId}/`))
    ?? browser.context.waitForEvent('serviceworker', { timeout: 15000 });
}

async function dispatch(msg) {
  const w = await currentWorker();
  return w.evaluate((m) => globalThis.exemplarDispatch(m), msg);
}

async function call(msg) {
  const reply = await dispatch(msg);
  assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
  return reply.result;
}

/** Waits for a job to leave 'running'; returns its status. */
async function finished(jobId, timeoutMs = 60_000) {
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, `job ${jobId}`, timeoutMs, 200);
}

/** The crawl job that followed a learning job (crawlAfterLearning). */
async function crawlAfter(learnJobId) {
  const learn = await finished(learnJobId);
  assert.equal(learn.status, 'done', learn.error);
  const crawl = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === learn.crawlerId), 'the crawl job');
  return { learn, crawl: await finished(crawl.id) };
}

async function pagesOf(crawlerId) {
  const panel = await openPanel();
  const pages = await panel.evaluate(async (id) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).map((p) => ({ url: p.url, title: p.title, firstJobId: p.firstJobId, jobId: p.jobId }));
  }, crawlerId);
  await panel.close();
  return pages;
}

async function openPanel(query = '') {
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html${query}`);
  return panel;
}

let clean; // the uninterrupted run of the first test: {levels, targets}

test('example page → pattern → crawl → exports, through the popup and the side panel', async () => {
  const { tab, popup } = await popupOn(browser.context, worker, site.url + EXAMPLE);
  assert.equal(await popup.locator('#kind').textContent(), 'Item page');
  assert.equal(await popup.locator('#listing-hint').isHidden(), true);
  // The evidence in words.
  const summary = await popup.locator('#summary li').allTextContents();
  assert.ok(summary.some((s) => /^\d+ prices?$/.test(s)), summary.join(' | '));
  assert.equal(await popup.locator('#entry-choice').inputValue(), 'root');
  await press(popup.locator('#advanced summary'));
  assert.equal(await popup.locator('#delayMs').inputValue(), '250', 'polite default delay');
  await popup.locator('#delayMs').fill('0');
  await popup.locator('#concurrency').fill('4');
  const jobId = await clickExample(popup);
  assert.match(await popup.locator('#status').textContent(), /^Learning from http:\/\/127\.0\.0\.1:\d+\/: progress/);
  // One job a click: the button stays disabled and says what goes on.
  await until(popup, () => document.getElementById('example').textContent.startsWith('Learning…'));
  assert.equal(await popup.locator('#example').isDisabled(), true);
  await popup.locator('#example').dispatchEvent('click');
  assert.equal((await call({ type: 'status' })).jobs.filter((j) => j.kind === 'learn').length, 1, 'a second click starts nothing');
  await popup.close();

  const panel = await openPanel();
  const { learn, crawl } = await crawlAfter(jobId);
  assert.equal(crawl.status, 'done', crawl.error);
  assert.equal(learn.entry, site.url);

  // The panel shows the pattern, the coverage and the pages.
  await until(panel, () => document.getElementById('n-pages').textContent === '22');
  const levels = await panel.locator('#levels .level').count();
  assert.equal(levels, 2, 'listing level (paginated) and entity level');
  assert.match(await panel.locator('#levels .level h3').first().textContent(), /^Level 1: listing pages, paginated · 3 seen/);
  assert.match(await panel.locator('#levels .level h3').last().textContent(), /^Level 2: item pages · 22 seen/);
  // The shape at a glance, and the URLs readable: the site left out, the variable parts named.
  assert.equal(await panel.locator('#pattern-flow').textContent(), 'entry page → listing pages, paginated (3) → item pages (22)');
  assert.equal(await panel.locator('#levels .level .paths code').first().textContent(), '/imoveis/{name}[-{id}].html');
  assert.match(await panel.locator('#levels .level').last().locator('.paths code').first().textContent(), /^\/imovel\/\{id\}-\{name\}-\{id\}-quartos-\{name\}/);
  assert.equal(await panel.locator('#levels .level .regexes pre').count(), 2, 'the regexes, on demand');
  assert.equal(await panel.locator('#levels .level').first().locator('li').first().textContent(), '/imoveis/apartamentos.html');
  // Sample pages are links to open: the path shown, the page's URL behind it, in a new tab.
  const sample = panel.locator('#levels .level').last().locator('li a').first();
  assert.match(await sample.getAttribute('href'), new RegExp(`^${site.url}imovel/`));
  assert.equal(await sample.textContent(), new URL(await sample.getAttribute('href')).pathname);
  assert.equal(await sample.getAttribute('target'), '_blank');
  // The page count can reach 22 before the panel has the crawl job's end (its coverage).
  await until(panel, () => !/^Not crawled yet/.test(document.getElementById('coverage').textContent));
  assert.match(await panel.locator('#coverage').textContent(), /reached 22 of the 22 targets seen while learning/);
  assert.equal(await panel.locator('#job').getAttribute('data-status'), 'done');
  // The end state in a sentence; the bar is for running jobs.
  assert.match(await panel.locator('#job-summary').textContent(), /^22 item pages collected, \d+ pages fetched in \d+ s\.$/);
  assert.equal(await panel.locator('#job-bar').isHidden(), true);
  // Similarities measured while learning are shown for the pages.
  assert.match(await panel.locator('#pages tbody tr td.num').first().textContent(), /^(0\.\d{3}|1\.000)$/);

  // Precision and recall against the demo site's ground truth.
  const pages = await pagesOf(learn.crawlerId);
  const s = score(pages.map((p) => p.url), entities.map((p) => site.url + p));
  assert.equal(s.precision, 1, JSON.stringify(s));
  assert.equal(s.recall, 1, JSON.stringify(s));
  clean = { levels: learn.result.levels.map((l) => l.regexes), targets: learn.result.targets.map((t) => t.url).sort() };

  // Exports, as built by the panel.
  const exportAll = (batch) => panel.evaluate(async ([id, batch]) => {
    const out = {};
    for (const f of ['pattern', 'jsonl', 'csv', 'warc', 'scrapy']) {
      const { filename, blob } = await globalThis.exemplarExport(id, f, batch ? { batch } : {});
      out[f] = { filename, text: new TextDecoder('latin1').decode(await blob.arrayBuffer()) };
    }
    return out;
  }, [learn.crawlerId, batch]);
  const exported = await exportAll();
  assert.equal(JSON.parse(exported.pattern.text).version, 2);
  const lines = exported.jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 22);
  assert.ok(lines.every((l) => l.status === 200 && l.html.includes('<html')));
  // The crawl verified none of them (learning knew them all): the similarity learning measured,
  // as the panel shows it, not null.
  assert.ok(lines.every((l) => typeof l.similarity === 'number' && l.similarity > 0.8), JSON.stringify(lines.map((l) => l.similarity)));
  const csvRows = exported.csv.text.trim().split('\r\n');
  assert.equal(csvRows.length, 23, 'header + 22 rows');
  assert.match(exported.csv.filename, /-pages\.csv$/);
  assert.ok(csvRows.slice(1).every((r) => /,(0\.\d{4}|1\.0000),/.test(r)), csvRows[1]);
  assert.equal(exported.warc.text.match(/^WARC-Type: response\r$/gm)?.length, 22);
  // Each response has its metadata record: the level the page was found on, its similarity.
  assert.equal(exported.warc.text.match(/^WARC-Type: metadata\r$/gm)?.length, 22);
  assert.equal(exported.warc.text.match(/^level: \d+\r$/gm)?.length, 22);
  assert.ok(exported.scrapy.text.startsWith('PK'));
  // Exported 5 pages at a time (as a large crawl is, 200 at a time): the same files — one CSV
  // header, one warcinfo record, record ids unique across batches.
  const batched = await exportAll(5);
  assert.equal(batched.jsonl.text, exported.jsonl.text);
  assert.equal(batched.csv.text, exported.csv.text);
  assert.equal(batched.warc.text.match(/^WARC-Type: warcinfo\r$/gm)?.length, 1);
  assert.equal(batched.warc.text.match(/^WARC-Type: response\r$/gm)?.length, 22);
  const ids = batched.warc.text.match(/^WARC-Record-ID: .*$/gm);
  assert.equal(new Set(ids).size, 45, 'record ids unique across batches');
  const targets = (text) => text.match(/^WARC-Target-URI: .*$/gm).sort();
  assert.deepEqual(targets(batched.warc.text), targets(exported.warc.text));
  assert.match(exported.scrapy.filename, /^127\.0\.0\.1_\d+-scrapy\.zip$/);

  // A click downloads through the downloads API.
  // (Playwright takes over the browser's downloads and names the file itself.)
  await Promise.all([panel.waitForEvent('download'), press(panel.locator('#export-jsonl'))]);
  assert.match(await panel.locator('#export-status').textContent(), /^Saved 127\.0\.0\.1_\d+-pages\.jsonl\.$/);
  await until(panel, () => document.getElementById('export-status').dataset.downloadId);
  const download = await waitFor(() => panel.evaluate(async () => {
    const [d] = await chrome.downloads.search({ id: Number(document.getElementById('export-status').dataset.downloadId) });
    return d?.state === 'complete' && d;
  }), 'the download');
  assert.equal(download.fileSize, Buffer.byteLength(exported.jsonl.text, 'latin1'));
  assert.match(download.url, /^blob:chrome-extension:/);
  await panel.close();
  await tab.close();
});

test('a worker stopped in the middle of a generation resumes and ends with the same result', async () => {
  assert.ok(clean, 'needs the clean run of the first test');
  const panel = await openPanel();
  const worker = await watchWorker(browser, panel, extensionId);
  const { states } = worker;
  // The slow copy of the site: a learning run takes several seconds.
  const { jobId } = await call({ type: 'startLearn', exampleUrl: slow.url + EXAMPLE, settings: { delayMs: 40, concurrency: 1 } });
  await waitFor(async () => (await call({ type: 'status', jobId })).progress?.fetched >= 8, '8 pages fetched', 30_000, 50);
  // A running job: its bar, and what is done and queued in words.
  await until(panel, () => !document.getElementById('job-bar').hidden && document.getElementById('job-bar').value >= 8);
  assert.match(await panel.locator('#job-summary').textContent(), /^\d+ pages fetched, \d+ queued(, about .+ left at this pace)?\.$/);
  await worker.stop();
  // The panel keeps polling, which starts the worker again; it resumes from its last checkpoint.
  await waitFor(() => states.lastIndexOf('running') > states.indexOf('stopped'), 'the worker to start again');
  const { learn, crawl } = await crawlAfter(jobId);
  assert.equal(crawl.status, 'done');
  const levels = learn.result.levels.map((l) => l.regexes.map((r) => r.replace(String(new URL(slow.url).port), 'PORT')));
  const want = clean.levels.map((l) => l.map((r) => r.replace(String(new URL(site.url).port), 'PORT')));
  assert.deepEqual(levels, want);
  const targets = learn.result.targets.map((t) => t.url.replace(slow.url, '')).sort();
  assert.deepEqual(targets, clean.targets.map((u) => u.replace(site.url, '')));
  assert.equal(crawl.result.targets, 22);
  await panel.close();
});

test('pause and resume from the side panel', async () => {
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.entry === slow.url);
  assert.ok(crawler, 'the crawler learned from the slow site');
  const { jobId } = await call({ type: 'runCrawler', crawlerId: crawler.id, settings: { delayMs: 60, concurrency: 1 } });
  const panel = await openPanel();
  await panel.locator('#job[data-status=running] #pause').waitFor();
  await waitFor(async () => (await call({ type: 'status', jobId })).progress?.fetched >= 3, '3 pages', 30_000, 50);
  await press(panel.locator('#pause'));
  await panel.locator('#job[data-status=paused]').waitFor();
  const paused = (await call({ type: 'status', jobId })).progress.fetched;
  await new Promise((ok) => setTimeout(ok, 1000));
  assert.equal((await call({ type: 'status', jobId })).progress.fetched, paused, 'nothing fetched while paused');
  assert.ok(paused < 26, `paused before the end (${paused})`);
  await press(panel.locator('#resume'));
  const done = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status === 'done' && s;
  }, 'the resumed crawl to finish');
  assert.equal(done.result.targets, 22);
  assert.equal(done.result.coverage.reached, done.result.coverage.known);
  await panel.close();
});

test('a crawler run again later finds the new pages and marks them; crawled markup stays text', async () => {
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.entry === site.url);
  // The site gains a property, linked from the second page of the apartment listing, whose title
  // and heading carry markup and script.
  const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
  const template = await readFile(join(DEMO_SITE, 'imovel/102-apartamento-1-quartos-butanta.html'), 'utf8');
  const page = template
    .replace(/<title>[^<]*<\/title>/, `<title>${evil.replace(/</g, '&lt;')} novo | Casa Nova</title>`)
    .replace(/<h1>[^<]*<\/h1>/, `<h1>${evil.replace(/</g, '&lt;')} novo</h1>`);
  overrides.set('/imovel/123-apartamento-2-quartos-se.html', page);
  const listing = await readFile(join(DEMO_SITE, 'imoveis/apartamentos-2.html'), 'utf8');
  const link = '<a href="../imovel/';
  assert.ok(listing.includes(link));
  // And a page of the same URL shape that is no property: a removed ad. The crawl compares the
  // pages learning did not know with the example page kept from learning, and refuses it.
  overrides.set('/imovel/124-apartamento-1-quartos-removido.html',
    '<!doctype html><html><head><title>Anúncio removido</title></head><body><p>Este anúncio foi removido.</p></body></html>');
  overrides.set('/imoveis/apartamentos-2.html', listing.replace(link,
    '<a href="../imovel/123-apartamento-2-quartos-se.html">novo</a> <a href="../imovel/124-apartamento-1-quartos-removido.html">removido</a> ' + link));

  const { jobId } = await call({ type: 'runCrawler', crawlerId: crawler.id, settings: FAST });
  const done = await finished(jobId);
  assert.equal(done.result.targets, 23);
  assert.equal(done.result.newSinceLastRun, 1);
  assert.equal(done.result.coverage.new, 1);
  assert.equal(done.progress.rejected, 1, 'the removed ad is fetched, compared and refused');

  const panel = await openPanel(`?crawler=${crawler.id}`);
  await until(panel, () => document.getElementById('n-pages').textContent === '23');
  const marked = panel.locator('#pages tbody tr:has(.badge)');
  assert.equal(await marked.count(), 1);
  // Named by its heading, the title on hover: both text.
  assert.equal(await marked.locator('.name').textContent(), `${evil} novo`, 'the heading is shown as text');
  assert.equal(await marked.locator('.name').getAttribute('title'), `${evil} novo | Casa Nova`);
  assert.equal(await panel.locator('#pages img, #pages script').count(), 0);
  assert.equal(await panel.evaluate(() => window.pwned), undefined);
  await panel.locator('#filter').fill('123-apartamento');
  await until(panel, () => document.getElementById('n-pages').textContent === '1 of 23');
  await panel.close();
  overrides.clear();
});

test('the similarity threshold re-learns from the pages already fetched', async () => {
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.entry === site.url);
  const panel = await openPanel(`?crawler=${crawler.id}`);
  await panel.locator('#threshold-box:not([hidden])').waitFor();
  assert.match(await panel.locator('#histogram').textContent(), /22 of 3\d at or above θ/);
  const before = (await call({ type: 'status', jobId: crawler.learnJobId })).progress.fetched;
  await panel.locator('#threshold').fill('0.2');
  // Typing θ changes nothing yet: it says what Re-learn would take.
  assert.match(await panel.locator('#theta-preview').textContent(), /^At θ = 0\.2: (\d+) of 3\d pages at or above θ \(\d+ more\)\. Press Re-learn to apply it\.$/);
  assert.match(await panel.locator('#histogram').textContent(), /22 of 3\d at or above θ/);
  assert.equal(await panel.locator('#all-passed').isHidden(), true);
  // The chart: targets and other pages in two colours, θ a line, which its slider moves too
  // (by the keyboard here).
  assert.equal(await panel.locator('#theta-chart line.theta').getAttribute('x1'), '60');
  assert.ok(await panel.locator('#theta-chart rect.target').count() > 1);
  await panel.locator('#theta-slider').focus();
  await panel.keyboard.press('ArrowRight');
  assert.equal(await panel.locator('#threshold').inputValue(), '0.205');
  assert.match(await panel.locator('#theta-preview').textContent(), /^At θ = 0\.205: /);
  await panel.locator('#threshold').fill('0.2');
  await press(panel.locator('#relearn'));
  await until(panel, () => /at or above θ/.test(document.getElementById('histogram').textContent)
    && !document.getElementById('histogram').textContent.includes(' 22 of '));
  const status = await call({ type: 'status', jobId: crawler.learnJobId });
  assert.equal(status.result.threshold, 0.2);
  // Every page passes θ = 0.2: the panel says the targets may hold pages of other kinds.
  await until(panel, () => /^Nearly every page fetched passed θ \(\d+ of \d+\)/.test(document.getElementById('all-passed').textContent));
  // A review answer is named by the answer and its page, not by the page's score.
  const named = await panel.locator('#review-box input[type=radio]').evaluateAll((rs) => rs.slice(0, 2).map((r) => r.getAttribute('aria-label')));
  assert.match(named[0], /^Yes, like my example: [^0-9].* \(\/.*, similarity \d\.\d{3}\)$/);
  assert.match(named[1], /^No, not like my example: [^0-9].* \(\/.*, similarity \d\.\d{3}\)$/);
  assert.ok(status.result.targets.length > 22, `${status.result.targets.length} targets at θ = 0.2`);
  assert.equal(status.progress.fetched, before, 'nothing refetched');
  // Back to the default, and an out-of-range θ is refused with a message.
  await call({ type: 'relearn', jobId: crawler.learnJobId, threshold: 0.75 });
  const bad = await dispatch({ type: 'relearn', jobId: crawler.learnJobId, threshold: 7 });
  assert.equal(bad.ok, false);
  assert.match(bad.error, /outside \[0, 1\]/);
  await panel.close();
});

test('importing patterns: a malformed file is refused with the reason, a valid one becomes a crawler', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'exemplar-import-'));
  try {
    const panel = await openPanel();
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"version": 1, "levels": "nope"');
    await panel.locator('#import').setInputFiles(bad);
    await panel.locator('#import-status.error').waitFor();
    assert.match(await panel.locator('#import-status').textContent(), /^Not a valid Exemplar pattern: not JSON/);
    const wrong = join(dir, 'wrong.json');
    await writeFile(wrong, JSON.stringify({ version: 1, site: 'x', entry: 'http://x/', example: 'http://x/1', scope: {}, levels: [] }));
    await panel.locator('#import').setInputFiles(wrong);
    await until(panel, () => /Not a valid Exemplar pattern: /.test(document.getElementById('import-status').textContent)
      && !document.getElementById('import-status').textContent.includes('not JSON'));

    const crawler = (await call({ type: 'crawlers' })).find((c) => c.entry === site.url);
    const good = join(dir, 'good.json');
    await writeFile(good, crawler.patternJson);
    const count = (await call({ type: 'crawlers' })).length;
    await panel.locator('#import').setInputFiles(good);
    await panel.locator('#import-status.good').waitFor();
    assert.equal((await call({ type: 'crawlers' })).length, count + 1);
    await until(panel, () => document.getElementById('r-site').textContent.startsWith('127.0.0.1'));

    // Named by the user: the table shows the name, its site under it.
    const imported = (await call({ type: 'crawlers' })).find((c) => c.imported);
    await panel.locator('#r-name').fill('Demo imported');
    await panel.locator('#r-name').dispatchEvent('change');
    await waitFor(async () => (await call({ type: 'crawlers' })).find((c) => c.id === imported.id).name === 'Demo imported', 'the name');
    const tableRow = panel.locator(`#crawlers tr[data-crawler-id="${imported.id}"]`);
    await until(panel, (id) => document.querySelector(`#crawlers tr[data-crawler-id="${id}"] td`)?.textContent.startsWith('Demo imported'), imported.id);

    // Deleting it from the saved crawlers' table: asked first; "Keep" keeps it.
    await press(tableRow.locator('button', { hasText: 'Delete' }));
    await press(tableRow.locator('button', { hasText: 'Keep' }));
    await press(tableRow.locator('button', { hasText: 'Delete' }));
    assert.equal((await call({ type: 'crawlers' })).length, count + 1, 'not deleted before the answer');
    await press(tableRow.locator('button', { hasText: 'Yes, delete' }));
    await waitFor(async () => (await call({ type: 'crawlers' })).length === count, 'the crawler to be deleted');
    await panel.locator(`#crawlers tr[data-crawler-id="${imported.id}"]`).waitFor({ state: 'detached' });
    await panel.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an example page like nothing on the site fails with a clear message', async () => {
  // A page no link leads to, shaped like nothing else on the site.
  overrides.set('/orphan.html', '<!DOCTYPE html><html><head><title>Orphan</title></head><body><table><tr><td><form><textarea></textarea></form></td></tr></table></body></html>');
  const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + 'orphan.html', settings: { ...FAST, threshold: 0.95 } });
  const done = await finished(jobId);
  assert.equal(done.status, 'failed');
  assert.match(done.error, /^The example page is not similar to anything found/);
  const unreachable = await dispatch({ type: 'startLearn', exampleUrl: site.url + 'no-such-page.html', settings: FAST });
  assert.equal(unreachable.ok, false);
  assert.match(unreachable.error, /answered HTTP 404/);
  const notHtml = await dispatch({ type: 'startLearn', exampleUrl: site.url + 'assets/logo.svg', settings: FAST });
  assert.match(notHtml.error, /is not an HTML page \(image\/svg\+xml\)/);
  // An entry page that is not HTML, or missing, or on a site that is down.
  for (const [entry, message] of [
    ['assets/logo.svg', /^The entry page http:\S+\/assets\/logo\.svg is not an HTML page \(image\/svg\+xml\)/],
    ['missing.html', /^The entry page http:\S+\/missing\.html answered HTTP 404\.$/],
  ]) {
    const { jobId: id } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, entryUrl: site.url + entry, settings: FAST });
    const failed = await finished(id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, message);
  }
  const down = await serveDirectory(DEMO_SITE);
  const downUrl = down.url;
  await down.close();
  const unreachableSite = await dispatch({ type: 'startLearn', exampleUrl: downUrl + EXAMPLE, settings: FAST });
  assert.match(unreachableSite.error, /^The example page http:\S+ is unreachable: network error/);
  overrides.clear();
});

test("requests carry the user's cookies: a site the user is logged into can be learned", async () => {
  const private_ = await serveDirectory(DEMO_SITE, { cookie: 'session=s3cret' });
  try {
    // Without the session the example page itself is refused.
    const refused = await dispatch({ type: 'startLearn', exampleUrl: private_.url + EXAMPLE, settings: FAST });
    assert.match(refused.error, /answered HTTP 403/);
    // The user logs in (the browser holds the cookie); Exemplar's requests carry it.
    await browser.context.addCookies([{ name: 'session', value: 's3cret', url: private_.url }]);
    const { jobId } = await call({ type: 'startLearn', exampleUrl: private_.url + EXAMPLE, settings: FAST });
    const { learn, crawl } = await crawlAfter(jobId);
    assert.equal(learn.result.targets.length, 22);
    assert.equal(crawl.result.targets, 22);
    assert.equal(crawl.errorCount, 0);
  } finally {
    await browser.context.clearCookies();
    await private_.close();
  }
});

test('crawled URLs with markup are shown as text in the progress errors', async () => {
  const listing = await readFile(join(DEMO_SITE, 'imoveis/casas.html'), 'utf8');
  overrides.set('/imoveis/casas.html', listing.replace('</body>', '<a href="../x/<img src=x onerror=window.pwned=3>.html">x</a></body>'));
  try {
    const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, settings: { ...FAST, crawlAfterLearning: false } });
    const done = await finished(jobId);
    assert.equal(done.status, 'done');
    assert.ok(done.errors.some((e) => e.url.includes('/x/%3Cimg') && e.what === 'HTTP 404'), JSON.stringify(done.errors));
    const panel = await openPanel();
    await panel.locator('#job[data-status=done]').waitFor();
    const errors = await panel.locator('#job-errors li').allTextContents();
    assert.ok(errors.some((t) => t.includes('%3Cimg%20src=x%20onerror=window.pwned=3%3E')), errors.join(' | '));
    assert.equal(await panel.locator('#job-errors img').count(), 0);
    assert.equal(await panel.evaluate(() => window.pwned), undefined);
    await panel.close();
  } finally {
    overrides.clear();
  }
});

test('a generation asked for before access was granted starts once, when the access arrives', async () => {
  // The popup leaves its request in storage.session before the permission prompt (which may close
  // the popup); permissions.onAdded and the popup, if still open, both ask the worker to start it.
  const panel = await openPanel();
  const pending = {
    id: 'start-test', exampleUrl: site.url + EXAMPLE, entryUrl: site.url, origins: ['http://127.0.0.1/*'],
    settings: { ...FAST, crawlAfterLearning: false }, at: Date.now(),
  };
  await panel.evaluate((p) => chrome.storage.session.set({ pendingStart: p }), pending);
  const [fromOnAdded, fromPopup] = await Promise.all([
    call({ type: 'startPending' }),
    call({ type: 'startPending', id: pending.id, pending }),
  ]);
  assert.ok(fromOnAdded?.jobId, JSON.stringify(fromOnAdded));
  assert.equal(fromPopup.jobId, fromOnAdded.jobId, 'one job');
  assert.equal(await call({ type: 'startPending' }), null, 'nothing left pending');
  const done = await finished(fromOnAdded.jobId);
  assert.equal(done.status, 'done', done.error);
  // A stale request (the user answered much later, or never) is not started.
  await panel.evaluate((p) => chrome.storage.session.set({ pendingStart: p }), { ...pending, id: 'old', at: Date.now() - 3_600_000 });
  assert.equal(await call({ type: 'startPending' }), null);
  await panel.evaluate(() => chrome.storage.session.remove('pendingStart'));
  await panel.close();
});

test('cancel keeps what was learned so far and starts no crawl', async () => {
  const { jobId } = await call({ type: 'startLearn', exampleUrl: slow.url + EXAMPLE, settings: { delayMs: 40, concurrency: 1 } });
  const panel = await openPanel();
  // Cancel once some property pages have been found.
  await waitFor(async () => (await call({ type: 'status', jobId })).progress?.targets >= 3, '3 targets', 30_000, 50);
  await press(panel.locator('#job[data-status=running] #cancel'));
  const done = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'the cancelled job');
  assert.equal(done.status, 'done', done.error);
  assert.equal(done.stopped, 'cancelled');
  assert.ok(done.progress.fetched < 33, `stopped early (${done.progress.fetched} pages)`);
  assert.ok(done.result.targets.length >= 3 && done.result.targets.length < 22, `${done.result.targets.length} targets`);
  await new Promise((ok) => setTimeout(ok, 500));
  const crawls = (await call({ type: 'status' })).jobs.filter((j) => j.kind === 'crawl' && j.crawlerId === done.crawlerId);
  assert.deepEqual(crawls, []);
  await panel.close();
});

test('cancel does not wait for a page that never answers', async () => {
  const log = [];
  const stuck = await serveDirectory(DEMO_SITE, { hang: new Set(['/sobre.html']), log });
  try {
    const { jobId } = await call({ type: 'startLearn', exampleUrl: stuck.url + EXAMPLE, settings: { ...FAST, crawlAfterLearning: false } });
    await waitFor(() => log.some((r) => r.path === '/sobre.html'), 'the hanging page asked for', 30_000, 50);
    await new Promise((ok) => setTimeout(ok, 300));
    const cancelled = Date.now();
    await call({ type: 'cancelJob', jobId });
    const done = await finished(jobId, 25_000);
    const took = Date.now() - cancelled;
    assert.equal(done.status, 'done', done.error);
    assert.equal(done.stopped, 'cancelled');
    // The request timeout is 30 s; the grace for answers in flight is 2 s.
    assert.ok(took < 10_000, `ended ${took} ms after cancel`);
  } finally {
    await stuck.close();
  }
});

test('an open side panel shows a job as soon as it starts', async () => {
  const panel = await openPanel();
  // Nothing runs: the panel polls only every few seconds; the worker's message makes it look now.
  await panel.waitForTimeout(300);
  const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, settings: { ...FAST, crawlAfterLearning: false } });
  await until(panel, (id) => document.getElementById('job').dataset.jobId === id, jobId, { timeout: 2000 });
  const learned = await finished(jobId);
  await panel.close();
  // Not crawled after learning: the targets learning found are listed, not "0".
  const view = await openPanel(`?crawler=${learned.crawlerId}`);
  await until(view, () => document.getElementById('n-pages').textContent === '22 found while learning; not collected yet: run the crawler');
  assert.equal(await view.locator('#pages tbody tr').count(), 22);
  await view.close();
});

/** A library whose books are found only through a POST search form (5 results per page, paged
 * with POST submit buttons). Returns {url, matches(word), close()}. */
async function postLibrary() {
  const { createServer } = await import('node:http');
  const words = ['music', 'water', 'story', 'garden', 'river', 'winter'];
  const bookWords = (i) => [words[i % 6], words[(i * 7 + 3) % 6], 'book'];
  const books = Array.from({ length: 30 }, (_, i) => i + 1);
  const matches = (w) => books.filter((i) => bookWords(i).includes(w));
  const page = (title, body) => `<!DOCTYPE html><html><head><title>${title}</title></head><body>` +
    `<header><a href="/">Library</a></header><main>${body}</main><footer>City library</footer></body></html>`;
  const form = (q, pages = 0, current = 1) => `<form action="/search" method="post"><input type="search" name="q" value="${q}">` +
    `<input type="submit" value="Search">${Array.from({ length: pages }, (_, k) =>
      `<input type="submit" name="page" value="${k + 1}"${k + 1 === current ? ' disabled' : ''}>`).join('')}</form>`;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      const send = (status, html) => { res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }); res.end(html); };
      if (url.pathname === '/') return send(200, page('Library', `<h1>Find a book</h1>${form('')}`));
      if (url.pathname === '/search') {
        if (req.method !== 'POST') return send(405, page('Search', 'POST only'));
        const p = new URLSearchParams(body);
        const hits = matches(p.get('q') ?? '');
        if (!hits.length) return send(200, page('Search', `<p>No books match.</p>${form(p.get('q') ?? '')}`));
        const pages = Math.ceil(hits.length / 5);
        const n = Math.min(Math.max(Number(p.get('page') ?? 1) || 1, 1), pages);
        const list = hits.slice((n - 1) * 5, n * 5).map((i) => `<li><a href="/book/${i}">Book ${i}</a></li>`).join('');
        return send(200, page(`Search: ${p.get('q')}`, `<p>${hits.length} books</p><ol>${list}</ol>${form(p.get('q'), pages, n)}`));
      }
      const m = /^\/book\/(\d+)$/.exec(url.pathname);
      if (m && books.includes(Number(m[1]))) {
        const i = Number(m[1]);
        return send(200, page(`Book ${i}`, `<article><h1>Book ${i}</h1><p>${bookWords(i).join(' ')}</p><a href="/">Back</a></article>`));
      }
      return send(404, page('Not found', 'Not found'));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, matches, close: () => new Promise((r) => server.close(r)) };
}

test('a POST search form: the extension submits it, learns a POST form level and crawls through it', async () => {
  const lib = await postLibrary();
  try {
    const { jobId } = await call({
      type: 'startLearn', exampleUrl: lib.url + 'book/3', settings: { ...FAST, crawlAfterLearning: false },
    });
    const learn = await finished(jobId);
    assert.equal(learn.status, 'done', learn.error);
    const form = learn.result.levels.find((l) => l.form)?.form;
    assert.ok(form, JSON.stringify(learn.result.levels));
    assert.equal(form.form.method, 'post');
    assert.equal(form.queryField, 'q');
    // Run it with one value: every result page is read (POST pagination buttons).
    const { jobId: crawlId } = await call({
      type: 'runCrawler', crawlerId: learn.crawlerId, settings: { forms: { queries: ['water'], policy: 'values', budget: 1 } },
    });
    const crawl = await finished(crawlId);
    assert.equal(crawl.status, 'done', crawl.error);
    const got = (await pagesOf(learn.crawlerId)).filter((p) => p.jobId === crawlId).map((p) => p.url).sort();
    const want = lib.matches('water').map((i) => `${lib.url}book/${i}`).sort();
    assert.ok(want.length > 5, 'more than one result page');
    assert.deepEqual(got, want);
  } finally {
    await lib.close();
  }
});

test('links to files that fail are counted apart from the pages\' errors', async () => {
  // The about page links a missing photo and a missing page: the photo is no page a crawl needs.
  const about = await readFile(join(DEMO_SITE, 'sobre.html'), 'utf8');
  overrides.set('/sobre.html', about.replace('</main>', '<p><a href="fotos/nenhuma.jpg">foto</a> <a href="nenhuma.html">página</a></p></main>'));
  try {
    const { jobId } = await call({ type: 'startLearn', exampleUrl: site.url + EXAMPLE, settings: { ...FAST, crawlAfterLearning: false } });
    const done = await finished(jobId);
    assert.equal(done.status, 'done', done.error);
    assert.deepEqual(done.errors.map((e) => [e.url.replace(site.url, ''), e.what]), [['nenhuma.html', 'HTTP 404']]);
    assert.equal(done.fileErrors.count, 1);
    assert.match(done.fileErrors.urls[0], /fotos\/nenhuma\.jpg \(HTTP 404\)$/);
    const panel = await openPanel();
    await until(panel, (id) => document.getElementById('job').dataset.jobId === id, jobId);
    assert.equal(await panel.locator('#n-errors').textContent(), '1');
    assert.match(await panel.locator('#job-file-errors').textContent(), /^Not counted as errors: 1 link to a file \(images, documents\) answered an error/);
    await panel.close();
  } finally {
    overrides.delete('/sobre.html');
  }
});

test('the target pages list sorts by a column and scrolls through thousands of pages', async () => {
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.entry === site.url && !c.imported);
  // 5,000 stored pages of a crawler (as a crawl stores them), similarities spread.
  const panel = await openPanel(`?crawler=${crawler.id}`);
  const many = await panel.evaluate(async () => {
    const db = await import('./lib/db.js');
    const id = db.newId('crawler');
    await db.put('crawlers', { id, site: 'many.test', entry: 'http://many.test/', example: 'http://many.test/p/0', createdAt: Date.now(), patternJson: '{}', threshold: 0.8, learnJobId: null, settings: {}, runs: [] });
    for (let i = 0; i < 5000; i++) {
      await db.putPage({ url: `http://many.test/p/${String(i).padStart(4, '0')}`, title: `Page ${i}`, similarity: (i * 7919 % 5000) / 5000, fetchedAtMs: 1_700_000_000_000 + i, crawlerId: id, jobId: 'job-many' });
    }
    return id;
  });
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${many}`);
  await until(panel, () => document.getElementById('n-pages').textContent === '5000');
  const drawn = await panel.locator('#pages tbody tr:not(.spacer)').count();
  assert.ok(drawn > 5 && drawn < 100, `${drawn} rows drawn of 5,000`);
  // Scrolled to the end: the last pages are drawn, the first are not.
  await panel.evaluate(() => { const box = document.getElementById('pages-box'); box.scrollTop = box.scrollHeight; });
  await until(panel, () => [...document.querySelectorAll('#pages .url')].some((u) => u.textContent === 'http://many.test/p/4999'));
  assert.equal(await panel.locator('#pages .url', { hasText: 'http://many.test/p/0000' }).count(), 0);
  // Sorted by similarity, highest first; again, lowest first.
  await panel.evaluate(() => { document.getElementById('pages-box').scrollTop = 0; });
  await press(panel.locator('th[data-sort=similarity] button'));
  await until(panel, () => document.querySelector('#pages tbody tr:not(.spacer) td.num')?.textContent === '1.000' || document.querySelector('#pages tbody tr:not(.spacer) td.num')?.textContent === '0.999');
  assert.equal(await panel.locator('th[data-sort=similarity]').getAttribute('aria-sort'), 'descending');
  await press(panel.locator('th[data-sort=similarity] button'));
  await until(panel, () => document.querySelector('#pages tbody tr:not(.spacer) td.num')?.textContent === '0.000');
  // By URL.
  await press(panel.locator('button[data-sort=url]'));
  await until(panel, () => document.querySelector('#pages tbody tr:not(.spacer) .url')?.textContent === 'http://many.test/p/0000');
  await panel.evaluate(async (id) => (await import('./lib/db.js')).removeCrawler(id), many);
  await panel.close();
});
