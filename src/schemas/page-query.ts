import { z } from '@hono/zod-openapi';
import { ContentQuerySchema } from './common';

/** Query of a page read: `format`, `evaluated`, `dereferenced`, plus `metadata` and `computed`. */
export const PageQuerySchema = ContentQuerySchema.extend({
  format: z.enum(['document', 'markdown']).optional().openapi({ description: 'Output format of the page body (default document)' }),
  evaluated: z
    .enum(['true', 'false', 'deterministic-only'])
    .optional()
    .openapi({ description: 'true or deterministic-only: expressions are replaced by their values (all of ours are deterministic); default false' }),
  dereferenced: z
    .enum(['true', 'false', 'reusable-contents'])
    .optional()
    .openapi({ description: 'true or reusable-contents: reusable content blocks are replaced by their content; default false' }),
});

/** How a page read answers its page (services/content/reads): its body's format, evaluated and dereferenced or not. */
export interface PageOptions {
  format: 'document' | 'markdown';
  evaluated: boolean | 'deterministic-only';
  dereferenced: boolean | 'reusable-contents';
}

export function pageOptions(query: Pick<z.infer<typeof PageQuerySchema>, 'format' | 'evaluated' | 'dereferenced'>): PageOptions {
  const flag = <T extends string>(value: 'true' | 'false' | T | undefined): boolean | T =>
    value === undefined || value === 'false' ? false : value === 'true' ? true : value;
  return { format: query.format ?? 'document', evaluated: flag(query.evaluated), dereferenced: flag(query.dereferenced) };
}
