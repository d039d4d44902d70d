import { and, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { collectionTeamGrants, collectionUserGrants, collections, orgMembers, spaceTeamGrants, spaceUserGrants, spaces } from '../../db/schema/index';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { refreshOrgAccessCaps } from '../access/access';
import { assertWithinCap } from '../limits/caps';
import { organizationQuery, type OrganizationRow } from '../organizations/organizations';
import { uninstallFromSpaces } from '../integrations/events';
import { removeSpacesFromSites } from '../sites/spaces';

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

/**
 * The target's cap on spaces, on the same rows of `organizationQuery` (after `checkTransferTarget`):
 * `moving` is the number of spaces outside the trash that the transfer brings (those in the trash do
 * not count where they go either). A transfer adds spaces to the target, so it is refused at the cap.
 */
export function assertTransferFits(env: Env, targetRows: { org: OrganizationRow }[], moving: number) {
  assertWithinCap(env, 'spacesPerOrganization', targetRows[0].org.spaceCount, moving);
}

/**
 * Statements moving collections and spaces to another organization, as one transaction: team grants (of spaces and collections)
 * do not cross organizations (teams belong to the source), user grants survive only for active members
 * of the target, and both organizations' access caps are recomputed. What moves is given as subqueries
 * selecting ids, so a tree of any size costs no read beforehand and no bound parameter per item.
 */
export function transferStatements(
  db: Db,
  sourceOrgId: string,
  targetOrgId: string,
  scope: { collectionIds?: SQL; spaceIds: SQL },
) {
  const now = new Date().toISOString();
  const collectionIds = scope.collectionIds && sql`(${scope.collectionIds})`;
  const spaceIds = sql`(${scope.spaceIds})`;
  const targetMembers = db
    .select({ userId: orgMembers.userId })
    .from(orgMembers)
    .where(and(eq(orgMembers.orgId, targetOrgId), eq(orgMembers.disabled, false)));
  return [
    // A site contains only spaces of its own organization, and an installation covers only its organization's.
    ...removeSpacesFromSites(db, sourceOrgId, scope.spaceIds),
    ...uninstallFromSpaces(db, sourceOrgId, spaceIds, now),
    ...(collectionIds ? [db.update(collections).set({ orgId: targetOrgId, updatedAt: now }).where(inArray(collections.id, collectionIds))] : []),
    db.update(spaces).set({ orgId: targetOrgId, updatedAt: now }).where(inArray(spaces.id, spaceIds)),
    db.delete(spaceTeamGrants).where(inArray(spaceTeamGrants.spaceId, spaceIds)),
    ...(collectionIds
      ? [
          db.delete(collectionTeamGrants).where(inArray(collectionTeamGrants.collectionId, collectionIds)),
          db.delete(collectionUserGrants).where(and(inArray(collectionUserGrants.collectionId, collectionIds), notInArray(collectionUserGrants.userId, targetMembers))),
        ]
      : []),
    db.delete(spaceUserGrants).where(and(inArray(spaceUserGrants.spaceId, spaceIds), notInArray(spaceUserGrants.userId, targetMembers))),
    ...refreshOrgAccessCaps(db, sourceOrgId),
    ...refreshOrgAccessCaps(db, targetOrgId),
  ];
}
