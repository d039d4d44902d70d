import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { and, eq } from 'drizzle-orm';
import { runBatch, type BatchItem } from '../../db/client';
import { integrationSiteInstallations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, pageParams } from '../../lib/pagination';
import { nowIso } from '../../lib/time';
import { booleanQuery, IdSchema, listOf } from '../../schemas/common';
import {
  contentInstallationState,
  IntegrationSiteInstallationSchema,
  toSiteInstallation,
  UpdateIntegrationSiteInstallationSchema,
  type SiteInstallationRow,
} from '../../schemas/integration-installation';
import type { SiteRow } from '../../services/sites/model';
import { siteUrlContext, toSite, type SiteUrls } from '../../services/sites/present';
import { integrationByNameQuery, requireIntegration } from '../../services/integrations/access';
import { defaultConfiguration, validateConfiguration } from '../../services/integrations/configuration';
import { enqueueEvents, installationExists, siteInstallationExists } from '../../services/integrations/events';
import {
  assertTarget,
  coveragePage,
  installationCaller,
  installationEvent,
  installationFrom,
  installationQuery,
  previousState,
  requireSiteTarget,
  requireVisible,
  siteCoverageQueries,
  siteTargetQuery,
  type InstallationQueryRow,
  type LoadedInstallation,
  type SiteCoverageRow,
  type SiteTargetRow,
  refuseWidening,
} from '../../services/integrations/installations';
import { isUniqueViolation } from '../../services/organizations';
import { ExternalIdQuery, InstallationParams, IntegrationParams } from './installations';

const tags = ['Integrations'];
const SiteInstallationParams = InstallationParams.extend({ siteId: IdSchema('siteId') });
const ExtendedQuery = z.object({ extended: booleanQuery(false, 'true: each item carries the site object instead of its id') });
const tokens = { integration: true, scope: 'installation' } as const;
const SiteInstallationsSchema = listOf(IntegrationSiteInstallationSchema, 'IntegrationSiteInstallations');

const listSiteInstallationsRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/sites',
  operationId: 'listIntegrationSiteInstallations',
  tokens: { integration: true },
  tags,
  summary: 'List the sites the installations of an integration cover (those of the installations the caller may see)',
  description: 'An installation that selects all the sites of its organization covers each of them; the others cover the sites they were installed on.',
  request: { params: IntegrationParams, query: ListQuerySchema.merge(ExternalIdQuery).merge(ExtendedQuery) },
  responses: { 200: jsonResponse(SiteInstallationsSchema, 'The site installations') },
});

const listInstallationSitesRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/installations/{installationId}/sites',
  operationId: 'listIntegrationInstallationSites',
  tokens,
  tags,
  summary: 'List the sites an installation covers',
  request: { params: InstallationParams, query: ListQuerySchema.merge(ExternalIdQuery).merge(ExtendedQuery) },
  responses: { 200: jsonResponse(SiteInstallationsSchema, 'The site installations') },
});

const installOnSiteRoute = defineRoute({
  method: 'post',
  path: '/integrations/{integrationName}/installations/{installationId}/sites',
  operationId: 'installIntegrationOnSite',
  tokens,
  tags,
  summary: "Install an integration on a site of its installation's organization (the organization's admins, the integration and the installation)",
  request: {
    params: InstallationParams,
    query: ExtendedQuery,
    ...jsonBody(z.object({ siteId: z.string().min(1).max(128).openapi({ description: 'The id of the site to install the integration on' }) })),
  },
  responses: { 201: jsonResponse(IntegrationSiteInstallationSchema, 'Installed on the site') },
});

const getSiteInstallationRoute = defineRoute({
  method: 'get',
  path: '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}',
  operationId: 'getIntegrationSiteInstallation',
  tokens,
  tags,
  summary: 'Get the installation of an integration on a site',
  request: { params: SiteInstallationParams, query: ExtendedQuery },
  responses: { 200: jsonResponse(IntegrationSiteInstallationSchema, 'The site installation') },
});

const updateSiteInstallationRoute = defineRoute({
  method: 'patch',
  path: '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}',
  operationId: 'updateIntegrationSiteInstallation',
  tokens,
  tags,
  summary: "Change the configuration or external ids of an integration's installation on a site (the organization's admins, the integration and the installation)",
  description: 'A change of the configuration sends the integration a `site_installation_setup` event with the previous state.',
  request: { params: SiteInstallationParams, query: ExtendedQuery, ...jsonBody(UpdateIntegrationSiteInstallationSchema) },
  responses: { 200: jsonResponse(IntegrationSiteInstallationSchema, 'The site installation') },
});

const uninstallFromSiteRoute = defineRoute({
  method: 'delete',
  path: '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}',
  operationId: 'uninstallIntegrationFromSite',
  tokens,
  tags,
  summary: "Uninstall an integration from a site (the organization's admins, the integration and the installation)",
  description: 'An installation that selects all the sites of its organization covers them all: set its site_selection to selected first (400).',
  request: { params: SiteInstallationParams },
  responses: { 204: noContent('Uninstalled from the site, or was not installed on it') },
});

/** The installation and the site of a route, in one batch. */
async function loadSiteInstallation(c: Context<AppBindings>, name: string, installationId: string, siteId: string) {
  const actor = installationCaller(c);
  const db = c.get('db');
  const [installationRows, siteRows] = (await runBatch(db, [
    installationQuery(db, name, installationId, actor),
    siteTargetQuery(db, installationId, siteId),
  ] as BatchItem[])) as [InstallationQueryRow[], SiteTargetRow[]];
  const loaded = installationFrom(actor, installationRows);
  const target = requireSiteTarget(loaded, siteRows);
  return { actor, db, loaded, target };
}

function presentSiteInstallation(loaded: LoadedInstallation, siteId: string, own: SiteInstallationRow | null, site: { row: SiteRow; siteSpaces: number } | null, rank: number, urls: SiteUrls) {
  return toSiteInstallation(
    loaded.integration.name,
    loaded.installation.id,
    siteId,
    contentInstallationState(loaded.installation, own, defaultConfiguration(loaded.integration.configurations, 'site')),
    site ? toSite(site.row, site.siteSpaces, rank, urls) : null,
    urls,
  );
}

export const integrationSiteInstallationsRouter = createRouter()
  .openapi(listSiteInstallationsRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const options = { name: integrationName, externalId: query.externalId, cursor, limit };
    const [integrationRows, selected, all, selectedTotal, allTotal] = await db.batch([
      integrationByNameQuery(db, integrationName, actor),
      ...siteCoverageQueries(db, actor, options, query.extended),
    ]);
    const found = integrationRows[0];
    if (!found) throw new ApiError(404, 'No matching integration');
    const page = coveragePage(
      [selected as SiteCoverageRow[], all as SiteCoverageRow[]],
      [selectedTotal, allTotal],
      limit,
      (r) => r.site.id,
      (r) => r,
    );
    if (page.count === 0) requireIntegration(actor, found);
    const defaults = defaultConfiguration(found.integration.configurations, 'site');
    const urls = siteUrlContext(c);
    return c.json(
      {
        ...page,
        items: page.items.map((r) =>
          toSiteInstallation(
            found.integration.name,
            r.installationId,
            r.site.id,
            contentInstallationState({ status: r.installationStatus }, r.own, defaults),
            query.extended ? toSite(r.site, r.siteSpaces, r.rank ?? 0, urls) : null,
            urls,
          ),
        ),
      },
      200,
    );
  })
  .openapi(listInstallationSitesRoute, async (c) => {
    const actor = installationCaller(c);
    const { integrationName, installationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const options = { name: integrationName, installationId, externalId: query.externalId, cursor, limit };
    const [installationRows, selected, all, selectedTotal, allTotal] = await db.batch([
      installationQuery(db, integrationName, installationId, actor),
      ...siteCoverageQueries(db, actor, options, query.extended),
    ]);
    const loaded = requireVisible(actor, installationRows as InstallationQueryRow[]);
    const urls = siteUrlContext(c);
    const page = coveragePage(
      [selected as SiteCoverageRow[], all as SiteCoverageRow[]],
      [selectedTotal, allTotal],
      limit,
      (r) => r.site.id,
      (r) => presentSiteInstallation(loaded, r.site.id, r.own, query.extended ? { row: r.site, siteSpaces: r.siteSpaces } : null, r.rank ?? 0, urls),
    );
    return c.json(page, 200);
  })
  .openapi(installOnSiteRoute, async (c) => {
    const { integrationName, installationId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const { siteId } = c.req.valid('json');
    const { db, loaded, target } = await loadSiteInstallation(c, integrationName, installationId, siteId);
    if (!target.change) throw new ApiError(403, "Only the organization's admins and the integration itself may install it on the site");
    refuseWidening(c.get('actor'), 'install its integration on another site');
    assertTarget(loaded.integration, 'site');
    if (target.covered) {
      const why = target.own ? '' : ' (the installation covers all the sites of its organization)';
      throw new ApiError(409, `This integration is already installed on this site${why}`);
    }
    const now = nowIso();
    const row: SiteInstallationRow = {
      installationId,
      siteId,
      status: 'active',
      configuration: defaultConfiguration(loaded.integration.configurations, 'site'),
      externalIds: [],
      createdAt: now,
      updatedAt: now,
    };
    const event = installationEvent(db, loaded.installation, { type: 'site_installation_setup', siteId, status: row.status }, now);
    try {
      await db.batch([db.insert(integrationSiteInstallations).values(row), event.statement]);
    } catch (error) {
      // Installed by a concurrent request since the read.
      if (isUniqueViolation(error, 'integration_site_installations')) throw new ApiError(409, 'This integration is already installed on this site');
      throw error;
    }
    await enqueueEvents(c.env, [event.id]);
    const urls = siteUrlContext(c);
    const created = presentSiteInstallation(loaded, siteId, row, extended ? { row: target.site, siteSpaces: target.siteSpaces } : null, loaded.orgRank ?? 0, urls);
    c.header('Location', created.urls.location);
    return c.json(created, 201);
  })
  .openapi(getSiteInstallationRoute, async (c) => {
    const { integrationName, installationId, siteId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const { loaded, target } = await loadSiteInstallation(c, integrationName, installationId, siteId);
    if (!target.covered) throw new ApiError(404, 'This integration is not installed on this site');
    const urls = siteUrlContext(c);
    return c.json(presentSiteInstallation(loaded, siteId, target.own, extended ? { row: target.site, siteSpaces: target.siteSpaces } : null, loaded.orgRank ?? 0, urls), 200);
  })
  .openapi(updateSiteInstallationRoute, async (c) => {
    const { integrationName, installationId, siteId } = c.req.valid('param');
    const { extended } = c.req.valid('query');
    const body = c.req.valid('json');
    const { actor, db, loaded, target } = await loadSiteInstallation(c, integrationName, installationId, siteId);
    if (!target.covered) throw new ApiError(404, 'This integration is not installed on this site');
    if (!target.change) throw new ApiError(403, "Only the organization's admins and the integration itself may change its installation on the site");
    const before = contentInstallationState(loaded.installation, target.own, defaultConfiguration(loaded.integration.configurations, 'site'));
    const now = nowIso();
    const configuration =
      body.configuration === undefined
        ? before.configuration
        : validateConfiguration(loaded.integration.configurations, 'site', body.configuration, { strict: actor.kind === 'user' });
    const row: SiteInstallationRow = {
      installationId,
      siteId,
      status: before.status,
      configuration,
      externalIds: body.externalIds ?? before.externalIds,
      createdAt: target.own?.createdAt ?? now,
      updatedAt: now,
    };
    // Covered through `site_selection: all` without settings of its own yet: the row is created.
    const write = target.own
      ? db
          .update(integrationSiteInstallations)
          .set({ configuration: row.configuration, externalIds: row.externalIds, updatedAt: now })
          .where(and(eq(integrationSiteInstallations.installationId, installationId), eq(integrationSiteInstallations.siteId, siteId)))
      : db
          .insert(integrationSiteInstallations)
          .values(row)
          .onConflictDoUpdate({
            target: [integrationSiteInstallations.installationId, integrationSiteInstallations.siteId],
            set: { configuration: row.configuration, externalIds: row.externalIds, updatedAt: now },
          });
    const event =
      body.configuration === undefined
        ? null
        : installationEvent(
            db,
            loaded.installation,
            { type: 'site_installation_setup', siteId, status: row.status, previous: previousState(before.status, before.configuration) },
            now,
            installationExists(installationId),
          );
    await db.batch([write, ...(event ? [event.statement] : [])]);
    if (event) await enqueueEvents(c.env, [event.id]);
    const urls = siteUrlContext(c);
    return c.json(presentSiteInstallation(loaded, siteId, row, extended ? { row: target.site, siteSpaces: target.siteSpaces } : null, loaded.orgRank ?? 0, urls), 200);
  })
  .openapi(uninstallFromSiteRoute, async (c) => {
    const { integrationName, installationId, siteId } = c.req.valid('param');
    const { db, loaded, target } = await loadSiteInstallation(c, integrationName, installationId, siteId);
    if (!target.change) throw new ApiError(403, "Only the organization's admins and the integration itself may uninstall it from the site");
    if (loaded.installation.siteSelection === 'all') {
      throw new ApiError(400, 'This installation covers all the sites of its organization: set its site_selection to selected first');
    }
    if (!target.own) return c.body(null, 204);
    const event = installationEvent(
      db,
      loaded.installation,
      { type: 'site_installation_deleted', siteId, previous: { configuration: target.own.configuration } },
      nowIso(),
      siteInstallationExists(installationId, siteId),
    );
    // Recorded first, and only if the site installation is still there: a concurrent uninstall records one event.
    const [, deleted] = await db.batch([
      event.statement,
      db
        .delete(integrationSiteInstallations)
        .where(and(eq(integrationSiteInstallations.installationId, installationId), eq(integrationSiteInstallations.siteId, siteId)))
        .returning({ siteId: integrationSiteInstallations.siteId }),
    ]);
    if (deleted.length > 0) await enqueueEvents(c.env, [event.id]);
    return c.body(null, 204);
  });
