import { toRevisionPage, type ContentUrls, type PageMarkdown } from './presenter';
import type { ReadPage } from './revisions';

/**
 * `{"pages":[…]}` of listPages as a stream, the bytes `JSON.stringify({ pages: pages.map(toRevisionPage) })` makes: each
 * top-level page is made into its API object, written and dropped before the next, so a 5,000-page list never holds every
 * API page object and the whole text beside the tree it was read from (it exceeded a 48 MB heap).
 */
export function pagesJsonStream(pages: ReadPage[], urls: ContentUrls, markdownOf?: PageMarkdown): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const index = next++;
      const opening = index === 0 ? '{"pages":[' : ',';
      if (index === pages.length) {
        controller.enqueue(encoder.encode(`${index === 0 ? '{"pages":[' : ''}]}`));
        return controller.close();
      }
      controller.enqueue(encoder.encode(opening + JSON.stringify(toRevisionPage(pages[index], urls, '', markdownOf))));
    },
  });
}
