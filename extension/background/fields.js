// The data fields of a crawler's target pages, on the worker's side: learned when a generation
// ends (the example and a sample of its targets read again), kept across re-learning, edited by
// the user (rename, remove, place by a CSS selector or by clicking an element of the example
// page), and shown on the example page by a content script (content/fields.js).
//
// The crawler's pattern JSON is the one place its fields live: every edit goes through the core
// (`editFields`), which refuses a bad one with the reason. The content script runs on the example
// page's tab only, when the user asks; what it sends back (a selector and an element's text) is
// data, checked by the core before it becomes a field.
import { editFields as coreEditFields, fieldSampleUrls, fieldValues, induceFields } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { notify } from '../lib/protocol.js';
import { renderPage } from '../lib/render.js';
import { POST_MARK, fetchOne } from '../lib/runner.js';
import { requireAccess } from '../lib/site-access.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/db.js').JobRecord} JobRecord */
/** @typedef {import('../lib/db.js').CrawlerRecord} CrawlerRecord */
/** @typedef {import('../lib/core-types.js').FieldsView} FieldsView */
/** @typedef {import('../lib/core-types.js').FieldsEdited} FieldsEdited */
/** @typedef {import('../lib/core-types.js').FieldEdit} FieldEdit */
/** @typedef {import('../lib/core-types.js').Field} Field */

/** Pages rendered at most to learn fields when a job renders (rendering is slow). */
const RENDERED_SAMPLE = 10;
/** The tab showing each crawler's fields (storage.session: the worker may stop meanwhile). */
const TABS = 'fieldTabs';

/**
 * The pattern with the data fields of its targets: induced from the example and a sample of the
 * known targets read again (rendered when the job renders pages), the site's delay apart. Pages
 * that fail are left out; with fewer than two pages read there are no fields, and the crawler
 * works as before.
 * @param {string} patternJson
 * @param {JobRecord} record
 * @param {{cancelled: boolean, current: string}} control the job's pump control (`current` is shown)
 * @returns {Promise<FieldsEdited>}
 */
export async function learnFields(patternJson, record, control) {
  const s = record.settings;
  const render = Boolean(record.rendering?.on);
  const urls = fieldSampleUrls(patternJson).slice(0, render ? RENDERED_SAMPLE : undefined);
  /** @type {{url: string, body: Uint8Array, contentType: string | null}[]} */
  const pages = [];
  if (record.exampleBody) pages.push({ url: record.example, body: record.exampleBody, contentType: record.exampleContentType ?? null });
  for (const [i, url] of urls.entries()) {
    if (control.cancelled) break;
    control.current = `Reading the data fields: page ${i + 1} of ${urls.length}, ${url}`;
    if (i > 0 && s.delayMs > 0) await new Promise((ok) => setTimeout(ok, s.delayMs));
    try {
      if (render) {
        const drawn = await renderPage(url);
        pages.push({ url, body: new TextEncoder().encode(drawn.html), contentType: 'text/html; charset=utf-8' });
        continue;
      }
      // A form's answer is keyed `action#exemplar-post=body`: that POST again.
      const [action, post] = url.split(POST_MARK);
      const request = post === undefined
        ? { url, kind: /** @type {const} */ ('page') }
        : { url: action, kind: /** @type {const} */ ('page'), post: { body: post, contentType: 'application/x-www-form-urlencoded' } };
      const r = await fetchOne(request, { maxBytes: s.maxBytes, timeoutMs: s.timeoutMs, signal: new AbortController().signal });
      const type = r.headers?.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null;
      if (r.error === undefined && r.status >= 200 && r.status < 300 && !r.truncated) pages.push({ url, body: r.body, contentType: type });
    } catch { /* left out, as a page that failed */ }
  }
  return /** @type {FieldsEdited} */ (induceFields(patternJson, pages));
}

/**
 * `patternJson` (a re-learned pattern, which has no fields) with the fields of `from` (the
 * crawler's pattern before).
 * @param {string} patternJson
 * @param {string} from
 */
export function keepFields(patternJson, from) {
  let fields;
  try {
    fields = JSON.parse(from).fields;
  } catch {
    return patternJson;
  }
  if (!Array.isArray(fields) || fields.length === 0) return patternJson;
  const pattern = JSON.parse(patternJson);
  pattern.fields = fields;
  return JSON.stringify(pattern, null, 2);
}

/**
 * @param {unknown} id
 * @returns {Promise<CrawlerRecord>}
 */
async function crawlerOf(id) {
  if (typeof id !== 'string') throw new Error('crawlerId must be a string');
  const crawler = await db.get('crawlers', id);
  if (!crawler) throw new Error(`no crawler ${id}`);
  return crawler;
}

/**
 * A crawler's fields and their values on its example page.
 * @param {{crawlerId: string}} msg
 * @returns {Promise<FieldsView>}
 */
export async function crawlerFields({ crawlerId }) {
  await ready;
  const crawler = await crawlerOf(crawlerId);
  const body = crawler.exampleBody ?? new Uint8Array();
  return /** @type {FieldsView} */ (fieldValues(crawler.patternJson, crawler.example, body, crawler.exampleContentType ?? undefined));
}

/**
 * One edit of a crawler's fields (the core checks it; the pattern is unchanged when it is
 * refused, with the reason): the fields after it and their values on the example page.
 * @param {{crawlerId: string, edit: FieldEdit}} msg
 * @returns {Promise<FieldsView>}
 */
export async function editFields({ crawlerId, edit }) {
  await ready;
  const crawler = await crawlerOf(crawlerId);
  if (!edit || typeof edit !== 'object') throw new Error('edit must be {op, name, …}');
  const body = crawler.exampleBody ?? new Uint8Array();
  const edited = /** @type {FieldsEdited} */ (coreEditFields(crawler.patternJson, edit, crawler.example, body, crawler.exampleContentType ?? undefined));
  crawler.patternJson = edited.patternJson;
  await db.put('crawlers', crawler);
  notify({ type: 'fieldsChanged', crawlerId });
  // The page showing them shows the new ones.
  const tabs = await shownTabs();
  const tabId = Object.entries(tabs).find(([, c]) => c === crawlerId)?.[0];
  if (tabId) await command(Number(tabId), { show: edited.fields }).catch(() => {});
  return { fields: edited.fields, values: edited.values };
}

/** @returns {Promise<Record<string, string>>} tab id → crawler id */
async function shownTabs() {
  const tabs = /** @type {Record<string, string> | undefined} */ ((await chrome.storage.session.get(TABS))[TABS]);
  return tabs ?? {};
}

/**
 * Runs a command of the content script in `tabId` (injected first; a second injection keeps
 * the one there).
 * @param {number} tabId
 * @param {{show?: Field[], pick?: boolean}} cmd
 */
async function command(tabId, cmd) {
  await chrome.scripting.executeScript({ target: { tabId }, files: ['content/fields.js'] });
  await chrome.scripting.executeScript({
    target: { tabId },
    func: (/** @type {unknown} */ c) => /** @type {{exemplarFields?: (c: unknown) => void}} */ (globalThis).exemplarFields?.(c),
    args: [cmd],
  });
}

/**
 * A tab showing `url` (fragment aside), or a new one opened on it once loaded.
 * @param {string} url
 * @returns {Promise<number>}
 */
async function tabShowing(url) {
  const page = url.split('#')[0];
  const open = (await chrome.tabs.query({})).find((t) => t.id !== undefined && t.url?.split('#')[0] === page);
  if (open?.id !== undefined) {
    await chrome.tabs.update(open.id, { active: true });
    return open.id;
  }
  if (url.includes(POST_MARK)) {
    throw new Error('The example page is a form\'s answer: submit the form in a tab to show it, then try again.');
  }
  const tab = await chrome.tabs.create({ url: page, active: true });
  const id = tab.id;
  if (id === undefined) throw new Error(`could not open ${page}`);
  await new Promise((ok) => {
    /** @type {(tabId: number, info: {status?: string}) => void} */
    const listener = (tabId, info) => {
      if (tabId !== id || info.status !== 'complete') return;
      chrome.tabs.onUpdated.removeListener(listener);
      ok(undefined);
    };
    chrome.tabs.onUpdated.addListener(listener);
  });
  return id;
}

/**
 * Shows a crawler's fields on its example page (opened in a tab when none shows it), and with
 * `pick`, lets the user click an element there to add it as a field.
 * @param {{crawlerId: string, pick?: boolean}} msg
 * @returns {Promise<{tabId: number}>}
 */
export async function showFields({ crawlerId, pick }) {
  await ready;
  const crawler = await crawlerOf(crawlerId);
  // An http(s) page of a site the user granted (an imported pattern names any example).
  await requireAccess(crawler.example.split('#')[0]);
  const tabId = await tabShowing(crawler.example);
  let fields = [];
  try {
    fields = JSON.parse(crawler.patternJson).fields ?? [];
  } catch { /* none shown */ }
  const tabs = await shownTabs();
  tabs[String(tabId)] = crawlerId;
  await chrome.storage.session.set({ [TABS]: tabs });
  await command(tabId, { show: fields, pick: Boolean(pick) });
  return { tabId };
}

/**
 * The content script's pick: the element the user clicked, as a CSS selector and its text, in
 * tab `tabId`. Placed as a field of the crawler that tab shows, named by the core.
 * @param {unknown} msg
 * @param {number | undefined} tabId
 */
export async function fieldPicked(msg, tabId) {
  const css = /** @type {{css?: unknown} | null} */ (msg)?.css;
  if (tabId === undefined || typeof css !== 'string') return;
  const crawlerId = (await shownTabs())[String(tabId)];
  if (!crawlerId) return;
  try {
    await editFields({ crawlerId, edit: { op: 'place', css } });
  } catch (e) {
    // The panel says why (a selector the core cannot read, an element without text).
    notify({ type: 'fieldsChanged', crawlerId, error: e instanceof Error ? e.message : String(e) });
  }
}
