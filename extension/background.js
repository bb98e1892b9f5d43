// Exemplar's service worker (Chrome) / background script (Firefox): page kinds on the toolbar badge,
// and the learning and crawling jobs, run by the Rust core (WebAssembly) with the browser's fetch.
//
// Message table (runtime.sendMessage(msg) → reply). Every reply is {ok: true, result} or
// {ok: false, error: string}.
//
// | msg.type        | fields                                  | result                                         |
// |-----------------|-----------------------------------------|------------------------------------------------|
// | 'classify'      | html, url                               | {kind, confidence, evidence, summary}          |
// | 'classifyTab'   | tabId                                   | same, plus url (the tab's live DOM, read with   |
// |                 |                                         | scripting: needs activeTab or site access)     |
// | 'similarity'    | htmlA, htmlB, options?                  | {similarity, distance, sizeA, sizeB, …}        |
// | 'tabState'      | tabId                                   | the tab's last classification, or null         |
// | 'startLearn'    | exampleUrl, entryUrl?, settings?        | {jobId}: maps the site, learns the pattern,    |
// |                 |                                         | saves a crawler, then crawls with it           |
// | 'startPending'  | id?, pending?                           | {jobId} or null: the popup's request left in   |
// |                 |                                         | storage.session, started once (also on         |
// |                 |                                         | permissions.onAdded)                           |
// | 'runCrawler'    | crawlerId, settings?                    | {jobId}: runs a saved crawler again            |
// |                 |   (over the crawler's: maxBytes, …)     |                                                |
// |                 |   settings.forms?: {queries?, policy?,  |   (forms: its form levels' queries: values as   |
// |                 |   budget?}                              |   a list or text, one a line or comma-separated)|
// | 'pauseJob' / 'resumeJob' / 'cancelJob' | jobId            | the job's status                               |
// | 'status'        | jobId?                                  | {jobs: [status…]} (all, newest first) or one    |
// |                 |                                         |   (crawls of form levels: progress.queries,    |
// |                 |                                         |   queryBudget (all form levels), lastQuery:    |
// |                 |                                         |   the last query event, formLevels: {level:   |
// |                 |                                         |   {issued, budget}}); tooLarge: {count, urls}: |
// |                 |                                         |   pages not read, past settings.maxBytes      |
// | 'relearn'       | jobId, threshold, like?, unlike?,       | the learning result at that θ (no refetching)  |
// |                 |   unlikeHeadings?, likeHeadings?,       |   with the user's verdicts (replacing earlier  |
// |                 |   unlikeLanguages?, likeLanguages?,     |   ones); the crawler's pattern is replaced     |
// |                 |   unlikeDirectories?, likeDirectories?  |                                                |
// |                 |   like/unlike: URLs the user judged     |                                                |
// |                 |   (like the example or not);            |                                                |
// |                 |   unlikeHeadings: heading templates     |                                                |
// |                 |   of targets left out; likeHeadings:    |                                                |
// |                 |   of pages below θ taken;               |                                                |
// |                 |   unlikeLanguages: declared languages   |                                                |
// |                 |   of targets left out; likeLanguages:   |                                                |
// |                 |   those kept (a proposal taken back);   |                                                |
// |                 |   unlikeDirectories: directory URLs     |                                                |
// |                 |   whose targets are left out            |                                                |
// | 'crawlers'      |                                         | [crawler summaries]                            |
// | 'importPattern' | json                                    | the new crawler (clear error if malformed)     |
// | 'deleteCrawler' | crawlerId                               | true                                           |
// | 'setSchedule'   | crawlerId, everyHours (> 0, or null:    | the crawler summary: schedule {everyHours,     |
// |                 |   none), firstAt? (ms since the epoch;  |   nextAt, lastError?} runs it again by itself  |
// |                 |   default: one period from now)         |   (runs record scheduled: true)                |
//
// Job state lives in IndexedDB (lib/db.js) and is checkpointed every second with the core's
// snapshot. The worker may be stopped at any moment (MV3): when it starts again (any message, the
// alarm, the browser starting) running jobs are restored from their last snapshot and go on; the
// result is the same as an uninterrupted run.
//
// MV3 rules kept here: static imports only, no top-level await, listeners registered
// synchronously, one memoized init() promise awaited by every handler.
import init, { Job, classifyPage, defaultThreshold, pageRetryWaitMs, similarity, validatePattern } from './pkg/exemplar.js';
import * as db from './lib/db.js';
import { fetchOne, pump } from './lib/runner.js';
import { hostPattern } from './lib/site-access.js';

const ready = init({ module_or_path: chrome.runtime.getURL('pkg/exemplar_bg.wasm') });

const BADGE = { index: 'IDX', entity: 'ENT', other: '' };
const tabKey = (tabId) => `tab:${tabId}`;
const ALARM = 'exemplar-resume';
// One alarm for every saved crawler's schedule, set for the earliest run due: the schedules live
// in IndexedDB, so a lost alarm (the browser may clear them when it restarts) costs nothing —
// every start of the worker runs what is due and sets it again.
const SCHEDULE_ALARM = 'exemplar-schedule';
const HOUR_MS = 3_600_000;
const MAX_ERRORS = 50;

/** Defaults of the "limits" panel; the popup shows them. `threshold` is the core's default θ once
 * the wasm module is ready (`defaults()`). */
const DEFAULT_SETTINGS = {
  maxPages: 2000,
  maxDepth: 10,
  delayMs: 250,
  concurrency: 2,
  threshold: 0.875,
  maxBytes: 8 * 1024 * 1024,
  timeoutMs: 30_000,
  crawlAfterLearning: true,
  verify: false,
  // robots.txt and robots meta tags (nofollow); off: the user's choice for a site that asks
  // robots not to follow its links (gitweb asks so on every page).
  obeyRobots: true,
};

// ------------------------------------------------------------------ page kinds

async function classify(html, url) {
  await ready;
  return classifyPage(String(html ?? ''), String(url ?? ''));
}

// The page's own HTML as the browser has it now (after scripts ran).
async function readTab(tabId) {
  const [injection] = await chrome.scripting.executeScript({
    target: { tabId },
    func: () => ({ html: document.documentElement.outerHTML, url: location.href, referrer: document.referrer }),
  });
  if (!injection || !injection.result) throw new Error(`could not read tab ${tabId}`);
  return injection.result;
}

async function classifyTab(tabId) {
  const page = await readTab(tabId);
  const result = { ...(await classify(page.html, page.url)), url: page.url, referrer: page.referrer };
  // The badge first: a stored state then means the toolbar already shows it (readers of the
  // state, the popup and tests, never see a stored kind beside a stale title).
  await showOnBadge(tabId, result);
  await chrome.storage.session.set({ [tabKey(tabId)]: result });
  return result;
}

async function showOnBadge(tabId, result) {
  const percent = Math.round(result.confidence * 100);
  await chrome.action.setBadgeText({ tabId, text: BADGE[result.kind] ?? '' });
  await chrome.action.setTitle({ tabId, title: `Exemplar: ${result.kind} page (${percent}% confidence)` });
}

// ------------------------------------------------------------------ jobs

/** Running pumps of this worker's life: jobId → {record, job, control}. */
const runs = new Map();

/** The default settings, θ from the core (call after `await ready`). */
const defaults = () => ({ ...DEFAULT_SETTINGS, threshold: defaultThreshold() });

const settingsOf = (given) => {
  const s = defaults();
  for (const [k, v] of Object.entries(given ?? {})) {
    if (!(k in DEFAULT_SETTINGS)) throw new Error(`unknown setting ${k}`);
    if (typeof v !== typeof DEFAULT_SETTINGS[k]) throw new Error(`setting ${k} must be a ${typeof DEFAULT_SETTINGS[k]}`);
    s[k] = v;
  }
  if (!(s.threshold >= 0 && s.threshold <= 1)) throw new Error('the similarity threshold must be between 0 and 1');
  for (const k of ['maxPages', 'maxDepth', 'concurrency', 'maxBytes', 'timeoutMs']) {
    if (!(Number.isInteger(s[k]) && s[k] >= 1)) throw new Error(`${k} must be a whole number ≥ 1`);
  }
  if (!(Number.isInteger(s.delayMs) && s.delayMs >= 0)) throw new Error('delayMs must be a whole number ≥ 0');
  // As the command line's --max-bytes: a page below 1 KiB is no page, past 1 GiB no tab holds it.
  if (!(s.maxBytes >= 1024 && s.maxBytes <= 2 ** 30)) throw new Error('the page size limit (maxBytes) must be between 1 KiB and 1 GiB');
  return s;
};

/** Query policies of form levels (the core's names). */
const POLICIES = ['adaptive', 'values', 'thesis', 'genericFrequency', 'random'];

/**
 * The crawl's `forms` config from the user's: {queries?, policy?, budget?}. Values: a list, or a
 * text of values one a line or comma-separated; trimmed, empty ones dropped (none: the policy).
 */
function formsOf(given) {
  if (given === undefined || given === null) return {};
  if (typeof given !== 'object') throw new Error('forms must be an object');
  const out = {};
  for (const k of Object.keys(given)) {
    if (!['queries', 'policy', 'budget'].includes(k)) throw new Error(`unknown form setting ${k}`);
  }
  if (given.queries !== undefined && given.queries !== null) {
    const list = Array.isArray(given.queries) ? given.queries : String(given.queries).split(/[\n,]/);
    const queries = list.map((v) => String(v).trim()).filter(Boolean);
    if (queries.length) out.queries = queries;
  }
  if (given.policy) {
    if (!POLICIES.includes(given.policy)) throw new Error(`unknown query policy ${given.policy} (${POLICIES.join(', ')})`);
    out.policy = given.policy;
  }
  if (given.budget !== undefined && given.budget !== null && given.budget !== '') {
    const budget = Number(given.budget);
    if (!(Number.isInteger(budget) && budget >= 1)) throw new Error('the query budget must be a whole number ≥ 1');
    out.budget = budget;
  }
  return out;
}

/** Queries the crawl may issue over all its form levels (null: the pattern has none). */
function queryBudget(patternJson, forms) {
  let levels = [];
  try {
    levels = JSON.parse(patternJson).levels ?? [];
  } catch { /* validated by the core */ }
  const formLevels = levels.filter((l) => l.form);
  if (!formLevels.length) return null;
  return formLevels.reduce((n, l) => n + (forms.budget ?? l.form.budget ?? 100), 0);
}

const politeness = (s) => ({ delayMs: s.delayMs, maxInFlight: s.concurrency, maxInFlightPerHost: s.concurrency, obeyRobots: s.obeyRobots });

/** Throws a clear error unless the extension may fetch from `url`'s origin. */
async function requireAccess(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url}`);
  }
  const { origin } = parsed;
  if (!/^https?:/.test(origin)) throw new Error(`Exemplar only crawls http and https sites, not ${url}`);
  // Without the port: Firefox's match patterns never match a pattern that names one.
  if (!(await chrome.permissions.contains({ origins: [hostPattern(parsed)] }))) {
    throw new Error(`Permission denied: Exemplar has no access to ${origin}. Allow it when Exemplar asks, or in the extension's site access settings.`);
  }
}

/** The example page as the site serves it (the pages it is compared with are fetched too). */
async function fetchExample(url, s) {
  let r;
  // A site that says "come back later" (429, 503) is asked again after the wait, as the jobs'
  // own requests are.
  for (let attempt = 1; ; attempt++) {
    r = await fetchOne({ url, kind: 'page' }, { maxBytes: s.maxBytes, timeoutMs: s.timeoutMs, signal: new AbortController().signal });
    const retryAfter = r.headers?.find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
    const wait = r.error === undefined ? pageRetryWaitMs(r.status, retryAfter, attempt) : undefined;
    if (wait === undefined) break;
    await new Promise((ok) => setTimeout(ok, wait));
  }
  if (r.error !== undefined) throw new Error(`The example page ${url} is unreachable: ${r.error}`);
  if (r.status < 200 || r.status >= 300) throw new Error(`The example page ${url} answered HTTP ${r.status}`);
  const type = r.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null;
  if (r.body.length === 0) throw new Error(`The example page ${url} is not an HTML page (${type ?? 'no content type'})`);
  if (r.truncated) throw new Error(`The example page ${url} is larger than ${s.maxBytes} bytes`);
  return { url: r.finalUrl, body: r.body, contentType: type };
}

async function startLearn({ exampleUrl, entryUrl, settings }) {
  await ready;
  const s = settingsOf(settings);
  if (typeof exampleUrl !== 'string') throw new Error('no example page URL');
  const entry = entryUrl || new URL('/', exampleUrl).href;
  await requireAccess(exampleUrl);
  await requireAccess(entry);
  const example = await fetchExample(exampleUrl, s);
  const config = {
    maxPages: s.maxPages,
    maxDepth: s.maxDepth,
    maxBytes: s.maxBytes,
    similarity: { threshold: s.threshold },
    politeness: politeness(s),
  };
  const job = Job.learn(entry, example.url, example.body, example.contentType, config);
  const record = newRecord('learn', { entry, example: example.url, settings: s, exampleContentType: example.contentType });
  record.exampleBody = example.body;
  return launch(record, job);
}

// A generation asked for in the popup, waiting for the user to grant site access. The popup may
// have been closed by the permission prompt, so the worker starts it when access arrives.
const PENDING = 'pendingStart';
const PENDING_MAX_AGE_MS = 10 * 60_000;
/** Generations started from a pending request: its id → the startLearn promise (one job per id). */
const startedPending = new Map();

/**
 * Starts the pending generation once: from the popup (`id` and `pending` given, access granted
 * without the popup closing) or from permissions.onAdded (no id: only when every origin it needs
 * is granted now). Returns {jobId}, or null when there is nothing to start.
 */
async function startPending({ id, pending: given } = {}) {
  if (id && startedPending.has(id)) return startedPending.get(id);
  const stored = (await chrome.storage.session.get(PENDING))[PENDING];
  const pending = stored ?? (id && given?.id === id ? given : null);
  if (!pending || (id && pending.id !== id) || Date.now() - pending.at > PENDING_MAX_AGE_MS) return null;
  if (startedPending.has(pending.id)) return startedPending.get(pending.id);
  if (!id && !(await chrome.permissions.contains({ origins: pending.origins }))) return null;
  if (startedPending.has(pending.id)) return startedPending.get(pending.id);
  const started = startLearn(pending);
  startedPending.set(pending.id, started);
  await chrome.storage.session.remove(PENDING).catch(() => {});
  return started;
}

async function runCrawler({ crawlerId, settings, scheduled = false }) {
  await ready;
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no saved crawler ${crawlerId}`);
  const { forms: givenForms, ...rest } = settings ?? {};
  const forms = formsOf(givenForms);
  const s = settingsOf({ ...crawler.settings, ...rest });
  await requireAccess(crawler.entry);
  // A larger page size asked for (the panel's "Crawl again reading pages up to"): the crawler
  // keeps it, or its next run would skip the same pages again.
  if (rest.maxBytes !== undefined && crawler.settings?.maxBytes !== s.maxBytes) {
    crawler.settings = { ...crawler.settings, maxBytes: s.maxBytes };
    await db.put('crawlers', crawler);
  }
  // With the example page kept from learning, the crawl compares with it the targets learning
  // did not know (a re-run's new pages) — or every target when the settings say `verify`.
  const example = crawler.exampleBody ? crawler : null;
  const config = { maxBytes: s.maxBytes, politeness: politeness(s), forms, verifyNewOnly: !s.verify };
  const job = Job.crawl(crawler.patternJson, config, example?.example, example?.exampleBody, example?.exampleContentType);
  const record = newRecord('crawl', {
    crawlerId, entry: crawler.entry, example: crawler.example, settings: s,
    forms, queryBudget: queryBudget(crawler.patternJson, forms), lastQuery: null, scheduled,
  });
  return launch(record, job);
}

function newRecord(kind, fields) {
  const now = Date.now();
  return {
    id: db.newId(kind), kind, status: 'running', startedAt: now, updatedAt: now,
    progress: null, current: '', errors: [], error: null, stopped: null, result: null, snapshot: null,
    tooLarge: { count: 0, urls: [] },
    ...fields,
  };
}

/** Starts (or restarts from a snapshot) a job's pump in this worker. */
async function launch(record, job) {
  if (runs.has(record.id)) {
    // Already pumped by this worker (two wake-ups raced): drop the duplicate.
    if (runs.get(record.id).job !== job) job.free();
    return { jobId: record.id };
  }
  // Registered before any await, so concurrent resumes cannot start a second pump.
  const control = { paused: false, cancelled: false, current: record.current, wake: () => {} };
  const run = { record, job, control };
  runs.set(record.id, run);
  record.status = 'running';
  try {
    record.snapshot = job.snapshot();
    await db.put('jobs', record);
  } catch (e) {
    runs.delete(record.id);
    job.free();
    throw e;
  }
  chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
  // Tells open extension pages (the side panel) to look now; nobody listening is fine.
  chrome.runtime.sendMessage({ type: 'jobStarted', jobId: record.id }).catch(() => {});
  drive(run)
    .catch(async (e) => {
      record.status = 'failed';
      record.error = e instanceof Error ? e.message : String(e);
      await db.put('jobs', record).catch(() => {});
    })
    .finally(() => {
      runs.delete(record.id);
      try { job.free(); } catch { /* already freed */ }
      if (runs.size === 0) chrome.alarms.clear(ALARM).catch(() => {});
    });
  return { jobId: record.id };
}

async function checkpoint(run) {
  const { record, job, control } = run;
  record.snapshot = job.snapshot();
  record.progress = job.progress();
  record.traps = job.trapRefusals();
  record.current = control.current;
  record.updatedAt = Date.now();
  await db.put('jobs', record);
}

function noteError(record, url, what, more = {}) {
  record.errors.push({ url, what, at: Date.now(), ...more });
  if (record.errors.length > MAX_ERRORS) record.errors.shift();
}

/** A page not read for passing the page size limit: counted, and the first ones named. */
function noteTooLarge(record, url) {
  record.tooLarge ??= { count: 0, urls: [] };
  record.tooLarge.count += 1;
  if (record.tooLarge.urls.length < MAX_ERRORS) record.tooLarge.urls.push(url);
}

async function onEvents(run, events) {
  const { record } = run;
  for (const e of events) {
    if (e.type === 'fetched') {
      // e.state is the node's state: {state: 'httpError', status} | {state: 'failed', error} | …
      const st = e.state ?? {};
      if (e.depth === 0) record.entryState = st;
      if (st.state === 'httpError') noteError(record, e.url, `HTTP ${st.status}`);
      else if (st.state === 'failed') noteError(record, e.url, st.error);
      else if (st.state === 'offSite') noteError(record, e.url, `redirected off the site to ${st.final_url ?? st.finalUrl}`);
      else if (st.state === 'tooLarge') noteTooLarge(record, e.url);
    } else if (e.type === 'tooLarge') {
      noteTooLarge(record, e.url);
    } else if (e.type === 'page' && (e.status === 0 || e.status >= 400)) {
      noteError(record, e.url, e.status ? `HTTP ${e.status}` : 'failed');
    } else if (e.type === 'sitemapSkipped') {
      // A sitemap not read (missing, unreadable, on a host without access): said, not hidden.
      // `unreachable`: its host answered nothing, so the panel offers to ask for access to it.
      noteError(record, e.url, e.reason, e.unreachable ? { askAccess: true } : {});
    } else if (e.type === 'retry') {
      // The site said "come back later" (429, 503): the request waits and is asked again.
      record.lastRetry = { url: e.url, status: e.status, waitMs: e.waitMs, delayMs: e.delayMs, attempt: e.attempt };
    } else if (e.type === 'query') {
      const { type, ...query } = e;
      record.lastQuery = query;
      // Per form level (each has its own budget): {level: {issued, budget}}.
      record.formLevels = { ...record.formLevels, [e.level]: { issued: e.issued, budget: e.budget } };
    } else if (e.type === 'target') {
      await db.putPage({ ...e, type: undefined, crawlerId: record.crawlerId, jobId: record.id });
    }
  }
}

async function drive(run) {
  const { record, job, control } = run;
  // Keeps the worker alive while it works (each extension API call resets Chrome's idle timer).
  const keepAlive = setInterval(() => chrome.runtime.getPlatformInfo().catch(() => {}), 20_000);
  try {
    const outcome = await pump(job, {
      maxBytes: record.settings.maxBytes,
      timeoutMs: record.settings.timeoutMs,
      control,
      onEvents: (events) => onEvents(run, events),
      onCheckpoint: () => checkpoint(run),
    });
    if (outcome === 'paused') {
      await checkpoint(run);
      record.status = 'paused';
      await db.put('jobs', record);
      return;
    }
    record.stopped = job.stopped() ?? null;
    await checkpoint(run);
    if (record.kind === 'learn') await finishLearn(run);
    else await finishCrawl(run);
  } finally {
    clearInterval(keepAlive);
  }
}

/** The learning result kept for the result view (the pattern itself is in the crawler). */
function learnedSummary(learned) {
  return {
    threshold: learned.threshold,
    rendered: learned.rendered,
    levels: learned.pattern.levels,
    targets: learned.targets,
    similarities: learned.similarities,
    nearMisses: learned.nearMisses,
    thresholdGap: learned.thresholdGap ?? null,
    thresholdLowered: learned.thresholdLowered ?? null,
    thresholdCut: learned.thresholdCut ?? null,
    doubtfulTargets: learned.doubtfulTargets,
    corrections: learned.pattern.corrections ?? { like: [], unlike: [] },
    byHeading: learned.pattern.byHeading ?? [],
    unlikeByHeading: learned.pattern.unlikeByHeading ?? [],
    headingKinds: learned.headingKinds ?? [],
    headingKindsBelow: learned.headingKindsBelow ?? [],
    unlikeByLanguage: learned.pattern.unlikeByLanguage ?? [],
    languageKinds: learned.languageKinds ?? [],
    unlikeByDirectory: learned.pattern.unlikeByDirectory ?? [],
    directoryKinds: learned.directoryKinds ?? [],
    leftUnfetched: learned.leftUnfetched ?? [],
    sitemaps: learned.sitemaps ?? [],
    sitemapsRead: learned.sitemapsRead ?? 0,
    sitemapPages: learned.sitemapPages ?? 0,
    stats: learned.pattern.stats,
  };
}

/** Why the entry page led nowhere, in words, or null when it was an HTML page. */
function entryProblem(record) {
  const st = record.entryState;
  const entry = record.entry;
  if (!st) return null;
  if (st.state === 'notHtml') return `The entry page ${entry} is not an HTML page (${st.media_type || 'no content type'}): choose a page with links.`;
  if (st.state === 'httpError') return `The entry page ${entry} answered HTTP ${st.status}.`;
  if (st.state === 'failed') return `The entry page ${entry} is unreachable: ${st.error}.`;
  if (st.state === 'offSite') return `The entry page ${entry} redirects off the site, to ${st.final_url}.`;
  if (st.state === 'disallowed') return `The site's robots.txt does not allow Exemplar to fetch the entry page ${entry}.`;
  return null;
}

function explainLearnError(e, record) {
  const entry = entryProblem(record);
  if (entry) return entry;
  const message = e instanceof Error ? e.message : String(e);
  if (message.startsWith('no page similar')) {
    return `The example page is not similar to anything found: ${message}. Try another entry page, a lower similarity threshold or more pages.`;
  }
  return `No pattern learned from ${record.entry}: ${message}`;
}

async function finishLearn(run) {
  const { record, job } = run;
  let learned;
  try {
    // A θ the user set in the limits is kept even where only the example reaches it (the panel
    // then names the θ the scores give); the default θ is lowered to that one.
    const theta = record.settings.threshold;
    learned = job.learnPattern(theta === defaultThreshold() ? undefined : theta, Date.now());
  } catch (e) {
    record.status = 'failed';
    record.error = explainLearnError(e, record);
    await db.put('jobs', record);
    return;
  }
  const crawler = {
    id: db.newId('crawler'),
    site: learned.pattern.site,
    entry: record.entry,
    example: record.example,
    exampleBody: record.exampleBody,
    exampleContentType: record.exampleContentType,
    createdAt: Date.now(),
    patternJson: learned.patternJson,
    threshold: learned.threshold,
    learnJobId: record.id,
    settings: record.settings,
    runs: [],
  };
  await db.put('crawlers', crawler);
  record.crawlerId = crawler.id;
  record.result = learnedSummary(learned);
  record.status = 'done';
  await db.put('jobs', record);
  // A cancelled generation keeps what it learned, without starting the crawl the user stopped.
  if (record.settings.crawlAfterLearning && record.stopped !== 'cancelled') await runCrawler({ crawlerId: crawler.id });
}

async function finishCrawl(run) {
  const { record, job } = run;
  const coverage = job.coverage();
  const crawler = await db.get('crawlers', record.crawlerId);
  const pages = await db.pagesOf(record.crawlerId);
  const found = pages.filter((p) => p.jobId === record.id);
  const firstRun = !crawler?.runs?.length;
  const count = (change) => found.filter((p) => db.changeIn(p, record.id, !firstRun) === change).length;
  const newSinceLastRun = count('new');
  const changedSinceLastRun = count('changed');
  record.result = {
    targets: found.length,
    newSinceLastRun,
    changedSinceLastRun,
    queries: record.progress?.queries ?? 0,
    coverage: { known: coverage.known, reached: coverage.reached, missed: coverage.missed, new: coverage.new.length },
  };
  record.status = 'done';
  await db.put('jobs', record);
  if (crawler) {
    crawler.runs.push({
      jobId: record.id, at: Date.now(), targets: found.length, newSinceLastRun, changedSinceLastRun, queries: record.result.queries,
      stopped: record.stopped, scheduled: Boolean(record.scheduled),
    });
    await db.put('crawlers', crawler);
  }
}

/** Restores the jobs that were running when the worker stopped. */
async function resumeRunning() {
  await ready;
  for (const record of await db.all('jobs')) {
    if (record.status !== 'running' || runs.has(record.id) || !record.snapshot) continue;
    try {
      await launch(record, Job.restore(record.snapshot));
    } catch (e) {
      record.status = 'failed';
      record.error = `could not resume: ${e instanceof Error ? e.message : e}`;
      await db.put('jobs', record);
    }
  }
}

function statusOf(record) {
  const run = runs.get(record.id);
  const progress = run ? run.job.progress() : record.progress;
  const elapsedMs = progress?.elapsedMs ?? 0;
  return {
    id: record.id, kind: record.kind, status: record.status, crawlerId: record.crawlerId ?? null,
    entry: record.entry, example: record.example, startedAt: record.startedAt, updatedAt: record.updatedAt,
    progress, rate: elapsedMs > 0 ? (progress.fetched * 1000) / elapsedMs : 0,
    current: run ? run.control.current : record.current, errors: record.errors.slice(-10), errorCount: record.errors.length,
    stopped: record.stopped, error: record.error, result: record.result, settings: record.settings,
    forms: record.forms ?? null, queryBudget: record.queryBudget ?? null, lastQuery: record.lastQuery ?? null,
    formLevels: record.formLevels ?? {}, tooLarge: record.tooLarge ?? { count: 0, urls: [] },
    traps: run ? run.job.trapRefusals() : record.traps ?? [],
    scheduled: Boolean(record.scheduled),
    lastRetry: record.lastRetry ?? null,
  };
}

async function status({ jobId } = {}) {
  if (jobId) {
    const record = runs.get(jobId)?.record ?? (await db.get('jobs', jobId));
    if (!record) throw new Error(`no job ${jobId}`);
    return statusOf(record);
  }
  const records = (await db.all('jobs')).map((r) => runs.get(r.id)?.record ?? r);
  records.sort((a, b) => b.startedAt - a.startedAt);
  return { jobs: records.map(statusOf) };
}

async function pauseJob({ jobId }) {
  const run = runs.get(jobId);
  if (!run) throw new Error(`job ${jobId} is not running`);
  run.control.paused = true;
  run.control.wake();
  for (let i = 0; i < 200 && runs.has(jobId); i++) await new Promise((r) => setTimeout(r, 25));
  return status({ jobId });
}

async function resumeJob({ jobId }) {
  await ready;
  const record = await db.get('jobs', jobId);
  if (!record) throw new Error(`no job ${jobId}`);
  if (runs.has(jobId)) return status({ jobId });
  if (record.status !== 'paused') throw new Error(`job ${jobId} is ${record.status}, not paused`);
  await requireAccess(record.entry);
  await launch(record, Job.restore(record.snapshot));
  return status({ jobId });
}

async function cancelJob({ jobId }) {
  const run = runs.get(jobId);
  if (run) {
    run.control.cancelled = true;
    run.control.wake();
    return status({ jobId });
  }
  const record = await db.get('jobs', jobId);
  if (!record) throw new Error(`no job ${jobId}`);
  if (record.status === 'paused') {
    record.status = 'cancelled';
    await db.put('jobs', record);
  }
  return statusOf(record);
}

/** A list of URLs from a message, or a clear error. */
function urlList(value, name) {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((u) => typeof u !== 'string')) throw new Error(`${name} must be a list of URLs`);
  return value;
}

/** A list of strings from a message, or a clear error. */
function stringList(value, name) {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((u) => typeof u !== 'string')) throw new Error(`${name} must be a list of strings`);
  return value;
}

async function relearn({ jobId, threshold, like, unlike, unlikeHeadings, likeHeadings, unlikeLanguages, likeLanguages, unlikeDirectories, likeDirectories }) {
  await ready;
  const record = await db.get('jobs', jobId);
  if (!record || record.kind !== 'learn') throw new Error(`no learning job ${jobId}`);
  if (record.status !== 'done') throw new Error(`the learning job is ${record.status}`);
  if (typeof threshold !== 'number') throw new Error('threshold must be a number');
  const corrections = {
    like: urlList(like, 'like'), unlike: urlList(unlike, 'unlike'), unlikeHeadings: stringList(unlikeHeadings, 'unlikeHeadings'),
    likeHeadings: stringList(likeHeadings, 'likeHeadings'),
    unlikeLanguages: stringList(unlikeLanguages, 'unlikeLanguages'),
    likeLanguages: stringList(likeLanguages, 'likeLanguages'),
    unlikeDirectories: urlList(unlikeDirectories, 'unlikeDirectories'),
    likeDirectories: urlList(likeDirectories, 'likeDirectories'),
  };
  const job = Job.restore(record.snapshot);
  let learned;
  try {
    learned = job.learnPattern(threshold, Date.now(), corrections);
  } catch (e) {
    throw new Error(explainLearnError(e, record));
  } finally {
    job.free();
  }
  const before = record.result?.thresholdLowered;
  record.result = learnedSummary(learned);
  // Still at the θ learning took from the scores: the reason for it still holds.
  if (before && learned.threshold === before.to) record.result.thresholdLowered = before;
  await db.put('jobs', record);
  const crawler = await db.get('crawlers', record.crawlerId);
  if (crawler) {
    crawler.patternJson = learned.patternJson;
    crawler.threshold = learned.threshold;
    await db.put('crawlers', crawler);
  }
  return record.result;
}

async function crawlers() {
  const list = await db.all('crawlers');
  list.sort((a, b) => b.createdAt - a.createdAt);
  return list.map(({ exampleBody, ...rest }) => rest);
}

async function importPattern({ json }) {
  await ready;
  let pattern;
  try {
    pattern = validatePattern(String(json ?? ''));
  } catch (e) {
    throw new Error(`Not a valid Exemplar pattern: ${e instanceof Error ? e.message : e}`);
  }
  const crawler = {
    id: db.newId('crawler'), site: pattern.site, entry: pattern.entry, example: pattern.example,
    createdAt: Date.now(), patternJson: JSON.stringify(pattern, null, 2), threshold: pattern.similarity?.threshold,
    learnJobId: null, imported: true, settings: { ...defaults(), delayMs: pattern.politeness?.delayMs ?? DEFAULT_SETTINGS.delayMs, threshold: pattern.similarity?.threshold ?? defaultThreshold() },
    runs: [],
  };
  await db.put('crawlers', crawler);
  const { exampleBody, ...rest } = crawler;
  return rest;
}

async function deleteCrawler({ crawlerId }) {
  for (const run of runs.values()) {
    if (run.record.crawlerId === crawlerId) throw new Error('a job of this crawler is running: cancel it first');
  }
  await db.removeCrawler(crawlerId);
  await armSchedule();
  return true;
}

// ------------------------------------------------------------------ scheduled runs

/** Runs a saved crawler again by itself every `everyHours` hours (null: never), the first time
 * at `firstAt` (default: one period from now). */
async function setSchedule({ crawlerId, everyHours, firstAt }) {
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no saved crawler ${crawlerId}`);
  if (everyHours === null || everyHours === undefined) {
    delete crawler.schedule;
  } else {
    if (typeof everyHours !== 'number' || !(everyHours > 0) || !Number.isFinite(everyHours)) {
      throw new Error('everyHours must be a number of hours above 0, or null for no schedule');
    }
    if (firstAt !== undefined && (typeof firstAt !== 'number' || !Number.isFinite(firstAt))) {
      throw new Error('firstAt must be a time in milliseconds since the epoch');
    }
    crawler.schedule = { everyHours, nextAt: firstAt ?? Date.now() + everyHours * HOUR_MS };
  }
  await db.put('crawlers', crawler);
  await armSchedule();
  const { exampleBody, ...rest } = crawler;
  return rest;
}

/** Sets the schedule alarm for the earliest run due (cleared when nothing is scheduled). */
async function armSchedule() {
  const due = (await db.all('crawlers')).map((c) => c.schedule?.nextAt).filter((t) => typeof t === 'number');
  if (due.length === 0) {
    await chrome.alarms.clear(SCHEDULE_ALARM);
    return;
  }
  // Chrome fires a packed extension's alarm 30 s after it is set at the soonest.
  await chrome.alarms.create(SCHEDULE_ALARM, { when: Math.max(Math.min(...due), Date.now() + 1) });
}

// One pass over the schedules at a time: an alarm and a start of the worker that race would
// otherwise both find a crawler due.
let duePass = Promise.resolve();

/** Starts the scheduled runs that are due, once each however many periods passed (the browser
 * was closed), then sets the alarm for the next one. A crawler whose previous run is still
 * going, or that cannot run (site access withdrawn), waits for its next turn, said so. */
function runDue() {
  duePass = duePass.catch(() => {}).then(startDue);
  return duePass;
}

async function startDue() {
  await ready;
  const now = Date.now();
  const jobs = await db.all('jobs');
  for (const crawler of await db.all('crawlers')) {
    const schedule = crawler.schedule;
    if (!schedule || schedule.nextAt > now) continue;
    const period = schedule.everyHours * HOUR_MS;
    const missed = Math.floor((now - schedule.nextAt) / period) + 1;
    schedule.nextAt += missed * period;
    const busy = [...runs.values()].some((r) => r.record.crawlerId === crawler.id) ||
      jobs.some((j) => j.crawlerId === crawler.id && ['running', 'paused'].includes(j.status));
    delete schedule.lastError;
    if (busy) {
      schedule.lastError = `${new Date(now).toISOString()}: not run, its previous run was not over`;
    } else {
      try {
        await runCrawler({ crawlerId: crawler.id, scheduled: true });
      } catch (e) {
        schedule.lastError = `${new Date(now).toISOString()}: ${e instanceof Error ? e.message : e}`;
      }
    }
    // Read again: the run just started may have written the crawler (its settings).
    const fresh = await db.get('crawlers', crawler.id);
    if (fresh?.schedule) {
      fresh.schedule = { ...schedule, everyHours: fresh.schedule.everyHours };
      await db.put('crawlers', fresh);
    }
  }
  await armSchedule();
}

// ------------------------------------------------------------------ dispatch

const handlers = {
  classify: (msg) => classify(msg.html, msg.url),
  classifyTab: (msg) => classifyTab(msg.tabId),
  similarity: async (msg) => {
    await ready;
    return similarity(String(msg.htmlA ?? ''), String(msg.htmlB ?? ''), msg.options ?? undefined);
  },
  tabState: async (msg) => {
    const key = tabKey(msg.tabId);
    return (await chrome.storage.session.get(key))[key] ?? null;
  },
  startLearn,
  startPending,
  runCrawler,
  pauseJob,
  resumeJob,
  cancelJob,
  status,
  relearn,
  crawlers,
  importPattern,
  deleteCrawler,
  setSchedule,
  defaults: async () => {
    await ready;
    return defaults();
  },
};

/** Runs one message; never throws: errors become {ok: false, error}. */
async function dispatch(msg) {
  try {
    const handler = msg && Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
    if (!handler) throw new Error(`unknown message type: ${JSON.stringify(msg?.type)}`);
    return { ok: true, result: await handler(msg) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
// Reachable from DevTools and from tests driving the worker (sw.evaluate).
globalThis.exemplarDispatch = dispatch;

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Only the extension's own pages talk to the worker.
  if (sender.id !== chrome.runtime.id) return false;
  dispatch(msg).then(sendResponse);
  return true; // the reply is asynchronous
});

chrome.tabs.onUpdated.addListener((tabId, info) => {
  if (info.status !== 'complete') return;
  // Without access (no activeTab grant, no host permission, or a browser page) executeScript throws:
  // that tab is simply not classified.
  classifyTab(tabId).catch(() => {});
});

chrome.tabs.onRemoved.addListener((tabId) => {
  chrome.storage.session.remove(tabKey(tabId)).catch(() => {});
});

chrome.permissions.onAdded.addListener(() => {
  startPending().catch(() => {});
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) resumeRunning().catch(() => {});
  if (alarm.name === SCHEDULE_ALARM) runDue().catch(() => {});
});
chrome.runtime.onStartup.addListener(() => {
  resumeRunning().catch(() => {});
  runDue().catch(() => {});
});

// Chrome: the toolbar button opens the popup; the side panel opens from there.
chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: false }).catch(() => {});

// Every start of the worker picks up what a stopped worker left running, and the scheduled runs
// that fell due meanwhile.
resumeRunning().catch(() => {});
runDue().catch(() => {});
