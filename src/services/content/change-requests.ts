import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { runBatch, selectOfBuiltShape, selectOfShape, type BatchItem, type Db } from '../../db/client';
import { changeRequests, organizations, spaces, users } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { reviewStateQuery, toReviewState, unmetReason, type ReviewState } from '../collaboration/reviews';
import { spaceRoleSql } from '../access/access';
import { checkSpace, type SpaceWithRank } from '../spaces/spaces';

export type ChangeRequestRow = typeof changeRequests.$inferSelect;
export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

/** A change request named by its number in the space rather than by its id. */
export const CHANGE_REQUEST_NUMBER = /^[1-9][0-9]{0,8}$/;

/** `changeRequestId` in paths is the change request's id or its number in the space. */
export function changeRequestMatch(spaceId: string, idOrNumber: string): SQL {
  const byNumber = CHANGE_REQUEST_NUMBER.test(idOrNumber);
  return and(eq(changeRequests.spaceId, spaceId), byNumber ? eq(changeRequests.number, Number(idOrNumber)) : eq(changeRequests.id, idOrNumber))!;
}

/** What the ChangeRequest mapper needs: the row, its creator and the space's head (for `outdated`). */
export function changeRequestSelection() {
  return {
    cr: getTableColumns(changeRequests),
    creator: { id: sql<string>`${users.id}`.as('creator_id'), displayName: users.displayName, email: users.email, photoURL: users.photoURL },
    spaceRevision: sql<string>`${spaces.revisionId}`.as('space_revision'),
    orgId: sql<string>`${spaces.orgId}`.as('space_org'),
  };
}

export type ChangeRequestWithContext = { cr: ChangeRequestRow; creator: { id: string; displayName: string; email: string; photoURL: string | null }; spaceRevision: string; orgId: string };

/** The change request joined with what its API object shows; also usable as a batch statement. */
export function changeRequestQuery(db: Db, where: SQL) {
  return db
    .select(changeRequestSelection())
    .from(changeRequests)
    .innerJoin(users, eq(users.id, changeRequests.createdBy))
    .innerJoin(spaces, eq(spaces.id, changeRequests.spaceId))
    .where(where);
}

/**
 * `changeRequestQuery` of the change request `idOrNumber` of the space, built once per isolate for each of the two
 * forms (db/client `selectOfShape`): every change request read has it.
 */
export function changeRequestOfSpaceQuery(db: Db, spaceId: string, idOrNumber: string) {
  const byNumber = CHANGE_REQUEST_NUMBER.test(idOrNumber);
  const changeRequest = sql.placeholder('changeRequest');
  const match = and(eq(changeRequests.spaceId, sql.placeholder('spaceId')), byNumber ? eq(changeRequests.number, changeRequest) : eq(changeRequests.id, changeRequest))!;
  const values = { spaceId, changeRequest: byNumber ? Number(idOrNumber) : idOrNumber };
  return selectOfShape(`changeRequestOfSpace:${byNumber ? 'number' : 'id'}`, changeRequestQuery(db, match), values);
}

export function requireChangeRequest<T>(row: T | undefined): T {
  if (!row) throw new ApiError(404, 'Change request not found');
  return row;
}

/**
 * The space with the caller's rank and the change request, in one round trip with the statements of
 * `more` (their rows come back as `more`); 404 for either unseen, the space checked first.
 */
export async function loadChangeRequest(db: Db, spaceId: string, idOrNumber: string, userId: string, needed: number, more: BatchItem[] = []) {
  const statement = spaceWithChangeRequestQuery(db, spaceId, idOrNumber, userId);
  // Alone (a read), its row comes as D1's raw array: in a batch, D1 answers it as an object keyed by column name, which
  // drizzle turns back into an array (about 3% of a change request read's Worker CPU, test/bench/profile.ts).
  const [rows, ...moreRows] = (more.length === 0 ? [await statement.all()] : await runBatch(db, [statement, ...more])) as unknown[][];
  const found = rows as SpaceWithChangeRequest[];
  const space = checkSpace(found, RANK.read, true);
  const row = requireChangeRequest(changeRequestOf(found[0]));
  // Reads also answer in the trash (like the list); changes need the space restored first.
  checkSpace([space], needed, needed === RANK.read);
  return { space: { space: space.space, rank: space.rank } as SpaceWithRank, row, more: moreRows };
}

/**
 * The space with the caller's role rank and its change request `idOrNumber` (null columns when the space has none
 * such), in one statement where a change request read ran two: the space's and the change request's. Built once per
 * isolate for each of the two forms (db/client `selectOfBuiltShape`).
 */
function spaceWithChangeRequestQuery(db: Db, spaceId: string, idOrNumber: string, userId: string) {
  const byNumber = CHANGE_REQUEST_NUMBER.test(idOrNumber);
  const values = { spaceId, userId, changeRequest: byNumber ? Number(idOrNumber) : idOrNumber };
  return selectOfBuiltShape(db, `spaceWithChangeRequest:${byNumber ? 'number' : 'id'}`, () => spaceWithChangeRequestSelect(db, byNumber), values);
}

function spaceWithChangeRequestSelect(db: Db, byNumber: boolean) {
  const changeRequest = sql.placeholder('changeRequest');
  // Aliased: D1 answers a batch's rows as objects keyed by column name, where the space's would hide these.
  const crFields = Object.fromEntries(
    Object.entries(getTableColumns(changeRequests)).map(([key, column]) => [key, sql`${column}`.mapWith(column).as(`cr_${column.name}`)]),
  ) as { [K in keyof ChangeRequestRow]: SQL.Aliased<ChangeRequestRow[K]> };
  return db
    .select({
      space: spaces,
      rank: spaceRoleSql(sql.placeholder('userId') as unknown as SQL),
      cr: crFields,
      creator: {
        id: sql<string>`${users.id}`.as('cr_creator_id'),
        displayName: sql<string>`${users.displayName}`.as('cr_creator_display_name'),
        email: sql<string>`${users.email}`.as('cr_creator_email'),
        photoURL: sql<string | null>`${users.photoURL}`.as('cr_creator_photo_url'),
      },
    })
    .from(spaces)
    .leftJoin(
      changeRequests,
      and(eq(changeRequests.spaceId, spaces.id), byNumber ? eq(changeRequests.number, changeRequest) : eq(changeRequests.id, changeRequest)),
    )
    .leftJoin(users, eq(users.id, changeRequests.createdBy))
    .where(eq(spaces.id, sql.placeholder('spaceId')));
}

type SpaceWithChangeRequest = SpaceWithRank & { cr: ChangeRequestRow | { [K in keyof ChangeRequestRow]: null }; creator: ChangeRequestWithContext['creator'] };

/** The change request of a `spaceWithChangeRequestQuery` row as `changeRequestQuery` answers it, if the space has it. */
function changeRequestOf(row: SpaceWithChangeRequest | undefined): ChangeRequestWithContext | undefined {
  // The creator joined as `changeRequestQuery` joins it: a change request without one is not found there either.
  if (!row || row.cr.id === null || row.creator.id === null) return undefined;
  return { cr: row.cr as ChangeRequestRow, creator: row.creator, spaceRevision: row.space.revisionId, orgId: row.space.orgId };
}

/** Base of the three-way merges: the last main revision merged into the change request. */
export const mergeBase = (cr: Pick<ChangeRequestRow, 'revisionMergedAncestor' | 'revisionInitial'>) => cr.revisionMergedAncestor ?? cr.revisionInitial;

/** True exactly when main has moved past the change request's base. */
export function isOutdated(cr: ChangeRequestRow, spaceRevision: string): boolean {
  return cr.status !== 'merged' && spaceRevision !== mergeBase(cr);
}

/** Recounts a space's change request counters from the rows, in the same batch as the change. */
export function refreshChangeRequestCounters(db: Db, spaceId: string) {
  const counted = (status?: string) =>
    sql`(select count(*) from change_requests cr where cr.space_id = ${spaceId}${status ? sql` and cr.status = ${status}` : sql``})`;
  return db
    .update(spaces)
    .set({ changeRequestsCount: counted(), changeRequestsOpen: counted('open'), changeRequestsDraft: counted('draft') })
    .where(eq(spaces.id, spaceId));
}

// ---------------------------------------------------------------------------------------------
// Merge rules

type MergeRule = { rule: string; users?: string[] };
type MergeRules = { type: 'inherit' } | { type: 'none' } | { type: 'rules'; rules: MergeRule[] };

/** The rules that apply to a space (its own, or its organization's when it inherits) and the change request's current reviews, in one round trip. */
export async function mergeRulesContext(db: Db, spaceId: string, changeRequestId: string): Promise<{ rules: MergeRule[]; reviews: ReviewState }> {
  const [rows, reviewRows] = await db.batch(mergeRulesQueries(db, spaceId, changeRequestId));
  return toMergeRulesContext(rows, reviewRows);
}

/** The queries of `mergeRulesContext`, for a caller that reads them in a batch of its own. */
export function mergeRulesQueries(db: Db, spaceId: string, changeRequestId: string) {
  return [
    db
      // Aliased: a batch answers rows as objects, where the two `merge_rules` columns would collide.
      .select({ space: sql<string>`${spaces.mergeRules}`.as('space_rules'), org: sql<string>`${organizations.mergeRules}`.as('org_rules') })
      .from(spaces)
      .innerJoin(organizations, eq(organizations.id, spaces.orgId))
      .where(eq(spaces.id, spaceId)),
    reviewStateQuery(db, changeRequestId),
  ] as const;
}

export function toMergeRulesContext(
  rows: Array<{ space: string; org: string }>,
  reviewRows: Parameters<typeof toReviewState>[0],
): { rules: MergeRule[]; reviews: ReviewState } {
  const reviews = toReviewState(reviewRows);
  const row = rows[0];
  if (!row) return { rules: [], reviews };
  const own = JSON.parse(row.space) as MergeRules;
  const rules = own.type === 'inherit' ? (JSON.parse(row.org) as MergeRules) : own;
  return { rules: rules.type === 'rules' ? rules.rules : [], reviews };
}

/** Refuses a merge that a rule forbids (403 naming the rule and why). `allow_bypass` users skip the rules. */
export function assertMergeRules(rules: MergeRule[], cr: ChangeRequestRow, outdated: boolean, userId: string, reviews: ReviewState): void {
  if (rules.some((r) => r.rule === 'allow_bypass' && r.users?.includes(userId))) return;
  for (const rule of rules) {
    const reason = unmetReason(rule, cr, outdated, userId, reviews);
    if (reason) throw new ApiError(403, `Merge rule "${rule.rule}" is not met: ${reason}`);
  }
}
