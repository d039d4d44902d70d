import { createMiddleware } from 'hono/factory';
import { BOOKMARK_HEADER, bookmarkOf, createDb, databaseFor, isBookmark, laterBookmark, openSession } from '../db/client';
import type { AppBindings } from '../env';
import { errorResponse } from '../lib/errors';
import { randomBase62 } from '../lib/ids';
import { setAnswerHeaders } from './answer-headers';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Gives every request an id (echoed in `X-Request-Id`) and a drizzle client on a D1 session of its own: reads may
 * be served by the nearest read replica, writes start on the primary, and a request that sends the bookmark of an
 * earlier answer (`X-D1-Bookmark`) reads at least what that answer saw or wrote. Every answer carries its bookmark:
 * the newest of its own session's and of the space writer's, when a Durable Object wrote for it.
 */
export const requestContext = createMiddleware<AppBindings>(async (c, next) => {
  const requestId = c.req.header('X-Request-Id')?.slice(0, 64) || randomBase62(16);
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
