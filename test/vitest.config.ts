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
          // Messages go to a queue nobody consumes: tests run the consumer themselves (createMessageBatch), so
          // what a test reads of a job's state is never raced by a delivery in the background.
          queueProducers: { JOBS: { queueName: 'docs-platform-jobs-unconsumed-in-tests' } },
        },
      }),
    ],
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: [path.join(root, 'test/helpers/apply-migrations.ts')],
      testTimeout: 30_000,
      deps: { optimizer: { ssr: { enabled: true, include: ['hono', '@hono/zod-openapi', 'zod', 'drizzle-orm', 'drizzle-orm/sqlite-core', 'drizzle-orm/d1', 'hono/factory', 'hono/http-exception', 'hono/body-limit', 'hono/utils/http-status', '@scalar/openapi-validator', '@scalar/hono-api-reference', 'unified', 'remark-parse', 'remark-stringify', 'remark-gfm', 'remark-frontmatter', 'rehype-parse', 'rehype-remark', 'mdast-util-to-string', '@scalar/openapi-parser', 'yaml', 'jose', 'pdf-lib', 'jsep', 'ipaddr.js', 'image-size', '@cfworker/json-schema'] } } },
      // Vitest's default leaves a core idle (one file at a time on a 2-core machine); each file waits on
      // its own workerd half of the time, so two at once finish the suite about a fifth sooner there.
      maxWorkers: Math.max(2, availableParallelism()),
    },
  };
});
