import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';
import { DefaultLevelSchema } from './roles';
import { SpaceSchema } from './space';

export const SiteTypeSchema = z
  .enum(['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'])
  .openapi('SiteType');
export const SiteVisibilitySchema = z.enum(['public', 'unlisted', 'share-link', 'visitor-auth']).openapi('SiteVisibility');
export const SiteTitleSchema = z.string().trim().min(2).max(128).openapi('SiteTitle');
/** A URL path segment: what `basename` and `path`s become in published URLs. */
const PATH_SEGMENT = /^[A-Za-z0-9](?:[A-Za-z0-9._~-]*[A-Za-z0-9_~-])?$/;
const pathSegment = (what: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .regex(PATH_SEGMENT, `${what} must be one URL path segment: letters, digits, ".", "_", "~" and "-", starting with a letter or digit`);
export const SiteBasenameSchema = pathSegment('basename').openapi('SiteBasename');
export const SiteSectionPathSchema = pathSegment('path').openapi('SiteSectionPath');
export const SiteSpacePathSchema = pathSegment('path').openapi('SiteSpacePath');
export const SiteProxyOriginSchema = z
  .string()
  .max(512)
  .regex(/^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/, 'proxy must be a domain followed by one or more path segments, like company.com/docs')
  .openapi('SiteProxyOrigin');
export const SiteSectionTitleSchema = z.string().trim().min(2).max(128).openapi('SiteSectionTitle');
export const SiteSectionGroupTitleSchema = z.string().trim().min(1).max(100).openapi('SiteSectionGroupTitle');
export const SiteSectionDescriptionSchema = z.string().max(256).openapi('SiteSectionDescription');
export const IconSchema = z.string().min(1).max(50).openapi('Icon', { description: 'Name of the icon', example: 'gear' });
export const ExpressionSchema = z.string().max(1024).openapi('Expression', { description: 'Expression over visitor claims, such as `visitor.claims.plan == "pro" && !visitor.claims.trial` (the grammar: the docs sites guide of the handbook)' });
export const AgentsContextSchema = z.enum(['excluded', 'included']);
export const ShareLinkNameSchema = z.string().trim().max(50).openapi('ShareLinkName');

const publishedUrl = z.object({ published: z.string().optional() });

export const SiteSpaceSchema = z
  .object({
    object: z.literal('site-space'),
    id: z.string(),
    path: z.string(),
    section: z.string().optional(),
    space: SpaceSchema,
    title: z.string(),
    default: z.boolean(),
    condition: z.string().optional(),
    draft: z.boolean(),
    hasAdvancedCustomizationFeature: z.boolean(),
    urls: publishedUrl,
    hidden: z.boolean(),
  })
  .openapi('SiteSpace');
export type SiteSpace = z.infer<typeof SiteSpaceSchema>;

export const SiteSectionSchema = z
  .object({
    object: z.literal('site-section'),
    id: z.string(),
    title: z.string(),
    description: z.string().optional(),
    default: z.boolean(),
    draft: z.boolean(),
    path: z.string(),
    condition: z.string().optional(),
    sectionGroup: z.string().optional(),
    siteSpaces: z.array(SiteSpaceSchema),
    urls: publishedUrl,
    icon: z.string().optional(),
  })
  .openapi('SiteSection');
export type SiteSection = z.infer<typeof SiteSectionSchema>;

export type SiteSectionGroup = {
  object: 'site-section-group';
  id: string;
  title: string;
  sectionGroup?: string;
  icon?: string;
  draft: boolean;
  sections: SiteSection[];
  children: (SiteSection | SiteSectionGroup)[];
};

export const SiteSectionGroupSchema: z.ZodType<SiteSectionGroup> = z
  .object({
    object: z.literal('site-section-group'),
    id: z.string(),
    title: z.string(),
    sectionGroup: z.string().optional(),
    icon: z.string().optional(),
    draft: z.boolean(),
    sections: z.array(SiteSectionSchema).openapi({ description: 'The sections directly in the group (deprecated: use children)' }),
    get children() {
      return z.array(z.union([SiteSectionSchema, SiteSectionGroupSchema]));
    },
  })
  .openapi('SiteSectionGroup');

export const SiteStructureSchema = z
  .union([
    z.object({ type: z.literal('sections'), structure: z.array(z.union([SiteSectionSchema, SiteSectionGroupSchema])) }),
    z.object({ type: z.literal('siteSpaces'), structure: z.array(SiteSpaceSchema) }),
  ])
  .openapi('SiteStructure');
export type SiteStructure = z.infer<typeof SiteStructureSchema>;

export const SitePermissionsSchema = z.object({
  view: z.boolean(),
  access: z.boolean(),
  edit: z.boolean(),
  create: z.boolean(),
  admin: z.boolean(),
  installIntegration: z.boolean(),
  viewAdaptiveSchema: z.boolean(),
  editAdaptiveSchema: z.boolean(),
});

export const SiteSchema = z
  .object({
    object: z.literal('site'),
    id: z.string(),
    type: SiteTypeSchema,
    appliedType: SiteTypeSchema,
    title: z.string(),
    basename: z.string(),
    proxy: z.object({ origin: z.string(), target: z.string() }).optional(),
    visibility: SiteVisibilitySchema,
    defaultLevel: DefaultLevelSchema,
    permissions: SitePermissionsSchema,
    published: z.boolean(),
    siteSpaces: z.number().openapi({ description: 'How many site spaces the site has' }),
    createdAt: TimestampSchema,
    adaptiveContent: z.object({ enabled: z.boolean() }),
    ads: z.object({ status: z.literal('pending'), submittable: z.boolean() }),
    agentsContext: AgentsContextSchema,
    features: z.array(z.object({ id: z.string(), plan: SiteTypeSchema, frozen: z.boolean() })),
    urls: z.object({ location: z.string(), app: z.string(), preview: z.string(), published: z.string().optional() }),
  })
  .openapi('Site');
export type Site = z.infer<typeof SiteSchema>;

export const ShareLinkSchema = z
  .object({
    object: z.literal('share-link'),
    id: z.string(),
    createdAt: TimestampSchema,
    name: z.string(),
    active: z.boolean(),
    urls: z.object({ published: z.string().optional() }),
  })
  .openapi('ShareLink');

export const SitePublishingAuthSchema = z
  .object({
    object: z.literal('publishing-auth'),
    backend: z.literal('custom'),
    privateKey: z.string().openapi({ description: 'HS256 secret that signs visitor JWTs' }),
    fallbackURL: z.string().optional(),
    logoutURL: z.string().optional(),
  })
  .openapi('SitePublishingAuth');

/** Absolute http(s) URLs for the publishing auth redirects. */
const RedirectUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
  .max(2048);

export const SitePublishingAuthUpdateSchema = z
  .object({
    backend: z.literal('custom').openapi({ description: 'Only the custom backend (your service signs visitor JWTs) exists here' }),
    fallbackURL: RedirectUrlSchema.nullable().optional(),
    logoutURL: RedirectUrlSchema.nullable().optional(),
  });
