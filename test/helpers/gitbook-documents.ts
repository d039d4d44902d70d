import { expect } from 'vitest';
import { documentToMarkdown, markdownToDocument, parseDocument, withoutSourcePatch, type JSONDocument } from '../../src/services/markdown';
import { GITBOOK_0202, gitbookValidator } from './gitbook-schema';

const jsonDocumentValidator = gitbookValidator('JSONDocument', GITBOOK_0202.components);

/** Markdown read into a document that both our schema and GitBook's JSONDocument (@gitbook/api 0.202.0) accept. */
export function convertChecked(markdown: string, options: Parameters<typeof markdownToDocument>[1] = {}): JSONDocument {
  const { document } = markdownToDocument(markdown, options);
  const ours = parseDocument(document);
  expect(ours.success ? 'valid' : ours.error).toBe('valid');
  const theirs = jsonDocumentValidator.validate(document);
  expect(theirs.valid ? 'valid' : theirs.errors.slice(-5).map((e) => `${e.instanceLocation}: ${e.error}`)).toBe('valid');
  return document;
}

/** The document written again from its JSON alone (not from the source it was read from). */
export const writtenFromJson = (document: JSONDocument) => documentToMarkdown(withoutSourcePatch(document) as JSONDocument);
