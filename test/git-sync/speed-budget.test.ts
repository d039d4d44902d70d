import { env } from 'cloudflare:workers';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { concatBytes } from '../../src/lib/bytes';
import { fileKey } from '../../src/services/content/files';
import { blobsOfPack, blobsOfPackStream } from '../../src/services/git-sync/blob-stream';
import { ByteBudget, GIT_TRANSFER_LIMITS, GitSession } from '../../src/services/git-sync/transport';
import { splitCredentials } from '../../src/services/git-sync/urls';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { blobId, chunked, createRepository, noise, repositoryUrl, runGitOperation, sha256, transferLimitsDividedBy } from '../helpers/git-sync';

/**
 * What a read of assets holds is bounded by bytes, not by batches (services/git-sync/transport, forEachBlob): the
 * batches fetched ahead and the blobs handed out and not released yet share one ByteBudget, and a batch's pack is
 * read as it comes, object by object (blob-stream, blobsOfPackStream), never held whole. With a budget smaller than
 * anything, every blob still comes, once, in order, with the bytes of its id: one batch at a time.
 */

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** A version 2 pack of whole blobs (no deltas), with its SHA-1 trailer. */
async function packOf(blobs: Uint8Array[]): Promise<Uint8Array> {
  const parts: number[] = [...bytesOf('PACK'), 0, 0, 0, 2, 0, 0, 0, blobs.length];
  for (const blob of blobs) {
    let size = blob.byteLength;
    const header = [(3 << 4) | (size & 15) | (size >= 16 ? 0x80 : 0)];
    for (size = Math.floor(size / 16); size > 0; size = Math.floor(size / 128)) header.push((size & 0x7f) | (size >= 128 ? 0x80 : 0));
    parts.push(...header, ...deflateSync(blob));
  }
  const body = new Uint8Array(parts);
  return new Uint8Array([...body, ...new Uint8Array(await crypto.subtle.digest('SHA-1', body))]);
}

/** A stream's chunks as the async iterable blobsOfPackStream reads. */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
}

describe('a pack read as it comes', () => {
  // The incompressible blob spans thousands of 1- and 7-byte chunks (every boundary of its header and zlib stream is
  // met); 20 KB keeps a chunk-per-read stream of it to seconds in the test pool.
  const blobs = [bytesOf('# A page\n\nSome text.\n'.repeat(50)), noise(20_000, 7), bytesOf(''), noise(3_000, 9)];

  it('gives the blobs of the whole pack, whatever chunks its bytes come in, and counts its bytes', async () => {
    const pack = await packOf(blobs);
    const ids = await Promise.all(blobs.map(blobId));
    const whole = await blobsOfPack(pack, ids);
    for (const sizes of [1, 7, [3, 15_001, 12], pack.byteLength]) {
      const read = await blobsOfPackStream(chunksOf(chunked(pack, sizes)), ids);
      expect(read.bytes).toBe(pack.byteLength);
      expect([...read.blobs.keys()].sort()).toEqual([...ids].sort());
      for (const [i, id] of ids.entries()) {
        expect(await blobId(read.blobs.get(id)!)).toBe(id);
        expect(read.blobs.get(id)!.byteLength).toBe(blobs[i].byteLength);
        expect(await blobId(whole.get(id)!)).toBe(id);
      }
    }
  });

  it('refuses a pack cut short, one with bytes after its objects, and one whose damaged bytes do not match its checksum', async () => {
    const pack = await packOf(blobs);
    const ids = await Promise.all(blobs.map(blobId));
    const read = (bytes: Uint8Array) => blobsOfPackStream(chunksOf(chunked(bytes, 4096)), ids);
    await expect(read(pack.subarray(0, pack.byteLength - 30))).rejects.toThrow(/cut short/);
    await expect(read(new Uint8Array([...pack, 1, 2, 3]))).rejects.toThrow(/bytes after its objects/);
    const damaged = pack.slice();
    damaged[40] ^= 0xff;
    await expect(read(damaged)).rejects.toThrow(/checksum/);
  });
});

/**
 * Files that do not compress: several batches of them, and one over `streamAbove`, fetched alone. Under limits a tenth
 * of the defaults (transferLimitsDividedBy), files of 100 KB: four to a batch, as 1 MB files under the defaults.
 */
const ASSETS = 10;
const SIZE = 100_000;

async function repository(name: string) {
  const files: Record<string, { base64: string }> = {};
  const base64 = (bytes: Uint8Array) => {
    let binary = '';
    for (let i = 0; i < bytes.byteLength; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return btoa(binary);
  };
  for (let i = 0; i < ASSETS; i++) files[`.gitbook/assets/asset-${String(i).padStart(2, '0')}.bin`] = { base64: base64(noise(SIZE, 500 + i)) };
  files['.gitbook/assets/video.mp4'] = { base64: base64(noise(GIT_TRANSFER_LIMITS.streamAbove + 4321, 77)) };
  await createRepository(name, { files: { 'README.md': '# Home\n', ...files } });
}

async function sessionOf(name: string) {
  const { url, credentials } = splitCredentials(repositoryUrl(name));
  const session = new GitSession(env as never, url, credentials);
  const commit = await session.fetchRef('refs/heads/main');
  const files = (await session.listFiles(commit!, '.gitbook/assets')).sort((a, b) => a.path.localeCompare(b.path));
  return { session, files };
}

/** A stream's bytes, whole. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of chunksOf(stream)) parts.push(part.slice());
  return concatBytes(parts);
}

describe('blobs read under a byte budget', () => {
  transferLimitsDividedBy(10);

  it('with a budget smaller than any blob: every blob once, in order, with the bytes of its id, one batch held at a time, the large one streamed', async () => {
    await repository('budget-tiny');
    const { session, files } = await sessionOf('budget-tiny');
    const oids = files.map((f) => f.oid);
    const budget = new ByteBudget(1);
    const perBatch = Math.floor(GIT_TRANSFER_LIMITS.maxBatchBytes / 2 / SIZE);
    const handed: Array<{ oid: string; id: string; size: number; held: number; streamed: boolean }> = [];
    const stores: Promise<void>[] = [];
    await session.forEachBlob(
      oids,
      100 * 1024 * 1024,
      async (oid, blob) => {
        expect(blob).not.toBeNull();
        if ('stream' in blob!) {
          const bytes = await readAll(blob.stream);
          handed.push({ oid, id: await blobId(bytes), size: bytes.byteLength, held: budget.held, streamed: true });
          return;
        }
        // Kept past `use`, as an import's store to R2 keeps it: released on a later turn, when "R2 has it".
        const release = blob!.own!();
        handed.push({ oid, id: await blobId(blob!.bytes), size: blob!.bytes.byteLength, held: budget.held, streamed: false });
        stores.push(new Promise<void>((done) => setTimeout(() => (release(), done()), 5)));
      },
      budget,
    );
    await Promise.all(stores);
    // The large blob first (fetched alone, streamed), then the others in the order asked.
    const video = files.find((f) => f.path === 'video.mp4')!.oid;
    expect(handed.map((h) => h.oid)).toEqual([video, ...oids.filter((o) => o !== video)]);
    for (const h of handed) expect(h.id).toBe(h.oid);
    expect(handed.filter((h) => h.streamed).map((h) => h.size)).toEqual([GIT_TRANSFER_LIMITS.streamAbove + 4321]);
    // Never more than the one batch being handed out: nothing fetched ahead while blobs were held.
    for (const h of handed) expect(h.held).toBeLessThanOrEqual(perBatch * SIZE);
    expect(budget.peak).toBeLessThanOrEqual(perBatch * SIZE);
    expect(budget.peak).toBeGreaterThanOrEqual(SIZE);
    expect(budget.held).toBe(0);
    expect(session.stats.blobsFetched).toBe(ASSETS);
  });

  it('with the default budget: batches fetched ahead within it, every blob released at the end', async () => {
    await repository('budget-default');
    const { session, files } = await sessionOf('budget-default');
    const budget = new ByteBudget(GIT_TRANSFER_LIMITS.bytesInFlight);
    const handed: string[] = [];
    await session.forEachBlob(
      files.map((f) => f.oid),
      100 * 1024 * 1024,
      async (oid, blob) => {
        if (blob && 'stream' in blob) await blob.stream.cancel();
        expect(budget.held).toBeLessThanOrEqual(GIT_TRANSFER_LIMITS.bytesInFlight);
        handed.push(oid);
      },
      budget,
    );
    expect(new Set(handed).size).toBe(ASSETS + 1);
    expect(budget.peak).toBeLessThanOrEqual(GIT_TRANSFER_LIMITS.bytesInFlight);
    // More than one batch held at once: the budget lets the next one be fetched while one is handed out.
    expect(budget.peak).toBeGreaterThan(Math.floor(GIT_TRANSFER_LIMITS.maxBatchBytes / 2 / SIZE) * SIZE);
    expect(budget.held).toBe(0);
    expect(session.stats.peakBytesHeld).toBe(budget.peak);
  });
});

describe('an import under a budget smaller than any file', () => {
  // Files of 70 KB under limits a tenth of the defaults: two batches (five files, then one), as 700 KB files make under them.
  transferLimitsDividedBy(10);
  const bytesInFlight = GIT_TRANSFER_LIMITS.bytesInFlight;
  afterEach(() => void (GIT_TRANSFER_LIMITS.bytesInFlight = bytesInFlight));

  it('completes, every file stored in R2 with its exact bytes', async () => {
    GIT_TRANSFER_LIMITS.bytesInFlight = 1;
    const assets = Array.from({ length: 6 }, (_, i) => noise(70_000 + i, 900 + i));
    const files: Record<string, { base64: string } | string> = { 'README.md': '# Home\n' };
    for (const [i, bytes] of assets.entries()) {
      let binary = '';
      for (let j = 0; j < bytes.byteLength; j += 8192) binary += String.fromCharCode(...bytes.subarray(j, j + 8192));
      files[`.gitbook/assets/shot-${i}.png`] = { base64: btoa(binary) };
    }
    await createRepository('budget-import', { files });
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    await runGitOperation(space.id, org.owner.token, 'import', { url: repositoryUrl('budget-import'), ref: 'refs/heads/main', force: true });
    const listed = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token: org.owner.token }), 200).body.files as Array<{ name: string; size: number }>;
    expect(listed.map((f) => f.name).sort()).toEqual(assets.map((_, i) => `shot-${i}.png`));
    for (const bytes of assets) {
      const object = await env.FILES.get(fileKey(await sha256(bytes)));
      expect(object, 'stored under the SHA-256 of its bytes').not.toBeNull();
      expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(await sha256(bytes));
    }
  });
});
