import { constantSelect } from '../db/constant-select';
import type { Db } from '../db/client';

/**
 * The published page's two content statements (site/content `treeStatement` and `pageStatement`) as constant SQL
 * (db/constant-select): the text drizzle builds for them, written out, so that a cold isolate's first page does not
 * spend building it (drizzle's `sqlToQuery` walking their fragments was about 4% of a cold published page,
 * test/bench/profile.ts --cold). test/site/content-sql.test.ts holds each text and its values to what drizzle builds
 * from the fragments they are made of (services/content/reads `wholeTreeQuery`, packed-documents `composedBodySql`,
 * `storedBodySql`, `documentRefsSql`, tree `leavesSql`, `lookupSql`) and their rows to drizzle's, so a change there
 * that would make them differ fails there. Whitespace is drizzle's but for line breaks and indentation.
 */

type Row = { kind: string; key: string | null; value: string | null };

const row = (raw: Record<string, unknown>) => raw as Row;

/** The JSON path of a spec's slug in a computed page's leaf (services/openapi/computed-pages `SPEC_OF`). */
const SPEC_OF = '$.computed.dependencies.spec.ref.spec';

/** `wholeTreeQuery(db, sql\`${revisionId}\`, { spaceId }, true)`: the tree's leaves and chunks, the revision's meta, the specs of its computed pages. */
const TREE_SQL = [
  `with leaves(body) as (select (select body from documents where hash = c2.value) as body`,
  `from json_each((select body from documents where hash = (select pages_root from revisions where id = ?))) g`,
  `cross join json_each(case when g.key glob '~[0-7]' then (select body from documents where hash = g.value) else json_object(g.key, g.value) end) c1`,
  `cross join json_each((select body from documents where hash = c1.value)) c2)`,
  `select 'leaf' as kind, null as key, body as value from leaves`,
  `union all`,
  `select 'chunk', json_extract(k.value, '$[0]'), (select body from documents where hash = json_extract(k.value, '$[0]'))`,
  `from leaves l cross join json_each(l.body) e cross join json_each(e.value, '$.chunks') k`,
  `union all select 'meta', null, meta from revisions where id = ?`,
  `union all select 'spec', s.slug, json_object('slug', s.slug, 'state', s.processing_state, 'errorCode', s.last_process_error_code,`,
  `'errors', case when json_valid(s.last_processed_errors) then json(s.last_processed_errors) end, 'outline', case when json_valid(v.outline) then json(v.outline) end, 'versionCreatedAt', v.created_at,`,
  `'public', s.visibility = 'public')`,
  `from openapi_specs s left join openapi_spec_versions v on v.id = s.last_version_id`,
  `where s.org_id = (select sp.org_id from spaces sp where sp.id = ?) and s.slug in (select json_extract(e.value, ?) from leaves l cross join json_each(l.body) e where instr(l.body, '"computed"') > 0)`,
].join('\n');

export function treeStatement(db: Db, spaceId: string, revisionId: string) {
  return constantSelect(db, TREE_SQL, [revisionId, revisionId, spaceId, SPEC_OF], row);
}

/** A document's body with its delta's base appended (packed-documents `composedBodySql`) of the row `d`. */
const composed = (d: string) => `(case when ${d}.base is null then ${d}.body\nelse unhex(hex(${d}.body) || hex((select b.body from documents b where b.hash = ${d}.base))) end)`;

/** packed-documents `documentRefsSql` of the documents `hashes`, its path and key being values. */
const refsOf = (hashes: string, text: string) =>
  [
    `select j.value from documents d cross join json_each(d.refs, ?) j where d.hash in (${hashes}) and d.refs is not null`,
    `union all`,
    `select t.value from documents d cross join json_tree(case when d.refs is null and typeof(d.body) = 'text' then d.body end) t`,
    `where d.hash in (${hashes}) and d.refs is null and t.key = ?${text}`,
  ].join('\n');

/** tree `lookupSql` of the key `refs.id` in the revision's file map (its root a subquery of one value). */
const FILE_LOOKUP = [
  `(case when refs.id is null or length(refs.id) not between 1 and 128 or refs.id glob '*[^A-Za-z0-9_~-]*' then null`,
  `else (select json_extract(lk_l.body, '$."' || refs.id || '"') from documents lk_r`,
  `left join documents lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(refs.id) % 8) || '"')`,
  `join documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), '$."' || substr(refs.id, 1, 1) || '"')`,
  `join documents lk_l on lk_l.hash = json_extract(lk_m.body, '$."' || substr(refs.id, 2, 1) || '"')`,
  `where lk_r.hash = (select files_root from revisions where id = ?)) end)`,
].join('\n');

/** site/content `pageStatement`'s text: the page's document, the reusable contents it includes, the files they refer to. */
const PAGE_SQL = [
  `with page(body) as (select ${composed('pd')} from documents pd where pd.hash = ?),`,
  `included(id, hash) as (`,
  `select json_extract(r.value, '$.id'), json_extract(r.value, '$.document')`,
  `from json_each(coalesce((select meta from revisions where id = ?), '{}'), '$.reusableContents') r`,
  `where json_extract(r.value, '$.id') in (${refsOf('select ?', '')})`,
  `),`,
  `contents(id, body) as (select included.id, (select ${composed('sb')} from documents sb where sb.hash = included.hash) from included),`,
  `refs(id) as (`,
  `select distinct value from (${refsOf('select ? union all select hash from included where hash is not null', ` and t.type = 'text'`)})`,
  `)`,
  `select 'document' as kind, null as key, body as value from page`,
  `union all`,
  `select 'reusable', id, body from contents where body is not null`,
  `union all`,
  `select 'file', refs.id, ${FILE_LOOKUP} from refs`,
].join('\n');

export function pageStatement(db: Db, revisionId: string, documentHash: string) {
  const h = documentHash;
  return constantSelect(db, PAGE_SQL, [h, revisionId, '$.reusable', h, h, 'reusableContent', '$.files', h, h, 'file', revisionId], row);
}
