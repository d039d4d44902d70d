import type { SiteReader } from '../services/sites/access';
import { childrenOf, siteSpacesIn, type GroupRow, type SectionRow, type SiteModel, type SiteSpaceRow } from '../services/sites/model';
import { publishedFilter, siteSpaceSegments } from '../services/sites/present';
import type { SpaceRow } from '../services/spaces/spaces';

/**
 * The site's structure as a visitor meets it, and URLs resolved against it.
 *
 * URL scheme (under the site's base: `/s/<siteId>` or, on an organization's hostname, the host root):
 * `[/<section path>][/<site space path>][/<page path>]`, where the default section and the default
 * site space of a section have no segment (services/sites/present `siteSpaceSegments`, as
 * `urls.published` has them). A segment naming a non-default section (or site space) selects it,
 * compared without case; whatever follows the site space is the page's path (its slugs). No page path:
 * the site space's first page.
 *
 * What the visitor sees is the published view's filter (services/sites/present `publishedFilter`):
 * sections and site spaces whose condition is false for the visitor's claims are neither listed nor
 * reachable; hidden site spaces are not listed but reachable by URL. Site spaces whose space has no
 * pages are not listed either (a section with none listed gets no tab); their URLs answer the 404 page.
 */

export interface SiteSpaceNode {
  row: SiteSpaceRow;
  space: SpaceRow;
  section: SectionRow | null;
  title: string;
  /** The site space's path below the base ('' for the default of the default section). */
  path: string;
  /** Listed in navigation: not hidden, and its space has pages (an empty one's links would be 404s). */
  listed: boolean;
  /** Its space has no pages. */
  empty: boolean;
}

export interface SectionNode {
  kind: 'section';
  row: SectionRow;
  /** Its site spaces the visitor may open (hidden ones included, marked). */
  siteSpaces: SiteSpaceNode[];
  path: string;
}

export interface GroupNode {
  kind: 'group';
  row: GroupRow;
  children: Array<SectionNode | GroupNode>;
}

export interface SiteStructureView {
  /** Sections and groups (none for a site of site spaces only). */
  items: Array<SectionNode | GroupNode>;
  /** Every site space the visitor may open, in order. */
  siteSpaces: SiteSpaceNode[];
}

const joinPath = (segments: string[]) => segments.map(encodeURIComponent).join('/');

function siteSpaceNode(model: SiteModel, row: SiteSpaceRow, section: SectionRow | null, navigable: boolean): SiteSpaceNode | null {
  const entry = model.spaces.get(row.spaceId);
  if (!entry) return null;
  const empty = entry.pages === 0;
  return { row, space: entry.space, section, title: row.title ?? entry.space.title, path: joinPath(siteSpaceSegments(section, row)), listed: navigable && !empty, empty };
}

/** The structure the visitor may open (`listed` tells what navigation shows). */
export function siteStructure(model: SiteModel, reader: SiteReader): SiteStructureView {
  const reach = publishedFilter(reader, false);
  const list = publishedFilter(reader, true);
  const all: SiteSpaceNode[] = [];
  const spacesOf = (section: SectionRow | null) =>
    siteSpacesIn(model, section?.id ?? null)
      .filter(reach.siteSpace)
      .flatMap((row) => {
        const node = siteSpaceNode(model, row, section, list.siteSpace(row));
        return node ? [node] : [];
      });
  if (model.sections.length === 0) {
    const siteSpaces = spacesOf(null);
    return { items: [], siteSpaces };
  }
  const walk = (groupId: string | null): Array<SectionNode | GroupNode> =>
    childrenOf(model, groupId).flatMap((child): Array<SectionNode | GroupNode> => {
      if (child.kind === 'section') {
        if (!reach.section(child.row)) return [];
        const siteSpaces = spacesOf(child.row);
        if (siteSpaces.length === 0) return [];
        all.push(...siteSpaces);
        return [{ kind: 'section', row: child.row, siteSpaces, path: child.row.isDefault ? '' : encodeURIComponent(child.row.path) }];
      }
      const children = walk(child.row.id);
      return children.length ? [{ kind: 'group', row: child.row, children }] : [];
    });
  const items = walk(null);
  return { items, siteSpaces: all };
}

/** Sections in reading order (depth first through groups). */
export function sectionsOf(items: Array<SectionNode | GroupNode>): SectionNode[] {
  return items.flatMap((item) => (item.kind === 'section' ? [item] : sectionsOf(item.children)));
}

/** A section as navigation shows it: only when one of its site spaces is listed. */
export const sectionListed = (section: SectionNode) => section.siteSpaces.some((s) => s.listed);

export type Resolved =
  | { kind: 'page'; siteSpace: SiteSpaceNode; section: SectionNode | null; pagePath: string[] }
  | { kind: 'none' };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The site space a path's segments (decoded, below the base) lead to, and the page path that follows.
 * None when the path names nothing the visitor may open.
 */
export function resolvePath(view: SiteStructureView, segments: string[]): Resolved {
  let rest = segments;
  let section: SectionNode | null = null;
  let candidates = view.siteSpaces.filter((s) => s.section === null);
  const sections = sectionsOf(view.items);
  if (sections.length > 0) {
    const named = rest.length > 0 ? sections.find((s) => !s.row.isDefault && same(s.row.path, rest[0])) : undefined;
    section = named ?? sections.find((s) => s.row.isDefault) ?? null;
    if (named) rest = rest.slice(1);
    if (!section) return { kind: 'none' };
    candidates = section.siteSpaces;
  }
  const namedSpace = rest.length > 0 ? candidates.find((s) => !s.row.isDefault && same(s.row.path, rest[0])) : undefined;
  const siteSpace = namedSpace ?? candidates.find((s) => s.row.isDefault);
  if (namedSpace) rest = rest.slice(1);
  if (!siteSpace) return { kind: 'none' };
  return { kind: 'page', siteSpace, section, pagePath: rest };
}

/** The first site space navigation lists (where a visitor whose default section is hidden to them is sent). */
export function firstListed(view: SiteStructureView): SiteSpaceNode | undefined {
  return view.siteSpaces.find((s) => s.listed) ?? view.siteSpaces[0];
}

// ---------------------------------------------------------------------------------------------
// The path below the site's base (shared by the HTML site and resolvePublishedContentByUrl)

const MAX_PATH = 2048;
const MAX_SEGMENT = 256;

type ParsedPath = { kind: 'ok'; segments: string[] } | { kind: 'bad' } | { kind: 'none' };

/** Decoded segments of the raw (still percent-encoded) path below the base; hostile paths are refused. */
export function parseSegments(raw: string): ParsedPath {
  if (raw.length > MAX_PATH) return { kind: 'none' };
  const parts = raw.split('/').filter((p) => p !== '');
  const segments: string[] = [];
  for (const part of parts) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return { kind: 'bad' };
    }
    if (decoded.length > MAX_SEGMENT || decoded === '.' || decoded === '..' || /[\u0000-\u001f\u007f/\\]/.test(decoded)) return { kind: 'none' };
    segments.push(decoded);
  }
  return { kind: 'ok', segments };
}

/** A site id as `/s/<siteId>` may name one (anything else there is no site). */
export const isSiteIdSegment = (segment: string) => /^[A-Za-z0-9_-]{1,128}$/.test(segment);
