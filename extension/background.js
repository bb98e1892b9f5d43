// Exemplar's service worker: classifies pages with the Rust core (WebAssembly) and shows the page kind
// on the toolbar badge.
//
// Message table (chrome.runtime.sendMessage(msg) → reply). Every reply is {ok: true, result} or
// {ok: false, error: string}.
//
// | msg.type      | fields                          | result                                                 |
// |---------------|---------------------------------|--------------------------------------------------------|
// | 'classify'    | html, url                       | {kind: 'index'|'entity'|'other', confidence, evidence} |
// | 'classifyTab' | tabId                           | same, plus url: the tab's HTML is read with            |
// |               |                                 | chrome.scripting (needs activeTab or a host permission)|
// | 'similarity'  | htmlA, htmlB, options?          | {similarity, distance, sizeA, sizeB, similar, threshold}|
// | 'tabState'    | tabId                           | the last classification of that tab, or null           |
//
// On tabs.onUpdated (status 'complete') the tab is classified when the extension may read it (activeTab
// or a granted host permission); otherwise it is quietly skipped. The result goes to the badge
// ('IDX' / 'ENT' / ''), the action title and storage.session (so it survives the worker being evicted).
//
// MV3 rules kept here: static import only, no top-level await, listeners registered synchronously,
// one memoized init() promise awaited by every handler.
import init, { classifyPage, similarity } from './pkg/exemplar.js';

const ready = init({ module_or_path: chrome.runtime.getURL('pkg/exemplar_bg.wasm') });

const BADGE = { index: 'IDX', entity: 'ENT', other: '' };
const tabKey = (tabId) => `tab:${tabId}`;

async function classify(html, url) {
  await ready;
  return classifyPage(String(html ?? ''), String(url ?? ''));
}

// The page's own HTML as the browser has it now (after scripts ran).
async function readTab(tabId) {
  const [injection] = await chrome.scripting.executeScript({
    target: { tabId },
    func: () => ({ html: document.documentElement.outerHTML, url: location.href }),
  });
  if (!injection || !injection.result) throw new Error(`could not read tab ${tabId}`);
  return injection.result;
}

async function classifyTab(tabId) {
  const page = await readTab(tabId);
  const result = { ...(await classify(page.html, page.url)), url: page.url };
  await chrome.storage.session.set({ [tabKey(tabId)]: result });
  await showOnBadge(tabId, result);
  return result;
}

async function showOnBadge(tabId, result) {
  const percent = Math.round(result.confidence * 100);
  await chrome.action.setBadgeText({ tabId, text: BADGE[result.kind] ?? '' });
  await chrome.action.setTitle({ tabId, title: `Exemplar: ${result.kind} page (${percent}% confidence)` });
}

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

chrome.runtime.onMessage.addListener((msg, _sender, sendResponse) => {
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
