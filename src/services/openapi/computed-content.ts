import { sql } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import type { Actor } from '../../env';
import { ApiError, forbidden } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import type { UrlContext } from '../../schemas/common';
import { spaceAppUrl } from '../../schemas/space';
import { maySeeSpecs, orgRankOfSpaceQuery } from '../content/computed-sources';
import { toRevisionPage } from '../content/presenter';
import { specStatesSql } from '../content/reads';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';
import {
  expandComputed,
  generatedDocument,
  generatedFor,
  readSpecState,
  type ComputedDocumentSource,
  type ComputedRevisionSource,
  type SpecState,
} from './computed-pages';

/**
 * GitBook's getComputedDocument and getComputedRevision: what a computed source generates, without a page
 * that stores it (GitBook's editor previews a source before it is saved). Sources are the OpenAPI ones
 * (`builtin:openapi`), generated from the organization's spec as computed pages are (computed-pages).
 * Reading one needs the `read` role on the space, and, since it shows the organization's spec, what reading
 * the organization's specs needs (computed-sources `maySeeSpecs`): a guest with a grant on one space does
 * not read the organization's private specs through it. One round trip.
 */
async function specFor(db: Db, actor: Actor, userId: string, spaceId: string, slug: string): Promise<{ spec: SpecState | undefined; orgId: string }> {
  const [spaceRows, rankRows, specRows] = await db.batch([
    selectSpaceWithRank(db, spaceId, userId),
    orgRankOfSpaceQuery(db, spaceId, userId),
    rawAll<{ kind: string; slug: string; value: string }>(db, specStatesSql(spaceId, sql`select ${slug}`)),
  ] as const);
  const { space } = checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  if (!maySeeSpecs(actor, (rankRows as Array<{ rank: number | null }>)[0]?.rank)) {
    throw forbidden("Computing content from the organization's OpenAPI specs needs membership of the organization (or an installation token with openapi:read)");
  }
  const row = (specRows as Array<{ value: string }>)[0];
  return { spec: row ? readSpecState(row.value) : undefined, orgId: space.orgId };
}

export interface ComputeRequest {
  db: Db;
  actor: Actor;
  userId: string;
  spaceId: string;
  seed: string;
}

export async function computedDocument(r: ComputeRequest, source: ComputedDocumentSource) {
  const { spec } = await specFor(r.db, r.actor, r.userId, r.spaceId, source.dependencies.spec.ref.spec);
  const content = generatedFor(source, spec);
  if (!content) throw new ApiError(404, `Nothing in the OpenAPI specification "${source.dependencies.spec.ref.spec}" matches these props`);
  return generatedDocument(content, r.seed);
}

/** The pages a computed page of this source would generate (no files or reusable contents: OpenAPI sources make none). */
export async function computedRevision(r: ComputeRequest & { urls: UrlContext }, source: ComputedRevisionSource) {
  const { spec, orgId } = await specFor(r.db, r.actor, r.userId, r.spaceId, source.dependencies.spec.ref.spec);
  const now = new Date(0).toISOString();
  const root = expandComputed(
    { id: r.seed, type: 'document', title: spec?.outline?.title ?? source.dependencies.spec.ref.spec, slug: 'computed', computed: source, computedSeed: r.seed, createdAt: spec?.versionCreatedAt ?? now, updatedAt: spec?.versionCreatedAt ?? now, pages: [] },
    spec,
  );
  const urls = { app: spaceAppUrl(r.urls, orgId, r.spaceId) };
  return { pages: root.pages.map((page) => toRevisionPage(page, urls)), files: [] as never[], reusableContents: [] as never[] };
}
