/**
 * The Git Sync benchmark's view inside the Worker's isolate (git-sync.ts), over workerd's V8 inspector (CDP on a
 * WebSocket, Miniflare's `inspectorPort`): the isolate's own JS heap, sampled with `Runtime.getHeapUsage` while an
 * operation runs (the process's RSS also holds Miniflare's local D1 and R2: an upper bound only), and a CPU profile
 * of the operation, its samples summed by the source file each function came from (esbuild's `// src/...` comments
 * in the unminified bundle mark where each file's code starts).
 * The Worker and its Durable Object (the SpaceWriter) run in the same isolate: the figures cover both.
 */
import type { WorkerModules } from './routes';

export interface Inspector {
  send<T = any>(method: string, params?: object): Promise<T>;
  close(): void;
}

/** One CDP session on workerd's inspector, on the worker named `name`. */
export async function inspect(port: number, name: string): Promise<Inspector> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/core:user:${name}`);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve: (result: any) => void; reject: (error: Error) => void }>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) pending?.reject(new Error(message.error.message));
    else pending?.resolve(message.result);
  });
  return {
    // workerd leaves some commands unanswered (HeapProfiler.collectGarbage without HeapProfiler.enable): a bound, never a hang.
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the inspector did not answer ${method}`));
        }, 30_000);
        waiting.set(id, { resolve: (value) => (clearTimeout(timer), resolve(value)), reject: (error) => (clearTimeout(timer), reject(error)) });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

export interface HeapPeak {
  /** The largest `usedSize` seen (bytes of live and not yet collected objects), and `totalSize` (the heap V8 reserved). */
  usedMB: number;
  totalMB: number;
  /** The largest `backingStorageSize` seen: bytes of ArrayBuffers (Uint8Arrays' bytes), outside V8's heap and its cap; 0 when V8 does not say. */
  backingMB: number;
  /** usedSize when sampling began. */
  startMB: number;
  samples: number;
  /** Samples the inspector did not answer in time (a starved isolate on a loaded machine). */
  missed: number;
}

/** A sampling heap profile's node (HeapProfiler.getSamplingProfile): bytes of live objects allocated there. */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapProfileNode[];
}

/**
 * Samples the isolate's heap every `everyMs` until `stop()`, which answers the peaks. `profileAtPeak`: V8's
 * sampling heap profiler runs meanwhile, and its profile of the live objects is taken each time the used heap
 * passes its peak by 4 MB: what fills the heap at its fullest (GIT_SYNC_BENCH_HEAP=1 in git-sync.ts).
 * `profileAllocations` instead: every allocation sampled, collected or not, profiled once at the end: what
 * makes the most garbage (GIT_SYNC_BENCH_ALLOC=1).
 */
export function sampleHeap(inspector: Inspector, everyMs = 100, profileAtPeak = false, profileAllocations = false): { stop(): Promise<HeapPeak & { profile?: HeapProfileNode; allocated?: HeapProfileNode }> } {
  let used = 0;
  let total = 0;
  let backing = 0;
  let start = -1;
  let samples = 0;
  let running = true;
  let profiledAt = 0;
  let missed = 0;
  let profile: HeapProfileNode | undefined;
  let allocated: HeapProfileNode | undefined;
  const sampling = profileAtPeak || profileAllocations;
  const loop = (async () => {
    if (sampling) {
      await inspector.send('HeapProfiler.enable');
      // `profileAllocations`: objects the GC collected stay in the profile, so it says what allocated the most
      // bytes during the operation (garbage included), not what is live.
      await inspector.send('HeapProfiler.startSampling', {
        samplingInterval: 65536,
        ...(profileAllocations ? { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } : {}),
      });
    }
    while (running) {
      // On a loaded machine a starved isolate may leave one sample unanswered past the inspector's bound: skipped.
      const usage = await inspector.send<{ usedSize: number; totalSize: number; backingStorageSize?: number }>('Runtime.getHeapUsage').catch(() => null);
      if (!usage) {
        missed++;
        continue;
      }
      if (start < 0) start = usage.usedSize;
      used = Math.max(used, usage.usedSize);
      total = Math.max(total, usage.totalSize);
      backing = Math.max(backing, usage.backingStorageSize ?? 0);
      samples++;
      if (profileAtPeak && !profileAllocations && usage.usedSize > profiledAt + 4 * 2 ** 20) {
        profiledAt = usage.usedSize;
        profile = (await inspector.send<{ profile: { head: HeapProfileNode } }>('HeapProfiler.getSamplingProfile')).profile.head;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    if (profileAllocations) allocated = (await inspector.send<{ profile: { head: HeapProfileNode } }>('HeapProfiler.getSamplingProfile')).profile.head;
    if (sampling) await inspector.send('HeapProfiler.stopSampling');
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { usedMB: used / 2 ** 20, totalMB: total / 2 ** 20, backingMB: backing / 2 ** 20, startMB: Math.max(start, 0) / 2 ** 20, samples, missed, ...(profile ? { profile } : {}), ...(allocated ? { allocated } : {}) };
    },
  };
}

/** Bytes of a heap profile by the function that allocated them (with its source file), largest first, after their total. */
export function summarizeHeapProfile(head: HeapProfileNode, modules: WorkerModules['modules'], top = 15, totalLabel = '(all live objects sampled)'): Array<[string, number]> {
  const marks = sourceMapOf(modules);
  const fileOf = (frame: HeapProfileNode['callFrame']) => {
    const list = marks.get(frame.url.split('/').pop() ?? '');
    if (!list || list.length === 0) return frame.url || '(native)';
    let found = '(bundle)';
    for (const mark of list) {
      if (mark.line > frame.lineNumber) break;
      found = mark.file;
    }
    return found;
  };
  const sizes = new Map<string, number>();
  const visit = (node: HeapProfileNode, caller: string) => {
    const here = `${node.callFrame.functionName || '(anonymous)'} ${fileOf(node.callFrame)}`;
    // A native allocation (a typed array's, a string's) is charged with its caller, which says what it is for.
    const name = node.callFrame.url ? here : `${here} <- ${caller}`;
    if (node.selfSize > 0) sizes.set(name, (sizes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child, node.callFrame.url ? here : caller);
  };
  visit(head, '(root)');
  const total = [...sizes.values()].reduce((n, bytes) => n + bytes, 0);
  return [[totalLabel, total], ...[...sizes].sort((a, b) => b[1] - a[1]).slice(0, top)];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** For each bundled module, the lines where esbuild's `// <source path>` comments start a source file's code. */
function sourceMapOf(modules: WorkerModules['modules']): Map<string, Array<{ line: number; file: string }>> {
  const map = new Map<string, Array<{ line: number; file: string }>>();
  for (const module of modules) {
    const marks: Array<{ line: number; file: string }> = [];
    module.contents.split('\n').forEach((text, line) => {
      // Paths are relative to the checkout; node_modules may be a link to another checkout's (`../main/node_modules/...`).
      const mark = /^\/\/ (?:\.\.\/)*(?:[\w.-]+\/)?((?:src|test|node_modules)\/\S+)$/.exec(text);
      if (mark) marks.push({ line, file: mark[1] });
    });
    map.set(module.path.split('/').pop()!, marks);
  }
  return map;
}

/** The area a source file belongs to, as the report names it. */
function areaOf(file: string): string {
  if (file.startsWith('node_modules/')) {
    const parts = file.split('/');
    return `node_modules/${parts[1].startsWith('@') ? `${parts[1]}/${parts[2]}` : parts[1]}`;
  }
  const service = /^src\/services\/([^/]+)\//.exec(file);
  if (service) return `src/services/${service[1]}`;
  return file.split('/').slice(0, 2).join('/');
}

/**
 * Where the isolate's CPU went while profiled: milliseconds of samples by area (a service of src/services, a
 * package of node_modules, ...) by self time, a native function's (a digest, an R2 call) charged to the area of
 * its innermost caller in the bundle, and the functions with the most self time. The profile's
 * wall time minus its busy samples is time the isolate waited (on D1, R2, the Git server, the writer's calls).
 */
export function summarizeProfile(profile: CpuProfile, modules: WorkerModules['modules'], top = 12): { wallMs: number; busyMs: number; byArea: Array<[string, number]>; byFunction: Array<[string, number]> } {
  const marks = sourceMapOf(modules);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fileOf = (frame: ProfileNode['callFrame']) => {
    const list = marks.get(frame.url.split('/').pop() ?? '');
    if (!list || list.length === 0) return frame.url ? frame.url : `(${frame.functionName || 'native'})`;
    let found = '(bundle)';
    for (const mark of list) {
      if (mark.line > frame.lineNumber) break;
      found = mark.file;
    }
    return found;
  };
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** The innermost frame of the bundle at or above a node: a native function (digest, an R2 call) is charged to its caller. */
  const bundled = (id: number): ProfileNode | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at)!;
      if (marks.get(node.callFrame.url.split('/').pop() ?? '')?.length) return node;
    }
    return undefined;
  };
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!node) return;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') return;
    busy += ms;
    const owner = name === '(garbage collector)' ? undefined : bundled(id);
    const area = owner ? areaOf(fileOf(owner.callFrame)) : name;
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const fn = `${name || '(anonymous)'} ${fileOf(node.callFrame)}${owner && owner !== node ? ` <- ${owner.callFrame.functionName || '(anonymous)'} ${fileOf(owner.callFrame)}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { wallMs: (profile.endTime - profile.startTime) / 1000, busyMs: busy, byArea: sorted(areas), byFunction: sorted(functions) };
}
