import { describe, expect, it } from 'vitest';
import { ALL_ROLES, api, expectError, seedOrg, type RoleName, type TestOrg, type TestUser, CALLERS, callerUser, type Caller } from '../helpers/harness';
import {
  StrictCollection,
  collectionPath,
  collectionRow,
  collectionSpacesPath,
  createCollection,
  createOrg,
  createSpace,
  movePath,
  orgCollectionsPath,
  transferPath,
} from './support';

/**
 * Who may call what on collections, written out. From the route code, services/access/access.ts and
 * DESIGN.md, for a collection at the root with defaultLevel inherit (no cap):
 * - the caller's role on a collection: org admins admin; other members min(org role, cap);
 *   guests and non-members 0. Below read the collection does not exist for them (404).
 * - get, list its spaces: read or higher.
 * - update, move, transfer: admin on the collection (members who see it: 403).
 * - delete: admin; who cannot see it gets 204 as for an absent collection, and nothing is deleted.
 * - list the organization's collections: any member (a guest gets an empty list); non-members 404.
 * - create at the root: organization role create or higher (a guest is a member: 403); non-members 404.
 * - create in a parent collection: create on the parent; a parent the caller cannot see (a guest)
 *   is a 400 on `parent`; non-members 404 as for the organization.
 */
type Operation = 'get' | 'listSpaces' | 'update' | 'move' | 'transfer' | 'delete' | 'listInOrg' | 'create' | 'createInParent';


const EXPECTED: Record<Operation, Record<Caller, number>> = {
  get: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 404, outsider: 404 },
  listSpaces: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 404, outsider: 404 },
  update: { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  move: { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  transfer: { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 404, outsider: 404 },
  delete: { admin: 204, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 204, outsider: 204 },
  listInOrg: { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 200, outsider: 404 },
  create: { admin: 201, create: 201, review: 403, edit: 403, comment: 403, read: 403, guest: 403, outsider: 404 },
  createInParent: { admin: 201, create: 201, review: 403, edit: 403, comment: 403, read: 403, guest: 400, outsider: 404 },
};

/** The permissions booleans GET answers to each caller who may see the collection. */
const PERMISSIONS: Partial<Record<Caller, { view: boolean; admin: boolean; viewInviteLinks: boolean; create: boolean }>> = {
  admin: { view: true, admin: true, viewInviteLinks: true, create: true },
  create: { view: true, admin: false, viewInviteLinks: false, create: true },
  review: { view: true, admin: false, viewInviteLinks: false, create: false },
  edit: { view: true, admin: false, viewInviteLinks: false, create: false },
  comment: { view: true, admin: false, viewInviteLinks: false, create: false },
  read: { view: true, admin: false, viewInviteLinks: false, create: false },
};

const OPERATIONS = Object.keys(EXPECTED) as Operation[];

interface Ctx {
  org: TestOrg;
  /** The collection the single-collection operations act on (delete last). */
  target: string;
  /** A separate collection for the transfer, so a refused one leaves the target in place. */
  transferred: string;
  /** Another root collection: the parent of moves and nested creations. */
  parent: string;
  /** An organization the org owner administers: the transfer target. */
  destination: string;
}

function call(op: Operation, user: TestUser, caller: Caller, ctx: Ctx) {
  const token = user.token;
  switch (op) {
    case 'get':
      return api('GET', collectionPath(ctx.target), { token });
    case 'listSpaces':
      return api('GET', collectionSpacesPath(ctx.target), { token });
    case 'update':
      return api('PATCH', collectionPath(ctx.target), { token, body: { title: `Renamed by ${caller}` } });
    case 'move':
      return api('POST', movePath(ctx.target), { token, body: { parent: ctx.parent } });
    case 'transfer':
      return api('POST', transferPath(ctx.transferred), { token, body: { organization: ctx.destination } });
    case 'delete':
      return api('DELETE', collectionPath(ctx.target), { token });
    case 'listInOrg':
      return api('GET', orgCollectionsPath(ctx.org.id), { token });
    case 'create':
      return api('POST', orgCollectionsPath(ctx.org.id), { token, body: { title: `Created by ${caller}` } });
    case 'createInParent':
      return api('POST', orgCollectionsPath(ctx.org.id), { token, body: { title: `Nested by ${caller}`, parent: ctx.parent } });
  }
}

// The order of the calls: delete comes last so it cannot change the outcome of the others.
const ORDER: Operation[] = ['get', 'listSpaces', 'listInOrg', 'create', 'createInParent', 'update', 'move', 'transfer', 'delete'];

describe('collections authorization table', () => {
  it('answers each organization role and the outsider as written in the table, changing nothing when refused', async () => {
    expect(new Set(ORDER)).toEqual(new Set(OPERATIONS));
    const org = await seedOrg();
    const admin = org.owner.token;
    const destination = await createOrg(org.owner, 'Destination');
    const failures: string[] = [];
    for (const caller of CALLERS) {
      const user = callerUser(org, caller);
      const target = await createCollection(admin, org.id, { title: `Target for ${caller}` });
      await createSpace(admin, org.id, target.id, `Space for ${caller}`);
      const transferred = await createCollection(admin, org.id, { title: `Transfer for ${caller}` });
      const parent = await createCollection(admin, org.id, { title: `Parent for ${caller}` });
      const ctx: Ctx = { org, target: target.id, transferred: transferred.id, parent: parent.id, destination };
      for (const op of ORDER) {
        const res = await call(op, user, caller, ctx);
        const expected = EXPECTED[op][caller];
        if (res.status !== expected) {
          failures.push(`${op} as ${caller}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        if (expected >= 400) expectError(res, expected);
        if (op === 'get' && expected === 200) {
          const seen = StrictCollection.parse(res.body);
          expect(seen.permissions, caller).toEqual(PERMISSIONS[caller]);
        }
        if (op === 'listSpaces' && expected === 200) expect(res.body.count, caller).toBe(1);
        if (op === 'listInOrg' && expected === 200) {
          const ids = res.body.items.map((c: { id: string }) => c.id);
          if (caller === 'guest') expect(res.body, caller).toEqual({ items: [], count: 0 });
          else expect(ids, caller).toContain(target.id);
        }
      }
      // What the calls left behind: only the admin's calls changed anything.
      const targetRow = await collectionRow(target.id);
      const transferredRow = await collectionRow(transferred.id);
      const left = {
        target: targetRow && { org: targetRow.org_id, parent: targetRow.parent_id, title: (await api('GET', collectionPath(target.id), { token: admin })).body.title },
        transferredTo: transferredRow?.org_id,
      };
      const expectedLeft =
        caller === 'admin'
          ? { target: null, transferredTo: destination }
          : { target: { org: org.id, parent: null, title: `Target for ${caller}` }, transferredTo: org.id };
      if (JSON.stringify(left) !== JSON.stringify(expectedLeft)) failures.push(`after the calls as ${caller}: expected ${JSON.stringify(expectedLeft)}, got ${JSON.stringify(left)}`);
    }
    expect(failures).toEqual([]);
    // Only the admin's and the creator's creations went through.
    const list = await api('GET', `${orgCollectionsPath(org.id)}?limit=1000`, { token: admin });
    const created = list.body.items
      .map((c: { title: string }) => c.title)
      .filter((t: string) => t.startsWith('Created by') || t.startsWith('Nested by'))
      .sort();
    expect(created).toEqual(['Created by admin', 'Created by create', 'Nested by admin', 'Nested by create']);
  });
});
