// Duplicate URLs in the real extension: a blog whose category listings answer `page/1/` with
// their first page (WordPress's habit). Learning mines the rule from the copies mapping met, the
// panel says it in words; after the blog grows six categories, a crawl does not fetch their
// `page/1/` copies once two probes have confirmed the rule, collects every post, and the panel
// counts the copies not fetched.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, crawlDone, filesInBrowser, learnEnded, sitePage, until } from './helpers.mjs';

const BUILT = join(ROOT, 'dist/chrome');
const POSTS = 12;
const PER_PAGE = 5;

/** Category `c`'s files: its posts, its listing paged by PER_PAGE, and `page/1/`, a copy. */
function category(c) {
  const files = {};
  const pages = Math.ceil(POSTS / PER_PAGE);
  for (let n = 1; n <= pages; n++) {
    const items = Array.from({ length: POSTS }, (_, i) => i).slice((n - 1) * PER_PAGE, n * PER_PAGE)
      .map((i) => `<article><h2><a href="/post/c${c}-${i}/">Post ${i} of category ${c}</a></h2><p>An excerpt of post ${i}.</p></article>`).join('');
    const numbers = Array.from({ length: pages }, (_, k) => ` <a href="/category/c${c}/page/${k + 1}/">${k + 1}</a>`).join('');
    const newer = n > 1 ? `<a href="/category/c${c}/page/${n - 1}/">Newer posts</a>` : '';
    const older = n < pages ? ` <a href="/category/c${c}/page/${n + 1}/">Older posts</a>` : '';
    const html = sitePage(`Category ${c}`, `<h1>Category ${c}</h1>${items}<nav>${newer}${older}<p>Pages:${numbers}</p></nav>`);
    if (n === 1) files[`category/c${c}/index.html`] = html;
    files[`category/c${c}/page/${n}/index.html`] = html;
  }
  for (let i = 0; i < POSTS; i++) {
    const paragraphs = Array.from({ length: 3 + (i % 3) }, (_, p) => `<p>Paragraph ${p} of post ${i} in category ${c}.</p>`).join('');
    files[`post/c${c}-${i}/index.html`] = sitePage(`Post ${i} of category ${c}`,
      `<article><h1>Post ${i} of category ${c}</h1><p>Posted in <a href="/category/c${c}/">category ${c}</a></p>${paragraphs}</article>`);
  }
  return files;
}

const home = (n) => ({
  'index.html': sitePage('Home', `<h1>A blog</h1><ul>${Array.from({ length: n }, (_, c) => `<li><a href="/category/c${c}/">Category ${c}</a></li>`).join('')}</ul>`),
});

let env;

before(async () => {
  env = await filesInBrowser('dust', Object.assign({}, ...[0, 1, 2, 3].map(category), home(4)), BUILT);
});

after(async () => {
  await env?.close();
});

test('copies of a listing\'s first page are learned, said, and not fetched', { timeout: 240_000 }, async () => {
  const { site, browser, extensionId, call, dir } = env;
  const { jobId } = await call({
    type: 'startLearn', entryUrl: site.url, exampleUrl: `${site.url}post/c0-3/`,
    settings: { delayMs: 0, concurrency: 4, crawlAfterLearning: false },
  });
  const learn = await learnEnded(call, jobId, 180_000);
  assert.equal(learn.status, 'done', learn.error);
  const crawler = (await call({ type: 'crawlers' })).find((c) => c.id === learn.crawlerId);
  const rules = JSON.parse(crawler.patternJson).dustRules;
  assert.deepEqual(rules.map((r) => [r.kind, r.suffix]), [['dropSuffix', 'page/1/']]);
  assert.ok(rules[0].support >= 4, JSON.stringify(rules));

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?crawler=${learn.crawlerId}`);
  await panel.locator('#dust-rules:not([hidden])').waitFor();
  assert.match(await panel.locator('#dust-rules').textContent(),
    /^Duplicate URLs: the crawl does not fetch a URL ending in page\/1\/ when the URL without it was met \(\d+ such copies seen while learning\)\.$/);

  // The blog grows six categories learning never saw.
  const grown = Object.assign({}, ...[4, 5, 6, 7, 8, 9].map(category), home(10));
  for (const [path, html] of Object.entries(grown)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), html);
  }
  const started = Date.now();
  await call({ type: 'runCrawler', crawlerId: learn.crawlerId, settings: { delayMs: 0, concurrency: 4 } });
  const crawl = await crawlDone(call, learn.crawlerId, started - 1);
  assert.equal(crawl.result.targets, 10 * POSTS);
  // Six copies: the first two fetched as the rule's probes (each the page it named), four not.
  assert.equal(crawl.progress.duplicatesAvoided, 4);
  assert.equal(crawl.progress.duplicateRulesRefuted ?? 0, 0);
  await until(panel, () => !document.getElementById('copies-box').hidden);
  assert.equal(await panel.locator('#n-copies').textContent(), '4');
});
