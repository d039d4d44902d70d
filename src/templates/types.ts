/**
 * What a space template is made of. Templates ship with the product as TypeScript modules holding
 * Markdown (one string per page), bundled by static imports: a Worker has no file system to read
 * `.md` files from at run time, and a string module needs no loader rule in wrangler, in the
 * vitest pool or in the benchmark's esbuild bundle.
 */

/** A kind of content reference a template asks for in `params.contentRefs` (GitBook's ContentRef kinds). */
export type TemplateContentRefKind = 'openapi';

export interface TemplatePage {
  /**
   * The page's name inside its template. Other pages of the template link to it with
   * `[text](page:<key>)` (or `page:<key>#anchor`); unique in the template.
   */
  key: string;
  /** GitBook's emoji form: the Unicode code point(s) in hex (`1f680`). */
  emoji?: string;
  /**
   * The page as Markdown, read the way content batches read it: the leading `# heading` is the
   * title, frontmatter `description` is the page's description. Write code fences with `~~~`.
   */
  markdown: string;
  /**
   * The page is an API reference computed from the OpenAPI specification given in `params.contentRefs`
   * (GitBook's `builtin:openapi` computed content, with these props): it has no document, so its
   * Markdown gives only its title (the heading) and description (frontmatter).
   */
  openapi?: { models: boolean; grouping?: 'by-tag' | 'by-operation' };
  pages?: TemplatePage[];
}

export interface SpaceTemplateDefinition {
  id: string;
  title: string;
  subtitle: string;
  /** GitBook's emoji form: the Unicode code point(s) in hex. */
  emoji: string;
  /** Content references the template needs in `params.contentRefs`, by kind. */
  requires?: TemplateContentRefKind[];
  /** The page tree the template adds, in order. */
  pages: TemplatePage[];
}
