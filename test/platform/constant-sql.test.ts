/**
 * The Worker's constant SQL (the `*.generated.ts` modules: the page read's statement, the published page's content
 * statements, the auth middleware's) is what src/cli/constant-sql.ts renders from their drizzle definitions today: a
 * change to pageTreeSql, lookupSql, spaceRoleSql, the schema... fails here until the modules are written again, with the
 * command that does it. The rendering keeps string literals as they are and gives each `?` its value.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import GENERATED from 'virtual:text-files/src?generated.ts';
import { constantSqlModules, rendered, WRITE_COMMAND } from '../../src/cli/constant-sql';

describe('the constant SQL modules (src/cli/constant-sql.ts)', () => {
  const modules = constantSqlModules();

  it('are what their drizzle definitions render today', () => {
    for (const { path, text } of modules) {
      expect(GENERATED[path] === text, `${path} is stale: run \`${WRITE_COMMAND}\``).toBe(true);
    }
    // Nothing generated is left over from a statement no longer defined.
    expect(Object.keys(GENERATED).sort()).toEqual(modules.map((m) => m.path).sort());
  });

  it('import no drizzle builder and no module of SQL fragments: a cold isolate runs them as data', () => {
    for (const { path, text } of modules) {
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect(imports.filter((specifier) => /^drizzle-orm|services\/content\/(tree|reads|packed-documents)$/.test(specifier!)), path).toEqual([]);
    }
  });

  it('collapse whitespace outside string literals only, and take each value in order', () => {
    const query = sql`select 'a  b ?',\n    "x  y"   from t\n  where id = ${sql.placeholder('id')} and n = ${7} and s = 'it''s  ?'`;
    expect(rendered(query)).toEqual({ text: `select 'a  b ?', "x  y" from t where id = ? and n = ? and s = 'it''s  ?'`, params: ['id', { value: 7 }] });
  });
});
