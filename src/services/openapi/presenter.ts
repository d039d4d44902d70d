import type { Context } from 'hono';
import type { openapiSpecs, openapiSpecVersions } from '../../db/schema';
import type { AppBindings } from '../../env';
import { OPENAPI_SPEC_ERROR_CODES, type OpenAPISpec, type OpenAPISpecContent, type OpenAPISpecVersion } from '../../schemas/openapi-spec';
import { urlContext, type UrlContext } from '../../schemas/common';
import { publishedSpecPath } from '../../lib/openapi-specs';

export type SpecRow = typeof openapiSpecs.$inferSelect;
export type SpecVersionRow = typeof openapiSpecVersions.$inferSelect;
/** What the version routes read of a version (never its outline, which may be hundreds of KB). */
export type SpecVersionSummary = Pick<SpecVersionRow, 'id' | 'createdAt' | 'url' | 'format' | 'entry'>;

/** What spec URLs are built from: the API (`<origin>/v1`), the app, and the origin the public documents are served at. */
export interface SpecUrls extends UrlContext {
  origin: string;
}

export function specUrlContext(c: Context<AppBindings>): SpecUrls {
  return { ...urlContext(c.req.url, c.env.APP_URL), origin: new URL(c.req.url).origin };
}

export { PUBLISHED_SPEC_PATH } from '../../lib/openapi-specs';

export function publishedSpecUrl(urls: SpecUrls, orgId: string, slug: string): string {
  return `${urls.origin}${publishedSpecPath(orgId, slug)}`;
}

export function specLocation(urls: SpecUrls, orgId: string, slug: string): string {
  return `${urls.api}/orgs/${encodeURIComponent(orgId)}/openapi/${encodeURIComponent(slug)}`;
}

/** What the caller may do with the organization's specs (GitBook's `permissions` of a spec). */
export interface SpecAccess {
  view: boolean;
  edit: boolean;
}

const isErrorCode = (code: string | null): code is (typeof OPENAPI_SPEC_ERROR_CODES)[number] =>
  code !== null && (OPENAPI_SPEC_ERROR_CODES as readonly string[]).includes(code);

export function toOpenAPISpec(row: SpecRow, access: SpecAccess, urls: SpecUrls): OpenAPISpec {
  const isPublic = row.visibility === 'public';
  return {
    object: 'openapi-spec',
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    slug: row.slug,
    ...(row.sourceUrl !== null && { sourceURL: row.sourceUrl }),
    processingState: row.processingState as OpenAPISpec['processingState'],
    visibility: isPublic ? 'public' : 'private',
    ...(row.lastVersionId !== null && { lastVersion: row.lastVersionId }),
    ...(row.lastProcessedAt !== null && { lastProcessedAt: row.lastProcessedAt }),
    ...(isErrorCode(row.lastProcessErrorCode) && { lastProcessErrorCode: row.lastProcessErrorCode }),
    ...(row.lastProcessedErrors !== null && {
      lastProcessedErrors: row.lastProcessedErrors.map((e) => ({ message: String(e.message), ...(e.code !== undefined && e.code !== null && { code: String(e.code) }) })),
    }),
    lastProcessedErrorCount: row.lastProcessedErrorCount,
    permissions: { view: access.view, edit: access.edit },
    urls: {
      location: specLocation(urls, row.orgId, row.slug),
      app: `${urls.app}/o/${encodeURIComponent(row.orgId)}/openapi/${encodeURIComponent(row.slug)}`,
      ...(isPublic && { published: publishedSpecUrl(urls, row.orgId, row.slug) }),
    },
  };
}

type SpecRef = Pick<SpecRow, 'orgId' | 'slug'>;

export function versionLocation(urls: SpecUrls, spec: SpecRef, versionId: string): string {
  return `${specLocation(urls, spec.orgId, spec.slug)}/versions/${encodeURIComponent(versionId)}`;
}

/** A version's document: the URL it was fetched from, or for a text source its content in this API. */
export function versionUrl(urls: SpecUrls, spec: SpecRef, version: Pick<SpecVersionRow, 'id' | 'url'>): string {
  return version.url ?? `${versionLocation(urls, spec, version.id)}/content`;
}

export function toSpecVersion(row: Pick<SpecVersionRow, 'id' | 'createdAt' | 'url'>, spec: SpecRef, urls: SpecUrls): OpenAPISpecVersion {
  return {
    object: 'openapi-spec-version',
    id: row.id,
    createdAt: row.createdAt,
    url: versionUrl(urls, spec, row),
    urls: { location: versionLocation(urls, spec, row.id) },
  };
}

/**
 * A version's content without its filesystem: GitBook 0.202's `urls` (`source`; `public`: the source URL of a
 * public spec fetched from a URL, the published URL of a public text spec, null for a private spec) and the
 * specification's `url`, so that both schemas hold. For a visitor (a site token: public specs only), `source` is
 * the public URL: GitBook's renderer links its API reference blocks to `source`, and the version's content in
 * this API is for members.
 */
export function specContentLinks(
  spec: SpecRow,
  version: Pick<SpecVersionRow, 'id' | 'url'>,
  urls: SpecUrls,
  reader: 'member' | 'visitor' = 'member',
): Omit<OpenAPISpecContent, 'filesystem'> {
  const isPublic = spec.visibility === 'public';
  const publicUrl = isPublic ? (version.url ?? publishedSpecUrl(urls, spec.orgId, spec.slug)) : null;
  const source = reader === 'visitor' && publicUrl ? publicUrl : versionUrl(urls, spec, version);
  return { url: source, urls: { source, public: publicUrl } };
}
