// The playground's worker: owns the WebAssembly core so heavy work (10,000-node pages, long URL lists)
// never freezes the page. Messages: {id, fn, args} in, {id, ok, result | error} out; {id: 0} once ready.
// Opened from file://, main.js runs this same text from a blob, after the core's glue, with the next
// line replaced (see offline.js in build.sh's build_www).
import init, * as core from './pkg/exemplar.js';

const EXPORTS = ['similarity', 'compareTrees', 'classifyPage', 'parsePage', 'validatePattern',
  'renderPattern', 'testPattern', 'generaliseUrls'];
const ready = init();

self.onmessage = async (event) => {
  const { id, fn, args } = event.data;
  try {
    await ready;
    if (!EXPORTS.includes(fn)) throw new Error(`unknown function ${fn}`);
    self.postMessage({ id, ok: true, result: core[fn](...args) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: String(e?.message ?? e) });
  }
};
ready.then(() => self.postMessage({ id: 0, ok: true, result: 'ready' }),
  (e) => self.postMessage({ id: 0, ok: false, error: String(e?.message ?? e) }));
