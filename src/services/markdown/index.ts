/**
 * Page content conversion between GitBook's rich-text document and Markdown, for the content engine.
 */
export * from './document';
export {
  BLOCK_TAG_NAMES,
  MarkdownConversionError,
  createPathLinkResolver,
  defaultResolveLink,
  linkedPagePath,
  readMarkdown,
  pageFrontmatter,
  layoutFrontmatter,
  type PageFrontmatter,
  type LinkResolver,
  type MarkdownConversion,
  type MarkdownToDocumentOptions,
  type PathLinkResolverOptions,
} from './from-markdown';
export { defaultHrefFor, documentToMarkdown, withEndingOf, type DocumentToMarkdownOptions } from './to-markdown';
export { beginsWithTitleHeading, markdownToDocument, withSourcePatchOf } from './round-trip';
export { PAGE_FIELD_FRONTMATTER_KEYS, SOURCE_PATCH_KEY, withoutSourcePatch } from './source-patch';
export { DEFAULT_PAGE_LAYOUT, type PageLayoutFrontmatter } from './page-layout';
