// Page kinds: a page's or a tab's classification by the core, shown on the toolbar badge (LIST,
// ITEM) with its confidence in the button's title, and kept per tab in storage.session until the
// tab closes (the popup reads it where it cannot read the page).
import { classifyPage } from '../pkg/exemplar.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/protocol.js').Classification} Classification */
/** @typedef {import('../lib/protocol.js').TabClassification} TabClassification */

/** @type {Record<string, string>} */
const BADGE = { index: 'LIST', entity: 'ITEM', other: '' };
/** The toolbar icon of each kind (extension/icons/, rendered by tools/icons.mjs). */
const ICONS = { index: 'list', entity: 'item', other: 'exemplar' };
/** The kinds in words, for the button's title. */
const WORDS = { index: 'a listing page', entity: 'an item page', other: 'neither an item nor a listing page' };
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
  const words = WORDS[/** @type {keyof typeof WORDS} */ (result.kind)] ?? 'a page';
  // The button's icon tells the kind too: a page, or a list of rows.
  const icon = ICONS[/** @type {keyof typeof ICONS} */ (result.kind)] ?? 'exemplar';
  await chrome.action.setIcon({ tabId, path: Object.fromEntries([16, 32, 48, 128].map((n) => [n, `/icons/${icon}-${n}.png`])) });
  await chrome.action.setTitle({ tabId, title: `Exemplar: ${words} (${percent}% confidence)` });
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
