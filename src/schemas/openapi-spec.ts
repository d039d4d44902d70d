import { z } from '@hono/zod-openapi';
import { MAX_SPEC_SOURCE_BYTES, OPENAPI_SPEC_SLUG_PATTERN } from '../lib/openapi-specs';
import { TimestampSchema } from './common';

/**
 * OpenAPI spec records and their versions (GitBook's `OpenAPISpec`, `OpenAPISpecVersion`,
 * `OpenAPISpecContent`, `OpenAPISpecRawContent`). Rows are mapped in services/openapi/presenter.
 */

export const MAX_SPEC_URL_LENGTH = 2048;

export const OpenAPISpecSlugSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(OPENAPI_SPEC_SLUG_PATTERN, { error: 'must be letters and digits in groups joined by single hyphens (pattern ^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$)' })
  .openapi('OpenAPISpecSlug', { description: 'Slug used as reference, unique in the organization', example: 'petstore' });

export const OpenAPISpecVisibilitySchema = z.enum(['private', 'public']).openapi('OpenAPISpecVisibility', {
  description: '`private`: the spec is not publicly available; `public`: anyone with its public link (`urls.published`) reads its latest version',
});

export const OpenAPISpecProcessingStateSchema = z.enum(['pending', 'progress', 'complete']).openapi('OpenAPISpecProcessingState', {
  description: '`pending`: queued; `progress`: being fetched and processed; `complete`: done (successfully or not: see `lastProcessErrorCode`)',
});

export const OPENAPI_SPEC_ERROR_CODES = ['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const;
export const OpenAPISpecProcessingErrorCodeSchema = z.enum(OPENAPI_SPEC_ERROR_CODES).openapi('OpenAPISpecProcessingErrorCode', {
  description: 'OpenAPI processing error code',
});

const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/**
 * Where a spec's document comes from: exactly one of `url` (fetched in the background, and refreshed) or
 * `text` (the document itself). Declared as one object so that a wrong source names its field; documented
 * as GitBook's `oneOf`.
 */
export const OpenAPISpecSourceSchema = z
  .object({
    url: z
      .string()
      .min(1)
      .max(MAX_SPEC_URL_LENGTH)
      .optional()
      .openapi({ format: 'uri', description: 'An http(s) URL of the document, fetched in the background' }),
    text: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: `The document itself, JSON or YAML (at most ${MAX_SPEC_SOURCE_BYTES} bytes of UTF-8)` }),
  })
  .superRefine((source, ctx) => {
    const given = (['url', 'text'] as const).filter((key) => source[key] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', message: given.length === 0 ? 'give a url or a text' : 'give either a url or a text, not both' });
      return;
    }
    // A string longer than the limit in UTF-16 code units is longer in bytes too: no need to encode it.
    if (source.text !== undefined && (source.text.length > MAX_SPEC_SOURCE_BYTES || utf8Bytes(source.text) > MAX_SPEC_SOURCE_BYTES)) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: `is larger than ${MAX_SPEC_SOURCE_BYTES} bytes` });
    }
  })
  .openapi('OpenAPISpecSource', {
    oneOf: [
      {
        type: 'object',
        description: 'Create a specification from an URL',
        properties: { url: { type: 'string', format: 'uri', maxLength: MAX_SPEC_URL_LENGTH } },
        required: ['url'],
      },
      {
        type: 'object',
        description: 'Create a specification from a text string',
        properties: { text: { type: 'string', minLength: 1, description: 'OpenAPI specification as text' } },
        required: ['text'],
      },
    ],
  });
export type OpenAPISpecSource = z.infer<typeof OpenAPISpecSourceSchema>;

export const OpenAPISpecSchema = z
  .object({
    object: z.literal('openapi-spec'),
    id: z.string(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    slug: OpenAPISpecSlugSchema,
    sourceURL: z.string().optional().openapi({ format: 'uri', description: 'The URL the spec is fetched from (URL sources only)' }),
    processingState: OpenAPISpecProcessingStateSchema,
    visibility: OpenAPISpecVisibilitySchema,
    lastVersion: z.string().optional().openapi({ description: 'ID of the latest version of the OpenAPI specification' }),
    lastProcessedAt: TimestampSchema.optional().openapi({ description: 'Date of the last processing' }),
    lastProcessErrorCode: OpenAPISpecProcessingErrorCodeSchema.optional(),
    lastProcessedErrors: z.array(z.object({ message: z.string(), code: z.string().optional() })).optional(),
    lastProcessedErrorCount: z.number().int().min(0).openapi({ description: 'Total number of processing errors before truncation of lastProcessedErrors' }),
    permissions: z.object({
      view: z.boolean().openapi({ description: 'Can the caller view the specification' }),
      edit: z.boolean().openapi({ description: 'Can the caller edit the specification' }),
    }),
    urls: z.object({
      location: z.string().openapi({ format: 'uri', description: 'URL of the OpenAPI specification in the API' }),
      app: z.string().openapi({ format: 'uri', description: 'URL of the OpenAPI specification in the application' }),
      published: z.string().optional().openapi({ format: 'uri', description: "The latest version's document, for anyone (only when the spec is public)" }),
    }),
  })
  .openapi('OpenAPISpec');
export type OpenAPISpec = z.infer<typeof OpenAPISpecSchema>;

export const OpenAPISpecVersionSchema = z
  .object({
    object: z.literal('openapi-spec-version'),
    id: z.string(),
    createdAt: TimestampSchema,
    url: z.string().openapi({ format: 'uri', description: "Where the version's document is accessible: its source URL, or for a text source its content in this API" }),
    urls: z.object({ location: z.string().openapi({ format: 'uri', description: 'URL of the OpenAPI specification version in the API' }) }),
  })
  .openapi('OpenAPISpecVersion');
export type OpenAPISpecVersion = z.infer<typeof OpenAPISpecVersionSchema>;

export const OpenAPISpecContentSchema = z
  .object({
    filesystem: z
      .array(
        z.object({
          dir: z.string(),
          isEntrypoint: z.boolean(),
          references: z.array(z.string()),
          filename: z.string(),
          specification: z.record(z.string(), z.unknown()),
        }),
      )
      .openapi({
        description:
          "Every file of the bundle, the entry first (`isEntrypoint`), as GitBook's renderer reads it (`Filesystem` of @gitbook/openapi-parser); references between files are rewritten to their names. Every non-empty `description` also has `x-gitbook-description-html`: its Markdown as sanitized HTML.",
      }),
    url: z.string().openapi({ format: 'uri', description: "The version's URL (as in the version)" }),
    urls: z.object({
      source: z.string().openapi({ format: 'uri', description: "The version's URL" }),
      public: z
        .string()
        .nullable()
        .openapi({ description: 'For public specs, a URL anyone can read the document at (the source URL, or the published URL for text sources); null for private specs' }),
    }),
  })
  .openapi('OpenAPISpecContent', { description: 'Content of the specification: its filesystem, and where it is available' });
export type OpenAPISpecContent = z.infer<typeof OpenAPISpecContentSchema>;

export const OpenAPISpecRawContentSchema = z
  .object({
    text: z.string().openapi({ description: 'Raw specification text, exactly as submitted or fetched' }),
    format: z.enum(['json', 'yaml']).openapi({ description: 'Format of the raw specification text' }),
  })
  .openapi('OpenAPISpecRawContent', { description: 'Raw original content of the specification entrypoint file' });
export type OpenAPISpecRawContent = z.infer<typeof OpenAPISpecRawContentSchema>;
