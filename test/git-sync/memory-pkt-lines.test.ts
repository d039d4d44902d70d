import { describe, expect, it } from 'vitest';
import { pktLinesOf, singleBlobOf } from '../../src/services/git-sync/blob-stream';
import { concatBytes } from '../../src/lib/bytes';
import { chunked, noise } from '../helpers/git-sync';

/**
 * The streamed blob's reader (services/git-sync/blob-stream) reads pkt-lines as views of the chunks the answer came
 * in, copying only a line that spans chunks: whatever the chunks' boundaries (one byte each, across a length's
 * four digits, across a pack's trailer), the lines and the blob's bytes are the same as read whole.
 */

const encoder = new TextEncoder();

function pktLine(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.byteLength + 4);
  out.set(encoder.encode((payload.byteLength + 4).toString(16).padStart(4, '0')));
  out.set(payload, 4);
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate') as unknown as TransformStream<Uint8Array, Uint8Array>);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A v2 `fetch` answer carrying a pack of one blob, its pack bytes in band-1 pkt-lines of at most `band` bytes. */
async function fetchAnswer(blob: Uint8Array, band: number): Promise<Uint8Array> {
  const header = [0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 1];
  // The object's type (3, blob) and size, in the pack's variable-length encoding.
  let size = blob.byteLength;
  const objectHeader = [(3 << 4) | (size & 15)];
  size = Math.floor(size / 16);
  while (size > 0) {
    objectHeader[objectHeader.length - 1] |= 0x80;
    objectHeader.push(size & 0x7f);
    size = Math.floor(size / 128);
  }
  const pack = concatBytes([new Uint8Array([...header, ...objectHeader]), await deflate(blob), noise(20, 99)]);
  const lines = [pktLine(encoder.encode('packfile\n'))];
  for (let at = 0; at < pack.byteLength; at += band) lines.push(pktLine(concatBytes([new Uint8Array([1]), pack.subarray(at, at + band)])));
  lines.push(encoder.encode('0000'));
  return concatBytes(lines);
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const CHUNKINGS: Array<[string, number[]]> = [
  ['whole', [1 << 30]],
  ['one byte at a time', [1]],
  ['3 bytes (across the length digits)', [3]],
  ['uneven', [5, 1, 70000, 2, 19, 21, 65536]],
  ['16 KiB', [16384]],
];

describe('pkt-lines read from chunks', () => {
  const payloads = [encoder.encode('version 2\n'), noise(65516, 1), encoder.encode('a'), noise(300, 2)];
  const answer = concatBytes([pktLine(payloads[0]), encoder.encode('0001'), pktLine(payloads[1]), pktLine(payloads[2]), encoder.encode('0000'), pktLine(payloads[3])]);
  const expected = [payloads[0], null, payloads[1], payloads[2], null, payloads[3]];

  // One byte at a time through every line but the middle of the 65,520-byte one (which starts at byte 18): its first and
  // last 4 KiB, its length digits and every other line's bytes still come one byte each, so each boundary is split
  // everywhere and a line is still put together from thousands of one-byte chunks. Its other 57,328 one-byte chunks
  // were each that same step again (a byte added to a line spanning chunks) and took most of the file's time; they
  // come as one chunk here, itself a line's part spanning chunks as in 'uneven'.
  const longLineStart = 18;
  const middle = 65_520 - 2 * 4096;
  const oneByteAtATime = [...Array<number>(longLineStart + 4096).fill(1), middle, ...Array<number>(answer.byteLength - longLineStart - 4096 - middle).fill(1)];
  const LINE_CHUNKINGS = CHUNKINGS.map(([name, sizes]): [string, number[]] => (name === 'one byte at a time' ? [name, oneByteAtATime] : [name, sizes]));

  it('the one-byte chunking covers the whole answer once', () => {
    expect(oneByteAtATime.reduce((a, b) => a + b, 0)).toBe(answer.byteLength);
    expect(answer.subarray(longLineStart, longLineStart + 4)).toEqual(encoder.encode('fff0'));
  });

  for (const [name, sizes] of LINE_CHUNKINGS) {
    it(`the same lines, ${name}`, async () => {
      const lines: Array<number[] | null> = [];
      for await (const line of pktLinesOf(chunked(answer, sizes))) lines.push(line && [...line]);
      expect(lines).toEqual(expected.map((line) => line && [...line]));
    });
  }

  it('an answer cut inside a line is refused; one that is not Git protocol too', async () => {
    const read = async (bytes: Uint8Array) => {
      for await (const _ of pktLinesOf(chunked(bytes, [7]))) void _;
    };
    await expect(read(answer.subarray(0, answer.byteLength - 5))).rejects.toThrow('cut short');
    await expect(read(encoder.encode('zz12hello'))).rejects.toThrow('not Git protocol');
  });
});

describe('a streamed blob read from chunks', () => {
  const blob = noise(200_000, 7);

  for (const [name, sizes] of CHUNKINGS.filter(([name]) => name !== 'one byte at a time')) {
    it(`the blob's bytes, ${name}`, async () => {
      const { size, stream } = await singleBlobOf(chunked(await fetchAnswer(blob, 65515), sizes));
      expect(size).toBe(blob.byteLength);
      expect(await readAll(stream)).toEqual(blob);
    });
  }

  it("the pack's trailer split over lines and chunks (a last line shorter than the trailer)", async () => {
    // Band lines of 7 bytes: the 20-byte trailer spans four lines, the last holding a few of its bytes.
    const { stream } = await singleBlobOf(chunked(await fetchAnswer(blob.subarray(0, 5000), 7), [3, 11]));
    expect(await readAll(stream)).toEqual(blob.subarray(0, 5000));
  });

  it('a blob whose bytes are cut short fails its stream', async () => {
    const answer = await fetchAnswer(blob, 65515);
    const { stream } = await singleBlobOf(chunked(answer.subarray(0, answer.byteLength - 5000), [4096]));
    await expect(readAll(stream)).rejects.toThrow();
  });
});
