import type { RevisionMeta } from './convert';
import type { ChildRef, PageRecord, TreeRecord } from './pages';
import type { PageEntry } from './revisions';

/**
 * A revision's page tree and meta as a whole-tree statement reads them (rows of `leaf` and `chunk` nodes, the meta's
 * JSON): the read side alone, with nothing but types imported. The published site's first page evaluates this and
 * not the modules that write trees (pages.ts, tree.ts, revisions.ts with its deltas and `diff`) or serve the API's
 * reads (reads.ts and the change requests, presenters and statements it imports): issue 42 item 7. Those modules
 * re-export what is here.
 */

/** The key of the record that holds the top-level list of pages. */
export const ROOT = '~';

export const EMPTY_META: RevisionMeta = { variables: {}, reusableContents: [] };

export function parseMeta(text: string | null | undefined): RevisionMeta {
  if (!text) return EMPTY_META;
  const parsed = JSON.parse(text) as Partial<RevisionMeta>;
  return { variables: parsed.variables ?? {}, reusableContents: parsed.reusableContents ?? [] };
}

/** Whether a page is a group (a section heading of the top level, holding pages; no body of its own). */
export const isGroupPage = (page: Pick<PageEntry, 'type'>) => page.type === 'group';

/** A record without its tree fields: what PageEntry has besides `pages`. */
export function entryOf(record: PageRecord): Omit<PageEntry, 'pages'> {
  const { parent, children, chunks, ...entry } = record;
  return entry;
}

/**
 * Rebuilds nested PageEntry trees from records (whole-tree reads, page subtrees): `childLists`
 * gives each record's ordered children (from `children`, or from its chunks read beforehand).
 */
export function nestPages(
  top: ChildRef[],
  records: Map<string, PageRecord>,
  childLists: (record: PageRecord) => ChildRef[],
): PageEntry[] {
  const build = (list: ChildRef[], depth: number): PageEntry[] =>
    list.flatMap(([id]) => {
      const record = records.get(id);
      if (!record || depth > 1000) return [];
      return [{ ...entryOf(record), pages: build(childLists(record), depth + 1) } as PageEntry];
    });
  return build(top, 0);
}

/** Each record's ordered child list: its own, or its chunks' (rows of kind `chunk`, keyed by hash or by `n`). */
export function chunkLists(rows: Array<{ kind: string; n?: number | string; key?: string | null; value: string }>) {
  const chunks = new Map<string, ChildRef[]>();
  for (const row of rows) if (row.kind === 'chunk') chunks.set(String(row.key ?? row.n), JSON.parse(row.value) as ChildRef[]);
  return (record: TreeRecord): ChildRef[] => record.children ?? (record.chunks ?? []).flatMap(([hash]) => chunks.get(hash) ?? []);
}

/** The nested page tree of a whole-tree statement's rows, and whether any of its pages is computed. */
export function wholeTree(rows: Array<{ kind: string; key?: string | null; value: string }>): { pages: PageEntry[]; computed: boolean } {
  const records = new Map<string, TreeRecord>();
  let computed = false;
  for (const row of rows) {
    if (row.kind !== 'leaf') continue;
    for (const [key, value] of Object.entries(JSON.parse(row.value) as Record<string, TreeRecord>)) {
      records.set(key, value);
      if (!computed && (value as PageRecord).computed) computed = true;
    }
  }
  const listOf = chunkLists(rows);
  const root = records.get(ROOT) ?? { id: ROOT };
  return { pages: nestPages(listOf(root), records as Map<string, PageRecord>, listOf), computed };
}
