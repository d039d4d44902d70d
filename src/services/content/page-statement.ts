/**
 * The page read's statement (reads.ts `pageTreeSql`: a page with its ancestors and subtree, the space's row with the
 * caller's rank, and what the read's flags add) as constant text: a read costs binding its values, never drizzle
 * building the text. drizzle building it on an isolate's first page read (`sqlToQuery` over some 300 fragments) was
 * 5-8% of a cold page read (issue 42 item 7; test/bench/profile.ts --cold). The text is generated from pageTreeSql
 * (page-statement.generated.ts, by src/cli/constant-sql.ts): change pageTreeSql (or what it includes: lookupSql,
 * spaceRoleSql...) and run `node --import tsx src/cli/write-constant-sql.ts`; test/platform/constant-sql.test.ts fails
 * until then.
 */
import { boundValues, type ConstantText } from '../../db/constant-select';
import { PIECES, REVISIONS, STATEMENTS } from './page-statement.generated';

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

const statements = new Map<string, ConstantText>();

/** The statement's text and its values' names, in order; joined once per isolate for each shape. */
export function pageStatement(shape: PageStatementShape): ConstantText {
  const flags = `${+shape.published}${+shape.byPath}${+shape.computed}${+shape.markdown}${+shape.reusable}`;
  const key = `${shape.revision}:${flags}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = joinPageStatement(shape.revision, flags);
    statements.set(key, statement);
  }
  return statement;
}

function joinPageStatement(shape: string, flags: string): ConstantText {
  const revision = REVISIONS[shape];
  if (!revision) throw new Error(`No page statement for the revision shape ${shape}`);
  const parts = STATEMENTS[flags]!.map((i) => (i < 0 ? revision : PIECES[i]!));
  return { text: parts.map((part) => part.text).join(''), params: parts.flatMap((part) => part.params) };
}

/** The statement's values, in order: each placeholder's from `values`, the written-in ones as they are. */
export const pageStatementValues = boundValues;
