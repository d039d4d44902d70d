import { z } from '@hono/zod-openapi';
import type { organizations } from '../db/schema';
import { claimStands } from '../lib/hostname-claims';
import { organizationPermissions } from '../lib/permissions';
import { rankToRole } from '../lib/roles';
import { TimestampSchema, type UrlContext } from './common';
import { RoleOrGuestSchema } from './roles';
import { StandaloneMergeRulesSchema } from './merge-rules';

type OrganizationRow = typeof organizations.$inferSelect;
/** Usage counters for the caps (services/limits): internal, never part of the public object. */
type UsageColumn = 'spaceCount' | 'memberCount' | 'siteCount' | 'teamCount' | 'collectionCount' | 'rootCollectionCount' | 'integrationCount' | 'installationCount' | 'conversationsDay' | 'conversationsToday';

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
/** GitBook's billing products; this deployment has no billing, see `SELF_HOSTED_PLAN`. */
export const BillingProductSchema = z
  .enum(['free_2024', 'plus_2024', 'pro_2024', 'enterprise_2024', 'community_2024', 'free', 'plus', 'pro', 'internal'])
  .openapi('BillingProduct');
export const BillingTrialSchema = z
  .object({
    status: z.enum(['notapplicable', 'none', 'active', 'ended', 'expired']),
    count: z.number().int().openapi({ description: 'Number of trials the organization has consumed' }),
    endDate: TimestampSchema.optional(),
    decision: z.enum(['downgrade']).optional(),
  })
  .openapi('BillingTrial');

/**
 * A self-hosted deployment bills nobody and limits no feature by plan: every organization is on the
 * free product and no trial can be started for it.
 */
export const SELF_HOSTED_PLAN = 'free' as const satisfies z.infer<typeof BillingProductSchema>;
export const SELF_HOSTED_TRIAL = { status: 'notapplicable', count: 0 } as const satisfies z.infer<typeof BillingTrialSchema>;

export const DefaultContentSchema = z.object({ type: z.literal('site'), site: z.string().min(1) }).openapi('OrganizationDefaultContent');

export const OrganizationSchema = z
  .object({
    object: z.literal('organization'),
    id: z.string(),
    title: z.string(),
    createdAt: TimestampSchema,
    emailDomains: z.array(z.string()),
    hostname: z.string().optional().openapi({ description: 'Label of the organization\'s site under the deployment\'s SITES_DOMAIN (`<hostname>.<SITES_DOMAIN>`)' }),
    customHostname: z
      .string()
      .optional()
      .openapi({ description: 'Custom hostname linked to this organization; serves its site once proved by DNS (see getCustomHostname)' }),
    type: OrganizationTypeSchema,
    useCase: OrganizationUseCaseSchema.optional(),
    communityType: OrganizationCommunityTypeSchema.optional(),
    defaultRole: RoleOrGuestSchema,
    defaultContent: DefaultContentSchema.optional(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    plan: BillingProductSchema.openapi({ description: 'Always `free`: this self-hosted deployment has no billing and no plan limits' }),
    trial: BillingTrialSchema.openapi({ description: 'Always `{ status: "notapplicable", count: 0 }`: no trial can be started' }),
    mergeRules: StandaloneMergeRulesSchema,
    urls: z.object({ location: z.string(), app: z.string(), logo: z.string().optional() }),
    permissions: z.object({
      view: z.boolean(),
      access: z.boolean().openapi({ description: 'Can the caller open the organization in the app (members and guests)' }),
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

export function toOrganization(row: Omit<OrganizationRow, UsageColumn>, callerRank: number | null, urls: UrlContext): Organization {
  return {
    object: 'organization',
    id: row.id,
    title: row.title,
    createdAt: row.createdAt,
    emailDomains: row.emailDomains,
    ...(row.hostname ? { hostname: row.hostname } : {}),
    // A pending claim past its period is gone (lib/hostname-claims), even before the cron clears it.
    ...(row.customHostname && claimStands(row) ? { customHostname: row.customHostname } : {}),
    type: row.type as Organization['type'],
    ...(row.useCase ? { useCase: row.useCase as Organization['useCase'] } : {}),
    ...(row.communityType ? { communityType: row.communityType as Organization['communityType'] } : {}),
    defaultRole: rankToRole(row.defaultRole),
    ...(row.defaultContent ? { defaultContent: row.defaultContent } : {}),
    sso: row.sso,
    ai: row.ai,
    inviteLinks: row.inviteLinks,
    plan: SELF_HOSTED_PLAN,
    trial: { ...SELF_HOSTED_TRIAL },
    mergeRules: row.mergeRules as Organization['mergeRules'],
    urls: {
      location: `${urls.api}/orgs/${row.id}`,
      app: `${urls.app}/o/${row.id}`,
      ...(row.logo ? { logo: row.logo } : {}),
    },
    permissions: organizationPermissions(callerRank),
  };
}

/**
 * GitBook's `CustomHostname`, with `verification`: the DNS TXT record that proves the hostname is the
 * organization's (services/organizations/organizations/hostnames). `isActive` once proved; `status` is then `dns_passed`.
 */
export const CustomHostnameSchema = z
  .object({
    object: z.literal('custom-hostname'),
    hostname: z.string(),
    target: z.object({ type: z.literal('organization'), organization: z.string() }),
    isActive: z.boolean(),
    status: z.enum(['dns_passed']).optional(),
    verification: z.object({
      status: z.enum(['pending', 'verified']),
      record: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }),
      verifiedAt: TimestampSchema.optional(),
    }),
    urls: z.object({ location: z.string() }),
  })
  .openapi('CustomHostname');
export type CustomHostname = z.infer<typeof CustomHostnameSchema>;

type CustomHostnameColumns = Pick<OrganizationRow, 'id' | 'customHostname' | 'customHostnameChallenge' | 'customHostnameVerifiedAt'>;

export function toCustomHostname(row: CustomHostnameColumns, challengeName: string, urls: UrlContext): CustomHostname {
  const hostname = row.customHostname!;
  const verified = row.customHostnameVerifiedAt ?? null;
  return {
    object: 'custom-hostname',
    hostname,
    target: { type: 'organization', organization: row.id },
    isActive: verified !== null,
    ...(verified ? { status: 'dns_passed' as const } : {}),
    verification: {
      status: verified ? 'verified' : 'pending',
      record: { type: 'TXT', name: challengeName, value: row.customHostnameChallenge ?? '' },
      ...(verified ? { verifiedAt: verified } : {}),
    },
    urls: { location: `${urls.api}/custom-hostnames/${encodeURIComponent(hostname)}` },
  };
}
