import { describe, expect, it } from 'vitest';
import { gitbookErrors, gitbookOperations, schemaValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { CALLERS, api, byCaller, callerUser, expectError, expectStatus, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

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
