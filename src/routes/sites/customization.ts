import { and, eq } from 'drizzle-orm';
import { siteSpaces } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema } from '../../schemas/common';
import {
  SiteCustomizationInputSchema,
  SiteCustomizationSettingsSchema,
  SiteSpaceCustomizationOverrideSchema,
  type SiteSpaceCustomizationOverride,
} from '../../schemas/site-customization';
import { changeSiteRow, loadSiteAsMember } from '../../services/sites/access';
import { mergeOverridePatch, settingsFromInput } from '../../services/sites/customization';
import { validateCustomization } from '../../services/sites/customization-references';
import { publishedSettings, siteSettings, siteSpaceSettings } from '../../services/sites/settings';
import { findSiteSpace } from '../../services/sites/structure';
import { SiteParams } from './params';

const tags = ['Docs sites'];
const SiteSpaceParams = SiteParams.extend({ siteSpaceId: IdSchema('siteSpaceId') });

const getSiteCustomizationRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/customization', () => ({
  operationId: 'getSiteCustomizationById',
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "A site's customization (the defaults until it is set)",
  request: { params: SiteParams },
  responses: { 200: jsonResponse(SiteCustomizationSettingsSchema, 'The customization') },
}));

const updateSiteCustomizationRoute = defineRoute('put', '/orgs/{organizationId}/sites/{siteId}/customization', () => ({
  operationId: 'updateSiteCustomizationById',
  tags,
  summary: "Replace a site's customization; what the body leaves out takes its default (admins)",
  request: { params: SiteParams, ...jsonBody(SiteCustomizationInputSchema) },
  responses: { 200: jsonResponse(SiteCustomizationSettingsSchema, 'The customization') },
}));

const getSiteSpaceCustomizationRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', () => ({
  operationId: 'getSiteSpaceCustomizationById',
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "A site space's customization: its override merged over the site's",
  request: { params: SiteSpaceParams },
  responses: { 200: jsonResponse(SiteCustomizationSettingsSchema, 'The customization') },
}));

const overrideSiteSpaceCustomizationRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', () => ({
  operationId: 'overrideSiteSpaceCustomizationById',
  tags,
  summary: "Override some of the site's customization for one site space (admins)",
  request: { params: SiteSpaceParams, ...jsonBody(SiteSpaceCustomizationOverrideSchema) },
  responses: { 200: jsonResponse(SiteCustomizationSettingsSchema, 'The merged customization') },
}));

const deleteSiteSpaceCustomizationRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', () => ({
  operationId: 'deleteSiteSpaceCustomizationById',
  tags,
  summary: "Drop a site space's override: it follows the site's customization again (admins)",
  request: { params: SiteSpaceParams },
  responses: { 204: noContent('Removed, or there was none') },
}));

export const siteCustomizationRouter = createRouter()
  .openapi(getSiteCustomizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model, rank } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read);
    const settings = siteSettings(model.site);
    return c.json(rank >= RANK.admin ? settings : publishedSettings(settings), 200);
  })
  .openapi(updateSiteCustomizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const site = await changeSiteRow(db, organizationId, siteId, userId, async (now) => {
      await validateCustomization(db, organizationId, body);
      return { customization: settingsFromInput(body), customizationUpdatedAt: now };
    });
    return c.json(siteSettings(site), 200);
  })
  .openapi(getSiteSpaceCustomizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    const { model, rank } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read);
    const settings = siteSpaceSettings(model.site, findSiteSpace(model, siteSpaceId));
    return c.json(rank >= RANK.admin ? settings : publishedSettings(settings), 200);
  })
  .openapi(overrideSiteSpaceCustomizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    const patch = c.req.valid('json');
    const db = c.get('db');
    const { model } = await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    const siteSpace = findSiteSpace(model, siteSpaceId);
    await validateCustomization(db, organizationId, patch, siteSpace.spaceId);
    const override = mergeOverridePatch(siteSpace.customization as SiteSpaceCustomizationOverride | null, patch);
    const now = nowIso();
    await db
      .update(siteSpaces)
      .set({ customization: override, customizationUpdatedAt: now })
      .where(and(eq(siteSpaces.id, siteSpaceId), eq(siteSpaces.siteId, siteId)));
    return c.json(siteSpaceSettings(model.site, { ...siteSpace, customization: override, customizationUpdatedAt: now }), 200);
  })
  .openapi(deleteSiteSpaceCustomizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSpaceId } = c.req.valid('param');
    const db = c.get('db');
    await loadSiteAsMember(db, organizationId, siteId, userId, RANK.admin);
    await db
      .update(siteSpaces)
      .set({ customization: null, customizationUpdatedAt: null })
      .where(and(eq(siteSpaces.id, siteSpaceId), eq(siteSpaces.siteId, siteId)));
    return c.body(null, 204);
  });
