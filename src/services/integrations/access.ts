import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { integrations } from '../../db/schema';
import type { Actor } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { orgRoleSql } from '../access/access';

export type IntegrationRow = typeof integrations.$inferSelect;

/** The caller's user id for role queries: an integration's or installation's bot user, a user, or none. */
export function actorUserId(actor: Actor): string | null {
  return actor.kind === 'user' || actor.kind === 'integration' || actor.kind === 'installation' ? actor.userId : null;
}

/**
 * The published (not unpublished) integration of this name with the caller's role in its owner
 * organization, for the caller's batch.
 */
export function integrationByNameQuery(db: Db, name: string, actor: Actor) {
  const userId = actorUserId(actor);
  return db
    .select({ integration: integrations, ownerRank: userId ? orgRoleSql(integrations.ownerOrgId, userId) : sql<number | null>`null` })
    .from(integrations)
    .where(and(eq(integrations.name, name), isNull(integrations.deletedAt)));
}

export interface IntegrationAccess {
  /** The caller may see it: public or unlisted, or a member of its owner, or its own tokens. */
  view: boolean;
  /** The caller may publish, unpublish and manage it: an admin of its owner organization, or its integration token. */
  admin: boolean;
  /** The caller is the integration itself (its integration token) or one of its installations. */
  self: boolean;
}

export function integrationAccess(actor: Actor, integration: IntegrationRow, ownerRank: number | null): IntegrationAccess {
  const self =
    (actor.kind === 'integration' && actor.integrationId === integration.id) ||
    (actor.kind === 'installation' && actor.grant.integrationId === integration.id);
  // A bot user's organization rank comes from installations, not membership: it administers nothing.
  const member = actor.kind === 'user' && ownerRank !== null;
  const admin = (actor.kind === 'user' && ownerRank === RANK.admin) || (self && actor.kind === 'integration');
  const view = integration.visibility !== 'private' || member || admin || self;
  return { view, admin, self };
}

/** 404 when the integration does not exist or the caller may not see it; the row and access otherwise. */
export function requireIntegration(actor: Actor, row: { integration: IntegrationRow; ownerRank: number | null } | undefined) {
  if (!row) throw new ApiError(404, 'No matching integration');
  const access = integrationAccess(actor, row.integration, row.ownerRank);
  if (!access.view) throw new ApiError(404, 'No matching integration');
  return { integration: row.integration, access };
}

/** 403 unless the caller administers the integration (it can already see it). */
export function requireIntegrationAdmin(access: IntegrationAccess): void {
  if (!access.admin) throw new ApiError(403, 'Only the admins of the organization that publishes this integration may do this');
}

/**
 * The users row of a bot user (an integration's, or one installation's): never a member, with an address
 * under the reserved `.invalid` domain, unique by its id, so no person can ever hold it.
 */
export function botUserValues(id: string, displayName: string, now: string) {
  return { id, displayName, email: `${id}@integrations.invalid`, emailVerified: true, createdAt: now };
}
