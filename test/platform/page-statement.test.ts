/**
 * The page read's statement in constant text (services/content/page-statement, what readContent runs for a page) is
 * the statement drizzle builds from reads.ts `pageTreeSql`: the same SQL and values for every revision shape and every
 * combination of flags, and the same rows for a member and a visitor, by id and by path, with Markdown, computed
 * pages and reusable contents asked for.
 */
import { env } from 'cloudflare:workers';
import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { constantSelect } from '../../src/db/constant-select';
import { createDb, runBatch } from '../../src/db/client';
import { pageStatement, pageStatementValues } from '../../src/services/content/page-statement';
import { pageTreeSql, revisionShape, type ContentSource } from '../../src/services/content/reads';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { seedOrg } from '../helpers/harness';

const db = () => createDb(env.DB);
const dialect = () => (db() as unknown as { dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } } }).dialect;
const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

type Flags = { published: boolean; byPath: boolean; computed: boolean; markdown: boolean; reusable: boolean };
const FLAGS: Flags[] = [];
for (let bits = 0; bits < 32; bits++) {
  const [published, byPath, computed, markdown, reusable] = [1, 2, 4, 8, 16].map((bit) => (bits & bit) !== 0);
  FLAGS.push({ published, byPath, computed, markdown, reusable });
}

/** The values a read binds (reads.ts pageTreeQuery): the revision's, the caller's, the target's, the known document's. */
function valuesOf(source: ContentSource, flags: Flags, target: { pageId: string } | { path: string[] }) {
  return {
    ...revisionShape(source).values,
    ...(flags.published ? {} : { userId: 'user-1' }),
    ...('path' in target ? { segments: JSON.stringify(target.path), pathLength: target.path.length } : { pageId: target.pageId }),
    knownDocument: '',
  };
}

function drizzleForm(source: ContentSource, flags: Flags, values: Record<string, unknown>) {
  const built = dialect().sqlToQuery(pageTreeSql(revisionShape(source).sql, flags.published, flags.byPath, flags.computed, flags.markdown, flags.reusable));
  return { sql: built.sql, params: fillPlaceholders(built.params, values) };
}

function constantForm(source: ContentSource, flags: Flags, values: Record<string, unknown>) {
  const statement = pageStatement({ revision: revisionShape(source).shape, ...flags });
  return { sql: statement.text, params: pageStatementValues(statement, values) };
}

const SOURCES: ContentSource[] = [
  { spaceId: 'space-1' },
  { spaceId: 'space-1', revision: 'rev-1' },
  { spaceId: 'space-1', revision: 'rev-1', published: { siteId: 'site-1' } as never },
  { spaceId: 'space-1', changeRequest: '7' },
  { spaceId: 'space-1', changeRequest: 'cr-id-1' },
];

describe("the page read's statement in constant text", () => {
  it.each(SOURCES)('is the SQL drizzle builds, with the same values, for every flag: %o', (source) => {
    for (const flags of FLAGS) {
      const values = valuesOf(source, flags, flags.byPath ? { path: ['a', 'b'] } : { pageId: 'page-1' });
      const [ours, theirs] = [constantForm(source, flags, values), drizzleForm(source, flags, values)];
      expect(collapse(ours.sql), JSON.stringify(flags)).toBe(collapse(theirs.sql));
      expect(ours.params, JSON.stringify(flags)).toEqual(theirs.params);
    }
  });

  it('answers the rows drizzle answers, for a member and a visitor, by id and by path', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Statement');
    const cr = await openChangeRequest(space.id, token, 'Pages');
    const result = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_page', ref: 'guides', title: 'Guides', document: { markdown: 'Guides.\n' } },
      { operation: 'insert_page', ref: 'install', into: 'guides', title: 'Install', document: { markdown: 'Install **it**.\n' } },
      { operation: 'insert_page', into: 'install', title: 'On Linux', document: { markdown: 'With apt.\n' } },
    ]);
    const [guides, install] = result.changes.map((c: any) => c.page.id as string);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);

    const d = db();
    const member = (flags: Partial<Flags>): Flags => ({ published: false, byPath: false, computed: false, markdown: false, reusable: false, ...flags });
    const cases: Array<[ContentSource, Flags, { pageId: string } | { path: string[] }]> = [
      [{ spaceId: space.id }, member({}), { pageId: install }],
      [{ spaceId: space.id }, member({ markdown: true, computed: true, reusable: true }), { pageId: guides }],
      [{ spaceId: space.id }, member({ byPath: true, markdown: true }), { path: ['guides', 'install'] }],
      [{ spaceId: space.id }, member({ published: true }), { pageId: install }],
      [{ spaceId: space.id, changeRequest: String(cr.number) }, member({ computed: true }), { pageId: install }],
      [{ spaceId: space.id }, member({}), { pageId: 'no-such-page' }],
    ];
    for (const [source, flags, target] of cases) {
      const values = { ...valuesOf(source, flags, target), ...(flags.published ? {} : { userId: org.owner.id }) };
      const theirs = drizzleForm(source, flags, values);
      const ours = constantForm(source, flags, values);
      // drizzle's text run as it is, beside ours, in one batch.
      const [expected, rows] = (await runBatch(d, [
        constantSelect(d, theirs.sql, theirs.params, (row) => row),
        constantSelect(d, ours.sql, ours.params, (row) => row),
      ])) as unknown[][];
      expect(rows, JSON.stringify(flags)).toEqual(expected);
      expect(rows.length).toBeGreaterThan(0);
    }
    // The rows are the page's: its two ancestors (with itself), its subtree and the space's row with the owner's rank.
    const source = { spaceId: space.id };
    const ours = constantForm(source, member({}), { ...valuesOf(source, member({}), { pageId: install }), userId: org.owner.id });
    const rows = await constantSelect(d, ours.sql, ours.params, (row) => row as { kind: string; n: unknown }).rows();
    expect(rows.filter((r) => r.kind === 'up')).toHaveLength(2);
    expect(rows.filter((r) => r.kind === 'down')).toHaveLength(1);
    expect(rows.find((r) => r.kind === 'space')?.n).toBe(6);
  });
});
