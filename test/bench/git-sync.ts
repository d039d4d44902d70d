/**
 * Git Sync benchmark (run by `npm run bench`, or `npm run bench -- git-sync [--workerd-only | --node-only] [--large-only | --pages-only | --docs-only] [--writer-apart] [--rebuild]`): the
 * tests' real Git server (git http-backend, test/fixtures/git-sync/git-server.mjs) serves
 * - the AxonIQ reference guide (182 pages, in ../shared/corpus/gitbook-format, read in place) plus a 24 MB file that
 *   is not GitBook's;
 * - three synthetic repositories built once with git fast-import and cached (git-sync-repository.ts): 200 pages with
 *   10 MiB of screenshots, the same with 300 MiB of assets (20 MiB videos, 2 MiB archives), GIT_SYNC_BENCH_SCALE
 *   scaling the large assets, and 800 pages shaped like GitBook's own documentation (GIT_SYNC_BENCH_DOCS_PAGES; many
 *   pages of blocks, small assets: imported in workerd, `--docs-only` for it alone).
 * In Node, with the code the queue consumer runs (assets go to a store that hashes them and keeps nothing):
 * - fetch: protocol v2 partial fetch (trees, then the blobs the import reads, by id in batches) against a full
 *   fetch by isomorphic-git (a server without v2), wall time and peak memory (RSS and heap above the start);
 * - import: the plan (layout, blobs, links) and the Markdown -> document conversion of every page;
 * - export: every page written back as Markdown, its blob written, one commit pushed.
 * In workerd (Miniflare, git-sync-worker.ts: the real Worker, its D1, R2 on disk, its SpaceWriter), end to end as
 * the deployment runs it: `POST /git/import` then the queued operation run (what the queue consumer does), and an
 * export after every page was edited through a change request. Measured: wall time of the operation, and the
 * PEAK RSS of the workerd process (the kernel's VmHWM, reset through /proc/<pid>/clear_refs before each
 * operation; it includes Miniflare's local D1 and R2, which run in the same process) above its RSS before.
 * GIT_SYNC_BENCH_FUNCTIONS=1 lists the functions with the most CPU; GIT_SYNC_BENCH_HEAP=1 samples the live heap at its
 * peak (V8's sampling heap profiler, git-sync-inspector.ts) and lists what allocated it; GIT_SYNC_BENCH_ALLOC=1 lists what
 * allocated the most bytes during each operation, garbage included. GIT_SYNC_BENCH_TIME_LIMIT_MS=2400000 gives an operation 40 minutes
 * (its 10-minute limit otherwise: a 5,000-page import on a loaded machine, measured for its page list). GIT_SYNC_BENCH_R2=1 writes the large import's
 * streamed assets again from the Worker without Git (a plain R2 write, then the import's store) to say where the
 * assets phase goes. GIT_SYNC_BENCH_HEAP_CAP_MB=96
 * runs workerd with V8's heap capped at 96 MB (git-sync-heap-cap.ts: the cap proven in force first), and each
 * operation prints what it made (pages, files, a digest of them, the commit's tree) to compare with an uncapped run;
 * an operation the cap kills is reported as such. `--writer-apart` runs the SpaceWriter in a Worker of its own (its own
 * isolate, as on Cloudflare, where a Durable Object does not run in the queue consumer's invocation) and reports the
 * two isolates' heaps apart: the Worker's (fetch, plan, assets) and the SpaceWriter's (the import's revision written).
 * A benchmark, not a test.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { memoryUsage } from 'node:process';
import type { AssetStore } from '../../src/services/git-sync/assets';
import { cpuUsage } from 'node:process';
import setup from '../fixtures/git-sync/git-server.mjs';
import { planImport } from '../../src/services/git-sync/import';
import { GitSession, GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { GIT_IMPORT_LIMITS } from '../../src/services/git-sync/import';
import { GIT_SYNC_DEFAULT_MAX_FILE_BYTES } from '../../src/services/git-sync/assets';
import { benchDocsRepository, benchRepository, BENCH_PAGES, DOCS_PAGE_COUNTS, streamedAssetSizes } from './git-sync-repository';
import { inspect, sampleHeap, summarizeHeapProfile, summarizeProfile, type CpuProfile, type HeapPeak, type HeapProfileNode } from './git-sync-inspector';
import { bundle, client, seedUser } from './routes';
import { applyHeapCap, heapCapFromEnv, proveHeapCap, spaceFingerprint } from './git-sync-heap-cap';
import { tableSizes } from './table-sizes';
import { execFileSync } from 'node:child_process';
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { unstable_splitSqlQuery } from 'wrangler';
import { documentToMarkdown, markdownToDocument, defaultResolveLink } from '../../src/services/markdown/index';
import type { SyncedSpace, RevisionTree } from '../../src/services/git-sync/content';

type Server = { url: string; username: string; password: string; root: string };
let server!: Server;
const teardown = await setup({ provide: (_key, value) => (server = value) });
const argv = new Set(process.argv.slice(2));

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
const extra = argv.has('--workerd-only') ? {} : { 'vendor/dataset.bin': noise(BIG) };
// GIT_SYNC_BENCH_SCALE=0.2 makes the large repository's videos and archives 5 times smaller (a quicker run on a busy machine).
const SCALE = Number(process.env.GIT_SYNC_BENCH_SCALE ?? 1) || 1;
// GIT_SYNC_BENCH_REPO=<a bare repository> [GIT_SYNC_BENCH_DIR=<its project directory>] with --workerd-only: that repository's import alone.
const REAL_REPO = process.env.GIT_SYNC_BENCH_REPO ? path.resolve(process.env.GIT_SYNC_BENCH_REPO) : '';
const REAL_DIR = process.env.GIT_SYNC_BENCH_DIR ?? '';
// --writer-apart: the SpaceWriter in a Worker of its own (its own isolate, as on Cloudflare), each isolate's heap measured apart.
const WRITER_APART = argv.has('--writer-apart');
const pagesRepo = await benchRepository(false, 1, argv.has('--rebuild'));
const largeRepo = await benchRepository(true, SCALE, argv.has('--rebuild'));
const docsRepos: Array<Awaited<ReturnType<typeof benchDocsRepository>>> = [];
for (const pages of DOCS_PAGE_COUNTS) docsRepos.push(await benchDocsRepository(argv.has('--rebuild'), pages));
for (const [what, repo] of [['200 pages', pagesRepo], ['200 pages + large assets', largeRepo], ...docsRepos.map((r) => [`${r.pages} pages shaped like GitBook's documentation`, r] as const)] as const) {
  console.log(`Synthetic repository (${what}): ${(repo.bytes / 2 ** 20).toFixed(0)} MiB of files, ${repo.built ? `built with git fast-import in ${(repo.ms / 1000).toFixed(1)} s` : 'from the cache'} (${repo.path})`);
}
if (!argv.has('--workerd-only')) {
  await control('create', { name: 'bench-v2', corpus: 'axoniq-reference-guide', files: extra });
  await control('create', { name: 'bench-v1', corpus: 'axoniq-reference-guide', files: extra, v1Only: true });
  await control('serve', { name: 'bench-300', source: largeRepo.path });
  await control('serve', { name: 'bench-300-sizes-unknown', source: largeRepo.path, objectInfo: false });
}

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

if (!argv.has('--workerd-only')) console.log(`Git Sync in Node: AxonIQ reference guide (182 pages) + a ${BIG / 2 ** 20} MB file that is not GitBook's, served by git http-backend`);
for (const name of argv.has('--workerd-only') ? [] : ['bench-v2', 'bench-v1', 'bench-300', 'bench-300-sizes-unknown']) {
  const url = `${server.url}/repos/${name}.git`;
  const fetched = await measure(async () => {
    const session = new GitSession(env, url, credentials);
    const oid = (await session.fetchRef('refs/heads/main'))!;
    const plan = await planImport(session, oid, { maxFileBytes: 100 * 1024 * 1024, assets }, EMPTY_SPACE, EMPTY_TREE);
    return { session, oid, plan };
  });
  const { session, oid, plan } = fetched.value;
  const what = name.startsWith('bench-300') ? `${(largeRepo.bytes / 2 ** 20).toFixed(0)} MiB repository${name.endsWith('unknown') ? ', no object-info' : ''}` : 'guide + 24 MB';
  line(
    `${what}: ${session.stats.protocol === 'v2' ? 'v2 partial fetch' : 'full fetch (v1)'} + import plan`,
    fetched,
    `${session.stats.requests} requests, ${(session.stats.packBytes / 2 ** 20).toFixed(2)} MB of packs held, ${session.stats.blobsFetched} blobs in batches, ${session.stats.blobsStreamed} streamed, ` +
      `${session.stats.splitBatches} batches split, ${plan.stats.pages} pages, ${plan.stats.readFiles} files (${(plan.stats.assetBytes / 2 ** 20).toFixed(0)} MB) stored`,
  );
  if (name !== 'bench-v2') continue;

  // The plan holds no Markdown (markdown-parcels): read here, a parcel at a time, as the writer reads it.
  const pages: string[] = [];
  for (let from = 0; ; ) {
    const parcel = await plan.markdown(from);
    if (parcel.length === 0) break;
    for (const [index, markdown] of parcel) if (plan.changes[index].operation === 'insert_page') pages.push(markdown);
    from = parcel[parcel.length - 1][0] + 1;
  }
  // Links to the import's new pages resolved as the content batch resolves them (their refs), as the import converts
  // them: a page whose lines link to other pages is parsed again (code ranges, the patched body checked to read the same).
  const refs = new Set(plan.changes.flatMap((c) => (c.operation === 'insert_page' && c.ref ? [c.ref] : [])));
  const resolveLink = (href: string) => {
    const [name, anchor] = href.replace(/^\.\//, '').split('#', 2);
    const ref = [name, name.replace(/\.md$/i, '')].find((candidate) => refs.has(candidate));
    if (!ref) return defaultResolveLink(href);
    return anchor ? { kind: 'anchor' as const, anchor, page: ref } : { kind: 'page' as const, page: ref };
  };
  const converted = await measure(async () => pages.map((markdown) => markdownToDocument(markdown, { resolveLink })));
  line(`import: ${pages.length} pages converted Markdown -> document, links resolved`, converted, `${(converted.cpuMs / pages.length).toFixed(1)} ms CPU a page`);

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
    `(${GIT_IMPORT_LIMITS.maxAssetBytes / 2 ** 20} MB, each at most GIT_SYNC_MAX_FILE_BYTES), ${GIT_IMPORT_LIMITS.maxReadBytes / 2 ** 20} MB of Markdown read per import, ` +
    `${GIT_TRANSFER_LIMITS.maxPackBytes / 2 ** 20} MB for the trees, ${GIT_TRANSFER_LIMITS.maxBatchBytes / 2 ** 20} MB per batch of blobs, ` +
    `${GIT_TRANSFER_LIMITS.maxFullFetchBytes / 2 ** 20} MB for a full fetch (a server without partial fetches); over them the operation fails and getSpaceGitInfo says which limit. ` +
    `A file over GIT_SYNC_MAX_FILE_BYTES (${GIT_SYNC_DEFAULT_MAX_FILE_BYTES / 2 ** 20} MiB) is left out, said in the operation's state.`,
);
if (!argv.has('--node-only')) await inWorkerd();
await teardown();

/**
 * A POST answered whenever it ends: fetch (undici) gives up on an answer whose headers take over 5 minutes, and the
 * 300 MiB import on a loaded machine can take longer.
 */
function postWithoutTimeout(url: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', timeout: 0, headers: body === undefined ? {} : { 'Content-Type': 'application/json' } }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * What a write added to D1, by who writes it: the content (the page's document, the page map's nodes on its record's
 * path, the revision and their references), Git Sync's own rows (the operation, the revision's git metadata, the
 * entries), the request's audit event, and the search index. An index is counted with its table.
 */
function bytesByWriter(added: Array<{ name: string; bytes: number }>): Record<string, number> {
  const writerOf = (table: string) =>
    /^(documents|space_documents|revisions|sqlite_autoindex_documents|sqlite_autoindex_revisions)/.test(table)
      ? 'content'
      : /^(git_sync|revision_git|sqlite_autoindex_git_sync|sqlite_autoindex_revision_git)/.test(table)
        ? 'Git Sync'
        : /^audit/.test(table)
          ? 'audit'
          : /^search/.test(table)
            ? 'search'
            : 'other';
  const out: Record<string, number> = {};
  for (const { name, bytes } of added) {
    const writer = writerOf(name.replace(/^index /, ''));
    out[writer] = (out[writer] ?? 0) + bytes;
  }
  return out;
}

/** The blob ids of the large repository's archives and videos (the blobs an import streams). */
function largeAssetOids(repo: string): string[] {
  return execFileSync('git', ['-C', repo, 'ls-tree', '-r', 'refs/heads/main', '.gitbook/assets/'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => /\/(archive|video)-\d+\./.test(line))
    .map((line) => line.split(/\s+/)[2]);
}

/** The Git server answering each blob alone as the import asks it (a v2 `fetch` of one want), read to the end by Node: its share of the time. */
async function gitServesBlobs(repo: string, oids: string[]): Promise<{ ms: number; bytes: number }> {
  const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
  const auth = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
  let bytes = 0;
  const began = performance.now();
  for (const oid of oids) {
    const res = await fetch(`${server.url}/repos/${repo}.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Git-Protocol': 'version=2', Authorization: auth },
      body: `${pkt('command=fetch\n')}${pkt('agent=bench\n')}0001${pkt(`want ${oid}\n`)}${pkt('no-progress\n')}${pkt('done\n')}0000`,
    });
    if (!res.ok || !res.body) throw new Error(`the Git server answered ${res.status} for ${oid}`);
    for await (const chunk of res.body) bytes += chunk.byteLength;
  }
  return { ms: Math.round(performance.now() - began), bytes };
}

/** The workerd processes Miniflare started (children of this process, or theirs). */
function workerdPids(): number[] {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // A process that ended meanwhile.
    }
  }
  const descends = (pid: number) => {
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name.startsWith('workerd') && descends(pid)).map(([pid]) => pid);
}

function statusOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // The process ended (workerd restarted, or died): the operation's own error says what happened.
  }
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
}

/** CPU time a process has used (user and system, /proc/<pid>/stat), in ms; 0 once it ended. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * Runs `work` measuring workerd: its RSS before, its peak RSS (VmHWM, reset first; sampled too, for a kernel that
 * refuses the reset), and the CPU time its processes used meanwhile (the Worker, the SpaceWriter, local D1 and R2): on a
 * loaded machine wall time follows the load, the CPU time far less.
 */
async function measureWorkerd<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; beforeMB: number; peakMB: number; cpuMs: number }> {
  const pids = workerdPids();
  if (pids.length === 0) throw new Error('no workerd process found');
  let resettable = true;
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      resettable = false;
    }
  }
  const rss = () => pids.reduce((n, pid) => n + statusOf(pid, 'VmRSS'), 0);
  const cpuBefore = pids.reduce((n, pid) => n + cpuMsOf(pid), 0);
  const before = rss();
  let sampled = before;
  const timer = setInterval(() => (sampled = Math.max(sampled, rss())), 10);
  const began = performance.now();
  const value = await work();
  const ms = performance.now() - began;
  clearInterval(timer);
  const peak = resettable ? Math.max(sampled, pids.reduce((n, pid) => n + statusOf(pid, 'VmHWM'), 0)) : sampled;
  return { value, ms, beforeMB: before / 2 ** 20, peakMB: peak / 2 ** 20, cpuMs: pids.reduce((n, pid) => n + cpuMsOf(pid), 0) - cpuBefore };
}

/** The import and the export as the deployment runs them, in workerd: wall time and the process's peak memory. */
async function inWorkerd() {
  const ADMIN = 'bench-admin-token';
  const cap = heapCapFromEnv();
  if (cap) {
    const flags = applyHeapCap(cap);
    console.log(`V8 heap capped at ${cap} MB (workerd v8Flags ${flags}, as Cloudflare caps an isolate at 128 MB): ${await proveHeapCap(cap)}`);
  } else console.log('V8 heap not capped (GIT_SYNC_BENCH_HEAP_CAP_MB unset): workerd grows its heap rather than collect; "used" counts garbage');
  const persist = mkdtempSync(path.join(tmpdir(), 'dpa-git-sync-bench-'));
  const { modules } = await bundle('test/bench/git-sync-worker.ts');
  const inspectorPort = 9830 + Math.floor(Math.random() * 500);
  const workerOptions = {
    modules,
    modulesRoot: '/worker',
    compatibilityDate: '2026-11-01',
    compatibilityFlags: ['nodejs_compat'],
    d1Databases: { DB: 'bench-db' },
    r2Buckets: { FILES: 'bench-files' },
    queueProducers: { JOBS: { queueName: 'docs-platform-jobs' } },
    bindings: { ADMIN_TOKEN: ADMIN, FILES_SIGNING_KEY: 'bench-files-signing-key', INTEGRATIONS_KEY: 'bench-integrations-key', APP_URL: '', GIT_SYNC_ALLOWED_HOSTS: new URL(server.url).host, ...(process.env.GIT_SYNC_BENCH_RUN_BUDGET_MS ? { BENCH_RUN_BUDGET_MS: process.env.GIT_SYNC_BENCH_RUN_BUDGET_MS } : {}), ...(process.env.GIT_SYNC_BENCH_TIME_LIMIT_MS ? { BENCH_TIME_LIMIT_MS: process.env.GIT_SYNC_BENCH_TIME_LIMIT_MS } : {}) },
  };
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      log: new Log(LogLevel.WARN),
      cf: false,
      // workerd's V8 inspector: the isolate's own heap and a CPU profile of the operation (git-sync-inspector.ts).
      inspectorPort,
      // D1, R2 and the writer's storage on disk, as a deployment's are outside the Worker.
      resourcePersistencePath: persist,
      workers: [
        {
          ...workerOptions,
          name: 'api',
          // --writer-apart: the SpaceWriter is the `writer` Worker's (its own isolate), as on Cloudflare, where a Durable Object runs apart from the queue consumer's invocation.
          durableObjects: { SPACE_WRITER: { className: 'SpaceWriter', useSQLite: true, ...(WRITER_APART ? { scriptName: 'writer' } : {}) } },
          unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
        },
        ...(WRITER_APART ? [{ ...workerOptions, name: 'writer', durableObjects: { SPACE_WRITER: { className: 'SpaceWriter', useSQLite: true } } }] : []),
      ],
    } as Parameters<typeof convertV4MiniflareOptions>[0]),
  );
  try {
    await mf.ready;
    const db = await mf.getD1Database('DB', 'api');
    const root = path.resolve(import.meta.dirname, '../..');
    for (const file of readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.sql')).sort()) {
      for (const statement of unstable_splitSqlQuery(readFileSync(path.join(root, 'migrations', file), 'utf8'))) if (statement.trim()) await db.prepare(statement).run();
    }
    const apiUrl = (await mf.unsafeGetDirectURL('api')).origin;
    const call = client(apiUrl);
    const inspector = await inspect(inspectorPort, 'api');
    const writerInspector = WRITER_APART ? await inspect(inspectorPort, 'writer') : undefined;
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: 1000 });
    const { token, org } = await seedUser(call);
    const repoUrl = (name: string) => `${server.url.replace('//', `//${server.username}:${server.password}@`)}/repos/${name}.git`;
    /** Queues an operation through the API, then runs it in the Worker as the queue consumer would. */
    // `profiled`: with a CPU profile; not the 300 MiB import, whose streams the profiler slows past a request's time limit.
    const operate = async (spaceId: string, direction: 'import' | 'export', body: Record<string, unknown>, profiled = true) => {
      await call('POST', `/v1/spaces/${spaceId}/git/${direction}`, token, body);
      const op = await db.prepare(`select id from git_sync_operations where space_id = ? and state = 'pending' order by created_at desc limit 1`).bind(spaceId).first<{ id: string }>();
      const heap = sampleHeap(inspector, 100, Boolean(process.env.GIT_SYNC_BENCH_HEAP), Boolean(process.env.GIT_SYNC_BENCH_ALLOC));
      const writerHeap = writerInspector && sampleHeap(writerInspector, 100, Boolean(process.env.GIT_SYNC_BENCH_HEAP), Boolean(process.env.GIT_SYNC_BENCH_ALLOC));
      let writerPeak: (HeapPeak & { profile?: HeapProfileNode; allocated?: HeapProfileNode }) | undefined;
      if (profiled) await inspector.send('Profiler.start');
      let peak: (HeapPeak & { profile?: HeapProfileNode; allocated?: HeapProfileNode }) | undefined;
      let profile: CpuProfile | undefined;
      let runs = 0;
      const measured = await measureWorkerd(async () => {
        try {
          // A run that handed over (its budget, GIT_RUN_BUDGET_MS, ran out) queued its continuation: delivered here as the
          // queue would, until the operation ends.
          for (let run = 1; ; run++) {
            const res = await postWithoutTimeout(`${apiUrl}/__bench/git-sync/run/${op!.id}`);
            if (res.status !== 200) throw new Error(`run: ${res.status} ${res.text}`);
            const state = await db.prepare(`select state from git_sync_operations where id = ?`).bind(op!.id).first<string>('state');
            runs = run;
            if (state !== 'running' || run >= 20) break;
          }
        } finally {
          if (profiled) profile = (await inspector.send<{ profile: CpuProfile }>('Profiler.stop')).profile;
          peak = await heap.stop();
          writerPeak = await writerHeap?.stop();
        }
      }).catch((error: unknown) => {
        // An isolate the cap killed: which one, by the last heap each was seen with.
        const seen = (p?: HeapPeak) => (p ? `${p.usedMB.toFixed(1)} MB used / ${p.totalMB.toFixed(1)} MB, ${p.samples} samples` : 'none');
        throw new Error(`${error instanceof Error ? error.message : String(error)} (heap peaks seen: ${WRITER_APART ? `the Worker's ${seen(peak)}; the SpaceWriter's ${seen(writerPeak)}` : seen(peak)})`);
      });
      const row = await db.prepare(`select state, error, stats from git_sync_operations where id = ?`).bind(op!.id).first<{ state: string; error: string | null; stats: string | null }>();
      if (row?.state !== 'success') throw new Error(`the ${direction} ended as ${row?.state}: ${row?.error}`);
      return { ...measured, heap: peak!, writerHeap: writerPeak, profile, stats: { requests: 0, blobsFetched: 0, blobsStreamed: 0, ...(JSON.parse(row.stats ?? '{}') as Record<string, unknown>), runs } as Record<string, unknown> };
    };
    /** An operation under the cap that the cap killed (workerd aborted, restarted by Miniflare): said, and the run ends. */
    const killed = (label: string, error: unknown) => {
      if (!cap) throw error;
      console.log(`${label.padEnd(58)} FAILED under the ${cap} MB heap cap: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    };
    const gitOut = (repo: string, args: string[]) => execFileSync('git', ['-C', path.join(server.root, `${repo}.git`), ...args], { encoding: 'utf8' }).trim();
    /** The commit of the space's head revision (its `git.oid`): the imported one, or the one the export pushed. */
    const headCommitOf = async (spaceId: string) =>
      (
        await db
          .prepare(`select g.oid from spaces s join revision_git g on g.revision_id = s.revision_id where s.id = ?`)
          .bind(spaceId)
          .first<{ oid: string }>()
      )?.oid ?? '(none)';
    /** What the operation made, to compare between runs: the space's content, its head's commit, the repository's branch. */
    const result = async (spaceId: string, repo: string) => {
      const made = await spaceFingerprint(call, token, spaceId);
      const commit = await headCommitOf(spaceId);
      const branch = gitOut(repo, ['rev-parse', 'refs/heads/main']);
      const changed = gitOut(repo, ['rev-list', '--count', 'refs/heads/main']) === '1' ? 'the first commit' : `${gitOut(repo, ['diff', '--name-only', 'refs/heads/main~1', 'refs/heads/main']).split('\n').length} files changed by it`;
      return (
        `    result: ${made.pages} pages, ${made.files} files (digest ${made.digest}); head's commit ${commit.slice(0, 12)}; ` +
        `the repository's main ${branch.slice(0, 12)} (tree ${gitOut(repo, ['rev-parse', 'refs/heads/main^{tree}']).slice(0, 12)}, ${changed})  load ${loadavg()[0].toFixed(1)}`
      );
    };
    type Peak = HeapPeak & { profile?: HeapProfileNode; allocated?: HeapProfileNode };
    const heapLine = (heap: Peak) =>
      `heap peak ${heap.usedMB.toFixed(1)} MB used / ${heap.totalMB.toFixed(1)} MB total${cap ? ` (cap ${cap} MB)` : ''}, ArrayBuffers ${heap.backingMB.toFixed(1)} MB ` +
      `(${heap.startMB.toFixed(1)} MB before, ${heap.samples} samples${heap.missed ? `, ${heap.missed} unanswered` : ''})`;
    const report = (label: string, r: { ms: number; beforeMB: number; peakMB: number; cpuMs: number; heap: Peak; writerHeap?: Peak; profile?: CpuProfile; stats: Record<string, unknown> }, extra: string) => {
      console.log(
        `${label.padEnd(58)} ${r.ms.toFixed(0).padStart(7)} ms  workerd CPU ${r.cpuMs.toFixed(0)} ms  ${WRITER_APART ? "the Worker's isolate" : 'isolate (Worker and SpaceWriter)'} ${heapLine(r.heap)}  ` +
          `workerd RSS ${r.beforeMB.toFixed(0)} MB before, peak ${r.peakMB.toFixed(0)} MB (+${(r.peakMB - r.beforeMB).toFixed(0)} MB, with local D1 and R2)  ${extra}`,
      );
      if (r.writerHeap) console.log(`    the SpaceWriter's isolate (its own): ${heapLine(r.writerHeap)}`);
      if (r.writerHeap?.profile) {
        console.log("    the SpaceWriter's live heap at its peak (sampled), by allocating function:");
        console.log(summarizeHeapProfile(r.writerHeap.profile, modules).map(([f, bytes]) => `      ${(bytes / 2 ** 20).toFixed(1).padStart(6)} MB  ${f}`).join('\n'));
      }
      const phases = (r.stats.phases ?? {}) as Record<string, number>;
      console.log(`    phases (wall): ${Object.entries(phases).map(([k, v]) => (k.endsWith('Ms') ? `${k} ${Math.round(v)} ms` : `${k} ${v}`)).join(', ') || 'not reported'}`);
      if (r.heap.profile) {
        console.log('    live heap at its peak (sampled), by allocating function:');
        console.log(summarizeHeapProfile(r.heap.profile, modules).map(([f, bytes]) => `      ${(bytes / 2 ** 20).toFixed(1).padStart(6)} MB  ${f}`).join('\n'));
      }
      if (r.heap.allocated) {
        console.log('    allocated during the operation (sampled, garbage included), by allocating function:');
        console.log(summarizeHeapProfile(r.heap.allocated, modules, 20, '(all allocations sampled)').map(([f, bytes]) => `      ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MB  ${f}`).join('\n'));
      }
      if (!r.profile) return;
      // GIT_SYNC_BENCH_CPUPROFILE=<file>: the operation's CPU profile written there (open it in Chrome DevTools).
      if (process.env.GIT_SYNC_BENCH_CPUPROFILE) writeFileSync(process.env.GIT_SYNC_BENCH_CPUPROFILE, JSON.stringify(r.profile));
      const cpu = summarizeProfile(r.profile, modules);
      console.log(`    isolate CPU ${cpu.busyMs.toFixed(0)} ms of ${cpu.wallMs.toFixed(0)} ms (the rest waiting on D1, R2, the Git server): ${cpu.byArea.map(([a, ms]) => `${a} ${ms.toFixed(0)}`).join(', ')}`);
      if (process.env.GIT_SYNC_BENCH_FUNCTIONS) console.log(cpu.byFunction.map(([f, ms]) => `      ${ms.toFixed(0).padStart(6)} ms  ${f}`).join('\n'));
    };

    /**
     * The page list of an imported space in one request (streamed a top-level page at a time): the API Worker's heap while
     * it answers (issue 40), sampled every 10 ms from just before the request to its last byte.
     */
    const pageList = async (spaceId: string) => {
      const listHeap = sampleHeap(inspector, 10, Boolean(process.env.GIT_SYNC_BENCH_HEAP));
      const listBegan = performance.now();
      const listBytes = await fetch(`${apiUrl}/v1/spaces/${spaceId}/content/pages`, { headers: { authorization: `Bearer ${token}` } })
        .then((res) => (res.ok ? res.arrayBuffer() : Promise.reject(new Error(`GET content/pages: ${res.status}`))))
        .then((body) => body.byteLength)
        .catch(async (error: unknown) => {
          // The heap it reached before it failed (a cap killing the isolate): said with the error.
          const seen = await listHeap.stop().catch(() => undefined);
          throw new Error(`${error instanceof Error ? error.message : String(error)}${seen ? ` (the Worker's heap seen: ${seen.usedMB.toFixed(1)} MB used, ${seen.startMB.toFixed(1)} MB at the request's start, ${seen.samples} samples)` : ''}`);
        });
      const listMs = performance.now() - listBegan;
      const listPeak = await listHeap.stop();
      console.log(`    GET content/pages (${(listBytes / 2 ** 20).toFixed(1)} MiB of JSON) in ${listMs.toFixed(0)} ms: the Worker's ${heapLine(listPeak)}, ${(listPeak.usedMB - listPeak.startMB).toFixed(1)} MB over its start`);
      if (listPeak.profile) console.log(summarizeHeapProfile(listPeak.profile, modules).map(([f, bytes]) => `      ${(bytes / 2 ** 20).toFixed(1).padStart(6)} MB  ${f}`).join('\n'));
    };
    console.log('Git Sync in workerd (the real Worker in Miniflare; the operation run as the queue consumer runs it):');
    if (REAL_REPO) {
      // A repository of your own (GIT_SYNC_BENCH_REPO, a bare clone; GIT_SYNC_BENCH_DIR its project directory): its import alone, profiled.
      // GIT_SYNC_BENCH_NO_FILTER=1: served as a plain git http-backend serves it (`uploadpack.allowFilter` off).
      await control('serve', { name: 'workerd-real', source: REAL_REPO, ...(process.env.GIT_SYNC_BENCH_NO_FILTER ? { allowFilter: false } : {}) });
      const space = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'Git Sync bench, a real repository' })).body as { id: string };
      const label = `import: ${path.basename(REAL_REPO)}${REAL_DIR ? ` (${REAL_DIR})` : ''}`;
      const body = { url: repoUrl('workerd-real'), ref: 'refs/heads/main', force: true, ...(REAL_DIR ? { repoProjectDirectory: REAL_DIR } : {}) };
      const real = await operate(space.id, 'import', body, !process.env.GIT_SYNC_BENCH_NO_PROFILE).catch((error) => killed(label, error));
      if (real) {
        report(label, real, `${real.stats.fetch ?? 'full'} fetch, ${real.stats.requests} requests, ${(Number(real.stats.packBytes) / 2 ** 20).toFixed(2)} MB of packs, ${real.stats.blobsFetched} blobs in batches, ${real.stats.blobsStreamed} streamed, load ${loadavg()[0].toFixed(1)}`);
        // The import ended; what follows reads its result through the API. Under a cap, a read the cap kills is said as
        // such (the page list of a space whose one top-level group holds most pages is one the import is not): it was
        // an uncaught "fetch failed" that read as the import's crash.
        try {
          await pageList(space.id);
          console.log(await result(space.id, 'workerd-real'));
        } catch (error) {
          if (!cap) throw error;
          console.log(`    the import ended 'success'; reading its result through the API (GET content/pages, then the files) FAILED under the ${cap} MB heap cap: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      // GIT_SYNC_BENCH_FOLLOW_UPS=1: then an export with nothing to export, and the import of a push of three pages (what a
      // synced space's next operations cost: without filters, the trees kept of the commit read last, tree-cache.ts).
      if (real && process.env.GIT_SYNC_BENCH_FOLLOW_UPS) {
        const line = (r: { stats: Record<string, unknown> }) =>
          `${r.stats.fetch ?? 'full'} fetch${r.stats.treesKept ? ` (trees kept: ${r.stats.treesKept})` : ''}, ${r.stats.requests} requests, ${(Number(r.stats.packBytes) / 2 ** 20).toFixed(2)} MB of packs, load ${loadavg()[0].toFixed(1)}`;
        // GIT_SYNC_BENCH_PROFILE_FOLLOW_UPS=1: the exports profiled too (CPU, and the heap with GIT_SYNC_BENCH_HEAP=1).
        const profileFollowUps = Boolean(process.env.GIT_SYNC_BENCH_PROFILE_FOLLOW_UPS);
        // The project directory, as GitBook's integrations send it with every operation. Before, the follow-ups left it out:
        // the "no-op" export wrote the whole space at the repository's root (804 files added). GIT_SYNC_BENCH_FOLLOW_UPS_AT_ROOT=1
        // does so on purpose: the export of a whole space into a directory that has none of it (its worst case).
        const followDir = REAL_DIR && !process.env.GIT_SYNC_BENCH_FOLLOW_UPS_AT_ROOT ? { repoProjectDirectory: REAL_DIR } : {};
        const noopLabel = followDir.repoProjectDirectory || !REAL_DIR ? 'export: nothing changed' : 'export: the whole space, at the root (FOLLOW_UPS_AT_ROOT)';
        const noop = await operate(space.id, 'export', { url: repoUrl('workerd-real'), ref: 'refs/heads/main', commitMessage: 'Nothing to export', ...followDir }, profileFollowUps).catch((error) => killed(noopLabel, error));
        if (noop) {
          const commits = gitOut('workerd-real', ['rev-list', '--count', 'refs/heads/main']);
          const changed = commits === '1' ? 'no commit' : `a commit: ${gitOut('workerd-real', ['diff', '--shortstat', 'refs/heads/main~1', 'refs/heads/main'])}; ${gitOut('workerd-real', ['diff', '--name-status', 'refs/heads/main~1', 'refs/heads/main']).split('\n').slice(0, 6).join(' | ')}`;
          report(noopLabel, noop, `${line(noop)}; ${changed}`);
        }
        // One page edited through a change request, merged, exported: an export should cost what the change is.
        {
          const listed = ((await call('GET', `/v1/spaces/${space.id}/content/pages`, token)).body as { pages: Array<{ id: string; type: string; pages?: unknown[] }> }).pages;
          const flat = (list: typeof listed): typeof listed => list.flatMap((p) => [p, ...flat((p.pages ?? []) as typeof listed)]);
          const page = flat(listed).filter((p) => p.type === 'document')[1] ?? flat(listed)[0];
          const editCr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'One edit' })).body as { number: number };
          await call('POST', `/v1/spaces/${space.id}/change-requests/${editCr.number}/content?compat=false`, token, { changes: [{ operation: 'update_page', page: page.id, document: { markdown: 'Edited in the app.\n\nOne paragraph.\n' } }] });
          await call('POST', `/v1/spaces/${space.id}/change-requests/${editCr.number}/merge`, token);
          const editLabel = 'export: one page edited';
          const edited = await operate(space.id, 'export', { url: repoUrl('workerd-real'), ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: One edit', ...followDir }, profileFollowUps).catch((error) => killed(editLabel, error));
          if (edited) report(editLabel, edited, `${line(edited)}; the commit: ${gitOut('workerd-real', ['diff', '--stat', 'refs/heads/main~1', 'refs/heads/main']).trim().split('\n').slice(-3).join(' | ')}`);
        }
        const pages = gitOut('workerd-real', ['ls-tree', '-r', '--name-only', 'refs/heads/main']).split('\n').filter((p) => /\.md$/i.test(p) && !/(^|\/)(SUMMARY|README)\.md$/i.test(p) && (!REAL_DIR || p.startsWith(`${REAL_DIR}/`))).slice(0, 3);
        const files = Object.fromEntries(pages.map((p) => [p, `${gitOut('workerd-real', ['show', `refs/heads/main:${p}`])}\n\nOne sentence added by a push.\n`]));
        await control('commit', { name: 'workerd-real', files, message: 'Edit three pages' });
        const pushLabel = `import again after a push of ${pages.length} pages`;
        const pushed = await operate(space.id, 'import', { url: repoUrl('workerd-real'), ref: 'refs/heads/main', ...followDir }, false).catch((error) => killed(pushLabel, error));
        if (pushed) report(pushLabel, pushed, line(pushed));
      }
      writerInspector?.close();
      return inspector.close();
    }
    await control('serve', { name: 'workerd-pages', source: pagesRepo.path });
    await control('serve', { name: 'workerd-large', source: largeRepo.path });
    for (const repo of docsRepos) await control('serve', { name: `workerd-docs-${repo.pages}`, source: repo.path });
    if (!argv.has('--large-only') && !argv.has('--docs-only')) {
      const pagesSpace = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'Git Sync bench' })).body as { id: string };
      const importLabel = `import: ${BENCH_PAGES} pages, ${(pagesRepo.bytes / 2 ** 20).toFixed(0)} MiB`;
      const imported = await operate(pagesSpace.id, 'import', { url: repoUrl('workerd-pages'), ref: 'refs/heads/main', force: true }).catch((error) => killed(importLabel, error));
      if (!imported) return;
      report(importLabel, imported, `${imported.stats.requests} requests, ${imported.stats.blobsFetched} blobs in batches`);
      console.log(await result(pagesSpace.id, 'workerd-pages'));

      // A one-page push re-imported: the D1 bytes it adds, by table (issue 42: a one-page edit at most its page's Markdown).
      const editedPath = 'section-3/page-65.md';
      const editedText = `${gitOut('workerd-pages', ['show', `refs/heads/main:${editedPath}`]).replace('Paragraph 3 of page 65', 'Paragraph three of page 65')}\n\nOne sentence added by a push.\n`;
      await control('commit', { name: 'workerd-pages', files: { [editedPath]: editedText }, message: 'Edit one page' });
      const sizesBefore = await tableSizes(db);
      const reimportLabel = 'import again after a one-page push';
      const reimported = await operate(pagesSpace.id, 'import', { url: repoUrl('workerd-pages'), ref: 'refs/heads/main' }).catch((error) => killed(reimportLabel, error));
      if (!reimported) return;
      const was = new Map(sizesBefore.map((s) => [s.name, s.bytes]));
      const added = (await tableSizes(db)).map((s) => ({ name: s.name.trim(), bytes: s.bytes - (was.get(s.name) ?? 0) })).filter((s) => s.bytes !== 0).sort((a, b) => b.bytes - a.bytes);
      const addedBytes = added.reduce((n, s) => n + s.bytes, 0);
      const markdownBytes = Buffer.byteLength(editedText);
      report(reimportLabel, reimported, `${reimported.stats.requests} requests`);
      console.log(
        `    D1 bytes the re-import added: ${addedBytes} (${(addedBytes / markdownBytes).toFixed(2)}× the edited page's ${markdownBytes} bytes of Markdown): ` +
          added.slice(0, 8).map((s) => `${s.name} ${s.bytes}`).join(', '),
      );
      // Every table and index, by who writes it (issue 42 item 1: what a re-import adds beyond what an app edit adds).
      console.log(`    by writer: ${Object.entries(bytesByWriter(added)).map(([writer, bytes]) => `${writer} ${bytes}`).join(', ')}`);
      console.log(`    every table and index: ${added.map((s) => `${s.name} ${s.bytes}`).join(', ')}`);
      // The same page edited through the API (a change request of one update, merged), as an editor saves it: what a
      // re-import's content part is compared with (issue 40: a re-import at most what an app edit of the page writes).
      {
        const listed = ((await call('GET', `/v1/spaces/${pagesSpace.id}/content/pages`, token)).body as { pages: Array<{ id: string; git?: { path: string }; pages?: unknown[] }> }).pages;
        const flat = (list: typeof listed): typeof listed => list.flatMap((p) => [p, ...flat((p.pages ?? []) as typeof listed)]);
        const page = flat(listed).find((p) => p.git?.path === editedPath)!;
        // The same kind of change as the push's: a word changed and a sentence added.
        const appText = `${editedText.replace('Paragraph 4 of page 65', 'Paragraph four of page 65')}\nAnother sentence added in the app.\n`;
        const sizesBeforeEdit = await tableSizes(db);
        const editCr = (await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests`, token, { subject: 'One edit' })).body as { number: number };
        await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests/${editCr.number}/content?compat=false`, token, { changes: [{ operation: 'update_page', page: page.id, document: { markdown: appText } }] });
        await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests/${editCr.number}/merge`, token);
        const wasBeforeEdit = new Map(sizesBeforeEdit.map((s) => [s.name, s.bytes]));
        const edit = (await tableSizes(db)).map((s) => ({ name: s.name.trim(), bytes: s.bytes - (wasBeforeEdit.get(s.name) ?? 0) })).filter((s) => s.bytes !== 0).sort((a, b) => b.bytes - a.bytes);
        const editBytes = edit.reduce((n, s) => n + s.bytes, 0);
        console.log(`    the same page edited through the API (a change request merged): ${editBytes} D1 bytes (${(editBytes / Buffer.byteLength(appText)).toFixed(2)}× its Markdown); by writer: ${Object.entries(bytesByWriter(edit)).map(([writer, bytes]) => `${writer} ${bytes}`).join(', ')}`);
        console.log(`      every table and index: ${edit.map((s) => `${s.name} ${s.bytes}`).join(', ')}`);
      }

      // Every page edited through a change request, merged: the export writes all of them back (its worst case).
      const pages = ((await call('GET', `/v1/spaces/${pagesSpace.id}/content/pages`, token)).body as { pages: Array<{ id: string; type: string; pages?: unknown[] }> }).pages;
      const ids: string[] = [];
      const walk = (list: Array<{ id: string; type: string; pages?: unknown[] }>) => {
        for (const p of list) {
          if (p.type === 'document') ids.push(p.id);
          walk((p.pages ?? []) as typeof list);
        }
      };
      walk(pages);
      const cr = (await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests`, token, { subject: 'Edit every page' })).body as { number: number };
      for (let i = 0; i < ids.length; i += 50) {
        await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests/${cr.number}/content?compat=false`, token, {
          changes: ids.slice(i, i + 50).map((page, j) => ({ operation: 'update_page', page, document: { markdown: `Edited page ${i + j}.\n\nA new paragraph written in the platform.\n` } })),
        });
      }
      await call('POST', `/v1/spaces/${pagesSpace.id}/change-requests/${cr.number}/merge`, token);
      const exportLabel = `export: ${ids.length} pages edited, one commit pushed`;
      const exported = await operate(pagesSpace.id, 'export', { url: repoUrl('workerd-pages'), ref: 'refs/heads/main', commitMessage: 'GITBOOK-1: Edit every page' }).catch((error) => killed(exportLabel, error));
      if (!exported) return;
      report(exportLabel, exported, `${exported.stats.requests} requests`);
      console.log(await result(pagesSpace.id, 'workerd-pages'));

    }
    // Many pages, few bytes of assets (GitBook's own documentation's shape): what grows is what the SpaceWriter writes.
    // Several sizes (GIT_SYNC_BENCH_DOCS_PAGES=800,2400,5000) in one run: their ratios, in the same conditions.
    for (const docsRepo of argv.has('--large-only') || argv.has('--pages-only') ? [] : docsRepos) {
      const docsSpace = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'Git Sync bench, docs' })).body as { id: string };
      const docsLabel = `import: ${docsRepo.pages} pages shaped like GitBook's docs, ${(docsRepo.bytes / 2 ** 20).toFixed(0)} MiB`;
      const name = `workerd-docs-${docsRepo.pages}`;
      const docs = await operate(docsSpace.id, 'import', { url: repoUrl(name), ref: 'refs/heads/main', force: true }, !process.env.GIT_SYNC_BENCH_NO_PROFILE).catch((error) => killed(docsLabel, error));
      if (!docs) return;
      report(docsLabel, docs, `${docs.stats.requests} requests, ${docs.stats.blobsFetched} blobs in batches, ${(docs.ms / docsRepo.pages).toFixed(1)} ms a page, ${docs.stats.runs} run(s) (the phases are the last run's), load ${loadavg()[0].toFixed(1)}`);
      console.log(await result(docsSpace.id, name));
      await pageList(docsSpace.id);
    }
    // --pages-only: the 200-page import and export alone; --docs-only: the docs-shaped import alone (quick runs, e.g. to find the smallest heap cap they pass).
    if (argv.has('--pages-only') || argv.has('--docs-only')) {
      writerInspector?.close();
      return inspector.close();
    }
    const largeSpace = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'Git Sync bench, large' })).body as { id: string };
    const largeLabel = `import: ${BENCH_PAGES} pages, ${(largeRepo.bytes / 2 ** 20).toFixed(0)} MiB (assets streamed to R2)`;
    // GIT_SYNC_BENCH_PROFILE_LARGE=1: profiled too, sampling every 10 ms (every 1 ms slows its streams past a request's time limit).
    const profileLarge = Boolean(process.env.GIT_SYNC_BENCH_PROFILE_LARGE);
    if (profileLarge) await inspector.send('Profiler.setSamplingInterval', { interval: 10_000 });
    const large = await operate(largeSpace.id, 'import', { url: repoUrl('workerd-large'), ref: 'refs/heads/main', force: true }, profileLarge).catch((error) => killed(largeLabel, error));
    if (!large) return;
    report(
      largeLabel,
      large,
      `${large.stats.requests} requests, ${(Number(large.stats.packBytes) / 2 ** 20).toFixed(2)} MB of packs held, ${large.stats.blobsFetched} blobs in batches, ${large.stats.blobsStreamed} streamed`,
    );
    console.log(await result(largeSpace.id, 'workerd-large'));
    if (process.env.GIT_SYNC_BENCH_R2) {
      // The same bytes written to this runtime's R2 without Git (git-sync-worker.ts): Miniflare's share of the assets phase.
      const res = await postWithoutTimeout(`${apiUrl}/__bench/git-sync/r2`, { sizes: streamedAssetSizes(SCALE) });
      if (res.status !== 200) throw new Error(`r2: ${res.status} ${res.text}`);
      const r2 = JSON.parse(res.text) as { bytes: number; putMs: number; storeMs: number };
      const assetsMs = Number((large.stats.phases as Record<string, number> | undefined)?.assetsMs ?? NaN);
      const served = await gitServesBlobs('workerd-large', largeAssetOids(largeRepo.path));
      console.log(
        `    the same ${(r2.bytes / 2 ** 20).toFixed(0)} MiB (${streamedAssetSizes(SCALE).length} objects) made in the Worker: plain R2 writes (putStream) ${r2.putMs} ms; ` +
          `the import's asset store (hash, stage, copy) ${r2.storeMs} ms; the Git server serving those blobs one by one to Node ${served.ms} ms (${(served.bytes / 2 ** 20).toFixed(0)} MiB of answers); ` +
          `so of assetsMs ${assetsMs} ms: storing ${r2.storeMs} ms (of which Miniflare's R2 writes ~${r2.putMs} ms), the Git server ~${served.ms} ms, ` +
          `reading the answers in the Worker (pkt-lines, inflate, checks) ~${Math.round(assetsMs - r2.storeMs - served.ms)} ms  load ${loadavg()[0].toFixed(1)}`,
      );
    }
    writerInspector?.close();
    inspector.close();
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}
