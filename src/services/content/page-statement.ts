/**
 * The page read's statement (reads.ts `pageTreeSql`: a page with its ancestors and subtree, the space's row with the
 * caller's rank, and what the read's flags add) as constant text: a read costs binding its values, never drizzle
 * building the text. drizzle building it on an isolate's first page read (`sqlToQuery` over some 300 fragments) was
 * 5-8% of a cold page read (issue 42 item 7; test/bench/profile.ts --cold). The text is pageTreeSql's, written out in
 * the pieces its flags choose between; test/platform/page-statement.test.ts checks every combination against the text
 * and values drizzle builds, and the rows: change pageTreeSql (or what it includes: lookupSql, spaceRoleSql...) and
 * that test fails, printing the pieces to paste here.
 */

/** A value of the statement: a placeholder's name (reads.ts fills it), or a value written into pageTreeSql. */
type Param = string | { value: unknown };

interface Fragment {
  text: string;
  params: readonly Param[];
}

const fragment = (text: string, params: Param[]): Fragment => ({ text, params });

/** `rev`: the revision's page map (`@REV@` is the revision's id, REVISION_IDS) */
const HEAD = fragment(`with recursive rev(root) as (select pages_root from revisions where id = `, []);
/** the page by its id */
const START_BY_ID = fragment(`start(id) as (select ?)`, ["pageId"]);
/** the page by its id, or the computed page that generates it (`computed`) */
const START_GENERATED = fragment(`start(id) as (select case when instr(?, '-') > 1 and substr(?, 1, instr(?, '-') - 1) <> ? and (case when ? is
  null or length(?) not between 1 and 128 or ? glob '*[^A-Za-z0-9_~-]*' then null else (select
  json_extract(lk_l.body, '$."' || ? || '"') from documents lk_r left join documents lk_g on lk_g.hash =
  json_extract(lk_r.body, '$."~' || (unicode(?) % 8) || '"') join documents lk_m on lk_m.hash =
  json_extract(coalesce(lk_g.body, lk_r.body), '$."' || substr(?, 1, 1) || '"') join documents lk_l on lk_l.hash
  = json_extract(lk_m.body, '$."' || substr(?, 2, 1) || '"') where lk_r.hash = (select root from rev)) end) is
  null and json_extract((case when substr(?, 1, instr(?, '-') - 1) is null or length(substr(?, 1, instr(?, '-')
  - 1)) not between 1 and 128 or substr(?, 1, instr(?, '-') - 1) glob '*[^A-Za-z0-9_~-]*' then null else (select
  json_extract(lk_l.body, '$."' || substr(?, 1, instr(?, '-') - 1) || '"') from documents lk_r left join
  documents lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(substr(?, 1, instr(?, '-') - 1)) % 8)
  || '"') join documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), '$."' ||
  substr(substr(?, 1, instr(?, '-') - 1), 1, 1) || '"') join documents lk_l on lk_l.hash =
  json_extract(lk_m.body, '$."' || substr(substr(?, 1, instr(?, '-') - 1), 2, 1) || '"') where lk_r.hash =
  (select root from rev)) end), '$.computed') is not null then substr(?, 1, instr(?, '-') - 1) else ? end)`, ["pageId","pageId","pageId",{"value":"~"},"pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId","pageId"]);
/** the page at a path of slugs (`walk`) */
const START_BY_PATH = fragment(`walk(level, id) as ( select 0, ? union all select walk.level + 1, json_extract(c.value, '$[0]') from walk
  cross join json_each((case when walk.id is null or length(walk.id) not between 1 and 128 or walk.id glob
  '*[^A-Za-z0-9_~-]*' then null else (select json_extract(lk_l.body, '$."' || walk.id || '"') from documents
  lk_r left join documents lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(walk.id) % 8) || '"')
  join documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), '$."' || substr(walk.id, 1, 1)
  || '"') join documents lk_l on lk_l.hash = json_extract(lk_m.body, '$."' || substr(walk.id, 2, 1) || '"')
  where lk_r.hash = (select root from rev)) end), '$.children') c where walk.level < ? and json_extract(c.value,
  '$[1]') = json_extract(?, '$[' || walk.level || ']') union all select walk.level + 1, json_extract(c.value,
  '$[0]') from walk cross join json_each((case when walk.id is null or length(walk.id) not between 1 and 128 or
  walk.id glob '*[^A-Za-z0-9_~-]*' then null else (select json_extract(lk_l.body, '$."' || walk.id || '"') from
  documents lk_r left join documents lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(walk.id) %
  8) || '"') join documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), '$."' ||
  substr(walk.id, 1, 1) || '"') join documents lk_l on lk_l.hash = json_extract(lk_m.body, '$."' ||
  substr(walk.id, 2, 1) || '"') where lk_r.hash = (select root from rev)) end), '$.chunks') k cross join
  json_each((select body from documents where hash = json_extract(k.value, '$[0]'))) c where walk.level < ? and
  json_extract(c.value, '$[1]') = json_extract(?, '$[' || walk.level || ']') ), start(id) as (select id from
  walk where level = ? and level > 0 limit 1)`, [{"value":"~"},"pathLength","segments","pathLength","segments","pathLength"]);
/** the page's ancestors (`up`) and subtree (`down`), its document and its lists' chunks, then the extra rows */
const BODY = fragment(`, tree(kind, id, rec, n) as ( select 'start', start.id, null, -1 from start union all select json_extract(nx.value,
  '$[0]'), json_extract(nx.value, '$[1]'), (case when json_extract(nx.value, '$[1]') is null or length(json_extract(nx.value,
  '$[1]')) not between 1 and 128 or json_extract(nx.value, '$[1]') glob '*[^A-Za-z0-9_~-]*' then null else (select
  json_extract(lk_l.body, '$."' || json_extract(nx.value, '$[1]') || '"') from documents lk_r left join documents
  lk_g on lk_g.hash = json_extract(lk_r.body, '$."~' || (unicode(json_extract(nx.value, '$[1]')) % 8) || '"') join
  documents lk_m on lk_m.hash = json_extract(coalesce(lk_g.body, lk_r.body), '$."' || substr(json_extract(nx.value,
  '$[1]'), 1, 1) || '"') join documents lk_l on lk_l.hash = json_extract(lk_m.body, '$."' || substr(json_extract(nx.value,
  '$[1]'), 2, 1) || '"') where lk_r.hash = (select root from rev)) end), json_extract(nx.value, '$[2]') from tree
  t cross join json_each((select json_group_array(json_array(x.kind, x.id, x.n)) from ( select 'up' as kind, t.id
  as id, 0 as n where t.kind = 'start' union all select 'up', json_extract(t.rec, '$.parent'), t.n + 1 where t.kind
  = 'up' and json_extract(t.rec, '$.parent') is not null and t.n < ? union all select 'down', json_extract(c.value,
  '$[0]'), t.n + 1 from json_each(t.rec, '$.children') c where (t.kind = 'up' and t.n = 0) or (t.kind = 'down' and
  t.n < ?) union all select 'down', json_extract(c.value, '$[0]'), t.n + 1 from json_each(t.rec, '$.chunks') k cross
  join json_each((select body from documents where hash = json_extract(k.value, '$[0]'))) c where (t.kind = 'up' and
  t.n = 0) or (t.kind = 'down' and t.n < ?) ) x)) nx ), up(id, rec, level) as (select id, rec, n from tree where kind
  = 'up'), down(id, rec, depth) as (select id, rec, n from tree where kind = 'down') select 'up' as kind, level as
  n, rec as value from up where rec is not null union all select 'down', depth, rec from down where rec is not null
  union all select 'document', json_extract(up.rec, '$.document'), case when json_extract(up.rec, '$.document') =
  ? then null else (select (case when sb.base is null then sb.body else unhex(hex(sb.body) || hex((select b.body from
  documents b where b.hash = sb.base))) end) from documents sb where sb.hash = json_extract(up.rec, '$.document'))
  end from up where up.level = 0 and json_extract(up.rec, '$.document') is not null union all select 'chunk', json_extract(k.value,
  '$[0]'), (select body from documents where hash = json_extract(k.value, '$[0]')) from (select rec from up where
  level = 0 union all select rec from down) s cross join json_each(s.rec, '$.chunks') k union all select * from (`, [{"value":1000},{"value":1000},{"value":1000},"knownDocument"]);
/** the `space` row for a member (their rank): before and after the revision's id */
const SPACE_ROW_MEMBER = [fragment(`select 'space', max( coalesce((select case when m.role = 6 then 6 else max(min(m.role, "spaces"."access_cap"), coalesce((select
  max(g.role) from space_team_grants g join team_members tm on tm.team_id = g.team_id where g.space_id = "spaces"."id"
  and tm.user_id = ?), 0), coalesce((select g.role from space_user_grants g where g.space_id = "spaces"."id" and g.user_id
  = ?), 0), max(coalesce((select max(x.role) from (select g.role from site_user_grants g join site_spaces ss on ss.site_id
  = g.site_id where g.user_id = ? and ss.space_id = "spaces"."id" union all select g.role from site_team_grants g
  join team_members tm on tm.team_id = g.team_id join site_spaces ss on ss.site_id = g.site_id where tm.user_id =
  ? and ss.space_id = "spaces"."id") x), 0), case when "spaces"."parent_id" is null then 0 else coalesce((with recursive
  chain(id) as ( select "spaces"."parent_id" union select c.parent_id from collections c join chain on c.id = chain.id
  where c.parent_id is not null ) select max(x.role) from ( select g.role from collection_user_grants g where g.user_id
  = ? and g.collection_id in (select id from chain) union all select g.role from collection_team_grants g join team_members
  tm on tm.team_id = g.team_id where tm.user_id = ? and g.collection_id in (select id from chain) ) x), 0) end)) end
  from org_members m where m.org_id = "spaces"."org_id" and m.user_id = ? and m.disabled = 0), 0), coalesce((select
  case when ii.status in ('active', 'pending') and exists (select 1 from integrations i where i.id = ii.integration_id
  and i.deleted_at is null) and (ii.space_selection = 'all' or exists (select 1 from integration_space_installations
  si where si.installation_id = ii.id and si.space_id = "spaces"."id" and si.status = 'active')) then ii.space_role
  end from integration_installations ii where ii.bot_user_id = ? and ii.org_id = "spaces"."org_id"), 0) ), json_array("spaces"."id",
  "spaces"."org_id", "spaces"."parent_id", "spaces"."title", "spaces"."emoji", "spaces"."visibility", "spaces"."edit_mode",
  "spaces"."merge_rules", "spaces"."language", "spaces"."default_level", "spaces"."access_cap", "spaces"."position",
  "spaces"."revision_id", "spaces"."comments_count", "spaces"."change_requests_count", "spaces"."change_requests_open",
  "spaces"."change_requests_draft", "spaces"."created_at", "spaces"."updated_at", "spaces"."deleted_at", "spaces"."git_sync",
  "revisions"."id", "revisions"."parents", "revisions"."type", "revisions"."created_at", "revisions"."meta", "revisions"."page_count",
  "revisions"."file_count") from "spaces" left join "revisions" on "revisions"."id" = `, ["userId","userId","userId","userId","userId","userId","userId","userId"]), fragment(` where "spaces"."id" = ?`, ["spaceId"])] as const;
/** the `space` row for a site token's visitor: before and after the revision's id */
const SPACE_ROW_PUBLISHED = [fragment(`select 'space', ?, json_array("spaces"."id", "spaces"."org_id", "spaces"."parent_id", "spaces"."title",
  "spaces"."emoji", "spaces"."visibility", "spaces"."edit_mode", "spaces"."merge_rules", "spaces"."language",
  "spaces"."default_level", "spaces"."access_cap", "spaces"."position", "spaces"."revision_id",
  "spaces"."comments_count", "spaces"."change_requests_count", "spaces"."change_requests_open",
  "spaces"."change_requests_draft", "spaces"."created_at", "spaces"."updated_at", "spaces"."deleted_at",
  "spaces"."git_sync", "revisions"."id", "revisions"."parents", "revisions"."type", "revisions"."created_at",
  "revisions"."meta", "revisions"."page_count", "revisions"."file_count") from "spaces" left join "revisions" on
  "revisions"."id" = `, [{"value":1}]), fragment(` where "spaces"."id" = ? and "spaces"."deleted_at" is null`, ["spaceId"])] as const;
/** the specs computed pages name (`computed`) */
const SPECS = fragment(`select 'spec', s.slug, json_object('slug', s.slug, 'state', s.processing_state, 'errorCode',
  s.last_process_error_code, 'errors', case when json_valid(s.last_processed_errors) then
  json(s.last_processed_errors) end, 'outline', case when json_valid(v.outline) then json(v.outline) end,
  'versionCreatedAt', v.created_at, 'public', s.visibility = 'public') from openapi_specs s left join
  openapi_spec_versions v on v.id = s.last_version_id where s.org_id = (select sp.org_id from spaces sp where
  sp.id = ?) and s.slug in (select json_extract(rec, ?) from up where level = 0 union all select
  json_extract(rec, ?) from down)`, ["spaceId",{"value":"$.computed.dependencies.spec.ref.spec"},{"value":"$.computed.dependencies.spec.ref.spec"}]);
/** the subtree's Markdown (`markdown`) */
const MARKDOWN = fragment(`select case when d.markdown is null then 'body' else 'markdown' end, h.hash, coalesce(d.markdown, (case when
  d.base is null then d.body else unhex(hex(d.body) || hex((select b.body from documents b where b.hash =
  d.base))) end)) from (select distinct hash from (select json_extract(rec, '$.document') as hash from down)
  where hash is not null) h join documents d on d.hash = h.hash`, []);
/** the reusable contents the document includes (`reusable`): before and after the revision's id */
const REUSABLE = [fragment(`select 'reusable', json_extract(rc.value, '$.id'), (select (case when sb.base is null then sb.body else
  unhex(hex(sb.body) || hex((select b.body from documents b where b.hash = sb.base))) end) from documents sb
  where sb.hash = json_extract(rc.value, '$.document')) from revisions r cross join json_each(r.meta,
  '$.reusableContents') rc where r.id = `, []), fragment(` and json_extract(rc.value, '$.id') in (select j.value from documents d cross join json_each(d.refs, ?) j
  where d.hash in (select json_extract(up.rec, '$.document') from up where up.level = 0) and d.refs is not null
  union all select t.value from documents d cross join json_tree(case when d.refs is null and typeof(d.body) =
  'text' then d.body end) t where d.hash in (select json_extract(up.rec, '$.document') from up where up.level =
  0) and d.refs is null and t.key = ?)`, [{"value":"$.reusable"},{"value":"reusableContent"}])] as const;
/** The revision's id, by revision shape (reads.ts `revisionShape`). */
const REVISION_IDS: Record<string, Fragment> = {
  'published-revision': fragment(`(select s.revision_id from spaces s where s.id = ? and s.revision_id = ?)`, ["spaceId","revision"]),
  'revision': fragment(`(select r.id from revisions r where r.id = ? and r.space_id = ?)`, ["revision","spaceId"]),
  'main': fragment(`(select s.revision_id from spaces s where s.id = ?)`, ["spaceId"]),
  'change-request-number': fragment(`(select "change_requests"."revision_id" from "change_requests" where ("change_requests"."space_id" = ? and "change_requests"."number" = ?))`, ["spaceId","changeRequest"]),
  'change-request-id': fragment(`(select "change_requests"."revision_id" from "change_requests" where ("change_requests"."space_id" = ? and "change_requests"."id" = ?))`, ["spaceId","changeRequest"]),
};

/** The flags that choose the statement's text (pageTreeQuery's shape). */
export interface PageStatementShape {
  /** reads.ts `revisionShape`'s name: how the revision's id is found. */
  revision: string;
  /** A site token's visitor (no rank to compute) rather than a member. */
  published: boolean;
  byPath: boolean;
  computed: boolean;
  markdown: boolean;
  reusable: boolean;
}

const statements = new Map<string, Fragment>();

/** The statement's text and its values' names, in order; joined once per isolate for each shape. */
export function pageStatement(shape: PageStatementShape): Fragment {
  const key = `${shape.revision}:${+shape.published}${+shape.byPath}${+shape.computed}${+shape.markdown}${+shape.reusable}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = joinPageStatement(shape);
    statements.set(key, statement);
  }
  return statement;
}

function joinPageStatement(shape: PageStatementShape): Fragment {
  const revision = REVISION_IDS[shape.revision];
  if (!revision) throw new Error(`No page statement for the revision shape ${shape.revision}`);
  const around = ([before, after]: readonly [Fragment, Fragment]) => [before, revision, after];
  const extras: Fragment[][] = [
    around(shape.published ? SPACE_ROW_PUBLISHED : SPACE_ROW_MEMBER),
    ...(shape.computed ? [[SPECS]] : []),
    ...(shape.markdown ? [[MARKDOWN]] : []),
    ...(shape.reusable ? [around(REUSABLE)] : []),
  ];
  const start = shape.byPath ? START_BY_PATH : shape.computed ? START_GENERATED : START_BY_ID;
  const parts = [HEAD, revision, fragment('), ', []), start, BODY, ...extras.flatMap((term, i) => (i ? [fragment(' union all ', []), ...term] : term)), fragment(')', [])];
  return { text: parts.map((part) => part.text).join(''), params: parts.flatMap((part) => part.params) };
}

/** The statement's values, in order: each placeholder's from `values`, the written-in ones as they are. */
export function pageStatementValues(statement: Fragment, values: Record<string, unknown>): unknown[] {
  return statement.params.map((param) => (typeof param === 'string' ? values[param] : param.value));
}
