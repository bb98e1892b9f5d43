// The learned crawler view: the crawler shown (its site, entry and example), its navigation
// pattern as one line and one card per level (readable paths, the regexes on demand,
// exceptions, heading rules, sample paths; search form
// levels: template, query field, values that worked), its coverage, what mapping left unfetched,
// the sitemaps; then the threshold view (review.js), the next run's form queries and Run, the
// schedule (schedule.js) and the target pages (pages.js).
import { $, $input, $select, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { renderFields } from './fields.js';
import { pageLink, sinceLastRun } from './format.js';
import { flowOf, levelWords, readablePath } from './paths.js';
import { refreshPages } from './pages.js';
import { renderTooLarge, renderTraps } from './progress.js';
import { renderListings } from './listings.js';
import { renderThreshold } from './review.js';
import { renderSchedule } from './schedule.js';
import { act, crawlResultOf, learnedOf, selectedCrawler, state } from './state.js';

/** @typedef {import('../lib/core-types.js').Pattern} Pattern */
/** @typedef {import('../lib/core-types.js').PatternLevel} PatternLevel */
/** @typedef {import('../lib/core-types.js').FormLevel} FormLevel */
/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */
/** @typedef {import('../lib/protocol.js').QueryPolicy} QueryPolicy */

/**
 * A rule for duplicate URLs in words, with its evidence (the core's `dust::Rewrite::describe`).
 * @param {import('../lib/core-types.js').DustRule} r
 */
function dustWords(r) {
  const what = r.kind === 'dropParam'
    ? (r.value === undefined ? `a URL with the parameter ${r.name}` : `a URL with ${r.name}=${r.value}`)
    : r.kind === 'dropSuffix' ? `a URL ending in ${r.suffix}` : `a URL starting with ${r.from}`;
  const instead = r.kind === 'dropParam' ? 'the URL without it' : r.kind === 'dropSuffix' ? 'the URL without it' : `the URL starting with ${r.to}`;
  return `${what} when ${instead} was met (${r.support} such copies seen while learning)`;
}

export function renderResult() {
  const crawler = selectedCrawler();
  $('result').hidden = !crawler;
  if (!crawler) return;
  $('result').dataset.crawlerId = crawler.id;
  renderSchedule(crawler);
  $('r-site').textContent = crawler.site;
  // The name box is left alone while it is being typed in.
  if (document.activeElement !== $('r-name')) $input('r-name').value = crawler.name ?? '';
  $('r-entry').textContent = crawler.entry;
  $('r-example').textContent = crawler.example;
  /** @type {Pattern | null} */
  let pattern = null;
  try {
    pattern = JSON.parse(crawler.patternJson);
  } catch { /* shown as empty */ }
  $('r-entry-target').hidden = !pattern?.entryTarget;
  const levels = pattern?.levels ?? [];
  // One card per level: what it is, its regexes, sample paths (narrow side panels: no table).
  $('pattern-flow').textContent = levels.length ? flowOf(levels) : '';
  const dust = pattern?.dustRules ?? [];
  $('dust-rules').hidden = dust.length === 0;
  $('dust-rules').textContent = dust.length === 0 ? '' :
    `Duplicate URLs: the crawl does not fetch ${dust.map(dustWords).join('; ')}.`;
  $('levels').replaceChildren(...levels.map((l, i) => (l.form ? formCard(l.form, i) : levelCard(l, i, i === levels.length - 1, pattern))));

  renderRunForms(crawler, levels.flatMap((l) => (l.form ? [l.form] : [])));

  const learnJob = state.jobs.find((j) => j.id === crawler.learnJobId);
  const lastCrawl = state.jobs.find((j) => j.kind === 'crawl' && j.crawlerId === crawler.id && j.status === 'done');
  const crawled = crawlResultOf(lastCrawl);
  const cov = crawled?.coverage;
  $('coverage').textContent = crawled && cov
    ? `Coverage: the pattern reached ${cov.reached} of the ${cov.known} targets seen while learning` +
      (cov.missed.length ? ` (missed ${cov.missed.length}: ${cov.missed.slice(0, 3).join(', ')}${cov.missed.length > 3 ? ', …' : ''})` : '') +
      `; ${cov.new} targets not seen while learning` +
      sinceLastRun(crawled, '; ', ' since the previous run') + '.'
    : 'Not crawled yet: run the crawler to collect the pages and see its coverage.';

  const result = learnJob?.status === 'done' ? learnedOf(learnJob) : null;
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
  renderFields(crawler);
  renderThreshold(result);
  renderListings(result);
  refreshPages(crawler, lastCrawl);
}

/**
 * A list of at most 50 texts, then how many more.
 * @param {string[]} items
 * @param {string} [className]
 */
function fifty(items, className) {
  const list = el('ul', undefined, className);
  for (const t of items.slice(0, 50)) list.append(el('li', t));
  if (items.length > 50) list.append(el('li', `… ${items.length - 50} more`));
  return list;
}

/**
 * The card of a level of links: what it follows, its regexes, the pages it skips, the heading
 * rules of the targets' level (`last`), and three sample paths.
 * @param {PatternLevel} l
 * @param {number} i
 * @param {boolean} last
 * @param {Pattern | null} pattern
 */
function levelCard(l, i, last, pattern) {
  const card = el('div', undefined, 'card level');
  const what = last
    ? `target pages${l.paginate ? ', followed from target to target' : ''}`
    : `pages followed${l.paginate ? ', with their pagination' : ''}${l.fromTargets ? ', also from target pages' : ''}`;
  card.append(el('h3', `Level ${i + 1}: ${levelWords(l, last)} · ${l.pages ?? 0} seen while learning`));
  // The URLs it follows, readable (the variable parts named); the regexes on demand.
  const paths = el('div', undefined, 'paths');
  for (const p of new Set(l.regexes.map(readablePath))) paths.append(el('code', p), el('br'));
  card.append(paths);
  const regexes = el('details', undefined, 'small regexes');
  regexes.append(el('summary', `${l.regexes.length === 1 ? 'its regular expression' : `its ${l.regexes.length} regular expressions`} (${what})`));
  for (const r of l.regexes) regexes.append(el('pre', r));
  card.append(regexes);
  const exclude = l.exclude ?? [];
  if (exclude.length) {
    // Pages the regexes match that learning saw were of another kind: the crawl skips them.
    const except = el('details', undefined, 'small exclude');
    except.append(el('summary', `except ${exclude.length} ${exclude.length === 1 ? 'page' : 'pages'} seen to be of another kind`));
    except.append(fifty(exclude, 'url'));
    card.append(except);
  }
  const templates = last ? pattern?.headingRule?.templates ?? [] : [];
  if (templates.length) {
    // The heading rule a verifying crawl applies below θ (`headingRule`; text only).
    const rule = el('details', undefined, 'small heading-rule');
    rule.append(el('summary', `pages just below θ taken when their heading follows one of ${templates.length} target heading ${templates.length === 1 ? 'template' : 'templates'}`));
    rule.append(fifty(templates));
    card.append(rule);
  }
  const refused = last ? pattern?.headingRule?.unlike ?? [] : [];
  if (refused.length) {
    // The kinds the user left out: a verifying crawl refuses pages headed so (text only).
    const rule = el('details', undefined, 'small heading-refused');
    rule.append(el('summary', `a verifying crawl refuses pages headed as the ${refused.length === 1 ? 'kind' : `${refused.length} kinds`} you left out`));
    const list = el('ul');
    for (const t of refused) list.append(el('li', t));
    rule.append(list);
    card.append(rule);
  }
  // Sample pages as links to open and look at (the path; the whole URL on hover).
  const samples = el('ul', undefined, 'small url');
  for (const sample of (l.samples ?? []).slice(0, 3)) {
    const link = pageLink(sample);
    link.title = sample;
    const li = el('li');
    li.append(link);
    samples.append(li);
  }
  card.append(samples);
  return card;
}

/**
 * The card of a search form level: its template, query field and the values that worked.
 * @param {FormLevel} f
 * @param {number} i
 */
function formCard(f, i) {
  const card = el('div', undefined, 'card level form');
  let action = f.form?.action ?? '';
  try {
    action = new URL(action).pathname;
  } catch { /* shown whole */ }
  card.append(el('h3', `Level ${i + 1}: search form · ${String(f.form?.method ?? 'get').toUpperCase()} ${action}`));
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

/**
 * What mapping left unfetched when it stopped, of URL shapes it fetched last because their
 * first pages were no target and led to none (Rust's thousands of intrinsics).
 * @param {import('../lib/core-types.js').LeftUnfetched[]} left
 */
function renderLeftUnfetched(left) {
  const note = $('left-unfetched');
  note.hidden = left.length === 0;
  if (note.hidden) return;
  const total = left.reduce((n, s) => n + s.pages, 0);
  const named = left.slice(0, 3).map((s) => `${s.shape} (${s.pages})`).join(', ');
  note.textContent = `${total} ${total === 1 ? 'page' : 'pages'} left unfetched when mapping stopped: ` +
    `the first pages of their URL shape were no target and led to none, so they came last: ${named}` +
    `${left.length > 3 ? ` and ${left.length - 3} more` : ''}. Raise “Max pages” (in the popup’s settings) to map them too.`;
}

/**
 * The query settings of the next run, for a crawler with search form levels (reset per crawler).
 * @param {CrawlerSummary} crawler
 * @param {FormLevel[]} forms
 */
function renderRunForms(crawler, forms) {
  const box = $('run-forms');
  box.hidden = forms.length === 0;
  if (!forms.length || box.dataset.crawlerId === crawler.id) return;
  box.dataset.crawlerId = crawler.id;
  /** @type {HTMLLegendElement} */ (box.querySelector('legend')).textContent = forms.length > 1
    ? `Search form queries of the next run (each of its ${forms.length} search forms)`
    : 'Search form queries of the next run';
  $input('form-queries').value = '';
  $select('form-policy').value = forms[0].policy ?? 'adaptive';
  $input('form-budget').value = String(forms[0].budget ?? 100);
}

/** The run's settings from the form fields: {forms: {queries, policy, budget}} or {}. */
function runSettings() {
  if ($('run-forms').hidden) return {};
  const queries = $input('form-queries').value.split(/[\n,]/).map((v) => v.trim()).filter(Boolean);
  const budget = Number($input('form-budget').value);
  if (!(Number.isInteger(budget) && budget >= 1)) throw new Error('The query budget must be a whole number ≥ 1.');
  return { forms: { queries, policy: /** @type {QueryPolicy} */ ($select('form-policy').value), budget } };
}

/** Run crawls with the crawler shown (and the form queries given). */
export function wireResult() {
  $('run').addEventListener('click', () => act(() => send({ type: 'runCrawler', crawlerId: String(state.selected), settings: runSettings() }), $('run-error')));
  $('r-name').addEventListener('change', () => act(() => send({ type: 'renameCrawler', crawlerId: String(state.selected), name: $input('r-name').value }), $('run-error')));
}
