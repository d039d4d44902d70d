import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { columnToLevel, RANK } from '../../lib/roles';
import { urlContext, type UrlContext } from '../../schemas/mappers';
import type { Site, SiteSection, SiteSectionGroup, SiteSpace, SiteStructure } from '../../schemas/site';
import { toSpace } from '../../schemas/mappers';
import { evaluateCondition } from './conditions';
import { siteSpaceSegments } from './site-paths';
import { childrenOf, siteSpacesIn, type GroupRow, type SectionRow, type SiteModel, type SiteRow, type SiteSpaceRow } from './model';
import { sitePermissions } from '../../lib/permissions';
import type { SiteReader } from './access';

/** URL bases: the API, the app, and where published sites are served (`SITES_URL`, else `<origin>/sites`). */
export interface SiteUrls extends UrlContext {
  sites: string;
  /** Appended to published URLs of share-link sites when the request was opened with it. */
  shareKey?: string;
  /** A site token's site and its root as the visitor reached it (`SiteTokenPayload.siteUrl`). */
  reached?: { site: string; url: string };
}

export function siteUrlContext(c: Context<AppBindings>, shareKey?: string): SiteUrls {
  const base = urlContext(c.req.url, c.env.APP_URL);
  const sites = (c.env.SITES_URL || `${new URL(c.req.url).origin}/sites`).replace(/\/$/, '');
  const actor = c.get('actor');
  const reached = actor?.kind === 'site' && actor.token.siteUrl ? { site: actor.token.site, url: actor.token.siteUrl } : undefined;
  // A share key the reached root already carries as a segment is not repeated as a query.
  const key = shareKey && !reached?.url.endsWith(`/${encodeURIComponent(shareKey)}`) ? shareKey : undefined;
  return { ...base, sites, ...(key && { shareKey: key }), ...(reached && { reached }) };
}

/** Where a published site lives: `<sites base>/<organization>/<basename>`. */
export function siteBaseUrl(urls: SiteUrls, site: SiteRow): string {
  return `${urls.sites}/${site.orgId}/${site.basename}`;
}

/**
 * The root its published URLs are built on: for a site token's own site, where its visitor reached it (so
 * that GitBook's renderer, which links to `urls.published` of sites and site spaces, keeps its readers on the
 * URLs it serves); otherwise `siteBaseUrl`.
 */
function publishedRoot(urls: SiteUrls, site: SiteRow): string {
  return urls.reached?.site === site.id ? urls.reached.url : siteBaseUrl(urls, site);
}

/**
 * The root of a share-link site's published URLs with its key as the first segment (`<site>/<key>/<page>`, GitBook's
 * form): it works everywhere, GitBook's renderer included, which drops the query string before it resolves a URL.
 */
function withShareKey(root: string, site: SiteRow, urls: SiteUrls): string {
  return site.visibility === 'share-link' && urls.shareKey ? `${root}/${encodeURIComponent(urls.shareKey)}` : root;
}

/** A published URL under the site (only once the site is published). */
function publishedUrl(model: SiteModel, urls: SiteUrls, segments: string[]): string | undefined {
  if (!model.site.published) return undefined;
  return publishedUrlOf(model.site, urls, segments);
}

/** The published URL of a place in a site: `<site>/<section path>/<site space path>`, defaults left out. */
export function publishedUrlOf(site: SiteRow, urls: SiteUrls, segments: string[]): string {
  const path = segments.map(encodeURIComponent).join('/');
  return `${withShareKey(publishedRoot(urls, site), site, urls)}/${path}`;
}

export const modelSite = (model: SiteModel, rank: number, urls: SiteUrls) => toSite(model.site, model.siteSpaces.length, rank, urls);

export { siteSpaceSegments };

export function toSiteSpace(model: SiteModel, row: SiteSpaceRow, urls: SiteUrls): SiteSpace {
  const entry = model.spaces.get(row.spaceId)!;
  const section = row.sectionId === null ? null : (model.sections.find((s) => s.id === row.sectionId) ?? null);
  const published = publishedUrl(model, urls, siteSpaceSegments(section, row));
  const space = toSpace(entry.space, entry.rank, urls);
  if (published) space.urls.published = published;
  return {
    object: 'site-space',
    id: row.id,
    path: row.path,
    ...(row.sectionId && { section: row.sectionId }),
    space,
    title: row.title ?? entry.space.title,
    default: row.isDefault,
    ...(row.condition && { condition: row.condition }),
    draft: false,
    hasAdvancedCustomizationFeature: false,
    urls: published ? { published } : {},
    hidden: row.hidden,
  };
}

/** Decides what a reader sees: members see everything; visitors what passes the conditions. */
export interface StructureFilter {
  section(row: SectionRow): boolean;
  siteSpace(row: SiteSpaceRow): boolean;
  /** False for visitors: a section none of whose site spaces they see, or a group left empty, is not shown. */
  keepEmpty: boolean;
}

export const SHOW_ALL: StructureFilter = { section: () => true, siteSpace: () => true, keepEmpty: true };

/** The filter of a published view: conditions against the reader's claims, hidden site spaces left out of navigation. */
export function publishedFilter(reader: SiteReader, navigation: boolean): StructureFilter {
  return {
    section: (row) => evaluateCondition(row.condition, reader.claims),
    siteSpace: (row) => !(navigation && row.hidden) && evaluateCondition(row.condition, reader.claims),
    keepEmpty: false,
  };
}

export function toSiteSection(model: SiteModel, row: SectionRow, urls: SiteUrls, filter: StructureFilter = SHOW_ALL): SiteSection {
  const published = publishedUrl(model, urls, row.isDefault ? [] : [row.path]);
  return {
    object: 'site-section',
    id: row.id,
    title: row.title,
    ...(row.description !== null && { description: row.description }),
    default: row.isDefault,
    draft: false,
    path: row.path,
    ...(row.condition && { condition: row.condition }),
    ...(row.groupId && { sectionGroup: row.groupId }),
    siteSpaces: siteSpacesIn(model, row.id)
      .filter(filter.siteSpace)
      .map((s) => toSiteSpace(model, s, urls)),
    urls: published ? { published } : {},
    ...(row.icon && { icon: row.icon }),
  };
}

export function toSiteSectionGroup(model: SiteModel, row: GroupRow, urls: SiteUrls, filter: StructureFilter = SHOW_ALL): SiteSectionGroup {
  const children = structureItems(model, row.id, urls, filter);
  return {
    object: 'site-section-group',
    id: row.id,
    title: row.title,
    ...(row.parentId && { sectionGroup: row.parentId }),
    ...(row.icon && { icon: row.icon }),
    draft: false,
    sections: children.filter((c): c is SiteSection => c.object === 'site-section'),
    children,
  };
}

/** The sections and groups under a group (null: the root); a visitor's view drops what would be empty. */
function structureItems(model: SiteModel, groupId: string | null, urls: SiteUrls, filter: StructureFilter): (SiteSection | SiteSectionGroup)[] {
  const items: (SiteSection | SiteSectionGroup)[] = [];
  for (const child of childrenOf(model, groupId)) {
    if (child.kind === 'section') {
      if (!filter.section(child.row)) continue;
      const section = toSiteSection(model, child.row, urls, filter);
      if (!filter.keepEmpty && section.siteSpaces.length === 0) continue;
      items.push(section);
    } else {
      const group = toSiteSectionGroup(model, child.row, urls, filter);
      if (!filter.keepEmpty && group.children.length === 0) continue;
      items.push(group);
    }
  }
  return items;
}

export function toSiteStructure(model: SiteModel, urls: SiteUrls, filter: StructureFilter = SHOW_ALL): SiteStructure {
  if (model.sections.length > 0) return { type: 'sections', structure: structureItems(model, null, urls, filter) };
  return {
    type: 'siteSpaces',
    structure: siteSpacesIn(model, null)
      .filter(filter.siteSpace)
      .map((s) => toSiteSpace(model, s, urls)),
  };
}

/** A site; `siteSpaces` is how many it has (lists count them in SQL, single reads from the model). */
export function toSite(site: SiteRow, siteSpaces: number, rank: number, urls: SiteUrls): Site {
  const published = site.published ? publishedUrlOf(site, urls, []) : undefined;
  const location = `${urls.api}/orgs/${site.orgId}/sites/${site.id}`;
  return {
    object: 'site',
    id: site.id,
    type: site.type as Site['type'],
    appliedType: site.type as Site['type'],
    title: site.title,
    basename: site.basename,
    ...(site.proxy && { proxy: { origin: site.proxy, target: siteBaseUrl(urls, site) } }),
    visibility: site.visibility as Site['visibility'],
    defaultLevel: columnToLevel(site.defaultLevel),
    permissions: sitePermissions(rank),
    published: site.published,
    siteSpaces,
    createdAt: site.createdAt,
    adaptiveContent: { enabled: site.adaptiveContent },
    ads: { status: 'pending', submittable: rank >= RANK.admin },
    agentsContext: site.agentsContext as Site['agentsContext'],
    features: [],
    urls: {
      location,
      app: `${urls.app}/o/${site.orgId}/sites/${site.id}`,
      // The published view answers members for an unpublished site too: it is the site's preview.
      preview: `${location}/published`,
      ...(published && { published }),
    },
  };
}
