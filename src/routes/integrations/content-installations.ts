import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, pageParams, type Page } from '../../lib/pagination';
import { booleanQuery, IdSchema, listOf, type UrlContext } from '../../schemas/common';
import type {
  ContentInstallationState,
  IntegrationSiteInstallation,
  IntegrationSiteInstallationSchema,
  IntegrationSpaceInstallation,
  IntegrationSpaceInstallationSchema,
  UpdateIntegrationSiteInstallationSchema,
  UpdateIntegrationSpaceInstallationSchema,
} from '../../schemas/integration-installation';
import type { IntegrationRow } from '../../services/integrations/access';
import {
  coveredState,
  installationCoverage,
  installOn,
  integrationCoverage,
  loadContentInstallation,
  targetContent,
  uninstallFrom,
  updateOn,
  type ContentInstallations,
  type CoveredContent,
} from '../../services/integrations/content-installations';
import { assertTarget, installationCaller, refuseWidening } from '../../services/integrations/installations';
import type { TokenAccess } from '../../lib/integration-scopes';
import { ExternalIdQuery, InstallationParams, IntegrationParams } from './params';

/**
 * The routes of an integration's installations on one kind of content (space-installations.ts,
 * site-installations.ts): the same six operations for spaces and sites, built from a description of the
 * kind. Each route file holds its description, with GitBook's operationIds.
 */

/** What a space or site installation answer shows, before its mapper: `content` only when `extended`. */
export interface ContentInstallationView<C> {
  integration: string;
  installation: string;
  /** The space's or site's id. */
  id: string;
  state: ContentInstallationState;
  content: C | null;
}

export interface ContentInstallationRoutes<C, U extends UrlContext> {
  /** The kind of content, its tables, loaders and events (services/integrations/content-installations.ts). */
  installations: ContentInstallations<C>;
  /** The path parameter naming the space or site, and the field of the install body that does. */
  idParam: 'spaceId' | 'siteId';
  bodyField: 'space' | 'siteId';
  operationIds: {
    listForIntegration: string;
    listForInstallation: string;
    install: string;
    get: string;
    update: string;
    uninstall: string;
  };
  /** Who besides the integration and its installation may change it there: in summaries, and in 403 messages. */
  admins: { inSummaries: string; inErrors: string };
  listForIntegration: { description: string; tokens: TokenAccess };
  schemas: {
    installation: typeof IntegrationSpaceInstallationSchema | typeof IntegrationSiteInstallationSchema;
    /** The registered name of the list envelope. */
    listName: string;
    update: typeof UpdateIntegrationSpaceInstallationSchema | typeof UpdateIntegrationSiteInstallationSchema;
  };
  urls(c: Context<AppBindings>): U;
  present(view: ContentInstallationView<C>, urls: U): IntegrationSpaceInstallation | IntegrationSiteInstallation;
}

/** The route definitions of one kind of content. */
function contentInstallationRoutes<C, U extends UrlContext>(d: ContentInstallationRoutes<C, U>) {
  const { kind } = d.installations;
  const tags = ['Integrations'];
  const tokens = { integration: true, scope: 'installation' } as const;
  const path = `/integrations/{integrationName}/installations/{installationId}/${kind}s`;
  const Params = InstallationParams.extend({ [d.idParam]: IdSchema(d.idParam) });
  const ExtendedQuery = z.object({ extended: booleanQuery(false, `true: each item carries the ${kind} object instead of its id`) });
  const ListQuery = ListQuerySchema.merge(ExternalIdQuery).merge(ExtendedQuery);
  const listed = { 200: jsonResponse(listOf(d.schemas.installation, d.schemas.listName), `The ${kind} installations`) };
  const who = `(${d.admins.inSummaries}, the integration and the installation)`;
  return {
    listForIntegration: defineRoute('get', `/integrations/{integrationName}/${kind}s`, () => ({
      operationId: d.operationIds.listForIntegration,
      tokens: d.listForIntegration.tokens,
      tags,
      summary: `List the ${kind}s the installations of an integration cover (those of the installations the caller may see)`,
      description: d.listForIntegration.description,
      request: { params: IntegrationParams, query: ListQuery },
      responses: listed,
    })),
    listForInstallation: defineRoute('get', path, () => ({
      operationId: d.operationIds.listForInstallation,
      tokens,
      tags,
      summary: `List the ${kind}s an installation covers`,
      request: { params: InstallationParams, query: ListQuery },
      responses: listed,
    })),
    install: defineRoute('post', path, () => ({
      operationId: d.operationIds.install,
      tokens,
      tags,
      summary: `Install an integration on a ${kind} of its installation's organization (${d.admins.inSummaries})`,
      description: `Widening what an installation reaches is the installing organization's consent: the integration's own token and installation tokens may not install it on a ${kind} (403), they may uninstall it from one.`,
      request: {
        params: InstallationParams,
        query: ExtendedQuery,
        ...jsonBody(z.object({ [d.bodyField]: z.string().min(1).max(128).openapi({ description: `The id of the ${kind} to install the integration on` }) })),
      },
      responses: { 201: jsonResponse(d.schemas.installation, `Installed on the ${kind}`) },
    })),
    get: defineRoute('get', `${path}/{${d.idParam}}`, () => ({
      operationId: d.operationIds.get,
      tokens,
      tags,
      summary: `Get the installation of an integration on a ${kind}`,
      request: { params: Params, query: ExtendedQuery },
      responses: { 200: jsonResponse(d.schemas.installation, `The ${kind} installation`) },
    })),
    update: defineRoute('patch', `${path}/{${d.idParam}}`, () => ({
      operationId: d.operationIds.update,
      tokens,
      tags,
      summary: `Change the configuration or external ids of an integration's installation on a ${kind} ${who}`,
      description: `A change of the configuration sends the integration a \`${d.installations.events.setup}\` event with the previous state.`,
      request: { params: Params, query: ExtendedQuery, ...jsonBody(d.schemas.update) },
      responses: { 200: jsonResponse(d.schemas.installation, `The ${kind} installation`) },
    })),
    uninstall: defineRoute('delete', `${path}/{${d.idParam}}`, () => ({
      operationId: d.operationIds.uninstall,
      tokens,
      tags,
      summary: `Uninstall an integration from a ${kind} ${who}`,
      description: `An installation that selects all the ${kind}s of its organization covers them all: set its ${kind}_selection to selected first (400).`,
      request: { params: Params },
      responses: { 204: noContent(`Uninstalled from the ${kind}, or was not installed on it`) },
    })),
  };
}

/** The router of one kind of content: its route definitions, with short handlers over the service. */
export function contentInstallationsRouter<C, U extends UrlContext>(d: ContentInstallationRoutes<C, U>) {
  const routes = contentInstallationRoutes(d);
  const { installations } = d;
  const { kind } = installations;
  const notInstalled = () => new ApiError(404, `This integration is not installed on this ${kind}`);
  const onlyAdmins = (what: string, orTokens = true) =>
    new ApiError(403, `Only ${d.admins.inErrors}${orTokens ? ' and the integration itself' : ''} may ${what} the ${kind}`);
  /** The filters and page of a list route's query (400 for a malformed cursor). */
  const listOptions = (query: { externalId?: string; page?: string; limit?: number }) => ({ externalId: query.externalId, ...pageParams(query) });
  /** The API object of a space or site installation: `extended`, with the space or site itself. */
  const present = (integration: IntegrationRow, covered: CoveredContent<C>, extended: boolean, urls: U) =>
    d.present(
      {
        integration: integration.name,
        installation: covered.installationId,
        id: covered.id,
        state: coveredState(kind, integration, covered),
        content: extended ? covered.content : null,
      },
      urls,
    );
  const presentPage = (c: Context<AppBindings>, integration: IntegrationRow, page: Page<CoveredContent<C>>, extended: boolean) => {
    const urls = d.urls(c);
    return { ...page, items: page.items.map((covered) => present(integration, covered, extended, urls)) };
  };

  return createRouter()
    .openapi(routes.listForIntegration, async (c) => {
      const actor = installationCaller(c);
      const query = c.req.valid('query');
      const options = { name: c.req.valid('param').integrationName, ...listOptions(query) };
      const { integration, page } = await integrationCoverage(c.get('db'), installations, actor, options, query.extended);
      return c.json(presentPage(c, integration, page, query.extended), 200);
    })
    .openapi(routes.listForInstallation, async (c) => {
      const actor = installationCaller(c);
      const { integrationName, installationId } = c.req.valid('param');
      const query = c.req.valid('query');
      const { loaded, page } = await installationCoverage(c.get('db'), installations, actor, { name: integrationName, installationId, ...listOptions(query) }, query.extended);
      return c.json(presentPage(c, loaded.integration, page, query.extended), 200);
    })
    .openapi(routes.install, async (c) => {
      const { integrationName, installationId } = c.req.valid('param');
      const { extended } = c.req.valid('query');
      const id = c.req.valid('json')[d.bodyField];
      const { db, loaded, target } = await loadContentInstallation(c, installations, integrationName, installationId, id);
      refuseWidening(c.get('actor'), `install its integration on another ${kind}`);
      if (!target.change) throw onlyAdmins('install it on', false);
      assertTarget(loaded.integration, kind);
      const row = await installOn(c.env, db, installations, loaded, target, id);
      const created = present(loaded.integration, targetContent(loaded, id, row, target), extended, d.urls(c));
      c.header('Location', created.urls.location);
      return c.json(created, 201);
    })
    .openapi(routes.get, async (c) => {
      const params = c.req.valid('param');
      const id = params[d.idParam];
      const { extended } = c.req.valid('query');
      const { loaded, target } = await loadContentInstallation(c, installations, params.integrationName, params.installationId, id);
      if (!target.covered) throw notInstalled();
      return c.json(present(loaded.integration, targetContent(loaded, id, target.own, target), extended, d.urls(c)), 200);
    })
    .openapi(routes.update, async (c) => {
      const params = c.req.valid('param');
      const id = params[d.idParam];
      const { extended } = c.req.valid('query');
      const body = c.req.valid('json');
      const { actor, db, loaded, target } = await loadContentInstallation(c, installations, params.integrationName, params.installationId, id);
      if (!target.covered) throw notInstalled();
      if (!target.change) throw onlyAdmins('change its installation on');
      const row = await updateOn(c.env, db, installations, actor, loaded, target, id, body);
      return c.json(present(loaded.integration, targetContent(loaded, id, row, target), extended, d.urls(c)), 200);
    })
    .openapi(routes.uninstall, async (c) => {
      const params = c.req.valid('param');
      const id = params[d.idParam];
      const { db, loaded, target } = await loadContentInstallation(c, installations, params.integrationName, params.installationId, id);
      if (!target.change) throw onlyAdmins('uninstall it from');
      await uninstallFrom(c.env, db, installations, loaded, target, id);
      return c.body(null, 204);
    });
}
