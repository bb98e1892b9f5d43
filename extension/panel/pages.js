// The target pages view of the crawler shown: its stored pages (IndexedDB, read again when a job
// finds more; before any run, the targets learning found), filtered by URL, title, heading or a
// field's value, sorted by a column (new and changed first by default), each with its similarity,
// marks (new or changed in the last run, taken for its heading, looks like a listing page) and its
// record's first fields.
// Only the rows in sight are drawn: a crawl of tens of thousands of pages scrolls as one of ten.
import * as db from '../lib/db.js';
import { $, $input, el } from '../lib/dom.js';
import { TAKEN_FOR_HEADING, badge, row } from './format.js';
import { valueText } from './fields.js';
import { currentJob, learnedOf, selectedCrawler, state } from './state.js';

/** Fields of a page's record shown in the list (exports carry all). */
const RECORD_SHOWN = 4;

/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */
/** @typedef {import('../lib/protocol.js').JobStatus} JobStatus */

/**
 * Reads the crawler's pages again, and draws the list, when the job's target count, the last
 * crawl or the learning result changed: a re-learn (another θ, verdicts) changes the targets
 * listed before any crawl, and so does the result arriving after the crawler (a panel open
 * while learning).
 * @param {CrawlerSummary} crawler
 * @param {JobStatus | undefined} lastCrawl
 */
export async function refreshPages(crawler, lastCrawl) {
  const learned = learnedOf(state.jobs.find((j) => j.id === crawler.learnJobId));
  // A result learned before `learnedAt` existed is known by its θ and count.
  const version = learned ? learned.learnedAt ?? `${learned.threshold}/${learned.targets.length}` : '';
  const key = `${crawler.id}:${currentJob()?.progress?.targets ?? ''}:${lastCrawl?.id ?? ''}:${version}`;
  if (key === state.pagesKey) return;
  state.pagesKey = key;
  state.pages = await db.pagesOf(crawler.id);
  renderPages(crawler);
}

/**
 * Similarity of each target seen while learning (a crawl measures only the pages it verifies:
 * those learning did not know, or all with the `verify` setting).
 * @param {CrawlerSummary} crawler
 */
function learnedSimilarities(crawler) {
  const learn = state.jobs.find((j) => j.id === crawler.learnJobId);
  return new Map((learnedOf(learn)?.targets ?? []).map((t) => [t.url, t.similarity]));
}

/**
 * The targets learning found, listed while the crawler has collected nothing yet (it was not run
 * after learning, or its run has not stored a page).
 * @param {CrawlerSummary} crawler
 */
function renderLearnedOnly(crawler) {
  const learn = state.jobs.find((j) => j.id === crawler.learnJobId);
  const needle = $input('filter').value.trim().toLowerCase();
  const all = learnedOf(learn)?.targets ?? [];
  const targets = all.filter((t) => !needle || [t.url, t.title].some((s) => (s ?? '').toLowerCase().includes(needle)));
  const shown = targets.length === all.length ? String(all.length) : `${targets.length} of ${all.length}`;
  $('n-pages').textContent = all.length ? `${shown} found while learning; not collected yet: run the crawler` : '0';
  /** @type {HTMLTableElement} */ ($('pages')).tBodies[0].replaceChildren(...targets.slice(0, 500).map((t) => {
    const cell = el('td');
    cell.append(el('div', t.title || '(no title)', 'name'), el('div', t.url, 'url'));
    if (t.listing) cell.prepend(el('span', LISTING, 'badge warn'));
    return row(cell, el('td', typeof t.similarity === 'number' ? t.similarity.toFixed(3) : '–', 'num'));
  }));
}

/** A row's height (px): fixed, so that only the rows in sight are drawn. */
const ROW_H = 64;
/** Rows drawn beyond those in sight, above and below. */
const OVERSCAN = 12;

/** @typedef {{page: import('../lib/db.js').PageSummary, name: string, sim: number | null, change: string | null, listing: boolean}} Row */

/** The mark of a target that looks like a listing page (the warning above says why). */
const LISTING = 'listing?';

/** The list's rows (filtered and sorted) and its sort. */
const view = {
  /** @type {Row[]} */
  rows: [],
  /** 'found' (new and changed first, then as found), 'name', 'url', 'similarity', 'change'. */
  sort: 'found',
  dir: 1,
};

/** @param {CrawlerSummary} crawler */
function renderPages(crawler) {
  if (state.pages.length === 0) {
    renderLearnedOnly(crawler);
    return;
  }
  const learned = learnedSimilarities(crawler);
  const listings = new Set(learnedOf(state.jobs.find((j) => j.id === crawler.learnJobId))?.listingTargets ?? []);
  const hadRuns = (crawler.runs ?? []).length > 1;
  const lastJob = crawler.runs?.at(-1)?.jobId;
  const needle = $input('filter').value.trim().toLowerCase();
  /** @type {Row[]} */
  const rows = state.pages
    .filter((p) => !needle || [p.url, p.title, p.heading, ...(p.fields ?? []).map(([, v]) => valueText(v))].some((s) => (s ?? '').toLowerCase().includes(needle)))
    .map((p) => {
      const value = typeof p.similarity === 'number' ? p.similarity : learned.get(p.url);
      const change = db.changeIn(p, lastJob, hadRuns);
      return { page: p, name: p.heading || p.title || '(no title)', sim: typeof value === 'number' ? value : null, change: change === 'new' || change === 'changed' ? change : null, listing: listings.has(p.url) };
    });
  const found = (/** @type {Row} */ r) => r.page.fetchedAtMs ?? 0;
  /** @type {Record<string, (a: Row, b: Row) => number>} */
  const by = {
    found: (a, b) => Number(!a.change) - Number(!b.change) || found(a) - found(b),
    name: (a, b) => a.name.localeCompare(b.name),
    url: (a, b) => a.page.url.localeCompare(b.page.url),
    similarity: (a, b) => (a.sim ?? -1) - (b.sim ?? -1),
    change: (a, b) => (a.change ?? '~').localeCompare(b.change ?? '~'),
  };
  const compare = by[view.sort] ?? by.found;
  rows.sort((a, b) => view.dir * compare(a, b) || found(a) - found(b));
  view.rows = rows;
  $('n-pages').textContent = rows.length === state.pages.length ? String(rows.length) : `${rows.length} of ${state.pages.length}`;
  for (const th of /** @type {NodeListOf<HTMLElement>} */ ($('pages').querySelectorAll('th[data-sort]'))) {
    const keys = [th.dataset.sort, ...[...th.querySelectorAll('button[data-sort]')].map((b) => /** @type {HTMLElement} */ (b).dataset.sort)];
    th.setAttribute('aria-sort', keys.includes(view.sort) ? (view.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  drawWindow();
}

/** Draws the rows in sight in the list's scroll box (and a few more), spacers for the rest. */
function drawWindow() {
  const box = $('pages-box');
  const rows = view.rows;
  const inSight = Math.ceil((box.clientHeight || 480) / ROW_H);
  const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(rows.length, first + inSight + 2 * OVERSCAN);
  /** @param {number} n */
  const spacer = (n) => {
    const tr = el('tr', undefined, 'spacer');
    tr.setAttribute('aria-hidden', 'true');
    tr.style.height = `${n * ROW_H}px`;
    return tr;
  };
  const drawn = rows.slice(first, last).map((r) => {
    const p = r.page;
    const cell = el('td');
    // The main heading names the page where a site gives every page one title (Doxygen's
    // project name); the title stays a hover away.
    const name = el('div', r.name, 'name');
    if (p.heading && p.title) name.title = p.title;
    cell.append(name, el('div', p.url, 'url'));
    // The page's record: its data fields' values, the first few.
    const record = (p.fields ?? []).slice(0, RECORD_SHOWN).map(([k, v]) => `${k}: ${valueText(v)}`).join(' · ');
    if (record) cell.append(el('div', record, 'record'));
    if (p.byHeading) cell.prepend(badge(TAKEN_FOR_HEADING));
    if (r.listing) cell.prepend(el('span', LISTING, 'badge warn'));
    if (r.change) cell.prepend(el('span', r.change, 'badge'));
    const tr = row(cell, el('td', r.sim === null ? '–' : r.sim.toFixed(3), 'num'));
    tr.style.height = `${ROW_H}px`;
    return tr;
  });
  /** @type {HTMLTableElement} */ ($('pages')).tBodies[0].replaceChildren(
    ...(first > 0 ? [spacer(first)] : []),
    ...drawn,
    ...(last < rows.length ? [spacer(rows.length - last)] : []),
  );
}

/** The filter redraws the list as it is typed; a column's header sorts by it (again: the other
 * way); scrolling draws the rows come into sight. */
export function wirePages() {
  const redraw = () => {
    const crawler = selectedCrawler();
    if (crawler) renderPages(crawler);
  };
  $('filter').addEventListener('input', redraw);
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ ($('pages').querySelectorAll('th[data-sort] button'))) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort ?? button.closest('th')?.dataset.sort ?? 'found';
      view.dir = view.sort === key ? -view.dir : key === 'similarity' ? -1 : 1;
      view.sort = key;
      redraw();
    });
  }
  let pending = false;
  $('pages-box').addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (state.pages.length) drawWindow();
    });
  });
}
