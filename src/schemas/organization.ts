import { z } from '@hono/zod-openapi';
import type { OrganizationRow } from '../services/organizations';
import { organizationPermissions } from '../services/permissions';
import { rankToRole } from '../lib/roles';
import { RoleOrGuestSchema, StandaloneMergeRulesSchema, TimestampSchema, type UrlContext } from './common';

export const OrganizationTypeSchema = z.enum(['business', 'community']);
export const OrganizationUseCaseSchema = z.enum([
  'internalDocs',
  'docsSite',
  'audienceControlledSite',
  'productDocs',
  'teamKnowledgeBase',
  'designSystem',
  'openSourceDocs',
  'notes',
  'other',
]);
export const OrganizationCommunityTypeSchema = z.enum(['nonProfit', 'openSource', 'education']);
export const DefaultContentSchema = z.object({ type: z.literal('site'), site: z.string().min(1) }).openapi('OrganizationDefaultContent');

export const OrganizationSchema = z
  .object({
    object: z.literal('organization'),
    id: z.string(),
    title: z.string(),
    createdAt: TimestampSchema,
    emailDomains: z.array(z.string()),
    hostname: z.string().optional(),
    type: OrganizationTypeSchema,
    useCase: OrganizationUseCaseSchema.optional(),
    communityType: OrganizationCommunityTypeSchema.optional(),
    defaultRole: RoleOrGuestSchema,
    defaultContent: DefaultContentSchema.optional(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    mergeRules: StandaloneMergeRulesSchema,
    urls: z.object({ location: z.string(), app: z.string(), logo: z.string().optional() }),
    permissions: z.object({
      view: z.boolean(),
      admin: z.boolean(),
      ownTeam: z.boolean(),
      createContent: z.boolean(),
      createOpenAPISpec: z.boolean(),
      ingestConversations: z.boolean(),
      viewBilling: z.boolean(),
      listMembers: z.boolean(),
      listTeams: z.boolean(),
      listIntegrations: z.boolean(),
      listInstallations: z.boolean(),
      installIntegration: z.boolean(),
    }),
  })
  .openapi('Organization');
export type Organization = z.infer<typeof OrganizationSchema>;

export function toOrganization(row: OrganizationRow, callerRank: number | null, urls: UrlContext): Organization {
  return {
    object: 'organization',
    id: row.id,
    title: row.title,
    createdAt: row.createdAt,
    emailDomains: row.emailDomains,
    ...(row.hostname ? { hostname: row.hostname } : {}),
    type: row.type as Organization['type'],
    ...(row.useCase ? { useCase: row.useCase as Organization['useCase'] } : {}),
    ...(row.communityType ? { communityType: row.communityType as Organization['communityType'] } : {}),
    defaultRole: rankToRole(row.defaultRole),
    ...(row.defaultContent ? { defaultContent: row.defaultContent } : {}),
    sso: row.sso,
    ai: row.ai,
    inviteLinks: row.inviteLinks,
    mergeRules: row.mergeRules as Organization['mergeRules'],
    urls: {
      location: `${urls.api}/orgs/${row.id}`,
      app: `${urls.app}/o/${row.id}`,
      ...(row.logo ? { logo: row.logo } : {}),
    },
    permissions: organizationPermissions(callerRank),
  };
}
