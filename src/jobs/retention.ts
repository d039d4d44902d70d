/**
 * How long a deleted space can be restored before the cron purges it (jobs/cron). A module of its own: the spaces
 * routes quote it, and importing it from cron.ts evaluated the whole cron (SAML, translations, the Markdown
 * parser) with a cold isolate's first space read.
 */
export const SPACE_RETENTION_DAYS = 7;
