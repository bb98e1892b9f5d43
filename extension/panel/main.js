// The side panel (Chrome) / sidebar (Firefox), also usable as a tab, its entry: draws the views
// from the state and keeps it fresh. Views, one module each: progress of the job shown
// (progress.js), the learned crawler (result.js) with its data fields (fields.js), threshold
// (review.js), the review's questions (questions.js), Re-learn's status (relearn.js) and the
// warning over targets like listings (listings.js), schedule (schedule.js), exports (exports.js)
// and target pages (pages.js), "Find more sites like this" (discover.js), and the saved crawlers
// (crawlers.js), the item pages "Find item pages" found (sections.js); state.js holds what the
// background last reported.
//
// It survives the popup closing and the worker stopping: it polls the worker every half second,
// and each poll wakes a stopped worker, which resumes its jobs. Exports are built here (the wasm
// core's writers over the pages in IndexedDB) and saved through the downloads API.
// Crawled content is only ever written with textContent.
import { onNotice } from '../lib/protocol.js';
import { renderCrawlers, wireCrawlers } from './crawlers.js';
import { renderDiscover, wireDiscover } from './discover.js';
import { wireExports } from './exports.js';
import { fieldsChanged, wireFields } from './fields.js';
import { wireListings } from './listings.js';
import { wirePages } from './pages.js';
import { renderJob, wireProgress } from './progress.js';
import { renderResult, wireResult } from './result.js';
import { wireThreshold } from './review.js';
import { wireSchedule } from './schedule.js';
import { wireSections } from './sections.js';
import { currentJob, onRedraw, refresh, state } from './state.js';

const POLL_MS = 500;
const IDLE_POLL_MS = 5000;

function renderAll() {
  const job = currentJob();
  renderJob(job);
  if (!state.selected || !state.crawlers.some((c) => c.id === state.selected)) {
    state.selected = job?.crawlerId ?? state.crawlers[0]?.id ?? null;
  }
  renderResult();
  renderDiscover();
  renderCrawlers();
}

onRedraw(renderAll);
wireProgress();
wireResult();
wireThreshold();
wireListings();
wireExports();
wireFields();
wireSchedule();
wirePages();
wireCrawlers();
wireSections();
wireDiscover();

// Every poll wakes a stopped worker (which resumes its jobs): poll often while something runs,
// rarely when nothing does, so an idle panel does not keep the worker awake.
async function poll() {
  await refresh();
  setTimeout(poll, state.jobs.some((j) => j.status === 'running') ? POLL_MS : IDLE_POLL_MS);
}
poll();
onNotice((n) => {
  if (n.type === 'fieldsChanged') fieldsChanged(n.crawlerId, n.error);
  refresh();
});
