import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sha256Base64Url } from '../../lib/ids';
import { canonicalJson } from './canonical-json';

/**
 * Persistent maps shared between revisions. A revision's pages (and, apart, its files) are a map
 * from id to record, stored as a trie of immutable, content-addressed nodes in the `documents` table:
 * the root maps a group of first characters (`~0`...`~7`, the first character's code modulo ROOT_GROUPS) to a
 * chunk, a chunk maps the key's first character to a middle node, a middle node maps the second character to a leaf,
 * and a leaf maps whole keys to their values. Ids are random base62, so 50,000 pages make leaves of about 13
 * records. Changing k keys writes k leaves, at most k middle nodes and k chunks, and one root, and every other node
 * is shared with the parent revision.
 *
 * Maps written before issue 42's grouped roots have no chunks: their root maps the first character to a middle node
 * (62 names, 1.5 KB, written again by every edit). Every reader takes both forms (a root is grouped when its members
 * are `~<digit>`, which no first character is), and the first write to an old map regroups its root.
 *
 * Reads walk the same levels in SQL (`lookupSql`), so one page is one indexed query whatever
 * the size of the space; writes load the nodes they change (`TrieView`), inside the space's writer.
 */

export type NodeBody = Record<string, unknown> | unknown[];

export interface StoredNode {
  hash: string;
  body: string;
}

/** Loads nodes by hash. Nodes are immutable, so every store may cache them as long as it likes. */
export interface NodeStore {
  load(hashes: string[]): Promise<Map<string, NodeBody>>;
  /** The nodes on the paths from `root` to the leaves of `keys` (all three levels), in one query. */
  loadPaths(root: string, keys: string[]): Promise<Map<string, NodeBody>>;
}

/** Character `level` (0 or 1) of a key: the branch it takes in the chunk and in the middle node. */
export const keyChar = (key: string, level: 0 | 1) => key.charAt(level);

/**
 * Groups of a grouped root (issue 42, storage: the root is rewritten by every edit, so it holds 8 names and a chunk
 * about 8, where an ungrouped root held 62: about 0.5 KB per edit instead of 1.5 KB). A key's group is its first
 * character's code modulo ROOT_GROUPS, as SQL's `unicode(substr(key, 1, 1)) % 8` computes it (keys are ASCII).
 */
export const ROOT_GROUPS = 8;
export const groupOf = (key: string) => `~${key.charCodeAt(0) % ROOT_GROUPS}`;
const GROUP_NAME = /^~[0-7]$/;
/** ROOT_GROUPS written into statements (not bound: statements keep one shape and a bound parameter less). */
const GROUPS_SQL = sql.raw(String(ROOT_GROUPS));

/** Whether a root is grouped (its members name chunks) rather than written before grouped roots. */
export const isGroupedRoot = (root: NodeBody) => Object.keys(root).some((name) => GROUP_NAME.test(name));

/**
 * The nodes on `key`'s path from `root` that `get` knows, walked from the root: `complete` when every node the key
 * needs is known (its leaf, or the last node, which has no branch for it), else `missing` is the first unknown one.
 */
export function walkPath(root: string, key: string, get: (hash: string) => NodeBody | undefined): { hashes: string[]; complete: boolean; leaf?: string; missing?: string } {
  const hashes: string[] = [];
  let names: string[] | null = null;
  let hash = root;
  for (let depth = 0; ; depth++) {
    const body = get(hash) as Record<string, string> | undefined;
    if (!body) return { hashes, complete: false, missing: hash };
    hashes.push(hash);
    names ??= isGroupedRoot(body) ? [groupOf(key), keyChar(key, 0), keyChar(key, 1)] : [keyChar(key, 0), keyChar(key, 1)];
    if (depth === names.length) return { hashes, complete: true, leaf: hash };
    const next = body[names[depth]];
    if (!next) return { hashes, complete: true };
    hash = next;
  }
}

// ---------------------------------------------------------------------------------------------
// Node cache: an isolate holds many requests of many spaces; nodes never change once written.

const CACHE_BYTES = 24 * 1024 * 1024;
const cache = new Map<string, { body: NodeBody; size: number }>();
let cachedBytes = 0;

function fromCache(hash: string): NodeBody | undefined {
  const hit = cache.get(hash);
  if (!hit) return undefined;
  cache.delete(hash); // re-insert: Map order is the eviction order
  cache.set(hash, hit);
  return hit.body;
}

function remember(hash: string, body: NodeBody, size: number) {
  if (cache.has(hash) || size > CACHE_BYTES / 16) return;
  cache.set(hash, { body, size });
  cachedBytes += size;
  for (const [key, entry] of cache) {
    if (cachedBytes <= CACHE_BYTES) break;
    cache.delete(key);
    cachedBytes -= entry.size;
  }
}

function parseRows(rows: Array<{ hash: string; body: string }>, out: Map<string, NodeBody>, cached = true) {
  for (const row of rows) {
    const body = JSON.parse(row.body) as NodeBody;
    if (cached) remember(row.hash, body, row.body.length);
    out.set(row.hash, body);
  }
}

/**
 * The D1 node store, behind the isolate's cache. `remember: false`: what it reads is not added to the cache (a walk of
 * a whole map, which would fill it with one space's nodes), though it still reads what the cache has.
 */
export function d1NodeStore(db: Db, { remember: cached = true } = {}): NodeStore {
  return {
    async load(hashes) {
      const out = new Map<string, NodeBody>();
      const missing: string[] = [];
      for (const hash of new Set(hashes)) {
        const body = fromCache(hash);
        if (body) out.set(hash, body);
        else missing.push(hash);
      }
      if (missing.length === 0) return out;
      const rows = await db.all<{ hash: string; body: string }>(
        sql`select hash, body from documents where hash in (select value from json_each(${JSON.stringify(missing)}))`,
      );
      parseRows(rows, out, cached);
      return out;
    },
    async loadPaths(root, keys) {
      const out = new Map<string, NodeBody>();
      const missing = keys.filter((key) => !cachedPath(root, key, out));
      if (missing.length === 0) return out;
      // Each level read by hash (an index lookup): the root, the chunks, the middle nodes, the leaves. A root written
      // before grouped roots has no chunks: its own body stands for the chunk (its members are first characters).
      const node = (hash: ReturnType<typeof sql>) => sql`(select body from documents where hash = ${hash})`;
      const rows = await db.all<{ hash: string; body: string }>(sql`
        with wanted(k) as (select distinct value from json_each(${JSON.stringify(missing)})),
        chunks(k, hash) as (select w.k, json_extract(${node(sql`${root}`)}, '$."~' || (unicode(substr(w.k, 1, 1)) % ${GROUPS_SQL}) || '"') from wanted w),
        mids(k, hash) as (select c.k, json_extract(coalesce(${node(sql`c.hash`)}, ${node(sql`${root}`)}), '$."' || substr(c.k, 1, 1) || '"') from chunks c),
        leaves(hash) as (select distinct json_extract(${node(sql`m.hash`)}, '$."' || substr(m.k, 2, 1) || '"') from mids m),
        hashes(hash) as (select ${root} union select hash from chunks union select hash from mids union select hash from leaves)
        select h.hash as hash, ${node(sql`h.hash`)} as body from hashes h where h.hash is not null`);
      parseRows(
        rows.filter((r) => r.body !== null),
        out,
        cached,
      );
      return out;
    },
  };
}

/** Adds the cached nodes on `key`'s path to `out`; false when one of them is not cached. */
function cachedPath(root: string, key: string, out: Map<string, NodeBody>): boolean {
  const path = walkPath(root, key, fromCache);
  for (const hash of path.hashes) out.set(hash, fromCache(hash)!);
  return path.complete;
}

/** A store over a plain map: for tests, the benchmark's pure steps and conversions in memory. */
export function memoryNodeStore(nodes = new Map<string, string>()): NodeStore & { nodes: Map<string, string> } {
  const load = async (hashes: string[]) => {
    const out = new Map<string, NodeBody>();
    for (const hash of hashes) {
      const body = nodes.get(hash);
      if (body !== undefined) out.set(hash, JSON.parse(body) as NodeBody);
    }
    return out;
  };
  return {
    nodes,
    load,
    async loadPaths(root, keys) {
      const out = new Map<string, NodeBody>();
      for (const key of keys) {
        for (let path = walkPath(root, key, (h) => out.get(h)); path.missing && nodes.has(path.missing); path = walkPath(root, key, (h) => out.get(h))) {
          for (const [h, b] of await load([path.missing])) out.set(h, b);
        }
      }
      return out;
    },
  };
}

/**
 * Characters of a node's name: the first 128 bits of its SHA-256 in base64url. A node's name is repeated in its
 * parent, and the root (62 names) is written again by every edit, so a name's length is most of what an edit's tree
 * nodes cost (issue 42, storage: 43 characters made the root 3.1 KB, 22 make it 1.8 KB). 128 bits keep what content
 * addressing needs here: finding a node that takes another's name (another tenant's) is a second preimage, 2^128
 * work; two nodes of one's own with one name (a birthday collision, 2^64) harm only their maker's content.
 */
export const NODE_HASH_CHARS = 22;

/**
 * A node as stored: its canonical JSON, named by its SHA-256 in base64url cut to NODE_HASH_CHARS (nodes written
 * before are named by the whole of it, or in hex before issue 42's compact hashes; every name names its content, and
 * a map may mix them).
 */
export async function storeNode(body: NodeBody): Promise<StoredNode> {
  const text = canonicalJson(body);
  return { hash: (await sha256Base64Url(text)).slice(0, NODE_HASH_CHARS), body: text };
}

// ---------------------------------------------------------------------------------------------
// A trie being read and changed

type Branch = Record<string, string>;
type Leaf<V> = Record<string, V>;

/**
 * One version of a map, with staged changes: `get` reads through them, `write` makes the new
 * nodes (only those on the changed paths) and returns the new root. Values handed out are copies.
 */
export class TrieView<V> {
  private readonly nodes = new Map<string, NodeBody>();
  private readonly staged = new Map<string, V | null>();

  constructor(
    private readonly store: NodeStore,
    readonly root: string | null,
  ) {}

  private branch(hash: string | undefined): Branch {
    return hash ? ((this.nodes.get(hash) as Branch | undefined) ?? {}) : {};
  }

  private leafHash(key: string): string | undefined {
    return this.root ? walkPath(this.root, key, (h) => this.nodes.get(h)).leaf : undefined;
  }

  private loaded(key: string): boolean {
    return !this.root || walkPath(this.root, key, (h) => this.nodes.get(h)).complete;
  }

  /** Loads the nodes `keys` need (one query for all of them, none when cached). */
  async prefetch(keys: Iterable<string>): Promise<void> {
    if (!this.root) return;
    const missing = [...new Set(keys)].filter((key) => !this.loaded(key));
    if (missing.length === 0) return;
    for (const [hash, body] of await this.store.loadPaths(this.root, missing)) this.nodes.set(hash, body);
    for (const key of missing) if (!this.loaded(key)) throw new Error(`content tree node missing for key ${key}`);
  }

  async getMany(keys: Iterable<string>): Promise<Map<string, V>> {
    // A key no id can be (see SAFE_KEY) is in no map: not looked up at all.
    const list = [...keys].filter((key) => SAFE_KEY.test(key));
    await this.prefetch(list.filter((k) => !this.staged.has(k)));
    const out = new Map<string, V>();
    for (const key of list) {
      const value = this.peek(key);
      if (value !== undefined) out.set(key, value);
    }
    return out;
  }

  async get(key: string): Promise<V | undefined> {
    return (await this.getMany([key])).get(key);
  }

  /** The value of a key whose nodes are loaded (or staged). */
  private peek(key: string): V | undefined {
    if (this.staged.has(key)) {
      const value = this.staged.get(key);
      return value === null ? undefined : structuredClone(value);
    }
    const leaf = this.leafHash(key);
    const value = leaf ? (this.nodes.get(leaf) as Leaf<V>)[key] : undefined;
    return value === undefined ? undefined : structuredClone(value);
  }

  set(key: string, value: V) {
    this.staged.set(key, structuredClone(value));
  }

  delete(key: string) {
    this.staged.set(key, null);
  }

  get changed(): boolean {
    return this.staged.size > 0;
  }

  /** The new nodes and root of the map with the staged changes; the view keeps reading the old version. */
  async write(): Promise<{ root: string | null; nodes: StoredNode[] }> {
    if (this.staged.size === 0) return { root: this.root, nodes: [] };
    await this.prefetch(this.staged.keys());
    const byLeaf = new Map<string, Map<string, string[]>>();
    for (const key of this.staged.keys()) {
      const [c0, c1] = [keyChar(key, 0), keyChar(key, 1)];
      const mid = byLeaf.get(c0) ?? new Map<string, string[]>();
      mid.set(c1, [...(mid.get(c1) ?? []), key]);
      byLeaf.set(c0, mid);
    }
    const written: StoredNode[] = [];
    const save = async (body: NodeBody) => {
      const node = await storeNode(body);
      written.push(node);
      return node.hash;
    };
    const oldRoot = this.branch(this.root ?? undefined);
    const grouped = isGroupedRoot(oldRoot);
    // The chunks the changes touch, as they are; a root written before grouped roots is regrouped whole, once.
    const chunks = new Map<string, Branch>();
    if (grouped) for (const c0 of byLeaf.keys()) chunks.set(groupOf(c0), { ...this.branch(oldRoot[groupOf(c0)]) });
    else for (const [c0, mid] of Object.entries(oldRoot)) chunks.set(groupOf(c0), { ...chunks.get(groupOf(c0)), [c0]: mid });
    for (const [c0, leaves] of byLeaf) {
      const chunk = chunks.get(groupOf(c0)) ?? {};
      chunks.set(groupOf(c0), chunk);
      const mid: Branch = { ...this.branch(chunk[c0]) };
      for (const [c1, keys] of leaves) {
        const leaf: Leaf<V> = { ...((mid[c1] ? this.nodes.get(mid[c1]) : {}) as Leaf<V>) };
        for (const key of keys) {
          const value = this.staged.get(key);
          if (value === null || value === undefined) delete leaf[key];
          else leaf[key] = value;
        }
        if (Object.keys(leaf).length === 0) delete mid[c1];
        else mid[c1] = await save(leaf);
      }
      if (Object.keys(mid).length === 0) delete chunk[c0];
      else chunk[c0] = await save(mid);
    }
    const root: Branch = grouped ? { ...oldRoot } : {};
    for (const [group, chunk] of chunks) {
      if (Object.keys(chunk).length === 0) delete root[group];
      else root[group] = await save(chunk);
    }
    return { root: Object.keys(root).length === 0 ? null : await save(root), nodes: dedupe(written) };
  }
}

function dedupe(nodes: StoredNode[]): StoredNode[] {
  return [...new Map(nodes.map((n) => [n.hash, n])).values()];
}

/** The names of a root's middle nodes, by first character: through its chunks when it is grouped. */
async function midsOf(store: NodeStore, root: Branch): Promise<Branch> {
  if (!isGroupedRoot(root)) return root;
  const chunks = await store.load(Object.values(root));
  return Object.assign({}, ...Object.values(root).map((hash) => chunks.get(hash) ?? {})) as Branch;
}

/** Every entry of a map (the whole-tree reads, conversions): all its nodes, level by level. */
export async function entriesOf<V>(store: NodeStore, root: string | null): Promise<Map<string, V>> {
  const out = new Map<string, V>();
  if (!root) return out;
  const rootBody = (await store.load([root])).get(root) as Branch;
  const mids = await store.load(Object.values(await midsOf(store, rootBody)));
  const leaves = await store.load([...mids.values()].flatMap((m) => Object.values(m as Branch)));
  for (const leaf of leaves.values()) for (const [key, value] of Object.entries(leaf as Leaf<V>)) out.set(key, value);
  return out;
}

export interface Change<V> {
  before?: V;
  after?: V;
}

/**
 * The keys whose values differ between two versions of a map, with both values. Subtrees with the
 * same hash are skipped, so the cost is that of the changes, not of the map.
 */
export async function diffTries<V>(store: NodeStore, a: string | null, b: string | null): Promise<Map<string, Change<V>>> {
  const out = new Map<string, Change<V>>();
  if (a === b) return out;
  const bodies = await store.load([a, b].filter((h): h is string => !!h));
  const body = (hash: string | null | undefined) => (hash ? ((bodies.get(hash) as Branch | undefined) ?? {}) : {});
  const differing = (x: Branch, y: Branch) => [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => x[k] !== y[k]).map((k) => [x[k], y[k]] as const);
  const midPairs = differing(...(await differingMids(store, body(a), body(b))));
  for (const [h, v] of await store.load(midPairs.flatMap((p) => p.filter(Boolean) as string[]))) bodies.set(h, v);
  const leafPairs = midPairs.flatMap(([x, y]) => differing(body(x), body(y)));
  for (const [h, v] of await store.load(leafPairs.flatMap((p) => p.filter(Boolean) as string[]))) bodies.set(h, v);
  for (const [x, y] of leafPairs) {
    const left = body(x) as Leaf<V>;
    const right = body(y) as Leaf<V>;
    for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
      if (left[key] !== undefined && right[key] !== undefined && canonicalJson(left[key]) === canonicalJson(right[key])) continue;
      out.set(key, { before: left[key], after: right[key] });
    }
  }
  return out;
}

/**
 * The middle nodes of two roots by first character, as far as they may differ: the chunks both grouped roots share
 * are left out (equal hashes, equal content); a root of the old form is compared whole.
 */
async function differingMids(store: NodeStore, a: Branch, b: Branch): Promise<[Branch, Branch]> {
  if (!isGroupedRoot(a) || !isGroupedRoot(b)) return [await midsOf(store, a), await midsOf(store, b)];
  const groups = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((g) => a[g] !== b[g]);
  const keep = (root: Branch) => Object.fromEntries(groups.filter((g) => root[g]).map((g) => [g, root[g]]));
  const [ka, kb] = [keep(a), keep(b)];
  // Both empty: no group differs (roots of one content); one side empty: that side has no middle nodes there.
  return [Object.keys(ka).length ? await midsOf(store, ka) : {}, Object.keys(kb).length ? await midsOf(store, kb) : {}];
}

/** Writes a whole map at once (conversions, tests): the entries as one batch of changes to an empty map. */
export async function buildTrie<V>(store: NodeStore, entries: Iterable<[string, V]>) {
  const view = new TrieView<V>(store, null);
  for (const [key, value] of entries) view.set(key, value);
  return view.write();
}

// ---------------------------------------------------------------------------------------------
// SQL over the same structure, for reads in one statement

/**
 * The value (JSON text) of `key` in the map rooted at `root`: one subquery joining the root, its chunk (none for a
 * root written before grouped roots: the root stands for it), the middle node and the leaf, each a primary-key read,
 * and taking the key's member of the leaf. A join rather than nested subqueries: SQLite caps an expression's depth
 * (100), and callers nest this one in theirs. Keys must be `SAFE_KEY`s (they are quoted into JSON paths).
 */
export function lookupSql(root: ReturnType<typeof sql>, key: ReturnType<typeof sql>) {
  const path = (name: ReturnType<typeof sql>) => sql`'$."' || ${name} || '"'`;
  // A key that is no SAFE_KEY is in no map; spliced into a JSON path it would be an error (a quote ends it).
  return sql`(case when ${key} is null or length(${key}) not between 1 and 128 or ${key} glob '*[^A-Za-z0-9_~-]*' then null
    else (select json_extract(lk_l.body, ${path(key)}) from documents lk_r
      left join documents lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(${key}) % ${GROUPS_SQL}) || '"')
      join documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), ${path(sql`substr(${key}, 1, 1)`)})
      join documents lk_l on lk_l.hash = json_extract(lk_m.body, ${path(sql`substr(${key}, 2, 1)`)})
      where lk_r.hash = ${root}) end)`;
}

/** What a key may be to be looked up in SQL: our ids and ROOT; anything else is not in any map. */
export const SAFE_KEY = /^[A-Za-z0-9_~-]{1,128}$/;

/**
 * Walking from a root to its middle nodes in SQL: `json_each(<root's body>) g cross join json_each(${midsOfMemberSql('g')}) c`
 * gives every middle node's hash as `c.value`, through the chunk a grouped root's member names, or (a root written
 * before grouped roots) the member itself, wrapped as an object of one member. A table-valued function, so that the
 * walk may follow a column of an outer row (SQLite has no lateral subqueries).
 */
export function midsOfMemberSql(member: string) {
  const g = sql.raw(member);
  return sql`case when ${g}.key glob '~[0-7]' then (select body from documents where hash = ${g}.value) else json_object(${g}.key, ${g}.value) end`;
}

/** Whether a root's member (`json_each` alias `member`) names a chunk (the walks that list every node count them). */
export function isChunkMemberSql(member: string) {
  return sql`${sql.raw(member)}.key glob '~[0-7]'`;
}

/**
 * A root's middle nodes by first character as one JSON object (SQL): a grouped root's chunks merged, or (a root
 * written before grouped roots) the root's body itself. `rootBody` is an SQL expression, null for no map.
 */
export function midsObjectSql(rootBody: ReturnType<typeof sql>) {
  return sql`(select case when exists (select 1 from json_each(${rootBody}) g where g.key glob '~[0-7]')
    then (select json_group_object(m.key, m.value) from json_each(${rootBody}) g cross join json_each((select body from documents where hash = g.value)) m where g.key glob '~[0-7]')
    else ${rootBody} end)`;
}

/** The hashes (column `value`) of a grouped root's chunks; none for a root written before grouped roots. */
export function chunkHashesSql(rootBody: ReturnType<typeof sql>) {
  return sql`select g.value from json_each(${rootBody}) g where g.key glob '~[0-7]'`;
}

/** The body of every leaf of the map rooted at `root`, as rows `(body)`: a subquery of index lookups. */
export function leavesSql(root: ReturnType<typeof sql>) {
  return sql`select (select body from documents where hash = c2.value) as body
    from json_each((select body from documents where hash = ${root})) g
    cross join json_each(${midsOfMemberSql('g')}) c1
    cross join json_each((select body from documents where hash = c1.value)) c2`;
}
