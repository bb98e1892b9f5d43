// A navigation pattern in words for the panel: each level's regexes as readable paths (the
// site's scheme and host left out, the variable parts as named placeholders:
// `/category/{id}/page/{n}/`), and the levels as one line, entry → listing pages → item pages.
// The regexes themselves stay a click away; a construct this does not know is shown as it is.

/** @typedef {import('../lib/core-types.js').PatternLevel} PatternLevel */

/** Character classes the core's URL generaliser writes, by what they stand for.
 * @type {[RegExp, string][]} */
const CLASSES = [
  [/^\[0-9\](?:\+|\{\d+(?:,\d*)?\})/, 'number'],
  [/^\[A-Za-z\](?:\+|\{\d+(?:,\d*)?\})/, 'name'],
  [/^\[a-z\](?:\+|\{\d+(?:,\d*)?\})/, 'name'],
  [/^\[A-Z\](?:\+|\{\d+(?:,\d*)?\})/, 'name'],
  [/^\[(?:A-Za-z0-9|a-zA-Z0-9|0-9A-Za-z|a-z0-9|A-Za-z0-9_-|A-Za-z0-9_\\-|\\w-|\\w)[^\]]*\](?:\+|\{\d+(?:,\d*)?\})/, 'slug'],
  [/^\[\^\/[^\]]*\](?:\+|\*)/, 'slug'],
  [/^\.(?:\+|\*)\??/, 'any'],
];

/** Path segments before a number that make it a page number. */
const PAGE_WORDS = new Set(['page', 'p', 'pagina', 'página', 'seite', 'pag', 'pg']);

/**
 * The placeholder of a variable part: `{n}` for a page number, `{id}` for other numbers,
 * `{name}` for words, `{slug}` for the rest.
 * @param {string} kind
 * @param {string} before the readable text so far
 */
function placeholder(kind, before) {
  if (kind === 'number') {
    const segment = before.split(/[/?&=._-]/).filter(Boolean).at(-1)?.toLowerCase() ?? '';
    return PAGE_WORDS.has(segment) ? '{n}' : '{id}';
  }
  if (kind === 'name') return '{name}';
  if (kind === 'any') return '…';
  return '{slug}';
}

/**
 * A level's regex as a readable path: `^https?://host/…$` → `/…`, escapes read, classes as
 * placeholders, an optional group as `[…]`, alternatives as `(a|b)`.
 * @param {string} regex
 */
export function readablePath(regex) {
  let r = regex.replace(/^\^/, '').replace(/\$$/, '');
  // The site: scheme and host (escaped dots, a port, a (?:www\.)? prefix).
  r = r.replace(/^(?:https\?|https?|\(\?:https\?\)|\(\?:http\|https\))(?::|\\:)\/\/(?:\\.|[^/\\])+/, '');
  let out = '';
  let i = 0;
  while (i < r.length) {
    const rest = r.slice(i);
    const known = CLASSES.find(([re]) => re.test(rest));
    if (known) {
      const [re, kind] = known;
      const m = /** @type {RegExpMatchArray} */ (rest.match(re));
      out += placeholder(kind, out);
      i += m[0].length;
      continue;
    }
    if (rest.startsWith('(?:')) {
      out += '(';
      i += 3;
      continue;
    }
    if (rest.startsWith(')?')) {
      // An optional group: `[…]` (its opening paren becomes a bracket below).
      const open = out.lastIndexOf('(');
      if (open >= 0) out = `${out.slice(0, open)}[${out.slice(open + 1)}]`;
      else out += ')?';
      i += 2;
      continue;
    }
    if (rest[0] === '\\' && rest.length > 1) {
      out += rest[1];
      i += 2;
      continue;
    }
    out += rest[0];
    i += 1;
  }
  return out || '/';
}

/**
 * A level in words: what its pages are and how they are reached.
 * @param {PatternLevel} l
 * @param {boolean} last the targets' level
 */
export function levelWords(l, last) {
  if (l.form) return 'search form results';
  if (last) return l.paginate ? 'item pages, followed from item to item' : 'item pages';
  const kind = l.fromTargets ? 'pages linked from the item pages' : 'listing pages';
  return l.paginate ? `${kind}, paginated` : kind;
}

/**
 * The pattern as one line: entry → each level's pages in words, with their counts.
 * @param {PatternLevel[]} levels
 */
export function flowOf(levels) {
  const steps = levels.map((l, i) => `${levelWords(l, i === levels.length - 1)} (${l.pages ?? 0})`);
  return ['entry page', ...steps].join(' → ');
}
