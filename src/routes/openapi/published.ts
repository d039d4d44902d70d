import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { openapiSpecs, openapiSpecVersions } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter } from '../../lib/create-router';
import { errorBody } from '../../lib/errors';
import { PUBLISHED_SPEC_PATH } from '../../services/openapi/presenter';
import { versionRawKey } from '../../services/openapi/storage';
import { OPENAPI_SPEC_SLUG_PATTERN } from '../../lib/openapi-specs';

/**
 * The published document of a public OpenAPI spec (its `urls.published`):
 * `GET|HEAD <origin>/public/openapi/<organizationId>/<specSlug>` answers the latest version's entry file exactly
 * as submitted or fetched, for anyone: no API token (outside `/v1`, so neither the auth middleware nor the
 * served `/openapi.json` knows it). A private spec, an unknown one, and a spec without a version yet all
 * answer the same 404, so nothing tells them apart.
 *
 * Cached for 5 minutes by anyone (a spec made private stops being served here at once, but copies may
 * live that long), validated by its ETag (the version id): `If-None-Match` answers 304. Readable from any
 * origin (`Access-Control-Allow-Origin: *`: "Try it" consoles fetch it), never sniffed or rendered as a page.
 * One D1 round trip, then one R2 read (none for a 304).
 */

const ORG_ID = /^[A-Za-z0-9_-]{1,128}$/;
const PUBLIC_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
} as const;
const CONTENT_TYPES = { json: 'application/json; charset=utf-8', yaml: 'application/yaml; charset=utf-8' } as const;

type Ctx = Context<AppBindings>;

const notPublished = () =>
  new Response(JSON.stringify(errorBody(404, 'No public OpenAPI spec at this address')), {
    status: 404,
    headers: { ...PUBLIC_HEADERS, 'Content-Type': 'application/json; charset=UTF-8', 'Cache-Control': 'no-store' },
  });

/** True when `If-None-Match` names the tag (or `*`); weak tags compare by their value. */
function matchesTag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

async function publishedSpec(c: Ctx): Promise<Response> {
  const organizationId = c.req.param('organizationId') ?? '';
  const specSlug = c.req.param('specSlug') ?? '';
  if (!ORG_ID.test(organizationId) || specSlug.length > 100 || !OPENAPI_SPEC_SLUG_PATTERN.test(specSlug)) return notPublished();
  const found = await c
    .get('db')
    .select({ specId: openapiSpecs.id, versionId: openapiSpecVersions.id, format: openapiSpecVersions.format })
    .from(openapiSpecs)
    .innerJoin(openapiSpecVersions, eq(openapiSpecVersions.id, openapiSpecs.lastVersionId))
    .where(and(eq(openapiSpecs.orgId, organizationId), eq(openapiSpecs.slug, specSlug), eq(openapiSpecs.visibility, 'public')))
    .get();
  if (!found) return notPublished();
  const etag = `"${found.versionId}"`;
  const headers: Record<string, string> = {
    ...PUBLIC_HEADERS,
    ETag: etag,
    'Cache-Control': 'public, max-age=300',
    'Content-Type': found.format === 'yaml' ? CONTENT_TYPES.yaml : CONTENT_TYPES.json,
  };
  if (matchesTag(c.req.header('If-None-Match'), etag)) return new Response(null, { status: 304, headers });
  const key = versionRawKey(found.specId, found.versionId);
  // HEAD (answered by this handler without its body): the object's size, without reading it.
  if (c.req.method === 'HEAD') {
    const head = await c.env.FILES.head(key);
    if (!head) return notPublished();
    return new Response(null, { status: 200, headers: { ...headers, 'Content-Length': String(head.size) } });
  }
  const object = await c.env.FILES.get(key);
  if (!object) return notPublished();
  return new Response(object.body, { status: 200, headers: { ...headers, 'Content-Length': String(object.size) } });
}

export const openapiPublishedRouter = createRouter().get(`${PUBLISHED_SPEC_PATH}/:organizationId/:specSlug`, publishedSpec);
