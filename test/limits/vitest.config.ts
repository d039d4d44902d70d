import { rateLimitBindings, workersProject } from '../vitest.config.ts';

/**
 * The limits project: the Worker with budgets and caps small enough to reach in a test. Rate limits per
 * 10-second window; every test keys its own user (and its own CF-Connecting-IP), so files do not share budgets.
 */
export const TEST_RATE_LIMITS = {
  USER: '40/10',
  INSTALLATION: '40/10',
  OPERATOR: '100000/60',
  VISITOR: '5/10',
  CONTENT_WRITES: '5/10',
  EXPORTS: '3/10',
  SEARCH: '3/10',
  INGESTION: '3/10',
  SSO: '3/10',
} as const;

export const TEST_CAPS = {
  MAX_PAGES_PER_SPACE: '6',
  MAX_FILES_PER_SPACE: '3',
  MAX_FILE_BYTES: '2048',
  MAX_SPACES_PER_ORGANIZATION: '3',
  MAX_MEMBERS_PER_ORGANIZATION: '4',
  MAX_COMMENTS_PER_PAGE: '3',
  MAX_INTEGRATIONS_PER_ORGANIZATION: '2',
  MAX_INSTALLATIONS_PER_ORGANIZATION: '2',
  MAX_CONVERSATIONS_PER_DAY: '150',
} as const;

const { ratelimits, vars } = rateLimitBindings(TEST_RATE_LIMITS);

// Its own Vite cache: `npm test` runs it beside the main project (test/helpers/run-suite.mjs), which writes `.vite`.
export default workersProject({ include: ['test/limits/**/*.test.ts'], vars: { ...vars, ...TEST_CAPS }, ratelimits, cacheDir: '.vite/limits' });
