// Saved crawlers: a learned (or imported) pattern with its entry, example page and settings. Runs
// one (a crawl job), records the run when it is done (targets, pages new or changed since the
// last run, coverage), lists, names, imports and deletes them.
import { Job, validatePattern } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { requireAccess } from '../lib/site-access.js';
import { isRunning, launch, newRecord } from './jobs.js';
import { defaults, formsOf, politeness, settingsOf } from './settings.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/db.js').CrawlerRecord} CrawlerRecord */
/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */
/** @typedef {import('../lib/protocol.js').Forms} Forms */
/** @typedef {import('../lib/protocol.js').RunSettings} RunSettings */

/**
 * A crawler as the pages see it: without the example page's body.
 * @param {CrawlerRecord} crawler
 * @returns {CrawlerSummary}
 */
export function summaryOf(crawler) {
  const { exampleBody, ...rest } = crawler;
  return rest;
}

/**
 * Queries the crawl may issue over all its form levels (null: the pattern has none).
 * @param {string} patternJson
 * @param {Forms} forms
 * @returns {number | null}
 */
function queryBudget(patternJson, forms) {
  /** @type {import('../lib/core-types.js').PatternLevel[]} */
  let levels = [];
  try {
    levels = JSON.parse(patternJson).levels ?? [];
  } catch { /* validated by the core */ }
  const formLevels = levels.filter((l) => l.form);
  if (!formLevels.length) return null;
  return formLevels.reduce((n, l) => n + (forms.budget ?? l.form?.budget ?? 100), 0);
}

/**
 * Runs a saved crawler (again): a crawl job with its pattern, `settings` over the crawler's.
 * @param {{crawlerId: string, settings?: RunSettings, scheduled?: boolean}} msg
 * @returns {Promise<{jobId: string}>}
 */
export async function runCrawler({ crawlerId, settings, scheduled = false }) {
  await ready;
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no saved crawler ${crawlerId}`);
  const { forms: givenForms, ...rest } = settings ?? {};
  const forms = formsOf(givenForms);
  const s = settingsOf({ ...crawler.settings, ...rest });
  await requireAccess(crawler.entry);
  // A larger page size asked for (the panel's "Crawl again reading pages up to"): the crawler
  // keeps it, or its next run would skip the same pages again.
  if (rest.maxBytes !== undefined && crawler.settings?.maxBytes !== s.maxBytes) {
    crawler.settings = { ...crawler.settings, maxBytes: s.maxBytes };
    await db.put('crawlers', crawler);
  }
  // With the example page kept from learning, the crawl compares with it the targets learning
  // did not know (a re-run's new pages) — or every target when the settings say `verify`.
  const example = crawler.exampleBody ? crawler : null;
  const config = { maxBytes: s.maxBytes, politeness: politeness(s), forms, verifyNewOnly: !s.verify };
  const job = Job.crawl(crawler.patternJson, config, example?.example, example?.exampleBody, example?.exampleContentType ?? undefined);
  // A pattern learned from a page drawn by scripts (or imported so) renders its pages too.
  const render = Boolean(JSON.parse(crawler.patternJson).render);
  const record = newRecord('crawl', {
    crawlerId, entry: crawler.entry, example: crawler.example, settings: s,
    forms, queryBudget: queryBudget(crawler.patternJson, forms), lastQuery: null, scheduled,
    rendering: { on: render, why: render ? 'The pattern says the site\'s pages are drawn by scripts: they are rendered in the browser.' : '', rendered: 0, failed: 0, firstError: null },
  });
  return launch(record, job);
}

/**
 * A crawl's pump is done: its result, and the run recorded in its crawler.
 * @param {import('./jobs.js').Run} run
 */
export async function finishCrawl(run) {
  const { record, job } = run;
  /** @type {import('../lib/core-types.js').Coverage} */
  const coverage = job.coverage();
  const crawler = record.crawlerId ? await db.get('crawlers', record.crawlerId) : undefined;
  const pages = record.crawlerId ? await db.pagesOf(record.crawlerId) : [];
  const found = pages.filter((p) => p.jobId === record.id);
  const firstRun = !crawler?.runs?.length;
  const count = (/** @type {string} */ change) => found.filter((p) => db.changeIn(p, record.id, !firstRun) === change).length;
  const newSinceLastRun = count('new');
  const changedSinceLastRun = count('changed');
  const queries = record.progress?.queries ?? 0;
  record.result = {
    targets: found.length,
    newSinceLastRun,
    changedSinceLastRun,
    queries,
    coverage: { known: coverage.known, reached: coverage.reached, missed: coverage.missed, new: coverage.new.length },
  };
  record.status = 'done';
  await db.put('jobs', record);
  if (crawler) {
    crawler.runs.push({
      jobId: record.id, at: Date.now(), targets: found.length, newSinceLastRun, changedSinceLastRun, queries,
      stopped: record.stopped, scheduled: Boolean(record.scheduled),
    });
    await db.put('crawlers', crawler);
  }
}

/** @returns {Promise<CrawlerSummary[]>} the saved crawlers, newest first */
export async function crawlers() {
  const list = await db.all('crawlers');
  list.sort((a, b) => b.createdAt - a.createdAt);
  return list.map(summaryOf);
}

/**
 * A crawler from a pattern the user saved (JSON text): a clear error if it is malformed.
 * @param {{json: string}} msg
 * @returns {Promise<CrawlerSummary>}
 */
export async function importPattern({ json }) {
  await ready;
  /** @type {import('../lib/core-types.js').Pattern} */
  let pattern;
  try {
    pattern = validatePattern(String(json ?? ''));
  } catch (e) {
    throw new Error(`Not a valid Exemplar pattern: ${e instanceof Error ? e.message : e}`);
  }
  const base = defaults();
  /** @type {CrawlerRecord} */
  const crawler = {
    id: db.newId('crawler'), site: pattern.site, entry: pattern.entry, example: pattern.example,
    createdAt: Date.now(), patternJson: JSON.stringify(pattern, null, 2), threshold: pattern.similarity?.threshold,
    learnJobId: null, imported: true,
    settings: { ...base, delayMs: pattern.politeness?.delayMs ?? base.delayMs, threshold: pattern.similarity?.threshold ?? base.threshold },
    runs: [],
  };
  await db.put('crawlers', crawler);
  return summaryOf(crawler);
}

/**
 * Names a crawler (shown in place of its site; an empty name: its site again).
 * @param {{crawlerId: string, name: string}} msg
 * @returns {Promise<CrawlerSummary>}
 */
export async function renameCrawler({ crawlerId, name }) {
  if (typeof name !== 'string') throw new Error('name must be a string');
  const crawler = typeof crawlerId === 'string' ? await db.get('crawlers', crawlerId) : undefined;
  if (!crawler) throw new Error(`no crawler ${crawlerId}`);
  const given = name.trim().slice(0, 100);
  if (given) crawler.name = given;
  else delete crawler.name;
  await db.put('crawlers', crawler);
  return summaryOf(crawler);
}

/**
 * Deletes a crawler with its pages and jobs (refused while one of its jobs runs).
 * @param {{crawlerId: string}} msg
 */
export async function deleteCrawler({ crawlerId }) {
  if (isRunning(crawlerId)) throw new Error('a job of this crawler is running: cancel it first');
  await db.removeCrawler(crawlerId);
}
