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
