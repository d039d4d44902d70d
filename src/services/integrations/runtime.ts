import type { Env } from '../../env';
import { integrationOutbound } from './runtime-outbound';

/**
 * The integration runtime: an integration's script (an ES module whose default export's `fetch` handles
 * events, as GitBook's `createIntegration` builds it) runs in an isolate of its own through the Worker
 * Loader (the `LOADER` binding, wrangler.toml `[[worker_loaders]]`), called the way GitBook's runtime calls
 * it: `POST https://integration.invalid/v1` with a multipart form of two fields, `event` (the event, JSON)
 * and `environment` (GitBook's `IntegrationEnvironment`, JSON: API endpoint and fresh tokens, the
 * integration, the installation, secrets, signing secrets). The integration's `contentSecurityPolicy` is
 * sent as the request's `Content-Security-Policy` header.
 *
 * Isolates: one per integration version (loader id `<integrationId>:v<version>:r<wrapper revision>`), loaded
 * on demand (the script is read from R2 only when the isolate is not already warm) and reused by its
 * events; a new version gets a new isolate. Nothing about one event lives in the isolate: tokens and
 * secrets travel with each request, and the isolate's `env` is empty.
 *
 * Logs: the isolate's main module is a small wrapper (`RUNTIME_MODULE`) that imports the script as
 * `integration.js`, replaces `console.log/info/warn/error/debug/trace` before the script runs, and records
 * each line (`{level, message, timestamp}`) against the invocation it belongs to through AsyncLocalStorage
 * (`nodejs_compat`), so events handled at once by one isolate keep their lines apart. It answers the host a
 * JSON report: the script's status (and the start of its body when >= 400), or what it threw, and its lines
 * (at most `MAX_LOG_LINES` of `MAX_LOG_CHARS` each). Lines logged outside any invocation (after the response,
 * in a `waitUntil`) belong to no event and are dropped.
 *
 * Network: the isolate's `globalOutbound` is `IntegrationOutbound` (runtime-outbound.ts): the script reaches
 * the API at its `apiEndpoint` with its tokens (served by this Worker), and other hosts only through the
 * outbound guard. Limits: `SCRIPT_LIMITS` (CPU time and subrequests, enforced by the platform) and
 * `SCRIPT_TIMEOUT_MS` of wall time, after which the attempt fails (the isolate is not killed).
 */

/** The URL GitBook's runtime posts events to; the isolate has no other way in. */
export const RUNTIME_URL = 'https://integration.invalid/v1';
/** The scripts' compatibility date: this Worker's own (wrangler.toml `compatibility_date`). */
export const SCRIPT_COMPATIBILITY_DATE = '2026-11-01';
/** Per invocation: CPU milliseconds, and subrequests (API calls included). */
export const SCRIPT_LIMITS = { cpuMs: 1000, subRequests: 50 } as const;
/** Wall time an invocation may take before its attempt is counted as failed. */
export const SCRIPT_TIMEOUT_MS = 30_000;
export const MAX_LOG_LINES = 100;
export const MAX_LOG_CHARS = 2000;
/** Part of the loader id: raise it when RUNTIME_MODULE changes, so warm isolates are not reused with the old one. */
const RUNTIME_REVISION = 1;

/** What a deployment without the Worker Loader answers for an integration that has a script. */
export const NO_LOADER_MESSAGE =
  'This deployment cannot run integration scripts: it has no Worker Loader binding (wrangler.toml `[[worker_loaders]] binding = "LOADER"`, Cloudflare dynamic Workers)';

export type TraceLevel = 'debug' | 'info' | 'warn' | 'error';
export const TRACE_LEVELS: readonly TraceLevel[] = ['debug', 'info', 'warn', 'error'];

export interface TraceLine {
  level: TraceLevel;
  message: string;
  timestamp: string;
}

/**
 * The isolate's main module. `integration.js` is imported on the first event (inside it, so what the module
 * logs or throws while loading lands in that event's trace).
 */
export const RUNTIME_MODULE = `
import { AsyncLocalStorage } from 'node:async_hooks';

const MAX_LINES = ${MAX_LOG_LINES};
const MAX_CHARS = ${MAX_LOG_CHARS};
const BODY_EXCERPT = 300;
const invocation = new AsyncLocalStorage();

function text(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.stack || String(value);
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

for (const [method, level] of [['log', 'info'], ['info', 'info'], ['warn', 'warn'], ['error', 'error'], ['debug', 'debug'], ['trace', 'debug']]) {
  console[method] = (...args) => {
    const run = invocation.getStore();
    if (!run) return;
    if (run.logs.length >= MAX_LINES) {
      run.dropped++;
      return;
    }
    let message = args.map(text).join(' ');
    if (message.length > MAX_CHARS) message = message.slice(0, MAX_CHARS) + '…';
    run.logs.push({ level, message, timestamp: new Date().toISOString() });
  };
}

let loaded;

export default {
  async fetch(request, env, ctx) {
    const run = { logs: [], dropped: 0 };
    return invocation.run(run, async () => {
      const report = { status: 0 };
      try {
        loaded ??= import('./integration.js');
        const module = await loaded;
        const handler = module.default;
        if (!handler || typeof handler.fetch !== 'function') throw new Error("the script's default export has no fetch handler");
        const response = await handler.fetch(request, env, ctx);
        if (!(response instanceof Response)) throw new Error('the fetch handler did not return a Response');
        report.status = response.status;
        if (response.status >= 400) report.body = (await response.text()).slice(0, BODY_EXCERPT);
        else await response.body?.cancel();
      } catch (error) {
        report.error = (error && error.stack) || String(error);
      }
      report.logs = run.logs;
      report.dropped = run.dropped;
      return new Response(JSON.stringify(report), { headers: { 'content-type': 'application/json', 'x-integration-runtime': '1' } });
    });
  },
};
`;

export interface ScriptTarget {
  id: string;
  version: number;
  scriptKey: string;
  contentSecurityPolicy: string | null;
}

export interface ScriptResult {
  ok: boolean;
  /** The script's status, when it answered. */
  status?: number;
  /** For the trace: `answered 200`, `threw ...`, `answered 500: ...`. */
  detail: string;
  /** What the script logged while handling the event. */
  logs: TraceLine[];
}

interface RuntimeReport {
  status?: unknown;
  body?: unknown;
  error?: unknown;
  logs?: unknown;
  dropped?: unknown;
}

/** The report's lines, checked (a script can write anything in its own isolate, even over the wrapper). */
function reportLines(report: RuntimeReport): TraceLine[] {
  const lines = Array.isArray(report.logs) ? report.logs.slice(0, MAX_LOG_LINES) : [];
  const out: TraceLine[] = lines.map((line) => {
    const { level, message, timestamp } = (line ?? {}) as Record<string, unknown>;
    return {
      level: TRACE_LEVELS.includes(level as TraceLevel) ? (level as TraceLevel) : 'info',
      message: String(message ?? '').slice(0, MAX_LOG_CHARS + 1),
      timestamp: typeof timestamp === 'string' && !Number.isNaN(Date.parse(timestamp)) ? new Date(timestamp).toISOString() : new Date().toISOString(),
    };
  });
  const dropped = Number(report.dropped);
  if (dropped > 0) out.push({ level: 'warn', message: `${dropped} more line(s) logged by the script were not kept (at most ${MAX_LOG_LINES} per event)`, timestamp: new Date().toISOString() });
  return out;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}

/**
 * Runs the script on one event: `event` and `environment` as GitBook's runtime receives them. Never throws:
 * a missing Worker Loader, a script that cannot load, throws, answers >= 400 or runs out of time is a
 * failed result whose `detail` says why.
 */
export async function runIntegrationScript(
  env: Env,
  target: ScriptTarget,
  event: Record<string, unknown>,
  environment: Record<string, unknown>,
  apiOrigin: string,
): Promise<ScriptResult> {
  const loader = env.LOADER;
  if (!loader) return { ok: false, detail: NO_LOADER_MESSAGE, logs: [] };
  try {
    const worker = loader.get(`${target.id}:v${target.version}:r${RUNTIME_REVISION}`, async () => {
      const object = await env.FILES.get(target.scriptKey);
      if (!object) throw new Error(`the script of version ${target.version} is missing from storage`);
      return {
        compatibilityDate: SCRIPT_COMPATIBILITY_DATE,
        compatibilityFlags: ['nodejs_compat'],
        mainModule: 'runtime.js',
        modules: { 'runtime.js': RUNTIME_MODULE, 'integration.js': await object.text() },
        env: {},
        globalOutbound: integrationOutbound({ integrationId: target.id, apiOrigin }),
        limits: { ...SCRIPT_LIMITS },
      };
    });
    const form = new FormData();
    form.set('event', JSON.stringify(event));
    form.set('environment', JSON.stringify(environment));
    const headers = new Headers();
    if (target.contentSecurityPolicy) headers.set('content-security-policy', target.contentSecurityPolicy);
    const response = await withTimeout(
      worker.getEntrypoint().fetch(RUNTIME_URL, { method: 'POST', body: form, headers }),
      SCRIPT_TIMEOUT_MS,
      `did not answer within ${SCRIPT_TIMEOUT_MS / 1000} s`,
    );
    if (response.headers.get('x-integration-runtime') !== '1') {
      await response.body?.cancel();
      return { ok: false, status: response.status, detail: `failed: the runtime answered ${response.status} without its report`, logs: [] };
    }
    const report = (await response.json()) as RuntimeReport;
    const logs = reportLines(report);
    if (report.error !== undefined) return { ok: false, detail: `threw ${String(report.error).slice(0, MAX_LOG_CHARS)}`, logs };
    const status = Number(report.status);
    if (!Number.isInteger(status) || status < 200 || status >= 400) {
      const body = typeof report.body === 'string' && report.body.trim() ? `: ${report.body.trim()}` : '';
      return { ok: false, status, detail: `answered ${status}${body}`, logs };
    }
    return { ok: true, status, detail: `answered ${status}`, logs };
  } catch (error) {
    return { ok: false, detail: `could not run: ${error instanceof Error ? error.message : String(error)}`, logs: [] };
  }
}
