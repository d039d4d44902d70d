import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { createSpace } from '../helpers/content';
import { createRepository, gitInfo, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

/**
 * An export whose push the remote accepted, then ended otherwise than by its own success (issue 40): the repository
 * holds its commit, so the space records it. Whichever way it ended (timed out by a later delivery once pushed, or its
 * consumer died after the push and a later delivery found it stale), the revision gets the commit's `git` and the
 * next import of that commit changes nothing (no loop, no second revision); git/info stays `timeout` and says so.
 */

const SOURCE = 'pushed-then-ended-source';

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  await createRepository(SOURCE, { files: { 'README.md': '# Home\n\nThe first page.\n', 'guide.md': '# Guide\n\nA page.\n' } });
});

/**
 * A space imported from SOURCE, and a repository with other content to export it to: its export is forced (a setup's,
 * GitBook's integration sends `force` there), since an unforced one refuses a branch whose synced files differ.
 */
async function spaceAndTarget(target: string) {
  const space = await createSpace(org.id, org.owner.token);
  await runGitOperation(space.id, org.owner.token, 'import', { ...githubBody(SOURCE), force: true });
  await createRepository(target, { files: { 'README.md': '# Other\n\nSomething else.\n' } });
  const head = (await env.DB.prepare('select revision_id from spaces where id = ?').bind(space.id).first<{ revision_id: string }>())!.revision_id;
  return { space, head };
}

async function queuedExport(spaceId: string, target: string): Promise<string> {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/export`, { token: org.owner.token, body: { ...githubBody(target), commitMessage: 'GITBOOK-7: export', force: true } }), 204);
  return (await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending'`).bind(spaceId).first<{ id: string }>())!.id;
}

/** Whether the operation's push is under way or done: its stats record the commit (or, without the fix, the remote moved). */
async function pushed(operationId: string, target: string, before: string) {
  const row = await env.DB.prepare(`select json_extract(stats, '$.pushing.commit') as pushed from git_sync_operations where id = ?`).bind(operationId).first<{ pushed: string | null }>();
  return Boolean(row?.pushed) || (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim() !== before;
}

/** The database binding of a run whose next batch once it pushed runs `then` first (what happens meanwhile, elsewhere). */
function afterThePush(operationId: string, target: string, before: string, then: () => Promise<void>) {
  return atFirstBatchWhen(() => pushed(operationId, target, before), then);
}

function atFirstBatchWhen(condition: () => Promise<boolean>, then: () => Promise<void>) {
  let done = false;
  const db = new Proxy(env.DB, {
    get(bound, prop) {
      if (prop === 'batch')
        return async (statements: D1PreparedStatement[]) => {
          if (!done && (await condition())) (done = true), await then();
          return bound.batch(statements);
        };
      const value = Reflect.get(bound, prop, bound);
      return typeof value === 'function' ? value.bind(bound) : value;
    },
  });
  return { bindings: { ...env, DB: db } as typeof env, happened: () => done };
}

async function headOf(spaceId: string) {
  return (await env.DB.prepare('select s.revision_id as revision, g.oid, g.message, g.created_by_gitbook as byGitBook from spaces s left join revision_git g on g.revision_id = s.revision_id where s.id = ?')
    .bind(spaceId)
    .first<{ revision: string; oid: string | null; message: string | null; byGitBook: number | null }>())!;
}

const revisionCount = async (spaceId: string) => (await env.DB.prepare('select count(*) as n from revisions where space_id = ?').bind(spaceId).first<{ n: number }>())!.n;
const entryCount = async (spaceId: string) => (await env.DB.prepare('select count(*) as n from git_sync_entries where space_id = ?').bind(spaceId).first<{ n: number }>())!.n;

/** The bindings of a consumer that goes away once its push is done: none of its later writes (the writer's record, its ending) happen. */
function diesAfterThePush(operationId: string, target: string, before: string) {
  const died = afterThePush(operationId, target, before, async () => {
    throw new Error('the consumer went away');
  });
  const writer = env.SPACE_WRITER;
  return {
    ...died.bindings,
    SPACE_WRITER: {
      idFromName: (name: string) => writer.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = writer.get(id);
        return new Proxy(stub, {
          get(target, prop) {
            if (prop === 'recordGitExport') return () => Promise.reject(new Error('the consumer went away'));
            const value = Reflect.get(target, prop, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      },
    },
  } as unknown as typeof env;
}

/** An export to `target` whose consumer went away once its push was done (diesAfterThePush): its commit is on the branch. */
async function pushedThenDied(target: string) {
  const { space, head } = await spaceAndTarget(target);
  const before = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
  const entriesBefore = await entryCount(space.id);
  const operationId = await queuedExport(space.id, target);
  await expect(runGitSyncOperation(diesAfterThePush(operationId, target, before), operationId, 1)).rejects.toThrow('the consumer went away');
  const commit = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
  expect(commit).not.toBe(before);
  return { space, head, before, entriesBefore, operationId, commit };
}

/** An import of the target's main branch (GitBook's integration on the push it saw): nothing changes. */
async function expectImportChangesNothing(spaceId: string, target: string, commit: string) {
  const before = await headOf(spaceId);
  await runGitOperation(spaceId, org.owner.token, 'import', githubBody(target));
  const after = await headOf(spaceId);
  expect(after).toEqual(before);
  expect(after).toMatchObject({ oid: commit, message: 'GITBOOK-7: export', byGitBook: 1 });
}

describe('an export pushed, then ended otherwise', () => {
  it('timed out by a later delivery once pushed: git/info says `timeout` and names the commit, the revision and the space record it', async () => {
    const target = 'pushed-then-timed-out';
    const { space } = await spaceAndTarget(target);
    const before = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    const operationId = await queuedExport(space.id, target);
    const run = afterThePush(operationId, target, before, () => runGitSyncOperation(env, operationId, 2, { timeLimitMs: 0 }));
    await runGitSyncOperation(run.bindings, operationId, 1);
    expect(run.happened()).toBe(true);
    const commit = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    expect(commit).not.toBe(before);
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'timeout', direction: 'export', error: `the operation did not finish in time; its commit ${commit} was pushed to refs/heads/main before it ended: the space's revision records it, and an import of that commit changes nothing` });
    const synced = await env.DB.prepare('select git_sync from spaces where id = ?').bind(space.id).first<{ git_sync: string | null }>();
    expect(JSON.parse(synced!.git_sync!)).toMatchObject({ url: `https://github.com/acme/${target}/blob/main` });
    expect(await headOf(space.id)).toMatchObject({ oid: commit, byGitBook: 1 });
    await expectImportChangesNothing(space.id, target, commit);
  }, 300_000);

  it('its consumer died after the push: a later delivery ends it `timeout`, and the import of the commit records it and changes nothing', async () => {
    const target = 'pushed-then-died';
    const { space, head, entriesBefore, operationId, commit } = await pushedThenDied(target);
    expect(await headOf(space.id)).toMatchObject({ revision: head });

    await env.DB.prepare('update git_sync_operations set created_at = ? where id = ?').bind(new Date(Date.now() - 20 * 60 * 1000).toISOString(), operationId).run();
    await runGitSyncOperation(env, operationId, 2);
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'timeout', error: expect.stringContaining(`its commit ${commit} may have reached the repository`) });

    await runGitOperation(space.id, org.owner.token, 'import', githubBody(target));
    expect(await headOf(space.id)).toMatchObject({ revision: head, oid: commit, message: 'GITBOOK-7: export', byGitBook: 1 });
    // Its rows are not known: the entries the last sync left stay (they were all dropped, and the next export wrote every page anew).
    expect(await entryCount(space.id)).toBe(entriesBefore);
    await expectImportChangesNothing(space.id, target, commit);
  }, 300_000);

  it('its consumer died after the push and its message came again in time: ended `success`, nothing pushed twice, one revision', async () => {
    const target = 'pushed-then-redelivered';
    const { space, head, before, entriesBefore, operationId, commit } = await pushedThenDied(target);
    const revisions = await revisionCount(space.id);

    // The queue delivers the message again (attempts 2), well inside the operation's time limit.
    await runGitSyncOperation(env, operationId, 2);
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success', direction: 'export' });
    expect((await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim()).toBe(commit);
    expect((await gitOutput(target, 'rev-list', '--count', `${before}..${commit}`)).trim()).toBe('1');
    // The pushed revision records the commit: one revision more (the head with the files' git), not two.
    expect(await revisionCount(space.id)).toBe(revisions + 1);
    expect(await headOf(space.id)).toMatchObject({ oid: commit, message: 'GITBOOK-7: export', byGitBook: 1 });
    expect(await headOf(space.id)).not.toMatchObject({ revision: head });
    // The entries are the pushed files' (the next export keeps their blobs), not dropped.
    expect(await entryCount(space.id)).toBe(entriesBefore);
    const readme = await env.DB.prepare(`select oid from git_sync_entries where space_id = ? and path = 'README.md'`).bind(space.id).first<{ oid: string }>();
    expect(readme?.oid).toBe((await gitOutput(target, 'rev-parse', `${commit}:README.md`)).trim());
    await expectImportChangesNothing(space.id, target, commit);
  }, 300_000);

  it('its consumer died before the push and its message came again: the export runs once and pushes once', async () => {
    const target = 'died-before-push-redelivered';
    const { space } = await spaceAndTarget(target);
    const before = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    const operationId = await queuedExport(space.id, target);
    const running = async () => (await env.DB.prepare('select state from git_sync_operations where id = ?').bind(operationId).first<{ state: string }>())?.state === 'running';
    // Gone once running: its first write after (the `started` event) and every one after it (its ending) fail.
    let gone = false;
    const db = new Proxy(env.DB, {
      get(bound, prop) {
        if (prop === 'batch')
          return async (statements: D1PreparedStatement[]) => {
            if (gone || (gone = await running())) throw new Error('the consumer went away');
            return bound.batch(statements);
          };
        const value = Reflect.get(bound, prop, bound);
        return typeof value === 'function' ? value.bind(bound) : value;
      },
    });
    await expect(runGitSyncOperation({ ...env, DB: db } as typeof env, operationId, 1)).rejects.toThrow('the consumer went away');
    expect((await env.DB.prepare('select state from git_sync_operations where id = ?').bind(operationId).first<{ state: string }>())?.state).toBe('running');
    expect((await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim()).toBe(before);

    await runGitSyncOperation(env, operationId, 2);
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'success', direction: 'export' });
    const commit = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(target, 'rev-list', '--count', `${before}..${commit}`)).trim()).toBe('1');
    expect(await headOf(space.id)).toMatchObject({ oid: commit, byGitBook: 1 });
    await expectImportChangesNothing(space.id, target, commit);
  }, 300_000);

  it("the import of its commit (the push's webhook) arrives before its ending: a no-op at once, not a wait behind it", async () => {
    const target = 'pushed-then-imported';
    const { space } = await spaceAndTarget(target);
    const before = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    const operationId = await queuedExport(space.id, target);
    const revisions = await revisionCount(space.id);
    let imported: { outcome: string; headKept?: boolean; operation?: unknown } = { outcome: 'not run' };
    // At the export's first batch once pushed (its ending: the writer recorded the commit, the operation is still running).
    const run = afterThePush(operationId, target, before, async () => {
      const head = (await headOf(space.id)).revision;
      expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token: org.owner.token, body: githubBody(target) }), 204);
      const importId = (await env.DB.prepare(`select id from git_sync_operations where space_id = ? and direction = 'import' and state = 'pending'`).bind(space.id).first<{ id: string }>())!.id;
      try {
        await runGitSyncOperation(env, importId, 1);
        const row = await env.DB.prepare('select state, error from git_sync_operations where id = ?').bind(importId).first();
        imported = { outcome: 'ran', headKept: (await headOf(space.id)).revision === head, operation: row };
      } catch (error) {
        imported = { outcome: String(error) };
      }
    });
    await runGitSyncOperation(run.bindings, operationId, 1);
    expect(run.happened()).toBe(true);
    // The import ended `success` while the export was running, the head untouched by it.
    expect(imported).toEqual({ outcome: 'ran', headKept: true, operation: { state: 'success', error: null } });
    const commit = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    expect((await gitOutput(target, 'rev-list', '--count', `${before}..${commit}`)).trim()).toBe('1');
    const exported = await env.DB.prepare('select state from git_sync_operations where id = ?').bind(operationId).first<{ state: string }>();
    expect(exported?.state).toBe('success');
    expect(await headOf(space.id)).toMatchObject({ oid: commit, message: 'GITBOOK-7: export', byGitBook: 1 });
    expect(await revisionCount(space.id)).toBe(revisions + 1);
    await expectImportChangesNothing(space.id, target, commit);
  }, 300_000);

  it('timed out by a later delivery before its push: nothing is pushed', async () => {
    const target = 'timed-out-before-push';
    const { space } = await spaceAndTarget(target);
    const before = (await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim();
    const operationId = await queuedExport(space.id, target);
    // At its first batch once running (the `space_gitsync_started` event), long before its push.
    const running = async () => (await env.DB.prepare('select state from git_sync_operations where id = ?').bind(operationId).first<{ state: string }>())?.state === 'running';
    const run = atFirstBatchWhen(running, () => runGitSyncOperation(env, operationId, 2, { timeLimitMs: 0 }));
    await runGitSyncOperation(run.bindings, operationId, 1);
    expect(run.happened()).toBe(true);
    expect((await gitOutput(target, 'rev-parse', 'refs/heads/main')).trim()).toBe(before);
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'timeout' });
  }, 300_000);
});
