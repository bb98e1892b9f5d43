// Page kinds: a page's or a tab's classification by the core, shown on the toolbar badge (IDX,
// ENT) with its confidence in the button's title, and kept per tab in storage.session until the
// tab closes (the popup reads it where it cannot read the page).
import { classifyPage } from '../pkg/exemplar.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/protocol.js').Classification} Classification */
/** @typedef {import('../lib/protocol.js').TabClassification} TabClassification */

/** @type {Record<string, string>} */
const BADGE = { index: 'IDX', entity: 'ENT', other: '' };
/** @param {number} tabId */
const tabKey = (tabId) => `tab:${tabId}`;

/**
 * A page's kind from its HTML.
 * @param {unknown} html
 * @param {unknown} url
 * @returns {Promise<Classification>}
 */
export async function classify(html, url) {
  await ready;
  return classifyPage(String(html ?? ''), String(url ?? ''));
}

/**
 * The page's own HTML as the browser has it now (after scripts ran).
 * @param {number} tabId
 */
async function readTab(tabId) {
  const [injection] = await chrome.scripting.executeScript({
    target: { tabId },
    func: () => ({ html: document.documentElement.outerHTML, url: location.href, referrer: document.referrer }),
  });
  if (!injection || !injection.result) throw new Error(`could not read tab ${tabId}`);
  return injection.result;
}

/**
 * The tab's kind, from its live DOM (needs activeTab or site access), shown on its badge and kept.
 * @param {number} tabId
 * @returns {Promise<TabClassification>}
 */
export async function classifyTab(tabId) {
  const page = await readTab(tabId);
  const result = { ...(await classify(page.html, page.url)), url: page.url, referrer: page.referrer };
  // The badge first: a stored state then means the toolbar already shows it (readers of the
  // state, the popup and tests, never see a stored kind beside a stale title).
  await showOnBadge(tabId, result);
  await chrome.storage.session.set({ [tabKey(tabId)]: result });
  return result;
}

/**
 * @param {number} tabId
 * @param {Classification} result
 */
async function showOnBadge(tabId, result) {
  const percent = Math.round(result.confidence * 100);
  await chrome.action.setBadgeText({ tabId, text: BADGE[result.kind] ?? '' });
  await chrome.action.setTitle({ tabId, title: `Exemplar: ${result.kind} page (${percent}% confidence)` });
}

/**
 * The tab's last classification, or null.
 * @param {number} tabId
 * @returns {Promise<TabClassification | null>}
 */
export async function tabState(tabId) {
  const key = tabKey(tabId);
  const stored = /** @type {TabClassification | undefined} */ ((await chrome.storage.session.get(key))[key]);
  return stored ?? null;
}

/**
 * Forgets a closed tab's classification.
 * @param {number} tabId
 */
export function forgetTab(tabId) {
  return chrome.storage.session.remove(tabKey(tabId));
}
