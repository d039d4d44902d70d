import { env } from 'cloudflare:workers';
import { manifestToTree, type ConvertedTree } from '../../src/services/content/convert';
import { memoryNodeStore } from '../../src/services/content/tree';
import type { Manifest, PageEntry } from '../../src/services/content/revisions';

/**
 * Large spaces for tests, written straight into D1: content batches would take minutes to build
 * thousands of pages, and these tests are about what reads and writes cost once a space is large.
 */

const NOW = '2026-01-01T00:00:00.000Z';

export function page(id: string, title: string, pages: PageEntry[] = []): PageEntry {
  return { id, type: 'document', title, slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'), createdAt: NOW, updatedAt: NOW, pages };
}

/** A page id like ours: 20 base62 characters, spread like random ones, deterministic from a label. */
export function pageId(label: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let n = 0; out.length < 20; n++) {
    let hash = 2166136261 ^ n;
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 16777619) >>> 0;
    hash = Math.imul(hash ^ (hash >>> 15), 2246822507) >>> 0;
    out += alphabet[((hash ^ (hash >>> 13)) >>> 0) % 62];
  }
  return out;
}

/** `sections` top-level pages of `perSection` pages each, or one flat list when `sections` is 0. */
export function largeManifest(sections: number, perSection: number): Manifest {
  const leaf = (s: number, i: number) => page(pageId(`p-${s}-${i}`), `Page ${s}-${i}`);
  const pages =
    sections === 0
      ? Array.from({ length: perSection }, (_, i) => leaf(0, i))
      : Array.from({ length: sections }, (_, s) => page(pageId(`s-${s}`), `Section ${s}`, Array.from({ length: perSection }, (_, i) => leaf(s, i))));
  return { pages, files: [], variables: {}, reusableContents: [] };
}

/** Stores the tree's nodes and the space's references to them, in batches under D1's limits. */
export async function storeTree(spaceId: string, tree: ConvertedTree) {
  const statements = tree.nodes.flatMap((node) => [
    env.DB.prepare('insert or ignore into documents (hash, body, created_at) values (?, ?, ?)').bind(node.hash, node.body, NOW),
    env.DB.prepare('insert or ignore into space_documents (space_id, hash) values (?, ?)').bind(spaceId, node.hash),
  ]);
  for (let i = 0; i < statements.length; i += 200) await env.DB.batch(statements.slice(i, i + 200));
}

/** Replaces the content of space `spaceId`'s head with `manifest` (a new revision on top of it). */
export async function seedContent(spaceId: string, manifest: Manifest): Promise<{ revision: string; tree: ConvertedTree }> {
  const tree = await manifestToTree(memoryNodeStore(), manifest);
  await storeTree(spaceId, tree);
  const revision = `seed${pageId(`${spaceId}-${Math.random()}`).slice(4)}`;
  const head = await env.DB.prepare('select revision_id from spaces where id = ?').bind(spaceId).first<string>('revision_id');
  await env.DB.batch([
    env.DB.prepare(
      `insert into revisions (id, space_id, parents, type, manifest, pages_root, files_root, meta, page_count, file_count, created_at)
       values (?, ?, ?, 'edits', '', ?, ?, ?, ?, ?, ?)`,
    ).bind(revision, spaceId, JSON.stringify([head]), tree.pages, tree.files, JSON.stringify(tree.meta), tree.pageCount, tree.fileCount, NOW),
    env.DB.prepare('update spaces set revision_id = ? where id = ?').bind(revision, spaceId),
  ]);
  return { revision, tree };
}

/** Bytes of all stored documents and nodes: what a write added is the difference. */
export async function storedBytes(): Promise<number> {
  return (await env.DB.prepare('select coalesce(sum(length(body)), 0) as n from documents').first<number>('n'))!;
}
