// The Apache HTTP Server manual (Debian's apache2-doc) in the real extension: nine languages
// under one root, the translations built from the English pages' template, so they pass θ beside
// them. A first learning from an English module page leaves the other declared languages out
// (learning's own proposal, Rust's `language::other_languages`): the panel lists the targets by
// language, those left out ticked, and unticking one and re-learning takes it back, fetching
// nothing. The guides, whose layout outweighs their content, are filed in other directories than
// the module pages: the panel lists the targets by directory (Rust's `directory::kinds`), and
// ticking the guides' directories leaves them out of the pattern and of the crawl.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, directoryInBrowser, learnEnded, press, relearnFromPanel, tick, unfold, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const MANUAL = '/usr/share/doc/apache2-doc/manual';

let site, browser, call, extensionId, close;

before(async () => {
  ({ site, browser, extensionId, call, close } = await directoryInBrowser(MANUAL, BUILT));
});

after(async () => {
  await close?.();
});

/** The language the file served at `url` declares: the ground truth. */
async function langOf(url) {
  const html = await readFile(join(MANUAL, new URL(url).pathname), 'latin1');
  return /<html lang="([^"]*)"/.exec(html)?.[1] ?? '';
}
const languages = async (urls) => [...new Set(await Promise.all(urls.map(langOf)))].sort();

test("pages in another language or directory than the example's are left out, and can be taken back", { timeout: 300_000 }, async () => {
  const { jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}en/index.html`, exampleUrl: `${site.url}en/mod/mod_rewrite.html`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 180_000);
  assert.equal(learn.status, 'done', learn.error);
  const targets = learn.result.targets.map((t) => t.url);
  assert.deepEqual(await languages(targets), ['en'], 'English pages alone');
  const unlike = learn.result.corrections.unlikeLanguages;
  for (const lang of ['fr', 'ja', 'ko', 'tr']) assert.ok(unlike.includes(lang), `${lang} proposed: ${unlike}`);
  const kinds = Object.fromEntries(learn.result.languageKinds.map((k) => [k.language, k]));
  assert.ok(kinds.en?.example && !kinds.en.unlike && kinds.en.targets === targets.length, JSON.stringify(learn.result.languageKinds));
  const leftOut = learn.result.unlikeByLanguage;
  const french = (await Promise.all(leftOut.map(langOf))).filter((l) => l === 'fr').length;
  assert.ok(french > 100 && kinds.fr?.unlike && kinds.fr.targets === french, `${french} French pages left out`);

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await until(panel, () => !document.getElementById('languages-box').hidden);
  await unfold(panel, 'languages-box');
  const row = (lang) => panel.locator('#language-kinds li').filter({ has: panel.locator(`input[data-language="${lang}"]`) });
  assert.match(await row('fr').textContent(), new RegExp(`^ ${french} fr not your example's language: left out e\\.g\\. `));
  assert.ok(await row('fr').locator('input').isChecked());
  assert.match(await row('en').textContent(), /\(your example's\)/);
  assert.ok(await row('en').locator('input').isDisabled());
  assert.match(await panel.locator('#left-out-language').textContent(), new RegExp(`^${leftOut.length} targets left out for their language`));
  // No crawled HTML in the panel: the list is text.
  assert.equal(await panel.locator('#language-kinds script, #language-kinds iframe').count(), 0);
  // The review's lists as drawn: a re-learn is shown once this changes (ticks made before the
  // panel redraws would be redrawn away).
  const shown = () => panel.evaluate(() => document.getElementById('review-box').dataset.key);
  const redrawn = (key) => until(panel, (k) => document.getElementById('review-box').dataset.key !== k, key);
  let drawn = await shown();
  await tick(row('fr').locator('input'), false);
  const back = await relearnFromPanel(panel, call, jobId,
    (s) => !s.result.corrections.unlikeLanguages.includes('fr'));
  await redrawn(drawn);
  assert.ok(back.result.corrections.unlikeLanguages.includes('ja'));
  const again = back.result.targets.map((t) => t.url);
  assert.deepEqual(await languages(again), ['en', 'fr']);
  assert.equal(again.length, targets.length + french);
  assert.equal(back.progress.fetched, learn.progress.fetched, 'nothing fetched again');

  // Left out again.
  drawn = await shown();
  await tick(row('fr').locator('input'));
  const frenchOut = await relearnFromPanel(panel, call, jobId, (s) => s.result.corrections.unlikeLanguages.includes('fr'));
  await redrawn(drawn);

  // The targets by directory: the module pages (the example's) and the guides' directories.
  const modules = `${site.url}en/mod/`;
  const directories = frenchOut.result.directoryKinds;
  const own = directories.find((d) => d.example);
  assert.equal(own?.directory, modules, JSON.stringify(directories));
  const guides = directories.filter((d) => !d.example);
  assert.ok(guides.length >= 5, JSON.stringify(directories));
  assert.equal(guides.reduce((n, d) => n + d.targets, 0), targets.filter((u) => !u.startsWith(modules)).length);
  await until(panel, () => !document.getElementById('directories-box').hidden);
  await unfold(panel, 'directories-box');
  const dirRow = (d) => panel.locator('#directory-kinds li').filter({ has: panel.locator(`input[data-directory="${d}"]`) });
  assert.match(await dirRow(modules).textContent(), /^ \d+ \/en\/mod\/ \(your example's\) e\.g\. /);
  assert.ok(await dirRow(modules).locator('input').isDisabled());
  drawn = await shown();
  for (const d of guides) await tick(dirRow(d.directory).locator('input'));
  const onlyModules = await relearnFromPanel(panel, call, jobId,
    (s) => (s.result.corrections.unlikeDirectories ?? []).length === guides.length);
  await redrawn(drawn);
  const moduleTargets = onlyModules.result.targets.map((t) => t.url);
  assert.deepEqual(moduleTargets.sort(), targets.filter((u) => u.startsWith(modules)).sort());
  assert.ok(onlyModules.result.corrections.unlikeLanguages.includes('fr'), 'the language verdicts stand');
  assert.equal(onlyModules.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  assert.match(await panel.locator('#left-out-directory').textContent(),
    new RegExp(`^${targets.length - moduleTargets.length} targets left out for their directory`));

  // Crawled: the module pages alone, and the pages exported say their language.
  const startedAt = Date.now();
  await press(panel.locator('#run'));
  await crawlDone(call, learn.crawlerId, startedAt - 1);
  const jsonl = await panel.evaluate(async (id) => {
    const { blob } = await globalThis.exemplarExport(id, 'jsonl', {});
    return blob.text();
  }, learn.crawlerId);
  const lines = jsonl.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.url).sort(), moduleTargets);
  assert.deepEqual([...new Set(lines.map((l) => l.lang))], ['en']);
});
