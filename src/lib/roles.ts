/** Roles, lowest first; the database stores their rank (1..6), 0 for a guest. */
export const ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const RANK = { guest: 0, read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 } as const;

export function roleToRank(role: Role | null): number {
  return role === null ? 0 : RANK[role];
}

export function rankToRole(rank: number | null | undefined): Role | null {
  return rank && rank >= 1 && rank <= 6 ? ROLES[rank - 1] : null;
}

/** `defaultLevel` as the API shows it: a role, null for guest, or 'inherit'. */
export type DefaultLevel = Role | null | 'inherit';

export function levelToColumn(level: DefaultLevel): number | null {
  return level === 'inherit' ? null : roleToRank(level);
}

export function columnToLevel(value: number | null): DefaultLevel {
  return value === null ? 'inherit' : rankToRole(value);
}
