/**
 * A document's body as the Worker reads it (services/content/packed-documents `composedBodySql`), for tests that read
 * the `documents` table themselves: a delta (migration 0162) with its base's body appended, any other body as stored.
 */
export const COMPOSED_BODY =
  'case when documents.base is null then documents.body else unhex(hex(documents.body) || hex((select b.body from documents b where b.hash = documents.base))) end';
