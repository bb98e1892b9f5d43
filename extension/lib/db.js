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
const NAME = 'exemplar';
const VERSION = 1;

let opened = null;

/** The database (opened once per context). */
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

const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

async function store(name, mode) {
  return (await db()).transaction(name, mode).objectStore(name);
}

export async function get(name, key) {
  return done((await store(name, 'readonly')).get(key));
}

export async function put(name, value) {
  return done((await store(name, 'readwrite')).put(value));
}

export async function remove(name, key) {
  return done((await store(name, 'readwrite')).delete(key));
}

export async function all(name) {
  return done((await store(name, 'readonly')).getAll());
}

/** Pages of one crawler without their bodies (lists and counts; exports read bodies by batch). */
export async function pagesOf(crawlerId) {
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
 */
export async function eachPageBatch(crawlerId, size, onBatch, keep = () => true) {
  // Keys are [crawlerId, url]; an array sorts after every string, so this range is one crawler.
  const range = IDBKeyRange.bound([crawlerId], [crawlerId, []]);
  const request = (await store('pages', 'readonly')).openCursor(range);
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
 * counts). */
export function changeIn(page, jobId, reran) {
  if (!reran || jobId === undefined || page.jobId !== jobId) return undefined;
  return page.firstJobId === jobId ? 'new' : page.changedJobId === jobId ? 'changed' : 'same';
}

/** Stores a crawl's target page. The first job that found it is kept (to mark new pages), and
 * the last job that found its text changed (`textDigest`: title and visible text, signed by the
 * core) as `changedJobId`. */
export async function putPage(page) {
  const s = await store('pages', 'readwrite');
  const old = await done(s.get([page.crawlerId, page.url]));
  const changed = Boolean(old?.textDigest && page.textDigest && old.textDigest !== page.textDigest);
  const changedJobId = changed ? page.jobId : old?.changedJobId;
  return done(s.put({ ...page, firstJobId: old?.firstJobId ?? page.jobId, ...(changedJobId ? { changedJobId } : {}) }));
}

/** Deletes a crawler, its pages and its jobs. */
export async function removeCrawler(crawlerId) {
  const d = await db();
  const tx = d.transaction(['crawlers', 'pages', 'jobs'], 'readwrite');
  tx.objectStore('crawlers').delete(crawlerId);
  const pages = tx.objectStore('pages');
  for (const key of await done(pages.index('crawlerId').getAllKeys(crawlerId))) pages.delete(key);
  const jobs = tx.objectStore('jobs');
  for (const job of await done(jobs.getAll())) if (job.crawlerId === crawlerId) jobs.delete(job.id);
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

/** A fresh id: time-ordered, unique enough for one browser profile. */
export function newId(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
