// The local secrets of `npm run dev` (.dev.vars, read by wrangler dev): pure text in, text out, so that it can
// be checked without touching the file.
import { randomBytes } from 'node:crypto';

/**
 * The deployment's secrets, each its own (the Configuration guide, src/templates/handbook/16-configuration.md): none falls back to another, so `wrangler dev`
 * needs all four. The operator token, the download URLs' signing key, the integration secrets' key, the site
 * tokens' signing key.
 */
export const DEV_SECRETS = ['ADMIN_TOKEN', 'FILES_SIGNING_KEY', 'INTEGRATIONS_KEY', 'SITE_TOKENS_KEY'];

const secretLine = (name) => new RegExp(`^[ \\t]*${name}[ \\t]*=[ \\t]*(\\S.*)?$`, 'm');

/**
 * `.dev.vars` with each of `names` kept when it has a non-empty value, otherwise added (or filled in) with a
 * random one of its own; and the names it generated.
 */
export function withDevSecrets(current, names = DEV_SECRETS, random = () => randomBytes(32).toString('base64url')) {
  let next = current;
  const created = [];
  for (const name of names) {
    const pattern = secretLine(name);
    const match = pattern.exec(next);
    if (match?.[1]?.trim()) continue;
    const line = `${name}=${random()}`;
    if (match) next = next.replace(pattern, line);
    else if (next === '') next = `# Local secrets for wrangler dev (git-ignored): distinct secrets, none standing in for another.\n${line}\n`;
    else next = `${next}${next.endsWith('\n') ? '' : '\n'}${line}\n`;
    created.push(name);
  }
  return { text: next, created };
}

/** The non-empty value `name` has in `.dev.vars`' text, or undefined. */
export function devSecretValue(text, name) {
  return secretLine(name).exec(text)?.[1]?.trim() || undefined;
}
