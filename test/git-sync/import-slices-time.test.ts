import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { headOf, importLeftovers, pagesOf, queuedImport, runImport, slicedRepository, SLICE_PAGES, type WriterCall } from '../helpers/git-import-runs';
import { createRepository, gitInfo } from '../helpers/git-sync';
import { seedOrg, type TestOrg } from '../helpers/harness';

/**
 * An import's time (issue 40): the operation's limit is real (checked at every step and by the writer's last batch, not a
 * timer racing the work): past it the operation ends `timeout` and nothing of the import is visible. A run hands over to a
 * continuation message (same operation) before its budget runs out, and a run that died while planning is planned again
 * by its message delivered again. The limits are injected short (seams), the clock moved on by the test.
 */

const REPO = 'import-slices-time';
const operationState = async (spaceId: string, token: string) => ((await gitInfo(spaceId, token)).body.operation as { state: string; error?: string }) ?? { state: 'none' };

async function expectNothingImported(spaceId: string, token: string, head: string) {
  expect(await headOf(spaceId)).toBe(head);
  expect((await pagesOf(spaceId, token)).some((p) => p.title.startsWith('Guide page'))).toBe(false);
  expect(await importLeftovers(spaceId)).toEqual({ entries: 0, rows: 0, progress: 0 });
}

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  await createRepository(REPO, { files: slicedRepository() });
});

describe('an import past its time limit', () => {
  it('ends `timeout` once its limit passes between slices, its stored slices deleted and the space as it was', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: WriterCall[] = [];
    // The clock jumps an hour once the second slice was sent: the limit (10 minutes) passes mid-import.
    const clock = () => Date.now() + (calls.length >= 2 ? 3_600_000 : 0);
    await runImport(space.id, operationId, calls, 1, { clock });
    expect(calls.map((c) => c.method)).toEqual(['continueGitImport', 'continueGitImport']);
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'timeout', error: expect.stringContaining('did not finish within 10 minutes') });
    await expectNothingImported(space.id, org.owner.token, before);
  }, 300_000);

  it('does not move the head when the operation ended while the last call converted (a later message found it stale)', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: WriterCall[] = [];
    const endMeanwhile = async (method: string) => {
      // The operation's message delivered again past its limit ends it `timeout` (its state and the space's).
      if (method === 'applyGitImport') await runGitSyncOperation(env, operationId, 2, { timeLimitMs: 0 });
    };
    await runImport(space.id, operationId, calls, 1, {}, { before: endMeanwhile });
    expect(calls.at(-1)?.method).toBe('applyGitImport');
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'timeout' });
    await expectNothingImported(space.id, org.owner.token, before);
    const revisionGit = await env.DB.prepare('select count(*) as n from revision_git where space_id = ?').bind(space.id).first<{ n: number }>();
    expect(revisionGit!.n).toBe(0);
  }, 300_000);

  it('a message delivered again past the limit ends the import `timeout`, its stored slices deleted', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, REPO);
    await runImport(space.id, operationId, [], 1, { stopAfterSlices: 1 });
    expect((await importLeftovers(space.id)).progress).toBe(1);
    const again: WriterCall[] = [];
    await runImport(space.id, operationId, again, 2, { timeLimitMs: 0 });
    expect(again).toEqual([]);
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'timeout' });
    await expectNothingImported(space.id, org.owner.token, before);
  }, 300_000);
});

describe('an import that continues itself', () => {
  it('queues its continuation (same operation) when its budget runs out, each run going on from the last slice stored; git/info says running until the end', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: WriterCall[] = [];
    const sent: unknown[] = [];
    // No budget: each run applies one slice, then hands over.
    await runImport(space.id, operationId, calls, 1, { runBudgetMs: 0 }, { sent });
    const runs = [calls.length];
    while (sent.length > 0) {
      expect(sent).toEqual([{ id: expect.any(String), type: 'git-sync', payload: { operationId } }]);
      expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'running' });
      expect(await headOf(space.id)).toBe(before);
      sent.length = 0;
      await runImport(space.id, operationId, calls, 1, { runBudgetMs: 0 }, { sent });
      runs.push(calls.length - runs.reduce((a, b) => a + b, 0));
      expect(runs.length).toBeLessThan(20);
    }
    // Every run one call; no slice applied twice; the import whole.
    expect(runs.every((n) => n === 1), JSON.stringify(runs)).toBe(true);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(calls.map((c) => c.from)).toEqual([...new Set(calls.map((c) => c.from))].sort((a, b) => a - b));
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'success' });
    expect((await pagesOf(space.id, org.owner.token)).filter((p) => p.title.startsWith('Guide page'))).toHaveLength(SLICE_PAGES);
  }, 300_000);

  it('a run that died while planning (nothing stored) is planned again by its message delivered again', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const operationId = await queuedImport(org, space.id, REPO);
    await runImport(space.id, operationId, [], 1, { stopAfterPlanning: true });
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'running' });
    expect((await importLeftovers(space.id)).progress).toBe(0);
    const again: WriterCall[] = [];
    await runImport(space.id, operationId, again, 2, {});
    expect(again[0]).toMatchObject({ from: 0 });
    expect(await operationState(space.id, org.owner.token)).toMatchObject({ state: 'success' });
    expect((await pagesOf(space.id, org.owner.token)).filter((p) => p.title.startsWith('Guide page'))).toHaveLength(SLICE_PAGES);
  }, 300_000);
});
