/** Counting D1 round trips; no test runner imports, so the benchmark's Worker uses it too. */

type Statement = D1PreparedStatement & { __real?: D1PreparedStatement };

/**
 * A D1 binding that counts round trips: each statement execution (first/all/run/raw) is one,
 * and so is a whole batch (D1 runs it as one request).
 */
export function countingD1(real: D1Database) {
  let count = 0;
  // Statements, a batch's each: under Miniflare each one is a few SQLite calls of local D1's Durable Object.
  let statements = 0;
  // The text of each statement prepared, in order.
  const texts: string[] = [];
  const wrap = (stmt: D1PreparedStatement): Statement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === '__real') return target;
        if (prop === 'bind') return (...args: unknown[]) => wrap(target.bind(...args));
        const value = Reflect.get(target, prop, target);
        if (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw') {
          return (...args: unknown[]) => {
            count++;
            statements++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Statement;
  // The binding and each of its sessions (`withSession`: every request runs on one) count alike.
  const counted = <T extends D1Database | D1DatabaseSession>(client: T): T =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'prepare') {
          return (query: string) => {
            texts.push(query);
            return wrap(target.prepare(query));
          };
        }
        if (prop === 'batch') {
          return (statements_: Statement[]) => {
            count++;
            statements += statements_.length;
            return target.batch(statements_.map((s) => s.__real ?? s));
          };
        }
        if (prop === 'withSession') return (start?: string) => counted((target as D1Database).withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const db = counted(real);
  return {
    db,
    get count() {
      return count;
    },
    get statements() {
      return statements;
    },
    texts,
  };
}
