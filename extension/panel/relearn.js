// Re-learning as the panel shows it (review.js's Re-learn button sends θ and the verdicts). While
// the worker learns again from the pages already fetched, the button is disabled and a live
// status says so, with the seconds gone; then it says what came out (θ, the targets before and
// after, how long it took), or the error. A reply that fails is said in the error line, and one
// that never comes is too, after `RELEARN_TIMEOUT_MS`: the button is never left waiting in
// silence. One re-learn at a time: a click while one runs does nothing.
import { $, $button, $input } from '../lib/dom.js';
import { act, learnedOf, selectedCrawler, state } from './state.js';

/** How long an answer is waited for: Chrome ends a service worker's event after 5 minutes, so
 * a reply later than that will not come. */
export const RELEARN_TIMEOUT_MS = 5 * 60_000;

/** The learning result of the crawler shown, as the panel last read it. */
function shownResult() {
  const crawler = selectedCrawler();
  return learnedOf(state.jobs.find((j) => j.id === crawler?.learnJobId));
}

/**
 * `promise`, or an error once `ms` have passed without it settling.
 * @param {Promise<unknown>} promise
 * @param {number} ms
 */
function within(promise, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`No answer from Exemplar's background after ${Math.round(ms / 60_000)} minutes: ` +
      're-learning did not finish. The result shown is the one learned before; reload the panel and try again.')), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** @param {number} n */
const count = (n) => n.toLocaleString('en');

/**
 * Runs `send` (the re-learn's message, sent and answered) with the button disabled and the
 * status live, its error in `errorEl`, then refreshes the panel (state.js's `act`) and says
 * what came out.
 * @param {() => Promise<unknown>} send
 * @param {HTMLElement} errorEl
 */
export async function relearning(send, errorEl) {
  const button = $button('relearn');
  if (button.disabled) return;
  const status = $('relearn-status');
  const before = shownResult();
  const theta = $input('threshold').value;
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const say = () => {
    status.textContent = `Re-learning at θ = ${theta} from the pages already fetched… ${Math.floor((Date.now() - started) / 1000)} s`;
  };
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  status.dataset.state = 'running';
  say();
  const clock = setInterval(say, 1000);
  try {
    await act(() => within(send(), RELEARN_TIMEOUT_MS), errorEl);
  } finally {
    clearInterval(clock);
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
  if (errorEl.textContent) {
    status.dataset.state = 'failed';
    status.textContent = `Re-learning failed after ${seconds()} s (the error is below).`;
    return;
  }
  const after = shownResult();
  status.dataset.state = 'done';
  status.textContent = after
    ? `Re-learned at θ = ${after.threshold} in ${seconds()} s: ${count(after.targets.length)} targets` +
      (before ? ` (before: ${count(before.targets.length)} at θ = ${before.threshold}).` : '.')
    : `Re-learned in ${seconds()} s.`;
}
