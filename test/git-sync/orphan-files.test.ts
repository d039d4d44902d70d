import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { r2AssetStore } from '../../src/services/git-sync/assets';
import { GIT_SYNC_OPERATION_META, ORPHAN_SWEEP_CURSOR_KEY, sweepGitOrphanFiles } from '../../src/services/git-sync/cleanup';
import { createSpace } from '../helpers/content';
import { seedOrg } from '../helpers/harness';

/**
 * The hourly sweep of orphan files (services/git-sync/cleanup, `sweepGitOrphanFiles`): a `files/` object an import
 * created (marked with its operation) is deleted once that operation is over without a revision and the object is
 * past the operation's time limit; every other object stays. An import reusing such an object marks it as its own.
 */

const unique = () => crypto.randomUUID().replace(/-/g, '');
const LATER = () => Date.now() + 2 * 60 * 60 * 1000;

/** An operation row of `spaceId` in the given state; `revision`: the revision its import made. */
async function operation(spaceId: string, state: string, revision: string | null = null): Promise<string> {
  const id = `op-${unique()}`;
  await env.DB.prepare(`insert into git_sync_operations (id, space_id, direction, user_id, request, state, revision_id, created_at) values (?, ?, 'import', 'u', '{}', ?, ?, ?)`)
    .bind(id, spaceId, state, revision, new Date().toISOString())
    .run();
  return id;
}

async function put(key: string, operationId?: string) {
  await env.FILES.put(key, `bytes of ${key}`, operationId ? { customMetadata: { [GIT_SYNC_OPERATION_META]: operationId } } : {});
}

/** Runs the sweep until its walk reached the end of `files/` (other test files' objects are in the bucket too). */
async function sweepToTheEnd(now: number, options?: { pages?: number; batch?: number }) {
  let deleted = 0;
  for (let run = 0; run < 1000; run++) {
    deleted += (await sweepGitOrphanFiles(env, now, options)).deleted;
    if (!(await env.FILES.head(ORPHAN_SWEEP_CURSOR_KEY))) return deleted;
  }
  throw new Error('the sweep never reached the end of files/');
}

const exists = async (key: string) => (await env.FILES.head(key)) !== null;

describe('orphan files of imports stopped mid-way', () => {
  it('deletes only objects of operations over without a revision, and only once past the time limit', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const [failed, timedOut, done, running] = [
      await operation(space.id, 'failure'),
      await operation(space.id, 'timeout'),
      await operation(space.id, 'success', 'rev-1'),
      await operation(space.id, 'running'),
    ];
    // A timeout whose writer still made the revision afterwards: its files are referenced.
    const lateWriter = await operation(space.id, 'timeout', 'rev-2');
    const prefix = `files/orphan-${unique()}`;
    const keys = {
      failed: `${prefix}-failed`,
      timedOut: `${prefix}-timed-out`,
      done: `${prefix}-done`,
      running: `${prefix}-running`,
      lateWriter: `${prefix}-late-writer`,
      unknown: `${prefix}-unknown`,
      unmarked: `${prefix}-unmarked`,
      uploadedSince: `${prefix}-uploaded-since`,
    };
    await put(keys.failed, failed);
    await put(keys.timedOut, timedOut);
    await put(keys.done, done);
    await put(keys.running, running);
    await put(keys.lateWriter, lateWriter);
    await put(keys.unknown, `op-${unique()}`);
    await put(keys.unmarked);
    // Created by the failed import, then uploaded again (storeFiles writes no mark): someone's file now.
    await put(keys.uploadedSince, failed);
    await put(keys.uploadedSince);

    // Just written: an operation may still be on its way to its writer.
    await sweepToTheEnd(Date.now());
    for (const key of Object.values(keys)) expect(await exists(key), key).toBe(true);

    expect(await sweepToTheEnd(LATER())).toBeGreaterThanOrEqual(2);
    expect(await exists(keys.failed)).toBe(false);
    expect(await exists(keys.timedOut)).toBe(false);
    for (const key of [keys.done, keys.running, keys.lateWriter, keys.unknown, keys.unmarked, keys.uploadedSince]) expect(await exists(key), key).toBe(true);
  });

  it('is bounded: each run lists at most pages x batch keys and goes on from where the last one stopped', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const failed = await operation(space.id, 'failure');
    const prefix = `files/orphan-${unique()}`;
    for (const n of [1, 2, 3]) await put(`${prefix}-${n}`, failed);
    await env.FILES.delete(ORPHAN_SWEEP_CURSOR_KEY);
    const first = await sweepGitOrphanFiles(env, LATER(), { pages: 1, batch: 2 });
    expect(first.listed).toBeLessThanOrEqual(2);
    // files/ holds more than two objects: the walk stopped and saved where.
    expect(await env.FILES.head(ORPHAN_SWEEP_CURSOR_KEY)).not.toBeNull();
    await sweepToTheEnd(LATER(), { pages: 1, batch: 2 });
    for (const n of [1, 2, 3]) expect(await exists(`${prefix}-${n}`)).toBe(false);
  });

  it('an import reusing an object of an operation without a revision marks it as its own, so the sweep keeps it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const stopped = await operation(space.id, 'running');
    const later = await operation(space.id, 'running');
    const settled = async (id: string) => (await env.DB.prepare(`select revision_id from git_sync_operations where id = ?`).bind(id).first<{ revision_id: string | null }>())?.revision_id != null;
    const bytes = new TextEncoder().encode(`an asset ${unique()}`);
    const first = await r2AssetStore(env.FILES, stopped, settled).storeBytes(bytes, 'text/plain');
    expect((await env.FILES.head(fileKey(first.hash)))?.customMetadata?.[GIT_SYNC_OPERATION_META]).toBe(stopped);

    // The first import is still running (it may fail and discard): the second writes the object with its mark.
    await r2AssetStore(env.FILES, later, settled).storeBytes(bytes, 'text/plain');
    expect((await env.FILES.head(fileKey(first.hash)))?.customMetadata?.[GIT_SYNC_OPERATION_META]).toBe(later);
    await env.DB.prepare(`update git_sync_operations set state = 'timeout' where id = ?`).bind(stopped).run();
    await env.DB.prepare(`update git_sync_operations set state = 'success', revision_id = 'rev-3' where id = ?`).bind(later).run();
    await sweepToTheEnd(LATER());
    expect(await exists(fileKey(first.hash))).toBe(true);

    // An operation that made its revision: a third import reuses the object as it is.
    const third = await operation(space.id, 'running');
    await r2AssetStore(env.FILES, third, settled).storeBytes(bytes, 'text/plain');
    expect((await env.FILES.head(fileKey(first.hash)))?.customMetadata?.[GIT_SYNC_OPERATION_META]).toBe(later);
  });
});
