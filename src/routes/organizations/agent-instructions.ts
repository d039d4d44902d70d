import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { orgAgentInstructions } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, TimestampSchema, urlContext, type UrlContext } from '../../schemas/common';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PAGE_MARKDOWN_CHARS } from '../../services/content-batch';
import { MarkdownConversionError, markdownToDocument, parseDocument, type JSONDocument } from '../../services/markdown';
import { checkOrganizationRole, organizationQuery, requireOrgRole, type OrganizationRow } from '../../services/organizations';
import { canonicalJson } from '../../services/revisions';

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

const getRoute = defineRoute({
  method: 'get',
  path: '/orgs/{organizationId}/agent-instructions',
  operationId: 'getOrganizationAgentInstructions',
  tags,
  summary: "The organization's instructions for docs agents (members)",
  request: { params: OrgParams },
  responses: { 200: jsonResponse(AgentInstructionsSchema, 'The instructions') },
});

const updateRoute = defineRoute({
  method: 'put',
  path: '/orgs/{organizationId}/agent-instructions',
  operationId: 'updateOrganizationAgentInstructions',
  tags,
  summary: "Replace the organization's instructions for docs agents (admins)",
  request: { params: OrgParams, ...jsonBody(UpdateBody) },
  responses: { 200: jsonResponse(AgentInstructionsSchema, 'Updated instructions') },
});

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

/** Leading run of indentation, quote and list markers on one line: Markdown nested about 100 levels (as content batches refuse). */
const DEEP_MARKDOWN_LINE = /^[ \t>*+\-0-9.)]{256}/m;

/**
 * The posted instructions as the document stored (canonical JSON), with the limits of a page. Markdown
 * has no title here: it is converted whole (a leading `# heading` stays a heading, a leading `---`
 * block stays text), as comment bodies are.
 */
function readInstructions(input: string | Record<string, unknown>): string {
  let document: JSONDocument;
  if (typeof input === 'string') {
    if (input.length > MAX_PAGE_MARKDOWN_CHARS) throw badRequest(`instructions: the markdown is ${input.length} characters; the limit is ${MAX_PAGE_MARKDOWN_CHARS}`);
    if (DEEP_MARKDOWN_LINE.test(input)) throw badRequest('instructions: the Markdown is nested too deeply');
    try {
      document = markdownToDocument(`---\ntitle: instructions\n---\n${input}`).document;
    } catch (error) {
      if (error instanceof MarkdownConversionError || error instanceof RangeError) throw badRequest('instructions: the Markdown cannot be read (nested too deeply?)');
      throw error;
    }
  } else {
    if (jsonDepth(input, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw badRequest(`instructions: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    const parsed = parseDocument(input);
    if (!parsed.success) throw badRequest(`instructions: ${parsed.error}`);
    document = parsed.document;
  }
  const body = canonicalJson(document);
  if (body.length > MAX_DOCUMENT_BYTES) throw badRequest(`instructions: ${body.length} bytes as a document; the limit is ${MAX_DOCUMENT_BYTES}`);
  return body;
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
