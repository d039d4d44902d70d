import { expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';

it('creates collections and spaces, and access follows defaultLevel and grants', async () => {
  const org = await seedOrg();
  const admin = org.owner.token;
  const coll = await api('POST', `/v1/orgs/${org.id}/collections`, { token: admin, body: { title: 'Guides', defaultLevel: null } });
  expect(coll.status, JSON.stringify(coll.body)).toBe(201);
  const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token: admin, body: { title: 'Inside', parent: coll.body.id } });
  expect(space.status, JSON.stringify(space.body)).toBe(201);
  expect(space.body).toMatchObject({ parent: coll.body.id, defaultLevel: 'inherit', permissions: { admin: true } });
  // The collection's null level gives ordinary members no default access.
  expect((await api('GET', `/v1/spaces/${space.body.id}`, { token: org.members.edit.token })).status).toBe(404);
  const invite = await api('POST', `/v1/spaces/${space.body.id}/permissions`, { token: admin, body: { role: 'read', users: [org.members.edit.id] } });
  expect(invite.status, JSON.stringify(invite.body)).toBe(204);
  const seen = await api('GET', `/v1/spaces/${space.body.id}`, { token: org.members.edit.token });
  expect(seen.status).toBe(200);
  expect(seen.body.permissions).toMatchObject({ view: true, edit: false });
  const agg = await api('GET', `/v1/spaces/${space.body.id}/permissions/aggregate`, { token: admin });
  expect(agg.status, JSON.stringify(agg.body)).toBe(200);
  expect(agg.body.items.map((i: any) => [i.user.id, i.permission]).sort()).toEqual(
    [[org.owner.id, 'admin'], [org.members.edit.id, 'read']].sort(),
  );
  // Opening the collection to "edit" lets every member in, capped at edit.
  expect((await api('PATCH', `/v1/collections/${coll.body.id}`, { token: admin, body: { defaultLevel: 'edit' } })).status).toBe(200);
  const asCreate = await api('GET', `/v1/spaces/${space.body.id}`, { token: org.members.create.token });
  expect(asCreate.status).toBe(200);
  expect(asCreate.body.permissions).toMatchObject({ edit: true, admin: false, merge: false });
  const list = await api('GET', `/v1/collections/${coll.body.id}/spaces`, { token: org.members.read.token });
  expect(list.body.count).toBe(1);
  expect((await api('DELETE', `/v1/spaces/${space.body.id}`, { token: admin })).status).toBe(204);
  const restored = await api('POST', `/v1/spaces/${space.body.id}/restore`, { token: admin });
  expect(restored.status, JSON.stringify(restored.body)).toBe(200);
  const dup = await api('POST', `/v1/spaces/${space.body.id}/duplicate`, { token: admin });
  expect(dup.status, JSON.stringify(dup.body)).toBe(201);
  const spaces = await api('GET', `/v1/collections/${coll.body.id}/spaces`, { token: admin });
  expect(spaces.body.items.map((s: any) => s.id)).toEqual([space.body.id, dup.body.id]);
  const moved = await api('POST', `/v1/spaces/${dup.body.id}/move`, { token: admin, body: { position: { before: { type: 'space', space: space.body.id } } } });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  const after = await api('GET', `/v1/collections/${coll.body.id}/spaces`, { token: admin });
  expect(after.body.items.map((s: any) => s.id)).toEqual([dup.body.id, space.body.id]);
});
