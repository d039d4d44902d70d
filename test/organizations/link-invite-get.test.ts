import { describe, expect, it } from 'vitest';
import { InviteLinkSchema } from '../../src/schemas/invite';
import { api, createUser, expectError, seedOrg } from '../helpers/harness';

describe('getOrganizationInviteLink: GET /v1/orgs/{organizationId}/link-invites/{inviteId}', () => {
  it('returns the invite link to admins at its urls.location', async () => {
    const org = await seedOrg();
    const created = await api('POST', `/v1/orgs/${org.id}/link-invites`, { token: org.owner.token, body: { role: 'edit' } });
    expect(created.status).toBe(201);
    const location = new URL(created.body.urls.location).pathname;
    const res = await api('GET', location, { token: org.owner.token });
    expect(res.status).toBe(200);
    expect(InviteLinkSchema.parse(res.body)).toMatchObject({ id: created.body.id, role: 'edit', redundant: true });
  });

  it('answers 403 to non-admins, 404 to outsiders and for unknown invites, 401 without a token', async () => {
    const org = await seedOrg();
    const created = await api('POST', `/v1/orgs/${org.id}/link-invites`, { token: org.owner.token, body: { role: 'read' } });
    const path = `/v1/orgs/${org.id}/link-invites/${created.body.id}`;
    expectError(await api('GET', path, { token: org.members.create.token }), 403);
    expectError(await api('GET', path, { token: org.outsider.token }), 404);
    expectError(await api('GET', `/v1/orgs/${org.id}/link-invites/nope`, { token: org.owner.token }), 404);
    expectError(await api('GET', path), 401);
  });
});

describe('joinOrganization by an existing member', () => {
  it('is a no-op 204 even when their email domain is not allowed', async () => {
    const org = await seedOrg();
    const stranger = await createUser({ email: `x@not-allowed-${Date.now()}.example` });
    expectError(await api('POST', `/v1/orgs/${org.id}/join`, { token: stranger.token }), 404, 'organization not found');
    expect((await api('POST', `/v1/orgs/${org.id}/join`, { token: org.members.read.token })).status).toBe(204);
    const member = await api('GET', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.owner.token });
    expect(member.body.role).toBe('read');
  });
});
