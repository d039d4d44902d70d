import { z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { runBatch, type BatchItem } from '../../db/client';
import { siteRedirects } from '../../db/schema';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { valuesOf } from '../../lib/sql-lists';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { isUniqueViolation } from '../../services/organizations/organizations';
import { loadSiteAsMember } from '../../services/sites/access';
import type { SiteModel } from '../../services/sites/model';
import { planBulkRedirects, type BulkItem } from '../../services/sites/redirects-bulk';
import {
  checkDestination,
  InputDestinationSchema,
  MAX_SITE_REDIRECTS,
  resolvePath,
  SourcePathSchema,
  type Destination,
  type PathDestination,
  type RedirectRow,
} from './redirects';
import { SiteParams } from './params';

/**
 * GitBook's bulkUpsertSiteRedirects: up to 500 redirect operations (create or update by source, delete with a
 * null destination, publish a draft), each answered on its own, all written in one batch. Admins of the site.
 */

const tags = ['Docs sites'];
/** Items per request, as GitBook's schema bounds them. */
export const MAX_BULK_REDIRECTS = 500;
/**
 * `path` destinations are resolved by reading the space's page tree, one read per distinct path: a request
 * may carry this many; more are refused (a `site-page` destination names the page without a read).
 */
export const MAX_BULK_PATH_DESTINATIONS = 20;

const PublishItem = z.object({ source: SourcePathSchema, intent: z.literal('publish').openapi({ description: 'Publish the draft redirect to live and remove the draft' }) });
const UpsertItem = z.object({
  source: SourcePathSchema,
  intent: z.enum(['live', 'draft']).optional().openapi({ description: 'live (default): the live redirect; draft: the draft one' }),
  captureWildcard: z.boolean().optional().openapi({ description: 'Append what the wildcard matched to the destination (default false)' }),
  permanent: z.boolean().optional(),
  destination: InputDestinationSchema.nullable().openapi({ description: 'null deletes the redirect of this source and intent' }),
});
const ItemSchema = z.union([PublishItem, UpsertItem]);

const ResultSchema = z
  .union([
    z.object({ status: z.enum(['created', 'updated', 'published']), source: z.string(), draft: z.boolean(), id: z.string() }),
    z.object({ status: z.literal('deleted'), source: z.string(), draft: z.boolean() }),
    z.object({ status: z.literal('error'), source: z.string(), draft: z.boolean(), error: z.string() }),
  ])
  .openapi('SiteRedirectBulkResult');

const bulkRoute = defineRoute('put', '/orgs/{organizationId}/sites/{siteId}/redirects', () => ({
  operationId: 'bulkUpsertSiteRedirects',
  tags,
  summary: `Create, update, delete or publish up to ${MAX_BULK_REDIRECTS} redirects at once (admins)`,
  description: `Items apply in order, each answered on its own (\`error\` leaves the others be); all changes are written together. At most ${MAX_SITE_REDIRECTS} redirects per site and ${MAX_BULK_PATH_DESTINATIONS} distinct \`path\` destinations per request.`,
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        redirects: z
          .array(ItemSchema)
          .min(1)
          .max(MAX_BULK_REDIRECTS, { error: `redirects: at most ${MAX_BULK_REDIRECTS} per request; send the rest in another` }),
      }),
    ),
  },
  responses: { 200: jsonResponse(z.object({ results: z.array(ResultSchema) }), 'The result of each item, in order') },
}));

type Item = z.infer<typeof ItemSchema>;
type PathInput = z.infer<typeof PathDestination>;

/** Each distinct `path` destination resolved once (to the site-page it names, or the error why not). */
async function resolvePaths(c: Context<AppBindings>, model: SiteModel, userId: string, items: Item[]): Promise<Map<string, Destination | Error>> {
  const wanted = new Map<string, PathInput>();
  for (const item of items) {
    if ('destination' in item && item.destination?.kind === 'path') wanted.set(JSON.stringify([item.destination.spaceId, item.destination.path]), item.destination);
  }
  if (wanted.size > MAX_BULK_PATH_DESTINATIONS) {
    throw badRequest(`redirects: at most ${MAX_BULK_PATH_DESTINATIONS} distinct "path" destinations per request; name pages as "site-page" destinations`);
  }
  const entries = await Promise.all(
    [...wanted].map(async ([key, input]): Promise<[string, Destination | Error]> => {
      try {
        return [key, await resolvePath(c, model, userId, input)];
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) return [key, new Error(error.message)];
        throw error;
      }
    }),
  );
  return new Map(entries);
}

/** An item as the plan takes it: its destination resolved and checked against the site. */
function toBulkItem(model: SiteModel, paths: Map<string, Destination | Error>, item: Item): BulkItem {
  if (item.intent === 'publish') return { source: item.source, intent: 'publish' };
  const input = item.destination;
  let destination: Destination | null | Error = input?.kind === 'path' ? paths.get(JSON.stringify([input.spaceId, input.path]))! : input;
  if (destination && !(destination instanceof Error)) {
    try {
      checkDestination(model, destination);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      destination = new Error(error.message);
    }
  }
  return { source: item.source, intent: item.intent ?? 'live', captureWildcard: item.captureWildcard, permanent: item.permanent, destination };
}

export const siteRedirectsBulkRouter = createRouter().openapi(bulkRoute, async (c) => {
  const userId = requireUser(c);
  const { organizationId, siteId } = c.req.valid('param');
  const { redirects } = c.req.valid('json');
  const db = c.get('db');
  const { model, extra } = await loadSiteAsMember<[RedirectRow[]]>(db, organizationId, siteId, userId, RANK.admin, [
    db.select().from(siteRedirects).where(eq(siteRedirects.siteId, siteId)),
  ]);
  const paths = await resolvePaths(c, model, userId, redirects);
  const items = redirects.map((item) => toBulkItem(model, paths, item));
  const plan = planBulkRedirects(siteId, extra[0], items, MAX_SITE_REDIRECTS, nowIso());
  const statements: BatchItem[] = [];
  if (plan.deleted.length) statements.push(db.delete(siteRedirects).where(sql`${siteRedirects.id} in ${valuesOf(plan.deleted)}`));
  for (const row of plan.updated) {
    const { id, siteId: _site, createdAt: _created, ...changes } = row;
    statements.push(db.update(siteRedirects).set(changes).where(eq(siteRedirects.id, id)));
  }
  for (const row of plan.inserted) statements.push(db.insert(siteRedirects).values(row));
  try {
    if (statements.length) await runBatch(db, statements);
  } catch (error) {
    // Another write to the site's redirects came between the read and this batch (which rolled back whole).
    if (isUniqueViolation(error, 'site_redirects.')) throw new ApiError(409, 'The redirects of the site changed while this request was applied; retry');
    throw error;
  }
  return c.json({ results: plan.results }, 200);
});
