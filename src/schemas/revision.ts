import { z } from '@hono/zod-openapi';
import { DEFAULT_LAYOUT, type FileEntry, type Manifest, type PageEntry, type RevisionRow } from '../services/revisions';
import { TimestampSchema } from './common';

const VariablesSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).openapi('Variables');

const ImageRefSchema = z.union([
  z.object({ kind: z.literal('file'), file: z.string(), space: z.string().optional() }),
  z.object({ kind: z.literal('url'), url: z.string() }),
]);

export const RevisionPageLayoutSchema = z
  .object({
    width: z.enum(['default', 'wide']),
    cover: z.boolean(),
    coverSize: z.enum(['hero', 'full']),
    coverMask: z.enum(['none', 'radial']),
    title: z.boolean(),
    description: z.boolean(),
    tableOfContents: z.boolean(),
    outline: z.boolean(),
    pagination: z.boolean(),
    metadata: z.boolean(),
    tags: z.boolean(),
    actions: z.boolean(),
    anchors: z.boolean(),
  })
  .openapi('RevisionPageLayoutOptions');
type RevisionPageLayout = z.infer<typeof RevisionPageLayoutSchema>;

/**
 * The layout options a stored page has no value for (pages store the nine of `DEFAULT_LAYOUT`, and no
 * input sets a layout yet): no mask on the cover; tags, page actions and heading anchors shown.
 */
const LAYOUT_DEFAULTS: Omit<RevisionPageLayout, keyof typeof DEFAULT_LAYOUT> = { coverMask: 'none', tags: true, actions: true, anchors: true };

/** A tag of a page: a reference to one of the revision's tags. No tags can be set in this deployment yet. */
const RevisionPageTagSchema = z
  .object({ tag: z.object({ kind: z.literal('tag'), tag: z.string(), space: z.string().optional() }), primary: z.boolean().optional() })
  .openapi('RevisionPageTag');

/** A tag available in a revision. No tags can be defined in this deployment yet: revisions list none. */
const RevisionTagSchema = z
  .object({ slug: z.string(), label: z.string(), color: z.string(), emoji: z.string().optional(), icon: z.string().optional() })
  .openapi('RevisionTag');

const pageFields = {
  id: z.string(),
  title: z.string(),
  kind: z.literal('sheet').openapi({ deprecated: true }),
  type: z.literal('document'),
  emoji: z.string().optional(),
  icon: z.string().optional(),
  createdAt: TimestampSchema.optional(),
  updatedAt: TimestampSchema.optional(),
  urls: z.object({ app: z.string() }),
  slug: z.string(),
  path: z.string().openapi({ description: 'Complete path to access the page in the revision' }),
  description: z.string().optional(),
  layout: RevisionPageLayoutSchema,
  cover: z.object({ ref: ImageRefSchema.optional(), refDark: ImageRefSchema.optional(), yPos: z.number(), height: z.number().optional() }).optional(),
  variables: VariablesSchema.optional(),
  hidden: z.boolean(),
  noIndex: z.boolean(),
  noRobotsIndex: z.boolean(),
  documentId: z.string().optional().openapi({ description: 'Content address of the page body; absent for an empty page' }),
  tags: z.array(RevisionPageTagSchema).openapi({ description: 'Tags of the page (none: tags cannot be set in this deployment yet)' }),
};

const PageFieldsSchema = z.object(pageFields);
export type RevisionPage = z.infer<typeof PageFieldsSchema> & { pages: RevisionPage[] };

export const RevisionPageSchema: z.ZodType<RevisionPage> = z
  .object({
    ...pageFields,
    get pages() {
      return z.array(RevisionPageSchema);
    },
  })
  .openapi('RevisionPageDocument');

/** A page read by id: the page, and its body as a document or as Markdown (`format`). */
export const RevisionPageWithContentSchema = z
  .object({
    ...pageFields,
    pages: z.array(RevisionPageSchema),
    document: z.record(z.string(), z.unknown()).optional().openapi({ description: 'The page body (format=document, the default)' }),
    markdown: z.string().optional().openapi({ description: 'The page body (format=markdown)' }),
  })
  .openapi('RevisionPageWithContent');

export const RevisionFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    contentType: z.string(),
    downloadURL: z.string().openapi({ description: 'Signed URL of this API that serves the bytes; it expires' }),
    size: z.number(),
    dimensions: z.object({ width: z.number(), height: z.number() }).optional(),
  })
  .openapi('RevisionFile');

export const RevisionSchema = z
  .object({
    object: z.literal('revision'),
    id: z.string(),
    parents: z.array(z.string()),
    pages: z.array(RevisionPageSchema),
    files: z.array(RevisionFileSchema),
    tags: z.array(RevisionTagSchema).openapi({ description: 'Tags available in the revision (none: tags cannot be defined in this deployment yet)' }),
    reusableContents: z.array(z.object({ id: z.string(), title: z.string() })),
    variables: VariablesSchema,
    createdAt: TimestampSchema,
    urls: z.object({ app: z.string(), published: z.string().optional(), public: z.string().optional() }),
    type: z.enum(['edits', 'merge', 'update']),
    mergedFrom: z.record(z.string(), z.unknown()).optional().openapi({ description: 'For a merge revision: the change request it merged' }),
  })
  .openapi('Revision');

/** Where page URLs point: the app's page of the space or of the change request. */
export interface ContentUrls {
  app: string;
}

export function toRevisionPage(page: PageEntry, urls: ContentUrls, parentPath = ''): RevisionPage {
  const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
  return {
    id: page.id,
    title: page.title,
    kind: 'sheet',
    type: 'document',
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    urls: { app: `${urls.app}/${path}` },
    slug: page.slug,
    path,
    ...(page.description ? { description: page.description } : {}),
    layout: { ...LAYOUT_DEFAULTS, ...(page.layout ?? DEFAULT_LAYOUT) },
    ...(page.variables ? { variables: page.variables } : {}),
    hidden: page.hidden ?? false,
    noIndex: page.noIndex ?? false,
    noRobotsIndex: page.noRobotsIndex ?? false,
    ...(page.document ? { documentId: page.document } : {}),
    tags: [],
    pages: page.pages.map((child) => toRevisionPage(child, urls, path)),
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
): z.infer<typeof RevisionSchema> {
  return {
    object: 'revision',
    id: row.id,
    parents: row.parents,
    pages: manifest.pages.map((page) => toRevisionPage(page, urls)),
    files,
    tags: [],
    reusableContents: manifest.reusableContents.map(({ id, title }) => ({ id, title })),
    variables: manifest.variables,
    createdAt: row.createdAt,
    urls: { app: urls.app },
    type: revisionType(row),
    ...(mergedFrom ? { mergedFrom } : {}),
  };
}
