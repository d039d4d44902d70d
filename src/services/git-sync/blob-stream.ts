/**
 * One blob read as a stream from a v2 `fetch` answer that carries it alone: the answer is pkt-lines, its `packfile`
 * section's band 1 is a pack of one object (no delta: a pack of one object has no base, and no `thin-pack` is
 * asked), whose zlib stream runs from the object's header to the pack's 20-byte trailer. The blob's bytes go
 * through the runtime's DecompressionStream as they arrive: never held whole, whatever the blob's size.
 */

const decoder = new TextDecoder();

/** The pkt-lines of a stream: payloads, and `null` for a flush, delimiter or response end. */
export async function* pktLinesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array | null> {
  const reader = body.getReader();
  let buffer = new Uint8Array(0);
  const append = (chunk: Uint8Array) => {
    const next = new Uint8Array(buffer.byteLength + chunk.byteLength);
    next.set(buffer);
    next.set(chunk, buffer.byteLength);
    buffer = next;
  };
  try {
    for (;;) {
      while (buffer.byteLength >= 4) {
        const length = parseInt(decoder.decode(buffer.subarray(0, 4)), 16);
        if (Number.isNaN(length)) throw new Error('the remote answered something that is not Git protocol');
        if (length < 4) {
          buffer = buffer.subarray(4);
          yield null;
          continue;
        }
        if (buffer.byteLength < length) break;
        const payload = buffer.slice(4, length);
        buffer = buffer.subarray(length);
        yield payload;
      }
      const { done, value } = await reader.read();
      if (done) {
        if (buffer.byteLength > 0) throw new Error('the remote answer was cut short');
        return;
      }
      append(value);
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
  private pending = new Uint8Array(0);
  constructor(private readonly source: AsyncGenerator<Uint8Array>) {}

  async take(n: number): Promise<Uint8Array> {
    while (this.pending.byteLength < n) {
      const { done, value } = await this.source.next();
      if (done) throw new Error('the pack was cut short');
      const next = new Uint8Array(this.pending.byteLength + value.byteLength);
      next.set(this.pending);
      next.set(value, this.pending.byteLength);
      this.pending = next;
    }
    const out = this.pending.slice(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  /** What is left: the buffered bytes, then the rest of the source. */
  async *rest(): AsyncGenerator<Uint8Array> {
    if (this.pending.byteLength > 0) yield this.pending;
    this.pending = new Uint8Array(0);
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
