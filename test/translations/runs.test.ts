import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { MAX_PAGES_PER_CHUNK, MAX_SEGMENTS_PER_CHUNK } from '../../src/services/translations/run';
import { requeueTranslationRuns } from '../../src/services/translations/requeue';
import { PNG_1x1, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { deliverRun, editSpace, postRun, postTranslation, runToEnd, seedSpace, uppercaseAI } from '../helpers/translations';

const text = (value: string, marks: string[] = []) => ({ object: 'leaf', text: value, marks: marks.map((type) => ({ object: 'mark', type })) });
const paragraph = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', data: {}, nodes });
const link = (ref: Record<string, string>, label: string) => ({ object: 'inline', type: 'link', data: { ref }, nodes: [{ object: 'text', leaves: [text(label)] }] });

async function getTranslation(org: TestOrg, id: string) {
  return expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${id}`, { token: org.owner.token }), 200).body;
}

async function pageDocument(spaceId: string, pageId: string, token: string) {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?computed=false`, { token }), 200).body;
}

/** Every leaf's text of a document, in order. */
function leaves(node: any): string[] {
  if (Array.isArray(node)) return node.flatMap(leaves);
  if (!node || typeof node !== 'object') return [];
  if (node.object === 'leaf') return [node.text];
  return [...leaves(node.leaves ?? []), ...leaves(node.nodes ?? []), ...leaves(node.fragments ?? [])];
}

/** A source space with a guide (marks, inline code, a code block, a URL, an image) and a child page linking back to it. */
async function seedHandbook(org: TestOrg) {
  const token = org.owner.token;
  const seeded = await seedSpace(org.id, token, 'Handbook', [
    { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
    {
      operation: 'insert_page',
      ref: 'guide',
      title: 'Guide',
      description: 'How to start',
      document: {
        markdown: 'Hello **bold world** and `inline code` here, see [example](https://example.com/a).\n\n```js\nconst x = "keep me";\n```\n\n![Company logo](./logo)\n',
      },
    },
    { operation: 'insert_page', ref: 'details', into: 'guide', title: 'Details', document: { markdown: 'Placeholder.\n' } },
  ]);
  const { guide, details } = seeded.pages;
  await editSpace(seeded.space.id, token, [
    {
      operation: 'update_page',
      page: details,
      document: {
        document: {
          object: 'document',
          data: {},
          nodes: [
            paragraph(
              { object: 'text', leaves: [text('Read ')] },
              link({ kind: 'page', page: guide }, 'the guide'),
              { object: 'text', leaves: [text(' or ')] },
              link({ kind: 'page', page: guide, space: seeded.space.id }, 'the same guide'),
              { object: 'text', leaves: [text(' for version ')] },
              { object: 'inline', type: 'expression', isVoid: true, data: { expression: 'space.vars.version' } },
              { object: 'text', leaves: [text('.')] },
            ),
          ],
        },
      },
    },
  ]);
  return { space: seeded.space, guide, details };
}

describe('a translation run', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('translates text leaves only, keeps the structure, marks, code, URLs, expressions and tree, and re-points links', async () => {
    const token = org.owner.token;
    const { space, guide, details } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'fr', source: { space: space.id, language: 'en' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', language: 'fr', source: { space: space.id, language: 'en' } });
    expect(created.body.result).toBeUndefined();
    expect(created.sent).toHaveLength(1);

    const ai = uppercaseAI();
    // The first message plans and translates the one chunk, then enqueues the next: the run is running.
    const first = await deliverRun(created.sent, ai);
    expect(first.result.retryMessages).toEqual([]);
    expect(first.sent).toHaveLength(1);
    expect((await getTranslation(org, created.body.id)).status).toBe('running');
    // The next finds nothing pending and assembles the result.
    const second = await deliverRun(first.sent, ai);
    expect(second.sent).toEqual([]);
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    expect(done.failure).toBeUndefined();
    const resultSpace = done.result.space;
    expect(done.result).toEqual({ space: resultSpace, revision: expect.any(String), language: 'fr' });

    // What the translator saw: text leaves, titles, descriptions and the image's alt; never code, URLs or expressions.
    expect([...ai.texts].sort()).toEqual(
      ['Details', 'Read', 'the guide', 'or', 'the same guide', 'for version', 'Guide', 'How to start', 'Hello', 'bold world', 'and', 'here, see', 'example', 'Company logo'].sort(),
    );
    expect(ai.models.every((m) => m === '@cf/meta/m2m100-1.2b')).toBe(true);

    // The result space: beside the source, named after it, in French, its head the result revision.
    const result = expectStatus(await api('GET', `/v1/spaces/${resultSpace}`, { token }), 200).body;
    expect(result).toMatchObject({ title: 'Handbook (fr)', language: 'fr', revision: done.result.revision });
    expect(result.parent ?? null).toBe(space.parent ?? null);
    expect(await pageTree(resultSpace, token)).toEqual(['guide: GUIDE', 'guide/details: DETAILS']);

    const guidePage = await pageDocument(resultSpace, guide, token);
    expect(guidePage.description).toBe('HOW TO START');
    expect(leaves(guidePage.document)).toEqual(['HELLO ', 'BOLD WORLD', ' AND ', 'inline code', ' HERE, SEE ', 'EXAMPLE', '.', 'const x = "keep me";']);
    const source = await pageDocument(space.id, guide, token);
    // Same structure: only leaf texts (and the image's alt) differ.
    const shape = (doc: any) => JSON.stringify(doc, (key, value) => (key === 'text' || key === 'alt' ? undefined : value));
    expect(shape(guidePage.document)).toBe(shape(source.document));
    expect(JSON.stringify(guidePage.document)).toContain('https://example.com/a');
    expect(JSON.stringify(guidePage.document)).toContain('"alt":"COMPANY LOGO"');

    const detailsPage = await pageDocument(resultSpace, details, token);
    const inlines = detailsPage.document.nodes[0].nodes;
    expect(inlines[1].data.ref).toEqual({ kind: 'page', page: guide });
    expect(inlines[3].data.ref).toEqual({ kind: 'page', page: guide, space: resultSpace });
    expect(inlines[5]).toMatchObject({ type: 'expression', data: { expression: 'space.vars.version' } });
    expect(leaves(detailsPage.document)).toEqual(['READ ', 'THE GUIDE', ' OR ', 'THE SAME GUIDE', ' FOR VERSION ', '.']);

    // Files are shared by hash, not copied.
    const files = (id: string) => api('GET', `/v1/spaces/${id}/content/files`, { token }).then((r) => expectStatus(r, 200).body.items);
    const [sourceFiles, resultFiles] = await Promise.all([files(space.id), files(resultSpace)]);
    expect(resultFiles.map((f: any) => [f.id, f.name])).toEqual(sourceFiles.map((f: any) => [f.id, f.name]));

    expect(done.stats).toEqual({ runs: 1, totalWords: 23, totalPages: 2, totalDuration: expect.any(Number), latestRunDuration: expect.any(Number), latestPages: 2, latestWords: 23 });
  });

  it('translates again only the pages whose source changed, keeping the others', async () => {
    const token = org.owner.token;
    const { space, guide, details } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'de', source: { space: space.id, language: 'en' } });
    const ai = uppercaseAI();
    await runToEnd(created.sent, ai);
    const firstRun = await getTranslation(org, created.body.id);
    const detailsBefore = await pageDocument(firstRun.result.space, details, token);

    await editSpace(space.id, token, [{ operation: 'update_page', page: guide, document: { markdown: 'Changed words here.\n' } }]);
    ai.texts.length = 0;
    const rerun = await postRun(org.id, created.body.id, token);
    expect(rerun.status).toBe(204);
    expect((await getTranslation(org, created.body.id)).status).toBe('pending');
    await runToEnd(rerun.sent, ai);

    // The title and description did not change: their translations come from the segment cache, not sent again.
    expect(ai.texts).toEqual(['Changed words here.']);
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    expect(done.result.revision).not.toBe(firstRun.result.revision);
    expect(done.stats).toMatchObject({ runs: 2, totalPages: 2, latestPages: 1, latestWords: 3, totalWords: firstRun.stats.totalWords + 3 });
    expect(leaves((await pageDocument(done.result.space, guide, token)).document)).toEqual(['CHANGED WORDS HERE.']);
    const detailsAfter = await pageDocument(done.result.space, details, token);
    expect(detailsAfter.documentId).toBe(detailsBefore.documentId);

    // A run with nothing changed translates nothing and keeps the result revision.
    ai.texts.length = 0;
    await runToEnd((await postRun(org.id, created.body.id, token)).sent, ai);
    const idle = await getTranslation(org, created.body.id);
    expect(ai.texts).toEqual([]);
    expect(idle.stats).toMatchObject({ runs: 3, latestPages: 0, latestWords: 0, totalPages: 2 });
    expect(idle.result.revision).toBe(done.result.revision);
  });

  it('never translates or counts a page twice when messages are redelivered or delivered at once', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'es', source: { space: space.id, language: 'en' } });
    const ai = uppercaseAI();
    // The same message delivered twice at the same time, then once more later.
    const [a, b] = await Promise.all([deliverRun(created.sent, ai), deliverRun(created.sent, ai)]);
    const retried = [...a.result.retryMessages, ...b.result.retryMessages];
    await runToEnd([...a.sent, ...b.sent, ...(retried.length ? created.sent : [])], ai);
    const redelivered = await deliverRun(created.sent, ai);
    expect(redelivered.sent).toEqual([]);
    expect(redelivered.result.retryMessages).toEqual([]);

    expect(ai.texts).toHaveLength(14);
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    expect(done.stats).toMatchObject({ runs: 1, latestPages: 2, totalPages: 2, latestWords: 23, totalWords: 23 });
  });

  it('cuts a large space into several messages, each within its page and segment budget', async () => {
    const token = org.owner.token;
    const count = MAX_PAGES_PER_CHUNK * 2 + 5;
    const { space } = await seedSpace(
      org.id,
      token,
      'Large',
      Array.from({ length: count }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Body of page ${i}.\n` } })),
    );
    const created = await postTranslation(org.id, token, { language: 'it', source: { space: space.id, language: 'en' } });
    const ai = uppercaseAI();
    let pending = created.sent;
    let messages = 0;
    while (pending.length) {
      const before = ai.texts.length;
      const { sent } = await deliverRun(pending, ai);
      expect(ai.texts.length - before).toBeLessThanOrEqual(MAX_SEGMENTS_PER_CHUNK);
      messages += pending.length;
      pending = sent;
    }
    const segmentsPerPage = 2;
    expect(messages).toBe(Math.ceil(count / Math.min(MAX_PAGES_PER_CHUNK, MAX_SEGMENTS_PER_CHUNK / segmentsPerPage)) + 1);
    expect(ai.texts).toHaveLength(count * segmentsPerPage);
    const done = await getTranslation(org, created.body.id);
    expect(done.stats).toMatchObject({ latestPages: count, totalPages: count });
    expect((await pageTree(done.result.space, token)).length).toBe(count);
  });

  it('fails saying so when no translator is configured, and runs again once one is', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'ja', source: { space: space.id, language: 'en' } });
    const { sent, result } = await deliverRun(created.sent, undefined);
    expect(sent).toEqual([]);
    expect(result.retryMessages).toEqual([]);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/No translator is configured/);
    expect(failed.result).toBeUndefined();
    expect(failed.stats.runs).toBe(0);
    // Nothing was written into the result space.
    expect(await pageTree(await resultSpaceOf(created.body.id), token)).toEqual([]);

    const again = await postRun(org.id, created.body.id, token);
    expect(again.status).toBe(204);
    await runToEnd(again.sent, uppercaseAI());
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    expect(done.failure).toBeUndefined();
  });

  it('answers 204 to a run while one is in progress, and queues nothing', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'ko', source: { space: space.id, language: 'en' } });
    const again = await postRun(org.id, created.body.id, token);
    expect(again.status).toBe(204);
    expect(again.sent).toEqual([]);
    const ai = uppercaseAI();
    const first = await deliverRun(created.sent, ai);
    expect((await postRun(org.id, created.body.id, token)).sent).toEqual([]);
    await runToEnd(first.sent, ai);
    expect((await getTranslation(org, created.body.id)).stats.runs).toBe(1);
  });

  it('fails saying so when the source or the result space was deleted', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'nl', source: { space: space.id, language: 'en' } });
    expectStatus(await api('DELETE', `/v1/spaces/${space.id}`, { token }), 204);
    await deliverRun(created.sent, uppercaseAI());
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/source space .* deleted/);

    const other = await seedHandbook(org);
    const second = await postTranslation(org.id, token, { language: 'nl', source: { space: other.space.id, language: 'en' } });
    expectStatus(await api('DELETE', `/v1/spaces/${await resultSpaceOf(second.body.id)}`, { token }), 204);
    await deliverRun(second.sent, uppercaseAI());
    expect((await getTranslation(org, second.body.id)).failure.message).toMatch(/result space .* deleted/);
  });

  it('retries a translator failure with its claims given back, and fails at the last delivery', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'pl', source: { space: space.id, language: 'en' } });
    const down = uppercaseAI({ fail: () => true });
    const first = await deliverRun(created.sent, down, 1);
    expect(first.result.retryMessages).toHaveLength(1);
    expect((await getTranslation(org, created.body.id)).status).toBe('running');
    const claimed = await env.DB.prepare('select count(*) as n from translation_pages where translation_id = ? and claimed_at is not null').bind(created.body.id).first<{ n: number }>();
    expect(claimed?.n).toBe(0);
    const last = await deliverRun(created.sent, down, 6);
    expect(last.result.retryMessages).toEqual([]);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/The run failed in the translator: the model is down/);
  });

  it('is sent again by the cron when its messages were lost', async () => {
    const token = org.owner.token;
    const { space } = await seedHandbook(org);
    const created = await postTranslation(org.id, token, { language: 'sv', source: { space: space.id, language: 'en' } });
    const sent: any[] = [];
    const queue = { send: async () => {}, sendBatch: async (messages: any[]) => void sent.push(...messages.map((m) => m.body)) };
    const db = createDb(env.DB);
    // Other files' runs share the database (and are stale by now when the suite runs long): only this one's count.
    await requeueTranslationRuns({ ...env, JOBS: queue } as never, db, Date.now());
    expect(sent.filter((m) => m.payload.translationId === created.body.id)).toEqual([]);
    const later = Date.now() + 16 * 60_000;
    await requeueTranslationRuns({ ...env, JOBS: queue } as never, db, later);
    expect(sent.filter((m) => m.payload.translationId === created.body.id)).toHaveLength(1);
    // Sent once per stale period, not at every cron run.
    sent.length = 0;
    await requeueTranslationRuns({ ...env, JOBS: queue } as never, db, later + 60_000);
    expect(sent.filter((m) => m.payload.translationId === created.body.id)).toEqual([]);
    await runToEnd(created.sent, uppercaseAI());
    expect((await getTranslation(org, created.body.id)).status).toBe('completed');
  });
});

async function resultSpaceOf(translationId: string): Promise<string> {
  const row = await env.DB.prepare('select result_space_id as id from translations where id = ?').bind(translationId).first<{ id: string }>();
  return row!.id;
}
