import { z } from '@hono/zod-openapi';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { enqueueEvents, eventIdsIn } from '../../services/integrations/events';
import { collections, organizations, spaces } from '../../db/schema';
import { reindexInBackground } from '../../durable-objects/space-writer';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, listCount, pageParams, toPage } from '../../lib/pagination';
import { RANK, levelToColumn } from '../../lib/roles';
import { DAY_MS, nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { DefaultLevelSchema } from '../../schemas/roles';
import { SpaceMergeRulesSchema } from '../../schemas/merge-rules';
import { MoveBodySchema, TransferBodySchema } from '../../schemas/moves';
import { EditModeSchema, EmojiSchema, LanguageSchema, SpaceSchema, SpaceTitleSchema, toSpace } from '../../schemas/space';
import { orgRoleSql, refreshSpaceAccessCap, spaceRoleSql } from '../../services/access/access';
import { checkCreateIn, collectionQuery, requireCreateIn } from '../../services/collections/collections';
import { organizationQuery, orgRankQuery } from '../../services/organizations/organizations';
import { assertMergeRuleUsers } from '../../services/content/merge-rules';
import { appendPositionSql, resolvePosition } from '../../services/content/positions';
import { countOrganizationSpaces, organizationSpacesPageQueries } from '../../services/spaces/organization-spaces';
import { checkSpace, loadSpace, newSpaceStatements, requireSpace, selectSpaceWithRank, spaceCopyStatements, type SpaceWithRank } from '../../services/spaces/spaces';
import { siteUrlContext } from '../../services/sites/present';
import { placementOf, placementUrl, removeSpacesFromSites, spaceWithPlacementQuery } from '../../services/sites/spaces';
import { assertTransferFits, checkTransferTarget, transferStatements } from '../../services/collections/transfer';
import { assertWithinCap } from '../../services/limits/caps';
import { SPACE_RETENTION_DAYS } from '../../jobs/retention';

const tags = ['Spaces'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });

const CreateSpaceBody = z
  .object({
    title: SpaceTitleSchema.optional(),
    emoji: EmojiSchema.optional(),
    parent: z.string().min(1).optional().openapi({ description: 'ID of a parent collection' }),
    language: LanguageSchema.optional(),
    editMode: EditModeSchema.optional(),
    empty: z.literal(true).optional().openapi({ description: 'Create a completely empty space (the default)' }),
    template: z.unknown().optional(),
    computedSource: z.unknown().optional(),
  })
  .refine((b) => b.template === undefined, { message: 'creating a space from a template is not supported by this deployment', path: ['template'] })
  .refine((b) => b.computedSource === undefined, { message: 'computed content sources are not supported by this deployment', path: ['computedSource'] });

const createSpaceRoute = defineRoute('post', '/orgs/{organizationId}/spaces', () => ({
  operationId: 'createSpace',
  tags,
  summary: 'Create a space, at the root or in a collection',
  request: { params: OrgParams, ...jsonBody(CreateSpaceBody) },
  responses: { 201: jsonResponse(SpaceSchema, 'The space') },
}));

const listOrgSpacesRoute = defineRoute('get', '/orgs/{organizationId}/spaces', () => ({
  operationId: 'listSpacesInOrganizationById',
  tokens: { scope: 'space:metadata:read' },
  tags,
  summary: 'List the spaces of an organization visible to the caller (not deleted)',
  request: { params: OrgParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(SpaceSchema, 'Spaces'), 'The spaces') },
}));

const getSpaceRoute = defineRoute('get', '/spaces/{spaceId}', () => ({
  operationId: 'getSpaceById',
  visitors: true,
  siteToken: true,
  tokens: { scope: 'space:metadata:read' },
  tags,
  summary: 'Get a space (a deleted one shows its deletedAt)',
  request: {
    params: SpaceParams,
    query: z.object({ shareKey: z.string().max(200).optional().openapi({ description: 'Resolves published URLs of share-link sites' }) }),
  },
  responses: { 200: jsonResponse(SpaceSchema, 'The space') },
}));

const UpdateSpaceBody = z
  .object({
    title: SpaceTitleSchema,
    emoji: EmojiSchema,
    language: LanguageSchema,
    editMode: EditModeSchema,
    defaultLevel: DefaultLevelSchema,
    mergeRules: SpaceMergeRulesSchema,
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one field to update' });

const updateSpaceRoute = defineRoute('patch', '/spaces/{spaceId}', () => ({
  operationId: 'updateSpaceById',
  tokens: { scope: 'space:metadata:write' },
  tags,
  summary: 'Update a space: title, emoji and language need edit; editMode, defaultLevel and mergeRules need admin',
  request: { params: SpaceParams, ...jsonBody(UpdateSpaceBody) },
  responses: { 200: jsonResponse(SpaceSchema, 'The updated space') },
}));

const deleteSpaceRoute = defineRoute('delete', '/spaces/{spaceId}', () => ({
  operationId: 'deleteSpaceById',
  tags,
  summary: `Move a space to the trash; it is permanently removed after ${SPACE_RETENTION_DAYS} days`,
  request: { params: SpaceParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const duplicateSpaceRoute = defineRoute('post', '/spaces/{spaceId}/duplicate', () => ({
  operationId: 'duplicateSpace',
  tags,
  summary: 'Duplicate a space next to the original',
  request: { params: SpaceParams },
  responses: { 201: jsonResponse(SpaceSchema, 'The new space') },
}));

const restoreSpaceRoute = defineRoute('post', '/spaces/{spaceId}/restore', () => ({
  operationId: 'restoreSpace',
  tags,
  summary: `Restore a space deleted in the last ${SPACE_RETENTION_DAYS} days`,
  request: { params: SpaceParams },
  responses: { 200: jsonResponse(SpaceSchema, 'The restored space') },
}));

const moveSpaceRoute = defineRoute('post', '/spaces/{spaceId}/move', () => ({
  operationId: 'moveSpace',
  tags,
  summary: 'Move a space to another collection (or the root) and/or position',
  request: {
    params: SpaceParams,
    ...jsonBody(MoveBodySchema),
  },
  responses: { 200: jsonResponse(SpaceSchema, 'The moved space') },
}));

const transferSpaceRoute = defineRoute('post', '/spaces/{spaceId}/transfer', () => ({
  operationId: 'transferSpace',
  tags,
  summary: 'Transfer a space to the root of another organization where you can create content',
  request: { params: SpaceParams, ...jsonBody(TransferBodySchema) },
  responses: { 200: jsonResponse(SpaceSchema, 'The transferred space') },
}));


/**
 * Runs the writes and reads the space back with the caller's role in the same batch: one round trip
 * (and one transaction) for the write and the answer.
 */
async function writeAndReload(db: Db, writes: BatchItem[], spaceId: string, userId: string, afterCommit?: (results: unknown[]) => Promise<void>): Promise<SpaceWithRank> {
  const results = (await runBatch(db, [...writes, selectSpaceWithRank(db, spaceId, userId)])) as unknown[];
  await afterCommit?.(results);
  const row = (results[results.length - 1] as SpaceWithRank[])[0];
  if (!row) throw new ApiError(404, 'Space not found');
  return row;
}

export const spacesRouter = createRouter()
  .openapi(createSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const { spaceCount } = await requireCreateIn(db, organizationId, body.parent ?? null, userId);
    assertWithinCap(c.env, 'spacesPerOrganization', spaceCount);
    const parentId = body.parent ?? null;
    const created = newSpaceStatements(db, {
      orgId: organizationId,
      parentId,
      title: body.title ?? '',
      emoji: body.emoji ?? '',
      editMode: body.editMode ?? 'live',
      language: body.language ?? null,
      // After the last sibling, computed inside the insert (no extra round trip).
      position: appendPositionSql(organizationId, parentId),
    });
    const row = await writeAndReload(db, [...created.statements], created.id, userId);
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(listOrgSpacesRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    // The membership and the page in one batch: along the organization's index for members with a role, from
    // the grants for a guest (the other read stops before its first row); a non-member's page is never answered.
    const [membership, orgRows, grantRows] = await db.batch(organizationSpacesPageQueries(db, organizationId, userId, cursor, limit));
    const caller = membership[0];
    if (!caller || caller.rank === null) throw new ApiError(404, 'Organization not found');
    const rows = caller.memberRole === RANK.guest ? grantRows : orgRows;
    const total = await listCount(rows, limit, cursor, caller.rank === RANK.admin ? caller.spaceCount : undefined, () => countOrganizationSpaces(db, organizationId, userId, caller));
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.space.createdAt, r.space.id], (r) => toSpace(r.space, r.rank, urls)), 200);
  })
  .openapi(getSpaceRoute, async (c) => {
    const { spaceId } = c.req.valid('param');
    const { shareKey } = c.req.valid('query');
    const db = c.get('db');
    const actor = c.get('actor');
    // A site token (its spaces checked by token-access) reads the space as long as its site still publishes it.
    const siteToken = actor.kind === 'site' ? actor.token : null;
    const visitor = actor.kind === 'visitor' || siteToken !== null;
    // A visitor (no API token) reads a space only through a published site it may open.
    const reader = siteToken ? { site: siteToken.site } : visitor ? { shareKey } : { userId: requireUser(c) };
    const rows = await spaceWithPlacementQuery(db, spaceId, reader).all();
    const placement = placementOf(rows[0]);
    if (visitor && (!rows[0] || rows[0].space.deletedAt || !placement)) {
      if (!shareKey && !siteToken) throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>" (or the shareKey of a site that publishes this space)');
      throw new ApiError(404, 'Space not found');
    }
    const row = visitor ? rows[0] : checkSpace(rows, RANK.read, true);
    const urls = siteUrlContext(c, siteToken ? undefined : shareKey);
    const space = toSpace(row.space, row.rank, urls);
    if (placement) space.urls.published = placementUrl(placement, urls);
    return c.json(space, 200);
  })
  .openapi(updateSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const needsAdmin = body.editMode !== undefined || body.defaultLevel !== undefined || body.mergeRules !== undefined;
    const { space } = await requireSpace(db, spaceId, userId, needsAdmin ? RANK.admin : RANK.edit);
    if (body.mergeRules) await assertMergeRuleUsers(db, space.orgId, body.mergeRules);
    const row = await writeAndReload(
      db,
      [
        db
          .update(spaces)
          .set({
            ...(body.title !== undefined && { title: body.title }),
            ...(body.emoji !== undefined && { emoji: body.emoji }),
            ...(body.language !== undefined && { language: body.language }),
            ...(body.editMode !== undefined && { editMode: body.editMode }),
            ...(body.defaultLevel !== undefined && { defaultLevel: levelToColumn(body.defaultLevel) }),
            ...(body.mergeRules !== undefined && { mergeRules: body.mergeRules }),
            updatedAt: nowIso(),
          })
          .where(eq(spaces.id, spaceId)),
        refreshSpaceAccessCap(db, spaceId),
      ],
      spaceId,
      userId,
    );
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(deleteSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    const row = await loadSpace(db, spaceId, userId);
    // Absent and invisible look the same: no content, and nothing changes.
    if (!row || row.rank < RANK.read || row.space.deletedAt) return c.body(null, 204);
    if (row.rank < RANK.admin) throw new ApiError(403, 'You do not have permission to delete this space');
    const now = nowIso();
    await runBatch(db, [
      db.update(spaces).set({ deletedAt: now, updatedAt: now }).where(eq(spaces.id, spaceId)),
      ...removeSpacesFromSites(db, row.space.orgId, sql`${spaceId}`),
    ]);
    return c.body(null, 204);
  })
  .openapi(duplicateSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    const { space } = await requireSpace(db, spaceId, userId, RANK.read);
    const { spaceCount } = await requireCreateIn(db, space.orgId, space.parentId, userId);
    assertWithinCap(c.env, 'spacesPerOrganization', spaceCount);
    const position = await resolvePosition(db, space.orgId, space.parentId, null, { after: { type: 'space', space: space.id } });
    const copy = spaceCopyStatements(db, space, position);
    const row = await writeAndReload(db, [...copy.statements], copy.id, userId);
    reindexInBackground(c.env, c.executionCtx, copy.id);
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(restoreSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const db = c.get('db');
    // The space and, read alongside, whether its collection still exists (it comes back at the root if not)
    // and how many spaces its organization holds outside the trash (a restored one counts again).
    const ofSpace = (column: 'parent_id' | 'org_id') => sql`(select s.${sql.raw(column)} from spaces s where s.id = ${spaceId})`;
    const [spaceRows, parentRows, orgRows] = await db.batch([
      selectSpaceWithRank(db, spaceId, userId),
      db.select({ id: collections.id }).from(collections).where(eq(collections.id, ofSpace('parent_id'))),
      db.select({ spaceCount: organizations.spaceCount }).from(organizations).where(eq(organizations.id, ofSpace('org_id'))),
    ]);
    const { space } = checkSpace(spaceRows, RANK.admin, true);
    if (!space.deletedAt) throw badRequest('This space is not deleted');
    if (Date.now() - Date.parse(space.deletedAt) > SPACE_RETENTION_DAYS * DAY_MS) {
      throw badRequest(`Not allowed: only spaces deleted in the last ${SPACE_RETENTION_DAYS} days can be restored`);
    }
    assertWithinCap(c.env, 'spacesPerOrganization', orgRows[0]?.spaceCount ?? 0);
    const parentId = parentRows[0] ? space.parentId : null;
    const position = appendPositionSql(space.orgId, parentId);
    const row = await writeAndReload(
      db,
      [
          db.update(spaces).set({ deletedAt: null, parentId, position, updatedAt: nowIso() }).where(eq(spaces.id, spaceId)),
          refreshSpaceAccessCap(db, spaceId),
      ],
      spaceId,
      userId,
    );
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(moveSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // The space, the parent it may move into and the caller's role in its organization, in one round trip.
    const [spaceRows, parentRows, orgRows] = await db.batch([
      selectSpaceWithRank(db, spaceId, userId),
      collectionQuery(db, typeof body.parent === 'string' ? body.parent : '', userId),
      db.select({ rank: orgRoleSql(spaces.orgId, userId) }).from(spaces).where(eq(spaces.id, spaceId)),
    ]);
    const { space } = checkSpace(spaceRows, RANK.admin);
    const parentId = body.parent === undefined ? space.parentId : body.parent;
    if (parentId !== space.parentId) checkCreateIn(space.orgId, parentId, parentRows[0], orgRows[0]?.rank);
    // At the end of the parent unless a position is given: computed inside the update, no separate read.
    const position = body.position
      ? await resolvePosition(db, space.orgId, parentId, spaceId, body.position)
      : appendPositionSql(space.orgId, parentId, spaceId);
    const row = await writeAndReload(
      db,
      [db.update(spaces).set({ parentId, position, updatedAt: nowIso() }).where(eq(spaces.id, spaceId)), refreshSpaceAccessCap(db, spaceId)],
      spaceId,
      userId,
    );
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(transferSpaceRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId } = c.req.valid('param');
    const { organization } = c.req.valid('json');
    const db = c.get('db');
    const [spaceRows, targetRows] = await db.batch([selectSpaceWithRank(db, spaceId, userId), organizationQuery(db, organization, userId)]);
    const { space } = checkSpace(spaceRows, RANK.admin);
    checkTransferTarget(targetRows, space.orgId, organization, RANK.create);
    assertTransferFits(c.env, targetRows, 1);
    const position = appendPositionSql(organization, null);
    const writes = [db.update(spaces).set({ parentId: null, position }).where(eq(spaces.id, spaceId)), ...transferStatements(db, space.orgId, organization, { spaceIds: sql`select ${spaceId}` })];
    const row = await writeAndReload(db, writes, spaceId, userId, (results) => enqueueEvents(c.env, eventIdsIn(writes, results)));
    return c.json(toSpace(row.space, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  });
