import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { bulkOrgMembers, createTeam, memberPath, membersPath, teamPath, teamsPath } from './fixtures';

/**
 * DESIGN.md's performance budget, for the Teams group: a read in at most 2 D1 round trips (the token
 * included), a list page in at most 2 whatever its length, a write in at most 3, whatever the number of
 * users it names.
 */
describe('teams: D1 round trips per request', () => {
  async function fixture() {
    const org = await seedOrg();
    const ids = await bulkOrgMembers(org.id, 120);
    const team = await createTeam(org, 'Big', ids.slice(0, 40));
    for (let i = 0; i < 5; i++) await createTeam(org, `Filler ${i}`, ids.slice(i, i + 3));
    // Warm the token's last-used stamp so the hourly write does not land in a measurement.
    expect((await api('GET', '/v1/user', { token: org.owner.token })).status).toBe(200);
    return { org, ids, team, token: org.owner.token };
  }

  it('reads and list pages answer in at most 2', async () => {
    const { org, team, token } = await fixture();
    for (const path of [
      teamPath(org.id, team.id),
      teamsPath(org.id),
      `${teamsPath(org.id)}?title=fill&owner=${org.owner.id}&limit=2`,
      membersPath(org.id, team.id),
    ]) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('writes answer in at most 3, even naming more users than one statement can bind', async () => {
    const { org, ids, team, token } = await fixture();
    const writes: Array<[string, string, unknown, number]> = [
      ['PUT', teamsPath(org.id), { title: 'Created', members: ids }, 201],
      ['PATCH', teamPath(org.id, team.id), { title: 'Renamed' }, 200],
      ['PUT', membersPath(org.id, team.id), { add: ids.slice(40), remove: ids.slice(0, 10), memberships: { [ids[11]]: { role: 'owner' } } }, 204],
      ['PUT', memberPath(org.id, team.id, org.members.read.id), { role: 'owner' }, 204],
      ['DELETE', memberPath(org.id, team.id, org.members.read.id), undefined, 204],
      ['DELETE', teamPath(org.id, team.id), undefined, 204],
    ];
    for (const [method, path, body, status] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBe(status);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });
});
