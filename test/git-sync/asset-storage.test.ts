import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { MULTIPART_ABOVE, MULTIPART_PART_BYTES, r2AssetStore } from '../../src/services/git-sync/assets';
import { STAGING_PREFIX, sweepGitStaging } from '../../src/services/git-sync/cleanup';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { blobId, chunked, createRepository, gitInfo, gitOutput, noise, repositoryUrl, sha256 } from '../helpers/git-sync';

/**
 * Where an import's files go in R2 (services/git-sync/assets): a file up to GIT_SYNC_MAX_FILE_BYTES (100 MiB by
 * default, whatever MAX_FILE_BYTES says: it is never held) streamed, as a multipart upload above MULTIPART_ABOVE;
 * what a failed import stored deleted unless something rewrote it; staged blobs a stopped Worker left swept.
 */


function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function importRepo(spaceId: string, token: string, body: Record<string, unknown>, runEnv = env) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  const rows = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at, rowid`).bind(spaceId).all<{ id: string }>();
  for (const row of rows.results) await runGitSyncOperation(runEnv, row.id);
  return (await gitInfo(spaceId, token)).body;
}

const stagedKeys = async () => (await env.FILES.list({ prefix: STAGING_PREFIX })).objects.map((o) => o.key);

// Blobs are streamed above 64 KB in these tests (the code reads the threshold at each use): a file of a few hundred
// kilobytes takes the path a file of megabytes takes with the default. Multipart's threshold is R2's (parts of at
// least 5 MiB), so the multipart tests keep their size, just over it.
const streamAbove = GIT_TRANSFER_LIMITS.streamAbove;
beforeEach(() => void (GIT_TRANSFER_LIMITS.streamAbove = 64 * 1024));
afterEach(() => void (GIT_TRANSFER_LIMITS.streamAbove = streamAbove));

describe('an import streams a file over MAX_FILE_BYTES into R2 (multipart above MULTIPART_ABOVE)', () => {
  it('an asset over MULTIPART_ABOVE imports under the default MAX_FILE_BYTES (1 MiB): streamed, in parts, byte-identical, nothing staged left', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const video = noise(MULTIPART_ABOVE + 12_345, 2463534242);
    expect(video.byteLength).toBeGreaterThan(MULTIPART_ABOVE);
    await createRepository('asset-multipart', {
      files: {
        'README.md': '# Home\n\n[The recording](.gitbook/assets/recording.mp4)\n',
        '.gitbook/assets/recording.mp4': { base64: base64(video) },
      },
    });
    const info = await importRepo(space.id, token, { url: repositoryUrl('asset-multipart'), ref: 'refs/heads/main', force: true });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    expect(info.operation.error ?? '').not.toContain('not imported');
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.files;
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ name: 'recording.mp4', size: video.byteLength, git: { path: '.gitbook/assets/recording.mp4', oid: (await gitOutput('asset-multipart', 'rev-parse', 'refs/heads/main:.gitbook/assets/recording.mp4')).trim() } });
    const object = await env.FILES.get(fileKey(await sha256(video)));
    expect(object?.size).toBe(video.byteLength);
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(await sha256(video));
    // Written by this import (marked with its operation), and no staged copy remains.
    expect(object!.customMetadata?.['git-sync-operation']).toMatch(/.+/);
    expect(await stagedKeys()).toEqual([]);
  }, 180_000);

  it('GIT_SYNC_MAX_FILE_BYTES bounds it: a file over it is left out and the state says which and why', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const big = noise(300 * 1024, 88172645);
    await createRepository('asset-over-git-cap', { files: { 'README.md': '# Home\n', '.gitbook/assets/big.bin': { base64: base64(big) }, '.gitbook/assets/small.txt': 'small\n' } });
    const info = await importRepo(space.id, token, { url: repositoryUrl('asset-over-git-cap'), ref: 'refs/heads/main', force: true }, { ...env, GIT_SYNC_MAX_FILE_BYTES: String(200 * 1024) } as typeof env);
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    expect(info.operation.error).toContain('.gitbook/assets/big.bin: not imported');
    expect(info.operation.error).toContain('GIT_SYNC_MAX_FILE_BYTES');
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.files;
    expect(files.map((f: any) => f.name)).toEqual(['small.txt']);
    expect(await env.FILES.head(fileKey(await sha256(big)))).toBeNull();
  }, 120_000);

  it('storeStream: parts cut from odd chunks give the same bytes; a stream whose bytes are not its blob id leaves no object, no staged one', async () => {
    const store = r2AssetStore(env.FILES, 'op-unit');
    // Just over MULTIPART_ABOVE: a full part and a shorter last one, neither aligned with the chunks.
    const bytes = noise(MULTIPART_ABOVE + 7, 1234567);
    expect(bytes.byteLength % MULTIPART_PART_BYTES).not.toBe(0);
    const stored = await store.storeStream(await blobId(bytes), bytes.byteLength, chunked(bytes, 700_001), 'application/octet-stream');
    expect(stored).toEqual({ hash: await sha256(bytes), size: bytes.byteLength });
    const object = await env.FILES.get(fileKey(stored.hash));
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(stored.hash);

    const other = noise(256 * 1024, 7654321);
    await expect(store.storeStream('0'.repeat(40), other.byteLength, chunked(other, 70_001), 'application/octet-stream')).rejects.toThrow(/other bytes/);
    expect(await env.FILES.head(fileKey(await sha256(other)))).toBeNull();
    // A stream shorter than its size is refused too, in parts (the bytes above, cut short of their last part).
    const short = noise(MULTIPART_ABOVE + 7, 7654321);
    await expect(store.storeStream(await blobId(short), short.byteLength, chunked(short.subarray(0, MULTIPART_ABOVE), 700_001), 'application/octet-stream')).rejects.toThrow();
    expect(await env.FILES.head(fileKey(await sha256(short)))).toBeNull();
    expect(await stagedKeys()).toEqual([]);
  }, 120_000);
});

describe('what a failed import stored is deleted', () => {
  it('discard deletes the objects the store created, not those that existed, nor one an upload rewrote since; later stores are refused', async () => {
    const before = noise(1000, 11);
    await env.FILES.put(fileKey(await sha256(before)), before);
    const store = r2AssetStore(env.FILES, 'op-discard');
    const mine = noise(1000, 12);
    const rewritten = noise(1000, 13);
    const streamed = noise(128 * 1024, 14);
    await store.storeBytes(before, 'application/octet-stream');
    await store.storeBytes(mine, 'application/octet-stream');
    await store.storeBytes(rewritten, 'application/octet-stream');
    await store.storeStream(await blobId(streamed), streamed.byteLength, chunked(streamed, 700_001), 'application/octet-stream');
    // An upload of the same bytes meanwhile (storeFiles puts without the marker): the object is someone else's now.
    await env.FILES.put(fileKey(await sha256(rewritten)), rewritten);

    expect(await store.discard()).toBe(2);
    expect(await env.FILES.head(fileKey(await sha256(mine)))).toBeNull();
    expect(await env.FILES.head(fileKey(await sha256(streamed)))).toBeNull();
    expect(await env.FILES.head(fileKey(await sha256(before)))).not.toBeNull();
    expect(await env.FILES.head(fileKey(await sha256(rewritten)))).not.toBeNull();
    await expect(store.storeBytes(noise(10, 15), 'application/octet-stream')).rejects.toThrow(/abandoned/);
  });

  it('an import that fails after storing its assets (the writer call fails) leaves none of them in R2', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    // One small, one over streamAbove (streamed): both are deleted.
    const assets = [noise(4096, 21), noise(128 * 1024, 22)];
    await createRepository('asset-failed-import', {
      files: {
        'README.md': '# Home\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n* [Two](two.md)\n',
        'one.md': '# One\n\n![](.gitbook/assets/a.bin)\n',
        'two.md': '# Two\n',
        '.gitbook/assets/a.bin': { base64: base64(assets[0]) },
        '.gitbook/assets/b.bin': { base64: base64(assets[1]) },
      },
    });
    // The space's writer fails the import's call once the files are in R2 (as when the Durable Object is reset).
    const failingWriter = {
      idFromName: (name: string) => env.SPACE_WRITER.idFromName(name),
      get: () => ({
        applyGitImport: async () => {
          throw new Error('Durable Object reset because its code was updated.');
        },
      }),
    };
    const info = await importRepo(space.id, token, { url: repositoryUrl('asset-failed-import'), ref: 'refs/heads/main', force: true }, { ...env, SPACE_WRITER: failingWriter } as unknown as typeof env);
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'failure', error: expect.stringContaining('Durable Object reset') });
    for (const bytes of assets) expect(await env.FILES.head(fileKey(await sha256(bytes)))).toBeNull();
    expect(await stagedKeys()).toEqual([]);

    // The same import under the default caps succeeds and stores them.
    const again = await importRepo(space.id, token, { url: repositoryUrl('asset-failed-import'), ref: 'refs/heads/main', force: true });
    expect(again.operation, JSON.stringify(again)).toMatchObject({ state: 'success' });
    for (const bytes of assets) expect((await env.FILES.head(fileKey(await sha256(bytes))))?.size).toBe(bytes.byteLength);
  }, 120_000);

  it('the hourly sweep deletes staged blobs older than an operation can run, in bounded batches, and nothing else', async () => {
    for (const key of await stagedKeys()) await env.FILES.delete(key);
    await env.FILES.put(`${STAGING_PREFIX}left-1`, 'a');
    await env.FILES.put(`${STAGING_PREFIX}left-2`, 'b');
    await env.FILES.put(`${STAGING_PREFIX}left-3`, 'c');
    await env.FILES.put('files/not-staged', 'd');
    // Just written: an operation may still be copying them.
    expect(await sweepGitStaging(env, Date.now())).toBe(0);
    const later = Date.now() + 60 * 60 * 1000;
    expect(await sweepGitStaging(env, later, 2)).toBe(2);
    expect(await stagedKeys()).toHaveLength(1);
    expect(await sweepGitStaging(env, later, 2)).toBe(1);
    expect(await stagedKeys()).toEqual([]);
    expect(await env.FILES.head('files/not-staged')).not.toBeNull();
  });
});
