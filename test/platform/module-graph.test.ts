/**
 * Each route group loads alone (src/cli/module-graph.mjs `routeGroupsNotApart`, which src/cli/build-worker.mjs runs on
 * every build of the Worker and fails it on a fault it does not know): a group's first request evaluates its own
 * module and what that imports, never another group's module, and the entry (every isolate's startup) none. Here on
 * metafiles shaped as esbuild writes them for a split build; the real one is checked by the build itself.
 */
import { describe, expect, it } from 'vitest';
import { builtinsImportedWith, CONSTANT_SQL_SOURCES, constantSqlBuilding, evaluatedWith, isRendererTableSource, isSiteOnDemandSource, isSitePageUnneededSource, routeGroupsNotApart, zodEvaluatedWith } from '../../src/cli/module-graph.mjs';

const GROUPS = 'src/routes/groups.ts';
const A = 'src/routes/a.ts';
const B = 'src/routes/b.ts';

type Output = { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }>; imports: { path: string; kind: string; external?: boolean }[] };

/** A split build of an entry importing groups A and B on demand, each its own module, sharing a zod chunk. */
function build(change: (outputs: Record<string, Output>) => void = () => {}) {
  const inputs = {
    'src/index.ts': { imports: [{ path: GROUPS, kind: 'import-statement' }] },
    [GROUPS]: { imports: [{ path: A, kind: 'dynamic-import' }, { path: B, kind: 'dynamic-import' }] },
    [A]: { imports: [{ path: 'node_modules/zod/index.js', kind: 'import-statement' }] },
    [B]: { imports: [{ path: 'node_modules/zod/index.js', kind: 'import-statement' }] },
  };
  const of = (...sources: string[]) => Object.fromEntries(sources.map((source) => [source, { bytesInOutput: 1 }]));
  const outputs: Record<string, Output> = {
    'out/index.js': { entryPoint: 'src/index.ts', inputs: of('src/index.ts', GROUPS), imports: [{ path: 'out/on-demand/a.js', kind: 'dynamic-import' }, { path: 'out/on-demand/b.js', kind: 'dynamic-import' }] },
    'out/on-demand/a.js': { entryPoint: A, inputs: of(A), imports: [{ path: 'out/on-demand/zod.js', kind: 'import-statement' }] },
    'out/on-demand/b.js': { entryPoint: B, inputs: of(B), imports: [{ path: 'out/on-demand/zod.js', kind: 'import-statement' }] },
    'out/on-demand/zod.js': { inputs: of('node_modules/zod/index.js'), imports: [] },
  };
  change(outputs);
  return { inputs, outputs };
}

describe('route groups loaded apart', () => {
  it('groups that share only libraries are apart', () => {
    expect(routeGroupsNotApart(build())).toEqual([]);
  });

  it("a group whose module imports another group's module evaluates it on its first request", () => {
    // What esbuild makes of `import { Params } from './b'` in a.ts: b.ts moves to a chunk both group modules import.
    const metafile = build((outputs) => {
      outputs['out/on-demand/chunk-b.js'] = { inputs: { [B]: { bytesInOutput: 1 } }, imports: [] };
      outputs['out/on-demand/b.js'] = { entryPoint: B, inputs: {}, imports: [{ path: 'out/on-demand/chunk-b.js', kind: 'import-statement' }] };
      outputs['out/on-demand/a.js'].imports.push({ path: 'out/on-demand/chunk-b.js', kind: 'import-statement' });
    });
    expect(routeGroupsNotApart(metafile)).toEqual([`${A}'s first request evaluates ${B}`]);
  });

  it('a group the entry imports statically is evaluated at startup', () => {
    const metafile = build((outputs) => {
      outputs['out/index.js'].imports.push({ path: 'out/on-demand/b.js', kind: 'import-statement' });
    });
    expect(routeGroupsNotApart(metafile)).toEqual([`${B} is evaluated at startup, with the entry`]);
  });

  it('a dynamic import of another group is not evaluated with it', () => {
    const metafile = build((outputs) => {
      outputs['out/on-demand/a.js'].imports.push({ path: 'out/on-demand/b.js', kind: 'dynamic-import' });
    });
    expect(routeGroupsNotApart(metafile)).toEqual([]);
  });
});

describe('hot paths that evaluate no zod (build-worker.mjs ZOD_FREE)', () => {
  /** Group A split as src/routes/space-content/content.ts is: its definitions (zod) a dynamic import of its own. */
  const DEFINITIONS = 'src/routes/a-routes.ts';
  const split = () =>
    build((outputs) => {
      outputs['out/on-demand/a.js'].imports = [{ path: 'out/on-demand/a-routes.js', kind: 'dynamic-import' }];
      outputs['out/on-demand/a-routes.js'] = { entryPoint: DEFINITIONS, inputs: { [DEFINITIONS]: { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/zod.js', kind: 'import-statement' }] };
    });

  it('a group whose zod is only imported on demand evaluates none on its first import', () => {
    expect(zodEvaluatedWith(split(), [A])).toEqual([]);
  });

  it('a group that imports zod, directly or through a module of its own, is named with the zod it evaluates', () => {
    expect(zodEvaluatedWith(build(), [A])).toEqual([`${A}'s first import evaluates zod: node_modules/zod/index.js`]);
    const throughSchemas = split();
    throughSchemas.outputs['out/on-demand/chunk-schemas.js'] = { inputs: { 'src/schemas/common.ts': { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/zod.js', kind: 'import-statement' }] };
    throughSchemas.outputs['out/on-demand/a.js'].imports.push({ path: 'out/on-demand/chunk-schemas.js', kind: 'import-statement' });
    expect(zodEvaluatedWith(throughSchemas, [A])).toEqual([`${A}'s first import evaluates zod: node_modules/zod/index.js`]);
  });

  it('a module missing from the build is a fault, not a pass', () => {
    expect(zodEvaluatedWith(build(), ['src/routes/gone.ts'])).toEqual(['src/routes/gone.ts is in no module of the build']);
  });
});

describe("the published site's first import leaves its renderer, claims validation and search on demand (isSiteOnDemandSource)", () => {
  const SITE = 'src/site/routes.ts';
  const RENDERER = 'src/site/render/document.ts';
  /** The site's module and the renderer's, with hastscript in a chunk of the renderer's: `renderer` says how the site imports it. */
  const site = (renderer: 'dynamic-import' | 'import-statement') => ({
    inputs: {},
    outputs: {
      'out/index.js': { entryPoint: 'src/index.ts', inputs: { 'src/index.ts': { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/routes.js', kind: 'dynamic-import' }] },
      'out/on-demand/routes.js': { entryPoint: SITE, inputs: { [SITE]: { bytesInOutput: 1 }, 'src/site/views.ts': { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/document.js', kind: renderer }] },
      'out/on-demand/document.js': { entryPoint: RENDERER, inputs: { [RENDERER]: { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/hast.js', kind: 'import-statement' }] },
      'out/on-demand/hast.js': { inputs: { 'node_modules/hastscript/lib/index.js': { bytesInOutput: 1 }, 'node_modules/property-information/lib/html.js': { bytesInOutput: 1 } }, imports: [] },
    } as Record<string, Output>,
  });

  it('a renderer imported on demand is not evaluated by the first import', () => {
    expect(evaluatedWith(site('dynamic-import'), [SITE], isSiteOnDemandSource, 'x')).toEqual([]);
  });

  it('a renderer imported statically is named, with the hast tables it brings', () => {
    expect(evaluatedWith(site('import-statement'), [SITE], isSiteOnDemandSource, 'x')).toEqual([
      `${SITE}'s first import evaluates x: ${RENDERER}, node_modules/hastscript/lib/index.js, node_modules/property-information/lib/html.js`,
    ]);
  });

  it('names the JSON Schema validator, the adaptive schema and the search, not the rest of the site', () => {
    const names = ['node_modules/@cfworker/json-schema/dist/esm/validate.js', 'src/services/sites/adaptive-schema.ts', 'src/site/search.ts', 'src/services/search/search.ts'];
    expect(names.filter(isSiteOnDemandSource)).toEqual(names);
    expect(['src/site/views.ts', 'src/site/render/styles.ts', 'node_modules/hono/dist/index.js'].filter(isSiteOnDemandSource)).toEqual([]);
  });
});

describe("a published page evaluates none of the API's content reads and writers (isSitePageUnneededSource)", () => {
  const SITE = 'src/site/routes.ts';
  /** The site's module, whose content module imports `tree` (the page tree's module) as `kind`. */
  const site = (tree: string, kind: 'dynamic-import' | 'import-statement') => ({
    inputs: {},
    outputs: {
      'out/on-demand/routes.js': {
        entryPoint: SITE,
        inputs: { [SITE]: { bytesInOutput: 1 }, 'src/site/content.ts': { bytesInOutput: 1 } },
        imports: [{ path: 'out/on-demand/tree.js', kind }],
      },
      'out/on-demand/tree.js': { inputs: { [tree]: { bytesInOutput: 1 } }, imports: [] },
    } as Record<string, Output>,
  });

  it('the tree read from tree-rows passes', () => {
    expect(evaluatedWith(site('src/services/content/tree-rows.ts', 'import-statement'), [SITE], isSitePageUnneededSource, 'x')).toEqual([]);
  });

  it('the API reads imported statically are named; the computed pages imported on demand are not', () => {
    expect(evaluatedWith(site('src/services/content/reads.ts', 'import-statement'), [SITE], isSitePageUnneededSource, 'x')).toEqual([
      `${SITE}'s first import evaluates x: src/services/content/reads.ts`,
    ]);
    expect(evaluatedWith(site('src/services/openapi/computed-pages.ts', 'dynamic-import'), [SITE], isSitePageUnneededSource, 'x')).toEqual([]);
  });

  it('names the writers, deltas and diff, and the Brotli reader (packed-documents), not what a page reads', () => {
    const names = ['src/services/content/revisions.ts', 'src/services/content/document-deltas.ts', 'node_modules/diff/libesm/diff/base.js', 'src/lib/lazy-router.ts', 'src/services/content/packed-documents.ts'];
    expect(names.filter(isSitePageUnneededSource)).toEqual(names);
    expect(['src/services/content/tree-rows.ts', 'src/services/content/packed-form.ts', 'src/services/sites/customization.ts'].filter(isSitePageUnneededSource)).toEqual([]);
  });
});

describe("a published page's first request imports no Node.js built-in (builtinsImportedWith)", () => {
  const SITE = 'src/site/routes.ts';
  /** The site's module, whose content module's chunk imports node:zlib as `kind`, beside a chunk of its own. */
  const site = (kind: 'dynamic-import' | 'import-statement') => ({
    inputs: {},
    outputs: {
      'out/on-demand/routes.js': {
        entryPoint: SITE,
        inputs: { [SITE]: { bytesInOutput: 1 } },
        imports: [
          { path: 'out/on-demand/content.js', kind: 'import-statement' },
          { path: 'cloudflare:workers', kind: 'import-statement', external: true },
        ],
      },
      'out/on-demand/content.js': {
        inputs: { 'src/site/content.ts': { bytesInOutput: 1 } },
        imports: [{ path: 'out/on-demand/packed-documents.js', kind }],
      },
      'out/on-demand/packed-documents.js': {
        inputs: { 'src/services/content/packed-documents.ts': { bytesInOutput: 1 } },
        imports: [{ path: 'node:zlib', kind: 'import-statement', external: true }],
      },
    } as Record<string, Output>,
  });

  it('names node:zlib imported through a chunk the site imports statically', () => {
    expect(builtinsImportedWith(site('import-statement'), [SITE])).toEqual([`${SITE}'s first import imports node:zlib`]);
  });

  it('passes node:zlib behind a dynamic import (a Brotli document stored before), and the runtime\'s own modules', () => {
    expect(builtinsImportedWith(site('dynamic-import'), [SITE])).toEqual([]);
  });

  it('a module missing from the build is a fault, not a pass', () => {
    expect(builtinsImportedWith(site('dynamic-import'), ['src/site/missing.ts'])).toEqual(['src/site/missing.ts is in no module of the build']);
  });
});

describe("the published page's renderer evaluates no attribute tables (isRendererTableSource)", () => {
  const RENDERER = 'src/site/render/document.ts';
  /** The renderer's module, importing `hast` (a chunk of hast modules) statically, or only hast-util-sanitize. */
  const renderer = (hast: Record<string, { bytesInOutput: number }>) => ({
    inputs: {},
    outputs: {
      'out/on-demand/document.js': { entryPoint: RENDERER, inputs: { [RENDERER]: { bytesInOutput: 1 }, 'src/site/render/html-tree.ts': { bytesInOutput: 1 } }, imports: [{ path: 'out/on-demand/hast.js', kind: 'import-statement' }] },
      'out/on-demand/hast.js': { inputs: hast, imports: [] },
    } as Record<string, Output>,
  });

  it('hast-util-sanitize alone passes', () => {
    expect(evaluatedWith(renderer({ 'node_modules/hast-util-sanitize/lib/index.js': { bytesInOutput: 1 } }), [RENDERER], isRendererTableSource, 'x')).toEqual([]);
  });

  it('hastscript, hast-util-to-html and property-information are named', () => {
    const hast = ['node_modules/hastscript/lib/index.js', 'node_modules/hast-util-to-html/lib/index.js', 'node_modules/property-information/lib/svg.js', 'node_modules/stringify-entities/lib/core.js'];
    expect(evaluatedWith(renderer(Object.fromEntries(hast.map((name) => [name, { bytesInOutput: 1 }]))), [RENDERER], isRendererTableSource, 'x')).toEqual([
      `${RENDERER}'s first import evaluates x: ${hast.join(', ')}`,
    ]);
  });
});

describe("the published page's statements stay constant SQL", () => {
  const CONTENT = 'src/site/content-sql.ts';
  const constantSelect = { path: 'src/db/constant-select.ts', kind: 'import-statement', original: '../../db/constant-select' };
  const metafile = (contentImports: { path: string; kind: string; original?: string }[]) => ({
    inputs: {
      ...Object.fromEntries(CONSTANT_SQL_SOURCES.map((source) => [source, { imports: [constantSelect] }])),
      [CONTENT]: { imports: contentImports },
    },
    outputs: {},
  });

  it('modules importing only db/constant-select pass', () => {
    expect(constantSqlBuilding(metafile([{ path: 'src/db/constant-select.ts', kind: 'import-statement', original: '../db/constant-select' }]))).toEqual([]);
  });

  it("drizzle-orm or a module of SQL fragments imported by one of them is named", () => {
    const faults = constantSqlBuilding(
      metafile([
        { path: 'node_modules/drizzle-orm/index.js', kind: 'import-statement', original: 'drizzle-orm' },
        { path: 'src/services/content/tree.ts', kind: 'import-statement', original: '../services/content/tree' },
      ]),
    );
    expect(faults).toEqual([`${CONTENT} builds SQL with drizzle-orm, ../services/content/tree: the published page's statements are constant text`]);
  });

  it('a module missing from the build is a fault, not a pass', () => {
    expect(constantSqlBuilding({ inputs: {}, outputs: {} }, [CONTENT])).toEqual([`${CONTENT} is in no module of the build`]);
  });
});
