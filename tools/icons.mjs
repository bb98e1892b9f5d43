// Renders the extension's icons (extension/icons/*.svg, their source) to the PNG sizes browsers
// ask for (16, 32, 48, 128 px): `node tools/icons.mjs`, with Debian's Chromium. Chrome takes no
// SVG icon in a manifest or for the toolbar button, so the PNGs are committed beside their SVGs.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../extension/icons');
const SIZES = [16, 32, 48, 128];
const NAMES = ['exemplar', 'item', 'list'];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  for (const name of NAMES) {
    const svg = await readFile(join(DIR, `${name}.svg`), 'utf8');
    for (const size of SIZES) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg style="display:block;width:${size}px;height:${size}px" `)}</body></html>`);
      const png = await page.locator('svg').screenshot({ omitBackground: true });
      await writeFile(join(DIR, `${name}-${size}.png`), png);
    }
  }
} finally {
  await browser.close();
}
console.log(`${NAMES.length * SIZES.length} icons written to ${DIR}`);
