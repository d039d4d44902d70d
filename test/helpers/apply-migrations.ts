import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

// Setup files run outside per-test storage isolation and may run more than once:
// applyD1Migrations only applies what has not been applied yet.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The space writer (a Durable Object: an I/O context of its own) loads its work on its first call. Under the test
// pool's module runner that import is I/O of the context that started it, and another writer awaiting the same
// pending import fails ("Cannot perform I/O on behalf of a different Durable Object"); files share one module
// graph (isolate: false), so such a race spans files. Loaded here, before any writer runs, it is never pending.
await import('../../src/durable-objects/space-writer-work');
