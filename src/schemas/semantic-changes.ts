import { z } from '@hono/zod-openapi';

/** GitBook's RevisionSemanticChanges (services/content/semantic-changes). */

/** Default of `limit`: beyond it, `more` says how many were left out. */
export const DEFAULT_CHANGES_LIMIT = 100;

export const ChangesQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(DEFAULT_CHANGES_LIMIT)
    .openapi({ type: 'integer', description: `How many changes at most (1..1000, default ${DEFAULT_CHANGES_LIMIT}); \`more\` counts the rest` }),
});

const ChangedPage = z.object({ id: z.string(), type: z.string(), title: z.string(), path: z.string().optional() }).openapi('ChangedRevisionPage');
const ChangedFile = z.object({ id: z.string(), name: z.string(), contentType: z.string(), downloadURL: z.string() }).openapi('ChangedRevisionFile');
const ChangedReusable = z.object({ id: z.string(), title: z.string(), document: z.string().optional() }).openapi('ChangedRevisionReusableContent');
const Attribute = z.object({ before: z.unknown().optional(), after: z.unknown().optional() });
const Attributes = z.record(z.string(), Attribute);

export const RevisionSemanticChangeSchema = z
  .union([
    z.object({ type: z.enum(['page_created', 'page_deleted']), page: ChangedPage }),
    z.object({ type: z.literal('page_edited'), page: ChangedPage, attributes: Attributes }),
    z.object({ type: z.literal('page_moved'), page: ChangedPage, parent: z.object({ before: ChangedPage.optional(), after: ChangedPage.optional() }) }),
    z.object({ type: z.enum(['file_created', 'file_deleted']), file: ChangedFile }),
    z.object({ type: z.literal('file_edited'), file: ChangedFile, attributes: Attributes }),
    z.object({ type: z.literal('variables_edited'), variables: Attributes }),
    z.object({ type: z.enum(['reusable_content_created', 'reusable_content_deleted']), reusableContent: ChangedReusable }),
    z.object({ type: z.literal('reusable_content_edited'), reusableContent: ChangedReusable, attributes: Attributes }),
  ])
  .openapi('RevisionSemanticChange');

export const RevisionSemanticChangesSchema = z
  .object({
    mergedFrom: z.record(z.string(), z.unknown()).optional().openapi({ description: 'For a merge revision: the change request it merged' }),
    changes: z.array(RevisionSemanticChangeSchema),
    more: z.number().optional().openapi({ description: 'How many changes were left out, beyond `limit`' }),
  })
  .openapi('RevisionSemanticChanges');

export type RevisionSemanticChange = z.infer<typeof RevisionSemanticChangeSchema>;
