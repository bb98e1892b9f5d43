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
// is scrolled to the bottom until it stops growing (infinite scrolling, "load more" on scroll).
// Timers longer than QUIET_MS are not waited for: the CLI's headless Chromium, which has virtual
// time, is the tool for those pages.

/** @typedef {import('../pkg/exemplar.js').DrawnLedger} DrawnLedger */
/** @typedef {import('./runner.js').FetchResult} FetchResult */

/** A page quiet this long (no DOM change) is drawn. */
const QUIET_MS = 800;
/** The longest a page is waited for, load, drawing and scrolling together. */
const MAX_WAIT_MS = 20_000;
/** Scrolls to the bottom at most. */
const MAX_SCROLLS = 100;
/** The longest a render takes, the tab's load included. */
const RENDER_TIMEOUT_MS = 45_000;

/**
 * What a render job keeps: the core's ledger and the counts the panel shows.
 * @typedef {{ledger: DrawnLedger, rendered: number, failed: number, firstError: string | null}} RenderState
 */

/** Renders run one after another: the queue's tail.
 * @type {Promise<unknown>} */
let queue = Promise.resolve();

/**
 * Runs in the page's tab (an isolated world): waits for the page to be drawn, scrolls it to its
 * end, and returns its DOM. Self-contained: it is serialised into the tab.
 * @param {{quietMs: number, maxWaitMs: number, maxScrolls: number}} o
 * @returns {Promise<{html: string, url: string, scrolls: number}>}
 */
async function drawnPage(o) {
  const start = Date.now();
  let changed = Date.now();
  const observer = new MutationObserver(() => { changed = Date.now(); });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  const late = () => Date.now() - start >= o.maxWaitMs;
  const quiet = async () => {
    while (!late() && Date.now() - changed < o.quietMs) await sleep(100);
  };
  const size = () => `${document.documentElement.scrollHeight}:${document.getElementsByTagName('*').length}`;
  await quiet();
  let scrolls = 0;
  let still = 0;
  let before = size();
  for (let i = 0; i < o.maxScrolls && !late(); i++) {
    window.scrollTo(0, document.documentElement.scrollHeight);
    // Sent too: a page in a background tab may draw no frame to send it.
    window.dispatchEvent(new Event('scroll'));
    changed = Date.now();
    await quiet();
    const now = size();
    if (now === before) {
      still += 1;
      if (still >= 2) break;
    } else {
      still = 0;
      scrolls += 1;
      before = now;
    }
  }
  observer.disconnect();
  return { html: document.documentElement.outerHTML, url: location.href, scrolls };
}

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
    const read = chrome.scripting.executeScript({
      target: { tabId },
      func: drawnPage,
      args: [{ quietMs: QUIET_MS, maxWaitMs: Math.min(MAX_WAIT_MS, deadline - Date.now()), maxScrolls: MAX_SCROLLS }],
    });
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the page took too long to draw')), Math.max(0, deadline - Date.now())));
    const results = /** @type {{result?: {html: string, url: string, scrolls: number}}[]} */ (await Promise.race([read, timeout]));
    const drawn = results?.[0]?.result;
    if (!drawn || typeof drawn.html !== 'string') throw new Error('the page could not be read');
    return drawn;
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
