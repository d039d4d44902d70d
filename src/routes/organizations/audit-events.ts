import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { decodeCursor, textCursor, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { AuditEventActionSchema, AuditEventDetailsSchema, AuditEventSchema, toAuditEvent, toAuditEventDetails } from '../../schemas/audit-event';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { auditEventQuery, auditEventsCountQuery, auditEventsPageQuery } from '../../services/audit/events';
import { restoredPayload } from '../../services/audit/payload';
import { actionLabel, AUDIT_ACTIONS } from '../../services/audit/operations';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';

const tags = ['Organization audit log'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const EventParams = OrgParams.extend({ auditEventId: IdSchema('auditEventId').openapi({ description: 'Unique identifier of the audit event' }) });

export const AUDIT_PAGE_SIZE = 20;
export const MAX_AUDIT_PAGE_SIZE = 100;

const dateTime = (description: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time, such as 2026-01-31T09:30:00Z' })
    // Stored times are UTC with milliseconds: an instant given with an offset compares as the same instant.
    .transform((value) => new Date(value).toISOString())
    .optional()
    .openapi({ description, format: 'date-time' });
const exact = (description: string) => z.string().min(1).max(256).optional().openapi({ description });

const ListAuditEventsQuery = z.object({
  page: z.string().max(1024).optional().openapi({ description: 'Identifier of the page results to fetch (the `next.page` of the previous page).' }),
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE_SIZE).optional().openapi({ description: `Number of events to return, up to ${MAX_AUDIT_PAGE_SIZE} (default ${AUDIT_PAGE_SIZE})` }),
  from: dateTime('Include events occurring at or after this time'),
  to: dateTime('Include events occurring at or before this time'),
  action: exact('Filter by an exact audit action name'),
  actor: exact('Filter by an exact stable actor identifier'),
  target: exact('Filter by an exact stable target identifier'),
});

const listAuditEventsRoute = defineRoute('get', '/orgs/{organizationId}/audit-events', () => ({
  operationId: 'listOrganizationAuditEvents',
  tags,
  summary: "List the organization's audit events, newest first (admins)",
  description:
    "Every state-changing operation of the organization, recorded with the change itself: who (actor), what (action, target), when (occurredAt) and from where (source; the details' payload holds the coarsened address and user agent). Kept for the retention period of the Handbook's audit log guide.",
  request: { params: OrgParams, query: ListAuditEventsQuery },
  responses: { 200: jsonResponse(listOf(AuditEventSchema, 'AuditEvents'), 'Paginated audit events') },
}));

const getAuditEventRoute = defineRoute('get', '/orgs/{organizationId}/audit-events/{auditEventId}', () => ({
  operationId: 'getOrganizationAuditEvent',
  tags,
  summary: 'Get an audit event of the organization with its payload (admins)',
  request: { params: EventParams },
  responses: { 200: jsonResponse(AuditEventDetailsSchema, 'The audit event') },
}));

const listAuditEventActionsRoute = defineRoute('get', '/orgs/{organizationId}/audit-event-actions', () => ({
  operationId: 'listOrganizationAuditEventActions',
  tags,
  summary: 'List the actions the audit log records (admins)',
  request: { params: OrgParams },
  responses: { 200: jsonResponse(z.object({ items: z.array(AuditEventActionSchema) }).openapi('AuditEventActions'), 'Supported audit event actions') },
}));

const ACTIONS = AUDIT_ACTIONS.map((id) => ({ object: 'audit-event-action' as const, id, label: actionLabel(id) }));

export const auditEventsRouter = createRouter()
  .openapi(listAuditEventsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { page, limit: given, ...filters } = c.req.valid('query');
    const cursor = textCursor(decodeCursor(page));
    const limit = given ?? AUDIT_PAGE_SIZE;
    const db = c.get('db');
    // The admin check, the page and its count in one round trip; nothing of the page is used before the check.
    const [orgRows, rows, counted] = await db.batch([
      organizationQuery(db, organizationId, userId),
      auditEventsPageQuery(db, organizationId, filters, cursor, limit),
      auditEventsCountQuery(db, organizationId, filters),
    ]);
    checkOrganizationRole(orgRows, RANK.admin);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, counted[0]?.total ?? 0, (r) => [r.occurredAt, r.id], (r) => toAuditEvent(r, urls)), 200);
  })
  .openapi(getAuditEventRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, auditEventId } = c.req.valid('param');
    const db = c.get('db');
    const [orgRows, rows] = await db.batch([organizationQuery(db, organizationId, userId), auditEventQuery(db, organizationId, auditEventId)]);
    checkOrganizationRole(orgRows, RANK.admin);
    if (!rows[0]) throw new ApiError(404, 'Audit event not found');
    // Stored without what its action gives: the payload the request made is put back.
    const event = { ...rows[0], payload: restoredPayload(rows[0].action, rows[0].payload, rows[0].targetId) };
    return c.json(toAuditEventDetails(event, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(listAuditEventActionsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    checkOrganizationRole(await organizationQuery(db, organizationId, userId).all(), RANK.admin);
    return c.json({ items: ACTIONS }, 200);
  });
