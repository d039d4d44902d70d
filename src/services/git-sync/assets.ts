import { sha256Hex, toHex } from '../../lib/ids';
import { fileKey, imageDimensions } from '../content/files';

/**
 * Where an import puts the files it reads (assets): R2, from the queue consumer, before the SpaceWriter runs, so
 * the content batch carries file entries (hash, size, type) and never the bytes (a Durable Object call carries
 * at most 32 MiB). Files are stored once per SHA-256 (`files/<hash>`, as every file of the deployment).
 * - A small blob is stored from its bytes (held already: it came in a batch of blobs);
 * - a large one comes as a stream and goes to R2 as it is read: it is written under a staging key while its
 *   SHA-256 and its Git blob id (SHA-1 of `blob <size>\0` and the bytes) are computed on the way, then copied
 *   (R2 to R2, streamed) to `files/<sha256>` unless that exists already, and the staging object deleted. A blob
 *   whose bytes are not its id (a corrupt answer) is refused.
 */
export interface StoredAsset {
  hash: string;
  size: number;
  dimensions?: { width: number; height: number };
}

export interface AssetStore {
  storeBytes(bytes: Uint8Array, contentType: string): Promise<StoredAsset>;
  storeStream(oid: string, size: number, stream: ReadableStream<Uint8Array>, contentType: string): Promise<StoredAsset>;
}

/** Bytes of a streamed image kept to read its dimensions from its header. */
const IMAGE_HEAD_BYTES = 256 * 1024;

export function r2AssetStore(bucket: R2Bucket): AssetStore {
  return {
    async storeBytes(bytes, contentType) {
      const hash = await sha256Hex(bytes);
      if (!(await bucket.head(fileKey(hash)))) await bucket.put(fileKey(hash), bytes, { sha256: hash });
      const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes) : undefined;
      return { hash, size: bytes.byteLength, ...(dimensions ? { dimensions } : {}) };
    },
    async storeStream(oid, size, stream, contentType) {
      const sha256 = new crypto.DigestStream('SHA-256');
      const sha1 = new crypto.DigestStream('SHA-1');
      const sha256Writer = sha256.getWriter();
      const sha1Writer = sha1.getWriter();
      await sha1Writer.write(new TextEncoder().encode(`blob ${size}\0`));
      const head: Uint8Array[] = [];
      let headBytes = 0;
      const hashing = new TransformStream<Uint8Array, Uint8Array>({
        async transform(chunk, controller) {
          await Promise.all([sha256Writer.write(chunk), sha1Writer.write(chunk)]);
          if (contentType.startsWith('image/') && headBytes < IMAGE_HEAD_BYTES) {
            head.push(chunk.slice(0, IMAGE_HEAD_BYTES - headBytes));
            headBytes += head[head.length - 1].byteLength;
          }
          controller.enqueue(chunk);
        },
        async flush() {
          await Promise.all([sha256Writer.close(), sha1Writer.close()]);
        },
      });
      const staging = `git-sync/staging/${crypto.randomUUID()}`;
      try {
        await bucket.put(staging, stream.pipeThrough(hashing).pipeThrough(new FixedLengthStream(size)));
        const [hash, blobId] = await Promise.all([sha256.digest, sha1.digest]).then((d) => d.map(toHex));
        if (blobId !== oid) throw new Error(`the blob ${oid} the remote sent has other bytes (${blobId})`);
        if (!(await bucket.head(fileKey(hash)))) {
          const staged = await bucket.get(staging);
          if (!staged) throw new Error('the staged file went missing');
          await bucket.put(fileKey(hash), staged.body.pipeThrough(new FixedLengthStream(size)), { sha256: hash });
        }
        const dimensions = headBytes > 0 ? imageDimensions(concat(head)) : undefined;
        return { hash, size, ...(dimensions ? { dimensions } : {}) };
      } finally {
        await bucket.delete(staging).catch(() => undefined);
      }
    },
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
