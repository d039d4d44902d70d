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
 * Fetch events (a request to an integration's public endpoint, routes/integrations/public-endpoint.ts) need the
 * script's own response, not a verdict: the host marks those invocations with the `RESPOND_HEADER` request
 * header, which the wrapper removes before the script sees the request. It then reads the script's body (at most
 * `MAX_FETCH_RESPONSE_BYTES`) and answers one body holding the report first (`x-integration-report-length`
 * bytes of JSON: status and headers, or what was thrown, and the lines logged until the body was
 * read) and the script's body bytes after it. The report travels in the body rather than in a header: 100 lines
 * of 2,000 characters (hundreds of kilobytes) are too large for one.
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
const RUNTIME_REVISION = 2;
/** Set on a fetch invocation's request: the wrapper answers the script's own response (see the top of this file). */
const RESPOND_HEADER = 'x-integration-runtime-respond';
/** The largest body a script may answer to a request to its public endpoint. */
export const MAX_FETCH_RESPONSE_BYTES = 5 * 1024 * 1024;
/** The largest report the wrapper may put before that body (lines, headers): more is a broken runtime. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

/** What a deployment without the Worker Loader answers for an integration that has a script. */
export const NO_LOADER_MESSAGE =
  'This deployment cannot run integration scripts: it has no Worker Loader binding (wrangler.toml `[[worker_loaders]] binding = "LOADER"`, Cloudflare dynamic Workers)';

export const TRACE_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

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
const MAX_BODY = ${MAX_FETCH_RESPONSE_BYTES};
const RESPOND = '${RESPOND_HEADER}';
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

/** The body's bytes, or null when it is larger than MAX_BODY (then no more of it is read). The host's readCapped,
 * again: this module runs in the script's isolate and can import nothing of the host's. */
async function bodyBytes(body) {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** A fetch invocation's answer: the report's JSON, then the script's body. */
function respondWith(report, body) {
  const head = new TextEncoder().encode(JSON.stringify(report));
  const out = new Uint8Array(head.byteLength + (body ? body.byteLength : 0));
  out.set(head);
  if (body) out.set(body, head.byteLength);
  return new Response(out, {
    headers: { 'content-type': 'application/octet-stream', 'x-integration-runtime': '1', 'x-integration-report-length': String(head.byteLength) },
  });
}

let loaded;

export default {
  async fetch(request, env, ctx) {
    const respond = request.headers.has(RESPOND);
    if (respond) {
      const headers = new Headers(request.headers);
      headers.delete(RESPOND);
      request = new Request(request, { headers });
    }
    const run = { logs: [], dropped: 0 };
    return invocation.run(run, async () => {
      const report = { status: 0 };
      let body = null;
      try {
        loaded ??= import('./integration.js');
        const module = await loaded;
        const handler = module.default;
        if (!handler || typeof handler.fetch !== 'function') throw new Error("the script's default export has no fetch handler");
        const response = await handler.fetch(request, env, ctx);
        if (!(response instanceof Response)) throw new Error('the fetch handler did not return a Response');
        report.status = response.status;
        if (respond) {
          report.headers = [...response.headers];
          body = await bodyBytes(response.body);
          if (body === null) report.tooLarge = true;
        } else if (response.status >= 400) report.body = (await response.text()).slice(0, BODY_EXCERPT);
        else await response.body?.cancel();
      } catch (error) {
        report.error = (error && error.stack) || String(error);
      }
      report.logs = run.logs;
      report.dropped = run.dropped;
      if (respond) return respondWith(report, body);
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
  headers?: unknown;
  tooLarge?: unknown;
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
      level: (TRACE_LEVELS as readonly string[]).includes(level as string) ? (level as TraceLevel) : 'info',
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

/** A stream's bytes, or null as soon as they are more than `max` (the rest is not read). */
export async function readCapped(stream: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array | null> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

const failureMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * One invocation of the script: its isolate (loaded with the script from R2 unless it is warm) is posted
 * GitBook's multipart request, `fetch-body` beside `event` and `environment` when a fetch event has a body.
 * `read` turns the runtime's answer into a result, within the same wall time as the call.
 */
function invoke<T>(
  env: Env,
  loader: WorkerLoader,
  target: ScriptTarget,
  apiOrigin: string,
  fields: { event: Record<string, unknown>; environment: Record<string, unknown>; fetchBody?: Blob },
  respond: boolean,
  read: (response: Response) => Promise<T>,
): Promise<T> {
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
  form.set('event', JSON.stringify(fields.event));
  form.set('environment', JSON.stringify(fields.environment));
  if (fields.fetchBody) form.set('fetch-body', fields.fetchBody);
  const headers = new Headers();
  if (target.contentSecurityPolicy) headers.set('content-security-policy', target.contentSecurityPolicy);
  if (respond) headers.set(RESPOND_HEADER, '1');
  return withTimeout(
    worker
      .getEntrypoint()
      .fetch(RUNTIME_URL, { method: 'POST', body: form, headers })
      .then(read),
    SCRIPT_TIMEOUT_MS,
    `did not answer within ${SCRIPT_TIMEOUT_MS / 1000} s`,
  );
}

/**
 * What GitBook's `createIntegration` (@gitbook/runtime) answers an event it has no handler for: an
 * `ExposableError('Integration does not handle "<type>" events', 406)`. GitBook sends integrations every event of
 * their installations and they handle what they choose, so that answer settles the delivery: nothing to retry.
 */
export const EVENT_NOT_HANDLED_STATUS = 406;

/** The report's `error`, for the trace. */
const thrown = (report: RuntimeReport) => `threw ${String(report.error).slice(0, MAX_LOG_CHARS)}`;

/**
 * Runs the script on one event: `event` and `environment` as GitBook's runtime receives them. Never throws:
 * a missing Worker Loader, a script that cannot load, throws, answers >= 400 (but 406, `EVENT_NOT_HANDLED_STATUS`:
 * a success whose `detail` says the event is not handled) or runs out of time is a failed result whose `detail`
 * says why.
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
    return await invoke(env, loader, target, apiOrigin, { event, environment }, false, async (response): Promise<ScriptResult> => {
      if (response.headers.get('x-integration-runtime') !== '1') {
        await response.body?.cancel();
        return { ok: false, status: response.status, detail: `failed: the runtime answered ${response.status} without its report`, logs: [] };
      }
      const report = (await response.json()) as RuntimeReport;
      const logs = reportLines(report);
      if (report.error !== undefined) return { ok: false, detail: thrown(report), logs };
      const status = Number(report.status);
      if (status === EVENT_NOT_HANDLED_STATUS) {
        const type = JSON.stringify(String(event.type)).slice(0, 200);
        return { ok: true, status, detail: `answered ${status}: the integration does not handle ${type} events, so the event is settled and not sent again`, logs };
      }
      if (!Number.isInteger(status) || status < 200 || status >= 400) {
        const body = typeof report.body === 'string' && report.body.trim() ? `: ${report.body.trim()}` : '';
        return { ok: false, status, detail: `answered ${status}${body}`, logs };
      }
      return { ok: true, status, detail: `answered ${status}`, logs };
    });
  } catch (error) {
    return { ok: false, detail: `could not run: ${failureMessage(error)}`, logs: [] };
  }
}

/** What the script answered to a fetch event, to be sent to the caller as it is. */
export interface FetchAnswer {
  status: number;
  /** In order, repeated names kept (Set-Cookie). */
  headers: [string, string][];
  body: Uint8Array;
}

export type FetchResult =
  | { ok: true; answer: FetchAnswer; detail: string; logs: TraceLine[] }
  /** `failure` is for the caller (what went wrong, never what the script threw or logged); `detail` for the trace. */
  | { ok: false; failure: string; detail: string; logs: TraceLine[] };

const MAX_ANSWER_HEADERS = 200;

/** The script's headers from the report, checked. */
function reportHeaders(value: unknown): [string, string][] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, MAX_ANSWER_HEADERS)
    .filter((pair): pair is [string, string] => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string');
}

/** Reads a fetch invocation's answer: the report (`x-integration-report-length` bytes of JSON), then the body. */
async function fetchResult(response: Response): Promise<FetchResult> {
  const reportLength = Number(response.headers.get('x-integration-report-length'));
  if (response.headers.get('x-integration-runtime') !== '1' || !Number.isInteger(reportLength) || reportLength < 2 || reportLength > MAX_REPORT_BYTES) {
    await response.body?.cancel();
    const detail = `failed: the runtime answered ${response.status} without its report`;
    return { ok: false, failure: 'failed to run', detail, logs: [] };
  }
  const bytes = await readCapped(response.body, reportLength + MAX_FETCH_RESPONSE_BYTES);
  if (!bytes) {
    const detail = `answered a body larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`;
    return { ok: false, failure: detail, detail, logs: [] };
  }
  const report = JSON.parse(new TextDecoder().decode(bytes.subarray(0, reportLength))) as RuntimeReport;
  const logs = reportLines(report);
  if (report.error !== undefined) return { ok: false, failure: 'threw an error while handling the request', detail: thrown(report), logs };
  if (report.tooLarge === true) {
    const detail = `answered a body larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`;
    return { ok: false, failure: detail, detail, logs };
  }
  const status = Number(report.status);
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    const detail = `answered the status ${String(report.status).slice(0, 20)}, which is not one an HTTP response may have`;
    return { ok: false, failure: detail, detail, logs };
  }
  return { ok: true, answer: { status, headers: reportHeaders(report.headers), body: bytes.subarray(reportLength) }, detail: `answered ${status}`, logs };
}

/**
 * Runs the script on a fetch event (a request to a public endpoint) and answers the script's own response:
 * its status, headers and body (at most `MAX_FETCH_RESPONSE_BYTES`), with the lines it logged. `fetchBody` is
 * the request's body, sent as the multipart field `fetch-body` (GitBook's runtime rebuilds the request from
 * `event.request` and it). Never throws: a missing Worker Loader, a script that cannot load, throws, answers
 * too much or runs out of time is a failed result.
 */
export async function runIntegrationFetch(
  env: Env,
  target: ScriptTarget,
  event: Record<string, unknown>,
  environment: Record<string, unknown>,
  apiOrigin: string,
  fetchBody: Blob | null,
): Promise<FetchResult> {
  const loader = env.LOADER;
  if (!loader) return { ok: false, failure: NO_LOADER_MESSAGE, detail: NO_LOADER_MESSAGE, logs: [] };
  try {
    return await invoke(env, loader, target, apiOrigin, { event, environment, ...(fetchBody ? { fetchBody } : {}) }, true, fetchResult);
  } catch (error) {
    const detail = failureMessage(error);
    const timedOut = detail.startsWith('did not answer');
    return { ok: false, failure: timedOut ? detail : 'could not be run', detail: timedOut ? detail : `could not run: ${detail}`, logs: [] };
  }
}
