import { z } from '@hono/zod-openapi';
import { spaceWriter, throughWriter } from '../../durable-objects/space-writer';
import { auditForWriter } from '../../services/audit/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import { changeRequestMatch, changeRequestQuery, loadChangeRequest, type ChangeRequestWithContext } from '../../services/content/change-requests';
import { importWebsite } from '../../services/import/website';
import { capOf } from '../../services/limits/caps';

/** Imports content from outside into a change request, as one content batch (one new revision). */
const tags = ['Change request content'];
const Params = z.object({
  spaceId: IdSchema('spaceId'),
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});

/** GitBook's `ImportContentSource`: only `website` is imported by this deployment. */
const SOURCES = ['website', 'docx', 'markdown', 'html', 'zip', 'confluence', 'github-wiki', 'notion', 'google-docs'] as const;
const SourceType = z.enum(SOURCES);
const ImportUrl = z.string().trim().min(1).max(2048).openapi({ format: 'uri', description: 'URL of the content to import (http or https)' });

const ImportContentBody = z
  .object({
    url: ImportUrl.optional().openapi({ description: 'URL of the content to import (required unless given as `source.url`)' }),
    source: z.union([
      SourceType.openapi({ description: 'Kind of content: only `website` is supported' }),
      z.object({ type: SourceType, url: ImportUrl.optional() }).openapi({ description: 'Also accepted: `{type, url}`' }),
    ]),
  })
  .openapi('ImportContent', { description: "GitBook's `{url, source: 'website'}`; `{source: {type: 'website', url}}` is also accepted" });

const ImportContentResultSchema = z
  .object({
    revision: z.string().openapi({ description: 'The new revision of the change request' }),
    importedResources: z.number().int().openapi({ description: 'Pages and files imported' }),
    totalResources: z.number().int().openapi({ description: 'Pages and images found (some may be beyond the limits of one import)' }),
  })
  .openapi('ImportContentResult');

const importContentRoute = defineRoute('post', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/import', () => ({
  operationId: 'importContentInChangeRequest',
  costly: 'content-writes',
  tokens: { scope: 'space:content:write' },
  tags,
  summary: 'Import a website into the change request (at most 20 pages and 40 images), as one new revision',
  description:
    'Crawls the pages under the URL (same origin and path prefix, breadth first), converts their main content to Markdown and adds them ' +
    'with their images as one content batch. Addresses that are private, loopback, link-local or otherwise internal are refused (400).',
  request: { params: Params, ...jsonBody(ImportContentBody) },
  responses: {
    201: {
      ...jsonResponse(ImportContentResultSchema, 'Content imported in a new revision'),
      headers: z.object({ Location: z.string().openapi({ description: 'API URL of the change request content (its new revision)' }) }),
    },
  },
}));

export const importRouter = createRouter().openapi(importContentRoute, async (c) => {
  const userId = requireUser(c);
  const { spaceId, changeRequestId } = c.req.valid('param');
  const body = c.req.valid('json');
  const type = typeof body.source === 'string' ? body.source : body.source.type;
  const url = body.url ?? (typeof body.source === 'string' ? undefined : body.source.url);
  if (type !== 'website') throw badRequest(`source: "${type}" imports are not supported by this deployment; only "website" is`);
  if (!url) throw badRequest('url: Required');
  const db = c.get('db');
  const { cr } = (await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.edit)).row;
  // Images over the deployment's cap on a file are left out (their URL kept), not refused: the import keeps what fits.
  const imported = await importWebsite(c.env, url, { limits: { maxImageBytes: capOf(c.env, 'bytesPerFile') } });
  await throughWriter(spaceWriter(c.env, spaceId).applyContent({ spaceId, changeRequestId: cr.id, userId }, imported.changes, auditForWriter(c)), c);
  const updated = (await changeRequestQuery(db, changeRequestMatch(spaceId, cr.id)).get()) as ChangeRequestWithContext;
  c.header('Location', `${new URL(c.req.url).origin}/v1/spaces/${spaceId}/change-requests/${cr.id}/content`);
  return c.json({ revision: updated.cr.revisionId, importedResources: imported.importedResources, totalResources: imported.totalResources }, 201);
});
