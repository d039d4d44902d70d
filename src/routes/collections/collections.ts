import { z } from '@hono/zod-openapi';
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { runBatch } from '../../db/client';
import { enqueueEvents, eventIdsIn } from '../../services/integrations/events';
import { collections, spaces } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK, levelToColumn } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { CollectionDescriptionSchema, CollectionSchema, CollectionTitleSchema, toCollection } from '../../schemas/collection';
import { booleanQuery, IdSchema, listOf, urlContext } from '../../schemas/common';
import { DefaultLevelSchema } from '../../schemas/roles';
import { MoveBodySchema, TransferBodySchema } from '../../schemas/moves';
import { SpaceSchema, toSpace } from '../../schemas/space';
import { orgRoleSql, refreshOrgAccessCaps, spaceRoleSql } from '../../services/access/access';
import {
  type CollectionRow,
  checkCreateIn,
  collectionQuery,
  loadCollection,
  requireCollection,
  requireCreateIn,
  subtreeSql,
} from '../../services/collections/collections';
import { removeSpacesFromSites } from '../../services/sites/spaces';
import { organizationQuery } from '../../services/organizations/organizations';
import { authorize } from '../../services/access/permissions';
import { appendPositionSql, resolvePosition } from '../../services/content/positions';
import { assertTransferFits, checkTransferTarget, transferStatements } from '../../services/collections/transfer';
import { collectionsPageOf, organizationCollectionsPageQueries } from '../../services/collections/organization-collections';

const tags = ['Collections'];
const CollectionParams = z.object({ collectionId: IdSchema('collectionId') });
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });

const getCollectionRoute = defineRoute('get', '/collections/{collectionId}', () => ({
  operationId: 'getCollectionById',
  tags,
  summary: 'Get a collection',
  request: { params: CollectionParams },
  responses: { 200: jsonResponse(CollectionSchema, 'The collection') },
}));

const updateCollectionRoute = defineRoute('patch', '/collections/{collectionId}', () => ({
  operationId: 'updateCollectionById',
  tags,
  summary: 'Update a collection (collection admins)',
  request: {
    params: CollectionParams,
    ...jsonBody(
      z
        .object({ title: CollectionTitleSchema.min(1), description: CollectionDescriptionSchema, defaultLevel: DefaultLevelSchema })
        .partial()
        .refine((b) => Object.keys(b).length > 0, { message: 'give at least one field to update' }),
    ),
  },
  responses: { 200: jsonResponse(CollectionSchema, 'The updated collection') },
}));

const deleteCollectionRoute = defineRoute('delete', '/collections/{collectionId}', () => ({
  operationId: 'deleteCollectionById',
  tags,
  summary: 'Delete a collection, its nested collections, and move their spaces to the trash',
  request: { params: CollectionParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const listCollectionSpacesRoute = defineRoute('get', '/collections/{collectionId}/spaces', () => ({
  operationId: 'listSpacesInCollectionById',
  tags,
  summary: 'List the spaces directly in a collection, in their order',
  request: { params: CollectionParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(SpaceSchema, 'CollectionSpaces'), 'The spaces') },
}));

const moveCollectionRoute = defineRoute('post', '/collections/{collectionId}/move', () => ({
  operationId: 'moveCollection',
  tags,
  summary: 'Move a collection to another parent and/or position',
  request: {
    params: CollectionParams,
    ...jsonBody(MoveBodySchema),
  },
  responses: { 200: jsonResponse(CollectionSchema, 'The moved collection') },
}));

const transferCollectionRoute = defineRoute('post', '/collections/{collectionId}/transfer', () => ({
  operationId: 'transferCollection',
  tags,
  summary: 'Transfer a collection with everything in it to another organization you administer',
  request: { params: CollectionParams, ...jsonBody(TransferBodySchema) },
  responses: { 200: jsonResponse(CollectionSchema, 'The transferred collection') },
}));

const listOrgCollectionsRoute = defineRoute('get', '/orgs/{organizationId}/collections', () => ({
  operationId: 'listCollectionsInOrganizationById',
  tags,
  summary: 'List the collections of an organization visible to the caller',
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      nested: booleanQuery(true, 'Also list nested collections'),
    }),
  },
  responses: { 200: jsonResponse(listOf(CollectionSchema, 'Collections'), 'The collections') },
}));

const createCollectionRoute = defineRoute('post', '/orgs/{organizationId}/collections', () => ({
  operationId: 'createCollection',
  tags,
  summary: 'Create a collection, at the root or in a parent collection',
  request: {
    params: OrgParams,
    ...jsonBody(
      z.object({
        title: CollectionTitleSchema.optional(),
        description: CollectionDescriptionSchema.optional(),
        parent: z.string().min(1).optional(),
        defaultLevel: DefaultLevelSchema.optional(),
      }),
    ),
  },
  responses: { 201: jsonResponse(CollectionSchema, 'The collection') },
}));

/** The answer of a write: the collection re-read in the write's own batch (its last statement). */
function written(rows: { collection: CollectionRow; rank: number }[]) {
  const row = rows[0];
  if (!row) throw new ApiError(404, 'Collection not found');
  return row;
}

/** Budget (DESIGN.md): reads and list pages in 2 D1 round trips with the token lookup, writes in 3. */
export const collectionsRouter = createRouter()
  .openapi(getCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const row = await requireCollection(c.get('db'), collectionId, userId, RANK.read);
    return c.json(toCollection(row.collection, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const { collection } = await requireCollection(db, collectionId, userId, RANK.admin);
    const update = db
      .update(collections)
      .set({
        ...(body.title !== undefined && { title: body.title }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.defaultLevel !== undefined && { defaultLevel: levelToColumn(body.defaultLevel) }),
        updatedAt: nowIso(),
      })
      .where(eq(collections.id, collectionId));
    const reread = collectionQuery(db, collectionId, userId);
    const row =
      body.defaultLevel !== undefined
        ? written((await db.batch([update, ...refreshOrgAccessCaps(db, collection.orgId), reread]))[3])
        : written((await db.batch([update, reread]))[1]);
    return c.json(toCollection(row.collection, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(deleteCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const db = c.get('db');
    const row = await loadCollection(db, collectionId, userId);
    if (!row || row.rank < RANK.read) return c.body(null, 204);
    if (row.rank < RANK.admin) throw new ApiError(403, 'You do not have permission to delete this collection');
    const now = nowIso();
    // One transaction, the tree walked in SQL (no bound parameter per nested collection): the spaces
    // go to the trash at the root, keeping the access level they had inside the collections, then
    // the collections go.
    await runBatch(db, [
      ...removeSpacesFromSites(db, row.collection.orgId, sql`select id from spaces where parent_id in (${subtreeSql(collectionId)})`),
      db
        .update(spaces)
        .set({ deletedAt: sql`coalesce(${spaces.deletedAt}, ${now})`, parentId: null, defaultLevel: sql`coalesce(${spaces.defaultLevel}, ${spaces.accessCap})`, updatedAt: now })
        .where(sql`${spaces.parentId} in (${subtreeSql(collectionId)})`),
      db.delete(collections).where(sql`${collections.id} in (${subtreeSql(collectionId)})`),
    ]);
    return c.body(null, 204);
  })
  .openapi(listCollectionSpacesRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const role = spaceRoleSql(userId);
    const where = and(eq(spaces.parentId, collectionId), isNull(spaces.deletedAt), sql`${role} >= ${RANK.read}`);
    // The collection (to authorize) and the page in one batch: rows of a collection the caller cannot
    // see are read but never answered.
    const [[parent], rows, [{ total }]] = await db.batch([
      collectionQuery(db, collectionId, userId),
      db
        .select({ space: spaces, rank: role })
        .from(spaces)
        .where(and(where, afterCursor(cursor, spaces.position, spaces.id)))
        .orderBy(...keysetOrder(spaces.position, spaces.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(spaces).where(where),
    ]);
    authorize(parent?.rank, RANK.read, 'Collection');
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.space.position, r.space.id], (r) => toSpace(r.space, r.rank, urls)), 200);
  })
  .openapi(moveCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // The collection, the named parent (and whether it lies inside the collection's own subtree) and the
    // caller's role in the organization, in one round trip.
    const namedParent = typeof body.parent === 'string' ? body.parent : '';
    const [collectionRows, parentRows, cycleRows, orgRows] = await db.batch([
      collectionQuery(db, collectionId, userId),
      collectionQuery(db, namedParent, userId),
      db
        .select({ id: collections.id })
        .from(collections)
        .where(and(eq(collections.id, namedParent), inArray(collections.id, sql`(${subtreeSql(collectionId)})`))),
      db.select({ rank: orgRoleSql(collections.orgId, userId) }).from(collections).where(eq(collections.id, collectionId)),
    ]);
    authorize(collectionRows[0]?.rank, RANK.admin, 'Collection');
    const { collection } = collectionRows[0];
    const parentId = body.parent === undefined ? collection.parentId : body.parent;
    // A new parent must not be the collection or one of its descendants, and must let the caller create
    // in it; staying in the same parent checks nothing more (the tree cannot gain a cycle).
    if (parentId !== collection.parentId) {
      if (cycleRows.length > 0) throw badRequest('parent: a collection cannot be moved into itself or one of its nested collections');
      checkCreateIn(collection.orgId, parentId, parentRows[0], orgRows[0]?.rank);
    }
    // At the end of the parent unless a position is given: computed inside the update, no separate read.
    const position = body.position
      ? await resolvePosition(db, collection.orgId, parentId, collectionId, body.position)
      : appendPositionSql(collection.orgId, parentId);
    const [, , , moved] = await db.batch([
      db.update(collections).set({ parentId, position, updatedAt: nowIso() }).where(eq(collections.id, collectionId)),
      ...refreshOrgAccessCaps(db, collection.orgId),
      collectionQuery(db, collectionId, userId),
    ]);
    const row = written(moved);
    return c.json(toCollection(row.collection, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(transferCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { collectionId } = c.req.valid('param');
    const { organization } = c.req.valid('json');
    const db = c.get('db');
    // With the collection and the target, the number of spaces outside the trash the tree brings (the target's cap).
    const [collectionRows, targetRows, [moving]] = await db.batch([
      collectionQuery(db, collectionId, userId),
      organizationQuery(db, organization, userId),
      db.select({ spaces: count() }).from(spaces).where(and(sql`${spaces.parentId} in (${subtreeSql(collectionId)})`, isNull(spaces.deletedAt))),
    ]);
    authorize(collectionRows[0]?.rank, RANK.admin, 'Collection');
    const { collection } = collectionRows[0];
    checkTransferTarget(targetRows, collection.orgId, organization, RANK.admin);
    assertTransferFits(c.env, targetRows, moving.spaces);
    // The tree is walked in SQL inside the statements: no read beforehand, no bound parameter per item.
    const batch = [
      db.update(collections).set({ parentId: null, position: appendPositionSql(organization, null) }).where(eq(collections.id, collectionId)),
      ...transferStatements(db, collection.orgId, organization, {
        collectionIds: subtreeSql(collectionId),
        spaceIds: sql`select s.id from spaces s where s.parent_id in (${subtreeSql(collectionId)})`,
      }),
      collectionQuery(db, collectionId, userId),
    ];
    const results: unknown[] = await runBatch(db, batch);
    await enqueueEvents(c.env, eventIdsIn(batch, results));
    const row = written(results[results.length - 1] as { collection: CollectionRow; rank: number }[]);
    return c.json(toCollection(row.collection, row.rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(listOrgCollectionsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    // Membership (to authorize), the page and its count in one batch: the page along the organization's index for
    // a member with a role, from the grants for anyone else; a non-member's page is never answered.
    const page = collectionsPageOf(await db.batch(organizationCollectionsPageQueries(db, organizationId, userId, { cursor, limit, nested: query.nested })));
    if (!page) throw new ApiError(404, 'Organization not found');
    const { rows, total } = page;
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.collection.createdAt, r.collection.id], (r) => toCollection(r.collection, r.rank, urls)), 200);
  })
  .openapi(createCollectionRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    await requireCreateIn(db, organizationId, body.parent ?? null, userId);
    const parentId = body.parent ?? null;
    const now = nowIso();
    const id = newId();
    const [, , , created] = await db.batch([
      db.insert(collections).values({
        id,
        orgId: organizationId,
        parentId,
        title: body.title || 'Untitled collection',
        description: body.description ?? null,
        defaultLevel: body.defaultLevel === undefined ? null : levelToColumn(body.defaultLevel),
        // After the last sibling, computed inside the insert: no separate read.
        position: appendPositionSql(organizationId, parentId),
        createdAt: now,
        updatedAt: now,
      }),
      ...refreshOrgAccessCaps(db, organizationId),
      collectionQuery(db, id, userId),
    ]);
    const row = written(created);
    return c.json(toCollection(row.collection, row.rank, urlContext(c.req.url, c.env.APP_URL)), 201);
  });
