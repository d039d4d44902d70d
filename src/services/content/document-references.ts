import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { spaceDocuments } from '../../db/schema/index';
import { isChunkMemberSql, midsOfMemberSql } from './tree';

/**
 * A space's references to the documents of a revision, as a duplicate makes them.
 * Apart from revisions.ts, which re-exports it, so that a read that needs only this (a cold isolate's first page read:
 * tree.ts, presenter.ts, computed-pages.ts, spaces.ts) does not evaluate revisions.ts's document writing, its
 * packed-documents (node:zlib) and its delta differ (issue 42 item 7).
 */

/**
 * The references of a new space to what revision `revisionId` is made of (a duplicate shares it):
 * the nodes of its page and file maps, the chunks of its child lists and the documents its pages
 * and reusable contents name; one statement, walked inside D1.
 */
export function copyDocumentReferences(db: Db, spaceId: string, revisionId: string) {
  return db.insert(spaceDocuments).select(sql`
    with rv as (select pages_root, files_root, meta from revisions where id = ${revisionId}),
    roots(hash) as (select pages_root from rv where pages_root is not null union all select files_root from rv where files_root is not null),
    chunks(hash) as (select g.value from roots r cross join json_each((select body from documents where hash = r.hash)) g where ${isChunkMemberSql('g')}),
    mids(hash) as (select c.value from roots r cross join json_each((select body from documents where hash = r.hash)) g cross join json_each(${midsOfMemberSql('g')}) c),
    leaves(hash) as (select c.value from mids m cross join json_each((select body from documents where hash = m.hash)) c),
    entries(value) as (select e.value from leaves l cross join json_each((select body from documents where hash = l.hash)) e),
    nodes(hash) as (select hash from roots union all select hash from chunks union all select hash from mids union all select hash from leaves),
    named(hash) as (
      select json_extract(k.value, '$[0]') from entries, json_each(entries.value, '$.chunks') k
      union all select json_extract(value, '$.document') from entries where json_extract(value, '$.document') is not null
      union all select json_extract(rc.value, '$.document') from rv, json_each(rv.meta, '$.reusableContents') rc
        where json_extract(rc.value, '$.document') is not null),
    bases(hash) as (select base from (select (select d.base from documents d where d.hash = n.hash) as base from named n) where base is not null)
    select ${spaceId}, hash from nodes union select ${spaceId}, hash from named union select ${spaceId}, hash from bases where true`).onConflictDoNothing();
}
