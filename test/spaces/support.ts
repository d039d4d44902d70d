/**
 * Helpers shared by the Spaces, Space users and cron tests (not a test file: vitest only runs *.test.ts).
 */
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { TeamPermissionSchema, UserPermissionSchema } from '../../src/routes/space-users/permissions';
import { CollectionSchema } from '../../src/schemas/collection';
import { listOf } from '../../src/schemas/common';
import { SpaceSchema, type Space } from '../../src/schemas/space';
import { TeamSchema } from '../../src/schemas/team';
import { api, type TestOrg, expectSchema, expectStatus } from '../helpers/harness';

/** The Space object, strictly: a database column leaking into it fails the parse. */
export const StrictSpaceSchema = SpaceSchema.strict();
export const SpaceListSchema = listOf(StrictSpaceSchema, 'Spaces').strict();
export const UserPermissionListSchema = listOf(UserPermissionSchema.strict(), 'UserContentPermissions').strict();
export const TeamPermissionListSchema = listOf(TeamPermissionSchema.strict(), 'TeamContentPermissions').strict();
export const AggregateListSchema = listOf(UserPermissionSchema.strict(), 'SpaceAccess').strict();

export const orgSpacesPath = (orgId: string) => `/v1/orgs/${orgId}/spaces`;
export const spacePath = (spaceId: string) => `/v1/spaces/${spaceId}`;
export const permissionsPath = (spaceId: string) => `/v1/spaces/${spaceId}/permissions`;
export const userPermissionsPath = (spaceId: string) => `/v1/spaces/${spaceId}/permissions/users`;
export const userPermissionPath = (spaceId: string, userId: string) => `/v1/spaces/${spaceId}/permissions/users/${userId}`;
export const teamPermissionsPath = (spaceId: string) => `/v1/spaces/${spaceId}/permissions/teams`;
export const teamPermissionPath = (spaceId: string, teamId: string) => `/v1/spaces/${spaceId}/permissions/teams/${teamId}`;
export const aggregatePath = (spaceId: string) => `/v1/spaces/${spaceId}/permissions/aggregate`;

/** An id that exists nowhere (20 base62 characters, like the real ones). */
export const UNKNOWN_ID = 'zzzzzzzzzzzzzzzzzzzz';

let counter = 0;
export const uniq = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Asserts that `body` satisfies `schema` (listing the failing issues when not) and returns the parsed value. */
export { expectSchema, expectStatus } from '../helpers/harness';

/** A space created through the API (by the organization's owner unless `token` is given). */
export async function createSpace(org: TestOrg, body: Record<string, unknown> = {}, token = org.owner.token): Promise<Space> {
  const res = await api('POST', orgSpacesPath(org.id), { token, body: { title: `Space ${uniq()}`.slice(0, 50), ...body } });
  expectStatus(res, 201);
  return expectSchema(StrictSpaceSchema, res.body);
}

export async function getSpace(spaceId: string, token: string): Promise<Space> {
  const res = await api('GET', spacePath(spaceId), { token });
  expectStatus(res, 200);
  return expectSchema(StrictSpaceSchema, res.body);
}

/** A collection created through the API by the organization's owner. */
export async function createCollection(org: TestOrg, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/orgs/${org.id}/collections`, { token: org.owner.token, body: { title: `Coll ${uniq()}`.slice(0, 50), ...body } });
  expectStatus(res, 201);
  const created = CollectionSchema.parse(res.body);
  if ('defaultLevel' in body && body.defaultLevel !== created.defaultLevel) {
    const patched = await api('PATCH', `/v1/collections/${created.id}`, { token: org.owner.token, body: { defaultLevel: body.defaultLevel } });
    expectStatus(patched, 200);
    return CollectionSchema.parse(patched.body);
  }
  return created;
}

/** The ids of a collection's spaces in their order (as the owner). */
export async function collectionSpaceIds(org: TestOrg, collectionId: string): Promise<string[]> {
  const res = await api('GET', `/v1/collections/${collectionId}/spaces?limit=1000`, { token: org.owner.token });
  expectStatus(res, 200);
  return res.body.items.map((s: Space) => s.id);
}

/** A team of the organization created through the API by its owner. */
export async function createTeam(org: TestOrg, members: string[] = [], title = `Team ${uniq()}`) {
  const res = await api('PUT', `/v1/orgs/${org.id}/teams`, { token: org.owner.token, body: { title, members } });
  expectStatus(res, 201);
  return TeamSchema.parse(res.body);
}

/** Grants a role on a space through inviteToSpace, as the owner of the space's organization. */
export async function grant(org: TestOrg, spaceId: string, body: { role: string | null; users?: string[]; teams?: string[] }, token = org.owner.token) {
  expectStatus(await api('POST', permissionsPath(spaceId), { token, body }), 204);
}

/** Every item of a list, following `next.page`; checks `count` and page sizes on the way. */
export async function collectPages(path: string, token: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let page: string | undefined;
  let count: number | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api('GET', `${path}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`, { token });
    expectStatus(res, 200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    if (count === undefined) count = res.body.count;
    expect(res.body.count).toBe(count);
    items.push(...res.body.items);
    page = res.body.next?.page;
    if (!page) {
      expect(items.length).toBe(count);
      return items;
    }
    expect(res.body.items.length).toBe(limit);
  }
  throw new Error('too many pages');
}

/** The stored row of a space, or null. */
export async function spaceRow(spaceId: string) {
  return env.DB.prepare('select * from spaces where id = ?').bind(spaceId).first<Record<string, unknown>>();
}

/** Puts a space's deletion `daysAgo` days before `from` (directly in D1). */
export async function setDeletedAt(spaceId: string, daysAgo: number, from = Date.now()) {
  const at = new Date(from - daysAgo * 24 * 60 * 60 * 1000).toISOString();
  await env.DB.prepare('update spaces set deleted_at = ? where id = ?').bind(at, spaceId).run();
  return at;
}

export async function countRows(table: 'spaces' | 'revisions' | 'space_user_grants' | 'space_team_grants', column: string, value: string) {
  const row = await env.DB.prepare(`select count(*) as n from ${table} where ${column} = ?`).bind(value).first<{ n: number }>();
  return row!.n;
}

/** The `permissions` booleans a space shows for each effective role (written out, not computed). */
export const PERMISSIONS_BY_ROLE = {
  admin: { view: true, access: true, admin: true, viewInviteLinks: true, edit: true, triggerGitSync: true, comment: true, merge: true, review: true, installIntegration: true },
  create: { view: true, access: true, admin: false, viewInviteLinks: false, edit: true, triggerGitSync: true, comment: true, merge: true, review: true, installIntegration: false },
  review: { view: true, access: true, admin: false, viewInviteLinks: false, edit: true, triggerGitSync: true, comment: true, merge: true, review: true, installIntegration: false },
  edit: { view: true, access: true, admin: false, viewInviteLinks: false, edit: true, triggerGitSync: true, comment: true, merge: false, review: false, installIntegration: false },
  comment: { view: true, access: true, admin: false, viewInviteLinks: false, edit: false, triggerGitSync: false, comment: true, merge: false, review: false, installIntegration: false },
  read: { view: true, access: true, admin: false, viewInviteLinks: false, edit: false, triggerGitSync: false, comment: false, merge: false, review: false, installIntegration: false },
} as const;
