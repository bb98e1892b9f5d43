// The review as questions in the real extension (issue 60, item 3), on a small API documentation
// site written here: ten classes headed "Class G.*" in five directories, six virtual classes
// headed "Class virtual G.*" whose fewer sections keep them below θ, and other pages (one titled
// with markup, as text). The side panel asks about the pages below θ and the targets to check as
// cards (name, path, similarity, a Yes / No pair named by the page), names each list for what it
// holds, and folds the groupings that group something (the directories of two targets or more,
// the kinds below θ). A "Yes" below θ and a "No" on a target,
// re-learned, change the targets so; then a keyboard alone goes through the panel: θ's slider by
// arrows, an answer by Space and by arrows, a grouping unfolded by Enter, Re-learn by Enter.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, answer, axeViolations, filesInBrowser, learnEnded, press, relearnFromPanel, unfold, until, waitFor } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const CLASSES = ['window', 'button', 'label', 'entry', 'frame', 'notebook', 'paned', 'table', 'image', 'scale'];
const VIRTUALS = ['action_group', 'ml_signals', 'focus', 'drag_ops', 'misc_ops', 'gobject_ops'];
/** The directory of class `i`: four in `a/` (the example's), three in `b/`, three alone in their own. */
const dirOf = (i) => (i < 4 ? 'a' : i < 7 ? 'b' : `c${i}`);
const EVIL = '<img src=x onerror="window.pwned=1">';

const page = (title, h1, body) => `<!doctype html><html><head><title>${title}</title></head><body>` +
  `<div class=navbar><a href="/index.html">Up</a></div><h1>${h1}</h1>${body}</body></html>`;
const cls = (c, n) => page(c, `Class <a href="/type_${c}.html">G.${c}</a>`,
  `<pre><span>class</span> <code>${c}</code></pre><div class=info><p>About ${c}.</p></div><ul><li>inherits</li></ul><hr>` +
  Array.from({ length: n }, (_, m) => `<pre><span class=keyword>method</span> <code>m${m} : unit</code></pre><div class=info><p>Does ${m}.</p></div>`).join(''));
const virt = (v, n) => page(v, `Class virtual <a href="/type_${v}.html">G.${v}</a>`,
  `<pre><span>class virtual</span> <code>${v}</code></pre><hr>` +
  Array.from({ length: n }, (_, m) => `<pre><span class=keyword>method</span> <code>m${m} : unit</code></pre>`).join('') +
  '<table><tr><td>x</td></tr></table>');
const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

let site, browser, call, extensionId, close, jobId, learn, classes;

before(async () => {
  const files = {};
  CLASSES.forEach((c, i) => { files[`${dirOf(i)}/G.${c}-c.html`] = cls(c, 3 + (i % 4)); });
  VIRTUALS.forEach((v, i) => { files[`G.${v}-c.html`] = virt(v, 2 + (i % 3)); });
  for (let i = 0; i < 8; i++) {
    const title = i === 0 ? escape(EVIL) : `Doc ${i}`;
    files[`doc${i}.html`] = page(title, title, Array.from({ length: 1 + (i % 3) }, (_, j) => `<p>Para ${j}.</p>`).join(''));
  }
  const links = CLASSES.map((c, i) => `<li><a href="${dirOf(i)}/G.${c}-c.html">${c}</a></li>`).join('') +
    VIRTUALS.map((v) => `<li><a href="G.${v}-c.html">${v}</a></li>`).join('') +
    Array.from({ length: 8 }, (_, i) => `<li><a href="doc${i}.html">Doc ${i}</a></li>`).join('');
  files['index.html'] = page('Index', 'Index of classes', `<ul>${links}</ul>`);
  ({ site, browser, extensionId, call, close } = await filesInBrowser('review-cards', files, BUILT));
  classes = CLASSES.map((c, i) => `${site.url}${dirOf(i)}/G.${c}-c.html`).sort();
  ({ jobId } = await call({
    type: 'startLearn', entryUrl: `${site.url}index.html`, exampleUrl: classes.find((u) => u.endsWith('/G.window-c.html')),
    settings: { delayMs: 0, concurrency: 2, crawlAfterLearning: false },
  }));
  learn = await learnEnded(call, jobId, 120_000);
});

after(async () => {
  await close?.();
});

/** The panel showing the crawler learned, its review drawn. */
async function openPanel() {
  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#weak-targets li').first().waitFor();
  return panel;
}

/** The cards of review list `list` as drawn: URL, name, link (text, href, title), figures,
 * the pair's name, each answer's name and whether it is checked. */
const cards = (panel, list) => panel.locator(`#${list} li`).evaluateAll((lis) => lis.map((li) => ({
  url: li.dataset.url,
  name: li.querySelector('.name').textContent,
  link: [li.querySelector('a').textContent, li.querySelector('a').href, li.querySelector('a').title],
  facts: li.querySelector('.facts').textContent,
  pair: li.querySelector('[role=radiogroup]').getAttribute('aria-label'),
  answers: [...li.querySelectorAll('input[type=radio]')].map((r) => [r.value, r.getAttribute('aria-label'), r.checked]),
})));

/** A card as the panel should draw it for `page` (a near miss or a target to check), unanswered. */
function expectedCard(page, badges) {
  const path = new URL(page.url).pathname;
  const name = page.heading || page.title || path;
  const about = `${name} (${path}, similarity ${page.similarity.toFixed(3)})`;
  return {
    url: page.url,
    name,
    link: [path, page.url, [...new Set([page.heading, page.title].filter(Boolean)), page.url].join('\n')],
    facts: [`similarity ${page.similarity.toFixed(3)}`, ...badges].join(' '),
    pair: `Is ${name} like your example?`,
    answers: [['yes', `Yes, like my example: ${about}`, false], ['no', `No, not like my example: ${about}`, false]],
  };
}

test('the review asks about pages as cards with a Yes / No pair; "Yes" and "No" change the targets', { timeout: 180_000 }, async () => {
  assert.equal(learn.status, 'done', learn.error);
  const { threshold } = learn.result;
  assert.deepEqual(learn.result.targets.map((t) => t.url).sort(), classes);
  const near = learn.result.nearMisses;
  const toCheck = learn.result.doubtfulTargets;
  const virtuals = new Set(VIRTUALS.map((v) => `${site.url}G.${v}-c.html`));
  assert.ok(near.length >= 10 && near.filter((n) => virtuals.has(n.url)).length === VIRTUALS.length, JSON.stringify(near));
  assert.ok(toCheck.length >= 5, JSON.stringify(toCheck));

  const panel = await openPanel();
  // Each page a card, as the core listed them: name, path, similarity, marks, the pair.
  assert.deepEqual(await cards(panel, 'near-misses'), near.map((n) => expectedCard(n, n.urlLikeTargets ? ['URL'] : [])));
  assert.deepEqual(await cards(panel, 'weak-targets'), toCheck.map((d) => expectedCard(d, [
    ...(d.entry ? ['entry'] : []), ...(d.byHeading ? ['heading'] : []), ...(d.urlUnlikeTargets ? ['URL'] : [])])));
  // Crawled text is text: the page titled with markup shows it and runs nothing.
  const evil = near.find((n) => n.url === `${site.url}doc0.html`);
  assert.equal(evil?.title, EVIL, JSON.stringify(near));
  assert.equal(await panel.locator(`#near-misses li[data-url="${evil.url}"] .name`).textContent(), EVIL);
  assert.equal(await panel.locator('#review-box img, #review-box script').count(), 0);
  assert.equal(await panel.evaluate(() => window.pwned), undefined);
  // The questions, and each list named for what it holds: the docs score far below θ, so the
  // pages below θ are not called "just below θ".
  assert.equal(await panel.locator('#near-question').textContent(), 'Are these like your example?');
  assert.equal(await panel.locator('#weak-question').textContent(), 'Are these really like your example?');
  const sims = near.map((n) => n.similarity);
  assert.ok(threshold - Math.min(...sims) > 0.1, `${Math.min(...sims)} at θ ${threshold}`);
  assert.equal(await panel.locator('#near-what').textContent(), `The ${near.length} pages most similar below θ ${threshold}` +
    `${threshold - Math.max(...sims) <= 0.1 ? '' : ', none near it:'}${threshold - Math.max(...sims) <= 0.1 ? ',' : ''} ` +
    `from ${Math.max(...sims).toFixed(3)} down to ${Math.min(...sims).toFixed(3)}.`);
  const naming = await panel.evaluate(async () => {
    const { nearName, targetsName } = await import('./panel/questions.js');
    return [nearName([0.74, 0.68], 0.75, 0), nearName([0.5, 0.3], 0.75, 2),
      targetsName([{ similarity: 0.9, entry: true }, { similarity: 0.7, byHeading: true }, { similarity: 0.8 }, { similarity: 0.85 }], 1),
      targetsName([{ similarity: 1 }, { similarity: 1, urlUnlikeTargets: true }, { similarity: 1 }], 0)];
  });
  assert.deepEqual(naming, [
    'The 2 pages just below θ 0.75, from 0.740 down to 0.680.',
    '2 you answered Yes (now targets); the 2 pages most similar below θ 0.75, none near it: from 0.500 down to 0.300.',
    '1 page you answered No (left out); the entry page; 1 page below θ taken for their heading; the 2 least similar targets, 0.800 to 0.850.',
    '1 target whose URL is shaped like pages below θ; the 2 least similar targets, each 1.000.',
  ]);

  // The groupings: only where they group something, folded, opening on a click. The targets'
  // headings are of one kind: no grouping by heading.
  assert.ok(learn.result.headingKinds.length <= 1, JSON.stringify(learn.result.headingKinds));
  assert.equal(await panel.locator('#kinds-box').isHidden(), true);
  // The directories of one target group nothing: the core lists a/ and b/ alone.
  assert.deepEqual(learn.result.directoryKinds.map((d) => [d.directory, d.targets, d.example]),
    [[`${site.url}a/`, 4, true], [`${site.url}b/`, 3, false]]);
  assert.equal(await panel.locator('#directories-summary').textContent(), 'Leave out a directory? (2 directories)');
  assert.equal(await panel.locator('#kinds-below-summary').textContent(), 'Take a kind of page below θ? (1 heading)');
  for (const id of ['directories-box', 'kinds-below-box']) {
    assert.equal(await panel.locator(`#${id}`).evaluate((d) => d.open), false, `${id} folded`);
    assert.equal(await panel.locator(`#${id} ul`).isVisible(), false, `${id}'s list unseen`);
  }
  await unfold(panel, 'directories-box');
  assert.equal(await panel.locator('#directory-kinds').isVisible(), true);
  assert.deepEqual(await panel.locator('#directory-kinds input').evaluateAll((bs) => bs.map((b) => [b.dataset.directory, b.checked, b.disabled])),
    [[`${site.url}a/`, false, true], [`${site.url}b/`, false, false]]);
  assert.equal(await panel.locator('#kinds-below-box').evaluate((d) => d.open), false, 'the other grouping stays folded');
  await unfold(panel, 'kinds-below-box');
  assert.deepEqual(await axeViolations(panel), []);

  // "Yes" on the most similar virtual class below θ, "No" on a class alone in its directory
  // among the targets to check; re-learning takes the one and leaves out the other, fetching
  // nothing.
  const yes = near.find((n) => virtuals.has(n.url)).url;
  const no = toCheck.find((d) => /\/c\d\//.test(d.url))?.url;
  assert.ok(no, JSON.stringify(toCheck));
  await answer(panel, 'near-misses', yes, 'yes');
  await answer(panel, 'weak-targets', no, 'no');
  const before = [await panel.locator('#near-what').textContent(), await panel.locator('#weak-what').textContent()];
  const relearned = await relearnFromPanel(panel, call, jobId, (s) => s.result.corrections.like.length > 0);
  assert.deepEqual(relearned.result.corrections, { like: [yes], unlike: [no] });
  assert.deepEqual(relearned.result.targets.map((t) => t.url).sort(), [...classes.filter((u) => u !== no), yes].sort());
  assert.equal(relearned.progress.fetched, learn.progress.fetched, 'nothing fetched again');
  // Redrawn with the answers standing, each list saying so. The radios were checked by the
  // clicks already: the redraw is seen by the lists' words changing.
  await until(panel, ([y, n, near, weak]) => document.querySelector(`#near-misses li[data-url="${y}"] input[value="yes"]`)?.checked
    && document.querySelector(`#weak-targets li[data-url="${n}"] input[value="no"]`)?.checked
    && document.getElementById('near-what').textContent !== near
    && document.getElementById('weak-what').textContent !== weak, [yes, no, ...before]);
  assert.equal(await panel.locator(`#near-misses li[data-url="${yes}"]`).count(), 1);
  assert.match(await panel.locator('#near-what').textContent(), /^1 you answered Yes \(now targets\); /);
  assert.match(await panel.locator('#weak-what').textContent(), /^1 page you answered No \(left out\); /);
  assert.equal(await panel.locator('#directories-box').evaluate((d) => d.open), true, 'an unfolded grouping stays so');
  await panel.close();
});

test('a keyboard alone answers the review and re-learns: Tab, Space, arrows and Enter, focus in sight', { timeout: 180_000 }, async () => {
  assert.equal(learn.status, 'done', learn.error);
  // From no verdict.
  const { threshold } = learn.result;
  await call({ type: 'relearn', jobId, threshold, like: [], unlike: [] });
  const fresh = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.result.corrections.like.length === 0 && s.result.corrections.unlike.length === 0 && s;
  }, 'no verdict', 30_000);
  const [first] = fresh.result.nearMisses;
  const [check] = fresh.result.doubtfulTargets;
  const panel = await openPanel();
  await until(panel, ([n, c]) => document.querySelector('#near-misses li')?.dataset.url === n
    && document.querySelector('#weak-targets li')?.dataset.url === c, [first.url, check.url]);

  /** Each stop of the focus: what it is, and its outline (the focus in sight). */
  const stops = [];
  /** Tabs until the focus is on an element matching `selector`, each stop recorded. */
  const tabTo = async (selector) => {
    for (let i = 0; i < 250; i++) {
      await panel.keyboard.press('Tab');
      const stop = await panel.evaluate((sel) => {
        const e = document.activeElement;
        if (!e || e === document.body) return null;
        const style = getComputedStyle(e);
        return { here: e.matches(sel), what: `${e.tagName.toLowerCase()}#${e.id}`, list: e.closest('ul')?.id, outline: `${style.outlineStyle} ${style.outlineWidth}` };
      }, selector);
      if (stop) stops.push(stop);
      if (stop?.here) return;
    }
    throw new Error(`Tab never reached ${selector}: ${stops.map((s) => s.what).join(' ')}`);
  };
  const value = (id) => panel.locator(`#${id}`).inputValue();

  // The first page below θ: Tab reaches its pair on "Yes" (after its link), Space answers it.
  await tabTo('#near-misses input[type=radio]');
  assert.deepEqual(await panel.evaluate(() => [document.activeElement.dataset.url, document.activeElement.value]), [first.url, 'yes']);
  await panel.keyboard.press('Space');
  assert.equal(await panel.locator(`#near-misses li[data-url="${first.url}"] input[value="yes"]`).isChecked(), true);
  // The pair is one stop: the next Tab leaves the card. The first target to check: an arrow
  // moves the answer to "No".
  await tabTo('#weak-targets input[type=radio]');
  assert.deepEqual(await panel.evaluate(() => [document.activeElement.dataset.url, document.activeElement.value]), [check.url, 'yes']);
  const nearCards = await panel.locator('#near-misses li').count();
  assert.equal(stops.filter((s) => s.list === 'near-misses' && s.what === 'input#').length, nearCards, 'one stop a pair');
  await panel.keyboard.press('ArrowRight');
  assert.equal(await panel.locator(`#weak-targets li[data-url="${check.url}"] input[value="no"]`).isChecked(), true);
  assert.equal(await panel.locator(`#weak-targets li[data-url="${check.url}"] input[value="yes"]`).isChecked(), false);
  // A folded grouping opens by Enter on its summary.
  await tabTo('#directories-box > summary');
  assert.equal(await panel.locator('#directories-box').evaluate((d) => d.open), false);
  await panel.keyboard.press('Enter');
  await until(panel, () => document.getElementById('directories-box').open);
  // Re-learn by Enter: the answers are the verdicts.
  await tabTo('#relearn');
  await panel.keyboard.press('Enter');
  const relearned = await waitFor(async () => {
    const s = await call({ type: 'status', jobId });
    return s.result.corrections.like.length > 0 && s;
  }, 're-learning', 30_000);
  assert.deepEqual(relearned.result.corrections, { like: [first.url], unlike: [check.url] });
  const targets = relearned.result.targets.map((t) => t.url);
  assert.ok(targets.includes(first.url) && !targets.includes(check.url), JSON.stringify(targets));
  assert.equal(targets.length, fresh.result.targets.length);
  // Back to θ's slider (Shift+Tab): arrows move it, the box and the preview follow. The slider
  // steps by 0.005, so that the default θ 0.875 is a step: there and back is the θ learned.
  for (let i = 0; i < 250 && !(await panel.evaluate(() => document.activeElement?.id === 'theta-slider')); i++) {
    await panel.keyboard.press('Shift+Tab');
  }
  assert.equal(await panel.evaluate(() => document.activeElement?.id), 'theta-slider');
  const theta = Number(await value('theta-slider'));
  assert.equal(theta, Math.round(threshold * 200) / 200);
  await panel.keyboard.press('ArrowRight');
  const up = +(theta + 0.005).toFixed(3);
  assert.equal(Number(await value('threshold')), up);
  assert.match(await panel.locator('#theta-preview').textContent(), new RegExp(`^At θ = ${up}: \\d+ of \\d+ pages at or above θ`));
  await panel.keyboard.press('ArrowLeft');
  assert.equal(Number(await value('threshold')), theta);
  // Every stop on the way showed where the focus was.
  const unseen = stops.filter((s) => s.outline.startsWith('none') || s.outline.endsWith(' 0px'));
  assert.deepEqual(unseen, []);
  assert.ok(stops.length > 10, `${stops.length} stops`);
  await panel.close();
});
