import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { and, eq } from 'drizzle-orm';
import { runBatch, type BatchItem } from '../../db/client';
import { integrationSpaceInstallations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, pageParams } from '../../lib/pagination';
import { nowIso } from '../../lib/time';
import { booleanQuery, IdSchema, listOf, urlContext } from '../../schemas/common';
import {
  contentInstallationState,
  IntegrationSpaceInstallationSchema,
  toSpaceInstallation,
  UpdateIntegrationSpaceInstallationSchema,
  type SpaceInstallationRow,
} from '../../schemas/integration-installation';
import { toSpace } from '../../schemas/space';
import { integrationByNameQuery, requireIntegration } from '../../services/integrations/access';
import { defaultConfiguration, validateConfiguration } from '../../services/integrations/configuration';
import { enqueueEvents, installationExists, spaceInstallationExists } from '../../services/integrations/events';
import {
  assertTarget,
  coveragePage,
  installationCaller,
  installationEvent,
  installationFrom,
  installationQuery,
  previousState,
  requireSpaceTarget,
  requireVisible,
  spaceCoverageQueries,
  spaceTargetQuery,
  type InstallationQueryRow,
  type LoadedInstallation,
  type SpaceCoverageRow,
  type SpaceTargetRow,
  refuseWidening,
} from '../../services/integrations/installations';
import { isUniqueViolation } from '../../services/organizations';
import { ExternalIdQuery, InstallationParams, IntegrationParams } from './installations';

const tags = ['Integrations'];
const SpaceInstallationParams = InstallationParams.extend({ spaceId: IdSchema('spaceId') });
const ExtendedQuery = z.object({ extended: booleanQuery(false, 'true: each item carries the space object instead of its id') });
const tokens = { integration: true, scope: 'installation' } as const;
const SpaceInstallationsSchema = listOf(IntegrationSpaceInstallationSchema, 'IntegrationSpaceInstallations');

const listSpaceInstallationsRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/spaces',
  operationId: 'listIntegrationSpaceInstallations',
  tokens,
  tags,
  summary: 'List the spaces the installations of an integration cover (those of the installations the caller may see)',
  description: 'An installation that selects all the spaces of its organization covers each of its live spaces; the others cover the spaces they were installed on.',
  request: { params: IntegrationParams, query: ListQuerySchema.merge(ExternalIdQuery).merge(ExtendedQuery) },
  responses: { 200: jsonResponse(SpaceInstallationsSchema, 'The space installations') },
});

const listInstallationSpacesRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/installations/{installationId}/spaces',
  operationId: 'listIntegrationInstallationSpaces',
  tokens,
  tags,
  summary: 'List the spaces an installation covers',
  request: { params: InstallationParams, query: ListQuerySchema.merge(ExternalIdQuery).merge(ExtendedQuery) },
  responses: { 200: jsonResponse(SpaceInstallationsSchema, 'The space installations') },
});

const installOnSpaceRoute = defineRoute({
  method: 'post',
  path: '/integrations/{integrationName}/installations/{installationId}/spaces',
  operationId: 'installIntegrationOnSpace',
  tokens,
  tags,
  summary: "Install an integration on a space of its installation's organization (the space's admins, the integration and the installation)",
  request: {
    params: InstallationParams,
    query: ExtendedQuery,
    ...jsonBody(z.object({ space: z.string().min(1).max(128).openapi({ description: 'The id of the space to install the integration on' }) })),
  },
  responses: { 201: jsonResponse(IntegrationSpaceInstallationSchema, 'Installed on the space') },
});

const getSpaceInstallationRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}',
  operationId: 'getIntegrationSpaceInstallation',
  tokens,
  tags,
  summary: 'Get the installation of an integration on a space',
  request: { params: SpaceInstallationParams, query: ExtendedQuery },
  responses: { 200: jsonResponse(IntegrationSpaceInstallationSchema, 'The space installation') },
});

const updateSpaceInstallationRoute = defineRoute({
  method: 'patch',
  path: '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}',
  operationId: 'updateIntegrationSpaceInstallation',
  tokens,
  tags,
  summary: "Change the configuration or external ids of an integration's installation on a space (the space's admins, the integration and the installation)",
  description: 'A change of the configuration sends the integration a `space_installation_setup` event with the previous state.',
  request: { params: SpaceInstallationParams, query: ExtendedQuery, ...jsonBody(UpdateIntegrationSpaceInstallationSchema) },
  responses: { 200: jsonResponse(IntegrationSpaceInstallationSchema, 'The space installation') },
});

const uninstallFromSpaceRoute = defineRoute({
  method: 'delete',
  path: '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}',
  operationId: 'uninstallIntegrationFromSpace',
  tokens,
  tags,
  summary: "Uninstall an integration from a space (the space's admins, the integration and the installation)",
  description: 'An installation that selects all the spaces of its organization covers them all: set its space_selection to selected first (400).',
  request: { params: SpaceInstallationParams },
  responses: { 204: noContent('Uninstalled from the space, or was not installed on it') },
});

/** The installation and the space of a route, in one batch (with `extra` statements). */
async function loadSpaceInstallation(c: Context<AppBindings>, name: string, installationId: string, spaceId: string) {
  const actor = installationCaller(c);
  const db = c.get('db');
  const [installationRows, spaceRows] = (await runBatch(db, [
    installationQuery(db, name, installationId, actor),
    spaceTargetQuery(db, installationId, spaceId, actor),
  ] as BatchItem[])) as [InstallationQueryRow[], SpaceTargetRow[]];
  const loaded = installationFrom(actor, installationRows);
  const target = requireSpaceTarget(actor, loaded, spaceRows);
  return { actor, db, loaded, target };
}

function presentSpaceInstallation(loaded: LoadedInstallation, spaceId: string, own: SpaceInstallationRow | null, space: Parameters<typeof toSpace>[0] | null, rank: number, urls: ReturnType<typeof urlContext>) {
  return toSpaceInstallation(
    loaded.integration.name,
    loaded.installation.id,
    spaceId,
    contentInstallationState(loaded.installation, own, defaultConfiguration(loaded.integration.configurations, 'space')),
    space ? toSpace(space, rank, urls) : null,
    urls,
  );
}

export const integrationSpaceInstallationsRouter = createRouter()
  .openapi(listSpaceInstallationsRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const options = { name: integrationName, externalId: query.externalId, cursor, limit };
    const [integrationRows, selected, all, selectedTotal, allTotal] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      ...spaceCoverageQueries(db, actor, options, query.extended),
    ]);
    const found = integrationRows[0];
    if (!found) throw new ApiError(404, 'No matching integration');
    const page = coveragePage(
      [selected as SpaceCoverageRow[], all as SpaceCoverageRow[]],
      [selectedTotal, allTotal],
      limit,
      (r) => r.space.id,
      (r) => r,
    );
    if (page.count === 0) requireIntegration(actor, found);
    const defaults = defaultConfiguration(found.integration.configurations, 'space');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      {
        ...page,
        items: page.items.map((r) =>
          toSpaceInstallation(
            found.integration.name,
            r.installationId,
            r.space.id,
            contentInstallationState({ status: r.installationStatus }, r.own, defaults),
            query.extended ? toSpace(r.space, r.rank, urls) : null,
            urls,
          ),
        ),
      },
      200,
    );
  })
  .openapi(listInstallationSpacesRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName, installationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const options = { name: integrationName, installationId, externalId: query.externalId, cursor, limit };
    const [installationRows, selected, all, selectedTotal, allTotal] = await db.batch([
      installationQuery(db, integrationName, installationId, actor),
      ...spaceCoverageQueries(db, actor, options, query.extended),
    ]);
    const loaded = requireVisible(actor, installationRows as InstallationQueryRow[]);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const page = coveragePage(
      [selected as SpaceCoverageRow[], all as SpaceCoverageRow[]],
      [selectedTotal, allTotal],
      limit,
      (r) => r.space.id,
      (r) => presentSpaceInstallation(loaded, r.space.id, r.own, query.extended ? r.space : null, r.rank, urls),
    );
    return c.json(page, 200);
  })
  .openapi(installOnSpaceRoute, async (c) => {
    const { integrationName, installationId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const { space: spaceId } = c.req.valid('json');
    const { db, loaded, target } = await loadSpaceInstallation(c, integrationName, installationId, spaceId);
    if (!target.change) throw new ApiError(403, 'Only the admins of the space and the integration itself may install it on the space');
    refuseWidening(c.get('actor'), 'install its integration on another space');
    assertTarget(loaded.integration, 'space');
    if (target.covered) {
      const why = target.own ? '' : ' (the installation covers all the spaces of its organization)';
      throw new ApiError(409, `This integration is already installed on this space${why}`);
    }
    const now = nowIso();
    const row: SpaceInstallationRow = {
      installationId,
      spaceId,
      status: 'active',
      configuration: defaultConfiguration(loaded.integration.configurations, 'space'),
      externalIds: [],
      createdAt: now,
      updatedAt: now,
    };
    const event = installationEvent(db, loaded.installation, { type: 'space_installation_setup', spaceId, status: row.status }, now);
    try {
      await db.batch([db.insert(integrationSpaceInstallations).values(row), event.statement]);
    } catch (error) {
      // Installed by a concurrent request since the read.
      if (isUniqueViolation(error, 'integration_space_installations')) throw new ApiError(409, 'This integration is already installed on this space');
      throw error;
    }
    await enqueueEvents(c.env, [event.id]);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const created = presentSpaceInstallation(loaded, spaceId, row, extended ? target.space : null, target.rank, urls);
    c.header('Location', created.urls.location);
    return c.json(created, 201);
  })
  .openapi(getSpaceInstallationRoute, async (c) => {
    const { integrationName, installationId, spaceId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const { loaded, target } = await loadSpaceInstallation(c, integrationName, installationId, spaceId);
    if (!target.covered) throw new ApiError(404, 'This integration is not installed on this space');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(presentSpaceInstallation(loaded, spaceId, target.own, extended ? target.space : null, target.rank, urls), 200);
  })
  .openapi(updateSpaceInstallationRoute, async (c) => {
    const { integrationName, installationId, spaceId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const body = c.req.valid('json');
    const { actor, db, loaded, target } = await loadSpaceInstallation(c, integrationName, installationId, spaceId);
    if (!target.covered) throw new ApiError(404, 'This integration is not installed on this space');
    if (!target.change) throw new ApiError(403, 'Only the admins of the space and the integration itself may change its installation on the space');
    const before = contentInstallationState(loaded.installation, target.own, defaultConfiguration(loaded.integration.configurations, 'space'));
    const now = nowIso();
    const configuration =
      body.configuration === undefined
        ? before.configuration
        : validateConfiguration(loaded.integration.configurations, 'space', body.configuration, { strict: actor.kind === 'user' });
    const row: SpaceInstallationRow = {
      installationId,
      spaceId,
      status: before.status,
      configuration,
      externalIds: body.externalIds ?? before.externalIds,
      createdAt: target.own?.createdAt ?? now,
      updatedAt: now,
    };
    // Covered through `space_selection: all` without settings of its own yet: the row is created.
    const write = target.own
      ? db
          .update(integrationSpaceInstallations)
          .set({ configuration: row.configuration, externalIds: row.externalIds, updatedAt: now })
          .where(and(eq(integrationSpaceInstallations.installationId, installationId), eq(integrationSpaceInstallations.spaceId, spaceId)))
      : db
          .insert(integrationSpaceInstallations)
          .values(row)
          .onConflictDoUpdate({
            target: [integrationSpaceInstallations.installationId, integrationSpaceInstallations.spaceId],
            set: { configuration: row.configuration, externalIds: row.externalIds, updatedAt: now },
          });
    const event =
      body.configuration === undefined
        ? null
        : installationEvent(
            db,
            loaded.installation,
            { type: 'space_installation_setup', spaceId, status: row.status, previous: previousState(before.status, before.configuration) },
            now,
            installationExists(installationId),
          );
    await db.batch([write, ...(event ? [event.statement] : [])]);
    if (event) await enqueueEvents(c.env, [event.id]);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(presentSpaceInstallation(loaded, spaceId, row, extended ? target.space : null, target.rank, urls), 200);
  })
  .openapi(uninstallFromSpaceRoute, async (c) => {
    const { integrationName, installationId, spaceId } = c.req.valid('param');
    const { db, loaded, target } = await loadSpaceInstallation(c, integrationName, installationId, spaceId);
    if (!target.change) throw new ApiError(403, 'Only the admins of the space and the integration itself may uninstall it from the space');
    if (loaded.installation.spaceSelection === 'all') {
      throw new ApiError(400, 'This installation covers all the spaces of its organization: set its space_selection to selected first');
    }
    if (!target.own) return c.body(null, 204);
    const event = installationEvent(
      db,
      loaded.installation,
      { type: 'space_installation_deleted', spaceId, previous: { configuration: target.own.configuration } },
      nowIso(),
      spaceInstallationExists(installationId, spaceId),
    );
    // Recorded first, and only if the space installation is still there: a concurrent uninstall records one event.
    const [, deleted] = await db.batch([
      event.statement,
      db
        .delete(integrationSpaceInstallations)
        .where(and(eq(integrationSpaceInstallations.installationId, installationId), eq(integrationSpaceInstallations.spaceId, spaceId)))
        .returning({ spaceId: integrationSpaceInstallations.spaceId }),
    ]);
    if (deleted.length > 0) await enqueueEvents(c.env, [event.id]);
    return c.body(null, 204);
  });
