/**
 * `npm run bench`: the startup and cold-start figures, the route benchmark, the storage benchmark, the Markdown and merge benchmark,
 * then the conversation analysis benchmark, then Git Sync's (fetch, import and export of a 182-page repository), each in its own process, all given the command's arguments
 * (`npm run bench -- --ceiling` reaches the route benchmark).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { prepareDocsAssets } from '../../src/cli/docs-assets.mjs';

const here = import.meta.dirname;
// `npm run bench -- startup`, `-- cold`, `-- routes`, `-- lists`, `-- storage` or `-- git-sync` runs that part alone (startup.ts:
// startup CPU against the reference Worker; cold.ts: the first request of a fresh isolate; lists.ts:
// organization-wide lists at 150 and 5,000 spaces; storage.ts: D1 bytes per page and per one-page edit on a real
// corpus written through the API; git-sync.ts: Git Sync against a real Git server; first-wave.ts: concurrent first
// requests of route groups answer no 500, alone since it checks rather than measures); `npm run bench` runs every part.
const PARTS: Record<string, string[]> = { startup: ['startup.ts'], cold: ['cold.ts'], routes: ['routes.ts'], lists: ['lists.ts'], storage: ['storage.ts'], 'git-sync': ['git-sync.ts'], 'first-wave': ['first-wave.ts'] };
const chosen = process.argv.slice(2).find((arg) => arg in PARTS);
const rest = process.argv.slice(2).filter((arg) => arg !== chosen);
// wrangler.toml's `[assets]` directory must exist for `wrangler check startup` to read the config.
prepareDocsAssets();
for (const script of chosen ? PARTS[chosen] : ['startup.ts', 'cold.ts', 'routes.ts', 'lists.ts', 'storage.ts', 'markdown.ts', 'conversations.ts', 'git-sync.ts']) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, script), ...rest], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
