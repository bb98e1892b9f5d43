// Steps run inside a page being rendered: by the extension (chrome.scripting.executeScript, a
// function and JSON arguments at a time) and by the command line's headless Chromium
// (crates/native/src/render.rs includes this file and calls them by name). So each is a
// self-contained function of JSON-able arguments, and the file imports nothing.

/**
 * Scrolls the page to its end and presses its "load more" button when it shows one: the step
 * that brings an infinite list's next items. A button's text (a button input's value) matches
 * when it begins with one of `words` (lower case, data/load-more-words.txt). A link to another
 * page and a button that submits a form are never pressed: that is navigation, which crawls
 * follow. Returns whether a button was pressed.
 * @param {string[]} words
 * @returns {boolean}
 */
export function moreStep(words) {
  window.scrollTo(0, document.documentElement.scrollHeight);
  // Sent too: a page in a background tab or in virtual time may draw no frame to send it.
  window.dispatchEvent(new Event('scroll'));
  const here = location.href.split('#')[0];
  const candidates = document.querySelectorAll('button, a, [role="button"], input[type="button"]');
  for (const node of candidates) {
    const el = /** @type {HTMLElement} */ (node);
    const raw = el instanceof HTMLInputElement ? el.value : el.textContent ?? '';
    const text = raw.trim().toLowerCase().replace(/\s+/g, ' ');
    if (!words.some((w) => text === w || text.startsWith(`${w} `) || text.startsWith(`${w}(`))) continue;
    // Not shown (hidden, or in a hidden block), or disabled once the list is whole.
    if (el.offsetParent === null || el.hasAttribute('disabled')) continue;
    if (el instanceof HTMLAnchorElement) {
      const to = el.getAttribute('href') ?? '';
      if (to && !to.startsWith('#') && !to.startsWith('javascript:') && el.href.split('#')[0] !== here) continue;
    }
    if (el instanceof HTMLButtonElement && el.form && el.type === 'submit') continue;
    el.click();
    return true;
  }
  return false;
}

/**
 * Waits until the page's DOM has not changed for `quietMs`, or `maxWaitMs` have passed, and
 * returns its size (`height:elements`): the extension's stand-in for the virtual time the
 * command line's Chromium has.
 * @param {number} quietMs
 * @param {number} maxWaitMs
 * @returns {Promise<string>}
 */
export async function quietSize(quietMs, maxWaitMs) {
  const start = Date.now();
  let changed = Date.now();
  const observer = new MutationObserver(() => { changed = Date.now(); });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
  while (Date.now() - start < maxWaitMs && Date.now() - changed < quietMs) {
    await new Promise((r) => setTimeout(r, 100));
  }
  observer.disconnect();
  return `${document.documentElement.scrollHeight}:${document.getElementsByTagName('*').length}`;
}
