import ipaddr from 'ipaddr.js';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Actor, AppBindings } from '../env';
import { ApiError, errorBody } from '../lib/errors';
import { setAnswerHeaders } from './answer-headers';
import {
  checkRateLimit,
  policyHeader,
  rateLimitHeader,
  type CostlyPolicy,
  type RateLimitOutcome,
  type RateLimitPolicy,
} from '../services/limits/rate-limits';

/**
 * Writes what the rate limits said of the request into every response, answers included (429s, errors):
 * `RateLimit-Policy: "user";q=1200;w=60` and `RateLimit: "user";r=1187;t=42`, one item per policy counted.
 */
export const rateLimitHeaders = createMiddleware<AppBindings>(async (c, next) => {
  c.set('rateLimits', []);
  await next();
  const outcomes = c.get('rateLimits');
  if (outcomes.length === 0) return;
  setAnswerHeaders(c, { 'RateLimit-Policy': policyHeader(outcomes), RateLimit: rateLimitHeader(outcomes) });
});

/** Who a request counts against: its token's user, installation or integration, the operator, or its client IP. */
function callerKey(c: Context<AppBindings>, actor: Actor | undefined): { policy: RateLimitPolicy; key: string } {
  switch (actor?.kind) {
    case 'user':
      return { policy: 'user', key: actor.userId };
    case 'installation':
      return { policy: 'installation', key: `installation:${actor.grant.installationId}` };
    case 'integration':
      return { policy: 'installation', key: `integration:${actor.integrationId}` };
    case 'operator':
      return { policy: 'operator', key: 'operator' };
    default:
      return { policy: 'visitor', key: clientIp(c) };
  }
}

/**
 * Cloudflare's client address (set by Cloudflare at the edge, whatever the client sent); local development
 * without one shares a single bucket. An IPv6 client counts by its /64, the block one subscriber is given,
 * so that rotating through its own addresses does not multiply its budget. Bounded: a key of at most 64.
 */
function clientIp(c: Context<AppBindings>): string {
  const address = c.req.header('CF-Connecting-IP')?.trim().slice(0, 64) || 'unknown';
  return ipaddr.IPv6.isValid(address) ? ipv6Key(ipaddr.IPv6.parse(address)) : address;
}

function ipv6Key(address: ipaddr.IPv6): string {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

async function enforce(c: Context<AppBindings>, policy: RateLimitPolicy, key: string): Promise<void> {
  obey(c, policy, key, await checkRateLimit(c.env, policy, key));
}

/**
 * Records what the limiter said of the request (for the headers, at `position` among the policies counted: the
 * caller's comes before an operation's own) and refuses it if it said no.
 */
function obey(c: Context<AppBindings>, policy: RateLimitPolicy, key: string, outcome: RateLimitOutcome | null, position?: number): void {
  if (!outcome) return;
  const outcomes = c.get('rateLimits');
  outcomes.splice(position ?? outcomes.length, 0, outcome);
  if (!outcome.allowed) {
    rememberRefusal(policy, key, outcome.reset);
    throw tooManyRequests(outcome);
  }
}

// Callers this isolate has refused in their current window, until it ends: their reads wait for the limiter
// again (limitByCaller), so a caller flooding past its budget costs no read after its first refusal here.
const refusedUntil = new Map<string, number>();
const MAX_REFUSED = 10_000;

function rememberRefusal(policy: RateLimitPolicy, key: string, resetSeconds: number, now = Date.now()): void {
  if (refusedUntil.size >= MAX_REFUSED) {
    for (const [bucket, until] of refusedUntil) if (until <= now) refusedUntil.delete(bucket);
    if (refusedUntil.size >= MAX_REFUSED) refusedUntil.clear();
  }
  refusedUntil.set(`${policy}:${key}`, now + resetSeconds * 1000);
}

function refusedRecently(policy: RateLimitPolicy, key: string, now = Date.now()): boolean {
  const until = refusedUntil.get(`${policy}:${key}`);
  if (until === undefined) return false;
  if (until > now) return true;
  refusedUntil.delete(`${policy}:${key}`);
  return false;
}

function tooManyRequests(outcome: RateLimitOutcome): ApiError {
  const budget = outcome.policy === 'visitor' || outcome.policy === 'sso' ? 'this client address' : 'this caller';
  return new ApiError(
    429,
    `Too many requests: the "${outcome.policy}" rate limit allows ${outcome.limit} requests per ${outcome.period} seconds for ${budget}; retry in ${outcome.reset} seconds`,
    { 'Retry-After': String(outcome.reset) },
  );
}

/** Methods whose requests change nothing (GET routes only read; the D1 session of one is a read replica's). */
const READS = new Set(['GET', 'HEAD']);

/**
 * After authentication on API routes: every request counts against its caller's policy. A write waits for the
 * limiter's answer before it runs. A read runs while the limiter decides (it has no side effect to undo): when
 * the limiter says no, the read's answer is dropped and the 429 is answered instead, so a refused read is
 * refused exactly as before, without a warm read paying the limiter's latency before its own D1 round trip.
 * A caller this isolate refused in the current window waits for the limiter again, read or not.
 */
export const limitByCaller = createMiddleware<AppBindings>(async (c, next) => {
  const { policy, key } = callerKey(c, c.get('actor'));
  if (!READS.has(c.req.method) || refusedRecently(policy, key)) {
    await enforce(c, policy, key);
    return next();
  }
  const verdict = checkRateLimit(c.env, policy, key);
  // Awaited below; until then a failure of the binding must not count as an unhandled rejection.
  verdict.catch(() => {});
  const position = c.get('rateLimits').length;
  await next();
  const outcome = await verdict;
  try {
    obey(c, policy, key, outcome, position);
  } catch (refusal) {
    if (!(refusal instanceof ApiError)) throw refusal;
    replaceAnswer(c, refusal);
  }
});

/**
 * Answers `refusal` in place of what the handler answered, keeping nothing of it: thrown from here, the error's
 * answer would take the read's headers (Hono's context copies them onto the next response: an ETag, a
 * Content-Disposition), and its body (a file's stream, say) is let go.
 */
function replaceAnswer(c: Context<AppBindings>, refusal: ApiError): void {
  const dropped = c.res;
  c.res = undefined as unknown as Response;
  c.res = new Response(JSON.stringify(errorBody(refusal.status, refusal.message)), {
    status: refusal.status,
    headers: { 'Content-Type': 'application/json', ...refusal.headers },
  });
  dropped.body?.cancel().catch(() => {});
}

/**
 * Before authentication on API routes: a request refused for its token (401, no caller known) counts against
 * its client address, so a flood of made-up tokens ends in 429s like any anonymous traffic. It is counted once
 * answered: the token had to be looked up to be found wanting.
 */
export const limitRefusedTokens = createMiddleware<AppBindings>(async (c, next) => {
  await next();
  if (c.res.status === 401 && c.get('actor') === undefined) await enforce(c, 'visitor', clientIp(c));
});

/** Routes outside the API (downloads, public specs, integration endpoints): every request counts against its client IP. */
export const limitByClientIp = createMiddleware<AppBindings>(async (c, next) => {
  await enforce(c, 'visitor', clientIp(c));
  await next();
});

/**
 * The SAML login's (routes/sso/saml-login) own, lower budget per client address, on top of `limitByClientIp`'s:
 * every start records a request and every ACS post is parsed and its signature checked before anything refuses it.
 */
export const limitSsoByClientIp = createMiddleware<AppBindings>(async (c, next) => {
  await enforce(c, 'sso', clientIp(c));
  await next();
});

/**
 * An expensive operation's own, lower budget, counted on top of the caller's (defineRoute's `costly`): the
 * same caller key, so one token's searches do not spend another's.
 */
export function limitCostly(policy: CostlyPolicy) {
  return createMiddleware<AppBindings>(async (c, next) => {
    await enforceCostly(c, policy);
    await next();
  });
}

/** The same, from a handler whose request is expensive only sometimes (a change request opened with a template). */
export async function enforceCostly(c: Context<AppBindings>, policy: CostlyPolicy): Promise<void> {
  const { key } = callerKey(c, c.get('actor'));
  await enforce(c, policy, key);
}
