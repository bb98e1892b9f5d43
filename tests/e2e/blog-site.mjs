// A blog of a few thousand pages for the browser tests (not a test file): posts at
// /YYYY/MM/slug/ with text of varied length, comments and tags, listed by the paginated home
// page, tag, category and month archives (listings of ten); every page has the blog's header,
// sidebar (recent posts, tags) and footer, as a blog's template gives. Deterministic: the same
// call writes the same files.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const WORDS = ('the of and to in is that for it as was with be by on not this are or from at which but have an they ' +
  'you were there been one all we their has would when if so no more out up into do can some could them other than ' +
  'then now only its time like two over also new may these after any first see our way well back even most made many ' +
  'much before must through years where down should because each just those people how too little state good very ' +
  'make world still own men work long get here between both life being under never day same another know while last ' +
  'might great old year off come since against go came right used take three').split(' ');
const TAGS = Array.from({ length: 120 }, (_, i) => `topic-${i}`);
const CATEGORIES = ['news', 'travel', 'food', 'tech', 'life', 'books'];

/** A seeded generator of words (a linear congruential one: the same blog every run). */
function words(seed = 7) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (/** @type {string[]} */ list) => list[Math.floor(next() * list.length)];
  return { next, pick, sentence: (/** @type {number} */ n) => Array.from({ length: n }, () => pick(WORDS)).join(' ') };
}

/**
 * Writes the blog under `dir` (each page as PATH/index.html, linked as PATH/): `posts` posts
 * and their listings. Returns {pages, posts}: how many pages, and the posts' paths.
 * @param {string} dir
 * @param {number} [posts]
 */
export async function writeBlog(dir, posts = 1400) {
  const { next, pick, sentence } = words();
  const all = Array.from({ length: posts }, (_, i) => {
    const year = 2010 + Math.floor(i / 150);
    const month = String(1 + Math.floor((i % 150) / 12.5)).padStart(2, '0');
    return {
      i, year, month, url: `/${year}/${month}/${sentence(3).replace(/ /g, '-')}-${i}/`,
      title: sentence(4 + (i % 5)), tags: [pick(TAGS), pick(TAGS), pick(TAGS)], category: pick(CATEGORIES),
    };
  });
  const recent = all.slice(-8).reverse();
  const header = `<header class="site"><a href="/">My Blog</a><nav><ul>${CATEGORIES.map((c) => `<li><a href="/category/${c}/">${c}</a></li>`).join('')}</ul></nav></header>`;
  const sidebar = `<aside class="sidebar"><h3>Recent posts</h3><ul>${recent.map((p) => `<li><a href="${p.url}">${p.title}</a></li>`).join('')}</ul>` +
    `<h3>Tags</h3><p>${TAGS.slice(0, 30).map((t) => `<a href="/tag/${t}/">${t}</a>`).join(' ')}</p></aside>`;
  const page = (/** @type {string} */ title, /** @type {string} */ main) => '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<title>${title} – My Blog</title></head><body>${header}<div class="wrap"><main>${main}</main>${sidebar}</div><footer>© My Blog</footer></body></html>`;
  /** @type {Map<string, string>} */
  const files = new Map();
  for (const p of all) {
    const paragraphs = Array.from({ length: 3 + (p.i % 9) }, () => `<p>${sentence(30 + Math.floor(next() * 60))}</p>`).join('');
    const comments = Array.from({ length: p.i % 7 }, () => `<div class="comment"><b>${pick(WORDS)}</b><p>${sentence(20)}</p></div>`).join('');
    const [prev, following] = [all[p.i - 1], all[p.i + 1]];
    files.set(p.url, page(p.title, `<article class="post"><h1>${p.title}</h1>` +
      `<p class="meta">Posted in <a href="/category/${p.category}/">${p.category}</a> on ${p.year}-${p.month}</p>${paragraphs}` +
      `<p class="tags">${p.tags.map((t) => `<a href="/tag/${t}/">${t}</a>`).join(' ')}</p>` +
      `<nav class="post-nav">${prev ? `<a href="${prev.url}">Previous</a>` : ''}${following ? `<a href="${following.url}">Next</a>` : ''}</nav>` +
      `<section class="comments"><h2>${p.i % 7} comments</h2>${comments}</section></article>`));
  }
  const teaser = (/** @type {typeof all[0]} */ p) => `<article class="teaser"><h2><a href="${p.url}">${p.title}</a></h2><p>${sentence(25)}</p><a href="${p.url}">Read more</a></article>`;
  const listing = (/** @type {string} */ base, /** @type {typeof all} */ items, /** @type {string} */ title) => {
    const pages = Math.max(1, Math.ceil(items.length / 10));
    const at = (/** @type {number} */ n) => (n === 1 ? base : `${base}page/${n}/`);
    for (let n = 1; n <= pages; n++) {
      const nav = `<nav class="pagination">${n > 1 ? `<a href="${at(n - 1)}">Newer</a>` : ''}${n < pages ? `<a href="${at(n + 1)}">Older</a>` : ''}</nav>`;
      files.set(at(n), page(`${title}${n > 1 ? ` – page ${n}` : ''}`, `<h1>${title}</h1>${items.slice((n - 1) * 10, n * 10).map(teaser).join('')}${nav}`));
    }
  };
  listing('/', [...all].reverse(), 'My Blog');
  for (const t of TAGS) listing(`/tag/${t}/`, all.filter((p) => p.tags.includes(t)), `Tag: ${t}`);
  for (const c of CATEGORIES) listing(`/category/${c}/`, all.filter((p) => p.category === c), `Category: ${c}`);
  for (const month of new Set(all.map((p) => `/${p.year}/${p.month}/`))) {
    listing(month, all.filter((p) => `/${p.year}/${p.month}/` === month), `Archive ${month}`);
  }
  for (const [path, html] of files) {
    const file = join(dir, path, 'index.html');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, html);
  }
  return { pages: files.size, posts: all.map((p) => p.url) };
}
