import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { requireUser } from '../../middleware/auth';
import { IdSchema, TimestampSchema, urlContext } from '../../schemas/common';
import { UserSchema } from '../../schemas/user';
import { changeRequestContributors } from '../../services/content/contributors';

/** Who contributed to a change request (GitBook's getContributorsByChangeRequestId). Reading needs the `read` role on the space. */
const ContributorSchema = z
  .object({
    user: UserSchema,
    count: z.number().int().openapi({ description: 'Edits (content batches) of an editor; comments and replies of a commenter' }),
    updatedAt: TimestampSchema,
    actionType: z.enum(['edit', 'comment']).openapi({ description: 'edit: edited its content; comment: only commented' }),
  })
  .openapi('ChangeRequestUserContributor');

const listContributorsRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', () => ({
  operationId: 'getContributorsByChangeRequestId',
  tokens: { scope: 'space:content:read' },
  tags: ['Change requests'],
  summary: 'Who edited the change request, and who commented on it, most active first',
  request: {
    params: z.object({
      spaceId: IdSchema('spaceId'),
      changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
    }),
  },
  responses: { 200: jsonResponse(z.object({ items: z.array(ContributorSchema), count: z.number().int() }).openapi('ChangeRequestContributors'), 'The contributors') },
}));

export const contributorsRouter = createRouter().openapi(listContributorsRoute, async (c) => {
  const { spaceId, changeRequestId } = c.req.valid('param');
  return c.json(await changeRequestContributors(c.get('db'), urlContext(c.req.url, c.env.APP_URL), spaceId, changeRequestId, requireUser(c)), 200);
});
