// What the panel's views share to write things down: times, sizes, table rows, a site's pages as
// links (http(s) only: a URL is data, never script), and the marks (badges) of pages.
import { MIB, el } from '../lib/dom.js';

/** @param {number} ms */
export const fmtSeconds = (ms) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.round(ms / 1000)} s`);
/** @param {number} ms */
export const fmtDate = (ms) => new Date(ms).toLocaleString();
/** @param {number} bytes */
export const fmtMb = (bytes) => `${+(bytes / MIB).toFixed(3)} MB`;
/** A name for a file (a site's host, say). @param {unknown} s */
export const safeName = (s) => String(s).replace(/[^A-Za-z0-9._-]+/g, '_');

/**
 * A table row: each cell an element, or a text in a new cell.
 * @param {...(Node | string)} cells
 */
export function row(...cells) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.append(c instanceof Node ? c : el('td', c));
  return tr;
}

/**
 * A URL's host (with its port), or '' when it is no URL.
 * @param {string} url
 */
export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * A URL's path and query, for naming a page in a sentence.
 * @param {string} url
 */
export function pathOf(url) {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/**
 * A page of the site named by its path, opening in a new tab to be judged (http(s) only: a URL
 * is data, never script); anything else is shown whole as text.
 * @param {string} url
 * @returns {HTMLElement}
 */
export function pageLink(url) {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      const page = el('a', u.pathname + u.search, 'url');
      page.href = u.href;
      page.target = '_blank';
      page.rel = 'noopener noreferrer';
      return page;
    }
  } catch { /* shown as text */ }
  return el('span', url, 'url');
}

/**
 * What a run brought besides the pages it found again: "3 new, 1 changed" after `lead`, and
 * `tail`; nothing when it brought nothing.
 * @param {{newSinceLastRun?: number, changedSinceLastRun?: number}} run
 * @param {string} lead
 * @param {string} [tail]
 */
export function sinceLastRun(run, lead, tail = '') {
  const parts = [];
  if (run.newSinceLastRun) parts.push(`${run.newSinceLastRun} new`);
  if (run.changedSinceLastRun) parts.push(`${run.changedSinceLastRun} changed`);
  return parts.length ? `${lead}${parts.join(', ')}${tail}` : '';
}

/** A mark: `[badge, what it says when hovered]`.
 * @typedef {[string, string]} Mark */

/**
 * @param {Mark} mark
 */
export function badge([text, hint]) {
  const mark = el('span', text, 'badge');
  mark.title = hint;
  return mark;
}

// The marks of the two review lists and of the pages.
/** @type {Mark} */
export const LIKE_TARGETS = ['URL', "URL shaped like the targets'"];
/** @type {Mark} */
export const BY_HEADING = ['heading', "Below θ, taken as a target because its heading names the targets' kind: the same words as a target's heading, its own name left out"];
/** @type {Mark} */
export const ENTRY = ['entry', 'The entry page: like the example, so the crawl collects it too (navigation starts there either way)'];
/** @type {Mark} */
export const LIKE_PAGES_BELOW = ['URL', 'URL shaped like pages below θ: most pages of its shape are not like the example'];
/** @type {Mark} */
export const TAKEN_FOR_HEADING = ['heading', "Below θ, taken because its heading follows the targets' heading template"];
