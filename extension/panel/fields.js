// The data fields view of the crawler shown: each field with its name (editable), the kind of its
// values, its value on the example page and its selector; a field removed, one added by a CSS
// selector or by clicking it on the example page (background/fields.js). Values are the page's
// data: written as text only.
import { $, $input, el } from '../lib/dom.js';
import { send } from '../lib/protocol.js';
import { row } from './format.js';
import { selectedCrawler, state } from './state.js';

/** @typedef {import('../lib/core-types.js').FieldsView} FieldsView */
/** @typedef {import('../lib/core-types.js').FieldValue} FieldValue */
/** @typedef {import('../lib/core-types.js').FieldEdit} FieldEdit */
/** @typedef {import('../lib/protocol.js').CrawlerSummary} CrawlerSummary */

/** Longest value shown in full. */
const SHOWN = 160;
/** The view drawn last: crawler id and pattern text (drawn again when either changes). */
let drawnKey = '';

/** Kinds of values in words. */
const KINDS = /** @type {const} */ ({
  text: 'text', longText: 'long text', number: 'number', price: 'price', date: 'date', url: 'link', count: 'count',
});

/**
 * A value as text: a list's items joined by "; ", cut at SHOWN characters.
 * @param {FieldValue | undefined} v
 */
export function valueText(v) {
  if (v === undefined) return '';
  const text = Array.isArray(v) ? v.join('; ') : String(v);
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}

/**
 * Draws the fields of `crawler` when they changed since the last drawing.
 * @param {CrawlerSummary} crawler
 */
export function renderFields(crawler) {
  const key = `${crawler.id}:${crawler.patternJson.length}:${crawler.patternJson}`;
  if (key === drawnKey) return;
  drawnKey = key;
  send({ type: 'crawlerFields', crawlerId: crawler.id })
    .then((view) => draw(crawler, view))
    .catch((e) => { $('fields-error').textContent = e instanceof Error ? e.message : String(e); });
}

/**
 * @param {CrawlerSummary} crawler
 * @param {FieldsView} view
 */
function draw(crawler, view) {
  if (selectedCrawler()?.id !== crawler.id) return;
  const values = new Map(view.values);
  const failed = state.jobs.find((j) => j.id === crawler.learnJobId)?.fieldsError;
  $('fields-note').textContent = view.fields.length
    ? `${view.fields.length} field${view.fields.length === 1 ? '' : 's'} read from every target page; the values are the example's. Exports carry them.`
    : `${failed ? `${failed}. ` : ''}No data fields: add one by clicking it on the example page, or by a CSS selector.`;
  /** @type {HTMLTableElement} */ ($('fields')).tBodies[0].replaceChildren(...view.fields.map((f) => {
    const name = el('input');
    name.value = f.name;
    name.setAttribute('aria-label', `Name of the field ${f.name}`);
    name.addEventListener('change', () => {
      if (name.value.trim() && name.value !== f.name) edit(crawler, { op: 'rename', name: f.name, to: name.value });
    });
    const kind = [KINDS[f.kind] ?? f.kind, f.repeated ? 'list' : '', f.optional ? 'optional' : ''].filter(Boolean).join(', ');
    const nameCell = el('td');
    nameCell.append(name, el('div', kind, 'small'));
    const value = valueText(values.get(f.name));
    const valueCell = el('td');
    valueCell.append(el('div', value || '(none on the example)'), el('div', f.css || f.xpath, 'url small'));
    const remove = el('button', 'Remove');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Remove the field ${f.name}`);
    remove.addEventListener('click', () => edit(crawler, { op: 'remove', name: f.name }));
    const actions = el('td');
    actions.append(remove);
    return row(nameCell, valueCell, actions);
  }));
}

/**
 * Sends one edit; the view is drawn from the answer, or says why it was refused.
 * @param {CrawlerSummary} crawler
 * @param {FieldEdit} e
 */
async function edit(crawler, e) {
  $('fields-error').textContent = '';
  try {
    const view = await send({ type: 'editFields', crawlerId: crawler.id, edit: e });
    draw(crawler, view);
  } catch (err) {
    $('fields-error').textContent = err instanceof Error ? err.message : String(err);
    drawnKey = '';
    renderFields(crawler);
  }
}

/** The buttons: show on the page, pick on the page, add by a selector; notices of picks. */
export function wireFields() {
  /** @param {boolean} pick */
  const show = async (pick) => {
    const crawler = selectedCrawler();
    if (!crawler) return;
    $('fields-error').textContent = '';
    try {
      await send({ type: 'showFields', crawlerId: crawler.id, pick });
      $('fields-status').textContent = pick
        ? 'Click the element on the example page that holds the value (Esc there: stop).'
        : 'The fields are outlined on the example page.';
    } catch (e) {
      $('fields-error').textContent = e instanceof Error ? e.message : String(e);
    }
  };
  $('fields-show').addEventListener('click', () => show(false));
  $('fields-pick').addEventListener('click', () => show(true));
  $('fields-add').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const crawler = selectedCrawler();
    const css = $input('fields-css').value.trim();
    if (!crawler || !css) return;
    const name = $input('fields-name').value.trim();
    edit(crawler, { op: 'place', css, ...(name ? { name } : {}) }).then(() => {
      if (!$('fields-error').textContent) {
        $input('fields-css').value = '';
        $input('fields-name').value = '';
      }
    });
  });
}

/**
 * A pick on the example page was made into a field (or refused: `error`).
 * @param {string} crawlerId
 * @param {string | undefined} error
 */
export function fieldsChanged(crawlerId, error) {
  const crawler = selectedCrawler();
  if (crawler?.id !== crawlerId) return;
  $('fields-status').textContent = error ? '' : 'Field added from the example page.';
  $('fields-error').textContent = error ?? '';
  drawnKey = '';
}
