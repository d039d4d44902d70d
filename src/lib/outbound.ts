import ipaddr from 'ipaddr.js';
import { ApiError } from './errors';

/**
 * The one guarded outbound fetch: everything that leaves the Worker for a URL a user gave (website
 * import, OpenAPI sources, webhook deliveries) goes through `outboundFetch`.
 *
 * Before any request, and again at every redirect hop, the URL is checked (`checkOutboundUrl`):
 * - only `http:` and `https:`, no credentials (`user:pass@`);
 * - the host is read by the WHATWG URL parser first, which already turns every spelling of an IPv4
 *   address (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, percent-encoded,
 *   full-width digits, a trailing dot) into its dotted form and IPv6 into its compressed form;
 * - an IP literal is then parsed by ipaddr.js and must be ordinary public unicast: private, loopback,
 *   link-local (cloud metadata 169.254.169.254), unspecified (0.0.0.0/8, ::), multicast, broadcast,
 *   CGNAT 100.64/10, unique-local fc00::/7, site-local, documentation, benchmarking and other reserved
 *   ranges are refused; so is every IPv6 form that embeds an IPv4 address (mapped ::ffff:0:0/96,
 *   compatible ::/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, SIIT, 6to4, Teredo), whatever it embeds;
 * - a name that is obviously internal is refused: `localhost` and `*.localhost`, `*.local`, `*.internal`
 *   (with `metadata.google.internal`), `*.localdomain`, `*.home.arpa`, a single-label name
 *   (`intranet`), and a few public names known to resolve to loopback or to the address written in
 *   them (`*.nip.io`, `*.sslip.io`, `*.xip.io`, `*.localtest.me`, `*.lvh.me`).
 *
 * What it cannot see: a Worker has no access to the address a DNS name resolves to (fetch resolves
 * it inside the runtime), so `docs.example.com` pointing at 10.0.0.1, or a name rebinding between
 * two lookups, is not detectable here. The production mitigation is the platform: Cloudflare's
 * egress from Workers does not reach the account's private networks (nor 127.0.0.1 of the machine);
 * a self-hosted runtime with such a network must filter it at its own egress.
 *
 * `OUTBOUND_ALLOWED_HOSTS` (comma-separated host names, `*.suffix` for a domain and its subdomains;
 * empty by default) admits those hosts even when the checks above would refuse them: intranet
 * sources and local testing. Scheme and credential checks still apply.
 *
 * Redirects are followed by hand (`redirect: 'manual'`), each hop checked the same way (and by the
 * caller's own rule, `allowHop`, when it gives one: OpenAPI external references keep to one origin), at most
 * `maxRedirects` (5). One time limit (10 s) covers every hop and the body; the body is read as a
 * stream and the call fails once it passes `maxBytes` (5 MiB by default).
 */

/** The fetch function the guard calls: the runtime's, or a stand-in (tests; see `setOutboundFetch`). */
export type FetchFunction = (request: Request) => Promise<Response>;

export interface OutboundOptions {
  /** Name of the field the URL came from, used in error messages (`url: http://... is refused: ...`). */
  field?: string;
  /** Largest body accepted, in bytes (default 5 MiB). */
  maxBytes?: number;
  /** Time limit of the whole call: every hop and the body (default 10 s). */
  timeoutMs?: number;
  /**
   * `outboundStream` only: a limit on silence within `timeoutMs`. The first byte of the body must come within
   * `firstByteTimeoutMs` (default: this) of the call's start, and each next bytes within this of the ones before: a
   * server that is slow but sends (Git's keepalives and progress while it prepares a pack) is waited for, one that
   * stopped is not.
   */
  idleTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  /** Redirects followed at most (default 5); one more is refused. */
  maxRedirects?: number;
  /** The fetch to use for this call (defaults to the one set by `setOutboundFetch`, else the runtime's). */
  fetch?: FetchFunction;
  /**
   * A caller's own rule for every URL requested, checked after the guard's and before each request (the
   * first one and every redirect hop): the reason it is refused, or null. A refusal is an `OutboundError`
   * (`refused`) naming that URL, and the URL is not requested.
   */
  allowHop?: (url: URL) => string | null;
}

export interface OutboundResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** The whole body (at most `maxBytes`). */
  bytes: Uint8Array;
  redirects: number;
  /** The body decoded as UTF-8. */
  text(): string;
}

export type OutboundFailure = 'refused' | 'redirects' | 'too_large' | 'timeout' | 'network';

/** A 400 naming the URL; `reason` tells the kind of failure to callers that recover from it. */
export class OutboundError extends ApiError {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(400, message);
  }
}

export const OUTBOUND_DEFAULTS = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 5 } as const;

/** Variables of `Env` the guard reads (so callers and tests may pass just these). */
export interface OutboundEnv {
  OUTBOUND_ALLOWED_HOSTS?: string;
}

const runtimeFetch: FetchFunction = (request) => fetch(request);
let defaultFetch: FetchFunction = runtimeFetch;

/**
 * Replaces the fetch every `outboundFetch` call uses by default (the seam tests use: nothing leaves
 * the machine). Without an argument the runtime's fetch is restored. Returns the previous one.
 */
export function setOutboundFetch(fn?: FetchFunction): FetchFunction {
  const previous = defaultFetch;
  defaultFetch = fn ?? runtimeFetch;
  return previous;
}

// ---------------------------------------------------------------------------------------------
// URL checks

/** Names that only ever mean this machine or a private network. */
const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];
/** Public wildcard-DNS names that resolve to loopback or to the IP address written in the name. */
const LOOPBACK_DNS_SUFFIXES = ['nip.io', 'sslip.io', 'xip.io', 'localtest.me', 'lvh.me'];

const isUnder = (host: string, suffix: string) => host === suffix || host.endsWith(`.${suffix}`);

/** Parses `OUTBOUND_ALLOWED_HOSTS` into canonical host names (as the URL parser writes them). */
function allowedHosts(env: OutboundEnv): string[] {
  return (env.OUTBOUND_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
    .map((entry) => {
      if (entry.startsWith('*.')) return entry;
      try {
        return new URL(`http://${entry}`).hostname;
      } catch {
        return entry;
      }
    })
    .map((host) => host.replace(/\.$/, ''));
}

function isAllowed(host: string, allowed: string[]): boolean {
  return allowed.some((entry) => (entry.startsWith('*.') ? isUnder(host, entry.slice(2)) : host === entry));
}

/** Why an IP address may not be fetched, or null when it is ordinary public unicast. */
function addressRefusal(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? null : `${address.toString()} is a ${rangeName(range)} address`;
  }
  const v6 = address as ipaddr.IPv6;
  const parts = v6.parts;
  const range = v6.range();
  const embedded = embeddedIPv4(v6, range);
  if (embedded) {
    const inner = embedded.range();
    const what = inner === 'unicast' ? 'an IPv4 address' : `the ${rangeName(inner)} address ${embedded.toString()}`;
    return `${v6.toString()} is an IPv6 address (${rangeName(range)}) that embeds ${what}`;
  }
  // ::/96 other than :: and ::1: the deprecated IPv4-compatible form, which ipaddr.js calls unicast.
  if (range === 'unicast' && parts.slice(0, 6).every((p) => p === 0)) {
    return `${v6.toString()} is an IPv4-compatible IPv6 address of ${ipaddr.IPv4.parse(`${parts[6] >> 8}.${parts[6] & 255}.${parts[7] >> 8}.${parts[7] & 255}`).toString()}`;
  }
  return range === 'unicast' ? null : `${v6.toString()} is a ${rangeName(range)} address`;
}

/** The IPv4 address inside IPv6 forms that carry one (mapped, SIIT, NAT64, 6to4, Teredo server). */
function embeddedIPv4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return v4(p[6], p[7]);
    case '6to4':
      return v4(p[1], p[2]);
    case 'teredo':
      return v4(p[2], p[3]);
    default:
      return null;
  }
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (fc00::/7)',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  deprecatedSiteLocal: 'site-local',
};
const rangeName = (range: string) => RANGE_NAMES[range] ?? `special-purpose (${range})`;

/** Why a host name may not be fetched (null when it may): IP literals and obviously internal names. */
function hostRefusal(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const inner = hostname.slice(1, -1);
    if (!ipaddr.IPv6.isValid(inner)) return `${hostname} is not a valid IPv6 address`;
    return addressRefusal(ipaddr.IPv6.parse(inner));
  }
  const host = hostname.replace(/\.$/, '');
  // The URL parser writes every IPv4 spelling as a dotted quad; ipaddr.js also reads the others,
  // should a parser leave one (it accepts octal, hex, decimal and short forms).
  if (ipaddr.IPv4.isValid(host)) return addressRefusal(ipaddr.IPv4.parse(host));
  if (host === '') return 'the host is empty';
  if (!host.includes('.')) return `${host} is a single-label host name (an internal name)`;
  const internal = INTERNAL_SUFFIXES.find((suffix) => isUnder(host, suffix));
  if (internal) return `${host} is an internal host name (*.${internal})`;
  const loopbackDns = LOOPBACK_DNS_SUFFIXES.find((suffix) => isUnder(host, suffix));
  if (loopbackDns) return `${host} resolves to loopback or to an address written in the name (*.${loopbackDns})`;
  return null;
}

/**
 * The URL, parsed, when the guard admits it; otherwise `badRequest('<field>: <url> is refused: <why>')`.
 * Makes no request.
 */
export function checkOutboundUrl(env: OutboundEnv, url: string | URL, field = 'url'): URL {
  const text = String(url);
  const refuse = (why: string) => new OutboundError('refused', `${field}: ${text} is refused: ${why}`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw refuse('it is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse(`the scheme ${parsed.protocol} is not http or https`);
  if (parsed.username || parsed.password) throw refuse('credentials in URLs are not allowed');
  const host = parsed.hostname.toLowerCase();
  if (isAllowed(host.replace(/\.$/, ''), allowedHosts(env))) return parsed;
  const why = hostRefusal(host);
  if (why) throw refuse(why);
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// The fetch

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that are not sent to another origin after a redirect. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Fetches `url` through the guard (see the top of this file): each hop is checked before it is
 * requested; the answer's body is read whole, up to `maxBytes`. `init.body`, when given, must be a
 * string or bytes (it is sent again on a 307/308). Every failure is an `OutboundError` (a 400
 * naming the URL); a non-2xx answer is not a failure: look at `status`.
 */
export async function outboundFetch(env: OutboundEnv, url: string | URL, init: RequestInit = {}, options: OutboundOptions = {}): Promise<OutboundResponse> {
  const call = startCall(url, init, options);
  try {
    const { response, current, hop } = await followHops(env, url, init, options, call);
    const bytes = await readCapped(response, call.maxBytes, call.signal, () => new OutboundError('too_large', `${call.field}: ${current.href} answered more than ${call.maxBytes} bytes`)).catch(
      (error) => {
        throw call.readFailure(error, current);
      },
    );
    const final = current.href;
    return {
      url: final,
      status: response.status,
      ok: response.ok,
      headers: response.headers,
      bytes,
      redirects: hop,
      text: () => new TextDecoder().decode(bytes),
    };
  } finally {
    call.end();
  }
}

/** An answer whose body is read as it comes (`outboundStream`). */
export interface OutboundStreamResponse {
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body: fails with an `OutboundError` past `maxBytes` or the time limit (which covers reading it). */
  body: ReadableStream<Uint8Array>;
}

/**
 * `outboundFetch` for bodies too large to hold: the same checks of every hop, but the body is handed over as a
 * stream, counted against `maxBytes` and the time limit as it is read (the limit ends when the body is read or cancelled).
 */
export async function outboundStream(env: OutboundEnv, url: string | URL, init: RequestInit = {}, options: OutboundOptions = {}): Promise<OutboundStreamResponse> {
  const call = startCall(url, init, options);
  let handedOver = false;
  try {
    const { response, current } = await followHops(env, url, init, options, call);
    const source = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    const reader = source.getReader();
    let read = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await abortable(reader.read(), call.signal);
          if (done) {
            call.end();
            controller.close();
            return;
          }
          read += value.byteLength;
          call.heard();
          if (read > call.maxBytes) throw new OutboundError('too_large', `${call.field}: ${current.href} answered more than ${call.maxBytes} bytes`);
          controller.enqueue(value);
        } catch (error) {
          call.end();
          await reader.cancel().catch(() => undefined);
          controller.error(call.readFailure(error, current));
        }
      },
      async cancel(reason) {
        call.end();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    handedOver = true;
    return { url: current.href, status: response.status, ok: response.ok, headers: response.headers, body };
  } finally {
    if (!handedOver) call.end();
  }
}

/** One call's limits, its time limit's signal, and the words of its failures. */
function startCall(url: string | URL, init: RequestInit, options: OutboundOptions) {
  const field = options.field ?? 'url';
  const timeoutMs = options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
  const original = String(url);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  // A limit on silence (idleTimeoutMs): until the first byte, then between bytes; whichever fired says so.
  let silence: { ms: number; heard: boolean } | null = null;
  let silenceTimer: ReturnType<typeof setTimeout> | undefined;
  const listen = (ms: number | undefined, heard: boolean) => {
    clearTimeout(silenceTimer);
    if (ms === undefined) return;
    silenceTimer = setTimeout(() => {
      silence = { ms, heard };
      timeout.abort();
    }, ms);
  };
  listen(options.firstByteTimeoutMs ?? options.idleTimeoutMs, false);
  const signal = init.signal ? AbortSignal.any([timeout.signal, init.signal]) : timeout.signal;
  const timedOut = () => {
    const quiet = silence as { ms: number; heard: boolean } | null;
    if (quiet?.heard) return new OutboundError('timeout', `${field}: ${original} sent nothing for ${quiet.ms / 1000} s`);
    return new OutboundError('timeout', `${field}: ${original} did not answer within ${(quiet?.ms ?? timeoutMs) / 1000} s`);
  };
  return {
    field,
    original,
    maxBytes: options.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes,
    timeout,
    signal,
    timedOut,
    /** Bytes came: the limit on silence starts again. */
    heard: () => listen(options.idleTimeoutMs, true),
    end: () => {
      clearTimeout(timer);
      clearTimeout(silenceTimer);
    },
    readFailure(error: unknown, current: URL): Error {
      if (timeout.signal.aborted) return timedOut();
      if (error instanceof ApiError) return error;
      return new OutboundError('network', `${field}: ${current.href} could not be read: ${error instanceof Error ? error.message : String(error)}`);
    },
  };
}

/** Requests `url`, following redirects by hand (each hop checked), up to the answer that is not a redirect. */
async function followHops(env: OutboundEnv, url: string | URL, init: RequestInit, options: OutboundOptions, call: ReturnType<typeof startCall>): Promise<{ response: Response; current: URL; hop: number }> {
  const { field, original, signal } = call;
  const maxRedirects = options.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects;
  const doFetch = options.fetch ?? defaultFetch;
  const checkHop = (hop: URL, hopField: string) => {
    const why = options.allowHop?.(hop) ?? null;
    if (why !== null) throw new OutboundError('refused', `${hopField}: ${hop.href} is refused: ${why}`);
    return hop;
  };
  let current = checkHop(checkOutboundUrl(env, original, field), field);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body ?? undefined;
  const headers = new Headers(init.headers);
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await abortable(doFetch(new Request(current, { ...init, method, headers, body, redirect: 'manual', signal })), signal);
    } catch (error) {
      if (call.timeout.signal.aborted) throw call.timedOut();
      if (error instanceof ApiError) throw error;
      throw new OutboundError('network', `${field}: ${current.href} could not be fetched: ${networkCause(error, current)}`);
    }
    const location = response.headers.get('location');
    if (REDIRECTS.has(response.status) && location !== null) {
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new OutboundError('redirects', `${field}: ${original} redirects more than ${maxRedirects} times`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new OutboundError('refused', `${field}: ${current.href} redirects to an invalid URL: ${location}`);
      }
      const hopField = `${field} (redirected from ${current.href})`;
      next = checkHop(checkOutboundUrl(env, next.href, hopField), hopField);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      if (next.origin !== current.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      current = next;
      continue;
    }
    return { response, current, hop };
  }
}

/**
 * The cause of a failed request, in words naming the host. workerd (wrangler dev, self-hosting) does not
 * tell a Worker why a fetch failed, only how; observed, offline:
 * - a name that does not resolve: `internal error; reference = <id>` (its log says "failed to lookup
 *   address information"); a failed TLS handshake throws the same (its log: "TLS handshake failed"), so
 *   over https the two cannot be told apart, and over http only the lookup can fail that way;
 * - a port where nothing listens: `Network connection lost.`.
 * Other runtimes' words (Node's ENOTFOUND, ECONNREFUSED, certificate errors) are read too; anything else is
 * a network error with the runtime's own message. Timeouts are the guard's own, named before this is asked.
 */
export function networkCause(error: unknown, url: URL): string {
  const message = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error);
  const host = url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo|lookup address|name (or service )?not (known|resolved)|DNS/i.test(message)) return `the host name ${host} did not resolve (DNS)`;
  if (/ECONNREFUSED|connection refused/i.test(message)) return `the connection to ${host}:${port} was refused`;
  if (/certificate|TLS|SSL|handshake/i.test(message)) return `the TLS handshake with ${host} failed`;
  if (/^internal error\b/i.test(message)) {
    return url.protocol === 'https:'
      ? `the host name ${host} did not resolve (DNS), or the TLS handshake with it failed`
      : `the host name ${host} did not resolve (DNS)`;
  }
  if (/network connection lost|ECONNRESET|socket hang up/i.test(message)) return `the connection to ${host}:${port} was refused or lost`;
  const detail = error instanceof Error ? error.message : String(error);
  return `network error reaching ${host} (${detail})`;
}

/** Rejects when the signal aborts, even if the promise (a stand-in fetch, a stalled read) never settles. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The body, read as a stream; stops (and cancels the stream) as soon as it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, signal: AbortSignal, tooLarge: () => Error): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
