import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { IdSchema, listOf } from '../../schemas/common';
import { ConversationIssueWithConversationSchema } from '../../schemas/conversation';
import { conversationUrls, toConversation, toIssue } from '../../services/conversations/presenter';
import { issueCountQuery, issueNotFound, issuePageQuery, issueQuery, listCursor, loadWithAccess, type IssueWithConversationRow } from '../../services/conversations/records';
import { OrgParams, tags } from './params';

const listRoute = defineRoute('get', '/orgs/{organizationId}/conversations-issues', () => ({
  operationId: 'listConversationsIssues',
  tags,
  summary: "The issues found in the organization's conversations, each with its conversation, most recently found first (members)",
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      cluster: z.string().min(1).max(128).optional().openapi({ description: 'Filter conversation issues by cluster identifier.' }),
      conversation: z.string().min(1).max(128).optional().openapi({ description: 'Filter conversation issues by conversation identifier.' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(ConversationIssueWithConversationSchema, 'ConversationIssues'), 'The issues') },
}));

const getRoute = defineRoute('get', '/orgs/{organizationId}/conversations-issues/{issueId}', () => ({
  operationId: 'getConversationIssueById',
  tags,
  summary: 'A conversation issue, with its conversation (members)',
  request: { params: OrgParams.extend({ issueId: IdSchema('issueId').openapi({ description: 'Identifier of the conversation issue' }) }) },
  responses: { 200: jsonResponse(ConversationIssueWithConversationSchema, 'The issue') },
}));

const present = (row: IssueWithConversationRow, urls: ReturnType<typeof conversationUrls>) => ({
  issue: toIssue(row.issue, urls),
  conversation: toConversation(row.conversation, urls),
});

export const conversationIssuesRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const { organizationId } = c.req.valid('param');
    const { page, limit: asked, ...filters } = c.req.valid('query');
    const { limit } = pageParams({ limit: asked });
    const cursor = listCursor(page, 'text');
    const db = c.get('db');
    const [rows, [{ total }]] = await loadWithAccess<[IssueWithConversationRow[], { total: number }[]]>(c, organizationId, 'read', [
      issuePageQuery(db, organizationId, filters, cursor, limit),
      issueCountQuery(db, organizationId, filters),
    ]);
    const urls = conversationUrls(c);
    return c.json(toPage(rows, limit, total, (row) => [row.issue.ingestedAt, row.issue.id], (row) => present(row, urls)), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organizationId, issueId } = c.req.valid('param');
    const [[row]] = await loadWithAccess<[IssueWithConversationRow[]]>(c, organizationId, 'read', [issueQuery(c.get('db'), organizationId, issueId)]);
    if (!row) throw issueNotFound();
    return c.json(present(row, conversationUrls(c)), 200);
  });
