import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { addMember, api, createUser, expectError, seedOrg } from '../helpers/harness';
import {
  StrictCollection,
  collectionIdsIn,
  collectionRow,
  createCollection,
  createOrg,
  createSpace,
  expectStatus,
  getCollection,
  getSpace,
  insertNested,
  seedGrants,
  seedTeam,
  orgIdsOf,
  setOrgRole,
  spaceIdsIn,
  spacePath,
  spaceRow,
  transferPath,
} from './support';

async function userGrantIds(spaceId: string): Promise<string[]> {
  const rows = await env.DB.prepare('select user_id from space_user_grants where space_id = ? order by user_id').bind(spaceId).all<{ user_id: string }>();
  return rows.results.map((r) => r.user_id);
}

async function teamGrantCount(spaceId: string): Promise<number> {
  const row = await env.DB.prepare('select count(*) as n from space_team_grants where space_id = ?').bind(spaceId).first<{ n: number }>();
  return row!.n;
}

describe('transferCollection: POST /v1/collections/{collectionId}/transfer', () => {
  it('moves the collection, its nested collections and their spaces to the target organization', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createOrg(org.owner, 'Target org');
    const existing = await createCollection(admin, target, { title: 'Already there' });
    const top = await createCollection(admin, org.id, { title: 'Moving', description: 'with content', defaultLevel: 'comment' });
    const nested = await createCollection(admin, org.id, { title: 'Nested', parent: top.id });
    const deep = await createCollection(admin, org.id, { title: 'Deep', parent: nested.id, defaultLevel: null });
    const s1 = await createSpace(admin, org.id, top.id, 'S1');
    const s2 = await createSpace(admin, org.id, nested.id, 'S2');
    const s3 = await createSpace(admin, org.id, deep.id, 'S3');
    const stays = await createCollection(admin, org.id, { title: 'Stays' });
    const staysSpace = await createSpace(admin, org.id, stays.id);

    const res = expectStatus(await api('POST', transferPath(top.id), { token: admin, body: { organization: target } }), 200);
    const moved = StrictCollection.parse(res.body);
    expect(moved).toMatchObject({ id: top.id, organization: target, title: 'Moving', description: 'with content', defaultLevel: 'comment', permissions: { admin: true } });
    expect(moved.parent).toBeUndefined();
    expect(moved.urls.app).toContain(target);

    for (const c of [nested, deep]) expect((await getCollection(admin, c.id)).organization).toBe(target);
    expect((await getCollection(admin, nested.id)).parent).toBe(top.id);
    expect((await getCollection(admin, deep.id)).parent).toBe(nested.id);
    for (const s of [s1, s2, s3]) {
      const space = await getSpace(admin, s.id);
      expect(space.organization, s.title).toBe(target);
      expect(space.parent, s.title).toBe(s.id === s1.id ? top.id : s.id === s2.id ? nested.id : deep.id);
    }
    expect(await spaceIdsIn(admin, top.id)).toEqual([s1.id]);
    // The source keeps the rest; the target lists what arrived.
    expect(await collectionIdsIn(admin, org.id)).toEqual([stays.id].sort());
    expect(await collectionIdsIn(admin, target)).toEqual([existing.id, top.id, nested.id, deep.id].sort());
    expect(await collectionIdsIn(admin, target, false)).toEqual([existing.id, top.id].sort());
    const sourceSpaces = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces?limit=1000`, { token: admin }), 200);
    expect(sourceSpaces.body.items.map((s: { id: string }) => s.id)).toEqual([staysSpace.id]);
    // It lands after what the target root already had.
    expect((await collectionRow(top.id))!.position).toBeGreaterThan((await collectionRow(existing.id))!.position);
  });

  it('moves a nested collection out of its parent to the target root; the parent stays', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createOrg(org.owner);
    const parent = await createCollection(admin, org.id);
    const child = await createCollection(admin, org.id, { parent: parent.id });
    const moved = StrictCollection.parse(expectStatus(await api('POST', transferPath(child.id), { token: admin, body: { organization: target } }), 200).body);
    expect(moved.parent).toBeUndefined();
    expect(moved.organization).toBe(target);
    expect((await getCollection(admin, parent.id)).organization).toBe(org.id);
    expect(await collectionIdsIn(admin, org.id)).toEqual([parent.id].sort());
  });

  it('drops team grants on moved spaces and keeps user grants only for members of the target', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createOrg(org.owner);
    const inBoth = org.members.read; // also made a member of the target below
    const sourceOnly = org.members.comment;
    const guestOfTarget = await createUser();
    await addMember(target, inBoth.id, 'read');
    await addMember(target, guestOfTarget.id, 'guest');
    // A guest of the source (as a space invitation makes them) who is a member of the target.
    await addMember(org.id, guestOfTarget.id, 'guest');
    const teamId = await seedTeam(org.id, [org.members.edit.id]);
    const coll = await createCollection(admin, org.id, { defaultLevel: null });
    const nested = await createCollection(admin, org.id, { parent: coll.id });
    const s1 = await createSpace(admin, org.id, coll.id);
    const s2 = await createSpace(admin, org.id, nested.id);
    const outside = await createSpace(admin, org.id);
    for (const s of [s1, s2, outside]) await seedGrants(s.id, { edit: [inBoth.id, sourceOnly.id, guestOfTarget.id] }, { [teamId]: 'review' });
    // Before: the team member reviews through the team grant.
    expect((await getSpace(org.members.edit.token, s2.id)).permissions).toMatchObject({ review: true, admin: false });
    expectStatus(await api('POST', transferPath(coll.id), { token: admin, body: { organization: target } }), 200);
    for (const s of [s1, s2]) {
      expect(await teamGrantCount(s.id)).toBe(0);
      expect(await userGrantIds(s.id)).toEqual([inBoth.id, guestOfTarget.id].sort());
    }
    // The space left behind keeps all its grants.
    expect(await teamGrantCount(outside.id)).toBe(1);
    expect(await userGrantIds(outside.id)).toEqual([inBoth.id, sourceOnly.id, guestOfTarget.id].sort());
    // What that means for access (the moved collection is hidden by its null level in the target too).
    expectError(await api('GET', spacePath(s2.id), { token: org.members.edit.token }), 404);
    expectError(await api('GET', spacePath(s2.id), { token: sourceOnly.token }), 404);
    expect((await getSpace(inBoth.token, s2.id)).permissions).toMatchObject({ edit: true, review: false });
    expect((await getSpace(guestOfTarget.token, s1.id)).permissions).toMatchObject({ edit: true, admin: false });
  });

  it('recomputes access in the target: the chain resolves under the target root', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createOrg(org.owner);
    const editor = await createUser();
    await addMember(target, editor.id, 'edit');
    const top = await createCollection(admin, org.id, { defaultLevel: 'read' });
    const nested = await createCollection(admin, org.id, { parent: top.id });
    const space = await createSpace(admin, org.id, nested.id);
    expectStatus(await api('POST', transferPath(top.id), { token: admin, body: { organization: target } }), 200);
    expect((await getSpace(editor.token, space.id)).permissions).toMatchObject({ view: true, edit: false });
    expect((await collectionRow(nested.id))!.access_cap).toBe(1);
    expect((await spaceRow(space.id))!.access_cap).toBe(1);
    // Members of the source lose it.
    expectError(await api('GET', spacePath(space.id), { token: org.members.edit.token }), 404);
    expectError(await api('GET', `/v1/collections/${nested.id}`, { token: org.members.edit.token }), 404);
  });

  it('needs the caller to be an admin of the target: not a member 400, create role 403, admin 200', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const outsiderOrgs = await orgIdsOf(org.outsider);
    expect(outsiderOrgs).toHaveLength(1);
    const outsiderOrg = outsiderOrgs[0];
    const coll = await createCollection(admin, org.id);
    const space = await createSpace(admin, org.id, coll.id);
    const post = () => api('POST', transferPath(coll.id), { token: admin, body: { organization: outsiderOrg } });
    expectError(await post(), 400, 'organization');
    await addMember(outsiderOrg, org.owner.id, 'create');
    expectError(await post(), 403, 'admin');
    expect((await collectionRow(coll.id))!.org_id).toBe(org.id);
    expect((await spaceRow(space.id))!.org_id).toBe(org.id);
    await setOrgRole(outsiderOrg, org.owner.id, 'admin');
    const moved = StrictCollection.parse(expectStatus(await post(), 200).body);
    expect(moved.organization).toBe(outsiderOrg);
    // The outsider, admin of the target, now administers it.
    expect((await getCollection(org.outsider.token, coll.id)).permissions.admin).toBe(true);
    expect((await getSpace(org.outsider.token, space.id)).organization).toBe(outsiderOrg);
  });

  it('validates the target: missing, empty, unknown or the same organization are 400', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const coll = await createCollection(admin, org.id);
    const post = (body: unknown) => api('POST', transferPath(coll.id), { token: admin, body });
    expectError(await post({}), 400, 'organization');
    expectError(await post({ organization: '' }), 400, 'organization');
    expectError(await post({ organization: 42 }), 400, 'organization');
    expectError(await post({ organization: 'no-such-org' }), 400, 'organization');
    expectError(await post({ organization: org.id }), 400, 'organization');
    expectError(await api('POST', transferPath(coll.id), { token: admin, rawBody: '{"organization"' }), 400, 'malformed json');
    expect((await collectionRow(coll.id))!.org_id).toBe(org.id);
  });

  it('refuses members who are not admins of the collection (403) even when they administer the target', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      const own = await createOrg(org.members[role]);
      expectError(await api('POST', transferPath(coll.id), { token: org.members[role].token, body: { organization: own } }), 403);
    }
    const guestOrg = await createOrg(org.members.guest);
    expectError(await api('POST', transferPath(coll.id), { token: org.members.guest.token, body: { organization: guestOrg } }), 404);
    expectError(await api('POST', transferPath('no-such-collection'), { token: org.owner.token, body: { organization: guestOrg } }), 404);
    expectError(await api('POST', transferPath(coll.id), { body: { organization: guestOrg } }), 401);
    expect((await collectionRow(coll.id))!.org_id).toBe(org.id);
  });

  it('answers 404 to a member of another organization who tries to take it into theirs', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    const [outsiderOrg] = await orgIdsOf(org.outsider);
    expectError(await api('POST', transferPath(coll.id), { token: org.outsider.token, body: { organization: outsiderOrg } }), 404);
    expect((await collectionRow(coll.id))!.org_id).toBe(org.id);
  });

  it('transfers a tree of more than a hundred nested collections (statements chunked under D1 limits)', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const target = await createOrg(org.owner);
    const top = await createCollection(admin, org.id);
    const nested = await insertNested(org.id, top.id, 130);
    const deepSpace = await createSpace(admin, org.id, nested[129]);
    const res = await api('POST', transferPath(top.id), { token: admin, body: { organization: target } });
    expectStatus(res, 200);
    expect((await collectionIdsIn(admin, target)).length).toBe(131);
    expect(await collectionIdsIn(admin, org.id)).toEqual([]);
    expect((await getSpace(admin, deepSpace.id)).organization).toBe(target);
  });
});
