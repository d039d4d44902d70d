import git from 'isomorphic-git';
import type { Env } from '../../env';
import { OutboundError, outboundFetch, outboundStream, type OutboundEnv } from '../../lib/outbound';
import { deflateSync } from 'node:zlib';
import { blobsOfPackStream, packBytesOf, singleBlobOf, type PackObjectType } from './blob-stream';
import { treesOfPackStream, type KeptObject } from './pack-stream';
import { gitOutboundEnv, type GitCredentials } from './urls';
import { MAX_CACHED_TREE_BYTES, type TreeCache } from './tree-cache';
import { MemFS } from './memfs';
import { concatBytes } from '../../lib/bytes';
import { toHex } from '../../lib/ids';

/**
 * Git's smart HTTP protocol from the Worker, through the outbound guard (lib/outbound): isomorphic-git
 * speaks the protocol and reads and writes objects in an in-memory repository (memfs) that lives as long as
 * one operation. Credentials never travel in the URL: `splitCredentials` takes them out of the URL the
 * integration sent, and they go only in the Authorization header isomorphic-git builds from `onAuth`
 * (the guard drops it on a redirect to another origin).
 */

/** Limits of one operation's transfer: a pack larger than this is refused (the operation fails, saying so). */
export const GIT_TRANSFER_LIMITS = {
  /** Largest answer of the remote (the pack of the fetched commit's trees). */
  maxPackBytes: 64 * 1024 * 1024,
  /**
   * Largest answer to a batch of blobs wanted by id: a batch whose pack is larger is split in two and asked
   * again, down to one blob, which is then streamed (assets) or left out (a page). It bounds what is held at once.
   */
  maxBatchBytes: 8 * 1024 * 1024,
  /**
   * Bytes of blobs one read of assets (`forEachBlob`) holds at most: the batches fetched ahead and the blobs handed
   * out and not released yet (an import's stores to R2) share it. The next batch is asked for only when it fits (a
   * batch is counted at the sizes the remote gave, then at its blobs' bytes once read; a batch or a blob over the
   * budget alone still goes, alone). Outside V8's heap (a buffer's bytes) but inside the Worker's 128 MB.
   */
  bytesInFlight: 12 * 1024 * 1024,
  /** A blob larger than this (when the remote tells sizes: `object-info`) is fetched alone and streamed, never held. */
  streamAbove: 1024 * 1024,
  /**
   * Largest pack of a full fetch (one that refuses blobs by id after offering them; a server without protocol v2 whose
   * stream could not be read alone): the whole tree with every blob is held, about twice over while it is indexed. A
   * larger repository fails, saying so. `GIT_SYNC_MAX_FULL_FETCH_BYTES` sets it. A server without protocol v2 is read as
   * a stream (`v1StreamedFetch`): this bounds the bytes of the files under the project directory it keeps from it (it
   * cannot be asked for a file by id later), not the pack. A v2 server without `filter` streams too (`maxStreamedPackBytes`).
   */
  maxFullFetchBytes: 32 * 1024 * 1024,
  /**
   * Largest pack of a commit read as it comes (a v2 server without `filter`): its blobs are read through zlib and let
   * go, never held, so this bounds the time spent, not memory: the import's own limits (1 GiB of files, 96 MiB of
   * Markdown) and the repository's other blobs.
   */
  maxStreamedPackBytes: 4 * 1024 * 1024 * 1024,
  /**
   * Bytes of small blobs named like the import's reading (Markdown, `.gitbook.yaml`) a streamed pack keeps as it
   * passes them (each under 256 KiB): read then without a request of their own. The rest is fetched by id.
   */
  keptWhileStreaming: 12 * 1024 * 1024,
  /**
   * Bytes of the assets under the project directory (each at most `streamAbove`) an import keeps from a streamed pack (a v2
   * server without `filter`) as they pass: read then without a request of their own, so that a first import does not fetch
   * them twice. Held until the operation ends; the rest is fetched by id.
   */
  keptFilesWhileStreaming: 8 * 1024 * 1024,
  /**
   * Time limit of one request to the remote; of an answer read as it comes (a pack), the most it may stay silent (a
   * server that prepares a pack sends Git's keepalives and progress meanwhile).
   */
  timeoutMs: 60_000,
  /**
   * A commit's whole pack read as it comes (a server without `filter`): the wait for its first byte (git counts the
   * objects first, and a host or proxy may hold the answer until it is whole: one request, the whole repository), and the
   * time limit of the whole read. Between bytes, `timeoutMs`.
   */
  packFirstByteMs: 10 * 60_000,
  streamedPackMs: 30 * 60_000,
};

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of body) {
    parts.push(part);
    size += part.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** isomorphic-git's HTTP client, every request through the outbound guard. */
function guardedHttp(env: OutboundEnv, maxBytes: number) {
  return {
    async request(request: { url: string; method?: string; headers?: Record<string, string>; body?: AsyncIterableIterator<Uint8Array> }) {
      const body = await collect(request.body);
      const response = await outboundFetch(
        env,
        request.url,
        { method: request.method ?? 'GET', headers: request.headers, body },
        { field: 'url', maxBytes, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
      );
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      return {
        url: response.url,
        method: request.method ?? 'GET',
        statusCode: response.status,
        statusMessage: String(response.status),
        headers,
        body: (async function* () {
          yield response.bytes;
        })(),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Protocol v2 (gitprotocol-v2): `ls-refs`, then `fetch` of the commit with `filter blob:none` (commits and trees
// only), then the blobs an operation reads, by id, in bounded batches. isomorphic-git speaks protocol v1 only and
// fetches every blob of the tree; it keeps the objects (packs indexed in memory). An export pushes with `receivePack`.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A pack entry's header: its type (3: blob) and its size, 4 bits then 7 bits a byte, the high bit saying more follow. */
function packObjectHeader(type: number, size: number): Uint8Array {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Uint8Array.from(bytes);
}

/** One pkt-line: four hex digits of length (itself included), then the payload. */
export function pktLine(payload: string): Uint8Array {
  const bytes = encoder.encode(payload);
  return concatBytes([encoder.encode((bytes.byteLength + 4).toString(16).padStart(4, '0')), bytes]);
}
const FLUSH = encoder.encode('0000');
const DELIM = encoder.encode('0001');

/** A v2 command request: `command=`, capabilities, a delimiter, arguments, a flush. */
export function commandRequest(command: string, args: string[], capabilities: string[] = []): Uint8Array {
  return concatBytes([pktLine(`command=${command}\n`), ...capabilities.map((c) => pktLine(`${c}\n`)), DELIM, ...args.map((a) => pktLine(`${a}\n`)), FLUSH]);
}

/** The pkt-lines of an answer: payloads, and `null` for a flush (0000), delimiter (0001) or response end (0002). */
export function* readPktLines(bytes: Uint8Array): Generator<Uint8Array | null> {
  let at = 0;
  while (at + 4 <= bytes.byteLength) {
    const length = parseInt(decoder.decode(bytes.subarray(at, at + 4)), 16);
    if (Number.isNaN(length)) throw new Error('the remote answered something that is not Git protocol');
    if (length < 4) {
      at += 4;
      yield null;
      continue;
    }
    if (at + length > bytes.byteLength) throw new Error('the remote answer was cut short');
    yield bytes.subarray(at + 4, at + length);
    at += length;
  }
}

/** The pack of a v2 `fetch` answer: the `packfile` section's band 1, with band 3 (an error) thrown. */
export function packOfFetchResponse(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let inPack = false;
  for (const line of readPktLines(bytes)) {
    if (line === null) {
      if (inPack) break;
      continue;
    }
    if (!inPack) {
      const text = decoder.decode(line).trimEnd();
      if (text.startsWith('ERR ')) throw new Error(`the remote refused the fetch: ${text.slice(4)}`);
      if (text === 'packfile') inPack = true;
      continue;
    }
    const band = line[0];
    if (band === 1) parts.push(line.subarray(1));
    else if (band === 3) throw new Error(`the remote failed the fetch: ${decoder.decode(line.subarray(1)).trim()}`);
  }
  if (!inPack) throw new Error('the remote answered the fetch without a pack');
  return concatBytes(parts);
}

/** Blobs fetched by id per request: a bounded answer whatever the repository's size (and `maxBatchBytes`). */
export const BLOB_BATCH = 200;

/**
 * Batches of blobs fetched at once ahead of the one being handed out: the Git server packs them while the Worker
 * reads and stores the one before. What they hold is bounded by bytes (`bytesInFlight`, a ByteBudget); this bounds
 * the requests.
 */
export const BATCHES_IN_FLIGHT = 2;

/**
 * Bytes held by a read of blobs and whoever it hands them to, against a limit: `fits` says whether more may be
 * taken now (always when nothing is held, so that one item over the limit still goes, alone), `whenFits` waits for
 * the releases that make it fit. `peak` is the most held at once (the benchmark and the tests read it).
 */
export class ByteBudget {
  held = 0;
  peak = 0;
  private waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.limit;
  }

  take(bytes: number): void {
    this.held += bytes;
    this.peak = Math.max(this.peak, this.held);
  }

  give(bytes: number): void {
    this.held -= bytes;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  async whenFits(bytes: number): Promise<void> {
    while (!this.fits(bytes)) await new Promise<void>((wake) => this.waiting.push(wake));
  }
}

/** A batch's answer, or why there is none: settled, so that one fetched ahead never rejects unawaited. */
type Settled<T> = { value: T } | { error: unknown };
const settled = <T>(answer: Promise<T>): Promise<Settled<T>> => answer.then((value) => ({ value }), (error: unknown) => ({ error }));

/**
 * A blob handed to `forEachBlob`: its bytes (it came in a batch), or a stream of them (it is large, fetched alone).
 * A blob's bytes count in the read's budget until `use` resolves; a `use` that keeps them longer (a store that goes
 * on in the background) calls `own`, and the function it answers when it lets them go.
 */
export type FetchedBlob = { bytes: Uint8Array; own?: () => () => void } | { size: number; stream: ReadableStream<Uint8Array> };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The one of `wants` the remote refused by id (git's `not our ref <oid>`), if that is the error. */
function refusedWant(error: unknown, wants: readonly string[]): string | null {
  const oid = /\bnot our ref ([0-9a-f]{40})\b/.exec(messageOf(error))?.[1];
  return oid && wants.includes(oid) ? oid : null;
}

/**
 * A request to git-upload-pack whose connection was lost before its answer was read is sent once more: a fetch
 * changes nothing on the server, and a kept-alive connection that the server closed while the operation was
 * storing a large blob is lost that way. A second loss is the failure.
 */
async function sentAgainIfLost<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof OutboundError && error.reason === 'network')) throw error;
    return request();
  }
}

/** The bytes of a batch's blobs. */
const bytesOf = (blobs: Map<string, Uint8Array>) => [...blobs.values()].reduce((n, bytes) => n + bytes.byteLength, 0);

const isTooLarge = (error: unknown) => error instanceof OutboundError && error.reason === 'too_large';

/** The cap of a full fetch: `GIT_SYNC_MAX_FULL_FETCH_BYTES` when it is a positive integer. */
export function maxFullFetchBytes(env: { GIT_SYNC_MAX_FULL_FETCH_BYTES?: string }): number {
  const raw = Number(env.GIT_SYNC_MAX_FULL_FETCH_BYTES?.trim());
  return Number.isSafeInteger(raw) && raw > 0 ? raw : GIT_TRANSFER_LIMITS.maxFullFetchBytes;
}

export interface TreeFile {
  path: string;
  oid: string;
  mode: string;
}

interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
  /** The name's bytes, when they are no UTF-8 (`path` then holds U+FFFD for what could not be read). */
  raw?: Uint8Array;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A tree object's entries (`<mode> <name>\0<20-byte oid>` each), with isomorphic-git's modes (`040000` for a tree).
 * The names git itself refuses in a tree (`.`, `..`, `.git`, any with a slash) are refused as isomorphic-git does.
 */
function treeEntriesOf(bytes: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let cursor = 0; cursor < bytes.length; ) {
    const space = bytes.indexOf(0x20, cursor);
    const nul = space < 0 ? -1 : bytes.indexOf(0, space + 1);
    if (nul < 0 || nul + 21 > bytes.length) throw new Error(`a tree object ends inside an entry at byte ${cursor}`);
    const rawMode = decoder.decode(bytes.subarray(cursor, space));
    const mode = rawMode === '40000' ? '040000' : rawMode;
    const name = bytes.subarray(space + 1, nul);
    const raw = isUtf8(name) ? undefined : name.slice();
    const path = decoder.decode(name);
    if (path === '.' || path === '..' || path.includes('/') || path.toLowerCase() === '.git') throw new Error(`The filepath "${path}" contains unsafe character sequences`);
    const oid = Array.from(bytes.subarray(nul + 1, nul + 21), (b) => b.toString(16).padStart(2, '0')).join('');
    entries.push({ mode, path, oid, type: mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob', ...(raw ? { raw } : {}) });
    cursor = nul + 21;
  }
  return entries;
}

/** Files an import reads whole, as their names say: Markdown and GitBook's configuration. */
const READ_WHOLE = /\.(md|markdown|ya?ml)$/i;

/** The blobs of a tree's entries named as an import reads them (READ_WHOLE), regular files only. */
function readNamedBlobs(bytes: Uint8Array): string[] {
  const out: string[] = [];
  try {
    for (const entry of treeEntriesOf(bytes)) if (entry.type === 'blob' && entry.mode !== '120000' && READ_WHOLE.test(entry.path)) out.push(entry.oid);
  } catch {
    // A tree isomorphic-git would refuse: none of its blobs kept (the import says what is wrong with it).
  }
  return out;
}

function isUtf8(bytes: Uint8Array): boolean {
  if (bytes.every((b) => b < 0x80)) return true;
  try {
    strictDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * A tree object of entries, as git writes one: sorted by name bytes (a tree's name as if it ended in `/`), each
 * `<mode> <name>\0<20-byte oid>`. Ours, not isomorphic-git's writeTree, which takes names as text: a name that is no
 * UTF-8 (`caf\xe9.md`, a Latin-1 file name) could only be written as its U+FFFD reading, and an export renamed the file.
 */
function treeObject(entries: Array<{ mode: string; name: Uint8Array; oid: string; type: 'blob' | 'tree' | 'commit' }>): Uint8Array {
  const key = (e: (typeof entries)[number]) => (e.type === 'tree' ? concatBytes([e.name, Uint8Array.of(0x2f)]) : e.name);
  const sorted = entries.map((e) => ({ e, k: key(e) })).sort((a, b) => compareBytes(a.k, b.k));
  return concatBytes(
    sorted.flatMap(({ e }) => [encoder.encode(`${e.type === 'tree' ? '40000' : allowedMode(e.mode)} `), e.name, Uint8Array.of(0), Uint8Array.from(e.oid.match(/../g)!, (h) => parseInt(h, 16))]),
  );
}

/** A file's mode as git allows it in a tree (isomorphic-git's limitModeToAllowed: an old `100664` is written `100644`). */
function allowedMode(mode: string): string {
  if (/^1006/.test(mode)) return '100644';
  if (/^1007/.test(mode)) return '100755';
  if (/^120/.test(mode)) return '120000';
  if (/^160/.test(mode)) return '160000';
  throw new Error(`a file's mode ${mode} is none git writes`);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const ZERO_OID = '0'.repeat(40);
/**
 * Files a streamed pack keeps as they pass (besides the Markdown and YAML it keeps by name): those under the directory
 * `under`, at most `limit` bytes of them (over it: the read fails, `failOver`, or the file is let go), a blob of
 * INFLATE_AT_ONCE_BELOW or more only up to `gatherUpTo` bytes (it is held whole while it is read); with `only`, those whose
 * path (under the directory) it matches.
 */
type KeptFiles = { under: string; limit: number; failOver: boolean; gatherUpTo: number; only?: RegExp };

/** Files in an assets folder (`.gitbook/assets/`, under any content root): what an import stores, whatever links to them. */
const ASSET_PATH = /(?:^|\/)\.gitbook\/assets\//;

/** What a server without protocol v2 must offer for its pack to be read as a stream at depth 1 (`v1StreamedFetch`). */
const V1_STREAM_NEEDS = ['side-band-64k', 'shallow'];

/**
 * The files under a directory of the commit whose pack is being read, by blob id, with their paths there: known from its
 * commit and trees as they come (git sends commits, then trees, then blobs), read again once a tree came since.
 */
class StreamedFiles {
  private rootTree: string | null = null;
  private readonly trees = new Map<string, Uint8Array>();
  private files: Map<string, string> | null = null;
  private readonly directory: string[];

  constructor(directory: string) {
    this.directory = directory.split('/').filter(Boolean);
  }

  add(object: KeptObject): void {
    if (object.type === 'commit' && this.rootTree === null) this.rootTree = /^tree ([0-9a-f]{40})/.exec(decoder.decode(object.data.subarray(0, 46)))?.[1] ?? null;
    else if (object.type === 'tree') this.trees.set(object.oid, object.data);
    else return;
    this.files = null;
  }

  /** The path (under the directory) of the file whose blob is `oid`, or undefined when none there is it. */
  pathOf(oid: string): string | undefined {
    this.files ??= this.collect();
    return this.files.get(oid);
  }

  private entries(oid: string | null): TreeEntry[] {
    const data = oid ? this.trees.get(oid) : undefined;
    if (!data) return [];
    try {
      return treeEntriesOf(data);
    } catch {
      // A tree the import refuses (it says why): none of its files kept.
      return [];
    }
  }

  private collect(): Map<string, string> {
    const out = new Map<string, string>();
    let at = this.rootTree;
    for (const name of this.directory) at = this.entries(at).find((e) => e.path === name && e.type === 'tree')?.oid ?? null;
    const walk = (oid: string, prefix: string) => {
      for (const entry of this.entries(oid)) {
        const path = prefix ? `${prefix}/${entry.path}` : entry.path;
        if (entry.type === 'tree') walk(entry.oid, path);
        else if (entry.type === 'blob' && !out.has(entry.oid)) out.set(entry.oid, path);
      }
    };
    if (at) walk(at, '');
    return out;
  }
}
const GIT_USER_AGENT = 'git/2.0 (docs-platform)';

/** A push refused, as isomorphic-git's GitPushError (`data.prettyDetails`), which failureMessage reads. */
function pushRefused(ref: string, why: string): Error {
  return Object.assign(new Error(`the remote refused the push: ${ref}: ${why}`), { code: 'GitPushError', data: { prettyDetails: `\n  - ${ref}: ${why}` } });
}

/** An HTTP refusal, as isomorphic-git's HttpError (`data.statusCode`), which failureMessage reads. */
function httpError(status: number): Error {
  return Object.assign(new Error(`the repository answered HTTP ${status} to git-receive-pack`), { code: 'HttpError', data: { statusCode: status } });
}

/**
 * A protocol v0/v1 ref advertisement (`info/refs?service=git-receive-pack`, and git-upload-pack's from a server without
 * protocol v2): its refs, and the capabilities after the first.
 */
function refAdvertisement(bytes: Uint8Array): { refs: Map<string, string>; capabilities: Set<string> } {
  const refs = new Map<string, string>();
  let capabilities = new Set<string>();
  for (const line of readPktLines(bytes)) {
    if (!line) continue;
    const text = decoder.decode(line).replace(/\n$/, '');
    if (text.startsWith('#')) continue;
    const [head, caps] = text.split('\0');
    if (caps !== undefined) capabilities = new Set(caps.trim().split(' '));
    const [oid, name] = head.split(' ');
    if (/^[0-9a-f]{40}$/.test(oid) && name && oid !== ZERO_OID) refs.set(name, oid);
  }
  return { refs, capabilities };
}

/** git-receive-pack's report-status (in side band 1 when asked so): `unpack ok`, then `ok <ref>` or `ng <ref> <why>` each. */
function receivePackReport(bytes: Uint8Array, sideBand: boolean): { unpack: string | null; refs: Map<string, string> } {
  let report = bytes;
  if (sideBand) {
    const parts: Uint8Array[] = [];
    for (const line of readPktLines(bytes)) {
      if (!line) continue;
      if (line[0] === 1) parts.push(line.subarray(1));
      else if (line[0] === 3) throw Object.assign(new Error(`the remote failed the push: ${decoder.decode(line.subarray(1)).trim()}`), { code: 'GitPushError', data: {} });
    }
    report = concatBytes(parts);
  }
  let unpack: string | null = null;
  const refs = new Map<string, string>();
  for (const line of readPktLines(report)) {
    if (!line) continue;
    const text = decoder.decode(line).replace(/\n$/, '');
    if (text.startsWith('unpack ')) unpack = text.slice('unpack '.length);
    else if (text.startsWith('ok ')) refs.set(text.slice(3), 'ok');
    else if (text.startsWith('ng ')) {
      const [name, ...why] = text.slice(3).split(' ');
      refs.set(name, why.join(' ') || 'refused');
    }
  }
  return { unpack, refs };
}

/** `ref` as the remote names it (itself, or the branch `refs/heads/<ref>`) and its commit, or null when it names neither. */
function remoteRef(refs: Map<string, string>, ref: string): { name: string; oid: string } | null {
  for (const name of [ref, `refs/heads/${ref}`]) {
    const oid = refs.get(name);
    if (oid) return { name, oid };
  }
  return null;
}

/** One operation's repository: fetched at one commit, read and written in memory. */
export class GitSession {
  readonly fs = new MemFS();
  readonly gitdir = '/repo.git';
  private readonly http: ReturnType<typeof guardedHttp>;
  private readonly outbound: OutboundEnv;
  private readonly fullFetchCap: number;
  /** A server without protocol v2: its refs and capabilities, as its discovery request (`info/refs`) advertised them. */
  private v1Advertised: { refs: Map<string, string>; capabilities: Set<string> } | null = null;
  /** Where the repository's discovery request was redirected to (`learnServedAt`), if it was. */
  private servedAt: string | null = null;
  /** The remote answers `object-info` (blob sizes before fetching them). */
  private objectInfo = false;
  /** The remote speaks protocol v2's `fetch`, with or without `filter` (a commit can be wanted by id). */
  private v2Fetch = false;
  /** The remote's v2 `fetch` takes `filter` (`uploadpack.allowFilter`): trees come without blobs. */
  private filter = false;
  /** Sizes of the blobs a streamed pack passed (a v2 server without `filter`), by id: what `object-info` would say. */
  private readonly passedSizes = new Map<string, number>();
  /** The commit `fetchRef` fetched (depth 1). */
  private fetchedOid: string | null = null;
  /** Where the trees of the commit read from a server without `filter` are kept for the space's next operation. */
  private treeCache: TreeCache | null = null;
  /** The commit whose trees were read from the space's copy, if any (the remote may no longer hold it). */
  private keptCommit: string | null = null;
  /** Blobs whose answer alone was over `maxBatchBytes` (never held: a page of them is left out). */
  readonly unreadable = new Set<string>();
  /**
   * Blobs the remote refused by id (`not our ref`) while it served others by id: its copy of the repository lacks
   * them (a partial clone, a damaged repository). Left out, never read; the import says which. Before, such a refusal
   * was taken for a server refusing blobs by id, and the whole tree was fetched instead: with the blob missing the
   * server's pack broke off ("Packfile payload corrupted"), after minutes on a large repository.
   */
  readonly missing = new Set<string>();
  /** The remote answered a fetch of blobs by id: a later refusal of one names a blob it lacks. */
  private servedById = false;
  private initialized = false;
  /**
   * The commit was fetched without its blobs (protocol v2, `filter blob:none`; or, without `filter`, its pack read as
   * it came and its blobs let go): blobs are fetched by id when read.
   */
  private partial = false;
  /** The ref a partial fetch read, for the full fetch a server that refuses blobs by id gets instead. */
  private fetchedRef: string | null = null;
  /** Blobs this session has: fetched by id, or written. */
  private readonly blobs = new Set<string>();
  /** Blobs and trees this session wrote (an export's): what its push may have to send. */
  private readonly writtenBlobs = new Set<string>();
  /**
   * Blobs an export names whose bytes stay where they are (a file of the space, in R2): their id computed as they passed
   * (`writeStreamedBlob`), their bytes read again and deflated into the push as it is sent, never held whole.
   */
  private readonly streamedBlobs = new Map<string, { size: number; open: () => Promise<ReadableStream<Uint8Array> | null> }>();
  private readonly writtenTrees = new Set<string>();
  /** Files listed whose path has a name that is no UTF-8: each name's bytes, which the tree an export writes keeps. */
  private readonly rawNames = new Map<string, Array<Uint8Array | undefined>>();
  private packs = 0;
  /**
   * isomorphic-git's cache of the session's packs (their parsed indexes, their bytes read once, their checksums
   * verified once). Without it every object read parses the index again, reads (copies) the whole pack and
   * computes the SHA-1 of all of it: for a batch of 200 blobs, 200 times its megabytes hashed and copied. A batch
   * of blobs read once (forEachBlob) has a cache of its own, dropped with its pack, so this one never holds those.
   */
  private readonly cache = {};
  /** What the session fetched, for the operation's report and the benchmark. */
  /**
   * `fetch`: how the commit came: `partial` (its trees, `filter blob:none`), `streamed` (its whole pack read as it came,
   * blobs let go: `blobsPassed` of them, `blobsKept` kept), `full` (every blob held: isomorphic-git's fetch).
   */
  readonly stats = {
    protocol: 'v1' as 'v1' | 'v2',
    fetch: 'full' as 'partial' | 'streamed' | 'full',
    requests: 0,
    packBytes: 0,
    blobsPassed: 0,
    blobsKept: 0,
    blobsFetched: 0,
    blobsStreamed: 0,
    splitBatches: 0,
    peakBytesHeld: 0,
    /**
     * A streamed fetch with the trees kept of the commit the space read last: `unchanged` (the branch is still at it: no
     * pack), `thin` (a pack of what changed since), `stale` (the thin pack left trees out: the whole pack streamed too).
     */
    treesKept: undefined as undefined | 'unchanged' | 'thin' | 'stale',
    /** An export's push: the bytes the session held when it sent it (its repository and the pack of what it holds), and the bytes of files streamed into it. */
    pushHeldBytes: undefined as undefined | number,
    pushStreamedBytes: undefined as undefined | number,
  };

  constructor(
    env: Pick<Env, 'OUTBOUND_ALLOWED_HOSTS' | 'GIT_SYNC_ALLOWED_HOSTS' | 'GIT_SYNC_MAX_FULL_FETCH_BYTES'>,
    readonly url: string,
    private readonly credentials: GitCredentials | null,
  ) {
    this.outbound = gitOutboundEnv(env);
    this.fullFetchCap = maxFullFetchBytes(env);
    this.http = guardedHttp(this.outbound, this.fullFetchCap);
  }

  /**
   * Headers of every request of ours: the credentials, and a Git user agent (`git/...`), as every Git client sends and
   * as isomorphic-git's own requests carry; hosts tell Git clients from browsers and API clients by it.
   */
  private gitHeaders(): Record<string, string> {
    const agent = { 'User-Agent': GIT_USER_AGENT };
    if (!this.credentials || !this.sameOrigin) return agent;
    const pair = encoder.encode(`${this.credentials.username}:${this.credentials.password}`);
    let binary = '';
    for (const byte of pair) binary += String.fromCharCode(byte);
    return { ...agent, Authorization: `Basic ${btoa(binary)}` };
  }

  /**
   * The repository's URL without a trailing slash, which Git's smart HTTP paths follow: where a discovery request's
   * redirects led (`servedAt`), else the URL given.
   */
  private get repositoryUrl(): string {
    return this.servedAt ?? this.url.replace(/\/+$/, '');
  }

  /** Whether requests go to the given URL's origin: its credentials go nowhere else (as the guard drops them on a redirect). */
  private get sameOrigin(): boolean {
    return this.servedAt === null || new URL(this.servedAt).origin === new URL(this.url).origin;
  }

  /**
   * The repository's URL as the discovery request (`info/refs?service=<service>`, a GET whose redirects the guard follows,
   * each hop checked) ended at: a host answers a renamed repository's old URL with a redirect (GitHub: 301). The requests
   * after it go there, as git's own do (`http.followRedirects=initial`): a POST is not sent after a redirect (a 301 makes it
   * a GET, and a push's streamed pack cannot be sent twice). A redirect to a URL of another shape is refused, as git does.
   */
  private learnServedAt(answered: string, service: string): void {
    const suffix = `/info/refs?service=${service}`;
    if (answered === `${this.repositoryUrl}${suffix}`) return;
    if (!answered.endsWith(suffix)) throw new Error(`the repository's ${service} discovery was redirected to ${answered.split('?')[0]}, which is no repository's: nothing was sent there`);
    this.servedAt = answered.slice(0, -suffix.length);
  }

  /** The URL and request of a protocol v2 call to git-upload-pack carrying `body`. */
  private uploadPackRequest(body: Uint8Array): [string, RequestInit] {
    const headers = { 'Content-Type': 'application/x-git-upload-pack-request', Accept: 'application/x-git-upload-pack-result', 'Git-Protocol': 'version=2', ...this.gitHeaders() };
    return [`${this.repositoryUrl}/git-upload-pack`, { method: 'POST', headers, body }];
  }

  /** One v2 request to git-upload-pack; a refusal (401, 403, 404...) says the status, never the credentials. */
  private async uploadPack(body: Uint8Array, maxBytes = GIT_TRANSFER_LIMITS.maxPackBytes): Promise<Uint8Array> {
    const response = await sentAgainIfLost(() =>
      outboundFetch(
        this.outbound,
        ...this.uploadPackRequest(body),
        { field: 'url', maxBytes, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
      ),
    );
    this.stats.requests++;
    if (!response.ok) throw new Error(`the repository answered HTTP ${response.status} to git-upload-pack`);
    return response.bytes;
  }

  /** One blob, wanted alone, as a stream of its bytes (the answer is read as the stream is). */
  private async streamBlob(oid: string, maxBytes: number): Promise<{ size: number; stream: ReadableStream<Uint8Array> }> {
    const response = await sentAgainIfLost(() =>
      outboundStream(
        this.outbound,
        ...this.uploadPackRequest(commandRequest('fetch', [`want ${oid}`, 'no-progress', 'done'], ['agent=docs-platform'])),
        // The pack of one blob is at most its bytes and zlib's few bytes per 16 KB, plus the protocol's framing.
        { field: 'url', maxBytes: Math.ceil(maxBytes * 1.01) + 64 * 1024, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs * 5, idleTimeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
      ),
    );
    this.stats.requests++;
    if (!response.ok) {
      await response.body.cancel();
      throw new Error(`the repository answered HTTP ${response.status} to git-upload-pack`);
    }
    this.stats.blobsStreamed++;
    return singleBlobOf(response.body);
  }

  /**
   * The sizes of blobs: those a streamed pack passed, then the rest when the remote answers `object-info` (else they
   * are not in the map).
   */
  async blobSizes(oids: string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    if (!this.partial) return sizes;
    const unknown: string[] = [];
    for (const oid of oids) {
      const size = this.passedSizes.get(oid);
      if (size === undefined) unknown.push(oid);
      else sizes.set(oid, size);
    }
    if (!this.objectInfo) return sizes;
    for (let i = 0; i < unknown.length; i += 1000) {
      const bytes = await this.uploadPack(commandRequest('object-info', ['size', ...unknown.slice(i, i + 1000).map((o) => `oid ${o}`)], ['agent=docs-platform']), 1024 * 1024);
      for (const line of readPktLines(bytes)) {
        if (!line) continue;
        const [oid, size] = decoder.decode(line).trimEnd().split(' ');
        if (/^[0-9a-f]{40}$/.test(oid) && /^\d+$/.test(size ?? '')) sizes.set(oid, Number(size));
      }
    }
    return sizes;
  }

  /**
   * The capabilities of the remote's git-upload-pack in protocol v2 (`fetch` and `ls-refs`; `filter` says whether
   * `fetch` takes filters), or null when it does not speak v2 (then the session fetches the way isomorphic-git does).
   * A refusal of the credentials throws.
   */
  private async v2Capabilities(): Promise<Set<string> | null> {
    const response = await outboundFetch(
      this.outbound,
      `${this.repositoryUrl}/info/refs?service=git-upload-pack`,
      { headers: { 'Git-Protocol': 'version=2', ...this.gitHeaders() } },
      { field: 'url', maxBytes: 1024 * 1024, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
    );
    this.stats.requests++;
    if (response.status === 401 || response.status === 403) throw new Error(`the repository answered HTTP ${response.status}: the credentials were refused`);
    if (!response.ok) throw new Error(`the repository answered HTTP ${response.status}`);
    this.learnServedAt(response.url, 'git-upload-pack');
    const lines: string[] = [];
    for (const line of readPktLines(response.bytes)) if (line) lines.push(decoder.decode(line).trimEnd());
    // Smart HTTP may start with "# service=git-upload-pack" and a flush before the v2 advertisement.
    if (!lines.includes('version 2')) {
      this.v1Advertised = refAdvertisement(response.bytes);
      return null;
    }
    const capabilities = new Set(lines.filter((l) => l !== 'version 2' && !l.startsWith('# service=')));
    const fetch = [...capabilities].find((c) => c.startsWith('fetch'));
    const lsRefs = [...capabilities].some((c) => c === 'ls-refs' || c.startsWith('ls-refs='));
    this.objectInfo = [...capabilities].some((c) => c === 'object-info' || c.startsWith('object-info='));
    this.v2Fetch = Boolean(fetch && lsRefs);
    this.filter = Boolean(fetch && fetch.split(/[=\s]/).includes('filter'));
    return this.v2Fetch ? capabilities : null;
  }

  /** `ls-refs` of the refs that could be `ref`: the ref itself, or the branch of that name. */
  private async lsRefs(ref: string): Promise<Map<string, string>> {
    const prefixes = ref.startsWith('refs/') ? [ref] : [ref, `refs/heads/${ref}`];
    const bytes = await this.uploadPack(commandRequest('ls-refs', prefixes.map((p) => `ref-prefix ${p}`), ['agent=docs-platform']));
    const refs = new Map<string, string>();
    for (const line of readPktLines(bytes)) {
      if (!line) continue;
      const [oid, name] = decoder.decode(line).trimEnd().split(' ');
      if (/^[0-9a-f]{40}$/.test(oid) && name) refs.set(name, oid);
    }
    return refs;
  }

  /** Fetches `wants` in one v2 `fetch` and indexes the pack in the session's repository. */
  private async fetchPack(wants: string[], options: { filter?: string; deepen?: number; maxBytes?: number; have?: string }): Promise<string> {
    // `have` a commit this session holds at depth 1 (`shallow`: the server counts only its own tree as held): the pack
    // holds what the wanted commits have that it lacks. Thin (its deltas may name held objects, which indexPack reads):
    // git http-backend sent the whole tree again without it (a 256 KiB blob both trees hold: 262,506 bytes, thin 271).
    const had = options.have ? ['thin-pack', `shallow ${options.have}`, `have ${options.have}`] : [];
    const args = [...wants.map((w) => `want ${w}`), ...had, ...(options.filter ? [`filter ${options.filter}`] : []), ...(options.deepen ? [`deepen ${options.deepen}`] : []), 'no-progress', 'ofs-delta', 'done'];
    const pack = packOfFetchResponse(await this.uploadPack(commandRequest('fetch', args, ['agent=docs-platform']), options.maxBytes));
    this.stats.packBytes += pack.byteLength;
    if (pack.byteLength < 32 || decoder.decode(pack.subarray(0, 4)) !== 'PACK') throw new Error('the remote answered the fetch with something that is not a pack');
    const name = `objects/pack/pack-${++this.packs}-${Date.now()}.pack`;
    await this.fs.promises.writeFile(`${this.gitdir}/${name}`, pack);
    await git.indexPack({ fs: this.fs, dir: this.gitdir, gitdir: this.gitdir, filepath: name });
    return name;
  }

  /**
   * Fetches `wants` in one v2 `fetch` without a filter and reads its pack as it comes (pack-stream): commits and trees
   * go into the session's repository, blobs are let go (their sizes noted), but for small ones named as the import
   * reads them (Markdown, `.gitbook.yaml`), kept within `keptWhileStreaming`. With `have` (a commit held at depth 1), a
   * thin pack of what `wants` differ by; a delta on an object outside it is on the session's copy, or on a blob let go.
   * A server without protocol v2 is asked in protocol v0/v1 (`v1FetchRequest`, never a `have`). With `files`, the files
   * under a directory are kept too (KeptFiles).
   */
  private async streamTrees(wants: string[], options: { deepen: number; have?: string; files?: KeptFiles }): Promise<void> {
    const had = options.have ? ['thin-pack', `shallow ${options.have}`, `have ${options.have}`] : [];
    // With progress (band 2, not read): an answer that moves while the server counts and compresses, as keepalives do.
    const args = [...wants.map((w) => `want ${w}`), ...had, `deepen ${options.deepen}`, 'ofs-delta', 'done'];
    const request = this.v2Fetch ? commandRequest('fetch', args, ['agent=docs-platform']) : this.v1FetchRequest(wants, options.deepen);
    const keep = options.files;
    // Sent again when the connection is lost (nothing of a pack read is kept until it was read whole and checked).
    const read = await sentAgainIfLost(async () => {
      const response = await outboundStream(
        this.outbound,
        ...this.uploadPackRequest(request),
        {
          field: 'url',
          maxBytes: GIT_TRANSFER_LIMITS.maxStreamedPackBytes,
          timeoutMs: GIT_TRANSFER_LIMITS.streamedPackMs,
          firstByteTimeoutMs: GIT_TRANSFER_LIMITS.packFirstByteMs,
          idleTimeoutMs: GIT_TRANSFER_LIMITS.timeoutMs,
        },
      );
      this.stats.requests++;
      if (!response.ok) {
        await response.body.cancel();
        throw new Error(`the repository answered HTTP ${response.status} to git-upload-pack`);
      }
      const named = new Set<string>();
      const budget = new ByteBudget(GIT_TRANSFER_LIMITS.keptWhileStreaming);
      const files = keep ? new StreamedFiles(keep.under) : null;
      let filesHeld = 0;
      return treesOfPackStream(packBytesOf(response.body, this.v2Fetch ? 'v2' : 'v1'), {
        onTree: (data) => {
          for (const oid of readNamedBlobs(data)) named.add(oid);
        },
        onKept: (object) => files?.add(object),
        keepBlob: (oid, size) => {
          if (this.blobs.has(oid)) return false;
          if (named.has(oid) && budget.held + size <= budget.limit) {
            budget.take(size);
            return true;
          }
          const path = files?.pathOf(oid);
          if (!keep || path === undefined || (keep.only && !keep.only.test(path))) return false;
          if (filesHeld + size > keep.limit) {
            if (keep.failOver) throw this.v1FilesTooLarge(keep.under, keep.under ? `${keep.under}/${path}` : path);
            return false;
          }
          filesHeld += size;
          return true;
        },
        // A large blob is held while it is read only where it may be kept (a file under the directory, within the limit).
        gatherBlob: (size) => keep !== undefined && size <= keep.gatherUpTo && filesHeld + size <= keep.limit,
        outside: (oid) => this.objectHeld(oid),
      });
    });
    for (const [oid, size] of read.sizes) this.passedSizes.set(oid, size);
    await this.storeObjects(read.kept);
    this.stats.packBytes += read.bytes;
    this.stats.blobsPassed += read.blobsLetGo;
    for (const { oid, type } of read.kept) {
      if (type !== 'blob') continue;
      this.blobs.add(oid);
      this.stats.blobsKept++;
    }
  }

  /**
   * The commit `oid` from a v2 server without `filter`. With the trees kept of the commit the space read last (`cache`):
   * none fetched when the branch is still at it; else a pack of what `oid` adds to it (the kept commit as a `have`: a thin
   * pack, its unchanged subtrees left out and read from the copy). The whole pack is streamed when nothing is kept, or when
   * the trees are still not all here after the thin pack (a copy of another history, a server that lost the kept commit:
   * a `have` it does not know is ignored and the whole pack comes anyway). The trees of `oid` are kept for the next.
   */
  private async streamedFetch(oid: string, cache: TreeCache | null, files?: KeptFiles): Promise<void> {
    this.treeCache = cache;
    const kept = cache ? await cache.load() : null;
    if (kept) {
      await this.storeObjects(kept);
      this.keptCommit = kept[0].oid;
    }
    if (this.keptCommit === oid && (await this.treesComplete(oid))) {
      this.stats.treesKept = 'unchanged';
      return;
    }
    if (this.keptCommit) {
      await this.streamTrees([oid], { deepen: 1, have: this.keptCommit, files });
      this.stats.treesKept = 'thin';
      const objects = await this.commitAndTrees(oid);
      if (objects) return this.keepTrees(objects);
      this.stats.treesKept = 'stale';
    }
    await this.streamTrees([oid], { deepen: 1, files });
    await this.keepTreesOf(oid);
  }

  /** Whether the commit `oid` and every tree under it are in the session. */
  private async treesComplete(oid: string): Promise<boolean> {
    return (await this.commitAndTrees(oid)) !== null;
  }

  /** The commit `oid` and every tree of it (each once), or null when one is not in the session. */
  private async commitAndTrees(oid: string): Promise<KeptObject[] | null> {
    const commit = await this.objectHeld(oid);
    if (commit?.type !== 'commit') return null;
    const out: KeptObject[] = [{ oid, type: 'commit', data: commit.data }];
    const seen = new Set<string>();
    const walk = async (tree: string): Promise<boolean> => {
      if (seen.has(tree)) return true;
      seen.add(tree);
      const held = await this.objectHeld(tree);
      if (held?.type !== 'tree') return false;
      out.push({ oid: tree, type: 'tree', data: held.data });
      let entries: TreeEntry[];
      try {
        entries = treeEntriesOf(held.data);
      } catch {
        // A tree the import refuses (it says why): held as it is.
        return true;
      }
      for (const entry of entries) if (entry.type === 'tree' && !(await walk(entry.oid))) return false;
      return true;
    };
    return (await walk((await this.readCommit(oid)).tree)) ? out : null;
  }

  /** The trees of `oid` into the space's copy (`treeCache`), unless they are too large to keep; never an operation's failure. */
  private async keepTreesOf(oid: string): Promise<void> {
    if (this.treeCache) await this.keepTrees(await this.commitAndTrees(oid).catch(() => null));
  }

  /** A commit and its trees (`commitAndTrees`) into the space's copy, unless they are too large to keep. */
  private async keepTrees(objects: KeptObject[] | null): Promise<void> {
    if (!this.treeCache || !objects || objects.reduce((n, o) => n + o.data.byteLength, 0) > MAX_CACHED_TREE_BYTES) return;
    await this.treeCache.save(objects);
  }

  /**
   * Whether the remote still holds `oid` (a commit this session read from the trees kept): `read` when a fetch of it
   * with itself as a `have` is answered (an empty pack), `gone` when refused (`not our ref`), else `unavailable`.
   */
  private async remoteHolds(oid: string): Promise<'read' | 'gone' | 'unavailable'> {
    try {
      packOfFetchResponse(await this.uploadPack(commandRequest('fetch', [`want ${oid}`, `shallow ${oid}`, `have ${oid}`, 'deepen 1', 'no-progress', 'done'], ['agent=docs-platform'])));
      return 'read';
    } catch (error) {
      return refusedWant(error, [oid]) ? 'gone' : 'unavailable';
    }
  }

  /** An object the session holds (a thin pack's base), or null. */
  private async objectHeld(oid: string): Promise<{ type: PackObjectType; data: Uint8Array } | null> {
    try {
      const { type, object } = await git.readObject({ ...this.base, oid, format: 'content', cache: this.cache });
      return { type: type as PackObjectType, data: object as Uint8Array };
    } catch {
      return null;
    }
  }

  /**
   * Objects into the session's repository as loose objects (zlib of `<type> <size>\0<bytes>`, as git stores them),
   * compressed by the runtime's zlib at its fastest level: isomorphic-git reads them as any other.
   */
  private async storeObjects(objects: KeptObject[]): Promise<void> {
    const dirs = new Set<string>();
    for (const { oid, type, data } of objects) {
      const dir = `${this.gitdir}/objects/${oid.slice(0, 2)}`;
      if (!dirs.has(dir)) {
        await this.fs.promises.mkdir(dir).catch(() => undefined);
        dirs.add(dir);
      }
      const wrapped = concatBytes([encoder.encode(`${type} ${data.byteLength}\0`), data]);
      await this.fs.promises.writeFile(`${dir}/${oid.slice(2)}`, new Uint8Array(deflateSync(wrapped, { level: 1 })));
    }
  }

  /** Drops a pack fetched for blobs read once (assets): what it held is no longer held. */
  private async dropPack(name: string): Promise<void> {
    await this.fs.promises.unlink(`${this.gitdir}/${name}`).catch(() => undefined);
    await this.fs.promises.unlink(`${this.gitdir}/${name.replace(/\.pack$/, '.idx')}`).catch(() => undefined);
  }

  /**
   * Fetches the blobs among `oids` the session does not have yet (none on a full fetch) and keeps them, in batches
   * of BLOB_BATCH whose answer is at most `maxBatchBytes`: a batch over it is split in two and asked again; a blob
   * over it alone is not kept (`unreadable`).
   */
  async prefetchBlobs(oids: Iterable<string>): Promise<void> {
    // A server without protocol v2 cannot be asked for a blob by id: its stream kept what is read (v1StreamedFetch).
    if (!this.partial || !this.v2Fetch) return;
    const wanted = [...new Set(oids)].filter((oid) => !this.blobs.has(oid) && !this.unreadable.has(oid) && !this.missing.has(oid));
    for (let i = 0; i < wanted.length && this.partial; i += BLOB_BATCH) {
      await this.fetchBatch(wanted.slice(i, i + BLOB_BATCH), async (batch) => {
        for (const oid of batch) this.blobs.add(oid);
      }, async (oid) => {
        this.unreadable.add(oid);
      });
    }
  }

  /**
   * Hands each blob of `oids` to `use` once, holding at most one batch at a time: blobs read once (assets) are not
   * kept. A blob known to be large (`object-info`), or whose answer alone is over `maxBatchBytes`, comes as a
   * stream, fetched alone; `maxBytes` bounds what a streamed blob may be (a larger one is `use`d as `null`). The
   * blobs fetched ahead and those handed and not released are bounded by `budget` (bytes; see FetchedBlob's `own`).
   */
  async forEachBlob(
    oids: string[],
    maxBytes: number,
    use: (oid: string, blob: FetchedBlob | null) => Promise<void>,
    budget = new ByteBudget(GIT_TRANSFER_LIMITS.bytesInFlight),
  ): Promise<void> {
    const unique = [...new Set(oids)];
    if (!this.partial || !this.v2Fetch) {
      for (const oid of unique) await use(oid, { bytes: await this.readBlob(oid) });
      return;
    }
    const sizes = await this.blobSizes(unique.filter((oid) => !this.blobs.has(oid)));
    const handed = new Set<string>();
    const hand = async (oid: string, blob: FetchedBlob | null) => {
      handed.add(oid);
      await use(oid, blob);
    };
    // The remote refused blobs by id: the session fetched the whole tree instead; the rest is read from it.
    const fromFullFetch = async () => {
      for (const oid of unique) if (!handed.has(oid)) await hand(oid, { bytes: await this.readBlob(oid) });
    };
    const stream = async (oid: string) => {
      if ((sizes.get(oid) ?? 0) > maxBytes) return hand(oid, null);
      let blob: { size: number; stream: ReadableStream<Uint8Array> };
      try {
        blob = await this.streamBlob(oid, maxBytes);
      } catch (error) {
        if (this.servedById && refusedWant(error, [oid])) {
          this.missing.add(oid);
          return hand(oid, null);
        }
        if (isTooLarge(error) || !this.fetchedRef || !this.partial) throw error;
        await this.fullFetchAfter(error, `fetching the blob ${oid} alone`);
        return;
      }
      if (blob.size > maxBytes) {
        await blob.stream.cancel();
        return hand(oid, null);
      }
      await hand(oid, blob);
    };
    for (const oid of unique.filter((oid) => this.blobs.has(oid))) await hand(oid, { bytes: await this.readBlob(oid) });
    const large = unique.filter((oid) => !this.blobs.has(oid) && (sizes.get(oid) ?? 0) > GIT_TRANSFER_LIMITS.streamAbove);
    for (const oid of large) if (this.partial) await stream(oid);
    const small = unique.filter((oid) => !this.blobs.has(oid) && (sizes.get(oid) ?? 0) <= GIT_TRANSFER_LIMITS.streamAbove);
    // Batches bounded by count, and by the bytes the remote said when it did.
    const batches: string[][] = [];
    let batch: string[] = [];
    let bytes = 0;
    for (const oid of small) {
      const size = sizes.get(oid) ?? 0;
      if (batch.length >= BLOB_BATCH || (batch.length > 0 && bytes + size > GIT_TRANSFER_LIMITS.maxBatchBytes / 2)) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(oid);
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
    // Batches fetched ahead while the one before is handed out (the Git server packs the next ones meanwhile), as
    // long as their bytes fit in the budget beside what is held, handed in their order whatever order their answers
    // end in. A batch is counted at the sizes the remote gave (the most an answer may be when it gave none), then at
    // its blobs' bytes once read, and each blob until it is released.
    const estimate = (wants: string[]) => (sizes.size > 0 ? wants.reduce((n, oid) => n + (sizes.get(oid) ?? 0), 0) : GIT_TRANSFER_LIMITS.maxBatchBytes);
    const fetchAhead = (wants: string[]) => {
      const reserved = estimate(wants);
      budget.take(reserved);
      return settled(
        this.blobBatch(wants).then(
          (blobs) => {
            budget.give(reserved);
            budget.take(bytesOf(blobs));
            return blobs;
          },
          (error: unknown) => {
            budget.give(reserved);
            throw error;
          },
        ),
      );
    };
    // A half of a batch split (its answer was over maxBatchBytes): counted once read.
    const fetchPart = (wants: string[]) =>
      this.blobBatch(wants).then((blobs) => {
        budget.take(bytesOf(blobs));
        return blobs;
      });
    const handBlobs = async (wants: string[], blobs: Map<string, Uint8Array>) => {
      for (const oid of wants) {
        const bytes = blobs.get(oid)!;
        blobs.delete(oid);
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          budget.give(bytes.byteLength);
        };
        let owned = false;
        try {
          await hand(oid, {
            bytes,
            own: () => {
              owned = true;
              return release;
            },
          });
        } finally {
          if (!owned) release();
        }
      }
    };
    const ahead: Array<Promise<Settled<Map<string, Uint8Array>>>> = [];
    let next = 0;
    const fill = () => {
      while (ahead.length < BATCHES_IN_FLIGHT && next < batches.length && budget.fits(estimate(batches[next]))) ahead.push(fetchAhead(batches[next++]));
    };
    try {
      for (let i = 0; i < batches.length && this.partial; i++) {
        fill();
        if (ahead.length === 0) {
          // Nothing fetched ahead: what is held (blobs still being stored) is released first.
          await budget.whenFits(estimate(batches[next]));
          ahead.push(fetchAhead(batches[next++]));
        }
        const fetched = await ahead.shift()!;
        fill();
        await this.inBatch(batches[i], fetched, fetchPart, handBlobs, stream, (oid) => hand(oid, null));
      }
    } finally {
      // Answers fetched ahead and never handed (a failure, a fallback) are let go once their requests end.
      await Promise.all(ahead);
      this.stats.peakBytesHeld = Math.max(this.stats.peakBytesHeld, budget.peak);
    }
    if (!this.partial) await fromFullFetch();
  }

  /**
   * The blobs answering a batch wanted by id, read from the answer's pack as it comes (blobsOfPackStream: neither
   * the answer nor the pack is held, only the blobs); an answer over `maxBatchBytes` is an error (`too_large`).
   */
  private async blobBatch(wants: string[]): Promise<Map<string, Uint8Array>> {
    const args = [...wants.map((w) => `want ${w}`), 'no-progress', 'ofs-delta', 'done'];
    // Sent again when the connection is lost before or while its answer is read (nothing of it was handed yet).
    return sentAgainIfLost(async () => {
      const response = await outboundStream(
        this.outbound,
        ...this.uploadPackRequest(commandRequest('fetch', args, ['agent=docs-platform'])),
        // Within `timeoutMs` of silence, as long as the answer moves (a loaded server), up to ten times that.
        { field: 'url', maxBytes: GIT_TRANSFER_LIMITS.maxBatchBytes, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs * 10, idleTimeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
      );
      this.stats.requests++;
      if (!response.ok) {
        await response.body.cancel();
        throw new Error(`the repository answered HTTP ${response.status} to git-upload-pack`);
      }
      const { blobs, bytes } = await blobsOfPackStream(packBytesOf(response.body), wants);
      this.stats.packBytes += bytes;
      return blobs;
    });
  }

  /**
   * One batch of blobs by id into the session's repository, then `got` (with the pack's name); split and fallen back
   * from as `inBatch` says.
   */
  private async fetchBatch(wants: string[], got: (oids: string[], pack: string) => Promise<void>, alone: (oid: string) => Promise<void>): Promise<void> {
    const fetch = (part: string[]) => this.fetchPack(part, { maxBytes: GIT_TRANSFER_LIMITS.maxBatchBytes });
    await this.inBatch(wants, await settled(fetch(wants)), fetch, got, alone, async () => undefined);
  }

  /**
   * A batch of blobs wanted by id, given its answer (fetched ahead or just now): `got` with it. An answer over
   * `maxBatchBytes` is split in two, each half fetched with `fetch` and taken in turn, and a single blob over it goes
   * to `alone`. A server that advertises filters but refuses blobs wanted by id (`uploadpack.allowAnySHA1InWant`
   * off): the whole tree, the way isomorphic-git fetches it, and no partial reads from then on. A blob the remote
   * lacks (`lacks`) goes to `lacking` (it is in `missing`), and the rest of the batch is asked again without it.
   */
  private async inBatch<T>(
    wants: string[],
    answer: Settled<T>,
    fetch: (wants: string[]) => Promise<T>,
    got: (wants: string[], value: T) => Promise<void>,
    alone: (oid: string) => Promise<void>,
    lacking: (oid: string) => Promise<void>,
  ): Promise<void> {
    if ('value' in answer) {
      this.servedById = true;
      this.stats.blobsFetched += wants.length;
      return got(wants, answer.value);
    }
    let { error } = answer;
    const refused = refusedWant(error, wants);
    if (refused && (this.servedById || wants.length > 1)) {
      // The rest asked again: answered (or refused for another reason), the remote serves blobs by id and lacks this
      // one; refused by id too before any blob came so, it refuses blobs by id (the full fetch below).
      const rest = wants.filter((oid) => oid !== refused);
      const again = rest.length > 0 ? await settled(fetch(rest)) : null;
      if (!again || this.servedById || 'value' in again || !refusedWant(again.error, rest)) {
        this.missing.add(refused);
        await lacking(refused);
        if (again) await this.inBatch(rest, again, fetch, got, alone, lacking);
        return;
      }
      error = again.error;
    }
    if (isTooLarge(error)) {
      this.stats.splitBatches++;
      if (wants.length === 1) return alone(wants[0]);
      const half = Math.ceil(wants.length / 2);
      for (const part of [wants.slice(0, half), wants.slice(half)]) if (this.partial) await this.inBatch(part, await settled(fetch(part)), fetch, got, alone, lacking);
      return;
    }
    if (!this.fetchedRef) throw error;
    await this.fullFetchAfter(error, `fetching a batch of ${wants.length} blobs by id`);
  }

  private get base() {
    return { fs: this.fs, gitdir: this.gitdir };
  }

  private onAuth = () => (this.credentials && this.sameOrigin ? { username: this.credentials.username, password: this.credentials.password } : { cancel: true });

  private async init() {
    if (this.initialized) return;
    await git.init({ ...this.base, bare: true, defaultBranch: 'main' });
    await git.addRemote({ ...this.base, remote: 'origin', url: this.url });
    this.initialized = true;
  }

  /** The remote's refs (ls-refs). */
  async remoteRefs(): Promise<Map<string, string>> {
    const refs = await git.listServerRefs({ http: this.http, url: this.repositoryUrl, onAuth: this.onAuth, protocolVersion: 1 });
    return new Map(refs.map((r) => [r.ref, r.oid]));
  }

  /** The commit `ref` is at on the remote (its refs only: nothing fetched), or null when it does not exist. */
  async headOf(ref: string): Promise<string | null> {
    const refs = (await this.v2Capabilities()) ? await this.lsRefs(ref) : (this.v1Advertised?.refs ?? (await this.remoteRefs()));
    return remoteRef(refs, ref)?.oid ?? null;
  }

  /**
   * Fetches the commit at `ref` (depth 1): the oid, or null when the ref does not exist. With protocol v2 and
   * `filter`, only its commit and trees (blobs come when read, by id); with protocol v2 without `filter`, its whole
   * pack read as it comes, the commit and trees kept and the blobs let go (then read by id, as after a partial fetch:
   * v2's `fetch` takes a want of any object the server has); without protocol v2, the way isomorphic-git does, every
   * blob of the tree at once. `trees`: where the trees of the commit last read from a server without `filter` are kept
   * (the space's), so that the stream is of what changed since, or nothing (`streamedFetch`). `projectDirectory`: the
   * files a stream keeps as they pass, each blob crossing once: from a server without protocol v2, all of them (it cannot
   * be asked for one later); from a v2 server without `filter`, with `readsFiles` (an import), those of `.gitbook/assets/`
   * up to `streamAbove` within `keptFilesWhileStreaming` (the others are fetched by id when read, as before).
   */
  async fetchRef(ref: string, options: { trees?: TreeCache; projectDirectory?: string; readsFiles?: boolean } = {}): Promise<string | null> {
    await this.init();
    if (await this.v2Capabilities()) {
      const found = remoteRef(await this.lsRefs(ref), ref);
      if (!found) return null;
      const { name, oid } = found;
      this.fetchedRef = name;
      this.fetchedOid = oid;
      if (this.filter) await this.fetchPack([oid], { filter: 'blob:none', deepen: 1 });
      else
        await this.streamedFetch(
          oid,
          options.trees ?? null,
          options.readsFiles
            ? { under: options.projectDirectory ?? '', limit: GIT_TRANSFER_LIMITS.keptFilesWhileStreaming, failOver: false, gatherUpTo: GIT_TRANSFER_LIMITS.streamAbove, only: ASSET_PATH }
            : undefined,
        );
      // A depth-1 fetch: the commit's parents are not here. Git's `shallow` file says so, so that isomorphic-git's
      // merge base on push stops at it (and sends only what the remote lacks) instead of failing.
      const shallow = this.keptCommit && this.keptCommit !== oid ? `${oid}\n${this.keptCommit}\n` : `${oid}\n`;
      await this.fs.promises.writeFile(`${this.gitdir}/shallow`, shallow);
      this.partial = true;
      this.stats.protocol = 'v2';
      this.stats.fetch = this.filter ? 'partial' : 'streamed';
      return oid;
    }
    const found = remoteRef(this.v1Advertised?.refs ?? (await this.remoteRefs()), ref);
    if (!found) return null;
    if (this.v1Advertised && V1_STREAM_NEEDS.every((c) => this.v1Advertised!.capabilities.has(c))) await this.v1StreamedFetch(found, options.projectDirectory ?? '');
    else await this.fullFetch(found.name);
    this.fetchedOid = found.oid;
    return found.oid;
  }

  /**
   * The commit `found` from a server without protocol v2, its pack read as it comes (one request, as the full fetch), with
   * what an import or export reads kept, since such a server cannot be asked for a blob by id later: commits and trees,
   * every file under `directory` (the project directory), at most `fullFetchCap` bytes of them (more fails, naming the
   * limit), and the small Markdown and YAML elsewhere; the rest is let go as it passes. Each blob crosses the network
   * once, and what is held is bounded by the cap, not by the repository's size (before, its whole pack was held, capped
   * at 32 MiB). A file the stream could not keep (a delta on a blob let go) has the full fetch read the tree instead.
   */
  private async v1StreamedFetch(found: { name: string; oid: string }, directory: string): Promise<void> {
    this.fetchedRef = found.name;
    this.stats.protocol = 'v1';
    this.stats.fetch = 'streamed';
    await this.streamTrees([found.oid], { deepen: 1, files: { under: directory, limit: this.fullFetchCap, failOver: true, gatherUpTo: Infinity } });
    const lacking = (await this.listFiles(found.oid, directory)).filter((file) => !this.blobs.has(file.oid));
    const letGo = lacking.find((file) => this.passedSizes.has(file.oid));
    if (letGo) throw this.v1FilesTooLarge(directory, `${directory ? `${directory}/` : ''}${letGo.path}`);
    if (lacking.length > 0) {
      try {
        await this.fullFetch(found.name);
      } catch (error) {
        const what = `${lacking.length} file${lacking.length === 1 ? '' : 's'} under ${directory ? `"${directory}"` : "the repository's root"} (${lacking[0].path} ...)`;
        throw new Error(`${what} came in the stream as deltas on blobs it did not keep; the full fetch of the tree tried instead failed: ${messageOf(error)}`);
      }
      return;
    }
    await this.fs.promises.writeFile(`${this.gitdir}/shallow`, `${found.oid}\n`);
    this.partial = true;
  }

  /** The files under `directory` of a server without protocol v2 are over the cap of what is held of them (`v1StreamedFetch`). */
  private v1FilesTooLarge(directory: string, file: string): Error {
    return Object.assign(
      new Error(
        `the files under ${directory ? `the project directory "${directory}"` : "the repository's root"} are over ${this.fullFetchCap} bytes (GIT_SYNC_MAX_FULL_FETCH_BYTES), ${file} among them: ` +
          'the server does not speak Git protocol v2, so it cannot be asked for a file by id, and every file an import may read is held from the one pack it sends; ' +
          'enable protocol v2 on the server (git http-backend takes it from the Git-Protocol header, as GIT_PROTOCOL), give the documentation\'s folder as the project directory, or raise GIT_SYNC_MAX_FULL_FETCH_BYTES',
      ),
      { stopsRead: true },
    );
  }

  /** A protocol v0/v1 `git-upload-pack` request (stateless, one round): `wants` at depth `deepen`, with the capabilities it reads. */
  private v1FetchRequest(wants: string[], deepen: number): Uint8Array {
    const advertised = this.v1Advertised?.capabilities ?? new Set<string>();
    const agent = [...advertised].some((c) => c.startsWith('agent=')) ? ['agent=docs-platform'] : [];
    const capabilities = ['side-band-64k', 'ofs-delta', 'shallow'].filter((c) => advertised.has(c)).concat(agent);
    return concatBytes([
      pktLine(`want ${wants[0]} ${capabilities.join(' ')}\n`),
      ...wants.slice(1).map((w) => pktLine(`want ${w}\n`)),
      pktLine(`deepen ${deepen}\n`),
      FLUSH,
      pktLine('done\n'),
    ]);
  }

  /**
   * The trees of another commit than the one fetched, `oid` (the one the space last synced: an export compares the branch's
   * head with it), so that `listFiles` reads it: `read` once it can be; `gone` when the remote no longer has it (git's `not
   * our ref`: a branch pushed over, its old commits collected); `unavailable` when it cannot be asked for (a server without
   * protocol v2) or the fetch failed otherwise. After a partial fetch, its commit and trees alone (`filter blob:none`);
   * after a full one (a server without partial fetches), the commit with the fetched commit as a `have`: a pack of what
   * the two differ by (the trees and the blobs that changed), not the whole tree again.
   */
  async fetchTreesOf(oid: string): Promise<'read' | 'gone' | 'unavailable'> {
    try {
      await this.readCommit(oid);
      // Read from the trees kept, not from the remote: whether the remote still has it is asked (a force-push that
      // dropped it refuses the export, as when it is fetched).
      if (oid === this.keptCommit && oid !== this.fetchedOid) return await this.remoteHolds(oid);
      return 'read';
    } catch {
      // Not here yet: fetched below.
    }
    if (!this.v2Fetch || !this.fetchedOid) return 'unavailable';
    try {
      if (this.partial && this.filter) await this.fetchPack([oid], { filter: 'blob:none', deepen: 1 });
      else if (this.partial) await this.streamTrees([oid], { deepen: 1, have: this.fetchedOid! });
      else await this.fetchPack([oid], { deepen: 1, have: this.fetchedOid! });
      // Its parents are not here either (depth 1): git's `shallow` file says so, as for the fetched commit.
      const shallow = await this.fs.promises.readFile(`${this.gitdir}/shallow`, 'utf8').catch(() => '');
      await this.fs.promises.writeFile(`${this.gitdir}/shallow`, `${shallow}${oid}\n`);
      await this.readCommit(oid);
      return 'read';
    } catch (error) {
      return refusedWant(error, [oid]) ? 'gone' : 'unavailable';
    }
  }

  /**
   * A partial read failed (`cause`: the server refused blobs wanted by id, or the request failed): the whole tree
   * instead, and no partial reads from then on. When that fails too, the error says both: the first failure's
   * cause, which is what went wrong, and the fallback's.
   */
  private async fullFetchAfter(cause: unknown, what: string): Promise<void> {
    try {
      await this.fullFetch(this.fetchedRef!, false);
    } catch (fallback) {
      throw new Error(`${what} failed: ${messageOf(cause)}; the full fetch of the tree tried instead failed too: ${messageOf(fallback)}`);
    }
    this.partial = false;
  }

  /**
   * The commit at `remoteRef` with every blob of its tree (depth 1), through isomorphic-git (protocol v1).
   * `noPartial`: the server offered no partial fetch (the reason given when the pack is over the cap).
   */
  private async fullFetch(remoteRef: string, noPartial = true): Promise<void> {
    this.stats.protocol = 'v1';
    this.stats.fetch = 'full';
    try {
      // Where the discovery's redirects led (learnServedAt): a POST to the old URL is not followed through a 301.
      await git.fetch({ ...this.base, cache: this.cache, http: this.http, remote: 'origin', url: this.repositoryUrl, onAuth: this.onAuth, ref: remoteRef, remoteRef, singleBranch: true, depth: 1, tags: false });
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      if (!noPartial) throw new Error(`the repository is too large for a full fetch (over ${this.fullFetchCap} bytes, GIT_SYNC_MAX_FULL_FETCH_BYTES)`);
      throw new Error(
        `the repository is too large for a full fetch (over ${this.fullFetchCap} bytes): its server does not speak Git protocol v2, ` +
          'so every blob of the tree would be held at once (over protocol v2 a repository of any size is read as it comes, with or without `uploadpack.allowFilter`); ' +
          'enable protocol v2 on the server (git http-backend takes it from the Git-Protocol header, as GIT_PROTOCOL), or raise GIT_SYNC_MAX_FULL_FETCH_BYTES',
      );
    }
    this.stats.requests += 2;
    const packs = (await this.fs.promises.readdir(`${this.gitdir}/objects/pack`).catch(() => [] as string[])).filter((n) => n.endsWith('.pack'));
    for (const name of packs) this.stats.packBytes += (await this.fs.promises.stat(`${this.gitdir}/objects/pack/${name}`)).size;
  }

  async readCommit(oid: string) {
    return (await git.readCommit({ ...this.base, oid, cache: this.cache })).commit;
  }

  /**
   * Every file under `directory` of the commit's tree (paths relative to it), recursively; with `submodules`, the
   * gitlinks too (mode 160000: a commit of another repository), which an export must write back as they were.
   */
  async listFiles(commitOid: string, directory = '', options: { submodules?: boolean } = {}): Promise<TreeFile[]> {
    const commit = await this.readCommit(commitOid);
    let treeOid = commit.tree;
    for (const segment of directory.split('/').filter(Boolean)) {
      const entry = (await this.treeEntries(treeOid)).find((e) => e.path === segment && e.type === 'tree');
      if (!entry) return [];
      treeOid = entry.oid;
    }
    const out: TreeFile[] = [];
    const walk = async (oid: string, prefix: string, raws: Array<Uint8Array | undefined>) => {
      for (const entry of await this.treeEntries(oid)) {
        const path = prefix ? `${prefix}/${entry.path}` : entry.path;
        const names = [...raws, entry.raw];
        if (entry.type === 'tree') await walk(entry.oid, path, names);
        else if (entry.type === 'blob' || (entry.type === 'commit' && options.submodules)) {
          out.push({ path, oid: entry.oid, mode: entry.mode });
          // Full paths only (an export's listing), as the tree it writes names them.
          if (!directory && names.some(Boolean)) this.rawNames.set(path, names);
        }
      }
    };
    await walk(treeOid, '', []);
    return out;
  }

  /**
   * A tree's entries as git stores them. isomorphic-git's readTree refuses a whole tree when one name holds a backslash,
   * which git allows (jhaoheng/gitbook's `string 去除掉 \\n\\b.md`): the import failed on that one file.
   */
  private async treeEntries(oid: string): Promise<TreeEntry[]> {
    const { object } = await git.readObject({ ...this.base, oid, format: 'content', cache: this.cache });
    return treeEntriesOf(object as Uint8Array);
  }

  /** A blob's bytes (fetched first if the session does not have it: prefetchBlobs fetches many at once). */
  async readBlob(oid: string): Promise<Uint8Array> {
    await this.prefetchBlobs([oid]);
    return (await git.readBlob({ ...this.base, oid, cache: this.cache })).blob;
  }

  async writeBlob(bytes: Uint8Array): Promise<string> {
    const oid = await git.writeBlob({ ...this.base, blob: bytes });
    this.blobs.add(oid);
    this.writtenBlobs.add(oid);
    return oid;
  }

  /**
   * A blob of `size` bytes read from `stream` (a file of the space), its id computed as it passes; its bytes are not kept:
   * the push reads them again (`again`) and deflates them into its pack as it is sent. An export of a space's files (a first
   * export, a new project directory) held every file in the session's repository and again in the pack it built: 1 GB of
   * buffers for 520 files (wansho-gitbook), where the Worker has 128 MB.
   */
  async writeStreamedBlob(size: number, stream: ReadableStream<Uint8Array>, again: () => Promise<ReadableStream<Uint8Array> | null>): Promise<string> {
    const sha1 = new crypto.DigestStream('SHA-1');
    const writer = sha1.getWriter();
    await writer.write(encoder.encode(`blob ${size}\0`));
    writer.releaseLock();
    // Piped by the runtime (a loop here over each chunk of R2's body was a quarter of a whole-space export's CPU); the
    // size is the object's own, and the push checks it again as it sends the bytes.
    await stream.pipeTo(sha1);
    const oid = toHex(new Uint8Array(await sha1.digest));
    this.blobs.add(oid);
    this.writtenBlobs.add(oid);
    if (!this.streamedBlobs.has(oid)) this.streamedBlobs.set(oid, { size, open: again });
    return oid;
  }

  /**
   * Writes the tree of `files` (full paths from the repository's root) and a commit of it on `parent`,
   * then pushes it to `ref` (never forced: a remote that moved on refuses it).
   */
  /** `beforePush` runs once the commit is made, before it is sent: it may refuse (throw), and nothing is pushed. */
  async commitAndPush(options: {
    files: TreeFile[];
    parent: string | null;
    message: string;
    author: { name: string; email: string };
    committer?: { name: string; email: string };
    ref: string;
    beforePush?: (commit: string) => Promise<void>;
  }): Promise<string> {
    await this.init();
    const tree = await this.writeTreeOf(options.files);
    const timestamp = Math.floor(Date.now() / 1000);
    const who = { ...options.author, timestamp, timezoneOffset: 0 };
    const by = options.committer ? { ...options.committer, timestamp, timezoneOffset: 0 } : who;
    const oid = await git.writeCommit({
      ...this.base,
      commit: { message: options.message.endsWith('\n') ? options.message : `${options.message}\n`, tree, parent: options.parent ? [options.parent] : [], author: who, committer: by },
    });
    await options.beforePush?.(oid);
    await this.receivePack(options.ref, options.parent, oid, [oid, ...(await this.newObjectsOf(tree, options.parent, options.files))]);
    // The branch is at the pushed commit: its trees (all in this session) are the ones the space's next operation reads.
    await this.keepTreesOf(oid);
    return oid;
  }

  /**
   * The trees and blobs of the commit's tree `tree` the remote may lack: every tree this session wrote that the parent's
   * tree does not hold, and every blob it wrote that a file of the commit names (a blob it kept, the remote has).
   */
  private async newObjectsOf(tree: string, parent: string | null, files: TreeFile[]): Promise<string[]> {
    const theirs = new Set<string>();
    if (parent) {
      const walk = async (oid: string) => {
        if (theirs.has(oid)) return;
        theirs.add(oid);
        for (const entry of await this.treeEntries(oid)) if (entry.type === 'tree') await walk(entry.oid);
      };
      await walk((await this.readCommit(parent)).tree);
    }
    const trees = [...this.writtenTrees].filter((oid) => !theirs.has(oid));
    const named = new Set(files.map((f) => f.oid));
    const blobs = [...this.writtenBlobs].filter((oid) => named.has(oid));
    return [...new Set([tree, ...trees, ...blobs])].filter((oid) => oid === tree || !theirs.has(oid));
  }

  /**
   * Git's push (smart HTTP `git-receive-pack`), never forced: `ref` moves from `from` (null: a new branch) to `to`, with
   * `objects` in the pack. Ours rather than isomorphic-git's, which parses every tree of the commit and of the remote's head
   * to list what to send and refuses a name git allows (a backslash: `notes/trim \n\b.md`), so an export of a repository
   * holding one failed whatever it changed. A remote whose branch is no longer at `from` refuses it (git checks it under
   * its lock; we check the advertised head first); the errors carry isomorphic-git's codes, which failureMessage reads.
   */
  private async receivePack(ref: string, from: string | null, to: string, objects: string[]): Promise<void> {
    const limits = { field: 'url', maxBytes: GIT_TRANSFER_LIMITS.maxPackBytes, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs };
    const advertised = await sentAgainIfLost(() => outboundFetch(this.outbound, `${this.repositoryUrl}/info/refs?service=git-receive-pack`, { method: 'GET', headers: this.gitHeaders() }, limits));
    this.stats.requests++;
    if (!advertised.ok) throw httpError(advertised.status);
    this.learnServedAt(advertised.url, 'git-receive-pack');
    const { refs, capabilities } = refAdvertisement(advertised.bytes);
    if ((refs.get(ref) ?? null) !== from) throw pushRefused(ref, `its head is ${refs.get(ref) ?? 'gone'}, not ${from ?? 'absent'} as read`);
    const sideBand = capabilities.has('side-band-64k');
    const wanted = ['report-status', ...(sideBand ? ['side-band-64k'] : []), 'agent=docs-platform'];
    const streamed = objects.filter((oid) => this.streamedBlobs.has(oid));
    const held = objects.filter((oid) => !this.streamedBlobs.has(oid));
    const { packfile } = await git.packObjects({ ...this.base, cache: this.cache, oids: held });
    this.stats.pushHeldBytes = this.fs.bytes() + packfile!.byteLength;
    const command = concatBytes([pktLine(`${from ?? ZERO_OID} ${to} ${ref}\0${wanted.join(' ')}\n`), FLUSH]);
    // Files of the space streamed into the pack after the objects held (a stream body: chunked, never held whole).
    const body = streamed.length === 0 ? concatBytes([command, packfile!]) : this.streamedPack(command, packfile!, streamed);
    const headers = { 'Content-Type': 'application/x-git-receive-pack-request', Accept: 'application/x-git-receive-pack-result', ...this.gitHeaders() };
    // Not sent again if the connection is lost: a push the remote took would then be refused (its head moved), and said so.
    // A pack with files streamed in may be hundreds of megabytes: the time of a streamed pack, as a fetch has it.
    const sending = body instanceof ReadableStream ? { ...limits, timeoutMs: GIT_TRANSFER_LIMITS.streamedPackMs } : limits;
    const answer = await outboundFetch(this.outbound, `${this.repositoryUrl}/git-receive-pack`, { method: 'POST', headers, body }, sending);
    this.stats.requests++;
    if (!answer.ok) throw httpError(answer.status);
    const report = receivePackReport(answer.bytes, sideBand);
    if (report.unpack !== 'ok') throw pushRefused(ref, `the remote could not unpack it: ${report.unpack ?? 'no report'}`);
    const status = report.refs.get(ref);
    if (status !== 'ok') throw pushRefused(ref, status ?? 'the remote did not report the branch');
  }

  /**
   * The push's body: `command`, then a pack of the objects `packfile` holds followed by the blobs `streamed` (each read
   * again from where it is and deflated as it is sent), its object count and its SHA-1 trailer made for the whole. A blob
   * whose bytes are not the ones its id was computed from (its size) fails the stream: the remote gets no valid pack and
   * refuses the push, nothing changed.
   */
  private streamedPack(command: Uint8Array, packfile: Uint8Array, streamed: string[]): ReadableStream<Uint8Array> {
    const view = new DataView(packfile.buffer, packfile.byteOffset, packfile.byteLength);
    const count = view.getUint32(8) + streamed.length;
    // A copy of its own (a Buffer's `slice` is a view: the count was written into isomorphic-git's pack, at its buffer's offset).
    const header = new Uint8Array(12);
    header.set(packfile.subarray(0, 12));
    new DataView(header.buffer).setUint32(8, count);
    const entries = packfile.subarray(12, packfile.byteLength - 20);
    const blobs = this.streamedBlobs;
    const stats = this.stats;
    stats.pushStreamedBytes = 0;
    async function* parts(): AsyncGenerator<Uint8Array> {
      const sha1 = new crypto.DigestStream('SHA-1');
      const hashing = sha1.getWriter();
      yield command;
      await hashing.write(header);
      yield header;
      await hashing.write(entries);
      yield entries;
      for (const oid of streamed) {
        const { size, open } = blobs.get(oid)!;
        const entry = packObjectHeader(3, size);
        await hashing.write(entry);
        yield entry;
        const source = await open();
        if (!source) throw new Error(`the file of blob ${oid} is no longer stored: nothing was pushed`);
        let seen = 0;
        const counted = source.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              seen += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
        );
        for await (const chunk of counted.pipeThrough(new CompressionStream('deflate')) as unknown as AsyncIterable<Uint8Array>) {
          await hashing.write(chunk);
          yield chunk;
        }
        if (seen !== size) throw new Error(`the file of blob ${oid} has ${seen} bytes, not ${size}: nothing was pushed`);
        stats.pushStreamedBytes! += size;
      }
      await hashing.close();
      yield new Uint8Array(await sha1.digest);
    }
    const iterator = parts();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await iterator.return(undefined);
      },
    });
  }

  private async writeTreeOf(files: TreeFile[]): Promise<string> {
    type Dir = { name: Uint8Array; files: Array<TreeFile & { name: Uint8Array }>; dirs: Map<string, Dir> };
    const root: Dir = { name: new Uint8Array(), files: [], dirs: new Map() };
    for (const file of files) {
      const parts = file.path.split('/');
      // A name listed as no UTF-8 is written as its bytes, not as its reading (the one kept where the path still matches).
      const raws = this.rawNames.get(file.path);
      const nameAt = (i: number) => raws?.[i] ?? encoder.encode(parts[i]);
      let dir = root;
      for (const [i, part] of parts.slice(0, -1).entries()) {
        const key = raws?.[i] ? `${part}\0${raws[i]!.join(',')}` : part;
        let next = dir.dirs.get(key);
        if (!next) dir.dirs.set(key, (next = { name: nameAt(i), files: [], dirs: new Map() }));
        dir = next;
      }
      dir.files.push({ ...file, path: parts[parts.length - 1], name: nameAt(parts.length - 1) });
    }
    const write = async (dir: Dir): Promise<string> => {
      const entries: Array<{ mode: string; name: Uint8Array; oid: string; type: 'blob' | 'tree' | 'commit' }> = [];
      for (const file of dir.files) entries.push({ mode: file.mode, name: file.name, oid: file.oid, type: file.mode === '160000' ? 'commit' : 'blob' });
      for (const sub of dir.dirs.values()) entries.push({ mode: '040000', name: sub.name, oid: await write(sub), type: 'tree' });
      const oid = await git.writeObject({ ...this.base, type: 'tree', format: 'content', object: treeObject(entries) });
      this.writtenTrees.add(oid);
      return oid;
    };
    return write(root);
  }
}
