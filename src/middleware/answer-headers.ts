import type { Context } from 'hono';

/**
 * Sets `headers` on the request's answer once a handler has made it. Hono's `c.header()` at that point copies the
 * whole Response on every call (two copies per request for the request id and the bookmark, measured with
 * test/bench/profile.ts); a Response the app made has mutable headers, set in place. One passed through from a
 * fetch (an integration's public endpoint) has immutable ones: it is copied, once.
 */
export function setAnswerHeaders(c: Context<any>, headers: Record<string, string>): void {
  try {
    for (const name in headers) c.res.headers.set(name, headers[name]);
  } catch {
    const copy = new Response(c.res.body, c.res);
    for (const name in headers) copy.headers.set(name, headers[name]);
    c.res = copy;
  }
}
