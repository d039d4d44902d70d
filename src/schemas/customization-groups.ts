/**
 * Which values of a site's customization are groups, merged field by field (services/sites/customization): a
 * module of its own, without zod, because the published site merges a site space's settings over its site's
 * on every page and must not build the customization schemas to do so (schemas/site-customization checks
 * that its groups are exactly these).
 */
export const CUSTOMIZATION_GROUP_NAMES = [
  'styling',
  'internationalization',
  'header',
  'footer',
  'themes',
  'pdf',
  'feedback',
  'ai',
  'advancedCustomization',
  'git',
  'pageActions',
  'externalLinks',
  'pagination',
  'trademark',
  'privacyPolicy',
  'socialPreview',
  'insights',
] as const;
export type CustomizationGroupName = (typeof CUSTOMIZATION_GROUP_NAMES)[number];

/**
 * Which values are groups, as a tree (a group's own nested groups under it): the one list the merges
 * of services/sites/customization follow.
 */
export type GroupTree = { readonly [key: string]: GroupTree };
export const CUSTOMIZATION_GROUPS: GroupTree = Object.fromEntries(
  CUSTOMIZATION_GROUP_NAMES.map((key): [string, GroupTree] => [key, key === 'styling' ? { sidebar: {}, codeTheme: {} } : {}]),
);
