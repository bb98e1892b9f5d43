// The toolbar popup: the current tab's page kind with its evidence in words, the "This is an
// example page" button that starts a crawler generation (asking site access first, with the
// limits of the generation: the defaults the background sends), and "Find item pages", which
// lists the site's sections of item pages, each of which can start a generation (the side panel,
// opened with it, lists them too, with links to their sample pages).
// Everything is written with textContent: page content never reaches the extension's pages as HTML.
import { $, $button, $input, $select, MIB, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { hostPattern } from '../lib/site-access.js';

/** @typedef {import('../lib/protocol.js').TabClassification} TabClassification */
/** @typedef {import('../lib/protocol.js').Settings} Settings */
/** @typedef {import('../lib/protocol.js').Detection} Detection */

/** @param {number} x */
const round = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(3));

/** The page kinds in words. @type {Record<string, string>} */
const KIND_WORDS = { entity: 'Item page', index: 'Listing page', other: 'Other page' };

/**
 * One model feature: {feature, value, contribution} → "links_ratio = 0.412 (+1.20)".
 * @param {unknown} evidence
 */
function describe(evidence) {
  const item = /** @type {{feature?: unknown, value: number, contribution: number} | null} */ (evidence);
  if (typeof item?.feature !== 'string') return JSON.stringify(item);
  const sign = item.contribution >= 0 ? '+' : '';
  return `${item.feature} = ${round(item.value)} (${sign}${item.contribution.toFixed(2)})`;
}

/**
 * @param {HTMLElement} list
 * @param {string[]} items
 */
function fillList(list, items) {
  list.replaceChildren(...items.map((text) => el('li', text)));
}

/** The tab shown.
 * @type {{id: number, windowId: number, url?: string, referrer?: string}} */
let tab = { id: -1, windowId: -1 };

/** @param {TabClassification} result */
function show(result) {
  $('status').textContent = result.url ?? '';
  // Plain words; the model's own name of the kind stays in data-kind.
  $('kind').textContent = KIND_WORDS[result.kind] ?? 'Other page';
  $('kind').dataset.kind = result.kind;
  $('confidence').textContent = `${Math.round(result.confidence * 100)}%`;
  // On a listing, the button learns listings: most users want its items, which one opens.
  $('listing-hint').hidden = result.kind !== 'index';
  fillList($('summary'), result.summary ?? []);
  fillList($('evidence'), (result.evidence ?? []).map(describe));
  $('result').hidden = false;
  tab.url = result.url ?? tab.url;
  tab.referrer = result.referrer ?? '';
  showGenerate();
}

/** @param {string} message */
function fail(message) {
  $('status').textContent = message;
  $('status').className = 'error';
}

async function showGenerate() {
  if (!/^https?:/.test(tab.url ?? '')) return;
  const defaults = await send({ type: 'defaults' });
  // One field per setting the popup shows (the size limit in MB, below); the others keep their default.
  for (const [k, v] of Object.entries(defaults)) {
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById(k));
    if (!input) continue;
    if (input.type === 'checkbox') input.checked = Boolean(v);
    else input.value = String(v);
  }
  $input('maxMb').value = String(defaults.maxBytes / MIB);
  const sameSite = tab.referrer && tab.url && new URL(tab.referrer).host === new URL(tab.url).host;
  /** @type {HTMLOptionElement} */ ($select('entry-choice').querySelector('[value=referrer]')).hidden = !sameSite;
  $('generate').hidden = false;
  $('find').hidden = false;
}

/** A URL as the popup shows it: its path and query on this site, whole elsewhere.
 * @param {string} url */
function shortUrl(url) {
  try {
    const u = new URL(url);
    return tab.url && new URL(tab.url).origin === u.origin ? u.pathname + u.search : url;
  } catch {
    return url;
  }
}

/** One section found: what it lists, its sample items, and a button making it the example.
 * @param {Detection['sections'][number]} section */
function sectionItem(section) {
  const [listing] = section.index;
  const more = section.index.length > 1 ? ` and ${section.index.length - 1} more listings` : '';
  const li = el('li', `About ${section.estimatedItems} items (${section.shape}) on ${shortUrl(listing)}${more}`);
  const samples = el('ul', undefined, 'small');
  for (const url of section.examples) samples.append(el('li', shortUrl(url)));
  const use = el('button', 'Use as example');
  /** @type {HTMLButtonElement} */ (use).type = 'button';
  use.className = 'use-section';
  use.addEventListener('click', () => start(section.examples[0], listing));
  li.append(samples, use);
  return li;
}

async function findItems() {
  const url = String(tab.url);
  $('find-status').textContent = '';
  const origins = [hostPattern(url)];
  // The panel lists what is found, with the sample pages; opened now, in the click's gesture.
  const panel = openPanel();
  // Asked before anything is awaited: the prompt needs the click's user gesture.
  const granted = await chrome.permissions.request({ origins }).catch(() => false);
  if (!granted) {
    $('find-status').textContent = `Permission denied: Exemplar needs access to ${origins[0].slice(0, -2)} to read the site. Nothing was fetched.`;
    return;
  }
  $button('find-items').disabled = true;
  $('find-status').textContent = 'Looking for item pages…';
  try {
    const found = /** @type {Detection} */ (await send({ type: 'detect', url, delayMs: settings().delayMs, settings: settings() }));
    $('find-status').textContent = found.entitySite
      ? `Found after reading ${found.fetches} pages:`
      : `No list of item pages found after reading ${found.fetches} pages.`;
    $('sections').replaceChildren(...found.sections.map(sectionItem));
    await panel;
  } catch (e) {
    $('find-status').textContent = e instanceof Error ? e.message : String(e);
  } finally {
    $button('find-items').disabled = false;
  }
}

/** The entry page chosen: the site's home page, this page, the one before it, or a URL typed in. */
function entryUrl() {
  const url = String(tab.url);
  const choice = $select('entry-choice').value;
  if (choice === 'current') return url;
  if (choice === 'referrer') return String(tab.referrer);
  if (choice === 'url') {
    const value = $input('entry-url').value.trim();
    try {
      return new URL(value).href;
    } catch {
      throw new Error(`The entry page must be a full URL (https://…), not "${value}".`);
    }
  }
  return new URL('/', url).href;
}

/** The limits as the user left them.
 * @returns {Partial<Settings>} */
function settings() {
  /** @type {Partial<Settings>} */
  const s = {};
  for (const k of /** @type {const} */ (['maxPages', 'maxDepth', 'delayMs', 'concurrency'])) s[k] = Math.round(Number($input(k).value));
  s.threshold = Number($input('threshold').value);
  s.maxBytes = Math.round(Number($input('maxMb').value) * MIB);
  s.crawlAfterLearning = $input('crawlAfterLearning').checked;
  s.obeyRobots = $input('obeyRobots').checked;
  return s;
}

/** Firefox's sidebar (its `browser` namespace; Chrome has a side panel instead). */
const sidebar = /** @type {{browser?: {sidebarAction?: {open(): Promise<void>}}}} */ (globalThis).browser?.sidebarAction;

function openPanel() {
  // Both need the click's user gesture: call them before any await.
  try {
    if (chrome.sidePanel?.open) return chrome.sidePanel.open({ windowId: tab.windowId }).catch(() => {});
    if (sidebar?.open) return sidebar.open().catch(() => {});
  } catch { /* the panel link still works */ }
  return Promise.resolve();
}

/**
 * The body a POST form of the tab's page that submits to the page itself sends as it stands
 * (its choices, its hidden view state, its first submit button), as the browser would: such a
 * page may be the form's answer, which its URL alone cannot fetch again. Null when it has none,
 * or the page cannot be read. Only the form's values are read; nothing of the page runs here.
 * @param {number} tabId
 * @returns {Promise<string | null>}
 */
async function postbackOf(tabId) {
  try {
    const [injection] = await chrome.scripting.executeScript({
      target: { tabId },
      func: () => {
        const here = location.href.split('#')[0];
        for (const form of Array.from(document.forms)) {
          if (form.method.toLowerCase() !== 'post') continue;
          const action = form.getAttribute('action') ? new URL(form.getAttribute('action') ?? '', location.href).href : here;
          if (action.split('#')[0] !== here) continue;
          /** @type {[string, string][]} */
          const pairs = [];
          for (const [k, v] of new FormData(form)) if (typeof v === 'string') pairs.push([k, v]);
          // An implicit submission sends the form's first submit button, when it is named.
          const submit = form.querySelector('input[type=submit], input[type=image], button:not([type]), button[type=submit]');
          const name = submit?.getAttribute('name');
          if (submit && name && !submit.hasAttribute('disabled') && submit.getAttribute('type') !== 'image') {
            pairs.push([name, /** @type {HTMLInputElement} */ (submit).value]);
          }
          return new URLSearchParams(pairs).toString();
        }
        return null;
      },
    });
    return typeof injection?.result === 'string' ? injection.result : null;
  } catch {
    return null;
  }
}

/**
 * Starts a generation from this tab's page, or from a section's sample item and listing.
 * @param {string} [example] the example page (default: this tab's)
 * @param {string} [listing] the entry page (default: the entry chosen above)
 */
async function start(example, listing) {
  // One generation a click: the button stays disabled from the click on, and once the job is
  // started, says so.
  const button = $button('example');
  if (button.disabled) return;
  button.disabled = true;
  $('start-error').textContent = '';
  const started = await startJob(example, listing).catch((e) => {
    $('start-error').textContent = e instanceof Error ? e.message : String(e);
    return false;
  });
  if (started) {
    button.textContent = 'Learning… (see the side panel)';
  } else {
    button.disabled = false;
  }
}

/**
 * Asks site access and starts the generation: whether it started (why not is shown).
 * @param {string} [example]
 * @param {string} [listing]
 * @returns {Promise<boolean>}
 */
async function startJob(example, listing) {
  const entry = listing ?? entryUrl();
  const exampleUrl = example ?? String(tab.url);
  // This tab's page may be a form's answer to a POST (a search's results): its form as it
  // stands, read while the permission is asked (awaiting it first would spend the click's user
  // gesture, which the permission request needs).
  const postback = example === undefined ? postbackOf(tab.id) : Promise.resolve(null);
  const origins = [...new Set([exampleUrl, entry].map(hostPattern))];
  const panel = openPanel();
  // Chrome closes the popup when the permission prompt takes the focus: the request is left with the
  // worker first, which starts it when the access is granted (permissions.onAdded) if this popup
  // is gone by then. Not awaited: the prompt needs the click's user gesture.
  /** @type {import('../lib/protocol.js').PendingStart} */
  const pending = { id: `start-${Date.now()}-${Math.random().toString(36).slice(2)}`, exampleUrl, examplePost: null, entryUrl: entry, settings: settings(), origins, at: Date.now() };
  chrome.storage.session.set({ pendingStart: pending }).catch(() => {});
  // Kept with the request as soon as it is read, for the worker to start it if the prompt
  // closes this popup.
  const withPost = postback.then((examplePost) => {
    pending.examplePost = examplePost;
    if (examplePost) return chrome.storage.session.set({ pendingStart: pending }).catch(() => {});
    return undefined;
  });
  const granted = await chrome.permissions.request({ origins }).catch((e) => {
    $('start-error').textContent = `Exemplar could not ask for access: ${e.message}`;
    return null;
  });
  if (granted === null) return false;
  if (!granted) {
    $('start-error').textContent = `Permission denied: Exemplar needs access to ${origins.map((o) => o.slice(0, -2)).join(' and ')} to map the site. Nothing was fetched.`;
    return false;
  }
  $('status').textContent = 'Starting…';
  // Null when there was nothing to start (a request too old): destructuring it throws, said by
  // the caller.
  await withPost;
  const { jobId } = /** @type {{jobId: string}} */ (await send({ type: 'startPending', id: pending.id, pending }));
  $('status').textContent = `Learning from ${entry}: progress in the side panel.`;
  $('status').dataset.jobId = jobId;
  await panel.catch(() => {});
  return true;
}

async function main() {
  // ?tabId=N shows another tab (handy when the popup is opened as a page, and for tests).
  const param = new URLSearchParams(location.search).get('tabId');
  const active = param ? await chrome.tabs.get(Number(param)).catch(() => null)
    : (await chrome.tabs.query({ active: true, currentWindow: true }))[0];
  if (!active || active.id === undefined) return fail('No active tab.');
  tab = { id: active.id, windowId: active.windowId, url: active.url };
  $('example').addEventListener('click', () => start());
  $('find-items').addEventListener('click', findItems);
  $('entry-choice').addEventListener('change', () => { $('entry-url').hidden = $select('entry-choice').value !== 'url'; });
  try {
    return show(await send({ type: 'classifyTab', tabId: tab.id }));
  } catch (e) {
    // No access to the page (e.g. a browser page): show the last result if there is one.
    const cached = await send({ type: 'tabState', tabId: tab.id }).catch(() => null);
    if (cached) return show(cached);
    fail(`Exemplar cannot read this page (${e instanceof Error ? e.message : e}).`);
  }
}

main().catch((e) => fail(String(e?.message ?? e)));
