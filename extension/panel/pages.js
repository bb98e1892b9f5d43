// The target pages view of the crawler shown: its stored pages (IndexedDB, read again when a job
// finds more; before any run, the targets learning found), filtered by URL, title, heading or a field's value, each with its similarity,
// marks (new or changed in the last run, taken for its heading) and its record's first fields.
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
 * Reads the crawler's pages again when the job's target count or the last crawl changed.
 * @param {CrawlerSummary} crawler
 * @param {JobStatus | undefined} lastCrawl
 */
export async function refreshPages(crawler, lastCrawl) {
  const key = `${crawler.id}:${currentJob()?.progress?.targets ?? ''}:${lastCrawl?.id ?? ''}`;
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
    return row(cell, el('td', typeof t.similarity === 'number' ? t.similarity.toFixed(3) : '–', 'num'));
  }));
}

/** @param {CrawlerSummary} crawler */
function renderPages(crawler) {
  if (state.pages.length === 0) {
    renderLearnedOnly(crawler);
    return;
  }
  const learned = learnedSimilarities(crawler);
  const hadRuns = (crawler.runs ?? []).length > 1;
  const lastJob = crawler.runs?.at(-1)?.jobId;
  const needle = $input('filter').value.trim().toLowerCase();
  const pages = state.pages
    .filter((p) => !needle || [p.url, p.title, p.heading, ...(p.fields ?? []).map(([, v]) => valueText(v))].some((s) => (s ?? '').toLowerCase().includes(needle)))
    .sort((a, b) => (a.fetchedAtMs ?? 0) - (b.fetchedAtMs ?? 0));
  $('n-pages').textContent = pages.length === state.pages.length ? String(pages.length) : `${pages.length} of ${state.pages.length}`;
  /** @type {HTMLTableElement} */ ($('pages')).tBodies[0].replaceChildren(...pages.slice(0, 500).map((p) => {
    const cell = el('td');
    // The main heading names the page where a site gives every page one title (Doxygen's
    // project name); the title stays a hover away.
    const name = el('div', p.heading || p.title || '(no title)', 'name');
    if (p.heading && p.title) name.title = p.title;
    cell.append(name, el('div', p.url, 'url'));
    // The page's record: its data fields' values, the first few.
    const record = (p.fields ?? []).slice(0, RECORD_SHOWN).map(([k, v]) => `${k}: ${valueText(v)}`).join(' · ');
    if (record) cell.append(el('div', record, 'record'));
    if (p.byHeading) cell.prepend(badge(TAKEN_FOR_HEADING));
    const change = db.changeIn(p, lastJob, hadRuns);
    if (change === 'new' || change === 'changed') cell.prepend(el('span', change, 'badge'));
    const value = typeof p.similarity === 'number' ? p.similarity : learned.get(p.url);
    const sim = typeof value === 'number' ? value.toFixed(3) : '–';
    return row(cell, el('td', sim, 'num'));
  }));
}

/** The filter redraws the list as it is typed. */
export function wirePages() {
  $('filter').addEventListener('input', () => {
    const crawler = selectedCrawler();
    if (crawler) renderPages(crawler);
  });
}
