import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { createRepository, gitInfo, githubBody, runGitOperation } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

/**
 * An operation's ending (issue 40): once git/info said `timeout` (a later delivery of its message found it past its
 * limit, the `timeLimitMs` seam), the run still going on (an export, an import of the commit the space already has:
 * neither calls the writer's guarded last batch) ends without changing it: never `success` after `timeout`.
 */

const REPO = 'ending-after-timeout';

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  const files = { 'README.md': '# Home\n\nThe first page.\n', 'guide.md': '# Guide\n\nA page.\n' };
  await createRepository(REPO, { files });
  await createRepository(`${REPO}-export`, { files });
});

/**
 * The database binding of a run that, at its first batch once the operation is running (the `space_gitsync_started`
 * event), has the operation's message delivered again past its limit: that delivery ends it `timeout`.
 */
function timedOutMidway(operationId: string) {
  let done = false;
  const timeOut = async () => {
    if (done) return;
    const row = await env.DB.prepare('select state from git_sync_operations where id = ?').bind(operationId).first<{ state: string }>();
    if (row?.state !== 'running') return;
    done = true;
    await runGitSyncOperation(env, operationId, 2, { timeLimitMs: 0 });
  };
  const db = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'batch') return async (statements: D1PreparedStatement[]) => (await timeOut(), target.batch(statements));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { bindings: { ...env, DB: db } as typeof env, timedOut: () => done };
}

async function queued(spaceId: string, direction: 'import' | 'export', body: Record<string, unknown>): Promise<string> {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token: org.owner.token, body }), 204);
  return (await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(spaceId).first<{ id: string }>())!.id;
}

async function expectStillTimeout(spaceId: string, operationId: string) {
  const info = (await gitInfo(spaceId, org.owner.token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'timeout' });
  const row = await env.DB.prepare('select state, secret from git_sync_operations where id = ?').bind(operationId).first<{ state: string; secret: string | null }>();
  expect(row).toEqual({ state: 'timeout', secret: null });
}

describe('an operation that timed out while it ran', () => {
  it('an import of the commit the space already has stays `timeout`', async () => {
    const space = await createSpace(org.id, org.owner.token);
    await runGitOperation(space.id, org.owner.token, 'import', { ...githubBody(REPO), force: true });
    const operationId = await queued(space.id, 'import', githubBody(REPO));
    const run = timedOutMidway(operationId);
    await runGitSyncOperation(run.bindings, operationId, 1);
    expect(run.timedOut()).toBe(true);
    await expectStillTimeout(space.id, operationId);
  }, 300_000);

  it('an export stays `timeout`, and the space does not record the repository as synced', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const operationId = await queued(space.id, 'export', { ...githubBody(`${REPO}-export`), commitMessage: 'GITBOOK-1: export' });
    const run = timedOutMidway(operationId);
    await runGitSyncOperation(run.bindings, operationId, 1);
    expect(run.timedOut()).toBe(true);
    await expectStillTimeout(space.id, operationId);
    const synced = await env.DB.prepare('select git_sync from spaces where id = ?').bind(space.id).first<{ git_sync: string | null }>();
    expect(synced!.git_sync).toBeNull();
  }, 300_000);
});
