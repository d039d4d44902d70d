import type { ContentChange } from '../content/batch';

/**
 * An import's Markdown held neither by the SpaceWriter nor by the plan (issue 40: memory bounded whatever the number of
 * pages). The queue consumer's plan reads each page's blob once to find what it links to, then lets its text go: its
 * changes carry `{ markdown: '' }`, and the writer reads the Markdown over RPC a parcel at a time as its conversion
 * reaches each page (apply.ts markdownReader): each parcel is read again from the session's blobs (kept compressed in its
 * packs) and its links rewritten then. Neither side holds more than a parcel of Markdown text at once.
 */

/** The Markdown of the changes from index `from` on that have some, in order: at least one, up to MARKDOWN_PARCEL_CHARS. */
export type MarkdownSource = (from: number) => Promise<Array<[index: number, markdown: string]>>;

/** Characters of Markdown one parcel carries at most (unless its one page alone is larger: a page is under MAX_PAGE_MARKDOWN_CHARS). */
export const MARKDOWN_PARCEL_CHARS = 256 * 1024;

export const hasMarkdown = (change: ContentChange): change is Extract<ContentChange, { document?: unknown }> & { document: { markdown: string } } =>
  (change.operation === 'insert_page' || change.operation === 'update_page') && !!change.document && 'markdown' in change.document;

/**
 * The Markdown of `pages` (change index, its length in characters when first read), read by `read` a parcel at a time:
 * the parcel from `from` on is the pages up to MARKDOWN_PARCEL_CHARS by their lengths (at least one), read when asked.
 * `held` is the most characters one parcel carried (the tests read it).
 */
export function markdownParcels(pages: Array<{ index: number; chars: number }>, read: (index: number) => Promise<string>): MarkdownSource & { held: number } {
  const ordered = [...pages].sort((a, b) => a.index - b.index);
  const source = async (from: number) => {
    const parcel: Array<[number, string]> = [];
    let chars = 0;
    for (const { index, chars: size } of ordered) {
      if (index < from) continue;
      if (parcel.length > 0 && chars + size > MARKDOWN_PARCEL_CHARS) break;
      const markdown = await read(index);
      parcel.push([index, markdown]);
      chars += markdown.length;
    }
    source.held = Math.max(source.held, chars);
    return parcel;
  };
  source.held = 0;
  return source;
}
