import { describe, expect, it } from 'vitest';
import { api, expectError, seedOrg } from '../helpers/harness';
import {
  CollectionListSchema,
  StrictCollection,
  collectPages,
  collectionIdsIn,
  collectionPath,
  collectionRow,
  createCollection,
  createOrg,
  createSpace,
  expectStatus,
  getCollection,
  getSpace,
  insertNested,
  orgCollectionsPath,
  patchCollection,
  spacePath,
  spaceRow,
} from './support';

const ALL_PERMISSIONS = { view: true, admin: true, viewInviteLinks: true, create: true };

describe('createCollection: POST /v1/orgs/{organizationId}/collections', () => {
  it('creates a root collection with every field and answers 201 with the Collection', async () => {
    const org = await seedOrg();
    const res = await api('POST', orgCollectionsPath(org.id), {
      token: org.owner.token,
      body: { title: 'Guides', description: 'How to use the product', defaultLevel: 'comment' },
    });
    expectStatus(res, 201);
    const created = StrictCollection.parse(res.body);
    expect(created).toMatchObject({
      object: 'collection',
      title: 'Guides',
      description: 'How to use the product',
      organization: org.id,
      defaultLevel: 'comment',
      permissions: ALL_PERMISSIONS,
    });
    expect(created.parent).toBeUndefined();
    expect(created.id).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(created.urls.location).toBe(`http://api.test/v1/collections/${created.id}`);
    expect(created.urls.app).toContain(created.id);
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    expect(created.updatedAt).toBe(created.createdAt);
    // The stored collection is what GET answers.
    expect(await getCollection(org.owner.token, created.id)).toEqual(created);
  });

  it('defaults defaultLevel to inherit, trims the title and names an empty one', async () => {
    const org = await seedOrg();
    const plain = await createCollection(org.owner.token, org.id, { title: '  Spaced out  ' });
    expect(plain.title).toBe('Spaced out');
    expect(plain.defaultLevel).toBe('inherit');
    expect(plain.description).toBeUndefined();
    const untitled = expectStatus(await api('POST', orgCollectionsPath(org.id), { token: org.owner.token, body: {} }), 201);
    expect(StrictCollection.parse(untitled.body).title.length).toBeGreaterThan(0);
    const fifty = await createCollection(org.owner.token, org.id, { title: 'x'.repeat(50), description: 'd'.repeat(100), defaultLevel: null });
    expect(fifty).toMatchObject({ title: 'x'.repeat(50), description: 'd'.repeat(100), defaultLevel: null });
  });

  it('creates a nested collection in a parent and lists it', async () => {
    const org = await seedOrg();
    const parent = await createCollection(org.owner.token, org.id, { title: 'Parent' });
    const child = await createCollection(org.owner.token, org.id, { title: 'Child', parent: parent.id });
    expect(child).toMatchObject({ parent: parent.id, organization: org.id, defaultLevel: 'inherit' });
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([parent.id, child.id].sort());
  });

  it('lets a member with the create role create at the root, with create but not admin permissions', async () => {
    const org = await seedOrg();
    const created = await createCollection(org.members.create.token, org.id, { title: 'By a creator' });
    expect(created.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    // ... and inside a collection open to them.
    const nested = await createCollection(org.members.create.token, org.id, { parent: created.id });
    expect(nested.parent).toBe(created.id);
  });

  it('refuses members below create (403) and creates nothing', async () => {
    const org = await seedOrg();
    for (const role of ['review', 'edit', 'comment', 'read', 'guest'] as const) {
      expectError(await api('POST', orgCollectionsPath(org.id), { token: org.members[role].token, body: { title: `By ${role}` } }), 403);
    }
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([].sort());
  });

  it('refuses a creator inside a parent collection that only lets them read (403)', async () => {
    const org = await seedOrg();
    const readOnly = await createCollection(org.owner.token, org.id, { defaultLevel: 'read' });
    expectError(
      await api('POST', orgCollectionsPath(org.id), { token: org.members.create.token, body: { title: 'Nope', parent: readOnly.id } }),
      403,
    );
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([readOnly.id].sort());
  });

  it('answers 400 naming the parent when it is unknown, in another organization or invisible to the caller', async () => {
    const org = await seedOrg();
    const other = await createOrg(org.owner);
    const foreign = await createCollection(org.owner.token, other, { title: 'Elsewhere' });
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.owner.token, body: { parent: 'no-such-collection' } }), 400, 'parent');
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.owner.token, body: { parent: foreign.id } }), 400, 'parent');
    // Hidden from the creator: it does not exist for them.
    const hidden = await createCollection(org.owner.token, org.id, { defaultLevel: null });
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.members.create.token, body: { parent: hidden.id } }), 400, 'parent');
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([hidden.id].sort());
  });

  it('validates the body: 400 with a message naming the field', async () => {
    const org = await seedOrg();
    const post = (body: unknown) => api('POST', orgCollectionsPath(org.id), { token: org.owner.token, body });
    expectError(await post({ title: 'x'.repeat(51) }), 400, 'title');
    expectError(await post({ title: 42 }), 400, 'title');
    expectError(await post({ description: 'd'.repeat(101) }), 400, 'description');
    expectError(await post({ defaultLevel: 'owner' }), 400, 'defaultLevel');
    expectError(await post({ defaultLevel: 'guest' }), 400, 'defaultLevel');
    expectError(await post({ parent: '' }), 400, 'parent');
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.owner.token, rawBody: '{"title": "unterminated' }), 400, 'malformed json');
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([].sort());
  });

  it('answers 401 without a token, 404 for an unknown organization and for a non-member', async () => {
    const org = await seedOrg();
    expectError(await api('POST', orgCollectionsPath(org.id), { body: { title: 'x' } }), 401);
    expectError(await api('POST', orgCollectionsPath('no-such-org'), { token: org.owner.token, body: { title: 'x' } }), 404);
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.outsider.token, body: { title: 'x' } }), 404);
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([].sort());
  });

  it('answers 404 to a non-member who names a parent collection, as without one (existence does not leak)', async () => {
    const org = await seedOrg();
    const parent = await createCollection(org.owner.token, org.id);
    expectError(await api('POST', orgCollectionsPath(org.id), { token: org.outsider.token, body: { parent: parent.id } }), 404, 'organization');
    expectError(await api('POST', orgCollectionsPath('no-such-org'), { token: org.owner.token, body: { parent: parent.id } }), 404, 'organization');
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([parent.id].sort());
  });
});

describe('getCollectionById: GET /v1/collections/{collectionId}', () => {
  it('answers the collection with permissions computed from the caller role', async () => {
    const org = await seedOrg();
    const parent = await createCollection(org.owner.token, org.id, { title: 'Top', description: 'Top level' });
    const child = await createCollection(org.owner.token, org.id, { title: 'Child', parent: parent.id, defaultLevel: 'review' });
    const asAdmin = await getCollection(org.owner.token, child.id);
    expect(asAdmin).toMatchObject({ id: child.id, title: 'Child', parent: parent.id, defaultLevel: 'review', organization: org.id, permissions: ALL_PERMISSIONS });
    expect((await getCollection(org.members.create.token, parent.id)).permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    // The child's level caps the creator at review: no create.
    expect((await getCollection(org.members.create.token, child.id)).permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    for (const role of ['review', 'edit', 'comment', 'read'] as const) {
      expect((await getCollection(org.members[role].token, parent.id)).permissions, role).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    }
  });

  it('answers 404 for an unknown id and a guest, 401 without a token, 400 for an overlong id', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    expectError(await api('GET', collectionPath('no-such-collection'), { token: org.owner.token }), 404, 'not found');
    expectError(await api('GET', collectionPath(coll.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', collectionPath(coll.id)), 401);
    expectError(await api('GET', collectionPath('x'.repeat(129)), { token: org.owner.token }), 400, 'collectionId');
  });

  it('answers 404 to a member of another organization (the outsider administers their own)', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    expectError(await api('GET', collectionPath(coll.id), { token: org.outsider.token }), 404);
  });

  it('does not answer another organization collection even to an admin of this one', async () => {
    const org = await seedOrg();
    const theirs = await seedOrg();
    const coll = await createCollection(theirs.owner.token, theirs.id);
    expectError(await api('GET', collectionPath(coll.id), { token: org.owner.token }), 404);
  });
});

describe('updateCollectionById: PATCH /v1/collections/{collectionId}', () => {
  it('updates title, description and defaultLevel, keeping what is not given', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id, { title: 'Before', description: 'Old', defaultLevel: 'edit' });
    const renamed = await patchCollection(org.owner.token, coll.id, { title: 'After' });
    expect(renamed).toMatchObject({ id: coll.id, title: 'After', description: 'Old', defaultLevel: 'edit', createdAt: coll.createdAt });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(coll.updatedAt));
    const described = await patchCollection(org.owner.token, coll.id, { description: 'New' });
    expect(described).toMatchObject({ title: 'After', description: 'New', defaultLevel: 'edit' });
    expect((await patchCollection(org.owner.token, coll.id, { defaultLevel: null })).defaultLevel).toBeNull();
    expect((await patchCollection(org.owner.token, coll.id, { defaultLevel: 'inherit' })).defaultLevel).toBe('inherit');
    expect((await patchCollection(org.owner.token, coll.id, { defaultLevel: 'admin' })).defaultLevel).toBe('admin');
    const all = await patchCollection(org.owner.token, coll.id, { title: 'x'.repeat(50), description: 'y'.repeat(100), defaultLevel: 'read' });
    expect(all).toMatchObject({ title: 'x'.repeat(50), description: 'y'.repeat(100), defaultLevel: 'read' });
    expect(await getCollection(org.owner.token, coll.id)).toEqual(all);
  });

  it('validates the body: 400 naming the field, and changes nothing', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id, { title: 'Stays', defaultLevel: 'edit' });
    const patch = (body: unknown) => api('PATCH', collectionPath(coll.id), { token: org.owner.token, body });
    expectError(await patch({ title: 'x'.repeat(51) }), 400, 'title');
    expectError(await patch({ description: 'd'.repeat(101) }), 400, 'description');
    expectError(await patch({ defaultLevel: 'guest' }), 400, 'defaultLevel');
    expectError(await patch({ defaultLevel: 7 }), 400, 'defaultLevel');
    expectError(await patch({ title: null }), 400, 'title');
    expectError(await patch({}), 400);
    expectError(await api('PATCH', collectionPath(coll.id), { token: org.owner.token, rawBody: '{title:' }), 400, 'malformed json');
    expect(await getCollection(org.owner.token, coll.id)).toMatchObject({ title: 'Stays', defaultLevel: 'edit' });
  });

  it('refuses members who can see the collection but are not admins (403), hides it from others (404)', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id, { title: 'Protected' });
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('PATCH', collectionPath(coll.id), { token: org.members[role].token, body: { title: role } }), 403);
    }
    expectError(await api('PATCH', collectionPath(coll.id), { token: org.members.guest.token, body: { title: 'guest' } }), 404);
    expectError(await api('PATCH', collectionPath('no-such-collection'), { token: org.owner.token, body: { title: 'x' } }), 404);
    expectError(await api('PATCH', collectionPath(coll.id), { body: { title: 'x' } }), 401);
    expect((await getCollection(org.owner.token, coll.id)).title).toBe('Protected');
  });

  it('answers 404 to a member of another organization and changes nothing', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id, { title: 'Protected', defaultLevel: 'read' });
    expectError(await api('PATCH', collectionPath(coll.id), { token: org.outsider.token, body: { title: 'outsider', defaultLevel: 'admin' } }), 404);
    expect(await getCollection(org.owner.token, coll.id)).toMatchObject({ title: 'Protected', defaultLevel: 'read' });
  });
});

describe('listCollectionsInOrganizationById: GET /v1/orgs/{organizationId}/collections', () => {
  it('lists nested collections by default and only top-level ones with nested=false', async () => {
    const org = await seedOrg();
    const a = await createCollection(org.owner.token, org.id, { title: 'A' });
    const b = await createCollection(org.owner.token, org.id, { title: 'B' });
    const a1 = await createCollection(org.owner.token, org.id, { title: 'A1', parent: a.id });
    const a11 = await createCollection(org.owner.token, org.id, { title: 'A11', parent: a1.id });
    const all = expectStatus(await api('GET', orgCollectionsPath(org.id), { token: org.members.read.token }), 200);
    const page = CollectionListSchema.parse(all.body);
    expect(page.count).toBe(4);
    expect(page.next).toBeUndefined();
    expect(new Set(page.items.map((c) => c.id))).toEqual(new Set([a.id, b.id, a1.id, a11.id]));
    for (const item of page.items) expect(item.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(new Set(await collectionIdsIn(org.members.read.token, org.id, true))).toEqual(new Set([a.id, b.id, a1.id, a11.id]));
    const top = CollectionListSchema.parse(expectStatus(await api('GET', `${orgCollectionsPath(org.id)}?nested=false`, { token: org.owner.token }), 200).body);
    expect(top.count).toBe(2);
    expect(new Set(top.items.map((c) => c.id))).toEqual(new Set([a.id, b.id]));
    expect(new Set((await api('GET', `${orgCollectionsPath(org.id)}?nested=true`, { token: org.owner.token })).body.items.map((c: { id: string }) => c.id))).toEqual(
      new Set([a.id, b.id, a1.id, a11.id]),
    );
  });

  it('pages with limit and next.page: no duplicates, nothing missing, count the total on every page', async () => {
    const org = await seedOrg();
    const ids: string[] = [];
    const roots: string[] = [];
    for (let i = 0; i < 5; i++) {
      const root = await createCollection(org.owner.token, org.id, { title: `Root ${i}` });
      roots.push(root.id);
      ids.push(root.id);
      if (i % 2 === 0) ids.push((await createCollection(org.owner.token, org.id, { title: `Nested ${i}`, parent: root.id })).id);
    }
    const parse = (b: unknown) => CollectionListSchema.parse(b);
    const all = await collectPages(orgCollectionsPath(org.id), org.owner.token, 2, parse);
    expect(all.pages).toBe(4);
    expect(all.counts).toEqual([8, 8, 8, 8]);
    expect(all.items.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(new Set(all.items.map((c) => c.id)).size).toBe(8);
    const top = await collectPages(`${orgCollectionsPath(org.id)}?nested=false`, org.owner.token, 2, parse);
    expect(top.pages).toBe(3);
    expect(top.counts).toEqual([5, 5, 5]);
    expect(top.items.map((c) => c.id).sort()).toEqual([...roots].sort());
    // One page of exactly the total has no next.
    const exact = CollectionListSchema.parse((await api('GET', `${orgCollectionsPath(org.id)}?limit=8`, { token: org.owner.token })).body);
    expect(exact.items).toHaveLength(8);
    expect(exact.next).toBeUndefined();
  });

  it('keeps paging stable while collections are created', async () => {
    const org = await seedOrg();
    const before: string[] = [];
    for (let i = 0; i < 4; i++) before.push((await createCollection(org.owner.token, org.id)).id);
    const added: string[] = [];
    const all = await collectPages(orgCollectionsPath(org.id), org.owner.token, 2, (b) => CollectionListSchema.parse(b), async (page) => {
      if (page === 1) added.push((await createCollection(org.owner.token, org.id)).id);
    });
    const seen = all.items.map((c) => c.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual([...before, ...added].sort());
  });

  it('lists only what the caller may see: a guest sees none, hidden ones are left out for members', async () => {
    const org = await seedOrg();
    const open = await createCollection(org.owner.token, org.id, { title: 'Open' });
    const hidden = await createCollection(org.owner.token, org.id, { title: 'Hidden', defaultLevel: null });
    const guestList = CollectionListSchema.parse(expectStatus(await api('GET', orgCollectionsPath(org.id), { token: org.members.guest.token }), 200).body);
    expect(guestList).toEqual({ items: [], count: 0 });
    expect(await collectionIdsIn(org.members.edit.token, org.id)).toEqual([open.id].sort());
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([open.id, hidden.id].sort());
  });

  it('validates the query: limit 0 or 1001, a bad cursor, a bad nested value are 400', async () => {
    const org = await seedOrg();
    await createCollection(org.owner.token, org.id);
    const get = (query: string) => api('GET', `${orgCollectionsPath(org.id)}?${query}`, { token: org.owner.token });
    expectError(await get('limit=0'), 400, 'limit');
    expectError(await get('limit=1001'), 400, 'limit');
    expectError(await get('limit=abc'), 400, 'limit');
    expectError(await get('page=not-a-cursor'), 400, 'page');
    expectError(await get(`page=${btoa('{"a":1}')}`), 400, 'page');
    expectError(await get('nested=maybe'), 400, 'nested');
    expectStatus(await get('limit=1000'), 200);
    expectStatus(await get('limit=1'), 200);
  });

  it('answers 401 without a token and 404 for an unknown organization or a non-member', async () => {
    const org = await seedOrg();
    await createCollection(org.owner.token, org.id);
    expectError(await api('GET', orgCollectionsPath(org.id)), 401);
    expectError(await api('GET', orgCollectionsPath('no-such-org'), { token: org.owner.token }), 404);
    expectError(await api('GET', orgCollectionsPath(org.id), { token: org.outsider.token }), 404);
  });
});

describe('deleteCollectionById: DELETE /v1/collections/{collectionId}', () => {
  it('deletes the collection and its nested collections; their spaces go to the trash at the root', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const keep = await createCollection(admin, org.id, { title: 'Sibling' });
    const keptSpace = await createSpace(admin, org.id, keep.id);
    const top = await createCollection(admin, org.id, { title: 'Top', defaultLevel: 'read' });
    const mid = await createCollection(admin, org.id, { title: 'Mid', parent: top.id });
    const leaf = await createCollection(admin, org.id, { title: 'Leaf', parent: mid.id, defaultLevel: null });
    const inTop = await createSpace(admin, org.id, top.id);
    const inMid = await createSpace(admin, org.id, mid.id);
    const inLeaf = await createSpace(admin, org.id, leaf.id);
    const before = Date.now();
    expectStatus(await api('DELETE', collectionPath(top.id), { token: admin }), 204);
    for (const id of [top.id, mid.id, leaf.id]) expectError(await api('GET', collectionPath(id), { token: admin }), 404);
    expect(await collectionIdsIn(admin, org.id)).toEqual([keep.id].sort());
    for (const s of [inTop, inMid, inLeaf]) {
      const trashed = await getSpace(admin, s.id);
      expect(trashed.deletedAt, s.title).toBeDefined();
      expect(Date.parse(trashed.deletedAt!)).toBeGreaterThanOrEqual(before - 1000);
      expect(trashed.parent).toBeUndefined();
    }
    // The org's list of live spaces no longer has them; the sibling collection is untouched.
    const live = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces?limit=1000`, { token: admin }), 200);
    expect(live.body.items.map((s: { id: string }) => s.id)).toEqual([keptSpace.id]);
    expect(await getSpace(admin, keptSpace.id)).toMatchObject({ parent: keep.id });
    expect((await getSpace(admin, keptSpace.id)).deletedAt).toBeUndefined();
  });

  it('keeps the effective level of trashed spaces through their defaultLevel', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const top = await createCollection(admin, org.id, { defaultLevel: 'read' });
    const hidden = await createCollection(admin, org.id, { parent: top.id, defaultLevel: null });
    const inRead = await createSpace(admin, org.id, top.id);
    const inHidden = await createSpace(admin, org.id, hidden.id);
    const own = await createSpace(admin, org.id, top.id);
    expectStatus(await api('PATCH', spacePath(own.id), { token: admin, body: { defaultLevel: 'comment' } }), 200);
    const edit = org.members.edit.token;
    expect((await getSpace(edit, inRead.id)).permissions).toMatchObject({ view: true, comment: false, edit: false });
    expectError(await api('GET', spacePath(inHidden.id), { token: edit }), 404);
    expectStatus(await api('DELETE', collectionPath(top.id), { token: admin }), 204);
    // In the trash, at the root (where inherit would mean no cap), each keeps the level it had.
    expect((await getSpace(admin, inRead.id)).defaultLevel).toBe('read');
    expect((await getSpace(admin, inHidden.id)).defaultLevel).toBeNull();
    expect((await getSpace(admin, own.id)).defaultLevel).toBe('comment');
    const seen = await getSpace(edit, inRead.id);
    expect(seen.permissions).toMatchObject({ view: true, comment: false, edit: false });
    expect(seen.deletedAt).toBeDefined();
    expectError(await api('GET', spacePath(inHidden.id), { token: edit }), 404);
    expect((await getSpace(edit, own.id)).permissions).toMatchObject({ comment: true, edit: false });
    // Restored, they come back at the root with the same access.
    for (const s of [inRead, inHidden, own]) expectStatus(await api('POST', `/v1/spaces/${s.id}/restore`, { token: admin }), 200);
    expect((await getSpace(edit, inRead.id)).permissions).toMatchObject({ view: true, edit: false });
    expect((await getSpace(edit, inRead.id)).parent).toBeUndefined();
    expectError(await api('GET', spacePath(inHidden.id), { token: edit }), 404);
    expect((await getSpace(edit, own.id)).permissions).toMatchObject({ comment: true, edit: false });
  });

  it('keeps the deletion time of a space that was already in the trash', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const space = await createSpace(admin, org.id, coll.id);
    expectStatus(await api('DELETE', spacePath(space.id), { token: admin }), 204);
    const first = (await spaceRow(space.id))!.deleted_at;
    expect(first).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    expectStatus(await api('DELETE', collectionPath(coll.id), { token: admin }), 204);
    const after = await spaceRow(space.id);
    expect(after).toMatchObject({ deleted_at: first, parent_id: null });
  });

  it('deleting a nested collection leaves its parent and siblings', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const top = await createCollection(admin, org.id);
    const a = await createCollection(admin, org.id, { parent: top.id });
    const b = await createCollection(admin, org.id, { parent: top.id });
    const inTop = await createSpace(admin, org.id, top.id);
    const inA = await createSpace(admin, org.id, a.id);
    expectStatus(await api('DELETE', collectionPath(a.id), { token: admin }), 204);
    expect(await collectionIdsIn(admin, org.id)).toEqual([top.id, b.id].sort());
    expect((await getSpace(admin, inTop.id)).deletedAt).toBeUndefined();
    expect((await getSpace(admin, inA.id)).deletedAt).toBeDefined();
  });

  it('answers 204 for an absent or already deleted collection', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    expectStatus(await api('DELETE', collectionPath('no-such-collection'), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', collectionPath(coll.id), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', collectionPath(coll.id), { token: org.owner.token }), 204);
  });

  it('answers 204 to members who cannot see it, and deletes nothing', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    const hidden = await createCollection(org.owner.token, org.id, { defaultLevel: null });
    const space = await createSpace(org.owner.token, org.id, coll.id);
    expectStatus(await api('DELETE', collectionPath(coll.id), { token: org.members.guest.token }), 204);
    expectStatus(await api('DELETE', collectionPath(hidden.id), { token: org.members.edit.token }), 204);
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([coll.id, hidden.id].sort());
    expect((await getSpace(org.owner.token, space.id)).deletedAt).toBeUndefined();
  });

  it('answers 204 to a member of another organization, and deletes nothing', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    const nested = await createCollection(org.owner.token, org.id, { parent: coll.id });
    const space = await createSpace(org.owner.token, org.id, coll.id);
    expectStatus(await api('DELETE', collectionPath(coll.id), { token: org.outsider.token }), 204);
    expect(await collectionIdsIn(org.owner.token, org.id)).toEqual([coll.id, nested.id].sort());
    expect((await getSpace(org.owner.token, space.id)).deletedAt).toBeUndefined();
  });

  it('refuses members who see it but are not admins (403) and 401 without a token', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('DELETE', collectionPath(coll.id), { token: org.members[role].token }), 403);
    }
    expectError(await api('DELETE', collectionPath(coll.id)), 401);
    expect(await collectionRow(coll.id)).not.toBeNull();
  });

  it('deletes a tree of more than a hundred nested collections (statements chunked under D1 limits)', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const top = await createCollection(admin, org.id);
    const space = await createSpace(admin, org.id, top.id);
    const nested = await insertNested(org.id, top.id, 130);
    expectStatus(await api('DELETE', collectionPath(top.id), { token: admin }), 204);
    expect(await collectionIdsIn(admin, org.id)).toEqual([].sort());
    expect(await collectionRow(nested[129])).toBeNull();
    expect((await getSpace(admin, space.id)).deletedAt).toBeDefined();
  });
});
