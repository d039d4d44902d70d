import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { requireUser } from '../../middleware/auth';
import { SiteSectionGroupSchema, SiteSectionSchema, SiteSpaceSchema } from '../../schemas/site';
import { changeSite } from '../../services/sites/access';
import { siteUrlContext, toSiteSection, toSiteSectionGroup, toSiteSpace } from '../../services/sites/present';
import { sortStructureItem } from '../../services/sites/structure';
import { SiteParams } from './params';

/**
 * GitBook's sortSiteStructure: one item of a site's structure (site space, section or section group) moved
 * before or after a sibling of its level, or to its end. Admins of the site, like every structure change.
 */

const tags = ['Docs sites'];
const PointerSchema = z
  .object({
    type: z.enum(['site-space', 'site-section', 'site-section-group', 'site-external-link']),
    id: z.string().min(1).max(128),
  })
  .openapi('SiteStructureItemPointer');

const sortRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/structure/sort', () => ({
  operationId: 'sortSiteStructure',
  tags,
  summary: 'Move a site space, section or section group among its siblings (admins)',
  description:
    'Sorting changes the order among siblings only (a section moves among the sections and groups of its parent; a site space among the site spaces of its section). An unknown item: 404; an anchor that is not a sibling of the item: 400. `Prefer: return=minimal` answers 204.',
  request: {
    params: SiteParams,
    headers: z.object({
      // Any other preference (RFC 7240 lets clients send several) is ignored, not refused.
      prefer: z.string().max(1024).optional().openapi({ description: 'return=minimal: 204 without the item; return=representation (default): the item' }),
    }),
    ...jsonBody(
      z.object({
        item: PointerSchema,
        position: z
          .object({ before: PointerSchema.optional(), after: PointerSchema.optional() })
          .refine((p) => !(p.before && p.after), { message: 'give either before or after, not both' })
          .openapi({ description: 'Before or after a sibling; neither: to the end' }),
      }),
    ),
  },
  responses: {
    200: jsonResponse(z.union([SiteSpaceSchema, SiteSectionSchema, SiteSectionGroupSchema]).openapi('SiteStructureItem'), 'The item, moved'),
    204: { description: 'Moved (Prefer: return=minimal)', headers: { 'Preference-Applied': { schema: { type: 'string', enum: ['return=minimal'] } } } },
  },
}));

export const siteStructureSortRouter = createRouter().openapi(sortRoute, async (c) => {
  const userId = requireUser(c);
  const { organizationId, siteId } = c.req.valid('param');
  const { item, position } = c.req.valid('json');
  const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => sortStructureItem(after, item, position));
  if (/(^|[\s,;])return=minimal\b/.test(c.req.valid('header').prefer ?? '')) {
    c.header('Preference-Applied', 'return=minimal');
    return c.body(null, 204);
  }
  const urls = siteUrlContext(c);
  if (result.kind === 'site-space') return c.json(toSiteSpace(model, result.row, urls), 200);
  if (result.kind === 'site-section') return c.json(toSiteSection(model, result.row, urls), 200);
  return c.json(toSiteSectionGroup(model, result.row, urls), 200);
});
