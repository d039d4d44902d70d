import { z } from '@hono/zod-openapi';
import type { TranslationRow } from '../db/schema/translations';
import { TimestampSchema, refuseProtoKey, type UrlContext } from './common';
import { LANGUAGES, LanguageSchema } from './space';

/**
 * Translations (GitBook's `Translation`, `TranslationSource`, `TranslationResult`, `TranslationStatus`).
 * Rows are mapped by `toTranslation`; the runs themselves are services/translations.
 */

/** A translation's languages are a space's (GitBook's `TranslationLanguage`). */
export type TranslationLanguage = (typeof LANGUAGES)[number];
export const TranslationLanguageSchema = LanguageSchema;

/** What a translation's row records: its last run failed is `failed` (with `failure`). */
export const TRANSLATION_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type TranslationStatus = (typeof TRANSLATION_STATUSES)[number];
/** GitBook's `TranslationStatus`: what the API answers. */
export const API_TRANSLATION_STATUSES = ['pending', 'running', 'completed'] as const;
export const TranslationStatusSchema = z.enum(API_TRANSLATION_STATUSES).openapi('TranslationStatus', {
  description:
    "`pending`: a run is queued, or the last run failed (then `failure.message` says why, and the translation waits for a new run); `running`: pages are being translated; `completed`: the last run wrote `result.revision`",
});

export const TranslationSourceSchema = z
  .object({
    space: z.string().min(1).max(128).openapi({ description: 'ID of the source space' }),
    language: TranslationLanguageSchema,
  })
  .openapi('TranslationSource');

/** A rich-text document as posted (validated as page documents are, in services/translations/records). */
export const InstructionsSchema = z
  .preprocess(refuseProtoKey('a document property'), z.record(z.string(), z.unknown()))
  .openapi({ description: "Instructions for the translator: a rich-text document (GitBook's JSONDocument)" });

export const TranslationResultSchema = z
  .object({
    space: z.string().openapi({ description: 'ID of the space containing the result of the translation' }),
    revision: z.string().openapi({ description: 'ID of the revision the last completed run wrote' }),
    language: TranslationLanguageSchema,
  })
  .openapi('TranslationResult', { description: 'Result of a translation: present once a run has completed' });

export const TranslationSchema = z
  .object({
    object: z.literal('translation'),
    id: z.string().openapi({ description: 'Unique identifier of the translation' }),
    status: TranslationStatusSchema,
    failure: z
      .object({ message: z.string() })
      .optional()
      .openapi({
        description:
          "Only when the last run failed: why it stopped. `status` is then `pending` (GitBook's states have no failure: the translation waits for a new run, and `result` still names the last completed one). This deployment's addition to GitBook's Translation",
      }),
    source: TranslationSourceSchema,
    language: TranslationLanguageSchema,
    instructions: z.record(z.string(), z.unknown()).openapi({ description: 'Instructions for the translator (a rich-text document)' }),
    result: TranslationResultSchema.optional(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    stats: z.object({
      runs: z.number().int().openapi({ description: 'Completed runs' }),
      totalWords: z.number().int().openapi({ description: 'Words of source text sent to the translator over all runs' }),
      totalPages: z.number().int().openapi({ description: 'Unique pages translated over all runs' }),
      totalDuration: z.number().int().openapi({ description: 'Total duration of all completed runs (seconds)' }),
      latestRunDuration: z.number().int().openapi({ description: 'Duration of the latest completed run (seconds)' }),
      latestPages: z.number().int().openapi({ description: 'Pages translated by the latest completed run' }),
      latestWords: z.number().int().openapi({ description: 'Words sent to the translator by the latest completed run' }),
    }),
    permissions: z.object({
      view: z.boolean().openapi({ description: 'Whether the caller can view the translation' }),
      edit: z.boolean().openapi({ description: 'Whether the caller can change, run and delete the translation' }),
    }),
    urls: z.object({ location: z.string().openapi({ format: 'uri', description: 'URL of the translation in the API' }) }),
  })
  .openapi('Translation');
export type Translation = z.infer<typeof TranslationSchema>;

export interface TranslationAccess {
  view: boolean;
  edit: boolean;
}

const seconds = (ms: number) => Math.round(ms / 1000);

export function toTranslation(row: TranslationRow, access: TranslationAccess, urls: UrlContext): Translation {
  const language = row.language as TranslationLanguage;
  return {
    object: 'translation',
    id: row.id,
    ...(row.status === 'failed'
      ? { status: 'pending' as const, failure: { message: row.failure ?? 'The run failed' } }
      : { status: row.status as Exclude<TranslationStatus, 'failed'> }),
    source: { space: row.sourceSpaceId, language: row.sourceLanguage as TranslationLanguage },
    language,
    instructions: row.instructions,
    ...(row.resultRevisionId ? { result: { space: row.resultSpaceId, revision: row.resultRevisionId, language } } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    stats: {
      runs: row.runs,
      totalWords: row.totalWords,
      totalPages: row.totalPages,
      totalDuration: seconds(row.totalDurationMs),
      latestRunDuration: seconds(row.latestRunDurationMs),
      latestPages: row.latestPages,
      latestWords: row.latestWords,
    },
    permissions: access,
    urls: { location: `${urls.api}/orgs/${row.orgId}/translations/${row.id}` },
  };
}
