import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { badRequest } from '../../lib/errors';

type MergeRules = { type: string; rules?: ReadonlyArray<object> };

/** The user ids named in merge rules (deduplicated). */
function mergeRuleUsers(rules: MergeRules | undefined): string[] {
  if (!rules || rules.type !== 'rules') return [];
  return [...new Set((rules.rules ?? []).flatMap((r) => ('users' in r ? (r.users as string[]) : [])))];
}

/**
 * The users named in merge rules who are not members of the organization, as a statement to batch
 * (it selects nothing when no rule names users). The ids travel as one JSON parameter: merge rules
 * can name far more users than D1's 100 bound parameters per statement.
 */
export function mergeRuleNonMembersQuery(db: Db, orgId: string, rules: MergeRules | undefined) {
  // A query builder rather than `db.all(sql)`: drizzle's D1 batch cannot bind parameters of raw SQL.
  return db
    .select({ id: sql<string>`value` })
    .from(sql`json_each(${JSON.stringify(mergeRuleUsers(rules))})`)
    .where(sql`value not in (select user_id from org_members where org_id = ${orgId})`);
}

/** Every user named in merge rules must be a member of the organization (400 naming the others). */
export function checkMergeRuleMembers(nonMembers: { id: string }[]) {
  if (nonMembers.length) {
    throw badRequest(`mergeRules: users ${nonMembers.map((m) => m.id).join(', ')} are not members of this organization`);
  }
}

export async function assertMergeRuleUsers(db: Db, orgId: string, rules: MergeRules) {
  checkMergeRuleMembers(await mergeRuleNonMembersQuery(db, orgId, rules).all());
}
