/**
 * The CPU each isolate of one workerd process spends on something, from CPU profiles taken through workerd's inspector.
 *
 * Why not the process's CPU alone: Miniflare runs, in the same workerd process as the Worker, isolates that have no
 * counterpart in the Worker's CPU on Cloudflare: local D1 (its entry worker `d1:db:entry` and the database's Durable
 * Object `d1:db`, which runs SQLite), the Cache API (`cache:*`) and the rate limiter (`ratelimit:*`). On Cloudflare, D1
 * runs on D1's own machines, and the cache and the rate limiter are parts of the runtime. The process's CPU
 * (/proc/<pid>/task/<tid>/schedstat) counts them all; a profile of each isolate splits it.
 *
 * How a profile becomes time: V8's sampler interrupts the isolate's thread every interval and records the stack of
 * the isolate that is running there, if any (libsampler: an isolate not in use records nothing), so the samples that
 * are not `(idle)` count the isolate's time on a core (`busyMs`). Sampling costs the isolate some time of its own
 * (recording code objects as they are compiled, above all), so the figure is compared only with another isolate
 * profiled the same way, and the process's CPU is measured on an instance nobody profiles.
 */

/** How long a CDP answer (or the socket's opening) may take before the session counts as lost. */
const ANSWER_MS = 30_000;

/**
 * One CDP session over workerd's inspector, on the isolate of service `service` (a user Worker is `core:user:<name>`).
 * Every wait ends: a socket that closes, fails or stays silent for ANSWER_MS rejects what is pending, naming the service
 * and the method (a lost session used to leave its `send` pending forever, and the benchmark with it).
 */
export async function inspect(port: number, service: string) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/${service}`);
  const pending = new Map<number, { method: string; resolve: (result: any) => void; reject: (error: Error) => void }>();
  let lost: Error | undefined;
  const lose = (why: string) => {
    lost ??= new Error(`inspector session of ${service}: ${why}`);
    for (const { method, reject } of pending.values()) reject(new Error(`${lost.message} (awaiting ${method})`));
    pending.clear();
  };
  socket.addEventListener('close', (event) => lose(`closed (${event.code})`));
  socket.addEventListener('error', () => lose('socket error'));
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${service} ${waiting.method}: ${JSON.stringify(message.error)}`));
    else waiting.resolve(message.result);
  });
  await deadline(
    new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('close', () => reject(lost), { once: true });
    }),
    `inspector session of ${service}: not open after ${ANSWER_MS} ms`,
    () => socket.close(),
  );
  let next = 1;
  return {
    send: (method: string, params: object = {}) => {
      if (lost) return Promise.reject(lost);
      const id = next++;
      const answer = new Promise<any>((resolve, reject) => pending.set(id, { method, resolve, reject }));
      socket.send(JSON.stringify({ id, method, params }));
      return deadline(answer, `inspector session of ${service}: no answer to ${method} in ${ANSWER_MS} ms`, () => pending.delete(id));
    },
    close: () => socket.close(),
  };
}

/** `promise`, or a rejection with `message` after ANSWER_MS (then `onTimeout`). */
function deadline<T>(promise: Promise<T>, message: string, onTimeout: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(message));
    }, ANSWER_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The services whose isolates workerd's inspector lists (`/json/list`): the user Workers and Miniflare's own. */
export async function isolatesOf(port: number): Promise<string[]> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(ANSWER_MS) })).json()) as { id: string }[];
  return list.map(({ id }) => id);
}

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The isolate's time on a core in a profile, in ms: each sample that is not idle counts the time since the sample
 * before it, up to the sampling's typical interval (the median of those shorter than ten intervals asked for: on a
 * loaded machine V8 samples less often than asked). A longer gap is time the isolate did not run (it waited for I/O
 * or another isolate ran): it counts one interval.
 */
export function busyMs(profile: CpuProfile, intervalUs: number): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const steady = profile.timeDeltas.filter((delta) => delta > 0 && delta < 10 * intervalUs).sort((a, b) => a - b);
  const typical = steady.length > 0 ? steady[Math.floor(steady.length / 2)] : intervalUs;
  let us = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) us += Math.min(Math.max(profile.timeDeltas[i] ?? 0, 0), typical) || typical;
  });
  return us / 1e3;
}

/**
 * Runs `work` while every isolate of `services` is profiled (sampling every `intervalUs`), and answers what `work`
 * answered with each isolate's time on a core (ms) and profile.
 */
export async function profiled<T>(port: number, services: string[], work: () => Promise<T>, intervalUs = 100) {
  const inspectors = await Promise.all(services.map((service) => inspect(port, service)));
  try {
    for (const inspector of inspectors) {
      await inspector.send('Profiler.enable');
      await inspector.send('Profiler.setSamplingInterval', { interval: intervalUs });
      await inspector.send('Profiler.start');
    }
    const result = await work();
    const profiles: CpuProfile[] = await Promise.all(inspectors.map(async (inspector) => (await inspector.send('Profiler.stop')).profile));
    const cpuMs = new Map(services.map((service, i) => [service, busyMs(profiles[i], intervalUs)]));
    const byService = new Map(services.map((service, i) => [service, profiles[i]]));
    return { result, cpuMs, profiles: byService };
  } finally {
    for (const inspector of inspectors) inspector.close();
  }
}
