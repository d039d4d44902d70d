import type { ContentRef } from './document';

/**
 * The hrefs our Markdown writes for the space's content: apart from the writer, so that what links to content
 * without writing Markdown (the site's HTML) loads no converter.
 */

/** `/pages/<id>`, `/files/<id>` or the URL: the hrefs that `defaultResolveLink` reads back. */
export function defaultHrefFor(ref: ContentRef): string {
  switch (ref.kind) {
    case 'url':
      return ref.url;
    case 'file':
      return `/files/${ref.file}`;
    case 'page':
      return pageHref(ref.page, ref.space);
    case 'anchor':
      return ref.page ? `${pageHref(ref.page, ref.space)}#${ref.anchor}` : `#${ref.anchor}`;
    case 'space':
      return `/spaces/${ref.space}`;
    case 'collection':
      return `/collections/${ref.collection}`;
    case 'user':
      return `/users/${ref.user}`;
    case 'reusable-content':
      return `/reusable-contents/${ref.reusableContent}`;
    case 'openapi':
      return `/openapi/${ref.spec}`;
    default:
      return '';
  }
}

function pageHref(page: string, space: string | undefined): string {
  return space ? `/spaces/${space}/pages/${page}` : `/pages/${page}`;
}
