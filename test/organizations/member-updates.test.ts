import { describe, expect, it } from 'vitest';
import { gitbookErrors, gitbookOperations, schemaValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { CALLERS, api, byCaller, callerUser, expectError, expectStatus, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { TEST_CERTIFICATE } from '../fixtures/saml-providers/certificate';

const OPERATIONS = gitbookOperations();
/** GitBook 0.202.0's schema of an operation's 200 response. */
function gitbookResponse(operationId: string) {
  const schema = OPERATIONS.get(operationId)!.responses['200'];
  return schemaValidator(schema!, GITBOOK_0202.components);
}

describe('updateOrganizationInviteById: PATCH /v1/orgs/{organizationId}/link-invites/{inviteId}', () => {
  const createInvite = async (orgId: string, token: string, role = 'read') =>
    expectStatus(await api('POST', `/v1/orgs/${orgId}/link-invites`, { token, body: { role } }), 201).body as { id: string; urls: { location: string } };

  it("changes the role the link gives, answered in GitBook's shape; whoever joins next gets the new role", async () => {
    const org = await seedOrg();
    const invite = await createInvite(org.id, org.owner.token, 'read');
    const path = `/v1/orgs/${org.id}/link-invites/${invite.id}`;
    const res = expectStatus(await api('PATCH', path, { token: org.owner.token, body: { role: 'edit' } }), 200);
    expect(gitbookErrors(gitbookResponse('updateOrganizationInviteById'), res.body)).toBe('valid');
    expect(res.body).toMatchObject({ object: 'invite', id: invite.id, role: 'edit', redundant: true });
    expect(expectStatus(await api('GET', path, { token: org.owner.token }), 200).body.role).toBe('edit');

    // A guest role is a role too (null).
    expect(expectStatus(await api('PATCH', path, { token: org.owner.token, body: { role: null } }), 200).body.role).toBe(null);
    expectStatus(await api('PATCH', path, { token: org.owner.token, body: { role: 'comment' } }), 200);
    const { outsider } = org;
    expectStatus(await api('POST', `/v1/orgs/${org.id}/invites/${invite.id}`, { token: outsider.token }), 200);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${outsider.id}`, { token: org.owner.token }), 200).body.role).toBe('comment');
  });

  it('is for admins only: 403 for every other member, 404 for another organization and its admin, nothing changed', async () => {
    const org = await seedOrg();
    const invite = await createInvite(org.id, org.owner.token, 'read');
    const path = `/v1/orgs/${org.id}/link-invites/${invite.id}`;
    const expected = byCaller(200, 403, 403, 403, 403, 403, 403, 404);
    for (const caller of CALLERS) {
      const res = await api('PATCH', path, { token: callerUser(org, caller).token, body: { role: 'read' } });
      expect(res.status, caller).toBe(expected[caller]);
    }
    for (const caller of CALLERS.filter((c) => c !== 'admin')) {
      expectError(await api('PATCH', path, { token: callerUser(org, caller).token, body: { role: 'admin' } }), expected[caller]);
    }
    expect(expectStatus(await api('GET', path, { token: org.owner.token }), 200).body.role).toBe('read');

    // Another organization's admin, with an invite of their own organization named under the victim's, and the
    // victim's invite named under theirs: 404 both ways.
    const theirs = (await api('GET', '/v1/orgs', { token: org.outsider.token })).body.items[0].id as string;
    const theirInvite = await createInvite(theirs, org.outsider.token);
    expectError(await api('PATCH', `/v1/orgs/${theirs}/link-invites/${invite.id}`, { token: org.outsider.token, body: { role: 'admin' } }), 404);
    expectError(await api('PATCH', `/v1/orgs/${org.id}/link-invites/${theirInvite.id}`, { token: org.owner.token, body: { role: 'admin' } }), 404);
    expect(expectStatus(await api('GET', path, { token: org.owner.token }), 200).body.role).toBe('read');
    expectError(await api('PATCH', path, { body: { role: 'admin' } }), 401);
  });

  it('refuses hostile input with 400 and an unknown invite with 404', async () => {
    const org = await seedOrg();
    const invite = await createInvite(org.id, org.owner.token);
    const path = `/v1/orgs/${org.id}/link-invites/${invite.id}`;
    const token = org.owner.token;
    for (const body of [{}, { role: 'owner' }, { role: 7 }, { role: ['admin'] }, { role: 'x'.repeat(100_000) }, 'admin', [], null]) {
      expectError(await api('PATCH', path, { token, body }), 400);
    }
    // GitBook's other form sets the level of an invite to a space or collection: every invite here is the organization's.
    expectError(await api('PATCH', path, { token, body: { level: 'edit' } }), 400, 'role');
    expectError(await api('PATCH', `/v1/orgs/${org.id}/link-invites/${'x'.repeat(200)}`, { token, body: { role: 'edit' } }), 400);
    expectError(await api('PATCH', `/v1/orgs/${org.id}/link-invites/no-such-invite`, { token, body: { role: 'edit' } }), 404);
    expect(expectStatus(await api('GET', path, { token }), 200).body.role).toBe('read');
  });

  it('costs one round trip once the token is known', async () => {
    const org = await seedOrg();
    const invite = await createInvite(org.id, org.owner.token);
    const path = `/v1/orgs/${org.id}/link-invites/${invite.id}`;
    expectStatus(await api('PATCH', path, { token: org.owner.token, body: { role: 'edit' } }), 200);
    const { roundTrips, status } = await measureRoundTrips('PATCH', path, org.owner.token, { role: 'review' });
    expect(status).toBe(200);
    expect(roundTrips).toBe(1);
  });
});

describe('updateUserById: PATCH /v1/users/{userId}', () => {
  it("updates the caller's own name and picture, answered in GitBook's shape and seen by colleagues", async () => {
    const org = await seedOrg();
    const me = org.members.edit;
    const res = expectStatus(await api('PATCH', `/v1/users/${me.id}`, { token: me.token, body: { displayName: '  Ada Lovelace ' } }), 200);
    expect(gitbookErrors(gitbookResponse('updateUserById'), res.body)).toBe('valid');
    expect(res.body).toMatchObject({ object: 'user', id: me.id, displayName: 'Ada Lovelace' });
    const photo = 'https://example.com/ada.png';
    expect(expectStatus(await api('PATCH', `/v1/users/${me.id}`, { token: me.token, body: { photoURL: photo } }), 200).body).toMatchObject({ displayName: 'Ada Lovelace', photoURL: photo });
    expect(expectStatus(await api('GET', `/v1/users/${me.id}`, { token: org.members.read.token }), 200).body).toMatchObject({ displayName: 'Ada Lovelace', photoURL: photo });
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${me.id}`, { token: org.owner.token }), 200).body.user.displayName).toBe('Ada Lovelace');
    expect(expectStatus(await api('GET', '/v1/user', { token: me.token }), 200).body.displayName).toBe('Ada Lovelace');
    // Only the name and the picture: an email (or an id) sent along is not taken.
    const sneaky = expectStatus(await api('PATCH', `/v1/users/${me.id}`, { token: me.token, body: { displayName: 'Ada', email: 'owner@evil.example', id: 'other' } }), 200);
    expect(sneaky.body).toMatchObject({ id: me.id, displayName: 'Ada', email: me.email });
  });

  it("refuses everyone else: 403 to someone who shares an organization (admins included), 404 to a stranger, the user unchanged", async () => {
    const org = await seedOrg();
    const target = org.members.read;
    const before = expectStatus(await api('GET', `/v1/users/${target.id}`, { token: target.token }), 200).body;
    const expected = byCaller(403, 403, 403, 403, 403, 200, 403, 404);
    for (const caller of CALLERS) {
      const res = await api('PATCH', `/v1/users/${target.id}`, { token: callerUser(org, caller).token, body: { displayName: before.displayName } });
      expect(res.status, caller).toBe(expected[caller]);
    }
    for (const caller of CALLERS.filter((c) => c !== 'read')) {
      expectError(await api('PATCH', `/v1/users/${target.id}`, { token: callerUser(org, caller).token, body: { displayName: 'Taken over' } }), expected[caller]);
    }
    // A stranger gets the answer of a user that does not exist: whether the account exists does not leak.
    expectError(await api('PATCH', '/v1/users/no-such-user', { token: org.outsider.token, body: { displayName: 'x' } }), 404);
    expectError(await api('PATCH', `/v1/users/${target.id}`, { body: { displayName: 'x' } }), 401);
    expect(expectStatus(await api('GET', `/v1/users/${target.id}`, { token: target.token }), 200).body).toEqual(before);
  });

  it('lets the operator update any user', async () => {
    const org = await seedOrg();
    const res = await api('PATCH', `/v1/users/${org.outsider.id}`, { token: 'test-admin-token', body: { displayName: 'Renamed by the operator' } });
    expect(expectStatus(res, 200).body.displayName).toBe('Renamed by the operator');
    expectError(await api('PATCH', '/v1/users/no-such-user', { token: 'test-admin-token', body: { displayName: 'x' } }), 404);
  });

  it('refuses hostile input with 400 and changes nothing', async () => {
    const org = await seedOrg();
    const me = org.members.comment;
    const path = `/v1/users/${me.id}`;
    const before = expectStatus(await api('GET', path, { token: me.token }), 200).body;
    for (const body of [
      {},
      { displayName: '' },
      { displayName: '   ' },
      { displayName: 'x'.repeat(65) },
      { displayName: 'x'.repeat(100_000) },
      { displayName: 42 },
      { displayName: null },
      { photoURL: 'javascript:alert(1)' },
      { photoURL: 'not a url' },
      { photoURL: `https://example.com/${'a'.repeat(2100)}` },
      { photoURL: ['https://example.com/'] },
      { email: 'owner@evil.example' },
      'Ada',
      [],
    ]) {
      expectError(await api('PATCH', path, { token: me.token, body }), 400);
    }
    expectError(await api('PATCH', `/v1/users/${'x'.repeat(200)}`, { token: me.token, body: { displayName: 'x' } }), 400);
    expect(expectStatus(await api('GET', path, { token: me.token }), 200).body).toEqual(before);
  });

  it('costs one round trip once the token is known', async () => {
    const org = await seedOrg();
    const me = org.members.read;
    expectStatus(await api('PATCH', `/v1/users/${me.id}`, { token: me.token, body: { displayName: 'First' } }), 200);
    const { roundTrips, status } = await measureRoundTrips('PATCH', `/v1/users/${me.id}`, me.token, { displayName: 'Second' });
    expect(status).toBe(200);
    expect(roundTrips).toBe(1);
  });
});

describe('setUserAsSSOMemberForOrganization: POST /v1/orgs/{organizationId}/members/{userId}/sso', () => {
  const ssoPath = (orgId: string, userId: string) => `/v1/orgs/${orgId}/members/${userId}/sso`;
  const ACTIVE = { label: 'Okta', entityID: 'http://www.okta.com/exk1', certificate: TEST_CERTIFICATE, ssoURL: 'https://example.okta.com/app/sso/saml' };
  const addProvider = async (orgId: string, token: string, body: Record<string, unknown> = ACTIVE) =>
    expectStatus(await api('POST', `/v1/orgs/${orgId}/saml`, { token, body }), 201).body as { id: string };
  const ssoOf = async (orgId: string, userId: string, token: string) =>
    expectStatus(await api('GET', `/v1/orgs/${orgId}/members/${userId}`, { token }), 200).body.sso as boolean;

  it("marks the member as an SSO member, in GitBook's member shape, seen in the member and the member list", async () => {
    const org = await seedOrg();
    await addProvider(org.id, org.owner.token);
    const member = org.members.edit;
    expect(await ssoOf(org.id, member.id, org.owner.token)).toBe(false);
    const res = expectStatus(await api('POST', ssoPath(org.id, member.id), { token: org.owner.token }), 200);
    expect(gitbookErrors(gitbookResponse('setUserAsSSOMemberForOrganization'), res.body)).toBe('valid');
    expect(res.body).toMatchObject({ object: 'member', id: member.id, role: 'edit', sso: true, user: { id: member.id } });
    expect(await ssoOf(org.id, member.id, org.members.read.token)).toBe(true);
    const list = expectStatus(await api('GET', `/v1/orgs/${org.id}/members?limit=100`, { token: org.owner.token }), 200).body.items;
    expect(list.filter((m: { sso: boolean }) => m.sso).map((m: { id: string }) => m.id)).toEqual([member.id]);
    // Again: nothing changes, the same answer.
    expect(expectStatus(await api('POST', ssoPath(org.id, member.id), { token: org.owner.token }), 200).body.sso).toBe(true);
    // Only that organization's membership: the same user's membership elsewhere is untouched.
    const theirs = (await api('GET', '/v1/orgs', { token: org.outsider.token })).body.items[0].id as string;
    expectStatus(await api('POST', `/v1/orgs/${theirs}/invites`, { token: org.outsider.token, body: { emails: [member.email], role: 'read' } }), 200);
    expect(await ssoOf(theirs, member.id, org.outsider.token)).toBe(false);
  });

  it('needs an active SAML provider: 400 and nothing changed while the only one is pending', async () => {
    const org = await seedOrg();
    await addProvider(org.id, org.owner.token, { label: 'Not configured yet' });
    const member = org.members.read;
    expectError(await api('POST', ssoPath(org.id, member.id), { token: org.owner.token }), 400, 'SAML provider');
    expect(await ssoOf(org.id, member.id, org.owner.token)).toBe(false);
  });

  it('is for admins only: 403 to every other member (the member themself included), 404 to another organization', async () => {
    const org = await seedOrg();
    await addProvider(org.id, org.owner.token);
    const target = org.members.comment;
    const expected = byCaller(200, 403, 403, 403, 403, 403, 403, 404);
    for (const caller of CALLERS.filter((c) => c !== 'admin')) {
      expectError(await api('POST', ssoPath(org.id, target.id), { token: callerUser(org, caller).token }), expected[caller]);
      expectError(await api('POST', ssoPath(org.id, callerUser(org, caller).id), { token: callerUser(org, caller).token }), expected[caller]);
    }
    expect(await ssoOf(org.id, target.id, org.owner.token)).toBe(false);
    // Another organization's admin, with an active provider of their own, on the victim's ids, and the victim's
    // admin on a member of the other organization: 404 both ways, nothing changed.
    const theirs = (await api('GET', '/v1/orgs', { token: org.outsider.token })).body.items[0].id as string;
    await addProvider(theirs, org.outsider.token);
    expectError(await api('POST', ssoPath(theirs, target.id), { token: org.outsider.token }), 404);
    expectError(await api('POST', ssoPath(org.id, org.outsider.id), { token: org.owner.token }), 404);
    expect(await ssoOf(org.id, target.id, org.owner.token)).toBe(false);
    expect(await ssoOf(theirs, org.outsider.id, org.outsider.token)).toBe(false);
    expectError(await api('POST', ssoPath(org.id, target.id)), 401);
    expect(expectStatus(await api('POST', ssoPath(org.id, target.id), { token: org.owner.token }), 200).body.sso).toBe(true);
  });

  it('refuses bad ids with 400, unknown ones with 404, in one round trip', async () => {
    const org = await seedOrg();
    await addProvider(org.id, org.owner.token);
    const token = org.owner.token;
    expectError(await api('POST', ssoPath(org.id, 'x'.repeat(200)), { token }), 400);
    expectError(await api('POST', ssoPath('x'.repeat(200), org.members.read.id), { token }), 400);
    expectError(await api('POST', ssoPath(org.id, 'no-such-user'), { token }), 404);
    expectError(await api('POST', ssoPath('no-such-org', org.members.read.id), { token }), 404);
    const { roundTrips, status } = await measureRoundTrips('POST', ssoPath(org.id, org.members.read.id), token);
    expect(status).toBe(200);
    expect(roundTrips).toBe(1);
  });
});
