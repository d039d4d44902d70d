/**
 * Bounds of a posted document or Markdown page: apart from batch.ts (which loads the Markdown parser), so that the
 * reads and routes that only check or name a limit load no converter.
 */

/** Per page: Markdown is parsed inside the space's writer, so its size and nesting bound that work. */
export const MAX_PAGE_MARKDOWN_CHARS = 256 * 1024;
/** A stored document stays well under D1's 2 MB row limit. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** JSON nesting of a posted document (a block level is about two JSON levels). */
export const MAX_DOCUMENT_DEPTH = 100;
/** Leading run of indentation, quote and list markers on one Markdown line: about 100 nesting levels. */
export const DEEP_MARKDOWN_LINE = /^[ \t>*+\-0-9.)]{256}/m;
