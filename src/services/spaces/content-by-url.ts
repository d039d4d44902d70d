import type { Db } from '../../db/client';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { toCollection } from '../../schemas/collection';
import type { UrlContext } from '../../schemas/common';
import { toSpace } from '../../schemas/space';
import { requireCollection } from '../collections/collections';
import { toChangeRequest } from '../content/presenter';
import { pageJson, readContent } from '../content/reads';

/**
 * GitBook's getContentByUrl: what an app URL of this deployment shows (the `urls.app` of collections, spaces, change
 * requests and pages: `<app>/o/<org>/c/<collection>`, `<app>/o/<org>/s/<space>[/~/changes/<cr>][/<page path>]`), as the
 * API objects the caller may read. Nothing is fetched: these URLs are this deployment's own, resolved by their path.
 * A URL of another host, of another organization than its object's, or of an object the caller cannot read is a 404.
 */
type AppUrl = { org: string; collection: string } | { org: string; space: string; changeRequest?: string; path: string[] };

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function parseAppUrl(input: string, urls: UrlContext): AppUrl | undefined {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  const app = new URL(urls.app);
  if (url.origin !== app.origin) return undefined;
  const below = url.pathname.slice(app.pathname.replace(/\/$/, '').length);
  const segments = below.split('/').filter((s) => s !== '').map((s) => safeDecode(s));
  if (segments.some((s) => s === undefined)) return undefined;
  const [o, org, kind, id, ...rest] = segments as string[];
  if (o !== 'o' || !ID.test(org ?? '') || !ID.test(id ?? '')) return undefined;
  if (kind === 'c' && rest.length === 0) return { org, collection: id };
  if (kind !== 's') return undefined;
  if (rest[0] === '~' && rest[1] === 'changes' && ID.test(rest[2] ?? '')) return { org, space: id, changeRequest: rest[2], path: rest.slice(3) };
  if (rest[0] === '~') return undefined;
  return { org, space: id, path: rest };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const notFound = () => new ApiError(404, 'No content of this deployment is at this URL');

/**
 * The answer as JSON text: `{ collection }`, or `{ space, changeRequest?, page? }`, the bytes `JSON.stringify` makes of
 * it. The page (GitBook's RevisionPageDocument carries its body: as Markdown here) is written as a page read writes it
 * (reads' pageJson): a page with child pages is streamed, its subpages' Markdown read in batches as they are written,
 * so a group of hundreds of pages is never held whole (issue 40).
 */
export async function contentByUrlJson(db: Db, urls: UrlContext, userId: string, url: string): Promise<string | ReadableStream<Uint8Array>> {
  const target = parseAppUrl(url, urls);
  if (!target) throw notFound();
  if ('collection' in target) {
    const row = await requireCollection(db, target.collection, userId, RANK.read);
    if (row.collection.orgId !== target.org) throw notFound();
    return JSON.stringify({ collection: toCollection(row.collection, row.rank, urls) });
  }
  // One read: the space with the caller's role, the change request, and the page at the path (services/content/reads).
  const source = target.changeRequest === undefined ? { spaceId: target.space } : { spaceId: target.space, changeRequest: target.changeRequest };
  const read = await readContent(db, source, userId, { urls, computed: false, markdown: true, ...(target.path.length > 0 ? { path: target.path } : {}) });
  if (read.space.space.orgId !== target.org) throw notFound();
  if (read.space.rank < RANK.read) throw notFound();
  if (target.path.length > 0 && !read.located) throw new ApiError(404, 'Page not found');
  const head = JSON.stringify({
    space: toSpace(read.space.space, read.space.rank, urls),
    ...(read.changeRequest ? { changeRequest: toChangeRequest(read.changeRequest, urls) } : {}),
  });
  if (!read.located) return head;
  // The page as the answer's last member: before the closing brace of the fields before it.
  return pageJson(db, read, { format: 'markdown', evaluated: false, dereferenced: false }, { open: `${head.slice(0, -1)},"page":`, close: '}' });
}
