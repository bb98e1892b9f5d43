// Site access: the match patterns Exemplar asks access for, shared by the popup (which asks) and
// the worker (which checks, with `requireAccess`, before it fetches from a site).

/**
 * The match pattern of `url`'s host on every port ('http://127.0.0.1/*'). A port in a pattern works in
 * Chrome, but Firefox takes it as part of the host name and the pattern then matches nothing.
 * @param {string | URL} url
 * @returns {string}
 */
export const hostPattern = (url) => {
  const u = url instanceof URL ? url : new URL(url);
  return `${u.protocol}//${u.hostname}/*`;
};

/**
 * Throws a clear error unless the extension may fetch from `url`'s origin.
 * @param {string} url
 * @returns {Promise<void>}
 */
export async function requireAccess(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url}`);
  }
  const { origin } = parsed;
  if (!/^https?:/.test(origin)) throw new Error(`Exemplar only crawls http and https sites, not ${url}`);
  // Without the port: Firefox's match patterns never match a pattern that names one.
  if (!(await chrome.permissions.contains({ origins: [hostPattern(parsed)] }))) {
    throw new Error(`Permission denied: Exemplar has no access to ${origin}. Allow it when Exemplar asks, or in the extension's site access settings.`);
  }
}
