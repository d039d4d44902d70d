import { and, eq, isNull, sql } from 'drizzle-orm';
import { rawAll, rowsOf, runBatch, type Db } from '../../db/client';
import { collections, spaces } from '../../db/schema';
import { badRequest } from '../../lib/errors';
import { valuesOf } from '../../lib/sql-lists';
import type { CustomizationContentRef } from '../../schemas/site-customization';
import { lookupSql } from '../content/tree';
import { parseCondition } from './conditions';

/**
 * The checks of what a site's customization refers to (spaces, collections, pages and files of spaces' head
 * revisions) and of its conditions, for the API's writes of settings and overrides (customization.ts merges them).
 */

/** A content reference and where it is in the settings, for error messages. */
export interface LocatedRef {
  path: string;
  ref: CustomizationContentRef;
}

/** What holds references, in settings, a PUT body and an override alike. */
type Link = { to: CustomizationContentRef };
type WithReferences = {
  header?: {
    primaryLink?: CustomizationContentRef | null;
    links?: Array<{ to: CustomizationContentRef | null; links?: Link[]; condition?: string }> | null;
  } | null;
  footer?: { groups?: Array<{ links?: Link[] }> | null } | null;
  announcement?: { link?: Link } | null;
};

/** Every content reference of settings, a PUT body or an override: header, its links, footer links, the announcement's link. */
export function contentReferencesOf(value: WithReferences): LocatedRef[] {
  const refs: LocatedRef[] = [];
  const add = (path: string, ref: CustomizationContentRef | null | undefined) => {
    if (ref) refs.push({ path, ref });
  };
  add('header.primaryLink', value.header?.primaryLink);
  value.header?.links?.forEach((item, i) => {
    add(`header.links[${i}].to`, item.to);
    item.links?.forEach((link, j) => add(`header.links[${i}].links[${j}].to`, link.to));
  });
  value.footer?.groups?.forEach((group, i) => group.links?.forEach((link, j) => add(`footer.groups[${i}].links[${j}].to`, link.to)));
  add('announcement.link.to', value.announcement?.link?.to);
  return refs;
}

/** A page or file looked up in a space's head revision. */
type Entry = { space: string; kind: 'page' | 'file'; id: string };

/** The space a page, file or anchor reference points into: its own, else the one it is read in. */
function entryOf(ref: CustomizationContentRef, currentSpace: string | undefined): Entry | 'no-space' | null {
  if (ref.kind !== 'page' && ref.kind !== 'file' && ref.kind !== 'anchor') return null;
  const space = ref.space ?? currentSpace;
  if (!space) return 'no-space';
  return ref.kind === 'file' ? { space, kind: 'file', id: ref.file } : { space, kind: 'page', id: ref.page };
}

const entryKey = (e: Entry) => JSON.stringify([e.space, e.kind, e.id]);

/** Which of `entries` are in their space's head revision: point lookups in the page and file maps. */
function entriesQuery(db: Db, entries: Entry[]) {
  const root = sql`(select case json_extract(r.value, '$[1]') when 'file' then v.files_root else v.pages_root end
    from revisions v where v.id = (select s.revision_id from spaces s where s.id = json_extract(r.value, '$[0]')))`;
  return rawAll<{ entry: string }>(
    db,
    sql`select r.value as entry from json_each(${JSON.stringify(entries.map((e) => [e.space, e.kind, e.id]))}) r
      where ${lookupSql(root, sql`json_extract(r.value, '$[2]')`)} is not null`,
  );
}

/**
 * Checks that every reference leads somewhere in the organization: a space or collection of `orgId`
 * (a space not deleted), a page or file in the head revision of its space. `currentSpace` is the space
 * a reference without one points into (a site space's); without it such a reference is refused.
 * One D1 round trip whatever the number of references; none when there are only URLs.
 * Throws a 400 naming each reference that does not (up to five).
 */
export async function checkCustomizationReferences(db: Db, orgId: string, refs: LocatedRef[], currentSpace?: string): Promise<void> {
  const spaceIds = new Set<string>();
  const collectionIds = new Set<string>();
  const entries = new Map<string, Entry>();
  for (const { ref } of refs) {
    if (ref.kind === 'space') spaceIds.add(ref.space);
    if (ref.kind === 'collection') collectionIds.add(ref.collection);
    const entry = entryOf(ref, currentSpace);
    if (entry && entry !== 'no-space') {
      spaceIds.add(entry.space);
      entries.set(entryKey(entry), entry);
    }
  }
  const problems: string[] = refs.flatMap(({ path, ref }) => (entryOf(ref, currentSpace) === 'no-space' ? [`${path}: ${ref.kind} reference needs a space`] : []));
  if (spaceIds.size || collectionIds.size) {
    const [spaceRows, collectionRows, entryRows] = await runBatch(db, [
      db.select({ id: spaces.id }).from(spaces).where(and(eq(spaces.orgId, orgId), isNull(spaces.deletedAt), sql`${spaces.id} in ${valuesOf([...spaceIds])}`)),
      db.select({ id: collections.id }).from(collections).where(and(eq(collections.orgId, orgId), sql`${collections.id} in ${valuesOf([...collectionIds])}`)),
      entriesQuery(db, [...entries.values()]),
    ]);
    const foundSpaces = new Set((spaceRows as Array<{ id: string }>).map((r) => r.id));
    const foundCollections = new Set((collectionRows as Array<{ id: string }>).map((r) => r.id));
    const foundEntries = new Set(rowsOf<{ entry: string }>(entryRows).map((r) => JSON.stringify(JSON.parse(r.entry))));
    for (const { path, ref } of refs) {
      const problem = referenceProblem(ref, currentSpace, foundSpaces, foundCollections, foundEntries);
      if (problem) problems.push(`${path}: ${problem}`);
    }
  }
  if (problems.length) throw badRequest(problems.slice(0, 5).join('; '));
}

function referenceProblem(
  ref: CustomizationContentRef,
  currentSpace: string | undefined,
  spacesFound: Set<string>,
  collectionsFound: Set<string>,
  entriesFound: Set<string>,
): string | null {
  if (ref.kind === 'collection') return collectionsFound.has(ref.collection) ? null : `collection "${ref.collection}" not found`;
  if (ref.kind === 'space') return spacesFound.has(ref.space) ? null : `space "${ref.space}" not found`;
  const entry = entryOf(ref, currentSpace);
  if (!entry || entry === 'no-space') return null;
  if (!spacesFound.has(entry.space)) return `space "${entry.space}" not found`;
  return entriesFound.has(entryKey(entry)) ? null : `${entry.kind} "${entry.id}" not found in space "${entry.space}"`;
}

// ---------------------------------------------------------------------------------------------
// Conditions, and the whole check

/** Checks a condition, throwing a 400 naming `field` (services/sites/conditions: `parseCondition`). */
export type ConditionCheck = (expression: string, field: string) => unknown;

/** Every header item's `condition` through `check`. */
export function validateConditions(value: WithReferences, check: ConditionCheck = parseCondition): void {
  value.header?.links?.forEach((item, i) => {
    if (item.condition !== undefined) check(item.condition, `header.links[${i}].condition`);
  });
}

/**
 * Everything a customization write checks beyond its schema: header conditions, then references.
 * `currentSpace`: the site space's space, for an override.
 */
export async function validateCustomization(db: Db, orgId: string, value: WithReferences, currentSpace?: string): Promise<void> {
  validateConditions(value);
  await checkCustomizationReferences(db, orgId, contentReferencesOf(value), currentSpace);
}
