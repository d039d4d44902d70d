import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { CollectionSchema } from '../../src/schemas/collection';
import { listOf } from '../../src/schemas/common';
import { SpaceSchema } from '../../src/schemas/space';
import { addMember, api, createUser, type RoleName, type TestUser, expectStatus } from '../helpers/harness';

/** The response schemas, strict: a field that is not in the public schema (a leaked column) fails the parse. */
export const StrictCollection = CollectionSchema.strict();
export const StrictSpace = SpaceSchema.strict();
export const CollectionListSchema = listOf(StrictCollection, 'CollectionsTest').strict();
export const SpaceListSchema = listOf(StrictSpace, 'CollectionSpacesTest').strict();

export type Collection = ReturnType<typeof StrictCollection.parse>;
export type Space = ReturnType<typeof StrictSpace.parse>;
export type Level = Collection['defaultLevel'];

export const collectionPath = (id: string) => `/v1/collections/${id}`;
export const collectionSpacesPath = (id: string) => `/v1/collections/${id}/spaces`;
export const movePath = (id: string) => `/v1/collections/${id}/move`;
export const transferPath = (id: string) => `/v1/collections/${id}/transfer`;
export const orgCollectionsPath = (orgId: string) => `/v1/orgs/${orgId}/collections`;
export const spacePath = (id: string) => `/v1/spaces/${id}`;

let counter = 0;
export const uniq = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export { expectStatus } from '../helpers/harness';

export interface NewCollection {
  title?: string;
  description?: string;
  parent?: string;
  defaultLevel?: Level;
}

/** A collection created through the API (201 expected), parsed with the strict response schema. */
export async function createCollection(token: string, orgId: string, body: NewCollection = {}): Promise<Collection> {
  const res = await api('POST', orgCollectionsPath(orgId), { token, body: { title: `Collection ${uniq()}`.slice(0, 50), ...body } });
  expectStatus(res, 201);
  return StrictCollection.parse(res.body);
}

/** A space created through the spaces API (201 expected), in `parent` when given. */
export async function createSpace(token: string, orgId: string, parent?: string, title = `Space ${uniq()}`.slice(0, 50)): Promise<Space> {
  const res = await api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title, ...(parent ? { parent } : {}) } });
  expectStatus(res, 201);
  return StrictSpace.parse(res.body);
}

export async function getCollection(token: string, id: string): Promise<Collection> {
  const res = expectStatus(await api('GET', collectionPath(id), { token }), 200);
  return StrictCollection.parse(res.body);
}

export async function getSpace(token: string, id: string): Promise<Space> {
  const res = expectStatus(await api('GET', spacePath(id), { token }), 200);
  return StrictSpace.parse(res.body);
}

export async function patchCollection(token: string, id: string, body: Record<string, unknown>): Promise<Collection> {
  const res = expectStatus(await api('PATCH', collectionPath(id), { token, body }), 200);
  return StrictCollection.parse(res.body);
}

export async function moveCollection(token: string, id: string, body: Record<string, unknown>): Promise<Collection> {
  const res = expectStatus(await api('POST', movePath(id), { token, body }), 200);
  return StrictCollection.parse(res.body);
}

export async function moveSpace(token: string, id: string, body: Record<string, unknown>): Promise<Space> {
  const res = expectStatus(await api('POST', `/v1/spaces/${id}/move`, { token, body }), 200);
  return StrictSpace.parse(res.body);
}

/** Ids of the spaces listed in a collection (one page of up to 1000), in the order answered. */
export async function spaceIdsIn(token: string, collectionId: string): Promise<string[]> {
  const res = expectStatus(await api('GET', `${collectionSpacesPath(collectionId)}?limit=1000`, { token }), 200);
  const page = SpaceListSchema.parse(res.body);
  expect(page.next).toBeUndefined();
  expect(page.count).toBe(page.items.length);
  return page.items.map((s) => s.id);
}

/** Ids of the collections of an organization the caller sees (one page of up to 1000), sorted. */
export async function collectionIdsIn(token: string, orgId: string, nested = true): Promise<string[]> {
  const res = expectStatus(await api('GET', `${orgCollectionsPath(orgId)}?limit=1000${nested ? '' : '&nested=false'}`, { token }), 200);
  const page = CollectionListSchema.parse(res.body);
  expect(page.next).toBeUndefined();
  expect(page.count).toBe(page.items.length);
  return page.items.map((c) => c.id).sort();
}

/**
 * Follows `next.page` through a list with a small limit; checks every page's envelope, that each
 * page but the last is full and carries `next`, and that `count` is the same on every page.
 * `between` runs after each page (to insert rows while paging).
 */
export async function collectPages<T extends { id: string }>(
  path: string,
  token: string,
  limit: number,
  parse: (body: unknown) => { items: T[]; count: number; next?: { page: string } },
  between?: (pageIndex: number) => Promise<void>,
): Promise<{ items: T[]; pages: number; counts: number[] }> {
  const items: T[] = [];
  const counts: number[] = [];
  let page: string | undefined;
  let pages = 0;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = expectStatus(await api('GET', `${path}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`, { token }), 200);
    const body = parse(res.body);
    pages++;
    counts.push(body.count);
    items.push(...body.items);
    expect(body.items.length).toBeLessThanOrEqual(limit);
    if (between) await between(pages);
    if (!body.next) break;
    expect(body.items.length).toBe(limit);
    page = body.next.page;
    expect(pages).toBeLessThan(100);
  }
  return { items, pages, counts };
}

/** The stored row of a collection (what the API cannot show: its position, its resolved cap). */
export async function collectionRow(id: string) {
  return env.DB.prepare('select id, org_id, parent_id, position, access_cap, default_level from collections where id = ?').bind(id).first<{
    id: string;
    org_id: string;
    parent_id: string | null;
    position: number;
    access_cap: number;
    default_level: number | null;
  }>();
}

export async function spaceRow(id: string) {
  return env.DB.prepare('select id, org_id, parent_id, position, access_cap, default_level, deleted_at, updated_at from spaces where id = ?')
    .bind(id)
    .first<{
      id: string;
      org_id: string;
      parent_id: string | null;
      position: number;
      access_cap: number;
      default_level: number | null;
      deleted_at: string | null;
      updated_at: string;
    }>();
}

/** A second organization created through the API by `owner` (its admin); returns its id. */
export async function createOrg(owner: TestUser, title = `Org ${uniq()}`): Promise<string> {
  const res = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title } }), 201);
  return res.body.id as string;
}

/** The ids of the organizations a user belongs to. */
export async function orgIdsOf(user: TestUser): Promise<string[]> {
  const res = expectStatus(await api('GET', '/v1/orgs?limit=1000', { token: user.token }), 200);
  return res.body.items.map((o: { id: string }) => o.id);
}

/** Changes a member's organization role directly in D1. */
export async function setOrgRole(orgId: string, userId: string, role: RoleName) {
  const ranks: Record<RoleName, number> = { guest: 0, read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 };
  const res = await env.DB.prepare('update org_members set role = ? where org_id = ? and user_id = ?').bind(ranks[role], orgId, userId).run();
  expect(res.meta.changes).toBe(1);
}

/** A new user who is a member of `orgId` with `role`. */
export async function memberWith(orgId: string, role: RoleName): Promise<TestUser> {
  const user = await createUser();
  await addMember(orgId, user.id, role);
  return user;
}

/**
 * Inserts `n` collections directly under `parentId` in D1 (fast fixture for large trees), with
 * positions after their siblings; returns their ids in insertion order.
 */
export async function insertNested(orgId: string, parentId: string, n: number): Promise<string[]> {
  const now = new Date().toISOString();
  const ids = Array.from({ length: n }, (_, i) => `b${String(i).padStart(3, '0')}${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`);
  await env.DB.batch(
    ids.map((id, i) =>
      env.DB.prepare(
        'insert into collections (id, org_id, parent_id, title, description, default_level, access_cap, position, created_at, updated_at) values (?, ?, ?, ?, null, null, 6, ?, ?, ?)',
      ).bind(id, orgId, parentId, `Bulk ${i}`, 1000 + i, now, now),
    ),
  );
  return ids;
}

export const RANKS = { read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 } as const;

/** A team of the organization with members, written directly in D1 (the teams routes are not under test). */
export async function seedTeam(orgId: string, members: string[]): Promise<string> {
  const id = `team${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare('insert into teams (id, org_id, title, created_at) values (?, ?, ?, ?)').bind(id, orgId, 'Writers', now),
    ...members.map((userId) => env.DB.prepare('insert into team_members (team_id, user_id, is_owner, added_at) values (?, ?, 0, ?)').bind(id, userId, now)),
  ]);
  return id;
}

/** User and team grants on a space, written directly in D1 (the space-users routes are not under test). */
export async function seedGrants(spaceId: string, users: Partial<Record<keyof typeof RANKS, string[]>>, teams: Record<string, keyof typeof RANKS>) {
  const now = new Date().toISOString();
  await env.DB.batch([
    ...Object.entries(users).flatMap(([role, ids]) =>
      ids!.map((userId) =>
        env.DB.prepare('insert into space_user_grants (space_id, user_id, role, created_at) values (?, ?, ?, ?)').bind(spaceId, userId, RANKS[role as keyof typeof RANKS], now),
      ),
    ),
    ...Object.entries(teams).map(([teamId, role]) =>
      env.DB.prepare('insert into space_team_grants (space_id, team_id, role, created_at) values (?, ?, ?, ?)').bind(spaceId, teamId, RANKS[role], now),
    ),
  ]);
}
