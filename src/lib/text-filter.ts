import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * Longest text a "contains" filter accepts (`search` of members, `title` of teams, ...); longer is a 400
 * naming the parameter. The bound keeps the query within D1's limits: each distinct non-ASCII letter of
 * the filter adds one level of `replace()` (see `containsText`), and D1 refuses expression trees deeper
 * than 100 levels.
 */
export const MAX_TEXT_FILTER_LENGTH = 64;

/** A query parameter holding a "contains" filter (at most `MAX_TEXT_FILTER_LENGTH` characters). */
export function textFilterQuery(description: string) {
  return z
    .string()
    .max(MAX_TEXT_FILTER_LENGTH)
    .optional()
    .openapi({ description: `${description} (at most ${MAX_TEXT_FILTER_LENGTH} characters)` });
}

/**
 * True where `column` contains `text`, ignoring case. User text never becomes a LIKE pattern (D1 refuses
 * patterns over 50 bytes, and `%`, `_` and `\` would need escaping): the comparison is `instr`, which
 * takes the text as it is, whatever its length or characters, as one bound parameter.
 *
 * SQLite's `lower()` folds ASCII only, so the column's upper-case forms of the other letters of `text`
 * are folded too (`ÉQUIPE` contains `équipe`). Those letters are inlined as literals (a letter is never
 * a quote); each adds one `replace()` level, hence `MAX_TEXT_FILTER_LENGTH`.
 */
export function containsText(column: SQLiteColumn | SQL, text: string): SQL {
  const needle = text.toLowerCase();
  let folded: SQL = sql`lower(${column})`;
  for (const lower of new Set([...needle].filter((ch) => ch > '\x7f' && /^\p{Ll}$/u.test(ch)))) {
    const upper = lower.toUpperCase();
    if (upper !== lower && [...upper].length === 1 && /^\p{L}$/u.test(upper)) {
      folded = sql`replace(${folded}, ${sql.raw(`'${upper}'`)}, ${sql.raw(`'${lower}'`)})`;
    }
  }
  return sql`instr(${folded}, ${needle}) > 0`;
}

/**
 * True where `column` starts with `prefix`, ignoring ASCII case (as `lower()` folds). Like `containsText`,
 * the prefix is one bound parameter compared with `substr`, never a LIKE pattern.
 */
export function startsWithText(column: SQLiteColumn | SQL, prefix: string): SQL {
  const needle = prefix.toLowerCase();
  return sql`substr(lower(${column}), 1, ${[...needle].length}) = ${needle}`;
}
