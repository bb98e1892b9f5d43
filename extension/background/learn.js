// Crawler generation: learning a pattern from one example page. Fetches the example, maps the
// site from the entry page (a learning job), learns the pattern when mapping is done and the
// targets' data fields (fields.js), saves it as a crawler and, unless told otherwise, crawls
// with it. Also the popup's pending request (started once site access is granted) and
// re-learning at another θ with the user's verdicts.
import { Job, defaultThreshold, drawnCompare, mayBeDrawn, pageRetryWaitMs } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { renderPage } from '../lib/render.js';
import { POST_MARK, fetchOne } from '../lib/runner.js';
import { requireAccess } from '../lib/site-access.js';
import { runCrawler } from './crawlers.js';
import { keepFields, learnFields } from './fields.js';
import { launch, newRecord } from './jobs.js';
import { politeness, settingsOf } from './settings.js';
import { ready } from './wasm.js';

/** @typedef {import('../lib/db.js').JobRecord} JobRecord */
/** @typedef {import('../lib/db.js').CrawlerRecord} CrawlerRecord */
/** @typedef {import('../lib/protocol.js').Settings} Settings */
/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */
/** @typedef {import('../lib/protocol.js').PendingStart} PendingStart */
/** @typedef {import('../lib/protocol.js').Message<'relearn'>} RelearnMessage */
/** @typedef {import('../lib/core-types.js').Learned} Learned */


/**
 * The example page as the site serves it (the pages it is compared with are fetched too); with
 * `post`, the answer to that POST of the page's form (keyed `url#exemplar-post=body`).
 * @param {string} url
 * @param {Settings} s
 * @param {string | null} [post] a url-encoded body
 */
async function fetchExample(url, s, post = null) {
  let r;
  const body = post === null ? {} : { post: { body: post, contentType: 'application/x-www-form-urlencoded' } };
  // A site that says "come back later" (429, 503) is asked again after the wait, as the jobs'
  // own requests are.
  for (let attempt = 1; ; attempt++) {
    r = await fetchOne({ url, kind: 'page', ...body }, { maxBytes: s.maxBytes, timeoutMs: s.timeoutMs, signal: new AbortController().signal });
    const retryAfter = r.headers?.find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
    const wait = r.error === undefined ? pageRetryWaitMs(r.status, retryAfter, attempt) : undefined;
    if (wait === undefined) break;
    await new Promise((ok) => setTimeout(ok, wait));
  }
  if (r.error !== undefined) throw new Error(`The example page ${url} is unreachable: ${r.error}`);
  if (r.status < 200 || r.status >= 300) throw new Error(`The example page ${url} answered HTTP ${r.status}`);
  const type = r.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null;
  if (r.body.length === 0) throw new Error(`The example page ${url} is not an HTML page (${type ?? 'no content type'})`);
  if (r.truncated) throw new Error(`The example page ${url} is larger than ${s.maxBytes} bytes`);
  if (post === null) return { url: r.finalUrl, body: r.body, contentType: type };
  if (!samePage(r.finalUrl, url)) {
    throw new Error(`The example page's form, submitted as it stands, was answered by a redirect to ${r.finalUrl}`);
  }
  return { url: url.split('#')[0] + POST_MARK + post, body: r.body, contentType: type };
}

/**
 * Whether two URLs name one page (their fragments aside).
 * @param {string} a
 * @param {string} b
 */
function samePage(a, b) {
  return a.split('#')[0] === b.split('#')[0];
}

/**
 * The example: its URL fetched, or — when that answers an error or a redirect elsewhere and the
 * tab's page has a POST form submitting to itself — the answer to that form as it stands: the
 * page was a form's answer (a search's results), which its URL alone does not give again.
 * @param {string} url
 * @param {string | null | undefined} post
 * @param {Settings} s
 */
async function exampleOf(url, post, s) {
  if (!post) return fetchExample(url, s);
  try {
    const got = await fetchExample(url, s);
    if (samePage(got.url, url)) return got;
  } catch { /* asked again below, as the form's answer */ }
  return fetchExample(url, s, post);
}

/**
 * Whether a generation renders pages: the example is rendered in a background tab when it has a
 * script that runs, and the two are compared (the core's `drawnCompare`). When the rendered page
 * shows content its HTML lacks, pages are rendered and the example is the rendered one.
 * @param {{url: string, body: Uint8Array, contentType: string | null}} example
 * @returns {Promise<{rendering: import('../lib/protocol.js').Rendering, example: {url: string, body: Uint8Array, contentType: string | null}}>}
 */
async function chooseRendering(example) {
  const off = (/** @type {string} */ why) => ({ rendering: { on: false, why, rendered: 0, failed: 0, firstError: null }, example });
  // A form's answer cannot be loaded in a tab by its URL.
  if (example.url.includes(POST_MARK)) return off('Pages are fetched, not rendered: the example page is a form\'s answer to a POST.');
  if (!mayBeDrawn(example.body)) return off('Pages are fetched, not rendered: the example page has no script.');
  let drawn;
  try {
    drawn = await renderPage(example.url);
  } catch (e) {
    return off(`Pages are fetched, not rendered: the example page could not be rendered (${e instanceof Error ? e.message : e}).`);
  }
  const compared = drawnCompare(example.url, example.body, example.contentType ?? undefined, drawn.html);
  if (!compared.matters) return off(`Pages are fetched, not rendered: rendered, the example shows nothing its HTML lacks (${compared.summary}).`);
  return {
    rendering: {
      on: true,
      why: `The example page is drawn by scripts (${compared.summary}): pages are rendered in the browser.`,
      rendered: 1,
      failed: 0,
      firstError: null,
    },
    example: { url: example.url, body: new TextEncoder().encode(drawn.html), contentType: 'text/html; charset=utf-8' },
  };
}

/**
 * The pattern's JSON with `render` set as the job chose (a crawl of it renders too).
 * @param {string} json
 * @param {boolean | undefined} render
 */
export function withRender(json, render) {
  if (!render) return json;
  const pattern = JSON.parse(json);
  pattern.render = true;
  return JSON.stringify(pattern, null, 2);
}

/**
 * Starts a generation: a learning job from `entryUrl` (default: the site's home page) looking
 * for pages like `exampleUrl` (with `examplePost`: see `exampleOf`).
 * @param {{exampleUrl: string, examplePost?: string | null, entryUrl?: string, settings?: Partial<Settings>}} msg
 * @returns {Promise<{jobId: string}>}
 */
export async function startLearn({ exampleUrl, examplePost, entryUrl, settings }) {
  await ready;
  const s = settingsOf(settings);
  if (typeof exampleUrl !== 'string') throw new Error('no example page URL');
  const entry = entryUrl || new URL('/', exampleUrl).href;
  await requireAccess(exampleUrl);
  await requireAccess(entry);
  const { rendering, example } = await chooseRendering(await exampleOf(exampleUrl, examplePost, s));
  const config = {
    maxPages: s.maxPages,
    maxDepth: s.maxDepth,
    maxBytes: s.maxBytes,
    similarity: { threshold: s.threshold },
    politeness: politeness(s),
  };
  const job = Job.learn(entry, example.url, example.body, example.contentType, config);
  const record = newRecord('learn', { entry, example: example.url, settings: s, exampleContentType: example.contentType, rendering });
  record.exampleBody = example.body;
  return launch(record, job);
}

// A generation asked for in the popup, waiting for the user to grant site access. The popup may
// have been closed by the permission prompt, so the worker starts it when access arrives.
const PENDING = 'pendingStart';
const PENDING_MAX_AGE_MS = 10 * 60_000;
/** Generations started from a pending request: its id → the startLearn promise (one job per id).
 * @type {Map<string, Promise<{jobId: string}>>} */
const startedPending = new Map();

/**
 * Starts the pending generation once: from the popup (`id` and `pending` given, access granted
 * without the popup closing) or from permissions.onAdded (no id: only when every origin it needs
 * is granted now). Returns {jobId}, or null when there is nothing to start.
 * @param {{id?: string, pending?: PendingStart}} [msg]
 * @returns {Promise<{jobId: string} | null>}
 */
export async function startPending({ id, pending: given } = {}) {
  const already = id ? startedPending.get(id) : undefined;
  if (already) return already;
  const stored = /** @type {PendingStart | undefined} */ ((await chrome.storage.session.get(PENDING))[PENDING]);
  const pending = stored ?? (id && given?.id === id ? given : null);
  if (!pending || (id && pending.id !== id) || Date.now() - pending.at > PENDING_MAX_AGE_MS) return null;
  if (startedPending.has(pending.id)) return startedPending.get(pending.id) ?? null;
  if (!id && !(await chrome.permissions.contains({ origins: pending.origins }))) return null;
  if (startedPending.has(pending.id)) return startedPending.get(pending.id) ?? null;
  const started = startLearn(pending);
  startedPending.set(pending.id, started);
  await chrome.storage.session.remove(PENDING).catch(() => {});
  return started;
}

/**
 * The learning result kept for the result view (the pattern itself is in the crawler).
 * @param {Learned} learned
 * @returns {LearnedSummary}
 */
function learnedSummary(learned) {
  return {
    learnedAt: Date.now(),
    threshold: learned.threshold,
    rendered: learned.rendered,
    levels: learned.pattern.levels,
    targets: learned.targets,
    similarities: learned.similarities,
    nearMisses: learned.nearMisses,
    thresholdGap: learned.thresholdGap ?? null,
    thresholdLowered: learned.thresholdLowered ?? null,
    thresholdCut: learned.thresholdCut ?? null,
    doubtfulTargets: learned.doubtfulTargets,
    listingTargets: learned.listingTargets ?? [],
    corrections: learned.pattern.corrections ?? { like: [], unlike: [] },
    byHeading: learned.pattern.byHeading ?? [],
    unlikeByHeading: learned.pattern.unlikeByHeading ?? [],
    headingKinds: learned.headingKinds ?? [],
    headingKindsBelow: learned.headingKindsBelow ?? [],
    unlikeByLanguage: learned.pattern.unlikeByLanguage ?? [],
    languageKinds: learned.languageKinds ?? [],
    unlikeByDirectory: learned.pattern.unlikeByDirectory ?? [],
    directoryKinds: learned.directoryKinds ?? [],
    leftUnfetched: learned.leftUnfetched ?? [],
    sitemaps: learned.sitemaps ?? [],
    sitemapsRead: learned.sitemapsRead ?? 0,
    sitemapPages: learned.sitemapPages ?? 0,
    stats: learned.pattern.stats,
  };
}

/**
 * Why the entry page led nowhere, in words, or null when it was an HTML page.
 * @param {JobRecord} record
 */
function entryProblem(record) {
  const st = record.entryState;
  const entry = record.entry;
  if (!st) return null;
  if (st.state === 'notHtml') return `The entry page ${entry} is not an HTML page (${st.media_type || 'no content type'}): choose a page with links.`;
  if (st.state === 'httpError') return `The entry page ${entry} answered HTTP ${st.status}.`;
  if (st.state === 'failed') return `The entry page ${entry} is unreachable: ${st.error}.`;
  if (st.state === 'offSite') return `The entry page ${entry} redirects off the site, to ${st.final_url}.`;
  if (st.state === 'disallowed') return `The site's robots.txt does not allow Exemplar to fetch the entry page ${entry}.`;
  return null;
}

/**
 * @param {unknown} e
 * @param {JobRecord} record
 */
function explainLearnError(e, record) {
  const entry = entryProblem(record);
  if (entry) return entry;
  const message = e instanceof Error ? e.message : String(e);
  if (message.startsWith('no page similar')) {
    return `The example page is not similar to anything found: ${message}. Try another entry page, a lower similarity threshold or more pages.`;
  }
  return `No pattern learned from ${record.entry}: ${message}`;
}

/**
 * A learning job's pump is done: the pattern learned, saved as a crawler, then (unless the
 * settings say no) crawled with.
 * @param {import('./jobs.js').Run} run
 */
export async function finishLearn(run) {
  const { record, job } = run;
  /** @type {Learned} */
  let learned;
  try {
    // A θ the user set in the limits is kept even where only the example reaches it (the panel
    // then names the θ the scores give); the default θ is lowered to that one.
    const theta = record.settings.threshold;
    learned = job.learnPattern(theta === defaultThreshold() ? undefined : theta, Date.now(), undefined);
  } catch (e) {
    record.status = 'failed';
    record.error = explainLearnError(e, record);
    await db.put('jobs', record);
    return;
  }
  // The data fields of the targets, read from the example and a sample of them; without them
  // the crawler still collects the pages.
  let patternJson = withRender(learned.patternJson, record.rendering?.on);
  try {
    patternJson = (await learnFields(patternJson, record, run.control)).patternJson;
  } catch (e) {
    record.fieldsError = `No data fields learned: ${e instanceof Error ? e.message : e}`;
  }
  /** @type {CrawlerRecord} */
  const crawler = {
    id: db.newId('crawler'),
    site: learned.pattern.site,
    entry: record.entry,
    example: record.example,
    exampleBody: record.exampleBody,
    exampleContentType: record.exampleContentType,
    createdAt: Date.now(),
    patternJson,
    threshold: learned.threshold,
    learnJobId: record.id,
    settings: record.settings,
    runs: [],
  };
  await db.put('crawlers', crawler);
  record.crawlerId = crawler.id;
  record.result = learnedSummary(learned);
  record.status = 'done';
  await db.put('jobs', record);
  // A cancelled generation keeps what it learned, without starting the crawl the user stopped.
  if (record.settings.crawlAfterLearning && record.stopped !== 'cancelled') await runCrawler({ crawlerId: crawler.id });
}

/**
 * A list of strings from a message, or a clear error (`what`: "URLs" or "strings").
 * @param {unknown} value
 * @param {string} name
 * @param {string} what
 * @returns {string[]}
 */
function listOf(value, name, what) {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((u) => typeof u !== 'string')) throw new Error(`${name} must be a list of ${what}`);
  return value;
}

/**
 * The learning result at θ `threshold` with the user's verdicts (replacing earlier ones), from
 * the pages already fetched; the crawler's pattern is replaced.
 * @param {RelearnMessage} msg
 * @returns {Promise<LearnedSummary>}
 */
export async function relearn({ jobId, threshold, like, unlike, unlikeHeadings, likeHeadings, unlikeLanguages, likeLanguages, unlikeDirectories, likeDirectories }) {
  await ready;
  const record = await db.get('jobs', jobId);
  if (!record || record.kind !== 'learn') throw new Error(`no learning job ${jobId}`);
  if (record.status !== 'done') throw new Error(`the learning job is ${record.status}`);
  if (!record.snapshot) throw new Error('the learning job kept no snapshot to re-learn from');
  if (typeof threshold !== 'number') throw new Error('threshold must be a number');
  const corrections = {
    like: listOf(like, 'like', 'URLs'), unlike: listOf(unlike, 'unlike', 'URLs'),
    unlikeHeadings: listOf(unlikeHeadings, 'unlikeHeadings', 'strings'),
    likeHeadings: listOf(likeHeadings, 'likeHeadings', 'strings'),
    unlikeLanguages: listOf(unlikeLanguages, 'unlikeLanguages', 'strings'),
    likeLanguages: listOf(likeLanguages, 'likeLanguages', 'strings'),
    unlikeDirectories: listOf(unlikeDirectories, 'unlikeDirectories', 'URLs'),
    likeDirectories: listOf(likeDirectories, 'likeDirectories', 'URLs'),
  };
  const job = Job.restore(record.snapshot);
  /** @type {Learned} */
  let learned;
  try {
    learned = job.learnPattern(threshold, Date.now(), corrections);
  } catch (e) {
    throw new Error(explainLearnError(e, record));
  } finally {
    job.free();
  }
  // A learning job's result is its summary (a crawl's is a CrawlResult).
  const before = /** @type {LearnedSummary | null} */ (record.result)?.thresholdLowered;
  const result = learnedSummary(learned);
  // Still at the θ learning took from the scores: the reason for it still holds.
  if (before && learned.threshold === before.to) result.thresholdLowered = before;
  record.result = result;
  await db.put('jobs', record);
  const crawler = record.crawlerId ? await db.get('crawlers', record.crawlerId) : undefined;
  if (crawler) {
    // Re-learning changes which pages are targets, not what a target's data is: the fields
    // learned and edited stay.
    crawler.patternJson = keepFields(withRender(learned.patternJson, record.rendering?.on), crawler.patternJson);
    crawler.threshold = learned.threshold;
    await db.put('crawlers', crawler);
  }
  return result;
}
