import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../src/services/content/files';
import { r2AssetStore } from '../../src/services/git-sync/assets';
import { noise, sha256 } from '../helpers/git-sync';

/**
 * An import's small files go to R2 in one round trip each where R2 has no object at their key (most of them): a put
 * written only if absent, where a head then a put took two (issue 40: the assets phase dominates large imports). An
 * object already there keeps the rules it had: one this operation or an upload made, or one whose operation made a
 * revision, is left as it is; one an unfinished operation made is written again with this operation's mark.
 */

/** The FILES bucket, recording each call to it by method and key. */
function recordingBucket() {
  const calls: string[] = [];
  const bucket = new Proxy(env.FILES, {
    get(target, property: string) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${property} ${String(args[0])}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { bucket, calls };
}

describe('an import storing its small files', () => {
  it('puts a file R2 lacks in one call, marked with the operation', async () => {
    const bytes = noise(40 * 1024, 901);
    const key = fileKey(await sha256(bytes));
    const { bucket, calls } = recordingBucket();
    const stored = await r2AssetStore(bucket, 'op-one-trip').storeBytes(bytes, 'image/png');
    expect(stored.hash).toBe(await sha256(bytes));
    expect(calls).toEqual([`put ${key}`]);
    const object = await env.FILES.get(key);
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(stored.hash);
    expect(object!.customMetadata).toEqual({ 'git-sync-operation': 'op-one-trip' });
  });

  it('leaves a file already there as the rules say: kept when settled or uploaded, marked again when its operation is unfinished', async () => {
    const uploaded = noise(1000, 902);
    const unfinished = noise(1000, 903);
    const settled = noise(1000, 904);
    await env.FILES.put(fileKey(await sha256(uploaded)), uploaded);
    await env.FILES.put(fileKey(await sha256(unfinished)), unfinished, { customMetadata: { 'git-sync-operation': 'op-unfinished' } });
    await env.FILES.put(fileKey(await sha256(settled)), settled, { customMetadata: { 'git-sync-operation': 'op-settled' } });
    const store = r2AssetStore(env.FILES, 'op-later', async (operationId) => operationId === 'op-settled');
    for (const bytes of [uploaded, unfinished, settled]) await store.storeBytes(bytes, 'application/octet-stream');
    const markOf = async (bytes: Uint8Array) => (await env.FILES.head(fileKey(await sha256(bytes))))!.customMetadata;
    expect(await markOf(uploaded)).toEqual({});
    expect(await markOf(unfinished)).toEqual({ 'git-sync-operation': 'op-later' });
    expect(await markOf(settled)).toEqual({ 'git-sync-operation': 'op-settled' });
    // Only the object it wrote is this store's to discard.
    expect(await store.discard()).toBe(1);
    expect(await env.FILES.head(fileKey(await sha256(unfinished)))).toBeNull();
    expect(await env.FILES.head(fileKey(await sha256(uploaded)))).not.toBeNull();
  });
});
