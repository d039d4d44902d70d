import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, expect, inject } from 'vitest';
import { runGitSyncOperation, type ImportSeams } from '../../src/services/git-sync/operations';
import { GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from './content';
import { api, expectStatus, seedOrg } from './harness';

declare module 'vitest' {
  interface ProvidedContext {
    /** The tests' Git server (test/fixtures/git-sync/git-server.mjs). */
    gitServer: { url: string; username: string; password: string };
  }
}

/** Helpers of the Git Sync tests: the Git server's control endpoints, and running queued operations. */
export const gitServer = () => inject('gitServer');

/**
 * A control request whose connection was lost before any answer is sent once more. workerd keeps connections to the
 * Git server alive and reuses them; Node's server closes one idle for 5 s (`keepAliveTimeout`), and a request
 * written to it as it closes is lost unread ("Network connection lost"): after a test's import stored a large file
 * for a few seconds, and more often on a loaded machine (seen in asset-storage.test.ts). The server never drops a
 * connection while it handles a control request, so a lost one was not run: sending it again runs it once. The
 * transport does the same for git-upload-pack (sentAgainIfLost in services/git-sync/transport). Any other failure,
 * or a second loss, is the test's.
 */
async function sentAgainIfLost(send: () => Promise<Response>): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    if (!/network connection lost/i.test(error instanceof Error ? error.message : String(error))) throw error;
    return send();
  }
}

export async function control<T = any>(route: 'create' | 'commit' | 'git' | 'race' | 'fail' | 'agents', body: Record<string, unknown>): Promise<T> {
  const res = await sentAgainIfLost(() => fetch(`${gitServer().url}/__control/${route}`, { method: 'POST', body: JSON.stringify(body) }));
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

/** A repository on the Git server; `corpus` names a folder of ../shared/corpus/gitbook-format. */
export async function createRepository(name: string, options: { corpus?: string; files?: Record<string, string | { base64: string } | { symlink: string } | { executable: string } | { rawName: string; text: string }>; submodules?: Record<string, string>; v1Only?: boolean; allowFilter?: boolean; objectInfo?: boolean; missing?: string[] } = {}): Promise<{ head: string }> {
  return control('create', { name, ...options });
}

export async function gitOutput(name: string, ...args: string[]): Promise<string> {
  const result = await control<{ ok: boolean; output: string }>('git', { name, args });
  expect(result.ok, result.output).toBe(true);
  return result.output;
}

/** The URL the GitHub integration sends: its installation token as the password of `x-access-token`. */
export function repositoryUrl(name: string, credentials: { username?: string; password?: string } = {}): string {
  const server = new URL(gitServer().url);
  server.username = credentials.username ?? gitServer().username;
  server.password = credentials.password ?? gitServer().password;
  return `${server.origin.replace('//', `//${server.username}:${server.password}@`)}/repos/${name}.git`;
}

/**
 * Runs the space's pending operations in the order they were queued (what the queue consumer does), each to its end: a run
 * that handed over to its continuation (its budget ran out: a loaded machine, or `seams`) is followed by the continuation's
 * run, as the queue delivers it, rather than returning with the operation `running`.
 */
export async function runPending(spaceId: string, seams: ImportSeams = {}): Promise<void> {
  const rows = await env.DB.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at, rowid`).bind(spaceId).all<{ id: string }>();
  for (const row of rows.results) {
    await runGitSyncOperation(env, row.id, 1, seams);
    for (let run = 1; run < 100 && (await operationStateOf(row.id)) === 'running'; run++) await runGitSyncOperation(env, row.id, 1, seams);
  }
}

const operationStateOf = async (id: string) => (await env.DB.prepare('select state from git_sync_operations where id = ?').bind(id).first<{ state: string }>())?.state;

export async function gitInfo(spaceId: string, token: string) {
  return api('GET', `/v1/spaces/${spaceId}/git/info`, { token });
}

/** The body GitBook's GitHub integration sends to import or export `name`'s main branch (integrations/github/src/sync.ts). */
export const githubBody = (name: string) => ({
  url: repositoryUrl(name),
  ref: 'refs/heads/main',
  repoTreeURL: `https://github.com/acme/${name}/blob/main`,
  repoCommitURL: `https://github.com/acme/${name}/commit`,
  repoCacheID: `key-${name}`,
  standalone: false,
});

/** Asks for an import or export, runs it as the queue consumer would, and expects it to succeed. */
export async function runGitOperation(spaceId: string, token: string, direction: 'import' | 'export', body: Record<string, unknown>, seams: ImportSeams = {}) {
  expect((await api('POST', `/v1/spaces/${spaceId}/git/${direction}`, { token, body })).status).toBe(204);
  await runPending(spaceId, seams);
  const info = (await gitInfo(spaceId, token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success', direction });
}

/**
 * For each test of the describe block it is called in: GIT_TRANSFER_LIMITS's byte thresholds of a read of blobs
 * (maxBatchBytes, bytesInFlight, streamAbove) divided by `by`, the defaults put back after. The code reads them at each
 * use, so files `by` times smaller take the paths the defaults' megabytes take (as many to a batch, batches fetched
 * ahead, one streamed): what is proven is the path, not the megabytes made, sent to the Git server, packed and read back.
 */
export function transferLimitsDividedBy(by: number): void {
  const defaults = { ...GIT_TRANSFER_LIMITS };
  beforeEach(() => {
    for (const limit of ['maxBatchBytes', 'bytesInFlight', 'streamAbove'] as const) GIT_TRANSFER_LIMITS[limit] = Math.floor(defaults[limit] / by);
  });
  afterEach(() => void Object.assign(GIT_TRANSFER_LIMITS, defaults));
}

/** Bytes that do not compress (xorshift), `size` of them. */
export function noise(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The SHA-256 of `bytes` in hex: a stored file's key (`fileKey`). */
export const sha256 = async (bytes: Uint8Array) => hex(await crypto.subtle.digest('SHA-256', bytes));

/** The Git blob id of `bytes`, computed here (not by the code under test). */
export async function blobId(bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`blob ${bytes.byteLength}\0`);
  const all = new Uint8Array(header.byteLength + bytes.byteLength);
  all.set(header);
  all.set(bytes, header.byteLength);
  return hex(await crypto.subtle.digest('SHA-1', all));
}

/**
 * `bytes` as a stream of chunks of `sizes` bytes, in turn (the last chunk takes what is left), each chunk its own buffer as a
 * body's chunks are: sizes that never line up with what the reader parses (70,001) cross every boundary it has.
 */
export function chunked(bytes: Uint8Array, sizes: number | readonly number[] = 70_001): ReadableStream<Uint8Array> {
  const turns = typeof sizes === 'number' ? [sizes] : sizes;
  let at = 0;
  let turn = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      const size = turns[turn++ % turns.length];
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/**
 * The start of a conformance test: a space of a new organization with `files` imported from a new repository `name`,
 * with GitHub's body and `force` (the integration's setup import); the imported top-level pages, by their file.
 */
export async function importedSpace(name: string, files: Record<string, string | { base64: string }>) {
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  const created = await createRepository(name, { files });
  await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
  return { org, token, space, head: created.head, byPath: (path: string) => pages.find((page) => page.git?.path === path) };
}

/** An `update_page` change with the leaf `from` of the page's document (read in change request `cr`) changed to `to`, as GitBook's editor sends an edit. */
export async function leafEdit(spaceId: string, token: string, cr: number, pageId: string, from: string, to: string) {
  const read = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`, { token }), 200).body;
  const document = structuredClone(read.document);
  let found = false;
  const visit = (node: any) => {
    if (node?.object === 'leaf' && node.text === from) (node.text = to), (found = true);
    for (const key of ['nodes', 'leaves']) for (const child of node?.[key] ?? []) visit(child);
  };
  visit(document);
  expect(found, `no leaf "${from}"`).toBe(true);
  return { operation: 'update_page', page: pageId, document: { document } };
}
