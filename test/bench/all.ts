/**
 * `npm run bench`: the route benchmark, the Markdown and merge benchmark, then the conversation analysis
 * benchmark, each in its own process, all given the command's arguments (`npm run bench -- --ceiling` reaches
 * the route benchmark).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const here = import.meta.dirname;
for (const script of ['routes.ts', 'markdown.ts', 'conversations.ts']) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, script), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
