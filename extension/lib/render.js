// Pages drawn by scripts, rendered by the browser itself: each page is opened in a background
// tab (the user's browser, the user's session), read once its scripts have drawn it and it has
// been scrolled to its end, then closed. Pages are data: the tab's DOM comes back as text,
// parsed by the core; nothing of it runs in an extension page.
//
// Contract:
//   renderPage(url)       → {html, url, scrolls}: one page at a time, within RENDER_TIMEOUT_MS;
//                            throws when the page does not load or cannot be read (no site access)
//   drawnStep(result, r)  → the fetch result of a page, its body replaced by the rendered DOM
//                            where the core's DrawnLedger says rendering that page is worth it
// A page is drawn when the DOM has not changed for QUIET_MS (or MAX_WAIT_MS have passed); then it
// is scrolled to the bottom, and its "load more" button pressed, until it stops growing
// (page-steps.js, which the command line's renderer runs too).
// Timers longer than QUIET_MS are not waited for: the CLI's headless Chromium, which has virtual
// time, is the tool for those pages.

import { loadMoreWords } from '../pkg/exemplar.js';
import { moreStep, quietSize } from './page-steps.js';

/** @typedef {import('../pkg/exemplar.js').DrawnLedger} DrawnLedger */
/** @typedef {import('./runner.js').FetchResult} FetchResult */

/** A page quiet this long (no DOM change) is drawn. */
const QUIET_MS = 800;
/** The longest one wait for a page's DOM to be quiet (RENDER_TIMEOUT_MS bounds the whole render). */
const MAX_WAIT_MS = 20_000;
/** Scrolls to the bottom at most. */
const MAX_SCROLLS = 100;
/** The longest a render takes, the tab's load included. */
const RENDER_TIMEOUT_MS = 45_000;

/**
 * What a render job keeps: the core's ledger and the counts the panel shows.
 * @typedef {{ledger: DrawnLedger, rendered: number, failed: number, firstError: string | null}} RenderState
 */

/** @type {string[] | null} */
let moreWords = null;
/** What a "load more" button says (the core's data/load-more-words.txt). */
const words = () => (moreWords ??= loadMoreWords());

/** Renders run one after another: the queue's tail.
 * @type {Promise<unknown>} */
let queue = Promise.resolve();

/**
 * Waits until the tab has loaded.
 * @param {number} tabId
 * @param {number} deadline ms since the epoch
 */
function loaded(tabId, deadline) {
  return new Promise((resolve, reject) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const done = (/** @type {Error | null} */ e) => {
      chrome.tabs.onUpdated.removeListener(listener);
      clearTimeout(timer);
      if (e) reject(e);
      else resolve(undefined);
    };
    /** @param {number} id @param {{status?: string}} change */
    const listener = (id, change) => {
      if (id === tabId && change.status === 'complete') done(null);
    };
    chrome.tabs.onUpdated.addListener(listener);
    timer = setTimeout(() => done(new Error('the page did not finish loading')), Math.max(0, deadline - Date.now()));
    // It may have loaded before the listener was added.
    chrome.tabs.get(tabId).then((t) => { if (t.status === 'complete') done(null); }, (e) => done(e));
  });
}

/**
 * Renders one page in a background tab.
 * @param {string} url
 * @returns {Promise<{html: string, url: string, scrolls: number}>}
 */
async function renderNow(url) {
  const deadline = Date.now() + RENDER_TIMEOUT_MS;
  const tab = await chrome.tabs.create({ url, active: false });
  const tabId = tab.id;
  if (tabId === undefined) throw new Error('no tab to render in');
  try {
    await loaded(tabId, deadline);
    /**
     * Runs one of page-steps.js's functions in the tab, within the deadline.
     * @template {(...args: any[]) => any} F
     * @param {F} func
     * @param {Parameters<F>} args
     * @returns {Promise<Awaited<ReturnType<F>>>}
     */
    const inPage = async (func, args) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the page took too long to draw')), Math.max(0, deadline - Date.now()));
      });
      const run = chrome.scripting.executeScript({ target: { tabId }, func, args });
      const results = /** @type {{result?: Awaited<ReturnType<F>>}[]} */ (await Promise.race([run, timeout]).finally(() => clearTimeout(timer)));
      const result = results?.[0]?.result;
      if (result === undefined) throw new Error('the page could not be read');
      return result;
    };
    const wait = () => Math.max(0, Math.min(MAX_WAIT_MS, deadline - Date.now()));
    // Drawn, then scrolled (and its "load more" pressed) until it stops growing.
    let before = await inPage(quietSize, [QUIET_MS, wait()]);
    let scrolls = 0;
    for (let still = 0, i = 0; i < MAX_SCROLLS && still < 2 && Date.now() < deadline; i++) {
      await inPage(moreStep, [words()]);
      const now = await inPage(quietSize, [QUIET_MS, wait()]);
      if (now === before) {
        still += 1;
      } else {
        still = 0;
        scrolls += 1;
        before = now;
      }
    }
    const page = await inPage(() => ({ html: document.documentElement.outerHTML, url: location.href }), []);
    return { ...page, scrolls };
  } finally {
    await chrome.tabs.remove(tabId).catch(() => {});
  }
}

/**
 * Renders `url` once the renders before it are done.
 * @param {string} url
 * @returns {Promise<{html: string, url: string, scrolls: number}>}
 */
export function renderPage(url) {
  const next = queue.then(() => renderNow(url));
  queue = next.catch(() => {});
  return next;
}

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/**
 * A page's fetch result, drawn: where the ledger wants it (an HTML page with a script that runs,
 * of a URL shape whose renders change something), its body becomes the rendered DOM (UTF-8,
 * said so in its Content-Type). A page that cannot be rendered keeps its fetched body.
 * @param {FetchResult} result
 * @param {RenderState} state
 * @returns {Promise<FetchResult>}
 */
export async function drawnStep(result, state) {
  if (result.error !== undefined || result.status < 200 || result.status >= 300 || result.truncated) return result;
  const type = result.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (!HTML_TYPE.test(type) || result.body.length === 0) return result;
  if (!state.ledger.wants(result.finalUrl, result.body)) return result;
  try {
    const drawn = await renderPage(result.finalUrl);
    state.ledger.record(result.finalUrl, result.body, type, drawn.html);
    state.rendered += 1;
    /** @type {[string, string][]} */
    const headers = result.headers.filter(([k]) => k.toLowerCase() !== 'content-type');
    headers.push(['content-type', 'text/html; charset=utf-8']);
    return { ...result, headers, body: new TextEncoder().encode(drawn.html) };
  } catch (e) {
    state.failed += 1;
    state.firstError ??= `${result.finalUrl}: ${e instanceof Error ? e.message : e}`;
    return result;
  }
}
