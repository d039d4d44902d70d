import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { orgMembers } from '../db/schema';
import { badRequest } from '../lib/errors';

/** Every user named in merge rules must be a member of the organization. */
export async function assertMergeRuleUsers(db: Db, orgId: string, rules: { type: string; rules?: ReadonlyArray<object> }) {
  if (rules.type !== 'rules') return;
  const named = [...new Set((rules.rules ?? []).flatMap((r) => ('users' in r ? (r.users as string[]) : [])))];
  if (named.length === 0) return;
  const found = await db
    .select({ userId: orgMembers.userId })
    .from(orgMembers)
    .where(and(eq(orgMembers.orgId, orgId), inArray(orgMembers.userId, named)))
    .all();
  const members = new Set(found.map((f) => f.userId));
  const missing = named.filter((id) => !members.has(id));
  if (missing.length) throw badRequest(`mergeRules: users ${missing.join(', ')} are not members of this organization`);
}
