#!/usr/bin/env node
// Builds the Worker as a graph of ES modules (`.build/worker/`), which wrangler uploads as they are (`no_bundle` and
// `find_additional_modules` in wrangler.toml): the entry holds the middleware every request runs, and each dynamic
// `import()` of the source (a route group, the site, the jobs, the Markdown converters...) becomes a module of its
// own that workerd compiles and evaluates only when a request first imports it. Bundled as one script (what wrangler
// does by itself, its esbuild has no code splitting), a cold isolate parsed all 7.8 MB before its first answer.
//
// The esbuild settings are wrangler's own for a module Worker (target, conditions, loaders, keep names, Node.js
// built-ins left to workerd's nodejs_compat, a CommonJS `require()` of a built-in turned into an import), plus
// `splitting`. wrangler.toml's `[build] command` runs it before every `wrangler dev` and `wrangler deploy`; the
// benchmark builds its own entry with it (test/bench/routes.ts). `node src/cli/build-worker.mjs` does it by hand.
import { builtinModules } from 'node:module';
import { mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { prepareDocsAssets } from './docs-assets.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where wrangler.toml's `main` points, and the directory its `find_additional_modules` reads. */
export const WORKER_OUT_DIR = '.build/worker';

/**
 * Where the modules the entry imports on demand go, below WORKER_OUT_DIR: wrangler.toml's `rules` upload what matches
 * `on-demand/*.js` there. The name is one no package uses: the vitest pool applies wrangler's rules to every module
 * path it loads, unanchored (a `**\/*.js` rule would hand vite's own modules to workerd untransformed).
 */
export const ON_DEMAND_DIR = 'on-demand';

const BUILT_INS = new Set(builtinModules.filter((name) => !name.startsWith('_')));
const isBuiltIn = (specifier) => specifier.startsWith('node:') || BUILT_INS.has(specifier.split('/')[0]);

/**
 * Node.js built-ins and `cloudflare:` modules are workerd's (nodejs_compat): left as imports. A CommonJS
 * `require('util')` (xml-crypto's) would become esbuild's throwing `__require` in an ES module: it is given the
 * module's default export through an import instead, as wrangler does.
 */
const runtimeModules = {
  name: 'runtime-modules',
  setup(build) {
    build.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltIn(args.path)) return undefined;
      if (args.kind === 'require-call') return { path: args.path, namespace: 'required-built-in' };
      return { path: args.path, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'required-built-in' }, (args) => ({
      contents: `import builtIn from ${JSON.stringify(args.path)};\nmodule.exports = builtIn;`,
      loader: 'js',
    }));
  },
};

/**
 * zod's error messages in English only. `z.locales` (and `z.core.locales`) re-export the messages of some fifty
 * languages, 370 KB that every route group's module would carry and a cold isolate parse, though only English is
 * ever used: zod installs it by itself (classic/schemas imports locales/en directly) and this code never calls
 * `z.config(z.locales.xx())`. `z.locales.en` stays; any other language is undefined in the Worker.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: `export { default as en } from './en.js';\n`,
      loader: 'js',
    }));
  },
};

/**
 * Builds `entry` (relative to the checkout) into `outdir` (emptied first): `index.js` and its chunks. Answers the
 * modules written, with their sizes, entry first.
 */
export async function buildWorker({ root = ROOT, entry = 'src/index.ts', outdir = WORKER_OUT_DIR, minify = false } = {}) {
  const { out } = await buildWithMetafile({ root, entry, outdir, minify });
  return listModules(out);
}

async function buildWithMetafile({ root = ROOT, entry = 'src/index.ts', outdir = WORKER_OUT_DIR, minify = false } = {}) {
  const out = resolve(root, outdir);
  rmSync(out, { recursive: true, force: true });
  const { metafile } = await esbuild.build({
    metafile: true,
    absWorkingDir: root,
    entryPoints: { index: resolve(root, entry) },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    chunkNames: `${ON_DEMAND_DIR}/[name]-[hash]`,
    target: 'es2024',
    supported: { 'import-source': true, using: true },
    conditions: ['workerd', 'worker', 'browser'],
    loader: { '.js': 'jsx', '.mjs': 'jsx', '.cjs': 'jsx' },
    keepNames: true,
    minify,
    sourcemap: true,
    define: { 'process.env.NODE_ENV': JSON.stringify(process.env.NODE_ENV || 'production') },
    plugins: [runtimeModules, zodEnglishOnly],
    logLevel: 'warning',
  });
  return { out, metafile };
}

function listModules(dir, base = dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) found.push(...listModules(file, base));
    else if (name.endsWith('.js')) found.push({ name: relative(base, file), bytes: statSync(file).size });
  }
  return found.sort((a, b) => (a.name === 'index.js' ? -1 : b.name === 'index.js' ? 1 : a.name.localeCompare(b.name)));
}

/**
 * The source modules a cold isolate evaluates when it first imports `source` (e.g. `src/site/routes.ts`): those of
 * the chunk that holds it and of every chunk that chunk imports statically, less what the entry already evaluated at
 * startup. Answers them largest first, with the bytes each puts in the output.
 */
export function modulesEvaluatedOnDemand(metafile, source) {
  const chunks = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const holder = chunks.find(([, chunk]) => chunk.inputs[source]);
  if (!holder) throw new Error(`${source} is in no module of the build`);
  const staticClosure = (start) => {
    const seen = new Set();
    const visit = (name) => {
      if (seen.has(name) || !metafile.outputs[name]) return;
      seen.add(name);
      for (const imported of metafile.outputs[name]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(start);
    return seen;
  };
  // The entry is the one output not below ON_DEMAND_DIR (a dynamic import's module names its source too).
  const entry = chunks.find(([name]) => !name.includes(`/${ON_DEMAND_DIR}/`))?.[0];
  const atStartup = entry ? staticClosure(entry) : new Set();
  const modules = [];
  for (const name of staticClosure(holder[0])) {
    if (atStartup.has(name)) continue;
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[name].inputs)) modules.push({ input, bytes: bytesInOutput });
  }
  return modules.sort((a, b) => b.bytes - a.bytes);
}

/** `modulesEvaluatedOnDemand` of each of `sources` in the build of `entry` (made in a scratch directory). */
export async function onDemandModules({ root = ROOT, entry = 'src/index.ts', sources }) {
  const scratch = mkdtempSync(join(tmpdir(), 'dpa-worker-graph-'));
  try {
    const { metafile } = await buildWithMetafile({ root, entry, outdir: relative(root, scratch) });
    return new Map(sources.map((source) => [source, modulesEvaluatedOnDemand(metafile, source)]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Whether a module of the build is zod or an extension of it: what a published page must not evaluate. */
export const isZodModule = (input) => /[\\/]node_modules[\\/](zod|@hono[\\/]zod-openapi|@asteasolutions[\\/]zod-to-openapi)[\\/]/.test(input);

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === '--graph') {
  // `node src/cli/build-worker.mjs --graph src/site/routes.ts [src/routes/spaces/spaces.ts...]`: what each costs a cold isolate.
  const sources = process.argv.slice(3);
  for (const [source, modules] of await onDemandModules({ sources })) {
    const total = modules.reduce((sum, m) => sum + m.bytes, 0);
    console.log(`${source}: ${modules.length} modules, ${(total / 1e3).toFixed(0)} KB evaluated on its first import`);
    for (const { input, bytes } of modules) console.log(`  ${String(bytes).padStart(8)}  ${input}`);
  }
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The API reference's browser bundle, which `[assets]` serves (the build command's other half).
  prepareDocsAssets();
  const modules = await buildWorker();
  const total = modules.reduce((sum, m) => sum + m.bytes, 0);
  console.log(`build-worker: ${modules.length} modules, ${(total / 1e6).toFixed(1)} MB in ${WORKER_OUT_DIR} (entry ${(modules[0].bytes / 1e3).toFixed(0)} KB)`);
}
