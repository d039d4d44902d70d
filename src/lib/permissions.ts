import { RANK } from './roles';

/**
 * What a role rank lets its holder do on each kind of resource: the `permissions` booleans of the API
 * objects (schemas/*), pure functions of the caller's rank. Authorization itself goes through
 * services/access/permissions (`authorize`, `spaceAbilities`), over the same ranks (lib/roles).
 */

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
