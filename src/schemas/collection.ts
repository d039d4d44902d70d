import { z } from '@hono/zod-openapi';
import { columnToLevel } from '../lib/roles';
import type { collections } from '../db/schema';
import { collectionPermissions } from '../lib/permissions';
import { type UrlContext } from './common';
import { DefaultLevelSchema } from './roles';

export const CollectionTitleSchema = z.string().trim().max(50);
export const CollectionDescriptionSchema = z.string().max(100);

export const CollectionSchema = z
  .object({
    object: z.literal('collection'),
    id: z.string(),
    title: z.string(),
    description: z.string().optional(),
    organization: z.string(),
    parent: z.string().optional(),
    defaultLevel: DefaultLevelSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
    urls: z.object({ location: z.string(), app: z.string() }),
    permissions: z.object({ view: z.boolean(), admin: z.boolean(), viewInviteLinks: z.boolean(), create: z.boolean() }),
  })
  .openapi('Collection');

type CollectionRow = typeof collections.$inferSelect;

export function toCollection(row: CollectionRow, rank: number, urls: UrlContext): z.infer<typeof CollectionSchema> {
  return {
    object: 'collection',
    id: row.id,
    title: row.title,
    ...(row.description ? { description: row.description } : {}),
    organization: row.orgId,
    ...(row.parentId ? { parent: row.parentId } : {}),
    defaultLevel: columnToLevel(row.defaultLevel),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    urls: { location: `${urls.api}/collections/${row.id}`, app: `${urls.app}/o/${row.orgId}/c/${row.id}` },
    permissions: collectionPermissions(rank),
  };
}
