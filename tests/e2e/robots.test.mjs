// Pages that ask robots not to follow their links (<meta name="robots" content="nofollow">, as
// gitweb writes into every page), in the real extension: learning with robots obeyed stops at
// the entry and says why and what follows them; with "Obey robots" off it learns every item.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, filesInBrowser, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const ITEMS = 5;
const page = (title, body) => '<!doctype html><html><head><meta name="robots" content="index, nofollow">' +
  `<title>${title}</title></head><body>${body}</body></html>`;

let site, call, close;

before(async () => {
  const files = {};
  for (let i = 0; i < ITEMS; i++) {
    files[`items/item${i}.html`] = page(`Item ${i}`,
      `<h1>Item ${i}</h1><table><tr><th>Price</th><td>${i} EUR</td></tr></table><p><a href="../index.html">All</a></p>`);
  }
  const links = Array.from({ length: ITEMS }, (_, i) => `<li><a href="items/item${i}.html">Item ${i}</a></li>`).join('');
  files['index.html'] = page('Shop', `<h1>Shop</h1><ul>${links}</ul>`);
  ({ site, call, close } = await filesInBrowser('robots', files, BUILT));
});

after(async () => {
  await close?.();
});

async function learn(settings) {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}items/item0.html`,
    settings: { delayMs: 0, crawlAfterLearning: false, ...settings },
  });
  return waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.status !== 'running' && s;
  }, 'learning', 60_000, 100);
}

test('nofollow pages are not followed while robots are obeyed, and the failure says so', { timeout: 120_000 }, async () => {
  const obeyed = await learn({});
  assert.equal(obeyed.status, 'failed');
  assert.match(obeyed.error, /1 page asked robots not to follow its links \(<meta name="robots" content="nofollow">\), and they were not followed; turning off Obey robots in the limits follows them/);
  const ignored = await learn({ obeyRobots: false });
  assert.equal(ignored.status, 'done', ignored.error);
  assert.equal(ignored.settings.obeyRobots, false);
  assert.deepEqual(ignored.result.targets.map((t) => t.url).sort(),
    Array.from({ length: ITEMS }, (_, i) => `${site.url}items/item${i}.html`));
});
