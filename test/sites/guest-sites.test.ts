/**
 * listSites for guests (issue 44): a user outside the organization whom a site is shared with joins it as a guest
 * and finds that site, and only that one, in listSites (as GitBook lists what a guest can open), with the role
 * the grant gives; the same through a team. getSiteById and the published view open it to them and to no one
 * else; other guests, outsiders and other organizations' admins see nothing. Responses validated against GitBook.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, createUser, expectError, expectStatus, seedOrg, type TestOrg, type TestUser } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { createSpace, createTeam } from '../spaces/support';

const listValidator = schemaValidator(gitbookOperations().get('listSites')!.responses['200']!, GITBOOK_0202.components);

let org: TestOrg;
let other: TestOrg;
let invited: TestUser;
let teamGuest: TestUser;
let shared: any;
let teamShared: any;
let unshared: any;
const sites = () => `/v1/orgs/${org.id}/sites`;

async function newSite(title: string) {
  const space = await createSpace(org, { defaultLevel: null });
  const site = expectStatus(await api('POST', sites(), { token: org.owner.token, body: { title } }), 201).body;
  expectStatus(await api('POST', `${sites()}/${site.id}/site-spaces`, { token: org.owner.token, body: { spaceId: space.id } }), 201);
  return site;
}

const list = async (token: string, query = '') => {
  const body = expectStatus(await api('GET', `${sites()}${query}`, { token }), 200).body;
  expect(gitbookErrors(listValidator, body)).toBe('valid');
  return body;
};

beforeAll(async () => {
  org = await seedOrg();
  other = await seedOrg();
  shared = await newSite('Shared handbook');
  teamShared = await newSite('Team handbook');
  unshared = await newSite('Internal');
  // A user from outside the organization, invited to one site: they join as a guest.
  invited = await createUser();
  expectStatus(await api('POST', `${sites()}/${shared.id}/permissions`, { token: org.owner.token, body: { role: 'read', users: [invited.id] } }), 204);
  // The organization's guest member, given a site through a team.
  teamGuest = org.members.guest;
  const team = await createTeam(org, [teamGuest.id]);
  expectStatus(await api('POST', `${sites()}/${teamShared.id}/permissions`, { token: org.owner.token, body: { role: 'edit', teams: [team.id] } }), 204);
});

describe('listSites for guests', () => {
  it('an invited outsider lists the site shared with them, and only that one, with its role', async () => {
    const body = await list(invited.token);
    expect(body.items.map((s: any) => s.id)).toEqual([shared.id]);
    expect(body.count).toBe(1);
    expect(body.items[0].permissions.admin).toBe(false);
    expect((await list(invited.token, '?title=internal')).items).toEqual([]);
    expect((await list(invited.token, '?limit=1')).items.map((s: any) => s.id)).toEqual([shared.id]);
    expectStatus(await api('GET', `${sites()}/${shared.id}`, { token: invited.token }), 200);
    expectError(await api('GET', `${sites()}/${unshared.id}`, { token: invited.token }), 404);
    expectError(await api('GET', `${sites()}/${unshared.id}/published`, { token: invited.token }), 404);
  });

  it("a guest given a site through a team lists it with the team's role", async () => {
    const body = await list(teamGuest.token);
    expect(body.items.map((s: any) => s.id)).toEqual([teamShared.id]);
    expect(body.items[0].permissions).toMatchObject({ view: true, admin: false });
  });

  it('members still list every site; a grant above their organization role shows in that site', async () => {
    const reader = org.members.read;
    expectStatus(await api('POST', `${sites()}/${unshared.id}/permissions`, { token: org.owner.token, body: { role: 'admin', users: [reader.id] } }), 204);
    const body = await list(reader.token);
    expect(body.items.map((s: any) => s.id).sort()).toEqual([shared.id, teamShared.id, unshared.id].sort());
    const byId = Object.fromEntries(body.items.map((s: any) => [s.id, s.permissions.admin]));
    expect(byId).toEqual({ [shared.id]: false, [teamShared.id]: false, [unshared.id]: true });
    expect((await list(org.owner.token)).count).toBe(3);
  });

  it('closed to everyone else: outsiders and other admins 404; a guest with nothing shared lists nothing', async () => {
    const stranger = await createUser();
    for (const token of [stranger.token, other.owner.token, org.outsider.token]) {
      expectError(await api('GET', sites(), { token }), 404);
      expectError(await api('GET', `${sites()}/${shared.id}`, { token }), 404);
    }
    // Another organization's guest: nothing of this one.
    expectError(await api('GET', sites(), { token: other.members.guest.token }), 404);
    // A guest of this organization to whom nothing is shared: an empty list.
    const lonely = await createUser();
    expectStatus(await api('POST', `${sites()}/${shared.id}/permissions`, { token: org.owner.token, body: { role: 'read', users: [lonely.id] } }), 204);
    expectStatus(await api('DELETE', `${sites()}/${shared.id}/permissions/users/${lonely.id}`, { token: org.owner.token }), 205);
    const empty = await list(lonely.token);
    expect([empty.items, empty.count]).toEqual([[], 0]);
    expect((await api('GET', sites())).status).toBe(401);
  });

  it('a guest list page costs two round trips', async () => {
    const measured = await measureRoundTrips('GET', sites(), invited.token);
    expect(measured.status).toBe(200);
    expect(measured.roundTrips).toBeLessThanOrEqual(2);
  });
});
