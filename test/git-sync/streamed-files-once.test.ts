import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, noise, runGitOperation, sha256 } from '../helpers/git-sync';

/**
 * A v2 server without `filter` (a plain git http-backend): the commit's whole pack is read as it comes. Its files under the
 * project directory up to `streamAbove` are kept as they pass (within `keptFilesWhileStreaming`), so a first import reads
 * them from the stream. Before, every file was let go and then fetched by id: each crossed the network twice.
 */

const base64 = (bytes: Uint8Array) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

describe('a first import from a server without filters', () => {
  it('fetches each file once: kept from the stream, none asked for again', { timeout: 180_000 }, async () => {
    const name = 'streamed-files-once';
    const assets: Record<string, Uint8Array> = {
      'docs/.gitbook/assets/a.bin': noise(60_000, 1),
      'docs/.gitbook/assets/b.bin': noise(120_000, 2),
      // Read whole while it passes (over pack-stream's 256 KiB), kept: under streamAbove.
      'docs/.gitbook/assets/c.bin': noise(300_000, 3),
    };
    expect(300_000).toBeLessThan(GIT_TRANSFER_LIMITS.streamAbove);
    await createRepository(name, {
      allowFilter: false,
      files: {
        'docs/README.md': '# Home\n\nWelcome.\n',
        'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [One](one.md)\n',
        'docs/one.md': '# One\n\n![A](.gitbook/assets/a.bin)\n\n![B](.gitbook/assets/b.bin)\n\n![C](.gitbook/assets/c.bin)\n',
        ...Object.fromEntries(Object.entries(assets).map(([path, bytes]) => [path, { base64: base64(bytes) }])),
        // Outside the project directory: let go as it passes.
        'vendor/big.bin': { base64: base64(noise(400_000, 4)) },
      },
    });
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), repoProjectDirectory: 'docs', force: true });
    const row = await env.DB.prepare(`select stats from git_sync_operations where space_id = ?`).bind(space.id).first<{ stats: string }>();
    const stats = JSON.parse(row!.stats) as Record<string, number | string | undefined>;
    expect(stats).toMatchObject({ protocol: 'v2', fetch: 'streamed' });
    // The discovery, ls-refs and the pack: no blob fetched by id, none streamed alone (zero counts are left out).
    expect(stats.requests).toBe(3);
    expect(stats.blobsFetched ?? 0).toBe(0);
    expect(stats.blobsStreamed ?? 0).toBe(0);
    expect(stats.packBytes as number).toBeLessThan(1_100_000);
    const files: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.files;
    for (const [path, bytes] of Object.entries(assets)) {
      expect(files.find((f) => f.git?.path === path)?.size, path).toBe(bytes.byteLength);
      const object = await env.FILES.get(fileKey(await sha256(bytes)));
      expect(await sha256(new Uint8Array(await object!.arrayBuffer())), path).toBe(await sha256(bytes));
    }
  });
});
