import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { pageParams, ListQuerySchema, toPage } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { InstructionsSchema, TranslationLanguageSchema, TranslationSchema, TranslationSourceSchema, toTranslation } from '../../schemas/translation';
import {
  createTranslation,
  deleteTranslation,
  listTranslations,
  loadTranslation,
  readInstructions,
  requireEditable,
  startRun,
  translationAccess,
  translationNotFound,
  updateInstructions,
} from '../../services/translations/records';

/**
 * Translations of a space's main content into another language (services/translations). Access follows the
 * source space: members who may read it see the translation, and those of them with the organization's admin
 * or create role change, run and delete it. A translation the caller cannot see, or another organization's, is a 404.
 */
const tags = ['Translations'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const TranslationParams = OrgParams.extend({
  translationId: IdSchema('translationId').openapi({ description: 'The unique id of the translation' }),
});

const ACCESS =
  "Members who may read the source space see a translation; those of them with the organization's admin or create role change, run and delete it. The result space takes the source's access (defaultLevel, user and team grants), re-synced on each run.";

const listRoute = defineRoute('get', '/orgs/{organizationId}/translations', () => ({
  operationId: 'listTranslations',
  tags,
  summary: `List the translations the caller may see, oldest first. ${ACCESS}`,
  request: { params: OrgParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(TranslationSchema, 'Translations'), 'The translations') },
}));

const createRoute = defineRoute('post', '/orgs/{organizationId}/translations', () => ({
  operationId: 'createTranslation',
  tags,
  costly: 'content-writes',
  summary:
    "Create a translation of a space (admin or create role): its result space is created beside the source (same collection, the title suffixed with the language, `language` set, the source's defaultLevel, user and team grants) and a first run is queued. The source must be a space of the organization the caller may read, in another language than `language`; one translation per source and language (a second is a 400 naming the first).",
  request: {
    params: OrgParams,
    ...jsonBody(
      z.object({
        language: TranslationLanguageSchema,
        source: TranslationSourceSchema,
        instructions: InstructionsSchema.optional(),
      }),
    ),
  },
  responses: { 201: jsonResponse(TranslationSchema, 'Translation has been created, its first run pending') },
}));

const getRoute = defineRoute('get', '/orgs/{organizationId}/translations/{translationId}', () => ({
  operationId: 'getTranslation',
  tags,
  summary: `Get a translation by its ID. ${ACCESS}`,
  request: { params: TranslationParams },
  responses: { 200: jsonResponse(TranslationSchema, 'The translation') },
}));

const updateRoute = defineRoute('put', '/orgs/{organizationId}/translations/{translationId}', () => ({
  operationId: 'updateTranslation',
  tags,
  summary:
    "Replace a translation's instructions (admin or create role, and read access on the source). Later runs are given them; pages already translated are translated again only when their source changes, not because the instructions did.",
  request: { params: TranslationParams, ...jsonBody(z.object({ instructions: InstructionsSchema })) },
  responses: { 200: jsonResponse(TranslationSchema, 'Translation has been updated') },
}));

const deleteRoute = defineRoute('delete', '/orgs/{organizationId}/translations/{translationId}', () => ({
  operationId: 'deleteTranslation',
  tags,
  summary: 'Delete a translation (admin or create role, and read access on the source); its result space stays, as a normal space. 204 also when it did not exist.',
  request: { params: TranslationParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const runRoute = defineRoute('post', '/orgs/{organizationId}/translations/{translationId}/run', () => ({
  operationId: 'runTranslation',
  tags,
  costly: 'content-writes',
  summary:
    "Run a translation again (admin or create role, and read access on the source): the result space's access is re-synced from the source's; only pages whose source changed since they were last translated are translated; the others are kept. The result space's content is replaced by the translation of the source: edits made by hand in the result space are not kept by the next run (its history keeps them). While a run is pending or running this answers 204 and changes nothing: the run in progress continues, and no second run is queued.",
  request: { params: TranslationParams },
  responses: { 204: noContent('Translation run triggered, or one is in progress') },
}));

export const translationsRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const { orgRank, rows, total } = await listTranslations(c.get('db'), organizationId, userId, cursor, limit);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const page = toPage(
      rows,
      limit,
      total,
      (row) => [row.translation.createdAt, row.translation.id],
      (row) => toTranslation(row.translation, translationAccess(orgRank, row.sourceRank), urls),
    );
    return c.json(page, 200);
  })
  .openapi(createRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { row, orgRank, sourceRank } = await createTranslation(c, { orgId: organizationId, userId, language: body.language, source: body.source, instructions: body.instructions });
    return c.json(toTranslation(row, translationAccess(orgRank, sourceRank), urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(getRoute, async (c) => {
    const { organizationId, translationId } = c.req.valid('param');
    const { found } = await loadTranslation(c, organizationId, translationId);
    if (!found) throw translationNotFound();
    return c.json(toTranslation(found.translation, found.access, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateRoute, async (c) => {
    const { organizationId, translationId } = c.req.valid('param');
    const { instructions } = c.req.valid('json');
    const found = requireEditable(await loadTranslation(c, organizationId, translationId));
    const row = await updateInstructions(c.get('db'), found.translation.id, readInstructions(instructions));
    if (!row) throw translationNotFound();
    return c.json(toTranslation(row, found.access, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { organizationId, translationId } = c.req.valid('param');
    const loaded = await loadTranslation(c, organizationId, translationId);
    // Absent and invisible look the same (204); a member who sees it but may not change it is refused.
    if (loaded.found) await deleteTranslation(c.get('db'), requireEditable(loaded).translation.id);
    return c.body(null, 204);
  })
  .openapi(runRoute, async (c) => {
    const { organizationId, translationId } = c.req.valid('param');
    const found = requireEditable(await loadTranslation(c, organizationId, translationId));
    await startRun(c.env, c.get('db'), found.translation);
    return c.body(null, 204);
  });
