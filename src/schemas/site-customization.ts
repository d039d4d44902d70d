import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';
import type { CustomizationGroupName } from './customization-groups';
import { ExpressionSchema, SiteTitleSchema } from './site';
import { EmojiSchema, LanguageSchema } from './space';

/**
 * Site customization: the look and settings of a published site, as GitBook 0.202 publishes them
 * (`SiteCustomizationSettings`). One shape is written here, the response; the two bodies derive from it:
 *
 * - PUT (`SiteCustomizationInputSchema`) takes the whole settings, but any field may be left out and
 *   takes its default: GitBook requires deprecated fields (`internationalization`, `header.preset`,
 *   `styling.background`) that no client of ours should have to send.
 * - PATCH of a site space (`SiteSpaceCustomizationOverrideSchema`) takes any field, nested like the
 *   settings, or null to drop that field's override (services/sites/customization merges them).
 *
 * Limits are GitBook's where it has one (the response must validate against its schema), else ours.
 * Objects a client writes are strict: an unknown key is a 400, never silently dropped.
 */

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;
export const ColorSchema = z.string().regex(HEX_COLOR, 'must be a hex color like #346ddb').openapi('Color');
export const ThemedColorSchema = z.strictObject({ light: ColorSchema, dark: ColorSchema }).openapi('CustomizationThemedColor');

/** Absolute http(s) URLs only: these end up as links and images on the published site. */
export const HttpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048);
const ThemedUrlSchema = z.strictObject({ light: HttpUrlSchema, dark: HttpUrlSchema }).openapi('CustomizationThemedURL');

const localized = (max: number) => z.partialRecord(LanguageSchema, z.string().max(max));

const ID = z.string().min(1).max(128);

/**
 * A content reference: the kinds a site's navigation can point at. GitBook's `ContentRef` has more
 * (user, reusable content, tag, OpenAPI spec); they mean nothing in a header or footer here.
 */
export const CustomizationContentRefSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('url'), url: HttpUrlSchema }),
    z.strictObject({ kind: z.literal('space'), space: ID }),
    z.strictObject({ kind: z.literal('page'), page: ID, space: ID.optional() }),
    z.strictObject({ kind: z.literal('file'), file: ID, space: ID.optional() }),
    z.strictObject({ kind: z.literal('anchor'), anchor: z.string().min(1).max(256), page: ID, space: ID.optional() }),
    z.strictObject({ kind: z.literal('collection'), collection: ID }),
  ])
  .openapi('CustomizationContentRef', { description: 'Where a link leads: a URL, or content of the organization' });
export type CustomizationContentRef = z.infer<typeof CustomizationContentRefSchema>;

export const MAX_HEADER_LINKS = 20;
export const MAX_SUB_LINKS = 20;
export const MAX_FOOTER_GROUPS = 10;
export const MAX_FOOTER_LINKS = 20;

const ContentLinkSchema = z
  .strictObject({ title: z.string().min(1).max(64), localizedTitle: localized(64).optional(), to: CustomizationContentRefSchema })
  .openapi('CustomizationContentLink');

const HeaderItemSchema = z
  .strictObject({
    title: z.string().min(1).max(128),
    localizedTitle: localized(128).optional(),
    style: z.enum(['link', 'button-primary', 'button-secondary']).optional(),
    to: CustomizationContentRefSchema.nullable().default(null),
    links: z.array(ContentLinkSchema).max(MAX_SUB_LINKS).default([]),
    condition: ExpressionSchema.optional().openapi({ description: 'Shows the item only to visitors for whom it is true' }),
  })
  .openapi('CustomizationHeaderItem');

const FooterGroupSchema = z
  .strictObject({
    title: z.string().min(1).max(128),
    localizedTitle: localized(128).optional(),
    links: z.array(ContentLinkSchema).max(MAX_FOOTER_LINKS).default([]),
  })
  .openapi('CustomizationFooterGroup');

const AnnouncementSchema = z
  .strictObject({
    enabled: z.boolean(),
    message: z.string().min(2).max(128),
    localizedMessage: localized(128).optional(),
    link: ContentLinkSchema.optional(),
    style: z.enum(['info', 'warning', 'danger', 'success']).default('info'),
  })
  .openapi('CustomizationAnnouncement');

const DEFAULT_FONTS = [
  'ABCFavorit', 'Inter', 'Roboto', 'RobotoSlab', 'OpenSans', 'SourceSansPro', 'Lato', 'Ubuntu', 'Raleway', 'Merriweather',
  'Overpass', 'NotoSans', 'IBMPlexSerif', 'Poppins', 'FiraSans',
] as const;
const MONOSPACE_FONTS = ['FiraCode', 'IBMPlexMono', 'JetBrainsMono', 'SourceCodePro', 'RobotoMono', 'SpaceMono', 'DMMono', 'Inconsolata'] as const;

const FontDefinitionSchema = z
  .strictObject({
    id: ID,
    custom: z.boolean(),
    fontFamily: z.string().min(1).max(50),
    fontFaces: z
      .array(
        z.strictObject({
          weight: z.int().min(1).max(1000),
          sources: z.array(z.strictObject({ url: HttpUrlSchema, format: z.enum(['woff2', 'woff']).optional() })).min(1).max(4),
        }),
      )
      .min(1)
      .max(20),
  })
  .openapi('CustomizationFontDefinitionInput');
const FontSchema = z.union([z.enum(DEFAULT_FONTS), FontDefinitionSchema]);
const MonospaceFontSchema = z.union([z.enum(MONOSPACE_FONTS), FontDefinitionSchema]);

const CODE_THEMES = [
  'default-light', 'default-dark', 'monochrome-light', 'monochrome-dark', 'andromeeda', 'aurora-x', 'ayu-dark', 'catppuccin-frappe',
  'catppuccin-latte', 'catppuccin-macchiato', 'catppuccin-mocha', 'dark-plus', 'dracula', 'dracula-soft', 'everforest-dark',
  'everforest-light', 'github-dark', 'github-dark-default', 'github-dark-dimmed', 'github-dark-high-contrast', 'github-light',
  'github-light-default', 'github-light-high-contrast', 'gruvbox-dark-hard', 'gruvbox-dark-medium', 'gruvbox-dark-soft',
  'gruvbox-light-hard', 'gruvbox-light-medium', 'gruvbox-light-soft', 'houston', 'kanagawa-dragon', 'kanagawa-lotus', 'kanagawa-wave',
  'laserwave', 'light-plus', 'material-theme', 'material-theme-darker', 'material-theme-lighter', 'material-theme-ocean',
  'material-theme-palenight', 'min-dark', 'min-light', 'monokai', 'night-owl', 'nord', 'one-dark-pro', 'one-light', 'plastic',
  'poimandres', 'red', 'rose-pine', 'rose-pine-dawn', 'rose-pine-moon', 'slack-dark', 'slack-ochin', 'snazzy-light', 'solarized-dark',
  'solarized-light', 'synthwave-84', 'tokyo-night', 'vesper', 'vitesse-black', 'vitesse-dark', 'vitesse-light',
] as const;
const CodeThemeSchema = z.enum(CODE_THEMES);
const ThemedCodeThemeSchema = z.strictObject({ light: CodeThemeSchema, dark: CodeThemeSchema });

export const PAGE_ACTIONS = ['assistant', 'external-ai', 'markdown', 'mcp', 'git', 'pdf'] as const;
export type PageAction = (typeof PAGE_ACTIONS)[number];

const SOCIAL_PLATFORMS = [
  'twitter', 'instagram', 'facebook', 'linkedin', 'github', 'discord', 'slack', 'youtube', 'tiktok', 'reddit', 'bluesky', 'mastodon',
  'threads', 'medium',
] as const;
const SocialAccountSchema = z.strictObject({
  platform: z.enum(SOCIAL_PLATFORMS),
  handle: z.string().min(1).max(128),
  display: z.strictObject({ footer: z.boolean(), header: z.boolean() }),
});

// ---------------------------------------------------------------------------------------------
// Groups: the nested objects whose fields a site space overrides one by one (services/sites/customization
// merges group by group; every other value, arrays and colors included, is replaced whole).

const SidebarSchema = z.object({ background: z.enum(['default', 'filled']), list: z.enum(['default', 'pill', 'line']) });
const CodeThemesSchema = z.object({ default: ThemedCodeThemeSchema, openapi: ThemedCodeThemeSchema });

const StylingSchema = z.object({
  theme: z.enum(['clean', 'muted', 'bold', 'gradient']),
  primaryColor: ThemedColorSchema,
  tint: z.strictObject({ color: ThemedColorSchema }).optional(),
  infoColor: ThemedColorSchema,
  successColor: ThemedColorSchema,
  warningColor: ThemedColorSchema,
  dangerColor: ThemedColorSchema,
  corners: z.enum(['straight', 'rounded', 'circular']),
  depth: z.enum(['subtle', 'flat']),
  links: z.enum(['default', 'accent']),
  font: FontSchema,
  headingFont: FontSchema.nullable().optional().openapi({ description: 'null: headings use `font`' }),
  monospaceFont: MonospaceFontSchema,
  background: z.enum(['plain', 'match']).openapi({ deprecated: true, description: 'Deprecated: use tint' }),
  icons: z.enum(['regular', 'solid', 'duotone', 'light', 'thin']),
  codeTheme: CodeThemesSchema,
  sidebar: SidebarSchema,
  search: z.enum(['prominent', 'subtle']),
});

const InternationalizationSchema = z
  .object({ locale: z.enum(['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru']) })
  .openapi({ deprecated: true });

const HeaderSchema = z.object({
  preset: z.enum(['default', 'bold', 'contrast', 'custom', 'none']).openapi({ deprecated: true, description: 'Deprecated: use styling.theme' }),
  logo: ThemedUrlSchema.optional(),
  primaryLink: CustomizationContentRefSchema.optional().openapi({ description: 'Where the site title or logo leads' }),
  backgroundColor: ThemedColorSchema.optional().openapi({ deprecated: true }),
  linkColor: ThemedColorSchema.optional().openapi({ deprecated: true }),
  links: z.array(HeaderItemSchema).max(MAX_HEADER_LINKS),
});

const FooterSchema = z.object({
  logo: ThemedUrlSchema.optional(),
  groups: z.array(FooterGroupSchema).max(MAX_FOOTER_GROUPS),
  copyright: z.string().max(512).optional(),
});

const ThemesSchema = z.object({ default: z.enum(['light', 'dark', 'system']), toggeable: z.boolean() });
const AiSchema = z.object({
  mode: z.enum(['none', 'search', 'assistant']),
  greeting: z.string().max(256).optional(),
  localizedGreeting: localized(128).optional(),
  suggestions: z.array(z.string().min(3).max(64)).max(5).optional(),
  instructions: z.string().max(10000).optional().openapi({ description: 'For the assistant; never shown on the published site' }),
});

/**
 * The page menu. GitBook 0.202 lists the actions (`items`, in order); our specification names three
 * switches. Both are answered, always agreeing; a body may give either (services/sites/customization).
 */
const PageActionsSchema = z.object({
  items: z
    .array(z.enum(PAGE_ACTIONS))
    .max(PAGE_ACTIONS.length)
    .refine((items) => new Set(items).size === items.length, 'must not repeat an action'),
  externalAI: z.boolean(),
  markdown: z.boolean(),
  mcp: z.boolean(),
});

const enabledFlag = () => z.object({ enabled: z.boolean() });
const ExternalLinksSchema = z.object({ target: z.enum(['self', 'blank']) });
const GitSchema = z.object({ showEditLink: z.boolean() });
const UrlSettingSchema = () => z.object({ url: HttpUrlSchema.optional() });
const InsightsSchema = z.object({ trackingCookie: z.boolean() });

/** Fields replaced whole, at the top level. */
const topLevelLeaves = {
  title: SiteTitleSchema.optional(),
  localizedTitle: localized(128).optional(),
  favicon: z
    .union([z.strictObject({ icon: ThemedUrlSchema }), z.strictObject({ emoji: EmojiSchema }), z.strictObject({})])
    .openapi('CustomizationFavicon', { description: 'An icon, an emoji, or {} for the default' }),
  announcement: AnnouncementSchema.optional(),
  socialAccounts: z.array(SocialAccountSchema).max(10),
};

const groups = {
  styling: StylingSchema,
  internationalization: InternationalizationSchema,
  header: HeaderSchema,
  footer: FooterSchema,
  themes: ThemesSchema,
  pdf: enabledFlag(),
  feedback: enabledFlag(),
  ai: AiSchema,
  advancedCustomization: enabledFlag(),
  git: GitSchema,
  pageActions: PageActionsSchema,
  externalLinks: ExternalLinksSchema,
  pagination: enabledFlag(),
  trademark: enabledFlag(),
  privacyPolicy: UrlSettingSchema(),
  socialPreview: UrlSettingSchema(),
  insights: InsightsSchema,
} satisfies Record<CustomizationGroupName, z.ZodType>;

// The groups' names, which the merges follow, are in a zod-free module the published site imports alone.
export { CUSTOMIZATION_GROUPS, type GroupTree } from './customization-groups';

export const SiteCustomizationSettingsSchema = z
  .object({
    ...topLevelLeaves,
    ...groups,
    updatedAt: TimestampSchema.optional().openapi({ description: 'When the settings were last changed; absent if never' }),
  })
  .openapi('SiteCustomizationSettings');
export type SiteCustomizationSettings = z.infer<typeof SiteCustomizationSettingsSchema>;

// ---------------------------------------------------------------------------------------------
// The PUT body: every field optional (omitted: the default), unknown keys refused.

const inputGroup = <T extends z.ZodRawShape>(group: z.ZodObject<T>) => group.partial().strict();

const PageActionsInputSchema = inputGroup(PageActionsSchema).openapi({
  description: '`items` sets the actions and their order; a switch adds (at the end) or removes its action',
});

export const SiteCustomizationInputSchema = z
  .strictObject({
    ...topLevelLeaves,
    styling: StylingSchema.extend({ sidebar: inputGroup(SidebarSchema), codeTheme: inputGroup(CodeThemesSchema) }).partial().strict(),
    internationalization: inputGroup(InternationalizationSchema),
    header: inputGroup(HeaderSchema),
    footer: inputGroup(FooterSchema),
    themes: inputGroup(ThemesSchema),
    pdf: inputGroup(groups.pdf),
    feedback: inputGroup(groups.feedback),
    ai: inputGroup(AiSchema),
    advancedCustomization: inputGroup(groups.advancedCustomization),
    git: inputGroup(GitSchema),
    pageActions: PageActionsInputSchema,
    externalLinks: inputGroup(ExternalLinksSchema),
    pagination: inputGroup(groups.pagination),
    trademark: inputGroup(groups.trademark),
    privacyPolicy: inputGroup(groups.privacyPolicy),
    socialPreview: inputGroup(groups.socialPreview),
    insights: inputGroup(InsightsSchema),
    updatedAt: TimestampSchema.optional().openapi({ description: 'Ignored: accepted so that a read settings object can be written back' }),
  })
  .partial()
  .openapi('SiteCustomizationSettingsInput');
export type SiteCustomizationInput = z.infer<typeof SiteCustomizationInputSchema>;

// ---------------------------------------------------------------------------------------------
// The PATCH body of a site space: every field optional (omitted: unchanged) and nullable (null: back to
// the site's value), group fields one by one.

type Overridable<T extends z.ZodRawShape> = { [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>> };

function overridable<T extends z.ZodRawShape>(shape: T): z.ZodObject<Overridable<T>, z.core.$strict> {
  const fields = Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, z.optional(z.nullable(schema))]));
  return z.strictObject(fields) as unknown as z.ZodObject<Overridable<T>, z.core.$strict>;
}
const overrideGroup = <T extends z.ZodRawShape>(group: z.ZodObject<T>) => overridable(group.shape);

export const SiteSpaceCustomizationOverrideSchema = overridable({
  ...topLevelLeaves,
  styling: overrideGroup(StylingSchema.extend({ sidebar: overrideGroup(SidebarSchema), codeTheme: overrideGroup(CodeThemesSchema) })),
  internationalization: overrideGroup(InternationalizationSchema),
  header: overrideGroup(HeaderSchema),
  footer: overrideGroup(FooterSchema),
  themes: overrideGroup(ThemesSchema),
  pdf: overrideGroup(groups.pdf),
  feedback: overrideGroup(groups.feedback),
  ai: overrideGroup(AiSchema),
  advancedCustomization: overrideGroup(groups.advancedCustomization),
  git: overrideGroup(GitSchema),
  pageActions: overrideGroup(PageActionsSchema),
  externalLinks: overrideGroup(ExternalLinksSchema),
  pagination: overrideGroup(groups.pagination),
  trademark: overrideGroup(groups.trademark),
  privacyPolicy: overrideGroup(groups.privacyPolicy),
  socialPreview: overrideGroup(groups.socialPreview),
  insights: overrideGroup(InsightsSchema),
}).openapi('SiteSpaceCustomizationOverride', {
  description: "A site space's changes to the site's customization: a field omitted is unchanged, null drops the override",
});
export type SiteSpaceCustomizationOverride = z.infer<typeof SiteSpaceCustomizationOverrideSchema>;
