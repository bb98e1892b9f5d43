// The similarity chart of the threshold view: an SVG histogram of the similarities seen while
// learning, in twentieths, each bar split between the pages at or above θ (targets) and the
// others, with θ as a line. The slider under it (a range input: keyboard and screen readers
// work it) moves θ; the chart and the count of pages changing side follow before re-learning.
// Built with DOM methods only: nothing of a page reaches it but numbers.

const SVG = 'http://www.w3.org/2000/svg';
const BINS = 20;
const WIDTH = 300;
const HEIGHT = 80;

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number>} attrs
 * @returns {SVGElementTagNameMap[K]}
 */
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/**
 * Draws the histogram of `sims` with θ = `theta` into `host` (replacing what it held).
 * @param {Element} host
 * @param {number[]} sims
 * @param {number} theta
 */
export function drawChart(host, sims, theta) {
  const above = new Array(BINS).fill(0);
  const below = new Array(BINS).fill(0);
  for (const s of sims) {
    const bin = Math.min(BINS - 1, Math.max(0, Math.floor(s * BINS)));
    if (s >= theta) above[bin] += 1;
    else below[bin] += 1;
  }
  // Square-root heights: a bin of 1,000 targets beside bins of 3 pages keeps them visible.
  const most = Math.max(1, ...above.map((a, i) => a + below[i]));
  const h = (/** @type {number} */ n) => (n === 0 ? 0 : Math.max(2, (Math.sqrt(n) / Math.sqrt(most)) * (HEIGHT - 4)));
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT + 14}`, width: '100%', role: 'img' });
  const targets = sims.filter((s) => s >= theta).length;
  const title = svg('title', {});
  title.textContent = `Similarities of ${sims.length} pages: ${targets} at or above θ = ${theta.toFixed(2)}, ${sims.length - targets} below`;
  chart.append(title);
  const w = WIDTH / BINS;
  for (let i = 0; i < BINS; i++) {
    const hb = h(below[i]);
    const ha = h(above[i] + below[i]) - hb;
    if (below[i]) chart.append(svg('rect', { class: 'other', x: i * w + 1, y: HEIGHT - hb, width: w - 2, height: hb }));
    if (above[i]) chart.append(svg('rect', { class: 'target', x: i * w + 1, y: HEIGHT - hb - ha, width: w - 2, height: ha }));
  }
  chart.append(svg('line', { class: 'axis', x1: 0, y1: HEIGHT, x2: WIDTH, y2: HEIGHT }));
  const x = Math.min(WIDTH - 1, Math.max(1, theta * WIDTH));
  chart.append(svg('line', { class: 'theta', x1: x, y1: 0, x2: x, y2: HEIGHT + 4 }));
  for (const [t, anchor] of /** @type {[number, string][]} */ ([[0, 'start'], [0.5, 'middle'], [1, 'end']])) {
    const label = svg('text', { x: t * WIDTH, y: HEIGHT + 13, 'text-anchor': anchor });
    label.textContent = t.toFixed(1);
    chart.append(label);
  }
  host.replaceChildren(chart);
}
