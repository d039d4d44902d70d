import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ListQuerySchema, pageInMemory } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf } from '../../schemas/common';
import { IconSchema, SiteSectionGroupSchema, SiteSectionGroupTitleSchema } from '../../schemas/site';
import { changeSite, loadSiteAsMember } from '../../services/sites/access';
import { childrenOf, type GroupRow, type SiteModel } from '../../services/sites/model';
import { siteUrlContext, toSiteSectionGroup } from '../../services/sites/present';
import { addGroup, deleteGroup, findGroup, moveGroup, referencedSection, setGroupParent, setSectionGroup } from '../../services/sites/structure';
import { SiteParams } from './params';

const tags = ['Site section groups'];
const GroupParams = SiteParams.extend({ siteSectionGroupId: IdSchema('siteSectionGroupId') });
const GroupSectionParams = GroupParams.extend({ siteSectionId: IdSchema('siteSectionId') });
const GroupPointerSchema = z.object({ type: z.enum(['site-section', 'site-section-group']), id: z.string().min(1).max(128) });
const IdRef = z.string().min(1).max(128);

const listGroupsRoute = defineRoute('get', '/orgs/{organizationId}/sites/{siteId}/section-groups', () => ({
  operationId: 'listSiteSectionGroups',
  tokens: { scope: 'site:metadata:read' },
  tags,
  summary: "List a site's section groups (each with what it holds)",
  request: { params: SiteParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(SiteSectionGroupSchema, 'SiteSectionGroups'), 'The groups in reading order') },
}));

const addGroupRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/section-groups', () => ({
  operationId: 'addSectionGroupToSite',
  tags,
  summary: 'Add a section group (admins)',
  request: {
    params: SiteParams,
    ...jsonBody(
      z.object({
        title: SiteSectionGroupTitleSchema,
        icon: IconSchema.nullable().optional(),
        sections: z.array(IdRef).max(100).optional().openapi({ description: 'Sections to move into the group' }),
        parent: IdRef.optional().openapi({ description: "Parent group; omitted: the site's root" }),
      }),
    ),
  },
  responses: { 201: jsonResponse(SiteSectionGroupSchema, 'The group') },
}));

const deleteGroupRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', () => ({
  operationId: 'deleteSiteSectionGroupById',
  tags,
  summary: 'Delete a section group; what it held moves up to its parent (admins)',
  request: { params: GroupParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const updateGroupRoute = defineRoute('patch', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', () => ({
  operationId: 'updateSiteSectionGroupById',
  tags,
  summary: 'Change a section group (admins)',
  request: {
    params: GroupParams,
    ...jsonBody(
      z.object({
        title: SiteSectionGroupTitleSchema.optional(),
        icon: IconSchema.nullable().optional(),
        parentSectionGroupId: IdRef.nullable().optional().openapi({ description: 'Move into this group; null: to the root' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSectionGroupSchema, 'The group') },
}));

const addSectionToGroupRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections', () => ({
  operationId: 'addSectionToGroup',
  tags,
  summary: 'Move a section into a group (admins)',
  request: { params: GroupParams, ...jsonBody(z.object({ sectionId: IdRef })) },
  responses: { 201: jsonResponse(SiteSectionGroupSchema, 'The group') },
}));

const removeSectionFromGroupRoute = defineRoute('delete', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}', () => ({
  operationId: 'removeSectionFromGroup',
  tags,
  summary: "Move a section out of a group, to the group's parent (admins)",
  request: { params: GroupSectionParams },
  responses: { 204: noContent('Removed, or was not part of the group') },
}));

const moveGroupRoute = defineRoute('post', '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move', () => ({
  operationId: 'moveSiteSectionGroup',
  tags,
  summary: 'Move a section group among its siblings (admins)',
  request: {
    params: GroupParams,
    ...jsonBody(
      z.object({
        position: z
          .object({ before: GroupPointerSchema.optional(), after: GroupPointerSchema.optional() })
          .refine((p) => !(p.before && p.after), { message: 'give either before or after, not both' })
          .optional()
          .openapi({ description: 'Omitted: to the end' }),
      }),
    ),
  },
  responses: { 200: jsonResponse(SiteSectionGroupSchema, 'The group') },
}));

/** Every group in reading order (depth first). */
function groupsInOrder(model: SiteModel): GroupRow[] {
  const out: GroupRow[] = [];
  const walk = (parentId: string | null) => {
    for (const child of childrenOf(model, parentId)) {
      if (child.kind === 'group') {
        out.push(child.row);
        walk(child.row.id);
      }
    }
  };
  walk(null);
  return out;
}

export const siteSectionGroupsRouter = createRouter()
  .openapi(listGroupsRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const { model } = await loadSiteAsMember(c.get('db'), organizationId, siteId, userId, RANK.read);
    const urls = siteUrlContext(c);
    return c.json(pageInMemory(groupsInOrder(model).map((g) => toSiteSectionGroup(model, g, urls)), c.req.valid('query'), (g) => g.id), 200);
  })
  .openapi(addGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) =>
      addGroup(after, { title: body.title, icon: body.icon, parentId: body.parent, sections: body.sections }),
    );
    return c.json(toSiteSectionGroup(model, result, siteUrlContext(c)), 201);
  })
  .openapi(deleteGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionGroupId } = c.req.valid('param');
    await changeSite(c.get('db'), organizationId, siteId, userId, (after) => deleteGroup(after, siteSectionGroupId));
    return c.body(null, 204);
  })
  .openapi(updateGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionGroupId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const group = findGroup(after, siteSectionGroupId);
      if (body.title !== undefined) group.title = body.title;
      if (body.icon !== undefined) group.icon = body.icon;
      if (body.parentSectionGroupId !== undefined) setGroupParent(after, group, body.parentSectionGroupId);
      return group;
    });
    return c.json(toSiteSectionGroup(model, result, siteUrlContext(c)), 200);
  })
  .openapi(addSectionToGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionGroupId } = c.req.valid('param');
    const { sectionId } = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const group = findGroup(after, siteSectionGroupId);
      setSectionGroup(after, referencedSection(after, sectionId, 'sectionId'), group.id);
      return group;
    });
    return c.json(toSiteSectionGroup(model, result, siteUrlContext(c)), 201);
  })
  .openapi(removeSectionFromGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionGroupId, siteSectionId } = c.req.valid('param');
    await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const group = after.groups.find((g) => g.id === siteSectionGroupId);
      const section = after.sections.find((s) => s.id === siteSectionId);
      if (group && section?.groupId === group.id) setSectionGroup(after, section, group.parentId);
    });
    return c.body(null, 204);
  })
  .openapi(moveGroupRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId, siteId, siteSectionGroupId } = c.req.valid('param');
    const { position } = c.req.valid('json');
    const { model, result } = await changeSite(c.get('db'), organizationId, siteId, userId, (after) => {
      const group = findGroup(after, siteSectionGroupId);
      moveGroup(after, group, position);
      return group;
    });
    return c.json(toSiteSectionGroup(model, result, siteUrlContext(c)), 200);
  });
