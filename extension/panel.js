// The side panel (Chrome) / sidebar (Firefox), also usable as a tab: live progress of the running
// job with pause, resume and cancel; the learned crawler (pattern levels, coverage, similarity
// threshold with the near-miss review, target pages; search form levels: template, query field, values that worked);
// saved crawlers with run (for search forms: query values, policy and budget), a schedule to run
// again by itself, import and exports.
//
// It survives the popup closing and the worker stopping: it polls the worker every half second,
// and each poll wakes a stopped worker, which resumes its jobs. Exports are built here (the wasm
// core's writers over the pages in IndexedDB) and saved through the downloads API.
// Crawled content is only ever written with textContent.
import init, { WarcExport, exportCsv, exportJsonl, exportScrapyZip } from './pkg/exemplar.js';
import * as db from './lib/db.js';
import { hostPattern } from './lib/site-access.js';

const $ = (id) => document.getElementById(id);
const POLL_MS = 500;
const IDLE_POLL_MS = 5000;

let wasm = null;
const core = () => (wasm ??= init({ module_or_path: chrome.runtime.getURL('pkg/exemplar_bg.wasm') }));

async function send(msg) {
  const reply = await chrome.runtime.sendMessage(msg);
  if (!reply?.ok) throw new Error(reply?.error ?? 'no reply from Exemplar');
  return reply.result;
}

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

// A sitemap the site's robots.txt names on a host that answered nothing, not even for its
// robots.txt (`askAccess`: in an extension, most likely a host it has no access to, a CDN's):
// its error carries a button that asks for that access (a click is the user gesture the request
// needs); once granted, the job can be run again at once to read it.
const askedHosts = new Map(); // host pattern → granted (true/false)

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
  const answered = (granted) => {
    if (!granted) return [el('span', ` Access to ${host} not granted.`)];
    const again = el('button', job.kind === 'learn' ? 'Learn again' : 'Crawl again', 'small run-again');
    again.type = 'button';
    again.addEventListener('click', () => act(() => runAgain(job), $('job-error')));
    return [el('span', ` Access to ${host} granted. `), again];
  };
  if (askedHosts.has(pattern)) {
    li.append(...answered(askedHosts.get(pattern)));
    return li;
  }
  const ask = el('button', `Allow access to ${host}`, 'small allow-host');
  ask.type = 'button';
  ask.addEventListener('click', async () => {
    const granted = await chrome.permissions.request({ origins: [pattern] }).catch(() => false);
    askedHosts.set(pattern, granted);
    ask.replaceWith(...answered(granted));
  });
  li.append(' ', ask);
  return li;
}

function row(...cells) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.append(c instanceof Node ? c : el('td', c));
  return tr;
}

const fmtSeconds = (ms) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.round(ms / 1000)} s`);
const fmtDate = (ms) => new Date(ms).toLocaleString();
const safeName = (s) => String(s).replace(/[^A-Za-z0-9._-]+/g, '_');

// ------------------------------------------------------------------ state

const state = {
  jobs: [],
  crawlers: [],
  selected: new URLSearchParams(location.search).get('crawler'),
  pagesKey: '',
  pages: [],
};

/** The job to show: running or paused first, else the newest. */
const currentJob = () => state.jobs.find((j) => j.status === 'running') ?? state.jobs.find((j) => j.status === 'paused') ?? state.jobs[0];

// ------------------------------------------------------------------ progress

function renderJob(job) {
  $('no-jobs').hidden = Boolean(job);
  $('job').hidden = !job;
  if (!job) return;
  const verb = job.kind === 'learn' ? 'Learning from' : 'Crawling';
  $('job-title').textContent = `${verb} ${job.entry}`;
  const why = job.stopped && job.stopped !== 'exhausted' ? ` (stopped: ${job.stopped})` : '';
  $('job-status').textContent = job.status + why;
  $('job').dataset.status = job.status;
  $('job').dataset.jobId = job.id;
  const p = job.progress ?? {};
  $('n-fetched').textContent = p.fetched ?? 0;
  $('n-targets').textContent = p.targets ?? 0;
  $('n-queued').textContent = p.queued ?? 0;
  $('n-rate').textContent = (job.rate ?? 0).toFixed(1);
  $('n-elapsed').textContent = fmtSeconds(p.elapsedMs ?? 0);
  $('n-errors').textContent = job.errorCount ?? 0;
  // The sitemaps robots.txt names, read by a crawl, and the URLs of theirs it followed.
  $('sitemaps-box').hidden = !p.sitemaps;
  $('n-sitemaps').textContent = p.sitemaps ? `${p.sitemaps} / ${p.sitemapLinks ?? 0}` : '';
  // Requests the site said to ask again later (429, 503), and the last such answer.
  $('retried-box').hidden = !p.retried;
  $('n-retried').textContent = p.retried ?? 0;
  const retry = job.lastRetry;
  $('job-retry').hidden = !retry;
  $('job-retry').textContent = retry
    ? `The site said to wait (HTTP ${retry.status}): ${retry.url} is asked again after ${fmtSeconds(retry.waitMs)}, ` +
      `and the site at most once every ${fmtSeconds(retry.delayMs)} from now on.`
    : '';
  // Crawls of search forms: queries issued of the budget, and the last one answered.
  const forms = job.kind === 'crawl' && job.queryBudget !== null && job.queryBudget !== undefined;
  $('queries-box').hidden = !forms;
  $('n-queries').textContent = forms ? `${p.queries ?? 0} / ${job.queryBudget}` : '';
  const q = forms ? job.lastQuery : null;
  // Each search form level has its own budget: per level when there are several.
  const perLevel = Object.entries(job.formLevels ?? {});
  const levels = perLevel.length > 1 ? ` Per search form: ${perLevel.map(([l, r]) => `E${l} ${r.issued} / ${r.budget}`).join(' · ')}.` : '';
  $('job-query').hidden = !q;
  $('job-query').textContent = q
    ? `Last query “${q.query}” (E${q.level}): ${q.resultPages} result page${q.resultPages === 1 ? '' : 's'}, ${q.documents} documents · ${q.targets} targets so far.${levels}`
    : '';
  $('job-current').textContent = job.status === 'running' ? job.current ?? '' : '';
  $('job-now').hidden = !$('job-current').textContent;
  $('job-error').textContent = job.error ?? '';
  $('job-errors').replaceChildren(...(job.errors ?? []).map((e) => errorItem(job, e)));
  renderTooLarge($('job-too-large'), job);
  renderTraps($('job-traps'), job);
  $('pause').hidden = job.status !== 'running';
  $('resume').hidden = job.status !== 'paused';
  $('cancel').hidden = !['running', 'paused'].includes(job.status);
}

/**
 * The links the trap guard did not follow (Rust's `canon::Refusal`, one per bound): how many, the
 * bound in words and the first link refused, so a trap or a budget that left pages out is seen.
 */
function renderTraps(box, job) {
  const traps = job?.traps ?? [];
  box.hidden = traps.length === 0;
  if (box.hidden) return;
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

const MIB = 1024 * 1024;
const fmtMb = (bytes) => `${+(bytes / MIB).toFixed(3)} MB`;

/**
 * Pages a job did not read for passing the page size limit, in `box` (the job card's, or the
 * learned crawler's for its generation): their count and first URLs, and a button that runs the
 * job again reading pages up to a larger size (four times the limit, which the user may change).
 */
function renderTooLarge(box, job) {
  const { count = 0, urls = [] } = job?.tooLarge ?? {};
  box.hidden = count === 0;
  if (count === 0) return;
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

/** Starts a job again, a generation or a saved crawler's run, with its settings and `changed`. */
function runAgain(job, changed = {}) {
  if (job.kind === 'learn') {
    return send({ type: 'startLearn', exampleUrl: job.example, entryUrl: job.entry, settings: { ...job.settings, ...changed } });
  }
  return send({ type: 'runCrawler', crawlerId: job.crawlerId, settings: { ...changed, ...(job.forms ? { forms: job.forms } : {}) } });
}

// ------------------------------------------------------------------ the selected crawler

function selectedCrawler() {
  return state.crawlers.find((c) => c.id === state.selected) ?? null;
}

function renderResult() {
  const crawler = selectedCrawler();
  $('result').hidden = !crawler;
  if (!crawler) return;
  $('result').dataset.crawlerId = crawler.id;
  renderSchedule(crawler);
  $('r-site').textContent = crawler.site;
  $('r-entry').textContent = crawler.entry;
  $('r-example').textContent = crawler.example;
  let pattern = null;
  try {
    pattern = JSON.parse(crawler.patternJson);
  } catch { /* shown as empty */ }
  $('r-entry-target').hidden = !pattern?.entryTarget;
  const levels = pattern?.levels ?? [];
  // One card per level: what it is, its regexes, sample paths (narrow side panels: no table).
  $('levels').replaceChildren(...levels.map((l, i) => {
    if (l.form) return formCard(l, i);
    const last = i === levels.length - 1;
    const card = el('div', undefined, 'card level');
    const what = last
      ? `target pages${l.paginate ? ', followed from target to target' : ''}`
      : `pages followed${l.paginate ? ', with their pagination' : ''}${l.fromTargets ? ', also from target pages' : ''}`;
    card.append(el('h3', `E${i + 1} · ${what} · ${l.pages ?? 0} seen while learning`));
    for (const r of l.regexes) card.append(el('pre', r));
    const exclude = l.exclude ?? [];
    if (exclude.length) {
      // Pages the regexes match that learning saw were of another kind: the crawl skips them.
      const except = el('details', undefined, 'small exclude');
      except.append(el('summary', `except ${exclude.length} ${exclude.length === 1 ? 'page' : 'pages'} seen to be of another kind`));
      const list = el('ul', undefined, 'url');
      for (const u of exclude.slice(0, 50)) list.append(el('li', u));
      if (exclude.length > 50) list.append(el('li', `… ${exclude.length - 50} more`));
      except.append(list);
      card.append(except);
    }
    const templates = last ? pattern.headingRule?.templates ?? [] : [];
    if (templates.length) {
      // The heading rule a verifying crawl applies below θ (`headingRule`; text only).
      const rule = el('details', undefined, 'small heading-rule');
      rule.append(el('summary', `pages just below θ taken when their heading follows one of ${templates.length} target heading ${templates.length === 1 ? 'template' : 'templates'}`));
      const list = el('ul');
      for (const t of templates.slice(0, 50)) list.append(el('li', t));
      if (templates.length > 50) list.append(el('li', `… ${templates.length - 50} more`));
      rule.append(list);
      card.append(rule);
    }
    const refused = last ? pattern.headingRule?.unlike ?? [] : [];
    if (refused.length) {
      // The kinds the user left out: a verifying crawl refuses pages headed so (text only).
      const rule = el('details', undefined, 'small heading-refused');
      rule.append(el('summary', `a verifying crawl refuses pages headed as the ${refused.length === 1 ? 'kind' : `${refused.length} kinds`} you left out`));
      const list = el('ul');
      for (const t of refused) list.append(el('li', t));
      rule.append(list);
      card.append(rule);
    }
    const samples = el('ul', undefined, 'small url');
    for (const sample of (l.samples ?? []).slice(0, 3)) {
      let path = sample;
      try {
        const u = new URL(sample);
        path = u.pathname + u.search;
      } catch { /* shown whole */ }
      const li = el('li', path);
      li.title = sample;
      samples.append(li);
    }
    card.append(samples);
    return card;
  }));

  renderRunForms(crawler, levels.filter((l) => l.form).map((l) => l.form));

  const learnJob = state.jobs.find((j) => j.id === crawler.learnJobId);
  const lastCrawl = state.jobs.find((j) => j.kind === 'crawl' && j.crawlerId === crawler.id && j.status === 'done');
  const cov = lastCrawl?.result?.coverage;
  $('coverage').textContent = cov
    ? `Coverage: the pattern reached ${cov.reached} of the ${cov.known} targets seen while learning` +
      (cov.missed.length ? ` (missed ${cov.missed.length}: ${cov.missed.slice(0, 3).join(', ')}${cov.missed.length > 3 ? ', …' : ''})` : '') +
      `; ${cov.new} targets not seen while learning` +
      sinceLastRun(lastCrawl.result, '; ', ' since the previous run') + '.'
    : 'Not crawled yet: run the crawler to collect the pages and see its coverage.';

  const result = learnJob?.status === 'done' ? learnJob.result : null;
  renderLeftUnfetched(result?.leftUnfetched ?? []);
  // The sitemaps robots.txt names: learning reads them once every link is followed (for the
  // pages no link reaches), the crawl reads them as well.
  const sitemaps = result?.sitemaps ?? [];
  const them = sitemaps.length === 1 ? 'it' : 'them';
  const read = result?.sitemapsRead
    ? `learning read ${them} once every link was followed and took ${result.sitemapPages} ` +
      `page${result.sitemapPages === 1 ? '' : 's'} no link reaches from ${them}`
    : 'learning read none (it reads them once every link is followed, within its page budget; ' +
      'those it could not read are among the errors)';
  $('sitemaps-note').hidden = sitemaps.length === 0;
  $('sitemaps-note').textContent = sitemaps.length === 0 ? '' :
    `The site's robots.txt names ${sitemaps.length === 1 ? 'a sitemap' : `${sitemaps.length} sitemaps`} ` +
    `(${sitemaps[0]}${sitemaps.length > 1 ? ', …' : ''}): ${read}; the crawl reads ${them} too and ` +
    'collects the targets listed there.';
  renderTooLarge($('learn-too-large'), learnJob);
  renderTraps($('learn-traps'), learnJob);
  $('threshold-box').hidden = !result;
  if (result) {
    if (document.activeElement !== $('threshold')) $('threshold').value = result.threshold;
    $('histogram').textContent = histogram(result.similarities ?? [], result.threshold);
    renderGap(result.thresholdGap);
    renderLowered(result.thresholdLowered, result.thresholdCut);
    renderReview(result);
  }
  refreshPages(crawler, lastCrawl);
}

/** A clear gap in the scores below θ (Rust's `pattern::threshold_gap`): the pages above it go on
 * from the targets' scores and have their URL shape, so θ may be too high for this site. */
function renderGap(gap) {
  $('gap').hidden = !gap;
  if (!gap) return;
  $('gap-text').textContent = `A gap in the scores below θ: ${gap.pages} pages score from ${gap.lowestAbove.toFixed(3)} ` +
    `to θ, ${gap.urlLikeTargets} of them with URLs shaped like the targets'; the next page scores ` +
    `${gap.highestBelow.toFixed(3)}. If they are like your example, a lower θ takes them.`;
  $('gap-theta').textContent = gap.threshold.toFixed(2);
}

/** θ taken from the scores because only the example reached the default (Rust's
 * `pattern::lowered_threshold`): said, so that the user checks the targets it gives. When the
 * user set θ, it is kept and the θ the scores give is named (`cut`). */
function renderLowered(lowered, cut) {
  $('lowered').hidden = !lowered && !cut;
  if (cut) {
    $('lowered').textContent = `No page but your example reached θ ${cut.from.toFixed(3)}, the θ you set. ` +
      `${cut.pages} of the other ${cut.scored} pages fetched score ${cut.to.toFixed(3)} or more, where the scores ` +
      `split in two: re-learn at θ = ${cut.to.toFixed(3)} to take them.`;
  }
  if (!lowered) return;
  $('lowered').textContent = `θ lowered from ${lowered.from.toFixed(3)} to ${lowered.to.toFixed(3)}: no page but your ` +
    `example reached ${lowered.from.toFixed(3)}. ${lowered.pages} of the other ${lowered.scored} pages fetched score ` +
    `${lowered.to.toFixed(3)} or more, where the scores split in two. Check the targets below; another θ re-learns.`;
}

/** The pages mapping left unfetched when it stopped, of URL shapes it fetched last because their
 * first pages were no target and led to none (Rust's thousands of intrinsics). */
function renderLeftUnfetched(left) {
  const el = $('left-unfetched');
  el.hidden = left.length === 0;
  if (el.hidden) return;
  const total = left.reduce((n, s) => n + s.pages, 0);
  const named = left.slice(0, 3).map((s) => `${s.shape} (${s.pages})`).join(', ');
  el.textContent = `${total} ${total === 1 ? 'page' : 'pages'} left unfetched when mapping stopped: ` +
    `the first pages of their URL shape were no target and led to none, so they came last: ${named}` +
    `${left.length > 3 ? ` and ${left.length - 3} more` : ''}. Raise “Max pages” (in the popup’s settings) to map them too.`;
}

/** The card of a search form level: its template, query field and the values that worked. */
function formCard(level, i) {
  const f = level.form;
  const card = el('div', undefined, 'card level form');
  let action = f.form?.action ?? '';
  try {
    action = new URL(action).pathname;
  } catch { /* shown whole */ }
  card.append(el('h3', `E${i + 1} · search form · ${String(f.form?.method ?? 'get').toUpperCase()} ${action}`));
  card.append(el('pre', f.template));
  const field = (f.form?.fields ?? []).find((x) => x.name === f.queryField);
  const named = field?.label && field.label !== f.queryField ? `${field.label} (${f.queryField})` : f.queryField;
  const label = f.queryField ? named : 'none: its choices are enumerated';
  card.append(el('p', `Query field: ${label}`, 'small query-field'));
  const shown = (f.values ?? []).slice(0, 8);
  const more = (f.values ?? []).length - shown.length;
  const values = shown.length ? shown.map((v) => `“${v}”`).join(', ') + (more > 0 ? `, … (${more} more)` : '') : 'none';
  card.append(el('p', `Values that worked: ${values}`, 'small values'));
  card.append(el('p', `Policy ${f.policy}, ${f.budget} queries, ${f.maxResultPages} result pages each`, 'small'));
  return card;
}

/** The query settings of the next run, for a crawler with search form levels (reset per crawler). */
function renderRunForms(crawler, forms) {
  const box = $('run-forms');
  box.hidden = forms.length === 0;
  if (!forms.length || box.dataset.crawlerId === crawler.id) return;
  box.dataset.crawlerId = crawler.id;
  box.querySelector('legend').textContent = forms.length > 1
    ? `Search form queries of the next run (each of its ${forms.length} search forms)`
    : 'Search form queries of the next run';
  $('form-queries').value = '';
  $('form-policy').value = forms[0].policy ?? 'adaptive';
  $('form-budget').value = forms[0].budget ?? 100;
}

/** The run's settings from the form fields: {forms: {queries, policy, budget}} or {}. */
function runSettings() {
  if ($('run-forms').hidden) return {};
  const queries = $('form-queries').value.split(/[\n,]/).map((v) => v.trim()).filter(Boolean);
  const budget = Number($('form-budget').value);
  if (!(Number.isInteger(budget) && budget >= 1)) throw new Error('The query budget must be a whole number ≥ 1.');
  return { forms: { queries, policy: $('form-policy').value, budget } };
}

/** How many of the least similar targets the review offers to mark "not like" in a result
 * learned before the core chose the targets to check (`doubtfulTargets`). */
const WEAK_TARGETS = 5;

/** A mark: `[badge, what it says when hovered]`. */
function badge([text, hint]) {
  const mark = el('span', text, 'badge');
  mark.title = hint;
  return mark;
}

/** The marks of the two review lists and of the pages: `[badge, what it says when hovered]`. */
const LIKE_TARGETS = ['URL', "URL shaped like the targets'"];
const BY_HEADING = ['heading', "Below θ, taken as a target because its heading names the targets' kind: the same words as a target's heading, its own name left out"];
const ENTRY = ['entry', 'The entry page: like the example, so the crawl collects it too (navigation starts there either way)'];
const LIKE_PAGES_BELOW = ['URL', 'URL shaped like pages below θ: most pages of its shape are not like the example'];
const TAKEN_FOR_HEADING = ['heading', "Below θ, taken because its heading follows the targets' heading template"];

/** One review row: a checkbox carrying the URL, the similarity, the marks (`[badge, hover
 * text]` pairs), the URL, and on hover the page's heading and title (as text). */
function reviewRow(url, similarity, marks, names, checked) {
  const box = el('input');
  box.type = 'checkbox';
  box.dataset.url = url;
  box.checked = checked;
  const label = el('label');
  label.append(box, ' ', el('span', typeof similarity === 'number' ? similarity.toFixed(3) : '–', 'num'), ' ');
  for (const mark of marks) label.append(badge(mark), ' ');
  const page = pageLink(url);
  page.title = [...new Set(names.filter(Boolean)), url].join('\n');
  const li = el('li');
  li.append(label, page);
  return li;
}

/** The review lists: pages just below θ (ticked: the user's "like"), and the least similar
 * targets (ticked: "not like"). Rebuilt only when the learning result changes, so ticks survive polling. */
function renderReview(result) {
  const corrections = result.corrections ?? { like: [], unlike: [] };
  const leftOut = result.unlikeByHeading ?? [];
  const kinds = result.headingKinds ?? [];
  const below = result.headingKindsBelow ?? [];
  const languages = result.languageKinds ?? [];
  const directories = result.directoryKinds ?? [];
  const key = JSON.stringify([result.threshold, corrections, (result.nearMisses ?? []).map((n) => n.url), result.targets.length, kinds, below, languages, directories]);
  if ($('review-box').dataset.key === key) return;
  $('review-box').dataset.key = key;
  const liked = new Set(corrections.like);
  const similarityOf = new Map(result.targets.map((t) => [t.url, t.similarity]));
  $('near-misses').replaceChildren(
    ...corrections.like.map((url) => reviewRow(url, similarityOf.get(url), [], [], true)),
    ...(result.nearMisses ?? []).map((n) => reviewRow(n.url, n.similarity, n.urlLikeTargets ? [LIKE_TARGETS] : [], [n.heading, n.title], false)),
  );
  // The core's choice: targets taken below θ for their heading, those whose URL shape is mostly
  // held by pages below θ, then the least similar.
  const toCheck = result.doubtfulTargets ?? result.targets
    .filter((t) => !liked.has(t.url) && typeof t.similarity === 'number')
    .sort((a, b) => a.similarity - b.similarity)
    .slice(0, WEAK_TARGETS);
  $('weak-targets').replaceChildren(
    ...corrections.unlike.map((url) => reviewRow(url, undefined, [], [], true)),
    ...toCheck.map((t) => reviewRow(t.url, t.similarity, [
      ...(t.entry ? [ENTRY] : []),
      ...(t.byHeading ? [BY_HEADING] : []),
      ...(t.urlUnlikeTargets ? [LIKE_PAGES_BELOW] : []),
    ], [t.heading, t.title], false)),
  );
  // Kinds by heading: a choice only where the targets have two or more, or one was left out.
  $('kinds-box').hidden = kinds.length < 2 && !kinds.some((k) => k.unlike);
  $('heading-kinds').replaceChildren(...kinds.map(kindRow));
  $('kinds-below-box').hidden = below.length === 0;
  $('heading-kinds-below').replaceChildren(...below.map(kindBelowRow));
  // Languages: listed by the core only where the targets declare two or more.
  const leftOutByLanguage = result.unlikeByLanguage ?? [];
  $('languages-box').hidden = languages.length === 0;
  $('language-kinds').replaceChildren(...languages.map(languageRow));
  $('left-out-language').hidden = leftOutByLanguage.length === 0;
  $('left-out-language').textContent = leftOutNote(leftOutByLanguage, 'their language', 'the language');
  // Directories: listed by the core only where the targets lie in two or more.
  const leftOutByDirectory = result.unlikeByDirectory ?? [];
  $('directories-box').hidden = directories.length === 0;
  // With subdomains in scope, two hosts may hold directories of one path: then each is named
  // with its host.
  const hosts = new Set(directories.map((d) => hostOf(d.directory)));
  $('directory-kinds').replaceChildren(...directories.map((d) => directoryRow(d, hosts.size > 1)));
  $('left-out-directory').hidden = leftOutByDirectory.length === 0;
  $('left-out-directory').textContent = leftOutNote(leftOutByDirectory, 'their directory', 'the directory');
  $('left-out').hidden = leftOut.length === 0;
  $('left-out').textContent = leftOutNote(leftOut, 'their heading', 'the kind');
}

/** What a verdict on a whole kind left out: how many targets, the first three, and how to take
 * them back. Empty when nothing was. */
function leftOutNote(urls, reason, kind) {
  if (urls.length === 0) return '';
  const first = urls.slice(0, 3).map(pathOf).join(', ') + (urls.length > 3 ? ', …' : '');
  return `${urls.length} ${urls.length === 1 ? 'target' : 'targets'} left out for ${reason} (${first}). Untick ${kind} to take them back.`;
}

/** One row of the kinds list: a checkbox carrying the template (ticked: left out), how many
 * targets, the template as text, and its first sample page (all samples on hover). The
 * example's kind cannot be left out. */
function kindRow(kind) {
  // The core's one kind that is not a template of words: headings that start with a section
  // number (`heading::NUMBERED`). A kind's manual section (`HeadingKind::section`): learning
  // leaves out those that are not the example's.
  const note = kind.template === '#' ? 'headings that start with a section number (chapters, sections)'
    : kind.section ? `manual section ${kind.section}${kind.unlike && !kind.example ? ', not your example\'s: left out' : ''}` : null;
  return kindItem(kind, kind.unlike, kind.example, [String(kind.targets)], note);
}

/** One row of the languages list: a checkbox carrying the language tag (ticked: left out),
 * how many targets declare it, the tag, and its first sample page. The example's language
 * cannot be left out. */
function languageRow(kind) {
  return kindItem({ template: kind.language, samples: kind.samples, example: kind.example }, kind.unlike, kind.example,
    [String(kind.targets)], kind.unlike && !kind.example ? "not your example's language: left out" : null,
    { language: kind.language });
}

/** One row of the directories list: a checkbox carrying the directory's URL (ticked: left
 * out), how many targets lie in it, its path (after its host with `withHost`), and its first
 * sample page. The example's directory cannot be left out. */
function directoryRow(kind, withHost = false) {
  const name = (withHost ? hostOf(kind.directory) : '') + pathOf(kind.directory);
  return kindItem({ template: name, samples: kind.samples, example: kind.example }, kind.unlike, kind.example,
    [String(kind.targets)], null, { directory: kind.directory });
}

/** One row of the kinds below θ: a checkbox carrying the template (ticked: taken whatever the
 * similarity), how many pages, the best similarity among them, the template, and its first
 * sample page (all samples on hover). */
function kindBelowRow(kind) {
  return kindItem(kind, kind.like, false, [String(kind.pages), kind.best.toFixed(3)], null);
}

/** A kind's row: its checkbox (carrying `data`: what a verdict on it names), figures,
 * template, note, whether it is the example's, and its first sample page. */
function kindItem(kind, checked, disabled, figures, note, data = { template: kind.template }) {
  const box = el('input');
  box.type = 'checkbox';
  Object.assign(box.dataset, data);
  box.checked = checked;
  box.disabled = disabled;
  const label = el('label');
  label.append(box, ' ');
  for (const f of figures) label.append(el('span', f, 'num'), ' ');
  label.append(el('code', kind.template));
  if (note) label.append(' ', el('span', note));
  if (kind.example) label.append(' ', el('span', "(your example's)"));
  const li = el('li');
  li.append(label);
  const [first] = kind.samples;
  if (first) {
    const sample = pageLink(first);
    sample.title = kind.samples.join('\n');
    li.append(' e.g. ', sample);
  }
  return li;
}

/** A URL's path and query, for naming a page in a sentence. */
/** A URL's host (with its port), or '' when it is no URL. */
function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function pathOf(url) {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** A page of the site named by its path, opening in a new tab to be judged (http(s) only: a URL
 * is data, never script); anything else is shown whole as text. */
function pageLink(url) {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      const page = el('a', u.pathname + u.search, 'url');
      page.href = u.href;
      page.target = '_blank';
      page.rel = 'noopener noreferrer';
      return page;
    }
  } catch { /* shown as text */ }
  return el('span', url, 'url');
}

/** The URLs ticked in one review list. */
const ticked = (list) => [...$(list).querySelectorAll('input:checked')].map((box) => box.dataset.url);

/** A text histogram of the similarities seen while mapping, in tenths. */
function histogram(sims, threshold) {
  const bins = new Array(10).fill(0);
  for (const s of sims) bins[Math.min(9, Math.floor(s * 10))] += 1;
  const above = sims.filter((s) => s >= threshold).length;
  return `Pages by similarity (0.0–1.0, in tenths): ${bins.join(' · ')}. ${above} of ${sims.length} at or above θ.`;
}

async function refreshPages(crawler, lastCrawl) {
  const key = `${crawler.id}:${currentJob()?.progress?.targets ?? ''}:${lastCrawl?.id ?? ''}`;
  if (key === state.pagesKey) return;
  state.pagesKey = key;
  state.pages = await db.pagesOf(crawler.id);
  renderPages(crawler);
}

/** Similarity of each target seen while learning (a crawl measures only the pages it verifies: those learning did not know, or all with the `verify` setting). */
function learnedSimilarities(crawler) {
  const learn = state.jobs.find((j) => j.id === crawler.learnJobId);
  return new Map((learn?.result?.targets ?? []).map((t) => [t.url, t.similarity]));
}

function renderPages(crawler) {
  const learned = learnedSimilarities(crawler);
  const hadRuns = (crawler.runs ?? []).length > 1;
  const lastJob = crawler.runs?.at(-1)?.jobId;
  const needle = $('filter').value.trim().toLowerCase();
  const pages = state.pages
    .filter((p) => !needle || [p.url, p.title, p.heading].some((s) => (s ?? '').toLowerCase().includes(needle)))
    .sort((a, b) => (a.fetchedAtMs ?? 0) - (b.fetchedAtMs ?? 0));
  $('n-pages').textContent = pages.length === state.pages.length ? pages.length : `${pages.length} of ${state.pages.length}`;
  $('pages').tBodies[0].replaceChildren(...pages.slice(0, 500).map((p) => {
    const cell = el('td');
    // The main heading names the page where a site gives every page one title (Doxygen's
    // project name); the title stays a hover away.
    const name = el('div', p.heading || p.title || '(no title)', 'name');
    if (p.heading && p.title) name.title = p.title;
    cell.append(name, el('div', p.url, 'url'));
    if (p.byHeading) cell.prepend(badge(TAKEN_FOR_HEADING));
    const change = db.changeIn(p, lastJob, hadRuns);
    if (change === 'new' || change === 'changed') cell.prepend(el('span', change, 'badge'));
    const value = typeof p.similarity === 'number' ? p.similarity : learned.get(p.url);
    const sim = typeof value === 'number' ? value.toFixed(3) : '–';
    return row(cell, el('td', sim, 'num'));
  }));
}

/** What a run brought besides the pages it found again: "3 new, 1 changed" after `lead`, and
 * `tail`; nothing when it brought nothing. */
function sinceLastRun(run, lead, tail = '') {
  const parts = [];
  if (run.newSinceLastRun) parts.push(`${run.newSinceLastRun} new`);
  if (run.changedSinceLastRun) parts.push(`${run.changedSinceLastRun} changed`);
  return parts.length ? `${lead}${parts.join(', ')}${tail}` : '';
}

const everyText = (hours) => ({ 1: 'every hour', 24: 'every day', 168: 'every week' })[hours] ?? `every ${hours} hours`;

/** The selected crawler's schedule: how often it runs by itself, when next, and why its last
 * turn did not run. A period set elsewhere than in this menu gets an entry of its own. */
function renderSchedule(crawler) {
  const select = $('schedule');
  const schedule = crawler.schedule ?? null;
  const value = schedule ? String(schedule.everyHours) : '';
  if (![...select.options].some((o) => o.value === value)) select.append(new Option(everyText(schedule.everyHours), value));
  if (document.activeElement !== select) select.value = value;
  $('schedule-note').textContent = schedule
    ? `next run ${fmtDate(schedule.nextAt)}${schedule.lastError ? `; last turn: ${schedule.lastError}` : ''}`
    : '';
}

function renderCrawlers() {
  $('no-crawlers').hidden = state.crawlers.length > 0;
  $('crawlers').tBodies[0].replaceChildren(...state.crawlers.map((c) => {
    const last = c.runs?.at(-1);
    const show = el('button', c.id === state.selected ? 'Shown' : 'Show');
    show.type = 'button';
    show.disabled = c.id === state.selected;
    show.addEventListener('click', () => select(c.id));
    const del = el('button', 'Delete');
    del.type = 'button';
    del.addEventListener('click', () => act(() => send({ type: 'deleteCrawler', crawlerId: c.id })));
    const buttons = el('td');
    buttons.append(show, ' ', del);
    const lastRun = (last ? `${fmtDate(last.at)}: ${last.targets} pages${sinceLastRun(last, ', ')}${last.scheduled ? ' (scheduled)' : ''}` : 'never') +
      (c.schedule ? `; runs ${everyText(c.schedule.everyHours)}` : '');
    const tr = row(el('td', c.site + (c.imported ? ' (imported)' : '')), el('td', fmtDate(c.createdAt)), el('td', lastRun), buttons);
    tr.dataset.crawlerId = c.id;
    return tr;
  }));
}

function select(id) {
  state.selected = id;
  state.pagesKey = '';
  renderAll();
}

function renderAll() {
  const job = currentJob();
  renderJob(job);
  if (!state.selected || !state.crawlers.some((c) => c.id === state.selected)) {
    state.selected = job?.crawlerId ?? state.crawlers[0]?.id ?? null;
  }
  renderResult();
  renderCrawlers();
}

// Refreshes overlap (the poll, an action's, a job started): each is numbered, and one whose
// answer arrives after a later one's is dropped, so a state read before an action's (the result
// before a re-learn) never redraws over the newer one.
let refreshesAsked = 0;
let refreshDrawn = 0;

async function refresh() {
  const asked = ++refreshesAsked;
  try {
    const [{ jobs }, crawlers] = await Promise.all([send({ type: 'status' }), send({ type: 'crawlers' })]);
    if (asked < refreshDrawn) return;
    refreshDrawn = asked;
    state.jobs = jobs;
    state.crawlers = crawlers;
    renderAll();
  } catch (e) {
    $('job-error').textContent = e.message;
  }
}

async function act(fn, statusEl = $('job-error')) {
  statusEl.textContent = '';
  try {
    await fn();
  } catch (e) {
    statusEl.textContent = e.message;
  }
  await refresh();
}

// ------------------------------------------------------------------ exports

/** Pages per batch when exporting: only one batch of bodies is in memory at a time. */
const EXPORT_BATCH = 200;

/**
 * One export of a crawler as {filename, blob} (`changesOnly`: the pages the last run found first
 * or found changed). Pages are read from the database a batch at a
 * time (URL order) and each batch is encoded at once into a Blob of its own, which the browser
 * keeps in its blob storage (on disk when large), so a crawl of many large pages is exported
 * without holding every body, or the whole file, in the panel.
 */
async function exportData(crawlerId, format, { batch = EXPORT_BATCH, changesOnly = false } = {}) {
  await core();
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no crawler ${crawlerId}`);
  const site = safeName(crawler.site);
  if (format === 'pattern') return { filename: `${site}-pattern.json`, blob: new Blob([crawler.patternJson], { type: 'application/json' }) };
  if (format === 'scrapy') return { filename: `${site}-scrapy.zip`, blob: new Blob([exportScrapyZip(crawler.patternJson)], { type: 'application/zip' }) };
  // Only what the last run brought (a scheduled run's news, for an extractor fed with the
  // changes): the pages whose first run is the last one, after at least one before it, and
  // those whose text the last run found changed.
  const lastRun = crawler.runs?.at(-1)?.jobId;
  const reran = (crawler.runs ?? []).length > 1;
  if (changesOnly && !reran) throw new Error('No changes: the crawler has run once.');
  const keep = changesOnly ? (p) => ['new', 'changed'].includes(db.changeIn(p, lastRun, reran)) : undefined;
  // Each page the last run found says what it is against the run before (JSONL and WARC
  // `change`: new, changed or same); pages it did not find, and a first run's, say nothing.
  const withChange = (p) => {
    const change = db.changeIn(p, lastRun, reran);
    return change ? { ...p, change } : p;
  };
  const base = site + (changesOnly ? '-changes' : '');
  const formats = {
    jsonl: { filename: `${base}-pages.jsonl`, type: 'application/x-ndjson' },
    csv: { filename: `${base}-urls.csv`, type: 'text/csv' },
    warc: { filename: `${base}-pages.warc`, type: 'application/warc' },
  };
  if (!formats[format]) throw new Error(`unknown export format ${format}`);
  const parts = [];
  let encode;
  if (format === 'jsonl') encode = (pages) => exportJsonl(pages, true);
  if (format === 'csv') {
    // One header row: later batches drop theirs.
    encode = (pages) => {
      const text = exportCsv(pages);
      return parts.length === 0 ? text : text.slice(text.indexOf('\r\n') + 2);
    };
  }
  let warc = null;
  if (format === 'warc') {
    warc = new WarcExport(`Exemplar crawl of ${crawler.entry} (pattern learned from ${crawler.example})`, Date.now());
    encode = (pages) => warc.push(pages);
  }
  try {
    // Each batch becomes a Blob at once: its text or bytes go to the browser's blob storage and
    // can be collected here; the final Blob only references the parts.
    const count = await db.eachPageBatch(crawlerId, batch, (pages) => parts.push(new Blob([encode(pages.map(withChange))])), keep);
    if (count === 0) throw new Error(changesOnly ? 'No new or changed pages in the last run.' : 'No pages yet: run the crawler first.');
    if (warc) parts.push(new Blob([warc.finish()]));
  } finally {
    warc?.free();
  }
  return { filename: formats[format].filename, blob: new Blob(parts, { type: formats[format].type }) };
}
// Tests read exports through this (the downloads themselves land in the browser's folder).
globalThis.exemplarExport = exportData;

async function download(format) {
  const crawler = selectedCrawler();
  if (!crawler) return;
  const { filename, blob } = await exportData(crawler.id, format, { changesOnly: $('export-changes').checked });
  const url = URL.createObjectURL(blob);
  try {
    const id = await chrome.downloads.download({ url, filename: `exemplar/${filename}`, saveAs: false, conflictAction: 'uniquify' });
    $('export-status').textContent = `Saved ${filename}.`;
    $('export-status').dataset.downloadId = id;
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

// ------------------------------------------------------------------ wiring

const jobId = () => $('job').dataset.jobId;
$('pause').addEventListener('click', () => act(() => send({ type: 'pauseJob', jobId: jobId() })));
$('resume').addEventListener('click', () => act(() => send({ type: 'resumeJob', jobId: jobId() })));
$('cancel').addEventListener('click', () => act(() => send({ type: 'cancelJob', jobId: jobId() })));
$('run').addEventListener('click', () => act(() => send({ type: 'runCrawler', crawlerId: state.selected, settings: runSettings() }), $('run-error')));
$('schedule').addEventListener('change', () => act(() => send({
  type: 'setSchedule', crawlerId: state.selected, everyHours: $('schedule').value ? Number($('schedule').value) : null,
}), $('schedule-error')));
// The gap's θ goes into the box; Re-learn applies it with the verdicts ticked.
$('gap-use').addEventListener('click', () => { $('threshold').value = $('gap-theta').textContent; });
$('relearn').addEventListener('click', () => act(async () => {
  const crawler = selectedCrawler();
  await send({
    type: 'relearn', jobId: crawler.learnJobId, threshold: Number($('threshold').value),
    like: ticked('near-misses'), unlike: ticked('weak-targets'),
    unlikeHeadings: [...$('heading-kinds').querySelectorAll('input:checked')].map((box) => box.dataset.template),
    likeHeadings: [...$('heading-kinds-below').querySelectorAll('input:checked')].map((box) => box.dataset.template),
    // The whole set of verdicts replaces the last: a language unticked is taken back.
    unlikeLanguages: [...$('language-kinds').querySelectorAll('input:checked')].map((box) => box.dataset.language),
    unlikeDirectories: [...$('directory-kinds').querySelectorAll('input:checked')].map((box) => box.dataset.directory),
  });
}, $('relearn-error')));
for (const format of ['pattern', 'jsonl', 'csv', 'warc', 'scrapy']) {
  $(`export-${format}`).addEventListener('click', () => {
    $('export-status').textContent = '';
    download(format).catch((e) => { $('export-status').textContent = e.message; });
  });
}
$('filter').addEventListener('input', () => {
  const crawler = selectedCrawler();
  if (crawler) renderPages(crawler);
});
$('import').addEventListener('change', async () => {
  const file = $('import').files[0];
  if (!file) return;
  const status = $('import-status');
  status.className = '';
  try {
    const crawler = await send({ type: 'importPattern', json: await file.text() });
    status.textContent = `Imported a crawler for ${crawler.site}.`;
    status.className = 'good';
    state.selected = crawler.id;
  } catch (e) {
    status.textContent = e.message;
    status.className = 'error';
  }
  $('import').value = '';
  await refresh();
});

// Every poll wakes a stopped worker (which resumes its jobs): poll often while something runs,
// rarely when nothing does, so an idle panel does not keep the worker awake.
async function poll() {
  await refresh();
  setTimeout(poll, state.jobs.some((j) => j.status === 'running') ? POLL_MS : IDLE_POLL_MS);
}
poll();
chrome.runtime.onMessage.addListener((msg, sender) => {
  if (sender.id === chrome.runtime.id && msg?.type === 'jobStarted') refresh();
});
