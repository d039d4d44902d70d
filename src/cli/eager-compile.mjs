// Functions of a built module compiled when workerd compiles the module, not on their first call (issue 42 item 7).
//
// workerd compiles every module of the Worker when it creates the isolate (cold.ts says how), but V8 only pre-parses
// a function there: it parses the function again in full and makes its bytecode on its first call. A cold isolate's
// first published page calls some 400 functions of the site's modules for the first time, so it pays for their
// parse twice, on the request. V8 compiles a function at once, with the module, when the function is written in
// parentheses (its "PIFE" heuristic: `(function f() {})`, `((x) => y)`), a form esbuild prints as it is given.
// `eagerFunctions` writes a built module's functions that way; build-worker.mjs applies it to the modules a published
// page evaluates (`eagerModules`).
//
// What is written:
// - A top-level function declaration `function f() {}` becomes `var f = (function f() {});`, unless code that runs
//   while the module is evaluated, before the declaration, may reach `f` (a declaration is hoisted, a `var` holds
//   `undefined` until its line runs): any identifier named `f` in such code, or in a top-level function that code
//   may reach, keeps `f` a declaration (`hoistingNeeded`). Nor is a declaration of a module in an import cycle
//   written (another module of the cycle may call it before this one is evaluated).
// - Every other function expression and arrow function not already in parentheses is put in them, where it stands.
// Methods and nested function declarations stay as they are. Only characters are inserted, no line: the build's
// source map keeps every line (a column on a changed line may be off by the few characters inserted before it).
import ts from 'typescript';

/**
 * `code` (an ES module as esbuild prints it) with its functions written to be compiled with the module, and what was
 * done: how many top-level declarations were written as expressions and how many functions put in parentheses, and
 * the declarations kept (their names).
 */
export function eagerFunctions(code, { declarations = true } = {}) {
  const source = ts.createSourceFile('module.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const edits = [];
  const keep = declarations ? hoistingNeeded(source.statements) : new Set();
  let converted = 0;
  let wrapped = 0;
  const kept = [];
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement) || !statement.name || !statement.body) continue;
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword || m.kind === ts.SyntaxKind.DefaultKeyword);
    if (!declarations || exported || keep.has(statement.name.text)) {
      kept.push(statement.name.text);
      continue;
    }
    edits.push({ at: statement.getStart(source), text: `var ${statement.name.text} = (` }, { at: statement.end, text: ');' });
    converted++;
  }
  const visit = (node) => {
    if ((ts.isFunctionExpression(node) || ts.isArrowFunction(node)) && !ts.isParenthesizedExpression(node.parent)) {
      edits.push({ at: node.getStart(source), text: '(' }, { at: node.end, text: ')' });
      wrapped++;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  // From the end, so that each position still holds; at one position, the text pushed last goes first: a function
  // that ends where the one around it ends closes first.
  const ordered = edits.map((edit, i) => ({ ...edit, i })).sort((a, b) => b.at - a.at || a.i - b.i);
  let out = code;
  for (const { at, text } of ordered) out = out.slice(0, at) + text + out.slice(at);
  return { code: out, converted, wrapped, kept };
}

/**
 * The names of top-level function declarations that code run while the module is evaluated may reach before the
 * declaration's line. Run at evaluation: every top-level statement but a function declaration, less the bodies of
 * what it only defines (a `var` holding a function or a class, a class declaration: of a class only its `extends`,
 * computed member names, static fields and blocks run). Reached through them: the top-level functions and classes
 * they name (whole), and what these name in turn. Counted as reached before a declaration when the statement stands
 * before it. Names are matched as names, whatever they refer to (a parameter, a nested function's), so the answer
 * may hold more than needed, never less; a property's name (`a.page`, `{ page: 1 }`, a method `page()`) names nothing.
 */
export function hoistingNeeded(statements) {
  const bodies = new Map();
  for (const statement of statements) {
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) bodies.set(statement.name.text, statement);
    for (const declaration of definitions(statement)) bodies.set(declaration.name.text, declaration);
  }
  const reached = new Set();
  const keep = new Set();
  const reach = (node) => {
    const pending = [node];
    while (pending.length > 0) {
      const visit = (n) => {
        if (ts.isIdentifier(n) && !isPropertyName(n) && !reached.has(n.text)) {
          reached.add(n.text);
          const body = bodies.get(n.text);
          if (body) pending.push(body);
        }
        ts.forEachChild(n, visit);
      };
      visit(pending.pop());
    }
  };
  for (const statement of statements) {
    if (ts.isFunctionDeclaration(statement)) {
      if (statement.name && reached.has(statement.name.text)) keep.add(statement.name.text);
    } else if (ts.isClassDeclaration(statement)) {
      for (const part of runOnDefinition(statement)) reach(part);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer;
        if (value && ts.isClassExpression(value) && ts.isIdentifier(declaration.name)) for (const part of runOnDefinition(value)) reach(part);
        else if (!(value && isFunction(value) && ts.isIdentifier(declaration.name))) reach(declaration);
      }
    } else {
      reach(statement);
    }
  }
  return keep;
}

const isFunction = (node) => ts.isFunctionExpression(node) || ts.isArrowFunction(node);

/** The declarations of a top-level `var` (or `let`, `const`) that only define a function or a class by a name. */
function definitions(statement) {
  if (!ts.isVariableStatement(statement)) return [];
  return statement.declarationList.declarations.filter(
    (d) => ts.isIdentifier(d.name) && d.initializer && (isFunction(d.initializer) || ts.isClassExpression(d.initializer)),
  );
}

/** What of a class (a declaration or an expression) runs where it is defined: decorators, `extends`, computed member names, static fields and blocks. */
function runOnDefinition(declaration) {
  const parts = [...(declaration.modifiers ?? []), ...(declaration.heritageClauses ?? [])];
  for (const member of declaration.members) {
    if (member.name && ts.isComputedPropertyName(member.name)) parts.push(member.name);
    const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
    if (ts.isClassStaticBlockDeclaration(member) || (isStatic && ts.isPropertyDeclaration(member))) parts.push(member);
  }
  return parts;
}

/** An identifier that is a property's name, not a reference: `a.page`, `{ page: 1 }`, a method or field `page`. */
function isPropertyName(node) {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent)) {
    return parent.name === node;
  }
  return false;
}

/**
 * The output modules of a build (esbuild's metafile) whose functions a published page's first request runs: the
 * static closure of the modules holding `sources` (src/site/routes.ts, the renderer, the group apps), less what the
 * entry evaluates at startup (`atStartup`): each with whether it is in an import cycle (its declarations are then
 * left as they are).
 */
export function eagerModules(metafile, sources, atStartup, closure) {
  const chunks = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const chosen = new Set();
  for (const source of sources) {
    const holder = chunks.find(([, chunk]) => chunk.inputs[source]);
    if (!holder) continue;
    for (const name of closure(metafile, holder[0])) if (!atStartup.has(name)) chosen.add(name);
  }
  return [...chosen].map((name) => ({ name, cyclic: inCycle(metafile, name) }));
}

/** Whether output `name` reaches itself through static imports. */
function inCycle(metafile, name) {
  const seen = new Set();
  const visit = (at) => {
    for (const imported of metafile.outputs[at]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.path === name) return true;
      if (seen.has(imported.path)) continue;
      seen.add(imported.path);
      if (visit(imported.path)) return true;
    }
    return false;
  };
  return visit(name);
}
