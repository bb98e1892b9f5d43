// The jobs engine: runs learning and crawling jobs (a wasm `Job` pumped by lib/runner.js),
// checkpoints them in IndexedDB every second with the core's snapshot, records their events
// (errors, pages too large, retries, queries, target pages), reports their status, and pauses,
// resumes and cancels them.
//
// The worker may be stopped at any moment (MV3): when it starts again (any message, the alarm,
// the browser starting) running jobs are restored from their last snapshot and go on
// (`resumeRunning`); the result is the same as an uninterrupted run. What a job does once its
// pump is done belongs to its kind (learn.js, crawlers.js), handed in with `finishWith`.
import { DrawnLedger, Job } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { notify } from '../lib/protocol.js';
import { pump } from '../lib/runner.js';
import { requireAccess } from '../lib/site-access.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/db.js').JobRecord} JobRecord */
/** @typedef {import('../lib/protocol.js').JobKind} JobKind */
/** @typedef {import('../lib/protocol.js').JobStatus} JobStatus */
/** @typedef {import('../lib/protocol.js').JobList} JobList */
/** @typedef {import('../lib/core-types.js').CoreEvent} CoreEvent */

/** A job pumped by this worker: its record, the core's job, the pump's control, and what it
 * renders when its pages are drawn by scripts (`record.rendering.on`).
 * @typedef {{record: JobRecord, job: Job, control: import('../lib/runner.js').Control,
 *   render?: import('../lib/render.js').RenderState}} Run */

/** What a job of one kind does when its pump is done (the record is checkpointed).
 * @typedef {(run: Run) => Promise<void>} Finish */

/** The alarm that wakes a stopped worker while jobs run (every 30 s). */
export const ALARM = 'exemplar-resume';
const MAX_ERRORS = 50;

/** Running pumps of this worker's life: jobId → run.
 * @type {Map<string, Run>} */
const runs = new Map();

/** @type {Record<JobKind, Finish>} */
const finishers = {
  learn: async () => { throw new Error('no finish for learning jobs'); },
  crawl: async () => { throw new Error('no finish for crawl jobs'); },
};

/**
 * Sets what each kind of job does when its pump is done (main.js, before any job runs).
 * @param {Record<JobKind, Finish>} byKind
 */
export function finishWith(byKind) {
  Object.assign(finishers, byKind);
}

/**
 * Whether a job of the crawler runs in this worker.
 * @param {string} crawlerId
 */
export const isRunning = (crawlerId) => [...runs.values()].some((r) => r.record.crawlerId === crawlerId);

/**
 * A new job's record.
 * @param {JobKind} kind
 * @param {Pick<JobRecord, 'entry' | 'example' | 'settings'> & Partial<JobRecord>} fields
 * @returns {JobRecord}
 */
export function newRecord(kind, fields) {
  const now = Date.now();
  return {
    id: db.newId(kind), kind, status: 'running', startedAt: now, updatedAt: now,
    progress: null, current: '', errors: [], error: null, stopped: null, result: null, snapshot: null,
    tooLarge: { count: 0, urls: [] },
    ...fields,
  };
}

/**
 * Starts (or restarts from a snapshot) a job's pump in this worker.
 * @param {JobRecord} record
 * @param {Job} job
 * @returns {Promise<{jobId: string}>}
 */
export async function launch(record, job) {
  const running = runs.get(record.id);
  if (running) {
    // Already pumped by this worker (two wake-ups raced): drop the duplicate.
    if (running.job !== job) job.free();
    return { jobId: record.id };
  }
  // Registered before any await, so concurrent resumes cannot start a second pump.
  const control = { paused: false, cancelled: false, current: record.current, wake: () => {} };
  /** @type {Run} */
  const run = { record, job, control };
  if (record.rendering?.on) {
    // The ledger starts anew after a restart: a few pages are probed again.
    const { rendered, failed, firstError } = record.rendering;
    run.render = { ledger: new DrawnLedger(), rendered, failed, firstError };
  }
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
  // Tells open extension pages (the side panel) to look now.
  notify({ type: 'jobStarted', jobId: record.id });
  drive(run)
    .catch(async (e) => {
      record.status = 'failed';
      record.error = e instanceof Error ? e.message : String(e);
      await db.put('jobs', record).catch(() => {});
    })
    .finally(() => {
      runs.delete(record.id);
      try { job.free(); } catch { /* already freed */ }
      try { run.render?.ledger.free(); } catch { /* already freed */ }
      if (runs.size === 0) chrome.alarms.clear(ALARM).catch(() => {});
    });
  return { jobId: record.id };
}

/** @param {Run} run */
async function checkpoint(run) {
  const { record, job, control } = run;
  record.snapshot = job.snapshot();
  record.progress = job.progress();
  record.traps = job.trapRefusals();
  record.current = control.current;
  record.updatedAt = Date.now();
  record.rendering = renderingOf(record, run.render) ?? undefined;
  await db.put('jobs', record);
}

/**
 * A job's rendering with the live counts of its pump, when it renders in this worker.
 * @param {JobRecord} record
 * @param {import('../lib/render.js').RenderState | undefined} render
 */
function renderingOf(record, render) {
  if (!render || !record.rendering) return record.rendering ?? null;
  const { rendered, failed, firstError } = render;
  return { ...record.rendering, rendered, failed, firstError };
}

/**
 * @param {JobRecord} record
 * @param {string} url
 * @param {string} what
 * @param {{askAccess?: boolean}} [more]
 */
function noteError(record, url, what, more = {}) {
  record.errors.push({ url, what, at: Date.now(), ...more });
  if (record.errors.length > MAX_ERRORS) record.errors.shift();
}

/** Links to files no crawl of pages needs (images, styles, scripts, fonts, media, archives,
 * office documents): their failures are counted apart from the pages'. */
const FILE_LINK = /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|map|woff2?|ttf|otf|eot|mp[34]|m4a|webm|ogg|wav|avi|mov|zip|gz|tgz|bz2|xz|7z|rar|pdf|docx?|xlsx?|pptx?|odt|ods)$/i;

/**
 * A fetch that failed: a page's failure is an error; a file's (an image linked from a page) is
 * counted apart, the first ones named.
 * @param {JobRecord} record
 * @param {string} url
 * @param {string} what
 */
function noteFetchError(record, url, what) {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch { /* the URL as it is */ }
  if (!FILE_LINK.test(path)) {
    noteError(record, url, what);
    return;
  }
  record.fileErrors ??= { count: 0, urls: [] };
  record.fileErrors.count += 1;
  if (record.fileErrors.urls.length < 10) record.fileErrors.urls.push(`${url} (${what})`);
}

/**
 * A page not read for passing the page size limit: counted, and the first ones named.
 * @param {JobRecord} record
 * @param {string} url
 */
function noteTooLarge(record, url) {
  record.tooLarge ??= { count: 0, urls: [] };
  record.tooLarge.count += 1;
  if (record.tooLarge.urls.length < MAX_ERRORS) record.tooLarge.urls.push(url);
}

/**
 * @param {Run} run
 * @param {CoreEvent[]} events
 */
async function onEvents(run, events) {
  const { record } = run;
  for (const e of events) {
    if (e.type === 'fetched') {
      // e.state is the node's state: {state: 'httpError', status} | {state: 'failed', error} | …
      const st = e.state ?? { state: '' };
      if (e.depth === 0) record.entryState = st;
      if (st.state === 'httpError') noteFetchError(record, e.url, `HTTP ${st.status}`);
      else if (st.state === 'failed') noteFetchError(record, e.url, st.error ?? 'failed');
      else if (st.state === 'offSite') noteError(record, e.url, `redirected off the site to ${st.final_url ?? st.finalUrl}`);
      else if (st.state === 'tooLarge') noteTooLarge(record, e.url);
    } else if (e.type === 'tooLarge') {
      noteTooLarge(record, e.url);
    } else if (e.type === 'page' && (e.status === 0 || e.status >= 400)) {
      noteFetchError(record, e.url, e.status ? `HTTP ${e.status}` : 'failed');
    } else if (e.type === 'sitemapSkipped') {
      // A sitemap not read (missing, unreadable, on a host without access): said, not hidden.
      // `unreachable`: its host answered nothing, so the panel offers to ask for access to it.
      noteError(record, e.url, e.reason, e.unreachable ? { askAccess: true } : {});
    } else if (e.type === 'retry') {
      // The site said "come back later" (429, 503): the request waits and is asked again.
      record.lastRetry = { url: e.url, status: e.status, waitMs: e.waitMs, delayMs: e.delayMs, attempt: e.attempt };
    } else if (e.type === 'replica') {
      // The site links to itself under another name: the crawl follows those links as its own.
      record.replicaHosts = [...(record.replicaHosts ?? []), e.host];
    } else if (e.type === 'query') {
      const { type, ...query } = e;
      record.lastQuery = query;
      // Per form level (each has its own budget): {level: {issued, budget}}.
      record.formLevels = { ...record.formLevels, [e.level]: { issued: e.issued, budget: e.budget } };
    } else if (e.type === 'target') {
      await db.putPage({ ...e, type: undefined, crawlerId: String(record.crawlerId), jobId: record.id });
    }
  }
}

/** @param {Run} run */
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
      render: run.render,
    });
    if (outcome === 'paused') {
      await checkpoint(run);
      record.status = 'paused';
      await db.put('jobs', record);
      return;
    }
    record.stopped = job.stopped() ?? null;
    await checkpoint(run);
    await finishers[record.kind](run);
  } finally {
    clearInterval(keepAlive);
  }
}

/** Restores the jobs that were running when the worker stopped. */
export async function resumeRunning() {
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

/**
 * A job's status, live while it runs in this worker.
 * @param {JobRecord} record
 * @returns {JobStatus}
 */
function statusOf(record) {
  const run = runs.get(record.id);
  /** @type {import('../lib/core-types.js').Progress | null} */
  const progress = run ? run.job.progress() : record.progress;
  const elapsedMs = progress?.elapsedMs ?? 0;
  return {
    id: record.id, kind: record.kind, status: record.status, crawlerId: record.crawlerId ?? null,
    entry: record.entry, example: record.example, startedAt: record.startedAt, updatedAt: record.updatedAt,
    progress, rate: progress && elapsedMs > 0 ? (progress.fetched * 1000) / elapsedMs : 0,
    current: run ? run.control.current : record.current, errors: record.errors.slice(-10), errorCount: record.errors.length,
    stopped: record.stopped, error: record.error, result: record.result, settings: record.settings,
    forms: record.forms ?? null, queryBudget: record.queryBudget ?? null, lastQuery: record.lastQuery ?? null,
    formLevels: record.formLevels ?? {}, tooLarge: record.tooLarge ?? { count: 0, urls: [] },
    traps: run ? run.job.trapRefusals() : record.traps ?? [],
    scheduled: Boolean(record.scheduled),
    lastRetry: record.lastRetry ?? null,
    replicaHosts: record.replicaHosts ?? [],
    rendering: renderingOf(record, run?.render),
    fieldsError: record.fieldsError ?? null,
    fileErrors: record.fileErrors ?? { count: 0, urls: [] },
  };
}

/**
 * One job's status, or every job's (newest first).
 * @param {{jobId?: string}} [msg]
 * @returns {Promise<JobStatus | JobList>}
 */
export async function status({ jobId } = {}) {
  return jobId ? statusOfJob(jobId) : { jobs: await allStatuses() };
}

/**
 * @param {string} jobId
 * @returns {Promise<JobStatus>}
 */
async function statusOfJob(jobId) {
  const record = runs.get(jobId)?.record ?? (await db.get('jobs', jobId));
  if (!record) throw new Error(`no job ${jobId}`);
  return statusOf(record);
}

/** @returns {Promise<JobStatus[]>} */
async function allStatuses() {
  const records = (await db.all('jobs')).map((r) => runs.get(r.id)?.record ?? r);
  records.sort((a, b) => b.startedAt - a.startedAt);
  return records.map(statusOf);
}

/**
 * @param {{jobId: string}} msg
 * @returns {Promise<JobStatus>}
 */
export async function pauseJob({ jobId }) {
  const run = runs.get(jobId);
  if (!run) throw new Error(`job ${jobId} is not running`);
  run.control.paused = true;
  run.control.wake();
  for (let i = 0; i < 200 && runs.has(jobId); i++) await new Promise((r) => setTimeout(r, 25));
  return statusOfJob(jobId);
}

/**
 * @param {{jobId: string}} msg
 * @returns {Promise<JobStatus>}
 */
export async function resumeJob({ jobId }) {
  await ready;
  const record = await db.get('jobs', jobId);
  if (!record) throw new Error(`no job ${jobId}`);
  if (runs.has(jobId)) return statusOfJob(jobId);
  if (record.status !== 'paused') throw new Error(`job ${jobId} is ${record.status}, not paused`);
  if (!record.snapshot) throw new Error(`job ${jobId} has no snapshot to resume from`);
  await requireAccess(record.entry);
  await launch(record, Job.restore(record.snapshot));
  return statusOfJob(jobId);
}

/**
 * @param {{jobId: string}} msg
 * @returns {Promise<JobStatus>}
 */
export async function cancelJob({ jobId }) {
  const run = runs.get(jobId);
  if (run) {
    run.control.cancelled = true;
    run.control.wake();
    return statusOfJob(jobId);
  }
  const record = await db.get('jobs', jobId);
  if (!record) throw new Error(`no job ${jobId}`);
  if (record.status === 'paused') {
    record.status = 'cancelled';
    await db.put('jobs', record);
  }
  return statusOf(record);
}
