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
  markdownToDocument,
  pageFrontmatter,
  type PageFrontmatter,
  type LinkResolver,
  type MarkdownConversion,
  type MarkdownToDocumentOptions,
  type PathLinkResolverOptions,
} from './from-markdown';
export { defaultHrefFor, documentToMarkdown, type DocumentToMarkdownOptions } from './to-markdown';
