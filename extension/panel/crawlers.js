// The saved crawlers view: every crawler with when it was learned and its last run, a button to
// show it and one to delete it; and importing a pattern (a JSON file) as a crawler.
import { $, $input, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { fmtDate, row, sinceLastRun } from './format.js';
import { everyText } from './schedule.js';
import { act, refresh, select, state } from './state.js';

export function renderCrawlers() {
  $('no-crawlers').hidden = state.crawlers.length > 0;
  /** @type {HTMLTableElement} */ ($('crawlers')).tBodies[0].replaceChildren(...state.crawlers.map((c) => {
    const last = c.runs?.at(-1);
    const show = el('button', c.id === state.selected ? 'Shown' : 'Show');
    show.type = 'button';
    show.disabled = c.id === state.selected;
    show.addEventListener('click', () => select(c.id));
    const del = el('button', 'Delete');
    del.type = 'button';
    del.addEventListener('click', () => act(() => send({ type: 'deleteCrawler', crawlerId: c.id })));
    const buttons = el('td');
    buttons.append(show, ' ', del);
    const lastRun = (last ? `${fmtDate(last.at)}: ${last.targets} pages${sinceLastRun(last, ', ')}${last.scheduled ? ' (scheduled)' : ''}` : 'never') +
      (c.schedule ? `; runs ${everyText(c.schedule.everyHours)}` : '');
    const tr = row(el('td', c.site + (c.imported ? ' (imported)' : '')), el('td', fmtDate(c.createdAt)), el('td', lastRun), buttons);
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
