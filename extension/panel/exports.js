// The exports of the crawler shown: its pattern (JSON), its pages (JSON Lines, CSV records, WARC)
// and a Scrapy project, built here by the wasm core's writers over the pages in IndexedDB, a
// batch at a time, and saved through the downloads API. `exemplarExport` (on globalThis) is how
// tests read them.
import init, { WarcExport, exportCsv, exportJsonl, exportScrapyZip } from '../pkg/exemplar.js';
import * as db from '../lib/db.js';
import { $, $input } from '../lib/dom.js';
import { safeName } from './format.js';
import { selectedCrawler } from './state.js';

/** @typedef {'pattern' | 'scrapy' | 'jsonl' | 'csv' | 'warc'} ExportFormat */
/** @typedef {import('../lib/db.js').PageRecord} PageRecord */
/** @typedef {import('../lib/protocol.js').LearnedSummary} LearnedSummary */

/** The wasm core in the panel, loaded at the first export.
 * @type {ReturnType<typeof init> | null} */
let wasm = null;
const core = () => (wasm ??= init({ module_or_path: chrome.runtime.getURL('pkg/exemplar_bg.wasm') }));

/** Pages per batch when exporting: only one batch of bodies is in memory at a time. */
const EXPORT_BATCH = 200;

/** The page formats: file name after the site's, and type.
 * @type {Record<string, {suffix: string, type: string}>} */
const PAGE_FORMATS = {
  jsonl: { suffix: 'pages.jsonl', type: 'application/x-ndjson' },
  csv: { suffix: 'pages.csv', type: 'text/csv' },
  warc: { suffix: 'pages.warc', type: 'application/warc' },
};

/**
 * One export of a crawler as {filename, blob} (`changesOnly`: the pages the last run found first
 * or found changed). Pages are read from the database a batch at a
 * time (URL order) and each batch is encoded at once into a Blob of its own, which the browser
 * keeps in its blob storage (on disk when large), so a crawl of many large pages is exported
 * without holding every body, or the whole file, in the panel.
 * @param {string} crawlerId
 * @param {ExportFormat} format
 * @param {{batch?: number, changesOnly?: boolean}} [options]
 * @returns {Promise<{filename: string, blob: Blob}>}
 */
async function exportData(crawlerId, format, { batch = EXPORT_BATCH, changesOnly = false } = {}) {
  await core();
  const crawler = await db.get('crawlers', crawlerId);
  if (!crawler) throw new Error(`no crawler ${crawlerId}`);
  const site = safeName(crawler.site);
  if (format === 'pattern') return { filename: `${site}-pattern.json`, blob: new Blob([crawler.patternJson], { type: 'application/json' }) };
  if (format === 'scrapy') return { filename: `${site}-scrapy.zip`, blob: new Blob([bytes(exportScrapyZip(crawler.patternJson))], { type: 'application/zip' }) };
  // Only what the last run brought (a scheduled run's news, for an extractor fed with the
  // changes): the pages whose first run is the last one, after at least one before it, and
  // those whose text the last run found changed.
  const lastRun = crawler.runs?.at(-1)?.jobId;
  const reran = (crawler.runs ?? []).length > 1;
  if (changesOnly && !reran) throw new Error('No changes: the crawler has run once.');
  const keep = changesOnly
    ? (/** @type {PageRecord} */ p) => {
      const change = db.changeIn(p, lastRun, reran);
      return change === 'new' || change === 'changed';
    }
    : undefined;
  // A crawl measures the similarity of the pages it compares with the example only (those
  // learning did not know, unless it verifies all): the others carry the one learning measured,
  // as the panel shows it.
  const learnJob = crawler.learnJobId ? await db.get('jobs', crawler.learnJobId) : undefined;
  const learnedTargets = learnJob?.kind === 'learn' ? /** @type {LearnedSummary | null} */ (learnJob.result)?.targets ?? [] : [];
  const learned = new Map(learnedTargets.map((t) => [t.url, t.similarity]));
  // Each page the last run found says what it is against the run before (JSONL and WARC
  // `change`: new, changed or same); pages it did not find, and a first run's, say nothing.
  const withChange = (/** @type {PageRecord} */ p) => {
    const change = db.changeIn(p, lastRun, reran);
    const similarity = typeof p.similarity === 'number' ? p.similarity : learned.get(p.url) ?? null;
    return { ...p, similarity, ...(change ? { change } : {}) };
  };
  const base = site + (changesOnly ? '-changes' : '');
  const known = PAGE_FORMATS[format];
  if (!known) throw new Error(`unknown export format ${format}`);
  /** @type {Blob[]} */
  const parts = [];
  /** @type {(pages: PageRecord[]) => BlobPart} */
  let encode = (pages) => exportJsonl(pages, true);
  // A CSV column per data field, in the pattern's order.
  /** @type {string[]} */
  let fieldNames = [];
  try {
    fieldNames = (JSON.parse(crawler.patternJson).fields ?? []).map((/** @type {{name: string}} */ f) => f.name);
  } catch { /* no columns */ }
  if (format === 'csv') {
    // One header row: later batches drop theirs.
    encode = (pages) => {
      const text = exportCsv(pages, fieldNames);
      return parts.length === 0 ? text : text.slice(text.indexOf('\r\n') + 2);
    };
  }
  /** @type {WarcExport | null} */
  let warc = null;
  if (format === 'warc') {
    const writer = new WarcExport(`Exemplar crawl of ${crawler.entry} (pattern learned from ${crawler.example})`, Date.now());
    warc = writer;
    encode = (pages) => bytes(writer.push(pages));
  }
  try {
    // Each batch becomes a Blob at once: its text or bytes go to the browser's blob storage and
    // can be collected here; the final Blob only references the parts.
    const count = await db.eachPageBatch(crawlerId, batch, (pages) => parts.push(new Blob([encode(pages.map(withChange))])), keep);
    if (count === 0) throw new Error(changesOnly ? 'No new or changed pages in the last run.' : 'No pages yet: run the crawler first.');
    if (warc) parts.push(new Blob([bytes(warc.finish())]));
  } finally {
    warc?.free();
  }
  return { filename: `${base}-${known.suffix}`, blob: new Blob(parts, { type: known.type }) };
}
// Tests read exports through this (the downloads themselves land in the browser's folder).
Object.assign(globalThis, { exemplarExport: exportData });

/**
 * The core's bytes as a Blob part (wasm-bindgen's copies live in an ArrayBuffer, never a shared one).
 * @param {Uint8Array} data
 */
const bytes = (data) => /** @type {Uint8Array<ArrayBuffer>} */ (data);

/**
 * Saves one export of the crawler shown in the downloads folder (exemplar/).
 * @param {ExportFormat} format
 */
async function download(format) {
  const crawler = selectedCrawler();
  if (!crawler) return;
  const { filename, blob } = await exportData(crawler.id, format, { changesOnly: $input('export-changes').checked });
  const url = URL.createObjectURL(blob);
  try {
    const id = await chrome.downloads.download({ url, filename: `exemplar/${filename}`, saveAs: false, conflictAction: 'uniquify' });
    $('export-status').textContent = `Saved ${filename}.`;
    $('export-status').dataset.downloadId = String(id);
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

/** Each export button downloads its format. */
export function wireExports() {
  for (const format of /** @type {ExportFormat[]} */ (['pattern', 'jsonl', 'csv', 'warc', 'scrapy'])) {
    $(`export-${format}`).addEventListener('click', () => {
      $('export-status').textContent = '';
      download(format).catch((e) => { $('export-status').textContent = e.message; });
    });
  }
}
