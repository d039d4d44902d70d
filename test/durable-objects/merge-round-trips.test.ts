import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { mergeChangeRequest } from '../../src/services/content/head-moves';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { countingD1 } from '../helpers/counting-d1';

/**
 * A merge, as the SpaceWriter runs it, costs at most 3 D1 round trips (each a network hop from the Durable Object
 * to D1 in production), and the search and link indexes move in the same batch as main: a search right after the
 * merge finds what it merged, with no catch-up after it.
 */

async function changeRequestWith(org: TestOrg, spaceId: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Edits');
  // Content batches take 50 changes at most.
  for (let i = 0; i < changes.length; i += 50) await applyChanges(spaceId, cr.number, org.owner.token, changes.slice(i, i + 50));
  return cr;
}

/** The merge the writer runs, on a counting D1. */
async function countedMerge(org: TestOrg, spaceId: string, changeRequestId: string) {
  const counter = countingD1(env.DB);
  const merged = await mergeChangeRequest({ ...env, DB: counter.db }, { spaceId, changeRequestId, userId: org.owner.id });
  return { merged, roundTrips: counter.count };
}

const searchTitles = async (org: TestOrg, spaceId: string, query: string) =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`, { token: org.owner.token }), 200).body.items.map(
    (p: { title: string }) => p.title,
  );

const indexedRevision = async (spaceId: string) =>
  (await env.DB.prepare('select revision_id from space_index_state where space_id = ?').bind(spaceId).first<{ revision_id: string }>())?.revision_id;

describe('a merge from the SpaceWriter', () => {
  it('fast-forwards in 3 round trips with the search and link indexes moved in its batch', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const first = await changeRequestWith(org, space.id, [
      { operation: 'insert_page', ref: 'a', title: 'Anchors', document: { markdown: 'Weighing the zeppelin.\n' } },
      { operation: 'insert_page', title: 'Links', document: { markdown: 'See [the anchors page](https://example.com/x).\n' } },
    ]);
    const { merged, roundTrips } = await countedMerge(org, space.id, first.id);
    expect(roundTrips).toBeLessThanOrEqual(3);
    expect(merged.indexed).toBe(true);
    expect(await indexedRevision(space.id)).toBe(merged.revision);
    expect(await searchTitles(org, space.id, 'zeppelin')).toEqual(['Anchors']);
    const links = expectStatus(await api('GET', `/v1/spaces/${space.id}/links`, { token: org.owner.token }), 200).body;
    expect(JSON.stringify(links)).toContain('https://example.com/x');

    // An edit of one page: still 3, and search follows the edit (the old word is gone, the new one found).
    const pageId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages[0].id;
    const second = await changeRequestWith(org, space.id, [{ operation: 'update_page', page: pageId, document: { markdown: 'Weighing the dirigible.\n' } }]);
    const edit = await countedMerge(org, space.id, second.id);
    expect(edit.roundTrips).toBeLessThanOrEqual(3);
    expect(await searchTitles(org, space.id, 'dirigible')).toEqual(['Anchors']);
    expect(await searchTitles(org, space.id, 'zeppelin')).toEqual([]);
  });

  it('indexes a three-way merge in its batch too, and a link to a page deleted by it reads as broken', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const seed = await changeRequestWith(org, space.id, [{ operation: 'insert_page', ref: 't', title: 'Target', document: { markdown: 'The target.\n' } }]);
    expectStatus(await merge(space.id, seed.number, org.owner.token), 200);
    const target = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: org.owner.token }), 200).body.pages[0].id as string;
    // One change request links to the target; main meanwhile deletes it; the merge is three-way.
    const linking = await changeRequestWith(org, space.id, [
      { operation: 'insert_page', title: 'Linking', document: { document: linkingDocument(target) } },
    ]);
    const deleting = await changeRequestWith(org, space.id, [{ operation: 'delete_page', page: target }]);
    expectStatus(await merge(space.id, deleting.number, org.owner.token), 200);
    const { merged } = await countedMerge(org, space.id, linking.id);
    expect(merged.indexed).toBe(true);
    expect(await indexedRevision(space.id)).toBe(merged.revision);
    expect(await searchTitles(org, space.id, 'quasar')).toEqual(['Linking']);
    const broken = expectStatus(await api('GET', `/v1/spaces/${space.id}/links?status=broken`, { token: org.owner.token }), 200).body;
    expect(broken.items).toHaveLength(1);
  });
});

function linkingDocument(pageId: string) {
  return {
    object: 'document',
    data: {},
    nodes: [
      {
        object: 'block',
        type: 'paragraph',
        data: {},
        nodes: [
          { object: 'text', leaves: [{ object: 'leaf', text: 'A quasar points at ', marks: [] }] },
          { object: 'inline', type: 'link', data: { ref: { kind: 'page', page: pageId } }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'the target', marks: [] }] }] },
        ],
      },
    ],
  };
}

describe('a merge of more pages than one batch reindexes', () => {
  it('moves main without them, and the writer catches the indexes up before it answers', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const pages = Array.from({ length: 60 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Word${i} of the ocarina.\n` } }));
    const direct = await changeRequestWith(org, space.id, pages.slice(0, 55));
    // The merge alone: main moves, the indexes do not (they would not fit its batch).
    const { merged } = await countedMerge(org, space.id, direct.id);
    expect(merged.indexed).toBe(false);
    expect(await indexedRevision(space.id)).not.toBe(merged.revision);
    // Through the writer (the route), the catch-up follows the merge before the answer.
    const viaWriter = await changeRequestWith(org, space.id, pages.slice(55));
    const answer = expectStatus(await merge(space.id, viaWriter.number, org.owner.token), 200).body;
    expect(await indexedRevision(space.id)).toBe(answer.revision);
    expect(await searchTitles(org, space.id, 'word3 ocarina')).toEqual(['Page 3']);
    expect(await searchTitles(org, space.id, 'word59 ocarina')).toEqual(['Page 59']);
  });
});

describe('where a SpaceWriter is created', () => {
  /** A namespace that records the options each `get` is given, answering the real writer. */
  function recordingNamespace() {
    const options: unknown[] = [];
    const namespace = new Proxy(env.SPACE_WRITER, {
      get(target, prop) {
        if (prop === 'get') {
          return (id: DurableObjectId, opts?: unknown) => {
            options.push(opts);
            return target.get(id);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { namespace, options };
  }

  it('with the configured location hint, none when unset, and a value that is no hint left out', async () => {
    const cases: Array<[string | undefined, unknown]> = [
      ['weur', { locationHint: 'weur' }],
      [' ENAM ', { locationHint: 'enam' }],
      [undefined, undefined],
      ['', undefined],
      ['mars', undefined],
    ];
    for (const [hint, expected] of cases) {
      const { namespace, options } = recordingNamespace();
      const writer = spaceWriter({ ...env, SPACE_WRITER: namespace, SPACE_WRITER_LOCATION_HINT: hint }, 'some-space');
      // The stub answers like any writer: a refusal for a change request that does not exist.
      const result = await writer.merge({ spaceId: 'some-space', changeRequestId: 'none', userId: 'nobody' });
      expect(result.ok).toBe(false);
      expect(options, String(hint)).toEqual([expected]);
    }
  });
});
