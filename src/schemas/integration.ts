import { z } from '@hono/zod-openapi';
import type { integrations, organizations } from '../db/schema';
import { decodeBase64 } from '../lib/base64';
import { imageContentType } from '../lib/images';
import { INTEGRATION_SCOPES } from '../lib/integration-scopes';
import { refuseProtoKey, type UrlContext } from './common';
import { OrganizationSchema, toOrganization } from './organization';

/**
 * Limits of a published integration. GitBook's document gives the text lengths (title 2..30, description
 * up to 100, summary up to 2048, block and content source titles 2..40 and descriptions up to 150,
 * property titles 2..50 and descriptions up to 100, at most 3 preview images and 5 external links);
 * the byte sizes and counts are ours. An icon, each preview image and the script may each be 1 MiB
 * (decoded); the whole publish body may then be up to `MAX_PUBLISH_BODY_BYTES`, which the app's body
 * limit must allow on this route (`publishBodyLimitPath`).
 */
export const INTEGRATION_LIMITS = {
  nameLength: 100,
  iconBytes: 1024 * 1024,
  previewImages: 3,
  previewBytes: 1024 * 1024,
  scriptBytes: 1024 * 1024,
  secrets: 50,
  secretKeyLength: 100,
  secretValueLength: 4096,
  blocks: 50,
  contentSources: 50,
  externalLinks: 5,
  configurationProperties: 50,
  enumValues: 100,
  contentSecurityPolicyLength: 4096,
} as const;

const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;
// The publish body's limit lives with the app's other body limits, which load with no schema.
export { MAX_PUBLISH_BODY_BYTES, PUBLISH_BODY_PATH } from '../lib/body-limits';

export const INTEGRATION_NAME_PATTERN = /^[a-zA-Z0-9-_.]+$/;
export const IntegrationNameSchema = z
  .string()
  .min(1)
  .max(INTEGRATION_LIMITS.nameLength)
  .regex(INTEGRATION_NAME_PATTERN, 'must contain only letters, digits, "-", "_" and "."')
  .openapi({ param: { name: 'integrationName', in: 'path' }, description: 'Name of the integration.' });

export const IntegrationScopeSchema = z.enum(INTEGRATION_SCOPES).openapi('IntegrationScope');
export const IntegrationCategorySchema = z
  .enum(['analytics', 'collaboration', 'content', 'marketing', 'visitor-auth', 'other'])
  .openapi('IntegrationCategory');
export const IntegrationTargetSchema = z
  .enum(['all', 'site', 'space', 'organization'])
  .openapi('IntegrationTarget', { description: 'The target on which the integration can operate and needs to be configured for' });
export const IntegrationVisibilitySchema = z.enum(['public', 'private', 'unlisted']).openapi('IntegrationVisibility');
export const IntegrationTitleSchema = z.string().trim().min(2).max(30).openapi('IntegrationTitle', { description: 'Title of the integration' });
export const IntegrationDescriptionSchema = z.string().max(100).openapi('IntegrationDescription', { description: 'Description of the integration' });
export const IntegrationSummarySchema = z.string().max(2048).openapi('IntegrationSummary', { description: 'Long form markdown summary of the integration' });

/** A map key (maps refuse `__proto__` before z.record sees them: refuseProtoKey). */
const mapKey = (max: number) => z.string().min(1).max(max);
/** Text sent later as a header or shown as-is: no control characters. */
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

// ---------------------------------------------------------------------------------------------
// Configurations (GitBook's IntegrationConfigurations)

const propertyCommon = {
  title: z.string().min(2).max(50).optional(),
  description: z.string().max(100).optional(),
};
const StringPropertySchema = z
  .strictObject({
    ...propertyCommon,
    type: z.literal('string'),
    default: z.string().max(4096).optional(),
    completion_url: z.string().min(1).max(2048).optional().openapi({ description: 'Called to fetch suggestions for auto-completing the property' }),
    enum: z.array(z.string().max(256)).max(INTEGRATION_LIMITS.enumValues).optional().openapi({ description: 'Only these values are allowed as inputs' }),
  })
  .refine((p) => p.default === undefined || p.enum === undefined || p.enum.includes(p.default), {
    message: 'default must be one of enum',
    path: ['default'],
  });
const NumberPropertySchema = z.strictObject({ ...propertyCommon, type: z.literal('number'), default: z.number().optional() });
const BooleanPropertySchema = z.strictObject({ ...propertyCommon, type: z.literal('boolean'), default: z.boolean().optional() });
const ButtonPropertySchema = z.strictObject({
  ...propertyCommon,
  type: z.literal('button'),
  callback_url: z.string().min(1).max(2048),
  button_text: z.string().min(1).max(100),
});
export const IntegrationConfigurationPropertySchema = z
  .discriminatedUnion('type', [StringPropertySchema, NumberPropertySchema, BooleanPropertySchema, ButtonPropertySchema])
  .openapi('IntegrationConfigurationProperty');

export const IntegrationConfigurationSchemaSchema = z
  .strictObject({
    properties: z.preprocess(
      refuseProtoKey('a property'),
      z.record(mapKey(100), IntegrationConfigurationPropertySchema).refine((p) => Object.keys(p).length <= INTEGRATION_LIMITS.configurationProperties, {
        message: `at most ${INTEGRATION_LIMITS.configurationProperties} properties`,
      }),
    ),
    required: z.array(z.string().min(1).max(100)).max(INTEGRATION_LIMITS.configurationProperties).optional(),
  })
  .superRefine((schema, ctx) => {
    const required = schema.required ?? [];
    if (new Set(required).size !== required.length) ctx.addIssue({ code: 'custom', message: 'must not repeat a property', path: ['required'] });
    for (const name of required) {
      if (!Object.hasOwn(schema.properties, name)) ctx.addIssue({ code: 'custom', message: `names "${name}", which is not a property`, path: ['required'] });
    }
  })
  .openapi('IntegrationConfigurationSchema', { description: 'Schema for a configuration' });

export const IntegrationConfigurationComponentSchema = z
  .strictObject({ componentId: z.string().min(1).max(100).openapi({ description: 'ID of the ContentKit component defined in the integration' }) })
  .openapi('IntegrationConfigurationComponent', { description: 'ContentKit component for configuration' });

export const IntegrationConfigurationSchema = z
  .union([IntegrationConfigurationSchemaSchema, IntegrationConfigurationComponentSchema])
  .openapi('IntegrationConfiguration');
export const IntegrationConfigurationsSchema = z
  .strictObject({
    account: IntegrationConfigurationSchema.optional(),
    space: IntegrationConfigurationSchema.optional(),
    site: IntegrationConfigurationSchema.optional(),
  })
  .openapi('IntegrationConfigurations');

// ---------------------------------------------------------------------------------------------
// Blocks, content sources, external links, content security policy

const uniqueIds = <T extends { id: string }>(what: string) => (items: T[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) ctx.addIssue({ code: 'custom', message: `repeats the ${what} id "${item.id}"`, path: [i, 'id'] });
    seen.add(item.id);
  });
};

export const IntegrationBlockSchema = z
  .strictObject({
    id: z.string().min(1).max(100).openapi({ description: 'Unique ID in the integration for the block' }),
    title: z.string().min(2).max(40),
    description: z.string().max(150).optional(),
    icon: z.string().max(2048).optional().openapi({ description: 'URL of the icon to represent this block' }),
    urlUnfurl: z.array(z.string().min(1).max(2048)).max(50).optional().openapi({ description: 'URLs patterns to convert as this block' }),
    markdown: z
      .strictObject({ codeblock: z.string().min(1).max(100), body: z.string().min(1).max(100) })
      .optional()
      .openapi({ description: 'Format the custom block as a codeblock' }),
  })
  .openapi('IntegrationBlock');
export const IntegrationBlocksSchema = z
  .array(IntegrationBlockSchema)
  .max(INTEGRATION_LIMITS.blocks)
  .superRefine(uniqueIds('block'))
  .openapi('IntegrationBlocks', { description: 'Custom blocks defined by this integration.' });

export const IntegrationContentSourceSchema = z
  .strictObject({
    id: z.string().min(1).max(100),
    title: z.string().min(2).max(40),
    description: z.string().max(150).optional(),
    icon: z.string().max(2048).optional(),
    configuration: IntegrationConfigurationComponentSchema,
  })
  .openapi('IntegrationContentSource');
const IntegrationContentSourcesSchema = z.array(IntegrationContentSourceSchema).max(INTEGRATION_LIMITS.contentSources).superRefine(uniqueIds('content source'));

export const IntegrationExternalLinksSchema = z
  .array(
    z.strictObject({
      url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048),
      label: z.string().min(1).max(100),
    }),
  )
  .max(INTEGRATION_LIMITS.externalLinks)
  .openapi('IntegrationExternalLinks', { description: 'External urls configured by the developer of the integration' });

export const CSP_DIRECTIVES = [
  'base-uri',
  'block-all-mixed-content',
  'child-src',
  'connect-src',
  'default-src',
  'font-src',
  'form-action',
  'frame-ancestors',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'navigate-to',
  'object-src',
  'plugin-types',
  'prefetch-src',
  'referrer',
  'report-to',
  'report-uri',
  'require-sri-for',
  'require-trusted-types-for',
  'sandbox',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-attr',
  'style-src-elem',
  'trusted-types',
  'upgrade-insecure-requests',
  'worker-src',
] as const;
/**
 * One directive's sources. GitBook's manifests write them over several lines, each directive ending in `;`
 * (`script-src: |\n  https://a.example\n  https://b.example;`): line breaks, tabs and one final `;` are
 * accepted and normalized away when stored (`contentSecurityPolicyText`); a `;` anywhere else would start
 * another directive, and other control characters are refused.
 */
const directiveValue = z
  .string()
  .max(1024)
  .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f;]*(;\s*)?$/, 'must not contain ";" (but at its end) or control characters (but line breaks and tabs)');
/**
 * A policy as one header value, or as a map of directives (kept as the header value it stands for:
 * `default-src 'self'; img-src *`). Sent as headers later: no control characters.
 */
export const IntegrationContentSecurityPolicySchema = z
  .union([
    z.string().min(1).max(INTEGRATION_LIMITS.contentSecurityPolicyLength).regex(NO_CONTROL, 'must not contain control characters'),
    z.strictObject(Object.fromEntries(CSP_DIRECTIVES.map((d) => [d, directiveValue.optional()])) as Record<(typeof CSP_DIRECTIVES)[number], z.ZodOptional<typeof directiveValue>>),
  ])
  .openapi('IntegrationContentSecurityPolicy', {
    description: 'Security policy sent as headers when the script fetch event and the blocks fetch events are processed',
  });

/** A directive's sources on one line: whitespace runs as one space, the final `;` of GitBook's manifests dropped. */
const normalizeSources = (value: string) => value.replace(/;\s*$/, '').replace(/\s+/g, ' ').trim();

/** The policy as the one header value it is stored as (null when none). */
export function contentSecurityPolicyText(policy: z.infer<typeof IntegrationContentSecurityPolicySchema> | undefined): string | null {
  if (policy === undefined) return null;
  if (typeof policy === 'string') return policy;
  const text = Object.entries(policy)
    .filter(([, value]) => value !== undefined)
    .map(([directive, value]) => {
      const sources = normalizeSources(value!);
      return sources ? `${directive} ${sources}` : directive;
    })
    .join('; ');
  return text || null;
}

// ---------------------------------------------------------------------------------------------
// Publishing

/** Base64 of a PNG, JPEG, GIF or WebP image of at most `maxBytes` once decoded. */
function base64Image(maxBytes: number, description: string) {
  // Line breaks (every 76 characters, as MIME writes them) are allowed and ignored.
  const maxLength = base64Length(maxBytes) + Math.ceil(base64Length(maxBytes) / 76) * 2 + 16;
  return z
    .string()
    .min(1)
    .max(maxLength, `must be at most ${maxBytes} bytes once decoded`)
    .superRefine((value, ctx) => {
      const bytes = decodeBase64(value);
      if (!bytes) return void ctx.addIssue({ code: 'custom', message: 'must be base64' });
      if (bytes.byteLength > maxBytes) return void ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes once decoded` });
      if (!imageContentType(bytes)) ctx.addIssue({ code: 'custom', message: 'must be a PNG, JPEG, GIF or WebP image' });
    })
    .openapi({ format: 'byte', description });
}

const utf8Length = (text: string) => (text.length * 3 <= INTEGRATION_LIMITS.scriptBytes ? text.length : new TextEncoder().encode(text).byteLength);

export const IntegrationSecretsSchema = z
  .preprocess(
    refuseProtoKey('a secret'),
    z
      .record(mapKey(INTEGRATION_LIMITS.secretKeyLength), z.string().max(INTEGRATION_LIMITS.secretValueLength))
      .refine((secrets) => Object.keys(secrets).length <= INTEGRATION_LIMITS.secrets, { message: `at most ${INTEGRATION_LIMITS.secrets} secrets` }),
  )
  .openapi('IntegrationSecrets', {
    description: `Secrets stored on the integration (encrypted) and passed to its script at runtime; never returned. At most ${INTEGRATION_LIMITS.secrets} entries of at most ${INTEGRATION_LIMITS.secretValueLength} characters.`,
  });

export const PublishIntegrationSchema = z
  .strictObject({
    runtime: z
      .enum(['v1', 'v2'])
      .optional()
      .openapi({ description: "The runtime version of the script (`v1` when omitted; GitBook's CLI sends `v2`). Both run the same way: an ES module whose default export's `fetch` handles events, as @gitbook/runtime's `createIntegration` builds it" }),
    icon: base64Image(INTEGRATION_LIMITS.iconBytes, `Base64 content of the icon (PNG, JPEG, GIF or WebP, at most ${INTEGRATION_LIMITS.iconBytes} bytes)`).optional(),
    title: IntegrationTitleSchema,
    description: IntegrationDescriptionSchema,
    summary: IntegrationSummarySchema.optional(),
    previewImages: z
      .array(base64Image(INTEGRATION_LIMITS.previewBytes, `Base64 content of the image (at most ${INTEGRATION_LIMITS.previewBytes} bytes)`))
      .max(INTEGRATION_LIMITS.previewImages)
      .optional(),
    visibility: IntegrationVisibilitySchema.optional().openapi({ description: 'Defaults to private' }),
    target: IntegrationTargetSchema.optional().openapi({ description: 'Allowed installation target; `all` (every target) when omitted' }),
    scopes: z.array(IntegrationScopeSchema).max(INTEGRATION_SCOPES.length * 2),
    categories: z.array(IntegrationCategorySchema).max(12).optional(),
    blocks: IntegrationBlocksSchema.optional(),
    contentSources: IntegrationContentSourcesSchema.optional(),
    externalLinks: IntegrationExternalLinksSchema.optional(),
    configurations: IntegrationConfigurationsSchema.optional(),
    script: z
      .string()
      .min(1)
      .max(INTEGRATION_LIMITS.scriptBytes, `must be at most ${INTEGRATION_LIMITS.scriptBytes} bytes`)
      .refine((s) => utf8Length(s) <= INTEGRATION_LIMITS.scriptBytes, `must be at most ${INTEGRATION_LIMITS.scriptBytes} bytes`)
      .openapi({ description: `Content of the script (at most ${INTEGRATION_LIMITS.scriptBytes} bytes of UTF-8); stored, never returned` }),
    organization: z.string().min(1).max(128).openapi({ description: 'The ID or subdomain (hostname) of the organization under which the integration is published' }),
    secrets: IntegrationSecretsSchema.optional().openapi({ description: 'Replaces the stored secrets when given; the previous ones are kept when omitted' }),
    contentSecurityPolicy: IntegrationContentSecurityPolicySchema.optional(),
  })
  .openapi('PublishIntegration');
export type PublishIntegrationBody = z.infer<typeof PublishIntegrationSchema>;

// ---------------------------------------------------------------------------------------------
// The Integration object

export const IntegrationSchema = z
  .object({
    object: z.literal('integration'),
    name: z.string().openapi({ description: 'Unique named identifier for the integration' }),
    version: z.number().int().openapi({ description: 'Version of the integration: 1 at the first publish, one more at each' }),
    title: z.string(),
    description: z.string(),
    summary: z.string().optional(),
    previewImages: z.array(z.string()).max(INTEGRATION_LIMITS.previewImages).openapi({ description: 'Signed, expiring URLs of images showcasing the integration' }),
    target: IntegrationTargetSchema,
    verified: z.boolean(),
    visibility: IntegrationVisibilitySchema,
    scopes: z.array(IntegrationScopeSchema),
    categories: z.array(IntegrationCategorySchema),
    blocks: IntegrationBlocksSchema,
    contentSources: z.array(IntegrationContentSourceSchema),
    configurations: IntegrationConfigurationsSchema,
    externalLinks: IntegrationExternalLinksSchema,
    owner: OrganizationSchema,
    urls: z.object({
      location: z.string().openapi({ description: 'URL of the integration in the API', format: 'uri' }),
      icon: z.string().optional().openapi({ description: 'Signed, expiring URL of the icon', format: 'uri' }),
      app: z.string().openapi({ description: 'URL of the integration in the application', format: 'uri' }),
      assets: z.string().openapi({ description: "Where the current version's assets are served (each through a signed URL)", format: 'uri' }),
      publicEndpoint: z.string().openapi({
        description: "Public HTTP endpoint for the integration: any request to it or below it (no API token) is handed to the integration's script as a `fetch` event, and the script's response is the answer",
        format: 'uri',
      }),
      publicContentEndpoint: z.string().openapi({ description: 'Public endpoint of its rendered content (equals publicEndpoint here)', format: 'uri' }),
    }),
    permissions: z.object({ admin: z.boolean() }),
    contentSecurityPolicy: z.string().optional(),
  })
  .openapi('Integration');
export type Integration = z.infer<typeof IntegrationSchema>;

type IntegrationRow = typeof integrations.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;

/** Signed URLs of an integration's assets (services/integrations/assets). */
export interface IntegrationAssetUrls {
  /** Where the current version's assets are served (each needs a signed URL). */
  base: string;
  icon?: string;
  previews: string[];
}

export interface IntegrationContext {
  owner: OrganizationRow;
  /** The caller's role rank in the owner organization (null when not a member). */
  ownerRank: number | null;
  /** May the caller publish, unpublish and manage it (services/integrations/access). */
  admin: boolean;
  urls: UrlContext;
  assets: IntegrationAssetUrls;
}

/**
 * Where integrations' public endpoints live: outside `/v1` (no API token; routes/integrations/public-endpoint.ts),
 * `<origin>/integrations/<name>/public` for the integration and `.../installations/<id>/public` for one of its
 * installations; requests to them and to any path below them are handed to the integration's script.
 */
export const publicEndpointsBase = (origin: string, integrationName: string) => `${origin}/integrations/${encodeURIComponent(integrationName)}`;

/** The integration's public endpoint (`origin`: the API's origin, without `/v1`). */
export const integrationPublicEndpoint = (origin: string, integrationName: string) => `${publicEndpointsBase(origin, integrationName)}/public`;

/** The API's origin (without `/v1`) of a URL context. */
export const apiOriginOf = (urls: UrlContext) => new URL(urls.api).origin;

/** The API object of an integration. Secrets, the script and development mode are never part of it. */
export function toIntegration(row: IntegrationRow, ctx: IntegrationContext): Integration {
  const location = `${ctx.urls.api}/integrations/${row.name}`;
  const publicEndpoint = integrationPublicEndpoint(apiOriginOf(ctx.urls), row.name);
  return {
    object: 'integration',
    name: row.name,
    version: row.version,
    title: row.title,
    description: row.description,
    ...(row.summary ? { summary: row.summary } : {}),
    previewImages: ctx.assets.previews,
    target: row.target as Integration['target'],
    verified: row.verified,
    visibility: row.visibility as Integration['visibility'],
    scopes: row.scopes as Integration['scopes'],
    categories: row.categories as Integration['categories'],
    blocks: row.blocks as Integration['blocks'],
    contentSources: row.contentSources as Integration['contentSources'],
    configurations: row.configurations as Integration['configurations'],
    externalLinks: row.externalLinks as Integration['externalLinks'],
    owner: toOrganization(ctx.owner, ctx.ownerRank, ctx.urls),
    urls: {
      location,
      ...(ctx.assets.icon ? { icon: ctx.assets.icon } : {}),
      app: `${ctx.urls.app}/integrations/${row.name}`,
      assets: ctx.assets.base,
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
    permissions: { admin: ctx.admin },
    ...(row.contentSecurityPolicy ? { contentSecurityPolicy: row.contentSecurityPolicy } : {}),
  };
}
