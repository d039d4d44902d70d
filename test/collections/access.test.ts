import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, seedOrg } from '../helpers/harness';
import {
  collectionIdsIn,
  collectionPath,
  collectionSpacesPath,
  createCollection,
  createOrg,
  createSpace,
  getCollection,
  getSpace,
  moveCollection,
  moveSpace,
  patchCollection,
  spaceIdsIn,
  spacePath,
  spaceRow,
} from './support';

/** The ids of the organization's live spaces the caller sees. */
async function orgSpaceIds(token: string, orgId: string): Promise<string[]> {
  const res = await api('GET', `/v1/orgs/${orgId}/spaces?limit=1000`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((s: { id: string }) => s.id).sort();
}

/** top (read) > mid (inherit) > leaf (inherit), with a space in mid and one in leaf. */
async function chain(org: Awaited<ReturnType<typeof seedOrg>>) {
  const admin = org.owner.token;
  const top = await createCollection(admin, org.id, { title: 'Top', defaultLevel: 'read' });
  const mid = await createCollection(admin, org.id, { title: 'Mid', parent: top.id });
  const leaf = await createCollection(admin, org.id, { title: 'Leaf', parent: mid.id });
  const inMid = await createSpace(admin, org.id, mid.id, 'In mid');
  const inLeaf = await createSpace(admin, org.id, leaf.id, 'In leaf');
  return { top, mid, leaf, inMid, inLeaf };
}

describe('defaultLevel inheritance through nested collections', () => {
  it('caps members at the level of the top of the chain, two levels down', async () => {
    const org = await seedOrg();
    const { top, mid, leaf, inMid, inLeaf } = await chain(org);
    expect(mid.defaultLevel).toBe('inherit');
    expect(inLeaf.defaultLevel).toBe('inherit');
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      const token = org.members[role].token;
      const space = await getSpace(token, inLeaf.id);
      expect(space.permissions, role).toEqual({
        view: true,
        access: true,
        admin: false,
        viewInviteLinks: false,
        edit: false,
        triggerGitSync: false,
        comment: false,
        merge: false,
        review: false,
        installIntegration: false,
      });
      expect((await getSpace(token, inMid.id)).permissions.edit, role).toBe(false);
      for (const c of [top, mid, leaf]) {
        expect((await getCollection(token, c.id)).permissions, `${role} on ${c.title}`).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
      }
    }
    // Org admins are never capped.
    expect((await getSpace(org.owner.token, inLeaf.id)).permissions).toMatchObject({ admin: true, edit: true, merge: true });
    expect((await getCollection(org.owner.token, leaf.id)).permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
    // Guests see nothing.
    expectError(await api('GET', spacePath(inLeaf.id), { token: org.members.guest.token }), 404);
    expectError(await api('GET', collectionPath(leaf.id), { token: org.members.guest.token }), 404);
  });

  it('changing the top collection level changes access two levels down without touching the spaces', async () => {
    const org = await seedOrg();
    const { top, leaf, inLeaf } = await chain(org);
    const stored = await spaceRow(inLeaf.id);
    const edit = org.members.edit.token;
    expect((await getSpace(edit, inLeaf.id)).permissions.edit).toBe(false);
    await patchCollection(org.owner.token, top.id, { defaultLevel: 'edit' });
    expect((await getSpace(edit, inLeaf.id)).permissions).toMatchObject({ view: true, comment: true, edit: true, review: false, admin: false });
    // Capped at edit: a reviewer or creator gets edit too, a commenter keeps comment.
    expect((await getSpace(org.members.create.token, inLeaf.id)).permissions).toMatchObject({ edit: true, review: false, merge: false });
    expect((await getSpace(org.members.comment.token, inLeaf.id)).permissions).toMatchObject({ comment: true, edit: false });
    expect((await getCollection(org.members.create.token, leaf.id)).permissions.create).toBe(false);
    // The space row itself did not change (only its resolved cap).
    const after = await spaceRow(inLeaf.id);
    expect(after!.updated_at).toBe(stored!.updated_at);
    expect(after!.default_level).toBeNull();
    expect((await getSpace(org.owner.token, inLeaf.id)).updatedAt).toBe(inLeaf.updatedAt);
    // Opening the top to admin lets every member in at their own role.
    await patchCollection(org.owner.token, top.id, { defaultLevel: 'admin' });
    expect((await getCollection(org.members.create.token, leaf.id)).permissions.create).toBe(true);
    expect((await getSpace(org.members.review.token, inLeaf.id)).permissions).toMatchObject({ merge: true, admin: false });
    // And inherit at the root means no cap either.
    await patchCollection(org.owner.token, top.id, { defaultLevel: 'inherit' });
    expect((await getSpace(org.members.create.token, inLeaf.id)).permissions).toMatchObject({ review: true, admin: false });
  });

  it('a nested collection set to null hides it, what it contains and its spaces from non-admins', async () => {
    const org = await seedOrg();
    const { top, mid, leaf, inMid, inLeaf } = await chain(org);
    const inTop = await createSpace(org.owner.token, org.id, top.id, 'In top');
    await patchCollection(org.owner.token, mid.id, { defaultLevel: null });
    for (const role of ['create', 'review', 'edit', 'comment', 'read', 'guest'] as const) {
      const token = org.members[role].token;
      for (const id of [mid.id, leaf.id]) {
        expectError(await api('GET', collectionPath(id), { token }), 404);
        expectError(await api('GET', collectionSpacesPath(id), { token }), 404);
      }
      for (const id of [inMid.id, inLeaf.id]) expectError(await api('GET', spacePath(id), { token }), 404);
      if (role === 'guest') continue;
      expect(await collectionIdsIn(token, org.id), role).toEqual([top.id].sort());
      expect(await orgSpaceIds(token, org.id), role).toEqual([inTop.id].sort());
      expect(await spaceIdsIn(token, top.id), role).toEqual([inTop.id]);
    }
    // Org admins still see everything.
    const admin = org.owner.token;
    expect(await collectionIdsIn(admin, org.id)).toEqual([top.id, mid.id, leaf.id].sort());
    expect(await spaceIdsIn(admin, mid.id)).toEqual([inMid.id]);
    expect(await spaceIdsIn(admin, leaf.id)).toEqual([inLeaf.id]);
    expect((await getSpace(admin, inLeaf.id)).permissions.admin).toBe(true);
    expect(new Set(await orgSpaceIds(admin, org.id))).toEqual(new Set([inTop.id, inMid.id, inLeaf.id]));
    // Back to inherit: visible again at the top's level.
    await patchCollection(admin, mid.id, { defaultLevel: 'inherit' });
    expect((await getSpace(org.members.edit.token, inLeaf.id)).permissions).toMatchObject({ view: true, edit: false });
    expect(await collectionIdsIn(org.members.read.token, org.id)).toEqual([top.id, mid.id, leaf.id].sort());
  });

  it('an explicit level on a space inside the chain caps it on its own', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const open = await createCollection(admin, org.id, { defaultLevel: 'admin' });
    const space = await createSpace(admin, org.id, open.id);
    expect((await getSpace(org.members.edit.token, space.id)).permissions.edit).toBe(true);
    expect((await api('PATCH', spacePath(space.id), { token: admin, body: { defaultLevel: 'read' } })).status).toBe(200);
    expect((await getSpace(org.members.edit.token, space.id)).permissions).toMatchObject({ view: true, edit: false });
    expect((await api('PATCH', spacePath(space.id), { token: admin, body: { defaultLevel: null } })).status).toBe(200);
    expectError(await api('GET', spacePath(space.id), { token: org.members.edit.token }), 404);
    expect(await spaceIdsIn(org.members.edit.token, open.id)).toEqual([]);
    expect(await spaceIdsIn(admin, open.id)).toEqual([space.id]);
  });

  it('a disabled member sees no collection (404) and cannot list them', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id);
    expect((await getCollection(org.members.edit.token, coll.id)).permissions.view).toBe(true);
    await env.DB.prepare('update org_members set disabled = 1 where org_id = ? and user_id = ?').bind(org.id, org.members.edit.id).run();
    expectError(await api('GET', collectionPath(coll.id), { token: org.members.edit.token }), 404);
    expectError(await api('GET', collectionSpacesPath(coll.id), { token: org.members.edit.token }), 404);
    expectError(await api('GET', `/v1/orgs/${org.id}/collections`, { token: org.members.edit.token }), 404);
  });

  it('a member of several organizations gets their role in the collection own organization only', async () => {
    const org = await seedOrg();
    const coll = await createCollection(org.owner.token, org.id, { title: 'Reader view' });
    const space = await createSpace(org.owner.token, org.id, coll.id);
    // The read member administers an organization of their own.
    await createOrg(org.members.read);
    const seen = await getCollection(org.members.read.token, coll.id);
    expect(seen.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect((await getSpace(org.members.read.token, space.id)).permissions).toMatchObject({ view: true, comment: false, admin: false });
    expectError(await api('PATCH', collectionPath(coll.id), { token: org.members.read.token, body: { title: 'Taken over' } }), 403);
    expectError(await api('DELETE', collectionPath(coll.id), { token: org.members.read.token }), 403);
    expect((await getCollection(org.owner.token, coll.id)).title).toBe('Reader view');
  });
});

describe('moving content changes access accordingly', () => {
  it('a space moved under a restricted collection takes its level, and back at the root loses it', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const edit = org.members.edit.token;
    const space = await createSpace(admin, org.id);
    const hidden = await createCollection(admin, org.id, { defaultLevel: null });
    const readOnly = await createCollection(admin, org.id, { defaultLevel: 'read' });
    expect((await getSpace(edit, space.id)).permissions.edit).toBe(true);
    await moveSpace(admin, space.id, { parent: hidden.id });
    expectError(await api('GET', spacePath(space.id), { token: edit }), 404);
    expect(await spaceIdsIn(admin, hidden.id)).toEqual([space.id]);
    await moveSpace(admin, space.id, { parent: readOnly.id });
    expect((await getSpace(edit, space.id)).permissions).toMatchObject({ view: true, edit: false });
    expect(await spaceIdsIn(edit, readOnly.id)).toEqual([space.id]);
    expect(await spaceIdsIn(admin, hidden.id)).toEqual([]);
    await moveSpace(admin, space.id, { parent: null });
    expect((await getSpace(edit, space.id)).permissions.edit).toBe(true);
  });

  it('a collection moved under a restricted collection takes the level for everything in it', async () => {
    const org = await seedOrg();
    const admin = org.owner.token;
    const edit = org.members.edit.token;
    const moving = await createCollection(admin, org.id, { title: 'Moving' });
    const inner = await createCollection(admin, org.id, { title: 'Inner', parent: moving.id });
    const space = await createSpace(admin, org.id, inner.id);
    const hidden = await createCollection(admin, org.id, { title: 'Hidden', defaultLevel: null });
    const readOnly = await createCollection(admin, org.id, { title: 'Read only', defaultLevel: 'read' });
    expect((await getSpace(edit, space.id)).permissions.edit).toBe(true);

    const moved = await moveCollection(admin, moving.id, { parent: hidden.id });
    expect(moved.parent).toBe(hidden.id);
    for (const id of [moving.id, inner.id]) expectError(await api('GET', collectionPath(id), { token: edit }), 404);
    expectError(await api('GET', spacePath(space.id), { token: edit }), 404);
    expect(await collectionIdsIn(edit, org.id)).toEqual([readOnly.id].sort());

    await moveCollection(admin, moving.id, { parent: readOnly.id });
    expect((await getCollection(edit, inner.id)).permissions.view).toBe(true);
    expect((await getSpace(edit, space.id)).permissions).toMatchObject({ view: true, edit: false });

    // Back at the root: inherit means no cap.
    const root = await moveCollection(admin, moving.id, { parent: null });
    expect(root.parent).toBeUndefined();
    expect((await getSpace(edit, space.id)).permissions.edit).toBe(true);
  });
});
