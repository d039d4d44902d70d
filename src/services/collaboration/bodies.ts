import { badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { DEEP_MARKDOWN_LINE, MAX_DOCUMENT_DEPTH } from '../content/batch';
import { MarkdownConversionError, markdownToDocument, parseDocument, type JSONDocument } from '../markdown';
import { canonicalJson } from '../content/revisions';

/** Longest Markdown body of a comment, reply or review comment (characters). */
export const MAX_COMMENT_MARKDOWN_CHARS = 16 * 1024;
/** Largest body of a comment, reply or review comment, as a stored document (bytes of JSON). */
export const MAX_COMMENT_DOCUMENT_BYTES = 64 * 1024;

export type BodyInput = { markdown: string } | { document: Record<string, unknown> };

export interface RichTextLimits {
  markdownChars: number;
  documentBytes: number;
  /** Whether a text with nothing in it is accepted. */
  allowEmpty?: boolean;
}

/**
 * Posted rich text (comments, agent instructions) as the document that is stored (canonical JSON); 400s
 * name `field`. Markdown goes through the content's own converter, but rich text has no title or
 * frontmatter, so it is converted whole (a leading `# heading` stays a heading, a leading `---` block
 * stays text).
 */
export function readRichText(input: BodyInput, field: string, limits: RichTextLimits): string {
  let document: JSONDocument;
  if ('markdown' in input) {
    if (input.markdown.length > limits.markdownChars) throw badRequest(`${field}: the markdown is ${input.markdown.length} characters; the limit is ${limits.markdownChars}`);
    if (!limits.allowEmpty && input.markdown.trim() === '') throw badRequest(`${field}: the text is empty`);
    if (DEEP_MARKDOWN_LINE.test(input.markdown)) throw badRequest(`${field}: the Markdown is nested too deeply`);
    try {
      document = markdownToDocument(`---\ntitle: whole\n---\n${input.markdown}`).document;
    } catch (error) {
      if (error instanceof MarkdownConversionError || error instanceof RangeError) throw badRequest(`${field}: the Markdown cannot be read (nested too deeply?)`);
      throw error;
    }
  } else {
    if (jsonDepth(input.document, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw badRequest(`${field}: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    const parsed = parseDocument(input.document);
    if (!parsed.success) throw badRequest(`${field}: ${parsed.error}`);
    document = parsed.document;
    if (!limits.allowEmpty && document.nodes.length === 0) throw badRequest(`${field}: the text is empty`);
  }
  const body = canonicalJson(document);
  if (body.length > limits.documentBytes) throw badRequest(`${field}: ${body.length} bytes as a document; the limit is ${limits.documentBytes}`);
  return body;
}

/** A comment's, reply's or review comment's body (never empty). */
export function readBody(input: BodyInput, field = 'body'): string {
  return readRichText(input, field, { markdownChars: MAX_COMMENT_MARKDOWN_CHARS, documentBytes: MAX_COMMENT_DOCUMENT_BYTES });
}

const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}{2}|[0-9#*]\uFE0F?\u20E3)/u;
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** A reaction is one emoji: a single grapheme (skin tones, ZWJ sequences and flags included) that is an emoji. */
export function checkEmoji(value: string, field: string): string {
  const graphemes = [...segmenter.segment(value)];
  if (value.length > 64 || graphemes.length !== 1 || !EMOJI.test(value)) throw badRequest(`${field}: "${value.slice(0, 20)}" is not a single emoji`);
  return value;
}
