/**
 * How long a custom hostname may stay pending: its owner has this long to answer the DNS challenge, after which the
 * claim is gone (the cron clears it; every read treats it as gone at once). A pending claim holds nothing: several
 * organizations may claim one name, and the first to prove it takes it (the others' claims are cleared then).
 */
export const CUSTOM_HOSTNAME_PENDING_DAYS = 7;
const PENDING_MS = CUSTOM_HOSTNAME_PENDING_DAYS * 24 * 60 * 60 * 1000;

interface ClaimColumns {
  customHostname: string | null;
  customHostnameVerifiedAt: string | null;
  customHostnameClaimedAt: string | null;
}

/** Whether an organization's custom hostname claim stands: verified, or pending for less than the period. */
export function claimStands(row: ClaimColumns, now = Date.now()): boolean {
  if (!row.customHostname) return false;
  if (row.customHostnameVerifiedAt) return true;
  const claimed = row.customHostnameClaimedAt ? Date.parse(row.customHostnameClaimedAt) : NaN;
  return Number.isFinite(claimed) && now - claimed < PENDING_MS;
}

/** The claim time before which a pending claim has expired (ISO 8601, comparable with the stored column). */
export const pendingCutoff = (now = Date.now()) => new Date(now - PENDING_MS).toISOString();
