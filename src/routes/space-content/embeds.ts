import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import { unfurl } from '../../services/embeds/unfurl';
import { siteTokenOf, siteTokenSpaceQuery } from '../../services/sites/site-token';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../../services/spaces/spaces';

/** Embeds of a space's content (GitBook's getEmbedByUrlInSpace): what an embed block of a URL shows. */

const EmbedSchema = z
  .union([
    z.object({ type: z.literal('link'), title: z.string(), site: z.string(), icon: z.string().optional() }),
    z.object({ type: z.literal('rich'), title: z.string(), site: z.string(), icon: z.string().optional(), html: z.string() }),
  ])
  .openapi('Embed');

const getEmbedRoute = defineRoute('get', '/spaces/{spaceId}/embed', () => ({
  operationId: 'getEmbedByUrlInSpace',
  tokens: { scope: 'space:content:read' },
  siteToken: true,
  tags: ['Space content'],
  summary: 'What an embed of a URL shows in the space: a link with its title and site, or rich HTML from its oEmbed endpoint',
  description:
    "Members read it with the `read` role on the space; a site token (resolvePublishedContentByUrl) while its site publishes the space. The URL is fetched through the deployment's guarded outbound fetch: private, loopback and link-local addresses, other schemes and credentials are refused (400) without a request. A page that cannot be read is a link to itself.",
  request: {
    params: z.object({ spaceId: IdSchema('spaceId') }),
    query: z.object({ url: z.string().min(1).max(2048).openapi({ description: 'URL to resolve' }) }),
  },
  responses: { 200: jsonResponse(EmbedSchema, 'The embed') },
}));

export const embedsRouter = createRouter().openapi(getEmbedRoute, async (c) => {
  const { spaceId } = c.req.valid('param');
  const db = c.get('db');
  const siteToken = siteTokenOf(c);
  // The space is checked before anything leaves the Worker: one who cannot read it makes no request.
  if (siteToken) {
    if ((await siteTokenSpaceQuery(db, siteToken, spaceId).all()).length === 0) throw new ApiError(404, 'Space not found');
  } else {
    checkSpace((await selectSpaceWithRank(db, spaceId, requireUser(c)).all()) as SpaceWithRank[], RANK.read, true);
  }
  return c.json(await unfurl(c.env, c.req.valid('query').url), 200);
});
