// Git's manual (Debian's git-doc, AsciiDoc) in the real extension: every manual page is built
// alike and headed "NAME(N) Manual Page", so the file formats (5) and overviews (7) pass θ beside
// the commands (1). A first learning from a command's page leaves those sections out (learning's
// own proposal, Rust's `heading::other_sections`): the panel lists them ticked, as manual
// sections that are not the example's, and unticking one and re-learning takes it back,
// fetching nothing.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, directoryInBrowser, learnEnded, relearnFromPanel, tick, unfold, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const GIT_DOC = '/usr/share/doc/git-doc';

let site, browser, call, extensionId, close;
/** The manual section of each page, from its title ("git-add(1)"): the ground truth. */
const sections = new Map();

before(async () => {
  const names = (await readdir(GIT_DOC)).filter((n) => n.endsWith('.html'));
  for (const name of names) {
    const title = /<title>([^<]*)<\/title>/.exec(await readFile(join(GIT_DOC, name), 'utf8'))?.[1] ?? '';
    const section = /\((\d)\)$/.exec(title)?.[1];
    if (section) sections.set(name, section);
  }
  ({ site, browser, extensionId, call, close } = await directoryInBrowser(GIT_DOC, BUILT));
});

after(async () => {
  await close?.();
});

const sectionOf = (url) => sections.get(new URL(url).pathname.slice(1)) ?? `none: ${url}`;
const count = (n) => [...sections.values()].filter((s) => s === n).length;

test("manual pages of another section than the example's are left out, and can be taken back", { timeout: 240_000 }, async () => {
  assert.ok(count('1') > 100 && count('5') > 5 && count('7') > 5, 'git-doc has commands, file formats and overviews');
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: `${site.url}git-commit.html`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 180_000);
  assert.equal(learn.status, 'done', learn.error);
  const targets = learn.result.targets.map((t) => t.url);
  assert.deepEqual([...new Set(targets.map(sectionOf))], ['1'], 'the commands alone');
  assert.ok(targets.length >= count('1') * 0.95, `${targets.length} of ${count('1')} commands`);
  assert.deepEqual(learn.result.corrections.unlikeHeadings, ['* (5) Manual Page', '* (7) Manual Page']);
  const kinds = Object.fromEntries(learn.result.headingKinds.map((k) => [k.template, k]));
  assert.equal(kinds['* (5) Manual Page']?.targets, count('5'), JSON.stringify(learn.result.headingKinds));
  assert.ok(kinds['* (5) Manual Page'].unlike && kinds['* (7) Manual Page'].unlike);
  assert.ok(kinds['* (1) Manual Page']?.example && !kinds['* (1) Manual Page'].unlike);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await until(panel, () => !document.getElementById('kinds-box').hidden);
  await unfold(panel, 'kinds-box');
  const row = panel.locator('#heading-kinds li').filter({ has: panel.locator('input[data-template="* (5) Manual Page"]') });
  assert.match(await row.textContent(), new RegExp(`^ ${count('5')} \\* \\(5\\) Manual Page manual section 5, not your example's: left out e\\.g\\. `));
  assert.ok(await row.locator('input').isChecked());
  await tick(row.locator('input'), false);
  const back = await relearnFromPanel(panel, call, jobId,
    (s) => s.result.corrections.unlikeHeadings.length === 1);
  assert.deepEqual(back.result.corrections.unlikeHeadings, ['* (7) Manual Page']);
  const again = back.result.targets.map((t) => t.url);
  assert.deepEqual([...new Set(again.map(sectionOf))].sort(), ['1', '5']);
  assert.equal(again.length, targets.length + count('5'));
  assert.equal(back.progress.fetched, learn.progress.fetched, 'nothing fetched again');
});
