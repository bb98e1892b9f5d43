// The saved crawlers view: every crawler by its name (the user's, else its site) with when it was
// learned and its last run, a button to show it and one to delete it (asked again first); and
// importing a pattern (a JSON file) as a crawler.
import { $, $input, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { fmtDate, row, sinceLastRun } from './format.js';
import { everyText } from './schedule.js';
import { act, refresh, select, state } from './state.js';

/** The crawler whose Delete was pressed, waiting for "Yes, delete" or "Keep". @type {string | null} */
let confirming = null;

/**
 * What names a crawler: the user's name, else its site.
 * @param {import('../lib/protocol.js').CrawlerSummary} c
 */
export const nameOf = (c) => c.name || c.site;

export function renderCrawlers() {
  $('no-crawlers').hidden = state.crawlers.length > 0;
  /** @type {HTMLTableElement} */ ($('crawlers')).tBodies[0].replaceChildren(...state.crawlers.map((c) => {
    const last = c.runs?.at(-1);
    const show = el('button', c.id === state.selected ? 'Shown' : 'Show');
    show.type = 'button';
    show.disabled = c.id === state.selected;
    show.addEventListener('click', () => select(c.id));
    const buttons = el('td');
    if (confirming === c.id) {
      // Asked first: a crawler's pages go with it.
      const yes = el('button', 'Yes, delete');
      yes.type = 'button';
      yes.setAttribute('aria-label', `Yes, delete the crawler ${nameOf(c)} and its pages`);
      yes.addEventListener('click', () => {
        confirming = null;
        act(() => send({ type: 'deleteCrawler', crawlerId: c.id }));
      });
      const keep = el('button', 'Keep');
      keep.type = 'button';
      keep.addEventListener('click', () => {
        confirming = null;
        renderCrawlers();
      });
      buttons.append(el('span', 'Delete it and its pages? ', 'small'), yes, ' ', keep);
    } else {
      const del = el('button', 'Delete');
      del.type = 'button';
      del.setAttribute('aria-label', `Delete the crawler ${nameOf(c)}`);
      del.addEventListener('click', () => {
        confirming = c.id;
        renderCrawlers();
      });
      buttons.append(show, ' ', del);
    }
    const lastRun = (last ? `${fmtDate(last.at)}: ${last.targets} pages${sinceLastRun(last, ', ')}${last.scheduled ? ' (scheduled)' : ''}` : 'never') +
      (c.schedule ? `; runs ${everyText(c.schedule.everyHours)}` : '');
    const named = el('td', nameOf(c) + (c.imported ? ' (imported)' : ''));
    if (c.name) named.append(el('div', c.site, 'small'));
    const tr = row(named, el('td', fmtDate(c.createdAt)), el('td', lastRun), buttons);
    tr.dataset.crawlerId = c.id;
    return tr;
  }));
}

/** A pattern file chosen is imported, and the new crawler shown. */
export function wireCrawlers() {
  $('import').addEventListener('change', async () => {
    const input = $input('import');
    const file = input.files?.[0];
    if (!file) return;
    const status = $('import-status');
    status.className = '';
    try {
      const crawler = await send({ type: 'importPattern', json: await file.text() });
      status.textContent = `Imported a crawler for ${crawler.site}.`;
      status.className = 'good';
      state.selected = crawler.id;
    } catch (e) {
      status.textContent = e instanceof Error ? e.message : String(e);
      status.className = 'error';
    }
    input.value = '';
    await refresh();
  });
}
