import { describe, expect, it } from 'vitest';
import { api, expectError, seedOrg } from '../helpers/harness';
import {
  SpaceListSchema,
  collectPages,
  collectionIdsIn,
  collectionRow,
  collectionSpacesPath,
  createCollection,
  createOrg,
  createSpace,
  expectStatus,
  getCollection,
  moveCollection,
  movePath,
  moveSpace,
  spaceIdsIn,
  seedGrants,
  spacePath,
  spaceRow,
} from './support';

const spaceRef = (space: string) => ({ type: 'space', space });
const collectionRef = (collection: string) => ({ type: 'collection', collection });

describe('listSpacesInCollectionById: GET /v1/collections/{collectionId}/spaces', () => {
  it('lists the live spaces directly in the collection, in their order, as Space objects', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const nested = await createCollection(admin, org.id, { parent: coll.id });
    const a = await createSpace(admin, org.id, coll.id, 'A');
    const b = await createSpace(admin, org.id, coll.id, 'B');
    const deleted = await createSpace(admin, org.id, coll.id, 'Deleted');
    await createSpace(admin, org.id, nested.id, 'Nested, not listed');
    await createSpace(admin, org.id, undefined, 'At the root, not listed');
    expectStatus(await api('DELETE', spacePath(deleted.id), { token: admin }), 204);
    const res = expectStatus(await api('GET', collectionSpacesPath(coll.id), { token: org.members.read.token }), 200);
    const page = SpaceListSchema.parse(res.body);
    expect(page.count).toBe(2);
    expect(page.next).toBeUndefined();
    expect(page.items.map((s) => s.title)).toEqual(['A', 'B']);
    expect(page.items.map((s) => s.id)).toEqual([a.id, b.id]);
    for (const s of page.items) {
      expect(s).toMatchObject({ object: 'space', parent: coll.id, organization: org.id, defaultLevel: 'inherit' });
      expect(s.permissions).toMatchObject({ view: true, comment: false, edit: false, admin: false });
    }
    // The nested collection lists its own space; an empty collection lists nothing.
    expect(SpaceListSchema.parse((await api('GET', collectionSpacesPath(nested.id), { token: admin })).body).items.map((s) => s.title)).toEqual(['Nested, not listed']);
    const empty = await createCollection(admin, org.id);
    expect(SpaceListSchema.parse((await api('GET', collectionSpacesPath(empty.id), { token: admin })).body)).toEqual({ items: [], count: 0 });
  });

  it('leaves out spaces the caller may not see, and counts only the visible ones', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const open = await createSpace(admin, org.id, coll.id);
    const closed = await createSpace(admin, org.id, coll.id);
    expectStatus(await api('PATCH', spacePath(closed.id), { token: admin, body: { defaultLevel: null } }), 200);
    expect(await spaceIdsIn(org.members.edit.token, coll.id)).toEqual([open.id]);
    expect(await spaceIdsIn(admin, coll.id)).toEqual([open.id, closed.id]);
    // A personal grant makes it visible to that member only.
    await seedGrants(closed.id, { comment: [org.members.read.id] }, {});
    expect(await spaceIdsIn(org.members.read.token, coll.id)).toEqual([open.id, closed.id]);
    expect(await spaceIdsIn(org.members.edit.token, coll.id)).toEqual([open.id]);
  });

  it('pages with limit and next.page in position order: no duplicates, count on every page', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createSpace(admin, org.id, coll.id, `S${i}`)).id);
    // Reorder so that position order differs from creation order.
    await moveSpace(admin, ids[6], { position: { before: spaceRef(ids[0]) } });
    const order = [ids[6], ...ids.slice(0, 6)];
    expect(await spaceIdsIn(admin, coll.id)).toEqual(order);
    const parse = (b: unknown) => SpaceListSchema.parse(b);
    const paged = await collectPages(collectionSpacesPath(coll.id), admin, 3, parse);
    expect(paged.pages).toBe(3);
    expect(paged.counts).toEqual([7, 7, 7]);
    expect(paged.items.map((s) => s.id)).toEqual(order);
    const single = await collectPages(collectionSpacesPath(coll.id), admin, 1, parse);
    expect(single.pages).toBe(7);
    expect(single.items.map((s) => s.id)).toEqual(order);
    const whole = await collectPages(collectionSpacesPath(coll.id), admin, 7, parse);
    expect(whole.pages).toBe(1);
  });

  it('keeps paging stable while spaces are added at the end', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createSpace(admin, org.id, coll.id)).id);
    const paged = await collectPages(collectionSpacesPath(coll.id), admin, 2, (b) => SpaceListSchema.parse(b), async (page) => {
      if (page === 1) ids.push((await createSpace(admin, org.id, coll.id)).id);
    });
    expect(paged.items.map((s) => s.id)).toEqual(ids);
  });

  it('validates the query: limit 0 or 1001 and a bad cursor are 400', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    await createSpace(org.owner.token, org.id, coll.id);
    const get = (q: string) => api('GET', `${collectionSpacesPath(coll.id)}?${q}`, { token: org.owner.token });
    expectError(await get('limit=0'), 400, 'limit');
    expectError(await get('limit=1001'), 400, 'limit');
    expectError(await get('limit=-1'), 400, 'limit');
    expectError(await get('page=%%%'), 400);
    expectError(await get('page=bm90LWpzb24'), 400, 'page');
    expectError(await get(`page=${btoa('[1]')}`), 400, 'page');
    expectStatus(await get('limit=1000'), 200);
  });

  it('answers 401 without a token, 404 for an unknown collection, a guest and an outsider', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    expectError(await api('GET', collectionSpacesPath(coll.id)), 401);
    expectError(await api('GET', collectionSpacesPath('no-such-collection'), { token: org.owner.token }), 404);
    expectError(await api('GET', collectionSpacesPath(coll.id), { token: org.members.guest.token }), 404);
  });

  it('answers 404 to a member of another organization', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    await createSpace(org.owner.token, org.id, coll.id);
    expectError(await api('GET', collectionSpacesPath(coll.id), { token: org.outsider.token }), 404);
  });
});

describe('positions of spaces in a collection', () => {
  it('moves a space before or after a sibling and the list follows', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const [a, b, c] = [await createSpace(admin, org.id, coll.id, 'A'), await createSpace(admin, org.id, coll.id, 'B'), await createSpace(admin, org.id, coll.id, 'C')];
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, b.id, c.id]);
    await moveSpace(admin, c.id, { position: { before: spaceRef(a.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([c.id, a.id, b.id]);
    await moveSpace(admin, c.id, { position: { after: spaceRef(a.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, c.id, b.id]);
    await moveSpace(admin, a.id, { position: { after: spaceRef(b.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([c.id, b.id, a.id]);
    await moveSpace(admin, b.id, { position: { before: spaceRef(c.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([b.id, c.id, a.id]);
    // Many moves between the same two neighbours keep the order exact.
    for (let i = 0; i < 20; i++) await moveSpace(admin, i % 2 ? a.id : b.id, { position: { after: spaceRef(c.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([c.id, a.id, b.id]);
  });

  it('keeps the order exact after many moves into the same gap (positions do not run out of precision)', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const [a, b, c] = [await createSpace(admin, org.id, coll.id, 'A'), await createSpace(admin, org.id, coll.id, 'B'), await createSpace(admin, org.id, coll.id, 'C')];
    // Each move lands right after A, halving the gap after A: a float midpoint runs out after ~50.
    let order = [a.id, b.id, c.id];
    const wrong: string[] = [];
    for (let i = 0; i < 60; i++) {
      const moving = order[2];
      await moveSpace(admin, moving, { position: { after: spaceRef(a.id) } });
      order = [a.id, moving, order[1]];
      const listed = await spaceIdsIn(admin, coll.id);
      if (JSON.stringify(listed) !== JSON.stringify(order)) wrong.push(`after move ${i + 1}`);
    }
    expect(wrong).toEqual([]);
    // The same for a collection moved among spaces.
    const nested = await createCollection(admin, org.id, { parent: coll.id });
    for (let i = 0; i < 60; i++) {
      const moving = i % 2 === 0 ? nested.id : order[1];
      if (moving === nested.id) await moveCollection(admin, nested.id, { position: { after: spaceRef(a.id) } });
      else await moveSpace(admin, moving, { position: { after: spaceRef(a.id) } });
    }
    const positions = [(await spaceRow(a.id))!.position, (await spaceRow(order[1]))!.position, (await collectionRow(nested.id))!.position, (await spaceRow(order[2]))!.position];
    expect(new Set(positions).size).toBe(4);
    // Last moves: nested after A (i = 58), then order[1] after A (i = 59): A, order[1], nested, order[2].
    expect([...positions].sort((l, r) => l - r)).toEqual(positions);
  });

  it('keeps the order exact when the exhausted gap is among negative positions and a nested collection', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const p = await createSpace(admin, org.id, coll.id, 'P');
    const q = await createSpace(admin, org.id, coll.id, 'Q');
    const r = await createSpace(admin, org.id, coll.id, 'R');
    const n = await createCollection(admin, org.id, { parent: coll.id });
    await moveCollection(admin, n.id, { position: { before: spaceRef(p.id) } });
    await moveSpace(admin, r.id, { position: { before: collectionRef(n.id) } });
    // R, N, P, Q at -1, 0, 1, 2: now P and Q take turns right after R.
    let order = [r.id, n.id, p.id, q.id];
    for (let i = 0; i < 60; i++) {
      const moving = i % 2 === 0 ? p.id : q.id;
      await moveSpace(admin, moving, { position: { after: spaceRef(r.id) } });
      order = [r.id, moving, ...order.slice(1).filter((id) => id !== moving)];
    }
    const positions = await Promise.all(order.map(async (id) => (id === n.id ? (await collectionRow(id))!.position : (await spaceRow(id))!.position)));
    expect(new Set(positions).size).toBe(4);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(await spaceIdsIn(admin, coll.id)).toEqual(order.filter((id) => id !== n.id));
  });

  it('orders spaces among nested collections, which share the positions', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const a = await createSpace(admin, org.id, coll.id, 'A');
    const nested = await createCollection(admin, org.id, { parent: coll.id });
    const b = await createSpace(admin, org.id, coll.id, 'B');
    await moveSpace(admin, b.id, { position: { before: collectionRef(nested.id) } });
    const nestedPos = (await collectionRow(nested.id))!.position;
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, b.id]);
    const bPos = (await spaceRow(b.id))!.position;
    expect(bPos).toBeLessThan(nestedPos);
    expect(bPos).toBeGreaterThan((await spaceRow(a.id))!.position);
    await moveSpace(admin, a.id, { position: { after: collectionRef(nested.id) } });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([b.id, a.id]);
    expect((await collectionRow(nested.id))!.position).toBe(nestedPos);
  });

  it('creates spaces and collections at the end of their parent', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const a = await createSpace(admin, org.id, coll.id);
    const nested = await createCollection(admin, org.id, { parent: coll.id });
    const b = await createSpace(admin, org.id, coll.id);
    const [pa, pn, pb] = [(await spaceRow(a.id))!.position, (await collectionRow(nested.id))!.position, (await spaceRow(b.id))!.position];
    expect(pa).toBeLessThan(pn);
    expect(pn).toBeLessThan(pb);
    const root = await createCollection(admin, org.id);
    expect((await collectionRow(root.id))!.position).toBeGreaterThan((await collectionRow(coll.id))!.position);
  });

  it('moves a space into a collection at a position among its new siblings', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const a = await createSpace(admin, org.id, coll.id, 'A');
    const b = await createSpace(admin, org.id, coll.id, 'B');
    const outside = await createSpace(admin, org.id);
    const moved = await moveSpace(admin, outside.id, { parent: coll.id, position: { after: spaceRef(a.id) } });
    expect(moved.parent).toBe(coll.id);
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, outside.id, b.id]);
    // Without a position it lands at the end.
    const another = await createSpace(admin, org.id);
    await moveSpace(admin, another.id, { parent: coll.id });
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, outside.id, b.id, another.id]);
  });

  it('refuses a reference that is not a sibling in the target parent: 400 Invalid move position', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const other = await createCollection(admin, org.id);
    const a = await createSpace(admin, org.id, coll.id, 'A');
    const b = await createSpace(admin, org.id, coll.id, 'B');
    const elsewhere = await createSpace(admin, org.id, other.id);
    const post = (id: string, body: unknown) => api('POST', `${spacePath(id)}/move`, { token: admin, body });
    expectError(await post(a.id, { position: { before: spaceRef(elsewhere.id) } }), 400, 'invalid move position');
    expectError(await post(a.id, { position: { after: spaceRef(a.id) } }), 400, 'invalid move position');
    expectError(await post(a.id, { position: { after: spaceRef('no-such-space') } }), 400, 'invalid move position');
    // The reference must be in the target parent, not the current one.
    expectError(await post(a.id, { parent: other.id, position: { after: spaceRef(b.id) } }), 400, 'invalid move position');
    expect(await spaceIdsIn(admin, coll.id)).toEqual([a.id, b.id]);
  });
});

describe('moveCollection: POST /v1/collections/{collectionId}/move', () => {
  it('moves a collection into another one and back to the root', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createCollection(admin, org.id, { title: 'Target' });
    const moving = await createCollection(admin, org.id, { title: 'Moving', description: 'kept' });
    const inside = await createSpace(admin, org.id, moving.id);
    const moved = await moveCollection(admin, moving.id, { parent: target.id });
    expect(moved).toMatchObject({ id: moving.id, parent: target.id, title: 'Moving', description: 'kept', organization: org.id });
    expect((await getCollection(admin, moving.id)).parent).toBe(target.id);
    expect(await collectionIdsIn(admin, org.id, false)).toEqual([target.id].sort());
    // Its spaces stay in it.
    expect(await spaceIdsIn(admin, moving.id)).toEqual([inside.id]);
    const back = await moveCollection(admin, moving.id, { parent: null });
    expect(back.parent).toBeUndefined();
    expect(await collectionIdsIn(admin, org.id, false)).toEqual([target.id, moving.id].sort());
  });

  it('moves a collection before or after a sibling (space or collection) in the same parent', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const parent = await createCollection(admin, org.id);
    const x = await createCollection(admin, org.id, { parent: parent.id, title: 'X' });
    const s = await createSpace(admin, org.id, parent.id, 'S');
    const y = await createCollection(admin, org.id, { parent: parent.id, title: 'Y' });
    // Collections are listed by creation; their order among siblings is their stored position.
    const order = async () => {
      const [rx, ry, rs] = [await collectionRow(x.id), await collectionRow(y.id), await spaceRow(s.id)];
      return [
        { id: x.id, p: rx!.position },
        { id: s.id, p: rs!.position },
        { id: y.id, p: ry!.position },
      ]
        .sort((l, r) => l.p - r.p)
        .map((e) => e.id);
    };
    expect(await order()).toEqual([x.id, s.id, y.id]);
    await moveCollection(admin, y.id, { position: { before: collectionRef(x.id) } });
    expect(await order()).toEqual([y.id, x.id, s.id]);
    await moveCollection(admin, y.id, { position: { after: spaceRef(s.id) } });
    expect(await order()).toEqual([x.id, s.id, y.id]);
    await moveCollection(admin, x.id, { position: { after: spaceRef(s.id) } });
    expect(await order()).toEqual([s.id, x.id, y.id]);
    // The parent is unchanged; the spaces list shows the space only.
    expect((await getCollection(admin, x.id)).parent).toBe(parent.id);
    expect(await spaceIdsIn(admin, parent.id)).toEqual([s.id]);
  });

  it('moves a collection into another parent at a position', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createCollection(admin, org.id);
    const first = await createSpace(admin, org.id, target.id);
    const second = await createSpace(admin, org.id, target.id);
    const moving = await createCollection(admin, org.id);
    await moveCollection(admin, moving.id, { parent: target.id, position: { before: spaceRef(second.id) } });
    const pos = (await collectionRow(moving.id))!.position;
    expect(pos).toBeGreaterThan((await spaceRow(first.id))!.position);
    expect(pos).toBeLessThan((await spaceRow(second.id))!.position);
  });

  it('refuses to move a collection into itself or one of its descendants (400)', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const top = await createCollection(admin, org.id);
    const child = await createCollection(admin, org.id, { parent: top.id });
    const grandchild = await createCollection(admin, org.id, { parent: child.id });
    const post = (id: string, body: unknown) => api('POST', movePath(id), { token: admin, body });
    expectError(await post(top.id, { parent: top.id }), 400, 'parent');
    expectError(await post(top.id, { parent: child.id }), 400, 'parent');
    expectError(await post(top.id, { parent: grandchild.id }), 400, 'parent');
    expectError(await post(child.id, { parent: grandchild.id }), 400, 'parent');
    expect((await collectionRow(top.id))!.parent_id).toBeNull();
    expect((await collectionRow(child.id))!.parent_id).toBe(top.id);
    // Moving a grandchild up to its grandparent is fine.
    expect((await moveCollection(admin, grandchild.id, { parent: top.id })).parent).toBe(top.id);
  });

  it('refuses a reference that is not a sibling in the target parent: 400 Invalid move position', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const a = await createCollection(admin, org.id);
    const b = await createCollection(admin, org.id);
    const inB = await createCollection(admin, org.id, { parent: b.id });
    const spaceInB = await createSpace(admin, org.id, b.id);
    const rootSpace = await createSpace(admin, org.id);
    const post = (body: unknown) => api('POST', movePath(a.id), { token: admin, body });
    const before = (await collectionRow(a.id))!;
    expectError(await post({ position: { before: collectionRef(inB.id) } }), 400, 'invalid move position');
    expectError(await post({ position: { after: spaceRef(spaceInB.id) } }), 400, 'invalid move position');
    expectError(await post({ position: { after: collectionRef(a.id) } }), 400, 'invalid move position');
    expectError(await post({ parent: b.id, position: { after: spaceRef(rootSpace.id) } }), 400, 'invalid move position');
    expectError(await post({ position: { after: collectionRef('no-such-collection') } }), 400, 'invalid move position');
    expect(await collectionRow(a.id)).toEqual(before);
    // Those references are fine in the right parent.
    await moveCollection(admin, a.id, { parent: b.id, position: { after: collectionRef(inB.id) } });
    await moveCollection(admin, a.id, { position: { before: spaceRef(spaceInB.id) } });
  });

  it('validates the body: 400 naming the field', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const a = await createCollection(admin, org.id);
    const b = await createCollection(admin, org.id);
    const post = (body: unknown) => api('POST', movePath(a.id), { token: admin, body });
    expectError(await post({}), 400, 'give parent or position');
    expectError(await post({ parent: '' }), 400, 'parent');
    expectError(await post({ parent: 42 }), 400, 'parent');
    expectError(await post({ position: { before: collectionRef(b.id), after: collectionRef(b.id) } }), 400, 'position');
    expectError(await post({ position: { before: { type: 'page', page: b.id } } }), 400, 'position');
    expectError(await post({ position: { before: { type: 'collection' } } }), 400, 'position');
    expectError(await post({ parent: 'no-such-collection' }), 400, 'parent');
    expectError(await api('POST', movePath(a.id), { token: admin, rawBody: '{"parent":' }), 400, 'malformed json');
    expect((await collectionRow(a.id))!.parent_id).toBeNull();
  });

  it('refuses a parent in another organization (400), even one the caller administers', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const second = await createOrg(org.owner);
    const foreign = await createCollection(admin, second, { title: 'Foreign' });
    const a = await createCollection(admin, org.id);
    expectError(await api('POST', movePath(a.id), { token: admin, body: { parent: foreign.id } }), 400, 'parent');
    expect((await collectionRow(a.id))!).toMatchObject({ parent_id: null, org_id: org.id });
  });

  it('refuses members who are not admins (403), hides the collection from guests and outsiders (404), 401 without token', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const a = await createCollection(admin, org.id);
    const b = await createCollection(admin, org.id);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expectError(await api('POST', movePath(a.id), { token: org.members[role].token, body: { parent: b.id } }), 403);
    }
    expectError(await api('POST', movePath(a.id), { token: org.members.guest.token, body: { parent: b.id } }), 404);
    expectError(await api('POST', movePath('no-such-collection'), { token: admin, body: { parent: b.id } }), 404);
    expectError(await api('POST', movePath(a.id), { body: { parent: b.id } }), 401);
    expect((await collectionRow(a.id))!.parent_id).toBeNull();
  });

  it('answers 404 to a member of another organization and moves nothing', async () => {
    const org = await seedOrg();
    const a = await createCollection(org.owner.token, org.id);
    const b = await createCollection(org.owner.token, org.id);
    expectError(await api('POST', movePath(a.id), { token: org.outsider.token, body: { parent: b.id } }), 404);
    expect((await collectionRow(a.id))!.parent_id).toBeNull();
  });
});
