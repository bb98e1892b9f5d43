// "Item pages found": the site's sections of item pages that the popup's "Find item pages" last
// found (kept by the worker in chrome.storage.session, so the panel shows them however it was
// opened), each with its listing, sample items and an estimate of how many; "Use as example"
// starts a crawler generation from its first sample and listing, as the popup's button does.
// URLs are written with textContent and opened only as http(s) links.
import { $, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { hostPattern } from '../lib/site-access.js';
import { hostOf, pageLink } from './format.js';
import { act } from './state.js';

/** The storage.session key the worker keeps the last detection under. */
const KEY = 'detection';

/** @typedef {import('../lib/protocol.js').Detection} Detection */
/** @typedef {import('../lib/protocol.js').Settings} Settings */
/** A detection as the worker keeps it: when, and the limits the popup had (the generation's).
 * @typedef {Detection & {at?: number, settings?: Partial<Settings>}} Found */

/**
 * Starts a generation from a section: its first sample as the example, its first listing as
 * the entry, with the limits set in the popup when the site was searched. Access to the site was
 * asked then; asked again if it was removed since.
 * @param {Detection['sections'][number]} section
 * @param {Partial<Settings>} settings
 */
async function useSection(section, settings) {
  const exampleUrl = section.examples[0];
  const entryUrl = section.index[0];
  const origins = [...new Set([exampleUrl, entryUrl].map(hostPattern))];
  // Asked before anything is awaited: the prompt needs the click's user gesture.
  const granted = await chrome.permissions.request({ origins }).catch(() => false);
  if (!granted) throw new Error(`Permission denied: Exemplar needs access to ${origins.map((o) => o.slice(0, -2)).join(' and ')} to map the site. Nothing was fetched.`);
  await send({ type: 'startLearn', exampleUrl, entryUrl, settings });
}

/**
 * One section: how many items, of what shape, where they are listed, a few of them.
 * @param {Detection['sections'][number]} section
 * @param {Partial<Settings>} settings the generation's limits
 */
function sectionItem(section, settings) {
  const li = el('li');
  li.append(el('strong', `About ${section.estimatedItems} item pages like ${section.shape}`));
  const listed = el('p', 'Listed on ', 'small');
  listed.append(pageLink(section.index[0]));
  if (section.index.length > 1) listed.append(` and ${section.index.length - 1} more listings`);
  const samples = el('ul', undefined, 'small samples');
  for (const url of section.examples) {
    const item = el('li');
    item.append(pageLink(url));
    samples.append(item);
  }
  const use = el('button', 'Use as example');
  /** @type {HTMLButtonElement} */ (use).type = 'button';
  use.className = 'use-section';
  use.title = `Learn a crawler for these pages, from ${section.examples[0]}`;
  use.addEventListener('click', () => act(() => useSection(section, settings), $('found-error')));
  li.append(listed, el('p', 'For example:', 'small'), samples, use);
  return li;
}

/** @param {Found | undefined} found */
function render(found) {
  $('found').hidden = !found;
  if (!found) return;
  $('found-site').textContent = hostOf(found.site);
  $('found-status').textContent = found.entitySite
    ? `Found after reading ${found.fetches} pages. Pick the pages you want: the first sample becomes the example.`
    : `No list of item pages found after reading ${found.fetches} pages. Open an item page and click "This is an example page" instead.`;
  $('found-sections').replaceChildren(...found.sections.map((s) => sectionItem(s, found.settings ?? {})));
}

export function wireSections() {
  chrome.storage.session.get(KEY).then((s) => render(/** @type {Found | undefined} */ (s[KEY]))).catch(() => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'session' && KEY in changes) render(/** @type {Found | undefined} */ (changes[KEY].newValue));
  });
}
