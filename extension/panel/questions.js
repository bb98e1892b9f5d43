// The review as questions: the pages to judge as cards, each with its name
// (heading, else title), its URL, its similarity, its marks and a Yes / No pair: "Are these like
// your example?" over the pages most similar below θ, "Are these really like your example?" over
// the targets to check, each list named for what it holds; then the groupings (targets by heading
// kind, declared language and directory, pages below θ by heading kind), each folded under a
// summary that asks its question and counts its groups, shown only where it groups something
// (the core lists no group of one page, unless judged).
//
// Contract: `renderQuestions(result)` draws them from a learning result, and redraws only when the
// result changes, so that answers survive polling; `verdicts()` reads the answers as the
// `relearn` message's verdict lists. A "Yes" on a page below θ is a `like`, a "No" on a target an
// `unlike`; the other answer leaves the page where it is (no verdict). A page judged before is
// listed answered, so that the verdict can be taken back (the verdicts sent replace the last).
// Crawled text (titles, headings, URLs) is written as text only.
import { $, el } from '../lib/dom.js';
import { BY_HEADING, ENTRY, LIKE_PAGES_BELOW, LIKE_TARGETS, badge, hostOf, pageLink, pathOf } from './format.js';

/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */
/** @typedef {import('./format.js').Mark} Mark */
/** @typedef {import('../lib/core-types.js').HeadingKind} HeadingKind */
/** @typedef {import('../lib/core-types.js').KindBelow} KindBelow */
/** @typedef {import('../lib/core-types.js').LanguageKind} LanguageKind */
/** @typedef {import('../lib/core-types.js').DirectoryKind} DirectoryKind */

/**
 * A page to judge: its URL, similarity (none when not measured), marks (`[badge, hover text]`),
 * names (heading, title: the first given names it), and the answer given so far.
 * @typedef {{url: string, similarity: number | null | undefined, marks: Mark[], names: (string | undefined)[], answer: 'yes' | 'no' | null}} PageToJudge
 */

/** How many of the least similar targets the review asks about in a result learned before the
 * core chose the targets to check (`doubtfulTargets`). */
const WEAK_TARGETS = 5;

/** How far below θ the most similar pages may score and still be called "just below θ". */
const NEAR = 0.1;

/** @param {number | null | undefined} x */
const fmtSimilarity = (x) => (typeof x === 'number' ? x.toFixed(3) : null);

/**
 * A page's card: its name, its URL (the path, opening in a new tab; the heading, title and full
 * URL on hover), its similarity and marks, and the Yes / No pair named by the page. `verdict`
 * says which answer is a verdict (`like` on "Yes", `unlike` on "No"): that radio carries it.
 * @param {string} list the list's id, naming the pair's radio group
 * @param {number} i
 * @param {PageToJudge} page
 * @param {{yes?: string, no?: string}} verdict
 */
function pageCard(list, i, page, verdict) {
  const shown = page.names.find((n) => n) ?? pathOf(page.url);
  const similarity = fmtSimilarity(page.similarity);
  const about = `${shown} (${pathOf(page.url)}, similarity ${similarity ?? 'not measured'})`;
  const li = el('li', undefined, 'card page-card');
  li.dataset.url = page.url;
  const link = pageLink(page.url);
  link.title = [...new Set(page.names.filter(Boolean)), page.url].join('\n');
  const facts = el('span', undefined, 'facts');
  facts.append(el('span', similarity ? `similarity ${similarity}` : 'similarity not measured', 'num'));
  for (const mark of page.marks) facts.append(' ', badge(mark));
  const where = el('p', undefined, 'where');
  where.append(link, ' ', facts);
  const pair = el('div', undefined, 'answer');
  pair.setAttribute('role', 'radiogroup');
  pair.setAttribute('aria-label', `Is ${shown} like your example?`);
  pair.append(
    choice(`${list}-${i}`, 'yes', 'Yes, like my example', `Yes, like my example: ${about}`, page, verdict.yes),
    choice(`${list}-${i}`, 'no', 'No', `No, not like my example: ${about}`, page, verdict.no),
  );
  li.append(el('p', shown, 'name'), where, pair);
  return li;
}

/**
 * One answer of a card's pair: a radio carrying the page's URL (and the verdict it is, if any),
 * its visible text, and its name for a screen reader (the answer, then the page).
 * @param {string} group
 * @param {'yes' | 'no'} value
 * @param {string} text
 * @param {string} name
 * @param {PageToJudge} page
 * @param {string | undefined} verdict
 */
function choice(group, value, text, name, page, verdict) {
  const radio = el('input');
  radio.type = 'radio';
  radio.name = group;
  radio.value = value;
  radio.dataset.url = page.url;
  if (verdict) radio.dataset.verdict = verdict;
  radio.checked = page.answer === value;
  radio.setAttribute('aria-label', name);
  const label = el('label', undefined, value);
  label.append(radio, ' ', text);
  return label;
}

/**
 * The review's questions from a learning result. Redrawn only when the result changes, so
 * answers survive polling (`#review-box`'s `data-key` says which result is drawn).
 * @param {LearnedSummary} result
 */
export function renderQuestions(result) {
  const corrections = result.corrections ?? { like: [], unlike: [] };
  const kinds = result.headingKinds ?? [];
  const below = result.headingKindsBelow ?? [];
  const languages = result.languageKinds ?? [];
  const directories = result.directoryKinds ?? [];
  const key = JSON.stringify([result.threshold, corrections, (result.nearMisses ?? []).map((n) => n.url), result.targets.length, kinds, below, languages, directories]);
  if ($('review-box').dataset.key === key) return;
  $('review-box').dataset.key = key;
  renderPages(result, corrections);
  renderGroupings(result);
}

/**
 * The two questions on pages: the pages most similar below θ (those the user took, answered
 * "Yes"), and the targets to check (those the user left out, answered "No").
 * @param {LearnedSummary} result
 * @param {{like: string[], unlike: string[]}} corrections
 */
function renderPages(result, corrections) {
  const liked = new Set(corrections.like);
  const target = new Map(result.targets.map((t) => [t.url, t]));
  const near = result.nearMisses ?? [];
  /** @type {PageToJudge[]} */
  const belowTheta = [
    ...corrections.like.map((url) => ({ url, similarity: target.get(url)?.similarity, marks: [], names: [target.get(url)?.title], answer: /** @type {const} */ ('yes') })),
    ...near.map((n) => ({ url: n.url, similarity: n.similarity, marks: n.urlLikeTargets ? [LIKE_TARGETS] : [], names: [n.heading, n.title], answer: null })),
  ];
  $('near-box').hidden = belowTheta.length === 0;
  $('near-what').textContent = nearName(near.map((n) => n.similarity), result.threshold, corrections.like.length);
  $('near-misses').replaceChildren(...belowTheta.map((p, i) => pageCard('near-misses', i, p, { yes: 'like' })));

  // The core's choice: targets taken below θ for their heading, those whose URL shape is mostly
  // held by pages below θ, then the least similar.
  /** @type {{url: string, title: string, heading?: string, similarity: number | null, entry?: boolean, byHeading?: boolean, urlUnlikeTargets?: boolean}[]} */
  const toCheck = result.doubtfulTargets ?? result.targets
    .filter((t) => !liked.has(t.url) && typeof t.similarity === 'number')
    .sort((a, b) => (a.similarity ?? 0) - (b.similarity ?? 0))
    .slice(0, WEAK_TARGETS);
  /** @type {PageToJudge[]} */
  const targets = [
    ...corrections.unlike.map((url) => ({ url, similarity: undefined, marks: [], names: [], answer: /** @type {const} */ ('no') })),
    ...toCheck.map((t) => ({
      url: t.url,
      similarity: t.similarity,
      marks: [...(t.entry ? [ENTRY] : []), ...(t.byHeading ? [BY_HEADING] : []), ...(t.urlUnlikeTargets ? [LIKE_PAGES_BELOW] : [])],
      names: [t.heading, t.title],
      answer: null,
    })),
  ];
  $('weak-box').hidden = targets.length === 0;
  $('weak-what').textContent = targetsName(toCheck, corrections.unlike.length);
  $('weak-targets').replaceChildren(...targets.map((p, i) => pageCard('weak-targets', i, p, { no: 'unlike' })));
}

/**
 * What the list of pages below θ holds: "just below θ" only when they all are within NEAR of it;
 * their similarities' span either way, and the pages the user took.
 * @param {number[]} sims
 * @param {number} threshold
 * @param {number} taken
 */
export function nearName(sims, threshold, taken) {
  const parts = [];
  if (taken) parts.push(`${taken} you answered Yes (now targets)`);
  if (sims.length) {
    const hi = Math.max(...sims);
    const lo = Math.min(...sims);
    const span = lo === hi ? `${fmtSimilarity(hi)}` : `from ${fmtSimilarity(hi)} down to ${fmtSimilarity(lo)}`;
    const n = `${sims.length} ${sims.length === 1 ? 'page' : 'pages'}`;
    parts.push(threshold - lo <= NEAR
      ? `the ${n} just below θ ${threshold}, ${span}`
      : threshold - hi <= NEAR
        ? `the ${n} most similar below θ ${threshold}, ${span}`
        : `the ${n} most similar below θ ${threshold}, none near it: ${span}`);
  }
  const text = parts.join('; ');
  return text && text[0].toUpperCase() + text.slice(1) + '.';
}

/**
 * What the list of targets to check holds: the entry page, the pages taken for their heading,
 * those whose URL is shaped like pages below θ, the others (the least similar), and those the
 * user left out.
 * @param {{similarity: number | null, entry?: boolean, byHeading?: boolean, urlUnlikeTargets?: boolean}[]} toCheck
 * @param {number} leftOut
 */
export function targetsName(toCheck, leftOut) {
  const count = (/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ many) => `${n} ${n === 1 ? one : many}`;
  const parts = [];
  if (leftOut) parts.push(`${count(leftOut, 'page', 'pages')} you answered No (left out)`);
  if (toCheck.some((t) => t.entry)) parts.push('the entry page');
  const byHeading = toCheck.filter((t) => !t.entry && t.byHeading).length;
  if (byHeading) parts.push(`${count(byHeading, 'page', 'pages')} below θ taken for their heading`);
  const byUrl = toCheck.filter((t) => !t.entry && !t.byHeading && t.urlUnlikeTargets).length;
  if (byUrl) parts.push(`${count(byUrl, 'target', 'targets')} whose URL is shaped like pages below θ`);
  const rest = toCheck.filter((t) => !t.entry && !t.byHeading && !t.urlUnlikeTargets);
  const sims = rest.flatMap((t) => (typeof t.similarity === 'number' ? [t.similarity] : []));
  if (rest.length) {
    const [lo, hi] = [Math.min(...sims), Math.max(...sims)];
    const span = !sims.length ? '' : lo === hi ? `, ${sims.length > 1 ? 'each ' : ''}${fmtSimilarity(lo)}` : `, ${fmtSimilarity(lo)} to ${fmtSimilarity(hi)}`;
    parts.push(`the ${count(rest.length, 'least similar target', 'least similar targets')}${span}`);
  }
  const text = parts.join('; ');
  return text && text[0].toUpperCase() + text.slice(1) + '.';
}

/**
 * A grouping: its box (`<details>`, folded until opened), summary and list; the question, the
 * group's noun and what a verdict on a group does.
 * @typedef {{box: string, summary: string, list: string, question: string, noun: [string, string], done: string}} Grouping
 */

/**
 * A grouping drawn where it groups something: the core lists only groups of two pages or more
 * (and those judged), and the panel shows a grouping of the targets only where they fall in two
 * groups or more (`minGroups`: one group of them all groups nothing), or a verdict stands on a
 * group. Its summary asks its question and counts its groups and verdicts.
 * @template K
 * @param {Grouping} g
 * @param {K[]} kinds
 * @param {(k: K) => boolean} verdict
 * @param {number} minGroups
 * @param {(k: K) => HTMLElement} row
 */
function drawGrouping(g, kinds, verdict, minGroups, row) {
  const judged = kinds.filter(verdict).length;
  $(g.box).hidden = kinds.length < minGroups && judged === 0;
  const [one, many] = g.noun;
  $(g.summary).textContent = `${g.question} (${kinds.length} ${kinds.length === 1 ? one : many}` +
    `${judged ? `, ${judged} ${g.done}` : ''})`;
  $(g.list).replaceChildren(...kinds.map(row));
}

/**
 * The groupings and what a verdict on them left out.
 * @param {LearnedSummary} result
 */
function renderGroupings(result) {
  // Kinds by heading: a choice only where the targets have two or more, or one was left out.
  drawGrouping({ box: 'kinds-box', summary: 'kinds-summary', list: 'heading-kinds', question: 'Leave out a kind of target?', noun: ['heading', 'headings'], done: 'left out' },
    result.headingKinds ?? [], (k) => k.unlike, 2, kindRow);
  drawGrouping({ box: 'kinds-below-box', summary: 'kinds-below-summary', list: 'heading-kinds-below', question: 'Take a kind of page below θ?', noun: ['heading', 'headings'], done: 'taken' },
    result.headingKindsBelow ?? [], (k) => k.like, 1, kindBelowRow);
  // Languages: listed by the core only where the targets declare two or more.
  drawGrouping({ box: 'languages-box', summary: 'languages-summary', list: 'language-kinds', question: 'Leave out a language?', noun: ['language', 'languages'], done: 'left out' },
    result.languageKinds ?? [], (k) => k.unlike, 1, languageRow);
  // Directories: listed by the core only where the targets lie in two or more of two targets or
  // more. With subdomains in scope, two hosts may hold directories of one path: then each is
  // named with its host.
  const directories = result.directoryKinds ?? [];
  const hosts = new Set(directories.map((d) => hostOf(d.directory)));
  drawGrouping({ box: 'directories-box', summary: 'directories-summary', list: 'directory-kinds', question: 'Leave out a directory?', noun: ['directory', 'directories'], done: 'left out' },
    directories, (k) => k.unlike, 1, (d) => directoryRow(d, hosts.size > 1));
  note('left-out', result.unlikeByHeading ?? [], 'their heading', 'the kind');
  note('left-out-language', result.unlikeByLanguage ?? [], 'their language', 'the language');
  note('left-out-directory', result.unlikeByDirectory ?? [], 'their directory', 'the directory');
}

/**
 * What a verdict on a whole kind left out, into `id`: how many targets, the first three, and how
 * to take them back; hidden when nothing was.
 * @param {string} id
 * @param {string[]} urls
 * @param {string} reason
 * @param {string} kind
 */
function note(id, urls, reason, kind) {
  $(id).hidden = urls.length === 0;
  if (urls.length === 0) {
    $(id).textContent = '';
    return;
  }
  const first = urls.slice(0, 3).map(pathOf).join(', ') + (urls.length > 3 ? ', …' : '');
  $(id).textContent = `${urls.length} ${urls.length === 1 ? 'target' : 'targets'} left out for ${reason} (${first}). Untick ${kind} to take them back.`;
}

/**
 * One row of the kinds list: a checkbox carrying the template (ticked: left out), how many
 * targets, the template as text, and its first sample page (all samples on hover). The
 * example's kind cannot be left out.
 * @param {HeadingKind} kind
 */
function kindRow(kind) {
  // The core's one kind that is not a template of words: headings that start with a section
  // number (`heading::NUMBERED`). A kind's manual section (`HeadingKind::section`): learning
  // leaves out those that are not the example's.
  const note = kind.template === '#' ? 'headings that start with a section number (chapters, sections)'
    : kind.section ? `manual section ${kind.section}${kind.unlike && !kind.example ? ', not your example\'s: left out' : ''}` : null;
  return kindItem(kind, kind.unlike, kind.example, [String(kind.targets)], note);
}

/**
 * One row of the languages list: a checkbox carrying the language tag (ticked: left out),
 * how many targets declare it, the tag, and its first sample page. The example's language
 * cannot be left out.
 * @param {LanguageKind} kind
 */
function languageRow(kind) {
  return kindItem({ template: kind.language, samples: kind.samples, example: kind.example }, kind.unlike, kind.example,
    [String(kind.targets)], kind.unlike && !kind.example ? "not your example's language: left out" : null,
    { language: kind.language });
}

/**
 * One row of the directories list: a checkbox carrying the directory's URL (ticked: left
 * out), how many targets lie in it, its path (after its host with `withHost`), and its first
 * sample page. The example's directory cannot be left out.
 * @param {DirectoryKind} kind
 * @param {boolean} [withHost]
 */
function directoryRow(kind, withHost = false) {
  const name = (withHost ? hostOf(kind.directory) : '') + pathOf(kind.directory);
  return kindItem({ template: name, samples: kind.samples, example: kind.example }, kind.unlike, kind.example,
    [String(kind.targets)], null, { directory: kind.directory });
}

/**
 * One row of the kinds below θ: a checkbox carrying the template (ticked: taken whatever the
 * similarity), how many pages, the best similarity among them, the template, and its first
 * sample page (all samples on hover).
 * @param {KindBelow} kind
 */
function kindBelowRow(kind) {
  return kindItem(kind, kind.like, false, [String(kind.pages), kind.best.toFixed(3)], null);
}

/**
 * A kind's row: its checkbox (carrying `data`: what a verdict on it names), figures,
 * template, note, whether it is the example's, and its first sample page.
 * @param {{template: string, samples: string[], example: boolean}} kind
 * @param {boolean} checked
 * @param {boolean} disabled
 * @param {string[]} figures
 * @param {string | null} note
 * @param {Record<string, string>} [data]
 */
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

/**
 * What the controls checked in one review list carry under `key` (`url`, `template`, …); in
 * a list of cards, only the answers that are `verdict`.
 * @param {string} list
 * @param {string} key
 * @param {string} [verdict]
 * @returns {string[]}
 */
function checked(list, key, verdict) {
  const selector = verdict ? `input[data-verdict="${verdict}"]:checked` : 'input:checked';
  const boxes = /** @type {NodeListOf<HTMLInputElement>} */ ($(list).querySelectorAll(selector));
  return [...boxes].flatMap((box) => box.dataset[key] ?? []);
}

/** The verdicts answered and ticked, as the `relearn` message carries them. */
export function verdicts() {
  return {
    like: checked('near-misses', 'url', 'like'),
    unlike: checked('weak-targets', 'url', 'unlike'),
    unlikeHeadings: checked('heading-kinds', 'template'),
    likeHeadings: checked('heading-kinds-below', 'template'),
    // The whole set of verdicts replaces the last: a language unticked is taken back.
    unlikeLanguages: checked('language-kinds', 'language'),
    unlikeDirectories: checked('directory-kinds', 'directory'),
  };
}
