// The wasm core in the background: the one memoized init() promise, `ready`, started when the
// worker starts and awaited by every handler before it calls the core. MV3 stops and restarts the
// worker at any time, and a worker with top-level await never answers messages: so the promise
// is made here, at import, and awaited inside the handlers only.
import init from '../pkg/exemplar.js';

export const ready = init({ module_or_path: chrome.runtime.getURL('pkg/exemplar_bg.wasm') });
