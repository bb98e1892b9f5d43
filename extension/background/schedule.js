// Scheduled runs: a saved crawler may run again by itself every so many hours. One alarm for
// every crawler's schedule, set for the earliest run due: the schedules live in IndexedDB, so a
// lost alarm (the browser may clear them when it restarts) costs nothing — every start of the
// worker runs what is due and sets it again.
import * as db from '../lib/db.js';
import { runCrawler, summaryOf } from './crawlers.js';
import { isRunning } from './jobs.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */

export const SCHEDULE_ALARM = 'exemplar-schedule';
const HOUR_MS = 3_600_000;

/**
 * Runs a saved crawler again by itself every `everyHours` hours (null: never), the first time
 * at `firstAt` (default: one period from now).
 * @param {{crawlerId: string, everyHours?: number | null, firstAt?: number}} msg
 * @returns {Promise<CrawlerSummary>}
 */
export async function setSchedule({ crawlerId, everyHours, firstAt }) {
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no saved crawler ${crawlerId}`);
  if (everyHours === null || everyHours === undefined) {
    delete crawler.schedule;
  } else {
    if (typeof everyHours !== 'number' || !(everyHours > 0) || !Number.isFinite(everyHours)) {
      throw new Error('everyHours must be a number of hours above 0, or null for no schedule');
    }
    if (firstAt !== undefined && (typeof firstAt !== 'number' || !Number.isFinite(firstAt))) {
      throw new Error('firstAt must be a time in milliseconds since the epoch');
    }
    crawler.schedule = { everyHours, nextAt: firstAt ?? Date.now() + everyHours * HOUR_MS };
  }
  await db.put('crawlers', crawler);
  await armSchedule();
  return summaryOf(crawler);
}

/** Sets the schedule alarm for the earliest run due (cleared when nothing is scheduled). */
export async function armSchedule() {
  const due = (await db.all('crawlers')).map((c) => c.schedule?.nextAt).filter((t) => typeof t === 'number');
  if (due.length === 0) {
    await chrome.alarms.clear(SCHEDULE_ALARM);
    return;
  }
  // Chrome fires a packed extension's alarm 30 s after it is set at the soonest.
  await chrome.alarms.create(SCHEDULE_ALARM, { when: Math.max(Math.min(...due), Date.now() + 1) });
}

// One pass over the schedules at a time: an alarm and a start of the worker that race would
// otherwise both find a crawler due.
/** @type {Promise<void>} */
let duePass = Promise.resolve();

/** Starts the scheduled runs that are due, once each however many periods passed (the browser
 * was closed), then sets the alarm for the next one. A crawler whose previous run is still
 * going, or that cannot run (site access withdrawn), waits for its next turn, said so. */
export function runDue() {
  duePass = duePass.catch(() => {}).then(startDue);
  return duePass;
}

async function startDue() {
  await ready;
  const now = Date.now();
  const jobs = await db.all('jobs');
  for (const crawler of await db.all('crawlers')) {
    const schedule = crawler.schedule;
    if (!schedule || schedule.nextAt > now) continue;
    const period = schedule.everyHours * HOUR_MS;
    const missed = Math.floor((now - schedule.nextAt) / period) + 1;
    schedule.nextAt += missed * period;
    const busy = isRunning(crawler.id) ||
      jobs.some((j) => j.crawlerId === crawler.id && ['running', 'paused'].includes(j.status));
    delete schedule.lastError;
    if (busy) {
      schedule.lastError = `${new Date(now).toISOString()}: not run, its previous run was not over`;
    } else {
      try {
        await runCrawler({ crawlerId: crawler.id, scheduled: true });
      } catch (e) {
        schedule.lastError = `${new Date(now).toISOString()}: ${e instanceof Error ? e.message : e}`;
      }
    }
    // Read again: the run just started may have written the crawler (its settings).
    const fresh = await db.get('crawlers', crawler.id);
    if (fresh?.schedule) {
      fresh.schedule = { ...schedule, everyHours: fresh.schedule.everyHours };
      await db.put('crawlers', fresh);
    }
  }
  await armSchedule();
}
