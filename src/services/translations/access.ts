import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem, Db } from '../../db/client';
import { spaceTeamGrants, spaceUserGrants, spaces } from '../../db/schema';
import { refreshSpaceAccessCap } from '../access/access';

/**
 * A translation's result space holds the source's content (translated pages, variables, the original file
 * bytes), so it takes the source's access: its `defaultLevel`, user grants and team grants. It is a snapshot,
 * copied when the translation is created and re-synced on each run (when the run starts and in the batch that
 * writes its result), so the result never stays readable by someone the source has been closed to once a run
 * has gone through. Grants given by hand on the result space are replaced at the next run.
 *
 * The level: the source's own, or, when the source inherits, "inherit" while both sit in the same collection
 * (they resolve alike) and else the source's resolved cap, pinned (the result does not widen by living elsewhere).
 */
export function syncResultAccess(db: Db, sourceId: string, resultId: string, now: string, when: SQL = sql`1`): BatchItem[] {
  // Only a source of the result's organization hands its access on (a transferred source fails the run anyway).
  const guard = sql`exists (select 1 from spaces s join spaces r on r.org_id = s.org_id where s.id = ${sourceId} and r.id = ${resultId}) and ${when}`;
  const level = sql`(select case when s.default_level is not null then s.default_level
      when s.parent_id is (select r.parent_id from spaces r where r.id = ${resultId}) then null
      else s.access_cap end from spaces s where s.id = ${sourceId})`;
  return [
    db.update(spaces).set({ defaultLevel: level }).where(and(eq(spaces.id, resultId), guard)),
    refreshSpaceAccessCap(db, resultId),
    db.delete(spaceUserGrants).where(and(eq(spaceUserGrants.spaceId, resultId), guard)),
    db.delete(spaceTeamGrants).where(and(eq(spaceTeamGrants.spaceId, resultId), guard)),
    ...copyGrantStatements(db, sourceId, resultId, now, guard),
  ];
}

/** The source's user and team grants inserted on the result (which has none: a new space, or deleted just before). */
export function copyGrantStatements(db: Db, sourceId: string, resultId: string, now: string, when: SQL = sql`1`): BatchItem[] {
  return [
    db.insert(spaceUserGrants).select(sql`select ${resultId}, g.user_id, g.role, ${now} from space_user_grants g where g.space_id = ${sourceId} and ${when}`),
    db.insert(spaceTeamGrants).select(sql`select ${resultId}, g.team_id, g.role, ${now} from space_team_grants g where g.space_id = ${sourceId} and ${when}`),
  ];
}
