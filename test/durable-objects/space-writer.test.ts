import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { api, seedOrg } from '../helpers/harness';

describe('SpaceWriter', () => {
  it('moves a head only from the expected revision (compare-and-set), serializing concurrent moves', async () => {
    const org = await seedOrg();
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token, body: { title: 'Heads' } });
    const start = space.body.revision as string;
    const writer = spaceWriter(env, space.body.id);
    // Ten writers race from the same base: exactly one wins.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => writer.moveHead(space.body.id, start, `rev-${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = `rev-${results.indexOf(true)}`;
    const row = await env.DB.prepare('select revision_id from spaces where id = ?').bind(space.body.id).first<{ revision_id: string }>();
    expect(row?.revision_id).toBe(winner);
    // A writer that saw the new head can move it on.
    expect(await writer.moveHead(space.body.id, winner, 'rev-next')).toBe(true);
    expect(await writer.moveHead(space.body.id, winner, 'rev-stale')).toBe(false);
  });
});
