// The whole generation flow through the real extension on a real documentation site from
// eval/dev-sites.toml (commons-lang3's javadoc, Debian package libcommons-lang3-java-doc), served on
// 127.0.0.1: learn from its entry page and example page, crawl with the learned pattern, score the
// crawl's pages against the ground truth computed from the site's own markers.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, devSiteInBrowser, learnAndCrawl, score, storedPages } from './helpers.mjs';

const SITE = 'commons-lang3';

let env;
before(async () => {
  env = await devSiteInBrowser(SITE, join(ROOT, 'dist/chrome'));
});
after(() => env?.close());

test(`${SITE}: example → pattern → crawl in the extension, precision and recall against ground truth`, { timeout: 300_000 }, async (t) => {
  const { spec, site } = env;
  if (!spec.installed) return t.skip(`${spec.root} is not installed (./build.sh setup)`);
  const truth = (await spec.targets()).map((p) => site.url + p);
  assert.ok(truth.length > 200, `${truth.length} target pages`);

  const started = Date.now();
  const { learn, crawl } = await learnAndCrawl(env);
  const pages = await storedPages(env, learn.crawlerId);

  const s = score(pages, truth);
  const figures = {
    targets: truth.length, mapping: learn.progress.fetched, crawling: crawl.progress.fetched, found: pages.length,
    precision: s.precision, recall: s.recall, seconds: (Date.now() - started) / 1000,
  };
  t.diagnostic(JSON.stringify(figures));
  assert.equal(s.precision, 1, JSON.stringify(figures));
  assert.ok(s.recall >= 0.99, JSON.stringify(figures));
  assert.ok(crawl.progress.fetched <= 1.2 * truth.length, `crawl links ${JSON.stringify(figures)}`);
  assert.equal(crawl.result.coverage.reached, crawl.result.coverage.known);
});
