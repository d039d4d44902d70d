/**
 * Sharing sites (issue 44): the site-permissions operations, and what a site grant opens: the site itself,
 * unpublished too (its settings at admin), and the spaces it links, at the granted role.
 */
import { describe, expect, it } from 'vitest';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { PERMISSIONS_BY_ROLE, createSpace, createTeam, getSpace } from '../spaces/support';

async function siteWithSpace(org: TestOrg) {
  const space = await createSpace(org, { defaultLevel: null });
  const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Handbook' } }), 201).body;
  expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { token: org.owner.token, body: { spaceId: space.id } }), 201);
  return { site, space, base: `/v1/orgs/${org.id}/sites/${site.id}` };
}

describe('inviteToSite', () => {
  it('lets a guest read the unpublished site and the spaces it links, until removed', async () => {
    const org = await seedOrg();
    const { site, space, base } = await siteWithSpace(org);
    const guest = org.members.guest;
    expectStatus(await api('GET', base, { token: guest.token }), 404);
    expectStatus(await api('POST', `${base}/permissions`, { token: org.owner.token, body: { role: 'read', users: [guest.id] } }), 204);
    const read = expectStatus(await api('GET', base, { token: guest.token }), 200).body;
    expect(read.id).toBe(site.id);
    expect(read.permissions.admin).toBe(false);
    expect((await getSpace(space.id, guest.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    // The unpublished site's published view answers the member who was given it.
    expectStatus(await api('GET', `${base}/published`, { token: guest.token }), 200);
    expectError(await api('PATCH', base, { token: guest.token, body: { title: 'Mine' } }), 403);
    const users = expectStatus(await api('GET', `${base}/permissions/users`, { token: guest.token }), 200).body;
    expect(users.items.map((i: any) => [i.user.id, i.permission])).toEqual([[guest.id, 'read']]);
    const everyone = expectStatus(await api('GET', `${base}/permissions/aggregate?limit=1000&role=guest`, { token: org.owner.token }), 200).body;
    expect(everyone.items.map((i: any) => [i.user.id, i.permission, i.origin])).toEqual([[guest.id, 'read', { type: 'site', site: site.id, reason: 'member' }]]);
    expectStatus(await api('PATCH', `${base}/permissions/users/${guest.id}`, { token: org.owner.token, body: { role: 'admin' } }), 204);
    expectStatus(await api('PATCH', base, { token: guest.token, body: { title: 'Shared' } }), 200);
    expectError(await api('PATCH', `${base}/permissions/users/${guest.id}`, { token: org.owner.token, body: { role: null } }), 400);
    expectStatus(await api('DELETE', `${base}/permissions/users/${guest.id}`, { token: org.owner.token }), 205);
    expectStatus(await api('GET', base, { token: guest.token }), 404);
    expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token: guest.token }), 404);
  });

  it("a team's grant reaches its members; the aggregate says which team", async () => {
    const org = await seedOrg();
    const { site, space, base } = await siteWithSpace(org);
    const team = await createTeam(org, [org.members.guest.id, org.members.read.id]);
    expectStatus(await api('POST', `${base}/permissions`, { token: org.owner.token, body: { role: 'edit', teams: [team.id] } }), 204);
    expect((await getSpace(space.id, org.members.guest.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
    const teams = expectStatus(await api('GET', `${base}/permissions/teams`, { token: org.owner.token }), 200).body;
    expect(teams.items.map((i: any) => [i.team.id, i.permission])).toEqual([[team.id, 'edit']]);
    const everyone = expectStatus(await api('GET', `${base}/permissions/aggregate?limit=1000&team=${team.id}&sort=name&order=asc`, { token: org.owner.token }), 200).body;
    expect(everyone.count).toBe(2);
    for (const item of everyone.items) expect(item.origin).toEqual({ type: 'site', site: site.id, reason: 'team', team: team.id });
    const admins = expectStatus(await api('GET', `${base}/permissions/aggregate?role=admin`, { token: org.owner.token }), 200).body;
    expect(admins.items.map((i: any) => [i.user.id, i.origin])).toEqual([[org.owner.id, { type: 'organization', organization: org.id }]]);
    expectStatus(await api('DELETE', `${base}/permissions/teams/${team.id}`, { token: org.owner.token }), 205);
    expectStatus(await api('GET', base, { token: org.members.guest.token }), 404);
  });

  it('needs admin on the site to share; another organization gets 404 on its ids', async () => {
    const org = await seedOrg();
    const { base } = await siteWithSpace(org);
    expectStatus(await api('POST', `${base}/permissions`, { token: org.members.create.token, body: { role: 'read', users: [org.members.guest.id] } }), 403);
    expectStatus(await api('POST', `${base}/permissions`, { token: org.members.guest.token, body: { role: 'read', users: [org.members.guest.id] } }), 404);
    expectStatus(await api('POST', `${base}/permissions`, { token: org.outsider.token, body: { role: 'read', users: [org.outsider.id] } }), 404);
    expectStatus(await api('GET', `${base}/permissions/aggregate`, { token: org.outsider.token }), 404);
  });
});
