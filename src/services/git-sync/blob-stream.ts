/**
 * One blob read as a stream from a v2 `fetch` answer that carries it alone: the answer is pkt-lines, its `packfile`
 * section's band 1 is a pack of one object (no delta: a pack of one object has no base, and no `thin-pack` is
 * asked), whose zlib stream runs from the object's header to the pack's 20-byte trailer. The blob's bytes go
 * through the runtime's DecompressionStream as they arrive: never held whole, whatever the blob's size.
 */

import { inflateSync, type ZlibOptions } from 'node:zlib';
import { concatBytes } from '../../lib/bytes';
import { toHex } from '../../lib/ids';

const decoder = new TextDecoder();

/**
 * Bytes received and not read yet, kept as the chunks they came in. A read that one chunk holds is a view of it
 * (no copy); one across chunks copies its own bytes once. Concatenating the rest with every new chunk instead
 * copied each byte again for every chunk a 64 KiB pkt-line spans (a streamed 20 MiB video: some 50 MiB copied).
 */
class Chunks {
  private readonly list: Uint8Array[] = [];
  private offset = 0;
  length = 0;

  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.list.push(chunk);
    this.length += chunk.byteLength;
  }

  /** The byte at `index` (< length) from the read position, not consumed. */
  at(index: number): number {
    let i = index + this.offset;
    for (const chunk of this.list) {
      if (i < chunk.byteLength) return chunk[i];
      i -= chunk.byteLength;
    }
    throw new RangeError('past the bytes received');
  }

  /** The next `n` bytes (n <= length), consumed. */
  take(n: number): Uint8Array {
    const first = this.list[0];
    if (first && first.byteLength - this.offset >= n) {
      const view = first.subarray(this.offset, this.offset + n);
      this.advance(n);
      return view;
    }
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const chunk = this.list[0];
      const count = Math.min(n - at, chunk.byteLength - this.offset);
      out.set(chunk.subarray(this.offset, this.offset + count), at);
      at += count;
      this.advance(count);
    }
    return out;
  }

  /** Everything left, consumed: views of the chunks. */
  drain(): Uint8Array[] {
    const rest = this.list.splice(0).map((chunk, i) => (i === 0 ? chunk.subarray(this.offset) : chunk));
    this.offset = 0;
    this.length = 0;
    return rest.filter((chunk) => chunk.byteLength > 0);
  }

  private advance(n: number): void {
    this.offset += n;
    this.length -= n;
    while (this.list.length > 0 && this.offset >= this.list[0].byteLength) {
      this.offset -= this.list[0].byteLength;
      this.list.shift();
    }
  }
}

/** The value of a pkt-line's 4 hexadecimal length digits, or NaN (read from the bytes: no string per line). */
function pktLength(chunks: Chunks): number {
  let value = 0;
  for (let i = 0; i < 4; i++) {
    const c = chunks.at(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit < 0) return NaN;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * The pkt-lines of a stream: payloads, and `null` for a flush, delimiter or response end. A payload may be a view
 * of the chunk it came in: a reader that keeps it past the next one, or hands it to something that may detach
 * its buffer, copies it.
 */
export async function* pktLinesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array | null> {
  const reader = body.getReader();
  const chunks = new Chunks();
  try {
    for (;;) {
      while (chunks.length >= 4) {
        const length = pktLength(chunks);
        if (Number.isNaN(length)) throw new Error('the remote answered something that is not Git protocol');
        if (length < 4) {
          chunks.take(4);
          yield null;
          continue;
        }
        if (chunks.length < length) break;
        chunks.take(4);
        yield chunks.take(length - 4);
      }
      const { done, value } = await reader.read();
      if (done) {
        if (chunks.length > 0) throw new Error('the remote answer was cut short');
        return;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** The pack bytes of a v2 `fetch` answer, as they come: band 1 of the `packfile` section; band 3 (an error) thrown. */
async function* packBytesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let inPack = false;
  for await (const line of pktLinesOf(body)) {
    if (line === null) {
      if (inPack) return;
      continue;
    }
    if (!inPack) {
      const text = decoder.decode(line).trimEnd();
      if (text.startsWith('ERR ')) throw new Error(`the remote refused the fetch: ${text.slice(4)}`);
      if (text === 'packfile') inPack = true;
      continue;
    }
    if (line[0] === 1) yield line.subarray(1);
    else if (line[0] === 3) throw new Error(`the remote failed the fetch: ${decoder.decode(line.subarray(1)).trim()}`);
  }
  if (!inPack) throw new Error('the remote answered the fetch without a pack');
}

/** Reads exactly `n` bytes from a byte generator, keeping what follows for the next read. */
class ByteReader {
  private readonly pending = new Chunks();
  constructor(private readonly source: AsyncGenerator<Uint8Array>) {}

  async take(n: number): Promise<Uint8Array> {
    while (this.pending.length < n) {
      const { done, value } = await this.source.next();
      if (done) throw new Error('the pack was cut short');
      this.pending.push(value);
    }
    return this.pending.take(n);
  }

  /** What is left: the buffered bytes, then the rest of the source. */
  async *rest(): AsyncGenerator<Uint8Array> {
    yield* this.pending.drain();
    yield* this.source;
  }
}

const BLOB = 3;

/**
 * The blob of a one-object pack answer: its size (from the object's header) and its inflated bytes as a stream.
 * The stream errors if the answer is not one blob, or when the bytes do not inflate to the size the header gave.
 */
export async function singleBlobOf(body: ReadableStream<Uint8Array>): Promise<{ size: number; stream: ReadableStream<Uint8Array> }> {
  const reader = new ByteReader(packBytesOf(body));
  const header = await reader.take(12);
  if (decoder.decode(header.subarray(0, 4)) !== 'PACK') throw new Error('the remote answered the fetch with something that is not a pack');
  const count = new DataView(header.buffer, header.byteOffset).getUint32(8);
  if (count !== 1) throw new Error(`the remote answered a fetch of one blob with ${count} objects`);
  let byte = (await reader.take(1))[0];
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = (await reader.take(1))[0];
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (type !== BLOB) throw new Error(`the remote answered a fetch of a blob with an object of type ${type}`);
  // The zlib stream is everything but the pack's trailer (the last 20 bytes): hold those back as bytes come.
  // Pulled, not pushed: the answer is read only as fast as the blob's reader (R2) takes it.
  const rest = reader.rest();
  let tail = new Uint8Array(0);
  const compressed = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await rest.next();
        if (done) {
          if (tail.byteLength !== 20) throw new Error('the pack was cut short');
          controller.close();
          return;
        }
        // The one copy of the bytes on their way: what goes into the DecompressionStream owns its buffer (the
        // pkt-line reader hands views of the answer's chunks, which later lines still read).
        const all = new Uint8Array(tail.byteLength + value.byteLength);
        all.set(tail);
        all.set(value, tail.byteLength);
        const keep = Math.min(20, all.byteLength);
        tail = all.slice(all.byteLength - keep);
        if (all.byteLength > keep) {
          controller.enqueue(all.subarray(0, all.byteLength - keep));
          return;
        }
      }
    },
    async cancel() {
      await rest.return(undefined);
    },
  });
  let inflated = 0;
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      inflated += chunk.byteLength;
      if (inflated > size) throw new Error(`the blob inflates past the ${size} bytes its header gives`);
      controller.enqueue(chunk);
    },
    flush() {
      if (inflated !== size) throw new Error(`the blob inflates to ${inflated} bytes, not the ${size} its header gives`);
    },
  });
  return { size, stream: compressed.pipeThrough(new DecompressionStream('deflate') as unknown as TransformStream<Uint8Array, Uint8Array>).pipeThrough(counted) };
}

// ---------------------------------------------------------------------------------------------
// A whole pack read at once: the answer to a batch of blobs wanted by id (services/git-sync/transport, forEachBlob).
// Each object is inflated once by the runtime's zlib (node:zlib: `info` says how many compressed bytes the object
// took, which is where the next one starts), deltas applied from their base in the same pack, and each blob's id
// (SHA-1) computed once. isomorphic-git instead indexed the pack (inflating every object in JavaScript and hashing
// it), then inflated each blob again to read it: most of the CPU of a large import's assets.

const TYPES = ['', 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;

type PackObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** Git's id of an object: the SHA-1 of `<type> <size>\0` and its bytes. */
export async function gitObjectId(type: PackObjectType, data: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`${type} ${data.byteLength}\0`);
  return toHex(await crypto.subtle.digest('SHA-1', concatBytes([header, data])));
}

/**
 * The bytes of one zlib stream starting at `at` that inflates to `size` bytes, and where it ends. The input given
 * to zlib is bounded by the most a stream of `size` bytes can take (zlib's deflateBound, rounded up), so that a
 * large pack is never handed whole to each object's inflate.
 */
function inflateAt(pack: Uint8Array, at: number, end: number, size: number): { data: Uint8Array; next: number } {
  const input = pack.subarray(at, Math.min(end, at + size + (size >> 10) + 64));
  let result: { buffer: Uint8Array; engine: { bytesWritten: number } };
  try {
    result = inflateSync(input, { info: true, maxOutputLength: Math.max(size, 1) } as ZlibOptions & { info: true }) as unknown as typeof result;
  } catch (error) {
    throw new Error(`the pack's object at byte ${at} does not inflate to its ${size} bytes: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (result.buffer.byteLength !== size) throw new Error(`the pack's object at byte ${at} inflates to ${result.buffer.byteLength} bytes, not the ${size} its header gives`);
  return { data: result.buffer, next: at + result.engine.bytesWritten };
}

/** Git's delta (a base's copy and insert instructions) applied to `base`. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      if (at >= delta.byteLength) throw new Error('the delta was cut short');
      byte = delta[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.byteLength) throw new Error('the delta does not apply to its base (another size)');
  const out = new Uint8Array(varint());
  let written = 0;
  while (at < delta.byteLength) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += delta[at++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) length += delta[at++] * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (offset + length > base.byteLength || written + length > out.byteLength) throw new Error('the delta copies past its base or its result');
      out.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (op > 0) {
      if (at + op > delta.byteLength || written + op > out.byteLength) throw new Error('the delta inserts past its result');
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new Error('the delta has an instruction Git does not write (0)');
    }
  }
  if (written !== out.byteLength) throw new Error('the delta made fewer bytes than it says');
  return out;
}

/**
 * The blobs among `wants` that a whole pack (a v2 `fetch` answer's, without thin deltas) carries, by id: the pack's
 * checksum verified, every object inflated once and each delta resolved from its base in the pack, each object's
 * id computed from its bytes (so a blob is exactly the bytes of its id). A wanted blob the pack lacks is an error.
 */
export async function blobsOfPack(pack: Uint8Array, wants: readonly string[]): Promise<Map<string, Uint8Array>> {
  if (pack.byteLength < 32 || decoder.decode(pack.subarray(0, 4)) !== 'PACK') throw new Error('the remote answered the fetch with something that is not a pack');
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new Error(`the remote answered a pack of version ${version}`);
  const count = view.getUint32(8);
  const end = pack.byteLength - 20;
  const checksum = toHex(await crypto.subtle.digest('SHA-1', pack.subarray(0, end)));
  if (checksum !== toHex(pack.subarray(end))) throw new Error('the pack the remote sent does not match its checksum');

  const wanted = new Set(wants);
  const blobs = new Map<string, Uint8Array>();
  // Every object of the pack by offset and by id: a later delta's base (the batch is bounded, so is this).
  const byOffset = new Map<number, { type: PackObjectType; data: Uint8Array }>();
  const byId = new Map<string, { type: PackObjectType; data: Uint8Array }>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at >= end) throw new Error('the pack was cut short');
    const start = at;
    let byte = pack[at++];
    const kind = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      if (at >= end) throw new Error('the pack was cut short');
      byte = pack[at++];
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let base: { type: PackObjectType; data: Uint8Array } | undefined;
    if (kind === OFS_DELTA) {
      byte = pack[at++];
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[at++];
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      base = byOffset.get(start - distance);
      if (!base) throw new Error(`the pack's delta at byte ${start} has no base in the pack`);
    } else if (kind === REF_DELTA) {
      const baseId = toHex(pack.subarray(at, at + 20));
      at += 20;
      base = byId.get(baseId);
      if (!base) throw new Error(`the pack's delta at byte ${start} is on ${baseId}, which the pack does not carry before it`);
    } else if (!TYPES[kind]) {
      throw new Error(`the pack has an object of unknown type ${kind}`);
    }
    const inflated = inflateAt(pack, at, end, size);
    at = inflated.next;
    const object = base ? { type: base.type, data: applyDelta(base.data, inflated.data) } : { type: TYPES[kind] as PackObjectType, data: inflated.data };
    const oid = await gitObjectId(object.type, object.data);
    byOffset.set(start, object);
    byId.set(oid, object);
    if (object.type === 'blob' && wanted.has(oid)) blobs.set(oid, object.data);
  }
  if (at !== end) throw new Error('the pack has bytes after its objects');
  const missing = wants.find((oid) => !blobs.has(oid));
  if (missing) throw new Error(`the remote's answer lacks the blob ${missing}`);
  return blobs;
}
