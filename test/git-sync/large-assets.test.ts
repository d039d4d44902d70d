import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, noise, repositoryUrl } from '../helpers/git-sync';

/**
 * Large assets against the real git http-backend: a blob over `streamAbove` (when the server tells sizes with
 * `object-info`), or whose batch answer is over `maxBatchBytes` (when it does not: the batch is split down to the
 * blob), is fetched alone and streamed into R2 (`files/<sha256>`), never held whole nor carried in the writer's
 * batch; the file entry points at that object, carries its git {oid, path}, and a blob is stored once (by blob id).
 */

async function importRepo(spaceId: string, token: string, body: Record<string, unknown>, runEnv = env) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  const rows = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at, rowid`).bind(spaceId).all<{ id: string }>();
  for (const row of rows.results) await runGitSyncOperation(runEnv, row.id);
  const info = (await gitInfo(spaceId, token)).body;
  const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ stats: string }>();
  return { info, stats: JSON.parse(row!.stats) as { protocol: string; blobsFetched: number; blobsStreamed: number; splitBatches: number; packBytes: number } };
}

/** A PNG of `width` x `height` by its header, padded with bytes that do not compress to `size` bytes. */
function png(size: number, width: number, height: number, seed: number): Uint8Array {
  const out = noise(size, seed);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(out.buffer).setUint32(16, width);
  new DataView(out.buffer).setUint32(20, height);
  out.set([8, 6, 0, 0, 0], 24);
  return out;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function filesOf(spaceId: string, token: string): Promise<any[]> {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/content`, { token }), 200).body.files;
}

describe('large assets streamed into R2 (a real git http-backend)', () => {
  // The thresholds lowered for these tests (the code reads them at each use): what is proven is which path a blob
  // over them takes, not megabytes; a few hundred kilobytes cross them as 3 and 8.5 MB crossed the defaults.
  const defaults = { ...GIT_TRANSFER_LIMITS };
  beforeEach(() => {
    GIT_TRANSFER_LIMITS.streamAbove = 128 * 1024;
    GIT_TRANSFER_LIMITS.maxBatchBytes = 256 * 1024;
  });
  afterEach(() => void Object.assign(GIT_TRANSFER_LIMITS, defaults));

  it('a server that tells sizes (object-info): an image over streamAbove is fetched alone and streamed; linked from a nested page; stored once for two paths', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const big = png(GIT_TRANSFER_LIMITS.streamAbove * 3, 640, 480, 2463534242);
    await createRepository('assets-info', {
      files: {
        'README.md': '# Home\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Deep](guide/deep/page.md)\n',
        'guide/deep/page.md': '# Deep\n\n![Diagram](../../.gitbook/assets/diagram.png)\n',
        '.gitbook/assets/diagram.png': { base64: base64(big) },
        '.gitbook/assets/copy of diagram.png': { base64: base64(big) },
        '.gitbook/assets/small.txt': 'small\n',
      },
    });
    const { info, stats } = await importRepo(space.id, token, { url: repositoryUrl('assets-info'), ref: 'refs/heads/main', force: true });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    // One stream for the image (its two paths are one blob), the small blobs in a batch; the packs held stay small.
    expect(stats).toMatchObject({ protocol: 'v2', blobsStreamed: 1 });
    expect(stats.packBytes).toBeLessThan(big.byteLength / 4);

    const files = await filesOf(space.id, token);
    const images = files.filter((f) => f.contentType === 'image/png');
    expect(images).toHaveLength(1);
    const [image] = images;
    expect(image).toMatchObject({ size: big.byteLength, dimensions: { width: 640, height: 480 } });
    expect(image.git).toEqual({ path: '.gitbook/assets/diagram.png', oid: (await gitOutput('assets-info', 'rev-parse', 'refs/heads/main:.gitbook/assets/diagram.png')).trim() });
    const object = await env.FILES.get(fileKey(await sha256(big)));
    expect(object?.size).toBe(big.byteLength);
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(await sha256(big));
    // No staging object is left behind.
    expect((await env.FILES.list({ prefix: 'git-sync/staging/' })).objects).toHaveLength(0);
    // The nested page's relative link points at the file.
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const deep = pages.find((p: any) => p.path === 'page');
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${deep.id}`, { token }), 200).body;
    expect(JSON.stringify(page.document)).toContain(`"file":"${image.id}"`);

    // A re-import after a commit elsewhere fetches no asset again: the files keep their ids.
    await control('commit', { name: 'assets-info', files: { 'README.md': '# Home, edited\n' } });
    const again = await importRepo(space.id, token, { url: repositoryUrl('assets-info'), ref: 'refs/heads/main' });
    expect(again.stats.blobsStreamed ?? 0).toBe(0);
    expect((await filesOf(space.id, token)).map((f) => f.id).sort()).toEqual(files.map((f) => f.id).sort());
  });

  it('a server that does not tell sizes: a batch over maxBatchBytes is split down to the large blob, which is streamed; one over GIT_SYNC_MAX_FILE_BYTES is left out, said in the state', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const large = png(GIT_TRANSFER_LIMITS.maxBatchBytes + 64 * 1024, 32, 16, 88172645);
    await createRepository('assets-split', {
      objectInfo: false,
      files: {
        'README.md': '# Home\n',
        '.gitbook/assets/a.txt': 'a\n',
        '.gitbook/assets/large.png': { base64: base64(large) },
        '.gitbook/assets/z.txt': 'z\n',
      },
    });
    const { info, stats } = await importRepo(space.id, token, { url: repositoryUrl('assets-split'), ref: 'refs/heads/main', force: true });
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
    expect(stats.blobsStreamed).toBe(1);
    expect(stats.splitBatches).toBeGreaterThan(0);
    const files = await filesOf(space.id, token);
    expect(files.map((f: any) => f.name).sort()).toEqual(['a.txt', 'large.png', 'z.txt']);
    expect(files.find((f: any) => f.name === 'large.png')).toMatchObject({ size: large.byteLength, dimensions: { width: 32, height: 16 } });
    expect((await env.FILES.head(fileKey(await sha256(large))))?.size).toBe(large.byteLength);

    // Git Sync's cap on a file holds (GIT_SYNC_MAX_FILE_BYTES; MAX_FILE_BYTES, the cap of an upload, is not it): under it the large file is left out, and the state says so.
    const other = await createSpace(org.id, token);
    const capped = await importRepo(other.id, token, { url: repositoryUrl('assets-split'), ref: 'refs/heads/main', force: true }, { ...env, GIT_SYNC_MAX_FILE_BYTES: String(large.byteLength - 1) } as typeof env);
    expect(capped.info.operation, JSON.stringify(capped.info)).toMatchObject({ state: 'success' });
    expect(capped.info.operation.error).toContain('.gitbook/assets/large.png: not imported');
    expect((await filesOf(other.id, token)).map((f: any) => f.name).sort()).toEqual(['a.txt', 'z.txt']);
  });
});
