import type { z } from '@hono/zod-openapi';
import type { spaces, users } from '../db/schema';
import { spacePermissions } from '../lib/permissions';
import { columnToLevel } from '../lib/roles';
import type { Space } from './space';
import type { UserSchema } from './user';
import { originOf } from '../lib/request-origin';

/**
 * The row -> API mappers and the `urls` they build that code outside the API routes uses too, kept apart from
 * the zod schemas of the same resources (schemas/common, space, change-request, user, which re-export them):
 * the published site (src/site) and the content reads it shares with the API import only this, so a cold
 * isolate's first published page builds no zod schema. Nothing here may import a value from
 * zod or from a module that does (types are erased by the build).
 */

/** What mappers need to build `urls`: the API origin and the app's public base. */
export interface UrlContext {
  api: string;
  app: string;
}

export function urlContext(requestUrl: string, appUrl: string | undefined): UrlContext {
  const origin = originOf(requestUrl);
  return { api: `${origin}/v1`, app: (appUrl || origin).replace(/\/$/, '') };
}

/** The app's page of a space: its content's page URLs and change requests' start here. */
export function spaceAppUrl(urls: UrlContext, orgId: string, spaceId: string): string {
  return `${urls.app}/o/${orgId}/s/${spaceId}`;
}

/** App page of a change request: content URLs of its pages start here. */
export function changeRequestAppUrl(urls: UrlContext, orgId: string, spaceId: string, number: number): string {
  return `${spaceAppUrl(urls, orgId, spaceId)}/~/changes/${number}`;
}

type SpaceRow = typeof spaces.$inferSelect;

export function toSpace(row: SpaceRow, rank: number, urls: UrlContext): Space {
  return {
    object: 'space',
    id: row.id,
    title: row.title,
    emoji: row.emoji,
    visibility: row.visibility as Space['visibility'],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.deletedAt ? { deletedAt: row.deletedAt } : {}),
    editMode: row.editMode as Space['editMode'],
    mergeRules: row.mergeRules as Space['mergeRules'],
    urls: { location: `${urls.api}/spaces/${row.id}`, app: spaceAppUrl(urls, row.orgId, row.id) },
    organization: row.orgId,
    ...(row.parentId ? { parent: row.parentId } : {}),
    ...(row.language ? { language: row.language as Space['language'] } : {}),
    ...(row.gitSync ? { gitSync: row.gitSync } : {}),
    revision: row.revisionId,
    defaultLevel: columnToLevel(row.defaultLevel),
    comments: row.commentsCount,
    changeRequests: row.changeRequestsCount,
    changeRequestsOpen: row.changeRequestsOpen,
    changeRequestsDraft: row.changeRequestsDraft,
    permissions: spacePermissions(rank),
  };
}

export type UserRow = Pick<typeof users.$inferSelect, 'id' | 'displayName' | 'email' | 'photoURL'>;

export function toUser(row: UserRow, urls: UrlContext): z.infer<typeof UserSchema> {
  return {
    object: 'user',
    id: row.id,
    displayName: row.displayName,
    email: row.email,
    ...(row.photoURL ? { photoURL: row.photoURL } : {}),
    urls: { location: `${urls.api}/users/${row.id}` },
  };
}
