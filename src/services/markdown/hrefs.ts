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

/**
 * The label GitBook writes for a mention of `href` (and for a content-ref's link): its target's file name
 * (`[install.md](../guides/install.md "mention")`), a folder's name for a link to a folder or its `README.md`
 * (`[guides](../guides/ "mention")`). Ours, `/pages/<id>`, is its own label: Git Sync's export replaces both by the
 * file's name, as it writes the path (export.ts `withRepositoryPaths`).
 */
export function mentionLabelOf(href: string): string {
  if (/^\/(?:spaces\/[^/?#]+\/)?(?:pages|files)\/[^/?#]+(?:#.*)?$/.test(href)) return href;
  const segments = href.replace(/[?#].*$/, '').split('/').filter((segment) => segment !== '' && segment !== '.');
  const name = segments.at(-1);
  if (name === undefined) return href;
  const folder = /^readme\.md$/i.test(decoded(name)) && segments.length > 1 ? segments.at(-2)! : name;
  return decoded(folder);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
