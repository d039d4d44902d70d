/**
 * No SQL pattern is ever built from user text. D1 refuses LIKE and GLOB patterns over 50 bytes ("LIKE or GLOB
 * pattern too complex"), so a pattern made of a title, a search or a slug answers 500 once the text is long
 * enough, and `%`, `_`, `*` and `?` in it would match what they should not. Text filters use `instr` and
 * `substr` instead (src/lib/text-filter.ts). This test reads every source file and refuses any LIKE or GLOB whose
 * pattern is not a constant written in the SQL itself.
 */
import { describe, expect, it } from 'vitest';
// Every .ts and .mjs file under src/, by path from the checkout, in one module (test/helpers/text-files.ts).
import SOURCES from 'virtual:text-files/src?ts,mjs';

/** The code without its comments (kept line for line, so that positions still name the right line). */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * What makes a LIKE or GLOB take a pattern that is not a constant:
 * - drizzle's helpers (`like(column, pattern)` and its kin), unless the pattern is a quoted literal;
 * - in raw SQL, the keyword followed by an interpolation (`${...}`), a bound `?`, a function call, or a
 *   literal that is interpolated into or concatenated (`'%' || ...`);
 * - in raw SQL, the keyword followed by a column (`like t.name`, `glob name || '*'`).
 * Prose ("a color like #346ddb", "like an unknown site") matches none of these.
 */
const NON_CONSTANT = [
  /\b(?:not)?(?:i)?like\s*\((?!\s*[^,()]+,\s*'[^'$]*'\s*\))/gi,
  /\bglob\s*\((?!\s*[^,()]+,\s*'[^'$]*'\s*\))/gi,
  /\b(?:like|glob)\s*(?:\$\{|\?|\w+\s*\()/gi,
  /\b(?:like|glob)\s+'[^']*\$\{/gi,
  /\b(?:like|glob)\s+'[^']*'\s*\|\|/gi,
  /\b(?:like|glob)\s+[A-Za-z_][\w.]*\s*(?:\|\||\)|`|$|\s+(?:and|or|escape|then|end|collate)\b)/gim,
];

/** Every place in `code` where a LIKE or GLOB takes a pattern that is not a constant, as `line: text`. */
export function nonConstantPatterns(code: string): string[] {
  const stripped = withoutComments(code);
  const found = new Map<number, string>();
  for (const pattern of NON_CONSTANT) {
    for (const match of stripped.matchAll(pattern)) {
      const line = stripped.slice(0, match.index).split('\n').length;
      found.set(line, `${line}: ${code.split('\n')[line - 1].trim()}`);
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, text]) => text);
}

describe('SQL patterns', () => {
  it('reads the source files', () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(100);
    expect(Object.keys(SOURCES)).toContain('src/routes/sites/sites.ts');
  });

  it('finds the patterns this test exists for', () => {
    const bad = [
      "db.select().from(sites).where(like(sites.basename, `${slug}-%`))",
      'where(ilike(users.email, pattern))',
      'sql`select 1 from t where name like ${text}`',
      'sql`select 1 from t where name LIKE ?`',
      "sql`select 1 from t where name like '%' || ${text}`",
      "sql`select 1 from t where name like '${prefix}%'`",
      "sql`select 1 from t where name glob lower(${text})`",
      "sql`select 1 from a join b on a.name like b.pattern and a.x = 1`",
      "sql`select 1 from a join b on a.name like b.prefix || '%'`",
      'notLike(pages.title, search)',
    ];
    for (const code of bad) expect(nonConstantPatterns(code), code).toHaveLength(1);
  });

  it('accepts constant patterns and prose', () => {
    const fine = [
      "sql`l.target_key like 'file:%'`",
      "sql`(case when ${key} glob '*[^A-Za-z0-9_~-]*' then null end)`",
      "where(like(links.targetKey, 'url:%'))",
      "'must be a hex color like #346ddb'",
      'Without the key, it answers 404 like an unknown site.',
      "const STOP = ['just', 'like', 'may'];",
      '// matched with like(column, text) before: D1 refused long patterns',
      '/* name like ${text} */',
    ];
    for (const code of fine) expect(nonConstantPatterns(code), code).toEqual([]);
  });

  it('no source file builds a LIKE or GLOB pattern from anything but a constant', () => {
    const offenders = Object.entries(SOURCES).flatMap(([file, code]) => nonConstantPatterns(code).map((where) => `${file}:${where}`));
    expect(offenders).toEqual([]);
  });
});
