import type { Env } from '../../env';

/**
 * Request rate limits. Each policy is a Workers Rate Limiting binding (wrangler.toml `[[ratelimits]]`, which
 * counts per key and per Cloudflare location and decides) and a `[vars]` entry that states the same
 * "<requests>/<seconds>" so that responses can say it: the binding answers only whether a request may pass.
 */
export const RATE_LIMIT_POLICIES = {
  user: { binding: 'RL_USER', variable: 'RATE_LIMIT_USER', fallback: '1200/60' },
  installation: { binding: 'RL_INSTALLATION', variable: 'RATE_LIMIT_INSTALLATION', fallback: '1200/60' },
  operator: { binding: 'RL_OPERATOR', variable: 'RATE_LIMIT_OPERATOR', fallback: '6000/60' },
  visitor: { binding: 'RL_VISITOR', variable: 'RATE_LIMIT_VISITOR', fallback: '600/60' },
  'content-writes': { binding: 'RL_CONTENT_WRITES', variable: 'RATE_LIMIT_CONTENT_WRITES', fallback: '60/60' },
  exports: { binding: 'RL_EXPORTS', variable: 'RATE_LIMIT_EXPORTS', fallback: '20/60' },
  search: { binding: 'RL_SEARCH', variable: 'RATE_LIMIT_SEARCH', fallback: '120/60' },
  ingestion: { binding: 'RL_INGESTION', variable: 'RATE_LIMIT_INGESTION', fallback: '60/60' },
  sso: { binding: 'RL_SSO', variable: 'RATE_LIMIT_SSO', fallback: '30/60' },
} as const satisfies Record<string, { binding: keyof Env; variable: keyof Env; fallback: string }>;

export type RateLimitPolicy = keyof typeof RATE_LIMIT_POLICIES;
/** The policies an operation may add on top of its caller's: the expensive ones. */
export type CostlyPolicy = Extract<RateLimitPolicy, 'content-writes' | 'exports' | 'search' | 'ingestion'>;

/** What one policy said of one request: the RateLimit header's item. */
export interface RateLimitOutcome {
  policy: RateLimitPolicy;
  limit: number;
  period: number;
  /** Requests left in the window, as far as this Worker instance has counted them (see `countLocally`). */
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  allowed: boolean;
}

const RATE = /^\s*(\d{1,9})\s*\/\s*(10|60)\s*$/;

/** A policy's "<requests>/<seconds>" from its variable, or its default when unset or malformed. */
export function policyRate(env: Env, policy: RateLimitPolicy): { limit: number; period: 10 | 60 } {
  const { variable, fallback } = RATE_LIMIT_POLICIES[policy];
  const parsed = RATE.exec(String(env[variable] ?? '')) ?? RATE.exec(fallback)!;
  return { limit: Math.max(1, Number(parsed[1])), period: Number(parsed[2]) as 10 | 60 };
}

// The binding does not say how much of a window is left, so each Worker instance counts the requests it
// passed to it. Windows align to the clock (floor(now / period)), as the binding's do under workerd, so the
// reset is exact; the remaining count is exact for one instance and an upper bound across several.
const counted = new Map<string, { window: number; used: number }>();
const MAX_COUNTED_KEYS = 10_000;

function countLocally(key: string, window: number, allowed: boolean, limit: number): number {
  if (counted.size >= MAX_COUNTED_KEYS) {
    for (const [k, v] of counted) if (v.window !== window) counted.delete(k);
    if (counted.size >= MAX_COUNTED_KEYS) counted.clear();
  }
  const entry = counted.get(key);
  const used = (entry?.window === window ? entry.used : 0) + (allowed ? 1 : 0);
  counted.set(key, { window, used: allowed ? used : limit });
  return allowed ? Math.max(0, limit - used) : 0;
}

/**
 * Counts one request of `key` against `policy`. Null when the deployment has no binding for the policy: it
 * is then not enforced, and no header claims it is.
 */
export async function checkRateLimit(env: Env, policy: RateLimitPolicy, key: string, now = Date.now()): Promise<RateLimitOutcome | null> {
  const binding = env[RATE_LIMIT_POLICIES[policy].binding] as RateLimit | undefined;
  if (!binding) return null;
  const { limit, period } = policyRate(env, policy);
  const bucket = `${policy}:${key}`;
  const { success } = await binding.limit({ key: bucket });
  const window = Math.floor(now / (period * 1000));
  const reset = Math.max(1, Math.ceil(((window + 1) * period * 1000 - now) / 1000));
  const remaining = countLocally(bucket, window, success, limit);
  return { policy, limit, period, remaining, reset, allowed: success };
}

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): each policy's quota and window. */
export function policyHeader(outcomes: RateLimitOutcome[]): string {
  return outcomes.map((o) => `"${o.policy}";q=${o.limit};w=${o.period}`).join(', ');
}

/** `RateLimit`: what is left of each policy's window and when it resets. */
export function rateLimitHeader(outcomes: RateLimitOutcome[]): string {
  return outcomes.map((o) => `"${o.policy}";r=${o.remaining};t=${o.reset}`).join(', ');
}
