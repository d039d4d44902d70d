import { describe, expect, it } from 'vitest';
import gitbook0146 from '@gitbook/api/spec/openapi.json';
import gitbook0202 from 'gitbook-api-0202/spec/openapi.json';
import { INTEGRATION_SCOPES } from '../../src/lib/integration-scopes';
import { api, BASE, createUser } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';
import { servedDocument } from '../helpers/served-document';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** One request to an absolute URL through the Worker's fetch handler; the JSON body, or null. */
async function call(method: string, url: string, token: string) {
  const withBody = method !== 'get' && method !== 'delete';
  const res = await fetchWorker(url, {
    method: method.toUpperCase(),
    headers: { Authorization: `Bearer ${token}`, ...(withBody ? { 'Content-Type': 'application/json' } : {}) },
    body: withBody ? '{}' : undefined,
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

/** The app's answer for a path no route has (a resource that does not exist says which resource instead). */
const isUnknownRoute = (res: { status: number; body: any }) =>
  res.status === 405 || (res.status === 404 && /^No route for /.test(res.body?.error?.message ?? ''));

/** Every operation of the foundation (paths relative to the `/v1` server URL), with GitBook's operationId where GitBook has one. */
const OPERATIONS: Array<[string, string, string]> = [
  ['get', '/', 'getApiInformation'],
  ['get', '/user', 'getAuthenticatedUser'],
  ['post', '/users', 'createUser'],
  ['get', '/users/{userId}', 'getUserById'],
  ['post', '/users/{userId}/tokens', 'createUserToken'],
  ['get', '/user/tokens', 'listAuthenticatedUserTokens'],
  ['delete', '/user/tokens/{tokenId}', 'revokeAuthenticatedUserToken'],
  ['get', '/orgs', 'listOrganizationsForAuthenticatedUser'],
  ['post', '/orgs', 'createOrganization'],
  ['get', '/orgs/{organizationId}', 'getOrganizationById'],
  ['patch', '/orgs/{organizationId}', 'updateOrganizationById'],
  ['post', '/orgs/{organizationId}/join', 'joinOrganization'],
  ['get', '/email-domains/{emailDomain}/orgs', 'getOrganizationsForEmailDomain'],
  ['get', '/custom-hostnames/{hostname}', 'getCustomHostname'],
  ['patch', '/custom-hostnames/{hostname}', 'dnsRevalidateCustomHostname'],
  ['delete', '/custom-hostnames/{hostname}', 'removeCustomHostname'],
  ['get', '/orgs/{organizationId}/audit-events', 'listOrganizationAuditEvents'],
  ['get', '/orgs/{organizationId}/audit-events/{auditEventId}', 'getOrganizationAuditEvent'],
  ['get', '/orgs/{organizationId}/audit-event-actions', 'listOrganizationAuditEventActions'],
  ['get', '/orgs/{organizationId}/members', 'listMembersInOrganizationById'],
  ['get', '/orgs/{organizationId}/members/{userId}', 'getMemberInOrganizationById'],
  ['patch', '/orgs/{organizationId}/members/{userId}', 'updateMemberInOrganizationById'],
  ['delete', '/orgs/{organizationId}/members/{userId}', 'removeMemberFromOrganizationById'],
  ['post', '/orgs/{organizationId}/invites', 'inviteUsersToOrganization'],
  ['post', '/orgs/{organizationId}/invites/{inviteId}', 'joinOrganizationWithInvite'],
  ['get', '/orgs/{organizationId}/link-invites', 'listOrganizationInviteLinks'],
  ['post', '/orgs/{organizationId}/link-invites', 'createOrganizationInvite'],
  ['get', '/orgs/{organizationId}/link-invites/{inviteId}', 'getOrganizationInviteLink'],
  ['delete', '/orgs/{organizationId}/link-invites/{inviteId}', 'deleteOrganizationInviteById'],
  ['get', '/orgs/{organizationId}/teams', 'listTeamsInOrganizationById'],
  ['put', '/orgs/{organizationId}/teams', 'createOrganizationTeam'],
  ['get', '/orgs/{organizationId}/teams/{teamId}', 'getTeamInOrganizationById'],
  ['patch', '/orgs/{organizationId}/teams/{teamId}', 'updateTeamInOrganizationById'],
  ['delete', '/orgs/{organizationId}/teams/{teamId}', 'removeTeamFromOrganizationById'],
  ['get', '/orgs/{organizationId}/teams/{teamId}/members', 'listTeamMembersInOrganizationById'],
  ['put', '/orgs/{organizationId}/teams/{teamId}/members', 'updateMembersInOrganizationTeam'],
  ['put', '/orgs/{organizationId}/teams/{teamId}/members/{userId}', 'addMemberToOrganizationTeamById'],
  ['delete', '/orgs/{organizationId}/teams/{teamId}/members/{userId}', 'deleteMemberFromOrganizationTeamById'],
  ['get', '/collections/{collectionId}', 'getCollectionById'],
  ['patch', '/collections/{collectionId}', 'updateCollectionById'],
  ['delete', '/collections/{collectionId}', 'deleteCollectionById'],
  ['get', '/collections/{collectionId}/spaces', 'listSpacesInCollectionById'],
  ['post', '/collections/{collectionId}/move', 'moveCollection'],
  ['post', '/collections/{collectionId}/transfer', 'transferCollection'],
  ['get', '/orgs/{organizationId}/collections', 'listCollectionsInOrganizationById'],
  ['post', '/orgs/{organizationId}/collections', 'createCollection'],
  ['get', '/orgs/{organizationId}/spaces', 'listSpacesInOrganizationById'],
  ['post', '/orgs/{organizationId}/spaces', 'createSpace'],
  ['get', '/spaces/{spaceId}', 'getSpaceById'],
  ['patch', '/spaces/{spaceId}', 'updateSpaceById'],
  ['delete', '/spaces/{spaceId}', 'deleteSpaceById'],
  ['post', '/spaces/{spaceId}/duplicate', 'duplicateSpace'],
  ['post', '/spaces/{spaceId}/restore', 'restoreSpace'],
  ['post', '/spaces/{spaceId}/move', 'moveSpace'],
  ['post', '/spaces/{spaceId}/transfer', 'transferSpace'],
  ['post', '/spaces/{spaceId}/permissions', 'inviteToSpace'],
  ['get', '/spaces/{spaceId}/permissions/users', 'listUserPermissionsInSpace'],
  ['patch', '/spaces/{spaceId}/permissions/users/{userId}', 'updateUserPermissionInSpace'],
  ['delete', '/spaces/{spaceId}/permissions/users/{userId}', 'removeUserFromSpace'],
  ['get', '/spaces/{spaceId}/permissions/teams', 'listTeamPermissionsInSpace'],
  ['patch', '/spaces/{spaceId}/permissions/teams/{teamId}', 'updateTeamPermissionInSpace'],
  ['delete', '/spaces/{spaceId}/permissions/teams/{teamId}', 'removeTeamFromSpace'],
  ['get', '/spaces/{spaceId}/permissions/aggregate', 'listPermissionsAggregateInSpace'],
  ['get', '/spaces/{spaceId}/content', 'getCurrentRevision'],
  ['get', '/spaces/{spaceId}/content/pages', 'listPages'],
  ['get', '/spaces/{spaceId}/content/files', 'listFiles'],
  ['get', '/spaces/{spaceId}/content/files/{fileId}', 'getFileById'],
  ['get', '/spaces/{spaceId}/content/page/{pageId}', 'getPageById'],
  ['get', '/spaces/{spaceId}/content/path/{pagePath}', 'getPageByPath'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}', 'getRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', 'getPageInRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', 'getPageDocumentInRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/meta-links', 'listRevisionPageMetaLinks'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}', 'getPageInRevisionByPath'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document', 'getReusableContentDocumentInRevisionById'],
  ['get', '/spaces/{spaceId}/embed', 'getEmbedByUrlInSpace'],
  ['get', '/spaces/{spaceId}/change-requests', 'listChangeRequestsForSpace'],
  ['post', '/spaces/{spaceId}/change-requests', 'createChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}', 'getChangeRequestById'],
  ['patch', '/spaces/{spaceId}/change-requests/{changeRequestId}', 'updateChangeRequestById'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/merge', 'mergeChangeRequest'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/update', 'updateChangeRequest'],
  ['get', '/orgs/{organizationId}/change-requests', 'listChangeRequestsForOrganization'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content', 'getRevisionOfChangeRequestById'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/content', 'updateChangeRequestContent'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', 'listPagesInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', 'listFilesInChangeRequestById'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', 'getFileInChangeRequestById'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', 'getPageInChangeRequestById'],  // Collaboration, content services
  ['get', '/orgs/{organizationId}/agent-instructions', 'getOrganizationAgentInstructions'],
  ['put', '/orgs/{organizationId}/agent-instructions', 'updateOrganizationAgentInstructions'],
  ['get', '/orgs/{organizationId}/search', 'searchOrganizationContent'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/search', 'searchSiteContent'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/redirects', 'listSiteRedirects'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/redirects', 'createSiteRedirect'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', 'updateSiteRedirectById'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', 'deleteSiteRedirectById'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/redirect', 'getSiteRedirectBySource'],
  ['put', '/orgs/{organizationId}/sites/{siteId}/redirects', 'bulkUpsertSiteRedirects'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/structure/sort', 'sortSiteStructure'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/duplicate', 'duplicateSiteSpace'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/insights/events', 'trackEventsInSiteById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate', 'aggregateSiteEvents'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/insights/visitor-segments', 'listSiteVisitorSegments'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', 'listCommentersInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments', 'listCommentsInChangeRequest'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments', 'postCommentInChangeRequest'],
  ['delete', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', 'deleteCommentInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', 'getCommentInChangeRequest'],
  ['put', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', 'updateCommentInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', 'listCommentRepliesInChangeRequest'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', 'postCommentReplyInChangeRequest'],
  ['delete', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', 'deleteCommentReplyInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', 'getCommentReplyInChangeRequest'],
  ['put', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', 'updateCommentReplyInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', 'listChangeRequestFileBacklinks'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/import', 'importContentInChangeRequest'],
  ['get', '/org/{organizationId}/imports', 'listImportRuns'],
  ['post', '/org/{organizationId}/imports', 'startImportRun'],
  ['get', '/org/{organizationId}/imports/{importRunId}', 'getImportRun'],
  ['post', '/org/{organizationId}/imports/{importRunId}/cancel', 'cancelImportRun'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', 'listPageLinksInChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', 'getChangeRequestPDF'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', 'getRequestedReviewersByChangeRequestId'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', 'requestReviewersForChangeRequest'],
  ['delete', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', 'removeRequestedReviewerFromChangeRequest'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', 'getReviewsByChangeRequestId'],
  ['post', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', 'submitChangeRequestReview'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', 'getChangeRequestReviewById'],
  ['get', '/spaces/{spaceId}/commenters', 'listCommentersInSpace'],
  ['get', '/spaces/{spaceId}/comments', 'listCommentsInSpace'],
  ['post', '/spaces/{spaceId}/comments', 'postCommentInSpace'],
  ['delete', '/spaces/{spaceId}/comments/{commentId}', 'deleteCommentInSpace'],
  ['get', '/spaces/{spaceId}/comments/{commentId}', 'getCommentInSpace'],
  ['put', '/spaces/{spaceId}/comments/{commentId}', 'updateCommentInSpace'],
  ['get', '/spaces/{spaceId}/comments/{commentId}/replies', 'listCommentRepliesInSpace'],
  ['post', '/spaces/{spaceId}/comments/{commentId}/replies', 'postCommentReplyInSpace'],
  ['delete', '/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', 'deleteCommentReplyInSpace'],
  ['get', '/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', 'getCommentReplyInSpace'],
  ['put', '/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', 'updateCommentReplyInSpace'],
  ['get', '/spaces/{spaceId}/content/files/{fileId}/backlinks', 'listSpaceFileBacklinks'],
  ['get', '/spaces/{spaceId}/content/page/{pageId}/backlinks', 'listSpacePageBacklinks'],
  ['get', '/spaces/{spaceId}/content/page/{pageId}/links', 'listPageLinksInSpace'],
  ['post', '/spaces/{spaceId}/content/template', 'applyTemplateToSpace'],
  ['post', '/spaces/{spaceId}/git/import', 'importGitRepository'],
  ['post', '/spaces/{spaceId}/git/export', 'exportToGitRepository'],
  ['get', '/spaces/{spaceId}/git/info', 'getSpaceGitInfo'],
  ['get', '/spaces/{spaceId}/links', 'listSpaceLinks'],
  ['get', '/spaces/{spaceId}/search', 'searchSpaceContent'],
  ['post', '/orgs/{organizationId}/sites', 'createSite'],
  ['get', '/orgs/{organizationId}/sites', 'listSites'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}', 'deleteSiteById'],
  ['get', '/orgs/{organizationId}/sites/{siteId}', 'getSiteById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}', 'updateSiteById'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema', 'getSiteAdaptiveSchema'],
  ['put', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema', 'updateSiteAdaptiveSchema'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions', 'listSiteAdaptiveTemplateConditions'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/customization', 'getSiteCustomizationById'],
  ['put', '/orgs/{organizationId}/sites/{siteId}/customization', 'updateSiteCustomizationById'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/integration-scripts', 'listSiteIntegrationScripts'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/publish', 'publishSite'],
  ['post', '/urls/published', 'resolvePublishedContentByUrl'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/published', 'getPublishedContentSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/publishing/auth', 'getSitePublishingAuthById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/publishing/auth', 'updateSitePublishingAuthById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate', 'regenerateSitePublishingAuthById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/section-groups', 'addSectionGroupToSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/section-groups', 'listSiteSectionGroups'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', 'deleteSiteSectionGroupById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', 'updateSiteSectionGroupById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move', 'moveSiteSectionGroup'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections', 'addSectionToGroup'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}', 'removeSectionFromGroup'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/sections', 'addSectionToSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/sections', 'listSiteSections'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', 'deleteSiteSectionById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', 'updateSiteSectionById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move', 'moveSiteSection'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/share-links', 'createSiteShareLink'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/share-links', 'listSiteShareLinks'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', 'deleteSiteShareLinkById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', 'updateSiteShareLinkById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/site-spaces', 'addSpaceToSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/site-spaces', 'listSiteSpaces'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', 'deleteSiteSpaceById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', 'updateSiteSpaceById'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', 'deleteSiteSpaceCustomizationById'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', 'getSiteSpaceCustomizationById'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', 'overrideSiteSpaceCustomizationById'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move', 'moveSiteSpace'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/structure', 'getSiteStructure'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/unpublish', 'unpublishSite'],
  // OpenAPI specs and their versions
  ['get', '/orgs/{organizationId}/openapi', 'listOpenAPISpecs'],
  ['post', '/orgs/{organizationId}/openapi', 'createOpenAPISpec'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}', 'getOpenAPISpecBySlug'],
  ['put', '/orgs/{organizationId}/openapi/{specSlug}', 'createOrUpdateOpenAPISpecBySlug'],
  ['patch', '/orgs/{organizationId}/openapi/{specSlug}', 'updateOpenAPISpecBySlug'],
  ['delete', '/orgs/{organizationId}/openapi/{specSlug}', 'deleteOpenAPISpecBySlug'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions', 'listOpenAPISpecVersions'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest', 'getLatestOpenAPISpecVersion'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', 'getLatestOpenAPISpecVersionContent'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content/raw', 'getLatestOpenAPISpecVersionContentRaw'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', 'getOpenAPISpecVersionById'],
  ['get', '/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', 'getOpenAPISpecVersionContentById'],
  // Integrations
  ['get', '/integrations', 'listIntegrations'],
  ['get', '/orgs/{organizationId}/integrations', 'listOrganizationIntegrations'],
  ['get', '/spaces/{spaceId}/integrations', 'listSpaceIntegrations'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/integrations', 'listSiteIntegrations'],
  ['get', '/integrations/{integrationName}', 'getIntegrationByName'],
  ['post', '/integrations/{integrationName}', 'publishIntegration'],
  ['delete', '/integrations/{integrationName}', 'unpublishIntegration'],
  ['put', '/integrations/{integrationName}/dev', 'setIntegrationDevelopmentMode'],
  ['delete', '/integrations/{integrationName}/dev', 'disableIntegrationDevelopmentMode'],
  ['get', '/integrations/{integrationName}/installations', 'listIntegrationInstallations'],
  ['post', '/integrations/{integrationName}/installations', 'installIntegration'],
  ['get', '/integrations/{integrationName}/installations/{installationId}', 'getIntegrationInstallationById'],
  ['patch', '/integrations/{integrationName}/installations/{installationId}', 'updateIntegrationInstallation'],
  ['delete', '/integrations/{integrationName}/installations/{installationId}', 'uninstallIntegration'],
  ['post', '/integrations/{integrationName}/installations/{installationId}/tokens', 'createIntegrationInstallationToken'],
  ['get', '/integrations/{integrationName}/installations/{installationId}/spaces', 'listIntegrationInstallationSpaces'],
  ['post', '/integrations/{integrationName}/installations/{installationId}/spaces', 'installIntegrationOnSpace'],
  ['get', '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}', 'getIntegrationSpaceInstallation'],
  ['patch', '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}', 'updateIntegrationSpaceInstallation'],
  ['delete', '/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}', 'uninstallIntegrationFromSpace'],
  ['get', '/integrations/{integrationName}/installations/{installationId}/sites', 'listIntegrationInstallationSites'],
  ['post', '/integrations/{integrationName}/installations/{installationId}/sites', 'installIntegrationOnSite'],
  ['get', '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}', 'getIntegrationSiteInstallation'],
  ['patch', '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}', 'updateIntegrationSiteInstallation'],
  ['delete', '/integrations/{integrationName}/installations/{installationId}/sites/{siteId}', 'uninstallIntegrationFromSite'],
  ['get', '/integrations/{integrationName}/spaces', 'listIntegrationSpaceInstallations'],
  ['get', '/integrations/{integrationName}/sites', 'listIntegrationSiteInstallations'],
  ['get', '/integrations/{integrationName}/events', 'listIntegrationEvents'],
  ['get', '/integrations/{integrationName}/events/{eventId}', 'getIntegrationEvent'],
  ['get', '/orgs/{organizationId}/installations', 'listOrganizationInstallations'],
  ['get', '/integrations/{integrationName}/render', 'renderIntegrationUIWithGet'],
  ['post', '/integrations/{integrationName}/render', 'renderIntegrationUIWithPost'],
  // Conversations
  ['post', '/orgs/{organizationId}/conversations', 'ingestConversation'],
  ['get', '/orgs/{organizationId}/conversations', 'listConversations'],
  ['get', '/orgs/{organizationId}/conversations/{conversationId}', 'getConversationById'],
  ['get', '/orgs/{organizationId}/conversations-issues', 'listConversationsIssues'],
  ['get', '/orgs/{organizationId}/conversations-issues/{issueId}', 'getConversationIssueById'],
  ['get', '/orgs/{organizationId}/conversations-clusters', 'listConversationsIssuesClusters'],
  ['get', '/orgs/{organizationId}/conversations-clusters/{clusterId}', 'getConversationsIssuesCluster'],
  ['patch', '/orgs/{organizationId}/conversations-clusters/{clusterId}', 'updateConversationsIssuesCluster'],
  // SSO and SAML
  ['get', '/orgs/{organizationId}/saml', 'listSAMLProvidersInOrganizationById'],
  ['post', '/orgs/{organizationId}/saml', 'createOrganizationSAMLProvider'],
  ['get', '/orgs/{organizationId}/saml/{samlProviderId}', 'getOrganizationSAMLProviderById'],
  ['patch', '/orgs/{organizationId}/saml/{samlProviderId}', 'updateOrganizationSAMLProvider'],
  ['delete', '/orgs/{organizationId}/saml/{samlProviderId}', 'deleteOrganizationSAMLProvider'],
  ['get', '/orgs/{organizationId}/sso', 'listSSOProviderLoginsInOrganization'],
  // Translations
  ['get', '/orgs/{organizationId}/translations', 'listTranslations'],
  ['post', '/orgs/{organizationId}/translations', 'createTranslation'],
  ['get', '/orgs/{organizationId}/translations/{translationId}', 'getTranslation'],
  ['put', '/orgs/{organizationId}/translations/{translationId}', 'updateTranslation'],
  ['delete', '/orgs/{organizationId}/translations/{translationId}', 'deleteTranslation'],
  ['post', '/orgs/{organizationId}/translations/{translationId}/run', 'runTranslation'],
  // Issue 44: sharing collections and sites, the audit log, content reads, member views, integration lists.
  ['post', '/collections/{collectionId}/permissions', 'inviteToCollection'],
  ['get', '/collections/{collectionId}/permissions/aggregate', 'listPermissionsAggregateInCollection'],
  ['get', '/collections/{collectionId}/permissions/teams', 'listTeamPermissionsInCollection'],
  ['delete', '/collections/{collectionId}/permissions/teams/{teamId}', 'removeTeamFromCollection'],
  ['patch', '/collections/{collectionId}/permissions/teams/{teamId}', 'updateTeamPermissionInCollection'],
  ['get', '/collections/{collectionId}/permissions/users', 'listUserPermissionsInCollection'],
  ['delete', '/collections/{collectionId}/permissions/users/{userId}', 'removeUserFromCollection'],
  ['patch', '/collections/{collectionId}/permissions/users/{userId}', 'updateUserPermissionInCollection'],
  ['get', '/orgs/{organizationId}/members/{userId}/spaces', 'listSpacesForOrganizationMember'],
  ['get', '/orgs/{organizationId}/members/{userId}/teams', 'listTeamsForOrganizationMember'],
  ['post', '/orgs/{organizationId}/ping', 'updateOrganizationMemberLastSeenAt'],
  ['patch', '/orgs/{organizationId}/link-invites/{inviteId}', 'updateOrganizationInviteById'],
  ['patch', '/users/{userId}', 'updateUserById'],
  ['post', '/orgs/{organizationId}/members/{userId}/sso', 'setUserAsSSOMemberForOrganization'],
  ['post', '/orgs/{organizationId}/sites/{siteId}/permissions', 'inviteToSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/permissions/aggregate', 'listPermissionsAggregateInSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/permissions/teams', 'listTeamPermissionsInSite'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}', 'removeTeamFromSite'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}', 'updateTeamPermissionInSite'],
  ['get', '/orgs/{organizationId}/sites/{siteId}/permissions/users', 'listUserPermissionsInSite'],
  ['delete', '/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}', 'removeUserFromSite'],
  ['patch', '/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}', 'updateUserPermissionInSite'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/changes', 'getChangeRequestChanges'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/meta-links', 'listChangeRequestPageMetaLinks'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{pagePath}', 'getPageInChangeRequestByPath'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}', 'getReusableContentInChangeRequestById'],
  ['get', '/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', 'getContributorsByChangeRequestId'],
  ['post', '/spaces/{spaceId}/content/computed/document', 'getComputedDocument'],
  ['post', '/spaces/{spaceId}/content/computed/revision', 'getComputedRevision'],
  ['get', '/spaces/{spaceId}/content/page/{pageId}/meta-links', 'listSpacePageMetaLinks'],
  ['get', '/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', 'getReusableContentById'],
  ['get', '/spaces/{spaceId}/documents/{documentId}', 'getDocumentById'],
  ['get', '/spaces/{spaceId}/pdf', 'getSpacePDF'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/changes', 'getRevisionSemanticChanges'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/files', 'listFilesInRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}', 'getFileInRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/pages', 'listPagesInRevisionById'],
  ['get', '/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}', 'getReusableContentInRevisionById'],
  ['get', '/urls/content', 'getContentByUrl'],
  ['get', '/urls/embed', 'getEmbedByUrl'],
  ['get', '/urls/published', 'getPublishedContentByUrl'],
];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a token', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each(OPERATIONS)('documents %s %s as %s with tag, bearer security and error responses', async (method, path, operationId) => {
    const doc = await servedDocument();
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation.operationId).toBe(operationId);
    expect(operation.tags?.length).toBeGreaterThan(0);
    // A user token always; integration tokens only where the route admits them (with the scope it needs).
    expect(operation.security[0]).toEqual({ bearerAuth: [] });
    for (const alternative of operation.security.slice(1)) {
      // `{}`: authentication is optional (a published site's visitors; see the next test).
      if (Object.keys(alternative).length === 0) continue;
      const [[scheme, scopes]] = Object.entries(alternative) as [string, string[]][];
      // siteToken: the operations a site token may call (defineRoute `siteToken: true`; test/sites/site-tokens).
      expect(['installationToken', 'integrationToken', 'siteToken']).toContain(scheme);
      for (const scope of scopes) expect(INTEGRATION_SCOPES).toContain(scope);
    }
    for (const status of ['400', '401', '403', '404', '429']) {
      expect(operation.responses[status]?.content?.['application/json']?.schema, `${status} of ${operationId}`).toBeDefined();
    }
    // Rate limits (services/limits): the 429 says when to come back and what the budgets are.
    expect(Object.keys(operation.responses['429'].headers ?? {}).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
  });

  it('declares optional authentication exactly where a request without a token is answered', async () => {
    const doc = await servedDocument();
    const optional: string[] = [];
    const refused: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const isOptional = operation.security.some((requirement: object) => Object.keys(requirement).length === 0);
        if (isOptional) {
          optional.push(operation.operationId);
          // The empty requirement comes after the token schemes: a client with a token sends it.
          expect(Object.keys(operation.security.at(-1))).toEqual([]);
        }
        // With the credentials a visitor brings (a share key), where the operation takes them: without any, a
        // space read says a token is missing rather than that the space is unknown.
        const takesShareKey = (operation.parameters ?? []).some((p: { name: string }) => p.name === 'shareKey');
        const url = `/v1${path.replace(/\{[^}]+\}/g, 'unknown')}${takesShareKey ? '?shareKey=unknown' : ''}`;
        const res = await api(method.toUpperCase(), url, method === 'get' || method === 'delete' ? {} : { body: {} });
        if ((res.status === 401) === isOptional) refused.push(`${operation.operationId}: ${res.status} without a token, optional: ${isOptional}`);
      }
    }
    expect(optional.sort()).toEqual(['getPublishedContentByUrl', 'getPublishedContentSite', 'getSpaceById', 'listSSOProviderLoginsInOrganization', 'listSiteSections', 'listSiteSpaces', 'resolvePublishedContentByUrl', 'trackEventsInSiteById']);
    expect(refused).toEqual([]);
  });

  it("names an expensive operation's own rate limit in its 429", async () => {
    const doc = await servedDocument();
    const costly = {
      '/spaces/{spaceId}/search': ['get', 'search'],
      '/spaces/{spaceId}/change-requests/{changeRequestId}/merge': ['post', 'content-writes'],
      '/orgs/{organizationId}/conversations': ['post', 'ingestion'],
    } as const;
    for (const [path, [method, policy]] of Object.entries(costly)) {
      expect(doc.paths[path][method].responses['429'].description).toContain(`"${policy}"`);
    }
    expect(doc.paths['/spaces/{spaceId}'].get.responses['429'].description).not.toContain('own lower');
  });

  it('uses GitBook operationIds that are unique', async () => {
    const doc = await servedDocument();
    const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ['0.146.0', gitbook0146],
    ['0.202.0', gitbook0202],
  ])("matches the paths and methods of GitBook's published document %s for the operations GitBook has", (_version, gitbook: any) => {
    const gitbookOps = new Map<string, string>();
    for (const [path, ops] of Object.entries<any>(gitbook.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) if (op?.operationId) gitbookOps.set(op.operationId, `${method} ${path}`);
    }
    let shared = 0;
    for (const [method, path, operationId] of OPERATIONS) {
      const theirs = gitbookOps.get(operationId);
      if (theirs) expect(`${method} ${path}`, operationId).toBe(theirs);
      if (theirs) shared++;
    }
    expect(shared).toBeGreaterThan(60);
  });

  it('has one server, `<origin>/v1`, and paths relative to it, as GitBook\'s document has', async () => {
    const doc = await servedDocument();
    expect(doc.servers).toEqual([{ url: `${BASE}/v1` }]);
    expect(gitbook0202.servers[0].url).toMatch(/\/v1$/);
    for (const path of Object.keys(doc.paths)) {
      // `/` is the server URL itself (GitBook's getApiInformation).
      expect(path).toMatch(/^\/([^/]|$)/);
      expect(path.startsWith('/v1/'), path).toBe(false);
    }
  });

  it('reaches a route with every path of the document joined to its server URL, parameters filled with some id', async () => {
    const user = await createUser();
    const doc = await servedDocument();
    const server: string = doc.servers[0].url;
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const filled = path.replace(/\{[^}]+\}/g, 'zzzzzzzzzzzzzzzzzzzz');
      for (const method of METHODS) {
        if (!item[method]) continue;
        operations++;
        const res = await call(method, `${server}${filled}`, user.token);
        expect(isUnknownRoute(res), `${method} ${server}${filled}: ${res.status} ${JSON.stringify(res.body)}`).toBe(false);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
      }
    }
    expect(operations).toBeGreaterThanOrEqual(OPERATIONS.length);
    // What a client joining `<origin>/v1` to `/v1/...` paths called: no route.
    expect(isUnknownRoute(await call('get', `${server}/v1/orgs`, user.token))).toBe(true);
    expect(isUnknownRoute(await call('get', `${server}/user`, user.token))).toBe(false);
  });

  it('documents every operation listed here, and nothing else', async () => {
    const doc = await servedDocument();
    const documented = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => `${m} ${path} ${item[m].operationId}`),
    );
    expect(documented.sort()).toEqual(OPERATIONS.map((o) => o.join(' ')).sort());
  });

  it('serves an interactive reference at /docs', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('/openapi.json');
  });
});
