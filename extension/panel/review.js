// The threshold view of a learned crawler: θ, the histogram of similarities, a gap in the scores
// or a θ lowered from them, and the review lists (pages near θ, targets to check, the targets by
// heading kind, declared language and directory, the pages below θ by heading kind) whose ticks
// are the user's verdicts; Re-learn sends θ and the verdicts.
import { $, $input, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { drawChart } from './chart.js';
import { BY_HEADING, ENTRY, LIKE_PAGES_BELOW, LIKE_TARGETS, badge, hostOf, pageLink, pathOf } from './format.js';
import { act, selectedCrawler } from './state.js';

/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */
/** @typedef {import('./format.js').Mark} Mark */
/** @typedef {import('../lib/core-types.js').HeadingKind} HeadingKind */
/** @typedef {import('../lib/core-types.js').KindBelow} KindBelow */
/** @typedef {import('../lib/core-types.js').LanguageKind} LanguageKind */
/** @typedef {import('../lib/core-types.js').DirectoryKind} DirectoryKind */

/**
 * The threshold box of a learning result (`null`: hidden, not learned yet).
 * @param {LearnedSummary | null} result
 */
export function renderThreshold(result) {
  $('threshold-box').hidden = !result;
  shownResult = result;
  if (!result) return;
  // Left alone while the user sets θ in either.
  if (document.activeElement !== $('threshold') && document.activeElement !== $('theta-slider')) {
    $input('threshold').value = String(result.threshold);
    $input('theta-slider').value = String(result.threshold);
  }
  $('histogram').textContent = histogram(result.similarities ?? [], result.threshold);
  // Nearly every page fetched passed θ: the targets may hold pages of other kinds.
  const sims = result.similarities ?? [];
  const passed = sims.filter((x) => x >= result.threshold).length;
  const all = sims.length >= 10 && passed >= 0.95 * sims.length;
  $('all-passed').hidden = !all;
  $('all-passed').textContent = all
    ? `Nearly every page fetched passed θ (${passed} of ${sims.length}): θ may be too low for this site, or its pages all look alike. Check the targets below, or raise θ.`
    : '';
  preview();
  renderGap(result.thresholdGap);
  renderLowered(result.thresholdLowered, result.thresholdCut);
  renderReview(result);
}

/** The learning result shown, for the θ box's preview. @type {LearnedSummary | null} */
let shownResult = null;

/**
 * What the θ typed would change, before re-learning: how many pages would pass it against now
 * (nothing happens until Re-learn is pressed).
 */
function preview() {
  const result = shownResult;
  const typed = Number($input('threshold').value);
  const box = $('theta-preview');
  if (result) {
    const theta = Number.isFinite(typed) && typed >= 0 && typed <= 1 ? typed : result.threshold;
    drawChart($('theta-chart'), result.similarities ?? [], theta);
  }
  if (!result || !Number.isFinite(typed) || typed === result.threshold || typed < 0 || typed > 1) {
    box.textContent = '';
    return;
  }
  const sims = result.similarities ?? [];
  const now = sims.filter((s) => s >= result.threshold).length;
  const then = sims.filter((s) => s >= typed).length;
  const change = then - now;
  box.textContent = `At θ = ${typed}: ${then} of ${sims.length} pages at or above θ ` +
    `(${change === 0 ? 'no page changes side' : `${Math.abs(change)} ${change > 0 ? 'more' : 'fewer'}`}). Press Re-learn to apply it.`;
}

/**
 * A text histogram of the similarities seen while mapping, in tenths.
 * @param {number[]} sims
 * @param {number} threshold
 */
function histogram(sims, threshold) {
  const bins = new Array(10).fill(0);
  for (const s of sims) bins[Math.min(9, Math.floor(s * 10))] += 1;
  const above = sims.filter((s) => s >= threshold).length;
  return `Pages by similarity (0.0–1.0, in tenths): ${bins.join(' · ')}. ${above} of ${sims.length} at or above θ.`;
}

/**
 * A clear gap in the scores below θ (Rust's `pattern::threshold_gap`): the pages above it go on
 * from the targets' scores and have their URL shape, so θ may be too high for this site.
 * @param {LearnedSummary['thresholdGap']} gap
 */
function renderGap(gap) {
  $('gap').hidden = !gap;
  if (!gap) return;
  $('gap-text').textContent = `A gap in the scores below θ: ${gap.pages} pages score from ${gap.lowestAbove.toFixed(3)} ` +
    `to θ, ${gap.urlLikeTargets} of them with URLs shaped like the targets'; the next page scores ` +
    `${gap.highestBelow.toFixed(3)}. If they are like your example, a lower θ takes them.`;
  $('gap-theta').textContent = gap.threshold.toFixed(2);
}

/**
 * θ taken from the scores because only the example reached the default (Rust's
 * `pattern::lowered_threshold`): said, so that the user checks the targets it gives. When the
 * user set θ, it is kept and the θ the scores give is named (`cut`).
 * @param {LearnedSummary['thresholdLowered']} lowered
 * @param {LearnedSummary['thresholdCut']} cut
 */
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

/** How many of the least similar targets the review offers to mark "not like" in a result
 * learned before the core chose the targets to check (`doubtfulTargets`). */
const WEAK_TARGETS = 5;

/**
 * One review row: a checkbox carrying the URL, the similarity, the marks (`[badge, hover
 * text]` pairs), the URL, and on hover the page's heading and title (as text).
 * @param {string} url
 * @param {number | null | undefined} similarity
 * @param {Mark[]} marks
 * @param {(string | undefined)[]} names
 * @param {boolean} checked
 */
function reviewRow(url, similarity, marks, names, checked) {
  const box = el('input');
  box.type = 'checkbox';
  box.dataset.url = url;
  box.checked = checked;
  // Named by its page, not by its score (a screen reader reads the name).
  const shown = names.find((n) => n) ?? pathOf(url);
  box.setAttribute('aria-label', `${shown} (${pathOf(url)}, similarity ${typeof similarity === 'number' ? similarity.toFixed(3) : 'not measured'})`);
  const label = el('label');
  label.append(box, ' ', el('span', typeof similarity === 'number' ? similarity.toFixed(3) : '–', 'num'), ' ');
  for (const mark of marks) label.append(badge(mark), ' ');
  const page = pageLink(url);
  page.title = [...new Set(names.filter(Boolean)), url].join('\n');
  const li = el('li');
  li.append(label, page);
  return li;
}

/**
 * The review lists: pages just below θ (ticked: the user's "like"), and the least similar
 * targets (ticked: "not like"). Rebuilt only when the learning result changes, so ticks survive polling.
 * @param {LearnedSummary} result
 */
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
  /** @type {{url: string, title: string, heading?: string, similarity: number | null, entry?: boolean, byHeading?: boolean, urlUnlikeTargets?: boolean}[]} */
  const toCheck = result.doubtfulTargets ?? result.targets
    .filter((t) => !liked.has(t.url) && typeof t.similarity === 'number')
    .sort((a, b) => (a.similarity ?? 0) - (b.similarity ?? 0))
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

/**
 * What a verdict on a whole kind left out: how many targets, the first three, and how to take
 * them back. Empty when nothing was.
 * @param {string[]} urls
 * @param {string} reason
 * @param {string} kind
 */
function leftOutNote(urls, reason, kind) {
  if (urls.length === 0) return '';
  const first = urls.slice(0, 3).map(pathOf).join(', ') + (urls.length > 3 ? ', …' : '');
  return `${urls.length} ${urls.length === 1 ? 'target' : 'targets'} left out for ${reason} (${first}). Untick ${kind} to take them back.`;
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
 * What the boxes ticked in one review list carry under `key` (`url`, `template`, …).
 * @param {string} list
 * @param {string} key
 * @returns {string[]}
 */
function ticked(list, key) {
  const boxes = /** @type {NodeListOf<HTMLInputElement>} */ ($(list).querySelectorAll('input:checked'));
  return [...boxes].flatMap((box) => box.dataset[key] ?? []);
}

/** The gap's θ into the box, and Re-learn with θ and the verdicts ticked. */
export function wireThreshold() {
  // The gap's θ goes into the box; Re-learn applies it with the verdicts ticked.
  $('gap-use').addEventListener('click', () => {
    $input('threshold').value = String($('gap-theta').textContent);
    $input('theta-slider').value = $input('threshold').value;
    preview();
  });
  $('threshold').addEventListener('input', () => {
    $input('theta-slider').value = $input('threshold').value;
    preview();
  });
  // The slider under the chart moves θ; Re-learn applies it.
  $('theta-slider').addEventListener('input', () => {
    $input('threshold').value = $input('theta-slider').value;
    preview();
  });
  $('relearn').addEventListener('click', () => act(async () => {
    const crawler = selectedCrawler();
    await send({
      type: 'relearn', jobId: String(crawler?.learnJobId), threshold: Number($input('threshold').value),
      like: ticked('near-misses', 'url'), unlike: ticked('weak-targets', 'url'),
      unlikeHeadings: ticked('heading-kinds', 'template'),
      likeHeadings: ticked('heading-kinds-below', 'template'),
      // The whole set of verdicts replaces the last: a language unticked is taken back.
      unlikeLanguages: ticked('language-kinds', 'language'),
      unlikeDirectories: ticked('directory-kinds', 'directory'),
    });
  }, $('relearn-error')));
}
