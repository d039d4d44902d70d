import { boundValues, constantSelect } from '../db/constant-select';
import type { Db } from '../db/client';
import { PAGE, TREE } from './content-sql.generated';

/**
 * The published page's two content statements (site/content `treeStatement` and `pageStatement`) as constant SQL
 * (db/constant-select), so that a cold isolate's first page does not spend building it (drizzle's `sqlToQuery` walking
 * their fragments was about 4% of a cold published page, test/bench/profile.ts --cold). The text is generated from
 * their drizzle definitions (content-sql.generated.ts, by src/cli/constant-sql.ts: reads.ts `wholeTreeSql`, and the
 * page's statement of packed-documents and tree fragments); test/site/content-sql.test.ts holds their rows to drizzle's.
 */

type Row = { kind: string; key: string | null; value: string | null };

const row = (raw: Record<string, unknown>) => raw as Row;

/** The tree's leaves and chunks, the revision's meta, the specs of its computed pages. */
export function treeStatement(db: Db, spaceId: string, revisionId: string) {
  return constantSelect(db, TREE.text, boundValues(TREE, { spaceId, revisionId }), row);
}

/** The page's document, the reusable contents it includes, the files they refer to. */
export function pageStatement(db: Db, revisionId: string, documentHash: string) {
  return constantSelect(db, PAGE.text, boundValues(PAGE, { revisionId, documentHash }), row);
}
