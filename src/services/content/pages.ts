import type { FileEntry, PageEntry } from './revisions';
import { storeNode, TrieView, type NodeStore, type StoredNode } from './tree';
import { entryOf, nestPages, ROOT } from './tree-rows';

/**
 * A revision's page tree as records in a persistent map (content/tree): each page is stored once
 * per version with its parent and the ordered list of its children (`[id, slug]` pairs), and the
 * key ROOT holds the top-level list. A list longer than INLINE_CHILDREN is cut into content-defined
 * chunks (a boundary after each id whose hash is 0 mod CHUNK_SPREAD), stored as nodes of their own:
 * inserting one page into a list of 20,000 rewrites one chunk of about a hundred entries and the
 * parent's list of chunk hashes, not the whole list.
 */

export { ROOT, entryOf, nestPages };

export type ChildRef = [id: string, slug: string];
export type ChunkRef = [hash: string, count: number];

/** A page as stored: PageEntry without its nested children, with its parent and child list. */
export type PageRecord = Omit<PageEntry, 'pages'> & {
  parent: string | null;
  children?: ChildRef[];
  chunks?: ChunkRef[];
};

export interface RootRecord {
  id: typeof ROOT;
  children?: ChildRef[];
  chunks?: ChunkRef[];
}

export type TreeRecord = PageRecord | RootRecord;

export const INLINE_CHILDREN = 256;
const CHUNK_SPREAD = 128;
const MAX_CHUNK = 1024;

/** FNV-1a: a cheap, stable hash of an id, only to place chunk boundaries. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Cuts a child list into chunks whose boundaries depend only on the ids around them. */
export function chunkChildren(list: ChildRef[]): ChildRef[][] {
  const chunks: ChildRef[][] = [];
  let current: ChildRef[] = [];
  for (const child of list) {
    current.push(child);
    if (fnv1a(child[0]) % CHUNK_SPREAD === 0 || current.length >= MAX_CHUNK) {
      chunks.push(current);
      current = [];
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export const childCount = (record: TreeRecord) =>
  record.children?.length ?? record.chunks?.reduce((n, [, count]) => n + count, 0) ?? 0;

/** The pages and files of one version of a space's content, read and changed through tries. */
export class ContentTree {
  readonly pages: TrieView<TreeRecord>;
  readonly files: TrieView<FileEntry>;
  private readonly newChunks = new Map<string, StoredNode>();
  private readonly pendingChunks = new Map<string, ChildRef[]>();
  /** The chunks each record's list was last cut into here: only those are stored (an import inserting 5,000 pages into one list cuts it 5,000 times). */
  private readonly latestChunks = new Map<string, ChunkRef[]>();

  constructor(
    readonly store: NodeStore,
    roots: { pages: string | null; files: string | null },
  ) {
    this.pages = new TrieView<TreeRecord>(store, roots.pages);
    this.files = new TrieView<FileEntry>(store, roots.files);
  }

  async record(id: string): Promise<TreeRecord | undefined> {
    return this.pages.get(id);
  }

  async page(id: string): Promise<PageRecord | undefined> {
    if (id === ROOT) return undefined;
    return (await this.pages.get(id)) as PageRecord | undefined;
  }

  async pagesById(ids: Iterable<string>): Promise<Map<string, PageRecord>> {
    const found = await this.pages.getMany([...ids].filter((id) => id !== ROOT));
    return found as Map<string, PageRecord>;
  }

  /** The ordered children of a page (ROOT for the top level). */
  async children(parent: string): Promise<ChildRef[]> {
    const record = parent === ROOT ? ((await this.pages.get(ROOT)) ?? { id: ROOT }) : await this.pages.get(parent);
    if (!record) return [];
    return this.listOf(record);
  }

  /** A record's ordered child list, whose chunks may have been written by this tree and not stored yet. */
  async listOf(record: TreeRecord): Promise<ChildRef[]> {
    const pending = record.chunks?.map(([hash]) => this.pendingChunks.get(hash));
    if (pending?.length && pending.every((chunk) => chunk !== undefined)) return pending.flat() as ChildRef[];
    return childrenOf(this.store, record);
  }

  /** Replaces a parent's child list, on the record given (which the caller then stores). */
  async setChildren<R extends TreeRecord>(record: R, list: ChildRef[]): Promise<R> {
    const next = { ...record };
    delete next.children;
    delete next.chunks;
    const previous = this.latestChunks.get(record.id) ?? record.chunks ?? [];
    this.latestChunks.delete(record.id);
    if (list.length === 0) return next;
    if (list.length <= INLINE_CHILDREN) return { ...next, children: list };
    // A chunk the list had before, entry for entry, keeps its hash (content-defined boundaries: an insert changes one or two).
    const before = new Map(previous.flatMap(([hash]) => {
      const chunk = this.pendingChunks.get(hash);
      return chunk?.length ? [[chunk[0][0], [hash, chunk] as const]] : [];
    }));
    const chunks: ChunkRef[] = [];
    for (const chunk of chunkChildren(list)) {
      const same = before.get(chunk[0][0]);
      if (same && sameChildren(same[1], chunk)) {
        chunks.push([same[0], chunk.length]);
        continue;
      }
      const node = await storeNode(chunk);
      this.newChunks.set(node.hash, node);
      this.pendingChunks.set(node.hash, chunk);
      chunks.push([node.hash, chunk.length]);
    }
    this.latestChunks.set(record.id, chunks);
    return { ...next, chunks };
  }

  async rootRecord(): Promise<RootRecord> {
    return ((await this.pages.get(ROOT)) as RootRecord | undefined) ?? { id: ROOT };
  }

  /** The new roots and every node to store for them. */
  async write(): Promise<{ pages: string | null; files: string | null; nodes: StoredNode[] }> {
    const pages = await this.pages.write();
    const files = await this.files.write();
    // The chunks the lists' last versions name; those of the versions before (cut again since) are nobody's.
    const named = new Set([...this.latestChunks.values()].flatMap((chunks) => chunks.map(([hash]) => hash)));
    const chunks = [...this.newChunks.values()].filter((node) => named.has(node.hash));
    return { pages: pages.root, files: files.root, nodes: [...pages.nodes, ...files.nodes, ...chunks] };
  }
}

function sameChildren(a: readonly ChildRef[], b: readonly ChildRef[]): boolean {
  return a.length === b.length && a.every(([id, slug], i) => b[i][0] === id && b[i][1] === slug);
}

/** The ordered child list of a record, reading its chunks when it has them. */
export async function childrenOf(store: NodeStore, record: TreeRecord): Promise<ChildRef[]> {
  if (record.children) return record.children;
  if (!record.chunks?.length) return [];
  const bodies = await store.load(record.chunks.map(([hash]) => hash));
  return record.chunks.flatMap(([hash]) => {
    const body = bodies.get(hash);
    if (!body) throw new Error(`child list chunk ${hash} is missing`);
    return body as ChildRef[];
  });
}
