import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { addMember, api, createUser, expectError, seedOrg } from '../helpers/harness';

describe('collection and position validation', () => {
  it('rejects an empty title on PATCH, as a collection always has one', async () => {
    const org = await seedOrg();
    const coll = await api('POST', `/v1/orgs/${org.id}/collections`, { token: org.owner.token, body: { title: 'Named' } });
    expectError(await api('PATCH', `/v1/collections/${coll.body.id}`, { token: org.owner.token, body: { title: '' } }), 400, 'title');
    expect((await api('GET', `/v1/collections/${coll.body.id}`, { token: org.owner.token })).body.title).toBe('Named');
  });

  it('rejects a position reference whose type does not match the sibling it names', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const coll = await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'C' } });
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'S' } });
    const wrongKind = { position: { before: { type: 'space', space: coll.body.id } } };
    expectError(await api('POST', `/v1/spaces/${space.body.id}/move`, { token, body: wrongKind }), 400, 'invalid move position');
    const rightKind = { position: { before: { type: 'collection', collection: coll.body.id } } };
    expect((await api('POST', `/v1/spaces/${space.body.id}/move`, { token, body: rightKind })).status).toBe(200);
  });
});

describe('transfer and disabled members', () => {
  it('drops the user grants of members who are disabled in the target organization', async () => {
    const org = await seedOrg();
    const target = await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: 'Target' } });
    const disabled = await createUser();
    await addMember(org.id, disabled.id, 'read');
    await addMember(target.body.id, disabled.id, 'read');
    await env.DB.prepare('update org_members set disabled = 1 where org_id = ? and user_id = ?').bind(target.body.id, disabled.id).run();
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token, body: { title: 'Moving' } });
    await api('POST', `/v1/spaces/${space.body.id}/permissions`, { token: org.owner.token, body: { role: 'edit', users: [disabled.id] } });
    const moved = await api('POST', `/v1/spaces/${space.body.id}/transfer`, { token: org.owner.token, body: { organization: target.body.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const grants = await env.DB.prepare('select count(*) as n from space_user_grants where space_id = ?').bind(space.body.id).first<{ n: number }>();
    expect(grants?.n).toBe(0);
  });
});
