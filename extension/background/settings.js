// A job's settings: the defaults (the core's, from its `defaultSettings()`, plus the extension's
// own), and the checks that turn what a page sends into settings, form-level queries and the
// core's politeness config. One source for the core's defaults: the command line starts from
// the same ones.
import { defaultSettings } from '../pkg/exemplar.js';

/** @typedef {import('../lib/protocol.js').Settings} Settings */
/** @typedef {import('../lib/protocol.js').ExtensionSettings} ExtensionSettings */
/** @typedef {import('../lib/protocol.js').Forms} Forms */
/** @typedef {import('../lib/protocol.js').FormsSettings} FormsSettings */
/** @typedef {import('../lib/protocol.js').QueryPolicy} QueryPolicy */

/** The extension's own settings, which the core knows nothing of.
 * @type {Readonly<ExtensionSettings>} */
const EXTENSION_DEFAULTS = {
  timeoutMs: 30_000,
  crawlAfterLearning: true,
  verify: false,
};

/**
 * The settings a job starts from, the popup's "limits" (call after `await ready`). `obeyRobots`
 * (robots.txt and robots meta tags) may be turned off: the user's choice for a site that asks
 * robots not to follow its links (gitweb asks so on every page).
 * @returns {Settings}
 */
export const defaults = () => ({
  .../** @type {import('../lib/core-types.js').CoreSettings} */ (defaultSettings()),
  ...EXTENSION_DEFAULTS,
});

/** Settings that are whole numbers ≥ 1. */
const COUNTS = /** @type {const} */ (['maxPages', 'maxDepth', 'concurrency', 'maxBytes', 'timeoutMs']);

/**
 * The settings of a job: `given` over the defaults, checked (a clear error for an unknown key, a
 * value of the wrong type or out of range). Call after `await ready`.
 * @param {Partial<Settings> | null | undefined} given
 * @returns {Settings}
 */
export const settingsOf = (given) => {
  const s = defaults();
  const byKey = /** @type {Record<string, unknown>} */ (s);
  for (const [k, v] of Object.entries(given ?? {})) {
    if (!(k in s)) throw new Error(`unknown setting ${k}`);
    if (typeof v !== typeof byKey[k]) throw new Error(`setting ${k} must be a ${typeof byKey[k]}`);
    byKey[k] = v;
  }
  if (!(s.threshold >= 0 && s.threshold <= 1)) throw new Error('the similarity threshold must be between 0 and 1');
  for (const k of COUNTS) {
    if (!(Number.isInteger(s[k]) && s[k] >= 1)) throw new Error(`${k} must be a whole number ≥ 1`);
  }
  if (!(Number.isInteger(s.delayMs) && s.delayMs >= 0)) throw new Error('delayMs must be a whole number ≥ 0');
  // As the command line's --max-bytes: a page below 1 KiB is no page, past 1 GiB no tab holds it.
  if (!(s.maxBytes >= 1024 && s.maxBytes <= 2 ** 30)) throw new Error('the page size limit (maxBytes) must be between 1 KiB and 1 GiB');
  return s;
};

/** Query policies of form levels (the core's names).
 * @type {QueryPolicy[]} */
const POLICIES = ['adaptive', 'values', 'thesis', 'genericFrequency', 'random'];

/**
 * The crawl's `forms` config from the user's: {queries?, policy?, budget?}. Values: a list, or a
 * text of values one a line or comma-separated; trimmed, empty ones dropped (none: the policy).
 * @param {FormsSettings | null | undefined} given
 * @returns {Forms}
 */
export function formsOf(given) {
  if (given === undefined || given === null) return {};
  if (typeof given !== 'object') throw new Error('forms must be an object');
  /** @type {Forms} */
  const out = {};
  for (const k of Object.keys(given)) {
    if (!['queries', 'policy', 'budget'].includes(k)) throw new Error(`unknown form setting ${k}`);
  }
  if (given.queries !== undefined && given.queries !== null) {
    const list = Array.isArray(given.queries) ? given.queries : String(given.queries).split(/[\n,]/);
    const queries = list.map((v) => String(v).trim()).filter(Boolean);
    if (queries.length) out.queries = queries;
  }
  if (given.policy) {
    if (!POLICIES.includes(given.policy)) throw new Error(`unknown query policy ${given.policy} (${POLICIES.join(', ')})`);
    out.policy = given.policy;
  }
  if (given.budget !== undefined && given.budget !== null && given.budget !== '') {
    const budget = Number(given.budget);
    if (!(Number.isInteger(budget) && budget >= 1)) throw new Error('the query budget must be a whole number ≥ 1');
    out.budget = budget;
  }
  return out;
}

/**
 * The core's politeness config of a job's settings (`concurrency`: overall and per host).
 * @param {Settings} s
 */
export const politeness = (s) => ({ delayMs: s.delayMs, maxInFlight: s.concurrency, maxInFlightPerHost: s.concurrency, obeyRobots: s.obeyRobots });
