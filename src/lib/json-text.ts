import type { Context } from 'hono';

/**
 * A 200 answer whose JSON text a read wrote itself: a list or revision streamed a page at a time, a page read that
 * splices in its stored document's text or streams its child pages (services/content/reads). The bytes are those
 * `c.json` would make of the route's answer object, so the answer stands for that object's typed response: the cast
 * is made here, once. A module of its own, importing no zod: route modules that evaluate none (lazy-router) use it.
 */
export function jsonText(c: Context, json: string | ReadableStream<Uint8Array>): never {
  return c.body(json, 200, { 'Content-Type': 'application/json' }) as never;
}
