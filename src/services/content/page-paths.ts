import { sql } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import type { PageRecord } from './pages';
import { lookupSql } from './tree';

/**
 * Pages of spaces' current main content with their ancestors, for many pages of many spaces in one
 * statement (search results, link locations): each is walked up its page map in SQL.
 */

export interface PathRow {
  spaceId: string;
  pageId: string;
  level: number;
  slug: string;
  title: string;
  description: string | null;
  /** The page's own record (JSON), on its level-0 row. */
  record: string | null;
  /** The condition of the page of this level (adaptive content), if any. */
  condition: string | null;
  spaceTitle: string;
}

/** Pages with their ancestors (level 0 is the page) in their spaces' current main content: one statement. */
/** `revisionId`, when given, is a revision of that space to read instead of its main content. */
export function pagePathsQuery(db: Db, pages: Array<[spaceId: string, pageId: string, revisionId?: string]>) {
  const parent = sql`(up.rec ->> '$.parent')`;
  return rawAll<PathRow>(
    db,
    sql`with recursive start(spaceId, pageId, root) as (
      select value ->> 0, value ->> 1, coalesce(
        (select r.pages_root from revisions r where r.id = value ->> 2 and r.space_id = value ->> 0),
        (select r.pages_root from spaces s join revisions r on r.id = s.revision_id where s.id = value ->> 0))
      from json_each(${JSON.stringify(pages)})
    ),
    up(spaceId, pageId, root, rec, level) as (
      select spaceId, pageId, root, ${lookupSql(sql`start.root`, sql`start.pageId`)}, 0 from start
      union all
      select up.spaceId, up.pageId, up.root, ${lookupSql(sql`up.root`, parent)}, up.level + 1 from up
      where ${parent} is not null and ${parent} <> '~' and up.level < 64
    )
    select spaceId, pageId, level, rec ->> '$.slug' as slug, rec ->> '$.title' as title, rec ->> '$.description' as description, rec ->> '$.condition' as condition,
      case when level = 0 then rec end as record, (select s.title from spaces s where s.id = up.spaceId) as spaceTitle
    from up where rec is not null`,
  );
}

export interface LocatedPage {
  record: PageRecord;
  /** The page's path (slugs from the top level). */
  path: string;
  /** Its parent's path ('' at the top level). */
  parentPath: string;
  /** From the top level to the direct parent. */
  ancestors: PathRow[];
  spaceTitle: string;
}

/** The rows of `pagePathsQuery` by `spaceId/pageId`; a page no longer in its space's content is absent. */
export function locatePages(rows: PathRow[]): Map<string, LocatedPage> {
  const chains = new Map<string, PathRow[]>();
  for (const row of rows) {
    const key = `${row.spaceId}/${row.pageId}`;
    chains.set(key, [...(chains.get(key) ?? []), row]);
  }
  const out = new Map<string, LocatedPage>();
  for (const [key, chain] of chains) {
    chain.sort((a, b) => b.level - a.level);
    const self = chain[chain.length - 1];
    if (self.level !== 0 || !self.record) continue;
    const ancestors = chain.slice(0, -1);
    const parentPath = ancestors.map((r) => r.slug).join('/');
    out.set(key, { record: JSON.parse(self.record) as PageRecord, path: parentPath ? `${parentPath}/${self.slug}` : self.slug, parentPath, ancestors, spaceTitle: self.spaceTitle });
  }
  return out;
}
