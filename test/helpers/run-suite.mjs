#!/usr/bin/env node
/**
 * `npm test`: the test projects at once, the main one (test/vitest.config.ts) and the limits one
 * (test/limits/vitest.config.ts), each its own vitest process and workerd, and the build tools' (test/build, in Node.js). The limits project spends most of its
 * time waiting out 10-second rate limit windows (and its start, a workerd booted and the app imported, is
 * ~18 s on a 2-core machine): run after the main project, that was ~40 s added to the suite's wall time; beside
 * it, the waits cost no CPU and the rest shares the cores. Arguments go to both (`npm test -- --reporter=default`).
 * Exits with the first non-zero status of them, after all have finished.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
// The package's `vitest` command (its bin), as npm scripts run it.
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
const PROJECTS = [
  { name: 'main', config: 'test/vitest.config.ts' },
  { name: 'limits', config: 'test/limits/vitest.config.ts' },
  // The build's tools, in Node.js (a few seconds).
  { name: 'build', config: 'test/build/vitest.config.ts' },
];

function run({ name, config }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', '--config', config, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      const status = code ?? 1;
      console.log(`\n${name} project (${config}): ${status === 0 ? 'passed' : `failed (${signal ?? `exit ${status}`})`} in ${Math.round((Date.now() - started) / 1000)} s`);
      resolve(status);
    });
  });
}

const statuses = await Promise.all(PROJECTS.map(run));
process.exit(statuses.find((status) => status !== 0) ?? 0);
