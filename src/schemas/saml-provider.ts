import { z } from '@hono/zod-openapi';
import { rankToRole } from '../lib/roles';
import type { SamlProviderRow } from '../db/schema';
import { teamPermissions } from '../lib/permissions';
import { TimestampSchema, type UrlContext } from './common';
import { RoleOrGuestSchema } from './roles';
import { TeamSchema } from './team';

export const SAMLProviderLabelSchema = z.string().trim().min(1).max(30).openapi('SAMLProviderLabel');
export const SAMLProviderEntityIDSchema = z.string().trim().min(1).max(1024).openapi('SAMLProviderEntityID');
export const SAMLProviderCertificateSchema = z
  .string()
  .min(1)
  .max(10000)
  .openapi('SAMLProviderCertificate', { description: 'The identity provider\'s X.509 signing certificate, PEM (or its base64 body alone)' });
export const SAMLProviderStatusSchema = z.enum(['active', 'pending']).openapi('SAMLProviderStatus', {
  description: '`active`: entityID, certificate and ssoURL are set, members can log in through it. `pending`: not fully configured yet.',
});

/**
 * What `ssoURL` reads while a provider has none. GitBook requires a URI there, and a provider is created with its
 * label alone: `about:blank` is a URI that names no address, and `status: "pending"` says the provider is not
 * configured. Sent back in a PATCH, it leaves the provider without an SSO URL.
 */
export const NO_SSO_URL = 'about:blank';

export const SAMLProviderSchema = z
  .object({
    object: z.literal('saml-provider'),
    id: z.string(),
    label: SAMLProviderLabelSchema,
    ssoURL: z.string().openapi({
      format: 'uri',
      description: `The identity provider's single sign-on URL (HTTP-Redirect binding); \`${NO_SSO_URL}\` (a URI that addresses nothing) until configured, while the provider is pending`,
    }),
    entityID: z.string().openapi({ description: 'The identity provider\'s entity ID (the Issuer of its responses); empty until configured' }),
    certificate: z.string().openapi({ description: 'The identity provider\'s signing certificate (PEM); empty until configured' }),
    defaultTeam: TeamSchema.optional().openapi({ description: 'The team members who log in through this provider join' }),
    defaultRole: RoleOrGuestSchema.openapi({ description: 'The role members who join through this provider get' }),
    createdAt: TimestampSchema,
    status: SAMLProviderStatusSchema,
    service: z.object({
      acsURL: z.string().openapi({ description: 'Assertion Consumer Service URL (HTTP-POST binding) to give the identity provider' }),
      startURL: z.string().openapi({ description: 'Where a login through this provider starts' }),
      entityID: z.string().openapi({ description: 'This service provider\'s entity ID (the audience the identity provider must name); its URL serves our metadata' }),
    }),
    urls: z.object({ location: z.string() }),
  })
  .openapi('OrganizationSAMLProvider');

export const SSOProviderLoginSchema = z
  .object({ id: z.string(), label: z.string(), startURL: z.string() })
  .openapi('OrganizationSSOProviderLogin');

/**
 * The base of the SAML URLs: the deployment's public API base (`API_URL`, without `/v1`) when set, else the
 * request's origin. A provider then has one entity ID and ACS URL whatever host a request came through.
 */
export function samlBaseUrl(env: { API_URL?: string }, requestUrl: string): string {
  const configured = (env.API_URL ?? '').trim().replace(/\/+$/, '').replace(/\/v1$/, '');
  return configured || new URL(requestUrl).origin;
}

/** The URLs this deployment serves for a provider (routes/sso/saml-login), under `samlBaseUrl`. */
export function samlServiceUrls(origin: string, providerId: string) {
  const base = `${origin}/sso/saml/${providerId}`;
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: `${base}/metadata` };
}

/** What `toSAMLProvider` needs of the default team beside the provider. */
export interface ProviderTeam {
  /** The default team's columns, null when it has none (a left join). */
  team: { id: string | null; orgId: string | null; title: string | null; createdAt: string | null };
  teamMembers: number;
  teamSpaces: number;
}

export function providerStatus(row: Pick<SamlProviderRow, 'entityId' | 'certificate' | 'ssoUrl'>): 'active' | 'pending' {
  return row.entityId && row.certificate && row.ssoUrl ? 'active' : 'pending';
}

/** Providers are read by organization admins only, so the team's permissions are an admin's. */
export function toSAMLProvider(row: SamlProviderRow, team: ProviderTeam, urls: UrlContext, origin: string): z.infer<typeof SAMLProviderSchema> {
  return {
    object: 'saml-provider',
    id: row.id,
    label: row.label,
    ssoURL: row.ssoUrl || NO_SSO_URL,
    entityID: row.entityId,
    certificate: row.certificate,
    ...(team.team.id !== null && {
      defaultTeam: {
        object: 'team' as const,
        id: team.team.id,
        title: team.team.title ?? '',
        members: team.teamMembers,
        spaces: team.teamSpaces,
        createdAt: team.team.createdAt ?? '',
        urls: { location: `${urls.api}/orgs/${row.orgId}/teams/${team.team.id}` },
        permissions: teamPermissions(6, false),
      },
    }),
    defaultRole: rankToRole(row.defaultRole),
    createdAt: row.createdAt,
    status: providerStatus(row),
    service: samlServiceUrls(origin, row.id),
    urls: { location: `${urls.api}/orgs/${row.orgId}/saml/${row.id}` },
  };
}
