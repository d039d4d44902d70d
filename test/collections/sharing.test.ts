/**
 * Sharing collections (issue 44): the collection-permissions operations and what a collection grant opens: every
 * space and collection nested in the collection, at the granted role, for the user or the team's members.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, expectError, expectStatus, seedOrg } from '../helpers/harness';
import { PERMISSIONS_BY_ROLE, createCollection, createSpace, createTeam, getSpace } from '../spaces/support';
import { measureRoundTrips } from '../helpers/round-trips';

const perms = (id: string) => `/v1/collections/${id}/permissions`;
const share = async (token: string, collectionId: string, body: Record<string, unknown>) => api('POST', perms(collectionId), { token, body });

describe('inviteToCollection', () => {
  it("gives a user the role on the collection's spaces and nested collections, and nothing outside it", async () => {
    const org = await seedOrg();
    const outer = await createCollection(org, { defaultLevel: null });
    const inner = await createCollection(org, { parent: outer.id });
    const deep = await createSpace(org, { parent: inner.id });
    const elsewhere = await createSpace(org, { defaultLevel: null });
    const guest = org.members.guest;
    // A guest sees none of it before the grant.
    expectStatus(await api('GET', `/v1/spaces/${deep.id}`, { token: guest.token }), 404);
    expectStatus(await share(org.owner.token, outer.id, { role: 'edit', users: [guest.id] }), 204);
    expect((await getSpace(deep.id, guest.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.edit);
    const innerRead = expectStatus(await api('GET', `/v1/collections/${inner.id}`, { token: guest.token }), 200);
    expect(innerRead.body.permissions.view).toBe(true);
    expectStatus(await api('GET', `/v1/spaces/${elsewhere.id}`, { token: guest.token }), 404);
    // The grant is listed on the collection, not on the nested one; the aggregate of the nested one has the guest.
    const listed = expectStatus(await api('GET', `${perms(outer.id)}/users`, { token: org.owner.token }), 200).body;
    expect(listed.items.map((i: any) => [i.user.id, i.permission])).toEqual([[guest.id, 'edit']]);
    expect(expectStatus(await api('GET', `${perms(inner.id)}/users`, { token: org.owner.token }), 200).body.count).toBe(0);
    const aggregate = expectStatus(await api('GET', `${perms(inner.id)}/aggregate?limit=1000`, { token: org.owner.token }), 200).body;
    expect(aggregate.items.find((i: any) => i.user.id === guest.id)?.permission).toBe('edit');
    expect(aggregate.count).toBe(aggregate.items.length);
    // Lowered, then removed: the access goes with it (205 when removed, 204 when there was nothing).
    expectStatus(await api('PATCH', `${perms(outer.id)}/users/${guest.id}`, { token: org.owner.token, body: { role: 'read' } }), 204);
    expect((await getSpace(deep.id, guest.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    expectStatus(await api('DELETE', `${perms(outer.id)}/users/${guest.id}`, { token: org.owner.token }), 205);
    expectStatus(await api('DELETE', `${perms(outer.id)}/users/${guest.id}`, { token: org.owner.token }), 204);
    expectStatus(await api('GET', `/v1/spaces/${deep.id}`, { token: guest.token }), 404);
    expectError(await api('PATCH', `${perms(outer.id)}/users/${guest.id}`, { token: org.owner.token, body: { role: 'read' } }), 404, 'has not been added');
  });

  it("gives a team's members the role, and a member's removal from the team takes it away", async () => {
    const org = await seedOrg();
    const collection = await createCollection(org, { defaultLevel: null });
    const space = await createSpace(org, { parent: collection.id });
    const team = await createTeam(org, [org.members.read.id]);
    expectStatus(await share(org.owner.token, collection.id, { role: 'review', teams: [team.id] }), 204);
    expect((await getSpace(space.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);
    const teams = expectStatus(await api('GET', `${perms(collection.id)}/teams`, { token: org.members.read.token }), 200).body;
    expect(teams.items.map((i: any) => [i.team.id, i.permission])).toEqual([[team.id, 'review']]);
    expectStatus(await api('PATCH', `${perms(collection.id)}/teams/${team.id}`, { token: org.owner.token, body: { role: null } }), 204);
    expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token: org.members.read.token }), 404);
    expectStatus(await api('DELETE', `${perms(collection.id)}/teams/${team.id}`, { token: org.owner.token }), 204);
  });

  it('makes an outsider a guest of the organization; unknown users and other organizations\' teams are 400s', async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const collection = await createCollection(org);
    const newcomer = await createUser();
    expectStatus(await share(org.owner.token, collection.id, { role: 'comment', users: [newcomer.id] }), 204);
    const member = expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${newcomer.id}`, { token: org.owner.token }), 200).body;
    expect(member.role).toBeNull();
    expectError(await share(org.owner.token, collection.id, { role: 'read', users: ['no-such-user'] }), 400, 'do not exist');
    const foreignTeam = await createTeam(other);
    expectError(await share(org.owner.token, collection.id, { role: 'read', teams: [foreignTeam.id] }), 400, 'not teams of this organization');
    expectError(await share(org.owner.token, collection.id, { role: 'read' }), 400);
  });

  it('needs admin on the collection to share, read to list; others see 404', async () => {
    const org = await seedOrg();
    const collection = await createCollection(org);
    expectStatus(await share(org.members.create.token, collection.id, { role: 'read', users: [org.members.guest.id] }), 403);
    expectStatus(await share(org.members.guest.token, collection.id, { role: 'read', users: [org.members.guest.id] }), 404);
    expectStatus(await share(org.outsider.token, collection.id, { role: 'read', users: [org.outsider.id] }), 404);
    expectStatus(await api('GET', `${perms(collection.id)}/users`, { token: org.members.read.token }), 200);
    expectStatus(await api('GET', `${perms(collection.id)}/aggregate`, { token: org.outsider.token }), 404);
    // A collection admin by grant (not by organization role) shares it further.
    expectStatus(await share(org.owner.token, collection.id, { role: 'admin', users: [org.members.edit.id] }), 204);
    expectStatus(await share(org.members.edit.token, collection.id, { role: 'read', users: [org.members.guest.id] }), 204);
  });
});

describe('sharing: D1 round trips per request (DESIGN.md budget, the token lookup counted)', () => {
  it('lists answer in at most 2 and writes in at most 3, for collections and sites', async () => {
    const org = await seedOrg();
    const collection = await createCollection(org);
    const team = await createTeam(org, [org.members.read.id]);
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Counted' } }), 201).body;
    await api('GET', '/v1/user', { token: org.owner.token });
    for (const base of [perms(collection.id), `/v1/orgs/${org.id}/sites/${site.id}/permissions`]) {
      const writes: [string, string, unknown][] = [
        ['POST', base, { role: 'edit', users: [org.members.guest.id, org.members.read.id], teams: [team.id] }],
        ['PATCH', `${base}/users/${org.members.guest.id}`, { role: 'read' }],
        ['PATCH', `${base}/teams/${team.id}`, { role: 'comment' }],
        ['DELETE', `${base}/users/${org.members.read.id}`, undefined],
        ['DELETE', `${base}/teams/${team.id}`, undefined],
      ];
      for (const [method, path, body] of writes) {
        const r = await measureRoundTrips(method, path, org.owner.token, body);
        expect(r.status, `${method} ${path}`).toBeLessThan(300);
        expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
      }
      for (const path of [`${base}/users`, `${base}/teams`, `${base}/aggregate`, `${base}/aggregate?role=read&limit=1`]) {
        const r = await measureRoundTrips('GET', path, org.owner.token);
        expect(r.status, path).toBe(200);
        expect(r.roundTrips, path).toBeLessThanOrEqual(2);
      }
    }
  });
});
