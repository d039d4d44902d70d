import type { Db } from './db/client';
import type { SpaceWriter } from './durable-objects/space-writer';

export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  JOBS: Queue<unknown>;
  SPACE_WRITER: DurableObjectNamespace<SpaceWriter>;
  ADMIN_TOKEN?: string;
  /** HMAC key of signed file download URLs; ADMIN_TOKEN is used when unset. */
  FILES_SIGNING_KEY?: string;
  APP_URL?: string;
  /** Public base URL of published sites (`<base>/<organization>/<basename>`); `<API origin>/sites` when unset. */
  SITES_URL?: string;
  /** Comma-separated host names (`*.suffix` for a domain) the outbound guard admits even when it would refuse them (src/lib/outbound.ts). */
  OUTBOUND_ALLOWED_HOSTS?: string;
  AI?: unknown;
}

/** Who is calling: a user with an API token, the deployment's operator, or a published site's visitor. */
export type Actor =
  | { kind: 'user'; userId: string; email: string; emailVerified: boolean }
  | { kind: 'operator' }
  /** No API token, on the few reads a published site's visitors make (see middleware/auth). */
  | { kind: 'visitor' };

export type AppBindings = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    actor: Actor;
  };
};
