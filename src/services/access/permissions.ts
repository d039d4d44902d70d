import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';

/**
 * One place that turns a role rank into what the caller may do. Every route authorizes through
 * `authorize`, and every resource's `permissions` booleans come from the functions below,
 * so what the API says a caller may do is exactly what it lets them do.
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

export function spacePermissions(rank: number) {
  return {
    view: rank >= RANK.read,
    access: rank >= RANK.read,
    admin: rank >= RANK.admin,
    viewInviteLinks: rank >= RANK.admin,
    edit: rank >= RANK.edit,
    triggerGitSync: rank >= RANK.edit,
    comment: rank >= RANK.comment,
    merge: rank >= RANK.review,
    review: rank >= RANK.review,
    installIntegration: rank >= RANK.admin,
  };
}

export function collectionPermissions(rank: number) {
  return {
    view: rank >= RANK.read,
    admin: rank >= RANK.admin,
    viewInviteLinks: rank >= RANK.admin,
    create: rank >= RANK.create,
  };
}

/** `rank` is the caller's organization role rank, null when they are not a member. */
export function organizationPermissions(rank: number | null) {
  const member = rank !== null;
  const atLeast = (needed: number) => member && rank >= needed;
  return {
    view: member,
    // Guests too: they open the organization in the app to reach the spaces shared with them.
    access: member,
    admin: atLeast(RANK.admin),
    ownTeam: atLeast(RANK.read),
    createContent: atLeast(RANK.create),
    createOpenAPISpec: atLeast(RANK.create),
    ingestConversations: atLeast(RANK.admin),
    viewBilling: atLeast(RANK.admin),
    listMembers: atLeast(RANK.read),
    listTeams: atLeast(RANK.read),
    listIntegrations: member,
    listInstallations: atLeast(RANK.admin),
    installIntegration: atLeast(RANK.admin),
  };
}

/** Organization-level checks: non-members get 404, members without the role 403. */
export function authorizeOrg(rank: number | null | undefined, needed: number): void {
  if (rank === null || rank === undefined) throw new ApiError(404, 'Organization not found');
  if (rank < needed) throw new ApiError(403, 'You do not have permission to do this in this organization');
}

export function teamPermissions(orgRank: number | null, isOwner: boolean) {
  return {
    admin: orgRank === RANK.admin || isOwner,
    view: orgRank !== null && (orgRank >= RANK.read || isOwner),
  };
}

/** What each organization role may do on a site (the `permissions` of the Site object say the same). */
export function sitePermissions(rank: number) {
  return {
    view: rank >= RANK.read,
    access: rank >= RANK.read,
    // Only admins change a site here (structure, settings, publishing), so only they may edit or create in it.
    edit: rank >= RANK.admin,
    create: rank >= RANK.admin,
    admin: rank >= RANK.admin,
    installIntegration: rank >= RANK.admin,
    viewAdaptiveSchema: rank >= RANK.read,
    editAdaptiveSchema: rank >= RANK.admin,
  };
}
