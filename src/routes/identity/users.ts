import { z } from '@hono/zod-openapi';
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { selectOfShape } from '../../db/client';
import { users } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { requireOperator, requireUser } from '../../middleware/auth';
import { SITE_TOKEN_REFUSED } from '../../services/sites/site-token';
import { IdSchema, urlContext } from '../../schemas/common';
import { CreatedApiTokenSchema, UserSchema, toUser } from '../../schemas/user';
import { createUser, issueToken, normalizeEmail } from '../../services/identity/users';
import { toApiToken } from './token-json';

const getAuthenticatedUserRoute = defineRoute('get', '/user', () => ({
  operationId: 'getAuthenticatedUser',
  tokens: { scope: 'installation' },
  tags: ['Users'],
  summary: 'Get the user owning the API token',
  responses: { 200: jsonResponse(UserSchema, 'The calling user') },
}));

const CreateUserBody = z.object({
  displayName: z.string().trim().min(1).max(64),
  email: z.email().max(254),
  emailVerified: z.boolean().optional().openapi({ description: 'Whether the operator vouches for the email (default true)' }),
  photoURL: z.httpUrl().max(2048).optional(),
});

const createUserRoute = defineRoute('post', '/users', () => ({
  operationId: 'createUser',
  tags: ['Users'],
  summary: 'Create a user (operator only)',
  description: 'Needs the operator token. Invitations held for the email become memberships when the email is verified.',
  request: jsonBody(CreateUserBody),
  responses: { 201: jsonResponse(UserSchema, 'The created user'), 409: jsonResponse(z.any(), 'A user with this email exists') },
}));

const getUserRoute = defineRoute('get', '/users/{userId}', () => ({
  operationId: 'getUserById',
  tags: ['Users'],
  summary: 'Get a user (yourself, someone you share an organization with, or anyone for the operator)',
  request: { params: z.object({ userId: IdSchema('userId') }) },
  responses: { 200: jsonResponse(UserSchema, 'The user') },
}));

const UpdateUserBody = z
  .object({
    displayName: z.string().trim().min(1).max(64).optional().openapi({ description: 'Full name for the user' }),
    photoURL: z.httpUrl().max(2048).optional().openapi({ description: "URL of the user's profile picture" }),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'Give at least one of displayName and photoURL' });

const updateUserRoute = defineRoute('patch', '/users/{userId}', () => ({
  operationId: 'updateUserById',
  tags: ['Users'],
  summary: "Update a user's name or picture (the user themself, or the operator)",
  description: 'Someone who shares an organization with the user gets 403; anyone else 404, as for reading the user.',
  request: { params: z.object({ userId: IdSchema('userId') }), ...jsonBody(UpdateUserBody) },
  responses: { 200: jsonResponse(UserSchema, 'The updated user') },
}));

const CreateTokenBody = z.object({ label: z.string().trim().min(1).max(100).optional() });

const createUserTokenRoute = defineRoute('post', '/users/{userId}/tokens', () => ({
  operationId: 'createUserToken',
  tags: ['Users'],
  summary: 'Issue an API token for a user (operator only)',
  request: { params: z.object({ userId: IdSchema('userId') }), body: { required: false, content: { 'application/json': { schema: CreateTokenBody } } } },
  responses: { 201: jsonResponse(CreatedApiTokenSchema, 'The token; `token` is shown only once') },
}));

/** The users `callerId` shares an organization with: those whose accounts they may see. */
const sharesAnOrganizationWith = (callerId: string) =>
  sql`exists (select 1 from org_members mine join org_members theirs on theirs.org_id = mine.org_id
    where mine.user_id = ${callerId} and theirs.user_id = ${users.id})`;

export const usersRouter = createRouter()
  .openapi(getAuthenticatedUserRoute, async (c) => {
    const userId = requireUser(c);
    // Built once per isolate (db/client `selectOfShape`): a client's first call, and a frequent one.
    const row = await selectOfShape('authenticatedUser', c.get('db').select().from(users).where(eq(users.id, sql.placeholder('userId'))), { userId }).get();
    if (!row) throw new ApiError(401, 'Invalid or revoked API token');
    return c.json(toUser(row, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(createUserRoute, async (c) => {
    requireOperator(c);
    const body = c.req.valid('json');
    const db = c.get('db');
    const email = normalizeEmail(body.email);
    // Only a normal account owns its email: an SSO user of the same email is its provider's identity, not a conflict.
    const existing = await db.select({ id: users.id }).from(users).where(and(eq(users.email, email), isNull(users.ssoProviderId))).get();
    if (existing) throw new ApiError(409, `A user with email ${email} already exists`);
    const { row } = await createUser(c.env, db, { ...body, email, emailVerified: body.emailVerified ?? true });
    return c.json(toUser(row, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(getUserRoute, async (c) => {
    const actor = c.get('actor');
    if (actor.kind === 'visitor') throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
    if (actor.kind === 'site') throw new ApiError(403, SITE_TOKEN_REFUSED);
    const { userId } = c.req.valid('param');
    // The operator sees every account; a user sees themselves and those they share an organization
    // with, so nobody else learns that an account (or its email) exists.
    const visible = actor.kind === 'operator' ? undefined : or(eq(users.id, actor.userId), sharesAnOrganizationWith(actor.userId));
    const row = await c.get('db').select().from(users).where(and(eq(users.id, userId), visible)).get();
    if (!row) throw new ApiError(404, 'User not found');
    return c.json(toUser(row, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateUserRoute, async (c) => {
    const actor = c.get('actor');
    if (actor.kind === 'visitor') throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
    if (actor.kind === 'site') throw new ApiError(403, SITE_TOKEN_REFUSED);
    const { userId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const callerId = actor.kind === 'operator' ? null : requireUser(c);
    // The write applies only to the caller's own account (any account for the operator); read in the same round
    // trip, whether the caller may see the user tells a refusal (403) from a user they cannot know of (404).
    const [updated, visible] = await db.batch([
      db
        .update(users)
        .set(body)
        .where(and(eq(users.id, userId), callerId === null ? undefined : eq(users.id, callerId)))
        .returning(),
      db.select({ id: users.id }).from(users).where(and(eq(users.id, userId), callerId === null ? undefined : sharesAnOrganizationWith(callerId))),
    ]);
    if (updated[0]) return c.json(toUser(updated[0], urlContext(c.req.url, c.env.APP_URL)), 200);
    if (visible[0]) throw new ApiError(403, 'You can only update your own account');
    throw new ApiError(404, 'User not found');
  })
  .openapi(createUserTokenRoute, async (c) => {
    requireOperator(c);
    const { userId } = c.req.valid('param');
    const db = c.get('db');
    const user = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get();
    if (!user) throw new ApiError(404, 'User not found');
    const label = (c.req.valid('json') as { label?: string } | undefined)?.label ?? null;
    const { row, token } = await issueToken(db, userId, label);
    return c.json({ ...toApiToken(row), token }, 201);
  });
