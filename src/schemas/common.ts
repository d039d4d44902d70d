import { z } from '@hono/zod-openapi';
import { ROLES } from '../lib/roles';

export const RoleSchema = z.enum(ROLES).openapi('MemberRole', {
  description: 'admin: administrate content; create: create content; review: review content; edit: edit content; comment: access content and discussions; read: access content only',
});

export const RoleOrGuestSchema = RoleSchema.nullable().openapi('MemberRoleOrGuest', {
  description: 'A role, or null for a guest',
});

export const DefaultLevelSchema = z
  .union([RoleSchema, z.literal('inherit')])
  .nullable()
  .openapi('DefaultLevel', { description: 'Default level for a piece of content: a role, null (guest: no default access) or inherit' });

export const TimestampSchema = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

export const IdSchema = (name: string) => z.string().min(1).max(128).openapi({ param: { name, in: 'path' } });

export const UrlsLocationApp = z.object({ location: z.string(), app: z.string() });

/** The list envelope: `{ items, count, next? }`. */
export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      count: z.number().openapi({ description: 'Total count of objects matching the filters' }),
      next: z.object({ page: z.string() }).optional(),
    })
    .openapi(name);
}

// Where a mapper's `urls` start: in the zod-free mappers module, which the published site imports alone.
export { urlContext, type UrlContext } from './mappers';

export const MergeRuleSchema = z.union([
  z.object({ rule: z.enum(['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass']), users: z.array(z.string().min(1)).max(100) }),
  z.object({
    rule: z.enum([
      'require_at_least_one_review',
      'require_at_least_one_approved_review',
      'require_all_reviews_approved',
      'require_author_to_merge',
      'require_up_to_date_change_request',
      'require_change_request_subject',
      'require_change_request_description',
    ]),
  }),
]);

export const StandaloneMergeRulesSchema = z
  .union([
    z.object({ type: z.literal('rules'), rules: z.array(MergeRuleSchema).max(50) }),
    z.object({ type: z.literal('none') }),
  ])
  .openapi('MergeRulesStandaloneConfiguration');

export const SpaceMergeRulesSchema = z
  .union([z.object({ type: z.literal('inherit') }), StandaloneMergeRulesSchema])
  .openapi('MergeRulesSpaceConfiguration');

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

/** A `true`/`false` query parameter with a default. */
export function booleanQuery(defaultValue: boolean, description: string) {
  return z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v === 'true'))
    .openapi({ type: 'boolean', description: `${description} (default ${defaultValue})` });
}

/** `metadata` and `computed`, accepted by every content read. */
export const ContentQuerySchema = z.object({
  metadata: booleanQuery(true, 'false omits mutable Git metadata (this deployment has no Git Sync, so there is none to show)'),
  computed: booleanQuery(
    true,
    'true: computed pages (API references generated from an OpenAPI spec) are read as the pages they generate; false: as they are stored, type computed, without generating',
  ),
});

/**
 * A `z.preprocess` step for maps parsed from JSON: `__proto__` is refused as a key (of `what`). `z.record`
 * skips that key without a word (writing it would set the prototype of its copy), so it is refused on the
 * object as JSON.parse made it (where it is an own property), before the copy. `constructor`, `prototype`
 * and the like are plain keys, kept.
 */
export function refuseProtoKey(what: string) {
  return (value: unknown, ctx: z.RefinementCtx): unknown => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message: `is a reserved name, not ${what} name` });
    }
    return value;
  };
}
