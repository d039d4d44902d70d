import { describe, expect, it } from 'vitest';
import { api, createUser, expectError, seedOrg } from '../helpers/harness';

describe('organizations', () => {
  it('creates an organization whose creator is admin, and lists it', async () => {
    const user = await createUser();
    const created = await api('POST', '/v1/orgs', { token: user.token, body: { title: 'Acme Docs' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'organization', title: 'Acme Docs', permissions: { admin: true, view: true } });
    const list = await api('GET', '/v1/orgs', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.items[0].id).toBe(created.body.id);
  });

  it('answers 404 for another organization and 403 for a non-admin patch', async () => {
    const org = await seedOrg();
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: org.outsider.token }), 404);
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.members.create.token, body: { title: 'Nope' } }), 403);
    const ok = await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { title: 'Renamed', emailDomains: ['Example.COM'] } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ title: 'Renamed', emailDomains: ['example.com'] });
  });

  it('rejects malformed JSON and unknown fields values with 400 naming the field', async () => {
    const org = await seedOrg();
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, rawBody: '{"title":' }), 400, 'malformed json');
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { title: 'x' } }), 400, 'title');
    expectError(await api('DELETE', `/v1/orgs/${org.id}`, { token: org.owner.token }), 405);
    expectError(await api('GET', `/v1/nothing-here`, { token: org.owner.token }), 404);
  });
});
