// The warning over targets that look like listing pages: those the page-kind model calls
// listings, or that page on by "Next" or page numbers, while the example is neither (the core's
// `review::listing`). It names how many and shows a few; "Leave out listing pages" re-learns with
// them judged unlike the example, the crawler's other verdicts kept, nothing fetched again.
// Crawled titles and URLs are written with textContent only.
import { $, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { pageLink } from './format.js';
import { act, selectedCrawler } from './state.js';

/** Targets shown as examples in the warning. */
const SAMPLES = 3;

/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */

/** The learning result the warning was drawn from. @type {LearnedSummary | null} */
let shown = null;

/**
 * Draws the warning for `result` (hidden when no target looks like a listing).
 * @param {LearnedSummary | null} result
 */
export function renderListings(result) {
  shown = result;
  const urls = result?.listingTargets ?? [];
  $('listing-warning').hidden = urls.length === 0;
  if (urls.length === 0) return;
  const of = result?.targets.length ?? urls.length;
  $('listing-text').textContent =
    `${urls.length} of the ${of} targets look like listing pages (lists of other pages, or pages of a paged list), ` +
    'not like your example. Leave them out if you want only pages like your example.';
  const titles = new Map((result?.targets ?? []).map((t) => [t.url, t.title]));
  $('listing-samples').replaceChildren(...urls.slice(0, SAMPLES).map((u) => {
    // The path names a listing (`/tag/love/page/1/`) where its title is often the site's.
    const a = pageLink(u);
    a.title = [titles.get(u), u].filter(Boolean).join('\n');
    const li = el('li');
    li.append(a);
    return li;
  }), ...(urls.length > SAMPLES ? [el('li', `and ${urls.length - SAMPLES} more`)] : []));
}

/**
 * The verdicts to re-learn with: the crawler's, and the listing targets judged unlike.
 * @param {LearnedSummary} result
 */
function withListingsLeftOut(result) {
  const c = result.corrections;
  return {
    like: c.like ?? [],
    unlike: [...new Set([...(c.unlike ?? []), ...(result.listingTargets ?? [])])],
    unlikeHeadings: c.unlikeHeadings ?? [],
    likeHeadings: c.likeHeadings ?? [],
    unlikeLanguages: c.unlikeLanguages ?? [],
    likeLanguages: c.likeLanguages ?? [],
    unlikeDirectories: c.unlikeDirectories ?? [],
    likeDirectories: c.likeDirectories ?? [],
  };
}

export function wireListings() {
  $('leave-listings').addEventListener('click', () => act(async () => {
    const crawler = selectedCrawler();
    if (!shown || !crawler) return;
    const button = /** @type {HTMLButtonElement} */ ($('leave-listings'));
    button.disabled = true;
    try {
      await send({ type: 'relearn', jobId: String(crawler.learnJobId), threshold: shown.threshold, ...withListingsLeftOut(shown) });
    } finally {
      button.disabled = false;
    }
  }, $('listing-error')));
}
