import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { orgAgentInstructions } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, TimestampSchema, urlContext, type UrlContext } from '../../schemas/common';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PAGE_MARKDOWN_CHARS } from '../../services/content/batch';
import { readRichText } from '../../services/collaboration/bodies';
import type { JSONDocument } from '../../services/markdown';
import { checkOrganizationRole, organizationQuery, requireOrgRole, type OrganizationRow } from '../../services/organizations/organizations';

/**
 * An organization's instructions for docs agents: one rich-text document per organization. Members
 * with a role read them (guests, who only reach the spaces shared with them, do not: 403); admins
 * write them. Another organization's, like any organization the caller is not in, is a 404.
 */
const tags = ['Organizations'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });

const AgentInstructionsSchema = z
  .object({
    object: z.literal('agent-instructions'),
    instructions: z.record(z.string(), z.unknown()).openapi({ description: 'Document containing the Docs agent instructions (a rich-text document)' }),
    updatedAt: TimestampSchema,
    updatedBy: z.string().openapi({
      description: 'Identifier of the member who last updated the instructions; empty while nobody has (the instructions are then empty)',
    }),
    urls: z.object({ location: z.string().openapi({ description: 'URL of the resource in the API' }) }),
  })
  .openapi('OrganizationAgentInstructions');

const UpdateBody = z.object({
  instructions: z
    .union([
      z.record(z.string(), z.unknown()).openapi({ description: "A rich-text document (GitBook's JSONDocument)" }),
      z.string().openapi({ description: 'Markdown, converted the way page content is' }),
    ])
    .openapi({
      description: `The instructions: a rich-text document, or Markdown text. Limits are those of a page: ${MAX_PAGE_MARKDOWN_CHARS} characters of Markdown, ${MAX_DOCUMENT_BYTES} bytes and ${MAX_DOCUMENT_DEPTH} levels of JSON as a document. An empty document clears them.`,
    }),
});

const getRoute = defineRoute('get', '/orgs/{organizationId}/agent-instructions', () => ({
  operationId: 'getOrganizationAgentInstructions',
  tags,
  summary: "The organization's instructions for docs agents (members)",
  request: { params: OrgParams },
  responses: { 200: jsonResponse(AgentInstructionsSchema, 'The instructions') },
}));

const updateRoute = defineRoute('put', '/orgs/{organizationId}/agent-instructions', () => ({
  operationId: 'updateOrganizationAgentInstructions',
  tags,
  summary: "Replace the organization's instructions for docs agents (admins)",
  request: { params: OrgParams, ...jsonBody(UpdateBody) },
  responses: { 200: jsonResponse(AgentInstructionsSchema, 'Updated instructions') },
}));

type InstructionsRow = typeof orgAgentInstructions.$inferSelect;

const EMPTY_DOCUMENT: JSONDocument = { object: 'document', data: {}, nodes: [] };

/**
 * GitBook's GET answers the object whether or not instructions were ever written (its document has no
 * 404 for it). Until then they are truthfully empty, and have been since the organization exists: the
 * empty document, `updatedAt` the organization's creation, and `updatedBy` empty, as no member updated
 * them (naming the organization's creator or an admin would claim an edit nobody made).
 */
function toAgentInstructions(org: OrganizationRow, row: InstructionsRow | undefined, urls: UrlContext): z.infer<typeof AgentInstructionsSchema> {
  return {
    object: 'agent-instructions',
    instructions: row ? (JSON.parse(row.document) as Record<string, unknown>) : { ...EMPTY_DOCUMENT },
    updatedAt: row?.updatedAt ?? org.createdAt,
    updatedBy: row?.updatedBy ?? '',
    urls: { location: `${urls.api}/orgs/${org.id}/agent-instructions` },
  };
}

/** The posted instructions (a document, or Markdown), stored with the limits of a page; they may be empty. */
function readInstructions(input: string | Record<string, unknown>): string {
  const text = typeof input === 'string' ? { markdown: input } : { document: input };
  return readRichText(text, 'instructions', { markdownChars: MAX_PAGE_MARKDOWN_CHARS, documentBytes: MAX_DOCUMENT_BYTES, allowEmpty: true });
}

export const agentInstructionsRouter = createRouter()
  .openapi(getRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    const [orgRows, rows] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db.select().from(orgAgentInstructions).where(eq(orgAgentInstructions.orgId, organizationId)).limit(1),
    ]);
    const { org } = checkOrganizationRole(orgRows, RANK.read);
    return c.json(toAgentInstructions(org, rows[0], urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    const { org } = await requireOrgRole(db, organizationId, userId, RANK.admin);
    const document = readInstructions(c.req.valid('json').instructions);
    const now = nowIso();
    const row = await db
      .insert(orgAgentInstructions)
      .values({ orgId: org.id, document, updatedAt: now, updatedBy: userId })
      .onConflictDoUpdate({ target: orgAgentInstructions.orgId, set: { document, updatedAt: now, updatedBy: userId } })
      .returning()
      .get();
    return c.json(toAgentInstructions(org, row, urlContext(c.req.url, c.env.APP_URL)), 200);
  });
