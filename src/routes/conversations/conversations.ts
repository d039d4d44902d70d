import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import type { AppBindings } from '../../env';
import { ErrorSchema, createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { describeZodError, errorBody } from '../../lib/errors';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { IdSchema, listOf } from '../../schemas/common';
import { ConversationDetailSchema, ConversationSchema, IngestBodySchema, MAX_CONVERSATIONS_PER_REQUEST, describeIngestError } from '../../schemas/conversation';
import { conversationUrls, toConversation, toConversationDetail, type ConversationRow, type ConversationSummaryRow } from '../../services/conversations/presenter';
import {
  authorizeIngestion,
  conversationCountQuery,
  conversationNotFound,
  conversationPageQuery,
  conversationQuery,
  listCursor,
  loadWithAccess,
  storeConversations,
} from '../../services/conversations/records';
import { CONVERSATIONS_BODY_LIMIT } from '../../services/conversations/types';
import { CAPS } from '../../services/limits/caps';
import { OrgParams, tags } from './params';

const ConversationParams = OrgParams.extend({ conversationId: IdSchema('conversationId').openapi({ description: 'The id of the conversation in this API' }) });

const ingestRoute = defineRoute('post', '/orgs/{organizationId}/conversations', () => ({
  operationId: 'ingestConversation',
  costly: 'ingestion',
  tokens: { scope: 'conversations:ingest' },
  tags,
  summary: 'Ingest support conversations to be analysed (ingestConversations permission, or an installation with conversations:ingest)',
  description: [
    `One conversation, or an array of 1 to ${MAX_CONVERSATIONS_PER_REQUEST}; the body is at most ${CONVERSATIONS_BODY_LIMIT} bytes (413 beyond).`,
    'Conversations are stored before the answer, then analysed in the background (one queue message each): `processedAt` is set once the analysis completed.',
    'A conversation is identified by its `id` within its source: `api` for a user token, `integration:<integration>:<installation>` for an installation token.',
    'Ingesting the same id again updates the conversation; when its subject, parts or metadata changed it is analysed again and its issues replaced.',
    `An organization ingests at most ${CAPS.conversationsPerDay.variable} conversations per UTC day, every input counting (the same id again too):`,
    'a request that would pass it is refused whole (429, with `Retry-After` the seconds to 00:00 UTC) and stores nothing.',
  ].join(' '),
  request: { params: OrgParams, ...jsonBody(IngestBodySchema) },
  responses: {
    204: noContent('Stored, and their analysis enqueued'),
    413: jsonResponse(ErrorSchema, 'The body is larger than the limit'),
  },
}));

const listRoute = defineRoute('get', '/orgs/{organizationId}/conversations', () => ({
  operationId: 'listConversations',
  tags,
  summary: "The organization's conversations, most recently ingested first (members)",
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      source: z.string().min(1).max(512).optional().openapi({ description: 'Only the conversations of this source (`api`, or `integration:<integration>:<installation>`)' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(ConversationSchema, 'Conversations'), 'The conversations') },
}));

const getRoute = defineRoute('get', '/orgs/{organizationId}/conversations/{conversationId}', () => ({
  operationId: 'getConversationById',
  tags,
  summary: 'A conversation with its messages and metadata (members)',
  request: { params: ConversationParams },
  responses: { 200: jsonResponse(ConversationDetailSchema, 'The conversation') },
}));

/** What a route's validation hook is given; on a failure `data` is the input (@hono/zod-validator passes it, its types omit it). */
type HookResult = { target: string } & ({ success: true } | { success: false; error: ZodError; data?: unknown });

/** Ingestion's validation errors name the field as the client wrote it (`[3].parts[0].body`), of the shape it sent. */
function ingestHook(result: HookResult, c: Context<AppBindings>) {
  if (result.success) return;
  const message = result.target === 'json' ? describeIngestError(result.error, result.data) : describeZodError(result.error, result.target === 'param' ? 'path' : result.target);
  return c.json(errorBody(400, message), 400);
}

export const conversationsRouter = createRouter()
  .openapi(
    ingestRoute,
    async (c) => {
      const { organizationId } = c.req.valid('param');
      const body = c.req.valid('json');
      const inputs = Array.isArray(body) ? body : [body];
      const now = new Date();
      const source = await authorizeIngestion(c, organizationId, inputs.length, now);
      await storeConversations(c.env, c.get('db'), organizationId, source, inputs, now);
      return c.body(null, 204);
    },
    ingestHook,
  )
  .openapi(listRoute, async (c) => {
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { limit } = pageParams({ limit: query.limit });
    const cursor = listCursor(query.page, 'text');
    const db = c.get('db');
    const [rows, [{ total }]] = await loadWithAccess<[ConversationSummaryRow[], { total: number }[]]>(c, organizationId, 'read', [
      conversationPageQuery(db, organizationId, query.source, cursor, limit),
      conversationCountQuery(db, organizationId, query.source),
    ]);
    const urls = conversationUrls(c);
    return c.json(toPage(rows, limit, total, (row) => [row.createdAt, row.id], (row) => toConversation(row, urls)), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organizationId, conversationId } = c.req.valid('param');
    const [[row]] = await loadWithAccess<[ConversationRow[]]>(c, organizationId, 'read', [conversationQuery(c.get('db'), organizationId, conversationId)]);
    if (!row) throw conversationNotFound();
    return c.json(toConversationDetail(row, conversationUrls(c)), 200);
  });
