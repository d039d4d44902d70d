import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The build's own tools (src/cli/*.mjs that run in Node.js before wrangler uploads the Worker), tested in Node.js:
 * what they import (the TypeScript compiler's parser, 9 MB) is not for the workerd pool of test/vitest.config.ts.
 * `npm test` runs this project beside the other two (test/helpers/run-suite.mjs).
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  cacheDir: path.resolve(import.meta.dirname, '../../.vite/build'),
  test: { include: ['test/build/**/*.test.ts'], environment: 'node' },
});
