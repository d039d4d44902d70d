import { describe, expect, it } from 'vitest';
import { api } from '../helpers/harness';

/** Every operation of the foundation, with GitBook's operationId where GitBook has one. */
const OPERATIONS: Array<[string, string, string]> = [
  ['get', '/v1/user', 'getAuthenticatedUser'],
  ['post', '/v1/users', 'createUser'],
  ['get', '/v1/users/{userId}', 'getUserById'],
  ['post', '/v1/users/{userId}/tokens', 'createUserToken'],
  ['get', '/v1/user/tokens', 'listAuthenticatedUserTokens'],
  ['delete', '/v1/user/tokens/{tokenId}', 'revokeAuthenticatedUserToken'],
  ['get', '/v1/orgs', 'listOrganizationsForAuthenticatedUser'],
  ['post', '/v1/orgs', 'createOrganization'],
  ['get', '/v1/orgs/{organizationId}', 'getOrganizationById'],
  ['patch', '/v1/orgs/{organizationId}', 'updateOrganizationById'],
  ['post', '/v1/orgs/{organizationId}/join', 'joinOrganization'],
  ['get', '/v1/email-domains/{emailDomain}/orgs', 'getOrganizationsForEmailDomain'],
  ['get', '/v1/orgs/{organizationId}/members', 'listMembersInOrganizationById'],
  ['get', '/v1/orgs/{organizationId}/members/{userId}', 'getMemberInOrganizationById'],
  ['patch', '/v1/orgs/{organizationId}/members/{userId}', 'updateMemberInOrganizationById'],
  ['delete', '/v1/orgs/{organizationId}/members/{userId}', 'removeMemberFromOrganizationById'],
  ['post', '/v1/orgs/{organizationId}/invites', 'inviteUsersToOrganization'],
  ['post', '/v1/orgs/{organizationId}/invites/{inviteId}', 'joinOrganizationWithInvite'],
  ['get', '/v1/orgs/{organizationId}/link-invites', 'listOrganizationInviteLinks'],
  ['post', '/v1/orgs/{organizationId}/link-invites', 'createOrganizationInvite'],
  ['get', '/v1/orgs/{organizationId}/link-invites/{inviteId}', 'getOrganizationInviteLink'],
  ['delete', '/v1/orgs/{organizationId}/link-invites/{inviteId}', 'deleteOrganizationInviteById'],
  ['get', '/v1/orgs/{organizationId}/teams', 'listTeamsInOrganizationById'],
  ['put', '/v1/orgs/{organizationId}/teams', 'createOrganizationTeam'],
  ['get', '/v1/orgs/{organizationId}/teams/{teamId}', 'getTeamInOrganizationById'],
  ['patch', '/v1/orgs/{organizationId}/teams/{teamId}', 'updateTeamInOrganizationById'],
  ['delete', '/v1/orgs/{organizationId}/teams/{teamId}', 'removeTeamFromOrganizationById'],
  ['get', '/v1/orgs/{organizationId}/teams/{teamId}/members', 'listTeamMembersInOrganizationById'],
  ['put', '/v1/orgs/{organizationId}/teams/{teamId}/members', 'updateMembersInOrganizationTeam'],
  ['put', '/v1/orgs/{organizationId}/teams/{teamId}/members/{userId}', 'addMemberToOrganizationTeamById'],
  ['delete', '/v1/orgs/{organizationId}/teams/{teamId}/members/{userId}', 'deleteMemberFromOrganizationTeamById'],
  ['get', '/v1/collections/{collectionId}', 'getCollectionById'],
  ['patch', '/v1/collections/{collectionId}', 'updateCollectionById'],
  ['delete', '/v1/collections/{collectionId}', 'deleteCollectionById'],
  ['get', '/v1/collections/{collectionId}/spaces', 'listSpacesInCollectionById'],
  ['post', '/v1/collections/{collectionId}/move', 'moveCollection'],
  ['post', '/v1/collections/{collectionId}/transfer', 'transferCollection'],
  ['get', '/v1/orgs/{organizationId}/collections', 'listCollectionsInOrganizationById'],
  ['post', '/v1/orgs/{organizationId}/collections', 'createCollection'],
  ['get', '/v1/orgs/{organizationId}/spaces', 'listSpacesInOrganizationById'],
  ['post', '/v1/orgs/{organizationId}/spaces', 'createSpace'],
  ['get', '/v1/spaces/{spaceId}', 'getSpaceById'],
  ['patch', '/v1/spaces/{spaceId}', 'updateSpaceById'],
  ['delete', '/v1/spaces/{spaceId}', 'deleteSpaceById'],
  ['post', '/v1/spaces/{spaceId}/duplicate', 'duplicateSpace'],
  ['post', '/v1/spaces/{spaceId}/restore', 'restoreSpace'],
  ['post', '/v1/spaces/{spaceId}/move', 'moveSpace'],
  ['post', '/v1/spaces/{spaceId}/transfer', 'transferSpace'],
  ['post', '/v1/spaces/{spaceId}/permissions', 'inviteToSpace'],
  ['get', '/v1/spaces/{spaceId}/permissions/users', 'listUserPermissionsInSpace'],
  ['patch', '/v1/spaces/{spaceId}/permissions/users/{userId}', 'updateUserPermissionInSpace'],
  ['delete', '/v1/spaces/{spaceId}/permissions/users/{userId}', 'removeUserFromSpace'],
  ['get', '/v1/spaces/{spaceId}/permissions/teams', 'listTeamPermissionsInSpace'],
  ['patch', '/v1/spaces/{spaceId}/permissions/teams/{teamId}', 'updateTeamPermissionInSpace'],
  ['delete', '/v1/spaces/{spaceId}/permissions/teams/{teamId}', 'removeTeamFromSpace'],
  ['get', '/v1/spaces/{spaceId}/permissions/aggregate', 'listPermissionsAggregateInSpace'],
  ['get', '/v1/spaces/{spaceId}/content', 'getCurrentRevision'],
  ['get', '/v1/spaces/{spaceId}/content/pages', 'listPages'],
  ['get', '/v1/spaces/{spaceId}/content/files', 'listFiles'],
  ['get', '/v1/spaces/{spaceId}/content/files/{fileId}', 'getFileById'],
  ['get', '/v1/spaces/{spaceId}/content/page/{pageId}', 'getPageById'],
  ['get', '/v1/spaces/{spaceId}/change-requests', 'listChangeRequestsForSpace'],
  ['post', '/v1/spaces/{spaceId}/change-requests', 'createChangeRequest'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}', 'getChangeRequestById'],
  ['patch', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}', 'updateChangeRequestById'],
  ['post', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', 'mergeChangeRequest'],
  ['post', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/update', 'updateChangeRequest'],
  ['get', '/v1/orgs/{organizationId}/change-requests', 'listChangeRequestsForOrganization'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', 'getRevisionOfChangeRequestById'],
  ['post', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', 'updateChangeRequestContent'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', 'listPagesInChangeRequest'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', 'listFilesInChangeRequestById'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', 'getFileInChangeRequestById'],
  ['get', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', 'getPageInChangeRequestById'],
];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a token', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each(OPERATIONS)('documents %s %s as %s with tag, bearer security and error responses', async (method, path, operationId) => {
    const { body: doc } = await api('GET', '/openapi.json');
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation.operationId).toBe(operationId);
    expect(operation.tags?.length).toBeGreaterThan(0);
    expect(operation.security).toEqual([{ bearerAuth: [] }]);
    for (const status of ['400', '401', '403', '404']) {
      expect(operation.responses[status]?.content?.['application/json']?.schema, `${status} of ${operationId}`).toBeDefined();
    }
  });

  it('uses GitBook operationIds that are unique', async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('matches the paths and methods of GitBook\'s published document for the operations GitBook has', async () => {
    const gitbook = (await import('@gitbook/api/spec/openapi.json')).default as any;
    const gitbookOps = new Map<string, string>();
    for (const [path, ops] of Object.entries<any>(gitbook.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) if (op?.operationId) gitbookOps.set(op.operationId, `${method} /v1${path}`);
    }
    for (const [method, path, operationId] of OPERATIONS) {
      const theirs = gitbookOps.get(operationId);
      if (theirs) expect(`${method} ${path}`, operationId).toBe(theirs);
    }
  });

  it('serves an interactive reference at /docs', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('/openapi.json');
  });
});
