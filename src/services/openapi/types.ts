/**
 * What the OpenAPI spec capability shares between its routes (routes/openapi), its background
 * processing (services/openapi/process, jobs/openapi-process) and computed API reference pages
 * (services/openapi/computed-pages).
 */

/** Request bodies of createOpenAPISpec and createOrUpdateOpenAPISpecBySlug may carry a `text` this large (JSON-escaped). */
export const MAX_SPEC_BODY_BYTES = 6 * 1024 * 1024;
/** POST `/v1/orgs/{organizationId}/openapi` and PUT `/v1/orgs/{organizationId}/openapi/{specSlug}`: the bodies that get MAX_SPEC_BODY_BYTES. */
export const SPEC_BODY_PATH = /^\/v1\/orgs\/[^/]+\/openapi(?:\/[^/]+)?\/?$/;

export type SpecProcessingState = 'pending' | 'progress' | 'complete';
export type SpecProcessingErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';
export interface SpecProcessingError {
  message: string;
  code?: string;
}

/** One operation of a spec, as computed pages list it. */
export interface SpecOutlineOperation {
  /** The path as written in the document (`/pets/{petId}`). */
  path: string;
  /** Lower case: get, put, post, delete, options, head, patch, trace. */
  method: string;
  summary?: string;
  operationId?: string;
  deprecated?: boolean;
}

export interface SpecOutlineTag {
  /** The tag's name; operations without any tag are gathered under the empty name ''. */
  name: string;
  description?: string;
  operations: SpecOutlineOperation[];
}

/**
 * What computed API reference pages are built from, derived once per version (stored in
 * `openapi_spec_versions.outline`): the document's info, its tags in the document's order (tags
 * only named by operations after them, then '' for untagged operations), each with its operations in
 * path order, and the names of its schemas (`components.schemas`, or `definitions` for Swagger 2.0).
 * Texts are cut to MAX_OUTLINE_TEXT characters; at most MAX_OUTLINE_OPERATIONS operations.
 */
export interface SpecOutline {
  title: string;
  version?: string;
  description?: string;
  tags: SpecOutlineTag[];
  schemas: string[];
}

export const MAX_OUTLINE_TEXT = 2000;
export const MAX_OUTLINE_OPERATIONS = 5000;
