import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { pageParams, toPage, ListQuerySchema } from '../../lib/pagination';
import { IdSchema, listOf } from '../../schemas/common';
import { ConversationsIssuesClusterSchema } from '../../schemas/conversation';
import { conversationUrls, toCluster } from '../../services/conversations/presenter';
import {
  CLUSTER_ORDER_BY,
  CLUSTER_STATUSES,
  clusterCountQuery,
  clusterNotFound,
  clusterReadQuery,
  clusterRows,
  clusterSortKind,
  listCursor,
  loadWithAccess,
  oneClusterQuery,
  setClusterMuted,
} from '../../services/conversations/records';
import { rowsOf } from '../../db/client';
import { OrgParams, tags } from './params';

const ClusterParams = OrgParams.extend({ clusterId: IdSchema('clusterId').openapi({ description: 'The unique id of the cluster' }) });

const listRoute = defineRoute('get', '/orgs/{organizationId}/conversations-clusters', () => ({
  operationId: 'listConversationsIssuesClusters',
  tags,
  summary: "The organization's clusters of similar issues, with their weekly pulse (members)",
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      order: z.enum(['asc', 'desc']).optional().openapi({ description: 'An order for the items in the list (default desc)' }),
      orderBy: z
        .enum(CLUSTER_ORDER_BY)
        .optional()
        .openapi({ description: 'What the list is sorted by (default updatedAt: when its issues last changed); ties by id. Tasks are the change requests naming the cluster' }),
      status: z.enum(CLUSTER_STATUSES).optional().openapi({
        description:
          'Only the clusters with a conversation waiting for a new analysis (`pending`: re-ingested with a changed content, queued) or being analysed (`analysing`)',
      }),
    }),
  },
  responses: { 200: jsonResponse(listOf(ConversationsIssuesClusterSchema, 'ConversationsIssuesClusters'), 'The clusters') },
}));

const getRoute = defineRoute('get', '/orgs/{organizationId}/conversations-clusters/{clusterId}', () => ({
  operationId: 'getConversationsIssuesCluster',
  tags,
  summary: 'A conversations issues cluster (members)',
  request: { params: ClusterParams },
  responses: { 200: jsonResponse(ConversationsIssuesClusterSchema, 'The cluster') },
}));

const updateRoute = defineRoute('patch', '/orgs/{organizationId}/conversations-clusters/{clusterId}', () => ({
  operationId: 'updateConversationsIssuesCluster',
  tags,
  summary: 'Mute or unmute a cluster: no new change request may name a muted cluster (admins)',
  request: {
    params: ClusterParams,
    ...jsonBody(z.strictObject({ muted: z.boolean().openapi({ description: 'Muted for change request creation' }) })),
  },
  responses: { 200: jsonResponse(ConversationsIssuesClusterSchema, 'The cluster') },
}));

export const conversationClustersRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { limit } = pageParams({ limit: query.limit });
    const orderBy = query.orderBy ?? 'updatedAt';
    const cursor = listCursor(query.page, clusterSortKind(orderBy));
    const db = c.get('db');
    const options = { status: query.status, orderBy, order: query.order ?? 'desc', cursor, limit: limit + 1 } as const;
    const [page, counted] = await loadWithAccess<[unknown, unknown]>(c, organizationId, 'read', [
      clusterReadQuery(db, organizationId, options, new Date()),
      clusterCountQuery(db, organizationId, query.status),
    ]);
    const [{ total }] = rowsOf<{ total: number }>(counted);
    const urls = conversationUrls(c);
    return c.json(toPage(clusterRows(page), limit, total, (row) => [row.sort_key, row.id], (row) => toCluster(row, urls)), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organizationId, clusterId } = c.req.valid('param');
    const [read] = await loadWithAccess<[unknown]>(c, organizationId, 'read', [oneClusterQuery(c.get('db'), organizationId, clusterId, new Date())]);
    const [row] = clusterRows(read);
    if (!row) throw clusterNotFound();
    return c.json(toCluster(row, conversationUrls(c)), 200);
  })
  .openapi(updateRoute, async (c) => {
    const { organizationId, clusterId } = c.req.valid('param');
    const { muted } = c.req.valid('json');
    await loadWithAccess(c, organizationId, 'admin');
    const row = await setClusterMuted(c.get('db'), organizationId, clusterId, muted, new Date());
    if (!row) throw clusterNotFound();
    return c.json(toCluster(row, conversationUrls(c)), 200);
  });
