import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
import { runBatch } from '../../db/client';
import { openapiSpecs, openapiSpecVersions } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, beforeCursor, pageParams, textCursor, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { IdSchema, listOf } from '../../schemas/common';
import { OpenAPISpecContentSchema, OpenAPISpecRawContentSchema, OpenAPISpecVersionSchema, type OpenAPISpecContent } from '../../schemas/openapi-spec';
import { specContentLinks, specUrlContext, toSpecVersion, type SpecRow, type SpecVersionSummary } from '../../services/openapi/presenter';
import { loadSpecs, specBySlugQuery, specComputedInSpacesSql, specIdOf, specNotFound } from '../../services/openapi/records';
import { siteTokenOf, siteTokenSpaceQuery, type SiteTokenPayload } from '../../services/sites/site-token';
import { filesystemFromBundle } from '../../services/openapi/filesystem';
import { versionFilesystemKey, versionListKey, versionRawKey } from '../../services/openapi/storage';
import { SpecParams } from './params';

const tags = ['OpenAPI spec versions'];
const VersionParams = SpecParams.extend({ versionId: IdSchema('versionId') });

const listVersionsRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions', () => ({
  operationId: 'listOpenAPISpecVersions',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: "List an OpenAPI spec's versions, newest first",
  request: { params: SpecParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(OpenAPISpecVersionSchema, 'OpenAPISpecVersions'), 'The versions, newest first') },
}));

// The `latest` routes are registered before the `{versionId}` ones, so that `latest` is never taken for an id.
const getLatestRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest', () => ({
  operationId: 'getLatestOpenAPISpecVersion',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: 'Get the latest version of an OpenAPI spec',
  request: { params: SpecParams },
  responses: { 200: jsonResponse(OpenAPISpecVersionSchema, 'The latest version') },
}));

const getLatestContentRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', () => ({
  operationId: 'getLatestOpenAPISpecVersionContent',
  tokens: { scope: 'openapi:read' },
  siteToken: true,
  tags,
  summary: 'Get the content of the latest version of an OpenAPI spec',
  description:
    "Members read every spec of the organization. A site token (resolvePublishedContentByUrl) reads, while its site is published, the organization's public specs and every spec a page of the site is computed from (an API reference), whatever its visibility: what GitBook's renderer fetches for an API reference; any other spec is a 404 to it.",
  request: { params: SpecParams },
  responses: { 200: jsonResponse(OpenAPISpecContentSchema, "The latest version's content") },
}));

const getLatestRawRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content/raw', () => ({
  operationId: 'getLatestOpenAPISpecVersionContentRaw',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: "Get the latest version's entry document exactly as it was submitted or fetched",
  request: { params: SpecParams },
  responses: { 200: jsonResponse(OpenAPISpecRawContentSchema, "The latest version's raw text") },
}));

const getVersionRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', () => ({
  operationId: 'getOpenAPISpecVersionById',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: 'Get a version of an OpenAPI spec',
  request: { params: VersionParams },
  responses: { 200: jsonResponse(OpenAPISpecVersionSchema, 'The version') },
}));

const getVersionContentRoute = defineRoute('get', '/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', () => ({
  operationId: 'getOpenAPISpecVersionContentById',
  tokens: { scope: 'openapi:read' },
  tags,
  summary: 'Get the content of a version of an OpenAPI spec',
  request: { params: VersionParams },
  responses: { 200: jsonResponse(OpenAPISpecContentSchema, "The version's content") },
}));

type Ctx = Context<AppBindings>;

/** The columns the version routes read: a version's outline (up to 512 KiB) is for computed pages only. */
const summaryColumns = {
  id: openapiSpecVersions.id,
  createdAt: openapiSpecVersions.createdAt,
  url: openapiSpecVersions.url,
  format: openapiSpecVersions.format,
  entry: openapiSpecVersions.entry,
} as const;

/**
 * A spec of the organization and one of its versions (`latest`: the spec's last version), read with the
 * caller's access: one round trip. 404 when the spec, or that version of it, does not exist.
 */
async function loadVersion(
  c: Ctx,
  { organizationId, specSlug }: { organizationId: string; specSlug: string },
  which: { latest: true } | { versionId: string },
): Promise<{ spec: SpecRow; version: SpecVersionSummary }> {
  const db = c.get('db');
  const match =
    'latest' in which
      ? sql`${openapiSpecVersions.id} = (select s.last_version_id from openapi_specs s where s.org_id = ${organizationId} and s.slug = ${specSlug})`
      : and(eq(openapiSpecVersions.id, which.versionId), sql`${openapiSpecVersions.specId} = ${specIdOf(organizationId, specSlug)}`);
  const {
    spec,
    extra: [[version]],
  } = await loadSpecs<[SpecVersionSummary[]]>(c, organizationId, specSlug, RANK.read, [db.select(summaryColumns).from(openapiSpecVersions).where(match).limit(1)]);
  if (!spec) throw specNotFound();
  if (!version) {
    throw 'latest' in which
      ? new ApiError(404, `The OpenAPI spec "${spec.slug}" has no version yet (processing state: ${spec.processingState})`)
      : new ApiError(404, `No matching version of the OpenAPI spec "${spec.slug}"`);
  }
  return { spec, version };
}

/**
 * A site token's read of a spec's latest version: a spec of its organization (the middleware checked
 * `organizationId`) that is public, or that a page its site publishes is computed from (an API reference renders
 * its spec whatever the spec's visibility: `specComputedInSpacesSql`), and only while its site is still published.
 * One round trip; anything else is the 404 of a spec that does not exist, as the public spec's own address answers
 * (routes/openapi/published).
 */
async function loadPublicVersion(
  c: Ctx,
  token: SiteTokenPayload,
  { organizationId, specSlug }: { organizationId: string; specSlug: string },
): Promise<{ spec: SpecRow; version: SpecVersionSummary }> {
  const db = c.get('db');
  const readable = sql`(s.visibility = 'public' or ${specComputedInSpacesSql(token.spaces, specSlug)})`;
  const [site, [spec], [version]] = (await runBatch(db, [
    siteTokenSpaceQuery(db, token, token.space),
    db.select().from(openapiSpecs).where(sql`${openapiSpecs.id} = (select s.id from openapi_specs s where s.org_id = ${organizationId} and s.slug = ${specSlug} and ${readable})`),
    db
      .select(summaryColumns)
      .from(openapiSpecVersions)
      .where(sql`${openapiSpecVersions.id} = (select s.last_version_id from openapi_specs s where s.org_id = ${organizationId} and s.slug = ${specSlug} and ${readable})`)
      .limit(1),
  ])) as [unknown[], SpecRow[], SpecVersionSummary[]];
  if (site.length === 0 || !spec) throw specNotFound();
  if (!version) throw new ApiError(404, `The OpenAPI spec "${spec.slug}" has no version yet (processing state: ${spec.processingState})`);
  return { spec, version };
}

const filesMissing = (version: SpecVersionSummary) =>
  new ApiError(404, `The stored content of version ${version.id} is missing; updating the spec's source processes it again`);

/**
 * `{filesystem, url, urls}`: the stored filesystem list as it is (it can be megabytes: it is not parsed and
 * written again), followed by the links. A version processed before the list was stored has its list made from
 * its bundle (services/openapi/filesystem `filesystemFromBundle`).
 */
async function contentResponse(c: Ctx, spec: SpecRow, version: SpecVersionSummary, reader: 'member' | 'visitor' = 'member') {
  const filesystem = (await storedList(c, spec, version)) ?? (await listFromBundle(c, spec, version));
  const links = JSON.stringify(specContentLinks(spec, version, specUrlContext(c), reader));
  const body = c.body(`{"filesystem":${filesystem},${links.slice(1)}`, 200, { 'Content-Type': 'application/json; charset=UTF-8' });
  // The JSON of an OpenAPISpecContent, written by hand.
  return body as unknown as TypedResponse<JSONParsed<OpenAPISpecContent>, 200, 'json'>;
}

async function storedList(c: Ctx, spec: SpecRow, version: SpecVersionSummary): Promise<string | null> {
  const object = await c.env.FILES.get(versionListKey(spec.id, version.id));
  const text = object ? (await object.text()).trim() : '';
  return text.startsWith('[') && text.endsWith(']') ? text : null;
}

async function listFromBundle(c: Ctx, spec: SpecRow, version: SpecVersionSummary): Promise<string> {
  const object = await c.env.FILES.get(versionFilesystemKey(spec.id, version.id));
  const list = object ? filesystemFromBundle(await object.text(), version.entry) : null;
  if (!list) throw filesMissing(version);
  return JSON.stringify(list);
}

async function rawContent(c: Ctx, spec: SpecRow, version: SpecVersionSummary) {
  const object = await c.env.FILES.get(versionRawKey(spec.id, version.id));
  if (!object) throw filesMissing(version);
  return { text: await object.text(), format: version.format === 'yaml' ? ('yaml' as const) : ('json' as const) };
}

export const openapiVersionsRouter = createRouter()
  .openapi(listVersionsRoute, async (c) => {
    const { organizationId, specSlug } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const ofSpec = sql`${openapiSpecVersions.specId} = ${specIdOf(organizationId, specSlug)}`;
    const {
      spec,
      extra: [rows, [{ total }]],
    } = await loadSpecs<[SpecVersionSummary[], { total: number }[]]>(c, organizationId, specSlug, RANK.read, [
      db
        .select(summaryColumns)
        .from(openapiSpecVersions)
        .where(and(ofSpec, beforeCursor(textCursor(cursor), openapiSpecVersions.createdAt, openapiSpecVersions.id)))
        .orderBy(desc(openapiSpecVersions.createdAt), desc(openapiSpecVersions.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(openapiSpecVersions).where(ofSpec),
    ]);
    if (!spec) throw specNotFound();
    const urls = specUrlContext(c);
    return c.json(toPage(rows, limit, total, (row) => [row.createdAt, row.id], (row) => toSpecVersion(row, spec, urls)), 200);
  })
  .openapi(getLatestRoute, async (c) => {
    const { spec, version } = await loadVersion(c, c.req.valid('param'), { latest: true });
    return c.json(toSpecVersion(version, spec, specUrlContext(c)), 200);
  })
  .openapi(getLatestContentRoute, async (c) => {
    const siteToken = siteTokenOf(c);
    const params = c.req.valid('param');
    if (siteToken) {
      const { spec, version } = await loadPublicVersion(c, siteToken, params);
      return contentResponse(c, spec, version, 'visitor');
    }
    const { spec, version } = await loadVersion(c, params, { latest: true });
    return contentResponse(c, spec, version);
  })
  .openapi(getLatestRawRoute, async (c) => {
    const { spec, version } = await loadVersion(c, c.req.valid('param'), { latest: true });
    return c.json(await rawContent(c, spec, version), 200);
  })
  .openapi(getVersionRoute, async (c) => {
    const { versionId, ...params } = c.req.valid('param');
    const { spec, version } = await loadVersion(c, params, { versionId });
    return c.json(toSpecVersion(version, spec, specUrlContext(c)), 200);
  })
  .openapi(getVersionContentRoute, async (c) => {
    const { versionId, ...params } = c.req.valid('param');
    const { spec, version } = await loadVersion(c, params, { versionId });
    return contentResponse(c, spec, version);
  });
