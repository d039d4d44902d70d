import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, addMember, api, createUser, expectError, seedOrg, type TestOrg } from '../helpers/harness';
import {
  PERMISSIONS_BY_ROLE,
  SpaceListSchema,
  StrictSpaceSchema,
  UNKNOWN_ID,
  collectPages,
  collectionSpaceIds,
  countRows,
  createCollection,
  createSpace,
  createTeam,
  expectSchema,
  expectStatus,
  getSpace,
  grant,
  orgSpacesPath,
  setDeletedAt,
  spacePath,
  spaceRow,
  teamPermissionsPath,
  uniq,
  userPermissionsPath,
} from './support';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const MALFORMED = '{"title": "oops",';

/** A second organization owned by the first one's owner (an admin there too). */
async function secondOrgOf(org: TestOrg) {
  const res = await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: `Target ${uniq()}` } });
  expectStatus(res, 201);
  return res.body.id as string;
}

describe('createSpace', () => {
  it('creates a space at the root with every field, and the stored revision', async () => {
    const org = await seedOrg();
    const before = Date.now();
    const res = await api('POST', orgSpacesPath(org.id), {
      token: org.owner.token,
      body: { title: 'Handbook', emoji: '1f4d8', language: 'fr', editMode: 'locked', empty: true },
    });
    expectStatus(res, 201);
    const space = expectSchema(StrictSpaceSchema, res.body);
    expect(space).toMatchObject({
      object: 'space',
      title: 'Handbook',
      emoji: '1f4d8',
      language: 'fr',
      editMode: 'locked',
      visibility: 'private',
      organization: org.id,
      defaultLevel: 'inherit',
      mergeRules: { type: 'inherit' },
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      permissions: PERMISSIONS_BY_ROLE.admin,
      urls: { location: `${BASE}/v1/spaces/${space.id}` },
    });
    expect(space.id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(space.parent).toBeUndefined();
    expect(space.deletedAt).toBeUndefined();
    expect(space.createdAt).toMatch(ISO);
    expect(space.updatedAt).toBe(space.createdAt);
    expect(Date.parse(space.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(space.urls.app).toContain(space.id);
    // The revision it points at exists and belongs to it.
    const revision = await env.DB.prepare('select space_id, type from revisions where id = ?').bind(space.revision).first();
    expect(revision).toEqual({ space_id: space.id, type: 'edits' });
    // Reading it back gives the same object.
    expect(await getSpace(space.id, org.owner.token)).toEqual(space);
  });

  it('applies defaults for an empty body and trims the title', async () => {
    const org = await seedOrg();
    const res = await api('POST', orgSpacesPath(org.id), { token: org.owner.token, body: {} });
    expectStatus(res, 201);
    const space = expectSchema(StrictSpaceSchema, res.body);
    expect(space).toMatchObject({ title: '', emoji: '', editMode: 'live', defaultLevel: 'inherit' });
    expect(space.language).toBeUndefined();
    const trimmed = await createSpace(org, { title: `  ${'t'.repeat(50)}  ` });
    expect(trimmed.title).toBe('t'.repeat(50));
    const emoji = await createSpace(org, { emoji: 'e'.repeat(50) });
    expect(emoji.emoji).toBe('e'.repeat(50));
  });

  it('a member with the create role can create at the root and administers nothing more than their role', async () => {
    const org = await seedOrg();
    const space = await createSpace(org, {}, org.members.create.token);
    // Effective role on a root "inherit" space is the organization role: create.
    expect(space.permissions).toEqual(PERMISSIONS_BY_ROLE.create);
    const list = await api('GET', orgSpacesPath(org.id), { token: org.members.read.token });
    expect(list.body.items.map((s: any) => s.id)).toContain(space.id);
  });

  it('creates a space in a collection, appended after its siblings, inheriting its level', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org, { defaultLevel: 'comment' });
    const a = await createSpace(org, { parent: coll.id });
    const b = await createSpace(org, { parent: coll.id });
    expect(a).toMatchObject({ parent: coll.id, defaultLevel: 'inherit' });
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, b.id]);
    // Capped at the collection's comment level for an edit member; the org admin is never capped.
    expect((await getSpace(a.id, org.members.edit.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
    expect((await getSpace(a.id, org.owner.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.admin);
  });

  it('rejects invalid fields with 400 naming the field', async () => {
    const org = await seedOrg();
    const t = org.owner.token;
    const post = (body: unknown) => api('POST', orgSpacesPath(org.id), { token: t, body });
    expectError(await post({ title: 'x'.repeat(51) }), 400, 'title');
    expectError(await post({ title: 42 }), 400, 'title');
    expectError(await post({ emoji: 'x'.repeat(51) }), 400, 'emoji');
    expectError(await post({ language: 'klingon' }), 400, 'language');
    expectError(await post({ editMode: 'draft' }), 400, 'editMode');
    expectError(await post({ parent: '' }), 400, 'parent');
    expectError(await post({ empty: false }), 400, 'empty');
    expectError(await post({ template: 'blank' }), 400, 'template');
    expectError(await post({ computedSource: { type: 'x' } }), 400, 'computedSource');
    expectError(await post({ template: null }), 400, 'template');
    expectError(await api('POST', orgSpacesPath(org.id), { token: t, rawBody: MALFORMED }), 400);
    expectError(await api('POST', orgSpacesPath(org.id), { token: t, rawBody: '[1,2]' }), 400);
    // Nothing was created.
    expect((await api('GET', orgSpacesPath(org.id), { token: t })).body.count).toBe(0);
  });

  it('rejects a parent that is not a visible collection of the organization', async () => {
    const org = await seedOrg();
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.owner.token, body: { parent: UNKNOWN_ID } }), 400, 'parent');
    // A collection of another organization.
    const otherOrgId = await secondOrgOf(org);
    const foreign = await api('POST', `/v1/orgs/${otherOrgId}/collections`, { token: org.owner.token, body: { title: 'Foreign' } });
    expectStatus(foreign, 201);
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.owner.token, body: { parent: foreign.body.id } }), 400, 'parent');
    // A space id is not a collection.
    const space = await createSpace(org);
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.owner.token, body: { parent: space.id } }), 400, 'parent');
    // A collection the creator cannot see (guest level) does not exist for them.
    const hidden = await createCollection(org, { defaultLevel: null });
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.members.create.token, body: { parent: hidden.id } }), 400, 'parent');
    // A collection where they only read: 403.
    const readOnly = await createCollection(org, { defaultLevel: 'read' });
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.members.create.token, body: { parent: readOnly.id } }), 403);
  });

  it('authenticates and authorizes', async () => {
    const org = await seedOrg();
    expectError(await api('POST', orgSpacesPath(org.id), { body: { title: 'x' } }), 401);
    expectError(await api('POST', orgSpacesPath(org.id), { token: 'not-a-token', body: { title: 'x' } }), 401);
    for (const role of ['review', 'edit', 'comment', 'read', 'guest'] as const) {
      expectError(await api('POST', orgSpacesPath(org.id), { token: org.members[role].token, body: { title: 'x' } }), 403);
    }
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.outsider.token, body: { title: 'x' } }), 404);
    expectError(await api('POST', orgSpacesPath(UNKNOWN_ID), { token: org.owner.token, body: { title: 'x' } }), 404);
    expect((await api('GET', orgSpacesPath(org.id), { token: org.owner.token })).body.count).toBe(0);
  });

  it('answers 404 to a non-member even when the body names a parent collection', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    expectError(await api('POST', orgSpacesPath(org.id), { token: org.outsider.token, body: { parent: coll.id } }), 404);
    expectError(await api('POST', orgSpacesPath(UNKNOWN_ID), { token: org.owner.token, body: { parent: coll.id } }), 404);
  });
});

describe('listSpacesInOrganizationById', () => {
  it('lists the visible, not deleted spaces in creation order, with the caller\'s permissions', async () => {
    const org = await seedOrg();
    const a = await createSpace(org, { title: 'A' });
    const b = await createSpace(org, { title: 'B' });
    const hiddenColl = await createCollection(org, { defaultLevel: null });
    const hidden = await createSpace(org, { title: 'Hidden', parent: hiddenColl.id });
    const gone = await createSpace(org, { title: 'Gone' });
    expectStatus(await api('DELETE', spacePath(gone.id), { token: org.owner.token }), 204);

    const asAdmin = await api('GET', orgSpacesPath(org.id), { token: org.owner.token });
    expectStatus(asAdmin, 200);
    const adminPage = expectSchema(SpaceListSchema, asAdmin.body);
    expect(adminPage.items.map((s) => s.id)).toEqual([a.id, b.id, hidden.id]);
    expect(adminPage.count).toBe(3);
    expect(adminPage.next).toBeUndefined();

    const asRead = await api('GET', orgSpacesPath(org.id), { token: org.members.read.token });
    const readPage = expectSchema(SpaceListSchema, asRead.body);
    expect(readPage.items.map((s) => s.id)).toEqual([a.id, b.id]);
    expect(readPage.count).toBe(2);
    expect(readPage.items[0].permissions).toEqual(PERMISSIONS_BY_ROLE.read);

    // A guest member sees only what they were granted.
    const asGuest = await api('GET', orgSpacesPath(org.id), { token: org.members.guest.token });
    expectStatus(asGuest, 200);
    expect(asGuest.body).toEqual({ items: [], count: 0 });
    await grant(org, hidden.id, { role: 'comment', users: [org.members.guest.id] });
    const granted = expectSchema(SpaceListSchema, (await api('GET', orgSpacesPath(org.id), { token: org.members.guest.token })).body);
    expect(granted.items.map((s) => [s.id, s.permissions.comment, s.permissions.edit])).toEqual([[hidden.id, true, false]]);
    expect(granted.count).toBe(1);
  });

  it('pages with limit and next.page, stable while spaces are added', async () => {
    const org = await seedOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createSpace(org, { title: `S${i}` })).id);
    const first = await api('GET', `${orgSpacesPath(org.id)}?limit=2`, { token: org.members.read.token });
    expectStatus(first, 200);
    const page1 = expectSchema(SpaceListSchema, first.body);
    expect(page1.items.map((s) => s.id)).toEqual(ids.slice(0, 2));
    expect(page1.count).toBe(5);
    expect(page1.next?.page).toEqual(expect.any(String));
    // A space added meanwhile lands at the end, not twice and not in the middle.
    const late = await createSpace(org, { title: 'late' });
    const second = await api('GET', `${orgSpacesPath(org.id)}?limit=2&page=${encodeURIComponent(page1.next!.page)}`, { token: org.members.read.token });
    const page2 = expectSchema(SpaceListSchema, second.body);
    expect(page2.items.map((s) => s.id)).toEqual(ids.slice(2, 4));
    expect(page2.count).toBe(6);
    const all = await collectPages(orgSpacesPath(org.id), org.members.read.token, 4);
    expect(all.map((s) => s.id)).toEqual([...ids, late.id]);
    const exact = await api('GET', `${orgSpacesPath(org.id)}?limit=6`, { token: org.owner.token });
    expect(exact.body.items).toHaveLength(6);
    expect(exact.body.next).toBeUndefined();
  });

  it('rejects bad paging parameters, no token, non-members and unknown organizations', async () => {
    const org = await seedOrg();
    const t = org.owner.token;
    expectError(await api('GET', `${orgSpacesPath(org.id)}?limit=0`, { token: t }), 400, 'limit');
    expectError(await api('GET', `${orgSpacesPath(org.id)}?limit=1001`, { token: t }), 400, 'limit');
    expectError(await api('GET', `${orgSpacesPath(org.id)}?limit=abc`, { token: t }), 400, 'limit');
    expectError(await api('GET', `${orgSpacesPath(org.id)}?page=not-a-cursor`, { token: t }), 400, 'page');
    expectStatus(await api('GET', `${orgSpacesPath(org.id)}?limit=1000`, { token: t }), 200);
    expectError(await api('GET', orgSpacesPath(org.id)), 401);
    expectError(await api('GET', orgSpacesPath(org.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', orgSpacesPath(UNKNOWN_ID), { token: t }), 404);
  });
});

describe('getSpaceById', () => {
  it('returns the space with the permissions of each organization role on a root space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    for (const role of ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const) {
      const seen = await getSpace(space.id, org.members[role].token);
      expect(seen.permissions, role).toEqual(PERMISSIONS_BY_ROLE[role]);
      expect({ ...seen, permissions: null }).toEqual({ ...space, permissions: null });
    }
    expectError(await api('GET', spacePath(space.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', spacePath(space.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', spacePath(UNKNOWN_ID), { token: org.owner.token }), 404);
    expectError(await api('GET', spacePath(space.id)), 401);
    expectStatus(await api('GET', `${spacePath(space.id)}?shareKey=abc`, { token: org.owner.token }), 200);
    expectError(await api('GET', `${spacePath(space.id)}?shareKey=${'k'.repeat(201)}`, { token: org.owner.token }), 400, 'shareKey');
  });

  it('shows a deleted space with its deletedAt', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const before = Date.now();
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    const seen = await getSpace(space.id, org.members.read.token);
    expect(seen.deletedAt).toMatch(ISO);
    expect(Date.parse(seen.deletedAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(seen.deletedAt!)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('resolves defaultLevel through nested collections, a space level overriding them', async () => {
    const org = await seedOrg();
    const outer = await createCollection(org, { defaultLevel: 'comment' });
    const inner = await createCollection(org, { parent: outer.id, defaultLevel: 'inherit' });
    const inherits = await createSpace(org, { parent: inner.id });
    const own = await createSpace(org, { parent: inner.id });
    expectStatus(await api('PATCH', spacePath(own.id), { token: org.owner.token, body: { defaultLevel: 'review' } }), 200);
    expect((await getSpace(inherits.id, org.members.create.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
    expect((await getSpace(own.id, org.members.create.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);
    // The cap never raises anyone above their organization role.
    expect((await getSpace(own.id, org.members.read.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
  });
});

describe('updateSpaceById', () => {
  it('lets an edit member change title, emoji and language', async () => {
    const org = await seedOrg();
    const space = await createSpace(org, { title: 'Old', language: 'en' });
    const res = await api('PATCH', spacePath(space.id), { token: org.members.edit.token, body: { title: '  New  ', emoji: '2728', language: 'de' } });
    expectStatus(res, 200);
    const updated = expectSchema(StrictSpaceSchema, res.body);
    expect(updated).toMatchObject({ id: space.id, title: 'New', emoji: '2728', language: 'de', editMode: 'live', permissions: PERMISSIONS_BY_ROLE.edit });
    expect(updated.createdAt).toBe(space.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(space.updatedAt));
    expect(await getSpace(space.id, org.owner.token)).toMatchObject({ title: 'New', emoji: '2728', language: 'de' });
    // Clearing the emoji and setting a title of exactly 50 characters.
    const again = await api('PATCH', spacePath(space.id), { token: org.members.edit.token, body: { emoji: '', title: 'x'.repeat(50) } });
    expect(again.body).toMatchObject({ emoji: '', title: 'x'.repeat(50) });
  });

  it('needs admin for editMode, defaultLevel and mergeRules', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    for (const body of [{ editMode: 'locked' }, { defaultLevel: 'read' }, { mergeRules: { type: 'none' } }, { title: 'ok', editMode: 'locked' }]) {
      expectError(await api('PATCH', spacePath(space.id), { token: org.members.create.token, body }), 403);
    }
    expectError(await api('PATCH', spacePath(space.id), { token: org.members.comment.token, body: { title: 'no' } }), 403);
    expectError(await api('PATCH', spacePath(space.id), { token: org.members.read.token, body: { emoji: 'no' } }), 403);
    expect(await getSpace(space.id, org.owner.token)).toMatchObject({ title: space.title, editMode: 'live', defaultLevel: 'inherit', mergeRules: { type: 'inherit' } });
    const res = await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { editMode: 'locked', mergeRules: { type: 'none' } } });
    expectStatus(res, 200);
    expect(expectSchema(StrictSpaceSchema, res.body)).toMatchObject({ editMode: 'locked', mergeRules: { type: 'none' } });
  });

  it('changing defaultLevel changes who can access the space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const set = async (defaultLevel: unknown) => {
      const res = await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { defaultLevel } });
      expectStatus(res, 200);
      expect(res.body.defaultLevel).toBe(defaultLevel);
    };
    await set('read');
    expect((await getSpace(space.id, org.members.create.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.read);
    await set(null);
    expectError(await api('GET', spacePath(space.id), { token: org.members.create.token }), 404);
    expect((await api('GET', orgSpacesPath(org.id), { token: org.members.create.token })).body.count).toBe(0);
    expect((await getSpace(space.id, org.owner.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.admin);
    await set('inherit');
    expect((await getSpace(space.id, org.members.create.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.create);
  });

  it('validates mergeRules: the named users must be members of the organization', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const rules = (users: string[]) => ({
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users }, { rule: 'require_at_least_one_review' }],
    });
    const ok = await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { mergeRules: rules([org.members.review.id]) } });
    expectStatus(ok, 200);
    expect(ok.body.mergeRules).toEqual(rules([org.members.review.id]));
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { mergeRules: rules([org.outsider.id]) } }), 400, 'mergeRules');
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { mergeRules: rules([UNKNOWN_ID]) } }), 400, 'mergeRules');
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { mergeRules: { type: 'rules', rules: [{ rule: 'nope' }] } } }), 400, 'mergeRules');
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { mergeRules: { type: 'sometimes' } } }), 400, 'mergeRules');
    // The rejected updates changed nothing.
    expect((await getSpace(space.id, org.owner.token)).mergeRules).toEqual(rules([org.members.review.id]));
  });

  it('rejects bad bodies with 400 naming the field', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const patch = (body: unknown) => api('PATCH', spacePath(space.id), { token: org.owner.token, body });
    expectError(await patch({}), 400);
    expectError(await patch({ title: 'x'.repeat(51) }), 400, 'title');
    expectError(await patch({ title: null }), 400, 'title');
    expectError(await patch({ emoji: 'x'.repeat(51) }), 400, 'emoji');
    expectError(await patch({ language: 'xx' }), 400, 'language');
    expectError(await patch({ editMode: 'open' }), 400, 'editMode');
    expectError(await patch({ defaultLevel: 'owner' }), 400, 'defaultLevel');
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, rawBody: MALFORMED }), 400);
    expect(await getSpace(space.id, org.owner.token)).toEqual(space);
  });

  it('answers 401, 404 for those who cannot see it, and 400 for a deleted space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    expectError(await api('PATCH', spacePath(space.id), { body: { title: 'x' } }), 401);
    expectError(await api('PATCH', spacePath(space.id), { token: org.outsider.token, body: { title: 'x' } }), 404);
    expectError(await api('PATCH', spacePath(space.id), { token: org.members.guest.token, body: { title: 'x' } }), 404);
    expectError(await api('PATCH', spacePath(UNKNOWN_ID), { token: org.owner.token, body: { title: 'x' } }), 404);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    expectError(await api('PATCH', spacePath(space.id), { token: org.owner.token, body: { title: 'x' } }), 400, 'deleted');
  });
});

describe('deleteSpaceById', () => {
  it('moves the space to the trash: 204, deletedAt set, no longer listed, the row kept', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const res = await api('DELETE', spacePath(space.id), { token: org.owner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    const seen = await getSpace(space.id, org.owner.token);
    expect(seen.deletedAt).toMatch(ISO);
    expect((await api('GET', orgSpacesPath(org.id), { token: org.owner.token })).body.count).toBe(0);
    expect(await countRows('revisions', 'space_id', space.id)).toBe(1);
    // Deleting again: 204, the first deletion time kept.
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toBe(seen.deletedAt);
  });

  it('answers 204 for an absent space and for another organization\'s space, which stays untouched', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const before = await spaceRow(space.id);
    expectStatus(await api('DELETE', spacePath(UNKNOWN_ID), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.outsider.token }), 204);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.members.guest.token }), 204);
    expect(await spaceRow(space.id)).toEqual(before);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toBeUndefined();
  });

  it('needs admin on the space (403 otherwise) and a token', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('DELETE', spacePath(space.id), { token: org.members[role].token }), 403);
    }
    expectError(await api('DELETE', spacePath(space.id)), 401);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toBeUndefined();
    // A space-level admin grant is enough.
    await grant(org, space.id, { role: 'admin', users: [org.members.edit.id] });
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.members.edit.token }), 204);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toMatch(ISO);
  });
});

describe('duplicateSpace', () => {
  it('creates a copy right after the original, with a new id and a new revision', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const a = await createSpace(org, { parent: coll.id, title: 'A', emoji: '1f600', language: 'ja', editMode: 'locked' });
    const b = await createSpace(org, { parent: coll.id, title: 'B' });
    const c = await createSpace(org, { parent: coll.id, title: 'C' });
    const rules = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [org.members.review.id] }] };
    expectStatus(await api('PATCH', spacePath(a.id), { token: org.owner.token, body: { defaultLevel: 'comment', mergeRules: rules } }), 200);
    const res = await api('POST', `${spacePath(a.id)}/duplicate`, { token: org.owner.token });
    expectStatus(res, 201);
    const copy = expectSchema(StrictSpaceSchema, res.body);
    expect(copy.id).not.toBe(a.id);
    expect(copy.revision).not.toBe(a.revision);
    expect(copy).toMatchObject({
      title: 'A',
      emoji: '1f600',
      language: 'ja',
      editMode: 'locked',
      parent: coll.id,
      organization: org.id,
      defaultLevel: 'comment',
      mergeRules: rules,
      permissions: PERMISSIONS_BY_ROLE.admin,
    });
    expect(copy.deletedAt).toBeUndefined();
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, copy.id, b.id, c.id]);
    // Its own revision row; the original is unchanged.
    expect(await env.DB.prepare('select space_id from revisions where id = ?').bind(copy.revision).first()).toEqual({ space_id: copy.id });
    expect((await getSpace(a.id, org.owner.token)).revision).toBe(a.revision);
    // Duplicating the last one lands at the end.
    const copyOfC = await api('POST', `${spacePath(c.id)}/duplicate`, { token: org.owner.token });
    expectStatus(copyOfC, 201);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, copy.id, b.id, c.id, copyOfC.body.id]);
  });

  it('places a root copy right after the original among root spaces and collections', async () => {
    const org = await seedOrg();
    const a = await createSpace(org);
    const coll = await createCollection(org);
    const copy = await api('POST', `${spacePath(a.id)}/duplicate`, { token: org.members.create.token });
    expectStatus(copy, 201);
    const positions = await env.DB.prepare(
      'select id, position from spaces where org_id = ? and parent_id is null union all select id, position from collections where org_id = ? order by position',
    )
      .bind(org.id, org.id)
      .all<{ id: string }>();
    expect(positions.results.map((r) => r.id)).toEqual([a.id, copy.body.id, coll.id]);
    expect(copy.body.permissions).toEqual(PERMISSIONS_BY_ROLE.create);
  });

  it('needs create where the copy goes, and a visible, not deleted space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    for (const role of ['review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('POST', `${spacePath(space.id)}/duplicate`, { token: org.members[role].token }), 403);
    }
    expectError(await api('POST', `${spacePath(space.id)}/duplicate`, { token: org.members.guest.token }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/duplicate`, { token: org.outsider.token }), 404);
    expectError(await api('POST', `${spacePath(UNKNOWN_ID)}/duplicate`, { token: org.owner.token }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/duplicate`), 401);
    // Space admin through a grant, but only read in the collection it lives in: 403.
    const coll = await createCollection(org, { defaultLevel: 'read' });
    const inColl = await createSpace(org, { parent: coll.id });
    await grant(org, inColl.id, { role: 'admin', users: [org.members.create.id] });
    expectError(await api('POST', `${spacePath(inColl.id)}/duplicate`, { token: org.members.create.token }), 403);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    expectError(await api('POST', `${spacePath(space.id)}/duplicate`, { token: org.owner.token }), 400, 'deleted');
    expect((await api('GET', orgSpacesPath(org.id), { token: org.owner.token })).body.count).toBe(1);
  });
});

describe('restoreSpace', () => {
  it('restores a space deleted in the last 7 days', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const space = await createSpace(org, { parent: coll.id });
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    const res = await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token });
    expectStatus(res, 200);
    const restored = expectSchema(StrictSpaceSchema, res.body);
    expect(restored.deletedAt).toBeUndefined();
    expect(restored).toMatchObject({ id: space.id, parent: coll.id, revision: space.revision, title: space.title });
    expect((await api('GET', orgSpacesPath(org.id), { token: org.members.read.token })).body.items.map((s: any) => s.id)).toEqual([space.id]);
    // Six days ago is still within the window.
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    await setDeletedAt(space.id, 6);
    expectStatus(await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token }), 200);
  });

  it('answers 400 for a space that is not deleted, and after 7 days', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token }), 400, 'not deleted');
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    const at = await setDeletedAt(space.id, 8);
    expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token }), 400, '7 days');
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toBe(at);
    await setDeletedAt(space.id, 7.01);
    expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token }), 400, '7 days');
  });

  it('brings a space back at the root when its collection was deleted', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org, { defaultLevel: 'comment' });
    const space = await createSpace(org, { parent: coll.id });
    expectStatus(await api('DELETE', `/v1/collections/${coll.id}`, { token: org.owner.token }), 204);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toMatch(ISO);
    const res = await api('POST', `${spacePath(space.id)}/restore`, { token: org.owner.token });
    expectStatus(res, 200);
    expect(res.body.parent).toBeUndefined();
    // It keeps the access level it had inside the collection.
    expect((await getSpace(space.id, org.members.edit.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.comment);
  });

  it('needs admin on the space; 404 for those who cannot see it; 401 without a token', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.members[role].token }), 403);
    }
    expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.members.guest.token }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/restore`, { token: org.outsider.token }), 404);
    expectError(await api('POST', `${spacePath(UNKNOWN_ID)}/restore`, { token: org.owner.token }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/restore`), 401);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toMatch(ISO);
  });
});

describe('moveSpace', () => {
  it('moves a space into a collection, between siblings, and back to the root', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const a = await createSpace(org, { parent: coll.id });
    const b = await createSpace(org, { parent: coll.id });
    const space = await createSpace(org);
    const move = (body: unknown) => api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body });

    const into = await move({ parent: coll.id });
    expectStatus(into, 200);
    expect(expectSchema(StrictSpaceSchema, into.body).parent).toBe(coll.id);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, b.id, space.id]);

    expectStatus(await move({ position: { before: { type: 'space', space: a.id } } }), 200);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([space.id, a.id, b.id]);
    expectStatus(await move({ position: { after: { type: 'space', space: a.id } } }), 200);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, space.id, b.id]);
    expectStatus(await move({ position: { after: { type: 'space', space: b.id } } }), 200);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, b.id, space.id]);

    const out = await move({ parent: null });
    expectStatus(out, 200);
    expect(expectSchema(StrictSpaceSchema, out.body).parent).toBeUndefined();
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, b.id]);
  });

  it('moves into a collection and before a sibling in one call, and relative to a collection', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const a = await createSpace(org, { parent: coll.id });
    const nested = await createCollection(org, { parent: coll.id });
    const space = await createSpace(org);
    expectStatus(await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body: { parent: coll.id, position: { before: { type: 'space', space: a.id } } } }), 200);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([space.id, a.id]);
    // Relative to the nested collection: after it means after a too.
    expectStatus(
      await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body: { position: { after: { type: 'collection', collection: nested.id } } } }),
      200,
    );
    expect(await collectionSpaceIds(org, coll.id)).toEqual([a.id, space.id]);
  });

  it('recomputes access when the space changes collection', async () => {
    const org = await seedOrg();
    const closed = await createCollection(org, { defaultLevel: null });
    const space = await createSpace(org);
    expect((await getSpace(space.id, org.members.edit.token)).permissions.edit).toBe(true);
    expectStatus(await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body: { parent: closed.id } }), 200);
    expectError(await api('GET', spacePath(space.id), { token: org.members.edit.token }), 404);
    expectStatus(await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body: { parent: null } }), 200);
    expect((await getSpace(space.id, org.members.edit.token)).permissions.edit).toBe(true);
  });

  it('rejects positions that are not siblings in the target parent, and bad bodies', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const elsewhere = await createSpace(org, { parent: coll.id });
    const sibling = await createSpace(org);
    const space = await createSpace(org);
    const before = await spaceRow(space.id);
    const move = (body: unknown) => api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body });
    expectError(await move({ position: { before: { type: 'space', space: elsewhere.id } } }), 400, 'position');
    expectError(await move({ position: { after: { type: 'space', space: UNKNOWN_ID } } }), 400, 'position');
    expectError(await move({ position: { after: { type: 'space', space: space.id } } }), 400, 'position');
    expectError(await move({ parent: coll.id, position: { after: { type: 'space', space: sibling.id } } }), 400, 'position');
    expectError(await move({ position: { before: { type: 'space', space: sibling.id }, after: { type: 'space', space: sibling.id } } }), 400, 'position');
    expectError(await move({ position: { before: { type: 'page', page: 'x' } } }), 400, 'position');
    expectError(await move({}), 400);
    expectError(await move({ parent: UNKNOWN_ID }), 400, 'parent');
    expectError(await move({ parent: sibling.id }), 400, 'parent');
    expectError(await move({ parent: 5 }), 400, 'parent');
    expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, rawBody: MALFORMED }), 400);
    const otherOrgId = await secondOrgOf(org);
    const foreign = await api('POST', `/v1/orgs/${otherOrgId}/collections`, { token: org.owner.token, body: { title: 'Foreign' } });
    expectError(await move({ parent: foreign.body.id }), 400, 'parent');
    expect(await spaceRow(space.id)).toEqual(before);
  });

  it('needs admin on the space and create in the target collection', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const coll = await createCollection(org);
    const body = { parent: coll.id };
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.members[role].token, body }), 403);
    }
    expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.members.guest.token, body }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.outsider.token, body }), 404);
    expectError(await api('POST', `${spacePath(UNKNOWN_ID)}/move`, { token: org.owner.token, body }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/move`, { body }), 401);
    // Admin of the space by grant, but only read in the target collection.
    const readOnly = await createCollection(org, { defaultLevel: 'read' });
    await grant(org, space.id, { role: 'admin', users: [org.members.create.id] });
    expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.members.create.token, body: { parent: readOnly.id } }), 403);
    expectStatus(await api('POST', `${spacePath(space.id)}/move`, { token: org.members.create.token, body }), 200);
    expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
    expectError(await api('POST', `${spacePath(space.id)}/move`, { token: org.owner.token, body: { parent: null } }), 400, 'deleted');
  });
});

describe('transferSpace', () => {
  it('moves the space to the root of the target organization, dropping team grants and foreign user grants', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org);
    const space = await createSpace(org, { parent: coll.id });
    const targetId = await secondOrgOf(org);
    // edit is a member of both organizations; read only of the source.
    await addMember(targetId, org.members.edit.id, 'read');
    const team = await createTeam(org, [org.members.comment.id]);
    await grant(org, space.id, { role: 'review', users: [org.members.edit.id, org.members.read.id], teams: [team.id] });
    expect((await getSpace(space.id, org.members.comment.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);

    const res = await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: targetId } });
    expectStatus(res, 200);
    const moved = expectSchema(StrictSpaceSchema, res.body);
    expect(moved).toMatchObject({ id: space.id, organization: targetId, revision: space.revision, permissions: PERMISSIONS_BY_ROLE.admin });
    expect(moved.parent).toBeUndefined();
    expect(await countRows('space_team_grants', 'space_id', space.id)).toBe(0);
    const users = await api('GET', userPermissionsPath(space.id), { token: org.owner.token });
    expect(users.body.items.map((i: any) => [i.user.id, i.permission])).toEqual([[org.members.edit.id, 'review']]);
    expect((await api('GET', teamPermissionsPath(space.id), { token: org.owner.token })).body).toEqual({ items: [], count: 0 });
    // Gone from the source, listed in the target.
    expect((await api('GET', orgSpacesPath(org.id), { token: org.owner.token })).body.count).toBe(0);
    expect((await api('GET', orgSpacesPath(targetId), { token: org.owner.token })).body.items.map((s: any) => s.id)).toEqual([space.id]);
    expect(await collectionSpaceIds(org, coll.id)).toEqual([]);
    // Members of the source lose access; the kept grant still works in the target.
    expectError(await api('GET', spacePath(space.id), { token: org.members.read.token }), 404);
    expectError(await api('GET', spacePath(space.id), { token: org.members.comment.token }), 404);
    expect((await getSpace(space.id, org.members.edit.token)).permissions).toEqual(PERMISSIONS_BY_ROLE.review);
  });

  it('needs create in the target organization and membership there', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const other = await seedOrg();
    // org's owner is an edit member of the other organization.
    await addMember(other.id, org.owner.id, 'edit');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: other.id } }), 403);
    // Not a member of the outsider's organization at all, or an organization that does not exist: 400 naming the field.
    const outsiderOrgs = await api('GET', '/v1/orgs', { token: org.outsider.token });
    const outsiderOrgId = outsiderOrgs.body.items[0].id;
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: outsiderOrgId } }), 400, 'organization');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: UNKNOWN_ID } }), 400, 'organization');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: org.id } }), 400, 'organization');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: {} }), 400, 'organization');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: '' } }), 400, 'organization');
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, rawBody: MALFORMED }), 400);
    expect((await getSpace(space.id, org.owner.token)).organization).toBe(org.id);
    // With create in the target it works.
    await env.DB.prepare('update org_members set role = 5 where org_id = ? and user_id = ?').bind(other.id, org.owner.id).run();
    const ok = await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: other.id } });
    expectStatus(ok, 200);
    expect(ok.body.organization).toBe(other.id);
    expect(ok.body.permissions).toEqual(PERMISSIONS_BY_ROLE.create);
  });

  it('needs admin on the space; 404 for those who cannot see it; 401 without a token', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const targetId = await secondOrgOf(org);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      await addMember(targetId, org.members[role].id, 'admin');
      expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.members[role].token, body: { organization: targetId } }), 403);
    }
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.members.guest.token, body: { organization: targetId } }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.outsider.token, body: { organization: targetId } }), 404);
    expectError(await api('POST', `${spacePath(UNKNOWN_ID)}/transfer`, { token: org.owner.token, body: { organization: targetId } }), 404);
    expectError(await api('POST', `${spacePath(space.id)}/transfer`, { body: { organization: targetId } }), 401);
    expect((await getSpace(space.id, org.owner.token)).organization).toBe(org.id);
  });

  it('appends the space after the target root\'s existing content', async () => {
    const org = await seedOrg();
    const targetId = await secondOrgOf(org);
    const existing = await api('POST', orgSpacesPath(targetId), { token: org.owner.token, body: { title: 'Existing' } });
    expectStatus(existing, 201);
    const space = await createSpace(org);
    expectStatus(await api('POST', `${spacePath(space.id)}/transfer`, { token: org.owner.token, body: { organization: targetId } }), 200);
    const rows = await env.DB.prepare('select id from spaces where org_id = ? and parent_id is null order by position').bind(targetId).all<{ id: string }>();
    expect(rows.results.map((r) => r.id)).toEqual([existing.body.id, space.id]);
  });
});

describe('unknown methods and users', () => {
  it('answers 405 for an unsupported method on a space path', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const res = await api('PUT', spacePath(space.id), { token: org.owner.token, body: { title: 'x' } });
    expectError(res, 405);
  });

  it('a brand-new user with no organization gets 404 everywhere', async () => {
    const org = await seedOrg();
    const space = await createSpace(org);
    const stranger = await createUser();
    expectError(await api('GET', spacePath(space.id), { token: stranger.token }), 404);
    expectError(await api('GET', orgSpacesPath(org.id), { token: stranger.token }), 404);
    expectStatus(await api('DELETE', spacePath(space.id), { token: stranger.token }), 204);
    expect((await getSpace(space.id, org.owner.token)).deletedAt).toBeUndefined();
  });
});
