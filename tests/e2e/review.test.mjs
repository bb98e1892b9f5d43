// The review through the real extension on a real documentation site: SFML's Doxygen pages
// (Debian package libsfml-doc, eval/dev-sites.toml), served on 127.0.0.1. Learning from
// sf::Texture takes two member-less class pages that score just below θ (docs/reports/similarity.md)
// because their headings name a class and a struct as the targets' do; the panel lists them
// first among the targets to check, marked `heading`. The user answers one "No": re-learning
// (nothing fetched again) leaves it out and does not take it again. The user answers it "Yes",
// it is taken again, and the crawl collects every class page and nothing else. A "Yes" on the
// nearest page below θ makes it a target.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, answer, crawlDone, devSiteInBrowser, learnAndCrawl, press, relearnFromPanel, score, storedPages, tick, unfold, until, waitFor } from './helpers.mjs';

const SITE = 'sfml';

let env;
before(async () => {
  env = await devSiteInBrowser(SITE, join(ROOT, 'dist/chrome'));
});
after(() => env?.close());

/** The URLs of the cards of a review list (`#near-misses`, `#weak-targets`) that carry `badge`. */
const rowsWith = (panel, list, badge) => panel.locator(`#${list} li`).evaluateAll((lis, b) => lis
  .filter((li) => [...li.querySelectorAll('.badge')].some((x) => x.textContent === b))
  .map((li) => li.dataset.url), badge);

/** The answer checked on the card of `url` in `list` ('yes', 'no'), or null. */
const answered = (panel, list, url) => panel.evaluate(([l, u]) => document
  .querySelector(`#${l} li[data-url="${u}"] input:checked`)?.value ?? null, [list, url]);

test(`${SITE}: the targets taken for their heading are shown, and the user's verdicts stand`, { timeout: 300_000 }, async (t) => {
  const { spec, site, browser, worker, dispatch, call } = env;
  if (!spec.installed) return t.skip(`${spec.root} is not installed (./build.sh setup)`);
  const truth = (await spec.targets()).map((p) => site.url + p);
  assert.ok(truth.length > 100, `${truth.length} class pages`);
  const isTarget = new Set(truth);
  const { learn } = await learnAndCrawl(env);
  const jobId = learn.id;
  const { threshold } = learn.result;

  // Every class page is a target; the two below θ were taken for their heading.
  const found = new Set(learn.result.targets.map((x) => x.url));
  assert.deepEqual(truth.filter((u) => !found.has(u)), []);
  assert.equal(learn.result.targets.length, truth.length, 'nothing else');
  const byHeading = learn.result.byHeading;
  assert.equal(byHeading.length, 2, JSON.stringify(byHeading));
  const belowTheta = learn.result.targets.filter((x) => x.similarity < threshold).map((x) => x.url);
  assert.deepEqual([...belowTheta].sort(), [...byHeading].sort());
  // The crawl Exemplar ran on its own collects every class page and nothing else.
  const alone = score(await storedPages(env, learn.crawlerId), truth);
  assert.equal(alone.precision, 1);
  assert.equal(alone.recall, 1);

  // The targets to check: the two taken for their heading first, marked.
  const toCheck = learn.result.doubtfulTargets;
  assert.equal(toCheck.length, 20);
  assert.deepEqual(toCheck.slice(0, 2).map((d) => d.url).sort(), [...byHeading].sort());
  assert.ok(toCheck.every((d, i) => d.byHeading === i < 2 && !d.urlUnlikeTargets), JSON.stringify(toCheck));
  assert.ok(toCheck.slice(2).every((d, i, rest) => d.similarity >= threshold && (i === 0 || rest[i - 1].similarity <= d.similarity)));
  // The pages just below θ hold no class page; the URL mark narrows them to a few.
  const near = learn.result.nearMisses;
  assert.ok(near.length >= 5 && near.every((n) => !isTarget.has(n.url) && n.similarity < threshold), JSON.stringify(near));
  assert.ok(near.filter((n) => n.urlLikeTargets).length <= 5, 'the URL mark narrows the list');

  // In the panel: the same lists, nothing answered, the `heading` badge on exactly those two.
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${new URL(worker.url()).host}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#weak-targets li').first().waitFor();
  const checkRows = await panel.locator('#weak-targets li').evaluateAll((lis) => lis.map((li) => [li.dataset.url,
    [...li.querySelectorAll('input')].map((r) => `${r.value}${r.checked ? '*' : ''}`).join(' ')]));
  assert.deepEqual(checkRows, toCheck.map((d) => [d.url, 'yes no']));
  assert.deepEqual((await rowsWith(panel, 'weak-targets', 'heading')).sort(), [...byHeading].sort());
  // Every SFML page has one title: hovering a page gives its heading first, then the title.
  const utf = toCheck.find((d) => d.url.endsWith('/classsf_1_1Utf.html'));
  assert.equal(utf.heading, 'sf::Utf< N > Class Template Reference System module');
  const hover = await panel.locator(`#weak-targets li[data-url="${utf.url}"] a`).getAttribute('title');
  assert.equal(hover, `${utf.heading}\nSFML - Simple and Fast Multimedia Library\n${utf.url}`);
  assert.ok(near.every((n) => typeof n.heading === 'string'), JSON.stringify(near));
  assert.equal(await panel.locator('#near-misses li').count(), near.length);
  assert.deepEqual(await rowsWith(panel, 'near-misses', 'heading'), []);
  // Each page opens in a new tab to be judged; URLs and titles are text, never markup.
  const links = await panel.locator('#near-misses a').evaluateAll((as) => as.map((a) => [a.href, a.target, a.rel]));
  assert.deepEqual(links, near.map((n) => [n.url, '_blank', 'noopener noreferrer']));

  // "No" on one of them: it leaves the targets and is not taken again for its heading. A judged
  // page is not offered again below θ; it stays listed, answered "No", among the targets to
  // check, so the verdict can be taken back.
  const [doubted] = [...byHeading].sort();
  await answer(panel, 'weak-targets', doubted, 'no');
  const unliked = await relearnFromPanel(panel, env.call, jobId, (s) => s.result.corrections.unlike.length > 0);
  assert.deepEqual(unliked.result.corrections, { like: [], unlike: [doubted] });
  assert.equal(unliked.result.targets.length, truth.length - 1);
  assert.ok(!unliked.result.targets.some((x) => x.url === doubted));
  assert.deepEqual(unliked.result.byHeading, byHeading.filter((u) => u !== doubted));
  assert.ok(!unliked.result.nearMisses.some((n) => n.url === doubted), 'a judged page is not offered again');
  assert.equal(unliked.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await until(panel, (url) => document.querySelector(`#weak-targets li[data-url="${url}"] input[value="no"]`)?.checked
    && !document.querySelector(`#near-misses li[data-url="${url}"]`), doubted);
  assert.equal(await answered(panel, 'weak-targets', doubted), 'no');

  // Changed their mind: "Yes"; re-learning takes it for its heading again.
  await answer(panel, 'weak-targets', doubted, 'yes');
  const retracted = await relearnFromPanel(panel, env.call, jobId, (s) => s.result.corrections.unlike.length === 0);
  assert.deepEqual(retracted.result.corrections, { like: [], unlike: [] });
  assert.equal(retracted.result.targets.length, truth.length);
  assert.deepEqual([...retracted.result.byHeading].sort(), [...byHeading].sort());

  // The targets by heading kind: SFML heads classes, class templates and structs apart. The
  // example's kind cannot be left out; leaving out another kind takes all its targets out, and
  // unticking it takes them back. The grouping is folded until opened.
  const kinds = retracted.result.headingKinds;
  assert.ok(kinds.length >= 2, JSON.stringify(kinds));
  assert.equal(kinds.filter((k) => k.example).length, 1, JSON.stringify(kinds));
  // The panel may still show the kinds of the re-learn before (one target fewer, so another
  // order) until its refresh answers: wait for this re-learn's kinds, then compare.
  const kindBoxes = () => panel.locator('#heading-kinds input').evaluateAll((boxes) => boxes.map((b) => [b.dataset.template, b.checked, b.disabled]));
  const expected = kinds.map((k) => [k.template, false, k.example]);
  const drawn = async () => JSON.stringify(await kindBoxes()) === JSON.stringify(expected);
  // On time-out the comparison below fails with the difference.
  await waitFor(drawn, "this re-learn's heading kinds in the panel", 10_000).catch(() => {});
  assert.equal(await panel.locator('#kinds-box').isHidden(), false);
  assert.deepEqual(await kindBoxes(), expected);
  assert.equal(await panel.locator('#heading-kinds').isVisible(), false, 'folded');
  await unfold(panel, 'kinds-box');
  // The largest other kind: the event structs (no page of it was taken for its heading).
  const kind = kinds.find((k) => !k.example);
  assert.equal(kind.template, 'sf Event * Struct Reference');
  await tick(panel.locator('#heading-kinds input').nth(kinds.indexOf(kind)));
  const leftOut = await relearnFromPanel(panel, env.call, jobId, (s) => (s.result.unlikeByHeading ?? []).length > 0);
  assert.deepEqual(leftOut.result.corrections, { like: [], unlike: [], unlikeHeadings: [kind.template] });
  assert.equal(leftOut.result.targets.length, truth.length - kind.targets);
  assert.equal(leftOut.result.unlikeByHeading.length, kind.targets);
  assert.ok(kind.samples.every((u) => leftOut.result.unlikeByHeading.includes(u) && !leftOut.result.targets.some((x) => x.url === u)));
  assert.ok(leftOut.result.headingKinds.find((k) => k.template === kind.template)?.unlike);
  assert.equal(leftOut.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  await until(panel, (n) => {
    const p = document.getElementById('left-out');
    return !p.hidden && p.textContent.startsWith(`${n} target`);
  }, kind.targets);
  // The pattern's target level says a verifying crawl refuses that kind.
  await until(panel, (template) => [...document.querySelectorAll('#levels .heading-refused li')]
    .some((li) => li.textContent === template), kind.template);
  await tick(panel.locator('#heading-kinds input').nth(kinds.indexOf(kind)), false);
  const back = await relearnFromPanel(panel, env.call, jobId, (s) => (s.result.unlikeByHeading ?? []).length === 0 && !s.result.corrections.unlikeHeadings);
  assert.equal(back.result.targets.length, truth.length);
  await until(panel, () => document.getElementById('left-out').hidden);

  // The crawl with the re-learned pattern collects every class page and nothing else.
  const startedAt = Date.now();
  await press(panel.locator('#run'));
  await crawlDone(call, learn.crawlerId, startedAt - 1);
  const s = score(await storedPages(env, learn.crawlerId), truth);
  t.diagnostic(JSON.stringify({ targets: truth.length, byHeading: byHeading.length, ...s }));
  assert.equal(s.precision, 1);
  assert.equal(s.recall, 1);

  // "Yes" on the page most similar below θ: it joins the targets, stays listed answered "Yes"
  // among the pages below θ, and is no longer offered as a near miss.
  await until(panel, (url) => !document.querySelector(`#weak-targets li[data-url="${url}"] input[value="no"]`)?.checked, doubted);
  const [nearest] = retracted.result.nearMisses;
  await answer(panel, 'near-misses', nearest.url, 'yes');
  const liked = await relearnFromPanel(panel, env.call, jobId, (s) => s.result.corrections.like.length > 0);
  assert.deepEqual(liked.result.corrections, { like: [nearest.url], unlike: [] });
  assert.ok(liked.result.targets.some((x) => x.url === nearest.url));
  assert.ok(!liked.result.nearMisses.some((n) => n.url === nearest.url));
  await until(panel, (url) => document.querySelector(`#near-misses li[data-url="${url}"] input[value="yes"]`)?.checked, nearest.url);
  assert.equal(await panel.locator(`#near-misses li[data-url="${nearest.url}"]`).count(), 1, 'listed once');
  await panel.close();

  // Verdicts on pages mapping never fetched, or that are not URL lists, are refused with the reason.
  const nowhere = await dispatch({ type: 'relearn', jobId, threshold: 0.84, like: [`${site.url}nowhere.html`] });
  assert.equal(nowhere.ok, false);
  assert.match(nowhere.error, /was not met while mapping/);
  const notList = await dispatch({ type: 'relearn', jobId, threshold: 0.84, like: 'x' });
  assert.equal(notList.ok, false);
  assert.match(notList.error, /like must be a list of URLs/);
});
