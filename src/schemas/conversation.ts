import { z } from '@hono/zod-openapi';
import { DAY_MS } from '../lib/time';
import { IMPACTS, PULSE_WEEKS } from '../lib/conversations';
import { TimestampSchema, refuseProtoKey } from './common';

/**
 * Conversations, their issues and the clusters of similar issues (GitBook 0.146's `ConversationInput`,
 * `Conversation`, `ConversationIssue`, `ConversationsIssuesCluster`). Rows are mapped in
 * services/conversations/presenter.
 */

/** Most conversations one ingestion request may carry. */
export const MAX_CONVERSATIONS_PER_REQUEST = 100;
export const MAX_CONVERSATION_ID_LENGTH = 255;
export const MAX_SUBJECT_LENGTH = 512;
export const MAX_PARTS_PER_CONVERSATION = 200;
/** Characters of one part's body. */
export const MAX_PART_BODY_LENGTH = 32_000;
/** Bytes of one conversation's parts as stored (JSON): D1 keeps a row under 2 MB. */
export const MAX_CONVERSATION_PARTS_BYTES = 1024 * 1024;
export const MAX_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_KEY_LENGTH = 100;
export const MAX_ATTRIBUTE_VALUE_LENGTH = 1_000;
export const MAX_URL_LENGTH = 2_048;

/** How far ahead of the server's clock `metadata.createdAt` may be: clocks of the sources drift, weeks of the pulse do not start tomorrow. */
export const MAX_CREATED_AT_AHEAD_MS = DAY_MS;
/**
 * The earliest `metadata.createdAt`: 1970-01-01T00:00:00Z. Years 0000 to 1969 are valid ISO 8601 but none is
 * a support conversation, and year 0000 given with an offset would be stored as the six-digit year -000001.
 */
export const MIN_CREATED_AT_MS = 0;

export const ConversationImpactSchema = z.enum(IMPACTS).openapi('ConversationImpact', {
  description: '`low`: minor friction; `medium`: noticeable friction, workarounds exist; `high`: blocking or near-blocking, no workaround',
});

export const ConversationSourceSchema = z.string().openapi('ConversationSource', {
  description: '`api` when a user API token ingested the conversation, `integration:<integration name>:<installation id>` when an installation token did',
  example: 'integration:intercom:inst_123',
});

export const ConversationPartMessageSchema = z
  .object({
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'team-member']).openapi({ description: 'Who wrote it; only messages of `user` are analysed' }),
    body: z.string().min(1).max(MAX_PART_BODY_LENGTH).openapi({ description: `Markdown or HTML body of the message (at most ${MAX_PART_BODY_LENGTH} characters)` }),
  })
  .openapi('ConversationPartMessage', { description: 'A message posted in the conversation by a user or a team member.' });

export const ConversationPartSchema = z.discriminatedUnion('type', [ConversationPartMessageSchema]).openapi('ConversationPart');
export type ConversationPart = z.infer<typeof ConversationPartSchema>;

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const AttributesSchema = z
  .preprocess(
    refuseProtoKey('an attribute'),
    z
      .record(z.string().min(1).max(MAX_ATTRIBUTE_KEY_LENGTH), z.string().max(MAX_ATTRIBUTE_VALUE_LENGTH))
      .refine((attributes) => Object.keys(attributes).length <= MAX_ATTRIBUTES, { error: `has more than ${MAX_ATTRIBUTES} attributes` }),
  )
  .openapi({
    description: `Free-form attributes (at most ${MAX_ATTRIBUTES}, names of 1 to ${MAX_ATTRIBUTE_KEY_LENGTH} characters, values of at most ${MAX_ATTRIBUTE_VALUE_LENGTH})`,
  });

export const ConversationMetadataSchema = z
  .object({
    url: z
      .string()
      .max(MAX_URL_LENGTH)
      .refine(isHttpUrl, { error: 'must be an absolute http(s) URL' })
      .optional()
      .openapi({ description: `Where the conversation is in its source (an http(s) URL of at most ${MAX_URL_LENGTH} characters)` }),
    attributes: AttributesSchema.optional(),
    createdAt: z.iso
      // `abort`: a value that is no date-time is not judged as a time too.
      .datetime({ offset: true, abort: true, error: 'must be an ISO 8601 date-time, such as 2026-01-31T09:30:00Z' })
      .refine((value) => Date.parse(value) >= MIN_CREATED_AT_MS, { error: 'is before 1970-01-01T00:00:00Z' })
      .refine((value) => Date.parse(value) <= Date.now() + MAX_CREATED_AT_AHEAD_MS, { error: 'is more than a day in the future' })
      .optional()
      .openapi({
        description:
          'When the conversation took place (ISO 8601, stored in UTC): the week it counts in for the weekly pulse of its clusters. Not before 1970-01-01T00:00:00Z, at most a day ahead of the server clock; the ingestion time when absent',
      }),
  })
  .openapi('ConversationMetadata');
export type ConversationMetadata = z.infer<typeof ConversationMetadataSchema>;

const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

export const ConversationInputSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(MAX_CONVERSATION_ID_LENGTH)
      .openapi({ description: 'The unique identifier for the conversation, relative to the source in which it was created: ingesting it again updates it.' }),
    metadata: ConversationMetadataSchema.optional(),
    subject: z.string().max(MAX_SUBJECT_LENGTH).optional().openapi({ description: 'The subject of the conversation.' }),
    parts: z
      .array(ConversationPartSchema)
      .min(1)
      .max(MAX_PARTS_PER_CONVERSATION)
      .openapi({ description: `The messages, in order (1 to ${MAX_PARTS_PER_CONVERSATION}, at most ${MAX_CONVERSATION_PARTS_BYTES} bytes as JSON)` }),
  })
  .superRefine((input, ctx) => {
    // Only a conversation that could be too large is encoded: a character is at most 6 bytes of JSON (\u0000).
    const chars = input.parts.reduce((sum, part) => sum + part.body.length, 0);
    if (chars * 6 + input.parts.length * 64 > MAX_CONVERSATION_PARTS_BYTES && utf8Bytes(JSON.stringify(input.parts)) > MAX_CONVERSATION_PARTS_BYTES) {
      ctx.addIssue({ code: 'custom', path: ['parts'], message: `are larger than ${MAX_CONVERSATION_PARTS_BYTES} bytes as JSON` });
    }
  })
  .openapi('ConversationInput');
export type ConversationInput = z.infer<typeof ConversationInputSchema>;

/** Where each id first appears: a second input with an id already seen is refused, naming both. */
function refuseDuplicateIds(inputs: ConversationInput[], ctx: z.RefinementCtx) {
  const seen = new Map<string, number>();
  inputs.forEach((input, index) => {
    const first = seen.get(input.id);
    if (first === undefined) seen.set(input.id, index);
    else ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `is the id of [${first}] too: each conversation appears once per request` });
  });
}

export const ConversationInputListSchema = z
  .array(ConversationInputSchema)
  .min(1, { error: `give 1 to ${MAX_CONVERSATIONS_PER_REQUEST} conversations` })
  .max(MAX_CONVERSATIONS_PER_REQUEST, { error: `give at most ${MAX_CONVERSATIONS_PER_REQUEST} conversations per request` })
  .superRefine(refuseDuplicateIds);

/** `ingestConversation`'s body: one conversation, or an array of them. */
export const IngestBodySchema = z.union([ConversationInputSchema, ConversationInputListSchema]).openapi({
  description: `One conversation, or an array of 1 to ${MAX_CONVERSATIONS_PER_REQUEST} (ids unique within the request)`,
});

export const ConversationSchema = z
  .object({
    object: z.literal('conversation'),
    id: z.string().openapi({ description: 'The ID of the conversation (in this API; the id it was ingested with is relative to its source)' }),
    subject: z.string().optional(),
    createdAt: TimestampSchema.openapi({ description: 'When it was first ingested' }),
    processedAt: TimestampSchema.optional().openapi({ description: 'When the analysis of its content last completed' }),
    source: ConversationSourceSchema,
    // The highest impact of its issues; absent when none was found, or before analysis. (A description here
    // would replace the registered enum's.)
    impact: ConversationImpactSchema.optional(),
    urls: z.object({
      location: z.string().openapi({ format: 'uri', description: 'URL of the conversation in the API' }),
      source: z.string().optional().openapi({ format: 'uri', description: 'URL of the conversation in the source (`metadata.url`)' }),
    }),
  })
  .openapi('Conversation');
export type Conversation = z.infer<typeof ConversationSchema>;

export const ConversationDetailSchema = z
  .object({ conversation: ConversationSchema, parts: z.array(ConversationPartSchema), metadata: ConversationMetadataSchema })
  .openapi('ConversationDetail', { description: 'A conversation with its messages and metadata' });

const DocumentSchema = z.record(z.string(), z.unknown()).openapi({ description: 'Rich-text document' });

export const ConversationIssueSchema = z
  .object({
    object: z.literal('conversation-issue'),
    id: z.string(),
    title: z.string(),
    summary: z.string().openapi({ description: 'Plain text of `details`' }),
    details: DocumentSchema,
    impact: ConversationImpactSchema,
    createdAt: TimestampSchema.openapi({ description: "When the problem was raised (the conversation's `metadata.createdAt`, else its ingestion)" }),
    ingestedAt: TimestampSchema.openapi({ description: 'When the analysis found it' }),
    conversation: z.string().openapi({ description: 'The ID of the conversation the issue belongs to' }),
    cluster: z.string().openapi({ description: 'The ID of the cluster the issue has been linked to' }),
    urls: z.object({ location: z.string().openapi({ format: 'uri', description: 'URL of the conversation issue in the API' }) }),
  })
  .openapi('ConversationIssue');
export type ConversationIssue = z.infer<typeof ConversationIssueSchema>;

export const ConversationIssueWithConversationSchema = z
  .object({ issue: ConversationIssueSchema, conversation: ConversationSchema })
  .openapi('ConversationIssueWithConversation');

const count = (description: string) => z.number().int().min(0).openapi({ description });

export const ConversationsIssuesClusterSchema = z
  .object({
    object: z.literal('issues-cluster'),
    id: z.string(),
    label: z.string(),
    icon: z.string().max(50).openapi({ description: 'Name of the icon' }),
    summary: DocumentSchema,
    muted: z.boolean().openapi({ description: 'Muted for change request creation: no new change request may name it' }),
    impact: ConversationImpactSchema.openapi({ description: 'The highest impact of its issues raised in the weeks of `weeklyPulse` (`low` when none)' }),
    weeklyPulse: z
      .array(z.number().int().min(0))
      .length(PULSE_WEEKS)
      .openapi({
        description: `Conversations per week over the last ${PULSE_WEEKS} weeks (weeks start on Monday 00:00 UTC), the current week last, counted by when each issue was raised`,
      }),
    sources: z.record(z.string(), z.number()).openapi({ description: 'Issues per conversation source' }),
    stats: z.object({
      issues: count('Issues in the cluster'),
      conversations: count('Conversations with an issue in the cluster'),
      tasksTotal: count('Change requests naming the cluster'),
      tasksBacklog: count('Of them, drafts'),
      tasksStarted: count('Of them, open'),
      tasksCompleted: count('Of them, merged'),
      tasksCancelled: count('Of them, archived'),
    }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    urls: z.object({
      location: z.string().openapi({ format: 'uri', description: 'URL of the cluster in the API' }),
      app: z.string().openapi({ format: 'uri', description: 'URL of the cluster in the application' }),
    }),
  })
  .openapi('ConversationsIssuesCluster');
export type ConversationsIssuesCluster = z.infer<typeof ConversationsIssuesClusterSchema>;

/** A field path as a client writes it: `[3].parts[0].body` in an array body, `parts[0].body` in one conversation. */
export function formatIngestPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? String(segment) : `.${String(segment)}`;
  return out || 'body';
}

/**
 * The 400 message of an invalid ingestion body, naming each offending field. The body is one conversation
 * or an array: of the union's two sets of issues, the ones of the shape the client sent are shown.
 */
export function describeIngestError(error: z.ZodError, input: unknown): string {
  let issues: z.core.$ZodIssue[] = error.issues;
  const [first] = issues;
  if (issues.length === 1 && first.code === 'invalid_union' && first.path.length === 0) {
    const isObject = input !== null && typeof input === 'object' && !Array.isArray(input);
    if (!Array.isArray(input) && !isObject) return `Invalid body: give a conversation input, or an array of 1 to ${MAX_CONVERSATIONS_PER_REQUEST} of them`;
    issues = first.errors[Array.isArray(input) ? 1 : 0] ?? issues;
  }
  const parts = issues.slice(0, 5).map((issue) => `${formatIngestPath(issue.path)}: ${issue.message}`);
  return `Invalid body: ${parts.join('; ')}`;
}
