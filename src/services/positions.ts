import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { badRequest } from '../lib/errors';
import type { ContentPosition } from '../schemas/common';

/**
 * Spaces and collections share one ordering among the siblings of a parent (a collection, or the
 * organization's root when null). Positions are real numbers: inserting between two siblings takes
 * the midpoint, so a move writes one row.
 */
function siblingsSql(orgId: string, parentId: string | null, excludeId: string | null) {
  return sql`(select id, position from spaces where org_id = ${orgId} and parent_id is ${parentId} and deleted_at is null
      and id is not ${excludeId}
    union all
    select id, position from collections where org_id = ${orgId} and parent_id is ${parentId} and id is not ${excludeId})`;
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
  const anchor = await db.get<{ position: number } | undefined>(sql`select position from ${siblings} where id = ${refId}`);
  if (!anchor) {
    throw badRequest(`Invalid move position: ${ref.type} "${refId}" is not among the siblings in the target parent`);
  }
  if (position?.before) {
    const prev = await db.get<{ p: number | null }>(sql`select max(position) as p from ${siblings} where position < ${anchor.position}`);
    return prev.p === null ? anchor.position - 1 : (prev.p + anchor.position) / 2;
  }
  const next = await db.get<{ p: number | null }>(sql`select min(position) as p from ${siblings} where position > ${anchor.position}`);
  return next.p === null ? anchor.position + 1 : (anchor.position + next.p) / 2;
}

/** SQL for "after the last sibling", usable inside an insert of the same batch. */
export function appendPositionSql(orgId: string, parentId: string | null) {
  return sql<number>`(select coalesce(max(position), 0) + 1 from ${siblingsSql(orgId, parentId, null)})`;
}
