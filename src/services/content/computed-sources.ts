import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { spaces } from '../../db/schema/index';
import type { Actor } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { orgRoleSql } from '../access/access';
import type { ContentChange } from './batch';

/**
 * Who may point a page at an OpenAPI spec. A computed page shows, to every reader of its space, what
 * its spec's latest version outlines (or why there is none): so setting or changing a page's
 * `computed` source takes what reading the organization's specs takes (services/openapi/records):
 * membership of the organization (read and up), or for an installation token the `openapi:read`
 * scope. Editing a space is not enough: a guest of the organization with an edit grant on one space
 * would read the organization's private specs through a page of theirs.
 *
 * The caller's organization role is read in the batch that checks the space (no round trip of its
 * own), and only for batches that set a source.
 */

/** The first change of a batch that sets or changes a page's computed source (`computed: null` only removes one), if any. */
export function computedSourceChange(changes: readonly ContentChange[]): number | undefined {
  const index = changes.findIndex((change) => (change.operation === 'insert_page' || change.operation === 'update_page') && !!change.computed);
  return index < 0 ? undefined : index;
}

/** The caller's organization role rank on the space's organization (`rank`, null when not a member), for the route's read batch. */
export function orgRankOfSpaceQuery(db: Db, spaceId: string, userId: string) {
  return db.select({ rank: orgRoleSql(spaces.orgId, userId) }).from(spaces).where(eq(spaces.id, spaceId));
}

/** Whether this caller, of this organization rank, may read the organization's OpenAPI specs. */
export function maySeeSpecs(actor: Actor, orgRank: number | null | undefined): boolean {
  if (orgRank === null || orgRank === undefined || orgRank < RANK.read) return false;
  return actor.kind !== 'installation' || actor.grant.scopes.includes('openapi:read');
}

/**
 * Refuses (403) a batch that sets a computed source for a caller who may not read the organization's
 * specs. `rows` are those of `orgRankOfSpaceQuery`; `what` names where the change comes from
 * (`changes` for a content batch, `template "api-reference"` for a template).
 */
export function authorizeComputedSources(actor: Actor, rows: unknown[] | undefined, changes: readonly ContentChange[], what = 'changes') {
  const index = computedSourceChange(changes);
  if (index === undefined) return;
  const rank = (rows?.[0] as { rank: number | null } | undefined)?.rank;
  if (maySeeSpecs(actor, rank)) return;
  const change = changes[index];
  const named = what === 'changes' ? `changes[${index}] (${change.operation})` : what;
  const needs =
    actor.kind === 'installation'
      ? "an installation token with the integration scope \"openapi:read\""
      : 'membership of the organization (the read role or higher; guests have none)';
  throw new ApiError(403, `${named}: making a page computed from an OpenAPI spec needs read access to the organization's OpenAPI specs: ${needs}`);
}
