/**
 * What a large read costs in what D1 answers: the size of each answer (a statement or a batch), its text and its blobs
 * (stored documents). A read whose heap is bounded asks D1 for a bounded amount at a time.
 */

/** A D1 binding that notes the characters (or bytes, for blobs) of each answer it gives, in order. */
export function answerSizesD1(d1: D1Database) {
  const answers: number[] = [];
  const real = new WeakMap<object, D1PreparedStatement>();
  const chars = (value: unknown): number => {
    if (typeof value === 'string') return value.length;
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
    // The D1 binding answers a blob as an array of numbers: one a byte.
    if (Array.isArray(value)) return value.every((v) => typeof v === 'number') ? value.length : value.reduce((n: number, v) => n + chars(v), 0);
    if (value && typeof value === 'object') return Object.values(value).reduce((n: number, v) => n + chars(v), 0);
    return 0;
  };
  const note = <T>(result: T) => {
    answers.push(chars(result));
    return result;
  };
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement => {
    const proxy = {
      bind: (...values: unknown[]) => wrap(statement.bind(...values)),
      all: async () => note(await statement.all()),
      raw: async (options?: { columnNames?: boolean }) => note(await statement.raw(options as never)),
      first: async (column?: string) => note(await statement.first(column as never)),
      run: async () => note(await statement.run()),
    } as unknown as D1PreparedStatement;
    real.set(proxy, statement);
    return proxy;
  };
  const client = {
    prepare: (query: string) => wrap(d1.prepare(query)),
    batch: async (statements: D1PreparedStatement[]) => note(await d1.batch(statements.map((s) => real.get(s) ?? s))),
  } as unknown as D1Database;
  return { client, answers };
}

/** A stream's text, calling `onChunk` before each chunk is added. */
export async function readAllText(stream: ReadableStream<Uint8Array>, onChunk?: () => void): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    onChunk?.();
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

/** `count` characters of words of letters and digits drawn from a seeded sequence (text that compresses little, as real pages). */
export function incompressibleWords(seed: number, count: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let x = seed * 2654435761 + 1;
  let out = '';
  while (out.length < count) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const n = (x >>> 0) % 62;
    out += (x >>> 0) % 7 === 0 ? ' ' : alphabet[n];
  }
  return out;
}
