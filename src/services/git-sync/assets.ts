import { sha256Hex, toHex } from '../../lib/ids';
import { fileKey, imageDimensions } from '../content/files';
import { GIT_SYNC_OPERATION_META, STAGING_PREFIX } from './cleanup';
import { concatBytes } from '../../lib/bytes';
import { gitObjectId } from './blob-stream';

/**
 * Where an import puts the files it reads (assets): R2, from the queue consumer, before the SpaceWriter runs, so
 * the content batch carries file entries (hash, size, type) and never the bytes (a Durable Object call carries
 * at most 32 MiB). Files are stored once per SHA-256 (`files/<hash>`, as every file of the deployment).
 * - A small blob is stored from its bytes (held already: it came in a batch of blobs);
 * - a streamed one up to HELD_STREAM_BYTES is read whole (one at a time), checked against its id and stored as
 *   bytes are;
 * - a larger one comes as a stream and goes to R2 as it is read: it is written under a staging key while its
 *   SHA-256 and its Git blob id (SHA-1 of `blob <size>\0` and the bytes) are computed on the way, then copied
 *   (R2 to R2, streamed) to `files/<sha256>` unless that exists already, and the staging object deleted; above
 *   MULTIPART_ABOVE both writes are multipart uploads (the copy's parts are ranged reads of the staged object).
 *   A blob whose bytes are not its id (a corrupt answer) is refused;
 * - the objects a store created are marked with the operation's id, so an import that fails deletes them
 *   (`discard`) unless an upload of the same bytes rewrote them since.
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

/**
 * Git Sync's cap on one file an import stores (`GIT_SYNC_MAX_FILE_BYTES`; 100 MiB when unset: GitHub refuses
 * files over 100 MiB, so every file of a GitHub repository fits). Not MAX_FILE_BYTES, the cap of an upload: an
 * upload's bytes come through the Worker's request body and a content batch, a repository's are streamed into
 * R2 and never held. Bounded by what one import can stream in the queue consumer's time rather than by memory.
 */
export const GIT_SYNC_DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024;
/** Above this a setting is refused for the default: R2's largest single object is 5 TiB, a queue run lasts 15 minutes. */
const GIT_SYNC_MAX_FILE_BYTES_CEILING = 5 * 1024 * 1024 * 1024;

export function gitSyncMaxFileBytes(env: { GIT_SYNC_MAX_FILE_BYTES?: string }): number {
  const raw = Number(env.GIT_SYNC_MAX_FILE_BYTES?.trim());
  return Number.isSafeInteger(raw) && raw > 0 && raw <= GIT_SYNC_MAX_FILE_BYTES_CEILING ? raw : GIT_SYNC_DEFAULT_MAX_FILE_BYTES;
}

/**
 * A streamed blob larger than this goes to R2 as a multipart upload, in parts of `MULTIPART_PART_BYTES` (R2: at
 * least 5 MiB each but the last, all the same size, at most 10,000): no single request carries more than a part,
 * and an object past the 5 GiB of a single upload is possible. Smaller ones are one streamed `put`.
 */
export const MULTIPART_ABOVE = 10 * 1024 * 1024;
export const MULTIPART_PART_BYTES = 8 * 1024 * 1024;

/**
 * A streamed blob up to this size is read whole into one buffer of its size, checked and stored with one put:
 * not staged, copied and deleted (two writes, a read and three more calls to R2 for each). The import streams one
 * blob at a time, so this bounds what it holds by bytes (outside V8's heap: a buffer's bytes). Measured on the
 * benchmark's 300 MiB import, whose 45 archives of 2 MiB each were staged and copied.
 */
export const HELD_STREAM_BYTES = 4 * 1024 * 1024;

/** What an import that stored files and then failed deletes: the objects it created (see `discard`). */
export interface DiscardableAssetStore extends AssetStore {
  /**
   * Deletes the `files/<sha256>` objects this store created (absent before it wrote them) that nobody wrote
   * since (their `git-sync-operation` metadata is still this one's: an upload of the same bytes rewrites it), and
   * refuses every later store. Returns how many were deleted.
   */
  discard(): Promise<number>;
}

/**
 * Whether the Git Sync operation `operationId` made a revision (its files are referenced for good). What decides
 * if an object another operation created is reused as it is (see `r2AssetStore`).
 */
export type OperationSettled = (operationId: string) => Promise<boolean>;

/**
 * `settled`: an object already at `files/<sha256>` that another operation created (its `git-sync-operation`
 * metadata) and that made no revision yet (still running, failed, or stopped) is written again with this
 * operation's mark: otherwise that operation's `discard`, or the hourly sweep of orphan files
 * (cleanup.ts, `sweepGitOrphanFiles`), would delete an object this import's revision refers to.
 */
export function r2AssetStore(bucket: R2Bucket, operationId = 'unknown', settled: OperationSettled = async () => false): DiscardableAssetStore {
  const created = new Set<string>();
  let discarded = false;
  const marker = { customMetadata: { [GIT_SYNC_OPERATION_META]: operationId } };
  const usable = () => {
    if (discarded) throw new Error('the import was abandoned: no more files are stored for it');
  };
  const settledOf = new Map<string, Promise<boolean>>();
  /** No object, or one whose creator may still delete it (or leave it to the sweep): this store writes it. */
  const mustWrite = async (key: string) => {
    const existing = await bucket.head(key);
    const creator = existing?.customMetadata?.[GIT_SYNC_OPERATION_META];
    if (!existing) return true;
    if (!creator || creator === operationId) return false;
    if (!settledOf.has(creator)) settledOf.set(creator, settled(creator));
    return !(await settledOf.get(creator));
  };
  const storeBytes = async (bytes: Uint8Array, contentType: string): Promise<StoredAsset> => {
    usable();
    const hash = await sha256Hex(bytes);
    // Written only where R2 has no object (most of an import's files): one round trip, where a head then a put took
    // two (issue 40: the assets phase of large imports). An object already there is looked at as before.
    const written = await bucket.put(fileKey(hash), bytes, { sha256: hash, ...marker, onlyIf: { etagDoesNotMatch: '*' } });
    if (written) created.add(hash);
    else if (await mustWrite(fileKey(hash))) {
      await bucket.put(fileKey(hash), bytes, { sha256: hash, ...marker });
      created.add(hash);
    }
    // Dimensions from the head of the bytes, as for a streamed image: an SVG's are in its root tag, and image-size
    // decodes a whole SVG to text to find it (a 2.7 MB SVG of GitBook's docs: some 10 ms of CPU each, on a busy machine).
    const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes.subarray(0, IMAGE_HEAD_BYTES)) : undefined;
    return { hash, size: bytes.byteLength, ...(dimensions ? { dimensions } : {}) };
  };
  return {
    storeBytes,
    async storeStream(oid, size, stream, contentType) {
      usable();
      if (size <= HELD_STREAM_BYTES) {
        const bytes = await bytesOf(stream, size);
        const blobId = await gitObjectId('blob', bytes);
        if (blobId !== oid) throw new Error(`the blob ${oid} the remote sent has other bytes (${blobId})`);
        return storeBytes(bytes, contentType);
      }
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
      const staging = `${STAGING_PREFIX}${crypto.randomUUID()}`;
      try {
        await putStream(bucket, staging, size, stream.pipeThrough(hashing), {});
        const [hash, blobId] = await Promise.all([sha256.digest, sha1.digest]).then((d) => d.map(toHex));
        if (blobId !== oid) throw new Error(`the blob ${oid} the remote sent has other bytes (${blobId})`);
        if (await mustWrite(fileKey(hash))) {
          await copyObject(bucket, staging, fileKey(hash), size, { sha256: hash, ...marker });
          created.add(hash);
        }
        const dimensions = headBytes > 0 ? imageDimensions(concatBytes(head)) : undefined;
        return { hash, size, ...(dimensions ? { dimensions } : {}) };
      } finally {
        await bucket.delete(staging).catch(() => undefined);
      }
    },
    async discard() {
      discarded = true;
      const mine: string[] = [];
      for (const hash of created) {
        const object = await bucket.head(fileKey(hash));
        if (object?.customMetadata?.[GIT_SYNC_OPERATION_META] === operationId) mine.push(fileKey(hash));
      }
      created.clear();
      // R2 deletes at most 1,000 keys per call.
      for (let i = 0; i < mine.length; i += 1000) await bucket.delete(mine.slice(i, i + 1000));
      return mine.length;
    },
  };
}

/** `size` bytes of a stream into `key`: one streamed put, or a multipart upload above MULTIPART_ABOVE. Exported for the benchmark's plain R2 write. */
export async function putStream(bucket: R2Bucket, key: string, size: number, stream: ReadableStream<Uint8Array>, options: R2PutOptions): Promise<void> {
  if (size <= MULTIPART_ABOVE) {
    await bucket.put(key, stream.pipeThrough(new FixedLengthStream(size)), options);
    return;
  }
  const reader = stream.getReader();
  const parts = partsOf(reader);
  try {
    await multipart(bucket, key, size, options, (_offset, length) => parts.next(length));
    // Read to its end, so the hashes on the way are final (and a stream longer than its size is refused).
    if (!(await parts.ended())) throw new Error('the blob is longer than its size');
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** `from` copied to `to` (R2 to R2, streamed): one put, or a multipart upload whose parts are ranged reads. */
async function copyObject(bucket: R2Bucket, from: string, to: string, size: number, options: R2PutOptions): Promise<void> {
  const read = async (offset: number, length: number) => {
    const object = await bucket.get(from, size === 0 ? undefined : { range: { offset, length } });
    if (!object) throw new Error('the staged file went missing');
    return object.body;
  };
  if (size <= MULTIPART_ABOVE) {
    await bucket.put(to, (await read(0, size)).pipeThrough(new FixedLengthStream(size)), options);
    return;
  }
  await multipart(bucket, to, size, options, read);
}

/** A multipart upload of `size` bytes, part by part (each one's stream asked for when it is sent); aborted on failure. */
async function multipart(bucket: R2Bucket, key: string, size: number, options: R2PutOptions, part: (offset: number, length: number) => Promise<ReadableStream<Uint8Array>>): Promise<void> {
  const upload = await bucket.createMultipartUpload(key, { httpMetadata: options.httpMetadata, customMetadata: options.customMetadata });
  try {
    const uploaded: R2UploadedPart[] = [];
    for (let offset = 0, number = 1; offset < size; offset += MULTIPART_PART_BYTES, number++) {
      const length = Math.min(MULTIPART_PART_BYTES, size - offset);
      uploaded.push(await upload.uploadPart(number, (await part(offset, length)).pipeThrough(new FixedLengthStream(length))));
    }
    await upload.complete(uploaded);
  } catch (error) {
    await upload.abort().catch(() => undefined);
    throw error;
  }
}

/** Cuts a stream into consecutive streams of given lengths, each pulled from the source as it is read. */
function partsOf(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let carry: Uint8Array | null = null;
  return {
    async ended(): Promise<boolean> {
      if (carry && carry.byteLength > 0) return false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return true;
        if (value.byteLength > 0) return false;
      }
    },
    async next(length: number): Promise<ReadableStream<Uint8Array>> {
      let left = length;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (left === 0) {
            controller.close();
            return;
          }
          let chunk = carry;
          carry = null;
          if (!chunk) {
            const { done, value } = await reader.read();
            if (done) throw new Error('the blob ended before its size');
            chunk = value;
          }
          if (chunk.byteLength > left) {
            carry = chunk.subarray(left);
            chunk = chunk.subarray(0, left);
          }
          left -= chunk.byteLength;
          controller.enqueue(chunk);
          if (left === 0) controller.close();
        },
      });
    },
  };
}

/** Exactly `size` bytes of a stream, in one buffer; a stream shorter or longer is refused. */
async function bytesOf(stream: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  const reader = stream.getReader();
  let at = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      if (at + read.value.byteLength > size) throw new Error('the blob is longer than its size');
      out.set(read.value, at);
      at += read.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (at !== size) throw new Error('the blob ended before its size');
  return out;
}


