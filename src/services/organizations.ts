import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { orgMembers, organizations } from '../db/schema';
import { ApiError } from '../lib/errors';
import { RANK } from '../lib/roles';
import { orgRoleSql } from './access';

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

/** Loads the organization and checks the caller's organization role; non-members get 404. */
export async function requireOrgRole(db: Db, orgId: string, userId: string, needed: number) {
  const row = await loadOrganization(db, orgId, userId);
  if (!row || row.rank === null) throw new ApiError(404, 'Organization not found');
  if (row.rank < needed) throw new ApiError(403, 'You do not have permission to do this in this organization');
  return { org: row.org, rank: row.rank };
}

/** Statement counting the organization's admins other than `userId` (guards the last admin). */
export async function otherAdminCount(db: Db, orgId: string, userId: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`count(*)` })
    .from(orgMembers)
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.role, RANK.admin), sql`${orgMembers.userId} <> ${userId}`))
    .get();
  return row?.n ?? 0;
}

const DOMAIN_PATTERN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

export function isEmailDomain(value: string): boolean {
  return DOMAIN_PATTERN.test(value);
}
