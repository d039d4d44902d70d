import { z } from '@hono/zod-openapi';

// Bodies of the move and transfer operations of spaces and collections (their own module: schemas/common says why).

/** Where to insert an item among its siblings. */
export const ContentPositionSchema = z
  .object({
    before: z
      .union([z.object({ type: z.literal('space'), space: z.string().min(1) }), z.object({ type: z.literal('collection'), collection: z.string().min(1) })])
      .optional(),
    after: z
      .union([z.object({ type: z.literal('space'), space: z.string().min(1) }), z.object({ type: z.literal('collection'), collection: z.string().min(1) })])
      .optional(),
  })
  .refine((p) => !(p.before && p.after), { message: 'give either before or after, not both' })
  .openapi('ContentPosition');
export type ContentPosition = z.infer<typeof ContentPositionSchema>;

/** Body of the move operations of spaces and collections. */
export const MoveBodySchema = z
  .object({
    parent: z.string().min(1).nullable().optional().openapi({ description: 'The parent collection, or null for the root' }),
    position: ContentPositionSchema.optional(),
  })
  .refine((b) => b.parent !== undefined || b.position !== undefined, { message: 'give parent or position' });

/** Body of the transfer operations of spaces and collections. */
export const TransferBodySchema = z.object({
  organization: z.string().min(1).openapi({ description: 'The unique id of the target organization' }),
});
