// "Find item pages": a site's sections of item pages, searched in a few fetches with the browser's
// fetch (the user's session, credentials included) by the core's detector (wasm DetectJob),
// pumped as the learning and crawling jobs are. The last answer is kept in storage.session (key
// `detection`) for the side panel, which lists it; it is not saved beyond the browser's session:
// a detection is at most a few pages, asked again at will.
import { DetectJob } from '../pkg/exemplar.js';
import { pump } from '../lib/runner.js';
import { requireAccess } from '../lib/site-access.js';
import { defaults } from './settings.js';
import { ready } from './wasm.js';

/** Fetches a detection asks at most. */
export const MAX_FETCHES = 10;

/**
 * Searches the site of `url` from that page.
 * @param {{url: string, delayMs?: number, settings?: Partial<import('../lib/protocol.js').Settings>}} msg
 *   `settings`: the limits a generation from the answer takes (kept with it for the panel)
 * @returns {Promise<import('../pkg/exemplar.js').Detection>}
 */
export async function detectSite(msg) {
  await ready;
  await requireAccess(msg.url);
  const settings = defaults();
  const delayMs = Number.isFinite(msg.delayMs) ? Math.max(0, Number(msg.delayMs)) : settings.delayMs;
  const job = new DetectJob(msg.url, MAX_FETCHES, delayMs, settings.obeyRobots);
  try {
    const control = { paused: false, cancelled: false, current: '', wake: () => {} };
    await pump(/** @type {any} */ (job), {
      maxBytes: settings.maxBytes,
      control,
      onEvents: async () => {},
      onCheckpoint: async () => {},
    });
    const result = /** @type {import('../pkg/exemplar.js').Detection} */ (job.result());
    if (result.visited.length > 0 && result.visited.every((v) => v.kind.startsWith('failed'))) {
      throw new Error(`${new URL(msg.url).origin} answered nothing (${result.visited[0].kind})`);
    }
    const kept = { ...result, at: Date.now(), settings: msg.settings ?? {} };
    await chrome.storage.session.set({ detection: kept }).catch(() => {});
    return result;
  } finally {
    job.free();
  }
}
