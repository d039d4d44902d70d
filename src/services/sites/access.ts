import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { sites, siteShareLinks } from '../../db/schema';
import type { AppBindings } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { actorUserId } from '../integrations/access';
import { siteRoleSql } from '../access/access';
import type { AdaptiveJsonSchema } from './adaptive-schema';
import { cloneModel, modelFrom, MODEL_QUERY_COUNT, saveModel, siteModelQueries, spacesAmongQuery, type SiteModel, type SiteRow, type SpaceWithRank } from './model';
import { requireSpaceToAdd } from './spaces';
import { verifyVisitorToken } from './visitor-token';

export const siteNotFound = () => new ApiError(404, 'Site not found');

/** Members below read (guests) and outsiders cannot see a site: 404. Members without `needed`: 403. */
export function authorizeSite(rank: number | null | undefined, needed: number) {
  if (!rank || rank < RANK.read) throw siteNotFound();
  if (rank < needed) throw new ApiError(403, 'You do not have permission to do this on this site');
}

/**
 * The caller's role rank on a site of the organization (services/access siteRoleSql: their organization role
 * or what the site is shared with them or their teams at); no row for a site not in the organization.
 */
export function siteRankQuery(db: Db, orgId: string, siteId: string, userId: string) {
  return db
    .select({ rank: siteRoleSql(userId) })
    .from(sites)
    .where(and(eq(sites.id, siteId), eq(sites.orgId, orgId)))
    .limit(1);
}

export interface MemberSite<E extends unknown[]> {
  model: SiteModel;
  rank: number;
  extra: E;
}

/**
 * A site of the organization with its whole structure and the caller's organization role, checked
 * for `needed`, and the results of `extra` statements run in the same batch: one round trip.
 */
export async function loadSiteAsMember<E extends unknown[] = []>(
  db: Db,
  orgId: string,
  siteId: string,
  userId: string,
  needed: number,
  extra: BatchItem[] = [],
): Promise<MemberSite<E>> {
  const results = (await runBatch(db, [siteRankQuery(db, orgId, siteId, userId), ...siteModelQueries(db, orgId, siteId, userId), ...extra])) as unknown[];
  const [rankRows] = results as [{ rank: number | null }[]];
  authorizeSite(rankRows[0]?.rank, needed);
  const model = modelFrom(results.slice(1, 1 + MODEL_QUERY_COUNT) as Parameters<typeof modelFrom>[0]);
  if (!model) throw siteNotFound();
  return { model, rank: rankRows[0].rank!, extra: results.slice(1 + MODEL_QUERY_COUNT) as E };
}

/** Who reads a published view: a member (with their role) or a visitor, with the claims their conditions see. */
export type SiteReader = { kind: 'member'; userId: string; rank: number; claims: Record<string, unknown> } | { kind: 'visitor'; claims: Record<string, unknown> };

export interface VisitorCredentials {
  shareKey?: string;
  /** A visitor-auth JWT (header `X-Visitor-Token` or query `jwt_token`). */
  token?: string;
}

/** The credentials a visitor read carries. */
export function visitorCredentials(c: Context<AppBindings>, shareKey: string | undefined): VisitorCredentials {
  // `||`: an empty header (some clients and proxies send one) must not hide the query parameter.
  const token = c.req.header('X-Visitor-Token') || c.req.query('jwt_token');
  return { shareKey: shareKey || undefined, token: token || undefined };
}

/** The active share link of `siteId` with `key` (no row: the key opens nothing). */
export function shareLinkQuery(db: Db, siteId: string, key: string | undefined) {
  return db
    .select({ id: siteShareLinks.id })
    .from(siteShareLinks)
    .where(and(eq(siteShareLinks.siteId, siteId), eq(siteShareLinks.key, key ?? ''), eq(siteShareLinks.active, true)))
    .limit(1);
}

/** The claims of a verified token, validated against the site's adaptive schema; null without a valid token. */
async function claimsOf(model: SiteModel, token: string | undefined): Promise<Record<string, unknown> | null> {
  if (!token) return null;
  const payload = await verifyVisitorToken(token, model.site.authKey);
  if (!payload) return null;
  // The JSON Schema validator (@cfworker/json-schema) only for a visitor with a valid token: a public page never evaluates it.
  const { visitorClaims } = await import('./adaptive-schema');
  return visitorClaims((model.site.adaptiveSchema as AdaptiveJsonSchema | null) ?? null, payload);
}

export interface ReadableSite<E extends unknown[]> {
  model: SiteModel;
  reader: SiteReader;
  /** The share key, when it opened the site (published URLs carry it). */
  shareKey?: string;
  extra: E;
}

/**
 * A site read by a member (any site of their organization, published or not) or by a visitor
 * without an API token. A visitor reads only a published site, and only with what its visibility
 * asks for: nothing for `public`/`unlisted`, an active share link's key for `share-link`, a JWT
 * signed with the site's key for `visitor-auth`; or a site token of this site (its visitor's claims). Every
 * refusal reads as an unknown site (404).
 * One round trip, plus `extra` statements in the same batch.
 */
export async function loadSiteAsReader<E extends unknown[] = []>(
  c: Context<AppBindings>,
  orgId: string,
  siteId: string,
  credentials: VisitorCredentials,
  extra: BatchItem[] = [],
): Promise<ReadableSite<E>> {
  const db = c.get('db');
  const actor = c.get('actor');
  if (actor.kind === 'operator') throw new ApiError(403, 'This operation needs a user API token or visitor credentials, not the operator token');
  // An installation's token reads the sites it covers (token-access checked the site) as its bot user.
  const userId = actorUserId(actor);
  // One batch for both readers: a signed-in user who is not a member reads like any visitor.
  const results = (await runBatch(db, [
    ...(userId ? [siteRankQuery(db, orgId, siteId, userId)] : []),
    ...siteModelQueries(db, orgId, siteId, userId),
    shareLinkQuery(db, siteId, credentials.shareKey),
    ...extra,
  ])) as unknown[];
  const rank = userId ? ((results.shift() as { rank: number | null }[])[0]?.rank ?? null) : null;
  const model = modelFrom(results.slice(0, MODEL_QUERY_COUNT) as Parameters<typeof modelFrom>[0]);
  const extraResults = results.slice(MODEL_QUERY_COUNT + 1) as E;
  if (!model) throw siteNotFound();
  if (actor.kind === 'site') {
    // A site token (its site checked by middleware/token-access) stands for the visitor it was issued to,
    // with their claims, as long as the site is published.
    if (!model.site.published || model.site.id !== actor.token.site) throw siteNotFound();
    return { model, reader: { kind: 'visitor', claims: actor.token.claims }, extra: extraResults };
  }
  if (userId && rank && rank >= RANK.read) {
    const claims = await claimsOf(model, credentials.token);
    return { model, reader: { kind: 'member', userId, rank, claims: claims ?? {} }, shareKey: credentials.shareKey, extra: extraResults };
  }
  const visitor = await visitorAccess(model, (results[MODEL_QUERY_COUNT] as unknown[]).length > 0, credentials);
  if (!visitor) throw siteNotFound();
  return { model, ...visitor, extra: extraResults };
}

/**
 * A visitor's access to a site (its model read, and whether `shareLinkQuery` found the visitor's key):
 * only a published site, with what its visibility asks for. Null when refused, which every caller
 * answers as an unknown site. Shared by the published view and the HTML site (src/site).
 */
export async function visitorAccess(
  model: SiteModel,
  shareLinkOpens: boolean,
  credentials: VisitorCredentials,
): Promise<{ reader: SiteReader & { kind: 'visitor' }; shareKey?: string } | null> {
  const claims = await claimsOf(model, credentials.token);
  const visibility = model.site.visibility;
  if (!model.site.published) return null;
  if (visibility === 'share-link' && !shareLinkOpens) return null;
  if (visibility === 'visitor-auth' && claims === null) return null;
  return { reader: { kind: 'visitor', claims: claims ?? {} }, ...(visibility === 'share-link' && { shareKey: credentials.shareKey }) };
}

/**
 * A structure change that brings a space into the site (`spaceId`; none: a plain change): the space is
 * read in the same batch as the site and must be a live space of the organization (400 otherwise).
 */
export async function changeSiteWithSpace<T>(
  db: Db,
  orgId: string,
  siteId: string,
  userId: string,
  spaceId: string | undefined,
  change: (model: SiteModel) => T,
): Promise<{ model: SiteModel; rank: number; result: T }> {
  return changeSite<T, [SpaceWithRank[]]>(
    db,
    orgId,
    siteId,
    userId,
    (after, [found]) => {
      if (spaceId !== undefined) requireSpaceToAdd(after, found, spaceId);
      return change(after);
    },
    [spacesAmongQuery(db, orgId, spaceId === undefined ? [] : [spaceId], userId)],
  );
}

/**
 * The shape of every structure change: load the site as an admin (with `extra` reads in the same
 * batch), change a copy of its model, and write what changed. Two round trips.
 */
export async function changeSite<T, E extends unknown[] = []>(
  db: Db,
  orgId: string,
  siteId: string,
  userId: string,
  change: (model: SiteModel, extra: E) => T,
  extra: BatchItem[] = [],
): Promise<{ model: SiteModel; rank: number; result: T }> {
  const loaded = await loadSiteAsMember<E>(db, orgId, siteId, userId, RANK.admin, extra);
  const after = cloneModel(loaded.model);
  const result = change(after, loaded.extra);
  await saveModel(db, loaded.model, after);
  return { model: after, rank: loaded.rank, result };
}

/**
 * Changes settings kept on the site's own row, outside its structure (publishing auth, adaptive
 * schema, customization): the caller must be an admin, `changesOf` (which may check more, after
 * the role) says what to write with the time of the change, and the row is answered as written.
 */
export async function changeSiteRow(
  db: Db,
  orgId: string,
  siteId: string,
  userId: string,
  changesOf: (now: string) => Partial<SiteRow> | Promise<Partial<SiteRow>>,
): Promise<SiteRow> {
  const { model } = await loadSiteAsMember(db, orgId, siteId, userId, RANK.admin);
  const now = nowIso();
  const changes = { ...(await changesOf(now)), updatedAt: now };
  await db.update(sites).set(changes).where(eq(sites.id, siteId));
  return { ...model.site, ...changes };
}
