// The fields view on the example page: a content script the worker injects into that tab only,
// when the user asks (background/fields.js). It outlines the elements each data field reads,
// labelled with the field's name, and in pick mode lets the user click one element: its CSS
// selector and text go to the worker, which makes it a field through the core.
//
// It never runs the page's data: names and values are written as text, in a closed shadow root
// (the page's styles and scripts do not reach it), and only trusted clicks (the user's, not a
// script's) are picked. Injected again, it keeps the one instance (`exemplarFields`).
(() => {
  /** @typedef {{name: string, css: string, xpath: string}} ShownField */
  /** @typedef {{show?: ShownField[], pick?: boolean}} Command */
  const g = /** @type {{exemplarFields?: (cmd: Command) => void, exemplarFieldsState?: () => object}} */ (/** @type {unknown} */ (globalThis));
  if (g.exemplarFields) return;

  const COLOURS = ['#1565c0', '#2e7d32', '#c62828', '#6a1b9a', '#ef6c00', '#00838f', '#ad1457', '#4e342e'];
  // Class names that say an element's state, not its place: left out of a picked selector.
  const STATE = /^(active|current|selected|hover|focus|open|is-|has-|js-)/;

  const host = document.createElement('exemplar-fields');
  host.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;';
  const root = host.attachShadow({ mode: 'closed' });
  const layer = document.createElement('div');
  const banner = document.createElement('div');
  banner.style.cssText = 'position:fixed;left:50%;top:8px;transform:translateX(-50%);background:#212121;color:#fff;' +
    'font:14px/1.4 system-ui,sans-serif;padding:6px 12px;border-radius:4px;pointer-events:none;';
  banner.hidden = true;
  const hover = box('#ff6f00', '');
  hover.style.display = 'none';
  root.append(layer, hover, banner);
  /** @type {ShownField[]} */
  let shown = [];
  let picking = false;

  /**
   * An outline box with a name tag.
   * @param {string} colour
   * @param {string} name
   */
  function box(colour, name) {
    const b = document.createElement('div');
    b.style.cssText = `position:absolute;border:2px solid ${colour};background:${colour}22;pointer-events:none;box-sizing:border-box;`;
    if (name) {
      const tag = document.createElement('span');
      tag.textContent = name;
      tag.style.cssText = `position:absolute;left:-2px;bottom:100%;background:${colour};color:#fff;` +
        'font:12px/1.3 system-ui,sans-serif;padding:0 4px;white-space:nowrap;';
      b.append(tag);
    }
    return b;
  }

  /**
   * Places `b` over `e`, in document coordinates.
   * @param {HTMLElement} b
   * @param {Element} e
   */
  function over(b, e) {
    const r = e.getBoundingClientRect();
    Object.assign(b.style, {
      left: `${r.left + window.scrollX}px`, top: `${r.top + window.scrollY}px`,
      width: `${Math.max(r.width, 4)}px`, height: `${Math.max(r.height, 4)}px`,
    });
  }

  /**
   * The elements a field reads: by its XPath (a table row known by its label has no CSS).
   * @param {ShownField} f
   * @returns {Element[]}
   */
  function elementsOf(f) {
    try {
      const found = document.evaluate(f.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      const out = [];
      for (let i = 0; i < found.snapshotLength; i++) {
        const n = found.snapshotItem(i);
        if (n instanceof Element) out.push(n);
      }
      return out;
    } catch {
      return f.css ? [...document.querySelectorAll(f.css)] : [];
    }
  }

  function draw() {
    layer.replaceChildren();
    shown.forEach((f, i) => {
      for (const e of elementsOf(f)) {
        const b = box(COLOURS[i % COLOURS.length], f.name);
        b.dataset.field = f.name;
        over(b, e);
        layer.append(b);
      }
    });
  }

  /**
   * A CSS selector of `e` the core reads (tags, `#id`, `.class`, `:nth-of-type(N)`, `>`): the
   * shortest path from an ancestor, at least two steps, that selects `e` alone on this page.
   * @param {Element} e
   */
  function selectorOf(e) {
    /** @type {string[]} */
    const steps = [];
    for (let x = /** @type {Element | null} */ (e); x && x !== document.documentElement; x = x.parentElement) {
      if (x.id && /^[A-Za-z][\w-]*$/.test(x.id) && !/\d{3,}/.test(x.id)) {
        steps.unshift(`#${x.id}`);
        break;
      }
      const classes = [...x.classList].filter((c) => /^[A-Za-z_][\w-]*$/.test(c) && !/\d{3,}/.test(c) && !STATE.test(c));
      let step = x.tagName.toLowerCase() + classes.map((c) => `.${c}`).join('');
      const parent = x.parentElement;
      if (parent) {
        const sameTag = [...parent.children].filter((c) => c.tagName === x?.tagName);
        const alike = sameTag.filter((c) => classes.every((k) => c.classList.contains(k)));
        if (alike.length > 1) step += `:nth-of-type(${sameTag.indexOf(x) + 1})`;
      }
      steps.unshift(step);
    }
    for (let k = Math.min(2, steps.length); k <= steps.length; k++) {
      const sel = steps.slice(-k).join(' > ');
      try {
        const all = document.querySelectorAll(sel);
        if (all.length === 1 && all[0] === e) return sel;
      } catch { /* a longer one */ }
    }
    return steps.join(' > ');
  }

  /** @param {MouseEvent} ev */
  function onMove(ev) {
    const t = ev.target;
    if (!(t instanceof Element) || t === host) return;
    hover.style.display = '';
    over(hover, t);
  }

  /** @param {MouseEvent} ev */
  function onClick(ev) {
    if (!ev.isTrusted) return;
    const t = ev.target;
    if (!(t instanceof Element) || t === host) return;
    ev.preventDefault();
    ev.stopPropagation();
    stopPicking();
    chrome.runtime.sendMessage({ type: 'fieldPicked', css: selectorOf(t), text: (t.textContent ?? '').trim().slice(0, 200) }).catch(() => {});
  }

  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    if (ev.key === 'Escape') stopPicking();
  }

  function stopPicking() {
    picking = false;
    banner.hidden = true;
    hover.style.display = 'none';
    document.removeEventListener('mousemove', onMove, true);
    document.removeEventListener('click', onClick, true);
    document.removeEventListener('keydown', onKey, true);
  }

  function startPicking() {
    if (picking) return;
    picking = true;
    banner.textContent = 'Exemplar: click the element that holds a value to collect (Esc: stop)';
    banner.hidden = false;
    document.addEventListener('mousemove', onMove, true);
    document.addEventListener('click', onClick, true);
    document.addEventListener('keydown', onKey, true);
  }

  g.exemplarFields = (cmd) => {
    if (!host.isConnected) document.documentElement.append(host);
    if (Array.isArray(cmd?.show)) {
      shown = cmd.show.filter((f) => f && typeof f.name === 'string' && typeof f.xpath === 'string');
      draw();
    }
    if (cmd?.pick) startPicking();
  };
  // What the view shows, for the extension's tests (in the content script's world only: the page
  // cannot read it).
  g.exemplarFieldsState = () => ({
    shown: shown.map((f) => f.name),
    boxes: [...layer.children].map((b) => /** @type {HTMLElement} */ (b).dataset.field),
    picking,
  });
  window.addEventListener('resize', draw);
})();
