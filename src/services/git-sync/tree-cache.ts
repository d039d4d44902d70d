/**
 * The trees of the commit a space last read from a server without partial fetch (a v2 `git http-backend` with
 * `uploadpack.allowFilter` off), kept in R2 so that the space's next operation need not stream the whole repository again
 * (issue 40): when the branch is still at that commit, no pack at all; when it moved on, the commit is sent as a `have` and
 * the server sends what the new commit adds, the unchanged subtrees read from here.
 *
 * One object per space (`git-sync/trees/<spaceId>`), for one repository (the SHA-256 of its URL, in the object's metadata):
 * no space reads another's. What is read is checked: every object's id is computed again from its bytes, and the whole is
 * ignored on any mismatch or damage, so a stale or damaged copy costs the full stream it saves, never a wrong tree. Only
 * commits and trees are kept (some hundreds of KB for a repository of thousands of files), never a blob.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { gitObjectId, type PackObjectType } from './blob-stream';
import { sha256Hex, toHex } from '../../lib/ids';

/** An object kept: a commit or a tree. */
export type CachedObject = { oid: string; type: PackObjectType; data: Uint8Array };

/** Where a session keeps the trees of the commit it read, and reads them back. */
export interface TreeCache {
  /** The objects kept (the commit first), or null when there are none for this repository or they do not check. */
  load(): Promise<CachedObject[] | null>;
  save(objects: CachedObject[]): Promise<void>;
}

/** The most bytes of trees kept: a repository whose trees are larger is streamed every time, as before. */
export const MAX_CACHED_TREE_BYTES = 16 * 1024 * 1024;

const TYPE_CODES: PackObjectType[] = ['commit', 'tree', 'blob', 'tag'];
const MAGIC = new TextEncoder().encode('DPTREES1');

/** Objects as bytes: `DPTREES1`, then per object a type byte, its 20-byte id, its length (4 bytes) and its bytes; deflated. */
export function encodeTrees(objects: CachedObject[]): Uint8Array {
  const size = MAGIC.byteLength + objects.reduce((n, o) => n + 25 + o.data.byteLength, 0);
  const out = new Uint8Array(size);
  out.set(MAGIC, 0);
  let at = MAGIC.byteLength;
  const view = new DataView(out.buffer);
  for (const { oid, type, data } of objects) {
    out[at] = TYPE_CODES.indexOf(type);
    for (let i = 0; i < 20; i++) out[at + 1 + i] = parseInt(oid.slice(i * 2, i * 2 + 2), 16);
    view.setUint32(at + 21, data.byteLength);
    out.set(data, at + 25);
    at += 25 + data.byteLength;
  }
  return new Uint8Array(deflateSync(out, { level: 6 }));
}

/** The objects of `encodeTrees`' bytes, each id checked against its bytes: null when anything does not read or check. */
export async function decodeTrees(bytes: Uint8Array): Promise<CachedObject[] | null> {
  let raw: Uint8Array;
  try {
    raw = new Uint8Array(inflateSync(bytes, { maxOutputLength: MAX_CACHED_TREE_BYTES * 2 }));
  } catch {
    return null;
  }
  if (raw.byteLength < MAGIC.byteLength || MAGIC.some((b, i) => raw[i] !== b)) return null;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const objects: CachedObject[] = [];
  for (let at = MAGIC.byteLength; at < raw.byteLength; ) {
    if (at + 25 > raw.byteLength) return null;
    const type = TYPE_CODES[raw[at]];
    const length = view.getUint32(at + 21);
    if (!type || at + 25 + length > raw.byteLength) return null;
    const oid = toHex(raw.subarray(at + 1, at + 21));
    const data = raw.slice(at + 25, at + 25 + length);
    if ((await gitObjectId(type, data)) !== oid) return null;
    objects.push({ oid, type, data });
    at += 25 + length;
  }
  return objects.length > 0 && objects[0].type === 'commit' ? objects : null;
}

/** The R2 key of a space's trees. */
export const treeCacheKey = (spaceId: string) => `git-sync/trees/${spaceId}`;

/**
 * A space's trees in R2, for the repository at `url` (a copy kept for another URL is not read, and is written over).
 * Failures to read or write are not the operation's: it streams the repository as it would without them.
 */
export function r2TreeCache(bucket: R2Bucket, spaceId: string, url: string): TreeCache {
  const key = treeCacheKey(spaceId);
  const repository = sha256Hex(url.replace(/\/+$/, ''));
  return {
    async load() {
      try {
        const object = await bucket.get(key);
        if (!object) return null;
        if (object.customMetadata?.repository !== (await repository)) {
          await object.body.cancel();
          return null;
        }
        return await decodeTrees(new Uint8Array(await object.arrayBuffer()));
      } catch (error) {
        console.error(`git sync: the trees kept for space ${spaceId} were not read; the repository is streamed`, error);
        return null;
      }
    },
    async save(objects) {
      try {
        await bucket.put(key, encodeTrees(objects), { customMetadata: { repository: await repository, commit: objects[0]?.oid ?? '' } });
      } catch (error) {
        console.error(`git sync: the trees of space ${spaceId} were not kept`, error);
      }
    },
  };
}
