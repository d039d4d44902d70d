import { sql, type SQL } from 'drizzle-orm';

/**
 * A list of values as a subquery (`(select value from json_each(?))`) for `in (...)` tests. The list
 * travels as one JSON parameter, so its length never meets D1's limit of 100 bound parameters.
 */
export function valuesOf(values: readonly string[]): SQL {
  return sql`(select value from json_each(${JSON.stringify(values)}))`;
}
