import { describe, expect, it } from 'vitest';
import { manifestToTree, treeToManifest } from '../../src/services/content/convert';
import { chunkChildren, ContentTree, INLINE_CHILDREN, ROOT, type ChildRef, type PageRecord } from '../../src/services/content/pages';
import { diffTries, groupOf, memoryNodeStore, NODE_HASH_CHARS, ROOT_GROUPS, TrieView } from '../../src/services/content/tree';
import { canonicalJson } from '../../src/services/content/revisions';
import { sha256Base64Url } from '../../src/lib/ids';
import { largeManifest, page, pageId } from '../helpers/large-content';

/** The persistent page and file maps: what a change writes, what two versions share, large child lists. */
describe('content trees', () => {
  it('round-trips a manifest: nested pages in order, files, variables', async () => {
    const store = memoryNodeStore();
    const manifest = largeManifest(12, 40);
    manifest.pages[3].pages[5].pages.push(page(pageId('deep'), 'Deep'));
    manifest.files.push({ id: 'f1', name: 'a.png', contentType: 'image/png', size: 3, hash: 'h' });
    manifest.variables = { a: 1 };
    const tree = await manifestToTree(store, manifest);
    expect(tree.pageCount).toBe(12 + 12 * 40 + 1);
    expect(await treeToManifest(store, tree)).toEqual(manifest);
  });

  it('shares every node a change does not touch: one page edited in 3,000 writes one path of the trie', async () => {
    const store = memoryNodeStore();
    const tree = await manifestToTree(store, largeManifest(30, 100));
    const before = new Set(store.nodes.keys());
    const content = new ContentTree(store, tree);
    const id = pageId('p-7-42');
    const record = (await content.page(id))!;
    content.pages.set(id, { ...record, title: 'Edited' });
    const written = await content.write();
    // A leaf, a middle node, a chunk and the root: nothing else is new.
    expect(written.nodes).toHaveLength(4);
    expect(written.nodes.every((n) => !before.has(n.hash))).toBe(true);
    const bytes = written.nodes.reduce((n, node) => n + node.body.length, 0);
    const total = [...store.nodes.values()].reduce((n, body) => n + body.length, 0);
    expect(bytes).toBeLessThan(total / 50);
    for (const node of written.nodes) store.nodes.set(node.hash, node.body);
    const changes = await diffTries(store, tree.pages, written.pages);
    expect([...changes.keys()]).toEqual([id]);
    expect((changes.get(id)!.after as PageRecord).title).toBe('Edited');
    // The old version still reads as it was.
    expect((await new ContentTree(store, tree).page(id))!.title).toBe('Page 7-42');
  });

  it('names new nodes by 22 characters of their SHA-256, and reads and changes maps whose nodes have longer names', async () => {
    // A map as written before compact names: every node named by the whole SHA-256 in base64url (43 characters).
    const store = memoryNodeStore();
    const put = async (body: Record<string, unknown>) => {
      const text = canonicalJson(body);
      const hash = await sha256Base64Url(text);
      store.nodes.set(hash, text);
      return hash;
    };
    const oldRoot = await put({ a: await put({ b: await put({ ab1: { n: 1 } }) }), x: await put({ y: await put({ xy1: { n: 2 } }) }) });
    expect(oldRoot).toHaveLength(43);
    const view = new TrieView<{ n: number }>(store, oldRoot);
    expect(Object.fromEntries(await view.getMany(['ab1', 'xy1']))).toEqual({ ab1: { n: 1 }, xy1: { n: 2 } });
    view.set('ab1', { n: 3 });
    const written = await view.write();
    // The changed path is new and named compactly, and the root is regrouped (a chunk for 'a', one for 'x'); the
    // untouched subtree keeps its old name in its chunk.
    expect(written.nodes.map((n) => n.hash.length)).toEqual(Array(5).fill(NODE_HASH_CHARS));
    expect(NODE_HASH_CHARS).toBe(22);
    for (const node of written.nodes) {
      store.nodes.set(node.hash, node.body);
      expect(node.hash).toBe((await sha256Base64Url(node.body)).slice(0, 22));
    }
    const rootBody = JSON.parse(store.nodes.get(written.root!)!) as Record<string, string>;
    expect(Object.keys(rootBody).sort()).toEqual([groupOf('x'), groupOf('a')].sort());
    const chunk = (key: string) => JSON.parse(store.nodes.get(rootBody[groupOf(key)])!) as Record<string, string>;
    expect(chunk('x')).toEqual({ x: JSON.parse(store.nodes.get(oldRoot)!).x });
    expect(chunk('a').a).toHaveLength(22);
    expect(Object.fromEntries(await new TrieView<{ n: number }>(store, written.root).getMany(['ab1', 'xy1']))).toEqual({ ab1: { n: 3 }, xy1: { n: 2 } });
    const changes = await diffTries(store, oldRoot, written.root);
    expect([...changes.entries()]).toEqual([['ab1', { before: { n: 1 }, after: { n: 3 } }]]);
  });

  it('groups the root: a one-page edit rewrites a root of at most 8 names and one chunk, not a root of 62', async () => {
    const store = memoryNodeStore();
    const tree = await manifestToTree(store, largeManifest(30, 100));
    const root = JSON.parse(store.nodes.get(tree.pages!)!) as Record<string, string>;
    expect(Object.keys(root).sort()).toEqual(Array.from({ length: ROOT_GROUPS }, (_, g) => `~${g}`));
    const content = new ContentTree(store, tree);
    const id = pageId('p-3-9');
    content.pages.set(id, { ...(await content.page(id))!, title: 'Edited' });
    const written = await content.write();
    const [newRoot, chunk] = [written.nodes.find((n) => n.hash === written.pages)!, written.nodes.find((n) => n.hash === JSON.parse(written.nodes.find((m) => m.hash === written.pages)!.body)[groupOf(id)])!];
    // Ids' first characters are base62: 62 names spread over the 8 chunks, none in the root.
    expect(Object.keys(JSON.parse(chunk.body))).toContain(id[0]);
    expect(Object.keys(JSON.parse(chunk.body)).length).toBeLessThanOrEqual(10);
    expect(newRoot.body.length + chunk.body.length).toBeLessThan(2 * ROOT_GROUPS * 32);
    for (const node of written.nodes) store.nodes.set(node.hash, node.body);
    expect((await new ContentTree(store, written).page(id))!.title).toBe('Edited');
    // Deleting every key of a group drops its chunk; deleting them all leaves no root.
    const view = new TrieView<{ n: number }>(store, null);
    for (const key of ['a1', 'i1', 'b1']) view.set(key, { n: 1 });
    const small = await view.write();
    for (const node of small.nodes) store.nodes.set(node.hash, node.body);
    const shrink = new TrieView<{ n: number }>(store, small.root);
    shrink.delete('a1');
    shrink.delete('i1'); // 'a' and 'i' share group ~1, 'b' is in ~2
    const shrunk = await shrink.write();
    for (const node of shrunk.nodes) store.nodes.set(node.hash, node.body);
    expect(Object.keys(JSON.parse(store.nodes.get(shrunk.root!)!))).toEqual([groupOf('b')]);
    expect(Object.fromEntries(await new TrieView<{ n: number }>(store, shrunk.root).getMany(['a1', 'b1', 'i1']))).toEqual({ b1: { n: 1 } });
    const last = new TrieView<{ n: number }>(store, shrunk.root);
    last.delete('b1');
    expect((await last.write()).root).toBeNull();
  });

  it('writes the same nodes for the same content whatever the order of the changes', async () => {
    const store = memoryNodeStore();
    const a = new TrieView<number>(store, null);
    const b = new TrieView<number>(store, null);
    const keys = Array.from({ length: 500 }, (_, i) => pageId(`k${i}`));
    keys.forEach((k, i) => a.set(k, i));
    [...keys].reverse().forEach((k) => b.set(k, keys.indexOf(k)));
    expect((await a.write()).root).toBe((await b.write()).root);
  });

  it('cuts long child lists into chunks whose boundaries depend on the ids: an insertion changes one chunk', () => {
    const list: ChildRef[] = Array.from({ length: 5000 }, (_, i) => [pageId(`c${i}`), `c${i}`]);
    const chunks = chunkChildren(list);
    expect(chunks.flat()).toEqual(list);
    expect(chunks.length).toBeGreaterThan(10);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1024);
    const inserted = [...list.slice(0, 2500), [pageId('new'), 'new'] as ChildRef, ...list.slice(2500)];
    const after = chunkChildren(inserted).map((c) => JSON.stringify(c));
    const beforeSet = new Set(chunks.map((c) => JSON.stringify(c)));
    // The chunk that got the new page changes (or splits in two when the new id is a boundary).
    expect(after.filter((c) => !beforeSet.has(c)).length).toBeLessThanOrEqual(2);
  });

  it('keeps a top-level list of 3,000 pages in chunks, read back in order', async () => {
    const store = memoryNodeStore();
    const manifest = largeManifest(0, 3000);
    const tree = await manifestToTree(store, manifest);
    const root = (await new ContentTree(store, tree).rootRecord())!;
    expect(root.children).toBeUndefined();
    expect(root.chunks!.length).toBeGreaterThan(3000 / 1024);
    expect((await new ContentTree(store, tree).children(ROOT)).length).toBe(3000);
    expect((await treeToManifest(store, tree)).pages.map((p) => p.id)).toEqual(manifest.pages.map((p) => p.id));
    expect(INLINE_CHILDREN).toBeLessThan(3000);
  });

  it('a list grown one page at a time to 2,000 (an import into one folder) stores only the chunks of its last version, each cut once', async () => {
    const store = memoryNodeStore();
    const content = new ContentTree(store, { pages: null, files: null });
    const list: ChildRef[] = [];
    let root = await content.rootRecord();
    for (let i = 0; i < 2000; i++) {
      list.push([pageId(`flat-${i}`), `page-${i}`]);
      root = await content.setChildren(root, list);
      content.pages.set(ROOT, root);
    }
    const written = await content.write();
    const chunkNodes = written.nodes.filter((node) => node.body.startsWith('[['));
    // The last version's chunks, and nothing of the 1,700-odd versions before (each rewrote the list's last chunk).
    expect(chunkNodes.map((n) => n.hash).sort()).toEqual(root.chunks!.map(([hash]) => hash).sort());
    for (const node of written.nodes) store.nodes.set(node.hash, node.body);
    expect(await new ContentTree(store, { pages: written.pages, files: null }).children(ROOT)).toEqual(list);
  });
});
