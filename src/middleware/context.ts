import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client';
import type { AppBindings } from '../env';
import { randomBase62 } from '../lib/ids';

/** Gives every request an id (echoed in `X-Request-Id`) and a drizzle client. */
export const requestContext = createMiddleware<AppBindings>(async (c, next) => {
  const requestId = c.req.header('X-Request-Id')?.slice(0, 64) || randomBase62(16);
  c.set('requestId', requestId);
  c.set('db', createDb(c.env.DB));
  await next();
  c.header('X-Request-Id', requestId);
});
