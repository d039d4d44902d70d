import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { continueGitImport, type GitImportTarget } from '../../src/services/git-sync/apply';
import { importSlices } from '../../src/services/git-sync/markdown-parcels';
import type { ImportSeams } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { headOf, pagesOf, queuedImport, runImport, slicedRepository, SLICE_PAGES, SMALL_SLICE, type WriterCall } from '../helpers/git-import-runs';
import { createRepository, gitInfo } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

/**
 * An import applied in slices (issue 40), as the queue consumer runs it: each SpaceWriter call receives only its slice
 * (its changes, and the plans of the pages and files whose rows it makes), not the import's whole change list; where the
 * import stands is kept in D1, so a consumer that stops after slice k (it died, or ran out of time) is continued by the
 * message delivered again from slice k + 1, the pages and files of every slice linked as in one run; until the last call
 * nothing is visible. Slices are cut small here (the `slice` seam) so that a dozen pages make several.
 */

const PAGES = SLICE_PAGES;
const SLICE = SMALL_SLICE;
type Call = WriterCall;
const repository = slicedRepository;
const run = (spaceId: string, operationId: string, calls: Call[], attempts: number, seams: ImportSeams) => runImport(spaceId, operationId, calls, attempts, seams);

describe('an import in slices, each call its slice, continued after its consumer stopped', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
    await createRepository('import-slices-resume', { files: repository() });
  });

  it('each writer call carries its slice only: its changes, and the rows of a share of the pages and files', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const calls: Call[] = [];
    await run(space.id, await queuedImport(org, space.id, 'import-slices-resume'), calls, 1, {});
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'success' });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    // Every change and every page plan goes to one call; none gets them all (each call used to carry the whole list).
    const total = calls.reduce((n, c) => n + c.changes, 0);
    expect(total).toBeGreaterThanOrEqual(PAGES + 1);
    const pageRows = await env.DB.prepare(`select count(*) as n from git_sync_entries where space_id = ? and kind = 'page'`).bind(space.id).first<{ n: number }>();
    expect(pageRows!.n).toBeGreaterThan(PAGES);
    expect(calls.reduce((n, c) => n + c.pages, 0)).toBe(pageRows!.n);
    expect(calls.reduce((n, c) => n + c.files, 0)).toBe(1);
    for (const call of calls) {
      expect(call.changes, JSON.stringify(calls)).toBeLessThanOrEqual(SLICE.changes);
      expect(call.pages, JSON.stringify(calls)).toBeLessThan(PAGES);
    }
    // The calls after the first carry no list of the whole import (the first names every new page's ref).
    for (const call of calls.slice(1)) expect(call.bytes, JSON.stringify(calls)).toBeLessThan(calls[0].bytes);
    expect(calls.map((c) => c.from)).toEqual([...calls.map((c) => c.from)].sort((a, b) => a - b));
    // Nothing of the import is left in D1 once it ended.
    const left = await env.DB.prepare(`select (select count(*) from git_sync_import_rows r join git_sync_operations o on o.id = r.operation_id where o.space_id = ?1) + (select count(*) from git_sync_import_progress where space_id = ?1) as n`).bind(space.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  }, 300_000);

  it('a consumer stopped after slice 1 leaves the operation running and the space as it was; the message delivered again continues from slice 2', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, 'import-slices-resume');
    const first: Call[] = [];
    await run(space.id, operationId, first, 1, { stopAfterSlices: 1 });
    expect(first.map((c) => c.method)).toEqual(['continueGitImport']);
    // Running, nothing visible: the head, the pages, the entries the export compares with.
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'running' });
    expect(await headOf(space.id)).toBe(before);
    expect((await pagesOf(space.id, org.owner.token)).some((p) => p.title.startsWith('Guide page'))).toBe(false);
    expect((await env.DB.prepare('select count(*) as n from git_sync_entries where space_id = ?').bind(space.id).first<{ n: number }>())!.n).toBe(0);

    const again: Call[] = [];
    await run(space.id, operationId, again, 2, {});
    expect((await gitInfo(space.id, org.owner.token)).body.operation, JSON.stringify(again)).toMatchObject({ state: 'success' });
    // It went on from where the first run stopped: no slice applied twice.
    expect(again[0].from).toBe(first[0].from + first[0].changes);
    const all = await pagesOf(space.id, org.owner.token);
    expect(all.filter((p) => p.title.startsWith('Guide page'))).toHaveLength(PAGES);
    // Links across the two runs' slices resolve, and so does the image (the new file has the id the first run gave it).
    const firstId = all.find((p) => p.title === 'Guide page 1')!.id;
    const last = all.find((p) => p.title === `Guide page ${PAGES}`)!;
    const markdown = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${last.id}?format=markdown`, { token: org.owner.token }), 200).body.markdown as string;
    expect(markdown).toContain(`[the next page](/pages/${firstId})`);
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files`, { token: org.owner.token }), 200).body.items as Array<{ id: string }>;
    expect(files).toHaveLength(1);
    expect(markdown).toContain(files[0].id);
    const entries = await env.DB.prepare(`select count(*) as n from git_sync_entries where space_id = ? and kind = 'file'`).bind(space.id).first<{ n: number }>();
    expect(entries!.n).toBe(1);
  }, 300_000);
});

describe('a batch ref of a later slice at the path of a page an earlier slice made', () => {
  it('is refused, as a ref at the path of a page of the head is', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const head = await headOf(space.id);
    const page = (ref: string, slug: string, at: number) => ({ operation: 'insert_page' as const, ref, at, title: slug, slug, document: { markdown: `# ${slug}\n` } });
    // The first slice makes a page whose path is `late`; the second inserts a page of ref `late`.
    const target: GitImportTarget = {
      spaceId: space.id,
      userId: org.owner.id,
      operationId: `op-collide-${space.id}`,
      expectedHead: head,
      standalone: false,
      changes: [page('a', 'late', 0), page('late', 'other', 1)],
      pages: [],
      files: [],
      newFiles: [],
      includes: [],
      droppedIncludes: [],
      pathPrefix: '',
      redirects: {},
      git: { oid: 'c'.repeat(40), message: 'Collide', url: null, ref: 'refs/heads/main', createdByGitBook: false },
    };
    const [first, second] = importSlices(target, [1, 2]);
    await continueGitImport(env, first);
    await expect(continueGitImport(env, second)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('ref "late" collides') });
    expect(await headOf(space.id)).toBe(head);
  });
});
