// Exemplar's storage: one IndexedDB database shared by the service worker and the extension pages
// (same origin). Owns the record shapes; knows nothing of crawling.
//
// | store      | key              | record                                                            |
// |------------|------------------|-------------------------------------------------------------------|
// | `jobs`     | id               | {id, kind: 'learn'|'crawl', crawlerId, status, snapshot, progress,  |
// |            |                  |  current, errors[], settings, startedAt, updatedAt, stopped,      |
// |            |                  |  error, result}                                                   |
// | `crawlers` | id               | {id, site, entry, example, createdAt, patternJson, threshold,     |
// |            |                  |  learnJobId, schedule, runs: [{jobId, at, targets,               |
// |            |                  |  newSinceLastRun, changedSinceLastRun, queries, stopped,         |
// |            |                  |  scheduled}]}                                                    |
// | `pages`    | [crawlerId, url] | a crawl's target page: the core's `target` event (body as bytes)  |
// |            |                  |  plus crawlerId, jobId, firstJobId, changedJobId                  |
//
// status: 'running' | 'paused' | 'done' | 'failed' | 'cancelled'.

/** @typedef {import('./protocol.js').CrawlerSummary} CrawlerSummary */
/** @typedef {import('./core-types.js').TargetEvent} TargetEvent */

/**
 * A job (`jobs` store): what the worker checkpoints, and what a stopped worker resumes from
 * (`snapshot`, the core's). A generation keeps its example page (`exampleBody`) for its crawler.
 * @typedef {object} JobRecord
 * @property {string} id
 * @property {import('./protocol.js').JobKind} kind
 * @property {import('./protocol.js').JobState} status
 * @property {string} [crawlerId]
 * @property {string} entry
 * @property {string} example
 * @property {import('./protocol.js').Settings} settings
 * @property {number} startedAt
 * @property {number} updatedAt
 * @property {string | null} snapshot
 * @property {import('./core-types.js').Progress | null} progress
 * @property {string} current
 * @property {import('./protocol.js').JobError[]} errors the last MAX_ERRORS
 * @property {string | null} error
 * @property {import('./core-types.js').StopReason | null} stopped
 * @property {import('./protocol.js').LearnedSummary | import('./protocol.js').CrawlResult | null} result
 * @property {import('./protocol.js').TooLarge} [tooLarge]
 * @property {import('./core-types.js').Trap[]} [traps]
 * @property {Uint8Array} [exampleBody]
 * @property {string | null} [exampleContentType]
 * @property {import('./core-types.js').NodeState} [entryState]
 * @property {import('./protocol.js').Forms} [forms]
 * @property {number | null} [queryBudget]
 * @property {Omit<import('./core-types.js').QueryEvent, 'type'> | null} [lastQuery]
 * @property {Record<string, {issued: number, budget: number}>} [formLevels]
 * @property {import('./protocol.js').Retry} [lastRetry]
 * @property {string[]} [replicaHosts] hosts the crawl took for replicas of the site
 * @property {boolean} [scheduled]
 * @property {import('./protocol.js').Rendering} [rendering] pages drawn by scripts are rendered
 * @property {string} [fieldsError] why no data fields were learned (the crawler works without)
 * @property {import('./protocol.js').TooLarge} [fileErrors] links to files (images, documents)
 *   that failed: counted apart from the pages' errors, the first named with why
 */

/** A saved crawler (`crawlers` store): with the example page learning fetched, which a crawl compares with.
 * @typedef {CrawlerSummary & {exampleBody?: Uint8Array}} CrawlerRecord */

/**
 * A crawl's target page (`pages` store): the core's `target` event, its crawler and the jobs that
 * found it (`firstJobId`: first; `changedJobId`: last to find its text changed).
 * @typedef {Omit<TargetEvent, 'type'> & {type?: undefined, crawlerId: string, jobId: string, firstJobId?: string, changedJobId?: string}} PageRecord
 */

/** A stored page without its body (lists and counts). @typedef {Omit<PageRecord, 'body'>} PageSummary */

/** @typedef {{jobs: JobRecord, crawlers: CrawlerRecord, pages: PageRecord}} Stores */
/** @typedef {keyof Stores} StoreName */
const NAME = 'exemplar';
const VERSION = 1;

/** @type {Promise<IDBDatabase> | null} */
let opened = null;

/**
 * The database (opened once per context).
 * @returns {Promise<IDBDatabase>}
 */
export function db() {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(NAME, VERSION);
    request.onupgradeneeded = () => {
      const d = request.result;
      if (!d.objectStoreNames.contains('jobs')) d.createObjectStore('jobs', { keyPath: 'id' });
      if (!d.objectStoreNames.contains('crawlers')) d.createObjectStore('crawlers', { keyPath: 'id' });
      if (!d.objectStoreNames.contains('pages')) {
        const pages = d.createObjectStore('pages', { keyPath: ['crawlerId', 'url'] });
        pages.createIndex('crawlerId', 'crawlerId');
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('could not open the database'));
  });
  return opened;
}

/**
 * @template T
 * @param {IDBRequest<T>} request
 * @returns {Promise<T>}
 */
const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

/**
 * @param {StoreName} name
 * @param {IDBTransactionMode} mode
 */
async function store(name, mode) {
  return (await db()).transaction(name, mode).objectStore(name);
}

/**
 * The record of `name` under `key`, or undefined.
 * @template {StoreName} S
 * @param {S} name
 * @param {IDBValidKey} key
 * @returns {Promise<Stores[S] | undefined>}
 */
export async function get(name, key) {
  return done((await store(name, 'readonly')).get(key));
}

/**
 * Stores `value` in `name` (its key is in it).
 * @template {StoreName} S
 * @param {S} name
 * @param {Stores[S]} value
 * @returns {Promise<IDBValidKey>}
 */
export async function put(name, value) {
  return done((await store(name, 'readwrite')).put(value));
}

/**
 * @param {StoreName} name
 * @param {IDBValidKey} key
 * @returns {Promise<void>}
 */
export async function remove(name, key) {
  return done((await store(name, 'readwrite')).delete(key));
}

/**
 * Every record of `name`.
 * @template {StoreName} S
 * @param {S} name
 * @returns {Promise<Stores[S][]>}
 */
export async function all(name) {
  return done((await store(name, 'readonly')).getAll());
}

/**
 * Pages of one crawler without their bodies (lists and counts; exports read bodies by batch).
 * @param {string} crawlerId
 * @returns {Promise<PageSummary[]>}
 */
export async function pagesOf(crawlerId) {
  /** @type {PageSummary[]} */
  const out = [];
  await eachPageBatch(crawlerId, 500, (pages) => {
    for (const { body, ...summary } of pages) out.push(summary);
  });
  return out;
}

/**
 * Hands the pages of one crawler that `keep` keeps (all by default) to `onBatch(pages)` `size`
 * at a time, in URL order, through a cursor, so that only one batch is in memory; returns how
 * many pages were handed. `onBatch` runs inside the read transaction and must be synchronous (an
 * await would let it close).
 * @param {string} crawlerId
 * @param {number} size
 * @param {(pages: PageRecord[]) => void} onBatch
 * @param {(page: PageRecord) => boolean} [keep]
 * @returns {Promise<number>}
 */
export async function eachPageBatch(crawlerId, size, onBatch, keep = () => true) {
  // Keys are [crawlerId, url]; an array sorts after every string, so this range is one crawler.
  const range = IDBKeyRange.bound([crawlerId], [crawlerId, []]);
  const request = (await store('pages', 'readonly')).openCursor(range);
  /** @type {PageRecord[]} */
  let batch = [];
  let count = 0;
  return new Promise((resolve, reject) => {
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      try {
        const cursor = request.result;
        if (!cursor) {
          if (batch.length > 0) onBatch(batch);
          resolve(count);
          return;
        }
        if (!keep(cursor.value)) {
          cursor.continue();
          return;
        }
        batch.push(cursor.value);
        count += 1;
        if (batch.length >= Math.max(1, size)) {
          onBatch(batch);
          batch = [];
        }
        cursor.continue();
      } catch (e) {
        reject(e);
      }
    };
  });
}

/** What a stored page is in job `jobId` of its crawler against the crawler's run before it:
 * 'new' (first found then), 'changed' (its text changed then) or 'same' (found then, as it
 * was); undefined when that job did not find it, or had no run before it (`reran` false). The
 * one reading of `firstJobId` and `changedJobId` (the page list's marks, the exports, a run's
 * counts).
 * @param {{jobId: string, firstJobId?: string, changedJobId?: string}} page
 * @param {string | undefined} jobId
 * @param {boolean} reran
 * @returns {'new' | 'changed' | 'same' | undefined}
 */
export function changeIn(page, jobId, reran) {
  if (!reran || jobId === undefined || page.jobId !== jobId) return undefined;
  return page.firstJobId === jobId ? 'new' : page.changedJobId === jobId ? 'changed' : 'same';
}

/** Stores a crawl's target page. The first job that found it is kept (to mark new pages), and
 * the last job that found its text changed (`textDigest`: title and visible text, signed by the
 * core) as `changedJobId`.
 * @param {PageRecord} page
 * @returns {Promise<IDBValidKey>}
 */
export async function putPage(page) {
  const s = await store('pages', 'readwrite');
  /** @type {PageRecord | undefined} */
  const old = await done(s.get([page.crawlerId, page.url]));
  const changed = Boolean(old?.textDigest && page.textDigest && old.textDigest !== page.textDigest);
  const changedJobId = changed ? page.jobId : old?.changedJobId;
  return done(s.put({ ...page, firstJobId: old?.firstJobId ?? page.jobId, ...(changedJobId ? { changedJobId } : {}) }));
}

/**
 * Deletes a crawler, its pages and its jobs.
 * @param {string} crawlerId
 * @returns {Promise<void>}
 */
export async function removeCrawler(crawlerId) {
  const d = await db();
  const tx = d.transaction(['crawlers', 'pages', 'jobs'], 'readwrite');
  tx.objectStore('crawlers').delete(crawlerId);
  const pages = tx.objectStore('pages');
  for (const key of await done(pages.index('crawlerId').getAllKeys(crawlerId))) pages.delete(key);
  const jobs = tx.objectStore('jobs');
  for (const job of /** @type {JobRecord[]} */ (await done(jobs.getAll()))) if (job.crawlerId === crawlerId) jobs.delete(job.id);
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

/**
 * A fresh id: time-ordered, unique enough for one browser profile.
 * @param {string} prefix
 * @returns {string}
 */
export function newId(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
