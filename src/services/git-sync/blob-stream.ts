/**
 * One blob read as a stream from a v2 `fetch` answer that carries it alone: the answer is pkt-lines, its `packfile`
 * section's band 1 is a pack of one object (no delta: a pack of one object has no base, and no `thin-pack` is
 * asked), whose zlib stream runs from the object's header to the pack's 20-byte trailer. The blob's bytes go
 * through the runtime's DecompressionStream as they arrive: never held whole, whatever the blob's size.
 */

import { createHash } from 'node:crypto';
import { createInflate, inflateSync, type ZlibOptions } from 'node:zlib';
import { toHex } from '../../lib/ids';
import { OutboundError } from '../../lib/outbound';

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
    const bytes = this.peek(n);
    this.advance(n);
    return bytes;
  }

  /** The next `n` bytes (n <= length), not consumed: a view when one chunk holds them, else a copy. */
  peek(n: number): Uint8Array {
    const first = this.list[0];
    if (first && first.byteLength - this.offset >= n) return first.subarray(this.offset, this.offset + n);
    const out = new Uint8Array(n);
    let offset = this.offset;
    for (let at = 0, i = 0; at < n; i++) {
      const chunk = this.list[i];
      const count = Math.min(n - at, chunk.byteLength - offset);
      out.set(chunk.subarray(offset, offset + count), at);
      at += count;
      offset = 0;
    }
    return out;
  }

  /** The bytes of the first chunk from the read position, not consumed (a view). */
  first(): Uint8Array {
    return this.list[0].subarray(this.offset);
  }

  /** Drops the next `n` bytes (n <= length). */
  skip(n: number): void {
    this.advance(n);
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

/**
 * The pack bytes of a `git-upload-pack` answer, as they come, in side band 1; progress (band 2) is not read, an error
 * (band 3) is thrown; a flush after the pack ends it. Protocol v2's `fetch` (`v2`): the pack is the `packfile`
 * section's. Protocol v0/v1 (`v1`, a server without protocol v2): the negotiation's lines come first (`shallow`/
 * `unshallow` of a `deepen`, a flush, `NAK` or `ACK`), then the bands (asked with `side-band-64k`): a band line starts
 * with its band's byte (1 to 3), a negotiation line with a letter.
 */
export async function* packBytesOf(body: ReadableStream<Uint8Array>, protocol: 'v1' | 'v2' = 'v2'): AsyncGenerator<Uint8Array> {
  let inPack = false;
  for await (const line of pktLinesOf(body)) {
    if (line === null) {
      if (inPack) return;
      continue;
    }
    const band = line[0];
    if (band >= 1 && band <= 3 && (inPack || protocol === 'v1')) {
      inPack = true;
      if (band === 1 && line.byteLength > 1) yield line.subarray(1);
      else if (band === 3) throw new Error(`the remote failed the fetch: ${decoder.decode(line.subarray(1)).trim()}`);
      continue;
    }
    const text = decoder.decode(line).trimEnd();
    if (text.startsWith('ERR ')) throw new Error(`the remote refused the fetch: ${text.slice(4)}`);
    if (protocol === 'v2' && text === 'packfile') inPack = true;
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

export const TYPES = ['', 'commit', 'tree', 'blob', 'tag'] as const;
export const OFS_DELTA = 6;
export const REF_DELTA = 7;

export type PackObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** node:crypto's incremental SHA-1 (the project's types for node:crypto are narrower than what it does). */
export type Sha1 = { update(bytes: Uint8Array): Sha1; digest(): Uint8Array };
export const sha1 = () => createHash('sha1') as unknown as Sha1;

/** Git's id of an object: the SHA-1 of `<type> <size>\0` and its bytes (hashed in place: the bytes are not copied). */
export async function gitObjectId(type: PackObjectType, data: Uint8Array): Promise<string> {
  return toHex(sha1().update(new TextEncoder().encode(`${type} ${data.byteLength}\0`)).update(data).digest());
}

/** The most compressed bytes a zlib stream of `size` inflated bytes takes (zlib's deflateBound, rounded up). */
const deflateBound = (size: number) => size + (size >> 10) + 64;

/**
 * The bytes of one zlib stream at the start of `input` that inflates to `size` bytes, and how many bytes of
 * `input` it took. `input` is bounded by the caller (at most `deflateBound(size)` bytes), so that a large pack is
 * never handed whole to each object's inflate.
 */
function inflateHead(input: Uint8Array, size: number, at: number): { data: Uint8Array; used: number } {
  let result: { buffer: Uint8Array; engine: { bytesWritten: number } };
  try {
    result = inflateSync(input, { info: true, maxOutputLength: Math.max(size, 1) } as ZlibOptions & { info: true }) as unknown as typeof result;
  } catch (error) {
    throw new Error(`the pack's object at byte ${at} does not inflate to its ${size} bytes: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (result.buffer.byteLength !== size) throw new Error(`the pack's object at byte ${at} inflates to ${result.buffer.byteLength} bytes, not the ${size} its header gives`);
  return { data: result.buffer, used: result.engine.bytesWritten };
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
 * One zlib stream inflated as its compressed bytes are fed, by the runtime's zlib (node:zlib's Inflate, native in
 * workerd): `feed` answers how many bytes of a chunk the stream took, fewer than the chunk's when the stream ended
 * within it (`bytesWritten` counts the compressed bytes zlib consumed), so the next object of a pack starts there.
 * What it inflates goes to `onData` piece by piece (16 KiB), never gathered: a blob of any size costs one piece.
 */
class StreamInflater {
  private readonly engine = createInflate();
  private inflated = 0;
  private readonly ended: Promise<void>;

  constructor(onData: (bytes: Uint8Array) => void) {
    this.engine.on('data', (bytes: Uint8Array) => {
      this.inflated += bytes.byteLength;
      onData(bytes);
    });
    this.ended = new Promise<void>((resolve, reject) => {
      this.engine.once('end', resolve);
      this.engine.once('error', reject);
    });
    this.ended.catch(() => undefined);
  }

  /** Feeds `chunk`: how many of its bytes the zlib stream took (all of them unless it ended within it). */
  async feed(chunk: Uint8Array): Promise<number> {
    const before = this.engine.bytesWritten;
    const written = new Promise<void>((resolve, reject) => this.engine.write(chunk, (error) => (error ? reject(error) : resolve())));
    // An error may end the stream without calling back the write (a destroyed stream).
    await Promise.race([written, this.ended.then(() => written)]);
    return this.engine.bytesWritten - before;
  }

  /** The count of inflated bytes, once the stream ended and every piece was handed out. */
  async end(): Promise<number> {
    await this.ended;
    return this.inflated;
  }

  close(): void {
    this.engine.destroy();
  }
}

/**
 * A pack's bytes as they come, read object by object: what is buffered is at most one object's compressed bytes
 * (and the chunk the next one starts in), never the pack; an object read with `inflateStreaming` not even that. Every
 * byte before the trailer goes through the pack's SHA-1 as it is consumed.
 */
export class PackReader {
  private readonly pending = new Chunks();
  private readonly checksum = sha1();
  ended = false;
  /** The answer itself failed (too large, the connection lost): that is the error, whatever was read of it. */
  sourceFailed = false;
  /** Bytes consumed from the pack's start (the offset of what is read next). */
  offset = 0;

  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  /** Buffers until `n` bytes are, or the pack ended; answers how many are buffered. */
  async fill(n: number): Promise<number> {
    while (this.pending.length < n && !this.ended) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await this.source.next();
      } catch (error) {
        this.sourceFailed = true;
        throw error;
      }
      const { done, value } = next;
      if (done) this.ended = true;
      else this.pending.push(value);
    }
    return this.pending.length;
  }

  async take(n: number): Promise<Uint8Array> {
    if ((await this.fill(n)) < n) throw new Error('the pack was cut short');
    const bytes = this.pending.take(n);
    this.checksum.update(bytes);
    this.offset += n;
    return bytes;
  }

  async byte(): Promise<number> {
    return (await this.take(1))[0];
  }

  /** One zlib stream that inflates to `size` bytes, consumed (its compressed bytes only). */
  async inflate(size: number): Promise<Uint8Array> {
    const at = this.offset;
    const available = await this.fill(deflateBound(size));
    const input = this.pending.peek(Math.min(available, deflateBound(size)));
    let inflated: { data: Uint8Array; used: number };
    try {
      inflated = inflateHead(input, size, at);
    } catch (error) {
      // The pack ended within this object's bytes: it was cut short, whatever zlib makes of what is there.
      if (this.ended && available < deflateBound(size)) throw new Error(`the pack was cut short (in its object at byte ${at})`);
      throw error;
    }
    const { data, used } = inflated;
    // Hashed from the bytes zlib read (a copy when they spanned chunks), not copied again.
    this.checksum.update(input.subarray(0, used));
    this.pending.skip(used);
    this.offset += used;
    return data;
  }

  /**
   * One zlib stream of any size, consumed, its inflated bytes handed to `onData` as they come (not kept): only the
   * chunk being read is held. Answers how many bytes it inflated to.
   */
  async inflateStreaming(onData: (bytes: Uint8Array) => void): Promise<number> {
    const at = this.offset;
    const inflater = new StreamInflater(onData);
    try {
      for (;;) {
        if ((await this.fill(1)) === 0) throw new Error(`the pack was cut short (in its object at byte ${at})`);
        const chunk = this.pending.first();
        let used: number;
        try {
          used = await inflater.feed(chunk);
        } catch (error) {
          throw new Error(`the pack's object at byte ${at} does not inflate: ${error instanceof Error ? error.message : String(error)}`);
        }
        this.checksum.update(chunk.subarray(0, used));
        this.pending.skip(used);
        this.offset += used;
        // The stream ended within the chunk (or, having ended at its end, took nothing of the next one).
        if (used < chunk.byteLength) return await inflater.end();
      }
    } finally {
      inflater.close();
    }
  }

  /**
   * Whether the rest of the pack matches its checksum, read to its end holding only its last 20 bytes: an object
   * that does not parse is first a pack whose bytes were damaged, and says so.
   */
  async checksumHolds(): Promise<boolean> {
    for (;;) {
      if (this.pending.length > 20) {
        const bytes = this.pending.take(this.pending.length - 20);
        this.checksum.update(bytes);
      }
      if (this.ended) break;
      await this.fill(this.pending.length + 1);
    }
    return this.pending.length === 20 && toHex(this.checksum.digest()) === toHex(this.pending.take(20));
  }

  /** The trailer: the SHA-1 of every byte before it, and nothing after it. */
  async verifyTrailer(): Promise<void> {
    const left = await this.fill(21);
    if (left < 20) throw new Error('the pack was cut short');
    if (left > 20) throw new Error('the pack has bytes after its objects');
    const trailer = this.pending.take(20);
    if (toHex(this.checksum.digest()) !== toHex(trailer)) throw new Error('the pack the remote sent does not match its checksum');
  }
}

/**
 * The blobs among `wants` that a pack (a v2 `fetch` answer's, without thin deltas) carries, by id, read as its
 * bytes come (`packBytes`: band 1 of the answer, see `packBytesOf`): each object inflated once as soon as its
 * compressed bytes are here, each delta resolved from its base in the pack, each object's id computed from its
 * bytes (so a blob is exactly the bytes of its id), the pack's checksum verified at its end. What is held is the
 * batch's inflated objects (a later delta's base may be any of them) and one object's compressed bytes, never the
 * pack: a batch costs its blobs' bytes once. A wanted blob the pack lacks is an error. `bytes`: the pack's size.
 */
export async function blobsOfPackStream(packBytes: AsyncIterable<Uint8Array>, wants: readonly string[]): Promise<{ blobs: Map<string, Uint8Array>; bytes: number }> {
  const reader = new PackReader(packBytes[Symbol.asyncIterator]());
  const count = await packHeader(reader);
  const blobs = new Map<string, Uint8Array>();
  await readToTrailer(reader, () => readObjects(reader, count, wants, blobs));
  const missing = wants.find((oid) => !blobs.has(oid));
  if (missing) throw new Error(`the remote's answer lacks the blob ${missing}`);
  return { blobs, bytes: reader.offset + 20 };
}

/** A pack's header (`PACK`, its version, its count of objects): the count. */
export async function packHeader(reader: PackReader): Promise<number> {
  const header = await reader.take(12).catch((error: unknown) => {
    // The remote's own refusal (`not our ref <oid>`: a blob it lacks) is what went wrong, and says which blob.
    if (error instanceof Error && error.message.startsWith('the remote refused the fetch')) throw error;
    // So is an answer that stopped coming or was lost (the outbound guard's time limit, a dropped connection).
    if (error instanceof OutboundError) throw error;
    throw new Error('the remote answered the fetch with something that is not a pack');
  });
  if (decoder.decode(header.subarray(0, 4)) !== 'PACK') throw new Error('the remote answered the fetch with something that is not a pack');
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new Error(`the remote answered a pack of version ${version}`);
  return view.getUint32(8);
}

/** Reads a pack's objects with `read`, then checks its trailer; an object that fails on damaged bytes says so. */
export async function readToTrailer(reader: PackReader, read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    // Read to its end unless it ended already (cut short), its answer failed, or its reader stopped it on purpose (a limit
    // passed: `stopsRead`, its bytes not wanted): damaged bytes say so.
    if ((error as { stopsRead?: boolean } | null)?.stopsRead === true) throw error;
    if (!reader.sourceFailed && !reader.ended && !(await reader.checksumHolds().catch(() => true))) throw new Error('the pack the remote sent does not match its checksum');
    throw error;
  }
  await reader.verifyTrailer();
}

/** An object's header in a pack: its kind (1-4, or a delta), its size (inflated), and a delta's base. */
export type ObjectHeader = { start: number; kind: number; size: number; baseOffset?: number; baseId?: string };

export async function objectHeader(reader: PackReader): Promise<ObjectHeader> {
  const start = reader.offset;
  let byte = await reader.byte();
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = await reader.byte();
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (kind === OFS_DELTA) {
    byte = await reader.byte();
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      byte = await reader.byte();
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    return { start, kind, size, baseOffset: start - distance };
  }
  if (kind === REF_DELTA) return { start, kind, size, baseId: toHex(await reader.take(20)) };
  if (!TYPES[kind]) throw new Error(`the pack has an object of unknown type ${kind}`);
  return { start, kind, size };
}

/** The `count` objects of a pack, in turn: the blobs among `wants` into `blobs`. */
async function readObjects(reader: PackReader, count: number, wants: readonly string[], blobs: Map<string, Uint8Array>): Promise<void> {
  const wanted = new Set(wants);
  // Every object of the pack by offset and by id: a later delta's base (the batch is bounded, so is this).
  const byOffset = new Map<number, { type: PackObjectType; data: Uint8Array }>();
  const byId = new Map<string, { type: PackObjectType; data: Uint8Array }>();
  for (let i = 0; i < count; i++) {
    const { start, kind, size, baseOffset, baseId } = await objectHeader(reader);
    let base: { type: PackObjectType; data: Uint8Array } | undefined;
    if (baseOffset !== undefined) {
      base = byOffset.get(baseOffset);
      if (!base) throw new Error(`the pack's delta at byte ${start} has no base in the pack`);
    } else if (baseId !== undefined) {
      base = byId.get(baseId);
      if (!base) throw new Error(`the pack's delta at byte ${start} is on ${baseId}, which the pack does not carry before it`);
    }
    const inflated = await reader.inflate(size);
    const object = base ? { type: base.type, data: applyDelta(base.data, inflated) } : { type: TYPES[kind] as PackObjectType, data: inflated };
    const oid = await gitObjectId(object.type, object.data);
    byOffset.set(start, object);
    byId.set(oid, object);
    if (object.type === 'blob' && wanted.has(oid)) blobs.set(oid, object.data);
  }
}

/** The blobs among `wants` of a whole pack held already (see `blobsOfPackStream`). */
export async function blobsOfPack(pack: Uint8Array, wants: readonly string[]): Promise<Map<string, Uint8Array>> {
  return (
    await blobsOfPackStream(
      (async function* () {
        yield pack;
      })(),
      wants,
    )
  ).blobs;
}
