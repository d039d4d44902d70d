// `wrangler dev` for the tests that need a real server (the browser test, the examples test): on a free port,
// with its own local state (a `--persist-to` directory of the caller's: the developer's `.wrangler/state` is
// never touched) and secrets of its own, in a process group of its own so that workerd, its child, stops with it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../../src/cli/seed.mjs';

const WRANGLER_BIN = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the Worker. Its secrets are random, one each (CI has no .dev.vars; none stands in for another):
 * the operator token (answered as `adminToken`), the key of file URLs, of integration secrets and of site
 * tokens. `output()` is the end of what wrangler printed.
 */
export async function startDevServer(persistTo) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const secrets = Object.fromEntries(['ADMIN_TOKEN', 'FILES_SIGNING_KEY', 'INTEGRATIONS_KEY', 'SITE_TOKENS_KEY'].map((name) => [name, randomBytes(32).toString('base64url')]));
  const child = spawn(
    process.execPath,
    [WRANGLER_BIN, 'dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort), '--persist-to', persistTo, '--show-interactive-dev-session=false',
      ...Object.entries(secrets).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
      // As `npm run dev` runs it (src/cli/wrangler-dev.mjs): no edge cache locally, a merge shows on the site at once.
      '--var', 'SITE_EDGE_FRESH_SECONDS:0'],
    { cwd: ROOT, env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-100_000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  child.exited = new Promise((resolve) => child.on('exit', resolve));
  child.on('error', (error) => keep(`\n[could not start wrangler dev: ${error.message}]\n`));
  return { child, baseUrl: `http://127.0.0.1:${port}`, adminToken: secrets.ADMIN_TOKEN, output: () => output };
}

export async function stopDevServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const group = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  group('SIGTERM');
  const stopped = await Promise.race([child.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
  if (!stopped) group('SIGKILL');
  // workerd may outlive wrangler for a moment: make sure the whole group is gone.
  await new Promise((r) => setTimeout(r, 200));
  group('SIGKILL');
}
