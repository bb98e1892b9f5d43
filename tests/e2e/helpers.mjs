// Shared helpers for the browser end-to-end tests (not a test file: node --test only runs *.test.mjs).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DEMO_SITE = join(ROOT, 'tests/fixtures/demo-site');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.toml': 'text/plain; charset=utf-8',
};

/**
 * Serves the files under `root` on 127.0.0.1 at a random port; `overrides` (a Map, which the caller
 * may change while serving) replaces or adds pages, `delayMs` slows every response, `cookie`
 * ('name=value') is required for every page but the home page; `log` (an array) receives every
 * request's {path, headers, at} (`at`: when it came, Date.now()); requests for the paths of `hang` (a Set) are never answered, those
 * for the paths of `gone` (a Set the caller may change: a site that gains pages) are 404s; those
 * for a path of `busy` (a Map path → count, counted down, or a list of `Retry-After` values or
 * functions giving one, taken in turn) are answered 429 "Too Many Requests" (with
 * `Retry-After: 1` for a count) while it lasts.
 * Returns {url, close}; `url` ends with '/'.
 */
export async function serveDirectory(root, { overrides = new Map(), delayMs = 0, cookie = null, log = null, hang = new Set(), gone = new Set(), busy = new Map() } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path.endsWith('/')) path += 'index.html';
      log?.push({ path, headers: req.headers, at: Date.now() });
      if (hang.has(path)) return;
      if (gone.has(path)) throw Object.assign(new Error('not published yet'), { code: 'ENOENT' });
      const wait = busy.get(path);
      if (wait > 0 || wait?.length > 0) {
        const retryAfter = typeof wait === 'number' ? '1' : wait[0];
        busy.set(path, typeof wait === 'number' ? wait - 1 : wait.slice(1));
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': typeof retryAfter === 'function' ? retryAfter() : retryAfter });
        res.end('too many requests');
        return;
      }
      if (delayMs) await new Promise((ok) => setTimeout(ok, delayMs));
      // A site behind a login: without the session cookie only the home page is served.
      if (cookie && path !== '/index.html' && !(req.headers.cookie ?? '').split(/;\s*/).includes(cookie)) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('log in first');
        return;
      }
      // Pages added or changed by a test ('/path' → HTML), e.g. a site that gains pages.
      const override = overrides.get(path);
      if (override !== undefined) {
        res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' });
        res.end(override);
        return;
      }
      const file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      const found = await stat(file);
      // A directory asked without its slash is redirected to it, as web servers do.
      if (found.isDirectory() && !path.endsWith('/index.html')) {
        res.writeHead(301, { location: `${new URL(req.url, 'http://x').pathname}/` });
        res.end();
        return;
      }
      if (!found.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
      const body = await readFile(file);
      // A page that declares its charset says it (Apache's manual has EUC-KR pages), as
      // `exemplar serve` leaves it.
      const declares = extname(file) === '.html' && /<meta[^>]*charset/i.test(body.subarray(0, 1024).toString('latin1'));
      const type = declares ? 'text/html' : TYPES[extname(file)] ?? 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok, fail) => server.listen(0, '127.0.0.1', ok).once('error', fail));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); }),
  };
}

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/**
 * Headless Chromium with a fresh profile, or with `profile` (a folder the caller owns and removes:
 * a browser started again on it finds what the last one left); with `extension` (a folder) that
 * unpacked extension is loaded. Returns {context, close}.
 */
export async function launchChromium({ extension, profile: kept, args: more = [] } = {}) {
  const profile = kept ?? await mkdtemp(join(tmpdir(), 'exemplar-e2e-'));
  const args = [...ARGS, ...more];
  if (extension) args.push(`--disable-extensions-except=${extension}`, `--load-extension=${extension}`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args,
  });
  return {
    context,
    close: async () => {
      await context.close();
      if (!kept) await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The extension's service worker, once its script has run and its wasm core is ready. (Playwright
 * reports the worker as soon as it exists; events the browser sends before the script has
 * registered its listeners are lost, so tests must not open pages before then.)
 */
export async function extensionWorker(context) {
  const worker = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'))
    ?? await context.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith('chrome-extension://'), timeout: 15000 });
  await worker.evaluate(async () => {
    for (let i = 0; i < 200 && !globalThis.exemplarDispatch; i++) await new Promise((ok) => setTimeout(ok, 25));
    const reply = await globalThis.exemplarDispatch?.({ type: 'defaults' });
    if (!reply?.ok) throw new Error(`the extension's worker is not ready: ${reply?.error ?? 'no dispatcher'}`);
  });
  return worker;
}

/**
 * The toolbar popup of the extension (worker: `extensionWorker`) for a tab showing `url`, once it
 * offers to learn from the page: the tab, its id and the popup.
 */
export async function popupOn(context, worker, url) {
  const tab = await context.newPage();
  await tab.goto(url);
  const tabId = await worker.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]?.id, url);
  const popup = await context.newPage();
  await popup.goto(`chrome-extension://${new URL(worker.url()).host}/popup.html?tabId=${tabId}`);
  await popup.locator('#generate:not([hidden])').waitFor();
  return { tab, tabId, popup };
}

/** Clicks the popup's "This is an example page" and waits for the learning job it starts: its id. */
export async function clickExample(popup) {
  await press(popup.locator('#example'));
  await until(popup, () => document.getElementById('status').dataset.jobId);
  return popup.evaluate(() => document.getElementById('status').dataset.jobId);
}

/** Waits for the learning job `jobId` to end: its status (done or not). */
export async function learnEnded(call, jobId, timeoutMs = 240_000) {
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', timeoutMs, 200);
}

/** Clicks the panel's Re-learn and waits until the learning job's status satisfies `done`. */
export async function relearnFromPanel(panel, call, jobId, done) {
  await press(panel.locator('#relearn'));
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return done(s) && s;
  }, 're-learning', 30_000, 100);
}

/**
 * Clicks the control `target` (a button, a summary, a checkbox) as a user's click does; the
 * browser tests click through this alone. Not Playwright's `click()`: its wait for a "stable"
 * control counts the page's animation frames, and headless Chromium sometimes draws none for an
 * extension page for longer than the action's limit (CI, twice: `check()` on a shown, enabled
 * checkbox of the panel, right after a re-learn's redraw, waited 30 s at "waiting for element to
 * be visible, enabled and stable"; a control moved or hidden says so in that log instead). The
 * pages tested have no animations, so the control is waited for shown and enabled (one reading
 * each, no frames), then focused and given a click event, as a click does: its listeners run, a
 * checkbox toggles and fires its change, a summary opens its details, and the field typed in
 * before (the threshold) loses the focus.
 */
export async function press(target) {
  await usable(target);
  await target.focus();
  await target.dispatchEvent('click');
}

/** Ticks (`on`) or unticks the checkbox `box` (by `press`), and checks that it took. */
export async function tick(box, on = true) {
  await usable(box);
  if ((await box.isChecked()) !== on) await press(box);
  if ((await box.isChecked()) !== on) throw new Error(`the checkbox did not become ${on ? 'ticked' : 'unticked'}`);
}

/** Answers the review's card of `url` in `list` (`near-misses`, `weak-targets`) "Yes" or "No"
 * (`value`: 'yes', 'no'), by `press`, and checks that it took. */
export async function answer(panel, list, url, value) {
  await tick(panel.locator(`#${list} li[data-url="${url}"] input[value="${value}"]`));
}

/** Unfolds the review's grouping `id` (a `<details>`, folded until opened) by a click on its
 * summary, and waits for it open. */
export async function unfold(panel, id) {
  if (!(await panel.locator(`#${id}`).evaluate((d) => d.open))) await press(panel.locator(`#${id} > summary`));
  await until(panel, (i) => document.getElementById(i).open, id);
}

/** Waits for the control `target` to be shown and enabled: polled, each a reading at once (no frames). */
function usable(target) {
  return waitFor(async () => (await target.isVisible()) && (await target.isEnabled()), 'a shown, enabled control', 30_000, 50);
}

/** `page.waitForFunction(fn, arg, options)`, polled every 100 ms rather than at each animation
 * frame (headless Chromium's frames may stop for a while: see `press`). */
export function until(page, fn, arg, options = {}) {
  return page.waitForFunction(fn, arg, { polling: 100, ...options });
}

/** Throws a clear message when a build product the tests need is missing. */
export async function requireBuilt(path, what) {
  try {
    await stat(path);
  } catch {
    throw new Error(`${path} is missing: run ./build.sh (or ./build.sh wasm) first to build ${what}`);
  }
}

/**
 * A copy of the built extension whose manifest grants `origins` at install, standing in for the user
 * granting the optional host permission when asked (a browser's permission prompt cannot be clicked
 * in headless tests). Returns {dir, remove}.
 */
export async function extensionWithAccess(built, origins = ['http://127.0.0.1/*']) {
  const dir = await mkdtemp(join(tmpdir(), 'exemplar-ext-'));
  await cp(built, dir, { recursive: true });
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  manifest.host_permissions = origins;
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Polls `fn` until it returns a truthy value; throws with `what` after `timeoutMs`. */
export async function waitFor(fn, what, timeoutMs = 60_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 500)})`);
}

/** Page roles of the demo site (tests/fixtures/demo-site/expected.toml): {path: role}. */
export async function demoRoles() {
  const text = await readFile(join(DEMO_SITE, 'expected.toml'), 'utf8');
  const roles = {};
  for (const m of text.matchAll(/^"([^"]+)" = "(\w+)"$/gm)) roles[m[1]] = m[2];
  return roles;
}

/** Precision and recall of `found` (URLs) against `expected` (URLs). */
export function score(found, expected) {
  const want = new Set(expected);
  const got = new Set(found);
  const hits = [...got].filter((u) => want.has(u)).length;
  return { precision: got.size ? hits / got.size : 0, recall: want.size ? hits / want.size : 0, hits, found: got.size, expected: want.size };
}

/** A regex of eval/dev-sites.toml (Rust syntax) in JavaScript: a leading `(?s)` becomes the `s` flag. */
function rustRegex(source) {
  return source.startsWith('(?s)') ? new RegExp(source.slice(4), 's') : new RegExp(source);
}

/** HTML files under `dir`, as paths relative to `root`; directory symlinks (shared JS/CSS) are not followed. */
export async function htmlFiles(root, dir = root, out = []) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await htmlFiles(root, path, out);
    else if (e.name.endsWith('.html')) out.push(relative(root, path));
  }
  return out;
}

/** One development site of eval/dev-sites.toml: {root, entry, example, installed, targets()}, where
 * targets() gives the paths of its target pages by the site's rules (first matching rule wins, as in
 * testkit/src/devsites.rs; `exclude` honoured). */
export async function devSite(name) {
  const toml = await readFile(join(ROOT, 'eval/dev-sites.toml'), 'utf8');
  const block = toml.split('[[site]]').find((b) => b.includes(`name = "${name}"`));
  if (!block) throw new Error(`${name} is not in eval/dev-sites.toml`);
  const field = (key) => block.match(new RegExp(`^${key} = ["']([^"']*)["']`, 'm'))?.[1];
  const rules = [...block.matchAll(/\{ label = "([\w-]+)", role = "\w+", kind = "(\w+)"(?:, path = '([^']*)')?, re = '([^']*)' \}/g)]
    .map(([, label, kind, path, re]) => ({ label, kind, path: path && rustRegex(path), re: rustRegex(re) }));
  if (!rules.length) throw new Error(`${name}: no rules read`);
  const root = field('root');
  const exclude = field('exclude') ? new RegExp(field('exclude')) : null;
  const target = field('target');
  const matches = (rule, path, html) => (rule.kind === 'path' ? rule.re.test(path)
    : rule.kind === 'html' ? rule.re.test(html) : rule.path.test(path) && rule.re.test(html));
  let installed = true;
  try {
    await stat(join(root, field('entry')));
  } catch {
    installed = false;
  }
  return {
    root, entry: field('entry'), example: field('example'), installed,
    async targets() {
      const out = [];
      for (const path of await htmlFiles(root)) {
        if (exclude?.test(path)) continue;
        const html = await readFile(join(root, path), 'utf8');
        if (rules.find((r) => matches(r, path, html))?.label === target) out.push(path);
      }
      return out;
    },
  };
}

/** A development site (devSite) served on 127.0.0.1 with the built extension (`built`: dist/chrome)
 * in Chromium: {spec, site, browser, worker, dispatch, call, close}; only {spec, close} when the
 * site is not installed (`spec.installed` false; `./build.sh setup` installs it, CI always has it).
 * `dispatch` sends a message to the worker and returns its reply; `call` asserts it succeeded and
 * returns its result. `serve` holds serveDirectory's options. */
export async function devSiteInBrowser(name, built, serve = {}) {
  await requireBuilt(join(built, 'pkg/exemplar_bg.wasm'), 'the extension');
  const spec = await devSite(name);
  if (!spec.installed) return { spec, close: async () => {} };
  return { spec, ...await directoryInBrowser(spec.root, built, serve) };
}

/** The directory `root` served on 127.0.0.1 with the built extension (`built`: dist/chrome) in
 * Chromium: {site, browser, worker, extensionId, dispatch, call, close}, as devSiteInBrowser; host
 * `names` (`shop.test`) resolve to 127.0.0.1 there and the extension may fetch them. */
export async function directoryInBrowser(root, built, serve = {}, { names = [] } = {}) {
  await requireBuilt(join(built, 'pkg/exemplar_bg.wasm'), 'the extension');
  // Host `names` resolve to 127.0.0.1 in the browser and are granted like 127.0.0.1.
  const ext = await extensionWithAccess(built, ['http://127.0.0.1/*', ...names.map((n) => `http://${n}/*`)]);
  const site = await serveDirectory(root, serve);
  const rules = names.map((n) => `MAP ${n} 127.0.0.1`).join(',');
  const browser = await launchChromium({ extension: ext.dir, args: names.length ? [`--host-resolver-rules=${rules}`] : [] });
  const worker = await extensionWorker(browser.context);
  const dispatch = (msg) => worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
  const call = async (msg) => {
    const reply = await dispatch(msg);
    if (!reply.ok) throw new Error(`${msg.type}: ${reply.error}`);
    return reply.result;
  };
  const close = async () => {
    await browser.close();
    await site.close();
    await ext.remove();
  };
  return { site, browser, worker, extensionId: new URL(worker.url()).host, dispatch, call, close };
}

/** A page of a small written site: `title` and the body's HTML. */
export const sitePage = (title, body) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** Item `i` of a small written site: a detail page (heading, a table of two rows, a description). */
export const itemPage = (i) => sitePage(`Item ${i}`, `<div class="item"><h1>Item ${i}</h1><table class="spec">` +
  `<tr><td>a</td><td>${i}</td></tr><tr><td>b</td><td>x</td></tr></table><p class="desc">Description of item ${i}.</p></div>`);

/** A small site written for one test: `files` (an object, path relative to the site root → HTML;
 * folders are made) in a temporary folder named after `name`, served with the built extension
 * in Chromium, as directoryInBrowser, with the folder as `dir`; `close` also removes it. */
export async function filesInBrowser(name, files, built, serve = {}, options = {}) {
  const dir = await mkdtemp(join(tmpdir(), `exemplar-${name}-`));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    for (const [path, html] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), html);
    }
    const opened = await directoryInBrowser(dir, built, serve, options);
    return { ...opened, dir, close: async () => { await opened.close(); await removeDir(); } };
  } catch (e) {
    await removeDir();
    throw e;
  }
}

/** The extension's service worker as `page` (an extension page) sees it through DevTools:
 * `states` lists its running statuses as they change, `stop()` stops every worker and waits
 * until the extension's has stopped (an extension page or a message starts it again). */
export async function watchWorker(browser, page, extensionId) {
  const cdp = await browser.context.newCDPSession(page);
  const states = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (e) => {
    for (const v of e.versions) if (v.scriptURL.startsWith(`chrome-extension://${extensionId}/`)) states.push(v.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  const stop = async () => {
    await cdp.send('ServiceWorker.stopAllWorkers');
    await waitFor(() => states.includes('stopped'), 'the worker to stop');
  };
  return { states, stop };
}

/** A message to the extension's worker sent from `page`, one of the extension's pages (which
 * starts the worker when it is stopped): its result, or the reply's error thrown. */
export function callFrom(page) {
  return async (msg) => {
    const reply = await page.evaluate((m) => chrome.runtime.sendMessage(m), msg);
    if (!reply?.ok) throw new Error(`${msg.type}: ${reply?.error ?? 'no reply'}`);
    return reply.result;
  };
}

/** Learns the served dev site from its entry and example (no delay, 4 requests at once) and waits
 * for the learning job and the crawl it starts: {learn, crawl} (their statuses, both done). */
export async function learnAndCrawl({ spec, site, call }) {
  const { jobId } = await call({
    type: 'startLearn', exampleUrl: site.url + spec.example, entryUrl: site.url + spec.entry,
    settings: { delayMs: 0, concurrency: 4 },
  });
  const learn = await learnEnded(call, jobId);
  if (learn.status !== 'done') throw new Error(`learning ${learn.status}: ${learn.error}`);
  const crawl = await crawlDone(call, learn.crawlerId);
  return { learn, crawl };
}

/** Waits for a crawl of `crawlerId` started after `afterMs` to end; throws unless it is done. */
export async function crawlDone(call, crawlerId, afterMs = 0) {
  const crawl = await waitFor(async () => (await call({ type: 'status' })).jobs
    .find((j) => j.kind === 'crawl' && j.crawlerId === crawlerId && j.status !== 'running' && j.startedAt > afterMs),
  'the crawl', 240_000, 250);
  if (crawl.status !== 'done') throw new Error(`the crawl ${crawl.status}: ${crawl.error}`);
  return crawl;
}

/** The URLs of a crawler's stored pages (IndexedDB, read from an extension page). */
export async function storedPages({ browser, worker }, crawlerId) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html`);
    return await page.evaluate(async (id) => {
      const db = await import('./lib/db.js');
      return (await db.pagesOf(id)).map((p) => p.url);
    }, crawlerId);
  } finally {
    await page.close();
  }
}

/**
 * A real web application of eval/real/apps/ (`zyte-books` or `quotes-toscrape`) run on
 * 127.0.0.1 by eval/real/serve_app.py with the Python of .venv (./build.sh setup), with the
 * built extension (`built`: dist/chrome) in Chromium: {site: {url}, browser, worker, call, close},
 * as directoryInBrowser; `site.url` ends with '/'.
 * @param {string} app
 * @param {string} built
 */
export async function appInBrowser(app, built) {
  await requireBuilt(join(built, 'pkg/exemplar_bg.wasm'), 'the extension');
  const { spawn } = await import('node:child_process');
  const { createServer: netServer, connect } = await import('node:net');
  const port = await new Promise((done, fail) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port: p } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => done(p));
    }).on('error', fail);
  });
  const python = join(ROOT, '.venv/bin/python');
  await stat(python).catch(() => { throw new Error(`${python} is missing: run ./build.sh setup`); });
  const child = spawn(python, [join(ROOT, 'eval/real/serve_app.py'), app, String(port)], { stdio: 'ignore' });
  const up = () => new Promise((done) => {
    const socket = connect(port, '127.0.0.1', () => { socket.end(); done(true); }).on('error', () => done(false));
  });
  await waitFor(async () => child.exitCode === null && await up(), `${app} on port ${port}`, 30_000);
  const ext = await extensionWithAccess(built);
  const browser = await launchChromium({ extension: ext.dir });
  const worker = await extensionWorker(browser.context);
  const call = async (msg) => {
    const reply = await worker.evaluate((m) => globalThis.exemplarDispatch(m), msg);
    if (!reply.ok) throw new Error(`${msg.type}: ${reply.error}`);
    return reply.result;
  };
  const close = async () => {
    await browser.close();
    child.kill();
    await ext.remove();
  };
  return { site: { url: `http://127.0.0.1:${port}/` }, browser, worker, call, close };
}

/**
 * axe-core's serious and critical violations (WCAG 2 A and AA rules) on `page`, as
 * "rule (impact): first nodes". On an extension page, whose CSP refuses an injected script, axe
 * is evaluated over the debugging protocol, which the CSP does not bind.
 */
export async function axeViolations(page) {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => globalThis.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** axe-core's script, read once. @type {string | undefined} */
let axeSource;
