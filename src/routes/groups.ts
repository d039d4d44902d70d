import type { Hono } from 'hono';
import type { AppBindings } from '../env';

/**
 * Every router of the Worker, in the order they are mounted (the OpenAPI document lists operations in this
 * order), each with the group it belongs to: the module it lives in, named by its path below src/routes
 * (`space-content/content`; `site`: the published sites' HTML reader in src/site).
 *
 * A group is the unit that loads on demand. Each router is reached through a dynamic `import()`, which the
 * build (src/cli/build-worker.mjs) turns into a module of its own that workerd evaluates on first use: a
 * router's zod schemas, OpenAPI metadata, services and libraries cost nothing until a request for one of its
 * routes arrives (app.ts). A group is one module, not a folder, because a cold isolate's first request pays for
 * every zod schema its group's modules build at their top level: a page read used to build the schemas of the five
 * other routers of src/routes/space-content as well. Within a group, each route's own config (the schemas written
 * in its defineRoute) is built on its first request only (lib/create-router). Which group serves which method and path is in manifest.ts, generated from
 * this list (test/platform/route-manifest.test.ts says when it is out of date and prints the new one).
 *
 * Adding a router: one line here, in its place, then the manifest test's output in manifest.ts.
 */
export interface RouterEntry {
  group: string;
  /** `/v1` for the API; `/` for what lives outside it (downloads, public endpoints, published sites). */
  base: '/v1' | '/';
  load: () => Promise<Hono<AppBindings>>;
}

export const ROUTERS: readonly RouterEntry[] = [
  // `/v1/` itself (GitBook's `GET /`): a path of the API, mounted at the root as it is the base's own address.
  { group: 'system/api-information', base: '/', load: () => import('./system/api-information').then((m) => m.systemRouter) },
  { group: 'identity/users', base: '/v1', load: () => import('./identity/users').then((m) => m.usersRouter) },
  { group: 'identity/tokens', base: '/v1', load: () => import('./identity/tokens').then((m) => m.tokensRouter) },
  { group: 'organizations/organizations', base: '/v1', load: () => import('./organizations/organizations').then((m) => m.organizationsRouter) },
  { group: 'organizations/members', base: '/v1', load: () => import('./organizations/members').then((m) => m.membersRouter) },
  { group: 'organizations/member-views', base: '/v1', load: () => import('./organizations/member-views').then((m) => m.memberViewsRouter) },
  { group: 'organizations/member-sso', base: '/v1', load: () => import('./organizations/member-sso').then((m) => m.memberSsoRouter) },
  { group: 'organizations/invites', base: '/v1', load: () => import('./organizations/invites').then((m) => m.invitesRouter) },
  { group: 'teams/teams', base: '/v1', load: () => import('./teams/teams').then((m) => m.teamsRouter) },
  { group: 'teams/team-members', base: '/v1', load: () => import('./teams/team-members').then((m) => m.teamMembersRouter) },
  { group: 'collections/collections', base: '/v1', load: () => import('./collections/collections').then((m) => m.collectionsRouter) },
  { group: 'collections/permissions', base: '/v1', load: () => import('./collections/permissions').then((m) => m.collectionPermissionsRouter) },
  { group: 'spaces/spaces', base: '/v1', load: () => import('./spaces/spaces').then((m) => m.spacesRouter) },
  { group: 'space-users/permissions', base: '/v1', load: () => import('./space-users/permissions').then((m) => m.spaceUsersRouter) },
  { group: 'space-content/content', base: '/v1', load: () => import('./space-content/content').then((m) => m.spaceContentRouter) },
  { group: 'space-content/revisions', base: '/v1', load: () => import('./space-content/revisions').then((m) => m.revisionsRouter) },
  { group: 'space-content/embeds', base: '/v1', load: () => import('./space-content/embeds').then((m) => m.embedsRouter) },
  { group: 'space-content/documents', base: '/v1', load: () => import('./space-content/documents').then((m) => m.documentsRouter) },
  { group: 'space-content/pdf', base: '/v1', load: () => import('./space-content/pdf').then((m) => m.spacePdfRouter) },
  { group: 'change-requests/change-requests', base: '/v1', load: () => import('./change-requests/change-requests').then((m) => m.changeRequestsRouter) },
  { group: 'change-request-content/content', base: '/v1', load: () => import('./change-request-content/content').then((m) => m.changeRequestContentRouter) },
  { group: 'change-request-content/reads', base: '/v1', load: () => import('./change-request-content/reads').then((m) => m.changeRequestReadsRouter) },
  { group: 'change-requests/contributors', base: '/v1', load: () => import('./change-requests/contributors').then((m) => m.contributorsRouter) },
  { group: 'comments/comments', base: '/v1', load: () => import('./comments/comments').then((m) => m.spaceCommentsRouter) },
  { group: 'comments/comments', base: '/v1', load: () => import('./comments/comments').then((m) => m.changeRequestCommentsRouter) },
  { group: 'change-requests/reviews', base: '/v1', load: () => import('./change-requests/reviews').then((m) => m.reviewsRouter) },
  { group: 'search/search', base: '/v1', load: () => import('./search/search').then((m) => m.searchRouter) },
  { group: 'links/links', base: '/v1', load: () => import('./links/links').then((m) => m.linksRouter) },
  { group: 'change-request-content/import', base: '/v1', load: () => import('./change-request-content/import').then((m) => m.importRouter) },
  { group: 'imports/import-runs', base: '/v1', load: () => import('./imports/import-runs').then((m) => m.importRunsRouter) },
  { group: 'space-content/template', base: '/v1', load: () => import('./space-content/template').then((m) => m.spaceTemplateRouter) },
  { group: 'git-sync/git', base: '/v1', load: () => import('./git-sync/git').then((m) => m.gitSyncRouter) },
  { group: 'organizations/agent-instructions', base: '/v1', load: () => import('./organizations/agent-instructions').then((m) => m.agentInstructionsRouter) },
  { group: 'change-requests/pdf', base: '/v1', load: () => import('./change-requests/pdf').then((m) => m.pdfRouter) },
  { group: 'sites/sites', base: '/v1', load: () => import('./sites/sites').then((m) => m.sitesRouter) },
  { group: 'sites/sections', base: '/v1', load: () => import('./sites/sections').then((m) => m.siteSectionsRouter) },
  { group: 'sites/section-groups', base: '/v1', load: () => import('./sites/section-groups').then((m) => m.siteSectionGroupsRouter) },
  { group: 'sites/site-spaces', base: '/v1', load: () => import('./sites/site-spaces').then((m) => m.siteSpacesRouter) },
  { group: 'sites/sharing', base: '/v1', load: () => import('./sites/sharing').then((m) => m.siteSharingRouter) },
  { group: 'sites/permissions', base: '/v1', load: () => import('./sites/permissions').then((m) => m.sitePermissionsRouter) },
  { group: 'sites/adaptive', base: '/v1', load: () => import('./sites/adaptive').then((m) => m.siteAdaptiveRouter) },
  { group: 'sites/customization', base: '/v1', load: () => import('./sites/customization').then((m) => m.siteCustomizationRouter) },
  { group: 'sites/published', base: '/v1', load: () => import('./sites/published').then((m) => m.publishedSiteRouter) },
  { group: 'sites/integration-scripts', base: '/v1', load: () => import('./sites/integration-scripts').then((m) => m.siteIntegrationScriptsRouter) },
  { group: 'sites/redirects', base: '/v1', load: () => import('./sites/redirects').then((m) => m.siteRedirectsRouter) },
  { group: 'sites/redirects-bulk', base: '/v1', load: () => import('./sites/redirects-bulk').then((m) => m.siteRedirectsBulkRouter) },
  { group: 'sites/structure-sort', base: '/v1', load: () => import('./sites/structure-sort').then((m) => m.siteStructureSortRouter) },
  { group: 'sites/site-space-duplicate', base: '/v1', load: () => import('./sites/site-space-duplicate').then((m) => m.siteSpaceDuplicateRouter) },
  { group: 'sites/insights', base: '/v1', load: () => import('./sites/insights').then((m) => m.siteInsightsRouter) },
  { group: 'openapi/specs', base: '/v1', load: () => import('./openapi/specs').then((m) => m.openapiSpecsRouter) },
  { group: 'openapi/versions', base: '/v1', load: () => import('./openapi/versions').then((m) => m.openapiVersionsRouter) },
  { group: 'integrations/integrations', base: '/v1', load: () => import('./integrations/integrations').then((m) => m.integrationsRouter) },
  { group: 'integrations/installations', base: '/v1', load: () => import('./integrations/installations').then((m) => m.integrationInstallationsRouter) },
  { group: 'integrations/space-installations', base: '/v1', load: () => import('./integrations/space-installations').then((m) => m.integrationSpaceInstallationsRouter) },
  { group: 'integrations/site-installations', base: '/v1', load: () => import('./integrations/site-installations').then((m) => m.integrationSiteInstallationsRouter) },
  { group: 'integrations/events', base: '/v1', load: () => import('./integrations/events').then((m) => m.integrationEventsRouter) },
  { group: 'integrations/render', base: '/v1', load: () => import('./integrations/render').then((m) => m.integrationRenderRouter) },
  { group: 'integrations/enabled-integrations', base: '/v1', load: () => import('./integrations/enabled-integrations').then((m) => m.enabledIntegrationsRouter) },
  { group: 'conversations/conversations', base: '/v1', load: () => import('./conversations/conversations').then((m) => m.conversationsRouter) },
  { group: 'conversations/clusters', base: '/v1', load: () => import('./conversations/clusters').then((m) => m.conversationClustersRouter) },
  { group: 'conversations/issues', base: '/v1', load: () => import('./conversations/issues').then((m) => m.conversationIssuesRouter) },
  { group: 'translations/translations', base: '/v1', load: () => import('./translations/translations').then((m) => m.translationsRouter) },
  { group: 'sso/saml-providers', base: '/v1', load: () => import('./sso/saml-providers').then((m) => m.samlProvidersRouter) },
  { group: 'urls/published', base: '/v1', load: () => import('./urls/published').then((m) => m.urlsRouter) },
  { group: 'organizations/audit-events', base: '/v1', load: () => import('./organizations/audit-events').then((m) => m.auditEventsRouter) },
  { group: 'files/downloads', base: '/', load: () => import('./files/downloads').then((m) => m.downloadsRouter) },
  { group: 'integrations/assets', base: '/', load: () => import('./integrations/assets').then((m) => m.integrationAssetsRouter) },
  { group: 'integrations/public-endpoint', base: '/', load: () => import('./integrations/public-endpoint').then((m) => m.integrationPublicRouter) },
  { group: 'integrations/site-script', base: '/', load: () => import('./integrations/site-script').then((m) => m.siteScriptRouter) },
  { group: 'openapi/published', base: '/', load: () => import('./openapi/published').then((m) => m.openapiPublishedRouter) },
  { group: 'sso/saml-login', base: '/', load: () => import('./sso/saml-login').then((m) => m.samlLoginRouter) },
  { group: 'site', base: '/', load: () => import('../site/routes').then((m) => m.siteRouter) },
  { group: 'app-links/app-links', base: '/', load: () => import('./app-links/app-links').then((m) => m.appLinksRouter) },
];
