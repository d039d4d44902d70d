import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { collections, spaces } from '../../db/schema/index';
import { badRequest } from '../../lib/errors';
import type { ContentPosition } from '../../schemas/moves';

/**
 * Spaces and collections share one ordering among the siblings of a parent (a collection, or the
 * organization's root when null). Positions are real numbers: inserting between two siblings takes
 * the midpoint, so a move writes one row.
 */
function siblingsSql(orgId: string, parentId: string | null, excludeId: string | null) {
  return sql`(select id, position, 'space' as kind from spaces where org_id = ${orgId} and parent_id is ${parentId}
      and deleted_at is null and id is not ${excludeId}
    union all
    select id, position, 'collection' as kind from collections where org_id = ${orgId} and parent_id is ${parentId}
      and id is not ${excludeId})`;
}

/**
 * Gives the siblings of a parent (the moving item left out) consecutive positions 1..n in their
 * current order. Only needed when repeated inserts into one gap have used up the precision of a
 * real number, so that a midpoint no longer falls strictly between its neighbours. The order is
 * read once and written as constants (one JSON parameter, whatever the number of siblings): an
 * update that ranked rows while rewriting them would see its own half-written positions.
 */
async function renumberSiblings(db: Db, orgId: string, parentId: string | null, excludeId: string | null) {
  const rows = await db.all<{ id: string }>(sql`select id from ${siblingsSql(orgId, parentId, excludeId)} order by position, id`);
  if (rows.length === 0) return;
  const ranks = JSON.stringify(Object.fromEntries(rows.map((r, i) => [r.id, i + 1])));
  const rankOf = (id: typeof spaces.id | typeof collections.id) => sql`json_extract(${ranks}, '$."' || ${id} || '"')`;
  const listed = (id: typeof spaces.id | typeof collections.id) => sql`${id} in (select key from json_each(${ranks}))`;
  await db.batch([
    db.update(spaces).set({ position: rankOf(spaces.id) }).where(and(eq(spaces.orgId, orgId), listed(spaces.id))),
    db.update(collections).set({ position: rankOf(collections.id) }).where(and(eq(collections.orgId, orgId), listed(collections.id))),
  ]);
}

/** The position at which an item lands: at the end of its new parent, or before/after a sibling. */
export async function resolvePosition(
  db: Db,
  orgId: string,
  parentId: string | null,
  itemId: string | null,
  position: ContentPosition | undefined,
): Promise<number> {
  const siblings = siblingsSql(orgId, parentId, itemId);
  const ref = position?.before ?? position?.after;
  if (!ref) {
    const row = await db.get<{ next: number }>(sql`select coalesce(max(position), 0) + 1 as next from ${siblings}`);
    return row.next;
  }
  const refId = ref.type === 'space' ? ref.space : ref.collection;
  if (refId === itemId) throw badRequest('Invalid move position: an item cannot be placed relative to itself');
  const before = position?.before !== undefined;
  // The anchor and its neighbour on the insertion side, in one query.
  const between = async (): Promise<number | null> => {
    const row = await db.get<{ anchor: number; neighbour: number | null } | undefined>(sql`select a.position as anchor,
        (select ${before ? sql`max(s.position)` : sql`min(s.position)`} from ${siblings} s
          where ${before ? sql`s.position < a.position` : sql`s.position > a.position`}) as neighbour
      from ${siblings} a where a.id = ${refId} and a.kind = ${ref.type}`);
    if (!row) {
      throw badRequest(`Invalid move position: ${ref.type} "${refId}" is not among the siblings in the target parent`);
    }
    if (row.neighbour === null) return before ? row.anchor - 1 : row.anchor + 1;
    const [low, high] = before ? [row.neighbour, row.anchor] : [row.anchor, row.neighbour];
    const mid = (low + high) / 2;
    return mid > low && mid < high ? mid : null;
  };
  const found = await between();
  if (found !== null) return found;
  // The gap is exhausted: spread the siblings out and place the item again.
  await renumberSiblings(db, orgId, parentId, itemId);
  return (await between())!;
}

/** SQL for "after the last sibling", usable inside an insert of the same batch. */
export function appendPositionSql(orgId: string, parentId: string | null, excludeId: string | null = null) {
  return sql<number>`(select coalesce(max(position), 0) + 1 from ${siblingsSql(orgId, parentId, excludeId)})`;
}
