import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { requireUser } from '../../middleware/auth';
import { booleanQuery, IdSchema } from '../../schemas/common';
import { changeRequestPdf, MAX_PDF_CONTENT_PAGES } from '../../services/pdf/export';

/**
 * A change request's content as a PDF: a signed URL of this Worker, valid for an hour, that
 * downloads it. Reading needs the `read` role on the space. The PDF is rendered once per revision
 * and options and kept in R2 (services/pdf/export).
 */
const tags = ['Change requests'];

const Params = z.object({
  spaceId: IdSchema('spaceId'),
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});

const Query = z.object({
  only: booleanQuery(false, 'true: only the page named by `page` (which is then required); false: every page, in tree order'),
  page: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: 'ID of a page of the change request; a page that is not in it is a 400' }),
});

const PdfUrlSchema = z
  .object({
    url: z.string().openapi({ description: 'Temporary URL of the PDF, valid for one hour' }),
  })
  .openapi('ChangeRequestPDF');

const getPdfRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', () => ({
  operationId: 'getChangeRequestPDF',
  costly: 'exports',
  tokens: { scope: 'space:content:read' },
  tags,
  summary: "A temporary URL (valid for 1 hour) to download the change request's content as a PDF",
  description:
    `Every page in tree order, or one page with \`only=true&page=<id>\`. At most ${MAX_PDF_CONTENT_PAGES} pages are rendered: ` +
    'beyond, the PDF ends with a note saying how many pages were left out.',
  request: { params: Params, query: Query },
  responses: { 200: jsonResponse(PdfUrlSchema, 'URL of the PDF') },
}));

export const pdfRouter = createRouter().openapi(getPdfRoute, async (c) => {
  const { spaceId, changeRequestId } = c.req.valid('param');
  const { only, page } = c.req.valid('query');
  const result = await changeRequestPdf({
    db: c.get('db'),
    env: c.env,
    url: c.req.url,
    userId: requireUser(c),
    spaceId,
    changeRequest: changeRequestId,
    only,
    page,
  });
  return c.json(result, 200);
});
