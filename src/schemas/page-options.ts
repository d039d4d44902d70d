// No zod here: a page read served without zod (routes/space-content/content.ts, lib/lazy-router) imports it.

/** How a page read answers its page (services/content/reads): its body's format, evaluated and dereferenced or not. */
export interface PageOptions {
  format: 'document' | 'markdown';
  evaluated: boolean | 'deterministic-only';
  dereferenced: boolean | 'reusable-contents';
}

/** A page read's query (schemas/page-query PageQuerySchema, validated) as the options of its read. */
export function pageOptions(query: {
  format?: 'document' | 'markdown';
  evaluated?: 'true' | 'false' | 'deterministic-only';
  dereferenced?: 'true' | 'false' | 'reusable-contents';
}): PageOptions {
  const flag = <T extends string>(value: 'true' | 'false' | T | undefined): boolean | T =>
    value === undefined || value === 'false' ? false : value === 'true' ? true : value;
  return { format: query.format ?? 'document', evaluated: flag(query.evaluated), dereferenced: flag(query.dereferenced) };
}
