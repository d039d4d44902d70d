import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { collectionRow, createCollection, createOrg, createSpace } from './support';

/**
 * DESIGN.md's budget for the collections routes, counted with the token lookup: a read or a list page
 * in at most 2 D1 round trips whatever its length, a write in at most 3. Moves and transfers need
 * more (checks on the tree and the target); their counts are pinned so they do not grow unnoticed.
 */
describe('collections: D1 round trips per request', () => {
  async function fixture() {
    const org = await seedOrg();
    const token = org.owner.token;
    const parent = await createCollection(token, org.id, { title: 'Parent' });
    const coll = await createCollection(token, org.id, { title: 'C', parent: parent.id });
    const spaces: string[] = [];
    for (let i = 0; i < 6; i++) spaces.push((await createSpace(token, org.id, coll.id, `S${i}`)).id);
    for (let i = 0; i < 3; i++) await createCollection(token, org.id, { parent: coll.id });
    // Warm the token's last-used stamp so the hourly write does not land in a measurement.
    await api('GET', '/v1/user', { token });
    await api('GET', '/v1/user', { token: org.members.read.token });
    return { org, token, parent: parent.id, coll: coll.id, spaces };
  }

  it('reads and list pages answer in at most 2, for an admin and a capped member', async () => {
    const { org, token, coll } = await fixture();
    for (const t of [token, org.members.read.token]) {
      for (const path of [`/v1/collections/${coll}`, `/v1/collections/${coll}/spaces`, `/v1/collections/${coll}/spaces?limit=2`, `/v1/orgs/${org.id}/collections`, `/v1/orgs/${org.id}/collections?nested=false&limit=1`]) {
        const r = await measureRoundTrips('GET', path, t);
        expect(r.status, path).toBe(200);
        expect(r.roundTrips, path).toBeLessThanOrEqual(2);
      }
    }
  });

  it('creates, updates and deletes in at most 3', async () => {
    const { org, token, parent, coll } = await fixture();
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/v1/orgs/${org.id}/collections`, { title: 'At the root' }],
      ['POST', `/v1/orgs/${org.id}/collections`, { title: 'Nested', parent: coll, defaultLevel: 'read' }],
      ['PATCH', `/v1/collections/${coll}`, { title: 'Renamed' }],
      ['PATCH', `/v1/collections/${coll}`, { defaultLevel: 'edit', description: 'x' }],
      ['DELETE', `/v1/collections/${parent}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
    expect(await collectionRow(coll)).toBeNull();
  });

  it('moves and transfers within their pinned counts', async () => {
    const { org, token, parent, coll } = await fixture();
    const other = await createCollection(token, org.id);
    const sibling = await createSpace(token, org.id, parent);
    const target = await createOrg(org.owner);
    const cases: Array<[string, unknown, number]> = [
      // An explicit position reads its anchor and neighbour once the target parent is known: one more.
      [`/v1/collections/${coll}/move`, { position: { before: { type: 'space', space: sibling.id } } }, 4],
      [`/v1/collections/${coll}/move`, { parent: other.id }, 3],
      [`/v1/collections/${coll}/move`, { parent: null }, 3],
      [`/v1/collections/${parent}/transfer`, { organization: target }, 3],
    ];
    for (const [path, body, budget] of cases) {
      const r = await measureRoundTrips('POST', path, token, body);
      expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.roundTrips, `${path} ${JSON.stringify(body)}`).toBeLessThanOrEqual(budget);
    }
  });
});
