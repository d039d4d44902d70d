import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';

/**
 * Per-organization caps that protect storage. Each is a `[vars]` entry of wrangler.toml (a positive integer;
 * the default below when unset or not one). What a cap counts is kept with the writes that change it (the
 * counters of migration 0011, a revision's page and file counts), so checking one reads a column the request
 * fetches anyway.
 */
export const CAPS = {
  pagesPerSpace: { variable: 'MAX_PAGES_PER_SPACE', fallback: 100_000, what: 'pages in a space' },
  filesPerSpace: { variable: 'MAX_FILES_PER_SPACE', fallback: 50_000, what: 'files in a space' },
  bytesPerFile: { variable: 'MAX_FILE_BYTES', fallback: 1024 * 1024, what: 'bytes in a file' },
  spacesPerOrganization: { variable: 'MAX_SPACES_PER_ORGANIZATION', fallback: 10_000, what: 'spaces in an organization (the trash not counted)' },
  membersPerOrganization: { variable: 'MAX_MEMBERS_PER_ORGANIZATION', fallback: 10_000, what: 'members of an organization' },
  commentsPerPage: { variable: 'MAX_COMMENTS_PER_PAGE', fallback: 1_000, what: 'comments and replies on a page' },
  integrationsPerOrganization: { variable: 'MAX_INTEGRATIONS_PER_ORGANIZATION', fallback: 100, what: 'integrations an organization publishes' },
  installationsPerOrganization: { variable: 'MAX_INSTALLATIONS_PER_ORGANIZATION', fallback: 200, what: 'integrations installed in an organization' },
  conversationsPerDay: { variable: 'MAX_CONVERSATIONS_PER_DAY', fallback: 10_000, what: 'conversations an organization ingests per day (UTC)' },
} as const satisfies Record<string, { variable: keyof Env; fallback: number; what: string }>;

export type CapName = keyof typeof CAPS;

/** The configured value of a cap. */
export function capOf(env: Env, name: CapName): number {
  const { variable, fallback } = CAPS[name];
  const raw = env[variable];
  const value = typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/**
 * The 403 a write answers when it would take what a cap counts past the cap (`current + adding > cap`).
 * Writes that do not add (edits, deletions, moves) are never refused, so a cap lowered below what an
 * organization already holds stops growth without blocking anything else.
 */
export function assertWithinCap(env: Env, name: CapName, current: number, adding = 1): void {
  const cap = capOf(env, name);
  if (adding > 0 && current + adding > cap) throw capReached(name, cap);
}

export function capReached(name: CapName, cap: number): ApiError {
  const { variable, what } = CAPS[name];
  return new ApiError(403, `Cap reached: at most ${cap} ${what} (${variable})`);
}

/** The start of the next UTC day, when the conversations-per-day count starts again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/**
 * The 429 ingestion answers when an organization's conversations of the day would pass its cap: it is a
 * budget that comes back, so it says when (`Retry-After`, seconds to the next UTC day).
 */
export function dailyCapReached(env: Env, now: Date): ApiError {
  const cap = capOf(env, 'conversationsPerDay');
  const seconds = Math.max(1, Math.ceil((nextUtcDay(now).getTime() - now.getTime()) / 1000));
  const { variable, what } = CAPS.conversationsPerDay;
  return new ApiError(429, `Cap reached: at most ${cap} ${what} (${variable}); the count starts again at 00:00 UTC`, {
    'Retry-After': String(seconds),
  });
}

/**
 * Whether a write failed on a cap's guard: a statement at the head of its batch that writes null into a NOT NULL
 * counter (`table.column`) when the write would pass the cap, failing the whole batch (one transaction). The
 * check on the read answers every request that does not race; the guard keeps two racing at the cap from both passing.
 */
export function failedOnCapGuard(error: unknown, column: string): boolean {
  const marker = `NOT NULL constraint failed: ${column}`;
  return [error, (error as { cause?: unknown } | null)?.cause].some((e) => e instanceof Error && e.message.includes(marker));
}
