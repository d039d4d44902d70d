/**
 * Imports flow one way (DESIGN.md, Layout): routes -> services -> lib / db, and schemas (the public zod
 * schemas and their row -> API mappers) below services. So no schema imports a service, no service imports a
 * route, and lib and db import neither services nor routes. A type-only import counts too: it still ties the
 * lower layer to the upper one's code. This test reads every source file and lists each import that goes up.
 */
import { describe, expect, it } from 'vitest';
// Every .ts and .mjs file under src/, by path from the checkout, in one module (test/helpers/text-files.ts).
import SOURCES from 'virtual:text-files/src?ts,mjs';

/** Layer -> the layers it must never import from. */
const FORBIDDEN: Record<string, string[]> = {
  schemas: ['services', 'routes'],
  services: ['routes'],
  lib: ['services', 'routes'],
  db: ['services', 'routes'],
};

/** The code without its comments (kept line for line, so that positions still name the right line). */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * Every module specifier of `code` with its line: `import ... from`, `import type ... from`, `export ... from`,
 * `import '...'`, and `import('...')` (a lazy import is still an import; so is `typeof import('...')`).
 */
export function specifiers(code: string): { line: number; specifier: string }[] {
  const stripped = withoutComments(code);
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[\w$*\s,{}]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const found: { line: number; specifier: string }[] = [];
  for (const pattern of patterns) {
    for (const match of stripped.matchAll(pattern)) {
      const at = match.index + match[0].indexOf(match[1]);
      found.push({ line: stripped.slice(0, at).split('\n').length, specifier: match[1] });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** `specifier` imported by `file` (both relative to src/), resolved to a path under src/, or null for a package. */
function resolve(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const parts = file.split('/').slice(0, -1);
  for (const part of specifier.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** The layer of a path under src/: its first folder (`schemas`, `services`, ...). */
const layerOf = (path: string) => path.split('/')[0];

/** Each import of `code` (the file `file`, relative to src/) that goes up a layer, as `file:line imports specifier`. */
export function upwardImports(file: string, code: string): string[] {
  const forbidden = FORBIDDEN[layerOf(file)] ?? [];
  return specifiers(code)
    .filter(({ specifier }) => {
      const target = resolve(file, specifier);
      return target !== null && forbidden.includes(layerOf(target));
    })
    .map(({ line, specifier }) => `src/${file}:${line} imports ${specifier}`);
}

describe('import layers', () => {
  it('reads the source files', () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(100);
    expect(Object.keys(SOURCES)).toContain('src/schemas/space.ts');
    expect(Object.keys(SOURCES)).toContain('src/services/access/permissions.ts');
  });

  it('finds the imports this test exists for', () => {
    const code = [
      "import { a } from '../services/x';",
      "import type { B } from '../services/y/z';",
      'import {',
      '  c,',
      '  type D,',
      "} from '../services/conversations/types';",
      "export { e } from '../services/e';",
      "export * from '../routes/f';",
      "const g = await import('../services/g');",
      "type H = typeof import('../services/h');",
      "import '../services/side-effect';",
      "import { ok } from './common';",
      "import { z } from '@hono/zod-openapi';",
      "// import { commented } from '../services/out';",
      "/* import { block } from '../services/out'; */",
    ].join('\n');
    expect(upwardImports('schemas/space.ts', code)).toEqual([
      'src/schemas/space.ts:1 imports ../services/x',
      'src/schemas/space.ts:2 imports ../services/y/z',
      'src/schemas/space.ts:6 imports ../services/conversations/types',
      'src/schemas/space.ts:7 imports ../services/e',
      'src/schemas/space.ts:8 imports ../routes/f',
      'src/schemas/space.ts:9 imports ../services/g',
      'src/schemas/space.ts:10 imports ../services/h',
      'src/schemas/space.ts:11 imports ../services/side-effect',
    ]);
    expect(upwardImports('services/spaces/spaces.ts', "import { r } from '../../routes/spaces/spaces';\nimport { s } from '../../schemas/space';")).toEqual([
      'src/services/spaces/spaces.ts:1 imports ../../routes/spaces/spaces',
    ]);
    expect(upwardImports('lib/create-router.ts', "import type { P } from '../services/limits/rate-limits';")).toEqual([
      'src/lib/create-router.ts:1 imports ../services/limits/rate-limits',
    ]);
    expect(upwardImports('db/schema/content.ts', "import { q } from '../../services/q';\nimport { t } from './teams';")).toEqual([
      'src/db/schema/content.ts:1 imports ../../services/q',
    ]);
    // A route may import anything below it; a service may import schemas, lib and db.
    expect(upwardImports('routes/spaces/spaces.ts', "import { s } from '../../services/spaces/spaces';")).toEqual([]);
    expect(upwardImports('services/x/y.ts', "import { s } from '../../schemas/space';\nimport { l } from '../../lib/errors';")).toEqual([]);
  });

  it('has no schema importing a service, no service importing a route, no lib or db importing either', () => {
    const offending = Object.entries(SOURCES).flatMap(([path, code]) => upwardImports(path.replace('src/', ''), code));
    expect(offending).toEqual([]);
  });
});
