// "Find more sites like this", under the crawler shown: the search engine and backlink service
// (URL templates, kept by the worker), how many pages to read, whether it may read the sites it
// finds; then the sites found so far (kept by the worker in chrome.storage.session, key
// `discovery`), each with its listing, sample pages and "Make a crawler", which learns one from
// its first sample. Site access is asked here, on the click: the search engine's and the backlink
// service's sites, and every site only when the user ticks it; sites left without access are
// listed, and allowing them searches again. URLs are written with textContent, opened only as
// http(s) links.
import { $, $button, $input, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { hostPattern } from '../lib/site-access.js';
import { pageLink } from './format.js';
import { act, state } from './state.js';

/** The storage.session key the worker keeps the discovery under. */
const KEY = 'discovery';

/** @typedef {import('../lib/protocol.js').DiscoveryState} DiscoveryState */
/** @typedef {import('../pkg/exemplar.js').FoundSite} FoundSite */

/** The last state the worker kept. @type {DiscoveryState | undefined} */
let last;

/** How an operator found a site, in words. @type {Record<FoundSite['foundBy'], string>} */
const FOUND_BY = {
  keyword: 'a search',
  related: 'a search for pages like these',
  forward: 'links from pages found',
  backward: 'pages linking a site found',
};

/**
 * The site-access patterns of the services' templates.
 * @param {string[]} templates
 */
const servicePatterns = (templates) => templates.filter(Boolean).map((t) => {
  try {
    return hostPattern(t.replace(/\{(q|url)\}/g, 'x'));
  } catch {
    return null;
  }
}).filter((p) => p !== null);

/**
 * Starts a discovery from the crawler shown, access asked first (the click's user gesture).
 * @param {string[]} [more] origins to ask access to beside the services' (sites left out before)
 */
async function start(more = []) {
  const crawlerId = state.selected;
  if (!crawlerId) return;
  const search = $input('discover-search').value.trim();
  const backlinks = $input('discover-backlinks').value.trim();
  const maxFetches = Number($input('discover-budget').value || 500);
  const origins = [...servicePatterns([search, backlinks]), ...more.map(hostPattern)];
  if ($input('discover-any').checked) origins.push('<all_urls>');
  if (origins.length) {
    const granted = await chrome.permissions.request({ origins: [...new Set(origins)] }).catch(() => false);
    if (!granted) throw new Error('Permission denied: without access to the search engine\'s and backlink service\'s sites, Exemplar cannot search. Nothing was fetched.');
  }
  await send({ type: 'discover', crawlerId, search, backlinks, maxFetches });
}

/**
 * Learns a crawler for a site found, from its first sample and its listing.
 * @param {FoundSite} site
 */
async function makeCrawler(site) {
  const exampleUrl = site.examples[0];
  const origins = [...new Set([exampleUrl, site.entry].map(hostPattern))];
  const granted = await chrome.permissions.request({ origins }).catch(() => false);
  if (!granted) throw new Error(`Permission denied: Exemplar needs access to ${origins.map((o) => o.slice(0, -2)).join(' and ')} to map the site. Nothing was fetched.`);
  await send({ type: 'startLearn', exampleUrl, entryUrl: site.entry });
}

/** @param {FoundSite} site */
function siteItem(site) {
  const li = el('li');
  li.append(el('strong', site.site), el('span', ` ${Math.round(site.score * 100)}% alike`, 'small'));
  const listed = el('p', `Found through ${FOUND_BY[site.foundBy] ?? site.foundBy}; listed on `, 'small');
  listed.append(pageLink(site.entry));
  const samples = el('ul', undefined, 'small samples');
  for (const url of site.examples) {
    const item = el('li');
    item.append(pageLink(url));
    samples.append(item);
  }
  const make = el('button', 'Make a crawler');
  /** @type {HTMLButtonElement} */ (make).type = 'button';
  make.className = 'make-crawler';
  make.title = `Learn a crawler for this site's pages, from ${site.examples[0]}`;
  make.addEventListener('click', () => act(() => makeCrawler(site), $('discover-error')));
  li.append(listed, el('p', 'For example:', 'small'), samples, make);
  return li;
}

/**
 * The sites left out as copies, in words ('' for none).
 * @param {DiscoveryState} d
 */
const copies = (d) => (d.replicas?.length
  ? `; left out as copies of a site known: ${d.replicas.map((r) => `${r.site} (of ${r.of})`).join(', ')}`
  : '');

/** Draws the discovery of the crawler shown (none: the form only). */
export function renderDiscover() {
  const d = last && last.crawlerId === state.selected ? last : undefined;
  const runningHere = last?.status === 'running';
  $button('discover-start').disabled = runningHere;
  $('discover-stop').hidden = !runningHere;
  if (!d) {
    $('discover-status').textContent = runningHere ? 'Searching for sites like another crawler\'s…' : '';
    $('discover-sites').replaceChildren();
    $('discover-no-access').hidden = true;
    $('discover-error').textContent = '';
    return;
  }
  const sites = d.sites.length === 1 ? '1 site' : `${d.sites.length} sites`;
  const read = `${d.fetches} of at most ${d.maxFetches} pages read, ${d.queries} searches`;
  $('discover-status').textContent = {
    running: `Searching… ${sites} found so far (${read}).`,
    done: `${d.sites.length ? sites : 'No site'} found (${read}); ${d.refused} more met had no pages of this kind${copies(d)}.`,
    stopped: `Stopped: ${sites} found (${read}).`,
    failed: `Failed: ${d.error ?? 'unknown error'}`,
  }[d.status];
  $('discover-sites').replaceChildren(...d.sites.map(siteItem));
  const none = d.noAccess;
  $('discover-no-access').hidden = none.length === 0;
  if (none.length) {
    const box = $('discover-no-access');
    const allow = el('button', 'Allow them and search again');
    /** @type {HTMLButtonElement} */ (allow).type = 'button';
    allow.id = 'discover-allow';
    allow.disabled = runningHere;
    allow.addEventListener('click', () => act(() => start(none), $('discover-error')));
    box.replaceChildren(`Not read, for want of access: ${none.join(', ')}. `, allow);
  }
  if (d.problems.length && d.status !== 'failed') {
    $('discover-error').textContent = d.problems[0];
  } else if (d.status !== 'failed') {
    $('discover-error').textContent = '';
  }
}

export function wireDiscover() {
  send({ type: 'discoverServices' }).then((s) => {
    if (!$input('discover-search').value) $input('discover-search').value = s.search;
    if (!$input('discover-backlinks').value) $input('discover-backlinks').value = s.backlinks;
  }).catch(() => {});
  $('discover-start').addEventListener('click', () => act(() => start(), $('discover-error')));
  $('discover-stop').addEventListener('click', () => act(() => send({ type: 'stopDiscovery' }), $('discover-error')));
  chrome.storage.session.get(KEY).then((s) => {
    last = /** @type {DiscoveryState | undefined} */ (s[KEY]);
    renderDiscover();
  }).catch(() => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== 'session' || !(KEY in changes)) return;
    last = /** @type {DiscoveryState | undefined} */ (changes[KEY].newValue);
    renderDiscover();
  });
}
