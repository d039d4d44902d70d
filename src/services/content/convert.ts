import type { FileEntry, Manifest, PageEntry, ReusableContentEntry, VariableValue } from './revisions';
import { childrenOf, ContentTree, entryOf, nestPages, ROOT, type ChildRef, type PageRecord, type TreeRecord } from './pages';
import { entriesOf, type NodeStore, type StoredNode } from './tree';

/** What a revision row keeps beside its two roots: small, merged as a whole. */
export interface RevisionMeta {
  variables: Record<string, VariableValue>;
  reusableContents: ReusableContentEntry[];
}

export { EMPTY_META, parseMeta } from './tree-rows';

export interface ConvertedTree {
  pages: string | null;
  files: string | null;
  meta: RevisionMeta;
  nodes: StoredNode[];
  pageCount: number;
  fileCount: number;
}

/** A whole manifest (nested pages) as a content tree: every page a record, every file an entry. */
export async function manifestToTree(store: NodeStore & { nodes?: Map<string, string> }, manifest: Manifest): Promise<ConvertedTree> {
  const tree = new ContentTree(store, { pages: null, files: null });
  let pageCount = 0;
  const add = async (list: PageEntry[], parent: string | null) => {
    for (const page of list) {
      const { pages, ...entry } = page;
      const record: PageRecord = { ...entry, parent };
      tree.pages.set(page.id, await tree.setChildren(record, pages.map((child): ChildRef => [child.id, child.slug])));
      pageCount++;
      await add(pages, page.id);
    }
  };
  await add(manifest.pages, null);
  tree.pages.set(ROOT, await tree.setChildren({ id: ROOT }, manifest.pages.map((p): ChildRef => [p.id, p.slug])));
  for (const file of manifest.files) tree.files.set(file.id, file);
  const written = await tree.write();
  // An in-memory store keeps what it wrote, so the tree can be read back at once.
  if (store.nodes) for (const node of written.nodes) store.nodes.set(node.hash, node.body);
  return {
    pages: written.pages,
    files: written.files,
    meta: { variables: manifest.variables, reusableContents: manifest.reusableContents },
    nodes: written.nodes,
    pageCount,
    fileCount: manifest.files.length,
  };
}

/** Every record of a page map, and the ordered child list of each (chunks read in one go). */
export async function loadAllPages(store: NodeStore, root: string | null) {
  const records = await entriesOf<TreeRecord>(store, root);
  const chunked = [...records.values()].filter((r) => r.chunks?.length);
  await store.load(chunked.flatMap((r) => r.chunks!.map(([hash]) => hash)));
  const lists = new Map<string, ChildRef[]>();
  for (const record of chunked) lists.set(record.id, await childrenOf(store, record));
  return { records, lists };
}

/** A whole content tree as a manifest: nested pages in order, files in id order. */
export async function treeToManifest(store: NodeStore, tree: { pages: string | null; files: string | null; meta: RevisionMeta }): Promise<Manifest> {
  const { records, lists } = await loadAllPages(store, tree.pages);
  const files = await entriesOf<FileEntry>(store, tree.files);
  const root = records.get(ROOT) ?? { id: ROOT };
  const pages = nestPages(lists.get(ROOT) ?? root.children ?? [], records as Map<string, PageRecord>, (r) => lists.get(r.id) ?? r.children ?? []);
  return {
    pages,
    files: [...files.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    variables: tree.meta.variables,
    reusableContents: tree.meta.reusableContents,
  };
}

