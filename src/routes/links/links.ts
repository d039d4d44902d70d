import { z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { rawAll, rowsOf, runBatch, type BatchItem, type Db } from '../../db/client';
import { changeRequests, organizations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { decodeCursor, encodeCursor, ListQuerySchema, pageParams } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext, type UrlContext } from '../../schemas/common';
import { OrganizationSchema } from '../../schemas/organization';
import { RevisionFileSchema, RevisionPageSchema } from '../../schemas/revision';
import { SpaceSchema } from '../../schemas/space';
import { orgRoleSql } from '../../services/access/access';
import { changeRequestMatch, loadChangeRequest } from '../../services/content/change-requests';
import { readContent } from '../../services/content/reads';
import { pagePathsQuery, type PathRow } from '../../services/content/page-paths';
import { d1NodeStore, diffTries } from '../../services/content/tree';
import type { TreeRecord } from '../../services/content/pages';
import { createSigner } from '../../services/content/files';
import { dependency, linksOf, targetKey } from '../../services/indexing/extract';
import {
  backlinksQuery,
  filesQuery,
  linkStatsQuery,
  locationContext,
  neededBy,
  pageLocation,
  pagesPresentQuery,
  targetsQuery,
  toUsage,
  type LinkStatus,
  type LocationContext,
  type TargetRow,
} from '../../services/links/links';
import { loadDocuments } from '../../services/content/revisions';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import type { OrganizationRow } from '../../services/organizations/organizations';

/**
 * Links and backlinks: the references pages make (to pages, files, other spaces, URLs) with their
 * status, and the pages that point at a page or file. Main content reads the index kept by
 * services/indexing; a change request's links are computed from its own content.
 */

const StatusSchema = z.enum(['ok', 'broken', 'in-app']).openapi('ContentReferenceStatus', {
  description: 'ok; broken: the target is not in the content; in-app: a URL into this deployment that should be a content reference',
});

const ContentLocationSchema = z
  .union([
    z.object({ kind: z.literal('url'), url: z.string() }),
    z.object({
      kind: z.literal('page'),
      organization: OrganizationSchema,
      space: SpaceSchema,
      page: RevisionPageSchema,
      internalLocation: z.object({ type: z.literal('anchor'), anchor: z.string() }).optional(),
    }),
    z.object({ kind: z.literal('file'), organization: OrganizationSchema, space: SpaceSchema, file: RevisionFileSchema }),
  ])
  .openapi('ContentLocation');

const UsageSchema = z
  .object({
    status: StatusSchema,
    relation: z.enum(['reference', 'dependsOn']),
    targetReference: ContentLocationSchema.optional().openapi({ description: 'The target, when it is a URL or a page or file of this space that exists' }),
    locationReferences: z.array(ContentLocationSchema).openapi({ description: 'The pages holding a link to the target (at most 50)' }),
  })
  .openapi('ContentReferenceUsage');

const StatsSchema = z
  .object({ total: z.number(), broken: z.object({ total: z.number(), changeRequest: z.number().optional() }) })
  .openapi('ContentReferencesStats');

const UsageList = z
  .object({ items: z.array(UsageSchema), count: z.number(), next: z.object({ page: z.string() }).optional(), stats: StatsSchema })
  .openapi('ContentReferenceUsages');
const LocationList = z
  .object({ items: z.array(ContentLocationSchema), count: z.number(), next: z.object({ page: z.string() }).optional() })
  .openapi('ContentLocations');

const StatusQuery = ListQuerySchema.extend({ status: StatusSchema.optional() });
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const CrParams = SpaceParams.extend({ changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }) });

const listSpaceLinksRoute = defineRoute('get', '/spaces/{spaceId}/links', () => ({
  operationId: 'listSpaceLinks',
  tokens: { scope: 'space:content:read' },
  tags: ['Spaces'],
  summary: "Every target the space's main content links to, with its status and the pages linking to it",
  request: { params: SpaceParams, query: StatusQuery },
  responses: { 200: jsonResponse(UsageList, 'Link targets, by target') },
}));

const listPageLinksRoute = defineRoute('get', '/spaces/{spaceId}/content/page/{pageId}/links', () => ({
  operationId: 'listPageLinksInSpace',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: 'The links of a page of main content',
  request: { params: SpaceParams.extend({ pageId: IdSchema('pageId') }), query: StatusQuery },
  responses: { 200: jsonResponse(UsageList, "The page's link targets") },
}));

const listCrPageLinksRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', () => ({
  operationId: 'listPageLinksInChangeRequest',
  tokens: { scope: 'space:content:read' },
  tags: ['Change request content'],
  summary: "The links of a page of a change request, with their status in the change request's content",
  request: { params: CrParams.extend({ pageId: IdSchema('pageId') }), query: StatusQuery },
  responses: { 200: jsonResponse(UsageList, "The page's link targets") },
}));

const pageBacklinksRoute = defineRoute('get', '/spaces/{spaceId}/content/page/{pageId}/backlinks', () => ({
  operationId: 'listSpacePageBacklinks',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: 'The pages of main content that link to a page',
  request: { params: SpaceParams.extend({ pageId: IdSchema('pageId') }), query: ListQuerySchema },
  responses: { 200: jsonResponse(LocationList, 'Pages linking to the page') },
}));

const fileBacklinksRoute = defineRoute('get', '/spaces/{spaceId}/content/files/{fileId}/backlinks', () => ({
  operationId: 'listSpaceFileBacklinks',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: 'The pages of main content that use a file',
  request: { params: SpaceParams.extend({ fileId: IdSchema('fileId') }), query: ListQuerySchema },
  responses: { 200: jsonResponse(LocationList, 'Pages using the file') },
}));

const crFileBacklinksRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', () => ({
  operationId: 'listChangeRequestFileBacklinks',
  tokens: { scope: 'space:content:read' },
  tags: ['Change request content'],
  summary: "The pages of a change request's content that use a file",
  request: { params: CrParams.extend({ fileId: IdSchema('fileId') }), query: ListQuerySchema },
  responses: { 200: jsonResponse(LocationList, 'Pages using the file') },
}));

type Ctx = Context<AppBindings>;

/** The organization as the caller sees it, found from the space (to batch). */
function orgOfSpaceQuery(db: Db, spaceId: string, userId: string) {
  return db
    .select({ org: organizations, rank: orgRoleSql(organizations.id, userId) })
    .from(organizations)
    .where(eq(organizations.id, sql`(select s.org_id from spaces s where s.id = ${spaceId})`));
}

/** Reads the pages and files the locations need (one round trip) and builds their context. */
async function locations(c: Ctx, db: Db, base: { org: { org: OrganizationRow; rank: number | null }; space: SpaceWithRank; urls: UrlContext }, need: { pages: string[]; files: string[] }, revisionId?: string) {
  const spaceId = base.space.space.id;
  const statements: BatchItem[] = [];
  if (need.pages.length) statements.push(pagePathsQuery(db, need.pages.map((id): [string, string, string?] => [spaceId, id, revisionId])));
  if (need.files.length) statements.push(filesQuery(db, spaceId, need.files, revisionId));
  const results = statements.length ? ((await runBatch(db, statements)) as unknown[][]) : [];
  const paths = (need.pages.length ? results[0] : []) as PathRow[];
  const files = (need.files.length ? results[results.length - 1] : []) as Array<{ id: string; entry: string | null }>;
  return locationContext(
    { env: c.env, origin: new URL(c.req.url).origin, urls: base.urls, org: base.org.org, orgRank: base.org.rank, space: base.space.space, spaceRank: base.space.rank },
    paths,
    files,
  );
}

async function usagePage(c: Ctx, ctx: LocationContext, rows: TargetRow[], limit: number, count: number, stats: z.infer<typeof StatsSchema>) {
  const sign = createSigner(c.env);
  const shown = rows.slice(0, limit);
  const items = await Promise.all(shown.map((row) => toUsage(ctx, row, sign)));
  const next = rows.length > limit && shown.length ? { next: { page: encodeCursor([0, shown[shown.length - 1].targetKey]) } } : {};
  return { items, count, ...next, stats };
}

const afterKey = (page: string | undefined) => decodeCursor(page)?.[1];

/** Links of main content, of the whole space or of one page. */
async function mainLinks(c: Ctx, pageId?: string) {
  const userId = requireUser(c);
  const { spaceId } = c.req.valid('param' as never) as { spaceId: string };
  const q = c.req.valid('query' as never) as { page?: string; limit?: number; status?: LinkStatus };
  const { limit } = pageParams(q);
  const db = c.get('db');
  const urls = urlContext(c.req.url, c.env.APP_URL);
  const statements: BatchItem[] = [
    selectSpaceWithRank(db, spaceId, userId),
    orgOfSpaceQuery(db, spaceId, userId),
    targetsQuery(db, spaceId, urls, { pageId, status: q.status, after: afterKey(q.page), limit }),
    linkStatsQuery(db, spaceId, urls, { pageId, status: q.status }),
  ];
  if (pageId !== undefined) statements.push(pagesPresentQuery(db, spaceId, [pageId]));
  const [spaceRows, orgRows, rows, stats, present] = (await runBatch(db, statements)) as unknown[][];
  const space = checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  if (pageId !== undefined && (present as unknown[]).length === 0) throw new ApiError(404, 'Page not found');
  const targets = rows as TargetRow[];
  const ctx = await locations(c, db, { org: orgRows[0] as { org: OrganizationRow; rank: number | null }, space, urls }, neededBy(targets.slice(0, limit)));
  const [s] = stats as Array<{ targets: number; total: number; broken: number }>;
  return usagePage(c, ctx, targets, limit, s.targets, { total: s.total, broken: { total: s.broken } });
}

/** Pages of main content linking to a page or file. */
async function mainBacklinks(c: Ctx, kind: 'page' | 'file') {
  const userId = requireUser(c);
  const params = c.req.valid('param' as never) as { spaceId: string; pageId?: string; fileId?: string };
  const targetId = (kind === 'page' ? params.pageId : params.fileId)!;
  const q = c.req.valid('query' as never) as { page?: string; limit?: number };
  const { limit } = pageParams(q);
  const db = c.get('db');
  const urls = urlContext(c.req.url, c.env.APP_URL);
  const present = kind === 'page' ? pagesPresentQuery(db, params.spaceId, [targetId]) : filesQuery(db, params.spaceId, [targetId]);
  const [spaceRows, orgRows, rows, found] = (await runBatch(db, [
    selectSpaceWithRank(db, params.spaceId, userId),
    orgOfSpaceQuery(db, params.spaceId, userId),
    backlinksQuery(db, params.spaceId, targetId, kind, afterKey(q.page), limit),
    present,
  ])) as unknown[][];
  const space = checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  const exists = kind === 'page' ? found.length > 0 : (found as Array<{ entry: string | null }>).some((f) => f.entry);
  if (!exists) throw new ApiError(404, kind === 'page' ? 'Page not found' : 'File not found');
  const pages = (rows as Array<{ pageId: string; total: number }>).map((r) => r.pageId);
  const shown = pages.slice(0, limit);
  const ctx = await locations(c, db, { org: orgRows[0] as { org: OrganizationRow; rank: number | null }, space, urls }, { pages: shown, files: [] });
  const items = shown.map((id) => pageLocation(ctx, id)).filter((l) => l !== undefined);
  const count = (rows as Array<{ total: number }>)[0]?.total ?? 0;
  return { items, count, ...(pages.length > limit && shown.length ? { next: { page: encodeCursor([0, shown[shown.length - 1]]) } } : {}) };
}

const isInApp = (url: string, urls: UrlContext) => url.startsWith(`${urls.app}/`) || url.startsWith(`${urls.api}/`);

export const linksRouter = createRouter()
  .openapi(listSpaceLinksRoute, async (c) => c.json(await mainLinks(c), 200))
  .openapi(listPageLinksRoute, async (c) => c.json(await mainLinks(c, c.req.valid('param').pageId), 200))
  .openapi(pageBacklinksRoute, async (c) => c.json(await mainBacklinks(c, 'page'), 200))
  .openapi(fileBacklinksRoute, async (c) => c.json(await mainBacklinks(c, 'file'), 200))
  .openapi(listCrPageLinksRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId, pageId } = c.req.valid('param');
    const q = c.req.valid('query');
    const { limit } = pageParams(q);
    const db = c.get('db');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const read = await readContent(db, { spaceId, changeRequest: changeRequestId }, userId, { page: pageId, urls });
    if (!read.located) throw new ApiError(404, 'Page not found');
    const targets = linksOf(read.documentBody ? JSON.parse(read.documentBody) : null).map((target) => ({ target, needs: dependency(target, pageId) }));
    const revisionId = read.revision.id;
    // Presence in the change request, and the statuses main content has for the same page.
    const [orgRows, presentPages, presentFiles, mainRows] = (await runBatch(db, [
      orgOfSpaceQuery(db, spaceId, userId),
      pagesPresentQuery(db, spaceId, targets.flatMap((t) => (t.needs.page ? [t.needs.page] : [])), revisionId),
      filesQuery(db, spaceId, targets.flatMap((t) => (t.needs.file ? [t.needs.file] : [])), revisionId),
      rawAll(db, sql`select target_key as targetKey, status from space_links where space_id = ${spaceId} and page_id = ${pageId}`),
    ])) as unknown[][];
    const pagesIn = new Set((presentPages as Array<{ id: string }>).map((r) => r.id));
    const filesIn = new Set((presentFiles as Array<{ id: string; entry: string | null }>).filter((f) => f.entry).map((f) => f.id));
    const mainStatus = new Map(rowsOf<{ targetKey: string; status: string }>(mainRows).map((r) => [r.targetKey, r.status]));
    const statusOf = ({ target, needs }: (typeof targets)[number]): LinkStatus => {
      if (target.kind === 'url') return isInApp(target.url, urls) ? 'in-app' : 'ok';
      if (needs.file) return filesIn.has(needs.file) ? 'ok' : 'broken';
      if (needs.page) return pagesIn.has(needs.page) ? 'ok' : 'broken';
      return 'ok';
    };
    const all: TargetRow[] = targets
      .map((t) => ({ targetKey: targetKey(t.target), target: JSON.stringify(t.target), targetId: t.needs.page ?? t.needs.file ?? null, status: statusOf(t), pages: JSON.stringify([pageId]) }))
      .sort((a, b) => (a.targetKey < b.targetKey ? -1 : a.targetKey > b.targetKey ? 1 : 0));
    const broken = all.filter((r) => r.status === 'broken');
    const matching = all.filter((r) => !q.status || r.status === q.status);
    const after = afterKey(q.page);
    const rows = matching.filter((r) => after === undefined || r.targetKey > after).slice(0, limit + 1);
    const space = read.space;
    const ctx = await locations(c, db, { org: orgRows[0] as { org: OrganizationRow; rank: number | null }, space, urls }, neededBy(rows.slice(0, limit)), revisionId);
    const stats = { total: all.length, broken: { total: broken.length, changeRequest: broken.filter((r) => mainStatus.get(r.targetKey) !== 'broken').length } };
    return c.json(await usagePage(c, ctx, rows, limit, matching.length, stats), 200);
  })
  .openapi(crFileBacklinksRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId, fileId } = c.req.valid('param');
    const q = c.req.valid('query');
    const { limit } = pageParams(q);
    const db = c.get('db');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const crRevision = sql`(select ${changeRequests.revisionId} from ${changeRequests} where ${changeRequestMatch(spaceId, changeRequestId)})`;
    const { space, row: cr, more: [orgRows, ...more] } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.read, [
      orgOfSpaceQuery(db, spaceId, userId),
      rawAll(db, sql`select distinct page_id as pageId from space_links where space_id = ${spaceId} and target_id = ${fileId} and target_key like 'file:%'`),
      rawAll(db, sql`select (select r.pages_root from spaces s join revisions r on r.id = s.revision_id where s.id = ${spaceId}) as mainPages,
        (select r.pages_root from revisions r where r.id = ${crRevision}) as crPages`),
      filesQuery(db, spaceId, [fileId], crRevision),
    ]);
    const revisionId = cr.cr.revisionId;
    if (!rowsOf<{ entry: string | null }>(more[2])[0]?.entry) throw new ApiError(404, 'File not found');
    // The change request's pages that use the file: main's, corrected by the pages that differ from main.
    const using = new Set(rowsOf<{ pageId: string }>(more[0]).map((r) => r.pageId));
    const roots = rowsOf<{ mainPages: string | null; crPages: string | null }>(more[1])[0];
    const changed = await diffTries<TreeRecord>(d1NodeStore(db), roots?.mainPages ?? null, roots?.crPages ?? null);
    const changedPages = [...changed].filter(([id]) => id !== '~');
    const documents = await loadDocuments(db, changedPages.flatMap(([, ch]) => ((ch.after as { document?: string } | undefined)?.document ? [(ch.after as { document: string }).document] : [])));
    for (const [id, change] of changedPages) {
      using.delete(id);
      const hash = (change.after as { document?: string } | undefined)?.document;
      if (hash && linksOf(documents.get(hash)).some((t) => t.kind === 'file' && t.file === fileId)) using.add(id);
    }
    const after = afterKey(q.page);
    const sorted = [...using].sort().filter((id) => after === undefined || id > after);
    const shown = sorted.slice(0, limit);
    const ctx = await locations(c, db, { org: orgRows[0] as { org: OrganizationRow; rank: number | null }, space, urls }, { pages: shown, files: [] }, revisionId);
    const items = shown.map((id) => pageLocation(ctx, id)).filter((l) => l !== undefined);
    return c.json({ items, count: using.size, ...(sorted.length > limit && shown.length ? { next: { page: encodeCursor([0, shown[shown.length - 1]]) } } : {}) }, 200);
  });
