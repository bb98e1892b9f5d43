// The main job (`./build.sh demo`): the whole flow through the real extension in headless Chromium
// on the bundled demo site — open a property page, "This is an example page" in the popup, watch
// the side panel until the pattern is learned and the crawl is done, export the pages — then print
// the learned pattern with its precision and recall against the site's expected.toml.
// Not a test file (node --test runs *.test.mjs only); build.sh runs it with node. With
// EXEMPLAR_SCREENSHOTS=DIR it also saves the popup and the side panel as PNG files in DIR (the
// user guide's pictures: `./build.sh screenshots` writes docs/images/).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEMO_SITE, ROOT, demoRoles, extensionWithAccess, extensionWorker, launchChromium, press, requireBuilt, score,
  callFrom, clickExample, popupOn, serveDirectory, until, waitFor,
} from './helpers.mjs';

const EXAMPLE = 'imovel/101-apartamento-2-quartos-lapa.html';
const OUT = join(ROOT, 'dist/demo');
const say = (s) => console.log(`    ${s}`);
const SHOTS = process.env.EXEMPLAR_SCREENSHOTS;
/** Saves `page` as DIR/NAME.png when screenshots are asked for. */
const shoot = async (page, name, fullPage = true) => {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
  say(`screenshot: ${join(SHOTS, `${name}.png`)}`);
};

await requireBuilt(join(ROOT, 'dist/chrome/pkg/exemplar_bg.wasm'), 'the extension');
// A user grants the site access when the popup asks; headless Chromium cannot show that prompt, so
// the demo's copy of the extension has it granted for 127.0.0.1 from the start.
const ext = await extensionWithAccess(join(ROOT, 'dist/chrome'));
const site = await serveDirectory(DEMO_SITE);
const browser = await launchChromium({ extension: ext.dir });
try {
  const worker = await extensionWorker(browser.context);
  const id = new URL(worker.url()).host;
  say(`demo site on ${site.url}; extension ${id} loaded in ${browser.context.browser()?.version() ?? 'Chromium'}`);

  const { popup } = await popupOn(browser.context, worker, site.url + EXAMPLE);
  say(`popup on ${EXAMPLE}: ${await popup.locator('#kind').textContent()}, ${await popup.locator('#confidence').textContent()} confidence`);
  say(`  evidence: ${(await popup.locator('#summary li').allTextContents()).join('; ')}`);
  await popup.setViewportSize({ width: 420, height: 640 });
  await shoot(popup, 'popup');
  // A local site: no need for the polite default delay.
  await press(popup.locator('#advanced summary'));
  await popup.locator('#delayMs').fill('0');
  await clickExample(popup);
  say(`clicked "This is an example page": ${await popup.locator('#status').textContent()}`);
  await popup.close();

  const panel = await browser.context.newPage();
  await panel.goto(`chrome-extension://${id}/panel.html`);
  const call = callFrom(panel);
  const done = await waitFor(async () => {
    const { jobs } = await call({ type: 'status' });
    const crawl = jobs.find((j) => j.kind === 'crawl');
    const learn = jobs.find((j) => j.kind === 'learn');
    if (learn?.status === 'failed') throw new Error(learn.error);
    return crawl && crawl.status !== 'running' && { learn, crawl };
  }, 'the generation and the crawl', 120_000, 200);
  const { learn, crawl } = done;
  await until(panel, (n) => document.getElementById('n-pages').textContent === String(n), crawl.result.targets);

  console.log('');
  console.log(learn.result.rendered.trimEnd().split('\n').map((l) => `    ${l}`).join('\n'));
  console.log('');
  say(`side panel: ${await panel.locator('#coverage').textContent()}`);
  await panel.setViewportSize({ width: 480, height: 900 });
  await shoot(panel, 'panel', false);
  say(`mapping fetched ${learn.progress.fetched} pages in ${(learn.progress.elapsedMs / 1000).toFixed(2)} s; the crawl fetched ${crawl.progress.fetched} pages and collected ${crawl.result.targets}`);

  const pages = await panel.evaluate(async (crawlerId) => {
    const db = await import('./lib/db.js');
    return (await db.pagesOf(crawlerId)).map((p) => p.url);
  }, learn.crawlerId);
  const roles = await demoRoles();
  const truth = Object.entries(roles).filter(([, r]) => r === 'entity').map(([p]) => site.url + p);
  const s = score(pages, truth);
  say(`precision ${(100 * s.precision).toFixed(1)}% (${s.hits}/${s.found}), recall ${(100 * s.recall).toFixed(1)}% (${s.hits}/${s.expected}) against tests/fixtures/demo-site/expected.toml`);

  await mkdir(OUT, { recursive: true });
  for (const format of ['pattern', 'jsonl', 'csv', 'warc', 'scrapy']) {
    const { filename, data } = await panel.evaluate(async ([crawlerId, f]) => {
      const e = await globalThis.exemplarExport(crawlerId, f);
      return { filename: e.filename, data: Array.from(new Uint8Array(await e.blob.arrayBuffer())) };
    }, [learn.crawlerId, format]);
    const name = filename.replace(/^127\.0\.0\.1_\d+/, 'demo');
    await writeFile(join(OUT, name), Buffer.from(data));
  }
  say(`exports (as the panel's buttons save them) in dist/demo/: pattern JSON, pages JSONL, records CSV, WARC, Scrapy project zip`);
  if (s.precision < 1 || s.recall < 1) process.exitCode = 1;
} finally {
  await browser.close();
  await site.close();
  await ext.remove();
}
