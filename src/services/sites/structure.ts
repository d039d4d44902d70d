import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import {
  assertPathFree,
  assertWithinLimits,
  childrenOf,
  groupDepth,
  normalizeDefaults,
  renumber,
  SITE_LIMITS,
  siteSpacesIn,
  uniquePath,
  type GroupRow,
  type SectionRow,
  type SiteModel,
  type SiteSpaceRow,
} from './model';

/**
 * Changes to a site's structure, made in memory on a model (see model.ts). Each keeps the
 * invariants: one default section, one default site space per section (or at the root), paths
 * unique among siblings, and site spaces either all at the root or all in sections.
 */

export const notFoundIn = (what: string) => new ApiError(404, `${what} not found`);
const invalidPosition = (why: string) => badRequest(`Invalid move position: ${why}`);

export function findSection(model: SiteModel, id: string): SectionRow {
  const row = model.sections.find((s) => s.id === id);
  if (!row) throw notFoundIn('Site section');
  return row;
}

export function findGroup(model: SiteModel, id: string): GroupRow {
  const row = model.groups.find((g) => g.id === id);
  if (!row) throw notFoundIn('Site section group');
  return row;
}

/** A section or group named in a request body: unknown ids are bad input (400), not a missing target. */
export function referencedSection(model: SiteModel, id: string, field: string): SectionRow {
  const row = model.sections.find((s) => s.id === id);
  if (!row) throw badRequest(`${field}: "${id}" is not a section of this site`);
  return row;
}

export function referencedGroup(model: SiteModel, id: string, field: string): GroupRow {
  const row = model.groups.find((g) => g.id === id);
  if (!row) throw badRequest(`${field}: "${id}" is not a section group of this site`);
  return row;
}

export function referencedSiteSpace(model: SiteModel, id: string, field: string): SiteSpaceRow {
  const row = model.siteSpaces.find((s) => s.id === id);
  if (!row) throw badRequest(`${field}: "${id}" is not a site space of this site`);
  return row;
}

export function findSiteSpace(model: SiteModel, id: string): SiteSpaceRow {
  const row = model.siteSpaces.find((s) => s.id === id);
  if (!row) throw notFoundIn('Site space');
  return row;
}

function finish(model: SiteModel) {
  normalizeDefaults(model);
  assertWithinLimits(model);
  model.site.updatedAt = nowIso();
}

function nextPosition(rows: { position: number }[]): number {
  return rows.reduce((max, r) => Math.max(max, r.position), 0) + 1;
}

/** A site space for `spaceId` in `sectionId` (null: the root), at the end, with a free path. */
function newSiteSpace(model: SiteModel, spaceId: string, sectionId: string | null, title: string | null = null): SiteSpaceRow {
  const siblings = siteSpacesIn(model, sectionId);
  const space = model.spaces.get(spaceId)?.space;
  return {
    id: newId(),
    siteId: model.site.id,
    sectionId,
    spaceId,
    path: uniquePath(title ?? space?.title ?? '', siblings.map((s) => s.path), 'space'),
    title,
    condition: null,
    hidden: false,
    isDefault: siblings.length === 0,
    position: nextPosition(siblings),
    customization: null,
    customizationUpdatedAt: null,
    createdAt: nowIso(),
  };
}

function newSection(model: SiteModel, title: string, groupId: string | null, icon: string | null = null): SectionRow {
  return {
    id: newId(),
    siteId: model.site.id,
    groupId,
    title,
    description: null,
    icon,
    path: uniquePath(title, model.sections.map((s) => s.path), 'section'),
    condition: null,
    isDefault: model.sections.length === 0,
    position: nextPosition(childrenOf(model, groupId).map((c) => c.row)),
    createdAt: nowIso(),
  };
}

/** Adds a site space: to a section, to the default section, or at the root of a site without sections. */
export function addSiteSpace(model: SiteModel, spaceId: string, sectionId: string | undefined): SiteSpaceRow {
  let target: string | null = null;
  if (sectionId !== undefined) target = referencedSection(model, sectionId, 'sectionId').id;
  else if (model.sections.length) target = model.sections.find((s) => s.isDefault)?.id ?? model.sections[0].id;
  const row = newSiteSpace(model, spaceId, target);
  model.siteSpaces.push(row);
  finish(model);
  return row;
}

/**
 * Adds a section with a first site space. A site whose site spaces were at its root becomes a site
 * of sections: those site spaces move into a first, default section titled after the site, so
 * nothing already published disappears.
 */
export function addSection(model: SiteModel, input: { spaceId: string; title?: string; icon?: string | null; groupId?: string }): SectionRow {
  const groupId = input.groupId === undefined ? null : referencedGroup(model, input.groupId, 'siteSectionGroupId').id;
  const rootSpaces = siteSpacesIn(model, null);
  if (model.sections.length === 0 && rootSpaces.length > 0) {
    const first = newSection(model, model.site.title, null);
    model.sections.push(first);
    for (const siteSpace of rootSpaces) siteSpace.sectionId = first.id;
  }
  const title = input.title ?? model.spaces.get(input.spaceId)?.space.title ?? '';
  if (title.trim().length < 2) throw badRequest('title: a section needs a title of 2 to 128 characters (the space has none to lend it)');
  const section = newSection(model, title.slice(0, 128), groupId, input.icon ?? null);
  model.sections.push(section);
  model.siteSpaces.push(newSiteSpace(model, input.spaceId, section.id));
  finish(model);
  return section;
}

/** Deleting a section deletes its site spaces; the last section gone, the site has no structure left. */
export function deleteSection(model: SiteModel, sectionId: string): void {
  model.sections = model.sections.filter((s) => s.id !== sectionId);
  model.siteSpaces = model.siteSpaces.filter((s) => s.sectionId !== sectionId);
  // Groups hold sections: without any, they would linger unseen (the structure of a site without
  // sections is its root site spaces), so they go with the last section.
  if (model.sections.length === 0) model.groups = [];
  finish(model);
}

export function deleteSiteSpace(model: SiteModel, siteSpaceId: string): void {
  model.siteSpaces = model.siteSpaces.filter((s) => s.id !== siteSpaceId);
  finish(model);
}

export function setSectionPath(model: SiteModel, section: SectionRow, path: string): void {
  assertPathFree(path, model.sections, section.id, 'section');
  section.path = path;
}

export function setSiteSpacePath(model: SiteModel, siteSpace: SiteSpaceRow, path: string): void {
  assertPathFree(path, siteSpacesIn(model, siteSpace.sectionId), siteSpace.id, 'site space');
  siteSpace.path = path;
}

/** Makes a site space the default of its section (or of the root). */
export function makeDefaultSiteSpace(model: SiteModel, siteSpace: SiteSpaceRow, sectionId?: string): void {
  if (sectionId !== undefined && siteSpace.sectionId !== sectionId) {
    throw badRequest(`defaultSiteSpace: site space "${siteSpace.id}" is not in section "${sectionId}"`);
  }
  for (const row of siteSpacesIn(model, siteSpace.sectionId)) row.isDefault = row === siteSpace;
  finish(model);
}

export function makeDefaultSection(model: SiteModel, section: SectionRow): void {
  for (const row of model.sections) row.isDefault = row === section;
  finish(model);
}

/** Moves an item among `siblings` before or after `anchorId`, or to the end without an anchor. */
function placeAmong<T extends { id: string; position: number }>(item: T, siblings: T[], anchorId: string | undefined, before: boolean): void {
  const others = siblings.filter((s) => s.id !== item.id);
  if (anchorId === undefined) {
    renumber([...others, item]);
    return;
  }
  if (anchorId === item.id) throw invalidPosition('an item cannot be placed relative to itself');
  const at = others.findIndex((s) => s.id === anchorId);
  if (at < 0) throw invalidPosition(`"${anchorId}" is not a sibling of the item in this site`);
  others.splice(before ? at : at + 1, 0, item);
  renumber(others);
}

type Position<K extends string> = { before?: Record<K, string>; after?: Record<K, string> } | undefined;

function anchorOf<K extends string>(position: Position<K>, key: K): { anchor?: string; before: boolean } {
  if (position?.before) return { anchor: position.before[key], before: true };
  if (position?.after) return { anchor: position.after[key], before: false };
  return { before: false };
}

export function moveSiteSpace(model: SiteModel, siteSpace: SiteSpaceRow, position: Position<'siteSpace'>): void {
  const { anchor, before } = anchorOf(position, 'siteSpace');
  placeAmong(siteSpace, siteSpacesIn(model, siteSpace.sectionId), anchor, before);
  finish(model);
}

/** Sections move among the sections and groups of their parent group (or the root). */
export function moveSection(model: SiteModel, section: SectionRow, position: Position<'siteSection'>): void {
  const { anchor, before } = anchorOf(position, 'siteSection');
  placeAmong<{ id: string; position: number }>(section, childrenOf(model, section.groupId).map((c) => c.row), anchor, before);
  finish(model);
}

export function moveGroup(model: SiteModel, group: GroupRow, position: Position<'id'>): void {
  const { anchor, before } = anchorOf(position, 'id');
  placeAmong<{ id: string; position: number }>(group, childrenOf(model, group.parentId).map((c) => c.row), anchor, before);
  finish(model);
}

/** Puts a section into a group (null: the root), at the end of it. */
export function setSectionGroup(model: SiteModel, section: SectionRow, groupId: string | null): void {
  if (groupId !== null) referencedGroup(model, groupId, 'siteSectionGroupId');
  if (section.groupId === groupId) return;
  section.position = nextPosition(childrenOf(model, groupId).map((c) => c.row));
  section.groupId = groupId;
  finish(model);
}

/** Refuses a parent that would put a group inside itself or nest deeper than the limit. */
export function setGroupParent(model: SiteModel, group: GroupRow, parentId: string | null): void {
  for (let id = parentId; id !== null; id = referencedGroup(model, id, 'parent').parentId) {
    if (id === group.id) throw badRequest('parent: a section group cannot be nested inside itself');
  }
  const depthBelow = (g: GroupRow): number => 1 + Math.max(0, ...model.groups.filter((c) => c.parentId === g.id).map(depthBelow));
  if (groupDepth(model, parentId) + depthBelow(group) > SITE_LIMITS.groupDepth) {
    throw badRequest(`parent: section groups nest at most ${SITE_LIMITS.groupDepth} levels deep`);
  }
  if (group.parentId === parentId) return;
  group.position = nextPosition(childrenOf(model, parentId).map((c) => c.row));
  group.parentId = parentId;
  finish(model);
}

export function addGroup(model: SiteModel, input: { title: string; icon?: string | null; parentId?: string; sections?: string[] }): GroupRow {
  if (model.sections.length === 0) throw badRequest('A site needs sections before they can be grouped: add a section first');
  const parentId = input.parentId === undefined ? null : referencedGroup(model, input.parentId, 'parent').id;
  const group: GroupRow = {
    id: newId(),
    siteId: model.site.id,
    parentId: null,
    title: input.title,
    icon: input.icon ?? null,
    position: 0,
    createdAt: nowIso(),
  };
  model.groups.push(group);
  setGroupParent(model, group, parentId);
  group.position = nextPosition(childrenOf(model, parentId).map((c) => c.row));
  for (const sectionId of new Set(input.sections ?? [])) setSectionGroup(model, referencedSection(model, sectionId, 'sections'), group.id);
  finish(model);
  return group;
}

/** Deleting a group keeps what it held: its sections and groups move up to its parent, in its place. */
export function deleteGroup(model: SiteModel, groupId: string): void {
  const group = model.groups.find((g) => g.id === groupId);
  if (!group) return;
  const parentSiblings = childrenOf(model, group.parentId).map((c) => c.row);
  const inner = childrenOf(model, group.id).map((c) => c.row);
  const at = parentSiblings.findIndex((r) => r.id === group.id);
  const ordered = [...parentSiblings.slice(0, at), ...inner, ...parentSiblings.slice(at + 1)];
  for (const section of model.sections) if (section.groupId === group.id) section.groupId = group.parentId;
  for (const child of model.groups) if (child.parentId === group.id) child.parentId = group.parentId;
  model.groups = model.groups.filter((g) => g.id !== group.id);
  renumber(ordered);
  finish(model);
}

export type StructurePointer = { type: 'site-space' | 'site-section' | 'site-section-group' | 'site-external-link'; id: string };
export type SortedItem = { kind: 'site-space'; row: SiteSpaceRow } | { kind: 'site-section'; row: SectionRow } | { kind: 'site-section-group'; row: GroupRow };

/** The item a sort names: unknown (or a kind this site has none of, external links) is a 404. */
function sortedItem(model: SiteModel, pointer: StructurePointer): SortedItem {
  if (pointer.type === 'site-space') return { kind: 'site-space', row: findSiteSpace(model, pointer.id) };
  if (pointer.type === 'site-section') return { kind: 'site-section', row: findSection(model, pointer.id) };
  if (pointer.type === 'site-section-group') return { kind: 'site-section-group', row: findGroup(model, pointer.id) };
  throw notFoundIn('Site external link');
}

/** The anchor of a sort must be a sibling of the item, named with its own kind: anything else is an invalid position (400). */
function checkAnchor(model: SiteModel, item: SortedItem, anchor: StructurePointer): void {
  const siblings =
    item.kind === 'site-space'
      ? siteSpacesIn(model, item.row.sectionId).map((row) => ({ kind: 'site-space', id: row.id }))
      : childrenOf(model, item.kind === 'site-section' ? item.row.groupId : item.row.parentId).map((c) => ({
          kind: c.kind === 'section' ? 'site-section' : 'site-section-group',
          id: c.row.id,
        }));
  if (anchor.type === item.kind && anchor.id === item.row.id) throw invalidPosition('an item cannot be placed relative to itself');
  if (!siblings.some((s) => s.kind === anchor.type && s.id === anchor.id)) {
    throw invalidPosition(`${anchor.type} "${anchor.id}" is not a sibling of the item at its level of the site's structure`);
  }
}

/**
 * GitBook's sortSiteStructure: moves a site space among the site spaces of its section (or the root), a section
 * or section group among the sections and groups of its parent, before or after a sibling, or to the end.
 */
export function sortStructureItem(model: SiteModel, pointer: StructurePointer, position: { before?: StructurePointer; after?: StructurePointer }): SortedItem {
  const item = sortedItem(model, pointer);
  const anchor = position.before ?? position.after;
  if (anchor) checkAnchor(model, item, anchor);
  const before = position.before !== undefined;
  if (item.kind === 'site-space') moveSiteSpace(model, item.row, anchor && (before ? { before: { siteSpace: anchor.id } } : { after: { siteSpace: anchor.id } }));
  else if (item.kind === 'site-section') moveSection(model, item.row, anchor && (before ? { before: { siteSection: anchor.id } } : { after: { siteSection: anchor.id } }));
  else moveGroup(model, item.row, anchor && (before ? { before: { id: anchor.id } } : { after: { id: anchor.id } }));
  return item;
}

/**
 * GitBook's duplicateSiteSpace placement: the copy (`copySpaceId`, already in `model.spaces`) becomes a variant
 * right after the original in its section (or at the site's root); when the original is the only variant of its
 * section, it goes into a new section right after that one, in the same group, titled like it.
 */
export function placeDuplicate(model: SiteModel, original: SiteSpaceRow, copySpaceId: string): { siteSpace: SiteSpaceRow; section: SectionRow | null } {
  const variants = siteSpacesIn(model, original.sectionId);
  const home = original.sectionId === null ? null : findSection(model, original.sectionId);
  let section: SectionRow | null = null;
  if (home && variants.length === 1) {
    section = newSection(model, home.title, home.groupId, home.icon);
    section.isDefault = false;
    model.sections.push(section);
    placeAmong<{ id: string; position: number }>(section, childrenOf(model, home.groupId).map((c) => c.row), home.id, false);
  }
  const row = newSiteSpace(model, copySpaceId, section?.id ?? original.sectionId, original.title);
  row.isDefault = false;
  row.condition = original.condition;
  row.hidden = original.hidden;
  model.siteSpaces.push(row);
  if (!section) placeAmong(row, siteSpacesIn(model, original.sectionId), original.id, false);
  finish(model);
  return { siteSpace: row, section };
}
