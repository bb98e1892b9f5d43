// Runs the wasm benchmark in headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// serves bench/wasm-bench.html and a wasm-bindgen `--target web` package on 127.0.0.1 (with COOP/COEP
// headers, so performance.now() has its fine resolution), passes each pair's HTML in, and writes
// the results (wasm parse, Chromium's DOMParser, the page-kind classification, RTDM) as JSON.
//
//   node bench/wasm-bench.mjs --pkg DIR --pairs target/bench/pairs.json --out target/bench/wasm.json
//                             [--budget-ms 600]
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const pkg = resolve(args.pkg ?? join(here, '../www/pkg'));
const pairs = JSON.parse(readFileSync(args.pairs ?? join(here, '../target/bench/pairs.json'), 'utf8'));
const out = args.out ?? join(here, '../target/bench/wasm.json');
const budgetMs = Number(args['budget-ms'] ?? 600);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  let file;
  if (path === '/' || path === '/wasm-bench.html') file = join(here, 'wasm-bench.html');
  else if (path.startsWith('/pkg/') && !path.includes('..')) file = join(pkg, path.slice(5));
  let body;
  try {
    body = readFileSync(file);
  } catch {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': types[extname(file)] ?? 'application/octet-stream',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
    'cache-control': 'no-store',
  });
  res.end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const port = server.address().port;

const profile = mkdtempSync(join(tmpdir(), 'exemplar-bench-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-extensions'],
});
const results = { browser: ctx.browser()?.version() ?? '', pairs: [] };
try {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`http://127.0.0.1:${port}/wasm-bench.html`);
  await page.waitForFunction(() => window.benchReady !== undefined);
  await page.evaluate(() => window.benchReady);
  results.userAgent = await page.evaluate(() => navigator.userAgent);
  for (const pair of pairs) {
    const htmlA = readFileSync(pair.a, 'utf8');
    const htmlB = readFileSync(pair.b, 'utf8');
    const started = Date.now();
    const r = await page.evaluate((arg) => window.benchPair(arg), { pair, htmlA, htmlB, budgetMs });
    for (const p of r.parse) {
      const bytes = p.side === 'a' ? pair.bytesA : pair.bytesB;
      p.bytes = bytes;
      p.wasmMBs = bytes / (p.wasmMs / 1e3) / 1e6;
      p.domParserMBs = bytes / (p.domParserMs / 1e3) / 1e6;
    }
    const fmt = (x) => x.toFixed(4);
    console.error(`== ${pair.name} (${((Date.now() - started) / 1e3).toFixed(1)} s)`);
    for (const p of r.parse) {
      console.error(`   parse ${p.side}: wasm ${p.wasmMBs.toFixed(1)} MB/s, DOMParser ${p.domParserMBs.toFixed(1)} MB/s; classify ${p.classifyMs.toFixed(2)} ms`);
    }
    for (const x of r.rtdm) {
      if (x.mode === 'info') console.error(`   ${x.tree}: ${x.nodesA} + ${x.nodesB} nodes, distance ${x.distance}`);
      else console.error(`   ${x.tree} ${x.mode}${x.theta !== undefined ? ` θ=${x.theta}` : ''}: ${fmt(x.ms)} ms`);
    }
    results.pairs.push(r);
  }
} finally {
  await ctx.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
console.error(`wrote ${out}`);
