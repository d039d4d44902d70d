import { and, eq, isNull, sql } from 'drizzle-orm';
import { rawAll, rowsOf, runBatch, type Db } from '../../db/client';
import { collections, spaces } from '../../db/schema';
import { badRequest } from '../../lib/errors';
import { valuesOf } from '../../lib/sql-lists';
import { CUSTOMIZATION_GROUPS, type GroupTree } from '../../schemas/customization-groups';
import type {
  CustomizationContentRef,
  PageAction,
  SiteCustomizationInput,
  SiteCustomizationSettings,
  SiteSpaceCustomizationOverride,
} from '../../schemas/site-customization';
import { lookupSql } from '../content/tree';
import { parseCondition } from './conditions';

/**
 * Site customization: the defaults, the PUT body made whole, a site space's override (its PATCHes and
 * its merge over the site's settings), and the checks of what the settings refer to.
 *
 * Merging follows the groups of the schema (CUSTOMIZATION_GROUPS: `styling`, `styling.sidebar`,
 * `header`, `footer`, `ai`, ...): a group is merged field by field, any other value (a color, the
 * header's `links`, the favicon, the announcement) is replaced whole.
 */

type Settings = SiteCustomizationSettings;
type Override = SiteSpaceCustomizationOverride;
type Json = Record<string, unknown>;

const DEFAULTS: Settings = {
  styling: {
    theme: 'clean',
    primaryColor: { light: '#346DDB', dark: '#346DDB' },
    infoColor: { light: '#787878', dark: '#787878' },
    successColor: { light: '#00C950', dark: '#00C950' },
    warningColor: { light: '#FE9A00', dark: '#FE9A00' },
    dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
    corners: 'rounded',
    depth: 'subtle',
    links: 'default',
    font: 'Inter',
    monospaceFont: 'IBMPlexMono',
    background: 'plain',
    icons: 'regular',
    codeTheme: { default: { light: 'default-light', dark: 'default-dark' }, openapi: { light: 'default-light', dark: 'default-dark' } },
    sidebar: { background: 'default', list: 'default' },
    search: 'subtle',
  },
  internationalization: { locale: 'en' },
  favicon: {},
  header: { preset: 'default', links: [] },
  footer: { groups: [] },
  themes: { default: 'system', toggeable: true },
  pdf: { enabled: true },
  feedback: { enabled: false },
  // No AI answers here (GitBook's ask operations are not served): with `search` or `assistant`, GitBook's
  // renderer would ask this API for recommended questions and answers on every search.
  ai: { mode: 'none' },
  advancedCustomization: { enabled: true },
  git: { showEditLink: false },
  pageActions: { items: ['assistant', 'markdown', 'external-ai', 'mcp'], externalAI: true, markdown: true, mcp: true },
  externalLinks: { target: 'self' },
  pagination: { enabled: true },
  trademark: { enabled: true },
  privacyPolicy: {},
  socialPreview: {},
  socialAccounts: [],
  insights: { trackingCookie: true },
};

/** The settings of a site never customized. A fresh copy: callers may change it. */
export function defaultCustomization(): Settings {
  return structuredClone(DEFAULTS);
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `top` over `base`: groups merged field by field, other values replaced; absent and null values of `top` change nothing. */
function overlay(base: Json, top: Json, tree: GroupTree): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(top)) {
    if (value === undefined || value === null) continue;
    const sub = tree[key];
    out[key] = sub && isObject(value) ? overlay(isObject(base[key]) ? base[key] : {}, value, sub) : value;
  }
  return out;
}

type PageActionsInput = { items?: PageAction[] | null; externalAI?: boolean | null; markdown?: boolean | null; mcp?: boolean | null };
const SWITCHES = [
  ['externalAI', 'external-ai'],
  ['markdown', 'markdown'],
  ['mcp', 'mcp'],
] as const;

/**
 * The page menu after a change: `items` (if given) replaces the list, then each switch given adds its
 * action at the end or removes it; the switches answered are read back from the list, so both forms
 * always agree.
 */
function resolvePageActions(base: Settings['pageActions'], change: PageActionsInput | null | undefined): Settings['pageActions'] {
  let items = change?.items ?? base.items;
  for (const [name, action] of SWITCHES) {
    const on = change?.[name];
    if (on === true && !items.includes(action)) items = [...items, action];
    if (on === false) items = items.filter((item) => item !== action);
  }
  return { items, externalAI: items.includes('external-ai'), markdown: items.includes('markdown'), mcp: items.includes('mcp') };
}

function overlaySettings(base: Settings, top: SiteCustomizationInput | Override): Settings {
  const merged = overlay(base, top, CUSTOMIZATION_GROUPS) as Settings;
  return { ...merged, pageActions: resolvePageActions(base.pageActions, top.pageActions) };
}

/** The settings a PUT body stands for: what it gives, the defaults for what it leaves out. */
export function settingsFromInput(input: SiteCustomizationInput): Settings {
  const { updatedAt: _ignored, ...given } = input;
  return overlaySettings(defaultCustomization(), given);
}

/** A site space's settings: its override over the site's. */
export function applyOverride(site: Settings, override: Override | null): Settings {
  return override ? overlaySettings(site, override) : site;
}

/** `patch` over a group of an override: omitted unchanged, null removed, groups patched field by field. */
function patchGroup(current: Json, patch: Json, tree: GroupTree): Json {
  const out: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const sub = tree[key];
    if (value === null) delete out[key];
    else if (sub && isObject(value)) out[key] = patchGroup(isObject(out[key]) ? out[key] : {}, value, sub);
    else out[key] = value;
    if (isObject(out[key]) && sub && Object.keys(out[key]).length === 0) delete out[key];
  }
  return out;
}

/**
 * A site space's override after a PATCH: a field omitted is unchanged, a field set to null is no longer
 * overridden (the site's value shows again). Null when nothing is overridden any more.
 */
export function mergeOverridePatch(current: Override | null, patch: Override): Override | null {
  const next = patchGroup(current ?? {}, patch, CUSTOMIZATION_GROUPS);
  return Object.keys(next).length ? (next as Override) : null;
}

// ---------------------------------------------------------------------------------------------
// What the settings refer to

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
