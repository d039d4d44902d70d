import { z } from '@hono/zod-openapi';
import { badRequest } from '../lib/errors';
import { newId } from '../lib/ids';
import type { ContentChange } from '../services/content/batch';
import { OPENAPI_SPEC_SLUG_PATTERN } from '../lib/openapi-specs';
import { contentRefSchema, type ContentRef, type ContentRefOpenAPI } from '../services/markdown/document';
import { apiReference } from './api-reference';
import { changelog } from './changelog';
import { knowledgeBase } from './knowledge-base';
import { productDocs } from './product-docs';
import type { SpaceTemplateDefinition, TemplatePage } from './types';

type MarkdownReader = typeof import('../services/markdown/round-trip').markdownToDocument;

export type { SpaceTemplateDefinition, TemplatePage } from './types';

/**
 * The space templates this deployment ships, and how one becomes content: a template is applied as
 * one content batch of `insert_page` changes (its page tree, appended at the end of the top level),
 * run by the space's SpaceWriter on main content or on a change request like any other batch.
 *
 * GitBook's document (0.202.0) has no operation that lists space templates, so none is served: the
 * ids are listed in the description of the body's `id` (in /openapi.json).
 */
export const TEMPLATES: readonly SpaceTemplateDefinition[] = [productDocs, apiReference, changelog, knowledgeBase];

const byId = new Map(TEMPLATES.map((t) => [t.id, t]));

export function findTemplate(id: string): SpaceTemplateDefinition | undefined {
  return byId.get(id);
}


export const SpaceTemplateParamsSchema = z
  .object({
    contentRefs: z
      .record(z.string().min(1).max(100), contentRefSchema as z.ZodType<ContentRef>)
      .refine((refs) => Object.keys(refs).length <= 20, { message: 'at most 20 content references' })
      .optional()
      .openapi({
        description: "Content the template refers to, by name (GitBook's ContentRef): `api-reference` needs one `{ kind: 'openapi', spec: '<slug>' }`",
      }),
  })
  .openapi('SpaceTemplateParams', { description: 'Parameters for a space template' });

export const ApplySpaceTemplateSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(100)
      .openapi({ description: `The template to apply: ${TEMPLATES.map((t) => `\`${t.id}\``).join(', ')}` }),
    params: SpaceTemplateParamsSchema.optional(),
  })
  .openapi('ApplySpaceTemplate');

export type ApplySpaceTemplate = z.infer<typeof ApplySpaceTemplateSchema>;

/**
 * The content batch that adds a template's pages at the end of the top level, checked against its
 * params first (nothing is read or written for an unknown id or a missing reference). `field` is
 * where the template sits in the request body (`template` in createChangeRequest), for messages.
 */
export async function templateChanges(input: ApplySpaceTemplate, field = ''): Promise<ContentChange[]> {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const template = findTemplate(input.id);
  if (!template) {
    throw badRequest(`${at('id')}: unknown template "${input.id.slice(0, 100)}" (available: ${TEMPLATES.map((t) => t.id).join(', ')})`);
  }
  const spec = template.requires?.includes('openapi') ? openApiRef(input.params?.contentRefs, template.id, at('params.contentRefs')) : undefined;
  // The Markdown reader reads the titles of computed pages: loaded only by a template that has them.
  const markdownToDocument = spec ? (await import('../services/markdown/round-trip')).markdownToDocument : undefined;
  // Pages link to each other through batch refs; a fresh prefix keeps the refs clear of the paths of
  // pages the space already has (a ref may not name an existing page's path).
  const prefix = `template-${newId()}`;
  const ref = (key: string) => `${prefix}-${key}`;
  const changes: ContentChange[] = [];
  const add = (page: TemplatePage, parent?: string) => {
    changes.push({
      operation: 'insert_page',
      ref: ref(page.key),
      ...(parent !== undefined ? { into: ref(parent) } : {}),
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...pageDocument(page, ref, spec && markdownToDocument && { spec, markdownToDocument }),
    });
    for (const child of page.pages ?? []) add(child, page.key);
  };
  for (const page of template.pages) add(page);
  return changes;
}

/** The one OpenAPI specification the params name (any key; GitBook's ContentRef `{ kind: 'openapi', spec }`). */
function openApiRef(refs: Record<string, ContentRef> | undefined, templateId: string, field: string): ContentRefOpenAPI {
  const found = Object.entries(refs ?? {}).filter((entry): entry is [string, ContentRefOpenAPI] => entry[1].kind === 'openapi');
  if (found.length === 0) {
    throw badRequest(`${field}: the ${templateId} template needs a reference to an OpenAPI specification, { "kind": "openapi", "spec": "<slug>" }`);
  }
  if (new Set(found.map(([, r]) => r.spec)).size > 1) {
    throw badRequest(`${field}: the ${templateId} template takes one OpenAPI specification; ${found.length} different ones are given`);
  }
  const [key, ref] = found[0];
  if (ref.spec.length > 100 || !OPENAPI_SPEC_SLUG_PATTERN.test(ref.spec)) {
    throw badRequest(`${field}.${key}.spec: "${ref.spec.slice(0, 100)}" is not an OpenAPI specification slug (letters, digits and inner hyphens, at most 100)`);
  }
  return { kind: 'openapi', spec: ref.spec };
}

/** `](page:<key>)` and `](page:<key>#anchor)`: links between the pages of a template. */
const PAGE_LINK = /\]\(page:([a-z0-9-]+)(#[^)\s]*)?\)/g;

/**
 * The page's content. Markdown with its template links made batch refs (`./<ref>`), read by the batch
 * like any posted Markdown; a page computed from the OpenAPI specification has no document: its
 * Markdown gives its title and description, and its source names the specification as given.
 */
function pageDocument(
  page: TemplatePage,
  ref: (key: string) => string,
  computed: { spec: ContentRefOpenAPI; markdownToDocument: MarkdownReader } | undefined,
): Pick<Extract<ContentChange, { operation: 'insert_page' }>, 'document' | 'computed' | 'title' | 'description'> {
  const markdown = page.markdown.replace(PAGE_LINK, (_match, key: string, anchor: string | undefined) => `](./${ref(key)}${anchor ?? ''})`);
  if (!page.openapi || !computed) return { document: { markdown } };
  const converted = computed.markdownToDocument(markdown);
  return {
    computed: { type: 'builtin:openapi', dependencies: { spec: { ref: computed.spec } }, props: { ...page.openapi } },
    ...(converted.title !== undefined ? { title: converted.title } : {}),
    ...(converted.description !== undefined ? { description: converted.description } : {}),
  };
}
