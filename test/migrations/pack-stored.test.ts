import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { documentRefs, documentText } from '../../src/services/content/packed-documents';
import { PACK_JOB, PACK_LIMITS, packStoredDocuments } from '../../src/services/content/pack-stored';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

/**
 * Migration 0111 (the cron's job packing documents stored before 0052): a database made by today's code, whose page
 * documents are then put back in the form the code before 0052 stored them (JSON text, no refs), is carried over in
 * bounded steps to the packed form, with the same hashes and the same reads; tree nodes stay JSON text.
 */

let org: TestOrg;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
});

interface Row {
  hash: string;
  kind: string;
  body: string | number[];
  refs: string | null;
}

const rowOf = async (hash: string) => (await env.DB.prepare('select hash, typeof(body) as kind, body, refs from documents where hash = ?').bind(hash).first<Row>())!;

async function storeAsBefore(hashes: string[]) {
  for (const hash of hashes) {
    const row = await rowOf(hash);
    await env.DB.prepare('update documents set body = ?, refs = null where hash = ?').bind(documentText(row.body), hash).run();
  }
}

// Test files share one database, and those that run the cron move the cron's own job (PACK_JOB) meanwhile: this
// test walks a job row of its own, started as migration 0111 starts the cron's.
const JOB = `${PACK_JOB}-test-${crypto.randomUUID()}`;

async function restartJob() {
  const seed = await env.DB.prepare('select count(*) as n from storage_jobs where name = ?').bind(PACK_JOB).first<number>('n');
  expect(seed).toBe(1);
  await env.DB.prepare("insert into storage_jobs (name, cursor) values (?, '') on conflict (name) do update set cursor = '', done_at = null").bind(JOB).run();
}

describe('migration 0111: documents stored as JSON text are packed by the cron', () => {
  it('packs every unpacked document in bounded steps, keeps hashes and reads, leaves tree nodes alone, and then stops', async () => {
    const space = await createSpace(org.id, token, 'Carried over');
    const cr = await openChangeRequest(space.id, token, 'Pages');
    // Documents are stored by content hash in one database shared by the test files: pages of their own (a run's id
    // in each), so that no other file's writes (packed-documents.test.ts unpacks its `ocelot` page) reach these rows.
    const run = crypto.randomUUID();
    const texts = [`The **caracal** prowls at dusk (${run}).`, `A [link](https://example.com) and \`code\` (${run}).`, `Third page (${run}), a list:\n\n- one\n- two`];
    const applied = await applyChanges(
      space.id,
      cr.number,
      token,
      texts.map((markdown, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `${markdown}\n` } })),
    );
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pages = applied.changes.map((c: any) => c.page.id as string);
    const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    const hashes = content.pages.map((p: any) => p.documentId as string);
    const before = await Promise.all(pages.map((id: string) => pageMarkdown(space.id, id, token)));
    const packedRows = await Promise.all(hashes.map(rowOf));
    expect(packedRows.every((row) => row.kind === 'blob')).toBe(true);

    await storeAsBefore(hashes);
    // A row no reader can parse (a damaged write, a hand edit) is passed over, not a stop for the whole walk.
    const unreadable = `unreadable-${run}`;
    await env.DB.prepare("insert into documents (hash, body, created_at) values (?, 'not json', '2026-01-01')").bind(unreadable).run();
    await restartJob();
    expect((await Promise.all(hashes.map(rowOf))).every((row) => row.kind === 'text' && row.refs === null)).toBe(true);
    // Still read while unpacked.
    expect(await Promise.all(pages.map((id: string) => pageMarkdown(space.id, id, token)))).toEqual(before);

    const db = createDb(env.DB);
    // The walk reads every document of the database, which the other test files fill too: small steps, as many
    // runs as the table needs (the job bounds each run, not the walk).
    const total = (await env.DB.prepare('select count(*) as n from documents').first<number>('n'))!;
    const limits = { rows: Math.max(2, Math.ceil(total / 200)), steps: 1 };
    let packed = 0;
    let runs = 0;
    for (; runs < Math.ceil(total / limits.rows) + 10; runs++) {
      const n = await packStoredDocuments(db, limits, JOB);
      packed += n;
      const job = await env.DB.prepare('select done_at from storage_jobs where name = ?').bind(JOB).first<string | null>('done_at');
      if (job) break;
    }
    expect(runs).toBeGreaterThan(1);
    // The cron, run by other files meanwhile, may have packed some of them first.
    expect(packed).toBeGreaterThan(0);
    for (const [i, hash] of hashes.entries()) {
      const row = await rowOf(hash);
      expect(row.kind).toBe('blob');
      // The same bytes of JSON as before, under the same hash, with the refs a new write would store.
      expect(documentText(row.body)).toBe(documentText(packedRows[i].body));
      expect(row.refs).toBe(packedRows[i].refs ?? documentRefs(JSON.parse(documentText(row.body))));
    }
    expect(await Promise.all(pages.map((id: string) => pageMarkdown(space.id, id, token)))).toEqual(before);
    expect(await rowOf(unreadable)).toMatchObject({ kind: 'text', body: 'not json', refs: null });
    await env.DB.prepare('delete from documents where hash = ?').bind(unreadable).run();
    const root = await env.DB.prepare('select typeof(body) as kind from documents where hash = (select pages_root from revisions where id = ?)').bind(content.id).first<string>('kind');
    expect(root).toBe('text');
    // Done: a later run reads nothing and packs nothing, even with a document put back in text form.
    await storeAsBefore([hashes[0]]);
    expect(await packStoredDocuments(db, PACK_LIMITS, JOB)).toBe(0);
    expect((await rowOf(hashes[0])).kind).toBe('text');
  });
});
