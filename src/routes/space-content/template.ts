import { z } from '@hono/zod-openapi';
import { spaceWriter, throughWriter } from '../../durable-objects/space-writer';
import { auditForWriter } from '../../services/audit/context';
import { createRouter, defineRoute, jsonBody, noContent } from '../../lib/create-router';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import { loadChangeRequest } from '../../services/content/change-requests';
import { runBatch } from '../../db/client';
import { authorizeComputedSources, computedSourceChange, orgRankOfSpaceQuery } from '../../services/content/computed-sources';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';
import { ApplySpaceTemplateSchema, templateChanges } from '../../templates';

/**
 * Applying a space template (src/templates): its pages are added at the end of the top level of the
 * space's main content, or of a change request's content when `changeRequestId` is given. Either
 * needs the `edit` role; main content also needs the space unlocked. The pages are one content batch
 * run by the space's SpaceWriter, like every head move.
 */
const tags = ['Space content'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });

const ApplyTemplateBody = ApplySpaceTemplateSchema.extend({
  changeRequestId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: 'The change request (id or number) to apply the template to; the main content when omitted' }),
});

const applyTemplateRoute = defineRoute('post', '/spaces/{spaceId}/content/template', () => ({
  operationId: 'applyTemplateToSpace',
  costly: 'content-writes',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: 'Populate a space (or one of its change requests) with the pages of a template',
  request: { params: SpaceParams, ...jsonBody(ApplyTemplateBody) },
  responses: { 201: noContent('Template applied to space.') },
}));

export const spaceTemplateRouter = createRouter().openapi(applyTemplateRoute, async (c) => {
  const userId = requireUser(c);
  const { spaceId } = c.req.valid('param');
  const body = c.req.valid('json');
  // The template and its params are checked before anything is read.
  const changes = await templateChanges(body);
  const db = c.get('db');
  const writer = spaceWriter(c.env, spaceId);
  // A template with a computed page (api-reference) also reads the caller's organization role, in the same round trip.
  const orgRank = computedSourceChange(changes) !== undefined ? [orgRankOfSpaceQuery(db, spaceId, userId)] : [];
  const what = `template "${body.id}"`;
  if (body.changeRequestId !== undefined) {
    const loaded = await loadChangeRequest(db, spaceId, body.changeRequestId, userId, RANK.edit, orgRank);
    authorizeComputedSources(c.get('actor'), loaded.more[0], changes, what);
    await throughWriter(writer.applyContent({ spaceId, changeRequestId: loaded.row.cr.id, userId }, changes, auditForWriter(c)), c);
  } else {
    const [spaceRows, rankRows] = (await runBatch(db, [selectSpaceWithRank(db, spaceId, userId), ...orgRank])) as unknown[][];
    checkSpace(spaceRows as SpaceWithRank[], RANK.edit);
    authorizeComputedSources(c.get('actor'), rankRows, changes, what);
    await throughWriter(writer.applyToMain({ spaceId, userId }, changes, auditForWriter(c)), c);
  }
  return c.body(null, 201);
});
