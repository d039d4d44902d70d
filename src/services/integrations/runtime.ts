import type { Env } from '../../env';
import { TRACE_LEVELS, type TraceLevel } from '../../lib/trace-levels';
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
 * (at most `MAX_LOG_LINES` of `MAX_LOG_CHARS` each).
 *
 * `ctx.waitUntil` (GitBook's `context.waitUntil`): the wrapper hands the script a `ctx` of its own whose
 * `waitUntil` keeps the promise with the invocation. Work passed to it runs after the script answered, within the
 * same invocation's limits (its CPU time and subrequests count against `SCRIPT_LIMITS`), until it settles or
 * `WAIT_UNTIL_MS` after the invocation started; what it logs is the event's too, and a rejection is an error line
 * (the event's outcome is the script's answer, as at GitBook: the work was after it). An event's report waits for
 * that work; a fetch invocation's answer does not (below).
 *
 * Fetch events (a request to an integration's public endpoint, routes/integrations/public-endpoint.ts) need the
 * script's own response, not a verdict: the host marks those invocations with the `RESPOND_HEADER` request
 * header, which the wrapper removes before the script sees the request. It then reads the script's body (at most
 * `MAX_FETCH_RESPONSE_BYTES`) and answers one body holding the report first (`x-integration-report-length`
 * bytes of JSON: status and headers, the body's length, or what was thrown, and the lines logged until the body
 * was read), the script's body bytes after it, and last, once the work passed to `waitUntil` settled, a JSON
 * trailer with the lines logged since: the host answers the caller as soon as it has the body and reads the
 * trailer after (in its own `waitUntil`), so that work costs the caller no latency. The report travels in the
 * body rather than in a header: 100 lines of 2,000 characters (hundreds of kilobytes) are too large for one.
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
/**
 * How long after an invocation started the work passed to `ctx.waitUntil` may go on: less than
 * `SCRIPT_TIMEOUT_MS`, since an event's report waits for it and must reach the host in time.
 */
export const WAIT_UNTIL_MS = SCRIPT_TIMEOUT_MS - 3000;
/** Part of the loader id: raise it when RUNTIME_MODULE changes, so warm isolates are not reused with the old one. */
const RUNTIME_REVISION = 4;
/** Set on a fetch invocation's request: the wrapper answers the script's own response (see the top of this file). */
const RESPOND_HEADER = 'x-integration-runtime-respond';
/** The largest body a script may answer to a request to its public endpoint. */
export const MAX_FETCH_RESPONSE_BYTES = 5 * 1024 * 1024;
/** The largest report the wrapper may put before that body (lines, headers): more is a broken runtime. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

/** What a deployment without the Worker Loader answers for an integration that has a script. */
export const NO_LOADER_MESSAGE =
  'This deployment cannot run integration scripts: it has no Worker Loader binding (wrangler.toml `[[worker_loaders]] binding = "LOADER"`, Cloudflare dynamic Workers)';

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
const WAIT_UNTIL_MS = ${WAIT_UNTIL_MS};
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
    if (!run || run.closed) return;
    record(run, level, args.map(text).join(' '));
  };
}

function record(run, level, message) {
  if (run.logs.length >= MAX_LINES) {
    run.dropped++;
    return;
  }
  if (message.length > MAX_CHARS) message = message.slice(0, MAX_CHARS) + '…';
  run.logs.push({ level, message, timestamp: new Date().toISOString() });
}

/** The script's ctx: waitUntil keeps the work with the invocation (its failures are lines of its trace). */
function contextOf(run, ctx) {
  return {
    waitUntil(promise) {
      run.pending.push(Promise.resolve(promise).catch((error) => record(run, 'error', 'work passed to waitUntil failed: ' + text(error))));
    },
    passThroughOnException() {},
    get props() {
      return ctx && ctx.props;
    },
  };
}

/** Waits for the work passed to waitUntil (and what that work passes in turn), at most until WAIT_UNTIL_MS after the start. */
async function settle(run) {
  let seen = 0;
  while (seen < run.pending.length) {
    const batch = run.pending.slice(seen);
    seen = run.pending.length;
    const left = run.started + WAIT_UNTIL_MS - Date.now();
    let timer;
    const finished = left > 0 && (await Promise.race([Promise.all(batch).then(() => true), new Promise((resolve) => (timer = setTimeout(() => resolve(false), left)))]));
    clearTimeout(timer);
    if (!finished) {
      record(run, 'warn', 'work passed to waitUntil did not finish within ' + WAIT_UNTIL_MS / 1000 + ' s of the invocation: what it logs after is not kept');
      break;
    }
  }
  run.closed = true;
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

/**
 * A fetch invocation's answer: the report's JSON, then the script's body, then (once the work passed to
 * waitUntil settled) the trailer: the lines logged after the report.
 */
function respondWith(run, report, body, ctx) {
  const encoder = new TextEncoder();
  report.bodyLength = body ? body.byteLength : 0;
  const reported = run.logs.length;
  const droppedBefore = run.dropped;
  const head = encoder.encode(JSON.stringify(report));
  const { readable, writable } = new TransformStream();
  const writer = writable.getWriter();
  const written = (async () => {
    await writer.write(head);
    if (body && body.byteLength > 0) await writer.write(body);
    await settle(run);
    await writer.write(encoder.encode(JSON.stringify({ logs: run.logs.slice(reported), dropped: run.dropped - droppedBefore })));
    await writer.close();
  })().catch((error) => writer.abort(error).catch(() => {}));
  if (ctx && typeof ctx.waitUntil === 'function') ctx.waitUntil(written);
  return new Response(readable, {
    headers: { 'content-type': 'application/octet-stream', 'x-integration-runtime': '1', 'x-integration-report-length': String(head.byteLength) },
  });
}

export default {
  async fetch(request, env, ctx) {
    const respond = request.headers.has(RESPOND);
    if (respond) {
      const headers = new Headers(request.headers);
      headers.delete(RESPOND);
      request = new Request(request, { headers });
    }
    const run = { logs: [], dropped: 0, pending: [], started: Date.now(), closed: false };
    return invocation.run(run, async () => {
      const report = { status: 0 };
      let body = null;
      try {
        // Each invocation imports the script itself (evaluated once all the same): a promise kept for the isolate would
        // have concurrent invocations go on from one another's, which workerd refuses (src/app.ts serveWithGroup).
        const module = await import('./integration.js');
        const handler = module.default;
        if (!handler || typeof handler.fetch !== 'function') throw new Error("the script's default export has no fetch handler");
        const response = await handler.fetch(request, env, contextOf(run, ctx));
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
      if (respond) {
        report.logs = run.logs.slice();
        report.dropped = run.dropped;
        return respondWith(run, report, body, ctx);
      }
      // An event's report waits for the work passed to waitUntil: its lines are the event's.
      await settle(run);
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

export { readCapped } from '../../lib/read-capped';

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

/**
 * `later`: the lines logged by the work the script passed to `waitUntil`, once it settled (after the answer; never
 * rejects). `failure` is for the caller (what went wrong, never what the script threw or logged); `detail` for the trace.
 */
export type FetchResult =
  | { ok: true; answer: FetchAnswer; detail: string; logs: TraceLine[]; later: Promise<TraceLine[]> }
  | { ok: false; failure: string; detail: string; logs: TraceLine[]; later: Promise<TraceLine[]> };

const NOTHING_LATER: Promise<TraceLine[]> = Promise.resolve([]);

const MAX_ANSWER_HEADERS = 200;

/** The script's headers from the report, checked. */
function reportHeaders(value: unknown): [string, string][] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, MAX_ANSWER_HEADERS)
    .filter((pair): pair is [string, string] => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string');
}

/** Reads a stream in parts of known length (the report, the body), then what is left (the trailer). */
class PartReader {
  private buffered: Uint8Array = new Uint8Array(0);
  private done = false;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next `length` bytes, or null when the stream ends before them. */
  async take(length: number): Promise<Uint8Array | null> {
    while (this.buffered.byteLength < length && !this.done) {
      const { done, value } = await this.reader.read();
      if (done) this.done = true;
      else this.buffered = concat(this.buffered, value);
    }
    if (this.buffered.byteLength < length) return null;
    const part = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return part;
  }

  /** The rest of the stream, or null when it is more than `max` bytes (the rest is then cancelled). */
  async rest(max: number): Promise<Uint8Array | null> {
    while (!this.done) {
      if (this.buffered.byteLength > max) {
        await this.reader.cancel();
        return null;
      }
      const { done, value } = await this.reader.read();
      if (done) this.done = true;
      else this.buffered = concat(this.buffered, value);
    }
    return this.buffered.byteLength > max ? null : this.buffered;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/**
 * The trailer of a fetch invocation (the lines logged by the work passed to `waitUntil`), read after the answer,
 * within `SCRIPT_TIMEOUT_MS`: never rejects, a broken or late trailer is a line saying so.
 */
function trailerLines(parts: PartReader): Promise<TraceLine[]> {
  const read = parts.rest(MAX_REPORT_BYTES).then((bytes): TraceLine[] => {
    if (!bytes) return [{ level: 'warn', message: `the runtime's trailer was larger than ${MAX_REPORT_BYTES} bytes: the lines logged after the answer are not kept`, timestamp: new Date().toISOString() }];
    if (bytes.byteLength === 0) return [];
    return reportLines(JSON.parse(new TextDecoder().decode(bytes)) as RuntimeReport);
  });
  return withTimeout(read, SCRIPT_TIMEOUT_MS, `the work passed to waitUntil did not finish within ${SCRIPT_TIMEOUT_MS / 1000} s`).catch((error) => [
    { level: 'warn', message: `the lines logged after the answer are not kept: ${failureMessage(error)}`, timestamp: new Date().toISOString() },
  ]);
}

/**
 * Reads a fetch invocation's answer: the report (`x-integration-report-length` bytes of JSON), then the body
 * (`bodyLength` bytes), answered as soon as they are read; the trailer is `later`.
 */
async function fetchResult(response: Response): Promise<FetchResult> {
  const reportLength = Number(response.headers.get('x-integration-report-length'));
  const noReport = async (): Promise<FetchResult> => {
    await response.body?.cancel();
    const detail = `failed: the runtime answered ${response.status} without its report`;
    return { ok: false, failure: 'failed to run', detail, logs: [], later: NOTHING_LATER };
  };
  if (response.headers.get('x-integration-runtime') !== '1' || !response.body || !Number.isInteger(reportLength) || reportLength < 2 || reportLength > MAX_REPORT_BYTES) {
    return noReport();
  }
  const parts = new PartReader(response.body.getReader());
  const head = await parts.take(reportLength);
  if (!head) return noReport();
  const report = JSON.parse(new TextDecoder().decode(head)) as RuntimeReport & { bodyLength?: unknown };
  const logs = reportLines(report);
  const bodyLength = Number(report.bodyLength ?? 0);
  if (!Number.isInteger(bodyLength) || bodyLength < 0 || bodyLength > MAX_FETCH_RESPONSE_BYTES) {
    const detail = `answered a body larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`;
    return { ok: false, failure: detail, detail, logs, later: NOTHING_LATER };
  }
  const body = await parts.take(bodyLength);
  if (!body) return noReport();
  const later = trailerLines(parts);
  if (report.error !== undefined) return { ok: false, failure: 'threw an error while handling the request', detail: thrown(report), logs, later };
  if (report.tooLarge === true) {
    const detail = `answered a body larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`;
    return { ok: false, failure: detail, detail, logs, later };
  }
  const status = Number(report.status);
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    const detail = `answered the status ${String(report.status).slice(0, 20)}, which is not one an HTTP response may have`;
    return { ok: false, failure: detail, detail, logs, later };
  }
  return { ok: true, answer: { status, headers: reportHeaders(report.headers), body }, detail: `answered ${status}`, logs, later };
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
  if (!loader) return { ok: false, failure: NO_LOADER_MESSAGE, detail: NO_LOADER_MESSAGE, logs: [], later: NOTHING_LATER };
  try {
    return await invoke(env, loader, target, apiOrigin, { event, environment, ...(fetchBody ? { fetchBody } : {}) }, true, fetchResult);
  } catch (error) {
    const detail = failureMessage(error);
    const timedOut = detail.startsWith('did not answer');
    return { ok: false, failure: timedOut ? detail : 'could not be run', detail: timedOut ? detail : `could not run: ${detail}`, logs: [], later: NOTHING_LATER };
  }
}
