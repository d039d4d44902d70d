import type { D1Migration } from 'cloudflare:test';
import type { Env as WorkerEnv } from '../src/env';

declare global {
  interface ImportMeta {
    /** Vite's module glob (test/platform/sql-patterns.test.ts reads the sources as text with `query: '?raw'`). */
    glob<T = unknown>(pattern: string | string[], options: { query?: string; import?: string; eager: true }): Record<string, T>;
  }
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import('../src/index');
    }
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
