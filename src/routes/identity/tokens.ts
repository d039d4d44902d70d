import { z } from '@hono/zod-openapi';
import { and, count, eq } from 'drizzle-orm';
import { apiTokens } from '../../db/schema';
import { forgetToken } from '../../middleware/identity-cache';
import { createRouter, defineRoute, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import { ApiTokenSchema } from '../../schemas/user';
import { toApiToken } from './token-json';

const listTokensRoute = defineRoute('get', '/user/tokens', () => ({
  operationId: 'listAuthenticatedUserTokens',
  tags: ['Users'],
  summary: "List the calling user's API tokens (never their values)",
  request: { query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(ApiTokenSchema, 'ApiTokens'), 'The tokens') },
}));

const revokeTokenRoute = defineRoute('delete', '/user/tokens/{tokenId}', () => ({
  operationId: 'revokeAuthenticatedUserToken',
  tags: ['Users'],
  summary: "Revoke one of the calling user's API tokens",
  request: { params: z.object({ tokenId: IdSchema('tokenId') }) },
  responses: { 204: noContent('Revoked, or there was no such token of yours') },
}));

export const tokensRouter = createRouter()
  .openapi(listTokensRoute, async (c) => {
    const userId = requireUser(c);
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const mine = eq(apiTokens.userId, userId);
    const [rows, [{ total }]] = await db.batch([
      db
        .select()
        .from(apiTokens)
        .where(and(mine, afterCursor(cursor, apiTokens.createdAt, apiTokens.id)))
        .orderBy(...keysetOrder(apiTokens.createdAt, apiTokens.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(apiTokens).where(mine),
    ]);
    return c.json(toPage(rows, limit, total, (r) => [r.createdAt, r.id], toApiToken), 200);
  })
  .openapi(revokeTokenRoute, async (c) => {
    const userId = requireUser(c);
    const { tokenId } = c.req.valid('param');
    await c.get('db').delete(apiTokens).where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId))).run();
    forgetToken(tokenId);
    return c.body(null, 204);
  });
