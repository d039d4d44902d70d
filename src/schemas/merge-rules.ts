import { z } from '@hono/zod-openapi';

/** Merge rules of organizations and spaces (their own module: schemas/common says why). */
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
