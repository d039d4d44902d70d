/**
 * What the public schemas of OpenAPI specs and computed pages (schemas/openapi-spec, schemas/revision) share
 * with the services that fetch, parse and expand specs (services/openapi), which jobs load without the schemas.
 */

/** Where anyone reads the latest version of a public spec (routes/openapi/published). */
export const PUBLISHED_SPEC_PATH = '/public/openapi';

/** The path of a public spec's published document, below the API's origin. */
export function publishedSpecPath(orgId: string, slug: string): string {
  return `${PUBLISHED_SPEC_PATH}/${encodeURIComponent(orgId)}/${encodeURIComponent(slug)}`;
}

/** GitBook's OpenAPISpecSlug. */
export const OPENAPI_SPEC_SLUG_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

/** Largest source document (a fetched file, or a `text` source) and the largest bundle, in bytes. */
export const MAX_SPEC_SOURCE_BYTES = 5 * 1024 * 1024;

/** GitBook's `ComputedContentSourceDocumentOpenAPI` methods (`hook` is for webhooks; outlines have none). */
export const OPENAPI_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head', 'trace', 'hook'] as const;
export type OpenAPIMethod = (typeof OPENAPI_METHODS)[number];
