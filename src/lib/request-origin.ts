/**
 * The origin and host name of a request's URL, parsed once per distinct origin rather than once per request: a
 * warm read asked for them two or three times, and `new URL` was about 2% of its CPU (test/bench/profile.ts).
 * Keyed by the URL's text up to its path (scheme and authority), which determines both; bounded, since the
 * authority is the client's to choose.
 */
const MAX_ORIGINS = 1_000;
const parsed = new Map<string, { origin: string; hostname: string }>();

/** `scheme://authority`: the part of a URL its origin and host name depend on, or the whole URL when it has no path. */
function prefixOf(url: string): string {
  const start = url.indexOf('://');
  if (start < 0) return url;
  for (let i = start + 3; i < url.length; i++) {
    const ch = url[i];
    if (ch === '/' || ch === '\\' || ch === '?' || ch === '#') return url.slice(0, i);
  }
  return url;
}

function parts(url: string): { origin: string; hostname: string } {
  const prefix = prefixOf(url);
  let found = parsed.get(prefix);
  if (!found) {
    const { origin, hostname } = new URL(url);
    found = { origin, hostname };
    if (parsed.size >= MAX_ORIGINS) parsed.clear();
    parsed.set(prefix, found);
  }
  return found;
}

/** `new URL(url).origin`. */
export const originOf = (url: string): string => parts(url).origin;

/** `new URL(url).hostname`. */
export const hostnameOf = (url: string): string => parts(url).hostname;
