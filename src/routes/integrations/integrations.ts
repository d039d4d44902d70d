import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { eq } from 'drizzle-orm';
import { integrations } from '../../db/schema';
import type { Actor, AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { checkOutboundUrl } from '../../lib/outbound';
import { pageParams, toPage } from '../../lib/pagination';
import { describeAuditEvent } from '../../services/audit/context';
import { requireUser } from '../../middleware/auth';
import { listOf, urlContext } from '../../schemas/common';
import { IntegrationNameSchema, IntegrationSchema, PublishIntegrationSchema } from '../../schemas/integration';
import { integrationAccess, integrationByNameQuery, requireIntegration, requireIntegrationAdmin } from '../../services/integrations/access';
import { deleteIntegrationAssets } from '../../services/integrations/assets';
import { enqueueEvents } from '../../services/integrations/events';
import {
  integrationViewQuery,
  joinOwners,
  listIntegrationsQueries,
  presentIntegrations,
  publishIntegration,
  unpublishIntegrationRows,
  type IntegrationView,
} from '../../services/integrations/registry';

import { ListIntegrationsQuery } from './params';

const tags = ['Integrations'];
export const IntegrationParams = z.object({ integrationName: IntegrationNameSchema });

const listIntegrationsRoute = defineRoute('get', '/integrations', () => ({
  operationId: 'listIntegrations',
  tags,
  summary: 'List integrations: the public ones, and every one of the organizations the caller is a member of',
  request: {
    query: ListIntegrationsQuery,
  },
  responses: { 200: jsonResponse(listOf(IntegrationSchema, 'Integrations'), 'Paginated list of integrations') },
}));

const getIntegrationRoute = defineRoute('get', '/integrations/{integrationName}', () => ({
  operationId: 'getIntegrationByName',
  tags,
  summary: 'Get an integration by its name (private ones: members of the organization that publishes them)',
  // The integration's own token, and any of its installations' tokens, read it.
  tokens: { integration: true, scope: 'installation' },
  request: { params: IntegrationParams },
  responses: { 200: jsonResponse(IntegrationSchema, 'The integration') },
}));

const publishIntegrationRoute = defineRoute('post', '/integrations/{integrationName}', () => ({
  operationId: 'publishIntegration',
  tags,
  summary: 'Publish an integration, or its next version (admins of the publishing organization)',
  request: { params: IntegrationParams, ...jsonBody(PublishIntegrationSchema) },
  responses: { 200: jsonResponse(IntegrationSchema, 'The published integration') },
}));

const unpublishIntegrationRoute = defineRoute('delete', '/integrations/{integrationName}', () => ({
  operationId: 'unpublishIntegration',
  tags,
  summary: 'Unpublish an integration: its installations are removed, each told so by an installation_deleted event (admins of its organization)',
  request: { params: IntegrationParams },
  responses: { 204: noContent('Unpublished, or did not exist') },
}));

const setDevelopmentModeRoute = defineRoute('put', '/integrations/{integrationName}/dev', () => ({
  operationId: 'setIntegrationDevelopmentMode',
  tags,
  summary: "Enable development mode: events are also dispatched to a tunnel URL (admins of the integration's organization)",
  request: {
    params: IntegrationParams,
    ...jsonBody(
      z.strictObject({
        tunnelUrl: z.string().min(1).max(256).openapi({ description: 'URL of the tunnel to dispatch integration events to (a public http(s) URL)' }),
        all: z.boolean().optional().openapi({ description: 'If true, events of every installation go to the tunnel, not only those of the owning organization (default false)' }),
      }),
    ),
  },
  responses: { 204: noContent('Updated development mode successfully') },
}));

const disableDevelopmentModeRoute = defineRoute('delete', '/integrations/{integrationName}/dev', () => ({
  operationId: 'disableIntegrationDevelopmentMode',
  tags,
  summary: "Disable development mode (admins of the integration's organization)",
  request: { params: IntegrationParams },
  responses: { 205: noContent('Disabled development mode successfully') },
}));

/** The calling user (publishing and managing need a user; integration tokens are refused before the handler). */
function userActor(c: Context<AppBindings>): Actor & { kind: 'user' } {
  requireUser(c);
  const actor = c.get('actor');
  if (actor.kind !== 'user') throw new ApiError(403, 'This operation needs a user API token');
  return actor;
}

async function present(c: Context<AppBindings>, views: IntegrationView[]) {
  return presentIntegrations(c.env, new URL(c.req.url).origin, urlContext(c.req.url, c.env.APP_URL), c.get('actor'), views);
}

/** The integration as an admin of its owner, for the management routes (404 unknown or invisible, 403 not an admin). */
async function integrationToManage(c: Context<AppBindings>, name: string) {
  const actor = userActor(c);
  const [row] = await integrationByNameQuery(c.get('db'), name, actor);
  const { integration, access } = requireIntegration(actor, row);
  requireIntegrationAdmin(access);
  return integration;
}

function afterResponse(c: Context<AppBindings>, work: Promise<unknown>) {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    // No execution context (app.request in tests): the work runs on its own.
  }
}

export const integrationsRouter = createRouter()
  .openapi(listIntegrationsRoute, async (c) => {
    const actor = c.get('actor');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const [rows, owners, [{ total }]] = await db.batch(listIntegrationsQueries(db, actor, query, cursor, limit));
    const page = toPage(joinOwners(rows, owners), limit, total, (r) => [r.integration.name, r.integration.id], (r) => r);
    return c.json({ ...page, items: await present(c, page.items) }, 200);
  })
  .openapi(getIntegrationRoute, async (c) => {
    const actor = c.get('actor');
    const { integrationName } = c.req.valid('param');
    const [row] = await integrationViewQuery(c.get('db'), integrationName, actor);
    requireIntegration(actor, row);
    const [integration] = await present(c, [row]);
    return c.json(integration, 200);
  })
  .openapi(publishIntegrationRoute, async (c) => {
    const actor = userActor(c);
    const { integrationName } = c.req.valid('param');
    const body = c.req.valid('json');
    // The log of the organization it is published under (a first publish has no owner to find yet).
    describeAuditEvent(c, { organization: { of: 'idOrHostname', key: body.organization } });
    const result = await publishIntegration(c.env, c.get('db'), actor, integrationName, body);
    afterResponse(c, deleteIntegrationAssets(c.env.FILES, result.staleAssets));
    const [integration] = await present(c, [result]);
    return c.json(integration, 200);
  })
  .openapi(unpublishIntegrationRoute, async (c) => {
    const actor = userActor(c);
    const { integrationName } = c.req.valid('param');
    const db = c.get('db');
    const [row] = await integrationByNameQuery(db, integrationName, actor);
    const access = row && integrationAccess(actor, row.integration, row.ownerRank);
    // Unknown, already unpublished, or invisible to the caller: nothing to do, and nothing said.
    if (!row || !access?.view) return c.body(null, 204);
    requireIntegrationAdmin(access);
    const eventIds = await unpublishIntegrationRows(db, row.integration);
    await enqueueEvents(c.env, eventIds);
    return c.body(null, 204);
  })
  .openapi(setDevelopmentModeRoute, async (c) => {
    const { integrationName } = c.req.valid('param');
    const body = c.req.valid('json');
    // Events go to this URL from the Worker: the outbound guard's rules apply now, and again at each delivery.
    const tunnel = checkOutboundUrl(c.env, body.tunnelUrl, 'tunnelUrl');
    const integration = await integrationToManage(c, integrationName);
    await c
      .get('db')
      .update(integrations)
      .set({ devTunnelUrl: tunnel.href, devAll: body.all ?? false })
      .where(eq(integrations.id, integration.id));
    return c.body(null, 204);
  })
  .openapi(disableDevelopmentModeRoute, async (c) => {
    const { integrationName } = c.req.valid('param');
    const integration = await integrationToManage(c, integrationName);
    await c.get('db').update(integrations).set({ devTunnelUrl: null, devAll: false }).where(eq(integrations.id, integration.id));
    return c.body(null, 205);
  });
