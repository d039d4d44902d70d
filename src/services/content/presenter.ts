import type { z } from '@hono/zod-openapi';
import type { ChangeRequest } from '../../schemas/change-request';
import { changeRequestAppUrl, toUser } from '../../schemas/mappers';
import type { UrlContext } from '../../schemas/common';
import type {
  RevisionFileSchema,
  RevisionPage,
  RevisionPageComputed,
  RevisionPageGroup,
  RevisionPageLink,
  RevisionPageDocument,
  RevisionPageLayoutSchema,
  RevisionSchema,
} from '../../schemas/revision';
import { isOutdated, type ChangeRequestWithContext } from './change-requests';
import type { FileEntry, Manifest, ReadPage, RevisionRow } from './revisions';
import { DEFAULT_PAGE_LAYOUT as DEFAULT_LAYOUT } from '../markdown/page-layout';
import { isGroupPage } from './tree-rows';

/**
 * Content as the API shows it: the pages, files and revisions of a read (services/content/reads,
 * services/links), from the content model's values (services/content/revisions), and change requests
 * (whether one is `outdated` is services/content/change-requests' to say). The schemas are in
 * schemas/revision and schemas/change-request; the mappers live here because they read the content
 * model's own types and rules.
 */

/**
 * The layout options a stored page has no value for (pages store the nine of `DEFAULT_LAYOUT`, and no
 * input sets a layout yet): no mask on the cover; tags, page actions and heading anchors shown.
 */
const LAYOUT_DEFAULTS: Omit<z.infer<typeof RevisionPageLayoutSchema>, keyof typeof DEFAULT_LAYOUT> = { coverMask: 'none', tags: true, actions: true, anchors: true };

/** Where page URLs point: the app's page of the space or of the change request. */
export interface ContentUrls {
  app: string;
}

/**
 * A page's body as Markdown, for the pages of a tree read (services/content/reads); undefined leaves
 * the page without one (a page read's own page, which carries its body as asked; link locations).
 */
export type PageMarkdown = (page: ReadPage) => string | undefined;

export function toRevisionPage(page: ReadPage, urls: ContentUrls, parentPath = '', markdownOf?: PageMarkdown): RevisionPage {
  const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
  if (page.computed && !page.generated) return toComputedPage(page, urls, path);
  if (page.link) return toLinkPage(page);
  if (isGroupPage(page)) return toGroupPage(page, urls, path, markdownOf);
  return toDocumentPage(page, urls, path, markdownOf);
}

/** A group, as GitBook gives one: its slug, path, flags and pages; no URL, document or layout of its own. */
function toGroupPage(page: ReadPage, urls: ContentUrls, path: string, markdownOf?: PageMarkdown): RevisionPageGroup {
  return {
    id: page.id,
    title: page.title,
    ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
    kind: 'group',
    type: 'group',
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    slug: page.slug,
    path,
    ...pageFlags(page),
    // A group holds no group (batches refuse one inside another): its pages are documents, links and computed pages.
    pages: page.pages.map((child) => toRevisionPage(child, urls, path, markdownOf) as RevisionPageGroup['pages'][number]),
  };
}

/** A link page, as GitBook gives one: its target and `href`, no slug, path or document. */
function toLinkPage(page: ReadPage): RevisionPageLink {
  return {
    id: page.id,
    title: page.title,
    ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
    kind: 'link',
    type: 'link',
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    ...(page.link!.kind === 'url' ? { target: { kind: 'url' as const, url: page.link!.url }, href: page.link!.url } : { target: { kind: 'anchor' as const, page: page.link!.page, anchor: page.link!.anchor } }),
    hidden: page.hidden ?? false,
  };
}

/** The fields every page of a tree has, in GitBook's order (spread where they go: key order is what clients see). */
function pageMetadata(page: ReadPage, urls: ContentUrls, path: string) {
  return {
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    urls: { app: `${urls.app}/${path}` },
    slug: page.slug,
    path,
    ...(page.description ? { description: page.description } : {}),
  };
}

/** A page's visibility flags, false when unset. */
function pageFlags(page: ReadPage) {
  return { hidden: page.hidden ?? false, noIndex: page.noIndex ?? false, noRobotsIndex: page.noRobotsIndex ?? false };
}

/** A computed page as stored (read with computed=false). */
function toComputedPage(page: ReadPage, urls: ContentUrls, path: string): RevisionPageComputed {
  return {
    id: page.id,
    title: page.title,
    type: 'computed',
    computed: page.computed!,
    ...pageMetadata(page, urls, path),
    ...pageFlags(page),
  };
}

export function toDocumentPage(page: ReadPage, urls: ContentUrls, path: string, markdownOf?: PageMarkdown): RevisionPageDocument {
  const markdown = markdownOf?.(page);
  return {
    id: page.id,
    title: page.title,
    ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
    kind: 'sheet',
    type: 'document',
    ...pageMetadata(page, urls, path),
    layout: { ...LAYOUT_DEFAULTS, ...(page.layout ?? DEFAULT_LAYOUT) },
    ...(page.variables ? { variables: page.variables } : {}),
    ...pageFlags(page),
    ...(page.document ? { documentId: page.document } : {}),
    ...(markdown !== undefined ? { markdown } : {}),
    tags: [],
    ...(page.generated ? { computed: page.generated.computed, computedSeed: page.computedSeed ?? page.id } : {}),
    ...(page.git ? { git: { oid: page.git.oid, path: page.git.path } } : {}),
    pages: page.pages.map((child) => toRevisionPage(child, urls, path, markdownOf)),
  };
}

export function toRevisionFile(file: FileEntry, downloadURL: string): z.infer<typeof RevisionFileSchema> {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL,
    size: file.size,
    ...(file.dimensions ? { dimensions: file.dimensions } : {}),
    ...(file.git ? { git: { oid: file.git.oid, path: file.git.path } } : {}),
  };
}

/** The public revision type; the empty first revision of a space reads as `edits`. */
export function revisionType(row: Pick<RevisionRow, 'type'>): 'edits' | 'merge' | 'update' {
  return row.type === 'merge' || row.type === 'update' ? row.type : 'edits';
}

export function toRevision(
  row: Pick<RevisionRow, 'id' | 'parents' | 'createdAt' | 'type'>,
  manifest: Manifest,
  urls: ContentUrls,
  files: Array<z.infer<typeof RevisionFileSchema>>,
  mergedFrom?: Record<string, unknown>,
  markdownOf?: PageMarkdown,
): z.infer<typeof RevisionSchema> {
  return {
    object: 'revision',
    id: row.id,
    parents: row.parents,
    pages: manifest.pages.map((page) => toRevisionPage(page, urls, '', markdownOf)),
    files,
    tags: [],
    reusableContents: manifest.reusableContents.map(({ id, title, git }) => ({ id, title, ...(git ? { git: { oid: git.oid, path: git.path } } : {}) })),
    variables: manifest.variables,
    createdAt: row.createdAt,
    urls: { app: urls.app },
    type: revisionType(row),
    ...(mergedFrom ? { mergedFrom } : {}),
  };
}

export function toChangeRequest({ cr, creator, spaceRevision, orgId }: ChangeRequestWithContext, urls: UrlContext): ChangeRequest {
  return {
    object: 'change-request',
    id: cr.id,
    number: cr.number,
    status: cr.status as ChangeRequest['status'],
    subject: cr.subject,
    ...(cr.description ? { description: cr.description } : {}),
    createdBy: toUser(creator, urls),
    createdAt: cr.createdAt,
    updatedAt: cr.updatedAt,
    space: cr.spaceId,
    revision: cr.revisionId,
    revisionInitial: cr.revisionInitial,
    ...(cr.revisionMergedAncestor ? { revisionMergedAncestor: cr.revisionMergedAncestor } : {}),
    ...(cr.revisionMerged ? { revisionMerged: cr.revisionMerged } : {}),
    comments: cr.commentsCount,
    outdated: isOutdated(cr, spaceRevision),
    ...(cr.conversationsIssuesCluster ? { conversationsIssuesCluster: cr.conversationsIssuesCluster } : {}),
    urls: { app: changeRequestAppUrl(urls, orgId, cr.spaceId, cr.number), location: `${urls.api}/spaces/${cr.spaceId}/change-requests/${cr.id}` },
  };
}
