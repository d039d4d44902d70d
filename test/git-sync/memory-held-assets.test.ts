import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { HELD_STREAM_BYTES, r2AssetStore } from '../../src/services/git-sync/assets';
import { STAGING_PREFIX } from '../../src/services/git-sync/cleanup';
import { blobId, chunked, noise, sha256 } from '../helpers/git-sync';

/**
 * A streamed blob up to HELD_STREAM_BYTES (services/git-sync/assets) is read whole, checked against its Git id and
 * put once at `files/<sha256>`: nothing staged, copied or deleted. A larger one is still staged (never held).
 */

/** The FILES bucket, recording the keys written to (put, multipart) and deleted. */
function recordingBucket() {
  const calls: string[] = [];
  const bucket = new Proxy(env.FILES, {
    get(target, property: string) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'put' || property === 'createMultipartUpload' || property === 'delete') calls.push(`${property} ${String(args[0])}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { bucket, calls };
}

describe('streamed blobs held whole up to HELD_STREAM_BYTES', () => {
  it('one at the limit is put once at files/<sha256>, byte-identical, nothing staged', async () => {
    const bytes = noise(HELD_STREAM_BYTES, 31);
    const { bucket, calls } = recordingBucket();
    const stored = await r2AssetStore(bucket, 'op-held').storeStream(await blobId(bytes), bytes.byteLength, chunked(bytes), 'application/zip');
    const hash = await sha256(bytes);
    expect(stored).toEqual({ hash, size: bytes.byteLength });
    expect(calls).toEqual([`put ${fileKey(hash)}`]);
    const object = await env.FILES.get(fileKey(hash));
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(hash);
    expect(object!.customMetadata).toEqual({ 'git-sync-operation': 'op-held' });
  });

  it('one past the limit is staged and copied, as before', async () => {
    const bytes = noise(HELD_STREAM_BYTES + 1, 32);
    const { bucket, calls } = recordingBucket();
    const stored = await r2AssetStore(bucket, 'op-staged').storeStream(await blobId(bytes), bytes.byteLength, chunked(bytes), 'application/zip');
    expect(calls[0]).toMatch(new RegExp(`^put ${STAGING_PREFIX}`));
    expect(calls).toContain(`put ${fileKey(stored.hash)}`);
    expect(calls.at(-1)).toMatch(new RegExp(`^delete ${STAGING_PREFIX}`));
  });

  it('a held blob whose bytes are not its id, or that is shorter or longer than its size, is refused and nothing is written', async () => {
    const bytes = noise(300_000, 33);
    const { bucket, calls } = recordingBucket();
    const store = r2AssetStore(bucket, 'op-refused');
    await expect(store.storeStream('0'.repeat(40), bytes.byteLength, chunked(bytes), 'application/zip')).rejects.toThrow(/other bytes/);
    await expect(store.storeStream(await blobId(bytes), bytes.byteLength, chunked(bytes.subarray(0, 299_999)), 'application/zip')).rejects.toThrow(/ended before its size/);
    const longer = noise(300_001, 33);
    await expect(store.storeStream(await blobId(bytes), bytes.byteLength, chunked(longer), 'application/zip')).rejects.toThrow(/longer than its size/);
    expect(calls).toEqual([]);
    expect(await env.FILES.head(fileKey(await sha256(bytes)))).toBeNull();
  });
});
