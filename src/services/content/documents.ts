import { sql } from 'drizzle-orm';
import { rawAll } from '../../db/client';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import type { JSONDocument } from '../markdown/index';
import { siteTokenSpaceQuery } from '../sites/site-token';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';
import { composedBodySql, isDocumentSql, parseStoredBody, storedBodySql, type StoredBody } from './packed-documents';
import { pageDocumentResponse, type ContentRequest } from './reads';
import { leavesSql } from './tree';

/**
 * GitBook's getDocumentById: a page's or reusable content's body by its `documentId` (our documents are
 * content-addressed: the id is the body's hash, RevisionPage.documentId). Documents are shared between
 * spaces, so a member reads one only when the space refers to it (`space_documents`: its revisions,
 * change requests included), never because another space has the same hash. A site token's visitor reads
 * one only through the published revision: a reusable content of it, or a page of it that the visitor may
 * see (the page read applies the site's conditions), never a draft's document. Tree nodes, stored in the
 * same table, are no documents.
 */
export async function documentResponse(r: ContentRequest, documentId: string): Promise<JSONDocument> {
  if (r.source.published) return publishedDocument(r, documentId);
  const [spaceRows, bodyRows] = await r.db.batch([
    selectSpaceWithRank(r.db, r.source.spaceId, r.userId),
    rawAll<{ body: StoredBody }>(
      r.db,
      // Tree nodes share the table: only a document answers.
      sql`select ${composedBodySql('d')} as body from space_documents sd join documents d on d.hash = sd.hash
        where sd.space_id = ${r.source.spaceId} and sd.hash = ${documentId} and ${isDocumentSql(sql`d.body`)}`,
    ),
  ] as const);
  checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  const row = (bodyRows as Array<{ body: StoredBody }>)[0];
  if (!row) throw new ApiError(404, 'Document not found');
  return parseStoredBody<JSONDocument>(row.body);
}

async function publishedDocument(r: ContentRequest, documentId: string): Promise<JSONDocument> {
  const token = r.source.published!;
  const current = sql`(select revision_id from spaces where id = ${r.source.spaceId} and deleted_at is null)`;
  const [published, owners] = await r.db.batch([
    siteTokenSpaceQuery(r.db, token, r.source.spaceId),
    rawAll<{ kind: string; id: string; body: StoredBody | null }>(
      r.db,
      sql`select 'reusable' as kind, json_extract(rc.value, '$.id') as id, ${storedBodySql(sql`${documentId}`)} as body
          from revisions rv cross join json_each(rv.meta, '$.reusableContents') rc
          where rv.id = ${current} and json_extract(rc.value, '$.document') = ${documentId}
        union all
        select * from (select 'page', json_extract(p.value, '$.id'), null
          from (${leavesSql(sql`(select pages_root from revisions where id = ${current})`)}) leaf cross join json_each(leaf.body) p
          where json_extract(p.value, '$.document') = ${documentId} limit 1)`,
    ),
  ] as const);
  if (published.length === 0) throw new ApiError(404, 'Space not found');
  const rows = owners as Array<{ kind: string; id: string; body: StoredBody | null }>;
  const reusable = rows.find((row) => row.kind === 'reusable' && row.body);
  if (reusable) return parseStoredBody<JSONDocument>(reusable.body!);
  const page = rows.find((row) => row.kind === 'page');
  if (!page) throw new ApiError(404, 'Document not found');
  // Read as that page of the published content: not found when the site's conditions hide it from this visitor.
  return pageDocumentResponse({ ...r, computed: false }, page.id, { evaluated: false, dereferenced: false });
}
