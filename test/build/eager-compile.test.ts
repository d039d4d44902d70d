import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { eagerFunctions } from '../../src/cli/eager-compile.mjs';

/**
 * src/cli/eager-compile.mjs: the functions of the modules a published page evaluates are written in parentheses, which
 * V8 compiles with the module (at the isolate's creation) instead of on their first call (issue 42 item 7). What
 * is checked here: which top-level declarations may become `var f = (function f() {})` without changing what the
 * module does (never one that code run at evaluation may reach before its line), that every other function is put
 * in parentheses once, and that the output is still JavaScript.
 */

const parsesCleanly = (code: string) => {
  const source = ts.createSourceFile('m.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS) as ts.SourceFile & { parseDiagnostics: unknown[] };
  return source.parseDiagnostics.length === 0;
};

function eager(code: string, options?: { declarations?: boolean }) {
  const result = eagerFunctions(code, options);
  expect(parsesCleanly(result.code), result.code).toBe(true);
  return result;
}

describe('eagerFunctions', () => {
  it('writes a top-level declaration as a parenthesized expression, and puts nested functions in parentheses', () => {
    const { code, converted, kept } = eager('function total(xs) {\n  return xs.map((x) => x * 2).reduce(function (a, b) { return a + b; }, 0);\n}\nexport { total };\n');
    expect(code).toBe('var total = (function total(xs) {\n  return xs.map(((x) => x * 2)).reduce((function (a, b) { return a + b; }), 0);\n});\nexport { total };\n');
    expect(converted).toBe(1);
    expect(kept).toEqual([]);
  });

  it('keeps a declaration that code run at evaluation calls before its line, directly or through another function', () => {
    const code = 'const first = outer();\nfunction outer() { return inner(); }\nfunction inner() { return 1; }\nfunction unused() { return 2; }\n';
    const { code: out, kept } = eager(code);
    expect(kept).toEqual(['outer', 'inner']);
    expect(out).toContain('\nfunction outer() {');
    expect(out).toContain('\nfunction inner() {');
    expect(out).toContain('var unused = (function unused() {');
  });

  it('keeps a declaration a class runs when defined (static field, extends) but not one only its methods call', () => {
    const { kept } = eager(
      'class A { static table = build(); m() { return later(); } }\nvar B = class extends base() { n() { return other(); } };\nfunction build() { return 1; }\nfunction later() { return 2; }\nfunction base() { return Object; }\nfunction other() { return 3; }\n',
    );
    expect(kept.sort()).toEqual(['base', 'build']);
  });

  it('keeps a declaration reached through a class or a function value that evaluation uses', () => {
    const { kept } = eager('var C = class { constructor() { this.v = made(); } };\nconst instance = new C();\nconst run = () => viaArrow();\nrun();\nfunction made() { return 1; }\nfunction viaArrow() { return 2; }\n');
    expect(kept.sort()).toEqual(['made', 'viaArrow']);
  });

  it('keeps a declaration a callback passed at evaluation may call', () => {
    const { kept } = eager('const doubled = [1, 2].map((x) => twice(x));\nfunction twice(x) { return 2 * x; }\n');
    expect(kept).toEqual(['twice']);
  });

  it('does not count a property of the same name as a use', () => {
    const { kept, converted } = eager('const o = { page: 1, render() {} };\nconst p = o.page;\nfunction page() { return 1; }\nfunction render() { return 2; }\n');
    expect(kept).toEqual([]);
    expect(converted).toBe(2);
  });

  it('converts no declaration of a module in an import cycle, and still puts its functions in parentheses', () => {
    const { code, converted } = eager('function f() { return [1].map((x) => x); }\n', { declarations: false });
    expect(converted).toBe(0);
    expect(code).toBe('function f() { return [1].map(((x) => x)); }\n');
  });

  it('leaves functions already in parentheses, methods and nested declarations as they are', () => {
    const source = 'const a = (() => 1);\nconst o = { m() { function inner() {} return inner; } };\nclass K { get g() { return 1; } }\n';
    const { code, converted } = eager(source);
    expect(code).toBe(source);
    expect(converted).toBe(0);
  });

  it('closes a function ending where the one around it ends before the outer one', () => {
    const { code } = eager('const curry = (a) => (b) => function () { return a + b; };\n');
    expect(code).toBe('const curry = ((a) => ((b) => (function () { return a + b; })));\n');
  });

  it('keeps async and generator declarations what they are', () => {
    const { code } = eager('async function load() { await 1; }\nfunction* items() { yield 1; }\n');
    expect(code).toBe('var load = (async function load() { await 1; });\nvar items = (function* items() { yield 1; });\n');
  });
});

describe('the Worker as built (build-worker.mjs)', () => {
  it('compiles with its module every top-level function of what a published page evaluates, and nothing of the entry', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { buildWithMetafile } = await import('../../src/cli/build-worker.mjs');
    const root = path.resolve(import.meta.dirname, '../..');
    const scratch = mkdtempSync(path.join(tmpdir(), 'dpa-eager-'));
    try {
      const { metafile } = await buildWithMetafile({ root, outdir: path.relative(root, scratch) });
      const holding = (source: string) => Object.entries(metafile.outputs).find(([name, output]) => name.endsWith('.js') && output.inputs[source])![0];
      const declarations = (name: string) => {
        const source = ts.createSourceFile('m.js', readFileSync(path.resolve(root, name), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
        return source.statements.filter(ts.isFunctionDeclaration).map((statement) => statement.name?.text);
      };
      // The renderer and the site's views: every declaration written as a parenthesized expression.
      for (const source of ['src/site/render/document.ts', 'src/site/views.ts', 'src/site/routes.ts']) {
        const name = holding(source);
        expect(declarations(name), `${source} (${name})`).toEqual([]);
        expect(readFileSync(path.resolve(root, name), 'utf8')).toContain(' = (function ');
      }
      // The entry, evaluated at every isolate's startup, is left as esbuild wrote it.
      const entry = readFileSync(path.join(scratch, 'index.js'), 'utf8');
      expect(entry).not.toMatch(/^var \w+ = \(function /m);
      expect(declarations(path.relative(root, path.join(scratch, 'index.js'))).length).toBeGreaterThan(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});
