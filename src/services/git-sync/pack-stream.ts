/**
 * A commit's whole pack read as it arrives, for a server that offers protocol v2 without `filter` (a plain `git
 * http-backend`: `uploadpack.allowFilter` is off by default): its commits and trees are kept, its blobs are read
 * through zlib and let go, so what is held is the trees (and a few small blobs the caller asks to keep), never the pack
 * nor a blob. The session then fetches the blobs it reads by id, as after a partial fetch (services/git-sync/transport).
 *
 * Git writes commits, then trees, then blobs, but nothing here relies on it: a delta whose base was let go is a blob
 * (a delta has its base's type, and every commit and tree is kept) and is let go too; a tree's delta is applied to
 * its base, which is kept; a thin pack's delta on an object outside the pack is applied to the session's copy of it,
 * or, when the session has none, is on a blob it did not keep.
 */

import { applyDelta, gitObjectId, objectHeader, packHeader, PackReader, readToTrailer, sha1, TYPES, type PackObjectType } from './blob-stream';
import { toHex } from '../../lib/ids';

/**
 * Objects inflated at once (zlib over at most their compressed bound, buffered); a larger one is inflated as its
 * bytes come, a blob's pieces hashed and dropped, a tree's gathered.
 */
export const INFLATE_AT_ONCE_BELOW = 256 * 1024;

export type KeptObject = { oid: string; type: PackObjectType; data: Uint8Array };

/** An object read: kept (its bytes, a later delta's base), or a blob let go (`data: null`). */
type Slot = { type: PackObjectType; data: Uint8Array | null };
const LET_GO: Slot = { type: 'blob', data: null };

export interface PackStreamOptions {
  /** Whether to keep a blob read (its id and size): small blobs the caller will read (Markdown), within its budget. */
  keepBlob?: (oid: string, size: number) => boolean;
  /** Each tree as it is read: the caller learns the names of the blobs that come after it. */
  onTree?: (data: Uint8Array) => void;
  /** Each commit and tree kept, as it is read (with its id): the caller learns where the blobs that follow are. */
  onKept?: (object: KeptObject) => void;
  /**
   * Whether a blob of `size` bytes at or over INFLATE_AT_ONCE_BELOW is gathered whole and offered to `keepBlob` (else it is
   * hashed and let go as it passes, never held): a caller that may keep large blobs says so while it has room for them.
   */
  gatherBlob?: (size: number) => boolean;
  /** An object outside the pack that a thin pack's delta is on: the session's copy, or null when it has none. */
  outside?: (oid: string) => Promise<{ type: PackObjectType; data: Uint8Array } | null>;
}

export interface PackStreamRead {
  /** Every commit, tree and tag of the pack, and the blobs `keepBlob` kept. */
  kept: KeptObject[];
  /** The size of each blob let go whose id is known (every blob but a delta on a blob let go). */
  sizes: Map<string, number>;
  /** The pack's bytes. */
  bytes: number;
  blobsLetGo: number;
}

/** Reads a pack as its bytes come (`packBytes`: band 1 of a v2 `fetch` answer), keeping commits and trees. */
export async function treesOfPackStream(packBytes: AsyncIterable<Uint8Array>, options: PackStreamOptions = {}): Promise<PackStreamRead> {
  const reader = new PackReader(packBytes[Symbol.asyncIterator]());
  const count = await packHeader(reader);
  const read: PackStreamRead = { kept: [], sizes: new Map(), bytes: 0, blobsLetGo: 0 };
  await readToTrailer(reader, async () => {
    const byOffset = new Map<number, Slot>();
    const byId = new Map<string, Slot>();
    for (let i = 0; i < count; i++) {
      const slot = await readObject(reader, byOffset, byId, options, read);
      if (slot.data === null) read.blobsLetGo++;
    }
  });
  read.bytes = reader.offset + 20;
  return read;
}

async function readObject(reader: PackReader, byOffset: Map<number, Slot>, byId: Map<string, Slot>, options: PackStreamOptions, read: PackStreamRead): Promise<Slot> {
  const { start, kind, size, baseOffset, baseId } = await objectHeader(reader);
  let base: Slot | undefined;
  if (baseOffset !== undefined) {
    base = byOffset.get(baseOffset);
    if (!base) throw new Error(`the pack's delta at byte ${start} has no base in the pack`);
  } else if (baseId !== undefined) {
    base = byId.get(baseId) ?? (await options.outside?.(baseId)) ?? LET_GO;
  }
  let slot: Slot;
  if (base?.data === null) {
    // On a blob let go: a blob, let go too (its bytes read through zlib, not kept).
    await skipped(reader, size);
    slot = LET_GO;
  } else if (base) {
    const data = applyDelta(base.data!, await gathered(reader, size));
    slot = await keptOrLetGo(base.type, data, byId, options, read);
  } else {
    const type = TYPES[kind] as PackObjectType;
    if (type === 'blob' && size >= INFLATE_AT_ONCE_BELOW && !options.gatherBlob?.(size)) {
      read.sizes.set(await hashedAndLetGo(reader, size), size);
      slot = LET_GO;
    } else {
      slot = await keptOrLetGo(type, await gathered(reader, size), byId, options, read);
    }
  }
  byOffset.set(start, slot);
  return slot;
}

/** An object read whole: kept (a commit, tree or tag; a blob `keepBlob` keeps), else a blob let go, its size noted. */
async function keptOrLetGo(type: PackObjectType, data: Uint8Array, byId: Map<string, Slot>, options: PackStreamOptions, read: PackStreamRead): Promise<Slot> {
  const oid = await gitObjectId(type, data);
  if (type === 'blob' && !options.keepBlob?.(oid, data.byteLength)) {
    read.sizes.set(oid, data.byteLength);
    return LET_GO;
  }
  if (type === 'tree') options.onTree?.(data);
  const object = { oid, type, data };
  read.kept.push(object);
  if (type !== 'blob') options.onKept?.(object);
  const slot = { type, data };
  byId.set(oid, slot);
  return slot;
}

/** An object's bytes, inflated at once when small, else gathered from the pieces zlib hands out. */
async function gathered(reader: PackReader, size: number): Promise<Uint8Array> {
  if (size < INFLATE_AT_ONCE_BELOW) return reader.inflate(size);
  const out = new Uint8Array(size);
  let at = 0;
  const start = reader.offset;
  await inflatedToSize(reader, size, (piece) => {
    if (at + piece.byteLength > size) throw new Error(`the pack's object at byte ${start} inflates past the ${size} bytes its header gives`);
    out.set(piece, at);
    at += piece.byteLength;
  });
  return out;
}

/** An object read through zlib and let go (a delta on a blob let go). */
async function skipped(reader: PackReader, size: number): Promise<void> {
  if (size < INFLATE_AT_ONCE_BELOW) {
    await reader.inflate(size);
    return;
  }
  await inflatedToSize(reader, size, () => undefined);
}

/** A large blob read through zlib, its id computed from the pieces as they come, none kept: its id. */
async function hashedAndLetGo(reader: PackReader, size: number): Promise<string> {
  const hash = sha1().update(new TextEncoder().encode(`blob ${size}\0`));
  await inflatedToSize(reader, size, (piece) => hash.update(piece));
  return toHex(hash.digest());
}

/** One object inflated as its bytes come (`onData` takes each piece), refused unless it inflates to its header's size. */
async function inflatedToSize(reader: PackReader, size: number, onData: (piece: Uint8Array) => void): Promise<void> {
  const start = reader.offset;
  const inflated = await reader.inflateStreaming(onData);
  if (inflated !== size) throw new Error(`the pack's object at byte ${start} inflates to ${inflated} bytes, not the ${size} its header gives`);
}
