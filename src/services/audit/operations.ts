/**
 * What the audit log records for each state-changing operation (every POST, PUT, PATCH and DELETE of the route
 * manifest, routes/manifest.ts): its action and the path parameter naming its target, or why it records nothing.
 * test/organizations/audit-events.test.ts fails when a state-changing route of the manifest is missing here.
 *
 * Adding a state-changing route: one line here. The request's first D1 write carries the event (recorder.ts);
 * a handler whose target or organization is not in its path says which with `describeAuditEvent`.
 */

export interface AuditedOperation {
  action: string;
  /** The path parameter naming the changed resource (its type: TARGET_TYPES). */
  target: string;
  /**
   * Whose log it goes to when the path has no organization: by default the organization of the first path
   * parameter of ORGANIZATION_PARAMS; `memberships`: every organization the `userId` parameter (else the caller)
   * belongs to (a user's API tokens open all of them).
   */
  organization?: 'memberships';
}

export interface UnrecordedOperation {
  /** Why it is not an organization's change. */
  notRecorded: string;
}

export type AuditRule = AuditedOperation | UnrecordedOperation;

export const isAudited = (rule: AuditRule | undefined): rule is AuditedOperation => !!rule && 'action' in rule;

/** The target type of each path parameter that names one. */
export const TARGET_TYPES: Record<string, string> = {
  organizationId: 'organization',
  userId: 'user',
  tokenId: 'api-token',
  hostname: 'custom-hostname',
  inviteId: 'invite',
  teamId: 'team',
  collectionId: 'collection',
  spaceId: 'space',
  changeRequestId: 'change-request',
  commentId: 'comment',
  commentReplyId: 'comment-reply',
  importRunId: 'import',
  siteId: 'site',
  siteSectionId: 'site-section',
  siteSectionGroupId: 'site-section-group',
  siteSpaceId: 'site-space',
  shareLinkId: 'site-share-link',
  siteRedirectId: 'site-redirect',
  specSlug: 'openapi-spec',
  integrationName: 'integration',
  installationId: 'integration-installation',
  clusterId: 'conversation-cluster',
  translationId: 'translation',
  samlProviderId: 'saml-provider',
};

/** The path parameters an event's organization is found from, first present first (recorder.ts `organizationSql`). */
export const ORGANIZATION_PARAMS = ['organizationId', 'spaceId', 'collectionId', 'installationId', 'integrationName', 'hostname'] as const;

const audited = (action: string, target: string, organization?: 'memberships'): AuditedOperation =>
  organization ? { action, target, organization } : { action, target };
const READ = { notRecorded: 'a read sent as POST: it changes nothing' };
const VISITOR = { notRecorded: "a published site's visitor or renderer, not a change of the organization" };
const INTEGRATION_ENDPOINT = { notRecorded: "an integration's own public endpoint: what it changes is the integration's" };

/** Keyed `<METHOD> <path>` as in the route manifest. */
export const AUDIT_RULES: Record<string, AuditRule> = {
  'POST /v1/users': { notRecorded: 'the operator creates a user, who belongs to no organization yet' },
  'POST /v1/users/:userId/tokens': audited('user.api_token.created', 'userId', 'memberships'),
  'PATCH /v1/users/:userId': audited('user.updated', 'userId', 'memberships'),
  'DELETE /v1/user/tokens/:tokenId': audited('user.api_token.revoked', 'tokenId', 'memberships'),
  'POST /v1/orgs': audited('organization.created', 'organizationId'),
  'PATCH /v1/orgs/:organizationId': audited('organization.updated', 'organizationId'),
  'POST /v1/orgs/:organizationId/join': audited('organization.member.joined', 'organizationId'),
  'PATCH /v1/custom-hostnames/:hostname': audited('organization.custom_hostname.updated', 'hostname'),
  'DELETE /v1/custom-hostnames/:hostname': audited('organization.custom_hostname.removed', 'hostname'),
  'PATCH /v1/orgs/:organizationId/members/:userId': audited('organization.member.role_updated', 'userId'),
  'DELETE /v1/orgs/:organizationId/members/:userId': audited('organization.member.removed', 'userId'),
  'POST /v1/orgs/:organizationId/members/:userId/sso': audited('organization.member.sso_enabled', 'userId'),
  'POST /v1/orgs/:organizationId/ping': { notRecorded: "a member's activity heartbeat (their lastSeenAt), not a change of the organization" },
  'POST /v1/orgs/:organizationId/invites': audited('organization.invite.created', 'organizationId'),
  'POST /v1/orgs/:organizationId/link-invites': audited('organization.link_invite.created', 'organizationId'),
  'DELETE /v1/orgs/:organizationId/link-invites/:inviteId': audited('organization.link_invite.deleted', 'inviteId'),
  'PATCH /v1/orgs/:organizationId/link-invites/:inviteId': audited('organization.link_invite.updated', 'inviteId'),
  'POST /v1/orgs/:organizationId/invites/:inviteId': audited('organization.member.joined_by_invite', 'inviteId'),
  'PUT /v1/orgs/:organizationId/teams': audited('team.created', 'organizationId'),
  'PATCH /v1/orgs/:organizationId/teams/:teamId': audited('team.updated', 'teamId'),
  'DELETE /v1/orgs/:organizationId/teams/:teamId': audited('team.deleted', 'teamId'),
  'PUT /v1/orgs/:organizationId/teams/:teamId/members': audited('team.members.updated', 'teamId'),
  'PUT /v1/orgs/:organizationId/teams/:teamId/members/:userId': audited('team.member.added', 'teamId'),
  'DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId': audited('team.member.removed', 'teamId'),
  'PATCH /v1/collections/:collectionId': audited('collection.updated', 'collectionId'),
  'DELETE /v1/collections/:collectionId': audited('collection.deleted', 'collectionId'),
  'POST /v1/collections/:collectionId/move': audited('collection.moved', 'collectionId'),
  'POST /v1/collections/:collectionId/transfer': audited('collection.transferred', 'collectionId'),
  'POST /v1/orgs/:organizationId/collections': audited('collection.created', 'organizationId'),
  'POST /v1/orgs/:organizationId/spaces': audited('space.created', 'organizationId'),
  'PATCH /v1/spaces/:spaceId': audited('space.updated', 'spaceId'),
  'DELETE /v1/spaces/:spaceId': audited('space.deleted', 'spaceId'),
  'POST /v1/spaces/:spaceId/duplicate': audited('space.duplicated', 'spaceId'),
  'POST /v1/spaces/:spaceId/restore': audited('space.restored', 'spaceId'),
  'POST /v1/spaces/:spaceId/move': audited('space.moved', 'spaceId'),
  'POST /v1/spaces/:spaceId/transfer': audited('space.transferred', 'spaceId'),
  'POST /v1/spaces/:spaceId/permissions': audited('space.permissions.invited', 'spaceId'),
  'PATCH /v1/spaces/:spaceId/permissions/users/:userId': audited('space.permissions.user_updated', 'spaceId'),
  'DELETE /v1/spaces/:spaceId/permissions/users/:userId': audited('space.permissions.user_removed', 'spaceId'),
  'PATCH /v1/spaces/:spaceId/permissions/teams/:teamId': audited('space.permissions.team_updated', 'spaceId'),
  'DELETE /v1/spaces/:spaceId/permissions/teams/:teamId': audited('space.permissions.team_removed', 'spaceId'),
  'POST /v1/collections/:collectionId/permissions': audited('collection.permissions.invited', 'collectionId'),
  'PATCH /v1/collections/:collectionId/permissions/users/:userId': audited('collection.permissions.user_updated', 'collectionId'),
  'DELETE /v1/collections/:collectionId/permissions/users/:userId': audited('collection.permissions.user_removed', 'collectionId'),
  'PATCH /v1/collections/:collectionId/permissions/teams/:teamId': audited('collection.permissions.team_updated', 'collectionId'),
  'DELETE /v1/collections/:collectionId/permissions/teams/:teamId': audited('collection.permissions.team_removed', 'collectionId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/permissions': audited('site.permissions.invited', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/permissions/users/:userId': audited('site.permissions.user_updated', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/permissions/users/:userId': audited('site.permissions.user_removed', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId': audited('site.permissions.team_updated', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId': audited('site.permissions.team_removed', 'siteId'),
  'POST /v1/spaces/:spaceId/change-requests': audited('change_request.created', 'spaceId'),
  'PATCH /v1/spaces/:spaceId/change-requests/:changeRequestId': audited('change_request.updated', 'changeRequestId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/merge': audited('change_request.merged', 'changeRequestId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/update': audited('change_request.updated_from_main', 'changeRequestId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content': audited('change_request.content.updated', 'changeRequestId'),
  'POST /v1/spaces/:spaceId/comments': audited('comment.created', 'spaceId'),
  'PUT /v1/spaces/:spaceId/comments/:commentId': audited('comment.updated', 'commentId'),
  'DELETE /v1/spaces/:spaceId/comments/:commentId': audited('comment.deleted', 'commentId'),
  'POST /v1/spaces/:spaceId/comments/:commentId/replies': audited('comment.reply.created', 'commentId'),
  'PUT /v1/spaces/:spaceId/comments/:commentId/replies/:commentReplyId': audited('comment.reply.updated', 'commentReplyId'),
  'DELETE /v1/spaces/:spaceId/comments/:commentId/replies/:commentReplyId': audited('comment.reply.deleted', 'commentReplyId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/comments': audited('comment.created', 'changeRequestId'),
  'PUT /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId': audited('comment.updated', 'commentId'),
  'DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId': audited('comment.deleted', 'commentId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies': audited('comment.reply.created', 'commentId'),
  'PUT /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies/:commentReplyId': audited('comment.reply.updated', 'commentReplyId'),
  'DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies/:commentReplyId': audited('comment.reply.deleted', 'commentReplyId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/reviews': audited('change_request.review.submitted', 'changeRequestId'),
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers': audited('change_request.reviewers.requested', 'changeRequestId'),
  'DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers/:userId': audited('change_request.reviewer.removed', 'changeRequestId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/search': READ,
  'POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content/import': audited('change_request.content.imported', 'changeRequestId'),
  'POST /v1/org/:organizationId/imports': audited('import.started', 'organizationId'),
  'POST /v1/org/:organizationId/imports/:importRunId/cancel': audited('import.cancelled', 'importRunId'),
  'POST /v1/spaces/:spaceId/content/template': audited('space.content.template_applied', 'spaceId'),
  'POST /v1/spaces/:spaceId/git/import': audited('space.git_sync.import_started', 'spaceId'),
  'POST /v1/spaces/:spaceId/git/export': audited('space.git_sync.export_started', 'spaceId'),
  'PUT /v1/orgs/:organizationId/agent-instructions': audited('organization.agent_instructions.updated', 'organizationId'),
  'POST /v1/orgs/:organizationId/sites': audited('site.created', 'organizationId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId': audited('site.updated', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId': audited('site.deleted', 'siteId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/publish': audited('site.published', 'siteId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/unpublish': audited('site.unpublished', 'siteId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/sections': audited('site.section.created', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId': audited('site.section.deleted', 'siteSectionId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId': audited('site.section.updated', 'siteSectionId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move': audited('site.section.moved', 'siteSectionId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/section-groups': audited('site.section_group.created', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId': audited('site.section_group.deleted', 'siteSectionGroupId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId': audited('site.section_group.updated', 'siteSectionGroupId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections': audited('site.section_group.section_added', 'siteSectionGroupId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId': audited('site.section_group.section_removed', 'siteSectionGroupId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move': audited('site.section_group.moved', 'siteSectionGroupId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/site-spaces': audited('site.site_space.created', 'siteId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId': audited('site.site_space.deleted', 'siteSpaceId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId': audited('site.site_space.updated', 'siteSpaceId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move': audited('site.site_space.moved', 'siteSpaceId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/share-links': audited('site.share_link.created', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId': audited('site.share_link.updated', 'shareLinkId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId': audited('site.share_link.deleted', 'shareLinkId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/publishing/auth': audited('site.visitor_auth.updated', 'siteId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate': audited('site.visitor_auth.key_regenerated', 'siteId'),
  'PUT /v1/orgs/:organizationId/sites/:siteId/adaptive-schema': audited('site.adaptive_schema.updated', 'siteId'),
  'PUT /v1/orgs/:organizationId/sites/:siteId/customization': audited('site.customization.updated', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization': audited('site.site_space.customization_updated', 'siteSpaceId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization': audited('site.site_space.customization_removed', 'siteSpaceId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/redirects': audited('site.redirect.created', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/redirects/:siteRedirectId': audited('site.redirect.updated', 'siteRedirectId'),
  'DELETE /v1/orgs/:organizationId/sites/:siteId/redirects/:siteRedirectId': audited('site.redirect.deleted', 'siteRedirectId'),
  'PUT /v1/orgs/:organizationId/sites/:siteId/redirects': audited('site.redirects.bulk_upserted', 'siteId'),
  'PATCH /v1/orgs/:organizationId/sites/:siteId/structure/sort': audited('site.structure.sorted', 'siteId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/duplicate': audited('site.site_space.duplicated', 'siteSpaceId'),
  'POST /v1/orgs/:organizationId/sites/:siteId/insights/events': { notRecorded: "readers' insights events (visitor data, kept by their own retention)" },
  'POST /v1/orgs/:organizationId/sites/:siteId/insights/events/aggregate': READ,
  'POST /v1/orgs/:organizationId/openapi': audited('openapi_spec.created', 'organizationId'),
  'PUT /v1/orgs/:organizationId/openapi/:specSlug': audited('openapi_spec.updated', 'specSlug'),
  'PATCH /v1/orgs/:organizationId/openapi/:specSlug': audited('openapi_spec.updated', 'specSlug'),
  'DELETE /v1/orgs/:organizationId/openapi/:specSlug': audited('openapi_spec.deleted', 'specSlug'),
  'POST /v1/integrations/:integrationName': audited('integration.published', 'integrationName'),
  'DELETE /v1/integrations/:integrationName': audited('integration.unpublished', 'integrationName'),
  'PUT /v1/integrations/:integrationName/dev': audited('integration.dev_space.updated', 'integrationName'),
  'DELETE /v1/integrations/:integrationName/dev': audited('integration.dev_space.removed', 'integrationName'),
  'POST /v1/integrations/:integrationName/installations': audited('integration.installed', 'integrationName'),
  'PATCH /v1/integrations/:integrationName/installations/:installationId': audited('integration.installation.updated', 'installationId'),
  'DELETE /v1/integrations/:integrationName/installations/:installationId': audited('integration.uninstalled', 'installationId'),
  'POST /v1/integrations/:integrationName/installations/:installationId/tokens': audited('integration.installation.token_created', 'installationId'),
  'POST /v1/integrations/:integrationName/installations/:installationId/spaces': audited('integration.installation.space_added', 'installationId'),
  'PATCH /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId': audited('integration.installation.space_updated', 'installationId'),
  'DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId': audited('integration.installation.space_removed', 'installationId'),
  'POST /v1/integrations/:integrationName/installations/:installationId/sites': audited('integration.installation.site_added', 'installationId'),
  'PATCH /v1/integrations/:integrationName/installations/:installationId/sites/:siteId': audited('integration.installation.site_updated', 'installationId'),
  'DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId': audited('integration.installation.site_removed', 'installationId'),
  'POST /v1/integrations/:integrationName/render': { notRecorded: "renders an integration's UI: the integration's own state, not the organization's" },
  'POST /v1/orgs/:organizationId/conversations': audited('conversations.ingested', 'organizationId'),
  'PATCH /v1/orgs/:organizationId/conversations-clusters/:clusterId': audited('conversations.cluster.updated', 'clusterId'),
  'POST /v1/orgs/:organizationId/translations': audited('translation.created', 'organizationId'),
  'PUT /v1/orgs/:organizationId/translations/:translationId': audited('translation.updated', 'translationId'),
  'DELETE /v1/orgs/:organizationId/translations/:translationId': audited('translation.deleted', 'translationId'),
  'POST /v1/orgs/:organizationId/translations/:translationId/run': audited('translation.run_started', 'translationId'),
  'POST /v1/orgs/:organizationId/saml': audited('sso.saml_provider.created', 'organizationId'),
  'PATCH /v1/orgs/:organizationId/saml/:samlProviderId': audited('sso.saml_provider.updated', 'samlProviderId'),
  'DELETE /v1/orgs/:organizationId/saml/:samlProviderId': audited('sso.saml_provider.deleted', 'samlProviderId'),
  'POST /v1/urls/published': READ,
  'ALL /integrations/:integrationName/public': INTEGRATION_ENDPOINT,
  'ALL /integrations/:integrationName/public/*': INTEGRATION_ENDPOINT,
  'ALL /integrations/:integrationName/installations/:installationId/public': INTEGRATION_ENDPOINT,
  'ALL /integrations/:integrationName/installations/:installationId/public/*': INTEGRATION_ENDPOINT,
  'ALL /integrations/:integrationName/installations/:installationId/:kind{spaces|sites}/:contentId/public': INTEGRATION_ENDPOINT,
  'ALL /integrations/:integrationName/installations/:installationId/:kind{spaces|sites}/:contentId/public/*': INTEGRATION_ENDPOINT,
  'ALL /sso/saml/*': { notRecorded: 'a sign-in through SSO (not a change of configuration); the providers it uses are recorded when changed' },
  'POST /sso/saml/:providerId/acs': { notRecorded: 'a sign-in through SSO (not a change of configuration); the providers it uses are recorded when changed' },
  'POST /s/:siteId/*': VISITOR,
  'ALL /s/:siteId': VISITOR,
  'ALL /s/:siteId/*': VISITOR,
  'POST /v1/spaces/:spaceId/content/computed/document': READ,
  'POST /v1/spaces/:spaceId/content/computed/revision': READ,
};

const LABEL_WORDS: Record<string, string> = { api: 'API', sso: 'SSO', saml: 'SAML', openapi: 'OpenAPI', dev: 'development' };

/** "site.share_link.created" -> "Site share link created". */
export function actionLabel(action: string): string {
  const words = action.split(/[._]/).map((word) => LABEL_WORDS[word] ?? word);
  const sentence = words.join(' ');
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** Every action the log records, once each, sorted: listOrganizationAuditEventActions. */
export const AUDIT_ACTIONS: readonly string[] = [...new Set(Object.values(AUDIT_RULES).filter(isAudited).map((rule) => rule.action))].sort();
