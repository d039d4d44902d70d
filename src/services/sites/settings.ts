import type { SiteCustomizationSettings, SiteSpaceCustomizationOverride } from '../../schemas/site-customization';
import { applyOverride, defaultCustomization } from './customization';
import type { SiteRow, SiteSpaceRow } from './model';

/** A site's customization as stored (the defaults until it is first set), with when it was set. */
export function siteSettings(site: SiteRow): SiteCustomizationSettings {
  const settings = (site.customization as SiteCustomizationSettings | null) ?? defaultCustomization();
  return site.customizationUpdatedAt ? { ...settings, updatedAt: site.customizationUpdatedAt } : settings;
}

/** A site space's customization: its override merged over the site's. */
export function siteSpaceSettings(site: SiteRow, siteSpace: SiteSpaceRow): SiteCustomizationSettings {
  const merged = applyOverride(siteSettings(site), siteSpace.customization as SiteSpaceCustomizationOverride | null);
  const updatedAt = [site.customizationUpdatedAt, siteSpace.customizationUpdatedAt].filter((t): t is string => !!t).sort().pop();
  return updatedAt ? { ...merged, updatedAt } : merged;
}
