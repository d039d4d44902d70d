import type { Env } from '../../env';
import { checkOutboundUrl, OutboundError, type OutboundEnv } from '../../lib/outbound';

/**
 * Repository URLs of Git Sync, without loading the Git client: credentials taken out of them, the guard's
 * allowance for Git (GIT_SYNC_ALLOWED_HOSTS), and redaction of error messages.
 */

export interface GitCredentials {
  username: string;
  password: string;
}

/** The URL without credentials, and the credentials it carried (percent-decoded), if any. */
export function splitCredentials(url: string): { url: string; credentials: GitCredentials | null } {
  const parsed = new URL(url);
  const credentials = parsed.username || parsed.password ? { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) } : null;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, credentials };
}

/** Removes anything that looks like `user:password@` from a text (error messages of the remote or of the library). */
export function redact(text: string, credentials?: GitCredentials | null): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
  if (credentials?.password) out = out.split(credentials.password).join('***');
  return out;
}

/** The guard's variables for Git Sync: the operator may admit hosts for Git alone (a self-hosted GitLab on a private address). */
export function gitOutboundEnv(env: Pick<Env, 'OUTBOUND_ALLOWED_HOSTS' | 'GIT_SYNC_ALLOWED_HOSTS'>): OutboundEnv {
  return { OUTBOUND_ALLOWED_HOSTS: [env.OUTBOUND_ALLOWED_HOSTS ?? '', env.GIT_SYNC_ALLOWED_HOSTS ?? ''].filter(Boolean).join(',') };
}

/** Checks a repository URL (without its credentials) as the guard will: a 400 naming `field` when refused. */
export function checkRepositoryUrl(env: Pick<Env, 'OUTBOUND_ALLOWED_HOSTS' | 'GIT_SYNC_ALLOWED_HOSTS'>, url: string, field = 'url'): URL {
  let stripped: string;
  try {
    stripped = splitCredentials(url).url;
  } catch {
    throw new OutboundError('refused', `${field}: it is not a valid absolute URL`);
  }
  return checkOutboundUrl(gitOutboundEnv(env), stripped, field);
}

