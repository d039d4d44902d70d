import type { ContentChange } from '../content/batch';

/**
 * An import's Markdown kept out of the SpaceWriter's request (issue 40: the writer's memory bounded whatever the number
 * of pages): the queue consumer, which holds the plan anyway, sends the changes with their Markdown left out, and the
 * writer reads it back over RPC a parcel at a time as its conversion reaches each page (apply.ts markdownReader).
 */

/** The Markdown of the changes from index `from` on that have some, in order: at least one, up to MARKDOWN_PARCEL_CHARS. */
export type MarkdownSource = (from: number) => Promise<Array<[index: number, markdown: string]>>;

/** Characters of Markdown one parcel carries at most (unless its one page alone is larger: a page is under MAX_PAGE_MARKDOWN_CHARS). */
export const MARKDOWN_PARCEL_CHARS = 256 * 1024;

export const hasMarkdown = (change: ContentChange): change is Extract<ContentChange, { document?: unknown }> & { document: { markdown: string } } =>
  (change.operation === 'insert_page' || change.operation === 'update_page') && !!change.document && 'markdown' in change.document;

/**
 * The changes as the writer is sent them, their Markdown left out (`{ markdown: '' }`), and where the writer reads it
 * (GitImportTarget.pullMarkdown, called over RPC while the writer converts): in the queue consumer, which holds the plan anyway.
 */
export function withheldMarkdown(changes: ContentChange[]): { changes: ContentChange[]; pull: MarkdownSource } {
  const indices = changes.flatMap((change, index) => (hasMarkdown(change) ? [index] : []));
  return {
    changes: changes.map((change) => (hasMarkdown(change) ? { ...change, document: { markdown: '' } } : change)),
    pull: async (from) => {
      const parcel: Array<[number, string]> = [];
      let chars = 0;
      for (const index of indices) {
        if (index < from) continue;
        const markdown = (changes[index] as { document: { markdown: string } }).document.markdown;
        if (parcel.length > 0 && chars + markdown.length > MARKDOWN_PARCEL_CHARS) break;
        parcel.push([index, markdown]);
        chars += markdown.length;
      }
      return parcel;
    },
  };
}
