/**
 * The Git Sync benchmark's heap cap (git-sync.ts, GIT_SYNC_BENCH_HEAP_CAP_MB=<MB>): workerd runs with V8's heap
 * capped, as Cloudflare caps each isolate (128 MB), so "bounded memory" is proven the way production enforces
 * it, not read off a heap V8 let grow. Miniflare runs workerd without a heap limit: V8 then grows its heap rather
 * than collect, and a peak of "used" bytes counts garbage. Miniflare passes workerd's top-level `v8Flags`
 * (workerd.capnp) from MINIFLARE_WORKERD_V8_FLAGS, split on spaces; `--max-heap-size` bounds the whole V8 heap
 * (young and old generations) of every isolate of the process, where `--max-old-space-size` would leave the
 * young generation on top. Over the cap V8 aborts workerd ("Reached heap limit"), as production ends the isolate.
 * The cap bounds V8's heap: ArrayBuffer backing stores (the bytes of a Uint8Array) are V8's external memory, not
 * in it; the benchmark reports them apart (`backingStorageSize` of Runtime.getHeapUsage).
 */
import { createHash } from 'node:crypto';
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare';

/** The cap asked for (MB), or undefined for none. A value that is not a positive integer is refused, never ignored. */
export function heapCapFromEnv(value = process.env.GIT_SYNC_BENCH_HEAP_CAP_MB): number | undefined {
  if (value === undefined || value === '') return undefined;
  const mb = Number(value);
  if (!Number.isInteger(mb) || mb < 16) throw new Error(`GIT_SYNC_BENCH_HEAP_CAP_MB must be a whole number of MB, at least 16 (got ${value})`);
  return mb;
}

/** Sets the flags every workerd Miniflare starts from now on gets; answers them. */
export function applyHeapCap(mb: number): string {
  const flags = `--max-heap-size=${mb}`;
  process.env.MINIFLARE_WORKERD_V8_FLAGS = flags;
  return flags;
}

// A Worker that holds `mb` MB of JavaScript objects (arrays of doubles: V8's heap, not external memory) until it answers.
const HOLDER = `export default { async fetch(request) {
  const mb = Number(new URL(request.url).searchParams.get('mb'));
  const held = [];
  for (let i = 0; i < mb * 16; i++) held.push(new Array(8192).fill(i + 0.5));
  return new Response(String(held.length / 16));
} }`;

/**
 * Proves the cap is in force before anything is measured under it: with the same flags, a Worker may hold a
 * quarter of the cap, and one holding twice the cap is killed. Throws if either is not so (a cap that was
 * silently not applied would make every figure under it meaningless).
 */
export async function proveHeapCap(mb: number): Promise<string> {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      log: new Log(LogLevel.NONE),
      cf: false,
      workers: [{ name: 'holder', modules: true, script: HOLDER, compatibilityDate: '2026-11-01' }],
    } as Parameters<typeof convertV4MiniflareOptions>[0]),
  );
  try {
    await mf.ready;
    const hold = async (size: number) => {
      try {
        const res = await mf.dispatchFetch(`http://holder/?mb=${size}`);
        return res.ok && (await res.text()) === String(size);
      } catch {
        return false;
      }
    };
    const small = Math.floor(mb / 4);
    if (!(await hold(small))) throw new Error(`under ${process.env.MINIFLARE_WORKERD_V8_FLAGS}, a Worker could not hold ${small} MB`);
    if (await hold(2 * mb)) throw new Error(`the heap cap is not in force: under ${process.env.MINIFLARE_WORKERD_V8_FLAGS} a Worker held ${2 * mb} MB`);
    return `proven: a Worker holds ${small} MB of JS objects, one holding ${2 * mb} MB is killed`;
  } finally {
    await mf.dispose();
  }
}

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<{ body: unknown }>;
interface PageNode {
  type: string;
  title?: string;
  path?: string;
  pages?: PageNode[];
}

/**
 * What an import made, comparable between a capped and an uncapped run: the numbers of pages and files, and a
 * digest of every page's type, path and title and every file's name and size (ids differ from run to run).
 */
export async function spaceFingerprint(call: Call, token: string, spaceId: string): Promise<{ pages: number; files: number; digest: string }> {
  // The Workers types' Hash (in scope in this project) types digest() apart from Node's: Node's is meant here.
  const hash = createHash('sha256') as unknown as { update(text: string): void; digest(encoding: 'hex'): string };
  let pages = 0;
  const walk = (list: PageNode[]) => {
    for (const page of list) {
      pages++;
      hash.update(`page ${page.type} ${page.path ?? ''} ${page.title ?? ''}\n`);
      walk(page.pages ?? []);
    }
  };
  walk(((await call('GET', `/v1/spaces/${spaceId}/content/pages`, token)).body as { pages: PageNode[] }).pages);
  const files: string[] = [];
  for (let page: string | undefined = ''; page !== undefined; ) {
    const body = (await call('GET', `/v1/spaces/${spaceId}/content/files?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`, token)).body as {
      items: Array<{ name: string; size?: number }>;
      next?: { page: string };
    };
    files.push(...body.items.map((file) => `file ${file.name} ${file.size ?? ''}`));
    page = body.next?.page;
  }
  for (const file of files.sort()) hash.update(`${file}\n`);
  return { pages, files: files.length, digest: hash.digest('hex').slice(0, 12) };
}
