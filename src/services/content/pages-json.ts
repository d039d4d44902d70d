import { toRevisionPage, type ContentUrls, type PageMarkdown } from './presenter';
import type { ReadPage } from './revisions';

/**
 * `{"pages":[…]}` of listPages as a stream, the bytes `JSON.stringify({ pages: pages.map(toRevisionPage) })` makes: each
 * page is made into its API object without its child pages, written and dropped, then its children the same way, so a
 * 5,000-page list never holds every API page object and the whole text beside the tree it was read from (it exceeded a
 * 48 MB heap). Page by page at every level, not a top-level page at a time: a space whose one top-level group holds most
 * pages (Convai-Documentation: 632 of 717 under "Plugins & Integrations") made that group's whole subtree at once, and
 * its list, read after its import, was what a 48 MB heap cap killed.
 */
export function pagesJsonStream(
  pages: ReadPage[],
  urls: ContentUrls,
  markdownOf?: PageMarkdown,
  /** Before each page is written (its Markdown read: reads' `markdownReady`, tree-markdown); awaited when it answers a promise. */
  ready?: (page: ReadPage) => Promise<void> | undefined,
  /**
   * The text around the pages' array: `{"pages":[` and `]}` by default; a revision's (revisionJsonStream) or a page
   * read's (reads' pageJson, whose child pages' paths start with its path: `parentPath`) else.
   */
  around: { open: string; close: string; parentPath?: string } = { open: '{"pages":[', close: ']}' },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  // A page's JSON is cut where its `pages` array goes: at a placeholder no title or path can spell (random per list).
  const placeholder = `\u0000${crypto.randomUUID()}\u0000`;
  const quoted = JSON.stringify(placeholder);
  /** Each level being written: its pages, the next one's index, its parent's path, and the text that closes it. */
  const stack: Array<{ pages: ReadPage[]; next: number; parentPath: string; close: string }> = [{ pages, next: 0, parentPath: around.parentPath ?? '', close: around.close }];
  let opened = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let out = opened ? '' : around.open;
      opened = true;
      // One page's own text per pull (with the closings before it): a level that ended closes, then its parent goes on.
      for (;;) {
        const level = stack.at(-1);
        if (!level) {
          controller.enqueue(encoder.encode(out));
          return controller.close();
        }
        if (level.next === level.pages.length) {
          stack.pop();
          out += level.close;
          continue;
        }
        const index = level.next++;
        const page = level.pages[index];
        const reading = ready?.(page);
        if (reading) await reading;
        if (index > 0) out += ',';
        const withoutChildren = toRevisionPage({ ...page, pages: [] }, urls, level.parentPath, markdownOf);
        if (page.pages.length === 0 || !('pages' in withoutChildren)) {
          // No child pages (or a kind that shows none): the page as toRevisionPage makes it.
          out += JSON.stringify(page.pages.length === 0 ? withoutChildren : toRevisionPage(page, urls, level.parentPath, markdownOf));
        } else {
          const text = JSON.stringify({ ...withoutChildren, pages: [placeholder] });
          const at = text.indexOf(quoted);
          out += text.slice(0, at);
          const path = level.parentPath ? `${level.parentPath}/${page.slug}` : page.slug;
          stack.push({ pages: page.pages, next: 0, parentPath: path, close: text.slice(at + quoted.length) });
        }
        controller.enqueue(encoder.encode(out));
        return;
      }
    },
  });
}
