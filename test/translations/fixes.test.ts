import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { assembleTranslation, MAX_RUN_DELIVERIES, MAX_SEGMENTS_PER_CHUNK, PLAN_SLICE, pendingPageInserts, processTranslationRun } from '../../src/services/translations/run';
import { MAX_TRANSLATION_REQUEUES, requeueTranslationRuns } from '../../src/services/translations/requeue';
import { headingSlug } from '../../src/services/markdown/heading-ids';
import { countWords, segmentDocument, splitEdges } from '../../src/services/translations/segments';
import { createWorkersAITranslator } from '../../src/services/translations/translator';
import { sql } from 'drizzle-orm';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { deliverRun, postTranslation, runToEnd, seedSpace, uppercaseAI } from '../helpers/translations';

async function getTranslation(org: TestOrg, id: string) {
  return expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${id}`, { token: org.owner.token }), 200).body;
}

async function secondOrgOf(org: TestOrg): Promise<string> {
  const res = await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: `Target ${crypto.randomUUID()}` } });
  expectStatus(res, 201);
  return res.body.id as string;
}

async function resultSpaceOf(translationId: string): Promise<string> {
  const row = await env.DB.prepare('select result_space_id as id from translations where id = ?').bind(translationId).first<{ id: string }>();
  return row!.id;
}

async function smallSource(org: TestOrg, title = 'Small') {
  return seedSpace(org.id, org.owner.token, title, [{ operation: 'insert_page', ref: 'one', title: 'One', document: { markdown: 'First words.\n' } }]);
}

describe('translation fixes', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('fails a run whose source or result space was transferred to another organization', async () => {
    const token = org.owner.token;
    const target = await secondOrgOf(org);
    const { space } = await smallSource(org);
    const created = await postTranslation(org.id, token, { language: 'fr', source: { space: space.id, language: 'en' } });
    expect(created.status).toBe(201);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/transfer`, { token, body: { organization: target } }), 200);
    const ai = uppercaseAI();
    await deliverRun(created.sent, ai);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/The source space .* now belongs to another organization/);
    expect(ai.texts).toEqual([]);

    const other = await smallSource(org, 'Other');
    const second = await postTranslation(org.id, token, { language: 'fr', source: { space: other.space.id, language: 'en' } });
    expectStatus(await api('POST', `/v1/spaces/${await resultSpaceOf(second.body.id)}/transfer`, { token, body: { organization: target } }), 200);
    await deliverRun(second.sent, ai);
    expect((await getTranslation(org, second.body.id)).failure.message).toMatch(/The result space .* now belongs to another organization/);
  });

  it('ends a run that fails the same way at every delivery at its last one, naming the step', async () => {
    const token = org.owner.token;
    const { space } = await smallSource(org);
    const created = await postTranslation(org.id, token, { language: 'de', source: { space: space.id, language: 'en' } });
    // The source's head is unreadable: planning throws at every delivery.
    await env.DB.prepare('update spaces set revision_id = ? where id = ?').bind('no-such-revision', space.id).run();
    const first = await deliverRun(created.sent, uppercaseAI(), 1);
    expect(first.result.retryMessages).toHaveLength(1);
    expect((await getTranslation(org, created.body.id)).status).toBe('pending');
    const last = await deliverRun(created.sent, uppercaseAI(), MAX_RUN_DELIVERIES);
    expect(last.result.retryMessages).toEqual([]);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/The run failed in planning: .*no head revision/);
  });

  it('fails a run the cron had to send again too many times', async () => {
    const token = org.owner.token;
    const { space } = await smallSource(org);
    const created = await postTranslation(org.id, token, { language: 'es', source: { space: space.id, language: 'en' } });
    const sent: any[] = [];
    const queue = { send: async () => {}, sendBatch: async (messages: any[]) => void sent.push(...messages.map((m) => m.body)) };
    const db = createDb(env.DB);
    const mine = () => sent.filter((m) => m.payload.translationId === created.body.id).length;
    let at = Date.now();
    for (let i = 1; i <= MAX_TRANSLATION_REQUEUES; i++) {
      at += 16 * 60_000;
      await requeueTranslationRuns({ ...env, JOBS: queue } as never, db, at);
      expect(mine()).toBe(i);
      expect((await getTranslation(org, created.body.id)).status).toBe('pending');
    }
    at += 16 * 60_000;
    await requeueTranslationRuns({ ...env, JOBS: queue } as never, db, at);
    expect(mine()).toBe(MAX_TRANSLATION_REQUEUES);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/the run was cut short repeatedly \(the Worker's limits\)/i);
  });

  it('binds the pages a plan marks pending in slices', () => {
    const db = createDb(env.DB);
    const changed = Array.from({ length: 5_000 }, (_, i) => [`page-${i}`, `key-${i}`] as const);
    const statements = pendingPageInserts(db, 'translation', 'run', changed, sql`1`);
    expect(statements).toHaveLength(Math.ceil(5_000 / PLAN_SLICE));
    expect(statements.length).toBeGreaterThan(1);
    expect(pendingPageInserts(db, 'translation', 'run', [], sql`1`)).toEqual([]);
  });

  it('cuts whitespace off a segment in linear time', () => {
    const long = 'a' + ' '.repeat(200_000) + 'b';
    expect(splitEdges(long)).toEqual(['', long, '']);
    expect(splitEdges(`  ${long}\n`)).toEqual(['  ', long, '\n']);
    expect(splitEdges('   ')).toEqual(['   ', '', '']);
    const { segments } = segmentDocument({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: ` ${long} `, marks: [] }] }] }] } as never);
    expect(segments.texts).toEqual([long]);
  });

  it('translates a page with more segments than a message may send over several messages, each text once', async () => {
    const token = org.owner.token;
    const paragraphs = Array.from({ length: MAX_SEGMENTS_PER_CHUNK * 3 - 1 }, (_, i) => `Sentence number ${i} here.`);
    // A repeated paragraph is sent once.
    const markdown = [...paragraphs, paragraphs[0]].join('\n\n') + '\n';
    const { space, pages } = await seedSpace(org.id, token, 'Long', [{ operation: 'insert_page', ref: 'long', title: 'Long page', document: { markdown } }]);
    const created = await postTranslation(org.id, token, { language: 'it', source: { space: space.id, language: 'en' } });
    const ai = uppercaseAI();
    let pending = created.sent;
    let messages = 0;
    while (pending.length) {
      const before = ai.texts.length;
      const { sent, result } = await deliverRun(pending, ai);
      expect(result.retryMessages).toEqual([]);
      expect(ai.texts.length - before).toBeLessThanOrEqual(MAX_SEGMENTS_PER_CHUNK);
      messages += pending.length;
      pending = sent;
      if (messages > 20) throw new Error('the run does not end');
    }
    const all = ['Long page', ...paragraphs];
    expect(messages).toBe(4); // three messages of 40 texts, then the assembly
    expect([...ai.texts].sort()).toEqual([...all].sort());
    expect(new Set(ai.texts).size).toBe(ai.texts.length);
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    expect(done.stats).toMatchObject({ latestPages: 1, latestWords: countWords(all), totalWords: countWords(all) });
    const page = expectStatus(await api('GET', `/v1/spaces/${done.result.space}/content/page/${pages.long}?computed=false`, { token }), 200).body;
    expect(page.title).toBe('LONG PAGE');
    expect(JSON.stringify(page.document)).toContain('SENTENCE NUMBER 118 HERE.');
    expect(JSON.stringify(page.document)).not.toContain('Sentence number');

    // The cache goes with the translation.
    const cached = () => env.DB.prepare('select count(*) as n from translation_segments where translation_id = ?').bind(created.body.id).first<{ n: number }>();
    expect((await cached())?.n).toBe(all.length);
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/translations/${created.body.id}`, { token }), 204);
    expect((await cached())?.n).toBe(0);
  });

  it('counts the words a run sent in the totals even when the run later fails', async () => {
    const token = org.owner.token;
    const { space } = await seedSpace(
      org.id,
      token,
      'Many',
      Array.from({ length: 30 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Body of page ${i}.\n` } })),
    );
    const created = await postTranslation(org.id, token, { language: 'nl', source: { space: space.id, language: 'en' } });
    const ai = uppercaseAI();
    const first = await deliverRun(created.sent, ai);
    expect(ai.texts.length).toBe(MAX_SEGMENTS_PER_CHUNK);
    const down = uppercaseAI({ fail: () => true });
    await deliverRun(first.sent, down, MAX_RUN_DELIVERIES);
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.stats.totalWords).toBe(countWords(ai.texts));
  });

  it("sends no leaf whose text is a URL, an email address or its link's URL", () => {
    const leaf = (text: string) => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });
    const link = (url: string, label: string) => ({ object: 'inline', type: 'link', data: { ref: { kind: 'url', url } }, nodes: [leaf(label)] });
    const { segments } = segmentDocument({
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [
            leaf('Write to '),
            leaf(' team@example.com '),
            leaf(' or see '),
            link('https://example.com/docs', 'https://example.com/docs'),
            link('example.org/page', 'example.org/page'),
            link('https://example.com/x', 'the docs'),
            leaf(' www.example.net '),
          ],
        },
      ],
    } as never);
    expect(segments.texts).toEqual(['Write to', 'or see', 'the docs']);
  });

  it('pins a heading without an id to the slug of its source text', async () => {
    const token = org.owner.token;
    const { space, pages } = await seedSpace(org.id, token, 'Headings', [
      { operation: 'insert_page', ref: 'p', title: 'Headings', document: { markdown: '## Getting started\n\nText.\n\n## Keep me {#custom-id}\n\nMore.\n' } },
    ]);
    const created = await postTranslation(org.id, token, { language: 'fr', source: { space: space.id, language: 'en' } });
    await runToEnd(created.sent, uppercaseAI());
    const done = await getTranslation(org, created.body.id);
    const page = expectStatus(await api('GET', `/v1/spaces/${done.result.space}/content/page/${pages.p}?computed=false`, { token }), 200).body;
    const headings = page.document.nodes.filter((n: any) => String(n.type).startsWith('heading'));
    expect(headings[0].data.id).toBe(headingSlug('Getting started'));
    expect(headings[0].data.id).toBe('getting-started');
    expect(JSON.stringify(headings[0])).toContain('GETTING STARTED');
    const source = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages.p}?computed=false`, { token }), 200).body;
    const sourceSecond = source.document.nodes.filter((n: any) => String(n.type).startsWith('heading'))[1];
    if (sourceSecond.data?.id) expect(headings[1].data.id).toBe(sourceSecond.data.id);
  });

  it('fails a run whose result space is locked, and never moves the head of a run that ended meanwhile', async () => {
    const token = org.owner.token;
    const { space } = await smallSource(org);
    const created = await postTranslation(org.id, token, { language: 'pt-br', source: { space: space.id, language: 'en' } });
    const resultSpace = await resultSpaceOf(created.body.id);
    expectStatus(await api('PATCH', `/v1/spaces/${resultSpace}`, { token, body: { editMode: 'locked' } }), 200);
    await deliverRun(created.sent, uppercaseAI());
    const failed = await getTranslation(org, created.body.id);
    expect(failed.status).toBe('pending'); // GitBook's states: a failed run leaves the translation waiting for a new one, with `failure`
    expect(failed.failure.message).toMatch(/result space .* is locked/);

    // A run failed (by the cron, say) while its result was being assembled writes no revision and moves no head.
    const other = await smallSource(org, 'Raced');
    const second = await postTranslation(org.id, token, { language: 'pt-br', source: { space: other.space.id, language: 'en' } });
    const runId = (second.sent[0].payload as { runId: string }).runId;
    const target = await resultSpaceOf(second.body.id);
    const headBefore = await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(target).first<{ id: string | null }>();
    const racing = new Proxy(env.DB, {
      get(db, prop) {
        if (prop === 'batch') {
          return async (statements: D1PreparedStatement[]) => {
            await env.DB.prepare("update translation_runs set status = 'failed', finished_at = ? where id = ?").bind(new Date().toISOString(), runId).run();
            return db.batch(statements);
          };
        }
        const value = (db as any)[prop];
        return typeof value === 'function' ? value.bind(db) : value;
      },
    });
    const outcome = await processTranslationRun(env as never, second.body.id, runId, {
      attempts: 1,
      translator: createWorkersAITranslator(uppercaseAI().binding),
      enqueue: async () => {},
      assemble: async () => {},
    });
    expect(outcome).toBe('translated');
    const assembled = await assembleTranslation({ ...env, DB: racing } as never, { translationId: second.body.id, runId, resultSpaceId: target });
    expect(assembled.revision).toBeNull();
    const headAfter = await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(target).first<{ id: string | null }>();
    expect(headAfter?.id ?? null).toBe(headBefore?.id ?? null);
    const revisions = await env.DB.prepare("select count(*) as n from revisions where space_id = ? and type = 'merge'").bind(target).first<{ n: number }>();
    expect(revisions?.n).toBe(0);
  });

  it("refuses a translation whose result space the caller may not create in the source's collection", async () => {
    const token = org.owner.token;
    const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Read only', defaultLevel: 'read' } }), 201).body;
    const space = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'In collection', parent: collection.id } }), 201).body;
    const refused = await postTranslation(org.id, org.members.create.token, { language: 'fr', source: { space: space.id, language: 'en' } });
    expect(refused.status).toBe(403);
    expect(refused.sent).toEqual([]);
    const allowed = await postTranslation(org.id, token, { language: 'fr', source: { space: space.id, language: 'en' } });
    expect(allowed.status).toBe(201);
  });

  it('keeps the source title when the translated title is empty', async () => {
    const token = org.owner.token;
    const { space, pages } = await smallSource(org, 'Titled');
    const created = await postTranslation(org.id, token, { language: 'ja', source: { space: space.id, language: 'en' } });
    const blankTitles = {
      texts: [] as string[],
      binding: { run: async (_model: string, input: any) => ({ translated_text: input.text === 'One' ? '  ' : String(input.text).toUpperCase() }) },
      models: [] as string[],
    };
    await runToEnd(created.sent, blankTitles);
    const done = await getTranslation(org, created.body.id);
    expect(done.status).toBe('completed');
    const page = expectStatus(await api('GET', `/v1/spaces/${done.result.space}/content/page/${pages.one}?computed=false`, { token }), 200).body;
    expect(page.title).toBe('One');
  });

  it('declares the content-writes rate limit on create and run', async () => {
    const { body: doc } = await api('GET', '/openapi.json');
    expect(doc.paths['/orgs/{organizationId}/translations'].post.responses['429'].description).toContain('"content-writes"');
    expect(doc.paths['/orgs/{organizationId}/translations/{translationId}/run'].post.responses['429'].description).toContain('"content-writes"');
    expect(doc.paths['/orgs/{organizationId}/translations/{translationId}/run'].post.summary).toMatch(/edits made by hand in the result space are not kept/);
  });
});
