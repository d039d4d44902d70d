/**
 * Where a document keeps its source patch (source-patch.ts), and how a client's document loses one: apart from the
 * patching itself, so that checking a posted document (document.ts) loads no converter.
 */
export const SOURCE_PATCH_KEY = 'markdownSource';

/** A client's document without the patch: only what our converter read from Markdown may carry one. */
export function withoutSourcePatch<T extends { data?: Record<string, unknown> }>(document: T): T {
  if (!document.data || !(SOURCE_PATCH_KEY in document.data)) return document;
  const { [SOURCE_PATCH_KEY]: _dropped, ...data } = document.data;
  return { ...document, data };
}
