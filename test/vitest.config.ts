import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig(async () => {
  const root = path.resolve(import.meta.dirname, '..');
  const migrations = await readD1Migrations(path.join(root, 'migrations'));
  return {
    root,
    plugins: [
      cloudflareTest({
        main: path.join(root, 'src/index.ts'),
        wrangler: { configPath: path.join(root, 'wrangler.toml') },
        miniflare: {
          bindings: { TEST_MIGRATIONS: migrations, ADMIN_TOKEN: 'test-admin-token' },
        },
      }),
    ],
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: [path.join(root, 'test/helpers/apply-migrations.ts')],
      testTimeout: 30_000,
      // Vitest's default leaves a core idle (one file at a time on a 2-core machine); each file waits on
      // its own workerd half of the time, so two at once finish the suite about a fifth sooner there.
      maxWorkers: Math.max(2, availableParallelism()),
    },
  };
});
