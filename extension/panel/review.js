// The threshold view of a learned crawler: θ, the histogram of similarities, a gap in the scores
// or a θ lowered from them, and the review's questions (questions.js) whose answers are the
// user's verdicts; Re-learn sends θ and the verdicts.
import { $, $input } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { drawChart } from './chart.js';
import { renderQuestions, verdicts } from './questions.js';
import { relearning } from './relearn.js';
import { selectedCrawler } from './state.js';

/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */

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
  renderQuestions(result);
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
 * The chart in a sentence: how many of the pages fetched are at or above θ (the chart shows them
 * blue, the others grey).
 * @param {number[]} sims
 * @param {number} threshold
 */
function histogram(sims, threshold) {
  const above = sims.filter((s) => s >= threshold).length;
  return `${above} of ${sims.length} at or above θ (blue), the other pages fetched below it (grey).`;
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

/** The gap's θ into the box, and Re-learn with θ and the verdicts answered. */
export function wireThreshold() {
  // The gap's θ goes into the box; Re-learn applies it with the verdicts answered.
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
  $('relearn').addEventListener('click', () => relearning(async () => {
    const crawler = selectedCrawler();
    await send({
      type: 'relearn', jobId: String(crawler?.learnJobId), threshold: Number($input('threshold').value),
      ...verdicts(),
    });
  }, $('relearn-error')));
}
