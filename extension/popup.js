// The toolbar popup: the current tab's page kind with its evidence in words, and the "This is an
// example page" button that starts a crawler generation.
// Everything is written with textContent: page content never reaches the extension's pages as HTML.
import { hostPattern } from './lib/site-access.js';

const $ = (id) => document.getElementById(id);
/** The page size limit is shown in MB (MiB), kept in bytes. */
const MIB = 1024 * 1024;
const send = async (msg) => {
  const reply = await chrome.runtime.sendMessage(msg);
  if (!reply?.ok) throw new Error(reply?.error ?? 'no reply from Exemplar');
  return reply.result;
};

const round = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(3));

// One model feature: {feature, value, contribution} → "links_ratio = 0.412 (+1.20)".
function describe(item) {
  if (typeof item?.feature !== 'string') return JSON.stringify(item);
  const sign = item.contribution >= 0 ? '+' : '';
  return `${item.feature} = ${round(item.value)} (${sign}${item.contribution.toFixed(2)})`;
}

function fillList(list, items) {
  list.replaceChildren(...items.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
}

let tab = null; // {id, url, referrer}

function show(result) {
  $('status').textContent = result.url ?? '';
  $('kind').textContent = result.kind;
  $('confidence').textContent = `${Math.round(result.confidence * 100)}%`;
  fillList($('summary'), result.summary ?? []);
  fillList($('evidence'), (result.evidence ?? []).map(describe));
  $('result').hidden = false;
  tab.url = result.url ?? tab.url;
  tab.referrer = result.referrer ?? '';
  showGenerate();
}

function fail(message) {
  $('status').textContent = message;
  $('status').className = 'error';
}

async function showGenerate() {
  if (!/^https?:/.test(tab.url ?? '')) return;
  const defaults = await send({ type: 'defaults' });
  for (const [k, v] of Object.entries(defaults)) {
    const input = $(k);
    if (!input) continue;
    if (input.type === 'checkbox') input.checked = v;
    else input.value = v;
  }
  $('maxMb').value = defaults.maxBytes / MIB;
  const sameSite = tab.referrer && new URL(tab.referrer).host === new URL(tab.url).host;
  $('entry-choice').querySelector('[value=referrer]').hidden = !sameSite;
  $('generate').hidden = false;
}

function entryUrl() {
  const choice = $('entry-choice').value;
  if (choice === 'current') return tab.url;
  if (choice === 'referrer') return tab.referrer;
  if (choice === 'url') {
    const value = $('entry-url').value.trim();
    try {
      return new URL(value).href;
    } catch {
      throw new Error(`The entry page must be a full URL (https://…), not "${value}".`);
    }
  }
  return new URL('/', tab.url).href;
}

function settings() {
  const s = {};
  for (const k of ['maxPages', 'maxDepth', 'delayMs', 'concurrency']) s[k] = Math.round(Number($(k).value));
  s.threshold = Number($('threshold').value);
  s.maxBytes = Math.round(Number($('maxMb').value) * MIB);
  s.crawlAfterLearning = $('crawlAfterLearning').checked;
  s.obeyRobots = $('obeyRobots').checked;
  return s;
}

function openPanel() {
  // Both need the click's user gesture: call them before any await.
  try {
    if (chrome.sidePanel?.open) return chrome.sidePanel.open({ windowId: tab.windowId }).catch(() => {});
    if (globalThis.browser?.sidebarAction?.open) return globalThis.browser.sidebarAction.open().catch(() => {});
  } catch { /* the panel link still works */ }
  return Promise.resolve();
}

async function start() {
  $('start-error').textContent = '';
  let entry;
  try {
    entry = entryUrl();
  } catch (e) {
    $('start-error').textContent = e.message;
    return;
  }
  const origins = [...new Set([tab.url, entry].map(hostPattern))];
  const panel = openPanel();
  // Chrome closes the popup when the permission prompt takes the focus: the request is left with the
  // worker first, which starts it when the access is granted (permissions.onAdded) if this popup
  // is gone by then. Not awaited: the prompt needs the click's user gesture.
  const pending = { id: `start-${Date.now()}-${Math.random().toString(36).slice(2)}`, exampleUrl: tab.url, entryUrl: entry, settings: settings(), origins, at: Date.now() };
  chrome.storage.session.set({ pendingStart: pending }).catch(() => {});
  const granted = await chrome.permissions.request({ origins }).catch((e) => {
    $('start-error').textContent = `Exemplar could not ask for access: ${e.message}`;
    return null;
  });
  if (granted === null) return;
  if (!granted) {
    $('start-error').textContent = `Permission denied: Exemplar needs access to ${origins.map((o) => o.slice(0, -2)).join(' and ')} to map the site. Nothing was fetched.`;
    return;
  }
  $('example').disabled = true;
  $('status').textContent = 'Starting…';
  try {
    const { jobId } = await send({ type: 'startPending', id: pending.id, pending });
    $('status').textContent = `Learning from ${entry}: progress in the side panel.`;
    $('status').dataset.jobId = jobId;
    await panel;
  } catch (e) {
    $('start-error').textContent = e.message;
  } finally {
    $('example').disabled = false;
  }
}

async function main() {
  // ?tabId=N shows another tab (handy when the popup is opened as a page, and for tests).
  const param = new URLSearchParams(location.search).get('tabId');
  const active = param ? await chrome.tabs.get(Number(param)).catch(() => null)
    : (await chrome.tabs.query({ active: true, currentWindow: true }))[0];
  if (!active) return fail('No active tab.');
  tab = { id: active.id, windowId: active.windowId, url: active.url };
  $('example').addEventListener('click', start);
  $('entry-choice').addEventListener('change', () => { $('entry-url').hidden = $('entry-choice').value !== 'url'; });
  try {
    return show(await send({ type: 'classifyTab', tabId: tab.id }));
  } catch (e) {
    // No access to the page (e.g. a browser page): show the last result if there is one.
    const cached = await send({ type: 'tabState', tabId: tab.id }).catch(() => null);
    if (cached) return show(cached);
    fail(`Exemplar cannot read this page (${e.message}).`);
  }
}

main().catch((e) => fail(String(e?.message ?? e)));
