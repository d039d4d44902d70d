import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, createUser, expectError, seedOrg } from '../helpers/harness';

describe('who can see a user', () => {
  it('shows a user to themselves, to people of a shared organization and to the operator, and hides them from others', async () => {
    const org = await seedOrg();
    const target = org.members.read;
    expect((await api('GET', `/v1/users/${target.id}`, { token: target.token })).status).toBe(200);
    const byColleague = await api('GET', `/v1/users/${target.id}`, { token: org.members.guest.token });
    expect(byColleague.status).toBe(200);
    expect(byColleague.body.email).toBe(target.email);
    expect((await api('GET', `/v1/users/${target.id}`, { token: ADMIN_TOKEN })).status).toBe(200);
    expectError(await api('GET', `/v1/users/${target.id}`, { token: org.outsider.token }), 404);
    const loner = await createUser();
    expectError(await api('GET', `/v1/users/${target.id}`, { token: loner.token }), 404);
  });
});

describe('activity tracking', () => {
  it("stamps the token's lastUsedAt and the member's lastSeenAt in every organization on use", async () => {
    const org = await seedOrg();
    const member = org.members.edit;
    const before = await env.DB.prepare('select last_seen_at from org_members where org_id = ? and user_id = ?')
      .bind(org.id, member.id)
      .first<{ last_seen_at: string | null }>();
    expect(before?.last_seen_at).toBeNull();
    expect((await api('GET', '/v1/user', { token: member.token })).status).toBe(200);
    const after = await env.DB.prepare('select last_seen_at from org_members where org_id = ? and user_id = ?')
      .bind(org.id, member.id)
      .first<{ last_seen_at: string | null }>();
    expect(after?.last_seen_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const tokens = await api('GET', '/v1/user/tokens', { token: member.token });
    expect(tokens.body.items[0].lastUsedAt).toBe(after?.last_seen_at);
    const seen = await api('GET', `/v1/orgs/${org.id}/members?sort=lastSeenAt`, { token: org.owner.token });
    expect(seen.body.items.map((m: { id: string }) => m.id)).toContain(member.id);
  });
});
