import { env } from 'cloudflare:workers';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { applyDelta, blobsOfPack } from '../../src/services/git-sync/blob-stream';
import { BATCHES_IN_FLIGHT, GIT_TRANSFER_LIMITS, GitSession, type FetchedBlob } from '../../src/services/git-sync/transport';
import { splitCredentials } from '../../src/services/git-sync/urls';
import { blobId, control, createRepository, noise, repositoryUrl, transferLimitsDividedBy } from '../helpers/git-sync';

/**
 * Speed of an import's assets without losing what it reads: a batch of blobs is read from its pack once (each
 * object inflated once, deltas resolved in the pack, each blob's id computed from its bytes), and batches are
 * fetched a few at a time ahead of the one handed out, handed in their order; a batch that fails fails the read
 * with the remote's answer, after exactly the batches before it.
 */

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Git's delta of `target` on any base of `baseSize` bytes: copies of the base's ranges and inserted bytes, in order. */
function delta(baseSize: number, targetSize: number, ops: Array<{ copy: [number, number] } | { insert: Uint8Array }>): Uint8Array {
  const varint = (n: number) => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return out;
  };
  const out = [...varint(baseSize), ...varint(targetSize)];
  for (const op of ops) {
    if ('insert' in op) out.push(op.insert.byteLength, ...op.insert);
    else {
      const [offset, length] = op.copy;
      // Offset in 4 bytes and length in 3, every byte given (the flags say which are present).
      out.push(0x80 | 0x0f | 0x70, offset & 0xff, (offset >> 8) & 0xff, (offset >> 16) & 0xff, (offset >>> 24) & 0xff, length & 0xff, (length >> 8) & 0xff, (length >> 16) & 0xff);
    }
  }
  return new Uint8Array(out);
}

/** A pack object's header: type and inflated size. */
function objectHeader(type: number, size: number): number[] {
  const out = [(type << 4) | (size & 15) | (size >= 16 ? 0x80 : 0)];
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) out.push((rest & 0x7f) | (rest >= 128 ? 0x80 : 0));
  return out;
}

const hexToBytes = (hex: string) => new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));

/** A version 2 pack of `objects` (raw entries), with its SHA-1 trailer. */
async function pack(objects: Uint8Array[]): Promise<Uint8Array> {
  const head = new Uint8Array(12);
  head.set(bytesOf('PACK'));
  new DataView(head.buffer).setUint32(4, 2);
  new DataView(head.buffer).setUint32(8, objects.length);
  const body = new Uint8Array([...head, ...objects.flatMap((o) => [...o])]);
  const sum = new Uint8Array(await crypto.subtle.digest('SHA-1', body));
  return new Uint8Array([...body, ...sum]);
}

describe('a batch of blobs read from its pack once', () => {
  it('resolves offset and reference deltas on their base in the pack, and hands each blob by the id of its bytes', async () => {
    const base = bytesOf('# Base page\n\nA paragraph that the other two files share with it.\n');
    const ofsTarget = bytesOf('# Base page\n\nA paragraph that the other two files share with it.\nAnd a line more.\n');
    const refTarget = bytesOf('Intro. A paragraph that the other two files share with it.\n');
    const baseEntry = new Uint8Array([...objectHeader(3, base.byteLength), ...deflateSync(base)]);
    const ofsDelta = delta(base.byteLength, ofsTarget.byteLength, [{ copy: [0, base.byteLength] }, { insert: bytesOf('And a line more.\n') }]);
    // The distance back to the base: the base's entry starts right after the 12-byte header, this one after it.
    const distance = baseEntry.byteLength;
    expect(distance).toBeLessThan(128);
    const ofsEntry = new Uint8Array([...objectHeader(6, ofsDelta.byteLength), distance, ...deflateSync(ofsDelta)]);
    const shared = base.byteLength - 'A paragraph that the other two files share with it.\n'.length;
    const refDelta = delta(base.byteLength, refTarget.byteLength, [{ insert: bytesOf('Intro. ') }, { copy: [shared, base.byteLength - shared] }]);
    const refEntry = new Uint8Array([...objectHeader(7, refDelta.byteLength), ...hexToBytes(await blobId(base)), ...deflateSync(refDelta)]);
    const bytes = await pack([baseEntry, ofsEntry, refEntry]);

    const ids = [await blobId(base), await blobId(ofsTarget), await blobId(refTarget)];
    const blobs = await blobsOfPack(bytes, ids);
    expect([...blobs.keys()].sort()).toEqual([...ids].sort());
    expect(new TextDecoder().decode(blobs.get(ids[1]))).toBe(new TextDecoder().decode(ofsTarget));
    expect(new TextDecoder().decode(blobs.get(ids[2]))).toBe(new TextDecoder().decode(refTarget));
    expect(new TextDecoder().decode(blobs.get(ids[0]))).toBe(new TextDecoder().decode(base));

    // A blob wanted that the pack does not carry, a pack whose bytes do not match its checksum: refused, saying so.
    await expect(blobsOfPack(bytes, [...ids, await blobId(bytesOf('elsewhere'))])).rejects.toThrow(/lacks the blob/);
    const corrupt = bytes.slice();
    corrupt[20] ^= 1;
    await expect(blobsOfPack(corrupt, ids)).rejects.toThrow(/checksum/);
    // A delta that does not fit its base is refused, not applied.
    expect(() => applyDelta(bytesOf('short'), ofsDelta)).toThrow(/another size/);
  });
});

/**
 * Files of `size` bytes each that do not compress: each batch of blobs holds as many as fit in half `maxBatchBytes`.
 * Under limits a tenth of the defaults (transferLimitsDividedBy), files of 100 KB: four to a batch, three batches, none
 * streamed, as 1 MB files under the defaults (1.2 MB of noise made and fetched per test instead of 12 MB).
 */
const ASSETS = 12;
const SIZE = 100_000;

async function sessionOf(name: string, extraEnv: Record<string, string> = {}) {
  const { url, credentials } = splitCredentials(repositoryUrl(name));
  const session = new GitSession({ ...(env as unknown as Record<string, string>), ...extraEnv } as never, url, credentials);
  const commit = await session.fetchRef('refs/heads/main');
  const files = (await session.listFiles(commit!, '.gitbook/assets')).sort((a, b) => a.path.localeCompare(b.path));
  return { session, oids: files.map((f) => f.oid) };
}

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.byteLength; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(binary);
}

async function repository(name: string) {
  const files: Record<string, { base64: string }> = {};
  for (let i = 0; i < ASSETS; i++) files[`.gitbook/assets/asset-${String(i).padStart(2, '0')}.bin`] = { base64: base64Of(noise(SIZE, 1000 + i)) };
  await createRepository(name, { files: { 'README.md': '# Home\n', ...files } });
}

describe('batches of blobs fetched ahead', () => {
  transferLimitsDividedBy(10);

  it('hands every blob once, in the order asked, with the bytes of its id, whatever order the batches fetched at once end in', async () => {
    await repository('speed-order');
    const { session, oids } = await sessionOf('speed-order');
    const asked = [...oids].reverse();
    const handed: Array<{ oid: string; id: string; size: number }> = [];
    await session.forEachBlob(asked, 100 * 1024 * 1024, async (oid, blob: FetchedBlob | null) => {
      expect(blob && 'bytes' in blob).toBe(true);
      const bytes = (blob as { bytes: Uint8Array }).bytes;
      handed.push({ oid, id: await blobId(bytes), size: bytes.byteLength });
    });
    expect(handed.map((h) => h.oid)).toEqual(asked);
    for (const h of handed) expect(h).toEqual({ oid: h.oid, id: h.oid, size: SIZE });
    const perBatch = Math.floor(GIT_TRANSFER_LIMITS.maxBatchBytes / 2 / SIZE);
    expect(Math.ceil(ASSETS / perBatch)).toBeGreaterThan(BATCHES_IN_FLIGHT);
    expect(session.stats.blobsFetched).toBe(ASSETS);
    expect(session.stats.packBytes).toBeGreaterThan(ASSETS * SIZE);
  });

  it('a batch the remote fails fails the read with its answer, after exactly the batches before it and none fetched ahead of it', async () => {
    await repository('speed-failure');
    // No full fetch to fall back on (the repository is over its cap): the failure is the read's.
    const { session, oids } = await sessionOf('speed-failure', { GIT_SYNC_MAX_FULL_FETCH_BYTES: '1000' });
    const perBatch = Math.floor(GIT_TRANSFER_LIMITS.maxBatchBytes / 2 / SIZE);
    await control('fail', { name: 'speed-failure', want: oids[perBatch + 1], status: 502, times: 3 });
    const handed: string[] = [];
    const read = session.forEachBlob(oids, 100 * 1024 * 1024, async (oid) => {
      handed.push(oid);
    });
    await expect(read).rejects.toThrow(/fetching a batch of \d+ blobs by id failed: the repository answered HTTP 502.*the full fetch of the tree tried instead failed too: the repository is too large/);
    expect(handed).toEqual(oids.slice(0, perBatch));
  });
});
