import { expect } from 'vitest';
import { BASE } from './harness';
import { fetchWorker } from './worker';

/** What the tests of page reads check of a page, as the page list and a page read show it. */
export interface ListedPage {
  id: string;
  title: string;
  type: string;
  path: string;
  documentId?: string;
  markdown?: string;
  pages?: ListedPage[];
}

/** Every page of a tree, in the list's order (a page, then its child pages). */
export const flat = (pages: ListedPage[]): ListedPage[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);

/** The text of a 200 JSON answer of the Worker to a GET of `path` with this token. */
export async function jsonTextOf(path: string, token: string): Promise<string> {
  const res = await fetchWorker(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const body = await res.text();
  expect(res.status, `${path}: ${body.slice(0, 300)}`).toBe(200);
  expect(res.headers.get('content-type'), path).toContain('application/json');
  return body;
}

/**
 * The text a page read answers, from the page list of the same content: the page as listed (its child pages with their
 * Markdown), without its own Markdown there, and the body the read answered (`markdown` or `document`) last.
 */
export function expectedRead(listed: ListedPage, read: string): string {
  const { markdown: _listedMarkdown, ...page } = listed;
  const answered = JSON.parse(read) as Record<string, unknown>;
  const body = 'markdown' in answered ? { markdown: answered.markdown } : 'document' in answered ? { document: answered.document } : {};
  return JSON.stringify({ ...page, ...body });
}
