import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { integrationInstallations, integrations, organizations, users } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { assertWithinCap } from '../../services/limits/caps';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { describeAuditEvent } from '../../services/audit/context';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { IntegrationSchema } from '../../schemas/integration';
import {
  CreatedIntegrationInstallationSchema,
  IntegrationInstallationSchema,
  InstallationTokenSchema,
  UpdateIntegrationInstallationSchema,
  toInstallation,
  type InstallationRow,
} from '../../schemas/integration-installation';
import { orgRoleSql } from '../../services/access/access';
import { botUserValues, integrationByNameQuery, requireIntegration, type IntegrationRow } from '../../services/integrations/access';
import { defaultConfiguration, validateConfiguration } from '../../services/integrations/configuration';
import { encryptSecret, newSigningSecret } from '../../services/integrations/crypto';
import { enqueueEvents, installationExists } from '../../services/integrations/events';
import {
  coveredSpacesSql,
  installationCaller,
  installationEvent,
  installationFrom,
  installationNotFound,
  installationQuery,
  unpublishedInstallationsQuery,
  integrationIdByNameSql,
  prefixedColumns,
  previousState,
  requireChange,
  requireVisible,
  visibleInstallationsSql,
  type InstallationQueryRow,
  approveScopes,
  refuseWidening,
  widensSelection,
} from '../../services/integrations/installations';
import { presentIntegrations } from '../../services/integrations/registry';
import { spaceRoleForScopes } from '../../services/integrations/scopes';
import { cspGrants } from '../../services/integrations/site-scripts';
import { newIntegrationToken } from '../../services/integrations/tokens';
import { checkOrganizationRole, isUniqueViolation, organizationQuery, type OrganizationRow } from '../../services/organizations/organizations';

import { ExternalIdQuery, InstallationParams, IntegrationParams } from './params';

const tags = ['Integrations'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });

const installIntegrationRoute = defineRoute('post', '/integrations/{integrationName}/installations', () => ({
  operationId: 'installIntegration',
  tags,
  summary: 'Install an integration on an organization, or approve the scopes it now asks for (its admins)',
  description:
    'The answer carries `signingSecret`, the secret that signs the HTTP deliveries of its events: it is shown only here, once. An integration is installed at most once per organization (409); its spaces and sites are added to the installation afterwards. ' +
    'Installing approves the scopes the integration asks for now. A later version asking for more leaves the installation `pending` (its tokens keep only the approved scopes) until an admin of the organization installs it again: that approves what the integration asks for now and answers the installation, active again, without its signing secret (409 when nothing waits for approval).',
  request: {
    params: IntegrationParams,
    ...jsonBody(z.object({ organization: z.string().min(1).max(128).openapi({ description: 'The id of the organization to install it on' }) }).openapi('OrganizationTarget')),
  },
  responses: {
    201: jsonResponse(CreatedIntegrationInstallationSchema, 'Installed (the signing secret is shown only in this response), or a pending installation approved'),
  },
}));

const listInstallationsRoute = defineRoute('get', '/integrations/{integrationName}/installations', () => ({
  operationId: 'listIntegrationInstallations',
  tokens: { integration: true, scope: 'installation' },
  tags,
  summary: "List an integration's installations: all of them for its admins and its token, its own for an installation token, those of the organizations they administer for others",
  request: { params: IntegrationParams, query: ListQuerySchema.merge(ExternalIdQuery) },
  responses: { 200: jsonResponse(listOf(IntegrationInstallationSchema, 'IntegrationInstallations'), 'The installations') },
}));

const getInstallationRoute = defineRoute('get', '/integrations/{integrationName}/installations/{installationId}', () => ({
  operationId: 'getIntegrationInstallationById',
  tokens: { integration: true, scope: 'installation' },
  tags,
  summary: 'Get an installation (the admins of its organization or of the integration, the integration and the installation)',
  request: { params: InstallationParams },
  responses: { 200: jsonResponse(IntegrationInstallationSchema, 'The installation') },
}));

const updateInstallationRoute = defineRoute('patch', '/integrations/{integrationName}/installations/{installationId}', () => ({
  operationId: 'updateIntegrationInstallation',
  tokens: { integration: true, scope: 'installation' },
  tags,
  summary: "Change an installation's configuration, external ids or space and site selection (the admins of its organization, the integration and the installation)",
  description:
    'A change of the configuration or of a selection sends the integration an `installation_setup` event with the previous state; a change of the external ids alone sends none. ' +
    "Only the admins of the installing organization select all spaces or sites: the integration's own token and installation tokens may select fewer, never more (403).",
  request: { params: InstallationParams, ...jsonBody(UpdateIntegrationInstallationSchema) },
  responses: { 200: jsonResponse(IntegrationInstallationSchema, 'The installation') },
}));

const uninstallRoute = defineRoute('delete', '/integrations/{integrationName}/installations/{installationId}', () => ({
  operationId: 'uninstallIntegration',
  tags,
  summary: 'Uninstall an integration from an organization (its admins): its space and site installations and tokens go with it',
  request: { params: InstallationParams },
  responses: { 204: noContent('Uninstalled, or was not installed') },
}));

const createTokenRoute = defineRoute('post', '/integrations/{integrationName}/installations/{installationId}/tokens', () => ({
  operationId: 'createIntegrationInstallationToken',
  tokens: { integration: true },
  tags,
  summary: 'Issue a temporary token acting as an installation (the integration and the admins of its organization)',
  request: { params: InstallationParams },
  responses: { 200: jsonResponse(InstallationTokenSchema, 'The token, valid for an hour') },
}));

const OrganizationInstallationSchema = z
  .object({ installation: IntegrationInstallationSchema, integration: IntegrationSchema })
  .openapi('OrganizationIntegrationInstallation');

const listOrganizationInstallationsRoute = defineRoute('get', '/orgs/{organizationId}/installations', () => ({
  operationId: 'listOrganizationInstallations',
  tags,
  summary: "List an organization's installations with their integrations (its admins)",
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({ search: textFilterQuery("Only integrations whose name or title contains this (case-insensitive)") }),
  },
  responses: { 200: jsonResponse(listOf(OrganizationInstallationSchema, 'OrganizationIntegrationInstallations'), 'The installations') },
}));

/** The installation as it stands after `changes`. */
const changed = (row: InstallationRow, changes: Partial<InstallationRow>): InstallationRow => ({ ...row, ...changes });

/**
 * Installing an integration again is how an admin of the organization approves the scopes and the
 * Content-Security-Policy sources it asks for beyond what its installation approved (`pending`): the
 * installation as it stands once approved.
 */
async function approvePending(c: Context<AppBindings>, integration: IntegrationRow, installation: InstallationRow, spaces: number) {
  if (installation.status !== 'pending') {
    throw new ApiError(409, `This integration is already installed on this organization (installation ${installation.id}), and nothing it asks for (scopes, Content-Security-Policy sources) waits for approval`);
  }
  const db = c.get('db');
  const approval = approveScopes(db, integration, installation, nowIso());
  const [, updated] = await db.batch([approval.event.statement, approval.update]);
  if (!updated[0]) throw new ApiError(409, 'The integration was published again, or the installation changed, while this approval was on its way: look at it again and approve what it asks for now');
  await enqueueEvents(c.env, [approval.event.id]);
  return toInstallation(changed(installation, approval.approved), integration.name, spaces, urlContext(c.req.url, c.env.APP_URL));
}

export const integrationInstallationsRouter = createRouter()
  .openapi(installIntegrationRoute, async (c) => {
    const actor = c.get('actor');
    const userId = requireUser(c);
    const { integrationName } = c.req.valid('param');
    const { organization: orgId } = c.req.valid('json');
    const db = c.get('db');
    const [integrationRows, orgRows, existing] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      organizationQuery(db, orgId, userId),
      db
        .select({ installation: integrationInstallations, spaces: coveredSpacesSql })
        .from(integrationInstallations)
        .where(and(sql`${integrationInstallations.integrationId} = ${integrationIdByNameSql(integrationName)}`, eq(integrationInstallations.orgId, orgId))),
    ]);
    const current = existing[0];
    // The admins of an organization see what is installed on it (private integrations too): they may approve it.
    const adminHere = orgRows[0]?.rank === RANK.admin;
    const { integration } = current && adminHere && integrationRows[0] ? integrationRows[0] : requireIntegration(actor, integrationRows[0]);
    const { org } = checkOrganizationRole(orgRows, RANK.admin);
    // The installing organization's log (the path names the integration, which another organization publishes).
    describeAuditEvent(c, { organizationId: orgId, target: { type: 'integration', id: integrationName, label: integration.title } });
    if (current) {
      const approved = await approvePending(c, integration, current.installation, current.spaces);
      c.header('Location', approved.urls.location);
      return c.json(approved, 201);
    }
    // Every target admits an organization installation: space and site installations hang off it.
    if (!['all', 'organization', 'space', 'site'].includes(integration.target)) {
      throw new ApiError(400, `This integration cannot be installed (its target is ${integration.target})`);
    }
    const alreadyInstalled = (id: string) => new ApiError(409, `This integration is already installed on this organization (installation ${id})`);
    assertWithinCap(c.env, 'installationsPerOrganization', org.installationCount);

    const now = nowIso();
    const signingSecret = newSigningSecret();
    const row: InstallationRow = {
      id: newId(),
      botUserId: newId(),
      integrationId: integration.id,
      orgId,
      status: 'active',
      spaceSelection: 'selected',
      siteSelection: 'selected',
      spaceRole: spaceRoleForScopes(integration.scopes),
      // Installing is the organization's consent to what the integration asks for now.
      approvedScopes: integration.scopes,
      approvedCsp: cspGrants(integration.contentSecurityPolicy),
      configuration: defaultConfiguration(integration.configurations, 'account'),
      externalIds: [],
      signingSecret: await encryptSecret(c.env, signingSecret),
      createdAt: now,
      updatedAt: now,
    };
    const event = installationEvent(db, row, { type: 'installation_setup', status: 'active' }, now);
    try {
      // The installation's own bot user: its tokens act as it, and only through this installation.
      await db.batch([db.insert(users).values(botUserValues(row.botUserId, integration.title, now)), db.insert(integrationInstallations).values(row), event.statement]);
    } catch (error) {
      if (!isUniqueViolation(error, 'integration_installations')) throw error;
      // Installed by a concurrent request since the read above.
      const other = await db
        .select({ id: integrationInstallations.id })
        .from(integrationInstallations)
        .where(and(eq(integrationInstallations.integrationId, integration.id), eq(integrationInstallations.orgId, orgId)))
        .get();
      throw alreadyInstalled(other?.id ?? 'unknown');
    }
    await enqueueEvents(c.env, [event.id]);
    const installation = toInstallation(row, integration.name, 0, urlContext(c.req.url, c.env.APP_URL));
    c.header('Location', installation.urls.location);
    return c.json({ ...installation, signingSecret }, 201);
  })
  .openapi(listInstallationsRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const where = and(
      sql`${integrationInstallations.integrationId} = ${integrationIdByNameSql(integrationName)}`,
      visibleInstallationsSql(actor),
      query.externalId === undefined
        ? undefined
        : sql`exists (select 1 from json_each(${integrationInstallations.externalIds}) where json_each.value = ${query.externalId})`,
    );
    const [integrationRows, rows, [{ total }]] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      db
        .select({ installation: integrationInstallations, spaces: coveredSpacesSql })
        .from(integrationInstallations)
        .where(and(where, afterCursor(cursor, integrationInstallations.createdAt, integrationInstallations.id)))
        .orderBy(...keysetOrder(integrationInstallations.createdAt, integrationInstallations.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(integrationInstallations).where(where),
    ]);
    const found = integrationRows[0];
    if (!found) throw new ApiError(404, 'No matching integration');
    // A private integration is seen by the members of its owner, and by the admins of the organizations it is installed on.
    if (total === 0) requireIntegration(actor, found);
    const name = found.integration.name;
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.installation.createdAt, r.installation.id], (r) => toInstallation(r.installation, name, r.spaces, urls)), 200);
  })
  .openapi(getInstallationRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName, installationId } = c.req.valid('param');
    const db = c.get('db');
    const rows = (await installationQuery(db, integrationName, installationId, actor)) as InstallationQueryRow[];
    const { integration, installation, spaces } = requireVisible(actor, rows);
    return c.json(toInstallation(installation, integration.name, spaces, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateInstallationRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName, installationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const rows = (await installationQuery(db, integrationName, installationId, actor)) as InstallationQueryRow[];
    const { integration, installation, rights, spaces } = requireVisible(actor, rows);
    requireChange(rights);
    if (widensSelection(installation.spaceSelection, body.space_selection)) refuseWidening(actor, 'select all the spaces of the organization');
    if (widensSelection(installation.siteSelection, body.site_selection)) refuseWidening(actor, 'select all the sites of the organization');
    const now = nowIso();
    const changes: Partial<InstallationRow> = { updatedAt: now };
    if (body.externalIds !== undefined) changes.externalIds = body.externalIds;
    if (body.configuration !== undefined) {
      changes.configuration = validateConfiguration(integration.configurations, 'account', body.configuration, { strict: actor.kind === 'user' });
    }
    if (body.space_selection !== undefined) changes.spaceSelection = body.space_selection;
    if (body.site_selection !== undefined) changes.siteSelection = body.site_selection;
    const after = changed(installation, changes);
    // External ids are the integration's own bookkeeping: changing only them is no setup change (and an
    // integration that records them when it receives installation_setup would otherwise never stop).
    const setupChanged = body.configuration !== undefined || body.space_selection !== undefined || body.site_selection !== undefined;
    const event = setupChanged
      ? installationEvent(
          db,
          installation,
          { type: 'installation_setup', status: after.status, previous: previousState(installation.status, installation.configuration) },
          now,
          installationExists(installation.id),
        )
      : null;
    const [updated, coverage] = await db.batch([
      db.update(integrationInstallations).set(changes).where(eq(integrationInstallations.id, installation.id)).returning({ id: integrationInstallations.id }),
      db.select({ spaces: coveredSpacesSql }).from(integrationInstallations).where(eq(integrationInstallations.id, installation.id)),
      ...(event ? [event.statement] : []),
    ]);
    if (!updated[0]) throw installationNotFound();
    if (event) await enqueueEvents(c.env, [event.id]);
    return c.json(toInstallation(after, integration.name, coverage[0]?.spaces ?? spaces, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(uninstallRoute, async (c) => {
    const actor = installationCaller(c);
    requireUser(c);
    const { integrationName, installationId } = c.req.valid('param');
    const db = c.get('db');
    const rows = (await installationQuery(db, integrationName, installationId, actor)) as InstallationQueryRow[];
    if (!rows[0]) throw new ApiError(404, 'No matching integration');
    if (!rows[0].installation) return c.body(null, 204);
    const { installation, rights } = requireVisible(actor, rows);
    if (!rights.orgAdmin) throw new ApiError(403, "Only the installing organization's admins may uninstall an integration");
    const event = installationEvent(db, installation, { type: 'installation_deleted', previous: { configuration: installation.configuration } }, nowIso(), installationExists(installation.id));
    // The event row outlives the installation (no foreign key): it is delivered after the installation is gone.
    // Recorded first, and only if the installation is still there: a concurrent uninstall records one event.
    const [, deleted] = await db.batch([
      event.statement,
      db.delete(integrationInstallations).where(eq(integrationInstallations.id, installation.id)).returning({ id: integrationInstallations.id }),
    ]);
    if (deleted.length > 0) await enqueueEvents(c.env, [event.id]);
    return c.body(null, 204);
  })
  .openapi(createTokenRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName, installationId } = c.req.valid('param');
    const db = c.get('db');
    const rows = (await installationQuery(db, integrationName, installationId, actor)) as InstallationQueryRow[];
    const { integration, installation, access, rights } = installationFrom(actor, rows);
    if (!rights.view) throw installationNotFound();
    if (!access.admin) throw new ApiError(403, 'Only the integration and the admins of the organization that publishes it may issue installation tokens');
    const { token, expiresAt, insert } = await newIntegrationToken(db, integration.id, installation.id);
    await insert;
    return c.json({ token, expiresAt }, 200);
  })
  .openapi(listOrganizationInstallationsRoute, async (c) => {
    const actor = c.get('actor');
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const search = query.search ? sql`(${containsText(integrations.title, query.search)} or ${containsText(integrations.name, query.search)})` : undefined;
    const where = and(eq(integrationInstallations.orgId, organizationId), isNull(integrations.deletedAt), search);
    const [orgRows, rows, counted] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db
        .select({
          installation: integrationInstallations,
          spaces: coveredSpacesSql.as('covered_spaces'),
          integration: prefixedColumns(integrations, 'i'),
          owner: prefixedColumns(organizations, 'o'),
          ownerRank: orgRoleSql(integrations.ownerOrgId, userId).as('owner_rank'),
        })
        .from(integrationInstallations)
        .innerJoin(integrations, eq(integrations.id, integrationInstallations.integrationId))
        .innerJoin(organizations, eq(organizations.id, integrations.ownerOrgId))
        .where(and(where, afterCursor(cursor, integrationInstallations.createdAt, integrationInstallations.id)))
        .orderBy(...keysetOrder(integrationInstallations.createdAt, integrationInstallations.id))
        .limit(limit + 1),
      // Without a search, counted from the organization's counter (less any installation of an unpublished
      // integration), not over every installation; a search is a filter the rows must be read for.
      search
        ? db.select({ total: count() }).from(integrationInstallations).innerJoin(integrations, eq(integrations.id, integrationInstallations.integrationId)).where(where)
        : unpublishedInstallationsQuery(db, organizationId),
    ]);
    const { org } = checkOrganizationRole(orgRows, RANK.admin);
    const total = search ? counted[0].total : org.installationCount - counted[0].total;
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const pageRows = rows.slice(0, limit);
    const presented = await presentIntegrations(
      c.env,
      new URL(c.req.url).origin,
      urls,
      actor,
      pageRows.map((r) => ({ integration: r.integration, owner: r.owner as OrganizationRow, ownerRank: r.ownerRank })),
    );
    const integrationOf = new Map(pageRows.map((r, i) => [r.installation.id, presented[i]]));
    return c.json(
      toPage(rows, limit, total, (r) => [r.installation.createdAt, r.installation.id], (r) => ({
        installation: toInstallation(r.installation, r.integration.name, r.spaces, urls),
        integration: integrationOf.get(r.installation.id)!,
      })),
      200,
    );
  });
