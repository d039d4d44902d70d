import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import type { GitImportTarget } from '../../src/services/git-sync/apply';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { headOf, pagesOf, queuedImport } from '../helpers/git-import-runs';
import { createRepository, gitInfo, githubBody, noise, runGitOperation, sha256 } from '../helpers/git-sync';
import { seedOrg, type TestOrg } from '../helpers/harness';

/**
 * Every run of an import ends its operation truthfully (issue 40: found-gitprobe17b item 2, an operation left `running`
 * after its run returned). The writer applying the last call and the run not seeing it (the answer lost, the consumer
 * gone) is the import's success, never a `failure` that deletes the files the new revision shows; a run that handed over
 * to its continuation is followed to its end by the test harness, as the queue does.
 */

const REPO = 'operation-ending';
let org: TestOrg;
let imageBytes: Uint8Array;

beforeAll(async () => {
  org = await seedOrg();
  // Bytes no other file of the suite has: the import creates their object (and a failed import would delete it).
  imageBytes = noise(4096, (Date.now() % 100_000) + 7);
  await createRepository(REPO, {
    files: {
      'README.md': '# Home\n\nThe home page.\n',
      'shot.md': '# Shot\n\n![A shot](.gitbook/assets/shot.png)\n',
      '.gitbook/assets/shot.png': { base64: btoa(String.fromCharCode(...imageBytes)) },
    },
  });
});

const operationOf = (id: string) =>
  env.DB.prepare('select state, error, revision_id as revisionId from git_sync_operations where id = ?').bind(id).first<{ state: string; error: string | null; revisionId: string | null }>();

/** The writer's binding, its last import call applied by the real SpaceWriter and then answered by `after`. */
function writerAnsweringLast(spaceId: string, after: () => Promise<never>, calls: string[]) {
  const writer = spaceWriter(env, spaceId);
  return {
    idFromName: (name: string) => env.SPACE_WRITER.idFromName(name),
    get: () => ({
      continueGitImport: (target: GitImportTarget) => (calls.push('continueGitImport'), writer.continueGitImport(target)),
      applyGitImport: async (target: GitImportTarget) => {
        calls.push('applyGitImport');
        await writer.applyGitImport(target);
        return after();
      },
      reindex: (id: string) => writer.reindex(id),
    }),
  };
}

const withWriter = (binding: unknown) => ({ ...env, SPACE_WRITER: binding }) as unknown as typeof env;

describe('an import whose last call the writer applied without the run seeing it', () => {
  it('ends `success` (not `failure`) when the answer is lost, and keeps the files the new revision shows', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await headOf(space.id);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: string[] = [];
    const lost = async (): Promise<never> => {
      throw new Error('Network connection lost.');
    };
    await runGitSyncOperation(withWriter(writerAnsweringLast(space.id, lost, calls)), operationId);
    expect(calls).toEqual(['applyGitImport']);
    const op = await operationOf(operationId);
    expect(op).toMatchObject({ state: 'success', revisionId: expect.any(String) });
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'success' });
    expect(await headOf(space.id)).not.toBe(before);
    expect(await headOf(space.id)).toBe(op!.revisionId);
    expect((await pagesOf(space.id, org.owner.token)).map((p) => p.title)).toContain('Shot');
    // The image the new head shows is still stored (a `failure` deleted the objects this import created).
    expect(await env.FILES.head(`files/${await sha256(imageBytes)}`)).not.toBeNull();
  }, 300_000);

  it('its message delivered again (the consumer went away after the call) ends it `success` without importing twice', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: string[] = [];
    // The consumer never sees the answer: its run does not return (as one stopped by the runtime).
    void runGitSyncOperation(withWriter(writerAnsweringLast(space.id, () => new Promise<never>(() => {}), calls)), operationId);
    for (let i = 0; i < 600 && !(await operationOf(operationId))?.revisionId; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const made = (await operationOf(operationId))!.revisionId;
    expect(made).toEqual(expect.any(String));
    expect((await operationOf(operationId))!.state).toBe('running');
    const again: string[] = [];
    await runGitSyncOperation(withWriter(writerAnsweringLast(space.id, async () => Promise.reject(new Error('not called')), again)), operationId, 2);
    expect(again).toEqual([]);
    expect(await operationOf(operationId)).toMatchObject({ state: 'success', revisionId: made });
    expect(await headOf(space.id)).toBe(made);
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'success' });
  }, 300_000);
});

describe('an import that hands over to its continuation', () => {
  it('is followed to its end by runPending (the flow probes read git/info once it returned)', async () => {
    const space = await createSpace(org.id, org.owner.token);
    // No budget: every run applies one slice and queues its continuation.
    await runGitOperation(space.id, org.owner.token, 'import', { ...githubBody(REPO), force: true }, { runBudgetMs: 0, slice: { chars: 1, changes: 1 } });
    expect((await pagesOf(space.id, org.owner.token)).map((p) => p.title)).toContain('Shot');
  }, 300_000);
});
