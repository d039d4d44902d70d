import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { jsonText } from '../../lib/json-text';
import { requireUser } from '../../middleware/auth';
import { urlContext } from '../../schemas/common';
import { unfurl } from '../../services/embeds/unfurl';
import { resolvePublishedUrl } from '../../services/sites/resolve-url';
import { contentByUrlJson } from '../../services/spaces/content-by-url';

const tags = ['URLs'];

const ResolveBody = z
  .object({
    url: z.string().max(2048).url().openapi({ description: 'The published URL to resolve', example: 'https://docs.example.com/guides/install' }),
    redirectOnError: z.boolean().default(false).openapi({ description: "With an invalid visitor token on a visitor-auth site: answer the redirect to the site's fallback URL instead of a 401" }),
    visitor: z
      .object({
        type: z.enum(['human', 'agent']).optional().openapi({ description: 'Human unless told' }),
        jwtToken: z.string().max(8192).optional().openapi({ description: "A visitor-auth token signed with the site's key: its claims go into the site token" }),
        unsignedClaims: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Accepted for GitBook compatibility and not used: only signed claims reach content conditions' }),
      })
      .optional()
      .openapi('SiteVisitorPayload'),
  })
  .openapi('ResolvePublishedContentByUrlBody');

const PublishedSiteContentSchema = z
  .object({
    site: z.string(),
    siteSection: z.string().optional(),
    siteSpace: z.string(),
    space: z.string(),
    organization: z.string(),
    pathname: z.string().openapi({ description: "The page path below `basePath` ('' for the site space's first page); not looked up" }),
    basePath: z.string().openapi({ description: "The URL path of the site space's root, with its trailing slash" }),
    siteBasePath: z.string().openapi({ description: "The URL path of the site's root (its share key included), with its trailing slash" }),
    canonicalUrl: z.string(),
    complete: z.boolean().openapi({ description: 'False when one more path segment could still name a section or site space' }),
    apiToken: z.string().openapi({ description: "A site token (a JWT, valid an hour and never beyond the visitor's token): the bearer of the renderer's reads of this site's published content" }),
    shareKey: z.string().optional(),
  })
  .openapi('PublishedSiteContent');

const PublishedContentRedirectSchema = z
  .union([
    z.object({ target: z.enum(['application', 'content']), redirect: z.string() }),
    z.object({ target: z.literal('external'), site: z.string(), redirect: z.string() }),
  ])
  .openapi('PublishedContentRedirect');

const resolveRoute = defineRoute('post', '/urls/published', () => ({
  operationId: 'resolvePublishedContentByUrl',
  visitors: true,
  tags,
  summary: 'Resolve a URL of a published site to its site, site space and page path, with a site token',
  description:
    "What a site renderer asks first: the site a URL shows (an organization's hostname or custom hostname, or `/s/<siteId>` on the API's host), its section, site space and page path, and `apiToken`, a site token that reads that site's published content as this visitor (getPublishedContentSite, getSpaceById and the other operations that list the `siteToken` scheme). A share-link site's key is the first path segment (or `?share=` in the URL); a visitor-auth site's token is `visitor.jwtToken`, without which the answer is the redirect to its fallback URL. Unknown, unpublished and refused URLs are 404. No token is needed.",
  request: jsonBody(ResolveBody),
  responses: { 200: jsonResponse(z.union([PublishedSiteContentSchema, PublishedContentRedirectSchema]).openapi('PublishedSiteContentLookup'), 'The content, or where to go instead') },
}));

const getPublishedRoute = defineRoute('get', '/urls/published', () => ({
  operationId: 'getPublishedContentByUrl',
  visitors: true,
  tags,
  summary: 'Resolve a URL of a published site (GitBook\'s older form of resolvePublishedContentByUrl, with query parameters)',
  description: 'The same answer as `POST /urls/published`, the visitor-auth token given as `visitorAuthToken`. No token is needed.',
  request: {
    query: z.object({
      url: z.string().max(2048).url().openapi({ description: 'The published URL to resolve' }),
      visitorAuthToken: z.string().max(8192).optional().openapi({ description: "A visitor-auth token signed with the site's key" }),
      redirectOnError: z.enum(['true', 'false']).optional().openapi({ type: 'boolean', description: "With an invalid visitor token: answer the redirect to the site's fallback URL instead of a 401" }),
    }),
  },
  responses: { 200: jsonResponse(z.union([PublishedSiteContentSchema, PublishedContentRedirectSchema]).openapi('PublishedSiteContentLookup'), 'The content, or where to go instead') },
}));

const UrlQuery = z.object({ url: z.string().min(1).max(2048).openapi({ description: 'URL to resolve' }) });

const getEmbedRoute = defineRoute('get', '/urls/embed', () => ({
  operationId: 'getEmbedByUrl',
  tokens: { scope: 'installation', integration: true },
  tags,
  summary: 'What an embed of a URL shows: a link with its title and site, or rich HTML from its oEmbed endpoint',
  description:
    "The URL is fetched through the deployment's guarded outbound fetch: private, loopback and link-local addresses, other schemes and credentials are refused (400) without a request. A page that cannot be read is a link to itself. Any API token may ask.",
  request: { query: UrlQuery },
  responses: {
    200: jsonResponse(
      z.union([
        z.object({ type: z.literal('link'), title: z.string(), site: z.string(), icon: z.string().optional() }),
        z.object({ type: z.literal('rich'), title: z.string(), site: z.string(), icon: z.string().optional(), html: z.string() }),
      ]),
      'The embed',
    ),
  },
}));

const getContentRoute = defineRoute('get', '/urls/content', () => ({
  operationId: 'getContentByUrl',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'Resolve an app URL of this deployment to its collection, or its space with the change request and page it names',
  description:
    "The `urls.app` of collections, spaces, change requests and pages (`/o/<org>/c/<collection>`, `/o/<org>/s/<space>[/~/changes/<cr>][/<page path>]`): resolved by their path, nothing is fetched. What the caller cannot read, and URLs of other hosts, are 404s.",
  request: { query: UrlQuery },
  responses: {
    200: jsonResponse(
      z.union([
        z.object({ collection: z.record(z.string(), z.unknown()) }),
        z.object({ space: z.record(z.string(), z.unknown()), changeRequest: z.record(z.string(), z.unknown()).optional(), page: z.record(z.string(), z.unknown()).optional() }),
      ]),
      'What the URL shows',
    ),
  },
}));

export const urlsRouter = createRouter()
  .openapi(resolveRoute, async (c) => {
    const answer = await resolvePublishedUrl(c, c.req.valid('json'));
    // The answer holds a token for this visitor: nobody keeps it.
    c.header('Cache-Control', 'private, no-store');
    return c.json(answer, 200);
  })
  .openapi(getPublishedRoute, async (c) => {
    const { url, visitorAuthToken, redirectOnError } = c.req.valid('query');
    const answer = await resolvePublishedUrl(c, { url, redirectOnError: redirectOnError === 'true', ...(visitorAuthToken ? { visitor: { jwtToken: visitorAuthToken } } : {}) });
    c.header('Cache-Control', 'private, no-store');
    return c.json(answer, 200);
  })
  .openapi(getEmbedRoute, async (c) => {
    requireUser(c);
    return c.json(await unfurl(c.env, c.req.valid('query').url), 200);
  })
  .openapi(getContentRoute, async (c) => {
    const urls = urlContext(c.req.url, c.env.APP_URL);
    // Its JSON text, streamed when the page it shows has child pages (services/spaces/content-by-url).
    return jsonText(c, await contentByUrlJson(c.get('db'), urls, requireUser(c), c.req.valid('query').url));
  });
