import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { listOf } from '../../src/schemas/common';
import { InviteLinkSchema } from '../../src/schemas/invite';
import { MemberSchema } from '../../src/schemas/member';
import { ADMIN_TOKEN, ALL_ROLES, addMember, api, createUser, expectError, seedOrg, type TestOrg } from '../helpers/harness';
import { collectPages, createOrg, expectSchema, expectStatus, uniq } from './support';

/** The response of inviteUsersToOrganization, as declared by the route. */
const InviteOutcomeSchema = z.object({ users: z.array(z.string()), invited: z.number(), pending: z.array(z.string()) }).strict();
const InviteLinkListSchema = listOf(InviteLinkSchema, 'InviteLinks');
const StrictInviteLink = InviteLinkSchema.strict();

const invitePath = (orgId: string) => `/v1/orgs/${orgId}/invites`;
const linksPath = (orgId: string) => `/v1/orgs/${orgId}/link-invites`;
const joinPath = (orgId: string, inviteId: string) => `/v1/orgs/${orgId}/invites/${inviteId}`;
const freshEmail = () => `invitee-${uniq()}@example.test`;

async function roleIn(org: TestOrg, userId: string): Promise<string | null | undefined> {
  const res = await api('GET', `/v1/orgs/${org.id}/members/${userId}`, { token: org.owner.token });
  if (res.status === 404) return undefined;
  expectStatus(res, 200);
  return expectSchema(MemberSchema, res.body).role;
}

async function createLink(org: TestOrg, role: string | null = 'edit'): Promise<z.infer<typeof InviteLinkSchema>> {
  const res = expectStatus(await api('POST', linksPath(org.id), { token: org.owner.token, body: { role } }), 201);
  return expectSchema(StrictInviteLink, res.body);
}

describe('inviteUsersToOrganization: POST /v1/orgs/{organizationId}/invites', () => {
  it("adds an existing user at once (listed in users) with the invited role, whatever the email's case", async () => {
    const org = await seedOrg();
    const existing = await createUser();
    const res = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [existing.email.toUpperCase()], role: 'review' } }), 200);
    expect(expectSchema(InviteOutcomeSchema, res.body)).toEqual({ users: [existing.id], invited: 1, pending: [] });
    expect(await roleIn(org, existing.id)).toBe('review');
    const mine = expectStatus(await api('GET', '/v1/orgs', { token: existing.token }), 200);
    expect(mine.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);
  });

  it('holds an unknown email as pending; creating a user with that email makes them a member with the invited role', async () => {
    const org = await seedOrg();
    const email = freshEmail();
    const res = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [{ email: email.toUpperCase(), role: 'create' }] } }), 200);
    expect(expectSchema(InviteOutcomeSchema, res.body)).toEqual({ users: [], invited: 1, pending: [email] });
    // Nobody joined yet.
    expect((await api('GET', `/v1/orgs/${org.id}/members`, { token: org.owner.token })).body.count).toBe(ALL_ROLES.length);

    const user = await createUser({ email });
    expect(await roleIn(org, user.id)).toBe('create');
    const org0 = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: user.token }), 200);
    expect(org0.body.permissions.createContent).toBe(true);
    // The held invitation was consumed: it does not apply twice (a second org invite is independent).
    expect((await api('GET', `/v1/orgs/${org.id}/members`, { token: org.owner.token })).body.count).toBe(ALL_ROLES.length + 1);
  });

  it('does not hand an invitation to an account whose email is unverified', async () => {
    const org = await seedOrg();
    // Held first, then an account with that email appears, unverified: the invitation stays held.
    const email = freshEmail();
    expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [email], role: 'admin' } }), 200);
    const claimer = await createUser({ email, emailVerified: false });
    expect(await roleIn(org, claimer.id)).toBeUndefined();
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: claimer.token }), 404);
    // The account exists first, unverified: the invitation is held, not turned into a membership.
    const unverified = await createUser({ emailVerified: false });
    const res = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [unverified.email], role: 'edit' } }), 200);
    expect(expectSchema(InviteOutcomeSchema, res.body)).toEqual({ users: [], invited: 1, pending: [unverified.email] });
    expect(await roleIn(org, unverified.id)).toBeUndefined();
  });

  it('uses per-email roles, then the role given, then the organization defaultRole', async () => {
    const org = await seedOrg();
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { defaultRole: 'comment' } }), 200);
    const a = await createUser();
    const b = await createUser();
    const pendingEmail = freshEmail();
    const withRole = expectStatus(
      await api('POST', invitePath(org.id), {
        token: org.owner.token,
        body: { emails: [a.email, { email: b.email, role: null }, pendingEmail], role: 'edit' },
      }),
      200,
    );
    expect(withRole.body.invited).toBe(3);
    expect(withRole.body.users.sort()).toEqual([a.id, b.id].sort());
    expect(withRole.body.pending).toEqual([pendingEmail]);
    expect(await roleIn(org, a.id)).toBe('edit');
    expect(await roleIn(org, b.id)).toBeNull();
    const pendingUser = await createUser({ email: pendingEmail });
    expect(await roleIn(org, pendingUser.id)).toBe('edit');

    const c = await createUser();
    expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [c.email] } }), 200);
    expect(await roleIn(org, c.id)).toBe('comment');
  });

  it('counts a repeated email once, and a re-invitation replaces the held role', async () => {
    const org = await seedOrg();
    const email = freshEmail();
    const first = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [email, email.toUpperCase()], role: 'read' } }), 200);
    expect(first.body).toEqual({ users: [], invited: 1, pending: [email] });
    expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [{ email, role: 'review' }] } }), 200);
    const user = await createUser({ email });
    expect(await roleIn(org, user.id)).toBe('review');
  });

  it('holds invitations of several organizations for the same email', async () => {
    const a = await seedOrg();
    const b = await seedOrg();
    const email = freshEmail();
    expectStatus(await api('POST', invitePath(a.id), { token: a.owner.token, body: { emails: [email], role: 'edit' } }), 200);
    expectStatus(await api('POST', invitePath(b.id), { token: b.owner.token, body: { emails: [email], role: null } }), 200);
    const user = await createUser({ email });
    expect(await roleIn(a, user.id)).toBe('edit');
    expect(await roleIn(b, user.id)).toBeNull();
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(2);
  });

  it('marks members invited with sso:true as SSO members', async () => {
    const org = await seedOrg();
    const existing = await createUser();
    const email = freshEmail();
    expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [existing.email, email], sso: true } }), 200);
    const later = await createUser({ email });
    for (const id of [existing.id, later.id]) {
      const member = expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${id}`, { token: org.owner.token }), 200);
      expect(member.body.sso).toBe(true);
    }
  });

  it('does not change the role of someone who is already a member', async () => {
    const org = await seedOrg();
    const res = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails: [org.members.create.email], role: 'read' } }), 200);
    expect(res.body.users).toEqual([org.members.create.id]);
    expect(await roleIn(org, org.members.create.id)).toBe('create');
  });

  it('rejects invalid bodies with 400 naming the field, inviting nobody', async () => {
    const org = await seedOrg();
    const email = freshEmail();
    const post = (body: unknown) => api('POST', invitePath(org.id), { token: org.owner.token, body });
    expectError(await post({}), 400, 'emails');
    expectError(await post({ emails: [] }), 400, 'emails');
    expectError(await post({ emails: ['not-an-email'] }), 400, 'emails');
    expectError(await post({ emails: [email, 'broken@'] }), 400, 'emails');
    expectError(await post({ emails: [{ email }] }), 400, 'emails');
    expectError(await post({ emails: [{ email, role: 'owner' }] }), 400, 'emails');
    expectError(await post({ emails: [email], role: 'owner' }), 400, 'role');
    expectError(await post({ emails: [email], sso: 'yes' }), 400, 'sso');
    expectError(await post({ emails: Array.from({ length: 101 }, (_, i) => `bulk${i}-${uniq()}@example.test`) }), 400, 'emails');
    expectError(await api('POST', invitePath(org.id), { token: org.owner.token, rawBody: '{"emails": [' }), 400, 'json');
    expectError(await api('POST', invitePath(org.id), { token: org.owner.token }), 400);
    // The valid email of a rejected request was not held.
    const user = await createUser({ email });
    expect(await roleIn(org, user.id)).toBeUndefined();
  });

  it('accepts 100 emails in one request', async () => {
    const org = await seedOrg();
    const emails = Array.from({ length: 100 }, (_, i) => `hundred${i}-${uniq()}@example.test`);
    const res = expectStatus(await api('POST', invitePath(org.id), { token: org.owner.token, body: { emails } }), 200);
    expect(res.body.invited).toBe(100);
    expect(res.body.pending).toHaveLength(100);
  });

  it('answers 403 to members below admin and 404 to a non-member, inviting nobody', async () => {
    const org = await seedOrg();
    const email = freshEmail();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await api('POST', invitePath(org.id), { token: org.members[role].token, body: { emails: [email] } }), 403);
    }
    expectError(await api('POST', invitePath(org.id), { token: org.outsider.token, body: { emails: [email] } }), 404);
    expectError(await api('POST', invitePath('doesNotExist000000000'), { token: org.owner.token, body: { emails: [email] } }), 404);
    const user = await createUser({ email });
    expect(await roleIn(org, user.id)).toBeUndefined();
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('POST', invitePath(org.id), { body: { emails: [freshEmail()] } }), 401);
    expectError(await api('POST', invitePath(org.id), { token: ADMIN_TOKEN, body: { emails: [freshEmail()] } }), 403);
  });
});

describe('createOrganizationInvite: POST /v1/orgs/{organizationId}/link-invites', () => {
  it('creates an invite link (201) with its role and join URL', async () => {
    const org = await seedOrg();
    for (const role of ['admin', 'create', 'review', 'edit', 'comment', 'read', null] as const) {
      const invite = await createLink(org, role);
      expect(invite).toMatchObject({ object: 'invite', role, redundant: true });
      expect(invite.id).toMatch(/^[0-9A-Za-z]{20}$/);
      expect(invite.urls).toEqual({
        location: `http://api.test/v1/orgs/${org.id}/link-invites/${invite.id}`,
        join: `http://api.test/v1/orgs/${org.id}/invites/${invite.id}`,
      });
      expect(new Date(invite.createdAt).toISOString()).toBe(invite.createdAt);
    }
  });

  it('rejects a missing or unknown role and malformed JSON with 400', async () => {
    const org = await seedOrg();
    expectError(await api('POST', linksPath(org.id), { token: org.owner.token, body: {} }), 400, 'role');
    expectError(await api('POST', linksPath(org.id), { token: org.owner.token, body: { role: 'owner' } }), 400, 'role');
    expectError(await api('POST', linksPath(org.id), { token: org.owner.token, rawBody: '{"role"' }), 400, 'json');
  });

  it('answers 400 while invite links are disabled for the organization, 201 again once enabled', async () => {
    const org = await seedOrg();
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { inviteLinks: false } }), 200);
    expectError(await api('POST', linksPath(org.id), { token: org.owner.token, body: { role: 'read' } }), 400, 'inviteLinks');
    expect((await api('GET', linksPath(org.id), { token: org.owner.token })).body.count).toBe(0);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { inviteLinks: true } }), 200);
    await createLink(org, 'read');
  });

  it('answers 403 to members below admin and 404 to a non-member', async () => {
    const org = await seedOrg();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await api('POST', linksPath(org.id), { token: org.members[role].token, body: { role: 'read' } }), 403);
    }
    expectError(await api('POST', linksPath(org.id), { token: org.outsider.token, body: { role: 'read' } }), 404);
    expect((await api('GET', linksPath(org.id), { token: org.owner.token })).body.count).toBe(0);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('POST', linksPath(org.id), { body: { role: 'read' } }), 401);
    expectError(await api('POST', linksPath(org.id), { token: ADMIN_TOKEN, body: { role: 'read' } }), 403);
  });
});

describe('listOrganizationInviteLinks: GET /v1/orgs/{organizationId}/link-invites', () => {
  it("lists the organization's invite links only", async () => {
    const org = await seedOrg();
    const a = await createLink(org, 'read');
    const b = await createLink(org, null);
    const otherOrg = await createOrg(org.outsider.token);
    expectStatus(await api('POST', linksPath(otherOrg), { token: org.outsider.token, body: { role: 'admin' } }), 201);
    const res = expectStatus(await api('GET', linksPath(org.id), { token: org.owner.token }), 200);
    const body = expectSchema(InviteLinkListSchema, res.body);
    expect(body.count).toBe(2);
    expect(body.items.map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    expect(body.items.find((i) => i.id === b.id)!.role).toBeNull();
  });

  it('paginates with limit and next.page to the end; rejects bad limit and page with 400', async () => {
    const org = await seedOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createLink(org, 'read')).id);
    const pages = await collectPages(linksPath(org.id), org.owner.token, 2);
    expect(pages.count).toBe(5);
    expect(pages.pages).toBe(3);
    expect([...pages.ids].sort()).toEqual([...ids].sort());
    expectError(await api('GET', `${linksPath(org.id)}?limit=0`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${linksPath(org.id)}?limit=1001`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${linksPath(org.id)}?page=garbage`, { token: org.owner.token }), 400, 'page');
  });

  it('answers 403 to members below admin and 404 to a non-member', async () => {
    const org = await seedOrg();
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) expectError(await api('GET', linksPath(org.id), { token: org.members[role].token }), 403);
    expectError(await api('GET', linksPath(org.id), { token: org.outsider.token }), 404);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('GET', linksPath(org.id)), 401);
    expectError(await api('GET', linksPath(org.id), { token: ADMIN_TOKEN }), 403);
  });
});

describe('deleteOrganizationInviteById: DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}', () => {
  it('deletes the invite link (204); deleting it again or an unknown id is also 204', async () => {
    const org = await seedOrg();
    const keep = await createLink(org, 'read');
    const gone = await createLink(org, 'edit');
    const res = await api('DELETE', `${linksPath(org.id)}/${gone.id}`, { token: org.owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    const list = expectStatus(await api('GET', linksPath(org.id), { token: org.owner.token }), 200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([keep.id]);
    expect((await api('DELETE', `${linksPath(org.id)}/${gone.id}`, { token: org.owner.token })).status).toBe(204);
    expect((await api('DELETE', `${linksPath(org.id)}/noSuchInvite00000000`, { token: org.owner.token })).status).toBe(204);
    // The deleted link no longer lets anyone join.
    const joiner = await createUser();
    expectError(await api('POST', joinPath(org.id, gone.id), { token: joiner.token }), 404);
    expect(await roleIn(org, joiner.id)).toBeUndefined();
  });

  it("does not delete another organization's invite through one's own organization", async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    const otherOrg = await createOrg(org.outsider.token);
    expect((await api('DELETE', `${linksPath(otherOrg)}/${invite.id}`, { token: org.outsider.token })).status).toBe(204);
    const list = expectStatus(await api('GET', linksPath(org.id), { token: org.owner.token }), 200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([invite.id]);
  });

  it('answers 403 to members below admin and 404 to a non-member, deleting nothing', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await api('DELETE', `${linksPath(org.id)}/${invite.id}`, { token: org.members[role].token }), 403);
    }
    expectError(await api('DELETE', `${linksPath(org.id)}/${invite.id}`, { token: org.outsider.token }), 404);
    expect((await api('GET', linksPath(org.id), { token: org.owner.token })).body.count).toBe(1);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    expectError(await api('DELETE', `${linksPath(org.id)}/${invite.id}`), 401);
    expectError(await api('DELETE', `${linksPath(org.id)}/${invite.id}`, { token: ADMIN_TOKEN }), 403);
  });
});

describe('joinOrganizationWithInvite: POST /v1/orgs/{organizationId}/invites/{inviteId}', () => {
  it("makes a non-member a member with the invite's role (200), and the link can be used again", async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'comment');
    const first = await createUser();
    const second = await createUser();
    for (const user of [first, second]) {
      const res = expectStatus(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 200);
      expect(res.body).toEqual({});
      expect(await roleIn(org, user.id)).toBe('comment');
    }
    const mine = expectStatus(await api('GET', '/v1/orgs', { token: first.token }), 200);
    expect(mine.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);
    // The link stays listed.
    expect((await api('GET', linksPath(org.id), { token: org.owner.token })).body.count).toBe(1);
  });

  it('joins as a guest with a guest invite', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, null);
    const user = await createUser();
    expectStatus(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 200);
    expect(await roleIn(org, user.id)).toBeNull();
  });

  it('keeps an existing higher role, and raises a lower one to the invite role', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'edit');
    for (const role of ['admin', 'create', 'review', 'edit'] as const) {
      expectStatus(await api('POST', joinPath(org.id, invite.id), { token: org.members[role].token }), 200);
      expect(await roleIn(org, org.members[role].id), role).toBe(role);
    }
    for (const role of ['comment', 'read', 'guest'] as const) {
      expectStatus(await api('POST', joinPath(org.id, invite.id), { token: org.members[role].token }), 200);
      expect(await roleIn(org, org.members[role].id), role).toBe('edit');
    }
  });

  it('answers 404 for a deleted or unknown invite, and for an invite used with another organization id', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    const user = await createUser();
    expectError(await api('POST', joinPath(org.id, 'noSuchInvite00000000'), { token: user.token }), 404, 'invite');
    const otherOrg = await createOrg(org.outsider.token);
    expectError(await api('POST', joinPath(otherOrg, invite.id), { token: user.token }), 404);
    expectError(await api('POST', joinPath('doesNotExist000000000', invite.id), { token: user.token }), 404);
    expect((await api('DELETE', `${linksPath(org.id)}/${invite.id}`, { token: org.owner.token })).status).toBe(204);
    expectError(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 404);
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(0);
  });

  it('refuses existing links while invite links are disabled', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { inviteLinks: false } }), 200);
    const user = await createUser();
    expectError(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 403, 'disabled');
    expect(await roleIn(org, user.id)).toBeUndefined();
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { inviteLinks: true } }), 200);
    expectStatus(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 200);
    expect(await roleIn(org, user.id)).toBe('read');
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'read');
    expectError(await api('POST', joinPath(org.id, invite.id)), 401);
    expectError(await api('POST', joinPath(org.id, invite.id), { token: 'dpa_invalid' }), 401);
    expectError(await api('POST', joinPath(org.id, invite.id), { token: ADMIN_TOKEN }), 403);
  });
});

describe('invites and memberships together', () => {
  it('a member removed after joining by link can join again with it', async () => {
    const org = await seedOrg();
    const invite = await createLink(org, 'review');
    const user = await createUser();
    await addMember(org.id, user.id, 'read');
    expect((await api('DELETE', `/v1/orgs/${org.id}/members/${user.id}`, { token: user.token })).status).toBe(204);
    expectStatus(await api('POST', joinPath(org.id, invite.id), { token: user.token }), 200);
    expect(await roleIn(org, user.id)).toBe('review');
  });
});
