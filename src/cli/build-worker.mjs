#!/usr/bin/env node
// Builds the Worker as a graph of ES modules (`.build/worker/`), which wrangler uploads as they are (`no_bundle` and
// `find_additional_modules` in wrangler.toml): the entry holds the middleware every request runs, and each dynamic
// `import()` of the source (a route group, the site, the jobs, the Markdown converters...) becomes a module of its
// own that workerd compiles and evaluates only when a request first imports it. Bundled as one script (what wrangler
// does by itself, its esbuild has no code splitting), a cold isolate parsed all 7.8 MB before its first answer.
//
// The esbuild settings are wrangler's own for a module Worker (target, conditions, loaders, Node.js built-ins left to
// workerd's nodejs_compat, a CommonJS `require()` of a built-in turned into an import), plus `splitting`, less
// wrangler's `keepNames`, plus `minifySyntax` (see `buildWithMetafile`). wrangler.toml's `[build] command` runs it
// before every `wrangler dev` and `wrangler deploy`; the benchmark builds its own entry with it (test/bench/routes.ts). `node src/cli/build-worker.mjs` does it by hand.
import { builtinModules } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { prepareDocsAssets } from './docs-assets.mjs';
import { eagerFunctions, eagerModules } from './eager-compile.mjs';
import { builtinsImportedWith, constantSqlBuilding, evaluatedWith, isPageReadUnneededSource, isRendererTableSource, isSiteOnDemandSource, isSitePageUnneededSource, routeGroupsNotApart, staticClosure, zodEvaluatedWith } from './module-graph.mjs';

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
 * zod's `.openapi()` exists once @hono/zod-openapi's module has run (it extends zod's prototype). A schema module
 * imports `z` from it, but `z` is zod's own binding re-exported, and esbuild's split build then imports zod's chunk
 * only: nothing makes the extension's module run first, and a module reached without it (the queue consumer, the
 * cron, Git Sync's operations, in an isolate whose first event they are) failed with `.openapi is not a function`.
 * Every import of '@hono/zod-openapi' from the source gets this module instead: the package's exports, and a `z` of
 * its own, made after it extended zod (an idempotent call), so that importing `z` runs the extension first.
 */
const ZOD_OPENAPI_FIRST = 'zod-openapi-first';
const zodOpenApiFirst = {
  name: ZOD_OPENAPI_FIRST,
  setup(build) {
    build.onResolve({ filter: /^@hono\/zod-openapi$/ }, (args) => {
      // The module's own import below is the package itself.
      if (args.namespace === ZOD_OPENAPI_FIRST) return undefined;
      return { path: '@hono/zod-openapi', namespace: ZOD_OPENAPI_FIRST, pluginData: { resolveDir: args.resolveDir } };
    });
    build.onLoad({ filter: /.*/, namespace: ZOD_OPENAPI_FIRST }, (args) => ({
      contents: [
        `import { extendZodWithOpenApi, z as zod } from '@hono/zod-openapi';`,
        `export * from '@hono/zod-openapi';`,
        `extendZodWithOpenApi(zod);`,
        `export const z = zod;`,
      ].join('\n'),
      resolveDir: args.pluginData.resolveDir,
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

/** `buildWorker` with esbuild's metafile (the build's inputs and outputs), for the checks and tests that read the graph. */
export async function buildWithMetafile({ root = ROOT, entry = 'src/index.ts', outdir = WORKER_OUT_DIR, minify = false } = {}) {
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
    // No `keepNames`: it wraps every function and class in a `__name()` call (7,600 of them) that a cold isolate parses
    // and runs, some on every request (closures made per call); it only keeps `.name` where bundling renamed a
    // binding (`sql2`), which no code here reads (jose's and pdf-lib's error classes name themselves in messages only).
    // `minifySyntax` shortens the code (a cold isolate parses 10% fewer bytes) and keeps one statement a line, so
    // that a stack trace's line still points at readable code; whitespace and identifiers are kept for the same reason.
    keepNames: false,
    minifySyntax: true,
    minify,
    sourcemap: true,
    define: { 'process.env.NODE_ENV': JSON.stringify(process.env.NODE_ENV || 'production') },
    plugins: [runtimeModules, zodEnglishOnly, zodOpenApiFirst],
    logLevel: 'warning',
  });
  assertZodExtendedFirst(metafile);
  assertRouteGroupsApart(metafile);
  // Another checkout built with this script (a benchmark's baseline) is measured as it is.
  if (root === ROOT) assertZodFree(metafile);
  compileEagerly(root, metafile);
  return { out, metafile };
}

/**
 * The modules a published page's first request evaluates (the site's, the renderer's, the group apps', less the
 * entry's) with their functions compiled when workerd compiles them at the isolate's creation, not on their first
 * call (eager-compile.mjs says how and why): the request no longer parses them a second time. Builds without the site
 * (the benchmark's reference) are left as they are.
 */
function compileEagerly(root, metafile) {
  if (!metafile.inputs[SITE]) return;
  const entry = Object.keys(metafile.outputs).find((name) => name.endsWith('.js') && !name.includes(`/${ON_DEMAND_DIR}/`));
  const atStartup = entry ? staticClosure(metafile, entry) : new Set();
  for (const { name, cyclic } of eagerModules(metafile, EAGER_SOURCES, atStartup, staticClosure)) {
    const file = resolve(root, name);
    writeFileSync(file, eagerFunctions(readFileSync(file, 'utf8'), { declarations: !cyclic }).code);
  }
}

/**
 * The modules whose first import must evaluate no zod: the page read's route group (its routes' definitions apart, in
 * content-routes.ts, lib/lazy-router) and the published site. A cold isolate's first request of either pays for no
 * schema. Builds of other entries (the benchmark's reference) have neither and are not checked, nor are other checkouts.
 */
export const ZOD_FREE = ['src/routes/space-content/content.ts', 'src/site/routes.ts'];

/**
 * The page read's route group (GET .../content/page/{pageId}): its first import imports no Node.js built-in, nor
 * evaluates what it does not need (module-graph.mjs isPageReadUnneededSource). It reads
 * stored documents as the published site does (packed-form, packed-sql: the runtime's inflate), where packed-documents'
 * node:zlib (its zlib, stream and process modules) was the largest part of a cold isolate's first page read.
 */
export const PAGE_READ = 'src/routes/space-content/content.ts';

/** The published site's module: its first import leaves the renderer, claims validation and search on demand (module-graph.mjs isSiteOnDemandSource). */
export const SITE = 'src/site/routes.ts';

/** What serves every route group, the published site's included: its first import evaluates no more than a page needs (module-graph.mjs isSitePageUnneededSource). */
export const GROUP_APP = 'src/routes/group-app.ts';

/** The published page's renderer, whose first import evaluates no attribute tables (module-graph.mjs isRendererTableSource). */
export const RENDERER = 'src/site/render/document.ts';

/** What a published page's first request imports: its modules' functions are compiled with them (compileEagerly). */
const EAGER_SOURCES = [GROUP_APP, SITE, RENDERER];

function assertZodFree(metafile) {
  const present = ZOD_FREE.filter((source) => metafile.inputs[source]);
  const faults = [
    ...zodEvaluatedWith(metafile, present),
    ...(metafile.inputs[SITE] ? evaluatedWith(metafile, [SITE], isSiteOnDemandSource, 'what it loads on demand') : []),
    ...(metafile.inputs[RENDERER] ? evaluatedWith(metafile, [RENDERER], isRendererTableSource, 'the hast tables it no longer needs') : []),
    ...(metafile.inputs[SITE] && metafile.inputs[RENDERER] && metafile.inputs[GROUP_APP]
      ? [
          ...evaluatedWith(metafile, [GROUP_APP, SITE, RENDERER], isSitePageUnneededSource, 'what a published page does not need'),
          ...builtinsImportedWith(metafile, [GROUP_APP, SITE, RENDERER]),
        ]
      : []),
    ...(metafile.inputs[SITE] ? constantSqlBuilding(metafile) : []),
    ...(metafile.inputs[PAGE_READ] && metafile.inputs[GROUP_APP]
      ? [
          ...builtinsImportedWith(metafile, [GROUP_APP, PAGE_READ]),
          ...evaluatedWith(metafile, [GROUP_APP, PAGE_READ], isPageReadUnneededSource, 'what a page read does not need'),
        ]
      : []),
  ];
  if (faults.length > 0) throw new Error(`build-worker: ${faults.join('; ')}`);
}

/**
 * Fails the build if a module importing '@hono/zod-openapi' sits in a module of the output that does not import,
 * directly or through others, the one that extends zod (zodOpenApiFirst's module, or the package's own): evaluated
 * on demand without it, its schemas' `.openapi()` would throw.
 */
export function assertZodExtendedFirst(metafile) {
  const extending = (input) => input === `${ZOD_OPENAPI_FIRST}:@hono/zod-openapi` || /[\\/]@hono[\\/]zod-openapi[\\/]dist[\\/]index\.mjs$/.test(input);
  const outputs = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const extenders = new Set(outputs.filter(([, chunk]) => Object.keys(chunk.inputs).some(extending)).map(([name]) => name));
  const reachesExtender = (start) => {
    const seen = new Set();
    const visit = (name) => {
      if (seen.has(name) || !metafile.outputs[name]) return false;
      seen.add(name);
      return extenders.has(name) || metafile.outputs[name].imports.some((i) => i.kind === 'import-statement' && visit(i.path));
    };
    return visit(start);
  };
  const importsZodOpenApi = (input) => metafile.inputs[input]?.imports.some((i) => i.original === '@hono/zod-openapi');
  const unordered = outputs.filter(([name, chunk]) => Object.keys(chunk.inputs).some(importsZodOpenApi) && !reachesExtender(name));
  if (unordered.length > 0) {
    const where = unordered.map(([name, chunk]) => `${name} (${Object.keys(chunk.inputs).filter(importsZodOpenApi).join(', ')})`);
    throw new Error(`build-worker: modules that use zod's .openapi() without importing the module that adds it: ${where.join('; ')}`);
  }
}

/**
 * Fails the build of the Worker if a route group (src/routes/groups.ts) is evaluated at startup or by another group's
 * first request: each must load alone, on its first request (module-graph.mjs). Builds of other entries (the
 * benchmark's reference) have no groups and are not checked.
 */
function assertRouteGroupsApart(metafile) {
  if (!metafile.inputs['src/routes/groups.ts']) return;
  const faults = routeGroupsNotApart(metafile);
  const unknown = faults.filter((fault) => !KNOWN_NOT_APART.includes(fault));
  const gone = KNOWN_NOT_APART.filter((fault) => !faults.includes(fault));
  if (unknown.length > 0) throw new Error(`build-worker: route groups not loaded apart: ${unknown.join('; ')}`);
  // A fault fixed leaves the list, so that it cannot come back unseen.
  if (gone.length > 0) throw new Error(`build-worker: KNOWN_NOT_APART lists what is fixed now, remove it: ${gone.join('; ')}`);
}

/**
 * Route groups that still evaluate another's module on their first request: each imports a parameter schema or a
 * helper from the other router's module. The way out is the one src/routes/sites/params.ts took (the sites routers'
 * shared parameters, which made 14 groups evaluate the sites router), and openapi/params.ts and conversations/params.ts:
 * the shared part in a module of its own.
 */
const KNOWN_NOT_APART = [
  "src/routes/sites/redirects-bulk.ts's first request evaluates src/routes/sites/redirects.ts",
];

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
  // The entry is the one output not below ON_DEMAND_DIR (a dynamic import's module names its source too).
  const entry = chunks.find(([name]) => !name.includes(`/${ON_DEMAND_DIR}/`))?.[0];
  const atStartup = entry ? staticClosure(metafile, entry) : new Set();
  const modules = [];
  for (const name of staticClosure(metafile, holder[0])) {
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
