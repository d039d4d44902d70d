import { z } from '@hono/zod-openapi';
import { TimestampSchema } from './common';
import { UserSchema } from './user';

/** Change requests (GitBook's `ChangeRequest`). Rows are mapped in services/content/presenter (`outdated` is a rule of services/content/change-requests). */

export const ChangeRequestStatusSchema = z.enum(['draft', 'open', 'archived', 'merged']).openapi('ChangeRequestStatus');
export const ChangeRequestSubjectSchema = z.string().max(100).openapi('ChangeRequestSubject', { description: 'Subject of the change request' });

export const ChangeRequestSchema = z
  .object({
    object: z.literal('change-request'),
    id: z.string(),
    number: z.number().openapi({ description: 'Incremental identifier of the change request in its space' }),
    status: ChangeRequestStatusSchema,
    subject: z.string(),
    description: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Rich-text document' }),
    createdBy: UserSchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    space: z.string(),
    revision: z.string().openapi({ description: 'Active revision of the change request' }),
    revisionInitial: z.string().openapi({ description: 'Revision of the space it was created from' }),
    revisionMergedAncestor: z.string().optional().openapi({ description: 'Latest main revision pulled in by an update' }),
    revisionMerged: z.string().optional().openapi({ description: 'When merged, the revision resulting from the merge' }),
    comments: z.number(),
    outdated: z.boolean().openapi({ description: 'True when main content has moved past this change request' }),
    conversationsIssuesCluster: z.string().optional().openapi({ description: 'ID of the conversations issues cluster this change request addresses (a task of the cluster)' }),
    urls: z.object({ app: z.string(), location: z.string() }),
  })
  .openapi('ChangeRequest');
export type ChangeRequest = z.infer<typeof ChangeRequestSchema>;

// In the zod-free mappers module, which the published site imports alone.
export { changeRequestAppUrl } from './mappers';
