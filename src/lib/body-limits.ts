/**
 * Body limits that differ from the app's default, read by app.ts before any route group loads (so they
 * live here, not with the schemas of their group).
 */

/** Base64 as sent (line breaks allowed) of an integration's icon, three previews and script, plus the manifest. */
export const MAX_PUBLISH_BODY_BYTES = 8 * 1024 * 1024;
/** The integration publish route's path, which needs `MAX_PUBLISH_BODY_BYTES` instead of the default body limit. */
export const PUBLISH_BODY_PATH = /^\/v1\/integrations\/[^/]+\/?$/;
