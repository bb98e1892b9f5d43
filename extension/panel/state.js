// The panel's state and its refresh: the jobs and saved crawlers the background last reported,
// the crawler shown, its stored pages; `refresh` asks the background again and redraws (main.js
// hands the redraw in with `onRedraw`), `act` runs a user's action then refreshes.
import { $ } from '../lib/dom.js';
import { send } from '../lib/protocol.js';

/** @typedef {import('../lib/protocol.js').JobStatus} JobStatus */
/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */
/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */
/** @typedef {import('../lib/protocol.js').CrawlResult} CrawlResult */

export const state = {
  /** @type {JobStatus[]} */
  jobs: [],
  /** @type {CrawlerSummary[]} */
  crawlers: [],
  /** The crawler shown (?crawler=ID opens one). @type {string | null} */
  selected: new URLSearchParams(location.search).get('crawler'),
  /** What the stored pages were read for (crawler, targets, last crawl). */
  pagesKey: '',
  /** @type {import('../lib/db.js').PageSummary[]} */
  pages: [],
};

/** The job to show: running or paused first, else the newest. */
export const currentJob = () => state.jobs.find((j) => j.status === 'running') ?? state.jobs.find((j) => j.status === 'paused') ?? state.jobs[0];

export function selectedCrawler() {
  return state.crawlers.find((c) => c.id === state.selected) ?? null;
}

/**
 * A learning job's result (null for a crawl, or before it is done).
 * @param {JobStatus | undefined} job
 */
export const learnedOf = (job) => (job?.kind === 'learn' ? /** @type {LearnedSummary | null} */ (job.result) : null);

/**
 * A crawl's result (null for a learning job, or before it is done).
 * @param {JobStatus | undefined} job
 */
export const crawlResultOf = (job) => (job?.kind === 'crawl' ? /** @type {CrawlResult | null} */ (job.result) : null);

let redraw = () => {};

/**
 * Sets what draws the panel from the state.
 * @param {() => void} fn
 */
export function onRedraw(fn) {
  redraw = fn;
}

/**
 * Shows crawler `id`.
 * @param {string} id
 */
export function select(id) {
  state.selected = id;
  state.pagesKey = '';
  redraw();
}

// Refreshes overlap (the poll, an action's, a job started): each is numbered, and one whose
// answer arrives after a later one's is dropped, so a state read before an action's (the result
// before a re-learn) never redraws over the newer one.
let refreshesAsked = 0;
let refreshDrawn = 0;

export async function refresh() {
  const asked = ++refreshesAsked;
  try {
    const [{ jobs }, crawlers] = await Promise.all([send({ type: 'status' }), send({ type: 'crawlers' })]);
    if (asked < refreshDrawn) return;
    refreshDrawn = asked;
    state.jobs = jobs;
    state.crawlers = crawlers;
    redraw();
  } catch (e) {
    $('job-error').textContent = e instanceof Error ? e.message : String(e);
  }
}

/**
 * Runs a user's action, its error in `statusEl`, then refreshes.
 * @param {() => unknown} fn
 * @param {HTMLElement} [statusEl]
 */
export async function act(fn, statusEl = $('job-error')) {
  statusEl.textContent = '';
  try {
    await fn();
  } catch (e) {
    statusEl.textContent = e instanceof Error ? e.message : String(e);
  }
  await refresh();
}
