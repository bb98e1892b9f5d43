// The progress view: the job shown (running or paused first, else the newest) with its counts,
// the site's "come back later", search form queries, errors (a sitemap's host may be granted
// access from there), pages too large to read (run again with a larger limit), the trap guard's
// refusals, and pause, resume and cancel.
import { $, MIB, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { hostPattern } from '../lib/site-access.js';
import { fmtMb, fmtSeconds } from './format.js';
import { act } from './state.js';

/** @typedef {import('../lib/protocol.js').JobStatus} JobStatus */
/** @typedef {import('../lib/protocol.js').JobError} JobError */
/** @typedef {import('../lib/protocol.js').Settings} Settings */

/**
 * Starts a job again, a generation or a saved crawler's run, with its settings and `changed`.
 * @param {JobStatus} job
 * @param {Partial<Settings>} [changed]
 */
function runAgain(job, changed = {}) {
  if (job.kind === 'learn') {
    return send({ type: 'startLearn', exampleUrl: job.example, entryUrl: job.entry, settings: { ...job.settings, ...changed } });
  }
  return send({ type: 'runCrawler', crawlerId: String(job.crawlerId), settings: { ...changed, ...(job.forms ? { forms: job.forms } : {}) } });
}

// A sitemap the site's robots.txt names on a host that answered nothing, not even for its
// robots.txt (`askAccess`: in an extension, most likely a host it has no access to, a CDN's):
// its error carries a button that asks for that access (a click is the user gesture the request
// needs); once granted, the job can be run again at once to read it.
/** host pattern → granted
 * @type {Map<string, boolean>} */
const askedHosts = new Map();

/**
 * @param {JobStatus} job
 * @param {JobError} e
 */
function errorItem(job, e) {
  const li = el('li', `${e.url}: ${e.what}`);
  if (!e.askAccess) return li;
  let pattern, host;
  try {
    pattern = hostPattern(e.url);
    host = new URL(e.url).host;
  } catch {
    return li;
  }
  const origin = pattern;
  /** @param {boolean} granted */
  const answered = (granted) => {
    if (!granted) return [el('span', ` Access to ${host} not granted.`)];
    const again = el('button', job.kind === 'learn' ? 'Learn again' : 'Crawl again', 'small run-again');
    again.type = 'button';
    again.addEventListener('click', () => act(() => runAgain(job), $('job-error')));
    return [el('span', ` Access to ${host} granted. `), again];
  };
  const asked = askedHosts.get(origin);
  if (asked !== undefined) {
    li.append(...answered(asked));
    return li;
  }
  const ask = el('button', `Allow access to ${host}`, 'small allow-host');
  ask.type = 'button';
  ask.addEventListener('click', async () => {
    const granted = await chrome.permissions.request({ origins: [origin] }).catch(() => false);
    askedHosts.set(origin, granted);
    ask.replaceWith(...answered(granted));
  });
  li.append(' ', ask);
  return li;
}

/**
 * The job card (hidden when there is no job).
 * @param {JobStatus | undefined} job
 */
export function renderJob(job) {
  $('no-jobs').hidden = Boolean(job);
  $('job').hidden = !job;
  if (!job) return;
  const verb = job.kind === 'learn' ? 'Learning from' : 'Crawling';
  $('job-title').textContent = `${verb} ${job.entry}`;
  const why = job.stopped && job.stopped !== 'exhausted' ? ` (stopped: ${job.stopped})` : '';
  $('job-status').textContent = job.status + why;
  $('job').dataset.status = job.status;
  $('job').dataset.jobId = job.id;
  /** @type {Partial<import('../lib/core-types.js').Progress>} */
  const p = job.progress ?? {};
  $('n-fetched').textContent = String(p.fetched ?? 0);
  $('n-targets').textContent = String(p.targets ?? 0);
  $('n-queued').textContent = String(p.queued ?? 0);
  $('n-rate').textContent = (job.rate ?? 0).toFixed(1);
  $('n-elapsed').textContent = fmtSeconds(p.elapsedMs ?? 0);
  $('n-errors').textContent = String(job.errorCount ?? 0);
  renderBar(job, p);
  // The sitemaps robots.txt names, read by a crawl, and the URLs of theirs it followed.
  $('sitemaps-box').hidden = !p.sitemaps;
  $('n-sitemaps').textContent = p.sitemaps ? `${p.sitemaps} / ${p.sitemapLinks ?? 0}` : '';
  // Requests the site said to ask again later (429, 503), and the last such answer.
  $('retried-box').hidden = !p.retried;
  $('n-retried').textContent = String(p.retried ?? 0);
  // Links the pattern's rules for duplicate URLs named as a page already met: not fetched.
  // A rule the site refuted (a copy it named was another page) is said beside the count.
  const refuted = p.duplicateRulesRefuted ?? 0;
  $('copies-box').hidden = !p.duplicatesAvoided && !refuted;
  $('n-copies').textContent = String(p.duplicatesAvoided ?? 0) +
    (refuted ? ` (${refuted} rule${refuted === 1 ? '' : 's'} refuted by the site, not applied)` : '');
  // Hosts the site links to that are the site under another name (www. or bare, another TLD).
  const replicas = job.replicaHosts ?? [];
  $('job-replicas').hidden = replicas.length === 0;
  $('job-replicas').textContent = replicas.length === 0 ? '' :
    `This site's pages link to ${replicas.join(', ')}, the same site under another name: ` +
    `${p.replicaLinks ?? 0} such link${p.replicaLinks === 1 ? ' was' : 's were'} followed as this site's.`;
  const retry = job.lastRetry;
  $('job-retry').hidden = !retry;
  $('job-retry').textContent = retry
    ? `The site said to wait (HTTP ${retry.status}): ${retry.url} is asked again after ${fmtSeconds(retry.waitMs)}, ` +
      `and the site at most once every ${fmtSeconds(retry.delayMs)} from now on.`
    : '';
  // Pages drawn by scripts: whether they are rendered (and why), and how many were.
  const r = job.rendering;
  $('job-rendering').hidden = !r?.on;
  $('job-rendering').textContent = r?.on
    ? `${r.why} ${r.rendered} ${r.rendered === 1 ? 'page' : 'pages'} rendered of ${p.fetched ?? 0} fetched` +
      (r.failed ? `; ${r.failed} could not be rendered and were kept as fetched (first: ${r.firstError}).` : '.')
    : '';
  // Crawls of search forms: queries issued of the budget, and the last one answered.
  const forms = job.kind === 'crawl' && job.queryBudget !== null && job.queryBudget !== undefined;
  $('queries-box').hidden = !forms;
  $('n-queries').textContent = forms ? `${p.queries ?? 0} / ${job.queryBudget}` : '';
  const q = forms ? job.lastQuery : null;
  // Each search form level has its own budget: per level when there are several.
  const perLevel = Object.entries(job.formLevels ?? {});
  const levels = perLevel.length > 1 ? ` Per search form: ${perLevel.map(([l, r]) => `level ${l} ${r.issued} / ${r.budget}`).join(' · ')}.` : '';
  $('job-query').hidden = !q;
  $('job-query').textContent = q
    ? `Last query “${q.query}” (level ${q.level}): ${q.resultPages} result page${q.resultPages === 1 ? '' : 's'}, ${q.documents} documents · ${q.targets} targets so far.${levels}`
    : '';
  $('job-current').textContent = job.status === 'running' ? job.current ?? '' : '';
  $('job-now').hidden = !$('job-current').textContent;
  $('job-error').textContent = job.error ?? '';
  $('job-errors').replaceChildren(...(job.errors ?? []).map((e) => errorItem(job, e)));
  // Files linked from pages (images, documents) that failed: no crawl of pages needs them.
  const files = job.fileErrors ?? { count: 0, urls: [] };
  $('job-file-errors').hidden = files.count === 0;
  $('job-file-errors').textContent = files.count
    ? `Not counted as errors: ${files.count} ${files.count === 1 ? 'link to a file' : 'links to files'} (images, documents) ` +
      `answered an error, which no crawl of pages needs (${files.urls.slice(0, 3).join(', ')}${files.count > 3 ? ', …' : ''}).`
    : '';
  renderTooLarge($('job-too-large'), job);
  renderTraps($('job-traps'), job);
  $('pause').hidden = job.status !== 'running';
  $('resume').hidden = job.status !== 'paused';
  $('cancel').hidden = !['running', 'paused'].includes(job.status);
}

/**
 * The progress bar (done against done and queued, with the time left at the current rate) and
 * the end state in a sentence.
 * @param {JobStatus} job
 * @param {Partial<import('../lib/core-types.js').Progress>} p
 */
function renderBar(job, p) {
  const fetched = p.fetched ?? 0;
  const pending = (p.queued ?? 0) + (p.inFlight ?? 0);
  const bar = /** @type {HTMLProgressElement} */ ($('job-bar'));
  const running = job.status === 'running' || job.status === 'paused';
  bar.hidden = !running;
  bar.max = Math.max(1, fetched + pending);
  bar.value = fetched;
  const pages = (/** @type {number} */ n) => `${n.toLocaleString('en')} ${n === 1 ? 'page' : 'pages'}`;
  const items = (/** @type {number} */ n) => `${n.toLocaleString('en')} item ${n === 1 ? 'page' : 'pages'}`;
  const took = fmtSeconds(p.elapsedMs ?? 0);
  let text = '';
  if (running) {
    const left = job.rate > 0 && pending > 0 ? `, about ${fmtSeconds((pending / job.rate) * 1000)} left at this pace` : '';
    text = `${pages(fetched)} fetched, ${pending.toLocaleString('en')} queued${left}.`;
  } else if (job.status === 'done') {
    text = job.kind === 'learn'
      ? `Learned: ${items(p.targets ?? 0)} found, ${pages(fetched)} fetched in ${took}.`
      : `${items(p.targets ?? 0)} collected, ${pages(fetched)} fetched in ${took}.`;
  }
  $('job-summary').textContent = text;
}

/**
 * The links the trap guard did not follow (Rust's `canon::Refusal`, one per bound): how many, the
 * bound in words and the first link refused, so a trap or a budget that left pages out is seen.
 * @param {HTMLElement} box
 * @param {JobStatus | undefined} job
 */
export function renderTraps(box, job) {
  const traps = job?.traps ?? [];
  box.hidden = !job || traps.length === 0;
  if (!job || box.hidden) return;
  const total = traps.reduce((n, t) => n + t.count, 0);
  const when = job.kind === 'learn' ? 'while learning' : 'by this crawl';
  const text = el('p', `${total} ${total === 1 ? 'link was' : 'links were'} not followed ${when}: the trap guard's bounds on URLs (endless calendars, facet combinations, repeated paths).`);
  const list = el('ul');
  for (const t of traps) {
    const li = el('li', `${t.limit}: ${t.count} ${t.count === 1 ? 'link' : 'links'}, e.g. `);
    li.dataset.reason = t.reason;
    li.append(el('span', t.example, 'url'));
    list.append(li);
  }
  box.replaceChildren(text, list);
}

/**
 * Pages a job did not read for passing the page size limit, in `box` (the job card's, or the
 * learned crawler's for its generation): their count and first URLs, and a button that runs the
 * job again reading pages up to a larger size (four times the limit, which the user may change).
 * @param {HTMLElement} box
 * @param {JobStatus | undefined} job
 */
export function renderTooLarge(box, job) {
  const { count = 0, urls = [] } = job?.tooLarge ?? {};
  box.hidden = !job || count === 0;
  if (!job || count === 0) return;
  // Built again only when the job or the count changes, so the size typed in stays.
  const key = `${job.id}:${count}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const limit = job.settings?.maxBytes ?? 0;
  const pages = count === 1 ? '1 page was' : `${count} pages were`;
  const when = job.kind === 'learn' ? 'while learning' : 'by this crawl';
  const list = el('ul', undefined, 'small');
  list.append(...urls.map((u) => el('li', u, 'url')));
  if (count > urls.length) list.append(el('li', `and ${count - urls.length} more`));
  const details = el('details');
  details.append(el('summary', 'Pages not read'), list);
  const size = el('input');
  Object.assign(size, { type: 'number', min: '0.001', max: '1024', step: 'any', className: 'too-large-mb' });
  size.value = String(+(Math.min(limit * 4, 2 ** 30) / MIB).toFixed(3));
  size.setAttribute('aria-label', 'Max page size (MB)');
  const error = el('p', undefined, 'error');
  error.setAttribute('role', 'alert');
  const again = el('button', job.kind === 'learn' ? 'Learn again reading pages up to' : 'Crawl again reading pages up to');
  again.type = 'button';
  again.addEventListener('click', () => act(() => runAgain(job, { maxBytes: Math.round(Number(size.value) * MIB) }), error));
  const buttons = el('div', undefined, 'buttons');
  buttons.append(again, size, el('span', 'MB', 'small'));
  const text = el('p', `${pages} not read ${when}: larger than ${fmtMb(limit)}, the page size limit.`, 'small');
  text.setAttribute('role', 'status');
  box.replaceChildren(text, details, buttons, error);
}

/** Pause, resume and cancel act on the job the card shows. */
export function wireProgress() {
  const jobId = () => String($('job').dataset.jobId);
  $('pause').addEventListener('click', () => act(() => send({ type: 'pauseJob', jobId: jobId() })));
  $('resume').addEventListener('click', () => act(() => send({ type: 'resumeJob', jobId: jobId() })));
  $('cancel').addEventListener('click', () => act(() => send({ type: 'cancelJob', jobId: jobId() })));
}
