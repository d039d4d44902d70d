import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sha256Base64Url } from '../../lib/ids';
import { canonicalJson } from './revisions';

/**
 * Persistent maps shared between revisions. A revision's pages (and, apart, its files) are a map
 * from id to record, stored as a three-level trie of immutable, content-addressed nodes in the
 * `documents` table: the root maps the key's first character to a middle node, a middle node maps
 * the second character to a leaf, and a leaf maps whole keys to their values. Ids are random base62,
 * so 50,000 pages make leaves of about 13 records. Changing k keys writes k leaves, at most k middle
 * nodes and one root (a few KiB each), and every other node is shared with the parent revision.
 *
 * Reads walk the same three levels in SQL (`lookupSql`), so one page is one indexed query whatever
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

/** Character `level` (0 or 1) of a key: the branch it takes at the root and in the middle node. */
export const keyChar = (key: string, level: 0 | 1) => key.charAt(level);

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

function parseRows(rows: Array<{ hash: string; body: string }>, out: Map<string, NodeBody>) {
  for (const row of rows) {
    const body = JSON.parse(row.body) as NodeBody;
    remember(row.hash, body, row.body.length);
    out.set(row.hash, body);
  }
}

/** The D1 node store, behind the isolate's cache. */
export function d1NodeStore(db: Db): NodeStore {
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
      parseRows(rows, out);
      return out;
    },
    async loadPaths(root, keys) {
      const out = new Map<string, NodeBody>();
      const missing = keys.filter((key) => !cachedPath(root, key, out));
      if (missing.length === 0) return out;
      // Each level read by hash (an index lookup): the root, the middle nodes, the leaves.
      const node = (hash: ReturnType<typeof sql>) => sql`(select body from documents where hash = ${hash})`;
      const rows = await db.all<{ hash: string; body: string }>(sql`
        with wanted(k) as (select distinct value from json_each(${JSON.stringify(missing)})),
        mids(hash) as (select distinct json_extract(${node(sql`${root}`)}, '$."' || substr(k, 1, 1) || '"') from wanted),
        leaves(hash) as (
          select distinct json_extract(${node(sql`json_extract(${node(sql`${root}`)}, '$."' || substr(k, 1, 1) || '"')`)}, '$."' || substr(k, 2, 1) || '"')
          from wanted),
        hashes(hash) as (select ${root} union select hash from mids union select hash from leaves)
        select h.hash as hash, ${node(sql`h.hash`)} as body from hashes h where h.hash is not null`);
      parseRows(
        rows.filter((r) => r.body !== null),
        out,
      );
      return out;
    },
  };
}

/** Adds the cached nodes on `key`'s path to `out`; false when one of them is not cached. */
function cachedPath(root: string, key: string, out: Map<string, NodeBody>): boolean {
  let hash: string | undefined = root;
  for (let level = 0; level < 3 && hash; level++) {
    const body = fromCache(hash);
    if (!body) return false;
    out.set(hash, body);
    hash = level < 2 ? ((body as Record<string, string>)[keyChar(key, level as 0 | 1)] ?? undefined) : undefined;
  }
  return true;
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
      const out = await load([root]);
      const rootBody = (out.get(root) ?? {}) as Record<string, string>;
      const mids = await load(keys.map((k) => rootBody[keyChar(k, 0)]).filter(Boolean));
      for (const [h, b] of mids) out.set(h, b);
      const leaves = await load(
        keys.map((k) => (mids.get(rootBody[keyChar(k, 0)]) as Record<string, string> | undefined)?.[keyChar(k, 1)]).filter((h): h is string => !!h),
      );
      for (const [h, b] of leaves) out.set(h, b);
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
    if (!this.root) return undefined;
    return this.branch(this.branch(this.root)[keyChar(key, 0)])[keyChar(key, 1)];
  }

  private loaded(key: string): boolean {
    if (!this.root || !this.nodes.has(this.root)) return !this.root;
    const mid = this.branch(this.root)[keyChar(key, 0)];
    if (!mid) return true;
    if (!this.nodes.has(mid)) return false;
    const leaf = this.branch(mid)[keyChar(key, 1)];
    return !leaf || this.nodes.has(leaf);
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
    const root: Branch = { ...this.branch(this.root ?? undefined) };
    for (const [c0, leaves] of byLeaf) {
      const mid: Branch = { ...this.branch(root[c0]) };
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
      if (Object.keys(mid).length === 0) delete root[c0];
      else root[c0] = await save(mid);
    }
    return { root: Object.keys(root).length === 0 ? null : await save(root), nodes: dedupe(written) };
  }
}

function dedupe(nodes: StoredNode[]): StoredNode[] {
  return [...new Map(nodes.map((n) => [n.hash, n])).values()];
}

/** Every entry of a map (the whole-tree reads, conversions): all its nodes, level by level. */
export async function entriesOf<V>(store: NodeStore, root: string | null): Promise<Map<string, V>> {
  const out = new Map<string, V>();
  if (!root) return out;
  const rootBody = (await store.load([root])).get(root) as Branch;
  const mids = await store.load(Object.values(rootBody));
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
  const midPairs = differing(body(a), body(b));
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

/** Writes a whole map at once (conversions, tests): the entries as one batch of changes to an empty map. */
export async function buildTrie<V>(store: NodeStore, entries: Iterable<[string, V]>) {
  const view = new TrieView<V>(store, null);
  for (const [key, value] of entries) view.set(key, value);
  return view.write();
}

// ---------------------------------------------------------------------------------------------
// SQL over the same structure, for reads in one statement

/**
 * The value (JSON text) of `key` in the map rooted at `root`: three primary-key reads, each taking
 * one member of a node by name. Keys must be `SAFE_KEY`s (they are quoted into JSON paths).
 */
export function lookupSql(root: ReturnType<typeof sql>, key: ReturnType<typeof sql>) {
  const member = (body: ReturnType<typeof sql>, name: ReturnType<typeof sql>) => sql`json_extract(${body}, '$."' || ${name} || '"')`;
  const node = (hash: ReturnType<typeof sql>) => sql`(select body from documents where hash = ${hash})`;
  const mid = member(node(root), sql`substr(${key}, 1, 1)`);
  const leaf = member(node(mid), sql`substr(${key}, 2, 1)`);
  // A key that is no SAFE_KEY is in no map; spliced into a JSON path it would be an error (a quote ends it).
  return sql`(case when ${key} is null or length(${key}) not between 1 and 128 or ${key} glob '*[^A-Za-z0-9_~-]*' then null
    else ${member(node(leaf), key)} end)`;
}

/** What a key may be to be looked up in SQL: our ids and ROOT; anything else is not in any map. */
export const SAFE_KEY = /^[A-Za-z0-9_~-]{1,128}$/;

/** The body of every leaf of the map rooted at `root`, as rows `(body)`: a subquery of index lookups. */
export function leavesSql(root: ReturnType<typeof sql>) {
  return sql`select (select body from documents where hash = c2.value) as body
    from json_each((select body from documents where hash = ${root})) c1
    cross join json_each((select body from documents where hash = c1.value)) c2`;
}
