import { z } from '@hono/zod-openapi';
import type { integrationInstallations, integrationSiteInstallations, integrationSpaceInstallations } from '../db/schema';
import { TimestampSchema, refuseProtoKey, type UrlContext } from './common';
import { apiOriginOf, publicEndpointsBase } from './integration';
import { SiteSchema, type Site } from './site';
import { SpaceSchema, type Space } from './space';

export type InstallationRow = typeof integrationInstallations.$inferSelect;
export type SpaceInstallationRow = typeof integrationSpaceInstallations.$inferSelect;
export type SiteInstallationRow = typeof integrationSiteInstallations.$inferSelect;

/** GitBook's limit (IntegrationInstallationExternalIds: at most 5), so that clients validating its schema accept every answer. */
export const MAX_EXTERNAL_IDS = 5;
export const MAX_EXTERNAL_ID_LENGTH = 200;

export const InstallationStatusSchema = z.enum(['active', 'pending', 'paused']).openapi('IntegrationInstallationStatus');
export const SpaceSelectionSchema = z
  .enum(['all', 'selected'])
  .openapi('IntegrationInstallationSpaceSelection', { description: "all: every space of the organization; selected: the spaces it was installed on" });
export const SiteSelectionSchema = z
  .enum(['all', 'selected'])
  .openapi('IntegrationInstallationSiteSelection', { description: "all: every site of the organization; selected: the sites it was installed on" });

export const ExternalIdsSchema = z
  .array(z.string().min(1).max(MAX_EXTERNAL_ID_LENGTH))
  .max(MAX_EXTERNAL_IDS)
  .openapi('IntegrationInstallationExternalIds', {
    description: `External ids assigned by the integration (at most ${MAX_EXTERNAL_IDS}, each at most ${MAX_EXTERNAL_ID_LENGTH} characters); lists filter on them`,
  });

export const ConfigurationSchema = z.preprocess(refuseProtoKey('a setting'), z.record(z.string(), z.unknown())).openapi('IntegrationInstallationConfiguration', {
  description:
    "Settings of the installation, checked against the integration's configuration schema for its target (account, space or site): declared properties only (the integration's own tokens may also keep undeclared ones), of the declared type and enum, strings at most 4096 characters, required ones present; absent properties take their default. A target the integration configures through its own component (`{componentId}`) takes any JSON object, as that component saves it. At most 10 levels of nesting and 65536 characters as JSON",
});

const InstallationUrlsSchema = z.object({
  location: z.string().openapi({ description: 'The installation in the API' }),
  app: z.string().openapi({ description: "The integration's installation in the app" }),
  publicEndpoint: z.string().openapi({
    description: "Public HTTP endpoint of the integration's installation: any request to it or below it (no API token) is handed to the integration's script as a `fetch` event with the installation's id",
  }),
  publicContentEndpoint: z.string().openapi({ description: 'Public endpoint serving the rendered content of the integration (here the same as publicEndpoint)' }),
});

export const IntegrationInstallationSchema = z
  .object({
    id: z.string(),
    status: InstallationStatusSchema,
    space_selection: SpaceSelectionSchema,
    site_selection: SiteSelectionSchema,
    spaces: z.number().openapi({ description: 'How many spaces the installation covers (all live spaces of the organization with space_selection all)' }),
    configuration: ConfigurationSchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    urls: InstallationUrlsSchema,
    externalIds: ExternalIdsSchema,
    target: z.object({ organization: z.string() }),
    network: z.object({ proxy: z.boolean() }).optional(),
  })
  .openapi('IntegrationInstallation', { description: 'Installation of an integration on an organization' });
export type IntegrationInstallation = z.infer<typeof IntegrationInstallationSchema>;

export const CreatedIntegrationInstallationSchema = IntegrationInstallationSchema.extend({
  signingSecret: z
    .string()
    .optional()
    .openapi({
      description:
        'The secret that signs the HTTP deliveries of its events (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). Shown only in the response that creates the installation: keep it, no read returns it again (an approval of a pending installation does not show it).',
    }),
}).openapi('CreatedIntegrationInstallation');

const ContentInstallationUrlsSchema = z.object({
  location: z.string().openapi({ description: "The integration's installation on this space or site in the API" }),
  publicEndpoint: z.string().openapi({
    description:
      "Public HTTP endpoint of the integration's installation on this space or site (`.../installations/<id>/spaces/<spaceId>/public`, `.../sites/<siteId>/public`): requests to it or below it are handed to the integration's script as a `fetch` event with this space or site installation in its environment",
  }),
  publicContentEndpoint: z.string(),
});

const contentInstallationBase = {
  integration: z.string().openapi({ description: 'The name of the integration' }),
  installation: z.string().openapi({ description: 'The id of the installation' }),
  status: InstallationStatusSchema,
  configuration: ConfigurationSchema,
  externalIds: ExternalIdsSchema,
  urls: ContentInstallationUrlsSchema,
};

export const IntegrationSpaceInstallationSchema = z
  .object({
    ...contentInstallationBase,
    space: z.union([z.string(), SpaceSchema]).openapi({ description: 'The id of the space, or the space itself when `extended` is true' }),
  })
  .openapi('IntegrationSpaceInstallation');
export type IntegrationSpaceInstallation = z.infer<typeof IntegrationSpaceInstallationSchema>;

export const IntegrationSiteInstallationSchema = z
  .object({
    ...contentInstallationBase,
    site: z.union([z.string(), SiteSchema]).openapi({ description: 'The id of the site, or the site itself when `extended` is true' }),
  })
  .openapi('IntegrationSiteInstallation');
export type IntegrationSiteInstallation = z.infer<typeof IntegrationSiteInstallationSchema>;

const atLeastOne = (body: Record<string, unknown>) => Object.values(body).some((v) => v !== undefined);

export const UpdateIntegrationInstallationSchema = z
  .object({
    externalIds: ExternalIdsSchema.optional(),
    configuration: ConfigurationSchema.optional().openapi({ description: "Replaces the configuration; checked against the integration's account configuration schema" }),
    space_selection: SpaceSelectionSchema.optional(),
    site_selection: SiteSelectionSchema.optional(),
  })
  .strict()
  .refine(atLeastOne, { message: 'give at least one field to update' })
  .openapi('UpdateIntegrationInstallation');

const updateContentInstallation = (target: 'space' | 'site') =>
  z
    .object({
      externalIds: ExternalIdsSchema.optional(),
      configuration: ConfigurationSchema.optional().openapi({ description: `Replaces the configuration; checked against the integration's ${target} configuration schema` }),
    })
    .strict()
    .refine(atLeastOne, { message: 'give at least one field to update' });

export const UpdateIntegrationSpaceInstallationSchema = updateContentInstallation('space').openapi('UpdateIntegrationSpaceInstallation');
export const UpdateIntegrationSiteInstallationSchema = updateContentInstallation('site').openapi('UpdateIntegrationSiteInstallation');

export const InstallationTokenSchema = z
  .object({
    token: z.string().openapi({ description: 'Temporary token acting as the installation: its organization, the spaces and sites it covers, within the scopes of the integration' }),
    expiresAt: TimestampSchema.openapi({ description: 'When the token stops working (an hour after it was issued)' }),
  })
  .openapi('APITemporaryToken');

// ---------------------------------------------------------------------------------------------
// Mappers

/** The API location of an installation. */
export const installationLocation = (urls: UrlContext, integrationName: string, installationId: string) =>
  `${urls.api}/integrations/${encodeURIComponent(integrationName)}/installations/${installationId}`;

/**
 * Where an installation's public HTTP endpoint lives (requests to it and below it go to the integration's
 * script with the installation's id and environment): `<origin>/integrations/<name>/installations/<id>/public`,
 * outside `/v1` like the integration's own (schemas/integration.ts `publicEndpointsBase`).
 */
export const installationPublicEndpoint = (origin: string, integrationName: string, installationId: string) =>
  `${publicEndpointsBase(origin, integrationName)}/installations/${installationId}/public`;

/**
 * The public endpoint of an installation on one space or site: requests to it go to the script with that space
 * (site) installation in the environment too (`environment.spaceInstallation`/`siteInstallation`), as GitBook's
 * integrations expect when they route on `spaceInstallation.urls.publicEndpoint` or hand it to a third party.
 */
export const contentInstallationPublicEndpoint = (origin: string, integrationName: string, installationId: string, target: 'spaces' | 'sites', id: string) =>
  `${publicEndpointsBase(origin, integrationName)}/installations/${installationId}/${target}/${id}/public`;

export function toInstallation(row: InstallationRow, integrationName: string, spaces: number, urls: UrlContext): IntegrationInstallation {
  const publicEndpoint = installationPublicEndpoint(apiOriginOf(urls), integrationName, row.id);
  return {
    id: row.id,
    status: row.status as IntegrationInstallation['status'],
    space_selection: row.spaceSelection as IntegrationInstallation['space_selection'],
    site_selection: row.siteSelection as IntegrationInstallation['site_selection'],
    spaces,
    configuration: row.configuration ?? {},
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    urls: {
      location: installationLocation(urls, integrationName, row.id),
      app: `${urls.app}/o/${row.orgId}/integrations/${encodeURIComponent(integrationName)}`,
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
    externalIds: row.externalIds ?? [],
    target: { organization: row.orgId },
    network: { proxy: false },
  };
}

/**
 * What a space or site installation shows: its own row, or (a space or site covered because the installation
 * selects all of them, with no settings of its own yet) the installation's status and the defaults of the
 * integration's configuration schema for that target.
 */
export interface ContentInstallationState {
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
}

export function contentInstallationState(
  installation: Pick<InstallationRow, 'status'>,
  own: SpaceInstallationRow | SiteInstallationRow | null | undefined,
  defaults: Record<string, unknown>,
): ContentInstallationState {
  return own
    ? { status: own.status, configuration: own.configuration ?? {}, externalIds: own.externalIds ?? [] }
    : { status: installation.status, configuration: defaults, externalIds: [] };
}

function contentInstallation(
  integrationName: string,
  installationId: string,
  state: ContentInstallationState,
  location: string,
  urls: UrlContext,
  target: { kind: 'spaces' | 'sites'; id: string },
) {
  const publicEndpoint = contentInstallationPublicEndpoint(apiOriginOf(urls), integrationName, installationId, target.kind, target.id);
  return {
    integration: integrationName,
    installation: installationId,
    status: state.status as IntegrationSpaceInstallation['status'],
    configuration: state.configuration,
    externalIds: state.externalIds,
    urls: { location, publicEndpoint, publicContentEndpoint: publicEndpoint },
  };
}

export function toSpaceInstallation(
  integrationName: string,
  installationId: string,
  spaceId: string,
  state: ContentInstallationState,
  space: Space | null,
  urls: UrlContext,
): IntegrationSpaceInstallation {
  const location = `${installationLocation(urls, integrationName, installationId)}/spaces/${spaceId}`;
  return { ...contentInstallation(integrationName, installationId, state, location, urls, { kind: 'spaces', id: spaceId }), space: space ?? spaceId };
}

export function toSiteInstallation(
  integrationName: string,
  installationId: string,
  siteId: string,
  state: ContentInstallationState,
  site: Site | null,
  urls: UrlContext,
): IntegrationSiteInstallation {
  const location = `${installationLocation(urls, integrationName, installationId)}/sites/${siteId}`;
  return { ...contentInstallation(integrationName, installationId, state, location, urls, { kind: 'sites', id: siteId }), site: site ?? siteId };
}
