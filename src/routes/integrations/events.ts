import { z } from '@hono/zod-openapi';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { integrationEventLogs, integrationEvents, integrations } from '../../db/schema';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, beforeCursor, pageParams, textCursor, toPage } from '../../lib/pagination';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { IntegrationEventSchema, IntegrationEventWithTraceSchema, toIntegrationEventTrace } from '../../schemas/integration-event';
import { toIntegrationEvent } from '../../services/integrations/presenter';
import { integrationByNameQuery, requireIntegration, requireIntegrationAdmin } from '../../services/integrations/access';

const tags = ['Integrations'];
const IntegrationParams = z.object({ integrationName: IdSchema('integrationName') });
const EventParams = IntegrationParams.extend({ eventId: IdSchema('eventId') });
/** Who may read an integration's events: the admins of the organization that publishes it, and the integration's own token. */
const WHO = "Admins of the organization that publishes the integration, and the integration's own token.";

const listEventsRoute = defineRoute('get', '/integrations/{integrationName}/events', () => ({
  operationId: 'listIntegrationEvents',
  tags,
  summary: 'List all integration events',
  description: `The events sent to the integration, newest first, with their delivery status. ${WHO}`,
  tokens: { integration: true },
  request: { params: IntegrationParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(IntegrationEventSchema, 'IntegrationEvents'), 'Paginated list of integration events') },
}));

const getEventRoute = defineRoute('get', '/integrations/{integrationName}/events/{eventId}', () => ({
  operationId: 'getIntegrationEvent',
  tags,
  summary: 'Get an integration event by its ID',
  description: `The event and its trace: every delivery attempt's lines. ${WHO}`,
  tokens: { integration: true },
  request: { params: EventParams },
  responses: { 200: jsonResponse(IntegrationEventWithTraceSchema, 'Integration event') },
}));

/** The id of the published integration of this name, as a subquery (its events are read in the same batch as its access). */
const integrationIdOf = (name: string) =>
  sql`(select ${integrations.id} from ${integrations} where ${integrations.name} = ${name} and ${integrations.deletedAt} is null)`;

export const integrationEventsRouter = createRouter()
  .openapi(listEventsRoute, async (c) => {
    const actor = c.get('actor');
    const { integrationName } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const ofIntegration = sql`${integrationEvents.integrationId} = ${integrationIdOf(integrationName)}`;
    // The integration with the caller's role, the page and the total: one round trip, access checked before answering.
    const [found, rows, [{ total }]] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      db
        .select()
        .from(integrationEvents)
        .where(and(ofIntegration, beforeCursor(textCursor(cursor), integrationEvents.createdAt, integrationEvents.id)))
        .orderBy(desc(integrationEvents.createdAt), desc(integrationEvents.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(integrationEvents).where(ofIntegration),
    ]);
    const { access } = requireIntegration(actor, found[0]);
    requireIntegrationAdmin(access);
    const { api } = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(rows, limit, total, (row) => [row.createdAt, row.id], (row) => toIntegrationEvent(row, api)),
      200,
    );
  })
  .openapi(getEventRoute, async (c) => {
    const actor = c.get('actor');
    const { integrationName, eventId } = c.req.valid('param');
    const db = c.get('db');
    const [found, [event], logs] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      db
        .select()
        .from(integrationEvents)
        .where(and(eq(integrationEvents.id, eventId), sql`${integrationEvents.integrationId} = ${integrationIdOf(integrationName)}`)),
      // Read with the event, answered only when the event is this integration's.
      db
        .select({ level: integrationEventLogs.level, message: integrationEventLogs.message, timestamp: integrationEventLogs.timestamp })
        .from(integrationEventLogs)
        .where(eq(integrationEventLogs.eventId, eventId))
        .orderBy(integrationEventLogs.id),
    ]);
    const { access } = requireIntegration(actor, found[0]);
    requireIntegrationAdmin(access);
    if (!event) throw new ApiError(404, 'No matching event for this integration');
    const { api } = urlContext(c.req.url, c.env.APP_URL);
    return c.json({ event: toIntegrationEvent(event, api), trace: toIntegrationEventTrace(logs) }, 200);
  });
