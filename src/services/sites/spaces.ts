import { badRequest } from '../../lib/errors';
import type { SiteModel, SpaceWithRank } from './model';

/**
 * Checks that a space about to join a site is a live space of the site's organization (the rows of
 * `spacesAmongQuery`) and makes it known to the model, so site spaces can show it.
 */
export function requireSpaceToAdd(model: SiteModel, found: SpaceWithRank[], spaceId: string): void {
  const row = found.find((f) => f.space.id === spaceId);
  if (!row) throw badRequest(`spaceId: "${spaceId}" is not a space of this organization`);
  model.spaces.set(spaceId, row);
}
