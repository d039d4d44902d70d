import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RevisionTree, SyncedSpace } from '../../src/services/git-sync/content';
import { planImport } from '../../src/services/git-sync/import';
import { hasMarkdown, MARKDOWN_PARCEL_CHARS } from '../../src/services/git-sync/markdown-parcels';
import { GitSession } from '../../src/services/git-sync/transport';
import { splitCredentials } from '../../src/services/git-sync/urls';
import { createRepository, repositoryUrl } from '../helpers/git-sync';

/**
 * The queue consumer's side of an import holds a bounded window of Markdown whatever the number of pages (issue 40):
 * the plan reads each page's blob once (the files it links to), then lets the text go; its changes carry none, and its
 * `markdown` source reads the pages again from the session's blobs a parcel at a time (markdown-parcels), with what their
 * links lead to, as the SpaceWriter asks for them. Seen from the plan: a small fraction of the Markdown, and parcels
 * under MARKDOWN_PARCEL_CHARS that together give every page's text as written and its links resolved.
 */

const EMPTY_SPACE = { head: { id: 'none', pages: null, files: null, meta: { variables: {}, reusableContents: [] }, pageCount: 0, fileCount: 0 }, headGitOid: null, deleted: false, editMode: 'live', entries: [] } as unknown as SyncedSpace;
const EMPTY_TREE: RevisionTree = { pages: new Map(), order: [], files: new Map() };
const noAssets = {
  storeBytes: () => Promise.reject(new Error('this repository has no assets')),
  storeStream: () => Promise.reject(new Error('this repository has no assets')),
};

describe("the import plan's Markdown window", () => {
  it('holds no Markdown in the plan, and reads it again in parcels with what its links lead to', async () => {
    const name = `plan-window-${Date.now().toString(36)}`;
    const filler = 'A line of documentation the plan reads once for its links, then lets go. '.repeat(160);
    const files: Record<string, string> = { 'README.md': '# Home\n\nThe first page.\n' };
    for (let i = 1; i <= 50; i++) files[`guide/page-${i}.md`] = `# Guide page ${i}\n\n${filler}\n\nSee [the next page](page-${(i % 50) + 1}.md).\n`;
    const markdownChars = Object.values(files).reduce((n, text) => n + text.length, 0);
    expect(markdownChars).toBeGreaterThan(2 * MARKDOWN_PARCEL_CHARS);
    await createRepository(name, { files });

    const { url, credentials } = splitCredentials(repositoryUrl(name));
    const session = new GitSession(env as never, url, credentials);
    const commit = await session.fetchRef('refs/heads/main');
    const plan = await planImport(session, commit!, { maxFileBytes: 1024 * 1024, assets: noAssets }, EMPTY_SPACE, EMPTY_TREE);

    // The plan: its structure (pages, refs, paths), a small fraction of the repository's Markdown; no change carries any.
    expect(JSON.stringify(plan).length).toBeLessThan(markdownChars / 10);
    const pages = plan.changes.flatMap((change, index) => (hasMarkdown(change) ? [index] : []));
    expect(pages).toHaveLength(51);
    for (const index of pages) expect((plan.changes[index] as { document: { markdown: string } }).document.markdown).toBe('');

    // Read as the writer reads it: parcels in order, each under the bound, every page once.
    const read = new Map<number, string>();
    const linksOf = new Map<number, unknown>();
    let parcels = 0;
    for (let from = 0; ; ) {
      const parcel = await plan.markdown(from);
      if (parcel.length === 0) break;
      parcels++;
      expect(parcel.reduce((n, [, text]) => n + text.length, 0)).toBeLessThanOrEqual(MARKDOWN_PARCEL_CHARS);
      for (const [index, text, links] of parcel) read.set(index, text), linksOf.set(index, links);
      from = parcel[parcel.length - 1][0] + 1;
    }
    expect(parcels).toBeGreaterThan(2);
    expect(plan.markdown.held).toBeLessThanOrEqual(MARKDOWN_PARCEL_CHARS);
    expect([...read.keys()]).toEqual(pages);
    // Each page's text as written, and its link to the next page leading to the ref the batch gives that page.
    const refOf = new Map(plan.pages.map((p) => [p.key, p.ref]));
    const third = plan.changes.findIndex((c) => c.operation === 'insert_page' && c.ref === refOf.get('guide/page-3.md'));
    expect(read.get(third)).toBe(files['guide/page-3.md']);
    expect(linksOf.get(third)).toEqual({ path: 'guide/page-3.md', targets: { 'guide/page-4.md': refOf.get('guide/page-4.md') } });
    // A parcel asked from a page on starts with that page.
    expect((await plan.markdown(third))[0]).toEqual([third, read.get(third), linksOf.get(third)]);
  }, 120_000);
});
