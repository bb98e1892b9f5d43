// The driver of one job: pumps the sans-IO core (a wasm `Job`) with the browser's fetch.
//
// Several requests are in flight at once (the core decides how many, per host and overall, and
// when: per-host delay, robots.txt Crawl-delay). Results are handed back in the order they
// arrive; events go to `onEvents` (awaited, so pages are stored before the next checkpoint);
// `onCheckpoint` is awaited at most every `checkpointMs`, and within `checkpointMs` of a change
// even while the job waits for a host's delay. `control` steers a running pump:
//   control.paused = true   → returns 'paused' at once; in-flight requests are abandoned (the
//                             snapshot still lists them, and a restored job asks them again)
//   control.cancelled = true → the core stops handing out requests; in-flight results are taken
//                             for CANCEL_GRACE_MS, then what is still in flight is aborted (a
//                             hanging server does not hold a cancel for the whole timeout), and
//                             the pump returns 'done'
//   control.wake()          → set by the pump: call it after changing control
// Returns 'done' or 'paused'. Requests use the user's cookies (credentials: 'include'), so sites
// the user is logged into work.

/** @typedef {import('../pkg/exemplar.js').Job} Job */
/** @typedef {import('./core-types.js').CoreRequest} CoreRequest */
/** @typedef {import('./core-types.js').CoreEvent} CoreEvent */
/** @typedef {import('./core-types.js').Poll} Poll */
/** @typedef {import('./render.js').RenderState} RenderState */

/**
 * A request's outcome: the response (its body up to the size limit), or why there is none.
 * @typedef {{status: number, finalUrl: string, headers: [string, string][], body: Uint8Array, truncated: boolean, error?: undefined}
 *   | {error: string, status?: undefined, finalUrl?: undefined, headers?: undefined, body?: undefined, truncated?: undefined}} FetchResult
 */

/**
 * How a running pump is steered (see above); `current` is the URL asked last.
 * @typedef {{paused: boolean, cancelled: boolean, current: string, wake: () => void}} Control
 */

import { drawnStep } from './render.js';

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
/** What a request asks for, by kind: robots.txt, a script read for the page URLs it names, a
 * sitemap robots.txt names (XML, text or gzip), a page.
 * @type {Partial<Record<import('./core-types.js').RequestKind, string>>} */
const ACCEPTS = {
  robots: 'text/plain,*/*;q=0.1',
  script: '*/*',
  sitemap: 'application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.1',
};
// The browser's own user agent plus Exemplar's token, so sites can tell (and robots.txt rules for
// "exemplar" apply). Firefox sends it; Chromium keeps its own user agent for extension fetches.
const USER_AGENT = `${navigator.userAgent} Exemplar/0.1 (+https://exemplar.dev/bot)`;
const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;
// How long a cancelled job still waits for the answers in flight.
const CANCEL_GRACE_MS = 2000;

/**
 * Reads a body up to `maxBytes`; past it, stops reading and says so.
 * @param {Response} response
 * @param {number} maxBytes
 * @returns {Promise<{body: Uint8Array, truncated: boolean}>}
 */
async function readCapped(response, maxBytes) {
  if (!response.body) return { body: new Uint8Array(await response.arrayBuffer()), truncated: false };
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      await reader.cancel().catch(() => {});
      return { body: concat(chunks, size), truncated: true };
    }
    chunks.push(value);
    size += value.length;
  }
  return { body: concat(chunks, size), truncated: false };
}

/**
 * @param {Uint8Array[]} chunks
 * @param {number} size their total length
 */
function concat(chunks, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Marks a POST in a page key: `action#exemplar-post=body`, as the core keys a form's answers
 * (the example page when it is one, a learned target that is one). */
export const POST_MARK = '#exemplar-post=';

/**
 * Performs one request of the core. Never throws: failures come back as {error}.
 * Non-HTML pages are not downloaded (the core only needs their status and type).
 * @param {Pick<CoreRequest, 'url' | 'kind' | 'post'>} request
 * @param {{maxBytes: number, timeoutMs: number, signal: AbortSignal}} limits
 * @returns {Promise<FetchResult>}
 */

export async function fetchOne(request, { maxBytes, timeoutMs, signal }) {
  try {
    /** @type {Record<string, string>} */
    const headers = { accept: ACCEPTS[request.kind] ?? ACCEPT, 'user-agent': USER_AGENT };
    // A POST form submission carries its encoded body (redirects after it are GETs, as in a tab).
    const post = request.post ? { method: 'POST', body: request.post.body } : {};
    if (request.post) headers['content-type'] = request.post.contentType;
    const response = await fetch(request.url, {
      credentials: 'include',
      redirect: 'follow',
      cache: 'no-cache',
      headers,
      ...post,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    const type = response.headers.get('content-type');
    const base = { status: response.status, finalUrl: response.url || request.url, headers: /** @type {[string, string][]} */ ([...response.headers]) };
    if (request.kind === 'page' && type && !HTML_TYPE.test(type)) {
      response.body?.cancel().catch(() => {});
      return { ...base, body: new Uint8Array(0), truncated: false };
    }
    return { ...base, ...(await readCapped(response, maxBytes)) };
  } catch (caught) {
    const e = /** @type {{name?: string, message?: string} | null | undefined} */ (caught);
    if (e?.name === 'TimeoutError') return { error: `timed out after ${timeoutMs / 1000} s` };
    if (e?.name === 'AbortError') return { error: 'aborted' };
    // Chromium says "Failed to fetch" for DNS, connection, CORS (no site access) and redirect errors.
    return { error: `network error (${e?.message ?? e})` };
  }
}

/**
 * Runs `job` until it is done or paused. See the module comment.
 * @param {Job} job
 * @param {{maxBytes: number, timeoutMs?: number, checkpointMs?: number, control: Control,
 *   onEvents: (events: CoreEvent[]) => Promise<void>, onCheckpoint: () => Promise<void>,
 *   render?: RenderState, refuse?: (url: string) => Promise<string | null>}} options
 *   (`render`: pages are rendered where drawn by scripts, lib/render.js; `refuse`: why a URL
 *   must not be fetched, or null: a refused request is never sent and fails with that reason)
 * @returns {Promise<'done' | 'paused'>}
 */
export async function pump(job, { maxBytes, timeoutMs = 30_000, checkpointMs = 1000, control, onEvents, onCheckpoint, render, refuse }) {
  const abort = new AbortController();
  /** @type {{id: number, result: FetchResult}[]} */
  const ready = [];
  let inFlight = 0;
  /** @type {((value?: unknown) => void) | null} */
  let wake = null;
  control.wake = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const nap = (/** @type {number | undefined} */ ms) => new Promise((resolve) => {
    wake = resolve;
    if (ms !== undefined) setTimeout(resolve, Math.max(0, ms));
  });
  let lastCheckpoint = Date.now();
  // Whether the job took a result or asked a request since the last checkpoint: then the next
  // checkpoint is due within `checkpointMs`, even while the job waits (a site that said "come
  // back in 30 s"), so a worker stopped meanwhile resumes with the wait, not before it.
  let dirty = false;
  let cancelSent = false;

  for (;;) {
    if (control.paused) {
      abort.abort();
      return 'paused';
    }
    if (control.cancelled && !cancelSent) {
      job.cancel();
      cancelSent = true;
      setTimeout(() => abort.abort(), CANCEL_GRACE_MS);
    }
    while (ready.length) {
      const { id, result } = /** @type {{id: number, result: FetchResult}} */ (ready.shift());
      if (result.error !== undefined) job.handleFailure(id, result.error, Date.now());
      else job.handleResponse(id, result.status, result.finalUrl, result.headers, result.body, result.truncated, Date.now());
      dirty = true;
    }
    await onEvents(job.drainEvents());
    if (Date.now() - lastCheckpoint >= checkpointMs) {
      await onCheckpoint();
      lastCheckpoint = Date.now();
      dirty = false;
    }
    if (control.paused) continue;

    /** @type {Poll} */
    let next;
    while ((next = job.poll(Date.now())).type === 'fetch') {
      const request = next;
      inFlight += 1;
      dirty = true;
      control.current = request.url;
      const refused = refuse ? refuse(request.url).catch((e) => String(e)) : Promise.resolve(null);
      refused.then((why) => (why === null
        ? fetchOne(request, { maxBytes, timeoutMs, signal: abort.signal })
        : /** @type {FetchResult} */ ({ error: why }))).then(async (fetched) => {
        // A page GET may come back drawn by the browser (a form's POST is not repeated).
        const result = render && request.kind === 'page' && !request.post ? await drawnStep(fetched, render) : fetched;
        inFlight -= 1;
        ready.push({ id: request.id, result });
        control.wake();
      });
    }
    // The job takes results inside poll (in the order it asked for them): their events now,
    // not after the next response.
    await onEvents(job.drainEvents());
    if (ready.length) continue;
    if (next.type === 'done' && inFlight === 0) return 'done';
    const waitMs = next.type === 'wait' ? next.untilMs - Date.now() : Infinity;
    const checkpointDueMs = dirty ? lastCheckpoint + checkpointMs - Date.now() : Infinity;
    const napMs = Math.min(waitMs, checkpointDueMs);
    await nap(napMs === Infinity ? undefined : napMs);
  }
}
