import { z } from '@hono/zod-openapi';
import { booleanQuery, ContentQuerySchema } from './common';

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

/** `format.markdown.refs`, GitBook's choice of how Markdown writes content references. */
export const MarkdownRefsQuery = {
  'format.markdown.refs': z
    .enum(['relative', 'stable'])
    .optional()
    .openapi({ description: 'How content references are written in Markdown (format=markdown); links to pages are written the same either way here' }),
};

/** Query of a page read by path (getPageByPath, getPageInRevisionByPath): a page read's, and GitBook's refs and cache flags. */
export const PageByPathQuerySchema = PageQuerySchema.extend({
  ...MarkdownRefsQuery,
  cachedMetadata: booleanQuery(false, 'true lets mutable Git metadata come from a cache (there is none here)'),
});

/** A page's path: the slugs of the page and its ancestors joined by `/` (one URL-encoded path segment, or several). */
export const PagePathSchema = z
  .string()
  .min(1)
  .max(2048)
  .openapi({ param: { name: 'pagePath', in: 'path' }, description: 'The path of the page: the slugs of the page and its ancestors joined by `/`' });

// How a page read answers its page, in a module of its own that a route served without zod imports (lib/lazy-router).
export { pageOptions, type PageOptions } from './page-options';
