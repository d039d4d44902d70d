/**
 * The published page's content statements in constant SQL (site/content-sql) are the statements drizzle builds from
 * their fragments (services/content/reads `wholeTreeQuery`, packed-documents and tree): the same SQL text (but for
 * line breaks and indentation) and values, and the same rows for a space's tree and for pages with and without a file.
 */
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb, rawAll, runBatch, type BatchItem, type Db } from '../../src/db/client';
import { wholeTreeQuery } from '../../src/services/content/reads';
import { composedBodySql, documentRefsSql, storedBodySql } from '../../src/services/content/packed-documents';
import { lookupSql } from '../../src/services/content/tree';
import { spaceTreeOf } from '../../src/site/content';
import { pageStatement, treeStatement } from '../../src/site/content-sql';
import { applyChanges, createSpace, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { expectStatus, seedOrg } from '../helpers/harness';

const db = () => createDb(env.DB);

/** What drizzle builds for a space's tree (as site/content built it before its SQL was written out). */
const drizzleTree = (d: Db, spaceId: string, revisionId: string) => wholeTreeQuery(d, sql`${revisionId}`, { spaceId }, true);

/** What drizzle builds for a page's document, its reusable contents and files (site/content's former `pageStatement`). */
function drizzlePage(d: Db, revisionId: string, documentHash: string) {
  const filesRoot = sql`(select files_root from revisions where id = ${revisionId})`;
  return rawAll<unknown>(d, sql`
    with page(body) as (select ${composedBodySql('pd')} from documents pd where pd.hash = ${documentHash}),
    included(id, hash) as (
      select json_extract(r.value, '$.id'), json_extract(r.value, '$.document')
      from json_each(coalesce((select meta from revisions where id = ${revisionId}), '{}'), '$.reusableContents') r
      where json_extract(r.value, '$.id') in (${documentRefsSql(sql`select ${documentHash}`, 'reusable')})
    ),
    contents(id, body) as (select included.id, ${storedBodySql(sql`included.hash`)} from included),
    refs(id) as (
      select distinct value from (${documentRefsSql(sql`select ${documentHash} union all select hash from included where hash is not null`, 'files')})
    )
    select 'document' as kind, null as key, body as value from page
    union all
    select 'reusable', id, body from contents where body is not null
    union all
    select 'file', refs.id, ${lookupSql(filesRoot, sql`refs.id`)} from refs`);
}

const textOf = (statement: unknown) => {
  const item = statement as { _prepare?(): { getQuery(): { sql: string; params: unknown[] } }; getQuery?(): { sql: string; params: unknown[] } };
  const { sql: text, params } = item._prepare ? item._prepare().getQuery() : item.getQuery!();
  return { sql: text.replace(/\s+/g, ' ').trim(), params };
};

const rowsOfBatch = async (statement: unknown) => ((await runBatch(db(), [statement as BatchItem])) as unknown[][])[0];
const sorted = (rows: unknown[]) => [...(rows as Array<Record<string, unknown>>)].map((r) => JSON.stringify(r)).sort();

describe("the published page's content statements in constant SQL", () => {
  it('are the SQL drizzle builds, with the same values', () => {
    expect(textOf(treeStatement(db(), 'space_1', 'rev_1'))).toEqual(textOf(drizzleTree(db(), 'space_1', 'rev_1')));
    expect(textOf(pageStatement(db(), 'rev_1', 'hash_1'))).toEqual(textOf(drizzlePage(db(), 'rev_1', 'hash_1')));
  });

  it("answer drizzle's rows: a tree, a page with a file, a page without, a document that is not there", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Constant content');
    const cr = await openChangeRequest(space.id, token, 'Pages');
    const added = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_1x1 }] }]);
    const fileId = added.insertedFiles[0].id as string;
    await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', title: 'Plain', document: { markdown: 'A page without files.\n' } },
      { operation: 'insert_page', title: 'Gallery', document: { markdown: `![A dot](/files/${fileId})\n` } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const { revisionId } = (await env.DB.prepare('select revision_id as revisionId from spaces where id = ?').bind(space.id).first<{ revisionId: string }>())!;

    const treeRows = await rowsOfBatch(treeStatement(db(), space.id, revisionId));
    expect(sorted(treeRows)).toEqual(sorted(await rowsOfBatch(drizzleTree(db(), space.id, revisionId))));
    expect(sorted(await treeStatement(db(), space.id, revisionId).rows())).toEqual(sorted(treeRows));
    const pages = (await spaceTreeOf(revisionId, treeRows)).pages;
    expect(pages.map((p) => p.title).sort()).toEqual(['Gallery', 'Plain']);

    const kinds: string[][] = [];
    for (const hash of [...pages.map((p) => p.document!), 'no-such-document']) {
      const constant = await rowsOfBatch(pageStatement(db(), revisionId, hash));
      expect(sorted(constant)).toEqual(sorted(await rowsOfBatch(drizzlePage(db(), revisionId, hash))));
      expect(sorted(await pageStatement(db(), revisionId, hash).rows())).toEqual(sorted(constant));
      kinds.push((constant as Array<{ kind: string; key: string | null }>).map((r) => `${r.kind}:${r.key ?? ''}`).sort());
    }
    expect(kinds).toContainEqual(['document:']);
    expect(kinds).toContainEqual(['document:', `file:${fileId}`]);
    expect(kinds.at(-1)).toEqual([]);
  });
});
