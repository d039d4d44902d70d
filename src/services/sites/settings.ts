import type { SiteCustomizationSettings, SiteSpaceCustomizationOverride } from '../../schemas/site-customization';
import { evaluateCondition } from './conditions';
import { applyOverride, defaultCustomization } from './customization';
import type { SiteRow, SiteSpaceRow } from './model';

/** A site's customization as stored (the defaults until it is first set), with when it was set. */
export function siteSettings(site: SiteRow): SiteCustomizationSettings {
  const settings = (site.customization as SiteCustomizationSettings | null) ?? defaultCustomization();
  return site.customizationUpdatedAt ? { ...settings, updatedAt: site.customizationUpdatedAt } : settings;
}

/**
 * Settings as the published site and members below admin see them: without the assistant's
 * `ai.instructions`, which GitBook keeps to site admins and never exposes on the published site.
 */
export function publishedSettings(settings: SiteCustomizationSettings): SiteCustomizationSettings {
  if (settings.ai?.instructions === undefined) return settings;
  const { instructions: _adminOnly, ...ai } = settings.ai;
  return { ...settings, ai };
}

/** A site space's customization: its override merged over the site's (`base`, when the caller already has it). */
export function siteSpaceSettings(site: SiteRow, siteSpace: SiteSpaceRow, base = siteSettings(site)): SiteCustomizationSettings {
  const merged = applyOverride(base, siteSpace.customization as SiteSpaceCustomizationOverride | null);
  const updatedAt = [site.customizationUpdatedAt, siteSpace.customizationUpdatedAt].filter((t): t is string => !!t).sort().pop();
  return updatedAt ? { ...merged, updatedAt } : merged;
}

/** What a reader of the published view gets: published settings with only the header links whose condition holds for their claims. */
export function settingsForReader(settings: SiteCustomizationSettings, claims: Record<string, unknown>): SiteCustomizationSettings {
  const published = publishedSettings(settings);
  const links = published.header?.links;
  if (!links?.some((link) => link.condition)) return published;
  return { ...published, header: { ...published.header, links: links.filter((link) => evaluateCondition(link.condition, claims)) } };
}
