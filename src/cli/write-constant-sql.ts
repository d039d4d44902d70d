/**
 * Writes the modules of constant SQL (`*.generated.ts`) that src/cli/constant-sql.ts renders from their drizzle
 * definitions: run it after changing a statement they hold (reads.ts `pageTreeSql`, `lookupSql`, `spaceRoleSql`...),
 * as test/platform/constant-sql.test.ts says when one is stale. `node --import tsx src/cli/write-constant-sql.ts`
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constantSqlModules } from './constant-sql';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

for (const { path, text } of constantSqlModules()) {
  const file = resolve(ROOT, path);
  let old = '';
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    // A module written for the first time.
  }
  if (old === text) continue;
  writeFileSync(file, text);
  console.log(`constant-sql: wrote ${path} (${text.length} characters)`);
}
