import { z } from '@hono/zod-openapi';
import { OPENAPI_METHODS, OPENAPI_SPEC_SLUG_PATTERN } from '../lib/openapi-specs';
import { TimestampSchema } from './common';

/**
 * Revisions, their pages and files (GitBook's `Revision`, `RevisionPage*`, `RevisionFile`). Content is mapped in
 * services/content/presenter, which reads the content model's types (services/content/revisions).
 */

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

/** A tag of a page: a reference to one of the revision's tags. No tags can be set in this deployment yet. */
const RevisionPageTagSchema = z
  .object({ tag: z.object({ kind: z.literal('tag'), tag: z.string(), space: z.string().optional() }), primary: z.boolean().optional() })
  .openapi('RevisionPageTag');

/** A tag available in a revision. No tags can be defined in this deployment yet: revisions list none. */
const RevisionTagSchema = z
  .object({ slug: z.string(), label: z.string(), color: z.string(), emoji: z.string().optional(), icon: z.string().optional() })
  .openapi('RevisionTag');

/** GitBook's `ContentRefOpenAPI` as a computed page names its spec: an OpenAPISpecSlug of the space's organization. */
const SpecRefInputSchema = z
  .object({
    kind: z.literal('openapi'),
    spec: z
      .string()
      .min(1)
      .max(100)
      .regex(OPENAPI_SPEC_SLUG_PATTERN, { message: 'must be an OpenAPI specification slug (letters, digits and inner hyphens, at most 100)' }),
  })
  .strict();

/**
 * What a computed page is generated from (GitBook's `ComputedContentSourceRevisionOpenAPI`): an OpenAPI
 * spec of the space's organization, by slug. Pages are generated from its latest processed version
 * when the content is read with `computed=true`: one per tag (or per operation, `grouping: by-operation`)
 * and, with `models`, one for its schemas. The spec is not checked when the page is written: a spec
 * that does not exist (yet) or failed to process makes the page show what is wrong.
 */
export const ComputedRevisionSourceSchema = z
  .object({
    type: z.literal('builtin:openapi'),
    dependencies: z.object({ spec: z.object({ ref: SpecRefInputSchema }).strict() }).strict(),
    props: z
      .object({
        models: z.boolean().openapi({ description: 'Whether to generate a Models page with the schemas of the spec' }),
        downloadLink: z.boolean().optional().openapi({ description: 'Whether to show a link to download the OpenAPI spec' }),
        grouping: z
          .enum(['by-tag', 'by-operation'])
          .optional()
          .openapi({ description: 'by-tag (default): one page per tag listing its operations; by-operation: one page per operation under its tag' }),
      })
      .strict(),
  })
  .strict()
  .openapi('ComputedContentSourceRevisionOpenAPI');

const SpecDependencySchema = z.object({ spec: z.object({ ref: z.object({ kind: z.literal('openapi'), spec: z.string() }) }) });

/** What a generated page (or a computed page read with `computed=true`) was generated from (GitBook's `ComputedContentSourceDocumentOpenAPI`). */
export const ComputedDocumentSourceSchema = z
  .object({
    type: z.literal('builtin:openapi'),
    dependencies: SpecDependencySchema,
    props: z.union([
      z.object({ doc: z.literal('models') }),
      z.object({ doc: z.enum(['operations', 'info']), page: z.string() }),
      z.object({ doc: z.literal('operation'), page: z.string(), method: z.enum(OPENAPI_METHODS), deprecated: z.boolean().optional() }),
      z.object({ doc: z.literal('tag'), page: z.string() }),
    ]),
  })
  .openapi('ComputedContentSourceDocumentOpenAPI');

/** GitBook's `GitSyncBlob`: where Git Sync read a page, file or reusable content from. */
export const GitSyncBlobSchema = z
  .object({ oid: z.string().openapi({ description: 'SHA of the blob' }), path: z.string().openapi({ description: "Path of the blob from the repository's root" }) })
  .openapi('GitSyncBlob');

const pageFields = {
  id: z.string(),
  title: z.string(),
  linkTitle: z.string().optional().openapi({ description: 'Title of the page in the table of contents, pagination and links, where it differs from `title`' }),
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
  markdown: z.string().optional().openapi({
    description:
      'The page body as Markdown, as stored (not evaluated, not dereferenced; empty for an empty page), on every document page of a tree read: a revision, the page list, the child pages of a page read',
  }),
  tags: z.array(RevisionPageTagSchema).openapi({ description: 'Tags of the page (none: tags cannot be set in this deployment yet)' }),
  computed: ComputedDocumentSourceSchema.optional().openapi({ description: 'Set on a page generated by computed content (read with computed=true)' }),
  computedSeed: z.string().optional().openapi({ description: 'Seed of the ids of the generated pages' }),
  git: GitSyncBlobSchema.optional().openapi({ description: 'The file of the synced Git repository the page was last imported from (Git Sync)' }),
};

const PageFieldsSchema = z.object(pageFields);
export type RevisionPageDocument = z.infer<typeof PageFieldsSchema> & { pages: RevisionPage[] };

/** A computed page read with `computed=false`: its source, no document and no child pages (GitBook's RevisionPageComputed). */
export const RevisionPageComputedSchema = PageFieldsSchema.pick({
  id: true,
  title: true,
  emoji: true,
  icon: true,
  createdAt: true,
  updatedAt: true,
  urls: true,
  slug: true,
  path: true,
  description: true,
  hidden: true,
  noIndex: true,
  noRobotsIndex: true,
})
  .extend({ type: z.literal('computed'), computed: ComputedRevisionSourceSchema })
  .openapi('RevisionPageComputed');
export type RevisionPageComputed = z.infer<typeof RevisionPageComputedSchema>;

/**
 * A link page (GitBook's RevisionPageLink): an entry of the table of contents leading to a URL, as a SUMMARY.md
 * item with an external destination makes it. No slug, no path, no document, no child pages.
 */
export const RevisionPageLinkSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    linkTitle: z.string().optional(),
    kind: z.literal('link').openapi({ deprecated: true }),
    type: z.literal('link'),
    emoji: z.string().optional(),
    icon: z.string().optional(),
    createdAt: TimestampSchema.optional(),
    updatedAt: TimestampSchema.optional(),
    target: z
      .union([z.object({ kind: z.literal('url'), url: z.string() }), z.object({ kind: z.literal('anchor'), page: z.string(), anchor: z.string() })])
      .openapi({ description: 'Where the link leads (a ContentRef: a URL, or an anchor of a page of the space)' }),
    href: z.string().optional().openapi({ description: 'The URL the link leads to (a link to a URL)' }),
    hidden: z.boolean(),
  })
  .openapi('RevisionPageLink');
export type RevisionPageLink = z.infer<typeof RevisionPageLinkSchema>;

/**
 * A page group (GitBook's RevisionPageGroup): a section heading of the top level holding pages (documents, links,
 * computed pages), as a SUMMARY.md `## Title` writes it. Its slug is part of its pages' paths; it has no document.
 */
export interface RevisionPageGroup {
  id: string;
  title: string;
  linkTitle?: string;
  kind: 'group';
  type: 'group';
  emoji?: string;
  icon?: string;
  createdAt?: string;
  updatedAt?: string;
  slug: string;
  path: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  pages: Array<RevisionPageDocument | RevisionPageComputed | RevisionPageLink>;
}

export type RevisionPage = RevisionPageDocument | RevisionPageGroup | RevisionPageComputed | RevisionPageLink;

const RevisionPageDocumentSchema: z.ZodType<RevisionPageDocument> = z
  .object({
    ...pageFields,
    get pages() {
      return z.array(RevisionPageSchema);
    },
  })
  .openapi('RevisionPageDocument');

export const RevisionPageGroupSchema: z.ZodType<RevisionPageGroup> = z
  .object({
    id: z.string(),
    title: z.string(),
    linkTitle: z.string().optional(),
    kind: z.literal('group').openapi({ deprecated: true }),
    type: z.literal('group'),
    emoji: z.string().optional(),
    icon: z.string().optional(),
    createdAt: TimestampSchema.optional(),
    updatedAt: TimestampSchema.optional(),
    slug: z.string().openapi({ description: "Page's slug in its direct parent" }),
    path: z.string().openapi({ description: 'Complete path to access the page in the revision' }),
    hidden: z.boolean(),
    noIndex: z.boolean(),
    noRobotsIndex: z.boolean(),
    get pages() {
      return z.array(z.union([RevisionPageDocumentSchema, RevisionPageComputedSchema, RevisionPageLinkSchema]));
    },
  })
  .openapi('RevisionPageGroup');

/** A page of a tree: a document page (generated ones included), a group of the top level, a computed page when read with `computed=false`, or a link page. */
export const RevisionPageSchema: z.ZodType<RevisionPage> = z
  .union([RevisionPageDocumentSchema, RevisionPageGroupSchema, RevisionPageComputedSchema, RevisionPageLinkSchema])
  .openapi('RevisionPage');

/** A page read by id: the page, and its body as a document or as Markdown (`format`). */
export const RevisionPageWithContentSchema = z
  .object({
    ...pageFields,
    pages: z.array(RevisionPageSchema),
    document: z.record(z.string(), z.unknown()).optional().openapi({ description: 'The page body (format=document, the default)' }),
    markdown: z.string().optional().openapi({ description: 'The page body (format=markdown)' }),
  })
  .openapi('RevisionPageWithContent');

/** A page read by id: a document page with its body, or a group, a computed page (computed=false) or a link page without one. */
export const RevisionPageReadSchema = z.union([RevisionPageWithContentSchema, RevisionPageGroupSchema, RevisionPageComputedSchema, RevisionPageLinkSchema]);

export const RevisionFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    contentType: z.string(),
    downloadURL: z.string().openapi({ description: 'Signed URL of this API that serves the bytes; it expires' }),
    size: z.number(),
    dimensions: z.object({ width: z.number(), height: z.number() }).optional(),
    git: GitSyncBlobSchema.optional(),
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
    reusableContents: z.array(z.object({ id: z.string(), title: z.string(), git: GitSyncBlobSchema.optional() })),
    variables: VariablesSchema,
    createdAt: TimestampSchema,
    urls: z.object({ app: z.string(), published: z.string().optional(), public: z.string().optional() }),
    type: z.enum(['edits', 'merge', 'update']),
    mergedFrom: z.record(z.string(), z.unknown()).optional().openapi({ description: 'For a merge revision: the change request it merged' }),
    git: z
      .object({
        oid: z.string().openapi({ description: 'SHA of the commit' }),
        message: z.string(),
        createdByGitBook: z.boolean().openapi({ description: 'True when the commit was made by an export from this deployment' }),
        url: z.string().optional(),
        ref: z.string().optional(),
      })
      .optional()
      .openapi('GitSyncCommit', { description: 'The Git commit the revision was imported from or exported as (Git Sync)' }),
  })
  .openapi('Revision');

/** GitBook's RevisionReusableContent: a reusable content of a revision, `document` the id getDocumentById reads (none: empty). */
export const RevisionReusableContentSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    git: GitSyncBlobSchema.optional(),
    document: z.string().optional().openapi({ description: 'ID of the document with the content body (getDocumentById). If undefined, the reusable content is empty.' }),
  })
  .openapi('RevisionReusableContent');

/** GitBook's JSONDocument: a page's or a reusable content's body. */
export const JSONDocumentSchema = z
  .object({
    object: z.literal('document'),
    data: z.record(z.string(), z.unknown()),
    nodes: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi('JSONDocument');

export const RevisionPageMetaLinksSchema = z
  .object({
    canonical: z.record(z.string(), z.unknown()).optional(),
    alternates: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .openapi('RevisionPageMetaLinks', { description: 'Canonical and alternate links of a page (no page of this deployment sets any yet)' });

