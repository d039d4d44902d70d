import type { Hono } from 'hono';
import type { AppBindings } from '../env';

/**
 * Every router of the Worker, in the order they are mounted (the OpenAPI document lists operations in this
 * order), each with the group it belongs to: the folder of src/routes it lives in (`site`: the published
 * sites' HTML reader in src/site).
 *
 * A group is the unit that loads on demand. Each router is reached through a dynamic `import()`, which the
 * bundler (esbuild, through wrangler) turns into a module initialised on first use: a group's zod schemas,
 * OpenAPI metadata, services and libraries cost nothing until a request of that group arrives (app.ts).
 * Which group serves which method and path is in manifest.ts, generated from this list
 * (test/platform/route-manifest.test.ts says when it is out of date and prints the new one).
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
  { group: 'system', base: '/', load: () => import('./system/api-information').then((m) => m.systemRouter) },
  { group: 'identity', base: '/v1', load: () => import('./identity/users').then((m) => m.usersRouter) },
  { group: 'identity', base: '/v1', load: () => import('./identity/tokens').then((m) => m.tokensRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/organizations').then((m) => m.organizationsRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/members').then((m) => m.membersRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/member-views').then((m) => m.memberViewsRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/member-sso').then((m) => m.memberSsoRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/invites').then((m) => m.invitesRouter) },
  { group: 'teams', base: '/v1', load: () => import('./teams/teams').then((m) => m.teamsRouter) },
  { group: 'teams', base: '/v1', load: () => import('./teams/team-members').then((m) => m.teamMembersRouter) },
  { group: 'collections', base: '/v1', load: () => import('./collections/collections').then((m) => m.collectionsRouter) },
  { group: 'collections', base: '/v1', load: () => import('./collections/permissions').then((m) => m.collectionPermissionsRouter) },
  { group: 'spaces', base: '/v1', load: () => import('./spaces/spaces').then((m) => m.spacesRouter) },
  { group: 'space-users', base: '/v1', load: () => import('./space-users/permissions').then((m) => m.spaceUsersRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/content').then((m) => m.spaceContentRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/revisions').then((m) => m.revisionsRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/embeds').then((m) => m.embedsRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/documents').then((m) => m.documentsRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/pdf').then((m) => m.spacePdfRouter) },
  { group: 'change-requests', base: '/v1', load: () => import('./change-requests/change-requests').then((m) => m.changeRequestsRouter) },
  { group: 'change-request-content', base: '/v1', load: () => import('./change-request-content/content').then((m) => m.changeRequestContentRouter) },
  { group: 'change-request-content', base: '/v1', load: () => import('./change-request-content/reads').then((m) => m.changeRequestReadsRouter) },
  { group: 'change-requests', base: '/v1', load: () => import('./change-requests/contributors').then((m) => m.contributorsRouter) },
  { group: 'comments', base: '/v1', load: () => import('./comments/comments').then((m) => m.spaceCommentsRouter) },
  { group: 'comments', base: '/v1', load: () => import('./comments/comments').then((m) => m.changeRequestCommentsRouter) },
  { group: 'change-requests', base: '/v1', load: () => import('./change-requests/reviews').then((m) => m.reviewsRouter) },
  { group: 'search', base: '/v1', load: () => import('./search/search').then((m) => m.searchRouter) },
  { group: 'links', base: '/v1', load: () => import('./links/links').then((m) => m.linksRouter) },
  { group: 'change-request-content', base: '/v1', load: () => import('./change-request-content/import').then((m) => m.importRouter) },
  { group: 'imports', base: '/v1', load: () => import('./imports/import-runs').then((m) => m.importRunsRouter) },
  { group: 'space-content', base: '/v1', load: () => import('./space-content/template').then((m) => m.spaceTemplateRouter) },
  { group: 'git-sync', base: '/v1', load: () => import('./git-sync/git').then((m) => m.gitSyncRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/agent-instructions').then((m) => m.agentInstructionsRouter) },
  { group: 'change-requests', base: '/v1', load: () => import('./change-requests/pdf').then((m) => m.pdfRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/sites').then((m) => m.sitesRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/sections').then((m) => m.siteSectionsRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/section-groups').then((m) => m.siteSectionGroupsRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/site-spaces').then((m) => m.siteSpacesRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/sharing').then((m) => m.siteSharingRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/permissions').then((m) => m.sitePermissionsRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/adaptive').then((m) => m.siteAdaptiveRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/customization').then((m) => m.siteCustomizationRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/published').then((m) => m.publishedSiteRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/integration-scripts').then((m) => m.siteIntegrationScriptsRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/redirects').then((m) => m.siteRedirectsRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/redirects-bulk').then((m) => m.siteRedirectsBulkRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/structure-sort').then((m) => m.siteStructureSortRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/site-space-duplicate').then((m) => m.siteSpaceDuplicateRouter) },
  { group: 'sites', base: '/v1', load: () => import('./sites/insights').then((m) => m.siteInsightsRouter) },
  { group: 'openapi', base: '/v1', load: () => import('./openapi/specs').then((m) => m.openapiSpecsRouter) },
  { group: 'openapi', base: '/v1', load: () => import('./openapi/versions').then((m) => m.openapiVersionsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/integrations').then((m) => m.integrationsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/installations').then((m) => m.integrationInstallationsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/space-installations').then((m) => m.integrationSpaceInstallationsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/site-installations').then((m) => m.integrationSiteInstallationsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/events').then((m) => m.integrationEventsRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/render').then((m) => m.integrationRenderRouter) },
  { group: 'integrations', base: '/v1', load: () => import('./integrations/enabled-integrations').then((m) => m.enabledIntegrationsRouter) },
  { group: 'conversations', base: '/v1', load: () => import('./conversations/conversations').then((m) => m.conversationsRouter) },
  { group: 'conversations', base: '/v1', load: () => import('./conversations/clusters').then((m) => m.conversationClustersRouter) },
  { group: 'conversations', base: '/v1', load: () => import('./conversations/issues').then((m) => m.conversationIssuesRouter) },
  { group: 'translations', base: '/v1', load: () => import('./translations/translations').then((m) => m.translationsRouter) },
  { group: 'sso', base: '/v1', load: () => import('./sso/saml-providers').then((m) => m.samlProvidersRouter) },
  { group: 'urls', base: '/v1', load: () => import('./urls/published').then((m) => m.urlsRouter) },
  { group: 'organizations', base: '/v1', load: () => import('./organizations/audit-events').then((m) => m.auditEventsRouter) },
  { group: 'files', base: '/', load: () => import('./files/downloads').then((m) => m.downloadsRouter) },
  { group: 'integrations', base: '/', load: () => import('./integrations/assets').then((m) => m.integrationAssetsRouter) },
  { group: 'integrations', base: '/', load: () => import('./integrations/public-endpoint').then((m) => m.integrationPublicRouter) },
  { group: 'integrations', base: '/', load: () => import('./integrations/site-script').then((m) => m.siteScriptRouter) },
  { group: 'openapi', base: '/', load: () => import('./openapi/published').then((m) => m.openapiPublishedRouter) },
  { group: 'sso', base: '/', load: () => import('./sso/saml-login').then((m) => m.samlLoginRouter) },
  { group: 'site', base: '/', load: () => import('../site/routes').then((m) => m.siteRouter) },
  { group: 'app-links', base: '/', load: () => import('./app-links/app-links').then((m) => m.appLinksRouter) },
];
