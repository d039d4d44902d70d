/**
 * What a page read of a large group costs the Worker's isolate (issue 40: an imported repository's group of hundreds of
 * pages): `node --import tsx test/bench/page-read-heap.ts [--pages=700] [--page-chars=8000] [--baseline=<checkout>]`.
 * A space whose one group holds `pages` pages of `page-chars` characters of Markdown that does not compress is seeded
 * through the API; then the group is read (`?format=markdown`, then as documents, then through getContentByUrl of its
 * app URL, which answers it as Markdown) while the isolate's heap is sampled over workerd's inspector
 * (git-sync-inspector.ts): its peak of used bytes over the start, the answer's size and time.
 * `--baseline=<checkout>`: the Worker of another checkout of this repository ('base', on the same database) reads the
 * same group after, and its answers are compared byte for byte with this checkout's. PAGE_READ_HEAP_CAP_MB=<MB> caps
 * V8's heap as Cloudflare caps an isolate (git-sync-heap-cap.ts); a read the cap kills is reported as such (it kills
 * workerd: the baseline reads last). A benchmark, not a test.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { inspect, sampleHeap, type Inspector } from './git-sync-inspector';
import { applyHeapCap, heapCapFromEnv, proveHeapCap } from './git-sync-heap-cap';
import { bundle, bundleWorkers, client, seedUser, start } from './routes';
import { incompressibleWords } from '../helpers/d1-answer-sizes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const PAGES = Number(args.get('pages') ?? 700);
const PAGE_CHARS = Number(args.get('page-chars') ?? 8000);
const BASELINE = args.get('baseline');

const cap = heapCapFromEnv(process.env.PAGE_READ_HEAP_CAP_MB);
if (cap) console.log(`V8 heap capped at ${cap} MB (${applyHeapCap(cap)}): ${await proveHeapCap(cap)}`);
const inspectorPort = 9330 + Math.floor(Math.random() * 400);
const scripts = await bundleWorkers();
const baseline = BASELINE ? await bundle('test/bench/worker.ts', BASELINE) : undefined;
const { mf, apiUrl, baseUrl } = await start({ scripts, inspectorPort, baseline });
try {
  const call = client(apiUrl);
  const { token, org } = await seedUser(call);
  const space = (await call('POST', `/v1/orgs/${org.id}/spaces`, token, { title: 'A large group' })).body;
  const cr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'Seed' })).body;
  // compat=false: the answer names the pages it made (the group's id).
  const content = `/v1/spaces/${space.id}/change-requests/${cr.number}/content?compat=false`;
  const group = (await call('POST', content, token, { changes: [{ operation: 'insert_page', type: 'group', title: 'Plugins' }] })).body.changes[0].page.id as string;
  const began = performance.now();
  for (let from = 0; from < PAGES; from += 50) {
    const changes = Array.from({ length: Math.min(50, PAGES - from) }, (_, n) => {
      const i = from + n;
      return { operation: 'insert_page', title: `Page ${i}`, into: group, document: { markdown: `Page ${i}.\n\n${incompressibleWords(i + 1, PAGE_CHARS)}\n` } };
    });
    await call('POST', content, token, { changes });
  }
  await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, token);
  console.log(`A group of ${PAGES} pages of ${PAGE_CHARS} characters seeded in ${((performance.now() - began) / 1000).toFixed(1)} s`);

  const answers = new Map<string, string>();
  // One inspector session per isolate, kept open: workerd leaves a second session's commands unanswered.
  const inspectors = new Map<string, Inspector>();
  const inspectorOf = async (name: string) => {
    let inspector = inspectors.get(name);
    if (!inspector) {
      inspector = await inspect(inspectorPort, name);
      await inspector.send('HeapProfiler.enable');
      inspectors.set(name, inspector);
    }
    return inspector;
  };
  // A read: its label, and its path on a Worker (whose own origin its URLs name: APP_URL is unset).
  const reads: Array<{ label: string; path: (url: string) => string }> = [
    ...['?format=markdown', '?format=document'].map((query) => ({ label: query, path: () => `/v1/spaces/${space.id}/content/page/${group}${query}` })),
    { label: 'getContentByUrl', path: (url: string) => `/v1/urls/content?url=${encodeURIComponent(`${String(space.urls.app).replace(apiUrl, url)}/plugins`)}` },
  ];
  const read = async (name: 'api' | 'base', url: string, { label: query, path }: (typeof reads)[number]) => {
    const inspector = await inspectorOf(name);
    {
      // The garbage of earlier requests collected first, so that the start is the isolate's live heap.
      await inspector.send('HeapProfiler.collectGarbage').catch(() => undefined);
      const heap = sampleHeap(inspector, 5);
      const t0 = performance.now();
      const res = await fetch(`${url}${path(url)}`, { headers: { Authorization: `Bearer ${token}` } }).catch((error: unknown) => error as Error);
      const body = res instanceof Response ? await res.arrayBuffer() : undefined;
      const ms = performance.now() - t0;
      const peak = await heap.stop();
      if (!(res instanceof Response) || !res.ok || !body) {
        console.log(`  ${name} ${query}: FAILED (${res instanceof Response ? res.status : res.message}); heap seen ${peak.usedMB.toFixed(1)} MB used`);
        return;
      }
      // Each Worker answers URLs of its own origin (APP_URL is unset): compared without it.
      const text = new TextDecoder().decode(body).replaceAll(url, '<origin>');
      // node:crypto's hash, typed here by the Workers' types (as git-sync-heap-cap.ts does).
      const hash = createHash('sha256') as unknown as { update(text: string): void; digest(encoding: 'hex'): string };
      hash.update(text);
      const digest = hash.digest('hex').slice(0, 16);
      answers.set(`${name}${query}`, digest);
      console.log(
        `  ${name.padEnd(4)} ${query.padEnd(16)} ${(body.byteLength / 2 ** 20).toFixed(1)} MiB in ${ms.toFixed(0)} ms: heap peak ${peak.usedMB.toFixed(1)} MB used, ` +
          `${(peak.usedMB - peak.startMB).toFixed(1)} MB over its start (${peak.samples} samples), sha256 ${digest}`,
      );
    }
  };
  console.log(`Reads of the group (load ${loadavg()[0].toFixed(1)}):`);
  for (const r of reads) await read('api', apiUrl, r);
  if (baseUrl) {
    for (const r of reads) await read('base', baseUrl, r);
    for (const { label } of reads) console.log(`  ${label}: the same bytes as the baseline's: ${answers.get(`api${label}`) === answers.get(`base${label}`)}`);
  }
  for (const inspector of inspectors.values()) inspector.close();
} finally {
  await mf.dispose();
}
