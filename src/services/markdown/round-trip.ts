/**
 * Markdown -> document, keeping what the author wrote where our writing of it differs
 * (source-patch.ts explains why): the conversion of from-markdown.ts, then the document written back
 * once and compared with the source, line by line.
 */
import { readMarkdown, type MarkdownConversion, type MarkdownToDocumentOptions } from './from-markdown';
import { frontmatterKey, SOURCE_PATCH_KEY, sourceHunks, type SourcePatch } from './source-patch';
import { writeBody, writeHead } from './to-markdown';

export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownConversion {
  const read = readMarkdown(markdown, options);
  const { conversion, source, bodyStart, headingTitle } = read;
  const patch = sourcePatch(conversion, source, bodyStart, headingTitle);
  if (patch) conversion.document.data[SOURCE_PATCH_KEY] = patch;
  return conversion;
}

function sourcePatch(conversion: MarkdownConversion, source: string, bodyStart: number, headingTitle: string | null): SourcePatch | null {
  // A missing final newline is not kept: every file we write ends with one.
  const body = source.endsWith('\n') || bodyStart === source.length ? source.slice(bodyStart) : `${source.slice(bodyStart)}\n`;
  const hunks = sourceHunks(writeBody(conversion.document, undefined), body) ?? [];
  const sourceHead = source.slice(0, bodyStart);
  const hasFrontmatter = Object.keys(conversion.frontmatter).length > 0;
  const ourHead = writeHead(headingTitle ?? undefined, hasFrontmatter ? conversion.frontmatter : undefined);
  const sameHead = sourceHead === (ourHead && bodyStart < source.length ? `${ourHead}\n` : ourHead);
  if (hunks.length === 0 && sameHead) return null;
  const head = sameHead ? undefined : { text: sourceHead, title: headingTitle, frontmatter: frontmatterKey(conversion.frontmatter) };
  return { hunks, ...(head ? { head } : {}) };
}
