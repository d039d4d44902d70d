import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { prepareDocsAssets } from '../src/cli/docs-assets.mjs';
import { RATE_LIMIT_POLICIES } from '../src/services/limits/rate-limits.ts';
import { holdRuntimeReports, noteSettlement, runtimeReportsReporter } from './helpers/runtime-logs.mjs';
import { jsonDataPlugin, textFilesPlugin } from './helpers/text-files.ts';

const root = path.resolve(import.meta.dirname, '..');

type RateLimits = Record<string, { namespace_id: string; simple: { limit: number; period: 10 | 60 } }>;

/** Rate limit bindings of wrangler.toml (`USER` for RL_USER), each with the given limit and period. */
export function rateLimitBindings(limits: Record<string, `${number}/${10 | 60}`>): { ratelimits: RateLimits; vars: Record<string, string> } {
  const ratelimits: RateLimits = {};
  const vars: Record<string, string> = {};
  Object.entries(limits).forEach(([policy, rate], i) => {
    const [limit, period] = rate.split('/').map(Number);
    ratelimits[`RL_${policy}`] = { namespace_id: String(9001 + i), simple: { limit, period: period as 10 | 60 } };
    vars[`RATE_LIMIT_${policy}`] = rate;
  });
  return { ratelimits, vars };
}

/**
 * Vitest's order (failed, then longest, or in a fresh checkout largest, first), with the migration tests first of
 * all. Files share their worker's database (isolate: false), and a migration test runs its migration's statements
 * over the whole of it, as a deployment does (pack-stored.test.ts packs every document in the database in ~200
 * steps): run last, after the other files have filled it, one of them took 31 s on a loaded 2-core machine, for
 * what the test checks on its own rows. First, the database holds little but theirs.
 */
class MigrationsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isMigration = (file: TestSpecification) => /\/test\/migrations\//.test(file.moduleId);
    return [...sorted.filter(isMigration), ...sorted.filter((file) => !isMigration(file))];
  }
}

/**
 * One workerd test project: the Worker of wrangler.toml with migrations applied per file. `vars` and
 * `ratelimits` replace wrangler.toml's, for the limits project's small caps and budgets.
 */
export function workersProject(options: { include: string[]; exclude?: string[]; vars?: Record<string, string>; ratelimits?: RateLimits; globalSetup?: string[]; isolate?: boolean; cacheDir?: string }) {
  return defineConfig(async () => {
    const migrations = await readD1Migrations(path.join(root, 'migrations'));
    // wrangler.toml's `[assets]` directory (the API reference's script), filled before the pool reads the config.
    prepareDocsAssets(root);
    holdRuntimeReports();
    return {
      root,
      // Vite's dependency cache beside the checkout, not in node_modules: checkouts (git worktrees) that
      // share one node_modules would otherwise rebuild each other's cache mid-run. The limits project has its own:
      // `npm test` runs both projects at once (test/helpers/run-suite.mjs).
      cacheDir: path.join(root, options.cacheDir ?? '.vite'),
      plugins: [
        // `virtual:text-files/<folder>?<extensions>`: a folder's texts in one module (test/platform/layers.test.ts).
        textFilesPlugin(root),
        // Packages' JSON files (GitBook's OpenAPI documents) as one JSON.parse each, without a source map.
        jsonDataPlugin(),
        cloudflareTest({
          main: path.join(root, 'src/index.ts'),
          wrangler: { configPath: path.join(root, 'wrangler.toml') },
          miniflare: {
            // The secrets are distinct, as a deployment must have them (the Handbook, Deploying to Cloudflare). SITES_DOMAIN:
            // organizations' labels serve their sites at `<label>.sites.test` (test/organizations/hostnames.test.ts).
            bindings: {
              TEST_MIGRATIONS: migrations,
              ADMIN_TOKEN: 'test-admin-token',
              FILES_SIGNING_KEY: 'test-files-signing-key',
              INTEGRATIONS_KEY: 'test-integrations-key',
              SITE_TOKENS_KEY: 'test-site-tokens-key',
              SITES_DOMAIN: 'sites.test',
              // Off by default in tests, which see a publish at once; test/site/edge-cache.test.ts turns it on.
              SITE_EDGE_FRESH_SECONDS: '0',
              ...options.vars,
            },
            ...(options.ratelimits ? { ratelimits: options.ratelimits } : {}),
            // Messages go to a queue nobody consumes: tests run the consumer themselves (createMessageBatch), so
            // what a test reads of a job's state is never raced by a delivery in the background.
            queueProducers: { JOBS: { queueName: 'docs-platform-jobs-unconsumed-in-tests' } },
            // wrangler.toml's `[assets]` (the pool drops them unless given here), bound as ASSETS for
            // test/platform/api-reference.test.ts: the pool's `exports.default` reaches the Worker, not the asset router.
            assets: { directory: path.join(root, '.assets'), binding: 'ASSETS' },
          },
        }),
      ],
      test: {
        include: options.include,
        exclude: options.exclude ?? [],
        setupFiles: [path.join(root, 'test/helpers/apply-migrations.ts')],
        globalSetup: options.globalSetup ?? [],
        testTimeout: 30_000,
        // Quiet when every test passes: only failed files and tests are printed, with the console output of failed
        // tests (`minimal`), and the summary; workerd's reports of exceptions the tests provoke are held back unless
        // the run fails (helpers/runtime-logs.mjs). `--reporter=default` lists every file as it finishes.
        reporters: ['minimal', runtimeReportsReporter],
        silent: 'passed-only',
        // Route groups load on their first request (app.ts): a file's first hook pays for the groups it seeds through.
        hookTimeout: 30_000,
        deps: { optimizer: { ssr: { enabled: true, include: ['hono', '@hono/zod-openapi', 'zod', 'drizzle-orm', 'drizzle-orm/sqlite-core', 'drizzle-orm/d1', 'hono/factory', 'hono/http-exception', 'hono/body-limit', 'hono/utils/http-status', '@scalar/openapi-validator', '@scalar/hono-api-reference', 'unified', 'remark-parse', 'remark-stringify', 'remark-gfm', 'remark-frontmatter', 'rehype-parse', 'rehype-remark', 'mdast-util-to-string', '@scalar/openapi-parser', 'yaml', 'jose', 'pdf-lib', 'jsep', 'ipaddr.js', 'image-size', '@cfworker/json-schema', 'hastscript', 'hast-util-to-html', 'hast-util-sanitize', 'lowlight', 'remark-math', 'hast-util-from-html', 'isomorphic-git'] } } },
        // Vitest's default leaves a core idle (one file at a time on a 2-core machine); each file waits on
        // its own workerd half of the time, so two at once finish the suite about a fifth sooner there.
        maxWorkers: Math.max(2, availableParallelism()),
        sequence: { sequencer: MigrationsFirst },
        // One workerd (and one module graph, migrated once) per worker, reused file after file, instead of a fresh
        // one per file: booting, migrating and importing the app again was a third of the suite's time. Files share
        // the database, so a test never counts or lists rows it did not make (each seeds its own organization).
        isolate: options.isolate ?? false,
        // In the test pool the test runner is itself a Durable Object, in the same isolate as the SpaceWriters, and the
        // files share one module graph: now and then a promise of one of them settles in another's context, and workerd
        // reports it as an unhandled rejection after the tests it belongs to have passed. That one message, and only it,
        // is printed instead of failing the run (see the closing note of issue 29); any other unhandled error fails it.
        onUnhandledError(error) {
          const message = error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error);
          if (!/^Cannot perform I\/O on behalf of a different Durable Object\..*\(I\/O type: (RefcountedFulfiller|Value)\)$/s.test(message)) return true;
          // Counted, and said in one line at the end of the run (helpers/runtime-logs.mjs).
          noteSettlement(message);
          return false;
        },
      },
    };
  });
}

// The suite makes hundreds of requests per token and per address (the hostile-input sweep): its budgets are
// out of reach, and test/limits (its own project, test/limits/vitest.config.ts) tests the limits themselves.
const UNREACHABLE = '1000000/60' as const;

const unreachableLimits = rateLimitBindings(Object.fromEntries(Object.values(RATE_LIMIT_POLICIES).map(({ binding }) => [binding.replace(/^RL_/, ''), UNREACHABLE])));

export default workersProject({
  include: ['test/**/*.test.ts'],
  exclude: ['test/limits/**', 'test/build/**'],
  // Bundles the integration written with GitBook's runtime, in Node (esbuild does not run in workerd).
  globalSetup: [
    path.join(root, 'test/fixtures/integrations/build-gitbook-integration.mjs'),
    // Runs the real `gitbook publish` (@gitbook/cli) and records its request, replayed by test/integrations/gitbook-cli-publish.test.ts.
    path.join(root, 'test/fixtures/integrations/capture-gitbook-publish.mjs'),
    // A real Git server (git http-backend behind basic auth) for test/git-sync, on 127.0.0.1: see GIT_SYNC_ALLOWED_HOSTS below.
    path.join(root, 'test/fixtures/git-sync/git-server.mjs'),
  ],
  // Git Sync may reach the tests' Git server on 127.0.0.1 (the operator's allowance, for Git only).
  ratelimits: unreachableLimits.ratelimits,
  // TEST_RATE_LIMITER: requests through fetchWorker count against in-isolate bindings of these budgets instead of
  // miniflare's (test/helpers/worker.ts): theirs cost a Durable Object round trip per check, a third of a cheap request.
  vars: { ...unreachableLimits.vars, GIT_SYNC_ALLOWED_HOSTS: '127.0.0.1', TEST_RATE_LIMITER: 'isolate' },
});
