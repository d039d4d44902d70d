/**
 * Git Sync benchmark (run by `npm run bench`, or `npm run bench -- git-sync`): the tests' real Git server
 * (git http-backend, test/fixtures/git-sync/git-server.mjs) serves the AxonIQ reference guide (182 pages, in
 * ../shared/corpus/gitbook-format, read in place) plus a 24 MB file that is not GitBook's, and a 300 MB repository
 * (the guide, 200 MB of files that are not GitBook's, 40 assets of 2 MB and 200 of 50 KB under .gitbook/assets/),
 * served with and without `object-info`; in Node, with the code the queue consumer runs (assets go to a store that
 * hashes them as R2's would be written and keeps nothing):
 * - fetch: protocol v2 partial fetch (trees, then the blobs the import reads, by id in batches) against a full
 *   fetch by isomorphic-git (a server without v2), wall time and peak memory (RSS and heap above the start);
 * - import: the plan (layout, blobs, links) and the Markdown -> document conversion of every page;
 * - export: every page written back as Markdown, its blob written, one commit pushed (the worst case: every page
 *   changed; an unchanged page keeps its blob and costs nothing).
 * The D1 writes of the SpaceWriter are not in it (the route benchmark measures D1). A benchmark, not a test.
 */
import { createHash } from 'node:crypto';
import { memoryUsage } from 'node:process';
import type { AssetStore } from '../../src/services/git-sync/assets';
import { cpuUsage } from 'node:process';
import setup from '../fixtures/git-sync/git-server.mjs';
import { planImport } from '../../src/services/git-sync/import';
import { GitSession, GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { GIT_IMPORT_LIMITS } from '../../src/services/git-sync/import';
import { documentToMarkdown, markdownToDocument, defaultResolveLink } from '../../src/services/markdown/index';
import type { SyncedSpace, RevisionTree } from '../../src/services/git-sync/content';

type Server = { url: string; username: string; password: string };
let server!: Server;
const teardown = await setup({ provide: (_key, value) => (server = value) });

async function control(route: string, body: unknown) {
  const res = await fetch(`${server.url}/__control/${route}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Bytes that do not compress (a seeded sequence). */
function noise(size: number): string {
  const out = new Uint8Array(size);
  let x = 2463534242;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = 33 + ((x >>> 0) % 90);
  }
  return Buffer.from(out).toString('latin1');
}

const BIG = 24 * 1024 * 1024;
const extra = { 'vendor/dataset.bin': noise(BIG) };
await control('create', { name: 'bench-v2', corpus: 'axoniq-reference-guide', files: extra });
await control('create', { name: 'bench-v1', corpus: 'axoniq-reference-guide', files: extra, v1Only: true });
// GIT_SYNC_BENCH_SCALE=0.2 makes the 300 MB repository's files not GitBook's 5 times smaller (a quicker run on a busy machine).
const SCALE = Number(process.env.GIT_SYNC_BENCH_SCALE ?? 1) || 1;
const large: Record<string, string> = {};
for (let i = 0; i < 4; i++) large[`vendor/data-${i}.bin`] = noise(Math.round(50 * 1024 * 1024 * SCALE)).slice(i) + 'x'.repeat(i);
for (let i = 0; i < 40; i++) large[`.gitbook/assets/large-${i}.bin`] = noise(2 * 1024 * 1024).slice(i + 1) + 'y'.repeat(i + 1);
for (let i = 0; i < 200; i++) large[`.gitbook/assets/small-${i}.bin`] = noise(50 * 1024).slice(i + 1) + 'z'.repeat(i + 1);
await control('create', { name: 'bench-300', corpus: 'axoniq-reference-guide', files: large });
await control('create', { name: 'bench-300-sizes-unknown', corpus: 'axoniq-reference-guide', files: large, objectInfo: false });

/** R2 as the import writes it, kept nowhere: bytes and streams hashed (SHA-256) and dropped. */
// node:crypto's hash, typed loosely: the project's types are the Workers' (whose node:crypto types differ).
const sha256 = () => createHash('sha256') as unknown as { update(bytes: Uint8Array): void; digest(encoding: 'hex'): string };
const assets: AssetStore = {
  async storeBytes(bytes) {
    const hash = sha256();
    hash.update(bytes);
    return { hash: hash.digest('hex'), size: bytes.byteLength };
  },
  async storeStream(_oid, size, stream) {
    const hash = sha256();
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
    return { hash: hash.digest('hex'), size };
  },
};

const env = { OUTBOUND_ALLOWED_HOSTS: '', GIT_SYNC_ALLOWED_HOSTS: new URL(server.url).host };
const credentials = { username: server.username, password: server.password };
const EMPTY_SPACE = { head: { id: 'bench', pages: null, files: null, meta: { variables: {}, reusableContents: [] }, pageCount: 0, fileCount: 0 }, headGitOid: null, deleted: false, editMode: 'live', entries: [] } as unknown as SyncedSpace;
const EMPTY_TREE: RevisionTree = { pages: new Map(), order: [], files: new Map() };

/** Runs `work` while sampling memory every 5 ms: wall ms, CPU ms, and the peaks of RSS and heap above the start. */
async function measure<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number; rssMB: number; heapMB: number }> {
  globalThis.gc?.();
  const start = memoryUsage();
  let rss = start.rss;
  let heap = start.heapUsed;
  const timer = setInterval(() => {
    const now = memoryUsage();
    rss = Math.max(rss, now.rss);
    heap = Math.max(heap, now.heapUsed);
  }, 5);
  const cpu = cpuUsage();
  const began = performance.now();
  const value = await work();
  const ms = performance.now() - began;
  const used = cpuUsage(cpu);
  clearInterval(timer);
  const end = memoryUsage();
  rss = Math.max(rss, end.rss);
  heap = Math.max(heap, end.heapUsed);
  return { value, ms, cpuMs: (used.user + used.system) / 1000, rssMB: (rss - start.rss) / 2 ** 20, heapMB: (heap - start.heapUsed) / 2 ** 20 };
}

const line = (label: string, r: { ms: number; cpuMs: number; rssMB?: number; heapMB?: number }, extra = '') =>
  console.log(
    `${label.padEnd(58)} ${r.ms.toFixed(0).padStart(6)} ms ${r.cpuMs.toFixed(0).padStart(6)} ms CPU` +
      (r.rssMB !== undefined ? ` ${r.heapMB!.toFixed(1).padStart(6)} MB heap ${r.rssMB.toFixed(1).padStart(6)} MB RSS` : '') +
      (extra ? `  ${extra}` : ''),
  );

console.log(`Git Sync: AxonIQ reference guide (182 pages) + a ${BIG / 2 ** 20} MB file that is not GitBook's, served by git http-backend`);
for (const name of ['bench-v2', 'bench-v1', 'bench-300', 'bench-300-sizes-unknown']) {
  const url = `${server.url}/repos/${name}.git`;
  const fetched = await measure(async () => {
    const session = new GitSession(env, url, credentials);
    const oid = (await session.fetchRef('refs/heads/main'))!;
    const plan = await planImport(session, oid, { maxFileBytes: 100 * 1024 * 1024, assets }, EMPTY_SPACE, EMPTY_TREE);
    return { session, oid, plan };
  });
  const { session, oid, plan } = fetched.value;
  const what = name.startsWith('bench-300') ? `300 MB repository${name.endsWith('unknown') ? ', no object-info' : ''}` : 'guide + 24 MB';
  line(
    `${what}: ${session.stats.protocol === 'v2' ? 'v2 partial fetch' : 'full fetch (v1)'} + import plan`,
    fetched,
    `${session.stats.requests} requests, ${(session.stats.packBytes / 2 ** 20).toFixed(2)} MB of packs held, ${session.stats.blobsFetched} blobs in batches, ${session.stats.blobsStreamed} streamed, ` +
      `${session.stats.splitBatches} batches split, ${plan.stats.pages} pages, ${plan.stats.readFiles} files (${(plan.stats.assetBytes / 2 ** 20).toFixed(0)} MB) stored`,
  );
  if (name !== 'bench-v2') continue;

  const pages = plan.changes.flatMap((c) => (c.operation === 'insert_page' && c.document && 'markdown' in c.document ? [c.document.markdown] : []));
  const converted = await measure(async () => pages.map((markdown) => markdownToDocument(markdown, { resolveLink: defaultResolveLink })));
  line(`import: ${pages.length} pages converted Markdown -> document`, converted);

  const files = await session.listFiles(oid, '');
  const exported = await measure(async () => {
    const written = new Map(files.map((f) => [f.path, f]));
    let i = 0;
    for (const conversion of converted.value) {
      const path = `bench/page-${i++}.md`;
      const blob = await session.writeBlob(new TextEncoder().encode(documentToMarkdown(conversion.document, { title: conversion.title })));
      written.set(path, { path, oid: blob, mode: '100644' });
    }
    return session.commitAndPush({ files: [...written.values()], parent: oid, message: 'GITBOOK-1: bench', author: { name: 'GitBook', email: 'bench@example.invalid' }, ref: 'refs/heads/main' });
  });
  line(`export: ${converted.value.length} pages written back, one commit pushed`, exported);
}
console.log(
  `Limits: ${GIT_IMPORT_LIMITS.maxFiles} files under the project directory, ${GIT_IMPORT_LIMITS.maxPages} Markdown pages, ${GIT_IMPORT_LIMITS.maxAssets} files stored per import ` +
    `(${GIT_IMPORT_LIMITS.maxAssetBytes / 2 ** 20} MB, each at most MAX_FILE_BYTES), ${GIT_IMPORT_LIMITS.maxReadBytes / 2 ** 20} MB of Markdown read per import, ` +
    `${GIT_TRANSFER_LIMITS.maxPackBytes / 2 ** 20} MB for the trees, ${GIT_TRANSFER_LIMITS.maxBatchBytes / 2 ** 20} MB per batch of blobs, ` +
    `${GIT_TRANSFER_LIMITS.maxFullFetchBytes / 2 ** 20} MB for a full fetch (a server without partial fetches); over them the operation fails and getSpaceGitInfo says which limit.`,
);
await teardown();
