import { z } from '@hono/zod-openapi';
import { ROLES } from '../lib/roles';

/** Roles as the API shows them (their own module: schemas/common says why). */
export const RoleSchema = z.enum(ROLES).openapi('MemberRole', {
  description: 'admin: administrate content; create: create content; review: review content; edit: edit content; comment: access content and discussions; read: access content only',
});

export const RoleOrGuestSchema = RoleSchema.nullable().openapi('MemberRoleOrGuest', {
  description: 'A role, or null for a guest',
});

export const DefaultLevelSchema = z
  .union([RoleSchema, z.literal('inherit')])
  .nullable()
  .openapi('DefaultLevel', { description: 'Default level for a piece of content: a role, null (guest: no default access) or inherit' });
