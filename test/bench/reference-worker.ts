/**
 * The benchmark's reference: one zod-openapi route validating its parameter, with one D1 point read
 * through drizzle (the users table of the same database). Every route is reported as a ratio to it.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { users } from '../../src/db/schema';

type Bindings = { DB: D1Database };

const route = createRoute({
  method: 'get',
  path: '/ref/{id}',
  request: { params: z.object({ id: z.string().min(1).max(64) }) },
  responses: { 200: { description: 'A user, or null', content: { 'application/json': { schema: z.object({ user: z.unknown() }) } } } },
});

const app = new OpenAPIHono<{ Bindings: Bindings }>().openapi(route, async (c) => {
  const user = await drizzle(c.env.DB).select().from(users).where(eq(users.id, c.req.valid('param').id)).get();
  return c.json({ user: user ?? null }, 200);
});

export default app;
