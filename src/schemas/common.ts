import { z } from '@hono/zod-openapi';

// What nearly every route module imports: kept to the schemas most routes validate with. The roles, merge rules
// and move bodies are in schemas/roles, schemas/merge-rules and schemas/moves, so that a cold isolate's first request
// (a page read above all) builds only the zod schemas its own route needs (issue 42 item 7).

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
