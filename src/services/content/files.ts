import { imageSize } from 'image-size';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId, sha256Hex, timingSafeEqual, toHex } from '../../lib/ids';
import { orgHostOf } from '../organizations/hostnames';
import type { FileEntry } from './revisions';

/**
 * File bytes live in R2 once per content hash (`files/<sha256>`), whatever space or revision refers
 * to them. Clients download them through a signed, expiring URL of this Worker (`/files/...`): the
 * signature is an HMAC over the hash, name, type and expiry, so none of those can be changed. A URL made for
 * an organization's own host (a published page there) also signs that host, and one made anywhere else is refused
 * there: an organization's host serves its own files only (`boundHost`).
 */

/**
 * Body limit of a content batch (which may carry files as base64). It stays under the 32 MiB that a
 * Durable Object RPC call may carry, since the batch is applied inside the space's SpaceWriter.
 */
export const MAX_CONTENT_BATCH_BYTES = 16 * 1024 * 1024;
export const DOWNLOAD_URL_TTL_SECONDS = 60 * 60;
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export const fileKey = (hash: string) => `files/${hash}`;

/** Width and height of a PNG, JPEG, GIF or WebP read from its header; undefined for anything else. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const size = imageSize(bytes);
    if (!size.type || !(size.type in IMAGE_TYPES) || !size.width || !size.height) return undefined;
    // EXIF orientations 5-8 rotate the image a quarter turn.
    const rotated = (size.orientation ?? 1) >= 5;
    return rotated ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch {
    return undefined;
  }
}

export interface PreparedFile {
  entry: FileEntry;
  bytes: Uint8Array;
}

/** A new file entry for uploaded bytes (nothing is stored yet: see `storeFiles`). */
export async function prepareFile(name: string, contentType: string, bytes: Uint8Array): Promise<PreparedFile> {
  const hash = await sha256Hex(bytes);
  const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes) : undefined;
  return { entry: { id: newId(), name, contentType, size: bytes.byteLength, hash, ...(dimensions ? { dimensions } : {}) }, bytes };
}

/** Puts bytes in R2 under their hash (one write each; writing the same bytes again changes nothing). */
export async function storeFiles(bucket: R2Bucket, files: PreparedFile[]): Promise<void> {
  const unique = [...new Map(files.map((f) => [f.entry.hash, f])).values()];
  await Promise.all(unique.map(({ entry, bytes }) => bucket.put(fileKey(entry.hash), bytes, { sha256: entry.hash })));
}

// ---------------------------------------------------------------------------------------------
// Signed download URLs

/** What a deployment without FILES_SIGNING_KEY answers wherever a signed URL is made or checked. */
const NO_SIGNING_KEY_MESSAGE = 'File downloads are not configured: set the FILES_SIGNING_KEY secret';

/**
 * FILES_SIGNING_KEY and nothing else: every signed URL is an HMAC anyone may hold, so a key shared with another
 * secret (the operator's ADMIN_TOKEN, as once when this one was unset) could be guessed offline from them.
 */
function signingSecret(env: Env): string {
  const secret = env.FILES_SIGNING_KEY;
  if (!secret) throw new ApiError(503, NO_SIGNING_KEY_MESSAGE);
  return secret;
}

/** Signs messages with the deployment's key, imported once per signer (one per request). */
export function createSigner(env: Env): (message: string) => Promise<string> {
  let key: Promise<CryptoKey> | undefined;
  return async (message) => {
    key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(signingSecret(env)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return toHex(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(message)));
  };
}

/**
 * The host a download URL is bound to: an organization's own host (services/organizations/hostnames `orgHostOf`),
 * where only URLs made for it are served, or '' on the API's hosts (URLs made there work on any of them).
 */
function boundHost(env: Env, host: string): string {
  return orgHostOf(host, env) ? host.toLowerCase() : '';
}

const signedMessage = (hash: string, name: string, type: string, expires: number, host: string) =>
  ['download', hash, name, type, expires, ...(host ? [host] : [])].join('\n');

export interface DownloadRequest {
  hash: string;
  name: string;
  type: string;
  expires: number;
  signature: string;
}

/** The signed URL under which `file` can be downloaded until `now + ttl`. */
export async function downloadUrl(env: Env, origin: string, file: FileEntry, now = Date.now(), sign = createSigner(env)): Promise<string> {
  // Rounded to the next minute, so that URLs of one file are stable for a while (cacheable by clients).
  const expires = Math.ceil((now / 1000 + DOWNLOAD_URL_TTL_SECONDS) / 60) * 60;
  const signature = await sign(signedMessage(file.hash, file.name, file.contentType, expires, boundHost(env, new URL(origin).hostname)));
  const query = new URLSearchParams({ type: file.contentType, expires: String(expires), signature });
  return `${origin}/files/${file.hash}/${encodeURIComponent(file.name)}?${query}`;
}

/** Throws 403 unless the request's signature is ours, for the host it came to (`requestHost`), and has not expired. */
export async function verifyDownload(env: Env, request: DownloadRequest, requestHost: string, now = Date.now()): Promise<void> {
  const host = boundHost(env, requestHost);
  const expected = await createSigner(env)(signedMessage(request.hash, request.name, request.type, request.expires, host));
  if (!timingSafeEqual(expected, request.signature)) throw new ApiError(403, 'Invalid download signature');
  if (request.expires * 1000 < now) throw new ApiError(403, 'This download link has expired');
}
