import { z } from '@hono/zod-openapi';
import { TimestampSchema, type UrlContext } from './common';
import { toUser, UserSchema, type UserRow } from './user';

/** Comments and replies. Rows are mapped in services/collaboration/comments, which renders a body as Markdown when asked. */

/** How a comment's body is answered: GitBook's `Document` (a rich-text document or Markdown). */
export const DocumentFormatSchema = z.enum(['document', 'markdown']).openapi({ description: 'Output format of bodies (default document)' });
export type DocumentFormat = z.infer<typeof DocumentFormatSchema>;

export const BodySchema = z
  .union([z.object({ markdown: z.string() }), z.object({ document: z.record(z.string(), z.unknown()) })])
  .openapi('CommentBody', { description: 'A rich-text document `{document}` or `{markdown}`' });

export const EmojiReactionsSchema = z
  .array(
    z.object({
      emoji: z.string(),
      count: z.number(),
      users: z.array(z.object({ user: UserSchema, reactedAt: TimestampSchema })),
    }),
  )
  .openapi('EmojiReactions');

const CommentPermissionsSchema = z.object({ view: z.boolean(), edit: z.boolean(), reply: z.boolean(), delete: z.boolean() });

export const TableCellTargetSchema = z.object({ record: z.string().min(1).max(128), definition: z.string().min(1).max(128) }).openapi('TableCellTarget');

export const CommentSchema = z
  .object({
    object: z.literal('comment'),
    id: z.string(),
    postedBy: UserSchema,
    postedAt: TimestampSchema,
    editedAt: TimestampSchema.optional(),
    reactions: EmojiReactionsSchema,
    replies: z.number().openapi({ description: 'Number of replies' }),
    repliers: z.array(z.object({ updatedAt: TimestampSchema, count: z.number().int(), user: UserSchema })),
    body: BodySchema,
    target: z.object({
      space: z.string(),
      revision: z.string().openapi({ description: 'The revision the target was found in when the comment was posted' }),
      changeRequest: z.string().optional(),
      review: z.string().optional(),
      page: z
        .object({
          id: z.string(),
          title: z.string().optional(),
          emoji: z.string().optional(),
          createdAt: TimestampSchema.optional(),
          updatedAt: TimestampSchema.optional(),
          outdated: z.boolean().optional().openapi({ description: 'True when the page, or the block commented on, is no longer in the change request' }),
        })
        .optional(),
      node: z.object({ id: z.string() }).optional(),
      tableCell: TableCellTargetSchema.optional(),
    }),
    urls: z.object({ location: z.string() }),
    permissions: CommentPermissionsSchema,
    status: z.enum(['open', 'resolved']),
    resolvedAt: TimestampSchema.optional(),
    resolvedBy: UserSchema.optional(),
  })
  .openapi('Comment');
export type Comment = z.infer<typeof CommentSchema>;

export const CommentReplySchema = z
  .object({
    object: z.literal('comment-reply'),
    id: z.string(),
    postedBy: UserSchema,
    postedAt: TimestampSchema,
    editedAt: TimestampSchema.optional(),
    reactions: EmojiReactionsSchema,
    body: BodySchema,
    urls: z.object({ location: z.string() }),
    permissions: CommentPermissionsSchema,
  })
  .openapi('CommentReply');
export type CommentReply = z.infer<typeof CommentReplySchema>;

/** A reaction as the comment queries aggregate it (one row per user and emoji). */
export interface ReactionRow {
  emoji: string;
  reactedAt: string;
  user: UserRow;
}

/** Reactions grouped by emoji, in the order each emoji was first used; users in the order they reacted. */
export function toReactions(rows: ReactionRow[], urls: UrlContext): Comment['reactions'] {
  const byEmoji = new Map<string, ReactionRow[]>();
  for (const row of [...rows].sort((a, b) => a.reactedAt.localeCompare(b.reactedAt))) {
    const list = byEmoji.get(row.emoji) ?? [];
    list.push(row);
    byEmoji.set(row.emoji, list);
  }
  return [...byEmoji].map(([emoji, list]) => ({
    emoji,
    count: list.length,
    users: list.map((r) => ({ user: toUser(r.user, urls), reactedAt: r.reactedAt })),
  }));
}
