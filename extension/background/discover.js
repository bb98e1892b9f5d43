// "Find more sites like this": from a saved crawler's pages, the core's discovery (wasm
// DiscoverJob) looks for other sites with pages of the same kind, through the search engine and
// the backlink service the user set (templates, kept in storage.local), pumped with the browser's
// fetch as the other jobs are. One discovery runs at a time; its state is kept in
// storage.session (key `discovery`) for the side panel, updated as it goes.
//
// Site access: nothing is fetched from a site the extension may not read. A page of a site
// without access is refused before any request (the pump's `refuse`), and the site is listed
// under `noAccess`, for the user to allow and search again.
import { DiscoverJob, seedsOfPattern } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { pump } from '../lib/runner.js';
import { hostPattern, requireAccess } from '../lib/site-access.js';
import { defaults } from './settings.js';
import { ready } from './wasm.js';

/** The storage.session key of the discovery's state. */
export const KEY = 'discovery';
/** The storage.local key of the user's services: {search, backlinks}. */
export const SERVICES = 'discoverServices';
/** Pages a discovery reads unless told otherwise. */
export const DEFAULT_FETCHES = 500;
/** Sites listed without access, at most. */
const MAX_NO_ACCESS = 50;

/** @typedef {import('../lib/protocol.js').DiscoveryState} DiscoveryState */
/** @typedef {import('../lib/protocol.js').DiscoverServices} DiscoverServices */

/** The running discovery's control, if one runs. @type {import('../lib/runner.js').Control | null} */
let running = null;

/**
 * A search engine's results-page URL template: `text` as given when it holds `{q}`; else the URL
 * of a search made for the word "exemplar", whose query parameter holding that word becomes
 * `{q}`. Empty text: no search engine.
 * @param {string} text
 * @returns {string | null}
 */
export function searchTemplateOf(text) {
  const t = text.trim();
  if (!t) return null;
  let url;
  try {
    url = new URL(t.replace('{q}', 'exemplar'));
  } catch {
    throw new Error(`the search engine must be a web address, not ${JSON.stringify(t)}`);
  }
  if (!/^https?:$/.test(url.protocol)) throw new Error(`the search engine must be an http(s) address, not ${t}`);
  if (t.includes('{q}')) return t;
  const params = [...url.searchParams].filter(([, v]) => v.toLowerCase() === 'exemplar');
  if (params.length !== 1) {
    throw new Error('the search engine address needs {q} where the words go (or search it for the word exemplar and give the results page\'s address)');
  }
  url.searchParams.set(params[0][0], '{q}');
  return url.href.replace(encodeURIComponent('{q}'), '{q}');
}

/**
 * A backlink service's template: `{url}` where the page's address goes. Empty: none.
 * @param {string} text
 * @returns {string | null}
 */
export function backlinksTemplateOf(text) {
  const t = text.trim();
  if (!t) return null;
  if (!t.includes('{url}')) throw new Error('the backlink service\'s address needs {url} where the page\'s address goes');
  try {
    if (!/^https?:$/.test(new URL(t.replace('{url}', 'x')).protocol)) throw new Error();
  } catch {
    throw new Error(`the backlink service must be an http(s) address, not ${t}`);
  }
  return t;
}

/**
 * The services the user set last (blank when never set).
 * @returns {Promise<DiscoverServices>}
 */
export async function discoverServices() {
  const kept = /** @type {Partial<DiscoverServices> | undefined} */ ((await chrome.storage.local.get(SERVICES))[SERVICES]);
  return { search: kept?.search ?? '', backlinks: kept?.backlinks ?? '' };
}

/**
 * Keeps the discovery's state for the panel.
 * @param {DiscoveryState} state
 */
async function keep(state) {
  await chrome.storage.session.set({ [KEY]: state }).catch(() => {});
}

/**
 * Starts "Find more sites like this" from a saved crawler (its example, known targets and
 * samples are the seeds); answers at once, the state follows in storage.session.
 * @param {{crawlerId: string, search?: string, backlinks?: string, maxFetches?: number}} msg
 * @returns {Promise<{started: true}>}
 */
export async function startDiscovery(msg) {
  await ready;
  if (running) throw new Error('a search for more sites is running: stop it first');
  const crawler = await db.get('crawlers', String(msg.crawlerId));
  if (!crawler) throw new Error(`no saved crawler ${msg.crawlerId}`);
  const search = searchTemplateOf(String(msg.search ?? ''));
  const backlinks = backlinksTemplateOf(String(msg.backlinks ?? ''));
  // Neither set: forward crawl alone still finds the sites the seeds' pages link.
  const maxFetches = msg.maxFetches ?? DEFAULT_FETCHES;
  if (!(Number.isInteger(maxFetches) && maxFetches >= 1 && maxFetches <= 20_000)) {
    throw new Error('the pages to read must be a whole number between 1 and 20000');
  }
  for (const t of [search, backlinks]) if (t) await requireAccess(t.replace(/\{(q|url)\}/, 'x'));
  await chrome.storage.local.set({ [SERVICES]: { search: search ?? '', backlinks: backlinks ?? '' } });
  const seeds = seedsOfPattern(crawler.patternJson);
  const settings = { ...defaults(), ...crawler.settings };
  const job = new DiscoverJob(seeds, {
    ...(search ? { search } : {}),
    ...(backlinks ? { backlinks } : {}),
    maxFetches,
    delayMs: settings.delayMs,
    concurrency: settings.concurrency,
    obeyRobots: settings.obeyRobots,
    maxBytes: settings.maxBytes,
  });
  /** @type {DiscoveryState} */
  const state = {
    crawlerId: crawler.id, status: 'running', startedAt: Date.now(), maxFetches,
    sites: [], refused: 0, replicas: [], fetches: 0, queries: 0, problems: [], noAccess: [], error: null,
  };
  /** @type {Map<string, boolean>} */
  const access = new Map();
  /** @type {Set<string>} */
  const noAccess = new Set();
  const control = { paused: false, cancelled: false, current: '', wake: () => {} };
  running = control;
  const update = async (/** @type {DiscoveryState['status']} */ status) => {
    const r = job.result();
    Object.assign(state, {
      status, sites: r.sites, refused: r.refused.length, replicas: r.replicas.slice(0, MAX_NO_ACCESS),
      fetches: r.fetches, queries: r.queries,
      problems: r.problems.slice(0, 20), noAccess: [...noAccess].slice(0, MAX_NO_ACCESS),
    });
    await keep(state);
  };
  await keep(state);
  (async () => {
    try {
      const ended = await pump(/** @type {any} */ (job), {
        maxBytes: settings.maxBytes,
        control,
        onEvents: async () => {},
        onCheckpoint: () => update('running'),
        refuse: async (url) => {
          const pattern = hostPattern(url);
          let ok = access.get(pattern);
          if (ok === undefined) {
            ok = await chrome.permissions.contains({ origins: [pattern] });
            access.set(pattern, ok);
          }
          if (ok) return null;
          noAccess.add(new URL(url).origin);
          return `no access to ${new URL(url).origin}: not fetched`;
        },
      });
      await update(control.cancelled ? 'stopped' : ended === 'done' ? 'done' : 'stopped');
    } catch (e) {
      state.error = e instanceof Error ? e.message : String(e);
      await update('failed').catch(() => keep({ ...state, status: 'failed' }));
    } finally {
      running = null;
      job.free();
    }
  })();
  return { started: true };
}

/**
 * At the worker's start: a discovery the state says is running died with the worker that ran it
 * (a search is not saved); it is marked stopped, with the sites it had found.
 * @returns {Promise<void>}
 */
export async function endStaleDiscovery() {
  if (running) return;
  const kept = /** @type {DiscoveryState | undefined} */ ((await chrome.storage.session.get(KEY))[KEY]);
  if (kept?.status !== 'running') return;
  await keep({ ...kept, status: 'stopped', problems: ['The browser stopped Exemplar in the middle: the sites found until then are kept.', ...kept.problems] });
}

/**
 * Stops the running discovery (it keeps the sites found so far).
 * @returns {Promise<boolean>} whether one was running
 */
export async function stopDiscovery() {
  if (!running) return false;
  running.cancelled = true;
  running.wake();
  return true;
}
