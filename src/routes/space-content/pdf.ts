import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { requireUser } from '../../middleware/auth';
import { booleanQuery, IdSchema } from '../../schemas/common';
import { contentPdf, MAX_PDF_CONTENT_PAGES } from '../../services/pdf/export';

/**
 * The space's current content as a PDF (GitBook's getSpacePDF): a signed URL of this Worker, valid for an hour.
 * Reading needs the `read` role on the space. Rendered once per revision and options, kept in R2 (services/pdf/export),
 * like a change request's (routes/change-requests/pdf).
 */
const Query = z.object({
  only: booleanQuery(false, 'true: only the page named by `page` (which is then required); false: every page, in tree order'),
  page: z.string().min(1).max(128).optional().openapi({ description: 'ID of a page of the space; a page that is not in it is a 400' }),
});

const getSpacePdfRoute = defineRoute('get', '/spaces/{spaceId}/pdf', () => ({
  operationId: 'getSpacePDF',
  costly: 'exports',
  tokens: { scope: 'space:content:read' },
  tags: ['Space content'],
  summary: "A temporary URL (valid for 1 hour) to download the space's content as a PDF",
  description: `Every page in tree order, or one page with \`only=true&page=<id>\`. At most ${MAX_PDF_CONTENT_PAGES} pages are rendered: beyond, the PDF ends with a note saying how many pages were left out.`,
  request: { params: z.object({ spaceId: IdSchema('spaceId') }), query: Query },
  responses: { 200: jsonResponse(z.object({ url: z.string().openapi({ description: 'Temporary URL of the PDF, valid for one hour' }) }).openapi('SpacePDF'), 'URL of the PDF') },
}));

export const spacePdfRouter = createRouter().openapi(getSpacePdfRoute, async (c) => {
  const { only, page } = c.req.valid('query');
  const request = { db: c.get('db'), env: c.env, url: c.req.url, userId: requireUser(c), spaceId: c.req.valid('param').spaceId, only, page };
  return c.json(await contentPdf(request), 200);
});
