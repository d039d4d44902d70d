import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { integrationInstallations, integrations, integrationSiteInstallations, integrationSpaceInstallations, integrationTokens } from '../../db/schema';
import type { Actor } from '../../env';
import { randomBase62, sha256Hex } from '../../lib/ids';
import { grantedScopes, tokensWork } from './scopes';

/** Integration and installation tokens start with this, so the auth middleware knows which table to read. */
export const INTEGRATION_TOKEN_PREFIX = 'dpi_';
/** GitBook's temporary installation tokens live an hour. */
export const INTEGRATION_TOKEN_TTL_MS = 60 * 60 * 1000;

export const isIntegrationToken = (token: string) => token.startsWith(INTEGRATION_TOKEN_PREFIX);

/** A new token for the integration itself (`installationId` null) or one installation; the insert goes in the caller's batch. */
export async function newIntegrationToken(db: Db, integrationId: string, installationId: string | null, now = Date.now()) {
  const token = `${INTEGRATION_TOKEN_PREFIX}${randomBase62(40)}`;
  const expiresAt = new Date(now + INTEGRATION_TOKEN_TTL_MS).toISOString();
  const insert = db.insert(integrationTokens).values({
    hash: await sha256Hex(token),
    integrationId,
    installationId,
    expiresAt,
    createdAt: new Date(now).toISOString(),
  });
  return { token, expiresAt, insert };
}

/**
 * The actor an integration or installation token stands for, in one round trip: the token with its
 * integration and installation, and the spaces and sites the installation was extended to. Null when
 * the token is unknown, expired, or its integration unpublished or installation removed or paused. An
 * installation token carries the scopes its organization approved (`grantedScopes`), also while its
 * installation is `pending` consent to more.
 */
export async function integrationTokenActor(db: Db, token: string, now = new Date().toISOString()): Promise<Actor | null> {
  const hash = await sha256Hex(token);
  const [rows, spaceRows, siteRows] = await db.batch([
    db
      .select({
        integrationId: integrations.id,
        botUserId: integrations.botUserId,
        scopes: integrations.scopes,
        installationId: integrationTokens.installationId,
        // Aliased: D1 batch rows are keyed by column name, and the integration's bot_user_id has the same one.
        installationBotUserId: sql<string | null>`${integrationInstallations.botUserId}`.as('installation_bot_user_id'),
        orgId: integrationInstallations.orgId,
        status: integrationInstallations.status,
        approvedScopes: integrationInstallations.approvedScopes,
        spaceSelection: integrationInstallations.spaceSelection,
        siteSelection: integrationInstallations.siteSelection,
      })
      .from(integrationTokens)
      .innerJoin(integrations, and(eq(integrations.id, integrationTokens.integrationId), isNull(integrations.deletedAt)))
      .leftJoin(integrationInstallations, eq(integrationInstallations.id, integrationTokens.installationId))
      .where(and(eq(integrationTokens.hash, hash), gt(integrationTokens.expiresAt, now))),
    db
      .select({ id: integrationSpaceInstallations.spaceId })
      .from(integrationSpaceInstallations)
      .innerJoin(integrationTokens, eq(integrationTokens.installationId, integrationSpaceInstallations.installationId))
      .where(and(eq(integrationTokens.hash, hash), eq(integrationSpaceInstallations.status, 'active'))),
    db
      .select({ id: integrationSiteInstallations.siteId })
      .from(integrationSiteInstallations)
      .innerJoin(integrationTokens, eq(integrationTokens.installationId, integrationSiteInstallations.installationId))
      .where(and(eq(integrationTokens.hash, hash), eq(integrationSiteInstallations.status, 'active'))),
  ]);
  const row = rows[0];
  if (!row) return null;
  if (row.installationId === null) return { kind: 'integration', integrationId: row.integrationId, userId: row.botUserId };
  if (row.orgId === null || row.installationBotUserId === null || !tokensWork(row.status)) return null;
  return {
    kind: 'installation',
    userId: row.installationBotUserId,
    grant: {
      integrationId: row.integrationId,
      installationId: row.installationId,
      orgId: row.orgId,
      // Never more than its organization approved: a publish asking for more waits for consent.
      scopes: grantedScopes(row.scopes, row.approvedScopes ?? []),
      spaces: row.spaceSelection === 'all' ? 'all' : spaceRows.map((r) => r.id),
      sites: row.siteSelection === 'all' ? 'all' : siteRows.map((r) => r.id),
    },
  };
}

/** Expired tokens, for the hourly cron. */
export function purgeExpiredIntegrationTokens(db: Db, now: string) {
  return db.delete(integrationTokens).where(sql`${integrationTokens.expiresAt} <= ${now}`);
}
