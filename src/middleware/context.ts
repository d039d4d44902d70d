import { createMiddleware } from 'hono/factory';
import { BOOKMARK_HEADER, bookmarkOf, createDb, databaseFor, isBookmark, laterBookmark, openSession } from '../db/client';
import type { AppBindings } from '../env';
import { errorResponse } from '../lib/errors';
import { setAnswerHeaders } from './answer-headers';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Random bytes drawn a kilobyte at a time: a request id is no secret, and drawing 32 bytes for each of them (ids'
// randomBase62) showed in a warm read's profile (test/bench/profile.ts).
let randomPool = new Uint8Array(0);
let poolAt = 0;

/** 16 base62 characters, uniformly drawn (bytes of 248 and above are skipped: 248 is 4 × 62). */
function newRequestId(): string {
  let id = '';
  while (id.length < 16) {
    if (poolAt >= randomPool.length) {
      randomPool = crypto.getRandomValues(new Uint8Array(1024));
      poolAt = 0;
    }
    const byte = randomPool[poolAt++];
    if (byte < 248) id += BASE62[byte % 62];
  }
  return id;
}

/**
 * Gives every request an id (echoed in `X-Request-Id`) and a drizzle client on a D1 session of its own: reads may
 * be served by the nearest read replica, writes start on the primary, and a request that sends the bookmark of an
 * earlier answer (`X-D1-Bookmark`) reads at least what that answer saw or wrote. Every answer carries its bookmark:
 * the newest of its own session's and of the space writer's, when a Durable Object wrote for it.
 */
export const requestContext = createMiddleware<AppBindings>(async (c, next) => {
  const requestId = c.req.header('X-Request-Id')?.slice(0, 64) || newRequestId();
  c.set('requestId', requestId);
  const sent = c.req.header(BOOKMARK_HEADER)?.trim() || undefined;
  if (sent !== undefined && !isBookmark(sent)) {
    c.header('X-Request-Id', requestId);
    return errorResponse(c, 400, `${BOOKMARK_HEADER}: "${sent.slice(0, 80)}" is not a bookmark this API answered; send one back as it came, or none`);
  }
  const session = openSession(databaseFor(c.env), { bookmark: sent, write: !READS.has(c.req.method) });
  c.set('d1', session);
  c.set('db', createDb(session));
  await next();
  const bookmark = laterBookmark(bookmarkOf(session), c.get('writerBookmark'));
  setAnswerHeaders(c, bookmark ? { 'X-Request-Id': requestId, [BOOKMARK_HEADER]: bookmark } : { 'X-Request-Id': requestId });
});
