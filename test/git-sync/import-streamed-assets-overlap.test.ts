import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RevisionTree, SyncedSpace } from '../../src/services/git-sync/content';
import { HELD_STREAM_BYTES, type AssetStore } from '../../src/services/git-sync/assets';
import { planImport } from '../../src/services/git-sync/import';
import { GitSession, GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { splitCredentials } from '../../src/services/git-sync/urls';
import { blobId, createRepository, noise, repositoryUrl, sha256 } from '../helpers/git-sync';

/**
 * A large asset (over `streamAbove`, so fetched alone on a request of its own) that the store holds whole (up to
 * HELD_STREAM_BYTES) is stored while the next blob is fetched (issue 40, bigimport21: vngcloud/docs's 46 such blobs were
 * each fetched, then put, then the next fetched). The store of one is still running when the next one's begins; each
 * file is stored once, with its own bytes, and the plan's files are in the order the blobs came.
 */

const EMPTY_SPACE = { head: { id: 'none', pages: null, files: null, meta: { variables: {}, reusableContents: [] }, pageCount: 0, fileCount: 0 }, headGitOid: null, deleted: false, editMode: 'live', entries: [] } as unknown as SyncedSpace;
const EMPTY_TREE: RevisionTree = { pages: new Map(), order: [], files: new Map() };

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe('large assets stored beside the next fetch', () => {
  it('a held streamed blob is still being stored when the next one starts, and every one is stored with its bytes', async () => {
    const size = GIT_TRANSFER_LIMITS.streamAbove + 200_000;
    expect(size).toBeLessThanOrEqual(HELD_STREAM_BYTES);
    const blobs = [1, 2, 3].map((k) => noise(size, 1000 + k));
    const files: Record<string, string | { base64: string }> = { 'README.md': '# Home\n\nThree large images.\n' };
    blobs.forEach((bytes, k) => (files[`.gitbook/assets/shot-${k}.png`] = { base64: Buffer.from(bytes).toString('base64') }));
    const name = `streamed-overlap-${Date.now().toString(36)}`;
    await createRepository(name, { files });

    // Each store, once it read its bytes, waits for the next store to begin (at most 3 s: one that never overlaps); the
    // last one has no next to wait for (before, it waited the 3 s out: most of the file's time).
    let active = 0;
    let most = 0;
    const begun: Array<() => void> = [];
    const stored = new Map<string, number>();
    const streamedOids: string[] = [];
    const assets: AssetStore = {
      storeBytes: () => Promise.reject(new Error('only large blobs here')),
      async storeStream(oid, declared, stream) {
        active++;
        most = Math.max(most, active);
        for (const wake of begun.splice(0)) wake();
        streamedOids.push(oid);
        try {
          const bytes = await bytesOf(stream);
          expect(bytes.byteLength).toBe(declared);
          expect(await blobId(bytes)).toBe(oid);
          if (streamedOids.length < blobs.length) {
            await new Promise<void>((resolve) => {
              begun.push(resolve);
              setTimeout(resolve, 3000);
            });
          }
          const hash = await sha256(bytes);
          stored.set(hash, (stored.get(hash) ?? 0) + 1);
          return { hash, size: bytes.byteLength };
        } finally {
          active--;
        }
      },
    };

    const { url, credentials } = splitCredentials(repositoryUrl(name));
    const session = new GitSession(env as never, url, credentials);
    const commit = await session.fetchRef('refs/heads/main');
    const plan = await planImport(session, commit!, { maxFileBytes: 16 * 1024 * 1024, assets }, EMPTY_SPACE, EMPTY_TREE);

    expect(session.stats.blobsStreamed).toBe(3);
    expect(most).toBeGreaterThanOrEqual(2);
    // Each file once, with its bytes; the plan's new files in the order the blobs came, whatever order their stores ended in.
    const hashes = await Promise.all(blobs.map((bytes) => sha256(bytes)));
    expect([...stored.entries()].sort()).toEqual(hashes.map((hash) => [hash, 1]).sort());
    const hashOfOid = new Map(await Promise.all(blobs.map(async (bytes, k) => [await blobId(bytes), hashes[k]] as const)));
    expect(plan.newFiles.map((file) => file.hash)).toEqual(streamedOids.map((oid) => hashOfOid.get(oid)));
    expect(plan.newFiles.map((file) => file.size)).toEqual([size, size, size]);
    expect(plan.warnings).toEqual([]);
  });
});
