import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Role } from '../../src/lib/roles';
import { RANK } from '../../src/lib/roles';
import { createDb, runBatch } from '../../src/db/client';
import { apiTokens, users } from '../../src/db/schema';
import { createUser as createUserRow, issueToken, newTokenRow, newUserRow, normalizeEmail } from '../../src/services/identity/users';
import { fetchWorker } from './worker';

export const BASE = 'http://api.test';
export const ADMIN_TOKEN = 'test-admin-token';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One request through the Worker's real fetch handler (routing, middleware, validation, errors). */
export async function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { Accept: '*/*', ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  const res = await fetchWorker(`${BASE}${path}`, { method, headers, body });
  // Decoded from the bytes, as `res.text()` would, without the runtime's warning for a body that is not text (an image).
  const text = new TextDecoder().decode(await res.arrayBuffer());
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Asserts the error body shape and status; returns the message. */
export function expectError(res: ApiResponse, status: number, messageIncludes?: string | RegExp): string {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  const message: string = res.body.error.message;
  if (typeof messageIncludes === 'string') expect(message.toLowerCase()).toContain(messageIncludes.toLowerCase());
  else if (messageIncludes) expect(message).toMatch(messageIncludes);
  return message;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export interface TestUser {
  id: string;
  token: string;
  email: string;
  displayName: string;
}

/**
 * A user and a token, made by the same service functions `POST /v1/users` and `POST /v1/users/{id}/tokens`
 * call (an invitation held for a verified email becomes a membership, as there), without the two requests:
 * fixtures are made by the thousand, and what those routes answer is test/identity's to test.
 */
export async function createUser(options: { email?: string; displayName?: string; emailVerified?: boolean } = {}): Promise<TestUser> {
  const email = normalizeEmail(options.email ?? `user-${unique()}@example.test`);
  const displayName = options.displayName ?? `User ${unique()}`;
  const db = createDb(env.DB);
  const { row } = await createUserRow(env, db, { displayName, email, emailVerified: options.emailVerified ?? true });
  const { token } = await issueToken(db, row.id, null);
  return { id: row.id, token, email, displayName };
}

/**
 * `count` users with fresh emails and a token each, in one D1 batch: the rows `createUser` makes (no invitation
 * can be held for an email nobody has seen).
 */
export async function createUsers(count: number): Promise<TestUser[]> {
  const made = await Promise.all(
    Array.from({ length: count }, async () => {
      const user = newUserRow({ displayName: `User ${unique()}`, email: `user-${unique()}@example.test`, emailVerified: true });
      return { user, issued: await newTokenRow(user.id, null) };
    }),
  );
  const db = createDb(env.DB);
  await runBatch(db, made.flatMap(({ user, issued }) => [db.insert(users).values(user), db.insert(apiTokens).values(issued.row)]));
  return made.map(({ user, issued }) => ({ id: user.id, token: issued.token, email: user.email, displayName: user.displayName }));
}

export type RoleName = Role | 'guest';
export const ALL_ROLES: RoleName[] = ['admin', 'create', 'review', 'edit', 'comment', 'read', 'guest'];

export interface TestOrg {
  id: string;
  /** The organization's creator, an admin. */
  owner: TestUser;
  /** One member per role (admin .. read, and a guest). */
  members: Record<RoleName, TestUser>;
  /** A user who belongs to another organization. */
  outsider: TestUser;
}

/** Adds an existing user to an organization with a role, directly in D1 (fast fixture setup). */
export function addMember(orgId: string, userId: string, role: RoleName): Promise<void> {
  return addMembers(orgId, [[userId, role]]);
}

/** Adds existing users to an organization, each with its role, in one D1 batch. */
export async function addMembers(orgId: string, members: [userId: string, role: RoleName][]): Promise<void> {
  const joinedAt = new Date().toISOString();
  const insert = env.DB.prepare('insert into org_members (org_id, user_id, role, joined_at) values (?, ?, ?, ?)');
  await env.DB.batch(members.map(([userId, role]) => insert.bind(orgId, userId, RANK[role], joinedAt)));
}

/** An organization created through the API, with a member of every role and an outsider. */
export async function seedOrg(title = `Org ${unique()}`): Promise<TestOrg> {
  const others = ALL_ROLES.filter((r) => r !== 'admin');
  const [owner, outsider, ...users] = await createUsers(2 + others.length);
  const [org, otherOrg] = await Promise.all([
    api('POST', '/v1/orgs', { token: owner.token, body: { title } }),
    api('POST', '/v1/orgs', { token: outsider.token, body: { title: `Other ${unique()}` } }),
  ]);
  expect(org.status, JSON.stringify(org.body)).toBe(201);
  expect(otherOrg.status).toBe(201);
  const members = { admin: owner } as Record<RoleName, TestUser>;
  others.forEach((role, i) => (members[role] = users[i]));
  await addMembers(org.body.id, others.map((role) => [members[role].id, role]));
  return { id: org.body.id, owner, members, outsider };
}

export const tokenOf = (org: TestOrg, role: RoleName) => org.members[role].token;

/** Asserts the status of a response (showing the body when it differs) and returns the response. */
export function expectStatus<T>(res: ApiResponse<T>, status: number): ApiResponse<T> {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
}

/** Asserts that `body` satisfies `schema` (listing the failing issues and the body when not) and returns the parsed value. */
export function expectSchema<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  expect(result.success, result.success ? '' : `${JSON.stringify(result.error.issues)} in ${JSON.stringify(body)}`).toBe(true);
  return result.data as z.infer<S>;
}

/** Who an authorization table runs as: a member of each role, or someone outside the organization. */
export type Caller = RoleName | 'outsider';
export const CALLERS: Caller[] = [...ALL_ROLES, 'outsider'];

export function callerUser(org: TestOrg, caller: Caller): TestUser {
  return caller === 'outsider' ? org.outsider : org.members[caller];
}

/** One row of an authorization table: what each caller gets, in the order of CALLERS. */
export function byCaller(admin: number, create: number, review: number, edit: number, comment: number, read: number, guest: number, outsider: number): Record<Caller, number> {
  return { admin, create, review, edit, comment, read, guest, outsider };
}
