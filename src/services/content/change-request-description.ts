import { badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { parseDocument } from '../markdown/document';
import { MAX_DOCUMENT_DEPTH } from './document-limits';

/**
 * A change request's description as given: a rich-text document (400 naming `description` otherwise). Apart
 * from services/content/change-requests because validating a document takes zod, and the content reads that
 * the published site shares with the API (services/content/reads) import change-requests but never write one.
 */
export function readDescription(input: unknown): Record<string, unknown> {
  if (jsonDepth(input, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw badRequest(`description: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  const parsed = parseDocument(input);
  if (!parsed.success) throw badRequest(`description: ${parsed.error}`);
  return parsed.document as unknown as Record<string, unknown>;
}
