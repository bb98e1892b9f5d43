// The schedule of the crawler shown: how often it runs again by itself (the menu sets it), when
// next, and why its last turn did not run.
import { $, $select } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { fmtDate } from './format.js';
import { act, state } from './state.js';

/** @type {Record<number, string>} */
const NAMED_PERIODS = { 1: 'every hour', 24: 'every day', 168: 'every week' };

/** @param {number} hours */
export const everyText = (hours) => NAMED_PERIODS[hours] ?? `every ${hours} hours`;

/**
 * The selected crawler's schedule: how often it runs by itself, when next, and why its last
 * turn did not run. A period set elsewhere than in this menu gets an entry of its own.
 * @param {import('../lib/protocol.js').CrawlerSummary} crawler
 */
export function renderSchedule(crawler) {
  const select = $select('schedule');
  const schedule = crawler.schedule ?? null;
  const value = schedule ? String(schedule.everyHours) : '';
  if (schedule && ![...select.options].some((o) => o.value === value)) select.append(new Option(everyText(schedule.everyHours), value));
  if (document.activeElement !== select) select.value = value;
  $('schedule-note').textContent = schedule
    ? `next run ${fmtDate(schedule.nextAt)}${schedule.lastError ? `; last turn: ${schedule.lastError}` : ''}`
    : '';
}

/** The menu sets the schedule (never: none). */
export function wireSchedule() {
  $('schedule').addEventListener('change', () => act(() => send({
    type: 'setSchedule', crawlerId: String(state.selected), everyHours: $select('schedule').value ? Number($select('schedule').value) : null,
  }), $('schedule-error')));
}
