#!/usr/bin/env node
// Fills the Worker's static assets (`[assets]` in wrangler.toml, the git-ignored `.assets/` directory) with the
// browser bundle of the API reference that `GET /docs` loads: @scalar/api-reference's `dist/browser/standalone.js`
// (the version package.json pins), served by the platform from our own origin as `/docs/assets/api-reference.js`.
// It is never part of the Worker's module graph (4 MB of script would cost startup CPU) and no CDN is asked.
// Run before every `wrangler dev`, `wrangler deploy` and test run: `npm run dev`, `npm start`, `npm run deploy`,
// the test configs and the browser test call it; `node src/cli/docs-assets.mjs` does it by hand.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The assets directory wrangler.toml names, and the bundle's path under it (the URL path `/docs/assets/...`). */
export const ASSETS_DIR = '.assets';
export const REFERENCE_BUNDLE = 'docs/assets/api-reference.js';

/**
 * Copies the bundle into `<root>/.assets/docs/assets/` unless the copy there is already the same file (same size,
 * not older). Answers the copy's path and the package version it came from.
 */
export function prepareDocsAssets(root = ROOT) {
  // The package's `exports` hide package.json and dist/browser from resolution: read its installed directory.
  const packageDir = join(root, 'node_modules', '@scalar', 'api-reference');
  if (!existsSync(join(packageDir, 'package.json'))) throw new Error('docs-assets: @scalar/api-reference is not installed (run npm ci)');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const source = join(packageDir, 'dist', 'browser', 'standalone.js');
  const target = join(root, ASSETS_DIR, REFERENCE_BUNDLE);
  const from = statSync(source);
  const to = statSync(target, { throwIfNoEntry: false });
  if (!to || to.size !== from.size || to.mtimeMs < from.mtimeMs) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source, target);
  }
  return { path: target, version };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { path, version } = prepareDocsAssets();
  console.log(`docs-assets: @scalar/api-reference ${version} -> ${path.slice(ROOT.length + 1)}`);
}
