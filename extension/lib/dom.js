// DOM helpers of the extension's pages (popup, panel): element lookups typed by what the page
// holds under that id, and elements built with their text. Everything is written with
// textContent: page content never reaches the extension's pages as HTML.

/**
 * The page's element `id` (the pages' HTML holds every id the scripts name).
 * @param {string} id
 * @returns {HTMLElement}
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} id */
export const $input = (id) => /** @type {HTMLInputElement} */ ($(id));

/** @param {string} id */
export const $select = (id) => /** @type {HTMLSelectElement} */ ($(id));

/** @param {string} id */
export const $button = (id) => /** @type {HTMLButtonElement} */ ($(id));

/**
 * A new element with `text` (as text) and `className`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {unknown} [text]
 * @param {string} [className]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

/** The page size limit is shown in MB (MiB), kept in bytes. */
export const MIB = 1024 * 1024;
