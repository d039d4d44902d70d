import ipaddr from 'ipaddr.js';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Actor, AppBindings } from '../env';
import { ApiError } from '../lib/errors';
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
  const outcome = await checkRateLimit(c.env, policy, key);
  if (!outcome) return;
  c.get('rateLimits').push(outcome);
  if (!outcome.allowed) throw tooManyRequests(outcome);
}

function tooManyRequests(outcome: RateLimitOutcome): ApiError {
  const budget = outcome.policy === 'visitor' || outcome.policy === 'sso' ? 'this client address' : 'this caller';
  return new ApiError(
    429,
    `Too many requests: the "${outcome.policy}" rate limit allows ${outcome.limit} requests per ${outcome.period} seconds for ${budget}; retry in ${outcome.reset} seconds`,
    { 'Retry-After': String(outcome.reset) },
  );
}

/** After authentication on API routes: every request counts against its caller's policy. */
export const limitByCaller = createMiddleware<AppBindings>(async (c, next) => {
  const { policy, key } = callerKey(c, c.get('actor'));
  await enforce(c, policy, key);
  await next();
});

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
