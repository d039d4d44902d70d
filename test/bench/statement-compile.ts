/**
 * What SQLite spends compiling the warm reads' statements (`node --import tsx test/bench/statement-compile.ts
 * [--baseline=<checkout>] [--rounds=400]`): each statement prepared again and again in node's SQLite over the schema of
 * migrations/, interleaved with the baseline checkout's same statement, the fastest and the mean preparation and the
 * number of VDBE instructions printed for each. Under Miniflare, local D1 prepares every statement it is sent
 * (miniflare's d1 database worker: `sql.prepare` per call), and for the page read that costs far more than running it
 * (Handbook, Benchmark): a statement with fewer tables and subqueries to plan is a cheaper read there. Node's SQLite
 * is not workerd's: read the ratios between the two checkouts, not the microseconds. Nothing is run here, only prepared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SQL } from 'drizzle-orm';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const ROUNDS = Number(args.get('rounds') ?? 400);
const root = path.resolve(import.meta.dirname, '../..');

/** The statements of one checkout: the page read (by id, as a member and as a visitor, with Markdown) and the space with the caller's rank. */
async function statementsOf(checkout: string): Promise<Record<string, string>> {
  const load = (file: string) => import(path.join(checkout, file));
  const [{ pageStatement }, { spaceRoleSql }, { createDb }, schema, orm] = await Promise.all([
    load('src/services/content/page-statement.ts'),
    load('src/services/access/access.ts'),
    load('src/db/client.ts'),
    load('src/db/schema/index.ts'),
    import(path.join(checkout, 'node_modules/drizzle-orm/index.js')),
  ]);
  const page = (published: boolean, markdown: boolean) =>
    pageStatement({ revision: 'main', published, byPath: false, computed: false, markdown, reusable: false }).text as string;
  const db = createDb({});
  const rank = spaceRoleSql(orm.sql.placeholder('userId') as unknown as SQL);
  const space = db.select({ space: schema.spaces, rank }).from(schema.spaces).where(orm.eq(schema.spaces.id, orm.sql.placeholder('spaceId')));
  return {
    'page, member': page(false, false),
    'page as Markdown, member': page(false, true),
    'page, visitor': page(true, false),
    'space with the caller\'s rank': space.toSQL().sql as string,
  };
}

function schemaDatabase() {
  const db = new DatabaseSync(':memory:');
  const dir = path.join(root, 'migrations');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) db.exec(readFileSync(path.join(dir, file), 'utf8'));
  return db;
}

const db = schemaDatabase();
const checkouts = [root, ...(args.get('baseline') ? [path.resolve(args.get('baseline')!)] : [])];
const sets = await Promise.all(checkouts.map(statementsOf));
console.log(`Preparing each statement ${ROUNDS} times, the checkouts interleaved: fastest / mean µs, VDBE instructions`);
for (const name of Object.keys(sets[0])) {
  const texts = sets.map((set) => set[name]);
  const fastest = texts.map(() => Infinity);
  const total = texts.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    texts.forEach((text, i) => {
      const start = performance.now();
      db.prepare(text);
      const took = performance.now() - start;
      fastest[i] = Math.min(fastest[i], took);
      total[i] += took;
    });
  }
  const cells = texts.map((text, i) => `${Math.round(fastest[i] * 1000)} / ${Math.round((total[i] / ROUNDS) * 1000)} µs, ${db.prepare(`explain ${text}`).all().length} ops`);
  console.log(`${name.padEnd(32)} ${cells.join('   baseline: ')}`);
}
