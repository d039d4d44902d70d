import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

/**
 * DESIGN.md's budget: the number of D1 round trips is the cost that matters. An authenticated read
 * answers in at most 2, a list page in at most 2 whatever its length, a write in at most 3.
 * Counted, not timed, so a slow machine cannot make these fail.
 */
describe('D1 round trips per request', () => {
  async function fixture() {
    const org = await seedOrg();
    const token = org.owner.token;
    const coll = await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'C' } });
    const spaceIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: `S${i}`, parent: coll.body.id } });
      spaceIds.push(s.body.id);
    }
    await api('POST', `/v1/spaces/${spaceIds[0]}/permissions`, { token, body: { role: 'edit', users: [org.members.read.id] } });
    // Warm the token's last-used stamp so the hourly write does not land in a measurement.
    await api('GET', '/v1/user', { token });
    await api('GET', '/v1/user', { token: org.members.read.token });
    return { org, token, collectionId: coll.body.id, spaceIds };
  }

  it('reads answer in at most 2', async () => {
    const { org, token, collectionId, spaceIds } = await fixture();
    const reads = [
      `/v1/user`,
      `/v1/orgs/${org.id}`,
      `/v1/spaces/${spaceIds[0]}`,
      `/v1/collections/${collectionId}`,
      `/v1/orgs/${org.id}/members/${org.members.read.id}`,
    ];
    for (const path of reads) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('list pages answer in at most 2, whatever their length', async () => {
    const { org, token, collectionId, spaceIds } = await fixture();
    const lists = [
      `/v1/orgs`,
      `/v1/orgs/${org.id}/spaces`,
      `/v1/orgs/${org.id}/collections`,
      `/v1/orgs/${org.id}/members`,
      `/v1/orgs/${org.id}/teams`,
      `/v1/collections/${collectionId}/spaces`,
      `/v1/spaces/${spaceIds[0]}/permissions/users`,
      `/v1/spaces/${spaceIds[0]}/permissions/aggregate`,
    ];
    for (const path of lists) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('writes answer in at most 3', async () => {
    const { org, token, spaceIds, collectionId } = await fixture();
    const target = await api('POST', '/v1/orgs', { token, body: { title: 'Target' } });
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/v1/orgs/${org.id}/spaces`, { title: 'New' }],
      ['PATCH', `/v1/spaces/${spaceIds[1]}`, { title: 'Renamed' }],
      ['PATCH', `/v1/orgs/${org.id}`, { title: 'Renamed org' }],
      ['POST', `/v1/orgs/${org.id}/collections`, { title: 'New C' }],
      ['POST', `/v1/spaces/${spaceIds[2]}/permissions`, { role: 'read', users: [org.members.comment.id] }],
      ['DELETE', `/v1/spaces/${spaceIds[3]}`, undefined],
      ['POST', `/v1/spaces/${spaceIds[3]}/restore`, undefined],
      ['POST', `/v1/spaces/${spaceIds[1]}/move`, { parent: null }],
      ['POST', `/v1/spaces/${spaceIds[1]}/move`, { parent: collectionId }],
      ['POST', `/v1/spaces/${spaceIds[4]}/transfer`, { organization: target.body.id }],
    ];
    for (const [method, path, body] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });
});
