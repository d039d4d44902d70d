/** The current time as stored and returned (ISO 8601 UTC); one place so tests can reason about it. */
export const nowIso = () => new Date().toISOString();

export const DAY_MS = 24 * 60 * 60 * 1000;
