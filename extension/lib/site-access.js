// The match patterns Exemplar asks site access for, shared by the popup (which asks) and the
// worker (which checks).

/**
 * The match pattern of `url`'s host on every port ('http://127.0.0.1/*'). A port in a pattern works in
 * Chrome, but Firefox takes it as part of the host name and the pattern then matches nothing.
 */
export const hostPattern = (url) => {
  const u = url instanceof URL ? url : new URL(url);
  return `${u.protocol}//${u.hostname}/*`;
};
