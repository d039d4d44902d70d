import { expect } from 'vitest';
import { createSpace } from './content';
import { api, expectStatus } from './harness';
import { githubBody, runGitOperation } from './git-sync';

/**
 * Each page of a space as its Markdown (`?format=markdown`) and title, by its file (`git.path`), with the space's own
 * hrefs (`/pages/<id>`) written as the file of that page: two spaces read from the same files compare equal.
 */
export async function pagesByFile(spaceId: string, token: string): Promise<Record<string, { title: string; slug: string; markdown: string }>> {
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
  const flat: any[] = [];
  const walk = (list: any[]) => list.forEach((page) => (flat.push(page), walk(page.pages ?? [])));
  walk(pages);
  const fileOf = new Map(flat.map((page) => [page.id, page.git?.path ?? `(${page.title})`]));
  const out: Record<string, { title: string; slug: string; markdown: string }> = {};
  for (const page of flat) {
    if (page.type !== 'document') continue;
    const markdown: string = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`, { token }), 200).body.markdown;
    out[page.git?.path ?? page.title] = { title: page.title, slug: page.slug, markdown: markdown.replace(/\/pages\/([A-Za-z0-9]+)/g, (whole, id: string) => fileOf.get(id) ?? whole) };
  }
  return out;
}

/** Expects a fresh import of repository `name`'s main branch into a new space to read as `spaceId` does: its documents and files agree. */
export async function expectFreshImportAgrees(orgId: string, token: string, spaceId: string, name: string, compare: 'markdown' | 'all' = 'markdown') {
  const fresh = await createSpace(orgId, token);
  await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
  const [ours, theirs] = [await pagesByFile(spaceId, token), await pagesByFile(fresh.id, token)];
  const pick = (pages: typeof ours) => Object.fromEntries(Object.entries(pages).map(([path, page]) => [path, compare === 'all' ? page : { title: page.title, markdown: page.markdown }]));
  expect(pick(ours)).toEqual(pick(theirs));
}
