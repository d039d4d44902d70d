import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { applyGitImport, continueGitImport, type GitImportTarget } from '../../src/services/git-sync/apply';
import { importSlices, IMPORT_SLICE } from '../../src/services/git-sync/markdown-parcels';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { createRepository, gitInfo, githubBody } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { headOf, pagesImportTarget } from '../helpers/git-import-runs';

/**
 * A large import is applied by the SpaceWriter in several calls (issue 40: a Durable Object's request has 30 s of CPU by
 * default, and converting thousands of pages takes minutes of it): each call but the last applies a slice of the changes
 * (at most IMPORT_SLICE's Markdown) to the tree the previous one left, the last makes the revision and moves the head.
 * Until then nothing is visible: the head, the revisions and the pages are as they were; a head that moved between two
 * slices makes the next refuse (409: the import is planned again). Links between pages of different slices resolve.
 */

const PAGES = 12;

function page(n: number): string {
  return `# Page ${n}\n\nParagraph of page ${n}, linking to [the next page](_sp${(n % PAGES) + 1}) and [the previous one](_sp${((n + PAGES - 2) % PAGES) + 1}).\n`;
}

const importTarget = (spaceId: string, userId: string, head: string) => pagesImportTarget({ spaceId, userId, head, pages: PAGES, markdown: page, refPrefix: '_sp' });

const revisionCount = async (spaceId: string) => (await env.DB.prepare('select count(*) as n from revisions where space_id = ?').bind(spaceId).first<{ n: number }>())!.n;

describe('an import applied in slices', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('slices before the last change nothing visible; the last moves the head to every page, links across slices resolved', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const revisions = await revisionCount(space.id);
    const target = importTarget(space.id, org.owner.id, before);
    const [first, second, last] = importSlices(target, [4, 9, PAGES]);
    expect((await continueGitImport(env, first)).next).toBe(4);
    expect((await continueGitImport(env, second)).next).toBe(9);
    // Where the import stands is kept in D1 (each call receives only its slice): every ref has its id from the first slice.
    const stored = await env.DB.prepare('select progress from git_sync_import_progress where operation_id = ?').bind(target.operationId).first<{ progress: string }>();
    expect(Object.keys(JSON.parse(stored!.progress).refIds)).toHaveLength(PAGES);
    expect(await headOf(space.id)).toBe(before);
    expect(await revisionCount(space.id)).toBe(revisions);
    expect((expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as unknown[]).length).toBeLessThan(PAGES);

    const output = await applyGitImport(env, last);
    expect(await headOf(space.id)).toBe(output.revision);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ id: string; title: string }>;
    expect(pages.map((p) => p.title)).toEqual(Array.from({ length: PAGES }, (_, i) => `Page ${i + 1}`));
    // Page 1 (first slice) links to page 12 (last slice) and page 2; page 12 links back to page 1.
    const firstPage = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages[0].id}?format=markdown`, { token: org.owner.token }), 200).body.markdown as string;
    const lastPage = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages[PAGES - 1].id}?format=markdown`, { token: org.owner.token }), 200).body.markdown as string;
    expect(firstPage).toContain(`[the next page](/pages/${pages[1].id})`);
    expect(firstPage).toContain(`[the previous one](/pages/${pages[PAGES - 1].id})`);
    expect(lastPage).toContain(`[the next page](/pages/${pages[0].id})`);
  });

  it('a head that moved between two slices makes the next one refuse (409), and the space keeps that head', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const target = importTarget(space.id, org.owner.id, before);
    const [first, second, last] = importSlices(target, [6, 9, PAGES]);
    await continueGitImport(env, first);
    // Another write of the space meanwhile: a page added through the API.
    const cr = await openChangeRequest(space.id, org.owner.token);
    await applyChanges(space.id, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'Written meanwhile', document: {} }]);
    expectStatus(await merge(space.id, cr.number, org.owner.token), 200);
    const moved = await headOf(space.id);
    expect(moved).not.toBe(before);
    await expect(continueGitImport(env, second)).rejects.toMatchObject({ status: 409 });
    await expect(applyGitImport(env, last)).rejects.toMatchObject({ status: 409 });
    expect(await headOf(space.id)).toBe(moved);
    const titles = (expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ title: string }>).map((p) => p.title);
    expect(titles).toContain('Written meanwhile');
    expect(titles).not.toContain('Page 1');
  });
});

describe('the queue consumer applies a large import in slices', () => {
  it(`over ${IMPORT_SLICE.chars} characters of Markdown: several writer calls, each at most a slice's Markdown, the head moved by the last, the indexes caught up`, async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const filler = 'A line of documentation that the writer converts, long enough to make the page weigh. '.repeat(110);
    const files: Record<string, string> = { 'README.md': '# Home\n\nThe first page.\n' };
    const count = Math.ceil((1.6 * IMPORT_SLICE.chars) / filler.length);
    for (let i = 1; i <= count; i++) files[`guide/page-${i}.md`] = `# Guide page ${i}\n\n${filler}\n\nSee [the next page](page-${(i % count) + 1}.md) and slicedword${i}.\n`;
    await createRepository('import-in-slices', { files });

    // The writer's binding, recording each call and the Markdown it read.
    const calls: Array<{ method: string; chars: number }> = [];
    const writer = spaceWriter(env, space.id);
    const recorded = (method: 'continueGitImport' | 'applyGitImport') => (target: GitImportTarget) => {
      const call = { method, chars: 0 };
      calls.push(call);
      const pull = target.pullMarkdown!;
      const pullMarkdown = async (from: number) => {
        const parcel = await pull(from);
        call.chars += parcel.reduce((n, [, markdown]) => n + markdown.length, 0);
        return parcel;
      };
      return method === 'continueGitImport' ? writer.continueGitImport({ ...target, pullMarkdown }) : writer.applyGitImport({ ...target, pullMarkdown });
    };
    const recordingWriter = {
      idFromName: (name: string) => env.SPACE_WRITER.idFromName(name),
      get: () => ({
        continueGitImport: recorded('continueGitImport'),
        applyGitImport: recorded('applyGitImport'),
        reindex: (id: string) => {
          calls.push({ method: 'reindex', chars: 0 });
          return writer.reindex(id);
        },
      }),
    };
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token: org.owner.token, body: { ...githubBody('import-in-slices'), force: true } }), 204);
    const op = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(space.id).first<{ id: string }>();
    await runGitSyncOperation({ ...env, SPACE_WRITER: recordingWriter } as unknown as typeof env, op!.id);
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });

    expect(calls.map((c) => c.method)).toEqual(['continueGitImport', 'applyGitImport', 'reindex']);
    // Each call read about a slice of Markdown (a parcel may run past the slice's end: at most one parcel more).
    for (const call of calls.slice(0, 2)) expect(call.chars).toBeLessThanOrEqual(IMPORT_SLICE.chars + 256 * 1024);

    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages as Array<{ id: string; title: string; pages?: Array<{ id: string; title: string }> }>;
    const all = pages.flatMap((p) => [p, ...(p.pages ?? [])]);
    expect(all.filter((p) => p.title.startsWith('Guide page'))).toHaveLength(count);
    // The last page (last slice) links to the first (first slice).
    const last = all.find((p) => p.title === `Guide page ${count}`)!;
    const firstId = all.find((p) => p.title === 'Guide page 1')!.id;
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${last.id}?format=markdown`, { token: org.owner.token }), 200).body;
    expect(read.markdown).toContain(`[the next page](`);
    expect(read.markdown).toMatch(new RegExp(`\\[the next page\\]\\([^)]*(${firstId}|page-1\\b)`));
    // The search index reached the pages of both slices.
    for (const word of ['slicedword1', `slicedword${count}`]) {
      const found = expectStatus(await api('GET', `/v1/spaces/${space.id}/search?query=${word}`, { token: org.owner.token }), 200).body;
      expect(JSON.stringify(found), word).toContain(word === 'slicedword1' ? firstId : last.id);
    }
  }, 300_000);
});
