import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema } from '../../schemas/roles';
import {
  SAMLProviderCertificateSchema,
  SAMLProviderEntityIDSchema,
  SAMLProviderLabelSchema,
  SAMLProviderSchema,
  SSOProviderLoginSchema,
  samlBaseUrl,
  samlServiceUrls,
  toSAMLProvider,
} from '../../schemas/saml-provider';
import { createProvider, deleteProvider, getProvider, listProviders, providerLogins, updateProvider, type ProviderWithTeam } from '../../services/sso/providers';

const tags = ['SSO and SAML'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const ProviderParams = OrgParams.extend({ samlProviderId: IdSchema('samlProviderId') });

const ProviderFieldsSchema = z.object({
  label: SAMLProviderLabelSchema,
  entityID: SAMLProviderEntityIDSchema.optional(),
  certificate: SAMLProviderCertificateSchema.optional(),
  ssoURL: z.string().max(2048).optional().openapi({ description: 'An https URL' }),
  defaultTeam: z.string().min(1).max(128).nullable().optional().openapi({ description: 'A team of the organization (null: none)' }),
  defaultRole: RoleOrGuestSchema.optional().openapi({ description: 'The role of members who join through the provider (default `read`; null: guest)' }),
});

const listProvidersRoute = defineRoute('get', '/orgs/{organizationId}/saml', () => ({
  operationId: 'listSAMLProvidersInOrganizationById',
  tags,
  summary: "List the organization's SAML providers (admins)",
  request: { params: OrgParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(SAMLProviderSchema, 'OrganizationSAMLProviders'), 'The providers, oldest first') },
}));

const createProviderRoute = defineRoute('post', '/orgs/{organizationId}/saml', () => ({
  operationId: 'createOrganizationSAMLProvider',
  tags,
  summary: 'Add a SAML identity provider (admins); it is active once entityID, certificate and ssoURL are set',
  request: { params: OrgParams, ...jsonBody(ProviderFieldsSchema) },
  responses: { 201: jsonResponse(SAMLProviderSchema, 'The provider') },
}));

const getProviderRoute = defineRoute('get', '/orgs/{organizationId}/saml/{samlProviderId}', () => ({
  operationId: 'getOrganizationSAMLProviderById',
  tags,
  summary: 'Get a SAML provider (admins)',
  request: { params: ProviderParams },
  responses: { 200: jsonResponse(SAMLProviderSchema, 'The provider') },
}));

const updateProviderRoute = defineRoute('patch', '/orgs/{organizationId}/saml/{samlProviderId}', () => ({
  operationId: 'updateOrganizationSAMLProvider',
  tags,
  summary: "Change a SAML provider (admins); an organization enforcing SSO stops doing so when it is left without an active provider",
  request: {
    params: ProviderParams,
    ...jsonBody(ProviderFieldsSchema.partial().refine((b) => Object.keys(b).length > 0, { message: 'give at least one field to update' })),
  },
  responses: { 200: jsonResponse(SAMLProviderSchema, 'The provider') },
}));

const deleteProviderRoute = defineRoute('delete', '/orgs/{organizationId}/saml/{samlProviderId}', () => ({
  operationId: 'deleteOrganizationSAMLProvider',
  tags,
  summary: 'Delete a SAML provider (admins); an organization enforcing SSO stops doing so when it is left without an active provider',
  request: { params: ProviderParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const listLoginsRoute = defineRoute('get', '/orgs/{organizationId}/sso', () => ({
  operationId: 'listSSOProviderLoginsInOrganization',
  visitors: true,
  tags,
  summary: "The organization's active SSO logins, as a login page shows them: readable without a token",
  request: { params: OrgParams },
  responses: { 200: jsonResponse(z.object({ items: z.array(SSOProviderLoginSchema) }), 'The logins (no pagination)') },
}));

const present = (c: Context<AppBindings>, row: ProviderWithTeam) =>
  toSAMLProvider(row.provider, row, urlContext(c.req.url, c.env.APP_URL), samlBaseUrl(c.env, c.req.url));

export const samlProvidersRouter = createRouter()
  .openapi(listProvidersRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const page = pageParams(c.req.valid('query'));
    const { rows, total } = await listProviders(c.get('db'), organizationId, userId, page);
    return c.json(toPage(rows, page.limit, total, (r) => [r.provider.createdAt, r.provider.id], (r) => present(c, r)), 200);
  })
  .openapi(createProviderRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const row = await createProvider(c.get('db'), organizationId, userId, c.req.valid('json'));
    const provider = present(c, row);
    c.header('Location', provider.urls.location);
    return c.json(provider, 201);
  })
  .openapi(getProviderRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, samlProviderId } = c.req.valid('param');
    return c.json(present(c, await getProvider(c.get('db'), organizationId, userId, samlProviderId)), 200);
  })
  .openapi(updateProviderRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, samlProviderId } = c.req.valid('param');
    return c.json(present(c, await updateProvider(c.get('db'), organizationId, userId, samlProviderId, c.req.valid('json'))), 200);
  })
  .openapi(deleteProviderRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, samlProviderId } = c.req.valid('param');
    await deleteProvider(c.get('db'), organizationId, userId, samlProviderId);
    return c.body(null, 204);
  })
  .openapi(listLoginsRoute, async (c) => {
    const { organizationId } = c.req.valid('param');
    const origin = samlBaseUrl(c.env, c.req.url);
    const rows = await providerLogins(c.get('db'), organizationId);
    return c.json({ items: rows.map((r) => ({ id: r.id, label: r.label, startURL: samlServiceUrls(origin, r.id).startURL })) }, 200);
  });
