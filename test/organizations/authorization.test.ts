import { describe, expect, it } from 'vitest';
import { byCaller, ADMIN_TOKEN, ALL_ROLES, api, createUser, expectError, seedOrg, type ApiResponse, type RoleName, type TestOrg, type TestUser, CALLERS, callerUser, type Caller } from '../helpers/harness';
import { expectStatus, uniq } from './support';


interface Fixture {
  org: TestOrg;
  caller: TestUser;
  inviteId: string;
  /** A user who is in no organization. */
  stranger: TestUser;
}

interface Operation {
  name: string;
  call: (f: Fixture) => Promise<ApiResponse>;
  expected: Record<Caller, number>;
}

const row = byCaller;

/**
 * The expected status of every Organizations operation for a caller of each role and for a user who
 * belongs to another organization (the outsider). Each operation runs against its own organization.
 */
const OPERATIONS: Operation[] = [
  {
    name: 'listOrganizationsForAuthenticatedUser',
    call: ({ caller }) => api('GET', '/v1/orgs', { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 200, 200),
  },
  {
    name: 'createOrganization',
    call: ({ caller }) => api('POST', '/v1/orgs', { token: caller.token, body: { title: `New ${uniq()}` } }),
    expected: row(201, 201, 201, 201, 201, 201, 201, 201),
  },
  {
    name: 'getOrganizationById',
    call: ({ org, caller }) => api('GET', `/v1/orgs/${org.id}`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 200, 404),
  },
  {
    name: 'updateOrganizationById',
    call: ({ org, caller }) => api('PATCH', `/v1/orgs/${org.id}`, { token: caller.token, body: { title: 'Renamed by table' } }),
    expected: row(200, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    // The organization allows example.test, every test user's domain: members are already in (a no-op),
    // the outsider joins.
    name: 'joinOrganization',
    call: ({ org, caller }) => api('POST', `/v1/orgs/${org.id}/join`, { token: caller.token }),
    expected: row(204, 204, 204, 204, 204, 204, 204, 204),
  },
  {
    name: 'getOrganizationsForEmailDomain (own domain)',
    call: ({ caller }) => api('GET', `/v1/email-domains/${caller.email.split('@')[1]}/orgs`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 200, 200),
  },
  {
    name: 'listMembersInOrganizationById',
    call: ({ org, caller }) => api('GET', `/v1/orgs/${org.id}/members`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 403, 404),
  },
  {
    name: 'getMemberInOrganizationById (another member)',
    call: ({ org, caller }) => api('GET', `/v1/orgs/${org.id}/members/${org.members.read.id === caller.id ? org.owner.id : org.members.read.id}`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 403, 404),
  },
  {
    name: 'getMemberInOrganizationById (themselves)',
    call: ({ org, caller }) => api('GET', `/v1/orgs/${org.id}/members/${caller.id}`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 200, 404),
  },
  {
    name: 'updateMemberInOrganizationById (another member, same role)',
    call: ({ org, caller }) =>
      api('PATCH', `/v1/orgs/${org.id}/members/${org.members.comment.id === caller.id ? org.members.read.id : org.members.comment.id}`, {
        token: caller.token,
        body: { role: org.members.comment.id === caller.id ? 'read' : 'comment' },
      }),
    expected: row(200, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    name: 'updateMemberInOrganizationById (promote themselves to admin)',
    call: ({ org, caller }) => api('PATCH', `/v1/orgs/${org.id}/members/${caller.id}`, { token: caller.token, body: { role: 'admin' } }),
    expected: row(200, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    name: 'removeMemberFromOrganizationById (a user who is not a member)',
    call: ({ org, caller, stranger }) => api('DELETE', `/v1/orgs/${org.id}/members/${stranger.id}`, { token: caller.token }),
    expected: row(204, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    // The only admin may not leave; everyone else may.
    name: 'removeMemberFromOrganizationById (leave)',
    call: ({ org, caller }) => api('DELETE', `/v1/orgs/${org.id}/members/${caller.id}`, { token: caller.token }),
    expected: row(400, 204, 204, 204, 204, 204, 204, 404),
  },
  {
    name: 'inviteUsersToOrganization',
    call: ({ org, caller }) => api('POST', `/v1/orgs/${org.id}/invites`, { token: caller.token, body: { emails: [`table-${uniq()}@example.test`] } }),
    expected: row(200, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    name: 'createOrganizationInvite',
    call: ({ org, caller }) => api('POST', `/v1/orgs/${org.id}/link-invites`, { token: caller.token, body: { role: 'read' } }),
    expected: row(201, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    name: 'listOrganizationInviteLinks',
    call: ({ org, caller }) => api('GET', `/v1/orgs/${org.id}/link-invites`, { token: caller.token }),
    expected: row(200, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    name: 'deleteOrganizationInviteById',
    call: ({ org, caller }) => api('DELETE', `/v1/orgs/${org.id}/link-invites/noSuchInvite00000000`, { token: caller.token }),
    expected: row(204, 403, 403, 403, 403, 403, 403, 404),
  },
  {
    // Anyone holding the link may use it: that is what an invite link is for.
    name: 'joinOrganizationWithInvite (guest invite)',
    call: ({ org, caller, inviteId }) => api('POST', `/v1/orgs/${org.id}/invites/${inviteId}`, { token: caller.token }),
    expected: row(200, 200, 200, 200, 200, 200, 200, 200),
  },
];

describe('authorization of the Organizations group, by role', () => {
  it.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', async (_name, op) => {
    const org = await seedOrg();
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { emailDomains: ['example.test'] } }), 200);
    const invite = expectStatus(await api('POST', `/v1/orgs/${org.id}/link-invites`, { token: org.owner.token, body: { role: null } }), 201);
    const stranger = await createUser();
    const actual: Partial<Record<Caller, number>> = {};
    for (const caller of CALLERS) {
      const user = callerUser(org, caller);
      const res = await api('GET', '/v1/user', { token: user.token });
      expect(res.status).toBe(200);
      const out = await op.call({ org, caller: user, inviteId: invite.body.id, stranger });
      actual[caller] = out.status;
      if (out.status >= 400) expect(out.body, `${op.name} as ${caller}`).toEqual({ error: { code: out.status, message: expect.any(String) } });
    }
    // One assertion over the whole row shows every mismatch at once.
    expect(actual).toEqual(op.expected);
  });

  it('permissions booleans agree with what each role may do', async () => {
    const org = await seedOrg();
    for (const caller of ALL_ROLES) {
      const token = org.members[caller].token;
      const { permissions } = (await api('GET', `/v1/orgs/${org.id}`, { token })).body;
      const members = await api('GET', `/v1/orgs/${org.id}/members`, { token });
      expect(members.status === 200, `listMembers for ${caller}`).toBe(permissions.listMembers);
      const teams = await api('GET', `/v1/orgs/${org.id}/teams`, { token });
      expect(teams.status === 200, `listTeams for ${caller}`).toBe(permissions.listTeams);
      const links = await api('GET', `/v1/orgs/${org.id}/link-invites`, { token });
      expect(links.status === 200, `admin for ${caller}`).toBe(permissions.admin);
    }
  });
});

describe('authentication of every operation of the group', () => {
  interface Endpoint {
    name: string;
    method: string;
    path: (f: { orgId: string; userId: string }) => string;
    body?: unknown;
    /** Who may call it: a user token, the operator token, or both. */
    actor: 'user' | 'operator' | 'both';
  }
  const ENDPOINTS: Endpoint[] = [
    { name: 'listOrganizationsForAuthenticatedUser', method: 'GET', path: () => '/v1/orgs', actor: 'user' },
    { name: 'createOrganization', method: 'POST', path: () => '/v1/orgs', body: { title: 'Auth check' }, actor: 'user' },
    { name: 'getOrganizationById', method: 'GET', path: ({ orgId }) => `/v1/orgs/${orgId}`, actor: 'user' },
    { name: 'updateOrganizationById', method: 'PATCH', path: ({ orgId }) => `/v1/orgs/${orgId}`, body: { title: 'Auth check' }, actor: 'user' },
    { name: 'joinOrganization', method: 'POST', path: ({ orgId }) => `/v1/orgs/${orgId}/join`, actor: 'user' },
    { name: 'getOrganizationsForEmailDomain', method: 'GET', path: () => '/v1/email-domains/example.test/orgs', actor: 'user' },
    { name: 'listMembersInOrganizationById', method: 'GET', path: ({ orgId }) => `/v1/orgs/${orgId}/members`, actor: 'user' },
    { name: 'getMemberInOrganizationById', method: 'GET', path: ({ orgId, userId }) => `/v1/orgs/${orgId}/members/${userId}`, actor: 'user' },
    {
      name: 'updateMemberInOrganizationById',
      method: 'PATCH',
      path: ({ orgId, userId }) => `/v1/orgs/${orgId}/members/${userId}`,
      body: { role: 'admin' },
      actor: 'user',
    },
    { name: 'removeMemberFromOrganizationById', method: 'DELETE', path: ({ orgId, userId }) => `/v1/orgs/${orgId}/members/${userId}`, actor: 'user' },
    {
      name: 'inviteUsersToOrganization',
      method: 'POST',
      path: ({ orgId }) => `/v1/orgs/${orgId}/invites`,
      body: { emails: ['auth-check@example.test'] },
      actor: 'user',
    },
    { name: 'createOrganizationInvite', method: 'POST', path: ({ orgId }) => `/v1/orgs/${orgId}/link-invites`, body: { role: 'read' }, actor: 'user' },
    { name: 'listOrganizationInviteLinks', method: 'GET', path: ({ orgId }) => `/v1/orgs/${orgId}/link-invites`, actor: 'user' },
    { name: 'deleteOrganizationInviteById', method: 'DELETE', path: ({ orgId }) => `/v1/orgs/${orgId}/link-invites/someInvite0000000000`, actor: 'user' },
    { name: 'joinOrganizationWithInvite', method: 'POST', path: ({ orgId }) => `/v1/orgs/${orgId}/invites/someInvite0000000000`, actor: 'user' },
    { name: 'getAuthenticatedUser', method: 'GET', path: () => '/v1/user', actor: 'user' },
    { name: 'listAuthenticatedUserTokens', method: 'GET', path: () => '/v1/user/tokens', actor: 'user' },
    { name: 'revokeAuthenticatedUserToken', method: 'DELETE', path: () => '/v1/user/tokens/someToken00000000000', actor: 'user' },
    {
      name: 'createUser',
      method: 'POST',
      path: () => '/v1/users',
      body: { displayName: 'Auth check', email: 'auth-check-user@example.test' },
      actor: 'operator',
    },
    { name: 'getUserById', method: 'GET', path: ({ userId }) => `/v1/users/${userId}`, actor: 'both' },
    { name: 'createUserToken', method: 'POST', path: ({ userId }) => `/v1/users/${userId}/tokens`, body: {}, actor: 'operator' },
  ];

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))('%s: 401 without or with a bad token, 403 for the wrong kind of token', async (_name, endpoint) => {
    const org = await seedOrg();
    const path = endpoint.path({ orgId: org.id, userId: org.owner.id });
    const call = (token: string | null, headers?: Record<string, string>) => api(endpoint.method, path, { token, body: endpoint.body, headers });
    expectError(await call(null), 401);
    expectError(await call('dpa_thisIsNotARealToken000000000000000000'), 401);
    expectError(await call(`${ADMIN_TOKEN}x`), 401);
    expectError(await call(null, { Authorization: `Basic ${btoa('user:pass')}` }), 401);
    expectError(await call(null, { Authorization: 'Bearer' }), 401);
    if (endpoint.actor === 'user') expectError(await call(ADMIN_TOKEN), 403, 'user');
    if (endpoint.actor === 'operator') expectError(await call(org.owner.token), 403, 'operator');
    if (endpoint.actor === 'both') {
      expect((await call(ADMIN_TOKEN)).status).toBe(200);
      expect((await call(org.members.guest.token)).status).toBe(200);
      // A user of another organization may not learn that this account exists.
      expectError(await call(org.outsider.token), 404);
    }
  });
});

describe('routing', () => {
  it('answers 404 with the error body for an unknown route', async () => {
    const user = await createUser();
    expectError(await api('GET', '/v1/organizations', { token: user.token }), 404);
    expectError(await api('GET', '/v1/orgs/x/y/z/w', { token: user.token }), 404);
    expectError(await api('POST', '/v1/user/nothing', { token: user.token }), 404);
  });

  it('answers 405 with the error body and an Allow header for a wrong method on a known path', async () => {
    const org = await seedOrg();
    const t = org.owner.token;
    const cases: [string, string, string[]][] = [
      ['DELETE', `/v1/orgs/${org.id}`, ['GET', 'PATCH']],
      ['PUT', '/v1/orgs', ['GET', 'POST']],
      ['GET', `/v1/orgs/${org.id}/join`, ['POST']],
      ['POST', `/v1/orgs/${org.id}/members`, ['GET']],
      ['PUT', `/v1/orgs/${org.id}/members/${org.owner.id}`, ['GET', 'PATCH', 'DELETE']],
      ['GET', `/v1/orgs/${org.id}/invites`, ['POST']],
      ['PATCH', `/v1/orgs/${org.id}/link-invites`, ['GET', 'POST']],
      ['DELETE', '/v1/user', ['GET']],
      ['GET', '/v1/users', ['POST']],
      ['POST', '/v1/user/tokens', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await api(method, path, { token: t });
      expectError(res, 405, method);
      const allow = (res.headers.get('Allow') ?? '').split(',').map((m) => m.trim());
      expect(allow.sort(), `${method} ${path}`).toEqual([...allowed].sort());
      // The route was not run: nothing was deleted.
    }
    expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: t }), 200);
  });

  it('does not answer 405 for a method the path allows (trailing slash)', async () => {
    const user = await createUser();
    const res = await api('GET', '/v1/orgs/', { token: user.token });
    // Either the route is served or the path is unknown; a 405 listing GET in Allow contradicts itself.
    expect([200, 404], JSON.stringify(res.body)).toContain(res.status);
  });

  it('answers 413 for a body over 1 MB', async () => {
    const user = await createUser();
    expectError(await api('POST', '/v1/orgs', { token: user.token, rawBody: JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) }) }), 413);
  });

  it('answers a JSON error for a body that is not JSON', async () => {
    const user = await createUser();
    const res = await api('POST', '/v1/orgs', { token: user.token, rawBody: 'title=Acme', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect([400, 415]).toContain(res.status);
    expectError(res, res.status);
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(0);
  });
});
