/**
 * The sharing operations of collections and sites (issue 44) from the other side: each of the 16 called on a
 * victim organization's collection and site by every foreign caller and every member who may not share, on the
 * victim's real ids. Strangers and guests get 404 (existence does not leak), members who see the resource but
 * do not administer it get 403 on writes and read the lists, token kinds the operations do not admit get 403;
 * no refused answer holds anything of the victim, and the victim's grants are as seeded at the end.
 * (The sharded suite, test/platform/adversarial-<n>.test.ts, attacks these operations too, with every other.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { INTEGRATION_SCOPES } from '../../src/lib/integration-scopes';
import { createCollection, createSpace, createTeam } from '../spaces/support';

type Attacker = 'otherAdmin' | 'member' | 'creator' | 'guest' | 'invitedOutsider' | 'siteToken' | 'integration' | 'installation';
const ATTACKERS: Attacker[] = ['otherAdmin', 'member', 'creator', 'guest', 'invitedOutsider', 'siteToken', 'integration', 'installation'];

interface Op {
  id: string;
  method: string;
  path: (ids: Ids) => string;
  body?: (self: string) => unknown;
  read?: true;
}
interface Ids {
  collection: string;
  site: string;
  org: string;
  user: string;
  team: string;
}

const coll = (ids: Ids) => `/v1/collections/${ids.collection}/permissions`;
const site = (ids: Ids) => `/v1/orgs/${ids.org}/sites/${ids.site}/permissions`;
const OPS: Op[] = [
  ['Collection', coll, true] as const,
  ['Site', site, false] as const,
].flatMap(([name, base, nullable]) => [
  { id: `inviteTo${name}`, method: 'POST', path: base, body: (self: string) => ({ role: 'admin', users: [self] }) },
  { id: `listUserPermissionsIn${name}`, method: 'GET', path: (ids: Ids) => `${base(ids)}/users`, read: true as const },
  { id: `updateUserPermissionIn${name}`, method: 'PATCH', path: (ids: Ids) => `${base(ids)}/users/${ids.user}`, body: () => ({ role: nullable ? null : 'read' }) },
  { id: `removeUserFrom${name}`, method: 'DELETE', path: (ids: Ids) => `${base(ids)}/users/${ids.user}` },
  { id: `listTeamPermissionsIn${name}`, method: 'GET', path: (ids: Ids) => `${base(ids)}/teams`, read: true as const },
  { id: `updateTeamPermissionIn${name}`, method: 'PATCH', path: (ids: Ids) => `${base(ids)}/teams/${ids.team}`, body: () => ({ role: 'admin' }) },
  { id: `removeTeamFrom${name}`, method: 'DELETE', path: (ids: Ids) => `${base(ids)}/teams/${ids.team}` },
  { id: `listPermissionsAggregateIn${name}`, method: 'GET', path: (ids: Ids) => `${base(ids)}/aggregate`, read: true as const },
]);

/** What each caller must get: members without admin read the lists and are refused writes; the rest see nothing. */
function expected(attacker: Attacker, op: Op): number {
  if (attacker === 'siteToken' || attacker === 'integration' || attacker === 'installation') return 403;
  if (attacker === 'member' || attacker === 'creator') return op.read ? 200 : 403;
  return 404;
}

let victim: TestOrg;
let ids: Ids;
const markers: string[] = [];
const tokens = {} as Record<Attacker, string>;
const selfIds = {} as Record<Attacker, string>;

beforeAll(async () => {
  victim = await seedOrg('Victim org VICTIMMARK');
  const collection = await createCollection(victim, { title: 'VICTIMMARK collection' });
  const space = await createSpace(victim, { title: 'VICTIMMARK space' });
  const created = expectStatus(await api('POST', `/v1/orgs/${victim.id}/sites`, { token: victim.owner.token, body: { title: 'VICTIMMARK site', spaces: [space.id] } }), 201).body;
  const grantee = await createUser({ displayName: 'VICTIMMARK grantee' });
  const team = await createTeam(victim, [victim.members.edit.id], 'VICTIMMARK team');
  for (const base of [`/v1/collections/${collection.id}/permissions`, `/v1/orgs/${victim.id}/sites/${created.id}/permissions`]) {
    expectStatus(await api('POST', base, { token: victim.owner.token, body: { role: 'edit', users: [grantee.id], teams: [team.id] } }), 204);
  }
  ids = { collection: collection.id, site: created.id, org: victim.id, user: grantee.id, team: team.id };
  markers.push('VICTIMMARK', collection.id, created.id, grantee.id, grantee.email, team.id, victim.owner.email);

  // A user of another organization the victim shared ANOTHER collection with: a guest with a grant elsewhere.
  const invited = await createUser();
  const elsewhere = await createCollection(victim);
  expectStatus(await api('POST', `/v1/collections/${elsewhere.id}/permissions`, { token: victim.owner.token, body: { role: 'admin', users: [invited.id] } }), 204);

  const otherAdmin = await createUser();
  const attackerOrg = expectStatus(await api('POST', '/v1/orgs', { token: otherAdmin.token, body: { title: 'Attacker' } }), 201).body;
  const integration = await seedIntegration(attackerOrg.id, { scopes: [...INTEGRATION_SCOPES], visibility: 'private' });
  const installation = await seedInstallation(integration, attackerOrg.id, { spaces: 'all', sites: 'all' });
  const attackerSpace = await createSpace({ ...victim, id: attackerOrg.id, owner: otherAdmin }, { title: 'Attacker docs' });
  const attackerSite = expectStatus(await api('POST', `/v1/orgs/${attackerOrg.id}/sites`, { token: otherAdmin.token, body: { title: 'Attacker site', spaces: [attackerSpace.id] } }), 201).body;
  expectStatus(await api('POST', `/v1/orgs/${attackerOrg.id}/sites/${attackerSite.id}/publish`, { token: otherAdmin.token }), 200);
  const resolved = expectStatus(await api('POST', '/v1/urls/published', { body: { url: `http://api.test/s/${attackerSite.id}/` } }), 200).body;

  Object.assign(tokens, {
    otherAdmin: otherAdmin.token,
    member: victim.members.read.token,
    creator: victim.members.create.token,
    guest: victim.members.guest.token,
    invitedOutsider: invited.token,
    siteToken: resolved.apiToken,
    integration: await seedToken(integration.id, null),
    installation: await seedToken(integration.id, installation.id),
  });
  Object.assign(selfIds, {
    otherAdmin: otherAdmin.id,
    member: victim.members.read.id,
    creator: victim.members.create.id,
    guest: victim.members.guest.id,
    invitedOutsider: invited.id,
    siteToken: otherAdmin.id,
    integration: otherAdmin.id,
    installation: otherAdmin.id,
  });
});

describe.each(ATTACKERS)('%s', (attacker) => {
  it.each(OPS.map((op) => [op.id, op] as const))('%s is refused and leaks nothing', async (_id, op) => {
    const res = await api(op.method, op.path(ids), { token: tokens[attacker], ...(op.body ? { body: op.body(selfIds[attacker]) } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(expected(attacker, op));
    if (res.status >= 400) {
      const text = JSON.stringify(res.body);
      for (const marker of markers) expect(text).not.toContain(marker);
      expect(res.body.error.code).toBe(res.status);
    }
  });
});

describe('after every attack', () => {
  it("the victim's grants are as seeded, and no attacker joined the organization", async () => {
    for (const base of [`/v1/collections/${ids.collection}/permissions`, `/v1/orgs/${ids.org}/sites/${ids.site}/permissions`]) {
      const users = expectStatus(await api('GET', `${base}/users`, { token: victim.owner.token }), 200).body;
      expect(users.items.map((i: any) => [i.user.id, i.permission])).toEqual([[ids.user, 'edit']]);
      const teams = expectStatus(await api('GET', `${base}/teams`, { token: victim.owner.token }), 200).body;
      expect(teams.items.map((i: any) => [i.team.id, i.permission])).toEqual([[ids.team, 'edit']]);
    }
    const members = expectStatus(await api('GET', `/v1/orgs/${victim.id}/members?limit=1000`, { token: victim.owner.token }), 200).body;
    const memberIds = members.items.map((m: any) => m.user.id);
    expect(memberIds).not.toContain(selfIds.otherAdmin);
  });
});
