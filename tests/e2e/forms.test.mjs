// Search forms through the real extension, against a real hidden-web database: Xapian Omega (a CGI
// search application) over the PostgreSQL docs, set up here in a scratch dir and served on
// 127.0.0.1 by Python's CGI server. Learning starts on the search page with a reference page as
// the example: the pattern gets a form level (its template fills P, the query field); the side
// panel shows it and runs the crawler again with the query values, policy and budget given there.
// Skipped when Omega is not installed (Debian: xapian-omega xapian-tools postgresql-doc-15).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import {
  ROOT, clickExample, extensionWithAccess, extensionWorker, launchChromium, popupOn, press, requireBuilt, tick, until, waitFor,
} from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const OMEGA = '/usr/lib/cgi-bin/omega/omega';
const DOCS = '/usr/share/doc/postgresql-doc-15/html';
// What makes a page of the docs a reference page (an SQL command, a program, …): the kind of the example.
const REFENTRY = '<hr /></div><div class="refentry"';
const missing = [OMEGA, DOCS, '/usr/bin/omindex'].filter((p) => !existsSync(p));
const skip = missing.length ? `Xapian Omega is not installed (missing ${missing.join(', ')}): apt-get install xapian-omega xapian-tools postgresql-doc-15` : false;
// Enough pages to map the whole doc site (1,173 pages) and the search form's result pages.
const LEARN = { maxPages: 1400, delayMs: 0, concurrency: 4 };

let work, server, base, ext, browser, extensionId;

const freePort = () => new Promise((ok, fail) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => ok(port));
  }).once('error', fail);
});

/** A page's text. Omega ends its header lines with a bare LF, which browsers accept and Node's
 * fetch does not: the lenient parser. */
const getText = (url) => new Promise((ok, fail) => {
  get(url, { insecureHTTPParser: true }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => ok(text)).on('error', fail);
  }).on('error', fail);
});

/** Omega over the PostgreSQL docs in `work`, served on a free loopback port: the site's base URL. */
async function startOmega() {
  // Python's CGI server runs scripts as nobody when it runs as root: the tree must be world-readable,
  // and reachable (a private TMPDIR, mode 700, is not: /tmp then).
  work = await mkdtemp(join(process.getuid?.() === 0 ? '/tmp' : tmpdir(), 'exemplar-omega-'));
  await chmod(work, 0o755);
  for (const d of ['data', 'log', 'cdb', 'www/cgi-bin']) await mkdir(join(work, d), { recursive: true });
  await writeFile(join(work, 'omega.conf'),
    `database_dir ${work}/data\ntemplate_dir /var/lib/xapian-omega/templates\nlog_dir ${work}/log\ncdb_dir ${work}/cdb\n`);
  await symlink(DOCS, join(work, 'www/pg'));
  await copyFile(OMEGA, join(work, 'www/cgi-bin/omega'));
  await chmod(join(work, 'www/cgi-bin/omega'), 0o755);
  await promisify(execFile)('omindex', ['--db', join(work, 'data/pg'), '--url', '/pg/', DOCS], { maxBuffer: 64 << 20 });
  const port = await freePort();
  server = spawn('python3', ['-m', 'http.server', '--cgi', '--bind', '127.0.0.1', String(port)], {
    cwd: join(work, 'www'), env: { ...process.env, OMEGA_CONFIG_FILE: join(work, 'omega.conf') }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => /<form/i.test(await getText(`${url}/cgi-bin/omega?DB=pg`).catch(() => '')), 'Omega to answer', 20_000).catch((e) => {
    throw new Error(`${e.message}; the CGI server said: ${log}`);
  });
  return url;
}

before(async () => {
  if (skip) return;
  await requireBuilt(join(BUILT, 'pkg/exemplar_bg.wasm'), 'the extension');
  base = await startOmega();
  ext = await extensionWithAccess(BUILT);
  browser = await launchChromium({ extension: ext.dir });
  const worker = await extensionWorker(browser.context);
  extensionId = new URL(worker.url()).host;
});

after(async () => {
  await browser?.close();
  server?.kill();
  await ext?.remove();
  if (work) await rm(work, { recursive: true, force: true });
});

async function call(msg) {
  const w = browser.context.serviceWorkers().find((x) => x.url().startsWith(`chrome-extension://${extensionId}/`))
    ?? await browser.context.waitForEvent('serviceworker', { timeout: 15000 });
  const reply = await w.evaluate((m) => globalThis.exemplarDispatch(m), msg);
  assert.equal(reply.ok, true, `${msg.type}: ${reply.error}`);
  return reply.result;
}

async function finished(jobId, timeoutMs) {
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, `job ${jobId}`, timeoutMs, 250);
}

const refentryCache = new Map();
/** Whether `url` (a page of the served docs) is a reference page: read from the doc dir. */
async function isRefentry(url) {
  const u = new URL(url);
  if (u.origin !== base || !u.pathname.startsWith('/pg/')) return false;
  const name = basename(u.pathname);
  if (!refentryCache.has(name)) {
    refentryCache.set(name, await readFile(join(DOCS, name), 'utf8').then((t) => t.includes(REFENTRY), () => false));
  }
  return refentryCache.get(name);
}

async function assertPrecise(urls, what) {
  const wrong = [];
  for (const u of urls) if (!(await isRefentry(u))) wrong.push(u);
  assert.deepEqual(wrong.slice(0, 10), [], `${what}: ${wrong.length} of ${urls.length} are not reference pages`);
}

async function openPanel() {
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html`);
  return panel;
}

async function pagesOf(panel, crawlerId, jobId) {
  return panel.evaluate(async ([id, job]) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(id)).filter((p) => p.jobId === job).map((p) => p.url);
  }, [crawlerId, jobId]);
}

/** Clicks "Run crawler" with the panel's search form settings; returns the finished crawl's status. */
async function runFromPanel(panel, crawlerId, { queries, policy, budget }) {
  await panel.locator('#form-queries').fill(queries);
  await panel.locator('#form-policy').selectOption(policy);
  await panel.locator('#form-budget').fill(String(budget));
  const before = new Set((await call({ type: 'status' })).jobs.map((j) => j.id));
  await press(panel.locator('#run'));
  const job = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === crawlerId && !before.has(j.id)), 'the crawl job');
  const done = await finished(job.id, 60_000);
  assert.equal(done.status, 'done', done.error);
  return done;
}

let learned; // {crawlerId, seconds, targets}

test('learning from the search page: a form level filling P, and only reference pages', { skip }, async () => {
  // The popup on the example page: entry = the search page, limits for the whole site, no crawl.
  const example = `${base}/pg/sql-vacuum.html`;
  const worker = browser.context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${extensionId}/`));
  const { tab, popup } = await popupOn(browser.context, worker, example);
  await popup.locator('#entry-choice').selectOption('url');
  await popup.locator('#entry-url').fill(`${base}/cgi-bin/omega?DB=pg`);
  await press(popup.locator('#advanced summary'));
  for (const [k, v] of Object.entries(LEARN)) await popup.locator(`#${k}`).fill(String(v));
  await tick(popup.locator('#crawlAfterLearning'), false);
  const started = Date.now();
  const jobId = await clickExample(popup);
  await popup.close();
  await tab.close();
  const learn = await finished(jobId, 150_000);
  assert.equal(learn.status, 'done', learn.error);
  const seconds = (Date.now() - started) / 1000;
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.id === learn.crawlerId);
  const pattern = JSON.parse(crawler.patternJson);
  const forms = pattern.levels.filter((l) => l.form);
  assert.equal(forms.length, 1, `one search form level: ${JSON.stringify(pattern.levels.map((l) => [l.regexes.length, !!l.form]))}`);
  const form = forms[0].form;

  assert.match(form.template, /P=\*/);
  assert.equal(form.queryField, 'P');
  const targets = learn.result.targets.map((t) => t.url);
  // Ground truth from the generator's marker, counted now (Debian point releases shift counts).
  const names = (await readdir(DOCS)).filter((n) => n.endsWith('.html'));
  const reference = (await Promise.all(names.map((n) => isRefentry(`${base}/pg/${n}`)))).filter(Boolean).length;
  assert.equal(targets.length, reference, `${targets.length} targets of ${reference} reference pages`);
  await assertPrecise(targets, 'targets seen while learning');

  // The panel shows the search form level.
  const panel = await openPanel();
  const card = panel.locator('#levels .level.form');
  await card.first().waitFor();
  assert.match(await card.first().locator('h3').textContent(), /^Level \d+: search form · GET \/cgi-bin\/omega$/);
  assert.match(await card.first().locator('pre').textContent(), /P=\*/);
  assert.match(await card.first().locator('.query-field').textContent(), /^Query field: (P|.+ \(P\))$/);
  assert.match(await card.first().locator('.values').textContent(), /^Values that worked: /);
  assert.equal(await panel.locator('#run-forms').isHidden(), false, 'run settings for the search form');
  await panel.close();
  learned = { crawlerId: learn.crawlerId, formLevels: forms.length };
  console.log(`# learned in ${seconds.toFixed(1)} s: ${learn.progress.fetched} pages fetched, ${targets.length} targets, ` +
    `${pattern.levels.length} levels of which ${forms.length} search form levels, values ${JSON.stringify(form.values.slice(0, 5))}`);
});

test('running again from the panel: one query "vacuum" with the values policy', { skip }, async () => {
  assert.ok(learned, 'needs the learned crawler');
  const panel = await openPanel();
  await panel.locator('#run-forms:not([hidden])').waitFor();
  const done = await runFromPanel(panel, learned.crawlerId, { queries: 'vacuum', policy: 'values', budget: 1 });
  // One query over all the form levels (each level's budget is 1; the same query is asked once).
  assert.equal(done.progress.queries, 1);
  assert.equal(done.lastQuery?.query, 'vacuum');
  assert.equal(done.lastQuery.issued, 1);
  assert.ok(done.lastQuery.documents >= 1, JSON.stringify(done.lastQuery));
  assert.equal(done.queryBudget, learned.formLevels);
  await until(panel, (b) => document.getElementById('n-queries').textContent === `1 / ${b}`, done.queryBudget);
  assert.ok(await panel.locator('#queries-box').isVisible());
  // The panel polls: it shows the finished job's last query at its next poll.
  await until(panel, () => /^Last query “vacuum” \(level \d+\): \d+ result pages?, \d+ documents/
    .test(document.getElementById('job-query').textContent));
  const urls = await pagesOf(panel, learned.crawlerId, done.id);
  assert.ok(urls.some((u) => u.endsWith('/pg/sql-vacuum.html')), urls.join(' '));
  await assertPrecise(urls, 'targets of the query "vacuum"');
  console.log(`# values policy, budget 1: ${done.progress.queries} query, ${urls.length} targets, ${done.progress.fetched} pages fetched`);
  await panel.close();
});

test('running again from the panel: the adaptive policy with a budget of 5', { skip }, async () => {
  assert.ok(learned, 'needs the learned crawler');
  const panel = await openPanel();
  await panel.locator('#run-forms:not([hidden])').waitFor();
  const done = await runFromPanel(panel, learned.crawlerId, { queries: '', policy: 'adaptive', budget: 5 });
  // Each form level has a budget of 5: the first spends it all, none goes over.
  assert.equal(done.queryBudget, 5 * learned.formLevels);
  const runs = Object.entries(done.formLevels);
  assert.ok(runs.length >= 1 && runs.every(([, r]) => r.budget === 5 && r.issued <= 5), JSON.stringify(done.formLevels));
  assert.equal(runs[0][1].issued, 5, JSON.stringify(done.formLevels));
  // (A level's `issued` also counts a query another level asked already: it is not asked twice.)
  assert.ok(done.progress.queries >= 5 && done.progress.queries <= runs.reduce((n, [, r]) => n + r.issued, 0));
  await until(panel, (t) => document.getElementById('n-queries').textContent === t, `${done.progress.queries} / ${done.queryBudget}`);
  const urls = await pagesOf(panel, learned.crawlerId, done.id);
  assert.ok(urls.length >= 10, `${urls.length} targets`);
  await assertPrecise(urls, 'targets of the adaptive queries');
  console.log(`# adaptive policy, budget 5: ${done.progress.queries} queries (${JSON.stringify(done.formLevels)}), ${urls.length} targets, ${done.progress.fetched} pages fetched`);
  await panel.close();
});

test('the budget must be a whole number ≥ 1', { skip }, async () => {
  assert.ok(learned, 'needs the learned crawler');
  const panel = await openPanel();
  await panel.locator('#run-forms:not([hidden])').waitFor();
  await panel.locator('#form-budget').fill('0');
  await press(panel.locator('#run'));
  await until(panel, () => document.getElementById('run-error').textContent.includes('budget'));
  const reply = await browser.context.serviceWorkers()[0].evaluate((id) => globalThis.exemplarDispatch({
    type: 'runCrawler', crawlerId: id, settings: { forms: { budget: 0 } },
  }), learned.crawlerId);
  assert.equal(reply.ok, false);
  assert.match(reply.error, /budget must be a whole number/);
  await panel.close();
});
