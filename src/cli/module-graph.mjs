// What a cold isolate evaluates, read from the build's esbuild metafile (src/cli/build-worker.mjs). No imports: the
// test pool loads it in workerd (test/platform/module-graph.test.ts).

/** The output modules `start` imports statically, itself included, directly or through others: what evaluating it evaluates. */
export function staticClosure(metafile, start) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !metafile.outputs[name]) return;
    seen.add(name);
    for (const imported of metafile.outputs[name].imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(start);
  return seen;
}

/** The source modules evaluated with output `start`: those of its static closure. */
const sourcesEvaluatedWith = (metafile, start) => new Set([...staticClosure(metafile, start)].flatMap((name) => Object.keys(metafile.outputs[name].inputs)));

/**
 * Where the route groups of `groupsModule` (each one a dynamic `import()` there: src/routes/groups.ts) are not apart:
 * a group's module evaluated with the entry (at every isolate's startup), or with another group's (by that group's
 * first request, which would then pay for both). Answers one line per fault; none when every group loads alone.
 */
export function routeGroupsNotApart(metafile, groupsModule = 'src/routes/groups.ts') {
  const groups = (metafile.inputs[groupsModule]?.imports ?? []).filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
  const outputs = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const entry = outputs.find(([, output]) => output.entryPoint && !groups.includes(output.entryPoint) && output.inputs[groupsModule]);
  const faults = [];
  if (groups.length === 0) return [`${groupsModule} imports no route group`];
  const atStartup = entry ? sourcesEvaluatedWith(metafile, entry[0]) : new Set();
  for (const group of groups) {
    if (atStartup.has(group)) faults.push(`${group} is evaluated at startup, with the entry`);
    const holder = outputs.find(([, output]) => output.entryPoint === group);
    if (!holder) {
      faults.push(`${group} is the entry point of no module`);
      continue;
    }
    const evaluated = sourcesEvaluatedWith(metafile, holder[0]);
    for (const other of groups) if (other !== group && evaluated.has(other)) faults.push(`${group}'s first request evaluates ${other}`);
  }
  return faults;
}

/** Whether a source module of the build is zod or its OpenAPI extension. */
export const isZodSource = (input) => /(^|[\\/])node_modules[\\/](zod|@hono[\\/]zod-openapi|@hono[\\/]zod-validator|@asteasolutions[\\/]zod-to-openapi)[\\/]|^zod-openapi-first:/.test(input);

/**
 * Of `sources` (modules a request imports on demand: a route group, the published site), those whose first import
 * evaluates zod, with the zod modules it evaluates beyond what the entry already did: the hot paths kept zod-free
 * (a cold page read built zod and its schemas for a third of its CPU, issue 42 item 7). One line per fault.
 */
export const zodEvaluatedWith = (metafile, sources) => evaluatedWith(metafile, sources, isZodSource, 'zod');

/**
 * Source modules the published site's first import (src/site/routes.ts) leaves to the requests that use them, each a
 * dynamic import: the document renderer and what it builds on evaluation (hastscript, property-information's tables,
 * hast-util-sanitize, hast-util-to-html: views.ts `documentRenderer`, for the first HTML page rendered), the JSON Schema
 * validator of visitors' claims (services/sites/access `claimsOf`, for a visitor with a token) and the site's search
 * (views.ts `searchOfSite`). An answer from the edge cache, a 404 or a redirect evaluates none of them.
 */
export const isSiteOnDemandSource = (input) =>
  /(^|[\\/])node_modules[\\/](hastscript|property-information|hast-util-sanitize|hast-util-to-html|@cfworker[\\/]json-schema)[\\/]/.test(input) ||
  /^src\/(site\/render\/document|site\/search|services\/search\/search|services\/sites\/adaptive-schema)\.ts$/.test(input);

/**
 * Source modules a member's page read (GET .../content/page/{pageId}, routes/space-content/content.ts) has no use for,
 * which its first request in a cold isolate evaluated until issue 42 item 7 took them off: packed-documents and its
 * node:zlib (the page's document is inflated by the runtime, packed-form), the content writers (revisions.ts with
 * document-deltas and `diff`: the page read needs of them only canonical-json, slugs and document-references), and
 * the site conditions' evaluator with jsep (whose evaluation registers its parsers), loaded for a site token's read.
 */
export const isPageReadUnneededSource = (input) =>
  /(^|[\/])node_modules[\/](diff|jsep)[\/]/.test(input) ||
  /^src\/services\/(content\/(revisions|document-deltas|packed-documents)|sites\/conditions)\.ts$/.test(input);

/**
 * Source modules a published page has no use for, which its first request (the site's module and its renderer)
 * evaluated until issue 42 item 7 took them off: the API's content reads and their statements, presenters and change
 * requests (reads.ts: the site needs only services/content/tree-rows), the content writers (revisions.ts with its
 * deltas and `diff`, tree.ts, pages.ts, convert.ts), the customization checks, the OpenAPI document's app
 * (lib/lazy-router), and two modules imported on demand only where a page needs them: the computed (OpenAPI) pages and
 * the integration events of a site with receivers of its views. And services/content/packed-documents, whose
 * `node:zlib` (workerd's zlib, stream and process modules, about 45% of a cold page) a page reads without: its
 * documents are inflated by the runtime (packed-form `documentTextNative`), a Brotli one stored before loads it then.
 */
export const isSitePageUnneededSource = (input) =>
  /(^|[\\/])node_modules[\\/]diff[\\/]/.test(input) ||
  /^src\/(services\/content\/(reads|revisions|tree|pages|convert|document-deltas|page-statement|change-requests|presenter|packed-documents)|services\/openapi\/computed-pages|services\/integrations\/events|services\/sites\/customization-references|lib\/lazy-router)\.ts$/.test(input);

/**
 * Source modules the published page's renderer (src/site/render/document.ts, the first page rendered) no longer
 * evaluates: hastscript and hast-util-to-html, and property-information's tables of every HTML and SVG attribute that
 * both read on evaluation (7-11% of a cold isolate's first page). Its own `h` and `toHtml` (src/site/render/html-tree)
 * take their place; nothing else of the Worker's published path uses them (the Markdown reader's hast-util-from-html
 * is the Git Sync and import paths').
 */
export const isRendererTableSource = (input) =>
  /(^|[\\/])node_modules[\\/](hastscript|property-information|hast-util-to-html|stringify-entities|character-entities-(legacy|html4))[\\/]/.test(input);

/**
 * Of `sources`, those whose first import evaluates a source module `forbidden` names (beyond what the entry already
 * did), each with the modules it evaluates: one line per fault, `what` naming the kind.
 */
export function evaluatedWith(metafile, sources, forbidden, what) {
  return faultsOf(metafile, sources, (holder, source) => {
    const found = [...sourcesEvaluatedWith(metafile, holder)].filter(forbidden);
    return found.length > 0 ? `${source}'s first import evaluates ${what}: ${found.join(', ')}` : null;
  });
}

/** `fault(holder, source)` for each of `sources`, `holder` the output module its first import evaluates; a source in no module is a fault. */
function faultsOf(metafile, sources, fault) {
  const outputs = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const faults = [];
  for (const source of sources) {
    const holder = outputs.find(([, output]) => output.entryPoint === source) ?? outputs.find(([, output]) => output.inputs[source]);
    const found = holder ? fault(holder[0], source) : `${source} is in no module of the build`;
    if (found) faults.push(found);
  }
  return faults;
}

/**
 * Of `sources`, those whose first import imports a Node.js built-in (`node:...`, external to the build), each with the
 * built-ins: workerd evaluates a built-in's own modules on its first import (`node:zlib` with its stream and process
 * modules was about 45% of a cold isolate's first published page). One line per fault.
 */
export function builtinsImportedWith(metafile, sources) {
  return faultsOf(metafile, sources, (holder, source) => {
    const builtins = new Set();
    for (const name of staticClosure(metafile, holder))
      for (const imported of metafile.outputs[name].imports ?? []) if (imported.external && imported.kind === 'import-statement' && imported.path.startsWith('node:')) builtins.add(imported.path);
    return builtins.size > 0 ? `${source}'s first import imports ${[...builtins].join(', ')}` : null;
  });
}

/**
 * The published page's statements written out as constant SQL (db/constant-select): its first batch
 * (services/sites/visitor-model), its content (site/content-sql). A cold isolate's first page builds no SQL with drizzle
 * (its `sqlToQuery` was about a tenth of that page in all); these modules keep it so by importing neither drizzle-orm
 * nor the modules whose SQL fragments they write out (each text is held to drizzle's by a test, not built from them).
 */
export const CONSTANT_SQL_SOURCES = [
  'src/site/content-sql.ts',
  'src/services/sites/visitor-model.ts',
  // The page read's statement and the auth middleware's, and the modules generated for them (src/cli/constant-sql.ts).
  'src/services/content/page-statement.ts',
  'src/middleware/auth-statements.ts',
  'src/site/content-sql.generated.ts',
  'src/services/content/page-statement.generated.ts',
  'src/middleware/auth-statements.generated.ts',
];

const isSqlBuilding = (imported) =>
  /^drizzle-orm(\/|$)/.test(imported.original ?? '') || /(^|[\\/])src[\\/]services[\\/]content[\\/](tree|reads|packed-documents)\.ts$/.test(imported.path);

/** Of `sources` (CONSTANT_SQL_SOURCES), those that import drizzle-orm or a module of SQL fragments: one line per fault. */
export function constantSqlBuilding(metafile, sources = CONSTANT_SQL_SOURCES) {
  const faults = [];
  for (const source of sources) {
    const input = metafile.inputs[source];
    if (!input) {
      faults.push(`${source} is in no module of the build`);
      continue;
    }
    const found = input.imports.filter(isSqlBuilding).map((imported) => imported.original ?? imported.path);
    if (found.length > 0) faults.push(`${source} builds SQL with ${found.join(', ')}: the published page's statements are constant text`);
  }
  return faults;
}
