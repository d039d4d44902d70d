import { sql, type SQL } from 'drizzle-orm';
import { INTEGRATION_SCOPES } from '../../lib/integration-scopes';
import { RANK } from '../../lib/roles';

/** The least role on a covered space that the space routes behind one scope need (writing content includes merging: review). */
function spaceRoleForScope(scope: string): number {
  if (scope === 'space:content:write' || scope === 'space:metadata:write') return RANK.review;
  if (scope.startsWith('space:') || scope === 'page:feedback:read') return RANK.read;
  return RANK.guest;
}

/**
 * The role an installation's tokens get on the spaces it covers: the highest its scopes need (its
 * approved ones: `grantedScopes`). Scopes then decide which of those routes it may call.
 */
export function spaceRoleForScopes(scopes: readonly string[]): number {
  return Math.max(RANK.guest, ...scopes.map(spaceRoleForScope));
}

/** `spaceRoleForScopes` of a JSON array of scopes, in SQL (the same table of roles, so they cannot drift). */
export function spaceRoleForScopesSql(scopesJson: SQL): SQL<number> {
  const cases = INTEGRATION_SCOPES.filter((scope) => spaceRoleForScope(scope) !== RANK.guest).map((scope) => sql`when ${scope} then ${spaceRoleForScope(scope)}`);
  return sql<number>`coalesce((select max(case g.value ${sql.join(cases, sql` `)} else ${RANK.guest} end) from json_each(${scopesJson}) g), ${RANK.guest})`;
}

// ---------------------------------------------------------------------------------------------
// Consent: an installation's tokens carry only the scopes its organization approved

/**
 * The scopes an installation's tokens carry: those the integration asks for (its current scopes) that
 * the installing organization approved. A publish that drops a scope narrows them at once; one that
 * adds a scope adds nothing until an admin approves it.
 */
export function grantedScopes(asked: readonly string[], approved: readonly string[]): string[] {
  return asked.filter((scope) => approved.includes(scope));
}

/** `grantedScopes` of two JSON arrays, in SQL: a JSON array in the order of `asked`. */
export function grantedScopesSql(asked: SQL, approved: SQL): SQL<string> {
  return sql<string>`(select json_group_array(a.value) from json_each(${asked}) a where a.value in (select b.value from json_each(${approved}) b))`;
}

/** True in SQL where `asked` holds a scope `approved` does not: the installation waits for consent (`pending`). */
export function asksBeyondSql(asked: SQL, approved: SQL): SQL<boolean> {
  return sql<boolean>`exists (select 1 from json_each(${asked}) a where a.value not in (select b.value from json_each(${approved}) b))`;
}

/**
 * The statuses in which an installation works (its tokens, the role of its bot user, its events): a
 * `pending` one keeps working with what it approved; a `paused` one does not.
 */
export const WORKING_STATUSES = ['active', 'pending'] as const;
export const tokensWork = (status: string | null) => (WORKING_STATUSES as readonly (string | null)[]).includes(status);
/** `WORKING_STATUSES` as an SQL list, `('active', 'pending')` (text, and SQL), for the queries that follow an installation's bot user. */
export const WORKING_STATUSES_LIST = `(${WORKING_STATUSES.map((status) => `'${status}'`).join(', ')})`;
export const WORKING_STATUSES_SQL: SQL = sql.raw(WORKING_STATUSES_LIST);
