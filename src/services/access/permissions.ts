import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';

/**
 * One place that turns a role rank into what the caller may do. Every route authorizes through
 * `authorize`, and every resource's `permissions` booleans come from lib/permissions, over the same
 * ranks, so what the API says a caller may do is exactly what it lets them do.
 */

export function authorize(rank: number | null | undefined, needed: number, what: string): void {
  const have = rank ?? 0;
  // What the caller cannot see does not exist for them.
  if (have < RANK.read && needed > 0) throw new ApiError(404, `${what} not found`);
  if (have < needed) throw new ApiError(403, `You do not have permission to do this on this ${what.toLowerCase()}`);
}

export const spaceAbilities = {
  view: RANK.read,
  comment: RANK.comment,
  edit: RANK.edit,
  review: RANK.review,
  merge: RANK.review,
  create: RANK.create,
  admin: RANK.admin,
} as const;

/** Organization-level checks: non-members get 404, members without the role 403. */
export function authorizeOrg(rank: number | null | undefined, needed: number): void {
  if (rank === null || rank === undefined) throw new ApiError(404, 'Organization not found');
  if (rank < needed) throw new ApiError(403, 'You do not have permission to do this in this organization');
}

