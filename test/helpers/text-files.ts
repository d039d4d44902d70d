import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** How a test names a folder's text files: `virtual:text-files/<folder>?<extensions>`, the folder relative to the checkout. */
const PREFIX = 'virtual:text-files/';

/** The files under `folder` (its subfolders included) whose names end with one of `extensions`, sorted, with their text. */
function textFiles(root: string, folder: string, extensions: string[]): Record<string, string> {
  const base = path.resolve(root, folder);
  const names = readdirSync(base, { recursive: true, encoding: 'utf8' })
    .map((name) => name.split(path.sep).join('/'))
    .filter((name) => extensions.some((extension) => name.endsWith(`.${extension}`)))
    .sort();
  return Object.fromEntries(names.map((name) => [`${folder}/${name}`, readFileSync(path.join(base, name), 'utf8')]));
}

/**
 * Vite plugin: `import files from 'virtual:text-files/src?ts,mjs'` is every `.ts` and `.mjs` file under src/, as
 * `{ 'src/lib/ids.ts': '<its text>', ... }`, in one module. `import.meta.glob(..., { query: '?raw', eager: true })`
 * gives the same texts as one module per file, and each workerd of the pool fetched and evaluated them one by one
 * when a test file first imported them: ~4 s per worker for the 385 sources (test/platform/layers.test.ts,
 * sql-patterns.test.ts) and the 200 pages of the corpus (test/services/markdown-corpus.test.ts), where one module
 * of the same texts is one fetch. Read when a worker first imports it, from the files as they are then.
 */
export function textFilesPlugin(root: string): Plugin {
  return {
    name: 'docs-platform:text-files',
    resolveId(id) {
      return id.startsWith(PREFIX) ? `\0${id}` : undefined;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const [folder, extensions = ''] = id.slice(PREFIX.length + 1).split('?');
      // No source map (`mappings: ''`, which Vite keeps as it is): one made for megabytes of text was ten of them, and
      // most of the module's time.
      return { code: `export default ${JSON.stringify(textFiles(root, folder, extensions.split(',')))};`, map: { mappings: '' } };
    },
  };
}

/** Where a JSON file of node_modules is served from: a module of its own (see jsonDataPlugin), `.js` after the file's path (an id ending in `.json` is Vite's JSON module). */
const JSON_DATA = '\0json-data:';

/**
 * Vite plugin: a JSON file of a package (GitBook's published OpenAPI documents, 1.2 and 1.7 MB) imported as
 * `export default JSON.parse(<its text>)`, without a source map. Vite's own module of it (named exports, then the
 * module runner's rewrite with a source map of every word boundary: 3 to 4 MB of map per document) took about a
 * second per document in Node, on the path of the first test file that imports it. Same value: the file's JSON, one
 * module per file (every importer gets the same object). Only the default export, which is all the tests import.
 */
export function jsonDataPlugin(): Plugin {
  return {
    name: 'docs-platform:json-data',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.endsWith('.json') || source.startsWith('\0')) return undefined;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && resolved.id.includes('/node_modules/') && resolved.id.endsWith('.json') ? `${JSON_DATA}${resolved.id}.js` : undefined;
    },
    load(id) {
      if (!id.startsWith(JSON_DATA)) return undefined;
      const text = readFileSync(id.slice(JSON_DATA.length, -'.js'.length), 'utf8');
      // Parsed here first: a file that is not JSON fails the import with its name, as Vite's module would.
      JSON.parse(text);
      return { code: `export default JSON.parse(${JSON.stringify(text)});`, map: { mappings: '' } };
    },
  };
}
