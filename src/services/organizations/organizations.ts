import { and, eq, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import { orgMembers, organizations } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { orgRoleSql } from '../access/access';
import { authorizeOrg } from '../access/permissions';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The organization with the caller's role rank (null when not a member), in one query. */
export async function loadOrganization(db: Db, orgId: string, userId: string) {
  const row = await db
    .select({ org: organizations, rank: orgRoleSql(organizations.id, userId) })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .get();
  return row ?? null;
}

/**
 * The caller's organization role rank (null: not a member), with `also` the organization's columns a request
 * needs beside it, as a statement for a `db.batch`.
 */
export function orgRankQuery<Also extends Record<string, SQLiteColumn>>(db: Db, orgId: string, userId: string, also?: Also) {
  return db
    .select({ rank: orgRoleSql(organizations.id, userId), ...(also as Also) })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
}

/**
 * The organization with the caller's role rank as a statement to put in a `db.batch` with the
 * request's other reads, so that membership and the resource cost one round trip together.
 * Check its rows with `checkOrganizationRole` before using anything else from the batch.
 */
export function organizationQuery(db: Db, orgId: string, userId: string) {
  return db
    .select({ org: organizations, rank: orgRoleSql(organizations.id, userId) })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
}

/** The check of `requireOrgRole` on the rows of `organizationQuery`: non-members 404, members without the role 403. */
export function checkOrganizationRole(rows: { org: OrganizationRow; rank: number | null }[], needed: number) {
  const row = rows[0];
  authorizeOrg(row?.rank, needed);
  return { org: row.org, rank: row.rank! };
}

/** Loads the organization and checks the caller's organization role; non-members get 404. */
export async function requireOrgRole(db: Db, orgId: string, userId: string, needed: number) {
  return checkOrganizationRole(await organizationQuery(db, orgId, userId).all(), needed);
}

/** True when `error` (or its cause, as drizzle wraps driver errors) is SQLite's unique violation on `column`. */
export function isUniqueViolation(error: unknown, column: string): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && message.includes('UNIQUE constraint failed') && message.includes(column)) return true;
  }
  return false;
}

const DOMAIN_PATTERN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

export function isEmailDomain(value: string): boolean {
  return DOMAIN_PATTERN.test(value);
}
