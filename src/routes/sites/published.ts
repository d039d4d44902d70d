import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { sha256Hex } from '../../lib/ids';
import { SiteCustomizationSettingsSchema } from '../../schemas/site-customization';
import { SiteSchema, SiteStructureSchema } from '../../schemas/site';
import { apiOriginOf } from '../../schemas/integration';
import { SiteIntegrationScriptSchema } from '../../schemas/site-integration-script';
import { siteScriptRows, siteScriptsQuery, toSiteIntegrationScript, type SiteIntegrationScript } from '../../services/integrations/site-scripts';
import { loadSiteAsReader, visitorCredentials, type SiteReader } from '../../services/sites/access';
import type { SiteModel } from '../../services/sites/model';
import { modelSite, publishedFilter, siteUrlContext, toSiteStructure } from '../../services/sites/present';
import { settingsForReader, siteSettings, siteSpaceSettings } from '../../services/sites/settings';
import { SiteParams, VisitorQuery } from './params';

const PublishedContentSiteSchema = z
  .object({
    object: z.literal('published-content-site'),
    site: SiteSchema,
    structure: SiteStructureSchema,
    customizations: z.object({
      site: SiteCustomizationSettingsSchema,
      siteSpaces: z.record(z.string(), SiteCustomizationSettingsSchema).openapi({ description: 'By site space id: its override merged over the site' }),
    }),
    scripts: z
      .array(SiteIntegrationScriptSchema)
      .openapi({ description: 'Scripts of the integrations installed on the site with `site:script:inject` approved (listSiteIntegrationScripts)' }),
  })
  .openapi('PublishedContentSite');

const getPublishedSiteRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/published', () => ({
  operationId: 'getPublishedContentSite',
  visitors: true,
  siteToken: true,
  tags: ['Docs sites'],
  summary: 'What a visitor sees of a site: its structure and customization (visitors too, with the site\'s credentials)',
  description:
    'Without an API token, a published site answers to its audience: anyone for public and unlisted sites, the `shareKey` of an active share link for share-link sites, a JWT signed with the publishing-auth key (`X-Visitor-Token` header or `jwt_token` query) for visitor-auth sites; or a site token of this site (the `apiToken` of resolvePublishedContentByUrl), reading as the visitor it was issued to. Anything else reads as an unknown site. Members read any site of their organization (its preview). Sections and site spaces whose condition is false for the visitor\'s claims are left out, and so are hidden site spaces.',
  request: {
    params: SiteParams,
    query: VisitorQuery,
  },
  responses: { 200: jsonResponse(PublishedContentSiteSchema, 'The published site'), 304: { description: 'Unchanged since the ETag in If-None-Match' } },
}));

/** The published view: what the reader may see of the structure, with each visible site space's customization. */
function publishedView(model: SiteModel, reader: SiteReader, urls: ReturnType<typeof siteUrlContext>, scripts: SiteIntegrationScript[]) {
  const structure = toSiteStructure(model, urls, publishedFilter(reader, true));
  const visible = structure.type === 'siteSpaces' ? structure.structure : collectSiteSpaces(structure.structure);
  const rows = new Map(model.siteSpaces.map((row) => [row.id, row]));
  const site = siteSettings(model.site);
  return {
    object: 'published-content-site' as const,
    site: modelSite(model, reader.kind === 'member' ? reader.rank : 0, urls),
    structure,
    customizations: {
      site: settingsForReader(site, reader.claims),
      siteSpaces: Object.fromEntries(visible.map((s) => [s.id, settingsForReader(siteSpaceSettings(model.site, rows.get(s.id)!, site), reader.claims)])),
    },
    scripts,
  };
}

type Item = ReturnType<typeof toSiteStructure>['structure'][number];
function collectSiteSpaces(items: Item[]): { id: string }[] {
  return items.flatMap((item) => {
    if (item.object === 'site-space') return [item];
    if (item.object === 'site-section') return item.siteSpaces;
    return collectSiteSpaces(item.children as Item[]);
  });
}

export const publishedSiteRouter = createRouter().openapi(getPublishedSiteRoute, async (c) => {
  const { organizationId, siteId } = c.req.valid('param');
  const { shareKey: key } = c.req.valid('query');
  const db = c.get('db');
  const { model, reader, shareKey, extra } = await loadSiteAsReader<[unknown]>(c, organizationId, siteId, visitorCredentials(c, key), [siteScriptsQuery(db, siteId)]);
  const urls = siteUrlContext(c, shareKey);
  // Only a published site has scripts (`siteScriptsQuery`): a member's preview of an unpublished one shows none.
  const scripts = siteScriptRows(extra[0]).map((row) => toSiteIntegrationScript(apiOriginOf(urls), row));
  const body = publishedView(model, reader, urls, scripts);
  const text = JSON.stringify(body);
  const etag = `"${(await sha256Hex(text)).slice(0, 32)}"`;
  // A site token's answer is built on the root it was resolved at (its `siteUrl`, the caller's choice): never shared.
  const publicSite =
    reader.kind === 'visitor' &&
    c.get('actor').kind !== 'site' &&
    Object.keys(reader.claims).length === 0 &&
    (model.site.visibility === 'public' || model.site.visibility === 'unlisted');
  // Anyone's copy of a public site is the same; everything else depends on who asks.
  c.header('Cache-Control', publicSite ? 'public, max-age=60' : 'private, no-cache');
  c.header('ETag', etag);
  c.header('Vary', 'Authorization, X-Visitor-Token');
  const match = c.req.header('If-None-Match');
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return c.body(null, 304);
  // The text already hashed for the ETag is the body: not serialized twice.
  return c.body(text, 200, { 'Content-Type': 'application/json' });
});
