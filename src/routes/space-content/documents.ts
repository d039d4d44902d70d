import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext } from '../../schemas/common';
import { JSONDocumentSchema, ComputedDocumentSourceSchema, ComputedRevisionSourceSchema, RevisionFileSchema, RevisionPageSchema, RevisionReusableContentSchema } from '../../schemas/revision';
import { documentResponse } from '../../services/content/documents';
import { computedDocument, computedRevision } from '../../services/openapi/computed-content';
import type { ComputedDocumentSource } from '../../services/openapi/computed-pages';
import { siteTokenOf } from '../../services/sites/site-token';

/**
 * Documents of a space by id (GitBook's getDocumentById: the `documentId` of a page or reusable content) and what a
 * computed source generates (getComputedDocument, getComputedRevision). Reading needs the `read` role on the space;
 * a site token reads the documents of its site's published content only (services/content/documents).
 */
const tags = ['Space content'];
const SpaceParams = z.object({ spaceId: IdSchema('spaceId') });

const SchemaQuery = z.object({
  schema: z.enum(['current', 'next']).optional().openapi({ description: "Version of the document schema: both read as the one this deployment stores (GitBook's current)" }),
});

const getDocumentRoute = defineRoute('get', '/spaces/{spaceId}/documents/{documentId}', () => ({
  operationId: 'getDocumentById',
  tokens: { scope: 'space:content:read' },
  siteToken: true,
  tags,
  summary: "A document of the space by id: the body of a page or reusable content (their `documentId`)",
  description:
    "A document the space's content refers to (any of its revisions, change requests included); the same body in another space is not this space's. A site token reads the documents of the published content it may see.",
  request: { params: SpaceParams.extend({ documentId: IdSchema('documentId') }), query: SchemaQuery },
  responses: { 200: jsonResponse(JSONDocumentSchema, 'The document') },
}));

const Seed = z.string().min(1).max(128).openapi({ description: 'Seed of the ids of what is generated: the same seed gives the same ids' });

const getComputedDocumentRoute = defineRoute('post', '/spaces/{spaceId}/content/computed/document', () => ({
  operationId: 'getComputedDocument',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'The document a computed source generates (an OpenAPI spec of the organization: its description, a tag, an operation, its models)',
  description:
    "Needs the `read` role on the space and, as it shows the organization's spec, membership of the organization (or an installation token with `openapi:read`). Sources other than `builtin:openapi` are a 400: this deployment computes no other.",
  request: { params: SpaceParams, query: SchemaQuery, ...jsonBody(z.object({ source: ComputedDocumentSourceSchema, seed: Seed })) },
  responses: { 200: jsonResponse(JSONDocumentSchema, 'The generated document') },
}));

const getComputedRevisionRoute = defineRoute('post', '/spaces/{spaceId}/content/computed/revision', () => ({
  operationId: 'getComputedRevision',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: 'The pages a computed source generates (an OpenAPI spec of the organization: a page per tag or operation, and its models)',
  description: 'Access as getComputedDocument. OpenAPI sources generate pages only: `files` and `reusableContents` are empty.',
  request: { params: SpaceParams, ...jsonBody(z.object({ source: ComputedRevisionSourceSchema, seed: Seed })) },
  responses: {
    200: jsonResponse(
      z.object({ pages: z.array(RevisionPageSchema), files: z.array(RevisionFileSchema), reusableContents: z.array(RevisionReusableContentSchema) }),
      'The generated pages',
    ),
  },
}));

export const documentsRouter = createRouter()
  .openapi(getDocumentRoute, async (c) => {
    const { spaceId, documentId } = c.req.valid('param');
    const siteToken = siteTokenOf(c);
    const request = {
      db: c.get('db'),
      env: c.env,
      url: c.req.url,
      userId: siteToken ? '' : requireUser(c),
      source: { spaceId, ...(siteToken && { published: siteToken }) },
    };
    return c.json(await documentResponse(request, documentId), 200);
  })
  .openapi(getComputedDocumentRoute, async (c) => {
    const { source, seed } = c.req.valid('json');
    const request = { db: c.get('db'), actor: c.get('actor'), userId: requireUser(c), spaceId: c.req.valid('param').spaceId, seed };
    return c.json(await computedDocument(request, source as ComputedDocumentSource), 200);
  })
  .openapi(getComputedRevisionRoute, async (c) => {
    const { source, seed } = c.req.valid('json');
    const request = { db: c.get('db'), actor: c.get('actor'), userId: requireUser(c), spaceId: c.req.valid('param').spaceId, seed, urls: urlContext(c.req.url, c.env.APP_URL) };
    return c.json(await computedRevision(request, source), 200);
  });
