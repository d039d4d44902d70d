import { and, eq, inArray, notInArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { collections, orgMembers, spaceTeamGrants, spaceUserGrants, spaces } from '../db/schema';
import { ApiError } from '../lib/errors';
import { RANK } from '../lib/roles';
import { refreshOrgAccessCaps } from './access';
import { organizationQuery } from './organizations';

const CHUNK = 90; // stays under D1's 100 bound parameters per statement

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Checks the target organization of a transfer on the rows of `organizationQuery(db, target, caller)`
 * (run in the caller's batch): the caller must hold `needed` there.
 */
export function checkTransferTarget(rows: { rank: number | null }[], sourceOrgId: string, targetOrgId: string, needed: number) {
  if (targetOrgId === sourceOrgId) throw new ApiError(400, 'organization: the content already belongs to this organization');
  const rank = rows[0]?.rank ?? null;
  if (rank === null) throw new ApiError(400, `organization: "${targetOrgId}" does not exist or you are not a member`);
  if (rank < needed) {
    throw new ApiError(403, needed === RANK.admin ? 'You must be an admin of the target organization' : 'You cannot create content in the target organization');
  }
}

/** The target organization of a transfer, checked with its own query. */
export async function requireTransferTarget(db: Db, sourceOrgId: string, targetOrgId: string, userId: string, needed: number) {
  checkTransferTarget(await organizationQuery(db, targetOrgId, userId).all(), sourceOrgId, targetOrgId, needed);
}

/**
 * Statements moving collections and spaces to another organization, as one transaction: team grants
 * do not cross organizations (teams belong to the source), user grants survive only for members of
 * the target, and both organizations' access caps are recomputed.
 */
export function transferStatements(db: Db, sourceOrgId: string, targetOrgId: string, collectionIds: string[], spaceIds: string[]) {
  const now = new Date().toISOString();
  const targetMembers = db
    .select({ userId: orgMembers.userId })
    .from(orgMembers)
    .where(and(eq(orgMembers.orgId, targetOrgId), eq(orgMembers.disabled, false)));
  return [
    ...chunks(collectionIds).map((ids) => db.update(collections).set({ orgId: targetOrgId, updatedAt: now }).where(inArray(collections.id, ids))),
    ...chunks(spaceIds).flatMap((ids) => [
      db.update(spaces).set({ orgId: targetOrgId, updatedAt: now }).where(inArray(spaces.id, ids)),
      db.delete(spaceTeamGrants).where(inArray(spaceTeamGrants.spaceId, ids)),
      db.delete(spaceUserGrants).where(and(inArray(spaceUserGrants.spaceId, ids), notInArray(spaceUserGrants.userId, targetMembers))),
    ]),
    ...refreshOrgAccessCaps(db, sourceOrgId),
    ...refreshOrgAccessCaps(db, targetOrgId),
  ];
}
