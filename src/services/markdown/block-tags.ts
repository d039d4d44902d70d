/**
 * GitBook's block tags (`{% hint %}`, `{% tabs %}`...), which both converters know: apart from the parser, so that
 * the writer (to-markdown.ts) loads without it.
 */

/** Tags that are blocks of their own, paired with their end tag or alone. */
export const BLOCK_TAG_NAMES = [
  'hint',
  'tabs',
  'tab',
  'stepper',
  'step',
  'columns',
  'column',
  'updates',
  'update',
  'embed',
  'content-ref',
  'page-ref',
  'code',
  'file',
  'include',
  'if',
  'openapi',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
  'prompt',
] as const;
