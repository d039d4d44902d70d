import { z } from '@hono/zod-openapi';
import { organizations } from '../../db/schema';
import { reindexInBackground } from '../../durable-objects/space-writer';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import { SiteSpaceSchema } from '../../schemas/site';
import { checkCreateIn, requireCreateIn } from '../../services/collections/collections';
import { appendPositionSql } from '../../services/content/positions';
import { assertWithinCap } from '../../services/limits/caps';
import { orgRankQuery } from '../../services/organizations/organizations';
import { loadSiteAsMember } from '../../services/sites/access';
import { cloneModel, saveModel } from '../../services/sites/model';
import { siteUrlContext, toSiteSpace } from '../../services/sites/present';
import { findSiteSpace, placeDuplicate } from '../../services/sites/structure';
import { selectSpaceWithRank, spaceCopyStatements, type SpaceWithRank } from '../../services/spaces/spaces';
import { SiteParams } from './params';

/**
 * GitBook's duplicateSiteSpace: a full copy of the space a site space publishes (its content shared, not copied:
 * a new space whose first revision has the original's roots), published in the same site next to the original.
 * The caller needs what each half needs: admin of the site, and to read the space and create spaces where it lives.
 */

const tags = ['Site spaces'];
const SiteSpaceParams = SiteParams.extend({ siteSpaceId: IdSchema('siteSpaceId') });

const duplicateRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/duplicate', () => ({
  operationId: 'duplicateSiteSpace',
  tags,
  summary: 'Duplicate the space of a site space into the site (site admins who may create spaces)',
  description:
    "The copy is a new private space next to the original (same collection, same title). In the site it becomes a variant right after the original; when the original is the only variant of its section, it goes into a new section right after that one. This deployment's site structures have no drafts: `draft: true` is refused.",
  request: {
    params: SiteSpaceParams,
    body: {
      required: false,
      content: {
        'application/json': {
          schema: z.object({ draft: z.boolean().optional().openapi({ description: 'Only false: site structures here have no drafts' }) }),
        },
      },
    },
  },
  responses: {
    201: {
      ...jsonResponse(SiteSpaceSchema, 'The new site space'),
      headers: { Location: { description: 'API URL of the new site space', schema: { type: 'string' } } },
    },
  },
}));

export const siteSpaceDuplicateRouter = createRouter().openapi(duplicateRoute, async (c) => {
  const userId = requireUser(c);
  const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
  const body = c.req.valid('json') as { draft?: boolean } | undefined;
  if (body?.draft) throw badRequest('draft: site structures here have no drafts; duplicate without it and hide the site space if needed');
  const db = c.get('db');
  // The site (admins), its spaces with the caller's role on each, and the caller's organization role, together.
  const loaded = await loadSiteAsMember<[{ rank: number | null; spaceCount: number }[]]>(db, organizationId, siteId, userId, RANK.admin, [
    orgRankQuery(db, organizationId, userId, { spaceCount: organizations.spaceCount }),
  ]);
  const original = findSiteSpace(loaded.model, siteSpaceId);
  const source = loaded.model.spaces.get(original.spaceId);
  if (!source || source.rank < RANK.read) throw new ApiError(403, 'You cannot read the space this site space publishes');
  const { space } = source;
  const [org] = loaded.extra[0];
  // At the organization's root the role read above decides; in a collection, the collection's (one more read).
  let spaceCount = org.spaceCount;
  if (space.parentId === null) checkCreateIn(organizationId, null, undefined, org.rank);
  else spaceCount = (await requireCreateIn(db, organizationId, space.parentId, userId)).spaceCount;
  assertWithinCap(c.env, 'spacesPerOrganization', spaceCount);
  const copy = spaceCopyStatements(db, space, appendPositionSql(space.orgId, space.parentId));
  const after = cloneModel(loaded.model);
  // Until the write answers it, the copy reads as the original (its title names the new site space's path).
  after.spaces.set(copy.id, { ...source, space: { ...space, id: copy.id } });
  const placed = placeDuplicate(after, findSiteSpace(after, siteSpaceId), copy.id);
  const [reloaded] = (await saveModel(db, loaded.model, after, [selectSpaceWithRank(db, copy.id, userId)], [...copy.statements])) as [SpaceWithRank[]];
  after.spaces.set(copy.id, { ...reloaded[0], pages: source.pages });
  reindexInBackground(c.env, c.executionCtx, copy.id);
  const siteSpace = toSiteSpace(after, placed.siteSpace, siteUrlContext(c));
  c.header('Location', new URL(`/v1/orgs/${organizationId}/sites/${siteId}/site-spaces/${siteSpace.id}`, c.req.url).toString());
  return c.json(siteSpace, 201);
});
