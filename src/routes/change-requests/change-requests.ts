import { z } from '@hono/zod-openapi';
import { and, count, desc, eq, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { changeRequestContributors, changeRequestReviewRequests, changeRequests, spaces } from '../../db/schema';
import { spaceWriter, throughWriter } from '../../durable-objects/space-writer';
import { auditForWriter } from '../../services/audit/context';
import { ErrorSchema, createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, beforeCursor, listCount, pageParams, textCursor, toPage, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { ChangeRequestSchema, ChangeRequestStatusSchema, ChangeRequestSubjectSchema } from '../../schemas/change-request';
import { toChangeRequest } from '../../services/content/presenter';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { spaceRoleSql } from '../../services/access/access';
import {
  changeRequestQuery,
  loadChangeRequest,
  refreshChangeRequestCounters,
  type ChangeRequestWithContext,
} from '../../services/content/change-requests';
import { readDescription } from '../../services/content/change-request-description';
import { newChangeRequestStatements } from '../../services/content/main-edits';
import { checkOrganizationRole } from '../../services/organizations/organizations';
import { countOrganizationChangeRequests, organizationWithMemberRoleQuery } from '../../services/content/organization-change-requests';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import { lookedUpToken, runBatch, selectOfBuiltShape, selectWithValues, type BatchItem, type Db } from '../../db/client';
import { heldChangeRequestList, heldListKey, heldRowsOf, holdChangeRequestList } from '../../services/content/change-request-lists';
import { authorizeComputedSources, computedSourceChange, orgRankOfSpaceQuery } from '../../services/content/computed-sources';
import { ApplySpaceTemplateSchema, templateChanges } from '../../templates';
import { enforceCostly } from '../../middleware/rate-limit';
import { checkClusterForChangeRequest, clusterOfSpaceQuery } from '../../services/conversations/records';

/**
 * Change requests: proposed edits to a space, numbered per space. Reading needs `read`, creating and
 * editing `edit`, merging `review` or above and the space's merge rules. Merge and update move heads,
 * so they run in the space's SpaceWriter.
 */
const tags = ['Change requests'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const ChangeRequestParams = SpaceParams.extend({
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});

const ListFilters = ListQuerySchema.extend({
  status: ChangeRequestStatusSchema.optional().openapi({ description: 'Only change requests with this status (default open)' }),
  creator: z.string().min(1).optional().openapi({ description: 'Only change requests created by this user' }),
  contributor: z.string().min(1).optional().openapi({ description: 'Only change requests this user edited' }),
  requestedReviewer: z.string().min(1).optional().openapi({ description: 'Only change requests with a pending review request for this user' }),
  conversationsIssuesCluster: z.string().min(1).optional().openapi({ description: 'Only change requests associated with this conversations issues cluster' }),
  orderBy: z.enum(['updatedAt', 'createdAt']).optional().openapi({ description: 'Sort field, most recent first (default updatedAt)' }),
});

const ChangeRequestListSchema = listOf(ChangeRequestSchema, 'ChangeRequests');

const listForSpaceRoute = defineRoute('get', '/spaces/{spaceId}/change-requests', () => ({
  operationId: 'listChangeRequestsForSpace',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "The space's change requests (open ones by default), most recently updated first",
  request: { params: SpaceParams, query: ListFilters },
  responses: { 200: jsonResponse(ChangeRequestListSchema, 'The change requests') },
}));

const listForOrgRoute = defineRoute('get', '/orgs/{organizationId}/change-requests', () => ({
  operationId: 'listChangeRequestsForOrganization',
  tags,
  summary: 'Change requests of the spaces of the organization the caller can read',
  request: { params: z.object({ organizationId: IdSchema('organizationId') }), query: ListFilters },
  responses: { 200: jsonResponse(ChangeRequestListSchema, 'The change requests') },
}));

const CreateBody = z.object({
  subject: ChangeRequestSubjectSchema.optional(),
  agentTaskId: z.string().optional().openapi({ description: 'Not supported: there are no agent tasks in this deployment' }),
  template: ApplySpaceTemplateSchema.optional().openapi({ description: 'A template whose pages the change request starts with (see applyTemplateToSpace)' }),
  conversationsIssuesCluster: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({
      description:
        "The conversations issues cluster the change request addresses: a cluster of the space's organization (400 otherwise) that is not muted (409)",
    }),
});

const createRoute = defineRoute('post', '/spaces/{spaceId}/change-requests', () => ({
  operationId: 'createChangeRequest',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: "Open a change request from the space's current revision, with a template's pages when `template` is given",
  request: { params: SpaceParams, ...jsonBody(CreateBody) },
  responses: {
    201: { ...jsonResponse(ChangeRequestSchema, 'The change request'), headers: { Location: { schema: { type: 'string' } } } },
    409: jsonResponse(ErrorSchema, 'The conversations issues cluster named is muted'),
  },
}));

const getRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}', () => ({
  operationId: 'getChangeRequestById',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'A change request, by id or number',
  request: { params: ChangeRequestParams },
  responses: { 200: jsonResponse(ChangeRequestSchema, 'The change request') },
}));

const PatchBody = z.object({
  subject: ChangeRequestSubjectSchema.optional(),
  description: z.unknown().optional().openapi({ description: 'Rich-text document' }),
  status: z.enum(['draft', 'open', 'archived']).optional().openapi({ description: 'merged is reached only by merging' }),
});

const patchRoute = defineRoute('patch', '/spaces/{spaceId}/change-requests/{changeRequestId}', () => ({
  operationId: 'updateChangeRequestById',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: "Change a change request's subject, description or status",
  request: { params: ChangeRequestParams, ...jsonBody(PatchBody) },
  responses: { 200: jsonResponse(ChangeRequestSchema, 'The change request') },
}));

const HeadMoveResult = (result: 'merge' | 'update') =>
  z.object({ revision: z.string().openapi({ description: 'The resulting revision' }), result: z.literal(result) });

const mergeRoute = defineRoute('post', '/spaces/{spaceId}/change-requests/{changeRequestId}/merge', () => ({
  operationId: 'mergeChangeRequest',
  costly: 'content-writes',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: 'Merge a change request into the space (409 naming the pages on conflict)',
  request: { params: ChangeRequestParams },
  responses: { 200: jsonResponse(HeadMoveResult('merge'), 'Merged'), 409: jsonResponse(z.object({ error: z.object({ code: z.number(), message: z.string() }) }), 'Conflicting edits') },
}));

const updateRoute = defineRoute('post', '/spaces/{spaceId}/change-requests/{changeRequestId}/update', () => ({
  operationId: 'updateChangeRequest',
  costly: 'content-writes',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: "Pull the space's main content into the change request",
  request: { params: ChangeRequestParams },
  responses: { 200: jsonResponse(HeadMoveResult('update'), 'Updated'), 409: jsonResponse(z.object({ error: z.object({ code: z.number(), message: z.string() }) }), 'Conflicting edits') },
}));

type Filters = z.infer<typeof ListFilters>;

/**
 * Filters in SQL, with placeholders where their values go (given in `values`); `shape` names which filters there
 * are, and the sort: sorted most recent first on (orderBy, id), the keyset cursor being the last row's pair.
 */
function listConditions(filters: Filters) {
  const sortColumn = filters.orderBy === 'createdAt' ? changeRequests.createdAt : changeRequests.updatedAt;
  const where: SQL[] = [eq(changeRequests.status, sql.placeholder('status'))];
  const values: Record<string, unknown> = { status: filters.status ?? 'open' };
  const shape: string[] = [filters.orderBy === 'createdAt' ? 'createdAt' : 'updatedAt'];
  const filter = (name: keyof Filters & string, value: string | undefined, condition: (placeholder: Placeholder) => SQL) => {
    if (!value) return;
    where.push(condition(sql.placeholder(name)));
    values[name] = value;
    shape.push(name);
  };
  filter('creator', filters.creator, (creator) => eq(changeRequests.createdBy, creator));
  filter('contributor', filters.contributor, (contributor) =>
    sql`exists (select 1 from ${changeRequestContributors} c where c.change_request_id = ${changeRequests.id} and c.user_id = ${contributor})`);
  filter('requestedReviewer', filters.requestedReviewer, (reviewer) =>
    sql`exists (select 1 from ${changeRequestReviewRequests} q where q.change_request_id = ${changeRequests.id} and q.user_id = ${reviewer})`);
  filter('conversationsIssuesCluster', filters.conversationsIssuesCluster, (cluster) => eq(changeRequests.conversationsIssuesCluster, cluster));
  return { where, values, shape: shape.join(':'), sortColumn };
}

/** What a list is scoped to: SQL with its values in place, or with placeholders (`values`) and a `shape` naming its text. */
type ListScope = SQL[] | { shape: string; where: SQL[]; values: Record<string, unknown> };

/**
 * The statements of one page of change requests: the page (`list`, a row more than `limit`) and, built on demand,
 * the count of every matching change request; `pageOf` makes the rows an API page.
 */
function listStatements(db: Db, listScope: ListScope, filters: Filters, urls: ReturnType<typeof urlContext>) {
  const { cursor, limit } = pageParams(filters);
  const conditions = listConditions(filters);
  const { where, sortColumn } = conditions;
  const scope = Array.isArray(listScope) ? listScope : listScope.where;
  const matching = and(...scope, ...where);
  const text = textCursor(cursor);
  const after = text ? beforeCursor([sql.placeholder('afterSort'), sql.placeholder('afterId')] as unknown as Cursor, sortColumn, changeRequests.id) : undefined;
  const values = { ...conditions.values, ...(Array.isArray(listScope) ? {} : listScope.values), limit: limit + 1, afterSort: text?.[0], afterId: text?.[1] };
  // A space's list is built once per isolate for each combination of filters (db/client `selectOfBuiltShape`): its
  // builder too, which was a fortieth of a warm list's Worker CPU (test/bench/profile.ts).
  const select = () => changeRequestQuery(db, and(matching, after)!).orderBy(desc(sortColumn), desc(changeRequests.id)).limit(sql.placeholder('limit'));
  const shape = Array.isArray(listScope) ? undefined : `changeRequests:${listScope.shape}:${conditions.shape}:${text ? 'after' : 'first'}`;
  const list = shape ? selectOfBuiltShape(db, shape, select, values) : selectWithValues(select(), values);
  const countAll = () => selectWithValues(db.select({ n: count() }).from(changeRequests).innerJoin(spaces, eq(spaces.id, changeRequests.spaceId)).where(matching), values);
  const key = (row: ChangeRequestWithContext) => [filters.orderBy === 'createdAt' ? row.cr.createdAt : row.cr.updatedAt, row.cr.id] as [string, string];
  const pageOf = (rows: ChangeRequestWithContext[], total: number) => toPage(rows, limit, total, key, (row) => toChangeRequest(row, urls));
  return { list, countAll, where, values, limit, cursor, pageOf };
}

/**
 * One page of change requests and their count, read in the same batch as `guard` (the caller's
 * access to the space or organization), which `check` verifies before anything is returned.
 */
async function listPage<G>(
  db: Db,
  guard: BatchItem,
  check: (rows: G[]) => void,
  listScope: ListScope,
  filters: Filters,
  urls: ReturnType<typeof urlContext>,
  countFor?: (rows: G[], where: SQL[], values: Record<string, unknown>) => Promise<number>,
) {
  const { list, countAll, where, values, limit, cursor, pageOf } = listStatements(db, listScope, filters, urls);
  const [guardRows, rows] = (await db.batch([guard, list as BatchItem])) as [G[], ChangeRequestWithContext[]];
  check(guardRows);
  // Counted only when they are more than a page (after the caller's check): by `countFor` when given (the
  // organization's list reads indexes of what it subtracts), else over every matching change request.
  const total = await listCount(rows, limit, cursor, undefined, async () =>
    countFor ? countFor(guardRows, where, values) : (await countAll())[0].n,
  );
  return { guardRows, rows, page: pageOf(rows, total) };
}

/**
 * A space's list from what this isolate holds (services/content/change-request-lists), if it holds the list asked
 * for: the space's statement with the caller's rank alone (the access check), whose version says whether the held
 * rows are the space's now; else the list and its count in one batch, held for the next read. Undefined when nothing
 * is held: the caller reads the list as for the first time. Never for a request whose token cost a round trip of its
 * own (DESIGN.md's budget is two).
 */
async function heldListPage(db: Db, spaceId: string, userId: string, filters: Filters, urls: ReturnType<typeof urlContext>) {
  const key = heldListKey(spaceId, filters);
  const held = key !== undefined && !lookedUpToken(db) ? heldChangeRequestList(key) : undefined;
  if (!held) return undefined;
  const { space } = checkSpace(await selectSpaceWithRank(db, spaceId, userId).all(), RANK.read, true);
  const scope = { shape: 'space', where: [eq(changeRequests.spaceId, sql.placeholder('spaceId'))], values: { spaceId } };
  const { list, countAll, limit, pageOf } = listStatements(db, scope, filters, urls);
  if (space.changeRequestsVersion === held.version) {
    const rows = heldRowsOf(held, space);
    return pageOf(rows, rows.length);
  }
  // Read after the version was: rows at least as new as it, which at worst are read again.
  const [rows, [{ n }]] = (await db.batch([list as BatchItem, countAll()])) as [ChangeRequestWithContext[], { n: number }[]];
  holdChangeRequestList(key!, space.changeRequestsVersion, rows, limit);
  return pageOf(rows, rows.length <= limit ? rows.length : n);
}

export const changeRequestsRouter = createRouter()
  .openapi(listForSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    const filters = c.req.valid('query');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const held = await heldListPage(db, spaceId, userId, filters, urls);
    if (held) return c.json(held, 200);
    const guard = selectSpaceWithRank(db, spaceId, userId);
    const check = (rows: SpaceWithRank[]) => checkSpace(rows, RANK.read, true);
    const scope = { shape: 'space', where: [eq(changeRequests.spaceId, sql.placeholder('spaceId'))], values: { spaceId } };
    const { guardRows, rows, page } = await listPage(db, guard, check, scope, filters, urls);
    const key = heldListKey(spaceId, filters);
    if (key !== undefined) holdChangeRequestList(key, guardRows[0].space.changeRequestsVersion, rows, pageParams(filters).limit);
    return c.json(page, 200);
  })
  .openapi(listForOrgRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    type Caller = Parameters<typeof checkOrganizationRole>[0][number] & { memberRole: number | null };
    const check = (rows: Caller[]) => checkOrganizationRole(rows, RANK.guest);
    // Along the (org_id, status, sort, id) index: a page costs what it returns, whatever the organization's size.
    const visible = sql`${spaceRoleSql(userId)} >= ${RANK.read}`;
    const scope = [eq(changeRequests.orgId, organizationId), isNull(spaces.deletedAt), visible];
    const countFor = (rows: Caller[], where: SQL[], values: Record<string, unknown>) =>
      countOrganizationChangeRequests(db, organizationId, userId, rows[0], where, values, visible);
    const { page } = await listPage(db, organizationWithMemberRoleQuery(db, organizationId, userId), check, scope, c.req.valid('query'), urlContext(c.req.url, c.env.APP_URL), countFor);
    return c.json(page, 200);
  })
  .openapi(createRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const body = c.req.valid('json');
    // Checked before anything is read: an unknown template or a missing reference creates nothing.
    const changes = body.template !== undefined ? await templateChanges(body.template, 'template') : undefined;
    // With a template it is a content write (in the space's writer), and counts as one.
    if (changes) await enforceCostly(c, 'content-writes');
    if (body.agentTaskId !== undefined) throw badRequest('agentTaskId: there are no agent tasks in this deployment');
    const db = c.get('db');
    const cluster = body.conversationsIssuesCluster;
    const computed = changes !== undefined && computedSourceChange(changes) !== undefined;
    // The space, and in the same round trip the caller's organization role when a template has a computed page
    // (api-reference) and the cluster the change request names.
    const [spaceRows, ...more] = (await runBatch(db, [
      selectSpaceWithRank(db, spaceId, userId),
      ...(computed ? [orgRankOfSpaceQuery(db, spaceId, userId)] : []),
      ...(cluster !== undefined ? [clusterOfSpaceQuery(db, spaceId, cluster)] : []),
    ])) as unknown[][];
    checkSpace(spaceRows as SpaceWithRank[], RANK.edit);
    if (computed) authorizeComputedSources(c.get('actor'), more[0], changes!, `template "${body.template!.id}"`);
    if (cluster !== undefined) checkClusterForChangeRequest(more[computed ? 1 : 0], cluster);
    const subject = body.subject ?? '';
    let row: ChangeRequestWithContext;
    if (changes) {
      // Opened with the template's pages at once, in the space's writer (the content is built on main's head);
      // the cluster is named once it exists.
      row = await throughWriter(spaceWriter(c.env, spaceId).createChangeRequest({ spaceId, userId, subject }, changes, auditForWriter(c)), c);
      if (cluster !== undefined) {
        await db.update(changeRequests).set({ conversationsIssuesCluster: cluster }).where(eq(changeRequests.id, row.cr.id));
        row = { ...row, cr: { ...row.cr, conversationsIssuesCluster: cluster } };
      }
    } else {
      const id = newId();
      const head = sql`(select s.revision_id from spaces s where s.id = ${spaceId})`;
      const opened = newChangeRequestStatements(db, { id, spaceId, subject, userId, now: nowIso(), revisionId: head, revisionInitial: head });
      const named = cluster === undefined ? [] : [db.update(changeRequests).set({ conversationsIssuesCluster: cluster }).where(eq(changeRequests.id, id))];
      const results = (await runBatch(db, [...opened, ...named, changeRequestQuery(db, eq(changeRequests.id, id))])) as unknown[][];
      row = results[results.length - 1][0] as ChangeRequestWithContext;
    }
    const created = toChangeRequest(row, urlContext(c.req.url, c.env.APP_URL));
    c.header('Location', created.urls.location);
    return c.json(created, 201);
  })
  .openapi(getRoute, async (c) => {
    const { spaceId, changeRequestId } = c.req.valid('param');
    const { row } = await loadChangeRequest(c.get('db'), spaceId, changeRequestId, requireUser(c), RANK.read);
    return c.json(toChangeRequest(row, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(patchRoute, async (c) => {
    const { spaceId, changeRequestId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const { row } = await loadChangeRequest(db, spaceId, changeRequestId, requireUser(c), RANK.edit);
    if (row.cr.status === 'merged' && body.status !== undefined) throw badRequest('status: a merged change request cannot change status');
    const description = body.description === undefined ? undefined : readDescription(body.description);
    const changes = {
      ...(body.subject !== undefined ? { subject: body.subject } : {}),
      ...(description ? { description } : {}),
      ...(body.status !== undefined ? { status: sql`case when ${changeRequests.status} = 'merged' then 'merged' else ${body.status} end` } : {}),
    };
    if (Object.keys(changes).length === 0) return c.json(toChangeRequest(row, urlContext(c.req.url, c.env.APP_URL)), 200);
    const [, , rows] = await db.batch([
      // A merge racing this patch wins: the status only changes while the change request is not merged.
      db.update(changeRequests).set({ ...changes, updatedAt: nowIso() }).where(eq(changeRequests.id, row.cr.id)),
      refreshChangeRequestCounters(db, spaceId),
      changeRequestQuery(db, eq(changeRequests.id, row.cr.id)),
    ]);
    return c.json(toChangeRequest(rows[0] as ChangeRequestWithContext, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(mergeRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const { row } = await loadChangeRequest(c.get('db'), spaceId, changeRequestId, userId, RANK.review);
    const { revision } = await throughWriter(spaceWriter(c.env, spaceId).merge({ spaceId, changeRequestId: row.cr.id, userId }, auditForWriter(c)), c);
    return c.json({ revision, result: 'merge' as const }, 200);
  })
  .openapi(updateRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const { row } = await loadChangeRequest(c.get('db'), spaceId, changeRequestId, userId, RANK.edit);
    const { revision } = await throughWriter(spaceWriter(c.env, spaceId).update({ spaceId, changeRequestId: row.cr.id, userId }, auditForWriter(c)), c);
    return c.json({ revision, result: 'update' as const }, 200);
  });

