import type { z } from '@hono/zod-openapi';
import { defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema } from '../../lib/pagination';
import { listOf } from '../../schemas/common';
import { InviteBodySchema } from '../../schemas/permission';

/**
 * The eight route definitions of sharing a resource with users and teams (GitBook's space-, collection- and
 * site-permissions): invite, list, update and remove users and teams, and everyone with access. Spaces, collections
 * and sites answer them alike, so their definitions are made here once; each resource's file keeps its handlers
 * (how it finds the resource and the caller's role there).
 */
export interface SharingRoutesConfig<Base extends string, P extends z.ZodObject, PU extends z.ZodObject, PT extends z.ZodObject, B extends z.ZodType, AQ extends z.ZodObject> {
  /** The resource as GitBook's operationIds name it (`inviteToSpace`, `removeTeamFromSite`). */
  name: 'Space' | 'Collection' | 'Site';
  /** The permissions' path, e.g. `/spaces/{spaceId}/permissions`. */
  base: Base;
  params: P;
  /** `params` with `userId`, and with `teamId`. */
  userParams: PU;
  teamParams: PT;
  tags: string[];
  invite: { summary: string; description: string };
  /** The body of the two PATCHes. */
  roleBody: B;
  /** Whether a PATCH with a null role removes the grant (the summaries say so). */
  nullRemoves: boolean;
  /** How a DELETE answers: 204 either way, or GitBook's 205 when something was removed and 204 when it was not there. */
  removal: 'always204' | 'resetWhenRemoved';
  users: { schema: z.ZodType; listName: string };
  teams: { schema: z.ZodType; listName: string };
  aggregate: { schema: z.ZodType; listName: string; query: AQ; summary: string };
}

export function sharingRoutes<Base extends string, P extends z.ZodObject, PU extends z.ZodObject, PT extends z.ZodObject, B extends z.ZodType, AQ extends z.ZodObject>(
  config: SharingRoutesConfig<Base, P, PU, PT, B, AQ>,
) {
  const { name, base, params, userParams, teamParams, tags } = config;
  const resource = name.toLowerCase();
  const removes = config.nullRemoves ? ' (null removes it)' : '';
  const removal = (who: 'user' | 'team'): Record<string, { description: string }> =>
    config.removal === 'always204'
      ? { 204: noContent(`Removed, or was not in the ${resource}`) }
      : { 204: noContent(`The ${who} was not in the ${resource}`), 205: noContent(`The ${who} has been removed from the ${resource}`) };
  return {
    invite: defineRoute('post', base, () => ({
      operationId: `inviteTo${name}`,
      tags,
      summary: config.invite.summary,
      description: config.invite.description,
      request: { params, ...jsonBody(InviteBodySchema) },
      responses: { 204: noContent('The users and teams have been granted the role') },
    })),
    listUsers: defineRoute('get', `${base}/users` as const, () => ({
      operationId: `listUserPermissionsIn${name}`,
      tags,
      summary: `List the users added to a ${resource} with their role`,
      request: { params, query: ListQuerySchema },
      responses: { 200: jsonResponse(listOf(config.users.schema, config.users.listName), `The users added to the ${resource}`) },
    })),
    updateUser: defineRoute('patch', `${base}/users/{userId}` as const, () => ({
      operationId: `updateUserPermissionIn${name}`,
      tags,
      summary: `Change a user's role on a ${resource}${removes}`,
      request: { params: userParams, ...jsonBody(config.roleBody) },
      responses: { 204: noContent('Updated') },
    })),
    removeUser: defineRoute('delete', `${base}/users/{userId}` as const, () => ({
      operationId: `removeUserFrom${name}`,
      tags,
      summary: `Remove a user from a ${resource}`,
      request: { params: userParams },
      responses: removal('user'),
    })),
    listTeams: defineRoute('get', `${base}/teams` as const, () => ({
      operationId: `listTeamPermissionsIn${name}`,
      tags,
      summary: `List the teams added to a ${resource} with their role`,
      request: { params, query: ListQuerySchema },
      responses: { 200: jsonResponse(listOf(config.teams.schema, config.teams.listName), `The teams added to the ${resource}`) },
    })),
    updateTeam: defineRoute('patch', `${base}/teams/{teamId}` as const, () => ({
      operationId: `updateTeamPermissionIn${name}`,
      tags,
      summary: `Change a team's role on a ${resource}${removes}`,
      request: { params: teamParams, ...jsonBody(config.roleBody) },
      responses: { 204: noContent('Updated') },
    })),
    removeTeam: defineRoute('delete', `${base}/teams/{teamId}` as const, () => ({
      operationId: `removeTeamFrom${name}`,
      tags,
      summary: `Remove a team from a ${resource}`,
      request: { params: teamParams },
      responses: removal('team'),
    })),
    aggregate: defineRoute('get', `${base}/aggregate` as const, () => ({
      operationId: `listPermissionsAggregateIn${name}`,
      tags,
      summary: config.aggregate.summary,
      request: { params, query: config.aggregate.query },
      responses: { 200: jsonResponse(listOf(config.aggregate.schema, config.aggregate.listName), `Everyone who can access the ${resource}`) },
    })),
  };
}
