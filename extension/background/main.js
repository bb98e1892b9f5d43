// Exemplar's service worker (Chrome) / background script (Firefox), its entry: the dispatch table
// of the message protocol (lib/protocol.js has every message's fields and reply) and the browser's
// events. Page kinds on the toolbar badge (badge.js); learning (learn.js) and crawling
// (crawlers.js) jobs run by the Rust core (WebAssembly) with the browser's fetch (jobs.js);
// "Find more sites like this" (discover.js); scheduled runs (schedule.js); settings (settings.js).
//
// MV3 rules kept here and in every module it imports: static imports only, no top-level await,
// listeners registered synchronously, one memoized init() promise (wasm.js's `ready`) awaited by
// every handler.
import { similarity } from '../pkg/exemplar.js';
import { classify, classifyTab, forgetTab, tabState } from './badge.js';
import { crawlers, deleteCrawler, finishCrawl, importPattern, renameCrawler, runCrawler } from './crawlers.js';
import { detectSite } from './detect.js';
import { discoverServices, endStaleDiscovery, startDiscovery, stopDiscovery } from './discover.js';
import { crawlerFields, editFields, fieldPicked, showFields } from './fields.js';
import { ALARM, cancelJob, finishWith, pauseJob, resumeJob, resumeRunning, status } from './jobs.js';
import { finishLearn, relearn, startLearn, startPending } from './learn.js';
import { SCHEDULE_ALARM, armSchedule, runDue, setSchedule } from './schedule.js';
import { defaults } from './settings.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/protocol.js').Protocol} Protocol */
/** @typedef {import('../lib/protocol.js').MessageType} MessageType */
/** @template {MessageType} T @typedef {import('../lib/protocol.js').Message<T>} Message */
/** @template {MessageType} T @typedef {import('../lib/protocol.js').Result<T>} Result */
/** @template T @typedef {import('../lib/protocol.js').Reply<T>} Reply */

finishWith({ learn: finishLearn, crawl: finishCrawl });

/** Each message type's handler: its message → its result.
 * @type {{[T in MessageType]: (msg: Message<T>) => Promise<Result<T>>}} */
const handlers = {
  classify: (msg) => classify(msg.html, msg.url),
  classifyTab: (msg) => classifyTab(msg.tabId),
  similarity: async (msg) => {
    await ready;
    // No options: the core's defaults (its .d.ts asks for an object; undefined is taken as none).
    const options = /** @type {import('../lib/protocol.js').SimilarityOptions} */ (msg.options ?? undefined);
    return similarity(String(msg.htmlA ?? ''), String(msg.htmlB ?? ''), options);
  },
  tabState: (msg) => tabState(msg.tabId),
  detect: detectSite,
  discover: startDiscovery,
  stopDiscovery,
  discoverServices,
  startLearn,
  startPending,
  runCrawler,
  pauseJob,
  resumeJob,
  cancelJob,
  status,
  relearn,
  crawlers,
  renameCrawler,
  importPattern,
  deleteCrawler: async (msg) => {
    await deleteCrawler(msg);
    await armSchedule();
    return true;
  },
  setSchedule,
  defaults: async () => {
    await ready;
    return defaults();
  },
  crawlerFields,
  editFields,
  showFields,
};

/**
 * Runs one message; never throws: errors become {ok: false, error}.
 * @param {unknown} msg
 * @returns {Promise<Reply<unknown>>}
 */
async function dispatch(msg) {
  try {
    const type = /** @type {{type?: unknown} | null | undefined} */ (msg)?.type;
    if (typeof type !== 'string' || !Object.hasOwn(handlers, type)) throw new Error(`unknown message type: ${JSON.stringify(type)}`);
    // The message is the sender's: each handler checks the fields it reads.
    const handler = /** @type {(msg: unknown) => Promise<unknown>} */ (handlers[/** @type {MessageType} */ (type)]);
    return { ok: true, result: await handler(msg) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
// Reachable from DevTools and from tests driving the worker (sw.evaluate).
Object.assign(globalThis, { exemplarDispatch: dispatch });

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return false;
  // Only the extension's own pages talk to the worker. The content script of the fields view
  // (content/fields.js) runs in a web page: it may only say which element was picked.
  if (!sender.url?.startsWith(chrome.runtime.getURL(''))) {
    if (/** @type {{type?: unknown} | null} */ (msg)?.type === 'fieldPicked') fieldPicked(msg, sender.tab?.id).catch(() => {});
    return false;
  }
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
  forgetTab(tabId).catch(() => {});
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
// that fell due meanwhile; a search for more sites it left running is over.
resumeRunning().catch(() => {});
runDue().catch(() => {});
endStaleDiscovery().catch(() => {});
