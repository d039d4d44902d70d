import { and, eq, sql, type SQL } from 'drizzle-orm';
import { midsOfMemberSql } from '../content/tree';
import type { Context } from 'hono';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { openapiSpecs, openapiSpecVersions } from '../../db/schema';
import type { Actor, AppBindings, Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkOutboundUrl } from '../../lib/outbound';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import type { OpenAPISpecSource } from '../../schemas/openapi-spec';
import { isUniqueViolation, orgRankQuery } from '../organizations/organizations';
import { organizationPermissions } from '../../lib/permissions';
import { enqueueSpecProcessing } from './jobs';
import type { SpecAccess, SpecRow } from './presenter';
import { deleteSpecObjects, sourceTextKey } from './storage';

/**
 * The records of OpenAPI specs: who may read and write them, and their create, update and delete.
 *
 * Access is the organization's: its members (read and up) see every spec, and the organization's
 * `createOpenAPISpec` permission (create and admin roles) writes them. Guests and outsiders see none (404,
 * as the organization itself). An installation token with the `openapi:write` scope writes the specs of
 * its organization (the route's scope was checked by the token middleware; its bot user reads as a member).
 */

export const specNotFound = () => new ApiError(404, 'No matching OpenAPI spec in this organization');
const orgNotFound = () => new ApiError(404, 'Organization not found');

/** The caller's organization rank for specs (null: not a member), an `openapi:write` installation counting as create. */
export function specRank(actor: Actor, orgRank: number | null | undefined): number | null {
  if (orgRank === null || orgRank === undefined) return null;
  if (actor.kind === 'installation' && actor.grant.scopes.includes('openapi:write') && orgRank >= RANK.read) return Math.max(orgRank, RANK.create);
  return orgRank;
}

/** The `permissions` of a spec for a caller of this rank: the organization's `createOpenAPISpec` decides `edit`. */
export function specAccess(rank: number): SpecAccess {
  return { view: rank >= RANK.read, edit: organizationPermissions(rank).createOpenAPISpec };
}

/** Members (read and up) read specs; writes need `createOpenAPISpec`. Guests and outsiders: 404, others without the role: 403. */
export function authorizeSpecs(rank: number | null, needed: number): number {
  if (rank === null || rank < RANK.read) throw orgNotFound();
  if (rank < needed) {
    throw new ApiError(403, "You do not have permission to change this organization's OpenAPI specs (it takes the createOpenAPISpec permission: the admin or create role)");
  }
  return rank;
}

export function specBySlugQuery(db: Db, orgId: string, slug: string) {
  return db
    .select()
    .from(openapiSpecs)
    .where(and(eq(openapiSpecs.orgId, orgId), eq(openapiSpecs.slug, slug)))
    .limit(1);
}

/** The id of the organization's spec of this slug, as a subquery: its versions are read in the same batch as the spec. */
export function specIdOf(orgId: string, slug: string): SQL {
  return sql`(select s.id from openapi_specs s where s.org_id = ${orgId} and s.slug = ${slug})`;
}

export interface LoadedSpecs<E extends unknown[]> {
  /** The caller's rank for specs, checked for `needed`. */
  rank: number;
  /** The spec of the slug, if any. */
  spec: SpecRow | undefined;
  extra: E;
}

/**
 * The caller's rank (authorized for `needed`) and the organization's spec of `slug`, with the results of
 * `extra` statements run in the same batch: one round trip. The extra statements must not join tables that
 * share column names (a D1 batch keys rows by column name).
 */
export async function loadSpecs<E extends unknown[] = []>(
  c: Context<AppBindings>,
  orgId: string,
  slug: string | null,
  needed: number,
  extra: BatchItem[] = [],
): Promise<LoadedSpecs<E>> {
  const userId = requireUser(c);
  const db = c.get('db');
  const results = (await runBatch(db, [orgRankQuery(db, orgId, userId), ...(slug === null ? [] : [specBySlugQuery(db, orgId, slug)]), ...extra])) as unknown[];
  const [rankRows] = results as [{ rank: number | null }[]];
  const rank = authorizeSpecs(specRank(c.get('actor'), rankRows[0]?.rank), needed);
  const spec = slug === null ? undefined : (results[1] as SpecRow[])[0];
  return { rank, spec, extra: results.slice(slug === null ? 1 : 2) as E };
}

// ---------------------------------------------------------------------------------------------
// Writes

interface StoredSource {
  jobId: string;
  sourceUrl: string | null;
  sourceTextKey: string | null;
}

/**
 * Checks a source and makes it ready for a processing job: a URL must pass the outbound guard now (a
 * refused URL is a 400 saying why); a text is put in R2 under the job, before the row names it.
 */
async function storeSource(env: Env, specId: string, source: OpenAPISpecSource): Promise<StoredSource> {
  const jobId = newId();
  if (source.url !== undefined) {
    checkOutboundUrl(env, source.url, 'source.url');
    return { jobId, sourceUrl: source.url, sourceTextKey: null };
  }
  const key = sourceTextKey(specId, jobId);
  await env.FILES.put(key, source.text!, { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
  return { jobId, sourceUrl: null, sourceTextKey: key };
}

/** Removes a text object no row names (its write failed, or it was replaced); a failure leaves it under the spec's prefix. */
async function discardText(env: Env, key: string | null): Promise<void> {
  if (key === null) return;
  await env.FILES.delete(key).catch((error) => console.error(`openapi: ${key} not removed`, error));
}

/** The columns a create or a source update sets: the source, and a new processing job (no claim of it yet). */
function sourceColumns(stored: StoredSource, now: string) {
  return {
    sourceUrl: stored.sourceUrl,
    sourceTextKey: stored.sourceTextKey,
    processingState: 'pending',
    processingJob: stored.jobId,
    queuedAt: now,
    processingAttempts: 0,
    updatedAt: now,
  } satisfies Partial<SpecRow>;
}

export class SlugTaken extends ApiError {
  constructor(slug: string) {
    super(409, `The organization already has an OpenAPI spec with the slug "${slug}"`);
  }
}

/**
 * Creates a spec and enqueues its processing (after the row is written). A slug the organization already
 * has (also when another create wins the race for it) throws `SlugTaken`. One round trip.
 */
export async function createSpec(env: Env, db: Db, input: { orgId: string; slug: string; source: OpenAPISpecSource; userId: string }): Promise<SpecRow> {
  const id = newId();
  const now = nowIso();
  const stored = await storeSource(env, id, input.source);
  const row: SpecRow = {
    id,
    orgId: input.orgId,
    slug: input.slug,
    visibility: 'private',
    ...sourceColumns(stored, now),
    lastVersionId: null,
    lastProcessedAt: null,
    lastProcessErrorCode: null,
    lastProcessedErrors: null,
    lastProcessedErrorCount: 0,
    createdBy: input.userId,
    createdAt: now,
  };
  try {
    await db.insert(openapiSpecs).values(row);
  } catch (error) {
    await discardText(env, stored.sourceTextKey);
    throw isUniqueViolation(error, 'slug') ? new SlugTaken(input.slug) : error;
  }
  await enqueueSpecProcessing(env, id, stored.jobId);
  return row;
}

/**
 * Gives a spec a new source and enqueues its processing; the last version stays until the new one is
 * processed. The text object the update replaced, if any, is removed: it is read in the same D1 batch as the
 * update (a batch runs as one transaction), so of two updates racing each removes the key it replaced itself,
 * never one the other wrote. Undefined when the spec is gone. One round trip.
 */
export async function updateSpecSource(env: Env, db: Db, spec: SpecRow, source: OpenAPISpecSource): Promise<SpecRow | undefined> {
  const stored = await storeSource(env, spec.id, source);
  let replaced: { key: string | null } | undefined;
  let row: SpecRow | undefined;
  try {
    [[replaced], [row]] = await db.batch([
      db.select({ key: openapiSpecs.sourceTextKey }).from(openapiSpecs).where(eq(openapiSpecs.id, spec.id)),
      db.update(openapiSpecs).set(sourceColumns(stored, nowIso())).where(eq(openapiSpecs.id, spec.id)).returning(),
    ]);
  } catch (error) {
    await discardText(env, stored.sourceTextKey);
    throw error;
  }
  if (!row) {
    await discardText(env, stored.sourceTextKey);
    return undefined;
  }
  await enqueueSpecProcessing(env, spec.id, stored.jobId);
  // Keys are per job, so the one replaced is never the one just written.
  const replacedKey = replaced?.key ?? null;
  if (replacedKey !== null && replacedKey !== row.sourceTextKey) await discardText(env, replacedKey);
  return row;
}

/**
 * PUT's create-or-update: updates the spec read with the caller's access, else creates it; a create that
 * loses a race for the slug updates the winner instead.
 */
export async function putSpec(
  env: Env,
  db: Db,
  existing: SpecRow | undefined,
  input: { orgId: string; slug: string; source: OpenAPISpecSource; userId: string },
): Promise<{ row: SpecRow; created: boolean }> {
  if (existing) {
    const row = await updateSpecSource(env, db, existing, input.source);
    if (row) return { row, created: false };
  }
  try {
    return { row: await createSpec(env, db, input), created: true };
  } catch (error) {
    if (!(error instanceof SlugTaken)) throw error;
  }
  const [winner] = await specBySlugQuery(db, input.orgId, input.slug);
  const row = winner && (await updateSpecSource(env, db, winner, input.source));
  if (!row) throw new ApiError(409, `The OpenAPI spec "${input.slug}" was changed by another request at the same time: try again`);
  return { row, created: false };
}

export async function setSpecVisibility(db: Db, spec: SpecRow, visibility: 'private' | 'public'): Promise<SpecRow | undefined> {
  const [row] = await db.update(openapiSpecs).set({ visibility, updatedAt: nowIso() }).where(eq(openapiSpecs.id, spec.id)).returning();
  return row;
}

/** Deletes a spec with its versions (one batch) and then its R2 objects (sources and versions). */
export async function deleteSpec(env: Env, db: Db, specId: string): Promise<void> {
  await db.batch([db.delete(openapiSpecVersions).where(eq(openapiSpecVersions.specId, specId)), db.delete(openapiSpecs).where(eq(openapiSpecs.id, specId))]);
  // The spec is gone whatever happens here: objects left behind are under a prefix nothing names any more.
  await deleteSpecObjects(env.FILES, specId).catch((error) => console.error(`openapi spec ${specId}: objects not removed`, error));
}

/**
 * Whether any of `spaceIds` (a site token's spaces: those its site publishes) has, in its current main content, a
 * page computed from the organization's spec `slug` (an API reference: its record's `computed` source names the
 * spec). A site renders every spec its published pages are computed from, whatever the spec's own visibility, and
 * nothing more. One statement for the caller's batch; it reads the page maps of those spaces (their leaves), not
 * their documents.
 */
export function specComputedInSpacesSql(spaceIds: string[], slug: string): SQL {
  const body = (hash: SQL) => sql`(select body from documents where hash = ${hash})`;
  return sql`exists (select 1 from spaces sp cross join json_each(${JSON.stringify(spaceIds)}) t
    cross join json_each(${body(sql`(select r.pages_root from revisions r where r.id = sp.revision_id)`)}) g
    cross join json_each(${midsOfMemberSql('g')}) c1
    cross join json_each(${body(sql`c1.value`)}) c2
    cross join json_each(${body(sql`c2.value`)}) e
    where sp.id = t.value and sp.deleted_at is null
      and json_extract(e.value, '$.computed.dependencies.spec.ref.spec') = ${slug})`;
}
