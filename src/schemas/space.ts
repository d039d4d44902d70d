import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';
import { DefaultLevelSchema } from './roles';
import { SpaceMergeRulesSchema } from './merge-rules';

/** GitBook 0.202's `TranslationLanguage`: a space's `language`, and what translations translate from and into. */
export const LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'zh-tw', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no',
  'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl',
] as const;
export const LanguageSchema = z.enum(LANGUAGES).openapi('TranslationLanguage');
export const SpaceTitleSchema = z.string().trim().max(50);
export const EmojiSchema = z.string().max(50).openapi({ description: 'Unicode codepoint or character of the emoji' });
export const EditModeSchema = z.enum(['live', 'locked']).openapi('SpaceEditMode');
export const VisibilitySchema = z
  .enum(['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'])
  .openapi('ContentVisibility');

export const SpaceSchema = z
  .object({
    object: z.literal('space'),
    id: z.string(),
    title: z.string(),
    emoji: z.string(),
    visibility: VisibilitySchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    deletedAt: TimestampSchema.optional(),
    editMode: EditModeSchema,
    mergeRules: SpaceMergeRulesSchema,
    urls: z.object({ location: z.string(), app: z.string(), published: z.string().optional(), public: z.string().optional(), icon: z.string().optional() }),
    organization: z.string(),
    parent: z.string().optional(),
    language: LanguageSchema.optional(),
    gitSync: z
      .object({
        repoName: z.string().optional(),
        installationProvider: z.enum(['github', 'gitlab', 'github-legacy']).optional(),
        integration: z.string().optional(),
        url: z.string().optional().openapi({ description: 'The URL of the repository tree (repoTreeURL), which a published page links to with its file path' }),
        updatedAt: TimestampSchema.optional(),
      })
      .optional()
      .openapi({ description: 'The Git repository the space syncs with, once an operation of Git Sync succeeded' }),
    revision: z.string(),
    defaultLevel: DefaultLevelSchema,
    comments: z.number(),
    changeRequests: z.number(),
    changeRequestsOpen: z.number(),
    changeRequestsDraft: z.number(),
    permissions: z.object({
      view: z.boolean(),
      access: z.boolean(),
      admin: z.boolean(),
      viewInviteLinks: z.boolean(),
      edit: z.boolean(),
      triggerGitSync: z.boolean(),
      comment: z.boolean(),
      merge: z.boolean(),
      review: z.boolean(),
      installIntegration: z.boolean(),
    }),
  })
  .openapi('Space');
export type Space = z.infer<typeof SpaceSchema>;

// The mappers are in the zod-free mappers module, which the published site imports alone.
export { spaceAppUrl, toSpace } from './mappers';
